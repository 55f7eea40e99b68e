//! One run of one kind, for counting its instructions under callgrind
//! (docs/performance.md, "Sampled sweeps and TLB sweeps"):
//!
//! ```text
//! sweep_cost single CONFIGS.json TRACE        the first configuration alone (Machine)
//! sweep_cost exact CONFIGS.json TRACE         every configuration in one exact pass
//! sweep_cost sample RATE CONFIGS.json TRACE   the same pass, the swept cache sampled
//! sweep_cost tlb SPECS TRACE                  one TLB point alone (TlbRun)
//! sweep_cost tlbs SPECS TRACE                 entries 1..=4096 (powers of two) x 1, 4, full ways, one pass
//! ```
//!
//! SPECS: comma-separated `tlb.KEY=VALUE` overrides of the default TLB
//! point (`-` for none). With `SWEEP_COST_EVENTS=N` the run stops after the
//! block that reaches N events; the events run are printed on stderr
//! (instructions per reference = callgrind's total / that count).

use std::path::Path;

use vmlab_machine::{Machine, MachineConfig};
use vmlab_onepass::{OnePass, Sampling, TlbPoint, TlbRun, TlbSweep};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

fn configs(path: &str) -> Result<(Vec<MachineConfig>, String)> {
    let configs: Vec<MachineConfig> = serde_json::from_str(&std::fs::read_to_string(path)?)?;
    let plan = vmlab_onepass::passes(&configs);
    let [vmlab_onepass::Pass { swept: Some(swept), .. }] = plan.as_slice() else {
        return Err(format!("the configurations are not one pass: {plan:?}").into());
    };
    Ok((configs, swept.clone()))
}

fn specs(s: &str) -> Vec<String> {
    if s == "-" {
        Vec::new()
    } else {
        s.split(',').map(str::to_string).collect()
    }
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let open = |t: &str| vmlab_trace::open(Path::new(t), None);
    let limit: u64 = std::env::var("SWEEP_COST_EVENTS").ok().and_then(|v| v.parse().ok()).unwrap_or(u64::MAX);
    let mut seen = 0u64;
    let done = &mut |p: vmlab_machine::Progress| {
        seen = p.events;
        if p.events >= limit {
            Err("the event limit".to_string())
        } else {
            Ok(())
        }
    };
    let outcome = run(&args, &open, done);
    eprintln!("events: {seen}");
    match outcome {
        Err(e) if e.to_string().contains("the event limit") => Ok(()),
        other => other,
    }
}

type Open = dyn Fn(&str) -> std::result::Result<Box<dyn vmlab_trace::EventSource>, vmlab_trace::TraceError>;

fn run(
    args: &[&str],
    open: &Open,
    done: &mut dyn FnMut(vmlab_machine::Progress) -> std::result::Result<(), String>,
) -> Result<()> {
    match args {
        ["single", c, t] => {
            let (c, _) = configs(c)?;
            Machine::new(c[0].clone())?.run(&mut *open(t)?, t, done)?;
        }
        ["exact", c, t] => {
            let (c, swept) = configs(c)?;
            OnePass::new(c, &swept)?.run(&mut *open(t)?, t, done)?;
        }
        ["sample", rate, c, t] => {
            let (c, swept) = configs(c)?;
            let sampling = Sampling { rate: rate.parse()?, seed: 0 };
            OnePass::sampled(c, &swept, Some(sampling))?.run(&mut *open(t)?, t, done)?;
        }
        ["tlb", s, t] => {
            let point = TlbPoint::default().with_overrides(&specs(s))?;
            let r = TlbRun::new(point)?.run(&mut *open(t)?, t, done)?;
            println!("{:?}", r[0].stats);
        }
        ["tlbs", s, t] => {
            let mut points = Vec::new();
            for k in 0..=12 {
                for assoc in ["1", "4", "full"] {
                    let entries = 1u32 << k;
                    if assoc == "4" && entries < 4 {
                        continue;
                    }
                    let mut o = specs(s);
                    o.extend([format!("tlb.entries={entries}"), format!("tlb.assoc={assoc}")]);
                    points.push(TlbPoint::default().with_overrides(&o)?);
                }
            }
            let n = points.len();
            TlbSweep::new(points)?.run(&mut *open(t)?, t, done)?;
            println!("{n} TLB points in one pass");
        }
        _ => return Err("usage: see the comment at the top of examples/sweep_cost.rs".into()),
    }
    Ok(())
}
