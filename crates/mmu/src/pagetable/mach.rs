//! The MACH page table on MIPS: three tiers (seed 002, Jacob & Mudge,
//! section 5.2.2: "The 2 MB user page tables are located in kernel space,
//! the entire 4 GB kernel space is mapped by a 4 MB kernel structure (the
//! kernel page table), which is in turn mapped by a 4 KB kernel structure
//! (the root page table)").
//!
//! Layout:
//! * user tables exactly as in [`super::mips`]: space `s`'s 2 MB table at
//!   kernel virtual address `UPT_BASE + s * 2 MB`, pages on demand;
//! * the kernel page table (KPT): a 4 MB linear table of 1 Mi 4-byte PTEs at
//!   kernel virtual address [`KPT_BASE`], PTE `i` mapping kernel page `i`
//!   (all 4 GB of kernel virtual space). Its PTEs that are valid are those
//!   of user-table pages with a frame; a KPT page gets a frame on demand;
//! * the root table: one 4 KB frame of 1024 4-byte PTEs, allocated when the
//!   table is built, entry `i` mapping KPT page `i`.
//!
//! Walks are bottom-up: a user address gives a mapped [`Tier::User`]
//! reference into a UPT; a kernel address (a UPT's) gives a mapped
//! [`Tier::Kernel`] reference into the KPT; an address inside the KPT gives
//! a physical [`Tier::Root`] reference.

use super::linear::{check_pfn20, check_pool, LinearTable, PageChange, UserPageChange, UserTables};
use super::mips::{MAX_SPACES, PAGE_BYTES, PTE_BYTES, UPT_BASE, UPT_BYTES};
use super::{PageTable, PteAddr, PteRef, TableError, TableMemory, Tier};
use crate::frames::FramePool;
use vmlab_addr::layout::USER_LIMIT;
use vmlab_addr::{Asid, Pfn, PhysAddr, VirtAddr, Vpn};

/// Kernel virtual base of the 4 MB kernel page table: the top 4 MB of the
/// 4 GB space (ours; seed 002 gives the size, not the address).
pub const KPT_BASE: u64 = 0xFFC0_0000;
/// 4 GB / 4 KB pages x 4 B (seed 002, 5.2.2).
pub const KPT_BYTES: u64 = 4 << 20;
/// 1024 x 4 B (seed 002, 5.2.2).
pub const ROOT_BYTES: u64 = 4096;

/// The MACH three-tier table.
#[derive(Debug, Clone)]
pub struct Mach {
    user: UserTables,
    kpt: LinearTable,
    root_pfn: u64,
}

impl Mach {
    /// Builds the table, allocating the root table's frame.
    pub fn new(frames: &mut FramePool) -> Result<Self, TableError> {
        check_pool(frames)?;
        let root_pfn = frames.alloc()?.0;
        check_pfn20(root_pfn)?;
        Ok(Self { user: UserTables::default(), kpt: LinearTable::new(PAGE_BYTES, PTE_BYTES), root_pfn })
    }

    /// Physical address of the root table.
    pub fn root_pa(&self) -> PhysAddr {
        PhysAddr(self.root_pfn * PAGE_BYTES)
    }

    /// Keeps the KPT PTE of a user-table page in step with that page.
    fn follow(&mut self, c: UserPageChange, frames: &mut FramePool) -> Result<(), TableError> {
        let kva = |page: u64| UPT_BASE + u64::from(c.space) * UPT_BYTES + page * PAGE_BYTES;
        match c.change {
            PageChange::None => {}
            PageChange::Allocated { page, pfn } => {
                if let PageChange::Allocated { pfn: f, .. } = self.kpt.set(kva(page) / PAGE_BYTES, pfn, frames)? {
                    check_pfn20(f)?;
                }
            }
            PageChange::Freed { page, .. } => {
                self.kpt.clear(kva(page) / PAGE_BYTES, frames)?;
            }
        }
        Ok(())
    }
}

impl PageTable for Mach {
    fn name(&self) -> &'static str {
        "mach"
    }

    fn page_bytes(&self) -> u64 {
        PAGE_BYTES
    }

    fn insert(&mut self, space: Asid, vpn: Vpn, pfn: Pfn, frames: &mut FramePool) -> Result<(), TableError> {
        let (space, vpn, pfn) = (space.0, vpn.0, pfn.0);
        UserTables::check(space, vpn, MAX_SPACES)?;
        let c = self.user.insert(space, vpn, pfn, frames)?;
        if let Err(e) = self.follow(c, frames) {
            // Undo the user PTE (and its table page) so a failed insert
            // leaves no half-built mapping behind.
            let undo = self.user.remove(space, vpn, frames)?;
            if let PageChange::Freed { page, .. } = undo.change {
                let kva = UPT_BASE + u64::from(space) * UPT_BYTES + page * PAGE_BYTES;
                self.kpt.clear(kva / PAGE_BYTES, frames)?;
            }
            return Err(e);
        }
        Ok(())
    }

    fn remove(&mut self, space: Asid, vpn: Vpn, frames: &mut FramePool) -> Result<(), TableError> {
        let (space, vpn) = (space.0, vpn.0);
        UserTables::check(space, vpn, MAX_SPACES)?;
        let c = self.user.remove(space, vpn, frames)?;
        self.follow(c, frames)
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
        if va >> 32 != 0 {
            return Err(TableError::OutOfRange { va: VirtAddr(va), bits: 32 });
        }
        let r = if va < USER_LIMIT.0 {
            PteRef {
                at: PteAddr::Mapped(VirtAddr(UPT_BASE + u64::from(space) * UPT_BYTES + (va / PAGE_BYTES) * PTE_BYTES)),
                tier: Tier::User,
                bytes: 4,
            }
        } else if va >= KPT_BASE {
            PteRef {
                at: PteAddr::Physical(PhysAddr(self.root_pa().0 + ((va - KPT_BASE) / PAGE_BYTES) * PTE_BYTES)),
                tier: Tier::Root,
                bytes: 4,
            }
        } else {
            PteRef {
                at: PteAddr::Mapped(VirtAddr(KPT_BASE + (va / PAGE_BYTES) * PTE_BYTES)),
                tier: Tier::Kernel,
                bytes: 4,
            }
        };
        out.push(r);
        Ok(())
    }

    fn memory(&self) -> TableMemory {
        let (upt_pages, upt_valid) = self.user.totals();
        let kpt_pages = self.kpt.pages();
        TableMemory {
            bytes: ROOT_BYTES + (kpt_pages + upt_pages) * PAGE_BYTES,
            // Valid user PTEs, valid KPT PTEs (one per UPT page), valid root
            // PTEs (one per KPT page).
            useful_bytes: (upt_valid + self.kpt.valid() + kpt_pages) * PTE_BYTES,
            parts: vec![
                ("root table".into(), ROOT_BYTES),
                ("kernel page table".into(), kpt_pages * PAGE_BYTES),
                ("user page tables".into(), upt_pages * PAGE_BYTES),
            ],
        }
    }

    fn pte_at(&self, pa: PhysAddr) -> Option<Pfn> {
        let pa = pa.0;
        if pa / PAGE_BYTES == self.root_pfn {
            return self.kpt.page_frame((pa % PAGE_BYTES) / PTE_BYTES).map(Pfn);
        }
        self.kpt.pte_at(pa, PAGE_BYTES, PTE_BYTES).or_else(|| self.user.pte_at(pa)).map(Pfn)
    }
}
