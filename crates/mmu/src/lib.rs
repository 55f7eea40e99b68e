//! TLBs and page tables (see README.md).

pub mod arm;
pub mod frames;
pub mod pagetable;
pub mod sparse;
pub mod switch;
pub mod tlb;
pub mod tlbs;

pub use arm::{DomainAccess, Pid};
pub use frames::{FrameError, FramePool};
pub use pagetable::{PageTable, PteAddr, PteRef, TableError, TableMemory, Tier};
pub use switch::{Switch, SwitchSite, Switched};
pub use tlb::{Checked, Slot, Tlb, TlbConfig, TlbEntry, TlbError, TlbReplacement, TlbStats};
pub use tlbs::{NamedTlbStats, Side, TlbLayout, TlbSet};
