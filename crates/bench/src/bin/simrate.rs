//! Simulation cost on the first N events of a trace, held in memory, for
//! instruction-count profiling (valgrind --tool=callgrind) on a busy machine:
//!     simrate TRACE.vmt N MACHINE
use std::time::Instant;
use vmlab_machine::Machine;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(trace), Some(n), Some(machine)) =
        (args.get(1), args.get(2).and_then(|s| s.parse::<usize>().ok()), args.get(3))
    else {
        eprintln!("usage: simrate TRACE.vmt N MACHINE");
        std::process::exit(2);
    };
    let mut src = vmlab_trace::open(std::path::Path::new(trace), None).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2)
    });
    let mut events = Vec::with_capacity(n);
    let mut buf = Vec::new();
    while events.len() < n && src.fill(&mut buf).unwrap_or(false) {
        events.extend_from_slice(&buf);
    }
    events.truncate(n);
    let mut m = Machine::from_preset(machine, &[]).expect("machine");
    let t = Instant::now();
    m.feed(&events, "trace", 0).expect("runs");
    let dt = t.elapsed().as_secs_f64();
    let r = m.result("trace");
    println!(
        "{} events, {:.1} M refs/s, l1 misses {:?}",
        events.len(),
        events.len() as f64 / dt / 1e6,
        r.caches.iter().map(|c| c.stats.misses()).collect::<Vec<_>>()
    );
}
