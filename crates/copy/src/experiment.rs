//! One copy measured as seed 004 measures it, on a fresh one-CPU `System`
//! of the machine's caches: the two 4 KB buffers placed, each brought to
//! its cache temperature by real references, the routine's stream run and
//! timed (`timing::execute`).
//!
//! **Temperature** (seed 004 section 3.3). *Hot*: the buffer's lines are in
//! the cache (loaded). *Clean*: they are not, and the frames they map to
//! hold clean lines of another buffer (that buffer, one cache way further
//! on in the same space, is loaded). *Dirty*: likewise, but the other
//! buffer's lines are stored to. The source is set up first, then the
//! destination. That is the set-up of a one-level direct-mapped cache (the
//! HP 700s). One conflicting buffer evicts nothing from a set-associative
//! cache or a level below, so every other machine (`SetUp::Flushed`, the
//! host's) is set up as a benchmark on it is (`bench/copy_temps.c`): every
//! level flushed (`OnCpu::flush_private`, dirty lines written back), then a
//! filler region twice the largest level stored to when either side is
//! dirty, or else loaded when a side is clean, so every frame of every
//! level holds a dirty or a clean line of it (twice: page placement may be
//! random below the top level); then the hot sides loaded. In a
//! set-associative cache both buffers share every set, so a dirty side
//! dirties the other cold side's victims too: clean-dirty, dirty-clean and
//! dirty-dirty are set up alike there.
//!
//! **The paper's method and this one.** The paper times twenty copies in a
//! loop with the PA-RISC interval timer and keeps the lowest of ten runs,
//! to remove interference (context switches, other processes, timer
//! granularity). The model has no interference and is deterministic: one
//! set-up and one timed copy give the number the minimum estimates, so
//! each cell is one copy (`Case::repeat` > 1 times the last of several
//! back-to-back copies after one set-up, the paper's loop without its
//! re-set-up, for placements where the copy itself changes the temperature).
//!
//! **Placement.** `Apart` is the paper's: both buffers in one address
//! space, in cache frames that do not overlap (section 3.1, "known not to
//! conflict"). `SameColour` puts the destination one cache way after the
//! source in the same space, so every line of the one shares a frame with
//! a line of the other. `OtherSpace` puts the destination at the source's
//! virtual address in another space: without the space-id hash the two
//! would share frames; with it (Figure 2) they do not.

use serde::{Deserialize, Serialize};
use vmlab_addr::{Asid, CpuId, PhysAddr, VirtAddr};
use vmlab_cache::Assoc;
use vmlab_cache::RefKind;
use vmlab_machine::{preset, Flush, MachineConfig, Mechanism, MissClasses, PageMapper, Reached, System};

use crate::routine::{self, Side};
use crate::timing::{self, Breakdown, Counts, CpuTiming, Places};

/// A buffer's cache temperature before the copy (seed 004 section 3.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Temperature {
    Hot,
    Clean,
    Dirty,
}

impl Temperature {
    pub const ALL: [Temperature; 3] = [Temperature::Hot, Temperature::Clean, Temperature::Dirty];
}

/// Where the destination lies against the source (module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Placement {
    Apart,
    SameColour,
    OtherSpace,
}

impl Placement {}

/// One measurement.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    pub routine: String,
    pub src: Temperature,
    pub dst: Temperature,
    pub bytes: u64,
    /// Bytes the destination is moved from its page-aligned place (Tables
    /// 3-4 move it 0 to 4 bytes).
    pub dst_offset: u64,
    pub placement: Placement,
    /// Copies run back to back after the set-up; the last is timed.
    pub repeat: u32,
}

/// The user process's space id, and the other space of `OtherSpace`.
pub const USER_SPACE: Asid = Asid(1);
pub const OTHER_SPACE: Asid = Asid(2);
/// The source buffer's virtual address: page-aligned, cache index 0.
pub const SRC_VA: u64 = 0x0010_0000;
/// The destination of `Apart`: 8 KB on, so 4 KB buffers use disjoint frames
/// of any cache of 16 KB a way or more.
pub const APART: u64 = 0x2000;

/// What one case did and cost.
#[derive(Clone, Debug, Serialize)]
pub struct RunOutcome {
    pub case: Case,
    pub machine: String,
    pub counts: Counts,
    pub cycles: Breakdown,
    pub micros: f64,
    /// The CPU ledger's view of the timed copy (`CopyLoop` and its
    /// emulation traps' `FaultEntry`): references served in the top level
    /// and from memory. Equal to `counts.references - counts.fetches` and
    /// `counts.fetches` (a check that the timing saw what the caches did).
    pub ledger_top: u64,
    pub ledger_memory: u64,
}

/// The buffers' spaces and a first-touch page mapper for their frames.
#[derive(Debug)]
struct Buffers {
    src_space: Asid,
    dst_space: Asid,
    mapper: PageMapper,
    /// Bytes of a way of the top data cache, and of its line.
    way: u64,
    line: u64,
    /// The first translation that failed (memory too small for the set-up).
    failed: Option<String>,
}

impl Places for Buffers {
    fn space(&self, side: Side) -> Asid {
        match side {
            Side::Src => self.src_space,
            Side::Dst => self.dst_space,
        }
    }

    fn translate(&mut self, space: Asid, va: VirtAddr) -> PhysAddr {
        // The first failure is kept and `run` returns it; the frame 0
        // handed back meanwhile never reaches a result.
        self.mapper.translate(space, va).unwrap_or_else(|e| {
            self.failed.get_or_insert_with(|| e.to_string());
            PhysAddr(0)
        })
    }
}

/// Bytes of one way of the top data (or unified) cache: buffers that far
/// apart in one space share frames.
fn way_bytes(m: &MachineConfig) -> u64 {
    let c = m.l1d.as_ref().or(m.l1.as_ref());
    c.map_or(0, |c| match c.assoc {
        Assoc::Ways(w) => c.size.0 / u64::from(w.max(1)),
        Assoc::Full => c.size.0,
    })
}

/// Brings `bytes` at `va` of `space` to `t`, line by line, through CPU 0.
fn set_up(sys: &mut System, buf: &mut Buffers, (space, va, bytes): (Asid, u64, u64), t: Temperature) {
    let (way, line) = (buf.way, buf.line);
    let mut cpu = sys.on(CpuId(0));
    let first = va - va % line;
    let mut at = first;
    while at < va + bytes {
        let (addr, store) = match t {
            Temperature::Hot => (at, false),
            Temperature::Clean => (at + way, false),
            Temperature::Dirty => (at + way, true),
        };
        let pa = buf.translate(space, VirtAddr(addr));
        if store {
            cpu.store(VirtAddr(addr), pa, space, 1);
        } else {
            cpu.load(VirtAddr(addr), pa, space, 1);
        }
        at += line;
    }
}

/// How the buffers are brought to their temperatures (module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SetUp {
    /// One conflicting buffer per side: a one-level direct-mapped cache.
    Conflicting,
    /// Every level flushed, filled with dirty or clean lines, hot sides
    /// loaded.
    Flushed,
}

/// Where the filler of a dirty `SetUp::Flushed` lies: far from the buffers
/// in the source's space.
pub const FILLER_VA: u64 = 0x4000_0000;

/// Bytes of the largest data (or unified) cache of `levels`.
fn largest_data_cache(levels: &[vmlab_machine::LevelConfig]) -> u64 {
    levels
        .iter()
        .map(|l| match l {
            vmlab_machine::LevelConfig::Unified { cache, .. } => cache.size.0,
            vmlab_machine::LevelConfig::Split { d, .. } => d.size.0,
        })
        .max()
        .unwrap_or(0)
}

/// `SetUp::Flushed` of both sides through CPU 0.
fn set_up_flushed(sys: &mut System, buf: &mut Buffers, sides: [(Asid, u64, u64, Temperature); 2], filler: u64) {
    let line = buf.line;
    let mut cpu = sys.on(CpuId(0));
    cpu.flush_private(Flush::WriteBack);
    let dirty = sides.iter().any(|s| s.3 == Temperature::Dirty);
    if dirty || sides.iter().any(|s| s.3 == Temperature::Clean) {
        let mut at = FILLER_VA;
        while at < FILLER_VA + filler {
            let pa = buf.translate(USER_SPACE, VirtAddr(at));
            if dirty {
                cpu.store(VirtAddr(at), pa, USER_SPACE, 1);
            } else {
                cpu.load(VirtAddr(at), pa, USER_SPACE, 1);
            }
            at += line;
        }
    }
    for (space, va, bytes, t) in sides {
        if t != Temperature::Hot {
            continue;
        }
        let mut at = va - va % line;
        while at < va + bytes {
            let pa = buf.translate(space, VirtAddr(at));
            cpu.load(VirtAddr(at), pa, space, 1);
            at += line;
        }
    }
}

/// The machine of `timing` with `overrides` (`--set`-style).
pub fn machine(timing: &CpuTiming, overrides: &[String]) -> Result<MachineConfig, String> {
    preset::load(&timing.machine, overrides).map_err(|e| e.to_string())
}

/// Runs one case on `timing`'s machine (with `overrides`).
pub fn run(timing: &CpuTiming, overrides: &[String], case: &Case) -> Result<RunOutcome, String> {
    let m = machine(timing, overrides)?;
    let routine = routine::routine(&case.routine)?;
    let levels = m.levels()?;
    let mut sys = System::new(1, &levels, &[], MissClasses::Unsorted).map_err(|e| e.to_string())?;
    let way = way_bytes(&m);
    let line = m.l1d.as_ref().or(m.l1.as_ref()).map_or(32, |c| c.line.0);
    let (dst_space, dst_va) = match case.placement {
        Placement::Apart => (USER_SPACE, SRC_VA + APART),
        Placement::SameColour => (USER_SPACE, SRC_VA + way),
        Placement::OtherSpace => (OTHER_SPACE, SRC_VA),
    };
    let direct = m.l1d.as_ref().or(m.l1.as_ref()).is_some_and(|c| c.assoc == Assoc::Ways(1));
    let how = if direct && levels.len() == 1 { SetUp::Conflicting } else { SetUp::Flushed };
    // Apart buffers must not share frames: disjoint frames of a direct-mapped
    // way, or any two ways of a set-associative set.
    if case.placement == Placement::Apart && direct && way < APART + case.bytes + line {
        return Err(format!(
            "{}: a cache way of {way} bytes cannot hold two {}-byte buffers apart",
            m.name, case.bytes
        ));
    }
    let page = m.memory.page_size;
    let frames = m.memory.size.0 / page.bytes();
    let mut buf = Buffers {
        src_space: USER_SPACE,
        dst_space,
        mapper: PageMapper::new(page, frames, m.memory.allocation, m.colours(), m.memory.seed),
        way,
        line,
        failed: None,
    };
    let dst = dst_va + case.dst_offset;
    let stream = routine.stream(VirtAddr(SRC_VA), VirtAddr(dst), case.bytes)?;
    match how {
        SetUp::Conflicting => {
            set_up(&mut sys, &mut buf, (USER_SPACE, SRC_VA, case.bytes), case.src);
            set_up(&mut sys, &mut buf, (dst_space, dst, case.bytes), case.dst);
        }
        SetUp::Flushed => {
            let sides = [(USER_SPACE, SRC_VA, case.bytes, case.src), (dst_space, dst, case.bytes, case.dst)];
            set_up_flushed(&mut sys, &mut buf, sides, 2 * largest_data_cache(&levels));
        }
    }
    let mut last = None;
    for _ in 0..case.repeat.max(1) {
        let before = served(&sys);
        let (c, b) = timing::execute(&mut sys.on(CpuId(0)), timing, &stream, &mut buf);
        let after = served(&sys);
        last = Some((c, b, after.0 - before.0, after.1 - before.1));
    }
    if let Some(e) = buf.failed {
        return Err(format!("{}: the copy's buffers cannot be mapped: {e}", m.name));
    }
    let (counts, cycles, ledger_top, ledger_memory) = last.ok_or("no copy ran")?;
    Ok(RunOutcome {
        case: case.clone(),
        machine: m.name.clone(),
        counts,
        micros: cycles.total / timing.clock_mhz,
        cycles,
        ledger_top,
        ledger_memory,
    })
}

/// (served at the top level, served by memory) of CPU 0's copy loops and
/// their emulation traps so far.
fn served(sys: &System) -> (u64, u64) {
    let ledger = sys.cpu(CpuId(0)).ledger();
    let mut top = 0;
    let mut memory = 0;
    for m in [Mechanism::CopyLoop, Mechanism::FaultEntry] {
        let t = ledger.tally(m);
        for k in [RefKind::Read, RefKind::Write] {
            top += t.served_at(k, Reached::Level(0));
            memory += t.served_at(k, Reached::Memory);
        }
    }
    (top, memory)
}

/// The two fitted parameters of one machine, and what they were solved
/// from.
#[derive(Clone, Debug, Serialize)]
pub struct Fit {
    pub hit_cycles: f64,
    pub miss_cycles: f64,
    /// The calibration cells (paper cycles) the fit saw, and nothing else.
    pub hot_hot: f64,
    pub clean_clean: f64,
    /// memcpy hot-hot: memory instructions (each `hit_cycles`), and the
    /// cycles that do not depend on either parameter.
    pub hot_accesses: u64,
    pub hot_fixed: f64,
    /// memcpy clean-clean: lines fetched (each `miss_cycles`).
    pub clean_misses: u64,
}

/// The paper's aligned 4 KB memcpy at `src`-`dst`, as the fit runs it.
fn memcpy_case(src: Temperature, dst: Temperature) -> Case {
    Case { routine: "memcpy".into(), src, dst, bytes: 4096, dst_offset: 0, placement: Placement::Apart, repeat: 1 }
}

/// Solves `hit_cycles` from memcpy hot-hot (no misses: cycles are memory
/// instructions x hit_cycles plus ALU and beat cycles that do not depend on
/// it) and then `miss_cycles` from memcpy clean-clean (the same plus lines
/// fetched x miss_cycles: clean victims, so no write-back and no wait),
/// exactly. These two paper cells are the fit's only inputs.
pub fn fit(timing: &CpuTiming, hot_hot: f64, clean_clean: f64) -> Result<Fit, String> {
    let mut t = timing.clone();
    t.hit_cycles = 1.0;
    t.miss_cycles = 0.0;
    let hh = run(&t, &[], &memcpy_case(Temperature::Hot, Temperature::Hot))?;
    let accesses = hh.counts.loads + hh.counts.stores;
    if hh.counts.misses > 0 || accesses == 0 {
        return Err(format!("{}: memcpy hot-hot missed {} times; the fit needs none", timing.name, hh.counts.misses));
    }
    let fixed = hh.cycles.total - hh.cycles.access;
    t.hit_cycles = (hot_hot - fixed) / accesses as f64;
    t.miss_cycles = 1.0;
    let cc = run(&t, &[], &memcpy_case(Temperature::Clean, Temperature::Clean))?;
    if cc.counts.dirty_victims > 0 || cc.counts.fetches == 0 {
        return Err(format!(
            "{}: memcpy clean-clean wrote back {} lines; the fit needs none",
            timing.name, cc.counts.dirty_victims
        ));
    }
    let rest = cc.cycles.total - cc.cycles.miss;
    let miss = (clean_clean - rest) / cc.counts.fetches as f64;
    if !(t.hit_cycles > 0.0 && miss >= 0.0) {
        return Err(format!(
            "{}: the calibration cells give hit {:.3} and miss {miss:.3} cycles; both must be positive",
            timing.name, t.hit_cycles
        ));
    }
    Ok(Fit {
        hit_cycles: t.hit_cycles,
        miss_cycles: miss,
        hot_hot,
        clean_clean,
        hot_accesses: accesses,
        hot_fixed: fixed,
        clean_misses: cc.counts.fetches,
    })
}
