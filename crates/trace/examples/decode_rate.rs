//! Measures `.vmt` decoding throughput on one core.
//!
//! cargo run --release -p vmlab-trace --example decode_rate -- TRACE.vmt
//! cargo run --release -p vmlab-trace --example decode_rate -- --capture OUT.vmt -- CMD [ARGS...]
//! cargo run --release -p vmlab-trace --example decode_rate -- --convert TRACE.lackey OUT.vmt
//! cargo run --release -p vmlab-trace --example decode_rate -- --info TRACE
//!
//! The file is read into memory first so the number is the decoder's (zstd,
//! CRC and record decoding), not the disk's.

use std::path::Path;
use std::time::Instant;

use vmlab_trace::{capture, CaptureOptions, EventSource, VmtReader, BLOCK};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut buf = Vec::with_capacity(BLOCK);
    let path = match args.first().map(String::as_str) {
        Some("--capture") => {
            let out = args.get(1).ok_or("--capture needs an output path")?;
            let cmd: Vec<String> = args.iter().skip(2).skip_while(|a| *a == "--").cloned().collect();
            let s = capture(&cmd, Path::new(out), &CaptureOptions::default(), &mut |n| {
                eprint!("\r{n} references");
                Ok(())
            })?;
            eprintln!(
                "\rcaptured {} references into {} ({} bytes) in {:.1}s",
                s.events, out, s.bytes_written, s.seconds
            );
            out.clone()
        }
        Some("--convert") => {
            let (src, out) = match (args.get(1), args.get(2)) {
                (Some(s), Some(o)) => (s, o),
                _ => return Err("--convert needs a source trace and an output path".into()),
            };
            // VMT_LEVEL=n tries another zstd level than the writer's default.
            let defaults = vmlab_trace::VmtOptions::default();
            let level = std::env::var("VMT_LEVEL").ok().and_then(|l| l.parse().ok()).unwrap_or(defaults.zstd_level);
            let mut s = vmlab_trace::open(Path::new(src), None)?;
            let opts = vmlab_trace::VmtOptions { zstd_level: level, ..defaults };
            let file = std::io::BufWriter::new(std::fs::File::create(out)?);
            let mut w = vmlab_trace::VmtWriter::with_options(file, vmlab_trace::VmtHeader::default(), opts)?;
            while s.fill(&mut buf)? {
                w.write_all(&buf)?;
            }
            w.finish()?;
            out.clone()
        }
        Some("--info") => {
            let path = args.get(1).ok_or("--info needs a trace")?;
            let t = Instant::now();
            let mut s = vmlab_trace::open(Path::new(path), None)?;
            let info = vmlab_trace::info(&mut *s)?;
            let secs = t.elapsed().as_secs_f64();
            println!("{info}info: {:.2}s = {:.0} M events/s", secs, info.events as f64 / secs / 1e6);
            return Ok(());
        }
        Some(p) => p.to_string(),
        None => return Err("usage: decode_rate TRACE.vmt | --capture OUT.vmt -- CMD...".into()),
    };
    let bytes = std::fs::read(&path)?;
    let passes: usize = std::env::var("VMT_PASSES").ok().and_then(|p| p.parse().ok()).unwrap_or(5);
    let mut best = f64::MAX;
    // Per fill() call, the fastest of all passes: on a shared machine a pass
    // is often preempted, a single ~100 µs block rarely is.
    let mut block_min: Vec<f64> = Vec::new();
    let mut events = 0u64;
    let mut checksum = 0u64;
    for _ in 0..passes {
        let t = Instant::now();
        let mut r = VmtReader::new(&bytes[..], &path)?;
        events = 0;
        let mut i = 0;
        loop {
            let tb = Instant::now();
            if !r.fill(&mut buf)? {
                break;
            }
            let dt = tb.elapsed().as_secs_f64();
            match block_min.get_mut(i) {
                Some(m) => *m = m.min(dt),
                None => block_min.push(dt),
            }
            i += 1;
            events += buf.len() as u64;
            // Touch the events so the work cannot be skipped.
            if let Some(vmlab_trace::Event::Access(a)) = buf.last() {
                checksum = checksum.wrapping_add(a.addr.0);
            }
        }
        best = best.min(t.elapsed().as_secs_f64());
    }
    let filtered: f64 = block_min.iter().sum();
    println!(
        "{path}: {events} events, {} bytes ({:.2} bytes/event)\n  best whole pass of {passes}: {:.3}s = {:.0} M events/s\n  sum of per-block minima: {:.3}s = {:.0} M events/s (checksum {checksum:x})",
        bytes.len(),
        bytes.len() as f64 / events.max(1) as f64,
        best,
        events as f64 / best / 1e6,
        filtered,
        events as f64 / filtered / 1e6
    );
    Ok(())
}
