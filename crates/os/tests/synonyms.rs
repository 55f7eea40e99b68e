//! Must-show 1: synonyms on the MIPS R4x00 (seed 001) are real, policy
//! `none` lets the oracle see the stale read, every correct policy prevents
//! it; addresses that agree in VA bit 12 never alias. Also must-show 5: bad
//! scenario files give an error naming the line.

#![allow(clippy::panic, clippy::unwrap_used)]

use vmlab_addr::{Asid, CpuId, VirtAddr};
use vmlab_os::scenario::run_text;
use vmlab_os::{Consistency, CostModel, DataRef, ObjectKind, Os, Policy, Prot, Region, Violation};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/scenarios");

fn scenario(name: &str) -> String {
    std::fs::read_to_string(format!("{DIR}/{name}")).expect("scenario file")
}

fn with_policy(text: &str, p: Policy) -> String {
    text.replace("policy = \"none\"", &format!("policy = \"{}\"", p.name()))
}

#[test]
fn bit12_synonym_gives_two_copies_and_a_stale_read_under_none() {
    let m = vmlab_machine::preset::load("mips-r4000", &[]).expect("preset");
    let mut os =
        Os::new(&m, CostModel::load("hp9000-834").expect("cost"), Policy::None, Consistency::Checked).expect("os");
    let shm = os.object("shm", ObjectKind::Anonymous, 1).expect("object");
    os.map(
        Asid(1),
        Region { start: VirtAddr(0x10000), len: 0x1000, object: shm, offset: 0, prot: Prot::RW, private: false },
    )
    .expect("map 1");
    os.map(
        Asid(2),
        Region { start: VirtAddr(0x11000), len: 0x1000, object: shm, offset: 0, prot: Prot::RW, private: false },
    )
    .expect("map 2");
    os.access(Asid(1), VirtAddr(0x10000), DataRef::Load, 4, "read A").expect("read");
    os.access(Asid(2), VirtAddr(0x11000), DataRef::Load, 4, "read B").expect("read");
    // Two cached copies of the same physical line, in sets differing by bit 12.
    let pa = os.hat().translation(Asid(1), VirtAddr(0x10000), CpuId(0)).expect("loaded").0 .0 * 4096;
    let copies: Vec<_> = os.cpu().resident().into_iter().filter(|e| e.paddr.0 == pa).collect();
    assert_eq!(copies.len(), 2, "{copies:?}");
    assert_ne!(copies[0].vaddr.0 & 0x1000, copies[1].vaddr.0 & 0x1000);
    // Already the first read through B is stale: the kernel zero-filled the
    // frame through its window (colour 0, like A) and nothing flushed it.
    assert_eq!(os.violations().len(), 1, "{:?}", os.violations());
    assert!(matches!(&os.violations()[0], Violation::StaleRead { access, latest_by: Some((Asid(0), w)), .. }
        if access.origin == "read B" && w.0 == vmlab_addr::layout::KERNEL_WINDOW.0 + pa));
    os.access(Asid(1), VirtAddr(0x10000), DataRef::Store, 4, "write A").expect("write");
    assert_eq!(os.violations().len(), 1);
    os.access(Asid(2), VirtAddr(0x11000), DataRef::Load, 4, "read B again").expect("read");
    let v = os.violations();
    assert_eq!(v.len(), 2, "{v:?}");
    match &v[1] {
        Violation::StaleRead { access, latest_by, policy } => {
            assert_eq!(
                (access.asid, access.vaddr, access.origin.as_str()),
                (Asid(2), VirtAddr(0x11000), "read B again")
            );
            assert_eq!(*latest_by, Some((Asid(1), VirtAddr(0x10000))));
            assert_eq!(policy, "none");
        }
        other => panic!("expected a stale read, got {other:?}"),
    }
}

#[test]
fn scenario_under_none_reports_exactly_the_stale_read() {
    let out = run_text("r4000_synonym.toml", &scenario("good/r4000_synonym.toml")).expect("runs");
    // The zero-filled contents are stale through B (line 33), then A's write (line 43).
    assert_eq!(out.violations.len(), 2, "{:?}", out.violations);
    assert!(
        matches!(&out.violations[0], Violation::StaleRead { access, .. } if access.origin == "r4000_synonym.toml:33")
    );
    assert!(
        matches!(&out.violations[1], Violation::StaleRead { access, latest_by: Some((Asid(1), VirtAddr(0x10000))), .. }
        if access.origin == "r4000_synonym.toml:43")
    );
}

#[test]
fn every_correct_policy_reports_nothing_or_refuses_the_alias() {
    for p in Policy::CORRECT {
        let text = with_policy(&scenario("good/r4000_synonym.toml"), p);
        match run_text("r4000_synonym.toml", &text) {
            Ok(out) => assert!(out.violations.is_empty(), "{}: {:?}", p.name(), out.violations),
            Err(e) => {
                // Only the policies that forbid unaligned aliases may refuse,
                // and only at the second map (line 21).
                assert!(matches!(p, Policy::CacheAligned | Policy::GlobalShared), "{}: {e}", p.name());
                assert!(e.starts_with("r4000_synonym.toml:21: map: refused by the consistency policy"), "{e}");
            }
        }
    }
}

#[test]
fn addresses_agreeing_in_bit12_never_alias_even_under_none() {
    for p in Policy::ALL {
        let text = with_policy(&scenario("good/r4000_same_bit12.toml"), p);
        match run_text("same.toml", &text) {
            Ok(out) => assert!(out.violations.is_empty(), "{}: {:?}", p.name(), out.violations),
            // A global segment has one address; a second one is refused.
            Err(e) => assert!(p == Policy::GlobalShared && e.contains("refused"), "{}: {e}", p.name()),
        }
    }
    // And one copy only.
    let m = vmlab_machine::preset::load("mips-r4000", &[]).expect("preset");
    let mut os =
        Os::new(&m, CostModel::load("hp9000-834").expect("cost"), Policy::None, Consistency::Checked).expect("os");
    let shm = os.object("shm", ObjectKind::Anonymous, 1).expect("object");
    os.map(
        Asid(1),
        Region { start: VirtAddr(0x10000), len: 0x1000, object: shm, offset: 0, prot: Prot::RW, private: false },
    )
    .expect("map");
    os.map(
        Asid(2),
        Region { start: VirtAddr(0x12000), len: 0x1000, object: shm, offset: 0, prot: Prot::RW, private: false },
    )
    .expect("map");
    os.access(Asid(1), VirtAddr(0x10000), DataRef::Load, 4, "a").expect("read");
    os.access(Asid(2), VirtAddr(0x12000), DataRef::Load, 4, "b").expect("read");
    let pa = os.hat().translation(Asid(1), VirtAddr(0x10000), CpuId(0)).expect("loaded").0 .0 * 4096;
    assert_eq!(os.cpu().resident().into_iter().filter(|e| e.paddr.0 == pa).count(), 1);
}

#[test]
fn fork_cow_scenario_is_clean_under_every_correct_policy_on_the_hp() {
    let base = scenario("good/fork_cow.toml");
    for p in Policy::CORRECT {
        let text = base.replace("policy = \"pseudo-alias\"", &format!("policy = \"{}\"", p.name()));
        let out = run_text("fork_cow.toml", &text).unwrap_or_else(|e| panic!("{}: {e}", p.name()));
        assert!(out.violations.is_empty(), "{}: {:?}", p.name(), out.violations);
        // The child's write copies; the parent then holds the last reference
        // to the old frame and only reads it.
        assert_eq!(out.faults.copy_on_write, 1, "{}: {:?}", p.name(), out.faults);
        assert_eq!((out.faults.zero_fill, out.faults.file_read), (1, 1), "{}", p.name());
    }
}

#[test]
fn bad_scenarios_name_their_line() {
    let cases = [
        ("bad/unknown_op.toml", "bad/unknown_op.toml:8: unknown operation \"mmap\""),
        ("bad/unmapped.toml", "bad/unmapped.toml:15: read: unmapped address: 0x20000 in space 1 is not mapped"),
        ("bad/overlap.toml", "bad/overlap.toml:16: map: overlapping map: 0x11000+0x1000 overlaps the region at 0x10000+0x2000 in space 1"),
        ("bad/bad_prot.toml", "bad/bad_prot.toml:8: bad protection \"rwq\""),
    ];
    for (file, want) in cases {
        let err = run_text(file, &scenario(file)).expect_err(file);
        assert!(err.starts_with(want), "{file}: {err}");
    }
    // Malformed TOML and unknown keys also name a line.
    let err =
        run_text("x.toml", "machine = \"mips-r4000\"\n[[op]]\nop = \"read\"\nspace = 1\naddr = 0x1000\ncolour = 3\n")
            .expect_err("key");
    assert!(err.starts_with("x.toml:2: unknown key \"colour\""), "{err}");
    let err = run_text("y.toml", "machine = \"mips-r4000\"\npolicy = 3\n").expect_err("type");
    assert!(err.starts_with("y.toml:2:"), "{err}");
}
