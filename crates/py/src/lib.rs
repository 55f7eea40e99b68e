//! `vmlab._engine`: the engine as Python sees it.
//!
//! A thin binding on purpose: machine configurations and results cross as JSON
//! text (so the Python objects that hold them are plain data and pickle
//! trivially), and every function here only converts arguments, releases the
//! GIL around the engine, and turns engine errors into `vmlab.VmlabError`.
//! The engine crates know nothing of Python.
//!
//! Rules every entry point follows:
//! * the GIL is released while the engine works ([`Python::detach`]);
//! * between blocks of work the thread reattaches briefly to call the
//!   progress callback and to check for signals, so Ctrl-C raises
//!   `KeyboardInterrupt` promptly ([`signals`]);
//! * an engine error is a `VmlabError` carrying the engine's one-line message;
//!   a panic is caught and becomes a `VmlabError` too ([`guard`]).

use pyo3::prelude::*;

mod copy;
mod events;
mod machine;
mod mmu;
mod mp;
mod onepass;
mod os;
mod signals;
mod switch;
mod trace;
mod translation;

pyo3::create_exception!(
    vmlab,
    VmlabError,
    pyo3::exceptions::PyException,
    "Bad input to vmlab: a trace, preset, override or file. The message names the file, the line or offset, and what was expected."
);

/// An engine error as a Python exception.
pub(crate) fn vmlab_error(message: impl std::fmt::Display) -> PyErr {
    VmlabError::new_err(message.to_string())
}

/// The last panic's message and place, recorded by [`quiet_panic_hook`].
static LAST_PANIC: std::sync::Mutex<Option<String>> = std::sync::Mutex::new(None);

/// Records a panic instead of printing it (a front end prints one line per
/// error); with `VMLAB_DEBUG` set, Rust's usual report is printed as well.
/// The hook is this extension's own (it has its own copy of std), so other
/// Rust extensions in the process are not affected.
fn quiet_panic_hook() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let place = info.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
        if let Ok(mut last) = LAST_PANIC.lock() {
            *last = Some(format!("{}{place}", panic_message(info.payload())));
        }
        if std::env::var_os("VMLAB_DEBUG").is_some() {
            default(info);
        }
    }));
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_string())
}

/// Runs engine code, turning a panic into a `VmlabError` (a panic is a bug in
/// vmlab, but it must not take the interpreter down or surface as
/// `PanicException`, which is not an `Exception`).
pub(crate) fn guard<T>(what: &str, f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(payload) => {
            let recorded = LAST_PANIC.lock().ok().and_then(|mut l| l.take());
            let msg = recorded.unwrap_or_else(|| panic_message(&*payload));
            Err(vmlab_error(format!("internal error in {what} (a bug in vmlab, please report it): {msg}")))
        }
    }
}

/// Panics inside [`guard`] with the GIL released, as an engine bug would:
/// lets the tests check that a panic arrives as one `VmlabError`.
#[pyfunction]
fn _panic_for_tests(py: Python<'_>) -> PyResult<()> {
    #[allow(clippy::panic)]
    py.detach(|| guard("_panic_for_tests", || panic!("deliberate panic")))
}

/// The engine, as the `vmlab` package uses it.
#[pymodule]
mod _engine {
    #[pymodule_export]
    use super::{_panic_for_tests, VmlabError};

    #[pymodule_export]
    use super::machine::{
        apply_overrides, check_config, load_config, preset_names, preset_text, result_table, run, run_events,
        LiveMachine,
    };

    #[pymodule_export]
    use super::copy::{copy_fit, copy_read_out, copy_routines, copy_run, copy_timing};

    #[pymodule_export]
    use super::onepass::{
        onepass_plan, onepass_refusal, onepass_run, onepass_sample_refusal, tlb_load_config, tlb_plan, tlb_refusal,
        tlb_run,
    };

    #[pymodule_export]
    use super::translation::{vm_load_config, vm_preset_names, vm_sweep};

    #[pymodule_export]
    use super::mmu::{pagetable_kinds, pagetable_memory};

    #[pymodule_export]
    use super::os::{os_cost_model, os_replay, os_s2_measurements, os_scenario, os_trace};

    #[pymodule_export]
    use super::mp::{mp_run, mp_sources};

    #[pymodule_export]
    use super::switch::{switch_flush_cost, switch_preset, switch_run, switch_schemes, tlb_reach};

    #[pymodule_export]
    use super::trace::{
        trace_capture, trace_convert, trace_footprint, trace_formats, trace_header, trace_info, trace_interleave,
        trace_syscalls,
    };

    #[pymodule_init]
    fn init(m: &pyo3::Bound<'_, pyo3::types::PyModule>) -> pyo3::PyResult<()> {
        use pyo3::types::PyModuleMethods;
        super::quiet_panic_hook();
        m.add("__version__", env!("CARGO_PKG_VERSION"))?;
        m.add("CAPTURE_REVISION", vmlab_trace::CAPTURE_REVISION)
    }
}
