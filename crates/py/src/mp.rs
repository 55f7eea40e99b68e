//! Study S3's multiprocessor (`vmlab_os::mp`): runs of workloads under
//! locking designs, and the presets' numbers with their sources, as JSON.

use pyo3::prelude::*;
use serde::Deserialize;
use vmlab_os::mp::{Design, MpConfig, MpParams, MpReport, MpSim, ShootDownMode, Workload};

use crate::machine::to_json;
use crate::{guard, vmlab_error};

/// One run asked for.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RunSpec {
    workload: String,
    design: String,
    cpus: usize,
    memory_mb: u64,
    transactions: u64,
    seed: u64,
    #[serde(default)]
    user_work_scale: Option<f64>,
    #[serde(default)]
    table_pool_fraction: Option<f64>,
    /// "cross-call" (the default) or "broadcast-demap".
    #[serde(default)]
    shoot_down: Option<String>,
}

fn run_one(preset: &str, spec: &RunSpec) -> Result<MpReport, String> {
    let mut p = MpParams::load(preset)?;
    if let Some(s) = spec.user_work_scale {
        if !s.is_finite() || s < 0.0 {
            return Err(format!("user_work_scale {s} is not a non-negative number"));
        }
        p.user_work_scale.value = s;
        p.user_work_scale.source = "set by the study".into();
    }
    if let Some(f) = spec.table_pool_fraction {
        if !f.is_finite() || !(0.0..=1.0).contains(&f) {
            return Err(format!("table_pool_fraction {f} is not a fraction between 0 and 1"));
        }
        p.table_pool_fraction.value = f;
        p.table_pool_fraction.source = "set by the study".into();
    }
    let w = Workload::load(&spec.workload)?;
    let cfg = MpConfig {
        cpus: spec.cpus,
        design: Design::parse(&spec.design)?,
        memory_bytes: spec.memory_mb << 20,
        transactions: spec.transactions,
        seed: spec.seed,
    };
    let mut sim = MpSim::new(p, w, &cfg)?;
    if let Some(m) = &spec.shoot_down {
        sim.set_shoot_down_mode(ShootDownMode::parse(m)?);
    }
    let report = sim.run()?;
    sim.check().map_err(|e| format!("mp: inconsistent hat after the run: {e}"))?;
    Ok(report)
}

/// Runs every spec of `specs` (a JSON list of {workload, design, cpus,
/// memory_mb, transactions, seed[, user_work_scale, table_pool_fraction]}) on the mp preset
/// `preset`, on up to `threads` threads; returns the reports, in order, as JSON.
#[pyfunction]
#[pyo3(signature = (specs, preset = "sparccenter-2000".to_string(), threads = 2))]
pub fn mp_run(py: Python<'_>, specs: String, preset: String, threads: usize) -> PyResult<String> {
    py.detach(|| {
        guard("mp_run", || {
            let specs: Vec<RunSpec> =
                serde_json::from_str(&specs).map_err(|e| vmlab_error(format!("mp_run: bad run list: {e}")))?;
            let next = std::sync::atomic::AtomicUsize::new(0);
            let results: Vec<std::sync::Mutex<Option<Result<MpReport, String>>>> =
                specs.iter().map(|_| std::sync::Mutex::new(None)).collect();
            std::thread::scope(|s| {
                for _ in 0..threads.clamp(1, 16) {
                    s.spawn(|| loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(spec) = specs.get(i) else { break };
                        let r = run_one(&preset, spec);
                        if let Ok(mut slot) = results[i].lock() {
                            *slot = Some(r);
                        }
                    });
                }
            });
            let mut out = Vec::with_capacity(specs.len());
            for (i, r) in results.into_iter().enumerate() {
                match r.into_inner().ok().flatten() {
                    Some(Ok(rep)) => out.push(rep),
                    Some(Err(e)) => return Err(vmlab_error(format!("mp run {i}: {e}"))),
                    None => return Err(vmlab_error(format!("mp run {i}: did not finish"))),
                }
            }
            to_json(&out)
        })
    })
}

/// The mp preset's numbers with their sources, and the shipped workloads'
/// descriptions and sources, as JSON.
#[pyfunction]
#[pyo3(signature = (preset = "sparccenter-2000".to_string()))]
pub fn mp_sources(preset: String) -> PyResult<String> {
    guard("mp_sources", || {
        let p = MpParams::load(&preset).map_err(vmlab_error)?;
        let mut workloads = Vec::new();
        for n in Workload::names() {
            let w = Workload::load(n).map_err(vmlab_error)?;
            let ops: Vec<_> = w
                .ops
                .iter()
                .map(|o| serde_json::json!({"kind": o.kind.name(), "bytes": o.bytes, "per_transaction": o.per_transaction, "source": o.source}))
                .collect();
            workloads.push(serde_json::json!({
                "name": w.name, "description": w.description, "source": w.source, "user_cycles": w.user_cycles,
                "processes_per_cpu": w.processes_per_cpu, "per_cpu_load": w.per_cpu_load, "ops": ops,
            }));
        }
        let params: Vec<_> =
            p.sources().into_iter().map(|(k, (v, s))| serde_json::json!({"key": k, "value": v, "source": s})).collect();
        let designs: Vec<&str> = Design::ALL.iter().map(|d| d.name()).collect();
        to_json(&serde_json::json!({"machine": p.machine, "source": p.source, "params": params,
            "workloads": workloads, "designs": designs}))
    })
}
