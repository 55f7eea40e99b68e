//! The consistency oracle: the latest version of every physical word, the
//! version every cached copy holds, and what memory holds.
//!
//! The cache model stores tags, not data, so the oracle shadows data as
//! *versions*: every write makes a new, globally increasing version of the
//! words it covers. A cached copy is named the way the cache names it (set,
//! tag key, ASID when ASIDs are tags), so a virtually indexed cache can hold
//! two copies of one physical line and the oracle sees both. It is updated
//! from the `Outcome` of every access (fills, write-backs) and from every
//! flush or purge, so a copy is known exactly whenever the cache hits on it.
//! Clean evictions are silent in the cache model; the stale shadow entry they
//! leave is overwritten by the next fill of that slot name, and is never read
//! before (a hit proves the line was filled since).
//!
//! It flags a read that returns a version other than the latest of the
//! physical word the reader meant (a *stale read*), and a write-back that
//! puts data into memory over newer data or into the wrong page (the *cache
//! bomb*). Cost when on: two hash-map look-ups per access plus one per word
//! of the line on a fill or write-back (see docs/os.md); off, nothing.

use rustc_hash::FxHashMap;
use serde::Serialize;
use vmlab_addr::{Asid, PhysAddr, VirtAddr};
use vmlab_cache::{CacheConfig, Evicted, Geometry, IndexFn, LineRef, Outcome};

/// Versions are tracked per 4-byte word, the PA-RISC and MIPS word.
pub const WORD: u64 = 4;

/// Whether a run checks every access against the consistency oracle (which
/// needs every level below the first to be physically indexed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Consistency {
    Checked,
    Unchecked,
}

impl Consistency {
    pub fn when(checked: bool) -> Self {
        if checked {
            Consistency::Checked
        } else {
            Consistency::Unchecked
        }
    }
}

/// How a cached copy is named by the cache: (set, tag key, ASID tag).
pub type CopyId = (u64, u64, u32);

/// Which cache copy a line address lands in, computed from the cache's
/// configuration exactly as `vmlab_cache::Cache` does (index function,
/// virtual or physical index and tag, ASID tags).
#[derive(Clone, Debug)]
pub struct CopyNamer {
    cfg: CacheConfig,
    geo: Geometry,
}

impl CopyNamer {
    pub fn new(cfg: &CacheConfig) -> Result<Self, String> {
        let geo = Geometry::new(cfg).map_err(|e| e.to_string())?;
        Ok(Self { cfg: cfg.clone(), geo })
    }

    pub fn line_bytes(&self) -> u64 {
        self.geo.line_bytes()
    }

    pub fn id(&self, r: &LineRef) -> CopyId {
        let shift = self.geo.line_shift;
        let virt_index = self.cfg.indexing.index_is_virtual();
        let addr = if virt_index { r.vaddr.0 } else { r.paddr.0 };
        let line = addr >> shift;
        let hashed = match self.cfg.index {
            IndexFn::BitSelect => line,
            IndexFn::Xor => line ^ (line >> self.geo.sets.trailing_zeros()),
            IndexFn::SpaceHash => {
                let space = u64::from(r.asid.0) & ((1u64 << self.cfg.space_hash_bits) - 1);
                (addr ^ (space << self.cfg.space_hash_at)) >> shift
            }
        };
        let set = match self.geo.set_mask {
            Some(m) => hashed & m,
            None => hashed % self.geo.sets,
        };
        let key = if self.cfg.indexing.tag_is_virtual() { r.vaddr.0 } else { r.paddr.0 } >> shift;
        let asid = if self.cfg.asid_tags { r.asid.0 } else { 0 };
        (set, key, asid)
    }
}

/// Who made an access, for reports: the address space (or cache tag space)
/// and virtual address, and the scenario step or routine.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Access {
    pub asid: Asid,
    pub vaddr: VirtAddr,
    pub paddr: PhysAddr,
    pub write: bool,
    /// A scenario line, an op index or a routine name.
    pub origin: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Violation {
    /// A read returned a version other than the latest one.
    StaleRead {
        access: Access,
        /// The alias that wrote the latest version, if a CPU write did.
        latest_by: Option<(Asid, VirtAddr)>,
        policy: String,
    },
    /// A write-back overwrote newer data in memory, or wrote one page's
    /// data into another page's frame (an orphaned line after a remap).
    CacheBomb {
        /// The line written back: (tag asid, virtual address, physical address).
        line: (Asid, VirtAddr, PhysAddr),
        /// The access, flush or purge that caused the write-back.
        cause: Access,
        /// The alias that wrote the newer data memory held, if known.
        newer_by: Option<(Asid, VirtAddr)>,
        policy: String,
    },
}

#[derive(Clone, Debug)]
struct Copy {
    /// The physical line whose data this copy holds (a VIVT line keeps the
    /// frame it was filled from even after the page is remapped).
    data_line: u64,
    words: Vec<u64>,
}

#[derive(Debug)]
pub struct Oracle {
    namer: CopyNamer,
    words_per_line: usize,
    policy: String,
    seq: u64,
    /// Latest version per physical word (absent: 0, the initial contents).
    latest: FxHashMap<u64, u64>,
    /// Who wrote each version: version -> (asid, vaddr).
    writers: FxHashMap<u64, (Asid, VirtAddr)>,
    /// What memory holds per physical line (absent: the page's own version 0).
    memory: FxHashMap<u64, Copy>,
    copies: FxHashMap<CopyId, Copy>,
    violations: Vec<Violation>,
    checks: u64,
}

impl Oracle {
    pub fn new(top: &CacheConfig, policy: &str) -> Result<Self, String> {
        let namer = CopyNamer::new(top)?;
        let words_per_line = (namer.line_bytes() / WORD) as usize;
        Ok(Self {
            namer,
            words_per_line,
            policy: policy.to_string(),
            seq: 0,
            latest: FxHashMap::default(),
            writers: FxHashMap::default(),
            memory: FxHashMap::default(),
            copies: FxHashMap::default(),
            violations: Vec::new(),
            checks: 0,
        })
    }

    pub fn violations(&self) -> &[Violation] {
        &self.violations
    }

    /// Accesses and line movements checked so far.
    pub fn checks(&self) -> u64 {
        self.checks
    }

    fn line_of(&self, addr: u64) -> u64 {
        addr & !(self.namer.line_bytes() - 1)
    }

    fn mem(&self, pline: u64) -> Copy {
        self.memory.get(&pline).cloned().unwrap_or(Copy { data_line: pline, words: vec![0; self.words_per_line] })
    }

    fn word_range(&self, addr: u64, size: u64) -> std::ops::Range<usize> {
        let off = addr & (self.namer.line_bytes() - 1);
        let first = (off / WORD) as usize;
        let last = ((off + size.max(1) - 1) / WORD) as usize;
        first..(last + 1).min(self.words_per_line)
    }

    fn latest_of(&self, pline: u64, w: usize) -> u64 {
        self.latest.get(&(pline + w as u64 * WORD)).copied().unwrap_or(0)
    }

    fn check_read(&mut self, held: &Copy, pline: u64, words: std::ops::Range<usize>, access: &Access) {
        self.checks += 1;
        let mut stale_by = None;
        let mut stale = held.data_line != pline;
        for w in words {
            let want = self.latest_of(pline, w);
            if stale || held.words.get(w).copied() != Some(want) {
                stale = true;
                stale_by = self.writers.get(&want).copied();
                break;
            }
        }
        if stale {
            self.violations.push(Violation::StaleRead {
                access: access.clone(),
                latest_by: stale_by,
                policy: self.policy.clone(),
            });
        }
    }

    fn apply_write(&mut self, copy: &mut Copy, pline: u64, words: std::ops::Range<usize>, access: &Access) {
        for w in words {
            self.seq += 1;
            self.latest.insert(pline + w as u64 * WORD, self.seq);
            self.writers.insert(self.seq, (access.asid, access.vaddr));
            if let Some(slot) = copy.words.get_mut(w) {
                *slot = self.seq;
            }
        }
    }

    /// A dirty line leaves the cache for memory.
    pub fn write_back(&mut self, e: &Evicted, cause: &Access) {
        self.checks += 1;
        let id = self.namer.id(&e.line_ref());
        let pline = self.line_of(e.paddr.0);
        let Some(copy) = self.copies.remove(&id) else { return };
        let mem = self.mem(pline);
        let mut bomb = copy.data_line != pline;
        let mut newer_by = None;
        if !bomb {
            for (w, (&c, &m)) in copy.words.iter().zip(&mem.words).enumerate() {
                if c < m && mem.data_line == pline {
                    bomb = true;
                    newer_by = self.writers.get(&m).copied();
                    let _ = w;
                    break;
                }
            }
        }
        if bomb {
            self.violations.push(Violation::CacheBomb {
                line: (e.asid, e.vaddr, e.paddr),
                cause: cause.clone(),
                newer_by,
                policy: self.policy.clone(),
            });
        }
        self.memory.insert(pline, copy);
    }

    /// A reference went through a TLB entry that maps its page to another
    /// frame than the page table does (an untagged TLB not flushed on a
    /// switch): whatever it reads is another page's data, whatever it
    /// writes lands in another page, so it counts as a stale read.
    pub fn stale_translation(&mut self, access: &Access) {
        self.checks += 1;
        self.violations.push(Violation::StaleRead {
            access: access.clone(),
            latest_by: None,
            policy: self.policy.clone(),
        });
    }

    /// A line left the cache without a write-back (a clean flush or a purge).
    pub fn dropped(&mut self, r: &LineRef) {
        let id = self.namer.id(r);
        self.copies.remove(&id);
    }

    /// One cached access of `size` bytes within one line, after the cache
    /// did it with outcome `out` (any write-back it caused must already
    /// have gone to `write_back`).
    pub fn cached(&mut self, r: &LineRef, size: u64, out: &Outcome, access: &Access) {
        let (hit, fetch) = (out.hit, out.fetch);
        let allocated = out.resident_dirty.is_some();
        let id = self.namer.id(r);
        let pline = self.line_of(r.paddr.0);
        let words = self.word_range(r.paddr.0, size);
        let mut copy = if hit {
            match self.copies.get(&id) {
                Some(c) => c.clone(),
                // The shadow lost a line the cache still has: only possible
                // for lines filled while the oracle was off.
                None => self.mem(pline),
            }
        } else if fetch {
            self.mem(pline)
        } else {
            // A whole-line write miss that allocates without fetching.
            Copy { data_line: pline, words: vec![0; self.words_per_line] }
        };
        if access.write {
            self.apply_write(&mut copy, pline, words.clone(), access);
            if out.write_through {
                let mut m = self.mem(pline);
                for w in words {
                    m.words[w] = self.latest_of(pline, w);
                }
                self.memory.insert(pline, m);
            }
        } else {
            self.check_read(&copy, pline, words, access);
        }
        if hit || allocated {
            self.copies.insert(id, copy);
        }
    }

    /// An access that bypasses the cache (an uncached page).
    pub fn uncached(&mut self, paddr: PhysAddr, size: u64, access: &Access) {
        let pline = self.line_of(paddr.0);
        let words = self.word_range(paddr.0, size);
        let mut m = self.mem(pline);
        if access.write {
            self.apply_write(&mut m, pline, words, access);
            self.memory.insert(pline, m);
        } else {
            self.check_read(&m, pline, words, access);
        }
    }
}
