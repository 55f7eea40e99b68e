//! Finding, reading and overriding machine presets. A preset is a TOML file;
//! the shipped ones live in the repository's `presets/` folder and are built
//! into the engine so every front end sees the same set. `x86-64-host` is made
//! at load time from this machine's sysfs.

use crate::config::{MachineConfig, MemoryConfig, StatsConfig, CACHE_FIELDS, CACHE_NAMES, MEMORY_FIELDS, TOP_FIELDS};
use std::fmt;
use std::path::Path;
use vmlab_cache::CacheConfig;

/// The shipped presets: (name, file name, TOML text).
pub const BUILTIN: [(&str, &str, &str); 9] = [
    ("jm-base", "jm-base.toml", include_str!("../../../presets/jm-base.toml")),
    ("hp9000-834", "hp9000-834.toml", include_str!("../../../presets/hp9000-834.toml")),
    ("mips-r4000", "mips-r4000.toml", include_str!("../../../presets/mips-r4000.toml")),
    ("hp9000-720", "hp9000-720.toml", include_str!("../../../presets/hp9000-720.toml")),
    ("hp9000-755", "hp9000-755.toml", include_str!("../../../presets/hp9000-755.toml")),
    ("hp9000-712", "hp9000-712.toml", include_str!("../../../presets/hp9000-712.toml")),
    ("sparccenter-2000", "sparccenter-2000.toml", include_str!("../../../presets/sparccenter-2000.toml")),
    ("strongarm-sa1100", "strongarm-sa1100.toml", include_str!("../../../presets/strongarm-sa1100.toml")),
    ("x86-64-pcid", "x86-64-pcid.toml", include_str!("../../../presets/x86-64-pcid.toml")),
];

pub const HOST_PRESET: &str = "x86-64-host";

/// A preset or override that cannot be used, with where and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// The file, `preset NAME`, or `--set KEY=VALUE`.
    pub origin: String,
    pub line: Option<usize>,
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(l) => write!(f, "{}: line {l}: {}", self.origin, self.message),
            None => write!(f, "{}: {}", self.origin, self.message),
        }
    }
}

impl std::error::Error for ConfigError {}

impl ConfigError {
    pub fn new(origin: &str, line: Option<usize>, message: impl Into<String>) -> Self {
        Self { origin: origin.to_string(), line, message: message.into() }
    }
}

/// Names of every preset that `load` accepts.
pub fn names() -> Vec<&'static str> {
    let mut v: Vec<&str> = BUILTIN.iter().map(|(n, _, _)| *n).collect();
    v.push(HOST_PRESET);
    v
}

/// The TOML text of a preset by name, or of a file by path.
pub fn text(name_or_path: &str) -> Result<(String, String), ConfigError> {
    if let Some((_, file, t)) = BUILTIN.iter().find(|(n, _, _)| *n == name_or_path) {
        return Ok((format!("presets/{file}"), (*t).to_string()));
    }
    if name_or_path == HOST_PRESET {
        return crate::host::host_preset_text()
            .map(|t| (format!("{HOST_PRESET} (from /sys/devices/system/cpu/cpu0/cache)"), t))
            .map_err(|e| ConfigError::new(HOST_PRESET, None, e));
    }
    let p = Path::new(name_or_path);
    if p.extension().is_some_and(|e| e == "toml") || p.exists() {
        return std::fs::read_to_string(p)
            .map(|t| (name_or_path.to_string(), t))
            .map_err(|e| ConfigError::new(name_or_path, None, format!("cannot read preset file: {e}")));
    }
    Err(ConfigError::new(
        name_or_path,
        None,
        format!("no such preset; expected one of {} or a path to a .toml file", names().join(", ")),
    ))
}

/// The 1-based line of byte `offset` in `text` (for TOML error spans).
pub fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())].iter().filter(|&&b| b == b'\n').count() + 1
}

/// Parses and checks a preset's text.
pub fn parse(origin: &str, text: &str) -> Result<MachineConfig, ConfigError> {
    let cfg: MachineConfig = toml::from_str(text).map_err(|e| {
        let line = e.span().map(|s| line_of(text, s.start));
        ConfigError::new(origin, line, e.message().trim().to_string())
    })?;
    check(origin, text, &cfg)?;
    Ok(cfg)
}

fn check(origin: &str, text: &str, cfg: &MachineConfig) -> Result<(), ConfigError> {
    cfg.levels_for_replay().map_err(|msg| {
        // Point at the first table the message names that the text has.
        let line = msg
            .split('[')
            .skip(1)
            .filter_map(|r| r.split(']').next())
            .find_map(|t| text.lines().position(|l| l.trim() == format!("[{t}]")))
            .map(|i| i + 1);
        ConfigError::new(origin, line, msg)
    })?;
    Ok(())
}

/// Loads a preset by name or path and applies `KEY=VALUE` overrides
/// (`with_overrides`).
pub fn load(name_or_path: &str, overrides: &[String]) -> Result<MachineConfig, ConfigError> {
    let (origin, text) = text(name_or_path)?;
    let cfg = parse(&origin, &text)?;
    with_overrides(&cfg, overrides)
}

/// Applies `KEY=VALUE` overrides to a configuration. Every override is set
/// in the configuration's table first (one whose syntax, table or key is
/// wrong is an error naming that `--set`), and the result is read and
/// checked once, so the order does not matter: `l1d.assoc=3` then
/// `l1d.size=12K` is the machine the other order gives, a level may switch
/// indexing and ASID tags together, and a level may be added a key at a
/// time. An error of the result names the table at fault where it can,
/// and the `--set` options that set keys in it (all of them otherwise).
/// A later override of the same key wins.
pub fn with_overrides(cfg: &MachineConfig, overrides: &[String]) -> Result<MachineConfig, ConfigError> {
    if overrides.is_empty() {
        return Ok(cfg.clone());
    }
    let origin = format!("machine {}", cfg.name);
    let mut table = toml::Table::try_from(cfg).map_err(|e| ConfigError::new(&origin, None, e.to_string()))?;
    let before: Vec<String> = table.keys().cloned().collect();
    for o in overrides {
        apply_override(&mut table, o)?;
    }
    // Table by table first, so a value or field error can name its table
    // (the whole configuration's reader does not say where it failed).
    for (name, value) in &table {
        let read = if CACHE_NAMES.contains(&name.as_str()) {
            value.clone().try_into::<CacheConfig>().map(drop)
        } else if name == "memory" {
            value.clone().try_into::<MemoryConfig>().map(drop)
        } else if name == "stats" {
            value.clone().try_into::<StatsConfig>().map(drop)
        } else {
            Ok(())
        };
        if let Err(e) = read {
            let mut message = format!("[{name}]: {}", e.message().trim());
            let added_cache = CACHE_NAMES.contains(&name.as_str()) && !before.contains(name);
            if added_cache && message.contains("missing field") {
                message.push_str(&format!(
                    " ([{name}] is not in machine {}, so overrides that add it must set at least its size, line and assoc)",
                    cfg.name
                ));
            }
            return Err(ConfigError::new(&involved(overrides, &[name]), None, message));
        }
    }
    let out: MachineConfig = table
        .try_into()
        .map_err(|e: toml::de::Error| ConfigError::new(&involved(overrides, &[]), None, e.message().trim()))?;
    out.levels_for_replay().map_err(|m| {
        // The tables the message names, as `[l1d]`.
        let named: Vec<&str> = m.split('[').skip(1).filter_map(|r| r.split(']').next()).collect();
        ConfigError::new(&involved(overrides, &named), None, m.clone())
    })?;
    Ok(out)
}

/// The `--set` options behind an error about `tables`: those that set a key
/// in one of them, or every one if none did.
fn involved(overrides: &[String], tables: &[&str]) -> String {
    let table_of =
        |o: &String| o.split_once('=').and_then(|(k, _)| k.trim().split_once('.')).map(|(t, _)| t.to_string());
    let touching: Vec<&String> =
        overrides.iter().filter(|o| table_of(o).is_some_and(|t| tables.contains(&t.as_str()))).collect();
    let chosen: Vec<&String> = if touching.is_empty() { overrides.iter().collect() } else { touching };
    chosen.iter().map(|o| format!("--set {o}")).collect::<Vec<_>>().join(" ")
}

pub fn override_value(raw: &str) -> toml::Value {
    // A TOML literal if it is one (8, true, "x"); otherwise the bare text, so
    // `16K` and `lru` need no quotes on a command line.
    match format!("v = {raw}").parse::<toml::Table>() {
        Ok(mut t) => t.remove("v").unwrap_or_else(|| toml::Value::String(raw.to_string())),
        Err(_) => toml::Value::String(raw.to_string()),
    }
}

/// Applies one `table.key=value` override to a preset's TOML table.
pub fn apply_override(table: &mut toml::Table, spec: &str) -> Result<(), ConfigError> {
    let here = format!("--set {spec}");
    let Some((path, raw)) = spec.split_once('=') else {
        return Err(ConfigError::new(&here, None, "expected KEY=VALUE, e.g. l1d.size=16K"));
    };
    let parts: Vec<&str> = path.trim().split('.').collect();
    let value = override_value(raw.trim());
    let list = |xs: &[&str]| xs.join(", ");
    match parts.as_slice() {
        [top] if ["name", "description", "source"].contains(top) => {
            table.insert((*top).to_string(), value);
        }
        [table_name, field] => {
            let fields: &[&str] = if CACHE_NAMES.contains(table_name) {
                &CACHE_FIELDS
            } else if *table_name == "memory" {
                &MEMORY_FIELDS
            } else if *table_name == "stats" {
                &["classify_misses"]
            } else {
                return Err(ConfigError::new(
                    &here,
                    None,
                    format!(
                        "unknown table `{table_name}`; expected one of {}, {}",
                        list(&TOP_FIELDS[3..]),
                        list(&CACHE_NAMES)
                    ),
                ));
            };
            if !fields.contains(field) {
                return Err(ConfigError::new(
                    &here,
                    None,
                    format!("unknown key `{field}` in [{table_name}]; expected one of {}", list(fields)),
                ));
            }
            let entry =
                table.entry((*table_name).to_string()).or_insert_with(|| toml::Value::Table(toml::Table::new()));
            match entry {
                toml::Value::Table(t) => {
                    t.insert((*field).to_string(), value);
                }
                _ => return Err(ConfigError::new(&here, None, format!("`{table_name}` is not a table"))),
            }
        }
        _ => {
            return Err(ConfigError::new(
                &here,
                None,
                format!("expected TABLE.KEY=VALUE (tables: {}, {})", list(&TOP_FIELDS[3..]), list(&CACHE_NAMES)),
            ))
        }
    }
    Ok(())
}
