//! Byte copying on a simulated CPU (study S4, Inouye, Walpole, Zhang 1995,
//! seed 004): copy routines as data (`presets/copy/routines.toml`) turned
//! into instruction and reference streams (`routine`), run on CPU 0 of a
//! one-CPU `vmlab_machine::System` whose caches are a machine preset, after
//! a cache-temperature set-up made of real references (`experiment`), and
//! timed instruction by instruction from what each reference did
//! (`timing`, with the CPU facts of `presets/cpu/`).
//!
//! The simulator says what happened (every reference's hit, miss and dirty
//! victim, in the CPU's ledger under `Mechanism::CopyLoop`, and the
//! emulation traps under `Mechanism::FaultEntry`); the timing model says
//! what it costs. Its two free parameters per machine (`hit_cycles`,
//! `miss_cycles`) are solved exactly from the paper's memcpy hot-hot and
//! clean-clean cells (`experiment::fit`); nothing else is fitted.

pub mod experiment;
pub mod read_out;
pub mod routine;
pub mod timing;

pub use experiment::{fit, run, Case, Fit, Placement, RunOutcome, Temperature};
pub use read_out::{run_trace, KernelBuffer, Misses, ReadOutcome};
pub use routine::{routine, routines, Instr, Mnemonic, Routine};
pub use timing::{Breakdown, Counts, CpuTiming, QuadStore};
