//! SOFTVM's page table: the PUMA disjunct table (seed 002, Jacob & Mudge,
//! section 4.3 and Fig. 11).
//!
//! Effective addresses are segmented into a 52-bit global space
//! ([`super::segments`]). "A virtual linear table is at the top of the global
//! address space, 2^42 bytes long, mapping the entire global space (pages are
//! software-defined at 4K bytes, PTEs are 4 bytes)": PTE of global page
//! `g >> 12` at global virtual address [`TABLE_BASE`]` + (g >> 12) * 4`. Its
//! pages get frames on demand; two spaces sharing a segment (same VSID)
//! share the table pages of that segment, counted once.
//!
//! Each space has "a 2 KB user root table" of 512 4-byte PTEs in physical
//! memory; entry `i` maps the table page holding the PTEs of effective
//! addresses `[i * 4 MB, (i + 1) * 4 MB)`, so it is indexed by the effective
//! address (`ea >> 22`), not the global one. Two root tables share a 4 KB
//! frame (spaces `2k`, `2k + 1`), as in [`super::mips`]. Root entries are
//! valid exactly while the table page they name has a frame, for every
//! space mapping that segment ("PTE groups must be duplicated across user
//! root page tables to share virtual segments").
//!
//! Walks are bottom-up: a user effective address (< 2 GB: "a user process
//! owns the bottom 2 GB", eight segments) gives one mapped [`Tier::User`]
//! reference at a global address; walking a table address gives the
//! physical [`Tier::Root`] reference of the space's root entry, found by
//! reverse-mapping the table page's VSID to the space's segment (the lowest
//! user segment holding it when a space maps a segment twice).

use std::collections::BTreeSet;
use vmlab_addr::layout::USER_LIMIT;
use vmlab_addr::{Asid, Pfn, PhysAddr, VirtAddr, Vpn};

use rustc_hash::FxHashMap;

use super::linear::{check_pfn20, check_pool, LinearTable, PageChange};
use super::segments::SegmentRegisters;
use super::{PageTable, PteAddr, PteRef, TableError, TableMemory, Tier};
use crate::frames::FramePool;

/// Bits of the global virtual space (seed 002, 4.3).
pub const GLOBAL_BITS: u32 = 52;
/// The global table: 2^40 PTEs of 4 bytes = 2^42 bytes (seed 002, 4.3).
pub const TABLE_BYTES: u64 = 1 << 42;
/// "The top 10 bits of the address are 1s since the table is at the very
/// top of the global space" (seed 002, 4.3).
pub const TABLE_BASE: u64 = (1 << GLOBAL_BITS) - TABLE_BYTES;
/// User effective addresses are below 2 GB (seed 002, 4.3): the shared
/// user limit (`vmlab_addr::layout`).
pub const USER_VA_BITS: u32 = USER_LIMIT.0.trailing_zeros();
/// Root table: 512 x 4 B (seed 002, 4.3).
pub const ROOT_BYTES: u64 = 2048;
pub const PAGE_BYTES: u64 = 4096;
pub const PTE_BYTES: u64 = 4;
/// User segments (the bottom 8 of 16, seed 002, 4.3).
pub const USER_SEGMENTS: usize = 8;
/// Table pages per segment: 256 MB / 4 KB pages x 4 B / 4 KB.
const PAGES_PER_SEGMENT: u64 = 64;

/// The PUMA disjunct table.
#[derive(Debug, Clone)]
pub struct Puma {
    segments: SegmentRegisters,
    table: LinearTable,
    roots: FxHashMap<u32, u64>,
    root_owner: FxHashMap<u64, u32>,
    /// Spaces whose root table is in use.
    root_spaces: BTreeSet<u32>,
    /// Valid PTEs per VSID.
    per_vsid: FxHashMap<u32, u64>,
}

impl Default for Puma {
    fn default() -> Self {
        Self {
            segments: SegmentRegisters::default(),
            table: LinearTable::new(PAGE_BYTES, PTE_BYTES),
            roots: FxHashMap::default(),
            root_owner: FxHashMap::default(),
            root_spaces: BTreeSet::new(),
            per_vsid: FxHashMap::default(),
        }
    }
}

impl Puma {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn segments(&self) -> &SegmentRegisters {
        &self.segments
    }

    /// Makes segment `to_segment` of space `to` share segment `from_segment`
    /// of space `from` (loads the same VSID). The target segment must have
    /// no mappings of its own (they would be orphaned).
    pub fn share_segment(
        &mut self,
        from: Asid,
        from_segment: usize,
        to: Asid,
        to_segment: usize,
    ) -> Result<(), TableError> {
        let per_vsid = &self.per_vsid;
        self.segments
            .share("puma", (from, from_segment), (to, to_segment), |v| per_vsid.get(&v).copied().unwrap_or(0) > 0)
    }

    /// Global virtual address of the PTE of effective page `vpn` of `space`.
    pub fn upte_addr(&self, space: Asid, vpn: Vpn) -> VirtAddr {
        VirtAddr(TABLE_BASE + self.segments.global_vpn(space, vpn).0 * PTE_BYTES)
    }

    /// Physical address of `space`'s root table, once it has one.
    pub fn root_pa(&self, space: Asid) -> Option<PhysAddr> {
        let space = space.0;
        if !self.root_spaces.contains(&space) {
            return None;
        }
        let pfn = self.roots.get(&(space / 2))?;
        Some(PhysAddr(pfn * PAGE_BYTES + u64::from(space % 2) * ROOT_BYTES))
    }

    fn check(space: Asid, vpn: u64) -> Result<(), TableError> {
        SegmentRegisters::check_space(space)?;
        if vpn >= (1 << USER_VA_BITS) / PAGE_BYTES {
            return Err(TableError::OutOfRange { va: VirtAddr(vpn.saturating_mul(PAGE_BYTES)), bits: USER_VA_BITS });
        }
        Ok(())
    }

    /// The table page root entry `index` of `space` names.
    fn root_target(&self, space: Asid, index: u64) -> u64 {
        let vsid = self.segments.vsid(space, (index / PAGES_PER_SEGMENT) as usize);
        u64::from(vsid) * PAGES_PER_SEGMENT + index % PAGES_PER_SEGMENT
    }
}

impl PageTable for Puma {
    fn name(&self) -> &'static str {
        "puma"
    }

    fn page_bytes(&self) -> u64 {
        PAGE_BYTES
    }

    fn insert(&mut self, space: Asid, vpn: Vpn, pfn: Pfn, frames: &mut FramePool) -> Result<(), TableError> {
        let (vpn, pfn) = (vpn.0, pfn.0);
        Self::check(space, vpn)?;
        check_pfn20(pfn)?;
        check_pool(frames)?;
        if let std::collections::hash_map::Entry::Vacant(slot) = self.roots.entry(space.0 / 2) {
            let f = frames.alloc()?.0;
            slot.insert(f);
            self.root_owner.insert(f, space.0 / 2);
        }
        self.root_spaces.insert(space.0);
        let g = self.segments.global_vpn(space, Vpn(vpn)).0;
        let fresh = self.table.get(g).is_none();
        if let PageChange::Allocated { pfn: f, .. } = self.table.set(g, pfn, frames)? {
            if let Err(e) = check_pfn20(f) {
                self.table.clear(g, frames)?;
                return Err(e);
            }
        }
        if fresh {
            *self.per_vsid.entry((g >> 16) as u32).or_default() += 1;
        }
        Ok(())
    }

    fn remove(&mut self, space: Asid, vpn: Vpn, frames: &mut FramePool) -> Result<(), TableError> {
        let vpn = vpn.0;
        Self::check(space, vpn)?;
        let g = self.segments.global_vpn(space, Vpn(vpn)).0;
        self.table.clear(g, frames)?.ok_or(TableError::NotMapped { space, vpn: Vpn(vpn) })?;
        if let Some(n) = self.per_vsid.get_mut(&((g >> 16) as u32)) {
            *n -= 1;
        }
        Ok(())
    }

    fn lookup(&self, space: Asid, vpn: Vpn) -> Option<Pfn> {
        let vpn = vpn.0;
        Self::check(space, vpn).ok()?;
        self.table.get(self.segments.global_vpn(space, Vpn(vpn)).0).map(Pfn)
    }

    fn walk(&self, space: Asid, va: VirtAddr, out: &mut Vec<PteRef>) -> Result<(), TableError> {
        let va = va.0;
        SegmentRegisters::check_space(space)?;
        if va < 1 << USER_VA_BITS {
            out.push(PteRef {
                at: PteAddr::Mapped(self.upte_addr(space, Vpn(va / PAGE_BYTES))),
                tier: Tier::User,
                bytes: 4,
            });
            return Ok(());
        }
        if va >> GLOBAL_BITS != 0 {
            return Err(TableError::OutOfRange { va: VirtAddr(va), bits: GLOBAL_BITS });
        }
        if va < TABLE_BASE {
            return Err(TableError::OutOfRange { va: VirtAddr(va), bits: USER_VA_BITS });
        }
        let not_mapped = TableError::NotMapped { space, vpn: Vpn(va / PAGE_BYTES) };
        let page = (va - TABLE_BASE) / PAGE_BYTES;
        let vsid = u32::try_from(page / PAGES_PER_SEGMENT).map_err(|_| not_mapped.clone())?;
        let segment = self.segments.segment_of(space, vsid, 0..USER_SEGMENTS).ok_or(not_mapped.clone())?;
        let root = self.root_pa(space).ok_or(not_mapped)?.0;
        let index = segment as u64 * PAGES_PER_SEGMENT + page % PAGES_PER_SEGMENT;
        out.push(PteRef { at: PteAddr::Physical(PhysAddr(root + index * PTE_BYTES)), tier: Tier::Root, bytes: 4 });
        Ok(())
    }

    fn memory(&self) -> TableMemory {
        let roots = self.roots.len() as u64 * PAGE_BYTES;
        let table = self.table.pages() * PAGE_BYTES;
        let root_valid: u64 = self
            .root_spaces
            .iter()
            .map(|&s| {
                (0..ROOT_BYTES / PTE_BYTES)
                    .filter(|&i| self.table.page_frame(self.root_target(Asid(s), i)).is_some())
                    .count() as u64
            })
            .sum();
        TableMemory {
            bytes: roots + table,
            useful_bytes: (self.table.valid() + root_valid) * PTE_BYTES,
            parts: vec![("user root tables".into(), roots), ("global table pages".into(), table)],
        }
    }

    fn pte_at(&self, pa: PhysAddr) -> Option<Pfn> {
        let pa = pa.0;
        if let Some(&pair) = self.root_owner.get(&(pa / PAGE_BYTES)) {
            let entry = (pa % PAGE_BYTES) / PTE_BYTES;
            let space = pair * 2 + (entry / (ROOT_BYTES / PTE_BYTES)) as u32;
            if !self.root_spaces.contains(&space) {
                return None;
            }
            return self.table.page_frame(self.root_target(Asid(space), entry % (ROOT_BYTES / PTE_BYTES))).map(Pfn);
        }
        self.table.pte_at(pa, PAGE_BYTES, PTE_BYTES).map(Pfn)
    }
}
