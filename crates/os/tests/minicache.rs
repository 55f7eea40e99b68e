//! The SA-1100's mini-cache (crates/os/src/switch.rs, SA-1100 manual 6.3):
//! 512 bytes, two-way, 32-byte lines, beside the D-cache; a page selects it
//! by its page-table entry. Worked by hand: which references hit and miss
//! there, and what the flush's clean loop (Linux: 512 bytes of
//! FLUSH_BASE_MINICACHE after the 8 KB flush area) writes back.

#![allow(clippy::unwrap_used, clippy::panic)]

use vmlab_addr::VirtAddr;
use vmlab_cache::RefKind;
use vmlab_os::switch::{lines, minicache_lines, Kernel, Scheme, Skip, SwitchPreset, FLUSH_AREA_MINICACHE};

/// P0's page 0x10000 is mapped to the mini-cache; its page 0x8000 is not.
/// 8 sets of 2 ways: line 0x10000 sits in set 0, 0x10020 in set 1.
///
/// 1. read 0x10000: miss, filled (set 0)
/// 2. read 0x10004: hit
/// 3. write 0x10020: miss, not allocated (reads allocate: as the D-cache)
/// 4. read 0x10020: miss, filled (set 1)
/// 5. write 0x10024: hit, the line is now dirty
/// 6. read 0x8000: the D-cache, not the mini-cache
///
/// Then a switch to P1 flushes (mechanism `flush`): the clean loop reads
/// 16 lines of the mini flush area, two per set, which replace both ways of
/// every set (round robin): 16 misses, and in set 1 the dirty 0x10020 is
/// written back; set 0's clean 0x10000 is dropped. The invalidation then
/// drops the 16 flush-area lines.
#[test]
fn a_page_mapped_to_the_minicache_and_what_a_flush_cleans() {
    let preset = SwitchPreset::load("strongarm-sa1100").unwrap();
    let mini = preset.minicache.clone().unwrap();
    assert_eq!((mini.size.0, mini.line.0), (512, 32));
    let mut k = Kernel::new(&preset, Scheme::Flush, Skip::Nothing).unwrap();
    let (p0, p1) = (k.spawn(), k.spawn());
    k.switch_to(p0).unwrap();
    k.map_minicache(p0, VirtAddr(0x10000)).unwrap();
    k.user(RefKind::Read, VirtAddr(0x10000), 4).unwrap();
    k.user(RefKind::Read, VirtAddr(0x10004), 4).unwrap();
    k.user(RefKind::Write, VirtAddr(0x10020), 4).unwrap();
    k.user(RefKind::Read, VirtAddr(0x10020), 4).unwrap();
    k.user(RefKind::Write, VirtAddr(0x10024), 4).unwrap();
    k.user(RefKind::Read, VirtAddr(0x8000), 4).unwrap();

    assert_eq!(minicache_lines(&k), [(VirtAddr(0x10000), false), (VirtAddr(0x10020), true)]);
    let d = lines(&k, 1);
    assert!(d.contains(&(VirtAddr(0x8000), false)) && !d.iter().any(|&(a, _)| a.0 & !0xfff == 0x10000), "{d:?}");
    let s = k.minicache_stats().unwrap();
    assert_eq!((s.read.accesses, s.read.misses, s.write.accesses, s.write.misses), (3, 2, 2, 1));
    assert_eq!((s.fetches, s.writebacks, s.write_throughs), (2, 0, 1));

    let before = k.counts();
    k.switch_to(p1).unwrap();
    let c = k.counts();
    assert_eq!(c.cache_flushes - before.cache_flushes, 1);
    // The D-cache held no dirty line: the one written back is the mini-cache's.
    assert_eq!(c.lines_written_back - before.lines_written_back, 1);
    let s = k.minicache_stats().unwrap();
    assert_eq!((s.read.accesses, s.read.misses), (3 + 16, 2 + 16));
    assert_eq!((s.fetches, s.writebacks), (2 + 16, 1));
    assert_eq!(minicache_lines(&k), []);
    assert!(k.violations().is_empty(), "{:?}", k.violations());

    // P1 reads the same virtual page, not mapped to the mini-cache for it:
    // the D-cache; the mini-cache stays empty. Then P1 maps it there too
    // and reads 0x10020, where P0's dirty line was: a miss (a flush that
    // left the mini-cache alone would hit P0's line, a stale read).
    k.user(RefKind::Read, VirtAddr(0x10000), 4).unwrap();
    assert_eq!(minicache_lines(&k), []);
    assert!(lines(&k, 1).contains(&(VirtAddr(0x10000), false)));
    k.map_minicache(p1, VirtAddr(0x10000)).unwrap();
    k.user(RefKind::Read, VirtAddr(0x10020), 4).unwrap();
    assert_eq!(minicache_lines(&k), [(VirtAddr(0x10020), false)]);
    assert_eq!(k.minicache_stats().unwrap().read.misses, 2 + 16 + 1);
    assert!(k.violations().is_empty(), "{:?}", k.violations());
}

/// Dropping the flush leaves P0's dirty mini-cache line where P1's own
/// mini-mapped page at the same virtual address finds it: a stale read,
/// which the mini-cache's oracle reports.
#[test]
fn skipping_the_flush_shows_a_stale_minicache_line() {
    let preset = SwitchPreset::load("strongarm-sa1100").unwrap();
    let mut k = Kernel::new(&preset, Scheme::Flush, Skip::CacheFlush).unwrap();
    let (p0, p1) = (k.spawn(), k.spawn());
    k.switch_to(p0).unwrap();
    k.map_minicache(p0, VirtAddr(0x10000)).unwrap();
    k.user(RefKind::Read, VirtAddr(0x10000), 4).unwrap();
    k.user(RefKind::Write, VirtAddr(0x10000), 4).unwrap();
    k.switch_to(p1).unwrap();
    k.map_minicache(p1, VirtAddr(0x10000)).unwrap();
    k.user(RefKind::Read, VirtAddr(0x10000), 4).unwrap();
    assert!(!k.violations().is_empty());
}

#[test]
fn a_machine_without_a_minicache_refuses_the_attribute() {
    let mut k = Kernel::new(&SwitchPreset::load("x86-64-pcid").unwrap(), Scheme::Flush, Skip::Nothing).unwrap();
    let p = k.spawn();
    let err = k.map_minicache(p, VirtAddr(0x10000)).unwrap_err();
    assert!(err.contains("x86-64-pcid") && err.contains("no mini-cache"), "{err}");
    assert_eq!(FLUSH_AREA_MINICACHE, 0xe010_0000);
}
