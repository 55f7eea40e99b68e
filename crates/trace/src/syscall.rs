//! System-call markers: the x86-64 Linux names, and reassembling a marker
//! from its events.
//!
//! A system call travels through a trace as one [`Event::Syscall`] head
//! followed by exactly `nargs` [`Event::SyscallArg`] events (README.md,
//! "System-call markers", says why it is not one event). Consumers that act
//! on system calls (the OS models of S2, S4 and S5, `info`) feed every event
//! to an [`Assembler`], which hands back a whole [`Call`] once its last
//! argument has arrived and names the event where a sequence is malformed.

use std::borrow::Cow;

use vmlab_addr::Asid;

use crate::event::Syscall;
use crate::Event;

/// Arguments of one call at most (x86-64 Linux passes at most six).
pub const MAX_ARGS: usize = 6;

/// The x86-64 Linux system calls the studies act on, and the ones every
/// program start makes (so `info` names most of a real trace), by number
/// (`arch/x86/entry/syscalls/syscall_64.tbl`). Any other number is kept as
/// a number and shown as `syscall_N`.
#[rustfmt::skip]
pub const NAMES: &[(u16, &str)] = &[
    (0, "read"), (1, "write"), (2, "open"), (3, "close"), (4, "stat"), (5, "fstat"), (6, "lstat"),
    (7, "poll"), (8, "lseek"), (9, "mmap"), (10, "mprotect"), (11, "munmap"), (12, "brk"),
    (13, "rt_sigaction"), (14, "rt_sigprocmask"), (15, "rt_sigreturn"), (16, "ioctl"),
    (17, "pread64"), (18, "pwrite64"), (19, "readv"), (20, "writev"), (21, "access"), (22, "pipe"),
    (23, "select"), (24, "sched_yield"), (25, "mremap"), (26, "msync"), (28, "madvise"),
    (29, "shmget"), (30, "shmat"), (31, "shmctl"), (32, "dup"), (33, "dup2"), (34, "pause"),
    (35, "nanosleep"), (39, "getpid"), (40, "sendfile"), (41, "socket"), (42, "connect"),
    (43, "accept"), (44, "sendto"), (45, "recvfrom"), (46, "sendmsg"), (47, "recvmsg"),
    (48, "shutdown"), (49, "bind"), (50, "listen"), (53, "socketpair"), (56, "clone"), (57, "fork"),
    (58, "vfork"), (59, "execve"), (60, "exit"), (61, "wait4"), (62, "kill"), (63, "uname"),
    (67, "shmdt"), (72, "fcntl"), (77, "ftruncate"), (79, "getcwd"), (80, "chdir"), (87, "unlink"),
    (89, "readlink"), (96, "gettimeofday"), (102, "getuid"), (104, "getgid"), (107, "geteuid"),
    (108, "getegid"), (110, "getppid"), (111, "getpgrp"), (131, "sigaltstack"), (133, "mknod"),
    (137, "statfs"), (158, "arch_prctl"), (186, "gettid"), (191, "getxattr"), (192, "lgetxattr"),
    (202, "futex"), (217, "getdents64"), (218, "set_tid_address"), (221, "fadvise64"), (228, "clock_gettime"),
    (230, "clock_nanosleep"), (231, "exit_group"), (247, "waitid"), (257, "openat"),
    (259, "mknodat"), (262, "newfstatat"), (263, "unlinkat"), (270, "pselect6"), (271, "ppoll"),
    (273, "set_robust_list"), (288, "accept4"), (292, "dup3"), (293, "pipe2"), (302, "prlimit64"),
    (318, "getrandom"), (322, "execveat"), (326, "copy_file_range"), (332, "statx"), (334, "rseq"),
    (435, "clone3"), (436, "close_range"), (439, "faccessat2"),
];

/// The name of a system-call number, if it is in [`NAMES`].
pub fn name(number: u16) -> Option<&'static str> {
    NAMES.binary_search_by_key(&number, |&(n, _)| n).ok().map(|i| NAMES[i].1)
}

/// The name, or `syscall_N` for a number without one.
pub fn display_name(number: u16) -> Cow<'static, str> {
    match name(number) {
        Some(n) => Cow::Borrowed(n),
        None => Cow::Owned(format!("syscall_{number}")),
    }
}

/// The number of a system call by name (`read`, or `syscall_N`).
pub fn number(name: &str) -> Option<u16> {
    if let Some(n) = name.strip_prefix("syscall_") {
        return n.parse().ok();
    }
    NAMES.iter().find(|&&(_, s)| s == name).map(|&(n, _)| n)
}

/// One whole system call, reassembled from its events.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Call {
    pub number: u16,
    pub asid: Asid,
    /// The value on success, `-errno` on failure.
    pub ret: i64,
    pub args: Vec<u64>,
}

impl Call {
    pub fn name(&self) -> Cow<'static, str> {
        display_name(self.number)
    }

    /// The events that carry this call: the head, then one per argument.
    pub fn events(&self) -> impl Iterator<Item = Event> + '_ {
        let head = Syscall { ret: self.ret, asid: self.asid, number: self.number, nargs: self.args.len() as u8 };
        std::iter::once(Event::Syscall(head)).chain(self.args.iter().map(|&a| Event::SyscallArg(a)))
    }

    /// Argument `i`, 0 when the call has fewer.
    pub fn arg(&self, i: usize) -> u64 {
        self.args.get(i).copied().unwrap_or(0)
    }
}

/// Reassembles calls from a stream of events, checking that every head is
/// followed by exactly its arguments and that no argument stands alone.
#[derive(Debug, Default)]
pub struct Assembler {
    open: Option<Call>,
    want: usize,
    /// Events seen so far; errors name the offending one (0-based).
    seen: u64,
}

impl Assembler {
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds one event. `Ok(Some(call))` when it completes a call.
    pub fn push(&mut self, e: &Event) -> Result<Option<Call>, String> {
        let at = self.seen;
        self.seen += 1;
        match *e {
            Event::SyscallArg(v) => match self.open.as_mut() {
                Some(call) => {
                    call.args.push(v);
                    if call.args.len() == self.want {
                        return Ok(self.open.take());
                    }
                    Ok(None)
                }
                None => Err(format!("event {at}: a system-call argument without its system call before it")),
            },
            _ if self.open.is_some() => Err(self.short(at)),
            Event::Syscall(h) => {
                if usize::from(h.nargs) > MAX_ARGS {
                    return Err(format!(
                        "event {at}: system call {} with {} arguments; at most {MAX_ARGS}",
                        display_name(h.number),
                        h.nargs
                    ));
                }
                let call = Call { number: h.number, asid: h.asid, ret: h.ret, args: Vec::with_capacity(MAX_ARGS) };
                if h.nargs == 0 {
                    return Ok(Some(call));
                }
                self.want = usize::from(h.nargs);
                self.open = Some(call);
                Ok(None)
            }
            _ => Ok(None),
        }
    }

    /// Checks that the stream did not end inside a call.
    pub fn finish(&self) -> Result<(), String> {
        match self.open {
            Some(_) => Err(self.short(self.seen)),
            None => Ok(()),
        }
    }

    fn short(&self, at: u64) -> String {
        let call = self.open.as_ref().map(|c| (c.name(), c.args.len())).unwrap_or_default();
        format!("event {at}: system call {} announced {} arguments, only {} followed", call.0, self.want, call.1)
    }
}

/// Checks a whole sequence (writers call it so that vmlab never writes a
/// trace its consumers refuse).
pub fn check(events: &[Event]) -> Result<(), String> {
    let mut a = Assembler::new();
    for e in events {
        a.push(e)?;
    }
    a.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_sorted_and_unique() {
        assert!(NAMES.windows(2).all(|w| w[0].0 < w[1].0), "binary search needs NAMES sorted by number");
        assert_eq!(name(0), Some("read"));
        assert_eq!(name(231), Some("exit_group"));
        assert_eq!(name(293), Some("pipe2"));
        assert_eq!(name(999), None);
        assert_eq!(display_name(999), "syscall_999");
        assert_eq!(number("wait4"), Some(61));
        assert_eq!(number("syscall_999"), Some(999));
        assert_eq!(number("nope"), None);
    }

    fn head(number: u16, nargs: u8) -> Event {
        Event::Syscall(Syscall { ret: -2, asid: Asid(3), number, nargs })
    }

    #[test]
    fn assembles_and_names_bad_sequences() {
        let mut a = Assembler::new();
        assert_eq!(a.push(&Event::FlushAll), Ok(None));
        assert_eq!(a.push(&head(0, 2)), Ok(None));
        assert_eq!(a.push(&Event::SyscallArg(4)), Ok(None));
        let call = a.push(&Event::SyscallArg(0x1000)).expect("ok").expect("complete");
        assert_eq!(call, Call { number: 0, asid: Asid(3), ret: -2, args: vec![4, 0x1000] });
        assert_eq!(call.events().collect::<Vec<_>>(), [head(0, 2), Event::SyscallArg(4), Event::SyscallArg(0x1000)]);
        assert_eq!(a.push(&head(39, 0)).expect("ok").map(|c| c.name()), Some("getpid".into()));
        assert_eq!(
            check(&[Event::SyscallArg(1)]),
            Err("event 0: a system-call argument without its system call before it".into())
        );
        assert_eq!(
            check(&[head(1, 3), Event::SyscallArg(1), Event::FlushAll]),
            Err("event 2: system call write announced 3 arguments, only 1 followed".into())
        );
        assert_eq!(
            check(&[head(1, 3)]),
            Err("event 1: system call write announced 3 arguments, only 0 followed".into())
        );
        assert_eq!(check(&[head(1, 7)]), Err("event 0: system call write with 7 arguments; at most 6".into()));
    }
}
