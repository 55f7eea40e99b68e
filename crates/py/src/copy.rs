//! Byte copying (`vmlab-copy`, study S4): the routines, the CPU timing
//! presets, the fit of a machine's two free parameters, and runs of copy
//! cases, as JSON.

use pyo3::prelude::*;
use vmlab_copy::{Case, CpuTiming};

use crate::machine::to_json;
use crate::{guard, vmlab_error};

/// The shipped copy routines: name, source, bytes an iteration, alignment,
/// and whether it has an unaligned path.
#[pyfunction]
pub fn copy_routines() -> PyResult<String> {
    guard("copy_routines", || {
        let rs = vmlab_copy::routines().map_err(vmlab_error)?;
        let out: Vec<serde_json::Value> = rs
            .iter()
            .map(|r| {
                serde_json::json!({"name": r.name, "source": r.source, "bytes": r.bytes, "align": r.align,
                                   "unaligned": r.handles_unaligned()})
            })
            .collect();
        to_json(&out)
    })
}

/// The CPU timing preset `cpu` (name or .toml path).
#[pyfunction]
pub fn copy_timing(cpu: String) -> PyResult<String> {
    guard("copy_timing", || to_json(&CpuTiming::load(&cpu).map_err(vmlab_error)?))
}

/// `hit_cycles` and `miss_cycles` of `cpu` solved from the two calibration
/// cells (cycles of a 4 KB memcpy hot-hot and clean-clean), and nothing else.
#[pyfunction]
pub fn copy_fit(py: Python<'_>, cpu: String, hot_hot: f64, clean_clean: f64) -> PyResult<String> {
    py.detach(|| {
        guard("copy_fit", || {
            let t = CpuTiming::load(&cpu).map_err(vmlab_error)?;
            to_json(&vmlab_copy::fit(&t, hot_hot, clean_clean).map_err(vmlab_error)?)
        })
    })
}

/// Runs `cases` (JSON list of cases) on `cpu` with `hit_cycles` and
/// `miss_cycles` in place of the preset's, its machine changed by
/// `overrides` (`TABLE.KEY=VALUE`).
#[pyfunction]
#[pyo3(signature = (cpu, hit_cycles, miss_cycles, cases, overrides = Vec::new()))]
pub fn copy_run(
    py: Python<'_>,
    cpu: String,
    hit_cycles: f64,
    miss_cycles: f64,
    cases: String,
    overrides: Vec<String>,
) -> PyResult<String> {
    py.detach(|| {
        guard("copy_run", || {
            let mut t = CpuTiming::load(&cpu).map_err(vmlab_error)?;
            t.hit_cycles = hit_cycles;
            t.miss_cycles = miss_cycles;
            let cases: Vec<Case> = serde_json::from_str(&cases).map_err(|e| vmlab_error(format!("copy cases: {e}")))?;
            let out = cases
                .iter()
                .map(|c| vmlab_copy::run(&t, &overrides, c).map_err(vmlab_error))
                .collect::<PyResult<Vec<_>>>()?;
            to_json(&out)
        })
    })
}

/// Replays the one-process trace at `trace` on `cpu` (with `hit_cycles`
/// and `miss_cycles`), the kernel's copy-out of every `read` injected
/// under each of `policies` (`vmlab_copy::KernelBuffer` names): a JSON list
/// of outcomes, one per policy.
#[pyfunction]
#[pyo3(signature = (cpu, hit_cycles, miss_cycles, trace, policies, overrides = Vec::new()))]
pub fn copy_read_out(
    py: Python<'_>,
    cpu: String,
    hit_cycles: f64,
    miss_cycles: f64,
    trace: String,
    policies: Vec<String>,
    overrides: Vec<String>,
) -> PyResult<String> {
    py.detach(|| {
        guard("copy_read_out", || {
            let mut t = CpuTiming::load(&cpu).map_err(vmlab_error)?;
            t.hit_cycles = hit_cycles;
            t.miss_cycles = miss_cycles;
            let policies = policies
                .iter()
                .map(|p| vmlab_copy::KernelBuffer::parse(p).map_err(vmlab_error))
                .collect::<PyResult<Vec<_>>>()?;
            let mut out = Vec::new();
            for p in policies {
                let mut src = vmlab_trace::open(std::path::Path::new(&trace), None)
                    .map_err(|e| vmlab_error(format!("{trace}: {e}")))?;
                out.push(
                    vmlab_copy::run_trace(&t, &overrides, &mut *src, p)
                        .map_err(|e| vmlab_error(format!("{trace}: {e}")))?,
                );
            }
            to_json(&out)
        })
    })
}
