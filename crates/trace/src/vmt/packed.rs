//! Packed blocks: the compact form the engine's fast loop reads. One `u64`
//! word per event instead of a 24-byte `Event`: the top byte is an op, the
//! low 56 bits the address. Ops 0..=30 are the common accesses, named by the
//! same table as `.vmt`'s direct ops ([`OPS`]); anything else (markers,
//! other sizes, address-space changes, addresses of 2^56 and above) is the
//! op [`PACKED_ESCAPE`], and the event itself waits, in order, in `extra`.
//!
//! The address space of a direct word is that of the latest event in `extra`
//! before it in the same block that names one (an access's asid, or a
//! context switch's), or 0 if there is none. Every block starts at asid 0, as
//! a `.vmt` block does, so a `.vmt` block decodes to words without a detour.

use crate::{Access, AccessKind, Event};
use vmlab_addr::{Asid, VirtAddr};

/// The op of a word whose event is the next one of [`PackedBlock::extra`].
pub const PACKED_ESCAPE: u8 = 0xff;
/// Address bits of a word.
pub const ADDR_BITS: u32 = 56;
pub const ADDR_MASK: u64 = (1 << ADDR_BITS) - 1;

/// Kind and size of each direct op 0..=30.
pub use super::format::DIRECT as OPS;

/// A consumer's leave to drop instruction fetches that cannot change any
/// cache state, so that it never sees them. With `line_shift` the log2 of
/// the line size of the cache that serves fetches, a source may drop an
/// instruction-fetch word when:
///
/// * the fetch lies within one line, and that line is the last line touched
///   by an earlier fetch word of the same block (no escape word between);
/// * and, unless `across_data`, no data word lies between the two.
///
/// Such a fetch is a hit on the most recent line of its set, which changes
/// nothing but an access counter, so the consumer only counts it
/// ([`PackedBlock::skipped`]). `across_data` is for a split top level,
/// where data references cannot evict an instruction line. A source may
/// drop fewer fetches than allowed (the `.vmt` v2 decoder drops only those
/// inside one basic-block record); it never drops more.
///
/// One rule is not about lines: [`FetchSkip::EVERY_FETCH`], for a consumer
/// that simulates no fetch at all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FetchSkip {
    pub line_shift: u32,
    pub across_data: bool,
}

impl FetchSkip {
    /// The largest line shift accepted: an address has 56 bits.
    pub const MAX_SHIFT: u32 = 40;

    /// The line shift of [`FetchSkip::EVERY_FETCH`], past every address
    /// bit (one at or above it is that rule; one between `MAX_SHIFT` and
    /// it means `MAX_SHIFT`).
    pub const EVERY_SHIFT: u32 = 64;

    /// Every fetch may go, the first of each run too: the leave of a
    /// consumer that simulates no fetch and only counts them (a data-only
    /// machine). Every other rule is `within` it. A source that packs
    /// under it and drops every fetch word says so
    /// ([`PackedBlock::holds_no_fetch`]), so that the consumer need not
    /// look for them.
    pub const EVERY_FETCH: FetchSkip = FetchSkip { line_shift: Self::EVERY_SHIFT, across_data: true };

    /// Whether every fetch this rule drops, `wider` drops too: its lines
    /// lie within `wider`'s (aligned powers of two, no longer), and it
    /// steps over data words only if `wider` does.
    pub fn within(self, wider: FetchSkip) -> bool {
        self.line_shift <= wider.line_shift && (wider.across_data || !self.across_data)
    }
}

/// The rule applied along a block's words, one at a time: which fetches go.
/// The one implementation of `FetchSkip`, for `PackedBlock::pack` and the
/// basic-block decoder's shape views.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FetchDropper {
    shift: u32,
    across_data: bool,
    /// `FetchSkip::EVERY_FETCH`: every fetch goes.
    pub(crate) every: bool,
    /// The last line of the latest fetch word, while a fetch within it may
    /// be dropped.
    line: Option<u64>,
}

impl FetchDropper {
    pub(crate) fn new(skip: FetchSkip) -> Self {
        Self {
            shift: skip.line_shift.min(FetchSkip::MAX_SHIFT),
            across_data: skip.across_data,
            every: skip.line_shift >= FetchSkip::EVERY_SHIFT,
            line: None,
        }
    }

    /// A fetch of `size` bytes at `addr`: true if it goes (no word).
    #[inline(always)]
    pub(crate) fn fetch(&mut self, addr: u64, size: u64) -> bool {
        if self.every {
            return true;
        }
        let (first, last) = (addr >> self.shift, (addr + size - 1) >> self.shift);
        if first == last && self.line == Some(first) {
            return true;
        }
        self.line = Some(last);
        false
    }

    /// A data word was kept.
    #[inline(always)]
    pub(crate) fn data(&mut self) {
        if !self.across_data {
            self.line = None;
        }
    }

    /// An escape word was kept.
    #[inline(always)]
    pub(crate) fn escape(&mut self) {
        self.line = None;
    }
}

/// Where an event goes in a packed block whose current address space is
/// `asid`: its direct word, or `None` for an escape (the event then waits in
/// `extra`, and `asid` becomes the one it names, if any). The one statement
/// of the packing rule, for `pack`, the `.vmt` encoders and decoders.
#[inline]
pub(crate) fn place(e: &Event, asid: &mut u32) -> Option<u64> {
    if let Event::Access(a) = *e {
        if a.asid.0 == *asid && a.addr.0 <= ADDR_MASK {
            if let Some(op) = super::format::direct_op(a.kind, a.size) {
                return Some(u64::from(op) << ADDR_BITS | a.addr.0);
            }
        }
    }
    *asid = asid_after(e, Asid(*asid)).0;
    None
}

/// The current address space after an escaped event.
#[inline]
pub fn asid_after(e: &Event, asid: Asid) -> Asid {
    match *e {
        Event::Access(a) => a.asid,
        Event::ContextSwitch(a) => a,
        Event::FlushAll | Event::Syscall(_) | Event::SyscallArg(_) => asid,
    }
}

/// A block of events in packed form.
#[derive(Clone, Debug, Default)]
pub struct PackedBlock {
    /// One per event, in trace order: `op << 56 | addr`, in the first `len`;
    /// after them whatever an earlier block left. The `.vmt` v2 decoder
    /// writes its executions' words in place and would otherwise cut this
    /// buffer to each block's words and grow it again (zeroing the new
    /// words) in the next: 574 times in 77 blocks of cc1, 1.3 % of the
    /// decoder.
    pub(crate) words: Vec<u64>,
    /// How many of `words` are this block's.
    pub(crate) len: usize,
    /// The events of the escape words, in order.
    pub extra: Vec<Event>,
    /// Set by the consumer before a fill: which fetches the source may
    /// drop. `None` (the default): every event has its word.
    pub fetch_skip: Option<FetchSkip>,
    /// Instruction fetches dropped under `fetch_skip` (they have no word).
    pub skipped: u64,
    /// Scratch for sources that only produce `Event`s.
    pub(crate) scratch: Vec<Event>,
    /// Set by a source that packed under `FetchSkip::EVERY_FETCH` and
    /// dropped every fetch word (see `holds_no_fetch`); false when unknown.
    pub(crate) no_fetch_words: bool,
}

/// Equal when they hold the same events: the words past `len`, the
/// scratch and whether the source vouched for the absence of fetch words
/// are not part of the block.
impl PartialEq for PackedBlock {
    fn eq(&self, other: &Self) -> bool {
        (self.words(), &self.extra, self.fetch_skip, self.skipped)
            == (other.words(), &other.extra, other.fetch_skip, other.skipped)
    }
}

impl Eq for PackedBlock {}

impl PackedBlock {
    pub fn new() -> Self {
        Self::default()
    }

    /// One word per event with a word, in trace order: `op << 56 | addr`.
    #[inline]
    pub fn words(&self) -> &[u64] {
        self.words.get(..self.len).unwrap_or(&[])
    }

    /// An empty block whose source may drop the fetches `fetch_skip` allows.
    pub fn with_fetch_skip(fetch_skip: Option<FetchSkip>) -> Self {
        Self { fetch_skip, ..Self::default() }
    }

    /// Hands `events` to `feed` as the `.vmt` reader would decode them:
    /// packed, `BLOCK` at a time, under this block's `fetch_skip` (this
    /// block is the buffer), each with the number of its first event
    /// (`first` numbers the first). Stops at the first `Err`. The one
    /// wrapper by which a consumer of packed blocks takes a slice of events.
    pub fn feed_events<E>(
        &mut self,
        events: &[Event],
        first: u64,
        mut feed: impl FnMut(&PackedBlock, u64) -> Result<(), E>,
    ) -> Result<(), E> {
        for (n, chunk) in events.chunks(crate::BLOCK).enumerate() {
            self.pack(chunk);
            feed(self, first + (n * crate::BLOCK) as u64)?;
        }
        Ok(())
    }

    /// Empties the block; `fetch_skip` stays.
    pub fn clear(&mut self) {
        // The words stay, to be written over (see `words`).
        self.len = 0;
        self.extra.clear();
        self.skipped = 0;
        self.no_fetch_words = false;
    }

    /// Whether its source dropped every instruction-fetch word (it packed
    /// under `FetchSkip::EVERY_FETCH`, and each fetch is in `skipped` or,
    /// as an escape word's event, in `extra`): a consumer that simulates
    /// no fetch may then take the words as they are. False when the source
    /// does not say (it may have kept some: the `.vmt` v1 decoder drops
    /// none).
    #[inline]
    pub fn holds_no_fetch(&self) -> bool {
        self.no_fetch_words
    }

    /// Makes the block's words those of `src` that `keep` accepts, in order
    /// (the rest of the block stays). Each word is written and the count
    /// advanced by `keep`'s answer, so the loop has no branch on it.
    pub fn set_words_kept(&mut self, src: &[u64], keep: impl Fn(u64) -> bool) {
        self.no_fetch_words = false;
        if self.words.len() < src.len() {
            self.words.resize(src.len(), 0);
        }
        let mut n = 0;
        for &w in src {
            // `n` never passes the word's own index: always in bounds.
            if let Some(x) = self.words.get_mut(n) {
                *x = w;
            }
            n += usize::from(keep(w));
        }
        self.len = n;
    }

    /// Words (events with a word).
    pub fn len(&self) -> usize {
        self.len
    }

    /// Events the block stands for: its words and the dropped fetches.
    pub fn events(&self) -> u64 {
        self.len as u64 + self.skipped
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Packs `events` (replacing the contents), dropping every fetch that
    /// `fetch_skip` allows.
    pub fn pack(&mut self, events: &[Event]) {
        self.clear();
        self.words.clear();
        let mut asid = 0u32;
        let mut drop = self.fetch_skip.map(FetchDropper::new);
        for e in events {
            let Some(word) = place(e, &mut asid) else {
                if let Some(d) = &mut drop {
                    d.escape();
                }
                self.words.push(u64::from(PACKED_ESCAPE) << ADDR_BITS);
                self.extra.push(*e);
                continue;
            };
            if let (Some(d), Event::Access(a)) = (&mut drop, e) {
                if a.kind != AccessKind::Ifetch {
                    d.data();
                } else if d.fetch(a.addr.0, u64::from(a.size)) {
                    self.skipped += 1;
                    continue;
                }
            }
            self.words.push(word);
        }
        self.len = self.words.len();
        self.no_fetch_words = drop.is_some_and(|d| d.every);
    }

    /// The events back, appended to `out` (dropped fetches are not).
    pub fn unpack(&self, out: &mut Vec<Event>) {
        let mut extra = self.extra.iter();
        let mut asid = Asid(0);
        for &w in self.words() {
            let op = (w >> ADDR_BITS) as u8;
            if op == PACKED_ESCAPE {
                let Some(&e) = extra.next() else { return };
                asid = asid_after(&e, asid);
                out.push(e);
            } else if let Some(&(kind, size)) = OPS.get(usize::from(op)) {
                out.push(Event::Access(Access { kind, size, addr: VirtAddr(w & ADDR_MASK), asid }));
            }
        }
    }

    /// Fills from a source that only produces events.
    pub(crate) fn fill_from(
        &mut self,
        src: &mut (impl crate::EventSource + ?Sized),
    ) -> Result<bool, crate::TraceError> {
        let mut scratch = std::mem::take(&mut self.scratch);
        let r = src.fill(&mut scratch);
        if let Ok(true) = r {
            self.pack(&scratch);
        } else {
            self.clear();
        }
        self.scratch = scratch;
        r
    }
}

/// Kind and size of a direct op.
#[inline(always)]
pub fn op_kind(op: u8) -> Option<(AccessKind, u32)> {
    OPS.get(usize::from(op)).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 16-byte lines. Fetches at 0x100 (4 bytes), 0x104 (4: same line,
    /// dropped), a load, 0x108 (4: dropped across data only), 0x10c (8:
    /// crosses into 0x110, kept), 0x114 (2: within 0x110, the crossing
    /// fetch's last line, dropped), a flush, 0x116 (2: after an escape, kept).
    fn trace() -> Vec<Event> {
        use AccessKind::{Ifetch as I, Load as L};
        vec![
            Event::access(I, VirtAddr(0x100), 4, Asid(0)),
            Event::access(I, VirtAddr(0x104), 4, Asid(0)),
            Event::access(L, VirtAddr(0x9000), 8, Asid(0)),
            Event::access(I, VirtAddr(0x108), 4, Asid(0)),
            Event::access(I, VirtAddr(0x10c), 8, Asid(0)),
            Event::access(I, VirtAddr(0x114), 2, Asid(0)),
            Event::FlushAll,
            Event::access(I, VirtAddr(0x116), 2, Asid(0)),
        ]
    }

    fn pack_with(skip: Option<FetchSkip>) -> PackedBlock {
        let mut p = PackedBlock { fetch_skip: skip, ..PackedBlock::default() };
        p.pack(&trace());
        p
    }

    fn addrs(p: &PackedBlock) -> Vec<u64> {
        p.words().iter().map(|w| w & ADDR_MASK).collect()
    }

    #[test]
    fn no_skip_keeps_every_fetch() {
        let p = pack_with(None);
        assert_eq!(p.skipped, 0);
        assert_eq!(p.events(), 8);
        let mut back = Vec::new();
        p.unpack(&mut back);
        assert_eq!(back, trace());
    }

    #[test]
    fn across_data_drops_three() {
        let p = pack_with(Some(FetchSkip { line_shift: 4, across_data: true }));
        assert_eq!(addrs(&p), vec![0x100, 0x9000, 0x10c, 0, 0x116]);
        assert_eq!(p.skipped, 3);
        assert_eq!(p.events(), 8);
    }

    #[test]
    fn data_between_stops_a_drop() {
        let p = pack_with(Some(FetchSkip { line_shift: 4, across_data: false }));
        assert_eq!(addrs(&p), vec![0x100, 0x9000, 0x108, 0x10c, 0, 0x116]);
        assert_eq!(p.skipped, 2);
    }

    #[test]
    fn words_past_the_length_are_not_the_blocks() {
        // A long block, then fewer words kept into the same buffer: only
        // those are its words, and it equals a block that never held more.
        let mut p = pack_with(None);
        let long = p.words().to_vec();
        assert_eq!(long.len(), 8);
        p.set_words_kept(&long, |w| w & ADDR_MASK >= 0x108);
        assert_eq!(addrs(&p), vec![0x9000, 0x108, 0x10c, 0x114, 0x116]);
        let mut fresh = PackedBlock::new();
        fresh.set_words_kept(&long, |w| w & ADDR_MASK >= 0x108);
        fresh.extra = p.extra.clone();
        assert_eq!(p, fresh);
        p.clear();
        assert!(p.is_empty() && p.words().is_empty() && p.events() == 0);
        p.pack(&trace()[..2]);
        assert_eq!(addrs(&p), vec![0x100, 0x104]);
    }

    #[test]
    fn longer_lines_drop_more() {
        // 256-byte lines: everything up to the flush is one line.
        let p = pack_with(Some(FetchSkip { line_shift: 8, across_data: true }));
        assert_eq!(addrs(&p), vec![0x100, 0x9000, 0, 0x116]);
        assert_eq!(p.skipped, 4);
    }
}
