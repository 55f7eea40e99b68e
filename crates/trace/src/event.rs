//! The event model every reader produces and every consumer reads.

use serde::{Deserialize, Serialize};
use vmlab_addr::{Asid, VirtAddr};

/// What a memory reference does. `Modify` is a read followed by a write of the
/// same bytes (valgrind's `M`, e.g. `add [mem], r`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[repr(u8)]
pub enum AccessKind {
    Ifetch = 0,
    Load = 1,
    Store = 2,
    Modify = 3,
}

impl AccessKind {
    pub const ALL: [AccessKind; 4] = [Self::Ifetch, Self::Load, Self::Store, Self::Modify];
    pub fn name(self) -> &'static str {
        match self {
            Self::Ifetch => "ifetch",
            Self::Load => "load",
            Self::Store => "store",
            Self::Modify => "modify",
        }
    }
}

/// One memory reference by one address space.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Access {
    pub kind: AccessKind,
    /// Bytes referenced; at least 1.
    pub size: u32,
    pub addr: VirtAddr,
    pub asid: Asid,
}

/// One trace record. References dominate; the other variants are markers that
/// leave room for the OS side (context switches, OS operations).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Event {
    Access(Access),
    /// From here on the running address space is `Asid` (the scheduler ran).
    ContextSwitch(Asid),
    /// Write back and invalidate every cache (a `.vmt` marker or an OS
    /// operation; din cannot carry it).
    FlushAll,
    /// A system call completed here (valgrind's `--trace-syscalls=yes`):
    /// the references before it ran before the call, those after it after
    /// the call returned. Exactly `nargs` [`Event::SyscallArg`] events
    /// follow it, its arguments in order (see [`crate::syscall`], which
    /// reassembles them and checks that). A marker: no cache sees it.
    Syscall(Syscall),
    /// One argument of the [`Event::Syscall`] before it.
    SyscallArg(u64),
}

/// The head of a system-call marker. Kept to 16 bytes so that [`Event`]
/// stays 24 (its arguments travel as the `SyscallArg` events after it, not
/// in here): every replay copies events, and most of them are references.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Syscall {
    /// The result: the value on success, `-errno` on failure (the kernel's
    /// own convention; valgrind prints `Success(0x..)` / `Failure(0x..)`).
    pub ret: i64,
    /// The address space (process) that made the call.
    pub asid: Asid,
    /// The x86-64 Linux system-call number ([`crate::syscall::name`]).
    pub number: u16,
    /// How many `SyscallArg` events follow, 0..=[`crate::syscall::MAX_ARGS`].
    pub nargs: u8,
}

// The replay loops copy `Event`s by the million; a marker must not make
// every reference bigger.
const _: () = assert!(std::mem::size_of::<Event>() == 24);
const _: () = assert!(std::mem::size_of::<Syscall>() == 16);

impl Event {
    pub fn access(kind: AccessKind, addr: VirtAddr, size: u32, asid: Asid) -> Self {
        Event::Access(Access { kind, size, addr, asid })
    }

    /// True for the events no cache or TLB sees: the system-call marker
    /// and its arguments (a replay skips them).
    pub fn is_syscall_marker(&self) -> bool {
        matches!(self, Event::Syscall(_) | Event::SyscallArg(_))
    }
}
