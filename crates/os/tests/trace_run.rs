//! Traces through the OS model: exact fault, access and TLB counts on a
//! small in-memory trace, hand-checked.

#![allow(clippy::unwrap_used)]

use vmlab_addr::{Asid, VirtAddr};
use vmlab_os::{run_trace, CostModel, Policy};
use vmlab_trace::{Access, AccessKind, Event, EventSource, TraceError};

struct Mem(Vec<Event>);

impl EventSource for Mem {
    fn fill(&mut self, buf: &mut Vec<Event>) -> Result<bool, TraceError> {
        buf.clear();
        // Two events per block, to cross block boundaries.
        let n = self.0.len().min(2);
        buf.extend(self.0.drain(..n));
        Ok(!buf.is_empty())
    }
    fn progress(&self) -> (u64, Option<u64>) {
        (0, None)
    }
}

fn ev(kind: AccessKind, asid: u32, addr: u64, size: u32) -> Event {
    Event::Access(Access { kind, size, addr: VirtAddr(addr), asid: Asid(asid) })
}

fn trace() -> Vec<Event> {
    use AccessKind::*;
    vec![
        ev(Load, 7, 0x10000, 4),
        ev(Store, 7, 0x10004, 4),
        ev(Load, 7, 0x10ffe, 4), // crosses pages 0x10800 / 0x11000: two accesses
        ev(Ifetch, 7, 0x40_0000, 4),
        Event::ContextSwitch(Asid(9)),
        ev(Store, 9, 0x10000, 8),
        ev(Modify, 9, 0x7fff_f000_0010, 4), // folds to 0x7000_0010
    ]
}

fn machine() -> vmlab_machine::MachineConfig {
    vmlab_machine::preset::load("hp9000-834", &[]).expect("preset")
}

#[test]
fn small_trace_gives_exact_faults_accesses_and_tlb_counts() {
    for (policy, oracle) in [(Policy::None, true), (Policy::FlushOnUnmap, true), (Policy::None, false)] {
        let cost = CostModel::load("hp9000-834").expect("cost");
        let out = run_trace(&mut Mem(trace()), &machine(), cost, policy, oracle).expect("runs");
        assert_eq!((out.events, out.accesses, out.ifetches_skipped, out.folded_pages), (7, 6, 1, 1));
        assert_eq!(out.spaces.into_iter().collect::<Vec<_>>(), vec![(Asid(7), Asid(1)), (Asid(9), Asid(2))]);
        // The 834 has 2 KB pages. One zero-fill per distinct page: 0x10000,
        // 0x10800, 0x11000 (asid 7); 0x10000, 0x7000_0000 (asid 9).
        assert_eq!(out.faults.zero_fill, 5);
        assert_eq!(out.faults.minor + out.faults.copy_on_write + out.faults.pseudo + out.faults.file_read, 0);
        assert_eq!(out.counters.traps, 5);
        // Only the store to 0x10004 finds its page in the TLB.
        assert_eq!((out.counters.tlb_hits, out.counters.tlb_misses), (1, 5));
        // Under `none` the kernel's zero-fill through its window alias is
        // not flushed: each of asid 7's three first reads sees the stale
        // pre-zero contents, and asid 9's two stores evict dirty lines
        // (asid 7's 0x10000 and asid 9's own 0x10000, same VIVT sets as their
        // kernel-window copies) over the newer zeroes. A correct policy: none.
        let stale = out.violations.iter().filter(|v| matches!(v, vmlab_os::Violation::StaleRead { .. })).count();
        let bombs = out.violations.iter().filter(|v| matches!(v, vmlab_os::Violation::CacheBomb { .. })).count();
        let expect = if policy == Policy::None && oracle { (3, 2) } else { (0, 0) };
        assert_eq!((stale, bombs), expect, "{policy:?}");
        assert_eq!(out.violation_count, (expect.0 + expect.1) as u64);
        assert_eq!(out.oracle_checks > 0, oracle);
    }
}

#[test]
fn pages_folding_onto_one_are_refused_naming_the_event() {
    let events = vec![ev(AccessKind::Load, 1, 0x1000, 4), ev(AccessKind::Load, 1, 0x8000_1000, 4)];
    let cost = CostModel::load("hp9000-834").expect("cost");
    let err = run_trace(&mut Mem(events), &machine(), cost, Policy::None, false).unwrap_err();
    assert!(err.contains("trace event 1") && err.contains("folds onto page 0x1000"), "{err}");
}
