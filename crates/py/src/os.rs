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
