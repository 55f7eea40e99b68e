//! lmbench-like programs, captured for real, run on a switching `Kernel`
//! (study S5). The programs are the small C programs of
//! `python/vmlab/workload_sources/lmbench/` (hot potato over a pipe, fifo,
//! unix socket or fcntl locks; pipe and unix bandwidth; fork, exec, shell),
//! traced with every process (`vmlab trace --children --syscalls`): the
//! user side is the captured references, the hand-overs are the merge's
//! `ContextSwitch` markers (where a process really blocked), and the
//! kernel's share runs as modelled kernel code at each system-call marker
//! (`docs/syscall-markers.md`, "How the studies should consume them"):
//!
//! | marker | kernel work |
//! |---|---|
//! | `read`/`write` family, `ret` > 0 | trap, entry, the pipe or socket path (`sockets`), a word-at-a-time copy of `ret` bytes between the user buffer (`arg(1)`) and the kernel's buffer |
//! | the same on a file or terminal | trap, entry, the copy (no pipe path) |
//! | `fcntl` `F_SETLK`/`F_SETLKW` | trap, entry, the lock path |
//! | `clone`/`fork`/`vfork` (a process) | `Kernel::fork` |
//! | `execve` (`ret` 0) | `Kernel::exec` (flush, drop the old pages) |
//! | `exit_group`/`exit` | `Kernel::exit` |
//! | any other call | trap and entry |
//! | `ContextSwitch(a)` | `Kernel::switch_to` the process of asid `a` |
//!
//! A private page's first touch is a page fault that zero-fills it
//! (`Kernel::set_demand_paging`).
//!
//! **Pipe data.** Which descriptor is a pipe is not in the markers, so the
//! kernel's pipe and socket buffers are one 64 KB ring: a write to a
//! descriptor above 2 copies into the ring where the last one stopped, a
//! read takes the oldest unread bytes from it; a read that returns more
//! than the ring holds is a file read (copied from the page cache). Right
//! for the lmbench programs, whose pipe traffic alternates strictly.
//!
//! **Layout.** The trace is x86-64 under valgrind; the SA-1100 has 32-bit
//! addresses and relocates the low 32 MB by PID. Every page is renamed, the
//! same way in every process (a fork's child keeps its parent's
//! addresses), into the FASS Linux layout of seed 001 ("Linux
//! implementation": text, data and stack inside the relocated 32 MB, shared
//! libraries above): a page below 8 MB (the program and its heap) keeps its
//! address; a page above that some process writes (stack, library data,
//! anonymous memory) is private, renamed into `PRIVATE` in order of first
//! touch; a page above 8 MB that no process ever writes (library text and
//! read-only data, which valgrind maps at the same address in every
//! process) is one read-only region shared by every process at `LIBC`.
//!
//! **What is measured.** The stretch between the first two `getppid` calls
//! of the first process (the programs call it there and nowhere else),
//! divided by the operations the program did in it (`ops`); everything
//! before warms the caches and TLBs.

use std::path::PathBuf;

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use vmlab_addr::{Asid, VirtAddr};
use vmlab_cache::RefKind;
use vmlab_machine::Mechanism;
use vmlab_trace::syscall::{Assembler, Call};
use vmlab_trace::{AccessKind, Event};

use crate::switch::{CopyDirection, Kernel, Region, Scheme, Skip, SwitchCounts, SwitchPreset, BUFFERS, KERNEL_BASE};

/// Program text starts here (ARM Linux's link address).
pub const TEXT: u64 = 0x8000;
/// The stack, moved inside the relocated 32 MB (seed 001).
pub const STACK: u64 = 0x01ff_0000;
/// Pages below this keep their address (the program image and its heap).
pub const LOW: u64 = 0x0080_0000;
/// Private pages from above `LOW` are renamed into [PRIVATE, PRIVATE_END).
pub const PRIVATE: u64 = 0x0080_0000;
pub const PRIVATE_END: u64 = 0x0100_0000;
/// The shared read-only region (library text), in the upper half.
pub const LIBC: u64 = 0x8000_0000;
/// Its largest size: `fass-linux-unshared` links it privately at 16 MB,
/// inside the relocated 32 MB.
const LIBC_MAX_PAGES: u64 = 0x80_0000 >> 12;
/// The kernel's pipe and socket buffers: one ring of this many bytes.
const RING: u64 = 0x1_0000;
/// File data a `read` copies from (the page cache).
const PAGE_CACHE: u64 = KERNEL_BASE + 0xc0_0000;
const PAGE: u64 = 4096;

/// The marker the programs put around what is measured.
const MARK: u16 = 110; // getppid

mod nr {
    pub const READ: u16 = 0;
    pub const WRITE: u16 = 1;
    pub const PREAD64: u16 = 17;
    pub const PWRITE64: u16 = 18;
    pub const SENDTO: u16 = 44;
    pub const RECVFROM: u16 = 45;
    pub const CLONE: u16 = 56;
    pub const FORK: u16 = 57;
    pub const VFORK: u16 = 58;
    pub const EXECVE: u16 = 59;
    pub const EXIT: u16 = 60;
    pub const FCNTL: u16 = 72;
    pub const EXIT_GROUP: u16 = 231;
}
const CLONE_THREAD: u64 = 0x10000;
const F_SETLK: u64 = 6;
const F_SETLKW: u64 = 7;

/// A captured program: its trace, how many operations the measured stretch
/// holds, and whether its reads and writes go through sockets (the
/// kernel's socket path) rather than pipes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Program {
    pub name: String,
    pub trace: PathBuf,
    pub ops: u64,
    #[serde(default)]
    pub sockets: bool,
}

/// What the measured operations cost.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Measured {
    pub program: String,
    pub scheme: String,
    pub preset: String,
    pub ops: u64,
    pub cycles: u64,
    /// Cycles per operation and microseconds at the preset's clock.
    pub cycles_per_op: f64,
    pub us_per_op: f64,
    /// Cycles by ledger mechanism (non-zero ones), over the measured ops.
    pub by_mechanism: Vec<(String, u64)>,
    /// The switching kernel's counts over the measured ops.
    pub counts: SwitchCounts,
    /// Consistency violations over the whole run (warm-up included).
    pub violations: usize,
    /// What the run replayed: references and system calls, in all and in
    /// the measured stretch; processes; pages renamed private and shared.
    pub references: u64,
    pub syscalls: u64,
    pub measured_references: u64,
    pub processes: u64,
    pub private_pages: u64,
    pub shared_pages: u64,
}

fn counts_minus(a: SwitchCounts, b: SwitchCounts) -> SwitchCounts {
    SwitchCounts {
        switches: a.switches - b.switches,
        cache_flushes: a.cache_flushes - b.cache_flushes,
        tlb_flushes: a.tlb_flushes - b.tlb_flushes,
        lines_written_back: a.lines_written_back - b.lines_written_back,
        lines_invalidated: a.lines_invalidated - b.lines_invalidated,
        tlb_entries_flushed: a.tlb_entries_flushed - b.tlb_entries_flushed,
        collisions: a.collisions - b.collisions,
        domain_faults: a.domain_faults - b.domain_faults,
        domain_recycles: a.domain_recycles - b.domain_recycles,
        asid_recycles: a.asid_recycles - b.asid_recycles,
        cpd_fills: a.cpd_fills - b.cpd_fills,
        tlb_misses: a.tlb_misses - b.tlb_misses,
    }
}

/// The renaming of a trace's pages into the FASS layout (module docs).
#[derive(Debug, Default)]
pub struct Layout {
    private: FxHashMap<u64, u64>,
    shared: FxHashMap<u64, u64>,
}

impl Layout {
    /// Reads every reference of `events` once.
    pub fn of(events: &[Event]) -> Result<Self, String> {
        let mut order: Vec<u64> = Vec::new();
        let mut seen: FxHashMap<u64, bool> = FxHashMap::default();
        for e in events {
            if let Event::Access(a) = e {
                let first = a.addr.0 / PAGE;
                let last = (a.addr.0 + u64::from(a.size.max(1)) - 1) / PAGE;
                for page in first..=last {
                    if page * PAGE < LOW {
                        continue;
                    }
                    let written = matches!(a.kind, AccessKind::Store | AccessKind::Modify);
                    let w = seen.entry(page).or_insert_with(|| {
                        order.push(page);
                        false
                    });
                    *w |= written;
                }
            }
        }
        let mut l = Layout::default();
        for page in order {
            let (map, base, limit) = if seen[&page] {
                (&mut l.private, PRIVATE, PRIVATE_END)
            } else {
                (&mut l.shared, LIBC, LIBC + LIBC_MAX_PAGES * PAGE)
            };
            let to = base + map.len() as u64 * PAGE;
            if to >= limit {
                return Err(format!(
                    "the trace touches more than {} pages of that kind above {LOW:#x}: they do not fit the FASS \
                     layout's {:#x}..{limit:#x}",
                    (limit - base) / PAGE,
                    base
                ));
            }
            map.insert(page, to);
        }
        Ok(l)
    }

    /// Where `va` lives in the FASS layout.
    pub fn rename(&self, va: u64) -> u64 {
        let page = va / PAGE;
        let off = va % PAGE;
        match (self.private.get(&page), self.shared.get(&page)) {
            (Some(&to), _) | (None, Some(&to)) => to + off,
            (None, None) => va,
        }
    }

    pub fn shared_pages(&self) -> u64 {
        self.shared.len() as u64
    }

    pub fn private_pages(&self) -> u64 {
        self.private.len() as u64
    }
}

/// Replays `program`'s trace on `preset` under `scheme`.
pub fn run(preset: &SwitchPreset, scheme: Scheme, program: &Program) -> Result<Measured, String> {
    let events = vmlab_trace::read_all(&program.trace, None).map_err(|e| e.to_string())?;
    run_events(preset, scheme, program, &events)
}

/// As `run`, on events already read.
pub fn run_events(
    preset: &SwitchPreset,
    scheme: Scheme,
    program: &Program,
    events: &[Event],
) -> Result<Measured, String> {
    let where_ = program.trace.display();
    let layout = Layout::of(events)?;
    let mut k = Kernel::new(preset, scheme, Skip::Nothing)?;
    k.set_demand_paging(true);
    let root = k.spawn();
    k.share(Region { base: VirtAddr(LIBC), pages: layout.shared_pages().max(1), writable: false }, &[root])?;
    let mut r =
        Replay { k, layout, procs: FxHashMap::default(), ring_written: 0, ring_read: 0, sockets: program.sockets };
    r.procs.insert(1, root);
    // The command runs first (a trace of one process has no hand-over).
    r.k.switch_to(root)?;
    let mut calls = Assembler::new();
    let mut marks = 0;
    let mut start = None;
    let mut counted = Counted::default();
    for (i, e) in events.iter().enumerate() {
        match e {
            Event::Access(a) => {
                counted.references += 1;
                r.access(a.kind, a.addr.0, u64::from(a.size.max(1)))
                    .map_err(|m| format!("{where_}: event {i}: {m}"))?;
            }
            Event::ContextSwitch(a) => {
                let p = r.process(a.0).map_err(|m| format!("{where_}: event {i}: {m}"))?;
                if r.k.running() != Some(p) {
                    r.k.switch_to(p)?;
                }
            }
            _ => {}
        }
        if let Some(call) = calls.push(e).map_err(|m| format!("{where_}: event {i}: {m}"))? {
            counted.syscalls += 1;
            if call.number == MARK && call.asid == Asid(1) {
                marks += 1;
                if marks == 1 {
                    start = Some(Snapshot::of(&r.k, counted.references));
                } else if marks == 2 {
                    let s = start.take().ok_or("unreachable: no start")?;
                    let run = Run { preset, scheme, program, events };
                    return Ok(s.measured(&r, &run, counted));
                }
            }
            r.call(&call).map_err(|m| format!("{where_}: event {i}: {}: {m}", call.name()))?;
        }
    }
    Err(format!(
        "{where_}: the first process made {marks} getppid calls; S5 measures between its first two \
         (workload_sources/lmbench/*.c mark the measured stretch with them)"
    ))
}

/// What a measurement is of: `run_events`'s arguments.
struct Run<'a> {
    preset: &'a SwitchPreset,
    scheme: Scheme,
    program: &'a Program,
    events: &'a [Event],
}

/// What the replay has counted so far: references, and system calls
/// assembled.
#[derive(Clone, Copy, Debug, Default)]
struct Counted {
    references: u64,
    syscalls: u64,
}

struct Snapshot {
    cycles: u64,
    counts: SwitchCounts,
    by: Vec<u64>,
    references: u64,
}

impl Snapshot {
    fn of(k: &Kernel, references: u64) -> Self {
        Snapshot {
            cycles: k.cycles(),
            counts: k.counts(),
            by: Mechanism::ALL.iter().map(|&m| k.cycles_of(m)).collect(),
            references,
        }
    }

    fn measured(self, r: &Replay, run: &Run<'_>, counted: Counted) -> Measured {
        let Run { preset, scheme, program, events } = *run;
        let Counted { references, syscalls } = counted;
        let k = &r.k;
        let cycles = k.cycles() - self.cycles;
        let ops = program.ops.max(1);
        let by_mechanism = Mechanism::ALL
            .iter()
            .zip(&self.by)
            .map(|(&m, &s)| (m.name().to_string(), k.cycles_of(m) - s))
            .filter(|(_, c)| *c > 0)
            .collect();
        let all_refs = events.iter().filter(|e| matches!(e, Event::Access(_))).count() as u64;
        Measured {
            program: program.name.clone(),
            scheme: scheme.name().to_string(),
            preset: preset.name.clone(),
            ops: program.ops,
            cycles,
            cycles_per_op: cycles as f64 / ops as f64,
            us_per_op: cycles as f64 / ops as f64 * preset.cycle_ns() / 1000.0,
            by_mechanism,
            counts: counts_minus(k.counts(), self.counts),
            violations: k.violations().len(),
            references: all_refs,
            syscalls,
            measured_references: references - self.references,
            processes: r.procs.len() as u64,
            private_pages: r.layout.private_pages(),
            shared_pages: r.layout.shared_pages(),
        }
    }
}

/// The replay's state beside the kernel: processes by asid, the pipe ring.
struct Replay {
    k: Kernel,
    layout: Layout,
    procs: FxHashMap<u32, usize>,
    ring_written: u64,
    ring_read: u64,
    sockets: bool,
}

impl Replay {
    fn process(&self, asid: u32) -> Result<usize, String> {
        self.procs.get(&asid).copied().ok_or_else(|| format!("asid {asid} runs before any fork made it"))
    }

    /// One user reference, split where it crosses a page (each page is
    /// renamed on its own).
    fn access(&mut self, kind: AccessKind, va: u64, size: u64) -> Result<(), String> {
        let mut off = 0;
        while off < size {
            let at = va + off;
            let n = (PAGE - at % PAGE).min(size - off);
            let to = VirtAddr(self.layout.rename(at));
            match kind {
                AccessKind::Ifetch => self.k.user(RefKind::Ifetch, to, n)?,
                AccessKind::Load => self.k.user(RefKind::Read, to, n)?,
                AccessKind::Store => self.k.user(RefKind::Write, to, n)?,
                AccessKind::Modify => {
                    self.k.user(RefKind::Read, to, n)?;
                    self.k.user(RefKind::Write, to, n)?;
                }
            }
            off += n;
        }
        Ok(())
    }

    /// Copies `bytes` between user memory at `user` (trace address) and
    /// kernel memory from `kernel` on, wrapping within `wrap` bytes of
    /// `base`, a piece per user page.
    fn copy(
        &mut self,
        user: u64,
        base: u64,
        from: u64,
        wrap: u64,
        bytes: u64,
        direction: CopyDirection,
    ) -> Result<(), String> {
        let mut off = 0;
        while off < bytes {
            let at = user + off;
            let k_at = (from + off) % wrap;
            let n = (PAGE - at % PAGE).min(bytes - off).min(wrap - k_at);
            self.k.copy(VirtAddr(self.layout.rename(at)), VirtAddr(base + k_at), n, direction)?;
            off += n;
        }
        Ok(())
    }

    fn call(&mut self, c: &Call) -> Result<(), String> {
        let p = self.process(c.asid.0)?;
        let path = self.k.preset().path.clone();
        let rw = if self.sockets { &path.socket_rw } else { &path.pipe_rw };
        let rw = (if self.sockets { 0x2_4000 } else { 0x2_0000 }, rw.value.max(0.0).round() as u64);
        match c.number {
            nr::READ | nr::PREAD64 | nr::RECVFROM if c.ret > 0 => {
                let n = c.ret as u64;
                if c.number != nr::PREAD64 && self.ring_written - self.ring_read >= n {
                    self.k.syscall(rw.0, rw.1);
                    let from = self.ring_read;
                    self.copy(c.arg(1), BUFFERS, from, RING, n, CopyDirection::KernelToUser)?;
                    self.ring_read += n;
                } else {
                    self.k.syscall(0, 0);
                    self.copy(c.arg(1), PAGE_CACHE, 0, 1 << 20, n, CopyDirection::KernelToUser)?;
                }
            }
            nr::WRITE | nr::PWRITE64 | nr::SENDTO if c.ret > 0 => {
                let n = c.ret as u64;
                if c.number != nr::PWRITE64 && c.arg(0) > 2 {
                    self.k.syscall(rw.0, rw.1);
                    let from = self.ring_written;
                    self.copy(c.arg(1), BUFFERS, from, RING, n, CopyDirection::UserToKernel)?;
                    self.ring_written += n;
                } else {
                    self.k.syscall(0, 0);
                    self.copy(c.arg(1), PAGE_CACHE, 0, 1 << 20, n, CopyDirection::UserToKernel)?;
                }
            }
            nr::FCNTL if c.arg(1) == F_SETLK || c.arg(1) == F_SETLKW => {
                self.k.syscall(0x2_8000, path.fcntl_lock.value.max(0.0).round() as u64);
            }
            nr::CLONE | nr::FORK | nr::VFORK
                if c.ret > 0 && !(c.number == nr::CLONE && c.arg(0) & CLONE_THREAD != 0) =>
            {
                self.k.syscall(0, 0);
                let child = self.k.fork(p)?;
                self.procs.insert(c.ret as u32, child);
            }
            nr::EXECVE if c.ret == 0 => {
                self.k.syscall(0, 0);
                self.k.exec(p, 0)?;
            }
            nr::EXIT_GROUP | nr::EXIT => {
                self.k.syscall(0, 0);
                self.k.exit(p)?;
            }
            _ => self.k.syscall(0, 0),
        }
        Ok(())
    }
}

/// Every mechanism a preset can run (fast switching needs its hardware).
pub fn schemes_for(preset: &SwitchPreset) -> Vec<Scheme> {
    Scheme::ALL.iter().copied().filter(|s| preset.fass || matches!(s, Scheme::Flush | Scheme::Asid)).collect()
}

/// The direct and indirect cost of one cache flush and one TLB flush on a
/// preset (seed 001: direct 1k-18k cycles, indirect up to 54k, for the
/// caches; 1 and about 3k for the TLB).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct FlushCost {
    pub d_lines: u64,
    pub dirty: u64,
    pub i_lines: u64,
    pub pages: u64,
    /// The flush itself (the clean loop, write-backs, invalidation).
    pub cache_direct: u64,
    /// What touching the working set again costs more after the flush than
    /// without it.
    pub cache_indirect: u64,
    pub tlb_direct: u64,
    pub tlb_indirect: u64,
}

/// A working set of `d_lines` D-cache lines (`dirty` of them written) and
/// `i_lines` I-cache lines spread over `pages` pages, touched, flushed, and
/// touched again.
pub fn flush_cost(
    preset: &SwitchPreset,
    d_lines: u64,
    dirty: u64,
    i_lines: u64,
    pages: u64,
) -> Result<FlushCost, String> {
    let pages = pages.max(1);
    let touch = |k: &mut Kernel, write: bool| -> Result<(), String> {
        for i in 0..d_lines {
            // Lines spread evenly over the pages (stack and data).
            let va = VirtAddr(STACK - (pages << 12) + (i % pages) * 4096 + (i / pages) * 32);
            k.user(RefKind::Read, va, 4)?;
            if write && i < dirty {
                k.user(RefKind::Write, va, 4)?;
            }
        }
        for i in 0..i_lines {
            k.user(RefKind::Ifetch, VirtAddr(TEXT + (i % pages) * 4096 + (i / pages) * 32), 4)?;
        }
        Ok(())
    };
    let measure = |flush: u8| -> Result<(u64, u64), String> {
        let mut k = Kernel::new(preset, Scheme::Flush, Skip::Nothing)?;
        let p = k.spawn();
        k.switch_to(p)?;
        touch(&mut k, true)?;
        touch(&mut k, true)?;
        let c0 = k.cycles();
        match flush {
            1 => k.flush_caches(),
            2 => k.flush_tlbs(),
            _ => {}
        }
        let direct = k.cycles() - c0;
        let c1 = k.cycles();
        touch(&mut k, false)?;
        Ok((direct, k.cycles() - c1))
    };
    let (_, warm) = measure(0)?;
    let (cache_direct, after_cache) = measure(1)?;
    let (tlb_direct, after_tlb) = measure(2)?;
    Ok(FlushCost {
        d_lines,
        dirty,
        i_lines,
        pages,
        cache_direct,
        cache_indirect: after_cache.saturating_sub(warm),
        tlb_direct,
        tlb_indirect: after_tlb.saturating_sub(warm),
    })
}
