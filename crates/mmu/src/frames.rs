//! Simulated physical memory as a pool of page frames.
//!
//! Page-table pages and (in the OS model) data pages come from here, so a
//! table's memory is real frames with real physical addresses that the caches
//! see. Allocation is deterministic: lowest free frame first.

use std::collections::BTreeSet;

use thiserror::Error;

#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum FrameError {
    #[error("out of physical memory: all {frames} frames of {page_bytes} bytes are in use")]
    Exhausted { frames: u64, page_bytes: u64 },
    #[error("frame {0:#x} was freed but is not allocated")]
    NotAllocated(u64),
}

/// A pool of `frames` physical frames of `page_bytes` each, starting at
/// physical frame `first`.
#[derive(Debug, Clone)]
pub struct FramePool {
    page_bytes: u64,
    first: u64,
    frames: u64,
    /// Frames never handed out are `next..first+frames`; freed ones are kept
    /// sorted so reuse is lowest-first and deterministic.
    next: u64,
    freed: BTreeSet<u64>,
    in_use: u64,
    peak: u64,
}

impl FramePool {
    pub fn new(page_bytes: u64, first: u64, frames: u64) -> Self {
        Self { page_bytes, first, frames, next: first, freed: BTreeSet::new(), in_use: 0, peak: 0 }
    }

    pub fn page_bytes(&self) -> u64 {
        self.page_bytes
    }

    /// Allocates one frame; returns its frame number.
    pub fn alloc(&mut self) -> Result<u64, FrameError> {
        let pfn = if let Some(p) = self.freed.pop_first() {
            p
        } else if self.next < self.first + self.frames {
            self.next += 1;
            self.next - 1
        } else {
            return Err(FrameError::Exhausted { frames: self.frames, page_bytes: self.page_bytes });
        };
        self.in_use += 1;
        self.peak = self.peak.max(self.in_use);
        Ok(pfn)
    }

    /// Allocates `n` physically contiguous frames (for tables larger than a
    /// page, such as a hashed page table); returns the first frame number.
    /// Contiguous runs come only from never-used frames.
    pub fn alloc_contiguous(&mut self, n: u64) -> Result<u64, FrameError> {
        if self.next + n > self.first + self.frames {
            return Err(FrameError::Exhausted { frames: self.frames, page_bytes: self.page_bytes });
        }
        let pfn = self.next;
        self.next += n;
        self.in_use += n;
        self.peak = self.peak.max(self.in_use);
        Ok(pfn)
    }

    pub fn free(&mut self, pfn: u64) -> Result<(), FrameError> {
        if pfn < self.first || pfn >= self.next || self.freed.contains(&pfn) {
            return Err(FrameError::NotAllocated(pfn));
        }
        self.freed.insert(pfn);
        self.in_use -= 1;
        Ok(())
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
        assert_eq!(p.alloc(), Ok(10));
        assert_eq!(p.alloc(), Ok(11));
        p.free(10).unwrap();
        assert_eq!(p.alloc(), Ok(10));
        assert_eq!(p.alloc(), Ok(12));
        assert!(matches!(p.alloc(), Err(FrameError::Exhausted { .. })));
        assert_eq!(p.free(99), Err(FrameError::NotAllocated(99)));
        assert_eq!(p.peak(), 3);
    }
}
