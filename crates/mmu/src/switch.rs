//! What a context switch does to the caches and TLBs of the CPU it happens
//! on: one rule (`Switch`), applied by every model that switches address
//! spaces, to whatever holds that CPU's caches and TLBs (`SwitchSite`).
//!
//! | rule | a cache's lines | a TLB's entries | who switches this way |
//! |---|---|---|---|
//! | `Keep` | all stay | all stay | the trace replayer (`Machine`): the hardware alone, as Dinero IV, with no OS to flush anything |
//! | `Untagged` | all written back and invalidated unless every cache names the space of its lines (physical tags, or virtual tags with ASID tags) | every non-global entry of a TLB without ASID tags | the translation simulator (S1, `VmSim`), the OS model's CPU (S2, S4), ASID hardware under S5 |
//! | `Everything` | all written back and invalidated | all, wired and global ones too | S5's `flush` mechanism, an ASID or a domain recycled, a FASS collision |
//!
//! Why here: this crate is the lowest that knows both a cache's
//! configuration (`vmlab-cache`) and a TLB, and the translation simulator,
//! the OS models and `vmlab-machine` (whose `Cpu` is a `SwitchSite`) all
//! depend on it; the TLB set's own purge (`TlbSet::purge`) uses it. The rule
//! decides *what* survives; *how* a dirty line reaches the level below is
//! the holder's (`SwitchSite::flush_caches`): the translation simulator's
//! L1s write back into its own L2s, a `Cpu`'s into its hierarchy. What
//! only one mechanism has (S5's domains, PID relocation, the SA-1100's
//! flush loop) stays with that mechanism, which then calls the act here.

use vmlab_addr::Asid;
use vmlab_cache::{CacheConfig, FlushStats};

use crate::tlb::{Tlb, TlbConfig};

/// What a context switch does to a CPU's caches and TLBs (the table above).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Switch {
    /// Every line and entry stays.
    Keep,
    /// What cannot tell two address spaces apart goes, nothing else: the
    /// least an OS must do to stay correct on this hardware.
    Untagged,
    /// Every line and every entry goes, whatever the tags.
    Everything,
}

/// What a switch did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Switched {
    /// TLB entries purged, over every TLB.
    pub tlb_entries: u64,
    /// The caches' flush, if they were flushed (written back, invalidated).
    pub caches: Option<FlushStats>,
}

/// Whatever holds one CPU's caches and TLBs, as a switch acts on them.
pub trait SwitchSite {
    /// What a flush of the caches can fail with (`Infallible` on a
    /// `vmlab_machine::OnCpu`).
    type Error;
    /// The configuration of every cache a switch may have to flush.
    fn cache_configs(&self) -> Vec<&CacheConfig>;
    /// Calls `f` on every TLB.
    fn each_tlb(&mut self, f: &mut dyn FnMut(&mut Tlb));
    /// Writes back and invalidates every cache of `cache_configs`, top
    /// level first, so a dirty line written into a lower level is flushed
    /// from there too.
    fn flush_caches(&mut self) -> Result<FlushStats, Self::Error>;
}

impl Switch {
    /// Whether the lines of a cache configured as `c` survive the switch.
    /// A physically tagged line names its frame; a virtually tagged one
    /// its space only with ASID tags.
    pub fn keeps_lines(self, c: &CacheConfig) -> bool {
        match self {
            Switch::Keep => true,
            Switch::Untagged => !c.indexing.tag_is_virtual() || c.asid_tags,
            Switch::Everything => false,
        }
    }

    /// Whether the non-global entries of a TLB configured as `t` survive.
    pub fn keeps_entries(self, t: &TlbConfig) -> bool {
        match self {
            Switch::Keep => true,
            Switch::Untagged => t.asid_tags,
            Switch::Everything => false,
        }
    }

    /// Whether any of `caches` loses its lines: then every one is flushed,
    /// as a whole-cache flush is what the hardware offers.
    pub fn flushes<'a>(self, caches: impl IntoIterator<Item = &'a CacheConfig>) -> bool {
        caches.into_iter().any(|c| !self.keeps_lines(c))
    }

    /// Purges from `tlb` what this rule drops; returns how many entries.
    pub fn purge(self, tlb: &mut Tlb) -> u64 {
        match self {
            Switch::Keep => 0,
            // A TLB without tags holds one space: every entry but the
            // global ones is that space's (`Tlb::purge_asid`).
            Switch::Untagged if !tlb.config().asid_tags => tlb.purge_asid(Asid(0)),
            Switch::Untagged => 0,
            Switch::Everything => tlb.purge_all(),
        }
    }

    /// The TLB half of the switch on `site`: entries purged.
    pub fn tlbs<S: SwitchSite + ?Sized>(self, site: &mut S) -> u64 {
        let mut n = 0;
        site.each_tlb(&mut |t| n += self.purge(t));
        n
    }

    /// The cache half of the switch on `site`: the flush, if one was needed.
    pub fn caches<S: SwitchSite + ?Sized>(self, site: &mut S) -> Result<Option<FlushStats>, S::Error> {
        if self.flushes(site.cache_configs()) {
            site.flush_caches().map(Some)
        } else {
            Ok(None)
        }
    }

    /// The whole switch on `site`: TLBs first, so a flush that translates
    /// its write-backs (the translation simulator's SOFTVM and SPUR) sees
    /// the TLBs the next process will.
    pub fn apply<S: SwitchSite + ?Sized>(self, site: &mut S) -> Result<Switched, S::Error> {
        let tlb_entries = self.tlbs(site);
        let caches = self.caches(site)?;
        Ok(Switched { tlb_entries, caches })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vmlab_cache::Indexing;

    fn cache(indexing: Indexing, asid_tags: bool) -> CacheConfig {
        CacheConfig { indexing, asid_tags, ..CacheConfig::simple(128, 32, 1) }
    }

    /// Under `Untagged`, only a virtually tagged cache without ASID tags
    /// loses its lines; a virtual index over physical tags does not.
    #[test]
    fn which_caches_keep_their_lines() {
        let kinds = [
            cache(Indexing::Pipt, false),
            cache(Indexing::Vipt, false),
            cache(Indexing::Vivt, true),
            cache(Indexing::Vivt, false),
        ];
        let keeps = |rule: Switch| kinds.iter().map(|c| rule.keeps_lines(c)).collect::<Vec<_>>();
        assert_eq!(keeps(Switch::Keep), [true, true, true, true]);
        assert_eq!(keeps(Switch::Untagged), [true, true, true, false]);
        assert_eq!(keeps(Switch::Everything), [false, false, false, false]);
        assert!(!Switch::Untagged.flushes(&kinds[..3]));
        assert!(Switch::Untagged.flushes(&kinds));
    }
}
