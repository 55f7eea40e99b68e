//! One pass per TLB over many L1 sizes (`OnePass`: the machine with the
//! smallest L1s records what reached its caches, machines with larger
//! direct-mapped L1s replay it) gives, for every configuration, exactly
//! the result its own run gives: every counter, every float. Random
//! machines and traces as in `fanout.rs`; the replaying machines differ in
//! each L1's size and have their own L2 fan-outs.

#![allow(clippy::unwrap_used)]

mod common;

use common::{cache, cache_choice, config, machine, onepass_equals_alone, trace, CacheChoice, Machine};
use proptest::prelude::*;
use vmlab_addr::{Asid, VirtAddr};
use vmlab_cache::Indexing;
use vmlab_trace::{AccessKind, Event, PackedBlock};
use vmlab_translation::{load, onepass_groups, replay_refusal, OnePass, Scheme, VmConfig, VmSim};

/// Another L2: unified or not, line multiple, I (or unified) and D caches.
type OtherL2 = (bool, u64, CacheChoice, CacheChoice);

/// Machine `m` with both L1s `mult` times larger (I, D), and, if `l2` is
/// given, another L2 (as `fanout.rs`'s `other_l2`).
fn larger(m: &Machine, base: &VmConfig, mult: (u64, u64), l2: Option<&OtherL2>) -> VmConfig {
    let mut cfg = base.clone();
    cfg.l1i.size.0 *= mult.0;
    cfg.l1d.size.0 *= mult.1;
    if let Some((unified, line_mult, i, d)) = l2 {
        let indexing = if m.l1_indexing == Indexing::Vivt { Indexing::Vivt } else { Indexing::Pipt };
        let line = m.l1_line * line_mult;
        let big = |c: &CacheChoice| CacheChoice { sets: c.sets * 8, ..c.clone() };
        if *unified {
            cfg.l2 = Some(cache(&big(i), line, indexing));
            cfg.l2i = None;
            cfg.l2d = None;
        } else {
            cfg.l2 = None;
            cfg.l2i = Some(cache(&big(i), line, indexing));
            cfg.l2d = Some(cache(&big(d), line, indexing));
        }
    }
    cfg.name = format!("{}-x{}x{}-{}", base.name, mult.0, mult.1, l2.is_some());
    cfg
}

fn replayers() -> impl Strategy<Value = Vec<((u64, u64), Vec<OtherL2>)>> {
    let mult = prop::sample::select(vec![1u64, 2, 4, 8]);
    let l2 = (any::<bool>(), prop::sample::select(vec![1u64, 2, 4]), cache_choice(), cache_choice());
    prop::collection::vec(((mult.clone(), mult), prop::collection::vec(l2, 0..3)), 1..4)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(300)
    ))]

    #[test]
    fn onepass_equals_separate_runs(m in machine(), more in replayers(), events in trace()) {
        // What one pass may share (`replay_refusal`): a TLB looked up on
        // every access (or none), no protection changes, direct-mapped
        // write-allocate L1s.
        let direct = |c: &CacheChoice| CacheChoice { ways: 1, write_allocate: true, ..c.clone() };
        let m = Machine {
            scheme: if matches!(m.scheme, Scheme::Softvm | Scheme::Spur) { Scheme::Ultrix } else { m.scheme },
            protect: false,
            tlb_every_access: true,
            caches: [direct(&m.caches[0]), direct(&m.caches[1]), m.caches[2].clone(), m.caches[3].clone()],
            ..m
        };
        let base = config(&m);
        let mut fans = vec![vec![base.clone()]];
        for (mult, l2s) in &more {
            let lead = larger(&m, &base, *mult, None);
            let mut f = vec![lead.clone()];
            f.extend(l2s.iter().map(|l2| larger(&m, &base, *mult, Some(l2))));
            fans.push(f);
        }
        onepass_equals_alone(fans, &events)?;
    }
}

fn jm(scheme: &str, l1: &str, l2: &str, l1_line: &str, l2_line: &str) -> VmConfig {
    let o = |k: &str, v: &str| format!("{k}={v}");
    let mut c = load(
        "jacob-mudge",
        &[
            o("scheme", scheme),
            o("l1i.size", l1),
            o("l1d.size", l1),
            o("l1i.line", l1_line),
            o("l1d.line", l1_line),
            o("l2i.size", l2),
            o("l2d.size", l2),
            o("l2i.line", l2_line),
            o("l2d.line", l2_line),
        ],
    )
    .unwrap();
    c.name = format!("{scheme}/{l1}/{l2}/{l1_line}/{l2_line}");
    c
}

/// The S1 grid's shape by hand: ULTRIX with 1, 2 and 8 KB L1s, each over
/// two L2s, on loops that miss the small L1s and TLB often; each result
/// equals its own run, and the L1 counts really differ (so the test would
/// see a replay that gave every machine the recording one's L1).
#[test]
fn onepass_over_the_grids_l1_sizes() {
    let mut cfgs = Vec::new();
    for l1 in ["1K", "2K", "8K"] {
        for l2 in ["4K", "16K"] {
            cfgs.push(jm("ultrix", l1, l2, "16", "32"));
        }
    }
    let groups = onepass_groups(&cfgs);
    assert_eq!(groups, vec![vec![vec![0, 1], vec![2, 3], vec![4, 5]]]);
    let fans: Vec<Vec<VmConfig>> = groups[0].iter().map(|f| f.iter().map(|&i| cfgs[i].clone()).collect()).collect();
    let mut events = Vec::new();
    for i in 0..30_000u64 {
        events.push(Event::access(AccessKind::Ifetch, VirtAddr(0x10_0000 + (i * 12) % 3000), 4, Asid(1)));
        let kind = if i % 3 == 0 { AccessKind::Store } else { AccessKind::Load };
        events.push(Event::access(kind, VirtAddr(0x40_0000 + (i * 4100) % 700_000), 4, Asid(1)));
        if i % 7 == 0 {
            events.push(Event::access(AccessKind::Modify, VirtAddr(0x80_0000 + (i * 36) % 6000), 8, Asid(1)));
        }
    }
    let mut one = OnePass::new(fans).unwrap();
    let mut block = PackedBlock::new();
    block.pack(&events);
    one.feed_packed(&block, block.len()).unwrap();
    let together = one.results("t");
    let mut l1d_misses = Vec::new();
    for (r, c) in together.iter().zip(&cfgs) {
        let mut s = VmSim::new(c.clone()).unwrap();
        s.feed(&events).unwrap();
        assert_eq!(r, &s.result("t"), "{}", c.name);
        l1d_misses.push(r.caches.iter().find(|c| c.name == "l1d").unwrap().stats.read.misses);
        assert!(r.dtlb.unwrap().misses > 100);
    }
    assert!(l1d_misses[0] > l1d_misses[2] && l1d_misses[2] > l1d_misses[4], "{l1d_misses:?}");
}

#[test]
fn replay_refuses_what_depends_on_the_caches() {
    let small = jm("ultrix", "1K", "512K", "16", "16");
    let big = jm("ultrix", "4K", "1M", "16", "16");
    assert_eq!(replay_refusal(&small, &big), None);
    assert_eq!(replay_refusal(&big, &small), Some("an L1 is smaller than the recording machine's"));
    let notlb = jm("notlb", "1K", "512K", "16", "16");
    assert_eq!(replay_refusal(&notlb, &jm("notlb", "2K", "512K", "16", "16")), None);
    for scheme in ["softvm", "spur"] {
        let why = replay_refusal(&jm(scheme, "1K", "512K", "16", "16"), &jm(scheme, "2K", "512K", "16", "16"));
        assert!(why.unwrap().contains("L2 misses"), "{scheme}");
    }
    let mut at_l1_miss = small.clone();
    at_l1_miss.tlb_every_access = false;
    let mut at_l1_miss_big = big.clone();
    at_l1_miss_big.tlb_every_access = false;
    assert!(replay_refusal(&at_l1_miss, &at_l1_miss_big).unwrap().contains("L1 misses"));
    let mut two_way = big.clone();
    two_way.l1d.assoc = vmlab_cache::Assoc::Ways(2);
    assert!(replay_refusal(&small, &two_way).unwrap().contains("direct-mapped"));
    let mut protect = big.clone();
    protect.protection_changes_per_million = 10.0;
    assert!(replay_refusal(&small, &protect).unwrap().contains("protection"));
    assert!(replay_refusal(&small, &jm("ultrix", "4K", "1M", "32", "32")).unwrap().contains("differ"));
    assert!(replay_refusal(&small, &jm("mach", "4K", "1M", "16", "16")).unwrap().contains("differ"));
    let mut tlb64 = big.clone();
    tlb64.itlb.as_mut().unwrap().entries = 64;
    assert!(replay_refusal(&small, &tlb64).unwrap().contains("differ"));
    // Groups: a line size or scheme of its own records for itself.
    let cfgs =
        vec![big.clone(), small.clone(), jm("mach", "1K", "512K", "16", "16"), jm("ultrix", "8K", "512K", "32", "32")];
    assert_eq!(onepass_groups(&cfgs), vec![vec![vec![1], vec![0]], vec![vec![2]], vec![vec![3]]]);
}
