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

use vmlab_addr::{Asid, Pfn, PhysAddr, VirtAddr, Vpn};

use super::linear::check_pool;
use super::tree::TableTree;
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

/// An x86 radix page table of either shape. A table's address is its frame.
#[derive(Debug, Clone)]
pub struct Radix {
    shape: RadixShape,
    tree: TableTree,
}

impl Radix {
    pub fn new(shape: RadixShape) -> Self {
        Self { shape, tree: TableTree::new(&vec![shape.index_bits; shape.levels as usize]) }
    }

    pub fn two_level() -> Self {
        Self::new(TWO_LEVEL)
    }

    pub fn four_level() -> Self {
        Self::new(FOUR_LEVEL)
    }

    /// Physical address of `space`'s top-level table (CR3), once it has one.
    pub fn cr3(&self, space: Asid) -> Option<PhysAddr> {
        self.tree.top(space.0).map(|f| PhysAddr(f * PAGE_BYTES))
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
            return Err(TableError::OutOfRange {
                va: VirtAddr(vpn.saturating_mul(PAGE_BYTES)),
                bits: self.shape.va_bits,
            });
        }
        Ok(())
    }

    /// A frame for a new table page, within the entries' frame field.
    fn new_table(&self, frames: &mut FramePool) -> Result<u64, TableError> {
        check_pool(frames)?;
        let Pfn(pfn) = frames.alloc()?;
        if pfn >= 1 << self.shape.pfn_bits {
            frames.free(Pfn(pfn))?;
            return Err(TableError::FrameOutOfRange { pfn: Pfn(pfn), bits: self.shape.pfn_bits });
        }
        Ok(pfn)
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
            return Err(TableError::FrameOutOfRange { pfn: Pfn(pfn), bits: self.shape.pfn_bits });
        }
        let path = self.tree.path(space, vpn);
        // Allocate every missing table page first, so running out of frames
        // leaves the table as it was.
        let missing = self.shape.levels as usize - path.len();
        let mut fresh = Vec::with_capacity(missing);
        for _ in 0..missing {
            match self.new_table(frames) {
                Ok(f) => fresh.push(f),
                Err(e) => {
                    for f in fresh {
                        frames.free(Pfn(f))?;
                    }
                    return Err(e);
                }
            }
        }
        self.tree.insert(space, vpn, pfn, path, &fresh);
        Ok(())
    }

    fn remove(&mut self, space: Asid, vpn: Vpn, frames: &mut FramePool) -> Result<(), TableError> {
        let (space, vpn) = (space.0, vpn.0);
        self.check(vpn)?;
        if self.lookup(Asid(space), Vpn(vpn)).is_none() {
            return Err(TableError::NotMapped { space: Asid(space), vpn: Vpn(vpn) });
        }
        let path = self.tree.path(space, vpn);
        // Table pages left empty go back to the pool (the top-level page
        // stays: it is the space's CR3).
        for (_, node) in self.tree.clear(vpn, &path) {
            frames.free(Pfn(node))?;
        }
        Ok(())
    }

    fn lookup(&self, space: Asid, vpn: Vpn) -> Option<Pfn> {
        self.check(vpn.0).ok()?;
        self.tree.lookup(space.0, vpn.0).map(Pfn)
    }

    fn walk(&self, space: Asid, va: VirtAddr, out: &mut Vec<PteRef>) -> Result<(), TableError> {
        let (space, va) = (space.0, va.0);
        if va >> self.shape.va_bits != 0 {
            return Err(TableError::OutOfRange { va: VirtAddr(va), bits: self.shape.va_bits });
        }
        let vpn = va / PAGE_BYTES;
        let mut node = self.tree.top(space).ok_or(TableError::NotMapped { space: Asid(space), vpn: Vpn(vpn) })?;
        for level in 0..self.shape.levels {
            let i = self.tree.index(vpn, level as usize);
            out.push(PteRef {
                at: PteAddr::Physical(PhysAddr(node * PAGE_BYTES + i as u64 * self.shape.entry_bytes)),
                tier: self.tier(level),
                bytes: self.shape.entry_bytes as u32,
            });
            match self.tree.entry(node, i) {
                Some(e) if level + 1 < self.shape.levels => node = e,
                _ => break,
            }
        }
        Ok(())
    }

    fn memory(&self) -> TableMemory {
        let (tables, valid) = self.tree.census();
        TableMemory {
            bytes: tables.iter().sum::<u64>() * PAGE_BYTES,
            useful_bytes: valid * self.shape.entry_bytes,
            parts: self.shape.level_names.iter().zip(tables).map(|(n, t)| ((*n).to_string(), t * PAGE_BYTES)).collect(),
        }
    }

    fn pte_at(&self, pa: PhysAddr) -> Option<Pfn> {
        let pa = pa.0;
        self.tree.entry(pa / PAGE_BYTES, ((pa % PAGE_BYTES) / self.shape.entry_bytes) as usize).map(Pfn)
    }
}
