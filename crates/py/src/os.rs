//! The OS side (`vmlab-os`): scenario runs, the seed 000 measurements and
//! the OS cost presets, as JSON.

use pyo3::prelude::*;

use crate::machine::to_json;
use crate::{guard, vmlab_error};

/// Runs a scenario file (TOML); returns the outcome (counters, faults,
/// oracle violations) as JSON. Errors name the file and line.
#[pyfunction]
pub fn os_scenario(py: Python<'_>, path: String) -> PyResult<String> {
    py.detach(|| guard("os_scenario", || to_json(&vmlab_os::scenario::run_file(&path).map_err(vmlab_error)?)))
}

/// Every S2 measurement (Tables 1-2 set-ups, unmap, IPC designs on the
/// virtually and physically addressed machine, pmap cases) with the OS cost
/// preset `cost` (name or .toml path) for path lengths, as JSON.
#[pyfunction]
pub fn os_s2_measurements(py: Python<'_>, cost: String) -> PyResult<String> {
    py.detach(|| {
        guard("os_s2_measurements", || {
            let c = vmlab_os::CostModel::load(&cost).map_err(vmlab_error)?;
            to_json(&vmlab_os::experiments::all(&c).map_err(vmlab_error)?)
        })
    })
}

/// The OS cost preset `cost` (name or .toml path) as JSON.
#[pyfunction]
pub fn os_cost_model(cost: String) -> PyResult<String> {
    guard("os_cost_model", || to_json(&vmlab_os::CostModel::load(&cost).map_err(vmlab_error)?))
}

/// Runs the trace at `path` through the OS model on machine preset
/// `machine` with OS cost preset `cost` and consistency `policy`; `oracle`
/// turns the consistency oracle on. Returns the outcome as JSON.
#[pyfunction]
#[pyo3(signature = (path, machine, policy, cost = "hp9000-834".to_string(), oracle = true))]
pub fn os_trace(
    py: Python<'_>,
    path: String,
    machine: String,
    policy: String,
    cost: String,
    oracle: bool,
) -> PyResult<String> {
    py.detach(|| {
        guard("os_trace", || {
            let m = vmlab_machine::preset::load(&machine, &[]).map_err(|e| vmlab_error(format!("machine: {e}")))?;
            let c = vmlab_os::CostModel::load(&cost).map_err(vmlab_error)?;
            let p = vmlab_os::Policy::parse(&policy).map_err(vmlab_error)?;
            let mut src =
                vmlab_trace::open(std::path::Path::new(&path), None).map_err(|e| vmlab_error(e.to_string()))?;
            to_json(&vmlab_os::run_trace(&mut *src, &m, c, p, oracle).map_err(|e| vmlab_error(format!("{path}: {e}")))?)
        })
    })
}

/// Replays a trace with system-call markers (a path, or a list of event
/// tuples) through the OS model: mappings from the markers, references
/// through the hat and `policy` on machine preset `machine` with
/// `overrides` (`KEY=VALUE`); `tlb_entries` resizes the cost preset's data
/// TLB. Returns the outcome as JSON.
#[pyfunction]
#[pyo3(signature = (trace, machine, policy, cost = "hp9000-834".to_string(), oracle = true,
                    overrides = Vec::new(), tlb_entries = None))]
pub fn os_replay(
    trace: &Bound<'_, PyAny>,
    machine: String,
    policy: String,
    cost: String,
    oracle: bool,
    overrides: Vec<String>,
    tlb_entries: Option<u32>,
) -> PyResult<String> {
    let (path, events) = match trace.extract::<String>() {
        Ok(p) => (Some(p), Vec::new()),
        Err(_) => (None, crate::events::events_from_python(trace)?),
    };
    trace.py().detach(|| {
        guard("os_replay", || {
            let m =
                vmlab_machine::preset::load(&machine, &overrides).map_err(|e| vmlab_error(format!("machine: {e}")))?;
            let mut c = vmlab_os::CostModel::load(&cost).map_err(vmlab_error)?;
            if let Some(n) = tlb_entries {
                match c.tlb.as_mut() {
                    Some(t) if n > 0 => t.entries = n,
                    _ => {
                        return Err(vmlab_error(format!("tlb_entries={n}: needs a cost preset with a [tlb] and n > 0")))
                    }
                }
            }
            let p = vmlab_os::Policy::parse(&policy).map_err(vmlab_error)?;
            let out = match &path {
                Some(path) => {
                    let mut src =
                        vmlab_trace::open(std::path::Path::new(path), None).map_err(|e| vmlab_error(e.to_string()))?;
                    vmlab_os::replay_trace(&mut *src, &m, c, p, oracle)
                        .map_err(|e| vmlab_error(format!("{path}: {e}")))?
                }
                None => vmlab_os::replay_events(&events, &m, c, p, oracle).map_err(vmlab_error)?,
            };
            to_json(&out)
        })
    })
}
