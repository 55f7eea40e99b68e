//! The two ARM v4 MMU registers that StrongARM fast address-space
//! switching (Wiggins, Tuch, Uhlig, Heiser 2003; seed 001) is built on.
//!
//! | register | what it does | source |
//! |---|---|---|
//! | `Pid` (CP15 register 13) | a 6-bit process id OR'ed into bits 30..25 of a virtual address whose bits 31..25 are zero, *before* the caches and TLBs see it: the low 32 MB of each process lands in one of 64 slots | SA-1100 Developer's Manual (Intel 278088-004), §5.2.12 |
//! | `DomainAccess` (CP15 register 3) | two bits per domain (16 domains): no access, client (the entry's permissions apply), manager (no checks) | SA-1100 Developer's Manual §5.2.5; ARM Architecture Reference, v4 |
//!
//! A TLB entry carries the domain of the first-level descriptor it came
//! from (`TlbEntry::domain`); an access through an entry whose domain the
//! register denies is a *domain fault*, which is how a kernel sharing one
//! top-level table between processes notices a collision
//! (`Tlb::lookup_checked`).

use vmlab_addr::{Domain, VirtAddr};

/// ARM v4 has 16 domains (SA-1100 §5.2.5).
pub const DOMAINS: u32 = 16;

/// The low part of an address space the PID register relocates: 32 MB
/// (bits 24..0; SA-1100 §5.2.12).
pub const PID_SLOT_BYTES: u64 = 1 << 25;

/// PID slots: 6 bits (SA-1100 §5.2.12). Slot 0 leaves addresses alone.
pub const PID_SLOTS: u32 = 64;

/// The process-id relocation register (CP15 register 13).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Pid(u32);

impl Pid {
    /// Slot `slot` (0..64); `None` for a slot the register cannot hold.
    pub fn new(slot: u32) -> Option<Self> {
        (slot < PID_SLOTS).then_some(Self(slot))
    }

    pub fn slot(self) -> u32 {
        self.0
    }

    /// The modified virtual address the caches and TLB see: `va` moved to
    /// this slot when it lies in the low 32 MB, unchanged otherwise.
    pub fn relocate(self, va: VirtAddr) -> VirtAddr {
        if va.0 < PID_SLOT_BYTES {
            VirtAddr(va.0 | (u64::from(self.0) << 25))
        } else {
            va
        }
    }
}

/// What the domain access-control register lets the running code do in
/// one domain.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Access {
    /// Any access faults (a domain fault).
    None,
    /// Accesses are checked against the entry's permissions.
    Client,
    /// Accesses are not checked.
    Manager,
}

/// The domain access-control register: an `Access` per domain.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct DomainAccess(u32);

impl DomainAccess {
    /// Every domain denied.
    pub fn none() -> Self {
        Self(0)
    }

    /// Every domain open as a client (the register of a kernel that does
    /// not use domains to separate processes: one domain for all).
    pub fn all_clients() -> Self {
        Self(0x5555_5555)
    }

    /// The same register with `d` set to `a`. Domains past the 16th are
    /// ignored, as the hardware has no bits for them.
    pub fn with(self, d: Domain, a: Access) -> Self {
        if d.0 >= DOMAINS {
            return self;
        }
        let bits = match a {
            Access::None => 0,
            Access::Client => 1,
            Access::Manager => 3,
        };
        let shift = 2 * d.0;
        Self((self.0 & !(3 << shift)) | (bits << shift))
    }

    pub fn access(self, d: Domain) -> Access {
        if d.0 >= DOMAINS {
            return Access::None;
        }
        match (self.0 >> (2 * d.0)) & 3 {
            0 | 2 => Access::None,
            1 => Access::Client,
            _ => Access::Manager,
        }
    }

    /// Whether an access through an entry of domain `d` proceeds.
    pub fn allows(self, d: Domain) -> bool {
        self.access(d) != Access::None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pid_relocates_only_the_low_32_mb() {
        let p = Pid::new(3).unwrap_or_default();
        assert_eq!(p.relocate(VirtAddr(0x0000_8000)), VirtAddr(0x0600_8000));
        assert_eq!(p.relocate(VirtAddr(0x01ff_ffff)), VirtAddr(0x07ff_ffff));
        assert_eq!(p.relocate(VirtAddr(0x0200_0000)), VirtAddr(0x0200_0000), "bit 25 set: not relocated");
        assert_eq!(p.relocate(VirtAddr(0x4000_0000)), VirtAddr(0x4000_0000));
        assert_eq!(Pid::default().relocate(VirtAddr(0x1234)), VirtAddr(0x1234));
        assert_eq!(Pid::new(63).map(|p| p.relocate(VirtAddr(0))), Some(VirtAddr(0x7e00_0000)));
        assert_eq!(Pid::new(64), None);
    }

    #[test]
    fn domain_register_two_bits_per_domain() {
        let r = DomainAccess::none().with(Domain(0), Access::Client).with(Domain(15), Access::Manager);
        assert_eq!(r, DomainAccess(0xc000_0001));
        assert!(r.allows(Domain(0)) && r.allows(Domain(15)));
        assert!(!r.allows(Domain(1)));
        assert_eq!(r.with(Domain(0), Access::None).access(Domain(0)), Access::None);
        assert!(!r.allows(Domain(16)), "no 17th domain");
        assert_eq!(r.with(Domain(16), Access::Client), r);
        assert!((0..16).all(|d| DomainAccess::all_clients().access(Domain(d)) == Access::Client));
    }
}
