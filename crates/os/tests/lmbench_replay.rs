//! A multi-process trace replayed on the switching kernel
//! (crates/os/src/lmbench.rs), worked by hand: the layout's renaming of
//! x86-64 pages, and a two-process ping-pong built event by event whose
//! switches, flushes, forks and exits are counted exactly.

#![allow(clippy::unwrap_used, clippy::panic)]

use std::path::PathBuf;

use vmlab_addr::{Asid, VirtAddr};
use vmlab_os::lmbench::{run_events, Layout, Program, LIBC, PRIVATE};
use vmlab_os::switch::{Scheme, SwitchPreset};
use vmlab_trace::syscall::Call;
use vmlab_trace::{AccessKind, Event};

fn sa1100() -> SwitchPreset {
    SwitchPreset::load("strongarm-sa1100").unwrap()
}

fn call(asid: u32, number: u16, ret: i64, args: &[u64]) -> Vec<Event> {
    Call { number, asid: Asid(asid), ret, args: args.to_vec() }.events().collect()
}

#[test]
fn layout_renames_pages_into_the_fass_layout() {
    let ev = [
        Event::access(AccessKind::Ifetch, VirtAddr(0x10_8000), 4, Asid(1)), // program text: kept
        Event::access(AccessKind::Ifetch, VirtAddr(0x0400_1000), 4, Asid(1)), // library text: shared
        Event::access(AccessKind::Store, VirtAddr(0x1f_fff0_0008), 8, Asid(1)), // stack: private
        Event::access(AccessKind::Load, VirtAddr(0x0488_0010), 8, Asid(2)), // read only: shared
        Event::access(AccessKind::Modify, VirtAddr(0x0488_3000), 4, Asid(2)), // written: private
        Event::access(AccessKind::Load, VirtAddr(0x0400_1ffc), 8, Asid(1)), // crosses into 0x4002000: shared
    ];
    let l = Layout::of(&ev).unwrap();
    assert_eq!((l.private_pages(), l.shared_pages()), (2, 3));
    assert_eq!(l.rename(0x10_8004), 0x10_8004);
    assert_eq!(l.rename(0x0400_1010), LIBC + 0x10);
    assert_eq!(l.rename(0x1f_fff0_0010), PRIVATE + 0x10);
    assert_eq!(l.rename(0x0488_0010), LIBC + 0x1000 + 0x10);
    assert_eq!(l.rename(0x0488_3004), PRIVATE + 0x1000 + 4);
    assert_eq!(l.rename(0x0400_2000), LIBC + 0x2000);
}

/// Process 1 forks 2, marks, writes a word into a pipe and blocks reading;
/// 2 reads it, answers and blocks; 1 reads, marks. One operation, two
/// hand-overs: under `flush` two cache flushes, under `fass-linux` none;
/// the fork and the pipe path are charged in both.
fn ping_pong() -> Vec<Event> {
    let mut ev = vec![Event::ContextSwitch(Asid(1)), Event::access(AccessKind::Store, VirtAddr(0x10_0000), 4, Asid(1))];
    ev.extend(call(1, 56, 2, &[0x1200011, 0, 0, 0, 0]));
    ev.extend(call(1, 110, 1, &[]));
    ev.push(Event::access(AccessKind::Ifetch, VirtAddr(0x10_8000), 4, Asid(1)));
    ev.extend(call(1, 1, 4, &[5, 0x10_0000, 4]));
    ev.push(Event::ContextSwitch(Asid(2)));
    ev.extend(call(2, 0, 4, &[4, 0x10_0000, 4]));
    ev.push(Event::access(AccessKind::Ifetch, VirtAddr(0x10_8000), 4, Asid(2)));
    ev.extend(call(2, 1, 4, &[7, 0x10_0000, 4]));
    ev.push(Event::ContextSwitch(Asid(1)));
    ev.extend(call(1, 0, 4, &[6, 0x10_0000, 4]));
    ev.extend(call(1, 110, 1, &[]));
    ev
}

#[test]
fn a_ping_pong_switches_and_flushes_exactly() {
    let p = Program { name: "pp".into(), trace: PathBuf::from("pp.vmt"), ops: 1, sockets: false };
    let ev = ping_pong();
    let flush = run_events(&sa1100(), Scheme::Flush, &p, &ev).unwrap();
    let fast = run_events(&sa1100(), Scheme::FassLinux, &p, &ev).unwrap();
    for m in [&flush, &fast] {
        assert_eq!(m.counts.switches, 2, "{m:?}");
        assert_eq!((m.processes, m.violations), (2, 0));
        assert_eq!(m.measured_references, 2);
        // The three pipe calls in the stretch ran the pipe path.
        let ipc = m.by_mechanism.iter().find(|(k, _)| k == "ipc path").unwrap().1;
        assert!(ipc >= 3 * 250, "{ipc}");
    }
    assert_eq!((flush.counts.cache_flushes, flush.counts.tlb_flushes), (2, 2));
    assert_eq!((fast.counts.cache_flushes, fast.counts.tlb_flushes), (0, 0));
    assert!(flush.cycles > fast.cycles + 2 * 256 * 40, "{} vs {}", flush.cycles, fast.cycles);
}

#[test]
fn a_trace_without_its_marks_is_an_error_naming_it() {
    let p = Program { name: "pp".into(), trace: PathBuf::from("pp.vmt"), ops: 1, sockets: false };
    let mut ev = ping_pong();
    ev.pop(); // the second mark (a call without arguments: one event)
    let e = run_events(&sa1100(), Scheme::Flush, &p, &ev).unwrap_err();
    assert!(e.starts_with("pp.vmt: the first process made 1 getppid calls"), "{e}");
    let e = run_events(&sa1100(), Scheme::Flush, &p, &[Event::ContextSwitch(Asid(3))]).unwrap_err();
    assert!(e.contains("asid 3 runs before any fork made it"), "{e}");
}
