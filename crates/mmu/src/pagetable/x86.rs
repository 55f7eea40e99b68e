//! x86 radix page tables, walked top-down by a hardware walker (the INTEL
//! scheme of seed 002's companion study; the layouts are the architecture's,
//! Intel SDM vol. 3A ch. 4, not the seeds'):
//! * `x86-2level`: 32-bit virtual addresses; CR3 -> a 4 KB page directory of
//!   1024 4-byte PDEs (index `va[31:22]`) -> 4 KB page tables of 1024 4-byte
//!   PTEs (index `va[21:12]`);
//! * `x86-4level`: 48-bit virtual addresses (the lower, user half); PML4 ->
//!   PDPT -> PD -> PT, each a 4 KB page of 512 8-byte entries indexed by 9
//!   bits of the address (`va[47:39]`, `[38:30]`, `[29:21]`, `[20:12]`).
//!
//! Every reference is physical. A walk lists the entry read at each level,
//! top first, and stops after the first invalid entry (the walker reads it,
//! then faults). Each space's top-level page (what CR3 points to) is
//! allocated on its first insert; lower pages on demand, and freed when
//! their last entry is removed.
//!
//! Tiers (for the accounting of Table 2 of seed 002): the leaf PTE is
//! [`Tier::User`]; the level above it is [`Tier::Kernel`] in the 4-level
//! table (the PD); every level above that, and the 2-level table's page
//! directory, is [`Tier::Root`].

use rustc_hash::FxHashMap;
use vmlab_addr::{Asid, Pfn, PhysAddr, VirtAddr, Vpn};

use super::linear::check_pool;
use super::{PageTable, PteAddr, PteRef, TableError, TableMemory, Tier};
use crate::frames::FramePool;

pub const PAGE_BYTES: u64 = 4096;

/// The shape of a radix table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RadixShape {
    pub name: &'static str,
    pub levels: u32,
    /// Address bits each level indexes.
    pub index_bits: u32,
    pub entry_bytes: u64,
    pub va_bits: u32,
    /// Bits of the frame field of an entry.
    pub pfn_bits: u32,
    /// Names of the levels, top first, for [`TableMemory::parts`].
    pub level_names: &'static [&'static str],
}

/// 32-bit two-level paging (4-byte entries, 20-bit frame numbers).
pub const TWO_LEVEL: RadixShape = RadixShape {
    name: "x86-2level",
    levels: 2,
    index_bits: 10,
    entry_bytes: 4,
    va_bits: 32,
    pfn_bits: 20,
    level_names: &["page directories", "page tables"],
};

/// 4-level paging (8-byte entries, 40-bit frame numbers: 52-bit physical).
pub const FOUR_LEVEL: RadixShape = RadixShape {
    name: "x86-4level",
    levels: 4,
    index_bits: 9,
    entry_bytes: 8,
    va_bits: 48,
    pfn_bits: 40,
    level_names: &["PML4s", "PDPTs", "page directories", "page tables"],
};

const INVALID: u64 = u64::MAX;

#[derive(Debug, Clone)]
struct Node {
    level: u32,
    entries: Box<[u64]>,
    valid: u32,
}

/// An x86 radix page table of either shape.
#[derive(Debug, Clone)]
pub struct Radix {
    shape: RadixShape,
    /// Space -> frame of its top-level page (CR3).
    tops: FxHashMap<u32, u64>,
    /// Frame -> table page.
    nodes: FxHashMap<u64, Node>,
}

impl Radix {
    pub fn new(shape: RadixShape) -> Self {
        Self { shape, tops: FxHashMap::default(), nodes: FxHashMap::default() }
    }

    pub fn two_level() -> Self {
        Self::new(TWO_LEVEL)
    }

    pub fn four_level() -> Self {
        Self::new(FOUR_LEVEL)
    }

    /// Physical address of `space`'s top-level table (CR3), once it has one.
    pub fn cr3(&self, space: u32) -> Option<u64> {
        self.tops.get(&space).map(|f| f * PAGE_BYTES)
    }

    fn index(&self, vpn: u64, level: u32) -> usize {
        let shift = self.shape.index_bits * (self.shape.levels - 1 - level);
        ((vpn >> shift) & ((1 << self.shape.index_bits) - 1)) as usize
    }

    fn tier(&self, level: u32) -> Tier {
        let leaf = self.shape.levels - 1;
        if level == leaf {
            Tier::User
        } else if level + 1 == leaf && level != 0 {
            Tier::Kernel
        } else {
            Tier::Root
        }
    }

    fn check(&self, vpn: u64) -> Result<(), TableError> {
        if vpn >= 1 << (self.shape.va_bits - 12) {
            return Err(TableError::OutOfRange { va: vpn.saturating_mul(PAGE_BYTES), bits: self.shape.va_bits });
        }
        Ok(())
    }

    fn new_node(&mut self, level: u32, frames: &mut FramePool) -> Result<u64, TableError> {
        check_pool(frames)?;
        let pfn = frames.alloc()?;
        if pfn >= 1 << self.shape.pfn_bits {
            frames.free(pfn)?;
            return Err(TableError::FrameOutOfRange { pfn, bits: self.shape.pfn_bits });
        }
        let len = 1usize << self.shape.index_bits;
        self.nodes.insert(pfn, Node { level, entries: vec![INVALID; len].into_boxed_slice(), valid: 0 });
        Ok(pfn)
    }

    /// Frames of the table pages on the path to `vpn`, top first (as far
    /// as they exist).
    fn path(&self, space: u32, vpn: u64) -> Vec<u64> {
        let mut path = Vec::with_capacity(self.shape.levels as usize);
        let mut next = self.tops.get(&space).copied();
        for level in 0..self.shape.levels {
            let Some(pfn) = next else { break };
            path.push(pfn);
            next = self.nodes.get(&pfn).map(|n| n.entries[self.index(vpn, level)]).filter(|&e| e != INVALID);
            if level + 1 == self.shape.levels {
                break;
            }
        }
        path
    }

    fn set_entry(&mut self, node: u64, i: usize, value: u64) {
        if let Some(n) = self.nodes.get_mut(&node) {
            if n.entries[i] == INVALID {
                n.valid += 1;
            }
            n.entries[i] = value;
        }
    }
}

impl PageTable for Radix {
    fn name(&self) -> &'static str {
        self.shape.name
    }

    fn page_bytes(&self) -> u64 {
        PAGE_BYTES
    }

    fn insert(&mut self, space: Asid, vpn: Vpn, pfn: Pfn, frames: &mut FramePool) -> Result<(), TableError> {
        let (space, vpn, pfn) = (space.0, vpn.0, pfn.0);
        self.check(vpn)?;
        if pfn >= 1 << self.shape.pfn_bits {
            return Err(TableError::FrameOutOfRange { pfn, bits: self.shape.pfn_bits });
        }
        let path = self.path(space, vpn);
        // Allocate every missing table page first, so running out of frames
        // leaves the table as it was.
        let missing = self.shape.levels as usize - path.len();
        let mut fresh = Vec::with_capacity(missing);
        for k in 0..missing {
            match self.new_node((path.len() + k) as u32, frames) {
                Ok(f) => fresh.push(f),
                Err(e) => {
                    for f in fresh {
                        self.nodes.remove(&f);
                        frames.free(f)?;
                    }
                    return Err(e);
                }
            }
        }
        let mut full = path;
        if full.is_empty() {
            self.tops.insert(space, fresh[0]);
        }
        for f in fresh {
            if let Some(&parent) = full.last() {
                let level = full.len() as u32 - 1;
                let i = self.index(vpn, level);
                self.set_entry(parent, i, f);
            }
            full.push(f);
        }
        let leaf = *full.last().ok_or_else(|| TableError::Config("x86: empty walk path".into()))?;
        let i = self.index(vpn, self.shape.levels - 1);
        self.set_entry(leaf, i, pfn);
        Ok(())
    }

    fn remove(&mut self, space: Asid, vpn: Vpn, frames: &mut FramePool) -> Result<(), TableError> {
        let (space, vpn) = (space.0, vpn.0);
        self.check(vpn)?;
        if self.lookup(Asid(space), Vpn(vpn)).is_none() {
            return Err(TableError::NotMapped { space, vpn });
        }
        let path = self.path(space, vpn);
        // Clear the leaf entry, then free table pages left empty, bottom up
        // (the top-level page stays: it is the space's CR3).
        for (level, &node) in path.iter().enumerate().rev() {
            let i = self.index(vpn, level as u32);
            let empty = match self.nodes.get_mut(&node) {
                Some(n) => {
                    n.entries[i] = INVALID;
                    n.valid -= 1;
                    n.valid == 0
                }
                None => false,
            };
            if !empty || level == 0 {
                break;
            }
            self.nodes.remove(&node);
            frames.free(node)?;
        }
        Ok(())
    }

    fn lookup(&self, space: Asid, vpn: Vpn) -> Option<Pfn> {
        let (space, vpn) = (space.0, vpn.0);
        self.check(vpn).ok()?;
        let path = self.path(space, vpn);
        if path.len() != self.shape.levels as usize {
            return None;
        }
        let leaf = self.nodes.get(path.last()?)?;
        let e = leaf.entries[self.index(vpn, self.shape.levels - 1)];
        (e != INVALID).then_some(Pfn(e))
    }

    fn walk(&self, space: Asid, va: VirtAddr, out: &mut Vec<PteRef>) -> Result<(), TableError> {
        let (space, va) = (space.0, va.0);
        if va >> self.shape.va_bits != 0 {
            return Err(TableError::OutOfRange { va, bits: self.shape.va_bits });
        }
        let vpn = va / PAGE_BYTES;
        let mut node = *self.tops.get(&space).ok_or(TableError::NotMapped { space, vpn })?;
        for level in 0..self.shape.levels {
            let i = self.index(vpn, level);
            out.push(PteRef {
                at: PteAddr::Physical(PhysAddr(node * PAGE_BYTES + i as u64 * self.shape.entry_bytes)),
                tier: self.tier(level),
                bytes: self.shape.entry_bytes as u32,
            });
            let e = self.nodes.get(&node).map_or(INVALID, |n| n.entries[i]);
            if e == INVALID || level + 1 == self.shape.levels {
                break;
            }
            node = e;
        }
        Ok(())
    }

    fn memory(&self) -> TableMemory {
        let mut per_level = vec![0u64; self.shape.levels as usize];
        let mut valid = 0u64;
        for n in self.nodes.values() {
            per_level[n.level as usize] += PAGE_BYTES;
            valid += u64::from(n.valid);
        }
        TableMemory {
            bytes: self.nodes.len() as u64 * PAGE_BYTES,
            useful_bytes: valid * self.shape.entry_bytes,
            parts: self.shape.level_names.iter().zip(per_level).map(|(n, b)| ((*n).to_string(), b)).collect(),
        }
    }

    fn pte_at(&self, pa: PhysAddr) -> Option<Pfn> {
        let pa = pa.0;
        let n = self.nodes.get(&(pa / PAGE_BYTES))?;
        let e = n.entries[((pa % PAGE_BYTES) / self.shape.entry_bytes) as usize];
        (e != INVALID).then_some(Pfn(e))
    }
}
