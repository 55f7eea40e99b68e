//! One pass over a trace for every configuration of a sweep (`plan.rs`
//! says which configurations may share one). The swept cache is in the
//! last level (`LastLevel`: the swept `Level`, exact or sampled, and its fixed sibling in a
//! split level, an engine `Cache`); memory lies below it. The levels
//! above it run once, as a `vmlab_machine::Machine` of those levels
//! (`Machine::above_last_level`), with the loops a run of the whole machine
//! takes, and hand the last level what would reach it
//! (`Machine::feed_packed_into`, the last level a `Sink`). A machine of
//! one level has nothing above: the pass walks the last level itself
//! (`piece`). Requests move by the hierarchy's rules
//! (docs/reference-semantics.md, `vmlab_machine::hierarchy`): a request is
//! split into lines of the level it reaches; a miss fetches the whole line
//! below (an instruction miss's fill stays a fetch), then the
//! write-through, then the dirty victim's write-back; memory counts.
//!
//! Every configuration's `RunResult` equals `Machine::run`'s
//! (tests/onepass_vs_machine.rs), counter for counter.

use vmlab_addr::{Asid, PhysAddr, VirtAddr};
use vmlab_cache::{Cache, Flush, LineRef, Lookup, MissClasses, Outcome, RefKind};
use vmlab_machine::config::LevelConfig;
use vmlab_machine::mapper::{MapError, PageMapper};
use vmlab_machine::{
    decode_ahead, Compat, EventCounts, LevelResult, Machine, MachineConfig, MemoryStats, Progress, RunError, RunResult,
    Sink,
};
use vmlab_trace::vmt::packed::{asid_after, ADDR_BITS, ADDR_MASK, OPS, PACKED_ESCAPE};
use vmlab_trace::{AccessKind, Event, EventSource, FetchSkip, PackedBlock, TraceError};

use crate::plan::{pass_key, refusal};
use crate::shards::{Level, Sampling};

/// A cache of the last level: one simulated once, or the swept one.
#[derive(Debug)]
enum Slot {
    Fixed(Box<Cache>),
    Swept,
}

#[derive(Debug)]
enum Tier {
    Unified(Slot),
    Split { i: Slot, d: Slot },
}

impl Tier {
    fn serving(&mut self, kind: RefKind) -> &mut Slot {
        match self {
            Tier::Unified(s) => s,
            Tier::Split { i, .. } if kind == RefKind::Ifetch => i,
            Tier::Split { d, .. } => d,
        }
    }

    fn slots(&self) -> Vec<&Slot> {
        match self {
            Tier::Unified(s) => vec![s],
            Tier::Split { i, d } => vec![i, d],
        }
    }
}

/// The last level, in every configuration, over memory.
#[derive(Debug)]
struct LastLevel {
    tier: Tier,
    swept: Level,
    /// What the fixed cache of the last level sent to memory.
    memory: MemoryStats,
}

impl LastLevel {
    fn line_of(&mut self, kind: RefKind) -> u64 {
        match self.tier.serving(kind) {
            Slot::Fixed(c) => c.line_bytes(),
            Slot::Swept => self.swept.line_bytes(),
        }
    }

    /// A request of `size` bytes (within one page), one access per line.
    fn reach(&mut self, kind: RefKind, va: u64, pa: u64, asid: u32, size: u64) {
        let line = self.line_of(kind);
        let end = va + size;
        let mut a = va;
        while a < end {
            let chunk = ((a & !(line - 1)) + line).min(end) - a;
            self.access_line(kind, a, pa + (a - va), asid, chunk);
            a += chunk;
        }
    }

    /// One access within one line, with what it sends to memory.
    fn access_line(&mut self, kind: RefKind, va: u64, pa: u64, asid: u32, size: u64) {
        let r = LineRef { vaddr: VirtAddr(va), paddr: PhysAddr(pa), asid: Asid(asid) };
        match self.tier.serving(kind) {
            Slot::Swept => self.swept.access(kind, r, size),
            Slot::Fixed(c) => {
                let out = c.access(r, kind, size);
                let line = c.line_bytes();
                self.memory.send(&out, size, line);
            }
        }
    }

    /// Writes back and invalidates the level (its dirty lines to memory).
    fn flush(&mut self) {
        let slots: Vec<&mut Slot> = match &mut self.tier {
            Tier::Unified(s) => vec![s],
            Tier::Split { i, d } => vec![i, d],
        };
        for s in slots {
            match s {
                Slot::Fixed(c) => {
                    let (_, lines) = c.flush_all(Flush::WriteBack);
                    for _ in lines {
                        self.memory.write(c.line_bytes());
                    }
                }
                Slot::Swept => self.swept.flush(),
            }
        }
    }
}

/// What an outcome of a last-level cache sends to memory, in `Outcome`'s order.
trait SendDown {
    fn send(&mut self, out: &Outcome, size: u64, line: u64);
}

impl SendDown for MemoryStats {
    fn send(&mut self, out: &Outcome, size: u64, line: u64) {
        if out.fetch {
            self.read(line);
        }
        if out.write_through {
            self.write(size);
        }
        if out.writeback.is_some() {
            self.write(line);
        }
    }
}

impl Sink for LastLevel {
    fn request(&mut self, kind: RefKind, r: LineRef, bytes: u64) {
        self.reach(kind, r.vaddr.0, r.paddr.0, r.asid.0, bytes);
    }

    fn flush_all(&mut self) {
        self.flush();
    }
}

/// The top-level line the previous reference of a repeat slot touched (as
/// `Machine`'s repeat line): a reference within it that reads, or writes a
/// line already dirty, is a hit that changes nothing but a counter.
#[derive(Clone, Copy, Debug)]
struct Repeat {
    line: u64,
    asid: u32,
    dirty: bool,
}

const NO_REPEAT: Repeat = Repeat { line: u64::MAX, asid: u32::MAX, dirty: false };

/// Why a set of configurations cannot share a pass.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("machine {name}: no one-pass sweep of [{swept}]: {reason}")]
pub struct Refused {
    pub name: String,
    pub swept: String,
    pub reason: String,
}

#[derive(Debug)]
pub struct OnePass {
    configs: Vec<MachineConfig>,
    swept_name: String,
    /// The levels above the last, if any: they feed `last` through
    /// their own loops and translate with their own mapper.
    above: Option<Box<Machine>>,
    last: LastLevel,
    /// Cache names of the last level, I before D.
    names: Vec<String>,
    /// The rest is for a machine of one level, which the pass walks itself.
    mapper: PageMapper,
    access_counts: [u64; 4],
    context_switches: u64,
    flushes: u64,
    /// Per repeat slot (0: instructions or unified, 1: data of a split top).
    repeat: [Repeat; 2],
    top_shift: [u32; 2],
    d_slot: usize,
    fetch_skip: FetchSkip,
}

impl OnePass {
    /// A pass for `configs`, sweeping the cache named `swept`.
    pub fn new(configs: Vec<MachineConfig>, swept: &str) -> Result<Self, Refused> {
        Self::sampled(configs, swept, None)
    }

    /// The same, the swept cache simulated exactly (`None`) or sampled
    /// (`shards.rs`).
    pub fn sampled(configs: Vec<MachineConfig>, swept: &str, sampling: Option<Sampling>) -> Result<Self, Refused> {
        let refuse = |c: &MachineConfig, reason: String| Refused { name: c.name.clone(), swept: swept.into(), reason };
        let first = configs.first().ok_or_else(|| Refused {
            name: String::new(),
            swept: swept.into(),
            reason: "no configurations".into(),
        })?;
        let key = pass_key(first, swept);
        for c in &configs {
            if let Some(r) = refusal(c, swept) {
                return Err(refuse(c, r));
            }
            if pass_key(c, swept) != key {
                let reason = format!("it differs from machine {} in more than [{swept}] size and assoc", first.name);
                return Err(refuse(c, reason));
            }
        }
        let cache_of = |c: &MachineConfig| {
            c.caches().into_iter().find(|(n, _)| *n == swept).map(|(_, c)| c.clone()).unwrap_or_else(|| {
                // `refusal` has checked it is there.
                vmlab_cache::CacheConfig::simple(64, 64, 1)
            })
        };
        let swept_configs: Vec<_> = configs.iter().map(cache_of).collect();
        let level = Level::new(&swept_configs, sampling).map_err(|r| refuse(first, r))?;
        let level_configs = first.levels().map_err(|r| refuse(first, r))?;
        let build = |name: &str, c: &vmlab_cache::CacheConfig| -> Result<Slot, Refused> {
            if name == swept {
                return Ok(Slot::Swept);
            }
            Cache::new(c.clone(), MissClasses::Unsorted)
                .map(|c| Slot::Fixed(Box::new(c)))
                .map_err(|e| refuse(first, format!("[{name}]: {e}")))
        };
        // `refusal` has checked the swept cache is in the last level.
        let (tier, names) = match level_configs.last() {
            Some(LevelConfig::Unified { name, cache }) => (Tier::Unified(build(name, cache)?), vec![name.clone()]),
            Some(LevelConfig::Split { i_name, i, d_name, d }) => {
                (Tier::Split { i: build(i_name, i)?, d: build(d_name, d)? }, vec![i_name.clone(), d_name.clone()])
            }
            None => return Err(refuse(first, "no levels".into())),
        };
        let above = if level_configs.len() > 1 {
            let m = Machine::above_last_level(first.clone()).map_err(|e| refuse(first, e.to_string()))?;
            Some(Box::new(m))
        } else {
            None
        };
        let page = first.memory.page_size;
        let frames = first.memory.size.0 / page.bytes();
        let mapper = PageMapper::new(page, frames, first.memory.allocation, first.colours(), first.memory.seed);
        let unified_top = matches!(tier, Tier::Unified(_));
        let mut pass = Self {
            swept_name: swept.to_string(),
            above,
            last: LastLevel { tier, swept: level, memory: MemoryStats::default() },
            names,
            mapper,
            access_counts: [0; 4],
            context_switches: 0,
            flushes: 0,
            repeat: [NO_REPEAT; 2],
            top_shift: [0; 2],
            d_slot: if unified_top { 0 } else { 1 },
            fetch_skip: FetchSkip { line_shift: 0, across_data: !unified_top },
            configs,
        };
        pass.top_shift = [RefKind::Ifetch, RefKind::Read].map(|k| pass.last.line_of(k).trailing_zeros());
        pass.fetch_skip.line_shift = pass.top_shift[0];
        if let Some(fs) = pass.above.as_ref().and_then(|m| m.fetch_skip()) {
            pass.fetch_skip = fs;
        }
        Ok(pass)
    }

    /// The swept cache's name.
    pub fn swept(&self) -> &str {
        &self.swept_name
    }

    /// The inner loop the levels above the swept one run
    /// (`Machine::inner_loop`), or `one-level` when there are none and
    /// the pass walks the swept level itself.
    pub fn inner_loop(&self) -> &'static str {
        self.above.as_ref().map_or("one-level", |m| m.inner_loop())
    }

    /// Set-count look-ups of the swept cache that set refinement answered
    /// without a search (`SweptLevel::refined`).
    pub fn refined(&self) -> u64 {
        self.last.swept.refined()
    }

    /// Lines of the swept cache whose latest stamp the pass holds: at most
    /// twice the lines in its stacks, or 1,024 (`SweptLevel::prune`).
    pub fn stamps_held(&self) -> usize {
        self.last.swept.stamps_held()
    }

    /// The sampling of the swept cache, `None` when exact.
    pub fn sampling(&self) -> Option<Sampling> {
        self.last.swept.sampling()
    }

    /// One reference of one request kind: one piece per top-level line.
    #[inline]
    fn reference(&mut self, kind: RefKind, asid: u32, va: u64, size: u64) -> Result<(), MapError> {
        let slot = if kind == RefKind::Ifetch { 0 } else { self.d_slot };
        let shift = self.top_shift[slot];
        let last = va.saturating_add(size.max(1) - 1);
        let mut a = va;
        loop {
            let piece_last = last.min(((a >> shift) + 1).wrapping_shl(shift).wrapping_sub(1));
            self.piece(kind, slot, shift, asid, a, piece_last - a + 1)?;
            if piece_last >= last {
                return Ok(());
            }
            a = piece_last + 1;
        }
    }

    /// One access within one top-level line. Translating every piece maps
    /// pages in the order `Machine` does: it skips translation only on a
    /// hit that proves the page was touched before.
    #[inline]
    fn piece(&mut self, kind: RefKind, slot: usize, shift: u32, asid: u32, va: u64, size: u64) -> Result<(), MapError> {
        let ln = va >> shift;
        let last = &mut self.last;
        match last.tier.serving(kind) {
            Slot::Swept if last.swept.repeats(kind, VirtAddr(va), Asid(asid)) => {
                last.swept.count_repeats(kind, 1, size);
                return Ok(());
            }
            Slot::Fixed(c) => {
                let r = self.repeat[slot];
                if ln == r.line && asid == r.asid && (kind != RefKind::Write || r.dirty) {
                    c.count_repeat_hits(kind, 1);
                    return Ok(());
                }
            }
            Slot::Swept => {}
        }
        let pa = self.mapper.translate(Asid(asid), VirtAddr(va))?;
        let r = LineRef { vaddr: VirtAddr(va), paddr: pa, asid: Asid(asid) };
        let Slot::Fixed(c) = last.tier.serving(kind) else {
            last.swept.access(kind, r, size);
            return Ok(());
        };
        let write_breaks = kind == RefKind::Write && !c.repeat_after_write_is_exact();
        let resident = match c.lookup(r, kind) {
            Lookup::Hit(dirty) => Some(dirty),
            look => {
                let out = match look {
                    Lookup::Miss { set, key } => c.access_missed(set, key, r, kind, size),
                    _ => c.access(r, kind, size),
                };
                last.memory.send(&out, size, c.line_bytes());
                out.resident_dirty
            }
        };
        self.repeat[slot] = match resident {
            Some(dirty) if !write_breaks => Repeat { line: ln, asid, dirty },
            _ => NO_REPEAT,
        };
        Ok(())
    }

    /// Applies one event to a machine of one level.
    fn step(&mut self, ev: &Event) -> Result<(), MapError> {
        match ev {
            Event::Access(a) => {
                let k = a.kind as usize & 3;
                self.access_counts[k] += 1;
                self.access(a.kind, a.asid.0, a.addr.0, u64::from(a.size.max(1)))
            }
            Event::ContextSwitch(_) => {
                self.context_switches += 1;
                Ok(())
            }
            Event::FlushAll => {
                self.flushes += 1;
                self.repeat = [NO_REPEAT; 2];
                self.last.flush();
                Ok(())
            }
            // Markers for the OS models; no cache sees them.
            Event::Syscall(_) | Event::SyscallArg(_) => Ok(()),
        }
    }

    #[inline]
    fn access(&mut self, kind: AccessKind, asid: u32, va: u64, size: u64) -> Result<(), MapError> {
        match kind {
            AccessKind::Ifetch => self.reference(RefKind::Ifetch, asid, va, size),
            AccessKind::Load => self.reference(RefKind::Read, asid, va, size),
            AccessKind::Store => self.reference(RefKind::Write, asid, va, size),
            AccessKind::Modify => {
                self.reference(RefKind::Read, asid, va, size)?;
                self.reference(RefKind::Write, asid, va, size)
            }
        }
    }

    /// Applies a packed block (`first` numbers its first event).
    pub fn feed_packed(&mut self, block: &PackedBlock, origin: &str, first: u64) -> Result<(), RunError> {
        if let Some(m) = &mut self.above {
            return m.feed_packed_into(block, origin, first, &mut self.last);
        }
        if block.skipped > 0 && !block.fetch_skip.is_some_and(|g| g.within(self.fetch_skip)) {
            return Err(RunError::FetchSkip {
                trace: origin.to_string(),
                first,
                skipped: block.skipped,
                given: block.fetch_skip,
                allowed: Some(self.fetch_skip),
            });
        }
        let memory_error = |i: usize, source| RunError::Memory {
            trace: origin.into(),
            event: first + i as u64,
            dropped: block.skipped,
            source,
        };
        let mut extra = block.extra.iter();
        let mut asid = Asid(0);
        for (i, &w) in block.words().iter().enumerate() {
            let op = (w >> ADDR_BITS) as u8;
            let Some(&(kind, size)) = OPS.get(usize::from(op)).filter(|_| op != PACKED_ESCAPE) else {
                let Some(ev) = extra.next() else {
                    return Err(RunError::Trace(TraceError::new(
                        origin,
                        vmlab_trace::Location::File,
                        format!("malformed packed block: escape word {i} has no event"),
                    )));
                };
                asid = asid_after(ev, asid);
                self.step(ev).map_err(|e| memory_error(i, e))?;
                continue;
            };
            self.access_counts[kind as usize & 3] += 1;
            self.access(kind, asid.0, w & ADDR_MASK, u64::from(size.max(1))).map_err(|e| memory_error(i, e))?;
        }
        // Dropped fetches repeat the top instruction cache's latest line.
        self.access_counts[AccessKind::Ifetch as usize] += block.skipped;
        if block.skipped > 0 {
            match self.last.tier.serving(RefKind::Ifetch) {
                Slot::Fixed(c) => c.count_repeat_hits(RefKind::Ifetch, block.skipped),
                Slot::Swept => self.last.swept.count_repeats(RefKind::Ifetch, block.skipped, 0),
            }
        }
        Ok(())
    }

    /// Applies events (packed as the `.vmt` reader would).
    pub fn feed(&mut self, events: &[Event], origin: &str, first: u64) -> Result<(), RunError> {
        PackedBlock::with_fetch_skip(Some(self.fetch_skip))
            .feed_events(events, first, |b, n| self.feed_packed(b, origin, n))
    }

    /// Runs a whole trace, decoding on a second thread a few blocks ahead
    /// (as `Machine::run`); `progress` is called after every block and
    /// stops the run with an `Err`.
    pub fn run(
        &mut self,
        src: &mut dyn EventSource,
        origin: &str,
        progress: &mut dyn FnMut(Progress) -> Result<(), String>,
    ) -> Result<Vec<RunResult>, RunError> {
        // The source may drop the fetches this pass only counts.
        decode_ahead(src, Some(self.fetch_skip), progress, |buf, n| self.feed_packed(buf, origin, n))?;
        Ok(self.results(origin))
    }

    /// Every configuration's result so far, in the order given to `new`.
    pub fn results(&mut self, origin: &str) -> Vec<RunResult> {
        self.last.swept.settle();
        // The levels above, counted once: the same in every configuration.
        let (events, above, memory, pages_mapped) = match &mut self.above {
            Some(m) => {
                let r = m.result(origin);
                (r.events, r.caches, MemoryStats::default(), r.pages_mapped)
            }
            None => {
                let events = EventCounts::from_accesses(self.access_counts, self.context_switches, self.flushes);
                (events, Vec::new(), MemoryStats::default(), self.mapper.pages_mapped())
            }
        };
        let mut memory = memory;
        memory.reads += self.last.memory.reads;
        memory.writes += self.last.memory.writes;
        memory.bytes_read += self.last.memory.bytes_read;
        memory.bytes_written += self.last.memory.bytes_written;
        (0..self.configs.len())
            .map(|i| {
                let mut memory = memory;
                // This configuration's own tables: equal but for names and sources.
                let own = |name: &str, fallback: &vmlab_cache::CacheConfig| {
                    self.configs[i]
                        .caches()
                        .into_iter()
                        .find(|(n, _)| *n == name)
                        .map_or_else(|| fallback.clone(), |(_, own)| own.clone())
                };
                let mut caches: Vec<LevelResult> =
                    above.iter().map(|l| LevelResult { config: own(&l.name, &l.config), ..l.clone() }).collect();
                for (s, name) in self.last.tier.slots().into_iter().zip(&self.names) {
                    caches.push(match s {
                        Slot::Fixed(c) => LevelResult {
                            name: name.clone(),
                            indexing: c.indexing(),
                            config: own(name, c.config()),
                            stats: *c.stats(),
                        },
                        Slot::Swept => {
                            let stats = self.last.swept.stats(i);
                            // The swept cache is in the last level: what it sends goes to memory.
                            memory.reads += stats.fetches;
                            memory.bytes_read += stats.bytes_in;
                            memory.writes += stats.writebacks + stats.write_throughs;
                            memory.bytes_written += stats.bytes_out;
                            let config = self.last.swept.config(i).clone();
                            LevelResult { name: name.clone(), indexing: config.indexing, config, stats }
                        }
                    });
                }
                RunResult {
                    machine: self.configs[i].clone(),
                    trace: origin.to_string(),
                    events,
                    instructions: events.ifetch,
                    caches,
                    memory,
                    pages_mapped,
                    // One pass follows vmlab's own rules only (the planner
                    // is never asked for a compatibility mode).
                    compat: Compat::Vmlab,
                    // `MachineConfig::levels` refuses data-only machines.
                    fetches_not_simulated: 0,
                }
            })
            .collect()
    }
}
