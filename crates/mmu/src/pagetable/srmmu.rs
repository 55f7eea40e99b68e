//! The SPARC Reference MMU's three-level page table (SPARC Architecture
//! Manual V8, appendix H; the same layout in Linux `asm-sparc/pgtsrmmu.h`):
//! a context-table entry per space points to a level-1 table of 256 4-byte
//! entries (`va[31:24]`), whose entries point to level-2 tables of 64
//! (`va[23:18]`), whose entries point to level-3 tables of 64 PTEs
//! (`va[17:12]`); 4 KB pages. SuperSPARC walks it in hardware (seed 003
//! section 4.3).
//!
//! The tree of tables is x86's (`tree::TableTree`); what differs is the
//! table's address. SRMMU tables are 1 KB, 256 B and 256 B, smaller than a
//! page and of two sizes, so a table is not a frame, and the table does not
//! allocate them either: the hat's free resource pool does (seed 003
//! section 4.3, "free memory pools of page table structures"), so that the
//! pool's lock is the hat's to model. An insert is handed the blocks
//! `missing` asked for; a remove returns the blocks it emptied.

use vmlab_addr::{Asid, Pfn, PhysAddr, VirtAddr, Vpn};

use super::tree::TableTree;
use super::{PteAddr, PteRef, TableError, Tier};

/// Address bits each level indexes, top first.
pub const LEVEL_BITS: [u32; 3] = [8, 6, 6];
/// Bytes of a table of each level (entries times 4 bytes).
pub const TABLE_BYTES: [u64; 3] = [1024, 256, 256];
pub const ENTRY_BYTES: u64 = 4;
pub const PAGE_BYTES: u64 = 4096;
const VA_BITS: u32 = 32;

/// The page tables of every space (one per space, shared by every CPU's
/// MMU through the context table, as on the SPARCcenter 2000). A table's
/// address is its physical byte address.
#[derive(Debug, Clone)]
pub struct Srmmu {
    tree: TableTree,
}

impl Default for Srmmu {
    fn default() -> Self {
        Self { tree: TableTree::new(&LEVEL_BITS) }
    }
}

fn check(vpn: u64) -> Result<(), TableError> {
    if vpn >= 1 << (VA_BITS - 12) {
        return Err(TableError::OutOfRange { va: VirtAddr(vpn.saturating_mul(PAGE_BYTES)), bits: VA_BITS });
    }
    Ok(())
}

impl Srmmu {
    pub fn new() -> Self {
        Self::default()
    }

    /// The levels whose table an insert of `vpn` in `space` needs and does
    /// not find, top first: the blocks to hand `insert`.
    pub fn missing(&self, space: Asid, vpn: Vpn) -> Vec<usize> {
        (self.tree.path(space.0, vpn.0).len()..3).collect()
    }

    /// Maps `vpn` of `space` to `pfn`; `fresh` holds one block per level
    /// `missing` named, in its order (their addresses, sized `TABLE_BYTES`).
    pub fn insert(&mut self, space: Asid, vpn: Vpn, pfn: Pfn, fresh: &[PhysAddr]) -> Result<(), TableError> {
        check(vpn.0)?;
        let path = self.tree.path(space.0, vpn.0);
        if fresh.len() != 3 - path.len() {
            return Err(TableError::Config(format!(
                "srmmu: insert needs {} fresh tables, was given {}",
                3 - path.len(),
                fresh.len()
            )));
        }
        let fresh: Vec<u64> = fresh.iter().map(|b| b.0).collect();
        self.tree.insert(space.0, vpn.0, pfn.0, path, &fresh);
        Ok(())
    }

    /// Removes the mapping of `vpn`; returns the (level, address) of each
    /// level-2 or level-3 table left empty, bottom first, now out of the
    /// tree (the level-1 table stays until `release`).
    pub fn remove(&mut self, space: Asid, vpn: Vpn) -> Result<Vec<(usize, PhysAddr)>, TableError> {
        check(vpn.0)?;
        if self.lookup(space, vpn).is_none() {
            return Err(TableError::NotMapped { space, vpn });
        }
        let path = self.tree.path(space.0, vpn.0);
        Ok(self.tree.clear(vpn.0, &path).into_iter().map(|(l, b)| (l, PhysAddr(b))).collect())
    }

    /// Drops `space`'s level-1 table when it maps nothing; returns its address.
    pub fn release(&mut self, space: Asid) -> Option<PhysAddr> {
        self.tree.release(space.0).map(PhysAddr)
    }

    pub fn lookup(&self, space: Asid, vpn: Vpn) -> Option<Pfn> {
        check(vpn.0).ok()?;
        self.tree.lookup(space.0, vpn.0).map(Pfn)
    }

    /// Every mapping of `space`, as (page, frame), in address order.
    pub fn mappings(&self, space: Asid) -> Vec<(Vpn, Pfn)> {
        self.tree.mappings(space.0).into_iter().map(|(v, p)| (Vpn(v), Pfn(p))).collect()
    }

    /// The entries the hardware walker reads translating `va`, top first,
    /// stopping after the first invalid one. A space with no level-1 table
    /// has an invalid context entry: the walk reads nothing here.
    pub fn walk(&self, space: Asid, va: VirtAddr, out: &mut Vec<PteRef>) -> Result<(), TableError> {
        let vpn = va.0 / PAGE_BYTES;
        check(vpn)?;
        let Some(mut node) = self.tree.top(space.0) else { return Ok(()) };
        for level in 0..3 {
            let i = self.tree.index(vpn, level);
            out.push(PteRef {
                at: PteAddr::Physical(PhysAddr(node + i as u64 * ENTRY_BYTES)),
                tier: [Tier::Root, Tier::Kernel, Tier::User][level],
                bytes: ENTRY_BYTES as u32,
            });
            match self.tree.entry(node, i) {
                Some(e) if level < 2 => node = e,
                _ => break,
            }
        }
        Ok(())
    }

    /// Bytes of tables in the tree, by level.
    pub fn table_bytes(&self) -> [u64; 3] {
        let (tables, _) = self.tree.census();
        [0, 1, 2].map(|l| tables[l] * TABLE_BYTES[l])
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
        t.insert(s, vpn, Pfn(0x77), &[PhysAddr(0x1_0000), PhysAddr(0x2_0000), PhysAddr(0x2_0100)])
            .expect("worked by hand");
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
        assert_eq!(t.remove(s, vpn).expect("worked by hand"), vec![(2, PhysAddr(0x2_0100)), (1, PhysAddr(0x2_0000))]);
        assert_eq!(t.lookup(s, vpn), None);
        assert_eq!(t.release(s), Some(PhysAddr(0x1_0000)));
        assert_eq!(t.table_bytes(), [0, 0, 0]);
    }
}
