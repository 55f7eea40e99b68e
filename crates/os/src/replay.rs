//! A multi-process trace with system-call markers replayed through the OS
//! model (S2, issue 25): the calls that create, change and remove mappings
//! become the hat operations they stand for, and every data reference then
//! goes through the translation, the cache and the consistency policy.
//!
//! Model (also in `docs/os.md`, "Replaying system calls"):
//!
//! * a process is the set of trace ASIDs sharing one address space; an ASID
//!   met with no fork pending is a new process (its own space); a
//!   `fork`/`vfork`/`clone` without `CLONE_VM` forks the caller's space at
//!   the marker (copy-on-write for private pages, shared pages stay shared)
//!   and the child's ASID is bound at its first event: the pending fork
//!   whose returned pid equals the ASID, else the oldest pending one. A
//!   `clone` with `CLONE_VM` (and `clone3`, whose flags sit in memory the
//!   marker does not carry) is a thread: its ASID joins the caller's space;
//! * `mmap` maps exactly the range the kernel returned: anonymous shared
//!   memory is one object per call (shared with forked children), anonymous
//!   private memory one object per call, file mappings the file's object
//!   (shared: one frame per file page for every mapping; private:
//!   copy-on-write over those frames, the page cache of a shared library).
//!   A file is known by its open: `open`/`openat`/`creat` give an fd a new
//!   file, `dup*`/`fcntl(F_DUPFD)` and fork copy it, `close` drops it. A
//!   marker carries no path, so two opens are two files unless the capture
//!   appends an identity (an inode number or a path hash) as one extra
//!   argument after the call's own (`open` 4th, `openat` 5th, `creat` 3rd):
//!   opens with the same identity share one object;
//! * `munmap`, `mprotect`, `mremap`, `brk` (the heap as one anonymous
//!   mapping from the first break), `shmget`/`shmat`/`shmdt` (one shared
//!   object per segment), `execve` (the space emptied) and `exit_group` /
//!   the last `exit` of a space (emptied; its mappings are recorded first);
//!   failed calls (`ret` a negative errno) change nothing;
//! * memory no call mapped (the program text, data and stack the kernel
//!   set up at exec) is mapped on first touch as private anonymous pages;
//! * the model's user space ends at [`USER_LIMIT`] (the kernel window sits
//!   above). Higher trace addresses (an x86-64 stack) are folded to
//!   `va mod USER_LIMIT`, which keeps every cache index and page colour; a
//!   fold that would put two trace pages on one is refused, naming the event;
//! * a policy that refuses a mapping (`cache-aligned`: an alias in another
//!   cache class; `global-shared`: a shared object away from its global
//!   address) makes the replay place it as that OS would have: at the
//!   object's global address, else at the nearest page above that the
//!   policy accepts. References to the mapping are moved with it. A later
//!   mapping whose own place a moved one holds moves the same way.
//!
//! [`run_trace`] (`vmlab os-run`) is the same replay in [`Model::RegionPerAsid`]:
//! the markers are ignored, each trace ASID met for the first time gets an
//! address space (space ids 1, 2, ... in order of appearance; 0 is the
//! kernel's) holding one shared anonymous region over the whole user space,
//! so the first touch of a page is exactly one zero-fill fault and later
//! touches fault never.
//!
//! In both, loads are reads, stores writes, modifies one write (the load
//! half hits the same line); instruction fetches are counted and skipped,
//! because the OS model simulates the data side only (see `cpu.rs`); a
//! reference crossing a page is split at the boundary; `FlushAll` markers
//! write back and invalidate the data cache, uncounted.

use std::collections::BTreeMap;

use serde::Serialize;
use vmlab_addr::layout::USER_LIMIT;
use vmlab_addr::{Asid, VirtAddr};
use vmlab_machine::MachineConfig;
use vmlab_trace::syscall::{Assembler, Call};
use vmlab_trace::{AccessKind, Event, EventSource};

use crate::cost::{CostModel, Counters};
use crate::cpu::{DataRef, FlushedLines};
use crate::oracle::{Consistency, Violation};
use crate::policy::Policy;
use crate::prot::Prot;
use crate::vm::{FaultCounts, ObjectKind, Os, OsError, Region};

/// Violations kept in full in an outcome; the rest are only counted.
pub const KEPT_VIOLATIONS: usize = 100;

/// How the replay turns a trace's processes into address spaces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Model {
    /// The system-call markers make, change and remove the mappings (S2).
    Syscalls,
    /// The markers are ignored; each trace ASID is an address space with
    /// one shared anonymous region over the whole user space (`vmlab os-run`).
    RegionPerAsid,
}

/// The most pages a refused mapping is slid upward looking for a place the
/// policy accepts (a cache's alias span is at most 64 pages of the presets).
const MAX_SLIDE_PAGES: u64 = 4096;

// Linux x86-64 numbers and flags the replay acts on.
const SYS_OPEN: u16 = 2;
const SYS_CLOSE: u16 = 3;
const SYS_MMAP: u16 = 9;
const SYS_MPROTECT: u16 = 10;
const SYS_MUNMAP: u16 = 11;
const SYS_BRK: u16 = 12;
const SYS_MREMAP: u16 = 25;
const SYS_SHMGET: u16 = 29;
const SYS_SHMAT: u16 = 30;
const SYS_DUP: u16 = 32;
const SYS_DUP2: u16 = 33;
const SYS_CLONE: u16 = 56;
const SYS_FORK: u16 = 57;
const SYS_VFORK: u16 = 58;
const SYS_EXECVE: u16 = 59;
const SYS_EXIT: u16 = 60;
const SYS_SHMDT: u16 = 67;
const SYS_FCNTL: u16 = 72;
const SYS_CREAT: u16 = 85;
const SYS_EXIT_GROUP: u16 = 231;
const SYS_OPENAT: u16 = 257;
const SYS_DUP3: u16 = 292;
const SYS_EXECVEAT: u16 = 322;
const SYS_CLONE3: u16 = 435;
const MAP_SHARED: u64 = 0x01;
const MAP_SHARED_VALIDATE: u64 = 0x03;
const MAP_FIXED: u64 = 0x10;
const MAP_ANONYMOUS: u64 = 0x20;
const MAP_FIXED_NOREPLACE: u64 = 0x10_0000;
const PROT_READ: u64 = 1;
const PROT_WRITE: u64 = 2;
const PROT_EXEC: u64 = 4;
const CLONE_VM: u64 = 0x100;
const F_DUPFD: u64 = 0;
const F_DUPFD_CLOEXEC: u64 = 1030;
const SHM_RDONLY: u64 = 0o10000;

/// What a mapping maps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Backing {
    /// `mmap(MAP_ANONYMOUS)`, one object per call.
    Anonymous(u64),
    /// A file mapping; the file's number in order of first open.
    File(u64),
    /// The `brk` heap.
    Heap,
    /// A System V shared-memory segment, by shmid.
    SysV(u64),
}

/// One mapping of a process, in trace addresses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Mapping {
    pub start: VirtAddr,
    pub end: VirtAddr,
    pub prot: Prot,
    /// `MAP_SHARED` (else private, copy-on-write).
    pub shared: bool,
    pub backing: Backing,
    /// Byte offset into the backing object.
    pub offset: u64,
    /// Where the model put it (the folded address, or where the policy
    /// moved it).
    pub model_start: VirtAddr,
}

/// A mapping moves as one piece: its trace range, its model range and its
/// range of the backing object keep the same distances.
impl Mapping {
    /// Its length in bytes.
    pub fn bytes(&self) -> u64 {
        self.end.0 - self.start.0
    }
    /// Whether trace address `va` lies in it.
    pub fn contains(&self, va: VirtAddr) -> bool {
        self.start <= va && va < self.end
    }
    /// The model address of trace address `va` (within or at the end of it).
    pub fn model_of(&self, va: VirtAddr) -> VirtAddr {
        VirtAddr(self.model_start.0 + (va.0 - self.start.0))
    }
    /// The first model address past it.
    pub fn model_end(&self) -> VirtAddr {
        self.model_of(self.end)
    }
    /// The byte of the backing object that trace address `va` maps.
    pub fn offset_of(&self, va: VirtAddr) -> u64 {
        self.offset + (va.0 - self.start.0)
    }
    /// Trace range `[from, to)` of it, as a mapping of its own.
    fn part(&self, from: VirtAddr, to: VirtAddr) -> Mapping {
        Mapping { start: from, end: to, offset: self.offset_of(from), model_start: self.model_of(from), ..*self }
    }
}

/// A mapping a system call asks for, in trace addresses: `len` bytes at
/// `start` of `backing` from byte `offset`.
#[derive(Clone, Copy, Debug)]
struct NewMapping {
    start: u64,
    len: u64,
    prot: Prot,
    /// `MAP_SHARED` (else private, copy-on-write).
    shared: bool,
    backing: Backing,
    offset: u64,
}

impl NewMapping {
    /// This mapping, put by the model at `model_start`.
    fn placed(self, model_start: u64) -> Mapping {
        Mapping {
            start: VirtAddr(self.start),
            end: VirtAddr(self.start + self.len),
            prot: self.prot,
            shared: self.shared,
            backing: self.backing,
            offset: self.offset,
            model_start: VirtAddr(model_start),
        }
    }
}

/// Where a new mapping may go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Placement {
    /// At its address, replacing what was there (`MAP_FIXED`, `mremap`).
    Fixed,
    /// At its address, which must be free.
    Free,
}

/// A process as the replay saw it.
#[derive(Clone, Debug, Serialize)]
pub struct Process {
    /// Trace ASIDs of its threads, in order of binding.
    pub asids: Vec<Asid>,
    /// Its address space in the model.
    pub space: Asid,
    /// The space it was forked from.
    pub parent: Option<Asid>,
    /// Its mappings when it exited (or at the end of the trace), adjacent
    /// compatible ones merged as the kernel merges its areas.
    pub mappings: Vec<Mapping>,
    /// Pages mapped on first touch (no call mapped them).
    pub implicit_pages: u64,
    pub exited: bool,
}

#[derive(Clone, Debug, Serialize)]
pub struct ReplayOutcome {
    pub machine: String,
    pub policy: String,
    pub events: u64,
    pub accesses: u64,
    pub ifetches_skipped: u64,
    pub flushes: u64,
    pub context_switches: u64,
    /// Calls the replay acted on, by name (failed ones excluded).
    pub syscalls: BTreeMap<String, u64>,
    pub syscalls_failed: u64,
    /// Calls with no effect on mappings (read, write, ...).
    pub syscalls_ignored: u64,
    /// Mappings the policy made the replay move.
    pub relocated: u64,
    pub processes: Vec<Process>,
    pub counters: Counters,
    /// Counters per mechanism (they sum to `counters`).
    pub components: BTreeMap<String, Counters>,
    /// `counters` priced by the cost model.
    pub cycles: f64,
    pub flushed: FlushedLines,
    pub faults: FaultCounts,
    pub violation_count: u64,
    pub violations: Vec<Violation>,
    /// The trace event (0-based) of the access that found the first violation.
    pub first_violation_event: Option<u64>,
    pub oracle_checks: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum FileKey {
    Identity(u64),
    Open(u64),
}

#[derive(Clone, Debug)]
struct Proc {
    space: Asid,
    parent: Option<Asid>,
    asids: Vec<Asid>,
    maps: BTreeMap<u64, Mapping>,
    fds: BTreeMap<u64, FileKey>,
    /// (first break, current break), trace addresses.
    brk: Option<(u64, u64)>,
    implicit_object: usize,
    /// Folded page -> the trace page mapped there on first touch.
    implicit: BTreeMap<u64, u64>,
    implicit_pages: u64,
    exited: bool,
    recorded: Vec<Mapping>,
}

struct Pending {
    pid: i64,
    proc: usize,
}

struct Replay<'a> {
    os: Os,
    page: u64,
    policy: Policy,
    procs: Vec<Proc>,
    by_asid: BTreeMap<Asid, usize>,
    pending: Vec<Pending>,
    next_space: u32,
    files: BTreeMap<FileKey, (u64, usize)>,
    next_open: u64,
    anon: u64,
    images: u64,
    shm: BTreeMap<u64, (usize, u64)>,
    /// Under `global-shared`: object -> its global address.
    global: BTreeMap<usize, u64>,
    model: Model,
    /// Distinct pages touched whose address was folded below the user limit
    /// ([`Model::RegionPerAsid`]).
    folded_pages: u64,
    out: &'a mut ReplayOutcome,
}

fn fold(va: u64) -> u64 {
    va % USER_LIMIT.0
}

fn prot_of(bits: u64) -> Prot {
    Prot { read: bits & PROT_READ != 0, write: bits & PROT_WRITE != 0, exec: bits & PROT_EXEC != 0 }
}

/// Runs `src` through an OS on `machine` with `cost` and `policy`, acting
/// on its system-call markers; `oracle` turns the consistency oracle on.
/// Errors name the event.
pub fn replay_trace(
    src: &mut dyn EventSource,
    machine: &MachineConfig,
    cost: CostModel,
    policy: Policy,
    oracle: bool,
) -> Result<ReplayOutcome, String> {
    drive(src, machine, cost, policy, oracle, Model::Syscalls).map(|(out, _)| out)
}

/// The outcome of [`run_trace`].
#[derive(Clone, Debug, Serialize)]
pub struct TraceOutcome {
    pub machine: String,
    pub policy: String,
    pub events: u64,
    /// Data references simulated (after splitting at page boundaries).
    pub accesses: u64,
    pub ifetches_skipped: u64,
    pub flushes: u64,
    /// Trace ASID -> address space id, in order of appearance.
    pub spaces: BTreeMap<Asid, Asid>,
    /// Distinct pages touched whose address was folded below the user limit.
    pub folded_pages: u64,
    pub counters: Counters,
    pub faults: FaultCounts,
    pub violation_count: u64,
    /// The first [`KEPT_VIOLATIONS`] violations.
    pub violations: Vec<Violation>,
    pub oracle_checks: u64,
}

/// Runs `src`'s data references through an OS on `machine` with `cost`
/// and `policy` in [`Model::RegionPerAsid`]; `oracle` turns the
/// consistency oracle on. Errors name the event.
pub fn run_trace(
    src: &mut dyn EventSource,
    machine: &MachineConfig,
    cost: CostModel,
    policy: Policy,
    oracle: bool,
) -> Result<TraceOutcome, String> {
    let (out, folded_pages) = drive(src, machine, cost, policy, oracle, Model::RegionPerAsid)?;
    Ok(TraceOutcome {
        machine: out.machine,
        policy: out.policy,
        events: out.events,
        accesses: out.accesses,
        ifetches_skipped: out.ifetches_skipped,
        flushes: out.flushes,
        spaces: out.processes.iter().flat_map(|p| p.asids.iter().map(move |&a| (a, p.space))).collect(),
        folded_pages,
        counters: out.counters,
        faults: out.faults,
        violation_count: out.violation_count,
        violations: out.violations,
        oracle_checks: out.oracle_checks,
    })
}

/// The one replay: `src` through an OS under `model`; the outcome and the
/// pages folded below the user limit.
fn drive(
    src: &mut dyn EventSource,
    machine: &MachineConfig,
    cost: CostModel,
    policy: Policy,
    oracle: bool,
    model: Model,
) -> Result<(ReplayOutcome, u64), String> {
    let os = Os::new(machine, cost, policy, Consistency::when(oracle))?;
    let mut out = ReplayOutcome {
        machine: machine.name.clone(),
        policy: policy.name().to_string(),
        events: 0,
        accesses: 0,
        ifetches_skipped: 0,
        flushes: 0,
        context_switches: 0,
        syscalls: BTreeMap::new(),
        syscalls_failed: 0,
        syscalls_ignored: 0,
        relocated: 0,
        processes: Vec::new(),
        counters: Counters::default(),
        components: BTreeMap::new(),
        cycles: 0.0,
        flushed: FlushedLines::default(),
        faults: FaultCounts::default(),
        violation_count: 0,
        violations: Vec::new(),
        first_violation_event: None,
        oracle_checks: 0,
    };
    let page = os.page_bytes();
    let mut r = Replay {
        os,
        page,
        policy,
        procs: Vec::new(),
        by_asid: BTreeMap::new(),
        pending: Vec::new(),
        next_space: 1,
        files: BTreeMap::new(),
        next_open: 0,
        anon: 0,
        images: 0,
        shm: BTreeMap::new(),
        global: BTreeMap::new(),
        model,
        folded_pages: 0,
        out: &mut out,
    };
    let mut calls = Assembler::new();
    let mut buf = Vec::new();
    while src.fill(&mut buf).map_err(|e| format!("trace: {e}"))? {
        for ev in &buf {
            let n = r.out.events;
            r.out.events += 1;
            if model == Model::RegionPerAsid && matches!(ev, Event::Syscall(_) | Event::SyscallArg(_)) {
                continue;
            }
            let call = calls.push(ev).map_err(|e| format!("trace {e}"))?;
            match ev {
                Event::Access(a) if a.kind == AccessKind::Ifetch => r.out.ifetches_skipped += 1,
                Event::Access(a) => {
                    let p = r.proc_of(a.asid, n)?;
                    let op = if matches!(a.kind, AccessKind::Store | AccessKind::Modify) {
                        DataRef::Store
                    } else {
                        DataRef::Load
                    };
                    r.access(p, a.addr.0, u64::from(a.size.max(1)), op, n)?;
                }
                Event::ContextSwitch(_) => {
                    r.os.cpu().context_switch();
                    r.out.context_switches += 1;
                }
                Event::FlushAll => {
                    r.os.cpu().reset_cache();
                    r.out.flushes += 1;
                }
                Event::Syscall(_) | Event::SyscallArg(_) => {
                    if let Some(c) = call {
                        r.syscall(&c, n).map_err(|e| format!("trace event {n} ({}): {e}", c.name()))?;
                    }
                }
            }
        }
    }
    calls.finish().map_err(|e| format!("trace {e}"))?;
    for i in 0..r.procs.len() {
        if !r.procs[i].exited {
            r.procs[i].recorded = r.merged(i);
        }
    }
    let processes = r
        .procs
        .iter()
        .map(|p| Process {
            asids: p.asids.clone(),
            space: p.space,
            parent: p.parent,
            mappings: p.recorded.clone(),
            implicit_pages: p.implicit_pages,
            exited: p.exited,
        })
        .collect();
    let counters = r.os.counters();
    let cycles = r.os.cost().cycles(&counters);
    let components = r.os.components();
    let flushed = r.os.cpu().flushed_lines();
    let faults = r.os.faults();
    let violations = r.os.violations();
    let (violation_count, kept) = (violations.len() as u64, violations.iter().take(KEPT_VIOLATIONS).cloned().collect());
    let oracle_checks = r.os.cpu().oracle_checks();
    let folded_pages = r.folded_pages;
    out.processes = processes;
    out.counters = counters;
    out.cycles = cycles;
    out.components = components;
    out.flushed = flushed;
    out.faults = faults;
    out.violation_count = violation_count;
    out.violations = kept;
    out.oracle_checks = oracle_checks;
    Ok((out, folded_pages))
}

/// [`replay_trace`] over events in memory (a workload built by a study).
pub fn replay_events(
    events: &[Event],
    machine: &MachineConfig,
    cost: CostModel,
    policy: Policy,
    oracle: bool,
) -> Result<ReplayOutcome, String> {
    struct Once<'a>(Option<&'a [Event]>);
    impl EventSource for Once<'_> {
        fn fill(&mut self, buf: &mut Vec<Event>) -> Result<bool, vmlab_trace::TraceError> {
            buf.clear();
            match self.0.take() {
                Some(e) => {
                    buf.extend_from_slice(e);
                    Ok(!buf.is_empty())
                }
                None => Ok(false),
            }
        }
        fn progress(&self) -> (u64, Option<u64>) {
            (0, None)
        }
    }
    replay_trace(&mut Once(Some(events)), machine, cost, policy, oracle)
}

fn os_err(e: OsError) -> String {
    e.to_string()
}

impl Replay<'_> {
    fn round_up(&self, v: u64) -> u64 {
        v.div_ceil(self.page) * self.page
    }

    fn round_down(&self, v: u64) -> u64 {
        v - v % self.page
    }

    /// A new object for the pages a fresh image touches before mapping them.
    fn image(&mut self) -> Result<usize, String> {
        self.images += 1;
        let name = format!("first touch of image {}", self.images);
        self.os.object(&name, ObjectKind::Anonymous, USER_LIMIT.0 / self.page).map_err(os_err)
    }

    fn new_proc(&mut self, parent: Option<Asid>, n: u64) -> Result<usize, String> {
        let space = Asid(self.next_space);
        self.next_space += 1;
        let obj = self.image().map_err(|e| format!("trace event {n}: {e}"))?;
        Ok(self.push_proc(space, parent, obj))
    }

    /// A process of [`Model::RegionPerAsid`]: its space holds one shared
    /// anonymous region over the whole user space.
    fn region_proc(&mut self, asid: Asid, n: u64) -> Result<usize, String> {
        let space = Asid(self.next_space);
        self.next_space += 1;
        let obj = self
            .os
            .object(&format!("trace asid {}", asid.0), ObjectKind::Anonymous, USER_LIMIT.0 / self.page)
            .map_err(|e| format!("trace event {n}: {e}"))?;
        let whole =
            Region { start: VirtAddr(0), len: USER_LIMIT.0, object: obj, offset: 0, prot: Prot::RW, private: false };
        self.os.map(space, whole).map_err(|e| format!("trace event {n}: {e}"))?;
        Ok(self.push_proc(space, None, obj))
    }

    fn push_proc(&mut self, space: Asid, parent: Option<Asid>, obj: usize) -> usize {
        self.procs.push(Proc {
            space,
            parent,
            asids: Vec::new(),
            maps: BTreeMap::new(),
            fds: BTreeMap::new(),
            brk: None,
            implicit_object: obj,
            implicit: BTreeMap::new(),
            implicit_pages: 0,
            exited: false,
            recorded: Vec::new(),
        });
        self.procs.len() - 1
    }

    /// The process of a trace ASID, binding a new ASID to a pending fork or
    /// making it a new process.
    fn proc_of(&mut self, asid: Asid, n: u64) -> Result<usize, String> {
        if let Some(&p) = self.by_asid.get(&asid) {
            return Ok(p);
        }
        let p = if self.model == Model::RegionPerAsid {
            self.region_proc(asid, n)?
        } else if self.pending.is_empty() {
            self.new_proc(None, n)?
        } else {
            let i = self.pending.iter().position(|f| f.pid == i64::from(asid.0)).unwrap_or(0);
            self.pending.remove(i).proc
        };
        self.procs[p].asids.push(asid);
        self.by_asid.insert(asid, p);
        Ok(p)
    }

    fn access(&mut self, p: usize, addr: u64, size: u64, op: DataRef, n: u64) -> Result<(), String> {
        let (mut va, end) = (addr, addr.saturating_add(size));
        while va < end {
            let chunk = (self.page - va % self.page).min(end - va);
            let model = self.model_of(p, va, n)?;
            let space = self.procs[p].space;
            self.os.access(space, VirtAddr(model), op, chunk, "trace").map_err(|e| format!("trace event {n}: {e}"))?;
            if self.out.first_violation_event.is_none() && !self.os.violations().is_empty() {
                self.out.first_violation_event = Some(n);
            }
            self.out.accesses += 1;
            va += chunk;
        }
        Ok(())
    }

    /// The model address of trace address `va`, mapping its page on first
    /// touch if no call mapped it.
    fn model_of(&mut self, p: usize, va: u64, n: u64) -> Result<u64, String> {
        if let Some(m) =
            self.procs[p].maps.range(..=va).next_back().map(|(_, m)| *m).filter(|m| m.contains(VirtAddr(va)))
        {
            return Ok(m.model_of(VirtAddr(va)).0);
        }
        let (vpage, fpage) = (self.round_down(va), self.round_down(fold(va)));
        if self.model == Model::RegionPerAsid {
            // The whole space is mapped: only the fold is checked.
            let pr = &mut self.procs[p];
            match pr.implicit.get(&fpage) {
                Some(&o) if o != vpage => {
                    return Err(format!(
                        "trace event {n}: page {vpage:#x} of asid {} folds onto page {o:#x} below the {USER_LIMIT:#x} user limit of the OS model",
                        pr.asids[0].0
                    ))
                }
                Some(_) => {}
                None => {
                    pr.implicit.insert(fpage, vpage);
                    self.folded_pages += u64::from(vpage != fpage);
                }
            }
            return Ok(fold(va));
        }
        let pr = &self.procs[p];
        match pr.implicit.get(&fpage) {
            Some(&o) if o == vpage => return Ok(fold(va)),
            Some(&o) => {
                return Err(format!(
                    "trace event {n}: page {vpage:#x} folds onto page {o:#x} below the {USER_LIMIT:#x} user limit of the OS model"
                ))
            }
            None => {}
        }
        let region = Region {
            start: VirtAddr(fpage),
            len: self.page,
            object: pr.implicit_object,
            offset: fpage,
            prot: Prot { read: true, write: true, exec: true },
            private: true,
        };
        let space = pr.space;
        self.os.map(space, region).map_err(|e| format!("trace event {n}: page {vpage:#x}, touched unmapped: {e}"))?;
        let pr = &mut self.procs[p];
        pr.implicit.insert(fpage, vpage);
        pr.implicit_pages += 1;
        Ok(fold(va))
    }

    fn syscall(&mut self, c: &Call, n: u64) -> Result<(), String> {
        let acts = matches!(
            c.number,
            SYS_OPEN
                | SYS_CLOSE
                | SYS_MMAP
                | SYS_MPROTECT
                | SYS_MUNMAP
                | SYS_BRK
                | SYS_MREMAP
                | SYS_SHMGET
                | SYS_SHMAT
                | SYS_DUP
                | SYS_DUP2
                | SYS_CLONE
                | SYS_FORK
                | SYS_VFORK
                | SYS_EXECVE
                | SYS_EXIT
                | SYS_SHMDT
                | SYS_FCNTL
                | SYS_CREAT
                | SYS_EXIT_GROUP
                | SYS_OPENAT
                | SYS_DUP3
                | SYS_EXECVEAT
                | SYS_CLONE3
        );
        if !acts {
            self.out.syscalls_ignored += 1;
            return Ok(());
        }
        // exit and exit_group do not return; a capture may give them any value.
        if c.ret < 0 && !matches!(c.number, SYS_EXIT | SYS_EXIT_GROUP) {
            self.out.syscalls_failed += 1;
            return Ok(());
        }
        *self.out.syscalls.entry(c.name().into_owned()).or_default() += 1;
        let p = self.proc_of(c.asid, n)?;
        let ret = c.ret as u64;
        match c.number {
            SYS_OPEN | SYS_OPENAT | SYS_CREAT => {
                let own = match c.number {
                    SYS_OPEN => 3,
                    SYS_OPENAT => 4,
                    _ => 2,
                };
                let key = if c.args.len() > own {
                    FileKey::Identity(c.arg(own))
                } else {
                    self.next_open += 1;
                    FileKey::Open(self.next_open)
                };
                self.procs[p].fds.insert(ret, key);
            }
            SYS_CLOSE => {
                self.procs[p].fds.remove(&c.arg(0));
            }
            SYS_DUP | SYS_DUP2 | SYS_DUP3 => self.dup(p, c.arg(0), ret),
            SYS_FCNTL if matches!(c.arg(1), F_DUPFD | F_DUPFD_CLOEXEC) => self.dup(p, c.arg(0), ret),
            SYS_FCNTL => {}
            SYS_MMAP => {
                let (len, prot, flags, fd, off) = (c.arg(1), c.arg(2), c.arg(3), c.arg(4), c.arg(5));
                let shared = matches!(flags & 0x3, MAP_SHARED | MAP_SHARED_VALIDATE);
                let placement =
                    if flags & (MAP_FIXED | MAP_FIXED_NOREPLACE) != 0 { Placement::Fixed } else { Placement::Free };
                let (backing, offset) = if flags & MAP_ANONYMOUS != 0 {
                    self.anon += 1;
                    (Backing::Anonymous(self.anon), 0)
                } else {
                    let key =
                        *self.procs[p].fds.get(&fd).ok_or_else(|| format!("mmap of fd {fd}, which no open gave"))?;
                    (Backing::File(self.file(key)?.0), off)
                };
                let len = self.round_up(len);
                let m = NewMapping { start: ret, len, prot: prot_of(prot), shared, backing, offset };
                self.install(p, m, placement)?;
            }
            SYS_MUNMAP => {
                let len = self.round_up(c.arg(1));
                self.remove(p, c.arg(0), len)?;
            }
            SYS_MPROTECT => {
                let len = self.round_up(c.arg(1));
                self.protect(p, c.arg(0), len, prot_of(c.arg(2)))?;
            }
            SYS_MREMAP => {
                let (old, old_len, new_len) = (c.arg(0), self.round_up(c.arg(1)), self.round_up(c.arg(2)));
                let m = self.procs[p]
                    .maps
                    .range(..=old)
                    .next_back()
                    .map(|(_, m)| *m)
                    .filter(|m| m.contains(VirtAddr(old)))
                    .ok_or_else(|| format!("mremap of {old:#x}, which is not mapped"))?;
                let offset = m.offset_of(VirtAddr(old));
                self.remove(p, old, old_len)?;
                let moved =
                    NewMapping { start: ret, len: new_len, prot: m.prot, shared: m.shared, backing: m.backing, offset };
                self.install(p, moved, Placement::Fixed)?;
            }
            SYS_BRK => self.brk(p, ret)?,
            SYS_SHMGET => {
                let len = self.round_up(c.arg(1));
                let obj = self
                    .os
                    .object(&format!("sysv shm {ret}"), ObjectKind::Anonymous, (len / self.page).max(1))
                    .map_err(os_err)?;
                self.shm.insert(ret, (obj, len));
            }
            SYS_SHMAT => {
                let id = c.arg(0);
                let &(_, len) =
                    self.shm.get(&id).ok_or_else(|| format!("shmat of shmid {id}, which no shmget gave"))?;
                let prot = if c.arg(2) & SHM_RDONLY != 0 { Prot::R } else { Prot::RW };
                let m = NewMapping { start: ret, len, prot, shared: true, backing: Backing::SysV(id), offset: 0 };
                self.install(p, m, Placement::Free)?;
            }
            SYS_SHMDT => {
                let at = c.arg(0);
                let m = self.procs[p]
                    .maps
                    .get(&at)
                    .copied()
                    .filter(|m| matches!(m.backing, Backing::SysV(_)))
                    .ok_or_else(|| format!("shmdt of {at:#x}, where no segment is attached"))?;
                self.remove(p, m.start.0, m.bytes())?;
            }
            SYS_CLONE if c.arg(0) & CLONE_VM != 0 => self.pending.push(Pending { pid: c.ret, proc: p }),
            SYS_CLONE3 => self.pending.push(Pending { pid: c.ret, proc: p }),
            // The child's own return (0) is not a fork.
            SYS_FORK | SYS_VFORK | SYS_CLONE if c.ret > 0 => {
                let parent = self.procs[p].space;
                let child = self.new_proc(Some(parent), n)?;
                let space = self.procs[child].space;
                self.os.fork(parent, space).map_err(os_err)?;
                let pp = self.procs[p].clone();
                let ch = &mut self.procs[child];
                ch.maps = pp.maps;
                ch.fds = pp.fds;
                ch.brk = pp.brk;
                ch.implicit = pp.implicit;
                // The child's first-touch pages live in the parent's
                // object, inherited like any private mapping.
                ch.implicit_object = pp.implicit_object;
                self.pending.push(Pending { pid: c.ret, proc: child });
            }
            SYS_EXECVE | SYS_EXECVEAT => {
                self.empty(p)?;
                let obj = self.image()?;
                let pr = &mut self.procs[p];
                pr.implicit_object = obj;
                pr.brk = None;
            }
            SYS_EXIT_GROUP => self.exit(p)?,
            SYS_EXIT => {
                // A thread's exit leaves the space to the others.
                let others = self.by_asid.iter().any(|(&a, &q)| q == p && a != c.asid);
                self.by_asid.remove(&c.asid);
                if !others {
                    self.exit(p)?;
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn dup(&mut self, p: usize, old: u64, new: u64) {
        if let Some(&k) = self.procs[p].fds.get(&old) {
            self.procs[p].fds.insert(new, k);
        }
    }

    /// The file's number and object, created at its first mapping.
    fn file(&mut self, key: FileKey) -> Result<(u64, usize), String> {
        if let Some(&f) = self.files.get(&key) {
            return Ok(f);
        }
        let number = self.files.len() as u64 + 1;
        let obj =
            self.os.object(&format!("file {number}"), ObjectKind::File, USER_LIMIT.0 / self.page).map_err(os_err)?;
        self.files.insert(key, (number, obj));
        Ok((number, obj))
    }

    fn object_of(&mut self, p: usize, b: Backing) -> Result<usize, String> {
        match b {
            Backing::File(number) => self
                .files
                .values()
                .find(|&&(f, _)| f == number)
                .map(|&(_, o)| o)
                .ok_or_else(|| format!("no file {number} (a vmlab bug)")),
            Backing::SysV(id) => self.shm.get(&id).map(|&(o, _)| o).ok_or_else(|| format!("no shmid {id}")),
            Backing::Anonymous(k) => self.named_anon(&format!("anonymous {k}")),
            // One heap per image: exec starts a new one.
            Backing::Heap => self.named_anon(&format!("heap of {}", self.procs[p].implicit_object)),
        }
    }

    fn named_anon(&mut self, name: &str) -> Result<usize, String> {
        match self.os.object_id(name) {
            Some(o) => Ok(o),
            None => self.os.object(name, ObjectKind::Anonymous, USER_LIMIT.0 / self.page).map_err(os_err),
        }
    }

    /// Maps `[m.start, m.start+m.len)` of process `p` where `placement`
    /// says.
    fn install(&mut self, p: usize, new: NewMapping, placement: Placement) -> Result<(), String> {
        let NewMapping { start, len, prot, shared, backing, offset } = new;
        if len == 0 {
            return Ok(());
        }
        if !start.is_multiple_of(self.page) || !offset.is_multiple_of(self.page) {
            return Err(format!("mapping {start:#x} offset {offset:#x} is not aligned to the {}-byte page", self.page));
        }
        if fold(start) + len > USER_LIMIT.0 {
            return Err(format!("mapping {start:#x}+{len:#x} crosses a {USER_LIMIT:#x} fold of the OS model"));
        }
        // A mapping placed next to, or over part of, one the policy moved
        // moves with it (ld.so maps a library's data at a fixed distance
        // from its text).
        let moved = |m: &Mapping| m.model_start.0 != fold(m.start.0);
        let near = self.procs[p]
            .maps
            .range(..=start)
            .next_back()
            .map(|(_, m)| *m)
            .filter(|m| m.end.0 >= start && moved(m))
            .map(|m| m.model_of(VirtAddr(start)).0);
        if placement == Placement::Fixed {
            self.remove(p, start, len)?;
        } else if let Some(m) = self.overlapping(p, start, len).first() {
            return Err(format!(
                "the kernel returned {start:#x}+{len:#x}, which overlaps {:#x}-{:#x} the replay still has mapped",
                m.start, m.end
            ));
        }
        self.drop_implicit(p, start, len)?;
        let object = self.object_of(p, backing)?;
        let space = self.procs[p].space;
        let private = !shared;
        let region = |at: u64| Region { start: VirtAddr(at), len, object, offset, prot, private };
        if let Some(at) = near.filter(|&at| at + len <= USER_LIMIT.0) {
            if self.os.map(space, region(at)).is_ok() {
                self.out.relocated += 1;
                self.procs[p].maps.insert(start, new.placed(at));
                return Ok(());
            }
        }
        // Its own place may hold a mapping the policy moved there (an alias
        // slid up a page lands on the next range the kernel hands out):
        // then it moves too, as if refused.
        let taken_by_moved = |r: &Self| {
            let (lo, hi) = (fold(start), fold(start) + len);
            r.procs[p].maps.values().any(|m| moved(m) && m.model_start.0 < hi && lo < m.model_end().0)
        };
        let model = match self.os.map(space, region(fold(start))) {
            Ok(()) => fold(start),
            Err(e @ (OsError::Refused(_) | OsError::Overlap(_))) => {
                let why = match e {
                    OsError::Refused(why) => why,
                    _ if taken_by_moved(self) => {
                        format!("{start:#x}+{len:#x} is where the replay moved a mapping the policy refused")
                    }
                    e => return Err(e.to_string()),
                };
                // Where that OS would have put it: the global address, else
                // the nearest accepted page above.
                let global = self.global.get(&object).map(|&g| g.wrapping_add(offset));
                // A single address space maps an object range at one place:
                // a second mapping of it in the same process (a file mapped
                // twice) is the first one again.
                if let Some(g) = global {
                    let same = |m: &Mapping| {
                        m.backing == backing
                            && m.model_start.0 <= g
                            && g + len <= m.model_end().0
                            && m.offset + (g - m.model_start.0) == offset
                    };
                    if self.procs[p].maps.values().any(same) {
                        self.out.relocated += 1;
                        self.procs[p].maps.insert(start, new.placed(g));
                        return Ok(());
                    }
                }
                let slide = (1..=MAX_SLIDE_PAGES).map(|k| fold(start) + k * self.page);
                let mut at = None;
                for c in global.into_iter().chain(slide).filter(|&c| c + len <= USER_LIMIT.0) {
                    match self.os.map(space, region(c)) {
                        Ok(()) => {
                            at = Some(c);
                            break;
                        }
                        Err(OsError::Refused(_) | OsError::Overlap(_)) => continue,
                        Err(e) => return Err(e.to_string()),
                    }
                }
                self.out.relocated += 1;
                at.ok_or_else(|| format!("{why}; no place within {MAX_SLIDE_PAGES} pages above is accepted"))?
            }
            Err(e) => return Err(e.to_string()),
        };
        if shared && self.policy == Policy::GlobalShared {
            self.global.entry(object).or_insert(model.wrapping_sub(offset));
        }
        self.procs[p].maps.insert(start, new.placed(model));
        Ok(())
    }

    fn overlapping(&self, p: usize, start: u64, len: u64) -> Vec<Mapping> {
        let end = start + len;
        let maps = &self.procs[p].maps;
        let from = maps.range(..start).next_back().filter(|(_, m)| m.end.0 > start).map_or(start, |(&s, _)| s);
        maps.range(from..end).map(|(_, m)| *m).collect()
    }

    /// Unmaps first-touch pages of `p` in trace range `[start, start+len)`.
    fn drop_implicit(&mut self, p: usize, start: u64, len: u64) -> Result<(), String> {
        let (fs, fe) = (self.round_down(fold(start)), fold(start) + len);
        let hits: Vec<(u64, u64)> = self.procs[p].implicit.range(fs..fe).map(|(&f, &v)| (f, v)).collect();
        for (f, v) in hits {
            if v < start || v >= start + len {
                return Err(format!(
                    "{start:#x}+{len:#x} folds onto page {v:#x} below the {USER_LIMIT:#x} user limit of the OS model"
                ));
            }
            let space = self.procs[p].space;
            self.os.unmap(space, VirtAddr(f), self.page).map_err(os_err)?;
            self.procs[p].implicit.remove(&f);
        }
        Ok(())
    }

    /// Unmaps trace range `[start, start+len)` of `p`, splitting mappings.
    fn remove(&mut self, p: usize, start: u64, len: u64) -> Result<(), String> {
        let end = start + len;
        let space = self.procs[p].space;
        for m in self.overlapping(p, start, len) {
            let (a, b) = (m.start.max(VirtAddr(start)), m.end.min(VirtAddr(end)));
            let (ma, mb) = (m.model_of(a), m.model_of(b));
            // Kept while another mapping of the process is the same model
            // range (see `install`, global-shared).
            let shared_model =
                self.procs[p].maps.values().any(|o| o.start != m.start && o.model_start < mb && ma < o.model_end());
            if !shared_model {
                self.os.unmap(space, ma, b.0 - a.0).map_err(os_err)?;
            }
            let maps = &mut self.procs[p].maps;
            maps.remove(&m.start.0);
            if m.start < a {
                maps.insert(m.start.0, m.part(m.start, a));
            }
            if b < m.end {
                maps.insert(b.0, m.part(b, m.end));
            }
        }
        self.drop_implicit(p, start, len)
    }

    fn protect(&mut self, p: usize, start: u64, len: u64, prot: Prot) -> Result<(), String> {
        let end = start + len;
        let space = self.procs[p].space;
        for m in self.overlapping(p, start, len) {
            let (a, b) = (m.start.max(VirtAddr(start)), m.end.min(VirtAddr(end)));
            self.os.protect(space, m.model_of(a), b.0 - a.0, prot).map_err(os_err)?;
            let maps = &mut self.procs[p].maps;
            maps.remove(&m.start.0);
            if m.start < a {
                maps.insert(m.start.0, m.part(m.start, a));
            }
            maps.insert(a.0, Mapping { prot, ..m.part(a, b) });
            if b < m.end {
                maps.insert(b.0, m.part(b, m.end));
            }
        }
        let (fs, fe) = (self.round_down(fold(start)), fold(start) + len);
        let hits: Vec<u64> = self.procs[p].implicit.range(fs..fe).map(|(&f, _)| f).collect();
        for f in hits {
            self.os.protect(space, VirtAddr(f), self.page, prot).map_err(os_err)?;
        }
        Ok(())
    }

    fn brk(&mut self, p: usize, ret: u64) -> Result<(), String> {
        let Some((first, cur)) = self.procs[p].brk else {
            self.procs[p].brk = Some((ret, ret));
            return Ok(());
        };
        let (old_end, new_end, base) = (self.round_up(cur), self.round_up(ret), self.round_up(first));
        if new_end > old_end {
            let grown = NewMapping {
                start: old_end,
                len: new_end - old_end,
                prot: Prot::RW,
                shared: false,
                backing: Backing::Heap,
                offset: old_end - base,
            };
            self.install(p, grown, Placement::Free)?;
        } else if new_end < old_end {
            self.remove(p, new_end, old_end - new_end)?;
        }
        self.procs[p].brk = Some((first, ret));
        Ok(())
    }

    /// Removes every mapping of `p` (exec, exit).
    fn empty(&mut self, p: usize) -> Result<(), String> {
        let space = self.procs[p].space;
        let regions: Vec<(VirtAddr, u64)> =
            self.os.space(space).map(|s| s.regions.values().map(|r| (r.start, r.len)).collect()).unwrap_or_default();
        for (start, len) in regions {
            self.os.unmap(space, start, len).map_err(os_err)?;
        }
        let pr = &mut self.procs[p];
        pr.maps.clear();
        pr.implicit.clear();
        Ok(())
    }

    fn exit(&mut self, p: usize) -> Result<(), String> {
        if self.procs[p].exited {
            return Ok(());
        }
        self.procs[p].recorded = self.merged(p);
        self.empty(p)?;
        self.procs[p].exited = true;
        Ok(())
    }

    /// The mappings of `p`, adjacent compatible ones merged.
    fn merged(&self, p: usize) -> Vec<Mapping> {
        let mut v: Vec<Mapping> = Vec::new();
        for m in self.procs[p].maps.values() {
            if let Some(last) = v.last_mut() {
                let joins = last.end == m.start
                    && last.prot == m.prot
                    && last.shared == m.shared
                    && last.backing == m.backing
                    && last.offset_of(last.end) == m.offset
                    && last.model_end() == m.model_start;
                if joins {
                    last.end = m.end;
                    continue;
                }
            }
            v.push(*m);
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prot_bits() {
        assert_eq!(prot_of(PROT_READ | PROT_WRITE), Prot::RW);
        assert_eq!(prot_of(PROT_READ), Prot::R);
        assert_eq!(prot_of(0), Prot::NONE);
        assert!(prot_of(PROT_EXEC).exec);
    }
}
