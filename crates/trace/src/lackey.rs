//! valgrind lackey text (`valgrind --tool=lackey --trace-mem=yes`).
//!
//! Lackey prints one reference per line: `I  04016c0c,3` for an instruction
//! fetch and ` L 1ffefff8b8,8`, ` S ...`, ` M ...` for a load, store and
//! modify (load then store of the same bytes); the address is hex and the size
//! decimal. Everything valgrind itself says is prefixed `==pid==` (or
//! `--pid--` / `**pid**` for warnings) and is skipped, as are blank lines.
//! Anything else is an error naming the line: a silently skipped line would be
//! a silently wrong simulation.
//!
//! Every field has a range, the one lackey itself can print: the address is
//! 0 to 2^64-1 (any number of leading zeros), an instruction fetch is 1 to
//! [`MAX_IFETCH_SIZE`] bytes and a load, store or modify 1 to
//! [`MAX_DATA_SIZE`]. A size outside its range is an error, not a reference:
//! `99999` is a typo or a different tool, never a valgrind record.

use std::io::{self, BufWriter, Write};

use vmlab_addr::{Asid, VirtAddr};

use crate::convert::Losses;
use crate::text::{self, LineFormat, TextReader};
use crate::valgrind_syscall as vg;
use crate::{Access, AccessKind, Event};

/// The longest instruction fetch lackey prints: valgrind's longest
/// instruction is 16 bytes (`VG_MAX_INSTR_SZB`, x86 and amd64) and its
/// client-request preamble, fetched as one, is up to 20 (`VG_CLREQ_SZB`, 19
/// on amd64, 20 on ppc and arm); lackey asserts every fetch is one of these.
pub const MAX_IFETCH_SIZE: u32 = 20;
/// The largest data access lackey prints: `MAX_DSIZE` in lackey's
/// `lk_main.c`, which it asserts for every load and store (the largest come
/// from helpers such as `fxsave`, not from plain moves, which stop at 32).
pub const MAX_DATA_SIZE: u32 = 512;

/// The largest size lackey holds for an access of this kind.
pub fn max_size(kind: AccessKind) -> u32 {
    match kind {
        AccessKind::Ifetch => MAX_IFETCH_SIZE,
        AccessKind::Load | AccessKind::Store | AccessKind::Modify => MAX_DATA_SIZE,
    }
}

fn kind_words(kind: AccessKind) -> &'static str {
    match kind {
        AccessKind::Ifetch => "an instruction fetch",
        AccessKind::Load => "a load",
        AccessKind::Store => "a store",
        AccessKind::Modify => "a modify",
    }
}

/// The valgrind lackey format, for [`TextReader`].
#[derive(Debug)]
pub struct Lackey;

impl LineFormat for Lackey {
    const NAME: &'static str = "lackey";
    const SKIPPED: &'static str = "blank or valgrind's own messages";
    type State = SyscallState;
    fn parse(line: &[u8], asid: Asid) -> Result<Option<Event>, String> {
        parse_line(line, asid).map(|a| a.map(Event::Access))
    }

    fn parse_into(
        state: &mut SyscallState,
        line_no: u64,
        line: &[u8],
        asid: Asid,
        out: &mut Vec<Event>,
    ) -> Result<(), String> {
        if state.result_next.is_none() {
            // References first: a system-call line is tried only once a
            // line has failed as one, so plain traces pay nothing.
            match parse_line(line, asid) {
                Ok(Some(a)) => {
                    out.push(Event::Access(a));
                    return Ok(());
                }
                Ok(None) => return Ok(()),
                Err(e) if !vg::is_syscall_line(line) => return Err(e),
                Err(_) => {}
            }
        } else if is_valgrind_message(line) || text::trim_start(line).is_empty() {
            return Ok(());
        }
        state.line(line_no, line, asid, out)
    }

    fn finish(state: &mut SyscallState, asid: Asid, out: &mut Vec<Event>) -> Result<(), (u64, String)> {
        state.end(asid, out)
    }
}

const EINTR: i64 = 4;

/// `execve` and `execveat`: on success they do not return.
const EXECS: [u16; 2] = [59, 322];

impl SyscallState {
    /// The log has ended. A successful `execve` never returns, so valgrind
    /// prints no result for it: the process image ends there; it is kept
    /// with result 0 at the end of this log. A call still blocked (`[async]`)
    /// never returned either: the process was killed in it (a parent
    /// killing a child that waits on a pipe); it is dropped, as it did
    /// nothing the program saw. A call whose result valgrind prints on the
    /// next line and did not is an error (a cut log).
    fn end(&mut self, asid: Asid, out: &mut Vec<Event>) -> Result<(), (u64, String)> {
        self.waiting.clear();
        match self.result_next.take() {
            Some(p) if EXECS.contains(&p.number) => {
                emit(p, 0, asid, out);
                Ok(())
            }
            Some(p) => Err((
                p.line,
                format!(
                    "the log ends before the result of system call {} started on this line",
                    crate::syscall::display_name(p.number)
                ),
            )),
            None => Ok(()),
        }
    }
}

/// A system call whose result is still to come.
#[derive(Debug)]
struct Pending {
    number: u16,
    args: Vec<u64>,
    /// The line that started it.
    line: u64,
}

/// What the lackey reader remembers between lines: system calls started
/// and not yet returned (valgrind's `--trace-syscalls=yes`; see
/// `valgrind_syscall.rs` for the line forms).
#[derive(Debug, Default)]
pub struct SyscallState {
    /// Calls that may block (`--> [async] ...`), by (pid, thread id), until
    /// their `... [async] -->` line.
    waiting: Vec<(u32, u32, Pending)>,
    /// A call whose result comes on the next line.
    result_next: Option<Pending>,
}

impl SyscallState {
    fn line(&mut self, line_no: u64, line: &[u8], asid: Asid, out: &mut Vec<Event>) -> Result<(), String> {
        if let Some(p) = self.result_next.take() {
            let parsed = if vg::is_syscall_line(line) { Some(vg::parse(line)?) } else { None };
            return match parsed {
                Some(vg::Line::Result(ret)) => {
                    emit(p, ret, asid, out);
                    Ok(())
                }
                _ => Err(format!(
                    "expected the result (` --> ...`) of system call {} started on line {}, found `{}`",
                    crate::syscall::display_name(p.number),
                    p.line,
                    text::show(line)
                )),
            };
        }
        let parsed = vg::parse(line)?;
        match parsed {
            vg::Line::Start { pid, tid, number, args, outcome } => {
                let p = Pending { number, args, line: line_no };
                if let Some(i) = self.waiting.iter().position(|w| (w.0, w.1) == (pid, tid)) {
                    // A signal interrupted the blocked call (its handler ran,
                    // then the thread went on): valgrind prints no result
                    // for it. It is recorded here, as the kernel reports
                    // it, with -EINTR; the handler's references, if any,
                    // come before it.
                    let (_, _, blocked) = self.waiting.swap_remove(i);
                    emit(blocked, -EINTR, asid, out);
                }
                match outcome {
                    vg::Outcome::Done(ret) => emit(p, ret, asid, out),
                    vg::Outcome::Async => self.waiting.push((pid, tid, p)),
                    vg::Outcome::NextLine => self.result_next = Some(p),
                }
                Ok(())
            }
            vg::Line::AsyncDone { pid, tid, number, ret } => {
                let Some(i) = self.waiting.iter().position(|w| (w.0, w.1) == (pid, tid)) else {
                    return Err(format!(
                        "result of a blocking system call {} of thread {tid} of process {pid} that never started",
                        crate::syscall::display_name(number)
                    ));
                };
                let (_, _, p) = self.waiting.swap_remove(i);
                if p.number != number {
                    return Err(format!(
                        "result of system call {number}, but thread {tid} of process {pid} is blocked in {} (line {})",
                        p.number, p.line
                    ));
                }
                emit(p, ret, asid, out);
                Ok(())
            }
            // A forked child's log starts with its own return from the fork
            // (0); its parent's marker records the call. In one log shared
            // by parent and child (no `--trace-children`, no `%p`) it may
            // come anywhere.
            vg::Line::Result(0) => Ok(()),
            vg::Line::Result(ret) => Err(format!("a system-call result ({ret}) without the call it belongs to")),
        }
    }
}

fn emit(p: Pending, ret: i64, asid: Asid, out: &mut Vec<Event>) {
    let head = crate::Syscall { ret, asid, number: p.number, nargs: p.args.len() as u8 };
    out.push(Event::Syscall(head));
    out.extend(p.args.iter().map(|&a| Event::SyscallArg(a)));
}

/// Reads lackey text from any byte stream (the shared [`TextReader`]).
pub type LackeyReader<R> = TextReader<R, Lackey>;

/// Is this one of valgrind's own message lines (`==123== ...`, or the
/// `--123--` / `**123**` forms valgrind uses for warnings)?
pub(crate) fn is_valgrind_message(line: &[u8]) -> bool {
    if line.starts_with(b"==") {
        return true;
    }
    for fence in [b"--", b"**"] {
        if let Some(rest) = line.strip_prefix(fence) {
            let (digits, rest) = text::take_while(rest, |b| b.is_ascii_digit());
            if !digits.is_empty() && rest.starts_with(fence) {
                return true;
            }
        }
    }
    false
}

/// Parses one line: `Ok(None)` for lines that carry no reference (blank
/// lines, valgrind's messages), `Err` with what was expected and found.
pub(crate) fn parse_line(line: &[u8], asid: Asid) -> Result<Option<Access>, String> {
    let body = text::trim_start(line);
    if body.is_empty() || is_valgrind_message(line) {
        return Ok(None);
    }
    let kind = match body.first() {
        Some(b'I') => AccessKind::Ifetch,
        Some(b'L') => AccessKind::Load,
        Some(b'S') => AccessKind::Store,
        Some(b'M') => AccessKind::Modify,
        _ => {
            return Err(format!(
                "expected a lackey record (`I`, `L`, `S` or `M`, then hex address `,` decimal size) \
                 or a valgrind `==` line, found `{}`",
                text::show(line)
            ))
        }
    };
    let after_kind = body.get(1..).unwrap_or(&[]);
    let (gap, rest) = text::take_while(after_kind, text::is_blank);
    if gap.is_empty() {
        return Err(format!(
            "expected a space after the access kind `{}`, found `{}`",
            char::from(body[0]),
            text::show(line)
        ));
    }
    let (hex, rest) = text::take_while(rest, |b| b.is_ascii_alphanumeric());
    let addr = text::parse_hex(hex).map_err(|why| {
        // An empty token (`-1000`, `+8`): show what stood there instead.
        let found = if hex.is_empty() { text::take_while(rest, |b| b != b',' && !text::is_blank(b)).0 } else { hex };
        format!("expected a hex address after `{}`, found `{}` ({why})", char::from(body[0]), text::show(found))
    })?;
    let Some(rest) = rest.strip_prefix(b",") else {
        return Err(format!("expected `,` after the address, found `{}`", text::show(rest)));
    };
    let (digits, rest) = text::take_while(rest, |b| b.is_ascii_digit());
    if digits.is_empty() {
        return Err(format!("expected a decimal size after `,`, found `{}`", text::show(rest)));
    }
    let size = parse_size(digits, kind)?;
    if !rest.iter().all(|&b| text::is_blank(b)) {
        return Err(format!("expected end of line after the size, found `{}`", text::show(rest)));
    }
    Ok(Some(Access { kind, size, addr: VirtAddr(addr), asid }))
}

fn parse_size(digits: &[u8], kind: AccessKind) -> Result<u32, String> {
    let max = max_size(kind);
    let mut v: u32 = 0;
    for &d in digits {
        v = v * 10 + u32::from(d - b'0');
        if v > max {
            return Err(format!(
                "size `{}` is outside lackey's range for {}: 1 to {max} bytes",
                text::show(digits),
                kind_words(kind)
            ));
        }
    }
    if v == 0 {
        return Err("access size must be at least 1, found 0".to_string());
    }
    Ok(v)
}

/// Writes lackey text exactly as valgrind prints it (`I  %08lx,%lu` and
/// ` L %08lx,%lu`). Lackey has no asids, context switches or flushes: those
/// are dropped and counted in [`LackeyWriter::losses`]. An access larger
/// than lackey's range ([`max_size`]) is an error (`InvalidData`): it would
/// give a file no lackey reader accepts.
#[derive(Debug)]
pub struct LackeyWriter<W: Write> {
    w: BufWriter<W>,
    losses: Losses,
    records: u64,
}

impl<W: Write> LackeyWriter<W> {
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
        if a.size > max_size(a.kind) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "{} of {} bytes at {:#x} does not fit lackey text (1 to {} bytes); write .vmt instead",
                    kind_words(a.kind),
                    a.size,
                    a.addr.0,
                    max_size(a.kind)
                ),
            ));
        }
        if a.asid != Asid(0) {
            self.losses.asids_dropped += 1;
        }
        let mut line = [0u8; 48];
        let prefix: &[u8; 3] = match a.kind {
            AccessKind::Ifetch => b"I  ",
            AccessKind::Load => b" L ",
            AccessKind::Store => b" S ",
            AccessKind::Modify => b" M ",
        };
        line[..3].copy_from_slice(prefix);
        let mut n = 3 + put_hex(&mut line[3..], a.addr.0);
        line[n] = b',';
        n += 1;
        n += put_dec(&mut line[n..], a.size);
        line[n] = b'\n';
        self.records += 1;
        self.w.write_all(&line[..=n])
    }

    pub fn write_all(&mut self, events: &[Event]) -> io::Result<()> {
        events.iter().try_for_each(|e| self.write(e))
    }

    /// What could not be written so far.
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

/// Writes `events` as lackey text; returns what lackey could not represent.
pub fn write_lackey<W: Write>(w: W, events: &[Event]) -> io::Result<Losses> {
    let mut lw = LackeyWriter::new(w);
    lw.write_all(events)?;
    let losses = lw.losses.clone();
    lw.finish()?;
    Ok(losses)
}

/// `%08lx`: at least 8 lowercase hex digits. Returns the digits written.
fn put_hex(out: &mut [u8], v: u64) -> usize {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let n = ((64 - v.leading_zeros() as usize).div_ceil(4)).max(8);
    for i in 0..n {
        out[n - 1 - i] = DIGITS[((v >> (4 * i)) & 0xf) as usize];
    }
    n
}

fn put_dec(out: &mut [u8], mut v: u32) -> usize {
    let mut tmp = [0u8; 10];
    let mut i = tmp.len();
    loop {
        i -= 1;
        tmp[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    let n = tmp.len() - i;
    out[..n].copy_from_slice(&tmp[i..]);
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<Option<Access>, String> {
        parse_line(s.as_bytes(), Asid(0))
    }

    #[test]
    fn parses_all_kinds() {
        assert_eq!(
            parse("I  04016c0c,3"),
            Ok(Some(Access { kind: AccessKind::Ifetch, size: 3, addr: VirtAddr(0x4016c0c), asid: Asid(0) }))
        );
        assert_eq!(
            parse(" L 1ffefff8b8,8").map(|a| a.map(|a| (a.kind, a.addr.0, a.size))),
            Ok(Some((AccessKind::Load, 0x1ffefff8b8, 8)))
        );
        assert_eq!(parse(" S 0,4\r").map(|a| a.map(|a| a.kind)), Ok(Some(AccessKind::Store)));
        // The ends of each range.
        assert_eq!(parse(" M 0,512").map(|a| a.map(|a| (a.addr.0, a.size))), Ok(Some((0, 512))));
        assert_eq!(parse(" L 0,1").map(|a| a.map(|a| a.size)), Ok(Some(1)));
        assert_eq!(parse("I  0,20").map(|a| a.map(|a| a.size)), Ok(Some(20)));
        assert_eq!(parse("I  0,0020").map(|a| a.map(|a| a.size)), Ok(Some(20)));
        // Leading zeros: only the value counts.
        assert_eq!(parse(" L 0000000000000000001000,8").map(|a| a.map(|a| (a.addr.0, a.size))), Ok(Some((0x1000, 8))));
        // Past the end of the address space: read as written (the engine
        // cuts it at the end, docs/reference-semantics.md).
        assert_eq!(parse(" M ffffffffffffffff,512").map(|a| a.map(|a| (a.addr.0, a.size))), Ok(Some((u64::MAX, 512))));
        assert_eq!(parse("==123== Command: ls"), Ok(None));
        assert_eq!(parse("--123-- WARNING: x"), Ok(None));
        assert_eq!(parse("   "), Ok(None));
    }

    #[test]
    fn rejects_bad_lines() {
        for (line, phrase) in [
            ("X 12,4", "expected a lackey record"),
            ("I 12", "expected `,`"),
            ("I 1g,4", "not a hex digit"),
            ("I 12;4", "expected `,` after the address, found `;4`"),
            ("I ,4", "no hex digits"),
            (" L -1000,4", "found `-1000` (no hex digits)"),
            ("I 12,", "expected a decimal size"),
            ("I 12,0", "at least 1"),
            ("I 12,4294967296", "outside lackey's range for an instruction fetch: 1 to 20 bytes"),
            ("I 12,21", "outside lackey's range for an instruction fetch: 1 to 20 bytes"),
            (" S 1000,99999", "size `99999` is outside lackey's range for a store: 1 to 512 bytes"),
            (" L 1000,513", "for a load: 1 to 512"),
            (" M 1000,513", "for a modify: 1 to 512"),
            (" L 00001ffffffffffffffff,4", "does not fit in 64 bits"),
            ("I 12,4 x", "expected end of line"),
            ("I12,4", "expected a space"),
            ("--12 x", "expected a lackey record"),
        ] {
            let err = parse(line).expect_err(line);
            assert!(err.contains(phrase), "{line}: {err}");
        }
    }

    #[test]
    fn writes_valgrind_layout() {
        let mut out = Vec::new();
        let losses = write_lackey(
            &mut out,
            &[
                Event::access(AccessKind::Ifetch, VirtAddr(0x4016c0c), 3, Asid(0)),
                Event::access(AccessKind::Load, VirtAddr(0x1ffefff8b8), 8, Asid(0)),
                Event::access(AccessKind::Modify, VirtAddr(0), 1, Asid(7)),
                Event::FlushAll,
            ],
        )
        .expect("write to Vec");
        assert_eq!(String::from_utf8_lossy(&out), "I  04016c0c,3\n L 1ffefff8b8,8\n M 00000000,1\n");
        assert_eq!(losses.asids_dropped, 1);
        assert_eq!(losses.flushes_dropped, 1);
    }

    #[test]
    fn refuses_to_write_what_lackey_cannot_hold() {
        let mut out = Vec::new();
        write_lackey(&mut out, &[Event::access(AccessKind::Load, VirtAddr(0x1000), 512, Asid(0))])
            .expect("largest data access");
        write_lackey(&mut out, &[Event::access(AccessKind::Ifetch, VirtAddr(0x1000), 20, Asid(0))])
            .expect("largest fetch");
        for (kind, size, phrase) in [
            (AccessKind::Load, 513, "a load of 513 bytes at 0x1000 does not fit lackey text (1 to 512 bytes)"),
            (AccessKind::Ifetch, 21, "an instruction fetch of 21 bytes at 0x1000 does not fit lackey text (1 to 20"),
        ] {
            let err = write_lackey(Vec::new(), &[Event::access(kind, VirtAddr(0x1000), size, Asid(0))])
                .expect_err("too large");
            assert_eq!(err.kind(), io::ErrorKind::InvalidData);
            assert!(err.to_string().contains(phrase), "{err}");
        }
    }
}
