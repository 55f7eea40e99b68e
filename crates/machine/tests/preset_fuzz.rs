//! Stable-Rust fuzzing of the preset parser and the override parser: seeded
//! random mutations of the shipped presets must give a machine or a clean
//! error, never a panic. (`fuzz/fuzz_targets/preset.rs` is the libFuzzer
//! version for nightly.)

use vmlab_machine::preset::{self, BUILTIN};
use vmlab_machine::Machine;

fn xorshift(x: &mut u64) -> u64 {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    *x
}

const TOKENS: [&str; 16] =
    ["=", "[", "]", "\"", "\n", "full", "0", "-1", "99999999999999999999", "K", "l1d", "assoc", "1.5", "#", "{", "lru"];

fn mutate(text: &str, rng: &mut u64) -> String {
    let mut b: Vec<u8> = text.as_bytes().to_vec();
    for _ in 0..(1 + xorshift(rng) % 4) {
        if b.is_empty() {
            break;
        }
        let at = (xorshift(rng) % b.len() as u64) as usize;
        match xorshift(rng) % 4 {
            0 => b[at] = (xorshift(rng) % 256) as u8,
            1 => {
                b.remove(at);
            }
            2 => {
                let t = TOKENS[(xorshift(rng) % TOKENS.len() as u64) as usize];
                b.splice(at..at, t.bytes());
            }
            _ => b.truncate(at),
        }
    }
    String::from_utf8_lossy(&b).into_owned()
}

#[test]
fn mutated_presets_never_panic() {
    let mut rng = 0x9e37_79b9_7f4a_7c15u64;
    let mut ok = 0;
    let mut errors = 0;
    for i in 0..6000 {
        let (_, _, text) = BUILTIN[i % BUILTIN.len()];
        let t = mutate(text, &mut rng);
        match preset::parse("fuzz.toml", &t) {
            Ok(cfg) => {
                // A parsed preset must also build (or fail cleanly) as a machine;
                // skip absurdly large ones to keep the test fast.
                let huge = cfg.caches().iter().any(|(_, c)| c.size.0 > (64 << 20));
                if !huge {
                    let _ = Machine::new(cfg);
                }
                ok += 1;
            }
            Err(e) => {
                assert!(e.to_string().starts_with("fuzz.toml"), "{e}");
                errors += 1;
            }
        }
    }
    assert!(ok > 0 && errors > 0, "mutations should both keep and break presets ({ok} ok, {errors} errors)");
}

#[test]
fn random_overrides_never_panic() {
    let mut rng = 7u64;
    let keys = [
        "l1d.size",
        "l1d.assoc",
        "l2i.line",
        "memory.page_size",
        "l1i.replacement",
        "l1d.indexing",
        "stats.classify_misses",
        "l9.size",
        "l1d",
        "=",
        "memory.colours",
    ];
    let values = ["16K", "0", "full", "3", "lru", "vivt", "true", "-5", "", "\"x\"", "1e9", "[1]"];
    for _ in 0..3000 {
        let k = keys[(xorshift(&mut rng) % keys.len() as u64) as usize];
        let v = values[(xorshift(&mut rng) % values.len() as u64) as usize];
        let spec = format!("{k}={v}");
        if let Err(e) = preset::load("jm-base", std::slice::from_ref(&spec)) {
            assert!(e.to_string().contains("--set") || e.to_string().contains("presets/"), "{e}");
        }
    }
}
