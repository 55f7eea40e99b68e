//! Time of an S1 sweep, estimated from a sample of its configurations:
//! `cargo run --release -p vmlab-translation --example vmsweep -- TRACE
//! [MAX_EVENTS] [EVERY] [--onepass] [--schemes=ultrix,mach,...]`. Builds the `paper` grid of
//! python/vmlab/studies/s1.py (6 schemes x L2 512K, 1M, 2M per side, i.e.
//! the paper's 1/2/4 MB totals, x 7 line pairs x L1 1-128 KB per side, 1,008
//! sweep points), groups them as `vm_sweep` does (configurations that
//! differ only in L2 share one simulator, `fanout_groups`), runs every
//! EVERY-th simulator (default 7) over the same decoded events, one after
//! another on one thread, and reports the mean rate per configuration and
//! what the whole grid would take on a 100 M-reference trace on 2 cores at
//! that rate. `--onepass` groups them as `vm_sweep` now does (the L1
//! sizes of a TLB scheme share one pass, `onepass_groups`) instead of by
//! L2 alone; `--schemes` keeps only those schemes' configurations. Per
//! scheme it also prints the share of words the recording machine's hit
//! loop completed: the most an L1-hit filter shared across configurations
//! could take over (docs/performance.md); under `--onepass` SOFTVM and
//! SPUR configurations with equal L1s share one L1-hit filter (then the
//! share is of words the first one's skips completed), unless
//! `--no-filter` (each runs alone, as before the filter). `--l1=KB` keeps
//! only the configurations with that L1 size per side, `--l1-line=B` those
//! with that L1 line size. `--dump=FILE` writes every sampled
//! configuration's result, one JSON line each (untimed), to diff a speed
//! change's results before and after.

use std::path::Path;
use std::time::Instant;

use vmlab_translation::{fanout_groups, filter_refusal, load, onepass_groups, OnePass};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let all: Vec<String> = std::env::args().collect();
    let onepass = all.iter().any(|a| a == "--onepass");
    let no_filter = all.iter().any(|a| a == "--no-filter");
    let dump: Option<String> = all.iter().find_map(|a| a.strip_prefix("--dump=")).map(str::to_string);
    let mut dumped = String::new();
    let l1_only: Option<u64> = all.iter().find_map(|a| a.strip_prefix("--l1=")).map(str::parse).transpose()?;
    let line_only: Option<u64> = all.iter().find_map(|a| a.strip_prefix("--l1-line=")).map(str::parse).transpose()?;
    let schemes: Vec<String> = all
        .iter()
        .find_map(|a| a.strip_prefix("--schemes="))
        .unwrap_or("ultrix,mach,intel,parisc,softvm,spur")
        .split(',')
        .map(str::to_string)
        .collect();
    let args: Vec<String> = all.into_iter().filter(|a| !a.starts_with("--")).collect();
    let path = args.get(1).ok_or("usage: vmsweep TRACE [MAX_EVENTS] [EVERY]")?;
    let max: u64 = args.get(2).map(|s| s.parse()).transpose()?.unwrap_or(10_000_000);
    let every: usize = args.get(3).map(|s| s.parse()).transpose()?.unwrap_or(7).max(1);
    let events = vmlab_trace::read_prefix(Path::new(path), None, max)?;
    let mut grid = Vec::new();
    for scheme in &schemes {
        // Per side, as s1.py's GRIDS["paper"].l2_kb.
        for l2 in [512, 1024, 2048] {
            for (a, b) in [(16, 16), (16, 32), (16, 64), (32, 32), (32, 64), (64, 64), (64, 128)]
                .into_iter()
                .filter(|&(a, _)| line_only.is_none_or(|o| o == a))
            {
                for l1 in [1, 2, 4, 8, 16, 32, 64, 128].into_iter().filter(|&k| l1_only.is_none_or(|o| o == k)) {
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
    // Packed words, as `vm_sweep` reads a trace (not timed).
    let mut packed = vmlab_trace::PackedBlock::new();
    packed.pack(&events);
    // As `vm_sweep` runs them: configurations that differ only below L1
    // share one simulator (`fanout_groups`); every EVERY-th group is timed.
    let cfgs: Vec<_> = grid.iter().map(|o| load("jacob-mudge", o)).collect::<Result<_, _>>()?;
    // Each group: fan-outs (lists of configurations), one pass in all.
    let mut groups: Vec<Vec<Vec<usize>>> =
        if onepass { onepass_groups(&cfgs) } else { fanout_groups(&cfgs).into_iter().map(|g| vec![g]).collect() };
    if no_filter {
        // Filter groups (fan-outs of one that `filter_refusal` accepts)
        // back into one simulator per configuration.
        let filtered = |g: &Vec<Vec<usize>>| g.len() > 1 && filter_refusal(&cfgs[g[0][0]], &cfgs[g[0][0]]).is_none();
        groups = groups
            .into_iter()
            .flat_map(|g| if filtered(&g) { g.into_iter().map(|f| vec![f]).collect() } else { vec![g] })
            .collect();
        groups.sort_by_key(|g| g.iter().flatten().min().copied());
    }
    let (mut secs, mut runs, mut sampled_cfgs) = (0.0, 0usize, 0usize);
    // Per scheme: seconds, configurations, runs, and words the recording
    // machine's hit loop completed (the most an L1-hit filter shared across
    // configurations could take over from each).
    let mut by_scheme: Vec<(String, f64, usize, usize, u64)> = Vec::new();
    for g in groups.iter().step_by(every) {
        let mut sim = OnePass::new(g.iter().map(|f| f.iter().map(|&i| cfgs[i].clone()).collect()).collect())?;
        let t = Instant::now();
        sim.feed_packed(&packed, packed.len())?;
        let s = t.elapsed().as_secs_f64();
        if dump.is_some() {
            for r in sim.results(path) {
                dumped.push_str(&serde_json::to_string(&r)?);
                dumped.push('\n');
            }
        }
        secs += s;
        runs += 1;
        let size = sim.len();
        sampled_cfgs += size;
        let name = cfgs[g[0][0]].scheme.name().to_string();
        let hit = sim.hit_run_words();
        match by_scheme.iter_mut().find(|x| x.0 == name) {
            Some(x) => {
                x.1 += s;
                x.2 += size;
                x.3 += 1;
                x.4 += hit;
            }
            None => by_scheme.push((name, s, size, 1, hit)),
        }
    }
    for (name, s, k, r, hit) in &by_scheme {
        println!(
            "{name:<8} {:6.1} M refs/s per configuration ({k} configurations); hit loop: {:.1} % of words",
            n * *k as f64 / s / 1e6,
            100.0 * *hit as f64 / (packed.len() as f64 * *r as f64)
        );
    }
    if let Some(d) = &dump {
        std::fs::write(d, dumped)?;
    }
    let rate = n * sampled_cfgs as f64 / secs;
    let grid_secs = grid.len() as f64 * 100e6 / rate / 2.0;
    println!(
        "{runs} of {} simulators ({sampled_cfgs} of {} configurations) x {} events: mean {:.1} M refs/s per configuration; the grid on 100 M references, 2 cores: {:.0} min",
        groups.len(),
        grid.len(),
        events.len(),
        rate / 1e6,
        grid_secs / 60.0
    );
    Ok(())
}
