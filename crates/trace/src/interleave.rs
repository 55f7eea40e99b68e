//! Multi-process traces: several single-process traces interleaved
//! round-robin, each in its own address space.
//!
//! Source `i` (0-based) becomes address space `i + 1`: every access it makes
//! is re-tagged with that asid, whatever asid its own trace carried, so two
//! captures of programs that both used asid 0 become two processes. The
//! scheduler runs a source for `quantum` accesses, then the next source that
//! still has events, in order; a source that ends drops out at once. Every
//! change of running source, and the start of the first one, is announced
//! by an [`Event::ContextSwitch`] naming the asid that runs next, so a
//! consumer always knows the current address space from the markers alone.
//! When only one source is left it runs to its end without further markers
//! (nothing is switched).
//!
//! What passes through: accesses and system-call markers (both re-tagged)
//! and `FlushAll` markers, in each source's own order. A system call and its
//! argument events stay together (neither uses up the quantum). A source's own `ContextSwitch` markers are dropped: a
//! source is one process here, and its address space is the one assigned
//! above; [`Interleave::dropped_switches`] counts them. `FlushAll` does not use
//! up the quantum, which counts references only.
//!
//! The schedule depends only on the sources' contents and the quantum, never
//! on block boundaries, so the output is deterministic.

use std::fmt;
use std::fs::File;
use std::io::{self, BufWriter};
use std::path::{Path, PathBuf};

use serde::Serialize;
use vmlab_addr::Asid;

use crate::{Event, EventSource, Location, TraceError, VmtHeader, VmtWriter, BLOCK};

/// One source and its read-ahead buffer.
struct Lane<S> {
    source: S,
    buf: Vec<Event>,
    pos: usize,
    done: bool,
    asid: Asid,
}

impl<S: EventSource> Lane<S> {
    /// Makes sure the next event to pass through is in `buf[pos]`, skipping
    /// the source's own context switches. `Ok(false)`: the source has ended.
    fn ready(&mut self, dropped: &mut u64) -> Result<bool, TraceError> {
        loop {
            while self.pos < self.buf.len() {
                if let Event::ContextSwitch(_) = self.buf[self.pos] {
                    *dropped += 1;
                    self.pos += 1;
                } else {
                    return Ok(true);
                }
            }
            if self.done {
                return Ok(false);
            }
            self.pos = 0;
            if !self.source.fill(&mut self.buf)? {
                self.done = true;
                self.buf.clear();
                return Ok(false);
            }
        }
    }
}

/// Round-robin interleaving of several event sources; see the module docs.
pub struct Interleave<S> {
    lanes: Vec<Lane<S>>,
    quantum: u64,
    /// The lane running now, if one has been scheduled.
    current: Option<usize>,
    /// Accesses the current lane has made in its quantum.
    used: u64,
    switches: u64,
    dropped: u64,
    finished: bool,
}

impl<S> fmt::Debug for Interleave<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Interleave")
            .field("sources", &self.lanes.len())
            .field("quantum", &self.quantum)
            .field("current", &self.current)
            .field("switches", &self.switches)
            .finish_non_exhaustive()
    }
}

impl<S: EventSource> Interleave<S> {
    /// Interleaves `sources` with `quantum` accesses per turn; source `i`
    /// gets asid `i + 1`. Errors if there is no source or the quantum is 0.
    pub fn new(sources: Vec<S>, quantum: u64) -> Result<Self, String> {
        if sources.is_empty() {
            return Err("interleave needs at least one trace".into());
        }
        if quantum == 0 {
            return Err("the quantum must be at least 1 reference".into());
        }
        let n = u32::try_from(sources.len()).map_err(|_| "too many traces to interleave".to_string())?;
        let lanes = sources
            .into_iter()
            .zip(1..=n)
            .map(|(source, a)| Lane { source, buf: Vec::new(), pos: 0, done: false, asid: Asid(a) })
            .collect();
        Ok(Self { lanes, quantum, current: None, used: 0, switches: 0, dropped: 0, finished: false })
    }

    /// Context switches emitted so far.
    pub fn switches(&self) -> u64 {
        self.switches
    }

    /// The sources' own context-switch markers dropped so far.
    pub fn dropped_switches(&self) -> u64 {
        self.dropped
    }

    /// The asid given to each source, in order.
    pub fn asids(&self) -> Vec<Asid> {
        self.lanes.iter().map(|l| l.asid).collect()
    }

    /// Picks the lane to run next: the current one while its quantum lasts
    /// and it has events, else the next one in round-robin order that has
    /// events (possibly the current one again, if it is the only one left).
    /// Appends a `ContextSwitch` if the lane changes. `None`: all have ended.
    fn schedule(&mut self, out: &mut Vec<Event>) -> Result<Option<usize>, TraceError> {
        let n = self.lanes.len();
        if let Some(c) = self.current {
            if self.used < self.quantum && self.lanes[c].ready(&mut self.dropped)? {
                return Ok(Some(c));
            }
        }
        let start = self.current.map_or(0, |c| c + 1);
        for k in 0..n {
            let i = (start + k) % n;
            if self.lanes[i].ready(&mut self.dropped)? {
                if self.current != Some(i) {
                    out.push(Event::ContextSwitch(self.lanes[i].asid));
                    self.switches += 1;
                    self.current = Some(i);
                }
                self.used = 0;
                return Ok(Some(i));
            }
        }
        Ok(None)
    }
}

impl<S: EventSource> EventSource for Interleave<S> {
    fn fill(&mut self, buf: &mut Vec<Event>) -> Result<bool, TraceError> {
        buf.clear();
        // Stop one short of BLOCK: a turn may add a switch marker before
        // its first event.
        while !self.finished && buf.len() + 1 < BLOCK {
            let Some(i) = self.schedule(buf)? else {
                self.finished = true;
                break;
            };
            let lane = &mut self.lanes[i];
            // Copy as much of this turn as fits: up to the quantum's end, the
            // end of the lane's buffer, or a source context switch (skipped
            // by the next `ready`).
            let room = BLOCK - buf.len();
            let mut left = self.quantum - self.used;
            let mut taken = 0usize;
            while lane.pos < lane.buf.len() && taken < room && left > 0 {
                match lane.buf[lane.pos] {
                    Event::Access(mut a) => {
                        a.asid = lane.asid;
                        buf.push(Event::Access(a));
                        left -= 1;
                    }
                    Event::Syscall(mut s) => {
                        s.asid = lane.asid;
                        buf.push(Event::Syscall(s));
                    }
                    e @ (Event::FlushAll | Event::SyscallArg(_)) => buf.push(e),
                    Event::ContextSwitch(_) => break,
                }
                lane.pos += 1;
                taken += 1;
            }
            self.used = self.quantum - left;
        }
        Ok(!buf.is_empty())
    }

    fn progress(&self) -> (u64, Option<u64>) {
        self.lanes.iter().fold((0, Some(0)), |(done, total), l| {
            let (d, t) = l.source.progress();
            (done + d, total.zip(t).map(|(a, b)| a + b))
        })
    }
}

/// What [`interleave_files`] wrote.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct InterleaveSummary {
    pub out: PathBuf,
    pub inputs: Vec<PathBuf>,
    pub quantum: u64,
    /// Events written, context switches included.
    pub events: u64,
    pub context_switches: u64,
    /// Context-switch markers of the inputs themselves, dropped.
    pub dropped_switches: u64,
    pub bytes_written: u64,
}

impl fmt::Display for InterleaveSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "wrote {}: {} traces as asids 1..={}, quantum {}: {} events, {} context switches, {} bytes",
            self.out.display(),
            self.inputs.len(),
            self.inputs.len(),
            self.quantum,
            self.events,
            self.context_switches,
            self.bytes_written
        )?;
        if self.dropped_switches > 0 {
            write!(f, " ({} context switches of the inputs dropped)", self.dropped_switches)?;
        }
        Ok(())
    }
}

/// Interleaves the trace files `inputs` (any format, detected) into the
/// `.vmt` file `out`, input `i` as asid `i + 1`. The header records the
/// inputs, the quantum and the asids. A failed run removes `out`.
pub fn interleave_files(inputs: &[PathBuf], quantum: u64, out: &Path) -> Result<InterleaveSummary, TraceError> {
    let whole = |m: String| TraceError::new(out, Location::File, m);
    if inputs.iter().any(|p| same_file(p, out)) {
        return Err(whole("the output is also an input; choose another file name".into()));
    }
    let sources = inputs.iter().map(|p| crate::open(p, None)).collect::<Result<Vec<_>, _>>()?;
    let mut mix = Interleave::new(sources, quantum).map_err(whole)?;
    let result = write_vmt(&mut mix, inputs, quantum, out);
    if result.is_err() {
        // Never leave a truncated trace that looks like a good one.
        let _ = std::fs::remove_file(out);
    }
    let (events, bytes_written) = result?;
    Ok(InterleaveSummary {
        out: out.to_path_buf(),
        inputs: inputs.to_vec(),
        quantum,
        events,
        context_switches: mix.switches(),
        dropped_switches: mix.dropped_switches(),
        bytes_written,
    })
}

fn write_vmt<S: EventSource>(
    mix: &mut Interleave<S>,
    inputs: &[PathBuf],
    quantum: u64,
    out: &Path,
) -> Result<(u64, u64), TraceError> {
    let werr = |e: io::Error| TraceError::new(out, Location::File, format!("cannot write: {e}"));
    let mut header = VmtHeader::new(concat!("vmlab-trace ", env!("CARGO_PKG_VERSION"), " interleave"));
    let names: Vec<serde_json::Value> = inputs.iter().map(|p| p.display().to_string().into()).collect();
    header.metadata.insert("interleave_inputs".into(), names.into());
    header.metadata.insert("interleave_quantum".into(), quantum.into());
    let asids: Vec<serde_json::Value> = mix.asids().iter().map(|a| a.0.into()).collect();
    header.metadata.insert("interleave_asids".into(), asids.into());
    let file = File::create(out).map_err(werr)?;
    let mut w = VmtWriter::new(BufWriter::with_capacity(1 << 20, file), header).map_err(werr)?;
    let mut buf = Vec::with_capacity(BLOCK);
    while mix.fill(&mut buf)? {
        w.write_all(&buf).map_err(werr)?;
    }
    let events = w.events_written();
    let file = w.finish().and_then(|b| b.into_inner().map_err(|e| e.into_error())).map_err(werr)?;
    let bytes = file.metadata().map(|m| m.len()).map_err(werr)?;
    Ok((events, bytes))
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}
