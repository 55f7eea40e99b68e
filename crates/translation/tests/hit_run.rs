//! The hit loop (`VmSim::feed_packed` completing runs of L1 hits on pages
//! known to hit the TLB) changes no number: on random machines of the shape
//! it serves (direct-mapped, virtually indexed and tagged, write-back L1s;
//! a TLB looked up on every access, or NOTLB) with every TLB arrangement it
//! must respect (random, FIFO and LRU replacement; split and unified;
//! micro-TLBs; untagged), packed words through the fast simulator equal
//! events through `VmSim::general`, mid-trace and at the end, and the loop
//! really completed words.

#![allow(clippy::unwrap_used)]

mod common;

use common::{config, machine, trace, Machine};
use proptest::prelude::*;
use vmlab_addr::{Asid, VirtAddr};
use vmlab_mmu::TlbReplacement;
use vmlab_trace::vmt::packed::{ADDR_BITS, PACKED_ESCAPE};
use vmlab_trace::{AccessKind, Event, PackedBlock};
use vmlab_translation::{load, Scheme, VmConfig, VmResult, VmSim};

/// `machine()` forced into the hit loop's shape.
fn hit_loop_machine() -> impl Strategy<Value = Machine> {
    (
        machine(),
        prop::sample::select(vec![
            Scheme::Notlb,
            Scheme::Ultrix,
            Scheme::Mach,
            Scheme::Intel,
            Scheme::Parisc,
            Scheme::Softvm,
            Scheme::Spur,
        ]),
    )
        .prop_map(|(mut m, scheme)| {
            m.scheme = scheme;
            m.l1_indexing = vmlab_cache::Indexing::Vivt;
            for c in &mut m.caches[..2] {
                c.ways = 1;
                c.write_back = true;
            }
            m.tlb_every_access = true;
            m.protect = false;
            m
        })
}

/// `events` through the fast simulator as packed words and through the
/// general one as events: equal results, returned with the fast simulator.
fn both_paths(cfg: &VmConfig, events: &[Event]) -> (VmResult, VmSim) {
    let mut fast = VmSim::new(cfg.clone()).unwrap();
    let mut general = VmSim::general(cfg.clone()).unwrap();
    run_packed(&mut fast, events).unwrap();
    general.feed(events).unwrap();
    let f = fast.result("t");
    assert_eq!(f, general.result("t"));
    assert_eq!(general.hit_run_words(), 0);
    (f, fast)
}

fn run_packed(sim: &mut VmSim, events: &[Event]) -> Result<(), String> {
    let mut block = PackedBlock::new();
    block.pack(events);
    sim.feed_packed(&block, block.len()).map_err(|e| e.to_string())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(300)
    ))]

    #[test]
    fn hit_run_equals_general(m in hit_loop_machine(), physical_l2 in any::<bool>(), events in trace()) {
        let mut cfg = config(&m);
        // A physically indexed L2 under the virtual L1s: the physical
        // addresses the loop's misses carry must be the TLB's.
        if physical_l2 {
            for c in [&mut cfg.l2, &mut cfg.l2i, &mut cfg.l2d].into_iter().flatten() {
                c.indexing = vmlab_cache::Indexing::Pipt;
                c.asid_tags = false;
            }
        }
        let (Ok(mut fast), Ok(mut general)) = (VmSim::new(cfg.clone()), VmSim::general(cfg)) else {
            return Ok(());
        };
        let half = events.len() / 2;
        for part in [&events[..half], &events[half..]] {
            let a = run_packed(&mut fast, part);
            let b = general.feed(part).map_err(|e| e.to_string());
            prop_assert_eq!(&a, &b);
            if a.is_err() {
                return Ok(());
            }
            prop_assert_eq!(fast.result("t"), general.result("t"));
        }
        // Three equal references in a row within one line, each a direct
        // packed word (not an escape: an odd size, another address space):
        // the first may miss (and refill), the second looks its page up
        // again (and is remembered), the third is the loop's. It must take
        // it, or this test is vacuous.
        let mut block = PackedBlock::new();
        block.pack(&events);
        let direct = |w: u64| (w >> ADDR_BITS) as u8 != PACKED_ESCAPE;
        let fits = |e: &Event| matches!(e, Event::Access(a) if a.addr.0 % 16 + u64::from(a.size.max(1)) <= 16);
        // A store to a no-write-allocate data cache never makes its line
        // resident, so its repeats are never hits the loop could take.
        let allocates = |e: &Event| {
            !matches!(e, Event::Access(a) if a.kind == AccessKind::Store && !m.caches[1].write_allocate)
        };
        let repeats = (2..events.len()).any(|i| {
            events[i - 2] == events[i - 1]
                && events[i - 1] == events[i]
                && fits(&events[i])
                && allocates(&events[i])
                && direct(block.words()[i - 1])
                && direct(block.words()[i])
        });
        // With LRU order or micro-TLBs, only a page whose lookup hit (not a
        // repeat of a line, which looks nothing up) is the loop's.
        let tlbs = if m.unified_tlb { &m.tlbs[..1] } else { &m.tlbs[..] };
        let pure = matches!(m.scheme, Scheme::Softvm | Scheme::Spur)
            || (m.micro.is_none() && tlbs.iter().all(|t| t.replacement != TlbReplacement::Lru));
        if repeats && pure {
            prop_assert!(fast.hit_run_words() > 0);
        }
        prop_assert_eq!(general.hit_run_words(), 0);
    }
}

/// By hand, on jm-base's ULTRIX: a loop of 4-byte fetches over one 16-byte
/// line and 8-byte loads alternating over two data pages, with a load and a
/// modify crossing into the next line. After the first touch of each line
/// (and each page's TLB refill), every word is a hit the loop completes.
#[test]
fn hit_run_counts_by_hand() {
    let cfg = load("jacob-mudge", &["scheme=ultrix".to_string()]).unwrap();
    let (code, p, q) = (0x40_0000u64, 0x80_0000u64, 0x80_5000u64);
    let mut events = Vec::new();
    for i in 0..100u64 {
        events.push(Event::access(AccessKind::Ifetch, VirtAddr(code + (i % 4) * 4), 4, Asid(1)));
        events.push(Event::access(AccessKind::Load, VirtAddr(if i % 2 == 0 { p } else { q }), 8, Asid(1)));
    }
    // Both lines of p..p+32 are resident after these two: then a load and a
    // modify over the line boundary, each two hits per request kind.
    events.push(Event::access(AccessKind::Load, VirtAddr(p + 16), 8, Asid(1)));
    events.push(Event::access(AccessKind::Load, VirtAddr(p + 12), 8, Asid(1)));
    events.push(Event::access(AccessKind::Modify, VirtAddr(p + 12), 8, Asid(1)));
    let (f, fast) = both_paths(&cfg, &events);
    assert_eq!(f.accesses, [100, 102, 0, 1]);
    // User pieces on the I side: 100 fetches, 1 miss (the first). On the D
    // side: 100 loads of p and q (1 miss each), p+16 (a miss), the crossing
    // load (2 hits) and the modify (2 reads, 2 writes: hits).
    assert_eq!(f.i_side.l1_hit_tlb_hit, 99);
    assert_eq!(f.d_side.l1_hit_tlb_hit + f.d_side.l1_hit_tlb_miss, 98 + 2 + 4);
    // The loop took every word but the first touch of the code line, of p
    // and of q (their TLB refills) and the first load of p+16 (an L1 miss):
    // with the TLB's random replacement a lookup changes nothing, so every
    // page seen since stays resident, and a refill forgets only the page
    // it evicted (none here). 203 words, 4 general.
    assert_eq!(fast.hit_run_words(), 199);
}

/// A load that crosses from one 4 MB fold region into the next spills, in
/// folded space, into the slot after its first region's (another region's
/// slot here): that piece's page must not stand for the raw page it came
/// from. Region 1 folds to slot 0, region 5 to slot 1; the crossing load
/// ends in slot 1's first line, and the raw page at 0x80_0000 (region 2,
/// slot 2) is a different page whose first touch misses.
#[test]
fn a_piece_past_its_fold_region_is_not_a_resident_page() {
    let cfg = load("jacob-mudge", &["scheme=ultrix".to_string()]).unwrap();
    let mut events = vec![
        Event::access(AccessKind::Load, VirtAddr(0x40_0000), 4, Asid(1)),
        Event::access(AccessKind::Load, VirtAddr(0x140_0000), 4, Asid(1)),
        Event::access(AccessKind::Load, VirtAddr(0x7f_fffc), 8, Asid(1)),
    ];
    events.extend((0..3).map(|_| Event::access(AccessKind::Load, VirtAddr(0x80_0000), 4, Asid(1))));
    let (f, _) = both_paths(&cfg, &events);
    // Seven data pieces. TLB and L2 misses: the three first touches and
    // the crossing load's first piece (a new page of slot 0). L1 and TLB
    // hits: its second piece (slot 1's first line and page, from the load
    // of 0x140_0000) and the two repeats of 0x80_0000.
    let d = f.d_side;
    assert_eq!((d.l2_miss_tlb_miss, d.l1_hit_tlb_hit, d.total()), (4, 3, 7));
}

/// A word over two lines is the loop's only if both lie on the resident
/// page: here its second line (on the next page) is in L1, but that page
/// has left the D-TLB (FIFO, four normal slots), so the second piece must
/// miss the TLB and refill.
#[test]
fn a_word_into_the_next_page_needs_that_page_resident() {
    let mut cfg = load("jacob-mudge", &["scheme=ultrix".to_string()]).unwrap();
    let mut t = cfg.dtlb.clone().unwrap();
    (t.entries, t.wired, t.replacement) = (20, 16, TlbReplacement::Fifo);
    cfg.dtlb = Some(t);
    let (p, next) = (0x80_0000u64, 0x80_1000u64);
    let mut events = vec![Event::access(AccessKind::Load, VirtAddr(next), 4, Asid(1))];
    // Four more pages (lines away from both of the crossing word's): the
    // fourth insert evicts `next`.
    events.extend((0..4).map(|k| Event::access(AccessKind::Load, VirtAddr(0x90_0100 + k * 0x1000), 4, Asid(1))));
    events.push(Event::access(AccessKind::Load, VirtAddr(p + 0xff8), 4, Asid(1)));
    events.push(Event::access(AccessKind::Load, VirtAddr(p + 0xffc), 8, Asid(1)));
    let (f, _) = both_paths(&cfg, &events);
    // Eight data pieces; the crossing word's are an L1 and TLB hit, then
    // an L1 hit whose page missed the TLB.
    let d = f.d_side;
    assert_eq!((d.l1_hit_tlb_hit, d.l1_hit_tlb_miss, d.total()), (1, 1, 8));
}

/// A context switch purges an untagged TLB but not the ASID-tagged L1: a
/// line still in L1 after the switch (back to the same address space)
/// must look its page up again and miss.
#[test]
fn a_purge_forgets_the_resident_pages() {
    let mut cfg = load("jacob-mudge", &["scheme=ultrix".to_string()]).unwrap();
    for t in [&mut cfg.itlb, &mut cfg.dtlb] {
        t.as_mut().unwrap().asid_tags = false;
    }
    let p = 0x80_0000u64;
    let mut events: Vec<Event> = (0..3).map(|_| Event::access(AccessKind::Load, VirtAddr(p), 4, Asid(1))).collect();
    events.push(Event::ContextSwitch(vmlab_addr::Asid(1)));
    events.extend((0..3).map(|_| Event::access(AccessKind::Load, VirtAddr(p), 4, Asid(1))));
    let (f, fast) = both_paths(&cfg, &events);
    // The first load of each address-space run misses the TLB (the second
    // because of the purge; its refill's kernel references displace the
    // line, so it also goes to memory); the other four are L1 and TLB hits.
    let d = f.d_side;
    assert_eq!((d.l2_miss_tlb_miss, d.l1_hit_tlb_hit, d.total()), (2, 4, 6));
    assert!(fast.hit_run_words() >= 3);
}
