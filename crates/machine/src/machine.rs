//! A machine: the hierarchy, the page mapper, and the loop that feeds them
//! events. Every reference walks down the stack once.

use vmlab_addr::{Asid, PhysAddr, VirtAddr, Vpn};
use vmlab_cache::{FlushStats, LineRef, RefKind};
use vmlab_trace::{Access, AccessKind, Event, EventSource, TraceError};

use crate::config::MachineConfig;
use crate::hierarchy::Hierarchy;
use crate::mapper::{MapError, PageMapper};
use crate::preset::ConfigError;
use crate::result::{EventCounts, LevelResult, RunResult};

#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    Trace(#[from] TraceError),
    #[error("{trace}: event {event}: {source}")]
    Memory { trace: String, event: u64, source: MapError },
    #[error("interrupted after {events} events: {reason}")]
    Interrupted { events: u64, reason: String },
}

/// Progress of a run, handed to the caller's callback between blocks.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    pub events: u64,
    pub bytes_read: u64,
    pub bytes_total: Option<u64>,
}

/// The line the previous access to a top-level cache touched, if it is still
/// resident: a repeat of it is a hit that changes nothing but a count.
#[derive(Clone, Copy, Debug)]
struct RepeatLine {
    line: u64,
    asid: Asid,
    dirty: bool,
}

const NO_LINE: RepeatLine = RepeatLine { line: u64::MAX, asid: Asid(u32::MAX), dirty: false };

#[derive(Debug)]
pub struct Machine {
    config: MachineConfig,
    hierarchy: Hierarchy,
    mapper: PageMapper,
    counts: EventCounts,
    /// Line size of the top-level I and D caches, for splitting references.
    i_line: u64,
    d_line: u64,
    page_mask: u64,
    /// Per top-level cache (one entry if unified, I and D if split).
    repeat: [RepeatLine; 2],
    top_unified: bool,
}

impl Machine {
    pub fn new(config: MachineConfig) -> Result<Self, ConfigError> {
        let err = |m: String| ConfigError { origin: format!("machine {}", config.name), line: None, message: m };
        let tiers = config.tiers().map_err(err)?;
        let mut hierarchy =
            Hierarchy::new(&tiers, config.stats.classify_misses).map_err(|e| err(e.to_string()))?;
        let page = config.memory.page_size;
        let frames = config.memory.size.0 / page.bytes();
        let mapper =
            PageMapper::new(page, frames, config.memory.allocation, config.colours(), config.memory.seed);
        let i_line = hierarchy.top_line(RefKind::Ifetch);
        let d_line = hierarchy.top_line(RefKind::Read);
        let top_unified = hierarchy.top_is_unified();
        Ok(Self {
            repeat: [NO_LINE; 2],
            top_unified,
            page_mask: page.bytes() - 1,
            config,
            hierarchy,
            mapper,
            counts: EventCounts::default(),
            i_line,
            d_line,
        })
    }

    pub fn from_preset(name_or_path: &str, overrides: &[String]) -> Result<Self, ConfigError> {
        Self::new(crate::preset::load(name_or_path, overrides)?)
    }

    pub fn config(&self) -> &MachineConfig {
        &self.config
    }
    pub fn hierarchy(&self) -> &Hierarchy {
        &self.hierarchy
    }
    pub fn mapper_mut(&mut self) -> &mut PageMapper {
        &mut self.mapper
    }

    /// Makes `alias` in `alias_asid` a synonym of `owner` in `owner_asid`.
    pub fn share_page(&mut self, owner_asid: u32, owner: u64, alias_asid: u32, alias: u64) -> Result<(), MapError> {
        let page = self.mapper.page_size();
        self.repeat = [NO_LINE; 2];
        self.mapper
            .share(Asid(owner_asid), page.vpn(VirtAddr(owner)), Asid(alias_asid), page.vpn(VirtAddr(alias)))
            .map(|_| ())
    }

    pub fn translate(&mut self, asid: u32, va: u64) -> Result<PhysAddr, MapError> {
        self.mapper.translate(Asid(asid), VirtAddr(va))
    }

    #[inline]
    fn reference(&mut self, kind: RefKind, a: &Access) -> Result<(), MapError> {
        let (line, side) = if kind == RefKind::Ifetch { (self.i_line, 0) } else { (self.d_line, 1) };
        let side = if self.top_unified { 0 } else { side };
        let asid = a.asid;
        let va = a.addr.0;
        let last = va.saturating_add(u64::from(a.size.max(1)) - 1);
        let shift = line.trailing_zeros();
        let ln = va >> shift;
        if last >> shift == ln {
            let r = self.repeat[side];
            if r.line == ln && r.asid == asid && (kind != RefKind::Write || r.dirty) {
                self.hierarchy.top_mut(kind).repeat_hit(kind);
                return Ok(());
            }
            let pa = self.mapper.translate(asid, VirtAddr(va))?;
            let out = self.hierarchy.access_line(0, kind, va, pa.0, asid.0, last - va + 1);
            self.repeat[side] = match out.resident_dirty {
                Some(dirty) => RepeatLine { line: ln, asid, dirty },
                None => NO_LINE,
            };
            return Ok(());
        }
        // Split at top-level line boundaries; a line never crosses a page, so
        // each piece has one translation.
        self.repeat[side] = NO_LINE;
        let end = last.saturating_add(1);
        let mut va = va;
        while va < end {
            let next = (va & !(line - 1)).saturating_add(line);
            let chunk = next.min(end) - va;
            let pa = self.mapper.translate(asid, VirtAddr(va))?;
            self.hierarchy.request(0, kind, va, pa.0, asid.0, chunk);
            if next <= va {
                break;
            }
            va = next;
        }
        Ok(())
    }

    /// Applies one event.
    #[inline]
    pub fn step(&mut self, ev: &Event) -> Result<(), MapError> {
        match ev {
            Event::Access(a) => match a.kind {
                AccessKind::Ifetch => {
                    self.counts.ifetch += 1;
                    self.reference(RefKind::Ifetch, a)
                }
                AccessKind::Load => {
                    self.counts.load += 1;
                    self.reference(RefKind::Read, a)
                }
                AccessKind::Store => {
                    self.counts.store += 1;
                    self.reference(RefKind::Write, a)
                }
                AccessKind::Modify => {
                    self.counts.modify += 1;
                    self.reference(RefKind::Read, a)?;
                    self.reference(RefKind::Write, a)
                }
            },
            Event::ContextSwitch(_) => {
                self.counts.context_switches += 1;
                Ok(())
            }
            Event::FlushAll => {
                self.counts.flush_all += 1;
                self.repeat = [NO_LINE; 2];
                self.hierarchy.flush_all();
                Ok(())
            }
        }
    }

    /// Applies a slice of events; `first` numbers the first for error messages.
    pub fn feed(&mut self, events: &[Event], origin: &str, first: u64) -> Result<(), RunError> {
        for (i, ev) in events.iter().enumerate() {
            self.step(ev).map_err(|source| RunError::Memory {
                trace: origin.to_string(),
                event: first + i as u64,
                source,
            })?;
        }
        Ok(())
    }

    /// Runs a whole trace. `progress` is called after every block; an `Err`
    /// from it stops the run (how an interrupt reaches the engine).
    pub fn run(
        &mut self,
        src: &mut dyn EventSource,
        origin: &str,
        progress: &mut dyn FnMut(Progress) -> Result<(), String>,
    ) -> Result<RunResult, RunError> {
        let mut buf = Vec::with_capacity(1 << 16);
        let mut n = 0u64;
        while src.fill(&mut buf)? {
            self.feed(&buf, origin, n)?;
            n += buf.len() as u64;
            let (bytes_read, bytes_total) = src.progress();
            progress(Progress { events: n, bytes_read, bytes_total })
                .map_err(|reason| RunError::Interrupted { events: n, reason })?;
        }
        Ok(self.result(origin))
    }

    /// Flushes (or purges) the virtual range [va, va+len) of `asid` from
    /// every level. Pages never touched hold nothing and are skipped.
    pub fn flush_virtual_range(&mut self, asid: u32, va: u64, len: u64, purge: bool) -> FlushStats {
        let mut total = FlushStats::default();
        self.repeat = [NO_LINE; 2];
        let page = self.mapper.page_size();
        for t in 0..self.hierarchy.tier_count() {
            let line = self
                .hierarchy
                .caches()
                .iter()
                .skip_while(|_| false)
                .map(|(_, c)| c.line_bytes())
                .min()
                .unwrap_or(16);
            let mut a = va & !(line - 1);
            while a < va.saturating_add(len) {
                if let Some(pfn) = self.mapper.frame_of(Asid(asid), Vpn(a >> page.shift())) {
                    let pa = page.translate(VirtAddr(a), pfn);
                    total += self.hierarchy.flush_line(t, LineRef { vaddr: a, paddr: pa.0, asid }, purge);
                }
                a += line;
            }
        }
        total
    }

    /// The results so far.
    pub fn result(&self, origin: &str) -> RunResult {
        RunResult {
            machine: self.config.clone(),
            trace: origin.to_string(),
            events: self.counts,
            instructions: self.counts.ifetch,
            caches: self
                .hierarchy
                .caches()
                .into_iter()
                .map(|(name, c)| LevelResult {
                    name: name.to_string(),
                    indexing: c.indexing(),
                    config: c.config().clone(),
                    stats: *c.stats(),
                })
                .collect(),
            memory: *self.hierarchy.memory(),
            pages_mapped: self.mapper.pages_mapped(),
        }
    }

    pub fn page_offset(&self, va: u64) -> u64 {
        va & self.page_mask
    }
}
