//! Dropped instruction fetches (`vmlab_trace::FetchSkip`): exact counts on
//! a small trace worked out by hand, the machines' allowances, the refusal
//! of blocks dropped under another rule, error messages that stay honest,
//! and a whole `Machine::run` over a source that drops fetches. The
//! property tests against the naive simulator are in engine_vs_naive.rs.

use vmlab_addr::{Asid, PageSize, VirtAddr};
use vmlab_cache::{CacheConfig, Indexing, RefKind};
use vmlab_machine::{Machine, MachineConfig, MemoryConfig, Progress, RunError, RunResult};
use vmlab_trace::{AccessKind, Event, EventSource, FetchSkip, PackedBlock, TraceError};

/// Direct-mapped write-back caches of 16 sets of 16-byte lines, VIVT with
/// ASID tags (jm-base's shape at a small size): split or unified.
fn machine(split: bool, memory: u64) -> Machine {
    let mut cfg = MachineConfig::bare("skip", MemoryConfig::sequential(PageSize::new(4096).expect("page"), memory));
    let mut c = CacheConfig::simple(256, 16, 1);
    c.indexing = Indexing::Vivt;
    c.asid_tags = true;
    if split {
        (cfg.l1i, cfg.l1d) = (Some(c.clone()), Some(c));
    } else {
        cfg.l1 = Some(c);
    }
    Machine::new(cfg).expect("valid machine")
}

fn i(addr: u64, size: u32) -> Event {
    Event::access(AccessKind::Ifetch, VirtAddr(addr), size, Asid(0))
}

/// Six events (16-byte lines, line n = addresses 16n..16n+15):
/// 1. fetch 0x100+4: line 0x10, a miss;
/// 2. fetch 0x104+4: line 0x10 again: droppable;
/// 3. load 0x2000+8: a data word (line 0x200, a miss);
/// 4. fetch 0x108+4: line 0x10 again: droppable across data only;
/// 5. fetch 0x10c+8: 0x10c..=0x113, lines 0x10 (hit) and 0x11 (miss): kept;
/// 6. fetch 0x114+2: line 0x11, the last line of fetch 5: droppable.
fn six() -> Vec<Event> {
    vec![
        i(0x100, 4),
        i(0x104, 4),
        Event::access(AccessKind::Load, VirtAddr(0x2000), 8, Asid(0)),
        i(0x108, 4),
        i(0x10c, 8),
        i(0x114, 2),
    ]
}

fn packed(events: &[Event], skip: Option<FetchSkip>) -> PackedBlock {
    let mut b = PackedBlock::new();
    b.fetch_skip = skip;
    b.pack(events);
    b
}

/// (accesses, misses) of `kind` in cache `n`.
fn counts(r: &RunResult, n: usize, kind: RefKind) -> (u64, u64) {
    let s = r.caches[n].stats.kind(kind);
    (s.accesses, s.misses)
}

#[test]
fn allowances_follow_the_top_level() {
    let skip = |split| machine(split, 1 << 20).fetch_skip();
    assert_eq!(skip(true), Some(FetchSkip { line_shift: 4, across_data: true }));
    assert_eq!(skip(false), Some(FetchSkip { line_shift: 4, across_data: false }));
    // The shipped preset (split VIVT direct-mapped, 16-byte lines) and the
    // benchmark machine (split VIPT 8-way LRU, 64-byte lines, over a PIPT L2).
    let jm = Machine::from_preset("jm-base", &[]).expect("preset");
    assert_eq!(jm.fetch_skip(), Some(FetchSkip { line_shift: 4, across_data: true }));
    let bench = concat!(env!("CARGO_MANIFEST_DIR"), "/../../bench/machines/l1-32k8-l2-1m16.toml");
    let big = Machine::from_preset(bench, &[]).expect("bench machine");
    assert_eq!(big.fetch_skip(), Some(FetchSkip { line_shift: 6, across_data: true }));
}

#[test]
fn six_events_split_top_worked_by_hand() {
    let mut m = machine(true, 1 << 20);
    let b = packed(&six(), m.fetch_skip());
    // Fetches 2, 4 and 6 dropped.
    assert_eq!((b.len(), b.skipped, b.events()), (3, 3, 6));
    m.feed_packed(&b, "six", 0).expect("runs");
    let r = m.result("six");
    assert_eq!((r.events.ifetch, r.events.load, r.instructions), (5, 1, 5));
    // l1i: fetch 1 miss; 2 hit; 4 hit; 5 a hit in 0x10 and a miss in 0x11; 6 hit.
    assert_eq!(r.caches[0].name, "l1i");
    assert_eq!(counts(&r, 0, RefKind::Ifetch), (6, 2));
    assert_eq!(counts(&r, 1, RefKind::Read), (1, 1));
    assert_eq!((r.memory.reads, r.memory.bytes_read), (3, 48));
    // The same without dropping anything, and through `feed` (which packs
    // with the machine's allowance).
    let mut plain = machine(true, 1 << 20);
    plain.feed_packed(&packed(&six(), None), "six", 0).expect("runs");
    assert_eq!(plain.result("six"), r);
    let mut fed = machine(true, 1 << 20);
    fed.feed(&six(), "six", 0).expect("runs");
    assert_eq!(fed.result("six"), r);
}

#[test]
fn six_events_unified_top_worked_by_hand() {
    let mut m = machine(false, 1 << 20);
    let b = packed(&six(), m.fetch_skip());
    // The load stops fetch 4's drop: fetches 2 and 6 only.
    assert_eq!((b.len(), b.skipped), (4, 2));
    m.feed_packed(&b, "six", 0).expect("runs");
    let r = m.result("six");
    assert_eq!(r.events.ifetch, 5);
    // l1: the load's line 0x200 falls in set 0 with line 0x10 and evicts
    // it, so fetch 4 misses (which is why a unified top may not drop
    // across data): fetch 1 miss, 2 hit, 4 miss (refilling 0x10), 5 a hit
    // in 0x10 and a miss in 0x11, 6 hit.
    assert_eq!(counts(&r, 0, RefKind::Ifetch), (6, 3));
    assert_eq!(counts(&r, 0, RefKind::Read), (1, 1));
    let mut plain = machine(false, 1 << 20);
    plain.feed_packed(&packed(&six(), None), "six", 0).expect("runs");
    assert_eq!(plain.result("six"), r);
}

#[test]
fn weaker_rules_are_accepted_with_the_same_result() {
    let mut want = machine(true, 1 << 20);
    want.feed_packed(&packed(&six(), None), "six", 0).expect("runs");
    let want = want.result("six");
    // 8-byte lines are halves of the machine's 16-byte lines; stopping at
    // data drops a subset.
    for skip in [FetchSkip { line_shift: 3, across_data: true }, FetchSkip { line_shift: 4, across_data: false }] {
        let b = packed(&six(), Some(skip));
        assert!(b.skipped > 0, "{skip:?}");
        let mut m = machine(true, 1 << 20);
        m.feed_packed(&b, "six", 0).expect("accepted");
        assert_eq!(m.result("six"), want, "{skip:?}");
    }
}

#[test]
fn blocks_dropped_under_another_rule_are_refused() {
    let refused = |split: bool, given: Option<FetchSkip>, skipped: u64| {
        let mut b = packed(&six(), given);
        // A source that claims drops without leave (fetch_skip None) too.
        b.skipped = skipped;
        let mut m = machine(split, 1 << 20);
        let err = m.feed_packed(&b, "odd.vmt", 7).expect_err("refused");
        assert!(matches!(err, RunError::FetchSkip { first: 7, .. }), "{err}");
        let msg = err.to_string();
        assert!(msg.starts_with("odd.vmt: block starting at event 7:"), "{msg}");
        // Nothing was applied.
        assert_eq!(m.result("odd").events.references(), 0);
    };
    // 32-byte lines: longer than the machine's.
    let b = packed(&six(), Some(FetchSkip { line_shift: 5, across_data: true }));
    refused(true, b.fetch_skip, b.skipped);
    // Across data in a unified top.
    refused(false, Some(FetchSkip { line_shift: 4, across_data: true }), 3);
    // Dropped without leave.
    refused(true, None, 1);
    // No fetch dropped: any leave is fine.
    let mut b = packed(&six(), Some(FetchSkip { line_shift: 9, across_data: true }));
    b.pack(&[i(0x100, 4), i(0x200, 4)]);
    assert_eq!(b.skipped, 0);
    machine(false, 1 << 20).feed_packed(&b, "x", 0).expect("nothing dropped");
}

#[test]
fn memory_errors_name_the_range_of_a_dropped_block() {
    // One 4 KiB frame: the load at 0x9000 needs a second one (event 2).
    let evs = [i(0x1000, 4), i(0x1004, 4), Event::access(AccessKind::Load, VirtAddr(0x9000), 4, Asid(0))];
    let mut m = machine(true, 4096);
    let b = packed(&evs, m.fetch_skip());
    assert_eq!(b.skipped, 1);
    let err = m.feed_packed(&b, "tiny", 10).expect_err("out of frames");
    assert!(matches!(err, RunError::Memory { event: 11, dropped: 1, .. }), "{err:?}");
    let msg = err.to_string();
    assert!(msg.starts_with("tiny: an event in 11..=12 (its block dropped 1 instruction fetches"), "{msg}");
    // Without drops the number is exact.
    let mut m = machine(true, 4096);
    let err = m.feed_packed(&packed(&evs, None), "tiny", 10).expect_err("out of frames");
    assert!(err.to_string().starts_with("tiny: event 12: "), "{err}");
}

/// Events handed out `chunk` at a time through `fill` only, so
/// `fill_packed` is the default: `PackedBlock::pack` under the leave the
/// run put on its buffers.
struct Chunks {
    events: Vec<Event>,
    at: usize,
    chunk: usize,
}

impl EventSource for Chunks {
    fn fill(&mut self, buf: &mut Vec<Event>) -> Result<bool, TraceError> {
        buf.clear();
        let end = (self.at + self.chunk).min(self.events.len());
        buf.extend_from_slice(&self.events[self.at..end]);
        self.at = end;
        Ok(!buf.is_empty())
    }
    fn progress(&self) -> (u64, Option<u64>) {
        (self.at as u64, Some(self.events.len() as u64))
    }
}

/// Straight-line code in runs of 1-9 instructions of 1-8 bytes, a load or
/// store after some, a context switch now and then: deterministic, no
/// randomness needed.
fn program(n: usize) -> Vec<Event> {
    let mut evs = Vec::new();
    let mut pc = 0x4000u64;
    let mut x = 12345u64;
    while evs.len() < n {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let r = x >> 33;
        let size = (r % 8) as u32 + 1;
        evs.push(Event::access(AccessKind::Ifetch, VirtAddr(pc), size, Asid(0)));
        pc += u64::from(size);
        match r % 11 {
            0 => pc = 0x4000 + (r >> 8) % 0x3000,
            1 | 2 => evs.push(Event::access(AccessKind::Load, VirtAddr(0x10_0000 + (r >> 4) % 0x8000), 8, Asid(0))),
            3 => evs.push(Event::access(AccessKind::Store, VirtAddr(0x10_0000 + (r >> 5) % 0x8000), 4, Asid(0))),
            4 if r % 97 == 4 => evs.push(Event::ContextSwitch(Asid(0))),
            _ => {}
        }
    }
    evs
}

#[test]
fn run_over_a_dropping_source_equals_a_plain_run() {
    let events = program(20_000);
    let run = |m: &mut Machine| {
        let mut seen = Vec::new();
        let mut src = Chunks { events: events.clone(), at: 0, chunk: 3000 };
        let r = m
            .run(&mut src, "prog", &mut |p: Progress| {
                seen.push(p.events);
                Ok(())
            })
            .expect("runs");
        (r, seen)
    };
    for split in [true, false] {
        let mut m = machine(split, 1 << 24);
        let skip = m.fetch_skip();
        // The source does drop fetches here.
        let dropped: u64 = events.chunks(3000).map(|c| packed(c, skip).skipped).sum();
        assert!(dropped > 1000, "{dropped}");
        let (r, seen) = run(&mut m);
        // Progress counts events, dropped fetches included.
        let want: Vec<u64> = (1..=7).map(|k| (k * 3000).min(events.len()) as u64).collect();
        assert_eq!(seen, want);
        // A plain run: the same events fed without any drop.
        let mut plain = machine(split, 1 << 24);
        for (k, c) in events.chunks(3000).enumerate() {
            plain.feed_packed(&packed(c, None), "prog", (k * 3000) as u64).expect("runs");
        }
        assert_eq!(r, plain.result("prog"), "split {split}");
        assert_eq!(r.events.references() + r.events.context_switches, events.len() as u64);
    }
}

/// A data-only machine: an L1D alone at level 1 (256 B, 16 B lines, 2
/// ways), a 1 KiB direct-mapped L2 under it.
fn data_only() -> Machine {
    let mut cfg = MachineConfig::bare("data", MemoryConfig::sequential(PageSize::new(4096).expect("page"), 1 << 24));
    cfg.l1d = Some(CacheConfig::simple(256, 16, 2));
    cfg.l2 = Some(CacheConfig::simple(1024, 16, 1));
    assert!(cfg.data_only());
    Machine::new(cfg).expect("a data-only machine")
}

/// A data-only machine takes a block whose source dropped every fetch word
/// (`FetchSkip::EVERY_FETCH`, `PackedBlock::holds_no_fetch`) as it is, to
/// its loop: every counter as when each block holds every fetch word (which
/// the machine takes out itself) and as the events one at a time, for
/// blocks packed by `PackedBlock::pack` and by the `.vmt` v2 reader.
#[test]
fn a_data_only_machine_counts_blocks_without_fetch_words_exactly() {
    let mut events = program(30_000);
    // Fetches that have no word in a block (escapes): another address
    // space, 16 bytes.
    events.insert(100, Event::access(AccessKind::Ifetch, VirtAddr(0x4000), 4, Asid(3)));
    events.insert(5000, Event::access(AccessKind::Ifetch, VirtAddr(0x4010), 16, Asid(0)));
    let fetches = events.iter().filter(|e| matches!(e, Event::Access(a) if a.kind == AccessKind::Ifetch)).count();

    let mut plain = data_only();
    for (k, c) in events.chunks(3000).enumerate() {
        let b = packed(c, None);
        assert!(!b.holds_no_fetch());
        plain.feed_packed(&b, "prog", (k * 3000) as u64).expect("runs");
    }
    let want = plain.result("prog");
    assert_eq!((want.fetches_not_simulated, want.events.ifetch), (fetches as u64, fetches as u64));
    assert!(want.caches[0].stats.misses() > 100, "{:?}", want.caches[0].stats);

    let mut stepped = data_only();
    for e in &events {
        stepped.step(e).expect("runs");
    }
    assert_eq!(stepped.result("prog"), want);

    let mut m = data_only();
    assert_eq!(m.fetch_skip(), Some(FetchSkip::EVERY_FETCH));
    for (k, c) in events.chunks(3000).enumerate() {
        let b = packed(c, m.fetch_skip());
        assert!(b.holds_no_fetch());
        assert!(b.words().iter().all(|w| (w >> 56) as u8 >= 15), "a fetch word left");
        m.feed_packed(&b, "prog", (k * 3000) as u64).expect("runs");
    }
    assert_eq!(m.result("prog"), want);

    let opts = vmlab_trace::VmtOptions {
        block_events: 3000,
        encoding: vmlab_trace::vmt::Encoding::BasicBlocks,
        ..vmlab_trace::VmtOptions::default()
    };
    let mut w =
        vmlab_trace::VmtWriter::with_options(Vec::new(), vmlab_trace::VmtHeader::default(), opts).expect("header");
    w.write_all(&events).expect("write");
    let bytes = w.finish().expect("finish");
    let mut r = vmlab_trace::VmtReader::new(&bytes[..], "prog").expect("open");
    let mut b = PackedBlock::with_fetch_skip(Some(FetchSkip::EVERY_FETCH));
    assert!(r.fill_packed(&mut b).expect("decodes") && b.holds_no_fetch() && b.skipped > 1000);
    let mut r = vmlab_trace::VmtReader::new(&bytes[..], "prog").expect("open");
    let got = data_only().run(&mut r, "prog", &mut |_: Progress| Ok(())).expect("runs");
    assert_eq!(got, want);
}
