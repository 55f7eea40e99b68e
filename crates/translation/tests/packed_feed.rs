//! `VmSim::feed_packed` (the decoder's packed words, as `run` and
//! `vm_sweep` read a trace) applies exactly the events `feed` applies: on
//! random machines and multi-process traces (escapes for context switches,
//! flushes, other address spaces and odd sizes), every result is equal, and
//! a prefix of a block is exactly that many events.

#![allow(clippy::unwrap_used)]

mod common;

use common::{config, machine, trace};
use proptest::prelude::*;
use vmlab_addr::{Asid, VirtAddr};
use vmlab_trace::{AccessKind, Event, PackedBlock};
use vmlab_translation::{load, VmSim};

proptest! {
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(200)
    ))]

    #[test]
    fn packed_words_equal_events(m in machine(), events in trace(), cut in 0usize..400) {
        let cfg = config(&m);
        let (Ok(mut plain), Ok(mut packed)) = (VmSim::new(cfg.clone()), VmSim::new(cfg)) else {
            return Ok(());
        };
        let mut block = PackedBlock::new();
        block.pack(&events);
        prop_assert_eq!(block.len(), events.len());
        let n = cut.min(events.len());
        let a = plain.feed(&events[..n]).map_err(|e| e.to_string());
        let b = packed.feed_packed(&block, n).map_err(|e| e.to_string());
        prop_assert_eq!(&a, &b);
        if a.is_ok() {
            prop_assert_eq!(plain.result("t"), packed.result("t"));
        }
    }
}

/// By hand: two address spaces, a context switch and a store of an odd size
/// (an escape word): the packed run counts every reference of each kind.
#[test]
fn packed_escapes_carry_their_address_space() {
    let events = vec![
        Event::access(AccessKind::Ifetch, VirtAddr(0x1000), 4, Asid(0)),
        Event::access(AccessKind::Load, VirtAddr(0x2000), 8, Asid(2)),
        Event::access(AccessKind::Load, VirtAddr(0x2008), 8, Asid(2)),
        Event::ContextSwitch(vmlab_addr::Asid(3)),
        Event::access(AccessKind::Store, VirtAddr(0x3000), 3, Asid(3)),
        Event::access(AccessKind::Ifetch, VirtAddr(0x1004), 4, Asid(3)),
    ];
    let cfg = load("jacob-mudge", &["scheme=ultrix".to_string()]).unwrap();
    let mut plain = VmSim::new(cfg.clone()).unwrap();
    let mut packed = VmSim::new(cfg).unwrap();
    let mut block = PackedBlock::new();
    block.pack(&events);
    plain.feed(&events).unwrap();
    packed.feed_packed(&block, block.len()).unwrap();
    let (p, q) = (plain.result("t"), packed.result("t"));
    assert_eq!(q.accesses, [2, 2, 1, 0]);
    assert_eq!(q.context_switches, 1);
    // I-TLB: page 1 of spaces 0 and 3. D-TLB: page 2 of space 2, page 3 of
    // space 3, and the nested miss on each space's user page-table page
    // (0, 2, 3; space 3's fetch finds its table page already mapped).
    assert_eq!((q.itlb.unwrap().misses, q.dtlb.unwrap().misses), (2, 5));
    assert_eq!(p, q);
}
