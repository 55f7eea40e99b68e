//! Time of an S1 sweep, estimated from a sample of its configurations:
//! `cargo run --release -p vmlab-translation --example vmsweep -- TRACE
//! [MAX_EVENTS] [EVERY]`. Builds the `paper` grid of
//! python/vmlab/studies/s1.py (6 schemes x L2 512K, 1M, 2M per side, i.e.
//! the paper's 1/2/4 MB totals, x 7 line pairs x L1 1-128 KB per side, 1,008
//! sweep points), runs every EVERY-th configuration
//! (default 7) over the same decoded events, one after another on one
//! thread, and reports the mean rate per configuration and what the whole
//! grid would take on a 100 M-reference trace on 2 cores at that rate.

use std::path::Path;
use std::time::Instant;

use vmlab_translation::{load, VmSim};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let path = args.get(1).ok_or("usage: vmsweep TRACE [MAX_EVENTS] [EVERY]")?;
    let max: u64 = args.get(2).map(|s| s.parse()).transpose()?.unwrap_or(10_000_000);
    let every: usize = args.get(3).map(|s| s.parse()).transpose()?.unwrap_or(7).max(1);
    let events = vmlab_trace::read_prefix(Path::new(path), None, max)?;
    let mut grid = Vec::new();
    for scheme in ["ultrix", "mach", "intel", "parisc", "softvm", "spur"] {
        // Per side, as s1.py's GRIDS["paper"].l2_kb.
        for l2 in [512, 1024, 2048] {
            for (a, b) in [(16, 16), (16, 32), (16, 64), (32, 32), (32, 64), (64, 64), (64, 128)] {
                for l1 in [1, 2, 4, 8, 16, 32, 64, 128] {
                    let mut o = vec![format!("scheme={scheme}")];
                    for c in ["l1i", "l1d"] {
                        o.push(format!("{c}.size={l1}K"));
                        o.push(format!("{c}.line={a}"));
                    }
                    for c in ["l2i", "l2d"] {
                        o.push(format!("{c}.size={l2}K"));
                        o.push(format!("{c}.line={b}"));
                    }
                    grid.push(o);
                }
            }
        }
    }
    let n = events.len() as f64;
    let (mut secs, mut runs) = (0.0, 0usize);
    let mut by_scheme: Vec<(String, f64, usize)> = Vec::new();
    for o in grid.iter().step_by(every) {
        let mut sim = VmSim::new(load("jacob-mudge", o)?)?;
        let t = Instant::now();
        sim.feed(&events)?;
        let s = t.elapsed().as_secs_f64();
        secs += s;
        runs += 1;
        let name = o[0].trim_start_matches("scheme=").to_string();
        match by_scheme.iter_mut().find(|x| x.0 == name) {
            Some(x) => {
                x.1 += s;
                x.2 += 1;
            }
            None => by_scheme.push((name, s, 1)),
        }
    }
    for (name, s, k) in &by_scheme {
        println!("{name:<8} {:6.1} M refs/s per configuration ({k} configurations)", n * *k as f64 / s / 1e6);
    }
    let rate = n * runs as f64 / secs;
    let grid_secs = grid.len() as f64 * 100e6 / rate / 2.0;
    println!(
        "{runs} of {} configurations x {} events: mean {:.1} M refs/s per configuration; the grid on 100 M references, 2 cores: {:.0} min",
        grid.len(),
        events.len(),
        rate / 1e6,
        grid_secs / 60.0
    );
    Ok(())
}
