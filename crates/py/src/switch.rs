//! Study S5's context switches (`vmlab-os`'s `switch` and `lmbench`): the
//! switch presets, and captured lmbench-like programs replayed under each
//! mechanism, as JSON.

use pyo3::prelude::*;

use crate::machine::to_json;
use crate::{guard, vmlab_error};

use vmlab_os::lmbench::{self, Program};
use vmlab_os::switch::{Scheme, SwitchPreset};
use vmlab_os::tlb_reach::ArchitectureTlbs;

/// The switch preset `name` (or a .toml path) as JSON.
#[pyfunction]
pub fn switch_preset(name: String) -> PyResult<String> {
    guard("switch_preset", || to_json(&SwitchPreset::load(&name).map_err(vmlab_error)?))
}

/// The context-switch mechanisms preset `name` can run, by name.
#[pyfunction]
pub fn switch_schemes(name: String) -> PyResult<Vec<String>> {
    guard("switch_schemes", || {
        let p = SwitchPreset::load(&name).map_err(vmlab_error)?;
        Ok(lmbench::schemes_for(&p).iter().map(|s| s.name().to_string()).collect())
    })
}

/// Replays `program` (JSON, `vmlab_os::lmbench::Program`: a captured
/// multi-process trace and its operation count) on switch preset `preset`
/// under mechanism `scheme`; the measured operations as JSON.
#[pyfunction]
pub fn switch_run(py: Python<'_>, preset: String, scheme: String, program: String) -> PyResult<String> {
    py.detach(|| {
        guard("switch_run", || {
            let p = SwitchPreset::load(&preset).map_err(vmlab_error)?;
            let s = Scheme::from_name(&scheme).map_err(vmlab_error)?;
            let prog: Program = serde_json::from_str(&program).map_err(|e| vmlab_error(format!("program: {e}")))?;
            to_json(&lmbench::run(&p, s, &prog).map_err(vmlab_error)?)
        })
    })
}

/// The direct and indirect cost of a cache and a TLB flush on `preset` for a
/// working set (`vmlab_os::lmbench::flush_cost`), as JSON.
#[pyfunction]
pub fn switch_flush_cost(
    py: Python<'_>,
    preset: String,
    d_lines: u64,
    dirty: u64,
    i_lines: u64,
    pages: u64,
) -> PyResult<String> {
    py.detach(|| {
        guard("switch_flush_cost", || {
            let p = SwitchPreset::load(&preset).map_err(vmlab_error)?;
            to_json(&lmbench::flush_cost(&p, d_lines, dirty, i_lines, pages).map_err(vmlab_error)?)
        })
    })
}

/// The TLB presets of seed 001's coverage table (`presets/tlb`), each TLB's
/// reach at its smallest and largest page computed, as JSON.
#[pyfunction]
pub fn tlb_reach() -> PyResult<String> {
    guard("tlb_reach", || {
        let rows: Vec<_> =
            ArchitectureTlbs::builtin().map_err(vmlab_error)?.iter().map(ArchitectureTlbs::reach).collect();
        to_json(&rows)
    })
}
