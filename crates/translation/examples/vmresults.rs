//! Every counter of every scheme's run on a trace prefix, as one JSON result
//! per line: `cargo run --release -p vmlab-translation --example vmresults --
//! TRACE [MAX_EVENTS] [KEY=VALUE ...] [--general]`. Used to check that a
//! speed change leaves results bit-identical (diff the output before and
//! after, or against `--general`: the simulator without its fast paths).
//! The fast simulator reads packed words (`feed_packed`, as `VmSim::run`
//! does), the general one `Event`s.

use std::path::Path;

use vmlab_translation::{load, Scheme, VmSim};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args: Vec<String> = std::env::args().collect();
    let general = args.iter().any(|a| a == "--general");
    args.retain(|a| a != "--general");
    let path = args.get(1).ok_or("usage: vmresults TRACE [MAX_EVENTS] [KEY=VALUE ...]")?;
    let max: u64 = args.get(2).map(|s| s.parse()).transpose()?.unwrap_or(u64::MAX);
    let extra: Vec<String> = args.iter().skip(3).cloned().collect();
    let events = vmlab_trace::read_prefix(Path::new(path), None, max)?;
    let mut packed = vmlab_trace::PackedBlock::new();
    packed.pack(&events);
    for scheme in Scheme::ALL {
        let mut overrides = vec![format!("scheme={}", scheme.name())];
        overrides.extend(extra.iter().cloned());
        let cfg = load("jacob-mudge", &overrides)?;
        let mut sim = if general { VmSim::general(cfg)? } else { VmSim::new(cfg)? };
        if general {
            sim.feed(&events)?;
        } else {
            sim.feed_packed(&packed, packed.len())?;
        }
        println!("{}", serde_json::to_string(&sim.result(path))?);
    }
    Ok(())
}
