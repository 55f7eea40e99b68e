//! Every size and associativity of one LRU level at once: per set count,
//! one LRU stack per set (Mattson et al. 1970), shared by every way count
//! of that set count (Hill and Smith 1989's all-associativity simulation).
//! Each set count keeps its own stacks, so any index function and any set
//! count, power of two or not, stays exact. Where the set counts refine one
//! another (Hill and Smith's set refinement: powers of two, an index that
//! takes the low bits of one hashed line, `SweptLevel::refines`) they are
//! visited from the fewest sets up and share what is known: a line's depth
//! can only shrink as the set count grows, so the depth found in one set
//! count bounds the search in the next, and a line on top of its set in
//! one set count is on top in every larger one, where nothing is searched
//! or moved (`SetCount::access_top`).
//!
//! A reference found at depth `p` of its set's stack (0 = most recent) hits
//! in every configuration of more than `p` ways and misses in the others;
//! one not found misses everywhere. That is LRU's inclusion property, which
//! holds because an LRU level's content after any reference is the `ways`
//! most recent distinct lines of the set, whatever the way count. It needs
//! every reference to update recency whether it hits or not, so a level
//! that does not allocate on a write miss is refused (`plan.rs`).
//!
//! A stack keeps only the `depth` most recent lines of its set (the most
//! ways of any configuration). Where a line's
//! set is a function of its tag (`SweptLevel::stamped`: tag and index from
//! the same address, and a space-hashed index only with ASID tags, every
//! case but VIPT and untagged space hashing), the depth is found without a
//! search: every reference is stamped with its number, one map holds each
//! line's latest stamp, a stack's stamps decrease from its top, so the line
//! is in the stack if its stamp is no older than the deepest entry's, and
//! then at the place a binary search finds for its stamp (the stamp-based
//! stack distance of Bennett and Kruskal 1975, bounded to the stack that
//! matters). Otherwise the stack's keys are searched.
//!
//! Dirty lines are tracked per stack entry as `dirty_from`: the entry is
//! dirty in exactly the configurations of `dirty_from` ways or more (a set
//! that only grows, so one number holds it; Thompson and Smith 1989). A
//! write makes it dirty everywhere (write-allocate: every configuration
//! holds the line afterwards); a read found at depth `p` refetched it clean
//! in the configurations of `p` ways or fewer. The configuration of `a`
//! ways evicts an entry when it goes from depth `a - 1` to `a`; an entry
//! goes down one step at a time and its `dirty_from` changes only when it
//! is referenced, so its write-backs are counted at once when it is next
//! found (at depth `p`: every configuration of `dirty_from` to `p` ways),
//! falls out of the stack (`dirty_from` ways and more), is flushed, or the
//! results are read (`SweptLevel::settle`): a range of configurations, kept
//! as a difference array.

use rustc_hash::FxHashMap;
use vmlab_addr::{Asid, VirtAddr};
use vmlab_cache::{CacheConfig, CacheStats, FlushStats, Geometry, IndexFn, LineRef, RefKind, WritePolicy};

/// The fewest stamps `SweptLevel::prune` lets the map hold.
const PRUNE_FLOOR: usize = 1024;

/// `dirty_from` of a clean entry: dirty in no configuration.
const CLEAN: u32 = u32::MAX;

/// One entry of a stack.
#[derive(Clone, Copy, Debug)]
struct Entry {
    /// The line's latest stamp when lines are found by stamp, else its key.
    key: u64,
    /// The line's address space when found by key and the level's tags
    /// hold one, else 0.
    asid: u32,
    dirty_from: u32,
}

const EMPTY: Entry = Entry { key: u64::MAX, asid: 0, dirty_from: CLEAN };

/// How a reference's line is found in a stack.
#[derive(Clone, Copy)]
enum Line {
    /// By stamp: the line's previous stamp (`None`: never referenced) and this reference's.
    Stamped { previous: Option<u64>, now: u64 },
    /// By key and address space.
    Keyed { key: u64, asid: u32 },
}

/// The configurations of one set count: their stacks, and what happened at
/// each depth.
#[derive(Debug)]
struct SetCount {
    sets: u64,
    mask: Option<u64>,
    /// The most ways of any configuration here: deeper entries are in none.
    depth: usize,
    /// Per set, `depth` entries, most recent first (`len` of them used).
    /// A move to the top is one `copy_within` (a ring, which moves nothing
    /// on a miss but entry by entry on a hit, took 25.5 G instructions for
    /// jm-base's 100-point L2 D curve against 9.5 G; parallel arrays of
    /// stamps and dirty depths, a `copy_within` each, took 7.72 G against
    /// 7.45 G).
    entries: Vec<Entry>,
    len: Vec<u32>,
    /// References by kind and depth found (`depth` = not found).
    found_at: [Vec<u64>; 3],
    /// Writes of a whole line by depth found: their misses fetch nothing.
    whole_line_writes_at: Vec<u64>,
    /// (ways, configuration), ascending by ways.
    members: Vec<(u32, usize)>,
    /// Per `d` in `0..=depth + 1`: the members of fewer than `d` ways.
    fewer_ways: Vec<usize>,
    /// Dirty victims by member, as a difference array (`members.len() + 1`).
    writebacks: Vec<i64>,
    /// Write-backs counted by `settle` for the entries still in the stacks.
    pending: Vec<u64>,
}

impl SetCount {
    fn new(sets: u64) -> Self {
        Self {
            sets,
            mask: sets.is_power_of_two().then(|| sets - 1),
            depth: 0,
            entries: Vec::new(),
            len: Vec::new(),
            found_at: Default::default(),
            whole_line_writes_at: Vec::new(),
            members: Vec::new(),
            fewer_ways: Vec::new(),
            writebacks: Vec::new(),
            pending: Vec::new(),
        }
    }

    fn allocate(&mut self) {
        self.members.sort_unstable();
        self.depth = self.members.last().map_or(0, |&(w, _)| w as usize);
        let slots = self.sets as usize * self.depth;
        self.entries = vec![EMPTY; slots];
        self.len = vec![0; self.sets as usize];
        self.found_at = std::array::from_fn(|_| vec![0; self.depth + 1]);
        self.whole_line_writes_at = vec![0; self.depth + 1];
        self.fewer_ways =
            (0..=self.depth + 1).map(|d| self.members.iter().filter(|&&(w, _)| (w as usize) < d).count()).collect();
        self.writebacks = vec![0; self.members.len() + 1];
        self.pending = vec![0; self.members.len()];
    }

    /// Moves the first `moved` entries of the stack at `base` down by one.
    #[inline(always)]
    fn push_down(&mut self, base: usize, moved: usize) {
        if moved > 0 {
            self.entries.copy_within(base..base + moved, base + 1);
        }
    }

    /// The members an entry dirty from `dirty_from` ways has been evicted
    /// from, dirty, once it went down to depth `reached`: those of
    /// `dirty_from` to `reached` ways, as a range of member indexes.
    #[inline(always)]
    fn evicted_dirty(&self, dirty_from: u32, reached: usize) -> std::ops::Range<usize> {
        let lo = self.fewer_ways[(dirty_from as usize).min(self.depth + 1)];
        let hi = self.fewer_ways[reached.min(self.depth) + 1];
        lo..hi.max(lo)
    }

    #[inline(always)]
    fn count_evicted(&mut self, dirty_from: u32, reached: usize) {
        // Dirty from deeper than it went (a clean entry too): evicted dirty from none.
        if dirty_from as usize > reached {
            return;
        }
        let r = self.evicted_dirty(dirty_from, reached);
        if !r.is_empty() {
            self.writebacks[r.start] += 1;
            self.writebacks[r.end] -= 1;
        }
    }

    /// The depth of `line` in the stack at `base`, if it is there; a line
    /// found by stamp is known to be no deeper than `bound`, if given.
    #[inline(always)]
    fn find(&self, base: usize, n: usize, line: Line, bound: Option<usize>) -> Option<usize> {
        match line {
            Line::Stamped { previous, .. } => {
                let t = previous?;
                let stack = &self.entries[base..base + n];
                match stack.first() {
                    Some(top) if top.key == t => return Some(0),
                    None => return None,
                    _ => {}
                }
                let stack = match bound {
                    // No deeper than `b`, and the stack is deeper: it is there.
                    Some(b) if b < n => &stack[..=b],
                    // Stamps decrease from the top; older than the deepest: gone.
                    _ if stack[n - 1].key > t => return None,
                    _ => stack,
                };
                let p = stack.partition_point(|e| e.key > t);
                debug_assert_eq!(stack[p].key, t);
                Some(p)
            }
            Line::Keyed { key, asid } => {
                self.entries[base..base + n].iter().position(|e| e.key == key && e.asid == asid)
            }
        }
    }

    /// One reference to `set` (its line no deeper than `bound`, if given);
    /// returns where it was found and whether the line is now dirty in
    /// every configuration.
    #[inline]
    fn access(
        &mut self,
        set: usize,
        line: Line,
        kind: RefKind,
        whole_line: bool,
        write_back: bool,
        bound: Option<usize>,
    ) -> (Option<usize>, bool) {
        let depth = self.depth;
        let base = set * depth;
        let n = self.len[set] as usize;
        let found = self.find(base, n, line, bound);
        let p = found.unwrap_or(depth);
        self.found_at[kind as usize][p] += 1;
        if whole_line {
            self.whole_line_writes_at[p] += 1;
        }
        let write = kind == RefKind::Write;
        let previous = match found {
            Some(p) => {
                let previous = self.entries[base + p].dirty_from;
                self.count_evicted(previous, p);
                self.push_down(base, p);
                previous
            }
            None => {
                if n == depth {
                    // The deepest falls out of every configuration.
                    self.count_evicted(self.entries[base + n - 1].dirty_from, depth);
                    self.push_down(base, n - 1);
                } else {
                    self.len[set] += 1;
                    self.push_down(base, n);
                }
                CLEAN
            }
        };
        let dirty_from = if write && write_back {
            1
        } else if found.is_some() {
            previous.max(p as u32 + 1)
        } else {
            CLEAN
        };
        self.entries[base] = match line {
            Line::Stamped { now, .. } => Entry { key: now, asid: 0, dirty_from },
            Line::Keyed { key, asid } => Entry { key, asid, dirty_from },
        };
        (found, dirty_from <= 1)
    }

    /// A reference to `set` whose line is known to be the most recent of
    /// its set (it was in a coarser set count of the chain): `access` at
    /// depth 0, where nothing moves, no entry goes below any member's ways,
    /// and a read leaves `dirty_from` as it was (it is at least 1).
    #[inline(always)]
    fn access_top(&mut self, set: usize, now: u64, kind: RefKind, whole_line: bool, write_back: bool) -> bool {
        debug_assert!(self.len[set] > 0);
        self.found_at[kind as usize][0] += 1;
        if whole_line {
            self.whole_line_writes_at[0] += 1;
        }
        let top = &mut self.entries[set * self.depth];
        top.key = now;
        if kind == RefKind::Write && write_back {
            top.dirty_from = 1;
        }
        top.dirty_from <= 1
    }

    /// References of `kind` that miss with `ways` ways.
    fn misses(&self, kind: RefKind, ways: u32) -> u64 {
        self.found_at[kind as usize][ways as usize..].iter().sum()
    }

    /// Calls `f(depth, dirty_from)` for every entry of every stack.
    fn each_entry(&self, mut f: impl FnMut(usize, u32)) {
        for set in 0..self.sets as usize {
            let base = set * self.depth;
            for q in 0..self.len[set] as usize {
                f(q, self.entries[base + q].dirty_from);
            }
        }
    }

    /// Counts in `pending` the write-backs of the entries in the stacks
    /// so far (those that went below a configuration's ways dirty).
    fn settle(&mut self) {
        let mut pending = vec![0i64; self.members.len() + 1];
        self.each_entry(|q, d| {
            let r = self.evicted_dirty(d, q);
            if !r.is_empty() {
                pending[r.start] += 1;
                pending[r.end] -= 1;
            }
        });
        self.pending = prefix_sums(&pending);
    }

    /// Dirty victims of member `m` so far.
    fn writebacks(&self, m: usize) -> u64 {
        prefix_sums(&self.writebacks)[m] + self.pending[m]
    }

    /// Per member: what a flush of the whole level finds, then empties it
    /// (the write-backs of the entries below a member's ways counted first).
    fn flush(&mut self, write_back: bool) -> Vec<FlushStats> {
        let mut evicted = Vec::new();
        self.each_entry(|q, d| evicted.push((q, d)));
        for (q, d) in evicted {
            self.count_evicted(d, q);
        }
        let counts = self
            .members
            .iter()
            .map(|&(a, _)| {
                let mut f = FlushStats::default();
                let mut dirty = 0;
                let mut resident = 0;
                self.each_entry(|q, d| {
                    if q < a as usize {
                        resident += 1;
                        dirty += u64::from(write_back && d <= a);
                    }
                });
                f.dirty += dirty;
                f.clean += resident - dirty;
                f.empty = self.sets * u64::from(a) - f.dirty - f.clean;
                f
            })
            .collect();
        self.len.iter_mut().for_each(|n| *n = 0);
        counts
    }
}

/// Items grouped by key: per distinct key, in order of first appearance,
/// the key and the indexes of its items, in order.
pub(crate) fn group_by<K: PartialEq>(keys: impl IntoIterator<Item = K>) -> Vec<(K, Vec<usize>)> {
    let mut groups: Vec<(K, Vec<usize>)> = Vec::new();
    for (i, k) in keys.into_iter().enumerate() {
        match groups.iter_mut().find(|(g, _)| *g == k) {
            Some((_, members)) => members.push(i),
            None => groups.push((k, vec![i])),
        }
    }
    groups
}

/// Running sums of a difference array: entry `m` is the sum of `d[..=m]`.
fn prefix_sums(d: &[i64]) -> Vec<u64> {
    d.iter()
        .scan(0i64, |sum, &x| {
            *sum += x;
            Some(*sum as u64)
        })
        .collect()
}

/// One LRU level in every configuration of a sweep, which share the line
/// size and everything else but size and associativity. The caller feeds
/// it the requests that reach the level, each within one of its lines.
#[derive(Debug)]
pub struct SweptLevel {
    shift: u32,
    line: u64,
    cfg: CacheConfig,
    write_back: bool,
    configs: Vec<CacheConfig>,
    set_counts: Vec<SetCount>,
    /// Per configuration: (set count, member) in `set_counts`.
    place: Vec<(usize, usize)>,
    accesses: [u64; 3],
    /// Writes and their bytes (each a write-through in a write-through level).
    writes: u64,
    write_bytes: u64,
    /// Per configuration, over all flushes.
    flushed: Vec<FlushStats>,
    /// The last reference's (virtual line, physical line, asid): a
    /// reference repeating it is at depth 0 everywhere.
    last: Option<(u64, u64, u32)>,
    /// Whether that line is dirty in every configuration (a write to it
    /// then changes nothing either).
    last_dirty_everywhere: bool,
    /// Whether stacks find lines by stamp (`stamped`): then every line's
    /// latest stamp, by key and address space, and the references so far.
    stamped: bool,
    last_use: FxHashMap<(u64, u32), u64>,
    clock: u64,
    /// How many stamps `last_use` may hold before the stamps of lines in
    /// no stack are dropped (`prune`).
    prune_at: usize,
    /// Whether the set counts form a chain (`refines`), ascending in
    /// `set_counts`, and how many look-ups the chain answered.
    chain: bool,
    refined: u64,
}

impl SweptLevel {
    /// `configs` must agree in everything but size and associativity and
    /// be valid (`Geometry::new`); `plan::refusal` checks both.
    pub fn new(configs: &[CacheConfig]) -> Result<Self, String> {
        let first = configs.first().ok_or("a one-pass sweep needs at least one configuration")?;
        let geometries =
            configs.iter().map(|c| Geometry::new(c).map_err(|e| e.to_string())).collect::<Result<Vec<_>, _>>()?;
        let mut set_counts: Vec<SetCount> = group_by(geometries.iter().map(|g| g.sets))
            .into_iter()
            .map(|(sets, members)| {
                let mut s = SetCount::new(sets);
                s.members = members.iter().map(|&i| (geometries[i].ways, i)).collect();
                s
            })
            .collect();
        set_counts.sort_by_key(|s| s.sets);
        let stamped = Self::stamped(first);
        for s in &mut set_counts {
            s.allocate();
        }
        let mut place = vec![(0, 0); configs.len()];
        for (s, sc) in set_counts.iter().enumerate() {
            for (m, &(_, i)) in sc.members.iter().enumerate() {
                place[i] = (s, m);
            }
        }
        let line = first.line.0;
        let chain = stamped && Self::refines(first, &set_counts);
        Ok(Self {
            shift: line.trailing_zeros(),
            line,
            cfg: first.clone(),
            write_back: first.write == WritePolicy::WriteBack,
            configs: configs.to_vec(),
            set_counts,
            place,
            accesses: [0; 3],
            writes: 0,
            write_bytes: 0,
            flushed: vec![FlushStats::default(); configs.len()],
            last: None,
            last_dirty_everywhere: false,
            stamped,
            last_use: FxHashMap::default(),
            clock: 0,
            prune_at: PRUNE_FLOOR,
            chain,
            refined: 0,
        })
    }

    /// Whether each set count's sets refine the smaller ones' (Hill and
    /// Smith 1989's set refinement): a line's set in the larger count
    /// fixes its set in the smaller, because both take the low bits of the
    /// same hashed line (powers of two, and an index function that does
    /// not read the set count). Then a line's LRU depth can only shrink as
    /// the set count grows: the lines above it in a larger count's set are
    /// among those above it in the smaller's. A line on top of its set in
    /// one set count is so in every larger one, and a line found at depth
    /// `p` is no deeper than `p` in the larger ones.
    fn refines(c: &CacheConfig, set_counts: &[SetCount]) -> bool {
        matches!(c.index, IndexFn::BitSelect | IndexFn::SpaceHash) && set_counts.iter().all(|s| s.mask.is_some())
    }

    /// Set-count look-ups that set refinement answered without a search
    /// (a line on top of a smaller set count's set).
    pub fn refined(&self) -> u64 {
        self.refined
    }

    /// Whether a line's key and address space (its tag) fix its set in
    /// every set count, so that one stamp per line finds it in every
    /// stack: the index is taken from the address the tag is (both virtual
    /// or both physical), and a space-hashed index, which also reads the
    /// address space, only with the address space in the tag.
    fn stamped(c: &CacheConfig) -> bool {
        c.indexing.index_is_virtual() == c.indexing.tag_is_virtual() && (c.index != IndexFn::SpaceHash || c.asid_tags)
    }

    pub fn line_bytes(&self) -> u64 {
        self.line
    }

    /// Whether a reference of `kind` to `va` of `asid` is known to repeat
    /// the last line without translating it: then it is counted
    /// (`count_repeats`) and done.
    #[inline(always)]
    pub fn repeats(&self, kind: RefKind, va: VirtAddr, asid: Asid) -> bool {
        self.repeats_line(kind, va.0 >> self.shift, asid.0)
    }

    #[inline(always)]
    fn repeats_line(&self, kind: RefKind, vline: u64, asid: u32) -> bool {
        matches!(self.last, Some((v, _, a)) if v == vline && a == asid)
            && (kind != RefKind::Write || !self.write_back || self.last_dirty_everywhere)
    }

    /// `n` references of `kind`, `size` bytes each, that repeat the last
    /// line (`repeats`): depth 0 everywhere, a hit changing nothing.
    #[inline(always)]
    pub fn count_repeats(&mut self, kind: RefKind, n: u64, size: u64) {
        self.accesses[kind as usize] += n;
        if kind == RefKind::Write {
            self.writes += n;
            self.write_bytes += n * size;
        }
    }

    /// One request of `size` bytes within one line.
    #[inline]
    pub fn access(&mut self, kind: RefKind, r: LineRef, size: u64) {
        let (va, pa, asid) = (r.vaddr.0, r.paddr.0, r.asid.0);
        let (vline, pline) = (va >> self.shift, pa >> self.shift);
        if self.repeats_line(kind, vline, asid) && matches!(self.last, Some((_, p, _)) if p == pline) {
            self.count_repeats(kind, 1, size);
            return;
        }
        self.count_repeats(kind, 1, size);
        let c = &self.cfg;
        let key = if c.indexing.tag_is_virtual() { vline } else { pline };
        let tag_asid = if c.asid_tags { asid } else { 0 };
        let index_addr = if c.indexing.index_is_virtual() { va } else { pa };
        let whole_line = kind == RefKind::Write && size == self.line;
        let line = if self.stamped {
            self.clock += 1;
            Line::Stamped { previous: self.last_use.insert((key, tag_asid), self.clock), now: self.clock }
        } else {
            Line::Keyed { key, asid: tag_asid }
        };
        let mut everywhere = true;
        // The depth found in the largest set count so far (chain only).
        let mut bound = None;
        for s in &mut self.set_counts {
            let set = set_of(c, s.sets, s.mask, self.shift, index_addr, asid);
            if let (Some(0), Line::Stamped { now, .. }) = (bound, line) {
                self.refined += 1;
                everywhere &= s.access_top(set, now, kind, whole_line, self.write_back);
                continue;
            }
            let (found, dirty) = s.access(set, line, kind, whole_line, self.write_back, bound);
            everywhere &= dirty;
            if self.chain && found.is_some() {
                bound = found;
            }
        }
        self.last = Some((vline, pline, asid));
        self.last_dirty_everywhere = self.write_back && everywhere;
        if self.last_use.len() > self.prune_at {
            self.prune();
        }
    }

    /// Flushes the level in every configuration (write back and invalidate).
    pub fn flush(&mut self) {
        for s in &mut self.set_counts {
            let counts = s.flush(self.write_back);
            for (&(_, i), f) in s.members.iter().zip(counts) {
                self.flushed[i] += f;
            }
        }
        self.last = None;
        // Every stack is empty: no stamp can find a line any more.
        self.last_use.clear();
    }

    /// Drops the stamps of the lines that are in no stack: the next
    /// reference to such a line finds no stamp and misses everywhere, as
    /// its stamp, older than its sets' deepest entries, would have had it.
    /// A line is in a stack if its stamp is no older than the deepest
    /// entry's (an entry's stamp is never newer than its line's: a line on
    /// top of a larger set count keeps an older one there, which only keeps
    /// more). Then `prune_at` becomes twice what is left, so a prune over
    /// the map comes at most once per as many new lines: O(set counts) a
    /// new line, and the map holds at most twice the lines in the stacks
    /// (or `PRUNE_FLOOR`).
    fn prune(&mut self) {
        let (c, shift, set_counts) = (&self.cfg, self.shift, &self.set_counts);
        self.last_use.retain(|&(key, asid), &mut t| {
            set_counts.iter().any(|s| {
                let set = set_of(c, s.sets, s.mask, shift, key << shift, asid);
                let n = s.len[set] as usize;
                n > 0 && t >= s.entries[set * s.depth + n - 1].key
            })
        });
        self.prune_at = (2 * self.last_use.len()).max(PRUNE_FLOOR);
    }

    /// Lines whose latest stamp is held (bounded by `prune`).
    pub fn stamps_held(&self) -> usize {
        self.last_use.len()
    }

    /// Brings the write-backs up to date for `stats` (those of lines still
    /// in the stacks).
    pub fn settle(&mut self) {
        for s in &mut self.set_counts {
            s.settle();
        }
    }

    /// Configuration `i`'s counters, as `Cache::stats` would have them (after
    /// `settle`), and
    /// what it sent below: (line reads, bytes written, writes).
    pub fn stats(&self, i: usize) -> CacheStats {
        let (s, m) = self.place[i];
        let sc = &self.set_counts[s];
        let ways = sc.members[m].0;
        let mut st = CacheStats::default();
        for k in RefKind::ALL {
            let ks = st.kind_mut(k);
            ks.accesses = self.accesses[k as usize];
            ks.misses = sc.misses(k, ways);
        }
        let whole_line_misses: u64 = sc.whole_line_writes_at[ways as usize..].iter().sum();
        st.fetches = st.ifetch.misses + st.read.misses + st.write.misses - whole_line_misses;
        st.bytes_in = st.fetches * self.line;
        let flushed = self.flushed[i];
        st.writebacks = sc.writebacks(m) + flushed.dirty;
        st.bytes_out = st.writebacks * self.line;
        if !self.write_back {
            st.write_throughs = self.writes;
            st.bytes_out += self.write_bytes;
        }
        st.flushed = flushed;
        st
    }

    pub fn config(&self, i: usize) -> &CacheConfig {
        &self.configs[i]
    }

    pub fn len(&self) -> usize {
        self.configs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.configs.is_empty()
    }
}

/// The set of a line, as `Cache` computes it for a level of `sets` sets.
#[inline(always)]
fn set_of(c: &CacheConfig, sets: u64, mask: Option<u64>, shift: u32, addr: u64, asid: u32) -> usize {
    let line = addr >> shift;
    let hashed = match c.index {
        IndexFn::BitSelect => line,
        IndexFn::Xor => line ^ (line >> sets.trailing_zeros()),
        IndexFn::SpaceHash => {
            let space = u64::from(asid) & ((1u64 << c.space_hash_bits) - 1);
            (addr ^ (space << c.space_hash_at)) >> shift
        }
    };
    (match mask {
        Some(m) => hashed & m,
        None => hashed % sets,
    }) as usize
}
