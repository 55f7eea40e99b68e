//! Machines that translate at L2 misses (SOFTVM, SPUR) with equal L1s
//! share one L1-hit filter (`OnePass` over fan-outs of one configuration
//! each, `filter_refusal`): every configuration's result equals its own
//! run, every counter and every float. Random machines and traces as in
//! `fast_equals_general.rs`; the group's machines differ in scheme, L2
//! and write-back retranslation, never in their L1s.

#![allow(clippy::unwrap_used)]

mod common;

use common::{cache, cache_choice, config, machine, onepass_equals_alone, trace, CacheChoice, Machine};
use proptest::prelude::*;
use vmlab_addr::{Asid, VirtAddr};
use vmlab_cache::Indexing;
use vmlab_trace::{AccessKind, Event, PackedBlock};
use vmlab_translation::{filter_refusal, load, onepass_groups, OnePass, Scheme, VmSim};

/// Another member: SPUR rather than SOFTVM (or the reverse), write-backs
/// retranslated, unified L2, L2 line multiple, L2 I (or unified) and D.
type Other = (bool, bool, bool, u64, CacheChoice, CacheChoice);

fn others() -> impl Strategy<Value = Vec<Other>> {
    let one = (
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        prop::sample::select(vec![1u64, 2, 4]),
        cache_choice(),
        cache_choice(),
    );
    prop::collection::vec(one, 1..4)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(300)
    ))]

    #[test]
    fn filtered_group_equals_separate_runs(
        m in machine(),
        more in others(),
        events in trace(),
        rewrites in any::<u64>(),
        l1_sets in prop::sample::select(vec![1u64, 2, 4, 16, 64]),
    ) {
        // What a filter may serve: L1s direct-mapped, write-back,
        // write-allocate (VIVT with ASIDs, as SOFTVM and SPUR need), no
        // protection changes. One- and two-set L1s put both lines of a
        // line-crossing word in one set, where the second piece evicts
        // the first (the filter's stop path must not take such a word's
        // sets as holding its lines).
        let direct = |c: &CacheChoice| CacheChoice { sets: l1_sets, ways: 1, write_back: true, write_allocate: true, ..c.clone() };
        let m = Machine {
            scheme: if m.scheme == Scheme::Spur { Scheme::Spur } else { Scheme::Softvm },
            protect: false,
            l1_indexing: Indexing::Vivt,
            caches: [direct(&m.caches[0]), direct(&m.caches[1]), m.caches[2].clone(), m.caches[3].clone()],
            ..m
        };
        let events = stores_after_loads(events, rewrites);
        let base = config(&m);
        let mut fans = vec![vec![base.clone()]];
        for (n, (swap, retranslate, unified, line_mult, i, d)) in more.iter().enumerate() {
            let scheme = match (m.scheme, swap) {
                (Scheme::Softvm, true) => Scheme::Spur,
                (Scheme::Spur, true) => Scheme::Softvm,
                (s, _) => s,
            };
            let mut c = config(&Machine { scheme, retranslate_writebacks: *retranslate, ..m.clone() });
            let big = |c: &CacheChoice| CacheChoice { sets: c.sets * 8, ..c.clone() };
            let line = m.l1_line * line_mult;
            if *unified {
                c.l2 = Some(cache(&big(i), line, Indexing::Vivt));
                c.l2i = None;
                c.l2d = None;
            } else {
                c.l2 = None;
                c.l2i = Some(cache(&big(i), line, Indexing::Vivt));
                c.l2d = Some(cache(&big(d), line, Indexing::Vivt));
            }
            c.name = format!("{}-other{n}", base.name);
            prop_assert_eq!(filter_refusal(&base, &c), None);
            fans.push(vec![c]);
        }
        // The group really runs through the filter, one machine each.
        let one = OnePass::new(fans.clone()).unwrap();
        prop_assert_eq!(one.filtered_words().len(), fans.len());
        onepass_equals_alone(fans, &events)?;
    }
}

/// `events` with a store to the same bytes after some loads (those whose
/// bit of `rewrites`, by load number mod 64, is set): a store that hits a
/// line a load left clean is a filter hit a machine may skip, and only
/// its dirty bit (`VmSim::filtered_run`) makes the line's eviction a
/// write-back. `trace`'s runs repeat one kind, so they seldom write a
/// line they read clean.
fn stores_after_loads(events: Vec<Event>, rewrites: u64) -> Vec<Event> {
    let mut out = Vec::with_capacity(events.len() * 2);
    let mut loads = 0;
    for e in events {
        out.push(e);
        if let Event::Access(a) = e {
            if a.kind == AccessKind::Load {
                if rewrites >> (loads % 64) & 1 == 1 {
                    out.push(Event::Access(vmlab_trace::Access { kind: AccessKind::Store, ..a }));
                }
                loads += 1;
            }
        }
    }
    out
}

/// SOFTVM with a 1 KB L1 I of 16-byte lines (64 sets) and 1 KB of 16-byte
/// lines for data, and the same machine with a larger L2, and a SPUR one.
fn machines() -> Vec<vmlab_translation::VmConfig> {
    let o = |k: &str, v: &str| format!("{k}={v}");
    [("softvm", "64K"), ("softvm", "256K"), ("spur", "64K")]
        .iter()
        .map(|(scheme, l2)| {
            let overrides = vec![
                o("scheme", scheme),
                o("l1i.size", "1K"),
                o("l1i.line", "16"),
                o("l1d.size", "1K"),
                o("l1d.line", "16"),
                o("l2i.size", l2),
                o("l2d.size", l2),
            ];
            load("jacob-mudge", &overrides).unwrap()
        })
        .collect()
}

/// `machines()`, one filter group, fed `events` in one packed block.
fn filtered(events: &[Event]) -> (Vec<vmlab_translation::VmConfig>, OnePass) {
    let cfgs = machines();
    let fans: Vec<_> = cfgs.iter().map(|c| vec![c.clone()]).collect();
    let mut one = OnePass::new(fans).unwrap();
    let mut block = PackedBlock::new();
    block.pack(events);
    one.feed_packed(&block, block.len()).unwrap();
    (cfgs, one)
}

/// Worked by hand. Folded, fetch line A (raw 0x40_0010, the first region
/// touched, so folded 0x10) is L1 I set 1; the user handler's 10
/// instructions at 0x1000 span sets 0, 1 and 2. Trace: A fetched four
/// times, a load from a new page, A four times again.
///
/// - A1: a filter miss (shared stop). L2 misses, so the handler runs
///   first (its fetches fill sets 0-2, marking them), then A fills set 1:
///   the machine holds the filter's line there, set 1 is unmarked.
/// - A2-A4: filter hits on set 1, unmarked: skipped (3).
/// - The load: a filter miss (shared stop); it misses L2, so the handler
///   runs again: its fetch of set 1 misses (A is there) and marks set 1.
/// - A5: a filter hit, but on marked set 1: an own stop; the general path
///   misses L1 (the handler's line is there), hits L2, and leaves A: set 1
///   unmarked again.
/// - A6-A8: skipped (3).
///
/// So each SOFTVM machine skips 6 of the 9 words and misses L1 I on A
/// twice. SPUR refills by hardware and runs no handler code (its PTE loads
/// go through L1 D), so nothing marks set 1: it skips A5 too (7) and
/// misses on A once.
#[test]
fn a_handler_that_evicts_a_user_line_stops_the_next_word_on_its_set() {
    let a = || Event::access(AccessKind::Ifetch, VirtAddr(0x40_0010), 4, Asid(1));
    let mut events: Vec<Event> = (0..4).map(|_| a()).collect();
    events.push(Event::access(AccessKind::Load, VirtAddr(0x80_0000), 4, Asid(1)));
    events.extend((0..4).map(|_| a()));
    let (cfgs, mut one) = filtered(&events);
    assert_eq!(one.filtered_words(), vec![6, 6, 7]);
    for ((r, c), misses) in one.results("t").iter().zip(&cfgs).zip([2, 2, 1]) {
        let mut alone = VmSim::new(c.clone()).unwrap();
        alone.feed(&events).unwrap();
        let own = alone.result("t");
        assert_eq!(r, &own);
        // User fetches: 8, of which A1 (and under SOFTVM A5) missed L1 I.
        assert_eq!(own.accesses[AccessKind::Ifetch as usize], 8);
        assert_eq!(own.i_side.l1_hit_tlb_hit, 8 - misses);
        assert_eq!(own.i_side.total() - own.i_side.l1_hit_tlb_hit, misses);
    }
}

/// Worked by hand: a pending stop on a set that a later word unmarked
/// is dropped. Folded, fetch line A (raw 0x40_0010) is L1 I set 1 and C
/// (raw 0x40_0020, same page) set 2. Trace: A, then C three times.
///
/// - A: a filter miss (shared stop). L2 misses; under SOFTVM the handler's
///   fetches fill sets 0-2 (marking them), then A fills set 1 (unmarked).
///   Sets 0 and 2 stay marked, so the next filter hit on set 2, the second
///   C, is pending as a stop.
/// - C1: a filter miss on set 2 (shared stop): whatever runs for it, C is
///   left in set 2, the filter's line there: set 2 unmarked.
/// - C2: the pending stop, but its set is unmarked: skipped, as is C3.
///
/// So every machine skips C2 and C3 (2 of 4); taking the stale stop would
/// have skipped only C3 under SOFTVM. SPUR runs no handler code, so set 2
/// is never marked.
#[test]
fn a_pending_stop_on_a_set_unmarked_since_is_a_skip() {
    let fetch = |raw| Event::access(AccessKind::Ifetch, VirtAddr(raw), 4, Asid(1));
    let mut events = vec![fetch(0x40_0010)];
    events.extend((0..3).map(|_| fetch(0x40_0020)));
    let (cfgs, mut one) = filtered(&events);
    assert_eq!(one.filtered_words(), vec![2, 2, 2]);
    for (r, c) in one.results("t").iter().zip(&cfgs) {
        let mut alone = VmSim::new(c.clone()).unwrap();
        alone.feed(&events).unwrap();
        let own = alone.result("t");
        assert_eq!(r, &own);
        // A and C1 missed L1 I; C2 and C3 hit.
        assert_eq!(own.accesses[AccessKind::Ifetch as usize], 4);
        assert_eq!(own.i_side.l1_hit_tlb_hit, 2);
    }
}

/// Worked by hand: a filter miss where every machine's L1 holds the
/// filter's previous line, another one, takes the known-miss path
/// (`VmSim::filter_miss`: no fold, no L1 look-up of its own). Folded,
/// fetch lines A (raw 0x40_0010) and B (raw 0x40_0410, 1 KB on) are both
/// L1 I set 1, C (raw 0x40_0020) set 2. Trace: C, A, B, A, B, A.
///
/// - C: the block's first word, an escape (it sets the space): the
///   general path.
/// - A1: a direct word, but the filter's set 1 is empty, so its miss is
///   not known: the general path.
/// - B1: the filter held A in set 1, unmarked: a known miss. It misses
///   L2; under SOFTVM the handler's fetch evicts A from set 1, then B
///   fills it, unmarked again.
/// - A2, B2, A3: known misses too (each line in L2 since its first
///   miss), in every machine.
///
/// So 4 known misses per machine, no word skipped, and every result is
/// the machine's own run's.
#[test]
fn a_filter_miss_where_every_machine_holds_another_line_is_a_known_miss() {
    let fetch = |raw| Event::access(AccessKind::Ifetch, VirtAddr(raw), 4, Asid(1));
    let events: Vec<Event> = [0x40_0020, 0x40_0010, 0x40_0410, 0x40_0010, 0x40_0410, 0x40_0010].map(fetch).to_vec();
    let (cfgs, mut one) = filtered(&events);
    assert_eq!(one.filter_known_misses(), vec![4, 4, 4]);
    assert_eq!(one.filtered_words(), vec![0, 0, 0]);
    for (r, c) in one.results("t").iter().zip(&cfgs) {
        let mut alone = VmSim::new(c.clone()).unwrap();
        alone.feed(&events).unwrap();
        let own = alone.result("t");
        assert_eq!(r, &own);
        assert_eq!(own.i_side.l1_hit_tlb_hit, 0);
    }
}

/// The paper grid's SOFTVM and SPUR configurations with equal L1s form
/// one filter group each (per L1 size and line), and the TLB schemes'
/// groups are untouched.
#[test]
fn onepass_groups_share_filters_by_l1() {
    let mut cfgs = Vec::new();
    for scheme in ["softvm", "spur", "ultrix"] {
        for l2 in ["512K", "1M"] {
            for (l1, line) in [("1K", "16"), ("2K", "16"), ("1K", "32")] {
                let overrides: Vec<String> = vec![
                    format!("scheme={scheme}"),
                    format!("l1i.size={l1}"),
                    format!("l1d.size={l1}"),
                    format!("l1i.line={line}"),
                    format!("l1d.line={line}"),
                    format!("l2i.size={l2}"),
                    format!("l2d.size={l2}"),
                ];
                cfgs.push(load("jacob-mudge", &overrides).unwrap());
            }
        }
    }
    let groups = onepass_groups(&cfgs);
    // SOFTVM 0-5, SPUR 6-11: by L1 (1K/16, 2K/16, 1K/32), both schemes,
    // both L2s; ULTRIX 12-17: L1 sizes replay (16-byte lines) and L2s fan out.
    let filters: Vec<Vec<usize>> = groups
        .iter()
        .filter(|g| g.iter().all(|f| f.len() == 1) && g.len() > 1 && g[0][0] < 12)
        .map(|g| g.iter().flatten().copied().collect())
        .collect();
    assert_eq!(filters, vec![vec![0, 3, 6, 9], vec![1, 4, 7, 10], vec![2, 5, 8, 11]]);
    // ULTRIX: 1K/16 records and 2K/16 replays (one group, two fan-outs
    // over both L2s), 1K/32 alone (one fan-out).
    assert_eq!(groups.len(), 3 + 2);
    assert_eq!(groups.iter().map(Vec::len).sum::<usize>(), 3 * 4 + 3);
}
