//! The `x86-64-host` preset: this machine's caches as Linux reports them in
//! sysfs. L1 caches are modelled VIPT (as on every x86 since the Pentium Pro),
//! lower levels PIPT; replacement is LRU because sysfs does not say.

use std::fmt::Write as _;
use std::path::Path;

const CACHE_DIR: &str = "/sys/devices/system/cpu/cpu0/cache";

fn read(dir: &Path, file: &str) -> Result<String, String> {
    std::fs::read_to_string(dir.join(file))
        .map(|s| s.trim().to_string())
        .map_err(|e| format!("cannot read {}: {e}", dir.join(file).display()))
}

/// Builds preset TOML text from sysfs.
pub fn host_preset_text() -> Result<String, String> {
    host_preset_from(Path::new(CACHE_DIR))
}

pub fn host_preset_from(root: &Path) -> Result<String, String> {
    let mut entries: Vec<_> = std::fs::read_dir(root)
        .map_err(|e| format!("cannot list {}: {e} (this preset needs Linux sysfs)", root.display()))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with("index")))
        .collect();
    entries.sort();
    let mut out = String::new();
    let _ = writeln!(out, "name = \"x86-64-host\"");
    let _ = writeln!(out, "description = \"The machine vmlab runs on, read from sysfs at load time\"");
    let _ = writeln!(out, "source = \"{}\"\n", root.display());
    let _ = writeln!(out, "[memory]\npage_size = \"4K\"\nsize = \"64G\"\nallocation = \"random\"");
    let _ = writeln!(
        out,
        "source = \"page size: the x86-64 base page; size: a vmlab default, large enough that no trace runs out of \
         frames (not this host's RAM: frames are only numbered); placement random, as under Linux's buddy allocator\"\n"
    );
    let mut found = 0;
    for dir in entries {
        let level = read(&dir, "level")?;
        let kind = read(&dir, "type")?;
        let suffix = match kind.as_str() {
            "Data" => "d",
            "Instruction" => "i",
            "Unified" => "",
            other => return Err(format!("{}: unknown cache type `{other}`", dir.display())),
        };
        let size = read(&dir, "size")?;
        let ways = read(&dir, "ways_of_associativity")?;
        let line = read(&dir, "coherency_line_size")?;
        let indexing = if level == "1" { "vipt" } else { "pipt" };
        let _ = writeln!(out, "[l{level}{suffix}]");
        let _ = writeln!(out, "size = \"{size}\"\nline = {line}\nassoc = {ways}\nindexing = \"{indexing}\"");
        let _ = writeln!(
            out,
            "source = \"{}: size, ways_of_associativity, coherency_line_size; VIPT at L1 and PIPT below, as x86-64 \
             caches are built; replacement and write policy are not in sysfs: vmlab's defaults (LRU, write-back, \
             write-allocate) stand in\"\n",
            dir.display()
        );
        found += 1;
    }
    if found == 0 {
        return Err(format!("{} lists no caches", root.display()));
    }
    Ok(out)
}
