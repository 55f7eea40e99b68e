//! Throughput of translating runs on a real trace, beside NOTLB and decode
//! alone, measured in the same process:
//! `cargo run --release -p vmlab-translation --example vmrate -- TRACE [MAX_EVENTS] [SCHEMES]`
//! (SCHEMES: comma-separated names, default all; one scheme alone is what a
//! callgrind profile wants).

use std::path::Path;
use std::time::Instant;

use vmlab_translation::{load, Scheme, VmSim};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let path = args.get(1).ok_or("usage: vmrate TRACE [MAX_EVENTS]")?;
    let max: u64 = args.get(2).map(|s| s.parse()).transpose()?.unwrap_or(u64::MAX);
    let only: Option<Vec<Scheme>> = args
        .get(3)
        .map(|list| list.split(',').map(|n| Scheme::parse(n).ok_or(format!("unknown scheme {n}"))).collect())
        .transpose()?;
    // Decode once into memory (bounded by MAX_EVENTS) so every scheme sees
    // the same events and decode time is measured separately.
    let t = Instant::now();
    let events = vmlab_trace::read_prefix(Path::new(path), None, max)?;
    let n = events.len() as f64;
    println!("decode      {:8.1} M refs/s  ({} events)", n / t.elapsed().as_secs_f64() / 1e6, events.len());
    // The foundation's engine (no translation) on the same caches: the rate
    // issue 3 compares translating runs with.
    if only.is_none() {
        let jm = load("jacob-mudge", &["scheme=notlb".to_string()])?;
        let mut mc = vmlab_machine::MachineConfig::bare(
            "jacob-mudge caches",
            vmlab_machine::MemoryConfig::sequential(jm.page_size, jm.frames * jm.page_size.bytes()),
        );
        mc.l1i = Some(jm.l1i.clone());
        mc.l1d = Some(jm.l1d.clone());
        mc.l2i = jm.l2i.clone();
        mc.l2d = jm.l2d.clone();
        mc.l2 = jm.l2.clone();
        let mut m = vmlab_machine::Machine::new(mc)?;
        let t = Instant::now();
        m.feed(&events, path, 0)?;
        println!("{:<10}  {:8.1} M refs/s   (vmlab_machine::Machine, same caches)", "foundation", n / t.elapsed().as_secs_f64() / 1e6);
    }
    for scheme in [Scheme::Notlb, Scheme::Ultrix, Scheme::Mach, Scheme::Parisc, Scheme::Softvm, Scheme::Spur, Scheme::Intel] {
        if only.as_ref().is_some_and(|o| !o.contains(&scheme)) {
            continue;
        }
        let cfg = load("jacob-mudge", &[format!("scheme={}", scheme.name())])?;
        let mut sim = match VmSim::new(cfg) {
            Ok(s) => s,
            Err(e) => {
                println!("{:<10}  skipped: {e}", scheme.name());
                continue;
            }
        };
        let t = Instant::now();
        sim.feed(&events)?;
        let secs = t.elapsed().as_secs_f64();
        let r = sim.result(path);
        println!("{:<10}  {:8.1} M refs/s   VMCPI {:.4}", scheme.name(), n / secs / 1e6, r.vmcpi);
    }
    Ok(())
}
