//! The cache levels stacked into a hierarchy, and the rules that connect them
//! (written down in docs/reference-semantics.md):
//!
//! * a request is split into one access per line of the level it reaches;
//! * a miss fetches the line with a read of the whole line below (a write
//!   miss's fill is a `Read`; an instruction miss's fill stays `Ifetch`);
//! * a write not absorbed by a write-back line is passed down as a write;
//! * a dirty victim is written back as a whole-line write below;
//! * below the last level is memory, which only counts.

use serde::{Deserialize, Serialize};
use vmlab_cache::{Cache, Evicted, FlushStats, GeometryError, LineRef, LineState, Outcome, RefKind};

use crate::config::TierConfig;

/// What reaches memory below the last level.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemoryStats {
    pub reads: u64,
    pub writes: u64,
    pub bytes_read: u64,
    pub bytes_written: u64,
}

// Split tiers are the common case and there is one Tier per level, so the
// size difference between the variants costs nothing worth a Box.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub enum Tier {
    Unified(Cache),
    Split { i: Cache, d: Cache },
}

impl Tier {
    #[inline]
    fn serving(&mut self, kind: RefKind) -> &mut Cache {
        match self {
            Tier::Unified(c) => c,
            Tier::Split { i, d } => {
                if kind == RefKind::Ifetch {
                    i
                } else {
                    d
                }
            }
        }
    }
    fn caches_mut(&mut self) -> Vec<&mut Cache> {
        match self {
            Tier::Unified(c) => vec![c],
            Tier::Split { i, d } => vec![i, d],
        }
    }
}

/// A named cache in the hierarchy, for results.
#[derive(Debug)]
pub struct Hierarchy {
    tiers: Vec<Tier>,
    names: Vec<Vec<String>>,
    memory: MemoryStats,
}

impl Hierarchy {
    pub fn new(tiers: &[TierConfig], classify_misses: bool) -> Result<Self, GeometryError> {
        let mut built = Vec::new();
        let mut names = Vec::new();
        for t in tiers {
            match t {
                TierConfig::Unified { name, cache } => {
                    built.push(Tier::Unified(Cache::new(cache.clone(), classify_misses)?));
                    names.push(vec![name.clone()]);
                }
                TierConfig::Split { i_name, i, d_name, d } => {
                    built.push(Tier::Split {
                        i: Cache::new(i.clone(), classify_misses)?,
                        d: Cache::new(d.clone(), classify_misses)?,
                    });
                    names.push(vec![i_name.clone(), d_name.clone()]);
                }
            }
        }
        Ok(Self { tiers: built, names, memory: MemoryStats::default() })
    }

    pub fn memory(&self) -> &MemoryStats {
        &self.memory
    }

    /// Every cache with its name, top level first (I before D).
    pub fn caches(&self) -> Vec<(&str, &Cache)> {
        let mut v = Vec::new();
        for (t, names) in self.tiers.iter().zip(&self.names) {
            match t {
                Tier::Unified(c) => v.push((names[0].as_str(), c)),
                Tier::Split { i, d } => {
                    v.push((names[0].as_str(), i));
                    v.push((names[1].as_str(), d));
                }
            }
        }
        v
    }

    pub fn cache(&self, name: &str) -> Option<&Cache> {
        self.caches().into_iter().find(|(n, _)| *n == name).map(|(_, c)| c)
    }

    /// The line size of the top-level cache serving `kind`.
    pub fn top_line(&mut self, kind: RefKind) -> u64 {
        self.tiers.first_mut().map_or(u64::MAX, |t| t.serving(kind).line_bytes())
    }

    /// A request of `size` bytes at `vaddr`/`paddr` (both within one page) to
    /// tier `t`; tier `len()` is memory.
    #[inline(never)]
    pub fn request(&mut self, t: usize, kind: RefKind, vaddr: u64, paddr: u64, asid: u32, size: u64) {
        self.request_inline(t, kind, vaddr, paddr, asid, size);
    }

    #[inline(always)]
    fn request_inline(&mut self, t: usize, kind: RefKind, vaddr: u64, paddr: u64, asid: u32, size: u64) {
        let Some(tier) = self.tiers.get_mut(t) else {
            let m = &mut self.memory;
            if kind == RefKind::Write {
                m.writes += 1;
                m.bytes_written += size;
            } else {
                m.reads += 1;
                m.bytes_read += size;
            }
            return;
        };
        let line = tier.serving(kind).line_bytes();
        if size != 0 && (vaddr & (line - 1)) + size <= line {
            // Within one line (every fill, write-back and write-through between
            // levels of equal line size).
            self.access_line(t, kind, vaddr, paddr, asid, size);
            return;
        }
        let mut va = vaddr;
        let end = vaddr + size;
        while va < end {
            let next = (va & !(line - 1)) + line;
            let chunk = next.min(end) - va;
            self.access_line(t, kind, va, paddr + (va - vaddr), asid, chunk);
            va += chunk;
        }
    }

    /// One access that lies within one line of tier `t` (which must exist),
    /// with everything it causes below. Returns the tier's outcome.
    #[inline]
    pub fn access_line(&mut self, t: usize, kind: RefKind, va: u64, pa: u64, asid: u32, size: u64) -> Outcome {
        let cache = self.tiers[t].serving(kind);
        let line = cache.line_bytes();
        let out = cache.access(LineRef { vaddr: va, paddr: pa, asid }, kind, size);
        if out.hit && !out.write_through {
            return out;
        }
        self.downstream(t, kind, va, pa, asid, size, line, &out);
        out
    }

    /// Completes an access to the top tier that `Cache::lookup` found to
    /// miss (`set`, `key` from its `Miss`), with everything it causes below.
    /// Returns whether the line is resident afterwards, and if so dirty.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub fn top_missed(&mut self, kind: RefKind, va: u64, pa: u64, asid: u32, size: u64, set: usize, key: u64) -> Option<bool> {
        let cache = self.tiers[0].serving(kind);
        let line = cache.line_bytes();
        let out = cache.access_missed(set, key, LineRef { vaddr: va, paddr: pa, asid }, kind, size);
        if out.fetch || out.write_through || out.writeback.is_some() {
            self.downstream(0, kind, va, pa, asid, size, line, &out);
        }
        out.resident_dirty
    }

    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    fn downstream(&mut self, t: usize, kind: RefKind, va: u64, pa: u64, asid: u32, size: u64, line: u64, out: &Outcome) {
        if out.fetch {
            let fill = if kind == RefKind::Ifetch { RefKind::Ifetch } else { RefKind::Read };
            self.request_inline(t + 1, fill, va & !(line - 1), pa & !(line - 1), asid, line);
        }
        if out.write_through {
            self.request(t + 1, RefKind::Write, va, pa, asid, size);
        }
        if let Some(v) = out.writeback {
            self.request(t + 1, RefKind::Write, v.vaddr, v.paddr, v.asid, line);
        }
    }

    /// The top-level cache that serves `kind`.
    #[inline]
    pub fn top_mut(&mut self, kind: RefKind) -> &mut Cache {
        self.tiers[0].serving(kind)
    }

    /// The top-level cache of repeat slot `slot`: 0 is the instruction (or
    /// unified) cache, 1 the data cache of a split top level.
    pub fn top_slot(&mut self, slot: usize) -> &mut Cache {
        match self.top_pair_mut() {
            (_, Some(d)) if slot == 1 => d,
            (i, _) => i,
        }
    }

    /// The top-level caches: the instruction (or unified) cache and, for a
    /// split top level, the data cache.
    #[inline(always)]
    pub fn top_pair_mut(&mut self) -> (&mut Cache, Option<&mut Cache>) {
        match &mut self.tiers[0] {
            Tier::Unified(c) => (c, None),
            Tier::Split { i, d } => (i, Some(d)),
        }
    }

    /// Whether the top level is one cache for instructions and data.
    pub fn top_is_unified(&self) -> bool {
        matches!(self.tiers.first(), Some(Tier::Unified(_)))
    }

    fn write_back(&mut self, t: usize, lines: Vec<Evicted>, line: u64) {
        for v in lines {
            self.request(t + 1, RefKind::Write, v.vaddr, v.paddr, v.asid, line);
        }
    }

    /// Writes back and invalidates every line of every level, top-down, so
    /// dirty data from above lands in a level before that level is flushed.
    pub fn flush_all(&mut self) -> FlushStats {
        let mut total = FlushStats::default();
        for t in 0..self.tiers.len() {
            let mut dirty = Vec::new();
            for c in self.tiers[t].caches_mut() {
                let (counts, lines) = c.flush_all(false);
                total += counts;
                let line = c.line_bytes();
                dirty.push((lines, line));
            }
            for (lines, line) in dirty {
                self.write_back(t, lines, line);
            }
        }
        total
    }

    /// Flushes (or purges) one line, given by its addresses, from every cache
    /// of tier `t` (a dirty line is written to tier `t + 1`). Returns what
    /// was found.
    pub fn flush_line(&mut self, t: usize, r: LineRef, purge: bool) -> FlushStats {
        let mut found = FlushStats::default();
        let mut writes = Vec::new();
        for c in self.tiers[t].caches_mut() {
            let line = c.line_bytes();
            let aligned = LineRef { vaddr: r.vaddr & !(line - 1), paddr: r.paddr & !(line - 1), asid: r.asid };
            match c.flush_line(aligned, purge) {
                LineState::Empty => found.empty += 1,
                LineState::Clean => found.clean += 1,
                LineState::Dirty(e) => {
                    found.dirty += 1;
                    if !purge {
                        writes.push((e, line));
                    }
                }
            }
        }
        for (e, line) in writes {
            self.request(t + 1, RefKind::Write, e.vaddr, e.paddr, e.asid, line);
        }
        found
    }

    pub fn tier_count(&self) -> usize {
        self.tiers.len()
    }
}
