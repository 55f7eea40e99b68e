//! `Hierarchy::request_missed` (a miss that the caller's own probe found,
//! completed without a second look-up) changes exactly what
//! `Hierarchy::request` changes and answers the same: on random one- and
//! two-level hierarchies (write-back and write-through, allocating or not,
//! any associativity, virtual and physical indexing) and random requests
//! within one line of the top level, every request's level and outcome,
//! every cache's counters and memory's are equal.

#[path = "support/levels.rs"]
mod levels;

use levels::level;
use proptest::prelude::*;
use vmlab_addr::{Asid, PhysAddr, VirtAddr};
use vmlab_cache::{LineRef, Lookup, RefKind};
use vmlab_machine::{Hierarchy, LevelConfig, MissClasses, Reached, Request};

fn levels() -> impl Strategy<Value = Vec<LevelConfig>> {
    prop_oneof![level(1).prop_map(|l| vec![l]), (level(1), level(2)).prop_map(|(a, b)| vec![a, b])]
}

/// (kind 0..3, address, size, space)
fn requests() -> impl Strategy<Value = Vec<(u8, u64, u64, u32)>> {
    prop::collection::vec((0u8..3, 0u64..1024, 1u64..9, 0u32..2), 1..300)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(300)
    ))]

    #[test]
    fn a_miss_completed_after_a_probe_equals_the_request(levels in levels(), refs in requests()) {
        let mut probed = Hierarchy::new(&levels, MissClasses::Unsorted).expect("valid levels");
        let mut plain = Hierarchy::new(&levels, MissClasses::Unsorted).expect("valid levels");
        for (k, a, size, space) in refs {
            let kind = [RefKind::Ifetch, RefKind::Read, RefKind::Write][usize::from(k)];
            // Two regions, so tags differ within a set; the physical address
            // another frame at the same page offset.
            let va = a + ((a >> 9) << 16);
            let pa = va ^ (1 << 20);
            let top = probed.serving_mut(0, kind).expect("a top level");
            let line = top.line_bytes();
            let size = size.min(line - (va & (line - 1)));
            let r = LineRef { vaddr: VirtAddr(va), paddr: PhysAddr(pa), asid: Asid(space) };
            let request = Request::new(kind, VirtAddr(va), PhysAddr(pa), Asid(space), size);
            let expected = plain.request(0, request);
            match top.lookup(r, kind) {
                Lookup::Hit(_) => {
                    prop_assert_eq!(expected.level, Reached::Level(0));
                    prop_assert!(expected.last.hit);
                }
                Lookup::Miss { set, key } => {
                    let got = probed.request_missed(0, kind, r, size, set, key);
                    prop_assert_eq!(got, expected, "{:?} {:#x}+{}", kind, va, size);
                }
                Lookup::Full => {
                    prop_assert_eq!(probed.request(0, request), expected);
                }
            }
        }
        let stats = |h: &Hierarchy| h.caches().into_iter().map(|(n, c)| (n.to_string(), *c.stats())).collect::<Vec<_>>();
        prop_assert_eq!(stats(&probed), stats(&plain));
        prop_assert_eq!(probed.memory(), plain.memory());
    }
}
