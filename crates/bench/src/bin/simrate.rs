//! Quick simulation rate on a synthetic trace (no trace file needed).
use std::time::Instant;
use vmlab_machine::Machine;

fn main() {
    let n: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(20_000_000);
    let evs = vmlab_bench::synthetic(n, 42);
    let classify = std::env::args().nth(2).is_some();
    let mut cases = vec![("jm-base", vec![])];
    if classify {
        cases.push(("jm-base", vec!["stats.classify_misses=true".to_string()]));
    }
    for (preset, sets) in cases {
        let mut m = Machine::from_preset(preset, &sets).expect("preset");
        let t = Instant::now();
        for chunk in evs.chunks(1 << 16) {
            m.feed(chunk, "syn", 0).expect("run");
        }
        let dt = t.elapsed().as_secs_f64();
        let r = m.result("syn");
        println!("{preset} {:?}: {:.1} M refs/s  (l1d misses {})", sets, n as f64 / dt / 1e6, r.caches[1].stats.misses());
    }
}
