//! Property tests: any event sequence survives `.vmt` exactly, whatever the
//! block size; lackey and din round-trip what they can represent.

// Tests report failure by panicking.
#![allow(clippy::panic)]

use proptest::prelude::*;
use vmlab_addr::{Asid, VirtAddr};
use vmlab_trace::vmt::testing as t;
use vmlab_trace::{
    lackey, read_source, write_din, write_lackey, AccessKind, DinReader, Event, EventSource, LackeyReader, PackedBlock,
    VmtHeader, VmtOptions, VmtReader, VmtWriter, BLOCK,
};

#[derive(Clone, Debug)]
enum Step {
    /// Near the previous address: loops, stack frames, sequential code.
    Near(i16),
    /// Anywhere at all.
    Far(u64),
    /// Near one of the usual regions (code, heap, stack, kernel, the ends).
    Region(u8, u16),
}

#[derive(Clone, Debug)]
enum Item {
    Access {
        kind: AccessKind,
        size: u32,
        step: Step,
        asid: u32,
    },
    Switch(u32),
    Flush,
    /// A system-call marker and its arguments.
    Syscall {
        number: u16,
        ret: i64,
        asid: u32,
        args: Vec<u64>,
    },
}

fn kind() -> impl Strategy<Value = AccessKind> {
    prop_oneof![
        4 => Just(AccessKind::Ifetch),
        2 => Just(AccessKind::Load),
        2 => Just(AccessKind::Store),
        1 => Just(AccessKind::Modify),
    ]
}

fn size() -> impl Strategy<Value = u32> {
    prop_oneof![
        4 => 1u32..=16,
        2 => (0u32..=6).prop_map(|s| 1 << s),
        1 => 17u32..=4096,
        1 => 1u32..=u32::MAX,
    ]
}

fn asid() -> impl Strategy<Value = u32> {
    prop_oneof![8 => Just(0u32), 2 => 1u32..4, 1 => Just(u32::MAX), 1 => any::<u32>()]
}

fn item() -> impl Strategy<Value = Item> {
    let step = prop_oneof![
        6 => any::<i16>().prop_map(Step::Near),
        1 => any::<u64>().prop_map(Step::Far),
        2 => (0u8..6, any::<u16>()).prop_map(|(r, o)| Step::Region(r, o)),
    ];
    prop_oneof![
        20 => (kind(), size(), step, asid()).prop_map(|(kind, size, step, asid)| Item::Access { kind, size, step, asid }),
        1 => asid().prop_map(Item::Switch),
        1 => Just(Item::Flush),
        1 => (any::<u16>(), any::<i64>(), asid(), prop::collection::vec(any::<u64>(), 0..=6))
            .prop_map(|(number, ret, asid, args)| Item::Syscall { number, ret, asid, args }),
    ]
}

fn events(items: Vec<Item>) -> Vec<Event> {
    const REGIONS: [u64; 6] = [0x400000, 0x5555_5555_0000, 0x1f_feff_f000, 0xffff_ffff_8000_0000, 0, u64::MAX - 0xffff];
    let mut prev = 0u64;
    items
        .into_iter()
        .flat_map(|it| match it {
            Item::Access { kind, size, step, asid } => {
                prev = match step {
                    Step::Near(d) => prev.wrapping_add(d as i64 as u64),
                    Step::Far(a) => a,
                    Step::Region(r, o) => REGIONS[r as usize % REGIONS.len()].wrapping_add(u64::from(o)),
                };
                vec![Event::access(kind, VirtAddr(prev), size, Asid(asid))]
            }
            Item::Switch(a) => vec![Event::ContextSwitch(Asid(a))],
            Item::Flush => vec![Event::FlushAll],
            Item::Syscall { number, ret, asid, args } => {
                vmlab_trace::syscall::Call { number, asid: Asid(asid), ret, args }.events().collect()
            }
        })
        .collect()
}

fn vmt_round_trip(events: &[Event], block_events: usize) -> Vec<Event> {
    let opts = VmtOptions { block_events, ..VmtOptions::default() };
    let mut w = VmtWriter::with_options(Vec::new(), VmtHeader::default(), opts).expect("header");
    w.write_all(events).expect("write");
    assert_eq!(w.events_written(), events.len() as u64);
    let bytes = w.finish().expect("finish");
    let mut r = VmtReader::new(&bytes[..], "mem").expect("open");
    let mut out = Vec::new();
    let mut buf = Vec::new();
    while r.fill(&mut buf).expect("fill") {
        assert!(!buf.is_empty() && buf.len() <= block_events.min(BLOCK));
        out.extend_from_slice(&buf);
    }
    assert_eq!(r.progress().0, bytes.len() as u64);
    out
}

/// As `vmt_round_trip`, through `fill_packed` and `PackedBlock::unpack`.
fn vmt_round_trip_packed(events: &[Event], block_events: usize) -> Vec<Event> {
    let opts = VmtOptions { block_events, ..VmtOptions::default() };
    let mut w = VmtWriter::with_options(Vec::new(), VmtHeader::default(), opts).expect("header");
    w.write_all(events).expect("write");
    let bytes = w.finish().expect("finish");
    let mut r = VmtReader::new(&bytes[..], "mem").expect("open");
    let mut out = Vec::new();
    let mut buf = PackedBlock::new();
    while r.fill_packed(&mut buf).expect("fill") {
        assert!(!buf.is_empty() && buf.len() <= block_events.min(BLOCK));
        buf.unpack(&mut out);
    }
    assert!(buf.is_empty());
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn vmt_round_trips_exactly(items in prop::collection::vec(item(), 0..600), block in 1usize..12) {
        let ev = events(items);
        prop_assert_eq!(vmt_round_trip(&ev, block), ev.clone());
        prop_assert_eq!(vmt_round_trip(&ev, BLOCK), ev.clone());
        // The payload codec alone, as one block.
        prop_assert_eq!(t::decode(&t::encode(&ev), ev.len()), Ok(ev.clone()));
        // Packed decoding gives exactly the packed form of the events.
        let mut want = PackedBlock::new();
        want.pack(&ev);
        let got = t::decode_packed(&t::encode(&ev), ev.len());
        prop_assert_eq!(got.as_ref().map(|p| (p.words(), &p.extra)), Ok((want.words(), &want.extra)));
        let mut back = Vec::new();
        want.unpack(&mut back);
        prop_assert_eq!(&back, &ev);
        prop_assert_eq!(vmt_round_trip_packed(&ev, block), ev);
    }

    #[test]
    fn lackey_round_trips_accesses(items in prop::collection::vec(item(), 0..300)) {
        let ev: Vec<Event> = events(items)
            .into_iter()
            .filter_map(|e| match e {
                Event::Access(mut a) => {
                    a.asid = Asid(0);
                    // Into lackey's range for the kind (1 to 20 or 1 to 512).
                    a.size = (a.size - 1) % lackey::max_size(a.kind) + 1;
                    Some(Event::Access(a))
                }
                _ => None,
            })
            .collect();
        let mut text = Vec::new();
        let losses = write_lackey(&mut text, &ev).expect("write");
        prop_assert!(losses.is_lossless());
        let mut r = LackeyReader::new(&text[..], "mem");
        prop_assert_eq!(read_source(&mut r).expect("read"), ev);
    }

    #[test]
    fn din_round_trips_what_it_can_hold(items in prop::collection::vec(item(), 0..300)) {
        let ev: Vec<Event> = events(items)
            .into_iter()
            .filter_map(|e| match e {
                Event::Access(a) if a.kind != AccessKind::Modify => {
                    Some(Event::access(a.kind, VirtAddr(a.addr.0 & !3), 4, Asid(0)))
                }
                _ => None,
            })
            .collect();
        let mut text = Vec::new();
        let losses = write_din(&mut text, &ev).expect("write");
        prop_assert!(losses.is_lossless());
        let mut r = DinReader::new(&text[..], "mem");
        prop_assert_eq!(read_source(&mut r).expect("read"), ev);
    }
}

#[test]
fn large_trace_spans_many_blocks() {
    // More than one default block, with a context switch straddling a block edge.
    let mut ev = Vec::new();
    for i in 0..(BLOCK as u64 * 2 + 17) {
        if i == BLOCK as u64 - 1 {
            ev.push(Event::ContextSwitch(Asid(9)));
        }
        let asid = if i >= BLOCK as u64 - 1 { 9 } else { 0 };
        ev.push(Event::access(AccessKind::Ifetch, VirtAddr(0x400000 + (i * 4) % 65536), 4, Asid(asid)));
        if i % 3 == 0 {
            ev.push(Event::access(AccessKind::Load, VirtAddr(0x7fff_0000 - (i % 512) * 8), 8, Asid(asid)));
        }
    }
    assert_eq!(vmt_round_trip(&ev, BLOCK), ev);
}

#[test]
fn unfinished_writer_leaves_a_detectably_truncated_file() {
    let mut bytes = Vec::new();
    let mut w = VmtWriter::with_options(
        &mut bytes,
        VmtHeader::default(),
        VmtOptions { block_events: 2, zstd_level: 1, ..VmtOptions::default() },
    )
    .expect("header");
    w.write_all(&[Event::FlushAll; 5]).expect("write");
    assert_eq!(w.events_written(), 5);
    drop(w); // no finish(): two blocks are out, the fifth event and the end block are not
    let mut r = VmtReader::new(&bytes[..], "mem").expect("open");
    let mut buf = Vec::new();
    assert!(r.fill(&mut buf).expect("block 1"));
    assert!(r.fill(&mut buf).expect("block 2"));
    let err = r.fill(&mut buf).expect_err("no end block");
    assert!(err.message.contains("missing end block: the file ends after 2 blocks (4 events)"), "{err}");
    assert_eq!(err.location, vmlab_trace::Location::Offset(bytes.len() as u64));
    // The error sticks.
    assert_eq!(r.fill(&mut buf).expect_err("still failed"), err);
    assert!(buf.is_empty());

    let size_zero = VmtWriter::new(Vec::new(), VmtHeader::default()).expect("header").write(&Event::access(
        AccessKind::Load,
        VirtAddr(0),
        0,
        Asid(0),
    ));
    assert!(size_zero.is_err());
}

#[test]
fn writer_refuses_a_system_call_without_its_arguments() {
    use vmlab_trace::Syscall;
    let head = |nargs| Event::Syscall(Syscall { ret: 0, asid: Asid(1), number: 0, nargs });
    let write = |events: &[Event]| -> Result<Vec<u8>, String> {
        let mut w = VmtWriter::new(Vec::new(), VmtHeader::default()).map_err(|e| e.to_string())?;
        w.write_all(events).map_err(|e| e.to_string())?;
        w.finish().map_err(|e| e.to_string())
    };
    assert!(write(&[head(1), Event::SyscallArg(3)]).is_ok());
    assert_eq!(
        write(&[Event::FlushAll, Event::SyscallArg(3)]),
        Err("event 1: a system-call argument without its system call before it".into())
    );
    assert_eq!(
        write(&[head(2), Event::SyscallArg(3), Event::FlushAll]),
        Err("event 2: a system call's arguments were cut short (1 more were due)".into())
    );
    assert_eq!(write(&[head(2)]), Err("event 1: a system call's arguments were cut short (2 more were due)".into()));
    assert_eq!(write(&[head(7)]), Err("event 0: system call read with 7 arguments; at most 6".into()));
}

#[test]
fn header_round_trips() {
    let mut h = VmtHeader::new("test suite");
    h.command = Some(vec!["ls".into(), "-l".into()]);
    h.metadata.insert("note".into(), "free-form".into());
    let bytes = VmtWriter::new(Vec::new(), h.clone()).expect("header").finish().expect("finish");
    let r = VmtReader::new(&bytes[..], "mem").expect("open");
    assert_eq!(r.header(), &h);
}
