//! Translation schemes and VMCPI (see README.md).

pub mod config;
pub mod fanout;
mod filter;
mod hit_run;
pub mod memsys;
pub mod replay;
pub mod result;
pub mod scheme;
pub mod sim;
pub mod vmcpi;

pub use config::{load, parse, with_overrides, HandlerConfig, Handlers, VmConfig};
pub use fanout::{fanout_groups, fanout_refusal, l2_inclusion_refusal, L2Fanout};
pub use filter::filter_refusal;
pub use memsys::{Alone, L2Sweep};
pub use replay::{onepass_groups, replay_refusal, OnePass};
pub use result::{SideEvents, TlbLookup, VmResult, VmcpiRow};
pub use scheme::{L1Tags, Scheme, TableKind, TlbCheck, TranslateAt};
pub use sim::{Recorded, SimError, VmSim};
pub use vmcpi::{Component, Costs, ProtectionSweep, Vmcpi};
