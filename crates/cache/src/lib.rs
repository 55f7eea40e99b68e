//! One cache level of vmlab (see README.md): configuration, geometry, the
//! Dinero-compatible access path, replacement, 3C miss classes, flush/purge.

pub mod config;
pub mod geometry;
pub mod level;
pub mod shadow;
pub mod stats;

pub use config::{Assoc, CacheConfig, IndexFn, Indexing, Replacement, WriteMissPolicy, WritePolicy};
pub use geometry::{Geometry, GeometryError};
pub use level::{
    Cache, Evicted, Flush, HitCheck, LineRef, LineState, Lookup, MissClasses, Outcome, VirtualDirect,
    VirtualDirectBelow,
};
pub use shadow::{Allocate, RealLookup};
pub use stats::{CacheStats, DataRef, Fetch, FlushStats, KindStats, RefKind, Writeback};
