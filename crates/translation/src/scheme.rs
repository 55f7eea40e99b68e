//! The seven translation schemes and what distinguishes them: whether a TLB
//! exists, which page table they walk, who walks it, and when translation
//! happens relative to the cache lookup.

use serde::{Deserialize, Serialize};
pub use vmlab_mmu::pagetable::TableKind;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scheme {
    /// MIPS TLB refilled by software from a 2-tier bottom-up table.
    Ultrix,
    /// MIPS TLB refilled by software from a 3-tier bottom-up table whose
    /// root misses take a long general-purpose path.
    Mach,
    /// x86: hardware-walked 2-level top-down table.
    Intel,
    /// PA-RISC: software refill from a hashed inverted table.
    Parisc,
    /// No TLB: an L2 miss traps to a software handler (PUMA table).
    Softvm,
    /// No TLB: a hardware state machine walks the table through the virtual
    /// cache on an L2 miss.
    Spur,
    /// Ideal: translation is free and makes no references.
    Notlb,
}

/// Whether both L1 caches are virtually indexed and tagged (so a hit needs
/// no translation) or not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum L1Tags {
    Virtual,
    Physical,
}

/// When a TLB-based scheme with virtual L1s consults the TLB: on every
/// reference (it holds the protection bits, as the paper's Table 1
/// assumes), or only on an L1 miss.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TlbCheck {
    EveryAccess,
    L1Miss,
}

/// When a user reference is translated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TranslateAt {
    /// Every reference looks up the TLB before (PIPT) or beside (VIPT) the
    /// L1 lookup; with virtual caches the TLB still supplies protection, as
    /// in Jacob & Mudge's Table 1 ("L1 hit, TLB miss" happens).
    EveryAccess,
    /// Only references that miss a virtual L1 consult the TLB.
    L1Miss,
    /// Only references that miss the virtual L2 are translated (no TLB).
    L2Miss,
    /// Never (NOTLB).
    Never,
}

impl Scheme {
    pub const ALL: [Scheme; 7] =
        [Scheme::Ultrix, Scheme::Mach, Scheme::Intel, Scheme::Parisc, Scheme::Softvm, Scheme::Spur, Scheme::Notlb];

    pub fn name(self) -> &'static str {
        match self {
            Scheme::Ultrix => "ultrix",
            Scheme::Mach => "mach",
            Scheme::Intel => "intel",
            Scheme::Parisc => "parisc",
            Scheme::Softvm => "softvm",
            Scheme::Spur => "spur",
            Scheme::Notlb => "notlb",
        }
    }

    pub fn parse(s: &str) -> Option<Scheme> {
        Scheme::ALL.into_iter().find(|x| x.name().eq_ignore_ascii_case(s))
    }

    pub fn has_tlb(self) -> bool {
        matches!(self, Scheme::Ultrix | Scheme::Mach | Scheme::Intel | Scheme::Parisc)
    }

    /// Whether refills run handler code (through the I-caches) rather than
    /// a hardware walker.
    pub fn software_refill(self) -> bool {
        matches!(self, Scheme::Ultrix | Scheme::Mach | Scheme::Parisc | Scheme::Softvm)
    }

    pub fn table(self) -> Option<TableKind> {
        match self {
            Scheme::Ultrix => Some(TableKind::Mips),
            Scheme::Mach => Some(TableKind::Mach),
            Scheme::Intel => Some(TableKind::X86TwoLevel),
            Scheme::Parisc => Some(TableKind::Parisc),
            Scheme::Softvm => Some(TableKind::Puma),
            // SPUR's two-level table whose root is a subset of the table
            // (seed 002, Fig. 7) has the same shape as the MIPS one.
            Scheme::Spur => Some(TableKind::Mips),
            Scheme::Notlb => None,
        }
    }

    /// Whether the scheme translates only when a reference misses the last
    /// cache level (SOFTVM, SPUR), whatever the caches and TLB settings.
    pub fn translates_at_memory(self) -> bool {
        matches!(self, Scheme::Softvm | Scheme::Spur)
    }

    /// When translation happens, given the L1 caches' tags and when a
    /// TLB-based scheme checks protection in the TLB.
    pub fn translate_at(self, l1: L1Tags, check: TlbCheck) -> TranslateAt {
        match self {
            Scheme::Notlb => TranslateAt::Never,
            _ if self.translates_at_memory() => TranslateAt::L2Miss,
            _ if l1 == L1Tags::Physical || check == TlbCheck::EveryAccess => TranslateAt::EveryAccess,
            _ => TranslateAt::L1Miss,
        }
    }
}
