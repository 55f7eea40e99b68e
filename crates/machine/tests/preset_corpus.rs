//! Every file under `tests/corpus/preset/` (repo root) is a machine preset
//! that is wrong in one way (its first line says how); each must fail to
//! load with the file, the exact line (or none, where the problem has no one
//! line) and a message naming the problem.

use std::path::{Path, PathBuf};

use vmlab_machine::preset;

fn corpus(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus").join(rel)
}

/// (file under tests/corpus, line of the error, phrase its message holds)
const CASES: [(&str, Option<usize>, &str); 33] = [
    // TOML itself.
    ("preset/syntax.toml", Some(3), "unclosed table, expected `]`"),
    ("preset/duplicate_key.toml", Some(9), "duplicate key"),
    ("preset/huge_integer.toml", Some(6), "invalid type: integer `18446744073709551616` as i128, expected a size"),
    ("preset/not_utf8.toml", None, "cannot read preset file: stream did not contain valid UTF-8"),
    // Fields and tables that do not exist, or are missing.
    ("preset/unknown_key.toml", Some(8), "unknown field `asoc`, expected one of `size`, `line`, `assoc`"),
    ("preset/unknown_table.toml", Some(9), "unknown field `l5`, expected one of `name`"),
    ("preset/missing_field.toml", Some(5), "missing field `line`"),
    ("preset/missing_memory.toml", Some(1), "missing field `memory`"),
    // Names that are not one of the choices, which the message lists.
    (
        "preset/unknown_policy.toml",
        Some(9),
        "unknown variant `oldest`, expected one of `lru`, `tree-plru`, `fifo`, `random`",
    ),
    (
        "preset/unknown_write_policy.toml",
        Some(9),
        "unknown variant `write-around`, expected `write-back` or `write-through`",
    ),
    (
        "preset/unknown_allocation.toml",
        Some(5),
        "unknown variant `lottery`, expected one of `sequential`, `random`, `colour-preserving`",
    ),
    // Values of the wrong type or out of range.
    ("preset/wrong_type.toml", Some(10), "invalid type: string \"yes\", expected a boolean"),
    (
        "preset/bad_size_suffix.toml",
        Some(6),
        "`8Q` is not a size: expected an integer with an optional K, M or G suffix",
    ),
    ("preset/negative_size.toml", Some(6), "size must not be negative, got -8192"),
    ("preset/negative_seed.toml", Some(10), "invalid value: integer `-1`, expected u64"),
    ("preset/size_overflow.toml", Some(6), "`18014398509481984G` is not a size"),
    ("preset/zero_ways.toml", Some(8), "associativity must be >= 1 or \"full\", got 0"),
    ("preset/page_not_power_of_two.toml", Some(4), "page size must be a power of two (>= 256 bytes), got 3000"),
    // Geometry: the message names the table, the line is its header.
    ("preset/zero_line.toml", Some(5), "[l1]: line must be a power of two >= 4 bytes, got 0"),
    ("preset/line_not_power_of_two.toml", Some(5), "[l1]: line must be a power of two >= 4 bytes, got 24"),
    ("preset/size_not_whole_lines.toml", Some(5), "[l1]: size 100 is not a whole number of 32-byte lines"),
    (
        "preset/ways_do_not_divide.toml",
        Some(5),
        "[l1]: 8192 bytes / 32-byte lines = 256 lines, which 3 ways do not divide",
    ),
    (
        "preset/too_many_lines.toml",
        Some(5),
        "[l1]: 8589934592 bytes / 16-byte lines = 536870912 lines, beyond the limit of 67108864 lines per cache",
    ),
    ("preset/plru_three_ways.toml", Some(5), "[l1]: tree-plru needs a power-of-two way count, got 3"),
    ("preset/xor_three_sets.toml", Some(5), "[l1]: index \"xor\" needs a power-of-two set count, got 3"),
    ("preset/asid_tags_physical.toml", Some(5), "[l1]: asid_tags needs virtual tags"),
    ("preset/space_hash_bits.toml", Some(5), "[l1]: space_hash_bits must be <= 32"),
    ("preset/line_longer_than_page.toml", Some(5), "[l1]: line 8192 is larger than the 4096-byte page"),
    ("preset/memory_not_whole_pages.toml", Some(3), "[memory]: size 6000 is not a whole number of 4096-byte pages"),
    // The level structure.
    ("preset/split_half.toml", Some(5), "[l1i] needs a matching [l1d]"),
    ("preset/unified_and_split.toml", Some(5), "level 1 has both [l1] and a split [l1i]/[l1d]; choose one"),
    ("preset/level_gap.toml", Some(9), "[l3]: level 3 is configured but level 2 is missing"),
    ("preset/no_cache.toml", None, "a machine needs at least one cache"),
];

#[test]
fn preset_corpus() {
    let mut failures = Vec::new();
    for (rel, line, phrase) in CASES {
        let path = corpus(rel);
        let origin = path.to_str().expect("utf-8 path");
        match preset::load(origin, &[]) {
            Ok(cfg) => failures.push(format!("{rel}: loaded (machine {}), expected an error", cfg.name)),
            Err(e) => {
                if e.origin != origin || e.line != line || !e.message.contains(phrase) {
                    failures.push(format!(
                        "{rel}: expected line {line:?} and `{phrase}`, got origin {}, line {:?}: {}",
                        e.origin, e.line, e.message
                    ));
                }
                // What a user sees starts with the file and the line.
                let shown = e.to_string();
                let head = match line {
                    Some(l) => format!("{origin}: line {l}: "),
                    None => format!("{origin}: "),
                };
                if !shown.starts_with(&head) {
                    failures.push(format!("{rel}: shown as `{shown}`, expected it to start `{head}`"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_preset_corpus_file_is_tested() {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(corpus("preset")).expect("corpus dir") {
        found.push(format!("preset/{}", entry.expect("entry").file_name().to_string_lossy()));
    }
    found.sort();
    let mut listed: Vec<String> = CASES.iter().map(|(rel, _, _)| (*rel).to_string()).collect();
    listed.sort();
    assert_eq!(found, listed);
}

/// The corpus files differ from a valid preset only in what their first
/// line says is wrong: this is that preset, and it loads.
#[test]
fn corpus_base_preset_is_valid() {
    let text = "name = \"corpus\"\n[memory]\npage_size = \"4K\"\n[l1]\nsize = \"8K\"\nline = 32\nassoc = 2\n";
    let cfg = preset::parse("base.toml", text).expect("valid preset");
    assert_eq!(cfg.caches().len(), 1);
}
