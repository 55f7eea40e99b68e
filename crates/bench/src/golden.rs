//! Golden outputs for `cargo test`: a fixed multi-process trace, and a
//! snapshot check that compares a run's whole result (as JSON) with a file
//! committed beside the test. A refactor that must not change any number
//! (issue 24) runs these; a change that means to change numbers re-blesses
//! them with `VMLAB_BLESS=1 cargo test ...` and says why in its commit.
//!
//! The snapshot is the JSON itself, not a digest of it, so a failure names
//! the fields that moved.

use std::path::Path;

use serde_json::Value;
use vmlab_addr::Asid;
use vmlab_trace::{AccessKind, Event};

use crate::synthetic;

/// `n` events of three processes (ASIDs 1, 2, 3; each a [`synthetic`]
/// program of its own seed) taking turns every `quantum` events with a
/// context switch between turns, plus what the single-process shape lacks:
/// stores that straddle a line, references above the 2 GB user limit (the
/// stack near the top of a 47-bit space), and one cache flush in the middle.
pub fn mixed(n: usize, quantum: usize, seed: u64) -> Vec<Event> {
    let per = n.div_ceil(3) + quantum;
    let mut progs: Vec<std::vec::IntoIter<Event>> =
        (0..3u64).map(|p| synthetic(per, seed.wrapping_add(p * 0x9e37)).into_iter()).collect();
    let mut out = Vec::with_capacity(n + n / quantum + 2);
    let mut turn = 0usize;
    let mut k = 0u64;
    while out.len() < n {
        let asid = turn as u32 + 1;
        out.push(Event::ContextSwitch(Asid(asid)));
        for _ in 0..quantum {
            let Some(Event::Access(mut a)) = progs[turn].next() else { break };
            a.asid = Asid(asid);
            k += 1;
            if a.kind != AccessKind::Ifetch {
                match k % 97 {
                    // A stack far above the user limit: folded by the models that have one.
                    0 => a.addr.0 = 0x7fff_f000_0000 + (a.addr.0 & 0xffff),
                    // An 8-byte store that straddles a 16-byte line.
                    1 => {
                        a.kind = AccessKind::Store;
                        a.addr.0 = (a.addr.0 & !0xf) | 0xc;
                    }
                    2 => a.kind = AccessKind::Modify,
                    _ => {}
                }
            }
            out.push(Event::Access(a));
        }
        if out.len() >= n / 2 && out.len() < n / 2 + quantum + 1 {
            out.push(Event::FlushAll);
        }
        turn = (turn + 1) % 3;
    }
    out.truncate(n);
    out
}

/// Compares `actual` with the JSON in `path`, or writes it there when the
/// environment sets `VMLAB_BLESS`. A mismatch is an error naming up to 20
/// differing fields (JSON paths with both values).
pub fn check_snapshot(path: &Path, actual: &Value) -> Result<(), String> {
    let at = path.display();
    let text =
        serde_json::to_string_pretty(actual).map_err(|e| format!("snapshot {at}: cannot serialise: {e}"))? + "\n";
    if std::env::var_os("VMLAB_BLESS").is_some() {
        return std::fs::write(path, text).map_err(|e| format!("snapshot {at}: cannot write: {e}"));
    }
    let stored = std::fs::read_to_string(path)
        .map_err(|e| format!("snapshot {at}: cannot read ({e}); create it with VMLAB_BLESS=1"))?;
    // The text decides (serde_json's float parsing is not exact, so two
    // parsed values can differ where the texts agree); the parsed values
    // only name the places that moved.
    if stored == text {
        return Ok(());
    }
    let parsed = |t: &str| serde_json::from_str::<Value>(t).map_err(|e| format!("snapshot {at}: not JSON: {e}"));
    let mut diffs = Vec::new();
    diff("", &parsed(&stored)?, &parsed(&text)?, &mut diffs);
    if diffs.is_empty() {
        diffs.push("  (the texts differ in layout or in a float's last digits only)".into());
    }
    Err(format!(
        "snapshot {at} differs in {} place(s) (re-bless with VMLAB_BLESS=1 only if the change is meant):\n{}",
        diffs.len(),
        diffs.iter().take(20).cloned().collect::<Vec<_>>().join("\n")
    ))
}

fn diff(at: &str, want: &Value, got: &Value, out: &mut Vec<String>) {
    match (want, got) {
        (Value::Object(a), Value::Object(b)) => {
            for k in a.keys().chain(b.keys().filter(|k| !a.contains_key(*k))) {
                let here = format!("{at}.{k}");
                match (a.get(k), b.get(k)) {
                    (Some(x), Some(y)) => diff(&here, x, y, out),
                    (x, y) => out.push(format!("  {here}: expected {x:?}, got {y:?}")),
                }
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                diff(&format!("{at}[{i}]"), x, y, out);
            }
        }
        _ if want != got => out.push(format!("  {at}: expected {want}, got {got}")),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mixed_trace_switches_flushes_and_leaves_the_user_space() {
        let t = mixed(3000, 500, 7);
        assert_eq!(t.len(), 3000);
        assert_eq!(t, mixed(3000, 500, 7), "deterministic in its seed");
        let switches: Vec<u32> =
            t.iter().filter_map(|e| if let Event::ContextSwitch(a) = e { Some(a.0) } else { None }).collect();
        assert_eq!(switches, vec![1, 2, 3, 1, 2, 3]);
        assert_eq!(t.iter().filter(|e| matches!(e, Event::FlushAll)).count(), 1);
        assert!(t.iter().any(|e| matches!(e, Event::Access(a) if a.addr.0 >= 1 << 31)));
    }

    #[test]
    fn a_snapshot_names_what_moved() {
        let mut out = Vec::new();
        let want = serde_json::json!({"a": 1, "b": [1, 2], "c": {"d": "x"}});
        let got = serde_json::json!({"a": 1, "b": [1, 3], "c": {"d": "y", "e": 0}});
        diff("", &want, &got, &mut out);
        assert_eq!(
            out,
            vec![
                "  .b[1]: expected 2, got 3",
                "  .c.d: expected \"x\", got \"y\"",
                "  .c.e: expected None, got Some(Number(0))"
            ]
        );
    }
}
