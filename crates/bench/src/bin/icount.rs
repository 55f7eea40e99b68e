//! A fixed amount of work on the first N events of a trace, for counting
//! instructions with callgrind (deterministic on a shared, noisy machine).
//! Only the function `measured_region` is meant to be counted:
//!
//!     valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*measured_region*' \
//!         icount MODE TRACE.vmt N [MACHINE]
//!
//! MODE is `decode` (the `.vmt` reader alone, packed blocks as the engine
//! reads them), `decode-events` (the reader producing `Event`s), `sim` (the machine fed events
//! already in memory) or `run` (reader and machine on this one thread, block
//! by block: all the work of a run on one core). The file is read into memory
//! first so no disk read is counted. Instructions per reference = callgrind's
//! total / N. Without valgrind it prints the wall-clock rate too.
use std::hint::black_box;
use std::time::Instant;
use vmlab_machine::Machine;
use vmlab_trace::{Event, EventSource, PackedBlock, VmtReader};

fn usage() -> ! {
    eprintln!("usage: icount decode|decode-events|sim|run TRACE.vmt N [MACHINE]");
    std::process::exit(2)
}

#[inline(never)]
fn measured_region(mode: &str, bytes: &[u8], n: usize, events: &[Event], machine: Option<&mut Machine>) -> u64 {
    if mode == "sim" {
        let m = machine.expect("sim needs a machine");
        m.feed(events, "trace", 0).expect("runs");
        return events.len() as u64;
    }
    let mut r = VmtReader::new(bytes, "trace").expect("vmt");
    if mode == "decode" {
        let mut buf = PackedBlock::new();
        let mut done = 0usize;
        while done < n && r.fill_packed(&mut buf).expect("decodes") {
            black_box(&buf.words);
            done += buf.len();
        }
        return done.min(n) as u64;
    }
    let mut buf = Vec::with_capacity(vmlab_trace::BLOCK);
    let mut done = 0usize;
    let mut machine = machine;
    while done < n && r.fill(&mut buf).expect("decodes") {
        let take = buf.len().min(n - done);
        match machine.as_deref_mut() {
            Some(m) => m.feed(&buf[..take], "trace", done as u64).expect("runs"),
            None => {
                black_box(&buf[..take]);
            }
        }
        done += take;
    }
    done as u64
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(mode), Some(trace), Some(n)) =
        (args.get(1), args.get(2), args.get(3).and_then(|s| s.parse::<usize>().ok()))
    else {
        usage()
    };
    let bytes = std::fs::read(trace).unwrap_or_else(|e| {
        eprintln!("{trace}: {e}");
        std::process::exit(2)
    });
    let mut machine = match (mode.as_str(), args.get(4)) {
        ("decode" | "decode-events", _) => None,
        ("sim" | "run", Some(p)) => Some(Machine::from_preset(p, &[]).unwrap_or_else(|e| {
            eprintln!("{e}");
            std::process::exit(2)
        })),
        _ => usage(),
    };
    let mut events = Vec::new();
    if mode == "sim" {
        let mut r = VmtReader::new(&bytes[..], trace.as_str()).expect("vmt");
        let mut buf = Vec::new();
        while events.len() < n && r.fill(&mut buf).expect("decodes") {
            events.extend_from_slice(&buf);
        }
        events.truncate(n);
    }
    let t = Instant::now();
    let done = measured_region(mode, &bytes, n, &events, machine.as_mut());
    let dt = t.elapsed().as_secs_f64();
    let misses = machine
        .as_mut()
        .map(|m| m.result("trace").caches.iter().map(|c| c.stats.misses()).collect::<Vec<_>>());
    println!("{mode}: {done} events, {:.1} M refs/s, misses {misses:?}", done as f64 / dt / 1e6);
}
