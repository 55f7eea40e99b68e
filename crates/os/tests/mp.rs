//! Study S3's multiprocessor hat (vmlab_os::mp): hand-worked shoot-down,
//! lock waits and fork lock orders, and a property test over random
//! interleavings of hat operations under every locking design.

use proptest::prelude::*;
use vmlab_addr::{Asid, CpuId, Pfn, VirtAddr};
use vmlab_os::mp::*;
use vmlab_os::prot::Prot;

const PAGE: u64 = 4096;

/// A run with `processes` processes of `data_pages` data pages, no
/// workload transactions: the test pushes the steps.
fn scripted(design: Design, cpus: usize, processes: u32, data_pages: u32) -> MpSim {
    let p = MpParams::load("sparccenter-2000").expect("preset");
    scripted_on(p, design, cpus, processes, data_pages)
}

fn scripted_on(p: MpParams, design: Design, cpus: usize, processes: u32, data_pages: u32) -> MpSim {
    let text = format!(
        "name = \"t\"\ndescription = \"t\"\nsource = \"test\"\nuser_cycles = 0\nprocesses_per_cpu = {processes}\n\
         data_pages = {data_pages}\ntext_pages = 1\nprograms = 1\nop = []\n"
    );
    let w = Workload::parse("test.toml", &text).expect("test workload");
    let cfg = MpConfig { cpus, design, memory_bytes: 64 << 20, transactions: 0, seed: 7 };
    let mut sim = MpSim::new(p, w, &cfg).expect("sim");
    sim.drain().expect("idle");
    sim
}

fn in_tlb(sim: &MpSim, cpu: u32, asid: Asid, va: u64) -> bool {
    sim.system().cpu(CpuId(cpu)).tlb().expect("tlb").probe(asid, VirtAddr(va)).is_some()
}

/// Two CPUs: process 0 (space 1) starts on CPU 0 with four data pages in
/// CPU 0's TLB; it then runs on CPU 1, touching pages 0, 1 and 3. CPU 0
/// unloads pages 0-1 under the single hat lock, shooting down by `mode`.
/// Either way both TLBs lose exactly pages 0 and 1 (CPU 1's page 3 and
/// CPU 0's pages 2-3 stay). Returns the run and CPU 1's interrupt
/// cycles before the unload; the lock log covers the unload.
fn unload_two_pages_seen_by_two_cpus(mode: ShootDownMode) -> (MpSim, u64) {
    let mut sim = scripted(Design::SingleLock, 2, 1, 4);
    sim.set_shoot_down_mode(mode);
    let (asid, _) = sim.process(0).expect("process 0");
    // Process 1 (space 2) starts on CPU 1; only process 0 matters.
    let data = 0x0100_0000u64;
    for k in [0, 1, 3] {
        sim.push(1, vec![Step::Touch { asid, va: VirtAddr(data + k * PAGE) }]);
    }
    sim.drain().expect("touch");
    assert_eq!(sim.hat().space(asid).expect("space").mmus, vec![CpuId(0), CpuId(1)]);
    for k in 0..4 {
        assert!(in_tlb(&sim, 0, asid, data + k * PAGE), "CPU 0 page {k}");
    }
    let before = sim.cpu_clock(1).1.interrupts;
    sim.log_locks(true);
    let call = sim_call(&sim, HatStep::UnloadRange { asid, va: VirtAddr(data), pages: 2 });
    sim.push(0, call);
    sim.drain().expect("unload");
    for (cpu, k, held) in
        [(0, 0, false), (0, 1, false), (0, 2, true), (0, 3, true), (1, 0, false), (1, 1, false), (1, 3, true)]
    {
        assert_eq!(in_tlb(&sim, cpu, asid, data + k * PAGE), held, "CPU {cpu} page {k}");
    }
    sim.check().expect("consistent");
    (sim, before)
}

/// By cross-call the shoot-down interrupts CPU 1 only (the space's MMU
/// list is {0, 1}). CPU 0 spends send 120 x 1 + latency 200 + the
/// target's 400 = 720 cycles on the cross-call and 4 x 2 = 8 instructions
/// (cycles at CPI 1) flushing its own entries; CPU 1 loses 400.
#[test]
fn a_two_cpu_shoot_down_by_hand() {
    let (sim, before) = unload_two_pages_seen_by_two_cpus(ShootDownMode::CrossCall);
    let sd = sim.shootdowns();
    assert_eq!((sd.calls, sd.remote_calls, sd.targets, sd.pages, sd.entries_purged), (1, 1, 1, 2, 2));
    assert_eq!(sd.initiator_cycles, 120 + 200 + 400);
    assert_eq!(sd.target_cycles, 400);
    assert_eq!(sim.cpu_clock(1).1.interrupts - before, 400);
    // The cross-call happened inside the hat lock: its hold covers it.
    let hat = sim.lock_stats()[&LockClass::HatLock];
    let log = sim.lock_log();
    let (t0, t1) = (log[0].1, log[1].1);
    assert_eq!(log[0], (0, t0, LockEvent::Acquired(Lock::Hat)));
    assert_eq!(log[1], (0, t1, LockEvent::Released(Lock::Hat)));
    assert!(t1 - t0 >= 720 + 8, "hold {}", t1 - t0);
    assert!(hat.hold_cycles >= t1 - t0);
}

/// The same unload with the sun4d's broadcast demap
/// (`ShootDownMode::BroadcastDemap`): inside the hat lock CPU 0 takes
/// `srmmu_demap_mutex`, demaps pages 0 and 1 on the bus (one transaction
/// each, 61 + 1 = 62 cycles: 124), and lets it go. The TLBs lose the same
/// entries, but CPU 1 loses no time: nothing interrupts it. The mutex is
/// held for its acquiring atomic (the word's first touch: 62), the 4 x 2
/// = 8 flush instructions and the 124 bus cycles at least.
#[test]
fn a_two_cpu_broadcast_demap_by_hand() {
    let (sim, before) = unload_two_pages_seen_by_two_cpus(ShootDownMode::BroadcastDemap);
    let sd = sim.shootdowns();
    assert_eq!((sd.calls, sd.remote_calls, sd.targets, sd.pages, sd.entries_purged), (1, 0, 0, 2, 2));
    assert_eq!((sd.initiator_cycles, sd.target_cycles), (2 * 62, 0));
    assert_eq!(sim.cpu_clock(1).1.interrupts, before);
    let events: Vec<LockEvent> = sim.lock_log().iter().map(|e| e.2).collect();
    assert_eq!(
        events,
        vec![
            LockEvent::Acquired(Lock::Hat),
            LockEvent::Acquired(Lock::Demap),
            LockEvent::Released(Lock::Demap),
            LockEvent::Released(Lock::Hat)
        ]
    );
    let demap = sim.lock_stats()[&LockClass::DemapMutex];
    assert_eq!((demap.acquisitions, demap.contended, demap.wait_cycles), (1, 0, 0));
    assert!(demap.hold_cycles >= 62 + 8 + 124, "hold {}", demap.hold_cycles);
}

/// The cross-call grows with the CPUs the space has run on: on four CPUs
/// that all ran the space, unloading one page from CPU 0 interrupts the
/// other three: 120 x 3 sends + 200 + 400 = 960 initiator cycles, 400 on
/// each target, three entries purged.
#[test]
fn a_shoot_down_costs_more_with_more_cpus() {
    let mut sim = scripted(Design::MultiThreaded, 4, 1, 2);
    let (asid, _) = sim.process(0).expect("process 0");
    let va = 0x0100_0000u64;
    for c in 1..4 {
        sim.push(c, vec![Step::Touch { asid, va: VirtAddr(va) }]);
    }
    sim.drain().expect("touch");
    let before: Vec<u64> = (0..4).map(|c| sim.cpu_clock(c).1.interrupts).collect();
    let call = sim.call(HatStep::UnloadRange { asid, va: VirtAddr(va), pages: 1 });
    sim.push(0, call);
    sim.drain().expect("unload");
    let sd = sim.shootdowns();
    assert_eq!((sd.remote_calls, sd.targets, sd.entries_purged), (1, 3, 3));
    assert_eq!(sd.initiator_cycles, 120 * 3 + 200 + 400);
    for (c, was) in before.iter().enumerate().skip(1) {
        assert_eq!(sim.cpu_clock(c).1.interrupts - was, 400, "CPU {c}");
        assert!(!in_tlb(&sim, c as u32, asid, va));
    }
    sim.check().expect("consistent");
}

/// A steal, by hand, under every design. The pool may hold three frames
/// of level-2/3 tables (64 MB x 3/16384 = 12 KB: forty-eight 256-byte
/// blocks). Eight processes of one data page, one text page and one stack
/// page each use exactly forty-eight (a level-2 and a level-3 table for
/// text at 0x10000, for data at 0x1000000 and for the stack below
/// 0xF0000000; level-1 tables are not the pool's). Loading a heap page
/// (0x20000000) into space 1 needs a level-2 and a level-3 table, so the
/// hat steals: the clock starts at the first table in (space, table)
/// order, space 1's text table (index 0x10000 / 4 KB / 64 = 0), which maps
/// one page. Unloading it empties that level-3 table and its level-2
/// table: the two blocks the load needs. Space 1 also ran on CPU 1, which
/// holds the text page in its TLB: the steal's shoot-down interrupts CPU 1
/// (120 + 200 + 400 = 720 initiator cycles) and purges that one entry.
/// The pool stays three frames; nothing is carved beyond the limit.
#[test]
fn a_table_steal_by_hand_under_each_design() {
    for design in Design::ALL {
        let mut p = MpParams::load("sparccenter-2000").expect("preset");
        p.table_pool_fraction.value = 3.0 / 16384.0;
        let mut sim = scripted_on(p, design, 2, 4, 1);
        let st = sim.steals();
        assert_eq!((st.pool_bytes, st.pool_limit_bytes, st.steals, st.waits), (12288, 12288, 0, 0), "{design:?}");
        let (asid, _) = sim.process(0).expect("process 0");
        let (text, heap) = (0x0001_0000u64, 0x2000_0000u64);
        sim.push(1, vec![Step::Touch { asid, va: VirtAddr(text) }]);
        sim.drain().expect("touch");
        assert!(in_tlb(&sim, 1, asid, text));
        let pfn = sim.alloc_frame().expect("frame");
        // A fault: the VM holds space 1's a_lock as reader across the
        // load, and keeps it while the load backs out of its hat locks to
        // steal (the steal takes no a_lock).
        let call = MpSim::under_a_lock(
            asid,
            Mode::Shared,
            sim.call(HatStep::Load { asid, va: VirtAddr(heap), pfn, prot: Prot::RW }),
        );
        sim.log_locks(true);
        sim.push(0, call);
        sim.drain().expect("load with a steal");
        let log = taken_and_released(&sim);
        assert_eq!(log.first(), Some(&(true, Lock::As(asid))), "{design:?}");
        assert_eq!(log.last(), Some(&(false, Lock::As(asid))), "{design:?}");
        assert_eq!(log.iter().filter(|e| matches!(e.1, Lock::As(_))).count(), 2, "{design:?}");
        let st = sim.steals();
        assert_eq!((st.steals, st.pages, st.pool_bytes, st.waits), (1, 1, 12288, 0), "{design:?}");
        assert_eq!(sim.hat().lookup(asid, VirtAddr(text)), None, "{design:?}: the stolen table's page");
        assert_eq!(sim.hat().lookup(asid, VirtAddr(heap)), Some(pfn), "{design:?}");
        let sd = sim.shootdowns();
        assert_eq!((sd.remote_calls, sd.targets, sd.entries_purged, sd.initiator_cycles), (1, 1, 1, 720), "{design:?}");
        assert!(!in_tlb(&sim, 1, asid, text), "{design:?}");
        assert_eq!(sim.hat().pool_free_bytes(), 0, "{design:?}");
        sim.check().expect("consistent");
    }
}

/// A pool below its floor is an error at set-up that names both. Two
/// CPUs, one process each with a data, a text and a stack page: three
/// level-2 tables per process (regions 0x01, 0x00 and 0xEF of 16 MB),
/// six in all, plus one level-3 table per CPU = 8 blocks of 256 B, one
/// 4 KB frame. A share of 1/32768 of 64 MB is 2 KB, which is no whole
/// frame: no pool at all. One frame (1/16384) is enough: set-up's twelve
/// tables fit in its sixteen blocks without a steal.
#[test]
fn a_pool_below_its_floor_is_an_error_at_set_up() {
    let text = "name = \"t\"\ndescription = \"t\"\nsource = \"test\"\nuser_cycles = 0\nprocesses_per_cpu = 1\n\
                data_pages = 1\ntext_pages = 1\nprograms = 1\nop = []\n";
    let run = |share: f64| {
        let mut p = MpParams::load("sparccenter-2000").expect("preset");
        p.table_pool_fraction.value = share;
        let w = Workload::parse("test.toml", text).expect("test workload");
        let cfg = MpConfig { cpus: 2, design: Design::MultiThreaded, memory_bytes: 64 << 20, transactions: 0, seed: 7 };
        MpSim::new(p, w, &cfg)
    };
    let err = run(1.0 / 32768.0).expect_err("no frame for tables");
    assert!(err.contains("a table pool of 0 KB"), "{err}");
    assert!(err.contains("below its floor of 4 KB"), "{err}");
    assert!(err.contains("6 level-2 tables"), "{err}");
    assert!(err.contains("each of 2 CPUs"), "{err}");
    assert!(err.contains("at least 0.000061"), "{err}");
    let sim = run(1.0 / 16384.0).expect("one frame is the floor");
    let st = sim.steals();
    assert_eq!((st.pool_bytes, st.pool_limit_bytes, st.steals), (4096, 4096, 0));
}

/// A load that finds the pool full and nothing to steal sleeps on the
/// pool until an unload gives blocks back, under the multi-threaded hat.
/// Eight processes (four per CPU) of one text page, all the same frame,
/// and a stack page; the pool is two frames (64 MB x 2/16384: 32 blocks).
/// Set-up fills it exactly: 8 x (text and stack, a level-2 and a level-3
/// table each). The stacks are unloaded (16 blocks back), and each space
/// maps the text frame again at 0x40000000 (16 blocks: the pool is full
/// again, and every level-3 table maps one page of that frame). CPU 0
/// then unloads the frame from all sixteen places (interface 2, under
/// the page's lock): the unload empties every table at once and gives
/// the 32 blocks back only after its eight shoot-downs. CPU 1, 500
/// cycles in, loads a heap page into space 1: it wants a level-2 and a
/// level-3 table, the pool has none free and the tree no table left to
/// steal, so it lets go of its hat locks and sleeps. It is woken when
/// CPU 0's release of the blocks ends (CPU 0 lets go of
/// `hat_resource_mutex` at that instant), runs again 300 cycles
/// (`wakeup_cycles`) later, takes its blocks and loads the page. Had
/// the unload given each page's tables back at once, the load would have
/// found them; under interface 2 the blocks come back after the
/// shoot-downs (seed 003 section 5.3's "delays freeing the memory until
/// its task is complete").
#[test]
fn a_load_sleeps_on_the_pool_until_an_unload_gives_blocks_back() {
    let mut p = MpParams::load("sparccenter-2000").expect("preset");
    p.table_pool_fraction.value = 2.0 / 16384.0;
    let text = "name = \"t\"\ndescription = \"t\"\nsource = \"test\"\nuser_cycles = 0\nprocesses_per_cpu = 4\n\
                data_pages = 0\ntext_pages = 1\nprograms = 1\nop = []\n";
    let w = Workload::parse("test.toml", text).expect("test workload");
    let cfg = MpConfig { cpus: 2, design: Design::MultiThreaded, memory_bytes: 64 << 20, transactions: 0, seed: 7 };
    let mut sim = MpSim::new(p, w, &cfg).expect("sim");
    sim.drain().expect("idle");
    let st = sim.steals();
    assert_eq!((st.pool_bytes, st.pool_limit_bytes, st.steals), (8192, 8192, 0));
    assert_eq!(sim.hat().pool_free_bytes(), 0);
    let (stack, shm, heap) = (VirtAddr(STACK_VA.0), VirtAddr(0x4000_0000), VirtAddr(0x2000_0000));
    let spaces: Vec<Asid> = (0..8).map(|i| sim.process(i).expect("process").0).collect();
    let shared = sim.hat().lookup(spaces[0], VirtAddr(0x0001_0000)).expect("text");
    for &asid in &spaces {
        let call =
            MpSim::under_a_lock(asid, Mode::Exclusive, sim.call(HatStep::UnloadRange { asid, va: stack, pages: 1 }));
        sim.push(0, call);
        sim.drain().expect("stack unloaded");
        let call = MpSim::under_a_lock(
            asid,
            Mode::Shared,
            sim.call(HatStep::Load { asid, va: shm, pfn: shared, prot: Prot::R }),
        );
        sim.push(0, call);
        sim.drain().expect("text mapped again");
    }
    assert_eq!((sim.steals().pool_bytes, sim.hat().pool_free_bytes(), sim.steals().steals), (8192, 0, 0));
    assert_eq!(sim.hat().frame(shared).map(|f| f.mappings.len()), Some(16));
    let pfn = sim.alloc_frame().expect("frame");
    let space = spaces[0];
    sim.log_locks(true);
    let unload = sim.call(HatStep::UnloadFrame { pfn: shared });
    sim.push(0, unload);
    // CPU 1 has been idle since set-up: it starts 500 cycles after CPU 0.
    let mut load = vec![Step::User(sim.cpu_clock(0).0 - sim.cpu_clock(1).0 + 500)];
    load.extend(MpSim::under_a_lock(
        space,
        Mode::Shared,
        sim.call(HatStep::Load { asid: space, va: heap, pfn, prot: Prot::RW }),
    ));
    sim.push(1, load);
    sim.drain().expect("the load is woken and done");
    let log = sim.lock_log().to_vec();
    let slept = log.iter().find(|e| e.2 == LockEvent::PoolSleep).expect("the load slept");
    let woken = log.iter().find(|e| e.2 == LockEvent::PoolWoken).expect("and was woken");
    assert_eq!((slept.0, woken.0), (1, 1));
    // The unload's release: CPU 0's last release of hat_resource_mutex
    // before CPU 1 wakes ends the return of the blocks.
    let returned = log
        .iter()
        .rfind(|e| e.0 == 0 && e.2 == LockEvent::Released(Lock::HatResource(0)) && e.1 <= woken.1)
        .expect("the blocks came back")
        .1;
    assert!(slept.1 < returned, "slept at {} before the blocks came back at {returned}", slept.1);
    assert_eq!(woken.1, returned + 300);
    let st = sim.steals();
    assert_eq!((st.waits, st.wait_cycles, st.steals), (1, returned + 300 - slept.1, 0));
    assert_eq!(sim.cpu_clock(1).1.pool_wait, st.wait_cycles);
    // Woken, CPU 1 takes the pool's mutex only after the blocks are back.
    let took = log.iter().find(|e| e.0 == 1 && e.2 == LockEvent::Acquired(Lock::HatResource(0))).expect("reserve").1;
    assert!(took >= woken.1, "took the pool at {took}, woken at {}", woken.1);
    assert_eq!(sim.hat().lookup(space, heap), Some(pfn));
    assert_eq!(sim.hat().frame(shared).map_or(0, |f| f.mappings.len()), 0);
    // This run's clock: asleep at 20467, blocks back at 24928, running at
    // 25228: 4761 cycles on the pool.
    assert_eq!((slept.1, returned, woken.1, st.wait_cycles), (20467, 24928, 25228, 4761));
    // Two of the 32 blocks are in space 1's heap tables now.
    assert_eq!(sim.hat().pool_free_bytes(), 30 * 256);
    sim.check().expect("consistent");
}

fn sim_call(sim: &MpSim, h: HatStep) -> Vec<Step> {
    sim.call(h)
}

/// Three CPUs ask for the hat lock at time 0 and each holds it for 100
/// instructions (100 cycles at CPI 1). With the preset's atomic a = 62
/// cycles: CPU 0 takes it (its first atomic on the word costs the bus,
/// a), releases at a + 100 = 162; CPU 1 holds it from 162 (it runs again
/// at 162 + a = 224, the word's line coming over the bus) and releases at
/// 224 + 100 = 324; CPU 2 holds it from 324 and releases at 486.
/// Acquisitions 3, found held 2, wait 162 + 324 = 486 (mean 243), hold
/// 162 + 162 + 162.
#[test]
fn a_lock_with_two_waiters_in_simulated_time() {
    let mut sim = scripted(Design::SingleLock, 3, 1, 1);
    let before = sim.lock_stats().get(&LockClass::HatLock).copied().unwrap_or_default();
    for c in 0..3 {
        sim.push(c, vec![Step::Lock(Lock::Hat, Mode::Exclusive), Step::Run(100), Step::Unlock(Lock::Hat)]);
    }
    sim.log_locks(true);
    sim.drain().expect("run");
    let s = sim.lock_stats()[&LockClass::HatLock];
    assert_eq!(s.acquisitions - before.acquisitions, 3);
    assert_eq!(s.contended - before.contended, 2);
    assert_eq!(sim.params().atomic_cycles.value, 62.0);
    assert_eq!(s.wait_cycles - before.wait_cycles, 486);
    assert_eq!(s.hold_cycles - before.hold_cycles, 486);
    let released: Vec<(usize, u64)> =
        sim.lock_log().iter().filter(|e| matches!(e.2, LockEvent::Released(_))).map(|e| (e.0, e.1)).collect();
    assert_eq!(released, vec![(0, 162), (1, 324), (2, 486)]);
}

/// The lock log as (taken, lock): `true` for an acquisition, `false` for
/// a release.
fn taken_and_released(sim: &MpSim) -> Vec<(bool, Lock)> {
    sim.lock_log()
        .iter()
        .filter_map(|e| match e.2 {
            LockEvent::Acquired(l) => Some((true, l)),
            LockEvent::Released(l) => Some((false, l)),
            LockEvent::Queued(_) | LockEvent::PoolSleep | LockEvent::PoolWoken => None,
        })
        .collect()
}

/// The `a_lock`s a list of steps takes, in order: (space, mode).
fn a_locks_taken(steps: &[Step]) -> Vec<(Asid, Mode)> {
    steps
        .iter()
        .filter_map(|s| match s {
            Step::Lock(Lock::As(a), m) => Some((*a, *m)),
            _ => None,
        })
        .collect()
}

/// A fork of two pages (parent space 1, child space 3 on a 2-process,
/// 1-CPU machine) by a program that goes on writing its pages: the locks
/// each design takes and lets go, in order, worked from Solaris 8's VM
/// (`vm_as.c`), its fork and dispatcher (`fork.c`, `ts.c`, `disp.c`) and
/// seed 003 section 4.4's protocol.
///
/// The VM system holds the address spaces' `a_lock`s across the hat calls
/// and the hat takes none of its own (it is not recursive: `as_dup` holds
/// the parent's as writer when segvn_dup calls `hat_clrattr`):
/// * `as_dup`: the parent's `a_lock` as writer, then the child's, both
///   held to the end; inside, per private segment (the two data pages,
///   then the stack's page) one write-protect call (the second class of
///   section 4.4: the MMU descriptor's lock held across the range, no page
///   lock) and each anon slot's reference. The child's translations are
///   not copied (the SRMMU `hat_dup` does nothing).
/// * `ts_forkret`: the dispatcher lock three times (the child queued, the
///   parent queued, the switch that runs the child).
/// * the child's return to user mode reads its stack: `as_fault` (reader)
///   around one load: the MMU lock, inside it the stack page's lock (and
///   the free list's mutex for the two tables the new space needs there).
/// * the child's exit, `as_free`: the child's `a_lock` as writer across
///   the data unload (nothing loaded: its MMU lock alone), the stack
///   page's unload (the MMU lock, inside it the page's) and the
///   destruction (the MMU lock alone; the emptied tables go back under the
///   free list's mutex); its last switch: the dispatcher lock.
/// * the parent's `wait`: `pidlock`; the status stored on the stack: one
///   protection fault (reader; a load with write permission, the MMU lock
///   around the page's).
/// * the parent's stores fault each data page writable again, the same way.
///
/// Under the single lock every hat call is the hat lock alone. Each
/// logical lock is section 4.4's monitor: its mutex taken to set the busy
/// flag and again to clear it. Fails on main, where the processes have no
/// stack and the fork takes no dispatcher lock.
#[test]
fn a_fork_write_protects_the_parent_without_copying_mappings_under_each_design() {
    for design in Design::ALL {
        let mut sim = scripted(design, 1, 2, 2);
        let (parent, data) = sim.process(0).expect("process");
        let (pfn0, pfn1) = (data[0], data[1]);
        let stack = sim.stack(0).expect("stack");
        let before = sim.lock_stats().clone();
        let steps = sim.op_steps(0, OpKind::Fork, 2 * PAGE, Caller::Program).expect("fork");
        let (p, child) = (parent, Asid(parent.0 + 2));
        let (r, w) = (Mode::Shared, Mode::Exclusive);
        let a_locks = a_locks_taken(&steps);
        assert_eq!(
            a_locks,
            vec![(p, w), (child, w), (child, r), (child, w), (p, r), (p, r), (p, r)],
            "{}",
            design.name()
        );
        sim.log_locks(true);
        sim.push(0, steps);
        sim.drain().expect("fork runs without deadlock");
        sim.check().expect("consistent after fork");
        assert_eq!(sim.hat().prot_of(parent, STACK_VA), Some(Prot::RW), "{}", design.name());
        assert_eq!(sim.hat().frame(stack).map(|f| f.mappings.len()), Some(1), "{}", design.name());
        let anon = |pfn: Pfn| Lock::Anon((pfn.0 % 64) as u32);
        use Lock::*;
        let held = |l: Lock| vec![(true, l), (false, l)];
        let call = |inner: Vec<(bool, Lock)>| hat_call(design, inner);
        let mut want: Vec<(bool, Lock)> = held(Pidlock);
        // as_dup: the data segment, then the stack's
        want.extend([(true, As(p)), (true, As(child))]);
        want.extend(call(alone(design.mmu(p))));
        want.extend(held(anon(pfn0)));
        want.extend(held(anon(pfn1)));
        want.extend(call(alone(design.mmu(p))));
        want.extend(held(anon(stack)));
        want.extend([(false, As(child)), (false, As(p))]);
        // ts_forkret
        for _ in 0..3 {
            want.extend(held(Dispatcher));
        }
        // the child's stack read
        want.push((true, As(child)));
        want.extend(call(around(design.mmu(child), alone(design.page(stack)))));
        want.push((false, As(child)));
        // the child's as_free and last switch
        want.push((true, As(child)));
        want.extend(call(alone(design.mmu(child))));
        want.extend(call(around(design.mmu(child), alone(design.page(stack)))));
        want.extend(call(alone(design.mmu(child))));
        want.push((false, As(child)));
        want.extend(held(Dispatcher));
        // the parent's wait, then its protection faults: the stack, the data
        want.extend(held(Pidlock));
        for pfn in [stack, pfn0, pfn1] {
            want.push((true, As(p)));
            want.extend(call(around(design.mmu(p), alone(design.page(pfn)))));
            want.push((false, As(p)));
        }
        let log: Vec<(bool, Lock)> =
            taken_and_released(&sim).into_iter().filter(|(_, l)| !matches!(l, HatResource(_))).collect();
        assert_eq!(log, want, "{}", design.name());
        let taken = |class: LockClass| {
            sim.lock_stats().get(&class).map_or(0, |s| s.acquisitions)
                - before.get(&class).map_or(0, |s| s.acquisitions)
        };
        // Nine hat calls: two write-protects, the child's load, its two
        // unloads and destruction, the parent's three loads. The mutexes:
        // twice per logical lock; the pages' in five of them, the MMU
        // descriptors' in all nine. The free lists (one mutex for every
        // level, or one per level's list): the child's level-1, level-2
        // and level-3 tables taken for its stack load (its first), the
        // level-2 and level-3 given back as soon as its unload empties
        // them, the level-1 at its destruction.
        let (page_mutex, mmu_mutex, hat_lock) = match design {
            Design::SingleLock => (0, 0, 9),
            Design::PerDescriptor => (0, 0, 0),
            _ => (10, 18, 0),
        };
        let resource = match design {
            Design::SingleLock => 0,
            Design::HashedFreeLists => 6,
            _ => 3,
        };
        let page_locks = if design == Design::SingleLock { 0 } else { 5 };
        assert_eq!(taken(LockClass::PageMutex), page_mutex, "{}", design.name());
        assert_eq!(taken(LockClass::PageLogicalLock) + taken(LockClass::PageDescriptorMutex), page_locks);
        assert_eq!(taken(LockClass::MmuMutex), mmu_mutex, "{}", design.name());
        assert_eq!(taken(LockClass::HatLock), hat_lock, "{}", design.name());
        assert_eq!(taken(LockClass::HatResourceMutex), resource, "{}", design.name());
        assert_eq!(taken(LockClass::AsLock), 7, "{}", design.name());
        assert_eq!(taken(LockClass::DispatcherLock), 4, "{}", design.name());
    }
}

/// Each operation's hat steps and the `a_lock`s the VM holds around them
/// (space, mode), worked from Solaris 8's `vm_as.c`, for process 0 (space
/// 1; one text page, two data pages) under the multi-threaded hat. On
/// main the hat took `a_lock` as reader itself, so exec's and brk's
/// unloads ran under a reader lock of their own, not `as_free`'s or
/// `as_unmap`'s writer lock.
/// * exec: `as_free` (writer) unloads the old text, data and stack; the
///   new image's text page, its new stack page and one data page come in
///   by faults (reader each);
/// * brk of one page: `as_map` (writer, no hat call), the page's fault
///   (reader: reserve and load), `as_unmap` (writer: the unload);
/// * copy-on-write fault: the unload of the old copy and the load of the
///   new one, both inside one `as_fault` (reader);
/// * minor fault (text: the test workload has no shared memory): the load
///   inside `as_fault` (reader).
#[test]
fn each_operation_runs_its_hat_calls_inside_the_vms_a_lock() {
    let mut sim = scripted(Design::MultiThreaded, 1, 2, 2);
    let (asid, _) = sim.process(0).expect("process");
    let (r, w) = (vec![(asid, Mode::Shared)], vec![(asid, Mode::Exclusive)]);
    let cases = [
        (
            OpKind::Exec,
            vec![
                ("unload", &w),
                ("unload", &w),
                ("unload", &w),
                ("reserve", &r),
                ("load", &r),
                ("reserve", &r),
                ("load", &r),
                ("reserve", &r),
                ("load", &r),
            ],
        ),
        (OpKind::Brk, vec![("reserve", &r), ("load", &r), ("unload", &w)]),
        (OpKind::CowFault, vec![("unload", &r), ("reserve", &r), ("load", &r)]),
        (OpKind::MinorFault, vec![("reserve", &r), ("load", &r)]),
    ];
    for (kind, want) in cases {
        let steps = sim.op_steps(0, kind, PAGE, Caller::Program).expect("op");
        let mut held: Vec<(Asid, Mode)> = Vec::new();
        let mut seen = Vec::new();
        for s in &steps {
            match s {
                Step::Lock(Lock::As(a), m) => held.push((*a, *m)),
                Step::Unlock(Lock::As(a)) => held.retain(|h| h.0 != *a),
                Step::Hat(h) => {
                    let name = match h {
                        HatStep::Reserve { .. } => "reserve",
                        HatStep::LoadNow { .. } => "load",
                        HatStep::UnloadPages { .. } => "unload",
                        _ => "another hat step",
                    };
                    seen.push((name, held.clone()));
                }
                _ => {}
            }
        }
        assert!(held.is_empty(), "{kind:?} leaves {held:?} held");
        let want: Vec<(&str, Vec<(Asid, Mode)>)> = want.into_iter().map(|(n, h)| (n, h.clone())).collect();
        assert_eq!(seen, want, "{kind:?}");
        sim.push(0, steps);
        sim.drain().expect("runs without deadlock");
        sim.check().expect("consistent");
    }
}

/// Hat operations for the property test.
#[derive(Clone, Debug)]
enum Op {
    Touch { space: usize, page: u64 },
    Load { space: usize, page: u64, write: bool },
    Unload { space: usize, page: u64, pages: u64 },
    Protect { space: usize, page: u64, pages: u64, write: bool },
    UnloadFrame { space: usize, page: u64 },
    Pause(u64),
}

fn op() -> impl Strategy<Value = Op> {
    let space = 0usize..3;
    // Pages 6-11 are pages 0-5's frames again, one level-3 table further
    // (64 pages on): a space then needs tables beyond the set-up's.
    let page = 0u64..12;
    prop_oneof![
        (space.clone(), page.clone()).prop_map(|(space, page)| Op::Touch { space, page }),
        (space.clone(), page.clone(), any::<bool>()).prop_map(|(space, page, write)| Op::Load { space, page, write }),
        (space.clone(), page.clone(), 1u64..4).prop_map(|(space, page, pages)| Op::Unload { space, page, pages }),
        (space.clone(), page.clone(), 1u64..4, any::<bool>()).prop_map(|(space, page, pages, write)| Op::Protect {
            space,
            page,
            pages,
            write
        }),
        (space, page).prop_map(|(space, page)| Op::UnloadFrame { space, page }),
        (0u64..3000).prop_map(Op::Pause),
    ]
}

/// One random interleaving of hat operations: `script` as (CPU, operation)
/// pairs, the CPU taken modulo `cpus`, over three spaces whose processes
/// start on CPUs 0-2 and migrate with the script. With `tight`, the
/// table pool is at its floor (`tight_pool`), so loads that need a table
/// steal one or, with nothing to steal, sleep on the pool. Afterwards no TLB holds a
/// translation the hat unloaded or downgraded, every mapping list agrees
/// with the page tables, and no lock is left held (no deadlock).
/// The floor of `scripted_on`'s pool for `cpus` CPUs of one process each
/// with six data pages: three level-2 tables a process and one level-3
/// table a CPU, in whole frames of sixteen blocks, as a share of 64 MB.
fn tight_pool(cpus: usize) -> f64 {
    let frames = (3 * cpus as u64 + cpus as u64).div_ceil(16);
    frames as f64 * 4096.0 / (64u64 << 20) as f64
}

fn interleaving_stays_consistent(
    design: Design,
    cpus: usize,
    tight: bool,
    broadcast: bool,
    script: Vec<(usize, Op)>,
) -> Result<(), TestCaseError> {
    let mut p = MpParams::load("sparccenter-2000").expect("preset");
    if tight {
        p.table_pool_fraction.value = tight_pool(cpus);
    }
    let mut sim = scripted_on(p, design, cpus, 1, 6);
    if broadcast {
        sim.set_shoot_down_mode(ShootDownMode::BroadcastDemap);
    }
    let spaces: Vec<(Asid, Vec<Pfn>)> = (0..3)
        .map(|i| {
            let (a, d) = sim.process(i % cpus).expect("process");
            (a, d.to_vec())
        })
        .collect();
    let data = 0x0100_0000u64;
    let at = |page: u64| VirtAddr(data + (page % 6) * PAGE + (page / 6) * 64 * PAGE);
    for (cpu, o) in script {
        let cpu = cpu % cpus;
        // The VM holds the space's a_lock across each call, as a fault
        // (reader) or as_dup/as_unmap (writer) does; a pageout's unload
        // of a frame holds none.
        let vm = |asid: Asid, writer: bool, steps: Vec<Step>| {
            MpSim::under_a_lock(asid, if writer { Mode::Exclusive } else { Mode::Shared }, steps)
        };
        let steps = match o {
            Op::Touch { space, page } => vec![Step::Touch { asid: spaces[space].0, va: at(page) }],
            Op::Load { space, page, write } => {
                let (asid, ref d) = spaces[space];
                let prot = if write { Prot::RW } else { Prot::R };
                let call = sim.call(HatStep::Load { asid, va: at(page), pfn: d[(page % 6) as usize], prot });
                let mut s = vm(asid, false, call);
                s.push(Step::Touch { asid, va: at(page) });
                s
            }
            Op::Unload { space, page, pages } => {
                let asid = spaces[space].0;
                vm(asid, true, sim.call(HatStep::UnloadRange { asid, va: at(page), pages }))
            }
            Op::Protect { space, page, pages, write } => {
                let prot = if write { Prot::RW } else { Prot::R };
                let asid = spaces[space].0;
                vm(asid, !write, sim.call(HatStep::ChangeProt { asid, va: at(page), pages, prot }))
            }
            Op::UnloadFrame { space, page } => {
                sim.call(HatStep::UnloadFrame { pfn: spaces[space].1[(page % 6) as usize] })
            }
            Op::Pause(n) => vec![Step::User(n)],
        };
        sim.push(cpu, steps);
    }
    sim.drain().map_err(TestCaseError::fail)?;
    sim.check().map_err(TestCaseError::fail)?;
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Random interleavings of hat operations on 2-4 CPUs under every
    /// design and either shoot-down (cross-call or broadcast demap), with
    /// a roomy pool or none at all (`interleaving_stays_consistent`).
    #[test]
    fn interleavings_leave_tlbs_and_lists_consistent(
        design in 0usize..5,
        cpus in 2usize..5,
        tight in any::<bool>(),
        broadcast in any::<bool>(),
        script in proptest::collection::vec((0usize..4, op()), 1..40),
    ) {
        interleaving_stays_consistent(Design::ALL[design], cpus, tight, broadcast, script)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// The same on 8 to 64 CPUs, the machine sizes of S3 beyond the
    /// paper, with each operation on any of them: a space's MMU list can
    /// then hold dozens of CPUs, so a shoot-down interrupts (or a demap
    /// reaches) many TLBs while other CPUs wait for the same locks.
    #[test]
    fn interleavings_on_many_cpus_leave_tlbs_and_lists_consistent(
        design in 0usize..5,
        cpus in prop::sample::select(vec![8usize, 12, 16, 32, 64]),
        tight in any::<bool>(),
        broadcast in any::<bool>(),
        script in proptest::collection::vec((0usize..64, op()), 1..80),
    ) {
        interleaving_stays_consistent(Design::ALL[design], cpus, tight, broadcast, script)?;
    }
}

#[test]
fn same_seed_same_report() {
    let run = || {
        let p = MpParams::load("sparccenter-2000").expect("preset");
        let w = Workload::load("tpcb").expect("workload");
        let cfg =
            MpConfig { cpus: 4, design: Design::MultiThreaded, memory_bytes: 512 << 20, transactions: 60, seed: 3 };
        let mut sim = MpSim::new(p, w, &cfg).expect("sim");
        let r = sim.run().expect("run");
        sim.check().expect("consistent");
        serde_json::to_string(&r).expect("json")
    };
    assert_eq!(run(), run());
}

#[test]
fn bad_names_are_errors_that_list_the_known_ones() {
    let e = Design::parse("two-locks").expect_err("unknown design");
    assert!(e.contains("single-lock") && e.contains("hashed-free-lists"), "{e}");
    let e = Workload::load("tpcc").expect_err("unknown workload");
    assert!(e.contains("tpcb") && e.contains("kenbus1"), "{e}");
    let e = Workload::parse("w.toml", "name = 1").expect_err("bad file");
    assert!(e.starts_with("w.toml: line 1"), "{e}");
    let e = ShootDownMode::parse("ipi").expect_err("unknown shoot-down");
    assert!(e.contains("cross-call") && e.contains("broadcast-demap"), "{e}");
    assert_eq!(Workload::load("lmbench-proc").expect("shipped").name, "lmbench-proc");
}

/// The one fit on an operating-system primitive: lmbench's null system call
/// on a SuperSPARC XDBus machine (Sun SC1000, 9 us) is 450 cycles at the
/// preset's 50 MHz, and the preset's system-call path, run on a warm CPU,
/// costs exactly that (kernel code at CPI 1, every fetch an L1 hit).
#[test]
fn the_system_call_path_is_calibrated_on_lmbenchs_null_call() {
    let mut sim = scripted(Design::SingleLock, 1, 1, 1);
    let p = sim.params().clone();
    let n = p.path.syscall.value as u64;
    assert!(p.path.syscall.source.starts_with("calibrated: lmbench"), "{}", p.path.syscall.source);
    sim.push(0, vec![Step::Run(n)]);
    sim.drain().expect("cold run");
    let (t0, k0) = sim.cpu_clock(0);
    sim.push(0, vec![Step::Run(n)]);
    sim.drain().expect("warm run");
    let (t1, k1) = sim.cpu_clock(0);
    let null_call_ns = 9_000.0;
    assert_eq!(t1 - t0, (null_call_ns * p.clock_mhz.value / 1000.0) as u64);
    assert_eq!(k1.kernel - k0.kernel, 450);
}

/// The memory calibration in the model: CPU 1 never ran the space, so the
/// SRMMU walk of its first touch loads three PTEs (context, level-2 and
/// level-3 entries) that miss both of its caches: each costs its reference
/// cycle plus memory_cycles, 1 + 61 = 62 cycles = lmbench's 1236 ns on the
/// Sun SC1000 at 50 MHz (61.8, rounded). The same walk again hits the
/// level-1 cache: 1 cycle a load, lmbench's 20 ns.
#[test]
fn a_cold_table_walk_costs_lmbenchs_memory_latency_per_load() {
    let mut sim = scripted(Design::SingleLock, 2, 1, 4);
    let (asid, _) = sim.process(0).expect("process 0");
    let va = 0x0100_0000u64 + 2 * PAGE;
    let mut refs = Vec::new();
    sim.hat().table().walk(asid, VirtAddr(va), &mut refs).expect("walk");
    assert_eq!(refs.len(), 3);
    let p = sim.params().clone();
    assert_eq!(1.0 + p.memory_cycles.value, (1236.0 * p.clock_mhz.value / 1000.0_f64).round());
    let mut user = Vec::new();
    for _ in 0..2 {
        let before = sim.cpu_clock(1).1.user;
        sim.push(1, vec![Step::Touch { asid, va: VirtAddr(va) }]);
        sim.drain().expect("touch");
        user.push(sim.cpu_clock(1).1.user - before);
    }
    assert_eq!(user, vec![3 * 62, 3]);
}

/// The hat's own locks in `sim`'s lock log, in order: the hat lock, the
/// page and MMU descriptors' locks and their mutexes (the VM's `a_lock`,
/// the kernel's other locks and the table pool's mutexes left out).
fn hat_locks_in_order(sim: &MpSim) -> Vec<(bool, Lock)> {
    taken_and_released(sim)
        .into_iter()
        .filter(|(_, l)| {
            matches!(
                l,
                Lock::Hat
                    | Lock::PageMutex(_)
                    | Lock::MmuMutex(_)
                    | Lock::Page(_)
                    | Lock::Mmu(_)
                    | Lock::PageLogical(_)
                    | Lock::MmuLogical(_)
            )
        })
        .collect()
}

/// Taking and dropping a design's guard: a mutex once each way; a logical
/// lock as section 4.4's monitor (its mutex around setting, then around
/// clearing, the busy flag).
fn take(g: Guard) -> Vec<(bool, Lock)> {
    match g {
        Guard::None => vec![],
        Guard::Mutex(m) => vec![(true, m)],
        Guard::Logical { lock, mutex } => vec![(true, mutex), (true, lock), (false, mutex)],
    }
}

fn drop_guard(g: Guard) -> Vec<(bool, Lock)> {
    match g {
        Guard::None => vec![],
        Guard::Mutex(m) => vec![(false, m)],
        Guard::Logical { lock, mutex } => vec![(true, mutex), (false, lock), (false, mutex)],
    }
}

/// One hat call's locks in the log: the hat lock alone under the single
/// lock, else `inner` (the design's guards).
fn hat_call(design: Design, inner: Vec<(bool, Lock)>) -> Vec<(bool, Lock)> {
    match design.global() {
        Some(h) => vec![(true, h), (false, h)],
        None => inner,
    }
}

/// `inner` taken and let go inside the guard `outer`.
fn around(outer: Guard, inner: Vec<(bool, Lock)>) -> Vec<(bool, Lock)> {
    let mut v = take(outer);
    v.extend(inner);
    v.extend(drop_guard(outer));
    v
}

/// A guard taken and let go with nothing inside it.
fn alone(g: Guard) -> Vec<(bool, Lock)> {
    around(g, vec![])
}

/// The same two-page fork as above under the named variant
/// `ForkMode::CopyTranslations` (issue 21's "a fork that copies mappings"
/// read as the hat copying translations; Solaris 2.6's x86 `hat_dup`),
/// worked by hand for every design: the hat's locks in order.
/// * `as_dup` (both spaces' `a_lock` as writer, as before): the parent's
///   write-protects (data, stack: one call each, its MMU lock, no page
///   lock), then one load per page into the child (both data pages, the
///   stack's): the child's MMU lock, inside it the page's lock (its
///   mapping list gains the child's entry);
/// * the child's return to user mode finds its stack mapped: no fault;
/// * the child's exit: its unloads now find the copies: the child's MMU
///   lock across each range, inside it each page's lock; then its
///   destruction (the MMU lock alone);
/// * the parent's protection faults: the stack's, then a load per data
///   page, as above.
///
/// Under the single lock each of those eleven hat calls is the hat lock
/// alone. The page locks taken: nine (three copies, three unloads, three
/// faults), against five in the write-protecting fork. Fails without the
/// variant (the child gets no copy, and takes a fault for its stack).
#[test]
fn a_fork_that_copies_translations_takes_each_designs_locks_in_order() {
    for design in Design::ALL {
        let mut sim = scripted(design, 1, 2, 2);
        sim.set_fork_mode(ForkMode::CopyTranslations);
        let (parent, data) = sim.process(0).expect("process");
        let (pfn0, pfn1) = (data[0], data[1]);
        let stack = sim.stack(0).expect("stack");
        let (p, child) = (parent, Asid(parent.0 + 2));
        let steps = sim.op_steps(0, OpKind::Fork, 2 * PAGE, Caller::Program).expect("fork");
        let loads: Vec<(Asid, VirtAddr, Pfn)> = steps
            .iter()
            .filter_map(|s| match s {
                Step::Hat(HatStep::Load { asid, va, pfn, prot } | HatStep::LoadNow { asid, va, pfn, prot })
                    if *asid == child =>
                {
                    assert_eq!(*prot, Prot::R, "a copied translation is read-only");
                    Some((*asid, *va, *pfn))
                }
                _ => None,
            })
            .collect();
        let data_va = loads.first().map(|l| l.1).expect("a copied page");
        assert_eq!(
            loads,
            vec![(child, data_va, pfn0), (child, VirtAddr(data_va.0 + PAGE), pfn1), (child, STACK_VA, stack)],
            "{}",
            design.name()
        );
        sim.log_locks(true);
        sim.push(0, steps);
        sim.drain().expect("fork runs without deadlock");
        sim.check().expect("consistent after fork");
        assert!(sim.hat().space(child).is_none(), "the child's descriptor is gone");
        assert_eq!(sim.hat().frame(pfn0).map(|f| f.mappings.len()), Some(1), "only the parent's mapping is left");
        let (mmu_p, mmu_c) = (design.mmu(p), design.mmu(child));
        let (page0, page1, page_s) = (design.page(pfn0), design.page(pfn1), design.page(stack));
        let call = |inner: Vec<(bool, Lock)>| hat_call(design, inner);
        let mut want = Vec::new();
        // as_dup: write-protect the parent's data and stack, then
        // hat_dup's three loads.
        want.extend(call(alone(mmu_p)));
        want.extend(call(alone(mmu_p)));
        want.extend(call(around(mmu_c, alone(page0))));
        want.extend(call(around(mmu_c, alone(page1))));
        want.extend(call(around(mmu_c, alone(page_s))));
        // the child's as_free: the unload of the copies, the destruction.
        want.extend(call(around(mmu_c, [alone(page0), alone(page1)].concat())));
        want.extend(call(around(mmu_c, alone(page_s))));
        want.extend(call(alone(mmu_c)));
        // the parent's protection faults.
        want.extend(call(around(mmu_p, alone(page_s))));
        want.extend(call(around(mmu_p, alone(page0))));
        want.extend(call(around(mmu_p, alone(page1))));
        assert_eq!(hat_locks_in_order(&sim), want, "{}", design.name());
        let page_locks = want.iter().filter(|(t, l)| *t && matches!(l, Lock::Page(_) | Lock::PageLogical(_))).count();
        let expected = if design == Design::SingleLock { 0 } else { 9 };
        assert_eq!(page_locks, expected, "{}", design.name());
    }
}

/// The two fork modes by name; a wrong one lists the known.
#[test]
fn fork_modes_by_name() {
    assert_eq!(ForkMode::parse("write-protect"), Ok(ForkMode::WriteProtect));
    assert_eq!(ForkMode::parse("copy-translations"), Ok(ForkMode::CopyTranslations));
    let e = ForkMode::parse("copy").expect_err("unknown");
    assert!(e.contains("write-protect, copy-translations"), "{e}");
}

/// A vexec (4.3BSD-Net/2 `vexecs.c`: vfork, the child execs `nulljob`,
/// which exits) by process 0 (space 1, two data pages, a one-page program)
/// on a 2-process, 1-CPU machine, worked by hand for every design. The
/// child's new space is 3. vfork shares the parent's space (SunOS 4.1.3
/// `fork1`), so no hat call and no `a_lock` touches space 1; the new
/// image (`getxfile`):
/// * `as_map`s under space 3's `a_lock` as writer, no hat call;
/// * its text page prefaulted: `as_fault` (reader) around one load, the
///   MMU lock, inside it the text page's lock;
/// * `execve`'s copy of the arguments to the stack: one zero-filled page
///   loaded the same way (reader);
/// * `nulljob`'s exit, `as_free` (writer): the text's unload and the
///   stack's (each the MMU lock across the range, inside it the page's
///   lock), then the destruction (the MMU lock alone).
///
/// Under the single lock each of those five hat calls is the hat lock
/// alone; under the others, four page locks and five MMU locks, each
/// logical lock its mutex twice. `pidlock` is taken by vfork and by the
/// parent's wait; the dispatcher lock four times (the child queued, the
/// parent's switch in `vfwait`, the parent queued by `relvm`, `nulljob`'s
/// last switch).
#[test]
fn a_vexec_takes_each_designs_locks_in_order_and_leaves_the_parent_alone() {
    for design in Design::ALL {
        let mut sim = scripted(design, 1, 2, 2);
        let (parent, data) = sim.process(0).expect("process");
        let data = data.to_vec();
        let (p, child) = (parent, Asid(parent.0 + 2));
        let frames_before = sim.hat().frames_in_use();
        let parent_maps: Vec<usize> =
            data.iter().map(|&f| sim.hat().frame(f).map_or(0, |f| f.mappings.len())).collect();
        let before = sim.lock_stats().clone();
        let steps = sim.op_steps(0, OpKind::Vexec, 1 << 20, Caller::Program).expect("vexec");
        let a_locks = a_locks_taken(&steps);
        let (r, w) = (Mode::Shared, Mode::Exclusive);
        assert_eq!(a_locks, vec![(child, w), (child, r), (child, r), (child, w)], "{}", design.name());
        let loads: Vec<(Asid, u64)> = steps
            .iter()
            .filter_map(|s| match s {
                Step::Hat(HatStep::Load { asid, va, prot, .. } | HatStep::LoadNow { asid, va, prot, .. }) => {
                    Some((*asid, va.0 + u64::from(*prot == Prot::RW)))
                }
                _ => None,
            })
            .collect();
        // The text read-only at the program's address, the stack's top
        // page writable below KERNELBASE (0xF000_0000).
        assert_eq!(loads, vec![(child, 0x0001_0000), (child, 0xF000_0000 - PAGE + 1)], "{}", design.name());
        let text_pfn = steps
            .iter()
            .find_map(|s| match s {
                Step::Hat(HatStep::Load { pfn, .. } | HatStep::LoadNow { pfn, .. }) => Some(*pfn),
                _ => None,
            })
            .expect("a text load");
        let stack_pfn = steps
            .iter()
            .find_map(|s| match s {
                Step::Zero { pfn } => Some(*pfn),
                _ => None,
            })
            .expect("the stack page zeroed");
        sim.log_locks(true);
        sim.push(0, steps);
        sim.drain().expect("vexec runs without deadlock");
        sim.check().expect("consistent after vexec");
        assert!(sim.hat().space(child).is_none(), "the child's descriptor is gone");
        assert!(sim.hat().space(parent).is_some(), "the parent's space is given back, not freed");
        assert_eq!(sim.hat().frames_in_use(), frames_before, "the stack page is freed");
        let after: Vec<usize> = data.iter().map(|&f| sim.hat().frame(f).map_or(0, |f| f.mappings.len())).collect();
        assert_eq!(after, parent_maps, "the parent's translations are untouched");
        let (mmu_c, text, stack) = (design.mmu(child), design.page(text_pfn), design.page(stack_pfn));
        let call = |inner: Vec<(bool, Lock)>| hat_call(design, inner);
        let mut want = Vec::new();
        want.extend(call(around(mmu_c, alone(text))));
        want.extend(call(around(mmu_c, alone(stack))));
        want.extend(call(around(mmu_c, alone(text))));
        want.extend(call(around(mmu_c, alone(stack))));
        want.extend(call(alone(mmu_c)));
        assert_eq!(hat_locks_in_order(&sim), want, "{}", design.name());
        let on_parent = taken_and_released(&sim)
            .into_iter()
            .filter(|(_, l)| *l == Lock::As(p) || matches!(design.mmu(p), Guard::Mutex(m) if m == *l))
            .count();
        assert_eq!(on_parent, 0, "{}", design.name());
        let taken = |class: LockClass| {
            sim.lock_stats().get(&class).map_or(0, |s| s.acquisitions)
                - before.get(&class).map_or(0, |s| s.acquisitions)
        };
        let (page_mutex, mmu_mutex, hat_lock, page_locks) = match design {
            Design::SingleLock => (0, 0, 5, 0),
            Design::PerDescriptor => (0, 0, 0, 4),
            _ => (8, 10, 0, 4),
        };
        assert_eq!(taken(LockClass::PageMutex), page_mutex, "{}", design.name());
        assert_eq!(taken(LockClass::PageLogicalLock) + taken(LockClass::PageDescriptorMutex), page_locks);
        assert_eq!(taken(LockClass::MmuMutex), mmu_mutex, "{}", design.name());
        assert_eq!(taken(LockClass::HatLock), hat_lock, "{}", design.name());
        assert_eq!(taken(LockClass::AsLock), 4, "{}", design.name());
        assert_eq!(taken(LockClass::Pidlock), 2, "{}", design.name());
        assert_eq!(taken(LockClass::DispatcherLock), 4, "{}", design.name());
    }
}

/// Microbench's fork as 4.3BSD-Net/2 `forks.c` runs it (`Caller::BsdSuite`):
/// the parent stored into its sbrk'd pages once, before its loop, and in
/// the loop only forks and waits. Process 0 (space 1, two data pages)
/// forks twice on a 2-process, 1-CPU machine, worked by hand for every
/// design; the children are spaces 3 and 4. Each fork is `as_dup`
/// (space 1's then the child's `a_lock` as writer; the write-protects,
/// one call per segment, data and stack: the parent's MMU lock alone),
/// the child's stack read (its `a_lock` as reader; a load: its MMU lock
/// around the stack page's), the child's `as_free` (its `a_lock` as
/// writer; the unload of a data range it never loaded, its MMU lock
/// alone, the stack page's unload, the MMU lock around the page's, and
/// the destruction, the MMU lock alone) and the parent's stack fault on
/// `wait(&status)` (space 1 as reader; a load). No data page faults:
/// the parent's data pages stay read-only after the first fork and the
/// second write-protects them again; its stack is writable after each.
/// Fails on main, where the processes have no stack (no stack
/// write-protect, no child's read, no parent's fault).
#[test]
fn a_bsd_suite_fork_leaves_the_parents_pages_read_only_under_each_design() {
    for design in Design::ALL {
        let mut sim = scripted(design, 1, 2, 2);
        let (parent, data) = sim.process(0).expect("process");
        let (p, data) = (parent, data.to_vec());
        let data_va = VirtAddr(0x0100_0000);
        assert_eq!(sim.hat().prot_of(parent, data_va), Some(Prot::RW), "{}", design.name());
        sim.log_locks(true);
        let mut want = Vec::new();
        let stack = sim.stack(0).expect("stack");
        for child in [Asid(p.0 + 2), Asid(p.0 + 3)] {
            let steps = sim.op_steps(0, OpKind::Fork, 2 * PAGE, Caller::BsdSuite).expect("fork");
            let (r, w) = (Mode::Shared, Mode::Exclusive);
            assert_eq!(
                a_locks_taken(&steps),
                vec![(p, w), (child, w), (child, r), (child, w), (p, r)],
                "{}",
                design.name()
            );
            sim.push(0, steps);
            sim.drain().expect("fork runs without deadlock");
            sim.check().expect("consistent after fork");
            let call = |inner: Vec<(bool, Lock)>| hat_call(design, inner);
            let (mmu_c, page_s) = (design.mmu(child), design.page(stack));
            want.extend(call(alone(design.mmu(p))));
            want.extend(call(alone(design.mmu(p))));
            want.extend(call(around(mmu_c, alone(page_s))));
            want.extend(call(alone(mmu_c)));
            want.extend(call(around(mmu_c, alone(page_s))));
            want.extend(call(alone(mmu_c)));
            want.extend(call(around(design.mmu(p), alone(page_s))));
            assert_eq!(sim.hat().prot_of(parent, STACK_VA), Some(Prot::RW), "{}", design.name());
            for k in 0..2 {
                let va = VirtAddr(data_va.0 + k * PAGE);
                assert_eq!(sim.hat().prot_of(parent, va), Some(Prot::R), "{}", design.name());
                assert_eq!(sim.hat().lookup(parent, va), Some(data[k as usize]), "{}", design.name());
            }
        }
        assert_eq!(hat_locks_in_order(&sim), want, "{}", design.name());
    }
}

/// Microbench's exec as 4.3BSD-Net/2 `execs.c` runs it (`execs 1000 <size>
/// nulljob`, `Caller::BsdSuite`): process 0 (space 1, two data pages, a
/// one-page program) forks, the child execs `nulljob`, which exits, and
/// the parent waits; 2 processes on 1 CPU, worked by hand for every
/// design. The fork's copy is space 3, the null program's space 4.
/// * fork: `as_dup` (spaces 1 and 3 as writer; the parent's
///   write-protects of its data and its stack: its MMU lock alone each;
///   an anon lock per page, the stack's last);
/// * the child's return to user mode reads its stack (space 3 as reader:
///   a load, the MMU lock around the stack page's lock);
/// * the exec: `as_free` of the copy (space 3 as writer: the unload of a
///   data range never loaded, the MMU lock alone; the stack page's, the
///   MMU lock around the page's; the destruction, the MMU lock alone), then
///   the null program's image as vexec builds it: `as_map` (space 4 as
///   writer, no hat call), the text page's and the stack page's loads
///   (reader each: the MMU lock, inside it the page's lock), `nulljob`'s
///   exit (`as_free`, writer: two unloads, each page's lock inside the
///   MMU lock, and the destruction);
/// * the parent's `wait(&status)`: its stack's protection fault (space 1
///   as reader: a load, the MMU lock around the page's).
///
/// The parent keeps its space and frames, its data pages read-only, its
/// stack writable, and no frame is left in use. `pidlock` twice (fork,
/// wait). Fails on main, whose processes have no stack.
#[test]
fn a_bsd_suite_exec_forks_and_the_child_execs_the_null_program_under_each_design() {
    for design in Design::ALL {
        let mut sim = scripted(design, 1, 2, 2);
        let (parent, data) = sim.process(0).expect("process");
        let data = data.to_vec();
        let (p, copy, image) = (parent, Asid(parent.0 + 2), Asid(parent.0 + 3));
        let stack = sim.stack(0).expect("stack");
        let frames_before = sim.hat().frames_in_use();
        let before = sim.lock_stats().clone();
        let steps = sim.op_steps(0, OpKind::Exec, 2 * PAGE, Caller::BsdSuite).expect("exec");
        let (r, w) = (Mode::Shared, Mode::Exclusive);
        assert_eq!(
            a_locks_taken(&steps),
            vec![(p, w), (copy, w), (copy, r), (copy, w), (image, w), (image, r), (image, r), (image, w), (p, r)],
            "{}",
            design.name()
        );
        let anon: Vec<Lock> = steps
            .iter()
            .filter_map(|s| match s {
                Step::Lock(l @ Lock::Anon(_), _) => Some(*l),
                _ => None,
            })
            .collect();
        let anon_of = |pfn: Pfn| Lock::Anon((pfn.0 % 64) as u32);
        assert_eq!(anon, vec![anon_of(data[0]), anon_of(data[1]), anon_of(stack)]);
        let pages_loaded: Vec<Pfn> = steps
            .iter()
            .filter_map(|s| match s {
                Step::Hat(HatStep::Load { pfn, .. } | HatStep::LoadNow { pfn, .. }) => Some(*pfn),
                _ => None,
            })
            .collect();
        assert_eq!(pages_loaded.len(), 4, "the child's stack, the null program's text and stack, the parent's stack");
        assert_eq!((pages_loaded[0], pages_loaded[3]), (stack, stack));
        let (text_pfn, stack_pfn) = (pages_loaded[1], pages_loaded[2]);
        sim.log_locks(true);
        sim.push(0, steps);
        sim.drain().expect("exec runs without deadlock");
        sim.check().expect("consistent after exec");
        assert!(sim.hat().space(copy).is_none() && sim.hat().space(image).is_none());
        assert!(sim.hat().space(parent).is_some(), "the parent keeps its space");
        assert_eq!(sim.hat().frames_in_use(), frames_before, "the stack page is freed");
        for (k, &pfn) in data.iter().enumerate() {
            let va = VirtAddr(0x0100_0000 + k as u64 * PAGE);
            assert_eq!(sim.hat().lookup(parent, va), Some(pfn), "{}", design.name());
            assert_eq!(sim.hat().prot_of(parent, va), Some(Prot::R), "{}", design.name());
        }
        assert_eq!(sim.hat().prot_of(parent, STACK_VA), Some(Prot::RW), "{}", design.name());
        let (mmu_c, mmu_i) = (design.mmu(copy), design.mmu(image));
        let parent_stack = design.page(stack);
        let (text, stack) = (design.page(text_pfn), design.page(stack_pfn));
        let call = |inner: Vec<(bool, Lock)>| hat_call(design, inner);
        let mut want = Vec::new();
        want.extend(call(alone(design.mmu(p))));
        want.extend(call(alone(design.mmu(p))));
        want.extend(call(around(mmu_c, alone(parent_stack))));
        want.extend(call(alone(mmu_c)));
        want.extend(call(around(mmu_c, alone(parent_stack))));
        want.extend(call(alone(mmu_c)));
        want.extend(call(around(mmu_i, alone(text))));
        want.extend(call(around(mmu_i, alone(stack))));
        want.extend(call(around(mmu_i, alone(text))));
        want.extend(call(around(mmu_i, alone(stack))));
        want.extend(call(alone(mmu_i)));
        want.extend(call(around(design.mmu(p), alone(parent_stack))));
        assert_eq!(hat_locks_in_order(&sim), want, "{}", design.name());
        let taken = |class: LockClass| {
            sim.lock_stats().get(&class).map_or(0, |s| s.acquisitions)
                - before.get(&class).map_or(0, |s| s.acquisitions)
        };
        assert_eq!(taken(LockClass::AsLock), 9, "{}", design.name());
        assert_eq!(taken(LockClass::Pidlock), 2, "{}", design.name());
        assert_eq!(taken(LockClass::DispatcherLock), 4, "{}", design.name());
        let hat_lock = if design == Design::SingleLock { 12 } else { 0 };
        assert_eq!(taken(LockClass::HatLock), hat_lock, "{}", design.name());
    }
}

/// `caller = "bsd-suite"` names the BSD suite's fork and exec loops; on
/// any other operation it is an error naming the operation. The shipped
/// Microbench runs every fork and exec that way.
#[test]
fn the_bsd_suite_caller_is_for_fork_and_exec() {
    let text = |kind: &str| {
        format!(
            "name = \"t\"\ndescription = \"t\"\nsource = \"test\"\nuser_cycles = 0\nprocesses_per_cpu = 1\n\
             data_pages = 2\ntext_pages = 1\nprograms = 1\n[[op]]\nkind = \"{kind}\"\nper_transaction = 1\n\
             caller = \"bsd-suite\"\n"
        )
    };
    for kind in ["fork", "exec"] {
        let w = Workload::parse("t.toml", &text(kind)).expect("bsd-suite fork or exec");
        assert_eq!(w.ops[0].caller, Caller::BsdSuite);
    }
    let e = Workload::parse("t.toml", &text("vfork")).expect_err("not for vfork");
    assert_eq!(e, "t.toml: op vfork: caller \"bsd-suite\" is for fork and exec only");
    let micro = Workload::load("microbench").expect("microbench");
    let callers: Vec<(OpKind, Caller)> = micro
        .ops
        .iter()
        .filter(|o| matches!(o.kind, OpKind::Fork | OpKind::Exec))
        .map(|o| (o.kind, o.caller))
        .collect();
    assert_eq!(callers.len(), 6);
    assert!(callers.iter().all(|c| c.1 == Caller::BsdSuite), "{callers:?}");
}

/// The time from event `a` to the next event after it, and from the event
/// before `b` to `b`, in the lock log: what a fault costs outside its hat
/// call.
fn around_the_hat(log: &[(usize, u64, LockEvent)], a: usize, b: usize) -> (u64, u64) {
    (log[a + 1].1 - log[a].1, log[b].1 - log[b - 1].1)
}

/// One fork of 4.3BSD-Net/2 `forks.c` (`Caller::BsdSuite`; process 0,
/// space 1, two data pages; the child is space 3) on a fresh 1-CPU
/// machine, worked by hand for every design: the stack's two faults and
/// the dispatcher lock, with their locks and cycles.
/// * The dispatcher lock four times, never found held: `ts_forkret`
///   queues the child and the parent (`setbackdq`, `lock.disp_enqueue` 60
///   instructions each) and switches to the child (`disp`,
///   `lock.disp_dequeue` 50); the child's exit switches back (50). Its
///   word is cold at first (the line over the bus, `atomic_cycles` 62),
///   then this CPU's (a SuperCache hit, `l2_hit_cycles` 6), and kernel
///   code runs warm at CPI 1: holds, acquisition to release, 62 + 60,
///   6 + 60, 6 + 50 and 6 + 50 = 300 cycles.
/// * The child's return to user mode reads its stack page: `as_fault` on
///   space 3 as reader; the page loaded read-only. The parent's
///   `wait(&status)` writes its stack page: `as_fault` on space 1 as
///   reader; the page loaded writable, the same frame. Each: its
///   `a_lock` word last touched by this CPU in `as_dup` (6 cycles), then
///   `path.fault` 400 and `path.per_page_vm` 150 instructions, so the
///   hat's first lock is taken exactly 556 cycles after the `a_lock`, and
///   the `a_lock` is let go 6 cycles (the hat's last release, a hit)
///   after the hat's last lock. The hat's locks between: the hat lock
///   alone, or the space's MMU lock around the stack page's.
///
/// Fails on main, whose processes have no stack and whose fork takes no
/// dispatcher lock.
#[test]
fn a_bsd_suite_forks_stack_faults_and_dispatcher_lock_by_hand_under_each_design() {
    for design in Design::ALL {
        let mut sim = scripted(design, 1, 2, 2);
        let (parent, _) = sim.process(0).expect("process");
        let stack = sim.stack(0).expect("stack");
        let child = Asid(parent.0 + 2);
        let before = sim.lock_stats().get(&LockClass::DispatcherLock).copied().unwrap_or_default();
        let steps = sim.op_steps(0, OpKind::Fork, 2 * PAGE, Caller::BsdSuite).expect("fork");
        let stack_loads: Vec<(Asid, Pfn, Prot)> = steps
            .iter()
            .filter_map(|s| match s {
                Step::Hat(HatStep::Load { asid, va, pfn, prot } | HatStep::LoadNow { asid, va, pfn, prot })
                    if *va == STACK_VA =>
                {
                    Some((*asid, *pfn, *prot))
                }
                _ => None,
            })
            .collect();
        assert_eq!(stack_loads, vec![(child, stack, Prot::R), (parent, stack, Prot::RW)], "{}", design.name());
        sim.log_locks(true);
        sim.push(0, steps);
        sim.drain().expect("fork runs without deadlock");
        sim.check().expect("consistent after fork");
        let d = sim.lock_stats()[&LockClass::DispatcherLock];
        let (a, p) = (sim.params().atomic_cycles.value as u64, sim.params().l2_hit_cycles.value as u64);
        let (enq, deq) = (sim.params().lock.disp_enqueue.value as u64, sim.params().lock.disp_dequeue.value as u64);
        assert_eq!((a, p, enq, deq), (62, 6, 60, 50));
        assert_eq!(d.acquisitions - before.acquisitions, 4, "{}", design.name());
        assert_eq!(d.contended - before.contended, 0, "{}", design.name());
        assert_eq!(d.wait_cycles - before.wait_cycles, 0, "{}", design.name());
        assert_eq!(d.hold_cycles - before.hold_cycles, (a + enq) + (p + enq) + 2 * (p + deq), "{}", design.name());
        assert_eq!(d.hold_cycles - before.hold_cycles, 300);
        let log = sim.lock_log().to_vec();
        // Space 3's a_lock: as_dup's writer, the stack read's reader, then
        // as_free's writer; space 1's: as_dup's writer, the stack fault's.
        for (space, nth) in [(child, 1), (parent, 1)] {
            let taken = (log.iter().enumerate())
                .filter(|(_, x)| x.2 == LockEvent::Acquired(Lock::As(space)))
                .nth(nth)
                .expect("the stack fault's a_lock")
                .0;
            let released = taken
                + log[taken..].iter().position(|x| x.2 == LockEvent::Released(Lock::As(space))).expect("released");
            assert_eq!(around_the_hat(&log, taken, released), (p + 400 + 150, p), "{} {space:?}", design.name());
            let inner: Vec<(bool, Lock)> = log[taken + 1..released]
                .iter()
                .filter_map(|e| match e.2 {
                    LockEvent::Acquired(l) => Some((true, l)),
                    LockEvent::Released(l) => Some((false, l)),
                    LockEvent::Queued(_) | LockEvent::PoolSleep | LockEvent::PoolWoken => None,
                })
                .filter(|(_, l)| !matches!(l, Lock::HatResource(_)))
                .collect();
            let want = hat_call(design, around(design.mmu(space), alone(design.page(stack))));
            assert_eq!(inner, want, "{}", design.name());
        }
        assert_eq!(sim.hat().prot_of(parent, STACK_VA), Some(Prot::RW), "{}", design.name());
        assert!(sim.hat().space(child).is_none());
        assert_eq!(sim.hat().frame(stack).map(|f| f.mappings.len()), Some(1), "{}", design.name());
    }
}

/// A run's lock table lists every lock class of its design and of the
/// kernel around it, a class never taken with zero counts, and no class
/// the design lacks: a scripted run that takes no lock at all lists them
/// all at zero; a TPC-B run takes none outside its design's list.
#[test]
fn every_lock_class_of_a_design_is_reported_zero_counts_included() {
    let kernel = ["a_lock", "pidlock", "freemem_lock", "anon_hash_mutex", "vnode lock", "dispatcher lock"];
    for design in Design::ALL {
        let mut want: Vec<&str> = design.hat_lock_classes().iter().map(|k| k.name()).collect();
        want.extend(kernel);
        want.sort_unstable();
        let p = MpParams::load("sparccenter-2000").expect("preset");
        let text = "name = \"t\"\ndescription = \"t\"\nsource = \"test\"\nuser_cycles = 0\nprocesses_per_cpu = 1\n\
                    data_pages = 1\ntext_pages = 1\nprograms = 1\nop = []\n";
        let w = Workload::parse("test.toml", text).expect("test workload");
        let cfg = MpConfig { cpus: 2, design, memory_bytes: 64 << 20, transactions: 0, seed: 7 };
        let r = MpSim::new(p, w, &cfg).expect("sim").run().expect("run");
        assert_eq!(r.locks.keys().copied().collect::<Vec<_>>(), want, "{design:?}");
        assert!(r.locks.values().all(|s| *s == LockStats::default()), "{design:?}");
        let p = MpParams::load("sparccenter-2000").expect("preset");
        let cfg = MpConfig { cpus: 4, design, memory_bytes: 512 << 20, transactions: 20, seed: 3 };
        let mut sim = MpSim::new(p, Workload::load("tpcb").expect("workload"), &cfg).expect("sim");
        let r = sim.run().expect("run");
        assert_eq!(r.locks.keys().copied().collect::<Vec<_>>(), want, "{design:?}");
        assert!(r.locks.values().any(|s| s.acquisitions > 0), "{design:?}");
        let mut broadcast = MpSim::new(
            MpParams::load("sparccenter-2000").expect("preset"),
            Workload::load("tpcb").expect("workload"),
            &cfg,
        )
        .expect("sim");
        broadcast.set_shoot_down_mode(ShootDownMode::BroadcastDemap);
        let r = broadcast.run().expect("run");
        assert!(r.locks.contains_key("srmmu_demap_mutex"), "{design:?}");
    }
}
