//! Property test: every point of a one-pass TLB sweep (`TlbSweep`) equals,
//! in every counter, its own run of the engine's `vmlab_mmu::Tlb`, driven
//! here by a plain loop over the events (no fetch dropping, no repeat
//! shortcut), on random traces of several address spaces with context
//! switches, references straddling pages, and every access kind; with and
//! without ASID tags, unified, data and instruction TLBs, any set count
//! (powers of two or not) and way count. `TlbRun` (the single run
//! `vmlab sweep` uses for a point alone) is held to the same loop.

#![allow(clippy::unwrap_used)] // a test failing on an unexpected error is the point

use proptest::prelude::*;
use vmlab_addr::{Asid, PageSize, PhysAddr, VirtAddr};
use vmlab_cache::Assoc;
use vmlab_mmu::{Slot, Tlb, TlbConfig, TlbEntry, TlbReplacement, TlbStats};
use vmlab_onepass::{tlb_passes, tlb_refusal, Serves, TlbPoint, TlbRun, TlbSweep};
use vmlab_trace::{AccessKind, Event};

/// The plain run: each served reference looks up every page it touches,
/// a miss inserts, a switch purges an untagged TLB.
fn naive(point: &TlbPoint, events: &[Event]) -> TlbStats {
    let mut tlb = Tlb::new(point.tlb.clone()).unwrap();
    let page = PageSize::new(point.tlb.page_sizes[0]).unwrap();
    for ev in events {
        match ev {
            Event::Access(a) => {
                let served = match point.serves {
                    Serves::All => true,
                    Serves::Data => a.kind != AccessKind::Ifetch,
                    Serves::Instructions => a.kind == AccessKind::Ifetch,
                };
                if !served {
                    continue;
                }
                let first = a.addr.0 >> page.shift();
                let last = (a.addr.0 + u64::from(a.size.max(1)) - 1) >> page.shift();
                for vpn in first..=last {
                    let va = VirtAddr(vpn << page.shift());
                    if tlb.lookup(a.asid, va).is_none() {
                        tlb.insert(TlbEntry::new(a.asid, va, PhysAddr(0), page), Slot::Normal).unwrap();
                    }
                }
            }
            Event::ContextSwitch(to) if !point.tlb.asid_tags => {
                tlb.purge_asid(*to);
            }
            _ => {}
        }
    }
    *tlb.stats()
}

fn events_strategy() -> impl Strategy<Value = Vec<Event>> {
    let step = (
        0u8..12,
        prop::sample::select(vec![AccessKind::Ifetch, AccessKind::Load, AccessKind::Store, AccessKind::Modify]),
        0u64..24,
        0u64..512,
        prop::sample::select(vec![1u32, 4, 8, 16]),
        1u32..4,
    );
    prop::collection::vec(step, 1..400).prop_map(|steps| {
        let mut asid = 1u32;
        let mut out = vec![Event::ContextSwitch(Asid(asid))];
        for (what, kind, page, offset, size, to) in steps {
            match what {
                0 => {
                    asid = to;
                    out.push(Event::ContextSwitch(Asid(asid)));
                }
                1 if page == 0 => out.push(Event::FlushAll),
                _ => {
                    // Pages of 256 bytes or more: offsets near 512 straddle.
                    let addr = 0x1_0000 + page * 512 + offset;
                    out.push(Event::Access(vmlab_trace::Access { kind, addr: VirtAddr(addr), size, asid: Asid(asid) }));
                }
            }
        }
        out
    })
}

/// The shared shape of a sweep's TLBs and its (entries, ways) points
/// (ways 0: fully associative).
fn points_strategy() -> impl Strategy<Value = Vec<TlbPoint>> {
    (
        prop::sample::select(vec![256u64, 512, 4096]),
        any::<bool>(),
        prop::sample::select(vec![Serves::All, Serves::Data, Serves::Instructions]),
        prop::collection::vec(
            (prop::sample::select(vec![1u32, 2, 3, 4, 5, 8, 16]), prop::sample::select(vec![0u32, 1, 2, 4])),
            1..7,
        ),
        prop::sample::select(vec![TlbReplacement::Random, TlbReplacement::Fifo]),
    )
        .prop_map(|(page, tags, serves, shapes, direct_policy)| {
            shapes
                .into_iter()
                .enumerate()
                .map(|(i, (sets, ways))| {
                    let (entries, assoc, w) = if ways == 0 {
                        (sets * 2, Assoc::Full, sets * 2)
                    } else {
                        (sets * ways, Assoc::Ways(ways), ways)
                    };
                    TlbPoint {
                        name: format!("p{i}"),
                        tlb: TlbConfig {
                            entries,
                            assoc,
                            // A direct-mapped TLB picks its only slot under every policy.
                            replacement: if w == 1 { direct_policy } else { TlbReplacement::Lru },
                            wired: 0,
                            asid_tags: tags,
                            page_sizes: vec![page],
                            seed: u64::from(sets),
                            source: String::new(),
                        },
                        serves,
                    }
                })
                .collect()
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(600))]

    #[test]
    fn every_point_of_a_sweep_equals_its_own_run(points in points_strategy(), events in events_strategy()) {
        for p in &points {
            prop_assert_eq!(tlb_refusal(p), None);
        }
        let mut sweep = TlbSweep::new(points.clone()).unwrap();
        sweep.feed(&events, "t", 0).unwrap();
        let results = sweep.results("t");
        for (p, r) in points.iter().zip(&results) {
            let own = naive(p, &events);
            prop_assert_eq!(r.stats, own, "point {:?}", p.tlb);
            let mut single = TlbRun::new(p.clone()).unwrap();
            single.feed(&events, "t", 0).unwrap();
            let s = single.results("t");
            prop_assert_eq!(s[0].stats, own);
            prop_assert_eq!(s[0].events, r.events);
        }
    }
}

fn lru(entries: u32, assoc: Assoc, tags: bool) -> TlbPoint {
    TlbPoint {
        name: String::new(),
        tlb: TlbConfig {
            entries,
            assoc,
            replacement: TlbReplacement::Lru,
            asid_tags: tags,
            ..TlbConfig::fully_associative(entries, 0)
        },
        serves: Serves::All,
    }
}

fn load(asid: u32, addr: u64) -> Event {
    Event::Access(vmlab_trace::Access { kind: AccessKind::Load, addr: VirtAddr(addr), size: 4, asid: Asid(asid) })
}

/// Hand-checked: pages 1 2 3 1 of space 1, a switch to space 2, page 1.
/// Two entries: 1 2 3 miss (3 evicts 1), 1 misses (evicts 2); three
/// entries: only the first touches miss. Tagged, space 2's page 1 is
/// another entry (a miss); untagged the switch purged everything (a miss
/// too, with the entries held counted as purged).
#[test]
fn hand_checked_counts() {
    let mut ev = vec![Event::ContextSwitch(Asid(1))];
    ev.extend([1u64, 2, 3, 1].map(|p| load(1, p << 12)));
    ev.push(Event::ContextSwitch(Asid(2)));
    ev.push(load(2, 1 << 12));
    for (tags, want2, want3) in [
        (
            true,
            TlbStats { hits: 0, misses: 5, inserts: 5, evictions: 3, purged: 0 },
            TlbStats { hits: 1, misses: 4, inserts: 4, evictions: 1, purged: 0 },
        ),
        (
            false,
            TlbStats { hits: 0, misses: 5, inserts: 5, evictions: 2, purged: 2 },
            TlbStats { hits: 1, misses: 4, inserts: 4, evictions: 0, purged: 3 },
        ),
    ] {
        let points = vec![lru(2, Assoc::Full, tags), lru(3, Assoc::Full, tags)];
        assert_eq!(tlb_passes(&points), vec![(true, vec![0, 1])]);
        let mut sweep = TlbSweep::new(points).unwrap();
        sweep.feed(&ev, "t", 0).unwrap();
        let r = sweep.results("t");
        assert_eq!((r[0].stats, r[1].stats), (want2, want3), "tags {tags}");
    }
}

#[test]
fn refusals_and_grouping() {
    let mut random = lru(8, Assoc::Ways(2), true);
    random.tlb.replacement = TlbReplacement::Random;
    assert_eq!(tlb_refusal(&random).as_deref(), Some("the TLB's replacement is not LRU"));
    let mut wired = lru(8, Assoc::Full, true);
    wired.tlb.wired = 2;
    assert!(tlb_refusal(&wired).unwrap().contains("wired"));
    let mut two_sizes = lru(8, Assoc::Full, true);
    two_sizes.tlb.page_sizes = vec![4096, 1 << 21];
    assert!(tlb_refusal(&two_sizes).unwrap().contains("one page size"));
    assert!(TlbRun::new(two_sizes.clone()).is_err());
    let untagged = lru(16, Assoc::Full, false);
    let plan = tlb_passes(&[lru(8, Assoc::Full, true), random, lru(64, Assoc::Ways(4), true), untagged, two_sizes]);
    assert_eq!(plan, vec![(true, vec![0, 2]), (false, vec![1]), (false, vec![3]), (false, vec![4])]);
    assert!(TlbSweep::new(vec![lru(8, Assoc::Full, true), lru(8, Assoc::Full, false)])
        .unwrap_err()
        .contains("differs"));
}
