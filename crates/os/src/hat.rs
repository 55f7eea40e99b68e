//! The hat ("hardware address translation") layer of Khalidi, Joshi and
//! Williams (seed 003 section 4), with its interface and structures:
//!
//! * interface (section 4.1): [`Hat::load`] translations of an address
//!   space to pages; [`Hat::unload_frame`] every translation to a page (all
//!   address spaces, all CPUs); [`Hat::unload_range`] a range of one address
//!   space; [`Hat::change_prot`] of a range; [`Hat::set_refmod`] /
//!   [`Hat::clear_refmod`] the referenced and modified bits;
//! * machine-independent structures (section 4.2, Figure 2): an
//!   [`AsDescriptor`] per address space with a list of [`MmuDescriptor`]s
//!   (one per MMU/CPU the space is active on), and a [`PageFrame`]
//!   descriptor per page with the list of every translation to it;
//! * machine-dependent structures (section 4.3): the PA-RISC hashed inverted
//!   page table of `vmlab_mmu` (global, shared by every MMU descriptor), whose
//!   insert and delete walk the hash chain through the simulated cache.
//!
//! It also enforces the virtual-cache consistency policy (`policy.rs`) on
//! every load and unload, doing the flushes, purges and TLB purges seed 000
//! section 3 lists. Everything is ready for N CPUs (translations are kept per
//! MMU descriptor and unloads visit every one); there is no locking yet and
//! a TLB purge on another CPU is counted like a local one (shoot-down costs
//! are a later issue).

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use vmlab_addr::{Asid, CpuId, PageSize, Pfn, PhysAddr, VirtAddr};
use vmlab_cache::{CacheConfig, Indexing};
use vmlab_mmu::pagetable::{HashedInverted, HashedParams, PteAddr, PteRef};
use vmlab_mmu::FramePool;

use crate::cost::{CostModel, Routine};
use crate::cpu::{Cpu, DataRef, Flush, Place, Span};
use crate::oracle::{CopyId, CopyNamer};
use crate::policy::{Conflict, Policy};
use crate::primitives::flush_range;
use crate::prot::Prot;
use vmlab_machine::Mechanism;

/// One translation to a page: address space, page address, the space the
/// cache tags it with (its own ASID, or a global segment's), the rights
/// loaded into the MMU, and the CPU whose MMU holds it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Mapping {
    pub asid: Asid,
    pub va: VirtAddr,
    pub tag: Asid,
    pub prot: Prot,
    pub cpu: usize,
}

/// A page-frame descriptor: the frame, every translation to it, its
/// referenced/modified bits and whether it is currently uncached.
#[derive(Clone, Debug, Default, Serialize)]
pub struct PageFrame {
    pub pfn: Pfn,
    pub mappings: Vec<Mapping>,
    pub referenced: bool,
    pub modified: bool,
    pub uncached: bool,
}

/// The translations of one address space in one MMU.
#[derive(Clone, Debug, Default, Serialize)]
pub struct MmuDescriptor {
    pub cpu: usize,
    /// Page address -> (frame, rights).
    pub translations: BTreeMap<VirtAddr, (Pfn, Prot)>,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct AsDescriptor {
    pub asid: Asid,
    pub mmus: Vec<MmuDescriptor>,
}

/// What a load did to other translations, for fault accounting.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct LoadEffects {
    /// Translations unloaded to keep one class live (pseudo-aliasing).
    pub unloaded: u32,
    /// Translations downgraded to read-only.
    pub downgraded: u32,
    /// The page went uncached.
    pub uncached: bool,
}

#[derive(Debug)]
pub struct Hat {
    policy: Policy,
    page: PageSize,
    namer: CopyNamer,
    physical_cache: bool,
    spaces: BTreeMap<Asid, AsDescriptor>,
    frames: BTreeMap<Pfn, PageFrame>,
    /// Translations unloaded by the policy whose next fault is a pseudo fault.
    pseudo: BTreeSet<(Asid, VirtAddr)>,
    table: HashedInverted,
    table_pool: FramePool,
    refs: Vec<PteRef>,
    /// Purge (not flush) the lines of a page being destroyed. Chorus v3.3
    /// always flushed (seed 000 footnote 7); the S2 experiments turn this off.
    pub purge_destroyed: bool,
}

/// Why the hat unloads a translation: it decides how the page's lines
/// leave a virtual cache, whether the hat forgets the frame, and what the
/// next fault on the page is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnloadReason {
    /// The translation goes and the frame stays in use: an unmap that is
    /// not the frame's last, a protection change, a copy-on-write copy, a
    /// detach, a kernel window closed, a reload.
    Unmap,
    /// The frame is about to be freed and this is its last translation: its
    /// lines may be purged rather than written back (`purge_destroyed`), and
    /// the hat forgets the frame.
    Destroy,
    /// The consistency policy took the translation away to resolve a
    /// conflict between cache classes: the next access is a pseudo fault.
    Conflict,
}

/// The first byte of each page of `[va, va+len)`.
fn pages(page: PageSize, va: VirtAddr, len: u64) -> impl Iterator<Item = VirtAddr> {
    (page.page_start(va).0..va.0 + len).step_by(page.bytes() as usize).map(VirtAddr)
}

impl Hat {
    /// A hat for `data_frames` data frames of `page` bytes; the hash table
    /// and its overflow entries live in frames above them.
    pub fn new(policy: Policy, page: PageSize, data_frames: u64, top: &CacheConfig) -> Result<Self, String> {
        let mut table_pool = FramePool::new(page.bytes(), data_frames, data_frames.max(64));
        let params = HashedParams { phys_frames: data_frames, ..HashedParams::default() };
        let table = HashedInverted::new(&params, &mut table_pool).map_err(|e| e.to_string())?;
        Ok(Self {
            policy,
            page,
            namer: CopyNamer::new(top)?,
            physical_cache: top.indexing == Indexing::Pipt,
            spaces: BTreeMap::new(),
            frames: BTreeMap::new(),
            pseudo: BTreeSet::new(),
            table,
            table_pool,
            refs: Vec::new(),
            purge_destroyed: true,
        })
    }

    pub fn policy(&self) -> Policy {
        self.policy
    }

    pub fn frame(&self, pfn: Pfn) -> Option<&PageFrame> {
        self.frames.get(&pfn)
    }

    pub fn space(&self, asid: Asid) -> Option<&AsDescriptor> {
        self.spaces.get(&asid)
    }

    /// The loaded translation of `va` in `asid` on `cpu`, if any: (frame, rights).
    pub fn translation(&self, asid: Asid, va: VirtAddr, cpu: CpuId) -> Option<(Pfn, Prot)> {
        let page = self.page.page_start(va);
        let mmu = self.spaces.get(&asid)?.mmus.iter().find(|m| m.cpu == cpu.index())?;
        mmu.translations.get(&page).copied()
    }

    /// The cache-space tag of the translation of `va` in `asid`.
    pub fn tag_of(&self, asid: Asid, va: VirtAddr, pfn: Pfn) -> Asid {
        let page = self.page.page_start(va);
        self.frames
            .get(&pfn)
            .and_then(|f| f.mappings.iter().find(|m| m.asid == asid && m.va == page))
            .map_or(asid, |m| m.tag)
    }

    pub fn uncached(&self, pfn: Pfn) -> bool {
        self.frames.get(&pfn).is_some_and(|f| f.uncached)
    }

    /// Whether the last unload of this translation was the policy's (so the
    /// fault that reloads it is a pseudo page fault); clears the mark.
    pub fn take_pseudo(&mut self, asid: Asid, va: VirtAddr) -> bool {
        self.pseudo.remove(&(asid, self.page.page_start(va)))
    }

    /// The cache copies the lines of page `va`->`pfn` under `tag` land in.
    pub fn class(&self, va: VirtAddr, pfn: Pfn, tag: Asid) -> Vec<CopyId> {
        let line = self.namer.line_bytes();
        let (va, pa) = (self.page.page_start(va).0, self.page.frame_base(pfn).0);
        (0..self.page.bytes() / line)
            .map(|i| {
                self.namer.id(&vmlab_cache::LineRef {
                    vaddr: VirtAddr(va + i * line),
                    paddr: PhysAddr(pa + i * line),
                    asid: tag,
                })
            })
            .collect()
    }

    /// Where the first byte of translation `m` to frame `pfn` lands.
    fn place(&self, m: &Mapping, pfn: Pfn) -> Place {
        Place { va: m.va, pa: self.page.frame_base(pfn), space: m.tag }
    }

    fn class_of(&self, m: &Mapping, pfn: Pfn) -> Vec<CopyId> {
        self.class(m.va, pfn, m.tag)
    }

    fn acts(&self) -> bool {
        self.policy != Policy::None && !self.physical_cache
    }

    /// Interface 1: loads translation `m` (its page, on its CPU, with its
    /// rights and cache tag) to frame `pfn`. `cause` is the access that
    /// caused the load (read-only aliasing loads readers read-only).
    /// Returns the rights actually loaded and what happened to the others.
    pub fn load(
        &mut self,
        cpu: &mut Cpu,
        cost: &CostModel,
        m: Mapping,
        pfn: Pfn,
        cause: DataRef,
    ) -> Result<(Prot, LoadEffects), String> {
        let Mapping { asid, va, tag, prot, cpu: cpu_id } = m;
        let va = self.page.page_start(va);
        let mut fx = LoadEffects::default();
        if let Some((old, _)) = self.translation(asid, va, CpuId(cpu_id as u32)) {
            if old != pfn {
                return Err(format!(
                    "hat: space {asid} page {va:#x} is loaded to frame {old:#x}, not {pfn:#x}; unload first"
                ));
            }
            self.unload(cpu, cost, asid, va, UnloadReason::Unmap);
        }
        let mut prot = prot;
        let cls = self.class(va, pfn, tag);
        if self.acts() {
            let others: Vec<Mapping> = self.frames.get(&pfn).map(|f| f.mappings.clone()).unwrap_or_default();
            let differ: Vec<Mapping> = others.iter().filter(|m| self.class_of(m, pfn) != cls).cloned().collect();
            match self.policy.on_conflict() {
                Conflict::Ignore => {}
                Conflict::OneClass => {
                    for m in &differ {
                        self.unload(cpu, cost, m.asid, m.va, UnloadReason::Conflict);
                        fx.unloaded += 1;
                    }
                }
                Conflict::ReadersOrOneWriter => {
                    if cause == DataRef::Store {
                        for m in &differ {
                            self.unload(cpu, cost, m.asid, m.va, UnloadReason::Conflict);
                            fx.unloaded += 1;
                        }
                    } else if !differ.is_empty() {
                        for m in differ.iter().filter(|m| m.prot.write) {
                            self.downgrade(cpu, cost, m, pfn);
                            fx.downgraded += 1;
                        }
                        prot = prot.without_write();
                    }
                }
                Conflict::UncacheIfClassesDiffer => {
                    if !differ.is_empty() {
                        fx.uncached = self.make_uncached(cpu, cost, pfn);
                    }
                }
                Conflict::UncacheIfShared => {
                    if !others.is_empty() {
                        fx.uncached = self.make_uncached(cpu, cost, pfn);
                    }
                }
            }
        }
        // Machine-dependent part: the hashed table entry.
        self.refs.clear();
        self.table
            .insert_refs(asid, self.page.vpn(va), pfn, &mut self.table_pool, &mut self.refs)
            .map_err(|e| format!("hat: page table: {e}"))?;
        self.charge_pte(cpu, cost, Routine::PteInsert);
        let outer = cpu.enter(Mechanism::VmBookkeeping);
        cpu.instructions(cost.path_of(Routine::VmMapPage));
        cpu.leave(outer);
        let space = self.spaces.entry(asid).or_insert_with(|| AsDescriptor { asid, mmus: Vec::new() });
        if !space.mmus.iter().any(|m| m.cpu == cpu_id) {
            space.mmus.push(MmuDescriptor { cpu: cpu_id, translations: BTreeMap::new() });
        }
        if let Some(mmu) = space.mmus.iter_mut().find(|m| m.cpu == cpu_id) {
            mmu.translations.insert(va, (pfn, prot));
        }
        let frame = self.frames.entry(pfn).or_insert_with(|| PageFrame { pfn, ..PageFrame::default() });
        frame.mappings.push(Mapping { asid, va, tag, prot, cpu: cpu_id });
        self.pseudo.remove(&(asid, va));
        Ok((prot, fx))
    }

    fn charge_pte(&mut self, cpu: &mut Cpu, cost: &CostModel, base: Routine) {
        let outer = cpu.enter(Mechanism::PteUpdate);
        cpu.instructions(cost.path_of(base) + cost.path_of(Routine::PteChainStep) * self.refs.len() as u64);
        self.charge_refs(cpu, base.key());
        cpu.leave(outer);
    }

    fn charge_refs(&self, cpu: &mut Cpu, origin: &str) {
        let n = self.refs.len() as u64;
        cpu.count(|c| c.pte_refs += n);
        // The kernel reads PTEs physically: virtual = physical address, in its own space.
        for r in &self.refs {
            // The hashed table's entries are all physical.
            let PteAddr::Physical(pa) = r.at else { continue };
            cpu.reference(DataRef::Load, Span { at: Place::physical(pa), cached: true }, u64::from(r.bytes), origin);
        }
    }

    /// The PA-RISC 1.0 software TLB-refill handler for page `va` of `asid`:
    /// `tlb_miss_handler` instructions (one PTE load included) and
    /// `pte_chain_step` per further chain entry, every entry read going
    /// through the cache. The caller has counted the miss itself.
    pub fn tlb_refill(&mut self, cpu: &mut Cpu, cost: &CostModel, asid: Asid, va: VirtAddr) {
        use vmlab_mmu::pagetable::PageTable;
        let outer = cpu.enter(Mechanism::TlbMiss);
        self.refs.clear();
        // An address outside the table's range has no chain to walk; the
        // handler then reads nothing (cannot happen below USER_LIMIT).
        let _ = self.table.walk(asid, self.page.page_start(va), &mut self.refs);
        let extra = (self.refs.len() as u64).saturating_sub(1);
        cpu.instructions(cost.path_of(Routine::TlbMissHandler) + cost.path_of(Routine::PteChainStep) * extra);
        self.charge_refs(cpu, "tlb refill");
        cpu.leave(outer);
    }

    /// Purges page `va` of `asid` from the TLB (one `pdtlb`). The model has
    /// one TLB, that of CPU 0, so a translation loaded for another CPU is
    /// purged there too (shoot-downs are a later issue).
    fn purge_tlb(&mut self, cpu: &mut Cpu, cost: &CostModel, asid: Asid, va: VirtAddr) {
        let outer = cpu.enter(Mechanism::TlbPurge);
        cpu.instructions(cost.path_of(Routine::TlbPurge));
        cpu.tlb_purge(asid, va);
        cpu.leave(outer);
    }

    /// Flushes every live translation's lines (each class once) and marks
    /// the page uncached. Returns whether it changed.
    fn make_uncached(&mut self, cpu: &mut Cpu, cost: &CostModel, pfn: Pfn) -> bool {
        let Some(frame) = self.frames.get(&pfn) else { return false };
        if frame.uncached {
            return false;
        }
        let maps = frame.mappings.clone();
        let mut seen: Vec<Vec<CopyId>> = Vec::new();
        for m in &maps {
            let c = self.class_of(m, pfn);
            if !seen.contains(&c) {
                flush_range(cpu, cost, self.place(m, pfn), self.page.bytes(), Flush::WriteBack, "hat: uncache");
                seen.push(c);
            }
        }
        if let Some(f) = self.frames.get_mut(&pfn) {
            f.uncached = true;
        }
        true
    }

    /// Takes write permission away from a live translation in another class:
    /// its dirty lines go to memory first, so readers elsewhere see them.
    fn downgrade(&mut self, cpu: &mut Cpu, cost: &CostModel, m: &Mapping, pfn: Pfn) {
        flush_range(cpu, cost, self.place(m, pfn), self.page.bytes(), Flush::WriteBack, "hat: downgrade");
        self.purge_tlb(cpu, cost, m.asid, m.va);
        self.set_rights(m.asid, m.va, pfn, |p| p.without_write());
    }

    fn set_rights(&mut self, asid: Asid, va: VirtAddr, pfn: Pfn, f: impl Fn(Prot) -> Prot) {
        if let Some(fr) = self.frames.get_mut(&pfn) {
            for m in fr.mappings.iter_mut().filter(|m| m.asid == asid && m.va == va) {
                m.prot = f(m.prot);
            }
        }
        if let Some(s) = self.spaces.get_mut(&asid) {
            for mmu in &mut s.mmus {
                if let Some(t) = mmu.translations.get_mut(&va) {
                    t.1 = f(t.1);
                }
            }
        }
    }

    /// Unloads the translation of page `va` in `asid` from every MMU, for
    /// `reason`. When no other live translation of the frame shares its
    /// cache class, the page's lines are flushed (purged instead, under
    /// `purge_destroyed`, when the reason is [`UnloadReason::Destroy`]).
    /// Returns the frame it mapped.
    pub fn unload(
        &mut self,
        cpu: &mut Cpu,
        cost: &CostModel,
        asid: Asid,
        va: VirtAddr,
        reason: UnloadReason,
    ) -> Option<Pfn> {
        let destroy = reason == UnloadReason::Destroy;
        let va = self.page.page_start(va);
        let mut pfn = None;
        if let Some(s) = self.spaces.get_mut(&asid) {
            for mmu in &mut s.mmus {
                if let Some((p, _)) = mmu.translations.remove(&va) {
                    pfn = Some(p);
                }
            }
        }
        let pfn = pfn?;
        let Some(frame) = self.frames.get_mut(&pfn) else { return Some(pfn) };
        let Some(idx) = frame.mappings.iter().position(|m| m.asid == asid && m.va == va) else { return Some(pfn) };
        let m = frame.mappings.remove(idx);
        let uncached = frame.uncached;
        let remaining = frame.mappings.clone();
        self.refs.clear();
        // A translation the table lost is a hat bug; the cost is still the walk.
        let _ = self.table.remove_refs(asid, self.page.vpn(va), &mut self.table_pool, &mut self.refs);
        self.charge_pte(cpu, cost, Routine::PteDelete);
        self.purge_tlb(cpu, cost, asid, va);
        let outer = cpu.enter(Mechanism::VmBookkeeping);
        cpu.instructions(cost.path_of(Routine::VmUnmapPage));
        cpu.leave(outer);
        if self.acts() {
            let cls = self.class_of(&m, pfn);
            if !uncached && !remaining.iter().any(|o| self.class_of(o, pfn) == cls) {
                let how = if self.purge_destroyed && destroy && remaining.is_empty() {
                    Flush::Discard
                } else {
                    Flush::WriteBack
                };
                flush_range(cpu, cost, self.place(&m, pfn), self.page.bytes(), how, "hat: unload");
            }
            if uncached {
                let back = match self.policy.on_conflict() {
                    Conflict::UncacheIfShared => remaining.len() <= 1,
                    _ => remaining.windows(2).all(|w| self.class_of(&w[0], pfn) == self.class_of(&w[1], pfn)),
                };
                if back {
                    if let Some(f) = self.frames.get_mut(&pfn) {
                        f.uncached = false;
                    }
                }
            }
        }
        if reason == UnloadReason::Conflict {
            self.pseudo.insert((asid, va));
        }
        if remaining.is_empty() {
            if let Some(f) = self.frames.get(&pfn) {
                if !f.referenced && !f.modified || destroy {
                    self.frames.remove(&pfn);
                }
            }
        }
        Some(pfn)
    }

    /// Interface 3: unloads every translation of `[va, va+len)` in `asid`,
    /// each for the reason `reason(pfn)` gives for its frame.
    pub fn unload_range(
        &mut self,
        cpu: &mut Cpu,
        cost: &CostModel,
        asid: Asid,
        va: VirtAddr,
        len: u64,
        reason: &dyn Fn(Pfn) -> UnloadReason,
    ) {
        for page in pages(self.page, va, len) {
            if let Some(p) = self.translation_any(asid, page) {
                self.unload(cpu, cost, asid, page, reason(p));
            }
        }
    }

    fn translation_any(&self, asid: Asid, page: VirtAddr) -> Option<Pfn> {
        self.spaces.get(&asid)?.mmus.iter().find_map(|m| m.translations.get(&page).map(|t| t.0))
    }

    /// Interface 2: unloads every translation to `pfn` (all address spaces,
    /// all CPUs) for `reason`; with [`UnloadReason::Destroy`] the hat also
    /// forgets the frame.
    pub fn unload_frame(&mut self, cpu: &mut Cpu, cost: &CostModel, pfn: Pfn, reason: UnloadReason) {
        let maps = self.frames.get(&pfn).map(|f| f.mappings.clone()).unwrap_or_default();
        for m in maps {
            self.unload(cpu, cost, m.asid, m.va, reason);
        }
        if reason == UnloadReason::Destroy {
            self.frames.remove(&pfn);
        }
    }

    /// Interface 4: sets the rights of the loaded translations in
    /// `[va, va+len)` of `asid` to `prot` (never more than `cap(page)`, e.g.
    /// read-only for copy-on-write pages). Protection lives in the TLB on
    /// PA-RISC, so this purges TLB entries, not cache lines (seed 000 §5),
    /// except under read-only aliasing, where a page losing write is
    /// written back as `downgrade` does.
    pub fn change_prot(
        &mut self,
        cpu: &mut Cpu,
        cost: &CostModel,
        asid: Asid,
        va: VirtAddr,
        len: u64,
        prot: &dyn Fn(VirtAddr) -> Prot,
    ) {
        for page in pages(self.page, va, len) {
            if let Some(pfn) = self.translation_any(asid, page) {
                let p = prot(page);
                // Read-only aliasing lets a reader in another class load
                // beside a read-only translation without cleaning it, which
                // holds only while read-only translations have no dirty lines
                // (`downgrade`): taking write away (fork's copy-on-write,
                // mprotect) must write them back the same way.
                if !p.write && self.acts() && self.policy.on_conflict() == Conflict::ReadersOrOneWriter {
                    let writer = self.frames.get(&pfn).and_then(|f| {
                        f.mappings.iter().find(|m| m.asid == asid && m.va == page && m.prot.write).cloned()
                    });
                    if let Some(m) = writer {
                        let at = self.place(&m, pfn);
                        flush_range(cpu, cost, at, self.page.bytes(), Flush::WriteBack, "hat: write-protect");
                    }
                }
                self.set_rights(asid, page, pfn, |_| p);
                self.purge_tlb(cpu, cost, asid, page);
            }
        }
    }

    /// Interface 5: an access `op` to the page sets its referenced bit, and
    /// a store its modified bit.
    pub fn set_refmod(&mut self, pfn: Pfn, op: DataRef) {
        let f = self.frames.entry(pfn).or_insert_with(|| PageFrame { pfn, ..PageFrame::default() });
        f.referenced = true;
        f.modified |= op == DataRef::Store;
    }

    /// Interface 5: clears both bits; returns what they were.
    pub fn clear_refmod(&mut self, pfn: Pfn) -> (bool, bool) {
        match self.frames.get_mut(&pfn) {
            Some(f) => {
                let was = (f.referenced, f.modified);
                f.referenced = false;
                f.modified = false;
                was
            }
            None => (false, false),
        }
    }

    /// A span for kernel code touching `va` of a loaded translation.
    pub fn span(&self, asid: Asid, va: VirtAddr, pfn: Pfn) -> Span {
        let at = Place { va, pa: self.page.translate(va, pfn), space: self.tag_of(asid, va, pfn) };
        Span { at, cached: !self.uncached(pfn) }
    }

    /// Frames with at least one live translation.
    pub fn frames(&self) -> impl Iterator<Item = &PageFrame> {
        self.frames.values()
    }
}
