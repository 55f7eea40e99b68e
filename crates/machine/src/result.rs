//! What a run produces. Serialised whole (JSON for Python, tables from it).

use serde::{Deserialize, Serialize};
use vmlab_cache::{CacheConfig, CacheStats, Indexing};

use crate::compat::Compat;
use crate::config::MachineConfig;
use crate::hierarchy::MemoryStats;

/// Events read from the trace, by kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventCounts {
    pub ifetch: u64,
    pub load: u64,
    pub store: u64,
    pub modify: u64,
    pub context_switches: u64,
    pub flush_all: u64,
}

impl EventCounts {
    /// From the per-kind access counters every run keeps (ifetch, load,
    /// store, modify, in `AccessKind` order) and its marker counts.
    pub fn from_accesses(accesses: [u64; 4], context_switches: u64, flush_all: u64) -> Self {
        let [ifetch, load, store, modify] = accesses;
        Self { ifetch, load, store, modify, context_switches, flush_all }
    }

    pub fn references(&self) -> u64 {
        self.ifetch + self.load + self.store + self.modify
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LevelResult {
    pub name: String,
    pub indexing: Indexing,
    pub config: CacheConfig,
    pub stats: CacheStats,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunResult {
    pub machine: MachineConfig,
    /// The trace file (or "events" when fed directly).
    pub trace: String,
    pub events: EventCounts,
    /// Instruction fetch references: the denominator of per-instruction rates.
    pub instructions: u64,
    pub caches: Vec<LevelResult>,
    pub memory: MemoryStats,
    pub pages_mapped: u64,
    /// Whose counting rules made these numbers (`crate::compat`); left out
    /// for vmlab's own, so such results read as they always have.
    #[serde(default, skip_serializing_if = "Compat::is_vmlab")]
    pub compat: Compat,
    /// Instruction fetches a data-only machine (`MachineConfig::data_only`)
    /// counted in `events` but never simulated; left out when 0, so every
    /// other machine's results read as they always have.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub fetches_not_simulated: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl RunResult {
    pub fn cache(&self, name: &str) -> Option<&LevelResult> {
        self.caches.iter().find(|c| c.name == name)
    }

    /// A fixed-width text table: one row per cache and request kind.
    pub fn to_table(&self) -> String {
        use std::fmt::Write as _;
        let mut s = String::new();
        let _ = write!(
            s,
            "machine {}  trace {}  references {}  instructions {}",
            self.machine.name,
            self.trace,
            self.events.references(),
            self.instructions
        );
        if !self.compat.is_vmlab() {
            let _ = write!(s, "  compat {}", self.compat);
        }
        if self.fetches_not_simulated > 0 {
            let _ = write!(s, "  fetches not simulated {}", self.fetches_not_simulated);
        }
        s.push('\n');
        let _ = writeln!(
            s,
            "{:<5} {:<7} {:>12} {:>12} {:>9} {:>11} {:>11} {:>11}",
            "cache", "kind", "accesses", "misses", "miss%", "compulsory", "capacity", "conflict"
        );
        for c in &self.caches {
            for k in vmlab_cache::RefKind::ALL {
                let ks = c.stats.kind(k);
                if ks.accesses == 0 {
                    continue;
                }
                let pct = 100.0 * ks.misses as f64 / ks.accesses as f64;
                // Without classification the 3C columns are unknown, not zero.
                let class = |n: u64| if self.machine.stats.classify_misses { n.to_string() } else { "-".into() };
                let _ = writeln!(
                    s,
                    "{:<5} {:<7} {:>12} {:>12} {:>8.3}% {:>11} {:>11} {:>11}",
                    c.name,
                    k.name(),
                    ks.accesses,
                    ks.misses,
                    pct,
                    class(ks.compulsory),
                    class(ks.capacity),
                    class(ks.conflict)
                );
            }
            let _ = writeln!(
                s,
                "{:<5} fetches {}  writebacks {}  write-throughs {}  bytes in {}  bytes out {}",
                c.name,
                c.stats.fetches,
                c.stats.writebacks,
                c.stats.write_throughs,
                c.stats.bytes_in,
                c.stats.bytes_out
            );
        }
        let m = &self.memory;
        let _ = writeln!(
            s,
            "memory reads {} ({} B)  writes {} ({} B)  pages mapped {}",
            m.reads, m.bytes_read, m.writes, m.bytes_written, self.pages_mapped
        );
        s
    }
}
