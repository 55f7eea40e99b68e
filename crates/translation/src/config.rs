//! A translating machine as data: split L1, L2 (split or unified), TLBs,
//! handler sizes, costs and the scheme. Presets live in `presets/vm/*.toml`
//! and every number names its source.

use serde::{Deserialize, Serialize};
use vmlab_addr::PageSize;
use vmlab_cache::{CacheConfig, Geometry, Indexing};
use vmlab_machine::ConfigError;
use vmlab_mmu::TlbConfig;

use crate::scheme::{L1Tags, Scheme, TlbCheck, TranslateAt};
use crate::vmcpi::Costs;

/// One handler: its length and where its code starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HandlerConfig {
    pub instructions: u64,
    /// Extra loads of administrative data (MACH's general vector: 10).
    #[serde(default)]
    pub admin_loads: u64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Handlers {
    pub user: HandlerConfig,
    pub kernel: HandlerConfig,
    pub root: HandlerConfig,
    /// MACH's root misses go through the general exception vector.
    pub mach_root: HandlerConfig,
    #[serde(default)]
    pub source: String,
}

fn default_true() -> bool {
    true
}
fn default_frames() -> u64 {
    1 << 18
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VmConfig {
    pub name: String,
    #[serde(default)]
    pub description: String,
    pub scheme: Scheme,
    pub page_size: PageSize,
    /// Physical frames available for user pages and page tables.
    #[serde(default = "default_frames")]
    pub frames: u64,
    pub l1i: CacheConfig,
    pub l1d: CacheConfig,
    /// Either `l2` (unified) or both `l2i` and `l2d`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub l2: Option<CacheConfig>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub l2i: Option<CacheConfig>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub l2d: Option<CacheConfig>,
    /// Split main TLBs (`itlb` and `dtlb`) or one unified `tlb`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub itlb: Option<TlbConfig>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dtlb: Option<TlbConfig>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tlb: Option<TlbConfig>,
    /// Optional micro-TLBs in front of the main level (both or neither).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub micro_itlb: Option<TlbConfig>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub micro_dtlb: Option<TlbConfig>,
    /// With virtual L1s, consult the TLB on every reference (it holds the
    /// protection bits), as the paper's Table 1 assumes; false translates
    /// only on an L1 miss.
    #[serde(default = "default_true")]
    pub tlb_every_access: bool,
    /// SOFTVM: translate a dirty line again when it is written back from L2
    /// (section 5.5's "two address translations"). Off by default: Table 4
    /// and Figures 13-15 were measured without it, and section 5.5 only
    /// projects its cost ("+50 %"); turning it on is the named variant.
    #[serde(default)]
    pub retranslate_writebacks: bool,
    /// Page-protection changes per million user instructions (Table 6:
    /// 2.8-23.8 under Mach, about 1/1000 of that under Ultrix); 0 = none.
    /// Each sweeps the current data page's lines in L1 D and L2.
    #[serde(default)]
    pub protection_changes_per_million: f64,
    pub costs: Costs,
    pub handlers: Handlers,
    #[serde(default)]
    pub source: String,
}

impl VmConfig {
    /// When this machine's scheme translates a user reference.
    pub fn translate_at(&self) -> TranslateAt {
        let l1 = if self.l1i.indexing == Indexing::Vivt && self.l1d.indexing == Indexing::Vivt {
            L1Tags::Virtual
        } else {
            L1Tags::Physical
        };
        let check = if self.tlb_every_access { TlbCheck::EveryAccess } else { TlbCheck::L1Miss };
        self.scheme.translate_at(l1, check)
    }

    pub fn check(&self, origin: &str) -> Result<(), ConfigError> {
        let err = |m: String| ConfigError::new(origin, None, m);
        let l2_ok = matches!((&self.l2, &self.l2i, &self.l2d), (Some(_), None, None) | (None, Some(_), Some(_)));
        if !l2_ok {
            return Err(err("give either [l2] (unified) or both [l2i] and [l2d]".into()));
        }
        if self.scheme.has_tlb() {
            self.tlb_layout().ok_or_else(|| {
                err(format!(
                    "scheme {} needs TLBs: give [itlb] and [dtlb] (split) or [tlb] (unified)",
                    self.scheme.name()
                ))
            })?;
        }
        if !(self.protection_changes_per_million >= 0.0 && self.protection_changes_per_million <= 1e6) {
            return Err(err(format!(
                "protection_changes_per_million must be between 0 and 1000000, got {}",
                self.protection_changes_per_million
            )));
        }
        if self.micro_itlb.is_some() != self.micro_dtlb.is_some() {
            return Err(err("give both [micro_itlb] and [micro_dtlb], or neither".into()));
        }
        for (name, c) in self.caches() {
            Geometry::new(c).map_err(|e| err(format!("{name}: {e}")))?;
            if c.indexing != Indexing::Vivt && self.scheme.translates_at_memory() {
                return Err(err(format!(
                    "{name}: scheme {} translates on an L2 miss and needs virtually indexed, virtually tagged caches (got {:?})",
                    self.scheme.name(),
                    c.indexing
                )));
            }
        }
        if self.page_size.bytes() != 4096 && self.scheme.table().is_some() {
            return Err(err(format!(
                "the page tables modelled here use 4 KB pages (got {}); set page_size = \"4K\"",
                self.page_size.bytes()
            )));
        }
        Ok(())
    }

    /// The main TLBs, if exactly one arrangement is given.
    pub fn tlb_layout(&self) -> Option<vmlab_mmu::TlbLayout> {
        match (&self.itlb, &self.dtlb, &self.tlb) {
            (Some(i), Some(d), None) => Some(vmlab_mmu::TlbLayout::Split { i: i.clone(), d: d.clone() }),
            (None, None, Some(u)) => Some(vmlab_mmu::TlbLayout::Unified(u.clone())),
            _ => None,
        }
    }

    /// The micro-TLBs, if any.
    pub fn micro_tlbs(&self) -> Option<(TlbConfig, TlbConfig)> {
        match (&self.micro_itlb, &self.micro_dtlb) {
            (Some(i), Some(d)) => Some((i.clone(), d.clone())),
            _ => None,
        }
    }

    /// The caches by name, L1 first.
    pub fn caches(&self) -> Vec<(&'static str, &CacheConfig)> {
        let mut v = vec![("l1i", &self.l1i), ("l1d", &self.l1d)];
        if let Some(c) = &self.l2 {
            v.push(("l2", c));
        }
        if let Some(c) = &self.l2i {
            v.push(("l2i", c));
        }
        if let Some(c) = &self.l2d {
            v.push(("l2d", c));
        }
        v
    }
}

/// Shipped presets, compiled in so the CLI, Python and tests agree.
pub const BUILTIN: &[(&str, &str)] = &[("jacob-mudge", include_str!("../../../presets/vm/jacob-mudge.toml"))];

/// Parses a preset text.
pub fn parse(origin: &str, text: &str) -> Result<VmConfig, ConfigError> {
    let cfg: VmConfig = toml::from_str(text).map_err(|e| {
        let line = e.span().map(|s| vmlab_machine::preset::line_of(text, s.start));
        ConfigError::new(origin, line, e.message().trim().to_string())
    })?;
    cfg.check(origin)?;
    Ok(cfg)
}

/// A preset by name or path, with `KEY=VALUE` overrides (`l1d.size=16K`,
/// `scheme=softvm`, `dtlb.entries=64`).
pub fn load(name_or_path: &str, overrides: &[String]) -> Result<VmConfig, ConfigError> {
    let (origin, text) = match BUILTIN.iter().find(|(n, _)| *n == name_or_path) {
        Some((n, t)) => (format!("preset {n}"), (*t).to_string()),
        None => {
            let text = std::fs::read_to_string(name_or_path).map_err(|e| {
                let names: Vec<&str> = BUILTIN.iter().map(|(n, _)| *n).collect();
                ConfigError::new(
                    name_or_path,
                    None,
                    format!("{e}; not a file, and not a translation preset (known: {})", names.join(", ")),
                )
            })?;
            (name_or_path.to_string(), text)
        }
    };
    let cfg = parse(&origin, &text)?;
    with_overrides(&cfg, overrides)
}

pub fn with_overrides(cfg: &VmConfig, overrides: &[String]) -> Result<VmConfig, ConfigError> {
    if overrides.is_empty() {
        return Ok(cfg.clone());
    }
    let origin = format!("translation preset {}", cfg.name);
    let mut table = toml::Table::try_from(cfg).map_err(|e| ConfigError::new(&origin, None, e.to_string()))?;
    for o in overrides {
        apply_override(&mut table, o)?;
    }
    let text = toml::to_string(&table).map_err(|e| ConfigError::new(&origin, None, e.to_string()))?;
    let out: VmConfig = toml::from_str(&text).map_err(|e| {
        ConfigError::new(&format!("--set {}", overrides.join(" --set ")), None, e.message().trim().to_string())
    })?;
    out.check(&origin)?;
    Ok(out)
}

/// Sets one dotted `KEY=VALUE` in a preset's table. Every key on the path
/// must already exist (a typo is an error listing the keys that do), so
/// overrides can only change a machine, never silently add to it.
fn apply_override(table: &mut toml::Table, spec: &str) -> Result<(), ConfigError> {
    let here = format!("--set {spec}");
    let Some((path, raw)) = spec.split_once('=') else {
        return Err(ConfigError::new(&here, None, "expected KEY=VALUE, e.g. l1d.size=16K or scheme=softvm"));
    };
    let parts: Vec<&str> = path.trim().split('.').collect();
    let value = vmlab_machine::preset::override_value(raw.trim());
    let mut t = table;
    for (i, part) in parts.iter().enumerate() {
        let keys = || {
            let mut k: Vec<&str> = t.keys().map(String::as_str).collect();
            k.sort_unstable();
            k.join(", ")
        };
        if i + 1 == parts.len() {
            if !t.contains_key(*part) {
                return Err(ConfigError::new(&here, None, format!("unknown key `{part}`; expected one of {}", keys())));
            }
            t.insert((*part).to_string(), value);
            return Ok(());
        }
        let known = keys();
        match t.get_mut(*part) {
            Some(toml::Value::Table(inner)) => t = inner,
            Some(_) => return Err(ConfigError::new(&here, None, format!("`{part}` is a value, not a table"))),
            None => {
                return Err(ConfigError::new(&here, None, format!("unknown table `{part}`; expected one of {known}")))
            }
        }
    }
    Err(ConfigError::new(&here, None, "empty key"))
}
