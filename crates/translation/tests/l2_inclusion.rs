//! One pass over the direct-mapped L2 sizes (`fanout::L2Fanout`): in
//! a fan-out whose L2s differ in size only, a fill that hit the smaller L2
//! is counted as a hit in the larger, not looked up. Every configuration
//! of a one-pass group over L1 sizes, each L1 size with L2s of several
//! sizes (and one of another line or not direct-mapped, which must not
//! join), gives exactly the result of its own run: every counter, every
//! float (VMCPI components, misses, handler runs, TLB misses).

#![allow(clippy::unwrap_used)]

mod common;

use common::{config, machine, onepass_equals_alone, trace, CacheChoice, Machine};
use proptest::prelude::*;
use vmlab_addr::{Asid, VirtAddr};
use vmlab_cache::{Assoc, Indexing};
use vmlab_trace::{AccessKind, Event, PackedBlock};
use vmlab_translation::{l2_inclusion_refusal, load, OnePass, Scheme, VmConfig, VmSim};

/// `base` with both L1s `l1_mult` times larger and its L2s (I and D, or
/// the unified one) `l2_mult` times larger; `odd`: 1 keeps the L2 as it
/// is, 2 doubles its line, 3 makes it two-way.
fn variant(base: &VmConfig, l1_mult: u64, l2_mult: u64, odd: u8) -> VmConfig {
    let mut cfg = base.clone();
    cfg.l1i.size.0 *= l1_mult;
    cfg.l1d.size.0 *= l1_mult;
    for c in [&mut cfg.l2, &mut cfg.l2i, &mut cfg.l2d].into_iter().flatten() {
        c.size.0 *= l2_mult;
        match odd {
            2 => {
                c.size.0 *= 2;
                c.line.0 *= 2;
            }
            3 => {
                c.size.0 *= 2;
                c.assoc = Assoc::Ways(2);
            }
            _ => {}
        }
    }
    cfg.name = format!("{}-l1x{l1_mult}-l2x{l2_mult}-{odd}", base.name);
    cfg
}

fn l2_sets() -> impl Strategy<Value = Vec<(u64, u8)>> {
    prop::collection::vec(
        (prop::sample::select(vec![1u64, 2, 4, 8]), prop::sample::select(vec![1u8, 1, 1, 2, 3])),
        1..5,
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(300)
    ))]

    #[test]
    fn onepass_over_l2_sizes_equals_separate_runs(
        m in machine(),
        l1_mults in prop::collection::vec(prop::sample::select(vec![2u64, 4]), 0..2),
        l2s in l2_sets(),
        events in trace(),
    ) {
        // What one pass may share: as tests/replay.rs, and direct-mapped,
        // write-back, write-allocate, virtually tagged L2s with ASIDs.
        let direct = |c: &CacheChoice| CacheChoice { ways: 1, write_allocate: true, ..c.clone() };
        let l2 = |c: &CacheChoice| CacheChoice { write_back: true, ..direct(c) };
        let m = Machine {
            scheme: if matches!(m.scheme, Scheme::Softvm | Scheme::Spur) { Scheme::Ultrix } else { m.scheme },
            protect: false,
            tlb_every_access: true,
            l1_indexing: Indexing::Vivt,
            caches: [direct(&m.caches[0]), direct(&m.caches[1]), l2(&m.caches[2]), l2(&m.caches[3])],
            ..m
        };
        let base = config(&m);
        let mut fans = Vec::new();
        for l1 in std::iter::once(1).chain(l1_mults.iter().copied()) {
            let mut f = vec![variant(&base, l1, 1, 1)];
            f.extend(l2s.iter().map(|&(mult, odd)| variant(&base, l1, mult, odd)));
            fans.push(f);
        }
        let alone = onepass_equals_alone(fans, &events)?;
        // Nothing is ever counted by inclusion in a machine alone.
        prop_assert!(alone.iter().all(|s| s.included_fills() == 0));
    }
}

fn jm(scheme: &str, l1: &str, l2: &str, l2_line: &str) -> VmConfig {
    let o = |k: &str, v: &str| format!("{k}={v}");
    let mut c = load(
        "jacob-mudge",
        &[
            o("scheme", scheme),
            o("l1i.size", l1),
            o("l1d.size", l1),
            o("l1i.line", "16"),
            o("l1d.line", "16"),
            o("l2i.size", l2),
            o("l2d.size", l2),
            o("l2i.line", l2_line),
            o("l2d.line", l2_line),
        ],
    )
    .unwrap();
    c.name = format!("{scheme}/{l1}/{l2}/{l2_line}");
    c
}

/// The S1 grid's shape by hand: ULTRIX and NOTLB, 1 and 4 KB L1s, each
/// over L2s of 4, 8 and 16 KB (and one of another line) on loops that miss
/// them: each result equals its own run, the inclusion really counted
/// fills, and the L2 misses really differ by size (so a pass that gave
/// every L2 the smallest one's hits would be seen).
#[test]
fn onepass_over_the_grids_l2_sizes() {
    let mut events = Vec::new();
    for i in 0..40_000u64 {
        events.push(Event::access(AccessKind::Ifetch, VirtAddr(0x10_0000 + (i * 20) % 9000), 4, Asid(1)));
        let kind = if i % 3 == 0 { AccessKind::Store } else { AccessKind::Load };
        events.push(Event::access(kind, VirtAddr(0x40_0000 + (i * 4100) % 12_000 + (i % 5) * 2_000), 4, Asid(1)));
    }
    let mut block = PackedBlock::new();
    block.pack(&events);
    for scheme in ["ultrix", "notlb"] {
        let fans: Vec<Vec<VmConfig>> = ["1K", "4K"]
            .iter()
            .map(|l1| {
                vec![
                    jm(scheme, l1, "4K", "32"),
                    jm(scheme, l1, "8K", "32"),
                    jm(scheme, l1, "16K", "32"),
                    jm(scheme, l1, "8K", "64"),
                ]
            })
            .collect();
        let mut one = OnePass::new(fans.clone()).unwrap();
        one.feed_packed(&block, block.len()).unwrap();
        assert!(one.included_fills() > 1000, "{scheme}: {}", one.included_fills());
        let together = one.results("t");
        let mut l2d_misses = Vec::new();
        for (r, c) in together.iter().zip(fans.iter().flatten()) {
            let mut s = VmSim::new(c.clone()).unwrap();
            s.feed(&events).unwrap();
            assert_eq!(r, &s.result("t"), "{}", c.name);
            l2d_misses.push(r.caches.iter().find(|c| c.name == "l2d").unwrap().stats.read.misses);
        }
        assert!(l2d_misses[0] > l2d_misses[2] && l2d_misses[4] > l2d_misses[6], "{scheme}: {l2d_misses:?}");
    }
}

#[test]
fn inclusion_refused_by_name() {
    let small = jm("ultrix", "1K", "512K", "32");
    let large = jm("ultrix", "1K", "2M", "32");
    let (s, l) = (small.l2d.as_ref().unwrap(), large.l2d.as_ref().unwrap());
    assert_eq!(l2_inclusion_refusal(s, l), None);
    assert_eq!(l2_inclusion_refusal(s, s), None);
    assert_eq!(l2_inclusion_refusal(l, s), Some("the L2 is smaller"));
    let other_line = jm("ultrix", "1K", "2M", "64");
    assert_eq!(l2_inclusion_refusal(s, other_line.l2d.as_ref().unwrap()), Some("the L2 lines differ"));
    let mut two_way = l.clone();
    two_way.assoc = Assoc::Ways(2);
    assert_eq!(l2_inclusion_refusal(s, &two_way), Some("an L2 is not direct-mapped and bit-select"));
    let mut hashed = l.clone();
    hashed.index = vmlab_cache::IndexFn::SpaceHash;
    assert_eq!(l2_inclusion_refusal(s, &hashed), Some("an L2 is not direct-mapped and bit-select"));
    let mut no_alloc = l.clone();
    no_alloc.write_miss = vmlab_cache::WriteMissPolicy::NoWriteAllocate;
    assert_eq!(l2_inclusion_refusal(s, &no_alloc), Some("an L2 is not write-back and write-allocate"));
    let mut through = l.clone();
    through.write = vmlab_cache::WritePolicy::WriteThrough;
    assert_eq!(l2_inclusion_refusal(&through, l), Some("an L2 is not write-back and write-allocate"));
    let mut physical = l.clone();
    physical.indexing = Indexing::Pipt;
    physical.asid_tags = false;
    assert_eq!(l2_inclusion_refusal(s, &physical), Some("an L2 is not virtually indexed and tagged with ASIDs"));
    // The machine alone (no fan-out) never counts by inclusion; a fan-out
    // of one L2 size and line does not either: there is nothing smaller.
    let mut sim = VmSim::fanout(vec![small.clone(), jm("ultrix", "1K", "512K", "64")]).unwrap();
    sim.feed(&[Event::access(AccessKind::Load, VirtAddr(0x40_0000), 4, Asid(1)); 3]).unwrap();
    assert_eq!(sim.included_fills(), 0);
}
