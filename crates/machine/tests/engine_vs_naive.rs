//! Property test: on random traces and random machines, every counter of the
//! engine equals the naive reference simulator's.

mod support;

use proptest::prelude::*;
use support::naive::{NaiveCache, NaiveMachine, NaiveTier};
use support::public::PublicReplay;
use vmlab_addr::{Asid, PageSize, VirtAddr};
use vmlab_cache::{Assoc, CacheConfig, IndexFn, Indexing, Replacement, WriteMissPolicy, WritePolicy};
use vmlab_machine::{Machine, MachineConfig, MemoryConfig, StatsConfig};
use vmlab_trace::{AccessKind, Event, PackedBlock};

fn cache_strategy(page: u64) -> impl Strategy<Value = CacheConfig> {
    (
        prop::sample::select(vec![8u64, 16, 32]),
        prop::sample::select(vec![1u64, 2, 3, 4, 8]),
        prop::sample::select(vec![0u32, 1, 2, 3, 4]), // 0 = fully associative
        prop::sample::select(vec![Indexing::Vivt, Indexing::Vipt, Indexing::Pipt]),
        any::<bool>(),
        prop::sample::select(vec![IndexFn::BitSelect, IndexFn::Xor, IndexFn::SpaceHash]),
        prop::sample::select(vec![Replacement::Lru, Replacement::TreePlru, Replacement::Fifo, Replacement::Random]),
        any::<bool>(),
        any::<bool>(),
        0u64..1000,
    )
        .prop_map(move |(line, sets, ways, indexing, asid_tags, index, replacement, wb, wa, seed)| {
            let line = line.min(page);
            let mut ways = ways;
            let mut sets = sets;
            let mut replacement = replacement;
            if replacement == Replacement::TreePlru && ways != 0 && !ways.is_power_of_two() {
                ways = 2;
            }
            let full = ways == 0;
            if full {
                sets = 1;
                ways = 4;
            }
            let mut index = index;
            if !sets.is_power_of_two() {
                index = IndexFn::BitSelect;
            }
            if replacement == Replacement::TreePlru && full {
                replacement = Replacement::Lru;
            }
            let mut c = CacheConfig::simple(line * sets * u64::from(ways), line, ways);
            if full {
                c.assoc = Assoc::Full;
            }
            c.indexing = indexing;
            c.asid_tags = asid_tags && indexing == Indexing::Vivt;
            c.index = index;
            c.space_hash_bits = 2;
            c.space_hash_at = 6;
            c.replacement = replacement;
            c.write = if wb { WritePolicy::WriteBack } else { WritePolicy::WriteThrough };
            c.write_miss = if wa { WriteMissPolicy::WriteAllocate } else { WriteMissPolicy::NoWriteAllocate };
            c.seed = seed;
            c
        })
}

#[derive(Debug, Clone)]
enum TierShape {
    Unified(CacheConfig),
    Split(CacheConfig, CacheConfig),
}

fn tier_strategy(page: u64) -> impl Strategy<Value = TierShape> {
    prop_oneof![
        cache_strategy(page).prop_map(TierShape::Unified),
        (cache_strategy(page), cache_strategy(page)).prop_map(|(i, d)| TierShape::Split(i, d)),
    ]
}

fn event_strategy() -> impl Strategy<Value = Event> {
    prop_oneof![
        40 => (0u8..4, 0u64..2048, 1u32..20, 0u32..3).prop_map(|(k, a, s, asid)| {
            let kind = [AccessKind::Ifetch, AccessKind::Load, AccessKind::Store, AccessKind::Modify][k as usize];
            // A few distant regions so tags and sets both vary.
            let region = (a % 4) << 20;
            Event::access(kind, VirtAddr(region + a), s, Asid(asid))
        }),
        1 => Just(Event::FlushAll),
    ]
}

fn build(tiers: &[TierShape], page: u64, classify: bool) -> (Machine, NaiveMachine) {
    let (m, n, _) = build_all(tiers, page, classify);
    (m, n)
}

/// The engine, the naive simulator and the public-path replayer
/// (`support::public`) of one random machine.
fn build_all(tiers: &[TierShape], page: u64, classify: bool) -> (Machine, NaiveMachine, PublicReplay) {
    let (cfg, naive) = config_of(tiers, page, classify);
    let public = PublicReplay::new(&cfg);
    let m = Machine::new(cfg).expect("valid random machine");
    (m, NaiveMachine::new(naive, page), public)
}

/// The configuration of `tiers` and the naive simulator's tiers.
fn config_of(tiers: &[TierShape], page: u64, classify: bool) -> (MachineConfig, Vec<NaiveTier>) {
    let mut cfg = MachineConfig::bare("random", MemoryConfig::sequential(PageSize::new(page).expect("page"), 1 << 30));
    cfg.stats = StatsConfig { classify_misses: classify };
    let mut naive = Vec::new();
    for (n, t) in tiers.iter().enumerate() {
        match (n, t) {
            (0, TierShape::Unified(c)) => cfg.l1 = Some(c.clone()),
            (1, TierShape::Unified(c)) => cfg.l2 = Some(c.clone()),
            (2, TierShape::Unified(c)) => cfg.l3 = Some(c.clone()),
            (0, TierShape::Split(i, d)) => (cfg.l1i, cfg.l1d) = (Some(i.clone()), Some(d.clone())),
            (1, TierShape::Split(i, d)) => (cfg.l2i, cfg.l2d) = (Some(i.clone()), Some(d.clone())),
            (_, TierShape::Split(i, d)) => (cfg.l3i, cfg.l3d) = (Some(i.clone()), Some(d.clone())),
            (_, TierShape::Unified(c)) => cfg.l3 = Some(c.clone()),
        }
        naive.push(match t {
            TierShape::Unified(c) => NaiveTier::Unified(NaiveCache::new("u", c, classify)),
            TierShape::Split(i, d) => {
                NaiveTier::Split(NaiveCache::new("i", i, classify), NaiveCache::new("d", d, classify))
            }
        });
    }
    (cfg, naive)
}

/// Feeds the same events to the engine and the naive simulator and compares
/// every counter (3C classes too when `classify` and no policy is random);
/// returns the name of the engine's inner loop.
fn check(
    page: u64,
    tiers: &[TierShape],
    raw: Vec<(Event, u64)>,
    share: bool,
    classify: bool,
) -> Result<&'static str, TestCaseError> {
    Ok(check_machine(page, tiers, raw, share, classify)?.inner_loop())
}

/// `check`, returning the engine's machine after the run.
fn check_machine(
    page: u64,
    tiers: &[TierShape],
    raw: Vec<(Event, u64)>,
    share: bool,
    classify: bool,
) -> Result<Machine, TestCaseError> {
    // Runs of nearby references, as real code makes, so the engine's
    // repeat-line shortcut is exercised: each event is followed by up to
    // three more of a random kind a few bytes further on.
    let kinds = [AccessKind::Ifetch, AccessKind::Load, AccessKind::Store, AccessKind::Modify];
    let mut events = Vec::new();
    for (e, repeats) in raw {
        events.push(e);
        if let Event::Access(a) = e {
            for j in 1..=repeats {
                let kind = kinds[((a.addr.0 >> 3) + j) as usize % 4];
                events.push(Event::access(kind, VirtAddr(a.addr.0 + 2 * j), a.size, Asid(a.asid.0)));
            }
        }
    }
    let (mut m, mut n, mut p) = build_all(tiers, page, classify && !any_random(tiers));
    if share {
        // A synonym: page 0 of asid 0 and page 3 of asid 1 share a frame.
        m.share_page(Asid(0), VirtAddr(0), Asid(1), VirtAddr(3 * page)).expect("frames");
        n.share(0, 0, 1, 3 * page);
        p.share(0, 0, 1, 3 * page);
    }
    m.feed(&events, "random", 0).expect("no exhaustion");
    for e in &events {
        n.event(e);
    }
    let r = m.result("random");
    equals_naive(&r, &n, &events)?;
    if p.comparable() {
        for e in &events {
            p.event(e);
        }
        equals_public(&r, &p)?;
    }
    Ok(m)
}

/// Every cache counter, memory and the pages mapped of the engine's result
/// `r` against the public-path replayer `p` that saw the same events: the
/// engine's fast paths change exactly what `Hierarchy::request` changes.
fn equals_public(r: &vmlab_machine::RunResult, p: &PublicReplay) -> Result<(), TestCaseError> {
    let public = p.stats();
    prop_assert_eq!(r.caches.len(), public.len());
    for (e, (name, stats)) in r.caches.iter().zip(&public) {
        prop_assert_eq!(&e.name, name);
        prop_assert_eq!(&e.stats, stats, "cache {} differs from the public path", e.name);
    }
    prop_assert_eq!(r.memory, p.memory());
    prop_assert_eq!(r.pages_mapped, p.pages_mapped());
    Ok(())
}

/// Random replacement's 3C shadow draws its own random numbers; the naive
/// shadow cannot replay them, so classification is compared only for
/// deterministic policies.
fn any_random(tiers: &[TierShape]) -> bool {
    tiers.iter().any(|t| match t {
        TierShape::Unified(c) => c.replacement == Replacement::Random,
        TierShape::Split(i, d) => i.replacement == Replacement::Random || d.replacement == Replacement::Random,
    })
}

/// Every counter of the engine's result `r` against the naive simulator
/// `n` that saw `events`.
fn equals_naive(r: &vmlab_machine::RunResult, n: &NaiveMachine, events: &[Event]) -> Result<(), TestCaseError> {
    let naive = n.caches();
    prop_assert_eq!(r.caches.len(), naive.len());
    for (e, nv) in r.caches.iter().zip(naive) {
        prop_assert_eq!(&e.stats, &nv.stats, "cache {} differs", e.name);
    }
    // Event counts, which the packed inner loop keeps by op.
    let count = |k: AccessKind| events.iter().filter(|e| matches!(e, Event::Access(a) if a.kind == k)).count() as u64;
    prop_assert_eq!(
        [r.events.ifetch, r.events.load, r.events.store, r.events.modify],
        [count(AccessKind::Ifetch), count(AccessKind::Load), count(AccessKind::Store), count(AccessKind::Modify)]
    );
    prop_assert_eq!(r.events.flush_all, events.iter().filter(|e| matches!(e, Event::FlushAll)).count() as u64);
    prop_assert_eq!(r.memory.reads, n.mem_reads);
    prop_assert_eq!(r.memory.writes, n.mem_writes);
    prop_assert_eq!(r.memory.bytes_read, n.mem_bytes_read);
    prop_assert_eq!(r.memory.bytes_written, n.mem_bytes_written);
    Ok(())
}

/// Straight-line code, as real traces are: runs of sequential fetches of
/// 1-8 bytes (many within the line of the one before), loads, stores and
/// modifies between them (some at the code's own addresses, so a unified
/// top sees data in instruction lines), an address space per run, and
/// after some runs a flush or an escaped (16-byte) fetch. The first three
/// fetches of a run lie within one 8-byte line (no line is shorter) with no
/// data between, so every run gives at least one droppable fetch even
/// where its first fetch is an escape (an address-space change).
fn fetch_rich_strategy() -> impl Strategy<Value = Vec<Event>> {
    use AccessKind::{Ifetch, Load, Modify, Store};
    prop::collection::vec(
        (
            0u32..2,
            0u64..4,
            0u64..256,
            prop::collection::vec((1u32..=8, 0usize..8, 0u64..2048, 0usize..4), 3..14),
            0u8..12,
        ),
        1..30,
    )
    .prop_map(|runs| {
        let mut evs = Vec::new();
        for (asid, region, start, instrs, marker) in runs {
            let mut pc = (region << 20) + start * 8;
            for (n, (size, data, daddr, dsize)) in instrs.into_iter().enumerate() {
                let size = if n < 3 { size.min(2) } else { size };
                evs.push(Event::access(Ifetch, VirtAddr(pc), size, Asid(asid)));
                pc += u64::from(size);
                if n >= 2 && data < 4 {
                    let kind = [Load, Store, Modify, Store][data];
                    let addr = if data == 3 { pc + daddr % 64 } else { ((daddr % 4) << 20) + daddr };
                    evs.push(Event::access(kind, VirtAddr(addr), [1, 2, 4, 8][dsize], Asid(asid)));
                }
            }
            match marker {
                0 => evs.push(Event::FlushAll),
                1 => evs.push(Event::access(Ifetch, VirtAddr(pc), 16, Asid(asid))),
                _ => {}
            }
        }
        evs
    })
}

/// One block of `events`, fed with the fetches the machine allows dropped
/// (`Machine::fetch_skip`), equals the same block fed whole (every
/// `RunResult` field) and the naive simulator; some fetch must have been
/// dropped. Returns the inner loop.
fn check_skip(
    page: u64,
    tiers: &[TierShape],
    events: Vec<Event>,
    share: bool,
    classify: bool,
) -> Result<&'static str, TestCaseError> {
    let classify = classify && !any_random(tiers);
    let (mut m, mut n) = build(tiers, page, classify);
    let (mut plain, _) = build(tiers, page, classify);
    if share {
        for x in [&mut m, &mut plain] {
            x.share_page(Asid(0), VirtAddr(0), Asid(1), VirtAddr(3 * page)).expect("frames");
        }
        n.share(0, 0, 1, 3 * page);
    }
    let skip = m.fetch_skip();
    prop_assert!(skip.is_some());
    let mut dropped = PackedBlock::new();
    dropped.fetch_skip = skip;
    dropped.pack(&events);
    prop_assert!(dropped.skipped > 0, "nothing dropped: the test would prove nothing");
    prop_assert_eq!(dropped.events(), events.len() as u64);
    m.feed_packed(&dropped, "random", 0).expect("no exhaustion");
    let mut whole = PackedBlock::new();
    whole.pack(&events);
    prop_assert_eq!(whole.skipped, 0);
    plain.feed_packed(&whole, "random", 0).expect("no exhaustion");
    for e in &events {
        n.event(e);
    }
    let r = m.result("random");
    prop_assert_eq!(&r, &plain.result("random"));
    equals_naive(&r, &n, &events)?;
    Ok(m.inner_loop())
}

/// The inline loop a top tier of bit-select caches without 3C shadows
/// selects: `virtual-direct` when every top cache is direct-mapped, VIVT
/// (with ASID tags or without) and write-back, else `associative`, whatever
/// the associativity, indexing or policies of each side.
fn fast_loop_of(top: &TierShape) -> &'static str {
    let caches = match top {
        TierShape::Unified(c) => vec![c],
        TierShape::Split(i, d) => vec![i, d],
    };
    if caches
        .iter()
        .all(|c| c.assoc == Assoc::Ways(1) && c.indexing == Indexing::Vivt && c.write == WritePolicy::WriteBack)
    {
        "virtual-direct"
    } else {
        "associative"
    }
}

/// A direct-mapped PIPT cache, write-back and write-allocate, of 2 to 64
/// sets spanning 1 to 8 pages of 256 bytes (`one_slot_physical_top_...`).
fn one_slot_top() -> impl Strategy<Value = CacheConfig> {
    (cache_strategy(256), prop::sample::select(vec![1u64, 2, 4, 8])).prop_map(|(mut c, pages)| {
        c.size.0 = 256 * pages;
        c.assoc = Assoc::Ways(1);
        c.index = IndexFn::BitSelect;
        c.indexing = Indexing::Pipt;
        c.asid_tags = false;
        c.write = WritePolicy::WriteBack;
        c.write_miss = WriteMissPolicy::WriteAllocate;
        c
    })
}

/// A top cache of any shape the fast loops serve: bit-select over a
/// power-of-two set count (1 to 64 sets), any line size, associativity
/// (one way to eight, or fully associative), indexing (VIVT with ASID tags
/// or without, VIPT, PIPT), replacement policy, write policy (write-back or
/// write-through) and write-miss policy; the two sides of a split top
/// drawn apart.
fn fast_top_cache(page: u64) -> impl Strategy<Value = CacheConfig> {
    (cache_strategy(page), 0u32..7, prop::sample::select(vec![1u32, 2, 4, 8, 0])).prop_map(|(mut c, sets, ways)| {
        let sets = 1u64 << sets;
        let full = ways == 0;
        let ways = if full { 4 } else { ways };
        c.size.0 = c.line.0 * if full { 1 } else { sets } * u64::from(ways);
        c.assoc = if full { Assoc::Full } else { Assoc::Ways(ways) };
        if full && c.replacement == Replacement::TreePlru {
            c.replacement = Replacement::Lru;
        }
        c.index = IndexFn::BitSelect;
        c
    })
}

/// A top tier whose caches select an inline hit loop: bit-select index over
/// a power-of-two set count, write-back; direct-mapped or 2-8 ways.
fn inline_top_strategy(page: u64, direct: bool) -> impl Strategy<Value = TierShape> {
    let one = move || {
        (cache_strategy(page), prop::sample::select(vec![1u64, 2, 4]), prop::sample::select(vec![2u32, 4, 8])).prop_map(
            move |(mut c, sets, ways)| {
                let ways = if direct { 1 } else { ways };
                if c.replacement == Replacement::TreePlru && !ways.is_power_of_two() {
                    c.replacement = Replacement::Lru;
                }
                c.size.0 = c.line.0 * sets * u64::from(ways);
                c.assoc = Assoc::Ways(ways);
                c.index = IndexFn::BitSelect;
                c.write = WritePolicy::WriteBack;
                c
            },
        )
    };
    prop_oneof![one().prop_map(TierShape::Unified), (one(), one()).prop_map(|(i, d)| TierShape::Split(i, d))]
}

/// A lower tier every miss of which `Cache::fill` completes (the specialised
/// miss chain): bit-select index over a power-of-two set count, write-back,
/// write-allocate, any associativity and replacement, lines of at least
/// `line` bytes (no shorter than the tier above).
fn fill_tier_strategy(page: u64, line: u64) -> impl Strategy<Value = TierShape> {
    let one = move || {
        (cache_strategy(page), prop::sample::select(vec![1u64, 2, 4, 8]), prop::sample::select(vec![1u32, 2, 4]))
            .prop_map(move |(mut c, sets, ways)| {
                c.line.0 = c.line.0.max(line);
                if c.replacement == Replacement::TreePlru && !ways.is_power_of_two() {
                    c.replacement = Replacement::Lru;
                }
                c.size.0 = c.line.0 * sets * u64::from(ways);
                c.assoc = Assoc::Ways(ways);
                c.index = IndexFn::BitSelect;
                c.write = WritePolicy::WriteBack;
                c.write_miss = WriteMissPolicy::WriteAllocate;
                c
            })
    };
    prop_oneof![one().prop_map(TierShape::Unified), (one(), one()).prop_map(|(i, d)| TierShape::Split(i, d))]
}

/// `c` made direct-mapped with `sets` sets of its line, VIVT with ASID
/// tags, bit-select, write-back: the shape the virtual-direct loop's views
/// (`VirtualDirect` at the top, `VirtualDirectBelow` under it) take.
fn direct_vivt(mut c: CacheConfig, sets: u64) -> CacheConfig {
    c.size.0 = c.line.0 * sets;
    c.assoc = Assoc::Ways(1);
    c.index = IndexFn::BitSelect;
    c.indexing = Indexing::Vivt;
    c.asid_tags = true;
    c.write = WritePolicy::WriteBack;
    c
}

/// A top tier that selects the virtual-direct loop: direct-mapped, VIVT
/// with ASID tags, bit-select over a power-of-two set count, write-back
/// (write-allocate as `cache_strategy` draws it).
fn virtual_direct_top_strategy(page: u64) -> impl Strategy<Value = TierShape> {
    let one = move || {
        (cache_strategy(page), prop::sample::select(vec![1u64, 2, 4, 8])).prop_map(|(c, sets)| direct_vivt(c, sets))
    };
    prop_oneof![one().prop_map(TierShape::Unified), (one(), one()).prop_map(|(i, d)| TierShape::Split(i, d))]
}

/// `virtual_direct_top_strategy` with or without ASID tags on each cache:
/// without them a line of another address space is a hit (a homonym),
/// which the loop's views leave to `word`.
fn virtual_direct_any_tags_strategy(page: u64) -> impl Strategy<Value = TierShape> {
    let one = move || {
        (cache_strategy(page), prop::sample::select(vec![1u64, 2, 4, 8]), any::<bool>()).prop_map(
            |(c, sets, tagged)| {
                let mut c = direct_vivt(c, sets);
                c.asid_tags = tagged;
                c
            },
        )
    };
    prop_oneof![one().prop_map(TierShape::Unified), (one(), one()).prop_map(|(i, d)| TierShape::Split(i, d))]
}

/// A lower tier of direct-mapped VIVT caches with ASID tags, write-back
/// and write-allocate (jm-base's L2 at a small size), lines of at least
/// `line` bytes: under a virtual-direct top, the loop completes misses
/// through `DirectLower`'s views of it.
fn direct_lower_tier_strategy(page: u64, line: u64) -> impl Strategy<Value = TierShape> {
    let one = move || {
        (cache_strategy(page), prop::sample::select(vec![1u64, 2, 4, 8, 16])).prop_map(move |(mut c, sets)| {
            c.line.0 = c.line.0.max(line);
            c.write_miss = WriteMissPolicy::WriteAllocate;
            direct_vivt(c, sets)
        })
    };
    prop_oneof![one().prop_map(TierShape::Unified), (one(), one()).prop_map(|(i, d)| TierShape::Split(i, d))]
}

/// `direct_lower_tier_strategy` with or without ASID tags on each cache
/// (vivt-dm-unified-l2-untagged's L2 at a small size): without them a line
/// of another address space at the same virtual line is a hit there.
fn direct_lower_any_tags_tier_strategy(page: u64, line: u64) -> impl Strategy<Value = TierShape> {
    let one = move || {
        (cache_strategy(page), prop::sample::select(vec![1u64, 2, 4, 8, 16]), any::<bool>()).prop_map(
            move |(mut c, sets, tagged)| {
                c.line.0 = c.line.0.max(line);
                c.write_miss = WriteMissPolicy::WriteAllocate;
                let mut c = direct_vivt(c, sets);
                c.asid_tags = tagged;
                c
            },
        )
    };
    prop_oneof![one().prop_map(TierShape::Unified), (one(), one()).prop_map(|(i, d)| TierShape::Split(i, d))]
}

/// A lower tier of direct-mapped PIPT caches, write-back and
/// write-allocate (pipt-dm-8k-l2-512k's L2 at a small size), 1 to 16 sets:
/// under any top whose lines are no longer, a top miss filled in place is
/// completed there by `Cache::physical_direct_access`.
fn physical_direct_tier_strategy(page: u64) -> impl Strategy<Value = TierShape> {
    let one = move || {
        (cache_strategy(page), prop::sample::select(vec![1u64, 2, 4, 8, 16])).prop_map(|(mut c, sets)| {
            c.size.0 = c.line.0 * sets;
            c.assoc = Assoc::Ways(1);
            c.index = IndexFn::BitSelect;
            c.indexing = Indexing::Pipt;
            c.asid_tags = false;
            c.write = WritePolicy::WriteBack;
            c.write_miss = WriteMissPolicy::WriteAllocate;
            c
        })
    };
    prop_oneof![one().prop_map(TierShape::Unified), (one(), one()).prop_map(|(i, d)| TierShape::Split(i, d))]
}

/// Events in runs of one address space (a packed block holds a run as
/// plain words, so the fast loops see long stretches of them), with an
/// occasional flush.
fn run_strategy() -> impl Strategy<Value = Vec<(Event, u64)>> {
    prop::collection::vec(
        (0u32..3, prop::collection::vec((event_strategy(), 0u64..4), 1..40)).prop_map(|(asid, evs)| {
            evs.into_iter()
                .map(|(e, r)| match e {
                    Event::Access(a) => (Event::access(a.kind, VirtAddr(a.addr.0), a.size, Asid(asid)), r),
                    e => (e, r),
                })
                .collect::<Vec<_>>()
        }),
        1..8,
    )
    .prop_map(|runs| runs.into_iter().flatten().collect())
}

/// `tiers` (the top first) with lower tiers from `seed_tiers`, lines
/// lengthened where shorter than the tier above's.
/// `top` with every cache write-allocate (as a fill-in-place chain needs).
fn write_allocate(mut top: TierShape) -> TierShape {
    for c in match &mut top {
        TierShape::Unified(c) => vec![c],
        TierShape::Split(i, d) => vec![i, d],
    } {
        c.write_miss = WriteMissPolicy::WriteAllocate;
    }
    top
}

fn with_chain(mut tiers: Vec<TierShape>, seed_tiers: Vec<TierShape>, depth: usize) -> Vec<TierShape> {
    for t in seed_tiers.into_iter().take(depth) {
        let above = tiers.last().map_or(8, max_line);
        let widen = |mut c: CacheConfig| {
            if c.line.0 < above {
                let sets = c.size.0 / c.line.0;
                c.line.0 = above;
                c.size.0 = above * sets;
            }
            c
        };
        tiers.push(match t {
            TierShape::Unified(c) => TierShape::Unified(widen(c)),
            TierShape::Split(i, d) => TierShape::Split(widen(i), widen(d)),
        });
    }
    tiers
}

/// The longest line of a tier.
fn max_line(t: &TierShape) -> u64 {
    match t {
        TierShape::Unified(c) => c.line.0,
        TierShape::Split(i, d) => i.line.0.max(d.line.0),
    }
}

/// Proptest cases: `default` in `make test`, `PROPTEST_CASES=N` for a deeper search.
fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(400)))]

    #[test]
    fn engine_equals_naive_reference(
        page in prop::sample::select(vec![256u64, 4096]),
        tiers in prop::collection::vec(tier_strategy(256), 1..=3),
        raw in prop::collection::vec((event_strategy(), 0u64..4), 1..300),
        share in any::<bool>(),
    ) {
        check(page, &tiers, raw, share, true)?;
    }

    /// Any machine of up to three levels whose top caches are bit-select,
    /// each side of any associativity, indexing and policy (a direct-mapped
    /// side beside a set-associative one, PIPT, untagged VIVT,
    /// write-through, no-write-allocate), takes a fast loop, and every counter equals the naive
    /// simulator's and the public path's (`Hierarchy::request`).
    #[test]
    fn every_bit_select_top_takes_a_fast_loop(
        page in prop::sample::select(vec![256u64, 4096]),
        top in prop_oneof![
            fast_top_cache(256).prop_map(TierShape::Unified),
            (fast_top_cache(256), fast_top_cache(256)).prop_map(|(i, d)| TierShape::Split(i, d)),
        ],
        below in prop::collection::vec(tier_strategy(256), 0..=2),
        raw in prop::collection::vec((event_strategy(), 0u64..4), 1..300),
        share in any::<bool>(),
    ) {
        let mut tiers = vec![top];
        tiers.extend(below);
        let inner = check(page, &tiers, raw, share, false)?;
        prop_assert_eq!(inner, fast_loop_of(&tiers[0]));
    }

    /// The inline hit loops (direct-mapped and set-associative top caches)
    /// against the naive simulator, on machines that select them (3C
    /// classification off: its shadows need the general loop).
    #[test]
    fn inline_loops_equal_naive_reference(
        page in prop::sample::select(vec![256u64, 4096]),
        top in any::<bool>().prop_flat_map(|d| inline_top_strategy(256, d).prop_map(move |t| (d, t))),
        below in prop::collection::vec(tier_strategy(256), 0..=2),
        raw in prop::collection::vec((event_strategy(), 0u64..4), 1..300),
        share in any::<bool>(),
    ) {
        let (_, top) = top;
        let mut tiers = vec![top];
        tiers.extend(below);
        let inner = check(page, &tiers, raw, share, false)?;
        prop_assert_eq!(inner, fast_loop_of(&tiers[0]));
    }

    /// The inline loops over lower tiers whose misses all go through the
    /// specialised miss chain (`Cache::fill`, `Below::simple_access`): the
    /// top is write-allocate too, and each tier's lines are no shorter than
    /// the tier above's.
    #[test]
    fn fill_chain_equals_naive_reference(
        page in prop::sample::select(vec![256u64, 4096]),
        top in any::<bool>().prop_flat_map(|d| inline_top_strategy(256, d)),
        depth in 1usize..=2,
        seed_tiers in prop::collection::vec(fill_tier_strategy(256, 8), 2),
        raw in prop::collection::vec((event_strategy(), 0u64..4), 1..300),
        share in any::<bool>(),
    ) {
        let tiers = with_chain(vec![write_allocate(top)], seed_tiers, depth);
        let (m, _) = build(&tiers, page, false);
        prop_assert!(m.misses_fill_in_place(), "the chain should be simple: {tiers:?}");
        check(page, &tiers, raw, share, false)?;
    }

    /// The virtual-direct loop (hits through `VirtualDirect` views, one-line
    /// misses filled through them) over a fill-in-place chain of 0-2 lower
    /// tiers, on runs of one address space.
    #[test]
    fn virtual_direct_fills_equal_naive_reference(
        page in prop::sample::select(vec![256u64, 4096]),
        top in virtual_direct_top_strategy(256),
        depth in 0usize..=2,
        seed_tiers in prop::collection::vec(fill_tier_strategy(256, 8), 2),
        raw in run_strategy(),
        share in any::<bool>(),
    ) {
        let tiers = with_chain(vec![write_allocate(top)], seed_tiers, depth);
        let (m, _) = build(&tiers, page, false);
        prop_assert!(m.misses_fill_in_place(), "the chain should be simple: {tiers:?}");
        let inner = check(page, &tiers, raw, share, false)?;
        prop_assert_eq!(inner, "virtual-direct");
    }

    /// The virtual-direct loop over one level of direct-mapped VIVT caches
    /// with ASID tags (jm-base's shape: fills and write-backs through
    /// `DirectLower`), on runs of one address space.
    #[test]
    fn virtual_direct_over_direct_lower_equals_naive_reference(
        page in prop::sample::select(vec![256u64, 4096]),
        top in virtual_direct_top_strategy(256),
        low in direct_lower_tier_strategy(256, 8),
        raw in run_strategy(),
        share in any::<bool>(),
    ) {
        let tiers = with_chain(vec![write_allocate(top)], vec![low], 1);
        let (m, _) = build(&tiers, page, false);
        prop_assert!(m.misses_fill_in_place(), "the chain should be simple: {tiers:?}");
        prop_assert!(m.misses_through_direct_lower(), "the lower tier should be direct: {tiers:?}");
        let inner = check(page, &tiers, raw, share, false)?;
        prop_assert_eq!(inner, "virtual-direct");
    }

    /// The virtual-direct loop, its top with or without ASID tags, over one
    /// level of direct-mapped VIVT caches with or without them
    /// (vivt-dm-unified-l2-untagged's shape), on references of several
    /// address spaces: a homonym in an untagged lower cache is a hit there,
    /// completed through `DirectLower`'s views.
    #[test]
    fn virtual_direct_any_tags_over_direct_lower_equals_naive_reference(
        page in prop::sample::select(vec![256u64, 4096]),
        top in virtual_direct_any_tags_strategy(256),
        low in direct_lower_any_tags_tier_strategy(256, 8),
        raw in prop::collection::vec((event_strategy(), 0u64..4), 1..300),
        share in any::<bool>(),
    ) {
        let tiers = with_chain(vec![write_allocate(top)], vec![low], 1);
        let (m, _) = build(&tiers, page, false);
        prop_assert!(m.misses_through_direct_lower(), "the lower tier should be direct: {tiers:?}");
        let inner = check(page, &tiers, raw, share, false)?;
        prop_assert_eq!(inner, "virtual-direct");
    }

    /// Any bit-select top (any associativity, indexing and policies) over
    /// one tier of direct-mapped PIPT caches that fill in place
    /// (pipt-dm-8k-l2-512k's shape): the machine completes its top misses
    /// there through `Below::physical_fill_below` (a virtual-direct top's
    /// one-line misses through its views and `Below::fill_below`), and
    /// every counter equals the naive simulator's and the public path's.
    #[test]
    fn physical_direct_lower_equals_naive_reference(
        page in prop::sample::select(vec![256u64, 4096]),
        top in prop_oneof![
            fast_top_cache(256).prop_map(TierShape::Unified),
            (fast_top_cache(256), fast_top_cache(256)).prop_map(|(i, d)| TierShape::Split(i, d)),
        ],
        low in physical_direct_tier_strategy(256),
        raw in prop::collection::vec((event_strategy(), 0u64..4), 1..300),
        share in any::<bool>(),
    ) {
        let tiers = with_chain(vec![top], vec![low], 1);
        let (m, _) = build(&tiers, page, false);
        prop_assert!(m.misses_through_physical_lower(), "the lower tier should be physical-direct: {tiers:?}");
        let inner = check(page, &tiers, raw, share, false)?;
        prop_assert_eq!(inner, fast_loop_of(&tiers[0]));
    }

    /// A top of direct-mapped PIPT caches that fill in place, larger than
    /// a page (so a line's slot depends on its frame, as
    /// pipt-dm-8k-l2-512k's 8K caches on 4K pages), over a physical-direct
    /// tier, a fill-in-place chain or nothing: the associative loop
    /// completes the words its memo of recent lines does not take at the
    /// slot (`hit_loop::slot_word`), and every counter equals the naive
    /// simulator's and the public path's.
    #[test]
    fn one_slot_physical_top_equals_naive_reference(
        top in prop_oneof![
            one_slot_top().prop_map(TierShape::Unified),
            (one_slot_top(), one_slot_top()).prop_map(|(i, d)| TierShape::Split(i, d)),
        ],
        below in prop_oneof![
            physical_direct_tier_strategy(256).prop_map(|t| vec![t]),
            prop::collection::vec(fill_tier_strategy(256, 8), 0..=2),
        ],
        raw in run_strategy(),
        share in any::<bool>(),
    ) {
        let depth = below.len();
        let tiers = with_chain(vec![top], below, depth);
        let (m, _) = build(&tiers, 256, false);
        prop_assert!(m.top_in_one_slot(), "the top should be completed in its slots: {tiers:?}");
        let inner = check(256, &tiers, raw, share, false)?;
        prop_assert_eq!(inner, "associative");
    }

    /// pipt-dm-8k-l2-512k's shape at small sizes: a top of direct-mapped
    /// PIPT caches larger than a page, completed in its slots, over one
    /// tier of direct-mapped PIPT caches that fill in place. Its misses
    /// and the lower tier's accesses are counted in the run loop
    /// (`hit_loop::SlotCounts`) and added to the caches' counters when
    /// it ends, before any escape, flush or read of them: every counter
    /// equals the naive simulator's and the public path's.
    #[test]
    fn one_slot_physical_top_over_physical_direct_lower_equals_naive_reference(
        top in prop_oneof![
            one_slot_top().prop_map(TierShape::Unified),
            (one_slot_top(), one_slot_top()).prop_map(|(i, d)| TierShape::Split(i, d)),
        ],
        low in physical_direct_tier_strategy(256),
        raw in run_strategy(),
        share in any::<bool>(),
    ) {
        let tiers = with_chain(vec![top], vec![low], 1);
        let (m, _) = build(&tiers, 256, false);
        prop_assert!(m.top_in_one_slot(), "the top should be completed in its slots: {tiers:?}");
        prop_assert!(m.misses_through_physical_lower(), "the lower tier should be physical-direct: {tiers:?}");
        let inner = check(256, &tiers, raw, share, false)?;
        prop_assert_eq!(inner, "associative");
    }

    /// The virtual-direct loop over any lower tiers (misses through `word`
    /// where the chain does not fill in place), on runs of one address space.
    #[test]
    fn virtual_direct_loop_equals_naive_reference(
        page in prop::sample::select(vec![256u64, 4096]),
        top in virtual_direct_top_strategy(256),
        below in prop::collection::vec(tier_strategy(256), 0..=2),
        raw in run_strategy(),
        share in any::<bool>(),
    ) {
        let mut tiers = vec![top];
        tiers.extend(below);
        let inner = check(page, &tiers, raw, share, false)?;
        prop_assert_eq!(inner, "virtual-direct");
    }

    /// The virtual-direct loop on tops with or without ASID tags, over any
    /// lower tiers, on references of several address spaces (homonyms in
    /// an untagged top, and synonyms).
    #[test]
    fn virtual_direct_any_tags_equals_naive_reference(
        page in prop::sample::select(vec![256u64, 4096]),
        top in virtual_direct_any_tags_strategy(256),
        below in prop::collection::vec(tier_strategy(256), 0..=2),
        raw in prop::collection::vec((event_strategy(), 0u64..4), 1..300),
        share in any::<bool>(),
    ) {
        let mut tiers = vec![top];
        tiers.extend(below);
        let inner = check(page, &tiers, raw, share, false)?;
        prop_assert_eq!(inner, "virtual-direct");
    }
}

/// A set-associative top cache for `associative_memo_equals_naive_reference`:
/// up to 32 sets of 16- or 32-byte lines, so on 256-byte pages a physically
/// indexed cache's set bits reach past the page offset (its virtual and
/// physical sets differ), any indexing and replacement, write-back.
fn memo_top_cache() -> impl Strategy<Value = CacheConfig> {
    (
        prop::sample::select(vec![16u64, 32]),
        prop::sample::select(vec![2u64, 8, 16, 32]),
        prop::sample::select(vec![2u32, 4]),
        prop::sample::select(vec![Indexing::Vivt, Indexing::Vipt, Indexing::Pipt]),
        any::<bool>(),
        prop::sample::select(vec![Replacement::Lru, Replacement::TreePlru, Replacement::Fifo]),
        any::<bool>(),
    )
        .prop_map(|(line, sets, ways, indexing, asid_tags, replacement, wa)| {
            let mut c = CacheConfig::simple(line * sets * u64::from(ways), line, ways);
            c.indexing = indexing;
            c.asid_tags = asid_tags && indexing == Indexing::Vivt;
            c.replacement = replacement;
            c.write_miss = if wa { WriteMissPolicy::WriteAllocate } else { WriteMissPolicy::NoWriteAllocate };
            c
        })
}

/// Dense references for the memo test: few pages, so sets fill and lines
/// are evicted and come back; the sizes the packed words carry (others
/// escape to the general path), up to 32 bytes, so many cross a line.
fn dense_event_strategy() -> impl Strategy<Value = Event> {
    prop_oneof![
        60 => (0u8..4, 0u64..1536, 0usize..15).prop_map(|(k, a, s)| {
            let kind = [AccessKind::Ifetch, AccessKind::Load, AccessKind::Store, AccessKind::Modify][k as usize];
            let size = match kind {
                AccessKind::Ifetch => s as u32 + 1,
                AccessKind::Modify => [1, 2, 4, 8][s % 4],
                _ => [1, 2, 4, 8, 16, 32][s % 6],
            };
            Event::access(kind, VirtAddr(((a / 512) << 16) + a % 512), size, Asid(0))
        }),
        1 => Just(Event::FlushAll),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(400)))]

    /// The associative loop's memo of most recent lines per set group
    /// (`hit_loop::MruLines`): set-associative tops whose sets conflict,
    /// references crossing lines, physically indexed tops whose virtual and
    /// physical set bits differ, runs of one address space; every counter
    /// against the naive simulator, and the loop that ran.
    #[test]
    fn associative_memo_equals_naive_reference(
        top in prop_oneof![
            memo_top_cache().prop_map(TierShape::Unified),
            (memo_top_cache(), memo_top_cache()).prop_map(|(i, d)| TierShape::Split(i, d)),
        ],
        below in prop::collection::vec(tier_strategy(256), 0..=1),
        raw in prop::collection::vec(
            (0u32..2, prop::collection::vec((dense_event_strategy(), 0u64..4), 1..80)),
            1..6,
        ),
        share in any::<bool>(),
    ) {
        let raw: Vec<(Event, u64)> = raw
            .into_iter()
            .flat_map(|(asid, evs)| {
                evs.into_iter().map(move |(e, r)| match e {
                    Event::Access(a) => (Event::access(a.kind, VirtAddr(a.addr.0), a.size, Asid(asid)), r),
                    e => (e, r),
                })
            })
            .collect();
        let mut tiers = vec![top];
        tiers.extend(below);
        let inner = check(256, &tiers, raw, share, false)?;
        prop_assert_eq!(inner, "associative");
    }
}

/// A page of the dense events (`dense_event_strategy`): region `r` (0-2),
/// page `p` (0-1) of 256 bytes.
fn dense_page(r: u64, p: u64) -> u64 {
    ((r % 3) << 16) + (p % 2) * 256
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(400)))]

    /// The associative loop's frame memo (`hit_loop::FrameMemo`), which
    /// outlives a run while the address space and the mapper's generation
    /// stay: events fed in parts, each in one address space, and between
    /// some parts a page already touched is remapped (`share_page`), so a
    /// line remembered before has another tag key after; every counter
    /// against the naive simulator fed the same.
    #[test]
    fn associative_frames_across_feeds_equal_naive_reference(
        top in prop_oneof![
            memo_top_cache().prop_map(TierShape::Unified),
            (memo_top_cache(), memo_top_cache()).prop_map(|(i, d)| TierShape::Split(i, d)),
        ],
        below in prop::collection::vec(tier_strategy(256), 0..=1),
        parts in prop::collection::vec(
            (0u32..2, prop::collection::vec(dense_event_strategy(), 1..60), any::<bool>(), (0u64..6, 0u64..6)),
            1..6,
        ),
    ) {
        let mut tiers = vec![top];
        tiers.extend(below);
        let (mut m, mut n) = build(&tiers, 256, false);
        let mut all = Vec::new();
        for (asid, evs, share, (owner, alias)) in parts {
            let evs: Vec<Event> = evs
                .into_iter()
                .map(|e| match e {
                    Event::Access(a) => Event::access(a.kind, VirtAddr(a.addr.0), a.size, Asid(asid)),
                    e => e,
                })
                .collect();
            m.feed(&evs, "parts", 0).expect("no exhaustion");
            for e in &evs {
                n.event(e);
            }
            all.extend(evs);
            if share {
                // In the part's own address space: the next part (often
                // the same space) finds a page it used on another frame.
                let (o, a) = (dense_page(owner / 2, owner), dense_page(alias / 2, alias));
                m.share_page(Asid(asid), VirtAddr(o), Asid(asid), VirtAddr(a)).expect("frames");
                n.share(asid, o, asid, a);
            }
        }
        equals_naive(&m.result("parts"), &n, &all)?;
        prop_assert_eq!(m.inner_loop(), "associative");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(400)))]

    /// Dropped fetches on any machine (3C classification on where no
    /// policy is random: mostly the general loop).
    #[test]
    fn dropped_fetches_general(
        page in prop::sample::select(vec![256u64, 4096]),
        tiers in prop::collection::vec(tier_strategy(256), 1..=3),
        events in fetch_rich_strategy(),
        share in any::<bool>(),
    ) {
        check_skip(page, &tiers, events, share, true)?;
    }

    /// Dropped fetches on machines that select the inline loops
    /// (virtual-direct, associative).
    #[test]
    fn dropped_fetches_inline_loops(
        page in prop::sample::select(vec![256u64, 4096]),
        top in any::<bool>().prop_flat_map(|d| inline_top_strategy(256, d).prop_map(move |t| (d, t))),
        below in prop::collection::vec(tier_strategy(256), 0..=2),
        events in fetch_rich_strategy(),
        share in any::<bool>(),
    ) {
        let (_, top) = top;
        let mut tiers = vec![top];
        tiers.extend(below);
        let inner = check_skip(page, &tiers, events, share, false)?;
        prop_assert_eq!(inner, fast_loop_of(&tiers[0]));
    }

    /// Dropped fetches on virtual-direct tops over a fill-in-place chain
    /// (jm-base's shape).
    #[test]
    fn dropped_fetches_virtual_direct_fills(
        page in prop::sample::select(vec![256u64, 4096]),
        top in virtual_direct_top_strategy(256),
        depth in 0usize..=2,
        seed_tiers in prop::collection::vec(fill_tier_strategy(256, 8), 2),
        events in fetch_rich_strategy(),
    ) {
        let tiers = with_chain(vec![write_allocate(top)], seed_tiers, depth);
        let inner = check_skip(page, &tiers, events, false, false)?;
        prop_assert_eq!(inner, "virtual-direct");
    }

    /// Dropped fetches on set-associative tops whose sets conflict, any
    /// indexing (the associative loop's memo).
    #[test]
    fn dropped_fetches_associative_memo(
        top in prop_oneof![
            memo_top_cache().prop_map(TierShape::Unified),
            (memo_top_cache(), memo_top_cache()).prop_map(|(i, d)| TierShape::Split(i, d)),
        ],
        below in prop::collection::vec(tier_strategy(256), 0..=1),
        events in fetch_rich_strategy(),
    ) {
        let mut tiers = vec![top];
        tiers.extend(below);
        let inner = check_skip(256, &tiers, events, false, false)?;
        prop_assert_eq!(inner, "associative");
    }
}

/// A data-only machine (an `[l1d]` with no `[l1i]`) against the same
/// machine with an instruction cache beside that `[l1d]`, both the engine's
/// and the naive simulator's, fed the trace without its fetches: every
/// data-side counter, memory and the pages mapped agree, the fetches are
/// counted as events and as not simulated, and the loop a bit-select top
/// selects runs. `dropped` feeds through `feed`, whose blocks drop fetches
/// under the machine's `FetchSkip`; otherwise one whole block, every fetch
/// word in it.
fn check_data_only(
    page: u64,
    i: CacheConfig,
    d: CacheConfig,
    below: Vec<TierShape>,
    raw: Vec<(Event, u64)>,
    dropped: bool,
) -> Result<(), TestCaseError> {
    let kinds = [AccessKind::Ifetch, AccessKind::Load, AccessKind::Store, AccessKind::Modify];
    let mut events = Vec::new();
    for (e, repeats) in raw {
        events.push(e);
        if let Event::Access(a) = e {
            for j in 1..=repeats {
                events.push(Event::access(
                    kinds[((a.addr.0 >> 3) + j) as usize % 4],
                    VirtAddr(a.addr.0 + 2 * j),
                    a.size,
                    Asid(a.asid.0),
                ));
            }
        }
    }
    let data: Vec<Event> =
        events.iter().copied().filter(|e| !matches!(e, Event::Access(a) if a.kind == AccessKind::Ifetch)).collect();
    let fetches = (events.len() - data.len()) as u64;

    let mut tiers = vec![TierShape::Split(i, d.clone())];
    tiers.extend(below);
    let (mut with_i, mut naive, _) = build_all(&tiers, page, false);
    let (mut cfg, _) = config_of(&tiers, page, false);
    cfg.l1i = None;
    prop_assert!(cfg.data_only());
    let mut m = Machine::new(cfg).expect("valid data-only machine");
    prop_assert_eq!(m.inner_loop(), fast_loop_of(&TierShape::Unified(d)));
    if dropped {
        m.feed(&events, "random", 0).expect("no exhaustion");
    } else {
        let mut whole = PackedBlock::new();
        whole.pack(&events);
        prop_assert_eq!(whole.skipped, 0);
        m.feed_packed(&whole, "random", 0).expect("no exhaustion");
    }
    with_i.feed(&data, "random", 0).expect("no exhaustion");
    for e in &data {
        naive.event(e);
    }
    let r = m.result("random");
    let reference = with_i.result("random");
    equals_naive(&reference, &naive, &data)?;
    // The reference's instruction cache saw nothing but the flushes of its
    // empty frames; every other cache is the data-only machine's, in order.
    let icache = vmlab_cache::CacheStats { flushed: Default::default(), ..reference.caches[0].stats };
    prop_assert_eq!(icache, vmlab_cache::CacheStats::default());
    prop_assert_eq!(r.caches.len() + 1, reference.caches.len());
    for (e, w) in r.caches.iter().zip(&reference.caches[1..]) {
        prop_assert_eq!(&e.name, &w.name);
        prop_assert_eq!(&e.stats, &w.stats, "cache {} differs", e.name);
    }
    prop_assert_eq!(r.memory, reference.memory);
    prop_assert_eq!(r.pages_mapped, reference.pages_mapped);
    prop_assert_eq!(r.fetches_not_simulated, fetches);
    prop_assert_eq!(r.events.ifetch, fetches);
    prop_assert_eq!(r.instructions, fetches);
    prop_assert_eq!(
        [r.events.load, r.events.store, r.events.modify],
        [reference.events.load, reference.events.store, reference.events.modify]
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(400)))]

    /// Data-only machines on every top shape the fast loops serve, over any
    /// lower levels (`check_data_only`).
    #[test]
    fn data_only_equals_machine_with_icache_without_fetches(
        page in prop::sample::select(vec![256u64, 4096]),
        i in fast_top_cache(256),
        d in fast_top_cache(256),
        below in prop::collection::vec(tier_strategy(256), 0..=2),
        raw in prop::collection::vec((event_strategy(), 0u64..4), 1..300),
        dropped in any::<bool>(),
    ) {
        check_data_only(page, i, d, below, raw, dropped)?;
    }
}

/// A write-through top cache whose hits are found with the physical
/// address (VIPT, PIPT or VIVT without ASID tags), of any associativity,
/// replacement and write-miss policy (`fast_top_cache`).
fn write_through_top_cache(page: u64) -> impl Strategy<Value = CacheConfig> {
    (fast_top_cache(page), prop::sample::select(vec![Indexing::Vivt, Indexing::Vipt, Indexing::Pipt])).prop_map(
        |(mut c, indexing)| {
            c.write = WritePolicy::WriteThrough;
            c.indexing = indexing;
            c.asid_tags = false;
            c
        },
    )
}

/// Aligned 4-byte references of one address space (each within one line
/// of any cache here, none an escape), over a few regions.
fn aligned_event_strategy() -> impl Strategy<Value = Event> {
    (0u8..4, 0u64..512).prop_map(|(k, a)| {
        let kind = [AccessKind::Ifetch, AccessKind::Load, AccessKind::Store, AccessKind::Modify][k as usize];
        Event::access(kind, VirtAddr(((a % 4) << 20) + (a & !3)), 4, Asid(0))
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(200)))]

    /// A write-through top (its data side, or the unified cache) over any
    /// lower tiers: every counter equals the naive simulator's and the
    /// public path's, and the associative loop completes every store
    /// itself (`Machine::writes_through_in_loop`: a hit at the frame
    /// memo's frame, a miss through `Below::missed`), and a modify's hit,
    /// never a modify's miss (its read allocates first: left to `word`).
    #[test]
    fn write_through_writes_complete_in_the_loop(
        page in prop::sample::select(vec![256u64, 4096]),
        top in prop_oneof![
            write_through_top_cache(256).prop_map(TierShape::Unified),
            (fast_top_cache(256), write_through_top_cache(256)).prop_map(|(i, d)| TierShape::Split(i, d)),
        ],
        below in prop::collection::vec(tier_strategy(256), 0..=2),
        events in prop::collection::vec(aligned_event_strategy(), 1..300),
        share in any::<bool>(),
    ) {
        let mut tiers = vec![top];
        tiers.extend(below);
        let raw = events.iter().map(|&e| (e, 0)).collect();
        let m = check_machine(page, &tiers, raw, share, false)?;
        prop_assert_eq!(m.inner_loop(), "associative");
        let count = |k: AccessKind| events.iter().filter(|e| matches!(e, Event::Access(a) if a.kind == k)).count() as u64;
        let (stores, modifies) = (count(AccessKind::Store), count(AccessKind::Modify));
        let through = m.writes_through_in_loop();
        prop_assert!(through >= stores && through <= stores + modifies, "{through} of {stores} stores, {modifies} modifies");
    }
}

/// Stores to the line a store just missed in a write-through top that
/// allocates nothing on a write miss (the line `hit_loop` remembers as
/// absent and then takes without a look-up), with what must end that
/// memo in between: a load's fill of the line, a modify's (left to `word`),
/// a word over two lines, another line's fill in the same set, a flush
/// (an escape). Every counter equals the naive simulator's and the public
/// path's, and the loop completed every store.
#[test]
fn stores_to_a_line_just_missed_equal_naive_reference() {
    let mut d = CacheConfig::simple(256, 16, 2);
    (d.write, d.write_miss, d.indexing) = (WritePolicy::WriteThrough, WriteMissPolicy::NoWriteAllocate, Indexing::Vipt);
    let mut l2 = CacheConfig::simple(1024, 16, 4);
    l2.indexing = Indexing::Pipt;
    let tiers = [TierShape::Split(CacheConfig::simple(256, 16, 2), d), TierShape::Unified(l2)];
    let at = |kind: AccessKind, a: u64| (Event::access(kind, VirtAddr(a), 4, Asid(0)), 0);
    let (st, ld, md) = (|a| at(AccessKind::Store, a), |a| at(AccessKind::Load, a), |a| at(AccessKind::Modify, a));
    let mut raw = vec![
        // A miss, then the same miss twice; the load fills the line: hits.
        st(0x100),
        st(0x104),
        st(0x108),
        ld(0x10c),
        st(0x100),
        st(0x104),
        // A miss twice; the modify's read fills: a hit.
        st(0x200),
        st(0x204),
        md(0x208),
        st(0x20c),
        // A miss; a load of another line of the same set (8 sets of 16
        // bytes) fills there; the same miss again.
        st(0x300),
        ld(0x380),
        st(0x304),
        // A miss; a load over two lines fills both: a hit.
        st(0x400),
        (Event::access(AccessKind::Load, VirtAddr(0x3fe), 4, Asid(0)), 0),
        st(0x404),
        // A miss; a flush (a new run); the same miss; a fill; a hit.
        st(0x500),
        (Event::FlushAll, 0),
        st(0x504),
        ld(0x508),
        st(0x50c),
    ];
    // Evicted again by loads of its set, then missed by a run of stores.
    raw.extend([ld(0x1100), ld(0x2100), ld(0x3100), st(0x100), st(0x104), st(0x108), ld(0x100), st(0x10c)]);
    let stores = raw.iter().filter(|(e, _)| matches!(e, Event::Access(a) if a.kind == AccessKind::Store)).count();
    let m = check_machine(4096, &tiers, raw, false, false).expect("equal to the naive simulator");
    assert_eq!(m.inner_loop(), "associative");
    assert_eq!(m.writes_through_in_loop(), stores as u64);
}

/// A physically indexed top cache of many sets (256-1024, lines of 8 or
/// 16 bytes, one or two ways): on 4K pages up to 256 sets are fixed by the
/// page offset, so the memo of most recent lines (`hit_loop::MruLines`)
/// uses all its 256 entries a side.
fn wide_top_cache() -> impl Strategy<Value = CacheConfig> {
    (
        prop::sample::select(vec![8u64, 16]),
        prop::sample::select(vec![256u64, 512, 1024]),
        prop::sample::select(vec![1u32, 2]),
        prop::sample::select(vec![Indexing::Vipt, Indexing::Pipt]),
        prop::sample::select(vec![Replacement::Lru, Replacement::TreePlru, Replacement::Fifo]),
        any::<bool>(),
    )
        .prop_map(|(line, sets, ways, indexing, replacement, wb)| {
            let mut c = CacheConfig::simple(line * sets * u64::from(ways), line, ways);
            c.indexing = indexing;
            c.replacement = replacement;
            c.write = if wb { WritePolicy::WriteBack } else { WritePolicy::WriteThrough };
            c
        })
}

/// References over three pages in each of three distant regions, so lines
/// of one memo entry and of one set conflict, and now and then a flush
/// (an escape: the next run starts with a cleared memo).
fn wide_event_strategy() -> impl Strategy<Value = Event> {
    prop_oneof![
        60 => (0u8..4, 0u64..3 * 12288, 0usize..4).prop_map(|(k, a, s)| {
            let kind = [AccessKind::Ifetch, AccessKind::Load, AccessKind::Store, AccessKind::Modify][k as usize];
            Event::access(kind, VirtAddr(((a / 12288) << 20) + a % 12288), [1, 2, 4, 8][s], Asid(0))
        }),
        1 => Just(Event::FlushAll),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(200)))]

    /// The associative loop on physically indexed tops whose memo groups
    /// reach past 64 sets (jm-base's shape PIPT has 256 on 4K pages):
    /// every counter against the naive simulator and the public path.
    #[test]
    fn wide_memo_groups_equal_naive_reference(
        top in prop_oneof![
            wide_top_cache().prop_map(TierShape::Unified),
            (wide_top_cache(), wide_top_cache()).prop_map(|(i, d)| TierShape::Split(i, d)),
        ],
        below in prop::collection::vec(tier_strategy(256), 0..=1),
        raw in prop::collection::vec((wide_event_strategy(), 0u64..4), 1..600),
    ) {
        let mut tiers = vec![top];
        tiers.extend(below);
        let inner = check(4096, &tiers, raw, false, false)?;
        prop_assert_eq!(inner, "associative");
    }
}

/// A level of several ways (2-8, 1-4 sets, bit-select, write-back, any
/// indexing and replacement) under a write-through top: the level whose
/// frame of the last written-through line `Below::written_through`
/// remembers. Few sets and ways, so the lines written move between frames.
fn remembered_frame_tier_strategy(page: u64) -> impl Strategy<Value = TierShape> {
    let one = move || {
        (cache_strategy(page), prop::sample::select(vec![1u64, 2, 4]), prop::sample::select(vec![2u32, 4, 8])).prop_map(
            |(mut c, sets, ways)| {
                c.size.0 = c.line.0 * sets * u64::from(ways);
                c.assoc = Assoc::Ways(ways);
                c.index = IndexFn::BitSelect;
                c.write = WritePolicy::WriteBack;
                c
            },
        )
    };
    prop_oneof![one().prop_map(TierShape::Unified), (one(), one()).prop_map(|(i, d)| TierShape::Split(i, d))]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(200)))]

    /// The writes a write-through top (allocating or not) passes to a
    /// level of several ways are found there at the frame of the last one
    /// when they hit its line again (fewer searches, `Machine::writes_below_searched`,
    /// than write hits there),
    /// and store streams over more lines than that level holds make the
    /// remembered line leave its frame and come back in another: every
    /// counter equals the naive simulator's and the public path's. A load
    /// and two stores of one word come first (the load fills the line in
    /// both levels whatever their write-miss policies), so the second
    /// store is found at the frame the first one's search remembered.
    #[test]
    fn writes_through_at_remembered_frame_equal_naive_reference(
        page in prop::sample::select(vec![256u64, 4096]),
        top in prop_oneof![
            write_through_top_cache(256).prop_map(TierShape::Unified),
            (fast_top_cache(256), write_through_top_cache(256)).prop_map(|(i, d)| TierShape::Split(i, d)),
        ],
        allocate in any::<bool>(),
        low in remembered_frame_tier_strategy(256),
        deeper in prop::collection::vec(tier_strategy(256), 0..=1),
        events in prop::collection::vec(aligned_event_strategy(), 1..300),
        share in any::<bool>(),
    ) {
        let policy = if allocate { WriteMissPolicy::WriteAllocate } else { WriteMissPolicy::NoWriteAllocate };
        let top = match top {
            TierShape::Unified(mut c) => {
                c.write_miss = policy;
                TierShape::Unified(c)
            }
            TierShape::Split(i, mut d) => {
                d.write_miss = policy;
                TierShape::Split(i, d)
            }
        };
        // Lines no shorter than the level's above (`Hierarchy::nested`).
        let tiers = with_chain(vec![top], [low].into_iter().chain(deeper).collect(), 2);
        let at = |kind| Event::access(kind, VirtAddr(0x40), 4, Asid(0));
        let first = [at(AccessKind::Load), at(AccessKind::Store), at(AccessKind::Store)];
        let raw = first.into_iter().chain(events).map(|e| (e, 0)).collect();
        let mut m = check_machine(page, &tiers, raw, share, false)?;
        prop_assert_eq!(m.inner_loop(), "associative");
        // The top's lines are never dirty, so every write reaching the
        // level under it was passed through; the hits among them that
        // took no search were found at the remembered frame.
        let low = if matches!(tiers[1], TierShape::Split(..)) { "l2d" } else { "l2" };
        let result = m.result("random");
        let hits = result.caches.iter().find(|c| c.name == low).map(|c| c.stats.write.hits());
        let searched = m.writes_below_searched();
        prop_assert!(hits.is_some_and(|h| h > searched), "{hits:?} write hits, {searched} searched: {tiers:?}");
    }
}
