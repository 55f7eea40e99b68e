//! The hat purges the simulated TLB: user accesses look their translation
//! up (a miss refills it from the hat), and every unload / protection change
//! purges the page for every address space mapping it, counting the purges
//! that found an entry. Exact counts on a 2-entry LRU TLB, hand-checked.

#![allow(clippy::unwrap_used)]

use vmlab_addr::{Asid, VirtAddr};
use vmlab_cache::{CacheConfig, Indexing};
use vmlab_machine::{MachineConfig, MemoryConfig};
use vmlab_os::hat::UnloadReason;
use vmlab_os::{Consistency, CostModel, Counters, DataRef, ObjectKind, Os, Policy, Prot, Region, TlbPreset};

const PAGE: u64 = 4096;
const BASE: u64 = 0x10000;

fn machine() -> MachineConfig {
    let mut m =
        MachineConfig::bare("tlb", MemoryConfig::sequential(vmlab_addr::PageSize::new(PAGE).expect("page"), 64 * PAGE));
    let mut d = CacheConfig::simple(32 * 1024, 32, 2);
    d.indexing = Indexing::Vivt;
    d.asid_tags = true;
    let mut i = d.clone();
    i.indexing = Indexing::Pipt;
    i.asid_tags = false;
    m.l1i = Some(i);
    m.l1d = Some(d);
    m
}

fn os(entries: u32, policy: Policy) -> Os {
    let mut cost = CostModel::load("hp9000-834").expect("cost");
    cost.tlb = Some(TlbPreset { entries, replacement: vmlab_mmu::TlbReplacement::Lru, source: "test".into() });
    Os::new(&machine(), cost, policy, Consistency::Checked).expect("os")
}

fn tlb(c: Counters) -> (u64, u64, u64, u64) {
    (c.tlb_hits, c.tlb_misses, c.tlb_purges, c.tlb_purge_hits)
}

#[test]
fn lru_misses_refills_and_purges_count_exactly() {
    let mut os = os(2, Policy::None);
    let obj = os.object("a", ObjectKind::Anonymous, 4).expect("obj");
    os.map(
        Asid(1),
        Region { start: VirtAddr(BASE), len: 4 * PAGE, object: obj, offset: 0, prot: Prot::RW, private: false },
    )
    .expect("map");
    let read =
        |os: &mut Os, page: u64| os.access(Asid(1), VirtAddr(BASE + page * PAGE), DataRef::Load, 4, "t").expect("read");
    // 0 miss, 0 hit, 1 miss, 2 miss (evicts 0), 0 miss (evicts 1).
    for p in [0, 0, 1, 2, 0] {
        read(&mut os, p);
    }
    // Three zero-fill faults; each loads and unloads the kernel window of its
    // frame: three purges, none of them finds an entry (kernel references do
    // not go through the TLB model).
    assert_eq!(os.faults().zero_fill, 3);
    assert_eq!(tlb(os.counters()), (1, 4, 3, 0));
    // Unmapping page 2 (in the TLB) and page 1 (evicted): one purge finds.
    os.unmap(Asid(1), VirtAddr(BASE + PAGE), 2 * PAGE).expect("unmap");
    assert_eq!(tlb(os.counters()), (1, 4, 5, 1));
    // Read-only protection of page 0 purges its entry; the next read misses.
    os.protect(Asid(1), VirtAddr(BASE), PAGE, Prot::R).expect("protect");
    assert_eq!(tlb(os.counters()), (1, 4, 6, 2));
    read(&mut os, 0);
    assert_eq!(tlb(os.counters()), (1, 5, 6, 2));
    let s = *os.cpu().tlb().expect("tlb").stats();
    assert_eq!((s.hits, s.misses, s.inserts, s.evictions, s.purged), (1, 5, 5, 2, 2));
}

#[test]
fn unload_frame_purges_every_space_mapping_it() {
    let mut os = os(8, Policy::None);
    let obj = os.object("shared", ObjectKind::Anonymous, 1).expect("obj");
    os.map(
        Asid(1),
        Region { start: VirtAddr(BASE), len: PAGE, object: obj, offset: 0, prot: Prot::RW, private: false },
    )
    .expect("map");
    os.map(
        Asid(2),
        Region { start: VirtAddr(BASE + 4 * PAGE), len: PAGE, object: obj, offset: 0, prot: Prot::RW, private: false },
    )
    .expect("map");
    os.access(Asid(1), VirtAddr(BASE), DataRef::Store, 4, "a").expect("w");
    os.access(Asid(2), VirtAddr(BASE + 4 * PAGE), DataRef::Load, 4, "b").expect("r");
    let before = os.counters();
    let pfn = os.frame_of(Asid(1), VirtAddr(BASE)).expect("frame");
    let (cpu, cost, hat) = os.parts();
    hat.unload_frame(cpu, cost, pfn, UnloadReason::Unmap);
    let d = os.counters() - before;
    assert_eq!((d.tlb_purges, d.tlb_purge_hits), (2, 2));
    assert!(os.cpu().tlb().expect("tlb").entries().next().is_none());
    // Both spaces miss again after their minor faults.
    os.access(Asid(1), VirtAddr(BASE), DataRef::Load, 4, "a").expect("r");
    os.access(Asid(2), VirtAddr(BASE + 4 * PAGE), DataRef::Load, 4, "b").expect("r");
    assert_eq!(os.faults().minor, 3);
    assert_eq!(tlb(os.counters() - before).1, 2);
}

#[test]
fn no_tlb_preset_counts_pdtlb_only() {
    let mut cost = CostModel::load("hp9000-834").expect("cost");
    cost.tlb = None;
    let mut os = Os::new(&machine(), cost, Policy::None, Consistency::Unchecked).expect("os");
    let obj = os.object("a", ObjectKind::Anonymous, 1).expect("obj");
    os.map(
        Asid(1),
        Region { start: VirtAddr(BASE), len: PAGE, object: obj, offset: 0, prot: Prot::RW, private: false },
    )
    .expect("map");
    os.access(Asid(1), VirtAddr(BASE), DataRef::Load, 4, "t").expect("read");
    os.unmap(Asid(1), VirtAddr(BASE), PAGE).expect("unmap");
    assert_eq!(tlb(os.counters()), (0, 0, 2, 0));
}

#[test]
fn tlb_preset_needs_a_source() {
    let text = include_str!("../../../presets/os/hp9000-834.toml");
    let bad = text.split("[tlb]").next().unwrap().to_string() + "[tlb]\nentries = 4\nsource = \"  \"\n";
    assert!(CostModel::parse("x.toml", &bad).unwrap_err().contains("[tlb]"));
    assert_eq!(CostModel::load("hp9000-834").expect("cost").tlb.expect("tlb").entries, 96);
}
