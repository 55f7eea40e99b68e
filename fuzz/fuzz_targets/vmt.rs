//! Arbitrary bytes as a `.vmt` file, and (so the fuzzer gets past the
//! checksums) as a block payload wrapped in valid framing: events or an
//! error, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vmlab_trace::vmt::testing as t;
use vmlab_trace::{Event, EventSource, PackedBlock, VmtHeader, VmtReader};

/// Reads the file with the event decoder and the packed decoder side by
/// side: block for block, the same events, or the same error.
fn drain(bytes: &[u8]) {
    let (Ok(mut r), Ok(mut p)) = (VmtReader::new(bytes, "fuzz"), VmtReader::new(bytes, "fuzz")) else {
        return;
    };
    let mut buf: Vec<Event> = Vec::new();
    let mut packed = PackedBlock::new();
    loop {
        let (got_e, got_p) = (r.fill(&mut buf), p.fill_packed(&mut packed));
        match (got_e, got_p) {
            (Ok(true), Ok(true)) => {
                assert!(!buf.is_empty() && buf.len() <= vmlab_trace::BLOCK);
                let mut back = Vec::new();
                packed.unpack(&mut back);
                assert_eq!(back, buf, "packed and event decoders disagree on a block");
            }
            (Ok(false), Ok(false)) => return,
            (Err(a), Err(b)) => {
                assert_eq!(a, b, "packed and event decoders report different errors");
                return;
            }
            (a, b) => panic!("packed and event decoders disagree: {a:?} / {b:?}"),
        }
    }
}

fuzz_target!(|data: &[u8]| {
    match data.split_first() {
        // First byte 0: the rest is a block payload; its record count is
        // taken from the next byte.
        Some((0, rest)) if !rest.is_empty() => {
            let count = u32::from(rest[0]);
            let mut file = t::file_header(&VmtHeader::new("fuzz"));
            file.extend(t::block(count, &rest[1..]));
            file.extend(t::end(u64::from(count), 1));
            drain(&file);
            // The payload codec directly, too: both decoders, same answer.
            let events = t::decode(&rest[1..], count as usize);
            let packed = t::decode_packed(&rest[1..], count as usize).map(|p| {
                let mut back = Vec::new();
                p.unpack(&mut back);
                back
            });
            assert_eq!(events, packed, "packed and event payload decoders disagree");
        }
        _ => drain(data),
    }
});
