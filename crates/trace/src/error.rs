//! Trace errors always name the file, the place in it, and what was expected.

use std::fmt;
use std::path::PathBuf;

/// Where in a trace file something went wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Location {
    /// 1-based line number of a text trace.
    Line(u64),
    /// Byte offset into a binary trace.
    Offset(u64),
    /// The file as a whole (e.g. it cannot be opened).
    File,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Line(n) => write!(f, "line {n}"),
            Location::Offset(o) => write!(f, "byte offset {o}"),
            Location::File => f.write_str("file"),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}: {}{message}", path.display(), Where(*location))]
pub struct TraceError {
    pub path: PathBuf,
    pub location: Location,
    /// What was expected and what was found, in words.
    pub message: String,
}

/// A location as the error's prefix: none for the file as a whole (the
/// path already names it).
struct Where(Location);

impl fmt::Display for Where {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Location::File => Ok(()),
            at => write!(f, "{at}: "),
        }
    }
}

impl TraceError {
    pub fn new(path: impl Into<PathBuf>, location: Location, message: impl Into<String>) -> Self {
        Self { path: path.into(), location, message: message.into() }
    }
}
