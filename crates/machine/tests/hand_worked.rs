//! Exact counts on small traces worked out by hand (the working is in the
//! comments). Each policy combination has one: write and allocation
//! policies, every replacement policy (random re-derived from its seeded
//! generator), every index function, non-power-of-two sets and ways, and
//! two-level hierarchies (fills, write-backs, split and unified levels,
//! write-through over write-back, lines of different sizes).

use vmlab_addr::{Asid, PageSize, VirtAddr};
use vmlab_cache::{
    Assoc, CacheConfig, CacheStats, IndexFn, Indexing, RefKind, Replacement, WriteMissPolicy, WritePolicy,
};
use vmlab_machine::{Flush, Machine, MachineConfig, MemoryConfig, RunResult, StatsConfig};
use vmlab_trace::{AccessKind, Event};

fn machine_with(l1: CacheConfig) -> Machine {
    let mut cfg = MachineConfig::bare("hand", MemoryConfig::sequential(PageSize::new(4096).expect("page"), 1 << 24));
    cfg.stats = StatsConfig { classify_misses: true };
    cfg.l1 = Some(l1);
    Machine::new(cfg).expect("valid machine")
}

fn r(a: u64) -> Event {
    Event::access(AccessKind::Load, VirtAddr(a), 4, Asid(0))
}
fn w(a: u64) -> Event {
    Event::access(AccessKind::Store, VirtAddr(a), 4, Asid(0))
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
    let res = run(&mut m, &[Event::access(AccessKind::Store, VirtAddr(0x00), 16, Asid(0)), Event::FlushAll]);
    let s = &res.caches[0].stats;
    assert_eq!((s.fetches, s.writebacks), (0, 1));
    assert_eq!(res.memory.reads, 0);
    assert_eq!((res.memory.writes, res.memory.bytes_written), (1, 16));
}

#[test]
fn line_crossing_reference_is_split_and_modify_is_read_then_write() {
    let mut m = machine_with(CacheConfig::simple(64, 16, 1));
    // 8 bytes at 0x0c cross into line 1: two reads, two misses.
    let res = run(
        &mut m,
        &[
            Event::access(AccessKind::Load, VirtAddr(0x0c), 8, Asid(0)),
            Event::access(AccessKind::Modify, VirtAddr(0x0c), 8, Asid(0)),
        ],
    );
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
    m.hierarchy().caches()[0].1.resident().iter().filter(|l| l.paddr.0 == pa_line).count()
}

#[test]
fn synonyms_two_copies_in_vivt_one_in_vipt_and_pipt() {
    // Page 0x1000 and page 0x3000 share a frame; one write through each
    // alias. 8 KB 2-way: a way is one page, so both aliases index one set.
    for (indexing, copies) in [(Indexing::Vivt, 2), (Indexing::Vipt, 1), (Indexing::Pipt, 1)] {
        let mut m = l1_with(indexing, 8192, 2, 16);
        m.share_page(Asid(0), VirtAddr(0x1000), Asid(0), VirtAddr(0x3000)).expect("frames");
        let pa = m.translate(Asid(0), VirtAddr(0x1000)).expect("mapped").0;
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
        m.share_page(Asid(0), VirtAddr(0x1000), Asid(0), VirtAddr(alias)).expect("frames");
        let pa = m.translate(Asid(0), VirtAddr(0x1000)).expect("mapped").0;
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
    let evs = [r(0x00), Event::access(AccessKind::Load, VirtAddr(0x00), 4, Asid(1))];
    // Without ASIDs the second process hits on the first one's line (a homonym).
    assert_eq!(kind(&run(&mut untagged, &evs), RefKind::Read).1, 1);
    assert_eq!(kind(&run(&mut tagged, &evs), RefKind::Read).1, 2);
}

#[test]
fn flush_virtual_range_reports_line_states() {
    let mut m = machine_with(CacheConfig::simple(256, 16, 1));
    m.feed(&[r(0x00), w(0x10), r(0x20)], "flush", 0).expect("runs");
    // Lines 0x00..0x40: clean, dirty, clean, empty.
    let f = m.flush_virtual_range(Asid(0), VirtAddr(0x00), 0x40, Flush::WriteBack).expect("in range");
    assert_eq!((f.empty, f.clean, f.dirty), (1, 2, 1));
    assert_eq!(m.result("flush").memory.writes, 1);
    // Everything is gone now.
    let f = m.flush_virtual_range(Asid(0), VirtAddr(0x00), 0x40, Flush::Discard).expect("in range");
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
        let r8 = |a| Event::access(AccessKind::Load, VirtAddr(a), 8, Asid(0));
        let w8 = |a| Event::access(AccessKind::Store, VirtAddr(a), 8, Asid(0));
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

// ---------------------------------------------------------------------------
// Helpers for the cases below.

fn i4(a: u64) -> Event {
    Event::access(AccessKind::Ifetch, VirtAddr(a), 4, Asid(0))
}
fn r_sized(a: u64, size: u32) -> Event {
    Event::access(AccessKind::Load, VirtAddr(a), size, Asid(0))
}
fn w_sized(a: u64, size: u32) -> Event {
    Event::access(AccessKind::Store, VirtAddr(a), size, Asid(0))
}
fn r_as(asid: u32, a: u64) -> Event {
    Event::access(AccessKind::Load, VirtAddr(a), 4, Asid(asid))
}
fn w_as(asid: u32, a: u64) -> Event {
    Event::access(AccessKind::Store, VirtAddr(a), 4, Asid(asid))
}

/// A machine of 4 KB pages handed out in first-touch order (page 0, touched
/// first by every trace below that stays in it, gets frame 0, so pa == va),
/// with the caches `set` puts in.
fn machine_of(classify: bool, set: &dyn Fn(&mut MachineConfig)) -> Machine {
    let mut cfg = MachineConfig::bare("hand", MemoryConfig::sequential(PageSize::new(4096).expect("page"), 1 << 24));
    cfg.stats = StatsConfig { classify_misses: classify };
    set(&mut cfg);
    Machine::new(cfg).expect("valid machine")
}

/// Every counter but the 3C classes, per cache by name.
fn unclassified(res: &RunResult) -> Vec<(String, CacheStats)> {
    res.caches
        .iter()
        .map(|c| {
            let mut s = c.stats;
            for k in RefKind::ALL {
                let ks = s.kind_mut(k);
                (ks.compulsory, ks.capacity, ks.conflict) = (0, 0, 0);
            }
            (c.name.clone(), s)
        })
        .collect()
}

/// Runs `evs` on the machine `set` describes with the 3C classes on, and
/// again with them off: the shadows only watch, so every other counter must
/// be the same (without them the engine takes its fast paths: inline hit
/// checks and fills in place where the policies allow them). Returns the
/// classified run's machine (for its resident lines) and result.
fn run_both(set: &dyn Fn(&mut MachineConfig), evs: &[Event]) -> (Machine, RunResult) {
    let mut m = machine_of(true, set);
    let res = run(&mut m, evs);
    let mut plain = machine_of(false, set);
    let res_plain = run(&mut plain, evs);
    assert_eq!(unclassified(&res), unclassified(&res_plain), "counts differ without the 3C shadows");
    assert_eq!(res.memory, res_plain.memory, "memory differs without the 3C shadows");
    (m, res)
}

/// (accesses, misses, compulsory, capacity, conflict) of cache `name`.
fn kind_of(res: &RunResult, name: &str, k: RefKind) -> (u64, u64, u64, u64, u64) {
    let s = res.cache(name).expect("cache").stats.kind(k);
    (s.accesses, s.misses, s.compulsory, s.capacity, s.conflict)
}

/// (fetches, writebacks, write_throughs, bytes_in, bytes_out) of cache `name`.
fn traffic(res: &RunResult, name: &str) -> (u64, u64, u64, u64, u64) {
    let s = &res.cache(name).expect("cache").stats;
    (s.fetches, s.writebacks, s.write_throughs, s.bytes_in, s.bytes_out)
}

/// (empty, clean, dirty) lines found by flushes of cache `name`.
fn flushed(res: &RunResult, name: &str) -> (u64, u64, u64) {
    let f = &res.cache(name).expect("cache").stats.flushed;
    (f.empty, f.clean, f.dirty)
}

/// (reads, bytes_read, writes, bytes_written) at memory.
fn memory(res: &RunResult) -> (u64, u64, u64, u64) {
    let m = &res.memory;
    (m.reads, m.bytes_read, m.writes, m.bytes_written)
}

/// The resident lines of cache `name` in slot order (set by set, way by
/// way): (physical line address, dirty).
fn resident(m: &mut Machine, name: &str) -> Vec<(u64, bool)> {
    m.hierarchy().cache(name).expect("cache").resident().iter().map(|e| (e.paddr.0, e.dirty)).collect()
}

// ---------------------------------------------------------------------------
// Random replacement, re-derived from its generator.
//
// A level with `replacement = "random"` draws from `rand_pcg::Pcg64Mcg`
// (PCG's "pcg64_fast": a 128-bit multiplicative congruential generator with
// the XSL-RR output) seeded by rand_core 0.6's `seed_from_u64(seed)`, and
// picks a way with rand 0.8's `gen_range(0..ways)`, only when the set has
// no empty way (`Cache::victim`). Its 3C shadow, a fully associative cache
// of the same capacity, draws its own victims (`gen_range(0..lines)`, a slot
// in fill order) from a second generator seeded `seed ^
// 0x5eed_5bad_0c0c_0001` (`shadow.rs`). `Pcg` below is those three
// definitions written from the published algorithms, not the engine's code;
// `pcg_model_matches_published_outputs` checks it against outputs published
// with the generator.

const PCG_MCG_MULTIPLIER: u128 = 0x2360_ED05_1FC6_5DA4_4385_DF64_9FCC_F645;

/// The 128-bit state that rand_core 0.6's `seed_from_u64` gives a 16-byte
/// seed: four PCG32 outputs (its LCG state advanced first, then the XSH-RR
/// output), little-endian, read as a little-endian u128, whose low bit
/// `Mcg128Xsl64::from_seed` then forces to 1.
fn pcg_seeded_state(seed: u64) -> u128 {
    let mut s = seed;
    let mut state = 0u128;
    for word in 0..4 {
        s = s.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(11_634_580_027_462_260_723);
        let out = ((((s >> 18) ^ s) >> 27) as u32).rotate_right((s >> 59) as u32);
        state |= u128::from(out) << (32 * word);
    }
    state | 1
}

struct Pcg(u128);

impl Pcg {
    fn seeded(seed: u64) -> Self {
        Self(pcg_seeded_state(seed))
    }

    /// The state times the multiplier; the output is the state's high half
    /// XOR its low half, rotated right by the state's top 6 bits.
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(PCG_MCG_MULTIPLIER);
        (((self.0 >> 64) as u64) ^ (self.0 as u64)).rotate_right((self.0 >> 122) as u32)
    }

    /// rand 0.8's `gen_range(0..n)` for a 64-bit `usize`: draw `v`, keep the
    /// high word of `v * n` if the low word is at most the zone
    /// `(n << n.leading_zeros()) - 1`, else draw again. For n = 2^k the zone
    /// is 2^63 - 1: the result is the top k bits of `v`, kept when the next
    /// bit down is 0.
    fn below(&mut self, n: u64) -> u64 {
        let zone = (n << n.leading_zeros()).wrapping_sub(1);
        loop {
            let wide = u128::from(self.next_u64()) * u128::from(n);
            if wide as u64 <= zone {
                return (wide >> 64) as u64;
            }
        }
    }
}

#[test]
fn pcg_model_matches_published_outputs() {
    // pcg64_fast seeded with state 42 (| 1): the check values of PCG's C
    // reference suite, as rand_pcg 0.3 quotes them in its own test
    // (tests/mcg128xsl64.rs, `Mcg128Xsl64::new(42)`).
    let mut p = Pcg(42 | 1);
    let first: Vec<u64> = (0..6).map(|_| p.next_u64()).collect();
    assert_eq!(
        first,
        [
            0x63b4_a3a8_13ce_700a,
            0x3829_5420_0617_ab24,
            0xa7fd_85ae_3fe9_50ce,
            0xd715_286a_a288_7737,
            0x60c9_2fee_2e59_f32c,
            0x84c4_e96b_eff3_0017
        ]
    );
    // rand_pcg's test of `seed_from_u64(0)`: checks the seeding.
    assert_eq!(Pcg::seeded(0).next_u64(), 6_198_063_878_555_692_194);
}

#[test]
fn random_replacement_follows_the_seeded_generator() {
    // The level's generator (seed 1) and the top bit of each output, the
    // way of a 2-way set, kept when bit 62 is 0:
    //   0xdb51d062deef2483  11..  rejected
    //   0x2336c550332b3e7f  00..  way 0   (draw 1)
    //   0x78702aa5b0d36f28  01..  rejected
    //   0xb9eb807042a47544  10..  way 1   (draw 2)
    //   0x5eae143cb46f7cd0  01..  rejected
    //   0x8ea199e138830677  10..  way 1   (draw 3)
    //   0x644ff79ce36726ab  01..  rejected
    //   0xbd471ec388a82ae6  10..  way 1   (draw 4)
    //   0x28153e2a33dae070  00..  way 0   (draw 5)
    //   0x68ffbedd22f69915  01..  rejected
    //   0x129fac6ae24bdfef  00..  way 0   (draw 6)
    //   0x16926c8cebf7b4f3  00..  way 0   (draw 7)
    //   0x192720edab91fcd4  00..  way 0   (draw 8)
    let mut level = Pcg::seeded(1);
    let raw: Vec<u64> = (0..13).map(|_| level.next_u64()).collect();
    assert_eq!(
        raw,
        [
            0xdb51_d062_deef_2483,
            0x2336_c550_332b_3e7f,
            0x7870_2aa5_b0d3_6f28,
            0xb9eb_8070_42a4_7544,
            0x5eae_143c_b46f_7cd0,
            0x8ea1_99e1_3883_0677,
            0x644f_f79c_e367_26ab,
            0xbd47_1ec3_88a8_2ae6,
            0x2815_3e2a_33da_e070,
            0x68ff_bedd_22f6_9915,
            0x129f_ac6a_e24b_dfef,
            0x1692_6c8c_ebf7_b4f3,
            0x1927_20ed_ab91_fcd4
        ]
    );
    let mut level = Pcg::seeded(1);
    let ways: Vec<u64> = (0..8).map(|_| level.below(2)).collect();
    assert_eq!(ways, [0, 1, 1, 1, 0, 0, 0, 0]);
    // The shadow's generator (seed 1 ^ 0x5eed_5bad_0c0c_0001), a slot of 4,
    // the top two bits, kept when bit 61 is 0:
    //   0x458187bd0c7ee92e  01 0  slot 1
    //   0x8863191f122a5754  10 0  slot 2
    //   0xbc6553ca53a1a781  10 1  rejected
    //   0x18d9ac205d5eddad  00 0  slot 0
    //   0x685a325f129b0f59  01 1  rejected
    //   0xf7a81fb532a08b5c  11 1  rejected
    //   0x44aff8282d70e15e  01 0  slot 1
    //   0x85b02fe6c64f2548  10 0  slot 2
    //   0x728006e8d602d7a7  01 1  rejected
    //   0x4daae6d132e10d9b  01 0  slot 1
    let mut shadow = Pcg::seeded(1 ^ 0x5eed_5bad_0c0c_0001);
    let slots: Vec<u64> = (0..6).map(|_| shadow.below(4)).collect();
    assert_eq!(slots, [1, 2, 0, 1, 2, 1]);

    // 64 B, 16 B lines, 2 sets x 2 ways, random (seed 1), write-back,
    // write-allocate. Set = line & 1: lines 0, 2, 4, 6 (0x00, 0x20, 0x40,
    // 0x60) in set 0; 1, 3, 5 (0x10, 0x30, 0x50) in set 1. The shadow holds
    // 4 lines in slots 0-3, filled in order, then replaced at its draws.
    // Ln = line n; "d" = dirty.
    let mut c = CacheConfig::simple(64, 16, 2);
    c.replacement = Replacement::Random;
    c.seed = 1;
    let (mut m, res) = run_both(
        &|m: &mut MachineConfig| m.l1 = Some(c.clone()),
        &[
            // 1 L0 s0 miss -> empty way 0; L0d. Compulsory. Shadow (L0).
            w(0x00),
            // 2 L2 s0 miss -> empty way 1. Compulsory. Shadow (L0 L2).
            r(0x20),
            // 3 L4 s0 full: draw 1 = way 0, evicts L0d: write-back.
            //   Compulsory. Shadow (L0 L2 L4).
            r(0x40),
            // 4 L0 s0: draw 2 = way 1, evicts L2. The shadow holds L0: conflict.
            r(0x00),
            // 5 L1 s1 miss -> empty way 0; L1d. Compulsory. Shadow (L0 L2 L4 L1), full.
            w(0x10),
            // 6 L2 s0 = (L4, L0): draw 3 = way 1, evicts L0. The shadow
            //   holds L2: conflict. s0 = (L4, L2).
            r(0x20),
            // 7 L3 s1 miss -> empty way 1. Compulsory. Shadow draw 1 = slot
            //   1: L2 -> L3. Shadow (L0 L3 L4 L1).
            r(0x30),
            // 8 L4 s0 way 0: hit, now dirty. A shadow hit.
            w(0x44),
            // 9 L6 s0 = (L4d, L2): draw 4 = way 1, evicts L2. Compulsory.
            //   Shadow draw 2 = slot 2: L4 -> L6. Shadow (L0 L3 L6 L1).
            r(0x60),
            // 10 L4 s0 way 0: hit. The shadow misses it and allocates: draw
            //    3 = slot 0: L0 -> L4. Shadow (L4 L3 L6 L1).
            r(0x48),
            // 11 L5 s1 = (L1d, L3): draw 5 = way 0, evicts L1d: write-back.
            //    Compulsory. Shadow draw 4 = slot 1: L3 -> L5. (L4 L5 L6 L1)
            r(0x50),
            // 12 L0 s0 = (L4d, L6): draw 6 = way 0, evicts L4d: write-back.
            //    The shadow lacks L0: capacity. Draw 5 = slot 2: L6 -> L0.
            //    Shadow (L4 L5 L0 L1).
            r(0x00),
            // 13 L2 s0 = (L0, L6): draw 7 = way 0, evicts L0. The shadow
            //    lacks L2: capacity. Draw 6 = slot 1: L5 -> L2. (L4 L2 L0 L1)
            r(0x20),
            // 14 L1 s1 = (L5, L3): draw 8 = way 0, evicts L5. The shadow
            //    holds L1: conflict.
            r(0x14),
        ],
    );
    // Reads: 11, all misses but step 10; compulsory 2, 3, 7, 9, 11;
    // capacity 12, 13; conflict 4, 6, 14. Writes: 3, misses 1 and 5.
    assert_eq!(kind_of(&res, "l1", RefKind::Read), (11, 10, 5, 2, 3));
    assert_eq!(kind_of(&res, "l1", RefKind::Write), (3, 2, 2, 0, 0));
    // Every miss fetches (4-byte writes); write-backs at 3, 11, 12.
    assert_eq!(traffic(&res, "l1"), (12, 3, 0, 192, 48));
    assert_eq!(memory(&res), (12, 192, 3, 48));
    // Set 0 = (L2, L6), set 1 = (L1, L3), all clean.
    assert_eq!(resident(&mut m, "l1"), [(0x20, false), (0x60, false), (0x10, false), (0x30, false)]);
}

#[test]
fn tree_plru_with_writes_and_write_backs() {
    // One set of 4 ways (64 B, 16 B lines), tree-PLRU, write-back,
    // write-allocate. Tree bits (b0 root; b1 over ways 0-1; b2 over ways
    // 2-3), written "Bits b0,b1,b2" after each step; a bit of 1 sends the
    // victim search right. A fill or hit of a way points each node on its
    // path away from it. An empty way is filled first (lowest number). The
    // 3C shadow is a 4-line LRU, written [most recent first].
    let mut c = CacheConfig::simple(64, 16, 4);
    c.replacement = Replacement::TreePlru;
    let evs = [
        w(0x00), //  1 L0 miss -> way 0, L0d. Bits 1,1,0. Compulsory.
        r(0x10), //  2 L1 miss -> way 1. Bits 1,0,0. Compulsory.
        w(0x20), //  3 L2 miss -> way 2, L2d. Bits 0,0,1. Compulsory.
        r(0x30), //  4 L3 miss -> way 3. Bits 0,0,0. Compulsory. LRU [L3 L2 L1 L0]
        r(0x04), //  5 L0 hit (way 0). Bits 1,1,0 -> victim: right, left = way 2. LRU [L0 L3 L2 L1]
        r(0x40), //  6 L4 miss, evicts way 2 = L2d: write-back. Bits 0,1,1 -> victim way 1.
        //            Compulsory; LRU drops L1: [L4 L0 L3 L2]
        r(0x24), //  7 L2 miss, evicts way 1 = L1 (clean). Bits 1,0,1 -> victim way 3.
        //            LRU holds L2: conflict. [L2 L4 L0 L3]
        w(0x34), //  8 L3 hit (way 3), now dirty. Bits 0,0,0 -> victim way 0. [L3 L2 L4 L0]
        r(0x14), //  9 L1 miss, evicts way 0 = L0d: write-back. Bits 1,1,0 -> victim way 2.
        //            LRU lacks L1 (dropped at 6): capacity; drops L0. [L1 L3 L2 L4]
        w(0x08), // 10 L0 miss, evicts way 2 = L4 (clean); L0d. Bits 0,1,1.
                 //    LRU lacks L0: capacity; drops L4. [L0 L1 L3 L2]
    ];
    let (mut m, res) = run_both(&|m: &mut MachineConfig| m.l1 = Some(c.clone()), &evs);
    // Ways: L1, L2, L0d, L3d. (True LRU would have evicted L1, not L2, at
    // step 6, and step 7 would have hit.)
    assert_eq!(resident(&mut m, "l1"), [(0x10, false), (0x20, false), (0x00, true), (0x30, true)]);
    // Reads 2, 4, 5, 6, 7, 9: misses all but 5; compulsory 2, 4, 6;
    // capacity 9; conflict 7. Writes 1, 3, 8, 10: misses 1, 3 (compulsory)
    // and 10 (capacity).
    assert_eq!(kind_of(&res, "l1", RefKind::Read), (6, 5, 3, 1, 1));
    assert_eq!(kind_of(&res, "l1", RefKind::Write), (4, 3, 2, 1, 0));
    assert_eq!(traffic(&res, "l1"), (8, 2, 0, 128, 32));
    assert_eq!(memory(&res), (8, 128, 2, 32));

    // A flush then finds two clean and two dirty lines and writes both back.
    let with_flush: Vec<Event> = evs.iter().copied().chain([Event::FlushAll]).collect();
    let (_, res) = run_both(&|m: &mut MachineConfig| m.l1 = Some(c.clone()), &with_flush);
    assert_eq!(flushed(&res, "l1"), (0, 2, 2));
    assert_eq!(traffic(&res, "l1"), (8, 4, 0, 128, 64));
    assert_eq!(memory(&res), (8, 128, 4, 64));
}

#[test]
fn xor_index_spreads_lines_that_bit_select_piles_up() {
    // 64 B direct-mapped, 16 B lines: 4 sets, 2 index bits. XOR index:
    // set = (line ^ (line >> 2)) & 3. L0 -> 0, L4 -> 5 & 3 = 1,
    // L8 -> 10 & 3 = 2, L12 -> 15 & 3 = 3, L5 -> 4 & 3 = 0, L1 -> 1.
    // (Bit-select puts L0, L4, L8, L12 all in set 0.) Shadow: 4-line LRU.
    let evs = [
        r(0x00), //  1 L0 s0 miss, compulsory
        r(0x40), //  2 L4 s1 miss, compulsory
        r(0x80), //  3 L8 s2 miss, compulsory
        r(0xc0), //  4 L12 s3 miss, compulsory
        r(0x04), //  5 L0 hit
        r(0x44), //  6 L4 hit
        r(0x84), //  7 L8 hit
        r(0xc4), //  8 L12 hit. LRU [L12 L8 L4 L0]
        w(0x50), //  9 L5 s0 miss, evicts L0 (clean); L5d. Compulsory. LRU drops L0
        r(0x00), // 10 L0 s0 miss, evicts L5d: write-back. Capacity (LRU lacks L0); drops L4
        r(0x10), // 11 L1 s1 miss, evicts L4. Compulsory; LRU drops L8
        r(0x40), // 12 L4 s1 miss, evicts L1. Capacity; LRU drops L12: [L4 L1 L0 L5]
        r(0x54), // 13 L5 s0 miss, evicts L0. LRU holds L5: conflict
    ];
    let mut c = CacheConfig::simple(64, 16, 1);
    c.index = IndexFn::Xor;
    let (mut m, res) = run_both(&|m: &mut MachineConfig| m.l1 = Some(c.clone()), &evs);
    assert_eq!(kind_of(&res, "l1", RefKind::Read), (12, 8, 5, 2, 1));
    assert_eq!(kind_of(&res, "l1", RefKind::Write), (1, 1, 1, 0, 0));
    assert_eq!(traffic(&res, "l1"), (9, 1, 0, 144, 16));
    assert_eq!(memory(&res), (9, 144, 1, 16));
    assert_eq!(resident(&mut m, "l1"), [(0x50, false), (0x40, false), (0x80, false), (0xc0, false)]);

    // Bit-select on the first 8: every one misses in set 0; the first four
    // are compulsory, the second four conflict (the shadow holds all four).
    let (_, res) = run_both(&|m: &mut MachineConfig| m.l1 = Some(CacheConfig::simple(64, 16, 1)), &evs[..8]);
    assert_eq!(kind_of(&res, "l1", RefKind::Read), (8, 8, 4, 0, 4));
}

#[test]
fn space_hash_index_xors_the_space_id_above_the_page_offset() {
    // PA-RISC's hash: set = ((va ^ ((space & 0xf) << 12)) >> 4) & 0x3ff for
    // a 16 KB direct-mapped cache of 16 B lines (1024 sets), VIVT with space
    // ids in the tags, `space_hash_bits` = 4 at `space_hash_at` = 12 (the
    // defaults). (space, va) pairs; the shadow holds 1024 lines, so every
    // line seen before is still there (a re-miss is a conflict).
    let evs = [
        r_as(0, 0x0000),  //  1 0x0000 ^ 0x0000 -> set 0: miss, compulsory
        r_as(1, 0x1000),  //  2 0x1000 ^ 0x1000 -> set 0: miss, compulsory; evicts (0, 0x0000)
        r_as(0, 0x0000),  //  3 set 0: miss, conflict; evicts (1, 0x1000)
        r_as(1, 0x0000),  //  4 0x0000 ^ 0x1000 -> set 0x100: miss, compulsory
        w_as(5, 0x0000),  //  5 0x0000 ^ 0x5000 -> line 0x500 -> set 0x100: miss, compulsory; dirty
        r_as(1, 0x0000),  //  6 set 0x100: miss, conflict; evicts (5, 0x0000) dirty: write-back
        r_as(18, 0x2000), //  7 space 18 & 0xf = 2: 0x2000 ^ 0x2000 -> set 0: miss, compulsory; evicts (0, 0x0000)
        r_as(2, 0x2000),  //  8 set 0 again, another space id (a tag apart): miss, compulsory; evicts (18, 0x2000)
        r_as(0, 0x1000),  //  9 0x1000 -> set 0x100: miss, compulsory; evicts (1, 0x0000)
        r_as(2, 0x2004),  // 10 set 0 holds (2, 0x2000): hit
    ];
    let space_hash = |index: IndexFn| {
        let mut c = CacheConfig::simple(16 << 10, 16, 1);
        c.indexing = Indexing::Vivt;
        c.asid_tags = true;
        c.index = index;
        c
    };
    let c = space_hash(IndexFn::SpaceHash);
    let (mut m, res) = run_both(&|m: &mut MachineConfig| m.l1 = Some(c.clone()), &evs);
    assert_eq!(kind_of(&res, "l1", RefKind::Read), (9, 8, 6, 0, 2));
    assert_eq!(kind_of(&res, "l1", RefKind::Write), (1, 1, 1, 0, 0));
    assert_eq!(traffic(&res, "l1"), (9, 1, 0, 144, 16));
    assert_eq!(memory(&res), (9, 144, 1, 16));
    // Set 0 holds (2, 0x2000), set 0x100 holds (0, 0x1000).
    let held: Vec<(u64, u32)> =
        m.hierarchy().cache("l1").expect("l1").resident().iter().map(|e| (e.vaddr.0, e.asid.0)).collect();
    assert_eq!(held, [(0x2000, 2), (0x1000, 0)]);

    // Bit-select (set = (va >> 4) & 0x3ff, the space id ignored): 0x0000 ->
    // set 0, 0x1000 -> 0x100, 0x2000 -> 0x200. Step 2 no longer collides
    // with 1, so 3 hits; 4, 5 and 6 fight over set 0 (6 a conflict); 7 and
    // 8 meet in set 0x200; 9 evicts step 2's line; 10 hits. Misses: 1, 2,
    // 4, 6 (conflict), 7, 8, 9.
    let c = space_hash(IndexFn::BitSelect);
    let (_, res) = run_both(&|m: &mut MachineConfig| m.l1 = Some(c.clone()), &evs);
    assert_eq!(kind_of(&res, "l1", RefKind::Read), (9, 7, 6, 0, 1));
    assert_eq!(traffic(&res, "l1"), (8, 1, 0, 128, 16));
}

#[test]
fn three_sets_index_modulo_three() {
    // 48 B direct-mapped, 16 B lines: 3 sets, set = line % 3 (not a mask).
    // Shadow: 3-line LRU.
    let c = CacheConfig::simple(48, 16, 1);
    let (mut m, res) = run_both(
        &|m: &mut MachineConfig| m.l1 = Some(c.clone()),
        &[
            r(0x00), //  1 L0 s0 miss, compulsory
            r(0x10), //  2 L1 s1 miss, compulsory
            r(0x20), //  3 L2 s2 miss, compulsory
            r(0x30), //  4 L3 s0 miss, compulsory; evicts L0. LRU drops L0
            r(0x40), //  5 L4 s1 miss, compulsory; evicts L1. LRU drops L1
            w(0x50), //  6 L5 s2 miss, compulsory; evicts L2; L5d. LRU drops L2: [L5 L4 L3]
            r(0x00), //  7 L0 s0 miss, evicts L3. Capacity; LRU drops L3
            r(0x80), //  8 L8 s2 (8 % 3) miss, evicts L5d: write-back. Compulsory; LRU drops L4
            r(0x30), //  9 L3 s0 miss, evicts L0. Capacity; LRU drops L5: [L3 L8 L0]
            r(0x04), // 10 L0 s0 miss, evicts L3. LRU holds L0: conflict. [L0 L3 L8]
            r(0x88), // 11 L8 s2 hit
            r(0x60), // 12 L6 s0 (6 % 3; a mask of 3 would give set 2) miss, evicts L0. Compulsory
            r(0x84), // 13 L8 s2 hit
        ],
    );
    assert_eq!(kind_of(&res, "l1", RefKind::Read), (12, 10, 7, 2, 1));
    assert_eq!(kind_of(&res, "l1", RefKind::Write), (1, 1, 1, 0, 0));
    assert_eq!(traffic(&res, "l1"), (11, 1, 0, 176, 16));
    assert_eq!(memory(&res), (11, 176, 1, 16));
    assert_eq!(resident(&mut m, "l1"), [(0x60, false), (0x40, false), (0x80, false)]);
}

#[test]
fn three_way_lru() {
    // 96 B, 16 B lines, 3 ways: 2 sets, set = line & 1. L0, L2, L4, L6 in
    // set 0, L1 in set 1. LRU order of set 0 oldest first. The shadow holds
    // 6 lines and only 5 are ever used, so every re-miss is a conflict.
    let c = CacheConfig::simple(96, 16, 3);
    let (mut m, res) = run_both(
        &|m: &mut MachineConfig| m.l1 = Some(c.clone()),
        &[
            r(0x00), //  1 L0 miss -> way 0. Compulsory. (L0)
            w(0x20), //  2 L2 miss -> way 1, L2d. Compulsory. (L0 L2)
            r(0x40), //  3 L4 miss -> way 2. Compulsory. (L0 L2 L4)
            r(0x04), //  4 L0 hit. (L2 L4 L0)
            r(0x60), //  5 L6 miss, evicts L2d (way 1): write-back. Compulsory. (L4 L0 L6)
            r(0x10), //  6 L1 set 1 miss -> way 0. Compulsory.
            w(0x44), //  7 L4 hit, now dirty. (L0 L6 L4)
            r(0x20), //  8 L2 miss, evicts L0 (way 0). Conflict. (L6 L4 L2)
            r(0x00), //  9 L0 miss, evicts L6 (way 1). Conflict. (L4 L2 L0)
            r(0x60), // 10 L6 miss, evicts L4d (way 2): write-back. Conflict. (L2 L0 L6)
        ],
    );
    assert_eq!(kind_of(&res, "l1", RefKind::Read), (8, 7, 4, 0, 3));
    assert_eq!(kind_of(&res, "l1", RefKind::Write), (2, 1, 1, 0, 0));
    assert_eq!(traffic(&res, "l1"), (8, 2, 0, 128, 32));
    assert_eq!(memory(&res), (8, 128, 2, 32));
    // Set 0 ways 0-2: L2, L0, L6; set 1: L1.
    assert_eq!(resident(&mut m, "l1"), [(0x20, false), (0x00, false), (0x60, false), (0x10, false)]);
}

// ---------------------------------------------------------------------------
// Two levels.

#[test]
fn l1_fills_are_reads_and_write_backs_are_writes_at_l2() {
    // L1: 32 B direct-mapped, 16 B lines (2 sets, set = line & 1).
    // L2: 128 B direct-mapped, 16 B lines (8 sets, set = line & 7).
    // Both write-back, write-allocate. An L1 miss sends its fill (a read,
    // also for a write miss) to L2 first, then its dirty victim (a write).
    // Shadows: L1 2-line LRU, L2 8-line LRU.
    let (l1, l2) = (CacheConfig::simple(32, 16, 1), CacheConfig::simple(128, 16, 1));
    let (_, res) = run_both(
        &|m: &mut MachineConfig| {
            m.l1 = Some(l1.clone());
            m.l2 = Some(l2.clone());
        },
        &[
            // 1 L0 L1 s0 write miss; L0d. L2: read L0, s0 miss (compulsory).
            w(0x00),
            // 2 L2 L1 s0 miss, evicts L0d. L2: read L2, s2 miss; then write
            //   L0, s0 hit (L0 now dirty at L2).
            r(0x20),
            // 3 L4 L1 s0 miss, evicts L2. L2: read L4, s4 miss.
            r(0x40),
            // 4 L8 L1 s0 write miss, evicts L4; L8d. L2: read L8 (the fill
            //   of a write miss), s0 miss, evicts L0d: memory write.
            w(0x80),
            // 5 L1 L1 s1 miss. L2: read L1, s1 miss.
            r(0x10),
            // 6 L0 L1 s0 miss, evicts L8d; L1 capacity (its shadow lost L0 at
            //   step 3). L2: read L0, s0 (holds L8) miss, conflict (L2's
            //   shadow holds L0); then write L8, s0 (now L0) miss, conflict;
            //   a whole-line write allocates without a fetch; L8d at L2.
            //   (Write-back before fetch would have made the write hit and
            //   the read evict a dirty L8: a third memory write.)
            r(0x00),
            // 7 Flush: L1 finds L0 and L1 clean. L2 finds L8d (memory
            //   write), L1, L2, L4 clean and sets 3, 5, 6, 7 empty.
            Event::FlushAll,
        ],
    );
    assert_eq!(kind_of(&res, "l1", RefKind::Read), (4, 4, 3, 1, 0));
    assert_eq!(kind_of(&res, "l1", RefKind::Write), (2, 2, 2, 0, 0));
    assert_eq!(traffic(&res, "l1"), (6, 2, 0, 96, 32));
    assert_eq!(flushed(&res, "l1"), (0, 2, 0));
    // L2 reads: the 6 fills (steps 1-6), all misses; L0's second a conflict.
    assert_eq!(kind_of(&res, "l2", RefKind::Read), (6, 6, 5, 0, 1));
    // L2 writes: the 2 write-backs (steps 2 and 6); the second misses.
    assert_eq!(kind_of(&res, "l2", RefKind::Write), (2, 1, 0, 0, 1));
    assert_eq!(traffic(&res, "l2"), (6, 2, 0, 96, 32));
    assert_eq!(flushed(&res, "l2"), (4, 3, 1));
    assert_eq!(memory(&res), (6, 96, 2, 32));
}

#[test]
fn split_l1_over_unified_or_split_l2() {
    // L1i, L1d: 32 B direct-mapped, 16 B lines (2 sets, set = line & 1).
    // Under them either one unified L2 of 64 B direct-mapped (4 sets,
    // set = line & 3), or L2i + L2d of 64 B each. Write-back,
    // write-allocate everywhere. Instruction fills stay fetches at L2.
    let evs = [
        i4(0x00), //  1 L0 L1i s0 miss. L2 ifetch L0: s0 miss.
        r(0x40),  //  2 L4 L1d s0 miss. L2 read L4: s0 miss (unified: evicts L0).
        i4(0x10), //  3 L1 L1i s1 miss. L2 ifetch L1: s1 miss.
        i4(0x20), //  4 L2 L1i s0 miss, evicts L0. L2 ifetch L2: s2 miss.
        i4(0x00), //  5 L0 L1i s0 miss (capacity: its 2-line shadow lost L0 at 4).
        //             L2 ifetch L0: unified s0 holds L4: miss, conflict (its
        //             4-line shadow holds L0); evicts L4. Split: L2i hit.
        r(0x44), //  6 L4 L1d hit.
        w(0x50), //  7 L5 L1d s1 miss; L5d. L2 read L5: s1; unified holds
        //             L1: miss, evicts it. Split: L2d miss.
        i4(0x14), //  8 L1 L1i hit.
        r(0x00),  //  9 L0 L1d s0 miss, evicts L4. L2 read L0: unified s0
        //             holds L0 (fetched as an instruction at 5): hit. Split:
        //             L2d s0 holds L4: miss, compulsory there; evicts L4.
        Event::FlushAll, // 10 L1i: L0, L1 clean. L1d: L0 clean, L5d, written
                         //    to L2 as a write: hits. Then L2 (below).
    ];
    let l1 = CacheConfig::simple(32, 16, 1);
    let l2 = CacheConfig::simple(64, 16, 1);
    let top = |m: &mut MachineConfig| {
        m.l1i = Some(l1.clone());
        m.l1d = Some(l1.clone());
    };
    let check_l1 = |res: &RunResult| {
        assert_eq!(kind_of(res, "l1i", RefKind::Ifetch), (5, 4, 3, 1, 0));
        assert_eq!(traffic(res, "l1i"), (4, 0, 0, 64, 0));
        assert_eq!(flushed(res, "l1i"), (0, 2, 0));
        assert_eq!(kind_of(res, "l1d", RefKind::Read), (3, 2, 2, 0, 0));
        assert_eq!(kind_of(res, "l1d", RefKind::Write), (1, 1, 1, 0, 0));
        assert_eq!(traffic(res, "l1d"), (3, 1, 0, 48, 16));
        assert_eq!(flushed(res, "l1d"), (0, 1, 1));
    };

    let (_, res) = run_both(
        &|m: &mut MachineConfig| {
            top(m);
            m.l2 = Some(l2.clone());
        },
        &evs,
    );
    check_l1(&res);
    // Unified: ifetches 1, 3, 4, 5 all miss (5 a conflict: data evicted an
    // instruction line); reads 2, 7 miss, 9 hits; the write-back hits.
    // Flush: L0 clean, L5d, L2 clean, set 3 empty.
    assert_eq!(kind_of(&res, "l2", RefKind::Ifetch), (4, 4, 3, 0, 1));
    assert_eq!(kind_of(&res, "l2", RefKind::Read), (3, 2, 2, 0, 0));
    assert_eq!(kind_of(&res, "l2", RefKind::Write), (1, 0, 0, 0, 0));
    assert_eq!(traffic(&res, "l2"), (6, 1, 0, 96, 16));
    assert_eq!(flushed(&res, "l2"), (1, 2, 1));
    assert_eq!(memory(&res), (6, 96, 1, 16));

    let (_, res) = run_both(
        &|m: &mut MachineConfig| {
            top(m);
            m.l2i = Some(l2.clone());
            m.l2d = Some(l2.clone());
        },
        &evs,
    );
    check_l1(&res);
    // Split: L2i misses 1, 3, 4 and hits 5; L2d misses 2, 7, 9 (all
    // compulsory there); the write-back reaches L2d and hits.
    assert_eq!(kind_of(&res, "l2i", RefKind::Ifetch), (4, 3, 3, 0, 0));
    assert_eq!(kind_of(&res, "l2i", RefKind::Read), (0, 0, 0, 0, 0));
    assert_eq!(traffic(&res, "l2i"), (3, 0, 0, 48, 0));
    assert_eq!(flushed(&res, "l2i"), (1, 3, 0));
    assert_eq!(kind_of(&res, "l2d", RefKind::Ifetch), (0, 0, 0, 0, 0));
    assert_eq!(kind_of(&res, "l2d", RefKind::Read), (3, 3, 3, 0, 0));
    assert_eq!(kind_of(&res, "l2d", RefKind::Write), (1, 0, 0, 0, 0));
    assert_eq!(traffic(&res, "l2d"), (3, 1, 0, 48, 16));
    assert_eq!(flushed(&res, "l2d"), (2, 1, 1));
    assert_eq!(memory(&res), (6, 96, 1, 16));
}

#[test]
fn write_through_l1_over_write_back_l2() {
    // L1: 32 B direct-mapped, 16 B lines (2 sets), write-through,
    // no-write-allocate. L2: 64 B direct-mapped (4 sets), write-back,
    // write-allocate. Every write reaches L2 as a 4-byte write, where a
    // write-back line absorbs it; memory sees only whole lines.
    let mut l1 = CacheConfig::simple(32, 16, 1);
    l1.write = WritePolicy::WriteThrough;
    l1.write_miss = WriteMissPolicy::NoWriteAllocate;
    let l2 = CacheConfig::simple(64, 16, 1);
    let (_, res) = run_both(
        &|m: &mut MachineConfig| {
            m.l1 = Some(l1.clone());
            m.l2 = Some(l2.clone());
        },
        &[
            r(0x00), // 1 L0 L1 s0 miss. L2 read L0: s0 miss.
            w(0x04), // 2 L0 L1 hit, written through. L2 write: hit, L0d at L2.
            w(0x10), // 3 L1 L1 s1 miss, not allocated (compulsory), written
            //          through. L2 write: s1 miss, allocates, fetches (4 B <
            //          line) from memory; L1d at L2.
            r(0x10), // 4 L1 L1 s1 miss (capacity: seen, never in the shadow).
            //          L2 read: hit.
            w(0x14), // 5 L1 L1 hit, written through. L2 write: hit.
            r(0x40), // 6 L4 L1 s0 miss, evicts L0 (clean: write-through lines
            //          never dirty). L2 read L4: s0 miss, evicts L0d: memory write.
            w(0x44), // 7 L4 L1 hit, written through. L2 write: hit, L4d at L2.
            Event::FlushAll, // 8 L1: L4, L1 clean. L2: L4d, L1d (two memory
                     //   writes), sets 2 and 3 empty.
        ],
    );
    assert_eq!(kind_of(&res, "l1", RefKind::Read), (3, 3, 2, 1, 0));
    assert_eq!(kind_of(&res, "l1", RefKind::Write), (4, 1, 1, 0, 0));
    assert_eq!(traffic(&res, "l1"), (3, 0, 4, 48, 16));
    assert_eq!(flushed(&res, "l1"), (0, 2, 0));
    assert_eq!(kind_of(&res, "l2", RefKind::Read), (3, 2, 2, 0, 0));
    assert_eq!(kind_of(&res, "l2", RefKind::Write), (4, 1, 1, 0, 0));
    assert_eq!(traffic(&res, "l2"), (3, 3, 0, 48, 48));
    assert_eq!(flushed(&res, "l2"), (2, 0, 2));
    assert_eq!(memory(&res), (3, 48, 3, 48));
}

#[test]
fn references_split_per_line_at_each_level() {
    // (a) L1 lines longer than L2's. L1: 64 B direct-mapped, 32 B lines
    // (2 sets, set = (a >> 5) & 1). L2: 128 B direct-mapped, 16 B lines (8
    // sets). Both write-back, write-allocate. Every 32 B fill or write-back
    // from L1 is two L2 accesses.
    let (l1, l2) = (CacheConfig::simple(64, 32, 1), CacheConfig::simple(128, 16, 1));
    let (_, res) = run_both(
        &|m: &mut MachineConfig| {
            m.l1 = Some(l1.clone());
            m.l2 = Some(l2.clone());
        },
        &[
            // 1 8 bytes at 0x1c cross L1 lines 0x00 and 0x20: L1 reads
            //   0x1c (4 B) and 0x20 (4 B), both miss (compulsory); fills
            //   0x00 (L2 reads 0x00, 0x10) and 0x20 (L2 reads 0x20, 0x30),
            //   all four L2 misses.
            r_sized(0x1c, 8),
            // 2 8 bytes at 0x3c cross L1 lines 0x20 and 0x40: L1 writes
            //   0x3c (hit; 0x20 dirty) and 0x40 (s0 miss, evicts clean
            //   0x00; fill 0x40: L2 reads 0x40, 0x50, both miss).
            w_sized(0x3c, 8),
            // 3 L1 line 0x60 s1 miss (compulsory), evicts dirty 0x20: L2
            //   reads 0x60, 0x70 (miss), then writes 0x20, 0x30 (hits).
            r_sized(0x60, 4),
            // 4 Flush: L1 has 0x40 dirty (L2 writes 0x40, 0x50: hits) and
            //   0x60 clean. L2: 0x20-0x50 dirty, the other four clean.
            Event::FlushAll,
        ],
    );
    assert_eq!(kind_of(&res, "l1", RefKind::Read), (3, 3, 3, 0, 0));
    assert_eq!(kind_of(&res, "l1", RefKind::Write), (2, 1, 1, 0, 0));
    assert_eq!(traffic(&res, "l1"), (4, 2, 0, 128, 64));
    assert_eq!(flushed(&res, "l1"), (0, 1, 1));
    assert_eq!(kind_of(&res, "l2", RefKind::Read), (8, 8, 8, 0, 0));
    assert_eq!(kind_of(&res, "l2", RefKind::Write), (4, 0, 0, 0, 0));
    assert_eq!(traffic(&res, "l2"), (8, 4, 0, 128, 64));
    assert_eq!(flushed(&res, "l2"), (0, 4, 4));
    assert_eq!(memory(&res), (8, 128, 4, 64));

    // (b) The same L2 lines under a write-through, no-write-allocate L1:
    // 8 bytes written at 0x0c lie in L1 line 0x00 (one L1 write, a miss,
    // not allocated) but cross L2 lines 0x00 and 0x10: two 4-byte L2
    // writes, both misses that allocate and fetch. The flush writes both
    // back; L1 holds nothing.
    let mut wt = l1.clone();
    wt.write = WritePolicy::WriteThrough;
    wt.write_miss = WriteMissPolicy::NoWriteAllocate;
    let (_, res) = run_both(
        &|m: &mut MachineConfig| {
            m.l1 = Some(wt.clone());
            m.l2 = Some(l2.clone());
        },
        &[w_sized(0x0c, 8), Event::FlushAll],
    );
    assert_eq!(kind_of(&res, "l1", RefKind::Write), (1, 1, 1, 0, 0));
    assert_eq!(traffic(&res, "l1"), (0, 0, 1, 0, 8));
    assert_eq!(flushed(&res, "l1"), (2, 0, 0));
    assert_eq!(kind_of(&res, "l2", RefKind::Write), (2, 2, 2, 0, 0));
    assert_eq!(traffic(&res, "l2"), (2, 2, 0, 32, 32));
    assert_eq!(flushed(&res, "l2"), (6, 0, 2));
    assert_eq!(memory(&res), (2, 32, 2, 32));

    // (c) L1 lines shorter than L2's. L1: 32 B direct-mapped, 16 B lines
    // (2 sets, set = (a >> 4) & 1). L2: 128 B direct-mapped, 32 B lines (4
    // sets, set = (a >> 5) & 3). L1's 2-line shadow (LRU).
    let (l1, l2) = (CacheConfig::simple(32, 16, 1), CacheConfig::simple(128, 32, 1));
    let (_, res) = run_both(
        &|m: &mut MachineConfig| {
            m.l1 = Some(l1.clone());
            m.l2 = Some(l2.clone());
        },
        &[
            // 1 8 bytes at 0x1c: L1 reads 0x1c (line 0x10, s1) and 0x20
            //   (line 0x20, s0), both miss; the fills are L2 reads in L2
            //   lines 0x00 and 0x20, both miss.
            r_sized(0x1c, 8),
            // 2 L1 line 0x00, s0: miss (compulsory), evicts 0x20; its fill
            //   hits L2 line 0x00 (brought in by 0x10's).
            r_sized(0x00, 4),
            // 3 8 bytes written at 0x2c: L1 writes 0x2c (line 0x20, s0:
            //   miss, a conflict: L1's shadow still holds 0x20; evicts
            //   0x00) and 0x30 (line 0x30, s1: miss, compulsory; evicts
            //   0x10); both fills hit L2 line 0x20.
            w_sized(0x2c, 8),
            // 4 Flush: L1 writes back 0x20 and 0x30 (16 B each), both hits
            //   in L2 line 0x20, which is then dirty. L2: line 0x00 clean,
            //   0x20 dirty, two sets empty.
            Event::FlushAll,
        ],
    );
    assert_eq!(kind_of(&res, "l1", RefKind::Read), (3, 3, 3, 0, 0));
    assert_eq!(kind_of(&res, "l1", RefKind::Write), (2, 2, 1, 0, 1));
    assert_eq!(traffic(&res, "l1"), (5, 2, 0, 80, 32));
    assert_eq!(flushed(&res, "l1"), (0, 0, 2));
    assert_eq!(kind_of(&res, "l2", RefKind::Read), (5, 2, 2, 0, 0));
    assert_eq!(kind_of(&res, "l2", RefKind::Write), (2, 0, 0, 0, 0));
    assert_eq!(traffic(&res, "l2"), (2, 1, 0, 64, 32));
    assert_eq!(flushed(&res, "l2"), (2, 1, 1));
    assert_eq!(memory(&res), (2, 64, 1, 32));
}

#[test]
fn data_only_machine_counts_fetches_and_simulates_none() {
    // L1D alone at level 1 (no [l1i]): 64 B, 16 B lines, 2 ways, 2 sets,
    // LRU, write-back, allocate; under it a unified 256 B direct-mapped L2
    // of 16 B lines (16 sets). Page 0 maps to frame 0, so pa == va.
    let mut cfg = MachineConfig::bare("hand", MemoryConfig::sequential(PageSize::new(4096).expect("page"), 1 << 24));
    cfg.stats = StatsConfig { classify_misses: true };
    cfg.l1d = Some(CacheConfig::simple(64, 16, 2));
    cfg.l2 = Some(CacheConfig::simple(256, 16, 1));
    assert!(cfg.data_only());
    let mut m = Machine::new(cfg).expect("a data-only machine");
    let f = |a: u64, size: u32| Event::access(AccessKind::Ifetch, VirtAddr(a), size, Asid(0));
    let res = run(
        &mut m,
        &[
            f(0x00, 4),  // not simulated
            r(0x00),     // L1D set 0 miss, compulsory; L2 set 0 miss, compulsory
            f(0x100, 4), // not simulated (through L2 it would evict line 0 from set 0)
            w(0x04),     // L1D hit; line 0 dirty and most recent
            f(0x04, 4),  // not simulated (a repeat a source may drop)
            r(0x20),     // line 2, L1D set 0 miss, compulsory; L2 set 2 miss, compulsory
            r(0x40),     // line 4, L1D set 0 miss, compulsory, evicts dirty line 0: write-back, an
            //              L2 write hit; L2 set 4 miss, compulsory
            f(0x200, 16), // not simulated (escapes the packed words: the general step)
            r(0x00),      // L1D miss, evicts line 2; FA of 4 lines holds 0: conflict; L2 read hit
        ],
    );
    assert_eq!(res.caches.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(), ["l1d", "l2"]);
    assert_eq!(res.fetches_not_simulated, 4);
    assert_eq!((res.events.ifetch, res.events.load, res.events.store, res.instructions), (4, 4, 1, 4));
    assert_eq!(kind(&res, RefKind::Ifetch), (0, 0, 0, 0, 0));
    assert_eq!(kind(&res, RefKind::Read), (4, 4, 3, 0, 1));
    assert_eq!(kind(&res, RefKind::Write), (1, 0, 0, 0, 0));
    let l1d = &res.caches[0].stats;
    assert_eq!((l1d.fetches, l1d.writebacks), (4, 1));
    let l2 = &res.caches[1].stats;
    let k = |k: RefKind| (l2.kind(k).accesses, l2.kind(k).misses, l2.kind(k).compulsory);
    assert_eq!([k(RefKind::Ifetch), k(RefKind::Read), k(RefKind::Write)], [(0, 0, 0), (4, 3, 3), (1, 0, 0)]);
    assert_eq!((res.memory.reads, res.memory.writes, res.memory.bytes_read), (3, 0, 48));
    assert_eq!(res.pages_mapped, 1);
    // The result says so; a machine with an I-cache leaves the key out.
    let json = serde_json::to_string(&res).expect("json");
    assert!(json.contains("\"fetches_not_simulated\":4"), "{json}");
    assert!(
        res.to_table().lines().next().is_some_and(|l| l.ends_with("  fetches not simulated 4")),
        "{}",
        res.to_table()
    );
}
