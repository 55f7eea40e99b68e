//! The sampled sweep (`shards.rs`): at rate 1 it is the exact pass, counter
//! for counter, on random machines and traces (so the plumbing of the
//! sample, the scaling and the counts kept exactly are right); on sets
//! loaded alike its set sample is exact; a hashed index is refused. Its
//! error on real traces is measured by `examples/shards_error.rs` and
//! checked in tests/python/test_grid_sweep.py.

#![allow(clippy::unwrap_used)] // a test failing on an unexpected error is the point

use proptest::prelude::*;
use vmlab_addr::{Asid, PageSize, VirtAddr};
use vmlab_cache::{CacheConfig, IndexFn, Indexing, WritePolicy};
use vmlab_machine::{MachineConfig, MemoryConfig};
use vmlab_onepass::{OnePass, Sampling};
use vmlab_trace::{AccessKind, Event};

fn events_strategy() -> impl Strategy<Value = Vec<Event>> {
    let one = prop_oneof![
        60 => (0usize..4, 0u64..4096, 1u32..12, 0u32..3, 0u64..4).prop_map(|(k, a, s, asid, run)| {
            let kind = [AccessKind::Ifetch, AccessKind::Load, AccessKind::Store, AccessKind::Modify][k];
            let base = ((a % 4) << 18) + a;
            (0..=run).map(|j| Event::access(kind, VirtAddr(base + 2 * j), s, Asid(asid))).collect::<Vec<_>>()
        }),
        2 => Just(vec![Event::FlushAll]),
        1 => (0u32..3).prop_map(|a| vec![Event::ContextSwitch(vmlab_addr::Asid(a))]),
    ];
    prop::collection::vec(one, 1..400).prop_map(|v| v.into_iter().flatten().collect())
}

/// Split L1s over a swept unified L2 of `points` (sets, ways).
fn machines(points: &[(u64, u32)], indexing: Indexing, tags: bool, write_back: bool) -> Vec<MachineConfig> {
    points
        .iter()
        .enumerate()
        .map(|(n, &(sets, ways))| {
            let mut m =
                MachineConfig::bare(&format!("p{n}"), MemoryConfig::sequential(PageSize::new(256).unwrap(), 1 << 20));
            m.l1i = Some(CacheConfig::simple(128, 16, 2));
            m.l1d = Some(CacheConfig::simple(128, 16, 1));
            let mut l2 = CacheConfig::simple(32 * sets * u64::from(ways), 32, ways);
            l2.indexing = indexing;
            l2.asid_tags = tags && indexing == Indexing::Vivt;
            l2.write = if write_back { WritePolicy::WriteBack } else { WritePolicy::WriteThrough };
            m.l2 = Some(l2);
            m
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn rate_one_is_the_exact_pass(
        points in prop::collection::vec((prop::sample::select(vec![1u64, 2, 3, 4, 8]), prop::sample::select(vec![1u32, 2, 4])), 1..5),
        indexing in prop::sample::select(vec![Indexing::Vivt, Indexing::Vipt, Indexing::Pipt]),
        tags in any::<bool>(),
        write_back in any::<bool>(),
        seed in 0u64..4,
        events in events_strategy(),
    ) {
        let configs = machines(&points, indexing, tags, write_back);
        let mut exact = OnePass::new(configs.clone(), "l2").unwrap();
        exact.feed(&events, "t", 0).unwrap();
        let mut sampled = OnePass::sampled(configs, "l2", Some(Sampling { rate: 1.0, seed })).unwrap();
        sampled.feed(&events, "t", 0).unwrap();
        prop_assert_eq!(sampled.results("t"), exact.results("t"));
    }
}

/// 64 direct-mapped sets, each fed the same ping-pong of two lines: every
/// set misses alike, so any sample of sets scales to the exact counts.
#[test]
fn sets_loaded_alike_sample_exactly() {
    let configs: Vec<MachineConfig> = [1u32, 2]
        .iter()
        .map(|&ways| {
            let mut m = MachineConfig::bare("dm", MemoryConfig::sequential(PageSize::new(4096).unwrap(), 1 << 24));
            m.l1 = Some(CacheConfig::simple(16 * 64 * u64::from(ways), 16, ways));
            m
        })
        .collect();
    let mut events = Vec::new();
    for _ in 0..10 {
        for set in 0..64u64 {
            for conflict in [0u64, 1, 0, 2] {
                events.push(Event::access(AccessKind::Load, VirtAddr((set + 64 * 2 * conflict) * 16), 4, Asid(0)));
            }
        }
    }
    let run = |sampling| {
        let mut p = OnePass::sampled(configs.clone(), "l1", sampling).unwrap();
        p.feed(&events, "t", 0).unwrap();
        p.results("t").iter().map(|r| r.caches[0].stats).collect::<Vec<_>>()
    };
    let exact = run(None);
    // By hand, per set and round of A B A C: one way misses all four; two
    // ways miss A B C in the first round, then B and C (A stays).
    assert_eq!((exact[0].read.misses, exact[1].read.misses), (2560, 64 * 21));
    for seed in 0..4 {
        let s = run(Some(Sampling { rate: 0.25, seed }));
        assert_eq!((s[0].read.misses, s[1].read.misses), (2560, 64 * 21), "seed {seed}");
        assert_eq!((s[0].read.accesses, s[0].fetches), (2560, 2560));
    }
}

#[test]
fn bad_rates_and_hashed_indexes_are_refused() {
    let configs = machines(&[(4, 2), (8, 2)], Indexing::Pipt, false, true);
    for rate in [0.0, -0.5, 1.5, f64::NAN, 1e-9] {
        assert!(OnePass::sampled(configs.clone(), "l2", Some(Sampling { rate, seed: 0 })).is_err(), "{rate}");
    }
    let mut xor = configs.clone();
    for m in &mut xor {
        m.l2.as_mut().unwrap().index = IndexFn::Xor;
    }
    let e = OnePass::sampled(xor, "l2", Some(Sampling { rate: 0.5, seed: 0 })).unwrap_err();
    assert!(e.to_string().contains("bit-select"), "{e}");
}
