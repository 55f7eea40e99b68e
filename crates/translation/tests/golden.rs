//! The whole result of every translation scheme on a fixed multi-process
//! trace, against a committed snapshot (`tests/golden/schemes.json`): a
//! refactor must leave every number as it was. Re-bless only for a change
//! that means to move numbers: `VMLAB_BLESS=1 cargo test -p vmlab-translation --test golden`.

#![allow(clippy::unwrap_used)]

use std::path::Path;

use serde_json::{Map, Value};
use vmlab_bench::golden::{check_snapshot, mixed};
use vmlab_translation::{load, Scheme, VmSim};

/// Small caches and TLBs so that 12,000 references miss, write back, refill
/// wired and normal slots and evict.
const SMALL: [&str; 8] = [
    "l1i.size=1K",
    "l1d.size=1K",
    "l2i.size=16K",
    "l2d.size=16K",
    "itlb.entries=16",
    "dtlb.entries=16",
    "itlb.wired=4",
    "dtlb.wired=4",
];

fn run(overrides: &[String]) -> Value {
    let mut sim = VmSim::new(load("jacob-mudge", overrides).unwrap()).unwrap();
    sim.feed(&mixed(12_000, 700, 24)).unwrap();
    serde_json::to_value(sim.result("golden")).unwrap()
}

#[test]
fn every_scheme_gives_its_committed_result() {
    let mut all = Map::new();
    for s in Scheme::ALL {
        let scheme = format!("scheme={}", s.name());
        all.insert(format!("{}/preset", s.name()), run(std::slice::from_ref(&scheme)));
        let small: Vec<String> = std::iter::once(scheme).chain(SMALL.iter().map(|o| (*o).to_string())).collect();
        all.insert(format!("{}/small", s.name()), run(&small));
    }
    for extra in ["protection_changes_per_million=2000", "retranslate_writebacks=true"] {
        let o: Vec<String> = ["scheme=softvm", extra].iter().chain(SMALL.iter()).map(|o| (*o).to_string()).collect();
        all.insert(format!("softvm/small/{extra}"), run(&o));
    }
    // A fan-out over three L2s (one pass over L1s and TLBs).
    let cfgs: Vec<_> = ["4K", "16K", "64K"]
        .iter()
        .map(|kb| {
            let o: Vec<String> = SMALL[..2]
                .iter()
                .map(|o| (*o).to_string())
                .chain([format!("l2i.size={kb}"), format!("l2d.size={kb}"), "scheme=mach".into()])
                .collect();
            load("jacob-mudge", &o).unwrap()
        })
        .collect();
    let mut fan = VmSim::fanout(cfgs).unwrap();
    fan.feed(&mixed(12_000, 700, 24)).unwrap();
    all.insert("mach/fanout".into(), serde_json::to_value(fan.results("golden")).unwrap());
    let checked =
        check_snapshot(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/schemes.json"), &Value::Object(all));
    assert!(checked.is_ok(), "{}", checked.err().unwrap_or_default());
}
