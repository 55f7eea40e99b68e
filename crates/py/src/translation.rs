//! Translating runs: schemes, TLBs and VMCPI (crate `vmlab-translation`).

use std::path::Path;

use pyo3::prelude::*;
use vmlab_translation::{config, onepass_groups, OnePass, SimError, VmConfig, VmSim};

use crate::machine::{parse_format, to_json};
use crate::signals::Checkpoint;
use crate::{guard, vmlab_error};

/// Names of the shipped translation presets.
#[pyfunction]
pub fn vm_preset_names() -> Vec<String> {
    config::BUILTIN.iter().map(|(n, _)| (*n).to_string()).collect()
}

/// Loads a translation preset (name or path) with `KEY=VALUE` overrides and
/// returns its configuration as JSON, checked by building the simulator.
#[pyfunction]
pub fn vm_load_config(name_or_path: &str, overrides: Vec<String>) -> PyResult<String> {
    guard("vm_load_config", || {
        let cfg = config::load(name_or_path, &overrides).map_err(vmlab_error)?;
        VmSim::new(cfg.clone()).map_err(vmlab_error)?;
        to_json(&cfg)
    })
}

/// Runs every configuration (JSON) over one trace, decoding it once: each
/// block of events is fed to all simulators, spread over `threads` threads.
/// Configurations that differ only in their L2 share one simulator
/// (`vmlab_translation::fanout_groups`): their L1s and TLBs run once; and
/// where only the L1 sizes differ too, one pass serves them all
/// (`vmlab_translation::onepass_groups`: the TLBs, tables and handlers
/// run once, each L1 size replays what reached the smallest's caches).
/// Returns one result (JSON) per configuration, in order.
/// `progress(events, bytes_read, bytes_total)` is called between blocks.
/// `max_events` stops after that many events (a prefix of the trace).
#[pyfunction]
#[pyo3(signature = (configs, trace_path, format=None, threads=1, progress=None, max_events=None))]
pub fn vm_sweep(
    py: Python<'_>,
    configs: Vec<String>,
    trace_path: &str,
    format: Option<&str>,
    threads: usize,
    progress: Option<Py<PyAny>>,
    max_events: Option<u64>,
) -> PyResult<Vec<String>> {
    let max_events = max_events.unwrap_or(u64::MAX);
    let n_cfgs = configs.len();
    let cfgs: Vec<VmConfig> = configs
        .iter()
        .map(|c| serde_json::from_str(c).map_err(|e| vmlab_error(format!("translation configuration: {e}"))))
        .collect::<PyResult<_>>()?;
    let format = parse_format(format)?;
    let mut checkpoint = Checkpoint::new(progress);
    let outcome = py.detach(|| {
        guard("vm_sweep", || {
            let groups = onepass_groups(&cfgs);
            let mut sims: Vec<OnePass> = groups
                .iter()
                .map(|p| OnePass::new(p.iter().map(|f| f.iter().map(|&i| cfgs[i].clone()).collect()).collect()))
                .collect::<Result<_, _>>()
                .map_err(vmlab_error)?;
            let mut source = vmlab_trace::open(Path::new(trace_path), format).map_err(vmlab_error)?;
            let threads = threads.clamp(1, sims.len().max(1));
            let per = sims.len().div_ceil(threads).max(1);
            // Packed words (8 bytes an event, as the decoder gives them) are
            // what every simulator of the batch walks: a third of the bytes
            // of `Event`s, and no conversion.
            let mut buf = vmlab_trace::PackedBlock::new();
            let mut n = 0u64;
            let mut run = || -> Result<(), SimError> {
                while n < max_events && source.fill_packed(&mut buf)? {
                    let room = usize::try_from(max_events - n).unwrap_or(usize::MAX);
                    let take = buf.len().min(room);
                    let block = &buf;
                    let outcomes: Vec<Result<(), SimError>> = std::thread::scope(|s| {
                        let handles: Vec<_> = sims
                            .chunks_mut(per)
                            .map(|chunk| {
                                s.spawn(move || {
                                    for sim in chunk {
                                        sim.feed_packed(block, take)?;
                                    }
                                    Ok(())
                                })
                            })
                            .collect();
                        handles
                            .into_iter()
                            .map(|h| {
                                h.join().unwrap_or_else(|_| Err(SimError::Config("a simulator thread panicked".into())))
                            })
                            .collect()
                    });
                    outcomes.into_iter().collect::<Result<(), SimError>>()?;
                    n += take as u64;
                    let (read, total) = source.progress();
                    checkpoint
                        .check(|py, cb| cb.call1(py, (n, read, total)).map(drop))
                        .map_err(|reason| SimError::Interrupted { events: n, reason })?;
                }
                Ok(())
            };
            let ran = run();
            checkpoint.final_check();
            ran.map_err(vmlab_error)?;
            let mut out = vec![String::new(); n_cfgs];
            for (sim, g) in sims.iter_mut().zip(&groups) {
                for (r, &i) in sim.results(trace_path).iter().zip(g.iter().flatten()) {
                    out[i] = to_json(r)?;
                }
            }
            Ok(out)
        })
    });
    if let Some(e) = checkpoint.take() {
        return Err(e);
    }
    outcome
}
