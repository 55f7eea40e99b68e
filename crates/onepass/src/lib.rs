//! One-pass sweeps (see README.md): every size and associativity of one
//! LRU cache of the last level, from one pass over a trace, each
//! configuration's `RunResult` equal to its own `Machine::run`.
//!
//! | module | owns |
//! |---|---|
//! | `plan` | which configurations may share a pass, and why the others may not (`passes`, `refusal`) |
//! | `stacks` | the swept level: per set count, one LRU stack per set, dirty depths, counters |
//! | `pass` | the pass: the fixed levels (the engine's `Cache`), the page mapper, the trace loop, the results |
//! | `shards` | the swept level sampled (SHARDS, fixed rate): spatially hashed lines, miniature configurations, scaled counts |
//! | `tlb` | every entry count and associativity of an LRU TLB in one pass (`TlbSweep`), and one TLB's own run on `vmlab_mmu::Tlb` (`TlbRun`) |

pub mod pass;
pub mod plan;
pub mod shards;
pub mod stacks;
pub mod tlb;

pub use pass::{OnePass, Refused};
pub use plan::{pass_key, passes, refusal, Pass};
pub use shards::{sample_refusal, Sampling};
pub use stacks::SweptLevel;
pub use tlb::{tlb_passes, tlb_refusal, Serves, TlbPoint, TlbResult, TlbRun, TlbSweep};
