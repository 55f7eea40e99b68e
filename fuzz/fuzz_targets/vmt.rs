//! Arbitrary bytes as a `.vmt` file, and (so the fuzzer gets past the
//! checksums) as a block payload wrapped in valid framing: events or an
//! error, never a panic.
//!
//! Input layout (first byte):
//!
//! * `0`: `count`, then a `vmt-delta-v1` payload of `count` records, in a
//!   version-1 file; also decoded directly by both payload decoders.
//! * `1`: `count`, `skip`, then a `vmt-bb-v1` payload of `count` events, in
//!   a version-2 file; also decoded directly (`testing::decode_blocks`)
//!   with no skip and with the `FetchSkip` the `skip` byte names.
//! * `2`: `count1`, `count2`, `skip`, `len1`, then two `vmt-bb-v1`
//!   payloads (the first `len1` bytes, and the rest) as two blocks of one
//!   version-2 file, so the shape table carries across a block boundary.
//! * anything else: the whole input is a file.
//!
//! Every file is read by the event decoder (`fill`), the packed decoder
//! (`fill_packed`, no skip) and the packed decoder under a `FetchSkip`
//! that changes from block to block: the first two give the same events
//! or the same error, block for block; the third drops only fetches the
//! contract allows, counts them in `skipped`, and fails where they fail.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vmlab_trace::vmt::testing as t;
use vmlab_trace::vmt::packed::{op_kind, ADDR_BITS, ADDR_MASK, PACKED_ESCAPE};
use vmlab_trace::{AccessKind, Event, EventSource, FetchSkip, PackedBlock, VmtHeader, VmtReader};

/// The skip a byte names: none for 0xff, else line shift 0..=40 (values
/// past 40 also test the decoder's clamp) and `across_data` from bit 7.
fn skip_of(b: u8) -> Option<FetchSkip> {
    match b {
        0xff => None,
        _ => Some(FetchSkip { line_shift: u32::from(b & 0x3f), across_data: b & 0x80 != 0 }),
    }
}

/// Checks that `got` (decoded under `skip`) is `full` (the same block
/// decoded without a skip) with only fetches dropped that `skip` allows:
/// a fetch within one line, that line the last line of the previous fetch
/// word, no escape word between and no data word between unless
/// `across_data`; and that `got.skipped` counts exactly those dropped.
/// (The logic of `check_contract` in crates/trace/tests/blocks.rs, against
/// the decoder's own no-skip words.)
fn check_contract(full: &PackedBlock, got: &PackedBlock, skip: FetchSkip) {
    assert_eq!(full.skipped, 0, "a decode without a skip dropped fetches");
    let s = skip.line_shift.min(FetchSkip::MAX_SHIFT);
    let fetch = |w: u64| {
        let op = (w >> ADDR_BITS) as u8;
        match op_kind(op) {
            Some((AccessKind::Ifetch, size)) => Some((w & ADDR_MASK, u64::from(size))),
            _ => None,
        }
    };
    let mut kept = got.words().iter().peekable();
    let mut dropped = 0u64;
    let mut fetch_line: Option<u64> = None;
    for &w in full.words() {
        let op = (w >> ADDR_BITS) as u8;
        if kept.peek() == Some(&&w) {
            kept.next();
            if op == PACKED_ESCAPE {
                fetch_line = None;
            } else if let Some((a, size)) = fetch(w) {
                fetch_line = Some((a + size - 1) >> s);
            } else if !skip.across_data {
                fetch_line = None;
            }
            continue;
        }
        let Some((a, size)) = fetch(w) else {
            panic!("a non-fetch word {w:#x} was dropped under {skip:?}");
        };
        let (first, last) = (a >> s, (a + size - 1) >> s);
        assert!(first == last && fetch_line == Some(first), "fetch {a:#x} dropped without leave ({skip:?})");
        dropped += 1;
    }
    assert!(kept.next().is_none(), "words under {skip:?} that the block does not have");
    assert_eq!(got.extra, full.extra, "escape events differ under {skip:?}");
    assert_eq!(got.skipped, dropped, "skipped says {} fetches, {dropped} were dropped", got.skipped);
    assert_eq!(got.events(), full.events());
}

/// Two decodes without a skip: the same words, escapes and count.
fn same(a: &PackedBlock, b: &PackedBlock) {
    assert_eq!((a.words(), &a.extra, a.skipped), (b.words(), &b.extra, b.skipped), "no skip, yet a different block");
}

/// Reads the file with the event decoder, the packed decoder and the packed
/// decoder under `skips[i % len]` for block `i`, side by side: block for
/// block, the same events, or the same error.
fn drain(bytes: &[u8], skips: &[Option<FetchSkip>]) {
    let (Ok(mut r), Ok(mut p), Ok(mut q)) =
        (VmtReader::new(bytes, "fuzz"), VmtReader::new(bytes, "fuzz"), VmtReader::new(bytes, "fuzz"))
    else {
        return;
    };
    let mut buf: Vec<Event> = Vec::new();
    let mut packed = PackedBlock::new();
    let mut skipped = PackedBlock::new();
    for i in 0.. {
        let skip = skips.get(i % skips.len().max(1)).copied().flatten();
        skipped.fetch_skip = skip;
        let (got_e, got_p, got_q) = (r.fill(&mut buf), p.fill_packed(&mut packed), q.fill_packed(&mut skipped));
        match (got_e, got_p) {
            (Ok(true), Ok(true)) => {
                assert!(!buf.is_empty() && buf.len() <= vmlab_trace::BLOCK);
                let mut back = Vec::new();
                packed.unpack(&mut back);
                assert_eq!(back, buf, "packed and event decoders disagree on a block");
                assert_eq!(got_q, Ok(true), "the decoder under {skip:?} fails where it does not without");
                match skip {
                    Some(skip) => check_contract(&packed, &skipped, skip),
                    None => same(&skipped, &packed),
                }
            }
            (Ok(false), Ok(false)) => {
                assert_eq!(got_q, Ok(false), "the decoder under {skip:?} does not end where it does without");
                return;
            }
            (Err(a), Err(b)) => {
                assert_eq!(a, b, "packed and event decoders report different errors");
                // Under a skip the same block fails, but the message may
                // differ: the decoder bounds a shape's execution by the
                // words it keeps, so an overrun can surface later (as a
                // wrong event count) than without the skip.
                match got_q {
                    Err(c) => assert_eq!(
                        (&c.path, c.location),
                        (&a.path, a.location),
                        "the decoder under {skip:?} fails at another block"
                    ),
                    other => panic!("the decoder under {skip:?} gives {other:?} where without it fails: {a:?}"),
                }
                return;
            }
            (a, b) => panic!("packed and event decoders disagree: {a:?} / {b:?}"),
        }
    }
}

/// A basic-block payload decoded directly, without and with `skip`.
fn blocks_payload(raw: &[u8], count: usize, skip: Option<FetchSkip>) {
    let full = t::decode_blocks(raw, count, None);
    let under = t::decode_blocks(raw, count, skip);
    match (&full, &under) {
        (Ok(full), Ok(under)) => {
            assert_eq!(full.events(), count as u64, "a block of {count} events decodes to {}", full.events());
            match skip {
                Some(skip) => check_contract(full, under, skip),
                None => same(under, full),
            }
        }
        // Both fail (the message may differ under a skip; see `drain`).
        (Err(_), Err(_)) => {}
        (a, b) => panic!("the payload decoder disagrees with itself under {skip:?}: {a:?} / {b:?}"),
    }
}

fn v2_file(blocks: &[(u32, &[u8])]) -> Vec<u8> {
    let mut file = t::file_header_blocks(&VmtHeader::new("fuzz"));
    let mut total = 0u64;
    for &(count, raw) in blocks {
        file.extend(t::block(count, raw));
        total += u64::from(count);
    }
    file.extend(t::end(total, blocks.len() as u64));
    file
}

fuzz_target!(|data: &[u8]| {
    // For whole-file inputs, skips that do not touch the bytes (which
    // checksums guard): from the length, and none every third block.
    let by_len = skip_of((data.len() % 256) as u8);
    match data.split_first() {
        // First byte 0: the rest is a block payload; its record count is
        // taken from the next byte.
        Some((0, rest)) if !rest.is_empty() => {
            let count = u32::from(rest[0]);
            let mut file = t::file_header(&VmtHeader::new("fuzz"));
            file.extend(t::block(count, &rest[1..]));
            file.extend(t::end(u64::from(count), 1));
            drain(&file, &[by_len]);
            // The payload codec directly, too: both decoders, same answer.
            let events = t::decode(&rest[1..], count as usize);
            let packed = t::decode_packed(&rest[1..], count as usize).map(|p| {
                let mut back = Vec::new();
                p.unpack(&mut back);
                back
            });
            assert_eq!(events, packed, "packed and event payload decoders disagree");
        }
        // First byte 1: count, skip, then a basic-block payload.
        Some((1, rest)) if rest.len() >= 2 => {
            let (count, skip, raw) = (u32::from(rest[0]), skip_of(rest[1]), &rest[2..]);
            drain(&v2_file(&[(count, raw)]), &[skip]);
            blocks_payload(raw, count as usize, skip);
            blocks_payload(raw, count as usize, None);
        }
        // First byte 2: two basic-block payloads in one file.
        Some((2, rest)) if rest.len() >= 4 => {
            let (c1, c2, skip) = (u32::from(rest[0]), u32::from(rest[1]), skip_of(rest[2]));
            let raw = &rest[4..];
            let (a, b) = raw.split_at(usize::from(rest[3]).min(raw.len()));
            let file = v2_file(&[(c1, a), (c2, b)]);
            // The skip on the first block only, on the second only, on both.
            drain(&file, &[skip, None]);
            drain(&file, &[None, skip]);
            drain(&file, &[skip]);
            blocks_payload(a, c1 as usize, skip);
        }
        _ => drain(data, &[by_len, by_len, None]),
    }
});
