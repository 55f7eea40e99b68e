//! Every size of an LRU TLB from one pass over a trace, and the single run
//! of one TLB it must agree with.
//!
//! A TLB point is one `vmlab_mmu::TlbConfig` and which references it
//! translates (`Serves`). Its run: every reference it serves looks up each
//! page it touches (a read-modify-write translates once); a miss inserts
//! the entry; a context switch purges every entry when the TLB has no ASID
//! tags (`Tlb::purge_asid`, as an OS must), and leaves it alone when it
//! has. A flush marker is for the caches and leaves the TLB alone.
//! `TlbRun` is that run on the engine's own `Tlb`; `TlbSweep` gives every
//! entry count and associativity of an LRU TLB from one pass: per set
//! count, one LRU stack of page numbers per set (Mattson et al. 1970), the
//! set `vpn % sets` as `Tlb` places an entry, keyed by (page, ASID) with
//! tags and by page alone without. A lookup found at depth `p` hits in
//! every point of more than `p` ways. It evicts in the point of `a` ways
//! when it misses there and the set held `a` entries: when `min(p, len)
//! >= a`, `len` the set's entries since the last purge. A purge removes
//! `min(len, a)` entries per set. So hits, misses, inserts (= misses),
//! evictions and purged entries are exact (`tests/tlb_vs_single.rs`).

use serde::{Deserialize, Serialize};
use vmlab_addr::{Asid, PageSize, PhysAddr, VirtAddr};
use vmlab_cache::Assoc;
use vmlab_machine::{decode_ahead, EventCounts, Progress, RunError};
use vmlab_mmu::{Slot, Tlb, TlbConfig, TlbEntry, TlbReplacement, TlbStats};
use vmlab_trace::vmt::packed::{asid_after, ADDR_BITS, ADDR_MASK, OPS, PACKED_ESCAPE};
use vmlab_trace::{AccessKind, Event, EventSource, FetchSkip, PackedBlock, TraceError};

/// Which references a TLB translates.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Serves {
    /// Instruction fetches and data references (a unified TLB).
    #[default]
    All,
    /// Loads, stores and read-modify-writes (a data TLB).
    Data,
    /// Instruction fetches (an instruction TLB).
    Instructions,
}

impl Serves {
    fn serves(self, kind: AccessKind) -> bool {
        match self {
            Serves::All => true,
            Serves::Data => kind != AccessKind::Ifetch,
            Serves::Instructions => kind == AccessKind::Ifetch,
        }
    }
}

/// One TLB of a sweep: its configuration and the references it serves.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TlbPoint {
    #[serde(default)]
    pub name: String,
    pub tlb: TlbConfig,
    #[serde(default)]
    pub serves: Serves,
}

impl TlbPoint {
    /// Why this point cannot run at all, or `None`: the TLB must be valid
    /// and hold one page size (a trace does not say which page a
    /// reference's mapping uses, so several sizes have no single answer).
    pub fn check(&self) -> Result<PageSize, String> {
        Tlb::new(self.tlb.clone()).map_err(|e| format!("tlb: {e}"))?;
        match self.tlb.page_sizes.as_slice() {
            [one] => PageSize::new(*one).map_err(|e| format!("tlb: page size: {e}")),
            more => Err(format!("tlb: a trace run needs one page size, got {more:?}")),
        }
    }

    /// (sets, ways) as `Tlb` arranges the entries.
    fn shape(&self) -> (u64, u32) {
        let ways = match self.tlb.assoc {
            Assoc::Full => self.tlb.entries,
            Assoc::Ways(w) => w,
        };
        (u64::from(self.tlb.entries / ways.max(1)), ways)
    }
}

/// The keys of a TLB point that `TlbPoint::with_overrides` takes, after `tlb.`.
pub const TLB_KEYS: [&str; 7] = ["entries", "assoc", "replacement", "asid_tags", "page_size", "serves", "seed"];

impl Default for TlbPoint {
    /// 64 fully associative LRU entries of 4 KB pages, ASID-tagged, unified.
    fn default() -> Self {
        Self {
            name: "tlb".into(),
            tlb: TlbConfig { replacement: TlbReplacement::Lru, ..TlbConfig::fully_associative(64, 0) },
            serves: Serves::All,
        }
    }
}

impl TlbPoint {
    /// `self` with `tlb.KEY=VALUE` overrides (`TLB_KEYS`; values as
    /// `vmlab run --set` takes them: `64`, `full`, `lru`, `true`, `4K`),
    /// checked (`check`). An error names the override at fault.
    pub fn with_overrides(&self, overrides: &[String]) -> Result<Self, String> {
        let mut top = toml::Table::try_from(self).map_err(|e| e.to_string())?;
        for spec in overrides {
            let here = format!("--set {spec}");
            let Some((key, raw)) = spec.split_once('=') else {
                return Err(format!("{here}: expected KEY=VALUE, e.g. tlb.entries=64"));
            };
            let value = vmlab_machine::preset::override_value(raw.trim());
            let field = match key.trim().split_once('.') {
                Some(("tlb", f)) if TLB_KEYS.contains(&f) => f,
                _ => return Err(format!("{here}: a TLB key is tlb.KEY, KEY one of {}", TLB_KEYS.join(", "))),
            };
            let (table, field, value) = match field {
                "serves" => (None, "serves", value),
                "page_size" => {
                    let bytes = match &value {
                        toml::Value::Integer(n) => {
                            u64::try_from(*n).map_err(|_| format!("{here}: a page size is > 0"))?
                        }
                        toml::Value::String(s) => {
                            s.parse::<vmlab_addr::ByteSize>().map_err(|e| format!("{here}: {e}"))?.0
                        }
                        _ => return Err(format!("{here}: a page size is a size such as 4K")),
                    };
                    let bytes = i64::try_from(bytes).map_err(|_| format!("{here}: page size too large"))?;
                    (Some("tlb"), "page_sizes", toml::Value::Array(vec![toml::Value::Integer(bytes)]))
                }
                f => (Some("tlb"), f, value),
            };
            match table {
                None => top.insert(field.into(), value),
                Some(t) => match top.get_mut(t) {
                    Some(toml::Value::Table(inner)) => inner.insert(field.into(), value),
                    _ => return Err(format!("{here}: the point has no [{t}] table")),
                },
            };
            // Read after each override, so a bad value is named.
            let _: TlbPoint =
                top.clone().try_into().map_err(|e: toml::de::Error| format!("{here}: {}", e.message().trim()))?;
        }
        let point: TlbPoint = top.try_into().map_err(|e: toml::de::Error| e.message().trim().to_string())?;
        point.check()?;
        Ok(point)
    }
}

/// A TLB point's counters over a trace.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TlbResult {
    pub point: TlbPoint,
    pub trace: String,
    pub events: EventCounts,
    pub stats: TlbStats,
}

/// Why `point` cannot be a point of a one-pass TLB sweep, or `None` (it
/// can, with others of equal `tlb_pass_key`).
pub fn tlb_refusal(point: &TlbPoint) -> Option<String> {
    if let Err(e) = point.check() {
        return Some(e);
    }
    let (_, ways) = point.shape();
    if point.tlb.replacement != TlbReplacement::Lru && ways > 1 {
        return Some("the TLB's replacement is not LRU".into());
    }
    if point.tlb.wired > 0 {
        return Some("the TLB has wired slots (they are never replaced, so no size includes another)".into());
    }
    None
}

/// What must be equal between the points of one pass: all but the entry
/// count and associativity (and names, sources, and the seed and policy
/// of a direct-mapped TLB, which then pick nothing).
pub fn tlb_pass_key(point: &TlbPoint) -> Option<String> {
    if tlb_refusal(point).is_some() {
        return None;
    }
    let mut k = point.clone();
    k.name.clear();
    k.tlb.source.clear();
    k.tlb.entries = 0;
    k.tlb.assoc = Assoc::Full;
    k.tlb.seed = 0;
    k.tlb.replacement = TlbReplacement::Lru;
    serde_json::to_string(&k).ok()
}

/// Groups `points` into passes: `(true, members)` shares one pass, `(false,
/// [i])` runs alone. In the order of each group's first member.
pub fn tlb_passes(points: &[TlbPoint]) -> Vec<(bool, Vec<usize>)> {
    let mut groups: Vec<(Option<String>, Vec<usize>)> = Vec::new();
    for (i, p) in points.iter().enumerate() {
        let key = tlb_pass_key(p);
        match groups.iter_mut().find(|(k, _)| k.is_some() && *k == key) {
            Some((_, m)) => m.push(i),
            None => groups.push((key, vec![i])),
        }
    }
    let mut out = Vec::new();
    for (key, members) in groups {
        if key.is_some() && members.len() >= 2 {
            out.push((true, members));
        } else {
            out.extend(members.into_iter().map(|i| (false, vec![i])));
        }
    }
    out.sort_by_key(|(_, m)| m[0]);
    out
}

/// What a trace asks of the TLBs: a lookup of a page, hits already proved,
/// a purge of every entry.
pub trait Translations {
    fn lookup(&mut self, asid: u32, vpn: u64);
    fn repeat_hits(&mut self, n: u64);
    fn purge(&mut self);
    /// Each point's counters so far, in order.
    fn stats(&self) -> Vec<TlbStats>;
}

/// TLB points over a trace: which references reach the TLBs, their pages,
/// the switches, the event counts; `T` does the lookups (`TlbRun`: one
/// point on `Tlb`; `TlbSweep`: many in one pass).
#[derive(Debug)]
pub struct TlbPass<T> {
    points: Vec<TlbPoint>,
    serves: Serves,
    shift: u32,
    purge_on_switch: bool,
    counts: [u64; 4],
    context_switches: u64,
    flushes: u64,
    fetch_skip: FetchSkip,
    tlbs: T,
}

impl<T: Translations> TlbPass<T> {
    fn with(points: Vec<TlbPoint>, page: PageSize, tlbs: T) -> Self {
        let point = &points[0];
        let shift = page.shift();
        // A dropped fetch lies in the page of the latest fetch (or, for a
        // data TLB, is none of its business): a hit changing nothing,
        // unless data references came between in a TLB that serves both.
        let fetch_skip = match point.serves {
            Serves::All => FetchSkip { line_shift: shift, across_data: false },
            Serves::Instructions => FetchSkip { line_shift: shift, across_data: true },
            Serves::Data => FetchSkip { line_shift: FetchSkip::MAX_SHIFT, across_data: true },
        };
        Self {
            serves: point.serves,
            shift,
            purge_on_switch: !point.tlb.asid_tags,
            points: points.clone(),
            counts: [0; 4],
            context_switches: 0,
            flushes: 0,
            fetch_skip,
            tlbs,
        }
    }

    #[inline]
    fn access(&mut self, kind: AccessKind, asid: u32, va: u64, size: u64) {
        self.counts[kind as usize & 3] += 1;
        if !self.serves.serves(kind) {
            return;
        }
        let last = va.saturating_add(size.max(1) - 1) >> self.shift;
        for vpn in va >> self.shift..=last {
            self.tlbs.lookup(asid, vpn);
        }
    }

    fn step(&mut self, ev: &Event) {
        match ev {
            Event::Access(a) => self.access(a.kind, a.asid.0, a.addr.0, u64::from(a.size)),
            Event::ContextSwitch(_) => {
                self.context_switches += 1;
                if self.purge_on_switch {
                    self.tlbs.purge();
                }
            }
            Event::FlushAll => self.flushes += 1,
            Event::Syscall(_) | Event::SyscallArg(_) => {}
        }
    }

    /// Applies a packed block (`first` numbers its first event).
    pub fn feed_packed(&mut self, block: &PackedBlock, origin: &str, first: u64) -> Result<(), RunError> {
        if block.skipped > 0 && !block.fetch_skip.is_some_and(|g| g.within(self.fetch_skip)) {
            return Err(RunError::FetchSkip {
                trace: origin.to_string(),
                first,
                skipped: block.skipped,
                given: block.fetch_skip,
                allowed: Some(self.fetch_skip),
            });
        }
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
                self.step(ev);
                continue;
            };
            self.access(kind, asid.0, w & ADDR_MASK, u64::from(size));
        }
        self.counts[AccessKind::Ifetch as usize] += block.skipped;
        if block.skipped > 0 && self.serves.serves(AccessKind::Ifetch) {
            self.tlbs.repeat_hits(block.skipped);
        }
        Ok(())
    }

    /// Applies events (packed as the `.vmt` reader would).
    pub fn feed(&mut self, events: &[Event], origin: &str, first: u64) -> Result<(), RunError> {
        PackedBlock::with_fetch_skip(Some(self.fetch_skip))
            .feed_events(events, first, |b, n| self.feed_packed(b, origin, n))
    }

    /// Runs a whole trace (decoded a few blocks ahead, as `Machine::run`);
    /// returns every point's result, in order.
    pub fn run(
        &mut self,
        src: &mut dyn EventSource,
        origin: &str,
        progress: &mut dyn FnMut(Progress) -> Result<(), String>,
    ) -> Result<Vec<TlbResult>, RunError> {
        // The source may drop the fetches this pass only counts.
        decode_ahead(src, Some(self.fetch_skip), progress, |buf, n| self.feed_packed(buf, origin, n))?;
        Ok(self.results(origin))
    }

    /// Every point's result so far, in order.
    pub fn results(&self, origin: &str) -> Vec<TlbResult> {
        let events = EventCounts::from_accesses(self.counts, self.context_switches, self.flushes);
        self.points
            .iter()
            .zip(self.tlbs.stats())
            .map(|(p, stats)| TlbResult { point: p.clone(), trace: origin.to_string(), events, stats })
            .collect()
    }
}

/// One TLB point's run on the engine's `Tlb`: the reference a sweep must
/// equal.
#[derive(Debug)]
pub struct Single {
    tlb: Tlb,
    page: PageSize,
}

impl Translations for Single {
    fn lookup(&mut self, asid: u32, vpn: u64) {
        let va = VirtAddr(vpn << self.page.shift());
        if self.tlb.lookup(Asid(asid), va).is_none() {
            // The frame is no counter's business: the page maps to itself.
            let entry = TlbEntry::new(Asid(asid), va, PhysAddr(va.0), self.page);
            // `check` has made sure the TLB holds this page size.
            let _ = self.tlb.insert(entry, Slot::Normal);
        }
    }

    fn repeat_hits(&mut self, n: u64) {
        self.tlb.count_repeat_hits(n);
    }

    fn purge(&mut self) {
        // Without tags `purge_asid` removes every non-global entry.
        self.tlb.purge_asid(Asid(0));
    }

    fn stats(&self) -> Vec<TlbStats> {
        vec![*self.tlb.stats()]
    }
}

/// One TLB point run alone over a trace.
pub type TlbRun = TlbPass<Single>;

impl TlbPass<Single> {
    pub fn new(point: TlbPoint) -> Result<Self, String> {
        let page = point.check()?;
        let tlb = Tlb::new(point.tlb.clone()).map_err(|e| format!("tlb: {e}"))?;
        Ok(Self::with(vec![point], page, Single { tlb, page }))
    }
}

/// The points of one set count: one LRU stack of pages per set.
#[derive(Debug)]
struct SetCount {
    sets: u64,
    /// The most ways of any point here.
    depth: usize,
    /// Per set, `depth` (page, asid) entries, most recent first.
    pages: Vec<u64>,
    asids: Vec<u32>,
    len: Vec<u32>,
    /// Lookups by depth found (`depth`: not found).
    found_at: Vec<u64>,
    /// Lookups by `min(depth found, entries held)`: a point of `a` ways
    /// evicts on those of `a` or more.
    reach_at: Vec<u64>,
    /// (ways, point), ascending by ways.
    members: Vec<(u32, usize)>,
    /// Entries purged, by member.
    purged: Vec<u64>,
}

impl SetCount {
    fn new(sets: u64, mut members: Vec<(u32, usize)>) -> Self {
        members.sort_unstable();
        let depth = members.last().map_or(0, |&(w, _)| w as usize);
        let slots = sets as usize * depth;
        Self {
            sets,
            depth,
            pages: vec![0; slots],
            asids: vec![0; slots],
            len: vec![0; sets as usize],
            found_at: vec![0; depth + 1],
            reach_at: vec![0; depth + 1],
            purged: vec![0; members.len()],
            members,
        }
    }

    #[inline]
    fn lookup(&mut self, vpn: u64, asid: u32) {
        let set = (vpn % self.sets) as usize;
        let base = set * self.depth;
        let n = self.len[set] as usize;
        let found = (0..n).find(|&i| self.pages[base + i] == vpn && self.asids[base + i] == asid);
        let p = found.unwrap_or(self.depth);
        self.found_at[p] += 1;
        self.reach_at[p.min(n)] += 1;
        let moved = match found {
            Some(p) => p,
            None if n < self.depth => {
                self.len[set] += 1;
                n
            }
            None => self.depth - 1,
        };
        self.pages.copy_within(base..base + moved, base + 1);
        self.asids.copy_within(base..base + moved, base + 1);
        self.pages[base] = vpn;
        self.asids[base] = asid;
    }

    fn purge(&mut self) {
        for (m, &(a, _)) in self.members.iter().enumerate() {
            self.purged[m] += self.len.iter().map(|&n| u64::from(n.min(a))).sum::<u64>();
        }
        self.len.iter_mut().for_each(|n| *n = 0);
    }
}

#[derive(Debug)]
pub struct Stacks {
    tagged: bool,
    /// Per point: (set count, member).
    place: Vec<(usize, usize)>,
    set_counts: Vec<SetCount>,
    lookups: u64,
    repeat_hits: u64,
    /// The last page looked up: looking it up again hits at depth 0
    /// everywhere and moves nothing.
    last: Option<(u64, u32)>,
}

impl Translations for Stacks {
    #[inline]
    fn lookup(&mut self, asid: u32, vpn: u64) {
        let asid = if self.tagged { asid } else { 0 };
        if self.last == Some((vpn, asid)) {
            self.repeat_hits += 1;
            return;
        }
        self.lookups += 1;
        for s in &mut self.set_counts {
            s.lookup(vpn, asid);
        }
        self.last = Some((vpn, asid));
    }

    fn repeat_hits(&mut self, n: u64) {
        self.repeat_hits += n;
    }

    fn purge(&mut self) {
        self.set_counts.iter_mut().for_each(SetCount::purge);
        self.last = None;
    }

    fn stats(&self) -> Vec<TlbStats> {
        self.place
            .iter()
            .map(|&(s, m)| {
                let sc = &self.set_counts[s];
                let ways = sc.members[m].0 as usize;
                let misses: u64 = sc.found_at[ways..].iter().sum();
                TlbStats {
                    hits: self.lookups + self.repeat_hits - misses,
                    misses,
                    inserts: misses,
                    evictions: sc.reach_at[ways..].iter().sum(),
                    purged: sc.purged[m],
                }
            })
            .collect()
    }
}

/// Every point of a one-pass TLB sweep (`tlb_passes` groups them).
pub type TlbSweep = TlbPass<Stacks>;

impl TlbPass<Stacks> {
    pub fn new(points: Vec<TlbPoint>) -> Result<Self, String> {
        let first = points.first().ok_or("a TLB sweep needs at least one point")?;
        let key = tlb_pass_key(first);
        for p in &points {
            if let Some(r) = tlb_refusal(p) {
                return Err(format!("TLB point {}: no one-pass sweep: {r}", p.name));
            }
            if tlb_pass_key(p) != key {
                return Err(format!(
                    "TLB point {}: no one-pass sweep: it differs from {} in more than entries and assoc",
                    p.name, first.name
                ));
            }
        }
        let mut by_sets: Vec<(u64, Vec<(u32, usize)>)> = Vec::new();
        for (i, p) in points.iter().enumerate() {
            let (sets, ways) = p.shape();
            match by_sets.iter_mut().find(|(s, _)| *s == sets) {
                Some((_, m)) => m.push((ways, i)),
                None => by_sets.push((sets, vec![(ways, i)])),
            }
        }
        let set_counts: Vec<SetCount> = by_sets.into_iter().map(|(s, m)| SetCount::new(s, m)).collect();
        let place = (0..points.len())
            .map(|i| {
                set_counts
                    .iter()
                    .enumerate()
                    .find_map(|(s, sc)| sc.members.iter().position(|&(_, p)| p == i).map(|m| (s, m)))
                    .unwrap_or((0, 0))
            })
            .collect();
        let page = first.check()?;
        let stacks = Stacks { tagged: first.tlb.asid_tags, place, set_counts, lookups: 0, repeat_hits: 0, last: None };
        Ok(Self::with(points, page, stacks))
    }
}
