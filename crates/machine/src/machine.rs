//! The trace replayer: a one-CPU `System` whose levels are all the CPU's
//! own, the page mapper that translates for it, and the loop that feeds
//! them events. Every reference walks down the stack once, through the
//! public path (`Hierarchy::request`) or through one of its fast paths
//! (`hit_loop`, the repeat line below), which change exactly what it
//! changes (tests/engine_vs_naive.rs).

use vmlab_addr::{Asid, CpuId, PhysAddr, VirtAddr};
use vmlab_cache::{Flush, FlushStats, HitCheck, LineRef, Lookup, RefKind, WriteMissPolicy};
use vmlab_mmu::{Switch, Switched};
use vmlab_trace::vmt::packed::{ADDR_BITS, ADDR_MASK, OPS};
use vmlab_trace::{Access, AccessKind, Event, EventSource, FetchSkip, PackedBlock, TraceError};

use crate::compat::Compat;
use crate::config::{LevelConfig, MachineConfig};
use crate::decode_ahead::decode_ahead;
use crate::hierarchy::{Hierarchy, Sink, ToMemory, Under};
use crate::hit_loop::{self, Borrowed, DirectOp, HitLoop, WrittenThrough};
use crate::mapper::{MapError, PageMapper};
use crate::preset::ConfigError;
use crate::request::Request;
use crate::result::{EventCounts, LevelResult, RunResult};
use crate::system::System;

#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    Trace(#[from] TraceError),
    /// `dropped`: instruction fetches the block lost under its
    /// `FetchSkip` (`PackedBlock::skipped`), which may lie before the
    /// failing word, so the event number is only known within a range.
    #[error("{trace}: {}: {source}", event_at(*event, *dropped))]
    Memory { trace: String, event: u64, dropped: u64, source: MapError },
    /// A block whose source dropped instruction fetches under a rule this
    /// machine cannot count exactly (`Machine::fetch_skip`).
    #[error(
        "{trace}: block starting at event {first}: {skipped} instruction fetches were dropped under \
         {given:?}, but this machine allows only {allowed:?} (a line shift of at most the top \
         instruction cache's, across data only for a split top level)"
    )]
    FetchSkip { trace: String, first: u64, skipped: u64, given: Option<FetchSkip>, allowed: Option<FetchSkip> },
    #[error("interrupted after {events} events: {reason}")]
    Interrupted { events: u64, reason: String },
}

impl RunError {
    /// Word `word` of `block` (whose first event is `first`) ran out of memory.
    fn memory(origin: &str, block: &PackedBlock, first: u64, word: usize, source: MapError) -> Self {
        RunError::Memory { trace: origin.to_string(), event: first + word as u64, dropped: block.skipped, source }
    }
}

/// Names the event of a failing word: exactly when its block dropped no
/// fetches, else the range it must lie in (the dropped fetches may all
/// precede it or all follow it; which is not recorded).
fn event_at(event: u64, dropped: u64) -> String {
    if dropped == 0 {
        format!("event {event}")
    } else {
        format!(
            "an event in {event}..={} (its block dropped {dropped} instruction fetches, not known whether before or after it)",
            event + dropped
        )
    }
}

/// A flush or purge range that passes the last address, 2^64 - 1.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the {} range of {len} bytes at {:#x} passes the last address, 0xffffffffffffffff", start.space(), start.bits())]
pub struct RangeError {
    pub start: RangeStart,
    pub len: u64,
}

/// Where a refused flush range starts, in the space it was given in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RangeStart {
    Virtual(VirtAddr),
    Physical(PhysAddr),
}

impl RangeStart {
    fn space(self) -> &'static str {
        match self {
            RangeStart::Virtual(_) => "virtual",
            RangeStart::Physical(_) => "physical",
        }
    }
    fn bits(self) -> u64 {
        match self {
            RangeStart::Virtual(va) => va.0,
            RangeStart::Physical(pa) => pa.0,
        }
    }
}

/// The last address of `[start, start + len)`, `None` for an empty range.
fn range_last(start: RangeStart, len: u64) -> Result<Option<u64>, RangeError> {
    if len == 0 {
        return Ok(None);
    }
    start.bits().checked_add(len - 1).map(Some).ok_or(RangeError { start, len })
}

/// Progress of a run, handed to the caller's callback between blocks.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    pub events: u64,
    pub bytes_read: u64,
    pub bytes_total: Option<u64>,
}

/// The line the previous access to a top-level cache touched, if it is still
/// resident. A reference that repeats it is a hit that changes no replacement
/// or 3C-shadow state under any policy (the line is already the most recent),
/// so only a counter moves. A write repeats only onto a line already dirty in
/// a write-back cache; a write-through cache never records `dirty`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RepeatLine {
    pub line: u64,
    pub asid: Asid,
    pub dirty: bool,
}

pub(crate) const NO_LINE: RepeatLine = RepeatLine { line: u64::MAX, asid: Asid(u32::MAX), dirty: false };

/// One request kind of a reference at the top level: the kind, the repeat
/// slot of the top cache that serves it (`Machine::repeat`) and that
/// cache's line shift.
#[derive(Clone, Copy, Debug)]
struct TopRequest {
    kind: RefKind,
    slot: usize,
    shift: u32,
}

/// A packed block being fed and where it lies: the trace's name and the
/// index of the block's first event, which an error names.
#[derive(Clone, Copy)]
struct BlockAt<'b> {
    block: &'b PackedBlock,
    origin: &'b str,
    first: u64,
}

/// The replayer's one CPU.
const CPU: CpuId = CpuId(0);

/// What a trace's context switch does here (`vmlab_mmu::switch`): nothing.
/// The replayer models the hardware alone, as Dinero IV does, with no OS
/// to flush a cache or purge a TLB; the switch is counted.
const SWITCH: Switch = Switch::Keep;

const KINDS: [AccessKind; 4] = AccessKind::ALL;
const MODIFY: usize = AccessKind::Modify as usize;
const IFETCH: usize = AccessKind::Ifetch as usize;

/// Per `AccessKind` (ifetch, load, store, modify): the request kind it starts with.
const FIRST_KIND: [RefKind; 4] = [RefKind::Ifetch, RefKind::Read, RefKind::Write, RefKind::Read];

#[derive(Debug)]
pub struct Machine {
    config: MachineConfig,
    /// One CPU (`CPU`), every level its own, over memory: the fast paths
    /// borrow its levels directly, which is exact only because no other
    /// CPU and no shared level exists.
    system: System,
    mapper: PageMapper,
    /// Events by `AccessKind` index, then context switches and flushes.
    access_counts: [u64; 4],
    context_switches: u64,
    flushes: u64,
    /// Per access kind: which repeat slot (0, or 1 for data in a split top
    /// level) and the top-level line shift.
    slot_of: [usize; 4],
    shift_of: [u32; 4],
    repeat: [RepeatLine; 2],
    /// Per request kind: whether the top-level cache serving it needs a
    /// translation before a hit can be looked up.
    top_needs_translation: [bool; 3],
    /// Repeat hits not yet added to the top-level caches' counters, by
    /// `AccessKind` index (a modify is a read and a write of the data side).
    pending: [u64; 4],
    /// Whether a write leaves no repeat line behind (see
    /// `Cache::repeat_after_write_is_exact`).
    write_breaks_repeat: bool,
    /// Per packed op (`vmlab_trace::vmt::packed::OPS`): what the inner loop
    /// needs, looked up once per event instead of matched field by field.
    ops: [OpInfo; 256],
    /// The same ops as the virtual-direct loop reads them, with the hits it
    /// counted per op, not yet in `access_counts` and `pending` (`settle`).
    direct_ops: Box<[DirectOp; 256]>,
    /// The associative loop's memos (`hit_loop::run`): most recent lines and where lines live.
    mru: Box<hit_loop::MruStore>,
    /// The virtual-direct loop's copy of its top caches' lines.
    set_lines: Vec<u64>,
    /// Reused by `feed` to pack events for `feed_packed`.
    scratch: PackedBlock,
    hit_loop: HitLoop,
    /// Which instruction fetches a source may drop (`fetch_skip`).
    fetch_skip: Option<FetchSkip>,
    /// Whose counting rules this machine follows (`with_compat`).
    compat: Compat,
    /// The shortest line of any cache: Cachegrind cuts a data reference to
    /// it (`access_whole`).
    min_line: u64,
    /// A data-only machine (`MachineConfig::data_only`): no fetch enters
    /// a loop or a cache; each is only counted, in `fetches_not_simulated`.
    data_only: bool,
    fetches_not_simulated: u64,
    /// Writes to a write-through top cache that the associative loop
    /// completed itself (`hit_loop::write_through_word`), not through `word`.
    written_through: WrittenThrough,
    /// Reused by `feed_data_only` for a block's words without its fetches.
    data_words: PackedBlock,
}

/// One packed op as the inner loop sees it; 16 bytes, copied in two moves.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(16))]
pub(crate) struct OpInfo {
    pub size: u32,
    /// `size - 1`, the offset of the last byte.
    pub span: u32,
    /// `AccessKind` index.
    pub k: u8,
    /// Repeat slot and top-level line shift of the cache serving it.
    pub slot: u8,
    pub shift: u8,
    /// The escape op, or one no packed block holds.
    pub escape: bool,
}

impl Machine {
    pub fn new(config: MachineConfig) -> Result<Self, ConfigError> {
        let err = |m: String| ConfigError { origin: format!("machine {}", config.name), line: None, message: m };
        let levels = config.levels_for_replay().map_err(err)?;
        Self::with_levels(config, &levels)
    }

    /// The levels of `config` above its last, for a run whose last level
    /// is simulated by a `Sink` (`feed_packed_into`): the same loops as
    /// the whole machine's, chosen from the same top level; the results
    /// (`result`) name these levels' caches alone, and memory is what they
    /// sent the sink. A machine of one level is refused.
    pub fn above_last_level(config: MachineConfig) -> Result<Self, ConfigError> {
        let err = |m: String| ConfigError { origin: format!("machine {}", config.name), line: None, message: m };
        let mut levels = config.levels_for_replay().map_err(err)?;
        if levels.len() < 2 {
            return Err(err("a machine of one level has no level above its last".into()));
        }
        levels.pop();
        Self::with_levels(config, &levels)
    }

    fn with_levels(config: MachineConfig, levels: &[LevelConfig]) -> Result<Self, ConfigError> {
        let err = |m: String| ConfigError { origin: format!("machine {}", config.name), line: None, message: m };
        let data_only = config.data_only();
        let mut system = System::new(1, levels, &[], config.stats.miss_classes()).map_err(|e| err(e.to_string()))?;
        let hierarchy = system.levels_mut(CPU);
        let page = config.memory.page_size;
        let frames = config.memory.size.0 / page.bytes();
        let mapper = PageMapper::new(page, frames, config.memory.allocation, config.colours(), config.memory.seed);
        let i_shift = hierarchy.top_line(RefKind::Ifetch).trailing_zeros();
        let d_shift = hierarchy.top_line(RefKind::Read).trailing_zeros();
        let d_slot = if hierarchy.top_is_unified() { 0 } else { 1 };
        let top_needs_translation = RefKind::ALL.map(|k| hierarchy.top_mut(k).hit_needs_translation());
        let write_breaks_repeat = !hierarchy.top_mut(RefKind::Write).repeat_after_write_is_exact();
        let ops = std::array::from_fn(|op| {
            let (kind, size, escape) = match OPS.get(op) {
                Some(&(kind, size)) => (kind, size, false),
                None => (AccessKind::Ifetch, 1, true),
            };
            let k = kind as usize & 3;
            let slot = if k == 0 { 0 } else { d_slot };
            let shift = if k == 0 { i_shift } else { d_shift };
            OpInfo { size, span: size.max(1) - 1, k: k as u8, slot: slot as u8, shift: shift as u8, escape }
        });
        let mut hit_loop = match [hierarchy.top_slot(0).read_hit_check(), hierarchy.top_slot(d_slot).read_hit_check()] {
            [Some(i), Some(d)] if [i, d].iter().all(|c| c.direct() && c.virtual_tags() && c.writes_in_place()) => {
                HitLoop::VirtualDirect([i, d])
            }
            [Some(i), Some(d)] => HitLoop::Assoc([i, d]),
            _ => HitLoop::General,
        };
        // A fetch that `FetchSkip` lets a source drop repeats the line the
        // previous fetch word left in the top instruction (or unified)
        // cache, `i_shift`. Counting it as a hit there is exact for every
        // machine this crate builds, 3C shadows included:
        // * that line is resident and the most recent of its set: a fetch is
        //   a read, and a read always allocates (a hit touches the line, a
        //   fill stamps it or, under tree-PLRU, touches it); in a 3C shadow
        //   the fetch was shown as allocating, so the line is the shadow's
        //   most recent too;
        // * nothing between can evict it or reorder its set: no escape (no
        //   flush, address-space change or unusual access), other fetches
        //   only to the same line (dropped too), and data words only when
        //   the top level is split, where they reach the data cache and the
        //   levels below, and nothing below reaches back into a top cache
        //   (hierarchy.rs has no inclusion, back-invalidation or I/D
        //   coherence);
        // * a hit on the most recent line changes no state: LRU re-stamps
        //   the newest line (the order stays), the tree-PLRU touch is
        //   idempotent, FIFO and random do nothing on a hit, the LRU shadow
        //   moves its head to the head, a read sets no dirty bit;
        // * no translation is missed: a line lies within one page (the
        //   configuration checks line <= page), which the earlier fetch has
        //   already mapped, so the first-touch mapper would allocate nothing.
        // This is the general loop's repeat-line shortcut, which counts these
        // very fetches as repeats (repeat slot 0 is the instruction cache's
        // alone when the top is split); on such a hit the inline loops'
        // `probe` only re-stamps the newest line under LRU (a later clock
        // value, the order unchanged; only the order is ever read).
        // A unified top gets no `across_data`: a data word may evict the line.
        // (A top level whose hits change state, a prefetch on hit say, would
        // need `None` here: no fetch may be dropped.)
        // A data-only machine's source may drop every fetch: none is
        // simulated, so which are dropped changes nothing but where the
        // count is made, and a block without fetch words goes to the loop
        // as it is (`feed_data_only`).
        let fetch_skip = Some(if data_only {
            FetchSkip::EVERY_FETCH
        } else {
            FetchSkip { line_shift: i_shift, across_data: !hierarchy.top_is_unified() }
        });
        let min_line = hierarchy.caches().iter().map(|(_, c)| c.line_bytes()).min().unwrap_or(u64::MAX);
        let mut direct_ops = Box::new(DirectOp::table(&ops));
        let mut set_lines = Vec::new();
        match hit_loop {
            HitLoop::Assoc(c) => {
                // The sides the loop completes in their one slot
                // (`hit_loop::run`'s `slot_view`; `top_in_one_slot`
                // is that run's `takes_fills_above`).
                let wide =
                    [0, d_slot].map(|s| hierarchy.top_in_one_slot() && hierarchy.top_slot(s).is_physical_direct());
                hit_loop::set_mru_masks(&mut direct_ops, hit_loop::mru_masks(&c, mapper.page_size(), wide))
            }
            HitLoop::VirtualDirect(c) => match hit_loop::set_set_lines(&mut direct_ops, &c) {
                Some(len) => set_lines = vec![u64::MAX; len],
                // A copy too large to index in 32 bits: the general path.
                None => hit_loop = HitLoop::General,
            },
            _ => {}
        }
        Ok(Self {
            config,
            system,
            mapper,
            access_counts: [0; 4],
            context_switches: 0,
            flushes: 0,
            slot_of: [0, d_slot, d_slot, d_slot],
            shift_of: [i_shift, d_shift, d_shift, d_shift],
            repeat: [NO_LINE; 2],
            top_needs_translation,
            pending: [0; 4],
            write_breaks_repeat,
            direct_ops,
            mru: hit_loop::MruStore::new(),
            set_lines,
            ops,
            scratch: PackedBlock::default(),
            hit_loop,
            fetch_skip,
            compat: Compat::Vmlab,
            min_line,
            data_only,
            fetches_not_simulated: 0,
            written_through: WrittenThrough::default(),
            data_words: PackedBlock::default(),
        })
    }

    /// This machine under another simulator's counting rules
    /// (`crate::compat`). Cachegrind counts a reference once per level
    /// whatever lines it touches, which gives a miss no single line to
    /// classify: a machine with `stats.classify_misses` is refused.
    pub fn with_compat(mut self, compat: Compat) -> Result<Self, ConfigError> {
        if compat.counts_whole_references() && self.config.stats.classify_misses {
            return Err(ConfigError {
                origin: format!("machine {}", self.config.name),
                line: None,
                message: format!(
                    "compatibility mode {compat} counts one miss per reference, which may span lines that missed for \
                     different reasons, so it has no 3C classes: set stats.classify_misses = false"
                ),
            });
        }
        self.compat = compat;
        Ok(self)
    }

    pub fn compat(&self) -> Compat {
        self.compat
    }

    pub fn from_preset(name_or_path: &str, overrides: &[String]) -> Result<Self, ConfigError> {
        Self::new(crate::preset::load(name_or_path, overrides)?)
    }

    /// Which inner loop runs this machine's references: `direct` or
    /// `associative` (top-level hits checked in place) or `general`.
    pub fn inner_loop(&self) -> &'static str {
        match self.hit_loop {
            HitLoop::General => "general",
            HitLoop::VirtualDirect(_) => "virtual-direct",
            HitLoop::Assoc(_) => "associative",
        }
    }

    /// How many writes to a write-through top cache (one line each) the
    /// associative loop completed in place rather than through the general
    /// steps: a diagnostic, so tests can assert that path is taken.
    pub fn writes_through_in_loop(&self) -> u64 {
        self.written_through.in_loop
    }

    /// How many of the writes a write-through top cache passed to the
    /// level under it (of several ways) hit there after a search of the
    /// set; the others that hit were found at the frame where the previous
    /// one was (`Below::written_through`). A diagnostic, so tests can
    /// assert that path is taken: counting the searches, the slow path,
    /// costs the loop nothing measurable, counting the others did.
    pub fn writes_below_searched(&self) -> u64 {
        self.written_through.searched_below
    }

    /// The instruction fetches a source may drop from the blocks it hands
    /// this machine (`PackedBlock::fetch_skip`): fetches within the line of
    /// the top instruction (or unified) cache that the previous fetch word
    /// left, across data words only for a split top level; every fetch
    /// for a data-only machine (`FetchSkip::EVERY_FETCH`). `None` would
    /// mean that no fetch may be dropped; every machine this crate builds
    /// allows it (see `new` for why counting them as hits is exact).
    pub fn fetch_skip(&self) -> Option<FetchSkip> {
        self.fetch_skip
    }

    /// Whether a block dropped fetches under `given` may be counted exactly
    /// here: a shorter line than the machine's is a part of one of its lines
    /// (lines are aligned powers of two), and a source that stopped at data
    /// words dropped a subset of what `across_data` would allow.
    fn allows(&self, given: Option<FetchSkip>) -> bool {
        match (given, self.fetch_skip) {
            (Some(g), Some(m)) => g.within(m),
            _ => false,
        }
    }

    /// Whether every miss below the top level is completed by the
    /// specialised miss chain (`Hierarchy::misses_fill_in_place`).
    pub fn misses_fill_in_place(&self) -> bool {
        self.system.cpu(CPU).levels().misses_fill_in_place()
    }

    /// Whether the top level's misses are completed in one level of
    /// direct-mapped, physically indexed and tagged caches by one slot
    /// compare per request (`Hierarchy::misses_through_physical_lower`:
    /// the associative loop's misses, and those the other loops leave to
    /// the general steps): a diagnostic, so tests can assert that path is
    /// taken.
    pub fn misses_through_physical_lower(&self) -> bool {
        self.system.cpu(CPU).levels().misses_through_physical_lower()
    }

    /// Whether the virtual-direct loop completes its top misses' fetches
    /// and write-backs through views of one level of direct-mapped VIVT
    /// caches over memory (`Hierarchy::misses_through_direct_lower`): a
    /// diagnostic, so tests can assert that path is taken.
    pub fn misses_through_direct_lower(&self) -> bool {
        matches!(self.hit_loop, HitLoop::VirtualDirect(_))
            && self.system.cpu(CPU).levels().misses_through_direct_lower()
    }

    /// Whether the associative loop completes some top cache's words
    /// past its memo of recent lines in that cache's one slot per set
    /// (`Hierarchy::top_in_one_slot`: direct-mapped PIPT, filling in
    /// place): a diagnostic, so tests can assert that path is taken.
    pub fn top_in_one_slot(&self) -> bool {
        matches!(self.hit_loop, HitLoop::Assoc(_)) && self.system.cpu(CPU).levels().top_in_one_slot()
    }

    pub fn config(&self) -> &MachineConfig {
        &self.config
    }

    /// The hierarchy, with every counter up to date.
    pub fn hierarchy(&mut self) -> &Hierarchy {
        self.settle();
        self.system.cpu(CPU).levels()
    }

    pub fn mapper_mut(&mut self) -> &mut PageMapper {
        self.forget_repeats();
        &mut self.mapper
    }

    /// Adds the pending repeat hits to the top-level caches' counters.
    fn settle(&mut self) {
        hit_loop::fold(&mut self.direct_ops, &mut self.access_counts, &mut self.pending);
        let [ifetch, load, store, modify] = std::mem::take(&mut self.pending);
        for (k, n) in [(RefKind::Ifetch, ifetch), (RefKind::Read, load + modify), (RefKind::Write, store + modify)] {
            if n > 0 {
                // The cache serving `k` is the one the hits happened in.
                self.system.levels_mut(CPU).top_mut(k).count_repeat_hits(k, n);
            }
        }
    }

    fn forget_repeats(&mut self) {
        self.settle();
        self.repeat = [NO_LINE; 2];
    }

    /// Makes `alias` in `alias_asid` a synonym of `owner` in `owner_asid`.
    pub fn share_page(
        &mut self,
        owner_asid: Asid,
        owner: VirtAddr,
        alias_asid: Asid,
        alias: VirtAddr,
    ) -> Result<(), MapError> {
        let page = self.mapper.page_size();
        self.forget_repeats();
        self.mapper.share(owner_asid, page.vpn(owner), alias_asid, page.vpn(alias)).map(|_| ())
    }

    pub fn translate(&mut self, asid: Asid, va: VirtAddr) -> Result<PhysAddr, MapError> {
        self.mapper.translate(asid, va)
    }

    /// One request kind of one reference: one access per top-level line it
    /// touches (a line never crosses a page, so each piece has one
    /// translation). A piece that hits and sends nothing down is finished at
    /// the top level; any other walks the hierarchy.
    #[inline(always)]
    fn reference<U: Under + ?Sized>(&mut self, top: TopRequest, a: &Access, under: &mut U) -> Result<(), MapError> {
        let va = a.addr.0;
        let last = va.saturating_add(u64::from(a.size.max(1)) - 1);
        if last >> top.shift == va >> top.shift {
            return self.piece(top, a.asid, va, last - va + 1, under);
        }
        self.reference_split(top, a.asid, va, last, under)
    }

    #[inline(never)]
    fn reference_split<U: Under + ?Sized>(
        &mut self,
        top: TopRequest,
        asid: Asid,
        mut va: u64,
        last: u64,
        under: &mut U,
    ) -> Result<(), MapError> {
        let TopRequest { kind, slot, shift } = top;
        // The first piece may repeat the cache's last line (an instruction
        // straddling into the next line, say): then it is a repeat hit, as in
        // `feed`, and only a counter moves. `pending` by `AccessKind` index
        // doubles as by `RefKind` (ifetch, read, write = 0, 1, 2).
        let ln = va >> shift;
        let r = &self.repeat[slot];
        if ln == r.line && asid == r.asid && (kind != RefKind::Write || r.dirty) {
            self.pending[kind as usize] += 1;
            // The reference crosses a line, so this is at most `last`.
            va = (ln + 1) << shift;
        }
        loop {
            let ln = va >> shift;
            let piece_last = last.min(((ln + 1) << shift).wrapping_sub(1));
            self.piece(top, asid, va, piece_last - va + 1, under)?;
            if piece_last >= last {
                return Ok(());
            }
            va = piece_last + 1;
        }
    }

    /// One access within one top-level line.
    #[inline(always)]
    fn piece<U: Under + ?Sized>(
        &mut self,
        top: TopRequest,
        asid: Asid,
        va: u64,
        size: u64,
        under: &mut U,
    ) -> Result<(), MapError> {
        let TopRequest { kind, slot, shift } = top;
        let needs_translation = self.top_needs_translation[kind as usize];
        let pa = if needs_translation { self.mapper.translate(asid, VirtAddr(va))? } else { PhysAddr(0) };
        let r = LineRef { vaddr: VirtAddr(va), paddr: pa, asid };
        let ln = va >> shift;
        let line = match self.system.levels_mut(CPU).top_mut(kind).lookup(r, kind) {
            Lookup::Hit(dirty) => RepeatLine { line: ln, asid, dirty },
            look => match self.piece_below(look, kind, r, needs_translation, size, under)? {
                Some(dirty) => RepeatLine { line: ln, asid, dirty },
                None => NO_LINE,
            },
        };
        self.repeat[slot] = if kind == RefKind::Write && self.write_breaks_repeat { NO_LINE } else { line };
        Ok(())
    }

    /// The rest of a piece at `r` that `lookup` did not complete: translate
    /// if not `translated` yet, then the access with everything it causes
    /// below. Returns whether the line is resident afterwards, and if so
    /// dirty.
    #[inline(never)]
    fn piece_below<U: Under + ?Sized>(
        &mut self,
        look: Lookup,
        kind: RefKind,
        mut r: LineRef,
        translated: bool,
        size: u64,
        under: &mut U,
    ) -> Result<Option<bool>, MapError> {
        if !translated {
            r.paddr = self.mapper.translate(r.asid, r.vaddr)?;
        }
        Ok(match look {
            Lookup::Miss { set, key } => self.system.levels_mut(CPU).top_missed(under, kind, r, size, set, key),
            // A write to a write-through top level: the public path.
            _ => {
                let req = Request::new(kind, r.vaddr, r.paddr, r.asid, size);
                self.system.levels_mut(CPU).over(|m| under.backing(m)).serve(0, req).last.resident_dirty
            }
        })
    }

    #[inline(always)]
    fn access_slow<U: Under + ?Sized>(&mut self, a: &Access, under: &mut U) -> Result<(), MapError> {
        if self.compat.counts_whole_references() {
            return self.access_whole(a, under);
        }
        let k = a.kind as usize & 3;
        self.access_general(k, self.slot_of[k], self.shift_of[k], a, under)
    }

    /// One reference under Cachegrind's rules (`--compat cachegrind`,
    /// `cg_sim.c`; docs/reference-semantics.md): level by level from the
    /// top, each line the reference touches (with that level's line size)
    /// is accessed tag-only (`Cache::access_tag_only`) and the reference
    /// counts once, a miss if any of its lines missed; only a miss sends
    /// it to the next level, whole (its own address, size and kind, not a
    /// line fill); what the last level misses reaches memory. A modify is
    /// one read (Cachegrind's `Dm`), and a data reference longer than the
    /// shortest line of the machine is cut to that line (as Cachegrind
    /// cuts its dirty helpers' and CAS accesses to its minimum line size).
    ///
    /// Afterwards the repeat line of the top cache is the reference's last
    /// line there if it is resident: the most recent of its set, so the
    /// next reference wholly within it is a hit that changes no state
    /// (`feed_general` only counts it; no dirty bit matters under this mode).
    fn access_whole<U: Under + ?Sized>(&mut self, a: &Access, under: &mut U) -> Result<(), MapError> {
        // A modify is its first request alone, a read.
        let kind = FIRST_KIND[a.kind as usize & 3];
        let size = u64::from(a.size.max(1));
        let size = if kind == RefKind::Ifetch { size } else { size.min(self.min_line) };
        let va = a.addr.0;
        let last = va.saturating_add(size - 1);
        // A reference spans at most two pages (lines are no longer than a
        // page); each is translated once, first touch in address order as
        // the default path maps them.
        let page = self.mapper.page_size();
        let pa_first = self.mapper.translate(a.asid, VirtAddr(va))?.0;
        let pa_last = if page.vpn(VirtAddr(last)) == page.vpn(VirtAddr(va)) {
            pa_first + (last - va)
        } else {
            self.mapper.translate(a.asid, VirtAddr(last))?.0
        };
        let first_page = page.vpn(VirtAddr(va));
        let pa_of =
            |x: u64| if page.vpn(VirtAddr(x)) == first_page { pa_first + (x - va) } else { pa_last - (last - x) };
        let write = kind == RefKind::Write;
        for t in 0..self.system.levels_mut(CPU).levels() {
            let Some(cache) = self.system.levels_mut(CPU).serving_mut(t, kind) else { break };
            let allocates = !write || cache.config().write_miss == WriteMissPolicy::WriteAllocate;
            let shift = cache.line_bytes().trailing_zeros();
            let mut missed = 0u64;
            let mut last_hit = false;
            for ln in (va >> shift)..=(last >> shift) {
                let lva = va.max(ln << shift);
                let r = LineRef { vaddr: VirtAddr(lva), paddr: PhysAddr(pa_of(lva)), asid: a.asid };
                last_hit = cache.access_tag_only(r, kind);
                missed += u64::from(!last_hit);
            }
            cache.count_reference(kind, missed, if allocates { missed } else { 0 });
            if t == 0 {
                let slot = self.slot_of[a.kind as usize & 3];
                self.repeat[slot] = if last_hit || allocates {
                    RepeatLine { line: last >> shift, asid: a.asid, dirty: false }
                } else {
                    NO_LINE
                };
            }
            if missed == 0 {
                return Ok(());
            }
        }
        let r = LineRef { vaddr: VirtAddr(va), paddr: PhysAddr(pa_first), asid: a.asid };
        self.system.levels_mut(CPU).over(|m| under.backing(m)).beyond(kind, r, size);
        Ok(())
    }

    /// Applies one event.
    pub fn step(&mut self, ev: &Event) -> Result<(), MapError> {
        self.step_over(ev, &mut ToMemory)
    }

    fn step_over<U: Under + ?Sized>(&mut self, ev: &Event, under: &mut U) -> Result<(), MapError> {
        match ev {
            Event::Access(a) if self.data_only && a.kind == AccessKind::Ifetch => {
                self.access_counts[a.kind as usize] += 1;
                self.fetches_not_simulated += 1;
                Ok(())
            }
            Event::Access(a) => {
                self.access_counts[a.kind as usize] += 1;
                self.access_slow(a, under)
            }
            Event::ContextSwitch(_) => {
                self.context_switches += 1;
                let Ok(done) = SWITCH.apply(&mut self.system.on(CPU));
                if done != Switched::default() {
                    self.forget_repeats();
                }
                Ok(())
            }
            Event::FlushAll => {
                self.flushes += 1;
                self.forget_repeats();
                let levels = self.system.levels_mut(CPU);
                if self.compat.copies_back() {
                    // Dinero's `-flushcount` flush: a copy-back down the
                    // data side, then every cache invalidated (found clean).
                    levels.over(|m| under.backing(m)).copy_back_all();
                }
                levels.over(|m| under.backing(m)).flush_all(Flush::WriteBack);
                under.flushed();
                Ok(())
            }
            // Markers for the OS models; no cache sees them.
            Event::Syscall(_) | Event::SyscallArg(_) => Ok(()),
        }
    }

    /// Applies a slice of events; `first` numbers the first for error
    /// messages. The events are packed (as the `.vmt` reader decodes) and
    /// go through the same inner loop as a run, `feed_packed`.
    pub fn feed(&mut self, events: &[Event], origin: &str, first: u64) -> Result<(), RunError> {
        let mut packed = std::mem::take(&mut self.scratch);
        packed.fetch_skip = self.fetch_skip;
        let res = packed.feed_events(events, first, |b, n| self.feed_packed(b, origin, n));
        self.scratch = packed;
        res
    }

    /// Applies one packed block (see `vmlab_trace::PackedBlock`); `first`
    /// numbers its first event for error messages. This is the inner loop,
    /// in the shape `HitLoop` chose. The block's dropped fetches
    /// (`skipped`) are counted as fetches and top-level fetch hits; a block
    /// that dropped fetches under a rule this machine does not allow
    /// (`fetch_skip`, `allows`) is refused before anything is applied.
    pub fn feed_packed(&mut self, block: &PackedBlock, origin: &str, first: u64) -> Result<(), RunError> {
        self.feed_block(block, origin, first, &mut ToMemory)
    }

    /// `feed_packed` for a machine whose last level's requests go to
    /// `sink` instead of memory (`above_last_level`): the same loops,
    /// with what reaches memory counted there (`Hierarchy::memory`) and
    /// handed to `sink`, and after a flush marker has flushed every level,
    /// `Sink::flush_all`. The other methods that flush (`flush_all`,
    /// `flush_virtual_range`, `finish` under Dinero's rules) still write
    /// to memory alone.
    pub fn feed_packed_into<S: Sink + ?Sized>(
        &mut self,
        block: &PackedBlock,
        origin: &str,
        first: u64,
        sink: &mut S,
    ) -> Result<(), RunError> {
        self.feed_block(block, origin, first, sink)
    }

    fn feed_block<U: Under + ?Sized>(
        &mut self,
        block: &PackedBlock,
        origin: &str,
        first: u64,
        under: &mut U,
    ) -> Result<(), RunError> {
        if block.skipped > 0 && !self.allows(block.fetch_skip) {
            return Err(RunError::FetchSkip {
                trace: origin.to_string(),
                first,
                skipped: block.skipped,
                given: block.fetch_skip,
                allowed: self.fetch_skip,
            });
        }
        if self.data_only {
            return self.feed_data_only(block, origin, first, under);
        }
        self.feed_words(block, origin, first, under)?;
        // Hits on the most recent line of their set: only counters move
        // (`settle` adds `pending` to the top instruction cache's).
        self.access_counts[IFETCH] += block.skipped;
        self.pending[IFETCH] += block.skipped;
        Ok(())
    }

    /// A data-only machine's block: its fetch words are taken out before
    /// any loop sees them (the dropped and the remaining ones only
    /// counted), and the rest goes through the loop `HitLoop` chose, which
    /// has no instruction side to serve. An escape word stays in place, so
    /// `extra` is the block's own; a failing word is named by its place in
    /// the whole block.
    fn feed_data_only<U: Under + ?Sized>(
        &mut self,
        block: &PackedBlock,
        origin: &str,
        first: u64,
        under: &mut U,
    ) -> Result<(), RunError> {
        // The source dropped every fetch word (`FetchSkip::EVERY_FETCH`): no
        // copy, and a fetch costs its count alone. The copy below, with
        // its test of every word, was 17-18 % of this machine's
        // instructions (docs/performance.md).
        if block.holds_no_fetch() {
            self.access_counts[IFETCH] += block.skipped;
            self.fetches_not_simulated += block.skipped;
            return self.feed_words(block, origin, first, under);
        }
        let is_data = |ops: &[OpInfo; 256], w: u64| {
            let info = &ops[(w >> ADDR_BITS) as u8 as usize];
            info.escape || info.k != 0
        };
        let mut data = std::mem::take(&mut self.data_words);
        data.clear();
        data.fetch_skip = block.fetch_skip;
        data.skipped = block.skipped;
        data.set_words_kept(block.words(), |w| is_data(&self.ops, w));
        data.extra.extend_from_slice(&block.extra);
        let fetches = block.skipped + (block.len() - data.len()) as u64;
        self.access_counts[IFETCH] += fetches;
        self.fetches_not_simulated += fetches;
        let res = self.feed_words(&data, origin, first, under).map_err(|e| match e {
            RunError::Memory { trace, event, dropped, source } => {
                let kept = (event - first) as usize;
                let word = block
                    .words()
                    .iter()
                    .enumerate()
                    .filter(|&(_, &w)| is_data(&self.ops, w))
                    .nth(kept)
                    .map_or(kept, |(i, _)| i);
                RunError::Memory { trace, event: first + word as u64, dropped, source }
            }
            e => e,
        });
        self.data_words = data;
        res
    }

    /// The words of a block, through the loop `HitLoop` chose.
    fn feed_words<U: Under + ?Sized>(
        &mut self,
        block: &PackedBlock,
        origin: &str,
        first: u64,
        under: &mut U,
    ) -> Result<(), RunError> {
        if self.compat.counts_whole_references() {
            return self.feed_general::<true, U>(block, origin, first, under);
        }
        match self.hit_loop {
            HitLoop::General => self.feed_general::<false, U>(block, origin, first, under),
            HitLoop::Assoc(c) if c[0].needs_translation() || c[1].needs_translation() => {
                self.feed_inline::<false, true, U>(block, origin, first, c, under)
            }
            HitLoop::Assoc(c) => self.feed_inline::<false, false, U>(block, origin, first, c, under),
            // Without ASID tags a top's homonyms are translated first.
            HitLoop::VirtualDirect(c) if c[0].needs_translation() || c[1].needs_translation() => {
                self.feed_inline::<true, true, U>(block, origin, first, c, under)
            }
            HitLoop::VirtualDirect(c) => self.feed_inline::<true, false, U>(block, origin, first, c, under),
        }
    }

    /// An escape word's event (the next of `extra`), applied; returns the
    /// address space it leaves current.
    #[cold]
    #[inline(never)]
    fn escape<U: Under + ?Sized>(
        &mut self,
        extra: &mut std::slice::Iter<'_, Event>,
        at: BlockAt<'_>,
        i: usize,
        asid: Asid,
        under: &mut U,
    ) -> Result<Asid, RunError> {
        let BlockAt { block, origin, first } = at;
        let Some(ev) = extra.next() else {
            return Err(RunError::Trace(TraceError::new(
                origin,
                vmlab_trace::Location::File,
                format!("malformed packed block: escape word {i} has no event ({} escaped events)", block.extra.len()),
            )));
        };
        let asid = vmlab_trace::vmt::packed::asid_after(ev, asid);
        self.step_over(ev, under).map_err(|source| RunError::memory(origin, block, first, i, source))?;
        Ok(asid)
    }

    /// The general loop: a repeat of the last line of a top-level cache costs
    /// a few compares and one increment; anything else goes through
    /// `Cache::lookup` and the hierarchy. With `WHOLE` (`--compat
    /// cachegrind`) anything else goes through `access_whole`, and a repeat
    /// is any reference wholly within that line, a write too (no line is
    /// dirty under that mode), counted as its one request (a modify as a
    /// read, not the read and write `pending` counts for it otherwise).
    fn feed_general<const WHOLE: bool, U: Under + ?Sized>(
        &mut self,
        block: &PackedBlock,
        origin: &str,
        first: u64,
        under: &mut U,
    ) -> Result<(), RunError> {
        let mut extra = block.extra.iter();
        let mut asid = Asid(0);
        let err = |i: usize, source: MapError| RunError::memory(origin, block, first, i, source);
        for (i, &w) in block.words().iter().enumerate() {
            // Indexed by the top byte: no bounds check.
            let info = self.ops[(w >> ADDR_BITS) as u8 as usize];
            if info.escape {
                asid = self.escape(&mut extra, BlockAt { block, origin, first }, i, asid, under)?;
                continue;
            };
            // Masks that keep the indexes provably in range (they already are).
            let k = usize::from(info.k & 3);
            self.access_counts[k] += 1;
            let va = w & ADDR_MASK;
            let shift = u32::from(info.shift);
            let ln = va >> shift;
            let slot = usize::from(info.slot & 1);
            let r = &self.repeat[slot];
            // Ifetch and load (k < 2) only read. The uncut size of a
            // reference `access_whole` cuts can only refuse more.
            if ln == r.line
                && asid == r.asid
                && (WHOLE || k < 2 || r.dirty)
                && (va + u64::from(info.span)) >> shift == ln
            {
                // `pending` by `AccessKind`; ifetch, load, store double as
                // `RefKind` indexes.
                self.pending[if WHOLE { FIRST_KIND[k] as usize } else { k }] += 1;
                continue;
            }
            let a = Access { kind: KINDS[k], size: info.size, addr: VirtAddr(va), asid };
            if WHOLE {
                self.access_whole(&a, under).map_err(|e| err(i, e))?;
            } else {
                self.access_general(k, slot, shift, &a, under).map_err(|e| err(i, e))?;
            }
        }
        Ok(())
    }

    /// One access through the general path (both references of a modify).
    #[inline(always)]
    fn access_general<U: Under + ?Sized>(
        &mut self,
        k: usize,
        slot: usize,
        shift: u32,
        a: &Access,
        under: &mut U,
    ) -> Result<(), MapError> {
        self.reference(TopRequest { kind: FIRST_KIND[k], slot, shift }, a, under)?;
        if k == MODIFY {
            self.reference(TopRequest { kind: RefKind::Write, slot, shift }, a, under)?;
        }
        Ok(())
    }

    /// The loop for top caches that allow `Cache::probe`: every word but an
    /// escape is completed by `hit_loop::run` (with `DIRECT`, direct-mapped
    /// VIVT tops, by `hit_loop::run_virtual_direct`); an escape goes
    /// through the general path. With `DIRECT` there is no repeat
    /// line: `repeat` is emptied after each general word, so the general
    /// path's own repeat test never sees a stale line.
    fn feed_inline<const DIRECT: bool, const TRANSLATE: bool, U: Under + ?Sized>(
        &mut self,
        block: &PackedBlock,
        origin: &str,
        first: u64,
        checks: [HitCheck; 2],
        under: &mut U,
    ) -> Result<(), RunError> {
        let mut extra = block.extra.iter();
        let mut asid = Asid(0);
        let words = block.words();
        let mut i = 0;
        loop {
            let (top, below) = self.system.levels_mut(CPU).split_top_over(|m| under.backing(m));
            let borrowed = Borrowed {
                top,
                below,
                mapper: &mut self.mapper,
                counts: &mut self.access_counts,
                pending: &mut self.pending,
                repeat: &mut self.repeat,
                mru: &mut self.mru,
                set_lines: &mut self.set_lines,
                written_through: &mut self.written_through,
            };
            let run = match (DIRECT, TRANSLATE) {
                (true, false) => hit_loop::run_virtual_direct::<false, _>,
                (true, true) => hit_loop::run_virtual_direct::<true, _>,
                (false, _) => hit_loop::run::<TRANSLATE, _>,
            };
            let (stop, res) = run(borrowed, &self.ops, &mut self.direct_ops, words, i, asid, checks);
            i = stop;
            res.map_err(|source| RunError::memory(origin, block, first, i, source))?;
            if i >= words.len() {
                return Ok(());
            }
            // `run` stops only at an escape.
            asid = self.escape(&mut extra, BlockAt { block, origin, first }, i, asid, under)?;
            if DIRECT {
                self.repeat = [NO_LINE; 2];
            }
            i += 1;
        }
    }

    /// Runs a whole trace. Decoding runs on a second thread, a few blocks
    /// ahead of the simulation (memory stays bounded by those blocks).
    /// `progress` is called after every block; an `Err` from it stops the run
    /// (how an interrupt reaches the engine).
    pub fn run(
        &mut self,
        src: &mut dyn EventSource,
        origin: &str,
        progress: &mut dyn FnMut(Progress) -> Result<(), String>,
    ) -> Result<RunResult, RunError> {
        // The source may drop the fetches this machine only counts.
        decode_ahead(src, self.fetch_skip, progress, |buf, n| self.feed_packed(buf, origin, n))?;
        self.finish();
        Ok(self.result(origin))
    }

    /// Flushes (`Flush::WriteBack`: writes back dirty lines, then
    /// invalidates) or purges (`Flush::Discard`: invalidates, dropping
    /// dirty data) the virtual range
    /// `[va, va + len)` of `asid` in every cache, top level first, so what
    /// a level writes back lands in the level below before that one is
    /// flushed. Each cache looks up each of its own lines the range touches
    /// once (with that cache's line size), so the counts add up, per cache,
    /// to the lines of the range: a line found nowhere is empty. A cache
    /// that needs a physical address holds nothing of a page `asid` never
    /// touched, and no page is mapped by a flush; those lines count as
    /// empty without a look-up. `len` 0 flushes nothing; a range past the
    /// last address is refused.
    pub fn flush_virtual_range(
        &mut self,
        asid: Asid,
        va: VirtAddr,
        len: u64,
        how: Flush,
    ) -> Result<FlushStats, RangeError> {
        let Some(last) = range_last(RangeStart::Virtual(va), len)? else { return Ok(FlushStats::default()) };
        let va = va.0;
        let mut total = FlushStats::default();
        self.forget_repeats();
        let page = self.mapper.page_size();
        for t in 0..self.system.cpu(CPU).levels().levels() {
            for c in 0..self.system.cpu(CPU).levels().caches_in(t) {
                let Some(cache) = self.system.cpu(CPU).levels().level_cache(t, c) else { continue };
                let shift = cache.line_bytes().trailing_zeros();
                let (lo, hi) = (va >> shift, last >> shift);
                let in_range = hi - lo + 1;
                // The lines that can be present, ascending (the write-back
                // order); the rest of the range counts as empty in one step,
                // so a whole address space is not walked line by line. An
                // untagged VIVT cache can hold another address space's line
                // at any of the range's addresses (a homonym); any other
                // cache only lines of pages `asid` has mapped (a line never
                // crosses a page).
                let lines: Vec<u64> = if cache.holds_unmapped_lines() {
                    if in_range > cache.frames() as u64 {
                        cache.virtual_lines_in(lo, hi)
                    } else {
                        (lo..=hi).collect()
                    }
                } else {
                    let per_page = page.shift() - shift;
                    self.mapper
                        .pages_in(asid, page.vpn(VirtAddr(va)), page.vpn(VirtAddr(last)))
                        .iter()
                        .flat_map(|(v, _)| (v.0 << per_page)..=((v.0 << per_page) | ((1 << per_page) - 1)))
                        .filter(|l| (lo..=hi).contains(l))
                        .collect()
                };
                for &l in &lines {
                    let a = l << shift;
                    // Without a frame (a homonym) the look-up reads only `vaddr`.
                    let frame = self.mapper.frame_of(asid, page.vpn(VirtAddr(a)));
                    let pa = frame.map_or(PhysAddr(0), |f| page.translate(VirtAddr(a), f));
                    total += self.system.levels_mut(CPU).flush_line(
                        t,
                        c,
                        LineRef { vaddr: VirtAddr(a), paddr: pa, asid },
                        how,
                    );
                }
                let empty = in_range - lines.len() as u64;
                self.system.levels_mut(CPU).count_empty_flushes(t, c, empty, how);
                total.empty += empty;
            }
        }
        Ok(total)
    }

    /// Flushes or purges (as `flush_virtual_range`) every line whose
    /// physical address lies in `[pa, pa + len)`, in every cache, top level
    /// first: every copy, whatever virtual address or address space it was
    /// cached under, so a VIVT cache loses every synonym of the frames in
    /// the range (`Cache::flush_physical_range`). Per cache, each line of
    /// the range with no copy counts once as empty and each copy as clean
    /// or dirty. `len` 0 flushes nothing; a range past the last address is
    /// refused.
    pub fn flush_physical_range(&mut self, pa: PhysAddr, len: u64, how: Flush) -> Result<FlushStats, RangeError> {
        let Some(last) = range_last(RangeStart::Physical(pa), len)? else { return Ok(FlushStats::default()) };
        self.forget_repeats();
        Ok(self.system.levels_mut(CPU).flush_physical_range(pa, PhysAddr(last), how))
    }

    /// Flushes or purges every cache whole, top level first; every frame
    /// counts once, empty, clean or dirty. Unlike a trace's `FlushAll`
    /// event, not counted among the events.
    pub fn flush_all(&mut self, how: Flush) -> FlushStats {
        self.forget_repeats();
        self.system.levels_mut(CPU).flush_all(how)
    }

    /// Ends a run as the compatibility mode's simulator ends it: under
    /// `dinero`, every dirty line is copied back (`Hierarchy::copy_back_all`,
    /// Dinero's driver after `done:`); under the others nothing happens.
    /// `run` calls it after the last event; a caller that feeds events
    /// itself calls it before taking the `result` of a whole run.
    pub fn finish(&mut self) {
        if self.compat.copies_back() {
            self.forget_repeats();
            self.system.levels_mut(CPU).copy_back_all();
        }
    }

    /// The results so far.
    pub fn result(&mut self, origin: &str) -> RunResult {
        self.settle();
        let events = EventCounts::from_accesses(self.access_counts, self.context_switches, self.flushes);
        RunResult {
            machine: self.config.clone(),
            trace: origin.to_string(),
            events,
            instructions: events.ifetch,
            caches: self
                .system
                .cpu(CPU)
                .levels()
                .caches()
                .into_iter()
                .map(|(name, c)| LevelResult {
                    name: name.to_string(),
                    indexing: c.indexing(),
                    config: c.config().clone(),
                    stats: *c.stats(),
                })
                .collect(),
            memory: self.system.memory(),
            pages_mapped: self.mapper.pages_mapped(),
            compat: self.compat,
            fetches_not_simulated: self.fetches_not_simulated,
        }
    }
}
