//! A machine as data: memory, page size, and the cache levels by name
//! (`l1i`, `l1d`, `l2`, ...). Presets are TOML files of exactly this shape.

use crate::mapper::FrameAllocation;
use serde::{Deserialize, Serialize};
use vmlab_addr::{ByteSize, PageSize};
use vmlab_cache::{CacheConfig, Geometry, MissClasses};

fn default_memory_size() -> ByteSize {
    ByteSize(4 << 30)
}
fn default_allocation() -> FrameAllocation {
    FrameAllocation::Sequential
}
fn default_seed() -> u64 {
    1
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MemoryConfig {
    pub page_size: PageSize,
    /// Physical memory; the mapper hands out `size / page_size` frames.
    #[serde(default = "default_memory_size")]
    pub size: ByteSize,
    #[serde(default = "default_allocation")]
    pub allocation: FrameAllocation,
    /// Page colours for `colour-preserving`; 0 derives them from the caches
    /// (the largest way size over the page size).
    #[serde(default)]
    pub colours: u64,
    #[serde(default = "default_seed")]
    pub seed: u64,
    #[serde(default)]
    pub source: String,
}

impl MemoryConfig {
    /// `size` bytes of `page_size` pages, handed out in first-touch order.
    pub fn sequential(page_size: PageSize, size: u64) -> Self {
        Self {
            page_size,
            size: ByteSize(size),
            allocation: FrameAllocation::Sequential,
            colours: 0,
            seed: default_seed(),
            source: String::new(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StatsConfig {
    /// Classify misses as compulsory, capacity or conflict (Dinero's shadow
    /// caches; costs a hash lookup per access per level). Off by default.
    #[serde(default)]
    pub classify_misses: bool,
}

impl StatsConfig {
    pub fn miss_classes(&self) -> MissClasses {
        if self.classify_misses {
            MissClasses::ThreeC
        } else {
            MissClasses::Unsorted
        }
    }
}

impl Default for StatsConfig {
    /// Off by default, as in Dinero IV (its `-ccc` option).
    fn default() -> Self {
        Self { classify_misses: false }
    }
}

/// The cache table names a machine may have: `l<level>` for a unified level,
/// `l<level>i` + `l<level>d` for a split one.
pub const CACHE_NAMES: [&str; 12] = ["l1", "l1i", "l1d", "l2", "l2i", "l2d", "l3", "l3i", "l3d", "l4", "l4i", "l4d"];

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MachineConfig {
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// Where the machine as a whole is described (paper, manual).
    #[serde(default)]
    pub source: String,
    pub memory: MemoryConfig,
    #[serde(default)]
    pub stats: StatsConfig,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub l1: Option<CacheConfig>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub l1i: Option<CacheConfig>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub l1d: Option<CacheConfig>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub l2: Option<CacheConfig>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub l2i: Option<CacheConfig>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub l2d: Option<CacheConfig>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub l3: Option<CacheConfig>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub l3i: Option<CacheConfig>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub l3d: Option<CacheConfig>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub l4: Option<CacheConfig>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub l4i: Option<CacheConfig>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub l4d: Option<CacheConfig>,
}

/// One level of the hierarchy as configured.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LevelConfig {
    Unified { name: String, cache: CacheConfig },
    Split { i_name: String, i: CacheConfig, d_name: String, d: CacheConfig },
}

impl MachineConfig {
    /// A machine with memory but no caches yet; set the `l*` fields after.
    pub fn bare(name: &str, memory: MemoryConfig) -> Self {
        Self {
            name: name.to_string(),
            description: String::new(),
            source: String::new(),
            memory,
            stats: StatsConfig::default(),
            l1: None,
            l1i: None,
            l1d: None,
            l2: None,
            l2i: None,
            l2d: None,
            l3: None,
            l3i: None,
            l3d: None,
            l4: None,
            l4i: None,
            l4d: None,
        }
    }

    fn slot(&self, name: &str) -> Option<&CacheConfig> {
        match name {
            "l1" => self.l1.as_ref(),
            "l1i" => self.l1i.as_ref(),
            "l1d" => self.l1d.as_ref(),
            "l2" => self.l2.as_ref(),
            "l2i" => self.l2i.as_ref(),
            "l2d" => self.l2d.as_ref(),
            "l3" => self.l3.as_ref(),
            "l3i" => self.l3i.as_ref(),
            "l3d" => self.l3d.as_ref(),
            "l4" => self.l4.as_ref(),
            "l4i" => self.l4i.as_ref(),
            "l4d" => self.l4d.as_ref(),
            _ => None,
        }
    }

    /// The configured caches, top level first, by name.
    pub fn caches(&self) -> Vec<(&'static str, &CacheConfig)> {
        CACHE_NAMES.iter().filter_map(|&n| self.slot(n).map(|c| (n, c))).collect()
    }

    /// Whether this is a data-only machine: an `[l1d]` with no `[l1i]` (and
    /// no `[l1]`), as Dinero IV runs with only a data cache. Its instruction
    /// fetches are not simulated at all: the trace replayer counts them
    /// (`RunResult::fetches_not_simulated`) and no cache or memory sees
    /// them.
    pub fn data_only(&self) -> bool {
        self.l1.is_none() && self.l1i.is_none() && self.l1d.is_some()
    }

    /// Checks the level structure and every cache's geometry and returns the
    /// levels top-down. Errors name the offending table. A data-only machine
    /// is refused: whoever runs instruction fetches through the caches (the
    /// OS model, one-pass sweeps) has no instruction side to send them to;
    /// the trace replayer takes `levels_for_replay`.
    pub fn levels(&self) -> Result<Vec<LevelConfig>, String> {
        if self.data_only() {
            return Err("[l1d] without [l1i] is a data-only machine (instruction fetches not simulated), which only \
                        the trace replayer (`vmlab run`) runs; add an [l1i] for this one"
                .into());
        }
        self.checked_levels()
    }

    /// `levels`, a data-only machine included: its top level is the `[l1d]`
    /// alone, as a one-cache level (`LevelConfig::Unified` named `l1d`),
    /// which the replayer never sends a fetch to (`data_only`).
    pub fn levels_for_replay(&self) -> Result<Vec<LevelConfig>, String> {
        self.checked_levels()
    }

    fn checked_levels(&self) -> Result<Vec<LevelConfig>, String> {
        let mut levels = Vec::new();
        for level in 1..=4u32 {
            let u = format!("l{level}");
            let (i, d) = (format!("l{level}i"), format!("l{level}d"));
            let found = match (self.slot(&u), self.slot(&i), self.slot(&d)) {
                (None, None, None) => None,
                (Some(c), None, None) => Some(LevelConfig::Unified { name: u.clone(), cache: c.clone() }),
                (None, Some(ic), Some(dc)) => {
                    Some(LevelConfig::Split { i_name: i.clone(), i: ic.clone(), d_name: d.clone(), d: dc.clone() })
                }
                (Some(_), _, _) => {
                    return Err(format!("level {level} has both [{u}] and a split [{i}]/[{d}]; choose one"))
                }
                (None, Some(_), None) => return Err(format!("[{i}] needs a matching [{d}] (a split level has both)")),
                (None, None, Some(dc)) if level == 1 => {
                    Some(LevelConfig::Unified { name: d.clone(), cache: dc.clone() })
                }
                (None, None, Some(_)) => {
                    return Err(format!(
                        "[{d}] needs a matching [{i}] (a split level has both; only level 1 may be data-only)"
                    ))
                }
            };
            match found {
                Some(t) if levels.len() as u32 + 1 == level => levels.push(t),
                Some(t) => {
                    let table = match &t {
                        LevelConfig::Unified { name, .. } => name.clone(),
                        LevelConfig::Split { i_name, .. } => i_name.clone(),
                    };
                    return Err(format!("[{table}]: level {level} is configured but level {} is missing", level - 1));
                }
                None => {}
            }
        }
        if levels.is_empty() {
            return Err("a machine needs at least one cache: [l1], [l1i] + [l1d], or [l1d] alone (data only)".into());
        }
        let page = self.memory.page_size.bytes();
        for (name, c) in self.caches() {
            Geometry::new(c).map_err(|e| format!("[{name}]: {e}"))?;
            if c.line.0 > page {
                return Err(format!("[{name}]: line {} is larger than the {page}-byte page", c.line.0));
            }
        }
        if self.memory.size.0 < page || !self.memory.size.0.is_multiple_of(page) {
            return Err(format!("[memory]: size {} is not a whole number of {page}-byte pages", self.memory.size.0));
        }
        Ok(levels)
    }

    /// Page colours for colour-preserving allocation.
    pub fn colours(&self) -> u64 {
        if self.memory.colours > 0 {
            return self.memory.colours;
        }
        let page = self.memory.page_size.bytes();
        self.caches()
            .iter()
            .filter_map(|(_, c)| Geometry::new(c).ok().map(|g| (g.sets * g.line_bytes()) / page))
            .max()
            .unwrap_or(1)
            .max(1)
    }
}

/// The field names a cache table accepts, for error messages.
pub const CACHE_FIELDS: [&str; 13] = [
    "size",
    "line",
    "assoc",
    "indexing",
    "asid_tags",
    "index",
    "space_hash_bits",
    "space_hash_at",
    "replacement",
    "write",
    "write_miss",
    "seed",
    "source",
];
pub const MEMORY_FIELDS: [&str; 6] = ["page_size", "size", "allocation", "colours", "seed", "source"];
pub const TOP_FIELDS: [&str; 5] = ["name", "description", "source", "memory", "stats"];
