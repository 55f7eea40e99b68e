//! The translating simulator's hit loop: packed words completed without
//! the per-reference machinery of `VmSim::user_access`, as long as each is
//! a reference within one L1 line that hits there and, under a scheme that
//! looks up the TLB on every access, lies on a page known to hit the TLB
//! without changing it (`ResidentPages`).
//!
//! Such a word changes no state but counters and a dirty bit: a hit in a
//! direct-mapped, virtually indexed and tagged L1 moves no replacement
//! state, and so does such a TLB hit. So the loop keeps counts per access
//! kind and stops at the first word that is anything else, which the
//! general path then completes whole; `VmSim::hit_run` folds the counts
//! into the very counters the general path would have moved, and leaves
//! the repeat line and latest data address it would have left. The tests
//! `fast_equals_general` and `hit_run_equals_general` compare both paths.
//!
//! Addresses are tested as the trace gives them, before folding: a
//! resident page is named by its raw page and the fold's offset for it
//! (folding moves whole 4 MB regions, so a raw page folds to one page, and
//! the line offset is unchanged).

use vmlab_addr::{Asid, LineNo};
use vmlab_cache::{DataRef, VirtualDirect};
use vmlab_trace::vmt::packed::{ADDR_BITS, ADDR_MASK, OPS};
use vmlab_trace::AccessKind;

/// A raw page number no address has (and a line number none has).
pub(crate) const NO_PAGE: u64 = u64::MAX;

/// Per packed op, what the loop needs of a word (one table lookup), and
/// the words of that op it completed, not yet counted (`take_counts`).
#[derive(Clone, Copy, Debug)]
#[repr(align(64))]
pub(crate) struct HitOp {
    /// A word `w` of this op lies within one L1 line iff `w & cross <=
    /// lim` (the test `vmlab_machine`'s hit loop uses): `cross` is the
    /// line's offset mask and `lim` the last offset the access still fits
    /// at. For an escape or an op longer than a line, `cross` is all ones,
    /// so the word's op bits (never zero for those: op 0 is a 1-byte
    /// fetch) exceed `lim`, 0, and the word takes the two-line test, which
    /// a `span` of 0 fails.
    cross: u64,
    lim: u64,
    /// Words completed within one line, and over two.
    one: u64,
    two: u64,
    /// L1 line shift of the side serving the op.
    shift: u32,
    /// Bytes less one.
    span: u32,
    /// 0: instruction side; 1: data side.
    side: u8,
    /// A store or a modify: a hit sets the dirty bit (a modify's read
    /// half finds the line its write half then dirties).
    write: bool,
}

/// The ops of `vmlab_trace`'s packed words for L1 line shifts `shifts`
/// (I, D).
pub(crate) fn op_table(shifts: [u32; 2]) -> Box<[HitOp; 256]> {
    Box::new(std::array::from_fn(|op| {
        let stop = HitOp { cross: u64::MAX, lim: 0, one: 0, two: 0, shift: 0, span: 0, side: 0, write: false };
        let Some(&(kind, size)) = OPS.get(op) else { return stop };
        let side = u8::from(kind != AccessKind::Ifetch);
        let shift = shifts[usize::from(side)];
        let line = 1u64 << shift;
        let size = u64::from(size.max(1));
        if size > line {
            return stop;
        }
        HitOp {
            cross: line - 1,
            lim: line - size,
            one: 0,
            two: 0,
            shift,
            span: (size - 1) as u32,
            side,
            write: matches!(kind, AccessKind::Store | AccessKind::Modify),
        }
    }))
}

/// Makes every store and modify op stop the loop (`VmSim::record`).
pub(crate) fn stop_at_writes(ops: &mut [HitOp; 256]) {
    for op in ops.iter_mut().filter(|op| op.write) {
        *op = HitOp { cross: u64::MAX, lim: 0, span: 0, write: false, ..*op };
    }
}

/// The words the loop completed since the last call, by `AccessKind`
/// index, and those of them over two lines; the table's counts restart.
pub(crate) fn take_counts(ops: &mut [HitOp; 256]) -> HitTally {
    let mut t = HitTally::default();
    for (op, &(kind, _)) in ops.iter_mut().zip(OPS.iter()) {
        t.words[kind as usize] += op.one + op.two;
        t.two_lines[kind as usize] += op.two;
        (op.one, op.two) = (0, 0);
    }
    t
}

/// The latest piece a completed word `w` leaves on its side: its side,
/// its (folded) line and the address the piece starts at.
pub(crate) fn last_piece(ops: &[HitOp; 256], w: u64, delta: u64) -> (usize, u64, u64) {
    let d = &ops[(w >> ADDR_BITS) as usize];
    let va = (w & ADDR_MASK).wrapping_add(delta);
    let first = va >> d.shift;
    let last = va.wrapping_add(u64::from(d.span)) >> d.shift;
    let start = if last == first { va } else { last << d.shift };
    (usize::from(d.side & 1), last, start)
}

/// The side of a word's op (the instruction side for an escape).
pub(crate) fn side(ops: &[HitOp; 256], w: u64) -> usize {
    usize::from(ops[(w >> ADDR_BITS) as usize].side & 1)
}

/// Slots per side of `ResidentPages`.
pub(crate) const RESIDENT_SLOTS: usize = 256;

/// A raw page known to hit the TLB without changing it, and folded minus
/// raw address on it (0 without folding). 16 bytes, so a slot is a shift
/// away; its frame waits in a parallel table (`ResidentFrames`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct ResidentPage {
    pub raw_page: u64,
    pub delta: u64,
}

/// Per side, pages whose TLB lookup would hit and change nothing but the
/// hit count, direct-mapped by raw page number (`VmSim` keeps them; see
/// `VmSim::remember_page`).
pub(crate) type ResidentPages = [[ResidentPage; RESIDENT_SLOTS]; 2];

pub(crate) const NO_RESIDENT: ResidentPages = [[ResidentPage { raw_page: NO_PAGE, delta: 0 }; RESIDENT_SLOTS]; 2];

/// Per side and slot of `ResidentPages`, the physical address of the page
/// (its TLB entry's frame), for the general path's lookups (`VmSim::resident_pa`).
pub(crate) type ResidentFrames = [[u64; RESIDENT_SLOTS]; 2];

/// The slot of raw page `raw_page`.
#[inline(always)]
pub(crate) fn resident_slot(raw_page: u64) -> usize {
    (raw_page as usize) & (RESIDENT_SLOTS - 1)
}

/// What the loop completed: words by `AccessKind` index, and those of
/// them over two lines (each such word is two pieces per request kind).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct HitTally {
    pub words: [u64; 4],
    pub two_lines: [u64; 4],
}

/// Completes words from `i` on while each is an L1 hit, of one line or of
/// two lines both resident before either changes (and, `PAGED`, lies on
/// one of its side's resident pages); returns the index of the first word
/// it left untouched, or `words.len()`. Free of calls, so the tables,
/// views and pointers stay in registers.
#[inline(never)]
pub(crate) fn hits<const PAGED: bool>(
    views: &mut [VirtualDirect<'_>; 2],
    ops: &mut [HitOp; 256],
    pages: &ResidentPages,
    page_shift: u32,
    words: &[u64],
    i: usize,
    asid: Asid,
) -> usize {
    let mut rest = words.get(i..).unwrap_or(&[]).iter();
    while let Some(&w) = rest.next() {
        // `w >> 56` < 256: no bounds check.
        let d = &mut ops[(w >> ADDR_BITS) as usize];
        let s = usize::from(d.side & 1);
        let raw = w & ADDR_MASK;
        let mut va = raw;
        if PAGED {
            let page = raw.wrapping_shr(page_shift);
            let e = &pages[s][resident_slot(page)];
            if e.raw_page != page {
                return words.len() - rest.len() - 1;
            }
            va = raw.wrapping_add(e.delta);
        }
        let ln = va.wrapping_shr(d.shift);
        let v = &mut views[s];
        if w & d.cross <= d.lim {
            if !v.hit(LineNo(ln), asid, DataRef::of_store_bit(d.write)) {
                return words.len() - rest.len() - 1;
            }
            d.one += 1;
            continue;
        }
        // Two lines (an escape's `span` is 0: it stops here), on the same
        // page, both resident before either changes.
        let last = va.wrapping_add(u64::from(d.span));
        if last.wrapping_shr(d.shift) != ln + 1
            || (PAGED && (last ^ va).wrapping_shr(page_shift) != 0)
            || !v.resident(LineNo(ln), asid)
            || !v.hit(LineNo(ln + 1), asid, DataRef::of_store_bit(d.write))
        {
            return words.len() - rest.len() - 1;
        }
        v.hit(LineNo(ln), asid, DataRef::of_store_bit(d.write));
        d.two += 1;
    }
    words.len()
}
