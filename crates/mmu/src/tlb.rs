//! A translation lookaside buffer: one level, any associativity, wired slots,
//! ASID tags, several page sizes.
//!
//! Why not `vmlab_cache::Cache`: a TLB entry covers a page of *its own* size
//! (superpages sit beside base pages), some slots are wired (the MIPS
//! `Wired` register protects the lower slots from random replacement), and
//! entries carry a global bit; none of that belongs in a data cache. The
//! associativity type and the replacement names are shared with the cache
//! model so presets read the same.
//!
//! Lookup is a hash probe per configured page size (a 128-entry fully
//! associative TLB would otherwise scan 128 tags per reference); the set only
//! matters when choosing a victim. In front of the hash sits a small
//! direct-mapped memo of recent lookups that hit: references run in pages
//! (code, stack, heap in turn), so most lookups repeat a recent page. The
//! memo caches only *where* the entry is (the result of `find`), never what a
//! hit does, so a memo hit counts and refreshes LRU state exactly as the hash
//! path would; all of it is dropped (a generation bump) whenever the index
//! changes (any insert or removal), the only thing `find` reads.

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use thiserror::Error;
use vmlab_addr::{Asid, Domain, PageSize, Pfn, PhysAddr, VirtAddr, Vpn};

use crate::arm::DomainAccess;
pub use vmlab_cache::Assoc;

/// How a TLB picks a victim among the slots a new entry may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TlbReplacement {
    /// Uniform over the candidate slots, from a seeded generator (MIPS `Random`).
    Random,
    Lru,
    Fifo,
}

fn default_replacement() -> TlbReplacement {
    TlbReplacement::Random
}
fn default_page_sizes() -> Vec<u64> {
    vec![4096]
}
fn default_seed() -> u64 {
    1
}

/// One TLB level, as a preset describes it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TlbConfig {
    pub entries: u32,
    pub assoc: Assoc,
    #[serde(default = "default_replacement")]
    pub replacement: TlbReplacement,
    /// Lower slots reserved for entries inserted as wired (fully associative only).
    #[serde(default)]
    pub wired: u32,
    /// Entries carry an ASID; without, a context switch must purge non-global entries.
    #[serde(default)]
    pub asid_tags: bool,
    /// Page sizes the TLB can hold, in bytes (powers of two; superpages included).
    #[serde(default = "default_page_sizes")]
    pub page_sizes: Vec<u64>,
    #[serde(default = "default_seed")]
    pub seed: u64,
    #[serde(default)]
    pub source: String,
}

impl TlbConfig {
    /// A fully associative TLB of `entries` 4 KB entries with random replacement.
    pub fn fully_associative(entries: u32, wired: u32) -> Self {
        Self {
            entries,
            assoc: Assoc::Full,
            replacement: TlbReplacement::Random,
            wired,
            asid_tags: true,
            page_sizes: default_page_sizes(),
            seed: default_seed(),
            source: String::new(),
        }
    }
}

#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum TlbError {
    #[error("a TLB needs at least one entry")]
    NoEntries,
    #[error("{entries} entries cannot be split into {ways}-way sets (entries must be a multiple of the ways)")]
    BadWays { entries: u32, ways: u32 },
    #[error("wired slots ({wired}) must be fewer than the entries ({entries})")]
    TooManyWired { wired: u32, entries: u32 },
    #[error("wired slots need a fully associative TLB (got {ways}-way)")]
    WiredNeedsFull { ways: u32 },
    #[error("page size {0} is not a power of two >= 256 bytes")]
    BadPageSize(u64),
    #[error("page size {size} is not one this TLB holds (it holds {held:?})")]
    UnheldPageSize { size: u64, held: Vec<u64> },
}

/// A translation the TLB holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TlbEntry {
    /// Virtual page number at this entry's own page size.
    pub vpn: Vpn,
    pub page_shift: u32,
    /// The address space it belongs to (0 in a global entry).
    pub asid: Asid,
    /// Matches every ASID (kernel mappings).
    pub global: bool,
    /// The protection domain it is tagged with (ARM: the domain of its
    /// first-level descriptor), checked by `Tlb::lookup_checked`.
    pub domain: Domain,
    /// Physical frame number at this entry's page size.
    pub pfn: Pfn,
}

impl TlbEntry {
    /// The entry that maps the `page` holding `va` in space `asid` to the
    /// frame holding `pa` (not global, domain 0).
    pub fn new(asid: Asid, va: VirtAddr, pa: PhysAddr, page: PageSize) -> Self {
        Self {
            vpn: page.vpn(va),
            page_shift: page.shift(),
            asid,
            global: false,
            domain: Domain::default(),
            pfn: Pfn(pa.0 >> page.shift()),
        }
    }

    /// The same translation for every address space (a kernel mapping).
    pub fn global(self) -> Self {
        Self { asid: Asid(0), global: true, ..self }
    }

    /// The same translation tagged with protection domain `domain`.
    pub fn in_domain(self, domain: Domain) -> Self {
        Self { domain, ..self }
    }

    /// The physical address `va` translates to through this entry.
    pub fn translate(&self, va: VirtAddr) -> PhysAddr {
        PhysAddr((self.pfn.0 << self.page_shift) | (va.0 & ((1u64 << self.page_shift) - 1)))
    }
}

/// Counters of one TLB level.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TlbStats {
    pub hits: u64,
    pub misses: u64,
    pub inserts: u64,
    /// Valid entries replaced by an insert.
    pub evictions: u64,
    /// Entries removed by purges.
    pub purged: u64,
}

/// What `Tlb::lookup_checked` found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Checked {
    /// An entry whose domain the running code may use.
    Hit(TlbEntry),
    /// An entry for the address in a domain the running code may not use.
    DomainFault(TlbEntry),
    Miss,
}

/// Which part of the TLB an insert goes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    /// The replaceable slots.
    Normal,
    /// The protected lower slots (kernel / page-table mappings).
    Wired,
}

#[derive(Debug, Clone)]
pub struct Tlb {
    cfg: TlbConfig,
    ways: usize,
    sets: usize,
    wired: usize,
    /// Distinct page shifts, smallest first.
    shifts: Vec<u32>,
    slots: Vec<Option<TlbEntry>>,
    /// LRU: time of last use; FIFO: time of insertion.
    stamps: Vec<u64>,
    clock: u64,
    /// (page shift, asid or GLOBAL, vpn) -> slot.
    index: FxHashMap<(u32, u32, u64), usize>,
    /// The smallest page shift: `va >> min_shift` decides every probe `find`
    /// makes (larger pages' numbers are its prefixes).
    min_shift: u32,
    /// `find`'s answers for (ASID key, `va >> min_shift`), direct-mapped;
    /// an entry is valid while its generation is `memo_gen` (bumped on any
    /// change to `index`).
    memo: Box<[MemoEntry; MEMO_ENTRIES]>,
    memo_gen: u64,
    memo_on: bool,
    rng: Pcg64Mcg,
    stats: TlbStats,
}

/// Entries of the lookup memo (a power of two).
const MEMO_ENTRIES: usize = 64;

#[derive(Clone, Copy, Debug)]
struct MemoEntry {
    /// 0: never filled (generations start at 1).
    generation: u64,
    key: u32,
    page: u64,
    slot: usize,
}

const EMPTY_MEMO: MemoEntry = MemoEntry { generation: 0, key: 0, page: 0, slot: 0 };

/// The ASID key of global entries in the index; never a real ASID in
/// practice (ASIDs are trace pids or small MIPS ASIDs).
const GLOBAL: u32 = u32::MAX;

impl Tlb {
    pub fn new(cfg: TlbConfig) -> Result<Self, TlbError> {
        if cfg.entries == 0 {
            return Err(TlbError::NoEntries);
        }
        let ways = match cfg.assoc {
            Assoc::Full => cfg.entries,
            Assoc::Ways(w) => {
                if cfg.entries.checked_rem(w) != Some(0) {
                    return Err(TlbError::BadWays { entries: cfg.entries, ways: w });
                }
                w
            }
        };
        if cfg.wired > 0 && ways != cfg.entries {
            return Err(TlbError::WiredNeedsFull { ways });
        }
        if cfg.wired >= cfg.entries {
            return Err(TlbError::TooManyWired { wired: cfg.wired, entries: cfg.entries });
        }
        let mut shifts = Vec::new();
        for &s in &cfg.page_sizes {
            if s < 256 || !s.is_power_of_two() {
                return Err(TlbError::BadPageSize(s));
            }
            shifts.push(s.trailing_zeros());
        }
        if shifts.is_empty() {
            shifts.push(12);
        }
        shifts.sort_unstable();
        shifts.dedup();
        let n = cfg.entries as usize;
        let min_shift = shifts[0];
        Ok(Self {
            min_shift,
            memo: Box::new([EMPTY_MEMO; MEMO_ENTRIES]),
            memo_gen: 1,
            memo_on: true,
            ways: ways as usize,
            sets: n / ways as usize,
            wired: cfg.wired as usize,
            shifts,
            slots: vec![None; n],
            stamps: vec![0; n],
            clock: 0,
            index: FxHashMap::default(),
            rng: Pcg64Mcg::seed_from_u64(cfg.seed),
            stats: TlbStats::default(),
            cfg,
        })
    }

    pub fn config(&self) -> &TlbConfig {
        &self.cfg
    }

    pub fn stats(&self) -> &TlbStats {
        &self.stats
    }

    pub fn entries(&self) -> impl Iterator<Item = &TlbEntry> {
        self.slots.iter().flatten()
    }

    #[inline(always)]
    fn asid_key(&self, asid: Asid) -> u32 {
        if self.cfg.asid_tags {
            asid.0
        } else {
            0
        }
    }

    /// Looks `va` up for `asid` without counting or touching replacement state.
    pub fn probe(&self, asid: Asid, va: VirtAddr) -> Option<TlbEntry> {
        self.find(asid, va).and_then(|s| self.slots[s])
    }

    fn find(&self, asid: Asid, va: VirtAddr) -> Option<usize> {
        let key = self.asid_key(asid);
        for &shift in &self.shifts {
            let vpn = va.0 >> shift;
            if let Some(&s) = self.index.get(&(shift, key, vpn)) {
                return Some(s);
            }
            if let Some(&s) = self.index.get(&(shift, GLOBAL, vpn)) {
                return Some(s);
            }
        }
        None
    }

    /// Turns the one-entry lookup memo on (the default) or off. Results are
    /// the same either way; off is the plain hash path that tests compare
    /// the memo against.
    pub fn set_memo(&mut self, on: bool) {
        self.memo_on = on;
        self.forget();
    }

    /// Drops every memo entry: `index` is about to change.
    #[inline]
    fn forget(&mut self) {
        self.memo_gen += 1;
    }

    /// `find` through the memo: a valid entry holds `find`'s answer for the
    /// same ASID key and smallest-size page, and `find` reads nothing but the
    /// index, which has not changed since (changes invalidate every entry).
    #[inline(always)]
    fn find_memo(&mut self, asid: Asid, va: VirtAddr) -> Option<usize> {
        let key = self.asid_key(asid);
        let page = va.0 >> self.min_shift;
        let i = ((page ^ u64::from(key).wrapping_mul(0x9e37_79b9)) as usize) & (MEMO_ENTRIES - 1);
        let e = &self.memo[i];
        if e.generation == self.memo_gen && e.key == key && e.page == page {
            return Some(e.slot);
        }
        self.find_and_remember(i, key, page, asid, va)
    }

    #[inline(never)]
    fn find_and_remember(&mut self, i: usize, key: u32, page: u64, asid: Asid, va: VirtAddr) -> Option<usize> {
        let found = self.find(asid, va);
        if let (Some(slot), true) = (found, self.memo_on) {
            self.memo[i] = MemoEntry { generation: self.memo_gen, key, page, slot };
        }
        found
    }

    /// A counted lookup: a hit refreshes LRU state.
    #[inline(always)]
    pub fn lookup(&mut self, asid: Asid, va: VirtAddr) -> Option<TlbEntry> {
        match self.find_memo(asid, va) {
            Some(s) => {
                self.stats.hits += 1;
                if self.cfg.replacement == TlbReplacement::Lru {
                    self.clock += 1;
                    self.stamps[s] = self.clock;
                }
                self.slots[s]
            }
            None => {
                self.stats.misses += 1;
                None
            }
        }
    }

    /// A counted lookup that also checks the entry's domain against the
    /// domain access-control register `dacr`, as an ARM MMU does: a hit in
    /// a denied domain is a `Checked::DomainFault` (counted as a hit: the
    /// entry was found; the fault is the kernel's to handle).
    pub fn lookup_checked(&mut self, asid: Asid, va: VirtAddr, dacr: DomainAccess) -> Checked {
        match self.lookup(asid, va) {
            Some(e) if dacr.allows(e.domain) => Checked::Hit(e),
            Some(e) => Checked::DomainFault(e),
            None => Checked::Miss,
        }
    }

    /// Counts `n` hits that a caller proved without looking up: repeats of
    /// the page of the latest hit, with no insert or purge since. They change
    /// no replacement state under any policy (that entry is already the most
    /// recently used).
    pub fn count_repeat_hits(&mut self, n: u64) {
        self.stats.hits += n;
    }

    /// Inserts `entry` into the `slot` section. An existing entry for the
    /// same page is replaced in place. Returns the entry evicted, if any.
    pub fn insert(&mut self, entry: TlbEntry, slot: Slot) -> Result<Option<TlbEntry>, TlbError> {
        let shift = entry.page_shift;
        if !self.shifts.contains(&shift) {
            return Err(TlbError::UnheldPageSize { size: 1u64 << shift.min(63), held: self.page_sizes() });
        }
        let entry = if entry.global { TlbEntry { asid: Asid(0), ..entry } } else { entry };
        let key = self.key_of(&entry);
        self.stats.inserts += 1;
        self.clock += 1;
        self.forget();
        if let Some(&s) = self.index.get(&key) {
            self.slots[s] = Some(entry);
            self.stamps[s] = self.clock;
            return Ok(None);
        }
        let victim = self.victim(entry.vpn.0, slot);
        let evicted = self.slots[victim].take();
        if let Some(old) = evicted {
            self.stats.evictions += 1;
            self.index.remove(&self.key_of(&old));
        }
        self.slots[victim] = Some(entry);
        self.stamps[victim] = self.clock;
        self.index.insert(key, victim);
        Ok(evicted)
    }

    fn key_of(&self, e: &TlbEntry) -> (u32, u32, u64) {
        (e.page_shift, if e.global { GLOBAL } else { self.asid_key(e.asid) }, e.vpn.0)
    }

    /// The candidate slots are the set the page indexes (set-associative) or
    /// the wired / normal section (fully associative). An empty candidate is
    /// used first (lowest index); otherwise the policy picks.
    fn victim(&mut self, vpn: u64, slot: Slot) -> usize {
        let (lo, hi) = if self.sets > 1 {
            let set = (vpn % self.sets as u64) as usize;
            (set * self.ways, (set + 1) * self.ways)
        } else {
            match slot {
                Slot::Wired if self.wired > 0 => (0, self.wired),
                _ => (self.wired, self.slots.len()),
            }
        };
        if let Some(free) = (lo..hi).find(|&s| self.slots[s].is_none()) {
            return free;
        }
        match self.cfg.replacement {
            TlbReplacement::Random => self.rng.gen_range(lo..hi),
            TlbReplacement::Lru | TlbReplacement::Fifo => (lo..hi).min_by_key(|&s| self.stamps[s]).unwrap_or(lo),
        }
    }

    /// Removes the entry mapping `va` for `asid` (or a global one); returns
    /// whether one was there.
    pub fn purge_page(&mut self, asid: Asid, va: VirtAddr) -> bool {
        match self.find(asid, va) {
            Some(s) => {
                self.remove_slot(s);
                true
            }
            None => false,
        }
    }

    /// Removes every non-global entry of `asid` (with ASID tags) or every
    /// non-global entry (without). Returns how many.
    pub fn purge_asid(&mut self, asid: Asid) -> u64 {
        let tagged = self.cfg.asid_tags;
        self.purge_where(|e| !e.global && (!tagged || e.asid == asid))
    }

    /// Removes every entry, wired and global ones too. Returns how many.
    pub fn purge_all(&mut self) -> u64 {
        self.purge_where(|_| true)
    }

    fn purge_where(&mut self, pred: impl Fn(&TlbEntry) -> bool) -> u64 {
        let mut n = 0;
        for s in 0..self.slots.len() {
            if self.slots[s].as_ref().is_some_and(&pred) {
                self.remove_slot(s);
                n += 1;
            }
        }
        n
    }

    fn remove_slot(&mut self, s: usize) {
        self.forget();
        if let Some(old) = self.slots[s].take() {
            self.index.remove(&self.key_of(&old));
            self.stats.purged += 1;
        }
    }

    pub fn page_sizes(&self) -> Vec<u64> {
        self.shifts.iter().map(|s| 1u64 << s).collect()
    }

    /// Bytes of address space the TLB maps when full of its largest pages
    /// (the "TLB coverage" of the COMP9242 slides).
    pub fn max_coverage(&self) -> u64 {
        let largest = self.shifts.last().copied().unwrap_or(12);
        u64::from(self.cfg.entries) << largest
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn e(asid: u32, va: u64, pa: u64, page: u64) -> TlbEntry {
        TlbEntry::new(Asid(asid), VirtAddr(va), PhysAddr(pa), PageSize::new(page).unwrap())
    }

    fn cfg(entries: u32, assoc: Assoc, repl: TlbReplacement) -> TlbConfig {
        TlbConfig { assoc, replacement: repl, ..TlbConfig::fully_associative(entries, 0) }
    }

    #[test]
    fn fully_associative_lru_evicts_least_recent() {
        let mut t = Tlb::new(cfg(2, Assoc::Full, TlbReplacement::Lru)).unwrap();
        t.insert(e(1, 0x1000, 0x9000, 4096), Slot::Normal).unwrap();
        t.insert(e(1, 0x2000, 0xa000, 4096), Slot::Normal).unwrap();
        assert!(t.lookup(Asid(1), VirtAddr(0x1234)).is_some()); // page 1 now most recent
        let ev = t.insert(e(1, 0x3000, 0xb000, 4096), Slot::Normal).unwrap();
        assert_eq!(ev.map(|e| e.vpn), Some(Vpn(2)));
        assert_eq!(t.lookup(Asid(1), VirtAddr(0x1fff)).map(|e| e.translate(VirtAddr(0x1fff))), Some(PhysAddr(0x9fff)));
        assert!(t.lookup(Asid(1), VirtAddr(0x2000)).is_none());
        assert_eq!(*t.stats(), TlbStats { hits: 2, misses: 1, inserts: 3, evictions: 1, purged: 0 });
    }

    #[test]
    fn domain_checked_lookup_faults_outside_the_register() {
        use crate::arm::Access;
        let mut t = Tlb::new(TlbConfig { asid_tags: false, ..TlbConfig::fully_associative(4, 0) }).unwrap();
        t.insert(e(1, 0x1000, 0x8000, 4096).in_domain(Domain(5)), Slot::Normal).unwrap();
        let five = DomainAccess::none().with(Domain(5), Access::Client);
        let other = DomainAccess::none().with(Domain(6), Access::Client);
        assert!(matches!(t.lookup_checked(Asid(2), VirtAddr(0x1004), five), Checked::Hit(h) if h.domain == Domain(5)));
        assert!(matches!(t.lookup_checked(Asid(2), VirtAddr(0x1004), other), Checked::DomainFault(_)));
        assert_eq!(t.lookup_checked(Asid(2), VirtAddr(0x2000), five), Checked::Miss);
        assert_eq!((t.stats().hits, t.stats().misses), (2, 1));
    }

    #[test]
    fn fifo_ignores_hits() {
        let mut t = Tlb::new(cfg(2, Assoc::Full, TlbReplacement::Fifo)).unwrap();
        t.insert(e(1, 0x1000, 0, 4096), Slot::Normal).unwrap();
        t.insert(e(1, 0x2000, 0, 4096), Slot::Normal).unwrap();
        t.lookup(Asid(1), VirtAddr(0x1000));
        let ev = t.insert(e(1, 0x3000, 0, 4096), Slot::Normal).unwrap();
        assert_eq!(ev.map(|e| e.vpn), Some(Vpn(1)));
    }

    #[test]
    fn wired_slots_survive_normal_traffic() {
        let mut t = Tlb::new(TlbConfig::fully_associative(8, 2)).unwrap();
        t.insert(e(0, 0xc000_0000, 0x5000, 4096).global(), Slot::Wired).unwrap();
        for p in 0..100u64 {
            t.insert(e(1, p << 12, p << 12, 4096), Slot::Normal).unwrap();
        }
        // The global wired entry matches any ASID.
        assert!(t.lookup(Asid(7), VirtAddr(0xc000_0010)).is_some());
        assert_eq!(t.entries().count(), 7, "6 normal slots full, 1 of 2 wired used");
    }

    #[test]
    fn asid_tags_separate_homonyms_and_untagged_do_not() {
        let mut tagged = Tlb::new(TlbConfig::fully_associative(4, 0)).unwrap();
        tagged.insert(e(1, 0x1000, 0x8000, 4096), Slot::Normal).unwrap();
        assert!(tagged.lookup(Asid(2), VirtAddr(0x1000)).is_none());
        assert_eq!(tagged.purge_asid(Asid(1)), 1);
        let mut untagged = Tlb::new(TlbConfig { asid_tags: false, ..TlbConfig::fully_associative(4, 0) }).unwrap();
        untagged.insert(e(1, 0x1000, 0x8000, 4096), Slot::Normal).unwrap();
        assert!(untagged.lookup(Asid(2), VirtAddr(0x1000)).is_some(), "untagged: the OS must purge on a switch");
        assert_eq!(untagged.purge_asid(Asid(2)), 1);
    }

    #[test]
    fn superpage_beside_base_pages() {
        let mut t =
            Tlb::new(TlbConfig { page_sizes: vec![4096, 4 << 20], ..TlbConfig::fully_associative(4, 0) }).unwrap();
        t.insert(e(1, 0x40_0000, 0x80_0000, 4 << 20), Slot::Normal).unwrap();
        let hit = t.lookup(Asid(1), VirtAddr(0x7f_f123)).unwrap();
        assert_eq!(hit.translate(VirtAddr(0x7f_f123)), PhysAddr(0xbf_f123));
        assert_eq!(t.max_coverage(), 16 << 20);
        assert!(matches!(t.insert(e(1, 0, 0, 8192), Slot::Normal), Err(TlbError::UnheldPageSize { .. })));
    }

    #[test]
    fn set_associative_victims_stay_in_their_set() {
        // 4 entries, 2-way: 2 sets; pages 0,2,4 share set 0.
        let mut t = Tlb::new(cfg(4, Assoc::Ways(2), TlbReplacement::Lru)).unwrap();
        for p in [0u64, 1, 2, 4] {
            t.insert(e(1, p << 12, 0, 4096), Slot::Normal).unwrap();
        }
        assert!(t.lookup(Asid(1), VirtAddr(0)).is_none(), "page 0 was the LRU of set 0");
        assert!(t.lookup(Asid(1), VirtAddr(1 << 12)).is_some(), "set 1 untouched");
    }

    #[test]
    fn bad_configs_are_errors() {
        assert_eq!(Tlb::new(cfg(0, Assoc::Full, TlbReplacement::Lru)).err(), Some(TlbError::NoEntries));
        assert!(matches!(Tlb::new(cfg(6, Assoc::Ways(4), TlbReplacement::Lru)), Err(TlbError::BadWays { .. })));
        assert!(matches!(
            Tlb::new(TlbConfig { assoc: Assoc::Ways(2), ..TlbConfig::fully_associative(8, 2) }),
            Err(TlbError::WiredNeedsFull { .. })
        ));
        assert!(matches!(Tlb::new(TlbConfig::fully_associative(4, 4)), Err(TlbError::TooManyWired { .. })));
    }
}
