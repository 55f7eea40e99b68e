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
use vmlab_addr::{Asid, Pfn, PhysAddr, VirtAddr, Vpn};

mod linear;
pub mod mach;
pub mod mips;
pub mod parisc;
pub mod powerpc;
pub mod puma;
pub mod segments;
pub mod srmmu;
mod tree;
pub mod x86;

pub use mach::Mach;
pub use mips::Ultrix;
pub use parisc::{ChainStats, HashedInverted, HashedParams};
pub use powerpc::{HashedPageTable, HtabParams};
pub use puma::Puma;
pub use segments::SegmentRegisters;
pub use srmmu::Srmmu;
pub use x86::Radix;

/// The tier of a PTE, as Table 2 of Jacob & Mudge names the handlers:
/// user (`upte`), kernel (`kpte`) and root (`rpte`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Tier {
    User,
    Kernel,
    Root,
}

/// Where a PTE (or hash-table entry) is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PteAddr {
    /// A mapped (kernel or global) virtual address, itself translated
    /// through the next tier up.
    Mapped(VirtAddr),
    /// A physical (unmapped) address.
    Physical(PhysAddr),
}

/// One PTE reference of a walk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PteRef {
    pub at: PteAddr,
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
    OutOfRange { va: VirtAddr, bits: u32 },
    #[error("no mapping for space {space} page {vpn:#x}")]
    NotMapped { space: Asid, vpn: Vpn },
    #[error("address space {space} is outside the {max_spaces} spaces this table holds")]
    SpaceOutOfRange { space: Asid, max_spaces: u32 },
    #[error("frame {pfn:#x} does not fit the {bits}-bit frame field of a PTE")]
    FrameOutOfRange { pfn: Pfn, bits: u32 },
    #[error("no free PTE for space {space} page {vpn:#x}: both {what} are full")]
    Full { space: Asid, vpn: Vpn, what: &'static str },
    #[error("invalid page-table configuration: {0}")]
    Config(String),
}

/// A page-table organisation.
pub trait PageTable: std::fmt::Debug + Send {
    /// A short name (`mips`, `mach`, `x86-2level`, ...).
    fn name(&self) -> &'static str;

    /// Page size in bytes.
    fn page_bytes(&self) -> u64;

    /// Maps virtual page `vpn` of `space` to frame `pfn`, allocating any table
    /// pages it needs from `frames`. Mapping an already-mapped page replaces
    /// the frame.
    fn insert(&mut self, space: Asid, vpn: Vpn, pfn: Pfn, frames: &mut FramePool) -> Result<(), TableError>;

    /// Removes a mapping; table pages left empty may be returned to `frames`.
    fn remove(&mut self, space: Asid, vpn: Vpn, frames: &mut FramePool) -> Result<(), TableError>;

    /// The frame `vpn` of `space` maps to, if any.
    fn lookup(&self, space: Asid, vpn: Vpn) -> Option<Pfn>;

    /// Appends to `out` the PTE references translating `va` in `space`
    /// makes, in order (see the module doc for bottom-up tables). For a
    /// bottom-up table `va` may be a kernel address of a PTE, which gives the
    /// next tier's reference.
    fn walk(&self, space: Asid, va: VirtAddr, out: &mut Vec<PteRef>) -> Result<(), TableError>;

    /// Memory the table occupies now.
    fn memory(&self) -> TableMemory;

    /// The frame held by the valid PTE (or hash entry) stored at physical
    /// address `pa`, if `pa` lies in one of this table's pages and the entry
    /// there is valid. It reads the simulated memory a walk reads, so tests
    /// can follow a walk to its frame: a mapped [`PteRef`] is resolved by
    /// walking its address (next tier) and reading the PTE there.
    fn pte_at(&self, pa: PhysAddr) -> Option<Pfn>;
}

/// The page-table organisations, by the names presets, the CLI and Python
/// use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, serde::Deserialize)]
pub enum TableKind {
    /// ULTRIX on MIPS: 2 MB linear user tables + 2 KB root ([`mips`]).
    #[serde(rename = "mips")]
    Mips,
    /// MACH on MIPS: user tables + 4 MB kernel table + 4 KB root ([`mach`]).
    #[serde(rename = "mach")]
    Mach,
    /// SOFTVM's PUMA disjunct table ([`puma`]).
    #[serde(rename = "puma")]
    Puma,
    /// 32-bit x86 two-level radix table ([`x86`]).
    #[serde(rename = "x86-2level")]
    X86TwoLevel,
    /// x86-64 four-level radix table ([`x86`]).
    #[serde(rename = "x86-4level")]
    X86FourLevel,
    /// PA-RISC hashed inverted table with chains ([`parisc`]).
    #[serde(rename = "parisc")]
    Parisc,
    /// PowerPC hashed page table of PTEGs ([`powerpc`]).
    #[serde(rename = "powerpc")]
    Powerpc,
}

impl TableKind {
    pub const ALL: [TableKind; 7] = [
        TableKind::Mips,
        TableKind::Mach,
        TableKind::Puma,
        TableKind::X86TwoLevel,
        TableKind::X86FourLevel,
        TableKind::Parisc,
        TableKind::Powerpc,
    ];

    pub fn name(self) -> &'static str {
        match self {
            TableKind::Mips => "mips",
            TableKind::Mach => "mach",
            TableKind::Puma => "puma",
            TableKind::X86TwoLevel => "x86-2level",
            TableKind::X86FourLevel => "x86-4level",
            TableKind::Parisc => "parisc",
            TableKind::Powerpc => "powerpc",
        }
    }
}

impl std::fmt::Display for TableKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for TableKind {
    type Err = TableError;

    fn from_str(s: &str) -> Result<Self, TableError> {
        TableKind::ALL.into_iter().find(|k| k.name() == s).ok_or_else(|| {
            let names: Vec<&str> = TableKind::ALL.iter().map(|k| k.name()).collect();
            TableError::Config(format!("unknown page-table organisation {s:?}; expected one of {}", names.join(", ")))
        })
    }
}

/// What building a table needs beyond its kind: the machine's physical
/// memory (the hashed tables are sized from it) and optional explicit sizes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TableParams {
    /// Physical frames of the machine.
    pub phys_frames: u64,
    /// PA-RISC: hash-table entries per physical frame (before rounding up
    /// to a power of two).
    pub parisc_entries_per_frame: u64,
    /// PA-RISC: explicit hash-table entries (a power of two).
    pub parisc_entries: Option<u64>,
    /// PowerPC: explicit PTEG count (a power of two).
    pub powerpc_ptegs: Option<u64>,
}

impl Default for TableParams {
    fn default() -> Self {
        Self {
            phys_frames: 0,
            parisc_entries_per_frame: parisc::DEFAULT_ENTRIES_PER_FRAME,
            parisc_entries: None,
            powerpc_ptegs: None,
        }
    }
}

/// Builds an empty table of `kind`, allocating whatever it needs up front
/// (MACH's root, the hashed tables) from `frames`.
pub fn build(kind: TableKind, params: &TableParams, frames: &mut FramePool) -> Result<Box<dyn PageTable>, TableError> {
    Ok(match kind {
        TableKind::Mips => Box::new(Ultrix::new()),
        TableKind::Mach => Box::new(Mach::new(frames)?),
        TableKind::Puma => Box::new(Puma::new()),
        TableKind::X86TwoLevel => Box::new(Radix::two_level()),
        TableKind::X86FourLevel => Box::new(Radix::four_level()),
        TableKind::Parisc => Box::new(HashedInverted::new(
            &HashedParams {
                phys_frames: params.phys_frames,
                entries_per_frame: params.parisc_entries_per_frame,
                entries: params.parisc_entries,
            },
            frames,
        )?),
        TableKind::Powerpc => Box::new(HashedPageTable::new(
            &HtabParams { phys_frames: params.phys_frames, ptegs: params.powerpc_ptegs },
            frames,
        )?),
    })
}
