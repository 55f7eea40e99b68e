//! Property test: every configuration of a one-pass sweep equals, in every
//! counter of its `RunResult`, its own run of `vmlab_machine::Machine`, on
//! random traces (flushes, address spaces, straddling references, runs of
//! repeats) and random machines: one to three levels, unified or split,
//! any policy above the swept cache, the swept cache any indexing, tags,
//! index function, write policy, set count (powers of two or not) and way
//! count (fully associative too).

use proptest::prelude::*;
use vmlab_addr::{Asid, PageSize, VirtAddr};
use vmlab_cache::{Assoc, CacheConfig, IndexFn, Indexing, Replacement, WriteMissPolicy, WritePolicy};
use vmlab_machine::{Machine, MachineConfig, MemoryConfig};
use vmlab_onepass::{passes, OnePass};
use vmlab_trace::{AccessKind, Event};

/// A fixed level: anything the engine simulates.
fn fixed_cache() -> impl Strategy<Value = CacheConfig> {
    (
        prop::sample::select(vec![8u64, 16, 32]),
        prop::sample::select(vec![1u64, 2, 4]),
        prop::sample::select(vec![1u32, 2, 4]),
        prop::sample::select(vec![Indexing::Vivt, Indexing::Vipt, Indexing::Pipt]),
        any::<bool>(),
        prop::sample::select(vec![Replacement::Lru, Replacement::TreePlru, Replacement::Fifo, Replacement::Random]),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(line, sets, ways, indexing, tags, replacement, wb, wa)| {
            let mut c = CacheConfig::simple(line * sets * u64::from(ways), line, ways);
            c.indexing = indexing;
            c.asid_tags = tags && indexing == Indexing::Vivt;
            c.replacement = replacement;
            c.write = if wb { WritePolicy::WriteBack } else { WritePolicy::WriteThrough };
            c.write_miss = if wa { WriteMissPolicy::WriteAllocate } else { WriteMissPolicy::NoWriteAllocate };
            c
        })
}

/// The swept cache's shape (everything but size and associativity) and
/// its (sets, ways) points; ways 0 is fully associative.
#[derive(Debug, Clone)]
struct Swept {
    line: u64,
    indexing: Indexing,
    asid_tags: bool,
    index: IndexFn,
    write_back: bool,
    points: Vec<(u64, u32)>,
}

fn swept_strategy() -> impl Strategy<Value = Swept> {
    (
        prop::sample::select(vec![8u64, 16, 32]),
        prop::sample::select(vec![Indexing::Vivt, Indexing::Vipt, Indexing::Pipt]),
        any::<bool>(),
        prop::sample::select(vec![IndexFn::BitSelect, IndexFn::Xor, IndexFn::SpaceHash]),
        any::<bool>(),
        prop::collection::vec(
            (prop::sample::select(vec![1u64, 2, 3, 4, 8, 16]), prop::sample::select(vec![0u32, 1, 2, 3, 4, 8])),
            2..7,
        ),
    )
        .prop_map(|(line, indexing, tags, index, write_back, points)| Swept {
            line,
            indexing,
            asid_tags: tags && indexing == Indexing::Vivt,
            // A hashed index needs a power-of-two set count in every point.
            index: if points.iter().all(|&(s, w)| w == 0 || s.is_power_of_two()) { index } else { IndexFn::BitSelect },
            write_back,
            points,
        })
}

impl Swept {
    fn cache(&self, sets: u64, ways: u32) -> CacheConfig {
        let (sets, assoc, ways) = if ways == 0 { (1, Assoc::Full, 4) } else { (sets, Assoc::Ways(ways), ways) };
        let mut c = CacheConfig::simple(self.line * sets * u64::from(ways), self.line, ways);
        c.assoc = assoc;
        c.indexing = self.indexing;
        c.asid_tags = self.asid_tags;
        c.index = self.index;
        c.space_hash_bits = 2;
        c.space_hash_at = 6;
        c.write = if self.write_back { WritePolicy::WriteBack } else { WritePolicy::WriteThrough };
        c
    }
}

/// Where the swept cache sits: the levels above it and its sibling.
#[derive(Debug, Clone)]
struct Shape {
    above: Vec<(CacheConfig, Option<CacheConfig>)>,
    /// In a split last level: the other cache, and whether the swept one is the data side.
    sibling: Option<(CacheConfig, bool)>,
}

fn shape_strategy() -> impl Strategy<Value = Shape> {
    let level = (fixed_cache(), prop::option::of(fixed_cache()));
    (prop::collection::vec(level, 0..3), prop::option::of((fixed_cache(), any::<bool>())))
        .prop_map(|(above, sibling)| Shape { above, sibling })
}

fn machine(shape: &Shape, swept: &CacheConfig, n: usize) -> (MachineConfig, &'static str) {
    let mut m =
        MachineConfig::bare(&format!("point{n}"), MemoryConfig::sequential(PageSize::new(256).expect("page"), 1 << 20));
    let levels = shape.above.len();
    for (t, (a, split)) in shape.above.iter().enumerate() {
        match (t, split) {
            (0, None) => m.l1 = Some(a.clone()),
            (0, Some(d)) => (m.l1i, m.l1d) = (Some(a.clone()), Some(d.clone())),
            (_, None) => m.l2 = Some(a.clone()),
            (_, Some(d)) => (m.l2i, m.l2d) = (Some(a.clone()), Some(d.clone())),
        }
    }
    let (u, i, d) = match levels {
        0 => (&mut m.l1, &mut m.l1i, &mut m.l1d),
        1 => (&mut m.l2, &mut m.l2i, &mut m.l2d),
        _ => (&mut m.l3, &mut m.l3i, &mut m.l3d),
    };
    let names = [["l1", "l1i", "l1d"], ["l2", "l2i", "l2d"], ["l3", "l3i", "l3d"]][levels];
    match &shape.sibling {
        None => {
            *u = Some(swept.clone());
            (m, names[0])
        }
        Some((other, true)) => {
            (*i, *d) = (Some(other.clone()), Some(swept.clone()));
            (m, names[2])
        }
        Some((other, false)) => {
            (*i, *d) = (Some(swept.clone()), Some(other.clone()));
            (m, names[1])
        }
    }
}

fn events_strategy() -> impl Strategy<Value = Vec<Event>> {
    let one = prop_oneof![
        60 => (0usize..4, 0u64..1536, 1u32..12, 0u32..3, 0u64..4).prop_map(|(k, a, s, asid, run)| {
            let kind = [AccessKind::Ifetch, AccessKind::Load, AccessKind::Store, AccessKind::Modify][k];
            // A few distant regions, so tags and sets both vary; runs of
            // nearby references, so repeats are exercised.
            let base = ((a % 4) << 18) + a;
            (0..=run).map(|j| Event::access(kind, VirtAddr(base + 2 * j), s, Asid(asid))).collect::<Vec<_>>()
        }),
        2 => Just(vec![Event::FlushAll]),
        1 => (0u32..3).prop_map(|a| vec![Event::ContextSwitch(vmlab_addr::Asid(a))]),
    ];
    prop::collection::vec(one, 1..400).prop_map(|v| v.into_iter().flatten().collect())
}

fn check(shape: &Shape, swept: &Swept, events: &[Event]) -> Result<(), TestCaseError> {
    let mut configs = Vec::new();
    let mut name = "";
    for (n, &(sets, ways)) in swept.points.iter().enumerate() {
        let (m, s) = machine(shape, &swept.cache(sets, ways), n);
        configs.push(m);
        name = s;
    }
    let plan = passes(&configs);
    prop_assert_eq!(plan.len(), 1, "one pass for all: {:?}", plan);
    // (Points that are all equal could sweep the sibling just as well.)
    prop_assert!(plan[0].swept.is_some());
    let mut pass = OnePass::new(configs.clone(), name).map_err(|e| TestCaseError::fail(e.to_string()))?;
    // The levels above the swept one run the loop the whole machine runs.
    let whole = Machine::new(configs[0].clone()).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let expected = if shape.above.is_empty() { "one-level" } else { whole.inner_loop() };
    prop_assert_eq!(pass.inner_loop(), expected);
    pass.feed(events, "random", 0).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let together = pass.results("random");
    for (c, r) in configs.into_iter().zip(together) {
        let mut m = Machine::new(c).map_err(|e| TestCaseError::fail(e.to_string()))?;
        m.feed(events, "random", 0).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(r, m.result("random"));
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    #[test]
    fn every_configuration_equals_its_own_run(shape in shape_strategy(), swept in swept_strategy(),
                                              events in events_strategy()) {
        check(&shape, &swept, &events)?;
    }
}

/// Hand-checked: a 1-set LRU level of 1, 2 and 4 ways (4-byte lines) on
/// A B A C B A (loads): depths inf inf 1 inf 2 2, so 1 way misses all 6,
/// 2 ways miss 5 (only the second A, at depth 1, hits), 4 ways miss 3 (the
/// first touches).
#[test]
fn hand_checked_depths() {
    let mk = |ways: u32| {
        let mut m = MachineConfig::bare(
            &format!("w{ways}"),
            MemoryConfig::sequential(PageSize::new(4096).expect("page"), 1 << 20),
        );
        m.l1 = Some(CacheConfig::simple(4 * u64::from(ways), 4, ways));
        m
    };
    let configs = vec![mk(1), mk(2), mk(4)];
    let mut pass = OnePass::new(configs, "l1").expect("one pass");
    let ev = |a: u64| Event::access(AccessKind::Load, VirtAddr(a), 4, Asid(0));
    pass.feed(&[ev(0), ev(4), ev(0), ev(8), ev(4), ev(0)], "hand", 0).expect("feed");
    let misses: Vec<u64> = pass.results("hand").iter().map(|r| r.caches[0].stats.read.misses).collect();
    assert_eq!(misses, vec![6, 5, 3]);
}

/// A 20-point curve of jm-base's L2 D (and one of the L2 of a 32K 8-way
/// VIPT machine): the L1s run as in a whole run of the machine, jm-base's
/// in the virtual-direct loop, the other's in the associative loop,
/// handing what misses them to the last level (`Machine::feed_packed_into`),
/// and every point equals its own run, on a trace of loops over arrays
/// with stores, a second address space and flushes.
#[test]
fn the_levels_above_run_the_whole_machines_fast_loop() {
    let mut events = Vec::new();
    let mut x = 12345u64;
    for round in 0..40u64 {
        for i in 0..2000u64 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let asid = u32::from(round % 7 == 3);
            events.push(Event::access(AccessKind::Ifetch, VirtAddr(0x40_0000 + (i % 300) * 4), 4, Asid(asid)));
            let kind = [AccessKind::Load, AccessKind::Store, AccessKind::Modify][(x >> 60) as usize % 3];
            let a = 0x1000_0000 + ((x >> 20) % (1 << (12 + round % 8))) * 8;
            events.push(Event::access(kind, VirtAddr(a), 8, Asid(asid)));
        }
        if round % 13 == 12 {
            events.push(Event::FlushAll);
        }
    }
    let assoc_machine = concat!(env!("CARGO_MANIFEST_DIR"), "/../../bench/machines/l1-32k8-l2-1m16.toml");
    for (preset, swept, expected_loop) in [("jm-base", "l2d", "virtual-direct"), (assoc_machine, "l2", "associative")] {
        let mut configs = Vec::new();
        for size in ["16K", "64K", "256K", "1M"] {
            for assoc in ["1", "2", "4", "16", "64"] {
                let o = [format!("{swept}.size={size}"), format!("{swept}.assoc={assoc}")];
                configs.push(vmlab_machine::preset::load(preset, &o).expect("preset"));
            }
        }
        let mut pass = OnePass::new(configs.clone(), swept).expect("one pass");
        assert_eq!(pass.inner_loop(), expected_loop);
        pass.feed(&events, "loops", 0).expect("feed");
        for (c, r) in configs.into_iter().zip(pass.results("loops")) {
            let mut m = Machine::new(c).expect("machine");
            assert_eq!(m.inner_loop(), expected_loop);
            m.feed(&events, "loops", 0).expect("feed");
            assert_eq!(r, m.result("loops"));
        }
    }
}

/// What the planner refuses, and why.
#[test]
fn refusals_name_the_reason() {
    let mut m = MachineConfig::bare("m", MemoryConfig::sequential(PageSize::new(4096).expect("page"), 1 << 20));
    m.l1 = Some(CacheConfig::simple(1024, 32, 2));
    m.l2 = Some(CacheConfig::simple(8192, 32, 4));
    let r = vmlab_onepass::refusal(&m, "l1").expect("l1 is above l2");
    assert!(r.contains("not in the last level"), "{r}");
    let mut fifo = m.clone();
    fifo.l2.as_mut().expect("l2").replacement = Replacement::Fifo;
    assert!(vmlab_onepass::refusal(&fifo, "l2").expect("fifo").contains("not LRU"));
    let mut nwa = m.clone();
    nwa.l2.as_mut().expect("l2").write_miss = WriteMissPolicy::NoWriteAllocate;
    assert!(vmlab_onepass::refusal(&nwa, "l2").expect("no-allocate").contains("write miss"));
    // Two L2 sizes share a pass; a changed L1 does not join it.
    let mut big = m.clone();
    big.l2.as_mut().expect("l2").size = vmlab_addr::ByteSize(65536);
    let mut other_l1 = m.clone();
    other_l1.l1.as_mut().expect("l1").size = vmlab_addr::ByteSize(2048);
    let plan = passes(&[m, big, other_l1]);
    assert_eq!(plan.len(), 2);
    assert_eq!((plan[0].swept.as_deref(), plan[0].members.clone()), (Some("l2"), vec![0, 1]));
    assert_eq!((plan[1].swept.as_deref(), plan[1].members.clone()), (None, vec![2]));
}

/// Set refinement (`SweptLevel::refines`): with bit-select indexes and
/// power-of-two set counts a line on top of its set in a smaller set count
/// is on top in every larger one, and the pass then skips the larger set
/// counts' searches. A one-level curve of 1 to 64 sets and 1 to 8 ways on
/// loops over arrays: the chain answers look-ups, every point equals its
/// own run; the same curve with 3 sets in it (no chain) answers none.
#[test]
fn set_refinement_answers_lookups_and_every_point_equals_its_run() {
    let mut events = Vec::new();
    let mut x = 99u64;
    for round in 0..30u64 {
        for i in 0..1500u64 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let kind = [AccessKind::Load, AccessKind::Store, AccessKind::Load][(x >> 60) as usize % 3];
            let a = if i % 3 == 0 { (x >> 24) % (1 << (8 + round % 6)) } else { (i * 8) % 2048 };
            events.push(Event::access(kind, VirtAddr(0x1000_0000 + a * 4), 4, Asid(0)));
        }
        if round % 11 == 10 {
            events.push(Event::FlushAll);
        }
    }
    let mk = |sets: u64, ways: u32| {
        let mut m = MachineConfig::bare(
            &format!("s{sets}w{ways}"),
            MemoryConfig::sequential(PageSize::new(4096).expect("page"), 1 << 24),
        );
        m.l1 = Some(CacheConfig::simple(16 * sets * u64::from(ways), 16, ways));
        m
    };
    for (set_counts, chained) in [(vec![1u64, 2, 4, 8, 16, 32, 64], true), (vec![1, 3, 4, 16], false)] {
        let configs: Vec<MachineConfig> = set_counts.iter().flat_map(|&s| [1u32, 2, 8].map(|w| mk(s, w))).collect();
        let mut pass = OnePass::new(configs.clone(), "l1").expect("one pass");
        pass.feed(&events, "arrays", 0).expect("feed");
        assert_eq!(pass.refined() > 0, chained, "sets {set_counts:?}: {} look-ups refined", pass.refined());
        for (c, r) in configs.into_iter().zip(pass.results("arrays")) {
            let mut m = Machine::new(c).expect("machine");
            m.feed(&events, "arrays", 0).expect("feed");
            assert_eq!(r, m.result("arrays"));
        }
    }
}

/// The stamps of lines in no stack are dropped, exactly: a stream over
/// 10,000 distinct lines (a long scan, with hot lines reused between its
/// steps and stores) through 2 to 64 sets of 1 to 8 ways (at most 512
/// lines in the stacks) keeps at most 2 x 512 + 1,024 stamps, and every
/// point equals its own run. Before the pruning the map held every line.
#[test]
fn the_stamp_map_stays_bounded_and_exact() {
    let mut events = Vec::new();
    for i in 0..10_000u64 {
        events.push(Event::access(AccessKind::Load, VirtAddr(0x2000_0000 + i * 16), 4, Asid(0)));
        let hot = [AccessKind::Store, AccessKind::Load][(i % 2) as usize];
        events.push(Event::access(hot, VirtAddr(0x1000_0000 + (i * 7 % 96) * 16), 4, Asid(0)));
    }
    let mk = |sets: u64, ways: u32| {
        let mut m = MachineConfig::bare(
            &format!("s{sets}w{ways}"),
            MemoryConfig::sequential(PageSize::new(4096).expect("page"), 1 << 26),
        );
        m.l1 = Some(CacheConfig::simple(16 * sets * u64::from(ways), 16, ways));
        m
    };
    let configs: Vec<MachineConfig> = [2u64, 8, 64].iter().flat_map(|&s| [1u32, 4, 8].map(|w| mk(s, w))).collect();
    let mut pass = OnePass::new(configs.clone(), "l1").expect("one pass");
    pass.feed(&events, "scan", 0).expect("feed");
    assert!(pass.stamps_held() <= 2 * 512 + 1024, "{} stamps held", pass.stamps_held());
    for (c, r) in configs.into_iter().zip(pass.results("scan")) {
        let mut m = Machine::new(c).expect("machine");
        m.feed(&events, "scan", 0).expect("feed");
        assert_eq!(r, m.result("scan"));
    }
}

/// Deep stacks: swept points of up to 128 ways over 1 to 16 sets, deeper
/// than `swept_strategy`'s 8 ways, so that long stacks fill, lose entries
/// and find lines far down them on the random traces of `events_strategy`.
fn deep_swept_strategy() -> impl Strategy<Value = Swept> {
    (
        swept_strategy(),
        prop::collection::vec(
            (prop::sample::select(vec![1u64, 2, 4, 8, 16]), prop::sample::select(vec![1u32, 2, 64, 65, 128])),
            2..7,
        ),
    )
        .prop_map(|(mut s, points)| {
            s.index = if points.iter().all(|&(s, _)| s.is_power_of_two()) { s.index } else { IndexFn::BitSelect };
            s.points = points;
            s
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn deep_stacks_equal_their_own_runs(shape in shape_strategy(), swept in deep_swept_strategy(),
                                       events in events_strategy()) {
        check(&shape, &swept, &events)?;
    }
}
