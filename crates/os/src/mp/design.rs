//! The locking designs of seed 003, chosen by name. A design says which
//! lock guards each hat structure; the hat's code is the same under all.
//!
//! | design | hat structures | resource pool | source |
//! |---|---|---|---|
//! | `single-lock` | one global hat lock around every hat call | under the hat lock; emptied tables returned when the call ends | seed 003 §4.4, §5.3 (Solaris 2.1) |
//! | `multi-threaded` | logical locks (busy/wanted) per page frame and per MMU descriptor, under the global `page_mutex` and `mmu_mutex`; the MMU list under the space's readers-writer lock, which the VM holds across every call | `hat_resource_mutex`; tables returned as soon as emptied | seed 003 §4.4, §5.3 |
//! | `per-descriptor` | a real mutex in each page-frame and MMU descriptor | `hat_resource_mutex` | seed 003 §4.4 (before the memory argument) |
//! | `hashed` | logical locks under hashed arrays of `page_mutex` and `mmu_mutex` | `hat_resource_mutex` | seed 003 §4.4 last paragraph, §6.2 item 1 |
//! | `hashed-free-lists` | as `hashed` | one mutex per free list (table level) | seed 003 §6.2 items 1 and 3 |

use vmlab_addr::{Asid, Pfn};

use super::lock::{Lock, LockClass};

/// Mutexes in each hashed array (`hashed`, `hashed-free-lists`): the
/// paper gives no size; 64 is vmlab's choice, a power of two several
/// times the largest CPU count the paper ran.
pub const HASH_BUCKETS: u32 = 64;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Design {
    SingleLock,
    MultiThreaded,
    PerDescriptor,
    Hashed,
    HashedFreeLists,
}

/// How a design guards one descriptor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Guard {
    /// Nothing beyond the global hat lock already held.
    None,
    /// A real mutex.
    Mutex(Lock),
    /// A logical lock (busy/wanted flags) examined under `mutex`.
    Logical { lock: Lock, mutex: Lock },
}

fn hash(x: u64) -> u32 {
    // Fibonacci hashing of the descriptor's identity (its address in the kernel).
    ((x.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 32) % u64::from(HASH_BUCKETS)) as u32
}

impl Design {
    pub const ALL: [Design; 5] =
        [Design::SingleLock, Design::MultiThreaded, Design::PerDescriptor, Design::Hashed, Design::HashedFreeLists];

    pub fn name(self) -> &'static str {
        match self {
            Design::SingleLock => "single-lock",
            Design::MultiThreaded => "multi-threaded",
            Design::PerDescriptor => "per-descriptor",
            Design::Hashed => "hashed",
            Design::HashedFreeLists => "hashed-free-lists",
        }
    }

    pub fn parse(name: &str) -> Result<Self, String> {
        Self::ALL.iter().copied().find(|d| d.name() == name).ok_or_else(|| {
            let known: Vec<&str> = Self::ALL.iter().map(|d| d.name()).collect();
            format!("unknown locking design {name:?}; known: {}", known.join(", "))
        })
    }

    /// The one lock around every hat call, if the design has one.
    pub fn global(self) -> Option<Lock> {
        (self == Design::SingleLock).then_some(Lock::Hat)
    }

    pub fn page(self, pfn: Pfn) -> Guard {
        match self {
            Design::SingleLock => Guard::None,
            Design::MultiThreaded => Guard::Logical { lock: Lock::PageLogical(pfn), mutex: Lock::PageMutex(0) },
            Design::PerDescriptor => Guard::Mutex(Lock::Page(pfn)),
            Design::Hashed | Design::HashedFreeLists => {
                Guard::Logical { lock: Lock::PageLogical(pfn), mutex: Lock::PageMutex(hash(pfn.0)) }
            }
        }
    }

    pub fn mmu(self, asid: Asid) -> Guard {
        match self {
            Design::SingleLock => Guard::None,
            Design::MultiThreaded => Guard::Logical { lock: Lock::MmuLogical(asid), mutex: Lock::MmuMutex(0) },
            Design::PerDescriptor => Guard::Mutex(Lock::Mmu(asid)),
            Design::Hashed | Design::HashedFreeLists => Guard::Logical {
                lock: Lock::MmuLogical(asid),
                mutex: Lock::MmuMutex(hash(u64::from(asid.0) + (1 << 40))),
            },
        }
    }

    /// The lock of the free list of table level `level`, if the pool has
    /// one of its own.
    pub fn resource(self, level: usize) -> Option<Lock> {
        match self {
            Design::SingleLock => None,
            Design::HashedFreeLists => Some(Lock::HatResource(level as u32)),
            _ => Some(Lock::HatResource(0)),
        }
    }

    /// The classes of the hat's own locks this design has: what its
    /// lock table lists, with zero counts for a class a run never took.
    pub fn hat_lock_classes(self) -> &'static [LockClass] {
        use LockClass::*;
        match self {
            Design::SingleLock => &[HatLock],
            Design::PerDescriptor => &[PageDescriptorMutex, MmuDescriptorMutex, HatResourceMutex],
            Design::MultiThreaded | Design::Hashed | Design::HashedFreeLists => {
                &[PageMutex, MmuMutex, HatResourceMutex, PageLogicalLock, MmuLogicalLock]
            }
        }
    }

    /// Whether tables an unload empties go back to the pool at once
    /// (multi-threaded hats) or when the whole call ends, shoot-down
    /// included (the single lock; seed 003 section 5.3, Figure 8).
    pub fn returns_tables_at_once(self) -> bool {
        self != Design::SingleLock
    }
}
