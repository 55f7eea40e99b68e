//! Exact counts on small traces worked out by hand (the working is in the
//! comments). Each policy combination has one.

use vmlab_addr::PageSize;
use vmlab_cache::{Assoc, CacheConfig, Indexing, RefKind, Replacement, WriteMissPolicy, WritePolicy};
use vmlab_machine::{Machine, MachineConfig, MemoryConfig, RunResult, StatsConfig};
use vmlab_trace::{AccessKind, Event};

fn machine_with(l1: CacheConfig) -> Machine {
    let mut cfg = MachineConfig::bare("hand", MemoryConfig::sequential(PageSize::new(4096).expect("page"), 1 << 24));
    cfg.stats = StatsConfig { classify_misses: true };
    cfg.l1 = Some(l1);
    Machine::new(cfg).expect("valid machine")
}

fn r(a: u64) -> Event {
    Event::access(AccessKind::Load, a, 4, 0)
}
fn w(a: u64) -> Event {
    Event::access(AccessKind::Store, a, 4, 0)
}

fn run(m: &mut Machine, evs: &[Event]) -> RunResult {
    m.feed(evs, "hand", 0).expect("runs");
    m.result("hand")
}

/// (accesses, misses, compulsory, capacity, conflict)
fn kind(res: &RunResult, k: RefKind) -> (u64, u64, u64, u64, u64) {
    let s = res.caches[0].stats.kind(k);
    (s.accesses, s.misses, s.compulsory, s.capacity, s.conflict)
}

#[test]
fn direct_mapped_write_back_allocate() {
    // 64 B, 16 B lines, 4 sets. Page 0 maps to frame 0, so pa == va.
    let mut m = machine_with(CacheConfig::simple(64, 16, 1));
    let res = run(
        &mut m,
        &[
            r(0x00), // miss, compulsory; fetch
            r(0x04), // hit
            w(0x40), // set 0: miss, compulsory; evicts clean line 0; fetch (4 B < line)
            r(0x00), // miss; evicts dirty line 4 -> write-back; FA {0,4} holds 0: conflict
            r(0x10), // compulsory
            r(0x20), // compulsory
            r(0x30), // compulsory; FA (4 lines) drops line 4
            r(0x50), // set 1, compulsory; FA drops line 0
            r(0x40), // set 0 miss; not in FA, seen before: capacity
        ],
    );
    assert_eq!(kind(&res, RefKind::Read), (8, 7, 5, 1, 1));
    assert_eq!(kind(&res, RefKind::Write), (1, 1, 1, 0, 0));
    let s = &res.caches[0].stats;
    assert_eq!((s.fetches, s.writebacks, s.write_throughs), (8, 1, 0));
    assert_eq!((s.bytes_in, s.bytes_out), (128, 16));
    assert_eq!((res.memory.reads, res.memory.bytes_read), (8, 128));
    assert_eq!((res.memory.writes, res.memory.bytes_written), (1, 16));
}

#[test]
fn write_through_no_allocate() {
    let mut c = CacheConfig::simple(64, 16, 1);
    c.write = WritePolicy::WriteThrough;
    c.write_miss = WriteMissPolicy::NoWriteAllocate;
    let mut m = machine_with(c);
    let res = run(
        &mut m,
        &[
            r(0x00), // miss, compulsory, fetch
            w(0x40), // miss, not allocated, written through; first miss of line 4: compulsory
            r(0x00), // hit: the write did not displace line 0
            w(0x00), // hit, written through
            r(0x40), // miss; line 4 missed before and is not in FA: capacity
        ],
    );
    assert_eq!(kind(&res, RefKind::Read), (3, 2, 1, 1, 0));
    assert_eq!(kind(&res, RefKind::Write), (2, 1, 1, 0, 0));
    let s = &res.caches[0].stats;
    assert_eq!((s.fetches, s.writebacks, s.write_throughs), (2, 0, 2));
    assert_eq!((s.bytes_in, s.bytes_out), (32, 8));
    assert_eq!((res.memory.writes, res.memory.bytes_written), (2, 8));
}

#[test]
fn write_through_allocate_and_write_back_no_allocate() {
    let mut wt = CacheConfig::simple(64, 16, 1);
    wt.write = WritePolicy::WriteThrough;
    let mut m = machine_with(wt);
    // Write miss allocates (fetch) and is also written through; the re-read hits.
    let res = run(&mut m, &[w(0x00), r(0x00)]);
    let s = &res.caches[0].stats;
    assert_eq!((s.fetches, s.write_throughs, s.writebacks), (1, 1, 0));
    assert_eq!(kind(&res, RefKind::Read), (1, 0, 0, 0, 0));

    let mut wb = CacheConfig::simple(64, 16, 1);
    wb.write_miss = WriteMissPolicy::NoWriteAllocate;
    let mut m = machine_with(wb);
    // Write-back but no allocate: the miss goes down; the hit after a read is absorbed.
    let res = run(&mut m, &[w(0x00), r(0x00), w(0x00), Event::FlushAll]);
    let s = &res.caches[0].stats;
    assert_eq!((s.fetches, s.write_throughs, s.writebacks), (1, 1, 1));
    // The read misses a line whose write missed before without allocating:
    // Dinero calls that a capacity miss (the line was seen, the FA cache lacks it).
    assert_eq!(kind(&res, RefKind::Read), (1, 1, 0, 1, 0));
    assert_eq!(kind(&res, RefKind::Write), (2, 1, 1, 0, 0));
    assert_eq!((s.flushed.empty, s.flushed.clean, s.flushed.dirty), (3, 0, 1));
}

#[test]
fn full_line_write_needs_no_fetch() {
    let mut m = machine_with(CacheConfig::simple(64, 16, 1));
    let res = run(&mut m, &[Event::access(AccessKind::Store, 0x00, 16, 0), Event::FlushAll]);
    let s = &res.caches[0].stats;
    assert_eq!((s.fetches, s.writebacks), (0, 1));
    assert_eq!(res.memory.reads, 0);
    assert_eq!((res.memory.writes, res.memory.bytes_written), (1, 16));
}

#[test]
fn line_crossing_reference_is_split_and_modify_is_read_then_write() {
    let mut m = machine_with(CacheConfig::simple(64, 16, 1));
    // 8 bytes at 0x0c cross into line 1: two reads, two misses.
    let res =
        run(&mut m, &[Event::access(AccessKind::Load, 0x0c, 8, 0), Event::access(AccessKind::Modify, 0x0c, 8, 0)]);
    assert_eq!(kind(&res, RefKind::Read), (4, 2, 2, 0, 0));
    assert_eq!(kind(&res, RefKind::Write), (2, 0, 0, 0, 0));
    assert_eq!(res.caches[0].stats.fetches, 2);
}

fn two_way(rep: Replacement) -> Machine {
    // 2 sets x 2 ways x 16 B: lines 0x00, 0x20, 0x40 all map to set 0.
    let mut c = CacheConfig::simple(64, 16, 2);
    c.replacement = rep;
    machine_with(c)
}

#[test]
fn lru_evicts_least_recently_used() {
    let mut m = two_way(Replacement::Lru);
    // A B A C(evicts B) B(evicts A) A(evicts C)
    let res = run(&mut m, &[r(0x00), r(0x20), r(0x00), r(0x40), r(0x20), r(0x00)]);
    assert_eq!(kind(&res, RefKind::Read), (6, 5, 3, 0, 2));
}

#[test]
fn fifo_evicts_oldest_fill() {
    let mut m = two_way(Replacement::Fifo);
    // A B A(hit) C(evicts A, the oldest fill) B(hit) A(miss, evicts B)
    let res = run(&mut m, &[r(0x00), r(0x20), r(0x00), r(0x40), r(0x20), r(0x00)]);
    assert_eq!(kind(&res, RefKind::Read).1, 4);
    let mut m = two_way(Replacement::Fifo);
    let res2 = run(&mut m, &[r(0x00), r(0x20), r(0x00), r(0x40), r(0x20), r(0x20), r(0x40)]);
    // ... then B hits, C hits: 3 misses.
    assert_eq!(kind(&res2, RefKind::Read).1, 3);
}

#[test]
fn tree_plru_and_lru_differ_as_worked() {
    // One set, 4 ways (fully associative 64 B). Lines 0..4 at 16 B each.
    let seq: Vec<Event> = [0u64, 1, 2, 3, 0, 4, 2, 0, 3, 1].iter().map(|l| r(l * 16)).collect();
    let mut c = CacheConfig::simple(64, 16, 4);
    c.replacement = Replacement::TreePlru;
    let mut m = machine_with(c);
    // PLRU: after 0,1,2,3,0 the tree points at way 2: 4 evicts 2; 2 then
    // evicts 1; 0 and 3 hit; 1 misses. 7 misses.
    assert_eq!(kind(&run(&mut m, &seq), RefKind::Read).1, 7);
    let mut c = CacheConfig::simple(64, 16, 4);
    c.assoc = Assoc::Full;
    let mut m = machine_with(c);
    // LRU: 4 evicts 1; 2, 0, 3 hit; 1 evicts 4. 6 misses, none conflict.
    let res = run(&mut m, &seq);
    assert_eq!(kind(&res, RefKind::Read), (10, 6, 5, 1, 0));
}

fn l1_with(indexing: Indexing, size: u64, ways: u32, line: u64) -> Machine {
    let mut c = CacheConfig::simple(size, line, ways);
    c.indexing = indexing;
    machine_with(c)
}

fn copies_of_frame(m: &mut Machine, pa_line: u64) -> usize {
    m.hierarchy().caches()[0].1.resident().iter().filter(|l| l.paddr == pa_line).count()
}

#[test]
fn synonyms_two_copies_in_vivt_one_in_vipt_and_pipt() {
    // Page 0x1000 and page 0x3000 share a frame; one write through each
    // alias. 8 KB 2-way: a way is one page, so both aliases index one set.
    for (indexing, copies) in [(Indexing::Vivt, 2), (Indexing::Vipt, 1), (Indexing::Pipt, 1)] {
        let mut m = l1_with(indexing, 8192, 2, 16);
        m.share_page(0, 0x1000, 0, 0x3000).expect("frames");
        let pa = m.translate(0, 0x1000).expect("mapped").0;
        m.feed(&[w(0x1000), w(0x3000)], "synonym", 0).expect("runs");
        assert_eq!(copies_of_frame(&mut m, pa), copies, "{indexing:?}");
    }
}

#[test]
fn r4000_vipt_synonym_iff_bit_12_differs() {
    // 16 KB 2-way VIPT, 32 B lines, 4 KB pages: the way is 8 KB, so bit 12
    // is an index bit above the page offset.
    for (alias, copies) in [(0x2000u64, 2usize), (0x3000, 1), (0x6000, 2), (0x5000, 1)] {
        let mut m = l1_with(Indexing::Vipt, 16384, 2, 32);
        m.share_page(0, 0x1000, 0, alias).expect("frames");
        let pa = m.translate(0, 0x1000).expect("mapped").0;
        m.feed(&[r(0x1000), r(alias)], "r4000", 0).expect("runs");
        let differs = ((0x1000 ^ alias) >> 12) & 1 == 1;
        assert_eq!(copies_of_frame(&mut m, pa), copies, "alias {alias:#x}");
        assert_eq!(copies == 2, differs);
    }
}

#[test]
fn asid_tags_keep_homonyms_apart() {
    let mut c = CacheConfig::simple(64, 16, 1);
    c.indexing = Indexing::Vivt;
    let mut untagged = machine_with(c.clone());
    c.asid_tags = true;
    let mut tagged = machine_with(c);
    let evs = [r(0x00), Event::access(AccessKind::Load, 0x00, 4, 1)];
    // Without ASIDs the second process hits on the first one's line (a homonym).
    assert_eq!(kind(&run(&mut untagged, &evs), RefKind::Read).1, 1);
    assert_eq!(kind(&run(&mut tagged, &evs), RefKind::Read).1, 2);
}

#[test]
fn flush_virtual_range_reports_line_states() {
    let mut m = machine_with(CacheConfig::simple(256, 16, 1));
    m.feed(&[r(0x00), w(0x10), r(0x20)], "flush", 0).expect("runs");
    // Lines 0x00..0x40: clean, dirty, clean, empty.
    let f = m.flush_virtual_range(0, 0x00, 0x40, false).expect("in range");
    assert_eq!((f.empty, f.clean, f.dirty), (1, 2, 1));
    assert_eq!(m.result("flush").memory.writes, 1);
    // Everything is gone now.
    let f = m.flush_virtual_range(0, 0x00, 0x40, true).expect("in range");
    assert_eq!((f.empty, f.clean, f.dirty), (4, 0, 0));
}

/// References crossing a line on a set-associative top (the associative
/// inline loop, `hit_loop::run`): both lines resident (both hit, and both
/// become the newest of their sets), then one missing (the resident piece
/// hits, the other misses and fills). A 64 B cache, 16 B lines, 2 sets of
/// 2 ways, LRU, write-back, write-allocate; page 0 maps to frame 0, so the
/// counts are the same for every indexing (VIVT with ASID tags: the loop
/// that needs no translation).
#[test]
fn associative_crossing_references() {
    for indexing in [Indexing::Vipt, Indexing::Pipt, Indexing::Vivt] {
        let mut c = CacheConfig::simple(64, 16, 2);
        c.indexing = indexing;
        c.asid_tags = indexing == Indexing::Vivt;
        let mut cfg =
            MachineConfig::bare("hand", MemoryConfig::sequential(PageSize::new(4096).expect("page"), 1 << 24));
        cfg.l1 = Some(c);
        let mut m = Machine::new(cfg).expect("valid machine");
        let r8 = |a| Event::access(AccessKind::Load, a, 8, 0);
        let w8 = |a| Event::access(AccessKind::Store, a, 8, 0);
        let res = run(
            &mut m,
            &[
                r(0x00),  // line 0, set 0: miss
                r(0x10),  // line 1, set 1: miss
                r(0x20),  // line 2, set 0: miss; set 0 = 0, 2 (newest last)
                r(0x30),  // line 3, set 1: miss; set 1 = 1, 3
                r8(0x0c), // lines 0 and 1: two hits; set 0 = 2, 0; set 1 = 3, 1
                r(0x40),  // line 4: miss, evicts 2 (0 was touched); set 0 = 0, 4
                r(0x50),  // line 5: miss, evicts 3; set 1 = 1, 5
                r(0x04),  // line 0: hit; set 0 = 4, 0
                r(0x14),  // line 1: hit; set 1 = 5, 1
                w8(0x5c), // line 5 hit (now dirty), line 6 miss: evicts clean 4, fetch; set 0 = 0, 6
                r(0x44),  // line 4: miss, evicts clean 0; set 0 = 6, 4
                r(0x58),  // line 5: hit
            ],
        );
        assert_eq!(m.inner_loop(), "associative", "{indexing:?}");
        let s = &res.caches[0].stats;
        let (rd, wr) = (s.kind(RefKind::Read), s.kind(RefKind::Write));
        assert_eq!((rd.accesses, rd.misses, wr.accesses, wr.misses), (12, 7, 2, 1), "{indexing:?}");
        assert_eq!((s.fetches, s.writebacks), (8, 0), "{indexing:?}");
        assert_eq!((res.memory.reads, res.memory.writes), (8, 0), "{indexing:?}");
    }
}
