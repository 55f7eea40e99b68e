//! Hand-written lackey and din files read to exact events; writers, format
//! detection and conversion between all three formats.

// Tests report failure by panicking.
#![allow(clippy::panic)]

use std::path::{Path, PathBuf};

use vmlab_trace::{
    convert, open, read_all, write_din, write_lackey, AccessKind, DinReader, Event, EventSource, LackeyReader, Losses,
    TraceFormat, VmtHeader, VmtWriter,
};

use vmlab_addr::{Asid, VirtAddr};
use AccessKind::{Ifetch, Load, Modify, Store};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name)
}

/// A scratch directory, removed when the test ends.
fn scratch() -> tempfile::TempDir {
    tempfile::Builder::new().prefix("vmlab-trace-tests-").tempdir().expect("temp dir")
}

fn ev(kind: AccessKind, addr: u64, size: u32) -> Event {
    Event::access(kind, VirtAddr(addr), size, Asid(0))
}

fn lackey_expected() -> Vec<Event> {
    vec![
        ev(Ifetch, 0x0401ab70, 3),
        ev(Ifetch, 0x0401ab73, 5),
        ev(Store, 0x1fff000758, 8),
        ev(Load, 0x04032e08, 8),
        ev(Modify, 0x1fff0006f0, 4),
        ev(Ifetch, 0x0401b770, 1),
        ev(Load, 0x1ffefff8b8, 16),
        ev(Load, u64::MAX, 1),
    ]
}

/// A hand-made log in valgrind 3.19's `--trace-syscalls=yes` forms (each
/// line taken from a real log): a forked child's own return from the fork
/// (skipped), a blocking read, a failed call, a clone whose result comes on
/// the next line, a wait4 interrupted by a signal (no result from valgrind:
/// -EINTR where the thread next calls), and a successful execve (no result:
/// 0 at the end of the log).
#[test]
fn lackey_syscalls_exact_events() {
    use vmlab_trace::syscall::Call;
    let call = |number, ret, args: &[u64]| -> Vec<Event> {
        Call { number, asid: Asid(5), ret, args: args.to_vec() }.events().collect()
    };
    let mut want = vec![ev(Ifetch, 0x491a353, 6)];
    want.extend(call(0, 1, &[4, 0x1fff00064f, 1]));
    want.push(ev(Store, 0x1fff00064f, 1));
    want.extend(call(21, -2, &[0x402a2a0, 4]));
    want.extend(call(9, 0x4835000, &[0, 8192, 3, 34, 4294967295, 0]));
    want.extend(call(56, 0x2ce6, &[0x1200011, 0, 0, 0x4a28a10, 0]));
    want.push(ev(Load, 0x4835000, 8));
    want.push(ev(Ifetch, 0x491a359, 2));
    // The interrupted wait4 where the thread next calls: its rt_sigreturn.
    want.extend(call(61, -4, &[4294967295, 0x1fff0002cc, 0, 0]));
    want.extend(call(15, 0, &[]));
    want.extend(call(61, 0x2ce6, &[4294967295, 0x1fff0002cc, 1, 0]));
    want.extend(call(59, 0, &[0x129950, 0x129978, 0x4035b98]));
    let want: Vec<Event> = want.into_iter().map(|e| with_asid(e, 5)).collect();
    let text = std::fs::read(data("syscalls.lackey")).expect("sample");
    let mut r = LackeyReader::new(&text[..], "syscalls.lackey").with_asid(Asid(5));
    let got = vmlab_trace::read_source(&mut r).expect("read");
    assert_eq!(got, want);
    vmlab_trace::syscall::check(&got).expect("every head with its arguments");
    // Through .vmt and back: the same events.
    let mut w = vmlab_trace::VmtWriter::new(Vec::new(), vmlab_trace::VmtHeader::default()).expect("header");
    w.write_all(&got).expect("write");
    let bytes = w.finish().expect("finish");
    let back =
        vmlab_trace::read_source(&mut vmlab_trace::VmtReader::new(&bytes[..], "mem").expect("open")).expect("read");
    assert_eq!(back, want);
}

fn with_asid(e: Event, asid: u32) -> Event {
    match e {
        Event::Access(mut a) => {
            a.asid = Asid(asid);
            Event::Access(a)
        }
        e => e,
    }
}

#[test]
fn lackey_sample_exact_events() {
    assert_eq!(read_all(&data("sample.lackey"), Some(TraceFormat::Lackey)).expect("read"), lackey_expected());
    // Detected: `.lackey` extension.
    assert_eq!(read_all(&data("sample.lackey"), None).expect("read"), lackey_expected());
}

#[test]
fn lackey_reader_with_asid_and_progress() {
    let text = std::fs::read(data("sample.lackey")).expect("sample");
    let mut r = LackeyReader::new(&text[..], "sample").with_asid(Asid(7)).with_total_len(text.len() as u64);
    let mut buf = Vec::new();
    assert!(r.fill(&mut buf).expect("fill"));
    assert_eq!(buf.len(), 8);
    assert!(buf.iter().all(|e| matches!(e, Event::Access(a) if a.asid.0 == 7)));
    assert!(!r.fill(&mut buf).expect("end"));
    assert!(buf.is_empty());
    assert_eq!(r.progress(), (text.len() as u64, Some(text.len() as u64)));
}

#[test]
fn din_sample_exact_events() {
    let expected = vec![
        ev(Ifetch, 0x401ab70, 4),
        ev(Ifetch, 0x401ab74, 4),
        ev(Load, 0x1fff000758, 4),
        // Dinero rounds addresses down to 4 bytes.
        ev(Store, 0x1fff000758, 4),
        // Only the first tuple of a line counts.
        ev(Store, 0x10, 4),
        ev(Ifetch, 0, 4),
    ];
    assert_eq!(read_all(&data("sample.din"), Some(TraceFormat::Din)).expect("read"), expected);
    assert_eq!(read_all(&data("sample.din"), None).expect("read"), expected);
    let text = std::fs::read(data("sample.din")).expect("sample");
    let mut r = DinReader::new(&text[..], "d").with_asid(Asid(3));
    let mut buf = Vec::new();
    assert!(r.fill(&mut buf).expect("fill"));
    assert_eq!(buf[0], Event::access(Ifetch, VirtAddr(0x401ab70), 4, Asid(3)));
}

#[test]
fn detects_by_content_and_magic() {
    let dir = scratch();
    // No telling extension: the first record line decides.
    let l = dir.path().join("noext_lackey");
    std::fs::copy(data("sample.lackey"), &l).expect("copy");
    assert_eq!(read_all(&l, None).expect("lackey by content"), lackey_expected());
    let d = dir.path().join("noext_din");
    std::fs::copy(data("sample.din"), &d).expect("copy");
    assert_eq!(read_all(&d, None).expect("din by content").len(), 6);
    // Magic beats a misleading extension.
    let v = dir.path().join("really_vmt.txt");
    let mut w = VmtWriter::new(std::fs::File::create(&v).expect("create"), VmtHeader::default()).expect("vmt");
    w.write_all(&lackey_expected()).expect("write");
    w.finish().expect("finish");
    assert_eq!(read_all(&v, None).expect("vmt by magic"), lackey_expected());
    // Neither.
    let g = dir.path().join("garbage");
    std::fs::write(&g, "hello world\n").expect("write");
    let err = read_all(&g, None).expect_err("undetectable");
    assert_eq!(err.location, vmlab_trace::Location::Line(1));
    assert!(err.message.contains("cannot tell the trace format"), "{err}");
    let err = match open(Path::new("/nonexistent/trace.vmt"), None) {
        Err(e) => e,
        Ok(_) => panic!("opened a missing file"),
    };
    assert_eq!(err.location, vmlab_trace::Location::File);
    assert!(err.message.contains("cannot open"), "{err}");
}

#[test]
fn format_names() {
    for f in TraceFormat::ALL {
        assert_eq!(TraceFormat::from_name(f.name()), Ok(f));
    }
    assert_eq!(TraceFormat::from_name("VMT"), Ok(TraceFormat::Vmt));
    let err = TraceFormat::from_name("pin").expect_err("unknown");
    assert!(err.contains("lackey, din, vmt"), "{err}");
}

#[test]
fn lackey_writer_round_trips() {
    let mut text = Vec::new();
    let losses = write_lackey(&mut text, &lackey_expected()).expect("write");
    assert!(losses.is_lossless(), "{losses}");
    let mut r = LackeyReader::new(&text[..], "mem");
    assert_eq!(vmlab_trace::read_source(&mut r).expect("read back"), lackey_expected());
}

#[test]
fn din_writer_is_lossy_as_documented() {
    let events = vec![
        ev(Ifetch, 0x1000, 4),
        ev(Modify, 0x2002, 8),
        Event::ContextSwitch(vmlab_addr::Asid(3)),
        Event::access(Load, VirtAddr(0x3000), 4, Asid(3)),
        Event::FlushAll,
    ];
    let mut text = Vec::new();
    let losses = write_din(&mut text, &events).expect("write");
    assert_eq!(String::from_utf8_lossy(&text), "2 1000\n0 2002\n1 2002\n0 3000\n");
    assert_eq!(
        losses,
        Losses {
            asids_dropped: 1,
            context_switches_dropped: 1,
            flushes_dropped: 1,
            syscalls_dropped: 0,
            sizes_changed: 1,
            modifies_split: 1,
            unaligned: 1
        }
    );
    let mut r = DinReader::new(&text[..], "mem");
    assert_eq!(
        vmlab_trace::read_source(&mut r).expect("read back"),
        vec![ev(Ifetch, 0x1000, 4), ev(Load, 0x2000, 4), ev(Store, 0x2000, 4), ev(Load, 0x3000, 4)]
    );
}

#[test]
fn convert_between_all_formats() {
    let dir = scratch();
    let src = data("sample.lackey");
    // lackey -> vmt: lossless.
    let vmt = dir.path().join("conv.vmt");
    let mut s = open(&src, None).expect("open");
    let sum = convert(&mut *s, &vmt, TraceFormat::Vmt).expect("to vmt");
    assert_eq!((sum.events_read, sum.records_written), (8, 8));
    assert!(sum.losses.is_lossless());
    assert_eq!(sum.bytes_written, std::fs::metadata(&vmt).expect("meta").len());
    assert_eq!(read_all(&vmt, None).expect("read vmt"), lackey_expected());
    // vmt -> lackey: lossless.
    let back = dir.path().join("conv.lackey");
    let mut s = open(&vmt, None).expect("open");
    let sum = convert(&mut *s, &back, TraceFormat::Lackey).expect("to lackey");
    assert!(sum.losses.is_lossless());
    assert_eq!(read_all(&back, None).expect("read lackey"), lackey_expected());
    // vmt -> din: lossy, and says so.
    let din = dir.path().join("conv.din");
    let mut s = open(&vmt, None).expect("open");
    let sum = convert(&mut *s, &din, TraceFormat::Din).expect("to din");
    assert_eq!(sum.events_read, 8);
    assert_eq!(sum.records_written, 9, "the modify became two records");
    assert_eq!(sum.losses.modifies_split, 1);
    assert_eq!(sum.losses.sizes_changed, 7);
    assert_eq!(sum.losses.unaligned, 2);
    assert!(sum.to_string().contains("1 modifies split into a read and a write"), "{sum}");
    let d = read_all(&din, None).expect("read din");
    assert_eq!(d.len(), 9);
    assert!(d.iter().all(|e| matches!(e, Event::Access(a) if a.size == 4 && a.addr.0 % 4 == 0)));
}
