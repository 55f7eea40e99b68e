//! The translating simulator's fast paths change no number: on random
//! machines (every scheme; small caches and TLBs so misses, refills, nested
//! misses, write-backs and SOFTVM re-translations are frequent) and random
//! multi-process traces, `VmSim::new` (fast paths on) and `VmSim::general`
//! (every piece through a plain TLB hash probe and `Cache::access`, no
//! repeat-line shortcut) give equal results, every counter and every float.
//!
//! The configurations are drawn so that every fast path is selected: virtual
//! and physical L1s, direct-mapped and associative, write-back and
//! write-through, split and unified TLBs with and without micro-TLBs,
//! tagged and untagged, TLB on every access or on L1 misses only, and
//! protection changes.

#![allow(clippy::unwrap_used)]

mod common;

use common::{config, machine, trace, CacheChoice};
use proptest::prelude::*;
use vmlab_addr::{Asid, VirtAddr};
use vmlab_cache::Indexing;
use vmlab_trace::{AccessKind, Event};
use vmlab_translation::{load, Scheme, VmSim};

proptest! {
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(400)
    ))]

    #[test]
    fn fast_paths_equal_the_general_path(m in machine(), events in trace()) {
        let cfg = config(&m);
        let fast = VmSim::new(cfg.clone());
        let general = VmSim::general(cfg);
        let (mut fast, mut general) = match (fast, general) {
            (Ok(f), Ok(g)) => (f, g),
            (Err(a), Err(b)) => {
                prop_assert_eq!(a.to_string(), b.to_string());
                return Ok(());
            }
            (a, b) => {
                prop_assert!(false, "one built, one did not: {:?} / {:?}", a.err().map(|e| e.to_string()), b.err().map(|e| e.to_string()));
                unreachable!();
            }
        };
        // Feed in two slices so results are also equal mid-trace.
        let half = events.len() / 2;
        let a = fast.feed(&events[..half]).map_err(|e| e.to_string());
        let b = general.feed(&events[..half]).map_err(|e| e.to_string());
        prop_assert_eq!(&a, &b);
        if a.is_err() {
            return Ok(());
        }
        prop_assert_eq!(fast.result("t"), general.result("t"));
        let a = fast.feed(&events[half..]).map_err(|e| e.to_string());
        let b = general.feed(&events[half..]).map_err(|e| e.to_string());
        prop_assert_eq!(&a, &b);
        prop_assert_eq!(fast.result("t"), general.result("t"));
        // The direct-mapped VIVT probes (`MemSys::l1_lookup`) must really run
        // when the machine selects them, so this test cannot pass vacuously:
        // a side's first user piece is never a repeat, so it is probed.
        let direct = |c: &CacheChoice| m.l1_indexing == Indexing::Vivt && c.ways == 1 && c.write_back;
        let used = |ifetch: bool| events.iter().any(|e| matches!(e, Event::Access(a) if (a.kind == AccessKind::Ifetch) == ifetch));
        if (direct(&m.caches[0]) && used(true)) || (direct(&m.caches[1]) && used(false)) {
            prop_assert!(fast.direct_probes() > 0);
        }
        prop_assert_eq!(general.direct_probes(), 0);
    }
}

/// The S1 grid's machine (every level direct-mapped, VIVT with ASIDs,
/// write-back) on a trace with hits, misses and dirty victims in L1 and L2:
/// the direct probes run, in L1 and L2, and change no number.
#[test]
fn direct_mapped_probes_equal_the_general_path() {
    for scheme in Scheme::ALL {
        let o = |k: &str, v: &str| format!("{k}={v}");
        let overrides = vec![
            o("scheme", scheme.name()),
            o("l1i.size", "1K"),
            o("l1d.size", "1K"),
            o("l2i.size", "4K"),
            o("l2d.size", "4K"),
            o("l1d.line", "16"),
            o("l2d.line", "32"),
        ];
        let cfg = load("jacob-mudge", &overrides).unwrap();
        let mut events = Vec::new();
        for i in 0..3000u64 {
            // Every third data reference stores to the previous one's line
            // (an L1 write hit), the others walk 9,000 bytes (misses, dirty
            // victims, L2 hits); the address space changes every 1,000.
            // (Wrapping at i = 0, as the release build always computed it.)
            let a = 0x40_0000 + (i.wrapping_sub(u64::from(i % 3 == 0)).wrapping_mul(52)) % 9000;
            events.push(Event::access(AccessKind::Ifetch, VirtAddr(0x10_0000 + (i * 12) % 3000), 4, Asid(1)));
            let kind = if i % 3 == 0 { AccessKind::Store } else { AccessKind::Load };
            events.push(Event::access(kind, VirtAddr(a), 4, Asid(1 + (i / 1000) as u32)));
        }
        let mut fast = VmSim::new(cfg.clone()).unwrap();
        let mut general = VmSim::general(cfg).unwrap();
        fast.feed(&events).unwrap();
        general.feed(&events).unwrap();
        // L1 probes alone would be one per non-repeat piece; L2 adds more.
        assert!(fast.direct_probes() > 3000, "{}: {}", scheme.name(), fast.direct_probes());
        assert_eq!(general.direct_probes(), 0);
        // Handlers' fetches after the first of a line are counted, not
        // looked up, in the fast simulator alone.
        assert_eq!(general.handler_fetch_repeats(), 0);
        let (f, g) = (fast.result("t"), general.result("t"));
        if f.handler_runs.iter().sum::<u64>() > 0 {
            assert!(fast.handler_fetch_repeats() > 0, "{}", scheme.name());
        }
        let l2d = f.caches.iter().find(|c| c.name == "l2d").unwrap();
        assert!(l2d.stats.read.accesses > l2d.stats.read.misses && l2d.stats.writebacks > 0, "{}", scheme.name());
        assert_eq!(f, g, "{}", scheme.name());
    }
}

/// Both paths agree with a hand count: 100 fetches of one 16-byte line
/// (which the fast simulator takes as repeats) are 1 miss and 99 hits in
/// L1 I and the I-TLB.
#[test]
fn general_and_fast_agree_on_a_hand_counted_trace() {
    let cfg = load("jacob-mudge", &["scheme=ultrix".to_string()]).unwrap();
    let events: Vec<Event> =
        (0..100).map(|i| Event::access(AccessKind::Ifetch, VirtAddr(0x40_0000 + (i % 4) * 4), 4, Asid(1))).collect();
    for (fast, mut sim) in [(true, VmSim::new(cfg.clone()).unwrap()), (false, VmSim::general(cfg.clone()).unwrap())] {
        sim.feed(&events).unwrap();
        // The fast simulator counts a handler's fetches after the first of
        // each line without a lookup: (10 - 3) + (20 - 5).
        assert_eq!(sim.handler_fetch_repeats(), if fast { 7 + 15 } else { 0 });
        let r = sim.result("t");
        let l1i = r.caches.iter().find(|c| c.name == "l1i").unwrap();
        // On top: the user handler's 10 fetches (40 bytes at 0x1000: 3
        // lines) and, for the nested D-TLB miss on the user PTE in kseg2, the
        // root handler's 20 (80 bytes at 0x3000: 5 lines).
        assert_eq!(l1i.stats.ifetch.accesses, 100 + 10 + 20);
        assert_eq!(l1i.stats.ifetch.misses, 1 + 3 + 5);
        assert_eq!(r.handler_runs, [1, 0, 1, 0]);
        assert_eq!(r.i_side.l1_hit_tlb_hit, 99);
        assert_eq!(r.i_side.l2_miss_tlb_miss, 1);
        assert_eq!(r.itlb.unwrap().hits, 99);
        assert_eq!(r.itlb.unwrap().misses, 1);
    }
}

/// A unified LRU TLB is shared by both sides, so a data lookup between two
/// fetches of one line changes which entry is least recent: the second
/// fetch must refresh its page in the TLB, not pass as a free repeat. Two
/// normal slots. Fetch page P, load page Q (misses), fetch P again (a
/// lookup: the miss cleared the repeat state), load another line of Q (a
/// hit: Q is now newer than P), fetch P's line again (a repeat of the line,
/// but P must become the newest again), load page R: it evicts the least
/// recent, Q; so the last fetch of P hits.
#[test]
fn unified_lru_tlb_repeats_refresh_the_shared_order() {
    let mut cfg = load("jacob-mudge", &["scheme=ultrix".to_string()]).unwrap();
    let mut t = cfg.itlb.clone().unwrap();
    t.entries = 18;
    t.wired = 16;
    t.replacement = vmlab_mmu::TlbReplacement::Lru;
    (cfg.itlb, cfg.dtlb, cfg.tlb) = (None, None, Some(t));
    let (p, q, r) = (0x40_0000, 0x41_0000, 0x42_0000);
    let events = vec![
        Event::access(AccessKind::Ifetch, VirtAddr(p), 4, Asid(1)),
        Event::access(AccessKind::Load, VirtAddr(q), 4, Asid(1)),
        Event::access(AccessKind::Ifetch, VirtAddr(p + 4), 4, Asid(1)),
        Event::access(AccessKind::Load, VirtAddr(q + 0x100), 4, Asid(1)),
        Event::access(AccessKind::Ifetch, VirtAddr(p + 8), 4, Asid(1)),
        Event::access(AccessKind::Load, VirtAddr(r), 4, Asid(1)),
        Event::access(AccessKind::Ifetch, VirtAddr(p + 12), 4, Asid(1)),
    ];
    let mut results = Vec::new();
    for mut sim in [VmSim::new(cfg.clone()).unwrap(), VmSim::general(cfg.clone()).unwrap()] {
        sim.feed(&events).unwrap();
        results.push(sim.result("t"));
    }
    let tlb = results[1].tlbs.iter().find(|t| t.name == "tlb").unwrap().stats;
    // Misses: P (and the nested miss on the user table's kseg2 page, which
    // then sits in a wired slot), Q, R. Hits: fetches 2-4, the load of Q's
    // second line, and the user-PTE loads of Q and R (kseg2 page wired).
    assert_eq!((tlb.hits, tlb.misses, tlb.evictions), (6, 4, 1), "{tlb:?}");
    assert_eq!(results[0], results[1]);
}
