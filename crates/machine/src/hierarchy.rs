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
use vmlab_cache::{
    Cache, Evicted, FlushStats, GeometryError, HitCheck, LineRef, LineState, Outcome, RefKind, VirtualDirectBelow,
};

use crate::config::TierConfig;

/// What reaches memory below the last level.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemoryStats {
    pub reads: u64,
    pub writes: u64,
    pub bytes_read: u64,
    pub bytes_written: u64,
}

impl MemoryStats {
    /// One read of `bytes` from memory (a fill).
    #[inline(always)]
    pub fn read(&mut self, bytes: u64) {
        self.reads += 1;
        self.bytes_read += bytes;
    }

    /// One write of `bytes` to memory (a write-back or write-through).
    #[inline(always)]
    pub fn write(&mut self, bytes: u64) {
        self.writes += 1;
        self.bytes_written += bytes;
    }
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
    /// Per tier, the inline hit check of its instruction (or unified) cache
    /// and of its data cache (`Cache::hit_check`; the same for a unified
    /// tier), copied once: a request to a level that has one is looked up
    /// with `Cache::probe` instead of `Cache::access`.
    checks: Vec<[Option<HitCheck>; 2]>,
    /// Whether every miss can be completed by `Below::fill_below`: every
    /// level has a hit check and `Cache::fills_in_place` (write-back,
    /// write-allocate, bit-select, no 3C shadows), and no level's line is
    /// shorter than a line of the level above (so every fill and write-back
    /// lies within one line of the level it reaches).
    simple: bool,
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
        let checks = built
            .iter()
            .map(|t| match t {
                Tier::Unified(c) => [c.hit_check(), c.hit_check()],
                Tier::Split { i, d } => [i.hit_check(), d.hit_check()],
            })
            .collect();
        let shape = |c: &Cache| (c.hit_check().is_some() && c.fills_in_place(), c.line_bytes());
        let caches = |t: &Tier| match t {
            Tier::Unified(c) => vec![shape(c)],
            Tier::Split { i, d } => vec![shape(i), shape(d)],
        };
        let shapes: Vec<Vec<(bool, u64)>> = built.iter().map(caches).collect();
        let simple = shapes.iter().flatten().all(|&(ok, _)| ok)
            && shapes.windows(2).all(|w| {
                let above = w[0].iter().map(|&(_, l)| l).max().unwrap_or(0);
                w[1].iter().all(|&(_, l)| l >= above)
            });
        Ok(Self { tiers: built, checks, simple, names, memory: MemoryStats::default() })
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

    /// Every tier and memory, as a `Below` starting at tier 0.
    #[inline(always)]
    fn all(&mut self) -> Below<'_> {
        Below { tiers: &mut self.tiers, checks: &self.checks, simple: self.simple, memory: &mut self.memory }
    }

    /// The top tier's caches (as `top_pair_mut`) and, separately borrowed,
    /// everything under them: what a run loop needs to finish a top-level
    /// miss without giving its borrow of the top caches back.
    #[inline(always)]
    pub(crate) fn split_top(&mut self) -> ((&mut Cache, Option<&mut Cache>), Below<'_>) {
        let (top, rest) = self.tiers.split_at_mut(1);
        let pair = match &mut top[0] {
            Tier::Unified(c) => (c, None),
            Tier::Split { i, d } => (i, Some(d)),
        };
        let checks = self.checks.get(1..).unwrap_or(&[]);
        (pair, Below { tiers: rest, checks, simple: self.simple, memory: &mut self.memory })
    }

    /// A request of `size` bytes at `vaddr`/`paddr` (both within one page) to
    /// tier `t`; tier `len()` is memory.
    #[inline(never)]
    pub fn request(&mut self, t: usize, kind: RefKind, vaddr: u64, paddr: u64, asid: u32, size: u64) {
        self.all().request_inline(t, kind, vaddr, paddr, asid, size);
    }

    /// One access that lies within one line of tier `t` (which must exist),
    /// with everything it causes below. Returns the tier's outcome.
    #[inline]
    pub fn access_line(&mut self, t: usize, kind: RefKind, va: u64, pa: u64, asid: u32, size: u64) -> Outcome {
        self.all().access_line(t, kind, va, pa, asid, size)
    }

    /// Completes an access to the top tier that `Cache::lookup` found to
    /// miss (`set`, `key` from its `Miss`), with everything it causes below.
    /// Returns whether the line is resident afterwards, and if so dirty.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub fn top_missed(
        &mut self,
        kind: RefKind,
        va: u64,
        pa: u64,
        asid: u32,
        size: u64,
        set: usize,
        key: u64,
    ) -> Option<bool> {
        let ((i, d), mut below) = self.split_top();
        let cache = match d {
            Some(d) if kind != RefKind::Ifetch => d,
            _ => i,
        };
        below.missed(cache, kind, va, pa, asid, size, set, key)
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

    /// Writes back and invalidates (`purge == false`) or invalidates every
    /// line of every level, top-down, so dirty data from above lands in a
    /// level before that level is flushed. A frame counts once: empty,
    /// clean or dirty.
    pub fn flush_all(&mut self, purge: bool) -> FlushStats {
        self.flush_each(|c| c.flush_all(purge))
    }

    /// Flushes or purges, top-down as `flush_all`, every copy in every
    /// cache of every line whose physical address lies in `[pa, last]`
    /// (`Cache::flush_physical_range`: a line of the range with no copy in
    /// a cache counts once there as empty).
    pub fn flush_physical_range(&mut self, pa: u64, last: u64, purge: bool) -> FlushStats {
        self.flush_each(|c| c.flush_physical_range(pa, last, purge))
    }

    /// Applies a flush to every cache, tier by tier from the top, writing
    /// each tier's dirty lines into the next before that one is flushed.
    fn flush_each(&mut self, mut flush: impl FnMut(&mut Cache) -> (FlushStats, Vec<Evicted>)) -> FlushStats {
        let mut total = FlushStats::default();
        for t in 0..self.tiers.len() {
            let mut dirty = Vec::new();
            for c in self.tiers[t].caches_mut() {
                let (counts, lines) = flush(c);
                total += counts;
                dirty.push((lines, c.line_bytes()));
            }
            for (lines, line) in dirty {
                self.write_back(t, lines, line);
            }
        }
        total
    }

    /// Dinero IV's copy-back of everything (`--compat dinero`): its driver
    /// ends a run with a `D4XCOPYB` of size 0 to the top data cache
    /// (`cmdmain.c`, after `done:`), which `d4copyback` (`misc.c`) passes
    /// down level by level after writing back its own dirty lines. So, tier
    /// by tier from the top, the data side's dirty lines
    /// (`Cache::copy_back_all`, in Dinero's order) are written into the
    /// level below as whole-line writes, counted there as any write is,
    /// before that level copies back in turn; the last level's go to
    /// memory. Lines stay resident, clean. An instruction cache of a split
    /// level is never dirty (only fetches reach it), and Dinero does not
    /// copy it back.
    pub fn copy_back_all(&mut self) {
        for t in 0..self.tiers.len() {
            let cache = self.tiers[t].serving(RefKind::Write);
            let line = cache.line_bytes();
            let lines = cache.copy_back_all();
            self.write_back(t, lines, line);
        }
    }

    /// The cache of tier `t` that serves `kind`, if there is a tier `t`.
    pub(crate) fn serving_mut(&mut self, t: usize, kind: RefKind) -> Option<&mut Cache> {
        self.tiers.get_mut(t).map(|tier| tier.serving(kind))
    }

    pub(crate) fn memory_mut(&mut self) -> &mut MemoryStats {
        &mut self.memory
    }

    /// How many caches tier `t` has: 1 for a unified level, 2 for a split
    /// one (instruction cache first), 0 past the last level.
    pub fn caches_in(&self, t: usize) -> usize {
        match self.tiers.get(t) {
            None => 0,
            Some(Tier::Unified(_)) => 1,
            Some(Tier::Split { .. }) => 2,
        }
    }

    /// Cache `c` of tier `t`, in `caches_in`'s order.
    pub fn tier_cache(&self, t: usize, c: usize) -> Option<&Cache> {
        match (self.tiers.get(t)?, c) {
            (Tier::Unified(u), 0) => Some(u),
            (Tier::Split { i, .. }, 0) => Some(i),
            (Tier::Split { d, .. }, 1) => Some(d),
            _ => None,
        }
    }

    fn tier_cache_mut(&mut self, t: usize, c: usize) -> Option<&mut Cache> {
        match (self.tiers.get_mut(t)?, c) {
            (Tier::Unified(u), 0) => Some(u),
            (Tier::Split { i, .. }, 0) => Some(i),
            (Tier::Split { d, .. }, 1) => Some(d),
            _ => None,
        }
    }

    /// Flushes (or purges) the line holding `r` from cache `c` of tier `t`
    /// alone (a dirty line flushed is written to tier `t + 1`). Returns what
    /// was found: one line, empty, clean or dirty. Nothing, changing
    /// nothing, for a cache that does not exist.
    pub fn flush_line(&mut self, t: usize, c: usize, r: LineRef, purge: bool) -> FlushStats {
        let mut found = FlushStats::default();
        let Some(cache) = self.tier_cache_mut(t, c) else { return found };
        let line = cache.line_bytes();
        let aligned = LineRef { vaddr: r.vaddr & !(line - 1), paddr: r.paddr & !(line - 1), asid: r.asid };
        let state = cache.flush_line(aligned, purge);
        found.count(&state);
        if let LineState::Dirty(e) = state {
            if !purge {
                self.request(t + 1, RefKind::Write, e.vaddr, e.paddr, e.asid, line);
            }
        }
        found
    }

    /// `Cache::count_empty_flushes` of cache `c` of tier `t`.
    pub fn count_empty_flushes(&mut self, t: usize, c: usize, n: u64, purge: bool) {
        if let Some(cache) = self.tier_cache_mut(t, c) {
            cache.count_empty_flushes(n, purge);
        }
    }

    /// Whether every miss is completed by the specialised miss chain
    /// (`Cache::fill` at each level; see `simple`).
    pub fn misses_fill_in_place(&self) -> bool {
        self.simple
    }

    pub fn tier_count(&self) -> usize {
        self.tiers.len()
    }
}

/// A hit in a level that allows a probe: nothing goes further down.
const HIT_DOWN_HERE: Outcome =
    Outcome { hit: true, fetch: false, write_through: false, writeback: None, resident_dirty: None };

/// The tiers from some level down to memory: what a miss in the level above
/// them reaches. Tier 0 of a `Below` is the first level under that one.
#[derive(Debug)]
pub(crate) struct Below<'a> {
    tiers: &'a mut [Tier],
    /// `Hierarchy::checks` of the same tiers.
    checks: &'a [[Option<HitCheck>; 2]],
    /// `Hierarchy::simple`, for the whole hierarchy these tiers end.
    simple: bool,
    memory: &'a mut MemoryStats,
}

impl Below<'_> {
    /// Completes an access to `cache`, the level just above these tiers,
    /// that missed there at `set`, `key` (as `Cache::lookup` or a failed
    /// `Cache::probe` found), with everything it causes below. Returns
    /// whether the line is resident afterwards, and if so dirty.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub(crate) fn missed(
        &mut self,
        cache: &mut Cache,
        kind: RefKind,
        va: u64,
        pa: u64,
        asid: u32,
        size: u64,
        set: usize,
        key: u64,
    ) -> Option<bool> {
        let line = cache.line_bytes();
        let r = LineRef { vaddr: va, paddr: pa, asid };
        if self.simple {
            // The caller's top level (`word`): usually set-associative.
            if let Some((fetch, victim)) = cache.fill_inline(set, key, r, kind, size) {
                self.fill_below(0, kind, va, pa, asid, line, fetch, victim);
                return Some(kind == RefKind::Write);
            }
        }
        let out = cache.access_missed(set, key, r, kind, size);
        if out.fetch || out.write_through || out.writeback.is_some() {
            self.send(0, kind, va, pa, asid, size, line, &out);
        }
        out.resident_dirty
    }

    /// These tiers as a `DirectLower`, when they are one level whose every
    /// cache is a `VirtualDirectBelow` and every miss fills in place
    /// (`simple`: its lines are no shorter than the level above's, so each
    /// fetch and write-back lies within one of its lines).
    pub(crate) fn direct_lower(&mut self) -> Option<DirectLowers<'_>> {
        if !self.simple {
            return None;
        }
        let [tier] = &mut *self.tiers else { return None };
        let memory = &mut *self.memory;
        Some(match tier {
            Tier::Unified(c) => DirectLowers::Unified(DirectLower { i: c.virtual_direct_below()?, d: Unified, memory }),
            Tier::Split { i, d } => {
                DirectLowers::Split(DirectLower { i: i.virtual_direct_below()?, d: d.virtual_direct_below()?, memory })
            }
        })
    }

    /// What a `Cache::fill` of a `line`-byte line at `va`/`pa` in the level
    /// above tier `t` sends down, in `send`'s order: the line read (kept an
    /// instruction fetch for an instruction miss), then the victim written.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(crate) fn fill_below(
        &mut self,
        t: usize,
        kind: RefKind,
        va: u64,
        pa: u64,
        asid: u32,
        line: u64,
        fetch: bool,
        victim: Option<Evicted>,
    ) {
        if t >= self.tiers.len() {
            // Memory, which only counts: no call for it.
            if fetch {
                self.memory.read(line);
            }
            if victim.is_some() {
                self.memory.write(line);
            }
            return;
        }
        if fetch {
            let fill = if kind == RefKind::Ifetch { RefKind::Ifetch } else { RefKind::Read };
            self.simple_access(t, fill, va & !(line - 1), pa & !(line - 1), asid, line);
        }
        if let Some(v) = victim {
            self.simple_access(t, RefKind::Write, v.vaddr, v.paddr, v.asid, line);
        }
    }

    /// One access within one line of tier `t` (or memory) of a hierarchy
    /// where `simple` holds: a probe, and for a miss a `Cache::fill` and
    /// what it sends down. Exactly `access_line`'s effect, in fewer steps.
    /// The probe inline (a hit, the common case, costs no call), the
    /// rest (`simple_miss`) out of line.
    #[inline(always)]
    fn simple_access(&mut self, t: usize, kind: RefKind, va: u64, pa: u64, asid: u32, size: u64) {
        let side = usize::from(kind != RefKind::Ifetch);
        let hc = self.checks.get(t).and_then(|c| c[side]);
        let (Some(tier), Some(hc)) = (self.tiers.get_mut(t), hc) else {
            // Memory (a level without a hit check is not reached: `simple`
            // does not hold then, but the general path stays exact).
            self.request(t, kind, va, pa, asid, size);
            return;
        };
        let cache = tier.serving(kind);
        let (set, key, hit) = probe_counted(cache, &hc, kind, va, pa, asid);
        if hit.is_some() {
            return;
        }
        if hc.direct() {
            self.simple_miss(t, kind, va, pa, asid, size, set, key);
        } else {
            self.simple_miss_ways(t, kind, va, pa, asid, size, set, key);
        }
    }

    /// `simple_access` after its probe missed at `set`, `key` of tier `t`,
    /// a one-way level.
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    fn simple_miss(&mut self, t: usize, kind: RefKind, va: u64, pa: u64, asid: u32, size: u64, set: usize, key: u64) {
        self.simple_miss_in::<false>(t, kind, va, pa, asid, size, set, key);
    }

    /// `simple_miss` for a level of several ways, with its victim search
    /// inline (`Cache::fill_inline`); apart so a one-way chain keeps the
    /// small frame of `simple_miss`.
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    fn simple_miss_ways(
        &mut self,
        t: usize,
        kind: RefKind,
        va: u64,
        pa: u64,
        asid: u32,
        size: u64,
        set: usize,
        key: u64,
    ) {
        self.simple_miss_in::<true>(t, kind, va, pa, asid, size, set, key);
    }

    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn simple_miss_in<const WAYS: bool>(
        &mut self,
        t: usize,
        kind: RefKind,
        va: u64,
        pa: u64,
        asid: u32,
        size: u64,
        set: usize,
        key: u64,
    ) {
        // Not reached without tier `t`: the probe just found it.
        let Some(tier) = self.tiers.get_mut(t) else { return };
        let cache = tier.serving(kind);
        let line = cache.line_bytes();
        let r = LineRef { vaddr: va, paddr: pa, asid };
        let filled =
            if WAYS { cache.fill_inline(set, key, r, kind, size) } else { cache.fill(set, key, r, kind, size) };
        match filled {
            Some((fetch, victim)) => self.fill_below(t + 1, kind, va, pa, asid, line, fetch, victim),
            None => self.general_miss(t, kind, va, pa, asid, size, set, key),
        }
    }

    /// A miss at `set`, `key` of tier `t` completed by the general rules
    /// (`Cache::access_missed`, then `send`). Not reached from
    /// `simple_miss` (every level of a `simple` hierarchy fills in place),
    /// but exact all the same; out of line so the fill keeps its `LineRef`
    /// in registers.
    #[allow(clippy::too_many_arguments)]
    #[cold]
    #[inline(never)]
    fn general_miss(&mut self, t: usize, kind: RefKind, va: u64, pa: u64, asid: u32, size: u64, set: usize, key: u64) {
        let Some(tier) = self.tiers.get_mut(t) else { return };
        let cache = tier.serving(kind);
        let line = cache.line_bytes();
        let out = cache.access_missed(set, key, LineRef { vaddr: va, paddr: pa, asid }, kind, size);
        self.send(t + 1, kind, va, pa, asid, size, line, &out);
    }

    #[inline(never)]
    fn request(&mut self, t: usize, kind: RefKind, vaddr: u64, paddr: u64, asid: u32, size: u64) {
        self.request_inline(t, kind, vaddr, paddr, asid, size);
    }

    #[inline(always)]
    fn request_inline(&mut self, t: usize, kind: RefKind, vaddr: u64, paddr: u64, asid: u32, size: u64) {
        let Some(tier) = self.tiers.get_mut(t) else {
            if kind == RefKind::Write {
                self.memory.write(size);
            } else {
                self.memory.read(size);
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
    fn access_line(&mut self, t: usize, kind: RefKind, va: u64, pa: u64, asid: u32, size: u64) -> Outcome {
        let side = usize::from(kind != RefKind::Ifetch);
        let cache = self.tiers[t].serving(kind);
        let line = cache.line_bytes();
        let out = match self.checks.get(t).and_then(|c| c[side]) {
            // A level that allows a probe: a hit changes what `access`
            // changes (replacement, dirty bit; nothing goes down, the level
            // being write-back) but the counter, added here; a miss is
            // finished as `access` finishes it.
            Some(hc) => {
                let (set, key, hit) = probe_counted(cache, &hc, kind, va, pa, asid);
                if let Some(dirty) = hit {
                    return Outcome { resident_dirty: Some(dirty), ..HIT_DOWN_HERE };
                }
                cache.access_missed(set, key, LineRef { vaddr: va, paddr: pa, asid }, kind, size)
            }
            None => cache.access(LineRef { vaddr: va, paddr: pa, asid }, kind, size),
        };
        if out.fetch || out.write_through || out.writeback.is_some() {
            self.send(t + 1, kind, va, pa, asid, size, line, &out);
        }
        out
    }

    /// Issues to tier `t` what `out`, the outcome of an access of `size`
    /// bytes at `va`/`pa` to a level of `line`-byte lines just above it,
    /// asks of the level below, in `Outcome`'s (Dinero's) order.
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    fn send(&mut self, t: usize, kind: RefKind, va: u64, pa: u64, asid: u32, size: u64, line: u64, out: &Outcome) {
        if out.fetch {
            let fill = if kind == RefKind::Ifetch { RefKind::Ifetch } else { RefKind::Read };
            self.request_inline(t, fill, va & !(line - 1), pa & !(line - 1), asid, line);
        }
        if out.write_through {
            self.request(t, RefKind::Write, va, pa, asid, size);
        }
        if let Some(v) = out.writeback {
            self.request(t, RefKind::Write, v.vaddr, v.paddr, v.asid, line);
        }
    }
}

/// What completes a top-level miss filled in place (`Cache::fill` or
/// `VirtualDirect::fill` at the top): the line's fetch and the victim's
/// write-back, everything they cause below, in `Below::fill_below`'s
/// order. `Below` does it for any chain; `DirectLower` for one level of
/// `VirtualDirectBelow` caches over memory (jm-base's), in fewer steps.
pub(crate) trait Lower {
    /// Whether a top-level miss may be finished with a fill there and
    /// `fill_below` here (for `Below`: `Hierarchy::misses_fill_in_place`
    /// of the hierarchy these tiers end).
    fn fills_in_place(&self) -> bool;

    /// `Below::fill_below` from the level just above these tiers (`t` = 0).
    #[allow(clippy::too_many_arguments)]
    fn fill_below(
        &mut self,
        kind: RefKind,
        va: u64,
        pa: u64,
        asid: u32,
        line: u64,
        fetch: bool,
        victim: Option<Evicted>,
    );
}

impl Lower for Below<'_> {
    #[inline(always)]
    fn fills_in_place(&self) -> bool {
        self.simple
    }

    #[inline(always)]
    fn fill_below(
        &mut self,
        kind: RefKind,
        va: u64,
        pa: u64,
        asid: u32,
        line: u64,
        fetch: bool,
        victim: Option<Evicted>,
    ) {
        Below::fill_below(self, 0, kind, va, pa, asid, line, fetch, victim);
    }
}

/// The tiers under the top when they are one level of direct-mapped VIVT
/// caches with ASID tags that fill in place, over memory (`Below::direct_lower`),
/// borrowed as `VirtualDirectBelow` views for a run: a top-level miss's
/// fetch and write-back are then each one slot compare and, on a miss
/// there, one slot replaced and memory counted, without the general
/// chain's per-access look-ups (tier, hit check, serving cache, flags).
/// `D`: the data cache of a split level, or `Unified`; a type, so the cache
/// a data access reaches is fixed in each copy of the miss path (an
/// `Option` chosen per access was a conditional move per field of the
/// view: ~12 instructions a data fetch or write-back).
pub(crate) struct DirectLower<'a, D> {
    /// The instruction (or unified) cache, and the data cache of a split level.
    i: VirtualDirectBelow<'a>,
    d: D,
    memory: &'a mut MemoryStats,
}

/// `DirectLower` of a split or of a unified level (`Below::direct_lower`).
pub(crate) enum DirectLowers<'a> {
    Split(DirectLower<'a, VirtualDirectBelow<'a>>),
    Unified(DirectLower<'a, Unified>),
}

/// The data side of a unified `DirectLower`: its one cache serves both.
pub(crate) struct Unified;

/// Where `DirectLower` sends a data access: the data cache of a split
/// level, or the level's one cache (`i`).
pub(crate) trait DataSide<'a> {
    fn data<'s>(&'s mut self, i: &'s mut VirtualDirectBelow<'a>) -> &'s mut VirtualDirectBelow<'a>;
    /// `VirtualDirectBelow::settle` of the data cache, if it has its own.
    fn settle(&mut self);
}

impl<'a> DataSide<'a> for VirtualDirectBelow<'a> {
    #[inline(always)]
    fn data<'s>(&'s mut self, _: &'s mut VirtualDirectBelow<'a>) -> &'s mut VirtualDirectBelow<'a> {
        self
    }

    fn settle(&mut self) {
        VirtualDirectBelow::settle(self);
    }
}

impl<'a> DataSide<'a> for Unified {
    #[inline(always)]
    fn data<'s>(&'s mut self, i: &'s mut VirtualDirectBelow<'a>) -> &'s mut VirtualDirectBelow<'a> {
        i
    }

    fn settle(&mut self) {}
}

impl<'a, D: DataSide<'a>> DirectLower<'a, D> {
    /// Adds what the views counted to the caches' counters
    /// (`VirtualDirectBelow::settle`): the run loop calls it when it is
    /// done with the views.
    pub(crate) fn settle(&mut self) {
        self.i.settle();
        self.d.settle();
    }

    /// One access within one line of the level (`Below::simple_access` at
    /// tier 0), then what its miss sends to memory.
    #[inline(always)]
    fn access(&mut self, kind: RefKind, r: LineRef, size: u64) {
        let c = if kind == RefKind::Ifetch { &mut self.i } else { self.d.data(&mut self.i) };
        let (fetch, writeback) = c.access(r, kind, size);
        let line = c.line_bytes();
        if fetch {
            self.memory.read(line);
        }
        if writeback {
            self.memory.write(line);
        }
    }
}

impl<'a, D: DataSide<'a>> Lower for DirectLower<'a, D> {
    #[inline(always)]
    fn fills_in_place(&self) -> bool {
        true
    }

    #[inline(always)]
    fn fill_below(
        &mut self,
        kind: RefKind,
        va: u64,
        pa: u64,
        asid: u32,
        line: u64,
        fetch: bool,
        victim: Option<Evicted>,
    ) {
        if fetch {
            let fill = if kind == RefKind::Ifetch { RefKind::Ifetch } else { RefKind::Read };
            // `va`, `pa` as they are: this level's lines are no shorter
            // than the level above's (`simple`), so the line of the fetch
            // (the line above's first byte) is the line of `va`, and its
            // physical line that of `pa` (the page offset is shared).
            self.access(fill, LineRef { vaddr: va, paddr: pa, asid }, line);
        }
        if let Some(v) = victim {
            self.access(RefKind::Write, LineRef { vaddr: v.vaddr, paddr: v.paddr, asid: v.asid }, line);
        }
    }
}

/// A lower level's probe through its hit check, with a hit counted as
/// `Cache::access` counts it (a hit there changes only what `probe`
/// changes). Returns the set and key (for `access_missed` after a miss) and
/// the hit's dirty bit, if it hit.
#[inline(always)]
fn probe_counted(
    cache: &mut Cache,
    hc: &HitCheck,
    kind: RefKind,
    va: u64,
    pa: u64,
    asid: u32,
) -> (usize, u64, Option<bool>) {
    let (set, key) = hc.locate(va, pa);
    let write = kind == RefKind::Write;
    let hit = if hc.direct() {
        cache.probe::<true, true>(hc, set, key, asid, write)
    } else {
        cache.probe::<false, true>(hc, set, key, asid, write)
    };
    if hit.is_some() {
        cache.count_repeat_hits(kind, 1);
    }
    (set, key, hit)
}
