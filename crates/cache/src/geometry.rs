//! Sets, ways and line size derived from a `CacheConfig`, checked once.

use crate::config::{Assoc, CacheConfig, IndexFn, Replacement};

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("{0}")]
pub struct GeometryError(pub String);

/// Lines per cache that vmlab accepts: 64 Mi lines is a 4 GB cache of 64 B
/// lines, past any real cache, and keeps a typo from exhausting memory.
pub const MAX_LINES: u64 = 1 << 26;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    pub line_shift: u32,
    pub sets: u64,
    pub ways: u32,
    /// `sets - 1` when `sets` is a power of two, so the common case is a mask.
    pub set_mask: Option<u64>,
}

impl Geometry {
    pub fn new(c: &CacheConfig) -> Result<Self, GeometryError> {
        let line = c.line.0;
        if line < 4 || !line.is_power_of_two() {
            return Err(GeometryError(format!("line must be a power of two >= 4 bytes, got {line}")));
        }
        let lines = c.size.0 / line;
        if c.size.0 == 0 || !c.size.0.is_multiple_of(line) {
            return Err(GeometryError(format!("size {} is not a whole number of {line}-byte lines", c.size.0)));
        }
        if lines > MAX_LINES {
            return Err(GeometryError(format!(
                "{} bytes / {line}-byte lines = {lines} lines, beyond the limit of {MAX_LINES} lines per cache",
                c.size.0
            )));
        }
        let ways = match c.assoc {
            Assoc::Full => u32::try_from(lines)
                .map_err(|_| GeometryError(format!("{lines} lines is too many for a fully associative cache")))?,
            Assoc::Ways(w) => w,
        };
        if u64::from(ways) > lines || !lines.is_multiple_of(u64::from(ways)) {
            return Err(GeometryError(format!(
                "{} bytes / {line}-byte lines = {lines} lines, which {ways} ways do not divide",
                c.size.0
            )));
        }
        let sets = lines / u64::from(ways);
        let set_mask = sets.is_power_of_two().then(|| sets - 1);
        if c.replacement == Replacement::TreePlru && !ways.is_power_of_two() {
            return Err(GeometryError(format!("tree-plru needs a power-of-two way count, got {ways}")));
        }
        if matches!(c.index, IndexFn::Xor | IndexFn::SpaceHash) && set_mask.is_none() {
            return Err(GeometryError(format!(
                "index \"{}\" needs a power-of-two set count, got {sets}",
                match c.index {
                    IndexFn::Xor => "xor",
                    _ => "space-hash",
                }
            )));
        }
        if c.asid_tags && !c.indexing.tag_is_virtual() {
            return Err(GeometryError(
                "asid_tags needs virtual tags (indexing = \"vivt\"); physical tags are already unique".into(),
            ));
        }
        if c.space_hash_bits > 32 || c.space_hash_at > 63 {
            return Err(GeometryError("space_hash_bits must be <= 32 and space_hash_at <= 63".into()));
        }
        Ok(Self { line_shift: line.trailing_zeros(), sets, ways, set_mask })
    }

    pub fn line_bytes(&self) -> u64 {
        1 << self.line_shift
    }
    pub fn slots(&self) -> usize {
        // sets * ways = lines, which fitted in memory-sized numbers above.
        (self.sets * u64::from(self.ways)) as usize
    }
}
