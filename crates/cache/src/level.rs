//! One cache level: the access path, replacement, and flush/purge.
//!
//! The access path follows Dinero IV 7 (`ref.c`, `d4ref`): a hit or an
//! allocating miss updates the replacement state; a write sets the dirty bit
//! only under write-back; a miss fetches the line unless it is a write that
//! either does not allocate or covers the whole line; a write that is not
//! absorbed by a write-back line goes downstream. The caller (the hierarchy)
//! issues the downstream requests in the order of `Outcome`'s fields.

use crate::config::{CacheConfig, IndexFn, Indexing, Replacement, WriteMissPolicy, WritePolicy};
use crate::geometry::{Geometry, GeometryError};
use crate::shadow::{Allocate, MissClass, MissClassifier, RealLookup};
use crate::stats::{CacheStats, DataRef, Fetch, FlushStats, RefKind, ViewCounts, Writeback};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;
use vmlab_addr::{Asid, LineNo, PhysAddr, VirtAddr};

/// Tag key of an empty slot. Real keys are line numbers (address >> line
/// shift, line >= 4 bytes), so they never reach this value.
const EMPTY: u64 = u64::MAX;

/// The addresses of one request, already split so it lies within one line of
/// this level. `paddr` is meaningful for every indexing (the hierarchy always
/// translates), `asid` is the issuing address space.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineRef {
    pub vaddr: VirtAddr,
    pub paddr: PhysAddr,
    pub asid: Asid,
}

impl LineRef {
    /// This reference moved to the first byte of its `line_bytes`-byte
    /// line, in both address spaces.
    #[inline(always)]
    pub fn line_start(self, line_bytes: u64) -> LineRef {
        let mask = !(line_bytes - 1);
        LineRef { vaddr: VirtAddr(self.vaddr.0 & mask), paddr: PhysAddr(self.paddr.0 & mask), asid: self.asid }
    }
}

/// A line leaving the cache: where it lives in both address spaces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Evicted {
    /// Virtual and physical address of the first byte of the line.
    pub vaddr: VirtAddr,
    pub paddr: PhysAddr,
    pub asid: Asid,
    pub dirty: bool,
}

impl Evicted {
    /// The line as a reference to its first byte: what a write-back of it
    /// sends below.
    #[inline(always)]
    pub fn line_ref(self) -> LineRef {
        LineRef { vaddr: self.vaddr, paddr: self.paddr, asid: self.asid }
    }
}

/// What one access did, and what the next level must now see, in this order:
/// `fetch` (a line read), `write_through` (the write itself), `writeback`
/// (the dirty victim). The order is Dinero's pending-stack order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub hit: bool,
    pub fetch: bool,
    pub write_through: bool,
    pub writeback: Option<Evicted>,
    /// `Some(dirty)` when the line is resident after the access.
    pub resident_dirty: Option<bool>,
}

/// What `Cache::lookup` found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lookup {
    /// A hit that sends nothing downstream, completed; whether the line is dirty.
    Hit(bool),
    /// A miss, nothing changed yet: the set and tag key to pass to `access_missed`.
    Miss { set: usize, key: u64 },
    /// A write to a write-through level: nothing looked up or changed.
    Full,
}

/// What a run loop needs to check a hit in this level inline (see
/// `Cache::hit_check`), copied out once so the loop keeps it in registers
/// instead of re-reading the level's flags per reference.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HitCheck {
    shift: u32,
    mask: u64,
    ways: usize,
    index_virtual: bool,
    tag_virtual: bool,
    asid_tags: bool,
    /// LRU over more than one way: a hit restamps its frame (`hit_way`
    /// does that itself instead of dispatching through `touch`).
    lru: bool,
    /// A write hit only sets the dirty bit. False for a write-through
    /// level (`Cache::read_hit_check`), whose writes must not be probed.
    write_back: bool,
}

impl HitCheck {
    /// Whether the level has one way per set (`Cache::probe::<true>`).
    pub fn direct(&self) -> bool {
        self.ways == 1
    }
    /// Whether a write may be checked in place too (`probe`, `hit_way`):
    /// the level is write-back. A write-through level's writes go through
    /// `Cache::access`, which sends them below.
    pub fn writes_in_place(&self) -> bool {
        self.write_back
    }
    /// The line shift (log2 of the line size).
    pub fn line_shift(&self) -> u32 {
        self.shift
    }
    /// Ways per set.
    pub fn ways(&self) -> usize {
        self.ways
    }
    /// The set index mask (`sets - 1`: bit-select over a power-of-two set
    /// count).
    pub fn set_mask(&self) -> u64 {
        self.mask
    }
    /// Whether the set index comes from the virtual address (the set of
    /// virtual line `l` is then `l & set_mask()`).
    pub fn index_virtual(&self) -> bool {
        self.index_virtual
    }
    /// Whether the level is indexed and tagged by the virtual address
    /// (VIVT), with ASID tags or without.
    pub fn virtual_tags(&self) -> bool {
        self.tag_virtual && self.index_virtual
    }
    /// Whether a hit can only be looked up with the physical address.
    pub fn needs_translation(&self) -> bool {
        !(self.tag_virtual && self.index_virtual && self.asid_tags)
    }
    /// The set and tag key of the line holding `vaddr` (`paddr`).
    #[inline(always)]
    pub fn locate(&self, vaddr: VirtAddr, paddr: PhysAddr) -> (usize, u64) {
        let (vaddr, paddr) = (vaddr.0, paddr.0);
        let set = (((if self.index_virtual { vaddr } else { paddr }) >> self.shift) & self.mask) as usize;
        (set, (if self.tag_virtual { vaddr } else { paddr }) >> self.shift)
    }
    /// The physical address of `vaddr` from the tag key of its line, when
    /// the tag is physical (the key is then the physical line number);
    /// `None` for a virtual tag.
    #[inline(always)]
    pub fn physical_address(&self, key: LineNo, vaddr: VirtAddr) -> Option<PhysAddr> {
        (!self.tag_virtual).then(|| PhysAddr((key.0 << self.shift) | (vaddr.0 & ((1 << self.shift) - 1))))
    }
    /// The set of virtual line number `line` when `needs_translation` is
    /// false (index and tag virtual: the key is the line number itself).
    #[inline(always)]
    pub fn virtual_set(&self, line: LineNo) -> usize {
        (line.0 & self.mask) as usize
    }
    /// `locate` when `needs_translation` is false, without testing the
    /// index and tag flags: the key is the virtual line number of `vaddr`
    /// and the set its low bits.
    #[inline(always)]
    pub fn virtual_locate(&self, vaddr: VirtAddr) -> (usize, u64) {
        let line = vaddr.0 >> self.shift;
        (self.virtual_set(LineNo(line)), line)
    }
}

/// A direct-mapped level indexed and tagged by virtual address with ASID
/// tags (`Cache::virtual_direct`), borrowed for a run of inline hit checks:
/// the slots' address and the set mask stay in registers instead of being
/// re-read from the level for every reference.
#[derive(Debug)]
pub struct VirtualDirect<'a> {
    tags: &'a mut [Tag],
    mask: u64,
    /// The level's counters and line shift, for `fill_deferred`; `fills` is
    /// `Cache::fills_in_place`.
    stats: &'a mut CacheStats,
    /// What `fill_deferred` counted, not yet in `stats` (`settle`).
    counts: ViewCounts,
    shift: u32,
    fills: bool,
    /// No ASID tags: a line of another address space is a hit too (a
    /// homonym), which the view leaves to its caller (`homonym`).
    untagged: bool,
}

impl VirtualDirect<'_> {
    /// Whether virtual line `line` of `asid` is resident; on a hit a store
    /// sets the dirty bit, exactly as `Cache::lookup` does for a hit in a
    /// direct-mapped write-back level (which keeps no replacement state).
    /// The caller counts the access (`Cache::count_repeat_hits`).
    #[inline(always)]
    pub fn hit(&mut self, line: LineNo, asid: Asid, access: DataRef) -> bool {
        match self.tags.get_mut((line.0 & self.mask) as usize) {
            Some(s) if s.key == line.0 && s.asid == asid => {
                s.dirty |= access.stores();
                true
            }
            _ => false,
        }
    }

    /// The number of sets (one slot each).
    pub fn sets(&self) -> usize {
        self.tags.len()
    }

    /// The virtual line held in `set` if it belongs to `asid`, else
    /// `u64::MAX`, which no line number equals, and whether it is dirty: a
    /// caller's copy of these keys answers `hit`'s question with one compare.
    #[inline]
    pub fn line_in(&self, set: usize, asid: Asid) -> (u64, bool) {
        match self.tags.get(set) {
            Some(s) if s.key != EMPTY && s.asid == asid => (s.key, s.dirty),
            _ => (u64::MAX, false),
        }
    }

    /// Whether, in a level without ASID tags, virtual line `line` is
    /// resident as another address space's line: a hit there, but one
    /// `hit` does not take (its page may be untouched by `asid`, so it
    /// must be translated first) and `fill_deferred` refuses. Always false
    /// with ASID tags.
    #[inline(always)]
    pub fn homonym(&self, line: LineNo, asid: Asid) -> bool {
        self.untagged
            && matches!(self.tags.get((line.0 & self.mask) as usize), Some(s) if s.key == line.0 && s.asid != asid)
    }

    /// `hit` without the write: whether the line is resident.
    #[inline(always)]
    pub fn resident(&self, line: LineNo, asid: Asid) -> bool {
        matches!(self.tags.get((line.0 & self.mask) as usize), Some(s) if s.key == line.0 && s.asid == asid)
    }

    /// `Cache::fill` of virtual line `line` (the line of `r.vaddr`) after
    /// `hit` found it absent, without giving the view back: the one slot of
    /// its set is replaced, and the counters move exactly as `Cache::fill`
    /// (and so `access_missed`) moves them in a one-way level, which keeps
    /// no replacement state (no clock tick, no tree bits). Returns whether
    /// the line must be fetched from below and the dirty victim to write
    /// back after the fetch; the line is resident afterwards, dirty iff
    /// `kind` is a write. `None`, changing nothing, unless the level
    /// `fills_in_place`. The caller has ruled out a `homonym` (a hit). The counters are kept in the view until `settle`: a caller must
    /// `settle` before the view is dropped, or the level's counters miss
    /// these fills (see `ViewCounts`).
    #[inline(always)]
    pub fn fill_deferred(
        &mut self,
        line: LineNo,
        r: LineRef,
        kind: RefKind,
        size: u64,
    ) -> Option<(bool, Option<Evicted>)> {
        if !self.fills {
            return None;
        }
        self.fill_deferred_in_place(line, r, kind, size)
    }

    /// `fill_deferred` for a caller that has established that the level
    /// `fills_in_place` (every level of its chain does, say), without the
    /// test per miss: `None` only past the slots, which the mask does not
    /// reach.
    #[inline(always)]
    pub fn fill_deferred_in_place(
        &mut self,
        line: LineNo,
        r: LineRef,
        kind: RefKind,
        size: u64,
    ) -> Option<(bool, Option<Evicted>)> {
        debug_assert!(self.fills, "fill_deferred_in_place on a level that does not fill in place");
        let shift = self.shift;
        let s = self.tags.get_mut((line.0 & self.mask) as usize)?;
        Some(fill_one_way(s, &mut self.counts, shift, true, Missed { key: line.0, r, kind, size }))
    }

    /// Adds what `fill_deferred` counted to the level's counters.
    pub fn settle(&mut self) {
        self.stats.settle(&mut self.counts, 1 << self.shift);
    }
}

/// A level under the top, direct-mapped, indexed and tagged by virtual
/// address, with ASID tags or without, whose misses `Cache::fill` completes
/// (`Cache::fills_in_place`): `Cache::virtual_direct_below`, borrowed for a
/// run so a fill from the level above or a write-back into it is a few
/// instructions (the slots' address, mask and counters in registers, no
/// hit-check flags, no `fills` test per access).
#[derive(Debug)]
pub struct VirtualDirectBelow<'a> {
    tags: &'a mut [Tag],
    mask: u64,
    /// No ASID tags: a line of any address space at the virtual line is a
    /// hit, as `Cache::find_slot` has it (a request reaching this level
    /// was translated above, so a homonym here needs nothing more).
    untagged: bool,
    /// The level's counters; `access` counts in `counts`, added to them by
    /// `settle`.
    stats: &'a mut CacheStats,
    counts: ViewCounts,
    shift: u32,
}

impl VirtualDirectBelow<'_> {
    /// The level's line size in bytes.
    #[inline(always)]
    pub fn line_bytes(&self) -> u64 {
        1 << self.shift
    }

    /// One access of `size` bytes at `r` lying within one line of this
    /// level, exactly as `Cache::access` makes it here: a hit sets the
    /// dirty bit for a write and is counted (in the view until `settle`); a miss replaces the set's one
    /// line (`Cache::fill`'s counters). Returns, for a miss, whether the
    /// line is fetched from below and whether a dirty victim is written
    /// back (a hit: neither); the addresses of neither matter to the
    /// memory under this level, which only counts.
    #[inline(always)]
    pub fn access(&mut self, r: LineRef, kind: RefKind, size: u64) -> (bool, bool) {
        let line = r.vaddr.0 >> self.shift;
        let shift = self.shift;
        // Not reached past the slots: the mask selects one of them.
        let Some(s) = self.tags.get_mut((line & self.mask) as usize) else { return (false, false) };
        // The untagged test only past an ASID mismatch: a tagged level's
        // hit path is as it was.
        if s.key == line && (s.asid == r.asid || self.untagged) {
            s.dirty |= kind == RefKind::Write;
            self.counts.hits[kind as usize] += 1;
            return (false, false);
        }
        let (fetch, victim) = fill_one_way(s, &mut self.counts, shift, true, Missed { key: line, r, kind, size });
        (fetch, victim.is_some())
    }

    /// Adds what `access` counted to the level's counters; a caller must
    /// call it before the view is dropped.
    pub fn settle(&mut self) {
        self.stats.settle(&mut self.counts, 1 << self.shift);
    }
}

/// An access that missed, as a fill takes it: `size` bytes of `kind` at
/// `r`, whose line has tag key `key`.
#[derive(Clone, Copy)]
struct Missed {
    key: u64,
    r: LineRef,
    kind: RefKind,
    size: u64,
}

/// `Cache::fill` in a one-way, write-back, write-allocate level without 3C
/// shadows: the frame of tag `s` (the set's only one) takes the line that
/// `m` missed; the stamp is left alone (a one-way level never reads it, and
/// `access_missed` only ticks the clock where stamps are read).
/// `tag_virtual`: `Cache::tag_virtual` (which line `Tag::other` is).
#[inline(always)]
fn fill_one_way<C: CountMiss>(
    s: &mut Tag,
    stats: &mut C,
    shift: u32,
    tag_virtual: bool,
    m: Missed,
) -> (bool, Option<Evicted>) {
    let Missed { key, r, kind, size } = m;
    let is_write = kind == RefKind::Write;
    let writeback = (s.dirty && s.key != EMPTY).then(|| {
        let (vline, pline) = lines(tag_virtual, s.key, s.other);
        Evicted { vaddr: VirtAddr(vline << shift), paddr: PhysAddr(pline << shift), asid: s.asid, dirty: true }
    });
    *s = Tag { key, other: other_line(tag_virtual, r, shift), asid: r.asid, dirty: is_write };
    let line = 1u64 << shift;
    let fetch = !is_write || size != line;
    stats.count_miss(kind, line, Fetch::when(fetch), Writeback::when(writeback.is_some()));
    (fetch, writeback)
}

/// Where `fill_one_way` counts its miss: the level's `CacheStats`, or a
/// view's `ViewCounts`.
trait CountMiss {
    fn count_miss(&mut self, kind: RefKind, line: u64, fetch: Fetch, writeback: Writeback);
}

impl CountMiss for CacheStats {
    #[inline(always)]
    fn count_miss(&mut self, kind: RefKind, line: u64, fetch: Fetch, writeback: Writeback) {
        CacheStats::count_miss(self, kind, line, fetch, writeback);
    }
}

impl CountMiss for ViewCounts {
    #[inline(always)]
    fn count_miss(&mut self, kind: RefKind, _: u64, fetch: Fetch, writeback: Writeback) {
        ViewCounts::count_miss(self, kind, fetch, writeback);
    }
}

/// What a flush does with a dirty line. The two cache-control operations
/// of the seeds (PA-RISC `fdc` and `pdc`); a bool here read as `true` at the
/// call site and meant "discard" only at the callee.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Flush {
    /// A flush: write a dirty line back below, then invalidate.
    WriteBack,
    /// A purge: invalidate, dropping dirty data.
    Discard,
}

/// The state a flush or purge found a line in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineState {
    Empty,
    Clean,
    Dirty(Evicted),
}

impl FlushStats {
    /// Counts one line a flush or purge found.
    pub fn count(&mut self, state: &LineState) {
        match state {
            LineState::Empty => self.empty += 1,
            LineState::Clean => self.clean += 1,
            LineState::Dirty(_) => self.dirty += 1,
        }
    }
}

/// One line frame but its replacement stamp: what a lookup reads and a
/// write hit sets, and the other line number for a write-back. 24 bytes
/// (was 40 with both line numbers and the stamp), so a probe of a large
/// level touches fewer host cache lines; the stamp (`Cache::stamps`) is
/// read only for a replacement decision.
#[derive(Clone, Copy, Debug)]
struct Tag {
    /// The tag key (the line number in the tag's address space), or EMPTY.
    key: u64,
    /// `other_line`: the line number in the other address space.
    other: u64,
    asid: Asid,
    dirty: bool,
}

const EMPTY_TAG: Tag = Tag { key: EMPTY, other: 0, asid: Asid(0), dirty: false };

/// Whether a frame's address space is ignored in `matches`: in a
/// physically tagged level without ASID tags (`TRANSLATED` as in
/// `Cache::probe`: false when the caller knows the tags carry ASIDs).
#[inline(always)]
fn any_asid<const TRANSLATED: bool>(hc: &HitCheck) -> bool {
    TRANSLATED && !hc.asid_tags
}

/// Whether frame `s` holds tag key `key` of `asid` (of any address space
/// if `any_asid`): the one rule of `Cache::probe`, `find_way` and `hit_way`.
#[inline(always)]
fn matches(s: &Tag, key: u64, asid: Asid, any_asid: bool) -> bool {
    s.key == key && (any_asid || s.asid == asid)
}

/// `matches`, for frame `s` at `way` of its set (false past the set's ways).
#[inline(always)]
fn holds<const TRANSLATED: bool>(hc: &HitCheck, s: &Tag, way: usize, key: u64, asid: Asid) -> bool {
    way < hc.ways && matches(s, key, asid, any_asid::<TRANSLATED>(hc))
}

/// The line number a frame keeps besides its key, for write-back: the
/// physical line of a virtually tagged level, the virtual line otherwise
/// (the key is the other one).
#[inline(always)]
fn other_line(tag_virtual: bool, r: LineRef, shift: u32) -> u64 {
    // A mask, not an `if`: LLVM made the select a store of `r` and an
    // indexed load (9 instructions in the L2 fill).
    let physical = u64::from(tag_virtual).wrapping_neg();
    ((r.paddr.0 & physical) | (r.vaddr.0 & !physical)) >> shift
}

/// A frame's (virtual, physical) line numbers from its key and other line.
#[inline(always)]
fn lines(tag_virtual: bool, key: u64, other: u64) -> (u64, u64) {
    if tag_virtual {
        (key, other)
    } else {
        (other, key)
    }
}

/// The way to replace under LRU or FIFO among `stamps` (one set's): the
/// first of the smallest. An empty frame's stamp is 0 and an occupied
/// one's at least 1 (the clock ticks before every stamp), so this is the
/// first empty way if there is one, else the least recently used (LRU) or
/// earliest filled (FIFO), earliest way on a tie: the order the general
/// rule (first empty way, then the smallest stamp) gives. One pass without
/// a branch per way.
#[inline(always)]
fn oldest(stamps: &[u64]) -> usize {
    let mut best = 0;
    let mut min = u64::MAX;
    for (w, &s) in stamps.iter().enumerate() {
        if s < min {
            min = s;
            best = w;
        }
    }
    best
}

#[derive(Debug)]
pub struct Cache {
    /// Hot-path copies of the geometry and policy, checked once in `new`.
    ways: usize,
    line_shift: u32,
    asid_tags: bool,
    write_back: bool,
    write_allocate: bool,
    /// Whether the replacement policy reads `stamps` (LRU or FIFO, ways > 1).
    stamped: bool,
    /// `fills_in_place`, fixed at construction (one flag for the miss
    /// chain to test instead of three).
    fills: bool,
    cfg: CacheConfig,
    geo: Geometry,
    tag_virtual: bool,
    index_virtual: bool,
    /// Bit-select over a power-of-two set count: the set is `line & mask`.
    plain_index: bool,
    mask: u64,
    /// Per slot (set * ways + way): the frame (`Tag`) and its replacement
    /// stamp (LRU: time of last use, FIFO: time of fill; 0 for an empty
    /// frame, see `oldest`; only read where `stamped`).
    tags: Vec<Tag>,
    stamps: Vec<u64>,
    /// Tree-PLRU: one bit word per set (ways - 1 bits used).
    plru: Vec<u64>,
    clock: u64,
    rng: Pcg64Mcg,
    classifier: Option<MissClassifier>,
    stats: CacheStats,
}

/// Whether a level sorts its misses into the 3C classes (compulsory,
/// capacity, conflict) through shadow caches, which cost a hash lookup per
/// access.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MissClasses {
    #[default]
    Unsorted,
    ThreeC,
}

impl Cache {
    /// Builds an empty level.
    pub fn new(cfg: CacheConfig, classes: MissClasses) -> Result<Self, GeometryError> {
        let geo = Geometry::new(&cfg)?;
        let n = geo.slots();
        let classifier = (classes == MissClasses::ThreeC).then(|| MissClassifier::new(n, cfg.replacement, cfg.seed));
        Ok(Self {
            ways: geo.ways as usize,
            line_shift: geo.line_shift,
            asid_tags: cfg.asid_tags,
            write_back: cfg.write == WritePolicy::WriteBack,
            write_allocate: cfg.write_miss == WriteMissPolicy::WriteAllocate,
            stamped: geo.ways > 1 && matches!(cfg.replacement, Replacement::Lru | Replacement::Fifo),
            fills: cfg.write == WritePolicy::WriteBack
                && cfg.write_miss == WriteMissPolicy::WriteAllocate
                && classifier.is_none(),
            plain_index: cfg.index == IndexFn::BitSelect && geo.set_mask.is_some(),
            mask: geo.set_mask.unwrap_or(0),
            tag_virtual: cfg.indexing.tag_is_virtual(),
            index_virtual: cfg.indexing.index_is_virtual(),
            tags: vec![EMPTY_TAG; n],
            stamps: vec![0; n],
            plru: vec![0; geo.sets as usize],
            clock: 0,
            rng: Pcg64Mcg::seed_from_u64(cfg.seed),
            classifier,
            stats: CacheStats::default(),
            cfg,
            geo,
        })
    }

    pub fn config(&self) -> &CacheConfig {
        &self.cfg
    }
    pub fn geometry(&self) -> &Geometry {
        &self.geo
    }
    pub fn stats(&self) -> &CacheStats {
        &self.stats
    }
    pub fn line_bytes(&self) -> u64 {
        self.geo.line_bytes()
    }

    /// Line frames (sets x ways).
    pub fn frames(&self) -> usize {
        self.tags.len()
    }

    #[inline(always)]
    fn set_of(&self, r: &LineRef) -> u64 {
        let shift = self.line_shift;
        if self.plain_index {
            let addr = if self.index_virtual { r.vaddr.0 } else { r.paddr.0 };
            return (addr >> shift) & self.mask;
        }
        self.set_of_hashed(r)
    }

    #[inline(never)]
    fn set_of_hashed(&self, r: &LineRef) -> u64 {
        let shift = self.line_shift;
        let addr = if self.index_virtual { r.vaddr.0 } else { r.paddr.0 };
        let line = addr >> shift;
        let hashed = match self.cfg.index {
            IndexFn::BitSelect => line,
            IndexFn::Xor => {
                let bits = self.geo.sets.trailing_zeros();
                line ^ (line >> bits)
            }
            IndexFn::SpaceHash => {
                let space = u64::from(r.asid.0) & ((1u64 << self.cfg.space_hash_bits) - 1);
                (addr ^ (space << self.cfg.space_hash_at)) >> shift
            }
        };
        match self.geo.set_mask {
            Some(m) => hashed & m,
            None => hashed % self.geo.sets,
        }
    }

    #[inline(always)]
    fn key_of(&self, r: &LineRef) -> u64 {
        let a = if self.tag_virtual { r.vaddr.0 } else { r.paddr.0 };
        a >> self.line_shift
    }

    #[inline(always)]
    fn touch(&mut self, set: usize, slot: usize) {
        if self.ways == 1 {
            // A direct-mapped set has no order to keep.
            return;
        }
        match self.cfg.replacement {
            Replacement::Lru => {
                self.clock += 1;
                self.stamps[slot] = self.clock;
            }
            Replacement::TreePlru => {
                let way = slot - set * self.geo.ways as usize;
                self.plru[set] = plru_touch(self.plru[set], way, self.geo.ways as usize);
            }
            Replacement::Fifo | Replacement::Random => {}
        }
    }

    // Inline in both fills: a call and its register saves cost a fifth of
    // a 16-way victim search.
    #[inline(always)]
    fn victim(&mut self, set: usize) -> usize {
        let ways = self.ways;
        let base = set * ways;
        if ways == 1 {
            return base;
        }
        if self.stamped {
            // LRU or FIFO: the empty way or the oldest stamp in one pass.
            return base + oldest(&self.stamps[base..base + ways]);
        }
        if let Some(w) = self.tags[base..base + ways].iter().position(|t| t.key == EMPTY) {
            return base + w;
        }
        match self.cfg.replacement {
            Replacement::TreePlru => base + plru_victim(self.plru[set], ways),
            Replacement::Random => base + self.rng.gen_range(0..ways),
            // Not reached: LRU and FIFO with more than one way are `stamped`.
            Replacement::Lru | Replacement::Fifo => base + oldest(&self.stamps[base..base + ways]),
        }
    }

    #[inline]
    fn evicted(&self, slot: usize) -> Evicted {
        let shift = self.geo.line_shift;
        let s = &self.tags[slot];
        let (vline, pline) = lines(self.tag_virtual, s.key, s.other);
        Evicted { vaddr: VirtAddr(vline << shift), paddr: PhysAddr(pline << shift), asid: s.asid, dirty: s.dirty }
    }

    /// The slot holding `key` (and `asid`, when ASIDs are tags) in the set
    /// starting at `base`.
    #[inline(always)]
    fn find_slot(&self, base: usize, key: u64, asid: Asid) -> Option<usize> {
        let ways = self.ways;
        if ways == 1 {
            let s = self.tags.get(base)?;
            let hit = s.key == key && (!self.asid_tags || s.asid == asid);
            return hit.then_some(base);
        }
        let set = self.tags.get(base..base + ways)?;
        if self.asid_tags {
            set.iter().position(|s| s.key == key && s.asid == asid).map(|w| base + w)
        } else {
            set.iter().position(|s| s.key == key).map(|w| base + w)
        }
    }

    /// One access of `size` bytes that lies within one line of this level.
    #[inline]
    pub fn access(&mut self, r: LineRef, kind: RefKind, size: u64) -> Outcome {
        let set = self.set_of(&r) as usize;
        let key = self.key_of(&r);
        match self.find_slot(set * self.ways, key, r.asid) {
            Some(slot) => self.hit(set, slot, r, kind, size),
            None => self.access_missed(set, key, r, kind, size),
        }
    }

    /// Whether the line holding `r` is resident, changing nothing (no
    /// statistics, no replacement state): for a scheme that must decide
    /// before an access whether it will miss (SOFTVM translates before the
    /// L2 miss is serviced).
    pub fn contains(&self, r: LineRef) -> bool {
        let set = self.set_of(&r) as usize;
        self.find_slot(set * self.ways, self.key_of(&r), r.asid).is_some()
    }

    /// Whether a hit may be looked up without translating first: only in a
    /// VIVT level with ASID tags, where a hit proves the same address space
    /// touched the same page before (so first-touch frame allocation order is
    /// the same either way). An untagged VIVT level can hit on another address
    /// space's line (a homonym), whose page must still be touched.
    #[inline]
    pub fn hit_needs_translation(&self) -> bool {
        !(self.tag_virtual && self.index_virtual && self.cfg.asid_tags)
    }

    /// Completes the access if it is a hit that sends nothing downstream (any
    /// hit but a write-through write). Otherwise changes nothing: a `Miss`
    /// hands back where the line would go, so the caller finishes it with
    /// `access_missed` without a second lookup; `Full` (a write to a
    /// write-through level) is finished with `access`.
    #[inline(always)]
    pub fn lookup(&mut self, r: LineRef, kind: RefKind) -> Lookup {
        if kind == RefKind::Write && !self.write_back {
            return Lookup::Full;
        }
        let set = self.set_of(&r) as usize;
        let key = self.key_of(&r);
        let Some(slot) = self.find_slot(set * self.ways, key, r.asid) else {
            return Lookup::Miss { set, key };
        };
        self.touch(set, slot);
        let s = &mut self.tags[slot];
        s.dirty |= kind == RefKind::Write;
        let dirty = s.dirty;
        self.stats.kind_mut(kind).accesses += 1;
        if self.classifier.is_some() {
            self.classify_hit(key, r.asid, kind);
        }
        Lookup::Hit(dirty)
    }

    /// The inline hit check this level allows, or `None` when a hit must
    /// go through `lookup`: the index must be a bit-select over a power-of-two
    /// set count, a write hit must send nothing down (write-back), and no 3C
    /// shadow may need to see the hit.
    pub fn hit_check(&self) -> Option<HitCheck> {
        self.read_hit_check().filter(|_| self.write_back)
    }

    /// `hit_check` for reads alone: also for a write-through level, whose
    /// read hits (and fetches) change what `lookup` changes, but whose
    /// writes the caller must complete with `access`
    /// (`HitCheck::writes_in_place` is false).
    pub fn read_hit_check(&self) -> Option<HitCheck> {
        (self.plain_index && self.classifier.is_none()).then_some(HitCheck {
            shift: self.line_shift,
            mask: self.mask,
            ways: self.ways,
            index_virtual: self.index_virtual,
            tag_virtual: self.tag_virtual,
            asid_tags: self.asid_tags,
            lru: self.ways > 1 && self.cfg.replacement == Replacement::Lru,
            write_back: self.write_back,
        })
    }

    /// This level as a `VirtualDirect`, when its hits can be checked that
    /// way: `hit_check` allows an inline check, one way, and virtual index
    /// and tag, with ASIDs or without (a hit on a line of the caller's own
    /// address space needs no translation: its fill translated it; the
    /// view leaves other address spaces' lines to the caller, `homonym`).
    pub fn virtual_direct(&mut self) -> Option<VirtualDirect<'_>> {
        let hc = self.hit_check()?;
        let fills = self.fills_in_place();
        (hc.direct() && hc.virtual_tags()).then(|| VirtualDirect {
            tags: &mut self.tags,
            mask: self.mask,
            stats: &mut self.stats,
            counts: ViewCounts::default(),
            shift: self.line_shift,
            fills,
            untagged: !self.asid_tags,
        })
    }

    /// Whether `virtual_direct_below` gives a view: one way, virtual index
    /// and tag (with ASIDs or without), an inline hit check (`hit_check`),
    /// and misses completed in place (`fills_in_place`).
    pub fn is_virtual_direct_below(&self) -> bool {
        self.hit_check().is_some_and(|hc| hc.direct() && hc.virtual_tags()) && self.fills
    }

    /// This level as a `VirtualDirectBelow`, when it is one
    /// (`is_virtual_direct_below`).
    pub fn virtual_direct_below(&mut self) -> Option<VirtualDirectBelow<'_>> {
        self.is_virtual_direct_below().then(|| VirtualDirectBelow {
            tags: &mut self.tags,
            mask: self.mask,
            untagged: !self.asid_tags,
            stats: &mut self.stats,
            counts: ViewCounts::default(),
            shift: self.line_shift,
        })
    }

    /// Whether `physical_direct_access` completes this level's accesses:
    /// one way, physical index and tag, an inline hit check (`hit_check`:
    /// bit-select, write-back, no 3C shadows) and misses completed in
    /// place (`fills_in_place`).
    pub fn is_physical_direct(&self) -> bool {
        self.hit_check().is_some_and(|hc| hc.direct() && !hc.index_virtual && !hc.tag_virtual) && self.fills
    }

    /// One access of `size` bytes at `r`, lying within one line of this
    /// level, exactly as `access` makes it in a level where
    /// `is_physical_direct` holds (the caller has checked it once): the
    /// one slot of the physical line's set is compared (a physical tag
    /// ignores the address space), a hit counted and a write's dirty bit
    /// set; a miss replaces the slot as `fill` does. Returns whether the
    /// line is fetched from below and the dirty victim to write back after
    /// the fetch (a hit: neither).
    #[inline(always)]
    pub fn physical_direct_access(&mut self, r: LineRef, kind: RefKind, size: u64) -> (bool, Option<Evicted>) {
        self.physical_direct_fill(r, kind, size).0.unwrap_or((false, None))
    }

    /// `physical_direct_access`'s hit alone, for a caller that completes
    /// the miss with `physical_direct_fill`: whether the line of physical
    /// address `paddr` is in its slot, and if so the hit counted, a
    /// write's dirty bit set, and whether the line is dirty now. On a miss
    /// changes nothing.
    #[inline(always)]
    pub fn physical_direct_hit(&mut self, paddr: PhysAddr, kind: RefKind) -> Option<bool> {
        let key = paddr.0 >> self.line_shift;
        let s = self.tags.get_mut((key & self.mask) as usize)?;
        if s.key != key {
            return None;
        }
        s.dirty |= kind == RefKind::Write;
        let dirty = s.dirty;
        self.stats.kind_mut(kind).accesses += 1;
        Some(dirty)
    }

    /// `physical_direct_access` for a caller that keeps the line's state
    /// (a top level's run loop): the fill, `None` on a hit, and whether
    /// the line, resident afterwards either way, is dirty.
    #[inline(always)]
    pub fn physical_direct_fill(
        &mut self,
        r: LineRef,
        kind: RefKind,
        size: u64,
    ) -> (Option<(bool, Option<Evicted>)>, bool) {
        let shift = self.line_shift;
        let key = r.paddr.0 >> shift;
        let write = kind == RefKind::Write;
        // Not reached past the slots: the mask selects one of them.
        let Some(s) = self.tags.get_mut((key & self.mask) as usize) else { return (None, false) };
        if s.key == key {
            s.dirty |= write;
            let dirty = s.dirty;
            self.stats.kind_mut(kind).accesses += 1;
            return (None, dirty);
        }
        (Some(fill_one_way(s, &mut self.stats, shift, false, Missed { key, r, kind, size })), write)
    }

    /// `lookup` for a level that gave `hc` (`DIRECT` = one way), at the set
    /// and key `hc.locate` gives: on a hit, updates replacement state and the
    /// dirty bit exactly as `lookup` does, but leaves the access counter to
    /// the caller, who adds its hits in bulk with `count_repeat_hits`;
    /// returns whether the line is now dirty. On a miss changes nothing.
    /// `TRANSLATED` false: the caller knows `hc.needs_translation()` is
    /// false, so the tags carry ASIDs and the flag need not be read.
    #[inline(always)]
    pub fn probe<const DIRECT: bool, const TRANSLATED: bool>(
        &mut self,
        hc: &HitCheck,
        set: usize,
        key: u64,
        asid: Asid,
        write: bool,
    ) -> Option<bool> {
        if DIRECT {
            let s = self.tags.get_mut(set)?;
            if matches(s, key, asid, any_asid::<TRANSLATED>(hc)) {
                s.dirty |= write;
                return Some(s.dirty);
            }
            None
        } else {
            let way = self.find_way::<TRANSLATED>(hc, set, key, asid)?;
            self.hit_way::<TRANSLATED>(hc, set, way, key, asid, DataRef::of_store_bit(write))
        }
    }

    /// The way of `set` holding the line `probe` looks for (same set, key
    /// and `TRANSLATED` rule), changing nothing; `None` on a miss. With
    /// `hit_way` it is `probe` in two steps, so a caller that remembers
    /// where a line lives (the associative run loop's `FrameMemo`) can skip
    /// the translation and the search on later hits.
    #[inline(always)]
    pub fn find_way<const TRANSLATED: bool>(&self, hc: &HitCheck, set: usize, key: u64, asid: Asid) -> Option<usize> {
        let base = set * hc.ways;
        let ways = self.tags.get(base..base + hc.ways)?;
        // The ASID test decided once, not per way.
        if any_asid::<TRANSLATED>(hc) {
            ways.iter().position(|s| matches(s, key, asid, true))
        } else {
            ways.iter().position(|s| matches(s, key, asid, false))
        }
    }

    /// Whether `way` of `set` (a level that gave `hc`) holds `key`, by
    /// `probe`'s rule for ASIDs; false outside the level.
    #[inline(always)]
    pub fn way_holds<const TRANSLATED: bool>(
        &self,
        hc: &HitCheck,
        set: usize,
        way: usize,
        key: u64,
        asid: Asid,
    ) -> bool {
        self.tags.get(set * hc.ways + way).is_some_and(|s| holds::<TRANSLATED>(hc, s, way, key, asid))
    }

    /// The hit `probe` makes, for a caller that remembers where the line
    /// was found (`find_way`) and its tag key: if `way` of `set` still
    /// holds `key` (by `probe`'s rule for ASIDs), the replacement update
    /// and the dirty bit, not the access counter (the caller adds it in
    /// bulk); returns whether the line is now dirty. `None`, changing
    /// nothing, if the frame holds something else now (or is outside the
    /// level). A set holds a key at most once (a fill follows a miss of
    /// it), so this is the frame `probe` would find.
    #[inline(always)]
    pub fn hit_way<const TRANSLATED: bool>(
        &mut self,
        hc: &HitCheck,
        set: usize,
        way: usize,
        key: u64,
        asid: Asid,
        access: DataRef,
    ) -> Option<bool> {
        let slot = set * hc.ways + way;
        let s = self.tags.get_mut(slot)?;
        if !holds::<TRANSLATED>(hc, s, way, key, asid) {
            return None;
        }
        // The dirty bit and the replacement state are independent: one
        // lookup of the frame serves both.
        s.dirty |= access.stores();
        let dirty = s.dirty;
        if hc.lru {
            // `touch` for LRU, the common policy, without its dispatch.
            self.clock += 1;
            self.stamps[slot] = self.clock;
        } else {
            self.touch(set, slot);
        }
        Some(dirty)
    }

    #[cold]
    #[inline(never)]
    fn classify_hit(&mut self, key: u64, asid: Asid, kind: RefKind) {
        let allocate = if kind != RefKind::Write || self.write_allocate { Allocate::Yes } else { Allocate::No };
        self.classify(key, asid, RealLookup::Hit, allocate, kind);
    }

    #[inline]
    fn hit(&mut self, set: usize, slot: usize, r: LineRef, kind: RefKind, size: u64) -> Outcome {
        self.touch(set, slot);
        let is_write = kind == RefKind::Write;
        let absorbed = is_write && self.write_back;
        if absorbed {
            self.tags[slot].dirty = true;
        }
        self.stats.kind_mut(kind).accesses += 1;
        if self.classifier.is_some() {
            self.classify_hit(self.tags[slot].key, r.asid, kind);
        }
        let write_through = is_write && !absorbed;
        if write_through {
            self.stats.write_throughs += 1;
            self.stats.bytes_out += size;
        }
        Outcome { hit: true, fetch: false, write_through, writeback: None, resident_dirty: Some(self.tags[slot].dirty) }
    }

    fn classify(&mut self, key: u64, asid: Asid, real: RealLookup, allocate: Allocate, kind: RefKind) {
        let asid = if self.cfg.asid_tags { asid } else { Asid(0) };
        let Some(c) = self.classifier.as_mut() else { return };
        let ks = self.stats.kind_mut(kind);
        match c.observe((key, asid), real, allocate) {
            Some(MissClass::Compulsory) => ks.compulsory += 1,
            Some(MissClass::Capacity) => ks.capacity += 1,
            Some(MissClass::Conflict) => ks.conflict += 1,
            None => {}
        }
    }

    /// `access_missed`'s outcome, reached through `fill` where the level
    /// fills in place (its contract: the same state and counters in fewer
    /// steps; no write-through, the line resident after, dirty iff a
    /// write), else through `access_missed` itself.
    #[inline(always)]
    pub fn fill_or_access_missed(&mut self, set: usize, key: u64, r: LineRef, kind: RefKind, size: u64) -> Outcome {
        match self.fill(set, key, r, kind, size) {
            Some((fetch, writeback)) => Outcome {
                hit: false,
                fetch,
                write_through: false,
                writeback,
                resident_dirty: Some(kind == RefKind::Write),
            },
            None => self.access_missed(set, key, r, kind, size),
        }
    }

    /// Completes an access that missed (`set` and `key` as `lookup`'s `Miss`
    /// gives them), with `r.paddr` translated.
    #[inline(never)]
    pub fn access_missed(&mut self, set: usize, key: u64, r: LineRef, kind: RefKind, size: u64) -> Outcome {
        let is_write = kind == RefKind::Write;
        let allocates = !is_write || self.write_allocate;
        let shift = self.line_shift;
        let mut writeback = None;
        let mut absorbed = false;
        let mut resident_dirty = None;
        if allocates {
            let s = self.victim(set);
            if self.tags[s].dirty && self.tags[s].key != EMPTY {
                writeback = Some(self.evicted(s));
            }
            absorbed = is_write && self.write_back;
            // Only LRU and FIFO read the stamps, and only with more than one
            // way; the clock is strictly increasing, so one tick per fill
            // orders fills and uses exactly as before.
            if self.stamped {
                self.clock += 1;
                self.stamps[s] = self.clock;
            }
            self.tags[s] = Tag { key, other: other_line(self.tag_virtual, r, shift), asid: r.asid, dirty: absorbed };
            if !self.stamped && self.ways > 1 && self.cfg.replacement == Replacement::TreePlru {
                self.touch(set, s);
            }
            resident_dirty = Some(absorbed);
        }
        let line = 1u64 << shift;
        let fetch = !is_write || (allocates && size != line);
        let write_through = is_write && !absorbed;
        self.stats.count_miss(kind, line, Fetch::when(fetch), Writeback::when(writeback.is_some()));
        if self.classifier.is_some() {
            self.classify(key, r.asid, RealLookup::Miss, if allocates { Allocate::Yes } else { Allocate::No }, kind);
        }
        if write_through {
            self.stats.write_throughs += 1;
            self.stats.bytes_out += size;
        }
        Outcome { hit: false, fetch, write_through, writeback, resident_dirty }
    }

    /// Whether `fill` may complete this level's misses: a write-back,
    /// write-allocate level without 3C shadows, where every miss allocates
    /// and nothing but the fill and the victim goes below.
    #[inline(always)]
    pub fn fills_in_place(&self) -> bool {
        self.fills
    }

    /// `access_missed` for a level where `fills_in_place` holds, in fewer
    /// steps: the victim of `set` is replaced by the line of `r` (tag
    /// `key`), and the statistics move exactly as `access_missed` moves
    /// them. Returns whether the line must be fetched from below (not for a
    /// write of the whole line) and the dirty victim to write back after
    /// the fetch; the line is resident afterwards, dirty iff `kind` is a
    /// write. `None`, changing nothing, where `fills_in_place` does not hold,
    /// except for a read in a level without 3C shadows (write-through or
    /// not allocating writes), whose read miss is this very fill.
    #[inline(always)]
    pub fn fill(
        &mut self,
        set: usize,
        key: u64,
        r: LineRef,
        kind: RefKind,
        size: u64,
    ) -> Option<(bool, Option<Evicted>)> {
        self.fill_in::<false>(set, key, r, kind, size)
    }

    /// `fill` with the many-way fill inline too: for a caller whose level
    /// is usually set-associative (the call and the result returned
    /// through memory cost ~60 instructions a fill). `fill` keeps it out
    /// of line, so a caller that is usually one-way (a direct-mapped
    /// chain) keeps a small frame.
    #[inline(always)]
    pub fn fill_inline(
        &mut self,
        set: usize,
        key: u64,
        r: LineRef,
        kind: RefKind,
        size: u64,
    ) -> Option<(bool, Option<Evicted>)> {
        self.fill_in::<true>(set, key, r, kind, size)
    }

    /// `fill` (`INLINE` false) or `fill_inline`.
    #[inline(always)]
    fn fill_in<const INLINE: bool>(
        &mut self,
        set: usize,
        key: u64,
        r: LineRef,
        kind: RefKind,
        size: u64,
    ) -> Option<(bool, Option<Evicted>)> {
        // A read miss allocates in every level (write-through or not,
        // allocating writes or not) and, without 3C shadows, changes what
        // a write-back, write-allocate level's read miss changes: so a
        // read fills in place wherever there is no shadow (a write-through
        // top's read misses take the fill chain too).
        if !(self.fills_in_place() || (kind != RefKind::Write && self.classifier.is_none())) {
            return None;
        }
        if self.ways == 1 {
            // No victim to search for and no replacement state to keep.
            let shift = self.line_shift;
            let s = self.tags.get_mut(set)?;
            return Some(fill_one_way(s, &mut self.stats, shift, self.tag_virtual, Missed { key, r, kind, size }));
        }
        if INLINE {
            self.fill_ways_inline(set, key, r, kind, size)
        } else {
            self.fill_ways(set, key, r, kind, size)
        }
    }

    /// `fill` in a level of more than one way.
    #[inline(never)]
    fn fill_ways(
        &mut self,
        set: usize,
        key: u64,
        r: LineRef,
        kind: RefKind,
        size: u64,
    ) -> Option<(bool, Option<Evicted>)> {
        self.fill_ways_inline(set, key, r, kind, size)
    }

    #[inline(always)]
    fn fill_ways_inline(
        &mut self,
        set: usize,
        key: u64,
        r: LineRef,
        kind: RefKind,
        size: u64,
    ) -> Option<(bool, Option<Evicted>)> {
        let shift = self.line_shift;
        let is_write = kind == RefKind::Write;
        let s = self.victim(set);
        let old = *self.tags.get(s)?;
        let writeback = (old.dirty && old.key != EMPTY).then(|| self.evicted(s));
        // As in `access_missed`: one clock tick per fill where stamps are read.
        if self.stamped {
            self.clock += 1;
            self.stamps[s] = self.clock;
        }
        self.tags[s] = Tag { key, other: other_line(self.tag_virtual, r, shift), asid: r.asid, dirty: is_write };
        if !self.stamped && self.ways > 1 && self.cfg.replacement == Replacement::TreePlru {
            self.touch(set, s);
        }
        let line = 1u64 << shift;
        let fetch = !is_write || size != line;
        self.stats.count_miss(kind, line, Fetch::when(fetch), Writeback::when(writeback.is_some()));
        Some((fetch, writeback))
    }

    /// Whether a write that misses here allocates nothing and changes
    /// nothing but counters (no write-allocate, no 3C shadows): then
    /// `count_write_miss_passed` is `access_missed`'s whole effect, and the
    /// line stays absent until a fill of it.
    #[inline(always)]
    pub fn write_misses_pass_below(&self) -> bool {
        !self.write_allocate && self.classifier.is_none()
    }

    /// Lines fetched into this level so far (`CacheStats::fetches`). Where
    /// `write_misses_pass_below` holds, a line enters only by a read's
    /// fill, which every path but two counts here at once (not
    /// `access_tag_only`, which counts nothing, nor a `VirtualDirect` view,
    /// which counts at its settle): so where neither runs, a line found
    /// absent is still absent while this is unchanged (flushes and purges
    /// only take lines out).
    #[inline(always)]
    pub fn lines_fetched(&self) -> u64 {
        self.stats.fetches
    }

    /// `access_missed` of a write of `size` bytes where
    /// `write_misses_pass_below` holds: the miss counted, and the write it
    /// passes below (the caller passes it, as for `Outcome::write_through`).
    #[inline(always)]
    pub fn count_write_miss_passed(&mut self, size: u64) {
        self.stats.count_miss(RefKind::Write, 1 << self.line_shift, Fetch::Nothing, Writeback::Nothing);
        self.stats.write_throughs += 1;
        self.stats.bytes_out += size;
    }

    /// Counts the write a write-through hit passes below, as `access`
    /// counts it (`write_throughs`, `bytes_out`); the hit itself is
    /// counted with `count_repeat_hits`, its replacement update made by
    /// `hit_way` (with `write` false: a write-through line stays clean).
    #[inline(always)]
    pub fn count_write_through(&mut self, size: u64) {
        self.stats.write_throughs += 1;
        self.stats.bytes_out += size;
    }

    /// Whether, after a write, a repeat of the written line may be counted
    /// with `count_repeat_hits`. Not with 3C classification in a
    /// no-write-allocate level: a write hit there is shown to the shadow as
    /// not allocating, so the line may be absent from the shadow and the next
    /// access to it is not a no-op there.
    pub fn repeat_after_write_is_exact(&self) -> bool {
        self.classifier.is_none() || self.write_allocate
    }

    /// Counts `n` hits that the caller has either proved repeat the previous
    /// access's line (same line, same address space, no other access in
    /// between: such a hit changes no replacement or shadow state under any
    /// policy, the line being already most recent) or completed with `probe`.
    /// For a repeat, `kind` must not be a write unless the line is already
    /// dirty in a write-back cache.
    #[inline]
    pub fn count_repeat_hits(&mut self, kind: RefKind, n: u64) {
        self.stats.kind_mut(kind).accesses += n;
    }

    fn invalidate_slot(&mut self, slot: usize) {
        if let Some(c) = self.classifier.as_mut() {
            let asid = if self.cfg.asid_tags { self.tags[slot].asid } else { Asid(0) };
            c.invalidate((self.tags[slot].key, asid));
        }
        self.tags[slot].key = EMPTY;
        self.tags[slot].dirty = false;
        // An empty frame's stamp is 0 (`oldest`).
        self.stamps[slot] = 0;
    }

    /// Flushes (`Flush::WriteBack`) or purges (`Flush::Discard`) the line
    /// holding `r`; a dirty line found is returned for the caller to write
    /// back (or drop).
    pub fn flush_line(&mut self, r: LineRef, how: Flush) -> LineState {
        let base = self.set_of(&r) as usize * self.geo.ways as usize;
        let state = match self.find_slot(base, self.key_of(&r), r.asid) {
            None => LineState::Empty,
            Some(slot) => {
                let e = self.evicted(slot);
                self.invalidate_slot(slot);
                if e.dirty {
                    LineState::Dirty(e)
                } else {
                    LineState::Clean
                }
            }
        };
        self.record_flush(state, how);
        state
    }

    /// Counts `n` lines of a flush or purge range as found empty without
    /// looking them up: for a caller that knows the level cannot hold them
    /// (a physically tagged level and a virtual page never mapped).
    pub fn count_empty_flushes(&mut self, n: u64, how: Flush) {
        let f = if how == Flush::Discard { &mut self.stats.purged } else { &mut self.stats.flushed };
        f.empty += n;
    }

    /// Whether a line of an address space can be resident under a virtual
    /// address that space never mapped: only in a VIVT level without ASID
    /// tags, whose lookup matches another space's line at the same virtual
    /// address (a homonym). Every other level finds a line through a
    /// physical address or an ASID tag, both of which only a mapped page has.
    pub fn holds_unmapped_lines(&self) -> bool {
        self.tag_virtual && self.index_virtual && !self.asid_tags
    }

    /// The virtual line numbers in `[lo, hi]` that some frame holds, in
    /// order, each once: for a flush of a virtual range with more lines
    /// than the level has frames.
    pub fn virtual_lines_in(&self, lo: u64, hi: u64) -> Vec<u64> {
        let mut out: Vec<u64> = self
            .tags
            .iter()
            .filter(|s| s.key != EMPTY)
            .map(|s| lines(self.tag_virtual, s.key, s.other).0)
            .filter(|v| (lo..=hi).contains(v))
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Flushes or purges (`how`) every resident copy of every
    /// line whose physical address lies in `[pa, last]` (both inclusive, so
    /// a range may end at the last address), whatever virtual address or
    /// address space it was filled under: in a VIVT level this catches
    /// every synonym of a frame. Each line of the range with no copy counts
    /// once as empty; each copy counts as clean or dirty. Returns the counts
    /// and the dirty lines (none for a purge) for the caller to write back,
    /// in ascending physical address order (copies of one line by virtual
    /// address, then ASID), so the level below sees the same sequence
    /// however the lines were found.
    pub fn flush_physical_range(&mut self, pa: PhysAddr, last: PhysAddr, how: Flush) -> (FlushStats, Vec<Evicted>) {
        let shift = self.line_shift;
        let (lo, hi) = (pa.0 >> shift, last.0 >> shift);
        let in_range = hi - lo + 1;
        let mut counts = FlushStats::default();
        let mut dirty = Vec::new();
        // A PIPT level holds a physical line in one frame of one set, found
        // from the address alone (the space hash needs an ASID, so it is
        // searched); the search is the cheaper way only for a range of
        // fewer lines than the level has frames.
        let direct = !self.index_virtual && self.cfg.index != IndexFn::SpaceHash && in_range <= self.tags.len() as u64;
        if direct {
            for line in lo..=hi {
                let r = LineRef { vaddr: VirtAddr(0), paddr: PhysAddr(line << shift), asid: Asid(0) };
                let state = self.flush_line(r, how);
                counts.count(&state);
                match state {
                    LineState::Dirty(e) if how == Flush::WriteBack => dirty.push(e),
                    _ => {}
                }
            }
            return (counts, dirty);
        }
        // Any other level may hold a physical line in several sets (a VIVT
        // or VIPT synonym under another virtual index), so every frame is
        // read; each keeps its physical line for write-back.
        let mut found = Vec::new();
        for slot in 0..self.tags.len() {
            let s = self.tags[slot];
            if s.key == EMPTY {
                continue;
            }
            let (_, pline) = lines(self.tag_virtual, s.key, s.other);
            if pline < lo || pline > hi {
                continue;
            }
            found.push(pline);
            self.flush_slot(slot, how, &mut counts, &mut dirty);
        }
        found.sort_unstable();
        found.dedup();
        let empty = in_range - found.len() as u64;
        counts.empty = empty;
        self.count_empty_flushes(empty, how);
        dirty.sort_unstable_by_key(|e| (e.paddr, e.vaddr, e.asid));
        (counts, dirty)
    }

    /// Flushes or purges the occupied frame `slot`: counts it clean or
    /// dirty and keeps a dirty line for write-back unless purging.
    fn flush_slot(&mut self, slot: usize, how: Flush, counts: &mut FlushStats, dirty: &mut Vec<Evicted>) {
        let e = self.evicted(slot);
        self.invalidate_slot(slot);
        let state = if e.dirty { LineState::Dirty(e) } else { LineState::Clean };
        counts.count(&state);
        self.record_flush(state, how);
        if e.dirty && how == Flush::WriteBack {
            dirty.push(e);
        }
    }

    fn record_flush(&mut self, state: LineState, how: Flush) {
        let line = self.geo.line_bytes();
        let f = if how == Flush::Discard { &mut self.stats.purged } else { &mut self.stats.flushed };
        match state {
            LineState::Empty => f.empty += 1,
            LineState::Clean => f.clean += 1,
            LineState::Dirty(_) => {
                f.dirty += 1;
                if how == Flush::WriteBack {
                    self.stats.writebacks += 1;
                    self.stats.bytes_out += line;
                }
            }
        }
    }

    /// One line of a reference under Cachegrind's rules (`--compat
    /// cachegrind`, docs/reference-semantics.md): looked up and, on a miss,
    /// allocated (unless a write misses a no-write-allocate level), the
    /// replacement state moving as any access moves it. Cachegrind keeps
    /// tags only, so no dirty bit is set, nothing goes below and nothing is
    /// counted here: the caller counts the whole reference once
    /// (`count_reference`). Returns whether the line was resident. Not for
    /// a level with 3C shadows (the mode refuses them).
    pub fn access_tag_only(&mut self, r: LineRef, kind: RefKind) -> bool {
        let set = self.set_of(&r) as usize;
        let key = self.key_of(&r);
        if let Some(slot) = self.find_slot(set * self.ways, key, r.asid) {
            self.touch(set, slot);
            return true;
        }
        if kind == RefKind::Write && !self.write_allocate {
            return false;
        }
        let s = self.victim(set);
        // As in `access_missed`: one clock tick per fill where stamps are read.
        if self.stamped {
            self.clock += 1;
            self.stamps[s] = self.clock;
        }
        self.tags[s] = Tag { key, other: other_line(self.tag_virtual, r, self.line_shift), asid: r.asid, dirty: false };
        if !self.stamped && self.ways > 1 && self.cfg.replacement == Replacement::TreePlru {
            self.touch(set, s);
        }
        false
    }

    /// Counts one whole reference of `kind` that `access_tag_only` applied
    /// line by line: one access, and one miss if any of its lines missed
    /// (`missed_lines` of them: Cachegrind's rule); each of the `filled`
    /// lines allocated on a miss is one fetch of a whole line.
    pub fn count_reference(&mut self, kind: RefKind, missed_lines: u64, filled: u64) {
        let ks = self.stats.kind_mut(kind);
        ks.accesses += 1;
        ks.misses += u64::from(missed_lines > 0);
        self.stats.fetches += filled;
        self.stats.bytes_in += filled * self.geo.line_bytes();
    }

    /// Dinero IV's copy-back of the whole level (`d4copyback` with size 0,
    /// `misc.c`): every dirty line is marked clean and stays resident, and
    /// counts as a write-back (a whole line out). Returns the lines in the
    /// order Dinero sends them down: it pushes them on its pending stack set
    /// by set from set 0, each set from its most recent line to its least,
    /// and pops them last first, so the last set comes first and within a
    /// set the least recently used (LRU) or earliest filled (FIFO) line.
    /// Tree-PLRU and random keep no such order here (Dinero has no PLRU,
    /// and its random replacement draws from its own generator, so neither
    /// can match it): their lines come in way order.
    pub fn copy_back_all(&mut self) -> Vec<Evicted> {
        let ways = self.ways;
        let line = self.geo.line_bytes();
        let mut out = Vec::new();
        for set in (0..self.tags.len() / ways).rev() {
            let base = set * ways;
            let mut dirty: Vec<usize> =
                (base..base + ways).filter(|&s| self.tags[s].key != EMPTY && self.tags[s].dirty).collect();
            if self.stamped {
                // Ascending stamp: least recent (LRU) or earliest filled (FIFO) first.
                dirty.sort_unstable_by_key(|&s| self.stamps[s]);
            }
            for s in dirty {
                out.push(self.evicted(s));
                self.tags[s].dirty = false;
                self.stats.writebacks += 1;
                self.stats.bytes_out += line;
            }
        }
        out
    }

    /// Flushes or purges every slot. Returns the counts and the dirty lines
    /// (empty for a purge) for the caller to write back downstream.
    pub fn flush_all(&mut self, how: Flush) -> (FlushStats, Vec<Evicted>) {
        let mut counts = FlushStats::default();
        let mut dirty = Vec::new();
        for slot in 0..self.tags.len() {
            if self.tags[slot].key == EMPTY {
                counts.empty += 1;
                self.record_flush(LineState::Empty, how);
            } else {
                self.flush_slot(slot, how, &mut counts, &mut dirty);
            }
        }
        self.plru.iter_mut().for_each(|b| *b = 0);
        (counts, dirty)
    }

    /// The resident lines as (virtual line address, physical line address,
    /// asid, dirty); for tests and the consistency oracle.
    pub fn resident(&self) -> Vec<Evicted> {
        (0..self.tags.len()).filter(|&s| self.tags[s].key != EMPTY).map(|s| self.evicted(s)).collect()
    }

    pub fn indexing(&self) -> Indexing {
        self.cfg.indexing
    }
}

/// Tree-PLRU over `ways` (a power of two): bit i of `bits` is node i of a heap-
/// ordered binary tree; 0 means "the victim is on the left".
fn plru_touch(mut bits: u64, way: usize, ways: usize) -> u64 {
    let mut node = 0usize;
    let mut lo = 0usize;
    let mut span = ways;
    while span > 1 {
        span /= 2;
        let right = way >= lo + span;
        // Point the node away from the way just used.
        if right {
            bits &= !(1 << node);
            lo += span;
            node = 2 * node + 2;
        } else {
            bits |= 1 << node;
            node = 2 * node + 1;
        }
    }
    bits
}

fn plru_victim(bits: u64, ways: usize) -> usize {
    let mut node = 0usize;
    let mut lo = 0usize;
    let mut span = ways;
    while span > 1 {
        span /= 2;
        if bits & (1 << node) != 0 {
            lo += span;
            node = 2 * node + 2;
        } else {
            node = 2 * node + 1;
        }
    }
    lo
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(vaddr: u64, paddr: u64, asid: u32) -> LineRef {
        LineRef { vaddr: VirtAddr(vaddr), paddr: PhysAddr(paddr), asid: Asid(asid) }
    }

    /// One set of four 16-byte ways, LRU, PIPT, write-back.
    fn four_ways() -> Cache {
        Cache::new(CacheConfig::simple(64, 16, 4), MissClasses::Unsorted).expect("geometry")
    }

    #[test]
    fn lru_refills_a_flushed_way_then_the_least_recent() {
        let mut c = four_ways();
        for p in [0u64, 16, 32, 48] {
            assert!(!c.access(r(p, p, 0), RefKind::Read, 4).hit);
        }
        assert!(c.access(r(0, 0, 0), RefKind::Read, 4).hit);
        assert_eq!(c.flush_line(r(32, 32, 0), Flush::WriteBack), LineState::Clean);
        // The flushed way (2) first, though older stamps remain elsewhere.
        c.access(r(64, 64, 0), RefKind::Read, 4);
        // Then the least recently used: line 16 in way 1.
        c.access(r(80, 80, 0), RefKind::Read, 4);
        let lines: Vec<u64> = c.resident().iter().map(|e| e.paddr.0).collect();
        assert_eq!(lines, vec![0, 80, 64, 48]);
    }

    #[test]
    fn a_physical_range_is_looked_up_or_searched_with_the_same_counts() {
        // Four ways of one set, PIPT: physical lines 0x00 (clean), 0x10
        // (dirty), 0x20 (clean) resident, way 3 empty.
        let filled = || {
            let mut c = four_ways();
            c.access(r(0x100, 0x00, 0), RefKind::Read, 4);
            c.access(r(0x110, 0x10, 0), RefKind::Write, 4);
            c.access(r(0x120, 0x20, 0), RefKind::Read, 4);
            c
        };
        let dirty = Evicted { vaddr: VirtAddr(0x110), paddr: PhysAddr(0x10), asid: Asid(0), dirty: true };
        // [0x00, 0x2f]: 3 lines, fewer than the 4 frames, each looked up:
        // clean, dirty, clean.
        let mut c = filled();
        let (f, lines) = c.flush_physical_range(PhysAddr(0x00), PhysAddr(0x2f), Flush::WriteBack);
        assert_eq!((f.empty, f.clean, f.dirty), (0, 2, 1));
        assert_eq!(lines, [dirty]);
        // [0x08, 0x4f]: lines 0x00..0x40, 5 of them, more than the frames:
        // searched. 0x00, 0x20 clean, 0x10 dirty, 0x30 and 0x40 empty.
        let mut c = filled();
        let (f, lines) = c.flush_physical_range(PhysAddr(0x08), PhysAddr(0x4f), Flush::WriteBack);
        assert_eq!((f.empty, f.clean, f.dirty), (2, 2, 1));
        assert_eq!(lines, [dirty]);
        let s = c.stats();
        assert_eq!((s.flushed.empty, s.flushed.clean, s.flushed.dirty), (2, 2, 1));
        assert_eq!((s.writebacks, s.bytes_out), (1, 16));
        assert!(c.resident().is_empty());
        // A purge hands back no line to write, and writes none back.
        let mut c = filled();
        let (f, lines) = c.flush_physical_range(PhysAddr(0x10), PhysAddr(0x10), Flush::Discard);
        assert_eq!((f.empty, f.clean, f.dirty, lines.len()), (0, 0, 1, 0));
        assert_eq!((c.stats().purged.dirty, c.stats().writebacks), (1, 0));
    }

    #[test]
    fn a_physical_range_finds_every_virtual_copy_in_address_order() {
        // A VIVT level of two 16-byte sets, 2 ways, ASID tags: physical
        // line 0x40 cached under virtual 0x2000 (space 1, dirty) and 0x1000
        // (space 2, dirty), both in set 0; physical 0x50 under 0x1010
        // (clean, set 1). [0x40, 0x7f]: lines 0x40 (two copies), 0x50 (one),
        // 0x60 and 0x70 (none: empty 2). The dirty copies come back by
        // virtual address, though the way of 0x2000 comes first.
        let mut cfg = CacheConfig::simple(64, 16, 2);
        cfg.indexing = Indexing::Vivt;
        cfg.asid_tags = true;
        let mut c = Cache::new(cfg, MissClasses::Unsorted).expect("geometry");
        c.access(r(0x2000, 0x40, 1), RefKind::Write, 4);
        c.access(r(0x1000, 0x40, 2), RefKind::Write, 4);
        c.access(r(0x1010, 0x50, 2), RefKind::Read, 4);
        let (f, lines) = c.flush_physical_range(PhysAddr(0x40), PhysAddr(0x7f), Flush::WriteBack);
        assert_eq!((f.empty, f.clean, f.dirty), (2, 1, 2));
        let order: Vec<(u64, u32)> = lines.iter().map(|e| (e.vaddr.0, e.asid.0)).collect();
        assert_eq!(order, [(0x1000, 2), (0x2000, 1)]);
        assert!(c.resident().is_empty());
    }

    #[test]
    fn fifo_replaces_the_earliest_fill() {
        let mut cfg = CacheConfig::simple(64, 16, 4);
        cfg.replacement = Replacement::Fifo;
        let mut c = Cache::new(cfg, MissClasses::Unsorted).expect("geometry");
        for p in [0u64, 16, 32, 48] {
            c.access(r(p, p, 0), RefKind::Read, 4);
        }
        // A hit does not reorder FIFO: line 0 still leaves first.
        assert!(c.access(r(0, 0, 0), RefKind::Read, 4).hit);
        c.access(r(64, 64, 0), RefKind::Read, 4);
        let lines: Vec<u64> = c.resident().iter().map(|e| e.paddr.0).collect();
        assert_eq!(lines, vec![64, 16, 32, 48]);
    }

    /// A two-set, one-way VIVT level with ASID tags, write-back and
    /// write-allocate: 16-byte lines, so set = (vaddr >> 4) & 1.
    fn vivt_direct() -> Cache {
        let mut cfg = CacheConfig::simple(32, 16, 1);
        cfg.indexing = Indexing::Vivt;
        cfg.asid_tags = true;
        Cache::new(cfg, MissClasses::Unsorted).expect("geometry")
    }

    #[test]
    fn views_count_in_themselves_until_settled() {
        // The same references through `access` on one level and through
        // the views on a twin: identical lines and counters once the views
        // settle, and none of the views' counts in the level before.
        let mut general = vivt_direct();
        let mut viewed = vivt_direct();
        // (vaddr, kind, size): line 0 read (miss), line 2 written whole
        // (miss, no fetch, evicts clean line 0), line 2 read (hit), line 0
        // ifetched (miss, evicts dirty line 2), line 1 written (miss).
        let refs = [
            (0x00, RefKind::Read, 4),
            (0x20, RefKind::Write, 16),
            (0x24, RefKind::Read, 4),
            (0x00, RefKind::Ifetch, 4),
            (0x10, RefKind::Write, 4),
        ];
        for &(a, kind, size) in &refs {
            general.access(r(a, a + 0x1000, 7), kind, size);
        }
        let mut below = viewed.virtual_direct_below().expect("one-way VIVT with ASIDs that fills in place");
        for &(a, kind, size) in &refs {
            below.access(r(a, a + 0x1000, 7), kind, size);
        }
        assert_eq!(*below.stats, CacheStats::default(), "counted in the view until `settle`");
        below.settle();
        assert_eq!(viewed.stats, general.stats);
        let s = &viewed.stats;
        assert_eq!((s.read.accesses, s.read.misses, s.write.misses, s.ifetch.misses), (2, 1, 2, 1));
        assert_eq!((s.fetches, s.bytes_in, s.writebacks, s.bytes_out), (3, 48, 1, 16));
        // `fill_deferred` at the top: a read miss of line 3 (set 1, whose
        // line 1 is dirty) and a whole-line write miss of line 4 (set 0).
        let mut top = vivt_direct();
        let mut twin = vivt_direct();
        for c in [&mut top, &mut twin] {
            c.access(r(0x10, 0x10, 7), RefKind::Write, 4);
        }
        let mut v = top.virtual_direct().expect("a direct VIVT level with ASIDs");
        assert!(!v.hit(LineNo(3), Asid(7), DataRef::Load));
        let victim = Evicted { vaddr: VirtAddr(0x10), paddr: PhysAddr(0x10), asid: Asid(7), dirty: true };
        assert_eq!(v.fill_deferred(LineNo(3), r(0x30, 0x30, 7), RefKind::Read, 4), Some((true, Some(victim))));
        assert_eq!(v.fill_deferred(LineNo(4), r(0x40, 0x40, 7), RefKind::Write, 16), Some((false, None)));
        v.settle();
        twin.access(r(0x30, 0x30, 7), RefKind::Read, 4);
        twin.access(r(0x40, 0x40, 7), RefKind::Write, 16);
        assert_eq!(top.stats, twin.stats);
    }

    #[test]
    fn a_dirty_victim_keeps_both_its_addresses() {
        // PIPT (the key is the physical line) and VIVT (the virtual one):
        // the write-back names the line in both address spaces.
        for indexing in [Indexing::Pipt, Indexing::Vivt] {
            let mut cfg = CacheConfig::simple(16, 16, 1);
            cfg.indexing = indexing;
            let mut c = Cache::new(cfg, MissClasses::Unsorted).expect("geometry");
            c.access(r(0x1000, 0x20, 3), RefKind::Write, 4);
            let out = c.access(r(0x2000, 0x40, 3), RefKind::Read, 4);
            assert_eq!(
                out.writeback,
                Some(Evicted { vaddr: VirtAddr(0x1000), paddr: PhysAddr(0x20), asid: Asid(3), dirty: true })
            );
            // The same through `fill` (one way).
            let found = c.lookup(r(0x3000, 0x60, 5), RefKind::Write);
            assert!(matches!(found, Lookup::Miss { .. }), "{found:?}");
            let Lookup::Miss { set, key } = found else { return };
            assert_eq!(c.fill(set, key, r(0x3000, 0x60, 5), RefKind::Write, 16), Some((false, None)));
            let found = c.lookup(r(0x4000, 0x80, 6), RefKind::Read);
            assert!(matches!(found, Lookup::Miss { .. }), "{found:?}");
            let Lookup::Miss { set, key } = found else { return };
            let victim = Evicted { vaddr: VirtAddr(0x3000), paddr: PhysAddr(0x60), asid: Asid(5), dirty: true };
            assert_eq!(c.fill(set, key, r(0x4000, 0x80, 6), RefKind::Read, 4), Some((true, Some(victim))));
        }
    }

    #[test]
    fn a_hit_at_a_remembered_way_is_probes_hit() {
        // One set of four ways, LRU, PIPT (keys are physical lines: 16 B).
        let mut c = four_ways();
        let hc = c.hit_check().expect("PIPT write-back LRU allows inline checks");
        for p in [0u64, 16, 32, 48] {
            c.access(r(p, p, 0), RefKind::Read, 4);
        }
        assert_eq!(c.find_way::<true>(&hc, 0, 1, Asid(0)), Some(1));
        assert_eq!(c.find_way::<true>(&hc, 0, 9, Asid(0)), None);
        // A frame holding another key, or a way outside the set: no hit,
        // nothing changed (line 0 stays the least recent).
        assert!(!c.way_holds::<true>(&hc, 0, 2, 1, Asid(0)));
        assert_eq!(c.hit_way::<true>(&hc, 0, 2, 1, Asid(0), DataRef::Store), None);
        assert_eq!(c.hit_way::<true>(&hc, 0, 4, 1, Asid(0), DataRef::Load), None);
        assert_eq!(c.hit_way::<true>(&hc, 1, 0, 0, Asid(0), DataRef::Load), None);
        // Line 1 (way 1) hit for a write: dirty, and the newest. Then line
        // 0 (way 0): the least recent is now line 2, which a miss evicts.
        assert_eq!(c.hit_way::<true>(&hc, 0, 1, 1, Asid(0), DataRef::Store), Some(true));
        assert_eq!(c.hit_way::<true>(&hc, 0, 0, 0, Asid(0), DataRef::Load), Some(false));
        assert!(!c.access(r(64, 64, 0), RefKind::Read, 4).hit);
        let lines: Vec<(u64, bool)> = c.resident().iter().map(|e| (e.paddr.0, e.dirty)).collect();
        assert_eq!(lines, vec![(0, false), (16, true), (64, false), (48, false)]);
        // Hits through `hit_way` were not counted (the caller adds them).
        assert_eq!(c.stats().accesses(), 5);
    }

    #[test]
    fn fill_refuses_where_it_cannot_complete_a_miss() {
        let mut cfg = CacheConfig::simple(64, 16, 4);
        let mut shadowed = Cache::new(cfg.clone(), MissClasses::ThreeC).expect("geometry");
        assert!(!shadowed.fills_in_place());
        assert_eq!(shadowed.fill(0, 0, r(0, 0, 0), RefKind::Read, 4), None);
        assert_eq!(shadowed.fill_inline(0, 0, r(0, 0, 0), RefKind::Read, 4), None);
        assert_eq!(shadowed.stats().accesses(), 0);
        // A write-through level, or one that does not allocate writes:
        // no write fills in place, but a read miss is the fill itself,
        // counters and replacement state as `access_missed` leaves them.
        cfg.write = WritePolicy::WriteThrough;
        let through = Cache::new(cfg.clone(), MissClasses::Unsorted).expect("geometry");
        cfg.write = WritePolicy::WriteBack;
        cfg.write_miss = WriteMissPolicy::NoWriteAllocate;
        let around = Cache::new(cfg, MissClasses::Unsorted).expect("geometry");
        for level in [through, around] {
            let mut missed = Cache::new(level.config().clone(), MissClasses::Unsorted).expect("geometry");
            let mut filled = level;
            assert!(!filled.fills_in_place());
            assert_eq!(filled.fill(0, 0, r(0, 0, 0), RefKind::Write, 4), None);
            assert_eq!(filled.fill_inline(0, 0, r(0, 0, 0), RefKind::Write, 16), None);
            for (i, p) in [0u64, 16, 32, 48, 64, 0, 80].into_iter().enumerate() {
                let kind = if i % 2 == 0 { RefKind::Read } else { RefKind::Ifetch };
                let out = missed.access(r(p, p, 0), kind, 4);
                if !out.hit {
                    let (set, key) = (0, p >> 4);
                    assert_eq!(filled.fill(set, key, r(p, p, 0), kind, 4), Some((out.fetch, out.writeback)));
                } else {
                    assert!(filled.access(r(p, p, 0), kind, 4).hit);
                }
            }
            assert_eq!(filled.resident(), missed.resident());
            assert_eq!(filled.stats(), missed.stats());
        }
        assert!(four_ways().fills_in_place());
    }

    #[test]
    fn plru_follows_the_tree() {
        // 4 ways, touch 0,1,2,3 in order: the victim is 0.
        let mut b = 0;
        for w in 0..4 {
            b = plru_touch(b, w, 4);
        }
        assert_eq!(plru_victim(b, 4), 0);
        b = plru_touch(b, 0, 4);
        assert_eq!(plru_victim(b, 4), 2);
    }
}
