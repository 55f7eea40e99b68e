//! The two cache tiers of a translating machine (split L1, split or unified
//! L2, then memory), connected by the same rules as `vmlab_machine`'s
//! hierarchy (docs/reference-semantics.md): a miss fetches the whole line
//! below, a write not absorbed by a write-back line goes below, a dirty
//! victim is written below. A NOTLB run is checked against that hierarchy
//! counter for counter.
//!
//! Below the L1s is `Tail`: the machine's own L2 and memory, a one-level
//! `vmlab_machine::Hierarchy` whose public path (`Hierarchy::request`,
//! `request_missed` after `Tail`'s own direct probe missed) serves every
//! L2 line; only the L1s are still walked here. A sweep may
//! add further L2s fed the same L1 outcomes (`L2Sweep`, implemented by
//! `crate::fanout::L2Fanout`); a machine on its own has none (`Alone`),
//! and every call to them compiles away.
//!
//! What it adds: the level that served each access (for VMCPI penalties and
//! Table 1), and the machine crate's `TransferLog` of the transfers that
//! reached memory for mapped lines, tagged fill, write-back or
//! write-through, so a scheme that translates at memory (SOFTVM, SPUR) can
//! see the fills and write-backs it must translate.

use vmlab_addr::{Asid, PhysAddr, VirtAddr};
use vmlab_cache::{
    Cache, CacheStats, Flush, FlushStats, GeometryError, HitCheck, LineRef, Lookup, Outcome, RefKind, VirtualDirect,
};
use vmlab_machine::{
    Cause, Hierarchy, Ledger, LevelConfig, Mechanism, MemoryStats, MissClasses, Reached, Request, Sink, Transfer,
    TransferLog,
};

use crate::config::VmConfig;
use crate::result::{SideEvents, TlbLookup, VmResult};
use crate::vmcpi::Vmcpi;

/// Where the L1s serve an access, numbered as the machine's hierarchy
/// numbers its levels (`Reached::Level(0)`); the L2s are `L2`, memory
/// `Reached::Memory`.
pub const L1: Reached = Reached::Level(0);
/// Where the L2s serve an access.
pub const L2: Reached = Reached::Level(1);

/// The L2s a sweep adds below a machine's L1s, each fed what those L1s
/// send down, with the counts that depend on them (Table 1's levels below
/// L1, the VMCPI ledger's requests): `crate::fanout::L2Fanout`, or none
/// (`Alone`). A type parameter of `MemSys` and `VmSim`, so a machine on its
/// own runs no code for it.
///
/// Contract: it never touches the L1s; `below_l1` hands `own` the outcome
/// it was given exactly once (`Tail::below_l1`), in whatever order it runs
/// its own L2s, and may tell `own` only a fill that is known to hit
/// (`Fill::KnownHit`), so the machine's own results are those of the
/// machine alone; the counting methods see each event once, in order.
pub trait L2Sweep: std::fmt::Debug {
    /// Whether it adds no L2.
    fn is_empty(&self) -> bool;
    /// What an L1 access's outcome sends below, to `own` and to each added
    /// L2; returns the level that served the access on `own`.
    fn below_l1(
        &mut self,
        own: &mut OwnTail,
        kind: RefKind,
        r: LineRef,
        size: u64,
        line: u64,
        out: &Outcome,
    ) -> Reached;
    /// A dirty L1 line flushed (after `own` took it).
    fn write_back(&mut self, r: LineRef, line: u64);
    /// Writes back and invalidates the added L2s (after `own`).
    fn flush_all(&mut self);
    /// Adds the hits their direct probes found to their statistics.
    fn settle(&mut self);
    /// Turns their fast paths off, as `own`'s were.
    fn set_general(&mut self, own: &OwnTail);
    /// Probes by their direct checks, hit or miss.
    fn direct_probes(&self) -> u64;
    /// Fills they counted by inclusion.
    fn included_fills(&self) -> u64;
    /// A user piece of side `s` (0: I, 1: D) that missed L1.
    fn count(&mut self, s: usize, tlb: TlbLookup);
    /// A request of `kind` that missed L1, for the running mechanism.
    fn request(&mut self, kind: RefKind);
    /// As `request`, under `m` (a replayed request).
    fn request_as(&mut self, m: Mechanism, kind: RefKind);
    /// The VM system's work is now `m`'s (`Ledger::enter`).
    fn enter(&mut self, m: Mechanism);
    fn leave(&mut self, prev: Mechanism);
    /// Handler instructions run.
    fn instructions(&mut self, n: u64);
    /// Their configurations, in order.
    fn configs(&self) -> impl Iterator<Item = &VmConfig>;
    /// One result per added L2, built on the machine's `base` (whose L1
    /// hits are every one's, `l1_sides`); `vmcpi` prices a ledger under a
    /// configuration.
    fn results(
        &self,
        base: &VmResult,
        l1_sides: [SideEvents; 2],
        vmcpi: &dyn Fn(&Ledger, &VmConfig) -> Vmcpi,
    ) -> Vec<VmResult>;
}

/// No added L2: a machine on its own.
#[derive(Clone, Copy, Debug, Default)]
pub struct Alone;

impl L2Sweep for Alone {
    #[inline(always)]
    fn is_empty(&self) -> bool {
        true
    }
    #[inline(always)]
    fn below_l1(
        &mut self,
        own: &mut OwnTail,
        kind: RefKind,
        r: LineRef,
        size: u64,
        line: u64,
        out: &Outcome,
    ) -> Reached {
        own.below_l1(kind, r, size, line, out, Fill::LookUp)
    }
    #[inline(always)]
    fn write_back(&mut self, _: LineRef, _: u64) {}
    #[inline(always)]
    fn flush_all(&mut self) {}
    #[inline(always)]
    fn settle(&mut self) {}
    #[inline(always)]
    fn set_general(&mut self, _: &OwnTail) {}
    #[inline(always)]
    fn direct_probes(&self) -> u64 {
        0
    }
    #[inline(always)]
    fn included_fills(&self) -> u64 {
        0
    }
    #[inline(always)]
    fn count(&mut self, _: usize, _: TlbLookup) {}
    #[inline(always)]
    fn request(&mut self, _: RefKind) {}
    #[inline(always)]
    fn request_as(&mut self, _: Mechanism, _: RefKind) {}
    #[inline(always)]
    fn enter(&mut self, _: Mechanism) {}
    #[inline(always)]
    fn leave(&mut self, _: Mechanism) {}
    #[inline(always)]
    fn instructions(&mut self, _: u64) {}
    fn configs(&self) -> impl Iterator<Item = &VmConfig> {
        std::iter::empty()
    }
    fn results(&self, _: &VmResult, _: [SideEvents; 2], _: &dyn Fn(&Ledger, &VmConfig) -> Vmcpi) -> Vec<VmResult> {
        Vec::new()
    }
}

/// Whether `Tail::below_l1` looks its fill up or knows it hits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fill {
    LookUp,
    /// Every piece of the fill hits here (an included L2 hit it, or
    /// `MemSys::l2_holds` found it in a direct-probed L2): it is counted,
    /// not looked up, as a read hit in a direct-mapped level changes
    /// nothing else.
    KnownHit,
}

/// Everything below the L1s: the L2 (split or unified), memory, and the log
/// of mapped transfers; for the machine's own (`MemSys`), the L1s too, as
/// level 0 of the same hierarchy.
#[derive(Debug)]
pub struct Tail<const BASE: usize = 0> {
    /// The L2 over memory, a hierarchy of the machine crate, so an L2
    /// request that is looked up takes the one public access path
    /// (`Hierarchy::request`) and memory is counted there
    /// (`Hierarchy::memory`). The machine's own has its L1s (split) as
    /// level 0 and its L2 as level 1 (`Tail::with_l1s`); a sweep's added
    /// L2 is level 0 of a hierarchy of its own (`Tail::new`).
    l2: Hierarchy,
    /// The transfers to and from memory of mapped lines, noted from the
    /// L2's outcome for each line (what a last level sends to memory is
    /// its fill, its write passed on and its dirty victim, in that order);
    /// keeps none (`TransferLog::new(None)`) where nobody reads them
    /// (schemes that do not translate at memory, a sweep's added L2s).
    log: TransferLog,
    /// Whether the fast paths are off (`set_general`).
    general: bool,
    /// For the L2 serving each kind: the inline hit check of a direct-mapped,
    /// VIVT, ASID-tagged, write-back level without 3C shadow (every S1 grid
    /// machine), or `None`; as `MemSys::l1_direct`.
    l2_direct: [Option<HitCheck>; 3],
    /// Hits found by the direct probes, by kind, not yet added to the L2
    /// statistics (`settle`).
    direct_hits: [u64; 3],
    direct_probes: u64,
    /// Whether the latest `below_l1` sent a fill here and every piece of
    /// it hit: then the fill hits every larger L2 that includes this one
    /// (`crate::fanout::L2Fanout`).
    fill_hit: bool,
    /// Fills counted as hits because an included L2 hit them (never
    /// reset): lets tests prove the one pass over L2 sizes ran.
    included_fills: u64,
    /// Log2 of the line size of the L2 serving each kind: read on every
    /// L1 miss, where finding the cache (split or unified) and its
    /// geometry again cost SOFTVM's filter stops about 3 % of their
    /// instructions. A cache's geometry never changes.
    l2_line_shift: [u32; 3],
}

/// Notes on `log` the transfers between a `Tail`'s L2 and memory that a
/// flush causes: every one is a dirty line written back.
struct FlushedToMemory<'a>(&'a mut TransferLog);

impl Sink for FlushedToMemory<'_> {
    fn request(&mut self, _: RefKind, r: LineRef, _: u64) {
        self.0.note(Cause::WriteBack, r.vaddr, r.asid);
    }

    fn flush_all(&mut self) {}
}

/// The inline hit check of `c` if a hit there needs no translation and no
/// replacement update: one way, virtual index and tag with ASIDs.
fn direct_check(c: &Cache) -> Option<HitCheck> {
    c.hit_check().filter(|hc| hc.direct() && !hc.needs_translation())
}

/// The machine's own `Tail`: its L1s (split) level 0 of the hierarchy,
/// its L2 level 1.
pub type OwnTail = Tail<1>;

impl Tail {
    /// The L2 and memory of `cfg`, keeping the transfers to and from
    /// memory of lines below `unmapped_base` (or of none): a sweep's added
    /// L2, fed the L1 outcomes of the machine's own L1s.
    pub(crate) fn new(cfg: &VmConfig, unmapped_base: Option<VirtAddr>) -> Result<Self, GeometryError> {
        Self::build(cfg, unmapped_base)
    }
}

impl OwnTail {
    /// `Tail::new` under `cfg`'s L1s (level 0 of the same hierarchy): the
    /// machine's own.
    fn with_l1s(cfg: &VmConfig, unmapped_base: Option<VirtAddr>) -> Result<Self, GeometryError> {
        Self::build(cfg, unmapped_base)
    }

    /// The L1 serving `kind`.
    #[inline]
    fn l1(&mut self, kind: RefKind) -> &mut Cache {
        self.l2.serving_mut(0, kind).expect("the machine's own tail has its L1s")
    }

    /// Both L1s (I, D).
    #[inline]
    fn l1_pair(&mut self) -> (&mut Cache, &mut Cache) {
        self.l2.split_mut(0).expect("the machine's own tail has split L1s")
    }
}

// The entry points below an L1 miss, on each concrete tail: non-generic,
// so compiled here once, as they were before `Tail` took `BASE`; compiled
// in each crate that instantiates `MemSys` instead, SOFTVM and SPUR ran
// about 0.8 % more instructions (callgrind, docs/performance.md, session 26).
macro_rules! below_l1_entry_points {
    ($tail:ty) => {
        impl $tail {
            /// What an L1 access's outcome sends below: its fill, a
            /// write-through write, its victim's write-back. Returns the
            /// level that served the access (L1 if it was an L1 hit that
            /// sent nothing below).
            pub(crate) fn below_l1(
                &mut self,
                kind: RefKind,
                r: LineRef,
                size: u64,
                line: u64,
                out: &Outcome,
                fill: Fill,
            ) -> Reached {
                self.below_l1_in(kind, r, size, line, out, fill)
            }

            /// A request to L2, split at L2 line boundaries
            /// (`l2_request_in`).
            pub(crate) fn l2_request(&mut self, kind: RefKind, r: LineRef, size: u64) -> Reached {
                self.l2_request_in(kind, r, size)
            }
        }
    };
}
below_l1_entry_points!(Tail<0>);
below_l1_entry_points!(OwnTail);

// The level of the L2 is a constant (`BASE`), not a field: read on every L1
// miss, a field cost the translating schemes about 0.7 % of their
// instructions (callgrind, docs/performance.md, session 26).
impl<const BASE: usize> Tail<BASE> {
    /// The hierarchy of `cfg`'s L2 (level `BASE`) over memory, under its
    /// L1s if `BASE` is 1.
    fn build(cfg: &VmConfig, unmapped_base: Option<VirtAddr>) -> Result<Self, GeometryError> {
        let level = match (&cfg.l2, &cfg.l2i, &cfg.l2d) {
            (Some(u), _, _) => LevelConfig::Unified { name: "l2".into(), cache: u.clone() },
            (None, Some(i), Some(d)) => {
                LevelConfig::Split { i_name: "l2i".into(), i: i.clone(), d_name: "l2d".into(), d: d.clone() }
            }
            // VmConfig::check rejects anything else; an empty unified L2 of
            // the L1's shape would be a silent wrong machine, so fail loudly.
            _ => return Err(GeometryError("no L2 configured".into())),
        };
        let mut levels = Vec::with_capacity(2);
        if BASE == 1 {
            levels.push(LevelConfig::Split {
                i_name: "l1i".into(),
                i: cfg.l1i.clone(),
                d_name: "l1d".into(),
                d: cfg.l1d.clone(),
            });
        }
        levels.push(level);
        let mut l2 = Hierarchy::new(&levels, MissClasses::Unsorted)?;
        let mut serving = |kind: RefKind| l2.serving_mut(BASE, kind).map(|c| (direct_check(c), c.line_bytes()));
        let (mut l2_direct, mut l2_line_shift) = ([None; 3], [0; 3]);
        for kind in [RefKind::Ifetch, RefKind::Read, RefKind::Write] {
            let Some((check, line)) = serving(kind) else {
                return Err(GeometryError("no L2 configured".into()));
            };
            l2_direct[kind as usize] = check;
            l2_line_shift[kind as usize] = line.trailing_zeros();
        }
        Ok(Self {
            l2,
            log: TransferLog::new(unmapped_base),
            general: false,
            l2_direct,
            direct_hits: [0; 3],
            direct_probes: 0,
            fill_hit: false,
            included_fills: 0,
            l2_line_shift,
        })
    }

    /// Turns the fast paths (direct probes) off.
    pub(crate) fn set_general(&mut self) {
        self.general = true;
        self.l2_direct = [None; 3];
    }

    /// Whether the fast paths are off (`set_general`).
    pub(crate) fn is_general(&self) -> bool {
        self.general
    }

    /// The L2 serving the fills of side `s` (0: I, 1: D) and whether it is
    /// split, if its direct probe is on.
    pub(crate) fn direct_fill_cache(&self, s: usize) -> Option<(&Cache, bool)> {
        let fill = if s == 0 { RefKind::Ifetch } else { RefKind::Read };
        self.l2_direct[fill as usize]?;
        let split = self.l2.caches_in(BASE) == 2;
        Some((self.l2.level_cache(BASE, usize::from(split && s == 1))?, split))
    }

    /// Whether the latest `below_l1` sent a fill here and every piece of
    /// it hit.
    #[inline(always)]
    pub(crate) fn fill_hit(&self) -> bool {
        self.fill_hit
    }

    /// Counts a fill known to hit by inclusion (`hits`).
    #[inline(always)]
    pub(crate) fn count_included(&mut self, hits: bool) {
        self.included_fills += u64::from(hits);
    }

    pub(crate) fn included_fills(&self) -> u64 {
        self.included_fills
    }

    pub(crate) fn direct_probes(&self) -> u64 {
        self.direct_probes
    }

    #[inline]
    pub(crate) fn l2(&mut self, kind: RefKind) -> &mut Cache {
        // `build` found a level `BASE` serving every kind.
        self.l2.serving_mut(BASE, kind).expect("a Tail's hierarchy has its L2")
    }

    pub(crate) fn settle(&mut self) {
        for kind in [RefKind::Ifetch, RefKind::Read, RefKind::Write] {
            let n = std::mem::take(&mut self.direct_hits[kind as usize]);
            self.l2(kind).count_repeat_hits(kind, n);
        }
    }

    /// What an L1 access's outcome sends below: its fill, a write-through
    /// write, its victim's write-back. Returns the level that served the
    /// access (L1 if it was an L1 hit that sent nothing below).
    fn below_l1_in(&mut self, kind: RefKind, r: LineRef, size: u64, line: u64, out: &Outcome, fill: Fill) -> Reached {
        let mut level = if out.hit { L1 } else { L2 };
        self.fill_hit = false;
        if out.fetch {
            let fill_kind = if kind == RefKind::Ifetch { RefKind::Ifetch } else { RefKind::Read };
            let a = r.line_start(line);
            let l = if fill == Fill::KnownHit {
                // The L1 line's pieces at L2 lines (`l2_request`'s split of
                // an aligned line): one if the L2 line is the larger.
                self.direct_hits[fill_kind as usize] += (line >> self.l2_line_shift[fill_kind as usize]).max(1);
                L2
            } else {
                self.l2_request_in(fill_kind, a, line)
            };
            self.fill_hit = l == L2;
            level = level.max(l);
        }
        if out.write_through {
            let l = self.l2_request_in(RefKind::Write, r, size);
            if !out.hit || out.fetch {
                level = level.max(l);
            } else {
                level = l;
            }
        }
        if let Some(v) = out.writeback {
            self.l2_request_in(RefKind::Write, v.line_ref(), line);
        }
        level
    }

    /// `below_l1` with `Fill::KnownHit`, its common case (a fill that
    /// evicted no dirty line: nothing but the fill's count) done inline,
    /// without the call: most of a SOFTVM filter stop's L1 misses.
    #[inline(always)]
    pub(crate) fn below_l1_known_hit(
        &mut self,
        kind: RefKind,
        r: LineRef,
        size: u64,
        line: u64,
        out: &Outcome,
    ) -> Reached {
        if out.fetch && !out.hit && !out.write_through && out.writeback.is_none() {
            let fill_kind = if kind == RefKind::Ifetch { RefKind::Ifetch } else { RefKind::Read };
            self.direct_hits[fill_kind as usize] += (line >> self.l2_line_shift[fill_kind as usize]).max(1);
            self.fill_hit = true;
            return L2;
        }
        self.below_l1_in(kind, r, size, line, out, Fill::KnownHit)
    }

    /// A request to L2, split at L2 line boundaries (an L1 line larger than
    /// the L2 line spans several), so that each piece's outcome names the
    /// transfers it sent to memory. Returns the worst level any piece reached.
    fn l2_request_in(&mut self, kind: RefKind, r: LineRef, size: u64) -> Reached {
        let line = 1 << self.l2_line_shift[kind as usize];
        let size = size.max(1);
        if (r.vaddr.0 & (line - 1)) + size <= line {
            // Within one L2 line (every fill where the L2 line is no
            // shorter than the L1's): the loop's one piece is `r` itself.
            return self.l2_line(kind, r, size, line);
        }
        self.l2_pieces(kind, r, size, line)
    }

    /// `l2_request_in` of a request over more than one L2 line (an L1
    /// line larger than the L2's, or a write crossing one): piece by piece.
    #[inline(never)]
    fn l2_pieces(&mut self, kind: RefKind, r: LineRef, size: u64, line: u64) -> Reached {
        let (vaddr, paddr) = (r.vaddr.0, r.paddr.0);
        let mut level = L2;
        let mut va = vaddr;
        let end = vaddr + size;
        while va < end {
            let next = (va & !(line - 1)) + line;
            let chunk = next.min(end) - va;
            let piece = LineRef { vaddr: VirtAddr(va), paddr: PhysAddr(paddr + (va - vaddr)), asid: r.asid };
            // Within one L2 line: `l2_request_in`'s one-line path, so the
            // hierarchy's access path is inlined in one place only.
            level = level.max(self.l2_request_in(kind, piece, chunk));
            va += chunk;
        }
        level
    }

    /// One request within one L2 line: the hierarchy's access path, then
    /// the transfers the L2's outcome sent to memory noted in the log.
    #[inline(always)]
    fn l2_line(&mut self, kind: RefKind, r: LineRef, size: u64, line: u64) -> Reached {
        let served = if let Some(hc) = self.l2_direct[kind as usize] {
            // As in `MemSys::l1_lookup`: a direct-mapped VIVT hit is a probe
            // and a count (added at `settle`); a miss is the hierarchy's.
            self.direct_probes += 1;
            let (set, key) = hc.virtual_locate(r.vaddr);
            let write = kind == RefKind::Write;
            if self.l2(kind).probe::<true, false>(&hc, set, key, r.asid, write).is_some() {
                self.direct_hits[kind as usize] += 1;
                return L2;
            }
            self.l2.request_missed(BASE, kind, r, size, set, key)
        } else {
            self.l2.request(BASE, Request::new(kind, r.vaddr, r.paddr, r.asid, size))
        };
        let out = served.last;
        if out.fetch {
            self.log.note(Cause::Fill, r.line_start(line).vaddr, r.asid);
        }
        if out.write_through {
            self.log.note(Cause::WriteThrough, r.vaddr, r.asid);
        }
        if let Some(v) = out.writeback {
            self.log.note(Cause::WriteBack, v.vaddr, v.asid);
        }
        // Level `base` is the L2 (level 1 of the machine's path); past it
        // (`Level(base + 1)`: `send` names the level under the one that
        // sent, memory here) is memory.
        match served.level {
            Reached::Level(l) if usize::from(l) == BASE => L2,
            _ => Reached::Memory,
        }
    }

    /// Writes back and invalidates the L2s (after the L1s wrote theirs
    /// here); returns the states the lines were found in.
    pub(crate) fn flush_all(&mut self) -> FlushStats {
        self.l2.flush_from_into(BASE, Flush::WriteBack, &mut FlushedToMemory(&mut self.log))
    }

    pub fn memory(&self) -> &MemoryStats {
        self.l2.memory()
    }

    /// The L2 caches with their names.
    pub fn caches(&self) -> Vec<(&'static str, &Cache)> {
        let names: &[&'static str] = if self.l2.caches_in(BASE) == 1 { &["l2"] } else { &["l2i", "l2d"] };
        names.iter().enumerate().filter_map(|(c, &n)| Some((n, self.l2.level_cache(BASE, c)?))).collect()
    }
}

// The L2s first (`repr(C)`): an L1 miss hands them on, and with them at
// offset 0 SOFTVM and SPUR run 0.1-0.2 % fewer instructions (callgrind,
// docs/performance.md, session 17).
#[repr(C)]
#[derive(Debug)]
pub struct MemSys<S = Alone> {
    /// The machine's own L1s, L2 and memory: one `Hierarchy`, the L1s its
    /// level 0, walked here (the direct probes, the L1 outcome handed to
    /// the sweep's hook), the L2 below through `Tail`.
    own: OwnTail,
    /// The L2s a sweep added below the same L1s (`L2Sweep`).
    sweep: S,
    /// Per L1 side (I, D): the inline hit check of a direct-mapped, VIVT,
    /// ASID-tagged, write-back level without 3C shadow, or `None`. Such a
    /// level's hit is `Cache::probe` (a dirty bit at most; no replacement
    /// state) plus one access counted; the counts wait in `direct_hits`
    /// until `settle`. `HitCheck::virtual_locate` gives the set and key
    /// without testing the index/tag flags per access.
    l1_direct: [Option<HitCheck>; 2],
    /// Line size of the L1 of each side (I, D): read on every L1 miss,
    /// where finding the cache in the hierarchy for it cost a second reach
    /// (`Tail::l1`) per miss. A cache's geometry never changes.
    l1_line: [u64; 2],
    /// Per L1 side: whether a miss whose line `l2_holds` found in the
    /// machine's own L2 may be counted as that L2 hit (`l1_missed_l2_hit`):
    /// the L2 serving its fills is direct-probed, with lines no smaller
    /// than the L1's. Decided once (off with the fast paths,
    /// `set_general`), not per miss.
    fill_known_hit: [bool; 2],
    /// Hits found by the L1 direct probes, by kind, not yet settled.
    direct_hits: [u64; 3],
    /// Every probe by the L1 direct checks, hit or miss (never reset): lets
    /// tests prove the direct paths ran.
    direct_probes: u64,
}

impl MemSys {
    /// The machine of `cfg` on its own, keeping the transfers to and from
    /// memory of lines below `unmapped_base` (`transfers_since`), or of none.
    pub fn new(cfg: &VmConfig, unmapped_base: Option<VirtAddr>) -> Result<Self, GeometryError> {
        Self::with_sweep(cfg, unmapped_base, Alone)
    }
}

impl<S: L2Sweep> MemSys<S> {
    /// `new`, with `sweep`'s L2s below the same L1s.
    pub fn with_sweep(cfg: &VmConfig, unmapped_base: Option<VirtAddr>, sweep: S) -> Result<Self, GeometryError> {
        let mut own = OwnTail::with_l1s(cfg, unmapped_base)?;
        let l1_direct = [direct_check(own.l1(RefKind::Ifetch)), direct_check(own.l1(RefKind::Read))];
        let l1_line = [own.l1(RefKind::Ifetch).line_bytes(), own.l1(RefKind::Read).line_bytes()];
        let fill_known_hit = [RefKind::Ifetch, RefKind::Read].map(|fill| {
            let s = usize::from(fill != RefKind::Ifetch);
            own.l2_direct[fill as usize].is_some() && l1_line[s] <= 1 << own.l2_line_shift[fill as usize]
        });
        Ok(Self { own, sweep, l1_direct, l1_line, fill_known_hit, direct_hits: [0; 3], direct_probes: 0 })
    }

    /// The sweep's added L2s and the counts that depend on them.
    #[inline(always)]
    pub fn sweep(&self) -> &S {
        &self.sweep
    }

    #[inline(always)]
    pub fn sweep_mut(&mut self) -> &mut S {
        &mut self.sweep
    }

    /// The sweep's L2s with the machine's own (which they may need to
    /// order themselves against: `crate::fanout::L2Fanout::add`).
    pub(crate) fn sweep_and_own(&mut self) -> (&mut S, &OwnTail) {
        (&mut self.sweep, &self.own)
    }

    /// The machine's own L2 and memory.
    pub fn own_tail(&self) -> &OwnTail {
        &self.own
    }

    /// Turns the fast paths (direct probes, hits finished by `lookup`) off:
    /// the general path the fast one is tested against.
    pub fn set_general(&mut self) {
        self.l1_direct = [None; 2];
        self.fill_known_hit = [false; 2];
        self.own.set_general();
        self.sweep.set_general(&self.own);
    }

    /// Probes by the direct checks, hit or miss, at every level.
    pub fn direct_probes(&self) -> u64 {
        self.direct_probes + self.own.direct_probes() + self.sweep.direct_probes()
    }

    /// Fills counted by inclusion at every L2 (`crate::fanout::L2Fanout`).
    pub fn included_fills(&self) -> u64 {
        self.own.included_fills() + self.sweep.included_fills()
    }

    /// Adds the hits the direct probes found to the caches' statistics;
    /// call before reading `stats`.
    pub fn settle(&mut self) {
        for kind in [RefKind::Ifetch, RefKind::Read, RefKind::Write] {
            let n = std::mem::take(&mut self.direct_hits[kind as usize]);
            self.l1(kind).count_repeat_hits(kind, n);
        }
        self.own.settle();
        self.sweep.settle();
    }

    #[inline]
    pub fn l1(&mut self, kind: RefKind) -> &mut Cache {
        self.own.l1(kind)
    }

    /// The machine's own L2 serving `kind`.
    #[inline]
    pub fn l2(&mut self, kind: RefKind) -> &mut Cache {
        self.own.l2(kind)
    }

    /// Whether an access of `kind` to this line would be served by L1 or L2
    /// without reaching memory (nothing changes).
    pub fn resident(&mut self, kind: RefKind, r: LineRef) -> bool {
        self.l1_contains(kind, r) || self.l2_holds(kind, r)
    }

    /// Whether the L1 serving `kind` holds `r`'s line; changes nothing.
    /// The direct probe where the L1 has one (`l1_holds`: the same answer
    /// as `Cache::contains` there, in fewer steps; SOFTVM and SPUR ask
    /// this for every mapped PTE they load).
    #[inline]
    fn l1_contains(&mut self, kind: RefKind, r: LineRef) -> bool {
        let s = usize::from(kind != RefKind::Ifetch);
        match self.l1_holds(s, r.vaddr, r.asid) {
            Some(held) => held,
            None => self.l1(kind).contains(r),
        }
    }

    /// One access within one L1 line, with everything it causes below.
    /// Returns the level that served it: L1 for a hit, L2 for an L1 miss
    /// whose fill hit L2, memory otherwise. A write that an L1 absorbs is an
    /// L1 hit; a write-through write is served where it lands.
    pub fn access(&mut self, kind: RefKind, r: LineRef, size: u64) -> Reached {
        let l1 = self.l1(kind);
        let line = l1.line_bytes();
        let out = l1.access(r, kind, size);
        if out.hit && !out.write_through {
            return L1;
        }
        self.below_l1(kind, r, size, line, &out)
    }

    /// `access` with the L1 hit finished inline: `Cache::lookup` completes
    /// a hit that sends nothing downstream exactly as `Cache::access` would
    /// (its documented contract) and hands a miss to `access_missed` without
    /// a second lookup. Same result, same state, as `access`.
    #[inline(always)]
    pub fn access_fast(&mut self, kind: RefKind, r: LineRef, size: u64) -> Reached {
        match self.l1_lookup(kind, r) {
            Lookup::Hit(_) => L1,
            Lookup::Miss { set, key } => self.l1_missed(kind, set, key, r, size),
            Lookup::Full => self.access(kind, r, size),
        }
    }

    /// `Cache::lookup` on the L1 of `kind`: a hit that sends nothing below
    /// is completed; a miss changes nothing and says where the line goes
    /// (finish it with `l1_missed`, if nothing touched L1 since).
    #[inline(always)]
    pub fn l1_lookup(&mut self, kind: RefKind, r: LineRef) -> Lookup {
        let d = usize::from(kind != RefKind::Ifetch);
        let l1 = self.own.l1(kind);
        if let Some(hc) = &self.l1_direct[d] {
            // VIVT with ASIDs: the key is the virtual line number and the set
            // its low bits, as `lookup` computes them; a miss changes nothing.
            self.direct_probes += 1;
            let (set, key) = hc.virtual_locate(r.vaddr);
            return match l1.probe::<true, false>(hc, set, key, r.asid, kind == RefKind::Write) {
                Some(dirty) => {
                    self.direct_hits[kind as usize] += 1;
                    Lookup::Hit(dirty)
                }
                None => Lookup::Miss { set, key },
            };
        }
        l1.lookup(r, kind)
    }

    /// Where `l1_lookup` would put `r`'s line in the L1 of `kind` for an
    /// access known to miss there (a filter's shared stop on an unmarked
    /// set, `VmSim::filter_miss`): its `Miss`, without the probe; `None`
    /// where that L1 has no direct probe.
    #[inline(always)]
    pub fn l1_known_miss(&mut self, kind: RefKind, r: LineRef) -> Option<(usize, u64)> {
        let d = usize::from(kind != RefKind::Ifetch);
        let hc = self.l1_direct[d]?;
        let (set, key) = hc.virtual_locate(r.vaddr);
        debug_assert!(
            self.l1(kind).probe::<true, false>(&hc, set, key, r.asid, false).is_none(),
            "a known L1 miss hit"
        );
        Some((set, key))
    }

    /// Both L1s as `VirtualDirect` views (I, D), when the direct probes
    /// are on for both (`l1_direct`): the hit loop (`hit_run`) checks hits
    /// through them and reports its counts with `count_l1_hits`.
    pub fn l1_views(&mut self) -> Option<[VirtualDirect<'_>; 2]> {
        if self.l1_direct.iter().any(Option::is_none) {
            return None;
        }
        let (i, d) = self.own.l1_pair();
        match (i.virtual_direct(), d.virtual_direct()) {
            (Some(i), Some(d)) => Some([i, d]),
            _ => None,
        }
    }

    /// Whether the L1 I takes the direct-mapped VIVT probe (`l1_direct`):
    /// then a fetch that hits it changes nothing but `count_l1_hits`'s
    /// counts (`VmSim::run_handler`'s repeated handler fetches).
    pub fn l1i_direct(&self) -> bool {
        self.l1_direct[0].is_some()
    }

    /// Hits by kind found through `l1_views`: counted as `l1_lookup`'s
    /// direct probes count theirs.
    pub fn count_l1_hits(&mut self, hits: [u64; 3]) {
        for (d, h) in self.direct_hits.iter_mut().zip(hits) {
            *d += h;
        }
        self.direct_probes += hits.iter().sum::<u64>();
    }

    /// Whether the L1 of side `s` (0: I, 1: D) holds the line of `vaddr`
    /// of `asid`, by its direct probe (which changes nothing on a read);
    /// `None` where that L1 has no direct probe. A filter's stops ask this
    /// once per user line (`VmSim::l1_holds`): building a `VirtualDirect`
    /// view for it cost about 2 % of their instructions.
    #[inline]
    pub fn l1_holds(&mut self, s: usize, vaddr: VirtAddr, asid: Asid) -> Option<bool> {
        let hc = self.l1_direct[s]?;
        let l1 = self.own.l1(if s == 0 { RefKind::Ifetch } else { RefKind::Read });
        let (set, key) = hc.virtual_locate(vaddr);
        Some(l1.probe::<true, false>(&hc, set, key, asid, false).is_some())
    }

    /// A store's hit on the L1 D by its direct probe: whether it holds the
    /// line of `vaddr` of `asid`, and if so its dirty bit set, as a write
    /// hit through `l1_lookup` leaves it, but counted by the caller
    /// (`count_l1_hits`); `None` where the L1 D has no direct probe. A
    /// filter's skipped runs mark their writes this way (`VmSim::filtered_run`):
    /// building a `VirtualDirect` view per run was most of a skip's cost.
    #[inline]
    pub fn l1d_store_hit(&mut self, vaddr: VirtAddr, asid: Asid) -> Option<bool> {
        let hc = self.l1_direct[1]?;
        let (set, key) = hc.virtual_locate(vaddr);
        Some(self.own.l1(RefKind::Write).probe::<true, false>(&hc, set, key, asid, true).is_some())
    }

    /// Completes an L1 miss that `l1_lookup` found, with everything below.
    #[inline(never)]
    pub fn l1_missed(&mut self, kind: RefKind, set: usize, key: u64, r: LineRef, size: u64) -> Reached {
        let d = usize::from(kind != RefKind::Ifetch);
        let (direct, line) = (self.l1_direct[d].is_some(), self.l1_line[d]);
        let l1 = self.l1(kind);
        // A direct-probed level that fills in place takes `Cache::fill`'s
        // fewer steps (`fill_or_access_missed`); the outcome is the same.
        let out = if direct {
            l1.fill_or_access_missed(set, key, r, kind, size)
        } else {
            l1.access_missed(set, key, r, kind, size)
        };
        self.below_l1(kind, r, size, line, &out)
    }

    /// Whether the machine's own L2 serving `kind` holds `r`'s line;
    /// changes nothing. The direct probe where the L2 has one (the same
    /// answer as `Cache::contains` there, in fewer steps).
    #[inline]
    pub fn l2_holds(&mut self, kind: RefKind, r: LineRef) -> bool {
        let own = &mut self.own;
        match own.l2_direct[kind as usize] {
            Some(hc) => {
                let (set, key) = hc.virtual_locate(r.vaddr);
                own.l2(kind).probe::<true, false>(&hc, set, key, r.asid, false).is_some()
            }
            None => own.l2(kind).contains(r),
        }
    }

    /// `l1_missed` for an access whose line `l2_holds` found in the
    /// machine's own L2, nothing touched since: the L1's fill is counted as
    /// the L2 hit it is instead of looked up again, where that is exact (a
    /// direct-probed L2, whose read hit changes nothing but a count, with
    /// lines no smaller than the L1's, so the fill is the one line
    /// `l2_holds` tested; no L2s added by a sweep). Same result and state as `l1_missed`.
    #[inline(always)]
    pub fn l1_missed_l2_hit(&mut self, kind: RefKind, set: usize, key: u64, r: LineRef, size: u64) -> Reached {
        let d = usize::from(kind != RefKind::Ifetch);
        if !self.sweep.is_empty() || !self.fill_known_hit[d] {
            return self.l1_missed(kind, set, key, r, size);
        }
        let line = self.l1_line[d];
        let direct = self.l1_direct[d].is_some();
        let l1 = self.l1(kind);
        let out = if direct {
            l1.fill_or_access_missed(set, key, r, kind, size)
        } else {
            l1.access_missed(set, key, r, kind, size)
        };
        self.own.below_l1_known_hit(kind, r, size, line, &out)
    }

    #[inline(always)]
    fn below_l1(&mut self, kind: RefKind, r: LineRef, size: u64, line: u64, out: &Outcome) -> Reached {
        self.sweep.below_l1(&mut self.own, kind, r, size, line, out)
    }

    pub fn memory(&self) -> &MemoryStats {
        self.own.memory()
    }

    /// A position in the log of the machine's own memory transfers
    /// (`transfers_since`).
    #[inline(always)]
    pub fn transfer_mark(&self) -> usize {
        self.own.log.mark()
    }

    /// Whether a transfer of a mapped line reached memory after `mark`.
    #[inline(always)]
    pub fn transferred_since(&self, mark: usize) -> bool {
        self.own.log.grew_since(mark)
    }

    /// Removes and yields, oldest first, the memory transfers of mapped
    /// lines recorded after `mark` (only the machine's own L2's: a
    /// sweep's are never kept).
    pub fn transfers_since(&mut self, mark: usize) -> impl Iterator<Item = Transfer> + '_ {
        self.own.log.since(mark)
    }

    /// Every cache with its name, L1 first (I before D).
    pub fn caches(&self) -> Vec<(&'static str, &Cache)> {
        let l1 = |c| self.own.l2.level_cache(0, c).expect("the machine's own tail has split L1s");
        let mut v = vec![("l1i", l1(0)), ("l1d", l1(1))];
        v.extend(self.own.caches());
        v
    }

    pub fn stats(&self) -> Vec<(&'static str, CacheStats)> {
        self.caches().into_iter().map(|(n, c)| (n, *c.stats())).collect()
    }

    /// Writes back and invalidates everything, L1 first so its dirty lines
    /// land in every L2 before the L2s are flushed. Returns the states the
    /// lines of `caches` were found in (a sweep's L2s' are not counted).
    pub fn flush_all(&mut self) -> FlushStats {
        let mut found = FlushStats::default();
        for kind in [RefKind::Ifetch, RefKind::Read] {
            let line = self.l1(kind).line_bytes();
            let (stats, dirty) = self.l1(kind).flush_all(Flush::WriteBack);
            found += stats;
            for v in dirty {
                self.own.l2_request(RefKind::Write, v.line_ref(), line);
                self.sweep.write_back(v.line_ref(), line);
            }
        }
        found += self.own.flush_all();
        self.sweep.flush_all();
        found
    }
}

#[cfg(test)]
mod tests {
    use vmlab_addr::{Asid, PhysAddr, VirtAddr};
    use vmlab_cache::{LineRef, RefKind, WritePolicy};
    use vmlab_machine::{Cause, Reached, Transfer};

    use super::{MemSys, L1};
    use crate::config::{load, VmConfig};

    const UNMAPPED: u64 = 1 << 56;

    /// jacob-mudge with a 64-byte L1 D (4 sets) and a 512-byte L2 D (32
    /// sets), 16-byte lines, all direct-mapped.
    fn tiny() -> VmConfig {
        load("jacob-mudge", &["l1d.size=64".to_string(), "l2d.size=512".to_string()]).expect("preset")
    }

    fn at(va: u64) -> LineRef {
        LineRef { vaddr: VirtAddr(va), paddr: PhysAddr(va), asid: Asid(1) }
    }

    /// `tiny()` keeping the transfers of lines below `UNMAPPED`, with its
    /// fast paths off if `general`.
    fn logging(general: bool) -> MemSys {
        let mut m = MemSys::new(&tiny(), Some(VirtAddr(UNMAPPED))).expect("machine");
        if general {
            m.set_general();
        }
        m
    }

    /// The transfers after `mark`, every one of space 1.
    fn since(m: &mut MemSys, mark: usize) -> Vec<(Cause, u64)> {
        let kept: Vec<Transfer> = m.transfers_since(mark).collect();
        assert!(kept.iter().all(|t| t.space == Asid(1)));
        kept.iter().map(|t| (t.cause, t.vaddr.0)).collect()
    }

    #[test]
    fn fills_and_write_backs_reach_the_log_with_their_cause() {
        for general in [false, true] {
            let mut m = logging(general);
            // Cold read: L1 D and L2 D miss, the line comes from memory.
            let mark = m.transfer_mark();
            assert_eq!(m.access_fast(RefKind::Read, at(0x40), 4), Reached::Memory);
            assert_eq!(since(&mut m, mark), [(Cause::Fill, 0x40)]);
            // The write-back L1 absorbs the write: nothing moves.
            let mark = m.transfer_mark();
            assert_eq!(m.access_fast(RefKind::Write, at(0x44), 4), L1);
            assert!(!m.transferred_since(mark));
            // 0x80 shares L1 set 0 with 0x40: its fill comes from memory, and
            // the dirty 0x40 is written back into L2, where it hits.
            assert_eq!(m.access_fast(RefKind::Read, at(0x80), 4), Reached::Memory);
            assert_eq!(since(&mut m, mark), [(Cause::Fill, 0x80)]);
            // 0x240 shares L2 set 4 with the dirty 0x40: fill, then the victim.
            let mark = m.transfer_mark();
            assert_eq!(m.access_fast(RefKind::Read, at(0x240), 4), Reached::Memory);
            assert_eq!(since(&mut m, mark), [(Cause::Fill, 0x240), (Cause::WriteBack, 0x40)]);
            // Unmapped memory (handler code, physical PTEs) is never kept.
            let mark = m.transfer_mark();
            assert_eq!(m.access_fast(RefKind::Read, at(UNMAPPED | 0x1000), 4), Reached::Memory);
            assert!(!m.transferred_since(mark));
            assert_eq!(m.memory().reads, 4);
            assert_eq!(m.memory().writes, 1);
        }
    }

    /// The L2's flush (`Hierarchy::flush_all_into`) hands the log every
    /// dirty line it writes to memory, as a write-back; an L1 line flushed
    /// into a dirty-able L2 reaches memory only through it.
    #[test]
    fn a_flush_logs_each_dirty_line_it_writes_to_memory_as_a_write_back() {
        for general in [false, true] {
            let mut m = logging(general);
            // 0x40 dirtied in L1 D set 0, then written back into L2 (a hit
            // there: its fill brought it) by 0x80; 0x50 dirtied in L1 D set 1.
            m.access_fast(RefKind::Write, at(0x44), 4);
            m.access_fast(RefKind::Read, at(0x80), 4);
            m.access_fast(RefKind::Write, at(0x54), 4);
            let (mark, writes) = (m.transfer_mark(), m.memory().writes);
            let found = m.flush_all();
            assert_eq!(since(&mut m, mark), [(Cause::WriteBack, 0x40), (Cause::WriteBack, 0x50)]);
            assert_eq!(m.memory().writes - writes, 2);
            // Found: L1 D's dirty 0x50 and clean 0x80, L2's dirty 0x40 and 0x50, clean 0x80.
            assert_eq!((found.dirty, found.clean), (3, 2));
        }
    }

    #[test]
    fn a_write_through_write_is_logged_at_its_own_address() {
        let mut cfg = tiny();
        cfg.l1d.write = WritePolicy::WriteThrough;
        if let Some(d) = cfg.l2d.as_mut() {
            d.write = WritePolicy::WriteThrough;
        }
        let mut m = MemSys::new(&cfg, Some(VirtAddr(UNMAPPED))).expect("machine");
        assert_eq!(m.access_fast(RefKind::Read, at(0x40), 4), Reached::Memory);
        let mark = m.transfer_mark();
        // Hits both levels, and both pass the write on: served at memory.
        assert_eq!(m.access_fast(RefKind::Write, at(0x44), 4), Reached::Memory);
        assert_eq!(since(&mut m, mark), [(Cause::WriteThrough, 0x44)]);
        assert_eq!((m.memory().writes, m.memory().bytes_written), (1, 4));
    }

    /// `l1_missed_l2_hit` (the L2 hit counted, not looked up; its common
    /// case inline, `Tail::below_l1_known_hit`) leaves what `l1_missed`
    /// leaves: fills with and without a dirty victim, L2 lines of 16 and
    /// 32 bytes under 16-byte L1 lines, reads and writes.
    #[test]
    fn an_l1_miss_known_to_hit_l2_moves_what_l1_missed_moves() {
        use vmlab_cache::Lookup;
        // (kind, address): 0x40, 0x80, 0xc0 share L1 D set 0; 0x44 dirties
        // 0x40, so refetching 0x80 (in L2) evicts a dirty line; 0x88 is
        // in 0x80's 32-byte L2 line but not its 16-byte one.
        let refs = [
            (RefKind::Read, 0x40),
            (RefKind::Write, 0x44),
            (RefKind::Read, 0x80),
            (RefKind::Read, 0x40),
            (RefKind::Write, 0x48),
            (RefKind::Read, 0x80),
            (RefKind::Read, 0x88),
            (RefKind::Write, 0xc4),
            (RefKind::Read, 0x40),
            (RefKind::Read, 0x84),
        ];
        for l2_line in [16, 32] {
            let cfg = load(
                "jacob-mudge",
                &["l1d.size=64".to_string(), "l2d.size=512".to_string(), format!("l2d.line={l2_line}")],
            )
            .expect("preset");
            let (mut known, mut looked) = (
                MemSys::new(&cfg, Some(VirtAddr(UNMAPPED))).expect("machine"),
                MemSys::new(&cfg, Some(VirtAddr(UNMAPPED))).expect("machine"),
            );
            assert!(known.own.l2_direct[RefKind::Read as usize].is_some(), "the shortcut needs a direct-probed L2");
            let mut shortcuts = 0;
            for (kind, va) in refs {
                let (mk, ml) = (known.transfer_mark(), looked.transfer_mark());
                let level = match known.l1_lookup(kind, at(va)) {
                    Lookup::Hit(_) => L1,
                    Lookup::Miss { set, key } if known.l2_holds(kind, at(va)) => {
                        shortcuts += 1;
                        known.l1_missed_l2_hit(kind, set, key, at(va), 4)
                    }
                    Lookup::Miss { set, key } => known.l1_missed(kind, set, key, at(va), 4),
                    Lookup::Full => known.access(kind, at(va), 4),
                };
                assert_eq!(level, looked.access_fast(kind, at(va), 4), "{kind:?} {va:#x}, L2 line {l2_line}");
                assert_eq!(since(&mut known, mk), since(&mut looked, ml), "{kind:?} {va:#x}");
            }
            assert!(shortcuts >= 3, "L2 line {l2_line}: {shortcuts} shortcuts");
            known.settle();
            looked.settle();
            assert_eq!(known.stats(), looked.stats(), "L2 line {l2_line}");
            assert_eq!(known.memory(), looked.memory());
        }
    }

    #[test]
    fn nothing_is_kept_without_a_bound() {
        let mut m = MemSys::new(&tiny(), None).expect("machine");
        m.access_fast(RefKind::Read, at(0x40), 4);
        assert_eq!(m.transfer_mark(), 0);
        assert_eq!(m.memory().reads, 1);
    }
}
