//! What the simulated machine counts, and what a count costs.
//!
//! Every VM primitive runs as instructions and data references through the
//! simulated caches; the run produces [`Counters`], which do not depend on
//! any cost parameter. Time is the dot product of the counters with the
//! per-event cycle costs of a [`CostModel`] — linear on purpose, so the S2
//! calibration is a non-negative least-squares fit of the counters of the
//! calibration primitives against the paper's times (no simulation in the
//! fit loop) and a prediction is counters times fitted costs.
//!
//! Cost parameters and kernel path lengths are data in `presets/os/*.toml`,
//! each with its source.

use std::collections::BTreeMap;
use std::ops::{AddAssign, Sub};

use serde::{Deserialize, Serialize};

/// Events of one run or one measured region.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counters {
    /// Instructions executed (including the cache-control ones).
    pub instructions: u64,
    /// Cache-control instructions (flush/purge of one line: `fdc`, `pdc`).
    pub cache_ops: u64,
    /// Top-level data-cache line fills from memory.
    pub misses: u64,
    /// Dirty lines written back (evictions and flushes).
    pub writebacks: u64,
    /// References to uncached pages (each goes to memory).
    pub uncached: u64,
    /// Traps taken (system calls, page faults).
    pub traps: u64,
    /// Calls of the cache flush/purge routine (`pdcache`).
    pub flush_calls: u64,
    /// Calls of the byte-copy routine.
    pub copy_calls: u64,
    /// Data references issued (loads and stores, cached or not).
    pub references: u64,
    /// TLB purge instructions (`pdtlb`) issued, one per translation unloaded
    /// or re-protected.
    pub tlb_purges: u64,
    /// Of those, the purges that found an entry in the simulated TLB.
    pub tlb_purge_hits: u64,
    /// User accesses that found their translation in the simulated TLB.
    pub tlb_hits: u64,
    /// User accesses that missed the TLB. Each runs the software refill
    /// handler (PA-RISC 1.0 has no hardware walker): `tlb_miss_handler`
    /// instructions plus the hash-chain walk as PTE references through the
    /// cache, so a miss costs what those instructions and references cost.
    pub tlb_misses: u64,
    /// PTE (hash-table entry) references while inserting/deleting.
    pub pte_refs: u64,
}

impl AddAssign for Counters {
    fn add_assign(&mut self, o: Self) {
        self.instructions += o.instructions;
        self.cache_ops += o.cache_ops;
        self.misses += o.misses;
        self.writebacks += o.writebacks;
        self.uncached += o.uncached;
        self.traps += o.traps;
        self.flush_calls += o.flush_calls;
        self.copy_calls += o.copy_calls;
        self.references += o.references;
        self.tlb_purges += o.tlb_purges;
        self.tlb_purge_hits += o.tlb_purge_hits;
        self.tlb_hits += o.tlb_hits;
        self.tlb_misses += o.tlb_misses;
        self.pte_refs += o.pte_refs;
    }
}

impl std::ops::Add for Counters {
    type Output = Counters;
    fn add(mut self, o: Self) -> Self {
        self += o;
        self
    }
}

impl Sub for Counters {
    type Output = Counters;
    fn sub(self, o: Self) -> Self {
        Counters {
            instructions: self.instructions - o.instructions,
            cache_ops: self.cache_ops - o.cache_ops,
            misses: self.misses - o.misses,
            writebacks: self.writebacks - o.writebacks,
            uncached: self.uncached - o.uncached,
            traps: self.traps - o.traps,
            flush_calls: self.flush_calls - o.flush_calls,
            copy_calls: self.copy_calls - o.copy_calls,
            references: self.references - o.references,
            tlb_purges: self.tlb_purges - o.tlb_purges,
            tlb_purge_hits: self.tlb_purge_hits - o.tlb_purge_hits,
            tlb_hits: self.tlb_hits - o.tlb_hits,
            tlb_misses: self.tlb_misses - o.tlb_misses,
            pte_refs: self.pte_refs - o.pte_refs,
        }
    }
}

/// The cycle-cost parameters, in the order of [`Counters::cost_vector`].
pub const COST_KEYS: [&str; 8] =
    ["cpi", "cache_op", "miss", "writeback", "uncached", "trap", "flush_call", "copy_call"];

impl Counters {
    /// The counts each cost parameter multiplies, in [`COST_KEYS`] order.
    pub fn cost_vector(&self) -> [u64; 8] {
        [
            self.instructions,
            self.cache_ops,
            self.misses,
            self.writebacks,
            self.uncached,
            self.traps,
            self.flush_calls,
            self.copy_calls,
        ]
    }
}

/// The kernel routines a cost model gives instruction counts (path
/// lengths) for, its `[path]` table; one closed set, so a routine's count
/// cannot be asked for under a misspelt name. `FlushLinesPerIteration` is
/// the one that is not an instruction count: the lines one iteration of the
/// flush loop flushes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Routine {
    FlushLoopIteration,
    FlushLinesPerIteration,
    CopyPerLine,
    ZeroPerLine,
    PteInsert,
    PteDelete,
    PteChainStep,
    TlbPurge,
    VmMapPage,
    VmUnmapPage,
    FaultHandler,
    PseudoFaultHandler,
    PageAlloc,
    PageFree,
    TlbMissHandler,
    CopyRecovery,
    IpcNull,
    IpcPerPage,
    UserAccess,
}

impl Routine {
    pub const ALL: [Routine; 19] = [
        Routine::FlushLoopIteration,
        Routine::FlushLinesPerIteration,
        Routine::CopyPerLine,
        Routine::ZeroPerLine,
        Routine::PteInsert,
        Routine::PteDelete,
        Routine::PteChainStep,
        Routine::TlbPurge,
        Routine::VmMapPage,
        Routine::VmUnmapPage,
        Routine::FaultHandler,
        Routine::PseudoFaultHandler,
        Routine::PageAlloc,
        Routine::PageFree,
        Routine::TlbMissHandler,
        Routine::CopyRecovery,
        Routine::IpcNull,
        Routine::IpcPerPage,
        Routine::UserAccess,
    ];

    /// Its key in the `[path]` table of a cost preset.
    pub fn key(self) -> &'static str {
        match self {
            Routine::FlushLoopIteration => "flush_loop_iteration",
            Routine::FlushLinesPerIteration => "flush_lines_per_iteration",
            Routine::CopyPerLine => "copy_per_line",
            Routine::ZeroPerLine => "zero_per_line",
            Routine::PteInsert => "pte_insert",
            Routine::PteDelete => "pte_delete",
            Routine::PteChainStep => "pte_chain_step",
            Routine::TlbPurge => "tlb_purge",
            Routine::VmMapPage => "vm_map_page",
            Routine::VmUnmapPage => "vm_unmap_page",
            Routine::FaultHandler => "fault_handler",
            Routine::PseudoFaultHandler => "pseudo_fault_handler",
            Routine::PageAlloc => "page_alloc",
            Routine::PageFree => "page_free",
            Routine::TlbMissHandler => "tlb_miss_handler",
            Routine::CopyRecovery => "copy_recovery",
            Routine::IpcNull => "ipc_null",
            Routine::IpcPerPage => "ipc_per_page",
            Routine::UserAccess => "user_access",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Param {
    pub value: f64,
    /// Where the number comes from.
    pub source: String,
    /// Whether `vmlab reproduce s2` fits it (the value here is then the
    /// committed result of that fit).
    #[serde(default)]
    pub fitted: bool,
}

/// One machine's OS cost parameters (`presets/os/<machine>.toml`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CostModel {
    pub machine: String,
    pub source: String,
    /// Nanoseconds per cycle.
    pub cycle_ns: Param,
    /// Cycle costs, keys [`COST_KEYS`].
    pub cost: BTreeMap<String, Param>,
    /// Instruction counts, keys [`Routine::key`].
    pub path: BTreeMap<String, Param>,
    /// The data TLB the user accesses go through (absent: no TLB simulated).
    #[serde(default)]
    pub tlb: Option<TlbPreset>,
}

/// The simulated data TLB: fully associative, `entries` entries.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TlbPreset {
    pub entries: u32,
    #[serde(default = "lru")]
    pub replacement: vmlab_mmu::TlbReplacement,
    /// Where the size comes from.
    pub source: String,
}

fn lru() -> vmlab_mmu::TlbReplacement {
    vmlab_mmu::TlbReplacement::Lru
}

impl TlbPreset {
    pub fn config(&self, page: u64) -> vmlab_mmu::TlbConfig {
        let mut c = vmlab_mmu::TlbConfig::fully_associative(self.entries, 0);
        c.replacement = self.replacement;
        c.page_sizes = vec![page];
        c.source = self.source.clone();
        c
    }
}

const HP834: &str = include_str!("../../../presets/os/hp9000-834.toml");

impl CostModel {
    /// A shipped model by machine name, or a `.toml` path.
    pub fn load(name_or_path: &str) -> Result<Self, String> {
        let (origin, text) = match name_or_path {
            "hp9000-834" => ("presets/os/hp9000-834.toml".to_string(), HP834.to_string()),
            p if p.ends_with(".toml") => {
                (p.to_string(), std::fs::read_to_string(p).map_err(|e| format!("{p}: cannot read: {e}"))?)
            }
            other => {
                return Err(format!("no OS cost preset named {other:?}; shipped: hp9000-834, or give a .toml path"))
            }
        };
        Self::parse(&origin, &text)
    }

    pub fn parse(origin: &str, text: &str) -> Result<Self, String> {
        let m: CostModel = toml::from_str(text).map_err(|e| {
            let line = e.span().map(|s| text[..s.start].matches('\n').count() + 1);
            match line {
                Some(l) => format!("{origin}:{l}: {}", e.message()),
                None => format!("{origin}: {}", e.message()),
            }
        })?;
        for k in COST_KEYS {
            if !m.cost.contains_key(k) {
                return Err(format!("{origin}: [cost] lacks {k:?}; needed: {}", COST_KEYS.join(", ")));
            }
        }
        let path_keys: Vec<&str> = Routine::ALL.iter().map(|r| r.key()).collect();
        for k in &path_keys {
            if !m.path.contains_key(*k) {
                return Err(format!("{origin}: [path] lacks {k:?}; needed: {}", path_keys.join(", ")));
            }
        }
        for k in m.cost.keys().chain(m.path.keys()) {
            if !COST_KEYS.contains(&k.as_str()) && !path_keys.contains(&k.as_str()) {
                return Err(format!("{origin}: unknown parameter {k:?}"));
            }
        }
        for (k, p) in m.cost.iter().chain(m.path.iter()) {
            if !p.value.is_finite() || p.value < 0.0 {
                return Err(format!("{origin}: {k} = {} must be a finite number >= 0", p.value));
            }
            if p.source.trim().is_empty() {
                return Err(format!("{origin}: {k} has no source"));
            }
        }
        if let Some(t) = &m.tlb {
            if t.entries == 0 || t.source.trim().is_empty() {
                return Err(format!("{origin}: [tlb] needs entries >= 1 and a source"));
            }
        }
        if m.path_of(Routine::FlushLinesPerIteration) == 0 {
            return Err(format!("{origin}: flush_lines_per_iteration must be >= 1"));
        }
        Ok(m)
    }

    /// A routine's instruction count (validated present in `parse`).
    pub fn path_of(&self, r: Routine) -> u64 {
        self.path.get(r.key()).map_or(0, |p| p.value.round() as u64)
    }

    pub fn cost_of(&self, key: &str) -> f64 {
        self.cost.get(key).map_or(0.0, |p| p.value)
    }

    pub fn cycles(&self, c: &Counters) -> f64 {
        COST_KEYS.iter().zip(c.cost_vector()).map(|(k, n)| self.cost_of(k) * n as f64).sum()
    }

    pub fn micros(&self, c: &Counters) -> f64 {
        self.cycles(c) * self.cycle_ns.value / 1000.0
    }
}
