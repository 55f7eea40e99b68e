//! What a CPU did, split by the mechanism that did it: the simulator says
//! what happened (instructions, requests and where each was served, cache
//! operations), a study's cost model says what it costs (`Ledger::charge`).
//!
//! One closed set of mechanisms for every study, so a figure is explained
//! by its parts under names the compiler checks. The translating
//! simulator's VMCPI components are a reading of its ledger
//! (`vmlab_translation::Component::reading`), and the OS model's keys are
//! the mechanisms' names:
//!
//! | mechanism | what runs | VMCPI component (Jacob & Mudge) | OS model key (S2) |
//! |---|---|---|---|
//! | `User` | the program's own references | — | `user access` |
//! | `UserHandler` | the TLB-miss (or L2-miss) handler for a user page | `uhandler`; its fetches `handler-L2`/`-MEM`, its loads (MACH's administrative data) `rpte-L2`/`-MEM` | — |
//! | `KernelHandler` | the handler for a miss on a kernel PTE page (MACH) | `khandler`; its fetches and loads as above | — |
//! | `RootHandler` | the handler for a miss on a root PTE page | `rhandler`; its fetches and loads as above | — |
//! | `UserPte` | the load of a user PTE | `upte-L2`, `upte-MEM` (by where served) | — |
//! | `KernelPte` | the load of a kernel PTE | `kpte-L2`, `kpte-MEM` | — |
//! | `RootPte` | the load of a root PTE | `rpte-L2`, `rpte-MEM` | — |
//! | `TlbMiss` | the OS's software TLB refill | — | `tlb miss` |
//! | `TlbPurge` | a TLB purge (`pdtlb`) | — | `tlb purge` |
//! | `PteUpdate` | inserting or deleting a PTE | — | `pte update` |
//! | `FaultEntry` | taking a fault or trap | — | `fault entry` |
//! | `VmBookkeeping` | the VM system's own bookkeeping | — | `vm bookkeeping` |
//! | `FlushLoop` | a cache flush/purge loop (`pdcache`) | — | `flush loop` |
//! | `CopyLoop` | a copy loop (`bcopy`) | — | `copy loop` |
//! | `ZeroLoop` | a page-zeroing loop | — | `zero loop` |
//! | `CopyRecovery` | recovering from a fault in a copy | — | `copy recovery` |
//! | `IpcPath` | the IPC path around a copy | — | `ipc path` |
//! | `ContextSwitch` | switching address spaces on a CPU | — | — |
//!
//! The VMCPI components split a mechanism by where its requests were
//! served; a `Tally` keeps that split (`served`), so `upte-L2` is the
//! `UserPte` loads that missed level 0 (served at level 1 or in memory:
//! Jacob & Mudge charge an L2 miss both latencies) and `upte-MEM` those
//! served in memory, not categories of their own.

use vmlab_cache::RefKind;

use crate::hierarchy::MAX_LEVELS;
use crate::request::Reached;

/// A mechanism a CPU's work is attributed to (the table above).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Mechanism {
    User,
    UserHandler,
    KernelHandler,
    RootHandler,
    UserPte,
    KernelPte,
    RootPte,
    TlbMiss,
    TlbPurge,
    PteUpdate,
    FaultEntry,
    VmBookkeeping,
    FlushLoop,
    CopyLoop,
    ZeroLoop,
    CopyRecovery,
    IpcPath,
    ContextSwitch,
}

impl Mechanism {
    pub const ALL: [Mechanism; 18] = [
        Mechanism::User,
        Mechanism::UserHandler,
        Mechanism::KernelHandler,
        Mechanism::RootHandler,
        Mechanism::UserPte,
        Mechanism::KernelPte,
        Mechanism::RootPte,
        Mechanism::TlbMiss,
        Mechanism::TlbPurge,
        Mechanism::PteUpdate,
        Mechanism::FaultEntry,
        Mechanism::VmBookkeeping,
        Mechanism::FlushLoop,
        Mechanism::CopyLoop,
        Mechanism::ZeroLoop,
        Mechanism::CopyRecovery,
        Mechanism::IpcPath,
        Mechanism::ContextSwitch,
    ];

    /// Its name in results (the OS model's keys where it had one).
    pub fn name(self) -> &'static str {
        match self {
            Mechanism::User => "user access",
            Mechanism::UserHandler => "user handler",
            Mechanism::KernelHandler => "kernel handler",
            Mechanism::RootHandler => "root handler",
            Mechanism::UserPte => "user pte",
            Mechanism::KernelPte => "kernel pte",
            Mechanism::RootPte => "root pte",
            Mechanism::TlbMiss => "tlb miss",
            Mechanism::TlbPurge => "tlb purge",
            Mechanism::PteUpdate => "pte update",
            Mechanism::FaultEntry => "fault entry",
            Mechanism::VmBookkeeping => "vm bookkeeping",
            Mechanism::FlushLoop => "flush loop",
            Mechanism::CopyLoop => "copy loop",
            Mechanism::ZeroLoop => "zero loop",
            Mechanism::CopyRecovery => "copy recovery",
            Mechanism::IpcPath => "ipc path",
            Mechanism::ContextSwitch => "context switch",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// Where a request was served, as an index of `Tally::served`: a level's
/// number, memory after the last possible level.
fn depth(r: Reached) -> usize {
    match r {
        // A path has at most MAX_LEVELS levels (`Hierarchy::new` refuses more).
        Reached::Level(l) => usize::from(l).min(MAX_LEVELS - 1),
        Reached::Memory => MAX_LEVELS,
    }
}

/// What one mechanism did on one CPU.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Times the mechanism was entered (`Ledger::enter`).
    pub entries: u64,
    /// Instructions executed (`Cpu::run_code`, fetched or only counted).
    pub instructions: u64,
    /// Requests to the CPU's top level by `RefKind` (ifetch, read, write),
    /// and for each where it was served: `served[kind][l]` at level `l`,
    /// `served[kind][MAX_LEVELS]` in memory.
    pub requests: [u64; 3],
    pub served: [[u64; MAX_LEVELS + 1]; 3],
    /// Cache-control operations (one line flushed or purged each) and the
    /// dirty lines they wrote back.
    pub cache_ops: u64,
    pub written_back: u64,
    /// Cycles a cost model charged (`Ledger::charge`).
    pub cycles: u64,
}

impl Tally {
    /// Requests of `kind` served at `r`.
    pub fn served_at(&self, kind: RefKind, r: Reached) -> u64 {
        self.served[kind as usize][depth(r)]
    }
}

/// Tallies by mechanism, and the mechanism running now. Nested mechanisms
/// count for the innermost, so the tallies partition the CPU's work
/// exactly: `total` is always their sum.
#[derive(Clone, Debug)]
pub struct Ledger {
    tallies: [Tally; Mechanism::ALL.len()],
    now: Mechanism,
}

impl Default for Ledger {
    fn default() -> Self {
        Self { tallies: [Tally::default(); Mechanism::ALL.len()], now: Mechanism::User }
    }
}

impl Ledger {
    /// Starts attributing work to `m`; returns the mechanism it interrupts,
    /// for `leave`.
    pub fn enter(&mut self, m: Mechanism) -> Mechanism {
        self.tallies[m.index()].entries += 1;
        std::mem::replace(&mut self.now, m)
    }

    /// Ends the mechanism started by the `enter` that returned `prev`.
    pub fn leave(&mut self, prev: Mechanism) {
        self.now = prev;
    }

    pub fn now(&self) -> Mechanism {
        self.now
    }

    /// Adds `cycles` to the running mechanism (a study's cost model prices
    /// what the tallies count).
    pub fn charge(&mut self, cycles: u64) {
        self.current().cycles += cycles;
    }

    pub fn tally(&self, m: Mechanism) -> &Tally {
        &self.tallies[m.index()]
    }

    /// Every mechanism's tally, in `Mechanism::ALL`'s order.
    pub fn tallies(&self) -> impl Iterator<Item = (Mechanism, &Tally)> {
        Mechanism::ALL.iter().map(|&m| (m, &self.tallies[m.index()]))
    }

    /// The sum of every tally.
    pub fn total(&self) -> Tally {
        let mut t = Tally::default();
        for x in &self.tallies {
            t.entries += x.entries;
            t.instructions += x.instructions;
            for k in 0..3 {
                t.requests[k] += x.requests[k];
                for d in 0..=MAX_LEVELS {
                    t.served[k][d] += x.served[k][d];
                }
            }
            t.cache_ops += x.cache_ops;
            t.written_back += x.written_back;
            t.cycles += x.cycles;
        }
        t
    }

    fn current(&mut self) -> &mut Tally {
        &mut self.tallies[self.now.index()]
    }

    // `OnCpu` records a CPU's work; the two below are also public for a
    // simulator that drives caches of its own (vmlab-translation's
    // `MemSys`, which is not on a `Cpu` yet) and prices its ledger the same way.

    /// `n` instructions executed by the running mechanism.
    pub fn instructions(&mut self, n: u64) {
        self.current().instructions += n;
    }

    /// One request of `kind` by the running mechanism, served at `served`.
    pub fn request(&mut self, kind: RefKind, served: Reached) {
        let t = self.current();
        t.requests[kind as usize] += 1;
        t.served[kind as usize][depth(served)] += 1;
    }

    pub(crate) fn cache_op(&mut self, wrote_back: bool) {
        let t = self.current();
        t.cache_ops += 1;
        t.written_back += u64::from(wrote_back);
    }
}
