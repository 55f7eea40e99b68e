//! Arbitrary bytes as lackey text: events or an error, never a panic; every
//! access read has a size within lackey's range for its kind, and every
//! system-call marker comes with exactly its arguments.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vmlab_trace::{lackey, syscall, Event, EventSource, LackeyReader};

fuzz_target!(|data: &[u8]| {
    let mut r = LackeyReader::new(data, "fuzz");
    let mut buf: Vec<Event> = Vec::new();
    let mut calls = syscall::Assembler::new();
    while let Ok(true) = r.fill(&mut buf) {
        for e in &buf {
            if let Event::Access(a) = e {
                assert!(a.size >= 1 && a.size <= lackey::max_size(a.kind));
            }
            if let Err(m) = calls.push(e) {
                panic!("the reader handed out a malformed system call: {m}");
            }
        }
    }
});
