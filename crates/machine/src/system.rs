//! A system: N CPUs, each with its private levels, over shared levels and
//! memory. The trace replayer (`Machine`) is a one-CPU system with every
//! level private; S3's shoot-downs, S4's kernel copies and S5's context
//! switches run on the same type with more CPUs or a shared last level.
//!
//! ```text
//!   CPU 0: L1I L1D [L2]     CPU 1: L1I L1D [L2]     ...   (private: Cpu::levels)
//!              \________________ | ________________/
//!                         shared levels (L2, L3)            (System::shared)
//!                                 |
//!                              memory
//! ```
//!
//! A request from CPU c walks c's private levels and then the shared ones,
//! with the hierarchy's rules at every step (hierarchy.rs). Levels are
//! numbered along that path (`Reached::Level(0)` is c's L1).
//!
//! **No coherence protocol.** Nothing a CPU does reaches another CPU's
//! private levels: a line written on CPU 0 and held by CPU 1 stays in CPU
//! 1's caches as it was, stale, and CPU 0's copy stays dirty in CPU 0's
//! cache until CPU 0 evicts it or flushes it (`OnCpu::flush_line`). A load
//! on CPU 1 that misses its own levels is served by the first shared level
//! that holds the line, or memory; with no write-back from CPU 0 in
//! between, that copy is the line as it was before CPU 0's store. The
//! model tracks tags, not data: what a stale copy would return is the
//! consistency oracle's business (crates/os), and making copies agree is
//! the OS's (flushes, purges, shoot-downs), which is what those studies
//! measure. The shared levels are not inclusive either: evicting a line
//! there leaves the private copies alone.

use vmlab_addr::{Asid, CpuId, PhysAddr, VirtAddr};
use vmlab_cache::{Flush, FlushStats, GeometryError, LineRef, LineState, MissClasses, RefKind};

use crate::config::LevelConfig;
use crate::cpu::{Code, CodeFetch, Cpu};
use crate::hierarchy::{Backing, Hierarchy, MemoryStats, MAX_LEVELS};
use crate::ledger::Ledger;
use crate::request::{Reached, Request, Served};

/// N CPUs over shared levels and memory.
#[derive(Debug)]
pub struct System {
    cpus: Vec<Cpu>,
    /// The levels every CPU reaches below its own, and memory below them.
    shared: Hierarchy,
}

impl System {
    /// `cpus` CPUs, each with its own copy of `private` (top level first),
    /// over one copy of `shared` (may be empty: then each CPU's last level
    /// is over memory directly). A path holds at most `MAX_LEVELS` levels.
    pub fn new(
        cpus: usize,
        private: &[LevelConfig],
        shared: &[LevelConfig],
        classes: MissClasses,
    ) -> Result<Self, GeometryError> {
        if cpus == 0 || private.is_empty() {
            return Err(GeometryError("a system needs at least one CPU with at least one level of its own".into()));
        }
        if private.len() + shared.len() > MAX_LEVELS {
            return Err(GeometryError(format!(
                "{} private and {} shared levels: a path holds at most {MAX_LEVELS}",
                private.len(),
                shared.len()
            )));
        }
        let cpus = (0..cpus)
            .map(|c| Ok(Cpu::new(CpuId(c as u32), Hierarchy::new(private, classes)?)))
            .collect::<Result<_, GeometryError>>()?;
        Ok(Self { cpus, shared: Hierarchy::new(shared, classes)? })
    }

    pub fn cpu_count(&self) -> usize {
        self.cpus.len()
    }

    /// CPU `id`. Panics on a CPU this system does not have, as indexing
    /// does: ids come from `cpu_count`.
    pub fn cpu(&self, id: CpuId) -> &Cpu {
        &self.cpus[id.index()]
    }

    pub fn cpu_mut(&mut self, id: CpuId) -> &mut Cpu {
        &mut self.cpus[id.index()]
    }

    /// The shared levels (their `memory()` is what reached memory from them).
    pub fn shared(&self) -> &Hierarchy {
        &self.shared
    }

    /// What reached memory: from the shared levels, or, when there are
    /// none, from every CPU's last private level.
    pub fn memory(&self) -> MemoryStats {
        if self.shared.levels() > 0 {
            return *self.shared.memory();
        }
        let mut m = MemoryStats::default();
        for c in &self.cpus {
            let s = c.levels().memory();
            m.reads += s.reads;
            m.writes += s.writes;
            m.bytes_read += s.bytes_read;
            m.bytes_written += s.bytes_written;
        }
        m
    }

    /// CPU `id` with the shared levels lent to it, to issue work on.
    pub fn on(&mut self, id: CpuId) -> OnCpu<'_> {
        OnCpu { cpu: &mut self.cpus[id.index()], shared: &mut self.shared }
    }

    /// The private levels of CPU `id`, for the replayer's fast paths, which
    /// run only when there are no shared levels (`Machine` builds it so).
    pub(crate) fn levels_mut(&mut self, id: CpuId) -> &mut Hierarchy {
        self.cpus[id.index()].levels_mut()
    }
}

/// The shared levels as what lies under a CPU's last private level: what
/// the CPU sends down is counted as its traffic (`sent`) and requested of
/// the shared levels, and where it was served is numbered along the CPU's
/// path (`above` private levels first).
#[derive(Debug)]
pub(crate) struct Onward<'a> {
    sent: &'a mut MemoryStats,
    shared: &'a mut Hierarchy,
    above: usize,
}

impl Backing for Onward<'_> {
    fn request(&mut self, kind: RefKind, r: LineRef, bytes: u64) -> Reached {
        self.sent.count(kind, bytes);
        let req = Request::new(kind, r.vaddr, r.paddr, r.asid, bytes);
        self.shared.request(0, req).level.below(self.above)
    }
}

/// A CPU of a system with the shared levels lent to it (`System::on`):
/// what it loads, stores, fetches, runs and flushes, each counted in its
/// ledger for the mechanism running.
#[derive(Debug)]
pub struct OnCpu<'a> {
    cpu: &'a mut Cpu,
    shared: &'a mut Hierarchy,
}

impl OnCpu<'_> {
    pub fn cpu(&mut self) -> &mut Cpu {
        self.cpu
    }

    pub(crate) fn cpu_ref(&self) -> &Cpu {
        self.cpu
    }

    pub fn ledger(&mut self) -> &mut Ledger {
        self.cpu.ledger_mut()
    }

    /// `r` at this CPU's top level (`Hierarchy::request`), through its
    /// private levels and then the shared ones; counted in the ledger.
    pub fn request(&mut self, r: Request) -> Served {
        let shared = &mut *self.shared;
        let (levels, ledger) = self.cpu.parts();
        let served = if shared.levels() == 0 {
            levels.request(0, r)
        } else {
            let above = levels.levels();
            levels.over(|sent| Onward { sent, shared, above }).serve(0, r)
        };
        ledger.request(r.kind, served.level);
        served
    }

    pub fn load(&mut self, vaddr: VirtAddr, paddr: PhysAddr, space: Asid, size: u64) -> Served {
        self.request(Request::read(vaddr, paddr, space, size))
    }

    pub fn store(&mut self, vaddr: VirtAddr, paddr: PhysAddr, space: Asid, size: u64) -> Served {
        self.request(Request::write(vaddr, paddr, space, size))
    }

    pub fn fetch(&mut self, vaddr: VirtAddr, paddr: PhysAddr, space: Asid, size: u64) -> Served {
        self.request(Request::fetch(vaddr, paddr, space, size))
    }

    /// Runs `code`: its instructions counted for the running mechanism and,
    /// with `CodeFetch::ThroughCache`, each fetched in order through the
    /// instruction cache. Returns the deepest level a fetch was served at
    /// (`Level(0)` when none missed or none was fetched).
    pub fn run_code(&mut self, code: Code, fetch: CodeFetch) -> Reached {
        self.cpu.ledger_mut().instructions(code.instructions);
        let mut deepest = Reached::Level(0);
        if fetch == CodeFetch::ThroughCache {
            for (vaddr, paddr) in code.fetches() {
                deepest = deepest.max(self.fetch(vaddr, paddr, code.space, code.instruction_bytes).level);
            }
        }
        deepest
    }

    /// One cache-control instruction on the top data (or unified) cache:
    /// flushes (`Flush::WriteBack`: a dirty line is written to the level
    /// below) or purges (`Flush::Discard`) the line holding `vaddr`/`paddr`
    /// of `space`. Only this CPU's top level is touched: a copy in its
    /// lower levels, in the shared levels or in another CPU stays (a
    /// PA-RISC `fdc` on one level; a study that wants every copy flushes
    /// each). Returns the state the line was found in.
    pub fn flush_line(&mut self, vaddr: VirtAddr, paddr: PhysAddr, space: Asid, how: Flush) -> LineState {
        let r = LineRef { vaddr, paddr, asid: space };
        let data = self.cpu.top_data_index();
        let shared = &mut *self.shared;
        let (levels, ledger) = self.cpu.parts();
        let state = if shared.levels() == 0 {
            levels.flush_line_state(0, data, r, how)
        } else {
            let above = levels.levels();
            levels.over(|sent| Onward { sent, shared, above }).flush_line(0, data, r, how)
        };
        // Level 0 always exists (`System::new`), so there is a state.
        let state = state.unwrap_or(LineState::Empty);
        ledger.cache_op(matches!(state, LineState::Dirty(_)) && how == Flush::WriteBack);
        state
    }

    /// Flushes or purges every line of this CPU's top data (or unified)
    /// cache, dirty lines written to the level below (a whole-cache flush:
    /// an OS's set-up between measured regions). Not counted in the ledger,
    /// as `flush_private`.
    pub fn flush_top_data(&mut self, how: Flush) -> FlushStats {
        let data = self.cpu.top_data_index();
        let shared = &mut *self.shared;
        let levels = self.cpu.levels_mut();
        let stats = if shared.levels() == 0 {
            levels.flush_cache(0, data, how)
        } else {
            let above = levels.levels();
            levels.over(|sent| Onward { sent, shared, above }).flush_cache(0, data, how)
        };
        // Level 0 always exists (`System::new`).
        stats.unwrap_or_default()
    }

    /// Flushes or purges every private level of this CPU, top-down, dirty
    /// lines written into the level below (the shared levels under the
    /// last). Not a cache-control instruction of the ledger: a set-up or a
    /// whole-cache operation a study counts its own way.
    pub fn flush_private(&mut self, how: Flush) -> FlushStats {
        let shared = &mut *self.shared;
        let levels = self.cpu.levels_mut();
        if shared.levels() == 0 {
            levels.flush_all(how)
        } else {
            let above = levels.levels();
            levels.over(|sent| Onward { sent, shared, above }).flush_all(how)
        }
    }
}
