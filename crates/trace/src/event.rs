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
}

impl Event {
    pub fn access(kind: AccessKind, addr: u64, size: u32, asid: u32) -> Self {
        Event::Access(Access { kind, size, addr: VirtAddr(addr), asid: Asid(asid) })
    }
}
