//! One-pass sweeps (see README.md): every size and associativity of one
//! LRU cache of the last level, from one pass over a trace, each
//! configuration's `RunResult` equal to its own `Machine::run`.
//!
//! | module | owns |
//! |---|---|
//! | `plan` | which configurations may share a pass, and why the others may not (`passes`, `refusal`) |
//! | `stacks` | the swept level: per set count, one LRU stack per set, dirty depths, counters |
//! | `pass` | the pass: the fixed levels (the engine's `Cache`), the page mapper, the trace loop, the results |

pub mod pass;
pub mod plan;
pub mod stacks;

pub use pass::{OnePass, Refused};
pub use plan::{pass_key, passes, refusal, Pass};
pub use stacks::SweptLevel;
