//! Every deterministic output of the OS model against a committed snapshot
//! (`tests/golden/os.json`): the S2 measurements, the shipped scenarios,
//! and a fixed multi-process trace under every consistency policy with the
//! oracle on. A refactor must leave every number as it was. Re-bless only
//! for a change that means to move numbers:
//! `VMLAB_BLESS=1 cargo test -p vmlab-os --test golden`.

#![allow(clippy::unwrap_used)]

use std::path::Path;

use serde_json::{Map, Value};
use vmlab_bench::golden::{check_snapshot, mixed};
use vmlab_os::{experiments, run_trace, scenario, CostModel, Policy};
use vmlab_trace::{Event, EventSource, TraceError};

struct Mem(std::vec::IntoIter<Event>);

impl EventSource for Mem {
    fn fill(&mut self, buf: &mut Vec<Event>) -> Result<bool, TraceError> {
        buf.clear();
        buf.extend(self.0.by_ref().take(1000));
        Ok(!buf.is_empty())
    }
    fn progress(&self) -> (u64, Option<u64>) {
        (0, None)
    }
}

#[test]
fn os_model_gives_its_committed_results() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut all = Map::new();
    let cost = CostModel::load("hp9000-834").unwrap();
    all.insert("s2".into(), serde_json::to_value(experiments::all(&cost).unwrap()).unwrap());
    // Scenario violations name their file; a path relative to the crate
    // keeps the snapshot the same in every checkout.
    std::env::set_current_dir(root).unwrap();
    let scenarios = Path::new("../../tests/scenarios/good");
    let mut names: Vec<_> = std::fs::read_dir(scenarios).unwrap().map(|e| e.unwrap().path()).collect();
    names.sort();
    for p in names {
        let out = scenario::run_file(p.to_str().unwrap()).unwrap();
        all.insert(
            format!("scenario/{}", p.file_name().unwrap().to_string_lossy()),
            serde_json::to_value(out).unwrap(),
        );
    }
    let machine = vmlab_machine::preset::load("hp9000-834", &[]).unwrap();
    for policy in Policy::ALL {
        let cost = CostModel::load("hp9000-834").unwrap();
        let out = run_trace(&mut Mem(mixed(8_000, 600, 5).into_iter()), &machine, cost, policy, true).unwrap();
        all.insert(format!("trace/{}", policy.name()), serde_json::to_value(out).unwrap());
    }
    let checked = check_snapshot(&root.join("tests/golden/os.json"), &Value::Object(all));
    assert!(checked.is_ok(), "{}", checked.err().unwrap_or_default());
}
