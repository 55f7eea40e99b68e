//! The two shadow caches that classify misses into the 3C classes, as Dinero IV
//! does: a miss that hits a fully associative cache of the same capacity is a
//! *conflict* miss; otherwise it is *compulsory* if the line never missed
//! before, else *capacity*.
//!
//! The fully associative shadow follows the level's replacement policy (LRU,
//! FIFO or random); tree-PLRU levels get an LRU shadow, since a tree over
//! thousands of ways is not what such a cache would be.

use crate::config::Replacement;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;
use rustc_hash::FxHashMap;
use vmlab_addr::{Asid, NumberSet};

const NIL: u32 = u32::MAX;

/// What a line is called in the shadows: its tag key and ASID.
pub type LineKey = (u64, Asid);

#[derive(Debug)]
pub struct MissClassifier {
    full: FullyAssociative,
    /// Every line that ever missed: the one part that grows with the trace's
    /// footprint (a bit a line for dense footprints, `NumberSet`).
    seen: NumberSet,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MissClass {
    Compulsory,
    Capacity,
    Conflict,
}

/// What the real level did with an access the shadows are shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RealLookup {
    Hit,
    Miss,
}

/// Whether the real level allocates a line on a miss of this access (a
/// no-write-allocate level's write does not).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Allocate {
    Yes,
    No,
}

impl MissClassifier {
    pub fn new(lines: usize, policy: Replacement, seed: u64) -> Self {
        Self { full: FullyAssociative::new(lines, policy, seed), seen: NumberSet::new() }
    }

    /// Presents one access to the shadows. Returns the class when the real
    /// level missed.
    pub fn observe(&mut self, key: LineKey, real: RealLookup, allocate: Allocate) -> Option<MissClass> {
        let full_hit = self.full.access(key, allocate == Allocate::Yes);
        if real == RealLookup::Hit {
            return None;
        }
        if full_hit {
            return Some(MissClass::Conflict);
        }
        Some(if self.seen.insert(key.1, key.0) { MissClass::Compulsory } else { MissClass::Capacity })
    }

    pub fn invalidate(&mut self, key: LineKey) {
        self.full.remove(key);
    }
}

/// A fully associative cache of `capacity` lines with O(1) operations: a hash
/// map from line to slot and an intrusive recency list over the slots.
#[derive(Debug)]
struct FullyAssociative {
    capacity: usize,
    policy: Replacement,
    map: FxHashMap<LineKey, u32>,
    keys: Vec<LineKey>,
    prev: Vec<u32>,
    next: Vec<u32>,
    /// Most recently used (LRU) or most recently inserted (FIFO).
    head: u32,
    tail: u32,
    free: Vec<u32>,
    rng: Pcg64Mcg,
}

impl FullyAssociative {
    fn new(capacity: usize, policy: Replacement, seed: u64) -> Self {
        Self {
            capacity,
            policy,
            map: FxHashMap::default(),
            keys: Vec::new(),
            prev: Vec::new(),
            next: Vec::new(),
            head: NIL,
            tail: NIL,
            free: Vec::new(),
            // A different stream from the real level's generator.
            rng: Pcg64Mcg::seed_from_u64(seed ^ 0x5eed_5bad_0c0c_0001),
        }
    }

    fn unlink(&mut self, s: u32) {
        let (p, n) = (self.prev[s as usize], self.next[s as usize]);
        if p != NIL {
            self.next[p as usize] = n
        } else {
            self.head = n
        }
        if n != NIL {
            self.prev[n as usize] = p
        } else {
            self.tail = p
        }
    }

    fn push_front(&mut self, s: u32) {
        self.prev[s as usize] = NIL;
        self.next[s as usize] = self.head;
        if self.head != NIL {
            self.prev[self.head as usize] = s;
        } else {
            self.tail = s;
        }
        self.head = s;
    }

    fn remove(&mut self, key: LineKey) {
        if let Some(s) = self.map.remove(&key) {
            self.unlink(s);
            self.free.push(s);
        }
    }

    /// Returns whether `key` hit; updates the recency order and allocates on a
    /// miss when `allocate`.
    fn access(&mut self, key: LineKey, allocate: bool) -> bool {
        if let Some(&s) = self.map.get(&key) {
            if !matches!(self.policy, Replacement::Fifo | Replacement::Random) {
                self.unlink(s);
                self.push_front(s);
            }
            return true;
        }
        if !allocate || self.capacity == 0 {
            return false;
        }
        let slot = if let Some(s) = self.free.pop() {
            s
        } else if self.keys.len() < self.capacity {
            self.keys.push(key);
            self.prev.push(NIL);
            self.next.push(NIL);
            (self.keys.len() - 1) as u32
        } else {
            let victim = match self.policy {
                Replacement::Random => self.rng.gen_range(0..self.keys.len()) as u32,
                _ => self.tail,
            };
            self.unlink(victim);
            self.map.remove(&self.keys[victim as usize]);
            victim
        };
        self.keys[slot as usize] = key;
        self.map.insert(key, slot);
        self.push_front(slot);
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lru_shadow_classifies_like_dinero() {
        // Two-line fully associative shadow; real cache misses everything.
        let mut c = MissClassifier::new(2, Replacement::Lru, 1);
        let k = |n| (n, Asid(0));
        let miss = |c: &mut MissClassifier, n| c.observe(k(n), RealLookup::Miss, Allocate::Yes);
        assert_eq!(miss(&mut c, 1), Some(MissClass::Compulsory));
        assert_eq!(miss(&mut c, 2), Some(MissClass::Compulsory));
        assert_eq!(miss(&mut c, 1), Some(MissClass::Conflict)); // still in 2-line FA
        assert_eq!(miss(&mut c, 3), Some(MissClass::Compulsory)); // evicts 2
        assert_eq!(miss(&mut c, 2), Some(MissClass::Capacity));
        assert_eq!(c.observe(k(3), RealLookup::Hit, Allocate::Yes), None);
    }
}
