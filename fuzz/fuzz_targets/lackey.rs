//! Arbitrary bytes as lackey text: events or an error, never a panic; every
//! access read has a size within lackey's range for its kind.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vmlab_trace::{lackey, Event, EventSource, LackeyReader};

fuzz_target!(|data: &[u8]| {
    let mut r = LackeyReader::new(data, "fuzz");
    let mut buf: Vec<Event> = Vec::new();
    while let Ok(true) = r.fill(&mut buf) {
        for e in &buf {
            if let Event::Access(a) = e {
                assert!(a.size >= 1 && a.size <= lackey::max_size(a.kind));
            }
        }
    }
});
