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

/// A block of events in packed form.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PackedBlock {
    /// One per event, in trace order: `op << 56 | addr`.
    pub words: Vec<u64>,
    /// The events of the escape words, in order.
    pub extra: Vec<Event>,
    /// Scratch for sources that only produce `Event`s.
    pub(crate) scratch: Vec<Event>,
}

impl PackedBlock {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn clear(&mut self) {
        self.words.clear();
        self.extra.clear();
    }

    pub fn len(&self) -> usize {
        self.words.len()
    }

    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// Packs `events` (replacing the contents).
    pub fn pack(&mut self, events: &[Event]) {
        self.clear();
        let mut asid = 0u32;
        for e in events {
            if let Event::Access(a) = e {
                if a.asid.0 == asid && a.addr.0 <= ADDR_MASK {
                    if let Some(op) = super::format::direct_op(a.kind, a.size) {
                        self.words.push(u64::from(op) << ADDR_BITS | a.addr.0);
                        continue;
                    }
                }
            }
            self.push_extra(*e, &mut asid);
        }
    }

    fn push_extra(&mut self, e: Event, asid: &mut u32) {
        match e {
            Event::Access(a) => *asid = a.asid.0,
            Event::ContextSwitch(a) => *asid = a.0,
            Event::FlushAll => {}
        }
        self.words.push(u64::from(PACKED_ESCAPE) << ADDR_BITS);
        self.extra.push(e);
    }

    /// The events back, appended to `out`.
    pub fn unpack(&self, out: &mut Vec<Event>) {
        let mut extra = self.extra.iter();
        let mut asid = 0u32;
        for &w in &self.words {
            let op = (w >> ADDR_BITS) as u8;
            if op == PACKED_ESCAPE {
                let Some(&e) = extra.next() else { return };
                match e {
                    Event::Access(a) => asid = a.asid.0,
                    Event::ContextSwitch(a) => asid = a.0,
                    Event::FlushAll => {}
                }
                out.push(e);
            } else if let Some(&(kind, size)) = OPS.get(usize::from(op)) {
                out.push(Event::Access(Access { kind, size, addr: VirtAddr(w & ADDR_MASK), asid: Asid(asid) }));
            }
        }
    }

    /// Fills from a source that only produces events.
    pub(crate) fn fill_from(&mut self, src: &mut (impl crate::EventSource + ?Sized)) -> Result<bool, crate::TraceError> {
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
