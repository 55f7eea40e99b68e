//! Simulated physical memory as a pool of page frames: the one frames type
//! of the workspace (issue 24).
//!
//! Page-table pages (every scheme's tables, the OS model's hashed table)
//! and the OS model's data pages come from here, so a table's memory is
//! real frames with real physical addresses that the caches see.
//! Allocation is deterministic: the lowest free frame first, or with a
//! colour asked for (`alloc_coloured`), the lowest free frame of that
//! colour. A frame shared by several mappings carries a reference count
//! (`share`, `unshare`). The trace replayer's first-touch `PageMapper`
//! (vmlab-machine) is a page table with a placement policy (sequential,
//! random, colour-preserving) that never frees, not a pool.

use std::collections::BTreeSet;

use rustc_hash::FxHashMap;
use thiserror::Error;
use vmlab_addr::Pfn;

#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum FrameError {
    #[error("out of physical memory: all {frames} frames of {page_bytes} bytes are in use")]
    Exhausted { frames: u64, page_bytes: u64 },
    #[error("frame {0:#x} was freed but is not allocated")]
    NotAllocated(Pfn),
}

/// A pool of `frames` physical frames of `page_bytes` each, starting at
/// physical frame `first`. Frames `f` and `g` share a colour when
/// `f % colours == g % colours` (physical frame numbers: the colour a
/// physically indexed cache sees).
#[derive(Debug, Clone)]
pub struct FramePool {
    page_bytes: u64,
    first: u64,
    frames: u64,
    colours: u64,
    /// Frames never handed out are `next..first+frames`; freed ones are kept
    /// sorted so reuse is lowest-first and deterministic.
    next: u64,
    freed: BTreeSet<u64>,
    in_use: u64,
    peak: u64,
    /// References to frames shared by more than one mapping, beyond the
    /// first: a frame allocated and not shared has none here.
    shares: FxHashMap<u64, u32>,
}

impl FramePool {
    pub fn new(page_bytes: u64, first: u64, frames: u64) -> Self {
        Self {
            page_bytes,
            first,
            frames,
            colours: 1,
            next: first,
            freed: BTreeSet::new(),
            in_use: 0,
            peak: 0,
            shares: FxHashMap::default(),
        }
    }

    /// The same pool with `colours` >= 1 page colours (`alloc_coloured`).
    pub fn with_colours(mut self, colours: u64) -> Self {
        self.colours = colours.max(1);
        self
    }

    pub fn page_bytes(&self) -> u64 {
        self.page_bytes
    }

    pub fn colours(&self) -> u64 {
        self.colours
    }

    pub fn colour_of(&self, pfn: Pfn) -> u64 {
        pfn.0 % self.colours
    }

    /// Allocates one frame, the lowest free; returns its frame number.
    pub fn alloc(&mut self) -> Result<Pfn, FrameError> {
        let pfn = if let Some(p) = self.freed.pop_first() {
            p
        } else if self.next < self.first + self.frames {
            self.next += 1;
            self.next - 1
        } else {
            return Err(self.exhausted());
        };
        self.taken(1);
        Ok(Pfn(pfn))
    }

    /// Allocates the lowest free frame of `colour` when one is free, else
    /// the lowest free frame (an OS that colours pages prefers, but does
    /// not insist on, the colour).
    pub fn alloc_coloured(&mut self, colour: Option<u64>) -> Result<Pfn, FrameError> {
        let Some(c) = colour.map(|c| c % self.colours) else { return self.alloc() };
        let freed = self.freed.iter().copied().find(|&f| f % self.colours == c);
        // The lowest never-used frame of colour `c`.
        let fresh = self.next + (c + self.colours - self.next % self.colours) % self.colours;
        let fresh = (fresh < self.first + self.frames).then_some(fresh);
        let pfn = match (freed, fresh) {
            (Some(f), Some(n)) => f.min(n),
            (Some(f), None) => f,
            (None, Some(n)) => n,
            (None, None) => return self.alloc(),
        };
        if pfn >= self.next {
            // Frames skipped over become free ones, so lowest-first still holds.
            self.freed.extend(self.next..pfn);
            self.next = pfn + 1;
        } else {
            self.freed.remove(&pfn);
        }
        self.taken(1);
        Ok(Pfn(pfn))
    }

    /// Allocates `n` physically contiguous frames (for tables larger than a
    /// page, such as a hashed page table); returns the first frame number.
    /// Contiguous runs come only from never-used frames.
    pub fn alloc_contiguous(&mut self, n: u64) -> Result<Pfn, FrameError> {
        if self.next + n > self.first + self.frames {
            return Err(self.exhausted());
        }
        let pfn = self.next;
        self.next += n;
        self.taken(n);
        Ok(Pfn(pfn))
    }

    fn taken(&mut self, n: u64) {
        self.in_use += n;
        self.peak = self.peak.max(self.in_use);
    }

    fn exhausted(&self) -> FrameError {
        FrameError::Exhausted { frames: self.frames, page_bytes: self.page_bytes }
    }

    /// Whether `pfn` is handed out.
    pub fn allocated(&self, pfn: Pfn) -> bool {
        pfn.0 >= self.first && pfn.0 < self.next && !self.freed.contains(&pfn.0)
    }

    pub fn free(&mut self, pfn: Pfn) -> Result<(), FrameError> {
        if !self.allocated(pfn) {
            return Err(FrameError::NotAllocated(pfn));
        }
        self.shares.remove(&pfn.0);
        self.freed.insert(pfn.0);
        self.in_use -= 1;
        Ok(())
    }

    /// One more mapping of allocated frame `pfn`.
    pub fn share(&mut self, pfn: Pfn) {
        *self.shares.entry(pfn.0).or_insert(0) += 1;
    }

    /// Drops one mapping of `pfn`; true when it was the last (the caller
    /// then destroys the page and frees the frame).
    pub fn unshare(&mut self, pfn: Pfn) -> bool {
        match self.shares.get_mut(&pfn.0) {
            Some(n) if *n > 1 => {
                *n -= 1;
                false
            }
            Some(_) => {
                self.shares.remove(&pfn.0);
                false
            }
            None => true,
        }
    }

    /// Mappings of `pfn`: 0 for a free frame, 1 for an allocated frame not
    /// shared.
    pub fn refs(&self, pfn: Pfn) -> u32 {
        if !self.allocated(pfn) {
            return 0;
        }
        1 + self.shares.get(&pfn.0).copied().unwrap_or(0)
    }

    /// Frames the pool manages in all.
    pub fn capacity(&self) -> u64 {
        self.frames
    }

    pub fn in_use(&self) -> u64 {
        self.in_use
    }

    pub fn peak(&self) -> u64 {
        self.peak
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn lowest_free_frame_first_and_exhaustion_is_an_error() {
        let mut p = FramePool::new(4096, 10, 3);
        assert_eq!(p.alloc(), Ok(Pfn(10)));
        assert_eq!(p.alloc(), Ok(Pfn(11)));
        p.free(Pfn(10)).unwrap();
        assert_eq!(p.alloc(), Ok(Pfn(10)));
        assert_eq!(p.alloc(), Ok(Pfn(12)));
        assert!(matches!(p.alloc(), Err(FrameError::Exhausted { .. })));
        assert_eq!(p.free(Pfn(99)), Err(FrameError::NotAllocated(Pfn(99))));
        assert_eq!(p.peak(), 3);
    }

    #[test]
    fn coloured_allocation_and_shared_frames() {
        let mut m = FramePool::new(4096, 0, 8).with_colours(4);
        assert_eq!(m.alloc_coloured(Some(3)), Ok(Pfn(3)));
        assert_eq!(m.alloc_coloured(Some(3)), Ok(Pfn(7)));
        assert_eq!(m.alloc_coloured(Some(3)), Ok(Pfn(0))); // no colour-3 frame left: any
        m.share(Pfn(3));
        assert_eq!(m.refs(Pfn(3)), 2);
        assert!(!m.unshare(Pfn(3)));
        assert!(m.unshare(Pfn(3)));
        m.free(Pfn(3)).unwrap();
        assert_eq!(m.refs(Pfn(3)), 0);
        assert_eq!(m.alloc_coloured(None), Ok(Pfn(1)));
        assert_eq!(m.in_use(), 3);
    }

    /// The free set written out whole (what the OS model's pool was until
    /// it became this type): lowest free frame of the colour, else lowest.
    struct Naive {
        colours: u64,
        free: BTreeSet<u64>,
    }

    impl Naive {
        fn alloc(&mut self, colour: Option<u64>) -> Option<u64> {
            let pick = colour
                .and_then(|c| self.free.iter().copied().find(|&f| f % self.colours == c % self.colours))
                .or_else(|| self.free.first().copied())?;
            self.free.remove(&pick);
            Some(pick)
        }
    }

    proptest::proptest! {
        /// Allocations (coloured or not) and frees agree with `Naive`
        /// frame for frame, and exhaustion happens at the same step.
        #[test]
        fn coloured_allocation_equals_the_whole_free_set(
            first in 0u64..5,
            frames in 1u64..40,
            colours in 1u64..6,
            ops in proptest::collection::vec((0u8..3, 0u64..8), 1..120),
        ) {
            let mut pool = FramePool::new(4096, first, frames).with_colours(colours);
            let mut naive = Naive { colours, free: (first..first + frames).collect() };
            let mut held: Vec<u64> = Vec::new();
            for (op, arg) in ops {
                match op {
                    0 | 1 => {
                        let colour = (op == 0).then_some(arg);
                        let got = pool.alloc_coloured(colour).ok().map(|p| p.0);
                        proptest::prop_assert_eq!(got, naive.alloc(colour));
                        held.extend(got);
                    }
                    _ if !held.is_empty() => {
                        let pfn = held.swap_remove(arg as usize % held.len());
                        proptest::prop_assert_eq!(pool.free(Pfn(pfn)), Ok(()));
                        naive.free.insert(pfn);
                    }
                    _ => {}
                }
                proptest::prop_assert_eq!(pool.in_use(), frames - naive.free.len() as u64);
            }
        }
    }
}
