//! SOFTVM hand-worked: every handler run, handler fetch and PTE load of a
//! four-load trace on a tiny machine, worked out in the comments, then
//! checked against the simulator (fast and general paths).

#![allow(clippy::unwrap_used)]

use vmlab_addr::{Asid, VirtAddr};
use vmlab_trace::{Access, AccessKind, Event};
use vmlab_translation::{load, parse, Component, SimError, VmConfig, VmSim};

fn user_load(addr: u64) -> Event {
    Event::Access(Access { kind: AccessKind::Load, size: 4, addr: VirtAddr(addr), asid: Asid(1) })
}

/// jacob-mudge's costs and handlers (user 10, root 20 instructions; 20-cycle
/// L2, 500-cycle memory) with caches small enough to force conflicts:
/// L1 I 64 B (4 sets), L2 I 16 KB (the handlers at 0x1000 and 0x1100
/// never meet there), L1 D 64 B (4 sets), L2 D 512 B (32 sets), all direct
/// mapped with 16-byte lines. Only loads: no line is ever dirty, so
/// `retranslate_writebacks` cannot matter (and is pinned off, the paper's
/// measured setup).
fn tiny() -> VmConfig {
    tiny_with(false)
}

fn tiny_with(retranslate_writebacks: bool) -> VmConfig {
    let set = [&TINY.map(String::from)[..], &[format!("retranslate_writebacks={retranslate_writebacks}")]].concat();
    load("jacob-mudge", &set).expect("preset")
}

const TINY: [&str; 5] = ["scheme=softvm", "l1i.size=64", "l2i.size=16K", "l1d.size=64", "l2d.size=512"];

/// The preset as shipped: write-backs not translated (the paper's measured setup).
fn tiny_default() -> VmConfig {
    load("jacob-mudge", &TINY.map(String::from)).expect("preset")
}

fn tally(s: &VmSim, c: Component) -> (u64, u64) {
    let t = s.vmcpi().tally(c);
    (t.events, t.cycles)
}

/// Layout. Trace regions fold to 4 MB slots in first-touch order
/// (0x1000_0000 -> 0x0, 0x2000_0000 -> 0x40_0000). Frames are handed out
/// from 16: the first user page gets 16, space 1's root table the second
/// half of frame 17 (root at physical 0x11800), the first global-table
/// page 18. Space 1's segment 0 has VSID 16, so the UPTE of user page `vpn`
/// sits at TABLE_BASE + 0x40_0000 + vpn * 4 (TABLE_BASE's low 42 bits are
/// 0), and the RPTE of the table page of 4 MB region `r` at physical
/// 0x11800 + r * 4. Cache sets below are (address >> 4) mod 4 in L1 D and
/// mod 32 in L2 D; handler code is at physical 0x1000 (user: 3 lines, L1 I
/// sets 0-2) and 0x1100 (root: 5 lines, L1 I sets 0, 1, 2, 3, 0: the 64-byte
/// L1 I is smaller than the 0x100 bytes between them).
///
/// 1. load 0x1001_0050 (va 0x10050: L1 D 1, L2 D 5): misses L1 and L2, so
///    it traps. User handler #1: 3 cold lines, each L1 I and L2 I miss.
///    Its UPTE (vpn 0x10, offset 0x40: L1 D 0, L2 D 4) is in neither
///    cache: recursion. Root handler #1: 5 cold lines, L1 I and L2 I miss
///    each; it leaves L1 I = {0x1140, 0x1110, 0x1120, 0x1130}. Its RPTE
///    (0x11800: L1 D 0, L2 D 0) misses both. Then the UPTE load misses
///    both (evicting the RPTE from L1 D, not from L2 D). The user load is
///    retried: L1 and L2 miss, a memory fill of the page just translated
///    (no further translation).
/// 2. load 0x1001_0080 (va 0x10080: L1 D 0, L2 D 8): misses L1 and L2.
///    User handler #2: its 3 lines were evicted by the root handler's:
///    3 L1 I misses that hit L2 I. Its UPTE (same as in 1) is in L1 D:
///    a hit, free. The retried load misses L1 D set 0, evicting the UPTE
///    from L1 D (it stays in L2 D set 4), and misses L2.
/// 3. load 0x1001_1050 (va 0x11050: L1 D 1, L2 D 5, both holding 0x10050):
///    misses L1 and L2. User handler #3: 3 L1 I hits. Its UPTE (vpn 0x11,
///    offset 0x44, the same line as in 1) is in L2 D but not L1 D: resident,
///    no recursion; an L1 miss that hits L2. The retried load misses both.
/// 4. load 0x2001_C0A0 (region 2 -> slot 1: va 0x41C0A0, L1 D 2, L2 D 10):
///    misses L1 and L2. User handler #4: 3 L1 I hits. Its UPTE (vpn 0x41C,
///    offset 0x1070: L1 D 3, L2 D 7) is on the second table page, in
///    neither cache: recursion. Root handler #2: 0x1100, 0x1110, 0x1120
///    miss L1 I (the user handler's lines are there) and hit L2 I; 0x1130
///    hits L1 I; 0x1140 misses L1 I (0x1100 just took set 0) and hits L2 I.
///    Its RPTE (0x11804, the line of 1's RPTE) misses L1 D (set 0 holds the
///    UPTE from 3) and hits L2 D. The UPTE load misses both. The retried
///    load misses both.
///
/// Totals: user handler 4 runs x 10 = 40 cycles; root handler 2 x 20 = 40;
/// handler fetches 4 x 10 + 2 x 20 = 80, of which L1 I misses
/// 8 + 3 + 0 + 4 = 15 (x 20 = 300) and memory fetches 8 (x 500 = 4,000);
/// PTE loads 2 + 1 + 1 + 2 = 6: UPTE L1 misses 3 (1, 3, 4: 60), UPTE
/// memory 2 (1, 4: 1,000), RPTE L1 misses 2 (40), RPTE memory 1 (500).
/// VM cycles 40 + 40 + 300 + 4,000 + 60 + 1,000 + 40 + 500 = 5,980.
fn check(mut s: VmSim) {
    s.feed(&[user_load(0x1001_0050), user_load(0x1001_0080), user_load(0x1001_1050), user_load(0x2001_C0A0)]).unwrap();
    assert_eq!(tally(&s, Component::Uhandler), (4, 40));
    assert_eq!(tally(&s, Component::Rhandler), (2, 40));
    assert_eq!(tally(&s, Component::Khandler), (0, 0));
    assert_eq!(tally(&s, Component::HandlerL2), (15, 300));
    assert_eq!(tally(&s, Component::HandlerMem), (8, 4000));
    assert_eq!(tally(&s, Component::UpteL2), (3, 60));
    assert_eq!(tally(&s, Component::UpteMem), (2, 1000));
    assert_eq!(tally(&s, Component::RpteL2), (2, 40));
    assert_eq!(tally(&s, Component::RpteMem), (1, 500));
    assert_eq!(tally(&s, Component::KpteL2), (0, 0));
    let r = s.result("hand");
    assert_eq!(r.vm_cycles, 5980);
    assert_eq!(r.handler_runs, [4, 0, 2, 0]);
    assert_eq!(r.handler_fetches, 80);
    assert_eq!(r.pte_loads, 6);
    assert_eq!(r.admin_loads, 0);
    assert_eq!(r.walker_refills, 0);
    // Every retried user load reached memory, and only demand fills moved:
    // nothing else needed translating.
    assert_eq!(r.d_side.l2_misses(), 4);
    assert_eq!(r.d_side.total(), 4);
    assert_eq!(r.writeback_translations, 0);
    assert!(r.itlb.is_none() && r.dtlb.is_none());
    assert_eq!(r.folded_regions, 2);
}

#[test]
fn softvm_recursion_and_retried_loads_fast_path() {
    check(VmSim::new(tiny()).unwrap());
}

#[test]
fn softvm_recursion_and_retried_loads_general_path() {
    check(VmSim::general(tiny()).unwrap());
}

/// A dirty line written back from L2 to memory, translated again or not
/// (section 5.5's "two address translations"; the same tiny machine and
/// layout as above).
///
/// 1. load 0x1001_0050 (va 0x10050: L1 D 1, L2 D 5): as in the test above,
///    user handler #1 (3 cold lines), UPTE (L1 D 0, L2 D 4) in neither
///    cache, root handler #1 (5 cold lines), RPTE and UPTE from memory.
/// 2. store 0x1001_0054: an L1 D hit; the line is now dirty in L1 D.
/// 3. load 0x1001_0090 (va 0x10090: L1 D 1, L2 D 9): misses both. User
///    handler #2: 3 L1 I misses that hit L2 I (root lines there). UPTE: an
///    L1 D hit. The access evicts dirty 0x10050 from L1 D into L2 D set 5
///    (an L2 hit: nothing reaches memory), then fills 0x10090 (the page
///    just translated).
/// 4. load 0x1001_1050 (va 0x11050: L1 D 1, L2 D 5): misses both. User
///    handler #3: 3 L1 I hits. UPTE (offset 0x44, same line): L1 D hit.
///    The access writes dirty 0x10050 back from L2 D to memory and fills
///    0x11050. With `retranslate_writebacks` the write-back of page 0x10
///    is translated: user handler #4 (3 L1 I hits) and its UPTE (L1 D hit),
///    which cost only the handler's 10 instructions; without, nothing.
///
/// Without: user handler 3 x 10 = 30, root 20, handler L1 I misses
/// 8 + 3 = 11 (220), memory 8 (4,000), UPTE 1 L1 miss (20) and 1 memory
/// (500), RPTE likewise (20, 500): 5,310 cycles; PTE loads 2 + 1 + 1 = 4.
/// With: one more user handler run (10 cycles, 10 fetches) and PTE load.
/// The preset's default is "without" (`None` below).
#[test]
fn softvm_writeback_translation() {
    let cases = [(None, 3, 4, 0), (Some(false), 3, 4, 0), (Some(true), 4, 5, 1)];
    let paths: [fn(VmConfig) -> Result<VmSim, SimError>; 2] = [VmSim::new, VmSim::general];
    for ((retranslate, user_runs, pte_loads, translated), make) in cases.into_iter().flat_map(|c| paths.map(|m| (c, m)))
    {
        let mut s = make(retranslate.map_or_else(tiny_default, tiny_with)).unwrap();
        let store =
            Event::Access(Access { kind: AccessKind::Store, size: 4, addr: VirtAddr(0x1001_0054), asid: Asid(1) });
        s.feed(&[user_load(0x1001_0050), store, user_load(0x1001_0090), user_load(0x1001_1050)]).unwrap();
        assert_eq!(tally(&s, Component::Uhandler), (user_runs, user_runs * 10), "retranslate={retranslate:?}");
        assert_eq!(tally(&s, Component::Rhandler), (1, 20));
        assert_eq!(tally(&s, Component::HandlerL2), (11, 220));
        assert_eq!(tally(&s, Component::HandlerMem), (8, 4000));
        assert_eq!(tally(&s, Component::UpteL2), (1, 20));
        assert_eq!(tally(&s, Component::UpteMem), (1, 500));
        assert_eq!(tally(&s, Component::RpteL2), (1, 20));
        assert_eq!(tally(&s, Component::RpteMem), (1, 500));
        let r = s.result("hand");
        assert_eq!(r.vm_cycles, 5280 + user_runs * 10, "5,310 without, 5,320 with");
        assert_eq!(r.handler_runs, [user_runs, 0, 1, 0]);
        assert_eq!(r.handler_fetches, user_runs * 10 + 20);
        assert_eq!(r.pte_loads, pte_loads);
        assert_eq!(r.writeback_translations, translated);
        assert_eq!(r.d_side.l1_hit_tlb_hit, 1, "the store");
        assert_eq!(r.d_side.l2_misses(), 3);
    }
}

/// A machine file that does not mention `retranslate_writebacks` gets the
/// paper's measured setup too.
#[test]
fn writeback_translation_is_off_unless_asked_for() {
    let text = vmlab_translation::config::BUILTIN[0].1;
    let without: String =
        text.lines().filter(|l| !l.starts_with("retranslate_writebacks")).collect::<Vec<_>>().join("\n");
    assert_ne!(without.len(), text.trim_end().len(), "the preset names the setting");
    assert!(!parse("no key", &without).unwrap().retranslate_writebacks);
    assert!(!load("jacob-mudge", &[]).unwrap().retranslate_writebacks);
}
