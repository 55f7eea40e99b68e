//! `NumberSet`: the set of (address space, number) pairs a footprint is made
//! of: lines a cache has ever missed on, lines or pages a trace touched.
//!
//! It grows with the distinct numbers, not with the trace, and must stay
//! small for real programs, whose footprints are dense runs of lines: a hash
//! set of pairs took about 90 bytes a line (a 16 M-line footprint, 1.5 GB).
//! Each address space keeps a compressed bitmap (`roaring`), about a bit a
//! number for dense runs and a few bytes for scattered ones.

use roaring::RoaringTreemap;
use rustc_hash::FxHashMap;

use crate::Asid;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct NumberSet {
    spaces: FxHashMap<Asid, RoaringTreemap>,
}

impl NumberSet {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `(space, n)`; true if it was not there.
    pub fn insert(&mut self, space: Asid, n: u64) -> bool {
        self.spaces.entry(space).or_default().insert(n)
    }

    /// Adds every pair of `pairs` (which it sorts and leaves empty). Sorted,
    /// neighbours land in the same bitmap container one after another, which
    /// is what makes a scan of a trace's lines as fast as with a hash set.
    pub fn insert_all(&mut self, pairs: &mut Vec<(Asid, u64)>) {
        pairs.sort_unstable();
        pairs.dedup();
        for chunk in pairs.chunk_by(|a, b| a.0 == b.0) {
            self.spaces.entry(chunk[0].0).or_default().extend(chunk.iter().map(|p| p.1));
        }
        pairs.clear();
    }

    pub fn contains(&self, space: Asid, n: u64) -> bool {
        self.spaces.get(&space).is_some_and(|s| s.contains(n))
    }

    /// Distinct pairs.
    pub fn len(&self) -> u64 {
        self.spaces.values().map(RoaringTreemap::len).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.spaces.values().all(RoaringTreemap::is_empty)
    }

    /// Distinct pairs in either set.
    pub fn union_len(&self, other: &Self) -> u64 {
        let only_other: u64 =
            other.spaces.iter().filter(|(k, _)| !self.spaces.contains_key(k)).map(|(_, s)| s.len()).sum();
        self.spaces.iter().map(|(k, s)| other.spaces.get(k).map_or(s.len(), |o| s.union_len(o))).sum::<u64>()
            + only_other
    }

    /// The set of `(space, n >> shift)`: lines to pages, pages to regions.
    pub fn coarsened(&self, shift: u32) -> Self {
        let spaces = self
            .spaces
            .iter()
            .map(|(&k, s)| {
                let mut out = RoaringTreemap::new();
                let mut last = None;
                for n in s.iter() {
                    let c = n.checked_shr(shift).unwrap_or(0);
                    // Sorted input: consecutive numbers mostly share a coarse one.
                    if last != Some(c) {
                        out.insert(c);
                        last = Some(c);
                    }
                }
                (k, out)
            })
            .collect();
        Self { spaces }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn counts_pairs_per_space() {
        let mut s = NumberSet::new();
        assert!(s.is_empty());
        assert!(s.insert(Asid(0), 5));
        assert!(!s.insert(Asid(0), 5));
        assert!(s.insert(Asid(1), 5));
        assert!(s.insert(Asid(0), u64::MAX));
        assert_eq!(s.len(), 3);
        assert!(s.contains(Asid(1), 5) && !s.contains(Asid(2), 5));
        let mut t = NumberSet::new();
        t.insert(Asid(1), 5);
        t.insert(Asid(2), 7);
        t.insert(Asid(0), 6);
        // {(0,5), (0,max), (1,5)} | {(1,5), (2,7), (0,6)}: 5 pairs.
        assert_eq!(s.union_len(&t), 5);
        assert_eq!(t.union_len(&s), 5);
        // Space 0 holds 5, 6 and max: 5 >> 4 = 6 >> 4 = 0, max >> 4 = 2^60 - 1;
        // space 1 holds 5 -> 0. Three pairs.
        let mut u = s.clone();
        u.insert(Asid(0), 6);
        let c = u.coarsened(4);
        assert_eq!(c.len(), 3);
        assert!(c.contains(Asid(0), (u64::MAX) >> 4));
    }

    #[test]
    fn agrees_with_a_hash_set_on_pseudo_random_pairs() {
        // Dense runs and scattered numbers, from a fixed LCG.
        let (mut s, mut h) = (NumberSet::new(), HashSet::new());
        let (mut t, mut x, mut batch) = (NumberSet::new(), HashSet::new(), Vec::new());
        let mut r: u64 = 12345;
        for i in 0..20_000u64 {
            r = r.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let space = Asid((r >> 60) as u32 % 3);
            let n = if i % 2 == 0 { (r >> 20) % 4096 } else { r };
            assert_eq!(s.insert(space, n), h.insert((space, n)));
            if i % 3 == 0 {
                batch.push((space, n ^ 1));
                x.insert((space, n ^ 1));
            }
            if batch.len() == 1000 {
                t.insert_all(&mut batch);
                assert!(batch.is_empty());
            }
        }
        t.insert_all(&mut batch);
        assert_eq!(t.len(), x.len() as u64);
        assert_eq!(s.len(), h.len() as u64);
        assert_eq!(s.union_len(&t), h.union(&x).count() as u64);
        let coarse: HashSet<(Asid, u64)> = h.iter().map(|&(a, n)| (a, n >> 9)).collect();
        assert_eq!(s.coarsened(9).len(), coarse.len() as u64);
    }
}
