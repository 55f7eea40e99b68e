//! One-pass sweeps (`vmlab_onepass`): which configurations share a pass,
//! and the pass itself.

use std::path::Path;

use pyo3::prelude::*;
use vmlab_machine::{MachineConfig, RunError};

use crate::machine::{parse_format, to_json};
use crate::signals::Checkpoint;
use crate::{guard, vmlab_error};

fn parse_configs(configs_json: &[String]) -> PyResult<Vec<MachineConfig>> {
    configs_json
        .iter()
        .map(|c| serde_json::from_str(c).map_err(|e| vmlab_error(format!("machine configuration: {e}"))))
        .collect()
}

/// Groups configurations (JSON) into passes: `[(swept cache name or None,
/// [index, ...]), ...]`; a pass with a name runs its members in one pass
/// over a trace (`onepass_run`), one without is a single configuration.
#[pyfunction]
pub fn onepass_plan(configs_json: Vec<String>) -> PyResult<Vec<(Option<String>, Vec<usize>)>> {
    guard("onepass_plan", || {
        let configs = parse_configs(&configs_json)?;
        Ok(vmlab_onepass::passes(&configs).into_iter().map(|p| (p.swept, p.members)).collect())
    })
}

/// Why a configuration (JSON) cannot be part of a pass sweeping `swept`,
/// or `None`.
#[pyfunction]
pub fn onepass_refusal(config_json: &str, swept: &str) -> PyResult<Option<String>> {
    guard("onepass_refusal", || Ok(vmlab_onepass::refusal(&parse_configs(&[config_json.to_string()])?[0], swept)))
}

/// Runs every configuration (JSON) in one pass over a trace, sweeping the
/// cache `swept`; returns each `RunResult` as JSON, in order. Progress and
/// Ctrl-C as `run`.
/// With `sample`, `(rate, seed)` with the rate in (0, 1], the swept cache
/// is sampled (`vmlab_onepass::shards`, SHARDS): its counts are estimates.
#[pyfunction]
#[pyo3(signature = (configs_json, swept, trace_path, format=None, progress=None, sample=None))]
pub fn onepass_run(
    py: Python<'_>,
    configs_json: Vec<String>,
    swept: &str,
    trace_path: &str,
    format: Option<&str>,
    progress: Option<Py<PyAny>>,
    sample: Option<(f64, u64)>,
) -> PyResult<Vec<String>> {
    let configs = parse_configs(&configs_json)?;
    let sampling = sample.map(|(rate, seed)| vmlab_onepass::Sampling { rate, seed });
    let format = parse_format(format)?;
    let mut checkpoint = Checkpoint::new(progress);
    let outcome = py.detach(|| {
        guard("onepass_run", || {
            let mut pass = vmlab_onepass::OnePass::sampled(configs, swept, sampling).map_err(vmlab_error)?;
            let mut source = vmlab_trace::open(Path::new(trace_path), format).map_err(vmlab_error)?;
            let results = pass.run(&mut *source, trace_path, &mut |p| {
                checkpoint.check(|py, cb| cb.call1(py, (p.events, p.bytes_read, p.bytes_total)).map(drop))
            });
            checkpoint.final_check();
            Ok(results)
        })
    })?;
    if let Some(e) = checkpoint.take() {
        return Err(e);
    }
    outcome.map_err(|e: RunError| vmlab_error(e)).and_then(|results| results.iter().map(to_json).collect())
}

/// Why the cache `swept` of a configuration (JSON) cannot be swept
/// sampled, or `None`.
#[pyfunction]
pub fn onepass_sample_refusal(config_json: &str, swept: &str) -> PyResult<Option<String>> {
    guard("onepass_sample_refusal", || {
        let config = parse_configs(&[config_json.to_string()])?.remove(0);
        Ok(match config.caches().into_iter().find(|(n, _)| *n == swept) {
            Some((_, c)) => vmlab_onepass::sample_refusal(c),
            None => Some(format!("there is no [{swept}]")),
        })
    })
}

fn parse_points(points_json: &[String]) -> PyResult<Vec<vmlab_onepass::TlbPoint>> {
    points_json.iter().map(|c| serde_json::from_str(c).map_err(|e| vmlab_error(format!("TLB point: {e}")))).collect()
}

/// A TLB point (JSON): the default one (64 fully associative LRU entries of
/// 4 KB pages, ASID-tagged, unified) with `tlb.KEY=VALUE` overrides, checked.
#[pyfunction]
pub fn tlb_load_config(overrides: Vec<String>) -> PyResult<String> {
    guard("tlb_load_config", || {
        let point = vmlab_onepass::TlbPoint::default().with_overrides(&overrides).map_err(vmlab_error)?;
        to_json(&point)
    })
}

/// Groups TLB points (JSON) into passes: `[(shared, [index, ...]), ...]`.
#[pyfunction]
pub fn tlb_plan(points_json: Vec<String>) -> PyResult<Vec<(bool, Vec<usize>)>> {
    guard("tlb_plan", || Ok(vmlab_onepass::tlb_passes(&parse_points(&points_json)?)))
}

/// Why a TLB point (JSON) cannot share a one-pass sweep, or `None`.
#[pyfunction]
pub fn tlb_refusal(point_json: &str) -> PyResult<Option<String>> {
    guard("tlb_refusal", || Ok(vmlab_onepass::tlb_refusal(&parse_points(&[point_json.to_string()])?[0])))
}

/// Runs TLB points (JSON) over a trace: one pass for all of them when
/// `shared` (they must be one group of `tlb_plan`), else each alone.
/// Returns each `TlbResult` as JSON, in order. Progress and Ctrl-C as `run`.
#[pyfunction]
#[pyo3(signature = (points_json, trace_path, shared, format=None, progress=None))]
pub fn tlb_run(
    py: Python<'_>,
    points_json: Vec<String>,
    trace_path: &str,
    shared: bool,
    format: Option<&str>,
    progress: Option<Py<PyAny>>,
) -> PyResult<Vec<String>> {
    let points = parse_points(&points_json)?;
    let format = parse_format(format)?;
    let mut checkpoint = Checkpoint::new(progress);
    let outcome = py.detach(|| {
        guard("tlb_run", || {
            let mut tick = |p: vmlab_machine::Progress| {
                checkpoint.check(|py, cb| cb.call1(py, (p.events, p.bytes_read, p.bytes_total)).map(drop))
            };
            let run_all = || -> PyResult<Result<Vec<vmlab_onepass::TlbResult>, RunError>> {
                if shared {
                    let mut sweep = vmlab_onepass::TlbSweep::new(points).map_err(vmlab_error)?;
                    let mut source = vmlab_trace::open(Path::new(trace_path), format).map_err(vmlab_error)?;
                    return Ok(sweep.run(&mut *source, trace_path, &mut tick));
                }
                let mut results = Vec::new();
                for p in points {
                    let mut run = vmlab_onepass::TlbRun::new(p).map_err(vmlab_error)?;
                    let mut source = vmlab_trace::open(Path::new(trace_path), format).map_err(vmlab_error)?;
                    match run.run(&mut *source, trace_path, &mut tick) {
                        Ok(r) => results.extend(r),
                        Err(e) => return Ok(Err(e)),
                    }
                }
                Ok(Ok(results))
            };
            let results = run_all();
            checkpoint.final_check();
            results
        })
    })?;
    if let Some(e) = checkpoint.take() {
        return Err(e);
    }
    outcome.map_err(|e: RunError| vmlab_error(e)).and_then(|results| results.iter().map(to_json).collect())
}
