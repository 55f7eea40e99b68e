//! The kernel's `read()` copy-out injected into a tiny trace, worked by
//! hand per kernel buffer policy: the program stores to its buffer, reads
//! 64 bytes into it, and loads from it again.
//!
//! The 720 (256 KB direct-mapped D-cache, 32-byte lines, space-id hash of
//! 4 bits at bit 12) with round costs: 2 cycles a hit, 20 a line fetched,
//! 1 an ALU instruction, no store shadow, memory never busy after a
//! write-back. The user buffer `U` = 0x10000 in space 1 is indexed at
//! 0x11000 (the hash flips bit 12). A 64-byte aligned memcpy is 4 x (4 ldw,
//! 3 stw, addib, stw): 32 accesses (64 cycles) and 4 ALU cycles.
//!
//! * Apart (anti-colour, fixed, round-robin, space-hash): the two kernel
//!   lines are fetched, the first user line hits (the program stored to it),
//!   the second misses: 3 fetches, 60 cycles, no victim: 128 cycles.
//! * Same colour: each 16-byte step's first load evicts the user line the
//!   step before stored to and its first store evicts the kernel line: 8
//!   misses, 8 fetches (160 cycles) and 3 dirty victims (the program's
//!   line, then two the copy dirtied; 4 beats each, 12 cycles): 240. Of
//!   the 8 misses 3 are compulsory (the two kernel lines' first and the
//!   second user line's first) and 5 conflict.
//!
//! The program's own references (a store that misses, a load that hits)
//! are the same under every policy: the copy leaves the user line in the
//! cache each time.

#![allow(clippy::panic, clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use vmlab_addr::{Asid, VirtAddr};
use vmlab_copy::{run_trace, CpuTiming, KernelBuffer, Misses};
use vmlab_trace::syscall::Call;
use vmlab_trace::{AccessKind, Event, VmtHeader, VmtWriter};

const U: u64 = 0x10000;

fn timing() -> CpuTiming {
    let mut t = CpuTiming::load("hp9000-720").unwrap();
    t.hit_cycles = 2.0;
    t.miss_cycles = 20.0;
    t.alu_cycles = 1.0;
    t.store_shadow = false;
    t.writeback_busy_misses = 0.0;
    t
}

fn read(buf: u64, count: u64, ret: i64) -> Vec<Event> {
    Call { number: 0, asid: Asid(7), ret, args: vec![3, buf, count] }.events().collect()
}

fn tiny() -> Vec<Event> {
    let mut ev = vec![Event::access(AccessKind::Store, VirtAddr(U), 4, Asid(7))];
    ev.extend(read(U, 4096, 64));
    ev.push(Event::access(AccessKind::Load, VirtAddr(U), 4, Asid(7)));
    ev
}

fn write(dir: &Path, name: &str, events: &[Event]) -> PathBuf {
    let p = dir.join(name);
    let mut w = VmtWriter::new(std::fs::File::create(&p).unwrap(), VmtHeader::default()).unwrap();
    for e in events {
        w.write(e).unwrap();
    }
    w.finish().unwrap();
    p
}

fn run(path: &Path, policy: KernelBuffer) -> Result<vmlab_copy::ReadOutcome, String> {
    let mut src = vmlab_trace::open(path, None).map_err(|e| e.to_string())?;
    run_trace(&timing(), &[], &mut *src, policy)
}

#[test]
fn one_read_per_policy_as_worked_by_hand() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "tiny.vmt", &tiny());
    // (policy, copy misses, fetches, dirty victims, conflict misses, cycles)
    let table = [
        (KernelBuffer::None, 0, 0, 0, 0, 0.0),
        (KernelBuffer::SameColour, 8, 8, 3, 5, 240.0),
        (KernelBuffer::AntiColour, 3, 3, 0, 0, 128.0),
        (KernelBuffer::Fixed, 3, 3, 0, 0, 128.0),
        (KernelBuffer::RoundRobin, 3, 3, 0, 0, 128.0),
        (KernelBuffer::SpaceHash, 3, 3, 0, 0, 128.0),
    ];
    for (policy, misses, fetches, victims, conflict, cycles) in table {
        let o = run(&path, policy).unwrap();
        let p = policy.name();
        assert_eq!((o.reads, o.bytes_read, o.reads_empty), (1, 64, 0), "{p}");
        assert_eq!(o.program, Misses { references: 2, misses: 1, conflict: 0 }, "{p}: the program's own");
        let copying = u64::from(policy != KernelBuffer::None);
        assert_eq!(o.copy, Misses { references: 32 * copying, misses, conflict }, "{p}: the copy's");
        let c = o.copy_counts;
        assert_eq!((c.instructions, c.loads, c.stores), (36 * copying, 16 * copying, 16 * copying), "{p}");
        assert_eq!((c.misses, c.fetches, c.dirty_victims), (misses, fetches, victims), "{p}");
        assert_eq!(o.copy_cycles.total, cycles, "{p}");
        if copying == 1 {
            assert_eq!((o.copy_cycles.access, o.copy_cycles.alu), (64.0, 4.0), "{p}");
            assert_eq!(o.copy_cycles.miss, 20.0 * fetches as f64, "{p}");
            assert_eq!(o.copy_cycles.victim, 4.0 * victims as f64, "{p}");
        }
    }
}

#[test]
fn a_short_or_unaligned_read_is_memcpy_words_then_bytes() {
    let dir = tempfile::tempdir().unwrap();
    // 10 bytes to an aligned buffer: memcpy's remainder loop twice (ldw,
    // addib, stw), then the byte loop twice (ldb, addib, stb).
    let p = write(dir.path(), "short.vmt", &read(U, 10, 10));
    let c = run(&p, KernelBuffer::Fixed).unwrap().copy_counts;
    assert_eq!((c.instructions, c.loads, c.stores), (12, 4, 4));
    // 5 bytes: the byte loop alone.
    let p = write(dir.path(), "five.vmt", &read(U, 5, 5));
    let c = run(&p, KernelBuffer::Fixed).unwrap().copy_counts;
    assert_eq!((c.instructions, c.loads, c.stores), (15, 5, 5));
    // 64 bytes to U+1: the unaligned path (head ldw + stbys, 15 words by
    // 3 bodies of 4 and 3 remainder words, the last 1 byte by stbys,e).
    let p = write(dir.path(), "odd.vmt", &read(U + 1, 64, 64));
    let o = run(&p, KernelBuffer::Fixed).unwrap();
    assert_eq!(o.bytes_read, 64);
    assert!(o.copy_counts.stores >= 16 && o.copy_counts.loads >= 16, "{:?}", o.copy_counts);
    // A read that returned 0 or failed copies nothing.
    let mut ev = read(U, 64, 0);
    ev.extend(read(U, 64, -9));
    let p = write(dir.path(), "empty.vmt", &ev);
    let o = run(&p, KernelBuffer::SameColour).unwrap();
    assert_eq!((o.reads, o.reads_empty, o.copy_counts.instructions), (0, 2, 0));
}

#[test]
fn round_robin_moves_on_and_fixed_stays() {
    // Two 64-byte reads into the same buffer: the fixed buffer's lines are
    // purged and fetched again (2 + 2 source fetches); the pool's second
    // buffer is a page on (2 + 2 as well), but its frames differ, so the
    // user lines are never disturbed. Both: 3 fetches then 2.
    let dir = tempfile::tempdir().unwrap();
    let mut ev = tiny();
    ev.extend(read(U, 4096, 64));
    let p = write(dir.path(), "two.vmt", &ev);
    for policy in [KernelBuffer::Fixed, KernelBuffer::RoundRobin] {
        let o = run(&p, policy).unwrap();
        assert_eq!((o.reads, o.copy.misses, o.copy_counts.fetches), (2, 5, 5), "{}", policy.name());
    }
    // Same colour the second time: the user lines are both in the cache
    // (dirty) and both are evicted, twice each: 8 misses, 4 dirty victims.
    let o = run(&p, KernelBuffer::SameColour).unwrap();
    assert_eq!((o.copy.misses, o.copy_counts.dirty_victims), (16, 7));
}

#[test]
fn bad_input_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let short: Vec<Event> = Call { number: 0, asid: Asid(7), ret: 4, args: vec![3, U] }.events().collect();
    let p = write(dir.path(), "short-args.vmt", &short);
    let e = run(&p, KernelBuffer::Fixed).unwrap_err();
    assert!(e.contains("event 2") && e.contains("read with 2 arguments"), "{e}");
    let p = write(dir.path(), "over.vmt", &read(U, 8, 64));
    let e = run(&p, KernelBuffer::Fixed).unwrap_err();
    assert!(e.contains("returned 64 bytes, more than the 8"), "{e}");
    let mut two = tiny();
    two.push(Event::access(AccessKind::Load, VirtAddr(U), 4, Asid(8)));
    let p = write(dir.path(), "two-procs.vmt", &two);
    let e = run(&p, KernelBuffer::Fixed).unwrap_err();
    assert!(e.contains("event 6") && e.contains("second process"), "{e}");
    let e = KernelBuffer::parse("colourful").unwrap_err();
    assert!(e.contains("same-colour") && e.contains("colourful"), "{e}");
    let p = write(dir.path(), "tiny.vmt", &tiny());
    let mut src = vmlab_trace::open(&p, None).unwrap();
    let e = run_trace(&timing(), &["l1d.index=bit-select".into()], &mut *src, KernelBuffer::SpaceHash).unwrap_err();
    assert!(e.contains("space-hash needs"), "{e}");
}
