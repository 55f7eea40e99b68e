//! Seeds for the `vmt` fuzz target (fuzz/fuzz_targets/vmt.rs) in the
//! basic-block encoding, and its regression cases.
//!
//! `cargo test -p vmlab-trace --test fuzz_seeds -- --ignored` writes the
//! seeds to `$VMT_SEEDS` (default /tmp/vmt-seeds): whole version-2 files
//! written with `VmtWriter`'s defaults (and with small blocks, so the shape
//! table carries across blocks), and inputs of the target's first-byte-1
//! and first-byte-2 modes (`[1, count, skip]` + a payload; `[2, count1,
//! count2, skip, len1]` + two payloads).

// Tests report failure by panicking.
#![allow(clippy::panic)]

use std::path::PathBuf;
use vmlab_addr::{Asid, VirtAddr};

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use vmlab_trace::vmt::testing as t;
use vmlab_trace::{AccessKind, Event, FetchSkip, VmtHeader, VmtOptions, VmtWriter};

/// A few basic blocks run in a random order, their data walking an array
/// and stack slots, with the odd context switch, flush, odd size and high
/// A basic block: its start, then each instruction's size and data references (kind, size).
type Block = (u64, Vec<(u32, Vec<(AccessKind, u32)>)>);

/// address.
fn program(seed: u64, n: usize) -> Vec<Event> {
    let mut rng = Pcg64::seed_from_u64(seed);
    let blocks: Vec<Block> = (0..rng.gen_range(1..6))
        .map(|_| {
            let start = 0x40_0000 + rng.gen_range(0..0x400u64);
            let instrs = (0..rng.gen_range(1..6))
                .map(|_| {
                    let data = (0..rng.gen_range(0..3))
                        .map(|_| {
                            (
                                [AccessKind::Load, AccessKind::Store, AccessKind::Modify][rng.gen_range(0..3)],
                                1 << rng.gen_range(0..4),
                            )
                        })
                        .collect();
                    (rng.gen_range(1..16), data)
                })
                .collect();
            (start, instrs)
        })
        .collect();
    let (mut out, mut asid, mut array) = (Vec::new(), 0, 0x60_0000u64);
    while out.len() < n {
        match rng.gen_range(0..40) {
            0 => {
                asid = rng.gen_range(0..2);
                out.push(Event::ContextSwitch(vmlab_addr::Asid(asid)));
            }
            1 => out.push(Event::FlushAll),
            2 => out.push(Event::access(AccessKind::Load, VirtAddr(rng.gen_range(0..1 << 20)), 3, Asid(asid))),
            3 => out.push(Event::access(AccessKind::Store, VirtAddr((1 << 56) + 8), 8, Asid(asid))),
            _ => {
                let (start, instrs) = &blocks[rng.gen_range(0..blocks.len())];
                let mut pc = *start;
                for (size, data) in instrs {
                    out.push(Event::access(AccessKind::Ifetch, VirtAddr(pc), *size, Asid(asid)));
                    pc += u64::from(*size);
                    for (j, &(kind, dsize)) in data.iter().enumerate() {
                        let addr = if j == 0 { 0x7ff0_0000 + 8 * rng.gen_range(0..4u64) } else { array };
                        array += u64::from(dsize);
                        out.push(Event::access(kind, VirtAddr(addr), dsize, Asid(asid)));
                    }
                }
            }
        }
    }
    out.truncate(n);
    out
}

fn file(events: &[Event], block_events: Option<usize>) -> Vec<u8> {
    let mut opts = VmtOptions::default();
    if let Some(b) = block_events {
        opts.block_events = b;
    }
    let mut w = VmtWriter::with_options(Vec::new(), VmtHeader::new("seed"), opts).expect("header");
    w.write_all(events).expect("write");
    w.finish().expect("finish")
}

#[test]
#[ignore = "writes fuzz seeds to $VMT_SEEDS (default /tmp/vmt-seeds)"]
fn write_fuzz_seeds() {
    let dir = PathBuf::from(std::env::var("VMT_SEEDS").unwrap_or_else(|_| "/tmp/vmt-seeds".into()));
    std::fs::create_dir_all(&dir).expect("seed dir");
    let skips = [0x06u8, 0x86, 0x02, 0xff, 0x28];
    let mut dropped = 0;
    for seed in 0..10u64 {
        let n = [1, 5, 20, 60, 200, 255][seed as usize % 6];
        let events = program(seed, n);
        // Whole files: the writer's defaults, and small blocks.
        std::fs::write(dir.join(format!("v2-{seed}.vmt")), file(&events, None)).expect("write");
        std::fs::write(dir.join(format!("v2-{seed}-blocks.vmt")), file(&events, Some(7 + seed as usize)))
            .expect("write");
        // Mode 1: one payload.
        let skip = skips[seed as usize % skips.len()];
        let mut one = vec![1, n as u8, skip];
        one.extend(t::encode_blocks(&events));
        // The seed reaches the decoder's success path (and its skips).
        let payload = &one[3..];
        let full = t::decode_blocks(payload, n, None).expect("seed payload decodes");
        let under =
            t::decode_blocks(payload, n, Some(FetchSkip { line_shift: 6, across_data: true })).expect("decodes");
        assert_eq!((full.events(), under.events()), (n as u64, n as u64));
        dropped += under.skipped;
        std::fs::write(dir.join(format!("bb-{seed}")), one).expect("write");
        // Mode 2: two payloads (the second from a fresh table too).
        let more = program(seed + 100, 1 + seed as usize * 3);
        let (a, b) = (t::encode_blocks(&events[..n.min(40)]), t::encode_blocks(&more));
        if a.len() < 256 {
            let mut two = vec![2, n.min(40) as u8, more.len() as u8, skip, a.len() as u8];
            two.extend(a);
            two.extend(b);
            std::fs::write(dir.join(format!("bb2-{seed}")), two).expect("write");
        }
    }
    assert!(dropped > 0, "no seed has a fetch to skip");
}

/// A basic-block payload of one definition (3 four-byte fetches in one
/// 64-byte line at 0x1000) executed once, in a block whose header says 2
/// events.
fn overrun_payload() -> Vec<u8> {
    let mut raw = Vec::new();
    for h in [0u32, 1, 12, 1, 0, 0] {
        raw.extend(h.to_le_bytes());
    }
    raw.extend(0u32.to_le_bytes()); // control: shape 0
    raw.extend(0x1000u64.to_le_bytes());
    raw.extend([3, 3, 3, 3]); // 3 items, each op 3 (a 4-byte fetch)
    raw.truncate(24 + 4 + 8 + 4);
    raw
}

/// Found by the fuzz target (its first check was that the same error comes
/// out with and without a `FetchSkip`): the execution's bound was checked
/// against the words the skip keeps, not the events, so the two gave
/// different messages. Since the bound is the fixed-size windows and the
/// event count after the loop, both give the same one.
#[test]
fn an_overrun_fails_the_same_way_with_or_without_a_skip() {
    let raw = overrun_payload();
    let want = Err("entry 1 (payload byte 0): the control entries give 3 events, the block header says 2".to_string());
    assert_eq!(t::decode_blocks(&raw, 2, None).map(|_| ()), want);
    let skip = FetchSkip { line_shift: 6, across_data: false };
    assert_eq!(t::decode_blocks(&raw, 2, Some(skip)).map(|_| ()), want);
    // With the right count both decode, and the skip drops the two fetches.
    let full = t::decode_blocks(&raw, 3, None).expect("decode");
    let skipped = t::decode_blocks(&raw, 3, Some(skip)).expect("decode");
    assert_eq!((full.words().len(), full.skipped), (3, 0));
    assert_eq!((skipped.words().len(), skipped.skipped), (1, 2));
}
