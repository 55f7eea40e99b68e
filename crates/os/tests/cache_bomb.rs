//! A provoked cache bomb (seed 000 section 3): under `none` on a VIVT
//! write-back cache, the dirty line of an alias that was unmapped without a
//! flush is written back over newer data written through another alias.
//! The oracle reports exactly that write-back, naming the line, the alias
//! that wrote the newer data and the policy; every correct policy reports
//! nothing on the same operations.
//!
//! Cache: 32 KB, 2-way, 32-byte lines (512 sets, 16 KB per way), VIVT with
//! ASID tags, write-back, LRU; 4 KB pages. Alias A = space 1 at 0x10000,
//! alias B = space 2 at 0x11000, both to one frame; the word at offset 0x40
//! is in set 0x002 through A and set 0x082 through B. Space 3 reads filler
//! frames at addresses of the same sets to force the evictions.

#![allow(clippy::unwrap_used, clippy::panic)]

use vmlab_addr::{Asid, VirtAddr};
use vmlab_cache::{CacheConfig, Indexing, Replacement, WritePolicy};
use vmlab_machine::{MachineConfig, MemoryConfig};
use vmlab_os::{Attach, Consistency, CostModel, DataRef, ObjectKind, Os, Policy, Prot, Region, Violation};

const PAGE: u64 = 4096;
const A: u64 = 0x10000;
const B: u64 = 0x11000;
const W: u64 = 0x40;
const FILLER: u64 = 0x10_0000;

fn machine() -> MachineConfig {
    let mut m = MachineConfig::bare(
        "bomb",
        MemoryConfig::sequential(vmlab_addr::PageSize::new(PAGE).expect("page"), 64 * PAGE),
    );
    let mut d = CacheConfig::simple(32 * 1024, 32, 2);
    d.indexing = Indexing::Vivt;
    d.asid_tags = true;
    d.write = WritePolicy::WriteBack;
    d.replacement = Replacement::Lru;
    let mut i = d.clone();
    i.indexing = Indexing::Pipt;
    i.asid_tags = false;
    m.l1i = Some(i);
    m.l1d = Some(d);
    m
}

/// Runs the operations; returns the oracle's reports.
fn provoke(policy: Policy) -> Vec<Violation> {
    let mut os =
        Os::new(&machine(), CostModel::load("hp9000-834").expect("cost"), policy, Consistency::Checked).expect("os");
    for (space, va, pages) in [(Asid(1), A, 1), (Asid(2), B, 1), (Asid(3), FILLER, 9)] {
        let obj = os.object(&format!("region {space}"), ObjectKind::Anonymous, pages).expect("obj");
        os.map(
            space,
            Region { start: VirtAddr(va), len: pages * PAGE, object: obj, offset: 0, prot: Prot::RW, private: false },
        )
        .expect("map");
    }
    // One frame, attached (no zero-fill through a kernel alias) at A and B.
    let frame = os.alloc_frame(VirtAddr(A)).expect("frame");
    os.attach(Asid(1), VirtAddr(A), frame, Attach::Eager).expect("attach A");
    os.attach(Asid(2), VirtAddr(B), frame, Attach::Eager).expect("attach B");
    // Filler frames at same-set addresses: 0x101000/0x105000 share B's sets,
    // 0x100000/0x104000 share A's.
    for va in [0x10_0000, 0x10_1000, 0x10_4000, 0x10_5000] {
        let f = os.alloc_frame(VirtAddr(va)).expect("filler");
        os.attach(Asid(3), VirtAddr(va), f, Attach::Eager).expect("attach filler");
    }
    os.access(Asid(1), VirtAddr(A + W), DataRef::Store, 4, "write through A").expect("A");
    // Unmap alias A keeping the frame (the sender side of a move); `none`
    // leaves A's dirty line in the cache.
    os.detach(Asid(1), VirtAddr(A)).expect("detach A");
    os.access(Asid(2), VirtAddr(B + W), DataRef::Store, 4, "write through B").expect("B");
    // Evict B's line: memory now holds B's newer word.
    os.access(Asid(3), VirtAddr(0x10_1000 + W), DataRef::Load, 4, "evict B 1").expect("f");
    os.access(Asid(3), VirtAddr(0x10_5000 + W), DataRef::Load, 4, "evict B 2").expect("f");
    // Evict A's orphaned dirty line: it is written back over B's word.
    os.access(Asid(3), VirtAddr(0x10_0000 + W), DataRef::Load, 4, "evict A 1").expect("f");
    os.access(Asid(3), VirtAddr(0x10_4000 + W), DataRef::Load, 4, "evict A 2").expect("f");
    os.violations().to_vec()
}

#[test]
fn none_reports_the_write_back_over_newer_data() {
    let v = provoke(Policy::None);
    assert_eq!(v.len(), 1, "{v:#?}");
    match &v[0] {
        Violation::CacheBomb { line, cause, newer_by, policy } => {
            // The line of alias A (tag 1) holding the word, to the shared frame.
            assert_eq!((line.0, line.1), (Asid(1), VirtAddr(A + W)));
            assert_eq!(line.2 .0 % PAGE, W);
            // B wrote the newer data in memory.
            assert_eq!(*newer_by, Some((Asid(2), VirtAddr(B + W))));
            assert_eq!(policy, "none");
            // The second same-set read evicted it (LRU: the first filled the empty way).
            assert_eq!(
                (cause.asid, cause.vaddr, cause.origin.as_str()),
                (Asid(3), VirtAddr(0x10_4000 + W), "evict A 2")
            );
        }
        other => panic!("expected a cache bomb, got {other:?}"),
    }
}

#[test]
fn every_correct_policy_reports_nothing() {
    for p in Policy::CORRECT {
        let v = provoke(p);
        assert!(v.is_empty(), "{p:?}: {v:#?}");
    }
}
