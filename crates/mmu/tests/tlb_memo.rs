//! The one-entry lookup memo changes nothing: a TLB with it and one without
//! (the plain hash path, itself checked against a naive model in
//! `tlb_vs_naive.rs`) agree on every answer, every counter and every entry,
//! over random operation sequences with the page locality that makes the
//! memo hit (most lookups repeat the previous page, sometimes under another
//! ASID), for every replacement policy, associativity, wired slots, tagged or
//! untagged, one or two page sizes.

#![allow(clippy::unwrap_used)]

use proptest::prelude::*;
use vmlab_addr::{Asid, PageSize, PhysAddr, VirtAddr};
use vmlab_mmu::tlb::Assoc;
use vmlab_mmu::{Side, Slot, Switch, Tlb, TlbConfig, TlbEntry, TlbLayout, TlbReplacement, TlbSet};

/// The entry the operations insert: page `v` of `a` to a frame derived from it.
fn entry(a: u32, v: u64, size: u64, global: bool) -> TlbEntry {
    let e = TlbEntry::new(Asid(a), VirtAddr(v), PhysAddr(v ^ 0x5_0000), PageSize::new(size).unwrap());
    if global {
        e.global()
    } else {
        e
    }
}

#[derive(Clone, Debug)]
enum Op {
    Lookup(u32, u64),
    /// The previous lookup's page again, at another offset, under this ASID.
    Again(u32, u64),
    Probe(u32, u64),
    Insert(u32, u64, bool, bool, bool),
    PurgePage(u32, u64),
    PurgeAsid(u32),
    PurgeAll,
}

fn op() -> impl Strategy<Value = Op> {
    let va = (0u64..24).prop_map(|p| (p << 12) | 0x123);
    prop_oneof![
        4 => (1u32..4, va.clone()).prop_map(|(a, v)| Op::Lookup(a, v)),
        12 => (prop_oneof![6 => Just(1u32), 1 => 1u32..4], 0u64..4096).prop_map(|(a, o)| Op::Again(a, o)),
        1 => (1u32..4, va.clone()).prop_map(|(a, v)| Op::Probe(a, v)),
        3 => (1u32..4, va.clone(), any::<bool>(), any::<bool>(), any::<bool>()).prop_map(|(a, v, g, w, big)| Op::Insert(a, v, g, w, big)),
        1 => (1u32..4, va).prop_map(|(a, v)| Op::PurgePage(a, v)),
        1 => (1u32..4).prop_map(Op::PurgeAsid),
        1 => Just(Op::PurgeAll),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]
    #[test]
    fn memo_changes_nothing(
        entries in prop_oneof![Just(4u32), Just(8), Just(16)],
        full in any::<bool>(),
        wired in 0u32..3,
        repl in prop_oneof![Just(TlbReplacement::Random), Just(TlbReplacement::Lru), Just(TlbReplacement::Fifo)],
        tagged in any::<bool>(),
        two_sizes in any::<bool>(),
        seed in 0u64..1000,
        ops in prop::collection::vec(op(), 1..400),
    ) {
        let cfg = TlbConfig {
            entries,
            assoc: if full { Assoc::Full } else { Assoc::Ways(2) },
            replacement: repl,
            wired: if full { wired } else { 0 },
            asid_tags: tagged,
            page_sizes: if two_sizes { vec![4096, 16384] } else { vec![4096] },
            seed,
            source: String::new(),
        };
        let mut memo = Tlb::new(cfg.clone()).unwrap();
        let mut plain = Tlb::new(cfg).unwrap();
        plain.set_memo(false);
        let mut last_va = 0x123u64;
        for op in ops {
            match op {
                Op::Lookup(a, v) => {
                    last_va = v;
                    prop_assert_eq!(memo.lookup(Asid(a), VirtAddr(v)), plain.lookup(Asid(a), VirtAddr(v)));
                }
                Op::Again(a, off) => {
                    let v = (last_va & !0xfff) | off;
                    prop_assert_eq!(memo.lookup(Asid(a), VirtAddr(v)), plain.lookup(Asid(a), VirtAddr(v)));
                }
                Op::Probe(a, v) => prop_assert_eq!(memo.probe(Asid(a), VirtAddr(v)), plain.probe(Asid(a), VirtAddr(v))),
                Op::Insert(a, v, g, w, big) => {
                    let size = if big && two_sizes { 16384 } else { 4096 };
                    let slot = if w { Slot::Wired } else { Slot::Normal };
                    prop_assert_eq!(
                        memo.insert(entry(a, v, size, g), slot).unwrap(),
                        plain.insert(entry(a, v, size, g), slot).unwrap()
                    );
                }
                Op::PurgePage(a, v) => prop_assert_eq!(memo.purge_page(Asid(a), VirtAddr(v)), plain.purge_page(Asid(a), VirtAddr(v))),
                Op::PurgeAsid(a) => prop_assert_eq!(memo.purge_asid(Asid(a)), plain.purge_asid(Asid(a))),
                Op::PurgeAll => prop_assert_eq!(memo.purge_all(), plain.purge_all()),
            }
            prop_assert_eq!(memo.stats(), plain.stats());
            let a: Vec<_> = memo.entries().copied().collect();
            let b: Vec<_> = plain.entries().copied().collect();
            prop_assert_eq!(a, b);
        }
    }
}

#[derive(Clone, Debug)]
enum SetOp {
    Lookup(bool, u32, u64),
    Again(bool, u32, u64),
    Insert(bool, u32, u64, bool, bool),
    PurgeUntagged,
}

fn set_op() -> impl Strategy<Value = SetOp> {
    // Few pages: with few slots, hits and evictions interleave closely.
    let va = (0u64..6).prop_map(|p| (p << 12) | 0x123);
    prop_oneof![
        4 => (any::<bool>(), 1u32..4, va.clone()).prop_map(|(d, a, v)| SetOp::Lookup(d, a, v)),
        12 => (any::<bool>(), prop_oneof![6 => Just(1u32), 1 => 1u32..4], 0u64..4096).prop_map(|(d, a, o)| SetOp::Again(d, a, o)),
        3 => (any::<bool>(), 1u32..4, va, any::<bool>(), any::<bool>()).prop_map(|(d, a, v, g, w)| SetOp::Insert(d, a, v, g, w)),
        1 => Just(SetOp::PurgeUntagged),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]
    /// The same for a whole TLB set (every level's memo): split or
    /// unified, with or without micro-TLBs, every policy.
    #[test]
    fn tlb_set_memo_changes_nothing(
        repl in prop_oneof![Just(TlbReplacement::Random), Just(TlbReplacement::Lru), Just(TlbReplacement::Fifo)],
        tagged in any::<bool>(),
        unified in any::<bool>(),
        micro in any::<bool>(),
        entries in prop_oneof![Just(4u32), Just(8)],
        wired in 0u32..3,
        seed in 0u64..1000,
        ops in prop::collection::vec(set_op(), 1..400),
    ) {
        // Few normal slots, so which entry is least recent decides victims.
        let cfg = TlbConfig {
            entries,
            assoc: Assoc::Full,
            replacement: repl,
            wired,
            asid_tags: tagged,
            page_sizes: vec![4096],
            seed,
            source: String::new(),
        };
        let layout = if unified { TlbLayout::Unified(cfg.clone()) } else { TlbLayout::Split { i: cfg.clone(), d: cfg.clone() } };
        let small = TlbConfig { entries: 2, wired: 0, ..cfg };
        let micro = micro.then(|| (small.clone(), small));
        let mut fast = TlbSet::new(layout.clone(), micro.clone()).unwrap();
        let mut plain = TlbSet::new(layout, micro).unwrap();
        plain.set_memo(false);
        let side = |d: bool| if d { Side::D } else { Side::I };
        let mut last_va = [0x123u64; 2];
        for op in ops {
            match op {
                SetOp::Lookup(d, a, v) => {
                    last_va[usize::from(d)] = v;
                    prop_assert_eq!(fast.lookup(side(d), Asid(a), VirtAddr(v)).unwrap(), plain.lookup(side(d), Asid(a), VirtAddr(v)).unwrap());
                }
                SetOp::Again(d, a, off) => {
                    let v = (last_va[usize::from(d)] & !0xfff) | off;
                    prop_assert_eq!(fast.lookup(side(d), Asid(a), VirtAddr(v)).unwrap(), plain.lookup(side(d), Asid(a), VirtAddr(v)).unwrap());
                }
                SetOp::Insert(d, a, v, g, w) => {
                    let slot = if w { Slot::Wired } else { Slot::Normal };
                    fast.insert(side(d), entry(a, v, 4096, g), slot).unwrap();
                    plain.insert(side(d), entry(a, v, 4096, g), slot).unwrap();
                }
                SetOp::PurgeUntagged => {
                    fast.purge(Switch::Untagged);
                    plain.purge(Switch::Untagged);
                }
            }
            prop_assert_eq!(fast.stats(), plain.stats());
        }
    }
}
