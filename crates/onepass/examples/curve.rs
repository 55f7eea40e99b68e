//! Times one pass over a trace for many configurations against one run of
//! the first alone: `curve CONFIGS.json TRACE`, where CONFIGS.json is a
//! JSON array of machine configurations (`vmlab.Grid(...).configs()`
//! writes them; docs/performance.md has the command). With a third
//! argument, `run` or `pass`, it does that once and untimed, for
//! `valgrind --tool=callgrind` (instruction counts are deterministic; the
//! wall clock of a shared host is not).

use std::path::Path;
use std::time::Instant;

use vmlab_machine::{Machine, MachineConfig};

type Res = Result<(), Box<dyn std::error::Error>>;

fn main() -> Res {
    let args: Vec<String> = std::env::args().collect();
    let (configs, trace, once) = match args.as_slice() {
        [_, c, t] => (c, t, None),
        [_, c, t, m] if m == "run" || m == "pass" => (c, t, Some(m.as_str())),
        _ => return Err("usage: curve CONFIGS.json TRACE [run|pass]".into()),
    };
    let configs: Vec<MachineConfig> = serde_json::from_str(&std::fs::read_to_string(configs)?)?;
    let plan = vmlab_onepass::passes(&configs);
    let [vmlab_onepass::Pass { swept: Some(swept), members }] = plan.as_slice() else {
        return Err(format!("the configurations are not one pass: {plan:?}").into());
    };
    let mut run = || -> Res {
        let mut m = Machine::new(configs[0].clone())?;
        let mut src = vmlab_trace::open(Path::new(trace), None)?;
        m.run(&mut *src, trace, &mut |_| Ok(()))?;
        Ok(())
    };
    let mut pass = || -> Res {
        let mut pass = vmlab_onepass::OnePass::new(configs.clone(), swept)?;
        let mut src = vmlab_trace::open(Path::new(trace), None)?;
        pass.run(&mut *src, trace, &mut |_| Ok(()))?;
        Ok(())
    };
    match once {
        Some("run") => return run(),
        Some(_) => return pass(),
        None => {}
    }
    let best = |f: &mut dyn FnMut() -> Res| {
        let mut times = Vec::new();
        for _ in 0..3 {
            let t = Instant::now();
            f()?;
            times.push(t.elapsed().as_secs_f64());
        }
        Ok::<f64, Box<dyn std::error::Error>>(times.into_iter().fold(f64::INFINITY, f64::min))
    };
    let one = best(&mut run)?;
    let all = best(&mut pass)?;
    println!(
        "{} configurations sweeping [{swept}]: one run {one:.3} s, one pass {all:.3} s, ratio {:.2} (best of 3)",
        members.len(),
        all / one
    );
    Ok(())
}
