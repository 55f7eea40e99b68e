//! The error of a sampled sweep against the exact one:
//! `shards_error CONFIGS.json TRACE RATE [SEEDS]` runs the exact pass once
//! and the sampled pass with hash seeds 0..SEEDS (default 1), and prints,
//! per seed, the mean and the largest absolute error of the swept cache's
//! miss ratio over the configurations (docs/performance.md has the
//! commands and the numbers). CONFIGS.json as for `curve`.

use std::path::Path;

use vmlab_machine::{MachineConfig, RunResult};
use vmlab_onepass::{OnePass, Sampling};

fn miss_ratio(r: &RunResult, cache: &str) -> f64 {
    let Some(c) = r.caches.iter().find(|c| c.name == cache) else { return f64::NAN };
    let s = &c.stats;
    let (a, m) =
        (s.ifetch.accesses + s.read.accesses + s.write.accesses, s.ifetch.misses + s.read.misses + s.write.misses);
    if a == 0 {
        0.0
    } else {
        m as f64 / a as f64
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let (configs, trace, rate, seeds) = match args.as_slice() {
        [_, c, t, r] => (c, t, r.parse::<f64>()?, 1u64),
        [_, c, t, r, s] => (c, t, r.parse::<f64>()?, s.parse::<u64>()?),
        _ => return Err("usage: shards_error CONFIGS.json TRACE RATE [SEEDS]".into()),
    };
    let configs: Vec<MachineConfig> = serde_json::from_str(&std::fs::read_to_string(configs)?)?;
    let plan = vmlab_onepass::passes(&configs);
    let [vmlab_onepass::Pass { swept: Some(swept), .. }] = plan.as_slice() else {
        return Err(format!("the configurations are not one pass: {plan:?}").into());
    };
    let run = |sampling: Option<Sampling>| -> Result<Vec<RunResult>, Box<dyn std::error::Error>> {
        let mut pass = OnePass::sampled(configs.clone(), swept, sampling)?;
        let mut src = vmlab_trace::open(Path::new(trace), None)?;
        Ok(pass.run(&mut *src, trace, &mut |_| Ok(()))?)
    };
    let exact: Vec<f64> = run(None)?.iter().map(|r| miss_ratio(r, swept)).collect();
    let mut worst = 0f64;
    let mut means = Vec::new();
    for seed in 0..seeds {
        let sampled: Vec<f64> = run(Some(Sampling { rate, seed }))?.iter().map(|r| miss_ratio(r, swept)).collect();
        let errors: Vec<f64> = exact.iter().zip(&sampled).map(|(e, s)| (e - s).abs()).collect();
        if std::env::var_os("SHARDS_ERROR_EACH").is_some() {
            for ((c, e), s) in configs.iter().zip(&exact).zip(&sampled) {
                let cache = c.caches().into_iter().find(|(n, _)| n == swept).map(|(_, c)| c.clone());
                let shape = cache.map(|c| format!("{} {:?}", c.size.0, c.assoc)).unwrap_or_default();
                println!("  {shape}: exact {e:.4} sampled {s:.4}");
            }
        }
        let mean = errors.iter().sum::<f64>() / errors.len() as f64;
        let max = errors.iter().copied().fold(0.0, f64::max);
        println!("seed {seed}: mean |error| {mean:.5}, max |error| {max:.5} over {} configurations", errors.len());
        worst = worst.max(max);
        means.push(mean);
    }
    let avg = means.iter().sum::<f64>() / means.len() as f64;
    let max_mean = means.iter().copied().fold(0.0, f64::max);
    println!(
        "[{swept}] at R = {rate}: mean |error| {avg:.5} over {seeds} seeds (worst seed {max_mean:.5}), largest single error {worst:.5}"
    );
    Ok(())
}
