//! Hand-worked translation runs: exact handler instructions, PTE loads and
//! VMCPI components on tiny traces, worked out in the comments.

#![allow(clippy::unwrap_used)]

use vmlab_addr::{Asid, VirtAddr};
use vmlab_trace::{Access, AccessKind, Event};
use vmlab_translation::{load, Component, Scheme, VmSim};

fn access(kind: AccessKind, addr: u64) -> Event {
    Event::Access(Access { kind, size: 4, addr: VirtAddr(addr), asid: Asid(1) })
}

fn sim(scheme: Scheme) -> VmSim {
    let cfg = load("jacob-mudge", &[format!("scheme={}", scheme.name())]).expect("preset");
    VmSim::new(cfg).expect("sim")
}

fn tally(s: &VmSim, c: Component) -> (u64, u64) {
    let t = s.vmcpi().tally(c);
    (t.events, t.cycles)
}

/// jacob-mudge: 8K/8K DM L1s, 512K/512K DM L2s, 16 B lines, ULTRIX.
/// Trace addresses fold to 4 MB slots in first-touch order: 0x400000 -> 0x0,
/// 0x10000000 -> 0x400000.
///
/// 1. ifetch 0x0: I-TLB miss. User handler: 10 instructions at 0x1000,
///    3 cold lines (0x1000, 0x1010, 0x1020): 3 x (L1 miss + L2 miss).
///    Its UPTE at 0xC020_0000 (space 1's table) misses the D-TLB: root
///    handler, 20 instructions at 0x1100 (the general vector, 0x80 past the
///    user one, as on the MIPS), 5 cold lines; its RPTE (physical) misses
///    L1 and L2. Then the UPTE load misses L1 and L2.
/// 2. load 0x400000: D-TLB miss; UPTE 0xC020_1000 is on another UPT page, so
///    the D-TLB misses again (nested). Both handlers' 8 lines are still in
///    the L1 I (they share a page and never meet in its sets): hits, free.
///    The RPTE shares a line with the first: L1 hit. The UPTE misses L1 and L2.
#[test]
fn ultrix_two_references_with_a_nested_miss() {
    let mut s = sim(Scheme::Ultrix);
    s.feed(&[access(AccessKind::Ifetch, 0x40_0000), access(AccessKind::Load, 0x1000_0000)]).unwrap();
    assert_eq!(tally(&s, Component::Uhandler), (2, 20));
    assert_eq!(tally(&s, Component::Rhandler), (2, 40));
    assert_eq!(tally(&s, Component::HandlerL2), (8, 160));
    assert_eq!(tally(&s, Component::HandlerMem), (8, 4000));
    assert_eq!(tally(&s, Component::RpteL2), (1, 20));
    assert_eq!(tally(&s, Component::RpteMem), (1, 500));
    assert_eq!(tally(&s, Component::UpteL2), (2, 40));
    assert_eq!(tally(&s, Component::UpteMem), (2, 1000));
    assert_eq!(tally(&s, Component::Khandler), (0, 0));
    let r = s.result("hand");
    assert_eq!(r.vm_cycles, 5780);
    assert_eq!(r.user_instructions, 1);
    assert_eq!(r.vmcpi, 5780.0);
    assert_eq!(r.handler_fetches, 60);
    assert_eq!(r.pte_loads, 4);
    assert_eq!(r.handler_runs, [2, 0, 2, 0]);
    let (itlb, dtlb) = (r.itlb.unwrap(), r.dtlb.unwrap());
    assert_eq!((itlb.hits, itlb.misses, itlb.inserts), (0, 1, 1));
    assert_eq!((dtlb.hits, dtlb.misses, dtlb.inserts), (0, 3, 3));
    // Table 1: both user references missed everything, and the TLB.
    assert_eq!(r.i_side.l2_miss_tlb_miss, 1);
    assert_eq!(r.d_side.l2_miss_tlb_miss, 1);
    assert_eq!(r.folded_regions, 2);
}

/// A repeat of the same page hits the TLB and costs nothing.
#[test]
fn ultrix_tlb_hit_is_free() {
    let mut s = sim(Scheme::Ultrix);
    s.feed(&[access(AccessKind::Load, 0x1000_0000)]).unwrap();
    let before = s.vmcpi().total_cycles();
    s.feed(&[access(AccessKind::Load, 0x1000_0ff0), access(AccessKind::Store, 0x1000_0008)]).unwrap();
    assert_eq!(s.vmcpi().total_cycles(), before);
    let r = s.result("hand");
    assert_eq!(r.dtlb.unwrap().hits, 2);
    assert_eq!(r.d_side.l1_hit_tlb_hit, 1, "the store hits the line the first load brought");
}

/// MACH: a user miss whose UPT page is unmapped in the TLB runs the kernel
/// handler (20), whose KPTE page is unmapped too: the root handler's long
/// path (500 instructions, 10 admin loads, 1 RPTE).
#[test]
fn mach_three_tiers() {
    let mut s = sim(Scheme::Mach);
    s.feed(&[access(AccessKind::Load, 0x1000_0000)]).unwrap();
    let r = s.result("hand");
    assert_eq!(r.handler_runs, [1, 1, 0, 1]);
    assert_eq!(r.handler_fetches, 10 + 20 + 500);
    assert_eq!(r.admin_loads, 10);
    assert_eq!(r.pte_loads, 3);
    assert_eq!(tally(&s, Component::Khandler), (1, 20));
    assert_eq!(tally(&s, Component::Rhandler), (1, 500));
    // Every PTE load is cold: L1 and L2 miss each.
    assert_eq!(tally(&s, Component::UpteMem).0, 1);
    assert_eq!(tally(&s, Component::KpteMem).0, 1);
    // The RPTE and the 10 admin loads (distinct 64-byte blocks) all miss.
    assert_eq!(tally(&s, Component::RpteMem).0, 11);
    // A second page on the same UPT page: only the user handler runs.
    s.feed(&[access(AccessKind::Load, 0x1000_1000)]).unwrap();
    assert_eq!(s.result("hand").handler_runs, [2, 1, 0, 1]);
}

/// NOTLB adds nothing at all.
#[test]
fn notlb_costs_nothing() {
    let mut s = sim(Scheme::Notlb);
    s.feed(&[access(AccessKind::Ifetch, 0x40_0000), access(AccessKind::Load, 0x1000_0000)]).unwrap();
    let r = s.result("hand");
    assert_eq!(r.vm_cycles, 0);
    assert_eq!(r.handler_fetches + r.pte_loads, 0);
}

/// Section 5.6 by mechanism: a 4 KB page with 16-byte lines, 10 of its lines
/// in L1 and 50 in L2, costs 10x5 + 246x3 + 50x40 + 206x20 = 6,908 cycles.
/// Load 50 lines of page P, then 40 lines of the page 8 KB above it: they
/// share the 8 KB direct-mapped L1's sets (evicting 40 of P's lines) but not
/// the 512 KB L2's.
#[test]
fn protection_change_sweeps_the_page() {
    let mut s = sim(Scheme::Notlb);
    let p = 0x1000_0000u64;
    let mut ev = Vec::new();
    for i in 0..50 {
        ev.push(access(AccessKind::Load, p + i * 16));
    }
    for i in 10..50 {
        ev.push(access(AccessKind::Load, p + 0x2000 + i * 16));
    }
    s.feed(&ev).unwrap();
    assert_eq!(s.protection_change(Asid(1), VirtAddr(p + 0x123)), 6_908);
    // A page nobody touched: every line is only checked.
    assert_eq!(s.protection_change(Asid(1), VirtAddr(0x5000_0000)), 256 * 3 + 256 * 20);
    let r = s.result("hand");
    assert_eq!((r.protection_changes, r.protection_cycles), (2, 6_908 + 5_888));
}

/// Injected at a rate: one change per 1,000 instructions here.
#[test]
fn protection_changes_at_a_rate() {
    let cfg = load("jacob-mudge", &["scheme=notlb".into(), "protection_changes_per_million=1000".into()]).unwrap();
    let mut s = VmSim::new(cfg).unwrap();
    let mut ev = Vec::new();
    for i in 0..5_000u64 {
        ev.push(access(AccessKind::Ifetch, 0x40_0000 + (i % 64) * 4));
        ev.push(access(AccessKind::Load, 0x1000_0000 + (i % 16) * 16));
    }
    s.feed(&ev).unwrap();
    let r = s.result("hand");
    assert_eq!(r.protection_changes, 5);
    assert!(r.protection_cpi > 0.0);
    let bad = load("jacob-mudge", &["protection_changes_per_million=-1".into()]);
    assert!(bad.is_err());
}
