//! The SPARC Reference MMU's three-level page table (SPARC Architecture
//! Manual V8, appendix H; the same layout in Linux `asm-sparc/pgtsrmmu.h`):
//! a context-table entry per space points to a level-1 table of 256 4-byte
//! entries (`va[31:24]`), whose entries point to level-2 tables of 64
//! (`va[23:18]`), whose entries point to level-3 tables of 64 PTEs
//! (`va[17:12]`); 4 KB pages. SuperSPARC walks it in hardware (seed 003
//! section 4.3).
//!
//! Why not `x86::Radix`: SRMMU tables are 1 KB, 256 B and 256 B, smaller
//! than a page and of two sizes, so a table is not a frame. The table does
//! not allocate them either: the hat's free resource pool does (seed 003
//! section 4.3, "free memory pools of page table structures"), so that the
//! pool's lock is the hat's to model. An insert is handed the blocks
//! `missing` asked for; a remove returns the blocks it emptied.

use rustc_hash::FxHashMap;
use vmlab_addr::{Asid, Pfn, PhysAddr, VirtAddr, Vpn};

use super::{PteAddr, PteRef, TableError, Tier};

/// Address bits each level indexes, top first.
pub const LEVEL_BITS: [u32; 3] = [8, 6, 6];
/// Bytes of a table of each level (entries times 4 bytes).
pub const TABLE_BYTES: [u64; 3] = [1024, 256, 256];
pub const ENTRY_BYTES: u64 = 4;
pub const PAGE_BYTES: u64 = 4096;
const VA_BITS: u32 = 32;
const INVALID: u64 = u64::MAX;

#[derive(Debug, Clone)]
struct Node {
    level: usize,
    entries: Box<[u64]>,
    valid: u32,
}

/// The page tables of every space (one per space, shared by every CPU's
/// MMU through the context table, as on the SPARCcenter 2000).
#[derive(Debug, Clone, Default)]
pub struct Srmmu {
    /// Space -> physical address of its level-1 table.
    tops: FxHashMap<u32, u64>,
    /// Physical address of a table -> the table.
    nodes: FxHashMap<u64, Node>,
}

fn index(vpn: u64, level: usize) -> usize {
    let shift: u32 = LEVEL_BITS[level + 1..].iter().sum();
    ((vpn >> shift) & ((1 << LEVEL_BITS[level]) - 1)) as usize
}

fn check(vpn: u64) -> Result<(), TableError> {
    if vpn >= 1 << (VA_BITS - 12) {
        return Err(TableError::OutOfRange { va: vpn.saturating_mul(PAGE_BYTES), bits: VA_BITS });
    }
    Ok(())
}

impl Srmmu {
    pub fn new() -> Self {
        Self::default()
    }

    /// Tables on the path to `vpn` of `space`, top first, as far as they exist.
    fn path(&self, space: u32, vpn: u64) -> Vec<u64> {
        let mut path = Vec::with_capacity(3);
        let mut next = self.tops.get(&space).copied();
        for level in 0..3 {
            let Some(at) = next else { break };
            path.push(at);
            next = self.nodes.get(&at).map(|n| n.entries[index(vpn, level)]).filter(|&e| e != INVALID);
        }
        path
    }

    /// The levels whose table an insert of `vpn` in `space` needs and does
    /// not find, top first: the blocks to hand `insert`.
    pub fn missing(&self, space: Asid, vpn: Vpn) -> Vec<usize> {
        (self.path(space.0, vpn.0).len()..3).collect()
    }

    /// Maps `vpn` of `space` to `pfn`; `fresh` holds one block per level
    /// `missing` named, in its order (their addresses, sized `TABLE_BYTES`).
    pub fn insert(&mut self, space: Asid, vpn: Vpn, pfn: Pfn, fresh: &[u64]) -> Result<(), TableError> {
        let (space, vpn) = (space.0, vpn.0);
        check(vpn)?;
        let mut path = self.path(space, vpn);
        if fresh.len() != 3 - path.len() {
            return Err(TableError::Config(format!(
                "srmmu: insert needs {} fresh tables, was given {}",
                3 - path.len(),
                fresh.len()
            )));
        }
        for &at in fresh {
            let level = path.len();
            let len = 1usize << LEVEL_BITS[level];
            self.nodes.insert(at, Node { level, entries: vec![INVALID; len].into_boxed_slice(), valid: 0 });
            match path.last() {
                Some(&parent) => self.set(parent, index(vpn, level - 1), at),
                None => {
                    self.tops.insert(space, at);
                }
            }
            path.push(at);
        }
        self.set(path[2], index(vpn, 2), pfn.0);
        Ok(())
    }

    fn set(&mut self, node: u64, i: usize, value: u64) {
        if let Some(n) = self.nodes.get_mut(&node) {
            if n.entries[i] == INVALID {
                n.valid += 1;
            }
            n.entries[i] = value;
        }
    }

    /// Removes the mapping of `vpn`; returns the (level, address) of each
    /// level-2 or level-3 table left empty, bottom first, now out of the
    /// tree (the level-1 table stays until `release`).
    pub fn remove(&mut self, space: Asid, vpn: Vpn) -> Result<Vec<(usize, u64)>, TableError> {
        let (s, v) = (space.0, vpn.0);
        check(v)?;
        if self.lookup(space, vpn).is_none() {
            return Err(TableError::NotMapped { space: s, vpn: v });
        }
        let path = self.path(s, v);
        let mut emptied = Vec::new();
        for (level, &node) in path.iter().enumerate().rev() {
            let i = index(v, level);
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
        Ok(emptied)
    }

    /// Drops `space`'s level-1 table when it maps nothing; returns its address.
    pub fn release(&mut self, space: Asid) -> Option<u64> {
        let top = *self.tops.get(&space.0)?;
        if self.nodes.get(&top).is_some_and(|n| n.valid > 0) {
            return None;
        }
        self.tops.remove(&space.0);
        self.nodes.remove(&top);
        Some(top)
    }

    pub fn lookup(&self, space: Asid, vpn: Vpn) -> Option<Pfn> {
        check(vpn.0).ok()?;
        let path = self.path(space.0, vpn.0);
        let leaf = self.nodes.get(path.get(2)?)?;
        let e = leaf.entries[index(vpn.0, 2)];
        (e != INVALID).then_some(Pfn(e))
    }

    /// Every mapping of `space`, as (page, frame), in address order.
    pub fn mappings(&self, space: Asid) -> Vec<(Vpn, Pfn)> {
        let mut out = Vec::new();
        let Some(&top) = self.tops.get(&space.0) else { return out };
        let mut stack = vec![(top, 0usize, 0u64)];
        while let Some((at, level, prefix)) = stack.pop() {
            let Some(n) = self.nodes.get(&at) else { continue };
            for (i, &e) in n.entries.iter().enumerate() {
                if e == INVALID {
                    continue;
                }
                let p = (prefix << LEVEL_BITS[level]) | i as u64;
                if level == 2 {
                    out.push((Vpn(p), Pfn(e)));
                } else {
                    stack.push((e, level + 1, p));
                }
            }
        }
        out.sort();
        out
    }

    /// The entries the hardware walker reads translating `va`, top first,
    /// stopping after the first invalid one. A space with no level-1 table
    /// has an invalid context entry: the walk reads nothing here.
    pub fn walk(&self, space: Asid, va: VirtAddr, out: &mut Vec<PteRef>) -> Result<(), TableError> {
        let vpn = va.0 / PAGE_BYTES;
        check(vpn)?;
        let Some(&top) = self.tops.get(&space.0) else { return Ok(()) };
        let mut node = top;
        for level in 0..3 {
            let i = index(vpn, level);
            out.push(PteRef {
                at: PteAddr::Physical(PhysAddr(node + i as u64 * ENTRY_BYTES)),
                tier: [Tier::Root, Tier::Kernel, Tier::User][level],
                bytes: ENTRY_BYTES as u32,
            });
            let e = self.nodes.get(&node).map_or(INVALID, |n| n.entries[i]);
            if e == INVALID || level == 2 {
                break;
            }
            node = e;
        }
        Ok(())
    }

    /// Bytes of tables in the tree, by level.
    pub fn table_bytes(&self) -> [u64; 3] {
        let mut b = [0; 3];
        for n in self.nodes.values() {
            b[n.level] += TABLE_BYTES[n.level];
        }
        b
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_walk_remove_by_hand() {
        let mut t = Srmmu::new();
        let (s, va) = (Asid(3), 0x0104_3000u64);
        let vpn = Vpn(va / PAGE_BYTES);
        assert_eq!(t.missing(s, vpn), vec![0, 1, 2]);
        t.insert(s, vpn, Pfn(0x77), &[0x1_0000, 0x2_0000, 0x2_0100]).expect("worked by hand");
        // va[31:24] = 1, va[23:18] = 0x01, va[17:12] = 0x03.
        let mut refs = Vec::new();
        t.walk(s, VirtAddr(va), &mut refs).expect("worked by hand");
        let at: Vec<_> = refs.iter().map(|r| r.at).collect();
        assert_eq!(
            at,
            vec![
                PteAddr::Physical(PhysAddr(0x1_0000 + 4)),
                PteAddr::Physical(PhysAddr(0x2_0000 + 4)),
                PteAddr::Physical(PhysAddr(0x2_0100 + 12)),
            ]
        );
        assert_eq!(t.lookup(s, vpn), Some(Pfn(0x77)));
        assert_eq!(t.missing(s, Vpn(vpn.0 + 1)), Vec::<usize>::new());
        assert_eq!(t.missing(s, Vpn(vpn.0 + 64)), vec![2]);
        assert_eq!(t.table_bytes(), [1024, 256, 256]);
        assert_eq!(t.remove(s, vpn).expect("worked by hand"), vec![(2, 0x2_0100), (1, 0x2_0000)]);
        assert_eq!(t.lookup(s, vpn), None);
        assert_eq!(t.release(s), Some(0x1_0000));
        assert_eq!(t.table_bytes(), [0, 0, 0]);
    }
}
