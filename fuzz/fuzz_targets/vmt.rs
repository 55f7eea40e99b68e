//! Arbitrary bytes as a `.vmt` file, and (so the fuzzer gets past the
//! checksums) as a block payload wrapped in valid framing: events or an
//! error, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vmlab_trace::vmt::testing as t;
use vmlab_trace::{Event, EventSource, VmtHeader, VmtReader};

fn drain(bytes: &[u8]) {
    let Ok(mut r) = VmtReader::new(bytes, "fuzz") else {
        return;
    };
    let mut buf: Vec<Event> = Vec::new();
    while let Ok(true) = r.fill(&mut buf) {
        assert!(!buf.is_empty() && buf.len() <= vmlab_trace::BLOCK);
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
            // The payload codec directly, too.
            let _ = t::decode(&rest[1..], count as usize);
        }
        _ => drain(data),
    }
});
