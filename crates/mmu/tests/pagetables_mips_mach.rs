//! ULTRIX (mips) and MACH tables: hand-worked walks through every tier,
//! exact memory, errors.

#![allow(clippy::unwrap_used)] // a test failing on an unexpected error is the point

use vmlab_addr::{Asid, Pfn, PhysAddr, VirtAddr, Vpn};
use vmlab_mmu::pagetable::{Mach, Ultrix};
use vmlab_mmu::{FrameError, FramePool, PageTable, PteAddr, PteRef, TableError, TableMemory, Tier};

fn one(t: &dyn PageTable, space: u32, va: u64) -> PteRef {
    let mut out = Vec::new();
    t.walk(Asid(space), VirtAddr(va), &mut out).unwrap();
    assert_eq!(out.len(), 1, "bottom-up walks give one reference per tier");
    out[0]
}

fn user(addr: u64) -> PteRef {
    PteRef { at: PteAddr::Mapped(VirtAddr(addr)), tier: Tier::User, bytes: 4 }
}

fn root(addr: u64) -> PteRef {
    PteRef { at: PteAddr::Physical(PhysAddr(addr)), tier: Tier::Root, bytes: 4 }
}

/// Pool frames start at 0x200.
/// * insert (0, vpn 0x400): space 0's root pair (spaces 0 and 1) gets frame
///   0x200, so root_pa(0) = 0x20_0000 and root_pa(1) = 0x20_0800; UPT page
///   0x400 / 1024 = 1 gets frame 0x201.
///   walk(0, 0x40_0123) = UPT_BASE + 0x400 * 4 = 0xC000_1000 (user, mapped);
///   walk(0, 0xC000_1000) = 0x20_0000 + ((0xC000_1000 - 0xC000_0000) >> 12) * 4
///   = 0x20_0004 (root, physical). The root PTE holds 0x201, so the UPTE is
///   at physical 0x201 * 4096 + 0 = 0x20_1000 and holds the frame 0x1000.
/// * insert (1, vpn 0x7FFFF) (the last user page): same root frame; UPT page
///   511 gets frame 0x202. walk(1, 0x7FFF_FFFC) = 0xC000_0000 + 1 * 2 MB +
///   0x7FFFF * 4 = 0xC03F_FFFC; walk of that = 0x20_0800 + 511 * 4 = 0x20_0FFC.
///   UPTE at 0x202 * 4096 + 0xFFC = 0x20_2FFC.
/// * insert (3, vpn 0): root pair 1 gets frame 0x203, root_pa(3) = 0x20_3800;
///   UPT page 0 gets 0x204. walk(3, 0) = 0xC000_0000 + 3 * 2 MB = 0xC060_0000;
///   walk of that = 0x20_3800.
#[test]
fn mips_hand_worked_two_tier_walks() {
    let mut pool = FramePool::new(4096, 0x200, 64);
    let mut t = Ultrix::new();
    t.insert(Asid(0), Vpn(0x400), Pfn(0x1000), &mut pool).unwrap();
    t.insert(Asid(1), Vpn(0x7FFFF), Pfn(0x1001), &mut pool).unwrap();
    t.insert(Asid(3), Vpn(0), Pfn(0x1002), &mut pool).unwrap();
    assert_eq!(t.root_pa(Asid(0)), Some(PhysAddr(0x20_0000)));
    assert_eq!(t.root_pa(Asid(1)), Some(PhysAddr(0x20_0800)));
    assert_eq!(t.root_pa(Asid(3)), Some(PhysAddr(0x20_3800)));
    assert_eq!(t.root_pa(Asid(4)), None);

    assert_eq!(one(&t, 0, 0x40_0123), user(0xC000_1000));
    assert_eq!(one(&t, 0, 0xC000_1000), root(0x20_0004));
    assert_eq!(t.pte_at(PhysAddr(0x20_0004)), Some(Pfn(0x201)));
    assert_eq!(t.pte_at(PhysAddr(0x20_1000)), Some(Pfn(0x1000)));

    assert_eq!(one(&t, 1, 0x7FFF_FFFC), user(0xC03F_FFFC));
    assert_eq!(one(&t, 1, 0xC03F_FFFC), root(0x20_0FFC));
    assert_eq!(t.pte_at(PhysAddr(0x20_0FFC)), Some(Pfn(0x202)));
    assert_eq!(t.pte_at(PhysAddr(0x20_2FFC)), Some(Pfn(0x1001)));

    assert_eq!(one(&t, 3, 0), user(0xC060_0000));
    assert_eq!(one(&t, 3, 0xC060_0000), root(0x20_3800));
    assert_eq!(t.pte_at(PhysAddr(0x20_3800)), Some(Pfn(0x204)));
    // Root entries of UPT pages without a frame are invalid.
    assert_eq!(t.pte_at(PhysAddr(0x20_0008)), None);
    // kseg2 is global: space 0's handler walking space 3's UPT address
    // reads space 3's root.
    assert_eq!(one(&t, 0, 0xC060_0000), root(0x20_3800));

    // 2 root frames + 3 UPT pages; useful: 3 UPTEs + 3 root PTEs.
    assert_eq!(
        t.memory(),
        TableMemory {
            bytes: 5 * 4096,
            useful_bytes: 6 * 4,
            parts: vec![("root tables".into(), 8192), ("user page tables".into(), 3 * 4096)],
        }
    );
    // Another page in an existing UPT page costs no frame.
    t.insert(Asid(0), Vpn(0x401), Pfn(0x1003), &mut pool).unwrap();
    assert_eq!((t.memory().bytes, t.memory().useful_bytes), (5 * 4096, 7 * 4));
    // Removing space 3's only page frees its UPT page; its root stays.
    t.remove(Asid(3), Vpn(0), &mut pool).unwrap();
    assert_eq!(t.memory().bytes, 4 * 4096);
    assert_eq!(pool.in_use(), 4);
    assert_eq!(t.pte_at(PhysAddr(0x20_3800)), None);
    assert_eq!(t.lookup(Asid(3), Vpn(0)), None);
    assert_eq!(t.lookup(Asid(0), Vpn(0x401)), Some(Pfn(0x1003)));
}

#[test]
fn mips_errors() {
    let mut pool = FramePool::new(4096, 0, 1);
    let mut t = Ultrix::new();
    assert_eq!(
        t.insert(Asid(256), Vpn(0), Pfn(1), &mut pool),
        Err(TableError::SpaceOutOfRange { space: Asid(256), max_spaces: 256 })
    );
    assert_eq!(
        t.insert(Asid(0), Vpn(0x80000), Pfn(1), &mut pool),
        Err(TableError::OutOfRange { va: VirtAddr(0x8000_0000), bits: 31 })
    );
    assert_eq!(
        t.insert(Asid(0), Vpn(0), Pfn(1 << 20), &mut pool),
        Err(TableError::FrameOutOfRange { pfn: Pfn(1 << 20), bits: 20 })
    );
    // The root takes the only frame; the UPT page cannot be had.
    assert!(matches!(
        t.insert(Asid(0), Vpn(0), Pfn(1), &mut pool),
        Err(TableError::Frames(FrameError::Exhausted { .. }))
    ));
    assert_eq!(t.lookup(Asid(0), Vpn(0)), None);
    assert_eq!(t.remove(Asid(0), Vpn(0), &mut pool), Err(TableError::NotMapped { space: Asid(0), vpn: Vpn(0) }));
    let mut out = Vec::new();
    assert_eq!(
        t.walk(Asid(0), VirtAddr(1 << 32), &mut out),
        Err(TableError::OutOfRange { va: VirtAddr(1 << 32), bits: 32 })
    );
    assert_eq!(
        t.walk(Asid(0), VirtAddr(0x8000_0000), &mut out),
        Err(TableError::NotMapped { space: Asid(0), vpn: Vpn(0x80000) })
    );
    // Space 5 has no root table yet.
    assert_eq!(
        t.walk(Asid(5), VirtAddr(0xC0A0_0000), &mut out),
        Err(TableError::NotMapped { space: Asid(5), vpn: Vpn(0xC0A00) })
    );
    assert_eq!(
        t.walk(Asid(300), VirtAddr(0), &mut out),
        Err(TableError::SpaceOutOfRange { space: Asid(300), max_spaces: 256 })
    );
    assert!(out.is_empty());
}

/// Pool frames start at 0x300; the root table takes 0x300 at build time,
/// root_pa = 0x30_0000.
/// * insert (0, vpn 0x400): UPT page 1 gets frame 0x301. Its kernel virtual
///   address is 0xC000_1000, kernel page 0xC0001, whose KPT PTE is in KPT page
///   0xC0001 / 1024 = 0x300, which gets frame 0x302.
///   walk(0, 0x40_0000) = 0xC000_1000 (user);
///   walk(0, 0xC000_1000) = KPT_BASE + 0xC0001 * 4 = 0xFFF0_0004 (kernel, mapped);
///   walk(0, 0xFFF0_0004) = 0x30_0000 + ((0xFFF0_0004 - 0xFFC0_0000) >> 12) * 4
///   = 0x30_0000 + 0x300 * 4 = 0x30_0C00 (root, physical).
///   Reading back down: root PTE -> 0x302; KPTE at 0x302 * 4096 + 4 = 0x30_2004
///   -> 0x301; UPTE at 0x301 * 4096 + 0 = 0x30_1000 -> 0x1000.
/// * insert (1, vpn 0): UPT page 0 of space 1 at 0xC020_0000 gets 0x303; its
///   KPTE 0xC0200 is in the same KPT page 0x300, at 0xFFF0_0800.
#[test]
fn mach_hand_worked_three_tier_walks() {
    let mut pool = FramePool::new(4096, 0x300, 64);
    let mut t = Mach::new(&mut pool).unwrap();
    assert_eq!(t.root_pa(), PhysAddr(0x30_0000));
    t.insert(Asid(0), Vpn(0x400), Pfn(0x1000), &mut pool).unwrap();
    t.insert(Asid(1), Vpn(0), Pfn(0x1001), &mut pool).unwrap();

    assert_eq!(one(&t, 0, 0x40_0000), user(0xC000_1000));
    assert_eq!(
        one(&t, 0, 0xC000_1000),
        PteRef { at: PteAddr::Mapped(VirtAddr(0xFFF0_0004)), tier: Tier::Kernel, bytes: 4 }
    );
    assert_eq!(one(&t, 0, 0xFFF0_0004), root(0x30_0C00));
    assert_eq!(t.pte_at(PhysAddr(0x30_0C00)), Some(Pfn(0x302)));
    assert_eq!(t.pte_at(PhysAddr(0x30_2004)), Some(Pfn(0x301)));
    assert_eq!(t.pte_at(PhysAddr(0x30_1000)), Some(Pfn(0x1000)));

    assert_eq!(one(&t, 1, 0), user(0xC020_0000));
    assert_eq!(
        one(&t, 1, 0xC020_0000),
        PteRef { at: PteAddr::Mapped(VirtAddr(0xFFF0_0800)), tier: Tier::Kernel, bytes: 4 }
    );
    assert_eq!(t.pte_at(PhysAddr(0x30_2800)), Some(Pfn(0x303)));

    // Root + 1 KPT page + 2 UPT pages; useful: 2 UPTEs + 2 KPTEs + 1 root PTE.
    assert_eq!(
        t.memory(),
        TableMemory {
            bytes: 4 * 4096,
            useful_bytes: 5 * 4,
            parts: vec![
                ("root table".into(), 4096),
                ("kernel page table".into(), 4096),
                ("user page tables".into(), 2 * 4096),
            ],
        }
    );
    // Removing both pages frees both UPT pages and then the KPT page.
    t.remove(Asid(0), Vpn(0x400), &mut pool).unwrap();
    t.remove(Asid(1), Vpn(0), &mut pool).unwrap();
    assert_eq!(t.memory().bytes, 4096);
    assert_eq!(pool.in_use(), 1);
    assert_eq!(t.pte_at(PhysAddr(0x30_0C00)), None);
}

#[test]
fn mach_errors_leave_no_half_mapping() {
    // Root + UPT page fit; the KPT page does not.
    let mut pool = FramePool::new(4096, 0, 2);
    let mut t = Mach::new(&mut pool).unwrap();
    assert!(matches!(
        t.insert(Asid(0), Vpn(0), Pfn(1), &mut pool),
        Err(TableError::Frames(FrameError::Exhausted { .. }))
    ));
    assert_eq!(t.lookup(Asid(0), Vpn(0)), None);
    assert_eq!(pool.in_use(), 1);
    assert_eq!(t.memory().bytes, 4096);
    let mut out = Vec::new();
    assert_eq!(
        t.walk(Asid(0), VirtAddr(1 << 32), &mut out),
        Err(TableError::OutOfRange { va: VirtAddr(1 << 32), bits: 32 })
    );
    assert!(matches!(Mach::new(&mut FramePool::new(4096, 0, 0)), Err(TableError::Frames(_))));
}
