//! PA-RISC hashed inverted page table with collision chains, as HP-UX used it
//! on the HP 9000/834 (seed 000, Inouye et al. 1992, section 4.1 and its
//! footnote 3: "The PA-RISC uses a hashed inverted page table and all PTE's
//! falling into a hash bin are organized as a linked list which must be
//! traversed to find the preceding entry in order to delete a PTE").
//!
//! Layout (physical, never translated):
//! * a **hash table** of `entries` 16-byte entries, a power of two, in
//!   physically contiguous frames allocated when the table is built. It is
//!   sized from physical memory, not from any address space: by default two
//!   entries per physical frame, rounded up to a power of two (an inverted
//!   table has one live entry per mapped frame, the factor two keeps chains
//!   short). Each entry is the *head* of its bucket's chain.
//! * an **overflow pool** of 16-byte entries in frames allocated on demand;
//!   a collision appends an overflow entry to the end of the bucket's chain.
//!
//! An entry is [`ENTRY_BYTES`] = 16 bytes: word 0 the space id, word 1 the
//! virtual page number (together the tag), word 2 the frame number and
//! protection, word 3 the physical address of the next entry in the chain
//! (0 ends it). A walk reads whole entries, so each [`PteRef`] is 16 bytes.
//!
//! The hash function is **ours**: the seed does not give HP-UX's. It is
//! `(vpn ^ (vpn >> log2(entries)) ^ (space * SPACE_HASH_MULT)) & (entries - 1)`:
//! the vpn's low bits spread a region's consecutive pages over consecutive
//! buckets; folding in the bits above them keeps regions that start at
//! aligned addresses (libraries, stacks, mmaps) from all landing in bucket 0;
//! multiplying the space id by an odd constant keeps processes with the same
//! layout (every text segment at the same address) out of each other's
//! buckets. For a vpn below `entries` in space 0 the bucket is just the vpn,
//! which makes hand-worked examples easy.
//!
//! Operations follow the seed's description of deletion: the chain is
//! singly linked, so removal walks from the head to find the predecessor.
//! Removing a head whose chain continues copies the next entry into the head
//! slot (the head lives in the hash table and cannot be unlinked) and frees
//! that overflow entry. [`HashedInverted::insert_refs`] and
//! [`HashedInverted::remove_refs`] report every entry such an update reads,
//! for the OS model's PTE insert/delete costs.

use super::{PageTable, PteAddr, PteRef, TableError, TableMemory, Tier};
use crate::frames::FramePool;
use serde::Serialize;
use std::collections::BTreeSet;
use vmlab_addr::{Asid, Pfn, PhysAddr, VirtAddr, Vpn};

/// Bytes per hash-table entry: tag (space, vpn), frame/protection, next
/// pointer, one 4-byte word each (PA-RISC 1.x PDIR entries are 16 bytes;
/// seed 000 names the organisation, the 4-word format is ours).
pub const ENTRY_BYTES: u64 = 16;

/// Default hash-table entries per physical frame, before rounding up to a
/// power of two. Ours: an inverted table needs one live entry per mapped
/// frame; twice that keeps the load factor at most one half.
pub const DEFAULT_ENTRIES_PER_FRAME: u64 = 2;

/// Odd multiplier spreading space ids over buckets (2^32 / golden ratio).
pub const SPACE_HASH_MULT: u64 = 0x9E37_79B9;

/// Virtual addresses within a space are 32-bit offsets on PA-RISC 1.x (the
/// space id is separate), so a walk of a larger address is out of range.
pub const VA_BITS: u32 = 32;

/// How the hashed table is sized.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HashedParams {
    /// Physical frames of the machine; the table is sized from this.
    pub phys_frames: u64,
    /// Entries per physical frame before rounding up to a power of two.
    pub entries_per_frame: u64,
    /// An explicit number of hash-table entries (a power of two); overrides
    /// the two fields above.
    pub entries: Option<u64>,
}

impl Default for HashedParams {
    fn default() -> Self {
        Self { phys_frames: 0, entries_per_frame: DEFAULT_ENTRIES_PER_FRAME, entries: None }
    }
}

impl HashedParams {
    /// The number of hash-table entries these parameters give.
    pub fn entry_count(&self) -> Result<u64, TableError> {
        let n = match self.entries {
            Some(n) => {
                if n == 0 || !n.is_power_of_two() {
                    return Err(TableError::Config(format!("parisc: entries must be a power of two, got {n}")));
                }
                n
            }
            None => {
                let want = self.phys_frames.checked_mul(self.entries_per_frame).unwrap_or(0);
                if want == 0 {
                    return Err(TableError::Config(
                        "parisc: phys_frames and entries_per_frame must both be positive (or give entries)".into(),
                    ));
                }
                want.checked_next_power_of_two()
                    .ok_or_else(|| TableError::Config(format!("parisc: {want} entries is too large")))?
            }
        };
        Ok(n)
    }
}

/// Chain statistics of the hash table.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ChainStats {
    /// Hash-table entries (buckets).
    pub buckets: u64,
    /// Buckets holding at least one mapping.
    pub occupied: u64,
    /// Mappings held (head + overflow entries in use).
    pub mappings: u64,
    /// Longest chain, in entries.
    pub max_chain: u64,
    /// Mean chain length over occupied buckets (mappings / occupied).
    pub mean_chain: f64,
    /// Mean entries a lookup of a mapped page reads (its position in its
    /// chain, 1 for a head), over all mappings.
    pub mean_probes: f64,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Entry {
    /// (space, vpn), or None when the slot is empty.
    tag: Option<(u32, u64)>,
    pfn: u64,
    /// Index into the overflow pool of the next entry in the chain.
    next: Option<u32>,
}

/// Where an entry lives: a bucket head or an overflow slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Slot {
    Head(u64),
    Overflow(u32),
}

/// The PA-RISC hashed inverted page table.
#[derive(Debug, Clone)]
pub struct HashedInverted {
    page_bytes: u64,
    /// First frame of the contiguous hash table.
    table_pfn: u64,
    table_frames: u64,
    mask: u64,
    log2_entries: u32,
    heads: Vec<Entry>,
    overflow: Vec<Entry>,
    /// Frame of each overflow page, None once returned to the pool.
    overflow_frames: Vec<Option<u64>>,
    /// Entries in use per overflow page.
    overflow_used: Vec<u32>,
    /// Free overflow slots on allocated pages, lowest address first.
    overflow_free: BTreeSet<u32>,
    per_page: u32,
    mappings: u64,
}

impl HashedInverted {
    /// Builds the table, allocating the hash table's contiguous frames from
    /// `frames` (whose page size is the table's page size).
    pub fn new(params: &HashedParams, frames: &mut FramePool) -> Result<Self, TableError> {
        let entries = params.entry_count()?;
        let page_bytes = frames.page_bytes();
        if page_bytes < ENTRY_BYTES || !page_bytes.is_power_of_two() {
            return Err(TableError::Config(format!(
                "parisc: page size {page_bytes} must be a power of two of at least {ENTRY_BYTES} bytes"
            )));
        }
        let len = usize::try_from(entries)
            .map_err(|_| TableError::Config(format!("parisc: {entries} entries is too large")))?;
        let table_frames = (entries * ENTRY_BYTES).div_ceil(page_bytes);
        let table_pfn = frames.alloc_contiguous(table_frames)?.0;
        let per_page = u32::try_from(page_bytes / ENTRY_BYTES)
            .map_err(|_| TableError::Config(format!("parisc: page size {page_bytes} is too large")))?;
        Ok(Self {
            page_bytes,
            table_pfn,
            table_frames,
            mask: entries - 1,
            log2_entries: entries.trailing_zeros(),
            heads: vec![Entry::default(); len],
            overflow: Vec::new(),
            overflow_frames: Vec::new(),
            overflow_used: Vec::new(),
            overflow_free: BTreeSet::new(),
            per_page,
            mappings: 0,
        })
    }

    /// Number of hash-table entries (buckets).
    pub fn entries(&self) -> u64 {
        self.mask + 1
    }

    /// Physical address of the hash table's first entry.
    pub fn table_base(&self) -> PhysAddr {
        PhysAddr(self.table_pfn * self.page_bytes)
    }

    /// The bucket (hash-table index) of (`space`, `vpn`); see the module doc.
    pub fn bucket(&self, space: Asid, vpn: Vpn) -> u64 {
        let (space, vpn) = (space.0, vpn.0);
        let fold = if self.log2_entries >= 64 { 0 } else { vpn >> self.log2_entries };
        (vpn ^ fold ^ u64::from(space).wrapping_mul(SPACE_HASH_MULT)) & self.mask
    }

    /// Physical address of the hash-table entry of `bucket`.
    pub fn head_addr(&self, bucket: u64) -> PhysAddr {
        PhysAddr(self.table_base().0 + bucket * ENTRY_BYTES)
    }

    fn slot_addr(&self, slot: Slot) -> u64 {
        match slot {
            Slot::Head(b) => self.head_addr(b).0,
            Slot::Overflow(i) => {
                let page = (i / self.per_page) as usize;
                let pfn = self.overflow_frames.get(page).copied().flatten().unwrap_or(0);
                pfn * self.page_bytes + u64::from(i % self.per_page) * ENTRY_BYTES
            }
        }
    }

    fn entry(&self, slot: Slot) -> Entry {
        match slot {
            Slot::Head(b) => self.heads[b as usize],
            Slot::Overflow(i) => self.overflow[i as usize],
        }
    }

    fn entry_mut(&mut self, slot: Slot) -> &mut Entry {
        match slot {
            Slot::Head(b) => &mut self.heads[b as usize],
            Slot::Overflow(i) => &mut self.overflow[i as usize],
        }
    }

    fn pte_ref(&self, slot: Slot) -> PteRef {
        PteRef { at: PteAddr::Physical(PhysAddr(self.slot_addr(slot))), tier: Tier::User, bytes: ENTRY_BYTES as u32 }
    }

    /// Visits the chain of (`space`, `vpn`)'s bucket from the head, calling
    /// `visit` on every entry read, until the match or the chain's end.
    /// Returns the matching slot and its predecessor.
    fn search(&self, space: u32, vpn: u64, mut visit: impl FnMut(Slot)) -> (Option<Slot>, Option<Slot>, Slot) {
        let mut slot = Slot::Head(self.bucket(Asid(space), Vpn(vpn)));
        let mut prev = None;
        loop {
            visit(slot);
            let e = self.entry(slot);
            if e.tag == Some((space, vpn)) {
                return (Some(slot), prev, slot);
            }
            match e.next {
                Some(n) => {
                    prev = Some(slot);
                    slot = Slot::Overflow(n);
                }
                None => return (None, prev, slot),
            }
        }
    }

    fn alloc_overflow(&mut self, frames: &mut FramePool) -> Result<u32, TableError> {
        if let Some(i) = self.overflow_free.pop_first() {
            self.overflow_used[(i / self.per_page) as usize] += 1;
            return Ok(i);
        }
        let pfn = frames.alloc()?.0;
        // Reuse the lowest page slot returned to the pool, else a new one.
        let page = match self.overflow_frames.iter().position(Option::is_none) {
            Some(p) => {
                self.overflow_frames[p] = Some(pfn);
                p
            }
            None => {
                self.overflow_frames.push(Some(pfn));
                self.overflow_used.push(0);
                self.overflow.resize(self.overflow_frames.len() * self.per_page as usize, Entry::default());
                self.overflow_frames.len() - 1
            }
        };
        let first = page as u32 * self.per_page;
        self.overflow_free.extend(first + 1..first + self.per_page);
        self.overflow_used[page] = 1;
        Ok(first)
    }

    fn free_overflow(&mut self, i: u32, frames: &mut FramePool) -> Result<(), TableError> {
        self.overflow[i as usize] = Entry::default();
        let page = (i / self.per_page) as usize;
        self.overflow_used[page] -= 1;
        if self.overflow_used[page] == 0 {
            // The page is empty: return it to the pool.
            let first = page as u32 * self.per_page;
            for j in first..first + self.per_page {
                self.overflow_free.remove(&j);
            }
            if let Some(pfn) = self.overflow_frames[page].take() {
                frames.free(Pfn(pfn))?;
            }
        } else {
            self.overflow_free.insert(i);
        }
        Ok(())
    }

    /// [`PageTable::insert`], appending to `out` every entry the update
    /// reads: the chain searched for an existing mapping, in order (an
    /// appended overflow entry is written, not read, so it is not listed).
    pub fn insert_refs(
        &mut self,
        space: Asid,
        vpn: Vpn,
        pfn: Pfn,
        frames: &mut FramePool,
        out: &mut Vec<PteRef>,
    ) -> Result<(), TableError> {
        let (space, vpn, pfn) = (space.0, vpn.0, pfn.0);
        check_vpn(vpn, self.page_bytes)?;
        let mut visited = Vec::new();
        let (found, _, last) = self.search(space, vpn, |s| visited.push(s));
        out.extend(visited.into_iter().map(|s| self.pte_ref(s)));
        if let Some(slot) = found {
            self.entry_mut(slot).pfn = pfn;
            return Ok(());
        }
        let new = Entry { tag: Some((space, vpn)), pfn, next: None };
        if let Slot::Head(b) = last {
            if self.heads[b as usize].tag.is_none() {
                self.heads[b as usize] = new;
                self.mappings += 1;
                return Ok(());
            }
        }
        let i = self.alloc_overflow(frames)?;
        self.overflow[i as usize] = new;
        self.entry_mut(last).next = Some(i);
        self.mappings += 1;
        Ok(())
    }

    /// [`PageTable::remove`], appending to `out` every entry read while
    /// searching for the mapping (which also finds its predecessor) and, when
    /// a head is removed and its chain continues, the next entry copied into
    /// the head slot.
    pub fn remove_refs(
        &mut self,
        space: Asid,
        vpn: Vpn,
        frames: &mut FramePool,
        out: &mut Vec<PteRef>,
    ) -> Result<(), TableError> {
        let (space, vpn) = (space.0, vpn.0);
        check_vpn(vpn, self.page_bytes)?;
        let mut visited = Vec::new();
        let (found, prev, _) = self.search(space, vpn, |s| visited.push(s));
        out.extend(visited.into_iter().map(|s| self.pte_ref(s)));
        let Some(slot) = found else {
            return Err(TableError::NotMapped { space: Asid(space), vpn: Vpn(vpn) });
        };
        let next = self.entry(slot).next;
        match (slot, prev) {
            (Slot::Head(b), _) => match next {
                Some(n) => {
                    out.push(self.pte_ref(Slot::Overflow(n)));
                    self.heads[b as usize] = self.overflow[n as usize];
                    self.free_overflow(n, frames)?;
                }
                None => self.heads[b as usize] = Entry::default(),
            },
            (Slot::Overflow(i), Some(p)) => {
                self.entry_mut(p).next = next;
                self.free_overflow(i, frames)?;
            }
            (Slot::Overflow(_), None) => {
                return Err(TableError::Config("parisc: overflow entry without a predecessor (a bug)".into()))
            }
        }
        self.mappings -= 1;
        Ok(())
    }

    /// Chain statistics over all buckets.
    pub fn chain_stats(&self) -> ChainStats {
        let mut s = ChainStats { buckets: self.entries(), ..ChainStats::default() };
        let mut probes = 0u64;
        for head in &self.heads {
            if head.tag.is_none() {
                continue;
            }
            let mut len = 1u64;
            let mut next = head.next;
            while let Some(n) = next {
                len += 1;
                next = self.overflow[n as usize].next;
            }
            s.occupied += 1;
            s.mappings += len;
            s.max_chain = s.max_chain.max(len);
            probes += len * (len + 1) / 2;
        }
        if s.occupied > 0 {
            s.mean_chain = s.mappings as f64 / s.occupied as f64;
            s.mean_probes = probes as f64 / s.mappings as f64;
        }
        s
    }
}

fn check_vpn(vpn: u64, page_bytes: u64) -> Result<(), TableError> {
    let limit = (1u64 << VA_BITS) / page_bytes;
    if vpn >= limit {
        return Err(TableError::OutOfRange { va: VirtAddr(vpn.saturating_mul(page_bytes)), bits: VA_BITS });
    }
    Ok(())
}

impl PageTable for HashedInverted {
    fn name(&self) -> &'static str {
        "parisc"
    }

    fn page_bytes(&self) -> u64 {
        self.page_bytes
    }

    fn insert(&mut self, space: Asid, vpn: Vpn, pfn: Pfn, frames: &mut FramePool) -> Result<(), TableError> {
        self.insert_refs(space, vpn, pfn, frames, &mut Vec::new())
    }

    fn remove(&mut self, space: Asid, vpn: Vpn, frames: &mut FramePool) -> Result<(), TableError> {
        self.remove_refs(space, vpn, frames, &mut Vec::new())
    }

    fn lookup(&self, space: Asid, vpn: Vpn) -> Option<Pfn> {
        let (space, vpn) = (space.0, vpn.0);
        if check_vpn(vpn, self.page_bytes).is_err() {
            return None;
        }
        let (found, _, _) = self.search(space, vpn, |_| {});
        found.map(|s| Pfn(self.entry(s).pfn))
    }

    /// Every entry of the bucket's chain read until the match; for an
    /// unmapped page, the whole chain (what a miss handler reads before it
    /// raises a page fault), which is not an error here.
    fn walk(&self, space: Asid, va: VirtAddr, out: &mut Vec<PteRef>) -> Result<(), TableError> {
        let (space, va) = (space.0, va.0);
        if va >> VA_BITS != 0 {
            return Err(TableError::OutOfRange { va: VirtAddr(va), bits: VA_BITS });
        }
        self.search(space, va / self.page_bytes, |s| out.push(self.pte_ref(s)));
        Ok(())
    }

    fn pte_at(&self, pa: PhysAddr) -> Option<Pfn> {
        let pa = pa.0;
        let base = self.table_base().0;
        let entry = if pa >= base && pa < base + self.entries() * ENTRY_BYTES {
            self.heads[((pa - base) / ENTRY_BYTES) as usize]
        } else {
            let page = self.overflow_frames.iter().position(|f| *f == Some(pa / self.page_bytes))?;
            let i = page * self.per_page as usize + ((pa % self.page_bytes) / ENTRY_BYTES) as usize;
            self.overflow[i]
        };
        entry.tag.map(|_| Pfn(entry.pfn))
    }

    fn memory(&self) -> TableMemory {
        let table = self.table_frames * self.page_bytes;
        let overflow_pages = self.overflow_frames.iter().filter(|f| f.is_some()).count() as u64;
        let overflow = overflow_pages * self.page_bytes;
        TableMemory {
            bytes: table + overflow,
            useful_bytes: self.mappings * ENTRY_BYTES,
            parts: vec![("hash table".into(), table), ("overflow entries".into(), overflow)],
        }
    }
}
