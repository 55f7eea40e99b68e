//! PUMA, x86 radix and PowerPC hashed tables: hand-worked walks, exact
//! memory, errors.

#![allow(clippy::unwrap_used)] // a test failing on an unexpected error is the point

use vmlab_addr::{Asid, Pfn, PhysAddr, VirtAddr, Vpn};
use vmlab_mmu::pagetable::puma::TABLE_BASE;
use vmlab_mmu::pagetable::{HashedPageTable, HtabParams, Puma, Radix};
use vmlab_mmu::{FrameError, FramePool, PageTable, PteAddr, PteRef, TableError, TableMemory, Tier};

fn walk(t: &dyn PageTable, space: u32, va: u64) -> Vec<PteRef> {
    let mut out = Vec::new();
    t.walk(Asid(space), VirtAddr(va), &mut out).unwrap();
    out
}

/// A reference at `addr`, a mapped virtual address when `mapped`, else physical.
fn r(addr: u64, mapped: bool, tier: Tier, bytes: u32) -> PteRef {
    let at = if mapped { PteAddr::Mapped(VirtAddr(addr)) } else { PteAddr::Physical(PhysAddr(addr)) };
    PteRef { at, tier, bytes }
}

/// TABLE_BASE = 2^52 - 2^42 = 0xF_FC00_0000_0000. Pool frames from 0x400.
/// * (0, ea 0x40_0000): segment 0, VSID 0; global vpn 0x400; UPTE at
///   TABLE_BASE + 0x400 * 4 = 0xF_FC00_0000_1000. Space 0's root (pair 0)
///   gets frame 0x400 (root_pa(0) = 0x40_0000, root_pa(1) = 0x40_0800); table
///   page 0x400 >> 10 = 1 gets frame 0x401. Walking the UPTE's address: table
///   page 1, VSID 1 / 64 = 0 = segment 0, root index 0 * 64 + 1 -> 0x40_0004.
/// * (1, ea 0x1000_5000): segment 1, VSID 1 * 16 + 1 = 0x11; global vpn
///   0x11 << 16 | 5 = 0x11_0005; UPTE at TABLE_BASE + 0x44_0014; table page
///   0x11_0005 >> 10 = 0x440 gets 0x402. Table page 0x440: VSID 0x440 / 64 =
///   0x11 = space 1's segment 1; root index 64 -> 0x40_0800 + 256 = 0x40_0900.
/// * space 2's segment 3 shares space 1's segment 1: (2, ea 0x3000_5000) has
///   the same global page, so the same UPTE. Space 2's root (pair 1) gets
///   0x403 on its first insert, (2, ea 0x3000_6000), whose PTE lands in the
///   shared table page: no new table frame. Root index of table page 0x440
///   for space 2 is segment 3: 3 * 64 + 0 = 192 -> 0x40_3000 + 768 = 0x40_3300.
#[test]
fn puma_hand_worked_with_a_shared_segment() {
    assert_eq!(TABLE_BASE, 0xF_FC00_0000_0000);
    let mut pool = FramePool::new(4096, 0x400, 64);
    let mut t = Puma::new();
    t.insert(Asid(0), Vpn(0x400), Pfn(0x2000), &mut pool).unwrap();
    t.insert(Asid(1), Vpn(0x10005), Pfn(0x2001), &mut pool).unwrap();

    assert_eq!(walk(&t, 0, 0x40_0abc), vec![r(0xF_FC00_0000_1000, true, Tier::User, 4)]);
    assert_eq!(walk(&t, 0, 0xF_FC00_0000_1000), vec![r(0x40_0004, false, Tier::Root, 4)]);
    assert_eq!(t.pte_at(PhysAddr(0x40_0004)), Some(Pfn(0x401)));
    assert_eq!(t.pte_at(PhysAddr(0x40_1000)), Some(Pfn(0x2000)));

    assert_eq!(walk(&t, 1, 0x1000_5000), vec![r(0xF_FC00_0044_0014, true, Tier::User, 4)]);
    assert_eq!(walk(&t, 1, 0xF_FC00_0044_0014), vec![r(0x40_0900, false, Tier::Root, 4)]);
    assert_eq!(t.pte_at(PhysAddr(0x40_0900)), Some(Pfn(0x402)));
    assert_eq!(t.pte_at(PhysAddr(0x40_2014)), Some(Pfn(0x2001)));

    t.share_segment(Asid(1), 1, Asid(2), 3).unwrap();
    assert_eq!(t.lookup(Asid(2), Vpn(0x30005)), Some(Pfn(0x2001)));
    assert_eq!(walk(&t, 2, 0x3000_5000), vec![r(0xF_FC00_0044_0014, true, Tier::User, 4)]);
    let mut out = Vec::new();
    assert_eq!(
        t.walk(Asid(2), VirtAddr(0xF_FC00_0044_0014), &mut out),
        Err(TableError::NotMapped { space: Asid(2), vpn: Vpn(0xF_FC00_0044_0014 >> 12) }),
        "space 2 has no root table yet"
    );
    t.insert(Asid(2), Vpn(0x30006), Pfn(0x2002), &mut pool).unwrap();
    assert_eq!(t.lookup(Asid(1), Vpn(0x10006)), Some(Pfn(0x2002)));
    assert_eq!(walk(&t, 2, 0xF_FC00_0044_0014), vec![r(0x40_3300, false, Tier::Root, 4)]);
    assert_eq!(t.pte_at(PhysAddr(0x40_3300)), Some(Pfn(0x402)));

    // Frames: roots 0x400, 0x403; table pages 0x401, 0x402 (shared, once).
    // Useful: 3 UPTEs + root entries 0:1, 1:64, 2:192.
    assert_eq!(
        t.memory(),
        TableMemory {
            bytes: 4 * 4096,
            useful_bytes: 6 * 4,
            parts: vec![("user root tables".into(), 8192), ("global table pages".into(), 8192)],
        }
    );
    // Space 1's segment 1 has mappings: it cannot be replaced by sharing.
    assert!(matches!(t.share_segment(Asid(0), 0, Asid(1), 1), Err(TableError::Config(_))));
    // Removing through one space removes it for both.
    t.remove(Asid(2), Vpn(0x30005), &mut pool).unwrap();
    assert_eq!(t.lookup(Asid(1), Vpn(0x10005)), None);
}

#[test]
fn puma_errors() {
    let mut pool = FramePool::new(4096, 0, 1);
    let mut t = Puma::new();
    assert_eq!(
        t.insert(Asid(0), Vpn(0x80000), Pfn(1), &mut pool),
        Err(TableError::OutOfRange { va: VirtAddr(0x8000_0000), bits: 31 })
    );
    assert_eq!(
        t.insert(Asid(1 << 20), Vpn(0), Pfn(1), &mut pool),
        Err(TableError::SpaceOutOfRange { space: Asid(1 << 20), max_spaces: 1 << 20 })
    );
    assert!(matches!(
        t.insert(Asid(0), Vpn(0), Pfn(1), &mut pool),
        Err(TableError::Frames(FrameError::Exhausted { .. }))
    ));
    assert_eq!(t.lookup(Asid(0), Vpn(0)), None);
    let mut out = Vec::new();
    assert_eq!(
        t.walk(Asid(0), VirtAddr(0x8000_0000), &mut out),
        Err(TableError::OutOfRange { va: VirtAddr(0x8000_0000), bits: 31 })
    );
    assert_eq!(
        t.walk(Asid(0), VirtAddr(1 << 52), &mut out),
        Err(TableError::OutOfRange { va: VirtAddr(1 << 52), bits: 52 })
    );
    let mut two_k = FramePool::new(2048, 0, 8);
    assert!(matches!(t.insert(Asid(0), Vpn(0), Pfn(1), &mut two_k), Err(TableError::Config(_))));
}

/// CR3 of space 0 = frame 0x500. va 0x0804_8123: PDE index 0x0804_8123 >> 22
/// = 32, PTE index (va >> 12) & 0x3FF = 0x48. The page table gets 0x501.
/// Walk: PDE 0x50_0000 + 32 * 4 = 0x50_0080 (root), PTE 0x50_1000 + 0x48 * 4
/// = 0x50_1120 (user). va 0xBFFF_F000: PDE index 767 -> 0x50_0BFC, invalid
/// until mapped; then its table 0x502, PTE index 0x3FF -> 0x50_2FFC.
#[test]
fn x86_two_level_hand_worked() {
    let mut pool = FramePool::new(4096, 0x500, 64);
    let mut t = Radix::two_level();
    t.insert(Asid(0), Vpn(0x8048), Pfn(0x3000), &mut pool).unwrap();
    assert_eq!(t.cr3(Asid(0)), Some(PhysAddr(0x50_0000)));
    assert_eq!(walk(&t, 0, 0x0804_8123), vec![r(0x50_0080, false, Tier::Root, 4), r(0x50_1120, false, Tier::User, 4)]);
    assert_eq!((t.pte_at(PhysAddr(0x50_0080)), t.pte_at(PhysAddr(0x50_1120))), (Some(Pfn(0x501)), Some(Pfn(0x3000))));
    assert_eq!(walk(&t, 0, 0xBFFF_F000), vec![r(0x50_0BFC, false, Tier::Root, 4)]);
    assert_eq!(
        t.memory(),
        TableMemory {
            bytes: 8192,
            useful_bytes: 8,
            parts: vec![("page directories".into(), 4096), ("page tables".into(), 4096)]
        }
    );
    t.insert(Asid(0), Vpn(0xBFFFF), Pfn(0x3001), &mut pool).unwrap();
    assert_eq!(walk(&t, 0, 0xBFFF_F000), vec![r(0x50_0BFC, false, Tier::Root, 4), r(0x50_2FFC, false, Tier::User, 4)]);
    assert_eq!((t.memory().bytes, t.memory().useful_bytes), (12288, 16));
    t.remove(Asid(0), Vpn(0xBFFFF), &mut pool).unwrap();
    assert_eq!(walk(&t, 0, 0xBFFF_F000), vec![r(0x50_0BFC, false, Tier::Root, 4)]);
    assert_eq!(t.memory().bytes, 8192);
    assert_eq!(pool.in_use(), 2);
}

/// va 0x7FFF_FFFF_F000 (the last user page): indices 255, 511, 511, 511.
/// PML4 0x600, PDPT 0x601, PD 0x602, PT 0x603: entries at 0x60_0000 + 255 * 8
/// = 0x60_07F8, 0x60_1FF8, 0x60_2FF8, 0x60_3FF8. Then va 0x40_0000: indices
/// 0, 0, 2, 0: PDPT 0x604, PD 0x605, PT 0x606 -> 0x60_0000, 0x60_4000,
/// 0x60_5010, 0x60_6000.
#[test]
fn x86_four_level_hand_worked() {
    let mut pool = FramePool::new(4096, 0x600, 64);
    let mut t = Radix::four_level();
    t.insert(Asid(0), Vpn(0x7_FFFF_FFFF), Pfn(0x4000), &mut pool).unwrap();
    assert_eq!(
        walk(&t, 0, 0x7FFF_FFFF_F000),
        vec![
            r(0x60_07F8, false, Tier::Root, 8),
            r(0x60_1FF8, false, Tier::Root, 8),
            r(0x60_2FF8, false, Tier::Kernel, 8),
            r(0x60_3FF8, false, Tier::User, 8),
        ]
    );
    t.insert(Asid(0), Vpn(0x400), Pfn(0x4001), &mut pool).unwrap();
    let addrs: Vec<PteAddr> = walk(&t, 0, 0x40_0000).iter().map(|r| r.at).collect();
    let physical = |a: u64| PteAddr::Physical(PhysAddr(a));
    assert_eq!(addrs, [0x60_0000, 0x60_4000, 0x60_5010, 0x60_6000].map(physical));
    assert_eq!(t.pte_at(PhysAddr(0x60_6000)), Some(Pfn(0x4001)));
    assert_eq!(
        t.memory(),
        TableMemory {
            bytes: 7 * 4096,
            useful_bytes: 8 * 8,
            parts: vec![
                ("PML4s".into(), 4096),
                ("PDPTs".into(), 8192),
                ("page directories".into(), 8192),
                ("page tables".into(), 8192)
            ],
        }
    );
    let mut out = Vec::new();
    assert_eq!(
        t.walk(Asid(0), VirtAddr(1 << 48), &mut out),
        Err(TableError::OutOfRange { va: VirtAddr(1 << 48), bits: 48 })
    );
    assert_eq!(t.walk(Asid(9), VirtAddr(0), &mut out), Err(TableError::NotMapped { space: Asid(9), vpn: Vpn(0) }));
    assert!(matches!(t.insert(Asid(0), Vpn(1 << 36), Pfn(1), &mut pool), Err(TableError::OutOfRange { .. })));
    // Four fresh pages are needed and only two frames are left: nothing changes.
    let mut small = FramePool::new(4096, 0, 2);
    let mut u = Radix::four_level();
    assert!(matches!(
        u.insert(Asid(0), Vpn(0), Pfn(1), &mut small),
        Err(TableError::Frames(FrameError::Exhausted { .. }))
    ));
    assert_eq!((small.in_use(), u.memory().bytes, u.cr3(Asid(0))), (0, 0, None));
}

/// Four PTEGs (256 B) in frame 0x700, HTAB base 0x70_0000. Space 0's segment
/// 0 has VSID 0, so the primary hash of effective page v is v, the primary
/// PTEG v & 3 and the secondary (!v) & 3. Pages 0, 4, ..., 28 fill PTEG 0;
/// page 32 (primary 0) goes to its secondary PTEG 3, slot 0 (0x70_00C0): its
/// walk reads all 8 PTEs of PTEG 0, then 0x70_00C0. Space 1's segment 0 has
/// VSID 16: page 1 hashes to 16 ^ 1 = 17, PTEG 1 (0x70_0040).
#[test]
fn powerpc_hand_worked_secondary_hash() {
    let mut pool = FramePool::new(4096, 0x700, 64);
    let mut t = HashedPageTable::new(&HtabParams { ptegs: Some(4), ..HtabParams::default() }, &mut pool).unwrap();
    assert_eq!(t.htab_base(), PhysAddr(0x70_0000));
    for k in 0..8 {
        t.insert(Asid(0), Vpn(4 * k), Pfn(0x5000 + 4 * k), &mut pool).unwrap();
    }
    assert_eq!(t.groups(32), (0, 3));
    t.insert(Asid(0), Vpn(32), Pfn(0x5020), &mut pool).unwrap();
    let primary: Vec<PteRef> = (0..8).map(|k| r(0x70_0000 + 8 * k, false, Tier::User, 8)).collect();
    let mut expect = primary.clone();
    expect.push(r(0x70_00C0, false, Tier::User, 8));
    assert_eq!(walk(&t, 0, 32 << 12), expect);
    assert_eq!(t.pte_at(PhysAddr(0x70_00C0)), Some(Pfn(0x5020)));
    assert_eq!(walk(&t, 0, 4 << 12), primary[..2].to_vec());

    t.insert(Asid(1), Vpn(1), Pfn(0x6000), &mut pool).unwrap();
    assert_eq!(walk(&t, 1, 0x1000), vec![r(0x70_0040, false, Tier::User, 8)]);

    // Fill the secondary: pages 36..=60 (primary 0) take PTEG 3's slots 1..8.
    for k in 9..16 {
        t.insert(Asid(0), Vpn(4 * k), Pfn(0x5000 + 4 * k), &mut pool).unwrap();
    }
    assert_eq!(
        t.insert(Asid(0), Vpn(64), Pfn(1), &mut pool),
        Err(TableError::Full { space: Asid(0), vpn: Vpn(64), what: "primary and secondary PTEGs" })
    );
    assert_eq!(t.lookup(Asid(0), Vpn(64)), None);
    // An unmapped page's walk reads both PTEGs.
    assert_eq!(walk(&t, 0, 64 << 12).len(), 16);
    assert_eq!(
        t.memory(),
        TableMemory { bytes: 4096, useful_bytes: 17 * 8, parts: vec![("hashed page table".into(), 4096)] }
    );
    // A freed primary slot is reused.
    t.remove(Asid(0), Vpn(4), &mut pool).unwrap();
    t.insert(Asid(0), Vpn(64), Pfn(0x7000), &mut pool).unwrap();
    assert_eq!(walk(&t, 0, 64 << 12), primary[..2].to_vec());
    assert_eq!(pool.in_use(), 1);
}

#[test]
fn powerpc_recommended_size_and_errors() {
    let size = |frames: u64| HtabParams { phys_frames: frames, ptegs: None }.pteg_count().unwrap();
    assert_eq!(size(2048), 1024, "8 MB -> 64 KB");
    assert_eq!(size(100), 1024, "at least 64 KB");
    assert_eq!(size(3000), 2048, "11.7 MB / 128 = 93.75 KB -> 128 KB");
    assert_eq!(size(1 << 20), 1 << 19, "4 GB -> 32 MB");
    assert!(matches!(HtabParams { phys_frames: 0, ptegs: Some(3) }.pteg_count(), Err(TableError::Config(_))));
    assert!(matches!(HtabParams::default().pteg_count(), Err(TableError::Config(_))));
    let mut pool = FramePool::new(4096, 0, 8);
    assert!(matches!(
        HashedPageTable::new(&HtabParams { phys_frames: 2048, ptegs: None }, &mut pool),
        Err(TableError::Frames(FrameError::Exhausted { .. }))
    ));
    let mut t = HashedPageTable::new(&HtabParams { phys_frames: 0, ptegs: Some(64) }, &mut pool).unwrap();
    let mut out = Vec::new();
    assert_eq!(
        t.walk(Asid(0), VirtAddr(1 << 32), &mut out),
        Err(TableError::OutOfRange { va: VirtAddr(1 << 32), bits: 32 })
    );
    assert_eq!(
        t.insert(Asid(0), Vpn(0), Pfn(1 << 20), &mut pool),
        Err(TableError::FrameOutOfRange { pfn: Pfn(1 << 20), bits: 20 })
    );
    assert_eq!(t.remove(Asid(0), Vpn(5), &mut pool), Err(TableError::NotMapped { space: Asid(0), vpn: Vpn(5) }));
}
