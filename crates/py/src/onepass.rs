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
#[pyfunction]
#[pyo3(signature = (configs_json, swept, trace_path, format=None, progress=None))]
pub fn onepass_run(
    py: Python<'_>,
    configs_json: Vec<String>,
    swept: &str,
    trace_path: &str,
    format: Option<&str>,
    progress: Option<Py<PyAny>>,
) -> PyResult<Vec<String>> {
    let configs = parse_configs(&configs_json)?;
    let format = parse_format(format)?;
    let mut checkpoint = Checkpoint::new(progress);
    let outcome = py.detach(|| {
        guard("onepass_run", || {
            let mut pass = vmlab_onepass::OnePass::new(configs, swept).map_err(vmlab_error)?;
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
