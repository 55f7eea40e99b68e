//! Flush and purge of a whole machine, by virtual range, by physical range
//! and whole, with the counts of empty, clean and dirty lines worked out by
//! hand (the working is in the comments). The machines have two levels of
//! different line sizes, so each level must count each of its own lines once.

use vmlab_addr::{Asid, PageSize, PhysAddr, VirtAddr};
use vmlab_cache::{CacheConfig, FlushStats, Indexing};
use vmlab_machine::{Flush, Machine, MachineConfig, MemoryConfig, RangeError, RangeStart};
use vmlab_trace::{AccessKind, Event};

fn r(a: u64) -> Event {
    Event::access(AccessKind::Load, VirtAddr(a), 4, Asid(0))
}
fn w(a: u64) -> Event {
    Event::access(AccessKind::Store, VirtAddr(a), 4, Asid(0))
}
fn i(a: u64) -> Event {
    Event::access(AccessKind::Ifetch, VirtAddr(a), 4, Asid(0))
}

fn config() -> MachineConfig {
    MachineConfig::bare("flush", MemoryConfig::sequential(PageSize::new(4096).expect("page"), 1 << 24))
}

/// L2: 1 KB direct-mapped PIPT of 64-byte lines (16 sets).
fn l2() -> CacheConfig {
    CacheConfig::simple(1024, 64, 1)
}

/// L1: 256 B direct-mapped PIPT of 16-byte lines (16 sets) over `l2`.
/// Page 0 is the first touched in every trace here, so it maps to frame 0
/// and a physical address equals its virtual one there.
fn two_levels() -> Machine {
    let mut cfg = config();
    cfg.l1 = Some(CacheConfig::simple(256, 16, 1));
    cfg.l2 = Some(l2());
    Machine::new(cfg).expect("valid machine")
}

/// (empty, clean, dirty).
type States = (u64, u64, u64);

fn states(f: FlushStats) -> States {
    (f.empty, f.clean, f.dirty)
}

/// Per cache, top first: what its flushes found, then its purges.
fn per_level(m: &mut Machine) -> Vec<(States, States)> {
    m.result("flush").caches.iter().map(|c| (states(c.stats.flushed), states(c.stats.purged))).collect()
}

fn feed(m: &mut Machine, evs: &[Event]) {
    m.feed(evs, "flush", 0).expect("runs");
}

/// (memory writes, bytes written).
fn memory_writes(m: &mut Machine) -> (u64, u64) {
    let mem = m.result("flush").memory;
    (mem.writes, mem.bytes_written)
}

#[test]
fn each_level_counts_its_own_lines_once() {
    // The reported case: one load at 0, then [0x00, 0x40) flushed. L1 has
    // four 16-byte lines there, 0x00 clean and three empty; L2 has one
    // 64-byte line, 0x00, clean.
    let mut m = two_levels();
    feed(&mut m, &[r(0x00)]);
    let f = m.flush_virtual_range(Asid(0), VirtAddr(0x00), 0x40, Flush::WriteBack).expect("in range");
    assert_eq!(states(f), (3, 2, 0));
    assert_eq!(per_level(&mut m), [((3, 1, 0), (0, 0, 0)), ((0, 1, 0), (0, 0, 0))]);
    assert_eq!(memory_writes(&mut m), (0, 0));
}

/// L1: 0x00 dirty, 0x20 dirty, 0x40 clean. L2: 0x00 clean (filled for
/// the first store, hit by the second's fill), 0x40 clean. Memory: 2 reads.
fn dirty_state() -> Machine {
    let mut m = two_levels();
    feed(&mut m, &[w(0x04), w(0x24), r(0x48)]);
    m
}

#[test]
fn an_unaligned_virtual_flush_writes_back_through_both_levels() {
    // [0x08, 0x48): L1 lines 0x00 (dirty), 0x10 (empty), 0x20 (dirty),
    // 0x30 (empty), 0x40 (clean): empty 2, clean 1, dirty 2, and two
    // 16-byte write-backs that hit L2's line 0x00 and make it dirty. Then
    // L2's lines 0x00 (dirty now) and 0x40 (clean): one 64-byte write to
    // memory. Total: empty 2, clean 2, dirty 3.
    let mut m = dirty_state();
    let f = m.flush_virtual_range(Asid(0), VirtAddr(0x08), 0x40, Flush::WriteBack).expect("in range");
    assert_eq!(states(f), (2, 2, 3));
    assert_eq!(per_level(&mut m), [((2, 1, 2), (0, 0, 0)), ((0, 1, 1), (0, 0, 0))]);
    let res = m.result("flush");
    let (l1, l2) = (&res.caches[0].stats, &res.caches[1].stats);
    assert_eq!((l1.writebacks, l1.bytes_out), (2, 32));
    assert_eq!((l2.write.accesses, l2.write.misses), (2, 0));
    assert_eq!((l2.writebacks, l2.bytes_out), (1, 64));
    assert_eq!(memory_writes(&mut m), (1, 64));
}

#[test]
fn a_virtual_purge_drops_dirty_lines_without_writing_them() {
    // The same range purged: L1 as above but nothing written to L2, whose
    // line 0x00 stays clean: L2 clean 2. Total: empty 2, clean 3, dirty 2.
    let mut m = dirty_state();
    let f = m.flush_virtual_range(Asid(0), VirtAddr(0x08), 0x40, Flush::Discard).expect("in range");
    assert_eq!(states(f), (2, 3, 2));
    assert_eq!(per_level(&mut m), [((0, 0, 0), (2, 1, 2)), ((0, 0, 0), (0, 2, 0))]);
    let res = m.result("flush");
    assert_eq!((res.caches[0].stats.writebacks, res.caches[1].stats.write.accesses), (0, 0));
    assert_eq!(memory_writes(&mut m), (0, 0));
}

#[test]
fn whole_machine_flush_and_purge() {
    // Every frame once: L1 16 frames, of which 0x00 and 0x20 dirty and
    // 0x40 clean (13 empty); L2 16 frames, 0x00 and 0x40 clean (14 empty).
    // Flush: L1's two write-backs hit L2's line 0x00, which is then dirty:
    // L2 empty 14, clean 1, dirty 1, one 64-byte write to memory.
    let mut m = dirty_state();
    assert_eq!(states(m.flush_all(Flush::WriteBack)), (27, 2, 3));
    assert_eq!(per_level(&mut m), [((13, 1, 2), (0, 0, 0)), ((14, 1, 1), (0, 0, 0))]);
    assert_eq!(memory_writes(&mut m), (1, 64));
    // Purge: nothing reaches L2 (clean 2) or memory.
    let mut m = dirty_state();
    assert_eq!(states(m.flush_all(Flush::Discard)), (27, 3, 2));
    assert_eq!(per_level(&mut m), [((0, 0, 0), (13, 1, 2)), ((0, 0, 0), (14, 2, 0))]);
    assert_eq!(memory_writes(&mut m), (0, 0));
    // Either way the machine is empty after: 32 frames, all empty.
    assert_eq!(states(m.flush_all(Flush::Discard)), (32, 0, 0));
    // Not a trace event.
    assert_eq!(m.result("flush").events.flush_all, 0);
}

#[test]
fn split_caches_of_different_lines_each_count_their_own() {
    // l1i: 256 B of 32-byte lines, l1d: 256 B of 16-byte lines, over L2's
    // 64-byte lines. An ifetch at 0x00 fills l1i's line 0x00 (and L2's
    // 0x00); a load at 0x10 fills l1d's line 0x10 (an L2 hit). In
    // [0x00, 0x40): l1i lines 0x00 (clean), 0x20 (empty); l1d lines 0x00,
    // 0x10 (clean), 0x20, 0x30; L2 line 0x00 (clean).
    let mut cfg = config();
    cfg.l1i = Some(CacheConfig::simple(256, 32, 1));
    cfg.l1d = Some(CacheConfig::simple(256, 16, 1));
    cfg.l2 = Some(l2());
    let mut m = Machine::new(cfg).expect("valid machine");
    feed(&mut m, &[i(0x00), r(0x10)]);
    let f = m.flush_virtual_range(Asid(0), VirtAddr(0x00), 0x40, Flush::WriteBack).expect("in range");
    assert_eq!(states(f), (4, 3, 0));
    let flushed: Vec<States> = per_level(&mut m).iter().map(|(f, _)| *f).collect();
    assert_eq!(flushed, [(1, 1, 0), (3, 1, 0), (0, 1, 0)]);
}

#[test]
fn untouched_pages_are_empty_and_stay_unmapped() {
    // Page 0 -> frame 0 (0x0ff8 touched first), page 2 -> frame 1 (0x2000,
    // physical 0x1000); page 1 never touched. [0x0ff0, 0x2010):
    // L1 (16-byte lines): 0x0ff0 clean; page 1's 256 lines empty; 0x2000
    // clean. L2 (64-byte lines): 0x0fc0 clean; page 1's 64 lines empty;
    // 0x2000 clean. Total: empty 320, clean 4.
    let mut m = two_levels();
    feed(&mut m, &[r(0x0ff8), r(0x2000)]);
    let f = m.flush_virtual_range(Asid(0), VirtAddr(0x0ff0), 0x1020, Flush::WriteBack).expect("in range");
    assert_eq!(states(f), (320, 4, 0));
    assert_eq!(per_level(&mut m), [((256, 2, 0), (0, 0, 0)), ((64, 2, 0), (0, 0, 0))]);
    assert_eq!(m.result("flush").pages_mapped, 2);
}

#[test]
fn empty_ranges_and_the_end_of_the_address_space() {
    let mut m = two_levels();
    feed(&mut m, &[r(0x00)]);
    // Length 0: nothing looked up, nothing counted.
    assert_eq!(states(m.flush_virtual_range(Asid(0), VirtAddr(0x00), 0, Flush::WriteBack).expect("empty")), (0, 0, 0));
    assert_eq!(states(m.flush_physical_range(PhysAddr(0x00), 0, Flush::Discard).expect("empty")), (0, 0, 0));
    assert_eq!(per_level(&mut m), [((0, 0, 0), (0, 0, 0)), ((0, 0, 0), (0, 0, 0))]);
    // A range may end at the last address: one line in each level, on a
    // page never touched (virtual) or beyond memory (physical): empty.
    let top = u64::MAX - 0xf;
    assert_eq!(
        states(
            m.flush_virtual_range(Asid(0), VirtAddr(top), 0x10, Flush::WriteBack).expect("ends at the last address")
        ),
        (2, 0, 0)
    );
    assert_eq!(
        states(m.flush_physical_range(PhysAddr(top), 0x10, Flush::WriteBack).expect("ends at the last address")),
        (2, 0, 0)
    );
    // One byte further is refused, and changes nothing.
    let e = m.flush_virtual_range(Asid(0), VirtAddr(top), 0x11, Flush::WriteBack).expect_err("past the end");
    assert_eq!(e, RangeError { start: RangeStart::Virtual(VirtAddr(top)), len: 0x11 });
    assert_eq!(
        e.to_string(),
        "the virtual range of 17 bytes at 0xfffffffffffffff0 passes the last address, 0xffffffffffffffff"
    );
    assert!(m.flush_physical_range(PhysAddr(u64::MAX), 2, Flush::WriteBack).is_err());
    assert_eq!(per_level(&mut m), [((2, 0, 0), (0, 0, 0)), ((2, 0, 0), (0, 0, 0))]);
    // The load's lines are still there.
    assert_eq!(states(m.flush_all(Flush::WriteBack)), (30, 2, 0));
}

#[test]
fn an_untagged_virtual_cache_flushes_homonyms_of_unmapped_pages() {
    // One VIVT level, 256 B of 16-byte lines. Address space 1 loads 0x1000;
    // address space 0 never maps page 1. Flushing [0x1000, 0x1010) of
    // space 0 finds space 1's line when the tags carry no ASID (a lookup
    // by virtual address matches it), and nothing when they do.
    for (asid_tags, found) in [(false, (0, 1, 0)), (true, (1, 0, 0))] {
        let mut c = CacheConfig::simple(256, 16, 1);
        c.indexing = Indexing::Vivt;
        c.asid_tags = asid_tags;
        let mut cfg = config();
        cfg.l1 = Some(c);
        let mut m = Machine::new(cfg).expect("valid machine");
        feed(&mut m, &[Event::access(AccessKind::Load, VirtAddr(0x1000), 4, Asid(1))]);
        let f = m.flush_virtual_range(Asid(0), VirtAddr(0x1000), 0x10, Flush::WriteBack).expect("in range");
        assert_eq!(states(f), found, "asid_tags = {asid_tags}");
        let resident = m.hierarchy().caches()[0].1.resident().len();
        assert_eq!(resident, if asid_tags { 1 } else { 0 });
    }
}

/// A VIVT L1 with ASID tags, 256 B, 2 ways of 16-byte lines (8 sets: the
/// set is virtual bits 4..6), over `l2` (PIPT). Pages 0x1000 and 0x2000
/// share frame 0, so both aliases of a line index set 0 of L1 and are
/// two copies in its two ways. A store through each alias of physical
/// line 0x00 (fill from L2's line 0x00, a miss, then a hit), a load of
/// 0x1030 (physical 0x30: L1 clean, an L2 hit) and one of 0x1040
/// (physical 0x40: clean in L1 and in L2's line 0x40).
fn synonyms() -> Machine {
    let mut c = CacheConfig::simple(256, 16, 2);
    c.indexing = Indexing::Vivt;
    c.asid_tags = true;
    let mut cfg = config();
    cfg.l1 = Some(c);
    cfg.l2 = Some(l2());
    let mut m = Machine::new(cfg).expect("valid machine");
    m.share_page(Asid(0), VirtAddr(0x1000), Asid(0), VirtAddr(0x2000)).expect("frames");
    feed(&mut m, &[w(0x1004), w(0x2008), r(0x1030), r(0x1040)]);
    assert_eq!(m.translate(Asid(0), VirtAddr(0x2008)).expect("mapped").0, 0x08);
    m
}

/// L1's resident lines as (virtual, physical, dirty).
fn l1_lines(m: &mut Machine) -> Vec<(u64, u64, bool)> {
    m.hierarchy().caches()[0].1.resident().iter().map(|e| (e.vaddr.0, e.paddr.0, e.dirty)).collect()
}

#[test]
fn a_physical_flush_writes_back_every_synonym() {
    // [0x00, 0x40): L1 physical lines 0x00 (two copies, both dirty), 0x10
    // and 0x20 (no copy: empty), 0x30 (clean): empty 2, clean 1, dirty 2.
    // The two 16-byte write-backs hit L2's line 0x00, now dirty; L2's one
    // line of the range, 0x00: dirty, one 64-byte write to memory.
    let mut m = synonyms();
    let f = m.flush_physical_range(PhysAddr(0x00), 0x40, Flush::WriteBack).expect("in range");
    assert_eq!(states(f), (2, 1, 3));
    assert_eq!(per_level(&mut m), [((2, 1, 2), (0, 0, 0)), ((0, 0, 1), (0, 0, 0))]);
    let res = m.result("flush");
    assert_eq!((res.caches[0].stats.writebacks, res.caches[1].stats.write.accesses), (2, 2));
    assert_eq!(memory_writes(&mut m), (1, 64));
    // Only the line outside the range is left.
    assert_eq!(l1_lines(&mut m), [(0x1040, 0x40, false)]);
}

#[test]
fn a_virtual_flush_of_one_alias_leaves_the_other_dirty() {
    // What the physical flush is for: [0x1000, 0x1040) of space 0 finds
    // L1 lines 0x1000 (dirty), 0x1010, 0x1020 (empty), 0x1030 (clean); its
    // write-back dirties L2's line 0x00, which is then flushed to memory.
    // The alias 0x2000 stays in L1, dirty.
    let mut m = synonyms();
    let f = m.flush_virtual_range(Asid(0), VirtAddr(0x1000), 0x40, Flush::WriteBack).expect("in range");
    assert_eq!(states(f), (2, 1, 2));
    assert_eq!(per_level(&mut m), [((2, 1, 1), (0, 0, 0)), ((0, 0, 1), (0, 0, 0))]);
    assert_eq!(l1_lines(&mut m), [(0x2000, 0x00, true), (0x1040, 0x40, false)]);
}

#[test]
fn a_physical_purge_drops_every_synonym_unwritten() {
    // As the flush, but nothing written: L2's line 0x00 stays clean.
    let mut m = synonyms();
    let f = m.flush_physical_range(PhysAddr(0x00), 0x40, Flush::Discard).expect("in range");
    assert_eq!(states(f), (2, 2, 2));
    assert_eq!(per_level(&mut m), [((0, 0, 0), (2, 1, 2)), ((0, 0, 0), (0, 1, 0))]);
    let res = m.result("flush");
    assert_eq!((res.caches[0].stats.writebacks, res.caches[1].stats.write.accesses), (0, 0));
    assert_eq!(memory_writes(&mut m), (0, 0));
    assert_eq!(l1_lines(&mut m), [(0x1040, 0x40, false)]);
}

#[test]
fn a_flush_leaves_the_run_loop_nothing_stale() {
    // The repeat-line shortcut and the inline loop must not count a hit on
    // a line a flush removed. [0x00, 0x10) purged: L1's line 0x00 and
    // L2's line 0x00 (which the range touches too), so the same load again
    // misses in both (L1 read misses 2, L2 2, memory reads 2). Then the
    // whole machine purged: a third load misses in both again (3, 3, 3).
    let mut m = two_levels();
    let read_misses = |m: &mut Machine| {
        let res = m.result("flush");
        (res.caches[0].stats.read.misses, res.caches[1].stats.read.misses, res.memory.reads)
    };
    feed(&mut m, &[r(0x00)]);
    m.flush_virtual_range(Asid(0), VirtAddr(0x00), 0x10, Flush::Discard).expect("in range");
    feed(&mut m, &[r(0x00)]);
    assert_eq!(read_misses(&mut m), (2, 2, 2));
    m.flush_all(Flush::Discard);
    feed(&mut m, &[r(0x00)]);
    assert_eq!(read_misses(&mut m), (3, 3, 3));
}

#[test]
fn a_whole_address_space_flush_visits_only_what_can_be_present() {
    // `dirty_state` (L1: 0x00 and 0x20 dirty, 0x40 clean; L2: 0x00 and
    // 0x40 clean), then all of [0, 2^48) flushed: 2^48 / 16 = 2^44 L1
    // lines, of which three are present; 2^48 / 64 = 2^42 L2 lines, of
    // which two are present, and L1's two dirty lines are written into
    // L2's line 0x00, which the flush of L2 (after L1's) finds dirty:
    // L1 (2^44 - 3, 1, 2), L2 (2^42 - 2, 1, 1), in all 2 clean, 3 dirty.
    // Walking 2^44 lines one by one would not end; this must.
    let mut m = dirty_state();
    let f = m.flush_virtual_range(Asid(0), VirtAddr(0), 1 << 48, Flush::WriteBack).expect("in range");
    let (l1_empty, l2_empty) = ((1u64 << 44) - 3, (1u64 << 42) - 2);
    assert_eq!(states(f), (l1_empty + l2_empty, 2, 3));
    assert_eq!(per_level(&mut m), [((l1_empty, 1, 2), (0, 0, 0)), ((l2_empty, 1, 1), (0, 0, 0))]);
    // L2's dirty 0x00 goes to memory (64 bytes); 0x40 was clean.
    assert_eq!(memory_writes(&mut m), (1, 64));
    // The same machine state flushed over just the touched page gives the
    // same non-empty counts: 4096 / 16 - 3 and 4096 / 64 - 2 empties.
    let mut small = dirty_state();
    let g = small.flush_virtual_range(Asid(0), VirtAddr(0), 4096, Flush::WriteBack).expect("in range");
    assert_eq!(states(g), (253 + 62, 2, 3));
}

#[test]
fn a_whole_address_space_flush_of_an_untagged_virtual_cache_finds_homonyms() {
    // The untagged VIVT level of the homonym test (256 B, 16-byte lines,
    // 16 frames): space 1 loads 0x1000 (set 0) and stores 0x2014 (set 1).
    // Flushing all of
    // [0, 2^40) for space 0 (which maps nothing) finds both lines by
    // virtual address: 2^36 lines, 2^36 - 2 empty, one clean, one dirty.
    let mut c = CacheConfig::simple(256, 16, 1);
    c.indexing = Indexing::Vivt;
    let mut cfg = config();
    cfg.l1 = Some(c);
    let mut m = Machine::new(cfg).expect("valid machine");
    let space1 = |k, a| Event::access(k, VirtAddr(a), 4, Asid(1));
    feed(&mut m, &[space1(AccessKind::Load, 0x1000), space1(AccessKind::Store, 0x2014)]);
    let f = m.flush_virtual_range(Asid(0), VirtAddr(0), 1 << 40, Flush::WriteBack).expect("in range");
    assert_eq!(states(f), ((1 << 36) - 2, 1, 1));
    assert_eq!(m.hierarchy().caches()[0].1.resident().len(), 0);
    // The dirty line reached memory: one 16-byte write.
    assert_eq!(memory_writes(&mut m), (1, 16));
}
