//! Everything below a translating machine's L1s (`Tails`): its own L2
//! (split or unified) and memory, with the `TransferLog` of what reached
//! memory, and, in a sweep, more L2s fed the same L1 misses and write-backs
//! (the L2 fan-out): the L1 miss stream of a scheme that translates before
//! or at L1 does not depend on the L2, so one pass over the L1s feeds every
//! L2 of a grid. Which configurations may share a pass is decided here too
//! (`fanout_refusal`, `fanout_groups`), and the L2s of one pass are taken
//! smallest first so a fill that hit an included L2 is only counted in the
//! larger (`l2_inclusion_refusal`). Each further L2 is a `Variant`: its
//! L2 and memory with the machine's counts that depend on them (Table 1's
//! levels below L1, the ledger's requests), kept here for both the sweep's
//! simulator (`VmSim::fanout`) and the replaying machines (`crate::replay`);
//! the machine itself counts only its own levels (crates/translation/README.md
//! says what is left of issue 24 here).

use vmlab_addr::{PhysAddr, VirtAddr};
use vmlab_cache::{
    Cache, CacheConfig, Flush, FlushStats, Geometry, GeometryError, HitCheck, IndexFn, Indexing, LineRef, Lookup,
    Outcome, RefKind, WriteMissPolicy, WritePolicy,
};
use vmlab_machine::{Cause, Ledger, Mechanism, MemoryStats, MissClasses, Reached, TransferLog};

use crate::config::VmConfig;
use crate::memsys::{L1, L2};
use crate::result::{NamedCache, SideEvents, VmResult};
use crate::scheme::TranslateAt;
use crate::sim::component_rows;
use crate::vmcpi::Vmcpi;

// One L2 per machine, so the size difference between variants costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
enum L2 {
    Unified(Cache),
    Split { i: Cache, d: Cache },
}

/// Everything below the L1s: the L2 (split or unified), memory, and the log
/// of mapped transfers. A `MemSys` has one, and may carry more (`add_tail`)
/// when several machines differ only below L1: the L1 miss stream of a
/// scheme that translates before or at L1 does not depend on the L2, so
/// one pass over the L1s can feed every L2 (the S1 sweep's L2 sizes and
/// line sizes).
#[derive(Debug)]
pub struct Tail {
    l2: L2,
    memory: MemoryStats,
    /// The transfers to and from memory of mapped lines; keeps none
    /// (`TransferLog::new(None)`) where nobody reads them (schemes that do
    /// not translate at memory, the fan-out's L2s).
    pub(crate) log: TransferLog,
    /// L2 hits finished by `Cache::lookup` (see `MemSys::access_fast`); off
    /// in the general path the fast one is tested against.
    fast: bool,
    /// For the L2 serving each kind: the inline hit check of a direct-mapped,
    /// VIVT, ASID-tagged, write-back level without 3C shadow (every S1 grid
    /// machine), or `None`; as `MemSys::l1_direct`.
    pub(crate) l2_direct: [Option<HitCheck>; 3],
    /// Hits found by the direct probes, by kind, not yet added to the L2
    /// statistics (`settle`).
    direct_hits: [u64; 3],
    direct_probes: u64,
    /// Whether the latest `below_l1` sent a fill here and every piece of
    /// it hit: then the fill hits every larger L2 that includes this one
    /// (`Tails::chain_tails`).
    fill_hit: bool,
    /// Fills counted as hits because an included L2 hit them (never
    /// reset): lets tests prove the one pass over L2 sizes ran.
    included_fills: u64,
}

/// The machine's own L2 and memory (`own`), and the fan-out's further L2s
/// (`add_tail`), each taking every L1 outcome.
#[derive(Debug)]
pub(crate) struct Tails {
    /// The machine's own L2 and memory.
    own: Tail,
    /// Further L2s fed the same L1 misses and write-backs (`add_tail`).
    fan: Fanout,
    /// One pass over the L2 sizes: the order the tails take each L1
    /// outcome in (0: `own`, i + 1: the fan-out's i-th variant), smallest L2s first, and
    /// for each tail and fill side (I, D) an earlier tail whose L2 of that
    /// side is included in this one's (`l2_inclusion_refusal`): a fill
    /// that hit there hits here, and is only counted. Empty when no tail
    /// includes another.
    order: Vec<usize>,
    included: Vec<[Option<usize>; 2]>,
}

/// The sweep's L2 variants below one machine's L1s (`Tails::add_tail`), in
/// order, each with the counts that depend on its L2. Their L1 hits are the
/// machine's, so only what reached below L1 is counted here.
#[derive(Debug, Default)]
pub struct Fanout {
    variants: Vec<Variant>,
}

/// A machine that shares the L1s (and everything above them) with the one
/// that runs, and has its own L2 and memory.
#[derive(Debug)]
struct Variant {
    cfg: VmConfig,
    tail: Tail,
    /// The level its L2 served the latest access below L1 at (the running
    /// machine's own is what that access returned). Meaningful only when
    /// that access was not an L1 hit: an L1 hit is an L1 hit for all.
    level: Reached,
    /// Table 1's counts of the pieces that missed L1.
    sides: [SideEvents; 2],
    /// The mechanisms entered and instructions of the running machine, and
    /// this machine's own requests served below L1: its L1 hits, the
    /// running machine's, are not in it, and VMCPI does not read them.
    ledger: Ledger,
}

/// Why `cfg` cannot join a fan-out led by `leader` (`VmSim::fanout`), or
/// `None` if it can.
pub fn fanout_refusal(leader: &VmConfig, cfg: &VmConfig) -> Option<&'static str> {
    if leader.translate_at() == TranslateAt::L2Miss {
        return Some("its scheme translates at L2 misses, so the L1 traffic depends on the L2");
    }
    if leader.protection_changes_per_million > 0.0 || cfg.protection_changes_per_million > 0.0 {
        return Some("protection changes sweep the L2");
    }
    let mut same_above = cfg.clone();
    same_above.name.clone_from(&leader.name);
    same_above.l2.clone_from(&leader.l2);
    same_above.l2i.clone_from(&leader.l2i);
    same_above.l2d.clone_from(&leader.l2d);
    (same_above != *leader).then_some("they differ above L2")
}

/// Splits configurations into fan-out groups (indices, in order; each
/// group's first is its leader): every configuration joins the first group
/// whose leader accepts it, so a sweep over L2s runs each L1 pass once.
pub fn fanout_groups(cfgs: &[VmConfig]) -> Vec<Vec<usize>> {
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for (i, cfg) in cfgs.iter().enumerate() {
        match groups.iter_mut().find(|g| fanout_refusal(&cfgs[g[0]], cfg).is_none()) {
            Some(g) => g.push(i),
            None => groups.push(vec![i]),
        }
    }
    groups
}

/// Why a direct-mapped L2 `large` does not hold every line that `small`
/// holds after the same requests (so a fill that hits `small` may miss
/// `large`), or `None` if it does: both direct-mapped, bit-select,
/// write-allocate, write-back, virtually indexed and tagged with ASIDs
/// (as the direct probes that count their hits), the same line, `large`
/// at least `small`'s size. Then a line in `small` is the latest line
/// requested in its set, and `large`'s sets refine `small`'s, so it is the
/// latest in its set of `large` too (Mattson et al. 1970's inclusion; Hill
/// and Smith 1989 for set refinement). Both must see the same requests:
/// the caller pairs L2s serving the same side of the same arrangement
/// (split with split, unified with unified).
pub fn l2_inclusion_refusal(small: &CacheConfig, large: &CacheConfig) -> Option<&'static str> {
    for c in [small, large] {
        let direct = Geometry::new(c).is_ok_and(|g| g.ways == 1 && g.sets.is_power_of_two());
        if !direct || c.index != IndexFn::BitSelect {
            return Some("an L2 is not direct-mapped and bit-select");
        }
        if c.write_miss != WriteMissPolicy::WriteAllocate || c.write != WritePolicy::WriteBack {
            return Some("an L2 is not write-back and write-allocate");
        }
        if c.indexing != Indexing::Vivt || !c.asid_tags {
            return Some("an L2 is not virtually indexed and tagged with ASIDs");
        }
    }
    if small.line != large.line {
        return Some("the L2 lines differ");
    }
    if large.size.0 < small.size.0 {
        return Some("the L2 is smaller");
    }
    None
}

/// The inline hit check of `c` if a hit there needs no translation and no
/// replacement update: one way, virtual index and tag with ASIDs.
pub(crate) fn direct_check(c: &Cache) -> Option<HitCheck> {
    c.hit_check().filter(|hc| hc.direct() && !hc.needs_translation())
}

impl Tail {
    fn new(cfg: &VmConfig, unmapped_base: Option<VirtAddr>) -> Result<Self, GeometryError> {
        let l2 = match (&cfg.l2, &cfg.l2i, &cfg.l2d) {
            (Some(u), _, _) => L2::Unified(Cache::new(u.clone(), MissClasses::Unsorted)?),
            (None, Some(i), Some(d)) => L2::Split {
                i: Cache::new(i.clone(), MissClasses::Unsorted)?,
                d: Cache::new(d.clone(), MissClasses::Unsorted)?,
            },
            // VmConfig::check rejects anything else; an empty unified L2 of
            // the L1's shape would be a silent wrong machine, so fail loudly.
            _ => return Err(GeometryError("no L2 configured".into())),
        };
        let l2_direct = match &l2 {
            L2::Unified(c) => [direct_check(c); 3],
            L2::Split { i, d } => [direct_check(i), direct_check(d), direct_check(d)],
        };
        Ok(Self {
            l2,
            memory: MemoryStats::default(),
            log: TransferLog::new(unmapped_base),
            fast: true,
            l2_direct,
            direct_hits: [0; 3],
            direct_probes: 0,
            fill_hit: false,
            included_fills: 0,
        })
    }

    /// The L2 serving the fills of side `s` (0: I, 1: D) and whether it is
    /// split.
    fn fill_cache(&self, s: usize) -> (&Cache, bool) {
        match &self.l2 {
            L2::Unified(c) => (c, false),
            L2::Split { i, d } => (if s == 0 { i } else { d }, true),
        }
    }

    #[inline]
    pub(crate) fn l2(&mut self, kind: RefKind) -> &mut Cache {
        match &mut self.l2 {
            L2::Unified(c) => c,
            L2::Split { i, d } => {
                if kind == RefKind::Ifetch {
                    i
                } else {
                    d
                }
            }
        }
    }

    fn settle(&mut self) {
        for kind in [RefKind::Ifetch, RefKind::Read, RefKind::Write] {
            let n = std::mem::take(&mut self.direct_hits[kind as usize]);
            self.l2(kind).count_repeat_hits(kind, n);
        }
    }

    /// What an L1 access's outcome sends below: its fill, a write-through
    /// write, its victim's write-back. Returns the level that served the
    /// access (L1 if it was an L1 hit that sent nothing below).
    /// `fill_hits`: the fill is known to hit every piece here (an included
    /// L2 hit it), so it is counted, not looked up: a read hit in a
    /// direct-mapped level changes nothing else.
    pub(crate) fn below_l1(
        &mut self,
        kind: RefKind,
        r: LineRef,
        size: u64,
        line: u64,
        out: &Outcome,
        fill_hits: bool,
    ) -> Reached {
        let mut level = if out.hit { L1 } else { L2 };
        self.fill_hit = false;
        if out.fetch {
            let fill = if kind == RefKind::Ifetch { RefKind::Ifetch } else { RefKind::Read };
            let a = r.line_start(line);
            let l = if fill_hits {
                // The L1 line's pieces at L2 lines (`l2_request`'s split of
                // an aligned line): one if the L2 line is the larger.
                self.direct_hits[fill as usize] += (line >> self.l2(fill).line_bytes().trailing_zeros()).max(1);
                L2
            } else {
                self.l2_request(fill, a, line)
            };
            self.fill_hit = l == L2;
            level = level.max(l);
        }
        if out.write_through {
            let l = self.l2_request(RefKind::Write, r, size);
            if !out.hit || out.fetch {
                level = level.max(l);
            } else {
                level = l;
            }
        }
        if let Some(v) = out.writeback {
            self.l2_request(RefKind::Write, v.line_ref(), line);
        }
        level
    }

    /// A request to L2, split at L2 line boundaries (an L1 line larger than
    /// the L2 line spans several). Returns the worst level any piece reached.
    fn l2_request(&mut self, kind: RefKind, r: LineRef, size: u64) -> Reached {
        let line = self.l2(kind).line_bytes();
        let mut level = L2;
        let (vaddr, paddr) = (r.vaddr.0, r.paddr.0);
        let mut va = vaddr;
        let end = vaddr + size.max(1);
        while va < end {
            let next = (va & !(line - 1)) + line;
            let chunk = next.min(end) - va;
            let piece = LineRef { vaddr: VirtAddr(va), paddr: PhysAddr(paddr + (va - vaddr)), asid: r.asid };
            level = level.max(self.l2_line(kind, piece, chunk, line));
            va += chunk;
        }
        level
    }

    fn l2_line(&mut self, kind: RefKind, r: LineRef, size: u64, line: u64) -> Reached {
        let fast = self.fast;
        let direct = self.l2_direct[kind as usize];
        self.direct_probes += u64::from(direct.is_some());
        let l2 = self.l2(kind);
        let out = if let Some(hc) = &direct {
            // As in `MemSys::l1_lookup`: a direct-mapped VIVT hit is a probe and a count.
            let (set, key) = hc.virtual_locate(r.vaddr);
            if l2.probe::<true, false>(hc, set, key, r.asid, kind == RefKind::Write).is_some() {
                self.direct_hits[kind as usize] += 1;
                return L2;
            }
            // As in `MemSys::l1_missed`: a level that fills in place.
            l2.fill_or_access_missed(set, key, r, kind, size)
        } else if fast {
            // As in `MemSys::access_fast`: a hit that sends nothing below is done.
            match l2.lookup(r, kind) {
                Lookup::Hit(_) => return L2,
                Lookup::Miss { set, key } => l2.access_missed(set, key, r, kind, size),
                Lookup::Full => l2.access(r, kind, size),
            }
        } else {
            l2.access(r, kind, size)
        };
        let mut level = if out.hit { L2 } else { Reached::Memory };
        if out.fetch {
            self.memory.read(line);
            self.log.note(Cause::Fill, r.line_start(line).vaddr, r.asid);
        }
        if out.write_through {
            self.memory.write(size);
            self.log.note(Cause::WriteThrough, r.vaddr, r.asid);
            level = Reached::Memory;
        }
        if let Some(v) = out.writeback {
            self.memory.write(line);
            self.log.note(Cause::WriteBack, v.vaddr, v.asid);
        }
        if out.hit && !out.write_through {
            level = L2;
        }
        level
    }

    /// Writes back and invalidates the L2s (after the L1s wrote theirs
    /// here); returns the states the lines were found in.
    fn flush_all(&mut self) -> FlushStats {
        let l2s: &[RefKind] = match self.l2 {
            L2::Unified(_) => &[RefKind::Read],
            L2::Split { .. } => &[RefKind::Ifetch, RefKind::Read],
        };
        let mut found = FlushStats::default();
        for &kind in l2s {
            let line = self.l2(kind).line_bytes();
            let (stats, dirty) = self.l2(kind).flush_all(Flush::WriteBack);
            found += stats;
            for v in dirty {
                self.memory.write(line);
                self.log.note(Cause::WriteBack, v.vaddr, v.asid);
            }
        }
        found
    }

    pub fn memory(&self) -> &MemoryStats {
        &self.memory
    }

    /// The L2 caches with their names.
    pub fn caches(&self) -> Vec<(&'static str, &Cache)> {
        match &self.l2 {
            L2::Unified(c) => vec![("l2", c)],
            L2::Split { i, d } => vec![("l2i", i), ("l2d", d)],
        }
    }
}
impl Tails {
    /// The machine's own L2 and memory, keeping the transfers to and from
    /// memory of lines below `unmapped_base` (or of none).
    pub fn new(cfg: &VmConfig, unmapped_base: Option<VirtAddr>) -> Result<Self, GeometryError> {
        Ok(Self {
            own: Tail::new(cfg, unmapped_base)?,
            fan: Fanout::default(),
            order: Vec::new(),
            included: Vec::new(),
        })
    }

    /// The machine's own L2 and memory.
    #[inline(always)]
    pub fn own(&self) -> &Tail {
        &self.own
    }

    #[inline(always)]
    pub fn own_mut(&mut self) -> &mut Tail {
        &mut self.own
    }

    /// The added L2s and their counts.
    #[inline(always)]
    pub fn fanout(&self) -> &Fanout {
        &self.fan
    }

    #[inline(always)]
    pub fn fanout_mut(&mut self) -> &mut Fanout {
        &mut self.fan
    }

    fn tail_at(&self, t: usize) -> &Tail {
        if t == 0 {
            &self.own
        } else {
            &self.fan.variants[t - 1].tail
        }
    }

    /// Orders the tails smallest L2s first and pairs each L2 (per fill
    /// side) with the largest earlier one it includes
    /// (`l2_inclusion_refusal`), whose direct probes are on, as this one's.
    fn chain_tails(&mut self) {
        let n = 1 + self.fan.variants.len();
        let bytes = |t: &Tail| t.caches().iter().map(|(_, c)| c.config().size.0).sum::<u64>();
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by_key(|&t| (bytes(self.tail_at(t)), t));
        let mut included = vec![[None; 2]; n];
        for (k, &t) in order.iter().enumerate() {
            for (s, fill) in [(0, RefKind::Ifetch), (1, RefKind::Read)] {
                let me = self.tail_at(t);
                let (large, split) = me.fill_cache(s);
                if me.l2_direct[fill as usize].is_none() {
                    continue;
                }
                included[t][s] = order[..k]
                    .iter()
                    .copied()
                    .filter(|&p| {
                        let them = self.tail_at(p);
                        let (small, their_split) = them.fill_cache(s);
                        them.l2_direct[fill as usize].is_some()
                            && their_split == split
                            && l2_inclusion_refusal(small.config(), large.config()).is_none()
                    })
                    .max_by_key(|&p| (self.tail_at(p).fill_cache(s).0.config().size.0, std::cmp::Reverse(p)));
            }
        }
        if included.iter().flatten().any(Option::is_some) {
            self.order = order;
            self.included = included;
        } else {
            self.order.clear();
            self.included.clear();
        }
    }

    /// Adds the L2 of `cfg` below the same L1s: it sees every fill,
    /// write-through and write-back the L1s send down, as the machine's own
    /// L2 does. Only for schemes whose L1 traffic does not depend on the L2
    /// (the caller checks): its transfers are never logged.
    pub fn add_tail(&mut self, cfg: VmConfig) -> Result<(), GeometryError> {
        let mut tail = Tail::new(&cfg, None)?;
        tail.fast = self.own.fast;
        if !tail.fast {
            tail.l2_direct = [None; 3];
        }
        self.fan.variants.push(Variant {
            cfg,
            tail,
            level: L1,
            sides: [SideEvents::default(); 2],
            ledger: Ledger::default(),
        });
        self.chain_tails();
        Ok(())
    }

    fn extra_mut(&mut self) -> impl Iterator<Item = &mut Tail> {
        self.fan.variants.iter_mut().map(|v| &mut v.tail)
    }

    /// Turns the fast paths (direct probes, hits finished by `lookup`) off
    /// in every L2.
    pub fn set_general(&mut self) {
        for t in std::iter::once(&mut self.own).chain(self.fan.variants.iter_mut().map(|v| &mut v.tail)) {
            t.fast = false;
            t.l2_direct = [None; 3];
        }
        self.chain_tails();
    }

    /// Probes by the direct checks, hit or miss, at every L2.
    pub fn direct_probes(&self) -> u64 {
        self.own.direct_probes + self.fan.variants.iter().map(|v| v.tail.direct_probes).sum::<u64>()
    }

    /// Fills counted by inclusion at every L2 (`chain_tails`).
    pub fn included_fills(&self) -> u64 {
        self.own.included_fills + self.fan.variants.iter().map(|v| v.tail.included_fills).sum::<u64>()
    }

    /// Adds the hits the direct probes found to every L2's statistics.
    pub fn settle(&mut self) {
        self.own.settle();
        for t in self.extra_mut() {
            t.settle();
        }
    }

    /// What an L1 access's outcome sends below, to every L2 (`Tail::below_l1`);
    /// returns the level that served the access on the machine's own.
    pub fn below_l1(&mut self, kind: RefKind, r: LineRef, size: u64, line: u64, out: &Outcome) -> Reached {
        if !self.order.is_empty() {
            return self.below_l1_chained(kind, r, size, line, out);
        }
        for v in &mut self.fan.variants {
            v.level = v.tail.below_l1(kind, r, size, line, out, false);
        }
        self.own.below_l1(kind, r, size, line, out, false)
    }

    /// `below_l1` over tails some of which include others (`chain_tails`):
    /// smallest first, so a fill that hit an included L2 is only counted
    /// in the larger.
    fn below_l1_chained(&mut self, kind: RefKind, r: LineRef, size: u64, line: u64, out: &Outcome) -> Reached {
        let s = usize::from(kind != RefKind::Ifetch);
        let mut own = L1;
        for k in 0..self.order.len() {
            let t = self.order[k];
            let hits = out.fetch && self.included[t][s].is_some_and(|p| self.tail_at(p).fill_hit);
            if t == 0 {
                self.own.included_fills += u64::from(hits);
                own = self.own.below_l1(kind, r, size, line, out, hits);
            } else {
                let v = &mut self.fan.variants[t - 1];
                v.tail.included_fills += u64::from(hits);
                v.level = v.tail.below_l1(kind, r, size, line, out, hits);
            }
        }
        own
    }

    /// A dirty L1 line flushed: written to every L2.
    pub fn write_back(&mut self, r: LineRef, line: u64) {
        self.own.l2_request(RefKind::Write, r, line);
        for t in self.extra_mut() {
            t.l2_request(RefKind::Write, r, line);
        }
    }

    /// Writes back and invalidates every L2 (after the L1s wrote theirs
    /// here); returns the states the machine's own L2 lines were found in.
    pub fn flush_all(&mut self) -> FlushStats {
        let found = self.own.flush_all();
        for t in self.extra_mut() {
            t.flush_all();
        }
        found
    }
}

impl Fanout {
    /// The variants' configurations, in order.
    pub fn configs(&self) -> impl Iterator<Item = &VmConfig> {
        self.variants.iter().map(|v| &v.cfg)
    }

    pub fn len(&self) -> usize {
        self.variants.len()
    }

    /// Whether no L2s were added (`Tails::add_tail`).
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.variants.is_empty()
    }

    /// Counts a user piece of side `s` (0: I, 1: D) that missed L1, in each
    /// variant at the level its L2 served it.
    #[inline(never)]
    pub fn count(&mut self, s: usize, tlb_miss: bool) {
        for v in &mut self.variants {
            v.sides[s].count(v.level, tlb_miss);
        }
    }

    /// Records a request of `kind` that missed L1 for the running
    /// mechanism, in each variant at the level its L2 served it.
    pub fn request(&mut self, kind: RefKind) {
        for v in &mut self.variants {
            v.ledger.request(kind, v.level);
        }
    }

    /// As `request`, under `m` (a replayed request: the mechanism that made
    /// it was recorded with it).
    pub fn request_as(&mut self, m: Mechanism, kind: RefKind) {
        for v in &mut self.variants {
            request_as(&mut v.ledger, m, kind, v.level);
        }
    }

    /// Starts attributing the VM system's work to `m` in every variant's
    /// ledger (`Ledger::enter`).
    pub fn enter(&mut self, m: Mechanism) {
        for v in &mut self.variants {
            v.ledger.enter(m);
        }
    }

    pub fn leave(&mut self, prev: Mechanism) {
        for v in &mut self.variants {
            v.ledger.leave(prev);
        }
    }

    /// Handler instructions run, in every variant's ledger.
    pub fn instructions(&mut self, n: u64) {
        for v in &mut self.variants {
            v.ledger.instructions(n);
        }
    }

    /// One result per variant, built on the running machine's `base`
    /// (whose L1 hits are every variant's, `l1_sides`); `vmcpi` prices a
    /// variant's ledger under its configuration.
    pub fn results<'a>(
        &'a self,
        base: &'a VmResult,
        l1_sides: [SideEvents; 2],
        vmcpi: impl Fn(&Ledger, &VmConfig) -> Vmcpi + 'a,
    ) -> impl Iterator<Item = VmResult> + 'a {
        self.variants
            .iter()
            .map(move |v| result_below(base, &v.cfg, l1_sides, v.sides, &vmcpi(&v.ledger, &v.cfg), &v.tail))
    }
}

/// Records one request of `kind` served at `level` under `m`. The entries
/// this makes are not read (the running machine's handler entries are
/// everyone's), so entering `m` here only names where the request goes.
pub(crate) fn request_as(ledger: &mut Ledger, m: Mechanism, kind: RefKind, level: Reached) {
    let prev = ledger.enter(m);
    ledger.request(kind, level);
    ledger.leave(prev);
}

/// The result of a machine that shares everything above L2 with `base`'s
/// and has the L2 and memory `tail`: `base`'s L1 caches and L1-hit counts
/// (`l1_sides`), its own counts below L1 (`lower`), VMCPI `v` and L2s.
pub(crate) fn result_below(
    base: &VmResult,
    cfg: &VmConfig,
    l1_sides: [SideEvents; 2],
    lower: [SideEvents; 2],
    v: &Vmcpi,
    tail: &Tail,
) -> VmResult {
    let k = base.user_instructions.max(1) as f64 / 1000.0;
    let mut r = base.clone();
    r.config.clone_from(&cfg.name);
    let [i_side, d_side] = [0, 1].map(|s| SideEvents {
        l1_hit_tlb_hit: l1_sides[s].l1_hit_tlb_hit,
        l1_hit_tlb_miss: l1_sides[s].l1_hit_tlb_miss,
        ..lower[s]
    });
    r.i_side = i_side;
    r.d_side = d_side;
    r.l2i_misses_per_kinstr = i_side.l2_misses() as f64 / k;
    r.l2d_misses_per_kinstr = d_side.l2_misses() as f64 / k;
    r.vmcpi = v.total();
    r.vm_cycles = v.total_cycles();
    r.components = component_rows(v);
    r.caches.retain(|c| c.name.starts_with("l1"));
    r.caches
        .extend(tail.caches().into_iter().map(|(name, c)| NamedCache { name: name.to_string(), stats: *c.stats() }));
    r.memory = *tail.memory();
    r
}
