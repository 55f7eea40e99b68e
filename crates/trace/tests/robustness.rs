//! Stable-Rust stand-in for the fuzz targets in `fuzz/`: each reader gets
//! 20,000 random or mutated inputs from a seeded RNG and must return events
//! or an error, never panic or hang. The `.vmt` cases include payloads wrapped
//! in valid framing and checksums, so the record decoder itself is reached.

// Tests report failure by panicking.
#![allow(clippy::panic)]

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use vmlab_addr::{Asid, VirtAddr};
use vmlab_trace::vmt::testing as t;
use vmlab_trace::{
    vmt::Encoding, AccessKind, DinReader, Event, EventSource, LackeyReader, TraceError, VmtHeader, VmtOptions,
    VmtReader, VmtWriter,
};

const CASES: usize = 20_000;

/// Reads to the end; checks what every reader promises about its output.
fn drain(src: &mut dyn EventSource) -> Result<usize, TraceError> {
    let mut buf = Vec::new();
    let mut n = 0;
    while src.fill(&mut buf)? {
        assert!(!buf.is_empty() && buf.len() <= vmlab_trace::BLOCK);
        for e in &buf {
            if let Event::Access(a) = e {
                assert!(a.size >= 1, "{e:?}");
            }
        }
        n += buf.len();
    }
    assert!(buf.is_empty());
    Ok(n)
}

fn mutate(rng: &mut Pcg64, base: &[u8], alphabet: &[u8]) -> Vec<u8> {
    let mut v = base.to_vec();
    for _ in 0..rng.gen_range(1..6) {
        let pick = |rng: &mut Pcg64| {
            if rng.gen_bool(0.5) {
                alphabet[rng.gen_range(0..alphabet.len())]
            } else {
                rng.gen()
            }
        };
        match rng.gen_range(0..5) {
            0 if !v.is_empty() => {
                let i = rng.gen_range(0..v.len());
                v[i] = pick(rng);
            }
            1 => {
                let i = rng.gen_range(0..=v.len());
                let b = pick(rng);
                v.insert(i, b);
            }
            2 if !v.is_empty() => {
                let i = rng.gen_range(0..v.len());
                v.remove(i);
            }
            3 => {
                let cut = rng.gen_range(0..=v.len());
                v.truncate(cut);
            }
            _ if !v.is_empty() => {
                let i = rng.gen_range(0..v.len());
                v[i] ^= 1 << rng.gen_range(0..8);
            }
            _ => {}
        }
    }
    v
}

fn random_text(rng: &mut Pcg64, alphabet: &[u8]) -> Vec<u8> {
    let len = rng.gen_range(0..120);
    (0..len).map(|_| if rng.gen_bool(0.9) { alphabet[rng.gen_range(0..alphabet.len())] } else { rng.gen() }).collect()
}

#[test]
fn lackey_reader_never_panics() {
    let mut rng = Pcg64::seed_from_u64(0x1ac4e7);
    let base = b"==1== Lackey\nI  0401ab70,3\n L 1ffefff8b8,8\n S 04032e08,4\n M 1fff0006f0,16\n";
    let alphabet = b"ILSM =-*0123456789abcdefABCDEFx,\n\r\t ";
    let (mut ok, mut err) = (0, 0);
    for i in 0..CASES {
        let input = if i % 2 == 0 { mutate(&mut rng, base, alphabet) } else { random_text(&mut rng, alphabet) };
        match drain(&mut LackeyReader::new(&input[..], "fuzz")) {
            Ok(_) => ok += 1,
            Err(e) => {
                assert!(matches!(e.location, vmlab_trace::Location::Line(n) if n >= 1), "{e}");
                err += 1;
            }
        }
    }
    assert!(ok > 100 && err > 100, "ok {ok}, err {err}: the generator is not exercising both paths");
}

/// System-call lines (`--trace-syscalls=yes`) mutated: events or an error
/// naming a line, never a panic, and every system call read comes with
/// exactly its arguments.
#[test]
fn lackey_syscall_lines_never_panic() {
    let mut rng = Pcg64::seed_from_u64(0x5c5ca11);
    let base = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/syscalls.lackey")).expect("sample");
    let alphabet = b"SYCAL[](),.->xI 0123456789abcdef\n";
    let (mut ok, mut err) = (0, 0);
    for _ in 0..CASES / 4 {
        let input = mutate(&mut rng, &base, alphabet);
        let mut r = LackeyReader::new(&input[..], "fuzz");
        match vmlab_trace::read_source(&mut r) {
            Ok(events) => {
                vmlab_trace::syscall::check(&events).expect("whole system calls");
                ok += 1;
            }
            Err(e) => {
                assert!(matches!(e.location, vmlab_trace::Location::Line(n) if n >= 1), "{e}");
                err += 1;
            }
        }
    }
    assert!(ok > 100 && err > 100, "ok {ok}, err {err}: the generator is not exercising both paths");
}

#[test]
fn din_reader_never_panics() {
    let mut rng = Pcg64::seed_from_u64(0xd1e0);
    let base = b"2 401ab70\n0 0x1fff000758 comment\n1 1000\n4 0\n";
    let alphabet = b"0123456789abcdefABCDEFxX \t\n\r";
    let (mut ok, mut err) = (0, 0);
    for i in 0..CASES {
        let input = if i % 2 == 0 { mutate(&mut rng, base, alphabet) } else { random_text(&mut rng, alphabet) };
        match drain(&mut DinReader::new(&input[..], "fuzz")) {
            Ok(_) => ok += 1,
            Err(_) => err += 1,
        }
    }
    assert!(ok > 100 && err > 100, "ok {ok}, err {err}");
}

fn sample_events(rng: &mut Pcg64) -> Vec<Event> {
    let n = rng.gen_range(1..40);
    let kinds = AccessKind::ALL;
    (0..n)
        .map(|_| match rng.gen_range(0..20) {
            0 => Event::FlushAll,
            1 => Event::ContextSwitch(vmlab_addr::Asid(rng.gen_range(0..4))),
            _ => Event::access(
                kinds[rng.gen_range(0..4)],
                VirtAddr(if rng.gen_bool(0.8) { 0x400000 + rng.gen_range(0..4096) } else { rng.gen() }),
                if rng.gen_bool(0.8) { 1 << rng.gen_range(0..4) } else { rng.gen_range(1..100) },
                Asid(if rng.gen_bool(0.9) { 0 } else { rng.gen_range(0..3) }),
            ),
        })
        .collect()
}

#[test]
fn vmt_reader_never_panics() {
    let mut rng = Pcg64::seed_from_u64(0x7e57);
    let (mut ok, mut err) = (0, 0);
    let header_delta = t::file_header(&VmtHeader::new("fuzz"));
    let header_blocks = t::file_header_blocks(&VmtHeader::new("fuzz"));
    for i in 0..CASES {
        let events = sample_events(&mut rng);
        // Both encodings, in turn.
        let blocks = i % 2 == 1;
        let header = if blocks { &header_blocks } else { &header_delta };
        let input = match i % 6 / 2 {
            // A whole valid file, mutated anywhere (mostly caught by checksums).
            0 => {
                let encoding = if blocks { Encoding::BasicBlocks } else { Encoding::Delta };
                let opts = VmtOptions { block_events: rng.gen_range(1..8), zstd_level: 1, encoding };
                let mut w = VmtWriter::with_options(Vec::new(), VmtHeader::default(), opts).expect("header");
                w.write_all(&events).expect("write");
                mutate(&mut rng, &w.finish().expect("finish"), &[0, 0xff, b'V', b'M', b'T'])
            }
            // Valid framing around a mutated payload: reaches the record decoder.
            1 => {
                let payload = if blocks { t::encode_blocks(&events) } else { t::encode(&events) };
                let raw = mutate(&mut rng, &payload, &[0xf8, 0xf9, 0x80, 0x81, 0x82, 0xff, 0, 1, 0x10, 0x11]);
                let count = if rng.gen_bool(0.7) { events.len() as u32 } else { rng.gen_range(0..50) };
                let mut f = header.clone();
                f.extend(t::block(count, &raw));
                f.extend(t::end(u64::from(count), 1));
                f
            }
            // Valid framing around random bytes.
            _ => {
                let raw: Vec<u8> = (0..rng.gen_range(0..64)).map(|_| rng.gen()).collect();
                let mut f = header.clone();
                f.extend(t::block(rng.gen_range(1..20), &raw));
                f.extend(t::end(rng.gen_range(0..20), 1));
                f
            }
        };
        // The packed decoder accepts and rejects exactly what the event decoder does.
        let events_result = VmtReader::new(&input[..], "fuzz").and_then(|mut r| {
            let (mut all, mut buf) = (Vec::new(), Vec::new());
            while r.fill(&mut buf)? {
                all.extend_from_slice(&buf);
            }
            Ok(all)
        });
        let packed_result = VmtReader::new(&input[..], "fuzz").and_then(|mut r| {
            let (mut all, mut buf) = (Vec::new(), vmlab_trace::PackedBlock::new());
            while r.fill_packed(&mut buf)? {
                buf.unpack(&mut all);
            }
            Ok(all)
        });
        match (&events_result, &packed_result) {
            (Ok(a), Ok(b)) => assert_eq!(a, b),
            (Err(a), Err(b)) => assert_eq!(a, b),
            _ => {
                panic!("event and packed decoders disagree: {events_result:?} / {packed_result:?}")
            }
        }
        match VmtReader::new(&input[..], "fuzz").and_then(|mut r| drain(&mut r)) {
            Ok(_) => ok += 1,
            Err(e) => {
                assert!(matches!(e.location, vmlab_trace::Location::Offset(o) if o <= input.len() as u64), "{e}");
                err += 1;
            }
        }
    }
    assert!(ok > 100 && err > 1000, "ok {ok}, err {err}");
}
