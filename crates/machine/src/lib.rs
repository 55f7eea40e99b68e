//! A whole simulated machine (see README.md): presets, the page mapper, the
//! cache hierarchy and the run loop.

pub mod compat;
pub mod config;
pub mod hierarchy;
mod hit_loop;
pub mod host;
pub mod machine;
pub mod mapper;
pub mod preset;
pub mod result;

pub use compat::Compat;
pub use config::{MachineConfig, MemoryConfig, StatsConfig, TierConfig};
pub use hierarchy::{Hierarchy, MemoryStats};
pub use machine::{Machine, Progress, RangeError, RunError};
pub use mapper::{FrameAllocation, MapError, PageMapper};
pub use preset::ConfigError;
pub use result::{EventCounts, LevelResult, RunResult};
