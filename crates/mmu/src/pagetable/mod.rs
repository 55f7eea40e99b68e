//! Page-table organisations with real memory layouts.
//!
//! A table maps (address space, virtual page) to a physical frame. What the
//! simulator needs from it is *where the PTEs are*: a walk is the list of PTE
//! references a translation makes, each at a real address, so the PTE loads
//! go through the simulated caches. Table pages are allocated from a
//! [`FramePool`], so they have physical addresses too, and
//! [`PageTable::memory`] reports what a given address space costs.
//!
//! Two shapes of walk exist:
//! * **bottom-up** (MIPS/ULTRIX, MACH, PUMA): the walk of a user address is
//!   one PTE at a *mapped* kernel virtual address; translating that address
//!   is itself a walk (`walk` of the PTE's address), one tier up, until a
//!   tier whose PTEs sit at unmapped physical addresses. The scheme, not the
//!   table, decides when the next tier is needed (only when the TLB misses
//!   on the PTE's page).
//! * **top-down / hashed** (x86 radix, PA-RISC, PowerPC): every PTE
//!   reference is physical and the walk lists all of them in order (for a
//!   hash chain: every entry visited until the match).

use crate::frames::{FrameError, FramePool};
use serde::Serialize;

mod linear;
pub mod mach;
pub mod mips;
pub mod parisc;

pub use mach::Mach;
pub use mips::Ultrix;
pub use parisc::{ChainStats, HashedInverted, HashedParams};

/// The tier of a PTE, as Table 2 of Jacob & Mudge names the handlers:
/// user (`upte`), kernel (`kpte`) and root (`rpte`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Tier {
    User,
    Kernel,
    Root,
}

/// One PTE reference of a walk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PteRef {
    /// The byte address of the PTE (or hash-table entry) read.
    pub addr: u64,
    /// True when `addr` is a mapped (kernel or global) virtual address that
    /// must itself be translated; false when it is physical/unmapped.
    pub mapped: bool,
    pub tier: Tier,
    /// Bytes read (the PTE size).
    pub bytes: u32,
}

/// Memory used by a table for the address spaces it holds.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct TableMemory {
    /// Bytes of physical memory the table occupies (whole frames).
    pub bytes: u64,
    /// Bytes actually holding PTEs that map something (the rest is waste).
    pub useful_bytes: u64,
    /// Per structure, e.g. ("root", bytes), ("user tables", bytes).
    pub parts: Vec<(String, u64)>,
}

#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
pub enum TableError {
    #[error(transparent)]
    Frames(#[from] FrameError),
    #[error("virtual address {va:#x} is outside the {bits}-bit space this table maps")]
    OutOfRange { va: u64, bits: u32 },
    #[error("no mapping for space {space} page {vpn:#x}")]
    NotMapped { space: u32, vpn: u64 },
    #[error("address space {space} is outside the {max_spaces} spaces this table holds")]
    SpaceOutOfRange { space: u32, max_spaces: u32 },
    #[error("frame {pfn:#x} does not fit the {bits}-bit frame field of a PTE")]
    FrameOutOfRange { pfn: u64, bits: u32 },
    #[error("no free PTE for space {space} page {vpn:#x}: both {what} are full")]
    Full { space: u32, vpn: u64, what: &'static str },
    #[error("invalid page-table configuration: {0}")]
    Config(String),
}

/// A page-table organisation.
pub trait PageTable: std::fmt::Debug {
    /// A short name (`mips`, `mach`, `x86-2level`, ...).
    fn name(&self) -> &'static str;

    /// Page size in bytes.
    fn page_bytes(&self) -> u64;

    /// Maps virtual page `vpn` of `space` to frame `pfn`, allocating any table
    /// pages it needs from `frames`. Mapping an already-mapped page replaces
    /// the frame.
    fn insert(&mut self, space: u32, vpn: u64, pfn: u64, frames: &mut FramePool) -> Result<(), TableError>;

    /// Removes a mapping; table pages left empty may be returned to `frames`.
    fn remove(&mut self, space: u32, vpn: u64, frames: &mut FramePool) -> Result<(), TableError>;

    /// The frame `vpn` of `space` maps to, if any.
    fn lookup(&self, space: u32, vpn: u64) -> Option<u64>;

    /// Appends to `out` the PTE references translating `va` in `space`
    /// makes, in order (see the module doc for bottom-up tables). For a
    /// bottom-up table `va` may be a kernel address of a PTE, which gives the
    /// next tier's reference.
    fn walk(&self, space: u32, va: u64, out: &mut Vec<PteRef>) -> Result<(), TableError>;

    /// Memory the table occupies now.
    fn memory(&self) -> TableMemory;

    /// The frame held by the valid PTE (or hash entry) stored at physical
    /// address `pa`, if `pa` lies in one of this table's pages and the entry
    /// there is valid. It reads the simulated memory a walk reads, so tests
    /// can follow a walk to its frame: a mapped [`PteRef`] is resolved by
    /// walking its address (next tier) and reading the PTE there.
    fn pte_at(&self, pa: u64) -> Option<u64>;
}
