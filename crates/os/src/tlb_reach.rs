//! The TLBs of the architectures in seed 001's "TLB size (I-TLB + D-TLB)"
//! table, as presets (`presets/tlb/<name>.toml`), and their reach: how much
//! memory the entries map at once (entries x page size). Study S5 prints the
//! seed's coverage figures beside the reach computed here.
//!
//! A preset is one row of the table: an architecture, and the
//! implementations its range spans (the seed's "64-256" is two), each with
//! its TLBs. Every TLB gives its entries, its page sizes and, where a source
//! gives it, its associativity; every one names its source ("seed 001" where
//! only the slide gives the number).

use serde::{Deserialize, Serialize};
use vmlab_mmu::tlb::Assoc;

/// One TLB of an implementation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TlbSpec {
    pub name: String,
    /// Translations it holds (for a MIPS TLB, pages: an entry maps two).
    pub entries: u32,
    /// `None` where no source gives it.
    #[serde(default)]
    pub assoc: Option<Assoc>,
    /// The smallest and largest page it maps, or its one page size.
    pub page_sizes: Vec<u64>,
    pub source: String,
}

impl TlbSpec {
    /// Bytes mapped when every entry holds a page of `page` bytes.
    pub fn reach(&self, page: u64) -> u64 {
        u64::from(self.entries) * page
    }

    pub fn smallest_page(&self) -> u64 {
        self.page_sizes.iter().copied().min().unwrap_or(0)
    }

    pub fn largest_page(&self) -> u64 {
        self.page_sizes.iter().copied().max().unwrap_or(0)
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Implementation {
    pub name: String,
    pub source: String,
    pub tlb: Vec<TlbSpec>,
}

/// One row of seed 001's table (`presets/tlb/<name>.toml`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArchitectureTlbs {
    pub name: String,
    /// As the seed's table names it.
    pub architecture: String,
    pub source: String,
    pub implementation: Vec<Implementation>,
}

/// In the order of the seed's table.
pub const BUILTIN: [(&str, &str); 9] = [
    ("vax", include_str!("../../../presets/tlb/vax.toml")),
    ("ix86", include_str!("../../../presets/tlb/ix86.toml")),
    ("mips", include_str!("../../../presets/tlb/mips.toml")),
    ("sparc", include_str!("../../../presets/tlb/sparc.toml")),
    ("alpha", include_str!("../../../presets/tlb/alpha.toml")),
    ("rs6000", include_str!("../../../presets/tlb/rs6000.toml")),
    ("power4-g5", include_str!("../../../presets/tlb/power4-g5.toml")),
    ("pa8000", include_str!("../../../presets/tlb/pa8000.toml")),
    ("itanium", include_str!("../../../presets/tlb/itanium.toml")),
];

impl ArchitectureTlbs {
    /// A shipped preset by name, or a TOML file by path. A TLB without
    /// entries or page sizes, or a page size that is not a power of two, is
    /// an error naming the file and the TLB.
    pub fn load(name_or_path: &str) -> Result<Self, String> {
        let (origin, text) = match BUILTIN.iter().find(|(n, _)| *n == name_or_path) {
            Some((n, t)) => (format!("presets/tlb/{n}.toml"), (*t).to_string()),
            None if name_or_path.ends_with(".toml") => (
                name_or_path.to_string(),
                std::fs::read_to_string(name_or_path).map_err(|e| format!("{name_or_path}: {e}"))?,
            ),
            None => {
                let names: Vec<&str> = BUILTIN.iter().map(|(n, _)| *n).collect();
                return Err(format!("unknown TLB preset {name_or_path:?}: expected one of {}", names.join(", ")));
            }
        };
        let arch: Self = toml::from_str(&text).map_err(|e| format!("{origin}: {e}"))?;
        for imp in &arch.implementation {
            if imp.tlb.is_empty() {
                return Err(format!("{origin}: implementation {:?} has no [[implementation.tlb]]", imp.name));
            }
            for t in &imp.tlb {
                let at = format!("{origin}: implementation {:?}, TLB {:?}", imp.name, t.name);
                if t.entries == 0 {
                    return Err(format!("{at}: a TLB needs at least one entry"));
                }
                if t.page_sizes.is_empty() || t.page_sizes.iter().any(|p| !p.is_power_of_two()) {
                    return Err(format!("{at}: page_sizes must be powers of two in bytes, got {:?}", t.page_sizes));
                }
            }
        }
        Ok(arch)
    }

    /// Every shipped preset, in the order of the seed's table.
    pub fn builtin() -> Result<Vec<Self>, String> {
        BUILTIN.iter().map(|(n, _)| Self::load(n)).collect()
    }
}

/// One TLB's reach at its smallest and largest page, in bytes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TlbReach {
    pub name: String,
    pub entries: u32,
    pub assoc: Option<Assoc>,
    pub smallest_page: u64,
    pub largest_page: u64,
    pub reach_smallest: u64,
    pub reach_largest: u64,
    pub source: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ImplementationReach {
    pub name: String,
    pub tlbs: Vec<TlbReach>,
}

/// A preset's row with every TLB's reach computed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ArchitectureReach {
    pub name: String,
    pub architecture: String,
    pub source: String,
    pub implementations: Vec<ImplementationReach>,
}

impl ArchitectureTlbs {
    pub fn reach(&self) -> ArchitectureReach {
        let implementations = self
            .implementation
            .iter()
            .map(|imp| ImplementationReach {
                name: imp.name.clone(),
                tlbs: imp
                    .tlb
                    .iter()
                    .map(|t| TlbReach {
                        name: t.name.clone(),
                        entries: t.entries,
                        assoc: t.assoc,
                        smallest_page: t.smallest_page(),
                        largest_page: t.largest_page(),
                        reach_smallest: t.reach(t.smallest_page()),
                        reach_largest: t.reach(t.largest_page()),
                        source: t.source.clone(),
                    })
                    .collect(),
            })
            .collect();
        ArchitectureReach {
            name: self.name.clone(),
            architecture: self.architecture.clone(),
            source: self.source.clone(),
            implementations,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reach of hand-checked rows: the i386's 32 entries of 4 KB map
    /// 128 KB; the 21264's ITB maps 1 MB of 8 KB pages and 512 MB of 4 MB
    /// groups.
    #[test]
    fn reach_is_entries_times_page() -> Result<(), String> {
        let ix86 = ArchitectureTlbs::load("ix86")?;
        let i386 = &ix86.implementation[0].tlb[0];
        assert_eq!((i386.entries, i386.assoc, i386.reach(i386.smallest_page())), (32, Some(Assoc::Ways(4)), 128 << 10));
        let alpha = ArchitectureTlbs::load("alpha")?;
        let itb = &alpha.implementation[1].tlb[0];
        assert_eq!(itb.reach(itb.smallest_page()), 1 << 20);
        assert_eq!(itb.reach(itb.largest_page()), 512 << 20);
        assert_eq!(ArchitectureTlbs::builtin()?.len(), 9);
        Ok(())
    }

    #[test]
    fn bad_presets_are_named_errors() {
        let dir = std::env::temp_dir().join(format!("vmlab-tlb-reach-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let path = dir.join("bad.toml");
        let text =
            "name = \"x\"\narchitecture = \"X\"\nsource = \"s\"\n[[implementation]]\nname = \"i\"\nsource = \"s\"\n\
                    [[implementation.tlb]]\nname = \"T\"\nentries = 8\npage_sizes = [3000]\nsource = \"s\"\n";
        let _ = std::fs::write(&path, text);
        let err = ArchitectureTlbs::load(&path.display().to_string()).err().unwrap_or_default();
        assert!(err.contains("bad.toml") && err.contains("TLB \"T\"") && err.contains("powers of two"), "{err}");
        let _ = std::fs::remove_dir_all(&dir);
        let err = ArchitectureTlbs::load("z80").err().unwrap_or_default();
        assert!(err.contains("unknown TLB preset") && err.contains("itanium"), "{err}");
    }
}
