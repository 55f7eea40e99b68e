//! Locks in simulated time: mutexes, readers-writer locks and the
//! multi-threaded hat's *logical* locks (busy and wanted flags under a
//! global mutex, seed 003 section 4.4), each counting what the paper's
//! lock tables report: acquisitions, the fraction found held, total and
//! mean wait, and hold time.
//!
//! A lock here only decides who holds it and who waits, and for how long;
//! the discrete-event simulation (`sim.rs`) decides when each CPU asks.
//! Waiters are served first come, first served: a release hands the lock
//! to the oldest waiter at the release time, so every wait is exact.

use std::collections::{BTreeMap, VecDeque};

use rustc_hash::FxHashMap;
use serde::Serialize;
use vmlab_addr::{Asid, Pfn};

/// One lock instance.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum Lock {
    /// The single global hat lock (Solaris 2.1).
    Hat,
    /// `page_mutex`: the global mutex under the page-frame logical locks
    /// (index 0), or one of the hashed array (seed 003 section 6.2 item 1).
    PageMutex(u32),
    /// `mmu_mutex`, the same for the MMU descriptors.
    MmuMutex(u32),
    /// `hat_resource_mutex` (index 0), or one per free list (section 6.2 item 3).
    HatResource(u32),
    /// A real mutex in one page-frame descriptor.
    Page(Pfn),
    /// A real mutex in one MMU descriptor (the address space's page table).
    Mmu(Asid),
    /// The logical lock of a page-frame descriptor (busy/wanted flags).
    PageLogical(Pfn),
    /// The logical lock of an MMU descriptor.
    MmuLogical(Asid),
    /// The address space's readers-writer lock (`a_lock`), which also
    /// guards the hat's list of MMU descriptors (seed 003 section 5.3).
    As(Asid),
    /// The rest of the kernel (`presets/mp`, `[lock.*]`).
    Pidlock,
    Freemem,
    Anon(u32),
    Vnode(u32),
    /// `srmmu_demap_mutex`: one broadcast demap on the bus at a time
    /// (Solaris sun4d, `uts/sun4d/vm/mach_srmmu.c`; `ShootDownMode::BroadcastDemap`).
    Demap,
    /// The dispatcher's scheduling lock over the one global dispatch queue
    /// of early Solaris 2 (Mauro and McDougall, *Solaris Internals*, 2001,
    /// section 9.2: "a simple, global dispatch queue that was shared by all
    /// processors", "a single scheduling lock"); seed 003 ran Solaris 2.1.
    /// Later releases split it into one `disp_lock` per CPU's queue
    /// (Solaris 8 `uts/common/disp/disp.c`).
    Dispatcher,
}

/// What the lock tables group instances by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum LockClass {
    HatLock,
    PageMutex,
    MmuMutex,
    HatResourceMutex,
    PageDescriptorMutex,
    MmuDescriptorMutex,
    PageLogicalLock,
    MmuLogicalLock,
    AsLock,
    Pidlock,
    FreememLock,
    AnonLock,
    VnodeLock,
    DemapMutex,
    DispatcherLock,
}

impl LockClass {
    pub const ALL: [LockClass; 15] = [
        LockClass::HatLock,
        LockClass::PageMutex,
        LockClass::MmuMutex,
        LockClass::HatResourceMutex,
        LockClass::PageDescriptorMutex,
        LockClass::MmuDescriptorMutex,
        LockClass::PageLogicalLock,
        LockClass::MmuLogicalLock,
        LockClass::AsLock,
        LockClass::Pidlock,
        LockClass::FreememLock,
        LockClass::AnonLock,
        LockClass::VnodeLock,
        LockClass::DemapMutex,
        LockClass::DispatcherLock,
    ];

    /// Its name in the tables (the kernel's where it has one).
    pub fn name(self) -> &'static str {
        match self {
            LockClass::HatLock => "hat_lock",
            LockClass::PageMutex => "page_mutex",
            LockClass::MmuMutex => "mmu_mutex",
            LockClass::HatResourceMutex => "hat_resource_mutex",
            LockClass::PageDescriptorMutex => "page descriptor mutex",
            LockClass::MmuDescriptorMutex => "mmu descriptor mutex",
            LockClass::PageLogicalLock => "page logical lock",
            LockClass::MmuLogicalLock => "mmu logical lock",
            LockClass::AsLock => "a_lock",
            LockClass::Pidlock => "pidlock",
            LockClass::FreememLock => "freemem_lock",
            LockClass::AnonLock => "anon_hash_mutex",
            LockClass::VnodeLock => "vnode lock",
            LockClass::DemapMutex => "srmmu_demap_mutex",
            LockClass::DispatcherLock => "dispatcher lock",
        }
    }

    /// Whether the hat takes it (the paper's "hat-related locks").
    pub fn hat_related(self) -> bool {
        matches!(
            self,
            LockClass::HatLock
                | LockClass::PageMutex
                | LockClass::MmuMutex
                | LockClass::HatResourceMutex
                | LockClass::PageDescriptorMutex
                | LockClass::MmuDescriptorMutex
                | LockClass::PageLogicalLock
                | LockClass::MmuLogicalLock
        )
    }
}

impl Lock {
    pub fn class(self) -> LockClass {
        match self {
            Lock::Hat => LockClass::HatLock,
            Lock::PageMutex(_) => LockClass::PageMutex,
            Lock::MmuMutex(_) => LockClass::MmuMutex,
            Lock::HatResource(_) => LockClass::HatResourceMutex,
            Lock::Page(_) => LockClass::PageDescriptorMutex,
            Lock::Mmu(_) => LockClass::MmuDescriptorMutex,
            Lock::PageLogical(_) => LockClass::PageLogicalLock,
            Lock::MmuLogical(_) => LockClass::MmuLogicalLock,
            Lock::As(_) => LockClass::AsLock,
            Lock::Pidlock => LockClass::Pidlock,
            Lock::Freemem => LockClass::FreememLock,
            Lock::Anon(_) => LockClass::AnonLock,
            Lock::Vnode(_) => LockClass::VnodeLock,
            Lock::Demap => LockClass::DemapMutex,
            Lock::Dispatcher => LockClass::DispatcherLock,
        }
    }
}

/// Readers share a readers-writer lock; everything else is exclusive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Mode {
    Exclusive,
    Shared,
}

/// What one class of lock did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct LockStats {
    pub acquisitions: u64,
    /// Acquisitions that found the lock held.
    pub contended: u64,
    /// Cycles from asking to holding, summed.
    pub wait_cycles: u64,
    /// Cycles from holding to releasing, summed.
    pub hold_cycles: u64,
}

impl LockStats {
    pub fn contention(&self) -> f64 {
        if self.acquisitions == 0 {
            0.0
        } else {
            self.contended as f64 / self.acquisitions as f64
        }
    }

    pub fn mean_wait(&self) -> f64 {
        if self.contended == 0 {
            0.0
        } else {
            self.wait_cycles as f64 / self.contended as f64
        }
    }
}

#[derive(Debug, Default)]
struct State {
    /// Holders and since when.
    holders: Vec<(usize, Mode, u64)>,
    /// Waiting CPUs in arrival order.
    queue: VecDeque<(usize, Mode, u64)>,
}

impl State {
    fn admits(&self, mode: Mode) -> bool {
        match mode {
            Mode::Exclusive => self.holders.is_empty(),
            Mode::Shared => self.holders.iter().all(|h| h.1 == Mode::Shared),
        }
    }
}

/// Every lock of a simulation and the statistics of each class.
#[derive(Debug, Default)]
pub struct Locks {
    states: FxHashMap<Lock, State>,
    stats: BTreeMap<LockClass, LockStats>,
}

/// The outcome of asking for a lock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Acquire {
    Held,
    Queued,
}

impl Locks {
    pub fn new() -> Self {
        Self::default()
    }

    /// `cpu` asks for `lock` at `now`: it holds it at once, or waits in
    /// line (found held: counted as contended). A waiter asks no further;
    /// a `release` hands it the lock. Readers join readers unless a writer
    /// waits (no writer starves).
    pub fn acquire(&mut self, lock: Lock, mode: Mode, cpu: usize, now: u64) -> Acquire {
        let st = self.states.entry(lock).or_default();
        let s = self.stats.entry(lock.class()).or_default();
        s.acquisitions += 1;
        if st.queue.is_empty() && st.admits(mode) {
            st.holders.push((cpu, mode, now));
            Acquire::Held
        } else {
            s.contended += 1;
            st.queue.push_back((cpu, mode, now));
            Acquire::Queued
        }
    }

    /// `cpu` releases `lock` at `now`; returns the CPUs that now hold it
    /// (from the head of the line: one writer, or every reader up to the
    /// next writer), each of which has waited until `now`.
    pub fn release(&mut self, lock: Lock, cpu: usize, now: u64) -> Result<Vec<usize>, String> {
        let st = self.states.get_mut(&lock).ok_or_else(|| format!("{lock:?} released by CPU {cpu} but never taken"))?;
        let i = st
            .holders
            .iter()
            .position(|h| h.0 == cpu)
            .ok_or_else(|| format!("{lock:?} released by CPU {cpu}, which does not hold it"))?;
        let (_, _, since) = st.holders.swap_remove(i);
        let s = self.stats.entry(lock.class()).or_default();
        s.hold_cycles += now - since;
        let mut woken = Vec::new();
        while let Some(&(w, mode, asked)) = st.queue.front() {
            if !st.admits(mode) {
                break;
            }
            st.queue.pop_front();
            s.wait_cycles += now - asked;
            st.holders.push((w, mode, now));
            woken.push(w);
            if mode == Mode::Exclusive {
                break;
            }
        }
        if st.holders.is_empty() && st.queue.is_empty() {
            self.states.remove(&lock);
        }
        Ok(woken)
    }

    /// Whether `cpu` holds `lock`.
    pub fn holds(&self, lock: Lock, cpu: usize) -> bool {
        self.states.get(&lock).is_some_and(|s| s.holders.iter().any(|h| h.0 == cpu))
    }

    /// Whether anyone holds `lock` (a logical lock's busy flag).
    pub fn busy(&self, lock: Lock) -> bool {
        self.states.get(&lock).is_some_and(|s| !s.holders.is_empty())
    }

    pub fn stats(&self) -> &BTreeMap<LockClass, LockStats> {
        &self.stats
    }

    /// Locks still held or waited for (none at the end of a clean run).
    pub fn outstanding(&self) -> usize {
        self.states.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A mutex with two waiters, worked by hand: CPU 0 holds it from 100
    /// to 500; CPU 1 asks at 200 and CPU 2 at 300; CPU 1 holds it from 500
    /// to 650, CPU 2 from 650 to 700. Three acquisitions, two found it held,
    /// waits 300 and 350 (650 in all, 325 mean), holds 400 + 150 + 50.
    #[test]
    fn a_mutex_with_two_waiters() {
        let mut l = Locks::new();
        assert_eq!(l.acquire(Lock::Hat, Mode::Exclusive, 0, 100), Acquire::Held);
        assert_eq!(l.acquire(Lock::Hat, Mode::Exclusive, 1, 200), Acquire::Queued);
        assert_eq!(l.acquire(Lock::Hat, Mode::Exclusive, 2, 300), Acquire::Queued);
        assert_eq!(l.release(Lock::Hat, 0, 500).expect("worked by hand"), vec![1]);
        assert!(l.holds(Lock::Hat, 1));
        assert_eq!(l.release(Lock::Hat, 1, 650).expect("worked by hand"), vec![2]);
        assert_eq!(l.release(Lock::Hat, 2, 700).expect("worked by hand"), Vec::<usize>::new());
        let s = l.stats()[&LockClass::HatLock];
        assert_eq!(s, LockStats { acquisitions: 3, contended: 2, wait_cycles: 650, hold_cycles: 600 });
        assert_eq!(s.contention(), 2.0 / 3.0);
        assert_eq!(s.mean_wait(), 325.0);
        assert_eq!(l.outstanding(), 0);
    }

    #[test]
    fn readers_share_and_a_writer_waits_for_all_of_them() {
        let mut l = Locks::new();
        let a = Lock::As(Asid(7));
        assert_eq!(l.acquire(a, Mode::Shared, 0, 0), Acquire::Held);
        assert_eq!(l.acquire(a, Mode::Shared, 1, 10), Acquire::Held);
        assert_eq!(l.acquire(a, Mode::Exclusive, 2, 20), Acquire::Queued);
        // A reader behind a waiting writer waits too.
        assert_eq!(l.acquire(a, Mode::Shared, 3, 30), Acquire::Queued);
        assert_eq!(l.release(a, 0, 40).expect("worked by hand"), Vec::<usize>::new());
        assert_eq!(l.release(a, 1, 50).expect("worked by hand"), vec![2]);
        assert_eq!(l.release(a, 2, 60).expect("worked by hand"), vec![3]);
        assert_eq!(l.release(a, 3, 70).expect("worked by hand"), Vec::<usize>::new());
        let s = l.stats()[&LockClass::AsLock];
        assert_eq!((s.acquisitions, s.contended, s.wait_cycles), (4, 2, 30 + 30));
    }

    #[test]
    fn releasing_a_lock_not_held_is_an_error() {
        let mut l = Locks::new();
        assert!(l.release(Lock::Pidlock, 0, 1).is_err());
        l.acquire(Lock::Pidlock, Mode::Exclusive, 0, 0);
        assert!(l.release(Lock::Pidlock, 1, 1).is_err());
    }
}
