//! `Hierarchy::flush_from_into(1, ..)`, after its caller flushed level 0
//! itself and wrote that level's dirty lines into level 1
//! (`Hierarchy::request(1, ..)`), changes exactly what
//! `Hierarchy::flush_all_into` changes and hands the sink the same
//! write-backs: on random two-level hierarchies (write-back and
//! write-through, allocating or not, any associativity, virtual and
//! physical indexing) after random requests, the found line states, every
//! cache's counters and contents, memory's counts and the sink's log are
//! equal. The translating simulator's `MemSys::flush_all` flushes its L1s
//! this way, so that a sweep's added L2s also take their write-backs.

#[path = "support/levels.rs"]
mod levels;

use levels::level;
use proptest::prelude::*;
use vmlab_addr::{Asid, PhysAddr, VirtAddr};
use vmlab_cache::{CacheConfig, Flush, LineRef, RefKind};
use vmlab_machine::{Hierarchy, LevelConfig, MissClasses, Request, Sink};

/// (kind 0..3, address, size, space)
fn requests() -> impl Strategy<Value = Vec<(u8, u64, u64, u32)>> {
    prop::collection::vec((0u8..3, 0u64..1024, 1u64..9, 0u32..2), 1..300)
}

/// Every request that leaves the last level, in order.
#[derive(Default)]
struct Log(Vec<(RefKind, u64, u32, u64)>, u32);

impl Sink for Log {
    fn request(&mut self, kind: RefKind, r: LineRef, bytes: u64) {
        self.0.push((kind, r.vaddr.0, r.asid.0, bytes));
    }

    fn flush_all(&mut self) {
        self.1 += 1;
    }
}

fn contents(h: &Hierarchy) -> Vec<(String, vmlab_cache::CacheStats, Vec<vmlab_cache::Evicted>)> {
    h.caches().into_iter().map(|(n, c)| (n.to_string(), *c.stats(), c.resident())).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(300)
    ))]

    #[test]
    fn flushing_the_top_by_hand_then_the_rest_equals_flushing_all(
        levels in (level(1), level(2)).prop_map(|(a, b)| vec![a, b]),
        refs in requests(),
    ) {
        let mut by_hand = Hierarchy::new(&levels, MissClasses::Unsorted).expect("valid levels");
        let mut whole = Hierarchy::new(&levels, MissClasses::Unsorted).expect("valid levels");
        for (k, a, size, space) in refs {
            let kind = [RefKind::Ifetch, RefKind::Read, RefKind::Write][usize::from(k)];
            let va = a + ((a >> 9) << 16);
            let request = Request::new(kind, VirtAddr(va), PhysAddr(va ^ (1 << 20)), Asid(space), size);
            by_hand.request(0, request);
            whole.request(0, request);
        }
        let (mut log_hand, mut log_whole) = (Log::default(), Log::default());
        let expected = whole.flush_all_into(Flush::WriteBack, &mut log_whole);
        let mut found = vmlab_cache::FlushStats::default();
        for c in 0..by_hand.caches_in(0) {
            let kind = if c == 0 { RefKind::Ifetch } else { RefKind::Read };
            let cache = by_hand.serving_mut(0, kind).expect("level 0");
            let line = cache.line_bytes();
            let (stats, dirty) = cache.flush_all(Flush::WriteBack);
            found += stats;
            for v in dirty {
                let r = v.line_ref();
                by_hand.request(1, Request::new(RefKind::Write, r.vaddr, r.paddr, r.asid, line));
            }
        }
        found += by_hand.flush_from_into(1, Flush::WriteBack, &mut log_hand);
        prop_assert_eq!(found, expected);
        prop_assert_eq!(contents(&by_hand), contents(&whole));
        prop_assert_eq!(by_hand.memory(), whole.memory());
        // What level 0's write-backs sent below level 1 (a write passed on,
        // a fill, a victim) went to memory alone by hand (`request`), to
        // memory and the sink in `whole`: the sink saw the same level-1
        // flush after it.
        let flushed_below: Vec<_> = log_whole.0.iter().rev().take(log_hand.0.len()).rev().cloned().collect();
        prop_assert_eq!(&log_hand.0, &flushed_below);
        prop_assert_eq!((log_hand.1, log_whole.1), (0, 0));
    }

    /// From level 0, it is `flush_all_into`.
    #[test]
    fn flushing_from_the_top_is_flushing_all(
        levels in (level(1), level(2)).prop_map(|(a, b)| vec![a, b]),
        refs in requests(),
    ) {
        let mut from = Hierarchy::new(&levels, MissClasses::Unsorted).expect("valid levels");
        let mut whole = Hierarchy::new(&levels, MissClasses::Unsorted).expect("valid levels");
        for (k, a, size, space) in refs {
            let kind = [RefKind::Ifetch, RefKind::Read, RefKind::Write][usize::from(k)];
            let request = Request::new(kind, VirtAddr(a), PhysAddr(a), Asid(space), size);
            from.request(0, request);
            whole.request(0, request);
        }
        let (mut a, mut b) = (Log::default(), Log::default());
        prop_assert_eq!(from.flush_from_into(0, Flush::WriteBack, &mut a), whole.flush_all_into(Flush::WriteBack, &mut b));
        prop_assert_eq!(a.0, b.0);
        prop_assert_eq!(contents(&from), contents(&whole));
        prop_assert_eq!(from.memory(), whole.memory());
    }
}

#[test]
fn split_mut_gives_both_caches_of_a_split_level_only() {
    let c = CacheConfig::simple(256, 16, 1);
    let levels = [
        LevelConfig::Split {
            i_name: "l1i".into(),
            i: c.clone(),
            d_name: "l1d".into(),
            d: CacheConfig::simple(512, 16, 1),
        },
        LevelConfig::Unified { name: "l2".into(), cache: CacheConfig::simple(4096, 32, 1) },
    ];
    let mut h = Hierarchy::new(&levels, MissClasses::Unsorted).expect("valid levels");
    let (i, d) = h.split_mut(0).expect("a split level 0");
    assert_eq!((i.config().size.0, d.config().size.0), (256, 512));
    assert!(h.split_mut(1).is_none(), "a unified level");
    assert!(h.split_mut(2).is_none(), "no level 2");
}
