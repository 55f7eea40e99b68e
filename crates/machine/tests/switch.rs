//! The context-switch rule (`vmlab_mmu::Switch`) on one CPU of a `System`,
//! checked by hand: two address spaces use the same virtual page, and
//! exactly which cache lines and TLB entries survive a switch from the
//! first to the second depends on the rule and on the tags.
//!
//! The CPU: a split L1 over memory, each cache 128 bytes of 32-byte lines,
//! 2-way (2 sets): the I-cache physically indexed and tagged, the D-cache
//! virtually indexed and tagged, with or without ASID tags; an 8-entry TLB
//! with or without ASID tags. Space 1 stores to 0x1000 (frame 0x8000),
//! loads 0x1040 (frame 0x8040) and fetches 0x2000 (frame 0x9000); its TLB
//! holds 0x1000 and 0x2000, and the kernel's global entry for 0xc000_0000
//! is there too. Then the CPU switches to space 2, which maps its own
//! 0x1000 to frame 0xa000.

use vmlab_addr::{Asid, CpuId, PageSize, PhysAddr, VirtAddr};
use vmlab_cache::{CacheConfig, Evicted, FlushStats, Indexing};
use vmlab_machine::{LevelConfig, MissClasses, Reached, System};
use vmlab_mmu::{Slot, Switch, Switched, TlbConfig, TlbEntry};

const CPU: CpuId = CpuId(0);

/// The CPU above after space 1 ran, with ASID tags on the D-cache and TLB
/// or not.
fn after_space_1(dcache_tags: bool, tlb_tags: bool) -> System {
    let i = CacheConfig::simple(128, 32, 2);
    let d = CacheConfig { indexing: Indexing::Vivt, asid_tags: dcache_tags, ..CacheConfig::simple(128, 32, 2) };
    let level = LevelConfig::Split { i_name: "l1i".into(), i, d_name: "l1d".into(), d };
    let mut sys = System::new(1, &[level], &[], MissClasses::Unsorted).expect("valid system");
    let tlb = TlbConfig { asid_tags: tlb_tags, ..TlbConfig::fully_associative(8, 0) };
    sys.cpu_mut(CPU).set_tlb(tlb).expect("valid TLB");

    let mut on = sys.on(CPU);
    on.store(VirtAddr(0x1000), PhysAddr(0x8000), Asid(1), 4);
    on.load(VirtAddr(0x1040), PhysAddr(0x8040), Asid(1), 4);
    on.fetch(VirtAddr(0x2000), PhysAddr(0x9000), Asid(1), 4);
    let page = PageSize::new(4096).expect("4 KB pages");
    let t = sys.cpu_mut(CPU).tlb_mut().expect("the TLB set above");
    for (va, pa) in [(0x1000, 0x8000), (0x2000, 0x9000)] {
        t.insert(TlbEntry::new(Asid(1), VirtAddr(va), PhysAddr(pa), page), Slot::Normal).expect("room in 8 entries");
    }
    let kernel = TlbEntry { global: true, ..TlbEntry::new(Asid(0), VirtAddr(0xc000_0000), PhysAddr(0), page) };
    t.insert(kernel, Slot::Normal).expect("room in 8 entries");
    sys
}

fn line(vaddr: u64, paddr: u64, asid: u32, dirty: bool) -> Evicted {
    Evicted { vaddr: VirtAddr(vaddr), paddr: PhysAddr(paddr), asid: Asid(asid), dirty }
}

/// Every valid line of the I-cache and of the D-cache.
fn lines(sys: &System) -> (Vec<Evicted>, Vec<Evicted>) {
    let levels = sys.cpu(CPU).levels();
    let held = |c| levels.level_cache(0, c).expect("a split L1").resident();
    (held(0), held(1))
}

/// Which of space 1's two entries and the kernel's global one the TLB holds.
fn entries(sys: &System) -> [bool; 3] {
    let t = sys.cpu(CPU).tlb().expect("the TLB set up");
    [
        t.probe(Asid(1), VirtAddr(0x1000)).is_some(),
        t.probe(Asid(1), VirtAddr(0x2000)).is_some(),
        t.probe(Asid(0), VirtAddr(0xc000_0000)).is_some(),
    ]
}

/// Space 1's lines before any switch: in the I-cache its code, in the
/// D-cache its dirty store and its clean load, both in set 0 (the set bit
/// is bit 5; 0x1000 and 0x1040 differ in bit 6 only).
fn space_1_lines() -> (Vec<Evicted>, Vec<Evicted>) {
    (vec![line(0x2000, 0x9000, 1, false)], vec![line(0x1000, 0x8000, 1, true), line(0x1040, 0x8040, 1, false)])
}

/// The caches' flush when everything goes: 3 valid lines (1 dirty, 2
/// clean) of 8 frames, so 5 found empty.
const WHOLE_FLUSH: FlushStats = FlushStats { empty: 5, clean: 2, dirty: 1 };

#[test]
fn the_set_up_holds_what_the_switch_is_checked_against() {
    let sys = after_space_1(false, false);
    assert_eq!(lines(&sys), space_1_lines());
    assert_eq!(entries(&sys), [true, true, true]);
}

/// ASID-tagged D-cache and TLB, physically tagged I-cache: every line and
/// entry names its space, so `Untagged` drops nothing, and space 2's load
/// of its own 0x1000 misses: it is not space 1's line, which is the least
/// recent of set 0 and gives way to it.
#[test]
fn untagged_rule_on_tagged_hardware_keeps_every_line_and_entry() {
    let mut sys = after_space_1(true, true);
    let Ok(done) = Switch::Untagged.apply(&mut sys.on(CPU));
    assert_eq!(done, Switched { tlb_entries: 0, caches: None });
    assert_eq!(lines(&sys), space_1_lines());
    assert_eq!(entries(&sys), [true, true, true]);

    let l = sys.on(CPU).load(VirtAddr(0x1000), PhysAddr(0xa000), Asid(2), 4);
    assert_eq!((l.level, l.last.hit), (Reached::Memory, false));
    assert_eq!(lines(&sys).1, [line(0x1000, 0xa000, 2, false), line(0x1040, 0x8040, 1, false)]);
}

/// An untagged VIVT D-cache cannot tell 0x1000 of space 1 from 0x1000 of
/// space 2: every cache is flushed (the dirty line written back to
/// memory), the physically tagged I-cache with the rest. The untagged TLB
/// loses space 1's two entries but keeps the global one.
#[test]
fn untagged_rule_on_untagged_hardware_flushes_the_caches_and_purges_non_global_entries() {
    let mut sys = after_space_1(false, false);
    let writes = sys.memory().writes;
    let Ok(done) = Switch::Untagged.apply(&mut sys.on(CPU));
    assert_eq!(done, Switched { tlb_entries: 2, caches: Some(WHOLE_FLUSH) });
    assert_eq!(lines(&sys), (vec![], vec![]));
    assert_eq!(entries(&sys), [false, false, true]);
    assert_eq!(sys.memory().writes - writes, 1, "space 1's dirty line written back");
}

/// Each half follows its own structure's tags: a tagged TLB over an
/// untagged D-cache keeps its entries while the caches are flushed; an
/// untagged TLB over tagged caches is purged while every line stays.
#[test]
fn untagged_rule_looks_at_caches_and_tlbs_apart() {
    let mut sys = after_space_1(false, true);
    let Ok(done) = Switch::Untagged.apply(&mut sys.on(CPU));
    assert_eq!(done, Switched { tlb_entries: 0, caches: Some(WHOLE_FLUSH) });
    assert_eq!(lines(&sys), (vec![], vec![]));
    assert_eq!(entries(&sys), [true, true, true]);

    let mut sys = after_space_1(true, false);
    let Ok(done) = Switch::Untagged.apply(&mut sys.on(CPU));
    assert_eq!(done, Switched { tlb_entries: 2, caches: None });
    assert_eq!(lines(&sys), space_1_lines());
    assert_eq!(entries(&sys), [false, false, true]);
}

/// `Everything` ignores the tags: every line and every entry goes, the
/// global one too.
#[test]
fn everything_rule_drops_every_line_and_entry_even_when_tagged() {
    let mut sys = after_space_1(true, true);
    let Ok(done) = Switch::Everything.apply(&mut sys.on(CPU));
    assert_eq!(done, Switched { tlb_entries: 3, caches: Some(WHOLE_FLUSH) });
    assert_eq!(lines(&sys), (vec![], vec![]));
    assert_eq!(entries(&sys), [false, false, false]);
}

/// `Keep` changes nothing, even on untagged hardware, where space 2's
/// load of its own 0x1000 then hits space 1's line: the homonym the
/// `Untagged` rule's flush exists to prevent.
#[test]
fn keep_rule_changes_nothing_and_leaves_the_homonym() {
    let mut sys = after_space_1(false, false);
    let Ok(done) = Switch::Keep.apply(&mut sys.on(CPU));
    assert_eq!(done, Switched::default());
    assert_eq!(lines(&sys), space_1_lines());
    assert_eq!(entries(&sys), [true, true, true]);

    let l = sys.on(CPU).load(VirtAddr(0x1000), PhysAddr(0xa000), Asid(2), 4);
    assert_eq!((l.level, l.last.hit), (Reached::Level(0), true));
}
