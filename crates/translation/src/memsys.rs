//! The two cache tiers of a translating machine (split L1, split or unified
//! L2, then memory), connected by the same rules as `vmlab_machine`'s
//! hierarchy (docs/reference-semantics.md): a miss fetches the whole line
//! below, a write not absorbed by a write-back line goes below, a dirty
//! victim is written below. A NOTLB run is checked against that hierarchy
//! counter for counter.
//!
//! Below the L1s is `fanout::Tails`: the machine's own L2 and memory, and
//! in a sweep the further L2s fed the same L1 misses.
//!
//! What it adds: the level that served each access (for VMCPI penalties and
//! Table 1), and the machine crate's `TransferLog` of the transfers that
//! reached memory for mapped lines, tagged fill, write-back or
//! write-through, so a scheme that translates at memory (SOFTVM, SPUR) can
//! see the fills and write-backs it must translate.

use vmlab_addr::VirtAddr;
use vmlab_cache::{
    Cache, CacheStats, Flush, FlushStats, GeometryError, HitCheck, LineRef, Lookup, Outcome, RefKind, VirtualDirect,
};
use vmlab_machine::{MemoryStats, MissClasses, Reached, Transfer};

use crate::config::VmConfig;
use crate::fanout::{direct_check, Fanout, Tail, Tails};

/// Where the L1s serve an access, numbered as the machine's hierarchy
/// numbers its levels (`Reached::Level(0)`); the L2s are `L2`, memory
/// `Reached::Memory`.
pub const L1: Reached = Reached::Level(0);
/// Where the L2s serve an access.
pub const L2: Reached = Reached::Level(1);

// The L2s first (`repr(C)`): an L1 miss hands them on, and with them at
// offset 0 SOFTVM and SPUR run 0.1-0.2 % fewer instructions (callgrind,
// docs/performance.md, session 17).
#[repr(C)]
#[derive(Debug)]
pub struct MemSys {
    /// The machine's own L2 and memory, and the sweep's fan-out of L2s.
    below: Tails,
    l1i: Cache,
    l1d: Cache,
    /// Per L1 side (I, D): the inline hit check of a direct-mapped, VIVT,
    /// ASID-tagged, write-back level without 3C shadow, or `None`. Such a
    /// level's hit is `Cache::probe` (a dirty bit at most; no replacement
    /// state) plus one access counted; the counts wait in `direct_hits`
    /// until `settle`. `HitCheck::virtual_locate` gives the set and key
    /// without testing the index/tag flags per access.
    l1_direct: [Option<HitCheck>; 2],
    /// Hits found by the L1 direct probes, by kind, not yet settled.
    direct_hits: [u64; 3],
    /// Every probe by the L1 direct checks, hit or miss (never reset): lets
    /// tests prove the direct paths ran.
    direct_probes: u64,
}

impl MemSys {
    /// The machine of `cfg`, keeping the transfers to and from memory of
    /// lines below `unmapped_base` (`transfers_since`), or of none.
    pub fn new(cfg: &VmConfig, unmapped_base: Option<VirtAddr>) -> Result<Self, GeometryError> {
        let below = Tails::new(cfg, unmapped_base)?;
        let l1i = Cache::new(cfg.l1i.clone(), MissClasses::Unsorted)?;
        let l1d = Cache::new(cfg.l1d.clone(), MissClasses::Unsorted)?;
        let l1_direct = [direct_check(&l1i), direct_check(&l1d)];
        Ok(Self { l1i, l1d, below, l1_direct, direct_hits: [0; 3], direct_probes: 0 })
    }

    /// Adds the L2 of `cfg` below the same L1s: it sees every fill,
    /// write-through and write-back the L1s send down, as the machine's own
    /// L2 does. Only for schemes whose L1 traffic does not depend on the L2
    /// (the caller checks): its transfers are never logged.
    pub fn add_tail(&mut self, cfg: VmConfig) -> Result<(), GeometryError> {
        self.below.add_tail(cfg)
    }

    /// The added L2s (`add_tail`) and the counts that depend on them.
    #[inline(always)]
    pub fn fanout(&self) -> &Fanout {
        self.below.fanout()
    }

    #[inline(always)]
    pub fn fanout_mut(&mut self) -> &mut Fanout {
        self.below.fanout_mut()
    }

    /// The machine's own L2 and memory.
    pub fn own_tail(&self) -> &Tail {
        self.below.own()
    }

    /// Turns the fast paths (direct probes, hits finished by `lookup`) off:
    /// the general path the fast one is tested against.
    pub fn set_general(&mut self) {
        self.l1_direct = [None; 2];
        self.below.set_general();
    }

    /// Probes by the direct checks, hit or miss, at every level.
    pub fn direct_probes(&self) -> u64 {
        self.direct_probes + self.below.direct_probes()
    }

    /// Fills counted by inclusion at every L2 (`chain_tails`).
    pub fn included_fills(&self) -> u64 {
        self.below.included_fills()
    }

    /// Adds the hits the direct probes found to the caches' statistics;
    /// call before reading `stats`.
    pub fn settle(&mut self) {
        for kind in [RefKind::Ifetch, RefKind::Read, RefKind::Write] {
            let n = std::mem::take(&mut self.direct_hits[kind as usize]);
            self.l1(kind).count_repeat_hits(kind, n);
        }
        self.below.settle();
    }

    #[inline]
    pub fn l1(&mut self, kind: RefKind) -> &mut Cache {
        if kind == RefKind::Ifetch {
            &mut self.l1i
        } else {
            &mut self.l1d
        }
    }

    /// The machine's own L2 serving `kind`.
    #[inline]
    pub fn l2(&mut self, kind: RefKind) -> &mut Cache {
        self.below.own_mut().l2(kind)
    }

    /// Whether an access of `kind` to this line would be served by L1 or L2
    /// without reaching memory (nothing changes).
    pub fn resident(&mut self, kind: RefKind, r: LineRef) -> bool {
        self.l1(kind).contains(r) || self.l2(kind).contains(r)
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
        let l1 = if d == 0 { &mut self.l1i } else { &mut self.l1d };
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

    /// Both L1s as `VirtualDirect` views (I, D), when the direct probes
    /// are on for both (`l1_direct`): the hit loop (`hit_run`) checks hits
    /// through them and reports its counts with `count_l1_hits`.
    pub fn l1_views(&mut self) -> Option<[VirtualDirect<'_>; 2]> {
        if self.l1_direct.iter().any(Option::is_none) {
            return None;
        }
        match (self.l1i.virtual_direct(), self.l1d.virtual_direct()) {
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

    /// Completes an L1 miss that `l1_lookup` found, with everything below.
    #[inline(never)]
    pub fn l1_missed(&mut self, kind: RefKind, set: usize, key: u64, r: LineRef, size: u64) -> Reached {
        let direct = self.l1_direct[usize::from(kind != RefKind::Ifetch)].is_some();
        let l1 = self.l1(kind);
        let line = l1.line_bytes();
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
        let own = self.below.own_mut();
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
    /// `l2_holds` tested; no fan-out). Same result and state as `l1_missed`.
    #[inline(never)]
    pub fn l1_missed_l2_hit(&mut self, kind: RefKind, set: usize, key: u64, r: LineRef, size: u64) -> Reached {
        let fill = if kind == RefKind::Ifetch { RefKind::Ifetch } else { RefKind::Read };
        let d = usize::from(kind != RefKind::Ifetch);
        let line = self.l1(kind).line_bytes();
        if !self.below.fanout().is_empty()
            || self.below.own().l2_direct[fill as usize].is_none()
            || line > self.l2(fill).line_bytes()
        {
            return self.l1_missed(kind, set, key, r, size);
        }
        let direct = self.l1_direct[d].is_some();
        let l1 = self.l1(kind);
        let out = if direct {
            l1.fill_or_access_missed(set, key, r, kind, size)
        } else {
            l1.access_missed(set, key, r, kind, size)
        };
        self.below.own_mut().below_l1(kind, r, size, line, &out, true)
    }

    #[inline(always)]
    fn below_l1(&mut self, kind: RefKind, r: LineRef, size: u64, line: u64, out: &Outcome) -> Reached {
        self.below.below_l1(kind, r, size, line, out)
    }

    pub fn memory(&self) -> &MemoryStats {
        self.below.own().memory()
    }

    /// A position in the log of the machine's own memory transfers
    /// (`transfers_since`).
    #[inline(always)]
    pub fn transfer_mark(&self) -> usize {
        self.below.own().log.mark()
    }

    /// Whether a transfer of a mapped line reached memory after `mark`.
    #[inline(always)]
    pub fn transferred_since(&self, mark: usize) -> bool {
        self.below.own().log.grew_since(mark)
    }

    /// Removes and yields, oldest first, the memory transfers of mapped
    /// lines recorded after `mark` (only the machine's own L2's: the
    /// fan-out's are never kept).
    pub fn transfers_since(&mut self, mark: usize) -> impl Iterator<Item = Transfer> + '_ {
        self.below.own_mut().log.since(mark)
    }

    /// Every cache with its name, L1 first (I before D).
    pub fn caches(&self) -> Vec<(&'static str, &Cache)> {
        let mut v = vec![("l1i", &self.l1i), ("l1d", &self.l1d)];
        v.extend(self.below.own().caches());
        v
    }

    pub fn stats(&self) -> Vec<(&'static str, CacheStats)> {
        self.caches().into_iter().map(|(n, c)| (n, *c.stats())).collect()
    }

    /// Writes back and invalidates everything, L1 first so its dirty lines
    /// land in every L2 before the L2s are flushed. Returns the states the
    /// lines of `caches` were found in (the added L2s' are not counted).
    pub fn flush_all(&mut self) -> FlushStats {
        let mut found = FlushStats::default();
        for kind in [RefKind::Ifetch, RefKind::Read] {
            let line = self.l1(kind).line_bytes();
            let (stats, dirty) = self.l1(kind).flush_all(Flush::WriteBack);
            found += stats;
            for v in dirty {
                self.below.write_back(v.line_ref(), line);
            }
        }
        found += self.below.flush_all();
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

    /// The transfers after `mark`, every one of space 1.
    fn since(m: &mut MemSys, mark: usize) -> Vec<(Cause, u64)> {
        let kept: Vec<Transfer> = m.transfers_since(mark).collect();
        assert!(kept.iter().all(|t| t.space == Asid(1)));
        kept.iter().map(|t| (t.cause, t.vaddr.0)).collect()
    }

    #[test]
    fn fills_and_write_backs_reach_the_log_with_their_cause() {
        for general in [false, true] {
            let mut m = MemSys::new(&tiny(), Some(VirtAddr(UNMAPPED))).expect("machine");
            if general {
                m.set_general();
            }
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

    #[test]
    fn nothing_is_kept_without_a_bound() {
        let mut m = MemSys::new(&tiny(), None).expect("machine");
        m.access_fast(RefKind::Read, at(0x40), 4);
        assert_eq!(m.transfer_mark(), 0);
        assert_eq!(m.memory().reads, 1);
    }
}
