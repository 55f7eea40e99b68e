//! Multi-process traces against ASID-tagged and untagged TLBs, unified
//! TLBs, and micro-TLBs in front of the main level.

#![allow(clippy::unwrap_used)]

use vmlab_trace::interleave::Interleave;
use vmlab_trace::lackey::LackeyReader;
use vmlab_trace::{Event, EventSource};
use vmlab_translation::{load, VmSim};

/// A process touching `pages` data pages (4 KB apart) in a loop, with an
/// instruction before each load, as lackey text.
fn process(pages: u64, rounds: u64) -> String {
    let mut s = String::new();
    for _ in 0..rounds {
        for p in 0..pages {
            s.push_str(&format!("I  {:08x},4\n L {:08x},4\n", 0x40_0000 + 4 * p, 0x1000_0000 + p * 4096));
        }
    }
    s
}

fn interleaved(quantum: u64) -> Vec<Event> {
    let a = process(8, 50);
    let b = process(8, 50);
    let sources = vec![LackeyReader::new(a.as_bytes(), "a"), LackeyReader::new(b.as_bytes(), "b")];
    let mut il = Interleave::new(sources, quantum).expect("interleave");
    let mut out = Vec::new();
    let mut buf = Vec::new();
    while il.fill(&mut buf).expect("fill") {
        out.extend_from_slice(&buf);
    }
    out
}

fn run(events: &[Event], overrides: &[&str]) -> vmlab_translation::VmResult {
    let o: Vec<String> = overrides.iter().map(|s| (*s).to_string()).collect();
    let mut s = VmSim::new(load("jacob-mudge", &o).expect("preset")).expect("sim");
    s.feed(events).expect("feed");
    s.result("t")
}

#[test]
fn untagged_tlbs_miss_after_every_switch_and_tagged_ones_do_not() {
    let events = interleaved(32);
    let switches = events.iter().filter(|e| matches!(e, Event::ContextSwitch(_))).count() as u64;
    assert!(switches > 10);
    let tagged = run(&events, &[]);
    let untagged = run(&events, &["itlb.asid_tags=false", "dtlb.asid_tags=false"]);
    let d_misses = |r: &vmlab_translation::VmResult| r.dtlb.expect("dtlb").misses;
    // Tagged: each process's code page misses the I-TLB once; its 8 data
    // pages miss the D-TLB once, and so do the two user-table pages its
    // refills load PTEs from (code and data lie in different 4 MB regions,
    // so on different UPT pages): all cold, 2 x (8 + 2).
    assert_eq!(tagged.itlb.expect("itlb").misses, 2);
    assert_eq!(d_misses(&tagged), 2 * (8 + 2));
    // Untagged: the user entries are purged at every switch (kernel entries
    // are global and stay), so pages miss again after each one.
    assert!(d_misses(&untagged) > 5 * d_misses(&tagged), "{} vs {}", d_misses(&untagged), d_misses(&tagged));
    assert!(untagged.vmcpi > tagged.vmcpi);
    assert_eq!(tagged.context_switches, switches);
}

#[test]
fn micro_tlbs_filter_the_main_tlb() {
    let events = interleaved(1000);
    let micro = run(&events, &[]);
    let cfg = load("jacob-mudge", &[]).expect("preset");
    let mut cfg2 = cfg.clone();
    let mut m = cfg.itlb.clone().expect("itlb");
    m.entries = 4;
    m.wired = 0;
    cfg2.micro_itlb = Some(m.clone());
    cfg2.micro_dtlb = Some(m);
    let mut s = VmSim::new(cfg2).expect("sim");
    s.feed(&events).expect("feed");
    let r = s.result("t");
    let get = |n: &str| r.tlbs.iter().find(|t| t.name == n).expect(n).stats;
    // Every reference consults the micro-TLB first; only its misses reach
    // the main TLB, and the misses of the whole set are the same compulsory
    // ones as without micro-TLBs (the main TLB never evicts here).
    let md = get("micro-dtlb");
    let d = get("dtlb");
    assert_eq!(d.hits + d.misses, md.misses);
    assert_eq!(d.misses, micro.dtlb.expect("dtlb").misses);
    assert!(md.hits > 0 && md.misses > 0);
    assert_eq!(r.vmcpi, micro.vmcpi, "same refills, so the same VM cost");
}

#[test]
fn a_unified_tlb_serves_both_sides() {
    let events = interleaved(1000);
    let mut cfg = load("jacob-mudge", &[]).expect("preset");
    cfg.tlb = cfg.dtlb.take();
    cfg.itlb = None;
    let mut s = VmSim::new(cfg).expect("sim");
    s.feed(&events).expect("feed");
    let r = s.result("t");
    assert_eq!(r.tlbs.len(), 1);
    assert_eq!(r.tlbs[0].name, "tlb");
    // 2 code pages + 16 data pages + 2 x 2 user-table pages, all cold.
    assert_eq!(r.tlbs[0].stats.misses, 22);
    // Half a configuration is an error that says what to give.
    let mut bad = load("jacob-mudge", &[]).expect("preset");
    bad.itlb = None;
    let e = VmSim::new(bad).expect_err("no itlb");
    assert!(e.to_string().contains("[itlb] and [dtlb]"), "{e}");
}
