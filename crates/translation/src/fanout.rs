//! A sweep's L2 fan-out (`L2Fanout`): the L1 miss stream of a scheme that
//! translates before or at L1 does not depend on the L2, so one pass over
//! the L1s feeds every L2 of a grid. The simulator owns one machine (its
//! L1s over its own L2, `memsys::Tail`); the sweep builds it with an
//! `L2Fanout` (`VmSim::fanout`, `crate::replay`'s replaying machines),
//! which `MemSys` hands every L1 outcome through its `L2Sweep` hook. Which
//! configurations may share a pass is decided here too (`fanout_refusal`,
//! `fanout_groups`), and the L2s of one pass, the machine's own among
//! them, are taken smallest first so a fill that hit an included L2 is
//! only counted in the larger (`l2_inclusion_refusal`): the machine's own
//! L2 may take that shortcut from a smaller added one, which is why the
//! hook is given the own L2 to run in its order rather than called after
//! it. Each added L2 is a `Variant`: its L2 and memory with the machine's
//! counts that depend on them (Table 1's levels below L1, the ledger's
//! requests).

use vmlab_cache::{Cache, CacheConfig, Geometry, GeometryError, IndexFn, Indexing, LineRef, Outcome, RefKind};
use vmlab_cache::{WriteMissPolicy, WritePolicy};
use vmlab_machine::{Ledger, Mechanism, Reached};

use crate::config::VmConfig;
use crate::memsys::{Fill, L2Sweep, MemSys, OwnTail, Tail, L1};
use crate::result::{NamedCache, SideEvents, TlbLookup, VmResult};
use crate::scheme::TranslateAt;
use crate::sim::{component_rows, SimError, VmSim};
use crate::vmcpi::Vmcpi;

/// The sweep's L2s below one machine's L1s (`add`), in order, each with
/// the counts that depend on its L2. Their L1 hits are the machine's, so
/// only what reached below L1 is counted here.
#[derive(Debug, Default)]
pub struct L2Fanout {
    variants: Vec<Variant>,
    /// One pass over the L2 sizes: the order the machine's own L2 (0) and
    /// the variants (i + 1: the i-th) take each L1 outcome in, smallest
    /// L2s first, and for each of them and fill side (I, D) an earlier one
    /// whose L2 of that side is included in this one's
    /// (`l2_inclusion_refusal`): a fill that hit there hits here, and is
    /// only counted. Empty when no L2 includes another.
    order: Vec<usize>,
    included: Vec<[Option<usize>; 2]>,
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

impl VmSim<L2Fanout> {
    /// One simulator for several machines that differ only in their L2
    /// (size, line, associativity, policies, split or unified): the L1s,
    /// TLBs, tables and handlers run once, and every L1 fill and write-back
    /// goes to each machine's L2. Exact only when nothing above L2 depends
    /// on L2 state, so it refuses schemes that translate at an L2 miss
    /// (SOFTVM, SPUR) and protection changes (which sweep L2); `results`
    /// gives one result per configuration, in order, identical to separate
    /// runs (tests/fanout.rs).
    pub fn fanout(cfgs: Vec<VmConfig>) -> Result<Self, SimError> {
        let mut it = cfgs.into_iter();
        let first = it.next().ok_or_else(|| SimError::Config("a fan-out needs at least one configuration".into()))?;
        let mut sim = Self::with_sweep(first, L2Fanout::default())?;
        for cfg in it {
            if let Some(why) = fanout_refusal(sim.config(), &cfg) {
                return Err(SimError::Config(format!(
                    "configuration {:?} cannot share L1s with {:?}: {why}",
                    cfg.name,
                    sim.config().name
                )));
            }
            cfg.check("translation config").map_err(|e| SimError::Config(e.to_string()))?;
            sim.mem_mut().add_tail(cfg).map_err(|e| SimError::Config(e.0))?;
        }
        Ok(sim)
    }
}

impl MemSys<L2Fanout> {
    /// Adds the L2 of `cfg` below the same L1s: it sees every fill,
    /// write-through and write-back the L1s send down, as the machine's own
    /// L2 does. Only for schemes whose L1 traffic does not depend on the L2
    /// (the caller checks): its transfers are never logged.
    pub fn add_tail(&mut self, cfg: VmConfig) -> Result<(), GeometryError> {
        let (fan, own) = self.sweep_and_own();
        fan.add(own, cfg)
    }
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

impl L2Fanout {
    /// Adds the L2 of `cfg` (`MemSys::add_tail`); `own` is the machine's.
    fn add(&mut self, own: &OwnTail, cfg: VmConfig) -> Result<(), GeometryError> {
        let mut tail = Tail::new(&cfg, None)?;
        if own.is_general() {
            tail.set_general();
        }
        self.variants.push(Variant {
            cfg,
            tail,
            level: L1,
            sides: [SideEvents::default(); 2],
            ledger: Ledger::default(),
        });
        self.chain(own);
        Ok(())
    }

    /// L2 `t`'s direct-probed fill cache of side `s` (`Tail::direct_fill_cache`):
    /// 0 is the machine's own, `t` the variant `t - 1`.
    fn fill_cache_at<'a>(&'a self, own: &'a OwnTail, t: usize, s: usize) -> Option<(&'a Cache, bool)> {
        if t == 0 {
            own.direct_fill_cache(s)
        } else {
            self.variants[t - 1].tail.direct_fill_cache(s)
        }
    }

    /// L2 `t`'s bytes, numbered as in `fill_cache_at`.
    fn bytes_at(&self, own: &OwnTail, t: usize) -> u64 {
        let caches = if t == 0 { own.caches() } else { self.variants[t - 1].tail.caches() };
        caches.iter().map(|(_, c)| c.config().size.0).sum()
    }

    /// Orders the L2s (the machine's own and the variants') smallest first
    /// and pairs each (per fill side) with the largest earlier one it
    /// includes (`l2_inclusion_refusal`), whose direct probes are on, as
    /// this one's.
    fn chain(&mut self, own: &OwnTail) {
        let n = 1 + self.variants.len();
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by_key(|&t| (self.bytes_at(own, t), t));
        let mut included = vec![[None; 2]; n];
        for (k, &t) in order.iter().enumerate() {
            for (s, slot) in included[t].iter_mut().enumerate() {
                let Some((large, split)) = self.fill_cache_at(own, t, s) else { continue };
                *slot = order[..k]
                    .iter()
                    .copied()
                    .filter(|&p| {
                        self.fill_cache_at(own, p, s).is_some_and(|(small, their_split)| {
                            their_split == split && l2_inclusion_refusal(small.config(), large.config()).is_none()
                        })
                    })
                    .max_by_key(|&p| {
                        let size = self.fill_cache_at(own, p, s).map_or(0, |(c, _)| c.config().size.0);
                        (size, std::cmp::Reverse(p))
                    });
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

    /// `below_l1` over L2s some of which include others (`chain`):
    /// smallest first, so a fill that hit an included L2 is only counted
    /// in the larger.
    fn below_l1_chained(
        &mut self,
        own: &mut OwnTail,
        kind: RefKind,
        r: LineRef,
        size: u64,
        line: u64,
        out: &Outcome,
    ) -> Reached {
        let s = usize::from(kind != RefKind::Ifetch);
        let mut own_level = L1;
        for k in 0..self.order.len() {
            let t = self.order[k];
            let hits = out.fetch
                && self.included[t][s].is_some_and(|p| {
                    if p == 0 {
                        own.fill_hit()
                    } else {
                        self.variants[p - 1].tail.fill_hit()
                    }
                });
            let fill = if hits { Fill::KnownHit } else { Fill::LookUp };
            if t == 0 {
                own.count_included(hits);
                own_level = own.below_l1(kind, r, size, line, out, fill);
            } else {
                let v = &mut self.variants[t - 1];
                v.tail.count_included(hits);
                v.level = v.tail.below_l1(kind, r, size, line, out, fill);
            }
        }
        own_level
    }

    fn tails_mut(&mut self) -> impl Iterator<Item = &mut Tail> {
        self.variants.iter_mut().map(|v| &mut v.tail)
    }

    pub fn len(&self) -> usize {
        self.variants.len()
    }

    /// Whether no L2s were added.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.variants.is_empty()
    }
}

impl L2Sweep for L2Fanout {
    #[inline(always)]
    fn is_empty(&self) -> bool {
        self.variants.is_empty()
    }

    fn below_l1(
        &mut self,
        own: &mut OwnTail,
        kind: RefKind,
        r: LineRef,
        size: u64,
        line: u64,
        out: &Outcome,
    ) -> Reached {
        if !self.order.is_empty() {
            return self.below_l1_chained(own, kind, r, size, line, out);
        }
        for v in &mut self.variants {
            v.level = v.tail.below_l1(kind, r, size, line, out, Fill::LookUp);
        }
        own.below_l1(kind, r, size, line, out, Fill::LookUp)
    }

    fn write_back(&mut self, r: LineRef, line: u64) {
        for t in self.tails_mut() {
            t.l2_request(RefKind::Write, r, line);
        }
    }

    fn flush_all(&mut self) {
        for t in self.tails_mut() {
            t.flush_all();
        }
    }

    fn settle(&mut self) {
        for t in self.tails_mut() {
            t.settle();
        }
    }

    fn set_general(&mut self, own: &OwnTail) {
        for t in self.tails_mut() {
            t.set_general();
        }
        self.chain(own);
    }

    fn direct_probes(&self) -> u64 {
        self.variants.iter().map(|v| v.tail.direct_probes()).sum()
    }

    fn included_fills(&self) -> u64 {
        self.variants.iter().map(|v| v.tail.included_fills()).sum()
    }

    /// Counts a user piece of side `s` (0: I, 1: D) that missed L1, in each
    /// variant at the level its L2 served it.
    #[inline(never)]
    fn count(&mut self, s: usize, tlb: TlbLookup) {
        for v in &mut self.variants {
            v.sides[s].count(v.level, tlb);
        }
    }

    /// Records a request of `kind` that missed L1 for the running
    /// mechanism, in each variant at the level its L2 served it.
    fn request(&mut self, kind: RefKind) {
        for v in &mut self.variants {
            v.ledger.request(kind, v.level);
        }
    }

    fn request_as(&mut self, m: Mechanism, kind: RefKind) {
        for v in &mut self.variants {
            request_as(&mut v.ledger, m, kind, v.level);
        }
    }

    fn enter(&mut self, m: Mechanism) {
        for v in &mut self.variants {
            v.ledger.enter(m);
        }
    }

    fn leave(&mut self, prev: Mechanism) {
        for v in &mut self.variants {
            v.ledger.leave(prev);
        }
    }

    fn instructions(&mut self, n: u64) {
        for v in &mut self.variants {
            v.ledger.instructions(n);
        }
    }

    fn configs(&self) -> impl Iterator<Item = &VmConfig> {
        self.variants.iter().map(|v| &v.cfg)
    }

    fn results(
        &self,
        base: &VmResult,
        l1_sides: [SideEvents; 2],
        vmcpi: &dyn Fn(&Ledger, &VmConfig) -> Vmcpi,
    ) -> Vec<VmResult> {
        self.variants
            .iter()
            .map(|v| result_below(base, &v.cfg, l1_sides, v.sides, &vmcpi(&v.ledger, &v.cfg), &v.tail))
            .collect()
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
pub(crate) fn result_below<const BASE: usize>(
    base: &VmResult,
    cfg: &VmConfig,
    l1_sides: [SideEvents; 2],
    lower: [SideEvents; 2],
    v: &Vmcpi,
    tail: &Tail<BASE>,
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
