//! The translating machine's walk of its L1s (`MemSys`, which walks them
//! itself so that a sweep's L2s see each L1 outcome and SOFTVM/SPUR can
//! translate between an L1 miss and its fill; the direct probes, whose hits
//! are counted at `settle`, in front) changes exactly what the machine's one
//! public path, `Hierarchy::request` on the same two levels, changes, and
//! answers the same level: on random machines (split L1s, split or unified
//! L2, any associativity and line size, write-back and write-through,
//! allocating or not; direct-mapped VIVT ones take the direct probes) and
//! random references within one L1 line, through `l1_lookup`/`l1_missed`,
//! `l1_missed_l2_hit` where `l2_holds`, and `access` with the fast paths
//! off; then the same after `flush_all` against `Hierarchy::flush_all`.
//! Issue 24's step 1 (the L1s as level 0 of the machine's `Hierarchy`)
//! keeps this walk as a private fast path behind `request`: this is the
//! test that holds it to it.

#![allow(clippy::unwrap_used)]

mod common;

use common::CacheChoice;
use proptest::prelude::*;
use vmlab_addr::{Asid, PhysAddr, VirtAddr};
use vmlab_cache::{CacheConfig, Indexing, LineRef, Lookup, RefKind, Replacement};
use vmlab_machine::{Hierarchy, LevelConfig, MissClasses, Request};
use vmlab_translation::memsys::{MemSys, L1};
use vmlab_translation::{load, VmConfig};

fn cache() -> impl Strategy<Value = CacheConfig> {
    (
        prop::sample::select(vec![16u64, 32]),
        prop::sample::select(vec![1u64, 2, 4, 8]),
        prop::sample::select(vec![1u32, 1, 2]),
        prop::sample::select(vec![Indexing::Vivt, Indexing::Vivt, Indexing::Pipt]),
        prop::sample::select(vec![Replacement::Lru, Replacement::Fifo]),
        prop::sample::select(vec![true, true, false]),
        any::<bool>(),
    )
        .prop_map(|(line, sets, ways, indexing, replacement, write_back, write_allocate)| {
            let choice = CacheChoice { sets, ways, replacement, write_back, write_allocate, seed: 0 };
            common::cache(&choice, line, indexing)
        })
}

/// (L1 I, L1 D, unified L2 or split L2 I and D)
type Shape = (CacheConfig, CacheConfig, Result<CacheConfig, (CacheConfig, CacheConfig)>);

fn shape() -> impl Strategy<Value = Shape> {
    (cache(), cache(), prop_oneof![cache().prop_map(Ok), (cache(), cache()).prop_map(Err)])
}

fn vm_config((i, d, l2): &Shape) -> VmConfig {
    let mut cfg = load("jacob-mudge", &["scheme=notlb".to_string()]).expect("preset");
    cfg.l1i = i.clone();
    cfg.l1d = d.clone();
    (cfg.l2, cfg.l2i, cfg.l2d) = match l2 {
        Ok(u) => (Some(u.clone()), None, None),
        Err((i, d)) => (None, Some(i.clone()), Some(d.clone())),
    };
    cfg
}

fn hierarchy((i, d, l2): &Shape) -> Hierarchy {
    let l1 = LevelConfig::Split { i_name: "l1i".into(), i: i.clone(), d_name: "l1d".into(), d: d.clone() };
    let l2 = match l2 {
        Ok(u) => LevelConfig::Unified { name: "l2".into(), cache: u.clone() },
        Err((i, d)) => LevelConfig::Split { i_name: "l2i".into(), i: i.clone(), d_name: "l2d".into(), d: d.clone() },
    };
    Hierarchy::new(&[l1, l2], MissClasses::Unsorted).expect("valid levels")
}

/// (kind 0..3, address, size, space)
fn references() -> impl Strategy<Value = Vec<(u8, u64, u64, u32)>> {
    prop::collection::vec((0u8..3, 0u64..2048, 1u64..9, 1u32..3), 1..400)
}

/// One access through `MemSys`'s fast walk, as `VmSim` takes it.
fn fast(m: &mut MemSys, kind: RefKind, r: LineRef, size: u64) -> vmlab_machine::Reached {
    match m.l1_lookup(kind, r) {
        Lookup::Hit(_) => L1,
        Lookup::Miss { set, key } if m.l2_holds(kind, r) => m.l1_missed_l2_hit(kind, set, key, r, size),
        Lookup::Miss { set, key } => m.l1_missed(kind, set, key, r, size),
        Lookup::Full => m.access(kind, r, size),
    }
}

fn stats(
    caches: Vec<(&str, &vmlab_cache::Cache)>,
) -> Vec<(String, vmlab_cache::CacheStats, Vec<vmlab_cache::Evicted>)> {
    caches.into_iter().map(|(n, c)| (n.to_string(), *c.stats(), c.resident())).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(300)
    ))]

    #[test]
    fn the_l1_walk_equals_the_hierarchy_request(shape in shape(), refs in references()) {
        let cfg = vm_config(&shape);
        let mut walked = MemSys::new(&cfg, None).expect("machine");
        let mut general = MemSys::new(&cfg, None).expect("machine");
        general.set_general();
        let mut plain = hierarchy(&shape);
        for (k, a, size, space) in refs {
            let kind = [RefKind::Ifetch, RefKind::Read, RefKind::Write][usize::from(k)];
            // Two regions, so tags differ within a set; the physical
            // address another frame at the same page offset.
            let va = a + ((a >> 10) << 16);
            let pa = va ^ (1 << 20);
            let line = walked.l1(kind).line_bytes();
            let size = size.min(line - (va & (line - 1)));
            let r = LineRef { vaddr: VirtAddr(va), paddr: PhysAddr(pa), asid: Asid(space) };
            let served = plain.request(0, Request::new(kind, VirtAddr(va), PhysAddr(pa), Asid(space), size));
            let at = format!("{kind:?} {va:#x}+{size}");
            prop_assert_eq!(fast(&mut walked, kind, r, size), served.level, "fast: {}", at);
            prop_assert_eq!(general.access(kind, r, size), served.level, "general: {}", at);
        }
        walked.settle();
        general.settle();
        prop_assert_eq!(stats(walked.caches()), stats(plain.caches()));
        prop_assert_eq!(stats(general.caches()), stats(plain.caches()));
        prop_assert_eq!(walked.memory(), plain.memory());
        prop_assert_eq!(general.memory(), plain.memory());
        let found = plain.flush_all(vmlab_cache::Flush::WriteBack);
        prop_assert_eq!(walked.flush_all(), found);
        prop_assert_eq!(general.flush_all(), found);
        // The L2's direct probe may have taken an L1 write-back as a hit.
        walked.settle();
        prop_assert_eq!(stats(walked.caches()), stats(plain.caches()));
        prop_assert_eq!(walked.memory(), plain.memory());
        prop_assert_eq!(general.memory(), plain.memory());
    }
}
