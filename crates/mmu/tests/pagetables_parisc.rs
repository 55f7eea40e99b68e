//! PA-RISC hashed inverted table: hand-worked walks, chains, memory, errors,
//! and a property test against a HashMap model.

#![allow(clippy::unwrap_used)] // a test failing on an unexpected error is the point

use std::collections::HashMap;

use proptest::prelude::*;
use vmlab_addr::{Asid, Pfn, PhysAddr, VirtAddr, Vpn};
use vmlab_mmu::pagetable::parisc::{ChainStats, HashedInverted, HashedParams};
use vmlab_mmu::{FrameError, FramePool, PageTable, PteAddr, PteRef, TableError, Tier};

fn entry(addr: u64) -> PteRef {
    PteRef { at: PteAddr::Physical(PhysAddr(addr)), tier: Tier::User, bytes: 16 }
}

fn walk(t: &HashedInverted, space: u32, va: u64) -> Vec<u64> {
    let mut out = Vec::new();
    t.walk(Asid(space), VirtAddr(va), &mut out).expect("walk");
    assert!(out.iter().all(|r| r.tier == Tier::User && r.bytes == 16));
    // A hashed table reads physical entries only.
    out.iter().map(|r| if let PteAddr::Physical(pa) = r.at { pa.0 } else { u64::MAX }).collect()
}

/// 8 buckets of 16 bytes = 128 bytes, so the hash table takes one 4 KB frame:
/// the pool's first frame 0x100, base 0x10_0000. Bucket of (space 0, vpn v) is
/// v ^ (v >> 3) ^ 0, masked to 3 bits; space 1 adds 0x9E3779B9 & 7 = 1.
///   (0, 3):  3 ^ 0 = 3
///   (0, 10): 10 ^ 1 = 11 -> 3
///   (1, 2):  2 ^ 0 ^ 1 = 3
///   (0, 17): 17 ^ 2 = 19 -> 3
/// All four share bucket 3, head at 0x10_0000 + 3 * 16 = 0x10_0030. The first
/// collision allocates the next frame, 0x101, as the overflow page: overflow
/// entry 0 at 0x10_1000, entry 1 at 0x10_1010.
#[test]
fn hand_worked_collision_chain() {
    let mut pool = FramePool::new(4096, 0x100, 16);
    let mut t = HashedInverted::new(&HashedParams { entries: Some(8), ..HashedParams::default() }, &mut pool).unwrap();
    assert_eq!(t.table_base(), PhysAddr(0x10_0000));
    assert_eq!(t.bucket(Asid(0), Vpn(3)), 3);
    assert_eq!(t.bucket(Asid(0), Vpn(10)), 3);
    assert_eq!(t.bucket(Asid(1), Vpn(2)), 3);
    assert_eq!(t.bucket(Asid(0), Vpn(17)), 3);
    assert_eq!(t.bucket(Asid(0), Vpn(5)), 5);

    let mut refs = Vec::new();
    t.insert_refs(Asid(0), Vpn(3), Pfn(0x50), &mut pool, &mut refs).unwrap();
    assert_eq!(refs, vec![entry(0x10_0030)], "an empty head is read, then written");
    refs.clear();
    t.insert_refs(Asid(0), Vpn(10), Pfn(0x51), &mut pool, &mut refs).unwrap();
    assert_eq!(refs, vec![entry(0x10_0030)]);
    refs.clear();
    t.insert_refs(Asid(1), Vpn(2), Pfn(0x52), &mut pool, &mut refs).unwrap();
    assert_eq!(refs, vec![entry(0x10_0030), entry(0x10_1000)]);
    t.insert(Asid(0), Vpn(5), Pfn(0x53), &mut pool).unwrap();

    assert_eq!(walk(&t, 0, 3 << 12), vec![0x10_0030]);
    assert_eq!(walk(&t, 0, (10 << 12) + 0xabc), vec![0x10_0030, 0x10_1000]);
    assert_eq!(walk(&t, 1, 2 << 12), vec![0x10_0030, 0x10_1000, 0x10_1010]);
    assert_eq!(walk(&t, 0, 5 << 12), vec![0x10_0050]);
    // Unmapped (0, 17): the whole chain is read before the fault.
    assert_eq!(walk(&t, 0, 17 << 12), vec![0x10_0030, 0x10_1000, 0x10_1010]);
    assert_eq!(t.lookup(Asid(0), Vpn(17)), None);
    // The walk ends at the entry holding the frame.
    assert_eq!(t.pte_at(PhysAddr(0x10_1010)), Some(Pfn(0x52)));
    assert_eq!(t.pte_at(PhysAddr(0x10_0050)), Some(Pfn(0x53)));
    assert_eq!(t.pte_at(PhysAddr(0x10_0040)), None);

    let m = t.memory();
    assert_eq!(m.bytes, 2 * 4096);
    assert_eq!(m.useful_bytes, 4 * 16);
    assert_eq!(m.parts, vec![("hash table".to_string(), 4096), ("overflow entries".to_string(), 4096)]);
    assert_eq!(
        t.chain_stats(),
        ChainStats { buckets: 8, occupied: 2, mappings: 4, max_chain: 3, mean_chain: 2.0, mean_probes: 7.0 / 4.0 }
    );

    // Delete from the middle: the search reads head and entry 0 (found, its
    // predecessor is the head); the head now links to entry 1.
    refs.clear();
    t.remove_refs(Asid(0), Vpn(10), &mut pool, &mut refs).unwrap();
    assert_eq!(refs, vec![entry(0x10_0030), entry(0x10_1000)]);
    assert_eq!(walk(&t, 1, 2 << 12), vec![0x10_0030, 0x10_1010]);
    // Delete the head: entry 1 is read and copied into the head, the overflow
    // page is empty and goes back to the pool.
    refs.clear();
    t.remove_refs(Asid(0), Vpn(3), &mut pool, &mut refs).unwrap();
    assert_eq!(refs, vec![entry(0x10_0030), entry(0x10_1010)]);
    assert_eq!(walk(&t, 1, 2 << 12), vec![0x10_0030]);
    assert_eq!(t.lookup(Asid(1), Vpn(2)), Some(Pfn(0x52)));
    assert_eq!(pool.in_use(), 1);
    assert_eq!(t.memory().bytes, 4096);
    // The next collision reuses the lowest free frame, 0x101 again.
    t.insert(Asid(0), Vpn(10), Pfn(0x60), &mut pool).unwrap();
    assert_eq!(walk(&t, 0, 10 << 12), vec![0x10_0030, 0x10_1000]);
}

#[test]
fn replacing_a_mapping_keeps_its_place() {
    let mut pool = FramePool::new(4096, 0, 16);
    let mut t = HashedInverted::new(&HashedParams { entries: Some(8), ..HashedParams::default() }, &mut pool).unwrap();
    t.insert(Asid(0), Vpn(3), Pfn(1), &mut pool).unwrap();
    t.insert(Asid(0), Vpn(10), Pfn(2), &mut pool).unwrap();
    t.insert(Asid(0), Vpn(10), Pfn(7), &mut pool).unwrap();
    assert_eq!(t.lookup(Asid(0), Vpn(10)), Some(Pfn(7)));
    assert_eq!(t.chain_stats().mappings, 2);
    assert_eq!(walk(&t, 0, 10 << 12), vec![0x30, 0x1000]);
}

/// Default sizing: 1000 frames x 2 = 2000, rounded up to 2048 entries of 16
/// bytes = 32 KB = eight 4 KB frames, contiguous, allocated at build time.
#[test]
fn sized_from_physical_memory() {
    let mut pool = FramePool::new(4096, 0, 1000);
    let t = HashedInverted::new(&HashedParams { phys_frames: 1000, ..HashedParams::default() }, &mut pool).unwrap();
    assert_eq!(t.entries(), 2048);
    assert_eq!(pool.in_use(), 8);
    let m = t.memory();
    assert_eq!((m.bytes, m.useful_bytes), (32 * 1024, 0));
    // The HP 834's 2 KB pages: the same table takes 16 frames.
    let mut pool = FramePool::new(2048, 0, 1000);
    let t = HashedInverted::new(&HashedParams { phys_frames: 1000, ..HashedParams::default() }, &mut pool).unwrap();
    assert_eq!((t.entries(), pool.in_use(), t.page_bytes()), (2048, 16, 2048));
    assert_eq!(walk(&t, 0, 0x7ff), vec![0]);
    assert_eq!(walk(&t, 0, 0x800), vec![16]);
}

#[test]
fn errors_are_errors() {
    let mut pool = FramePool::new(4096, 0, 1);
    let bad = HashedParams { entries: Some(6), ..HashedParams::default() };
    assert!(matches!(HashedInverted::new(&bad, &mut pool), Err(TableError::Config(_))));
    assert!(matches!(HashedInverted::new(&HashedParams::default(), &mut pool), Err(TableError::Config(_))));
    let huge = HashedParams { entries: Some(1 << 20), ..HashedParams::default() };
    assert!(matches!(HashedInverted::new(&huge, &mut pool), Err(TableError::Frames(FrameError::Exhausted { .. }))));

    let mut t = HashedInverted::new(&HashedParams { entries: Some(8), ..HashedParams::default() }, &mut pool).unwrap();
    t.insert(Asid(0), Vpn(3), Pfn(1), &mut pool).unwrap();
    // A collision needs an overflow page and the pool is empty.
    assert!(matches!(
        t.insert(Asid(0), Vpn(10), Pfn(2), &mut pool),
        Err(TableError::Frames(FrameError::Exhausted { .. }))
    ));
    assert_eq!((t.lookup(Asid(0), Vpn(3)), t.lookup(Asid(0), Vpn(10))), (Some(Pfn(1)), None));
    assert_eq!(t.chain_stats().mappings, 1);
    assert_eq!(t.remove(Asid(0), Vpn(10), &mut pool), Err(TableError::NotMapped { space: Asid(0), vpn: Vpn(10) }));
    let mut out = Vec::new();
    assert_eq!(
        t.walk(Asid(0), VirtAddr(1 << 32), &mut out),
        Err(TableError::OutOfRange { va: VirtAddr(1 << 32), bits: 32 })
    );
    assert!(matches!(t.insert(Asid(0), Vpn(1 << 20), Pfn(1), &mut pool), Err(TableError::OutOfRange { .. })));
    assert_eq!(t.lookup(Asid(0), Vpn(1 << 40)), None);
}

#[derive(Clone, Debug)]
enum Op {
    Insert(u32, u64),
    Remove(u32, u64),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (0u32..4, 0u64..64).prop_map(|(s, v)| Op::Insert(s, v)),
        2 => (0u32..4, 0u64..64).prop_map(|(s, v)| Op::Remove(s, v)),
    ]
}

proptest! {
    /// A tiny table (8 or 16 buckets) forces long chains. After every
    /// operation, lookup agrees with a HashMap, every mapped page's walk
    /// ends at an entry holding its frame (frames are distinct, so a wrong
    /// entry cannot match by chance), the walk length is the page's
    /// position in its chain, and memory accounts for every overflow page.
    #[test]
    fn agrees_with_a_hashmap(ops in prop::collection::vec(op(), 1..200), big in any::<bool>()) {
        let mut pool = FramePool::new(256, 0, 1 << 12);
        let entries = if big { 16 } else { 8 };
        let mut t = HashedInverted::new(&HashedParams { entries: Some(entries), ..HashedParams::default() }, &mut pool).unwrap();
        let mut model: HashMap<(u32, u64), u64> = HashMap::new();
        let mut next_pfn = 1000u64;
        for op in ops {
            match op {
                Op::Insert(s, v) => {
                    next_pfn += 1;
                    t.insert(Asid(s), Vpn(v), Pfn(next_pfn), &mut pool).unwrap();
                    model.insert((s, v), next_pfn);
                }
                Op::Remove(s, v) => {
                    let r = t.remove(Asid(s), Vpn(v), &mut pool);
                    match model.remove(&(s, v)) {
                        Some(_) => prop_assert!(r.is_ok()),
                        None => prop_assert_eq!(r, Err(TableError::NotMapped { space: Asid(s), vpn: Vpn(v) })),
                    }
                }
            }
            for s in 0..4 {
                for v in 0..64 {
                    prop_assert_eq!(t.lookup(Asid(s), Vpn(v)), model.get(&(s, v)).copied().map(Pfn));
                }
            }
            for (&(s, v), &pfn) in &model {
                let refs = walk(&t, s, v * 256);
                prop_assert_eq!(refs[0], t.head_addr(t.bucket(Asid(s), Vpn(v))).0);
                prop_assert_eq!(t.pte_at(PhysAddr(*refs.last().unwrap())), Some(Pfn(pfn)));
                // No earlier entry on the way holds this page's frame.
                for a in &refs[..refs.len() - 1] {
                    prop_assert_ne!(t.pte_at(PhysAddr(*a)), Some(Pfn(pfn)));
                }
            }
            let stats = t.chain_stats();
            prop_assert_eq!(stats.mappings, model.len() as u64);
            let m = t.memory();
            prop_assert_eq!(m.useful_bytes, 16 * model.len() as u64);
            prop_assert_eq!(m.bytes, pool.in_use() * 256);
            // Overflow entries in use fit in the overflow pages.
            let overflow_in_use = model.len() as u64 - stats.occupied;
            prop_assert!(overflow_in_use * 16 <= m.bytes - 256);
        }
    }
}
