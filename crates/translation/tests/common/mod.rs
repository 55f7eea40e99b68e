//! Random machines and traces shared by the property tests that compare
//! two ways of running the translating simulator (fast vs general paths,
//! fan-out vs separate runs).

#![allow(dead_code, clippy::unwrap_used)]

use proptest::prelude::*;
use vmlab_addr::{Asid, VirtAddr};
use vmlab_cache::{Assoc, CacheConfig, Indexing, Replacement, WriteMissPolicy, WritePolicy};
use vmlab_mmu::{TlbConfig, TlbReplacement};
use vmlab_trace::{AccessKind, Event, PackedBlock};
use vmlab_translation::{load, OnePass, Scheme, VmConfig, VmSim};

#[derive(Clone, Debug)]
pub struct CacheChoice {
    pub sets: u64,
    pub ways: u32,
    pub replacement: Replacement,
    pub write_back: bool,
    pub write_allocate: bool,
    pub seed: u64,
}

pub fn cache_choice() -> impl Strategy<Value = CacheChoice> {
    (
        prop::sample::select(vec![4u64, 16, 64]),
        prop::sample::select(vec![1u32, 1, 2, 4]),
        prop::sample::select(vec![Replacement::Lru, Replacement::Fifo, Replacement::Random]),
        prop::sample::select(vec![true, true, false]),
        prop::sample::select(vec![true, true, false]),
        0u64..50,
    )
        .prop_map(|(sets, ways, replacement, write_back, write_allocate, seed)| CacheChoice {
            sets,
            ways,
            replacement,
            write_back,
            write_allocate,
            seed,
        })
}

pub fn cache(c: &CacheChoice, line: u64, indexing: Indexing) -> CacheConfig {
    let mut k = CacheConfig::simple(line * c.sets * u64::from(c.ways), line, c.ways);
    k.indexing = indexing;
    k.asid_tags = indexing == Indexing::Vivt;
    k.replacement = c.replacement;
    k.write = if c.write_back { WritePolicy::WriteBack } else { WritePolicy::WriteThrough };
    k.write_miss = if c.write_allocate { WriteMissPolicy::WriteAllocate } else { WriteMissPolicy::NoWriteAllocate };
    k.seed = c.seed;
    k
}

#[derive(Clone, Debug)]
pub struct TlbChoice {
    pub entries: u32,
    pub full: bool,
    pub wired: u32,
    pub replacement: TlbReplacement,
    pub tagged: bool,
    pub seed: u64,
}

pub fn tlb_choice() -> impl Strategy<Value = TlbChoice> {
    (
        prop::sample::select(vec![4u32, 8, 16]),
        prop::sample::select(vec![true, true, false]),
        0u32..4,
        prop::sample::select(vec![TlbReplacement::Random, TlbReplacement::Lru, TlbReplacement::Fifo]),
        prop::sample::select(vec![true, true, false]),
        0u64..50,
    )
        .prop_map(|(entries, full, wired, replacement, tagged, seed)| TlbChoice {
            entries,
            full,
            wired,
            replacement,
            tagged,
            seed,
        })
}

pub fn tlb(t: &TlbChoice) -> TlbConfig {
    TlbConfig {
        entries: t.entries,
        assoc: if t.full { Assoc::Full } else { Assoc::Ways(2) },
        replacement: t.replacement,
        wired: if t.full { t.wired } else { 0 },
        asid_tags: t.tagged,
        page_sizes: vec![4096],
        seed: t.seed,
        source: String::new(),
    }
}

#[derive(Clone, Debug)]
pub struct Machine {
    pub scheme: Scheme,
    pub l1_line: u64,
    pub l2_line: u64,
    pub l1_indexing: Indexing,
    pub caches: [CacheChoice; 4],
    pub unified_l2: bool,
    pub tlbs: [TlbChoice; 2],
    pub unified_tlb: bool,
    pub micro: Option<TlbChoice>,
    pub tlb_every_access: bool,
    pub retranslate_writebacks: bool,
    pub protect: bool,
}

pub fn machine() -> impl Strategy<Value = Machine> {
    (
        prop::sample::select(Scheme::ALL.to_vec()),
        prop::sample::select(vec![16u64, 32, 64]),
        prop::sample::select(vec![1u64, 1, 2, 4]),
        prop::sample::select(vec![Indexing::Vivt, Indexing::Vivt, Indexing::Vipt, Indexing::Pipt]),
        [cache_choice(), cache_choice(), cache_choice(), cache_choice()],
        any::<bool>(),
        [tlb_choice(), tlb_choice()],
        any::<bool>(),
        prop::option::weighted(0.3, tlb_choice()),
        prop::sample::select(vec![true, true, false]),
        any::<bool>(),
        prop::sample::select(vec![false, false, true]),
    )
        .prop_map(
            |(
                scheme,
                l1_line,
                l2_mult,
                l1_indexing,
                caches,
                unified_l2,
                tlbs,
                unified_tlb,
                micro,
                every,
                retranslate,
                protect,
            )| {
                // Schemes that translate at memory need virtual caches.
                let l1_indexing =
                    if matches!(scheme, Scheme::Softvm | Scheme::Spur) { Indexing::Vivt } else { l1_indexing };
                Machine {
                    scheme,
                    l1_line,
                    l2_line: l1_line * l2_mult,
                    l1_indexing,
                    caches,
                    unified_l2,
                    tlbs,
                    unified_tlb,
                    micro,
                    tlb_every_access: every,
                    retranslate_writebacks: retranslate,
                    protect,
                }
            },
        )
}

pub fn config(m: &Machine) -> VmConfig {
    let mut cfg = load("jacob-mudge", &[format!("scheme={}", m.scheme.name())]).unwrap();
    let l2_indexing = if matches!(m.scheme, Scheme::Softvm | Scheme::Spur) || m.l1_indexing == Indexing::Vivt {
        Indexing::Vivt
    } else {
        Indexing::Pipt
    };
    cfg.l1i = cache(&m.caches[0], m.l1_line, m.l1_indexing);
    cfg.l1d = cache(&m.caches[1], m.l1_line, m.l1_indexing);
    // L2 larger than L1: four times the sets.
    let big = |c: &CacheChoice| CacheChoice { sets: c.sets * 4, ..c.clone() };
    if m.unified_l2 {
        cfg.l2 = Some(cache(&big(&m.caches[2]), m.l2_line, l2_indexing));
        cfg.l2i = None;
        cfg.l2d = None;
    } else {
        cfg.l2 = None;
        cfg.l2i = Some(cache(&big(&m.caches[2]), m.l2_line, l2_indexing));
        cfg.l2d = Some(cache(&big(&m.caches[3]), m.l2_line, l2_indexing));
    }
    if m.unified_tlb {
        cfg.tlb = Some(tlb(&m.tlbs[0]));
        cfg.itlb = None;
        cfg.dtlb = None;
    } else {
        cfg.tlb = None;
        cfg.itlb = Some(tlb(&m.tlbs[0]));
        cfg.dtlb = Some(tlb(&m.tlbs[1]));
    }
    if let Some(mc) = &m.micro {
        let small = TlbChoice { entries: 2, full: true, wired: 0, ..mc.clone() };
        cfg.micro_itlb = Some(tlb(&small));
        cfg.micro_dtlb = Some(tlb(&small));
    }
    cfg.tlb_every_access = m.tlb_every_access;
    cfg.retranslate_writebacks = m.retranslate_writebacks;
    cfg.protection_changes_per_million = if m.protect { 50_000.0 } else { 0.0 };
    cfg.frames = 1 << 16;
    cfg
}

/// Runs of references with page and line locality (so repeats and TLB memo
/// hits happen), over code, stack and heap regions in several 4 MB regions,
/// from up to three address spaces with context switches, and rare flushes.
pub fn trace() -> impl Strategy<Value = Vec<Event>> {
    let access =
        (0u8..4, 0u64..6, 0u64..24, 0u64..4096, 1u32..24, 0u32..3).prop_map(|(k, region, page, off, size, asid)| {
            let kind = [AccessKind::Ifetch, AccessKind::Load, AccessKind::Store, AccessKind::Modify][k as usize];
            // Regions 4 MB apart and one far away (a stack near the top).
            let base = if region == 5 { 0x7fff_f000_0000 } else { region << 22 };
            (kind, base + (page << 12) + off, size, asid + 1)
        });
    let run = (access, 1usize..12, 0u64..8).prop_map(|((kind, addr, size, asid), n, stride)| {
        (0..n as u64).map(|i| Event::access(kind, VirtAddr(addr + i * stride), size, Asid(asid))).collect::<Vec<_>>()
    });
    // Code interleaved with data, as programs run: fetches walk a line
    // while loads alternate over a few pages, so a side's repeat follows
    // the other side's lookups.
    let interleaved =
        (0u64..8, prop::collection::vec(0u64..8, 1..4), 2usize..24, 1u32..3).prop_map(|(code, data, n, asid)| {
            let mut v = Vec::new();
            for i in 0..n as u64 {
                v.push(Event::access(AccessKind::Ifetch, VirtAddr(0x40_0000 + (code << 12) + 4 * i), 4, Asid(asid)));
                let page = data[i as usize % data.len()];
                v.push(Event::access(AccessKind::Load, VirtAddr(0x80_0000 + (page << 12) + 8 * i), 8, Asid(asid)));
            }
            v
        });
    prop::collection::vec(
        prop_oneof![
            30 => run,
            10 => interleaved,
            2 => (1u32..4).prop_map(|a| vec![Event::ContextSwitch(vmlab_addr::Asid(a))]),
            1 => Just(vec![Event::FlushAll]),
        ],
        1..80,
    )
    .prop_map(|runs| runs.into_iter().flatten().collect())
}

/// Feeds `events` in two halves to one pass over the fan-outs `fans` and
/// to a separate run of each configuration, and checks after each half
/// that the pass gives every configuration's own result (or the same
/// error). Returns the separate runs.
pub fn onepass_equals_alone(fans: Vec<Vec<VmConfig>>, events: &[Event]) -> Result<Vec<VmSim>, TestCaseError> {
    let cfgs: Vec<VmConfig> = fans.iter().flatten().cloned().collect();
    let Ok(mut one) = OnePass::new(fans) else {
        prop_assert!(cfgs.iter().any(|c| VmSim::new(c.clone()).is_err()));
        return Ok(Vec::new());
    };
    prop_assert_eq!(one.len(), cfgs.len());
    let mut alone: Vec<VmSim> = cfgs.iter().map(|c| VmSim::new(c.clone()).unwrap()).collect();
    let half = events.len() / 2;
    for part in [&events[..half], &events[half..]] {
        let mut block = PackedBlock::new();
        block.pack(part);
        let a = one.feed_packed(&block, block.len()).map_err(|e| e.to_string());
        for s in &mut alone {
            prop_assert_eq!(&a, &s.feed(part).map_err(|e| e.to_string()));
        }
        if a.is_err() {
            return Ok(alone);
        }
        let together = one.results("t");
        prop_assert_eq!(together.len(), cfgs.len());
        for (r, s) in together.iter().zip(&mut alone) {
            prop_assert_eq!(r, &s.result("t"));
        }
    }
    Ok(alone)
}
