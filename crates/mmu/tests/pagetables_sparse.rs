//! Address-space descriptions and the memory each organisation needs.

#![allow(clippy::unwrap_used)] // a test failing on an unexpected error is the point

use vmlab_addr::{Asid, Vpn};
use vmlab_mmu::pagetable::{TableKind, TableParams};
use vmlab_mmu::sparse::{memory_table, Layout, MemoryRow, Region, RegionKind, SpaceDescription};

fn bytes(rows: &[MemoryRow], kind: TableKind) -> u64 {
    let row = rows.iter().find(|r| r.table == kind).unwrap();
    assert_eq!(row.error, None, "{kind}");
    row.bytes
}

#[test]
fn presets_have_the_same_pages_differently_spread() {
    let dense = Layout::dense().describe().unwrap();
    let sparse = Layout::sparse().describe().unwrap();
    // dense: 256 text + 64 data + 2176 heap + 64 stack;
    // sparse: 256 + 64 + 256 + 64 + 16 x (64 + 8) + 16 x 32 + 16 x 16.
    assert_eq!(dense.page_count(), 2560);
    assert_eq!(sparse.page_count(), 256 + 64 + 256 + 64 + 16 * 72 + 16 * 32 + 16 * 16);
    assert_eq!(sparse.page_count(), 2560);
    assert_eq!(sparse.regions.iter().filter(|r| r.kind == RegionKind::SharedLibrary).count(), 32);
    // The 16th thread stack: 0x7F00_0000 - 15 x 8 MB = 0x7780_0000, its 32
    // pages just below.
    assert!(sparse.regions.contains(&Region {
        space: Asid(0),
        kind: RegionKind::Stack,
        first_vpn: Vpn(0x77800 - 32),
        pages: 32
    }));
    assert!(Layout::preset("spars").is_err());
}

/// Two pages of space 0, vpn 0x400 (va 0x40_0000) and vpn 0x7FFFF (the
/// last user page), on a 256-frame (1 MB) machine:
/// * mips: a root frame + UPT pages 1 and 511 = 3 frames;
/// * mach: root + the same 2 UPT pages + 1 KPT page (kernel pages 0xC0001
///   and 0xC01FF are both in KPT page 0x300) = 4;
/// * puma: a root frame + global table pages 1 (VSID 0) and 0x1FF (VSID 7,
///   page index 0xFFFF) = 3;
/// * x86-2level: page directory + page tables for PDEs 1 and 511 = 3;
/// * x86-4level: PML4 + one PDPT + PDs for 1 GB regions 0 and 1 + 2 PTs = 6;
/// * parisc: 256 x 2 = 512 entries x 16 B = 2 frames; buckets
///   (0x400 ^ 0x400 >> 9) & 511 = 2 and (0x7FFFF ^ 0x3FF) & 511 = 0 differ,
///   so no overflow page;
/// * powerpc: 1 MB / 128 = 8 KB, below the 64 KB minimum: 16 frames.
#[test]
fn hand_built_space_exact_memory() {
    let d = SpaceDescription::from_pages("two", [(Asid(0), Vpn(0x7FFFF)), (Asid(0), Vpn(0x400))]);
    assert_eq!(d.regions.len(), 2);
    let params = TableParams { phys_frames: 256, ..TableParams::default() };
    let rows = memory_table(&d, &TableKind::ALL, &params);
    let want = [
        (TableKind::Mips, 3),
        (TableKind::Mach, 4),
        (TableKind::Puma, 3),
        (TableKind::X86TwoLevel, 3),
        (TableKind::X86FourLevel, 6),
        (TableKind::Parisc, 2),
        (TableKind::Powerpc, 16),
    ];
    for (kind, frames) in want {
        assert_eq!(bytes(&rows, kind), frames * 4096, "{kind}");
    }
    let mips = rows.iter().find(|r| r.table == TableKind::Mips).unwrap();
    assert_eq!(mips.useful_bytes, 4 * 4, "2 UPTEs + 2 root PTEs");
    assert_eq!(mips.chains, None);
    let chains = rows.iter().find(|r| r.table == TableKind::Parisc).unwrap().chains.clone().unwrap();
    assert_eq!((chains.buckets, chains.occupied, chains.mappings, chains.max_chain), (512, 2, 2, 1));
    assert_eq!(mips.bytes_per_page, 3.0 * 4096.0 / 2.0);
}

#[test]
fn sparsity_grows_linear_and_radix_tables_not_hashed_ones() {
    let params = TableParams { phys_frames: 1 << 16, ..TableParams::default() };
    let dense = memory_table(&Layout::dense().describe().unwrap(), &TableKind::ALL, &params);
    let sparse = memory_table(&Layout::sparse().describe().unwrap(), &TableKind::ALL, &params);
    // ULTRIX, dense: text..heap (pages 0x400..0xE00) in UPT pages 1-3, the
    // stack in 511, + the root frame = 5 frames. Sparse: text..heap in UPT
    // page 1, the stack in 511, and each of the 16 libraries, 16 thread
    // stacks and 16 mmaps in a UPT page of its own (each is 32 or 8 MB from
    // the next, so 4 MB apart at least) = 50, + the root = 51.
    assert_eq!(bytes(&dense, TableKind::Mips), 5 * 4096);
    assert_eq!(bytes(&sparse, TableKind::Mips), 51 * 4096);
    for kind in [TableKind::Mips, TableKind::Mach, TableKind::Puma, TableKind::X86TwoLevel, TableKind::X86FourLevel] {
        assert!(
            bytes(&sparse, kind) > 5 * bytes(&dense, kind),
            "{kind}: {} vs {}",
            bytes(&sparse, kind),
            bytes(&dense, kind)
        );
    }
    // The same number of pages: the PowerPC table is identical, the PA-RISC
    // hash table too (only its overflow pages may differ).
    assert_eq!(bytes(&sparse, TableKind::Powerpc), bytes(&dense, TableKind::Powerpc));
    let part = |rows: &[MemoryRow]| rows.iter().find(|r| r.table == TableKind::Parisc).unwrap().parts[0].1;
    assert_eq!(part(&sparse), part(&dense));
    // One process's 2 MB of user table lies in one 4 MB kernel-table page:
    // MACH costs ULTRIX plus that page (its 4 KB root equals ULTRIX's root
    // frame), dense or sparse. Its sparse penalty is in TLB misses, not here.
    for rows in [&dense, &sparse] {
        assert_eq!(bytes(rows, TableKind::Mach), bytes(rows, TableKind::Mips) + 4096);
    }
}

#[test]
fn errors_are_rows_not_panics() {
    // A 64-bit stack page cannot be mapped by any 2 GB organisation...
    let d = SpaceDescription::from_pages("x86-64", [(Asid(0), Vpn(0x400)), (Asid(0), Vpn(0x1FFEFFF))]);
    assert!(d.validate().is_err());
    let params = TableParams { phys_frames: 1024, ..TableParams::default() };
    let rows = memory_table(&d, &TableKind::ALL, &params);
    let mips = rows.iter().find(|r| r.table == TableKind::Mips).unwrap();
    assert!(mips.error.as_deref().unwrap().contains("31-bit"), "{:?}", mips.error);
    assert_eq!(rows.iter().find(|r| r.table == TableKind::X86FourLevel).unwrap().error, None);
    // ...until it is folded: segment 0x1FF (256 MB units) takes free user
    // segment 1, keeping its offset 0xFFF within the segment's 0x10000 pages.
    let f = d.fold_into_user_space().unwrap();
    assert_eq!(f.pages().collect::<Vec<_>>(), vec![(Asid(0), Vpn(0x400)), (Asid(0), Vpn(0x1EFFF))]);
    assert!(memory_table(&f, &TableKind::ALL, &params).iter().all(|r| r.error.is_none()));
    // Nine 256 MB segments above 2 GB do not fit the eight user segments:
    // they fold as 128 MB chunks (0x8000 pages) into chunks 0, 1, ... 8.
    let nine = SpaceDescription::from_pages("nine", (0..9u64).map(|s| (Asid(0), Vpn((8 + s) << 16))));
    let folded: Vec<u64> = nine.fold_into_user_space().unwrap().pages().map(|p| p.1 .0).collect();
    assert_eq!(folded, (0..9u64).map(|c| c << 15).collect::<Vec<_>>());
    // 513 distinct 4 MB chunks above 2 GB cannot fit the 512 of 2 GB.
    let many = SpaceDescription::from_pages("many", (0..513u64).map(|i| (Asid(0), Vpn(0x80000 + (i << 10)))));
    assert!(many.fold_into_user_space().unwrap_err().contains("513 4 MB chunks"));
    // Folding keeps the number of 4 MB regions, so ULTRIX needs the same
    // table pages: 5 regions scattered over 64-bit space -> 5 UPT pages.
    let wide = SpaceDescription::from_pages("wide", (0..5u64).map(|i| (Asid(0), Vpn((i + 1) << 30 >> 12 << 8))));
    let rows = memory_table(&wide.fold_into_user_space().unwrap(), &[TableKind::Mips], &params);
    assert_eq!(rows[0].bytes, (1 + 5) * 4096);
    // Too little memory is an error row.
    let tiny = TableParams { phys_frames: 2, ..TableParams::default() };
    let rows = memory_table(&Layout::dense().describe().unwrap(), &[TableKind::Mips], &tiny);
    assert!(rows[0].error.as_deref().unwrap().contains("out of physical memory"));
}
