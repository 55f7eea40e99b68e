//! Prints simulation throughput on a real trace next to the decode-only rate
//! of the same trace, measured in the same run. Used by bench/run.sh.
//!
//! usage: throughput TRACE.vmt [MACHINE ...]

use std::path::Path;
use std::time::Instant;
use vmlab_machine::Machine;

fn decode_only(path: &Path) -> Result<(u64, f64), String> {
    let mut src = vmlab_trace::open(path, None).map_err(|e| e.to_string())?;
    let mut buf = Vec::with_capacity(1 << 16);
    let t = Instant::now();
    let mut n = 0u64;
    let mut sum = 0u64;
    while src.fill(&mut buf).map_err(|e| e.to_string())? {
        n += buf.len() as u64;
        // Touch every event so the decode cannot be skipped.
        sum = sum.wrapping_add(buf.iter().map(|e| matches!(e, vmlab_trace::Event::Access(_)) as u64).sum::<u64>());
    }
    std::hint::black_box(sum);
    Ok((n, t.elapsed().as_secs_f64()))
}

fn simulate(path: &Path, machine: &str) -> Result<(u64, f64), String> {
    let mut m = Machine::from_preset(machine, &[]).map_err(|e| e.to_string())?;
    let mut src = vmlab_trace::open(path, None).map_err(|e| e.to_string())?;
    let t = Instant::now();
    let r = m.run(src.as_mut(), &path.display().to_string(), &mut |_| Ok(())).map_err(|e| e.to_string())?;
    Ok((r.events.references(), t.elapsed().as_secs_f64()))
}

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(trace) = args.next() else {
        eprintln!("usage: throughput TRACE.vmt [MACHINE ...]");
        std::process::exit(2);
    };
    let mut machines: Vec<String> = args.collect();
    if machines.is_empty() {
        machines = vec!["jm-base".into(), "bench/machines/l1-32k8-l2-1m16.toml".into()];
    }
    let path = Path::new(&trace);
    let run = || -> Result<(), String> {
        let (n, dt) = decode_only(path)?;
        println!("{:<40} {:>12} refs {:>8.3} s {:>9.1} M refs/s", "decode only (baseline)", n, dt, n as f64 / dt / 1e6);
        for m in &machines {
            // Best of three, as the machine is shared.
            let mut best = f64::MAX;
            let mut refs = 0;
            for _ in 0..3 {
                let (r, dt) = simulate(path, m)?;
                refs = r;
                best = best.min(dt);
            }
            println!("{:<40} {:>12} refs {:>8.3} s {:>9.1} M refs/s", m, refs, best, refs as f64 / best / 1e6);
        }
        Ok(())
    };
    if let Err(e) = run() {
        eprintln!("throughput: error: {e}");
        std::process::exit(2);
    }
}
