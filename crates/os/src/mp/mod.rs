//! The hat on a multiprocessor (study S3, seed 003): the SPARCcenter 2000
//! as a `vmlab_machine::System` of N SuperSPARC CPUs, the hat of Figure 2
//! with its locks, TLB shoot-downs by cross-call, and a discrete-event
//! simulation of processes running workloads on it. See README.md in this
//! folder.

pub mod design;
pub mod hat;
pub mod lock;
pub mod params;
pub mod sim;
pub mod workload;

pub use design::{Design, Guard};
pub use hat::MpHat;
pub use lock::{Lock, LockClass, LockStats, Locks, Mode};
pub use params::MpParams;
pub use sim::{
    CpuTime, ForkMode, HatStep, LockEvent, MpConfig, MpReport, MpSim, ShootDownMode, ShootDowns, Steals, Step, STACK_VA,
};
pub use workload::{Caller, OpKind, Workload};
