//! Shipped presets load, name their sources, and bad presets or overrides
//! fail with the file, the line and the valid choices.

#![allow(clippy::panic)]

use vmlab_addr::{Asid, VirtAddr};
use vmlab_cache::{Assoc, Indexing};
use vmlab_machine::preset::{self, BUILTIN};
use vmlab_machine::Machine;

#[test]
fn every_shipped_preset_loads_and_names_its_sources() {
    for (name, _, text) in BUILTIN {
        let cfg = preset::load(name, &[]).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(!cfg.source.is_empty(), "{name}: machine source");
        assert!(!cfg.memory.source.is_empty(), "{name}: [memory] source");
        for (cache, c) in cfg.caches() {
            assert!(!c.source.is_empty(), "{name}: [{cache}] has no source");
        }
        // Every line with a number in a cache table names where it comes from,
        // either in a trailing comment or through the table's source.
        assert!(text.contains("seed 00"), "{name}: cites no seed document");
        Machine::new(cfg).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

#[test]
fn jm_base_is_what_the_issue_says() {
    let cfg = preset::load("jm-base", &[]).expect("loads");
    let caches = cfg.caches();
    let names: Vec<&str> = caches.iter().map(|(n, _)| *n).collect();
    assert_eq!(names, ["l1i", "l1d", "l2i", "l2d"]);
    let sizes: Vec<u64> = caches.iter().map(|(_, c)| c.size.0).collect();
    assert_eq!(sizes, [8192, 8192, 512 << 10, 512 << 10]);
    assert!(caches.iter().all(|(_, c)| c.line.0 == 16));
}

#[test]
fn hp_700_presets_are_what_seed_004_says() {
    use vmlab_cache::IndexFn;
    // (preset, caches top-down with (name, size)): section 4's text for the
    // D-caches (the 720's 256 KB, where Table 2 says 128 KB), Table 2 for
    // the I-caches, the 712's one combined cache.
    let want: [(&str, &[(&str, u64)]); 3] = [
        ("hp9000-720", &[("l1i", 128 << 10), ("l1d", 256 << 10)]),
        ("hp9000-755", &[("l1i", 256 << 10), ("l1d", 256 << 10)]),
        ("hp9000-712", &[("l1", 256 << 10)]),
    ];
    for (name, caches) in want {
        let cfg = preset::load(name, &[]).expect("loads");
        let got: Vec<(&str, u64)> = cfg.caches().iter().map(|(n, c)| (*n, c.size.0)).collect();
        assert_eq!(got, caches, "{name}");
        for (cache, c) in cfg.caches() {
            let what = format!("{name} [{cache}]");
            assert_eq!(
                (c.line.0, c.assoc, c.indexing, c.index),
                (32, Assoc::Ways(1), Indexing::Vipt, IndexFn::SpaceHash),
                "{what}"
            );
        }
        assert_eq!(cfg.memory.page_size.bytes(), 4096, "{name}");
    }
}

#[test]
fn overrides_apply_and_bad_ones_list_valid_keys() {
    let cfg = preset::load("jm-base", &["l1d.size=16K".into(), "l1d.assoc=2".into()]).expect("valid overrides");
    assert_eq!(cfg.l1d.as_ref().map(|c| c.size.0), Some(16384));

    let e = preset::load("jm-base", &["l1d.sise=16K".into()]).expect_err("unknown key");
    let msg = e.to_string();
    assert!(
        msg.contains("--set l1d.sise=16K") && msg.contains("unknown key `sise`") && msg.contains("size, line, assoc"),
        "{msg}"
    );

    let e = preset::load("jm-base", &["l9.size=1K".into()]).expect_err("unknown table");
    assert!(e.to_string().contains("unknown table `l9`"), "{e}");

    let e = preset::load("jm-base", &["l1d.replacement=oldest".into()]).expect_err("bad policy");
    let msg = e.to_string();
    assert!(msg.contains("oldest") && msg.contains("lru") && msg.contains("tree-plru"), "{msg}");

    let e = preset::load("jm-base", &["l1d.line=24".into()]).expect_err("bad geometry");
    assert!(e.to_string().contains("[l1d]"), "{e}");

    let e = preset::load("no-such-machine", &[]).expect_err("unknown preset");
    assert!(e.to_string().contains("jm-base") && e.to_string().contains("x86-64-host"), "{e}");
}

fn sets(specs: &[&str]) -> Vec<String> {
    specs.iter().map(|s| s.to_string()).collect()
}

#[test]
fn overrides_are_checked_together_so_their_order_does_not_matter() {
    // 8K of 16-byte lines is 512 lines, which 3 ways do not divide; 12K is
    // 768 lines, 256 sets of 3. Checked once, after both, either order works.
    let a = preset::load("jm-base", &sets(&["l1d.assoc=3", "l1d.size=12K"])).expect("assoc first");
    let b = preset::load("jm-base", &sets(&["l1d.size=12K", "l1d.assoc=3"])).expect("size first");
    assert_eq!(a, b);
    let l1d = a.l1d.as_ref().expect("l1d");
    assert_eq!((l1d.size.0, l1d.assoc), (12288, Assoc::Ways(3)));
    // jm-base's l1d is VIVT with ASID tags, which only virtual tags allow:
    // a switch to PIPT needs both keys, in either order.
    for order in [["l1d.indexing=pipt", "l1d.asid_tags=false"], ["l1d.asid_tags=false", "l1d.indexing=pipt"]] {
        let cfg = preset::load("jm-base", &sets(&order)).unwrap_or_else(|e| panic!("{order:?}: {e}"));
        let l1d = cfg.l1d.as_ref().expect("l1d");
        assert_eq!((l1d.indexing, l1d.asid_tags), (Indexing::Pipt, false), "{order:?}");
        Machine::new(cfg).unwrap_or_else(|e| panic!("{order:?}: {e}"));
    }
    // The same key twice: the later wins.
    let cfg = preset::load("jm-base", &sets(&["l1d.size=16K", "l1d.size=32K"])).expect("valid");
    assert_eq!(cfg.l1d.map(|c| c.size.0), Some(32768));
}

#[test]
fn overrides_may_add_a_level() {
    // jm-base has levels 1 and 2; a unified level 3 of 1M, 16-byte lines,
    // 8 ways is three keys, in any order.
    let keys = ["l3.size=1M", "l3.line=16", "l3.assoc=8"];
    let orders = [[0, 1, 2], [2, 1, 0], [1, 2, 0]];
    let configs: Vec<_> = orders
        .iter()
        .map(|o| preset::load("jm-base", &sets(&o.map(|i| keys[i]))).unwrap_or_else(|e| panic!("{o:?}: {e}")))
        .collect();
    assert!(configs.windows(2).all(|w| w[0] == w[1]));
    let names: Vec<&str> = configs[0].caches().iter().map(|(n, _)| *n).collect();
    assert_eq!(names, ["l1i", "l1d", "l2i", "l2d", "l3"]);
    let l3 = configs[0].l3.as_ref().expect("l3");
    assert_eq!((l3.size.0, l3.line.0, l3.assoc, l3.indexing), (1 << 20, 16, Assoc::Ways(8), Indexing::Pipt));
    Machine::new(configs[0].clone()).expect("a three-level machine");
    // Short of the keys a cache needs, the error says what adding one takes.
    let e = preset::load("jm-base", &sets(&["l3.size=1M", "l3.assoc=8"])).expect_err("no line");
    assert_eq!(
        e.to_string(),
        "--set l3.size=1M --set l3.assoc=8: [l3]: missing field `line` ([l3] is not in machine jm-base, so \
         overrides that add it must set at least its size, line and assoc)"
    );
}

#[test]
fn an_error_of_the_whole_names_the_table_and_its_overrides() {
    // Each --set is fine on its own terms; together the machine is not.
    // The error names [l1d] and the overrides that set keys in it.
    let e = preset::load("jm-base", &sets(&["l2d.size=1M", "l1d.assoc=3", "memory.seed=3"])).expect_err("512 / 3");
    assert_eq!(
        e.to_string(),
        "--set l1d.assoc=3: [l1d]: 8192 bytes / 16-byte lines = 512 lines, which 3 ways do not divide"
    );
    let e = preset::load("jm-base", &sets(&["l1d.indexing=pipt"])).expect_err("ASID tags on physical tags");
    assert!(e.to_string().starts_with("--set l1d.indexing=pipt: [l1d]: asid_tags needs virtual tags"), "{e}");
    // A bad value still lists the valid ones, and names its table.
    let e = preset::load("jm-base", &sets(&["l1d.size=16K", "l1d.replacement=oldest"])).expect_err("bad policy");
    let msg = e.to_string();
    assert!(msg.starts_with("--set l1d.size=16K --set l1d.replacement=oldest: [l1d]: "), "{msg}");
    assert!(msg.contains("oldest") && msg.contains("tree-plru"), "{msg}");
    // A message about levels rather than one table: every --set.
    let e = preset::load("jm-base", &sets(&["l4.size=1M", "l4.line=16", "l4.assoc=1"])).expect_err("no level 3");
    assert_eq!(
        e.to_string(),
        "--set l4.size=1M --set l4.line=16 --set l4.assoc=1: [l4]: level 4 is configured but level 3 is missing"
    );
    // An unknown key is still blamed on its own --set, before anything is read.
    let e = preset::load("jm-base", &sets(&["l1d.assoc=3", "l1d.sise=16K"])).expect_err("unknown key");
    assert!(e.to_string().starts_with("--set l1d.sise=16K: unknown key `sise`"), "{e}");
}

#[test]
fn bad_preset_files_name_the_line() {
    let dir = std::env::temp_dir().join(format!("vmlab-presets-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp");
    let cases = [
        ("unknown_key.toml", "name = \"x\"\n[memory]\npage_size = \"4K\"\n[l1]\nsize = \"8K\"\nline = 16\nasoc = 1\n", 7, "unknown field `asoc`"),
        ("bad_size.toml", "name = \"x\"\n[memory]\npage_size = \"4K\"\n[l1]\nsize = \"8Q\"\nline = 16\nassoc = 1\n", 5, "not a size"),
        ("bad_page.toml", "name = \"x\"\n[memory]\npage_size = 3000\n[l1]\nsize = \"8K\"\nline = 16\nassoc = 1\n", 3, "power of two"),
        ("split_half.toml", "name = \"x\"\n[memory]\npage_size = \"4K\"\n[l1i]\nsize = \"8K\"\nline = 16\nassoc = 1\n", 4, "needs a matching [l1d]"),
        ("data_l2_only.toml", "name = \"x\"\n[memory]\npage_size = \"4K\"\n[l1]\nsize = \"8K\"\nline = 16\nassoc = 1\n[l2d]\nsize = \"64K\"\nline = 16\nassoc = 1\n", 8, "only level 1 may be data-only"),
        ("syntax.toml", "name = \"x\"\n[memory\npage_size = \"4K\"\n", 2, ""),
        ("bad_indexing.toml", "name = \"x\"\n[memory]\npage_size = \"4K\"\n[l1]\nsize = \"8K\"\nline = 16\nassoc = 1\nindexing = \"vvpt\"\n", 8, "`vivt`, `vipt`, `pipt`"),
    ];
    for (file, text, line, phrase) in cases {
        let p = dir.join(file);
        std::fs::write(&p, text).expect("write");
        let e = preset::load(p.to_str().expect("utf8"), &[]).expect_err(file);
        assert_eq!(e.line, Some(line), "{file}: {e}");
        assert!(e.to_string().contains(phrase), "{file}: {e}");
        assert!(e.to_string().contains(file), "{file}: {e}");
    }
}

#[test]
fn host_preset_reads_sysfs_when_there_is_one() {
    if !std::path::Path::new("/sys/devices/system/cpu/cpu0/cache").exists() {
        eprintln!("skipped: no sysfs cache directory on this machine");
        return;
    }
    let cfg = preset::load("x86-64-host", &[]).expect("host preset");
    assert!(cfg.l1d.is_some() && cfg.l1i.is_some());
    assert!(cfg.caches().iter().all(|(_, c)| c.source.starts_with("/sys/")));
}

#[test]
fn same_seed_same_numbers() {
    use vmlab_trace::{AccessKind, Event};
    let mut x = 12345u64;
    let events: Vec<Event> = (0..50_000)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            Event::access(
                [AccessKind::Load, AccessKind::Store, AccessKind::Ifetch][(x % 3) as usize],
                VirtAddr((x >> 8) % (1 << 22)),
                4,
                Asid((x % 2) as u32),
            )
        })
        .collect();
    let overrides: Vec<String> = ["l1d.replacement=random", "l1d.assoc=4", "memory.allocation=random", "memory.seed=9"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let run = || {
        let mut m = Machine::from_preset("jm-base", &overrides).expect("machine");
        m.feed(&events, "det", 0).expect("runs");
        serde_json::to_string(&m.result("det")).expect("json")
    };
    assert_eq!(run(), run());
    // And the replacement seed matters.
    let mut other = overrides.clone();
    other.push("l1d.seed=2".into());
    let mut m = Machine::from_preset("jm-base", &other).expect("machine");
    m.feed(&events, "det", 0).expect("runs");
    assert_ne!(serde_json::to_string(&m.result("det")).expect("json"), run());
}

#[test]
fn a_data_only_preset_loads_and_others_refuse_it_by_name() {
    let dir = std::env::temp_dir().join(format!("vmlab-data-only-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp");
    let p = dir.join("d.toml");
    let text = "name = \"d\"\n[memory]\npage_size = \"4K\"\n[l1d]\nsize = \"128K\"\nline = 32\nassoc = 2\n\
                [l2]\nsize = \"1M\"\nline = 64\nassoc = 8\n";
    std::fs::write(&p, text).expect("write");
    let cfg = preset::load(p.to_str().expect("utf8"), &[]).expect("a data-only preset");
    assert!(cfg.data_only());
    let names: Vec<_> = cfg.levels_for_replay().expect("levels").iter().map(|l| format!("{l:?}")).collect();
    assert!(names[0].starts_with("Unified { name: \"l1d\""), "{names:?}");
    // Front ends that send fetches through the caches (the OS model, one-pass
    // sweeps) take `levels`, which names what is missing.
    let e = cfg.levels().expect_err("no instruction side");
    assert!(e.contains("[l1d] without [l1i] is a data-only machine"), "{e}");
    std::fs::remove_dir_all(&dir).ok();
    // The benchmark matrix's data-only row: the associative loop over the
    // [l1d] alone, and a source may drop every fetch it can.
    let bench = concat!(env!("CARGO_MANIFEST_DIR"), "/../../bench/machines/l1d-128k2-data-only.toml");
    let m = Machine::from_preset(bench, &[]).expect("bench machine");
    assert!(m.config().data_only());
    assert_eq!(m.inner_loop(), "associative");
    assert_eq!(m.fetch_skip(), Some(vmlab_trace::FetchSkip::EVERY_FETCH));
}
