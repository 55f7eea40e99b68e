//! Line splitting shared by the text readers.
//!
//! Traces are gigabytes of short lines, so lines are sliced out of one large
//! reused buffer instead of being copied into a `String` each; a line longer
//! than [`MAX_LINE`] is an error rather than an unbounded allocation (a binary
//! file fed to a text reader has no newlines).

use std::io::{self, Read};
use std::marker::PhantomData;
use std::path::PathBuf;

use vmlab_addr::Asid;

use crate::{Event, EventSource, Location, TraceError, BLOCK};

const CHUNK: usize = 256 * 1024;
/// Longest line accepted. Real lackey and din lines are under 40 bytes; din
/// allows a trailing comment, hence the generous bound.
pub(crate) const MAX_LINE: usize = 64 * 1024;

#[derive(Debug)]
pub(crate) enum LineError {
    Io(io::Error),
    /// The line with this 1-based number has no end within [`MAX_LINE`] bytes.
    TooLong(u64),
}

#[derive(Debug)]
pub(crate) struct LineReader<R> {
    inner: R,
    buf: Vec<u8>,
    start: usize,
    end: usize,
    eof: bool,
    line_no: u64,
    consumed: u64,
}

impl<R: Read> LineReader<R> {
    pub(crate) fn new(inner: R) -> Self {
        Self { inner, buf: vec![0; CHUNK], start: 0, end: 0, eof: false, line_no: 0, consumed: 0 }
    }

    /// Bytes read from the underlying reader so far.
    pub(crate) fn consumed(&self) -> u64 {
        self.consumed
    }

    /// The next line without its `\n` (a `\r` before it is kept: the parsers
    /// treat it as trailing whitespace), with its 1-based number.
    pub(crate) fn next_line(&mut self) -> Result<Option<(u64, &[u8])>, LineError> {
        loop {
            let pending = self.buf.get(self.start..self.end).unwrap_or(&[]);
            if let Some(i) = memchr::memchr(b'\n', pending) {
                let s = self.start;
                self.start += i + 1;
                self.line_no += 1;
                return Ok(self.buf.get(s..s + i).map(|l| (self.line_no, l)));
            }
            if self.eof {
                if self.start < self.end {
                    let s = self.start;
                    self.start = self.end;
                    self.line_no += 1;
                    return Ok(self.buf.get(s..self.end).map(|l| (self.line_no, l)));
                }
                return Ok(None);
            }
            if self.end - self.start > MAX_LINE {
                return Err(LineError::TooLong(self.line_no + 1));
            }
            self.refill()?;
        }
    }

    fn refill(&mut self) -> Result<(), LineError> {
        if self.start > 0 {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
        if self.end == self.buf.len() {
            self.buf.resize(self.buf.len() + CHUNK, 0);
        }
        loop {
            match self.inner.read(&mut self.buf[self.end..]) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(());
                }
                Ok(n) => {
                    self.end += n;
                    self.consumed += n as u64;
                    return Ok(());
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(LineError::Io(e)),
            }
        }
    }
}

/// A line-per-reference text format: what errors call it and how one line
/// reads. Implemented by [`crate::din::Din`] and [`crate::lackey::Lackey`].
pub trait LineFormat {
    /// The format's name in error messages ("din", "lackey").
    const NAME: &'static str;
    /// The lines that carry no event, for the message about a file without
    /// any ("blank").
    const SKIPPED: &'static str = "blank";
    /// What the format remembers from line to line (lackey: system calls
    /// whose result is still to come); `()` for a format of independent lines.
    type State: Default + Send + std::fmt::Debug;
    /// One line: `Ok(None)` for a line that carries no event, `Err` with
    /// what was expected and found.
    fn parse(line: &[u8], asid: Asid) -> Result<Option<Event>, String>;
    /// One line, numbered `line_no`, into `out` (any number of events).
    fn parse_into(
        _state: &mut Self::State,
        _line_no: u64,
        line: &[u8],
        asid: Asid,
        out: &mut Vec<Event>,
    ) -> Result<(), String> {
        if let Some(e) = Self::parse(line, asid)? {
            out.push(e);
        }
        Ok(())
    }
    /// The input has ended: what is left may still give events, or be an
    /// error at the line given.
    fn finish(_state: &mut Self::State, _asid: Asid, _out: &mut Vec<Event>) -> Result<(), (u64, String)> {
        Ok(())
    }
}

/// Reads a text trace of format `F` from any byte stream: lines cut from
/// one reused buffer, each parsed by `F`, an error naming the line. After
/// an error every later `fill` returns it again, so a caller cannot read
/// past a bad line by mistake.
#[derive(Debug)]
pub struct TextReader<R, F: LineFormat> {
    lines: LineReader<R>,
    name: PathBuf,
    asid: Asid,
    total: Option<u64>,
    failed: Option<TraceError>,
    /// A file with no event at all is an error (see [`Self::refusing_empty`]).
    refuse_empty: bool,
    events: u64,
    state: F::State,
    /// Events of the last line that did not fit the previous block: a line
    /// may give several (a system call and its arguments), and blocks keep
    /// their size so that a plain trace is cut exactly as before.
    spill: Vec<Event>,
    ended: bool,
    format: PhantomData<F>,
}

impl<R: Read, F: LineFormat> TextReader<R, F> {
    /// `name` is what errors call the input (normally its path).
    pub fn new(reader: R, name: impl Into<PathBuf>) -> Self {
        Self {
            lines: LineReader::new(reader),
            name: name.into(),
            asid: Asid(0),
            total: None,
            failed: None,
            refuse_empty: false,
            events: 0,
            state: F::State::default(),
            spill: Vec::new(),
            ended: false,
            format: PhantomData,
        }
    }

    /// Neither text format names address spaces (lackey traces one
    /// process, din has none): every reference gets this asid (default 0).
    pub fn with_asid(mut self, asid: Asid) -> Self {
        self.asid = asid;
        self
    }

    /// The input's size in bytes, reported by [`EventSource::progress`].
    pub fn with_total_len(mut self, total: u64) -> Self {
        self.total = Some(total);
        self
    }

    /// Ending without a single event is an error naming the file. A trace
    /// *file* with no reference is a mistake (an empty or wrong file) whose
    /// simulation would print zeros as if they were results; a stream (a
    /// capture's pipe, a test's bytes) may legitimately end at once.
    pub fn refusing_empty(mut self) -> Self {
        self.refuse_empty = true;
        self
    }

    fn no_events_error(&self) -> TraceError {
        let lines = self.lines.line_no;
        let message = if self.lines.consumed() == 0 {
            format!("the file is empty: expected {} references, one a line", F::NAME)
        } else {
            format!(
                "no {} reference in the file: its {lines} line{} {} all {}",
                F::NAME,
                if lines == 1 { "" } else { "s" },
                if lines == 1 { "is" } else { "are" },
                F::SKIPPED
            )
        };
        TraceError::new(&self.name, Location::File, message)
    }

    fn fill_inner(&mut self, buf: &mut Vec<Event>) -> Result<(), TraceError> {
        buf.append(&mut self.spill);
        while buf.len() < BLOCK {
            let (no, line) = match self.lines.next_line() {
                Ok(Some(l)) => l,
                Ok(None) => {
                    if !self.ended {
                        self.ended = true;
                        F::finish(&mut self.state, self.asid, buf)
                            .map_err(|(no, m)| TraceError::new(&self.name, Location::Line(no), m))?;
                    }
                    break;
                }
                Err(LineError::Io(e)) => {
                    return Err(TraceError::new(&self.name, Location::File, format!("read error: {e}")))
                }
                Err(LineError::TooLong(no)) => {
                    return Err(TraceError::new(
                        &self.name,
                        Location::Line(no),
                        format!("line longer than {MAX_LINE} bytes: not {} text", F::NAME),
                    ))
                }
            };
            if let Err(msg) = F::parse_into(&mut self.state, no, line, self.asid, buf) {
                return Err(TraceError::new(&self.name, Location::Line(no), msg));
            }
        }
        if buf.len() > BLOCK {
            self.spill.extend(buf.drain(BLOCK..));
        }
        Ok(())
    }
}

impl<R: Read + Send, F: LineFormat + Send> EventSource for TextReader<R, F> {
    fn fill(&mut self, buf: &mut Vec<Event>) -> Result<bool, TraceError> {
        buf.clear();
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        let filled = self.fill_inner(buf).and_then(|()| {
            if buf.is_empty() && self.events == 0 && self.refuse_empty {
                return Err(self.no_events_error());
            }
            Ok(())
        });
        if let Err(e) = filled {
            buf.clear();
            self.failed = Some(e.clone());
            return Err(e);
        }
        self.events += buf.len() as u64;
        Ok(!buf.is_empty())
    }

    fn progress(&self) -> (u64, Option<u64>) {
        (self.lines.consumed(), self.total)
    }
}

/// A line as shown in an error message: lossy UTF-8, control characters
/// escaped, cut at 60 characters so a garbage line cannot flood the terminal.
pub(crate) fn show(bytes: &[u8]) -> String {
    const MAX: usize = 60;
    let text = String::from_utf8_lossy(bytes);
    let mut out = String::new();
    for (n, c) in text.chars().enumerate() {
        if n == MAX {
            out.push('…');
            break;
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// Splits off the leading run of bytes for which `pred` holds.
pub(crate) fn take_while(s: &[u8], pred: impl Fn(u8) -> bool) -> (&[u8], &[u8]) {
    let n = s.iter().position(|&b| !pred(b)).unwrap_or(s.len());
    s.split_at(n)
}

pub(crate) fn is_blank(b: u8) -> bool {
    b == b' ' || b == b'\t' || b == b'\r'
}

pub(crate) fn trim_start(s: &[u8]) -> &[u8] {
    take_while(s, is_blank).1
}

/// Parses hex digits: any number of leading zeros (only the value counts,
/// as with Dinero's and valgrind's own readers), then at most 16 more. `Err`
/// says what was wrong, for the message.
pub(crate) fn parse_hex(digits: &[u8]) -> Result<u64, &'static str> {
    if digits.is_empty() {
        return Err("no hex digits");
    }
    let significant = take_while(digits, |b| b == b'0').1;
    if significant.len() > 16 {
        return Err("more than 16 hex digits after any leading zeros: does not fit in 64 bits (0 to ffffffffffffffff)");
    }
    let mut v: u64 = 0;
    for &b in significant {
        let d = match b {
            b'0'..=b'9' => b - b'0',
            b'a'..=b'f' => b - b'a' + 10,
            b'A'..=b'F' => b - b'A' + 10,
            _ => return Err("not a hex digit"),
        };
        v = (v << 4) | u64::from(d);
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_lines_across_refills() {
        let text: Vec<u8> = (0..100_000).flat_map(|i| format!("line {i}\n").into_bytes()).collect();
        let mut r = LineReader::new(&text[..]);
        let mut n = 0u64;
        while let Ok(Some((no, line))) = r.next_line() {
            assert_eq!(line, format!("line {n}").as_bytes());
            n += 1;
            assert_eq!(no, n);
        }
        assert_eq!(n, 100_000);
        assert_eq!(r.consumed(), text.len() as u64);
    }

    #[test]
    fn last_line_without_newline_and_too_long() {
        let mut r = LineReader::new(&b"a\nb"[..]);
        assert!(matches!(r.next_line(), Ok(Some((1, b"a")))));
        assert!(matches!(r.next_line(), Ok(Some((2, b"b")))));
        assert!(matches!(r.next_line(), Ok(None)));
        let long = vec![b'x'; MAX_LINE * 3];
        let mut r = LineReader::new(&long[..]);
        assert!(matches!(r.next_line(), Err(LineError::TooLong(1))));
    }

    #[test]
    fn hex() {
        assert_eq!(parse_hex(b"1ffefff8b8"), Ok(0x1ffefff8b8));
        assert_eq!(parse_hex(b"FFFFFFFFFFFFFFFF"), Ok(u64::MAX));
        assert!(parse_hex(b"1FFFFFFFFFFFFFFFF").is_err());
        // Leading zeros are not digits of the value.
        assert_eq!(parse_hex(b"0000000000000000001000"), Ok(0x1000));
        assert_eq!(parse_hex(b"00000000000000000000"), Ok(0));
        assert_eq!(parse_hex(b"0000FFFFFFFFFFFFFFFF"), Ok(u64::MAX));
        assert!(parse_hex(b"00001FFFFFFFFFFFFFFFF").is_err());
        assert!(parse_hex(b"000g").is_err());
        assert!(parse_hex(b"").is_err());
        assert!(parse_hex(b"12g").is_err());
    }
}
