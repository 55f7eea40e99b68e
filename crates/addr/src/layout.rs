//! Where things are in the simulated address spaces: the user address
//! limit, the kernel's windows and unmapped regions, and the kernel's
//! address-space id. Every model that needs one of these takes it from
//! here, so the translating machine and the OS model cannot drift apart.
//!
//! | constant | value | used by |
//! |---|---|---|
//! | [`USER_LIMIT`] | 2 GB | both: user virtual addresses lie below it (MIPS's and the PUMA root table's 2 GB user space; the PA-RISC table's 32-bit offsets) |
//! | [`KERNEL_WINDOW`] | at the user limit | OS model: the kernel reaches frame `pfn` at `KERNEL_WINDOW + pfn * page` |
//! | [`UNMAPPED_BASE`] | bit 56 | translation: unmapped physical memory (handler code, physical PTEs) has cache address `UNMAPPED_BASE | pa` |
//! | [`OS_KERNEL_SPACE`] | 0 | OS model: the kernel's space, and the cache space of its physical accesses |
//! | [`TRACE_KERNEL_SPACE`] | `u32::MAX - 1` | translation: the cache space of kernel lines |
//!
//! Why two kernel space ids: the OS model numbers address spaces itself
//! (user spaces from 1), so 0 is free for the kernel; the translating
//! machine takes its user spaces from a trace's pids, and any pid can occur
//! (0 included), so its kernel takes a value no trace uses. Making them one
//! would move numbers: a space id can feed a cache's index (`index =
//! "space-hash"`) and is part of the OS model's outputs (its violations). `u32::MAX` itself is the
//! TLB's key for global entries and never a space.

use crate::{Asid, PhysAddr, VirtAddr};

/// User virtual addresses lie below this; kernel-mapped addresses above.
pub const USER_LIMIT: VirtAddr = VirtAddr(1 << 31);

/// The OS model's window onto physical memory starts where user space ends
/// (a power of two, so it is aligned to any cache's colour span and a
/// window address has its frame's colour).
pub const KERNEL_WINDOW: VirtAddr = USER_LIMIT;

/// The cache address of unmapped physical memory in the translating
/// machine: `UNMAPPED_BASE | pa`, above every virtual address a trace or a
/// table layout uses, so such lines never alias a mapped one.
pub const UNMAPPED_BASE: VirtAddr = VirtAddr(1 << 56);

/// The cache address of unmapped physical address `pa` in the translating
/// machine (`UNMAPPED_BASE | pa`).
#[inline(always)]
pub const fn unmapped(pa: PhysAddr) -> VirtAddr {
    VirtAddr(UNMAPPED_BASE.0 | pa.0)
}

/// The kernel's address-space id where the OS model numbers the spaces
/// (user spaces from 1); its physical (absolute) accesses, with virtual
/// address = physical address, use this cache space too.
pub const OS_KERNEL_SPACE: Asid = Asid(0);

/// The kernel's address-space id where user spaces are a trace's pids (the
/// translating machine): a value no trace uses, kept apart from `u32::MAX`.
pub const TRACE_KERNEL_SPACE: Asid = Asid(u32::MAX - 1);
