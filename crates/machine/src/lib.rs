//! A whole simulated machine (see README.md): presets, the page mapper, the
//! cache hierarchy and the run loop.

pub mod compat;
pub mod config;
pub mod cpu;
pub mod decode_ahead;
pub mod hierarchy;
mod hit_loop;
pub mod host;
pub mod ledger;
pub mod machine;
pub mod mapper;
pub mod preset;
pub mod request;
pub mod result;
pub mod switch;
pub mod system;
pub mod transfer;

pub use compat::Compat;
pub use config::{LevelConfig, MachineConfig, MemoryConfig, StatsConfig};
pub use cpu::{Code, CodeFetch, Cpu};
pub use decode_ahead::decode_ahead;
pub use hierarchy::{Hierarchy, MemoryStats, Sink, MAX_LEVELS};
pub use ledger::{Ledger, Mechanism, Tally};
pub use machine::{Machine, Progress, RangeError, RangeStart, RunError};
pub use mapper::{FrameAllocation, MapError, PageMapper};
pub use preset::ConfigError;
pub use request::{Reached, Request, Served};
pub use result::{EventCounts, LevelResult, RunResult};
pub use system::{OnCpu, System};
pub use transfer::{Cause, Transfer, TransferLog};
pub use vmlab_cache::{Flush, MissClasses};
