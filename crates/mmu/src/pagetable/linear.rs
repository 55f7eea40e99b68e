//! A linear (virtually contiguous) array of PTEs whose pages get physical
//! frames on demand: the building block of the bottom-up tables (the MIPS
//! user tables, MACH's kernel table, PUMA's global table).
//!
//! Indices are PTE numbers within the table; page `p` of the table holds
//! PTEs `p * per_page .. (p + 1) * per_page`. A table page gets a frame when
//! the first PTE in it becomes valid and gives it back when the last one is
//! cleared, so the table's physical size follows what is mapped, page by page.

use rustc_hash::FxHashMap;

use vmlab_addr::layout::USER_LIMIT;
use vmlab_addr::{Asid, Pfn, VirtAddr, Vpn};

use super::TableError;
use crate::frames::FramePool;

/// PTE slot value meaning "invalid".
const INVALID: u64 = u64::MAX;

#[derive(Debug, Clone)]
struct TablePage {
    pfn: u64,
    ptes: Box<[u64]>,
    valid: u32,
}

/// What a PTE update did to the table's pages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PageChange {
    /// No table page was allocated or freed.
    None,
    /// Table page `page` was allocated frame `pfn`.
    Allocated { page: u64, pfn: u64 },
    /// Table page `page` became empty and its frame `pfn` was freed.
    Freed { page: u64, pfn: u64 },
}

#[derive(Debug, Clone)]
pub(crate) struct LinearTable {
    per_page: u64,
    pages: FxHashMap<u64, TablePage>,
    /// Frame -> table page, to read PTEs by physical address.
    owner: FxHashMap<u64, u64>,
    valid: u64,
}

impl LinearTable {
    pub(crate) fn new(page_bytes: u64, pte_bytes: u64) -> Self {
        Self { per_page: page_bytes / pte_bytes, pages: FxHashMap::default(), owner: FxHashMap::default(), valid: 0 }
    }

    pub(crate) fn get(&self, index: u64) -> Option<u64> {
        let page = self.pages.get(&(index / self.per_page))?;
        let v = page.ptes[(index % self.per_page) as usize];
        (v != INVALID).then_some(v)
    }

    /// Makes PTE `index` valid with frame `pfn`, allocating its table page's
    /// frame if needed.
    pub(crate) fn set(&mut self, index: u64, pfn: u64, frames: &mut FramePool) -> Result<PageChange, TableError> {
        let p = index / self.per_page;
        let mut change = PageChange::None;
        if !self.pages.contains_key(&p) {
            let frame = frames.alloc()?.0;
            let len = usize::try_from(self.per_page).map_err(|_| TableError::Config("table page too large".into()))?;
            self.pages.insert(p, TablePage { pfn: frame, ptes: vec![INVALID; len].into_boxed_slice(), valid: 0 });
            self.owner.insert(frame, p);
            change = PageChange::Allocated { page: p, pfn: frame };
        }
        let page = self.pages.get_mut(&p).ok_or_else(|| TableError::Config("table page vanished".into()))?;
        let slot = &mut page.ptes[(index % self.per_page) as usize];
        if *slot == INVALID {
            page.valid += 1;
            self.valid += 1;
        }
        *slot = pfn;
        Ok(change)
    }

    /// Invalidates PTE `index`; frees its table page when it becomes empty.
    /// Returns None when the PTE was not valid.
    pub(crate) fn clear(&mut self, index: u64, frames: &mut FramePool) -> Result<Option<PageChange>, TableError> {
        let p = index / self.per_page;
        let Some(page) = self.pages.get_mut(&p) else { return Ok(None) };
        let slot = &mut page.ptes[(index % self.per_page) as usize];
        if *slot == INVALID {
            return Ok(None);
        }
        *slot = INVALID;
        page.valid -= 1;
        self.valid -= 1;
        if page.valid > 0 {
            return Ok(Some(PageChange::None));
        }
        let pfn = page.pfn;
        self.pages.remove(&p);
        self.owner.remove(&pfn);
        frames.free(Pfn(pfn))?;
        Ok(Some(PageChange::Freed { page: p, pfn }))
    }

    /// The frame holding table page `page`, if it has one.
    pub(crate) fn page_frame(&self, page: u64) -> Option<u64> {
        self.pages.get(&page).map(|p| p.pfn)
    }

    /// The valid PTE stored at physical address `pa`, if `pa` is in one of
    /// this table's pages.
    pub(crate) fn pte_at(&self, pa: u64, page_bytes: u64, pte_bytes: u64) -> Option<u64> {
        let p = self.owner.get(&(pa / page_bytes))?;
        self.get(p * self.per_page + (pa % page_bytes) / pte_bytes)
    }

    /// Table pages with a frame.
    pub(crate) fn pages(&self) -> u64 {
        self.pages.len() as u64
    }

    /// Valid PTEs.
    pub(crate) fn valid(&self) -> u64 {
        self.valid
    }
}

/// Checks the pool hands out 4 KB frames, which the 4 KB-page tables compute
/// their physical addresses with.
pub(crate) fn check_pool(frames: &FramePool) -> Result<(), TableError> {
    if frames.page_bytes() != USER_PAGE_BYTES {
        return Err(TableError::Config(format!(
            "this table needs 4 KB frames, the frame pool has {} B frames",
            frames.page_bytes()
        )));
    }
    Ok(())
}

/// Checks a frame number fits a 4-byte PTE's 20-bit frame field (4 KB pages,
/// 32-bit physical addresses, as in the MIPS R3000 PTE).
pub(crate) fn check_pfn20(pfn: u64) -> Result<(), TableError> {
    if pfn >= 1 << 20 {
        return Err(TableError::FrameOutOfRange { pfn: Pfn(pfn), bits: 20 });
    }
    Ok(())
}

/// Per-space 2 MB linear user page tables in kernel virtual space, at
/// `base + space * 2 MB` (the MIPS/ULTRIX layout, which MACH shares):
/// 4 KB pages, 4-byte PTEs, a 2 GB user space, 512 table pages per space.
#[derive(Debug, Clone, Default)]
pub(crate) struct UserTables {
    tables: FxHashMap<u32, LinearTable>,
    /// Frame -> space owning that user-table page.
    owner: FxHashMap<u64, u32>,
}

/// A user-table page that got or lost a frame, for the tier above.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct UserPageChange {
    pub(crate) space: u32,
    pub(crate) change: PageChange,
}

pub(crate) const USER_PAGE_BYTES: u64 = 4096;
pub(crate) const USER_PTE_BYTES: u64 = 4;
/// User virtual addresses are below 2^31 (the bottom half of a 32-bit
/// space): the shared user limit (`vmlab_addr::layout`).
pub(crate) const USER_VA_BITS: u32 = USER_LIMIT.0.trailing_zeros();
/// 2 GB / 4 KB pages x 4 B = 2 MB of user table per space.
pub(crate) const USER_TABLE_BYTES: u64 = (1 << USER_VA_BITS) / USER_PAGE_BYTES * USER_PTE_BYTES;

impl UserTables {
    pub(crate) fn check(space: u32, vpn: u64, max_spaces: u32) -> Result<(), TableError> {
        if space >= max_spaces {
            return Err(TableError::SpaceOutOfRange { space: Asid(space), max_spaces });
        }
        if vpn >= (1 << USER_VA_BITS) / USER_PAGE_BYTES {
            return Err(TableError::OutOfRange {
                va: VirtAddr(vpn.saturating_mul(USER_PAGE_BYTES)),
                bits: USER_VA_BITS,
            });
        }
        Ok(())
    }

    pub(crate) fn lookup(&self, space: u32, vpn: u64) -> Option<u64> {
        self.tables.get(&space)?.get(vpn)
    }

    /// Sets the PTE; a newly allocated table page whose frame does not fit a
    /// 4-byte PTE (for the tier above) is undone and reported as an error.
    pub(crate) fn insert(
        &mut self,
        space: u32,
        vpn: u64,
        pfn: u64,
        frames: &mut FramePool,
    ) -> Result<UserPageChange, TableError> {
        check_pfn20(pfn)?;
        check_pool(frames)?;
        let table = self.tables.entry(space).or_insert_with(|| LinearTable::new(USER_PAGE_BYTES, USER_PTE_BYTES));
        let change = table.set(vpn, pfn, frames)?;
        if let PageChange::Allocated { pfn: f, .. } = change {
            if let Err(e) = check_pfn20(f) {
                table.clear(vpn, frames)?;
                return Err(e);
            }
            self.owner.insert(f, space);
        }
        Ok(UserPageChange { space, change })
    }

    pub(crate) fn remove(
        &mut self,
        space: u32,
        vpn: u64,
        frames: &mut FramePool,
    ) -> Result<UserPageChange, TableError> {
        let cleared = match self.tables.get_mut(&space) {
            Some(t) => t.clear(vpn, frames)?,
            None => None,
        };
        let change = cleared.ok_or(TableError::NotMapped { space: Asid(space), vpn: Vpn(vpn) })?;
        if let PageChange::Freed { pfn, .. } = change {
            self.owner.remove(&pfn);
        }
        Ok(UserPageChange { space, change })
    }

    /// Frame of user-table page `page` of `space`.
    pub(crate) fn page_frame(&self, space: u32, page: u64) -> Option<u64> {
        self.tables.get(&space)?.page_frame(page)
    }

    pub(crate) fn pte_at(&self, pa: u64) -> Option<u64> {
        let space = self.owner.get(&(pa / USER_PAGE_BYTES))?;
        self.tables.get(space)?.pte_at(pa, USER_PAGE_BYTES, USER_PTE_BYTES)
    }

    /// (table pages with a frame, valid PTEs) over all spaces.
    pub(crate) fn totals(&self) -> (u64, u64) {
        self.tables.values().fold((0, 0), |(p, v), t| (p + t.pages(), v + t.valid()))
    }
}
