//! Arbitrary bytes as din text: events or an error, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vmlab_trace::{DinReader, Event, EventSource};

fuzz_target!(|data: &[u8]| {
    let mut r = DinReader::new(data, "fuzz");
    let mut buf: Vec<Event> = Vec::new();
    while let Ok(true) = r.fill(&mut buf) {
        for e in &buf {
            if let Event::Access(a) = e {
                assert!(a.size == 4 && a.addr.0 % 4 == 0);
            }
        }
    }
});
