//! What a copy costs on one CPU: each instruction of a stream issued in
//! order, each memory instruction's references sent through the CPU's
//! caches (`OnCpu::load`/`store`), and cycles charged from what they did.
//!
//! | event | cycles | source |
//! |---|---|---|
//! | ALU or branch instruction | `alu_cycles`, or 0 when it pairs with the instruction before it (two integer units) or issues in a store's second cache cycle (`store_shadow`) | `presets/cpu/` |
//! | load or store that hits | `hit_cycles` + one per extra 8-byte beat (`data_path_bytes`) | fitted on memcpy hot-hot |
//! | line missing from the cache | + `miss_cycles` (load or store: the caches write-allocate) | fitted on memcpy clean-clean |
//! | dirty victim | + line / `data_path_bytes` cycles to move it out; memory then stays busy `writeback_busy_misses` x `miss_cycles`, and a miss meanwhile waits | footnote 3; assumption |
//! | `fstq` where it is emulated | + `trap_cycles` + `emulation_instructions` x `alu_cycles`, then two double-word stores | footnote 4, section 4.2; assumptions |
//!
//! Store cache hints (`,bc`) change nothing here: the 720 does not
//! implement them and the 755 and 712 run the seed's benchmarks in user
//! mode, where (section 4.2's explanation) the line must be read or zeroed
//! anyway; a hinted store is counted (`Counts::hinted_stores`) and costs
//! what a store costs. Instruction fetches are counted, not sent through
//! the caches: the loops are a few lines, resident after the first of the
//! paper's twenty copies a run.

use serde::{Deserialize, Serialize};
use vmlab_addr::{Asid, PhysAddr, VirtAddr};
use vmlab_machine::{Mechanism, OnCpu, Served};

use crate::routine::{Class, Instr, Mnemonic};

/// How a CPU executes `fstq` (seed 004 footnote 4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum QuadStore {
    /// In hardware: one store of two beats.
    Native,
    /// A trap into the FP emulation library, which stores two double words.
    Emulated,
}

/// A CPU's timing facts (`presets/cpu/*.toml`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CpuTiming {
    pub name: String,
    /// The cache preset of the machine.
    pub machine: String,
    pub description: String,
    pub source: String,
    pub clock_mhz: f64,
    pub integer_units: u32,
    pub store_shadow: bool,
    pub data_path_bytes: u64,
    pub alu_cycles: f64,
    pub hit_cycles: f64,
    pub miss_cycles: f64,
    pub writeback_busy_misses: f64,
    pub quad_store: QuadStore,
    pub trap_cycles: f64,
    pub emulation_instructions: u64,
}

/// The shipped CPU timing presets: (name, TOML text).
pub const CPU_PRESETS: [(&str, &str); 3] = [
    ("hp9000-720", include_str!("../../../presets/cpu/hp9000-720.toml")),
    ("hp9000-755", include_str!("../../../presets/cpu/hp9000-755.toml")),
    ("hp9000-712", include_str!("../../../presets/cpu/hp9000-712.toml")),
];

impl CpuTiming {
    /// A shipped CPU preset by name, or a `.toml` file.
    pub fn load(name_or_path: &str) -> Result<Self, String> {
        let (origin, text) = match CPU_PRESETS.iter().find(|(n, _)| *n == name_or_path) {
            Some((n, t)) => (format!("presets/cpu/{n}.toml"), (*t).to_string()),
            None if name_or_path.ends_with(".toml") => (
                name_or_path.to_string(),
                std::fs::read_to_string(name_or_path).map_err(|e| format!("{name_or_path}: cannot read: {e}"))?,
            ),
            None => {
                let names: Vec<&str> = CPU_PRESETS.iter().map(|(n, _)| *n).collect();
                return Err(format!(
                    "{name_or_path}: no such CPU timing preset; expected one of {} or a .toml path",
                    names.join(", ")
                ));
            }
        };
        let t: Self = toml::from_str(&text).map_err(|e| {
            let line = e.span().map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1);
            match line {
                Some(l) => format!("{origin}: line {l}: {}", e.message().trim()),
                None => format!("{origin}: {}", e.message().trim()),
            }
        })?;
        if t.integer_units == 0 || t.data_path_bytes == 0 || t.clock_mhz <= 0.0 {
            return Err(format!("{origin}: integer_units, data_path_bytes and clock_mhz must be > 0"));
        }
        Ok(t)
    }

    /// Beats of an access of `bytes` over the data path (at least one).
    fn beats(&self, bytes: u64) -> u64 {
        bytes.div_ceil(self.data_path_bytes).max(1)
    }
}

/// What a stream did, counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    pub instructions: u64,
    pub alu: u64,
    /// ALU instructions that cost nothing: paired with the instruction
    /// before (two integer units) or in a store's second cycle.
    pub alu_hidden: u64,
    pub loads: u64,
    pub stores: u64,
    pub hinted_stores: u64,
    /// Line-sized references sent to the cache, and how they fared.
    pub references: u64,
    pub hits: u64,
    pub misses: u64,
    /// Misses that fetched their line from memory (all but whole-line stores).
    pub fetches: u64,
    pub dirty_victims: u64,
    /// Quad stores emulated by a trap.
    pub traps: u64,
}

impl std::ops::AddAssign for Counts {
    fn add_assign(&mut self, o: Self) {
        self.instructions += o.instructions;
        self.alu += o.alu;
        self.alu_hidden += o.alu_hidden;
        self.loads += o.loads;
        self.stores += o.stores;
        self.hinted_stores += o.hinted_stores;
        self.references += o.references;
        self.hits += o.hits;
        self.misses += o.misses;
        self.fetches += o.fetches;
        self.dirty_victims += o.dirty_victims;
        self.traps += o.traps;
    }
}

/// Cycles of a stream by what they were spent on; `total` is their sum.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Breakdown {
    /// ALU instructions that took a cycle.
    pub alu: f64,
    /// `hit_cycles` for every memory instruction (hit or miss).
    pub access: f64,
    /// Extra beats of accesses wider than the data path.
    pub beats: f64,
    /// `miss_cycles` for every line fetched.
    pub miss: f64,
    /// Moving dirty victims out of the cache.
    pub victim: f64,
    /// Misses waiting for memory still busy with a write-back.
    pub wait: f64,
    /// Emulation traps and their instructions.
    pub trap: f64,
    pub total: f64,
}

impl std::ops::AddAssign for Breakdown {
    fn add_assign(&mut self, o: Self) {
        self.alu += o.alu;
        self.access += o.access;
        self.beats += o.beats;
        self.miss += o.miss;
        self.victim += o.victim;
        self.wait += o.wait;
        self.trap += o.trap;
        self.total += o.total;
    }
}

/// Where the two buffers of a copy are: each side's address space, and its
/// virtual-to-physical translation (the experiment's page mapper).
pub trait Places {
    fn space(&self, side: crate::routine::Side) -> Asid;
    fn translate(&mut self, space: Asid, va: VirtAddr) -> PhysAddr;
}

/// One CPU's issue state while a stream runs.
#[derive(Debug)]
struct Issue {
    now: f64,
    /// Memory is busy with a write-back until then.
    memory_free: f64,
    /// The previous instruction can still pair with an ALU instruction.
    pair_open: bool,
    /// The previous instruction was a store whose second cycle is free.
    shadow_open: bool,
}

/// A stream being run: the CPU, its timing, where the buffers are, and
/// what has happened so far.
struct Execution<'r, 'c> {
    cpu: &'r mut OnCpu<'c>,
    timing: &'r CpuTiming,
    places: &'r mut dyn Places,
    line_bytes: u64,
    issue: Issue,
    counts: Counts,
    cycles: Breakdown,
}

/// Runs `stream` on `cpu` under `Mechanism::CopyLoop` with `timing`;
/// returns its counts and cycles. The caches keep what the stream left.
pub fn execute(
    cpu: &mut OnCpu<'_>,
    timing: &CpuTiming,
    stream: &[Instr],
    places: &mut dyn Places,
) -> (Counts, Breakdown) {
    let prev = cpu.ledger().enter(Mechanism::CopyLoop);
    let line_bytes = top_data_line(cpu);
    let mut x = Execution {
        cpu,
        timing,
        places,
        line_bytes,
        issue: Issue { now: 0.0, memory_free: 0.0, pair_open: false, shadow_open: false },
        counts: Counts::default(),
        cycles: Breakdown::default(),
    };
    for ins in stream {
        x.step(ins);
    }
    x.cpu.ledger().leave(prev);
    let mut b = x.cycles;
    b.total = b.alu + b.access + b.beats + b.miss + b.victim + b.wait + b.trap;
    (x.counts, b)
}

impl Execution<'_, '_> {
    fn step(&mut self, ins: &Instr) {
        let timing = self.timing;
        let dual = timing.integer_units > 1;
        self.counts.instructions += 1;
        let class = ins.mnemonic.class();
        let Some((side, va, size)) = ins.access.filter(|_| class != Class::Alu) else {
            self.counts.alu += 1;
            let st = &mut self.issue;
            if dual && st.pair_open {
                st.pair_open = false;
                self.counts.alu_hidden += 1;
            } else if timing.store_shadow && st.shadow_open {
                st.shadow_open = false;
                self.counts.alu_hidden += 1;
            } else {
                self.cycles.alu += timing.alu_cycles;
                st.now += timing.alu_cycles;
                st.pair_open = dual;
                st.shadow_open = false;
            }
            return;
        };
        let store = class == Class::Store;
        if store {
            self.counts.stores += 1;
            self.counts.hinted_stores += u64::from(ins.hint);
        } else {
            self.counts.loads += 1;
        }
        let space = self.places.space(side);
        if store && ins.mnemonic == Mnemonic::Fstq && timing.quad_store == QuadStore::Emulated {
            // The trap, then the emulation library's two fstd.
            self.counts.traps += 1;
            let prev = self.cpu.ledger().enter(Mechanism::FaultEntry);
            let t = timing.trap_cycles + timing.emulation_instructions as f64 * timing.alu_cycles;
            self.cycles.trap += t;
            self.issue.now += t;
            self.counts.instructions += timing.emulation_instructions;
            for half in 0..2 {
                self.access(VirtAddr(va.0 + half * 8), space, 8, store);
            }
            self.cpu.ledger().leave(prev);
        } else {
            self.access(va, space, size, store);
        }
        self.issue.pair_open = dual;
        self.issue.shadow_open = store && timing.store_shadow;
    }

    /// One memory instruction: its bytes split at line boundaries, each
    /// piece a request, charged by what it did.
    fn access(&mut self, va: VirtAddr, space: Asid, size: u64, store: bool) {
        let timing = self.timing;
        let line_bytes = self.line_bytes;
        let extra = (timing.beats(size) - 1) as f64;
        self.cycles.access += timing.hit_cycles;
        self.cycles.beats += extra;
        self.issue.now += timing.hit_cycles + extra;
        let mut at = va.0;
        let end = va.0 + size;
        while at < end {
            let piece = (line_bytes - at % line_bytes).min(end - at);
            let pa = self.places.translate(space, VirtAddr(at));
            let served: Served = if store {
                self.cpu.store(VirtAddr(at), pa, space, piece)
            } else {
                self.cpu.load(VirtAddr(at), pa, space, piece)
            };
            let (c, b, st) = (&mut self.counts, &mut self.cycles, &mut self.issue);
            c.references += 1;
            if served.last.hit {
                c.hits += 1;
            } else {
                c.misses += 1;
                // A store that writes the whole line fetches nothing
                // (docs/reference-semantics.md, Fetch): only 64-byte vector
                // stores on 32-byte lines do, never a PA-RISC routine.
                if served.last.fetch {
                    c.fetches += 1;
                    let wait = (st.memory_free - st.now).max(0.0);
                    b.wait += wait;
                    b.miss += timing.miss_cycles;
                    st.now += wait + timing.miss_cycles;
                }
                if served.last.writeback.is_some_and(|v| v.dirty) {
                    c.dirty_victims += 1;
                    let out = timing.beats(line_bytes) as f64;
                    b.victim += out;
                    st.now += out;
                    st.memory_free = st.now + timing.writeback_busy_misses * timing.miss_cycles;
                }
            }
            at += piece;
        }
    }
}

/// The line size of the CPU's top data (or unified) cache.
fn top_data_line(cpu: &mut OnCpu<'_>) -> u64 {
    let levels = cpu.cpu().levels();
    let data = usize::from(levels.caches_in(0) == 2);
    // Level 0 always exists in a `System` (`System::new` refuses none).
    levels.level_cache(0, data).map_or(1, |c| c.line_bytes())
}
