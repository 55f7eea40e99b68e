//! Physical memory for data pages: frames, a free pool, colours and
//! reference counts. Allocation is deterministic (lowest free frame of the
//! wanted colour first). Page-table memory is a separate
//! `vmlab_mmu::FramePool` above the data frames (see `pte.rs`).

use std::collections::BTreeSet;

use rustc_hash::FxHashMap;

#[derive(Debug, Clone)]
pub struct PhysMem {
    page: u64,
    frames: u64,
    colours: u64,
    free: BTreeSet<u64>,
    refs: FxHashMap<u64, u32>,
}

impl PhysMem {
    /// `frames` frames of `page` bytes; `colours` >= 1 page colours (frames
    /// `f` and `g` share a colour when `f % colours == g % colours`).
    pub fn new(page: u64, frames: u64, colours: u64) -> Self {
        Self { page, frames, colours: colours.max(1), free: (0..frames).collect(), refs: FxHashMap::default() }
    }

    pub fn page_bytes(&self) -> u64 {
        self.page
    }
    pub fn frames(&self) -> u64 {
        self.frames
    }
    pub fn colours(&self) -> u64 {
        self.colours
    }
    pub fn colour_of(&self, pfn: u64) -> u64 {
        pfn % self.colours
    }

    /// A free frame, of `colour` when given and one is free (else any),
    /// with one reference.
    pub fn alloc(&mut self, colour: Option<u64>) -> Result<u64, String> {
        let pick = colour
            .and_then(|c| self.free.iter().copied().find(|&f| f % self.colours == c % self.colours))
            .or_else(|| self.free.first().copied());
        let pfn = pick.ok_or_else(|| format!("out of physical memory: all {} frames are in use", self.frames))?;
        self.free.remove(&pfn);
        self.refs.insert(pfn, 1);
        Ok(pfn)
    }

    pub fn incref(&mut self, pfn: u64) {
        *self.refs.entry(pfn).or_insert(0) += 1;
    }

    /// Drops one reference; true when it was the last (the caller then
    /// destroys the page and calls [`PhysMem::free`]).
    pub fn decref(&mut self, pfn: u64) -> bool {
        match self.refs.get_mut(&pfn) {
            Some(n) if *n > 1 => {
                *n -= 1;
                false
            }
            _ => true,
        }
    }

    pub fn refs(&self, pfn: u64) -> u32 {
        self.refs.get(&pfn).copied().unwrap_or(0)
    }

    pub fn free(&mut self, pfn: u64) {
        self.refs.remove(&pfn);
        if pfn < self.frames {
            self.free.insert(pfn);
        }
    }

    pub fn in_use(&self) -> u64 {
        self.frames - self.free.len() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coloured_allocation_and_refcounts() {
        let mut m = PhysMem::new(4096, 8, 4);
        assert_eq!(m.alloc(Some(3)), Ok(3));
        assert_eq!(m.alloc(Some(3)), Ok(7));
        assert_eq!(m.alloc(Some(3)), Ok(0)); // no colour-3 frame left: any
        m.incref(3);
        assert!(!m.decref(3));
        assert!(m.decref(3));
        m.free(3);
        assert_eq!(m.alloc(None), Ok(1));
        assert_eq!(m.in_use(), 3);
    }
}
