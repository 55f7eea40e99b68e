//! The TLBs of one processor: a main level, split (I and D) or unified,
//! optionally fronted by split micro-TLBs.
//!
//! A lookup tries the micro-TLB of its side, then the main TLB; a main hit
//! refills the micro-TLB. A refill inserts into the main TLB and the micro-TLB
//! of the side that missed. The levels are not kept inclusive (as on real
//! parts, a main-TLB eviction leaves a micro entry until it ages out); purges
//! reach every level.

use serde::{Deserialize, Serialize};
use vmlab_addr::{Asid, VirtAddr};

use crate::switch::Switch;
use crate::tlb::{Slot, Tlb, TlbConfig, TlbEntry, TlbError, TlbStats};

/// Instruction side or data side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Side {
    I = 0,
    D = 1,
}

/// How a processor's TLBs are arranged, as a preset gives them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum TlbLayout {
    Split { i: TlbConfig, d: TlbConfig },
    Unified(TlbConfig),
}

#[derive(Debug, Clone)]
pub struct TlbSet {
    /// One (unified) or two (I, D) main TLBs.
    main: Vec<Tlb>,
    micro: Option<[Tlb; 2]>,
}

/// Statistics of one TLB of the set, by name (`itlb`, `dtlb`, `tlb`,
/// `micro-itlb`, `micro-dtlb`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NamedTlbStats {
    pub name: String,
    pub stats: TlbStats,
}

impl TlbSet {
    pub fn new(layout: TlbLayout, micro: Option<(TlbConfig, TlbConfig)>) -> Result<Self, TlbError> {
        let main = match layout {
            TlbLayout::Split { i, d } => vec![Tlb::new(i)?, Tlb::new(d)?],
            TlbLayout::Unified(u) => vec![Tlb::new(u)?],
        };
        let micro = match micro {
            Some((i, d)) => Some([Tlb::new(i)?, Tlb::new(d)?]),
            None => None,
        };
        Ok(Self { main, micro })
    }

    fn main_of(&mut self, side: Side) -> &mut Tlb {
        let n = self.main.len();
        &mut self.main[(side as usize).min(n - 1)]
    }

    /// Turns every level's one-entry lookup memo on or off (see `Tlb`);
    /// results are the same either way.
    pub fn set_memo(&mut self, on: bool) {
        for t in self.all_mut() {
            t.set_memo(on);
        }
    }

    /// A counted lookup through the levels. Returns the entry, and whether
    /// every level missed.
    #[inline(always)]
    pub fn lookup(&mut self, side: Side, asid: Asid, va: VirtAddr) -> Result<Option<TlbEntry>, TlbError> {
        if self.micro.is_none() {
            return Ok(self.main_of(side).lookup(asid, va));
        }
        self.lookup_through_micro(side, asid, va)
    }

    #[inline(never)]
    fn lookup_through_micro(&mut self, side: Side, asid: Asid, va: VirtAddr) -> Result<Option<TlbEntry>, TlbError> {
        if let Some(micro) = self.micro.as_mut() {
            if let Some(e) = micro[side as usize].lookup(asid, va) {
                return Ok(Some(e));
            }
        }
        let hit = self.main_of(side).lookup(asid, va);
        if let (Some(e), Some(micro)) = (hit, self.micro.as_mut()) {
            Self::fill(&mut micro[side as usize], asid, &e)?;
        }
        Ok(hit)
    }

    /// Copies the main TLB's entry `e`, found for `asid`, into micro-TLB `t`
    /// (as the looking-up space's entry: in an untagged main TLB, `e` may be
    /// another space's).
    fn fill(t: &mut Tlb, asid: Asid, e: &TlbEntry) -> Result<(), TlbError> {
        let entry = if e.global { *e } else { TlbEntry { asid, ..*e } };
        t.insert(entry, Slot::Normal)?;
        Ok(())
    }

    /// Looks up without counting or changing anything.
    pub fn probe(&self, side: Side, asid: Asid, va: VirtAddr) -> Option<TlbEntry> {
        let n = self.main.len();
        self.micro
            .as_ref()
            .and_then(|m| m[side as usize].probe(asid, va))
            .or_else(|| self.main[(side as usize).min(n - 1)].probe(asid, va))
    }

    /// A refill's insert: the main TLB of `side` (kernel mappings into its
    /// wired slots) and that side's micro-TLB. Returns the entry the main
    /// TLB evicted, if any.
    pub fn insert(&mut self, side: Side, entry: TlbEntry, slot: Slot) -> Result<Option<TlbEntry>, TlbError> {
        let evicted = self.main_of(side).insert(entry, slot)?;
        if let Some(micro) = self.micro.as_mut() {
            micro[side as usize].insert(entry, Slot::Normal)?;
        }
        Ok(evicted)
    }

    /// Hits proven without a lookup (repeats of the latest hit's page):
    /// counted at the first level a lookup consults.
    pub fn count_repeat_hits(&mut self, side: Side, n: u64) {
        match self.micro.as_mut() {
            Some(m) => m[side as usize].count_repeat_hits(n),
            None => self.main_of(side).count_repeat_hits(n),
        }
    }

    /// Whether a lookup on one side can change the replacement order the
    /// other side's next lookup sees: a unified LRU main TLB consulted
    /// first (no micro-TLBs). A caller that counts repeat hits without
    /// looking up must then forget the other side's latest page.
    pub fn sides_share_lru_order(&self) -> bool {
        self.main.len() == 1
            && self.micro.is_none()
            && self.main[0].config().replacement == crate::tlb::TlbReplacement::Lru
    }

    /// Whether a lookup that hits changes nothing but the hit count: no
    /// micro-TLB to refill and no LRU order to update (random or FIFO
    /// replacement). A caller may then count a hit on any page it saw hit,
    /// with no insert or purge since, without looking it up.
    pub fn lookups_change_nothing(&self) -> bool {
        self.micro.is_none() && self.main.iter().all(|t| t.config().replacement != crate::tlb::TlbReplacement::Lru)
    }

    /// Every TLB of the set, main ones first.
    pub fn all_mut(&mut self) -> impl Iterator<Item = &mut Tlb> {
        self.main.iter_mut().chain(self.micro.iter_mut().flatten())
    }

    /// What context switch `rule` drops, from every level; returns how
    /// many entries.
    pub fn purge(&mut self, rule: Switch) -> u64 {
        self.all_mut().map(|t| rule.purge(t)).sum()
    }

    /// Every TLB's statistics by name.
    pub fn stats(&self) -> Vec<NamedTlbStats> {
        let mut v = Vec::new();
        let names: &[&str] = if self.main.len() == 1 { &["tlb"] } else { &["itlb", "dtlb"] };
        for (t, n) in self.main.iter().zip(names) {
            v.push(NamedTlbStats { name: (*n).to_string(), stats: *t.stats() });
        }
        if let Some(m) = &self.micro {
            v.push(NamedTlbStats { name: "micro-itlb".into(), stats: *m[0].stats() });
            v.push(NamedTlbStats { name: "micro-dtlb".into(), stats: *m[1].stats() });
        }
        v
    }

    /// The main TLB's statistics for a side (the unified one for both).
    pub fn main_stats(&self, side: Side) -> TlbStats {
        *self.main[(side as usize).min(self.main.len() - 1)].stats()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use vmlab_addr::{PageSize, PhysAddr};

    fn entry(asid: u32, va: u64, pa: u64, page: u64) -> TlbEntry {
        TlbEntry::new(Asid(asid), VirtAddr(va), PhysAddr(pa), PageSize::new(page).unwrap())
    }

    fn tlb(n: u32) -> TlbConfig {
        TlbConfig::fully_associative(n, 0)
    }

    #[test]
    fn micro_hit_spares_the_main_tlb_and_a_main_hit_refills_the_micro() {
        let mut s = TlbSet::new(TlbLayout::Unified(tlb(8)), Some((tlb(1), tlb(1)))).unwrap();
        assert_eq!(s.lookup(Side::D, Asid(1), VirtAddr(0x1000)).unwrap(), None);
        s.insert(Side::D, entry(1, 0x1000, 0x9000, 4096), Slot::Normal).unwrap();
        assert!(s.lookup(Side::D, Asid(1), VirtAddr(0x1004)).unwrap().is_some()); // micro hit
        assert!(s.lookup(Side::I, Asid(1), VirtAddr(0x1008)).unwrap().is_some()); // I micro miss, unified main hit
        assert!(s.lookup(Side::I, Asid(1), VirtAddr(0x100c)).unwrap().is_some()); // now an I micro hit
        let st = s.stats();
        let get = |n: &str| st.iter().find(|x| x.name == n).unwrap().stats;
        assert_eq!((get("tlb").hits, get("tlb").misses), (1, 1));
        assert_eq!((get("micro-dtlb").hits, get("micro-dtlb").misses), (1, 1));
        assert_eq!((get("micro-itlb").hits, get("micro-itlb").misses), (1, 1));
    }

    #[test]
    fn unified_lru_keeps_the_order_the_other_side_changed() {
        // Two normal slots. I hits X, D hits Y, I hits X again: X is the
        // most recent, so a new page evicts Y. (A shortcut that skipped the
        // second X lookup as "a repeat of this side's latest hit" would
        // leave Y newer and evict X: in a unified LRU TLB it is not exact.)
        let lru = TlbConfig { replacement: crate::tlb::TlbReplacement::Lru, ..TlbConfig::fully_associative(4, 2) };
        let mut s = TlbSet::new(TlbLayout::Unified(lru), None).unwrap();
        s.insert(Side::I, entry(1, 0x1000, 0x9000, 4096), Slot::Normal).unwrap();
        s.insert(Side::D, entry(1, 0x2000, 0xa000, 4096), Slot::Normal).unwrap();
        assert!(s.lookup(Side::I, Asid(1), VirtAddr(0x1000)).unwrap().is_some());
        assert!(s.lookup(Side::D, Asid(1), VirtAddr(0x2000)).unwrap().is_some());
        assert!(s.lookup(Side::I, Asid(1), VirtAddr(0x1004)).unwrap().is_some());
        s.insert(Side::D, entry(1, 0x3000, 0xb000, 4096), Slot::Normal).unwrap();
        assert!(s.probe(Side::I, Asid(1), VirtAddr(0x1000)).is_some(), "X, the most recent, stays");
        assert!(s.probe(Side::D, Asid(1), VirtAddr(0x2000)).is_none(), "Y, the least recent, went");
    }

    #[test]
    fn split_sides_do_not_share() {
        let mut s = TlbSet::new(TlbLayout::Split { i: tlb(4), d: tlb(4) }, None).unwrap();
        s.insert(Side::D, entry(1, 0x1000, 0, 4096), Slot::Normal).unwrap();
        assert!(s.lookup(Side::I, Asid(1), VirtAddr(0x1000)).unwrap().is_none());
        assert!(s.lookup(Side::D, Asid(1), VirtAddr(0x1000)).unwrap().is_some());
    }

    #[test]
    fn untagged_levels_are_purged_on_a_switch() {
        let untagged = TlbConfig { asid_tags: false, ..tlb(4) };
        let mut s = TlbSet::new(TlbLayout::Unified(tlb(4)), Some((untagged.clone(), untagged))).unwrap();
        s.insert(Side::D, entry(1, 0x1000, 0, 4096), Slot::Normal).unwrap();
        s.purge(Switch::Untagged);
        // The tagged main TLB keeps it; the untagged micro-TLB lost it.
        assert!(s.lookup(Side::D, Asid(1), VirtAddr(0x1000)).unwrap().is_some());
        let st = s.stats();
        assert_eq!(st.iter().find(|x| x.name == "micro-dtlb").unwrap().stats.purged, 1);
    }
}
