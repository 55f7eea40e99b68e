//! What a hierarchy is asked and what it answers: the one public access
//! path, `Hierarchy::request(from, Request) -> Served` (and
//! `System::on(cpu)`'s loads, stores and fetches, which are requests to that
//! CPU's top level).
//!
//! A request carries both addresses already translated: whoever issues it
//! (the replayer's page mapper, a translation scheme, the OS model) owns
//! translation; the hierarchy only uses the address each level's indexing
//! and tags need (docs/reference-semantics.md, *Indexing*).

use vmlab_addr::{Asid, PhysAddr, VirtAddr};
use vmlab_cache::{LineRef, Outcome, RefKind};

/// One reference to a level of a hierarchy: `size` bytes at `vaddr`
/// (translated to `paddr`, the two within one page) in address space
/// `space`. A request over several lines of the level it reaches is split
/// there, line by line, in address order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Request {
    pub kind: RefKind,
    pub vaddr: VirtAddr,
    pub paddr: PhysAddr,
    pub space: Asid,
    pub size: u64,
}

impl Request {
    pub fn new(kind: RefKind, vaddr: VirtAddr, paddr: PhysAddr, space: Asid, size: u64) -> Self {
        Self { kind, vaddr, paddr, space, size }
    }

    /// A load of `size` bytes.
    pub fn read(vaddr: VirtAddr, paddr: PhysAddr, space: Asid, size: u64) -> Self {
        Self::new(RefKind::Read, vaddr, paddr, space, size)
    }

    /// A store of `size` bytes.
    pub fn write(vaddr: VirtAddr, paddr: PhysAddr, space: Asid, size: u64) -> Self {
        Self::new(RefKind::Write, vaddr, paddr, space, size)
    }

    /// An instruction fetch of `size` bytes.
    pub fn fetch(vaddr: VirtAddr, paddr: PhysAddr, space: Asid, size: u64) -> Self {
        Self::new(RefKind::Ifetch, vaddr, paddr, space, size)
    }

    /// The cache crate's view of the first line (`vaddr`, `paddr`, `space`).
    pub(crate) fn line_ref(&self) -> LineRef {
        LineRef { vaddr: self.vaddr, paddr: self.paddr, asid: self.space }
    }
}

/// Where a request was served: `Level(0)` is the top level (a CPU's L1s),
/// then each level below in turn (in a `System`, a CPU's private levels
/// and then the shared ones), whichever level the request entered at;
/// `Memory` lies below the last level. Ordered by depth, so the deepest of
/// several is their `max`. A path holds at most `MAX_LEVELS` levels, so the
/// number is a `u8`: the whole value is two bytes, returned in one register
/// by every access of the translating runs (a `usize` made it 16 bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Reached {
    Level(u8),
    Memory,
}

impl Reached {
    /// Level `t` of a path (`t < MAX_LEVELS`, which `Hierarchy::new` and
    /// `System` keep).
    #[inline(always)]
    pub(crate) fn level(t: usize) -> Self {
        debug_assert!(t < 256);
        Reached::Level(t as u8)
    }

    /// The same place seen from `levels` levels higher up (a private level
    /// of a CPU sees the first shared level as its own `levels`-th).
    #[inline]
    pub(crate) fn below(self, levels: usize) -> Self {
        match self {
            Reached::Level(l) => Reached::level(usize::from(l) + levels),
            Reached::Memory => Reached::Memory,
        }
    }
}

/// What a request did.
///
/// `level` is the deepest level that served any of its lines: a line that
/// hit and sent nothing below is served where it hit; a miss is served
/// where its fill was served (the level below at the least); a write the
/// level passes on (write-through, or a write miss that does not allocate)
/// is served where that write lands. Write-backs of victims never decide
/// it: they are the victim's traffic, not the request's. This is the
/// level VMCPI charges a penalty for (Jacob & Mudge: an L1 miss that hits
/// L2 costs the L2 latency).
///
/// `lines` is how many lines of the level the request entered it touched;
/// `last` is that level's outcome for the last of them (the only one, for
/// a request within one line: what a CPU's loads and stores usually are),
/// with the fill, the write passed on and the dirty victim it sent below.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Served {
    pub level: Reached,
    pub lines: u32,
    pub last: Outcome,
}
