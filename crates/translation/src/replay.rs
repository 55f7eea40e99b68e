//! One pass per TLB over many L1 sizes: the machine with the smallest L1s
//! runs in full and records what reached its caches (`VmSim::record`);
//! every machine with larger L1s of the same shape replays that record
//! through its own `MemSys`, and takes the rest (TLB, tables, handlers,
//! every count that does not depend on the caches) from the recording
//! machine. Each result equals the machine's own run, counter for counter
//! (tests/replay.rs).
//!
//! Why it is exact, and when (`replay_refusal`):
//!
//! | condition | why |
//! |---|---|
//! | the scheme translates on every access, or never | then which references reach the caches (user pieces, handler fetches, PTE and administrative loads) and the TLB's every outcome depend on the TLB and tables alone, not on what the caches hold; under translation at an L1 or L2 miss they do not |
//! | no protection changes | their sweeps read what the caches hold |
//! | everything equal but the L1 sizes (and the L2s, each L1 size's own fan-out) | the same reference stream, pieces cut at the same L1 line size |
//! | both L1s direct-mapped, bit-select, allocating on a write miss, at least the recording machine's size on each side | inclusion: a direct-mapped cache holds the latest line of each set, and the sets of a larger one refine those of a smaller, so a line in the smaller is in the larger (Mattson et al. 1970's inclusion, for set refinement as in Hill and Smith 1989) |
//!
//! So a fetch or read that hits the small L1 hits every larger one and
//! changes nothing there but a count: it is not recorded, only counted as
//! the difference between the recording machine's L1 accesses (and Table 1
//! counts) and the replayed ones. Everything else (misses, every write,
//! since a write hit sets a dirty bit, and flushes) is recorded and
//! replayed in order.
//!
//! The stack machinery of `vmlab-onepass` does not apply here: each L1
//! size's miss stream feeds its own L2s, and every reference's level is
//! charged (VMCPI, Table 1), so each L1 is simulated; what is shared is
//! everything above the caches.

use vmlab_cache::{Geometry, IndexFn, RefKind, WriteMissPolicy};
use vmlab_machine::Ledger;
use vmlab_trace::PackedBlock;

use crate::config::VmConfig;
use crate::fanout::{fanout_groups, fanout_refusal, request_as, result_below, L2Fanout};
use crate::filter::{filter_refusal, FilterGroup};
use crate::memsys::{L2Sweep, MemSys, L1};
use crate::result::{NamedCache, SideEvents, TlbLookup, VmResult};
use crate::scheme::TranslateAt;
use crate::sim::{Recorded, SimError, VmSim};
use crate::vmcpi::Vmcpi;

/// Why a machine `cfg` cannot replay what `recorder` records, or `None`
/// if it can (`cfg`'s L2s may differ: each replaying machine fans out).
pub fn replay_refusal(recorder: &VmConfig, cfg: &VmConfig) -> Option<&'static str> {
    match recorder.translate_at() {
        TranslateAt::EveryAccess | TranslateAt::Never => {}
        TranslateAt::L1Miss => return Some("its scheme translates at L1 misses, so the TLB depends on the L1"),
        TranslateAt::L2Miss => return Some("its scheme translates at L2 misses, so the handlers depend on the caches"),
    }
    if recorder.protection_changes_per_million > 0.0 || cfg.protection_changes_per_million > 0.0 {
        return Some("protection changes read what the caches hold");
    }
    for (small, large) in [(&recorder.l1i, &cfg.l1i), (&recorder.l1d, &cfg.l1d)] {
        for c in [small, large] {
            let direct = Geometry::new(c).is_ok_and(|g| g.ways == 1 && g.sets.is_power_of_two());
            if !direct || c.index != IndexFn::BitSelect || c.write_miss != WriteMissPolicy::WriteAllocate {
                return Some("an L1 is not direct-mapped, bit-select and write-allocate");
            }
        }
        if large.size.0 < small.size.0 {
            return Some("an L1 is smaller than the recording machine's");
        }
    }
    let mut same = cfg.clone();
    same.l1i.size = recorder.l1i.size;
    same.l1d.size = recorder.l1d.size;
    same.l1i.source.clone_from(&recorder.l1i.source);
    same.l1d.source.clone_from(&recorder.l1d.source);
    fanout_refusal(recorder, &same).map(|_| "they differ in more than the L1 sizes and the L2s")
}

/// Splits configurations into one-pass groups: each a list of fan-out
/// groups (`fanout_groups`), the first of which records and the others
/// replay; or (SOFTVM, SPUR) fan-outs of one configuration with equal
/// L1s, which share an L1-hit filter (`crate::filter`). Fan-out groups are taken smallest L1s first, so the smallest
/// of a shape records. Indices into `cfgs`; every index appears once.
pub fn onepass_groups(cfgs: &[VmConfig]) -> Vec<Vec<Vec<usize>>> {
    let mut fans = fanout_groups(cfgs);
    fans.sort_by_key(|g| (cfgs[g[0]].l1i.size.0, cfgs[g[0]].l1d.size.0, g[0]));
    let mut out: Vec<Vec<Vec<usize>>> = Vec::new();
    for f in fans {
        let lead = &cfgs[f[0]];
        match out.iter_mut().find(|p| replay_refusal(&cfgs[p[0][0]], lead).is_none()) {
            Some(p) => p.push(f),
            None => out.push(vec![f]),
        }
    }
    // Machines that translate at L2 misses run alone (neither fan-out nor
    // replay applies); those with equal L1s share one L1-hit filter.
    let mut merged: Vec<Vec<Vec<usize>>> = Vec::new();
    for p in out {
        let alone = |p: &[Vec<usize>]| p.len() == 1 && p[0].len() == 1;
        let lead = &cfgs[p[0][0]];
        let joined = alone(&p)
            && filter_refusal(lead, lead).is_none()
            && match merged
                .iter_mut()
                .find(|m| m.iter().all(|f| f.len() == 1) && filter_refusal(&cfgs[m[0][0]], lead).is_none())
            {
                Some(m) => {
                    m.push(p[0].clone());
                    true
                }
                None => false,
            };
        if !joined {
            merged.push(p);
        }
    }
    merged.sort_by_key(|p| p.iter().flatten().min().copied());
    merged
}

/// A machine (and its L2 fan-out, `L2Fanout`) replaying the record.
#[derive(Debug)]
struct Replayer {
    cfg: VmConfig,
    mem: MemSys<L2Fanout>,
    sides: [SideEvents; 2],
    /// Only the kernel requests that missed L1, by the mechanism that
    /// made them: the VMCPI components read off the L2 and memory.
    ledger: Ledger,
}

impl Replayer {
    fn new(cfgs: Vec<VmConfig>) -> Result<Self, SimError> {
        let mut it = cfgs.into_iter();
        let first = it.next().ok_or_else(|| SimError::Config("an empty fan-out".into()))?;
        first.check("translation config").map_err(|e| SimError::Config(e.to_string()))?;
        let mut mem = MemSys::with_sweep(&first, None, L2Fanout::default()).map_err(|e| SimError::Config(e.0))?;
        for c in it {
            c.check("translation config").map_err(|e| SimError::Config(e.to_string()))?;
            mem.add_tail(c).map_err(|e| SimError::Config(e.0))?;
        }
        Ok(Self { cfg: first, mem, sides: Default::default(), ledger: Ledger::default() })
    }

    /// How many configurations it runs: its own and its fan-out's.
    fn len(&self) -> usize {
        1 + self.mem.sweep().len()
    }

    fn replay(&mut self, refs: &[Recorded]) {
        for &x in refs {
            match x {
                Recorded::User { kind, r, size, tlb_miss } => {
                    let level = self.mem.access_fast(kind, r, size);
                    let s = usize::from(kind != RefKind::Ifetch);
                    let tlb = TlbLookup::of_miss(tlb_miss);
                    self.sides[s].count(level, tlb);
                    if level != L1 {
                        self.mem.sweep_mut().count(s, tlb);
                    }
                }
                Recorded::Kernel { kind, r, size, mechanism } => {
                    let level = self.mem.access_fast(kind, r, size);
                    // As `VmSim` records them: only what missed L1 is priced.
                    if level != L1 {
                        request_as(&mut self.ledger, mechanism, kind, level);
                        self.mem.sweep_mut().request_as(mechanism, kind);
                    }
                }
                Recorded::Flush => {
                    self.mem.flush_all();
                }
            }
        }
    }

    /// Counts the references that were not recorded (fetches and reads
    /// that hit the recording machine's L1, so every L1 here): the
    /// recording machine's L1 accesses and Table 1 events beyond those
    /// replayed. Then one result per configuration, built on the
    /// recording machine's `own`.
    fn results(&mut self, own: &VmResult, recorder: &VmSim<L2Fanout>) -> Vec<VmResult> {
        self.mem.settle();
        let l1_accesses = |caches: &[NamedCache], name: &str, kind: RefKind| {
            caches.iter().find(|c| c.name == name).map_or(0, |c| c.stats.kind(kind).accesses)
        };
        let mine: Vec<NamedCache> =
            self.mem.stats().into_iter().map(|(name, stats)| NamedCache { name: name.to_string(), stats }).collect();
        for (name, kind) in [("l1i", RefKind::Ifetch), ("l1d", RefKind::Read), ("l1d", RefKind::Write)] {
            let n = l1_accesses(&own.caches, name, kind).saturating_sub(l1_accesses(&mine, name, kind));
            self.mem.l1(kind).count_repeat_hits(kind, n);
        }
        for (mine, theirs) in self.sides.iter_mut().zip([own.i_side, own.d_side]) {
            let hits = theirs.l1_hit_tlb_hit + theirs.l2_hit_tlb_hit + theirs.l2_miss_tlb_hit;
            let misses = theirs.l1_hit_tlb_miss + theirs.l2_hit_tlb_miss + theirs.l2_miss_tlb_miss;
            mine.l1_hit_tlb_hit +=
                hits.saturating_sub(mine.l1_hit_tlb_hit + mine.l2_hit_tlb_hit + mine.l2_miss_tlb_hit);
            mine.l1_hit_tlb_miss +=
                misses.saturating_sub(mine.l1_hit_tlb_miss + mine.l2_hit_tlb_miss + mine.l2_miss_tlb_miss);
        }
        // The recording machine's result with this machine's L1s: what
        // every result here shares.
        let mut base = own.clone();
        base.caches = self
            .mem
            .stats()
            .into_iter()
            .filter(|(n, _)| n.starts_with("l1"))
            .map(|(name, stats)| NamedCache { name: name.to_string(), stats })
            .collect();
        let vmcpi = |ledger: &Ledger, cfg: &VmConfig| {
            recorder.vmcpi().with_requests_of(&Vmcpi::priced(ledger, cfg.costs, own.user_instructions))
        };
        let mut out = Vec::with_capacity(self.len());
        let v = vmcpi(&self.ledger, &self.cfg);
        out.push(result_below(&base, &self.cfg, self.sides, self.sides, &v, self.mem.own_tail()));
        out.extend(self.mem.sweep().results(&base, self.sides, &vmcpi));
        out
    }
}

/// One pass over a trace for a one-pass group (`onepass_groups`): the
/// first fan-out records, the others replay; or, for machines that
/// translate at L2 misses, each a fan-out of one, one L1-hit filter for
/// all (`crate::filter`); or one configuration alone, which runs no
/// fan-out (`VmSim<Alone>`): the L2 fan-out is a sweep's concern, paid
/// only where a sweep shares L1s.
#[derive(Debug)]
pub struct OnePass(Pass);

#[derive(Debug)]
enum Pass {
    // Boxed: a `VmSim` is some 9 KB, a filter group a few hundred bytes.
    Replay { recorder: Box<VmSim<L2Fanout>>, replayers: Vec<Replayer>, record: Vec<Recorded> },
    Filter(Box<FilterGroup>),
    Alone(Box<VmSim>),
}

impl OnePass {
    /// `fans`: fan-out groups of configurations, the first recording; each
    /// later one must be accepted by `replay_refusal` against the first,
    /// or every fan-out be one configuration that `filter_refusal` accepts
    /// against the first.
    pub fn new(fans: Vec<Vec<VmConfig>>) -> Result<Self, SimError> {
        if fans.len() > 1
            && fans.iter().all(|f| f.len() == 1)
            && fans.iter().all(|f| filter_refusal(&fans[0][0], &f[0]).is_none())
        {
            return Ok(Self(Pass::Filter(Box::new(FilterGroup::new(fans.into_iter().flatten().collect())?))));
        }
        if let [one] = &fans[..] {
            if let [cfg] = &one[..] {
                return Ok(Self(Pass::Alone(Box::new(VmSim::new(cfg.clone())?))));
            }
        }
        let mut it = fans.into_iter();
        let first = it.next().ok_or_else(|| SimError::Config("a one-pass group needs a configuration".into()))?;
        let mut recorder = VmSim::fanout(first)?;
        let mut replayers = Vec::new();
        for f in it {
            let lead = f.first().ok_or_else(|| SimError::Config("an empty fan-out".into()))?;
            if let Some(why) = replay_refusal(recorder.config(), lead) {
                return Err(SimError::Config(format!(
                    "configuration {:?} cannot replay what {:?} records: {why}",
                    lead.name,
                    recorder.config().name
                )));
            }
            replayers.push(Replayer::new(f)?);
        }
        if !replayers.is_empty() {
            recorder.record();
        }
        Ok(Self(Pass::Replay { recorder: Box::new(recorder), replayers, record: Vec::new() }))
    }

    /// As `VmSim::feed_packed`, for every machine of the group.
    pub fn feed_packed(&mut self, block: &PackedBlock, n: usize) -> Result<(), SimError> {
        match &mut self.0 {
            Pass::Replay { recorder, replayers, record } => {
                let fed = recorder.feed_packed(block, n);
                replay(recorder, replayers, record);
                fed
            }
            Pass::Filter(g) => g.feed_packed(block, n),
            Pass::Alone(sim) => sim.feed_packed(block, n),
        }
    }

    /// One result per configuration: the recording fan-out's, then each
    /// replaying one's, in the order given to `new`.
    pub fn results(&mut self, origin: &str) -> Vec<VmResult> {
        match &mut self.0 {
            Pass::Replay { recorder, replayers, record } => {
                replay(recorder, replayers, record);
                let mut out = recorder.results(origin);
                let own = out[0].clone();
                for r in replayers.iter_mut() {
                    out.extend(r.results(&own, recorder));
                }
                out
            }
            Pass::Filter(g) => g.results(origin),
            Pass::Alone(sim) => sim.results(origin),
        }
    }

    /// L1 fills counted as L2 hits by inclusion (`VmSim::included_fills`),
    /// in every machine of the group.
    pub fn included_fills(&self) -> u64 {
        match &self.0 {
            Pass::Replay { recorder, replayers, .. } => {
                recorder.included_fills() + replayers.iter().map(|r| r.mem.included_fills()).sum::<u64>()
            }
            Pass::Filter(g) => g.sims().map(VmSim::included_fills).sum(),
            Pass::Alone(sim) => sim.included_fills(),
        }
    }

    /// Packed words the recording machine's hit loop completed
    /// (`VmSim::hit_run_words`), or the first machine's skips under an
    /// L1-hit filter: per configuration, what a filter shared across
    /// configurations could take over, or took.
    pub fn hit_run_words(&self) -> u64 {
        match &self.0 {
            Pass::Replay { recorder, .. } => recorder.hit_run_words(),
            Pass::Filter(g) => g.skipped_words().first().copied().unwrap_or(0),
            Pass::Alone(sim) => sim.hit_run_words(),
        }
    }

    /// Per configuration, the words an L1-hit filter completed without
    /// its general path (`crate::filter`); empty without a filter.
    pub fn filtered_words(&self) -> Vec<u64> {
        match &self.0 {
            Pass::Replay { .. } | Pass::Alone(_) => Vec::new(),
            Pass::Filter(g) => g.skipped_words(),
        }
    }

    /// Per configuration, the shared stops an L1-hit filter took as
    /// known L1 misses (`VmSim::filter_miss`); empty without a filter.
    pub fn filter_known_misses(&self) -> Vec<u64> {
        match &self.0 {
            Pass::Replay { .. } | Pass::Alone(_) => Vec::new(),
            Pass::Filter(g) => g.known_misses(),
        }
    }

    /// How many configurations it runs.
    pub fn len(&self) -> usize {
        match &self.0 {
            Pass::Replay { recorder, replayers, .. } => {
                recorder.configs().count() + replayers.iter().map(Replayer::len).sum::<usize>()
            }
            Pass::Filter(g) => g.len(),
            Pass::Alone(_) => 1,
        }
    }

    pub fn is_empty(&self) -> bool {
        false
    }
}

/// Hands what the recorder recorded since the last call to every replayer.
fn replay(recorder: &mut VmSim<L2Fanout>, replayers: &mut [Replayer], record: &mut Vec<Recorded>) {
    recorder.take_recorded(record);
    for r in replayers {
        r.replay(record);
    }
}
