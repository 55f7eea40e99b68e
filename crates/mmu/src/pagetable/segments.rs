//! PowerPC-style segmentation shared by the PUMA and PowerPC tables (seed
//! 002, section 3.2 and Fig. 2): the top 4 bits of a 32-bit effective
//! address select one of 16 segment registers, each holding a 24-bit
//! virtual segment id (VSID); the VSID replaces those 4 bits, giving a
//! 52-bit global virtual address. Two spaces share memory by holding the
//! same VSID, so shared data has one global address (no synonyms).

use rustc_hash::FxHashMap;

use vmlab_addr::{Asid, Vpn};

use super::TableError;

/// Segment registers per space.
pub const SEGMENTS: usize = 16;
/// Bits of a VSID.
pub const VSID_BITS: u32 = 24;
/// Bytes per segment (256 MB).
pub const SEGMENT_BYTES: u64 = 1 << 28;
/// With the default VSID `space * 16 + segment`, the spaces whose VSIDs fit
/// in 24 bits.
pub const MAX_SPACES: u32 = 1 << (VSID_BITS - 4);

/// The segment registers of every space; a space's default VSIDs are
/// `space * 16 + segment`, so distinct spaces never share by accident.
#[derive(Debug, Clone, Default)]
pub struct SegmentRegisters {
    overrides: FxHashMap<Asid, [u32; SEGMENTS]>,
}

impl SegmentRegisters {
    pub fn check_space(space: Asid) -> Result<(), TableError> {
        if space.0 >= MAX_SPACES {
            return Err(TableError::SpaceOutOfRange { space, max_spaces: MAX_SPACES });
        }
        Ok(())
    }

    /// The VSID in segment register `segment` (0..16) of `space`.
    pub fn vsid(&self, space: Asid, segment: usize) -> u32 {
        match self.overrides.get(&space) {
            Some(regs) => regs[segment % SEGMENTS],
            None => space.0 * SEGMENTS as u32 + (segment % SEGMENTS) as u32,
        }
    }

    /// Loads `vsid` into segment register `segment` of `space`.
    pub fn set(&mut self, space: Asid, segment: usize, vsid: u32) -> Result<(), TableError> {
        Self::check_space(space)?;
        if segment >= SEGMENTS || vsid >= 1 << VSID_BITS {
            return Err(TableError::Config(format!(
                "segment register {segment} (of {SEGMENTS}) with VSID {vsid:#x} (of {VSID_BITS} bits)"
            )));
        }
        let regs = self
            .overrides
            .entry(space)
            .or_insert_with(|| std::array::from_fn(|i| space.0 * SEGMENTS as u32 + i as u32));
        regs[segment] = vsid;
        Ok(())
    }

    /// Makes segment `to_segment` of space `to` share segment `from_segment`
    /// of space `from` (loads the same VSID). `maps_pages(vsid)` says whether
    /// a table still holds pages under a VSID: the target segment's own
    /// pages would be orphaned, so that is an error naming `table`.
    pub fn share(
        &mut self,
        table: &str,
        (from, from_segment): (Asid, usize),
        (to, to_segment): (Asid, usize),
        maps_pages: impl Fn(u32) -> bool,
    ) -> Result<(), TableError> {
        Self::check_space(from)?;
        Self::check_space(to)?;
        if from_segment >= SEGMENTS || to_segment >= SEGMENTS {
            return Err(TableError::Config(format!("segment {from_segment} or {to_segment} is not one of {SEGMENTS}")));
        }
        let vsid = self.vsid(from, from_segment);
        let old = self.vsid(to, to_segment);
        if old != vsid && maps_pages(old) {
            return Err(TableError::Config(format!(
                "{table}: segment {to_segment} of space {to} still maps pages; remove them before sharing"
            )));
        }
        self.set(to, to_segment, vsid)
    }

    /// The 52-bit global virtual page number of effective page `vpn`
    /// (`ea >> 12`) of `space`: `vsid << 16 | page index`, a page of the
    /// one global virtual space every segment maps into.
    pub fn global_vpn(&self, space: Asid, vpn: Vpn) -> Vpn {
        let segment = (vpn.0 >> 16) as usize & (SEGMENTS - 1);
        Vpn(u64::from(self.vsid(space, segment)) << 16 | (vpn.0 & 0xFFFF))
    }

    /// The lowest segment of `space` among `segments` holding `vsid`.
    pub fn segment_of(&self, space: Asid, vsid: u32, segments: std::ops::Range<usize>) -> Option<usize> {
        segments.into_iter().find(|&s| self.vsid(space, s) == vsid)
    }
}
