//! What leaves a hierarchy's last level for memory, one record per
//! transfer, each tagged with what caused it: the fill of a line, the
//! write-back of a dirty victim (or of a flushed line), or a write a
//! write-through level passed on.
//!
//! `MemoryStats` counts these transfers; a `TransferLog` keeps them, in
//! order, for whoever must act on each one. A scheme that translates at
//! memory (SOFTVM, SPUR: Jacob & Mudge 1998) translates every fill and,
//! if configured, every write-back, so it reads the transfers an access
//! caused from the log (`TransferLog::mark`, `TransferLog::since`).
//! The cause is kept because a write-back and a write-through move
//! different things (a whole dirty line against the bytes one store
//! wrote), which a model of write buffers or a memory-side translation
//! that treats them apart needs to tell.

use vmlab_addr::{Asid, VirtAddr};

/// Why a transfer left the last level.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Cause {
    /// A miss's read of a whole line from memory.
    Fill,
    /// A dirty line written back whole: a victim, or a line flushed.
    WriteBack,
    /// A write a write-through level passed on: the store's own bytes.
    WriteThrough,
}

impl Cause {
    /// Whether the transfer writes memory.
    #[inline]
    pub fn is_write(self) -> bool {
        self != Cause::Fill
    }
}

/// One transfer to or from memory: its cause and the virtual address of
/// the line (of the write, for a write-through) in its address space.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Transfer {
    pub cause: Cause,
    pub vaddr: VirtAddr,
    pub space: Asid,
}

/// The transfers to and from memory of lines below `unmapped` (the lines
/// of mapped address spaces: unmapped memory needs no translation), in
/// the order they happened. With no bound, nothing is kept: a machine
/// whose transfers nobody reads pays one test per transfer.
#[derive(Clone, Debug, Default)]
pub struct TransferLog {
    unmapped: Option<VirtAddr>,
    kept: Vec<Transfer>,
}

impl TransferLog {
    /// A log of the transfers of lines below `unmapped`, or of none.
    pub fn new(unmapped: Option<VirtAddr>) -> Self {
        Self { unmapped, kept: Vec::new() }
    }

    /// Records a transfer, if its line is mapped and the log keeps any.
    #[inline]
    pub fn note(&mut self, cause: Cause, vaddr: VirtAddr, space: Asid) {
        if self.unmapped.is_some_and(|base| vaddr < base) {
            self.kept.push(Transfer { cause, vaddr, space });
        }
    }

    /// A position in the log: what is recorded after it is `since(mark)`.
    #[inline]
    pub fn mark(&self) -> usize {
        self.kept.len()
    }

    /// Whether anything was recorded after `mark`.
    #[inline]
    pub fn grew_since(&self, mark: usize) -> bool {
        self.kept.len() != mark
    }

    /// Removes and yields, oldest first, what was recorded after `mark`.
    pub fn since(&mut self, mark: usize) -> std::vec::Drain<'_, Transfer> {
        self.kept.drain(mark.min(self.kept.len())..)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_mapped_transfers_in_order_with_their_cause() {
        let mut log = TransferLog::new(Some(VirtAddr(0x1000)));
        log.note(Cause::Fill, VirtAddr(0x40), Asid(3));
        let mark = log.mark();
        log.note(Cause::WriteBack, VirtAddr(0x80), Asid(3));
        log.note(Cause::Fill, VirtAddr(0x1000), Asid(0)); // unmapped: not kept
        log.note(Cause::WriteThrough, VirtAddr(0xfff), Asid(4));
        assert!(log.grew_since(mark));
        let after: Vec<Transfer> = log.since(mark).collect();
        assert_eq!(
            after,
            [
                Transfer { cause: Cause::WriteBack, vaddr: VirtAddr(0x80), space: Asid(3) },
                Transfer { cause: Cause::WriteThrough, vaddr: VirtAddr(0xfff), space: Asid(4) },
            ]
        );
        assert_eq!(log.mark(), 1);
        assert!(!log.grew_since(1));
        assert!(Cause::WriteBack.is_write() && Cause::WriteThrough.is_write() && !Cause::Fill.is_write());
    }

    #[test]
    fn keeps_nothing_without_a_bound() {
        let mut log = TransferLog::new(None);
        log.note(Cause::Fill, VirtAddr(0), Asid(0));
        assert_eq!(log.mark(), 0);
    }
}
