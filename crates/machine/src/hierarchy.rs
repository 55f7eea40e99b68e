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
    Cache, DataRef, Evicted, Flush, FlushStats, GeometryError, HitCheck, LineRef, LineState, MissClasses, Outcome,
    RefKind, VirtualDirectBelow,
};

use crate::config::LevelConfig;
use crate::request::{Reached, Request, Served};
use vmlab_addr::{PhysAddr, VirtAddr};

/// What leaves the last level of a hierarchy downwards: for a whole
/// machine, what reaches memory; for a CPU's private levels in a `System`
/// with shared levels, what that CPU sends to them.
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

    /// A read (fill) or write of `bytes`, as `kind` says.
    #[inline(always)]
    pub fn count(&mut self, kind: RefKind, bytes: u64) {
        if kind == RefKind::Write {
            self.write(bytes);
        } else {
            self.read(bytes);
        }
    }
}

/// What lies under the last level a `Below` walks: memory, which only
/// counts (`&mut MemoryStats`: the whole machine, and every hot loop), or
/// in a `System` the shared levels (`system::Onward`). A type parameter, so
/// the replayer's miss chain ends in memory's two counters with no call.
pub(crate) trait Backing {
    /// A request of `bytes` at `r` leaving the last level (a fill: `Read`
    /// or `Ifetch`; or a write); returns where it was served, counted from
    /// the top of the path that issued it.
    fn request(&mut self, kind: RefKind, r: LineRef, bytes: u64) -> Reached;

    /// `Below::direct_lower` where these levels end in memory; none
    /// elsewhere (the views count into memory themselves).
    #[inline(always)]
    fn direct_lower<'s>(_: &'s mut Below<'_, Self>) -> Option<DirectLowers<'s>>
    where
        Self: Sized,
    {
        None
    }
}

impl Backing for &mut MemoryStats {
    #[inline(always)]
    fn request(&mut self, kind: RefKind, _: LineRef, bytes: u64) -> Reached {
        self.count(kind, bytes);
        Reached::Memory
    }

    #[inline(always)]
    fn direct_lower<'s>(below: &'s mut Below<'_, Self>) -> Option<DirectLowers<'s>> {
        below.direct_lower()
    }
}

/// What takes the requests leaving a machine's last level in place of
/// memory (`Machine::above_last_level`, `Machine::feed_packed_into`): a
/// level simulated some other way under the machine's own, one-pass
/// sweeps' swept level (crates/onepass) say. It sees exactly what memory
/// would see, in the same order: each fill (`Read`, or `Ifetch` for an
/// instruction miss) of a whole line of the level above, each dirty
/// victim's write-back (`Write`, a whole line), each write a write-through
/// level passes on (`Write`, its own address and size), with both
/// addresses and the address space.
pub trait Sink {
    fn request(&mut self, kind: RefKind, r: LineRef, bytes: u64);

    /// A trace's flush marker after every level of the machine was flushed
    /// (their dirty lines already sent here): flush what lies below.
    fn flush_all(&mut self);
}

/// Memory's counters (what the machine sent down, `Hierarchy::memory`)
/// with a `Sink` after them.
pub(crate) struct Sunk<'a, S: ?Sized> {
    sent: &'a mut MemoryStats,
    sink: &'a mut S,
}

impl<S: Sink + ?Sized> Backing for Sunk<'_, S> {
    #[inline(always)]
    fn request(&mut self, kind: RefKind, r: LineRef, bytes: u64) -> Reached {
        self.sent.count(kind, bytes);
        self.sink.request(kind, r, bytes);
        Reached::Memory
    }
}

/// What a machine's run ends in: memory (`ToMemory`, every ordinary run)
/// or a `Sink`. A type parameter of the run loops, so an ordinary run's
/// miss chain is the one it was, ending in memory's counters.
pub(crate) trait Under {
    type B<'m>: Backing
    where
        Self: 'm;
    fn backing<'m>(&'m mut self, sent: &'m mut MemoryStats) -> Self::B<'m>;
    /// Every level was flushed (`Sink::flush_all`).
    fn flushed(&mut self);
}

/// Memory, which only counts.
pub(crate) struct ToMemory;

impl Under for ToMemory {
    type B<'m> = &'m mut MemoryStats;
    #[inline(always)]
    fn backing<'m>(&'m mut self, sent: &'m mut MemoryStats) -> &'m mut MemoryStats {
        sent
    }
    #[inline(always)]
    fn flushed(&mut self) {}
}

impl<S: Sink + ?Sized> Under for S {
    type B<'m>
        = Sunk<'m, S>
    where
        Self: 'm;
    #[inline(always)]
    fn backing<'m>(&'m mut self, sent: &'m mut MemoryStats) -> Sunk<'m, S> {
        Sunk { sent, sink: self }
    }
    fn flushed(&mut self) {
        self.flush_all();
    }
}

/// The largest number of levels one path through a system may have: the
/// configuration's four (`MachineConfig::levels`), which is what a
/// `Ledger` keeps a count for.
pub const MAX_LEVELS: usize = 4;

/// One level of a hierarchy: one cache for instructions and data, or an
/// instruction and a data cache side by side. The translating simulator's
/// L2 (`vmlab-translation`'s `memsys::Tail`) is one, inside a one-level
/// `Hierarchy` (reached through `Hierarchy::serving_mut`).
// Split levels are the common case and there is one `Level` per level, so the
// size difference between the variants costs nothing worth a Box.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub enum Level {
    Unified(Cache),
    Split { i: Cache, d: Cache },
}

impl Level {
    /// The cache that serves `kind`: a split level's instruction cache
    /// serves fetches, its data cache reads and writes.
    #[inline]
    fn serving(&mut self, kind: RefKind) -> &mut Cache {
        match self {
            Level::Unified(c) => c,
            Level::Split { i, d } => {
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
            Level::Unified(c) => vec![c],
            Level::Split { i, d } => vec![i, d],
        }
    }
}

/// A named cache in the hierarchy, for results.
#[derive(Debug)]
pub struct Hierarchy {
    levels: Vec<Level>,
    /// Per level, the inline hit check of its instruction (or unified) cache
    /// and of its data cache (`Cache::hit_check`; the same for a unified
    /// level), copied once: a request to a level that has one is looked up
    /// with `Cache::probe` instead of `Cache::access`.
    checks: Vec<[Option<HitCheck>; 2]>,
    /// Whether every miss can be completed by `Below::fill_below`: every
    /// level has a hit check and `Cache::fills_in_place` (write-back,
    /// write-allocate, bit-select, no 3C shadows), and no level's line is
    /// shorter than a line of the level above (so every fill and write-back
    /// lies within one line of the level it reaches).
    simple: bool,
    /// Whether no level's line is shorter than a line of the level above
    /// (`simple`'s second half): every fill and write-back then lies within
    /// one line of the level it reaches, so `Below::simple_access`, which
    /// falls back to the general rules wherever a level does not fill in
    /// place, completes anything sent below a level.
    nested: bool,
    /// Whether the levels under the top are one level whose every cache
    /// is direct-mapped, physically indexed and tagged and fills in place
    /// (`Cache::is_physical_direct`), with lines nested (`nested`): a top
    /// miss filled in place is then completed by
    /// `Below::physical_fill_below`, one slot compared per request.
    physical_lower: bool,
    /// `Below::written`'s memo, kept between runs (its entries need no
    /// invalidation, so one memo serves every `Below` made here).
    written: Box<[WrittenFrame; WRITTEN_FRAMES]>,
    names: Vec<Vec<String>>,
    memory: MemoryStats,
}

impl Hierarchy {
    pub fn new(levels: &[LevelConfig], classes: MissClasses) -> Result<Self, GeometryError> {
        let mut built = Vec::new();
        let mut names = Vec::new();
        for t in levels {
            match t {
                LevelConfig::Unified { name, cache } => {
                    built.push(Level::Unified(Cache::new(cache.clone(), classes)?));
                    names.push(vec![name.clone()]);
                }
                LevelConfig::Split { i_name, i, d_name, d } => {
                    built.push(Level::Split { i: Cache::new(i.clone(), classes)?, d: Cache::new(d.clone(), classes)? });
                    names.push(vec![i_name.clone(), d_name.clone()]);
                }
            }
        }
        let checks = built
            .iter()
            .map(|t| match t {
                Level::Unified(c) => [c.hit_check(), c.hit_check()],
                Level::Split { i, d } => [i.hit_check(), d.hit_check()],
            })
            .collect();
        let shape = |c: &Cache| (c.hit_check().is_some() && c.fills_in_place(), c.line_bytes());
        let caches = |t: &Level| match t {
            Level::Unified(c) => vec![shape(c)],
            Level::Split { i, d } => vec![shape(i), shape(d)],
        };
        let shapes: Vec<Vec<(bool, u64)>> = built.iter().map(caches).collect();
        let nested = shapes.windows(2).all(|w| {
            let above = w[0].iter().map(|&(_, l)| l).max().unwrap_or(0);
            w[1].iter().all(|&(_, l)| l >= above)
        });
        let simple = shapes.iter().flatten().all(|&(ok, _)| ok) && nested;
        let physical_lower = nested
            && match &built[..] {
                [_, Level::Unified(c)] => c.is_physical_direct(),
                [_, Level::Split { i, d }] => i.is_physical_direct() && d.is_physical_direct(),
                _ => false,
            };
        if built.len() > MAX_LEVELS {
            return Err(GeometryError(format!("{} levels: a path holds at most {MAX_LEVELS}", built.len())));
        }
        Ok(Self {
            levels: built,
            checks,
            simple,
            nested,
            physical_lower,
            written: Box::new([WrittenFrame::NONE; WRITTEN_FRAMES]),
            names,
            memory: MemoryStats::default(),
        })
    }

    /// What left the last level downwards (see `MemoryStats`).
    pub fn memory(&self) -> &MemoryStats {
        &self.memory
    }

    /// Every cache with its name, top level first (I before D).
    pub fn caches(&self) -> Vec<(&str, &Cache)> {
        let mut v = Vec::new();
        for (t, names) in self.levels.iter().zip(&self.names) {
            match t {
                Level::Unified(c) => v.push((names[0].as_str(), c)),
                Level::Split { i, d } => {
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
    pub(crate) fn top_line(&mut self, kind: RefKind) -> u64 {
        self.levels.first_mut().map_or(u64::MAX, |t| t.serving(kind).line_bytes())
    }

    /// Every level and memory, as a `Below` starting at level 0.
    #[inline(always)]
    fn all(&mut self) -> Below<'_> {
        Below {
            levels: &mut self.levels,
            checks: &self.checks,
            simple: self.simple,
            nested: self.nested,
            physical_direct: false,
            written_check: written_check(&self.checks),
            written: &mut self.written,
            written_searched: 0,
            memory: &mut self.memory,
        }
    }

    /// Every level, over `backing` instead of memory: a CPU's private
    /// levels over a system's shared ones (`system::Onward`).
    #[inline(always)]
    pub(crate) fn over<'s, B: Backing>(&'s mut self, make: impl FnOnce(&'s mut MemoryStats) -> B) -> Below<'s, B> {
        Below {
            levels: &mut self.levels,
            checks: &self.checks,
            simple: self.simple,
            nested: self.nested,
            physical_direct: false,
            written_check: written_check(&self.checks),
            written: &mut self.written,
            written_searched: 0,
            memory: make(&mut self.memory),
        }
    }

    /// The top level's caches (as `top_pair_mut`) and, separately borrowed,
    /// everything under them: what a run loop needs to finish a top-level
    /// miss without giving its borrow of the top caches back.
    /// Under the last level is what `make` makes of memory's counters
    /// (`over`).
    #[inline(always)]
    #[allow(clippy::type_complexity)]
    pub(crate) fn split_top_over<'s, B: Backing>(
        &'s mut self,
        make: impl FnOnce(&'s mut MemoryStats) -> B,
    ) -> ((&'s mut Cache, Option<&'s mut Cache>), Below<'s, B>) {
        let (top, rest) = self.levels.split_at_mut(1);
        let pair = match &mut top[0] {
            Level::Unified(c) => (c, None),
            Level::Split { i, d } => (i, Some(d)),
        };
        let checks = self.checks.get(1..).unwrap_or(&[]);
        let below = Below {
            levels: rest,
            checks,
            simple: self.simple,
            nested: self.nested,
            physical_direct: self.physical_lower,
            written_check: written_check(checks),
            written: &mut self.written,
            written_searched: 0,
            memory: make(&mut self.memory),
        };
        (pair, below)
    }

    /// The access path: `r` entering the hierarchy at level `from`
    /// (`levels()` is memory), split into lines of that level, each line
    /// accessed with everything it causes below (the rules at the top of
    /// this file). Every faster path of this crate (`hit_loop`, `Below`'s
    /// fill chain, `DirectLower`) changes exactly what this changes; the
    /// tests in tests/engine_vs_naive.rs hold them to it.
    pub fn request(&mut self, from: usize, r: Request) -> Served {
        self.all().serve(from, r)
    }

    /// `request` for `size` bytes within one line of level `t` (which must
    /// exist) that its caller's probe of that level's hit check
    /// (`Cache::probe` at `HitCheck::locate`'s or `virtual_locate`'s `set`,
    /// `key`) just found missing, nothing touched since: the miss completed
    /// as `request` completes it (`Cache::fill_or_access_missed`, then what
    /// the outcome sends below), without looking the line up again. For a
    /// caller that keeps its own hit check in front of this path (the
    /// translating simulator's L2, `vmlab-translation`'s `memsys::Tail`,
    /// counting its hits later); tested against `request` in
    /// tests/request_missed.rs.
    #[inline]
    pub fn request_missed(&mut self, t: usize, kind: RefKind, r: LineRef, size: u64, set: usize, key: u64) -> Served {
        let last = t + 1 == self.levels.len();
        let cache = self.levels[t].serving(kind);
        let line = cache.line_bytes();
        let out = cache.fill_or_access_missed(set, key, r, kind, size);
        let level = if last && !out.write_through {
            // Over memory, a fill and a victim are two counts there
            // (`beyond_fill`, as `Below::fill_below` past the last level),
            // without building a `Below` or `send`'s calls; the level is
            // the one `access_line` gives (the fill's; `send`'s, which
            // starts below `t`, for a victim alone).
            beyond_fill(&mut &mut self.memory, kind, r, line, out.fetch, out.writeback);
            if out.fetch {
                Reached::Memory
            } else if out.writeback.is_some() {
                Reached::level(t + 1)
            } else {
                Reached::level(t)
            }
        } else if out.fetch || out.write_through || out.writeback.is_some() {
            Reached::level(t).max(self.all().send(t + 1, kind, r, size, line, &out))
        } else {
            Reached::level(t)
        };
        Served { level, lines: 1, last: out }
    }

    /// Completes an access to the top level that `Cache::lookup` found to
    /// miss (`set`, `key` from its `Miss`), with everything it causes below.
    /// Returns whether the line is resident afterwards, and if so dirty.
    #[inline]
    pub(crate) fn top_missed<U: Under + ?Sized>(
        &mut self,
        under: &mut U,
        kind: RefKind,
        r: LineRef,
        size: u64,
        set: usize,
        key: u64,
    ) -> Option<bool> {
        let ((i, d), mut below) = self.split_top_over(|m| under.backing(m));
        let cache = match d {
            Some(d) if kind != RefKind::Ifetch => d,
            _ => i,
        };
        below.missed(cache, kind, r, size, set, key)
    }

    /// The top-level cache that serves `kind`.
    #[inline]
    pub(crate) fn top_mut(&mut self, kind: RefKind) -> &mut Cache {
        self.levels[0].serving(kind)
    }

    /// The top-level cache of repeat slot `slot`: 0 is the instruction (or
    /// unified) cache, 1 the data cache of a split top level.
    pub(crate) fn top_slot(&mut self, slot: usize) -> &mut Cache {
        match self.top_pair_mut() {
            (_, Some(d)) if slot == 1 => d,
            (i, _) => i,
        }
    }

    /// The top-level caches: the instruction (or unified) cache and, for a
    /// split top level, the data cache.
    #[inline(always)]
    pub(crate) fn top_pair_mut(&mut self) -> (&mut Cache, Option<&mut Cache>) {
        match &mut self.levels[0] {
            Level::Unified(c) => (c, None),
            Level::Split { i, d } => (i, Some(d)),
        }
    }

    /// Whether the top level is one cache for instructions and data.
    pub(crate) fn top_is_unified(&self) -> bool {
        matches!(self.levels.first(), Some(Level::Unified(_)))
    }

    /// Writes back (`Flush::WriteBack`) and invalidates, or invalidates
    /// (`Flush::Discard`), every line of every level, top-down, so dirty
    /// data from above lands in a level before that level is flushed. A
    /// frame counts once: empty, clean or dirty.
    pub fn flush_all(&mut self, how: Flush) -> FlushStats {
        self.all().flush_all(how)
    }

    /// `flush_all` with what leaves the last level (every dirty line the
    /// flush writes back) also handed to `sink`, after memory counted it:
    /// for an owner that must see each write-back, as the translating
    /// simulator's log of memory transfers does (`vmlab-translation`'s
    /// `memsys::Tail`).
    pub fn flush_all_into<S: Sink + ?Sized>(&mut self, how: Flush, sink: &mut S) -> FlushStats {
        self.flush_from_into(0, how, sink)
    }

    /// `flush_all_into` of levels `from` down only, the levels above left
    /// as they are: for an owner that flushed those itself, passing their
    /// dirty lines to level `from` (`request(from, ..)`) and elsewhere (the
    /// translating simulator's L1s, whose write-backs a sweep's added L2s
    /// also take). `flush_all_into` is `flush_from_into(0, ..)`; tested
    /// against it in tests/flush_from.rs.
    pub fn flush_from_into<S: Sink + ?Sized>(&mut self, from: usize, how: Flush, sink: &mut S) -> FlushStats {
        let from = from.min(self.levels.len());
        let checks = &self.checks[from..];
        Below {
            levels: &mut self.levels[from..],
            checks,
            simple: self.simple,
            nested: self.nested,
            physical_direct: false,
            written_check: written_check(checks),
            written: &mut self.written,
            written_searched: 0,
            memory: Sunk { sent: &mut self.memory, sink },
        }
        .flush_all(how)
    }

    /// Flushes or purges, top-down as `flush_all`, every copy in every
    /// cache of every line whose physical address lies in `[pa, last]`
    /// (`Cache::flush_physical_range`: a line of the range with no copy in
    /// a cache counts once there as empty).
    pub fn flush_physical_range(&mut self, pa: PhysAddr, last: PhysAddr, how: Flush) -> FlushStats {
        self.all().flush_physical_range(pa, last, how)
    }

    /// Dinero IV's copy-back of everything (`Below::copy_back_all`).
    pub fn copy_back_all(&mut self) {
        self.all().copy_back_all();
    }

    /// The cache of level `t` that serves `kind`, if there is a level `t`:
    /// for queries, counts and flushes of that cache alone (its geometry,
    /// which the hierarchy's hit checks copy, never changes).
    pub fn serving_mut(&mut self, t: usize, kind: RefKind) -> Option<&mut Cache> {
        self.levels.get_mut(t).map(|level| level.serving(kind))
    }

    /// The instruction and the data cache of level `t`, if it is a split
    /// level: both at once, as a caller that keeps views of both for a
    /// run of hits needs them (`vmlab-translation`'s `MemSys::l1_views`).
    pub fn split_mut(&mut self, t: usize) -> Option<(&mut Cache, &mut Cache)> {
        match self.levels.get_mut(t)? {
            Level::Split { i, d } => Some((i, d)),
            Level::Unified(_) => None,
        }
    }

    /// How many caches level `t` has: 1 for a unified level, 2 for a split
    /// one (instruction cache first), 0 past the last level.
    pub fn caches_in(&self, t: usize) -> usize {
        match self.levels.get(t) {
            None => 0,
            Some(Level::Unified(_)) => 1,
            Some(Level::Split { .. }) => 2,
        }
    }

    /// Cache `c` of level `t`, in `caches_in`'s order.
    pub fn level_cache(&self, t: usize, c: usize) -> Option<&Cache> {
        match (self.levels.get(t)?, c) {
            (Level::Unified(u), 0) => Some(u),
            (Level::Split { i, .. }, 0) => Some(i),
            (Level::Split { d, .. }, 1) => Some(d),
            _ => None,
        }
    }

    /// Flushes (or purges) the line holding `r` from cache `c` of level `t`
    /// alone (`Below::flush_line`). Returns what was found: one line,
    /// empty, clean or dirty; nothing for a cache that does not exist.
    pub fn flush_line(&mut self, t: usize, c: usize, r: LineRef, how: Flush) -> FlushStats {
        let mut found = FlushStats::default();
        if let Some(state) = self.all().flush_line(t, c, r, how) {
            found.count(&state);
        }
        found
    }

    /// `Below::flush_cache` over memory.
    pub(crate) fn flush_cache(&mut self, t: usize, c: usize, how: Flush) -> Option<FlushStats> {
        self.all().flush_cache(t, c, how)
    }

    /// `Below::flush_line` over memory: the state the line was found in.
    pub(crate) fn flush_line_state(&mut self, t: usize, c: usize, r: LineRef, how: Flush) -> Option<LineState> {
        self.all().flush_line(t, c, r, how)
    }

    /// `Cache::count_empty_flushes` of cache `c` of level `t`.
    pub fn count_empty_flushes(&mut self, t: usize, c: usize, n: u64, how: Flush) {
        if let Some(cache) = cache_of(&mut self.levels, t, c) {
            cache.count_empty_flushes(n, how);
        }
    }

    /// Whether every miss is completed by the specialised miss chain
    /// (`Cache::fill` at each level; see `simple`).
    pub fn misses_fill_in_place(&self) -> bool {
        self.simple
    }

    /// Whether a top-level miss that `Below::missed` completes (every miss
    /// of the associative loop, and of `word` in every loop) and that fills
    /// in place at the top is completed below by one slot compare per
    /// request in one level of direct-mapped PIPT caches
    /// (`physical_lower`).
    pub fn misses_through_physical_lower(&self) -> bool {
        self.physical_lower
    }

    /// Whether the levels under the top are one level of direct-mapped
    /// VIVT caches (with ASID tags or without) that fill in place, over
    /// memory: the virtual-direct loop then completes its misses' fetches
    /// and write-backs through `DirectLower`'s views (`Below::direct_lower`).
    pub fn misses_through_direct_lower(&self) -> bool {
        self.simple
            && match self.levels.get(1..) {
                Some([Level::Unified(c)]) => c.is_virtual_direct_below(),
                Some([Level::Split { i, d }]) => i.is_virtual_direct_below() && d.is_virtual_direct_below(),
                _ => false,
            }
    }

    /// Whether a top cache is one slot per set, physically indexed and
    /// tagged, filling in place over levels that take its fills
    /// (`Cache::is_physical_direct`, `nested`): the associative loop then
    /// completes that side's words past its memo of recent lines by
    /// translation and one slot compared (`hit_loop::slot_word`).
    pub fn top_in_one_slot(&self) -> bool {
        self.nested
            && match self.levels.first() {
                Some(Level::Unified(c)) => c.is_physical_direct(),
                Some(Level::Split { i, d }) => i.is_physical_direct() || d.is_physical_direct(),
                None => false,
            }
    }

    pub fn levels(&self) -> usize {
        self.levels.len()
    }
}

/// Cache `c` of level `t` of `levels`, in `Hierarchy::caches_in`'s order.
fn cache_of(levels: &mut [Level], t: usize, c: usize) -> Option<&mut Cache> {
    match (levels.get_mut(t)?, c) {
        (Level::Unified(u), 0) => Some(u),
        (Level::Split { i, .. }, 0) => Some(i),
        (Level::Split { d, .. }, 1) => Some(d),
        _ => None,
    }
}

/// A hit in a level that allows a probe: nothing goes further down.
const HIT_DOWN_HERE: Outcome =
    Outcome { hit: true, fetch: false, write_through: false, writeback: None, resident_dirty: None };

/// The levels from some level down to memory: what a miss in the level above
/// them reaches. Level 0 of a `Below` is the first level under that one.
/// `B`: what lies under the last of them (`Backing`).
#[derive(Debug)]
pub(crate) struct Below<'a, B: Backing = &'a mut MemoryStats> {
    levels: &'a mut [Level],
    /// `Hierarchy::checks` of the same levels.
    checks: &'a [[Option<HitCheck>; 2]],
    /// `Hierarchy::simple`, for the whole hierarchy these levels end.
    simple: bool,
    /// `Hierarchy::nested`, likewise.
    nested: bool,
    /// `Hierarchy::physical_lower` where these levels are the ones under
    /// the top (`Hierarchy::split_top_over`); false otherwise.
    physical_direct: bool,
    /// Level 0's write-side hit check where it has several ways
    /// (`written_through` remembers frames there), decided once here
    /// rather than at every written-through store.
    written_check: Option<HitCheck>,
    /// Where level 0's write side last served a written-through write to
    /// each line, direct-mapped by tag key (`written_through`): stores
    /// come in runs on a few lines, interleaved (one entry, the last line
    /// written, left 37 % of the write-through machine's writes to a search
    /// of a 16-way set, session 26).
    written: &'a mut [WrittenFrame; WRITTEN_FRAMES],
    /// Writes `written_through` found in level 0 by a search of the set,
    /// not at the remembered frame (a diagnostic, counted off the common
    /// path: `Machine::writes_below_searched`).
    written_searched: u64,
    memory: B,
}

/// A way of a cache and the tag key found there: a memo that needs no
/// invalidation, because it is used only for the same key, in the set
/// `HitCheck::locate` gives for it, and only while `Cache::hit_way` finds
/// the key still at that way of that set, which is then the one frame of
/// the set holding it (a fill follows a miss), the frame `Cache::probe`
/// would find, whichever cache wrote the entry.
#[derive(Clone, Copy, Debug)]
struct WrittenFrame {
    way: usize,
    key: u64,
}

/// Entries of `Below::written` (a power of two), 16 KB.
const WRITTEN_FRAMES: usize = 1024;

/// `Below::written_check` of levels whose hit checks are `checks`.
fn written_check(checks: &[[Option<HitCheck>; 2]]) -> Option<HitCheck> {
    checks.first().and_then(|c| c[1]).filter(|hc| !hc.direct())
}

impl WrittenFrame {
    /// Nothing remembered: no set and key `locate` gives (a key is an
    /// address shifted right by at least 2).
    const NONE: Self = Self { way: 0, key: u64::MAX };
}

/// What a request to memory touched: no line of any level.
const NO_LINE: Outcome =
    Outcome { hit: false, fetch: false, write_through: false, writeback: None, resident_dirty: None };

impl Below<'_, &mut MemoryStats> {
    /// These levels as a `DirectLower`, when they are one level whose every
    /// cache is a `VirtualDirectBelow` and every miss fills in place
    /// (`simple`: its lines are no shorter than the level above's, so each
    /// fetch and write-back lies within one of its lines).
    pub(crate) fn direct_lower(&mut self) -> Option<DirectLowers<'_>> {
        if !self.simple {
            return None;
        }
        let [level] = &mut *self.levels else { return None };
        let memory = &mut *self.memory;
        Some(match level {
            Level::Unified(c) => {
                DirectLowers::Unified(DirectLower { i: c.virtual_direct_below()?, d: Unified, memory })
            }
            Level::Split { i, d } => {
                DirectLowers::Split(DirectLower { i: i.virtual_direct_below()?, d: d.virtual_direct_below()?, memory })
            }
        })
    }
}

impl<B: Backing> Below<'_, B> {
    /// A request of `bytes` at `r` to what lies under the last level.
    pub(crate) fn beyond(&mut self, kind: RefKind, r: LineRef, bytes: u64) {
        self.memory.request(kind, r, bytes);
    }

    /// `Hierarchy::request` on these levels: `r` entering at level `from`.
    pub(crate) fn serve(&mut self, from: usize, r: Request) -> Served {
        let Some(level) = self.levels.get_mut(from) else {
            let level = self.memory.request(r.kind, r.line_ref(), r.size);
            return Served { level, lines: 0, last: NO_LINE };
        };
        let line = level.serving(r.kind).line_bytes();
        let (vaddr, paddr) = (r.vaddr.0, r.paddr.0);
        let mut served = Served { level: Reached::level(from), lines: 0, last: NO_LINE };
        // Line by line in address order, as `request_inline` splits.
        let mut va = vaddr;
        let end = vaddr + r.size;
        while va < end {
            let next = (va & !(line - 1)) + line;
            let chunk = next.min(end) - va;
            let piece = LineRef { vaddr: VirtAddr(va), paddr: PhysAddr(paddr + (va - vaddr)), asid: r.space };
            let (out, reached) = self.access_line(from, r.kind, piece, chunk);
            served.level = served.level.max(reached);
            served.lines += 1;
            served.last = out;
            va += chunk;
        }
        served
    }

    /// Flushes (or purges) the line holding `r` from cache `c` of level `t`
    /// alone; a dirty line flushed is written to level `t + 1` (or what lies
    /// under the last level). Returns the state it found the line in, or
    /// `None`, changing nothing, for a cache that does not exist.
    pub(crate) fn flush_line(&mut self, t: usize, c: usize, r: LineRef, how: Flush) -> Option<LineState> {
        let cache = cache_of(self.levels, t, c)?;
        let line = cache.line_bytes();
        let state = cache.flush_line(r.line_start(line), how);
        if let LineState::Dirty(e) = state {
            if how == Flush::WriteBack {
                self.request(t + 1, RefKind::Write, e.line_ref(), line);
            }
        }
        Some(state)
    }

    /// Flushes (or purges) every line of cache `c` of level `t` alone,
    /// dirty lines written to level `t + 1` (or what lies under the last
    /// level), as `flush_line` does for one. `None`, changing nothing, for a
    /// cache that does not exist.
    pub(crate) fn flush_cache(&mut self, t: usize, c: usize, how: Flush) -> Option<FlushStats> {
        let cache = cache_of(self.levels, t, c)?;
        let line = cache.line_bytes();
        let (counts, lines) = cache.flush_all(how);
        self.write_back(t, lines, line);
        Some(counts)
    }

    /// `Hierarchy::flush_all` on these levels.
    pub(crate) fn flush_all(&mut self, how: Flush) -> FlushStats {
        self.flush_each(|c| c.flush_all(how))
    }

    /// `Hierarchy::flush_physical_range` on these levels.
    pub(crate) fn flush_physical_range(&mut self, pa: PhysAddr, last: PhysAddr, how: Flush) -> FlushStats {
        self.flush_each(|c| c.flush_physical_range(pa, last, how))
    }

    /// Applies a flush to every cache, level by level from the top, writing
    /// each level's dirty lines into the next before that one is flushed.
    fn flush_each(&mut self, mut flush: impl FnMut(&mut Cache) -> (FlushStats, Vec<Evicted>)) -> FlushStats {
        let mut total = FlushStats::default();
        for t in 0..self.levels.len() {
            let mut dirty = Vec::new();
            for c in self.levels[t].caches_mut() {
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
    /// down level by level after writing back its own dirty lines. So, level
    /// by level from the top, the data side's dirty lines
    /// (`Cache::copy_back_all`, in Dinero's order) are written into the
    /// level below as whole-line writes, counted there as any write is,
    /// before that level copies back in turn; the last level's go to
    /// memory. Lines stay resident, clean. An instruction cache of a split
    /// level is never dirty (only fetches reach it), and Dinero does not
    /// copy it back.
    pub(crate) fn copy_back_all(&mut self) {
        for t in 0..self.levels.len() {
            let cache = self.levels[t].serving(RefKind::Write);
            let line = cache.line_bytes();
            let lines = cache.copy_back_all();
            self.write_back(t, lines, line);
        }
    }

    /// Writes `lines` of `line` bytes, flushed from level `t`, below it.
    fn write_back(&mut self, t: usize, lines: Vec<Evicted>, line: u64) {
        for v in lines {
            self.request(t + 1, RefKind::Write, v.line_ref(), line);
        }
    }

    /// Completes an access to `cache`, the level just above these levels,
    /// that missed there at `set`, `key` (as `Cache::lookup` or a failed
    /// `Cache::probe` found), with everything it causes below. Returns
    /// whether the line is resident afterwards, and if so dirty.
    #[inline]
    pub(crate) fn missed(
        &mut self,
        cache: &mut Cache,
        kind: RefKind,
        r: LineRef,
        size: u64,
        set: usize,
        key: u64,
    ) -> Option<bool> {
        let line = cache.line_bytes();
        if self.nested {
            // The caller's top level (`word`): usually set-associative.
            // A fill there (any read miss without 3C shadows, a write-through
            // top's too) sends only its fetch and victim below.
            if let Some((fetch, victim)) = cache.fill_inline(set, key, r, kind, size) {
                self.filled_above(kind, r, line, fetch, victim);
                return Some(kind == RefKind::Write);
            }
        }
        let out = cache.access_missed(set, key, r, kind, size);
        self.sent(kind, r, size, line, &out);
        out.resident_dirty
    }

    /// Whether what a fill in place of the level just above these levels
    /// sends below is only its fetch and its victim (`filled_above`): the
    /// lines nest (`Hierarchy::nested`), as `missed` requires for its fill.
    pub(crate) fn takes_fills_above(&self) -> bool {
        self.nested
    }

    /// What a fill in place of the `line`-byte line of `r` in the level
    /// just above these levels sends below (its fetch, then its victim),
    /// where `takes_fills_above` holds: `missed`'s fill branch.
    #[inline(always)]
    pub(crate) fn filled_above(&mut self, kind: RefKind, r: LineRef, line: u64, fetch: bool, victim: Option<Evicted>) {
        if self.physical_direct {
            self.physical_fill_below(kind, r, line, fetch, victim);
        } else {
            self.fill_below(0, kind, r, line, fetch, victim);
        }
    }

    /// `fill_below` from the level just above these levels (`t` = 0) where
    /// they are one level of caches that `Cache::physical_direct_access`
    /// completes (`physical_direct`): the fetch of the `line`-byte line of
    /// `r` and the victim's write-back, each one slot compared there and,
    /// on a miss, what that level's fill sends to what lies under it, in
    /// `fill_below`'s order. Exactly `fill_below`'s effect, without its
    /// per-request look-ups (level, hit check, serving cache, flags).
    #[inline(always)]
    fn physical_fill_below(&mut self, kind: RefKind, r: LineRef, line: u64, fetch: bool, victim: Option<Evicted>) {
        // Not reached without the level: `physical_direct` says it is there.
        let Some(level) = self.levels.first_mut() else { return };
        if fetch {
            let fill = if kind == RefKind::Ifetch { RefKind::Ifetch } else { RefKind::Read };
            let a = r.line_start(line);
            let c = level.serving(fill);
            let low = c.line_bytes();
            let (f, v) = c.physical_direct_access(a, fill, line);
            beyond_fill(&mut self.memory, fill, a, low, f, v);
        }
        if let Some(v) = victim {
            let a = v.line_ref();
            let c = level.serving(RefKind::Write);
            let low = c.line_bytes();
            let (f, v) = c.physical_direct_access(a, RefKind::Write, line);
            beyond_fill(&mut self.memory, RefKind::Write, a, low, f, v);
        }
    }

    /// What `out`, the outcome of an access of `size` bytes at `r` to the
    /// level of `line`-byte lines just above these levels, asks of them, as
    /// `send` issues it; where the lines nest, each request lies within one
    /// line of level 0 and is completed by `simple_access` (the fill chain,
    /// falling back to the general rules where a level does not fill in
    /// place) instead of `send`'s general requests.
    #[inline(always)]
    fn sent(&mut self, kind: RefKind, r: LineRef, size: u64, line: u64, out: &Outcome) {
        if !(out.fetch || out.write_through || out.writeback.is_some()) {
            return;
        }
        if !self.nested {
            self.send(0, kind, r, size, line, out);
            return;
        }
        if out.fetch {
            let fill = if kind == RefKind::Ifetch { RefKind::Ifetch } else { RefKind::Read };
            self.simple_access(0, fill, r.line_start(line), line);
        }
        if out.write_through {
            self.written_through_apart(r, size);
        }
        if let Some(v) = out.writeback {
            self.simple_access(0, RefKind::Write, v.line_ref(), line);
        }
    }

    /// `written_through` out of line, for `sent`: inlined there, its memo's
    /// index cost the misses of every machine (`missed`) registers, about
    /// 0.1 instructions a reference on the 32K/1M machine (callgrind).
    #[inline(never)]
    fn written_through_apart(&mut self, r: LineRef, size: u64) {
        self.written_through(r, size);
    }

    /// The write of `size` bytes at `r` (within one line of the level just
    /// above these levels, a write-through level whose hit `Cache::hit_way`
    /// and `Cache::count_write_through` made) passed below, as `send`
    /// passes it.
    #[inline(always)]
    pub(crate) fn write_through(&mut self, r: LineRef, size: u64) {
        if self.nested {
            self.written_through(r, size);
        } else {
            self.request(0, RefKind::Write, r, size);
        }
    }

    /// `simple_access` of a write of `size` bytes at `r` passed through
    /// from the level above, where `nested` holds. In a level of several
    /// ways the frame it hits is remembered (`written`): the next write
    /// to the same line, the common case, is checked at that frame alone
    /// instead of searched for among the set's ways.
    #[inline(always)]
    fn written_through(&mut self, r: LineRef, size: u64) {
        let (Some(level), Some(hc)) = (self.levels.first_mut(), self.written_check) else {
            self.simple_access(0, RefKind::Write, r, size);
            return;
        };
        let cache = level.serving(RefKind::Write);
        let (set, key) = hc.locate(r.vaddr, r.paddr);
        let m = &mut self.written[key as usize & (WRITTEN_FRAMES - 1)];
        // `probe::<false, true>` in two steps, the search of the set
        // skipped while the remembered frame still holds the line.
        let mut hit =
            if m.key == key { cache.hit_way::<true>(&hc, set, m.way, key, r.asid, DataRef::Store) } else { None };
        if hit.is_none() {
            if let Some(way) = cache.find_way::<true>(&hc, set, key, r.asid) {
                *m = WrittenFrame { way, key };
                self.written_searched += 1;
                hit = cache.hit_way::<true>(&hc, set, way, key, r.asid, DataRef::Store);
            }
        }
        if hit.is_some() {
            cache.count_repeat_hits(RefKind::Write, 1);
            return;
        }
        self.simple_miss_ways(0, RefKind::Write, r, size, set, key);
    }

    /// How many writes passed through to level 0 `written_through` found
    /// there by a search of the set.
    pub(crate) fn writes_searched(&self) -> u64 {
        self.written_searched
    }

    /// A write of `size` bytes at `r` within one line of `cache`, the level just
    /// above these levels, when that level is write-through: `Cache::access`
    /// (a hit or a miss, allocating or not) with everything it sends below,
    /// as `Hierarchy::request` makes it. Returns whether the line is
    /// resident afterwards, and if so dirty.
    #[inline(never)]
    pub(crate) fn written(&mut self, cache: &mut Cache, r: LineRef, size: u64) -> Option<bool> {
        let line = cache.line_bytes();
        let out = cache.access(r, RefKind::Write, size);
        self.sent(RefKind::Write, r, size, line, &out);
        out.resident_dirty
    }

    /// What a `Cache::fill` of the `line`-byte line of `r` in the level
    /// above level `t` sends down, in `send`'s order: the line read (kept an
    /// instruction fetch for an instruction miss), then the victim written.
    #[inline(always)]
    pub(crate) fn fill_below(
        &mut self,
        t: usize,
        kind: RefKind,
        r: LineRef,
        line: u64,
        fetch: bool,
        victim: Option<Evicted>,
    ) {
        if t >= self.levels.len() {
            // Memory, which only counts (no call for it), or in a system
            // the shared levels.
            if fetch {
                let fill = if kind == RefKind::Ifetch { RefKind::Ifetch } else { RefKind::Read };
                self.memory.request(fill, r.line_start(line), line);
            }
            if let Some(v) = victim {
                self.memory.request(RefKind::Write, v.line_ref(), line);
            }
            return;
        }
        if fetch {
            let fill = if kind == RefKind::Ifetch { RefKind::Ifetch } else { RefKind::Read };
            self.simple_access(t, fill, r.line_start(line), line);
        }
        if let Some(v) = victim {
            self.simple_access(t, RefKind::Write, v.line_ref(), line);
        }
    }

    /// One access within one line of level `t` (or memory) of a hierarchy
    /// where `simple` holds: a probe, and for a miss a `Cache::fill` and
    /// what it sends down. Exactly `access_line`'s effect, in fewer steps.
    /// The probe inline (a hit, the common case, costs no call), the
    /// rest (`simple_miss`) out of line.
    #[inline(always)]
    fn simple_access(&mut self, t: usize, kind: RefKind, r: LineRef, size: u64) {
        let side = usize::from(kind != RefKind::Ifetch);
        let hc = self.checks.get(t).and_then(|c| c[side]);
        let (Some(level), Some(hc)) = (self.levels.get_mut(t), hc) else {
            // Memory (a level without a hit check is not reached: `simple`
            // does not hold then, but the general path stays exact).
            self.request(t, kind, r, size);
            return;
        };
        let cache = level.serving(kind);
        let (set, key, hit) = probe_counted(cache, &hc, kind, r);
        if hit.is_some() {
            return;
        }
        if hc.direct() {
            self.simple_miss(t, kind, r, size, set, key);
        } else {
            self.simple_miss_ways(t, kind, r, size, set, key);
        }
    }

    /// `simple_access` after its probe missed at `set`, `key` of level `t`,
    /// a one-way level.
    #[inline(never)]
    fn simple_miss(&mut self, t: usize, kind: RefKind, r: LineRef, size: u64, set: usize, key: u64) {
        self.simple_miss_in::<false>(t, kind, r, size, set, key);
    }

    /// `simple_miss` for a level of several ways, with its victim search
    /// inline (`Cache::fill_inline`); apart so a one-way chain keeps the
    /// small frame of `simple_miss`.
    #[inline(never)]
    fn simple_miss_ways(&mut self, t: usize, kind: RefKind, r: LineRef, size: u64, set: usize, key: u64) {
        self.simple_miss_in::<true>(t, kind, r, size, set, key);
    }

    #[inline(always)]
    fn simple_miss_in<const WAYS: bool>(
        &mut self,
        t: usize,
        kind: RefKind,
        r: LineRef,
        size: u64,
        set: usize,
        key: u64,
    ) {
        // Not reached without level `t`: the probe just found it.
        let Some(level) = self.levels.get_mut(t) else { return };
        let cache = level.serving(kind);
        let line = cache.line_bytes();
        let filled =
            if WAYS { cache.fill_inline(set, key, r, kind, size) } else { cache.fill(set, key, r, kind, size) };
        match filled {
            Some((fetch, victim)) => self.fill_below(t + 1, kind, r, line, fetch, victim),
            None => self.general_miss(t, kind, r, size, set, key),
        }
    }

    /// A miss at `set`, `key` of level `t` completed by the general rules
    /// (`Cache::access_missed`, then `send`). Not reached from
    /// `simple_miss` (every level of a `simple` hierarchy fills in place),
    /// but exact all the same; out of line so the fill keeps its `LineRef`
    /// in registers.
    #[cold]
    #[inline(never)]
    fn general_miss(&mut self, t: usize, kind: RefKind, r: LineRef, size: u64, set: usize, key: u64) {
        let Some(level) = self.levels.get_mut(t) else { return };
        let cache = level.serving(kind);
        let line = cache.line_bytes();
        let out = cache.access_missed(set, key, r, kind, size);
        self.send(t + 1, kind, r, size, line, &out);
    }

    #[inline(never)]
    fn request(&mut self, t: usize, kind: RefKind, r: LineRef, size: u64) -> Reached {
        self.request_inline(t, kind, r, size)
    }

    /// A request of `size` bytes at `r` to level `t` (or what lies under
    /// the last level), split into that level's lines. Returns the deepest
    /// level any line was served at (`Served::level`).
    #[inline(always)]
    fn request_inline(&mut self, t: usize, kind: RefKind, r: LineRef, size: u64) -> Reached {
        let Some(level) = self.levels.get_mut(t) else {
            return self.memory.request(kind, r, size);
        };
        let line = level.serving(kind).line_bytes();
        let (vaddr, paddr) = (r.vaddr.0, r.paddr.0);
        if size != 0 && (vaddr & (line - 1)) + size <= line {
            // Within one line (every fill, write-back and write-through between
            // levels of equal line size).
            return self.access_line(t, kind, r, size).1;
        }
        let mut reached = Reached::level(t);
        let mut va = vaddr;
        let end = vaddr + size;
        while va < end {
            let next = (va & !(line - 1)) + line;
            let chunk = next.min(end) - va;
            let piece = LineRef { vaddr: VirtAddr(va), paddr: PhysAddr(paddr + (va - vaddr)), asid: r.asid };
            reached = reached.max(self.access_line(t, kind, piece, chunk).1);
            va += chunk;
        }
        reached
    }

    /// One access that lies within one line of level `t` (which must exist),
    /// with everything it causes below. Returns the level's outcome and
    /// where the access was served (`Served::level`).
    #[inline]
    fn access_line(&mut self, t: usize, kind: RefKind, r: LineRef, size: u64) -> (Outcome, Reached) {
        let side = usize::from(kind != RefKind::Ifetch);
        let cache = self.levels[t].serving(kind);
        let line = cache.line_bytes();
        let out = match self.checks.get(t).and_then(|c| c[side]) {
            // A level that allows a probe: a hit changes what `access`
            // changes (replacement, dirty bit; nothing goes down, the level
            // being write-back) but the counter, added here; a miss is
            // finished as `access` finishes it.
            Some(hc) => {
                let (set, key, hit) = probe_counted(cache, &hc, kind, r);
                if let Some(dirty) = hit {
                    return (Outcome { resident_dirty: Some(dirty), ..HIT_DOWN_HERE }, Reached::level(t));
                }
                cache.access_missed(set, key, r, kind, size)
            }
            None => cache.access(r, kind, size),
        };
        let mut reached = Reached::level(t);
        if out.fetch || out.write_through || out.writeback.is_some() {
            reached = reached.max(self.send(t + 1, kind, r, size, line, &out));
        }
        (out, reached)
    }

    /// Issues to level `t` what `out`, the outcome of an access of `size`
    /// bytes at `r` to a level of `line`-byte lines just above it, asks of
    /// the level below, in `Outcome`'s (Dinero's) order. Returns where the
    /// fill and the write passed on were served (a victim's write-back is
    /// not the access's own: `Served::level`).
    #[inline(never)]
    fn send(&mut self, t: usize, kind: RefKind, r: LineRef, size: u64, line: u64, out: &Outcome) -> Reached {
        let mut reached = Reached::level(t);
        if out.fetch {
            let fill = if kind == RefKind::Ifetch { RefKind::Ifetch } else { RefKind::Read };
            reached = self.request_inline(t, fill, r.line_start(line), line);
        }
        if out.write_through {
            reached = reached.max(self.request(t, RefKind::Write, r, size));
        }
        if let Some(v) = out.writeback {
            self.request(t, RefKind::Write, v.line_ref(), line);
        }
        reached
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
    /// of the hierarchy these levels end).
    fn fills_in_place(&self) -> bool;

    /// `Below::fill_below` from the level just above these levels (`t` = 0).
    fn fill_below(&mut self, kind: RefKind, r: LineRef, line: u64, fetch: bool, victim: Option<Evicted>);
}

impl<B: Backing> Lower for Below<'_, B> {
    #[inline(always)]
    fn fills_in_place(&self) -> bool {
        self.simple
    }

    #[inline(always)]
    fn fill_below(&mut self, kind: RefKind, r: LineRef, line: u64, fetch: bool, victim: Option<Evicted>) {
        // Not `physical_fill_below` where it would serve (a virtual-direct
        // top over PIPT levels): its test here cost the untagged VIVT
        // machine 1.1 instructions a reference (callgrind), for a shape
        // no preset has.
        Below::fill_below(self, 0, kind, r, line, fetch, victim);
    }
}

/// The levels under the top when they are one level of direct-mapped VIVT
/// caches (with ASID tags or without) that fill in place, over memory (`Below::direct_lower`),
/// borrowed as `VirtualDirectBelow` views for a run: a top-level miss's
/// fetch and write-back are then each one slot compare and, on a miss
/// there, one slot replaced and memory counted, without the general
/// chain's per-access look-ups (level, hit check, serving cache, flags).
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
    /// level 0), then what its miss sends to memory.
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
    fn fill_below(&mut self, kind: RefKind, r: LineRef, line: u64, fetch: bool, victim: Option<Evicted>) {
        if fetch {
            let fill = if kind == RefKind::Ifetch { RefKind::Ifetch } else { RefKind::Read };
            // `r` as it is: this level's lines are no shorter than the
            // level above's (`simple`), so the line of the fetch (the line
            // above's first byte) is the line of `r.vaddr`, and its
            // physical line that of `r.paddr` (the page offset is shared).
            self.access(fill, r, line);
        }
        if let Some(v) = victim {
            self.access(RefKind::Write, v.line_ref(), line);
        }
    }
}

/// What a fill of a `line`-byte line in the last level (for an access of
/// `kind` at `r`) sends to `memory`, as `Below::fill_below` past the last
/// level sends it: the line read (kept an instruction fetch for an
/// instruction miss), then the victim written. (`fill_below` keeps its own
/// copy: calling this there cost the untagged VIVT machine 0.18
/// instructions a reference, callgrind, session 18.)
#[inline(always)]
fn beyond_fill<B: Backing>(memory: &mut B, kind: RefKind, r: LineRef, line: u64, fetch: bool, victim: Option<Evicted>) {
    if fetch {
        let fill = if kind == RefKind::Ifetch { RefKind::Ifetch } else { RefKind::Read };
        memory.request(fill, r.line_start(line), line);
    }
    if let Some(v) = victim {
        memory.request(RefKind::Write, v.line_ref(), line);
    }
}

/// A lower level's probe through its hit check, with a hit counted as
/// `Cache::access` counts it (a hit there changes only what `probe`
/// changes). Returns the set and key (for `access_missed` after a miss) and
/// the hit's dirty bit, if it hit.
#[inline(always)]
fn probe_counted(cache: &mut Cache, hc: &HitCheck, kind: RefKind, r: LineRef) -> (usize, u64, Option<bool>) {
    let (set, key) = hc.locate(r.vaddr, r.paddr);
    let write = kind == RefKind::Write;
    let hit = if hc.direct() {
        cache.probe::<true, true>(hc, set, key, r.asid, write)
    } else {
        cache.probe::<false, true>(hc, set, key, r.asid, write)
    };
    if hit.is_some() {
        cache.count_repeat_hits(kind, 1);
    }
    (set, key, hit)
}
