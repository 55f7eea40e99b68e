//! Trace files: info, conversion and capture.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use pyo3::prelude::*;
use vmlab_trace::{CaptureError, CaptureOptions, TraceFormat};

use crate::machine::{parse_format, to_json};
use crate::signals::{Checked, Checkpoint};
use crate::{guard, vmlab_error};

/// The trace format names (`lackey`, `din`, `vmt`).
#[pyfunction]
pub fn trace_formats() -> Vec<&'static str> {
    TraceFormat::ALL.iter().map(|f| f.name()).collect()
}

/// Reads a whole trace and returns `(info_json, info_text)`.
#[pyfunction]
#[pyo3(signature = (path, format=None))]
pub fn trace_info(py: Python<'_>, path: &str, format: Option<&str>) -> PyResult<(String, String)> {
    let format = parse_format(format)?;
    let mut checkpoint = Checkpoint::new(None);
    let outcome = py.detach(|| {
        guard("trace_info", || {
            let p = Path::new(path);
            let mut source = vmlab_trace::open(p, format).map_err(vmlab_error)?;
            let mut checked = Checked { inner: &mut *source, checkpoint: &mut checkpoint, path: p };
            let info = vmlab_trace::info(&mut checked).map_err(vmlab_error)?;
            Ok((to_json(&info)?, info.to_string()))
        })
    });
    match checkpoint.take() {
        Some(e) => Err(e),
        None => outcome,
    }
}

/// What the first `max_events` accesses (0 = all) of a trace touch, as JSON
/// (see `vmlab_trace::footprint`): distinct lines per side at each of
/// `line_sizes`, lines first touched by a read, pages, PTE lines, 4 MB
/// regions, and LRU TLB misses for each of `tlb_slots` entries.
#[pyfunction]
#[pyo3(signature = (path, max_events, line_sizes, page_bytes, tlb_slots, format=None))]
pub fn trace_footprint(
    py: Python<'_>,
    path: &str,
    max_events: u64,
    line_sizes: Vec<u64>,
    page_bytes: u64,
    tlb_slots: Vec<usize>,
    format: Option<&str>,
) -> PyResult<String> {
    let format = parse_format(format)?;
    let spec = vmlab_trace::FootprintSpec { line_sizes, page_bytes, tlb_slots, max_accesses: max_events };
    let mut checkpoint = Checkpoint::new(None);
    let outcome = py.detach(|| {
        guard("trace_footprint", || {
            let p = Path::new(path);
            let mut source = vmlab_trace::open(p, format).map_err(vmlab_error)?;
            let mut checked = Checked { inner: &mut *source, checkpoint: &mut checkpoint, path: p };
            let fp = vmlab_trace::footprint(&mut checked, &spec).map_err(vmlab_error)?;
            to_json(&fp)
        })
    });
    match checkpoint.take() {
        Some(e) => Err(e),
        None => outcome,
    }
}

/// The header of the `.vmt` file at `path` as JSON (what wrote it, the
/// captured command line and its metadata), or `None` when the file is not
/// a `.vmt` trace (other formats have no header).
#[pyfunction]
pub fn trace_header(path: &str) -> PyResult<Option<String>> {
    guard("trace_header", || {
        use std::io::{Read, Seek};
        let p = Path::new(path);
        let mut file = std::fs::File::open(p).map_err(|e| vmlab_error(format!("{path}: cannot open: {e}")))?;
        let mut magic = [0u8; 8];
        if file.read_exact(&mut magic).is_err() || magic != vmlab_trace::vmt::format::MAGIC {
            return Ok(None);
        }
        file.rewind().map_err(|e| vmlab_error(format!("{path}: {e}")))?;
        let reader = vmlab_trace::VmtReader::new(file, p).map_err(vmlab_error)?;
        Ok(Some(to_json(reader.header())?))
    })
}

/// Writes trace `src` again as `dst` in `dst_format`; returns
/// `(summary_json, summary_text)`. A failed or interrupted conversion
/// removes the half-written `dst`.
#[pyfunction]
#[pyo3(signature = (src, dst, dst_format, src_format=None))]
pub fn trace_convert(
    py: Python<'_>,
    src: &str,
    dst: &str,
    dst_format: &str,
    src_format: Option<&str>,
) -> PyResult<(String, String)> {
    let to = TraceFormat::from_name(dst_format).map_err(vmlab_error)?;
    let from = parse_format(src_format)?;
    let (s, d) = (Path::new(src), Path::new(dst));
    if same_file(s, d) {
        return Err(vmlab_error(format!("{dst}: the destination is the source; choose another file name")));
    }
    let mut checkpoint = Checkpoint::new(None);
    let outcome = py.detach(|| {
        guard("trace_convert", || {
            let mut source = vmlab_trace::open(s, from).map_err(vmlab_error)?;
            let mut checked = Checked { inner: &mut *source, checkpoint: &mut checkpoint, path: s };
            let result = vmlab_trace::convert(&mut checked, d, to);
            if result.is_err() {
                // Never leave a truncated trace that looks like a good one.
                let _ = std::fs::remove_file(d);
            }
            let summary = result.map_err(vmlab_error)?;
            Ok((to_json(&summary)?, summary.to_string()))
        })
    });
    match checkpoint.take() {
        Some(e) => Err(e),
        None => outcome,
    }
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

/// How a capture is run, as `trace_capture`'s `options` JSON object names
/// it: `valgrind`, `cwd`, `env` (the whole environment), `stdin`, `stdout`,
/// `stderr` (file paths) default to this process's; `metadata` (an object)
/// is stored in the header; `syscalls` and `children` are
/// `CaptureOptions`'s. An unknown key is an error.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
struct CaptureRequest {
    valgrind: Option<PathBuf>,
    cwd: Option<PathBuf>,
    env: Option<BTreeMap<String, String>>,
    stdin: Option<PathBuf>,
    stdout: Option<PathBuf>,
    stderr: Option<PathBuf>,
    metadata: serde_json::Map<String, serde_json::Value>,
    syscalls: bool,
    children: bool,
}

/// Runs `cmd` under valgrind and writes its references to the `.vmt` file
/// `out`. `progress(references)` is called as the capture goes; `options`
/// is a JSON object (`CaptureRequest`). Returns `(summary_json,
/// summary_text)`.
#[pyfunction]
#[pyo3(signature = (cmd, out, progress=None, options="{}"))]
pub fn trace_capture(
    py: Python<'_>,
    cmd: Vec<String>,
    out: PathBuf,
    progress: Option<Py<PyAny>>,
    options: &str,
) -> PyResult<(String, String)> {
    let mut checkpoint = Checkpoint::new(progress);
    let request: CaptureRequest =
        serde_json::from_str(options).map_err(|e| vmlab_error(format!("capture options: {e}")))?;
    let defaults = CaptureOptions::default();
    let opts = CaptureOptions {
        progress_every: 1 << 18,
        valgrind: request.valgrind.unwrap_or(defaults.valgrind),
        cwd: request.cwd,
        env: request.env,
        stdin: request.stdin,
        stdout: request.stdout,
        stderr: request.stderr,
        metadata: request.metadata,
        syscalls: request.syscalls,
        children: request.children,
        ..defaults
    };
    let outcome = py.detach(|| {
        guard("trace_capture", || {
            let result = vmlab_trace::capture(&cmd, &out, &opts, &mut |n| {
                checkpoint.check(|py, cb| cb.call1(py, (n,)).map(drop))
            });
            // Ctrl-C at a terminal also reaches valgrind, which may end first.
            checkpoint.final_check();
            Ok(result)
        })
    })?;
    if let Some(e) = checkpoint.take() {
        return Err(e);
    }
    let summary = outcome.map_err(|e: CaptureError| vmlab_error(e))?;
    let mut text = format!(
        "wrote {}: {} references, {} bytes, in {:.1} s ({})",
        summary.out.display(),
        summary.events,
        summary.bytes_written,
        summary.seconds,
        summary.valgrind_version
    );
    if let Some(m) = &summary.merge {
        text.push_str(&format!(
            "\n{} processes merged: {} hand-overs, {} calls blocked, {} forced (fallback), {} fd mismatches",
            m.processes.len(),
            m.switches,
            m.blocked_calls,
            m.forced,
            m.fd_mismatches
        ));
    }
    Ok((to_json(&summary)?, text))
}

/// The system calls of a trace, in order, as JSON: a list of `{"event":
/// index of its marker, "asid", "number", "name", "ret", "args"}`.
#[pyfunction]
#[pyo3(signature = (path, format=None))]
pub fn trace_syscalls(py: Python<'_>, path: &str, format: Option<&str>) -> PyResult<String> {
    let format = parse_format(format)?;
    let mut checkpoint = Checkpoint::new(None);
    let outcome = py.detach(|| {
        guard("trace_syscalls", || {
            let p = Path::new(path);
            let mut source = vmlab_trace::open(p, format).map_err(vmlab_error)?;
            let mut checked = Checked { inner: &mut *source, checkpoint: &mut checkpoint, path: p };
            let mut calls = Vec::new();
            let mut asm = vmlab_trace::syscall::Assembler::new();
            let mut buf = Vec::new();
            let (mut index, mut head) = (0u64, 0u64);
            while vmlab_trace::EventSource::fill(&mut checked, &mut buf).map_err(vmlab_error)? {
                for e in &buf {
                    if let vmlab_trace::Event::Syscall(_) = e {
                        head = index;
                    }
                    index += 1;
                    if let Some(c) = asm.push(e).map_err(|m| vmlab_error(format!("{path}: {m}")))? {
                        calls.push(serde_json::json!({
                            "event": head, "asid": c.asid.0, "number": c.number, "name": c.name(),
                            "ret": c.ret, "args": c.args,
                        }));
                    }
                }
            }
            asm.finish().map_err(|m| vmlab_error(format!("{path}: {m}")))?;
            to_json(&calls)
        })
    });
    match checkpoint.take() {
        Some(e) => Err(e),
        None => outcome,
    }
}

/// Interleaves the traces `inputs` round-robin, `quantum` references per
/// turn, input `i` as asid `i + 1`, into the `.vmt` file `out`; returns
/// `(summary_json, summary_text)`.
#[pyfunction]
pub fn trace_interleave(
    py: Python<'_>,
    inputs: Vec<PathBuf>,
    quantum: u64,
    out: PathBuf,
) -> PyResult<(String, String)> {
    py.detach(|| {
        guard("trace_interleave", || {
            let summary = vmlab_trace::interleave_files(&inputs, quantum, &out).map_err(vmlab_error)?;
            Ok((to_json(&summary)?, summary.to_string()))
        })
    })
}
