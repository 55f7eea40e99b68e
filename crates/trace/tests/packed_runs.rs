//! Property tests for the packed `.vmt` decoder on traces shaped like real
//! ones: long runs of direct records (no escape for hundreds of events), as
//! the decoder's whole-run fast path (`decode_clean_chunks`) needs, with the
//! rare escape anywhere in a run, addresses on both sides of the 2^56 limit
//! of a packed word and near 0, and payloads ending at every distance from a
//! run's delta window. The reference is `PackedBlock::pack` of the events
//! themselves: no decoder involved.

// Tests report failure by panicking.
#![allow(clippy::panic)]

use proptest::prelude::*;
use vmlab_addr::{Asid, VirtAddr};
use vmlab_trace::vmt::testing as t;
use vmlab_trace::{AccessKind, Event, EventSource, PackedBlock, VmtHeader, VmtOptions, VmtReader, VmtWriter, BLOCK};

#[derive(Clone, Debug)]
enum Step {
    /// Exactly the prediction: the stream's previous address plus its size
    /// (no delta bytes; straight-line code, sequential data).
    Seq,
    /// Near the stream's previous address (1- and 2-byte deltas).
    Near(i16),
    /// Anywhere (up to 8 delta bytes).
    Far(u64),
    /// Near a region: code, heap, stack, 0, and both sides of 2^56.
    Region(u8, i16),
}

#[derive(Clone, Debug)]
enum Item {
    /// An access with a direct op (kind and size in the tag).
    Direct {
        op: u8,
        step: Step,
    },
    /// An escape: an access of a size without an op.
    OddSize {
        kind: u8,
        size: u32,
        step: Step,
    },
    Switch(u32),
    Flush,
}

/// Addresses that do not fit a packed word (at or above 2^56, or wrapped
/// below 0) make the whole block fall back to packing events, which would
/// hide a fast-path bug: they are rare, so most blocks stay on the fast path.
fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        1200 => Just(Step::Seq),
        600 => any::<i16>().prop_map(Step::Near),
        100 => (0u64..1 << 48).prop_map(Step::Far),
        200 => (0u8..4, any::<i16>()).prop_map(|(r, o)| Step::Region(r, o)),
        1 => any::<u64>().prop_map(Step::Far),
        1 => (4u8..7, any::<i16>()).prop_map(|(r, o)| Step::Region(r, o)),
    ]
}

fn item() -> impl Strategy<Value = Item> {
    prop_oneof![
        600 => (0u8..31, step()).prop_map(|(op, step)| Item::Direct { op, step }),
        2 => (0u8..4, 17u32..100, step()).prop_map(|(kind, size, step)| Item::OddSize { kind, size, step }),
        1 => (0u32..3).prop_map(Item::Switch),
        1 => Just(Item::Flush),
    ]
}

fn kind_of(k: u8) -> AccessKind {
    [AccessKind::Ifetch, AccessKind::Load, AccessKind::Store, AccessKind::Modify][usize::from(k & 3)]
}

fn events(items: Vec<Item>) -> Vec<Event> {
    const REGIONS: [u64; 7] =
        [0x400000, 0x5555_5555_0000, 0x1f_feff_f000, 0x8000, 1 << 56, (1 << 56) - 40, u64::MAX - 0xffff];
    let mut prev = [(0u64, 0u32); 2];
    let mut asid = 0u32;
    let mut access = |kind: AccessKind, size: u32, step: Step, asid: u32| {
        let s = usize::from(kind != AccessKind::Ifetch);
        let (last, last_size) = prev[s];
        let addr = match step {
            Step::Seq => last.wrapping_add(u64::from(last_size)),
            Step::Near(d) => last.wrapping_add(d as i64 as u64),
            Step::Far(a) => a,
            Step::Region(r, o) => REGIONS[usize::from(r) % REGIONS.len()].wrapping_add(o as i64 as u64),
        };
        prev[s] = (addr, size);
        Event::access(kind, VirtAddr(addr), size, Asid(asid))
    };
    items
        .into_iter()
        .map(|it| match it {
            Item::Direct { op, step } => {
                let (kind, size) = vmlab_trace::vmt::packed::OPS[usize::from(op)];
                access(kind, size, step, asid)
            }
            Item::OddSize { kind, size, step } => access(kind_of(kind), size, step, asid),
            Item::Switch(a) => {
                asid = a;
                Event::ContextSwitch(Asid(a))
            }
            Item::Flush => Event::FlushAll,
        })
        .collect()
}

fn packed(events: &[Event]) -> PackedBlock {
    let mut p = PackedBlock::new();
    p.pack(events);
    p
}

/// The file's blocks through `fill_packed`, concatenated.
fn read_packed(events: &[Event], block_events: usize) -> (Vec<u64>, Vec<Event>) {
    let opts = VmtOptions { block_events, ..VmtOptions::default() };
    let mut w = VmtWriter::with_options(Vec::new(), VmtHeader::default(), opts).expect("header");
    w.write_all(events).expect("write");
    let bytes = w.finish().expect("finish");
    let mut r = VmtReader::new(&bytes[..], "mem").expect("open");
    let (mut words, mut extra) = (Vec::new(), Vec::new());
    let mut buf = PackedBlock::new();
    while r.fill_packed(&mut buf).expect("fill") {
        // Blocks pack independently (each starts at asid 0): compare per block.
        let start = words.len();
        let block = &events[start..start + buf.len()];
        let want = packed(block);
        assert_eq!((buf.words(), &buf.extra), (want.words(), &want.extra), "block at event {start}");
        let mut back = Vec::new();
        buf.unpack(&mut back);
        assert_eq!(back, block, "block at event {start}");
        words.extend_from_slice(buf.words());
        extra.extend_from_slice(&buf.extra);
    }
    (words, extra)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// One payload: the packed decoder gives exactly the packed events.
    #[test]
    fn long_direct_runs_decode_to_the_packed_events(items in prop::collection::vec(item(), 0..3000)) {
        let ev = events(items);
        let want = packed(&ev);
        let got = t::decode_packed(&t::encode(&ev), ev.len());
        prop_assert_eq!(got.as_ref().map(|p| (p.words(), &p.extra)), Ok((want.words(), &want.extra)));
        // And the event decoder agrees.
        prop_assert_eq!(t::decode(&t::encode(&ev), ev.len()), Ok(ev));
    }

    /// Through files, at block sizes around the run length and the default.
    #[test]
    fn long_direct_runs_read_back_packed(items in prop::collection::vec(item(), 0..3000), block in 1usize..700) {
        let ev = events(items);
        for b in [block, BLOCK] {
            let (words, extra) = read_packed(&ev, b);
            prop_assert_eq!(words.len(), ev.len());
            prop_assert_eq!(extra.len(), words.iter().filter(|&&w| w >> 56 == 0xff).count());
        }
    }
}

/// A long run of sequential fetches whose addresses cross 2^56 in the middle
/// of a run: the block must be packed from events (addresses at or above
/// 2^56 do not fit a word), and give exactly what packing gives.
#[test]
fn a_run_crossing_the_packed_address_limit_is_exact() {
    for start in [(1u64 << 56) - 4096, (1 << 56) - 33, (1 << 56) - 32, (1 << 56) - 31, 0, 1, 31, 32] {
        let ev: Vec<Event> = (0..2000u64)
            .map(|i| Event::access(AccessKind::Ifetch, VirtAddr(start.wrapping_add(4 * i)), 4, Asid(0)))
            .collect();
        let want = packed(&ev);
        let got = t::decode_packed(&t::encode(&ev), ev.len()).expect("decodes");
        assert_eq!((got.words(), &got.extra), (want.words(), &want.extra), "start {start:#x}");
    }
    // Wrapping below 0 in the data stream in the middle of a run.
    let ev: Vec<Event> = (0..2000u64)
        .map(|i| Event::access(AccessKind::Load, VirtAddr(4000u64.wrapping_sub(8 * i)), 8, Asid(0)))
        .collect();
    let want = packed(&ev);
    let got = t::decode_packed(&t::encode(&ev), ev.len()).expect("decodes");
    assert_eq!((got.words(), &got.extra), (want.words(), &want.extra));
    assert!(!got.extra.is_empty(), "addresses that wrapped below 0 are escapes");
}

/// A payload whose data section ends inside a run (the record that owned the
/// last bytes now runs past the end, and the records after it start past
/// it): the packed decoder must reject it exactly as the event decoder does,
/// naming the same record and byte, wherever in a run that record sits.
#[test]
fn a_run_ending_past_the_payload_is_rejected_as_by_the_event_decoder() {
    for count in [64usize, 65, 100, 128, 300, 2000] {
        for at in [0, 1, 31, 32, 50, 62, 63, 64, 99, 127, 128, 1999] {
            if at >= count {
                continue;
            }
            // Sequential fetches (no delta bytes) but one data access far away
            // (several delta bytes), at `at`.
            let ev: Vec<Event> = (0..count as u64)
                .map(|i| {
                    if i as usize == at {
                        Event::access(AccessKind::Load, VirtAddr(0x7fff_1234_5678), 8, Asid(0))
                    } else {
                        Event::access(AccessKind::Ifetch, VirtAddr(0x400000 + 4 * i), 4, Asid(0))
                    }
                })
                .collect();
            let raw = t::encode(&ev);
            for cut in 1..=3 {
                let short = &raw[..raw.len() - cut];
                let events = t::decode(short, count);
                let packed = t::decode_packed(short, count).map(|p| (p.words().to_vec(), p.extra));
                let events_err = events.expect_err("a short payload is an error");
                assert_eq!(packed, Err(events_err), "count {count}, long record at {at}, {cut} bytes cut");
            }
        }
    }
}
