//! The tree of tables a top-down multi-level page table is made of: each
//! space's top-level table, tables found by their address, entries that
//! are either a lower table's address or a frame, and a count of valid
//! entries per table so that emptied tables can leave the tree.
//!
//! x86's radix tables (`x86.rs`) and the SPARC Reference MMU's (`srmmu.rs`)
//! are both this tree; they differ in what a table's address means (a
//! frame, or a byte address of a table smaller than a page), in where a
//! table's memory comes from, and in how a walk prices its entries, which
//! stays theirs.

use rustc_hash::FxHashMap;

/// An entry that maps nothing.
const INVALID: u64 = u64::MAX;

#[derive(Debug, Clone)]
struct Node {
    level: usize,
    entries: Box<[u64]>,
    valid: u32,
}

/// Tables of every space, `level_bits[l]` address bits indexing level `l`
/// (top first), the last level's entries being frames.
#[derive(Debug, Clone)]
pub(crate) struct TableTree {
    level_bits: Box<[u32]>,
    /// Space -> address of its top-level table.
    tops: FxHashMap<u32, u64>,
    /// Address of a table -> the table.
    nodes: FxHashMap<u64, Node>,
}

impl TableTree {
    pub(crate) fn new(level_bits: &[u32]) -> Self {
        Self { level_bits: level_bits.into(), tops: FxHashMap::default(), nodes: FxHashMap::default() }
    }

    pub(crate) fn levels(&self) -> usize {
        self.level_bits.len()
    }

    /// Index of `vpn`'s entry in its level-`level` table.
    pub(crate) fn index(&self, vpn: u64, level: usize) -> usize {
        let shift: u32 = self.level_bits[level + 1..].iter().sum();
        ((vpn >> shift) & ((1 << self.level_bits[level]) - 1)) as usize
    }

    pub(crate) fn top(&self, space: u32) -> Option<u64> {
        self.tops.get(&space).copied()
    }

    /// The entry `i` of the table at `node`, if both exist and it is valid.
    pub(crate) fn entry(&self, node: u64, i: usize) -> Option<u64> {
        self.nodes.get(&node).map(|n| n.entries[i]).filter(|&e| e != INVALID)
    }

    /// Tables on the path to `vpn` of `space`, top first, as far as they exist.
    pub(crate) fn path(&self, space: u32, vpn: u64) -> Vec<u64> {
        let mut path = Vec::with_capacity(self.levels());
        let mut next = self.top(space);
        for level in 0..self.levels() {
            let Some(at) = next else { break };
            path.push(at);
            next = self.entry(at, self.index(vpn, level));
        }
        path
    }

    /// The frame `vpn` of `space` maps to.
    pub(crate) fn lookup(&self, space: u32, vpn: u64) -> Option<u64> {
        let path = self.path(space, vpn);
        let leaf = self.levels() - 1;
        self.entry(*path.get(leaf)?, self.index(vpn, leaf))
    }

    /// Links the tables `fresh` (their addresses, one per level missing on
    /// `path`, in order) below `path` toward `vpn` and maps `vpn` to `pfn`.
    /// The caller has checked that `fresh` completes the path.
    pub(crate) fn insert(&mut self, space: u32, vpn: u64, pfn: u64, mut path: Vec<u64>, fresh: &[u64]) {
        for &at in fresh {
            let level = path.len();
            let len = 1usize << self.level_bits[level];
            self.nodes.insert(at, Node { level, entries: vec![INVALID; len].into_boxed_slice(), valid: 0 });
            match path.last() {
                Some(&parent) => self.set(parent, self.index(vpn, level - 1), at),
                None => {
                    self.tops.insert(space, at);
                }
            }
            path.push(at);
        }
        let leaf = self.levels() - 1;
        if let Some(&at) = path.get(leaf) {
            self.set(at, self.index(vpn, leaf), pfn);
        }
    }

    fn set(&mut self, node: u64, i: usize, value: u64) {
        if let Some(n) = self.nodes.get_mut(&node) {
            if n.entries[i] == INVALID {
                n.valid += 1;
            }
            n.entries[i] = value;
        }
    }

    /// Clears `vpn`'s leaf entry on `path` (a whole path to a valid entry)
    /// and takes out of the tree every table below the top left empty,
    /// bottom up; returns their (level, address), bottom first. The top
    /// stays: it is the space's (CR3, context-table entry) until released.
    pub(crate) fn clear(&mut self, vpn: u64, path: &[u64]) -> Vec<(usize, u64)> {
        let mut emptied = Vec::new();
        for (level, &node) in path.iter().enumerate().rev() {
            let i = self.index(vpn, level);
            let empty = match self.nodes.get_mut(&node) {
                Some(n) => {
                    n.entries[i] = INVALID;
                    n.valid -= 1;
                    n.valid == 0
                }
                None => false,
            };
            if !empty || level == 0 {
                break;
            }
            self.nodes.remove(&node);
            emptied.push((level, node));
        }
        emptied
    }

    /// Drops `space`'s top-level table when it maps nothing; returns its address.
    pub(crate) fn release(&mut self, space: u32) -> Option<u64> {
        let top = self.top(space)?;
        if self.nodes.get(&top).is_some_and(|n| n.valid > 0) {
            return None;
        }
        self.tops.remove(&space);
        self.nodes.remove(&top);
        Some(top)
    }

    /// Every mapping of `space`, as (page, frame), in address order.
    pub(crate) fn mappings(&self, space: u32) -> Vec<(u64, u64)> {
        let mut out = Vec::new();
        let Some(top) = self.top(space) else { return out };
        let leaf = self.levels() - 1;
        let mut stack = vec![(top, 0usize, 0u64)];
        while let Some((at, level, prefix)) = stack.pop() {
            let Some(n) = self.nodes.get(&at) else { continue };
            for (i, &e) in n.entries.iter().enumerate() {
                if e == INVALID {
                    continue;
                }
                let p = (prefix << self.level_bits[level]) | i as u64;
                if level == leaf {
                    out.push((p, e));
                } else {
                    stack.push((e, level + 1, p));
                }
            }
        }
        out.sort_unstable();
        out
    }

    /// Tables in the tree, by level, and their valid entries in all.
    pub(crate) fn census(&self) -> (Vec<u64>, u64) {
        let mut per_level = vec![0u64; self.levels()];
        let mut valid = 0u64;
        for n in self.nodes.values() {
            per_level[n.level] += 1;
            valid += u64::from(n.valid);
        }
        (per_level, valid)
    }
}
