//! Interleaving: exact schedules on hand-written traces, block-boundary
//! independence, and a property test against a deliberately simple
//! event-at-a-time reference scheduler.

// Tests report failure by panicking.
#![allow(clippy::panic)]

use std::collections::VecDeque;
use std::path::PathBuf;

use proptest::prelude::*;
use vmlab_addr::{Asid, VirtAddr};
use vmlab_trace::{
    interleave_files, read_all, read_source, AccessKind, Event, EventSource, Interleave, Location, TraceError,
    VmtHeader, VmtReader, VmtWriter, BLOCK,
};

/// An in-memory trace handed out `block` events at a time.
struct Mem {
    events: Vec<Event>,
    pos: usize,
    block: usize,
    /// Fail with an error instead of handing out the event at this index.
    fail_at: Option<usize>,
}

fn mem(events: Vec<Event>) -> Mem {
    Mem { events, pos: 0, block: BLOCK, fail_at: None }
}

impl EventSource for Mem {
    fn fill(&mut self, buf: &mut Vec<Event>) -> Result<bool, TraceError> {
        buf.clear();
        let mut end = (self.pos + self.block).min(self.events.len());
        if let Some(f) = self.fail_at {
            if self.pos >= f {
                return Err(TraceError::new("mem.vmt", Location::Offset(f as u64), "broken record"));
            }
            end = end.min(f);
        }
        buf.extend_from_slice(&self.events[self.pos..end]);
        self.pos = end;
        Ok(!buf.is_empty())
    }
    fn progress(&self) -> (u64, Option<u64>) {
        (self.pos as u64, Some(self.events.len() as u64))
    }
}

/// A load at `addr` by asid 0 (the asid every capture uses).
fn ld(addr: u64) -> Event {
    Event::access(AccessKind::Load, VirtAddr(addr), 4, Asid(0))
}

/// The same load as it comes out for address space `asid`.
fn at(addr: u64, asid: u32) -> Event {
    Event::access(AccessKind::Load, VirtAddr(addr), 4, Asid(asid))
}

fn cs(asid: u32) -> Event {
    Event::ContextSwitch(Asid(asid))
}

fn run(sources: Vec<Vec<Event>>, quantum: u64) -> (Vec<Event>, u64, u64) {
    let mut mix = Interleave::new(sources.into_iter().map(mem).collect(), quantum).expect("valid");
    let out = read_source(&mut mix).expect("in-memory sources do not fail");
    (out, mix.switches(), mix.dropped_switches())
}

#[test]
fn round_robin_with_a_quantum() {
    let (out, switches, _) = run(vec![vec![ld(0xa1), ld(0xa2), ld(0xa3)], vec![ld(0xb1), ld(0xb2)]], 2);
    assert_eq!(out, [cs(1), at(0xa1, 1), at(0xa2, 1), cs(2), at(0xb1, 2), at(0xb2, 2), cs(1), at(0xa3, 1)]);
    assert_eq!(switches, 3);
}

#[test]
fn system_calls_pass_through_retagged_and_whole() {
    use vmlab_trace::syscall::Call;
    let call =
        |asid, args: Vec<u64>| -> Vec<Event> { Call { number: 0, asid: Asid(asid), ret: 1, args }.events().collect() };
    // Source 0's call comes right after its quantum's last reference: it
    // waits for its next turn, whole (head and arguments together), re-tagged.
    let a = [vec![ld(0xa1), ld(0xa2)], call(0, vec![3, 0x10]), vec![ld(0xa3)]].concat();
    let (out, switches, _) = run(vec![a, vec![ld(0xb1)]], 2);
    let want =
        [vec![cs(1), at(0xa1, 1), at(0xa2, 1), cs(2), at(0xb1, 2), cs(1)], call(1, vec![3, 0x10]), vec![at(0xa3, 1)]]
            .concat();
    assert_eq!(out, want);
    assert_eq!(switches, 3);
}

#[test]
fn a_source_that_ends_mid_quantum_drops_out_at_once() {
    let (out, switches, _) = run(vec![vec![ld(0xa1)], vec![ld(0xb1), ld(0xb2), ld(0xb3)], vec![ld(0xc1), ld(0xc2)]], 2);
    assert_eq!(
        out,
        [cs(1), at(0xa1, 1), cs(2), at(0xb1, 2), at(0xb2, 2), cs(3), at(0xc1, 3), at(0xc2, 3), cs(2), at(0xb3, 2)]
    );
    assert_eq!(switches, 4);
}

#[test]
fn the_last_source_left_runs_to_its_end_without_switches() {
    let a: Vec<Event> = (1..=5).map(|i| ld(0xa0 + i)).collect();
    let (out, switches, _) = run(vec![a, vec![ld(0xb1)]], 2);
    assert_eq!(
        out,
        [cs(1), at(0xa1, 1), at(0xa2, 1), cs(2), at(0xb1, 2), cs(1), at(0xa3, 1), at(0xa4, 1), at(0xa5, 1)]
    );
    assert_eq!(switches, 3);
}

#[test]
fn flushes_pass_through_free_and_own_switches_are_dropped() {
    let a = vec![ld(0xa1), Event::FlushAll, cs(7), ld(0xa2), ld(0xa3)];
    let (out, switches, dropped) = run(vec![a, vec![ld(0xb1)]], 2);
    assert_eq!(out, [cs(1), at(0xa1, 1), Event::FlushAll, at(0xa2, 1), cs(2), at(0xb1, 2), cs(1), at(0xa3, 1)]);
    assert_eq!((switches, dropped), (3, 1));
}

#[test]
fn empty_sources_never_run() {
    let (out, switches, _) = run(vec![vec![], vec![ld(0xb1)], vec![cs(3)]], 4);
    assert_eq!(out, [cs(2), at(0xb1, 2)]);
    assert_eq!(switches, 1);
    let (out, switches, _) = run(vec![vec![], vec![]], 1);
    assert_eq!((out, switches), (vec![], 0));
}

#[test]
fn every_kind_and_size_is_kept_only_the_asid_changes() {
    let a = vec![
        Event::access(AccessKind::Ifetch, VirtAddr(0x400000), 3, Asid(9)),
        Event::access(AccessKind::Store, VirtAddr(0x7ff0), 8, Asid(9)),
        Event::access(AccessKind::Modify, VirtAddr(0x10), 2, Asid(0)),
    ];
    let (out, _, _) = run(vec![a], 10);
    assert_eq!(
        out,
        [
            cs(1),
            Event::access(AccessKind::Ifetch, VirtAddr(0x400000), 3, Asid(1)),
            Event::access(AccessKind::Store, VirtAddr(0x7ff0), 8, Asid(1)),
            Event::access(AccessKind::Modify, VirtAddr(0x10), 2, Asid(1))
        ]
    );
}

#[test]
fn bad_arguments_are_refused() {
    let none: Vec<Mem> = Vec::new();
    assert!(Interleave::new(none, 5).expect_err("no sources").contains("at least one"));
    assert!(Interleave::new(vec![mem(vec![])], 0).expect_err("zero").contains("quantum"));
}

#[test]
fn a_source_error_reaches_the_caller() {
    let broken = Mem { events: vec![ld(1), ld(2), ld(3)], pos: 0, block: 1, fail_at: Some(2) };
    let mut mix = Interleave::new(vec![mem(vec![ld(9)]), broken], 1).expect("valid");
    let err = read_source(&mut mix).expect_err("the error surfaces");
    assert!(err.to_string().contains("broken record"), "{err}");
}

#[test]
fn output_does_not_depend_on_block_sizes_and_crosses_block_boundaries() {
    // Three sources of 100,000 events each: the output spans several blocks.
    let make = |seed: u64| -> Vec<Event> { (0..100_000u64).map(|i| ld(seed << 32 | i)).collect() };
    let want = reference(&[make(1), make(2), make(3)], 1000);
    for block in [1usize, 7, 4096, BLOCK] {
        let sources = (1..=3).map(|s| Mem { events: make(s), pos: 0, block, fail_at: None }).collect();
        let mut mix = Interleave::new(sources, 1000).expect("valid");
        let mut out = Vec::new();
        let mut buf = Vec::new();
        while mix.fill(&mut buf).expect("fill") {
            assert!(buf.len() <= BLOCK);
            out.extend_from_slice(&buf);
        }
        assert_eq!(out.len(), want.len(), "block {block}");
        assert!(out == want, "block {block}: output differs from the reference");
        // 300 turns of 1,000 accesses each, all switches.
        assert_eq!(mix.switches(), 300);
    }
}

#[test]
fn files_interleave_into_a_vmt_with_the_schedule_in_its_header() {
    let dir = tempfile::tempdir().expect("tempdir");
    let write = |name: &str, events: &[Event]| -> PathBuf {
        let p = dir.path().join(name);
        let f = std::fs::File::create(&p).expect("create");
        let mut w = VmtWriter::new(f, VmtHeader::default()).expect("header");
        w.write_all(events).expect("write");
        w.finish().expect("finish");
        p
    };
    let a = write("a.vmt", &[ld(0xa1), ld(0xa2), ld(0xa3)]);
    let b = write("b.vmt", &[ld(0xb1)]);
    let out = dir.path().join("ab.vmt");
    let summary = interleave_files(&[a.clone(), b.clone()], 2, &out).expect("interleave");
    assert_eq!((summary.events, summary.context_switches, summary.dropped_switches), (7, 3, 0));
    let events = read_all(&out, None).expect("read back");
    assert_eq!(events, [cs(1), at(0xa1, 1), at(0xa2, 1), cs(2), at(0xb1, 2), cs(1), at(0xa3, 1)]);
    let reader = VmtReader::new(std::fs::File::open(&out).expect("open"), &out).expect("header");
    let meta = &reader.header().metadata;
    assert_eq!(meta["interleave_quantum"], 2);
    assert_eq!(meta["interleave_asids"], serde_json::json!([1, 2]));
    assert_eq!(meta["interleave_inputs"][1], b.display().to_string());
    assert!(summary.to_string().contains("2 traces as asids 1..=2, quantum 2"), "{summary}");

    // The output may not be an input, and a missing input is named.
    let err = interleave_files(&[a.clone(), out.clone()], 2, &out).expect_err("same file");
    assert!(err.to_string().contains("also an input"), "{err}");
    assert!(out.exists(), "a refused run leaves the existing file alone");
    let missing = dir.path().join("missing.vmt");
    let err = interleave_files(&[a, missing.clone()], 2, &dir.path().join("x.vmt")).expect_err("missing");
    assert!(err.to_string().contains("missing.vmt"), "{err}");
}

/// The reference scheduler: one event at a time from queues, no blocks.
fn reference(sources: &[Vec<Event>], quantum: u64) -> Vec<Event> {
    let mut queues: Vec<VecDeque<Event>> =
        sources.iter().map(|s| s.iter().copied().filter(|e| !matches!(e, Event::ContextSwitch(_))).collect()).collect();
    let n = queues.len();
    let mut out = Vec::new();
    let mut current: Option<usize> = None;
    let mut used = 0u64;
    loop {
        let keep = current.filter(|&c| used < quantum && !queues[c].is_empty());
        let lane = match keep {
            Some(c) => c,
            None => {
                let start = current.map_or(0, |c| c + 1);
                let Some(next) = (0..n).map(|k| (start + k) % n).find(|&i| !queues[i].is_empty()) else {
                    return out;
                };
                if current != Some(next) {
                    out.push(Event::ContextSwitch(Asid(next as u32 + 1)));
                }
                current = Some(next);
                used = 0;
                next
            }
        };
        match queues[lane].pop_front() {
            Some(Event::Access(mut a)) => {
                a.asid = Asid(lane as u32 + 1);
                used += 1;
                out.push(Event::Access(a));
            }
            Some(e) => out.push(e),
            None => {}
        }
    }
}

fn event() -> impl Strategy<Value = Event> {
    prop_oneof![
        8 => (0u8..4, 0u64..1 << 20, 1u32..9, 0u32..3).prop_map(|(k, addr, size, asid)| {
            Event::access(AccessKind::ALL[k as usize], VirtAddr(addr), size, Asid(asid))
        }),
        1 => Just(Event::FlushAll),
        1 => (0u32..4).prop_map(|a| Event::ContextSwitch(Asid(a))),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn interleaving_keeps_every_event_once_in_order_with_its_asid(
        sources in prop::collection::vec(prop::collection::vec(event(), 0..60), 1..6),
        quantum in 1u64..12,
        block in 1usize..9,
    ) {
        let mems = sources.iter().map(|s| Mem { events: s.clone(), pos: 0, block, fail_at: None }).collect();
        let mut mix = Interleave::new(mems, quantum).expect("valid");
        let out = read_source(&mut mix).expect("fill");
        prop_assert_eq!(&out, &reference(&sources, quantum));

        // Independent of the reference: split the output by the running
        // asid the markers name; each source's part is its own events,
        // minus its switches, re-tagged, in order.
        let mut parts: Vec<Vec<Event>> = vec![Vec::new(); sources.len()];
        // (asid, accesses) of each turn, in order.
        let mut turns: Vec<(u32, u64)> = Vec::new();
        for e in &out {
            match e {
                Event::ContextSwitch(a) => {
                    prop_assert_ne!(turns.last().map(|t| t.0), Some(a.0), "a switch to the running asid");
                    turns.push((a.0, 0));
                }
                _ => {
                    let Some(turn) = turns.last_mut() else {
                        return Err(TestCaseError::fail("an event before the first switch"));
                    };
                    if let Event::Access(a) = e {
                        prop_assert_eq!(a.asid.0, turn.0);
                        turn.1 += 1;
                    }
                    parts[turn.0 as usize - 1].push(*e);
                }
            }
        }
        let switches = turns.len() as u64;
        // Every turn but the last is at most a quantum, and one cut short
        // means that source had ended.
        for (k, &(asid, n)) in turns.iter().enumerate().rev().skip(1) {
            prop_assert!(n <= quantum, "turn {} of asid {} made {} accesses", k, asid, n);
            if n < quantum {
                prop_assert!(turns[k + 1..].iter().all(|t| t.0 != asid), "asid {} ran again after ending", asid);
            }
        }
        prop_assert_eq!(switches, mix.switches());
        let dropped: usize = sources.iter().flatten().filter(|e| matches!(e, Event::ContextSwitch(_))).count();
        prop_assert_eq!(dropped as u64, mix.dropped_switches());
        for (i, (src, part)) in sources.iter().zip(&parts).enumerate() {
            let want: Vec<Event> = src
                .iter()
                .filter(|e| !matches!(e, Event::ContextSwitch(_)))
                .map(|e| match e {
                    Event::Access(a) => Event::Access(vmlab_trace::Access { asid: Asid(i as u32 + 1), ..*a }),
                    other => *other,
                })
                .collect();
            prop_assert_eq!(part, &want);
        }
    }
}
