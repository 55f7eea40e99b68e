//! Machine presets from arbitrary bytes: a config or a clean error, never a
//! panic; a config that parses must also build a machine or fail cleanly.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(cfg) = vmlab_machine::preset::parse("fuzz.toml", &text) {
        // Keep allocations small enough for the fuzzer's memory limit.
        if cfg.caches().iter().all(|(_, c)| c.size.0 <= 1 << 24) {
            let _ = vmlab_machine::Machine::new(cfg);
        }
    }
});
