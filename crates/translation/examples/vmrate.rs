//! Throughput of translating runs on a real trace, beside NOTLB and decode
//! alone, measured in the same process:
//! `cargo run --release -p vmlab-translation --example vmrate -- TRACE [MAX_EVENTS] [SCHEMES] [--stream]`
//! (SCHEMES: comma-separated names, default all; one scheme alone is what a
//! callgrind profile wants). `--stream` adds the trace streamed from its
//! file on one thread, decode included: the foundation engine beside NOTLB
//! and ULTRIX (issue 3's "at least half the no-translation rate");
//! `--stream-only` does only that, for SCHEMES (`foundation` names the
//! foundation engine), up to MAX_EVENTS: what a callgrind count wants
//! (instructions per reference = Ir / (3 x events)).

use std::path::Path;
use std::time::Instant;

use vmlab_translation::{load, Scheme, VmSim};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let all: Vec<String> = std::env::args().collect();
    let stream = all.iter().any(|a| a == "--stream");
    let stream_only = all.iter().any(|a| a == "--stream-only");
    let args: Vec<String> = all.into_iter().filter(|a| !a.starts_with("--stream")).collect();
    let path = args.get(1).ok_or("usage: vmrate TRACE [MAX_EVENTS]")?;
    let max: u64 = args.get(2).map(|s| s.parse()).transpose()?.unwrap_or(u64::MAX);
    let names: Option<Vec<&str>> = args.get(3).map(|list| list.split(',').collect());
    let foundation_too = names.as_ref().is_none_or(|n| n.contains(&"foundation"));
    let only: Option<Vec<Scheme>> = names
        .as_ref()
        .map(|list| {
            list.iter()
                .filter(|n| **n != "foundation")
                .map(|n| Scheme::parse(n).ok_or(format!("unknown scheme {n}")))
                .collect()
        })
        .transpose()?;
    if stream_only {
        // For callgrind: only the streamed runs, bounded by MAX_EVENTS.
        return streamed(
            Path::new(path),
            max,
            foundation_too,
            only.as_deref().unwrap_or(&[Scheme::Notlb, Scheme::Ultrix]),
        );
    }
    // Decode once into memory (bounded by MAX_EVENTS) so every scheme sees
    // the same events and decode time is measured separately.
    let t = Instant::now();
    let events = vmlab_trace::read_prefix(Path::new(path), None, max)?;
    let n = events.len() as f64;
    println!("decode      {:8.1} M refs/s  ({} events)", n / t.elapsed().as_secs_f64() / 1e6, events.len());
    // Both engines read packed words, as runs from a file do (their fast
    // loops); packing is not timed.
    let mut packed = vmlab_trace::PackedBlock::new();
    packed.pack(&events);
    // The foundation's engine (no translation) on the same caches: the rate
    // issue 3 compares translating runs with.
    if only.is_none() {
        let mut m = vmlab_machine::Machine::new(foundation_config()?)?;
        let t = Instant::now();
        m.feed_packed(&packed, path, 0)?;
        println!(
            "{:<10}  {:8.1} M refs/s   (vmlab_machine::Machine, same caches)",
            "foundation",
            n / t.elapsed().as_secs_f64() / 1e6
        );
    }
    for scheme in
        [Scheme::Notlb, Scheme::Ultrix, Scheme::Mach, Scheme::Parisc, Scheme::Softvm, Scheme::Spur, Scheme::Intel]
    {
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
        sim.feed_packed(&packed, packed.len())?;
        let secs = t.elapsed().as_secs_f64();
        let r = sim.result(path);
        println!("{:<10}  {:8.1} M refs/s   VMCPI {:.4}", scheme.name(), n / secs / 1e6, r.vmcpi);
    }
    if stream {
        streamed(Path::new(path), max, true, &[Scheme::Notlb, Scheme::Ultrix])?;
    }
    Ok(())
}

/// The foundation's machine with the jacob-mudge caches (8K/8K, 512K/512K,
/// 16 B lines: jm-base), no translation.
fn foundation_config() -> Result<vmlab_machine::MachineConfig, Box<dyn std::error::Error>> {
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
    Ok(mc)
}

/// Issue 3's speed check as a user runs it: the trace streamed from its
/// file on one thread, decode included, best of three, whole blocks until
/// `max` events: the foundation engine (its packed fast loop) beside the
/// schemes (NOTLB and ULTRIX by default), each reading packed blocks as
/// `VmSim::run` does.
fn streamed(path: &Path, max: u64, foundation_too: bool, schemes: &[Scheme]) -> Result<(), Box<dyn std::error::Error>> {
    let best =
        |f: &mut dyn FnMut() -> Result<u64, Box<dyn std::error::Error>>| -> Result<f64, Box<dyn std::error::Error>> {
            let mut rate: f64 = 0.0;
            for _ in 0..3 {
                let t = Instant::now();
                let n = f()?;
                rate = rate.max(n as f64 / t.elapsed().as_secs_f64() / 1e6);
            }
            Ok(rate)
        };
    println!("streamed, one thread, best of 3:");
    let mut foundation = f64::NAN;
    if foundation_too {
        foundation = best(&mut || {
            let mut m = vmlab_machine::Machine::new(foundation_config()?)?;
            let mut src = vmlab_trace::open(path, None)?;
            let mut buf = vmlab_trace::PackedBlock::new();
            let mut n = 0u64;
            while n < max && src.fill_packed(&mut buf)? {
                m.feed_packed(&buf, "trace", n)?;
                n += buf.len() as u64;
            }
            Ok(n)
        })?;
        println!(
            "  {:<10} {:8.1} M refs/s   (vmlab_machine::Machine, packed loop `{}`)",
            "foundation",
            foundation,
            vmlab_machine::Machine::new(foundation_config()?)?.inner_loop()
        );
    }
    for &scheme in schemes {
        let rate = best(&mut || {
            let mut sim = VmSim::new(load("jacob-mudge", &[format!("scheme={}", scheme.name())])?)?;
            let mut src = vmlab_trace::open(path, None)?;
            let mut buf = vmlab_trace::PackedBlock::new();
            let mut n = 0u64;
            while n < max && src.fill_packed(&mut buf)? {
                sim.feed_packed(&buf, buf.len())?;
                n += buf.len() as u64;
            }
            Ok(n)
        })?;
        println!(
            "  {:<10} {:8.1} M refs/s   ({:.0} % of the foundation's rate)",
            scheme.name(),
            rate,
            100.0 * rate / foundation
        );
    }
    Ok(())
}
