//! Trace events and everything that moves them between files and the engine.
//!
//! Three on-disk formats are read: valgrind lackey text ([`lackey`]), Dinero
//! IV `din` text ([`din`]) and vmlab's own compressed binary `.vmt` ([`vmt`]).
//! All readers hand out events in blocks through [`EventSource`], so the
//! engine's inner loop runs over a plain slice and never pays a virtual call
//! or a `Result` per event. See README.md for the formats byte by byte.

pub mod capture;
pub mod convert;
mod detect;
pub mod din;
mod error;
mod event;
pub mod footprint;
pub mod info;
pub mod interleave;
pub mod lackey;
pub mod multiproc;
pub mod syscall;
mod text;
mod valgrind_syscall;
pub mod vmt;

use std::path::Path;

pub use capture::{capture, CaptureError, CaptureOptions, CaptureSummary, CAPTURE_REVISION};
pub use convert::{convert, ConvertSummary, Losses};
pub use din::{write_din, Din, DinReader, DinWriter};
pub use error::{Location, TraceError};
pub use event::{Access, AccessKind, Event, Syscall};
pub use footprint::{footprint, FootprintSpec, PrefixFootprint};
pub use info::{info, TraceInfo};
pub use interleave::{interleave_files, Interleave, InterleaveSummary};
pub use lackey::{write_lackey, Lackey, LackeyReader, LackeyWriter};
pub use text::{LineFormat, TextReader};
pub use vmt::{FetchSkip, PackedBlock, VmtHeader, VmtOptions, VmtReader, VmtWriter};

/// Events handed out per [`EventSource::fill`] call at most. Large enough to
/// amortise the call, small enough that the buffer (24 B/event) stays in L2.
pub const BLOCK: usize = 64 * 1024;

/// A stream of events, read block by block.
pub trait EventSource: Send {
    /// Clears `buf` and appends up to [`BLOCK`] events. `Ok(false)` means the
    /// trace has ended (and `buf` is empty); `Ok(true)` means `buf` holds at
    /// least one event.
    fn fill(&mut self, buf: &mut Vec<Event>) -> Result<bool, TraceError>;
    /// Bytes of the underlying file consumed so far, and its total size if
    /// known (for progress bars).
    fn progress(&self) -> (u64, Option<u64>);
    /// Like `fill`, in packed form (see [`PackedBlock`]): the engine's fast
    /// loop reads these. The default packs what `fill` gives; the `.vmt`
    /// reader decodes straight into it.
    fn fill_packed(&mut self, buf: &mut PackedBlock) -> Result<bool, TraceError> {
        buf.fill_from(self)
    }
    /// How the file encodes its events, when the format has versions (the
    /// `.vmt` record encoding and container version); `None` otherwise.
    fn encoding(&self) -> Option<String> {
        None
    }
}

impl<S: EventSource + ?Sized> EventSource for Box<S> {
    fn fill(&mut self, buf: &mut Vec<Event>) -> Result<bool, TraceError> {
        (**self).fill(buf)
    }
    fn progress(&self) -> (u64, Option<u64>) {
        (**self).progress()
    }
    fn fill_packed(&mut self, buf: &mut PackedBlock) -> Result<bool, TraceError> {
        (**self).fill_packed(buf)
    }
    fn encoding(&self) -> Option<String> {
        (**self).encoding()
    }
}

/// The on-disk trace formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TraceFormat {
    /// `valgrind --tool=lackey --trace-mem=yes` text.
    Lackey,
    /// Dinero IV traditional `din` text.
    Din,
    /// vmlab's compressed binary format.
    Vmt,
}

impl TraceFormat {
    pub const ALL: [TraceFormat; 3] = [Self::Lackey, Self::Din, Self::Vmt];

    /// Parses a format name as users type it (`lackey`, `din`, `vmt`; any case).
    pub fn from_name(name: &str) -> Result<Self, String> {
        let lower = name.trim().to_ascii_lowercase();
        Self::ALL
            .into_iter()
            .find(|f| f.name() == lower)
            .ok_or_else(|| format!("unknown trace format `{name}`: expected one of lackey, din, vmt"))
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::Lackey => "lackey",
            Self::Din => "din",
            Self::Vmt => "vmt",
        }
    }
}

impl std::fmt::Display for TraceFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for TraceFormat {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Self::from_name(s)
    }
}

/// Opens a trace file. With `format: None` the format is detected: the `.vmt`
/// magic bytes first, then the extension (`.din` is din, `.lackey` and `.txt`
/// are lackey), else the first record line is tried as lackey, then as din.
pub fn open(path: &Path, format: Option<TraceFormat>) -> Result<Box<dyn EventSource>, TraceError> {
    detect::open(path, format)
}

/// Reads a whole trace into memory. Meant for tests and small traces; the
/// engine should stream with [`open`] and [`EventSource::fill`].
pub fn read_all(path: &Path, format: Option<TraceFormat>) -> Result<Vec<Event>, TraceError> {
    let mut src = open(path, format)?;
    read_source(&mut *src)
}

/// The first `max` events of a trace (fewer if it is shorter), in memory:
/// for tools that run several simulations over the same events.
pub fn read_prefix(path: &Path, format: Option<TraceFormat>, max: u64) -> Result<Vec<Event>, TraceError> {
    let mut src = open(path, format)?;
    let mut events = Vec::new();
    let mut buf = Vec::with_capacity(BLOCK);
    while (events.len() as u64) < max && src.fill(&mut buf)? {
        events.extend_from_slice(&buf);
    }
    events.truncate(usize::try_from(max).unwrap_or(usize::MAX).min(events.len()));
    Ok(events)
}

/// Drains an already opened source into a vector.
pub fn read_source(src: &mut dyn EventSource) -> Result<Vec<Event>, TraceError> {
    let mut all = Vec::new();
    let mut buf = Vec::with_capacity(BLOCK);
    while src.fill(&mut buf)? {
        all.extend_from_slice(&buf);
    }
    Ok(all)
}
