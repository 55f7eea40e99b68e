//! A deterministic discrete-event simulation of a multiprocessor running
//! processes whose OS operations take locks and run hat code.
//!
//! Each CPU of a `vmlab_machine::System` (its own caches and TLB) works
//! through a queue of steps: user work, kernel code, lock acquisitions and
//! releases, hat routines, shoot-downs. A step that takes time runs on that
//! CPU's caches when the CPU reaches it, and its cycles come from what it
//! did there (`price`); a lock that is held puts the CPU in the lock's line
//! until a release hands it over. Events run in time order, ties by
//! sequence number, so the same seed gives the same run.
//!
//! Processes sit on one run queue: a CPU that finishes a transaction puts
//! its process at the tail and takes the head, so processes migrate and an
//! address space's MMU descriptor list grows with the CPUs it has run on,
//! which is what a shoot-down must interrupt.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, VecDeque};

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;
use rustc_hash::FxHashMap;
use serde::Serialize;
use vmlab_addr::layout::OS_KERNEL_SPACE;
use vmlab_addr::{Asid, CpuId, Pfn, PhysAddr, VirtAddr};
use vmlab_machine::{Code, CodeFetch, Mechanism, MissClasses, OnCpu, System, Tally, MAX_LEVELS};
use vmlab_mmu::pagetable::srmmu::{LEVEL_BITS, PAGE_BYTES, TABLE_BYTES};
use vmlab_mmu::{Switch, TlbConfig};

use crate::prot::Prot;

use super::design::{Design, Guard};
use super::hat::{MpHat, LEAF_PAGES};
use super::lock::{Acquire, Lock, LockClass, LockStats, Locks, Mode};
use super::params::MpParams;
use super::workload::{Caller, OpKind, Workload};

const TEXT_VA: VirtAddr = VirtAddr(0x0001_0000);
const DATA_VA: VirtAddr = VirtAddr(0x0100_0000);
const HEAP_VA: VirtAddr = VirtAddr(0x2000_0000);
const SHM_VA: VirtAddr = VirtAddr(0x4000_0000);
/// The top page of every process's stack, where `exec` copies the
/// arguments and `main`'s frame sits: `USRSTACK` is `KERNELBASE` (a
/// Solaris-style sun4 `vmparam.h`), 0xF000_0000 in a sun4m `param.h`; a
/// level-1 region of its own, so its first fault needs level-2 and
/// level-3 tables.
pub const STACK_VA: VirtAddr = VirtAddr(0xF000_0000 - PAGE_BYTES);
/// Instructions to examine or set a logical lock's busy and wanted flags
/// under its mutex (a few loads, tests and stores).
const LOGICAL_CHECK: u64 = 12;
/// Instructions per local TLB flush of one page (an SRMMU flush-probe store).
const LOCAL_FLUSH: u64 = 4;
/// A level-2 table maps the 16 MB a level-1 entry covers: `va[23:12]`.
const L2_REGION_SHIFT: u32 = 12 + LEVEL_BITS[1] + LEVEL_BITS[2];
/// Anonymous-slot hash mutexes (Solaris `anon_hash_mutex` array size assumed).
const ANON_LOCKS: u64 = 64;

/// Which way the dispatcher moves a thread (`MpSim::dispatch`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Dispatch {
    /// `setbackdq`: a thread made runnable joins the dispatch queue.
    Enqueue,
    /// `disp`, from `swtch`: the CPU takes the best runnable thread.
    Dequeue,
}

/// A hat routine or one of its parts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HatStep {
    // The interface (section 4.1), each wrapped in the design's locks.
    Load { asid: Asid, va: VirtAddr, pfn: Pfn, prot: Prot },
    UnloadRange { asid: Asid, va: VirtAddr, pages: u64 },
    ChangeProt { asid: Asid, va: VirtAddr, pages: u64, prot: Prot },
    UnloadFrame { pfn: Pfn },
    ClearRefMod { pfn: Pfn },
    Join { asid: Asid },
    Destroy { asid: Asid },
    // Parts, under locks already held.
    Reserve { asid: Asid, va: VirtAddr },
    ReserveNow { levels: Vec<usize> },
    LoadNow { asid: Asid, va: VirtAddr, pfn: Pfn, prot: Prot },
    UnloadPages { asid: Asid, va: VirtAddr, pages: u64 },
    UnloadPageNow { asid: Asid, va: VirtAddr },
    ChangeProtPages { asid: Asid, va: VirtAddr, pages: u64, prot: Prot },
    ChangeProtPageNow { asid: Asid, va: VirtAddr, prot: Prot },
    UnloadFrameNow { pfn: Pfn },
    ShootDown { asid: Asid, pages: Vec<VirtAddr> },
    // The broadcast demaps of a shoot-down, under `srmmu_demap_mutex`.
    DemapNow { asid: Asid, pages: Vec<VirtAddr> },
    ReleaseEmptied,
    ReleaseNow { blocks: Vec<(usize, PhysAddr)> },
    JoinNow { asid: Asid },
    DestroyNow { asid: Asid },
    ClearRefModNow { pfn: Pfn },
}

/// One step of a CPU's queue.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    Lock(Lock, Mode),
    Unlock(Lock),
    Take(Guard),
    Drop(Guard),
    TryBusy {
        lock: Lock,
        mutex: Lock,
    },
    Sleep {
        lock: Lock,
        mutex: Lock,
    },
    ReleaseLogical {
        lock: Lock,
    },
    /// Kernel code of this many instructions.
    Run(u64),
    User(u64),
    Hat(HatStep),
    Copy {
        from: Pfn,
        to: Pfn,
    },
    Zero {
        pfn: Pfn,
    },
    FreeFrame {
        pfn: Pfn,
    },
    /// A user access to `va` of `asid`: a context switch to the space
    /// first if this CPU is not on its MMU list, then the SRMMU's table
    /// walk into this CPU's TLB when the hat maps the page.
    Touch {
        asid: Asid,
        va: VirtAddr,
    },
    Begin(OpKind),
    Done(OpKind),
    /// Asleep on the table pool (`MpSim::pool_wait`) until blocks come
    /// back to it or a table goes into the tree that could be stolen.
    PoolWait,
}

/// What happened to a lock, for the lock log (`MpSim::log_locks`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum LockEvent {
    Acquired(Lock),
    Queued(Lock),
    Released(Lock),
    /// A load found the table pool full and nothing to steal: it sleeps.
    PoolSleep,
    /// A load asleep on the pool runs again (at the logged time).
    PoolWoken,
}

/// Where a CPU's time went, in cycles.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct CpuTime {
    pub user: u64,
    pub kernel: u64,
    /// Waiting for a lock (spinning or asleep).
    pub lock_wait: u64,
    /// Serving other CPUs' shoot-down cross-calls.
    pub interrupts: u64,
    /// Asleep on the table pool, waiting for table memory.
    pub pool_wait: u64,
    /// Sending cross-calls and waiting for their acknowledgements.
    pub shootdown: u64,
}

/// Shoot-downs: how many, how many CPUs they interrupted, what they cost.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ShootDowns {
    pub calls: u64,
    /// Calls that interrupted at least one other CPU.
    pub remote_calls: u64,
    pub targets: u64,
    pub pages: u64,
    /// Cycles the initiators spent (sends and the wait for acknowledgements).
    pub initiator_cycles: u64,
    /// Cycles the targets lost.
    pub target_cycles: u64,
    /// Entries the targets' TLBs really held and lost.
    pub entries_purged: u64,
}

/// How a shoot-down reaches the other CPUs' TLBs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ShootDownMode {
    /// A cross-call to every other CPU on the space's MMU list (seed 003
    /// section 5.3; Solaris's sun4m port): sends, the targets' interrupts,
    /// the wait for their acknowledgements.
    #[default]
    CrossCall,
    /// One demap per page broadcast on the bus to every TLB, one at a time
    /// under the global `srmmu_demap_mutex` (Solaris 8's sun4d port,
    /// `uts/sun4d/vm/mach_srmmu.c`: `srmmu_tlbflush`): no CPU is
    /// interrupted; each demap is one bus transaction.
    BroadcastDemap,
}

impl ShootDownMode {
    pub fn parse(name: &str) -> Result<Self, String> {
        match name {
            "cross-call" => Ok(Self::CrossCall),
            "broadcast-demap" => Ok(Self::BroadcastDemap),
            other => Err(format!("unknown shoot-down {other:?}; known: cross-call, broadcast-demap")),
        }
    }
}

/// What a fork does with the parent's translations.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ForkMode {
    /// The SRMMU hat's fork, and S3's: the parent's range write-protected
    /// by one call and none of its translations copied; the child faults
    /// in what it touches. SunOS 4.1.3's `sys/vm/seg_vn.c` `segvn_dup`
    /// calls `hat_chgprot(seg, base, size, ~PROT_WRITE)` once per segment
    /// and its `as_dup` makes no hat call at all; Solaris 2.6's and 8's
    /// `uts/srmmu/vm/hat_srmmu.c` `srmmu_dup` returns 0 ("we let the
    /// forked process fault in the mappings that the parent process had"),
    /// as do 2.6's sun-mmu and PowerPC hats. The hat of seed 003 (Solaris
    /// 2.1-2.3, between those releases) is taken to do the same.
    #[default]
    WriteProtect,
    /// A named variant: after the write-protect, the hat copies every
    /// translation of the parent's range into the child, read-only, one
    /// load per page (the child's MMU descriptor and the page's locks:
    /// the page's mapping list gains the child's entry). Solaris 2.6's
    /// x86 hat does this (`uts/i86/vm/hat_i86.c` `hat_dup` under
    /// `HAT_DUP_ALL`, called by `as_dup` after the segments' dups); the
    /// SRMMU hats never did. It is what issue 21's "a fork that copies
    /// mappings" reads as when mappings means the hat's translations.
    CopyTranslations,
}

impl ForkMode {
    pub fn parse(name: &str) -> Result<Self, String> {
        match name {
            "write-protect" => Ok(Self::WriteProtect),
            "copy-translations" => Ok(Self::CopyTranslations),
            other => Err(format!("unknown fork {other:?}; known: write-protect, copy-translations")),
        }
    }
}

/// The table pool at its limit (seed 003 section 6.2): level-3 tables
/// stolen, the translations they held, the faults that loaded them again
/// when their process next ran, the loads that slept on the pool because
/// nothing could be stolen and how long they slept, and the pool's size
/// against its limit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Steals {
    pub steals: u64,
    pub pages: u64,
    pub refaults: u64,
    /// Times a load went to sleep on the pool.
    pub waits: u64,
    /// Cycles loads slept on the pool, wake-ups included.
    pub wait_cycles: u64,
    pub pool_bytes: u64,
    pub pool_limit_bytes: u64,
}

/// What an operation kind cost, start to end (locks waited for included).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct OpStats {
    pub count: u64,
    pub cycles: u64,
}

/// The outcome of a run.
#[derive(Clone, Debug, Serialize)]
pub struct MpReport {
    pub design: &'static str,
    pub cpus: usize,
    pub workload: String,
    pub memory_bytes: u64,
    pub seed: u64,
    pub transactions: u64,
    /// Simulated cycles until the last counted transaction ended.
    pub elapsed_cycles: u64,
    /// Transactions per simulated second.
    pub throughput: f64,
    pub locks: BTreeMap<&'static str, LockStats>,
    pub ops: BTreeMap<&'static str, OpStats>,
    pub time: CpuTime,
    pub shootdowns: ShootDowns,
    pub steals: Steals,
    /// Most frames in use at once (data and tables).
    pub frames_in_use: u64,
    pub table_bytes: u64,
    pub pool_free_bytes: u64,
}

#[derive(Debug, Default)]
struct CpuState {
    now: u64,
    steps: VecDeque<Step>,
    /// Waiting in a lock's line (since when).
    blocked: Option<u64>,
    /// Asleep on a logical lock examined under this mutex.
    sleeping: Option<Lock>,
    /// Asleep on the table pool (since when).
    pool_wait: Option<u64>,
    stolen: u64,
    process: Option<usize>,
    op_start: u64,
    time: CpuTime,
    idle: bool,
}

#[derive(Debug)]
struct Process {
    asid: Asid,
    program: usize,
    data: Vec<Pfn>,
    /// The frame of the stack's top page (`STACK_VA`), private to the
    /// process and copied on write after a fork.
    stack: Pfn,
}

/// A run's set-up.
#[derive(Clone, Debug)]
pub struct MpConfig {
    pub cpus: usize,
    pub design: Design,
    pub memory_bytes: u64,
    /// Transactions to complete (per CPU when the workload's load rises
    /// with the CPUs).
    pub transactions: u64,
    pub seed: u64,
}

/// The simulation.
#[derive(Debug)]
pub struct MpSim {
    p: MpParams,
    design: Design,
    system: System,
    hat: MpHat,
    locks: Locks,
    cpus: Vec<CpuState>,
    heap: BinaryHeap<Reverse<(u64, u64, usize)>>,
    seq: u64,
    procs: Vec<Process>,
    runq: VecDeque<usize>,
    rng: Pcg64Mcg,
    w: Workload,
    next_asid: u32,
    text: Vec<Vec<Pfn>>,
    shm: Vec<Pfn>,
    /// The rights each TLB entry was loaded with (the TLB model carries
    /// none), per CPU: what the invariant check compares with the hat.
    tlb_rights: Vec<FxHashMap<(Asid, VirtAddr), Prot>>,
    target: u64,
    completed: u64,
    end: Option<u64>,
    ops: BTreeMap<OpKind, OpStats>,
    shootdowns: ShootDowns,
    steals: Steals,
    peak_frames: u64,
    memory_bytes: u64,
    seed: u64,
    page: vmlab_addr::PageSize,
    /// The CPU that last touched each lock's word.
    last_toucher: FxHashMap<Lock, usize>,
    /// Every lock event by CPU and time, when logging.
    log: Option<Vec<(usize, u64, LockEvent)>>,
    shoot_down_mode: ShootDownMode,
    fork_mode: ForkMode,
    /// CPUs asleep on the table pool, in the order they went to sleep.
    pool_sleepers: Vec<usize>,
}

fn price(p: &MpParams, before: &Tally, after: &Tally) -> u64 {
    let mut cycles = (after.instructions - before.instructions) as f64 * p.cpi.value;
    for k in 0..3 {
        cycles += (after.requests[k] - before.requests[k]) as f64;
        cycles += (after.served[k][1] - before.served[k][1]) as f64 * p.l2_hit_cycles.value;
        cycles += (after.served[k][MAX_LEVELS] - before.served[k][MAX_LEVELS]) as f64 * p.memory_cycles.value;
    }
    cycles.round() as u64
}

/// The `k`th page from `base`.
fn nth_page(base: VirtAddr, k: u64) -> VirtAddr {
    VirtAddr(base.0 + k * PAGE_BYTES)
}

fn code(instructions: u64) -> Code {
    Code { start: VirtAddr(0), phys: PhysAddr(0), space: OS_KERNEL_SPACE, instructions, instruction_bytes: 4 }
}

/// What a switch between processes does to a CPU's caches and TLB
/// (`vmlab_mmu::switch`): the least the OS must do. On the SPARCcenter
/// that is nothing (the SRMMU's TLB tags an entry with its context, the
/// caches are physically tagged).
const SWITCH: Switch = Switch::Untagged;

impl MpSim {
    pub fn new(p: MpParams, w: Workload, cfg: &MpConfig) -> Result<Self, String> {
        if cfg.cpus == 0 || cfg.cpus > 64 {
            return Err(format!("mp: {} CPUs; the model runs 1 to 64", cfg.cpus));
        }
        let machine = vmlab_machine::preset::load(&p.machine, &[]).map_err(|e| e.to_string())?;
        let levels = machine.levels()?;
        let mut system = System::new(cfg.cpus, &levels, &[], MissClasses::Unsorted).map_err(|e| e.0)?;
        let mut tlb = TlbConfig::fully_associative(p.tlb_entries.value as u32, 0);
        tlb.seed = cfg.seed;
        for c in 0..cfg.cpus {
            system.cpu_mut(CpuId(c as u32)).set_tlb(tlb.clone()).map_err(|e| e.to_string())?;
        }
        let hat = MpHat::new(&p, cfg.memory_bytes, cfg.cpus)?;
        let target = if w.per_cpu_load { cfg.transactions * cfg.cpus as u64 } else { cfg.transactions };
        let mut sim = Self {
            design: cfg.design,
            system,
            hat,
            locks: Locks::new(),
            cpus: (0..cfg.cpus).map(|_| CpuState::default()).collect(),
            heap: BinaryHeap::new(),
            seq: 0,
            procs: Vec::new(),
            runq: VecDeque::new(),
            rng: Pcg64Mcg::seed_from_u64(cfg.seed),
            next_asid: 1,
            text: Vec::new(),
            shm: Vec::new(),
            tlb_rights: vec![FxHashMap::default(); cfg.cpus],
            target,
            completed: 0,
            end: None,
            ops: BTreeMap::new(),
            shootdowns: ShootDowns::default(),
            steals: Steals::default(),
            peak_frames: 0,
            memory_bytes: cfg.memory_bytes,
            seed: cfg.seed,
            page: vmlab_addr::PageSize::new(PAGE_BYTES).map_err(|e| e.to_string())?,
            last_toucher: FxHashMap::default(),
            log: None,
            shoot_down_mode: ShootDownMode::default(),
            fork_mode: ForkMode::default(),
            pool_sleepers: Vec::new(),
            p,
            w,
        };
        sim.set_up()?;
        Ok(sim)
    }

    /// Programs' text, the shared memory, and every process with its data
    /// and text loaded on the CPU it starts on (not timed).
    fn set_up(&mut self) -> Result<(), String> {
        for _ in 0..self.w.programs {
            let t = (0..self.w.text_pages).map(|_| self.alloc_frame()).collect::<Result<Vec<_>, _>>()?;
            self.text.push(t);
        }
        self.shm = (0..self.w.shared_pages).map(|_| self.alloc_frame()).collect::<Result<Vec<_>, _>>()?;
        let n = self.cpus.len() * self.w.processes_per_cpu as usize;
        self.check_pool_floor(n)?;
        for i in 0..n {
            let asid = self.fresh_asid();
            let program = i % self.text.len();
            let data = (0..self.w.data_pages).map(|_| self.alloc_frame()).collect::<Result<Vec<_>, _>>()?;
            let stack = self.alloc_frame()?;
            let cpu = CpuId((i % self.cpus.len()) as u32);
            self.hat.join(&mut self.system.on(cpu), asid, cpu);
            let mut pages: Vec<(VirtAddr, Pfn, Prot)> =
                data.iter().enumerate().map(|(k, &pfn)| (nth_page(DATA_VA, k as u64), pfn, Prot::RW)).collect();
            pages.extend(
                self.text[program].iter().enumerate().map(|(k, &pfn)| (nth_page(TEXT_VA, k as u64), pfn, Prot::R)),
            );
            pages.push((STACK_VA, stack, Prot::RW));
            for (va, pfn, prot) in pages {
                self.quiet_load(cpu, asid, va, pfn, prot)?;
            }
            self.procs.push(Process { asid, program, data, stack });
            self.runq.push_back(i);
        }
        self.peak_frames = self.hat.frames_in_use();
        for c in 0..self.cpus.len() {
            self.schedule(c, 0);
        }
        Ok(())
    }

    /// The least table pool the set-up's processes can run in: every
    /// process's level-2 tables (one per 16 MB region it maps; never
    /// stolen, as only level-3 tables are) and one level-3 table per CPU
    /// (the table a CPU's load is filling, which no steal may take), in
    /// whole frames, as the pool carves them. A pool below it could never
    /// hold the spaces' tables, whatever it stole: a clear error, as a
    /// boot-sized pool has a floor (seed 003 section 6.2: "a function of
    /// the total amount of physical memory (plus perhaps a function of
    /// the number of CPUs)").
    fn check_pool_floor(&self, processes: usize) -> Result<(), String> {
        let regions = |base: VirtAddr, pages: u64| -> u64 {
            if pages == 0 {
                return 0;
            }
            let (first, last) = (base.0 >> L2_REGION_SHIFT, nth_page(base, pages - 1).0 >> L2_REGION_SHIFT);
            last - first + 1
        };
        let per_process = regions(DATA_VA, u64::from(self.w.data_pages))
            + regions(TEXT_VA, u64::from(self.w.text_pages))
            + regions(STACK_VA, 1);
        let blocks = per_process * processes as u64 + self.cpus.len() as u64;
        let floor_frames = (blocks * TABLE_BYTES[2]).div_ceil(PAGE_BYTES);
        let limit = self.hat.pool_frames().1;
        if limit < floor_frames {
            let mb = self.memory_bytes >> 20;
            return Err(format!(
                "mp: a table pool of {} KB ({} of {mb} MB) is below its floor of {} KB: {processes} processes' \
                 {} level-2 tables, never stolen, and one level-3 table for each of {} CPUs, in whole 4 KB frames; \
                 a table_pool_fraction of at least {:.6} is needed",
                (limit * PAGE_BYTES) >> 10,
                self.p.table_pool_fraction.value,
                (floor_frames * PAGE_BYTES) >> 10,
                per_process * processes as u64,
                self.cpus.len(),
                (floor_frames * PAGE_BYTES) as f64 / self.memory_bytes as f64,
            ));
        }
        Ok(())
    }

    /// A set-up load (not timed): when the pool is full it steals a
    /// level-3 table as a timed load would, quietly (the victim's pages
    /// leave every TLB; its process faults them in again when it runs).
    fn quiet_load(&mut self, cpu: CpuId, asid: Asid, va: VirtAddr, pfn: Pfn, prot: Prot) -> Result<(), String> {
        loop {
            let levels = self.hat.blocks_wanted(cpu, asid, va);
            if self.hat.fits(&levels) {
                let mut on = self.system.on(cpu);
                self.hat.reserve(&mut on, cpu, &levels)?;
                return self.hat.load(&mut on, cpu, asid, va, pfn, prot).map(|_| ());
            }
            let Some((victim, from, mapped)) = self.hat.victim(asid, va) else {
                return Err(format!(
                    "mp: set-up found the table pool full and no table to steal loading space {} page {:#x}",
                    asid.0, va.0
                ));
            };
            self.steals.steals += 1;
            self.steals.pages += mapped;
            let mut on = self.system.on(cpu);
            let gone: Vec<VirtAddr> = (0..LEAF_PAGES)
                .map(|k| nth_page(from, k))
                .filter(|&v| self.hat.unload(&mut on, cpu, victim, v).is_some())
                .collect();
            let blocks = self.hat.take_emptied(cpu);
            self.hat.release(&mut on, &blocks);
            for t in 0..self.cpus.len() {
                self.purge_on(t, victim, &gone);
            }
        }
    }

    fn fresh_asid(&mut self) -> Asid {
        let a = Asid(self.next_asid);
        self.next_asid += 1;
        a
    }

    fn schedule(&mut self, cpu: usize, at: u64) {
        self.seq += 1;
        self.heap.push(Reverse((at, self.seq, cpu)));
    }

    /// Runs until the target number of transactions has completed.
    pub fn run(&mut self) -> Result<MpReport, String> {
        while let Some(Reverse((t, _, c))) = self.heap.pop() {
            // After the last counted transaction, CPUs finish the
            // operation they are in (locks released, shoot-downs done)
            // and start no other: the state is then quiescent.
            let cpu = &mut self.cpus[c];
            cpu.now = cpu.now.max(t);
            self.advance(c)?;
        }
        if self.completed < self.target {
            return Err(self.stuck());
        }
        Ok(self.report())
    }

    /// Why a run stopped short: every CPU left is asleep, on the table
    /// pool or on a lock.
    fn stuck(&self) -> String {
        let (carved, limit) = self.hat.pool_frames();
        format!(
            "mp: {} of {} transactions done when no CPU could go on: {} asleep on the table pool ({} of its {} KB \
             carved, {} KB free), {} waiting for a lock; the pool is too small for this workload on {} CPUs",
            self.completed,
            self.target,
            self.pool_sleepers.len(),
            (carved * PAGE_BYTES) >> 10,
            (limit * PAGE_BYTES) >> 10,
            self.hat.pool_free_bytes() >> 10,
            self.cpus.iter().filter(|c| c.blocked.is_some()).count(),
            self.cpus.len()
        )
    }

    /// Takes steps on CPU `c` until one takes time or blocks.
    fn advance(&mut self, c: usize) -> Result<(), String> {
        loop {
            if self.cpus[c].stolen > 0 {
                let s = std::mem::take(&mut self.cpus[c].stolen);
                self.cpus[c].now += s;
                let now = self.cpus[c].now;
                self.schedule(c, now);
                return Ok(());
            }
            let Some(step) = self.cpus[c].steps.pop_front() else {
                if self.completed >= self.target {
                    self.cpus[c].idle = true;
                    return Ok(());
                }
                self.next_transaction(c)?;
                continue;
            };
            let now = self.cpus[c].now;
            match step {
                Step::Lock(l, mode) => match self.locks.acquire(l, mode, c, now) {
                    Acquire::Held => {
                        self.note(c, now, LockEvent::Acquired(l));
                        let cost = self.atomic(l, c);
                        return self.spend_kernel(c, cost);
                    }
                    Acquire::Queued => {
                        self.note(c, now, LockEvent::Queued(l));
                        self.cpus[c].blocked = Some(now);
                        return Ok(());
                    }
                },
                Step::Unlock(l) => {
                    self.note(c, now, LockEvent::Released(l));
                    let cost = self.atomic(l, c);
                    for w in self.locks.release(l, c, now)? {
                        let handoff = self.atomic(l, w);
                        self.wake(w, now, handoff);
                    }
                    return self.spend_kernel(c, cost);
                }
                Step::Take(g) => match g {
                    Guard::None => {}
                    Guard::Mutex(l) => self.cpus[c].steps.push_front(Step::Lock(l, Mode::Exclusive)),
                    Guard::Logical { lock, mutex } => self.push_front(
                        c,
                        vec![
                            Step::Lock(mutex, Mode::Exclusive),
                            Step::Run(LOGICAL_CHECK),
                            Step::TryBusy { lock, mutex },
                        ],
                    ),
                },
                Step::Drop(g) => match g {
                    Guard::None => {}
                    Guard::Mutex(l) => self.cpus[c].steps.push_front(Step::Unlock(l)),
                    Guard::Logical { lock, mutex } => self.push_front(
                        c,
                        vec![
                            Step::Lock(mutex, Mode::Exclusive),
                            Step::Run(LOGICAL_CHECK),
                            Step::ReleaseLogical { lock },
                            Step::Unlock(mutex),
                        ],
                    ),
                },
                Step::TryBusy { lock, mutex } => {
                    // The busy flag is the logical lock's holder; a busy
                    // lock sets wanted (our place in its line) and sleeps
                    // once the mutex is released.
                    match self.locks.acquire(lock, Mode::Exclusive, c, now) {
                        Acquire::Held => {
                            self.note(c, now, LockEvent::Acquired(lock));
                            self.cpus[c].steps.push_front(Step::Unlock(mutex))
                        }
                        Acquire::Queued => {
                            self.note(c, now, LockEvent::Queued(lock));
                            self.push_front(c, vec![Step::Unlock(mutex), Step::Sleep { lock, mutex }])
                        }
                    }
                }
                Step::Sleep { lock, mutex } => {
                    if !self.locks.holds(lock, c) {
                        self.cpus[c].sleeping = Some(mutex);
                        self.cpus[c].blocked = Some(now);
                        return Ok(());
                    }
                }
                Step::ReleaseLogical { lock } => {
                    self.note(c, now, LockEvent::Released(lock));
                    for w in self.locks.release(lock, c, now)? {
                        self.wake(w, now, self.p.wakeup_cycles.value as u64);
                    }
                }
                Step::Run(n) => {
                    let cyc = self.on_cpu(c, Mechanism::VmBookkeeping, |on, _| {
                        on.run_code(code(n), CodeFetch::Counted);
                    });
                    return self.spend_kernel(c, cyc);
                }
                Step::User(n) => {
                    self.cpus[c].time.user += n;
                    self.cpus[c].now += n;
                    let t = self.cpus[c].now;
                    self.schedule(c, t);
                    return Ok(());
                }
                Step::Copy { from, to } => {
                    let page = self.page;
                    let cyc = self.on_cpu(c, Mechanism::CopyLoop, |on, _| {
                        on.run_code(code(PAGE_BYTES / 4 * 2), CodeFetch::Counted);
                        for off in (0..PAGE_BYTES).step_by(4) {
                            let (s, d) = (page.frame_base(from).0 + off, page.frame_base(to).0 + off);
                            on.load(VirtAddr(s), PhysAddr(s), OS_KERNEL_SPACE, 4);
                            on.store(VirtAddr(d), PhysAddr(d), OS_KERNEL_SPACE, 4);
                        }
                    });
                    return self.spend_kernel(c, cyc);
                }
                Step::Zero { pfn } => {
                    let page = self.page;
                    let cyc = self.on_cpu(c, Mechanism::ZeroLoop, |on, _| {
                        on.run_code(code(PAGE_BYTES / 4), CodeFetch::Counted);
                        for off in (0..PAGE_BYTES).step_by(4) {
                            let d = page.frame_base(pfn).0 + off;
                            on.store(VirtAddr(d), PhysAddr(d), OS_KERNEL_SPACE, 4);
                        }
                    });
                    return self.spend_kernel(c, cyc);
                }
                Step::FreeFrame { pfn } => self.hat.free_frame(pfn)?,
                Step::Touch { asid, va } => {
                    let me = CpuId(c as u32);
                    if !self.hat.space(asid).is_some_and(|s| s.mmus.contains(&me)) {
                        let mut steps = self.call(HatStep::Join { asid });
                        steps.push(Step::Touch { asid, va });
                        self.push_front(c, steps);
                        continue;
                    }
                    let page = self.page;
                    let (pfn, prot) = (self.hat.lookup(asid, va), self.hat.prot_of(asid, va));
                    let cyc = self.on_cpu(c, Mechanism::UserPte, |on, hat| {
                        let mut refs = Vec::new();
                        let _ = hat.table().walk(asid, va, &mut refs);
                        for r in &refs {
                            if let vmlab_mmu::PteAddr::Physical(pa) = r.at {
                                on.load(VirtAddr(pa.0), pa, OS_KERNEL_SPACE, u64::from(r.bytes));
                            }
                        }
                        if let (Some(pfn), Some(tlb)) = (pfn, on.cpu().tlb_mut()) {
                            let e = vmlab_mmu::TlbEntry::new(asid, va, page.frame_base(pfn), page);
                            let _ = tlb.insert(e, vmlab_mmu::Slot::Normal);
                        }
                    });
                    if let (Some(_), Some(prot)) = (pfn, prot) {
                        self.tlb_rights[c].insert((asid, self.page.page_start(va)), prot);
                    }
                    self.cpus[c].time.user += cyc;
                    self.cpus[c].now += cyc;
                    let t = self.cpus[c].now;
                    self.schedule(c, t);
                    return Ok(());
                }
                Step::PoolWait => {
                    self.note(c, now, LockEvent::PoolSleep);
                    self.steals.waits += 1;
                    self.cpus[c].pool_wait = Some(now);
                    self.pool_sleepers.push(c);
                    return Ok(());
                }
                Step::Begin(_) => self.cpus[c].op_start = now,
                Step::Done(kind) => {
                    let s = self.ops.entry(kind).or_default();
                    s.count += 1;
                    s.cycles += now - self.cpus[c].op_start;
                }
                Step::Hat(h) => {
                    if let Some(cyc) = self.hat_step(c, h)? {
                        return self.spend_kernel(c, cyc);
                    }
                }
            }
        }
    }

    fn note(&mut self, c: usize, at: u64, e: LockEvent) {
        if let Some(log) = &mut self.log {
            log.push((c, at, e));
        }
    }

    /// The atomic on `lock`'s word by CPU `c`: a hit in its own SuperCache
    /// when it was the last to touch the word, else the line comes over
    /// the bus (`atomic_cycles`).
    fn atomic(&mut self, lock: Lock, c: usize) -> u64 {
        match self.last_toucher.insert(lock, c) {
            Some(prev) if prev == c => self.p.l2_hit_cycles.value as u64,
            _ => self.p.atomic_cycles.value as u64,
        }
    }

    fn push_front(&mut self, c: usize, steps: Vec<Step>) {
        let q = &mut self.cpus[c].steps;
        for s in steps.into_iter().rev() {
            q.push_front(s);
        }
    }

    fn spend_kernel(&mut self, c: usize, cycles: u64) -> Result<(), String> {
        let cpu = &mut self.cpus[c];
        cpu.time.kernel += cycles;
        cpu.now += cycles;
        let t = cpu.now;
        self.schedule(c, t);
        Ok(())
    }

    /// CPU `w` was handed a lock at `at`: it runs again `delay` later.
    fn wake(&mut self, w: usize, at: u64, delay: u64) {
        let cpu = &mut self.cpus[w];
        if let Some(since) = cpu.blocked.take() {
            cpu.time.lock_wait += at.saturating_sub(since) + delay;
            let asleep = cpu.sleeping.take();
            cpu.now = cpu.now.max(at) + delay;
            let t = cpu.now;
            if let Some(mutex) = asleep {
                // The monitor: a woken sleeper takes the mutex again to
                // set the busy flag for itself.
                self.push_front(
                    w,
                    vec![Step::Lock(mutex, Mode::Exclusive), Step::Run(LOGICAL_CHECK), Step::Unlock(mutex)],
                );
            }
            self.schedule(w, t);
        }
        // A CPU not yet blocked (between queuing and sleeping) finds the
        // lock held at its `Sleep` step.
    }

    /// The table pool changed at `at` (blocks came back, or a table went
    /// into the tree that a load could steal): every CPU asleep on it
    /// runs again `wakeup_cycles` later and tries its reserve again
    /// (a broadcast: each sleeper checks the pool for itself).
    fn wake_pool(&mut self, at: u64) {
        let delay = self.p.wakeup_cycles.value as u64;
        for w in std::mem::take(&mut self.pool_sleepers) {
            let cpu = &mut self.cpus[w];
            let Some(since) = cpu.pool_wait.take() else { continue };
            let slept = at.saturating_sub(since) + delay;
            cpu.time.pool_wait += slept;
            self.steals.wait_cycles += slept;
            cpu.now = cpu.now.max(at) + delay;
            let t = cpu.now;
            self.note(w, t, LockEvent::PoolWoken);
            self.schedule(w, t);
        }
    }

    /// Runs `f` on CPU `c` under mechanism `m`; returns its cycles.
    fn on_cpu(&mut self, c: usize, m: Mechanism, f: impl FnOnce(&mut OnCpu<'_>, &mut MpHat)) -> u64 {
        let mut on = self.system.on(CpuId(c as u32));
        let before = on.ledger().total();
        let prev = on.ledger().enter(m);
        f(&mut on, &mut self.hat);
        on.ledger().leave(prev);
        let after = on.ledger().total();
        price(&self.p, &before, &after)
    }

    /// The next transaction of the process at the head of the run queue.
    fn next_transaction(&mut self, c: usize) -> Result<(), String> {
        let ran = self.cpus[c].process;
        if let Some(prev) = self.cpus[c].process.take() {
            self.completed += 1;
            self.peak_frames = self.peak_frames.max(self.hat.frames_in_use());
            if self.completed >= self.target {
                self.end = Some(self.cpus[c].now);
                return Ok(());
            }
            self.runq.push_back(prev);
        }
        let Some(pi) = self.runq.pop_front() else {
            self.cpus[c].idle = true;
            return Ok(());
        };
        self.cpus[c].process = Some(pi);
        let asid = self.procs[pi].asid;
        let mut steps = Vec::new();
        if ran.is_some_and(|r| self.procs[r].asid != asid) {
            let Ok(_) = SWITCH.apply(&mut self.system.on(CpuId(c as u32)));
        }
        // Switching to the process: its MMU descriptor joins this CPU
        // (a hat call when new), and its working set fills the TLB.
        if !self.hat.space(asid).is_some_and(|s| s.mmus.contains(&CpuId(c as u32))) {
            steps.extend(self.call(HatStep::Join { asid }));
        }
        steps.extend(self.refaults(pi));
        self.touch_working_set(c, pi);
        let mean = self.w.user_cycles * self.p.user_work_scale.value;
        let user = if mean > 0.0 { (-(1.0 - self.rng.gen::<f64>()).ln() * mean).round() as u64 } else { 0 };
        steps.push(Step::User(user));
        for k in 0..self.w.ops.len() {
            let (kind, bytes, per) = (self.w.ops[k].kind, self.w.ops[k].bytes, self.w.ops[k].per_transaction);
            let mut n = per.floor() as u64;
            if self.rng.gen::<f64>() < per.fract() {
                n += 1;
            }
            for _ in 0..n {
                steps.push(Step::Begin(kind));
                let op = self.op(pi, kind, bytes, self.w.ops[k].caller)?;
                steps.extend(op);
                steps.push(Step::Done(kind));
            }
        }
        self.cpus[c].steps.extend(steps);
        Ok(())
    }

    /// Minor faults that load again the pages of process `pi` a steal
    /// unloaded (between its transactions its data and text are all
    /// loaded, and its operations use them): the cost of a pool too small
    /// (seed 003 section 6.2). Faulting them in here, rather than leaving
    /// them out, keeps a steal from making the victim's next fork or exec
    /// cheaper by the pages it no longer maps.
    fn refaults(&mut self, pi: usize) -> Vec<Step> {
        let (asid, prog) = (self.procs[pi].asid, self.procs[pi].program);
        let (fault, per_page) = (self.p.path.fault.value as u64, self.p.path.per_page_vm.value as u64);
        let mut want: Vec<(VirtAddr, Pfn, Prot)> = (self.procs[pi].data.iter().enumerate())
            .map(|(k, &f)| (nth_page(DATA_VA, k as u64), f, Prot::RW))
            .collect();
        want.extend(self.text[prog].iter().enumerate().map(|(k, &f)| (nth_page(TEXT_VA, k as u64), f, Prot::R)));
        want.push((STACK_VA, self.procs[pi].stack, Prot::RW));
        let mut s = Vec::new();
        for (va, pfn, prot) in want {
            if self.hat.lookup(asid, va).is_some() {
                continue;
            }
            self.steals.refaults += 1;
            // A fault: `as_fault` holds the space's lock as reader
            // across the segment driver's hat load.
            let mut f = vec![Step::Run(fault), Step::Run(per_page)];
            f.extend(self.call(HatStep::Load { asid, va, pfn, prot }));
            s.extend(Self::under_a_lock(asid, Mode::Shared, f));
        }
        s
    }

    /// The process's first data pages and text page enter the TLB (the
    /// hardware walker's refills as it runs; not timed).
    fn touch_working_set(&mut self, c: usize, pi: usize) {
        let asid = self.procs[pi].asid;
        let mut pages: Vec<VirtAddr> = (0..self.w.data_pages.min(8)).map(|k| nth_page(DATA_VA, u64::from(k))).collect();
        pages.extend([TEXT_VA, STACK_VA]);
        for at in pages {
            let (Some(pfn), Some(prot)) = (self.hat.lookup(asid, at), self.hat.prot_of(asid, at)) else { continue };
            if let Some(tlb) = self.system.cpu_mut(CpuId(c as u32)).tlb_mut() {
                if tlb.probe(asid, at).is_none() {
                    let e = vmlab_mmu::TlbEntry::new(asid, at, self.page.frame_base(pfn), self.page);
                    let _ = tlb.insert(e, vmlab_mmu::Slot::Normal);
                }
                self.tlb_rights[c].insert((asid, at), prot);
            }
        }
    }

    /// The private segments a fork duplicates: process `pi`'s first
    /// `pages` data pages and its stack's top page, each (start, frames).
    fn private_segments(&self, pi: usize, pages: u64) -> [(VirtAddr, Vec<Pfn>); 2] {
        let pr = &self.procs[pi];
        [(DATA_VA, pr.data[..pages as usize].to_vec()), (STACK_VA, vec![pr.stack])]
    }

    /// `as_dup` of process `pi`'s first `pages` data pages and its stack
    /// into the new space `child`: the parent's lock as writer, then the
    /// child's, both held to the end. Each segment (data, then stack:
    /// both private, copy-on-write) is write-protected by one call
    /// (segvn_dup's hat_chgprot over the segment) and each of its anon
    /// slots gains a reference; the child's translations are not copied
    /// under `ForkMode::WriteProtect` (the sources there: the SRMMU hat's
    /// hat_dup does nothing and the child faults its pages in when it
    /// runs), copied read-only under `CopyTranslations`.
    fn as_dup(&self, pi: usize, child: Asid, pages: u64) -> Vec<Step> {
        let asid = self.procs[pi].asid;
        let (as_hold, anon_hold, per_page) =
            (self.p.lock.as_lock.value as u64, self.p.lock.anon.value as u64, self.p.path.per_page_vm.value as u64);
        let segments = self.private_segments(pi, pages);
        let mut dup = vec![Step::Run(as_hold)];
        for (va, frames) in &segments {
            dup.extend(self.call(HatStep::ChangeProt { asid, va: *va, pages: frames.len() as u64, prot: Prot::R }));
            for pfn in frames {
                let anon = Lock::Anon((pfn.0 % ANON_LOCKS) as u32);
                dup.extend([Step::Lock(anon, Mode::Exclusive), Step::Run(anon_hold), Step::Unlock(anon)]);
                dup.push(Step::Run(per_page));
            }
        }
        if self.fork_mode == ForkMode::CopyTranslations {
            // `hat_dup` after the segments' dups, still under both writer
            // locks (Solaris 2.6 `as_dup`).
            for (start, frames) in &segments {
                for (k, &pfn) in frames.iter().enumerate() {
                    let va = nth_page(*start, k as u64);
                    dup.extend(self.call(HatStep::Load { asid: child, va, pfn, prot: Prot::R }));
                }
            }
        }
        let dup = Self::under_a_lock(child, Mode::Exclusive, dup);
        Self::under_a_lock(asid, Mode::Exclusive, dup)
    }

    /// The forked child's first return to user mode reads its stack:
    /// `cfork` flushed the parent's register windows to the stack before
    /// `as_dup` (Solaris 8 `uts/common/os/fork.c`,
    /// `flush_user_windows_to_stack`), so the child's window is filled
    /// from its stack's top page, which its space does not map (the SRMMU
    /// hat copies no translation): a read fault under `as_fault`'s reader
    /// lock loads the still-shared page read-only (`segvn_fault`: an anon
    /// slot with two references is never mapped writable). Under
    /// `ForkMode::CopyTranslations` the page is already mapped.
    fn child_stack_read(&self, pi: usize, child: Asid) -> Vec<Step> {
        if self.fork_mode == ForkMode::CopyTranslations {
            return Vec::new();
        }
        let (fault, per_page) = (self.p.path.fault.value as u64, self.p.path.per_page_vm.value as u64);
        let pfn = self.procs[pi].stack;
        let mut f = vec![Step::Run(fault), Step::Run(per_page)];
        f.extend(self.call(HatStep::Load { asid: child, va: STACK_VA, pfn, prot: Prot::R }));
        Self::under_a_lock(child, Mode::Shared, f)
    }

    /// The parent's first store to its stack after the child has gone:
    /// `wait(&status)` stores the status into `main`'s frame (BSD
    /// `forks.c` and `execs.c` loop on `wait(&status)`), so one
    /// protection fault on the stack's top page, which `as_dup`
    /// write-protected. The child has exited (Solaris's `ts_forkret` puts
    /// the parent back on the dispatch queue and runs the child first;
    /// `_exit` frees its space), so the anon slot has one reference again
    /// and the fault copies nothing: it reloads the page writable (SunOS
    /// 4.1.3 `segvn_faultpage`: `anon_getpage` grants write to an
    /// unshared slot), an upgrade with no shoot-down.
    fn parent_stack_write(&self, pi: usize) -> Vec<Step> {
        let (fault, per_page) = (self.p.path.fault.value as u64, self.p.path.per_page_vm.value as u64);
        let (asid, pfn) = (self.procs[pi].asid, self.procs[pi].stack);
        let mut f = vec![Step::Run(fault), Step::Run(per_page)];
        f.extend(self.call(HatStep::Load { asid, va: STACK_VA, pfn, prot: Prot::RW }));
        Self::under_a_lock(asid, Mode::Shared, f)
    }

    /// `as_free` of a fork's copy (`as_dup`'s `child`) of `pages` data
    /// pages and the stack: its lock as writer across the unloads and the
    /// hat's teardown.
    fn free_copy(&self, child: Asid, pages: u64) -> Vec<Step> {
        let mut free = self.call(HatStep::UnloadRange { asid: child, va: DATA_VA, pages });
        free.extend(self.call(HatStep::UnloadRange { asid: child, va: STACK_VA, pages: 1 }));
        free.extend(self.call(HatStep::Destroy { asid: child }));
        Self::under_a_lock(child, Mode::Exclusive, free)
    }

    /// The dispatcher putting a thread on the dispatch queue (`setbackdq`)
    /// or taking one off to run (`disp`), each under its scheduling lock.
    fn dispatch(&self, queue: Dispatch) -> Vec<Step> {
        let hold = match queue {
            Dispatch::Enqueue => self.p.lock.disp_enqueue.value,
            Dispatch::Dequeue => self.p.lock.disp_dequeue.value,
        } as u64;
        vec![Step::Lock(Lock::Dispatcher, Mode::Exclusive), Step::Run(hold), Step::Unlock(Lock::Dispatcher)]
    }

    /// A child's exec of the null program `prog` into the new space
    /// `child`, and the null program's exit (4.3BSD-Net/2 `nulljob.c`:
    /// `main` calls `exit(0)`), as SunOS 4.1.3's `kern_exec.c` `getxfile`
    /// builds it (`as_alloc`, the stack and text `as_map`s), after
    /// `release` gives up the space the child had.
    fn null_job(&mut self, child: Asid, prog: usize, release: Vec<Step>) -> Result<Vec<Step>, String> {
        let p = self.p.path.clone();
        let (syscall, fault, per_page) = (p.syscall.value as u64, p.fault.value as u64, p.per_page_vm.value as u64);
        let (free_hold, as_hold, vnode_hold) =
            (self.p.lock.freemem.value as u64, self.p.lock.as_lock.value as u64, self.p.lock.vnode.value as u64);
        let locked = |lock: Lock, n: u64| vec![Step::Lock(lock, Mode::Exclusive), Step::Run(n), Step::Unlock(lock)];
        let (reader, writer) = (Mode::Shared, Mode::Exclusive);
        let stack = self.alloc_frame()?;
        let mut s = Vec::new();
        s.push(Step::Run(syscall + p.exec.value as u64));
        s.extend(locked(Lock::Vnode(prog as u32), vnode_hold));
        s.extend(release);
        // The segments mapped under the new space's writer lock,
        // no translation yet.
        s.extend(Self::under_a_lock(child, writer, vec![Step::Run(as_hold)]));
        // `getxfile` prefaults the whole text when it fits
        // (`PREREAD`), under `as_fault`'s reader lock, as exec's
        // new image does; the null program's text is the
        // workload's program (its size the workload's assumption).
        let text = u64::from(self.w.text_pages);
        for k in 0..text {
            let pfn = self.text[prog][k as usize];
            let load = self.call(HatStep::Load { asid: child, va: nth_page(TEXT_VA, k), pfn, prot: Prot::R });
            s.extend(Self::under_a_lock(child, reader, load));
        }
        // `execve` copies the arguments out to the new stack
        // (`suword`, `copyoutstr`): one zero-filled page.
        let mut f = vec![Step::Run(fault)];
        f.extend(locked(Lock::Freemem, free_hold));
        f.push(Step::Zero { pfn: stack });
        f.push(Step::Run(per_page));
        f.extend(self.call(HatStep::Load { asid: child, va: STACK_VA, pfn: stack, prot: Prot::RW }));
        s.extend(Self::under_a_lock(child, reader, f));
        // `nulljob` exits: `as_free` as writer across the unloads,
        // the stack page's release and the hat's teardown; the
        // parent, woken, reaps it.
        s.push(Step::Run(p.exit.value as u64));
        let mut free = vec![Step::Run(as_hold)];
        free.extend(self.call(HatStep::UnloadRange { asid: child, va: TEXT_VA, pages: text }));
        free.extend(self.call(HatStep::UnloadRange { asid: child, va: STACK_VA, pages: 1 }));
        free.extend(locked(Lock::Freemem, free_hold));
        free.push(Step::FreeFrame { pfn: stack });
        free.extend(self.call(HatStep::Destroy { asid: child }));
        s.extend(Self::under_a_lock(child, writer, free));
        // The exiting thread's last switch (`thread_exit`,
        // `swtch_from_zombie`) takes the parent off the dispatch queue.
        s.extend(self.dispatch(Dispatch::Dequeue));
        Ok(s)
    }

    /// `steps` run with `asid`'s `a_lock` held in `mode` by the VM system
    /// (`as_fault` as reader; `as_dup`, `as_free`, `as_map` and
    /// `as_unmap` as writer: Solaris 8 `uts/common/vm/vm_as.c`).
    pub fn under_a_lock(asid: Asid, mode: Mode, steps: Vec<Step>) -> Vec<Step> {
        let mut s = Vec::with_capacity(steps.len() + 2);
        s.push(Step::Lock(Lock::As(asid), mode));
        s.extend(steps);
        s.push(Step::Unlock(Lock::As(asid)));
        s
    }

    /// A hat interface call wrapped in the design's locks. The address
    /// space's `a_lock` is not among them: the VM system holds it across
    /// the call (`under_a_lock`), as Solaris's `as_*` routines do around
    /// the segment drivers' hat calls, and the lock is not recursive.
    pub fn call(&self, h: HatStep) -> Vec<Step> {
        let d = self.design;
        if let Some(global) = d.global() {
            return vec![
                Step::Lock(global, Mode::Exclusive),
                Step::Hat(h),
                Step::Hat(HatStep::ReleaseEmptied),
                Step::Unlock(global),
            ];
        }
        match h {
            HatStep::Load { asid, va, pfn, prot } => vec![
                Step::Take(d.mmu(asid)),
                Step::Take(d.page(pfn)),
                Step::Hat(HatStep::Reserve { asid, va }),
                Step::Hat(HatStep::LoadNow { asid, va, pfn, prot }),
                Step::Drop(d.page(pfn)),
                Step::Drop(d.mmu(asid)),
            ],
            HatStep::UnloadRange { asid, va, pages } => vec![
                Step::Take(d.mmu(asid)),
                Step::Hat(HatStep::UnloadPages { asid, va, pages }),
                Step::Drop(d.mmu(asid)),
            ],
            HatStep::ChangeProt { asid, va, pages, prot } => vec![
                Step::Take(d.mmu(asid)),
                Step::Hat(HatStep::ChangeProtPages { asid, va, pages, prot }),
                Step::Drop(d.mmu(asid)),
            ],
            HatStep::UnloadFrame { pfn } => vec![
                Step::Take(d.page(pfn)),
                Step::Hat(HatStep::UnloadFrameNow { pfn }),
                Step::Drop(d.page(pfn)),
                Step::Hat(HatStep::ReleaseEmptied),
            ],
            HatStep::ClearRefMod { pfn } => {
                vec![Step::Take(d.page(pfn)), Step::Hat(HatStep::ClearRefModNow { pfn }), Step::Drop(d.page(pfn))]
            }
            // The MMU list grows when a CPU switches to the space: the
            // switch path, inside no VM section, takes the space's lock
            // as writer for it. The seed is the source: section 4.4, "a
            // reader lock is held to traverse the list, while a writer
            // lock is needed to add or remove from the list", and section
            // 5.3, "the address space descriptor already had a
            // readers-writers lock as part of the VM system, so we used
            // this lock to control traversals of the MMU descriptor list".
            // Under the single lock the hat lock guards the list instead.
            HatStep::Join { asid } => vec![
                Step::Lock(Lock::As(asid), Mode::Exclusive),
                Step::Hat(HatStep::JoinNow { asid }),
                Step::Unlock(Lock::As(asid)),
            ],
            HatStep::Destroy { asid } => vec![
                Step::Take(d.mmu(asid)),
                Step::Hat(HatStep::DestroyNow { asid }),
                Step::Drop(d.mmu(asid)),
                Step::Hat(HatStep::ReleaseEmptied),
            ],
            other => vec![Step::Hat(other)],
        }
    }

    /// Runs one hat step on CPU `c`: either it expands into further steps
    /// (`None`) or it ran, for the cycles returned.
    fn hat_step(&mut self, c: usize, h: HatStep) -> Result<Option<u64>, String> {
        let cpu = CpuId(c as u32);
        let d = self.design;
        let single = d.global().is_some();
        match h {
            HatStep::Load { asid, va, pfn, prot } if single => {
                self.push_front(
                    c,
                    vec![Step::Hat(HatStep::Reserve { asid, va }), Step::Hat(HatStep::LoadNow { asid, va, pfn, prot })],
                );
                Ok(None)
            }
            HatStep::UnloadRange { asid, va, pages } if single => {
                self.cpus[c].steps.push_front(Step::Hat(HatStep::UnloadPages { asid, va, pages }));
                Ok(None)
            }
            HatStep::ChangeProt { asid, va, pages, prot } if single => {
                self.cpus[c].steps.push_front(Step::Hat(HatStep::ChangeProtPages { asid, va, pages, prot }));
                Ok(None)
            }
            HatStep::UnloadFrame { pfn } if single => {
                self.cpus[c].steps.push_front(Step::Hat(HatStep::UnloadFrameNow { pfn }));
                Ok(None)
            }
            HatStep::ClearRefMod { pfn } if single => {
                self.cpus[c].steps.push_front(Step::Hat(HatStep::ClearRefModNow { pfn }));
                Ok(None)
            }
            HatStep::Join { asid } if single => {
                self.cpus[c].steps.push_front(Step::Hat(HatStep::JoinNow { asid }));
                Ok(None)
            }
            HatStep::Destroy { asid } if single => {
                self.cpus[c].steps.push_front(Step::Hat(HatStep::DestroyNow { asid }));
                Ok(None)
            }
            HatStep::Load { .. }
            | HatStep::UnloadRange { .. }
            | HatStep::ChangeProt { .. }
            | HatStep::UnloadFrame { .. }
            | HatStep::ClearRefMod { .. }
            | HatStep::Join { .. }
            | HatStep::Destroy { .. } => {
                let steps = self.call(h);
                self.push_front(c, steps);
                Ok(None)
            }
            HatStep::Reserve { asid, va } => {
                let levels = self.hat.blocks_wanted(cpu, asid, va);
                if levels.is_empty() {
                    return Ok(None);
                }
                if !self.hat.fits(&levels) {
                    if let Some((victim, from, mapped)) = self.hat.victim(asid, va) {
                        self.steals.steals += 1;
                        self.steals.pages += mapped;
                        let unload = HatStep::UnloadRange { asid: victim, va: from, pages: LEAF_PAGES };
                        if single {
                            // Under the hat lock already: unload the victim
                            // and return its tables before taking blocks.
                            let steps = vec![
                                Step::Hat(HatStep::UnloadPages { asid: victim, va: from, pages: LEAF_PAGES }),
                                Step::Hat(HatStep::ReleaseEmptied),
                                Step::Hat(HatStep::Reserve { asid, va }),
                            ];
                            self.push_front(c, steps);
                        } else {
                            // The steal takes the victim's MMU and page
                            // locks, so the load first lets go of its own
                            // (no hat lock is held while waiting for another
                            // space's), steals as an ordinary unload, and
                            // starts again. Its caller's `a_lock` stays held;
                            // the victim's is not taken (only the VM takes
                            // `a_lock`, before any hat lock).
                            let (mut steps, load) = self.back_out_of_load(c, asid, va)?;
                            steps.extend(self.call(unload));
                            steps.extend(self.call(load));
                            self.push_front(c, steps);
                        }
                        return Ok(None);
                    }
                    // Nothing to steal: every other table is in another
                    // CPU's hands (taken for its load, or emptied by its
                    // unload and not yet returned). A fixed pool cannot
                    // carve beyond its limit, so the load sleeps on the
                    // pool, letting go of its hat locks as a condition
                    // variable's wait lets go of its mutex, and starts
                    // again when woken.
                    let steps = if let Some(global) = d.global() {
                        vec![
                            Step::Unlock(global),
                            Step::PoolWait,
                            Step::Lock(global, Mode::Exclusive),
                            Step::Hat(HatStep::Reserve { asid, va }),
                        ]
                    } else {
                        let (mut steps, load) = self.back_out_of_load(c, asid, va)?;
                        steps.push(Step::PoolWait);
                        steps.extend(self.call(load));
                        steps
                    };
                    self.push_front(c, steps);
                    return Ok(None);
                }
                let mut steps = Vec::new();
                if single {
                    steps.push(Step::Hat(HatStep::ReserveNow { levels }));
                } else {
                    // One acquisition per distinct free-list lock.
                    let mut by_lock: BTreeMap<Lock, Vec<usize>> = BTreeMap::new();
                    for l in levels {
                        if let Some(lock) = d.resource(l) {
                            by_lock.entry(lock).or_default().push(l);
                        }
                    }
                    for (lock, levels) in by_lock {
                        steps.push(Step::Lock(lock, Mode::Exclusive));
                        steps.push(Step::Hat(HatStep::ReserveNow { levels }));
                        steps.push(Step::Unlock(lock));
                    }
                }
                self.push_front(c, steps);
                Ok(None)
            }
            HatStep::ReserveNow { levels } => {
                // The pool was looked at before its mutex was taken:
                // another CPU may have taken the blocks since. Then take
                // none; the load finds them wanting and reserves again
                // (steals, or sleeps on the pool).
                if !self.hat.fits(&levels) {
                    return Ok(None);
                }
                let mut r = Ok(());
                let cyc = self.on_cpu(c, Mechanism::PteUpdate, |on, hat| r = hat.reserve(on, cpu, &levels));
                r.map(|_| Some(cyc))
            }
            HatStep::LoadNow { asid, va, pfn, prot } => {
                // A page's unload elsewhere (interface 2 holds only the page
                // lock) may have emptied a table since this CPU reserved, or
                // the reserve found the blocks gone and took none.
                if !self.hat.blocks_wanted(cpu, asid, va).is_empty() {
                    let again = vec![
                        Step::Hat(HatStep::Reserve { asid, va }),
                        Step::Hat(HatStep::LoadNow { asid, va, pfn, prot }),
                    ];
                    self.push_front(c, again);
                    return Ok(None);
                }
                let adds_table = !self.hat.table().missing(asid, self.page.vpn(va)).is_empty();
                let mut r = Ok(false);
                let cyc = self.on_cpu(c, Mechanism::PteUpdate, |on, hat| r = hat.load(on, cpu, asid, va, pfn, prot));
                if adds_table {
                    self.wake_pool(self.cpus[c].now + cyc);
                }
                if r? {
                    self.cpus[c].steps.push_front(Step::Hat(HatStep::ShootDown { asid, pages: vec![va] }));
                }
                if self.hat.space(asid).is_some_and(|s| s.mmus.contains(&cpu)) {
                    self.tlb_rights[c].insert((asid, va), prot);
                }
                Ok(Some(cyc))
            }
            HatStep::UnloadPages { asid, va, pages } => {
                let mut steps = Vec::new();
                let mut gone = Vec::new();
                for k in 0..pages {
                    let v = nth_page(va, k);
                    let Some(pfn) = self.hat.lookup(asid, v) else { continue };
                    gone.push(v);
                    steps.push(Step::Take(d.page(pfn)));
                    steps.push(Step::Hat(HatStep::UnloadPageNow { asid, va: v }));
                    steps.push(Step::Drop(d.page(pfn)));
                    if d.returns_tables_at_once() {
                        steps.push(Step::Hat(HatStep::ReleaseEmptied));
                    }
                }
                if !gone.is_empty() {
                    steps.push(Step::Hat(HatStep::ShootDown { asid, pages: gone }));
                }
                self.push_front(c, steps);
                Ok(None)
            }
            HatStep::UnloadPageNow { asid, va } => {
                let cyc = self.on_cpu(c, Mechanism::PteUpdate, |on, hat| {
                    hat.unload(on, cpu, asid, va);
                });
                Ok(Some(cyc))
            }
            HatStep::ChangeProtPages { asid, va, pages, prot } => {
                let mut steps = Vec::new();
                let mut lowered = Vec::new();
                for k in 0..pages {
                    let v = nth_page(va, k);
                    let Some(old) = self.hat.prot_of(asid, v) else { continue };
                    if (old.write && !prot.write) || (old.read && !prot.read) || (old.exec && !prot.exec) {
                        lowered.push(v);
                    }
                    // A protection change is of seed 003's second class
                    // only (section 4.4): it modifies mappings of one
                    // address space, under its MMU descriptor's lock held
                    // across the range, and neither a page's mapping list
                    // nor its descriptor, so it takes no page lock (as
                    // Solaris 8's `srmmu_do_attr` takes only the table's).
                    steps.push(Step::Hat(HatStep::ChangeProtPageNow { asid, va: v, prot }));
                }
                // Only a downgrade needs other TLBs to forget: an upgrade
                // is found by the next access's protection fault.
                if !lowered.is_empty() {
                    steps.push(Step::Hat(HatStep::ShootDown { asid, pages: lowered }));
                }
                self.push_front(c, steps);
                Ok(None)
            }
            HatStep::ChangeProtPageNow { asid, va, prot } => {
                let cyc = self.on_cpu(c, Mechanism::PteUpdate, |on, hat| {
                    hat.change_prot(on, asid, va, prot);
                });
                Ok(Some(cyc))
            }
            HatStep::UnloadFrameNow { pfn } => {
                let mut maps = Vec::new();
                let cyc = self.on_cpu(c, Mechanism::PteUpdate, |on, hat| {
                    maps = hat.mappings_of(on, pfn);
                    for &(a, v) in &maps {
                        hat.unload(on, cpu, a, v);
                    }
                });
                let mut by_space: BTreeMap<Asid, Vec<VirtAddr>> = BTreeMap::new();
                for (a, v) in maps {
                    by_space.entry(a).or_default().push(v);
                }
                let steps =
                    by_space.into_iter().map(|(asid, pages)| Step::Hat(HatStep::ShootDown { asid, pages })).collect();
                self.push_front(c, steps);
                Ok(Some(cyc))
            }
            HatStep::ShootDown { asid, pages } if self.shoot_down_mode == ShootDownMode::BroadcastDemap => {
                let steps = vec![
                    Step::Lock(Lock::Demap, Mode::Exclusive),
                    Step::Hat(HatStep::DemapNow { asid, pages }),
                    Step::Unlock(Lock::Demap),
                ];
                self.push_front(c, steps);
                Ok(None)
            }
            HatStep::ShootDown { asid, pages } => Ok(Some(self.shoot_down(c, asid, &pages))),
            HatStep::DemapNow { asid, pages } => Ok(Some(self.demap(c, asid, &pages))),
            HatStep::ReleaseEmptied => {
                let blocks = self.hat.take_emptied(cpu);
                if blocks.is_empty() {
                    return Ok(None);
                }
                if single {
                    self.cpus[c].steps.push_front(Step::Hat(HatStep::ReleaseNow { blocks }));
                } else {
                    let mut by_lock: BTreeMap<Lock, Vec<(usize, PhysAddr)>> = BTreeMap::new();
                    for b in blocks {
                        if let Some(lock) = d.resource(b.0) {
                            by_lock.entry(lock).or_default().push(b);
                        }
                    }
                    let mut steps = Vec::new();
                    for (lock, blocks) in by_lock {
                        steps.push(Step::Lock(lock, Mode::Exclusive));
                        steps.push(Step::Hat(HatStep::ReleaseNow { blocks }));
                        steps.push(Step::Unlock(lock));
                    }
                    self.push_front(c, steps);
                }
                Ok(None)
            }
            HatStep::ReleaseNow { blocks } => {
                let cyc = self.on_cpu(c, Mechanism::PteUpdate, |on, hat| hat.release(on, &blocks));
                self.wake_pool(self.cpus[c].now + cyc);
                Ok(Some(cyc))
            }
            HatStep::JoinNow { asid } => Ok(Some(self.on_cpu(c, Mechanism::PteUpdate, |on, hat| {
                hat.join(on, asid, cpu);
            }))),
            HatStep::DestroyNow { asid } => {
                let cyc = self.on_cpu(c, Mechanism::PteUpdate, |on, hat| {
                    hat.destroy(on, cpu, asid);
                });
                for t in 0..self.cpus.len() {
                    if let Some(tlb) = self.system.cpu_mut(CpuId(t as u32)).tlb_mut() {
                        // A dead context's entries are unreachable; its
                        // number is flushed before reuse (not modelled:
                        // numbers are never reused).
                        tlb.purge_asid(asid);
                    }
                    self.tlb_rights[t].retain(|k, _| k.0 != asid);
                }
                Ok(Some(cyc))
            }
            HatStep::ClearRefModNow { pfn } => Ok(Some(self.on_cpu(c, Mechanism::PteUpdate, |on, hat| {
                hat.clear_refmod(on, pfn);
            }))),
        }
    }

    /// A load that must steal lets go of the hat's locks it holds: the
    /// queue's front is the rest of the load's call (`LoadNow`, the page
    /// and MMU guards' drops). The VM's `a_lock` on the load's space stays
    /// held: the steal takes no `a_lock`, so no CPU holding a hat lock
    /// ever waits for one. Returns the releases, to run before the steal,
    /// and the load, to call again after it.
    fn back_out_of_load(&mut self, c: usize, asid: Asid, va: VirtAddr) -> Result<(Vec<Step>, HatStep), String> {
        let d = self.design;
        let q = &mut self.cpus[c].steps;
        let Some(Step::Hat(HatStep::LoadNow { asid: a, va: v, pfn, prot })) = q.front().cloned() else {
            return Err(format!("mp: a reserve for space {} page {va:#x} not followed by its load", asid.0));
        };
        if a != asid || v != va {
            return Err(format!("mp: a reserve for space {} page {va:#x} followed by another load", asid.0));
        }
        q.pop_front();
        let want = vec![Step::Drop(d.page(pfn)), Step::Drop(d.mmu(asid))];
        let releases: Vec<Step> = q.iter().take(want.len()).cloned().collect();
        if releases != want {
            return Err(format!("mp: the load of space {} page {va:#x} holds {releases:?}", asid.0));
        }
        q.drain(..want.len());
        Ok((releases, HatStep::Load { asid, va, pfn, prot }))
    }

    /// Removes `pages` of `asid` from this CPU's TLB and from every other
    /// CPU on the space's MMU descriptor list, by cross-call: the initiator
    /// sends one per target and waits for the last acknowledgement; each
    /// target loses `xcall_receive_cycles`. Returns the initiator's cycles.
    fn shoot_down(&mut self, c: usize, asid: Asid, pages: &[VirtAddr]) -> u64 {
        let me = CpuId(c as u32);
        let local = self.on_cpu(c, Mechanism::TlbPurge, |on, _| {
            on.run_code(code(LOCAL_FLUSH * pages.len() as u64), CodeFetch::Counted);
        });
        self.purge_on(c, asid, pages);
        let targets = self.hat.targets(asid, me);
        let s = &mut self.shootdowns;
        s.calls += 1;
        s.pages += pages.len() as u64;
        if targets.is_empty() {
            return local;
        }
        s.remote_calls += 1;
        s.targets += targets.len() as u64;
        let receive = self.p.xcall_receive_cycles.value as u64;
        for &t in &targets {
            self.shootdowns.entries_purged += self.purge_on(t.index(), asid, pages);
            let target = &mut self.cpus[t.index()];
            target.stolen += receive;
            target.time.interrupts += receive;
            self.shootdowns.target_cycles += receive;
        }
        let send = self.p.xcall_send_cycles.value as u64 * targets.len() as u64
            + self.p.xcall_latency_cycles.value as u64
            + receive;
        self.shootdowns.initiator_cycles += send;
        self.cpus[c].time.shootdown += send;
        local + send
    }

    /// Takes `pages` of `asid` out of CPU `t`'s TLB and out of its record
    /// of the rights its TLB holds; returns how many TLB entries went.
    fn purge_on(&mut self, t: usize, asid: Asid, pages: &[VirtAddr]) -> u64 {
        let mut purged = 0;
        if let Some(tlb) = self.system.cpu_mut(CpuId(t as u32)).tlb_mut() {
            for &va in pages {
                purged += u64::from(tlb.purge_page(asid, va));
            }
        }
        for &va in pages {
            self.tlb_rights[t].remove(&(asid, va));
        }
        purged
    }

    /// Broadcast demaps of `pages` of `asid` (`ShootDownMode::BroadcastDemap`):
    /// every CPU's TLB loses them, whether or not the space ran there, and
    /// no CPU is interrupted. Each demap is one bus transaction the
    /// initiator waits for, priced as a memory access (lmbench's
    /// calibrated latency; no measured demap time was found). Returns the
    /// initiator's cycles.
    fn demap(&mut self, c: usize, asid: Asid, pages: &[VirtAddr]) -> u64 {
        let local = self.on_cpu(c, Mechanism::TlbPurge, |on, _| {
            on.run_code(code(LOCAL_FLUSH * pages.len() as u64), CodeFetch::Counted);
        });
        let bus = (self.p.memory_cycles.value as u64 + 1) * pages.len() as u64;
        let s = &mut self.shootdowns;
        s.calls += 1;
        s.pages += pages.len() as u64;
        s.initiator_cycles += bus;
        for t in 0..self.cpus.len() {
            let purged = self.purge_on(t, asid, pages);
            if t != c {
                self.shootdowns.entries_purged += purged;
            }
        }
        self.cpus[c].time.shootdown += bus;
        local + bus
    }

    /// How shoot-downs reach the other TLBs (a cross-call unless set).
    pub fn set_shoot_down_mode(&mut self, mode: ShootDownMode) {
        self.shoot_down_mode = mode;
    }

    /// How a fork treats the parent's translations (`ForkMode`); the
    /// default is the SRMMU hat's write-protect.
    pub fn set_fork_mode(&mut self, mode: ForkMode) {
        self.fork_mode = mode;
    }

    /// The steps of one operation of process `pi`.
    fn op(&mut self, pi: usize, kind: OpKind, bytes: u64, caller: Caller) -> Result<Vec<Step>, String> {
        let p = self.p.path.clone();
        let (syscall, fault, per_page) = (p.syscall.value as u64, p.fault.value as u64, p.per_page_vm.value as u64);
        let holds = self.p.lock.clone();
        let (pid_hold, free_hold, anon_hold, as_hold, vnode_hold) = (
            holds.pidlock.value as u64,
            holds.freemem.value as u64,
            holds.anon.value as u64,
            holds.as_lock.value as u64,
            holds.vnode.value as u64,
        );
        let asid = self.procs[pi].asid;
        let pages = bytes.div_ceil(PAGE_BYTES);
        let mut s = Vec::new();
        let locked = |lock: Lock, n: u64| vec![Step::Lock(lock, Mode::Exclusive), Step::Run(n), Step::Unlock(lock)];
        // The VM system's sections under the space's `a_lock` (Solaris 8
        // `uts/common/vm/vm_as.c`): `as_fault` as reader, `as_dup`,
        // `as_free`, `as_map` and `as_unmap` as writer, each held across
        // the hat calls its segment drivers make; the hat takes no
        // `a_lock` of its own for them.
        let (reader, writer) = (Mode::Shared, Mode::Exclusive);
        match kind {
            OpKind::Fork => {
                s.push(Step::Run(syscall));
                s.extend(locked(Lock::Pidlock, pid_hold));
                s.push(Step::Run(p.fork.value as u64));
                let child = self.fresh_asid();
                s.extend(self.as_dup(pi, child, pages));
                // Solaris's `cfork` ends in the class's `forkret`
                // (Solaris 8 `uts/common/disp/ts.c`, `ts_forkret`): the
                // child is queued, the parent queues itself behind it and
                // switches, so the child runs first.
                s.extend(self.dispatch(Dispatch::Enqueue));
                s.extend(self.dispatch(Dispatch::Enqueue));
                s.extend(self.dispatch(Dispatch::Dequeue));
                // The child returns to user mode (its stack read in) and
                // exits at once (`forks.c`: `_exit`); its `as_free`
                // unloads what it loaded, and its last switch runs the
                // parent, not asleep in `wait` yet, so no wake-up.
                s.extend(self.child_stack_read(pi, child));
                s.push(Step::Run(p.exit.value as u64));
                s.extend(self.free_copy(child, pages));
                s.extend(self.dispatch(Dispatch::Dequeue));
                // The parent's `wait` reaps the zombie and stores the
                // status on its stack.
                s.extend(locked(Lock::Pidlock, pid_hold));
                s.extend(self.parent_stack_write(pi));
                // A program that goes on writing its pages then faults
                // each writable again, one protection fault per page
                // under `as_fault`'s reader lock: the anon slot is no
                // longer shared (the child has gone), so
                // `segvn_faultpage` copies nothing and reloads the
                // page with write permission by `hat_memload` (SunOS
                // 4.1.3 `sys/vm/seg_vn.c`: `anon_getpage` grants write
                // to an unshared slot, then the non-copy-on-write
                // path). An upgrade: no shoot-down. The BSD suite's
                // `forks` wrote its pages before its loop and never
                // again (`Caller::BsdSuite`): no fault.
                if caller == Caller::Program {
                    for k in 0..pages {
                        let (va, pfn) = (nth_page(DATA_VA, k), self.procs[pi].data[k as usize]);
                        let mut f = vec![Step::Run(fault), Step::Run(per_page)];
                        f.extend(self.call(HatStep::Load { asid, va, pfn, prot: Prot::RW }));
                        s.extend(Self::under_a_lock(asid, reader, f));
                    }
                }
            }
            OpKind::Vfork => {
                // The child borrows the parent's space and stack (SunOS
                // 4.1.3 `fork1`), so nothing is write-protected and no
                // stack page faults. Solaris 8 `cfork` queues the child;
                // the parent sleeps in `vfwait` (a switch); the child's
                // exit gives the space back (`relvm`), whose `cv_signal`
                // queues the parent, and its last switch runs it.
                s.push(Step::Run(syscall));
                s.extend(locked(Lock::Pidlock, pid_hold));
                s.push(Step::Run(p.fork.value as u64));
                s.extend(self.dispatch(Dispatch::Enqueue));
                s.extend(self.dispatch(Dispatch::Dequeue));
                s.push(Step::Run(p.exit.value as u64));
                s.extend(self.dispatch(Dispatch::Enqueue));
                s.extend(self.dispatch(Dispatch::Dequeue));
                s.extend(locked(Lock::Pidlock, pid_hold));
            }
            OpKind::Exec if caller == Caller::BsdSuite => {
                // 4.3BSD-Net/2 `execs.c`: the parent forks (its `bytes`
                // duplicated as `forks` does), the child execs `nulljob`,
                // which exits, and the parent waits. The parent's own
                // image and pages are left as they are.
                let prog = self.rng.gen_range(0..self.text.len());
                let copy = self.fresh_asid();
                let image = self.fresh_asid();
                s.push(Step::Run(syscall));
                s.extend(locked(Lock::Pidlock, pid_hold));
                s.push(Step::Run(p.fork.value as u64));
                s.extend(self.as_dup(pi, copy, pages));
                // As `forks`: the child runs first and reads its stack
                // on its way back to user mode, where it calls `execv`.
                s.extend(self.dispatch(Dispatch::Enqueue));
                s.extend(self.dispatch(Dispatch::Enqueue));
                s.extend(self.dispatch(Dispatch::Dequeue));
                s.extend(self.child_stack_read(pi, copy));
                // The exec frees the copy fork made (`as_free`) before it
                // builds the null program's space.
                let release = self.free_copy(copy, pages);
                s.extend(self.null_job(image, prog, release)?);
                s.extend(locked(Lock::Pidlock, pid_hold));
                s.extend(self.parent_stack_write(pi));
            }
            OpKind::Exec => {
                let prog = self.rng.gen_range(0..self.text.len());
                self.procs[pi].program = prog;
                s.push(Step::Run(syscall + p.exec.value as u64));
                s.extend(locked(Lock::Vnode(prog as u32), vnode_hold));
                // The old image goes under `as_free`'s writer lock; the
                // new one's pages come in by faults, each under
                // `as_fault`'s reader lock.
                // The old stack goes with the old image; the new one is
                // a fresh zero-filled page that `execve`'s copy of the
                // arguments faults in (as `null_job`'s).
                let text = u64::from(self.w.text_pages);
                let (old_stack, new_stack) = (self.procs[pi].stack, self.alloc_frame()?);
                self.procs[pi].stack = new_stack;
                let mut free = vec![Step::Run(as_hold)];
                free.extend(self.call(HatStep::UnloadRange { asid, va: TEXT_VA, pages: text }));
                free.extend(self.call(HatStep::UnloadRange { asid, va: DATA_VA, pages }));
                free.extend(self.call(HatStep::UnloadRange { asid, va: STACK_VA, pages: 1 }));
                free.extend(locked(Lock::Freemem, free_hold));
                free.push(Step::FreeFrame { pfn: old_stack });
                s.extend(Self::under_a_lock(asid, writer, free));
                for k in 0..text {
                    let pfn = self.text[prog][k as usize];
                    let load = self.call(HatStep::Load { asid, va: nth_page(TEXT_VA, k), pfn, prot: Prot::R });
                    s.extend(Self::under_a_lock(asid, reader, load));
                }
                let mut f = vec![Step::Run(fault)];
                f.extend(locked(Lock::Freemem, free_hold));
                f.push(Step::Zero { pfn: new_stack });
                f.push(Step::Run(per_page));
                f.extend(self.call(HatStep::Load { asid, va: STACK_VA, pfn: new_stack, prot: Prot::RW }));
                s.extend(Self::under_a_lock(asid, reader, f));
                for k in 0..pages {
                    let pfn = self.procs[pi].data[k as usize];
                    let mut fault = vec![Step::Run(per_page)];
                    fault.extend(self.call(HatStep::Load { asid, va: nth_page(DATA_VA, k), pfn, prot: Prot::RW }));
                    s.extend(Self::under_a_lock(asid, reader, fault));
                }
            }
            OpKind::Vexec => {
                // 4.3BSD-Net/2 `sys/tests/benchmarks/vexecs.c` (the BSD
                // suite Microbench is based on, seed 003 section 5.2): the
                // parent vforks, the child execs `nulljob` (`main` calls
                // `exit(0)`) and the parent waits. vfork shares the
                // parent's space (SunOS 4.1.3 `sys/os/kern_fork.c`,
                // `fork1`: "for vfork we just share the address space
                // structure"): no `as_dup`, no hat call, so the parent's
                // size (`bytes`, its sbrk) changes nothing. The child's
                // exec gives the borrowed space back without freeing it
                // (`relvm`) and builds a new one (`kern_exec.c`,
                // `getxfile`: `as_alloc`, the stack and text `as_map`s).
                // The stack is borrowed with the space: the child's
                // stores before its exec go through the parent's own
                // writable translation, and the parent's `wait` finds its
                // stack writable. The dispatcher as for vfork: the child
                // queued, the parent asleep in `vfwait`, woken (queued)
                // when the exec gives the space back (`relvm`'s
                // `cv_signal`), and run by `nulljob`'s last switch.
                let prog = self.rng.gen_range(0..self.text.len());
                let child = self.fresh_asid();
                s.push(Step::Run(syscall));
                s.extend(locked(Lock::Pidlock, pid_hold));
                s.push(Step::Run(p.fork.value as u64));
                s.extend(self.dispatch(Dispatch::Enqueue));
                s.extend(self.dispatch(Dispatch::Dequeue));
                let relvm = self.dispatch(Dispatch::Enqueue);
                s.extend(self.null_job(child, prog, relvm)?);
                s.extend(locked(Lock::Pidlock, pid_hold));
            }
            OpKind::MinorFault => {
                let (va, pfn, prot) = if !self.shm.is_empty() {
                    let k = self.rng.gen_range(0..self.shm.len());
                    (nth_page(SHM_VA, k as u64), self.shm[k], Prot::RW)
                } else {
                    let prog = self.procs[pi].program;
                    let k = self.rng.gen_range(0..self.text[prog].len().max(1));
                    match self.text[prog].get(k) {
                        Some(&pfn) => (nth_page(TEXT_VA, k as u64), pfn, Prot::R),
                        None => return Ok(Self::under_a_lock(asid, reader, vec![Step::Run(fault)])),
                    }
                };
                let mut f = vec![Step::Run(fault), Step::Run(per_page)];
                f.extend(self.call(HatStep::Load { asid, va, pfn, prot }));
                s.extend(Self::under_a_lock(asid, reader, f));
            }
            OpKind::CowFault => {
                if self.procs[pi].data.is_empty() {
                    return Ok(s);
                }
                let k = self.rng.gen_range(0..self.procs[pi].data.len());
                let old = self.procs[pi].data[k];
                let new = self.alloc_frame()?;
                self.procs[pi].data[k] = new;
                let va = nth_page(DATA_VA, k as u64);
                // All of it inside `as_fault`'s reader lock: segvn_fault
                // copies the page, replaces the translation and drops the
                // old copy's anon reference before it returns.
                let mut f = vec![Step::Run(fault)];
                f.extend(locked(Lock::Anon((new.0 % ANON_LOCKS) as u32), anon_hold));
                f.extend(locked(Lock::Freemem, free_hold));
                f.push(Step::Copy { from: old, to: new });
                f.extend(self.call(HatStep::UnloadRange { asid, va, pages: 1 }));
                f.extend(self.call(HatStep::Load { asid, va, pfn: new, prot: Prot::RW }));
                // The other sharer has gone; the old copy is freed.
                f.extend(locked(Lock::Freemem, free_hold));
                f.push(Step::FreeFrame { pfn: old });
                s.extend(Self::under_a_lock(asid, reader, f));
            }
            OpKind::Brk => {
                let frames = (0..pages).map(|_| self.alloc_frame()).collect::<Result<Vec<_>, _>>()?;
                // Growing: `as_map` extends the heap under the writer
                // lock; each page then comes in by a fault (zero-filled)
                // under the reader lock.
                s.push(Step::Run(syscall + p.brk.value as u64));
                s.extend(Self::under_a_lock(asid, writer, vec![Step::Run(as_hold)]));
                for (k, &pfn) in frames.iter().enumerate() {
                    let mut f = locked(Lock::Freemem, free_hold);
                    f.push(Step::Zero { pfn });
                    f.push(Step::Run(per_page));
                    f.extend(self.call(HatStep::Load { asid, va: nth_page(HEAP_VA, k as u64), pfn, prot: Prot::RW }));
                    s.extend(Self::under_a_lock(asid, reader, f));
                }
                // Shrinking: `as_unmap` holds the writer lock across the
                // unload and the pages' release (segvn_unmap frees them).
                s.push(Step::Run(syscall + p.brk.value as u64));
                let mut unmap = vec![Step::Run(as_hold)];
                unmap.extend(self.call(HatStep::UnloadRange { asid, va: HEAP_VA, pages }));
                for &pfn in &frames {
                    unmap.extend(locked(Lock::Freemem, free_hold));
                    unmap.push(Step::FreeFrame { pfn });
                }
                s.extend(Self::under_a_lock(asid, writer, unmap));
            }
            OpKind::Pageout => {
                if self.shm.is_empty() {
                    return Ok(s);
                }
                let pfn = self.shm[self.rng.gen_range(0..self.shm.len())];
                s.push(Step::Run(per_page));
                s.extend(self.call(HatStep::ClearRefMod { pfn }));
                s.extend(self.call(HatStep::UnloadFrame { pfn }));
            }
        }
        Ok(s)
    }

    fn report(&self) -> MpReport {
        let elapsed = self.end.unwrap_or_else(|| self.cpus.iter().map(|c| c.now).max().unwrap_or(0)).max(1);
        let mut time = CpuTime::default();
        for c in &self.cpus {
            time.user += c.time.user;
            time.kernel += c.time.kernel;
            time.lock_wait += c.time.lock_wait;
            time.interrupts += c.time.interrupts;
            time.shootdown += c.time.shootdown;
            time.pool_wait += c.time.pool_wait;
        }
        let tb = self.hat.table().table_bytes();
        MpReport {
            design: self.design.name(),
            cpus: self.cpus.len(),
            workload: self.w.name.clone(),
            memory_bytes: self.memory_bytes,
            seed: self.seed,
            transactions: self.completed,
            elapsed_cycles: elapsed,
            throughput: self.completed as f64 / (elapsed as f64 * self.p.cycle_ns() * 1e-9),
            locks: self
                .lock_classes()
                .into_iter()
                .map(|k| (k.name(), self.locks.stats().get(&k).copied().unwrap_or_default()))
                .collect(),
            ops: self.ops.iter().map(|(k, v)| (k.name(), *v)).collect(),
            time,
            shootdowns: self.shootdowns,
            steals: self.steals(),
            frames_in_use: self.peak_frames,
            table_bytes: tb.iter().sum(),
            pool_free_bytes: self.hat.pool_free_bytes(),
        }
    }

    /// Every lock class of this run's kernel: the design's hat locks, the
    /// VM's and the rest of the kernel's the model takes (`a_lock`,
    /// `pidlock`, `freemem_lock`, the anon hash, vnode and dispatcher
    /// locks), and `srmmu_demap_mutex` under the broadcast demap. The
    /// report lists each, a class never taken with zero counts; a class
    /// taken but not listed is listed too, so nothing is hidden.
    pub fn lock_classes(&self) -> Vec<LockClass> {
        let mut classes = self.design.hat_lock_classes().to_vec();
        classes.extend([
            LockClass::AsLock,
            LockClass::Pidlock,
            LockClass::FreememLock,
            LockClass::AnonLock,
            LockClass::VnodeLock,
            LockClass::DispatcherLock,
        ]);
        if self.shoot_down_mode == ShootDownMode::BroadcastDemap {
            classes.push(LockClass::DemapMutex);
        }
        for k in self.locks.stats().keys() {
            if !classes.contains(k) {
                classes.push(*k);
            }
        }
        classes
    }

    /// The invariants a property test checks after any interleaving: every
    /// mapping list agrees with the page tables, and no CPU's TLB holds a
    /// translation the hat has unloaded, moved or downgraded.
    pub fn check(&self) -> Result<(), String> {
        self.hat.check_lists()?;
        for c in 0..self.cpus.len() {
            let Some(tlb) = self.system.cpu(CpuId(c as u32)).tlb() else { continue };
            for e in tlb.entries() {
                let va = VirtAddr(e.vpn.0 << e.page_shift);
                match self.hat.lookup(e.asid, va) {
                    Some(pfn) if pfn == e.pfn => {}
                    other => {
                        return Err(format!(
                            "CPU {c}'s TLB maps space {} page {va:#x} to frame {:#x}; the hat has {other:?}",
                            e.asid.0, e.pfn.0
                        ))
                    }
                }
                let now = self.hat.prot_of(e.asid, va).unwrap_or(Prot::NONE);
                if let Some(had) = self.tlb_rights[c].get(&(e.asid, va)) {
                    if had.write && !now.write {
                        return Err(format!(
                            "CPU {c}'s TLB still lets space {} write page {va:#x}, which the hat downgraded",
                            e.asid.0
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    pub fn hat(&self) -> &MpHat {
        &self.hat
    }

    /// Appends `steps` to CPU `cpu`'s queue (a scripted run).
    pub fn push(&mut self, cpu: usize, steps: Vec<Step>) {
        let idle =
            self.cpus[cpu].steps.is_empty() && self.cpus[cpu].blocked.is_none() && self.cpus[cpu].pool_wait.is_none();
        self.cpus[cpu].steps.extend(steps);
        if idle {
            let t = self.cpus[cpu].now;
            self.schedule(cpu, t);
        }
    }

    /// Runs until no CPU has a step left (scripted runs: no transactions
    /// are started once the target is met).
    pub fn drain(&mut self) -> Result<(), String> {
        while let Some(Reverse((t, _, c))) = self.heap.pop() {
            let cpu = &mut self.cpus[c];
            cpu.now = cpu.now.max(t);
            self.advance(c)?;
        }
        match self.cpus.iter().position(|c| !c.steps.is_empty() || c.blocked.is_some() || c.pool_wait.is_some()) {
            Some(c) => Err(format!("CPU {c} is stuck waiting for a lock (deadlock)")),
            None => Ok(()),
        }
    }

    /// Starts (or stops) logging every lock event.
    pub fn log_locks(&mut self, on: bool) {
        self.log = on.then(Vec::new);
    }

    /// The lock events logged: (CPU, time, event).
    pub fn lock_log(&self) -> &[(usize, u64, LockEvent)] {
        self.log.as_deref().unwrap_or(&[])
    }

    /// The steps of one operation by process `index` (in set-up order),
    /// inside a program of `caller`'s shape.
    pub fn op_steps(&mut self, index: usize, kind: OpKind, bytes: u64, caller: Caller) -> Result<Vec<Step>, String> {
        if index >= self.procs.len() {
            return Err(format!("no process {index}; there are {}", self.procs.len()));
        }
        self.op(index, kind, bytes, caller)
    }

    /// Process `index`'s space and data frames.
    pub fn process(&self, index: usize) -> Option<(Asid, &[Pfn])> {
        self.procs.get(index).map(|p| (p.asid, p.data.as_slice()))
    }

    /// The frame of process `index`'s stack page (`STACK_VA`).
    pub fn stack(&self, index: usize) -> Option<Pfn> {
        self.procs.get(index).map(|p| p.stack)
    }

    /// CPU `cpu`'s clock and where its time went.
    pub fn cpu_clock(&self, cpu: usize) -> (u64, CpuTime) {
        (self.cpus[cpu].now, self.cpus[cpu].time)
    }

    /// Steals so far, with the pool's size and limit.
    pub fn steals(&self) -> Steals {
        let (carved, limit) = self.hat.pool_frames();
        Steals { pool_bytes: carved * PAGE_BYTES, pool_limit_bytes: limit * PAGE_BYTES, ..self.steals }
    }

    pub fn shootdowns(&self) -> ShootDowns {
        self.shootdowns
    }

    pub fn params(&self) -> &MpParams {
        &self.p
    }

    /// A data frame for a scripted run.
    pub fn alloc_frame(&mut self) -> Result<Pfn, String> {
        self.hat.alloc_frame()
    }

    pub fn system(&self) -> &System {
        &self.system
    }

    pub fn lock_stats(&self) -> &BTreeMap<LockClass, LockStats> {
        self.locks.stats()
    }
}
