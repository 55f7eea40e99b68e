//! Prints simulation throughput on a real trace next to the decode-only rate
//! of the same trace, measured in the same run. Used by bench/run.sh.
//!
//! usage: throughput [--one-thread] TRACE.vmt [MACHINE ...]
//!
//! `--one-thread`: only decoding and simulation on one thread (one core),
//! with the inner loop each machine took, one line a machine (the matrix
//! of bench/matrix.sh).

use std::path::Path;
use std::time::Instant;
use vmlab_machine::Machine;
use vmlab_trace::PackedBlock;

/// Decoding alone, into the packed blocks the engine reads.
fn decode_only(path: &Path) -> Result<(u64, f64), String> {
    let mut src = vmlab_trace::open(path, None).map_err(|e| e.to_string())?;
    let mut buf = PackedBlock::new();
    let t = Instant::now();
    let mut n = 0u64;
    let mut sum = 0u64;
    while src.fill_packed(&mut buf).map_err(|e| e.to_string())? {
        n += buf.events();
        // Touch every word so the decode cannot be skipped.
        sum = sum.wrapping_add(buf.words().iter().fold(0, |a, &w| a ^ w));
    }
    std::hint::black_box(sum);
    Ok((n, t.elapsed().as_secs_f64()))
}

/// Decoding and simulation on this one thread: all the work of a run on one core.
fn one_thread(path: &Path, machine: &str) -> Result<(u64, f64), String> {
    one_thread_loop(path, machine).map(|(n, dt, _)| (n, dt))
}

/// `one_thread`, with the name of the inner loop the machine took.
fn one_thread_loop(path: &Path, machine: &str) -> Result<(u64, f64, &'static str), String> {
    let mut m = Machine::from_preset(machine, &[]).map_err(|e| e.to_string())?;
    let mut src = vmlab_trace::open(path, None).map_err(|e| e.to_string())?;
    let mut buf = PackedBlock::new();
    let t = Instant::now();
    let mut n = 0u64;
    // The source may drop the fetches the machine only counts, as in a run.
    buf.fetch_skip = m.fetch_skip();
    while src.fill_packed(&mut buf).map_err(|e| e.to_string())? {
        m.feed_packed(&buf, "trace", n).map_err(|e| e.to_string())?;
        n += buf.events();
    }
    let dt = t.elapsed().as_secs_f64();
    let r = m.result("trace");
    Ok((r.events.references(), dt, m.inner_loop()))
}

fn simulate(path: &Path, machine: &str) -> Result<(u64, f64), String> {
    let mut m = Machine::from_preset(machine, &[]).map_err(|e| e.to_string())?;
    let mut src = vmlab_trace::open(path, None).map_err(|e| e.to_string())?;
    let t = Instant::now();
    let r = m.run(src.as_mut(), &path.display().to_string(), &mut |_| Ok(())).map_err(|e| e.to_string())?;
    Ok((r.events.references(), t.elapsed().as_secs_f64()))
}

fn main() {
    let mut args = std::env::args().skip(1).peekable();
    let one_core = args.next_if(|a| a == "--one-thread").is_some();
    let Some(trace) = args.next() else {
        eprintln!("usage: throughput [--one-thread] TRACE.vmt [MACHINE ...]");
        std::process::exit(2);
    };
    let mut machines: Vec<String> = args.collect();
    if machines.is_empty() {
        machines = vec!["jm-base".into(), "bench/machines/l1-32k8-l2-1m16.toml".into()];
    }
    let path = Path::new(&trace);
    let run = || -> Result<(), String> {
        let (n, dt) = decode_only(path)?;
        println!("{:<60} {:>12} refs {:>8.3} s {:>9.1} M refs/s", "decode only (baseline)", n, dt, n as f64 / dt / 1e6);
        if one_core {
            for m in &machines {
                // Best of three, as the machine may be shared.
                let mut best = (0, f64::MAX, "");
                for _ in 0..3 {
                    let r = one_thread_loop(path, m)?;
                    if r.1 < best.1 {
                        best = r;
                    }
                }
                let (refs, dt, inner) = best;
                let label = format!("{m} ({inner})");
                println!("{:<60} {:>12} refs {:>8.3} s {:>9.1} M refs/s", label, refs, dt, refs as f64 / dt / 1e6);
            }
            return Ok(());
        }
        for m in &machines {
            // Best of three, as the machine is shared.
            type Mode = fn(&Path, &str) -> Result<(u64, f64), String>;
            let modes: [(&str, Mode); 2] = [("one thread", one_thread), ("Machine::run, decoder thread", simulate)];
            for (what, f) in modes {
                let mut best = f64::MAX;
                let mut refs = 0;
                for _ in 0..3 {
                    let (r, dt) = f(path, m)?;
                    refs = r;
                    best = best.min(dt);
                }
                let label = format!("{m} ({what})");
                println!("{:<60} {:>12} refs {:>8.3} s {:>9.1} M refs/s", label, refs, best, refs as f64 / best / 1e6);
            }
        }
        Ok(())
    };
    if let Err(e) = run() {
        eprintln!("throughput: error: {e}");
        std::process::exit(2);
    }
}
