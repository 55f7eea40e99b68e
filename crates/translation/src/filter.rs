//! One L1-hit filter for machines that translate at L2 misses (SOFTVM,
//! SPUR) and have equal L1s: a direct-mapped L1 of their geometry fed the
//! user references alone (the filter) runs once per block, and each
//! machine skips, in one step, every run of words that hit the filter in
//! sets where its own L1 is known to hold the filter's line. Every counter
//! of every machine equals its own run's (tests/filter.rs).
//!
//! Why it is exact. Invariant, per machine: in every L1 set not *marked*,
//! the machine's L1 holds the line the filter holds there (both
//! direct-mapped, VIVT with ASIDs, write-back, write-allocate). So a word
//! that hits the filter, on unmarked sets only, hits the machine's L1: no
//! translation (a hit reaches no memory), nothing moves but counts and,
//! for a write, a dirty bit; the skip does exactly that
//! (`VmSim::filtered_write`, `VmSim::filtered_run`, and `VmSim::count_filtered` once per block, as
//! counts are sums read only by the results). Every other word (a *stop*) goes through the
//! machine's general path (`VmSim::feed_word`). Only two things change a
//! set's line: a user piece, after which the machine's tag is compared with
//! the filter's (which then holds that word's line) and the set unmarked
//! iff they are equal (without the comparison when no kernel reference
//! missed L1 during the word: then nothing evicted what its pieces left);
//! and a kernel reference (handler fetch, PTE or
//! administrative load, its own L2 misses' write-back translations) that
//! missed L1, which marks its set (`VmSim::take_marks`). A flush empties
//! the filter (so every set misses it until refilled), and so does a
//! context switch (whatever the switch does to the machine's caches).
//! Comparing tags rather than keeping books on what each handler did keeps
//! it exact through nested translations, which may evict a line the word
//! just filled.
//!
//! Stops: shared ones (filter misses, words over more than two lines,
//! escapes) come from the filter's pass; a direct one-line filter miss
//! where the filter held another line is a miss in every machine (a user
//! line enters an L1 set only with the filter's, kernel lines are of
//! another space), so each takes it without a fold or an L1 look-up of
//! its own (`VmSim::filter_miss`), from its fill on; a machine's own ones are the
//! next word (after the current one) on each marked set, kept in a heap
//! and found by binary search in the block's per-set lists of hit words.
//! A pending stop whose set a later stop unmarked is dropped (the word is
//! then a filter hit on unmarked sets: every marked set has its next hit
//! pending). Counts over a block's skips are differences of per-word
//! prefix sums, less the filter hits taken as own stops.
//!
//! Folding: a region's fold slot depends only on the order in which user
//! references first touch regions, so the filter's own `Fold` gives every
//! machine's folded addresses; a word that hits the filter lies in a
//! region some earlier stop (a filter miss) already folded in each machine.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use vmlab_cache::{Geometry, IndexFn, Indexing, WriteMissPolicy, WritePolicy};
use vmlab_trace::vmt::packed::{ADDR_BITS, ADDR_MASK, OPS, PACKED_ESCAPE};
use vmlab_trace::{AccessKind, Event, PackedBlock};

use crate::config::VmConfig;
use crate::result::VmResult;
use crate::scheme::TranslateAt;
use crate::sim::{Fold, SimError, VmSim};

/// No line (an empty filter slot; a word with no user reference).
const NO_LINE: u64 = u64::MAX;
/// No scheduled stop.
const NONE: u32 = u32::MAX;

/// Why machine `cfg` cannot share `lead`'s L1-hit filter, or `None` if it
/// can: both translate at L2 misses, change no protections, and have equal
/// L1s, each direct-mapped, bit-select, VIVT with ASIDs, write-back and
/// write-allocate (their L2s and schemes may differ).
pub fn filter_refusal(lead: &VmConfig, cfg: &VmConfig) -> Option<&'static str> {
    for c in [lead, cfg] {
        if c.translate_at() != TranslateAt::L2Miss {
            return Some("its scheme does not translate at L2 misses");
        }
        if c.protection_changes_per_million > 0.0 {
            return Some("protection changes read what the caches hold");
        }
        for l1 in [&c.l1i, &c.l1d] {
            let direct = Geometry::new(l1).is_ok_and(|g| g.ways == 1 && g.sets.is_power_of_two());
            if !direct
                || l1.index != IndexFn::BitSelect
                || l1.indexing != Indexing::Vivt
                || !l1.asid_tags
                || l1.write != WritePolicy::WriteBack
                || l1.write_miss != WriteMissPolicy::WriteAllocate
            {
                return Some("an L1 is not direct-mapped, bit-select, VIVT with ASIDs, write-back and write-allocate");
            }
        }
    }
    let same = |a: &vmlab_cache::CacheConfig, b: &vmlab_cache::CacheConfig| {
        let mut b = b.clone();
        b.source.clone_from(&a.source);
        *a == b
    };
    (!same(&lead.l1i, &cfg.l1i) || !same(&lead.l1d, &cfg.l1d)).then_some("their L1s differ")
}

/// The L1 lines one word touches (`first..=last` on `side`), or none.
#[derive(Clone, Copy, Debug)]
struct WordLines {
    first: u64,
    last: u64,
    side: usize,
    /// A direct word of one line that missed the filter where it held
    /// another line: every machine misses there too (`VmSim::filter_miss`).
    /// A set's user line enters a machine's L1 only by a user piece, so
    /// since the filter last held nothing there the machine holds the
    /// filter's line or, in a marked set, a kernel line (another space).
    miss: bool,
    /// Its fold met a region new to the filter's `Fold` (every machine's
    /// must learn it too).
    fold_new: bool,
}

const NO_WORD: WordLines = WordLines { first: NO_LINE, last: NO_LINE, side: 0, miss: false, fold_new: false };

/// The filter and what its pass over one block found.
#[derive(Debug)]
struct Shared {
    /// Per side, per set: the (line, ASID) held, `NO_LINE` if empty.
    tags: [Vec<(u64, u32)>; 2],
    shift: [u32; 2],
    mask: [u64; 2],
    /// A set's key: `base[side] + set`.
    base: [usize; 2],
    fold: Fold,
    /// Per word of the block.
    lines: Vec<WordLines>,
    /// Words by `AccessKind` index, then pieces (fetch, read, write), of
    /// the filter hits before each word (one more entry than words).
    prefix: Vec<[u32; 7]>,
    /// Words every machine takes through its general path, ascending.
    stops: Vec<u32>,
    /// Filter hits that write, ascending.
    writes: Vec<u32>,
    /// Filter hits by set key: `hits[start[k]..start[k + 1]]`, ascending.
    start: Vec<u32>,
    hits: Vec<u32>,
    /// (key, word) of each filter hit's lines, before sorting.
    unsorted: Vec<(u32, u32)>,
    n: usize,
}

impl Shared {
    fn new(cfg: &VmConfig) -> Result<Self, SimError> {
        let geometry = |c| Geometry::new(c).map_err(|e| SimError::Config(e.0));
        let (gi, gd) = (geometry(&cfg.l1i)?, geometry(&cfg.l1d)?);
        let sets = [gi.sets as usize, gd.sets as usize];
        Ok(Self {
            tags: [vec![(NO_LINE, 0); sets[0]], vec![(NO_LINE, 0); sets[1]]],
            shift: [gi.line_shift, gd.line_shift],
            mask: [gi.sets - 1, gd.sets - 1],
            base: [0, sets[0]],
            fold: Fold::default(),
            lines: Vec::new(),
            prefix: Vec::new(),
            stops: Vec::new(),
            writes: Vec::new(),
            start: vec![0; sets[0] + sets[1] + 1],
            hits: Vec::new(),
            unsorted: Vec::new(),
            n: 0,
        })
    }

    fn keys(&self) -> usize {
        self.start.len() - 1
    }

    #[inline(always)]
    fn key(&self, side: usize, line: u64) -> usize {
        self.base[side] + (line & self.mask[side]) as usize
    }

    fn wipe(&mut self) {
        for t in &mut self.tags {
            t.fill((NO_LINE, 0));
        }
    }

    /// The first filter hit on set `key` at word `from` or later, or `n`.
    fn next_hit(&self, key: usize, from: usize) -> usize {
        let on = &self.hits[self.start[key] as usize..self.start[key + 1] as usize];
        let i = on.partition_point(|&p| (p as usize) < from);
        on.get(i).map_or(self.n, |&p| p as usize)
    }

    /// Runs the filter over the first `n` words of `block`.
    fn pass(&mut self, block: &PackedBlock, n: usize) -> Result<(), SimError> {
        let words = &block.words()[..n.min(block.words().len())];
        self.n = words.len();
        if u32::try_from(self.n).is_err() {
            return Err(SimError::Config(format!("a packed block of {} words is too long to filter", self.n)));
        }
        self.lines.clear();
        self.prefix.clear();
        self.stops.clear();
        self.writes.clear();
        self.unsorted.clear();
        // Room for the block at once (a block is some 64 K words).
        self.lines.reserve(self.n);
        self.prefix.reserve(self.n + 1);
        self.unsorted.reserve(self.n);
        let mut extra = block.extra.iter();
        let mut asid = 0u32;
        let mut acc = [0u32; 7];
        self.prefix.push(acc);
        for (i, &w) in words.iter().enumerate() {
            let op = (w >> ADDR_BITS) as u8;
            let user = match OPS.get(usize::from(op)) {
                Some(&(kind, size)) => Some((kind, size, w & ADDR_MASK, true)),
                None if op == PACKED_ESCAPE => match extra.next() {
                    Some(Event::Access(a)) => {
                        asid = a.asid.0;
                        Some((a.kind, a.size, a.addr.0, false))
                    }
                    Some(Event::ContextSwitch(a)) => {
                        asid = a.0;
                        self.wipe();
                        None
                    }
                    Some(Event::FlushAll) => {
                        self.wipe();
                        None
                    }
                    // Markers change no cache; a missing event is each
                    // machine's error to report.
                    _ => None,
                },
                None => None,
            };
            let regions = self.fold.regions();
            let done = user.and_then(|(kind, size, raw, direct)| {
                // A fold overflow is each machine's error to report.
                let va = self.fold.fold(asid, raw)?;
                Some((kind, va, size, direct))
            });
            let Some((kind, va, size, direct)) = done else {
                self.lines.push(NO_WORD);
                self.stops.push(i as u32);
                self.prefix.push(acc);
                continue;
            };
            let side = usize::from(kind != AccessKind::Ifetch);
            let shift = self.shift[side];
            let first = va >> shift;
            let last = va.saturating_add(u64::from(size.max(1)) - 1) >> shift;
            // Hits: each line resident before the word changes any (two
            // lines of one word lie in different sets unless there is
            // one set, and then the second misses here as there).
            let mut hit = direct && last - first <= 1;
            let mut held = direct && first == last;
            for line in first..=last {
                let slot = &mut self.tags[side][(line & self.mask[side]) as usize];
                hit &= *slot == (line, asid);
                held &= slot.0 != NO_LINE;
                *slot = (line, asid);
            }
            let fold_new = self.fold.regions() != regions;
            self.lines.push(WordLines { first, last, side, miss: held && !hit, fold_new });
            if hit {
                let pieces = (last - first + 1) as u32;
                acc[kind as usize] += 1;
                match kind {
                    AccessKind::Ifetch => acc[4] += pieces,
                    AccessKind::Load => acc[5] += pieces,
                    AccessKind::Store => acc[6] += pieces,
                    AccessKind::Modify => {
                        acc[5] += pieces;
                        acc[6] += pieces;
                    }
                }
                if matches!(kind, AccessKind::Store | AccessKind::Modify) {
                    self.writes.push(i as u32);
                }
                for line in first..=last {
                    self.unsorted.push((self.key(side, line) as u32, i as u32));
                }
            } else {
                self.stops.push(i as u32);
            }
            self.prefix.push(acc);
        }
        // Filter hits by set (a counting sort: stable, so each set's
        // words stay ascending).
        self.start.fill(0);
        for &(k, _) in &self.unsorted {
            self.start[k as usize + 1] += 1;
        }
        for k in 1..self.start.len() {
            self.start[k] += self.start[k - 1];
        }
        self.hits.clear();
        self.hits.resize(self.unsorted.len(), 0);
        let mut at: Vec<u32> = self.start[..self.keys()].to_vec();
        for &(k, p) in &self.unsorted {
            self.hits[at[k as usize] as usize] = p;
            at[k as usize] += 1;
        }
        Ok(())
    }
}

/// One machine of the group and its marked sets.
#[derive(Debug)]
struct Member {
    sim: VmSim,
    marked: Vec<bool>,
    /// Per set key, the word of its pending stop in `heap`, or `NONE`.
    scheduled: Vec<u32>,
    heap: BinaryHeap<Reverse<(u32, u32)>>,
    marks: Vec<(usize, u64)>,
    touched: Vec<usize>,
    /// Words completed by skips.
    skipped: u64,
    /// Shared stops taken as known L1 misses (`VmSim::filter_miss`).
    known_misses: u64,
}

impl Member {
    /// A stop at the next filter hit on set `key` after word `from - 1`,
    /// unless one is pending there already.
    fn schedule(&mut self, f: &Shared, key: usize, from: usize) {
        let s = self.scheduled[key];
        if s != NONE && s as usize >= from {
            return;
        }
        let p = f.next_hit(key, from);
        if p < f.n {
            self.heap.push(Reverse((p as u32, key as u32)));
            self.scheduled[key] = p as u32;
        } else {
            self.scheduled[key] = NONE;
        }
    }

    fn run(&mut self, f: &Shared, block: &PackedBlock) -> Result<(), SimError> {
        self.heap.clear();
        self.scheduled.fill(NONE);
        for k in 0..self.marked.len() {
            if self.marked[k] {
                self.schedule(f, k, 0);
            }
        }
        let words = &block.words()[..f.n];
        let mut extra = block.extra.iter();
        let mut asid = 0u32;
        let (mut pos, mut next_stop, mut next_write) = (0usize, 0usize, 0usize);
        // Filter hits this machine took as stops: the general path counted
        // them, so the block's skip counts leave them out.
        let mut own = [0u32; 7];
        loop {
            let shared = f.stops.get(next_stop).map_or(f.n, |&p| p as usize);
            let pending = self.heap.peek().map_or(f.n, |r| r.0 .0 as usize);
            let j = shared.min(pending);
            if j >= f.n {
                break;
            }
            // A pending stop whose set a later word unmarked is stale: every
            // marked set has its next filter hit pending (`schedule`), so a
            // word whose sets are all unmarked now is a filter hit on
            // unmarked sets, a skip.
            self.touched.clear();
            while let Some(&Reverse((p, k))) = self.heap.peek() {
                if p as usize != j {
                    break;
                }
                self.heap.pop();
                if self.scheduled[k as usize] == p {
                    self.scheduled[k as usize] = NONE;
                }
                if self.marked[k as usize] {
                    self.touched.push(k as usize);
                }
            }
            if j == shared {
                next_stop += 1;
            } else if self.touched.is_empty() {
                continue;
            } else {
                for (o, (x, y)) in own.iter_mut().zip(f.prefix[j + 1].iter().zip(&f.prefix[j])) {
                    *o += x - y;
                }
            }
            if j > pos {
                self.skip(f, pos, j, &mut next_write, asid);
            }
            let wl = f.lines[j];
            if wl.miss {
                // This machine's L1 holds, in the word's set, the filter's
                // previous line (unmarked) or a kernel line (marked), never
                // the word's: it misses. The pass's fold and look-up serve
                // the group; the fill, its victim's write-back (dirty or not
                // in this machine) and everything below are this machine's.
                let shift = f.shift[wl.side];
                let va = (wl.first << shift) | (words[j] & ((1 << shift) - 1));
                self.sim.filter_miss(words[j], va, asid, wl.fold_new)?;
                self.known_misses += 1;
            } else {
                self.sim.feed_word(words[j], &mut extra, &mut asid)?;
            }
            if !self.sim.has_marks() && wl.first != NO_LINE && wl.last - wl.first <= f.mask[wl.side] {
                // No kernel reference missed L1, so nothing evicted the
                // word's lines after its pieces left them in L1 (a read
                // always does, a write allocates), each in its own set:
                // the sets hold the filter's lines. (Popped keys are among
                // these sets.) By hand, as in `written`.
                let mut line = wl.first;
                loop {
                    self.marked[f.key(wl.side, line)] = false;
                    if line >= wl.last {
                        break;
                    }
                    line += 1;
                }
                pos = j + 1;
                continue;
            }
            self.sim.take_marks(&mut self.marks);
            for &(s, line) in &self.marks {
                let k = f.key(s, line);
                self.marked[k] = true;
                self.touched.push(k);
            }
            // After the kernel's marks: the user lines' sets hold what
            // the word left, whatever ran before.
            if wl.first != NO_LINE {
                for line in wl.first..=wl.last {
                    let k = f.key(wl.side, line);
                    self.marked[k] = !self.sim.l1_holds(wl.side, line, asid);
                    self.touched.push(k);
                }
            }
            for t in 0..self.touched.len() {
                let k = self.touched[t];
                if self.marked[k] {
                    self.schedule(f, k, j + 1);
                }
            }
            pos = j + 1;
        }
        if f.n > pos {
            self.skip(f, pos, f.n, &mut next_write, asid);
        }
        let (a, b) = (f.prefix[0], f.prefix[f.n]);
        let d: [u64; 7] = std::array::from_fn(|k| u64::from(b[k] - a[k] - own[k]));
        self.sim.count_filtered([d[0], d[1], d[2], d[3]], [d[4], d[5], d[6]]);
        self.skipped += d[..4].iter().sum::<u64>();
        Ok(())
    }

    /// Completes words `pos..end`, every one a filter hit on unmarked
    /// sets, but their counts (`run` adds a block's at once).
    #[inline(always)]
    fn skip(&mut self, f: &Shared, pos: usize, end: usize, next_write: &mut usize, asid: u32) {
        while f.writes.get(*next_write).is_some_and(|&p| (p as usize) < pos) {
            *next_write += 1;
        }
        let from = *next_write;
        while f.writes.get(*next_write).is_some_and(|&p| (p as usize) < end) {
            *next_write += 1;
        }
        // Most runs write nothing: they pay the scans, not a call.
        if from < *next_write {
            self.written(f, from..*next_write, asid);
        }
        self.sim.filtered_run(asid);
    }

    /// The dirty bits of the skipped writes `f.writes[writes]`.
    #[inline(never)]
    fn written(&mut self, f: &Shared, writes: std::ops::Range<usize>, asid: u32) {
        for &p in &f.writes[writes] {
            let wl = f.lines[p as usize];
            // `first..=last` by hand: a `RangeInclusive`'s end test cost
            // more than the probe (`first <= last` for a filter hit).
            let mut line = wl.first;
            loop {
                self.sim.filtered_write(line, asid);
                if line >= wl.last {
                    break;
                }
                line += 1;
            }
        }
    }
}

/// Machines sharing one L1-hit filter (`filter_refusal`), fed block by
/// block: the filter's pass, then each machine from stop to stop.
#[derive(Debug)]
pub(crate) struct FilterGroup {
    shared: Shared,
    members: Vec<Member>,
}

impl FilterGroup {
    pub(crate) fn new(cfgs: Vec<VmConfig>) -> Result<Self, SimError> {
        let lead = cfgs.first().ok_or_else(|| SimError::Config("a filter group needs a configuration".into()))?;
        let shared = Shared::new(lead)?;
        let mut members = Vec::with_capacity(cfgs.len());
        for c in &cfgs {
            if let Some(why) = filter_refusal(lead, c) {
                return Err(SimError::Config(format!(
                    "configuration {:?} cannot share {:?}'s L1-hit filter: {why}",
                    c.name, lead.name
                )));
            }
            let mut sim = VmSim::new(c.clone())?;
            if !sim.join_filter() || sim.l1_shifts() != shared.shift {
                return Err(SimError::Config(format!("configuration {:?} has no L1 hit loop to filter", c.name)));
            }
            members.push(Member {
                sim,
                marked: vec![false; shared.keys()],
                scheduled: vec![NONE; shared.keys()],
                heap: BinaryHeap::new(),
                marks: Vec::new(),
                touched: Vec::new(),
                skipped: 0,
                known_misses: 0,
            });
        }
        Ok(Self { shared, members })
    }

    /// As `VmSim::feed_packed`, for every machine; the first error stops.
    pub(crate) fn feed_packed(&mut self, block: &PackedBlock, n: usize) -> Result<(), SimError> {
        self.shared.pass(block, n)?;
        for m in &mut self.members {
            m.run(&self.shared, block)?;
        }
        Ok(())
    }

    /// One result per machine, in order.
    pub(crate) fn results(&mut self, origin: &str) -> Vec<VmResult> {
        self.members.iter_mut().flat_map(|m| m.sim.results(origin)).collect()
    }

    pub(crate) fn sims(&self) -> impl Iterator<Item = &VmSim> {
        self.members.iter().map(|m| &m.sim)
    }

    /// Words each machine completed by skips, in order.
    pub(crate) fn skipped_words(&self) -> Vec<u64> {
        self.members.iter().map(|m| m.skipped).collect()
    }

    /// Shared stops each machine took as known L1 misses, in order.
    pub(crate) fn known_misses(&self) -> Vec<u64> {
        self.members.iter().map(|m| m.known_misses).collect()
    }

    pub(crate) fn len(&self) -> usize {
        self.members.len()
    }
}
