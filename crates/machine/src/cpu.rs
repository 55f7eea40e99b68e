//! One CPU of a `System`: its private cache levels (its L1s, and an L2 if
//! the system gives each CPU one), an optional TLB, and a ledger of what
//! it did by mechanism. The CPU's work is issued through
//! `System::on(id)` (`OnCpu`), which lends it the shared levels below its
//! own.
//!
//! Translation is not done here: whoever issues a reference (the trace
//! replayer's page mapper, a translation scheme, the OS model's hat) owns
//! the page table and hands both addresses in the `Request`. The TLB is
//! the CPU's so that a per-CPU TLB (S3's shoot-downs) has one home; its
//! refill policy stays with the scheme that uses it.

use vmlab_addr::{Asid, CpuId, PhysAddr, VirtAddr};
use vmlab_cache::{Cache, CacheConfig};
use vmlab_mmu::{Tlb, TlbConfig, TlbError};

use crate::hierarchy::Hierarchy;
use crate::ledger::Ledger;

/// A CPU: its private levels, its TLB, its ledger.
#[derive(Debug)]
pub struct Cpu {
    id: CpuId,
    levels: Hierarchy,
    tlb: Option<Tlb>,
    ledger: Ledger,
}

impl Cpu {
    pub(crate) fn new(id: CpuId, levels: Hierarchy) -> Self {
        Self { id, levels, tlb: None, ledger: Ledger::default() }
    }

    pub fn id(&self) -> CpuId {
        self.id
    }

    /// The CPU's private levels, top first (what left the last of them is
    /// its `memory()`: see `System::memory`).
    pub fn levels(&self) -> &Hierarchy {
        &self.levels
    }

    pub(crate) fn levels_mut(&mut self) -> &mut Hierarchy {
        &mut self.levels
    }

    /// The top data (or unified) cache: what a load or store reaches first
    /// and a cache-control instruction acts on.
    pub fn top_data(&self) -> &Cache {
        // `System::new` gives every CPU a top level, and a split level has
        // its data cache at index 1.
        match self.levels.level_cache(0, self.top_data_index()) {
            Some(c) => c,
            None => unreachable!("a CPU always has a top level"),
        }
    }

    /// Which cache of the top level serves data (`Hierarchy::caches_in`'s
    /// order: 1 for a split level, 0 for a unified one).
    pub(crate) fn top_data_index(&self) -> usize {
        usize::from(self.levels.caches_in(0) == 2)
    }

    /// The configuration of every cache of the private levels, top level
    /// first (I before D in a split level).
    pub fn cache_configs(&self) -> Vec<&CacheConfig> {
        let levels = &self.levels;
        (0..levels.levels())
            .flat_map(|l| (0..levels.caches_in(l)).filter_map(move |c| levels.level_cache(l, c)))
            .map(Cache::config)
            .collect()
    }

    pub fn ledger(&self) -> &Ledger {
        &self.ledger
    }

    pub fn ledger_mut(&mut self) -> &mut Ledger {
        &mut self.ledger
    }

    /// Gives this CPU a TLB (replacing any previous one, empty).
    pub fn set_tlb(&mut self, cfg: TlbConfig) -> Result<(), TlbError> {
        self.tlb = Some(Tlb::new(cfg)?);
        Ok(())
    }

    pub fn tlb(&self) -> Option<&Tlb> {
        self.tlb.as_ref()
    }

    pub fn tlb_mut(&mut self) -> Option<&mut Tlb> {
        self.tlb.as_mut()
    }

    /// Split borrows for `OnCpu`: the levels and the ledger at once.
    pub(crate) fn parts(&mut self) -> (&mut Hierarchy, &mut Ledger) {
        (&mut self.levels, &mut self.ledger)
    }
}

/// Straight-line code a CPU runs: `instructions` instructions of
/// `instruction_bytes` each from `start` in address space `space`, whose
/// physical copy starts at `phys` and is contiguous (kernel text and
/// handlers live in unmapped or wired, physically contiguous memory on
/// every machine of the seeds).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Code {
    pub start: VirtAddr,
    pub phys: PhysAddr,
    pub space: Asid,
    pub instructions: u64,
    pub instruction_bytes: u64,
}

impl Code {
    /// Each instruction's fetch, in order: its virtual and physical address
    /// (`instruction_bytes` each).
    pub fn fetches(&self) -> impl Iterator<Item = (VirtAddr, PhysAddr)> {
        let Code { start, phys, instruction_bytes, .. } = *self;
        (0..self.instructions).map(move |i| {
            let off = i * instruction_bytes;
            (VirtAddr(start.0 + off), PhysAddr(phys.0 + off))
        })
    }
}

/// Whether code's instructions are fetched through the CPU's instruction
/// cache (handler pollution, recursive misses: Jacob & Mudge) or only
/// counted (a study that assumes the code resident, as the OS model's
/// kernel loops of a few lines are).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CodeFetch {
    ThroughCache,
    Counted,
}
