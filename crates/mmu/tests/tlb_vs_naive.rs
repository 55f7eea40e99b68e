//! The TLB against a deliberately naive model: a vector of entries scanned
//! linearly, the same victim rule and the same seeded generator.

#![allow(clippy::unwrap_used)]

use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;
use vmlab_addr::{Asid, PageSize, PhysAddr, VirtAddr};
use vmlab_mmu::tlb::Assoc;
use vmlab_mmu::{Slot, Tlb, TlbConfig, TlbEntry, TlbReplacement};

#[derive(Clone, Copy, Debug)]
struct E {
    asid: u32,
    vpn: u64,
    shift: u32,
    global: bool,
    pfn: u64,
    stamp: u64,
}

struct Naive {
    slots: Vec<Option<E>>,
    ways: usize,
    wired: usize,
    tagged: bool,
    repl: TlbReplacement,
    rng: Pcg64Mcg,
    clock: u64,
    shifts: Vec<u32>,
}

impl Naive {
    fn matches(&self, e: &E, asid: u32, va: u64) -> bool {
        (va >> e.shift) == e.vpn && (e.global || !self.tagged || e.asid == asid)
    }
    fn find(&self, asid: u32, va: u64) -> Option<usize> {
        // Smallest page size first, an ASID match before a global one, as the spec says.
        for &sh in &self.shifts {
            for want_global in [false, true] {
                for (i, s) in self.slots.iter().enumerate() {
                    if let Some(e) = s {
                        if e.shift == sh && e.global == want_global && self.matches(e, asid, va) {
                            return Some(i);
                        }
                    }
                }
            }
        }
        None
    }
    fn lookup(&mut self, asid: u32, va: u64) -> Option<u64> {
        let i = self.find(asid, va)?;
        if self.repl == TlbReplacement::Lru {
            self.clock += 1;
            if let Some(e) = self.slots[i].as_mut() {
                e.stamp = self.clock;
            }
        }
        self.slots[i].map(|e| e.pfn)
    }
    fn insert(&mut self, asid: u32, va: u64, pa: u64, shift: u32, global: bool, slot: Slot) {
        self.clock += 1;
        let vpn = va >> shift;
        let same = self.slots.iter().position(|s| {
            s.is_some_and(|e| {
                e.shift == shift && e.vpn == vpn && e.global == global && (global || !self.tagged || e.asid == asid)
            })
        });
        let e = E { asid: if global { 0 } else { asid }, vpn, shift, global, pfn: pa >> shift, stamp: self.clock };
        if let Some(i) = same {
            self.slots[i] = Some(e);
            return;
        }
        let n = self.slots.len();
        let sets = n / self.ways;
        let (lo, hi) = if sets > 1 {
            let set = (vpn % sets as u64) as usize;
            (set * self.ways, (set + 1) * self.ways)
        } else if slot == Slot::Wired && self.wired > 0 {
            (0, self.wired)
        } else {
            (self.wired, n)
        };
        let v = match (lo..hi).find(|&i| self.slots[i].is_none()) {
            Some(i) => i,
            None => match self.repl {
                TlbReplacement::Random => self.rng.gen_range(lo..hi),
                _ => (lo..hi).min_by_key(|&i| self.slots[i].map_or(0, |e| e.stamp)).unwrap_or(lo),
            },
        };
        self.slots[v] = Some(e);
    }
    fn purge_asid(&mut self, asid: u32) -> u64 {
        let mut n = 0;
        for s in &mut self.slots {
            if s.is_some_and(|e| !e.global && (!self.tagged || e.asid == asid)) {
                *s = None;
                n += 1;
            }
        }
        n
    }
}

#[derive(Clone, Debug)]
enum Op {
    Lookup(u32, u64),
    Insert(u32, u64, bool, bool, bool),
    PurgePage(u32, u64),
    PurgeAsid(u32),
}

fn op() -> impl Strategy<Value = Op> {
    let va = (0u64..48).prop_map(|p| (p << 12) | 0x123);
    prop_oneof![
        6 => (1u32..4, va.clone()).prop_map(|(a, v)| Op::Lookup(a, v)),
        4 => (1u32..4, va.clone(), any::<bool>(), any::<bool>(), any::<bool>()).prop_map(|(a, v, g, w, big)| Op::Insert(a, v, g, w, big)),
        1 => (1u32..4, va).prop_map(|(a, v)| Op::PurgePage(a, v)),
        1 => (1u32..4).prop_map(Op::PurgeAsid),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    #[test]
    fn tlb_matches_naive(
        entries in prop_oneof![Just(4u32), Just(8), Just(16)],
        full in any::<bool>(),
        wired in 0u32..3,
        repl in prop_oneof![Just(TlbReplacement::Random), Just(TlbReplacement::Lru), Just(TlbReplacement::Fifo)],
        tagged in any::<bool>(),
        seed in 0u64..1000,
        ops in prop::collection::vec(op(), 1..300),
    ) {
        let ways = if full { entries } else { 2 };
        let wired = if full { wired } else { 0 };
        let cfg = TlbConfig {
            entries,
            assoc: if full { Assoc::Full } else { Assoc::Ways(2) },
            replacement: repl,
            wired,
            asid_tags: tagged,
            page_sizes: vec![4096, 16384],
            seed,
            source: String::new(),
        };
        let mut tlb = Tlb::new(cfg).unwrap();
        let mut naive = Naive {
            slots: vec![None; entries as usize], ways: ways as usize, wired: wired as usize, tagged, repl,
            rng: Pcg64Mcg::seed_from_u64(seed), clock: 0, shifts: vec![12, 14],
        };
        for op in ops {
            match op {
                Op::Lookup(a, v) => {
                    let got = tlb.lookup(Asid(a), VirtAddr(v)).map(|e| e.pfn.0);
                    prop_assert_eq!(got, naive.lookup(a, v));
                }
                Op::Insert(a, v, g, w, big) => {
                    let shift = if big { 14 } else { 12 };
                    let slot = if w { Slot::Wired } else { Slot::Normal };
                    let e = TlbEntry::new(Asid(a), VirtAddr(v), PhysAddr(v ^ 0x5_0000), PageSize::new(1 << shift).unwrap());
                    tlb.insert(if g { e.global() } else { e }, slot).unwrap();
                    naive.insert(a, v, v ^ 0x5_0000, shift, g, slot);
                }
                Op::PurgePage(a, v) => {
                    let had = naive.find(a, v);
                    if let Some(i) = had { naive.slots[i] = None; }
                    prop_assert_eq!(tlb.purge_page(Asid(a), VirtAddr(v)), had.is_some());
                }
                Op::PurgeAsid(a) => prop_assert_eq!(tlb.purge_asid(Asid(a)), naive.purge_asid(a)),
            }
        }
    }
}
