//! What one cache level is, as data. Policies are closed enums with serde names,
//! so an unknown name is an error that lists the valid ones.

use serde::{Deserialize, Serialize};
use vmlab_addr::ByteSize;

/// Which address indexes the sets and which one is compared as the tag.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Indexing {
    /// Virtually indexed, virtually tagged ("VV"): synonyms can coexist.
    Vivt,
    /// Virtually indexed, physically tagged ("VP").
    Vipt,
    /// Physically indexed, physically tagged ("PP").
    Pipt,
}

impl Indexing {
    pub fn index_is_virtual(self) -> bool {
        matches!(self, Self::Vivt | Self::Vipt)
    }
    pub fn tag_is_virtual(self) -> bool {
        matches!(self, Self::Vivt)
    }
}

/// How a line address becomes a set number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum IndexFn {
    /// The low line-address bits (modulo the set count if it is not a power of two).
    BitSelect,
    /// Low line-address bits XOR the next higher bits (a common skewing hash).
    Xor,
    /// PA-RISC 1.1 (HP 700 series, seed 004 Figure 2): low bits of the space id
    /// are XORed into the index bits just above the page offset.
    SpaceHash,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Replacement {
    Lru,
    /// Tree pseudo-LRU; ways must be a power of two.
    TreePlru,
    Fifo,
    /// Uniform over the ways, from the level's own seeded generator.
    Random,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WritePolicy {
    WriteBack,
    WriteThrough,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WriteMissPolicy {
    WriteAllocate,
    NoWriteAllocate,
}

/// Associativity: a way count, or `"full"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Assoc {
    Ways(u32),
    Full,
}

impl Serialize for Assoc {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Assoc::Ways(n) => s.serialize_u32(*n),
            Assoc::Full => s.serialize_str("full"),
        }
    }
}

impl<'de> Deserialize<'de> for Assoc {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Assoc;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a way count >= 1 or \"full\"")
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Assoc, E> {
                match u32::try_from(v) {
                    Ok(n) if n >= 1 => Ok(Assoc::Ways(n)),
                    _ => Err(E::custom(format!("associativity must be >= 1 or \"full\", got {v}"))),
                }
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Assoc, E> {
                self.visit_i64(i64::try_from(v).unwrap_or(-1))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Assoc, E> {
                if v.eq_ignore_ascii_case("full") {
                    Ok(Assoc::Full)
                } else if let Ok(n) = v.parse::<i64>() {
                    self.visit_i64(n)
                } else {
                    Err(E::custom(format!("associativity must be >= 1 or \"full\", got \"{v}\"")))
                }
            }
        }
        d.deserialize_any(V)
    }
}

fn default_indexing() -> Indexing {
    Indexing::Pipt
}
fn default_index_fn() -> IndexFn {
    IndexFn::BitSelect
}
fn default_replacement() -> Replacement {
    Replacement::Lru
}
fn default_write() -> WritePolicy {
    WritePolicy::WriteBack
}
fn default_write_miss() -> WriteMissPolicy {
    WriteMissPolicy::WriteAllocate
}
fn default_space_hash_bits() -> u32 {
    4
}
fn default_space_hash_at() -> u32 {
    12
}
fn default_seed() -> u64 {
    1
}

/// One cache level. Defaults follow Dinero IV: write-back, write-allocate, LRU,
/// bit-select; plus PIPT and no ASID tags.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CacheConfig {
    /// Total data capacity in bytes.
    pub size: ByteSize,
    /// Line (block) size in bytes; a power of two.
    pub line: ByteSize,
    pub assoc: Assoc,
    #[serde(default = "default_indexing")]
    pub indexing: Indexing,
    /// Tag lines with the address-space id (only meaningful with virtual tags).
    #[serde(default)]
    pub asid_tags: bool,
    #[serde(default = "default_index_fn")]
    pub index: IndexFn,
    /// Space-id bits hashed in by `index = "space-hash"`.
    #[serde(default = "default_space_hash_bits")]
    pub space_hash_bits: u32,
    /// Lowest address bit the space-id bits are XORed into.
    #[serde(default = "default_space_hash_at")]
    pub space_hash_at: u32,
    #[serde(default = "default_replacement")]
    pub replacement: Replacement,
    #[serde(default = "default_write")]
    pub write: WritePolicy,
    #[serde(default = "default_write_miss")]
    pub write_miss: WriteMissPolicy,
    /// Seed for `replacement = "random"`.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Where these numbers come from (a paper and table, a manual, sysfs).
    #[serde(default)]
    pub source: String,
}

impl CacheConfig {
    /// A PIPT, write-back, write-allocate LRU cache; convenient for tests.
    pub fn simple(size: u64, line: u64, ways: u32) -> Self {
        Self {
            size: ByteSize(size),
            line: ByteSize(line),
            assoc: Assoc::Ways(ways),
            indexing: default_indexing(),
            asid_tags: false,
            index: default_index_fn(),
            space_hash_bits: default_space_hash_bits(),
            space_hash_at: default_space_hash_at(),
            replacement: default_replacement(),
            write: default_write(),
            write_miss: default_write_miss(),
            seed: default_seed(),
            source: String::new(),
        }
    }
}
