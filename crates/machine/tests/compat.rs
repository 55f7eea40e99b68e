//! Compatibility modes (`vmlab_machine::Compat`) on traces worked by hand:
//! Dinero IV's end-of-run and flush copy-back (one level, two levels where
//! its order decides a count, write-through over write-back, split and
//! unified top levels) and Cachegrind's counting (a reference once per
//! level, the level below seeing only the references that missed, whole).
//! Every address lies in page 0, which maps to frame 0, so pa == va.

use vmlab_addr::{Asid, PageSize, VirtAddr};
use vmlab_cache::{CacheConfig, RefKind, WriteMissPolicy, WritePolicy};
use vmlab_machine::{Compat, Machine, MachineConfig, MemoryConfig, RunResult};
use vmlab_trace::{AccessKind, Event};

fn config() -> MachineConfig {
    MachineConfig::bare("compat", MemoryConfig::sequential(PageSize::new(4096).expect("page"), 1 << 24))
}

fn r(a: u64) -> Event {
    Event::access(AccessKind::Load, VirtAddr(a), 4, Asid(0))
}
fn w(a: u64) -> Event {
    Event::access(AccessKind::Store, VirtAddr(a), 4, Asid(0))
}
fn i(a: u64) -> Event {
    Event::access(AccessKind::Ifetch, VirtAddr(a), 4, Asid(0))
}

/// A whole run: the events, then the mode's end of run.
fn run(cfg: &MachineConfig, compat: Compat, evs: &[Event]) -> RunResult {
    let mut m = Machine::new(cfg.clone()).expect("valid machine").with_compat(compat).expect("mode allowed");
    m.feed(evs, "hand", 0).expect("runs");
    m.finish();
    m.result("hand")
}

/// (accesses, misses) of `kind` at cache `name`.
fn kind(res: &RunResult, name: &str, k: RefKind) -> (u64, u64) {
    let s = res.cache(name).expect("cache").stats.kind(k);
    (s.accesses, s.misses)
}

/// (fetches, writebacks, write_throughs, bytes_in, bytes_out) of cache `name`.
fn traffic(res: &RunResult, name: &str) -> (u64, u64, u64, u64, u64) {
    let s = &res.cache(name).expect("cache").stats;
    (s.fetches, s.writebacks, s.write_throughs, s.bytes_in, s.bytes_out)
}

/// (reads, bytes_read, writes, bytes_written) at memory.
fn memory(res: &RunResult) -> (u64, u64, u64, u64) {
    let m = &res.memory;
    (m.reads, m.bytes_read, m.writes, m.bytes_written)
}

/// (empty, clean, dirty) lines found by flushes of cache `name`.
fn flushed(res: &RunResult, name: &str) -> (u64, u64, u64) {
    let f = &res.cache(name).expect("cache").stats.flushed;
    (f.empty, f.clean, f.dirty)
}

#[test]
fn dinero_copies_back_one_level_at_the_end() {
    // 64 B, 16 B lines, 2-way: 2 sets (line & 1).
    let mut cfg = config();
    cfg.l1 = Some(CacheConfig::simple(64, 16, 2));
    let evs = [
        w(0x00), // set 0: miss, fetch, dirty
        w(0x20), // set 0: miss, fetch, dirty
        r(0x10), // set 1: miss, fetch, clean
        w(0x30), // set 1: miss, fetch, dirty
        r(0x00), // set 0: hit
    ];
    let own = run(&cfg, Compat::Vmlab, &evs);
    assert_eq!(traffic(&own, "l1"), (4, 0, 0, 64, 0));
    assert_eq!(memory(&own), (4, 64, 0, 0));
    // Dinero: the three dirty lines (0x30, then 0x20 and 0x00) are copied
    // back to memory, whole lines; the hits and misses do not change.
    let din = run(&cfg, Compat::Dinero, &evs);
    assert_eq!(kind(&din, "l1", RefKind::Read), kind(&own, "l1", RefKind::Read));
    assert_eq!(kind(&din, "l1", RefKind::Write), (3, 3));
    assert_eq!(traffic(&din, "l1"), (4, 3, 0, 64, 48));
    assert_eq!(memory(&din), (4, 64, 3, 48));
    assert_eq!(flushed(&din, "l1"), (0, 0, 0), "a copy-back is not a flush");
    assert_eq!(din.compat, Compat::Dinero);
    // Copy-back leaves lines resident and clean: finishing twice adds nothing.
    let mut m = Machine::new(cfg).expect("valid").with_compat(Compat::Dinero).expect("allowed");
    m.feed(&evs, "hand", 0).expect("runs");
    m.finish();
    m.finish();
    assert_eq!(memory(&m.result("hand")), (4, 64, 3, 48));
}

/// L1: one set of two ways (32 B, 16 B lines); L2: direct-mapped, 4 sets
/// of 16 B, where 0x00 and 0x40 share set 0. The trace leaves both in L1,
/// dirty, 0x00 the least recently used, and only 0x00 in L2, clean.
fn lru_order_case() -> (MachineConfig, Vec<Event>) {
    let mut cfg = config();
    cfg.l1 = Some(CacheConfig::simple(32, 16, 2));
    cfg.l2 = Some(CacheConfig::simple(64, 16, 1));
    let evs = vec![
        w(0x40), // L1 miss, way 0; L2 read miss (memory read 1); L2 set 0 = 0x40
        w(0x00), // L1 miss, way 1; L2 read miss, evicts 0x40 clean (memory read 2); L2 set 0 = 0x00
        r(0x40), // L1 hit: 0x40 most recent, 0x00 least
    ];
    (cfg, evs)
}

#[test]
fn dinero_copies_back_two_levels_least_recent_first() {
    let (cfg, evs) = lru_order_case();
    let own = run(&cfg, Compat::Vmlab, &evs);
    assert_eq!(kind(&own, "l2", RefKind::Write), (0, 0));
    assert_eq!(memory(&own), (2, 32, 0, 0));
    // Dinero pops its pending stack: least recently used first. 0x00 hits
    // L2 (dirty there), then 0x40 misses and evicts it dirty (memory write
    // 1); then L2's own copy-back writes 0x40 (memory write 2). Most recent
    // first, or way order (0x40 in way 0), would miss twice in L2.
    let din = run(&cfg, Compat::Dinero, &evs);
    assert_eq!(traffic(&din, "l1"), (2, 2, 0, 32, 32));
    assert_eq!(kind(&din, "l2", RefKind::Read), (2, 2));
    assert_eq!(kind(&din, "l2", RefKind::Write), (2, 1));
    // Whole-line writes fetch nothing; one eviction and one copy-back.
    assert_eq!(traffic(&din, "l2"), (2, 2, 0, 32, 32));
    assert_eq!(memory(&din), (2, 32, 2, 32));
}

#[test]
fn dinero_copies_back_the_last_set_first() {
    // L1 direct-mapped, 2 sets; L2 direct-mapped with one 16 B line.
    let mut cfg = config();
    cfg.l1 = Some(CacheConfig::simple(32, 16, 1));
    cfg.l2 = Some(CacheConfig::simple(16, 16, 1));
    let evs = [
        w(0x10), // L1 set 1; L2 miss (memory read 1); L2 = 0x10
        w(0x00), // L1 set 0; L2 miss, evicts 0x10 clean (memory read 2); L2 = 0x00
    ];
    // Set 1 first: 0x10 misses L2 and evicts 0x00 clean, then 0x00 misses
    // and evicts 0x10 dirty (memory write 1); L2's copy-back writes 0x00
    // (memory write 2). Set 0 first would hit once.
    let din = run(&cfg, Compat::Dinero, &evs);
    assert_eq!(kind(&din, "l2", RefKind::Write), (2, 2));
    assert_eq!(traffic(&din, "l2"), (2, 2, 0, 32, 32));
    assert_eq!(memory(&din), (2, 32, 2, 32));
}

#[test]
fn dinero_copies_back_write_through_over_write_back() {
    // L1 write-through, no-write-allocate, never dirty; L2 write-back, 4 sets.
    let mut cfg = config();
    let mut l1 = CacheConfig::simple(32, 16, 1);
    l1.write = WritePolicy::WriteThrough;
    l1.write_miss = WriteMissPolicy::NoWriteAllocate;
    cfg.l1 = Some(l1);
    cfg.l2 = Some(CacheConfig::simple(64, 16, 1));
    let evs = [
        w(0x00), // L1 miss, written through; L2 write miss, fetch (4 B < line): memory read 1; dirty
        w(0x10), // the same for line 0x10: memory read 2
        r(0x00), // L1 miss, fetch; L2 read hit
    ];
    let own = run(&cfg, Compat::Vmlab, &evs);
    assert_eq!(memory(&own), (2, 32, 0, 0));
    // L1 has nothing to copy back; L2 copies back both lines.
    let din = run(&cfg, Compat::Dinero, &evs);
    assert_eq!(traffic(&din, "l1"), (1, 0, 2, 16, 8));
    assert_eq!(kind(&din, "l2", RefKind::Write), (2, 2));
    assert_eq!(traffic(&din, "l2"), (2, 2, 0, 32, 32));
    assert_eq!(memory(&din), (2, 32, 2, 32));
}

#[test]
fn dinero_copies_back_the_data_side_of_a_split_level_or_the_unified_one() {
    // The instruction at 0x100 shares its line with the data written at
    // 0x104. L1s: 64 B direct-mapped, 4 sets, where 0x00 and 0x100 share
    // set 0; L2: 512 B direct-mapped, 32 sets, where they do not.
    let evs = [
        i(0x100), // L1(i) miss; L2 ifetch miss (memory read 1)
        w(0x00),  // L1(d) miss; L2 read miss (memory read 2)
        w(0x104), // L1(d) miss, evicts 0x00 dirty: L2 read hit, then write hit
    ];
    let l1 = CacheConfig::simple(64, 16, 1);
    let l2 = CacheConfig::simple(512, 16, 1);
    let mut split = config();
    split.l1i = Some(l1.clone());
    split.l1d = Some(l1.clone());
    split.l2 = Some(l2.clone());
    let mut unified = config();
    unified.l1 = Some(l1);
    unified.l2 = Some(l2);

    // Split: at the end l1d copies back 0x100 (an L2 write hit), l1i,
    // clean, is not copied back; L2 copies back both lines.
    let s = run(&split, Compat::Dinero, &evs);
    assert_eq!(kind(&s, "l1d", RefKind::Write), (2, 2));
    assert_eq!(traffic(&s, "l1i"), (1, 0, 0, 16, 0));
    assert_eq!(traffic(&s, "l1d"), (2, 2, 0, 32, 32));
    assert_eq!(kind(&s, "l2", RefKind::Ifetch), (1, 1));
    assert_eq!(kind(&s, "l2", RefKind::Read), (2, 1));
    assert_eq!(kind(&s, "l2", RefKind::Write), (2, 0));
    assert_eq!(traffic(&s, "l2"), (2, 2, 0, 32, 32));
    assert_eq!(memory(&s), (2, 32, 2, 32));

    // Unified: w(0x00) evicts the fetched 0x100, clean; w(0x104) misses,
    // evicting 0x00 dirty; the end copies back 0x100: the same L2 traffic.
    let u = run(&unified, Compat::Dinero, &evs);
    assert_eq!(kind(&u, "l1", RefKind::Ifetch), (1, 1));
    assert_eq!(kind(&u, "l1", RefKind::Write), (2, 2));
    assert_eq!(traffic(&u, "l1"), (3, 2, 0, 48, 32));
    assert_eq!(kind(&u, "l2", RefKind::Read), (2, 1));
    assert_eq!(kind(&u, "l2", RefKind::Write), (2, 0));
    assert_eq!(memory(&u), (2, 32, 2, 32));
}

#[test]
fn dinero_flush_marker_copies_back_in_dinero_order_then_invalidates() {
    let (cfg, mut evs) = lru_order_case();
    evs.push(Event::FlushAll);
    // vmlab's flush writes L1's frames back in slot order (0x40 from way
    // 0 first): both miss L2, the second evicting the first dirty; then
    // L2's flush writes 0x00 back.
    let own = run(&cfg, Compat::Vmlab, &evs);
    assert_eq!(kind(&own, "l2", RefKind::Write), (2, 2));
    assert_eq!(flushed(&own, "l1"), (0, 0, 2));
    assert_eq!(memory(&own), (2, 32, 2, 32));
    // Dinero's `-flushcount` flush: the copy-back of the end-of-run test
    // (one L2 write miss), then every frame invalidated, found clean.
    let din = run(&cfg, Compat::Dinero, &evs);
    assert_eq!(kind(&din, "l2", RefKind::Write), (2, 1));
    assert_eq!(flushed(&din, "l1"), (0, 2, 0));
    assert_eq!(flushed(&din, "l2"), (3, 1, 0));
    assert_eq!(memory(&din), (2, 32, 2, 32), "nothing is left to copy back at the end");
    assert_eq!(din.events.flush_all, 1);
}

#[test]
fn cachegrind_counts_each_reference_once_per_level() {
    // l1i, l1d: 32 B, 16 B lines, direct-mapped (2 sets, line & 1); l2:
    // 128 B, 64 B lines, 2-way (one set), LRU.
    let mut cfg = config();
    cfg.l1i = Some(CacheConfig::simple(32, 16, 1));
    cfg.l1d = Some(CacheConfig::simple(32, 16, 1));
    cfg.l2 = Some(CacheConfig::simple(128, 64, 2));
    let sized = |kind, a, size| Event::access(kind, VirtAddr(a), size, Asid(0));
    let evs = [
        i(0x100),                           // 1 l1i line 16 miss; l2 line 4 miss (memory read 4 B)
        r(0x0e),                            // 2 crosses l1d lines 0, 1: both miss, one miss; l2 line 0 miss
        r(0x10),                            // 3 l1d line 1 hit
        r(0x2e),                            // 4 lines 2, 3 miss (one miss); l2 line 0 hit
        r(0x1e),                            // 5 line 1 misses, line 2 hits: one miss; l2 sees 0x1e..0x21: hit
        sized(AccessKind::Store, 0x40, 8),  // 6 l1d line 4 miss, allocated; l2 line 1 miss, evicts 4 (memory write 8 B)
        sized(AccessKind::Modify, 0x44, 4), // 7 one read: line 4 hit
        i(0x104),                           // 8 l1i hit
        i(0x1f0),                           // 9 l1i line 31 miss; l2 line 7 miss, evicts 0
        i(0x100),                           // 10 l1i hit
        r(0x00),                            // 11 l1d line 0 miss; l2 line 0 miss, evicts 1
        sized(AccessKind::Load, 0x20, 32),  // 12 cut to 16 B (the shortest line): line 2 miss; l2 hit
    ];
    let cg = run(&cfg, Compat::Cachegrind, &evs);
    assert_eq!(cg.compat, Compat::Cachegrind);
    assert_eq!(kind(&cg, "l1i", RefKind::Ifetch), (4, 2));
    assert_eq!(kind(&cg, "l1d", RefKind::Read), (7, 5));
    assert_eq!(kind(&cg, "l1d", RefKind::Write), (1, 1));
    // Lines filled: 2 + 2 + 1 + 1 (write) + 1 + 1; nothing is ever dirty.
    assert_eq!(traffic(&cg, "l1d"), (8, 0, 0, 128, 0));
    assert_eq!(traffic(&cg, "l1i"), (2, 0, 0, 32, 0));
    assert_eq!(kind(&cg, "l2", RefKind::Ifetch), (2, 2));
    assert_eq!(kind(&cg, "l2", RefKind::Read), (5, 2));
    assert_eq!(kind(&cg, "l2", RefKind::Write), (1, 1));
    assert_eq!(traffic(&cg, "l2"), (5, 0, 0, 320, 0));
    // Memory sees what l2 missed, each reference with its own size.
    assert_eq!(memory(&cg), (4, 16, 1, 8));
    // The events are counted as read, whatever the mode does with them.
    assert_eq!((cg.events.ifetch, cg.events.load, cg.events.store, cg.events.modify), (4, 6, 1, 1));
}

#[test]
fn cachegrind_write_miss_without_allocation_goes_below_whole() {
    let mut cfg = config();
    let mut l1 = CacheConfig::simple(32, 16, 1);
    l1.write_miss = WriteMissPolicy::NoWriteAllocate;
    cfg.l1 = Some(l1);
    cfg.l2 = Some(CacheConfig::simple(64, 16, 1));
    let evs = [
        w(0x0e), // crosses lines 0, 1: both miss, neither allocated; l2 sees it whole: lines 0, 1 miss
        r(0x00), // l1 miss; l2 hit (the write allocated there)
        w(0x04), // l1 hit
    ];
    let cg = run(&cfg, Compat::Cachegrind, &evs);
    assert_eq!(kind(&cg, "l1", RefKind::Write), (2, 1));
    assert_eq!(kind(&cg, "l1", RefKind::Read), (1, 1));
    assert_eq!(traffic(&cg, "l1"), (1, 0, 0, 16, 0));
    assert_eq!(kind(&cg, "l2", RefKind::Write), (1, 1));
    assert_eq!(kind(&cg, "l2", RefKind::Read), (1, 0));
    assert_eq!(traffic(&cg, "l2"), (2, 0, 0, 32, 0));
    assert_eq!(memory(&cg), (0, 0, 1, 4));
}

#[test]
fn cachegrind_refuses_miss_classes_and_modes_have_names() {
    let mut cfg = config();
    cfg.l1 = Some(CacheConfig::simple(64, 16, 2));
    cfg.stats.classify_misses = true;
    let err = Machine::new(cfg.clone()).expect("valid").with_compat(Compat::Cachegrind).expect_err("refused");
    assert!(err.to_string().contains("stats.classify_misses"), "{err}");
    assert!(Machine::new(cfg).expect("valid").with_compat(Compat::Dinero).is_ok());
    for c in Compat::ALL {
        assert_eq!(Compat::from_name(c.name()), Ok(c));
    }
    assert_eq!(
        Compat::from_name("dinero4").expect_err("unknown"),
        "unknown compatibility mode `dinero4` (expected one of: vmlab, dinero, cachegrind)"
    );
}

#[test]
fn results_of_vmlab_rules_leave_the_mode_out() {
    let mut cfg = config();
    cfg.l1 = Some(CacheConfig::simple(64, 16, 2));
    let own = serde_json::to_string(&run(&cfg, Compat::Vmlab, &[r(0)])).expect("json");
    assert!(!own.contains(r#""compat":"#), "{own}");
    let din = serde_json::to_string(&run(&cfg, Compat::Dinero, &[r(0)])).expect("json");
    assert!(din.contains(r#""compat":"dinero""#), "{din}");
}

/// The run loop's shortcut under `cachegrind` (a reference wholly within
/// the top cache's most recent line only counted) against every event
/// applied on its own (`Machine::step`, which never takes it), on random
/// references that cross lines, repeat lines and mix kinds, for unified
/// and split tops, several policies and a no-write-allocate level.
#[test]
fn cachegrind_shortcut_counts_as_every_reference_applied() {
    let mut machines = Vec::new();
    let mut split = config();
    split.l1i = Some(CacheConfig::simple(256, 32, 2));
    split.l1d = Some(CacheConfig::simple(512, 32, 4));
    split.l2 = Some(CacheConfig::simple(4096, 64, 4));
    machines.push(split.clone());
    let mut fifo_nwa = split.clone();
    for c in [&mut fifo_nwa.l1i, &mut fifo_nwa.l1d, &mut fifo_nwa.l2].into_iter().flatten() {
        c.replacement = vmlab_cache::Replacement::Fifo;
    }
    if let Some(d) = fifo_nwa.l1d.as_mut() {
        d.write_miss = WriteMissPolicy::NoWriteAllocate;
    }
    machines.push(fifo_nwa);
    let mut unified = config();
    unified.l1 = Some(CacheConfig::simple(256, 16, 1));
    unified.l2 = Some(CacheConfig::simple(2048, 32, 2));
    machines.push(unified);

    // A fixed linear congruential sequence: a few hot lines, sizes 1 to 40.
    let mut x: u64 = 7;
    let mut evs = Vec::new();
    for _ in 0..20_000 {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let kind =
            [AccessKind::Ifetch, AccessKind::Load, AccessKind::Store, AccessKind::Modify][(x >> 60) as usize & 3];
        let addr = ((x >> 20) % 3000) + if kind == AccessKind::Ifetch { 0x1000 } else { 0 };
        let size = 1 + ((x >> 40) % 40) as u32;
        evs.push(Event::access(kind, VirtAddr(addr), size, Asid(0)));
    }
    for cfg in machines {
        let fed = run(&cfg, Compat::Cachegrind, &evs);
        let mut m = Machine::new(cfg).expect("valid").with_compat(Compat::Cachegrind).expect("allowed");
        for ev in &evs {
            m.step(ev).expect("maps");
        }
        m.finish();
        let stepped = m.result("hand");
        assert_eq!(fed.caches, stepped.caches);
        assert_eq!(fed.memory, stepped.memory);
        assert!(fed.caches[0].stats.accesses() > 0);
    }
}
