//! The PowerPC hashed page table (32-bit OEA; seed 002 section 3.2 and
//! Fig. 2 describe the segmentation, the table layout and hash are the
//! architecture's: *PowerPC Microprocessor Family: The Programming
//! Environments for 32-Bit Microprocessors*, ch. 7, "Hashed Page Tables").
//!
//! * Effective addresses go through 16 segment registers to 24-bit VSIDs and
//!   a 52-bit virtual address ([`super::segments`]).
//! * The table (HTAB) is physically contiguous: `ptegs` page-table entry
//!   groups (PTEGs) of 8 PTEs x 8 bytes = 64 bytes, allocated when the table
//!   is built. By default it has the architecture's recommended minimum
//!   size for the physical memory: 64 KB per 8 MB of memory (real memory /
//!   128), at least 64 KB (1024 PTEGs), at most 32 MB, a power of two.
//! * Primary hash: the low 19 bits of the VSID XOR the 16-bit page index
//!   (`ea[4:19]`, i.e. `(ea >> 12) & 0xFFFF`); its low bits select the
//!   primary PTEG (`hash & (ptegs - 1)`, as `HTABMASK` does). Secondary hash:
//!   the one's complement of the primary, masked the same way.
//! * A walk reads the primary PTEG's PTEs in order up to the match; if none
//!   matches, all 8, then the secondary PTEG's up to the match (16
//!   references for an unmapped page). Each reference is physical, 8 bytes,
//!   [`Tier::User`].
//! * Insertion takes the first free PTE of the primary PTEG, else of the
//!   secondary (setting the H bit). **When both are full it is an error**
//!   ([`TableError::Full`]), not an eviction: an OS that evicts keeps the
//!   mapping elsewhere and reloads it on the fault, and this model has no
//!   such backing structure, so evicting would silently lose a mapping.

use rustc_hash::FxHashMap;
use vmlab_addr::{Asid, Pfn, PhysAddr, VirtAddr, Vpn};

use super::linear::check_pfn20;
use super::segments::SegmentRegisters;
use super::{PageTable, PteAddr, PteRef, TableError, TableMemory, Tier};
use crate::frames::FramePool;

pub const PAGE_BYTES: u64 = 4096;
/// PTE: two 32-bit words (architecture).
pub const PTE_BYTES: u64 = 8;
/// PTEs per PTEG (architecture).
pub const PTES_PER_GROUP: u64 = 8;
pub const PTEG_BYTES: u64 = PTE_BYTES * PTES_PER_GROUP;
/// Smallest and largest HTAB (architecture: HTABMASK 0 to 0x1FF).
pub const MIN_HTAB_BYTES: u64 = 64 << 10;
pub const MAX_HTAB_BYTES: u64 = 32 << 20;
/// Recommended minimum: 64 KB of HTAB per 8 MB of real memory.
pub const MEMORY_PER_HTAB_BYTE: u64 = 128;
/// Effective addresses are 32 bits.
pub const EA_BITS: u32 = 32;

/// How the HTAB is sized.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HtabParams {
    /// Physical frames (4 KB) of the machine; the default size follows it.
    pub phys_frames: u64,
    /// An explicit number of PTEGs (a power of two, at least 2); overrides
    /// the recommended size. Below 1024 is smaller than the architecture
    /// allows, accepted so small cases can be worked by hand.
    pub ptegs: Option<u64>,
}

impl HtabParams {
    pub fn pteg_count(&self) -> Result<u64, TableError> {
        if let Some(n) = self.ptegs {
            if n < 2 || !n.is_power_of_two() || n * PTEG_BYTES > MAX_HTAB_BYTES {
                return Err(TableError::Config(format!(
                    "powerpc: ptegs must be a power of two from 2 to {}, got {n}",
                    MAX_HTAB_BYTES / PTEG_BYTES
                )));
            }
            return Ok(n);
        }
        if self.phys_frames == 0 {
            return Err(TableError::Config("powerpc: phys_frames must be positive (or give ptegs)".into()));
        }
        let want = (self.phys_frames.saturating_mul(PAGE_BYTES) / MEMORY_PER_HTAB_BYTE).max(MIN_HTAB_BYTES);
        let bytes = want.checked_next_power_of_two().unwrap_or(MAX_HTAB_BYTES).min(MAX_HTAB_BYTES);
        Ok(bytes / PTEG_BYTES)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Pte {
    /// Global (52-bit) virtual page number: VSID << 16 | page index.
    gvpn: u64,
    /// The H bit: found through the secondary hash.
    secondary: bool,
    pfn: u64,
}

/// The PowerPC hashed page table.
#[derive(Debug, Clone)]
pub struct HashedPageTable {
    segments: SegmentRegisters,
    htab_pfn: u64,
    ptegs: u64,
    slots: Vec<Option<Pte>>,
    per_vsid: FxHashMap<u32, u64>,
    valid: u64,
}

impl HashedPageTable {
    /// Builds the table, allocating the HTAB's contiguous frames.
    pub fn new(params: &HtabParams, frames: &mut FramePool) -> Result<Self, TableError> {
        let ptegs = params.pteg_count()?;
        if frames.page_bytes() != PAGE_BYTES {
            return Err(TableError::Config(format!(
                "powerpc: needs 4 KB frames, the pool has {} B",
                frames.page_bytes()
            )));
        }
        let htab_pfn = frames.alloc_contiguous((ptegs * PTEG_BYTES).div_ceil(PAGE_BYTES))?.0;
        let len = usize::try_from(ptegs * PTES_PER_GROUP)
            .map_err(|_| TableError::Config("powerpc: table too large".into()))?;
        Ok(Self {
            segments: SegmentRegisters::default(),
            htab_pfn,
            ptegs,
            slots: vec![None; len],
            per_vsid: FxHashMap::default(),
            valid: 0,
        })
    }

    pub fn ptegs(&self) -> u64 {
        self.ptegs
    }

    /// Physical address of the HTAB (HTABORG).
    pub fn htab_base(&self) -> PhysAddr {
        PhysAddr(self.htab_pfn * PAGE_BYTES)
    }

    pub fn segments(&self) -> &SegmentRegisters {
        &self.segments
    }

    /// As [`super::Puma::share_segment`].
    pub fn share_segment(
        &mut self,
        from: Asid,
        from_segment: usize,
        to: Asid,
        to_segment: usize,
    ) -> Result<(), TableError> {
        let per_vsid = &self.per_vsid;
        self.segments
            .share("powerpc", (from, from_segment), (to, to_segment), |v| per_vsid.get(&v).copied().unwrap_or(0) > 0)
    }

    /// Primary and secondary PTEG indices of global page `gvpn`.
    pub fn groups(&self, gvpn: u64) -> (u64, u64) {
        let vsid = gvpn >> 16;
        let hash = (vsid & 0x7FFFF) ^ (gvpn & 0xFFFF);
        (hash & (self.ptegs - 1), !hash & 0x7FFFF & (self.ptegs - 1))
    }

    /// Physical address of PTE `slot` (0..8) of PTEG `group`.
    pub fn pte_addr(&self, group: u64, slot: u64) -> PhysAddr {
        PhysAddr(self.htab_base().0 + group * PTEG_BYTES + slot * PTE_BYTES)
    }

    fn check(space: Asid, vpn: u64) -> Result<(), TableError> {
        SegmentRegisters::check_space(space)?;
        if vpn >= 1 << (EA_BITS - 12) {
            return Err(TableError::OutOfRange { va: VirtAddr(vpn.saturating_mul(PAGE_BYTES)), bits: EA_BITS });
        }
        Ok(())
    }

    /// Scans as the hardware does, calling `visit` with each PTE index read;
    /// returns the index of the match.
    fn scan(&self, gvpn: u64, mut visit: impl FnMut(u64)) -> Option<usize> {
        let (primary, secondary) = self.groups(gvpn);
        for (group, h) in [(primary, false), (secondary, true)] {
            for slot in 0..PTES_PER_GROUP {
                let i = group * PTES_PER_GROUP + slot;
                visit(i);
                if let Some(p) = self.slots[i as usize] {
                    if p.gvpn == gvpn && p.secondary == h {
                        return Some(i as usize);
                    }
                }
            }
        }
        None
    }
}

impl PageTable for HashedPageTable {
    fn name(&self) -> &'static str {
        "powerpc"
    }

    fn page_bytes(&self) -> u64 {
        PAGE_BYTES
    }

    fn insert(&mut self, space: Asid, vpn: Vpn, pfn: Pfn, _frames: &mut FramePool) -> Result<(), TableError> {
        let (vpn, pfn) = (vpn.0, pfn.0);
        Self::check(space, vpn)?;
        check_pfn20(pfn)?;
        let gvpn = self.segments.global_vpn(space, Vpn(vpn)).0;
        if let Some(i) = self.scan(gvpn, |_| {}) {
            if let Some(p) = self.slots[i].as_mut() {
                p.pfn = pfn;
            }
            return Ok(());
        }
        let (primary, secondary) = self.groups(gvpn);
        for (group, h) in [(primary, false), (secondary, true)] {
            let first = (group * PTES_PER_GROUP) as usize;
            if let Some(k) = (first..first + PTES_PER_GROUP as usize).find(|&k| self.slots[k].is_none()) {
                self.slots[k] = Some(Pte { gvpn, secondary: h, pfn });
                self.valid += 1;
                *self.per_vsid.entry((gvpn >> 16) as u32).or_default() += 1;
                return Ok(());
            }
        }
        Err(TableError::Full { space, vpn: Vpn(vpn), what: "primary and secondary PTEGs" })
    }

    fn remove(&mut self, space: Asid, vpn: Vpn, _frames: &mut FramePool) -> Result<(), TableError> {
        let vpn = vpn.0;
        Self::check(space, vpn)?;
        let gvpn = self.segments.global_vpn(space, Vpn(vpn)).0;
        let i = self.scan(gvpn, |_| {}).ok_or(TableError::NotMapped { space, vpn: Vpn(vpn) })?;
        self.slots[i] = None;
        self.valid -= 1;
        if let Some(n) = self.per_vsid.get_mut(&((gvpn >> 16) as u32)) {
            *n -= 1;
        }
        Ok(())
    }

    fn lookup(&self, space: Asid, vpn: Vpn) -> Option<Pfn> {
        let vpn = vpn.0;
        Self::check(space, vpn).ok()?;
        let i = self.scan(self.segments.global_vpn(space, Vpn(vpn)).0, |_| {})?;
        self.slots[i].map(|p| Pfn(p.pfn))
    }

    fn walk(&self, space: Asid, va: VirtAddr, out: &mut Vec<PteRef>) -> Result<(), TableError> {
        let va = va.0;
        SegmentRegisters::check_space(space)?;
        if va >> EA_BITS != 0 {
            return Err(TableError::OutOfRange { va: VirtAddr(va), bits: EA_BITS });
        }
        let base = self.htab_base().0;
        self.scan(self.segments.global_vpn(space, Vpn(va / PAGE_BYTES)).0, |i| {
            out.push(PteRef {
                at: PteAddr::Physical(PhysAddr(base + i * PTE_BYTES)),
                tier: Tier::User,
                bytes: PTE_BYTES as u32,
            });
        });
        Ok(())
    }

    fn memory(&self) -> TableMemory {
        let bytes = (self.ptegs * PTEG_BYTES).div_ceil(PAGE_BYTES) * PAGE_BYTES;
        TableMemory { bytes, useful_bytes: self.valid * PTE_BYTES, parts: vec![("hashed page table".into(), bytes)] }
    }

    fn pte_at(&self, pa: PhysAddr) -> Option<Pfn> {
        let pa = pa.0;
        let base = self.htab_base().0;
        if pa < base || pa >= base + self.ptegs * PTEG_BYTES {
            return None;
        }
        self.slots[((pa - base) / PTE_BYTES) as usize].map(|p| Pfn(p.pfn))
    }
}
