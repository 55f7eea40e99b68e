//! A fan-out (`VmSim::fanout`: one pass over the L1s and TLBs feeding
//! several L2s) gives, for every configuration, exactly the result a
//! separate run of that configuration gives: every counter, every float.
//! Random machines and traces as in `fast_equals_general.rs`; the L2s of
//! the fan-out differ in sets, ways, line size, policies and split vs
//! unified, so their levels really differ access by access.

#![allow(clippy::unwrap_used)]

mod common;

use common::{cache, cache_choice, config, machine, trace, CacheChoice, Machine};
use proptest::prelude::*;
use vmlab_addr::{Asid, VirtAddr};
use vmlab_cache::Indexing;
use vmlab_trace::{AccessKind, Event, PackedBlock};
use vmlab_translation::{load, Scheme, VmConfig, VmSim};

/// Another L2 for machine `m`: same indexing rule as `common::config`.
fn other_l2(m: &Machine, base: &VmConfig, unified: bool, line_mult: u64, i: &CacheChoice, d: &CacheChoice) -> VmConfig {
    let mut cfg = base.clone();
    let indexing = if m.l1_indexing == Indexing::Vivt { Indexing::Vivt } else { Indexing::Pipt };
    let line = m.l1_line * line_mult;
    let big = |c: &CacheChoice| CacheChoice { sets: c.sets * 2, ..c.clone() };
    if unified {
        cfg.l2 = Some(cache(&big(i), line, indexing));
        cfg.l2i = None;
        cfg.l2d = None;
    } else {
        cfg.l2 = None;
        cfg.l2i = Some(cache(&big(i), line, indexing));
        cfg.l2d = Some(cache(&big(d), line, indexing));
    }
    cfg.name = format!("{}-l2-{unified}-{line}", base.name);
    cfg
}

fn tails() -> impl Strategy<Value = Vec<(bool, u64, CacheChoice, CacheChoice)>> {
    prop::collection::vec((any::<bool>(), prop::sample::select(vec![1u64, 2, 4]), cache_choice(), cache_choice()), 1..4)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(300)
    ))]

    #[test]
    fn fanout_equals_separate_runs(m in machine(), extra in tails(), events in trace()) {
        // Schemes that translate at L2 misses, and protection changes,
        // cannot share L1s (see `fanout_refuses_what_depends_on_l2`).
        let m = Machine {
            scheme: if matches!(m.scheme, Scheme::Softvm | Scheme::Spur) { Scheme::Ultrix } else { m.scheme },
            protect: false,
            ..m
        };
        let base = config(&m);
        let mut cfgs = vec![base.clone()];
        cfgs.extend(extra.iter().map(|(u, mult, i, d)| other_l2(&m, &base, *u, *mult, i, d)));
        let Ok(mut fan) = VmSim::fanout(cfgs.clone()) else {
            // A machine that does not build alone does not build in a fan-out.
            prop_assert!(cfgs.iter().any(|c| VmSim::new(c.clone()).is_err()));
            return Ok(());
        };
        let mut alone: Vec<VmSim> = cfgs.iter().map(|c| VmSim::new(c.clone()).unwrap()).collect();
        let half = events.len() / 2;
        for part in [&events[..half], &events[half..]] {
            // The fan-out reads packed words, as `run` does (its hit loop
            // and resident-page misses); the separate runs read events.
            let mut block = PackedBlock::new();
            block.pack(part);
            let a = fan.feed_packed(&block, block.len()).map_err(|e| e.to_string());
            for s in &mut alone {
                prop_assert_eq!(&a, &s.feed(part).map_err(|e| e.to_string()));
            }
            if a.is_err() {
                return Ok(());
            }
            let together = fan.results("t");
            prop_assert_eq!(together.len(), cfgs.len());
            for (r, s) in together.iter().zip(&mut alone) {
                prop_assert_eq!(r, &s.result("t"));
            }
        }
    }
}

/// The S1 grid's shape by hand: ULTRIX with 1 KB L1s over three L2s (4 KB,
/// 16 KB and 4 KB with 64-byte lines) on a walk that misses in all of them
/// differently; each fan-out result equals its separate run, and the L2
/// counts really differ between them (so the test would see a fan-out that
/// gave every machine the first one's L2).
#[test]
fn fanout_over_the_grids_l2_sizes_and_lines() {
    let o = |k: &str, v: &str| format!("{k}={v}");
    let cfg = |l2: &str, line: &str| {
        let mut c = load(
            "jacob-mudge",
            &[
                o("scheme", "ultrix"),
                o("l1i.size", "1K"),
                o("l1d.size", "1K"),
                o("l2i.size", l2),
                o("l2d.size", l2),
                o("l2i.line", line),
                o("l2d.line", line),
            ],
        )
        .unwrap();
        c.name = format!("{l2}/{line}");
        c
    };
    let cfgs = vec![cfg("4K", "16"), cfg("16K", "16"), cfg("4K", "64")];
    let mut events = Vec::new();
    for i in 0..20_000u64 {
        events.push(Event::access(AccessKind::Ifetch, VirtAddr(0x10_0000 + (i * 12) % 6000), 4, Asid(1)));
        let kind = if i % 3 == 0 { AccessKind::Store } else { AccessKind::Load };
        events.push(Event::access(kind, VirtAddr(0x40_0000 + (i * 52) % 12_000), 4, Asid(1)));
    }
    let mut fan = VmSim::fanout(cfgs.clone()).unwrap();
    let mut block = PackedBlock::new();
    block.pack(&events);
    fan.feed_packed(&block, block.len()).unwrap();
    // The fan-out's hit loop really ran (these small L1s miss often).
    assert!(fan.hit_run_words() > 1000, "{}", fan.hit_run_words());
    let together = fan.results("t");
    let mut l2d_misses = Vec::new();
    for (r, c) in together.iter().zip(&cfgs) {
        let mut s = VmSim::new(c.clone()).unwrap();
        s.feed(&events).unwrap();
        assert_eq!(r, &s.result("t"), "{}", c.name);
        assert_eq!(r.config, c.name);
        l2d_misses.push(r.caches.iter().find(|c| c.name == "l2d").unwrap().stats.read.misses);
    }
    assert!(l2d_misses[0] != l2d_misses[1] && l2d_misses[0] != l2d_misses[2], "{l2d_misses:?}");
}

#[test]
fn fanout_refuses_what_depends_on_l2() {
    let o = |k: &str, v: &str| format!("{k}={v}");
    let two = |extra: &[String]| {
        let a = load("jacob-mudge", extra).unwrap();
        let mut more = extra.to_vec();
        more.push(o("l2d.size", "1M"));
        let b = load("jacob-mudge", &more).unwrap();
        VmSim::fanout(vec![a, b]).err().map(|e| e.to_string())
    };
    assert_eq!(two(&[o("scheme", "ultrix")]), None);
    for scheme in ["softvm", "spur"] {
        assert!(two(&[o("scheme", scheme)]).unwrap().contains("translates at L2 misses"), "{scheme}");
    }
    let err = two(&[o("scheme", "ultrix"), o("protection_changes_per_million", "10")]).unwrap();
    assert!(err.contains("protection changes"), "{err}");
    // Different L1s cannot share a pass over them.
    let a = load("jacob-mudge", &[o("scheme", "mach")]).unwrap();
    let b = load("jacob-mudge", &[o("scheme", "mach"), o("l1d.size", "16K")]).unwrap();
    let err = VmSim::fanout(vec![a, b]).unwrap_err().to_string();
    assert!(err.contains("differ above L2"), "{err}");
}
