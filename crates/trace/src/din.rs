//! Dinero IV traditional `din` text.
//!
//! One `label address` record per line, both hex (an optional `0x` prefix is
//! accepted, as Dinero does). The semantics follow Dinero IV's own reader
//! (`dinfmt.c`):
//! - label 0 is a data read, 1 a data write, 2 an instruction fetch;
//! - every reference is a 4-byte access at the address rounded down to a
//!   multiple of 4 (Dinero: "dineroIII is pretty much word-oriented");
//! - labels 3, 4 and 5 are Dinero's escapes (`d4.h`: `D4XMISC`, an access of
//!   unknown type; `D4XCOPYB`, a copy-back of the dirty line holding the
//!   address, without invalidating it, passed down the data side; `D4XINVAL`,
//!   an invalidate of that line without copy-back). vmlab has no event for
//!   one line's copy-back or invalidate, and nothing sensible to simulate for
//!   an unknown type, so they are rejected with an error that says which
//!   escape it was, rather than approximated (an earlier vmlab read label 4
//!   as a flush of every cache, which differs from Dinero: later references
//!   then missed where Dinero hits);
//! - the rest of a line after the address is ignored (Dinero allows comments
//!   there; a second tuple on the same line is ignored too).
//!
//! Where vmlab departs from Dinero: blank lines are skipped (Dinero stops with
//! "short line"), and an address of more than 16 hex digits is an error
//! rather than silently overflowing.

use std::io::{self, BufWriter, Write};

use vmlab_addr::{Asid, VirtAddr};

use crate::convert::Losses;
use crate::text::{self, LineFormat, TextReader};
use crate::{Access, AccessKind, Event};

/// The only access size din can express.
pub const DIN_SIZE: u32 = 4;

/// The Dinero IV `din` format, for [`TextReader`].
#[derive(Debug)]
pub struct Din;

impl LineFormat for Din {
    const NAME: &'static str = "din";
    type State = ();
    fn parse(line: &[u8], asid: Asid) -> Result<Option<Event>, String> {
        parse_line(line, asid)
    }
}

/// Reads din text from any byte stream (the shared [`TextReader`]).
pub type DinReader<R> = TextReader<R, Din>;

fn strip_0x(s: &[u8]) -> &[u8] {
    s.strip_prefix(b"0x").or_else(|| s.strip_prefix(b"0X")).unwrap_or(s)
}

/// Parses one line: `Ok(None)` for a blank line.
pub(crate) fn parse_line(line: &[u8], asid: Asid) -> Result<Option<Event>, String> {
    let body = text::trim_start(line);
    if body.is_empty() {
        return Ok(None);
    }
    let (label_text, rest) = text::take_while(body, |b| !text::is_blank(b));
    let label = text::parse_hex(strip_0x(label_text))
        .map_err(|why| format!("expected a din label ({EXPECTED}), found `{}` ({why})", text::show(label_text)))?;
    let kind = match label {
        0 => AccessKind::Load,
        1 => AccessKind::Store,
        2 => AccessKind::Ifetch,
        3..=5 => {
            let what = match label {
                3 => "an access of unknown type",
                4 => "copy back the line holding the address, without invalidating it",
                _ => "invalidate the line holding the address, without copy-back",
            };
            return Err(format!("din label {label} (Dinero's escape: {what}) is not supported: expected {EXPECTED}"));
        }
        other => return Err(format!("unknown din label {other:x}: expected {EXPECTED}")),
    };
    let rest = text::trim_start(rest);
    if rest.is_empty() {
        return Err(format!("expected a hex address after label {label}, found end of line"));
    }
    let (addr_text, _comment) = text::take_while(rest, |b| !text::is_blank(b));
    let addr = text::parse_hex(strip_0x(addr_text)).map_err(|why| {
        format!("expected a hex address after label {label}, found `{}` ({why})", text::show(addr_text))
    })?;
    Ok(Some(Event::Access(Access { kind, size: DIN_SIZE, addr: VirtAddr(addr & !3), asid })))
}

/// The labels vmlab reads, for error messages.
const EXPECTED: &str = "0 (read), 1 (write) or 2 (instruction fetch)";

/// Writes din text (`label hexaddr` per line). din is lossy; what was lost is
/// counted in [`DinWriter::losses`]: asids, context switches and whole-cache
/// flushes are dropped (din's label 4 is a one-line copy-back, not a flush),
/// every access becomes 4 bytes (sizes other than 4 are counted), a modify
/// becomes a read then a write of the same address, and addresses that are
/// not 4-byte aligned are written as they are but read back rounded down.
#[derive(Debug)]
pub struct DinWriter<W: Write> {
    w: BufWriter<W>,
    losses: Losses,
    records: u64,
}

impl<W: Write> DinWriter<W> {
    pub fn new(w: W) -> Self {
        Self { w: BufWriter::with_capacity(256 * 1024, w), losses: Losses::default(), records: 0 }
    }

    pub fn write(&mut self, e: &Event) -> io::Result<()> {
        let a = match e {
            Event::Access(a) => a,
            Event::ContextSwitch(_) => {
                self.losses.context_switches_dropped += 1;
                return Ok(());
            }
            Event::FlushAll => {
                self.losses.flushes_dropped += 1;
                return Ok(());
            }
            Event::Syscall(_) => {
                self.losses.syscalls_dropped += 1;
                return Ok(());
            }
            Event::SyscallArg(_) => return Ok(()),
        };
        if a.asid != Asid(0) {
            self.losses.asids_dropped += 1;
        }
        if a.size != DIN_SIZE {
            self.losses.sizes_changed += 1;
        }
        if a.addr.0 & 3 != 0 {
            self.losses.unaligned += 1;
        }
        let labels: &[u8] = match a.kind {
            AccessKind::Load => b"0",
            AccessKind::Store => b"1",
            AccessKind::Ifetch => b"2",
            AccessKind::Modify => {
                self.losses.modifies_split += 1;
                b"01"
            }
        };
        for &label in labels {
            self.records += 1;
            writeln!(self.w, "{} {:x}", char::from(label), a.addr.0)?;
        }
        Ok(())
    }

    pub fn write_all(&mut self, events: &[Event]) -> io::Result<()> {
        events.iter().try_for_each(|e| self.write(e))
    }

    /// What could not be written exactly so far.
    pub fn losses(&self) -> &Losses {
        &self.losses
    }

    /// Lines written so far.
    pub fn records_written(&self) -> u64 {
        self.records
    }

    /// Flushes and returns the underlying writer.
    pub fn finish(self) -> io::Result<W> {
        self.w.into_inner().map_err(|e| e.into_error())
    }
}

/// Writes `events` as din text; returns what din could not represent.
pub fn write_din<W: Write>(w: W, events: &[Event]) -> io::Result<Losses> {
    let mut dw = DinWriter::new(w);
    dw.write_all(events)?;
    let losses = dw.losses.clone();
    dw.finish()?;
    Ok(losses)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<Option<Event>, String> {
        parse_line(s.as_bytes(), Asid(0))
    }

    #[test]
    fn dinero_semantics() {
        assert_eq!(parse("0 1000"), Ok(Some(Event::access(AccessKind::Load, VirtAddr(0x1000), 4, Asid(0)))));
        assert_eq!(parse("1 0x1003"), Ok(Some(Event::access(AccessKind::Store, VirtAddr(0x1000), 4, Asid(0)))));
        assert_eq!(
            parse("\t2  4016c0e  a comment 0 5"),
            Ok(Some(Event::access(AccessKind::Ifetch, VirtAddr(0x4016c0c), 4, Asid(0))))
        );
        assert_eq!(parse("0x2 10"), Ok(Some(Event::access(AccessKind::Ifetch, VirtAddr(0x10), 4, Asid(0)))));
        assert_eq!(parse(""), Ok(None));
        for (line, phrase) in [
            ("3 1000", "din label 3 (Dinero's escape: an access of unknown type) is not supported"),
            ("4 0", "din label 4 (Dinero's escape: copy back the line holding the address"),
            ("5 1000", "din label 5 (Dinero's escape: invalidate the line"),
            ("6 1000", "unknown din label 6: expected 0 (read), 1 (write) or 2 (instruction fetch)"),
            ("10 1000", "unknown din label 10"),
            ("z 1000", "expected a din label"),
            ("0", "found end of line"),
            ("0 12k4", "not a hex digit"),
            ("0 11112222333344445", "more than 16 hex digits"),
        ] {
            let err = parse(line).expect_err(line);
            assert!(err.contains(phrase), "{line}: {err}");
        }
    }

    #[test]
    fn writer_counts_losses() {
        let mut out = Vec::new();
        let losses = write_din(
            &mut out,
            &[
                Event::access(AccessKind::Ifetch, VirtAddr(0x4016c0c), 3, Asid(0)),
                Event::access(AccessKind::Modify, VirtAddr(0x1002), 4, Asid(2)),
                Event::ContextSwitch(Asid(2)),
                Event::FlushAll,
                Event::Syscall(crate::Syscall { ret: 1, asid: Asid(2), number: 1, nargs: 1 }),
                Event::SyscallArg(5),
            ],
        )
        .expect("write to Vec");
        assert_eq!(String::from_utf8_lossy(&out), "2 4016c0c\n0 1002\n1 1002\n");
        assert_eq!(
            losses,
            Losses {
                asids_dropped: 1,
                context_switches_dropped: 1,
                flushes_dropped: 1,
                syscalls_dropped: 1,
                sizes_changed: 1,
                modifies_split: 1,
                unaligned: 1,
            }
        );
    }
}
