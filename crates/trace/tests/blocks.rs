//! The basic-block encoding (`vmt-bb-v1`) against the simple references:
//! `PackedBlock::pack` for the words, the events themselves for a round
//! trip, and a direct check of the `FetchSkip` contract for the fetches the
//! decoder leaves out.

// Tests report failure by panicking.
#![allow(clippy::panic)]

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use vmlab_addr::{Asid, VirtAddr};
use vmlab_trace::vmt::blocks::{ITEMS_RESET, MAX_ITEMS, TABLE_RESET};
use vmlab_trace::vmt::packed::{ADDR_BITS, ADDR_MASK, PACKED_ESCAPE};
use vmlab_trace::vmt::Encoding;
use vmlab_trace::{
    AccessKind, Event, EventSource as _, FetchSkip, PackedBlock, VmtHeader, VmtOptions, VmtReader, VmtWriter,
};

/// A program-like trace: a few basic blocks (start, instruction sizes, data
/// references) run in a random order, their data walking arrays and stack
/// slots, with the odd context switch, flush, unusual size, asid change and
/// high address mixed in.
/// An instruction: its size, and its data references (kind, size).
type Instr = (u32, Vec<(AccessKind, u32)>);

fn program(rng: &mut Pcg64, n: usize) -> Vec<Event> {
    let blocks: Vec<(u64, Vec<Instr>)> = (0..rng.gen_range(1..40))
        .map(|_| {
            let start = 0x40_0000 + rng.gen_range(0..0x4000u64);
            let instrs = (0..rng.gen_range(1..12))
                .map(|_| {
                    let data = (0..rng.gen_range(0..3))
                        .map(|_| {
                            let k = [AccessKind::Load, AccessKind::Store, AccessKind::Modify][rng.gen_range(0..3)];
                            (k, 1 << rng.gen_range(0..4))
                        })
                        .collect();
                    (rng.gen_range(1..16), data)
                })
                .collect();
            (start, instrs)
        })
        .collect();
    let mut out = Vec::new();
    let mut asid = 0;
    let mut array = 0x60_0000u64;
    while out.len() < n {
        match rng.gen_range(0..100) {
            0 => {
                asid = rng.gen_range(0..3);
                out.push(Event::ContextSwitch(vmlab_addr::Asid(asid)));
            }
            1 => out.push(Event::FlushAll),
            2 => out.push(Event::access(AccessKind::Load, VirtAddr(rng.gen_range(0..1 << 20)), 3, Asid(asid))),
            3 => out.push(Event::access(AccessKind::Store, VirtAddr(ADDR_MASK - rng.gen_range(0..64)), 8, Asid(asid))),
            4 => out.push(Event::access(AccessKind::Load, VirtAddr(0x7000), 4, Asid(asid + 1))),
            5 => out.push(Event::access(AccessKind::Load, VirtAddr(rng.gen()), 8, Asid(asid))),
            _ => {
                let (start, instrs) = &blocks[rng.gen_range(0..blocks.len())];
                // Sometimes leave the block early (a taken branch).
                let upto = if rng.gen_bool(0.2) { rng.gen_range(1..=instrs.len()) } else { instrs.len() };
                let mut pc = *start;
                for (size, data) in &instrs[..upto] {
                    out.push(Event::access(AccessKind::Ifetch, VirtAddr(pc), *size, Asid(asid)));
                    pc += u64::from(*size);
                    for (j, &(kind, dsize)) in data.iter().enumerate() {
                        let addr = match j {
                            0 => 0x7ff0_0000 + 8 * rng.gen_range(0..4u64),
                            _ => {
                                array += u64::from(dsize);
                                array
                            }
                        };
                        out.push(Event::access(kind, VirtAddr(addr), dsize, Asid(asid)));
                    }
                }
            }
        }
    }
    out
}

fn write(events: &[Event], block_events: usize) -> Vec<u8> {
    let opts = VmtOptions { block_events, encoding: Encoding::BasicBlocks, ..VmtOptions::default() };
    let mut w = VmtWriter::with_options(Vec::new(), VmtHeader::default(), opts).expect("header");
    w.write_all(events).expect("write");
    w.finish().expect("finish")
}

#[test]
fn round_trips_as_events_and_as_packed_words() {
    let mut rng = Pcg64::seed_from_u64(0xb10c);
    for case in 0..60 {
        let n = rng.gen_range(1..5000);
        let events = program(&mut rng, n);
        let block_events = if case % 3 == 0 { rng.gen_range(1..50) } else { 65536 };
        let bytes = write(&events, block_events);
        let mut r = VmtReader::new(&bytes[..], "mem").expect("open");
        assert_eq!(r.encoding(), Encoding::BasicBlocks);
        let (mut all, mut buf) = (Vec::new(), Vec::new());
        while r.fill(&mut buf).expect("fill") {
            all.extend_from_slice(&buf);
        }
        assert_eq!(all, events, "case {case}");
        let mut r = VmtReader::new(&bytes[..], "mem").expect("open");
        let mut p = PackedBlock::new();
        let mut at = 0;
        while r.fill_packed(&mut p).expect("fill") {
            let block = &events[at..at + p.len()];
            let mut want = PackedBlock::new();
            want.pack(block);
            assert_eq!((p.words(), &p.extra, p.skipped), (want.words(), &want.extra, 0), "case {case} at {at}");
            at += p.len();
        }
        assert_eq!(at, events.len());
    }
}

/// Checks that `got` is `block` with only fetches dropped that `skip`
/// allows (see `FetchSkip`), and returns how many were dropped.
fn check_contract(block: &[Event], got: &PackedBlock, skip: FetchSkip) -> u64 {
    let mut full = PackedBlock::new();
    full.pack(block);
    let mut kept = got.words().iter().peekable();
    let mut dropped = 0;
    let mut fetch_line: Option<u64> = None;
    let s = skip.line_shift;
    for &w in full.words() {
        let op = (w >> ADDR_BITS) as u8;
        if kept.peek() == Some(&&w) {
            kept.next();
            if op == PACKED_ESCAPE {
                fetch_line = None;
            } else if op < 15 {
                let a = w & ADDR_MASK;
                fetch_line = Some((a + u64::from(op)) >> s);
            } else if !skip.across_data {
                fetch_line = None;
            }
            continue;
        }
        // Dropped: a fetch within the last line of the previous fetch.
        assert!(op < 15, "a non-fetch word {w:#x} was dropped");
        let a = w & ADDR_MASK;
        let (first, last) = (a >> s, (a + u64::from(op)) >> s);
        assert!(first == last && fetch_line == Some(first), "fetch {a:#x} dropped without leave ({skip:?})");
        dropped += 1;
    }
    assert!(kept.next().is_none(), "words left that the block does not have");
    assert_eq!(got.extra, full.extra);
    assert_eq!(got.skipped, dropped);
    dropped
}

#[test]
fn dropped_fetches_are_only_those_the_consumer_allows() {
    let mut rng = Pcg64::seed_from_u64(0x5c1b);
    let mut total = [0u64; 2];
    for case in 0..60 {
        let n = rng.gen_range(1..5000);
        let events = program(&mut rng, n);
        let bytes = write(&events, if case % 2 == 0 { rng.gen_range(1..80) } else { 65536 });
        let skip = FetchSkip { line_shift: rng.gen_range(2..9), across_data: rng.gen_bool(0.5) };
        let mut r = VmtReader::new(&bytes[..], "mem").expect("open");
        let mut p = PackedBlock::new();
        p.fetch_skip = Some(skip);
        let mut at = 0usize;
        while r.fill_packed(&mut p).expect("fill") {
            let n = p.events() as usize;
            total[usize::from(skip.across_data)] += check_contract(&events[at..at + n], &p, skip);
            at += n;
            // The consumer may change its mind between blocks.
            if rng.gen_bool(0.1) {
                p.fetch_skip = None;
            } else {
                p.fetch_skip = Some(skip);
            }
        }
        assert_eq!(at, events.len(), "case {case}");
    }
    // The test bites: many fetches were dropped, with and without data between.
    assert!(total[0] > 3_000 && total[1] > total[0], "{total:?}");
}

/// Past `TABLE_RESET` distinct shapes the writer starts a new table; the
/// reader follows, and nothing changes in what comes out.
#[test]
fn table_resets_keep_the_trace() {
    let events: Vec<Event> = (0..TABLE_RESET as u64 + 30_000)
        .flat_map(|i| {
            let pc = 0x1000 + 64 * i;
            [
                Event::access(AccessKind::Ifetch, VirtAddr(pc), 4, Asid(0)),
                Event::access(AccessKind::Ifetch, VirtAddr(pc + 4), 2, Asid(0)),
            ]
        })
        .chain((0..1000).map(|i| Event::access(AccessKind::Ifetch, VirtAddr(0x1000 + 64 * (i % 7)), 4, Asid(0))))
        .collect();
    let bytes = write(&events, 65536);
    let mut r = VmtReader::new(&bytes[..], "mem").expect("open");
    let (mut all, mut buf) = (Vec::new(), Vec::new());
    while r.fill(&mut buf).expect("fill") {
        all.extend_from_slice(&buf);
    }
    assert_eq!(all, events);
}

/// Long shapes reach `ITEMS_RESET` before `TABLE_RESET`; the writer resets
/// then too (else the reader, which holds at most `MAX_TABLE_ITEMS`, would
/// refuse the file).
#[test]
fn long_shapes_reset_the_table_too() {
    let shapes = ITEMS_RESET / MAX_ITEMS + 5_000;
    assert!(shapes < TABLE_RESET);
    let events: Vec<Event> = (0..shapes as u64)
        .flat_map(|i| {
            (0..MAX_ITEMS as u64).map(move |j| Event::access(AccessKind::Ifetch, VirtAddr((i << 12) + j), 1, Asid(0)))
        })
        .collect();
    let bytes = write(&events, 65536);
    let mut r = VmtReader::new(&bytes[..], "mem").expect("open");
    let (mut n, mut buf) = (0, Vec::new());
    while r.fill(&mut buf).expect("fill") {
        assert_eq!(buf[..], events[n..n + buf.len()]);
        n += buf.len();
    }
    assert_eq!(n, events.len());
}

#[test]
fn the_delta_encoding_is_still_read() {
    let mut rng = Pcg64::seed_from_u64(7);
    let events = program(&mut rng, 3000);
    let opts = VmtOptions { encoding: Encoding::Delta, ..VmtOptions::default() };
    let mut w = VmtWriter::with_options(Vec::new(), VmtHeader::default(), opts).expect("header");
    w.write_all(&events).expect("write");
    let bytes = w.finish().expect("finish");
    let mut r = VmtReader::new(&bytes[..], "mem").expect("open");
    assert_eq!(r.encoding(), Encoding::Delta);
    assert_eq!(r.header().encoding, "vmt-delta-v1");
    let (mut all, mut buf) = (Vec::new(), Vec::new());
    while r.fill(&mut buf).expect("fill") {
        all.extend_from_slice(&buf);
    }
    assert_eq!(all, events);
}

/// `info` names a `.vmt` file's encoding; other formats have none.
#[test]
fn info_names_the_encoding() {
    let events = program(&mut Pcg64::seed_from_u64(3), 500);
    let v2 = write(&events, 65536);
    let opts = VmtOptions { encoding: Encoding::Delta, ..VmtOptions::default() };
    let mut w = VmtWriter::with_options(Vec::new(), VmtHeader::default(), opts).expect("header");
    w.write_all(&events).expect("write");
    let v1 = w.finish().expect("finish");
    for (bytes, want) in [(v2, "vmt-bb-v1 (.vmt version 2)"), (v1, "vmt-delta-v1 (.vmt version 1)")] {
        let mut r = VmtReader::new(&bytes[..], "mem").expect("open");
        let info = vmlab_trace::info(&mut r).expect("info");
        assert_eq!(info.encoding.as_deref(), Some(want));
        assert_eq!(info.events, events.len() as u64);
        assert!(info.to_string().starts_with("encoding"), "{info}");
    }
    let mut lackey = Vec::new();
    vmlab_trace::write_lackey(&mut lackey, &events).expect("lackey");
    let mut r = vmlab_trace::LackeyReader::new(&lackey[..], "mem");
    assert_eq!(vmlab_trace::info(&mut r).expect("info").encoding, None);
}

#[test]
fn basic_blocks_are_smaller_than_deltas() {
    let mut rng = Pcg64::seed_from_u64(11);
    let events = program(&mut rng, 200_000);
    let bb = write(&events, 65536).len();
    let opts = VmtOptions { encoding: Encoding::Delta, ..VmtOptions::default() };
    let mut w = VmtWriter::with_options(Vec::new(), VmtHeader::default(), opts).expect("header");
    w.write_all(&events).expect("write");
    let delta = w.finish().expect("finish").len();
    assert!(bb < delta, "basic blocks {bb} bytes, deltas {delta}");
}

/// Shapes of every length from 1 to `MAX_ITEMS` items, run in a random
/// order: the decoder copies a shape's view in fixed-size pieces (8, 16, 32,
/// 48, 64 words), so a view whose tail piece were left out would show the
/// words an earlier, different execution left there.
#[test]
fn views_of_every_length_are_copied_whole() {
    let mut rng = Pcg64::seed_from_u64(0x64);
    // Per length: its start and items (true: a data reference).
    let shapes: Vec<(u64, Vec<bool>)> = (1..=MAX_ITEMS)
        .map(|len| {
            let items = (0..len).map(|i| i > 0 && rng.gen_bool(0.3)).collect();
            (0x40_0000 + 0x1_0000 * len as u64, items)
        })
        .collect();
    let mut events = Vec::new();
    while events.len() < 40_000 {
        let (start, items) = &shapes[rng.gen_range(0..shapes.len())];
        let mut pc = *start;
        for &data in items {
            if data {
                events.push(Event::access(AccessKind::Load, VirtAddr(rng.gen_range(0..1 << 30)), 8, Asid(0)));
            } else {
                events.push(Event::access(AccessKind::Ifetch, VirtAddr(pc), 4, Asid(0)));
                pc += 4;
            }
        }
    }
    let bytes = write(&events, 65536);
    for skip in [
        None,
        Some(FetchSkip { line_shift: 2, across_data: true }),
        Some(FetchSkip { line_shift: 4, across_data: false }),
    ] {
        let mut r = VmtReader::new(&bytes[..], "mem").expect("open");
        let mut p = PackedBlock::new();
        p.fetch_skip = skip;
        let mut at = 0usize;
        while r.fill_packed(&mut p).expect("fill") {
            let n = p.events() as usize;
            let block = &events[at..at + n];
            match skip {
                None => {
                    let mut want = PackedBlock::new();
                    want.pack(block);
                    assert_eq!((p.words(), &p.extra, p.skipped), (want.words(), &want.extra, 0), "at {at}");
                }
                Some(s) => _ = check_contract(block, &p, s),
            }
            at += n;
        }
        assert_eq!(at, events.len());
    }
}

/// Under `FetchSkip::EVERY_FETCH` the v2 reader and `pack` drop every
/// fetch word, a raw event's too, and say so (`holds_no_fetch`): the
/// words are the block's with its direct fetch words taken out, `skipped`
/// counts those. The v1 reader keeps every fetch and does not say so, nor
/// does any other rule. Every rule is within it.
#[test]
fn every_fetch_leaves_no_fetch_word() {
    let mut rng = Pcg64::seed_from_u64(0xe7e5);
    let mut v1_kept = 0;
    for case in 0..40 {
        let n = rng.gen_range(1..5000);
        let mut events = program(&mut rng, n);
        // A fetch that no shape can hold (it runs past 2^56): a raw event
        // with a direct word.
        let at = rng.gen_range(0..=events.len());
        events.insert(at, Event::access(AccessKind::Ifetch, VirtAddr(ADDR_MASK - 1), 4, Asid(0)));
        let block_events = if case % 2 == 0 { rng.gen_range(1..80) } else { 65536 };
        for encoding in [Encoding::BasicBlocks, Encoding::Delta] {
            let opts = VmtOptions { block_events, encoding, ..VmtOptions::default() };
            let mut w = VmtWriter::with_options(Vec::new(), VmtHeader::default(), opts).expect("header");
            w.write_all(&events).expect("write");
            let bytes = w.finish().expect("finish");
            let mut r = VmtReader::new(&bytes[..], "mem").expect("open");
            let mut p = PackedBlock::with_fetch_skip(Some(FetchSkip::EVERY_FETCH));
            let mut at = 0usize;
            while r.fill_packed(&mut p).expect("fill") {
                let block = &events[at..at + p.events() as usize];
                let mut full = PackedBlock::new();
                full.pack(block);
                assert!(!full.holds_no_fetch());
                let data: Vec<u64> = full.words().iter().copied().filter(|w| (w >> ADDR_BITS) as u8 >= 15).collect();
                let mut packed = PackedBlock::with_fetch_skip(Some(FetchSkip::EVERY_FETCH));
                packed.pack(block);
                assert!(packed.holds_no_fetch());
                let want = (&data[..], &full.extra, (full.len() - data.len()) as u64);
                assert_eq!((packed.words(), &packed.extra, packed.skipped), want, "case {case} at {at}");
                // The v1 reader packs a block with an address near 2^56 from
                // its events (`decode_block_packed`), which drops them too.
                if encoding == Encoding::BasicBlocks || p.holds_no_fetch() {
                    assert!(p.holds_no_fetch(), "case {case} at {at}");
                    assert_eq!((p.words(), &p.extra, p.skipped), want, "case {case} at {at}");
                } else {
                    assert_eq!((p.words(), p.skipped), (full.words(), 0), "case {case} at {at}");
                    v1_kept += 1;
                }
                at += p.events() as usize;
            }
            assert_eq!(at, events.len(), "case {case}");
        }
    }
    assert!(v1_kept > 40, "{v1_kept}");
    let rules = [
        FetchSkip { line_shift: 2, across_data: false },
        FetchSkip { line_shift: FetchSkip::MAX_SHIFT, across_data: true },
    ];
    for s in rules {
        assert!(s.within(FetchSkip::EVERY_FETCH) && !FetchSkip::EVERY_FETCH.within(s), "{s:?}");
        let mut p = PackedBlock::with_fetch_skip(Some(s));
        p.pack(&[Event::access(AccessKind::Ifetch, VirtAddr(0x100), 4, Asid(0))]);
        assert!(!p.holds_no_fetch() && p.len() == 1);
    }
}
