//! The OS side of virtual memory (see README.md): physical memory, memory
//! objects and address spaces (`vm`), the hat layer (`hat`), virtual-cache
//! consistency policies (`policy`) and the consistency oracle (`oracle`),
//! kernel primitives run on the simulated machine (`primitives`, `cost`),
//! scenarios (`scenario`), and the seed 000 experiments (`ipc`, `pmap`,
//! `experiments`).

pub mod cost;
pub mod cpu;
pub mod experiments;
pub mod hat;
pub mod lmbench;
pub mod mp;
pub mod oracle;
pub mod policy;
pub mod primitives;
pub mod prot;
pub mod replay;
pub mod scenario;
pub mod switch;
pub mod tlb_reach;
pub mod vm;

pub use cost::{CostModel, Counters, Routine, TlbPreset};
pub use cpu::{DataRef, Flush, FlushedLines, Place, Span};
pub use oracle::{Consistency, Violation};
pub use policy::Policy;
pub use prot::Prot;
pub use replay::{replay_events, replay_trace, run_trace, ReplayOutcome, TraceOutcome};
pub use vm::{Attach, ObjectKind, Os, OsError, Region};
