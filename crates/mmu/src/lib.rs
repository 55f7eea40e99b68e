//! TLBs and page tables (see README.md).

pub mod frames;
pub mod pagetable;

pub use frames::{FrameError, FramePool};
pub use pagetable::{PageTable, PteRef, TableError, TableMemory, Tier};
