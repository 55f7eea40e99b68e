//! Context-switch mechanisms on the SA-1100 (crates/os/src/switch.rs),
//! worked by hand: which lines and TLB entries a switch flushes or keeps,
//! a domain collision's lazy flush, domain recycling with 17 processes; and
//! a property test: no mechanism lets the consistency oracle see a stale
//! read, and dropping a required flush does, with a minimised example.

#![allow(clippy::unwrap_used, clippy::panic)]

use proptest::prelude::*;
use proptest::test_runner::{Config, TestError, TestRng, TestRunner};
use vmlab_addr::{Domain, VirtAddr};
use vmlab_cache::RefKind;
use vmlab_os::switch::{lines, Kernel, Region, Scheme, Skip, SwitchPreset};

fn sa1100() -> SwitchPreset {
    SwitchPreset::load("strongarm-sa1100").unwrap()
}

const TASK0: u64 = 0xc040_0000;
const TASK1: u64 = 0xc040_2000;

/// P0 loads and stores 0x8000 (the D-cache allocates on reads only:
/// SA-1100 manual 1.4.5) and loads 0x8020; switch; P1 loads 0x8000.
fn two_processes(scheme: Scheme, skip: Skip) -> Kernel {
    let mut k = Kernel::new(&sa1100(), scheme, skip).unwrap();
    let (p0, p1) = (k.spawn(), k.spawn());
    k.switch_to(p0).unwrap();
    k.user(RefKind::Read, VirtAddr(0x8000), 4).unwrap();
    k.user(RefKind::Write, VirtAddr(0x8000), 4).unwrap();
    k.user(RefKind::Read, VirtAddr(0x8020), 4).unwrap();
    k.switch_to(p1).unwrap();
    k.user(RefKind::Read, VirtAddr(0x8000), 4).unwrap();
    k
}

fn dtlb_pages(k: &Kernel) -> Vec<(u64, u32)> {
    let mut v: Vec<(u64, u32)> = k.dtlb().unwrap().entries().map(|e| (e.vpn.0 << e.page_shift, e.domain.0)).collect();
    v.sort_unstable();
    v
}

#[test]
fn flush_mechanism_leaves_only_the_new_process() {
    let k = two_processes(Scheme::Flush, Skip::Nothing);
    // The second switch read the task struct, cleaned the D-cache through
    // the 8 KB flush area (P0's dirty line written back), invalidated both
    // caches and flushed both TLBs; then P1's load filled one line and one
    // D-TLB entry.
    assert_eq!(lines(&k, 1), [(VirtAddr(0x8000), false)]);
    assert_eq!(lines(&k, 0), []);
    assert_eq!(dtlb_pages(&k), [(0x8000, 0)]);
    assert_eq!(k.itlb().entries().count(), 0);
    let c = k.counts();
    assert_eq!((c.switches, c.cache_flushes, c.tlb_flushes, c.lines_written_back), (2, 1, 1, 1));
    // Resident at the invalidation: the 256 flush-area lines, which
    // replaced every line of the 8 KB D-cache (P0's and the task structs
    // among them), the mini-cache's 16 flush-area lines, and in the I-cache
    // the switch path's 150 instructions (600 bytes from a line boundary:
    // 19 lines) and the flush loop's 1.
    assert_eq!(c.lines_invalidated, 256 + 16 + 19 + 1);
    assert!(k.violations().is_empty(), "{:?}", k.violations());
}

#[test]
fn fass_keeps_both_processes_apart_by_pid_slot_and_domain() {
    for (scheme, d0) in [(Scheme::FassLinux, 3), (Scheme::FassL4, 1)] {
        let k = two_processes(scheme, Skip::Nothing);
        // PID slots 1 and 2 relocate 0x8000 to 0x0200_8000 and 0x0400_8000:
        // nothing is flushed, P0's dirty line stays.
        assert_eq!(
            lines(&k, 1),
            [
                (VirtAddr(0x0200_8000), true),
                (VirtAddr(0x0200_8020), false),
                (VirtAddr(0x0400_8000), false),
                (VirtAddr(TASK0), false),
                (VirtAddr(TASK1), false)
            ],
            "{scheme:?}"
        );
        // The kernel's 1 MB section (task structs) in the kernel domain, one
        // 4 KB entry per process in its own domain.
        assert_eq!(dtlb_pages(&k), [(0x0200_8000, d0), (0x0400_8000, d0 + 1), (0xc040_0000, 0)]);
        assert_eq!(k.domain_of(0), Some(Domain(d0)));
        assert_eq!(k.cpd_owner(VirtAddr(0x0400_8000)), Some(Domain(d0 + 1)));
        let c = k.counts();
        assert_eq!((c.cache_flushes, c.tlb_flushes, c.collisions, c.cpd_fills), (0, 0, 0, 2));
        assert!(k.violations().is_empty());
    }
}

#[test]
fn asid_tags_keep_both_copies_of_one_virtual_line() {
    let k = two_processes(Scheme::Asid, Skip::Nothing);
    assert_eq!(
        lines(&k, 1),
        [
            (VirtAddr(0x8000), false),
            (VirtAddr(0x8000), true),
            (VirtAddr(0x8020), false),
            (VirtAddr(TASK0), false),
            (VirtAddr(TASK1), false)
        ]
    );
    assert_eq!(k.dtlb().unwrap().entries().filter(|e| e.vpn.0 == 8).count(), 2, "one entry per ASID");
    assert_eq!((k.counts().cache_flushes, k.counts().tlb_flushes), (0, 0));
    assert!(k.violations().is_empty());
}

#[test]
fn dropping_the_flush_shows_a_stale_read() {
    // Without the cache flush, P1's load hits P0's line of the same virtual
    // address (another frame); without the TLB flush, P1 uses P0's entry.
    for skip in [Skip::CacheFlush, Skip::TlbFlush] {
        let k = two_processes(Scheme::Flush, skip);
        assert_eq!(k.violations().len(), 1, "{skip:?}: {:?}", k.violations());
    }
}

/// P0 and P1 both map a private page at 1 GB (above the relocated 32 MB):
/// the same modified address, different frames and domains.
#[test]
fn a_domain_collision_forces_the_lazy_flush() {
    for skip in [Skip::Nothing, Skip::CacheFlush] {
        let mut k = Kernel::new(&sa1100(), Scheme::FassLinux, skip).unwrap();
        let (p0, p1) = (k.spawn(), k.spawn());
        k.switch_to(p0).unwrap();
        k.user(RefKind::Read, VirtAddr(0x4000_0000), 4).unwrap();
        k.user(RefKind::Write, VirtAddr(0x4000_0000), 4).unwrap();
        k.switch_to(p1).unwrap();
        assert_eq!(k.counts().cache_flushes, 0, "the switch itself flushes nothing");
        k.user(RefKind::Read, VirtAddr(0x4000_0000), 4).unwrap();
        let c = k.counts();
        // The D-TLB still held P0's entry (domain 3), which P1's domain
        // register (4) denies: a domain fault; the CPD section belongs to
        // domain 3: a collision, so caches and TLBs are flushed and the
        // section changes hands.
        assert_eq!((c.domain_faults, c.collisions), (1, 1));
        assert_eq!(k.cpd_owner(VirtAddr(0x4000_0000)), Some(Domain(4)));
        if skip == Skip::Nothing {
            assert_eq!((c.cache_flushes, c.tlb_flushes, c.lines_written_back), (1, 1, 1));
            assert!(k.violations().is_empty());
            assert_eq!(lines(&k, 1), [(VirtAddr(0x4000_0000), false)]);
        } else {
            assert_eq!(k.violations().len(), 1, "P1 read P0's dirty line");
        }
    }
}

#[test]
fn seventeen_processes_recycle_domains() {
    // Linux keeps 3 of 16 domains: processes 0..12 take domains 3..15; the
    // 14th takes process 0's domain (it ran least recently), which was used
    // since the last flush: one flush. Every domain is then clean, so the
    // next three recyclings flush nothing. L4 keeps 1: 15 domains, 2
    // recyclings, one flush.
    for (scheme, first, recycles) in [(Scheme::FassLinux, 3u32, 4u64), (Scheme::FassL4, 1, 2)] {
        let mut k = Kernel::new(&sa1100(), scheme, Skip::Nothing).unwrap();
        for _ in 0..17 {
            let p = k.spawn();
            k.switch_to(p).unwrap();
            k.user(RefKind::Write, VirtAddr(0x1000), 4).unwrap();
        }
        let c = k.counts();
        assert_eq!((c.domain_recycles, c.cache_flushes, c.tlb_flushes), (recycles, 1, 1), "{scheme:?}");
        let free = 16 - first;
        assert_eq!(k.domain_of(0), None);
        assert_eq!(k.domain_of(free as usize), Some(Domain(first)), "the first recycled domain");
        assert_eq!(k.domain_of(16), Some(Domain(first + recycles as u32 - 1)));
        assert!(k.violations().is_empty());
        // Every process's line is still correct when it runs again.
        for p in 0..17 {
            k.switch_to(p).unwrap();
            k.user(RefKind::Read, VirtAddr(0x1000), 4).unwrap();
        }
        assert!(k.violations().is_empty(), "{scheme:?}: {:?}", k.violations());
    }
}

#[test]
fn unknown_mechanism_lists_the_valid_ones() {
    let e = Scheme::from_name("lazy").unwrap_err();
    assert!(e.contains("flush, asid, fass-linux, fass-l4, fass-linux-unshared"), "{e}");
    assert!(Kernel::new(&SwitchPreset::load("x86-64-pcid").unwrap(), Scheme::FassLinux, Skip::Nothing).is_err());
}

/// One step of a random run: a switch, or a reference by the running
/// process to one of the test's pages.
#[derive(Clone, Debug)]
enum Op {
    Switch(usize),
    Load(usize),
    Store(usize),
    Fetch(usize),
}

/// Private pages in the relocated 32 MB and above it (colliding across
/// processes), a writable shared region and a read-only one (text).
const PAGES: [u64; 6] = [0x8000, 0x8020, 0x4000_0000, 0x4000_1040, 0x5000_0000, 0x6000_0000];

fn ops() -> impl Strategy<Value = Vec<Op>> {
    prop::collection::vec(
        prop_oneof![
            (0..4usize).prop_map(Op::Switch),
            (0..PAGES.len()).prop_map(Op::Load),
            (0..5usize).prop_map(Op::Store),
            (0..PAGES.len()).prop_map(Op::Fetch),
        ],
        1..40,
    )
}

fn run(scheme: Scheme, skip: Skip, ops: &[Op]) -> usize {
    let mut k = Kernel::new(&sa1100(), scheme, skip).unwrap();
    let procs: Vec<usize> = (0..4).map(|_| k.spawn()).collect();
    k.share(Region { base: VirtAddr(0x5000_0000), pages: 1, writable: true }, &procs).unwrap();
    k.share(Region { base: VirtAddr(0x6000_0000), pages: 1, writable: false }, &procs).unwrap();
    k.switch_to(0).unwrap();
    for op in ops {
        match *op {
            Op::Switch(p) => k.switch_to(p).unwrap(),
            Op::Load(i) => k.user(RefKind::Read, VirtAddr(PAGES[i]), 4).unwrap(),
            // Text (the read-only region) is never written.
            Op::Store(i) => k.user(RefKind::Write, VirtAddr(PAGES[i]), 4).unwrap(),
            Op::Fetch(i) => k.user(RefKind::Ifetch, VirtAddr(PAGES[i]), 4).unwrap(),
        }
    }
    k.violations().len()
}

proptest! {
    #![proptest_config(Config { cases: 64, ..Config::default() })]

    #[test]
    fn no_mechanism_lets_a_stale_read_through(ops in ops()) {
        for scheme in Scheme::ALL {
            prop_assert_eq!(run(scheme, Skip::Nothing, &ops), 0, "{:?}", scheme);
        }
    }
}

/// Dropping a required flush is caught: proptest finds a run with a stale
/// read and shrinks it to a minimal one (a store, a switch, a load of the
/// same address), which the test prints and checks.
#[test]
fn dropping_a_required_flush_is_caught_and_minimised() {
    for (scheme, skip) in [
        (Scheme::Flush, Skip::CacheFlush),
        (Scheme::Flush, Skip::TlbFlush),
        (Scheme::FassLinux, Skip::CacheFlush),
        (Scheme::FassL4, Skip::CacheFlush),
    ] {
        // A fixed generator: shrinking a vector removes one operation at a
        // time and can stop at a local minimum longer than 4 on some seeds
        // (seen once without `make test`'s PROPTEST_RNG_SEED), so what is
        // asserted of the minimum must not depend on the environment's seed.
        let config = Config { cases: 256, failure_persistence: None, ..Config::default() };
        let rng = TestRng::deterministic_rng(config.rng_algorithm);
        let mut runner = TestRunner::new_with_rng(config, rng);
        let result = runner.run(&ops(), |ops| {
            prop_assert_eq!(run(scheme, skip, &ops), 0);
            Ok(())
        });
        match result {
            Err(TestError::Fail(_, minimal)) => {
                println!("{scheme:?} without {skip:?}: minimal stale run {minimal:?}");
                assert!(minimal.len() <= 4, "{scheme:?}/{skip:?}: not minimised: {minimal:?}");
                assert!(minimal.iter().any(|o| matches!(o, Op::Switch(p) if *p != 0)), "needs a switch: {minimal:?}");
            }
            other => panic!("{scheme:?} without {skip:?}: no stale read found: {other:?}"),
        }
    }
}
