//! Systems of CPUs, checked by hand: what each cache holds (valid lines
//! with their tags, and dirty bits) after a store on one CPU and a load of
//! the same physical line on another, without and with a shared L2; where
//! each request was served; what `run_code` fetches and what the ledger
//! counts.

use vmlab_addr::{Asid, CpuId, PhysAddr, VirtAddr};
use vmlab_cache::{CacheConfig, Evicted, LineState, RefKind, WriteMissPolicy, WritePolicy};
use vmlab_machine::{Code, CodeFetch, Flush, LevelConfig, Mechanism, MissClasses, Reached, System, MAX_LEVELS};

const CPU0: CpuId = CpuId(0);
const CPU1: CpuId = CpuId(1);

/// A unified level named `name`: PIPT, LRU, write-back, write-allocate.
fn level(name: &str, size: u64, line: u64, ways: u32) -> LevelConfig {
    LevelConfig::Unified { name: name.into(), cache: CacheConfig::simple(size, line, ways) }
}

/// Every valid line of CPU `id`'s cache `n` (0 = its top level's first):
/// the line's virtual and physical address (its tags), space, dirty bit.
fn holds(sys: &System, id: CpuId, n: usize) -> Vec<Evicted> {
    sys.cpu(id).levels().caches()[n].1.resident()
}

fn line(vaddr: u64, paddr: u64, asid: u32, dirty: bool) -> Evicted {
    Evicted { vaddr: VirtAddr(vaddr), paddr: PhysAddr(paddr), asid: Asid(asid), dirty }
}

/// Two CPUs, each with a private direct-mapped 128-byte L1 of 32-byte lines
/// over memory. CPU 0 stores to physical line 0x8040 (its virtual 0x1040
/// in space 1); CPU 1 loads the same physical line (its virtual 0x3040 in
/// space 2). There is no coherence: CPU 1 fetches the line from memory
/// while CPU 0 holds the newer data dirty, and after CPU 0 flushes it, CPU
/// 1's copy is still there, clean and stale.
#[test]
fn store_on_one_cpu_and_load_on_another_through_private_l1s() {
    let mut sys = System::new(2, &[level("l1", 128, 32, 1)], &[], MissClasses::Unsorted).expect("valid system");

    let s = sys.on(CPU0).store(VirtAddr(0x1044), PhysAddr(0x8044), Asid(1), 4);
    // A write miss: the line is fetched from memory and written in L1.
    assert_eq!(
        (s.level, s.lines, s.last.hit, s.last.fetch, s.last.resident_dirty),
        (Reached::Memory, 1, false, true, Some(true))
    );
    let l = sys.on(CPU1).load(VirtAddr(0x3048), PhysAddr(0x8048), Asid(2), 8);
    assert_eq!((l.level, l.last.hit, l.last.resident_dirty), (Reached::Memory, false, Some(false)));

    // Set 2 of each L1 ((0x8040 >> 5) & 3): CPU 0's copy dirty, CPU 1's
    // clean, both valid, each under its own virtual address and space.
    assert_eq!(holds(&sys, CPU0, 0), [line(0x1040, 0x8040, 1, true)]);
    assert_eq!(holds(&sys, CPU1, 0), [line(0x3040, 0x8040, 2, false)]);
    let m = sys.memory();
    assert_eq!((m.reads, m.bytes_read, m.writes), (2, 64, 0));

    // CPU 0 flushes its line: written back to memory, gone from its L1;
    // CPU 1's copy is untouched (stale: memory now holds CPU 0's store).
    let f = sys.on(CPU0).flush_line(VirtAddr(0x1040), PhysAddr(0x8040), Asid(1), Flush::WriteBack);
    assert_eq!(f, LineState::Dirty(line(0x1040, 0x8040, 1, true)));
    assert_eq!(holds(&sys, CPU0, 0), []);
    assert_eq!(holds(&sys, CPU1, 0), [line(0x3040, 0x8040, 2, false)]);
    let m = sys.memory();
    assert_eq!((m.reads, m.writes, m.bytes_written), (2, 1, 32));

    // Each CPU's ledger has its own work, under `User`.
    let t0 = sys.cpu(CPU0).ledger().tally(Mechanism::User);
    assert_eq!((t0.requests, t0.served_at(RefKind::Write, Reached::Memory)), ([0, 0, 1], 1));
    assert_eq!((t0.cache_ops, t0.written_back), (1, 1));
    let t1 = sys.cpu(CPU1).ledger().tally(Mechanism::User);
    assert_eq!((t1.requests, t1.served_at(RefKind::Read, Reached::Memory), t1.cache_ops), ([0, 1, 0], 1, 0));
}

/// The same two CPUs over a shared 2-way 512-byte L2 (32-byte lines).
/// CPU 0's store misses its L1 and the L2: the fill leaves a clean copy in
/// the L2 (the line as it was before the store) and the dirty one in CPU
/// 0's L1. CPU 1's load misses its L1 and hits the L2 whether or not CPU
/// 0 wrote its line back, because the fill left the line there: without a
/// write-back the copy it gets is the old one. After CPU 0 flushes, the
/// L2's copy is dirty (CPU 0's data); CPU 1 sees it only after purging
/// its own stale copy.
#[test]
fn store_on_one_cpu_and_load_on_another_over_a_shared_l2() {
    let mut sys = System::new(2, &[level("l1", 128, 32, 1)], &[level("l2", 512, 32, 2)], MissClasses::Unsorted)
        .expect("valid system");
    let l2 = |sys: &System| sys.shared().caches()[0].1.resident();

    let s = sys.on(CPU0).store(VirtAddr(0x1044), PhysAddr(0x8044), Asid(1), 4);
    assert_eq!(s.level, Reached::Memory);
    assert_eq!(holds(&sys, CPU0, 0), [line(0x1040, 0x8040, 1, true)]);
    assert_eq!(l2(&sys), [line(0x1040, 0x8040, 1, false)]);

    let l = sys.on(CPU1).load(VirtAddr(0x3048), PhysAddr(0x8048), Asid(2), 8);
    // Served by the shared L2: level 1 of CPU 1's path.
    assert_eq!((l.level, l.last.hit, l.last.fetch), (Reached::Level(1), false, true));
    assert_eq!(holds(&sys, CPU1, 0), [line(0x3040, 0x8040, 2, false)]);
    assert_eq!(holds(&sys, CPU0, 0), [line(0x1040, 0x8040, 1, true)]);
    assert_eq!(l2(&sys), [line(0x1040, 0x8040, 1, false)]);
    let l2_reads = sys.shared().caches()[0].1.stats().kind(RefKind::Read);
    assert_eq!((l2_reads.accesses, l2_reads.misses), (2, 1));
    let m = sys.memory();
    assert_eq!((m.reads, m.writes), (1, 0));
    // What each CPU sent to the shared level: one 32-byte fill each.
    for id in [CPU0, CPU1] {
        let sent = sys.cpu(id).levels().memory();
        assert_eq!((sent.reads, sent.bytes_read, sent.writes), (1, 32, 0));
    }

    // CPU 0's flush writes its line into the L2 (a write hit there: dirty),
    // not to memory; CPU 1's L1 still holds the old copy.
    let f = sys.on(CPU0).flush_line(VirtAddr(0x1040), PhysAddr(0x8040), Asid(1), Flush::WriteBack);
    assert_eq!(f, LineState::Dirty(line(0x1040, 0x8040, 1, true)));
    assert_eq!(holds(&sys, CPU0, 0), []);
    assert_eq!(l2(&sys), [line(0x1040, 0x8040, 1, true)]);
    assert_eq!(holds(&sys, CPU1, 0), [line(0x3040, 0x8040, 2, false)]);
    assert_eq!(sys.memory().writes, 0);

    // CPU 1 purges its stale copy and loads again: from the L2, which now
    // holds CPU 0's data.
    let p = sys.on(CPU1).flush_line(VirtAddr(0x3040), PhysAddr(0x8040), Asid(2), Flush::Discard);
    assert_eq!(p, LineState::Clean);
    let again = sys.on(CPU1).load(VirtAddr(0x3048), PhysAddr(0x8048), Asid(2), 8);
    assert_eq!(again.level, Reached::Level(1));
    assert_eq!(holds(&sys, CPU1, 0), [line(0x3040, 0x8040, 2, false)]);
    assert_eq!(l2(&sys), [line(0x1040, 0x8040, 1, true)]);
    let t1 = sys.cpu(CPU1).ledger().tally(Mechanism::User);
    assert_eq!((t1.served_at(RefKind::Read, Reached::Level(1)), t1.cache_ops, t1.written_back), (2, 1, 0));
}

/// Levels are numbered along a CPU's path: with a private L1 and L2 over a
/// shared L3, a line another CPU brought in is served at level 2; one the
/// CPU brought in itself, evicted from its L1 but kept in its L2, at 1.
#[test]
fn levels_are_numbered_along_the_path_private_then_shared() {
    let private = [level("l1", 64, 32, 1), level("l2", 256, 32, 2)];
    let mut sys = System::new(2, &private, &[level("l3", 1024, 32, 4)], MissClasses::Unsorted).expect("valid system");
    let at = |a: u64| (VirtAddr(a), PhysAddr(a), Asid(0));
    let (v, p, s) = at(0x4000);
    assert_eq!(sys.on(CPU0).load(v, p, s, 4).level, Reached::Memory);
    assert_eq!(sys.on(CPU1).load(v, p, s, 4).level, Reached::Level(2));
    assert_eq!(sys.on(CPU1).load(v, p, s, 4).level, Reached::Level(0));
    // 0x4040 maps to the same L1 set (2 sets of 32 bytes): evicts 0x4000
    // from CPU 1's L1, not from its 2-way L2.
    let (v2, p2, s2) = at(0x4040);
    assert_eq!(sys.on(CPU1).load(v2, p2, s2, 4).level, Reached::Memory);
    assert_eq!(sys.on(CPU1).load(v, p, s, 4).level, Reached::Level(1));
    assert!(
        System::new(
            1,
            &private,
            &[level("l3", 1024, 32, 4), level("l4", 2048, 32, 4), level("l5", 4096, 32, 4)],
            MissClasses::Unsorted
        )
        .is_err(),
        "more than {MAX_LEVELS} levels on a path"
    );
    assert!(System::new(0, &private, &[], MissClasses::Unsorted).is_err());
}

/// Where a request is served, on a write-through L1 (no write-allocate)
/// over a write-back L2: a store that hits L1 is served where its write
/// lands (the L2); a request over two lines, one resident, is served as
/// deep as the other's fill went.
#[test]
fn served_level_follows_the_fill_and_the_write_passed_on() {
    let mut l1 = CacheConfig::simple(128, 32, 1);
    l1.write = WritePolicy::WriteThrough;
    l1.write_miss = WriteMissPolicy::NoWriteAllocate;
    let l1 = LevelConfig::Unified { name: "l1".into(), cache: l1 };
    let mut sys = System::new(1, &[l1, level("l2", 1024, 32, 2)], &[], MissClasses::Unsorted).expect("valid system");
    let mut cpu = sys.on(CPU0);
    let at = |a: u64| (VirtAddr(a), PhysAddr(a), Asid(0));
    let (v, p, s) = at(0x100);
    assert_eq!(cpu.load(v, p, s, 4).level, Reached::Memory);
    assert_eq!(cpu.load(v, p, s, 4).level, Reached::Level(0));
    let st = cpu.store(v, p, s, 4);
    assert_eq!((st.level, st.last.hit, st.last.write_through), (Reached::Level(1), true, true));
    // 0x11c..0x124: line 0x100 resident, line 0x120 not.
    let (v, p, s) = at(0x11c);
    let two = cpu.load(v, p, s, 8);
    assert_eq!((two.level, two.lines, two.last.hit, two.last.fetch), (Reached::Memory, 2, false, true));
}

/// Code runs through the instruction cache or is only counted, and the
/// ledger attributes it to the mechanism running.
#[test]
fn run_code_fetches_through_the_instruction_cache_or_only_counts() {
    let split = LevelConfig::Split {
        i_name: "l1i".into(),
        i: CacheConfig::simple(64, 16, 1),
        d_name: "l1d".into(),
        d: CacheConfig::simple(64, 16, 1),
    };
    let mut sys = System::new(1, &[split], &[], MissClasses::Unsorted).expect("valid system");
    let handler = Code {
        start: VirtAddr(0x8000_0000),
        phys: PhysAddr(0x1_0000),
        space: Asid(0),
        instructions: 10,
        instruction_bytes: 4,
    };
    let mut cpu = sys.on(CPU0);
    let outer = cpu.ledger().enter(Mechanism::UserHandler);
    // 40 bytes from a line boundary: three 16-byte lines, each missed once.
    assert_eq!(cpu.run_code(handler, CodeFetch::ThroughCache), Reached::Memory);
    assert_eq!(cpu.run_code(handler, CodeFetch::ThroughCache), Reached::Level(0));
    cpu.ledger().leave(outer);
    let inner = cpu.ledger().enter(Mechanism::FaultEntry);
    assert_eq!(cpu.run_code(handler, CodeFetch::Counted), Reached::Level(0));
    cpu.ledger().leave(inner);
    let ledger = sys.cpu(CPU0).ledger();
    assert_eq!(ledger.now(), Mechanism::User);
    let h = ledger.tally(Mechanism::UserHandler);
    assert_eq!((h.entries, h.instructions, h.requests), (1, 20, [20, 0, 0]));
    assert_eq!(
        (h.served_at(RefKind::Ifetch, Reached::Level(0)), h.served_at(RefKind::Ifetch, Reached::Memory)),
        (17, 3)
    );
    let f = ledger.tally(Mechanism::FaultEntry);
    assert_eq!((f.entries, f.instructions, f.requests), (1, 10, [0, 0, 0]));
    // The counted run fetched nothing: 20 fetches, 3 misses in the I-cache.
    let i = sys.cpu(CPU0).levels().cache("l1i").expect("l1i").stats().kind(RefKind::Ifetch);
    assert_eq!((i.accesses, i.misses), (20, 3));
    let total = sys.cpu(CPU0).ledger().total();
    assert_eq!((total.instructions, total.requests, total.entries), (30, [20, 0, 0], 2));
}

/// `flush_top_data` (the OS model's set-up flush): only the top level's
/// data cache is flushed, its dirty lines written into the level below (a
/// shared L2 here), not counted in the ledger. CPU 0 has split 128-byte
/// direct-mapped L1s of 32-byte lines over a shared 2-way 512-byte L2. It
/// fetches 0x4100, stores into 0x8040 and loads 0x8080 (every one a miss
/// down to memory); the flush then finds the L1 D's four frames two empty,
/// one clean, one dirty, and writes the dirty line into the L2, where the
/// fill left it: a hit there, so memory sees no write.
#[test]
fn flushing_the_top_data_cache_writes_its_dirty_lines_into_the_level_below() {
    let split = LevelConfig::Split {
        i_name: "l1i".into(),
        i: CacheConfig::simple(128, 32, 1),
        d_name: "l1d".into(),
        d: CacheConfig::simple(128, 32, 1),
    };
    let mut sys = System::new(1, &[split], &[level("l2", 512, 32, 2)], MissClasses::Unsorted).expect("valid system");
    let mut cpu = sys.on(CPU0);
    cpu.fetch(VirtAddr(0x100), PhysAddr(0x4100), Asid(1), 4);
    cpu.store(VirtAddr(0x1044), PhysAddr(0x8044), Asid(1), 4);
    cpu.load(VirtAddr(0x1084), PhysAddr(0x8084), Asid(1), 4);
    let f = cpu.flush_top_data(Flush::WriteBack);
    assert_eq!((f.empty, f.clean, f.dirty), (2, 1, 1));

    // The L1 I keeps its line; the L1 D is empty; the L2 (sets 0, 2 and 4
    // of 8) holds all three lines, the stored one now dirty.
    assert_eq!(holds(&sys, CPU0, 0), [line(0x100, 0x4100, 1, false)]);
    assert_eq!(holds(&sys, CPU0, 1), []);
    let l2 = sys.shared().caches()[0].1.resident();
    assert_eq!(l2, [line(0x100, 0x4100, 1, false), line(0x1040, 0x8040, 1, true), line(0x1080, 0x8080, 1, false)]);
    let m = sys.memory();
    assert_eq!((m.reads, m.bytes_read, m.writes), (3, 96, 0));
    // Three requests, no cache-control instruction.
    let t = sys.cpu(CPU0).ledger().tally(Mechanism::User);
    assert_eq!((t.requests, t.cache_ops), ([1, 1, 1], 0));
}
