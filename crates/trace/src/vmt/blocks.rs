//! The basic-block record encoding (`vmt-bb-v1`, container version 2).
//!
//! A program's instruction fetches are almost all implied by the basic
//! block they belong to: straight-line code fetches instruction after
//! instruction, so once a block's start address and instruction sizes are
//! known, running it again adds nothing but its data addresses. This
//! encoding records each distinct *shape* (start address, then in order
//! its instructions' sizes and the kinds and sizes of the data references
//! each makes) once, in a table that lives for the whole file, and each
//! execution as the shape's number plus its data addresses. The decoder
//! copies a shape's precomputed words and patches in the data addresses:
//! no per-fetch decoding at all, and with [`FetchSkip`] it copies a
//! template that already leaves out the fetches the consumer does not
//! want (those within the line of the previous fetch of the shape).
//!
//! Each data reference of a shape (a *slot*) predicts its address as its
//! previous address plus its previous stride, so a loop walking an array,
//! or a stack slot touched at each call, costs no address bytes.
//!
//! Payload of one block (all little-endian):
//!
//! | bytes | field |
//! |---|---|
//! | 4 | flags: bit 0 [`RESET`] clears the table and every slot first; others 0 |
//! | 4 | `n_defs`: shapes this block adds to the table, in order |
//! | 4 | `defs_len`: bytes of the definitions |
//! | 4 | `n_ctl`: control entries |
//! | 4 | `n_dtags`: data tags |
//! | 4 | `raw_len`: bytes of the raw events |
//! | 4 × `n_ctl` | control: a shape number (an execution), or [`CTL_RAW`] (the next raw event) |
//! | `defs_len` | definitions: start address (8), item count (1, 1..=[`MAX_ITEMS`]), items (1 each: a direct op; the first an instruction fetch) |
//! | `n_dtags` | one per data reference executed: its delta's length code (`format::LEN_BYTES`) |
//! | `raw_len` | raw events: kind (1: 0-3 an access of that `AccessKind`, [`RAW_SWITCH`], [`RAW_FLUSH`]); an access: size (LEB128), asid (LEB128), address (8); a switch: asid (LEB128) |
//! | rest | address deltas, as the tags say (offset binary, `format::LEN_BIAS`) |
//!
//! Shapes hold only accesses in the current address space (the latest raw
//! event that names one; 0 at the start of each block, as in packed
//! blocks) with direct ops and addresses below 2^56; anything else is a
//! raw event. The writer resets the table when it has grown past
//! [`TABLE_RESET`] shapes or [`ITEMS_RESET`] items, so memory stays bounded
//! whatever the file.

use std::collections::HashMap;

use vmlab_addr::{Asid, VirtAddr};

use super::format::{self as f};
use super::packed::{place, FetchDropper, FetchSkip, PackedBlock, ADDR_BITS, ADDR_MASK, OPS, PACKED_ESCAPE};
use crate::{Access, Event};

/// Name of this encoding in the JSON header.
pub const ENCODING: &str = "vmt-bb-v1";
/// The container version that carries it.
pub const VERSION: u16 = 2;

/// Payload header bytes.
pub const HEADER_LEN: usize = 24;
/// Flag: clear the table (and every slot's prediction) before this block.
pub const RESET: u32 = 1;
/// Control entry that stands for the next raw event.
pub const CTL_RAW: u32 = u32::MAX;
/// Items (instructions and data references) of one shape at most.
pub const MAX_ITEMS: usize = 64;
/// The writer starts a new table once this many shapes exist; a reader
/// accepts at most this many plus one block's worth.
pub const TABLE_RESET: usize = 1 << 17;
pub const MAX_SHAPES: usize = TABLE_RESET + f::MAX_BLOCK_EVENTS;
/// Likewise for the items of all shapes together. A block adds at most as
/// many items as it has events (a shape is defined where it first runs), so
/// a reader holds at most `MAX_TABLE_ITEMS`: about 40 bytes each (word,
/// view word, slot), under 100 MB whatever the file.
pub const ITEMS_RESET: usize = 1 << 21;
pub const MAX_TABLE_ITEMS: usize = ITEMS_RESET + f::MAX_BLOCK_EVENTS;
/// Raw event kinds besides the four access kinds.
pub const RAW_SWITCH: u8 = 0x10;
pub const RAW_FLUSH: u8 = 0x11;
/// A system call: asid (LEB128), number (LEB128), nargs (1), result (8).
pub const RAW_SYSCALL: u8 = 0x12;
/// A system-call argument: 8 bytes.
pub const RAW_SYSCALL_ARG: u8 = 0x13;
/// Zero bytes after the payload: every slot of an execution loads 8 delta
/// bytes at once, and the bound is checked once per execution.
pub const PAD: usize = 8 * MAX_ITEMS + 8;

const IFETCH_OPS: u8 = 15;

fn is_fetch(op: u8) -> bool {
    op < IFETCH_OPS
}

fn op_size(op: u8) -> u64 {
    OPS.get(usize::from(op)).map_or(0, |&(_, s)| u64::from(s))
}

// ---- encoder -----------------------------------------------------------------

/// The shape being gathered: items so far and its data addresses.
#[derive(Debug, Default)]
struct Open {
    start: u64,
    next_fetch: u64,
    items: Vec<u8>,
    addrs: Vec<u64>,
}

/// Encoder state: the table (kept across blocks) and the current block.
#[derive(Debug, Default)]
pub(crate) struct BlockEncoder {
    ids: HashMap<Vec<u8>, u32>,
    /// Per shape, where its slots start in `slots`.
    slot_at: Vec<u32>,
    /// Per slot: last address and stride.
    slots: Vec<[u64; 2]>,
    /// Items of all shapes in the table.
    items: usize,
    reset: bool,
    open: Option<Open>,
    asid: u32,
    key: Vec<u8>,
    n_defs: u32,
    defs: Vec<u8>,
    ctl: Vec<u32>,
    dtags: Vec<u8>,
    raw: Vec<u8>,
    deltas: Vec<u8>,
    pub(crate) count: u32,
}

impl BlockEncoder {
    pub(crate) fn encode(&mut self, e: &Event) {
        self.count += 1;
        // Shapes hold exactly the events a packed block gives a direct word.
        if let Some(word) = place(e, &mut self.asid) {
            let (op, addr) = ((word >> ADDR_BITS) as u8, word & ADDR_MASK);
            if self.extend(op, addr) {
                return;
            }
            if is_fetch(op) && addr + op_size(op) - 1 <= ADDR_MASK {
                self.open =
                    Some(Open { start: addr, next_fetch: addr + op_size(op), items: vec![op], addrs: Vec::new() });
                return;
            }
        }
        self.close();
        self.raw_event(e);
    }

    /// Adds the access to the open shape if it continues it; otherwise
    /// closes the shape and returns false.
    fn extend(&mut self, op: u8, addr: u64) -> bool {
        if let Some(o) = &mut self.open {
            let fits = o.items.len() < MAX_ITEMS;
            if is_fetch(op) {
                let end = addr.checked_add(op_size(op));
                if fits && addr == o.next_fetch && end.is_some_and(|e| e - 1 <= ADDR_MASK) {
                    o.items.push(op);
                    o.next_fetch = addr + op_size(op);
                    return true;
                }
            } else if fits {
                o.items.push(op);
                o.addrs.push(addr);
                return true;
            }
        }
        self.close();
        false
    }

    /// An event outside any shape (`place` has already followed its
    /// address space).
    fn raw_event(&mut self, e: &Event) {
        self.ctl.push(CTL_RAW);
        match *e {
            Event::Access(a) => {
                self.raw.push(a.kind as u8);
                put_leb(&mut self.raw, a.size);
                put_leb(&mut self.raw, a.asid.0);
                self.raw.extend_from_slice(&a.addr.0.to_le_bytes());
            }
            Event::ContextSwitch(asid) => {
                self.raw.push(RAW_SWITCH);
                put_leb(&mut self.raw, asid.0);
            }
            Event::FlushAll => self.raw.push(RAW_FLUSH),
            Event::Syscall(s) => {
                self.raw.push(RAW_SYSCALL);
                super::writer::put_syscall(&mut self.raw, &s);
            }
            Event::SyscallArg(v) => {
                self.raw.push(RAW_SYSCALL_ARG);
                self.raw.extend_from_slice(&v.to_le_bytes());
            }
        }
    }

    /// Records the open shape's execution (defining the shape if new).
    fn close(&mut self) {
        let Some(o) = self.open.take() else { return };
        self.key.clear();
        self.key.extend_from_slice(&o.start.to_le_bytes());
        self.key.extend_from_slice(&o.items);
        let id = match self.ids.get(&self.key[..]) {
            Some(&id) => id,
            None => {
                let id = self.slot_at.len() as u32;
                self.ids.insert(self.key.clone(), id);
                self.slot_at.push(self.slots.len() as u32);
                self.slots.resize(self.slots.len() + o.addrs.len(), [0, 0]);
                self.n_defs += 1;
                self.items += o.items.len();
                self.defs.extend_from_slice(&o.start.to_le_bytes());
                self.defs.push(o.items.len() as u8);
                self.defs.extend_from_slice(&o.items);
                id
            }
        };
        self.ctl.push(id);
        let at = self.slot_at[id as usize] as usize;
        for (slot, &addr) in self.slots[at..at + o.addrs.len()].iter_mut().zip(&o.addrs) {
            let [last, stride] = *slot;
            let delta = addr.wrapping_sub(last.wrapping_add(stride));
            let len = f::len_code(delta);
            self.dtags.push(len);
            let n = usize::from(f::LEN_BYTES[usize::from(len)]);
            self.deltas.extend_from_slice(&f::biased(delta, len).to_le_bytes()[..n]);
            *slot = [addr, addr.wrapping_sub(last)];
        }
    }

    /// Ends the block: its payload into `out`, and the block state cleared
    /// (the table stays, unless it has grown past `TABLE_RESET`).
    pub(crate) fn finish_block(&mut self, out: &mut Vec<u8>) {
        self.close();
        out.clear();
        let flags = if self.reset { RESET } else { 0 };
        for v in [
            flags,
            self.n_defs,
            self.defs.len() as u32,
            self.ctl.len() as u32,
            self.dtags.len() as u32,
            self.raw.len() as u32,
        ] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for c in &self.ctl {
            out.extend_from_slice(&c.to_le_bytes());
        }
        out.extend_from_slice(&self.defs);
        out.extend_from_slice(&self.dtags);
        out.extend_from_slice(&self.raw);
        out.extend_from_slice(&self.deltas);
        self.reset = false;
        if self.slot_at.len() >= TABLE_RESET || self.items >= ITEMS_RESET {
            self.ids.clear();
            self.slot_at.clear();
            self.slots.clear();
            self.items = 0;
            self.reset = true;
        }
        self.asid = 0;
        self.n_defs = 0;
        self.count = 0;
        for v in [&mut self.defs, &mut self.dtags, &mut self.raw, &mut self.deltas] {
            v.clear();
        }
        self.ctl.clear();
    }
}

pub(crate) fn put_leb(out: &mut Vec<u8>, mut v: u32) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

// ---- decoder -----------------------------------------------------------------

/// Why a payload did not decode: the control entry (or definition) and the
/// payload byte, as the reader reports them.
#[derive(Debug)]
pub(crate) struct BlockError {
    pub record: usize,
    pub pos: usize,
    pub msg: String,
}

/// One shape as the execution loop reads it: 16 bytes, so that finding it
/// is one shift, and every field one load. (Where its full words are in
/// `tmpl` is in `ShapeTable::tmpl_at`, read only to build records.)
#[derive(Clone, Copy, Debug)]
struct Shape {
    /// Where its record starts in `arena`: `SLOT_WORDS` words for each of
    /// its slots, then its words under the current `FetchSkip` (its view).
    a: u32,
    /// Its data references (0..`MAX_ITEMS`).
    slots: u8,
    /// Where its view starts in its record: `SLOT_WORDS * slots` (precomputed:
    /// the loop reads it rather than multiplying).
    vs: u8,
    /// Its words in that view (1..=`MAX_ITEMS`) in the low half, the
    /// fetches that view leaves out in the high half: what an execution
    /// adds to the loop's `w_skipped`, in one add.
    adv: u64,
}
const _: () = assert!(std::mem::size_of::<Shape>() == 16 && SLOT_WORDS * MAX_ITEMS < 1 << 8);

impl Shape {
    /// Its words in its view.
    fn v_len(&self) -> usize {
        self.adv as u32 as usize
    }
}

/// Words of one slot in a shape's record: its prediction (last address
/// plus last stride, the encoder's `last + stride`), its last address, and
/// the index of its word within its shape's view. Keeping the prediction
/// rather than the stride saves the loop an add and a register: the next
/// prediction is `2 * addr - last`.
const SLOT_WORDS: usize = 3;

/// The decoder's table, kept across blocks.
#[derive(Debug, Default)]
pub(crate) struct ShapeTable {
    shapes: Vec<Shape>,
    /// Per shape: where its words start in `tmpl` (its items end where the
    /// next shape's start, or at the end of `tmpl`).
    tmpl_at: Vec<u32>,
    /// Every shape's words: a fetch's op and address, a data op with address 0.
    tmpl: Vec<u64>,
    /// Every shape's record (see `Shape::a`): its slots and its view in one
    /// place, so that an execution checks one window for both and the loop
    /// keeps one pointer for both.
    arena: Vec<u64>,
    /// Where the last record ends (`ARENA_PAD` zero words follow).
    arena_end: usize,
    skip: Option<FetchSkip>,
}

impl ShapeTable {
    fn clear(&mut self) {
        self.shapes.clear();
        self.tmpl_at.clear();
        self.tmpl.clear();
        self.arena.clear();
        self.arena_end = 0;
    }

    /// Shape `i`'s items in `tmpl`.
    fn items(&self, i: usize) -> std::ops::Range<usize> {
        let t = self.tmpl_at[i] as usize;
        t..self.tmpl_at.get(i + 1).map_or(self.tmpl.len(), |&e| e as usize)
    }

    /// Appends shape `i`'s record under `self.skip` (its view: its words
    /// without the fetches `skip` lets go), its slots' predictions taken
    /// from `old` (zero if `old` is empty), and records where it is.
    fn build_record(&mut self, i: usize, old: &[u64]) {
        let s = self.shapes[i];
        let (old_a, slots) = (s.a as usize, usize::from(s.slots));
        // Written in place over the padding after the last record, which is
        // grown only by what the record takes: zeroing a whole window's
        // worth for each new shape cost 2 instructions a reference (memset).
        let t = self.items(i);
        let a = self.arena_end;
        if self.arena.len() < a + ARENA_WIN + ARENA_PAD {
            self.arena.resize(a + ARENA_WIN + ARENA_PAD, 0);
        }
        let rec = &mut self.arena[a..a + ARENA_WIN];
        for j in 0..slots {
            let at = old_a + SLOT_WORDS * j;
            let pred_last = old.get(at..at + 2).unwrap_or(&[0, 0]);
            rec[SLOT_WORDS * j..SLOT_WORDS * j + 2].copy_from_slice(pred_last);
        }
        let v = SLOT_WORDS * slots;
        let mut len = v;
        let mut skipped = 0u32;
        let mut drop = self.skip.map(FetchDropper::new);
        let mut slot = 0;
        for &w in &self.tmpl[t] {
            let op = (w >> ADDR_BITS) as u8;
            if is_fetch(op) {
                if drop.as_mut().is_some_and(|d| d.fetch(w & ADDR_MASK, op_size(op))) {
                    skipped += 1;
                    continue;
                }
            } else {
                if let Some(d) = &mut drop {
                    d.data();
                }
                rec[slot + 2] = (len - v) as u64;
                slot += SLOT_WORDS;
            }
            rec[len] = w;
            len += 1;
        }
        self.arena_end = a + len;
        let sh = &mut self.shapes[i];
        sh.a = a as u32;
        sh.adv = (len - v) as u64 | u64::from(skipped) << 32;
    }

    /// Rebuilds every record for a consumer that wants `skip` (the slots
    /// keep their predictions).
    fn set_skip(&mut self, skip: Option<FetchSkip>) {
        if skip == self.skip {
            return;
        }
        self.skip = skip;
        let old = std::mem::take(&mut self.arena);
        self.arena_end = 0;
        for i in 0..self.shapes.len() {
            self.build_record(i, &old);
        }
    }

    /// Reads one definition at `p` of `defs`; returns the bytes it took.
    fn define(&mut self, defs: &[u8], p: usize) -> Result<usize, String> {
        let head = defs.get(p..p + 9).ok_or("definition runs past the definitions section")?;
        let mut start = [0u8; 8];
        start.copy_from_slice(&head[..8]);
        let start = u64::from_le_bytes(start);
        let n = usize::from(head[8]);
        if !(1..=MAX_ITEMS).contains(&n) {
            return Err(format!("shape of {n} items: expected 1..={MAX_ITEMS}"));
        }
        let items = defs.get(p + 9..p + 9 + n).ok_or("definition's items run past the definitions section")?;
        if self.tmpl.len() + n > MAX_TABLE_ITEMS {
            return Err(format!(
                "the table would hold more than {MAX_TABLE_ITEMS} items (a writer resets it at {ITEMS_RESET})"
            ));
        }
        if !is_fetch(items[0]) {
            return Err(format!("shape starts with op {}: expected an instruction fetch (op 0..=14)", items[0]));
        }
        if start > ADDR_MASK {
            return Err(format!("shape start {start:#x} is not below 2^56"));
        }
        let t = self.tmpl.len();
        let mut pc = start;
        let mut slots = 0;
        for &op in items {
            if usize::from(op) >= OPS.len() {
                return Err(format!("item op {op}: expected a direct op 0..=30"));
            }
            if is_fetch(op) {
                // (A failed block fails the reader: no need to undo.)
                if pc + op_size(op) - 1 > ADDR_MASK {
                    return Err(format!("shape starting at {start:#x} runs past 2^56"));
                }
                self.tmpl.push(u64::from(op) << ADDR_BITS | pc);
                pc += op_size(op);
            } else {
                self.tmpl.push(u64::from(op) << ADDR_BITS);
                slots += 1;
            }
        }
        self.tmpl_at.push(t as u32);
        // Fewer than `MAX_ITEMS` slots: the first item is a fetch.
        self.shapes.push(Shape { a: 0, slots: slots as u8, vs: (SLOT_WORDS * slots) as u8, adv: 0 });
        self.build_record(self.shapes.len() - 1, &[]);
        Ok(9 + n)
    }
}

/// The little-endian `u32` at the start of `b` (0 if `b` is shorter; every
/// caller has checked the bounds).
fn le32(b: &[u8]) -> u32 {
    b.first_chunk::<4>().map_or(0, |x| u32::from_le_bytes(*x))
}

/// Decodes one payload (`raw`: `raw_len` bytes then at least [`PAD`] zero
/// bytes) of `count` events into `out`, under `out.fetch_skip`.
pub(crate) fn decode(
    table: &mut ShapeTable,
    raw: &[u8],
    raw_len: usize,
    count: usize,
    out: &mut PackedBlock,
) -> Result<(), BlockError> {
    let fail = |record: usize, pos: usize, msg: String| BlockError { record, pos, msg };
    // Not `out.clear()`: the words are overwritten in place below, and
    // emptying them first would make growing them zero the whole buffer.
    out.extra.clear();
    out.skipped = 0;
    out.len = 0;
    out.no_fetch_words = false;
    if raw_len < HEADER_LEN || raw.len() < raw_len + PAD {
        return Err(fail(0, 0, format!("a {raw_len}-byte payload is shorter than its {HEADER_LEN}-byte header")));
    }
    let h = |i: usize| le32(&raw[4 * i..]) as usize;
    let (flags, n_defs, defs_len, n_ctl, n_dtags, raw_ev_len) = (h(0), h(1), h(2), h(3), h(4), h(5));
    if flags & !(RESET as usize) != 0 {
        return Err(fail(0, 0, format!("payload flags {flags:#x}: only bit 0 (reset) is defined")));
    }
    // Section bounds, each checked against the payload before use.
    let ctl_at = HEADER_LEN;
    let sections = [4 * n_ctl, defs_len, n_dtags, raw_ev_len];
    let mut at = ctl_at;
    let mut bounds = [0usize; 5];
    for (k, len) in sections.iter().enumerate() {
        bounds[k] = at;
        at = at.checked_add(*len).filter(|&e| e <= raw_len).ok_or_else(|| {
            fail(0, 0, format!("payload sections ({n_ctl} control entries, {defs_len} definition bytes, {n_dtags} data tags, {raw_ev_len} raw bytes) exceed its {raw_len} bytes"))
        })?;
    }
    bounds[4] = at;
    let [_, defs_at, dtags_at, raw_at, deltas_at] = bounds;
    let defs = &raw[defs_at..dtags_at];
    let dtags = &raw[dtags_at..raw_at];
    let raw_ev = &raw[raw_at..deltas_at];
    let deltas = &raw[deltas_at..raw_len + PAD];
    let deltas_len = raw_len - deltas_at;

    if flags & RESET as usize != 0 {
        table.clear();
    }
    table.set_skip(out.fetch_skip);
    // Under `FetchSkip::EVERY_FETCH` the views hold no fetch (`build_record`),
    // and a raw event's fetch word is dropped below.
    let every_fetch = out.fetch_skip.is_some_and(|s| FetchDropper::new(s).every);
    if table.shapes.len() + n_defs > MAX_SHAPES {
        return Err(fail(
            0,
            defs_at,
            format!("{n_defs} new shapes would make {} (at most {MAX_SHAPES})", table.shapes.len() + n_defs),
        ));
    }
    let mut p = 0;
    for d in 0..n_defs {
        p += table.define(defs, p).map_err(|m| fail(d, defs_at + p, format!("shape definition {d}: {m}")))?;
    }
    if p != defs_len {
        return Err(fail(
            n_defs,
            defs_at + p,
            format!("{} definition bytes left over after {n_defs} shapes", defs_len - p),
        ));
    }

    let ShapeTable { shapes, arena, .. } = table;
    let words = &mut out.words;
    // The words are overwritten in place and grown only as the block needs
    // them (see `grow`): zeroing the whole block's worth up front, when
    // `FetchSkip` leaves out half the fetches, cost 4-5 instructions a
    // reference (memset) in a whole run.
    // (`OUT_WIN - MAX_ITEMS` words past the slack: every execution's
    // window is `OUT_WIN` words, and so refused exactly where a window of
    // `MAX_ITEMS` words would be.)
    let cap = count + SLACK + (OUT_WIN - MAX_ITEMS);
    words.truncate(cap);
    // Every tag a length code (the usual case): the execution loop need not
    // check each one. Otherwise the checking loop finds the first bad one.
    let tags_checked = dtags.iter().fold(0u8, |m, &t| m | t) > 7;
    let mut skipped = 0u64;
    let (mut w, mut k, mut dp, mut rp) = (0usize, 0usize, 0usize, 0usize);
    let mut asid = 0u32;
    let ctl = &raw[ctl_at..ctl_at + 4 * n_ctl];
    let mut c = 0;
    while c < n_ctl {
        let mut run = Run { dst: &mut words[..], w, k, dp, skipped: 0 };
        let stop = if tags_checked {
            run.shapes::<true>(shapes, arena, &ctl[4 * c..], dtags, deltas)
        } else {
            run.shapes::<false>(shapes, arena, &ctl[4 * c..], dtags, deltas)
        };
        (w, k, dp) = (run.w, run.k, run.dp);
        skipped += run.skipped;
        let entry = |c: usize| ctl.get(4 * c..).map_or(0, le32);
        match stop {
            Stop::Done(done) => c += done,
            Stop::Bad(done, Why::Overrun) if w + OUT_WIN > words.len() && words.len() < cap => {
                // Short of room for the words, not past the block's events.
                c += done;
                grow(words, w, cap);
                continue;
            }
            Stop::Bad(done, why) => {
                c += done;
                let at = if matches!(why, Why::Slot) { dtags_at + k } else { ctl_at + 4 * c };
                return Err(fail(c, at, why_message(Stopped { why, id: entry(c), k, words: w }, shapes, dtags, count)));
            }
        }
        if c >= n_ctl {
            break;
        }
        let id = entry(c);
        if id == CTL_RAW {
            let (e, used) = raw_event(raw_ev, rp).map_err(|m| fail(c, raw_at + rp, m))?;
            rp += used;
            if w + 1 > count {
                return Err(fail(c, ctl_at + 4 * c, format!("a raw event runs past the block's {count} events")));
            }
            let word = place(&e, &mut asid).unwrap_or_else(|| {
                out.extra.push(e);
                u64::from(PACKED_ESCAPE) << ADDR_BITS
            });
            if every_fetch && is_fetch((word >> ADDR_BITS) as u8) {
                skipped += 1;
                c += 1;
                continue;
            }
            if w >= words.len() {
                grow(words, w, cap);
            }
            if let Some(x) = words.get_mut(w) {
                *x = word;
            }
            w += 1;
            c += 1;
        } else {
            return Err(fail(
                c,
                ctl_at + 4 * c,
                format!("control entry {id}: no such shape ({} defined)", shapes.len()),
            ));
        }
    }
    if dp > deltas_len {
        return Err(fail(
            n_ctl,
            raw_len,
            format!("the data deltas run {} bytes past the end of the payload", dp - deltas_len),
        ));
    }
    let leftovers = [(k, n_dtags, "data tags"), (rp, raw_ev_len, "raw event bytes"), (dp, deltas_len, "delta bytes")];
    for (used, have, what) in leftovers {
        if used != have {
            return Err(fail(n_ctl, 0, format!("{} {what} left over after the last control entry", have - used)));
        }
    }
    // Not cut to `w`: the next block overwrites these words in place, and
    // growing them again would zero them first (see `PackedBlock::words`).
    let events = w as u64 + skipped;
    if events != count as u64 {
        return Err(fail(n_ctl, 0, format!("the control entries give {events} events, the block header says {count}")));
    }
    out.len = w;
    out.skipped = skipped;
    out.no_fetch_words = every_fetch;
    Ok(())
}

/// The data tags' length codes unpacked, one column per field so that each
/// is one load at `[column + tag * size]`: no scaling or masking of the tag.
/// (A `const`: `Run::shapes` works on a copy on its stack; `bytes` is `u32`
/// to make that copy smaller.)
/// Codes above 7 (bad tags) read zeros; the loop that may meet them checks
/// them itself.
struct Lens {
    bytes: [u32; 256],
    mask: [u64; 256],
    bias: [u64; 256],
}

const LENS: Lens = {
    let mut t = Lens { bytes: [0; 256], mask: [0; 256], bias: [0; 256] };
    let mut i = 0;
    while i < 8 {
        t.bytes[i] = f::LEN_BYTES[i] as u32;
        t.mask[i] = f::LEN_MASK[i];
        t.bias[i] = f::LEN_BIAS[i];
        i += 1;
    }
    t
};

/// Delta bytes an execution may read: 8 for each of at most `MAX_ITEMS`
/// slots, plus the 8 the last load spans (`PAD` covers it past the payload).
const DELTA_WINDOW: usize = 8 * MAX_ITEMS + 8;
const _: () = assert!(DELTA_WINDOW <= PAD && (DELTA_WINDOW - 8).is_power_of_two());
const _: () = assert!(MAX_ITEMS.is_power_of_two() && MAX_ITEMS.is_multiple_of(CHUNK) && MAX_ITEMS == 8 * CHUNK);

/// Output words past the block's events: an execution is refused only once
/// it starts more than `SLACK - MAX_ITEMS` words past them (the event count
/// after the loop refuses any that end past them).
const SLACK: usize = MAX_ITEMS + 16;

/// Words grown at a time when a block needs more than the last one had.
/// Small: the words past the last block's are zeroed here and then written
/// again, and with 2048 that zeroing cost 0.25 instructions a reference
/// in a whole run (half that at 256; more calls cost far less).
const GROW: usize = 256;

/// Grows `words` (zeroing only what is new) for an execution at `w`.
#[cold]
fn grow(words: &mut Vec<u64>, w: usize, cap: usize) {
    let len = (words.len().max(w + OUT_WIN) + GROW).min(cap);
    words.resize(len, 0);
}

/// Words copied at a time: a shape's view is copied in whole chunks (the
/// tail of the last one is overwritten by the next execution or cut off).
const CHUNK: usize = 8;

/// Words of the arena an execution may read: its slots (at most
/// `SLOT_WORDS * (MAX_ITEMS - 1)`), then `MAX_ITEMS` words copied from its
/// view. Sized for what the compiler can see rather than what a record
/// takes: its view starts at `Shape::vs`, a `u8`, and is copied in chunks
/// counted by a `u8` length, so the copy ends within 255 + 256 words; and
/// it has room for 256 slots, so that a `u8` count of them needs no `min`
/// with the window's (that `min` and the spills around it cost 0.6
/// instructions a reference).
const ARENA_WIN: usize = SLOT_WORDS * 256 + MAX_ITEMS;
const _: () = assert!(ARENA_WIN >= 255 + OUT_WIN);
/// Zero words after the last record: every execution reads a whole window.
const ARENA_PAD: usize = ARENA_WIN;

/// Output words an execution's window spans: it writes at most `MAX_ITEMS`,
/// but a slot's word index is a `u8`, which then needs no mask to be in
/// bounds (the buffer has the extra words past its slack, see `decode`).
const OUT_WIN: usize = 256;

/// What went wrong with an execution.
#[derive(Clone, Copy)]
enum Why {
    /// It runs past the block's events (or the words so far), data tags or deltas.
    Overrun,
    /// A data tag above 7, or an address of 2^56 or more.
    Slot,
}

/// Where `Run::shapes` stopped, after how many control entries.
enum Stop {
    /// At the end of the control entries, or at one that is not a shape
    /// number.
    Done(usize),
    /// At a bad execution (nothing of it is in the words).
    Bad(usize, Why),
}

/// The decoding state `Run::shapes` carries: the output (cut to `w` at the
/// end) and the positions in it, the data tags and the deltas.
struct Run<'a> {
    dst: &'a mut [u64],
    w: usize,
    k: usize,
    dp: usize,
    skipped: u64,
}

impl Run<'_> {
    /// Executes the shape entries at the start of `ctl`: out of line, with
    /// plain indices into plain slices, so its few variables stay in
    /// registers. With `CHECK_TAGS` it also refuses a tag above 7 (the
    /// caller knows whether the block has one).
    #[inline(never)]
    fn shapes<const CHECK_TAGS: bool>(
        &mut self,
        shapes: &[Shape],
        arena: &mut [u64],
        ctl: &[u8],
        dtags: &[u8],
        deltas: &[u8],
    ) -> Stop {
        // 32-bit positions (a block's payload and words are far smaller),
        // so that a position plus a shape's count cannot overflow and the
        // compiler checks each window with one compare.
        let pos32 = |x: usize| u32::try_from(x).unwrap_or(u32::MAX);
        let (mut dp, mut k) = (pos32(self.dp), pos32(self.k));
        // The output position in the low half, the fetches left out in the
        // high half: one register for both, which the loop is short of, and
        // one add of the shape's `adv` for both. Neither half can carry into
        // the other: `dst` is cut below 2^31 words (an execution past it is
        // refused before it adds anything), and fewer than 2^32 fetches are
        // left out.
        let mut w_skipped = u64::from(pos32(self.w));
        let cut = self.dst.len().min(1 << 31);
        let dst = &mut self.dst[..cut];
        let entries = ctl.as_chunks::<4>().0;
        let mut next = entries.iter();
        // The length columns as a copy on this function's stack. Measured,
        // not derived (it is the register allocation that changes): with
        // the fixed-size copies below, `LENS` read in place left the slot
        // loop 22 instructions, not 18 (its address rebuilt in the loop),
        // and `black_box(&LENS)` gave decode alone 17.11 instructions a
        // reference against 16.97 with this copy. The copy costs ~1,200
        // instructions a call, ~0.2 a reference on cc1 (a call stops at
        // each raw event; taking those in here, to copy once a block, made
        // the loop's registers worse: 17.0 -> 19.3).
        let mut lens = LENS;
        let lens = std::hint::black_box(&mut lens);
        let stop = loop {
            let done = entries.len() - next.len();
            let Some(e) = next.next() else { break Stop::Done(done) };
            let id = u32::from_le_bytes(*e);
            let Some(s) = shapes.get(id as usize) else { break Stop::Done(done) };
            let (a, slots) = (s.a as usize, usize::from(s.slots));
            let (wu, ku, dpu) = (w_skipped as u32 as usize, k as usize, dp as usize);
            // Every bound this execution can reach, in four fixed-size
            // windows: the deltas are padded by `PAD` (8 bytes for each of
            // at most `MAX_ITEMS` slots), the arena by `ARENA_PAD` words, the
            // words by `OUT_WIN - MAX_ITEMS` past the slack. Offsets into the
            // windows are masked to their size or are bytes, which the
            // compiler sees are in bounds, so nothing below checks again.
            // (Each a range of known length: one compare, no overflow.)
            let Some(tags) = dtags.get(ku..ku + slots) else { break Stop::Bad(done, Why::Overrun) };
            let Some(win) = deltas.get(dpu..dpu + DELTA_WINDOW).and_then(|d| d.first_chunk::<DELTA_WINDOW>()) else {
                break Stop::Bad(done, Why::Overrun);
            };
            let Some(out) = dst.get_mut(wu..wu + OUT_WIN).and_then(|d| d.first_chunk_mut::<OUT_WIN>()) else {
                break Stop::Bad(done, Why::Overrun);
            };
            let Some(rec) = arena.get_mut(a..a + ARENA_WIN).and_then(|x| x.first_chunk_mut::<ARENA_WIN>()) else {
                break Stop::Bad(done, Why::Overrun);
            };
            // Whole chunks: most views under a `FetchSkip` take one, nine in
            // ten of all take one or two. A view takes fixed-size copies of
            // 8, 16, 32, 48 or `MAX_ITEMS` words in all (the words past the
            // view are overwritten by the next execution or cut off): one
            // variable-length copy had the compiler call `memcpy`,
            // ~45 instructions with the spills around it, for the 42 % of
            // executions of cc1 with more than 8 words when nothing is left
            // out. (The view starts within a byte of the record's start, and
            // the window has room for 255 + `OUT_WIN` words, so nothing here
            // is checked at run time.)
            let src = rec[usize::from(s.vs)..].first_chunk::<OUT_WIN>().unwrap_or(&[0; OUT_WIN]);
            out[..CHUNK].copy_from_slice(&src[..CHUNK]);
            let n = usize::from(s.adv as u8);
            if n > CHUNK {
                out[CHUNK..2 * CHUNK].copy_from_slice(&src[CHUNK..2 * CHUNK]);
                if n > 2 * CHUNK {
                    out[2 * CHUNK..4 * CHUNK].copy_from_slice(&src[2 * CHUNK..4 * CHUNK]);
                    if n > 4 * CHUNK {
                        out[4 * CHUNK..6 * CHUNK].copy_from_slice(&src[4 * CHUNK..6 * CHUNK]);
                        if n > 6 * CHUNK {
                            out[6 * CHUNK..MAX_ITEMS].copy_from_slice(&src[6 * CHUNK..MAX_ITEMS]);
                        }
                    }
                }
            }
            // Advanced before the slots, so that `adv` is not live (spilled)
            // across them; after a bad slot the caller reads only `k`.
            w_skipped += s.adv;
            let (mut bad, mut high, mut o) = (0u8, 0u64, 0usize);
            for (&t, sl) in tags.iter().zip(rec.as_chunks_mut::<SLOT_WORDS>().0) {
                let l = usize::from(t);
                let d = win[o..].first_chunk::<8>().map_or(0, |x| u64::from_le_bytes(*x));
                // At most 8 bytes for each of at most 63 slots: the mask
                // never changes `o`, and shows the load above is in bounds.
                o = (o + lens.bytes[l] as usize) & (DELTA_WINDOW - 9);
                let [pred, last, pos] = *sl;
                let addr = pred.wrapping_add(d & lens.mask[l]).wrapping_sub(lens.bias[l]);
                sl[0] = addr.wrapping_add(addr.wrapping_sub(last));
                sl[1] = addr;
                if CHECK_TAGS {
                    bad |= t;
                }
                high |= addr;
                out[usize::from(pos as u8)] |= addr;
            }
            // One compare for both: a tag above 7, an address of 2^56 or more.
            if high | u64::from(bad & !7) << ADDR_BITS > ADDR_MASK {
                break Stop::Bad(done, Why::Slot);
            }
            k += u32::from(s.slots);
            // At most 504 bytes an execution, within a payload of at most
            // `f::MAX_RAW_LEN` bytes: `dp` stays far below 2^32.
            dp += o as u32;
        };
        (self.dp, self.k) = (dp as usize, k as usize);
        (self.w, self.skipped) = (w_skipped as u32 as usize, w_skipped >> 32);
        stop
    }
}

/// Where a bad execution stopped: shape `id`, whose data tags start at
/// `k`, after `words` output words.
struct Stopped {
    why: Why,
    id: u32,
    k: usize,
    words: usize,
}

/// The message for a bad execution, in a block of `count` events.
#[cold]
fn why_message(stopped: Stopped, shapes: &[Shape], dtags: &[u8], count: usize) -> String {
    let Stopped { why, id, k, words } = stopped;
    let n_dtags = dtags.len();
    let Some(s) = shapes.get(id as usize) else { return format!("control entry {id}: no such shape") };
    let slots = usize::from(s.slots);
    match why {
        Why::Overrun if words + s.v_len() > count => {
            format!("shape {id} runs past the block's {count} events")
        }
        Why::Overrun if k + slots > n_dtags => {
            format!("shape {id} needs data tags up to {}, the block has {n_dtags}", k + slots)
        }
        Why::Overrun => format!("shape {id}'s data deltas run past the payload"),
        Why::Slot => match dtags.get(k..k + slots).and_then(|t| t.iter().find(|&&t| t > 7)) {
            Some(t) => format!("data tag {t:#04x}: expected a length code 0..=7"),
            None => format!("a data address of shape {id} is not below 2^56"),
        },
    }
}

fn leb(b: &[u8], mut p: usize) -> Result<(u32, usize), String> {
    let mut v = 0u32;
    for i in 0..5 {
        let x = *b.get(p).ok_or("raw event runs past the raw section (LEB128 number)")?;
        p += 1;
        if i == 4 && x > 0x0f {
            return Err("LEB128 number does not fit 32 bits".into());
        }
        v |= u32::from(x & 0x7f) << (7 * i);
        if x & 0x80 == 0 {
            return Ok((v, p));
        }
    }
    Err("LEB128 number longer than 5 bytes".into())
}

/// The raw event at `p`, and its length.
fn raw_event(b: &[u8], p: usize) -> Result<(Event, usize), String> {
    let kind = *b.get(p).ok_or("control entry wants a raw event, the raw section has no more")?;
    let e = match kind {
        0..=3 => {
            let (size, q) = leb(b, p + 1)?;
            let (asid, q) = leb(b, q)?;
            let a = b.get(q..q + 8).ok_or("raw access's address runs past the raw section")?;
            let mut a8 = [0u8; 8];
            a8.copy_from_slice(a);
            if size == 0 {
                return Err("raw access of size 0".into());
            }
            let kind = f::kind_from_bits(kind);
            let ev = Event::Access(Access { kind, size, addr: VirtAddr(u64::from_le_bytes(a8)), asid: Asid(asid) });
            return Ok((ev, q + 8 - p));
        }
        RAW_SWITCH => {
            let (asid, q) = leb(b, p + 1)?;
            return Ok((Event::ContextSwitch(Asid(asid)), q - p));
        }
        RAW_FLUSH => Event::FlushAll,
        RAW_SYSCALL => {
            let (asid, q) = leb(b, p + 1)?;
            let (number, q) = leb(b, q)?;
            let (s, q) =
                f::syscall_tail(b, b.len(), q, Asid(asid), number).map_err(|m| format!("raw system call: {m}"))?;
            return Ok((Event::Syscall(s), q - p));
        }
        RAW_SYSCALL_ARG => {
            let v = f::le_u64(b, b.len(), p + 1).ok_or("raw system-call argument runs past the raw section")?;
            return Ok((Event::SyscallArg(v), 9));
        }
        k => {
            return Err(format!(
                "raw event kind {k:#04x}: expected 0-3 (an access), 0x10 (context switch), 0x11 (flush), \
                 0x12 (system call) or 0x13 (system-call argument)"
            ))
        }
    };
    Ok((e, 1))
}

#[cfg(test)]
mod tests {
    //! Hand-built payloads decoded directly: exact words on small cases, and
    //! every check of the execution loop, at the entry and payload byte it
    //! reports, so a faster loop must fail in exactly the same places.
    use super::*;

    /// A payload from its sections (as the writer lays them out).
    fn payload(n_defs: u32, defs: &[u8], ctl: &[u32], dtags: &[u8], raw: &[u8], deltas: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        for v in [0, n_defs, defs.len() as u32, ctl.len() as u32, dtags.len() as u32, raw.len() as u32] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        ctl.iter().for_each(|c| out.extend_from_slice(&c.to_le_bytes()));
        [defs, dtags, raw, deltas].iter().for_each(|s| out.extend_from_slice(s));
        out
    }

    /// One definition: start address and item ops.
    fn def(start: u64, items: &[u8]) -> Vec<u8> {
        [&start.to_le_bytes()[..], &[items.len() as u8], items].concat()
    }

    type Outcome = Result<(Vec<u64>, u64), (usize, usize, String)>;

    /// Decodes `raw` (padded here) into `out` with `table`.
    fn decode_into(table: &mut ShapeTable, raw: &[u8], count: usize, out: &mut PackedBlock) -> Outcome {
        let mut padded = raw.to_vec();
        padded.resize(raw.len() + PAD, 0);
        match decode(table, &padded, raw.len(), count, out) {
            Ok(()) => Ok((out.words().to_vec(), out.skipped)),
            Err(e) => Err((e.record, e.pos, e.msg)),
        }
    }

    fn run(raw: &[u8], count: usize, skip: Option<FetchSkip>) -> Outcome {
        let mut out = PackedBlock { fetch_skip: skip, ..PackedBlock::default() };
        decode_into(&mut ShapeTable::default(), raw, count, &mut out)
    }

    const FETCH1: u8 = 0; // a 1-byte instruction fetch
    const FETCH4: u8 = 3; // a 4-byte instruction fetch
    const LOAD4: u8 = 17; // a 4-byte load
    const STORE8: u8 = 24; // an 8-byte store

    fn word(op: u8, addr: u64) -> u64 {
        u64::from(op) << ADDR_BITS | addr
    }

    /// Where the data tags start in `payload(1, defs, ctl, ..)`.
    fn dtags_at(defs: &[u8], n_ctl: usize) -> usize {
        HEADER_LEN + 4 * n_ctl + defs.len()
    }

    #[test]
    fn slots_predict_last_plus_stride() {
        // Shape 0: fetch 0x1000, load. Three runs: the load at 0x10 (1-byte
        // delta 0x10, biased 0x90), at 0x20 (no bytes: 0x10 + stride 0x10),
        // at 0x28 (2-byte delta -8 from the prediction 0x30: 0x7ff8).
        let d = def(0x1000, &[FETCH1, LOAD4]);
        let raw = payload(1, &d, &[0, 0, 0], &[1, 0, 2], &[], &[0x90, 0xf8, 0x7f]);
        let want = [(FETCH1, 0x1000), (LOAD4, 0x10), (FETCH1, 0x1000), (LOAD4, 0x20), (FETCH1, 0x1000), (LOAD4, 0x28)];
        let words = want.iter().map(|&(op, a)| word(op, a)).collect::<Vec<_>>();
        assert_eq!(run(&raw, 6, None), Ok((words, 0)));
    }

    #[test]
    fn several_slots_and_raw_events_interleave() {
        // Shape 0: fetch4 0x2000, load, store, fetch4 0x2004, load. Then a
        // raw flush, then shape 0 again with every slot predicted.
        let d = def(0x2000, &[FETCH4, LOAD4, STORE8, FETCH4, LOAD4]);
        let raw = payload(
            1,
            &d,
            &[0, CTL_RAW, 0],
            &[1, 1, 1, 0, 0, 0],
            &[RAW_FLUSH],
            &[0x80 + 0x40, 0x80 + 0x50, 0x80 + 0x60],
        );
        let mut want = vec![
            word(FETCH4, 0x2000),
            word(LOAD4, 0x40),
            word(STORE8, 0x50),
            word(FETCH4, 0x2004),
            word(LOAD4, 0x60),
            u64::from(PACKED_ESCAPE) << ADDR_BITS,
        ];
        want.extend([word(FETCH4, 0x2000), word(LOAD4, 0x80), word(STORE8, 0xa0), word(FETCH4, 0x2004)]);
        want.push(word(LOAD4, 0xc0));
        assert_eq!(run(&raw, 11, None), Ok((want, 0)));
    }

    #[test]
    fn fetch_skip_views_leave_out_fetches_in_the_same_line() {
        // Fetches at 0x3000, 0x3004 (same 16-byte line), a load, 0x3008
        // (same line, across data), 0x300c.
        let d = def(0x3000, &[FETCH4, FETCH4, LOAD4, FETCH4, FETCH4]);
        let raw = payload(1, &d, &[0, 0], &[1, 0], &[], &[0x80 + 0x10]);
        let skip = Some(FetchSkip { line_shift: 4, across_data: true });
        let once = [word(FETCH4, 0x3000), word(LOAD4, 0x10)];
        let twice = [once, [word(FETCH4, 0x3000), word(LOAD4, 0x20)]].concat();
        assert_eq!(run(&raw, 10, skip), Ok((twice, 6)));
        let skip = Some(FetchSkip { line_shift: 4, across_data: false });
        let once = [word(FETCH4, 0x3000), word(LOAD4, 0x10), word(FETCH4, 0x3008)];
        let want = [once, [word(FETCH4, 0x3000), word(LOAD4, 0x20), word(FETCH4, 0x3008)]].concat();
        assert_eq!(run(&raw, 10, skip), Ok((want, 4)));
    }

    #[test]
    fn a_long_shape_is_copied_whole() {
        // 40 one-byte fetches then a load; run twice.
        let mut items = vec![FETCH1; 40];
        items.push(LOAD4);
        let d = def(0x4000, &items);
        let raw = payload(1, &d, &[0, 0], &[1, 0], &[], &[0x80 + 8]);
        let mut want: Vec<u64> = (0..40).map(|i| word(FETCH1, 0x4000 + i)).collect();
        want.push(word(LOAD4, 8));
        let mut second = want.clone();
        second[40] = word(LOAD4, 16);
        want.extend(second);
        assert_eq!(run(&raw, 82, None), Ok((want, 0)));
    }

    #[test]
    fn a_raw_event_first_goes_into_an_empty_buffer() {
        // The output starts empty: the raw event's word is its first.
        let d = def(0x1000, &[FETCH1, LOAD4]);
        let raw = payload(1, &d, &[CTL_RAW, 0, CTL_RAW], &[1], &[RAW_FLUSH, RAW_FLUSH], &[0x90]);
        let esc = u64::from(PACKED_ESCAPE) << ADDR_BITS;
        assert_eq!(run(&raw, 4, None), Ok((vec![esc, word(FETCH1, 0x1000), word(LOAD4, 0x10), esc], 0)));
    }

    #[test]
    fn many_long_deltas_in_one_execution() {
        // 60 loads, each an 8-byte delta: 480 delta bytes in one execution.
        let mut items = vec![FETCH1];
        items.extend([LOAD4; 60]);
        let d = def(0x1000, &items);
        let addr = |i: u64| 0x10_0000 * (i + 1) + i;
        let deltas: Vec<u8> = (0..60).flat_map(|i| (addr(i) + (1 << 63)).to_le_bytes()).collect();
        let raw = payload(1, &d, &[0], &[7; 60], &[], &deltas);
        let want = [vec![word(FETCH1, 0x1000)], (0..60).map(|i| word(LOAD4, addr(i))).collect()].concat();
        assert_eq!(run(&raw, 61, None), Ok((want, 0)));
    }

    #[test]
    fn the_output_buffer_is_reused_whatever_it_held() {
        // A long block after a short one and a short one after a long one,
        // into the same buffer: every word is exactly what the block gives.
        let d = def(0x5000, &[FETCH1, LOAD4]);
        let mut table = ShapeTable::default();
        let mut out = PackedBlock::default();
        for n in [3usize, 5000, 7, 20000, 1] {
            let raw = payload(
                if table.shapes.is_empty() { 1 } else { 0 },
                if table.shapes.is_empty() { &d } else { &[] },
                &vec![0; n],
                &vec![0; n],
                &[],
                &[],
            );
            let got = decode_into(&mut table, &raw, 2 * n, &mut out).map(|(w, _)| w);
            // The load repeats its last address (0) with stride 0 throughout.
            let want = (0..n).flat_map(|_| [word(FETCH1, 0x5000), word(LOAD4, 0)]).collect::<Vec<_>>();
            assert_eq!(got, Ok(want), "block of {n} executions");
        }
    }

    #[test]
    fn an_execution_past_the_blocks_events_is_refused_where_it_starts() {
        // 20 fetches a run, a block of 1 event: the first run lands in the
        // slack, the second one is refused.
        let d = def(0x1000, &[FETCH1; 20]);
        let raw = payload(1, &d, &[0, 0], &[], &[], &[]);
        assert_eq!(run(&raw, 1, None), Err((1, HEADER_LEN + 4, "shape 0 runs past the block's 1 events".into())));
        // Short of the slack, the event count refuses it.
        let raw = payload(1, &d, &[0], &[], &[], &[]);
        assert_eq!(
            run(&raw, 19, None),
            Err((1, 0, "the control entries give 20 events, the block header says 19".into()))
        );
    }

    #[test]
    fn the_slack_past_the_blocks_events_ends_exactly() {
        // One-fetch runs into a block of 1 event: a run is refused once it
        // starts more than `SLACK - MAX_ITEMS` words past the block's events
        // (the output window is wider than `MAX_ITEMS`, and must refuse in
        // exactly the same place).
        let d = def(0x1000, &[FETCH1]);
        let last_in = SLACK - MAX_ITEMS + 1;
        let raw = payload(1, &d, &vec![0; last_in + 1], &[], &[], &[]);
        let want =
            (last_in + 1, 0, format!("the control entries give {} events, the block header says 1", last_in + 1));
        assert_eq!(run(&raw, 1, None), Err(want));
        let raw = payload(1, &d, &vec![0; last_in + 2], &[], &[], &[]);
        let at = HEADER_LEN + 4 * (last_in + 1);
        assert_eq!(run(&raw, 1, None), Err((last_in + 1, at, "shape 0 runs past the block's 1 events".into())));
    }

    #[test]
    fn an_execution_past_the_data_tags_is_refused() {
        let d = def(0x1000, &[FETCH1, LOAD4]);
        let raw = payload(1, &d, &[0, 0], &[0], &[], &[]);
        let want = (1, HEADER_LEN + 4, "shape 0 needs data tags up to 2, the block has 1".to_string());
        assert_eq!(run(&raw, 4, None), Err(want));
    }

    #[test]
    fn deltas_past_the_payload_are_refused() {
        let d = def(0x1000, &[FETCH1, LOAD4]);
        // The first run's load at 0x1000 (2 bytes: 0x9000 biased); the
        // second's 1-byte delta lies in the padding (0: -128 from the
        // prediction 0x2000): caught after the loop.
        let raw = payload(1, &d, &[0, 0], &[2, 1], &[], &[0x00, 0x90]);
        let want = (2, raw.len(), "the data deltas run 1 bytes past the end of the payload".to_string());
        assert_eq!(run(&raw, 4, None), Err(want));
        // A third run starts past them: refused where it starts.
        let raw = payload(1, &d, &[0, 0, 0], &[2, 1, 0], &[], &[0x00, 0x90]);
        let want = (2, HEADER_LEN + 8, "shape 0's data deltas run past the payload".to_string());
        assert_eq!(run(&raw, 6, None), Err(want));
    }

    #[test]
    fn a_data_address_of_2_pow_56_is_refused() {
        let d = def(0x1000, &[FETCH1, LOAD4, LOAD4]);
        // 2^56 as an 8-byte delta, biased by 2^63; the second run's first slot.
        let big = ((1u64 << 56) + (1 << 63)).to_le_bytes();
        let raw = payload(1, &d, &[0, 0], &[0, 0, 7, 0], &[], &big);
        let at = dtags_at(&d, 2) + 2;
        assert_eq!(run(&raw, 6, None), Err((1, at, "a data address of shape 0 is not below 2^56".into())));
        // Just below is fine.
        let below = ((1u64 << 56) - 1 + (1 << 63)).to_le_bytes();
        let raw = payload(1, &d, &[0, 0], &[0, 0, 7, 0], &[], &below);
        let m = ADDR_MASK;
        // The second slot predicts 0 + stride 0.
        let want = [word(FETCH1, 0x1000), word(LOAD4, 0), word(LOAD4, 0), word(FETCH1, 0x1000), word(LOAD4, m)];
        assert_eq!(run(&raw, 6, None), Ok(([&want[..], &[word(LOAD4, 0)]].concat(), 0)));
    }

    #[test]
    fn a_bad_tag_is_refused_at_its_execution() {
        let d = def(0x1000, &[FETCH1, LOAD4, LOAD4]);
        let raw = payload(1, &d, &[0, 0], &[0, 0, 0, 8], &[], &[]);
        let at = dtags_at(&d, 2) + 2;
        assert_eq!(run(&raw, 6, None), Err((1, at, "data tag 0x08: expected a length code 0..=7".into())));
        // A bad tag after a refused execution is not the one reported.
        let raw = payload(1, &d, &[0, 0, 5], &[0, 0, 0, 0, 9, 9], &[], &[]);
        assert_eq!(run(&raw, 9, None), Err((2, HEADER_LEN + 8, "control entry 5: no such shape (1 defined)".into())));
    }
}
