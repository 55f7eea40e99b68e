//! The run loop's fast path, for top-level caches whose hits can be checked
//! in place (`Cache::hit_check`): bit-select index, write-back, no 3C
//! shadows. A run of words is consumed here until an escape (a marker or an
//! unusual event) or the end of the block; every other word is completed
//! here, whatever it does:
//!
//! * a reference within one top-level line that hits (and one crossing
//!   into the next line with both lines resident) is finished inline, its
//!   access counted in bulk; in the associative loop the frame (set and
//!   way) where each line was last found is remembered (`FrameMemo`), so
//!   a hit is one check of that frame, without a translation or a search
//!   of the set, and a miss within one line is completed inline with the
//!   lookup that found it absent standing for `word`'s probe;
//! * anything else (a miss, a reference over several lines, a modify that
//!   crosses a line) goes to `word`, out of line, which applies the general
//!   path's rules piece by piece: a probe per top-level line, and for a miss
//!   `Cache::access_missed` plus everything it sends below
//!   (`Below::missed`), without leaving the loop;
//! * both loops first run a call-free check of each word against a memo
//!   of keys (a read key and a write key per entry): in the associative
//!   loop (`repeats`) the most recent line of each group of sets
//!   (`MruLines`), in the virtual-direct loop (jm-base's shape,
//!   `set_repeats`) a copy of every set's line (`SetLines`); a word it
//!   takes changes no cache state and is only counted;
//! * in the virtual-direct loop, when the hierarchy fills in place, a miss
//!   (any word but a modify over several lines) is completed through the
//!   `VirtualDirect` view (`one_line_miss`, `second_line` for a word over
//!   two lines whose first line hits, `pieces`) with the same calls `word`
//!   would make.
//!
//! Exactness rests on three facts. `Cache::probe` (and `Cache::hit_way`,
//! its hit at a remembered frame that still holds the line) changes
//! exactly what `lookup` changes on a hit except the access counter, which
//! is added in bulk (`pend`). A miss is completed by the very calls the general path
//! makes (`access_missed`, then the hierarchy below). And a word is either
//! completed inline with nothing changed before its last check, or handed
//! whole to `word`, which does the pieces in the general path's order
//! (every line read before any is written for a modify). The property test
//! `inline_loops_equal_naive_reference` runs machines that select each loop.

use vmlab_addr::{Asid, LineNo, PageSize, PhysAddr, VirtAddr};
use vmlab_cache::{Cache, DataRef, HitCheck, LineRef, RefKind, VirtualDirect};
use vmlab_trace::vmt::packed::{ADDR_BITS, ADDR_MASK};

use crate::hierarchy::{Backing, Below, DirectLowers, Lower, MemoryStats};
use crate::machine::{OpInfo, RepeatLine, NO_LINE};
use crate::mapper::{MapError, PageMapper};

/// How `Machine::feed_packed` checks hits in the top-level caches, chosen
/// once from their configuration.
#[derive(Clone, Copy, Debug)]
pub(crate) enum HitLoop {
    /// Everything through `Cache::lookup` (hashed index, write-through or
    /// 3C shadows in a top cache).
    General,
    /// Any other top caches, of any associativity (one way included, the
    /// two sides may differ) and indexing: the memos of most recent lines
    /// and of frames first (no replacement update, no translation), then
    /// the check in place. The checks of slot 0 (instruction or unified
    /// cache) and slot 1 (data cache).
    Assoc([HitCheck; 2]),
    /// Direct-mapped top caches, virtually indexed and tagged, with ASID
    /// tags or without (the jm-base shape): no translation before a hit
    /// on a line of the run's address space, the leanest loop.
    VirtualDirect([HitCheck; 2]),
}

/// What the fast path borrows from the machine for one run of words.
pub(crate) struct Borrowed<'a, B: Backing = &'a mut MemoryStats> {
    /// The instruction (or unified) cache and, for a split top, the data cache.
    pub top: (&'a mut Cache, Option<&'a mut Cache>),
    /// Everything under the top level, for misses.
    pub below: Below<'a, B>,
    pub mapper: &'a mut PageMapper,
    pub counts: &'a mut [u64; 4],
    pub pending: &'a mut [u64; 4],
    pub repeat: &'a mut [RepeatLine; 2],
    /// The associative loop's memos (`MruLines`, `FrameMemo`).
    pub mru: &'a mut MruStore,
    /// The virtual-direct loop's copy of its top caches' lines (`SetLines`).
    pub set_lines: &'a mut Vec<u64>,
    /// What the fast path did with writes to a write-through top.
    pub written_through: &'a mut WrittenThrough,
}

/// Diagnostics of writes to a write-through top cache, so tests can assert
/// that their fast paths are taken.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct WrittenThrough {
    /// Writes `write_through_word` completed (`Machine::writes_through_in_loop`).
    pub in_loop: u64,
    /// Writes passed below that the level under the top found by a search
    /// of the set, not at the frame it remembered (`Machine::writes_below_searched`).
    pub searched_below: u64,
}

/// Events a fast loop completed, by access kind, and the top-level hits it
/// completed with `probe`, by `AccessKind` index (a modify's entry is one
/// read and one write; entries 0-2 double as `RefKind` ifetch, read, write);
/// added to the machine's counters once per run.
#[derive(Default)]
struct Tally {
    done: [u64; 4],
    pend: [u64; 4],
    /// Writes `write_through_word` completed.
    through: u64,
}

impl Tally {
    fn settle(self, counts: &mut [u64; 4], pending: &mut [u64; 4]) {
        for k in 0..4 {
            counts[k] += self.done[k];
            pending[k] += self.pend[k];
        }
    }
}

/// One packed word as the fast loops read it, or `None` for an escape.
#[derive(Clone, Copy)]
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

/// Completes words from `i` on until an escape or the end; returns the index
/// of the first word it left untouched (or `words.len()`), or, with the
/// error, of the word whose translation failed.
/// `TRANSLATE`: some top cache needs the physical address to find a hit
/// (otherwise both are virtually indexed and tagged with ASIDs, and the key
/// is the line number itself). Either top cache may have one way or many.
pub(crate) fn run<const TRANSLATE: bool, B: Backing>(
    b: Borrowed<'_, B>,
    ops: &[OpInfo; 256],
    table: &mut [DirectOp; 256],
    words: &[u64],
    i: usize,
    asid: Asid,
    checks: [HitCheck; 2],
) -> (usize, Result<(), MapError>) {
    // Decided per run, so the loop of every other machine is compiled
    // without the one-slot path (with it, the 32K/1M machines' `repeats`
    // took one more instruction a word: +0.8 instructions a reference;
    // apart, +0.08, the loop's code generation, not work: callgrind,
    // docs/performance.md, session 20).
    let physical_direct = |c: &Cache| c.is_physical_direct();
    if TRANSLATE
        && b.below.takes_fills_above()
        && (physical_direct(b.top.0) || b.top.1.as_deref().is_some_and(physical_direct))
    {
        run_in::<TRANSLATE, true, false, B>(b, ops, table, words, i, asid, checks)
    } else if !(checks[0].writes_in_place() && checks[1].writes_in_place()) {
        run_in::<TRANSLATE, false, true, B>(b, ops, table, words, i, asid, checks)
    } else {
        run_in::<TRANSLATE, false, false, B>(b, ops, table, words, i, asid, checks)
    }
}

/// `run`, with `SLOT` when some top cache is one slot per set, physically
/// indexed and tagged, filling in place over levels that take its fills,
/// and `THROUGH` when a top cache is write-through: its writes are then
/// completed by `write_through_word`'s body inline (every other loop calls
/// it out of line, see there; inline, the write-through machine's writes
/// cost about 40 instructions less each, the call and its arguments).
#[inline(never)]
fn run_in<const TRANSLATE: bool, const SLOT: bool, const THROUGH: bool, B: Backing>(
    b: Borrowed<'_, B>,
    ops: &[OpInfo; 256],
    table: &mut [DirectOp; 256],
    words: &[u64],
    mut i: usize,
    asid: Asid,
    checks: [HitCheck; 2],
) -> (usize, Result<(), MapError>) {
    let Borrowed { top: (ic, mut dc), mut below, mapper, counts, pending, repeat, mru, written_through, .. } = b;
    let mut t = Tally::default();
    let mut res = Ok(());
    let MruStore { keys, frames, epoch, absent } = mru;
    let mut frames = FrameMemo::new(frames, epoch, absent, (asid, mapper.generation()));
    // Per side, the last line a probe or `word` touched (its entry is
    // where the repeat line is taken from at the end).
    let mut last_touched = [repeat[0].line, repeat[1].line];
    let page_shift = mapper.page_size().shift();
    // Per side, whether its cache is one slot per set, physically indexed
    // and tagged, filling in place over levels that take its fills: its
    // words past `repeats` all take the one-slot path (below, or
    // `slot_word`), never the frame memo, so its entries are not kept.
    let slot_view = [0, 1].map(|slot| {
        let cache: &Cache = match (slot, dc.as_deref()) {
            (1, Some(d)) => d,
            _ => ic,
        };
        SLOT && below.takes_fills_above() && cache.is_physical_direct()
    });
    let page = mapper.page_size();
    let mut recent = MruLines::new(keys, mru_masks(&checks, page, slot_view), fixed_masks(&checks, page), repeat, asid);
    // `repeats` finds keys with the table's masks (`Machine::new`).
    debug_assert!(table.iter().all(|d| u64::from(d.memo_mask) == recent.mask[usize::from(d.side & 1)]));
    loop {
        // References to the most recent line of their set: hits that
        // change no replacement state (it is already the newest).
        i = repeats(table, words, i, &recent.keys[..]);
        let Some(&w) = words.get(i) else { break };
        let Some(Word { k, va, shift, ln, last, slot }) = Word::decode(ops, w) else { break };
        let last_ln = last >> shift;
        let hc = &checks[slot];
        let cache: &mut Cache = match (slot, dc.as_deref_mut()) {
            (1, Some(d)) => d,
            _ => &mut *ic,
        };
        let write = k >= STORE;
        let mut done = false;
        // A write-through side's writes within one line are completed by
        // `write_through_word`, any other to `word` (`Cache::access`).
        let inline = !write || hc.writes_in_place();
        if SLOT && slot_view[slot] {
            // Past the memo of recent lines, a one-slot physical top
            // misses more often than it hits: one translation and one
            // slot compared cost less than the frame memo's check and, on
            // a miss, its look-up. One request within one line, or over
            // two (mostly fetches), here, each line accessed in turn as
            // `word` would, both translated first (in `word`'s order; a
            // failed translation allocates nothing and is left to
            // `slot_word` to report); a modify in `slot_word`.
            if last_ln <= ln + 1 && k != MODIFY {
                let (cross, next) = (last_ln != ln, last_ln << shift);
                let first = mapper.translate(asid, VirtAddr(va)).ok();
                let second = match first {
                    // The next line on the same page: the same frame (what
                    // translating it again would give, changing nothing).
                    Some(pa) if cross && (va ^ next) >> page_shift == 0 => Some(PhysAddr(pa.0 + (next - va))),
                    Some(_) if cross => mapper.translate(asid, VirtAddr(next)).ok(),
                    _ => first,
                };
                if let (Some(pa), Some(pb)) = (first, second) {
                    let kind = REFS[k][0];
                    let r = LineRef { vaddr: VirtAddr(va), paddr: pa, asid };
                    let first_last = if cross { next - 1 } else { last };
                    let dirty = match cache.physical_direct_hit(pa, kind) {
                        Some(dirty) => dirty,
                        None => {
                            recent.filled(slot, ln);
                            slot_miss(cache, &mut below, r, kind, first_last - va + 1)
                        }
                    };
                    recent.set(slot, ln, dirty);
                    if cross {
                        let r = LineRef { vaddr: VirtAddr(next), paddr: pb, asid };
                        let dirty = match cache.physical_direct_hit(pb, kind) {
                            Some(dirty) => dirty,
                            None => {
                                recent.filled(slot, last_ln);
                                slot_miss(cache, &mut below, r, kind, last - next + 1)
                            }
                        };
                        recent.set(slot, last_ln, dirty);
                    }
                    last_touched[slot] = last_ln;
                    done = true;
                }
            }
        } else if !inline {
            if last_ln == ln {
                let w = Word { k, va, shift, ln, last, slot };
                let how = if THROUGH {
                    written_through_here::<TRANSLATE, B>(cache, &mut below, &mut frames, &mut recent, mapper, hc, w)
                } else {
                    write_through_word::<TRANSLATE, B>(cache, &mut below, &mut frames, &mut recent, mapper, hc, w)
                };
                if let Some(how) = how {
                    t.pend[k] += u64::from(how == Written::Hit);
                    t.through += 1;
                    last_touched[slot] = ln;
                    done = true;
                }
            }
        } else if last_ln == ln {
            // One line. A modify's read half then write half is one
            // hit that sets dirty: a second touch of the line just
            // touched changes no order (LRU: still the newest;
            // tree-PLRU: the same bits; FIFO, random: nothing).
            match frames.hit::<TRANSLATE>(cache, hc, mapper, TopLine { side: slot, va, ln }, write) {
                Ok(dirty) => {
                    recent.set(slot, ln, dirty);
                    t.pend[k] += 1;
                    done = true;
                }
                // A miss of one request (not a modify, whose write
                // half follows): `word`'s steps, the lookup just made
                // standing for its probe.
                Err(Some(at)) if k != MODIFY => {
                    let kind = REFS[k][0];
                    match below.missed(
                        cache,
                        kind,
                        LineRef { vaddr: VirtAddr(va), paddr: at.pa, asid },
                        last - va + 1,
                        at.set,
                        at.key,
                    ) {
                        Some(dirty) => {
                            recent.set(slot, ln, dirty);
                            // Where the fill went, for the next hit.
                            if let Some(way) = cache.find_way::<TRANSLATE>(hc, at.set, at.key, asid) {
                                frames.remember(slot, ln, at.set, way, at.key);
                            }
                        }
                        None => recent.forget(slot, ln),
                    }
                    done = true;
                }
                Err(_) => {}
            }
            if done {
                last_touched[slot] = ln;
            }
        } else if last_ln == ln + 1 {
            // Across two lines (mostly instruction fetches): when both
            // are resident, the hits `word` would make, in its order
            // (each request kind over both lines); nothing changed
            // before both were found.
            let frame = frames.find::<TRANSLATE>(cache, hc, mapper, TopLine { side: slot, va, ln });
            let next =
                frames.find::<TRANSLATE>(cache, hc, mapper, TopLine { side: slot, va: last_ln << shift, ln: last_ln });
            if let (Ok(a), Ok(b)) = (frame, next) {
                let mut dirty = [false; 2];
                for &kind in REFS[k] {
                    let write = kind == RefKind::Write;
                    for (d, (set, way, key)) in dirty.iter_mut().zip([a, b]) {
                        if let Some(x) =
                            cache.hit_way::<TRANSLATE>(hc, set, way, key, asid, DataRef::of_store_bit(write))
                        {
                            *d = x;
                            t.pend[kind as usize] += 1;
                        }
                    }
                }
                // Each line is now the newest of its set, the second
                // touched last (with one set, it alone).
                recent.set(slot, ln, dirty[0]);
                recent.set(slot, last_ln, dirty[1]);
                last_touched[slot] = last_ln;
                done = true;
            }
        }
        t.done[k] += 1;
        if !done {
            let line = if SLOT && slot_view[slot] {
                slot_word(cache, &mut below, mapper, Word { k, va, shift, ln, last, slot }, asid)
            } else {
                word::<false, TRANSLATE, B>(
                    cache,
                    &mut below,
                    mapper,
                    hc,
                    &mut t.pend,
                    Word { k, va, shift, ln, last, slot },
                    asid,
                )
            };
            match line {
                Ok(line) => {
                    // Every line the word touched (its set was accessed;
                    // on a slot side, any entry that may hold that set's
                    // line), then the last one if still resident.
                    for l in ln..=last_ln {
                        if SLOT && slot_view[slot] {
                            recent.forget_group(slot, l);
                        } else {
                            recent.forget(slot, l);
                        }
                    }
                    if line.line != NO_LINE.line {
                        recent.set(slot, line.line, line.dirty);
                    }
                    last_touched[slot] = last_ln;
                }
                Err(e) => {
                    res = Err(e);
                    break;
                }
            }
        }
        i += 1;
    }
    written_through.in_loop += t.through;
    written_through.searched_below += below.writes_searched();
    t.settle(counts, pending);
    // Any line the memo holds is resident and the newest of its set, as
    // the general path's repeat line must be.
    for (slot, r) in repeat.iter_mut().enumerate() {
        *r = recent.repeat_line(slot, last_touched[slot], asid);
    }
    (i, res)
}

/// A write within one line (`w.ln`) of a write-through top cache (a store,
/// or a modify: a read, then the write), completed as `word` completes it
/// (translated, then `Cache::access` and what it sends below), without its
/// general steps: a hit is found at the frame memo's frame and made by
/// `Cache::hit_way` (a write-through line stays clean), counted, and the
/// write passed below (`Below::write_through`); a store's miss, looked up
/// and found absent, is completed by `Below::missed` (`access_missed`: not
/// allocating, or filled, then the write passed below). The line keeps its
/// memo entries while resident. Returns how the write was completed (the
/// caller counts it), or `None`, changing nothing, for what it leaves to
/// `word`: a modify's miss, a miss in a cache that needs no translation to
/// find a hit (the memo gives no set and key then), a failed translation.
///
/// In a top whose write misses allocate nothing
/// (`Cache::write_misses_pass_below`) a store's miss is counted
/// (`Cache::count_write_miss_passed`) and its write passed below, what
/// `Below::missed` makes of it, and its line remembered
/// (`FrameMemo::absent`): the next store to it in this run, while the
/// cache has fetched no line since (`Cache::lines_fetched`: this loop fills
/// only through counting paths), is the same miss without the memo's
/// look-up (a translation and a search of the set).
// Out of line: inline, its registers cost the associative loop's other
// words 0.4 instructions a reference (the 32K/1M machine, callgrind).
#[inline(never)]
fn write_through_word<const TRANSLATE: bool, B: Backing>(
    cache: &mut Cache,
    below: &mut Below<'_, B>,
    frames: &mut FrameMemo<'_>,
    recent: &mut MruLines<'_>,
    mapper: &mut PageMapper,
    hc: &HitCheck,
    w: Word,
) -> Option<Written> {
    written_through_here::<TRANSLATE, B>(cache, below, frames, recent, mapper, hc, w)
}

/// `write_through_word`'s body, inlined where a top cache is write-through
/// (`run_in`'s `THROUGH`).
#[inline(always)]
fn written_through_here<const TRANSLATE: bool, B: Backing>(
    cache: &mut Cache,
    below: &mut Below<'_, B>,
    frames: &mut FrameMemo<'_>,
    recent: &mut MruLines<'_>,
    mapper: &mut PageMapper,
    hc: &HitCheck,
    w: Word,
) -> Option<Written> {
    let Word { k, va, ln, last, slot, .. } = w;
    let size = last - va + 1;
    let asid = frames.asid;
    if let Some(a) = *frames.absent {
        // Still absent: no line has entered since, and the page's frame is
        // the one the miss was translated with (nothing remapped).
        if k == STORE
            && a.ln == ln
            && a.side == slot
            && a.fetched == cache.lines_fetched()
            && a.generation == mapper.generation()
        {
            cache.count_write_miss_passed(size);
            below.write_through(
                LineRef { vaddr: VirtAddr(va), paddr: PhysAddr(va.wrapping_add(a.pa_less_va)), asid },
                size,
            );
            recent.forget(slot, ln);
            return Some(Written::Miss);
        }
    }
    match frames.find::<TRANSLATE>(cache, hc, mapper, TopLine { side: slot, va, ln }) {
        Ok((set, way, key)) => {
            // The write sent below needs the physical address. A physical
            // tag is the line's physical line number, translated in this
            // epoch (the memo's, or the look-up's just now), so the same
            // as a translation now. Else the line's page is mapped (its
            // fill translated it), so translating allocates nothing, as
            // `word`'s translation would not.
            let pa = match hc.physical_address(LineNo(key), VirtAddr(va)) {
                Some(pa) => pa,
                None => {
                    let Ok(pa) = mapper.translate(asid, VirtAddr(va)) else { return None };
                    pa
                }
            };
            if k == MODIFY {
                // The read half: `probe`'s hit.
                cache.hit_way::<TRANSLATE>(hc, set, way, key, asid, DataRef::Load);
            }
            // The write half: `Cache::access`'s hit in a write-through
            // level, which leaves the line clean as a load's hit does.
            let dirty = cache.hit_way::<TRANSLATE>(hc, set, way, key, asid, DataRef::Load).unwrap_or(false);
            cache.count_write_through(size);
            below.write_through(LineRef { vaddr: VirtAddr(va), paddr: pa, asid }, size);
            recent.set(slot, ln, dirty);
            Some(Written::Hit)
        }
        Err(Some(at)) if k == STORE && cache.write_misses_pass_below() => {
            cache.count_write_miss_passed(size);
            below.write_through(LineRef { vaddr: VirtAddr(va), paddr: at.pa, asid }, size);
            recent.forget(slot, ln);
            let (pa_less_va, fetched, generation) =
                (at.pa.0.wrapping_sub(va), cache.lines_fetched(), mapper.generation());
            *frames.absent = Some(AbsentLine { side: slot, ln, pa_less_va, fetched, generation });
            Some(Written::Miss)
        }
        Err(Some(at)) if k == STORE => {
            match below.missed(
                cache,
                RefKind::Write,
                LineRef { vaddr: VirtAddr(va), paddr: at.pa, asid },
                size,
                at.set,
                at.key,
            ) {
                // Write-allocate: filled, then written through.
                Some(dirty) => {
                    recent.set(slot, ln, dirty);
                    if let Some(way) = cache.find_way::<TRANSLATE>(hc, at.set, at.key, asid) {
                        frames.remember(slot, ln, at.set, way, at.key);
                    }
                }
                None => recent.forget(slot, ln),
            }
            Some(Written::Miss)
        }
        Err(_) => None,
    }
}

/// A line a store of this run found absent from a top cache whose write
/// misses allocate nothing (`write_through_word`): its side and virtual
/// line, its physical address less its virtual one (the page's frame
/// offset), the cache's `lines_fetched` then, and the mapper generation it
/// was translated in.
#[derive(Clone, Copy, Debug)]
struct AbsentLine {
    side: usize,
    ln: u64,
    pa_less_va: u64,
    fetched: u64,
    generation: u64,
}

/// How `write_through_word` completed a write: at its resident line (a
/// hit, one pending request of the word's kind), or by completing the
/// store's miss.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Written {
    Hit,
    Miss,
}

/// What the associative loop keeps between runs: the buffers of its memos
/// (`MruLines`, `FrameMemo`), reused so a run allocates nothing, and the
/// frame memo's epoch.
#[derive(Debug)]
pub(crate) struct MruStore {
    keys: [u64; MRU_LEN],
    frames: [Frame; FRAMES_LEN],
    epoch: Epoch,
    /// `FrameMemo::absent`'s line (here rather than in the memo, whose
    /// size the loop's registers felt: +0.45 % instructions on the 32K/1M
    /// machine, which never uses it).
    absent: Option<AbsentLine>,
}

impl MruStore {
    pub(crate) fn new() -> Box<Self> {
        let epoch = Epoch { n: 0, of: None };
        Box::new(Self { keys: [NO_KEY; MRU_LEN], frames: [NO_FRAME; FRAMES_LEN], epoch, absent: None })
    }
}

/// The frame memo's epoch: a number tagging its entries, and the address
/// space and mapper generation (`PageMapper::generation`) its entries were
/// translated in. Entries stay valid while both are unchanged.
#[derive(Debug)]
struct Epoch {
    n: u64,
    of: Option<(Asid, u64)>,
}

/// Entries per side of the frame memo (`FrameMemo`), 96 KB per side. On
/// cc1 and the 32K/1M machine (20 M events) 1,024 entries left 335 K
/// lookups (lines of code and stack 64 KB apart share an entry), 4,096
/// left 146 K, about the misses and the lines they refill: 1.2
/// instructions per reference less.
const FRAMES: usize = 4096;
const FRAMES_LEN: usize = 2 * FRAMES;
/// A remembered line is stored with its run's epoch above this bit; line
/// numbers are below it (at most 56 address bits, lines of 4 bytes or more).
const EPOCH_SHIFT: u32 = 54;
/// Epochs 0..EPOCHS; an epoch-tagged line is then never `NO_KEY`.
const EPOCHS: u64 = (1 << (64 - EPOCH_SHIFT)) - 1;

/// One entry of the frame memo: a virtual line (tagged with its run's
/// epoch, or `NO_KEY`), the tag key it has in the cache, and the frame
/// (set, way) where a lookup found it.
#[derive(Clone, Copy, Debug)]
struct Frame {
    line: u64,
    key: u64,
    set: u32,
    way: u32,
}

const NO_FRAME: Frame = Frame { line: NO_KEY, key: 0, set: 0, way: 0 };

/// The associative loop's memo of where lines live, direct-mapped by
/// virtual line per side: the frame (set and way) where a lookup of this
/// run found the line of the run's address space, and its tag key. A word
/// on a remembered line is checked at that frame alone (`Cache::hit_way`:
/// does it still hold that key?), without a translation or a search of
/// the set.
///
/// Exact because the cache checks the frame: if it holds the key, it holds
/// the line, and it is the one frame of the set that does (a fill follows
/// a miss), so the hit is `probe`'s; whatever changed the cache since
/// (misses, flushes, the general path between runs) at worst makes the
/// check fail, and the line is looked up again. The key stands for the
/// line while the address space and the page's frame are those it was
/// translated with: entries are tagged with an epoch, which changes when
/// a run starts in another address space or after the mapper remapped a
/// page (`PageMapper::generation`; first touches only add pages), so those
/// entries are all forgotten without clearing.
struct FrameMemo<'a> {
    frames: &'a mut [Frame; FRAMES_LEN],
    /// The run's epoch, shifted into place.
    tag: u64,
    /// The run's address space, whose lines the entries remember.
    asid: Asid,
    /// The line the latest store of this run missed in a top cache whose
    /// write misses allocate nothing (`write_through_word`).
    absent: &'a mut Option<AbsentLine>,
}

/// A top-level line a word touches: virtual line `ln` in the cache of
/// `side` (a repeat slot), reached from byte `va`.
#[derive(Clone, Copy)]
struct TopLine {
    side: usize,
    va: u64,
    ln: u64,
}

impl<'a> FrameMemo<'a> {
    /// The memo for a run in address space and mapper generation `of`:
    /// the entries of the last run if it was in the same, else none (a
    /// new epoch, and once every `EPOCHS` of those, cleared entries).
    fn new(
        frames: &'a mut [Frame; FRAMES_LEN],
        epoch: &mut Epoch,
        absent: &'a mut Option<AbsentLine>,
        of: (Asid, u64),
    ) -> Self {
        if epoch.of != Some(of) {
            epoch.of = Some(of);
            epoch.n += 1;
            if epoch.n >= EPOCHS {
                epoch.n = 0;
                frames.fill(NO_FRAME);
            }
        }
        *absent = None;
        Self { frames, tag: epoch.n << EPOCH_SHIFT, asid: of.0, absent }
    }

    /// The entry of virtual line `ln` on `side`.
    #[inline(always)]
    fn at(side: usize, ln: u64) -> usize {
        (side & 1) * FRAMES + (ln as usize & (FRAMES - 1))
    }

    /// The hit of virtual line `ln` (bytes at `va` on) in `cache` that
    /// `probe` makes, at the remembered frame if it still holds the line,
    /// else where a lookup finds it (remembered then); whether the line is
    /// now dirty. An error, changing nothing, if the line is not resident
    /// (with where it goes, in a cache that needs translating) or its
    /// translation failed (`None`: `word` then takes the word and reports
    /// the error).
    #[inline(always)]
    fn hit<const TRANSLATE: bool>(
        &mut self,
        cache: &mut Cache,
        hc: &HitCheck,
        mapper: &mut PageMapper,
        at: TopLine,
        write: bool,
    ) -> Result<bool, Option<Absent>> {
        let asid = self.asid;
        if let Some(f) = self.remembered(at.side, at.ln) {
            // Checks the frame, so the common case costs one check.
            if let Some(dirty) = cache.hit_way::<TRANSLATE>(
                hc,
                f.set as usize,
                f.way as usize,
                f.key,
                asid,
                DataRef::of_store_bit(write),
            ) {
                return Ok(dirty);
            }
        }
        let (set, way, key) = self.look_up::<TRANSLATE>(cache, hc, mapper, at.side, at.va, at.ln)?;
        // Always `Some`: the frame was just found.
        cache.hit_way::<TRANSLATE>(hc, set, way, key, asid, DataRef::of_store_bit(write)).ok_or(None)
    }

    /// Where virtual line `ln` (bytes at `va` on) lives in `cache`: set,
    /// way and tag key, the frame checked. From the memo when remembered
    /// there, else looked up and remembered; an error as `hit`'s if it is
    /// not resident or its translation failed. Changes nothing in the cache.
    #[inline(always)]
    fn find<const TRANSLATE: bool>(
        &mut self,
        cache: &Cache,
        hc: &HitCheck,
        mapper: &mut PageMapper,
        at: TopLine,
    ) -> Result<(usize, usize, u64), Option<Absent>> {
        if let Some(f) = self.remembered(at.side, at.ln) {
            let (set, way) = (f.set as usize, f.way as usize);
            if cache.way_holds::<TRANSLATE>(hc, set, way, f.key, self.asid) {
                return Ok((set, way, f.key));
            }
        }
        self.look_up::<TRANSLATE>(cache, hc, mapper, at.side, at.va, at.ln)
    }

    /// The entry remembering virtual line `ln` on `side` in this run, if any.
    #[inline(always)]
    fn remembered(&self, side: usize, ln: u64) -> Option<Frame> {
        self.frames.get(Self::at(side, ln)).copied().filter(|f| f.line == ln | self.tag)
    }

    /// `find` past the memo.
    #[inline(never)]
    fn look_up<const TRANSLATE: bool>(
        &mut self,
        cache: &Cache,
        hc: &HitCheck,
        mapper: &mut PageMapper,
        side: usize,
        va: u64,
        ln: u64,
    ) -> Result<(usize, usize, u64), Option<Absent>> {
        let asid = self.asid;
        let (set, key, pa) = if TRANSLATE {
            let pa = mapper.translate(asid, VirtAddr(va)).map_err(|_| None)?;
            let (set, key) = hc.locate(VirtAddr(va), pa);
            (set, key, Some(pa))
        } else {
            (hc.virtual_set(LineNo(ln)), ln, None)
        };
        let Some(way) = cache.find_way::<TRANSLATE>(hc, set, key, asid) else {
            return Err(pa.map(|pa| Absent { set, key, pa }));
        };
        self.remember(side, ln, set, way, key);
        Ok((set, way, key))
    }

    /// Virtual line `ln` on `side` lives at `way` of `set` with tag key `key`.
    #[inline(always)]
    fn remember(&mut self, side: usize, ln: u64, set: usize, way: usize, key: u64) {
        // Sets and ways of a real cache fit in 32 bits; one that did not
        // would simply not be remembered.
        if let (Ok(s), Ok(w), Some(f)) =
            (u32::try_from(set), u32::try_from(way), self.frames.get_mut(Self::at(side, ln)))
        {
            *f = Frame { line: ln | self.tag, key, set: s, way: w };
        }
    }
}

/// A line `FrameMemo` looked up and found not resident in a top cache that
/// needs translating: its set, tag key and physical address, what
/// `Below::missed` needs to complete the miss.
#[derive(Clone, Copy, Debug)]
struct Absent {
    set: usize,
    key: u64,
    pa: PhysAddr,
}

/// Entries of the most-recent-line memo (`MruLines`): two sides of
/// `MRU_SETS` entries, each a read key, then (from `MRU_LEN / 2` on) as
/// many write keys.
pub(crate) const MRU_LEN: usize = 2 * MRU_SETS * 2;
/// Entries per side: the low bits of a top cache's set number that the
/// virtual line fixes (more sets share an entry), or for a one-slot
/// physical top (`slot_view` of `run_in`) the low bits of its virtual line
/// as far as its set mask reaches. 512: a physically indexed direct-mapped
/// 8K cache of 16-byte lines (`pipt-dm-8k-l2-512k`) has 512 sets; with 256
/// entries (the bits a 4K page fixes) two sets shared each, and their
/// alternating lines left the memo (session 21, docs/performance.md). Only
/// the entries a machine's masks reach are cleared at each run.
const MRU_SETS: usize = 512;
/// An empty key: no word's line (at most 56 address bits) equals it.
const NO_KEY: u64 = u64::MAX;

/// The associative loop's memo of most recent lines, one per group of sets
/// of each top cache: for entry `j` of a side, the virtual line (of the
/// run's address space) that the side's latest access to any set of group
/// `j` touched, if that access left it resident. That line is the newest
/// of its set (no access to its set came after), so a reference within it
/// is a hit that changes no replacement state under any policy, as the
/// repeat line (`RepeatLine`) is: only a counter moves, and for a write
/// the dirty bit, which is why the write key is the line only if it is
/// already dirty. A side's group is `line & mask`: for a top cache indexed
/// by the virtual address the mask is the low bits of its set mask (lines
/// of one set share an entry), otherwise 0 (one entry: the repeat line).
/// On a one-slot physical side (direct-mapped, so a resident line is the
/// newest of its set) the mask also takes virtual line bits past the page,
/// which do not fix the set: lines of one physical set may then hold the
/// entries of one group (entries equal in the page-fixed bits), so a fill
/// in a set first forgets every other entry of its group (the victim's
/// line can be held by no other entry). Forgetting only those whose line
/// is in the filled set (each entry's physical set kept beside it) cost
/// more than the entries it kept (pipt-dm: +0.4 % instructions against
/// -3.1 % for forgetting the group; session 21).
/// Valid for one run of one address space: rebuilt at each `run`.
struct MruLines<'a> {
    keys: &'a mut [u64; MRU_LEN],
    mask: [u64; 2],
    /// Per side, the bits of `mask` past those the page fixes: the bits in
    /// which the entries of one group differ (0: groups of one entry).
    group: [u64; 2],
}

impl<'a> MruLines<'a> {
    /// Empty but for the repeat lines of `asid`.
    fn new(
        keys: &'a mut [u64; MRU_LEN],
        mask: [u64; 2],
        fixed: [u64; 2],
        repeat: &[RepeatLine; 2],
        asid: Asid,
    ) -> Self {
        // Each side's read keys, then its write keys: the entries `at`
        // reaches (masks are below `MRU_SETS`), not the whole memo.
        for (side, &m) in mask.iter().enumerate() {
            let used = (m as usize & (MRU_SETS - 1)) + 1;
            for start in [side * MRU_SETS, side * MRU_SETS + MRU_LEN / 2] {
                if let Some(k) = keys.get_mut(start..start + used) {
                    k.fill(NO_KEY);
                }
            }
        }
        let group = [mask[0] & !fixed[0], mask[1] & !fixed[1]];
        let mut m = Self { keys, mask, group };
        for (slot, r) in repeat.iter().enumerate() {
            if r.asid == asid && r.line != NO_LINE.line {
                m.set(slot, r.line, r.dirty);
            }
        }
        m
    }

    /// Index of the read key of `line`'s entry on `slot`'s side (the write
    /// key is `MRU_LEN / 2` further); `DirectOp::mru_at` computes the same.
    #[inline(always)]
    fn at(&self, slot: usize, line: u64) -> usize {
        ((slot & 1) * MRU_SETS + (line & self.mask[slot & 1]) as usize) & (MRU_LEN / 2 - 1)
    }

    /// The keys of the entry whose read key is at `j`: the read key `line`
    /// (resident, or `NO_KEY`), the write key the same line if it is dirty.
    #[inline(always)]
    fn put(&mut self, j: usize, line: u64, dirty: bool) {
        if let Some(r) = self.keys.get_mut(j) {
            *r = line;
        }
        if let Some(w) = self.keys.get_mut(j + MRU_LEN / 2) {
            *w = if dirty { line } else { NO_KEY };
        }
    }

    /// `line` was just touched on `slot`'s side and is resident, dirty or not.
    #[inline(always)]
    fn set(&mut self, slot: usize, line: u64, dirty: bool) {
        let j = self.at(slot, line);
        self.put(j, line, dirty);
    }

    /// `line` is about to be filled on `slot`'s side: the other entries of
    /// its group, any of which may hold the victim, are forgotten; its own
    /// entry is set next.
    #[inline(always)]
    fn filled(&mut self, slot: usize, line: u64) {
        let g = self.group[slot & 1];
        let j = self.at(slot, line);
        // Each nonzero submask of the group bits: the other entries.
        let mut x = g;
        while x != 0 {
            self.put((j ^ x as usize) & (MRU_LEN / 2 - 1), NO_KEY, false);
            x = (x - 1) & g;
        }
    }

    /// Some set of `line`'s group was accessed by `slot_word`, which does
    /// not tell what it filled: every entry of the group is forgotten.
    fn forget_group(&mut self, slot: usize, line: u64) {
        let g = self.group[slot & 1];
        let j = self.at(slot, line);
        self.put(j, NO_KEY, false);
        let mut x = g;
        while x != 0 {
            self.put(j ^ x as usize, NO_KEY, false);
            x = (x - 1) & g;
        }
    }

    /// The line held by `line`'s entry on `slot`'s side as a repeat line
    /// (`NO_LINE` if none).
    fn repeat_line(&self, slot: usize, line: u64, asid: Asid) -> RepeatLine {
        let j = self.at(slot, line);
        match self.keys[j] {
            NO_KEY => NO_LINE,
            held => RepeatLine { line: held, asid, dirty: self.keys[j + MRU_LEN / 2] == held },
        }
    }

    /// `line`'s set was just accessed and `line` may not be resident.
    #[inline(always)]
    fn forget(&mut self, slot: usize, line: u64) {
        let j = self.at(slot, line);
        self.put(j, NO_KEY, false);
    }
}

/// The keys of one `SetLines` entry at `at`: the read key `line`
/// (resident, or `NO_KEY`), and the write key, the same line if it is dirty.
#[inline(always)]
fn put_keys(keys: &mut [u64], at: usize, line: u64, dirty: bool) {
    if let Some(k) = keys.get_mut(at..at + 2) {
        k[0] = line;
        k[1] = if dirty { line } else { NO_KEY };
    }
}

/// The hit path of the associative loop (`set_repeats` is the virtual-direct
/// loop's): takes words from `i` on while each touches one or two
/// top-level lines whose keys in `keys` (`MruLines`, at `DirectOp::mru_at`)
/// hold them, counting them per op
/// (`DirectOp::one` and `two`, folded by `fold`); returns the index of the
/// first word that is not (an escape, a reference over more lines, any
/// other line), or `words.len()`. A write needs the write key, which holds
/// a line only if it is already dirty, so no word taken here changes any
/// state. Two lines that are both their entry's line are in different sets
/// (an entry holds one line, and lines of one set share an entry; on a
/// one-slot side, two resident lines are in two slots), so with
/// `MruLines` each is the newest of its set and neither access changes any
/// replacement state, in whichever order they come. Free of calls, so the
/// pointers stay in registers; inlined (out of line it cost
/// a call per word it stops at: 1.1 instructions a reference more on
/// jm-base, 1.0 on the 32K machine, callgrind, first 20 M of cc1).
#[inline(always)]
fn repeats(table: &mut [DirectOp; 256], words: &[u64], mut i: usize, keys: &[u64]) -> usize {
    // A memo's length is a power of two (`MRU_LEN`), so masking the index
    // keeps it in bounds without a test per word.
    let Some(top) = keys.len().checked_sub(1) else { return i };
    let key = |d: &DirectOp, ln: u64| keys[d.mru_at(ln) & top];
    while let Some(&w) = words.get(i) {
        // `w >> 56` < 256: no bounds check.
        let d = &mut table[(w >> ADDR_BITS) as usize];
        let ln = (w << OP_BITS) >> d.key_shift;
        if w & d.cross <= d.lim {
            if key(d, ln) != ln {
                return i;
            }
            d.one += 1;
        } else {
            // An escape's size is 1 (`OpInfo`), any other op's at least 1.
            let last_ln = ((w & ADDR_MASK) + u64::from(d.size) - 1) >> d.shift;
            if d.escape || last_ln != ln + 1 || key(d, ln) != ln || key(d, last_ln) != last_ln {
                return i;
            }
            d.two += 1;
        }
        i += 1;
    }
    i
}

/// `repeats` for the virtual-direct loop's `SetLines`, whose keys are
/// lines' first addresses (`DirectOp::line_mask`) at `DirectOp::set_at`:
/// the same words taken but for an op longer than a line that spans two
/// (left to the caller, which completes it exactly), in fewer instructions
/// a word: no line number is computed, the index comes from the word with
/// one shift by a constant (`G` of `SetLines::words_at`), and an op that
/// crosses into the next line finds that line's key `cross + 1` above.
/// jm-base, cc1, 20 M events: a one-line hit 25 -> 22 instructions, the
/// whole `sim` 30.67 -> 29.56 instructions a reference (callgrind).
#[inline(always)]
fn set_repeats(table: &mut [DirectOp; 256], words: &[u64], mut i: usize, keys: &[u64], set_shift: u32) -> usize {
    // The copy's length is a power of two (`set_set_lines`), so masking the
    // index keeps it in bounds without a test per word.
    let Some(top) = keys.len().checked_sub(1) else { return i };
    while let Some(&w) = words.get(i) {
        // `w >> 56` < 256: no bounds check.
        let d = &mut table[(w >> ADDR_BITS) as usize];
        if w & d.cross <= d.lim {
            if keys[d.set_at(w, set_shift) & top] != w & d.line_mask {
                return i;
            }
            d.one += 1;
        } else {
            // Past its line. An op no longer than a line (`cross` is then
            // the line's offset mask, never all ones: not an escape) ends
            // in the next line, whose key is `cross + 1` above; a longer op
            // is left to the caller.
            let key = w & d.line_mask;
            // Wrapping: for an escape (`cross` all ones) this is computed
            // before the test below rejects it, and a debug build would
            // stop on the overflow.
            let next = key.wrapping_add(d.cross).wrapping_add(1);
            if d.cross == u64::MAX
                || keys[d.set_at(w, set_shift) & top] != key
                || keys[d.set_at(next, set_shift) & top] != next
            {
                return i;
            }
            d.two += 1;
        }
        i += 1;
    }
    i
}

/// The `MruLines` masks of a machine whose top-level hits `checks` checks,
/// with pages of `page`: the index bits a virtual line fixes, so lines of
/// one set share an entry. A virtually indexed cache's are all its index
/// bits; a physically indexed cache's those below the page offset, which
/// translation keeps (a 32K 8-way PIPT cache of 64-byte lines: all six).
///
/// A side in `wide` (a one-slot physical top, `run_in`'s `slot_view`) takes
/// all the virtual line's bits its set mask reaches (`MruLines`' groups).
pub(crate) fn mru_masks(checks: &[HitCheck; 2], page: PageSize, wide: [bool; 2]) -> [u64; 2] {
    let fixed = fixed_masks(checks, page);
    [0, 1].map(|s| if wide[s] { checks[s].set_mask() & (MRU_SETS as u64 - 1) } else { fixed[s] })
}

/// The `MruLines` mask bits that a virtual line fixes in its set (see
/// `mru_masks`).
fn fixed_masks(checks: &[HitCheck; 2], page: PageSize) -> [u64; 2] {
    checks.map(|c| {
        let fixed = if c.index_virtual() {
            u64::MAX
        } else {
            (1u64 << page.shift().saturating_sub(c.line_shift()).min(63)) - 1
        };
        c.set_mask() & fixed & (MRU_SETS as u64 - 1)
    })
}

/// Gives each op of `table` the virtual-direct loop's `SetLines` place of
/// its side: the index shift shared by all ops (`set_shift`, one below the
/// smallest line shift), where its side's sets start (the data side's after
/// the instruction side's) plus `write`, and the mask that takes a set's
/// pair of keys from an address shifted by `set_shift`. A set's pair is
/// `2^(shift - set_shift)` entries apart from the next (2 when both sides
/// share a line size, as in jm-base; more entries, unused, for the side
/// with longer lines), so a word's pair is found from the word itself with
/// one shift by a run-wide amount, and its key is `w & line_mask`, without
/// the per-op shift that computes a line number. Returns the copy's length,
/// or `None` if its indices would not fit 32 bits (the loop is then not
/// used).
pub(crate) fn set_set_lines(table: &mut [DirectOp; 256], checks: &[HitCheck; 2]) -> Option<usize> {
    // Lines are at least 4 bytes (`vmlab_cache` geometry), so `set_shift`
    // exists and every side's spread is at least 1 (room for a pair).
    let min_shift = table.iter().map(|d| d.shift).min()?;
    // One of the two shifts `SetLines::words` has a copy for: 3 when every
    // line is 16 bytes or more (jm-base's sets then take 16 bytes, a pair),
    // else 1 (lines of 4 or 8 bytes; none shorter, but `None` if so).
    let set_shift = match min_shift {
        0 | 1 => return None,
        2 | 3 => 1,
        _ => 3,
    };
    let shift_of = |side: u8| table.iter().find(|d| d.side == side).map_or(min_shift, |d| d.shift);
    let spread = [shift_of(0) - set_shift, shift_of(1) - set_shift].map(u32::from);
    let entries = [0, 1].map(|s| (checks[s].set_mask() + 1).checked_mul(1u64.checked_shl(spread[s])?));
    let len = entries[0]?.checked_add(entries[1]?)?.checked_next_power_of_two()?;
    if len > 1 << 32 {
        return None;
    }
    let start = [0, u32::try_from(entries[0]?).ok()?];
    let masks = [0, 1].map(|s| u32::try_from(checks[s].set_mask() << spread[s]).ok());
    let masks = [masks[0]?, masks[1]?];
    for d in table.iter_mut() {
        let side = usize::from(d.side & 1);
        d.set_shift = set_shift;
        d.memo = start[side] + u32::from(d.write);
        d.memo_mask = masks[side];
    }
    usize::try_from(len).ok()
}

/// Where `SetLines` keeps a side's sets (from the ops `set_set_lines` set).
#[derive(Clone, Copy)]
struct SideLayout {
    /// Its first set's read key.
    start: usize,
    /// Entries from one set's pair to the next: `1 << spread`.
    spread: u32,
    /// Its line shift: a key is a line's first address, `line << shift`.
    shift: u32,
}

impl SideLayout {
    fn of(table: &[DirectOp; 256]) -> [Self; 2] {
        [0, 1].map(|side| {
            table.iter().find(|d| d.side == side).map_or(Self { start: 0, spread: 1, shift: 1 }, |d| Self {
                start: (d.memo & !1) as usize,
                spread: u32::from(d.shift - d.set_shift),
                shift: u32::from(d.shift),
            })
        })
    }
}

/// Gives each op of `table` the `MruLines` mask of its side (`mru_masks`).
pub(crate) fn set_mru_masks(table: &mut [DirectOp; 256], masks: [u64; 2]) {
    for d in table.iter_mut() {
        // Below `MRU_SETS`.
        d.memo_mask = masks[usize::from(d.side & 1)] as u32;
    }
}

/// Per packed op, what the inline loops (`repeats` and the miss paths of
/// `run_virtual_direct`) need of a word, and the top-level hits they
/// counted for that op: one 64-byte entry, found with one scaled index. The hits are folded into
/// the machine's event counts and pending hits by `fold`.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
pub(crate) struct DirectOp {
    /// A word `w` of this op is an access within one top-level line iff
    /// `w & cross <= lim`: for an op no longer than a line, `cross` is the
    /// line's offset mask and `lim` the last offset at which it still fits
    /// (line - size), one compare for the whole test. For an escape, an op
    /// no block holds, or an op longer than a line, `cross` is all ones, so
    /// the word's op bits (never zero for those ops: op 0 is a 1-byte
    /// fetch) exceed any `lim` and the word takes the slow branch.
    cross: u64,
    lim: u64,
    /// Words whose access hit in one line, and in two lines.
    one: u64,
    two: u64,
    /// `ADDR_BITS`' complement plus the line shift of the cache serving
    /// the op: `(w << (64 - ADDR_BITS)) >> key_shift` is the word's line.
    key_shift: u8,
    /// Bytes, and the request kind it starts with (a modify: a read).
    size: u32,
    first: RefKind,
    /// The line shift of the cache serving it.
    shift: u8,
    /// 0: the instruction (or unified) cache; 1: the data cache.
    side: u8,
    /// A store or a modify: a hit sets the dirty bit.
    write: bool,
    /// A modify: a read of the line, then a write.
    modify: bool,
    /// `AccessKind` index.
    k: u8,
    escape: bool,
    /// `SetLines`' index shift, the same for every op (`set_set_lines`).
    set_shift: u8,
    /// The side's per-set memo and its mask. Associative loop (`MruLines`):
    /// where the side's read keys start, or for a write its write keys
    /// (`mru_at`), and the mask of a line's entry. Virtual-direct loop
    /// (`SetLines`): where the side's sets start plus `write` (the read or
    /// the write key of a pair), and the mask that takes a set's pair from
    /// an address shifted right by `set_shift` (`set_at`).
    memo: u32,
    memo_mask: u32,
    /// `SetLines`: the address bits of a line (`ADDR_MASK` without the
    /// line offset): `w & line_mask` is the word's key there.
    line_mask: u64,
}

/// The address bits of a word shifted out to the left (the op byte).
const OP_BITS: u32 = 64 - ADDR_BITS;

impl DirectOp {
    /// Where a word of this op at address `a` (the op byte may be there:
    /// `memo_mask` takes address bits only) finds its key in `SetLines`:
    /// the side's start plus its set's pair, the read key or, for a write,
    /// the write key (`& !1` is always the read key).
    #[inline(always)]
    fn set_at(&self, a: u64, set_shift: u32) -> usize {
        (self.memo + ((a >> set_shift) as u32 & self.memo_mask)) as usize
    }

    /// Where a word of this op on line `line` finds its key in the
    /// associative loop's memo (`MruLines`), whose write keys lie apart
    /// from the read keys (after all of them): one add, a shift less per
    /// word in `repeats` (0.2 instructions a reference on the 32K/1M
    /// machine; the virtual-direct loop's `SetLines` keeps its pairs, as
    /// its miss path updated apart keys in more instructions).
    #[inline(always)]
    fn mru_at(&self, line: u64) -> usize {
        (self.memo + (line as u32 & self.memo_mask)) as usize
    }

    /// The table for a machine whose ops are `ops`.
    pub(crate) fn table(ops: &[OpInfo; 256]) -> [DirectOp; 256] {
        std::array::from_fn(|op| {
            let info = ops[op];
            let line = 1u64 << info.shift;
            let size = u64::from(info.size);
            let fits = !info.escape && size <= line && size >= 1;
            // Op 0 (a 1-byte fetch) fits every line, which the all-ones
            // `cross` relies on (see `cross`).
            let (cross, lim) = if fits { (line - 1, line - size) } else { (u64::MAX, 0) };
            let k = info.k & 3;
            DirectOp {
                cross,
                lim,
                one: 0,
                two: 0,
                key_shift: OP_BITS as u8 + info.shift,
                size: info.size,
                first: [RefKind::Ifetch, RefKind::Read, RefKind::Write, RefKind::Read][usize::from(k)],
                shift: info.shift,
                side: info.slot & 1,
                write: usize::from(k) >= STORE,
                modify: usize::from(k) == MODIFY,
                k,
                escape: info.escape,
                set_shift: 0,
                memo: u32::from(info.slot & 1) * MRU_SETS as u32
                    + if usize::from(k) >= STORE { MRU_LEN as u32 / 2 } else { 0 },
                memo_mask: 0,
                line_mask: ADDR_MASK & !(line - 1),
            }
        })
    }
}

/// Adds the hits counted in `table` to the events by `AccessKind`
/// (`counts`) and the top-level hits not yet counted in the caches
/// (`pending`), and clears them.
pub(crate) fn fold(table: &mut [DirectOp; 256], counts: &mut [u64; 4], pending: &mut [u64; 4]) {
    for d in table.iter_mut() {
        let k = usize::from(d.k & 3);
        counts[k] += d.one + d.two;
        pending[k] += d.one + 2 * d.two;
        (d.one, d.two) = (0, 0);
    }
}

/// `run` for direct-mapped, virtually indexed and tagged top caches with
/// ASIDs (`HitLoop::VirtualDirect`). Words are checked against `SetLines`,
/// a copy of the top caches' lines taken at the start, and misses are
/// completed through `VirtualDirect` views (`SetLines::words`) when
/// the whole hierarchy fills in place; the views are given back only for a
/// word they cannot finish (a miss over two lines, a miss where the chain
/// does not fill in place), which `word` completes with the caches
/// themselves. Hits are counted per op in `table` (see `fold`).
#[inline(never)]
pub(crate) fn run_virtual_direct<const UNTAGGED: bool, B: Backing>(
    b: Borrowed<'_, B>,
    ops: &[OpInfo; 256],
    table: &mut [DirectOp; 256],
    words: &[u64],
    mut i: usize,
    asid: Asid,
    checks: [HitCheck; 2],
) -> (usize, Result<(), MapError>) {
    let Borrowed { top: (ic, mut dc), mut below, mapper, counts, pending, set_lines, .. } = b;
    let mut t = Tally::default();
    let mut res = Ok(());
    let layout = SideLayout::of(table);
    let set_shift = u32::from(table[0].set_shift);
    let mut lines = SetLines { keys: set_lines, asid, layout, set_shift, retake: Retake::All };
    let page = mapper.page_size();
    loop {
        let views = (ic.virtual_direct(), dc.as_deref_mut().map(Cache::virtual_direct));
        // The words through the views, with misses completed by `$below`
        // (a `Lower`). A macro, not a shared inline helper: the helper
        // moved the hit loop's values to the stack (jm-base sim 29.6 ->
        // 30.1 instructions a reference); the expansion is the code each
        // arm had written out.
        macro_rules! through_views {
            ($below:expr) => {{
                let mut ctx: Ctx<'_, _, UNTAGGED> = Ctx { below: $below, mapper: &mut *mapper, page, t: &mut t, asid };
                match views {
                    (Some(iv), None) => lines.words([iv], &mut ctx, table, words, i),
                    (Some(iv), Some(Some(dv))) => lines.words([iv, dv], &mut ctx, table, words, i),
                    // Not reached: the loop is chosen because both allow a
                    // view; `word` completes every word exactly all the same.
                    _ => Ok(i),
                }
            }};
        }
        let stop = match B::direct_lower(&mut below) {
            // jm-base's shape: one level of direct-mapped virtual caches
            // under the top, its fills and write-backs through views too;
            // what the lower views counted (`VirtualDirectBelow::access`)
            // is settled after the words.
            Some(DirectLowers::Split(mut low)) => {
                let stop = through_views!(&mut low);
                low.settle();
                stop
            }
            Some(DirectLowers::Unified(mut low)) => {
                let stop = through_views!(&mut low);
                low.settle();
                stop
            }
            None => through_views!(&mut below),
        };
        i = match stop {
            Ok(stop) => stop,
            Err((stop, e)) => {
                i = stop;
                res = Err(e);
                break;
            }
        };
        let Some(&w) = words.get(i) else { break };
        let Some(decoded) = Word::decode(ops, w) else { break };
        let Word { k, slot, .. } = decoded;
        let cache: &mut Cache = match (slot, dc.as_deref_mut()) {
            (1, Some(d)) => d,
            _ => &mut *ic,
        };
        t.done[k] += 1;
        // An untagged top translates before its lookup (a homonym's page).
        if let Err(e) = word::<true, UNTAGGED, B>(cache, &mut below, mapper, &checks[slot], &mut t.pend, decoded, asid)
        {
            res = Err(e);
            break;
        }
        lines.retake = Retake::Word(w);
        i += 1;
    }
    t.settle(counts, pending);
    (i, res)
}

/// The virtual-direct loop's copy of its top caches' tags: per set of each
/// side (the data side's sets after the instruction side's, at
/// `DirectOp::set_at`), a read key, the first address of the virtual line
/// the set holds if it belongs to the run's address space, and a write
/// key, the same if the line is also dirty; otherwise `NO_KEY`, which no
/// address equals (`set_set_lines` has the layout). A hit is
/// then one compare with a dense array instead of a slot's key, ASID and
/// dirty bit, and a write hit needs no store (its line is dirty already).
/// Nothing but the loop changes the top caches during a run, and the loop
/// takes every set it changes again (`take`), so the copy stays exact.
struct SetLines<'a> {
    keys: &'a mut Vec<u64>,
    asid: Asid,
    /// Each side's place in `keys`, and the index shift (`set_set_lines`).
    layout: [SideLayout; 2],
    set_shift: u32,
    /// What the copy must take again before the views are used.
    retake: Retake,
}

/// `SetLines`' debt to the caches when the views are taken anew.
#[derive(Clone, Copy)]
enum Retake {
    /// Every set: the start of a run.
    All,
    /// The sets of this word's lines, which `word` just completed with the
    /// caches themselves.
    Word(u64),
    Nothing,
}

impl SetLines<'_> {
    /// The keys of set `set` of a view, put at `at` (`VirtualDirect::line_in`
    /// gives `NO_KEY` for a set holding nothing of the run's address space).
    #[inline(always)]
    fn put_from(&mut self, at: usize, v: &VirtualDirect<'_>, set: usize, shift: u32) {
        let (line, dirty) = v.line_in(set, self.asid);
        let key = if line == NO_KEY { NO_KEY } else { line << shift };
        put_keys(&mut self.keys[..], at, key, dirty);
    }

    /// The keys of every set of the views.
    fn take_all<const N: usize>(&mut self, views: &[VirtualDirect<'_>; N]) {
        for (v, lay) in views.iter().zip(self.layout) {
            for set in 0..v.sets() {
                self.put_from(lay.start + (set << lay.spread), v, set, lay.shift);
            }
        }
    }

    /// The keys of the sets of word `w`'s lines, after the word changed them.
    fn take<const N: usize>(&mut self, views: &[VirtualDirect<'_>; N], d: &DirectOp, w: u64) {
        let shift = u32::from(d.shift);
        let first = (w & ADDR_MASK) >> shift;
        let last = ((w & ADDR_MASK) + u64::from(d.size.max(1)) - 1) >> shift;
        let side = usize::from(d.side) % N;
        let (v, lay) = (&views[side], self.layout[side]);
        // At most a few lines: an op is at most 32 bytes.
        for ln in first..=last.min(first + v.sets() as u64) {
            let at = d.set_at(ln << shift, self.set_shift) & !1;
            // The set whose pair `at` is.
            self.put_from(at, v, at.wrapping_sub(lay.start) >> lay.spread, shift);
        }
    }

    /// Completes words from `i` on while each is a top-level hit of at most
    /// two lines (not a modify that crosses) or a one-line miss the views
    /// can fill in place; returns the index of the first word it left
    /// untouched (or, with the error, of the word whose translation
    /// failed). `views`: the instruction (or unified) cache's and, for a
    /// split top, the data cache's (`N` = 1 or 2; a unified top's ops all
    /// name side 0). The copy first takes what `retake` says; hits found by
    /// `repeats` are counted per op in `table`.
    #[inline(always)]
    fn words<const N: usize, L: Lower, const U: bool>(
        &mut self,
        views: [VirtualDirect<'_>; N],
        c: &mut Ctx<'_, L, U>,
        table: &mut [DirectOp; 256],
        words: &[u64],
        i: usize,
    ) -> Result<usize, (usize, MapError)> {
        // The index shift as a constant: a shift by a register would need
        // it in `cl` before every index (one instruction a word).
        if self.set_shift == 3 {
            self.words_at::<N, L, U, 3>(views, c, table, words, i)
        } else {
            self.words_at::<N, L, U, 1>(views, c, table, words, i)
        }
    }

    /// `words` with `set_shift` = `G`.
    #[inline(always)]
    fn words_at<const N: usize, L: Lower, const U: bool, const G: u32>(
        &mut self,
        mut views: [VirtualDirect<'_>; N],
        c: &mut Ctx<'_, L, U>,
        table: &mut [DirectOp; 256],
        words: &[u64],
        mut i: usize,
    ) -> Result<usize, (usize, MapError)> {
        match std::mem::replace(&mut self.retake, Retake::Nothing) {
            Retake::All => self.take_all(&views),
            Retake::Word(w) => self.take(&views, &table[(w >> ADDR_BITS) as usize], w),
            Retake::Nothing => {}
        }
        let set_shift = G;
        loop {
            i = set_repeats(table, words, i, &self.keys[..], set_shift);
            let Some(&w) = words.get(i) else { return settled(&mut views, Ok(words.len())) };
            let d = &mut table[(w >> ADDR_BITS) as usize];
            let v = &mut views[usize::from(d.side) % N];
            let one_line = w & d.cross <= d.lim;
            let ln = (w & ADDR_MASK) >> d.shift;
            // The key of the word's (first) line, and where it is.
            let key = w & d.line_mask;
            let at = d.set_at(w, set_shift);
            let read_key = at & !1;
            // A one-line word ends its own iteration: with its outcome
            // matched together with the other cases' below, the outcome
            // went through the stack on every exit (jm-base sim 28.35 ->
            // 27.95 instructions a reference apart).
            if one_line {
                let done = if self.keys.get(read_key) == Some(&key) {
                    // Resident but not taken by `repeats`: a write onto a
                    // clean line, which is now dirty.
                    v.hit(LineNo(ln), self.asid, DataRef::Store);
                    d.one += 1;
                    Ok(true)
                } else {
                    one_line_miss(v, c, w, d, ln)
                };
                match done {
                    // The line is resident now, dirty iff the word writes
                    // (a fill leaves a read clean and a write or a modify
                    // dirty), and its set holds nothing else.
                    Ok(true) => put_keys(&mut self.keys[..], read_key, key, d.write),
                    Ok(false) => return settled(&mut views, Ok(i)),
                    Err(e) => return settled(&mut views, Err((i, e))),
                }
                i += 1;
                continue;
            }
            let done = if d.escape || d.modify {
                // The caller's: an escape, or a modify over several lines
                // (every line read before any is written: `word`).
                Ok(false)
            } else if ((w & ADDR_MASK) + u64::from(d.size) - 1) >> d.shift == ln + 1 && self.keys.get(at) == Some(&key)
            {
                // Over two lines, the first a hit that changes nothing (its
                // key, the write key for a write, holds it, as in
                // `set_repeats`): mostly an instruction whose second line is new.
                let next = ln + 1;
                let next_a = next << d.shift;
                let next_key = d.set_at(next_a, set_shift) & !1;
                let resident = self.keys.get(next_key) == Some(&next_a);
                let done = second_line(v, c, w, d, next, resident);
                if let Ok(true) = done {
                    // The second line is resident now, dirty iff the word
                    // writes; the first line's keys are as they were.
                    put_keys(&mut self.keys[..], next_key, next_a, d.write);
                    i += 1;
                    continue;
                }
                done
            } else {
                pieces(v, c, w, d)
            };
            match done {
                Ok(true) => self.take(&views, &table[(w >> ADDR_BITS) as usize], w),
                Ok(false) => return settled(&mut views, Ok(i)),
                Err(e) => return settled(&mut views, Err((i, e))),
            }
            i += 1;
        }
    }
}

/// `r`, after the views' fills counted in them
/// (`VirtualDirect::fill_deferred`) are added to their caches' counters.
#[inline(always)]
fn settled<T, const N: usize>(views: &mut [VirtualDirect<'_>; N], r: T) -> T {
    for v in views {
        v.settle();
    }
    r
}

/// What a miss completed by the views needs besides the view: what
/// completes it below (`Below`, or `DirectLower` for jm-base's shape).
struct Ctx<'b, L: Lower, const U: bool> {
    below: &'b mut L,
    mapper: &'b mut PageMapper,
    /// `mapper`'s page size, read once a run (`translate_in`).
    page: PageSize,
    t: &'b mut Tally,
    asid: Asid,
}

/// A word over several top-level lines, not a modify, that `repeats` did
/// not take, completed as `word` completes it, through the view: one
/// access per line in address order, a hit counted in `pend`, a miss
/// translated and filled (`one_line_miss`'s steps for that piece's bytes).
/// `Ok(false)`, changing nothing, where the hierarchy does not fill in
/// place: the word is left to `word`.
#[inline(never)]
fn pieces<L: Lower, const U: bool>(
    v: &mut VirtualDirect<'_>,
    c: &mut Ctx<'_, L, U>,
    w: u64,
    d: &DirectOp,
) -> Result<bool, MapError> {
    if !c.below.fills_in_place() {
        return Ok(false);
    }
    let (asid, kind, shift) = (c.asid, d.first, u32::from(d.shift));
    let va = w & ADDR_MASK;
    let last = va + u64::from(d.size) - 1;
    // A homonym (untagged top) is a hit the views do not take: the whole
    // word is left to `word` before any piece is done. A piece's fill
    // brings in a line of the run's own address space, so none appears.
    if U && ((va >> shift)..=(last >> shift)).any(|ln| v.homonym(LineNo(ln), asid)) {
        return Ok(false);
    }
    let mut a = va;
    loop {
        let ln = a >> shift;
        let piece_last = last.min(((ln + 1) << shift) - 1);
        if v.hit(LineNo(ln), asid, DataRef::of_store_bit(d.write)) {
            c.t.pend[kind as usize] += 1;
        } else {
            // With the hierarchy filling in place (checked above) the view
            // fills too, so this completes every piece, never half a word.
            line_miss(v, c, a, ln, kind, piece_last - a + 1, d.shift)?;
        }
        if piece_last >= last {
            break;
        }
        a = piece_last + 1;
    }
    c.t.done[usize::from(d.k & 3)] += 1;
    Ok(true)
}

/// A word within one top-level line (`ln`) that missed there, completed as
/// `word` completes it (translate, `Cache::fill`, then the fetch and the
/// victim below; a modify's write half then hits the filled line), through
/// the view. `Ok(false)`, changing nothing, where the level does not fill
/// in place: the word is left to `word`.
#[inline(always)]
fn one_line_miss<L: Lower, const U: bool>(
    v: &mut VirtualDirect<'_>,
    c: &mut Ctx<'_, L, U>,
    w: u64,
    d: &DirectOp,
    ln: u64,
) -> Result<bool, MapError> {
    if !line_miss(v, c, w & ADDR_MASK, ln, d.first, u64::from(d.size), d.shift)? {
        return Ok(false);
    }
    c.t.done[usize::from(d.k & 3)] += 1;
    if d.modify {
        v.hit(LineNo(ln), c.asid, DataRef::Store);
        c.t.pend[RefKind::Write as usize] += 1;
    }
    Ok(true)
}

/// A word over two top-level lines whose first line (`next - 1`) is a hit
/// that changes no state, completed as `pieces` completes it: the first
/// piece counted, then the second (bytes from the start of line `next`)
/// a hit onto `resident` line `next` (a write onto its clean line) or a
/// one-line miss (`line_miss`). `Ok(false)`, changing nothing, where the
/// hierarchy does not fill in place.
#[inline(always)]
fn second_line<L: Lower, const U: bool>(
    v: &mut VirtualDirect<'_>,
    c: &mut Ctx<'_, L, U>,
    w: u64,
    d: &DirectOp,
    next: u64,
    resident: bool,
) -> Result<bool, MapError> {
    let start = next << d.shift;
    // The word's bytes past the first line (`w` crosses into `next`).
    let size = ((w & ADDR_MASK) + u64::from(d.size)).saturating_sub(start);
    if resident {
        // The second line's hit; the first line's is counted below.
        v.hit(LineNo(next), c.asid, DataRef::of_store_bit(d.write));
        c.t.pend[d.first as usize] += 1;
    } else if !line_miss(v, c, start, next, d.first, size, d.shift)? {
        return Ok(false);
    }
    c.t.pend[d.first as usize] += 1;
    c.t.done[usize::from(d.k & 3)] += 1;
    Ok(true)
}

/// One piece (`size` bytes from `va`, in virtual line `ln`) that missed in
/// the top level, completed as `word` completes it: translate,
/// `Cache::fill` through the view, then the fetch and the victim below.
/// `Ok(false)`, changing nothing, where the chain does not fill in place.
#[inline(always)]
fn line_miss<L: Lower, const U: bool>(
    v: &mut VirtualDirect<'_>,
    c: &mut Ctx<'_, L, U>,
    va: u64,
    ln: u64,
    kind: RefKind,
    size: u64,
    shift: u8,
) -> Result<bool, MapError> {
    if !c.below.fills_in_place() {
        return Ok(false);
    }
    // One copy per request kind, so the counters, the dirty bit and the
    // lower cache each miss reaches are fixed in it (a kind read at run
    // time made each a select: ~20 instructions a miss).
    match kind {
        RefKind::Ifetch => fill_as::<IFETCH, L, U>(v, c, va, ln, size, shift),
        RefKind::Read => fill_as::<READ, L, U>(v, c, va, ln, size, shift),
        RefKind::Write => fill_as::<WRITE, L, U>(v, c, va, ln, size, shift),
    }
}

/// `RefKind` as a const parameter (`fill_as`).
const IFETCH: u8 = RefKind::Ifetch as u8;
const READ: u8 = RefKind::Read as u8;
const WRITE: u8 = RefKind::Write as u8;

/// `line_miss` for request kind `K` (`RefKind as u8`) past its check:
/// translate, fill the view, then the fetch and the victim below.
#[inline(always)]
fn fill_as<const K: u8, L: Lower, const U: bool>(
    v: &mut VirtualDirect<'_>,
    c: &mut Ctx<'_, L, U>,
    va: u64,
    ln: u64,
    size: u64,
    shift: u8,
) -> Result<bool, MapError> {
    let kind = match K {
        IFETCH => RefKind::Ifetch,
        READ => RefKind::Read,
        _ => RefKind::Write,
    };
    if U && v.homonym(LineNo(ln), c.asid) {
        // A hit on another address space's line: `word`'s, which
        // translates first.
        return Ok(false);
    }
    let pa = c.mapper.translate_in(c.page, c.asid, VirtAddr(va))?;
    let r = LineRef { vaddr: VirtAddr(va), paddr: pa, asid: c.asid };
    // `line_miss` found the chain filling in place, this level included.
    let Some((fetch, victim)) = v.fill_deferred_in_place(LineNo(ln), r, kind, size) else {
        // Not reached where the chain fills in place; exact all the same.
        return Ok(false);
    };
    c.below.fill_below(kind, r, 1 << shift, fetch, victim);
    Ok(true)
}

/// Per `AccessKind` index: the request kinds of the reference, in order (a
/// modify is a read of every line, then a write of every line).
const REFS: [&[RefKind]; 4] =
    [&[RefKind::Ifetch], &[RefKind::Read], &[RefKind::Write], &[RefKind::Read, RefKind::Write]];

/// `word` for a top cache of one slot per set, physically indexed and
/// tagged, that fills in place over levels taking its fills
/// (`Cache::is_physical_direct`, `Below::takes_fills_above`), in `word`'s
/// order: each piece translated, compared at its slot and on a miss filled
/// there (`Cache::physical_direct_fill`, which changes what `probe` then
/// `Below::missed` change, its hit counted at once rather than pending),
/// and the fill's fetch and victim sent below. Every piece is resident
/// afterwards, so the repeat line is the last piece's.
#[inline(never)]
fn slot_word<B: Backing>(
    cache: &mut Cache,
    below: &mut Below<'_, B>,
    mapper: &mut PageMapper,
    w: Word,
    asid: Asid,
) -> Result<RepeatLine, MapError> {
    let Word { k, va, last, shift, .. } = w;
    let mut repeat = NO_LINE;
    for &kind in REFS[k] {
        let mut a = va;
        loop {
            let ln = a >> shift;
            let piece_last = last.min(((ln + 1) << shift) - 1);
            let r = LineRef { vaddr: VirtAddr(a), paddr: mapper.translate(asid, VirtAddr(a))?, asid };
            let dirty = slot_access(cache, below, r, kind, piece_last - a + 1);
            repeat = RepeatLine { line: ln, asid, dirty };
            if piece_last >= last {
                break;
            }
            a = piece_last + 1;
        }
    }
    Ok(repeat)
}

/// One access of `size` bytes at `r` within one line of a top cache where
/// `slot_word` applies: its hit at the slot, or its miss (`slot_miss`);
/// whether the line, resident afterwards, is dirty.
#[inline(always)]
fn slot_access<B: Backing>(cache: &mut Cache, below: &mut Below<'_, B>, r: LineRef, kind: RefKind, size: u64) -> bool {
    match cache.physical_direct_hit(r.paddr, kind) {
        Some(dirty) => dirty,
        None => slot_miss(cache, below, r, kind, size),
    }
}

/// `slot_word`'s miss of `size` bytes at `r`: the fill in the top cache's
/// slot and what it sends below; whether the line is dirty now. Out of
/// line, so a hit keeps `slot_word`'s frame small.
#[inline(never)]
fn slot_miss<B: Backing>(cache: &mut Cache, below: &mut Below<'_, B>, r: LineRef, kind: RefKind, size: u64) -> bool {
    let (filled, dirty) = cache.physical_direct_fill(r, kind, size);
    if let Some((fetch, victim)) = filled {
        below.filled_above(kind, r, cache.line_bytes(), fetch, victim);
    }
    dirty
}

/// One whole word (access kind `k`, bytes `va..=last`) the inline check did
/// not finish, applied exactly as the general path applies it: for each
/// request kind, one access per top-level line. A hit is a `probe` counted
/// in `pend`; a miss is finished by `Below::missed`. Returns the repeat line
/// the general path would leave (the last piece's line, if still resident).
#[inline(never)]
fn word<const DIRECT: bool, const TRANSLATE: bool, B: Backing>(
    cache: &mut Cache,
    below: &mut Below<'_, B>,
    mapper: &mut PageMapper,
    hc: &HitCheck,
    pend: &mut [u64; 4],
    w: Word,
    asid: Asid,
) -> Result<RepeatLine, MapError> {
    let Word { k, va, last, shift, .. } = w;
    let mut repeat = NO_LINE;
    for &kind in REFS[k] {
        let mut a = va;
        loop {
            let ln = a >> shift;
            let piece_last = last.min(((ln + 1) << shift) - 1);
            let size = piece_last - a + 1;
            // A physically indexed or tagged top translates before the
            // lookup, a virtual one only on a miss (as `Machine::piece`).
            let write = kind == RefKind::Write;
            if write && !hc.writes_in_place() {
                // A write-through top's write, as the general path makes
                // it: translated, then `Cache::access` and what it sends below.
                let pa = mapper.translate(asid, VirtAddr(a))?;
                let r = LineRef { vaddr: VirtAddr(a), paddr: pa, asid };
                repeat = match below.written(cache, r, size) {
                    Some(dirty) => RepeatLine { line: ln, asid, dirty },
                    None => NO_LINE,
                };
                if piece_last >= last {
                    break;
                }
                a = piece_last + 1;
                continue;
            }
            let pa = if TRANSLATE { mapper.translate(asid, VirtAddr(a))? } else { PhysAddr(0) };
            let (set, key) = if TRANSLATE { hc.locate(VirtAddr(a), pa) } else { (hc.virtual_set(LineNo(ln)), ln) };
            let dirty = match cache.probe::<DIRECT, TRANSLATE>(hc, set, key, asid, write) {
                Some(dirty) => {
                    pend[kind as usize] += 1;
                    Some(dirty)
                }
                None => {
                    let pa = if TRANSLATE { pa } else { mapper.translate(asid, VirtAddr(a))? };
                    below.missed(cache, kind, LineRef { vaddr: VirtAddr(a), paddr: pa, asid }, size, set, key)
                }
            };
            repeat = match dirty {
                Some(dirty) => RepeatLine { line: ln, asid, dirty },
                None => NO_LINE,
            };
            if piece_last >= last {
                break;
            }
            a = piece_last + 1;
        }
    }
    Ok(repeat)
}
