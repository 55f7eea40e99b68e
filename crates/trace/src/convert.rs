//! Converting between formats, and accounting for what a format cannot hold.

use std::fmt;
use std::fs::File;
use std::io::{self, BufWriter};
use std::path::Path;

use serde::Serialize;

use crate::{
    DinWriter, Event, EventSource, LackeyWriter, Location, TraceError, TraceFormat, VmtHeader, VmtWriter, BLOCK,
};

/// What a lossy writer could not represent exactly. `.vmt` loses nothing;
/// lackey and din have no asids, context switches or (lackey) flushes; din
/// knows only 4-byte aligned reads, writes and fetches.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Losses {
    /// Accesses with a non-zero asid written without it (read back as asid 0).
    pub asids_dropped: u64,
    pub context_switches_dropped: u64,
    /// `FlushAll` markers dropped (neither lackey nor din has a way to say it).
    pub flushes_dropped: u64,
    /// System-call markers dropped (counted once per call, not per argument
    /// event): neither text format can carry them.
    pub syscalls_dropped: u64,
    /// din: accesses whose size was not 4 (read back as 4 bytes).
    pub sizes_changed: u64,
    /// din: modifies written as a read then a write of the same address.
    pub modifies_split: u64,
    /// din: addresses not 4-byte aligned (read back rounded down, as Dinero does).
    pub unaligned: u64,
}

impl Losses {
    pub fn is_lossless(&self) -> bool {
        *self == Losses::default()
    }
}

impl fmt::Display for Losses {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_lossless() {
            return f.write_str("nothing lost");
        }
        let items = [
            (self.asids_dropped, "accesses lost their asid"),
            (self.context_switches_dropped, "context switches dropped"),
            (self.flushes_dropped, "flushes dropped"),
            (self.syscalls_dropped, "system-call markers dropped"),
            (self.sizes_changed, "accesses resized to 4 bytes"),
            (self.modifies_split, "modifies split into a read and a write"),
            (self.unaligned, "unaligned addresses (read back rounded down to 4 bytes)"),
        ];
        let parts: Vec<String> = items.iter().filter(|(n, _)| *n > 0).map(|(n, what)| format!("{n} {what}")).collect();
        f.write_str(&parts.join("; "))
    }
}

/// The outcome of [`convert`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ConvertSummary {
    pub to: TraceFormat,
    pub events_read: u64,
    /// Records (lines for text formats, events for `.vmt`) written.
    pub records_written: u64,
    pub bytes_written: u64,
    pub losses: Losses,
}

impl fmt::Display for ConvertSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} events read, {} {} records written ({} bytes); {}",
            self.events_read, self.records_written, self.to, self.bytes_written, self.losses
        )
    }
}

enum Sink {
    Lackey(LackeyWriter<File>),
    Din(DinWriter<File>),
    Vmt(VmtWriter<BufWriter<File>>),
}

/// Streams every event of `src` into a new file `dst` in `dst_format`.
/// Returns what was lost on the way (see [`Losses`]); a `.vmt` destination
/// gets a default header. Errors (reading or writing) are [`TraceError`]s; a
/// write failure names `dst`.
pub fn convert(src: &mut dyn EventSource, dst: &Path, dst_format: TraceFormat) -> Result<ConvertSummary, TraceError> {
    let werr = |e: io::Error| TraceError::new(dst, Location::File, format!("cannot write: {e}"));
    let file = File::create(dst).map_err(werr)?;
    let mut sink = match dst_format {
        TraceFormat::Lackey => Sink::Lackey(LackeyWriter::new(file)),
        TraceFormat::Din => Sink::Din(DinWriter::new(file)),
        TraceFormat::Vmt => Sink::Vmt(
            VmtWriter::new(
                BufWriter::with_capacity(1 << 20, file),
                VmtHeader::new(concat!("vmlab-trace ", env!("CARGO_PKG_VERSION"), " convert")),
            )
            .map_err(werr)?,
        ),
    };
    let mut buf: Vec<Event> = Vec::with_capacity(BLOCK);
    let mut events_read = 0u64;
    while src.fill(&mut buf)? {
        events_read += buf.len() as u64;
        match &mut sink {
            Sink::Lackey(w) => w.write_all(&buf),
            Sink::Din(w) => w.write_all(&buf),
            Sink::Vmt(w) => w.write_all(&buf),
        }
        .map_err(werr)?;
    }
    let (records_written, losses) = match &sink {
        Sink::Lackey(w) => (w.records_written(), w.losses().clone()),
        Sink::Din(w) => (w.records_written(), w.losses().clone()),
        Sink::Vmt(w) => (w.events_written(), Losses::default()),
    };
    let file = match sink {
        Sink::Lackey(w) => w.finish(),
        Sink::Din(w) => w.finish(),
        Sink::Vmt(w) => w.finish().and_then(|b| b.into_inner().map_err(|e| e.into_error())),
    }
    .map_err(werr)?;
    let bytes_written = file.metadata().map_err(werr)?.len();
    Ok(ConvertSummary { to: dst_format, events_read, records_written, bytes_written, losses })
}
