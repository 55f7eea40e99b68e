//! The ULTRIX page table on MIPS: a 2 MB linear user page table per process
//! in mapped kernel space (kseg2), mapped by a 2 KB root table in unmapped
//! physical memory (seed 002, Jacob & Mudge, sections 3.3 and 5.2.1: "The
//! 2 GB user address space is mapped by a 2 MB linear table (the user page
//! table) in virtual kernel space, which is in turn mapped by a 2 KB array
//! of PTEs (the root page table)").
//!
//! Layout:
//! * user table (UPT) of space `s` at kernel virtual address
//!   [`UPT_BASE`]` + s * 2 MB`, 512 pages of 1024 4-byte PTEs; a UPT page
//!   gets a frame when a PTE in it is first inserted (and gives it back when
//!   its last PTE is removed);
//! * root table of space `s`: 512 4-byte PTEs, entry `i` maps UPT page `i`;
//!   two root tables share a 4 KB frame (spaces `2k` and `2k + 1`, at offsets
//!   0 and 2 KB), allocated on the first insert into either space.
//!
//! Walks are bottom-up: a user address gives one mapped [`Tier::User`]
//! reference into the UPT; walking that UPT address gives one physical
//! [`Tier::Root`] reference.

use rustc_hash::FxHashMap;
use vmlab_addr::{Asid, Pfn, PhysAddr, VirtAddr, Vpn};

use super::linear::{
    check_pfn20, check_pool, UserTables, USER_PAGE_BYTES, USER_PTE_BYTES, USER_TABLE_BYTES, USER_VA_BITS,
};
use super::{PageTable, PteAddr, PteRef, TableError, TableMemory, Tier};
use crate::frames::FramePool;

/// Kernel virtual base of the user page tables: kseg2 (seed 002 Fig. 4 puts
/// the user tables in mapped kernel space; the exact base is ours).
pub const UPT_BASE: u64 = 0xC000_0000;
/// Bytes of one space's user table: 2 GB / 4 KB x 4 B (seed 002, 5.2.1).
pub const UPT_BYTES: u64 = USER_TABLE_BYTES;
/// Spaces the kseg2 window holds here (256 x 2 MB = 512 MB); ours.
pub const MAX_SPACES: u32 = 256;
/// Root table: 512 4-byte PTEs = 2 KB (seed 002, 5.2.1).
pub const ROOT_BYTES: u64 = 2048;
/// Page size and PTE size (seed 002, experiments: 4 KB pages, 4-byte PTEs).
pub const PAGE_BYTES: u64 = USER_PAGE_BYTES;
pub const PTE_BYTES: u64 = USER_PTE_BYTES;

/// The ULTRIX two-tier table.
#[derive(Debug, Clone, Default)]
pub struct Ultrix {
    user: UserTables,
    /// Pair `k` (spaces 2k, 2k+1) -> frame holding both root tables.
    roots: FxHashMap<u32, u64>,
    root_owner: FxHashMap<u64, u32>,
}

impl Ultrix {
    pub fn new() -> Self {
        Self::default()
    }

    /// Kernel virtual address of the PTE mapping user page `vpn` of `space`.
    pub fn upte_addr(space: Asid, vpn: Vpn) -> VirtAddr {
        VirtAddr(UPT_BASE + u64::from(space.0) * UPT_BYTES + vpn.0 * PTE_BYTES)
    }

    /// Physical address of `space`'s root table, once it has one.
    pub fn root_pa(&self, space: Asid) -> Option<PhysAddr> {
        let space = space.0;
        let pfn = self.roots.get(&(space / 2))?;
        Some(PhysAddr(pfn * PAGE_BYTES + u64::from(space % 2) * ROOT_BYTES))
    }

    fn ensure_root(&mut self, space: u32, frames: &mut FramePool) -> Result<(), TableError> {
        if self.roots.contains_key(&(space / 2)) {
            return Ok(());
        }
        let pfn = frames.alloc()?.0;
        self.roots.insert(space / 2, pfn);
        self.root_owner.insert(pfn, space / 2);
        Ok(())
    }
}

impl PageTable for Ultrix {
    fn name(&self) -> &'static str {
        "mips"
    }

    fn page_bytes(&self) -> u64 {
        PAGE_BYTES
    }

    fn insert(&mut self, space: Asid, vpn: Vpn, pfn: Pfn, frames: &mut FramePool) -> Result<(), TableError> {
        let (space, vpn, pfn) = (space.0, vpn.0, pfn.0);
        UserTables::check(space, vpn, MAX_SPACES)?;
        check_pfn20(pfn)?;
        check_pool(frames)?;
        self.ensure_root(space, frames)?;
        // The root entry for the UPT page is valid exactly while that page
        // has a frame, so it is derived from the user tables, never stale.
        self.user.insert(space, vpn, pfn, frames)?;
        Ok(())
    }

    fn remove(&mut self, space: Asid, vpn: Vpn, frames: &mut FramePool) -> Result<(), TableError> {
        let (space, vpn) = (space.0, vpn.0);
        UserTables::check(space, vpn, MAX_SPACES)?;
        self.user.remove(space, vpn, frames)?;
        Ok(())
    }

    fn lookup(&self, space: Asid, vpn: Vpn) -> Option<Pfn> {
        let (space, vpn) = (space.0, vpn.0);
        self.user.lookup(space, vpn).map(Pfn)
    }

    fn walk(&self, space: Asid, va: VirtAddr, out: &mut Vec<PteRef>) -> Result<(), TableError> {
        let (space, va) = (space.0, va.0);
        if space >= MAX_SPACES {
            return Err(TableError::SpaceOutOfRange { space: Asid(space), max_spaces: MAX_SPACES });
        }
        if va < 1 << USER_VA_BITS {
            out.push(PteRef {
                at: PteAddr::Mapped(Self::upte_addr(Asid(space), Vpn(va / PAGE_BYTES))),
                tier: Tier::User,
                bytes: 4,
            });
            return Ok(());
        }
        if va >> 32 != 0 {
            return Err(TableError::OutOfRange { va: VirtAddr(va), bits: 32 });
        }
        let upt_end = UPT_BASE + u64::from(MAX_SPACES) * UPT_BYTES;
        if !(UPT_BASE..upt_end).contains(&va) {
            // Unmapped kernel segments (kseg0/kseg1) and kseg2 outside the
            // user tables have no PTE in this table.
            return Err(TableError::NotMapped { space: Asid(space), vpn: Vpn(va / PAGE_BYTES) });
        }
        // kseg2 is global: a UPT address names its owner space.
        let owner = ((va - UPT_BASE) / UPT_BYTES) as u32;
        let root =
            self.root_pa(Asid(owner)).ok_or(TableError::NotMapped { space: Asid(owner), vpn: Vpn(va / PAGE_BYTES) })?.0;
        let index = (va - UPT_BASE - u64::from(owner) * UPT_BYTES) / PAGE_BYTES;
        out.push(PteRef { at: PteAddr::Physical(PhysAddr(root + index * PTE_BYTES)), tier: Tier::Root, bytes: 4 });
        Ok(())
    }

    fn memory(&self) -> TableMemory {
        let (pages, valid) = self.user.totals();
        let roots = self.roots.len() as u64 * PAGE_BYTES;
        TableMemory {
            bytes: roots + pages * PAGE_BYTES,
            // Valid user PTEs plus one valid root PTE per UPT page.
            useful_bytes: (valid + pages) * PTE_BYTES,
            parts: vec![("root tables".into(), roots), ("user page tables".into(), pages * PAGE_BYTES)],
        }
    }

    fn pte_at(&self, pa: PhysAddr) -> Option<Pfn> {
        let pa = pa.0;
        if let Some(&pair) = self.root_owner.get(&(pa / PAGE_BYTES)) {
            let entry = (pa % PAGE_BYTES) / PTE_BYTES;
            let space = pair * 2 + (entry / (ROOT_BYTES / PTE_BYTES)) as u32;
            return self.user.page_frame(space, entry % (ROOT_BYTES / PTE_BYTES)).map(Pfn);
        }
        self.user.pte_at(pa).map(Pfn)
    }
}
