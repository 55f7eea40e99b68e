//! The translating simulator: user references through virtual (or
//! physical) caches, with a scheme's TLB refills or cache-miss handlers
//! running *as references* through the same caches.
//!
//! Address namespaces in the caches: user lines carry the trace's ASID;
//! kernel-mapped page-table addresses (MIPS kseg2, the PUMA global table)
//! and unmapped physical addresses (`UNMAPPED_BASE | pa`: handler code,
//! root tables, hashed tables, admin data) carry the kernel's space
//! [`TRACE_KERNEL_SPACE`] (`vmlab_addr::layout`), so they can never alias a
//! user line.
//!
//! Costs follow section 5.3 of Jacob & Mudge: a handler costs its
//! instructions; a handler instruction fetch or PTE load that misses L1
//! costs `l2_cycles`, and one that also misses L2 costs `memory_cycles`
//! more (charged to the `-L2` and `-MEM` components respectively). User
//! references cost nothing here: VMCPI is the VM system's share only.

use std::collections::VecDeque;

use rustc_hash::FxHashMap;
use thiserror::Error;
use vmlab_addr::layout::{unmapped, TRACE_KERNEL_SPACE, UNMAPPED_BASE, USER_LIMIT};
use vmlab_addr::{Asid, LineNo, PhysAddr, VirtAddr, Vpn};
use vmlab_cache::{CacheConfig, DataRef, FlushStats, LineRef, Lookup, RefKind};
use vmlab_machine::{Cause, Code, FrameAllocation, Ledger, MapError, Mechanism, PageMapper, Reached};
use vmlab_mmu::pagetable::TableParams;
use vmlab_mmu::{
    FramePool, PageTable, PteAddr, PteRef, Side, Slot, Switch, SwitchSite, TableError, Tier, Tlb, TlbEntry, TlbError,
    TlbSet,
};
use vmlab_trace::vmt::packed::{ADDR_BITS, ADDR_MASK, OPS, PACKED_ESCAPE};
use vmlab_trace::{Access, AccessKind, Event, EventSource, PackedBlock, TraceError};

use crate::config::VmConfig;
use crate::hit_run::{self, HitOp, ResidentFrames, ResidentPages, NO_PAGE, NO_RESIDENT};
use crate::memsys::{Alone, L2Sweep, MemSys, L1};
use crate::result::{SideEvents, TlbLookup, VmResult};
use crate::scheme::{Scheme, TranslateAt};
use crate::vmcpi::Vmcpi;

/// Folding granularity: one user page-table page maps 4 MB (1024 4-byte
/// PTEs of 4 KB pages), so folding whole 4 MB regions keeps every table's
/// page count and every cache index bit below 22.
const REGION_SHIFT: u32 = 22;
const MAX_REGIONS: u64 = USER_LIMIT.0 >> REGION_SHIFT;
/// Physical layout of the kernel's own memory: the handler code, then the
/// MACH administrative data, then frames for tables and user pages from
/// `FIRST_FRAME` on. The paper says the handlers live in unmapped cacheable
/// space and "the start of the handler code is page-aligned" (5.2.1); as on
/// the MIPS it models (user TLB-miss vector at the page's start, the general
/// vector 0x80 bytes on), the handlers share that page, 128 bytes apart, so
/// the user and root handlers never evict each other from an L1 I-cache of
/// 1 KB or more (only MACH's 2,000-byte root handler is larger than that).
const HANDLER_PA: [u64; 4] = [0x1000, 0x1080, 0x1100, 0x1180];
const ADMIN_PA: u64 = 0x8000;
/// Administrative loads touch distinct 64-byte blocks (ours: the paper gives
/// only their number).
const ADMIN_STRIDE: u64 = 64;
const FIRST_FRAME: u64 = 16;
const INSTRUCTION_BYTES: u64 = 4;

#[derive(Debug, Error)]
pub enum SimError {
    #[error("{0}")]
    Config(String),
    #[error("page table: {0}")]
    Table(#[from] TableError),
    #[error("TLB: {0}")]
    Tlb(#[from] TlbError),
    #[error("page mapper: {0}")]
    Map(#[from] MapError),
    #[error(transparent)]
    Trace(#[from] TraceError),
    #[error("address space {asid} touches more than {MAX_REGIONS} distinct 4 MB regions, which cannot be folded into the 2 GB user space the {scheme} tables map")]
    FoldOverflow { asid: u32, scheme: &'static str },
    #[error("interrupted after {events} events: {reason}")]
    Interrupted { events: u64, reason: String },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Handler {
    User = 0,
    Kernel = 1,
    Root = 2,
    MachRoot = 3,
}

/// Folds a trace's 64-bit user addresses into the scheme's 2 GB user space:
/// each distinct 4 MB region of an address space gets the next free 4 MB
/// slot, in first-touch order.
///
/// A region's slot never changes once given, so a small direct-mapped memo of
/// (ASID, region) -> slot in front of the hash map is exact; references
/// alternate between code, stack and heap regions, which a one-entry memo
/// would miss half the time.
#[derive(Debug)]
pub(crate) struct Fold {
    slots: FxHashMap<(u32, u64), u64>,
    next: FxHashMap<u32, u64>,
    /// (ASID, region, slot); region `u64::MAX` (never a 64-bit address's
    /// region) marks an empty entry.
    memo: Box<[(u32, u64, u64); FOLD_MEMO]>,
}

const FOLD_MEMO: usize = 64;

impl Default for Fold {
    fn default() -> Self {
        Self { slots: FxHashMap::default(), next: FxHashMap::default(), memo: Box::new([(0, u64::MAX, 0); FOLD_MEMO]) }
    }
}

impl Fold {
    #[inline(always)]
    pub(crate) fn fold(&mut self, asid: u32, va: u64) -> Option<u64> {
        let region = va >> REGION_SHIFT;
        let off = va & ((1 << REGION_SHIFT) - 1);
        let (a, r, s) = self.memo[Self::memo_index(asid, region)];
        if a == asid && r == region {
            return Some((s << REGION_SHIFT) | off);
        }
        self.fold_new_region(asid, region, off)
    }

    #[inline(always)]
    fn memo_index(asid: u32, region: u64) -> usize {
        ((region ^ u64::from(asid).wrapping_mul(0x9e37_79b9)) as usize) & (FOLD_MEMO - 1)
    }

    #[inline(never)]
    fn fold_new_region(&mut self, asid: u32, region: u64, off: u64) -> Option<u64> {
        let slot = match self.slots.get(&(asid, region)) {
            Some(&s) => s,
            None => {
                let n = self.next.entry(asid).or_insert(0);
                if *n >= MAX_REGIONS {
                    return None;
                }
                let s = *n;
                *n += 1;
                self.slots.insert((asid, region), s);
                s
            }
        };
        self.memo[Self::memo_index(asid, region)] = (asid, region, slot);
        Some((slot << REGION_SHIFT) | off)
    }

    pub(crate) fn regions(&self) -> u64 {
        self.slots.len() as u64
    }
}

/// What the fast paths remember of the caches and TLBs between user
/// pieces: each field is true only while nothing has changed the state it
/// stands for, so every change to the caches or TLBs goes through one of
/// the `forget_*` methods here (a kernel reference, a refill, a flush, a
/// context switch, a TLB eviction). Kept together so that a new memo is
/// forgotten wherever the others are.
#[derive(Debug)]
struct Memos {
    /// Per side, the (ASID, L1 line) the latest user reference left
    /// resident, while nothing else has touched the caches or TLBs since: a
    /// read of it again is an L1 hit (and a TLB hit on the same page) that
    /// changes no state but counters (`VmSim::repeats`).
    last: [Option<(u32, u64)>; 2],
    /// Per side, raw pages of `resident_asid` whose TLB lookup would hit
    /// and change nothing but the hit count, or (SOFTVM, SPUR) whose fold
    /// is known (`VmSim::note_lookup`, `remember_page`; forgotten by
    /// `forget_evicted` and `forget_pages`): the hit loop's page test, and
    /// the general path's (`resident_pa`), which then skips the lookup.
    resident: Box<ResidentPages>,
    resident_frames: Box<ResidentFrames>,
    resident_asid: u32,
    /// Per side, the latest page remembered (where only that one may be:
    /// LRU order or micro-TLBs, `pure_lookups` false).
    latest_raw: [u64; 2],
    /// The latest user access: folded minus raw address, and its raw fold
    /// region.
    access_delta: u64,
    access_region: u64,
    page_shift: u32,
    /// The TLBs' lookups change nothing (`TlbSet::lookups_change_nothing`).
    pure_lookups: bool,
    /// Pages are remembered for their fold alone (SOFTVM, SPUR: no TLB
    /// before memory), so any of them may be resident.
    fold_known: bool,
}

impl Memos {
    fn new(page_shift: u32, pure_lookups: bool, fold_known: bool) -> Self {
        Self {
            last: [None; 2],
            resident: Box::new(NO_RESIDENT),
            resident_frames: Box::new([[0; hit_run::RESIDENT_SLOTS]; 2]),
            resident_asid: 0,
            latest_raw: [NO_PAGE; 2],
            access_delta: 0,
            access_region: 0,
            page_shift,
            pure_lookups,
            fold_known,
        }
    }

    /// Something other than a user piece touched the caches or TLBs: no
    /// line is known to repeat.
    fn forget_lines(&mut self) {
        self.last = [None; 2];
    }

    /// Remembers the page of user piece `va` (folded; `pa` its physical
    /// address) on side `s` for the hit loop, if the piece lies in its
    /// access's first fold region (so folding the raw page gives this one).
    fn remember_page(&mut self, s: usize, asid: u32, va: u64, pa: u64) {
        let raw = va.wrapping_sub(self.access_delta);
        if raw >> REGION_SHIFT != self.access_region {
            return;
        }
        if asid != self.resident_asid {
            self.forget_pages();
            self.resident_asid = asid;
        }
        let raw_page = raw >> self.page_shift;
        let slot = hit_run::resident_slot(raw_page);
        self.resident[s][slot] = hit_run::ResidentPage { raw_page, delta: self.access_delta };
        self.resident_frames[s][slot] = pa & !((1 << self.page_shift) - 1);
        self.latest_raw[s] = raw_page;
    }

    /// The physical address of user piece `va` (folded) if its page is
    /// resident on side `s`: then its TLB lookup would be a hit that
    /// changes nothing but the hit count. Found by the folded page's slot,
    /// which is the raw page's where pages are small enough for the fold to
    /// keep a page number's slot bits (`forget_evicted`); otherwise it
    /// simply is not found.
    #[inline(always)]
    fn resident_pa(&self, s: usize, asid: u32, va: u64) -> Option<u64> {
        if asid != self.resident_asid {
            return None;
        }
        let page = va >> self.page_shift;
        let slot = hit_run::resident_slot(page);
        let e = &self.resident[s][slot];
        let folded = (e.raw_page << self.page_shift).wrapping_add(e.delta) >> self.page_shift;
        // Written out rather than `bool::then` with a closure: as a method
        // of `Memos` the closure stopped being inlined (callgrind: +1.6 %
        // instructions per reference for the TLB schemes).
        if e.raw_page == NO_PAGE || folded != page {
            return None;
        }
        Some(self.resident_frames[s][slot] | (va & ((1 << self.page_shift) - 1)))
    }

    fn forget_latest(&mut self, s: usize) {
        let p = std::mem::replace(&mut self.latest_raw[s], NO_PAGE);
        let e = &mut self.resident[s][hit_run::resident_slot(p)];
        if e.raw_page == p {
            e.raw_page = NO_PAGE;
        }
    }

    /// A TLB entry was evicted: with pure lookups, only its page stops
    /// being resident (on either side: a unified TLB serves both). A global
    /// entry maps a kernel page, never a user piece's.
    fn forget_evicted(&mut self, e: TlbEntry) {
        if e.global {
            return;
        }
        if !self.pure_lookups || e.page_shift != self.page_shift || e.asid.0 != self.resident_asid {
            self.forget_pages();
            return;
        }
        // Folding moves whole 4 MB regions, so a raw page and its folded
        // page share the low bits that choose a slot, if pages are small
        // enough; otherwise every slot is checked.
        let same_slot = REGION_SHIFT.saturating_sub(self.page_shift) >= hit_run::RESIDENT_SLOTS.trailing_zeros();
        let page_shift = self.page_shift;
        let folds_to = |r: &hit_run::ResidentPage| {
            r.raw_page != NO_PAGE && ((r.raw_page << page_shift).wrapping_add(r.delta)) >> page_shift == e.vpn.0
        };
        for side in self.resident.iter_mut() {
            if same_slot {
                let r = &mut side[hit_run::resident_slot(e.vpn.0)];
                if folds_to(r) {
                    r.raw_page = NO_PAGE;
                }
            } else {
                for r in side.iter_mut().filter(|r| folds_to(r)) {
                    r.raw_page = NO_PAGE;
                }
            }
        }
    }

    /// Forgets every resident page. Under a TLB without pure lookups only
    /// the latest page of each side can be there.
    fn forget_pages(&mut self) {
        if self.pure_lookups || self.fold_known {
            *self.resident = NO_RESIDENT;
        }
        self.forget_latest(0);
        self.forget_latest(1);
    }
}

/// A translating machine; `S`: the L2s a sweep adds below its L1s
/// (`L2Sweep`; `crate::fanout::L2Fanout` in a sweep), none on its own.
#[derive(Debug)]
pub struct VmSim<S = Alone> {
    cfg: VmConfig,
    scheme: Scheme,
    at: TranslateAt,
    mem: MemSys<S>,
    tlbs: Option<TlbSet>,
    table: Option<Box<dyn PageTable>>,
    frames: FramePool,
    /// NOTLB's physical addresses: the foundation's first-touch mapper, so a
    /// NOTLB run sees exactly the frames a plain cache run sees.
    mapper: Option<PageMapper>,
    fold: Option<Fold>,
    /// What the VM system's work did, by mechanism: handler entries and
    /// instructions, and where each handler fetch, administrative load and
    /// PTE load that missed L1 was served (`record`). VMCPI prices it
    /// (`vmcpi`); user references are not in it (VMCPI is the VM system's
    /// share only).
    ledger: Ledger,
    /// References by `AccessKind`; the instruction fetches are the user
    /// instructions VMCPI divides by.
    access_counts: [u64; 4],
    sides: [SideEvents; 2],
    handler_runs: [u64; 4],
    handler_fetches: u64,
    pte_loads: u64,
    admin_loads: u64,
    walker_refills: u64,
    writeback_translations: u64,
    context_switches: u64,
    flushes: u64,
    walk: Vec<PteRef>,
    pending: VecDeque<(u64, u32)>,
    /// The address space of the latest user reference (whose tables a
    /// kernel line belongs to).
    current_space: u32,
    /// What the fast paths remember of the caches and TLBs (`Memos`).
    memo: Memos,
    l1_shift: [u32; 2],
    /// L1 hits counted without an access (repeats of `Memos::last`), by
    /// kind, until `settle`.
    repeats: [u64; 3],
    /// TLB hits counted without a lookup (pieces on a resident page), by
    /// side, settled like `repeats`.
    page_repeats: [u64; 2],
    /// The hit loop's op table (`hit_run`), where it applies: both L1s
    /// direct-mapped virtual with ASIDs, the fast paths on, no protection
    /// ticks, and a TLB looked up on every access, translation at L2
    /// misses (SOFTVM, SPUR), or no fold and no TLB before an L1 hit.
    hit_ops: Option<Box<[HitOp; 256]>>,
    /// Words the hit loop completed (never reset; tests prove it ran).
    hit_words: u64,
    /// Handler fetches counted as L1 I hits without a lookup
    /// (`run_handler`); 0 in the general simulator.
    handler_fetch_repeats: u64,
    /// In an L1-hit filter's group (`crate::filter`): the (side, L1 line)
    /// of every kernel reference that missed L1 since the group last
    /// took them, the sets where this machine's L1 may now differ from
    /// the filter's.
    filter_marks: Option<Vec<(usize, u64)>>,
    /// Protection changes: every `protect_every` user instructions (0 =
    /// never), on the page of the latest data reference.
    protect_every: u64,
    protect_countdown: u64,
    last_data: Option<(u32, u64)>,
    protection_changes: u64,
    protection_cycles: u64,
    /// Both sides' lookups reorder one LRU TLB (see `user_piece`'s repeats).
    shared_tlb_order: bool,
    /// The fast paths (see `VmSim::general`): the repeat-line shortcut, the
    /// TLBs' lookup memo, L1 hits finished inline. Off, every piece takes
    /// the general path; results are identical, which tests check.
    fast: bool,
    /// While recording (`VmSim::record`): the cache references other L1
    /// sizes must replay (`crate::replay`), since the last `take_recorded`.
    tap: Option<Vec<Recorded>>,
}

/// A reference into the caches, as a recording `VmSim` made it
/// (`VmSim::record`): what a machine with larger L1s of the same shape
/// must replay to see everything this one's caches saw, except the reads
/// and fetches that hit this one's L1 (which hit theirs and change nothing).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recorded {
    /// A user piece and whether its TLB lookup missed.
    User { kind: RefKind, r: LineRef, size: u64, tlb_miss: bool },
    /// A handler fetch, PTE or administrative load, with the mechanism
    /// that made it (the ledger entry its level is recorded under).
    Kernel { kind: RefKind, r: LineRef, size: u64, mechanism: Mechanism },
    /// Every cache written back and invalidated.
    Flush,
}

/// The request a user access makes first, by `AccessKind` index (a
/// modify's read; its write follows): a load from a table where the match
/// it replaces was lowered differently build to build, in the hottest
/// function (callgrind, docs/performance.md, session 26).
const FIRST_REQUEST: [RefKind; 4] = {
    let mut t = [RefKind::Read; 4];
    t[AccessKind::Ifetch as usize] = RefKind::Ifetch;
    t[AccessKind::Store as usize] = RefKind::Write;
    t
};

fn side(kind: RefKind) -> usize {
    usize::from(kind != RefKind::Ifetch)
}

const SIDES: [Side; 2] = [Side::I, Side::D];

/// What a trace's context switch does here: the least the OS must do on
/// the configured hardware (`vmlab_mmu::switch`). The simulator's memos
/// of lines and pages are forgotten besides.
const SWITCH: Switch = Switch::Untagged;

fn side_of(kind: RefKind) -> Side {
    SIDES[side(kind)]
}

impl VmSim {
    pub fn new(cfg: VmConfig) -> Result<Self, SimError> {
        Self::with_sweep(cfg, Alone)
    }

    /// A simulator without the fast paths: every user piece is looked up
    /// in the TLB (plain hash probe) and accessed through the general
    /// `Cache::access`, with no repeat-line shortcut. Slower, same results;
    /// the reference the fast paths are tested against.
    pub fn general(cfg: VmConfig) -> Result<Self, SimError> {
        let mut sim = Self::new(cfg)?;
        sim.fast = false;
        sim.hit_ops = None;
        sim.mem.set_general();
        if let Some(t) = sim.tlbs.as_mut() {
            t.set_memo(false);
        }
        Ok(sim)
    }
}

impl<S: L2Sweep> VmSim<S> {
    /// `new`, with `sweep`'s L2s below the same L1s.
    pub(crate) fn with_sweep(cfg: VmConfig, sweep: S) -> Result<Self, SimError> {
        cfg.check("translation config").map_err(|e| SimError::Config(e.to_string()))?;
        let scheme = cfg.scheme;
        let at = cfg.translate_at();
        let log_base = (at == TranslateAt::L2Miss).then_some(UNMAPPED_BASE);
        let mem = MemSys::with_sweep(&cfg, log_base, sweep).map_err(|e| SimError::Config(e.0))?;
        let page = cfg.page_size.bytes();
        let mut frames = FramePool::new(page, FIRST_FRAME, cfg.frames.saturating_sub(FIRST_FRAME));
        let table = match scheme.table() {
            // Sized from the machine's frames, as HP-UX sizes its hashed table.
            Some(kind) => {
                let params = TableParams { phys_frames: frames.capacity(), ..TableParams::default() };
                Some(vmlab_mmu::pagetable::build(kind, &params, &mut frames)?)
            }
            None => None,
        };
        let tlbs = match (scheme.has_tlb(), cfg.tlb_layout()) {
            (true, Some(layout)) => Some(TlbSet::new(layout, cfg.micro_tlbs())?),
            (true, None) => return Err(SimError::Config("this scheme needs TLBs".into())),
            (false, _) => None,
        };
        let mapper = (scheme == Scheme::Notlb)
            .then(|| PageMapper::new(cfg.page_size, cfg.frames, FrameAllocation::Sequential, 0, 1));
        let shared_tlb_order =
            at == TranslateAt::EveryAccess && tlbs.as_ref().is_some_and(TlbSet::sides_share_lru_order);
        let pure_lookups = tlbs.as_ref().is_some_and(TlbSet::lookups_change_nothing);
        Ok(Self {
            fold: table.is_some().then(Fold::default),
            scheme,
            at,
            mem,
            tlbs,
            table,
            frames,
            mapper,
            ledger: Ledger::default(),
            access_counts: [0; 4],
            sides: [SideEvents::default(), SideEvents::default()],
            handler_runs: [0; 4],
            handler_fetches: 0,
            pte_loads: 0,
            admin_loads: 0,
            walker_refills: 0,
            writeback_translations: 0,
            context_switches: 0,
            flushes: 0,
            walk: Vec::with_capacity(8),
            pending: VecDeque::new(),
            current_space: 0,
            memo: Memos::new(page.trailing_zeros(), pure_lookups, at == TranslateAt::L2Miss),
            l1_shift: [cfg.l1i.line.0.trailing_zeros(), cfg.l1d.line.0.trailing_zeros()],
            repeats: [0; 3],
            page_repeats: [0; 2],
            hit_ops: None,
            hit_words: 0,
            handler_fetch_repeats: 0,
            filter_marks: None,
            protect_every: if cfg.protection_changes_per_million > 0.0 {
                (1e6 / cfg.protection_changes_per_million).round().max(1.0) as u64
            } else {
                0
            },
            protect_countdown: 0,
            last_data: None,
            protection_changes: 0,
            protection_cycles: 0,
            shared_tlb_order,
            fast: true,
            tap: None,
            cfg,
        }
        .with_hit_loop())
    }

    /// Chooses the hit loop (`hit_ops`) for this configuration.
    fn with_hit_loop(mut self) -> Self {
        let fits = match self.at {
            TranslateAt::EveryAccess | TranslateAt::L2Miss => true,
            TranslateAt::Never | TranslateAt::L1Miss => self.fold.is_none(),
        };
        if fits && self.fast && self.protect_every == 0 && self.mem.l1_views().is_some() {
            self.hit_ops = Some(hit_run::op_table(self.l1_shift));
        }
        self
    }

    /// The configurations this simulator runs: its own, then its sweep's.
    pub fn configs(&self) -> impl Iterator<Item = &VmConfig> {
        std::iter::once(&self.cfg).chain(self.mem.sweep().configs())
    }

    /// Its caches, for the sweep that adds L2s below them (`L2Sweep`).
    pub(crate) fn mem_mut(&mut self) -> &mut MemSys<S> {
        &mut self.mem
    }

    pub fn config(&self) -> &VmConfig {
        &self.cfg
    }

    /// How many packed words the hit loop completed (`hit_run`; tests use
    /// it to prove that loop ran; 0 in the general simulator).
    pub fn hit_run_words(&self) -> u64 {
        self.hit_words
    }

    /// Handler fetches counted as L1 I hits of the line the previous fetch
    /// left (`run_handler`; tests use it to prove that path ran).
    pub fn handler_fetch_repeats(&self) -> u64 {
        self.handler_fetch_repeats
    }

    /// Starts recording the references into the caches that a machine
    /// with larger direct-mapped L1s must replay (`Recorded`;
    /// `crate::replay` says when that is exact and checks it). The hit
    /// loop then completes reads and fetches only: a write hit sets a
    /// dirty bit the larger L1s must set too.
    pub fn record(&mut self) {
        self.tap = Some(Vec::new());
        if let Some(ops) = self.hit_ops.as_deref_mut() {
            hit_run::stop_at_writes(ops);
        }
    }

    /// Moves what was recorded since the last call into `into` (cleared first).
    pub fn take_recorded(&mut self, into: &mut Vec<Recorded>) {
        into.clear();
        if let Some(t) = self.tap.as_mut() {
            std::mem::swap(t, into);
        }
    }

    #[inline(never)]
    fn record_ref(&mut self, r: Recorded) {
        if let Some(t) = self.tap.as_mut() {
            t.push(r);
        }
    }

    /// How many L1/L2 lookups took the direct-mapped VIVT probe (tests use
    /// it to prove that path ran; 0 in the general simulator).
    pub fn direct_probes(&self) -> u64 {
        self.mem.direct_probes()
    }

    /// L1 fills counted as L2 hits because a smaller direct-mapped L2 of
    /// the sweep's L2 fan-out hit them (`fanout::l2_inclusion_refusal`).
    pub fn included_fills(&self) -> u64 {
        self.mem.included_fills()
    }

    /// Applies one event.
    pub fn step(&mut self, ev: &Event) -> Result<(), SimError> {
        match ev {
            Event::Access(a) => self.access(a),
            Event::ContextSwitch(_) => {
                self.context_switches += 1;
                self.memo.forget_lines();
                self.memo.forget_pages();
                SWITCH.apply(self).map(drop)
            }
            Event::FlushAll => {
                self.flushes += 1;
                self.flush_all().map(drop)
            }
            // Markers for the OS models; no cache or TLB sees them.
            Event::Syscall(_) | Event::SyscallArg(_) => Ok(()),
        }
    }

    /// One user reference (the bulk of every trace).
    #[inline(always)]
    fn access(&mut self, a: &Access) -> Result<(), SimError> {
        self.user_access(a.kind, a.size, a.asid.0, a.addr.0)
    }

    #[inline(always)]
    fn user_access(&mut self, kind: AccessKind, size: u32, asid: u32, addr: u64) -> Result<(), SimError> {
        self.access_counts[kind as usize] += 1;
        if kind == AccessKind::Ifetch && self.protect_every > 0 {
            self.protect_tick();
        }
        let va = match self.fold.as_mut() {
            Some(f) => match f.fold(asid, addr) {
                Some(va) => va,
                None => return Err(SimError::FoldOverflow { asid, scheme: self.scheme.name() }),
            },
            None => addr,
        };
        self.memo.access_delta = va.wrapping_sub(addr);
        self.memo.access_region = addr >> REGION_SHIFT;
        let size = u64::from(size.max(1));
        let first = FIRST_REQUEST[kind as usize];
        self.reference(first, asid, va, size)?;
        if kind == AccessKind::Modify {
            self.reference(RefKind::Write, asid, va, size)?;
        }
        Ok(())
    }

    #[inline(never)]
    fn protect_tick(&mut self) {
        self.protect_countdown += 1;
        if self.protect_countdown >= self.protect_every {
            self.protect_countdown = 0;
            if let Some((asid, va)) = self.last_data {
                self.protection_change(Asid(asid), VirtAddr(va));
            }
        }
    }

    fn flush_all(&mut self) -> Result<FlushStats, SimError> {
        self.memo.forget_lines();
        let mark = self.mem.transfer_mark();
        let found = self.mem.flush_all();
        if let Some(t) = self.tap.as_mut() {
            t.push(Recorded::Flush);
        }
        self.after_access(mark, None)?;
        Ok(found)
    }

    /// One reference: one piece per L1 line it touches.
    #[inline(always)]
    fn reference(&mut self, kind: RefKind, asid: u32, va: u64, size: u64) -> Result<(), SimError> {
        let s = side(kind);
        let shift = self.l1_shift[s];
        // Most references lie within one L1 line.
        if (va & ((1 << shift) - 1)) + size <= 1 << shift {
            return self.user_piece(kind, asid, va, size);
        }
        self.reference_split(kind, asid, va, size)
    }

    /// A reference crossing out of its first L1 line: that line's piece,
    /// then the rest as a reference of its own (at most one more piece for
    /// any reference shorter than a line). The end is clamped to the
    /// address space, as a piece can hold no address past it.
    #[inline(never)]
    fn reference_split(&mut self, kind: RefKind, asid: u32, va: u64, size: u64) -> Result<(), SimError> {
        let line_last = va | ((1 << self.l1_shift[side(kind)]) - 1);
        let last = va.saturating_add(size - 1);
        if line_last >= last {
            return self.user_piece(kind, asid, va, last - va + 1);
        }
        self.user_piece(kind, asid, va, line_last - va + 1)?;
        self.reference(kind, asid, line_last + 1, last - line_last)
    }

    #[inline(always)]
    fn user_piece(&mut self, kind: RefKind, asid: u32, va: u64, size: u64) -> Result<(), SimError> {
        let s = side(kind);
        if s == 1 {
            self.last_data = Some((asid, va));
        }
        let ln = va >> self.l1_shift[s];
        if kind != RefKind::Write && self.memo.last[s] == Some((asid, ln)) && self.fast {
            self.repeats[kind as usize] += 1;
            self.sides[s].l1_hit_tlb_hit += 1;
            return Ok(());
        }
        self.user_piece_lookup(kind, s, ln, asid, va, size)
    }

    /// A piece that is not a repeat: translate as the scheme says, access,
    /// count.
    #[inline(always)]
    fn user_piece_lookup(
        &mut self,
        kind: RefKind,
        s: usize,
        ln: u64,
        asid: u32,
        va: u64,
        size: u64,
    ) -> Result<(), SimError> {
        self.current_space = asid;
        if self.at == TranslateAt::L2Miss && self.fast {
            return self.user_piece_at_memory(kind, s, ln, asid, va, size);
        }
        let mut tlb_miss = false;
        let pa = match self.at {
            TranslateAt::Never => match self.mapper.as_mut() {
                Some(m) => m.translate(Asid(asid), VirtAddr(va))?.0,
                None => va,
            },
            TranslateAt::EveryAccess => {
                let resident = if self.fast { self.memo.resident_pa(s, asid, va) } else { None };
                if let Some(pa) = resident {
                    self.page_repeats[s] += 1;
                    pa
                } else {
                    let (pa, miss) = self.tlb_translate(s, asid, va)?;
                    tlb_miss = miss;
                    if self.fast {
                        self.note_lookup(s, asid, va, pa, !miss);
                    }
                    if self.shared_tlb_order {
                        // This lookup reordered the TLB the other side's repeat
                        // would have refreshed: that repeat must look up.
                        self.memo.last[1 - s] = None;
                    }
                    pa
                }
            }
            TranslateAt::L1Miss => {
                let r = LineRef { vaddr: VirtAddr(va), paddr: PhysAddr(va), asid: Asid(asid) };
                if self.mem.l1(kind).contains(r) {
                    // A virtual L1 hit needs no translation; the physical
                    // address is only kept for write-backs to a physical L2.
                    self.physical_of(asid, va).unwrap_or(va)
                } else {
                    let (pa, miss) = self.tlb_translate(s, asid, va)?;
                    tlb_miss = miss;
                    pa
                }
            }
            TranslateAt::L2Miss => {
                let r = LineRef { vaddr: VirtAddr(va), paddr: PhysAddr(va), asid: Asid(asid) };
                if !self.mem.resident(kind, r) {
                    self.translate_at_memory(asid, va)?;
                }
                va
            }
        };
        let mark = self.mem.transfer_mark();
        let r = LineRef { vaddr: VirtAddr(va), paddr: PhysAddr(pa), asid: Asid(asid) };
        let level = if self.fast { self.mem.access_fast(kind, r, size) } else { self.mem.access(kind, r, size) };
        if self.tap.is_some() && (kind == RefKind::Write || level != L1) {
            self.record_ref(Recorded::User { kind, r, size, tlb_miss });
        }
        self.count_side(s, level, tlb_miss);
        // A read always leaves its line in L1; a write only if it hit. Set
        // after the access (handlers that ran before it cleared `last`) but
        // before translating the transfers it caused: those handlers' own
        // references may evict the line, and clear `last` again.
        self.memo.last[s] = (kind != RefKind::Write || level == L1).then_some((asid, ln));
        if self.at == TranslateAt::L2Miss {
            self.after_access(mark, Some((va, asid)))?;
        }
        Ok(())
    }

    /// SOFTVM / SPUR, fast: the general path asks whether L1 or L2 holds the
    /// line (`MemSys::resident`, no side effects), translates if neither
    /// does, then accesses. Here the L1 lookup comes first and finishes a
    /// hit (resident, so no translation, and a hit moves nothing to or from
    /// memory, so there is nothing to translate after it either); on an L1
    /// miss, L2 residency decides as before, and the miss is completed
    /// without a second L1 lookup when no handler ran in between (a handler
    /// changes the caches, so then the access starts over).
    #[inline(always)]
    fn user_piece_at_memory(
        &mut self,
        kind: RefKind,
        s: usize,
        ln: u64,
        asid: u32,
        va: u64,
        size: u64,
    ) -> Result<(), SimError> {
        if self.hit_ops.is_some() {
            // No TLB here: the hit loop needs only the page's fold, which
            // never changes.
            self.memo.remember_page(s, asid, va, va);
        }
        let r = LineRef { vaddr: VirtAddr(va), paddr: PhysAddr(va), asid: Asid(asid) };
        match self.mem.l1_lookup(kind, r) {
            Lookup::Hit(_) => {
                self.sides[s].count(L1, TlbLookup::Hit);
                self.memo.last[s] = Some((asid, ln));
                Ok(())
            }
            Lookup::Miss { set, key } => self.l1_miss_at_memory(kind, set, key, r, size),
            Lookup::Full => {
                if !self.mem.resident(kind, r) {
                    self.translate_at_memory(asid, va)?;
                }
                let mark = self.mem.transfer_mark();
                let level = self.mem.access(kind, r, size);
                self.finish_piece_at_memory(kind, asid, va, level, mark)
            }
        }
    }

    /// A piece that missed L1 (`set`, `key` as `l1_lookup`'s `Miss`,
    /// nothing touched since): L2 residency decides whether to translate
    /// first; then the miss is completed and counted.
    #[inline(always)]
    fn l1_miss_at_memory(
        &mut self,
        kind: RefKind,
        set: usize,
        key: u64,
        r: LineRef,
        size: u64,
    ) -> Result<(), SimError> {
        let (asid, va) = (r.asid.0, r.vaddr.0);
        if self.mem.l2_holds(kind, r) {
            let mark = self.mem.transfer_mark();
            let level = self.mem.l1_missed_l2_hit(kind, set, key, r, size);
            return self.finish_piece_at_memory(kind, asid, va, level, mark);
        }
        self.translate_at_memory(asid, va)?;
        let mark = self.mem.transfer_mark();
        // The handler changed the caches: the access starts over.
        let level = self.mem.access_fast(kind, r, size);
        self.finish_piece_at_memory(kind, asid, va, level, mark)
    }

    /// Counts a piece that missed L1 at `level` and translates what it
    /// moved to or from memory since log position `mark`.
    #[inline(always)]
    fn finish_piece_at_memory(
        &mut self,
        kind: RefKind,
        asid: u32,
        va: u64,
        level: Reached,
        mark: usize,
    ) -> Result<(), SimError> {
        let s = side(kind);
        let ln = va >> self.l1_shift[s];
        self.sides[s].count(level, TlbLookup::Hit);
        self.memo.last[s] = (kind != RefKind::Write || level == L1).then_some((asid, ln));
        self.after_access(mark, Some((va, asid)))
    }

    /// Moves the repeat hits counted by `user_piece` into the L1 and TLB
    /// statistics.
    fn settle(&mut self) {
        self.mem.settle();
        for kind in [RefKind::Ifetch, RefKind::Read] {
            let n = std::mem::take(&mut self.repeats[kind as usize]);
            self.mem.l1(kind).count_repeat_hits(kind, n);
            if self.at == TranslateAt::EveryAccess {
                if let Some(t) = self.tlbs.as_mut() {
                    t.count_repeat_hits(side_of(kind), n);
                }
            }
        }
        for (s, side) in SIDES.iter().enumerate() {
            let n = std::mem::take(&mut self.page_repeats[s]);
            if let Some(t) = self.tlbs.as_mut() {
                t.count_repeat_hits(*side, n);
            }
        }
    }

    /// Memory transfers of mapped lines that the access caused: under a
    /// scheme that translates at memory, each fill other than of the demand
    /// page (translated before the access) and each write-back (if
    /// configured) needs a translation, which may cause more.
    #[inline(always)]
    fn after_access(&mut self, mark: usize, demand: Option<(u64, u32)>) -> Result<(), SimError> {
        // Nothing reached memory (every hit) and nothing waits (a nested
        // call drains the queue, in order): nothing to translate.
        if self.at != TranslateAt::L2Miss || (!self.mem.transferred_since(mark) && self.pending.is_empty()) {
            return Ok(());
        }
        self.translate_transfers(mark, demand)
    }

    #[inline(never)]
    fn translate_transfers(&mut self, mark: usize, demand: Option<(u64, u32)>) -> Result<(), SimError> {
        let page = self.cfg.page_size.bytes();
        let demand_page = demand.map(|(va, asid)| (va / page, asid));
        let retranslate = self.cfg.retranslate_writebacks;
        for t in self.mem.transfers_since(mark) {
            if t.cause == Cause::Fill && demand_page == Some((t.vaddr.0 / page, t.space.0)) {
                continue;
            }
            // Write-throughs count as write-backs here, as they always did.
            if t.cause.is_write() && !retranslate {
                continue;
            }
            self.pending.push_back((t.vaddr.0, t.space.0));
        }
        while let Some((va, asid)) = self.pending.pop_front() {
            self.writeback_translations += 1;
            let mark = self.mem.transfer_mark();
            self.translate_at_memory(asid, va)?;
            // Transfers the handler's own references caused join the queue.
            for t in self.mem.transfers_since(mark) {
                if t.cause.is_write() && !retranslate {
                    continue;
                }
                self.pending.push_back((t.vaddr.0, t.space.0));
            }
        }
        Ok(())
    }

    /// A page-protection change (section 5.6): every line of the page is
    /// checked in L1 D and in the L2 that serves data; the lines present
    /// are updated instead. `va` is a (folded) user address. Returns the
    /// cycles, which are also added to the run's protection total.
    pub fn protection_change(&mut self, asid: Asid, va: VirtAddr) -> u64 {
        let (asid, va) = (asid.0, va.0);
        let page = self.cfg.page_size.bytes();
        let base = va & !(page - 1);
        let c = self.cfg.costs;
        let mut cycles = 0;
        for (l2, check, update) in
            [(false, c.l1_check_cycles, c.l1_update_cycles), (true, c.l2_check_cycles, c.l2_update_cycles)]
        {
            let line =
                if l2 { self.mem.l2(RefKind::Read).line_bytes() } else { self.mem.l1(RefKind::Read).line_bytes() };
            let lines = page / line;
            let mut present = 0;
            for i in 0..lines {
                let a = base + i * line;
                let pa = self.physical_of(asid, a).unwrap_or(a);
                let r = LineRef { vaddr: VirtAddr(a), paddr: PhysAddr(pa), asid: Asid(asid) };
                let cache = if l2 { self.mem.l2(RefKind::Read) } else { self.mem.l1(RefKind::Read) };
                present += u64::from(cache.contains(r));
            }
            cycles += present * update + (lines - present) * check;
        }
        self.protection_changes += 1;
        self.protection_cycles += cycles;
        cycles
    }

    /// The physical address of a user address, if its page is mapped.
    fn physical_of(&self, asid: u32, va: u64) -> Option<u64> {
        let table = self.table.as_ref()?;
        let page = self.cfg.page_size.bytes();
        table.lookup(Asid(asid), Vpn(va / page)).map(|pfn| pfn.0 * page + va % page)
    }

    /// Maps a user page on first touch (the paper excludes page-table
    /// initialisation from VMCPI: it costs nothing here).
    fn ensure_mapped(&mut self, asid: u32, va: u64) -> Result<(), SimError> {
        let page = self.cfg.page_size.bytes();
        let Some(table) = self.table.as_mut() else { return Ok(()) };
        let vpn = Vpn(va / page);
        if va < USER_LIMIT.0 && table.lookup(Asid(asid), vpn).is_none() {
            let pfn = self.frames.alloc().map_err(TableError::from)?;
            table.insert(Asid(asid), vpn, pfn, &mut self.frames)?;
        }
        Ok(())
    }

    /// The frame behind any mapped address: a user page from the table, a
    /// kernel-mapped table page by walking to the PTE that maps it and
    /// reading it.
    fn frame_of(&mut self, space: u32, va: u64, depth: u32) -> Result<u64, SimError> {
        let page = self.cfg.page_size.bytes();
        let table = self.table.as_ref().ok_or_else(|| SimError::Config("no page table".into()))?;
        if va < USER_LIMIT.0 {
            return table
                .lookup(Asid(space), Vpn(va / page))
                .map(|pfn| pfn.0)
                .ok_or(SimError::Table(TableError::NotMapped { space: Asid(space), vpn: Vpn(va / page) }));
        }
        let mut refs = Vec::new();
        table.walk(Asid(space), VirtAddr(va), &mut refs)?;
        let pte = *refs.last().ok_or_else(|| SimError::Config(format!("empty walk for {va:#x}")))?;
        let pa = match pte.at {
            PteAddr::Mapped(at) => {
                if depth > 4 {
                    return Err(SimError::Config(format!("page-table walk for {va:#x} does not end")));
                }
                PhysAddr(self.frame_of(space, at.0, depth + 1)? * page + at.0 % page)
            }
            PteAddr::Physical(pa) => pa,
        };
        let table = self.table.as_ref().ok_or_else(|| SimError::Config("no page table".into()))?;
        table
            .pte_at(pa)
            .map(|pfn| pfn.0)
            .ok_or(SimError::Table(TableError::NotMapped { space: Asid(space), vpn: Vpn(va / page) }))
    }

    /// A TLB lookup on side `s`, refilling on a miss. Returns the physical
    /// address and whether the TLB missed.
    #[inline(always)]
    fn tlb_translate(&mut self, s: usize, asid: u32, va: u64) -> Result<(u64, bool), SimError> {
        let Some(tlbs) = self.tlbs.as_mut() else {
            return Err(SimError::Config(format!("scheme {} has no TLB", self.scheme.name())));
        };
        if let Some(e) = tlbs.lookup(SIDES[s], Asid(asid), VirtAddr(va))? {
            return Ok((e.translate(VirtAddr(va)).0, false));
        }
        self.tlb_missed(s, asid, va)
    }

    /// After a user piece's TLB lookup on side `s` (one that hit, `hit`,
    /// or missed and refilled): what the hit loop may take as a TLB hit
    /// that changes nothing. With pure lookups, every page seen hitting or
    /// just refilled since the last insert or purge (the refill inserts the
    /// piece's page last, so it stays until the next); otherwise only the
    /// latest page whose lookup hit on that side, and on neither side once
    /// this lookup reordered a TLB both share. A page is kept by its raw
    /// (trace) address, and only where this piece lies in its access's
    /// first fold region (so folding the raw page gives this one).
    fn note_lookup(&mut self, s: usize, asid: u32, va: u64, pa: u64, hit: bool) {
        if !self.memo.pure_lookups {
            self.memo.forget_latest(s);
            if self.shared_tlb_order {
                self.memo.forget_latest(1 - s);
            }
        }
        if hit || self.memo.pure_lookups {
            self.memo.remember_page(s, asid, va, pa);
        }
    }

    /// The TLB missed (and counted it): refill, then read the new entry.
    #[inline(never)]
    fn tlb_missed(&mut self, s: usize, asid: u32, va: u64) -> Result<(u64, bool), SimError> {
        self.refill(s, asid, va)?;
        let tlbs = self.tlbs.as_mut().ok_or_else(|| SimError::Config("no TLB".into()))?;
        let e = tlbs
            .probe(SIDES[s], Asid(asid), VirtAddr(va))
            .ok_or_else(|| SimError::Config(format!("refill of {va:#x} left no TLB entry")))?;
        Ok((e.translate(VirtAddr(va)).0, true))
    }

    /// A TLB refill: the handler (or walker) for the tier of the PTE that
    /// maps `va`, its PTE loads (each of which may miss the D-TLB itself and
    /// recurse one tier up), then the insert.
    fn refill(&mut self, s: usize, asid: u32, va: u64) -> Result<(), SimError> {
        self.memo.forget_lines();
        if !self.memo.pure_lookups {
            self.memo.forget_pages();
        }
        self.ensure_mapped(asid, va)?;
        self.walk_and_load(asid, va)?;
        let page = self.cfg.page_size;
        let frame = self.frame_of(asid, va, 0)?;
        let entry = TlbEntry::new(Asid(asid), VirtAddr(va), PhysAddr(frame * page.bytes()), page);
        // Kernel mappings are global and wired.
        let (entry, slot) = if va >= USER_LIMIT.0 { (entry.global(), Slot::Wired) } else { (entry, Slot::Normal) };
        let evicted = match self.tlbs.as_mut() {
            Some(tlbs) => tlbs.insert(SIDES[s], entry, slot)?,
            None => None,
        };
        if let Some(e) = evicted {
            self.memo.forget_evicted(e);
        }
        Ok(())
    }

    /// The work of one translation: walk the table for `va`, run the
    /// handler for the first PTE's tier (or count a hardware walk), then load
    /// every PTE of the walk (each may recurse one tier up).
    fn walk_and_load(&mut self, space: u32, va: u64) -> Result<(), SimError> {
        let mut refs = std::mem::take(&mut self.walk);
        refs.clear();
        let walked = self.table.as_ref().map(|t| t.walk(Asid(space), VirtAddr(va), &mut refs));
        match walked {
            Some(r) => r?,
            None => return Err(SimError::Config("no page table".into())),
        }
        let first_tier = refs.first().map_or(Tier::User, |p| p.tier);
        if self.scheme.software_refill() {
            self.run_handler(self.handler_for(first_tier))?;
        } else {
            self.walker_refills += 1;
        }
        for &pte in &refs {
            self.load_pte(space, pte)?;
        }
        self.walk = refs;
        Ok(())
    }

    fn handler_for(&self, tier: Tier) -> Handler {
        match tier {
            Tier::User => Handler::User,
            Tier::Kernel => Handler::Kernel,
            Tier::Root if self.scheme == Scheme::Mach => Handler::MachRoot,
            Tier::Root => Handler::Root,
        }
    }

    fn handler_config(&self, h: Handler) -> crate::config::HandlerConfig {
        let hs = &self.cfg.handlers;
        match h {
            Handler::User => hs.user,
            Handler::Kernel => hs.kernel,
            Handler::Root => hs.root,
            Handler::MachRoot => hs.mach_root,
        }
    }

    /// Executes a handler: its entry cost and instructions, each fetched
    /// through the I-caches from unmapped space, then its administrative
    /// loads. Its PTE loads are the caller's.
    fn run_handler(&mut self, h: Handler) -> Result<(), SimError> {
        let hc = self.handler_config(h);
        self.handler_runs[h as usize] += 1;
        let mechanism = match h {
            Handler::User => Mechanism::UserHandler,
            Handler::Kernel => Mechanism::KernelHandler,
            Handler::Root | Handler::MachRoot => Mechanism::RootHandler,
        };
        let base = HANDLER_PA[h as usize];
        let code = Code {
            start: unmapped(PhysAddr(base)),
            phys: PhysAddr(base),
            space: TRACE_KERNEL_SPACE,
            instructions: hc.instructions,
            instruction_bytes: INSTRUCTION_BYTES,
        };
        let prev = self.enter(mechanism);
        self.ledger.instructions(code.instructions);
        self.mem.sweep_mut().instructions(code.instructions);
        // `OnCpu::run_code`'s fetches, through this simulator's caches. A
        // fetch of the line the previous fetch left in a direct-probed L1 I
        // is a hit that changes nothing but the probe counts, as long as
        // that fetch started no translation (none ran a handler whose
        // references could evict the line): `kernel_access` would do only
        // that, so it is counted instead (`handler_fetch_repeats`).
        let repeats_ok = self.fast && self.mem.l1i_direct();
        let shift = self.l1_shift[0];
        let mut resident = None;
        for (va, pa) in code.fetches() {
            self.handler_fetches += 1;
            let line = va.0 >> shift;
            if resident == Some(line) {
                self.mem.count_l1_hits([1, 0, 0]);
                self.handler_fetch_repeats += 1;
                continue;
            }
            let translations = self.writeback_translations;
            self.kernel_access(RefKind::Ifetch, va.0, pa.0, code.instruction_bytes)?;
            resident = (repeats_ok && self.writeback_translations == translations).then_some(line);
        }
        for i in 0..hc.admin_loads {
            let pa = ADMIN_PA + i * ADMIN_STRIDE;
            self.admin_loads += 1;
            self.kernel_access(RefKind::Read, unmapped(PhysAddr(pa)).0, pa, 4)?;
        }
        self.leave(prev);
        Ok(())
    }

    /// Starts attributing the VM system's work to `m`, in this machine's
    /// ledger and every machine of its sweep's (`Ledger::enter`, `L2Sweep`).
    fn enter(&mut self, m: Mechanism) -> Mechanism {
        self.mem.sweep_mut().enter(m);
        self.ledger.enter(m)
    }

    fn leave(&mut self, prev: Mechanism) {
        self.mem.sweep_mut().leave(prev);
        self.ledger.leave(prev);
    }

    /// Records a kernel request that missed L1 for the running mechanism,
    /// at the level that served it, and for each fan-out machine at the
    /// level its own L2 served it. An L1 hit costs nothing in VMCPI and is
    /// not recorded: most kernel references are handler fetches that hit L1
    /// I (SOFTVM runs a handler per L2 miss), and recording them cost
    /// SOFTVM 1.4 % more instructions per reference. In an L1-hit
    /// filter's group it also reports the line: a hit changes no L1 line,
    /// a miss replaces its set's (`filter_marks`).
    fn record_request(&mut self, kind: RefKind, vaddr: u64, level: Reached) {
        if level == L1 {
            return;
        }
        self.ledger.request(kind, level);
        self.mem.sweep_mut().request(kind);
        if let Some(m) = self.filter_marks.as_mut() {
            let s = side(kind);
            m.push((s, vaddr >> self.l1_shift[s]));
        }
    }

    /// Counts a user piece by the level that served it and its TLB
    /// outcome, for this machine and every fan-out machine (whose L1 hits
    /// are this machine's, so only the levels below are counted there).
    #[inline(always)]
    fn count_side(&mut self, s: usize, level: Reached, tlb_miss: bool) {
        let tlb = TlbLookup::of_miss(tlb_miss);
        self.sides[s].count(level, tlb);
        if level != L1 && !self.mem.sweep().is_empty() {
            self.mem.sweep_mut().count(s, tlb);
        }
    }

    /// One PTE load through the D-caches. A PTE at a mapped address needs
    /// its own translation first: through the D-TLB (TLB schemes), or, at
    /// memory, a handler one tier up (SOFTVM, SPUR).
    fn load_pte(&mut self, space: u32, pte: PteRef) -> Result<(), SimError> {
        self.pte_loads += 1;
        let bytes = u64::from(pte.bytes.max(1));
        let (addr, pa) = match pte.at {
            PteAddr::Mapped(VirtAddr(va)) => match self.at {
                TranslateAt::L2Miss => {
                    let r = LineRef { vaddr: VirtAddr(va), paddr: PhysAddr(va), asid: TRACE_KERNEL_SPACE };
                    if !self.mem.resident(RefKind::Read, r) {
                        self.translate_at_memory(space, va)?;
                    }
                    (va, va)
                }
                _ => {
                    let (pa, _) = self.tlb_translate(1, space, va)?;
                    (va, pa)
                }
            },
            PteAddr::Physical(PhysAddr(pa)) => (unmapped(PhysAddr(pa)).0, pa),
        };
        let prev = self.enter(match pte.tier {
            Tier::User => Mechanism::UserPte,
            Tier::Kernel => Mechanism::KernelPte,
            Tier::Root => Mechanism::RootPte,
        });
        self.kernel_access(RefKind::Read, addr, pa, bytes)?;
        self.leave(prev);
        Ok(())
    }

    /// A kernel reference (handler fetch, PTE or admin load) through the
    /// caches, recorded for the running mechanism. Under a scheme that
    /// translates at memory, the write-backs it forces are translated like
    /// any other.
    fn kernel_access(&mut self, kind: RefKind, vaddr: u64, paddr: u64, size: u64) -> Result<(), SimError> {
        self.memo.forget_lines();
        let mark = self.mem.transfer_mark();
        let r = LineRef { vaddr: VirtAddr(vaddr), paddr: PhysAddr(paddr), asid: TRACE_KERNEL_SPACE };
        // Handler fetches mostly hit L1 I: the inline hit check serves them
        // as it serves user pieces (same result and state as `access`).
        let level = if self.fast { self.mem.access_fast(kind, r, size) } else { self.mem.access(kind, r, size) };
        self.record_request(kind, vaddr, level);
        if self.tap.is_some() && (kind == RefKind::Write || level != L1) {
            self.record_ref(Recorded::Kernel { kind, r, size, mechanism: self.ledger.now() });
        }
        self.after_access(mark, Some((vaddr, TRACE_KERNEL_SPACE.0)))
    }

    /// SOFTVM / SPUR: translate the line at `va` that is about to come from
    /// (or go to) memory: the handler (or state machine) for the tier of the
    /// PTE mapping it, and its PTE load, which may recurse.
    fn translate_at_memory(&mut self, asid: u32, va: u64) -> Result<(), SimError> {
        let space = if asid == TRACE_KERNEL_SPACE.0 { self.current_space } else { asid };
        self.ensure_mapped(space, va)?;
        self.walk_and_load(space, va)
    }
}

impl<S: L2Sweep> VmSim<S> {
    /// Applies a slice of events; `first` numbers the first for errors.
    pub fn feed(&mut self, events: &[Event]) -> Result<(), SimError> {
        for ev in events {
            match ev {
                Event::Access(a) => self.access(a)?,
                _ => self.step(ev)?,
            }
        }
        Ok(())
    }

    /// Applies the first `n` events of a packed block (the decoder's
    /// compact form: `vmlab_trace::vmt::packed`), as `feed` would apply them
    /// unpacked, without building an `Event` per reference.
    pub fn feed_packed(&mut self, block: &PackedBlock, n: usize) -> Result<(), SimError> {
        let done = self.feed_packed_words(block, n);
        self.fold_hit_counts();
        done
    }

    fn feed_packed_words(&mut self, block: &PackedBlock, n: usize) -> Result<(), SimError> {
        let mut extra = block.extra.iter();
        // A direct word's address space is that of the latest escape
        // naming one in the block, 0 before any (packed.rs).
        let mut asid = 0u32;
        let words = &block.words()[..n.min(block.words().len())];
        let mut i = 0;
        while i < words.len() {
            if self.hit_ops.is_some() {
                i = self.hit_run(words, i, asid);
            }
            let Some(&w) = words.get(i) else { break };
            i += 1;
            // `feed_word`'s body, written out: calling it here (inlined,
            // `asid` by reference or returned) cost every scheme 0.5-1.5 %
            // more instructions (callgrind, SOFTVM paper grid sample).
            let op = (w >> ADDR_BITS) as u8;
            match OPS.get(usize::from(op)) {
                Some(&(kind, size)) => self.user_access(kind, size, asid, w & ADDR_MASK)?,
                None if op == PACKED_ESCAPE => {
                    let ev = extra
                        .next()
                        .ok_or_else(|| SimError::Config("packed block: an escape word without its event".into()))?;
                    match ev {
                        Event::Access(a) => {
                            asid = a.asid.0;
                            self.access(a)?;
                        }
                        Event::ContextSwitch(a) => {
                            asid = a.0;
                            self.step(ev)?;
                        }
                        Event::FlushAll | Event::Syscall(_) | Event::SyscallArg(_) => self.step(ev)?,
                    }
                }
                None => return Err(SimError::Config(format!("packed block: unknown op {op:#x}"))),
            }
        }
        Ok(())
    }

    /// One packed word through the general path, as `feed_packed_words`
    /// takes it after its hit loop (escapes take their event from
    /// `extra`); `asid` is the block's current address space.
    #[inline(always)]
    pub(crate) fn feed_word(
        &mut self,
        w: u64,
        extra: &mut std::slice::Iter<'_, Event>,
        asid: &mut u32,
    ) -> Result<(), SimError> {
        let op = (w >> ADDR_BITS) as u8;
        match OPS.get(usize::from(op)) {
            Some(&(kind, size)) => self.user_access(kind, size, *asid, w & ADDR_MASK),
            None if op == PACKED_ESCAPE => {
                let ev = extra
                    .next()
                    .ok_or_else(|| SimError::Config("packed block: an escape word without its event".into()))?;
                match ev {
                    Event::Access(a) => {
                        *asid = a.asid.0;
                        self.access(a)
                    }
                    Event::ContextSwitch(a) => {
                        *asid = a.0;
                        self.step(ev)
                    }
                    Event::FlushAll | Event::Syscall(_) | Event::SyscallArg(_) => self.step(ev),
                }
            }
            None => Err(SimError::Config(format!("packed block: unknown op {op:#x}"))),
        }
    }

    /// Completes words from `i` on with the hit loop (`hit_run::hits`) and
    /// moves its counts where the general path would have moved them;
    /// returns the first word it left.
    fn hit_run(&mut self, words: &[u64], i: usize, asid: u32) -> usize {
        let Some(mut ops) = self.hit_ops.take() else { return i };
        let j = self.hit_run_with(&mut ops, words, i, asid);
        self.hit_ops = Some(ops);
        j
    }

    fn hit_run_with(&mut self, ops: &mut [HitOp; 256], words: &[u64], i: usize, asid: u32) -> usize {
        // Pages to test: TLB-resident ones, or (SOFTVM, SPUR: no TLB before
        // memory) pages whose fold is known.
        let paged = matches!(self.at, TranslateAt::EveryAccess | TranslateAt::L2Miss);
        if paged && asid != self.memo.resident_asid {
            return i;
        }
        let Some(mut views) = self.mem.l1_views() else { return i };
        let (pages, shift) = (&*self.memo.resident, self.memo.page_shift);
        let j = if paged {
            hit_run::hits::<true>(&mut views, ops, pages, shift, words, i, Asid(asid))
        } else {
            hit_run::hits::<false>(&mut views, ops, pages, shift, words, i, Asid(asid))
        };
        if j > i {
            self.after_hits(ops, &words[i..j], asid, paged);
        }
        j
    }

    /// What the general path leaves after the words the hit loop just
    /// completed (`done`): the address space, and per side the line of the
    /// latest piece (the repeat line) and the latest data address.
    fn after_hits(&mut self, ops: &[HitOp; 256], done: &[u64], asid: u32, paged: bool) {
        self.current_space = asid;
        let mut seen = [false; 2];
        for &w in done.iter().rev() {
            let s = hit_run::side(ops, w);
            if seen[s] {
                continue;
            }
            seen[s] = true;
            let delta = if paged {
                self.memo.resident[s][hit_run::resident_slot((w & ADDR_MASK) >> self.memo.page_shift)].delta
            } else {
                0
            };
            let (_, line, start) = hit_run::last_piece(ops, w, delta);
            self.memo.last[s] = Some((asid, line));
            if s == 1 {
                self.last_data = Some((asid, start));
            }
            if seen == [true; 2] {
                break;
            }
        }
    }

    /// The hit loop's counts since the last call, where `user_access` would
    /// have put them: each word's pieces are L1 hits with TLB hits
    /// (repeats of a resident page), counted by the direct probes.
    fn fold_hit_counts(&mut self) {
        let Some(ops) = self.hit_ops.as_deref_mut() else { return };
        let t = hit_run::take_counts(ops);
        for (c, n) in self.access_counts.iter_mut().zip(t.words) {
            *c += n;
            self.hit_words += n;
        }
        // Pieces per request kind: a word over two lines is two, and a
        // modify is a read and a write of each line.
        let p: [u64; 4] = std::array::from_fn(|k| t.words[k] + t.two_lines[k]);
        let (i, r, w) = (p[0], p[1] + p[3], p[2] + p[3]);
        self.sides[0].l1_hit_tlb_hit += i;
        self.sides[1].l1_hit_tlb_hit += r + w;
        self.mem.count_l1_hits([i, r, w]);
        if self.at == TranslateAt::EveryAccess {
            self.page_repeats[0] += i;
            self.page_repeats[1] += r + w;
        }
    }

    /// Joins an L1-hit filter's group (`crate::filter`): the filter's
    /// skips take the place of this machine's own hit loop, and each
    /// kernel reference that misses L1 is reported (`take_marks`). False,
    /// changing nothing, where the hit loop would not apply
    /// (`with_hit_loop`) or the scheme does not translate at L2 misses.
    pub(crate) fn join_filter(&mut self) -> bool {
        if self.hit_ops.is_none() || self.at != TranslateAt::L2Miss || self.tap.is_some() || self.fold.is_none() {
            return false;
        }
        self.hit_ops = None;
        self.filter_marks = Some(Vec::new());
        true
    }

    /// A direct user word (`w`, of the block's space `asid`) that an
    /// L1-hit filter found missing its one L1 line where this machine's L1
    /// holds the filter's previous line, another one (`crate::filter`: a
    /// shared stop on an unmarked set). As `feed_word`, less what the
    /// filter's pass already did once for the group: the fold (`va` is
    /// the filter's; `fold_new` when the word folded a region new to it,
    /// which this machine's fold must learn too, in the same order), the
    /// split into pieces (one line) and the L1 look-up (a miss).
    #[inline(always)]
    pub(crate) fn filter_miss(&mut self, w: u64, va: u64, asid: u32, fold_new: bool) -> Result<(), SimError> {
        let (kind, size) = OPS[usize::from((w >> ADDR_BITS) as u8)];
        let raw = w & ADDR_MASK;
        let first = FIRST_REQUEST[kind as usize];
        let r = LineRef { vaddr: VirtAddr(va), paddr: PhysAddr(va), asid: Asid(asid) };
        let Some((set, key)) = self.mem.l1_known_miss(first, r) else {
            return self.user_access(kind, size, asid, raw);
        };
        debug_assert!(self.fast && self.hit_ops.is_none() && self.protect_every == 0 && self.at == TranslateAt::L2Miss);
        self.access_counts[kind as usize] += 1;
        if fold_new {
            if let Some(f) = self.fold.as_mut() {
                let folded = f.fold(asid, raw);
                debug_assert_eq!(folded, Some(va));
            }
        }
        self.memo.access_delta = va.wrapping_sub(raw);
        self.memo.access_region = raw >> REGION_SHIFT;
        let size = u64::from(size.max(1));
        // `user_piece`, less the repeat test: the line is not in L1.
        if first != RefKind::Ifetch {
            self.last_data = Some((asid, va));
        }
        self.current_space = asid;
        self.l1_miss_at_memory(first, set, key, r, size)?;
        if kind == AccessKind::Modify {
            self.reference(RefKind::Write, asid, va, size)?;
        }
        Ok(())
    }

    /// L1 line shifts (I, D).
    pub(crate) fn l1_shifts(&self) -> [u32; 2] {
        self.l1_shift
    }

    /// Whether a kernel reference missed L1 since the last `take_marks`
    /// (a test, without moving the marks).
    #[inline(always)]
    pub(crate) fn has_marks(&self) -> bool {
        self.filter_marks.as_ref().is_some_and(|m| !m.is_empty())
    }

    /// Moves the (side, L1 line) of the kernel references that missed L1
    /// since the last call into `into` (cleared first).
    pub(crate) fn take_marks(&mut self, into: &mut Vec<(usize, u64)>) {
        into.clear();
        if let Some(m) = self.filter_marks.as_mut() {
            std::mem::swap(m, into);
        }
    }

    /// Whether the L1 of side `s` holds virtual line `line` of `asid`.
    pub(crate) fn l1_holds(&mut self, s: usize, line: u64, asid: u32) -> bool {
        // The direct probe, not a view: building both sides' (`l1_views`)
        // per stop cost the filter's machines 2.4 % of their instructions,
        // one side's about 2 %. A filter's L1s always have the probe
        // (`filter_refusal`); the view stays for any other.
        if let Some(held) = self.mem.l1_holds(s, VirtAddr(line << self.l1_shift[s]), Asid(asid)) {
            return held;
        }
        let kind = if s == 0 { RefKind::Ifetch } else { RefKind::Read };
        self.mem.l1(kind).virtual_direct().is_some_and(|v| v.resident(LineNo(line), Asid(asid)))
    }

    /// Words a filter completed as L1 hits (`crate::filter`), where the
    /// general path would have counted them: `words` by `AccessKind`
    /// index, `pieces` per request kind (fetch, read, write), every one an
    /// L1 hit (no TLB before memory). Sums, read only by the results, so a
    /// filter adds a block's at once.
    pub(crate) fn count_filtered(&mut self, words: [u64; 4], pieces: [u64; 3]) {
        for (c, n) in self.access_counts.iter_mut().zip(words) {
            *c += n;
        }
        self.sides[0].l1_hit_tlb_hit += pieces[0];
        self.sides[1].l1_hit_tlb_hit += pieces[1] + pieces[2];
        self.mem.count_l1_hits(pieces);
    }

    /// What a run of words a filter completed as L1 hits leaves besides
    /// counts and dirty bits (`filtered_write`), before the next word this
    /// machine takes itself: `asid` as the latest user reference's space.
    #[inline]
    pub(crate) fn filtered_run(&mut self, asid: u32) {
        self.current_space = asid;
    }

    /// A write such a run made to L1 D line `line` of `asid`, resident:
    /// its dirty bit (a later eviction writes it back).
    #[inline]
    pub(crate) fn filtered_write(&mut self, line: u64, asid: u32) {
        // The direct probe per line, not a view per run: building a view
        // was most of a run's cost. A filter's L1 D always has the probe
        // (`filter_refusal`); the view stays for any other.
        let hit = match self.mem.l1d_store_hit(VirtAddr(line << self.l1_shift[1]), Asid(asid)) {
            Some(hit) => hit,
            None => self
                .mem
                .l1(RefKind::Write)
                .virtual_direct()
                .is_some_and(|mut d| d.hit(LineNo(line), Asid(asid), DataRef::Store)),
        };
        debug_assert!(hit, "a filtered write to line {line:#x} missed");
    }

    /// Runs a whole trace, block by block (memory stays bounded).
    /// `progress` gets the events done so far after each block; an `Err`
    /// from it stops the run.
    pub fn run(
        &mut self,
        src: &mut dyn EventSource,
        origin: &str,
        progress: &mut dyn FnMut(u64, (u64, Option<u64>)) -> Result<(), String>,
    ) -> Result<VmResult, SimError> {
        let mut buf = PackedBlock::new();
        let mut n = 0u64;
        while src.fill_packed(&mut buf)? {
            self.feed_packed(&buf, buf.len())?;
            n += buf.len() as u64;
            progress(n, src.progress()).map_err(|reason| SimError::Interrupted { events: n, reason })?;
        }
        Ok(self.result(origin))
    }

    /// The user instructions so far (every instruction fetch of the trace).
    fn user_instructions(&self) -> u64 {
        self.access_counts[AccessKind::Ifetch as usize]
    }

    /// VMCPI so far: the ledger priced by the configuration's costs.
    pub fn vmcpi(&self) -> Vmcpi {
        Vmcpi::priced(&self.ledger, self.cfg.costs, self.user_instructions())
    }

    pub fn result(&mut self, origin: &str) -> VmResult {
        self.settle();
        let vmcpi = self.vmcpi();
        let k = vmcpi.user_instructions.max(1) as f64 / 1000.0;
        VmResult {
            config: self.cfg.name.clone(),
            scheme: self.scheme.name().to_string(),
            trace: origin.to_string(),
            user_instructions: vmcpi.user_instructions,
            accesses: self.access_counts,
            vmcpi: vmcpi.total(),
            vm_cycles: vmcpi.total_cycles(),
            components: component_rows(&vmcpi),
            i_side: self.sides[0],
            d_side: self.sides[1],
            has_tlb: self.tlbs.is_some(),
            l2i_misses_per_kinstr: self.sides[0].l2_misses() as f64 / k,
            l2d_misses_per_kinstr: self.sides[1].l2_misses() as f64 / k,
            itlb: self.tlbs.as_ref().map(|t| t.main_stats(Side::I)),
            dtlb: self.tlbs.as_ref().map(|t| t.main_stats(Side::D)),
            tlbs: self.tlbs.as_ref().map(TlbSet::stats).unwrap_or_default(),
            handler_runs: self.handler_runs,
            handler_fetches: self.handler_fetches,
            pte_loads: self.pte_loads,
            admin_loads: self.admin_loads,
            walker_refills: self.walker_refills,
            writeback_translations: self.writeback_translations,
            context_switches: self.context_switches,
            flushes: self.flushes,
            protection_changes: self.protection_changes,
            protection_cycles: self.protection_cycles,
            protection_cpi: if vmcpi.user_instructions > 0 {
                self.protection_cycles as f64 / vmcpi.user_instructions as f64
            } else {
                0.0
            },
            page_table: self.table.as_ref().map(|t| t.memory()),
            page_table_kind: self.table.as_ref().map(|t| t.name().to_string()),
            folded_regions: self.fold.as_ref().map_or(0, Fold::regions),
            caches: self
                .mem
                .stats()
                .into_iter()
                .map(|(name, stats)| crate::result::NamedCache { name: name.to_string(), stats })
                .collect(),
            memory: *self.mem.memory(),
        }
    }

    /// One result per configuration (`configs`): this machine's, then each
    /// fan-out machine's, which shares everything decided above L2 and
    /// has its own L2, memory traffic, and the counts and VMCPI components
    /// that depend on them.
    pub fn results(&mut self, origin: &str) -> Vec<VmResult> {
        let own = self.result(origin);
        let user = self.user_instructions();
        let more = self.mem.sweep().results(&own, self.sides, &|ledger, cfg| Vmcpi::priced(ledger, cfg.costs, user));
        let mut out = Vec::with_capacity(1 + more.len());
        out.push(own);
        out.extend(more);
        out
    }
}

/// The simulator's caches (its L1s and L2s; an added L2 of a fan-out
/// follows its leader) and TLBs, as a context switch acts on them.
impl<S: L2Sweep> SwitchSite for VmSim<S> {
    type Error = SimError;

    fn cache_configs(&self) -> Vec<&CacheConfig> {
        self.mem.caches().into_iter().map(|(_, c)| c.config()).collect()
    }

    fn each_tlb(&mut self, f: &mut dyn FnMut(&mut Tlb)) {
        if let Some(tlbs) = self.tlbs.as_mut() {
            tlbs.all_mut().for_each(f);
        }
    }

    fn flush_caches(&mut self) -> Result<FlushStats, SimError> {
        self.flush_all()
    }
}

pub(crate) fn component_rows(v: &Vmcpi) -> Vec<crate::result::VmcpiRow> {
    v.rows()
        .into_iter()
        .map(|(tag, events, cycles, frequency, vmcpi)| crate::result::VmcpiRow {
            component: tag.to_string(),
            events,
            cycles,
            frequency,
            vmcpi,
        })
        .collect()
}
