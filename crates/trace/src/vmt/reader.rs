//! Streaming `.vmt` reader: one block in memory at a time, every field checked.

use std::io::{self, Read};
use std::path::PathBuf;

use vmlab_addr::{Asid, VirtAddr};

use super::blocks::{self, ShapeTable};
use super::format::{self as f, VmtHeader};
use super::packed::{self, PackedBlock};
use super::writer::Encoding;
use crate::{Access, AccessKind, Event, EventSource, Location, TraceError};

/// Why a block's payload did not decode: which record, where in the payload.
#[derive(Debug)]
pub(crate) struct DecodeError {
    pub record: usize,
    pub pos: usize,
    pub msg: String,
}

/// Decodes one block payload of `count` records into `out`, which ends up
/// holding exactly those events (on error, garbage).
///
/// `out` is overwritten in place rather than cleared and refilled: the
/// caller hands back the previous block's buffer, and re-initialising 1.5 MB
/// per block cost 13% of the decoding time.
///
/// `raw` is the payload followed by at least [`f::PAD`] zero bytes, so the hot
/// loop loads 8 delta bytes with one bounds check and no branch on the delta
/// length. A record whose bytes end in the padding is caught after the loop.
pub(crate) fn decode_block(raw: &[u8], raw_len: usize, count: usize, out: &mut Vec<Event>) -> Result<(), DecodeError> {
    let fail = |record: usize, pos: usize, msg: String| DecodeError { record, pos, msg };
    let (Some(tags), Some(data)) = (raw.get(..count).filter(|_| count <= raw_len), raw.get(count..)) else {
        return Err(fail(0, 0, format!("a {raw_len}-byte payload cannot hold the tags of {count} records")));
    };
    let data_len = raw_len - count;
    if out.len() < count {
        out.resize(count, Event::FlushAll);
    }
    out.truncate(count);
    let dst = &mut out[..];
    // Predictions live in two locals and every record adds its step to both,
    // masked to zero for the stream it does not use: each prediction is then
    // a one-add dependency chain. A branch on the stream mispredicts on mixed
    // fetch/data traffic, and predictions in an array (or spilled for lack of
    // registers) sit on the stack where every record waits on a store-to-load
    // round trip: measured at 14 cycles a record, against about 7 now.
    let (mut pi, mut pd) = (0u64, 0u64);
    let mut asid = Asid(0);
    let mut dpos = 0usize;
    // The loop keeps no record counter (it would cost a register the
    // predictions need); errors recover the index from the slot's address.
    let base = dst.as_ptr() as usize;
    let index_of = |slot: &Event| (slot as *const Event as usize - base) / std::mem::size_of::<Event>();
    for (slot, &t) in dst.iter_mut().zip(tags) {
        let ti = &f::TAGS[usize::from(t)];
        if ti.escape {
            let mut st = State { i: pi, d: pd, asid };
            match decode_escape(t, data, data_len, dpos, &mut st) {
                Ok((e, p)) => {
                    *slot = e;
                    dpos = p;
                }
                Err(msg) => return Err(fail(index_of(slot), count + dpos, msg)),
            }
            (pi, pd, asid) = (st.i, st.d, st.asid);
            continue;
        }
        let Some(&w) = data.get(dpos..).and_then(|d| d.first_chunk::<8>()) else {
            return Err(fail(index_of(slot), raw_len, "address delta runs past the payload".into()));
        };
        let step = (u64::from_le_bytes(w) & ti.len_mask).wrapping_add(ti.step_bias);
        pi = pi.wrapping_add(step & ti.mask_i);
        pd = pd.wrapping_add(step & ti.mask_d);
        let next = (pi & ti.mask_i) | (pd & ti.mask_d);
        let addr = next.wrapping_sub(u64::from(ti.size));
        *slot = Event::Access(Access { kind: ti.kind, size: ti.size, addr: VirtAddr(addr), asid });
        dpos += usize::from(ti.len);
    }
    payload_end(dpos, data_len, count, raw_len)?;
    Ok(())
}

/// What the packed decoder needs of a direct tag (escape tags, 248..=255,
/// are told by their value alone).
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
struct PackedTag {
    len_mask: u64,
    step_bias: u64,
    mask_i: u64,
    /// `op << 56` minus the size: added to the stream's new prediction
    /// (address + size) it gives the packed word.
    word_bias: u64,
    /// Delta bytes.
    len: u64,
}

static PACKED_TAGS: [PackedTag; 256] = {
    let mut t = [PackedTag { len_mask: 0, step_bias: 0, mask_i: 0, word_bias: 0, len: 0 }; 256];
    let mut i = 0;
    while i < 256 {
        let ti = &f::TAGS[i];
        let op = (i >> 3) as u64;
        t[i] = PackedTag {
            len_mask: ti.len_mask,
            step_bias: ti.step_bias,
            mask_i: ti.mask_i,
            word_bias: (op << packed::ADDR_BITS).wrapping_sub(ti.size as u64),
            len: ti.len as u64,
        };
        i += 1;
    }
    t
};

/// Records in one run of the packed decoder, and its delta window.
const CHUNK: usize = 64;
const WINDOW: usize = 8 * CHUNK + 8;

/// Decodes direct records of `tags` into `words` until an escape or the end
/// of the run; returns how many, the delta bytes they took, and the new
/// predictions and `high`. Out of line so that its registers are its own:
/// inlined, the block loop's state pushed its pointers onto the stack.
#[inline(never)]
fn decode_run(
    win: &[u8; WINDOW],
    tags: &[u8],
    words: &mut [u64],
    mut pi: u64,
    mut pd: u64,
    mut high: u64,
) -> (usize, usize, u64, u64, u64) {
    let mut o = 0usize;
    let n = tags.len().min(words.len()).min(CHUNK);
    let mut j = 0usize;
    while j < n {
        let t = tags[j];
        if t >= FIRST_ESCAPE_TAG {
            break;
        }
        let ti = &PACKED_TAGS[usize::from(t)];
        // A record takes at most 8 bytes, so the ones before the last of a
        // run start at most 8 * (CHUNK - 1) bytes in: the mask is exact, and
        // keeps the load provably inside the window (no bounds check).
        let w = win[o & (8 * CHUNK - 1)..].first_chunk::<8>().map_or(0, |b| u64::from_le_bytes(*b));
        let step = (w & ti.len_mask).wrapping_add(ti.step_bias);
        // Selects (cmov), not branches: fetch and data records interleave unpredictably.
        let is_i = ti.mask_i != 0;
        let next = if is_i { pi } else { pd }.wrapping_add(step);
        pi = if is_i { next } else { pi };
        pd = if is_i { pd } else { next };
        high |= next.wrapping_sub(32);
        words[j] = next.wrapping_add(ti.word_bias);
        o += ti.len as usize;
        j += 1;
    }
    (j, o, pi, pd, high)
}

/// Tags from here up are escapes (op 31).
const FIRST_ESCAPE_TAG: u8 = f::OP_ESCAPE << 3;
/// Tags below this are instruction fetches (ops 0..=14); the rest of the
/// direct tags are data.
const FIRST_DATA_TAG: u8 = 15 << 3;

/// The packed decoder's per-tag constants, one array per field, so that each
/// is `[base + tag * 8 + field offset]`: one base register for all four and
/// no shift of the tag (the 64-byte [`PackedTag`] rows needed one).
#[derive(Debug)]
#[repr(C, align(64))]
struct ColumnTags {
    len_mask: [u64; 256],
    step_bias: [u64; 256],
    /// `op << 56` minus the size, plus [`PRED_BIAS`] (predictions are kept
    /// less that bias in [`decode_clean_chunks`]).
    word_bias: [u64; 256],
    len: [u64; 256],
}

/// [`decode_clean_chunks`] keeps each prediction minus this, so the value it
/// or-s into `high` (next prediction less 32) is the prediction itself: one
/// instruction a record fewer.
const PRED_BIAS: u64 = 32;

static COLUMN_TAGS: ColumnTags = {
    let mut t = ColumnTags { len_mask: [0; 256], step_bias: [0; 256], word_bias: [0; 256], len: [0; 256] };
    let mut i = 0;
    while i < 256 {
        let p = &PACKED_TAGS[i];
        t.len_mask[i] = p.len_mask;
        t.step_bias[i] = p.step_bias;
        t.word_bias[i] = p.word_bias.wrapping_add(PRED_BIAS);
        t.len[i] = p.len;
        i += 1;
    }
    t
};

/// The delta window of [`decode_clean_chunks`]: twice what a run can use, so
/// that its running offset, masked to the window after every record, provably
/// stays inside without ever wrapping. (A run split into two 256-byte windows
/// indexed by a `u8` offset ran out of registers: more instructions, not fewer.)
const CLEAN_WINDOW: usize = 16 * CHUNK + 8;
const CLEAN_MASK: usize = 16 * CHUNK - 1;

/// Zero bytes after a payload for [`decode_block_packed`]: a whole run's
/// window even at the end of the data, so that highly compressible blocks
/// (long runs of records without delta bytes) take the fast path to the end.
pub(crate) const PACKED_PAD: usize = CLEAN_WINDOW;
// The basic-block decoder reads its padding from the same buffer.
const _: () = assert!(PACKED_PAD >= blocks::PAD);

/// Decoder state of [`decode_clean_chunks`], in registers.
struct Clean {
    /// Predictions less [`PRED_BIAS`].
    pi: u64,
    pd: u64,
    high: u64,
    /// Delta bytes used so far in the current run (at most `8 * CHUNK`).
    o: usize,
}

impl Clean {
    /// One direct record.
    #[inline(always)]
    fn record(&mut self, win: &[u8; CLEAN_WINDOW], t: u8) -> u64 {
        let tab = &COLUMN_TAGS;
        let t = usize::from(t);
        let d = win[self.o..].first_chunk::<8>().map_or(0, |b| u64::from_le_bytes(*b));
        let step = (d & tab.len_mask[t]).wrapping_add(tab.step_bias[t]);
        // Selects (cmov), not branches: fetch and data records interleave unpredictably.
        let is_i = t < usize::from(FIRST_DATA_TAG);
        let cand_i = self.pi.wrapping_add(step);
        let cand_d = self.pd.wrapping_add(step);
        let next = if is_i { cand_i } else { cand_d };
        self.pi = if is_i { cand_i } else { self.pi };
        self.pd = if is_i { self.pd } else { cand_d };
        self.high |= next;
        // A run takes at most 8 * CHUNK bytes, under half the window: the
        // mask never changes the offset and keeps every load provably inside.
        self.o = (self.o + tab.len[t] as usize) & CLEAN_MASK;
        next.wrapping_add(tab.word_bias[t])
    }
}

/// Decodes whole runs of [`CHUNK`] direct records (no escape among them,
/// checked for the whole run before any record is decoded); returns how many
/// records, the delta bytes they took, and the new predictions and `high`.
/// It stops at the first run holding an escape, or whose deltas end past
/// `data_len` (the payload's data section; `data` goes on with at least
/// [`PACKED_PAD`] bytes of padding so every run's window is there), and
/// leaves that run to the caller.
///
/// Compared with [`decode_run`], a record here does no escape test, no table
/// row shift and no `- 32` for `high`, the loop is unrolled four times, and
/// the block loop pays one call for many runs.
#[inline(never)]
fn decode_clean_chunks(
    data: &[u8],
    data_len: usize,
    tags: &[u8],
    words: &mut [u64],
    pi: u64,
    pd: u64,
    high: u64,
) -> (usize, usize, u64, u64, u64) {
    let mut st = Clean { pi: pi.wrapping_sub(PRED_BIAS), pd: pd.wrapping_sub(PRED_BIAS), high, o: 0 };
    let mut done = 0usize;
    let mut dpos = 0usize;
    for (tc, wc) in tags.chunks_exact(CHUNK).zip(words.chunks_exact_mut(CHUNK)) {
        let Some(win) = data.get(dpos..).and_then(|d| d.first_chunk::<CLEAN_WINDOW>()) else {
            break;
        };
        // A max over 64 bytes vectorises (pmaxub): ~0.2 instructions a record.
        if tc.iter().fold(0u8, |m, &t| m.max(t)) >= FIRST_ESCAPE_TAG {
            break;
        }
        let before = (st.pi, st.pd, st.high);
        st.o = 0;
        for (w4, t4) in wc.chunks_exact_mut(4).zip(tc.chunks_exact(4)) {
            if let (Some(w4), Some(t4)) = (w4.first_chunk_mut::<4>(), t4.first_chunk::<4>()) {
                w4[0] = st.record(win, t4[0]);
                w4[1] = st.record(win, t4[1]);
                w4[2] = st.record(win, t4[2]);
                w4[3] = st.record(win, t4[3]);
            }
        }
        // A run whose deltas end in the padding is undone and left to the
        // caller's checked path, which reports it exactly as before.
        if dpos + st.o > data_len {
            (st.pi, st.pd, st.high) = before;
            break;
        }
        dpos += st.o;
        done += CHUNK;
    }
    (done, dpos, st.pi.wrapping_add(PRED_BIAS), st.pd.wrapping_add(PRED_BIAS), st.high)
}

/// Decodes one block payload (as [`decode_block`], but followed by at least
/// [`PACKED_PAD`] zero bytes) into packed words. A
/// block with an address at or above 2^56 - 32 (never in a user-space trace)
/// is decoded as events and packed instead, which gives the same words.
pub(crate) fn decode_block_packed(
    raw: &[u8],
    raw_len: usize,
    count: usize,
    out: &mut PackedBlock,
) -> Result<(), DecodeError> {
    let fail = |record: usize, pos: usize, msg: String| DecodeError { record, pos, msg };
    // The checked paths see the payload and [`f::PAD`] bytes, as the event
    // decoder does, so the two report every bad record the same way; only
    // `decode_clean_chunks` reads further into the padding.
    let (Some(tags), Some(data), Some(padded)) = (
        raw.get(..count).filter(|_| count <= raw_len),
        raw.get(count..raw_len + f::PAD),
        raw.get(count..raw_len + PACKED_PAD),
    ) else {
        return Err(fail(0, 0, format!("a {raw_len}-byte payload cannot hold the tags of {count} records")));
    };
    let raw = &raw[..raw_len + f::PAD];
    let data_len = raw_len - count;
    out.extra.clear();
    // Overwritten in place, like `decode_block`'s events.
    out.words.resize(count, 0);
    out.len = count;
    // Every fetch kept, whatever `fetch_skip` allows (and none dropped: the
    // buffer may hold a block packed from events under a leave).
    out.skipped = 0;
    out.no_fetch_words = false;
    let (mut pi, mut pd) = (0u64, 0u64);
    let mut asid = Asid(0);
    let mut dpos = 0usize;
    // Every direct record's next prediction less 32, or-ed: see the check after the loop.
    let mut high = 0u64;
    let words = &mut out.words[..count];
    let tags = &tags[..count];
    let mut i = 0usize;
    while i < count {
        // Whole runs of direct records first: the common case by far.
        // Not once a record has run into the padding: the checked path
        // reports that at the next record.
        if let (true, Some(dc), Some(tc), Some(wc)) =
            (dpos <= data_len, padded.get(dpos..), tags.get(i..), words.get_mut(i..))
        {
            let (j, o);
            (j, o, pi, pd, high) = decode_clean_chunks(dc, data_len - dpos, tc, wc, pi, pd, high);
            dpos += o;
            i += j;
            if i == count {
                break;
            }
        }
        // Runs of up to CHUNK direct records read their deltas from one
        // fixed-size window, so no record pays a bounds check (see
        // `decode_run`). Near the end of the payload, and at an escape,
        // records go one at a time with checks.
        let n = (count - i).min(CHUNK);
        if let (Some(win), Some(tc), Some(wc)) =
            (data.get(dpos..).and_then(|d| d.first_chunk::<WINDOW>()), tags.get(i..i + n), words.get_mut(i..i + n))
        {
            let (j, o);
            (j, o, pi, pd, high) = decode_run(win, tc, wc, pi, pd, high);
            dpos += o;
            i += j;
            if j == n {
                continue;
            }
        }
        // One record with every check: an escape, or a direct record near the end.
        let t = tags[i];
        if t >= FIRST_ESCAPE_TAG {
            let mut st = State { i: pi, d: pd, asid };
            match decode_escape(t, data, data_len, dpos, &mut st) {
                Ok((e, p)) => {
                    out.extra.push(e);
                    words[i] = u64::from(packed::PACKED_ESCAPE) << packed::ADDR_BITS;
                    dpos = p;
                }
                Err(msg) => return Err(fail(i, count + dpos, msg)),
            }
            (pi, pd, asid) = (st.i, st.d, st.asid);
            i += 1;
            continue;
        }
        let ti = &PACKED_TAGS[usize::from(t)];
        let Some(&w) = data.get(dpos..).and_then(|d| d.first_chunk::<8>()) else {
            return Err(fail(i, raw_len, "address delta runs past the payload".into()));
        };
        let step = (u64::from_le_bytes(w) & ti.len_mask).wrapping_add(ti.step_bias);
        let mi = ti.mask_i;
        pi = pi.wrapping_add(step & mi);
        pd = pd.wrapping_add(step & !mi);
        let next = (pi & mi) | (pd & !mi);
        high |= next.wrapping_sub(32);
        words[i] = next.wrapping_add(ti.word_bias);
        dpos += ti.len as usize;
        i += 1;
    }
    payload_end(dpos, data_len, count, raw_len)?;
    // A direct record's address is its next prediction less its size (1..=32).
    // Unless some prediction lies outside [32, 2^56) every address fits in
    // 56 bits; `high` has a bit of the top byte set, or all of 5..=55, when
    // one may not (rarely spuriously), and the block is packed from events.
    if high >= packed::ADDR_MASK - 31 {
        let mut events = std::mem::take(&mut out.scratch);
        let r = decode_block(raw, raw_len, count, &mut events);
        if r.is_ok() {
            out.pack(&events);
        }
        out.scratch = events;
        return r;
    }
    Ok(())
}

/// Decoder state handed to the escape path.
#[derive(Clone, Copy, Debug, Default)]
struct State {
    i: u64,
    d: u64,
    asid: Asid,
}

/// The rare records: markers, asid changes, kinds and sizes without a direct
/// op. Kept out of line so the hot loop stays small.
#[cold]
#[inline(never)]
fn decode_escape(t: u8, data: &[u8], data_len: usize, mut p: usize, st: &mut State) -> Result<(Event, usize), String> {
    let n = usize::from(t & 7);
    let desc = match data.get(p) {
        Some(&d) if p < data_len => d,
        _ => return Err("escape tag without its descriptor byte (data section exhausted)".into()),
    };
    p += 1;
    if desc & f::DESC_MARKER != 0 {
        if n != 0 {
            return Err(format!(
                "marker record (descriptor {desc:#04x}) has delta-length bits {n}: reserved, must be 0"
            ));
        }
        return match desc {
            f::DESC_CONTEXT_SWITCH => {
                let (v, q) = leb(data, data_len, p)?;
                st.asid = Asid(v);
                Ok((Event::ContextSwitch(Asid(v)), q))
            }
            f::DESC_FLUSH_ALL => Ok((Event::FlushAll, p)),
            f::DESC_SYSCALL => {
                let (asid, q) = leb(data, data_len, p)?;
                let (number, q) = leb(data, data_len, q)?;
                let (s, q) =
                    f::syscall_tail(data, data_len, q, Asid(asid), number).map_err(|m| format!("system call: {m}"))?;
                Ok((Event::Syscall(s), q))
            }
            f::DESC_SYSCALL_ARG => {
                let v = f::le_u64(data, data_len, p).ok_or("system-call argument runs past the end of the payload")?;
                Ok((Event::SyscallArg(v), p + 8))
            }
            _ => Err(format!(
                "unknown marker descriptor {desc:#04x}: expected 0x80 (context switch), 0x81 (flush), \
                 0x82 (system call) or 0x83 (system-call argument)"
            )),
        };
    }
    if desc & f::DESC_RESERVED != 0 {
        return Err(format!("descriptor {desc:#04x} has reserved bit 2 set; it must be 0"));
    }
    let kind = f::kind_from_bits(desc);
    if desc & f::DESC_ASID != 0 {
        let (v, q) = leb(data, data_len, p)?;
        st.asid = Asid(v);
        p = q;
    }
    let code = (desc >> 3) & 7;
    let size = if code == f::DESC_SIZE_EXPLICIT {
        let (v, q) = leb(data, data_len, p)?;
        p = q;
        if v == 0 {
            return Err("explicit access size 0: sizes are at least 1".into());
        }
        v
    } else {
        1u32 << code
    };
    let nb = usize::from(f::LEN_BYTES[n]);
    let bytes = match data.get(p..p + nb) {
        Some(b) if p + nb <= data_len => b,
        _ => return Err(format!("{nb} address-delta bytes run past the end of the payload")),
    };
    let mut w = [0u8; 8];
    w[..nb].copy_from_slice(bytes);
    let pred = if kind == AccessKind::Ifetch { &mut st.i } else { &mut st.d };
    let addr = pred.wrapping_add(f::unbiased(u64::from_le_bytes(w), t));
    *pred = addr.wrapping_add(u64::from(size));
    Ok((Event::Access(Access { kind, size, addr: VirtAddr(addr), asid: st.asid }), p + nb))
}

/// Unsigned LEB128 of at most 5 bytes holding a u32.
fn leb(raw: &[u8], raw_len: usize, mut p: usize) -> Result<(u32, usize), String> {
    let mut v: u64 = 0;
    for i in 0..5 {
        let b = match raw.get(p) {
            Some(&b) if p < raw_len => b,
            _ => return Err("LEB128 number runs past the end of the payload".into()),
        };
        p += 1;
        v |= u64::from(b & 0x7f) << (7 * i);
        if b & 0x80 == 0 {
            return u32::try_from(v).map(|v| (v, p)).map_err(|_| format!("LEB128 number {v} does not fit in 32 bits"));
        }
    }
    Err("LEB128 number longer than 5 bytes (varint overrun)".into())
}

/// Reads a `.vmt` stream from any byte source.
pub struct VmtReader<R> {
    r: R,
    name: PathBuf,
    header: VmtHeader,
    offset: u64,
    total: Option<u64>,
    comp: Vec<u8>,
    raw: Vec<u8>,
    zstd: zstd::bulk::Decompressor<'static>,
    events: u64,
    blocks: u64,
    done: bool,
    failed: Option<TraceError>,
    encoding: Encoding,
    /// The basic-block encoding's shape table (kept across blocks).
    shapes: ShapeTable,
    /// Where a basic-block payload is decoded when events are wanted.
    scratch: PackedBlock,
}

impl<R> std::fmt::Debug for VmtReader<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VmtReader")
            .field("name", &self.name)
            .field("header", &self.header)
            .field("offset", &self.offset)
            .field("events", &self.events)
            .field("blocks", &self.blocks)
            .finish_non_exhaustive()
    }
}

fn hex_bytes(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect::<Vec<_>>().join(" ")
}

impl<R: Read> VmtReader<R> {
    /// Reads and checks the file header; `name` is what errors call the input.
    pub fn new(r: R, name: impl Into<PathBuf>) -> Result<Self, TraceError> {
        let mut me = Self {
            r,
            name: name.into(),
            header: VmtHeader::default(),
            offset: 0,
            total: None,
            comp: Vec::new(),
            raw: Vec::new(),
            zstd: zstd::bulk::Decompressor::new()
                .map_err(|e| TraceError::new(PathBuf::new(), Location::File, format!("zstd: {e}")))?,
            events: 0,
            blocks: 0,
            done: false,
            failed: None,
            encoding: Encoding::default(),
            shapes: ShapeTable::default(),
            scratch: PackedBlock::default(),
        };
        me.read_header()?;
        Ok(me)
    }

    /// The input's size in bytes, reported by [`EventSource::progress`].
    pub fn with_total_len(mut self, total: u64) -> Self {
        self.total = Some(total);
        self
    }

    pub fn header(&self) -> &VmtHeader {
        &self.header
    }

    /// The file's record encoding.
    pub fn encoding(&self) -> Encoding {
        self.encoding
    }

    fn err(&self, at: u64, msg: impl Into<String>) -> TraceError {
        TraceError::new(&self.name, Location::Offset(at), msg)
    }

    /// Fills `buf` completely unless the input ends; returns bytes read.
    fn read_upto(&mut self, buf: &mut [u8]) -> Result<usize, TraceError> {
        let mut n = 0;
        while n < buf.len() {
            match self.r.read(&mut buf[n..]) {
                Ok(0) => break,
                Ok(k) => n += k,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(self.err(self.offset + n as u64, format!("read error: {e}"))),
            }
        }
        self.offset += n as u64;
        Ok(n)
    }

    /// Like `read_upto` but running out is an error describing `what`.
    fn read_exact_or(&mut self, buf: &mut [u8], what: &str) -> Result<(), TraceError> {
        let n = self.read_upto(buf)?;
        if n < buf.len() {
            return Err(self.err(
                self.offset,
                format!("truncated file: expected {} bytes of {what}, found {n} before the end of the file", buf.len()),
            ));
        }
        Ok(())
    }

    fn read_header(&mut self) -> Result<(), TraceError> {
        let mut h = [0u8; f::FILE_HEADER_LEN];
        let n = self.read_upto(&mut h)?;
        if n > 0 && n < f::MAGIC.len() && h[..n] == f::MAGIC[..n] {
            // The start of the magic and then the end: a cut-off .vmt file.
            return Err(self.err(
                self.offset,
                format!(
                    "truncated file: expected the 8-byte .vmt magic, found its first {n} bytes and the end of the file"
                ),
            ));
        }
        if n < f::MAGIC.len() || h[..8] != f::MAGIC {
            return Err(self.err(
                0,
                format!(
                    "bad magic: expected the .vmt magic {} (\"\\x89VMT\\r\\n\\x1a\\n\"), found {} — not a .vmt file",
                    hex_bytes(&f::MAGIC),
                    if n == 0 { "an empty file".to_string() } else { hex_bytes(&h[..n.min(8)]) }
                ),
            ));
        }
        if n < h.len() {
            return Err(self.err(
                self.offset,
                format!("truncated file: expected the {}-byte file header, found {n} bytes", f::FILE_HEADER_LEN),
            ));
        }
        let version = u16::from_le_bytes([h[8], h[9]]);
        let encoding = [Encoding::Delta, Encoding::BasicBlocks]
            .into_iter()
            .find(|e| e.name_and_version().1 == version)
            .ok_or_else(|| {
                self.err(
                    8,
                    format!(
                        "unsupported .vmt format version {version}: this build reads versions {} and {}",
                        f::VERSION,
                        blocks::VERSION
                    ),
                )
            })?;
        let flags = u16::from_le_bytes([h[10], h[11]]);
        if flags != 0 {
            return Err(self.err(10, format!("header flags are {flags:#06x}: reserved, expected 0")));
        }
        let json_len = u32::from_le_bytes([h[12], h[13], h[14], h[15]]) as usize;
        if json_len > f::MAX_JSON_LEN {
            return Err(self.err(
                12,
                format!("header JSON length {json_len} exceeds the maximum {} (corrupt length field)", f::MAX_JSON_LEN),
            ));
        }
        let want_crc = u32::from_le_bytes([h[16], h[17], h[18], h[19]]);
        let mut json = vec![0u8; json_len];
        self.read_exact_or(&mut json, "header JSON")?;
        let crc = crc32fast::hash(&json);
        if crc != want_crc {
            return Err(self.err(
                16,
                format!("header checksum mismatch: expected CRC32 {want_crc:#010x}, the JSON hashes to {crc:#010x}"),
            ));
        }
        let header: VmtHeader = serde_json::from_slice(&json).map_err(|e| {
            self.err(f::FILE_HEADER_LEN as u64, format!("bad header JSON: expected a vmt header object: {e}"))
        })?;
        let want = encoding.name_and_version().0;
        if header.encoding != want {
            return Err(self.err(
                f::FILE_HEADER_LEN as u64,
                format!(
                    "unsupported record encoding `{}` for format version {version}: this build reads `{want}` there",
                    header.encoding
                ),
            ));
        }
        self.header = header;
        self.encoding = encoding;
        Ok(())
    }

    fn next_block(&mut self, mut buf: Target<'_>) -> Result<bool, TraceError> {
        let at = self.offset;
        let mut magic = [0u8; 4];
        let n = self.read_upto(&mut magic)?;
        if n == 0 {
            return Err(self.err(
                at,
                format!(
                    "missing end block: the file ends after {} blocks ({} events) without the end block \
                     (the writer did not finish)",
                    self.blocks, self.events
                ),
            ));
        }
        if n < 4 {
            return Err(
                self.err(self.offset, format!("truncated file: expected a 4-byte block magic, found {n} bytes"))
            );
        }
        if magic == f::END_MAGIC {
            return self.read_end(at).map(|()| false);
        }
        if magic != f::BLOCK_MAGIC {
            return Err(
                self.err(at, format!("bad block magic: expected \"VMTB\" or \"VMTE\", found {}", hex_bytes(&magic)))
            );
        }
        let mut h = [0u8; f::BLOCK_HEADER_LEN - 4];
        self.read_exact_or(&mut h, "block header")?;
        let field = |i: usize| u32::from_le_bytes([h[i], h[i + 1], h[i + 2], h[i + 3]]);
        let (count, raw_len, comp_len, want_crc) = (field(0) as usize, field(4) as usize, field(8) as usize, field(12));
        if count == 0 || count > f::MAX_BLOCK_EVENTS {
            return Err(self.err(
                at,
                format!("block record count {count} is outside 1..={} (corrupt block header)", f::MAX_BLOCK_EVENTS),
            ));
        }
        // A delta record takes at least its tag byte; a basic-block payload
        // at least its header.
        let least = match self.encoding {
            Encoding::Delta => count,
            Encoding::BasicBlocks => blocks::HEADER_LEN,
        };
        if raw_len < least || raw_len > f::MAX_RAW_LEN {
            return Err(self.err(
                at,
                format!(
                    "block payload length {raw_len} is impossible for {count} records (expected {least}..={}; corrupt block header)",
                    f::MAX_RAW_LEN
                ),
            ));
        }
        if comp_len > f::max_comp_len() {
            return Err(self.err(
                at,
                format!(
                    "compressed length {comp_len} exceeds the maximum {} (corrupt block header)",
                    f::max_comp_len()
                ),
            ));
        }
        self.comp.resize(comp_len, 0);
        let mut comp = std::mem::take(&mut self.comp);
        let got = self.read_exact_or(&mut comp, "compressed block payload");
        self.comp = comp;
        got?;
        let mut crc = crc32fast::Hasher::new();
        crc.update(&h[..12]);
        crc.update(&self.comp);
        let crc = crc.finalize();
        if crc != want_crc {
            return Err(self.err(
                at,
                format!("block checksum mismatch: expected CRC32 {want_crc:#010x}, the block hashes to {crc:#010x}"),
            ));
        }
        self.raw.clear();
        self.raw.reserve(raw_len + PACKED_PAD);
        let dec = self.zstd.decompress_to_buffer(&self.comp[..], &mut self.raw);
        match dec {
            Ok(k) if k == raw_len => {}
            Ok(k) => {
                return Err(
                    self.err(at, format!("block payload decompresses to {k} bytes, the block header says {raw_len}"))
                )
            }
            Err(e) => return Err(self.err(at, format!("block payload does not decompress (zstd: {e})"))),
        }
        self.raw.resize(raw_len + PACKED_PAD, 0);
        let decoded = match (self.encoding, &mut buf) {
            (Encoding::Delta, Target::Events(v)) => decode_block(&self.raw[..raw_len + f::PAD], raw_len, count, v),
            (Encoding::Delta, Target::Packed(p)) => decode_block_packed(&self.raw, raw_len, count, p),
            (Encoding::BasicBlocks, Target::Packed(p)) => {
                blocks::decode(&mut self.shapes, &self.raw, raw_len, count, p).map_err(|e| DecodeError {
                    record: e.record,
                    pos: e.pos,
                    msg: e.msg,
                })
            }
            (Encoding::BasicBlocks, Target::Events(v)) => {
                let p = &mut self.scratch;
                p.fetch_skip = None;
                let r = blocks::decode(&mut self.shapes, &self.raw, raw_len, count, p).map_err(|e| DecodeError {
                    record: e.record,
                    pos: e.pos,
                    msg: e.msg,
                });
                v.clear();
                p.unpack(v);
                r
            }
        };
        decoded.map_err(|e| {
            self.err(
                at,
                format!(
                    "bad record in the block starting here: {} {} (payload byte {}): {}",
                    match self.encoding {
                        Encoding::Delta => "record",
                        Encoding::BasicBlocks => "entry",
                    },
                    e.record,
                    e.pos,
                    e.msg
                ),
            )
        })?;
        self.events += count as u64;
        self.blocks += 1;
        Ok(true)
    }

    fn read_end(&mut self, at: u64) -> Result<(), TraceError> {
        let mut e = [0u8; f::END_LEN];
        e[..4].copy_from_slice(&f::END_MAGIC);
        self.read_exact_or(&mut e[4..], "end block")?;
        let crc = crc32fast::hash(&e[4..20]);
        let want = u32::from_le_bytes([e[20], e[21], e[22], e[23]]);
        if crc != want {
            return Err(
                self.err(at, format!("end block checksum mismatch: expected CRC32 {want:#010x}, found {crc:#010x}"))
            );
        }
        let total = u64::from_le_bytes([e[4], e[5], e[6], e[7], e[8], e[9], e[10], e[11]]);
        let blocks = u64::from_le_bytes([e[12], e[13], e[14], e[15], e[16], e[17], e[18], e[19]]);
        if total != self.events || blocks != self.blocks {
            return Err(self.err(
                at,
                format!(
                    "record count mismatch: the end block says {total} events in {blocks} blocks, \
                     the file holds {} events in {} blocks",
                    self.events, self.blocks
                ),
            ));
        }
        let mut extra = [0u8; 1];
        if self.read_upto(&mut extra)? != 0 {
            return Err(self.err(self.offset - 1, "unexpected data after the end block"));
        }
        Ok(())
    }
}

/// Where a block is decoded to.
enum Target<'a> {
    Events(&'a mut Vec<Event>),
    Packed(&'a mut PackedBlock),
}

impl Target<'_> {
    fn clear(&mut self) {
        match self {
            Target::Events(v) => v.clear(),
            Target::Packed(p) => p.clear(),
        }
    }
}

impl<R: Read> VmtReader<R> {
    fn fill_target(&mut self, mut buf: Target<'_>) -> Result<bool, TraceError> {
        // Not cleared up front: a block overwrites the buffer in place.
        if let Some(e) = &self.failed {
            buf.clear();
            return Err(e.clone());
        }
        if self.done {
            buf.clear();
            return Ok(false);
        }
        match self.next_block(Target::reborrow(&mut buf)) {
            Ok(more) => {
                self.done = !more;
                if !more {
                    buf.clear();
                }
                Ok(more)
            }
            Err(e) => {
                buf.clear();
                self.failed = Some(e.clone());
                Err(e)
            }
        }
    }
}

impl Target<'_> {
    fn reborrow<'b>(t: &'b mut Target<'_>) -> Target<'b> {
        match t {
            Target::Events(v) => Target::Events(v),
            Target::Packed(p) => Target::Packed(p),
        }
    }
}

impl<R: Read + Send> EventSource for VmtReader<R> {
    fn fill(&mut self, buf: &mut Vec<Event>) -> Result<bool, TraceError> {
        self.fill_target(Target::Events(buf))
    }

    fn fill_packed(&mut self, buf: &mut PackedBlock) -> Result<bool, TraceError> {
        self.fill_target(Target::Packed(buf))
    }

    fn progress(&self) -> (u64, Option<u64>) {
        (self.offset, self.total)
    }

    fn encoding(&self) -> Option<String> {
        let (name, version) = self.encoding.name_and_version();
        Some(format!("{name} (.vmt version {version})"))
    }
}

/// After the last record: the records must have used exactly the payload.
fn payload_end(dpos: usize, data_len: usize, count: usize, raw_len: usize) -> Result<(), DecodeError> {
    if dpos > data_len {
        return Err(DecodeError {
            record: count.saturating_sub(1),
            pos: raw_len,
            msg: format!("last record runs {} bytes past the end of the {raw_len}-byte payload", dpos - data_len),
        });
    }
    if dpos < data_len {
        return Err(DecodeError {
            record: count,
            pos: count + dpos,
            msg: format!("{} payload bytes left over after the last of the {count} records", data_len - dpos),
        });
    }
    Ok(())
}
