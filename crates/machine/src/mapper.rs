//! The page mapper that stands in for an MMU until the translation layer
//! exists: every (address space, virtual page) gets a frame on first touch.
//! It makes physical addresses real for PIPT/VIPT caches, and `share` makes a
//! synonym (two virtual pages, one frame) really occur.

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use vmlab_addr::{Asid, PageSize, Pfn, PhysAddr, VirtAddr, Vpn};

/// How the next frame is chosen on first touch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FrameAllocation {
    /// Frames 0, 1, 2, ... in order of first touch.
    Sequential,
    /// A seeded random permutation of all frames (no frame twice).
    Random,
    /// The frame has the same colour (frame number mod `colours`) as the page,
    /// as page-colouring operating systems arrange.
    ColourPreserving,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum MapError {
    #[error("physical memory exhausted: all {frames} frames of {page} bytes are in use (raise memory.size)")]
    Exhausted { frames: u64, page: u64 },
    #[error("physical memory exhausted for colour {colour}: its {per_colour} frames are in use (raise memory.size)")]
    ColourExhausted { colour: u64, per_colour: u64 },
}

/// Entries of the translation memo (24 KB). With 64, the first 5 M
/// references of cc1 missed the memo 35,546 times on the 32K/1M machine
/// and 20,973 on jm-base (4 KB pages), each a hash lookup of ~75
/// instructions; with 1,024 entries 2,460 and 2,304 remain (about the
/// pages first touched), and 4,096 save nothing more.
const MEMO: usize = 1024;
const NO_PAGE: (Asid, Vpn, Pfn) = (Asid(u32::MAX), Vpn(u64::MAX), Pfn(0));

#[derive(Debug)]
pub struct PageMapper {
    page: PageSize,
    frames: u64,
    allocation: FrameAllocation,
    colours: u64,
    handed_out: u64,
    next_by_colour: Vec<u64>,
    permutation: FramePermutation,
    table: FxHashMap<(Asid, Vpn), Pfn>,
    /// Recent translations, direct-mapped by page number: most references
    /// reuse a page, and instruction and data pages interleave.
    memo: Box<[(Asid, Vpn, Pfn); MEMO]>,
    /// Names this mapper's translations as they stand (`generation`).
    generation: u64,
}

/// The next `PageMapper::generation`, unique in the process.
static NEXT_GENERATION: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

fn next_generation() -> u64 {
    NEXT_GENERATION.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

impl PageMapper {
    pub fn new(page: PageSize, frames: u64, allocation: FrameAllocation, colours: u64, seed: u64) -> Self {
        let colours = colours.max(1);
        Self {
            page,
            frames,
            allocation,
            colours,
            handed_out: 0,
            next_by_colour: vec![0; colours as usize],
            permutation: FramePermutation::new(frames, seed),
            table: FxHashMap::default(),
            memo: Box::new([NO_PAGE; MEMO]),
            generation: next_generation(),
        }
    }

    /// A number that stays the same exactly while no page already mapped
    /// changes frame (first touches add pages, `share` may remap one), and
    /// differs between mappers: what a memo of translations kept across
    /// calls (the associative run loop's frame memo) checks.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    pub fn page_size(&self) -> PageSize {
        self.page
    }

    /// Pages mapped so far, over all address spaces.
    pub fn pages_mapped(&self) -> u64 {
        self.table.len() as u64
    }

    /// The pages of `asid` mapped in `[first, last]` and their frames, in
    /// page order: each page of a short range looked up, or for a range of
    /// more pages than are mapped (a whole address space), one pass over
    /// the table.
    pub fn pages_in(&self, asid: Asid, first: Vpn, last: Vpn) -> Vec<(Vpn, Pfn)> {
        if last.0 - first.0 < self.pages_mapped() {
            return (first.0..=last.0).filter_map(|v| self.frame_of(asid, Vpn(v)).map(|p| (Vpn(v), p))).collect();
        }
        let mut out: Vec<(Vpn, Pfn)> = self
            .table
            .iter()
            .filter(|((a, v), _)| *a == asid && (first..=last).contains(v))
            .map(|(&(_, v), &p)| (v, p))
            .collect();
        out.sort_unstable();
        out
    }

    pub fn frame_of(&self, asid: Asid, vpn: Vpn) -> Option<Pfn> {
        self.table.get(&(asid, vpn)).copied()
    }

    fn allocate(&mut self, vpn: Vpn) -> Result<Pfn, MapError> {
        let exhausted = MapError::Exhausted { frames: self.frames, page: self.page.bytes() };
        match self.allocation {
            FrameAllocation::Sequential | FrameAllocation::Random => {
                if self.handed_out >= self.frames {
                    return Err(exhausted);
                }
                let n = self.handed_out;
                self.handed_out += 1;
                Ok(Pfn(match self.allocation {
                    FrameAllocation::Random => self.permutation.apply(n),
                    _ => n,
                }))
            }
            FrameAllocation::ColourPreserving => {
                let colour = vpn.0 % self.colours;
                let k = self.next_by_colour[colour as usize];
                let pfn = colour + k * self.colours;
                if pfn >= self.frames {
                    return Err(MapError::ColourExhausted { colour, per_colour: self.frames / self.colours });
                }
                self.next_by_colour[colour as usize] += 1;
                self.handed_out += 1;
                Ok(Pfn(pfn))
            }
        }
    }

    /// The frame of `vpn` in `asid`, allocating one on first touch.
    #[inline(always)]
    pub fn frame(&mut self, asid: Asid, vpn: Vpn) -> Result<Pfn, MapError> {
        let m = (vpn.0 as usize ^ asid.0 as usize) % MEMO;
        let (a, v, p) = self.memo[m];
        if a == asid && v == vpn {
            return Ok(p);
        }
        self.frame_unmemoised(asid, vpn, m)
    }

    /// `frame` past the memo: the table, allocating on first touch.
    #[inline(never)]
    fn frame_unmemoised(&mut self, asid: Asid, vpn: Vpn, m: usize) -> Result<Pfn, MapError> {
        let pfn = match self.table.get(&(asid, vpn)) {
            Some(&p) => p,
            None => {
                let p = self.allocate(vpn)?;
                self.table.insert((asid, vpn), p);
                p
            }
        };
        self.memo[m] = (asid, vpn, pfn);
        Ok(pfn)
    }

    #[inline(always)]
    pub fn translate(&mut self, asid: Asid, va: VirtAddr) -> Result<PhysAddr, MapError> {
        self.translate_in(self.page, asid, va)
    }

    /// `translate` with the mapper's page size as the caller holds it
    /// (`page_size`, read once for a run): a miss path then need not load
    /// it from the mapper each time.
    #[inline(always)]
    pub(crate) fn translate_in(&mut self, page: PageSize, asid: Asid, va: VirtAddr) -> Result<PhysAddr, MapError> {
        let pfn = self.frame(asid, page.vpn(va))?;
        Ok(page.translate(va, pfn))
    }

    /// Maps page `alias` of `alias_asid` onto the frame of page `owner` of
    /// `owner_asid` (allocating that frame if needed): a synonym.
    pub fn share(&mut self, owner_asid: Asid, owner: Vpn, alias_asid: Asid, alias: Vpn) -> Result<Pfn, MapError> {
        let pfn = self.frame(owner_asid, owner)?;
        self.table.insert((alias_asid, alias), pfn);
        self.memo.fill(NO_PAGE);
        self.generation = next_generation();
        Ok(pfn)
    }
}

/// A seeded bijection on [0, n): a 4-round Feistel network on the next even
/// power of two, cycle-walked back into range. O(1) memory however large n is.
#[derive(Debug)]
struct FramePermutation {
    n: u64,
    half_bits: u32,
    keys: [u64; 4],
}

impl FramePermutation {
    fn new(n: u64, seed: u64) -> Self {
        let bits = 64 - n.saturating_sub(1).leading_zeros();
        let half_bits = bits.div_ceil(2).max(1);
        let mut s = seed;
        let mut keys = [0u64; 4];
        for k in &mut keys {
            s = splitmix64(s);
            *k = s;
        }
        Self { n, half_bits, keys }
    }

    fn round(&self, x: u64) -> u64 {
        let mask = (1u64 << self.half_bits) - 1;
        let (mut l, mut r) = (x >> self.half_bits, x & mask);
        for k in self.keys {
            let f = splitmix64(r ^ k) & mask;
            (l, r) = (r, l ^ f);
        }
        (l << self.half_bits) | r
    }

    fn apply(&self, i: u64) -> u64 {
        let mut x = i;
        loop {
            x = self.round(x);
            if x < self.n {
                return x;
            }
        }
    }
}

fn splitmix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page() -> PageSize {
        PageSize::new(4096).expect("4K page")
    }

    #[test]
    fn sequential_first_touch() {
        let mut m = PageMapper::new(page(), 16, FrameAllocation::Sequential, 1, 1);
        assert_eq!(m.translate(Asid(0), VirtAddr(0x5123)), Ok(PhysAddr(0x0123)));
        assert_eq!(m.translate(Asid(1), VirtAddr(0x5123)), Ok(PhysAddr(0x1123)));
        assert_eq!(m.translate(Asid(0), VirtAddr(0x5fff)), Ok(PhysAddr(0x0fff)));
        assert_eq!(m.pages_mapped(), 2);
    }

    #[test]
    fn random_is_a_permutation() {
        let mut m = PageMapper::new(page(), 1000, FrameAllocation::Random, 1, 7);
        let mut seen = std::collections::HashSet::new();
        for v in 0..1000 {
            let p = m.frame(Asid(0), Vpn(v)).expect("frames left");
            assert!(p.0 < 1000);
            assert!(seen.insert(p));
        }
        assert_eq!(m.frame(Asid(0), Vpn(1000)), Err(MapError::Exhausted { frames: 1000, page: 4096 }));
    }

    #[test]
    fn colour_preserving_keeps_colour() {
        let mut m = PageMapper::new(page(), 64, FrameAllocation::ColourPreserving, 4, 1);
        for v in [3u64, 7, 9, 2, 11] {
            let p = m.frame(Asid(0), Vpn(v)).expect("frames left");
            assert_eq!(p.0 % 4, v % 4);
        }
    }

    #[test]
    fn share_makes_a_synonym() {
        let mut m = PageMapper::new(page(), 16, FrameAllocation::Sequential, 1, 1);
        let a = m.share(Asid(0), Vpn(1), Asid(0), Vpn(9)).expect("frames left");
        assert_eq!(m.frame(Asid(0), Vpn(1)), Ok(a));
        assert_eq!(m.frame(Asid(0), Vpn(9)), Ok(a));
    }
}
