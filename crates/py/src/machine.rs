//! Presets, configurations and runs.

use std::path::Path;

use pyo3::prelude::*;
use vmlab_addr::{Asid, PhysAddr, VirtAddr};
use vmlab_cache::FlushStats;
use vmlab_machine::{preset, Compat, Flush, Machine, MachineConfig, RunError, RunResult};
use vmlab_trace::TraceFormat;

use crate::events::events_from_python;
use crate::signals::Checkpoint;
use crate::{guard, vmlab_error};

fn parse_config(config_json: &str) -> PyResult<MachineConfig> {
    serde_json::from_str(config_json).map_err(|e| vmlab_error(format!("machine configuration: {e}")))
}

pub(crate) fn to_json<T: serde::Serialize>(value: &T) -> PyResult<String> {
    serde_json::to_string(value).map_err(|e| vmlab_error(format!("internal error: cannot write JSON: {e}")))
}

/// The machine of `config` under the counting rules named `compat`
/// (`None`: vmlab's own).
fn machine_under(config: MachineConfig, compat: Option<&str>) -> PyResult<Machine> {
    let compat = compat.map(Compat::from_name).transpose().map_err(vmlab_error)?.unwrap_or_default();
    Machine::new(config).and_then(|m| m.with_compat(compat)).map_err(vmlab_error)
}

pub(crate) fn parse_format(format: Option<&str>) -> PyResult<Option<TraceFormat>> {
    format.map(TraceFormat::from_name).transpose().map_err(vmlab_error)
}

/// Names of every preset `load_config` accepts.
#[pyfunction]
pub fn preset_names() -> Vec<String> {
    preset::names().into_iter().map(String::from).collect()
}

/// `(origin, toml_text)` of a preset by name, or of a preset file by path.
#[pyfunction]
pub fn preset_text(name_or_path: &str) -> PyResult<(String, String)> {
    guard("preset_text", || preset::text(name_or_path).map_err(vmlab_error))
}

/// Loads a preset (name or path), applies `TABLE.KEY=VALUE` overrides in
/// order, checks the machine, and returns its configuration as JSON.
#[pyfunction]
pub fn load_config(name_or_path: &str, overrides: Vec<String>) -> PyResult<String> {
    guard("load_config", || {
        let config = preset::load(name_or_path, &overrides).map_err(vmlab_error)?;
        Machine::new(config.clone()).map_err(vmlab_error)?;
        to_json(&config)
    })
}

/// Checks a configuration (JSON) by building the machine; returns it
/// normalised (the engine's own serialisation).
#[pyfunction]
pub fn check_config(config_json: &str) -> PyResult<String> {
    guard("check_config", || {
        let config = parse_config(config_json)?;
        Machine::new(config.clone()).map_err(vmlab_error)?;
        to_json(&config)
    })
}

/// Applies `TABLE.KEY=VALUE` overrides to a configuration (JSON), with the
/// same parsing and checks as overrides of a preset.
#[pyfunction]
pub fn apply_overrides(config_json: &str, overrides: Vec<String>) -> PyResult<String> {
    guard("apply_overrides", || {
        let config = preset::with_overrides(&parse_config(config_json)?, &overrides).map_err(vmlab_error)?;
        Machine::new(config.clone()).map_err(vmlab_error)?;
        to_json(&config)
    })
}

/// Runs a machine (configuration JSON) over a trace file and returns the
/// `RunResult` as JSON. `progress(events, bytes_read, bytes_total)` is called
/// between blocks of events. `compat` names another simulator's counting
/// rules (`vmlab_machine::Compat`). The GIL is released while the engine runs.
#[pyfunction]
#[pyo3(signature = (config_json, trace_path, format=None, progress=None, compat=None))]
pub fn run(
    py: Python<'_>,
    config_json: &str,
    trace_path: &str,
    format: Option<&str>,
    progress: Option<Py<PyAny>>,
    compat: Option<&str>,
) -> PyResult<String> {
    let config = parse_config(config_json)?;
    let format = parse_format(format)?;
    let mut checkpoint = Checkpoint::new(progress);
    let outcome = py.detach(|| {
        guard("run", || {
            let mut machine = machine_under(config, compat)?;
            let mut source = vmlab_trace::open(Path::new(trace_path), format).map_err(vmlab_error)?;
            let result = machine.run(&mut *source, trace_path, &mut |p| {
                checkpoint.check(|py, cb| cb.call1(py, (p.events, p.bytes_read, p.bytes_total)).map(drop))
            });
            checkpoint.final_check();
            Ok(result)
        })
    })?;
    if let Some(e) = checkpoint.take() {
        return Err(e);
    }
    outcome.map_err(|e: RunError| vmlab_error(e)).and_then(|result| to_json(&result))
}

/// Runs a machine over events given as Python tuples (see `events.rs` for
/// their forms) and returns the `RunResult` as JSON; `compat` as for `run`.
#[pyfunction]
#[pyo3(signature = (config_json, events, compat=None))]
pub fn run_events(
    py: Python<'_>,
    config_json: &str,
    events: &Bound<'_, PyAny>,
    compat: Option<&str>,
) -> PyResult<String> {
    let config = parse_config(config_json)?;
    let events = events_from_python(events)?;
    let mut checkpoint = Checkpoint::new(None);
    let outcome = py.detach(|| {
        guard("run_events", || {
            let mut machine = machine_under(config, compat)?;
            let mut first = 0u64;
            for chunk in events.chunks(vmlab_trace::BLOCK) {
                machine.feed(chunk, "events", first).map_err(vmlab_error)?;
                first += chunk.len() as u64;
                if checkpoint.check(|_, _| Ok(())).is_err() {
                    break;
                }
            }
            machine.finish();
            to_json(&machine.result("events"))
        })
    });
    match checkpoint.take() {
        Some(e) => Err(e),
        None => outcome,
    }
}

/// An engine machine that keeps its state between calls, for what a run
/// cannot express: events fed in pieces, flushes and purges by range or
/// whole between them, the result at any point. Python's `LiveMachine`
/// wraps it.
#[pyclass(module = "vmlab._engine")]
#[derive(Debug)]
pub struct LiveMachine {
    machine: Machine,
    /// Events fed so far: the first number of the next piece in errors.
    fed: u64,
}

/// `FlushStats` as Python gets it: (empty, clean, dirty).
fn counts(f: FlushStats) -> (u64, u64, u64) {
    (f.empty, f.clean, f.dirty)
}

#[pymethods]
impl LiveMachine {
    /// A machine (configuration JSON) with every cache empty.
    #[new]
    fn new(config_json: &str) -> PyResult<Self> {
        guard("LiveMachine", || {
            let machine = Machine::new(parse_config(config_json)?).map_err(vmlab_error)?;
            Ok(Self { machine, fed: 0 })
        })
    }

    /// Feeds events (tuples, as `run_events` takes them) with the GIL
    /// released; Ctrl-C stops between blocks, the blocks before it applied.
    fn feed(&mut self, py: Python<'_>, events: &Bound<'_, PyAny>) -> PyResult<()> {
        let events = events_from_python(events)?;
        let mut checkpoint = Checkpoint::new(None);
        let (machine, fed) = (&mut self.machine, &mut self.fed);
        let outcome = py.detach(|| {
            guard("feed", || {
                for chunk in events.chunks(vmlab_trace::BLOCK) {
                    machine.feed(chunk, "events", *fed).map_err(vmlab_error)?;
                    *fed += chunk.len() as u64;
                    if checkpoint.check(|_, _| Ok(())).is_err() {
                        break;
                    }
                }
                Ok(())
            })
        });
        match checkpoint.take() {
            Some(e) => Err(e),
            None => outcome,
        }
    }

    /// `Machine::flush_virtual_range`: (empty, clean, dirty) over every cache.
    fn flush_virtual(&mut self, asid: u32, addr: u64, length: u64, purge: bool) -> PyResult<(u64, u64, u64)> {
        guard("flush_virtual", || {
            self.machine
                .flush_virtual_range(Asid(asid), VirtAddr(addr), length, flush_of(purge))
                .map(counts)
                .map_err(vmlab_error)
        })
    }

    /// `Machine::flush_physical_range`: (empty, clean, dirty) over every cache.
    fn flush_physical(&mut self, addr: u64, length: u64, purge: bool) -> PyResult<(u64, u64, u64)> {
        guard("flush_physical", || {
            self.machine.flush_physical_range(PhysAddr(addr), length, flush_of(purge)).map(counts).map_err(vmlab_error)
        })
    }

    /// `Machine::flush_all`: (empty, clean, dirty) over every cache.
    fn flush_all(&mut self, purge: bool) -> PyResult<(u64, u64, u64)> {
        guard("flush_all", || Ok(counts(self.machine.flush_all(flush_of(purge)))))
    }

    /// The physical address of `addr` in `asid`, mapping its page on first
    /// touch as a reference would.
    fn translate(&mut self, asid: u32, addr: u64) -> PyResult<u64> {
        guard("translate", || self.machine.translate(Asid(asid), VirtAddr(addr)).map(|pa| pa.0).map_err(vmlab_error))
    }

    /// Maps the page of `alias` in `alias_asid` onto the frame of the page
    /// of `owner` in `owner_asid` (a synonym).
    fn share_page(&mut self, owner_asid: u32, owner: u64, alias_asid: u32, alias: u64) -> PyResult<()> {
        guard("share_page", || {
            self.machine
                .share_page(Asid(owner_asid), VirtAddr(owner), Asid(alias_asid), VirtAddr(alias))
                .map_err(vmlab_error)
        })
    }

    /// The `RunResult` so far, as JSON.
    fn result(&mut self) -> PyResult<String> {
        guard("result", || to_json(&self.machine.result("events")))
    }
}

/// The engine's fixed-width text table of a `RunResult` (JSON).
#[pyfunction]
pub fn result_table(result_json: &str) -> PyResult<String> {
    guard("result_table", || {
        let result: RunResult =
            serde_json::from_str(result_json).map_err(|e| vmlab_error(format!("run result: {e}")))?;
        Ok(result.to_table())
    })
}

/// Python's `purge` flag (`Machine.purge_*` methods pass `True`) as the
/// engine's `Flush`.
fn flush_of(purge: bool) -> Flush {
    if purge {
        Flush::Discard
    } else {
        Flush::WriteBack
    }
}
