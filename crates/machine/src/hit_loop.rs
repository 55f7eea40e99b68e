//! The run loop's fast path: top-level hits completed in place, without the
//! general path's per-reference dispatch (`Cache::lookup`, the hierarchy's
//! tier match, `Result` plumbing). A run of words is consumed here until one
//! needs more than a top-level hit (a miss, an escape, a reference over more
//! than two lines, a modify that crosses a line); the machine then applies
//! that one through the general path and comes back.
//!
//! Exactness rests on two facts: `Cache::probe` changes exactly what
//! `lookup` changes on a hit except the access counter, which is added in
//! bulk (`pending`); and a word is either completed here or left wholly
//! untouched for the general path (a crossing reference is probed on both
//! lines before either is changed). The property test
//! `inline_loops_equal_naive_reference` runs machines that select each loop.

use vmlab_addr::{Asid, VirtAddr};
use vmlab_cache::{Cache, HitCheck, VirtualDirect};
use vmlab_trace::vmt::packed::{ADDR_BITS, ADDR_MASK};

use crate::machine::{OpInfo, RepeatLine};
use crate::mapper::PageMapper;

/// How `Machine::feed_packed` checks hits in the top-level caches, chosen
/// once from their configuration.
#[derive(Clone, Copy, Debug)]
pub(crate) enum HitLoop {
    /// Everything through `Cache::lookup` (hashed index, write-through, 3C
    /// shadows, or top caches of different shapes).
    General,
    /// Direct-mapped top caches: every hit is checked in place (as cheap as
    /// the repeat-line test, so there is none). The checks of slot 0
    /// (instruction or unified cache) and slot 1 (data cache).
    Direct([HitCheck; 2]),
    /// Set-associative top caches: the repeat line first (no replacement
    /// update), then the check in place.
    Assoc([HitCheck; 2]),
    /// Direct-mapped top caches, virtually indexed and tagged with ASIDs
    /// (the jm-base shape): `virtual_direct_hits`, the leanest loop.
    VirtualDirect([HitCheck; 2]),
}

/// What the fast path borrows from the machine for one run of words.
pub(crate) struct Borrowed<'a> {
    /// The instruction (or unified) cache and, for a split top, the data cache.
    pub top: (&'a mut Cache, Option<&'a mut Cache>),
    pub mapper: &'a mut PageMapper,
    pub counts: &'a mut [u64; 4],
    pub pending: &'a mut [u64; 4],
    pub repeat: &'a mut [RepeatLine; 2],
}

/// Events a fast loop completed, by access kind, and how many of them
/// crossed into a second line (a second cache access); added to the
/// machine's counters once per run.
#[derive(Default)]
struct Tally {
    done: [u64; 4],
    second_lines: [u64; 4],
}

impl Tally {
    fn settle(self, counts: &mut [u64; 4], pending: &mut [u64; 4]) {
        for k in 0..4 {
            counts[k] += self.done[k];
            pending[k] += self.done[k] + self.second_lines[k];
        }
    }
}

/// One packed word as the fast loops read it, or `None` for an escape.
struct Word {
    /// `AccessKind` index.
    k: usize,
    va: u64,
    /// The top-level line shift of the cache serving it.
    shift: u32,
    /// Its first line and last byte.
    ln: u64,
    last: u64,
    /// Repeat slot: 0 instruction (or unified) cache, 1 data cache.
    slot: usize,
}

impl Word {
    #[inline(always)]
    fn decode(ops: &[OpInfo; 256], w: u64) -> Option<Self> {
        let info = ops[(w >> ADDR_BITS) as u8 as usize];
        if info.escape {
            return None;
        }
        let va = w & ADDR_MASK;
        let shift = u32::from(info.shift);
        Some(Self {
            k: usize::from(info.k & 3),
            va,
            shift,
            ln: va >> shift,
            last: va + u64::from(info.span),
            slot: usize::from(info.slot & 1),
        })
    }
}

const STORE: usize = vmlab_trace::AccessKind::Store as usize;
const MODIFY: usize = vmlab_trace::AccessKind::Modify as usize;

/// Completes words from `i` on while each is a top-level hit; returns the
/// index of the first word it left untouched (or `words.len()`).
/// `TRANSLATE`: some top cache needs the physical address to find a hit.
#[inline(never)]
pub(crate) fn hits<const DIRECT: bool, const TRANSLATE: bool>(
    b: Borrowed<'_>,
    ops: &[OpInfo; 256],
    words: &[u64],
    mut i: usize,
    asid: Asid,
    checks: [HitCheck; 2],
) -> usize {
    let Borrowed { top: (ic, mut dc), mapper, counts, pending, repeat } = b;
    let mut t = Tally::default();
    while let Some(&w) = words.get(i) {
        let Some(Word { k, va, shift, ln, last, slot }) = Word::decode(ops, w) else { break };
        let crosses = last >> shift != ln;
        if !DIRECT {
            let r = &repeat[slot];
            if ln == r.line && asid == r.asid && (k < 2 || r.dirty) && !crosses {
                t.done[k] += 1;
                i += 1;
                continue;
            }
        }
        let hc = &checks[slot];
        let cache: &mut Cache = match (slot, dc.as_deref_mut()) {
            (1, Some(d)) => d,
            _ => &mut *ic,
        };
        let write = k == STORE || k == MODIFY;
        // Where the line would be: without translation the key is the line
        // number itself.
        let (set, key) = if TRANSLATE {
            match mapper.translate(asid, VirtAddr(va)) {
                Ok(pa) => hc.locate(va, pa.0),
                Err(_) => break,
            }
        } else {
            (hc.virtual_set(ln), ln)
        };
        if !crosses {
            // A modify's read half then write half: the second probe of a
            // line just hit is a hit that also sets dirty and (LRU) touches
            // again, as `lookup` twice would.
            let dirty = if k == MODIFY {
                cache.probe::<DIRECT, TRANSLATE>(hc, set, key, asid.0, false).and_then(|_| cache.probe::<DIRECT, TRANSLATE>(hc, set, key, asid.0, true))
            } else {
                cache.probe::<DIRECT, TRANSLATE>(hc, set, key, asid.0, write)
            };
            let Some(dirty) = dirty else { break };
            if !DIRECT {
                repeat[slot] = RepeatLine { line: ln, asid, dirty };
            }
        } else {
            // Two lines at most, both resident, checked before either changes
            // (a direct-mapped probe of a read changes nothing); not a modify,
            // whose read half covers both lines before its write half.
            if !DIRECT || k == MODIFY || (last >> shift) != ln + 1 {
                break;
            }
            let second = (ln + 1) << shift;
            let (set2, key2) = if TRANSLATE {
                match mapper.translate(asid, VirtAddr(second)) {
                    Ok(pa) => hc.locate(second, pa.0),
                    Err(_) => break,
                }
            } else {
                (hc.virtual_set(ln + 1), ln + 1)
            };
            if cache.probe::<true, TRANSLATE>(hc, set, key, asid.0, false).is_none()
                || cache.probe::<true, TRANSLATE>(hc, set2, key2, asid.0, false).is_none()
            {
                break;
            }
            if write {
                let _ = cache.probe::<true, TRANSLATE>(hc, set, key, asid.0, true);
                let _ = cache.probe::<true, TRANSLATE>(hc, set2, key2, asid.0, true);
            }
            t.second_lines[k] += 1;
        }
        t.done[k] += 1;
        i += 1;
    }
    t.settle(counts, pending);
    i
}

/// `hits` for direct-mapped, virtually indexed and tagged top caches with
/// ASIDs: no translation, no replacement state, the key is the line number.
/// `top`: the instruction (or unified) cache's view and, for a split top,
/// the data cache's.
#[inline(never)]
pub(crate) fn virtual_direct_hits(
    top: (VirtualDirect<'_>, Option<VirtualDirect<'_>>),
    counts: &mut [u64; 4],
    pending: &mut [u64; 4],
    ops: &[OpInfo; 256],
    words: &[u64],
    mut i: usize,
    asid: Asid,
) -> usize {
    let (mut iv, mut dv) = top;
    let asid = asid.0;
    let mut t = Tally::default();
    while let Some(&w) = words.get(i) {
        let Some(Word { k, shift, ln, last, slot, .. }) = Word::decode(ops, w) else { break };
        let last_ln = last >> shift;
        let v = match (&mut dv, slot) {
            (Some(d), 1) => d,
            _ => &mut iv,
        };
        let write = k >= STORE;
        if last_ln == ln {
            // A modify's write half hits the line its read half found.
            if !v.hit(ln, asid, write) {
                break;
            }
        } else {
            // Two lines, both resident before either changes; a modify
            // reads every line before writing any: general path.
            if k == MODIFY || last_ln != ln + 1 || !v.resident(ln, asid) || !v.hit(ln + 1, asid, write) {
                break;
            }
            v.hit(ln, asid, write);
            t.second_lines[k] += 1;
        }
        t.done[k] += 1;
        i += 1;
    }
    t.settle(counts, pending);
    i
}
