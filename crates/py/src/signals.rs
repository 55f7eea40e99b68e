//! Calling back into Python from a detached engine run: the progress callback
//! and the signal check share one short reattachment per block of events.

use std::path::Path;

use pyo3::prelude::*;
use vmlab_trace::{Event, EventSource, Location, TraceError};

/// Between blocks, reattaches, calls the user's callback (if any) with
/// `args`, and checks for signals. The first Python exception (a
/// `KeyboardInterrupt`, or whatever the callback raised) is kept in `raised`
/// and the engine is told to stop with `Err`.
#[derive(Debug)]
pub(crate) struct Checkpoint {
    callback: Option<Py<PyAny>>,
    pub(crate) raised: Option<PyErr>,
}

impl Checkpoint {
    pub(crate) fn new(callback: Option<Py<PyAny>>) -> Self {
        Self { callback, raised: None }
    }

    /// `call` gets the callback (when there is one) and calls it.
    pub(crate) fn check(
        &mut self,
        call: impl for<'py> FnOnce(Python<'py>, &Py<PyAny>) -> PyResult<()>,
    ) -> Result<(), String> {
        if self.raised.is_some() {
            return Err("interrupted".into());
        }
        let callback = &self.callback;
        let outcome = Python::attach(|py| -> PyResult<()> {
            py.check_signals()?;
            if let Some(cb) = callback {
                call(py, cb)?;
            }
            Ok(())
        });
        outcome.map_err(|e| {
            let reason = Python::attach(|py| e.value(py).repr().map(|r| r.to_string()).unwrap_or_default());
            self.raised = Some(e);
            if reason.is_empty() {
                "interrupted from Python".to_string()
            } else {
                format!("interrupted from Python: {reason}")
            }
        })
    }

    /// A signal that arrived after the last block (or while no callback ran).
    pub(crate) fn final_check(&mut self) {
        if self.raised.is_none() {
            if let Err(e) = Python::attach(|py| py.check_signals()) {
                self.raised = Some(e);
            }
        }
    }

    /// The Python exception to raise instead of the engine's own error, if any.
    pub(crate) fn take(&mut self) -> Option<PyErr> {
        self.raised.take()
    }
}

/// An event source that passes every block through a [`Checkpoint`], so a
/// long scan (`trace info`, `trace convert`) also stops on Ctrl-C.
pub(crate) struct Checked<'a> {
    pub(crate) inner: &'a mut dyn EventSource,
    pub(crate) checkpoint: &'a mut Checkpoint,
    pub(crate) path: &'a Path,
}

impl EventSource for Checked<'_> {
    fn fill(&mut self, buf: &mut Vec<Event>) -> Result<bool, TraceError> {
        let more = self.inner.fill(buf)?;
        self.checkpoint.check(|_, _| Ok(())).map_err(|reason| TraceError::new(self.path, Location::File, reason))?;
        Ok(more)
    }
    fn progress(&self) -> (u64, Option<u64>) {
        self.inner.progress()
    }
    fn encoding(&self) -> Option<String> {
        self.inner.encoding()
    }
}
