//! Multi-process traces from `valgrind --trace-children=yes
//! --trace-syscalls=yes --log-file=DIR/log.%p.%n`: every process image its
//! own log, merged into one trace in which processes hand over where they
//! really block.
//!
//! **Processes and images.** valgrind opens a log per process image: a
//! forked child's (its log starts with its own return from the fork, a bare
//! ` --> [pre-success] Success(0x0)`) and one per successful `execve` (the
//! image before ends with the `execve` call and no result). Images of one
//! pid are chained: the fork image first, then the exec image. Each process
//! (pid) gets its own asid, 1 for the command itself and then 2, 3, ... in
//! the order the merge meets the `fork`/`clone` that creates it; an `exec`
//! keeps the asid (the `execve` marker says the address space was
//! replaced). Real pids change from run to run, so in the markers they are
//! replaced by asids: the result of `fork`/`vfork`/`clone` (a new process),
//! `wait4` (its result and a positive first argument), `getpid`, `getppid`
//! (0 for the command, whose parent is not traced),
//! `gettid` and `set_tid_address` of a main thread. System V shared-memory
//! ids (the result of `shmget`, the first argument of `shmat` and `shmctl`)
//! are global counters of the kernel and change too: they become 1, 2, ...
//! in the order `shmget` returned them. Threads (`clone` with
//! `CLONE_THREAD`) share their process's log and asid.
//!
//! **The merge rule.** One process runs at a time, its events in its own
//! order. It runs until a system call that the model says cannot complete
//! yet; then the next process (in asid order after it) that can run runs,
//! announced by a `ContextSwitch`, and the blocked call's marker comes when
//! its process runs again. A call blocks when:
//!
//! * `read`, `readv`, `recvfrom`, `recvmsg` on a pipe or socket end returned
//!   n > 0 bytes but fewer than n have been written into it and not yet read
//!   (returned 0, end of file: while a writer is still open);
//! * `write`, `writev`, `sendto`, `sendmsg` of n bytes on a pipe or socket
//!   end would fill it past 65,536 bytes (Linux's default pipe size) while it
//!   holds data;
//! * `wait4` returned a child's pid and that child has not exited; or it
//!   returned `-EINTR` (a signal, `SIGCHLD` under a shell, interrupted it:
//!   valgrind prints no result, see `lackey.rs`) and no more of the
//!   process's children have exited than such interrupted waits before it
//!   took.
//!
//! Pipes are modelled by bytes written and read per pipe (a socket pair is
//! two pipes, one per direction), with the descriptors of each process:
//! `pipe`, `pipe2` and `socketpair` write their descriptors into the
//! program's memory, not into their result, so they are taken as the two
//! lowest free descriptors (POSIX allocates the lowest); `open`, `openat`,
//! `socket`, `accept`, `dup`, `fcntl(F_DUPFD)` record their result; `dup2`,
//! `dup3`, `close`, `fork` (a copy of the table) and `execve` (close-on-exec
//! descriptors closed) follow. A process starts with descriptors 0-3 open
//! (3 is valgrind's log, left open in the program, see `capture.rs`).
//!
//! **FIFOs.** A named pipe is a pipe like the others once open: `mknod` or
//! `mknodat` of a FIFO (`S_IFIFO`) names a new pipe by the address of its
//! path argument, in the process that made it and the children it forks
//! afterwards (the path string is not in the trace, only its address, and a
//! fork copies the memory that holds it); an `open`/`openat` of a path at
//! that address opens the pipe, for reading (`O_RDONLY`), writing
//! (`O_WRONLY`) or both (`O_RDWR`), and its reads and writes block as a
//! pipe's. An `execve` forgets the names (a new image, new memory). A FIFO
//! made by another program, or opened through a path at another address,
//! is not seen (its reads never block, below). The open itself never
//! blocks (an `O_RDONLY` open waiting for a writer is not modelled).
//!
//! Fallback rules, each counted in [`MergeSummary`]: any other call never
//! blocks (`select`, `poll`, `futex`, `nanosleep`, an `fcntl` lock, an open
//! waiting for a FIFO's other end, a read of a descriptor the model does
//! not know as a pipe); a result from the fd
//! model that disagrees with the kernel's (an `open` returning another
//! descriptor than the lowest free) is counted as `fd_mismatches` and the
//! kernel's wins; and when every process that has not ended is blocked (the
//! model missed a write), the blocked call of the lowest asid completes
//! anyway (`forced`).
//!
//! Limit (valgrind 3.19): `%n` restarts at 1 in every exec'd image, so an
//! image that execs from a log numbered 1 (the command itself, or a second
//! exec in one process) is overwritten by its successor. The merge checks
//! the command's own log against the command line and refuses such a
//! capture by name.

use std::collections::{BTreeMap, VecDeque};
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use serde::Serialize;
use vmlab_addr::Asid;

use crate::syscall::{Assembler, Call};
use crate::{Event, EventSource, LackeyReader, Location, TraceError, BLOCK};

const EINTR: i64 = 4;

/// Linux's default pipe capacity (`pipe(7)`).
pub const PIPE_CAPACITY: u64 = 65536;

const CLONE_THREAD: u64 = 0x10000;
const O_CLOEXEC: u64 = 0o2000000;
const F_DUPFD: u64 = 0;
const F_SETFD: u64 = 2;
const F_DUPFD_CLOEXEC: u64 = 1030;
const FD_CLOEXEC: u64 = 1;
/// close_range's flag: mark the range close-on-exec instead of closing it.
const CLOSE_RANGE_CLOEXEC: u64 = 4;
const S_IFMT: u64 = 0o170000;
const S_IFIFO: u64 = 0o010000;
const O_ACCMODE: u64 = 3;
const O_WRONLY: u64 = 1;
const O_RDWR: u64 = 2;

mod nr {
    pub const READ: u16 = 0;
    pub const WRITE: u16 = 1;
    pub const OPEN: u16 = 2;
    pub const CLOSE: u16 = 3;
    pub const READV: u16 = 19;
    pub const WRITEV: u16 = 20;
    pub const PIPE: u16 = 22;
    pub const DUP: u16 = 32;
    pub const DUP2: u16 = 33;
    pub const GETPID: u16 = 39;
    pub const SOCKET: u16 = 41;
    pub const ACCEPT: u16 = 43;
    pub const SENDTO: u16 = 44;
    pub const RECVFROM: u16 = 45;
    pub const SENDMSG: u16 = 46;
    pub const RECVMSG: u16 = 47;
    pub const SOCKETPAIR: u16 = 53;
    pub const SHMGET: u16 = 29;
    pub const SHMAT: u16 = 30;
    pub const SHMCTL: u16 = 31;
    pub const CLONE: u16 = 56;
    pub const FORK: u16 = 57;
    pub const VFORK: u16 = 58;
    pub const EXECVE: u16 = 59;
    pub const WAIT4: u16 = 61;
    pub const FCNTL: u16 = 72;
    pub const MKNOD: u16 = 133;
    pub const MKNODAT: u16 = 259;
    pub const GETPPID: u16 = 110;
    pub const GETTID: u16 = 186;
    pub const SET_TID_ADDRESS: u16 = 218;
    pub const OPENAT: u16 = 257;
    pub const ACCEPT4: u16 = 288;
    pub const DUP3: u16 = 292;
    pub const PIPE2: u16 = 293;
    pub const EXECVEAT: u16 = 322;
    pub const CLOSE_RANGE: u16 = 436;
}

/// The host ids in a one-process capture's markers (`--syscalls` without
/// `--children`), replaced as the merge replaces them, so that two captures
/// of the same run are the same trace: the process's own pid (the result of
/// `getpid`, of `gettid` and `set_tid_address` in its main thread) becomes
/// its asid; `getppid` gives 0 (the parent, the capturing process, is not
/// traced); a child's pid (the result of `fork`, `vfork`, a `clone` that
/// makes a process, and the pid `wait4` takes or returns) becomes asid + 1,
/// asid + 2, ... in the order the forks return, as `--children` numbers
/// them. A thread's id (a `clone` with `CLONE_THREAD`) stays as it is, as in
/// the merge.
#[derive(Debug)]
pub(crate) struct HostIds {
    pid: u32,
    asid: Asid,
    children: Vec<i64>,
    /// A call whose arguments have not all arrived (they come with the next
    /// events).
    held: Vec<Event>,
}

impl HostIds {
    /// For the process valgrind runs as `pid`, traced as `asid`.
    pub(crate) fn new(pid: u32, asid: Asid) -> Self {
        Self { pid, asid, children: Vec::new(), held: Vec::new() }
    }

    /// Rewrites the markers of `events`, the next events of the trace, in
    /// place. A call at the end whose arguments are not all there is held
    /// back and comes first with the next events.
    pub(crate) fn rewrite(&mut self, events: &mut Vec<Event>) {
        if !self.held.is_empty() {
            let mut all = std::mem::take(&mut self.held);
            all.append(events);
            *events = all;
        }
        let mut i = 0;
        while i < events.len() {
            let Event::Syscall(head) = events[i] else {
                i += 1;
                continue;
            };
            let n = usize::from(head.nargs);
            if i + n >= events.len() {
                self.held = events.split_off(i);
                return;
            }
            let arg0 = match events.get(i + 1) {
                Some(Event::SyscallArg(a)) if n > 0 => Some(*a),
                _ => None,
            };
            let (ret, arg0) = self.renumber(head.number, head.ret, arg0);
            if let Event::Syscall(h) = &mut events[i] {
                h.ret = ret;
            }
            if let (Some(a), Some(Event::SyscallArg(slot))) = (arg0, events.get_mut(i + 1)) {
                *slot = a;
            }
            i += 1 + n;
        }
    }

    /// What is still held back once the trace has ended (nothing, unless its
    /// last call lost its arguments).
    pub(crate) fn finish(&mut self) -> Vec<Event> {
        std::mem::take(&mut self.held)
    }

    /// The result and first argument of call `number` with host ids replaced.
    fn renumber(&mut self, number: u16, ret: i64, arg0: Option<u64>) -> (i64, Option<u64>) {
        let child = |ids: &Self, pid: i64| {
            ids.children.iter().position(|&c| c == pid).map(|k| i64::from(ids.asid.0) + 1 + k as i64)
        };
        match number {
            nr::GETPID | nr::GETTID | nr::SET_TID_ADDRESS if ret == i64::from(self.pid) => {
                (i64::from(self.asid.0), arg0)
            }
            nr::GETPPID => (0, arg0),
            nr::CLONE | nr::FORK | nr::VFORK
                if ret > 0 && !(number == nr::CLONE && arg0.is_some_and(|f| f & CLONE_THREAD != 0)) =>
            {
                if child(self, ret).is_none() {
                    self.children.push(ret);
                }
                (child(self, ret).unwrap_or(ret), arg0)
            }
            nr::WAIT4 => {
                let ret = if ret > 0 { child(self, ret).unwrap_or(ret) } else { ret };
                let arg0 = arg0.map(|p| match p as i64 {
                    pid if pid > 0 => child(self, pid).map_or(p, |a| a as u64),
                    _ => p,
                });
                (ret, arg0)
            }
            _ => (ret, arg0),
        }
    }
}

/// One valgrind log: one image of one process.
#[derive(Clone, Debug)]
struct Image {
    path: PathBuf,
    /// Starts with the process's own return from the fork that made it.
    forked: bool,
    /// The `Command:` valgrind printed for it.
    command: String,
}

/// What a descriptor refers to, as far as the model knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Object {
    Other,
    /// Reads `pipes[.0]`, or writes it (`.1`).
    Read(usize),
    Write(usize),
    /// A socket end: reads one pipe, writes the other (the same one for a
    /// FIFO open for reading and writing).
    Socket {
        reads: usize,
        writes: usize,
    },
}

#[derive(Clone, Copy, Debug)]
struct Fd {
    obj: Object,
    cloexec: bool,
}

#[derive(Clone, Copy, Debug, Default)]
struct Pipe {
    /// Written and not yet read.
    held: u64,
    /// Open descriptors, in all processes, that write it.
    writers: u64,
}

/// One process: its images still to run, its reader, its descriptors.
struct Process {
    pid: u32,
    asid: Asid,
    parent: Option<Asid>,
    images: VecDeque<Image>,
    reader: Option<LackeyReader<BufReader<File>>>,
    name: PathBuf,
    buf: Vec<Event>,
    pos: usize,
    fds: BTreeMap<u64, Fd>,
    /// FIFOs this process made or inherited: path address -> pipe.
    fifos: BTreeMap<u64, usize>,
    /// A call that could not complete yet, and its events.
    blocked: Option<Call>,
    /// Children's exits already taken by a `wait4` that a signal
    /// interrupted (see `can_complete`).
    exits_taken: usize,
    calls: Assembler,
    exited: bool,
}

/// What [`merge_logs`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct MergeSummary {
    pub events: u64,
    /// Processes, by asid (1 is the command).
    pub processes: Vec<ProcessSummary>,
    /// Hand-overs (each a `ContextSwitch`), the first one included.
    pub switches: u64,
    /// Calls that blocked and completed later.
    pub blocked_calls: u64,
    /// Calls completed although the model said they must wait: every live
    /// process was blocked (the fallback rule).
    pub forced: u64,
    /// Descriptors the kernel returned that the model did not predict.
    pub fd_mismatches: u64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ProcessSummary {
    pub asid: Asid,
    pub parent: Option<Asid>,
    /// The command of each image, in order.
    pub images: Vec<String>,
    pub events: u64,
    pub syscalls: u64,
}

fn err(path: &Path, location: Location, message: impl Into<String>) -> TraceError {
    TraceError::new(path, location, message)
}

/// The pid in a log's name `log.PID.N`.
fn pid_of(path: &Path) -> Option<(u32, u32)> {
    let name = path.file_name()?.to_str()?;
    let mut parts = name.strip_prefix("log.")?.split('.');
    let pid = parts.next()?.parse().ok()?;
    let n = parts.next()?.parse().ok()?;
    Some((pid, n))
}

/// Reads a log's head: its `Command:` and whether it starts with a fork's return.
fn image(path: &Path) -> Result<Image, TraceError> {
    let f = File::open(path).map_err(|e| err(path, Location::File, format!("cannot open: {e}")))?;
    let mut command = String::new();
    let mut forked = false;
    for (i, line) in BufReader::new(f).lines().enumerate() {
        let line = line.map_err(|e| err(path, Location::File, format!("read error: {e}")))?;
        if let Some(c) = line.split_once("== Command: ") {
            command = c.1.to_string();
        } else if line.starts_with("==") {
            continue;
        } else {
            forked = line.trim_start().starts_with("-->");
            break;
        }
        if i > 64 {
            break;
        }
    }
    Ok(Image { path: path.to_path_buf(), forked, command })
}

/// The first word of valgrind's `Command:` (it escapes blanks with `\`).
fn first_word(command: &str) -> String {
    let mut out = String::new();
    let mut chars = command.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.extend(chars.next()),
            ' ' => break,
            c => out.push(c),
        }
    }
    out
}

/// Merges the logs of `dir` (one per image, `log.PID.N`) into `out` (as
/// events handed to `sink`). `root` is the command's pid, `argv0` its
/// program as given (checked against the command's log).
pub fn merge_logs(
    dir: &Path,
    root: u32,
    argv0: &str,
    sink: &mut dyn FnMut(&[Event]) -> Result<(), TraceError>,
) -> Result<MergeSummary, TraceError> {
    let mut by_pid: BTreeMap<u32, Vec<(u32, Image)>> = BTreeMap::new();
    let entries = std::fs::read_dir(dir).map_err(|e| err(dir, Location::File, format!("cannot list: {e}")))?;
    for entry in entries {
        let path = entry.map_err(|e| err(dir, Location::File, format!("cannot list: {e}")))?.path();
        let Some((pid, n)) = pid_of(&path) else { continue };
        by_pid.entry(pid).or_default().push((n, image(&path)?));
    }
    let mut ordered: BTreeMap<u32, VecDeque<Image>> = BTreeMap::new();
    for (pid, mut images) in by_pid {
        // The fork image first; of the rest (at most one survives, see the
        // module's limit) the higher number was opened first.
        images.sort_by_key(|(n, im)| (!im.forked, std::cmp::Reverse(*n)));
        if images.len() > 2 || images.iter().skip(1).any(|(_, im)| im.forked) {
            return Err(err(
                dir,
                Location::File,
                format!("process {pid} has {} logs that do not chain as fork, then exec", images.len()),
            ));
        }
        ordered.insert(pid, images.into_iter().map(|(_, im)| im).collect());
    }
    let Some(first) = ordered.get(&root).and_then(|q| q.front()) else {
        return Err(err(dir, Location::File, format!("no log of the command's process {root}")));
    };
    if first_word(&first.command) != argv0 {
        return Err(err(
            &first.path,
            Location::File,
            format!(
                "the command's log is that of `{}`, not `{argv0}`: the command exec'd another program, and \
                 valgrind 3.19 reopens the log of an exec'd image under the same name (%n restarts at 1), \
                 so what ran before the exec is lost; capture the program it runs instead",
                first_word(&first.command)
            ),
        ));
    }
    let mut m = Merge {
        ordered,
        procs: Vec::new(),
        pipes: Vec::new(),
        summary: MergeSummary::default(),
        out: Vec::with_capacity(BLOCK),
        current: None,
        shmids: Vec::new(),
    };
    m.spawn(root, None)?;
    m.run(sink)?;
    if let Some((pid, images)) = m.ordered.iter().next() {
        let path = images.front().map_or_else(|| dir.to_path_buf(), |im| im.path.clone());
        return Err(err(
            &path,
            Location::File,
            format!("process {pid} was never reached: no fork or clone of the merged processes returned its pid"),
        ));
    }
    Ok(m.summary)
}

struct Merge {
    ordered: BTreeMap<u32, VecDeque<Image>>,
    procs: Vec<Process>,
    pipes: Vec<Pipe>,
    summary: MergeSummary,
    out: Vec<Event>,
    current: Option<usize>,
    /// System V shared-memory ids in the order `shmget` returned them: the
    /// markers carry 1, 2, ... instead (the kernel's ids change from run to
    /// run, as pids do).
    shmids: Vec<i64>,
}

impl Merge {
    /// A new process for `pid`, with a copy of its parent's descriptors.
    fn spawn(&mut self, pid: u32, parent: Option<usize>) -> Result<usize, TraceError> {
        let images = self.ordered.remove(&pid).unwrap_or_default();
        let asid = Asid(self.procs.len() as u32 + 1);
        let fifos = parent.map(|p| self.procs[p].fifos.clone()).unwrap_or_default();
        let fds = match parent {
            Some(p) => {
                let fds = self.procs[p].fds.clone();
                for fd in fds.values() {
                    self.opened(fd.obj);
                }
                fds
            }
            None => (0..4).map(|fd| (fd, Fd { obj: Object::Other, cloexec: false })).collect(),
        };
        self.summary.processes.push(ProcessSummary {
            asid,
            parent: parent.map(|p| self.procs[p].asid),
            images: images.iter().map(|im| im.command.clone()).collect(),
            events: 0,
            syscalls: 0,
        });
        self.procs.push(Process {
            pid,
            asid,
            parent: parent.map(|p| self.procs[p].asid),
            images,
            reader: None,
            name: PathBuf::new(),
            buf: Vec::new(),
            pos: 0,
            fds,
            fifos,
            blocked: None,
            exits_taken: 0,
            calls: Assembler::new(),
            exited: false,
        });
        Ok(self.procs.len() - 1)
    }

    fn opened(&mut self, obj: Object) {
        match obj {
            Object::Write(p) | Object::Socket { writes: p, .. } => self.pipes[p].writers += 1,
            Object::Read(_) | Object::Other => {}
        }
    }

    fn closed(&mut self, obj: Object) {
        match obj {
            Object::Write(p) | Object::Socket { writes: p, .. } => {
                self.pipes[p].writers = self.pipes[p].writers.saturating_sub(1)
            }
            Object::Read(_) | Object::Other => {}
        }
    }

    /// The next event of process `i`, across its images; `None` at its end.
    fn next_event(&mut self, i: usize) -> Result<Option<Event>, TraceError> {
        let p = &mut self.procs[i];
        loop {
            if let Some(&e) = p.buf.get(p.pos) {
                p.pos += 1;
                return Ok(Some(e));
            }
            if let Some(r) = p.reader.as_mut() {
                if r.fill(&mut p.buf)? {
                    p.pos = 0;
                    continue;
                }
                p.calls.finish().map_err(|m| err(&p.name, Location::File, m))?;
                p.reader = None;
            }
            let Some(im) = p.images.pop_front() else { return Ok(None) };
            let f = File::open(&im.path).map_err(|e| err(&im.path, Location::File, format!("cannot open: {e}")))?;
            p.reader = Some(LackeyReader::new(BufReader::with_capacity(1 << 20, f), &im.path).with_asid(p.asid));
            p.name = im.path;
        }
    }

    /// Process `i`'s next whole call, with the references before it
    /// appended to `out`; `None` when the process has ended.
    fn advance(&mut self, i: usize) -> Result<Option<Call>, TraceError> {
        while let Some(e) = self.next_event(i)? {
            let p = &mut self.procs[i];
            if let Event::Access(_) = e {
                self.out.push(e);
                self.summary.processes[i].events += 1;
                continue;
            }
            match p.calls.push(&e).map_err(|m| err(&p.name, Location::File, m))? {
                Some(call) => return Ok(Some(call)),
                None => continue,
            }
        }
        Ok(None)
    }

    fn lowest_free(&self, i: usize, after: u64) -> u64 {
        let fds = &self.procs[i].fds;
        (after..).find(|fd| !fds.contains_key(fd)).unwrap_or(after)
    }

    fn pipe_of(&self, i: usize, fd: u64, reading: bool) -> Option<usize> {
        match (self.procs[i].fds.get(&fd)?.obj, reading) {
            (Object::Read(p), true) | (Object::Write(p), false) => Some(p),
            (Object::Socket { reads, .. }, true) => Some(reads),
            (Object::Socket { writes, .. }, false) => Some(writes),
            _ => None,
        }
    }

    fn children_exited(&self, i: usize) -> usize {
        let me = Some(self.procs[i].asid);
        self.procs.iter().filter(|p| p.parent == me && p.exited).count()
    }

    fn asid_of_pid(&self, pid: u64) -> Option<usize> {
        self.procs.iter().position(|p| u64::from(p.pid) == pid)
    }

    /// Can process `i`'s call complete now?
    fn can_complete(&self, i: usize, c: &Call) -> bool {
        match c.number {
            nr::READ | nr::READV | nr::RECVFROM | nr::RECVMSG => match self.pipe_of(i, c.arg(0), true) {
                Some(p) if c.ret > 0 => self.pipes[p].held >= c.ret as u64,
                Some(p) if c.ret == 0 => self.pipes[p].writers == 0,
                _ => true,
            },
            nr::WRITE | nr::WRITEV | nr::SENDTO | nr::SENDMSG => match self.pipe_of(i, c.arg(0), false) {
                Some(p) if c.ret > 0 => {
                    let held = self.pipes[p].held;
                    held == 0 || held + c.ret as u64 <= PIPE_CAPACITY
                }
                _ => true,
            },
            nr::WAIT4 if c.ret > 0 => match self.asid_of_pid(c.ret as u64) {
                Some(child) => self.procs[child].exited,
                None => true,
            },
            // Interrupted by a signal (SIGCHLD, a shell's handler reaping
            // the child): it waited for one more child to end.
            nr::WAIT4 if c.ret == -EINTR => self.children_exited(i) > self.procs[i].exits_taken,
            _ => true,
        }
    }

    /// Applies a completed call to the model and appends its events (pids
    /// rewritten to asids).
    fn complete(&mut self, i: usize, mut c: Call) -> Result<(), TraceError> {
        let ok = c.ret >= 0;
        let asid_pid = |m: &Merge, pid: i64| m.asid_of_pid(pid as u64).map(|k| i64::from(m.procs[k].asid.0));
        match c.number {
            nr::READ | nr::READV | nr::RECVFROM | nr::RECVMSG if c.ret > 0 => {
                if let Some(p) = self.pipe_of(i, c.arg(0), true) {
                    self.pipes[p].held = self.pipes[p].held.saturating_sub(c.ret as u64);
                }
            }
            nr::WRITE | nr::WRITEV | nr::SENDTO | nr::SENDMSG if c.ret > 0 => {
                if let Some(p) = self.pipe_of(i, c.arg(0), false) {
                    self.pipes[p].held += c.ret as u64;
                }
            }
            nr::PIPE | nr::PIPE2 | nr::SOCKETPAIR if ok => {
                let flags =
                    if c.number == nr::SOCKETPAIR { c.arg(1) } else { c.arg(1) * u64::from(c.number == nr::PIPE2) };
                let cloexec = flags & O_CLOEXEC != 0;
                let a = self.lowest_free(i, 0);
                self.procs[i].fds.insert(a, Fd { obj: Object::Other, cloexec });
                let b = self.lowest_free(i, 0);
                let first = self.pipes.len();
                if c.number == nr::SOCKETPAIR {
                    self.pipes.push(Pipe { held: 0, writers: 1 });
                    self.pipes.push(Pipe { held: 0, writers: 1 });
                    let fds = &mut self.procs[i].fds;
                    fds.insert(a, Fd { obj: Object::Socket { reads: first + 1, writes: first }, cloexec });
                    fds.insert(b, Fd { obj: Object::Socket { reads: first, writes: first + 1 }, cloexec });
                } else {
                    self.pipes.push(Pipe { held: 0, writers: 1 });
                    let fds = &mut self.procs[i].fds;
                    fds.insert(a, Fd { obj: Object::Read(first), cloexec });
                    fds.insert(b, Fd { obj: Object::Write(first), cloexec });
                }
            }
            nr::MKNOD | nr::MKNODAT if ok => {
                let (path, mode) = if c.number == nr::MKNOD { (c.arg(0), c.arg(1)) } else { (c.arg(1), c.arg(2)) };
                if mode & S_IFMT == S_IFIFO {
                    self.pipes.push(Pipe::default());
                    self.procs[i].fifos.insert(path, self.pipes.len() - 1);
                }
            }
            nr::OPEN | nr::OPENAT | nr::SOCKET | nr::ACCEPT | nr::ACCEPT4 | nr::DUP if ok => {
                let fd = c.ret as u64;
                if fd != self.lowest_free(i, 0) {
                    self.summary.fd_mismatches += 1;
                }
                let obj = match c.number {
                    nr::DUP => self.procs[i].fds.get(&c.arg(0)).map_or(Object::Other, |f| f.obj),
                    nr::OPEN | nr::OPENAT => {
                        let (path, flags) =
                            if c.number == nr::OPEN { (c.arg(0), c.arg(1)) } else { (c.arg(1), c.arg(2)) };
                        match self.procs[i].fifos.get(&path) {
                            Some(&p) => match flags & O_ACCMODE {
                                O_WRONLY => Object::Write(p),
                                O_RDWR => Object::Socket { reads: p, writes: p },
                                _ => Object::Read(p),
                            },
                            None => Object::Other,
                        }
                    }
                    _ => Object::Other,
                };
                let flags = match c.number {
                    nr::OPEN => c.arg(1),
                    nr::OPENAT => c.arg(2),
                    nr::SOCKET => c.arg(1),
                    nr::ACCEPT4 => c.arg(3),
                    _ => 0,
                };
                self.replace_fd(i, fd, Fd { obj, cloexec: flags & O_CLOEXEC != 0 });
            }
            nr::DUP2 | nr::DUP3 if ok => {
                let obj = self.procs[i].fds.get(&c.arg(0)).map_or(Object::Other, |f| f.obj);
                let cloexec = c.number == nr::DUP3 && c.arg(2) & O_CLOEXEC != 0;
                if c.arg(0) != c.arg(1) {
                    self.replace_fd(i, c.arg(1), Fd { obj, cloexec });
                }
            }
            nr::FCNTL if ok && (c.arg(1) == F_DUPFD || c.arg(1) == F_DUPFD_CLOEXEC) => {
                let obj = self.procs[i].fds.get(&c.arg(0)).map_or(Object::Other, |f| f.obj);
                let fd = c.ret as u64;
                if fd != self.lowest_free(i, c.arg(2)) {
                    self.summary.fd_mismatches += 1;
                }
                self.replace_fd(i, fd, Fd { obj, cloexec: c.arg(1) == F_DUPFD_CLOEXEC });
            }
            nr::FCNTL if ok && c.arg(1) == F_SETFD => {
                if let Some(f) = self.procs[i].fds.get_mut(&c.arg(0)) {
                    f.cloexec = c.arg(2) & FD_CLOEXEC != 0;
                }
            }
            nr::CLOSE if ok => {
                if let Some(f) = self.procs[i].fds.remove(&c.arg(0)) {
                    self.closed(f.obj);
                }
            }
            // close_range(first, last, flags): every descriptor in
            // [first, last] closed, or only marked close-on-exec
            nr::CLOSE_RANGE if ok && c.arg(0) <= c.arg(1) => {
                let fds: Vec<u64> = self.procs[i].fds.range(c.arg(0)..=c.arg(1)).map(|(&fd, _)| fd).collect();
                for fd in fds {
                    if c.arg(2) & CLOSE_RANGE_CLOEXEC != 0 {
                        if let Some(f) = self.procs[i].fds.get_mut(&fd) {
                            f.cloexec = true;
                        }
                    } else if let Some(f) = self.procs[i].fds.remove(&fd) {
                        self.closed(f.obj);
                    }
                }
            }
            nr::CLONE | nr::FORK | nr::VFORK
                if c.ret > 0 && !(c.number == nr::CLONE && c.arg(0) & CLONE_THREAD != 0) =>
            {
                let child = self.spawn(c.ret as u32, Some(i))?;
                c.ret = i64::from(self.procs[child].asid.0);
            }
            nr::EXECVE | nr::EXECVEAT if ok => {
                self.procs[i].fifos.clear();
                let gone: Vec<u64> = self.procs[i].fds.iter().filter(|(_, f)| f.cloexec).map(|(&fd, _)| fd).collect();
                for fd in gone {
                    if let Some(f) = self.procs[i].fds.remove(&fd) {
                        self.closed(f.obj);
                    }
                }
            }
            nr::WAIT4 => {
                if c.ret == -EINTR && self.children_exited(i) > self.procs[i].exits_taken {
                    self.procs[i].exits_taken += 1;
                }
                if c.ret > 0 {
                    c.ret = asid_pid(self, c.ret).unwrap_or(c.ret);
                }
                if let Some(&pid) = c.args.first() {
                    if (pid as i64) > 0 {
                        c.args[0] = asid_pid(self, pid as i64).map_or(pid, |a| a as u64);
                    }
                }
            }
            nr::GETPID | nr::GETTID | nr::SET_TID_ADDRESS if c.ret == i64::from(self.procs[i].pid) => {
                c.ret = i64::from(self.procs[i].asid.0);
            }
            // The command's parent is outside the trace (the capturing
            // process, a new pid each run): 0, as for a process whose
            // parent is not in its pid namespace.
            nr::GETPPID => c.ret = self.procs[i].parent.map_or(0, |parent| i64::from(parent.0)),
            nr::SHMGET if ok => {
                let at = match self.shmids.iter().position(|&id| id == c.ret) {
                    Some(at) => at,
                    None => {
                        self.shmids.push(c.ret);
                        self.shmids.len() - 1
                    }
                };
                c.ret = at as i64 + 1;
            }
            // an id no shmget of these processes returned stays as it is
            nr::SHMAT | nr::SHMCTL => {
                if let Some(at) = c.args.first().and_then(|&id| self.shmids.iter().position(|&s| s as u64 == id)) {
                    c.args[0] = at as u64 + 1;
                }
            }
            _ => {}
        }
        self.summary.processes[i].syscalls += 1;
        let asid = self.procs[i].asid;
        self.out.extend(Call { asid, ..c }.events());
        Ok(())
    }

    fn replace_fd(&mut self, i: usize, fd: u64, new: Fd) {
        if let Some(old) = self.procs[i].fds.insert(fd, new) {
            self.closed(old.obj);
        }
        self.opened(new.obj);
    }

    fn exit(&mut self, i: usize) {
        self.procs[i].exited = true;
        let fds = std::mem::take(&mut self.procs[i].fds);
        for f in fds.values() {
            self.closed(f.obj);
        }
    }

    /// Can process `i` run now (started or not, not ended, its call free)?
    fn runnable(&self, i: usize) -> bool {
        let p = &self.procs[i];
        !p.exited && p.blocked.as_ref().is_none_or(|c| self.can_complete(i, c))
    }

    fn switch_to(&mut self, i: usize) {
        if self.current != Some(i) {
            self.out.push(Event::ContextSwitch(self.procs[i].asid));
            self.summary.switches += 1;
            self.current = Some(i);
        }
    }

    fn flush(&mut self, sink: &mut dyn FnMut(&[Event]) -> Result<(), TraceError>) -> Result<(), TraceError> {
        if self.out.len() >= BLOCK {
            self.summary.events += self.out.len() as u64;
            sink(&self.out)?;
            self.out.clear();
        }
        Ok(())
    }

    fn run(&mut self, sink: &mut dyn FnMut(&[Event]) -> Result<(), TraceError>) -> Result<(), TraceError> {
        let mut i = 0;
        loop {
            self.switch_to(i);
            // Run `i` until it blocks or ends.
            if let Some(c) = self.procs[i].blocked.take() {
                self.complete(i, c)?;
            }
            loop {
                self.flush(sink)?;
                match self.advance(i)? {
                    None => {
                        self.exit(i);
                        break;
                    }
                    Some(c) if self.can_complete(i, &c) => self.complete(i, c)?,
                    Some(c) => {
                        self.summary.blocked_calls += 1;
                        self.procs[i].blocked = Some(c);
                        break;
                    }
                }
            }
            // The next that can run, in asid order after `i`.
            let n = self.procs.len();
            let next = (1..=n).map(|k| (i + k) % n).find(|&k| self.runnable(k));
            i = match next {
                Some(k) => k,
                None => match (0..n).find(|&k| !self.procs[k].exited) {
                    // Every live process is blocked: the model missed
                    // something; the lowest asid's call goes through.
                    Some(k) => {
                        self.summary.forced += 1;
                        if let Some(c) = self.procs[k].blocked.take() {
                            self.switch_to(k);
                            self.complete(k, c)?;
                        }
                        k
                    }
                    None => break,
                },
            };
        }
        self.summary.events += self.out.len() as u64;
        if !self.out.is_empty() {
            sink(&self.out)?;
            self.out.clear();
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_words() {
        assert_eq!(pid_of(Path::new("/x/log.4137.2")), Some((4137, 2)));
        assert_eq!(pid_of(Path::new("/x/lackey.fifo")), None);
        assert_eq!(first_word(r"sh -c /bin/true;\ echo"), "sh");
        assert_eq!(first_word(r"/tmp/a\ b/prog x"), "/tmp/a b/prog");
    }

    fn call(number: u16, ret: i64, args: &[u64]) -> Vec<Event> {
        let head = crate::Syscall { ret, asid: Asid(0), number, nargs: args.len() as u8 };
        std::iter::once(Event::Syscall(head)).chain(args.iter().map(|&a| Event::SyscallArg(a))).collect()
    }

    /// A one-process capture of pid 700 that forks 901 and 905, starts a
    /// thread 702, waits for 905, and asks its ids: host ids become the asid
    /// (0) and the children 1 and 2 in fork order; the thread's id and an
    /// unknown pid stay. The fork's arguments arrive with the next events:
    /// it is held back until they do.
    #[test]
    fn one_process_host_ids_are_replaced() {
        let mut ids = HostIds::new(700, Asid(0));
        let mut first = call(nr::SET_TID_ADDRESS, 700, &[0x4000]);
        first.extend(call(nr::GETPPID, 650, &[]));
        let fork = call(nr::CLONE, 901, &[0x1200011, 0]);
        first.extend_from_slice(&fork[..2]);
        ids.rewrite(&mut first);
        let mut want = call(nr::SET_TID_ADDRESS, 0, &[0x4000]);
        want.extend(call(nr::GETPPID, 0, &[]));
        assert_eq!(first, want);
        let mut second = fork[2..].to_vec();
        second.extend(call(nr::FORK, 905, &[]));
        second.extend(call(nr::CLONE, 702, &[0x3d0f00, 0]));
        second.extend(call(nr::WAIT4, 905, &[905, 0, 0, 0]));
        second.extend(call(nr::WAIT4, -10, &[u64::MAX, 0, 0, 0]));
        second.extend(call(nr::GETPID, 700, &[]));
        second.extend(call(nr::GETTID, 702, &[]));
        second.extend(call(nr::WAIT4, 999, &[999, 0, 0, 0]));
        ids.rewrite(&mut second);
        let mut want = call(nr::CLONE, 1, &[0x1200011, 0]);
        want.extend(call(nr::FORK, 2, &[]));
        want.extend(call(nr::CLONE, 702, &[0x3d0f00, 0]));
        want.extend(call(nr::WAIT4, 2, &[2, 0, 0, 0]));
        want.extend(call(nr::WAIT4, -10, &[u64::MAX, 0, 0, 0]));
        want.extend(call(nr::GETPID, 0, &[]));
        want.extend(call(nr::GETTID, 702, &[]));
        want.extend(call(nr::WAIT4, 999, &[999, 0, 0, 0]));
        assert_eq!(second, want);
        assert!(ids.finish().is_empty());
    }

    /// Hand-written logs of a parent that makes a segment, forks and
    /// attaches it, and a child that attaches it and one id of another
    /// program: the markers carry the segment as 1 wherever it appears.
    #[test]
    #[allow(clippy::panic)]
    fn system_v_ids_are_numbered_in_order_of_shmget() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let parent = "==500== Command: ./shm\n\
            SYSCALL[500,1](29) sys_shmget ( 0, 16384, 896 ) --> [pre-success] Success(0x8042) \n\
            SYSCALL[500,1](56) sys_clone ( 1200011, 0x0, 0x0, 0x4a28a10, 0x0 )   clone(fork): process 500 created child 501\n\
             --> [pre-success] Success(0x1f5) \n\
            SYSCALL[500,1](30) sys_shmat ( 32834, 0x0, 0 ) --> [pre-success] Success(0x4a40000) \n\
            SYSCALL[500,1](31) sys_shmctl ( 32834, 0, 0x0 ) --> [pre-success] Success(0x0) \n";
        let child = "==501== Command: ./shm\n\
             --> [pre-success] Success(0x0) \n\
            SYSCALL[501,1](30) sys_shmat ( 32834, 0x0, 0 ) --> [pre-success] Success(0x4a50000) \n\
            SYSCALL[501,1](30) sys_shmat ( 7, 0x0, 0 ) --> [pre-success] Failure(0x16) \n";
        for (name, text) in [("log.500.1", parent), ("log.501.1", child)] {
            std::fs::write(dir.path().join(name), text).unwrap_or_else(|e| panic!("{e}"));
        }
        let mut events = Vec::new();
        merge_logs(dir.path(), 500, "./shm", &mut |b| {
            events.extend_from_slice(b);
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{e}"));
        let mut asm = crate::syscall::Assembler::default();
        let mut calls = Vec::new();
        for e in &events {
            if let Some(c) = asm.push(e).unwrap_or_else(|e| panic!("{e}")) {
                calls.push((c.asid.0, c.number, c.ret, c.args.first().copied()));
            }
        }
        assert_eq!(
            calls,
            [
                (1, 29, 1, Some(0)),
                (1, 56, 2, Some(0x1200011)),
                (1, 30, 0x4a40000, Some(1)),
                (1, 31, 0, Some(1)),
                (2, 30, 0x4a50000, Some(1)),
                (2, 30, -22, Some(7))
            ]
        );
    }
}
