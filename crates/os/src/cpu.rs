//! The simulated CPU as the OS model sees it: data references through the
//! machine's cache hierarchy (or around it, for uncached pages), cache-line
//! flushes and purges, and the counters they produce. Every kernel routine
//! runs here as instructions plus references, so its cost follows from the
//! cache state it meets.
//!
//! Scope: data references go through the top-level D-cache and everything
//! below it; instruction fetches are counted as instructions, not simulated
//! (the kernel's loops are a few lines of code, resident in the I-cache).
//! The oracle treats every level below the top one as "memory", which is
//! exact when those levels are physically indexed and tagged (checked).

use std::collections::BTreeMap;

use vmlab_addr::layout::OS_KERNEL_SPACE;
use vmlab_addr::{Asid, CpuId, PageSize, PhysAddr, VirtAddr};
use vmlab_cache::{CacheConfig, Indexing, LineRef, LineState};
use vmlab_machine::{LevelConfig, MachineConfig, Mechanism, MissClasses, Request, System};
use vmlab_mmu::{Slot, Switch, Switched, TlbEntry};

use crate::cost::Counters;
use crate::oracle::{Access, Consistency, Oracle, Violation};

/// Where a reference lands: the virtual address the code uses, the
/// physical address it translates to, and the space the cache tags the
/// line with (the translation's own space, or a global segment's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Place {
    pub va: VirtAddr,
    pub pa: PhysAddr,
    pub space: Asid,
}

impl Place {
    /// The kernel's absolute (physical) access to `pa`: virtual address =
    /// physical address, in the kernel's cache space.
    pub fn physical(pa: PhysAddr) -> Self {
        Self { va: VirtAddr(pa.0), pa, space: OS_KERNEL_SPACE }
    }

    /// The place `bytes` further on (same page, so the same translation).
    pub fn plus(self, bytes: u64) -> Self {
        Self { va: VirtAddr(self.va.0 + bytes), pa: PhysAddr(self.pa.0 + bytes), ..self }
    }
}

/// Where kernel or user code reads or writes, and whether the page is
/// cached there (an uncached page's references go around the caches).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    pub at: Place,
    pub cached: bool,
}

impl Span {
    /// The span `bytes` further on (same page).
    pub fn plus(self, bytes: u64) -> Self {
        Self { at: self.at.plus(bytes), ..self }
    }
}

/// A data reference: a load or a store. The cache's own type, so the OS
/// passes it straight down.
pub use vmlab_cache::DataRef;

/// What a flush does with a dirty line: PA-RISC `fdc` writes it back,
/// `pdc` (a purge) drops it. Both invalidate the line. The cache's own
/// type, so the OS passes it straight down.
pub use vmlab_cache::Flush;

/// The OS model's CPU: CPU 0 of a one-CPU `System` of the machine crate
/// (its caches, its TLB, its ledger, whose running mechanism is the one
/// counters are attributed to), with what the OS model adds around it: the
/// cost model's counters per mechanism and the consistency oracle.
#[derive(Debug)]
pub struct Cpu {
    system: System,
    line: u64,
    indexing: Indexing,
    counters: Counters,
    oracle: Option<Oracle>,
    /// Counters when the running mechanism last changed.
    mark: Counters,
    /// Counters per mechanism, up to `mark`.
    by_mechanism: BTreeMap<Mechanism, Counters>,
    /// Lines found by [`Cpu::flush_line`]: kept apart from [`Counters`] so
    /// the cost model's fit and its golden counters are untouched.
    flushed: FlushedLines,
}

/// Cache-control instructions by the state of the line they found (S2's
/// policy comparison: a purge of an empty line costs an instruction, a
/// flush of a dirty one also a write-back).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct FlushedLines {
    pub empty: u64,
    pub clean: u64,
    pub dirty: u64,
}

/// The one CPU the OS model runs on.
const CPU: CpuId = CpuId(0);

/// What a trace's context switch does to the OS model's CPU
/// (`vmlab_mmu::switch`): nothing. The model flushes what its consistency
/// policy says (policy.rs), where the hat says; and on the machines of S2
/// and S4 every line already names its space (PA-RISC space ids in
/// virtual tags, or physical tags) and every TLB entry its space, so
/// `Switch::Untagged` would keep everything too.
const SWITCH: Switch = Switch::Keep;

impl Cpu {
    /// A CPU over `machine`'s caches; `oracle` turns the consistency oracle on
    /// (labelled with `policy` in its reports).
    pub fn new(machine: &MachineConfig, consistency: Consistency, policy: &str) -> Result<Self, String> {
        let levels = machine.levels().map_err(|e| format!("machine {}: {e}", machine.name))?;
        let system = System::new(1, &levels, &[], MissClasses::Unsorted)
            .map_err(|e| format!("machine {}: {e}", machine.name))?;
        let top = top_data_config(&levels[0]).clone();
        for l in levels.iter().skip(1) {
            let below = match l {
                LevelConfig::Unified { cache, .. } => vec![cache],
                LevelConfig::Split { i, d, .. } => vec![i, d],
            };
            if consistency == Consistency::Checked && below.iter().any(|c| c.indexing != Indexing::Pipt) {
                return Err(format!(
                    "machine {}: the consistency oracle needs every level below the first to be physically indexed (pipt)",
                    machine.name
                ));
            }
        }
        let oracle = match consistency {
            Consistency::Checked => Some(Oracle::new(&top, policy)?),
            Consistency::Unchecked => None,
        };
        Ok(Self {
            system,
            line: top.line.0,
            indexing: top.indexing,
            counters: Counters::default(),
            oracle,
            mark: Counters::default(),
            by_mechanism: BTreeMap::new(),
            flushed: FlushedLines::default(),
        })
    }

    /// Starts attributing counters to mechanism `m` (a copy loop, a flush
    /// loop, a PTE update, a fault entry ...) and returns the one it
    /// interrupts, to hand back to [`Cpu::leave`]. Nested mechanisms count
    /// for the innermost, so the mechanisms partition the counters exactly:
    /// their sum is always [`Cpu::counters`]. This is how S2 explains a
    /// predicted figure by what it is made of. The running mechanism is the
    /// machine CPU's (`Ledger::enter`), so its own tallies split the same way.
    pub fn enter(&mut self, m: Mechanism) -> Mechanism {
        self.settle();
        self.system.cpu_mut(CPU).ledger_mut().enter(m)
    }

    /// Ends the mechanism started by the [`Cpu::enter`] that returned `prev`.
    pub fn leave(&mut self, prev: Mechanism) {
        self.settle();
        self.system.cpu_mut(CPU).ledger_mut().leave(prev);
    }

    fn settle(&mut self) {
        let d = self.counters - self.mark;
        if d != Counters::default() {
            let now = self.system.cpu(CPU).ledger().now();
            *self.by_mechanism.entry(now).or_default() += d;
            self.mark = self.counters;
        }
    }

    /// Counters so far, by the name of each mechanism (`Mechanism::name`);
    /// they sum to [`Cpu::counters`].
    pub fn components(&mut self) -> BTreeMap<String, Counters> {
        self.settle();
        self.by_mechanism.iter().map(|(m, v)| (m.name().to_string(), *v)).collect()
    }

    pub fn flushed_lines(&self) -> FlushedLines {
        self.flushed
    }

    pub fn line_bytes(&self) -> u64 {
        self.line
    }

    /// The configuration of the top data cache (the one the oracle mirrors
    /// and the hat colours pages for).
    pub fn top_data_config(&self) -> &CacheConfig {
        self.system.cpu(CPU).top_data().config()
    }

    pub fn indexing(&self) -> Indexing {
        self.indexing
    }

    pub fn counters(&self) -> Counters {
        self.counters
    }

    /// The one-CPU system the OS runs on.
    pub fn system(&self) -> &System {
        &self.system
    }

    pub fn violations(&self) -> &[Violation] {
        self.oracle.as_ref().map_or(&[], |o| o.violations())
    }

    pub fn oracle_checks(&self) -> u64 {
        self.oracle.as_ref().map_or(0, |o| o.checks())
    }

    /// Gives this CPU a data TLB (replacing any previous one, empty).
    pub fn set_tlb(&mut self, cfg: vmlab_mmu::TlbConfig) -> Result<(), String> {
        self.system.cpu_mut(CPU).set_tlb(cfg).map_err(|e| format!("tlb: {e}"))
    }

    pub fn tlb(&self) -> Option<&vmlab_mmu::Tlb> {
        self.system.cpu(CPU).tlb()
    }

    /// A user access's translation of page `va` of `asid` through the TLB:
    /// a miss refills the entry from the hat's frame at `pa` (pages of
    /// `page` bytes). Returns whether it hit; without a TLB, `true`.
    pub fn tlb_translate(&mut self, asid: Asid, va: VirtAddr, pa: PhysAddr, page: u64) -> Result<bool, String> {
        let Some(tlb) = self.system.cpu_mut(CPU).tlb_mut() else { return Ok(true) };
        if tlb.lookup(asid, va).is_some() {
            self.counters.tlb_hits += 1;
            return Ok(true);
        }
        self.counters.tlb_misses += 1;
        let page = PageSize::new(page).map_err(|e| format!("tlb: {e}"))?;
        tlb.insert(TlbEntry::new(asid, va, pa, page), Slot::Normal).map_err(|e| format!("tlb: {e}"))?;
        Ok(false)
    }

    /// One `pdtlb` of page `va` of `asid`: counts it, removes the entry if
    /// the TLB holds it, and returns whether it did.
    pub fn tlb_purge(&mut self, asid: Asid, va: VirtAddr) -> bool {
        self.counters.tlb_purges += 1;
        let found = self.system.cpu_mut(CPU).tlb_mut().is_some_and(|t| t.purge_page(asid, va));
        if found {
            self.counters.tlb_purge_hits += 1;
        }
        found
    }

    /// Instructions executed besides the references below.
    pub fn instructions(&mut self, n: u64) {
        self.counters.instructions += n;
    }

    pub fn count(&mut self, f: impl FnOnce(&mut Counters)) {
        f(&mut self.counters);
    }

    /// One data reference of `size` bytes at `span`; split at line
    /// boundaries. Counts the references, not the instruction that issues
    /// them.
    pub fn reference(&mut self, op: DataRef, span: Span, size: u64, origin: &str) {
        let line = self.line;
        let mut off = 0;
        while off < size {
            let piece = span.plus(off);
            let chunk = (line - (piece.at.va.0 & (line - 1))).min(size - off);
            self.piece(op, piece, chunk, origin);
            off += chunk;
        }
    }

    fn piece(&mut self, op: DataRef, span: Span, size: u64, origin: &str) {
        self.counters.references += 1;
        let (va, pa, asid) = (span.at.va, span.at.pa, span.at.space);
        let write = op == DataRef::Store;
        let access = || Access { asid, vaddr: va, paddr: pa, write, origin: origin.to_string() };
        if !span.cached {
            self.counters.uncached += 1;
            if let Some(o) = self.oracle.as_mut() {
                o.uncached(pa, size, &access());
            }
            return;
        }
        let req = if write { Request::write } else { Request::read };
        // Within one line of the top level (`reference` splits there), so
        // `last` is this access's outcome.
        let out = self.system.on(CPU).request(req(span.at.va, span.at.pa, asid, size)).last;
        if out.fetch {
            self.counters.misses += 1;
        }
        if out.writeback.is_some() {
            self.counters.writebacks += 1;
        }
        if let Some(o) = self.oracle.as_mut() {
            let a = access();
            if let Some(e) = out.writeback {
                o.write_back(&e, &a);
            }
            let r = LineRef { vaddr: va, paddr: pa, asid };
            o.cached(&r, size, &out, &a);
        }
    }

    /// Flushes or purges (`how`) the top-level D-cache line holding `at`:
    /// one cache-control instruction. Returns the state it found.
    pub fn flush_line(&mut self, at: Place, how: Flush, origin: &str) -> LineState {
        let r = LineRef { vaddr: at.va, paddr: at.pa, asid: at.space }.line_start(self.line);
        self.counters.cache_ops += 1;
        // The machine writes a dirty line flushed to the level below.
        let state = self.system.on(CPU).flush_line(at.va, at.pa, at.space, how);
        match state {
            LineState::Empty => self.flushed.empty += 1,
            LineState::Clean => self.flushed.clean += 1,
            LineState::Dirty(_) => self.flushed.dirty += 1,
        }
        let access =
            Access { asid: at.space, vaddr: r.vaddr, paddr: r.paddr, write: false, origin: origin.to_string() };
        match state {
            LineState::Dirty(e) if how == Flush::WriteBack => {
                self.counters.writebacks += 1;
                if let Some(o) = self.oracle.as_mut() {
                    o.write_back(&e, &access);
                }
            }
            LineState::Dirty(_) | LineState::Clean => {
                if let Some(o) = self.oracle.as_mut() {
                    o.dropped(&r);
                }
            }
            LineState::Empty => {}
        }
        state
    }

    /// Writes back and invalidates the whole top-level D-cache without
    /// counting (an experiment's set-up, outside any measured region).
    pub fn reset_cache(&mut self) {
        let resident = self.resident();
        self.system.on(CPU).flush_top_data(Flush::WriteBack);
        self.flushed_whole(resident, "reset");
    }

    /// A trace's context switch (`SWITCH`), uncounted as `reset_cache`.
    pub fn context_switch(&mut self) -> Switched {
        let flushing = SWITCH.flushes(self.system.cpu(CPU).cache_configs());
        let resident = if flushing { self.resident() } else { Vec::new() };
        let Ok(done) = SWITCH.apply(&mut self.system.on(CPU));
        self.flushed_whole(resident, "context switch");
        done
    }

    /// Tells the oracle that the top-level D-cache, which held `resident`,
    /// was written back and invalidated.
    fn flushed_whole(&mut self, resident: Vec<vmlab_cache::Evicted>, origin: &str) {
        if let Some(o) = self.oracle.as_mut() {
            let access = Access {
                asid: OS_KERNEL_SPACE,
                vaddr: VirtAddr(0),
                paddr: PhysAddr(0),
                write: false,
                origin: origin.into(),
            };
            for e in resident {
                if e.dirty {
                    o.write_back(&e, &access);
                } else {
                    o.dropped(&e.line_ref());
                }
            }
        }
    }

    /// The top-level D-cache lines resident now: (vaddr, paddr, asid, dirty).
    pub fn resident(&self) -> Vec<vmlab_cache::Evicted> {
        self.system.cpu(CPU).top_data().resident()
    }
}

/// The configuration of the cache a level serves data from.
fn top_data_config(level: &LevelConfig) -> &CacheConfig {
    match level {
        LevelConfig::Unified { cache, .. } => cache,
        LevelConfig::Split { d, .. } => d,
    }
}
