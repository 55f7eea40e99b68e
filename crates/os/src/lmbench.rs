//! lmbench-like workloads as step programs run on a switching `Kernel`
//! (study S5): what one operation of each program does, process by
//! process, read off the small C programs in
//! `python/vmlab/workload_sources/lmbench/` (hot potato over a pipe, fifo,
//! unix socket or fcntl locks; pipe and unix bandwidth; fork, exec, shell).
//! The study writes the programs as data (a list of `Step`s per operation);
//! this runs them, warm-up first, and reports the measured operations'
//! cycles split by mechanism.
//!
//! User memory follows the FASS Linux layout (seed 001, "Linux
//! implementation"): text, data and stack inside the relocated 32 MB,
//! shared libraries above, in the upper half.

use serde::{Deserialize, Serialize};
use vmlab_addr::VirtAddr;
use vmlab_cache::RefKind;
use vmlab_machine::Mechanism;

use crate::switch::{Kernel, Region, Scheme, Skip, SwitchCounts, SwitchPreset, BUFFERS};

/// Program text starts here (ARM Linux's link address).
pub const TEXT: u64 = 0x8000;
/// The stack, moved inside the relocated 32 MB (seed 001).
pub const STACK: u64 = 0x01ff_0000;
/// The user buffer of a read or write.
pub const USER_BUFFER: u64 = 0x0010_0000;
/// The C library's text, shared read-only by every process.
pub const LIBC: u64 = 0x8000_0000;
pub const LIBC_PAGES: u64 = 16;

/// A kernel path a step runs (the preset's `[path.*]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Path {
    PipeRw,
    SocketRw,
    FcntlLock,
    Fault,
}

/// One step of an operation. `proc` names a process by its role in the
/// program (0: the parent), not by kernel number.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "do", rename_all = "snake_case", deny_unknown_fields)]
pub enum Step {
    /// The scheduler runs `proc` (a context switch if another ran).
    Run { proc: usize },
    /// The running process's own code: `code` lines of its text fetched
    /// (8 instructions each), `lib` lines of the shared C library,
    /// `stack` lines of its stack read and `stores` of them written.
    User { code: u64, lib: u64, stack: u64, stores: u64 },
    /// A system call of the running process: trap, entry, `path`.
    Syscall { path: Path },
    /// `bytes` copied from the running process's buffer, `at` bytes in,
    /// into kernel buffer `buffer` (a pipe's or a socket's), a word at a
    /// time.
    CopyIn {
        bytes: u64,
        buffer: u64,
        #[serde(default)]
        at: u64,
    },
    /// `bytes` copied from kernel buffer `buffer` to the running process's
    /// buffer, `at` bytes in.
    CopyOut {
        bytes: u64,
        buffer: u64,
        #[serde(default)]
        at: u64,
    },
    /// `parent` forks; the child takes role `child`.
    Fork { parent: usize, child: usize },
    /// `proc` executes a new image of `pages` pages.
    Exec { proc: usize, pages: u64 },
    /// `proc` exits (its parent's `wait` returns later, when it runs).
    Exit { proc: usize },
}

/// A program: its processes at the start, the steps of one operation, and
/// how many operations to warm up and to measure.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Program {
    pub name: String,
    pub processes: usize,
    pub op: Vec<Step>,
    pub warmup: u64,
    pub ops: u64,
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

/// Runs `program` on `preset` under `scheme`.
pub fn run(preset: &SwitchPreset, scheme: Scheme, program: &Program) -> Result<Measured, String> {
    let mut k = Kernel::new(preset, scheme, Skip::Nothing)?;
    let mut roles: Vec<Option<usize>> = vec![None; program.processes.max(1)];
    for r in roles.iter_mut() {
        *r = Some(k.spawn());
    }
    let all: Vec<usize> = roles.iter().flatten().copied().collect();
    k.share(Region { base: VirtAddr(LIBC), pages: LIBC_PAGES, writable: false }, &all)?;
    let first = roles[0].ok_or("a program needs a process")?;
    k.switch_to(first)?;
    for _ in 0..program.warmup {
        one_op(&mut k, &mut roles, &program.op)?;
    }
    let start_cycles = k.cycles();
    let start_counts = k.counts();
    let start: Vec<u64> = Mechanism::ALL.iter().map(|&m| k.cycles_of(m)).collect();
    for _ in 0..program.ops {
        one_op(&mut k, &mut roles, &program.op)?;
    }
    let cycles = k.cycles() - start_cycles;
    let ops = program.ops.max(1);
    let by_mechanism = Mechanism::ALL
        .iter()
        .zip(&start)
        .map(|(&m, &s)| (m.name().to_string(), k.cycles_of(m) - s))
        .filter(|(_, c)| *c > 0)
        .collect();
    Ok(Measured {
        program: program.name.clone(),
        scheme: scheme.name().to_string(),
        preset: preset.name.clone(),
        ops: program.ops,
        cycles,
        cycles_per_op: cycles as f64 / ops as f64,
        us_per_op: cycles as f64 / ops as f64 * preset.cycle_ns() / 1000.0,
        by_mechanism,
        counts: counts_minus(k.counts(), start_counts),
        violations: k.violations().len(),
    })
}

fn role(roles: &[Option<usize>], r: usize) -> Result<usize, String> {
    roles.get(r).copied().flatten().ok_or_else(|| format!("no process in role {r}"))
}

fn one_op(k: &mut Kernel, roles: &mut Vec<Option<usize>>, op: &[Step]) -> Result<(), String> {
    for step in op {
        match *step {
            Step::Run { proc } => {
                let p = role(roles, proc)?;
                if k.running() != Some(p) {
                    k.switch_to(p)?;
                }
            }
            Step::User { code, lib, stack, stores } => {
                for i in 0..code {
                    k.user(RefKind::Ifetch, VirtAddr(TEXT + i * 32), 4)?;
                }
                for i in 0..lib {
                    k.user(RefKind::Ifetch, VirtAddr(LIBC + i * 32), 4)?;
                }
                for i in 0..stack {
                    k.user(RefKind::Read, VirtAddr(STACK + i * 32), 4)?;
                }
                for i in 0..stores.min(stack.max(1)) {
                    k.user(RefKind::Write, VirtAddr(STACK + i * 32), 4)?;
                }
                k.user_instructions((code + lib) * 8);
            }
            Step::Syscall { path } => {
                let p = k.preset().path.clone();
                let (offset, n) = match path {
                    Path::PipeRw => (0x2_0000, &p.pipe_rw),
                    Path::SocketRw => (0x2_4000, &p.socket_rw),
                    Path::FcntlLock => (0x2_8000, &p.fcntl_lock),
                    Path::Fault => (0x2_c000, &p.fault),
                };
                k.syscall(offset, n.value.max(0.0).round() as u64);
            }
            Step::CopyIn { bytes, buffer, at } => {
                k.copy(VirtAddr(USER_BUFFER + at), VirtAddr(BUFFERS + buffer * 0x1_0000), bytes, true)?
            }
            Step::CopyOut { bytes, buffer, at } => {
                k.copy(VirtAddr(USER_BUFFER + at), VirtAddr(BUFFERS + buffer * 0x1_0000), bytes, false)?
            }
            Step::Fork { parent, child } => {
                let c = k.fork(role(roles, parent)?)?;
                if roles.len() <= child {
                    roles.resize(child + 1, None);
                }
                roles[child] = Some(c);
            }
            Step::Exec { proc, pages } => k.exec(role(roles, proc)?, pages)?,
            Step::Exit { proc } => {
                let p = role(roles, proc)?;
                k.exit(p)?;
                roles[proc] = None;
            }
        }
    }
    Ok(())
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
