//! valgrind's `--trace-syscalls=yes` lines, as valgrind 3.19 prints them
//! into the same log as lackey's references (checked on real logs; the
//! argument formats are the `PRINT` strings of `coregrind/m_syswrap`).
//!
//! ```text
//! SYSCALL[11492,1](9) sys_mmap ( 0x0, 8192, 3, 34, 4294967295, 0 ) --> [pre-success] Success(0x4835000)
//! SYSCALL[11492,1](3) sys_close ( 4 )[sync] --> Success(0x0)
//! SYSCALL[11492,1](0) sys_read ( 4, 0x1ffeffee28, 832 ) --> [async] ...
//! SYSCALL[11492,1](0) ... [async] --> Success(0x340)
//! SYSCALL[11492,1](21) sys_access ( 0x402a2a0(/etc/ld.so.preload), 4 )[sync] --> Failure(0x2)
//! SYSCALL[11492,1](56) sys_clone ( 1200011, 0x0, 0x0, 0x4a28a10, 0x0 )   clone(fork): process 11492 created child 11493
//!  --> [pre-success] Success(0x2ce5)
//! SYSCALL[11492,1](334) unimplemented (by the kernel) syscall: 334! (ni_syscall)
//!  --> [pre-fail] Failure(0x26)
//! ```
//!
//! A call that may block is printed twice: its start (`--> [async] ...`)
//! and, when it returns, its result (`... [async] --> ...`), possibly with
//! other threads' lines between. When valgrind prints more after the
//! arguments (the clone message above), the result comes on the next line.
//! A forked child's log starts with its own half of the fork, a bare
//! ` --> [pre-success] Success(0x0)`.

use crate::text;

/// The result of a call in the kernel's convention: the value on success,
/// `-errno` on failure.
pub(crate) type Ret = i64;

/// What follows a call's arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// The result, on the same line.
    Done(Ret),
    /// `--> [async] ...`: the result comes in a later `... [async] -->` line of the same thread.
    Async,
    /// Nothing: the result comes on the next line (` --> ...`).
    NextLine,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Line {
    /// A call's start, with its arguments.
    Start { pid: u32, tid: u32, number: u16, args: Vec<u64>, outcome: Outcome },
    /// `SYSCALL[pid,tid](nr) ... [async] --> RESULT`: a blocking call returned.
    AsyncDone { pid: u32, tid: u32, number: u16, ret: Ret },
    /// ` --> RESULT` alone on its line.
    Result(Ret),
}

const PREFIX: &[u8] = b"SYSCALL[";

/// Could this line be one of valgrind's system-call lines? (Cheap: the
/// caller asks it only of lines that are not lackey references.)
pub(crate) fn is_syscall_line(line: &[u8]) -> bool {
    line.starts_with(PREFIX) || text::trim_start(line).starts_with(b"-->")
}

/// Arguments valgrind prints as hex without `0x` (`%lx` in its `PRINT`
/// strings): (number, argument index). Every other unprefixed number is
/// decimal.
const BARE_HEX: &[(u16, usize)] = &[
    (56, 0),  // clone flags
    (151, 0), // mlockall flags
    (158, 1), // arch_prctl address
    (239, 4), // get_mempolicy flags
    (254, 2), // inotify_add_watch mask
    (255, 1), // inotify_rm_watch wd
    (313, 0), // finit_module fd
    (313, 2), // finit_module flags
];

/// `epoll_ctl` prints its operation by name (`%s`).
const WORDS: &[(&str, u64)] = &[("EPOLL_CTL_ADD", 1), ("EPOLL_CTL_DEL", 2), ("EPOLL_CTL_MOD", 3)];

pub(crate) fn parse(line: &[u8]) -> Result<Line, String> {
    let Some(rest) = line.strip_prefix(PREFIX) else {
        let rest = text::trim_start(line).strip_prefix(b"-->").unwrap_or_default();
        return result(rest).map(Line::Result);
    };
    let (pid, rest) = decimal(rest, "the process id after `SYSCALL[`")?;
    let rest = expect(rest, b",", "`,` after the process id")?;
    let (tid, rest) = decimal(rest, "the thread id")?;
    let rest = expect(rest, b"](", "`](` after the thread id")?;
    let (number, rest) = decimal(rest, "the system-call number")?;
    let number = u16::try_from(number).map_err(|_| format!("system-call number {number} is past 65535"))?;
    let rest = expect(rest, b") ", "`) ` after the system-call number")?;
    if let Some(after) = rest.strip_prefix(b"... [async] -->") {
        return Ok(Line::AsyncDone { pid, tid, number, ret: result(after)? });
    }
    if rest.starts_with(b"unimplemented ") {
        // `unimplemented (by the kernel) syscall: N! (ni_syscall)`; the
        // result follows on the next line.
        return Ok(Line::Start { pid, tid, number, args: Vec::new(), outcome: Outcome::NextLine });
    }
    let (name, rest) = text::take_while(rest, |b| b.is_ascii_alphanumeric() || b == b'_');
    if name.is_empty() {
        return Err(format!("expected the system call's name, found `{}`", text::show(rest)));
    }
    // `sys_fcntl[ARG3=='arg'] ( ... )`: a note on how the arguments were read.
    let rest = match rest.strip_prefix(b"[") {
        Some(note) => match memchr::memchr(b']', note) {
            Some(end) => &note[end + 1..],
            None => return Err(format!("expected `]` closing the note after the name, found `{}`", text::show(rest))),
        },
        None => rest,
    };
    let rest = expect(text::trim_start(rest), b"(", "`(` before the arguments")?;
    let (mut args, path, rest) = arguments(rest, number)?;
    if let Some((own, identity)) = path.and_then(|path| file_identity(number, &args, path)) {
        args.resize(own, 0);
        args.push(identity);
    }
    let outcome = match find(rest, b"-->") {
        None => Outcome::NextLine,
        Some(at) => {
            let after = text::trim_start(&rest[at + 3..]);
            if after.starts_with(b"[async]") {
                Outcome::Async
            } else {
                Outcome::Done(result(after)?)
            }
        }
    };
    Ok(Line::Start { pid, tid, number, args, outcome })
}

/// Calls that open a file by path: (number, (own arguments, index of the
/// path)). valgrind prints `mode` only when the flags create a file, so the
/// arguments are padded to the call's own count before the identity.
const OPENS: &[(u16, (usize, usize))] = &[
    (2, (3, 0)),   // open(path, flags, mode)
    (85, (2, 0)),  // creat(path, mode)
    (257, (4, 1)), // openat(dirfd, path, flags, mode)
];

/// `openat`'s `AT_FDCWD` (-100) as valgrind prints it (the low 32 bits),
/// and sign-extended.
const AT_FDCWD_PRINTED: u64 = 0xFFFF_FF9C;
const AT_FDCWD: u64 = -100i64 as u64;

/// The file identity appended to an open (`docs/syscall-markers.md`, "File
/// identity"): the 64-bit FNV-1a hash of the path as the program gave it,
/// which valgrind prints beside the path's address. None for a path that
/// names no file by itself (empty, or relative to a directory descriptor
/// other than the working directory), where sharing would be a guess.
/// Returns the call's own argument count and the identity.
fn file_identity(number: u16, args: &[u64], path: &[u8]) -> Option<(usize, u64)> {
    let &(_, (own, at)) = OPENS.iter().find(|(n, _)| *n == number)?;
    let relative_to_dirfd =
        number == 257 && !path.starts_with(b"/") && !matches!(args.first(), Some(&AT_FDCWD_PRINTED) | Some(&AT_FDCWD));
    if path.is_empty() || args.len() <= at || args.len() > own || relative_to_dirfd {
        return None;
    }
    Some((own, path_identity(path)))
}

/// FNV-1a over the path's bytes: fixed by its published definition, so the
/// same path gives the same identity on any build and machine.
pub(crate) fn path_identity(path: &[u8]) -> u64 {
    use std::hash::Hasher;
    let mut h = fnv::FnvHasher::default();
    h.write(path);
    h.finish()
}

/// What was read, the text of a string argument in it (a path), and what follows.
type Parsed<'a, T> = Result<(T, Option<&'a [u8]>, &'a [u8]), String>;

/// The arguments up to the closing `)`, the text of the last string
/// argument (a path), and what follows the `)`.
fn arguments(mut s: &[u8], number: u16) -> Parsed<'_, Vec<u64>> {
    let mut args = Vec::new();
    let mut string = None;
    loop {
        s = text::trim_start(s);
        if let Some(rest) = s.strip_prefix(b")") {
            return Ok((args, string, rest));
        }
        if !args.is_empty() {
            // `%lu %lu` (pkey_mprotect) has no comma; allow a blank alone.
            if let Some(rest) = s.strip_prefix(b",") {
                s = text::trim_start(rest);
            }
        }
        if args.len() == crate::syscall::MAX_ARGS {
            return Err(format!("more than {} arguments, found `{}`", crate::syscall::MAX_ARGS, text::show(s)));
        }
        let (v, text, rest) = argument(s, number, args.len())?;
        args.push(v);
        string = text.or(string);
        s = rest;
    }
}

/// One argument: `0x` hex (a string argument adds `(text)` or `("text")`),
/// a decimal (possibly negative), hex without `0x` where valgrind prints it
/// so, or one of a few words; with the string's text if there is one.
fn argument(s: &[u8], number: u16, index: usize) -> Parsed<'_, u64> {
    if let Some(hex) = s.strip_prefix(b"0x") {
        let (digits, rest) = text::take_while(hex, |b| b.is_ascii_hexdigit());
        let v = text::parse_hex(digits)
            .map_err(|why| format!("argument {}: `0x{}`: {why}", index + 1, text::show(digits)))?;
        let (string, rest) = skip_string(rest);
        return Ok((v, string, rest));
    }
    let (token, rest) = text::take_while(s, |b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if BARE_HEX.contains(&(number, index)) {
        let v =
            text::parse_hex(token).map_err(|why| format!("argument {}: `{}`: {why}", index + 1, text::show(token)))?;
        return Ok((v, None, rest));
    }
    if let Some(&(_, v)) = WORDS.iter().find(|(w, _)| w.as_bytes() == token) {
        return Ok((v, None, rest));
    }
    let text_token = std::str::from_utf8(token).unwrap_or("");
    let v = match text_token.strip_prefix('-') {
        Some(_) => text_token.parse::<i64>().map(|v| v as u64),
        None => text_token.parse::<u64>(),
    };
    v.map(|v| (v, None, rest)).map_err(|_| {
        format!("argument {}: expected a number (0x hex or decimal), found `{}`", index + 1, text::show(s))
    })
}

/// Splits off the `(text)` valgrind prints after a string's address: the
/// text (None if there is none) and what follows. The text
/// is the program's own (a path) and may hold anything: it ends at the `)`
/// that balances the opening one, or, if the parentheses in it do not
/// balance, at the first `)` followed by `,` or ` )`. (A path with
/// unbalanced parentheses followed by `, ` could still mislead this; valgrind
/// gives no way to tell.)
fn skip_string(s: &[u8]) -> (Option<&[u8]>, &[u8]) {
    if !s.starts_with(b"(") {
        return (None, s);
    }
    let mut depth = 0usize;
    for (i, &b) in s.iter().enumerate() {
        match b {
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    let after = &s[i + 1..];
                    if after.starts_with(b",") || text::trim_start(after).starts_with(b")") {
                        return (Some(&s[1..i]), after);
                    }
                    break;
                }
            }
            _ => {}
        }
    }
    let mut i = 1;
    while let Some(j) = s.get(i..).and_then(|t| memchr::memchr(b')', t)) {
        let end = i + j + 1;
        let after = s.get(end..).unwrap_or_default();
        if after.starts_with(b",") || text::trim_start(after).starts_with(b")") {
            return (Some(&s[1..end - 1]), after);
        }
        i = end;
    }
    (None, &s[s.len()..])
}

/// `[pre-success] Success(0x..)`, `Success(0x..)` or `Failure(0x..)`;
/// `NoWriteResult` (`rt_sigreturn`, which restores the registers instead of
/// returning a value) is 0.
fn result(s: &[u8]) -> Result<Ret, String> {
    let mut s = text::trim_start(s);
    if s.starts_with(b"[") {
        let close = memchr::memchr(b']', s).ok_or("expected `]` after the `[` of the result")?;
        s = text::trim_start(&s[close + 1..]);
    }
    if s.starts_with(b"NoWriteResult") {
        return Ok(0);
    }
    let (failed, rest) = if let Some(r) = s.strip_prefix(b"Success(0x") {
        (false, r)
    } else if let Some(r) = s.strip_prefix(b"Failure(0x") {
        (true, r)
    } else {
        return Err(format!(
            "expected the result `Success(0x..)`, `Failure(0x..)` or `NoWriteResult`, found `{}`",
            text::show(s)
        ));
    };
    let (digits, rest) = text::take_while(rest, |b| b.is_ascii_hexdigit());
    let v = text::parse_hex(digits).map_err(|why| format!("result `{}`: {why}", text::show(digits)))?;
    if !rest.starts_with(b")") {
        return Err(format!("expected `)` after the result's value, found `{}`", text::show(rest)));
    }
    if failed {
        let errno = i64::try_from(v).map_err(|_| format!("error number {v:#x} is not an errno"))?;
        Ok(-errno)
    } else {
        Ok(v as i64)
    }
}

fn decimal<'a>(s: &'a [u8], what: &str) -> Result<(u32, &'a [u8]), String> {
    let (digits, rest) = text::take_while(s, |b| b.is_ascii_digit());
    let v = std::str::from_utf8(digits).ok().and_then(|d| d.parse::<u32>().ok());
    v.map(|v| (v, rest)).ok_or_else(|| format!("expected {what} (decimal), found `{}`", text::show(s)))
}

fn expect<'a>(s: &'a [u8], want: &[u8], what: &str) -> Result<&'a [u8], String> {
    s.strip_prefix(want).ok_or_else(|| format!("expected {what}, found `{}`", text::show(s)))
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    memchr::memmem::find(hay, needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn start(line: &str) -> (u16, Vec<u64>, Outcome) {
        let parsed = parse(line.as_bytes());
        assert!(matches!(parsed, Ok(Line::Start { .. })), "{line}: {parsed:?}");
        match parsed {
            Ok(Line::Start { number, args, outcome, .. }) => (number, args, outcome),
            _ => (u16::MAX, Vec::new(), Outcome::NextLine),
        }
    }

    #[test]
    fn real_lines() {
        assert_eq!(
            start("SYSCALL[11492,1](9) sys_mmap ( 0x0, 8192, 3, 34, 4294967295, 0 ) --> [pre-success] Success(0x4835000) "),
            (9, vec![0, 8192, 3, 34, 4294967295, 0], Outcome::Done(0x4835000))
        );
        assert_eq!(
            start("SYSCALL[11492,1](3) sys_close ( 4 )[sync] --> Success(0x0) "),
            (3, vec![4], Outcome::Done(0))
        );
        assert_eq!(
            start("SYSCALL[11492,1](0) sys_read ( 4, 0x1ffeffee28, 832 ) --> [async] ... "),
            (0, vec![4, 0x1ffeffee28, 832], Outcome::Async)
        );
        assert_eq!(
            parse(b"SYSCALL[11492,1](0) ... [async] --> Success(0x340) "),
            Ok(Line::AsyncDone { pid: 11492, tid: 1, number: 0, ret: 0x340 })
        );
        assert_eq!(
            start("SYSCALL[11492,1](21) sys_access ( 0x402a2a0(/etc/ld.so.preload), 4 )[sync] --> Failure(0x2) "),
            (21, vec![0x402a2a0, 4], Outcome::Done(-2))
        );
        assert_eq!(
            start("SYSCALL[1,1](262) sys_newfstatat ( 4, 0x4029c99(), 0x1ffeffecc0 )[sync] --> Success(0x0) "),
            (262, vec![4, 0x4029c99, 0x1ffeffecc0], Outcome::Done(0))
        );
        assert_eq!(
            start("SYSCALL[11492,1](56) sys_clone ( 1200011, 0x0, 0x0, 0x4a28a10, 0x0 )   clone(fork): process 11492 created child 11493"),
            (56, vec![0x1200011, 0, 0, 0x4a28a10, 0], Outcome::NextLine)
        );
        assert_eq!(parse(b" --> [pre-success] Success(0x2ce5) "), Ok(Line::Result(0x2ce5)));
        assert_eq!(
            start("SYSCALL[11492,1](334) unimplemented (by the kernel) syscall: 334! (ni_syscall)"),
            (334, vec![], Outcome::NextLine)
        );
        assert_eq!(parse(b" --> [pre-fail] Failure(0x26) "), Ok(Line::Result(-0x26)));
        assert_eq!(
            start("SYSCALL[11493,1](231) exit_group( 0 ) --> [pre-success] Success(0x0) "),
            (231, vec![0], Outcome::Done(0))
        );
        assert_eq!(
            start("SYSCALL[2964,1](72) sys_fcntl[ARG3=='arg'] ( 255, 2, 1 )[sync] --> Success(0x0) "),
            (72, vec![255, 2, 1], Outcome::Done(0))
        );
        assert_eq!(
            start("SYSCALL[3033,1](15) sys_rt_sigreturn ( ) --> [pre-success] NoWriteResult "),
            (15, vec![], Outcome::Done(0))
        );
        assert_eq!(
            start("SYSCALL[4090,1](58) sys_fork ( )   fork: process 4090 created child 4137"),
            (58, vec![], Outcome::NextLine)
        );
        // A successful execve never returns: nothing follows its arguments.
        assert_eq!(
            start("SYSCALL[4137,1](59) sys_execve ( 0x129950(/bin/true), 0x129978, 0x4035b98 )"),
            (59, vec![0x129950, 0x129978, 0x4035b98], Outcome::NextLine)
        );
        assert_eq!(
            start("SYSCALL[1,1](158) arch_prctl ( 4098, 4a28740 ) --> [pre-success] Success(0x0) "),
            (158, vec![4098, 0x4a28740], Outcome::Done(0))
        );
        // Paths holding `(`, `)`, `,` and spaces; the open gets the path's
        // identity after its mode (0: not printed without O_CREAT).
        assert_eq!(
            start("SYSCALL[1,1](257) sys_openat ( 4294967196, 0x10(/tmp/a (1), b), 0 ) --> [async] ... "),
            (257, vec![4294967196, 0x10, 0, 0, path_identity(b"/tmp/a (1), b")], Outcome::Async)
        );
        assert_eq!(
            start("SYSCALL[1,1](257) sys_openat ( 4294967196, 0x10(/tmp/a) b), 0 ) --> [async] ... "),
            (257, vec![4294967196, 0x10, 0, 0, path_identity(b"/tmp/a) b")], Outcome::Async)
        );
        assert_eq!(
            start("SYSCALL[1,1](59) sys_execve ( 0x10(/bin/x), 0x20, 0x30 ) --> [pre-fail] Failure(0x2) "),
            (59, vec![0x10, 0x20, 0x30], Outcome::Done(-2))
        );
        assert_eq!(start("SYSCALL[1,1](39) sys_getpid ( )[sync] --> Success(0x5) "), (39, vec![], Outcome::Done(5)));
        assert_eq!(
            start("SYSCALL[1,1](8) sys_lseek ( 3, -1, 0 )[sync] --> Failure(0x16) "),
            (8, vec![3, u64::MAX, 0], Outcome::Done(-22))
        );
    }

    #[test]
    fn opens_carry_the_path_s_identity() {
        // FNV-1a 64's published test vectors.
        assert_eq!(path_identity(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(path_identity(b"a"), 0xaf63_dc4c_8601_ec8c);
        let libc = path_identity(b"/lib/x86_64-linux-gnu/libc.so.6");
        assert_eq!(
            start("SYSCALL[5,1](257) sys_openat ( 4294967196, 0x4835540(/lib/x86_64-linux-gnu/libc.so.6), 524288 ) --> [async] ... "),
            (257, vec![4294967196, 0x4835540, 524288, 0, libc], Outcome::Async)
        );
        // mode printed (O_CREAT): kept, the identity after it
        assert_eq!(
            start("SYSCALL[5,1](257) sys_openat ( 4294967196, 0x10(data), 66, 384 ) --> [async] ... "),
            (257, vec![4294967196, 0x10, 66, 384, path_identity(b"data")], Outcome::Async)
        );
        assert_eq!(
            start("SYSCALL[5,1](2) sys_open ( 0x10(/etc/passwd), 0 ) --> [async] ... "),
            (2, vec![0x10, 0, 0, path_identity(b"/etc/passwd")], Outcome::Async)
        );
        assert_eq!(
            start("SYSCALL[5,1](85) sys_creat ( 0x10(/tmp/x), 420 ) --> [async] ... "),
            (85, vec![0x10, 420, path_identity(b"/tmp/x")], Outcome::Async)
        );
        // relative to another directory: which file is unknown, no identity;
        // an absolute path ignores the directory
        assert_eq!(
            start("SYSCALL[5,1](257) sys_openat ( 3, 0x10(libc.so.6), 0 ) --> [async] ... "),
            (257, vec![3, 0x10, 0], Outcome::Async)
        );
        assert_eq!(
            start("SYSCALL[5,1](257) sys_openat ( 3, 0x10(/x), 0 ) --> [async] ... "),
            (257, vec![3, 0x10, 0, 0, path_identity(b"/x")], Outcome::Async)
        );
        // no text, an empty one, or a call that opens nothing: as before
        assert_eq!(
            start("SYSCALL[5,1](257) sys_openat ( 4294967196, 0x10, 0 ) --> [async] ... "),
            (257, vec![4294967196, 0x10, 0], Outcome::Async)
        );
        assert_eq!(
            start("SYSCALL[5,1](257) sys_openat ( 4294967196, 0x10(), 0 ) --> [async] ... "),
            (257, vec![4294967196, 0x10, 0], Outcome::Async)
        );
        assert_eq!(
            start("SYSCALL[5,1](21) sys_access ( 0x10(/etc/ld.so.preload), 4 )[sync] --> Failure(0x2) "),
            (21, vec![0x10, 4], Outcome::Done(-2))
        );
    }

    #[test]
    fn malformed_lines_say_what_was_expected() {
        for (line, phrase) in [
            ("SYSCALL[x,1](0) sys_read ( 1 )", "expected the process id after `SYSCALL[` (decimal), found `x,1](0)"),
            ("SYSCALL[1 1](0) sys_read ( 1 )", "expected `,` after the process id"),
            ("SYSCALL[1,1](70000) sys_read ( 1 )", "system-call number 70000 is past 65535"),
            ("SYSCALL[1,1](0)sys_read ( 1 )", "expected `) ` after the system-call number"),
            ("SYSCALL[1,1](0) ( 1 )", "expected the system call's name"),
            ("SYSCALL[1,1](0) sys_read 1 )", "expected `(` before the arguments"),
            ("SYSCALL[1,1](0) sys_read ( 1, zz )[sync] --> Success(0x1)", "argument 2: expected a number"),
            ("SYSCALL[1,1](0) sys_read ( 0xg )", "argument 1: `0x`: no hex digits"),
            ("SYSCALL[1,1](0) sys_read ( 1, 2, 3, 4, 5, 6, 7 )", "more than 6 arguments"),
            (
                "SYSCALL[1,1](0) sys_read ( 1 )[sync] --> Maybe(0x1)",
                "expected the result `Success(0x..)`, `Failure(0x..)`",
            ),
            ("SYSCALL[1,1](72) sys_fcntl[ARG3 ( 1 )", "expected `]` closing the note after the name"),
            ("SYSCALL[1,1](0) sys_read ( 1 )[sync] --> Success(0x1", "expected `)` after the result's value"),
            ("SYSCALL[1,1](0) ... [async] --> ", "expected the result"),
            (" --> [pre-success Success(0x0)", "expected `]` after the `[` of the result"),
        ] {
            let err = parse(line.as_bytes()).expect_err(line);
            assert!(err.contains(phrase), "{line}: {err}");
        }
    }
}
