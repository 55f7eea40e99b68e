//! The hat of seed 003 on the SPARCcenter 2000 (Figure 2): an address-space
//! descriptor per space with its list of MMU descriptors, page-frame
//! descriptors with the list of every translation to the page (the types of
//! `crate::hat`: `PageFrame`, `Mapping`), the SRMMU tables
//! (`vmlab_mmu::pagetable::Srmmu`) and the hat's free resource pool of
//! table blocks, one free list per table level.
//!
//! Every routine runs its work on the CPU that calls it (`OnCpu`): its
//! instructions, the loads and stores of the descriptors, mapping entries
//! and PTEs it touches, through that CPU's caches, counted in its ledger.
//! What it costs is the ledger's business (`sim::price`). Locks are not
//! taken here: the locking design (`design.rs`) wraps each call in the
//! locks its design names, so one hat serves every design.
//!
//! On the SPARCcenter every CPU's SRMMU walks the same tables through one
//! context table, so a space has one page table (its MMU descriptor's);
//! the descriptor list records each CPU the space has been active on, which
//! is where its translations may sit in a TLB: the shoot-down targets.

use std::collections::BTreeMap;

use vmlab_addr::layout::OS_KERNEL_SPACE;
use vmlab_addr::{Asid, CpuId, PageSize, Pfn, PhysAddr, VirtAddr};
use vmlab_machine::OnCpu;
use vmlab_mmu::pagetable::srmmu::{PAGE_BYTES, TABLE_BYTES};
use vmlab_mmu::pagetable::{PteAddr, Srmmu};
use vmlab_mmu::{FramePool, Slot, TlbEntry};

use crate::cpu::DataRef;
use crate::hat::{Mapping, PageFrame};
use crate::prot::Prot;

use super::params::MpParams;

/// Where the hat's own structures live in physical memory (kernel data,
/// reached through the kernel's physical window), after the first megabyte
/// of kernel text: page-frame descriptors (one per frame), mapping entries
/// (`hment`s, two per frame), MMU and address-space descriptors, the
/// pool's list heads. Data and table frames follow.
#[derive(Clone, Copy, Debug)]
struct Layout {
    pfd: u64,
    hme: u64,
    hme_slots: u64,
    mmu: u64,
    space: u64,
    pool_heads: u64,
    first_frame: u64,
}

const PFD_BYTES: u64 = 64;
const HME_BYTES: u64 = 16;
/// Address-space and MMU descriptors have room for this many spaces.
const DESCRIPTORS: u64 = 1 << 16;

impl Layout {
    fn new(memory_bytes: u64) -> Self {
        let frames = memory_bytes / PAGE_BYTES;
        let pfd = 1 << 20;
        let hme = pfd + frames * PFD_BYTES;
        let hme_slots = frames * 2;
        let mmu = hme + hme_slots * HME_BYTES;
        let space = mmu + DESCRIPTORS * 64;
        let pool_heads = space + DESCRIPTORS * 64;
        let first_frame = (pool_heads + 4096).div_ceil(PAGE_BYTES);
        Self { pfd, hme, hme_slots, mmu, space, pool_heads, first_frame }
    }

    fn pfd(&self, pfn: Pfn) -> u64 {
        self.pfd + pfn.0 * PFD_BYTES
    }

    fn hme(&self, asid: Asid, va: VirtAddr) -> u64 {
        self.hme + ((u64::from(asid.0).wrapping_mul(0x9e37) ^ (va.0 / PAGE_BYTES)) % self.hme_slots) * HME_BYTES
    }

    fn mmu(&self, asid: Asid) -> u64 {
        self.mmu + (u64::from(asid.0) % DESCRIPTORS) * 64
    }

    fn space(&self, asid: Asid) -> u64 {
        self.space + (u64::from(asid.0) % DESCRIPTORS) * 64
    }

    fn pool_head(&self, level: usize) -> u64 {
        self.pool_heads + level as u64 * 64
    }
}

/// An address space's descriptor: the CPUs its MMU descriptor list names.
#[derive(Clone, Debug, Default)]
pub struct SpaceDescriptor {
    pub mmus: Vec<CpuId>,
}

/// The hat's state, shared by every CPU.
#[derive(Debug)]
pub struct MpHat {
    table: Srmmu,
    memory: FramePool,
    /// The free resource pool: free table blocks by level.
    free: [Vec<PhysAddr>; 3],
    spaces: BTreeMap<Asid, SpaceDescriptor>,
    frames: BTreeMap<Pfn, PageFrame>,
    /// Blocks a CPU has taken from the pool for its next load.
    stash: Vec<Vec<(usize, PhysAddr)>>,
    /// Blocks a CPU's unloads emptied and has not yet returned.
    emptied: Vec<Vec<(usize, PhysAddr)>>,
    paths: (u64, u64, u64, u64),
    page: PageSize,
    at: Layout,
    /// Frames the pool may carve into level-2 and level-3 tables
    /// (`table_pool_fraction` of memory), and how many it has carved.
    pool_limit_frames: u64,
    pool_frames: u64,
    /// The steal clock's hand: the last level-3 table stolen (space, the
    /// table's index `vpn / 64`).
    hand: Option<(Asid, u64)>,
}

/// Pages a level-3 table maps (`va[17:12]`).
pub const LEAF_PAGES: u64 = 64;
/// The pool's limited lists: levels 2 and 3, both of 256-byte blocks, so
/// one lends to the other.
const LIMITED: [usize; 2] = [1, 2];

fn kernel(pa: u64) -> (VirtAddr, PhysAddr, Asid) {
    (VirtAddr(pa), PhysAddr(pa), OS_KERNEL_SPACE)
}

fn load(on: &mut OnCpu<'_>, pa: u64, bytes: u64) {
    let (v, p, s) = kernel(pa);
    on.load(v, p, s, bytes);
}

fn store(on: &mut OnCpu<'_>, pa: u64, bytes: u64) {
    let (v, p, s) = kernel(pa);
    on.store(v, p, s, bytes);
}

fn run(on: &mut OnCpu<'_>, instructions: u64) {
    let code = vmlab_machine::Code {
        start: VirtAddr(0),
        phys: PhysAddr(0),
        space: OS_KERNEL_SPACE,
        instructions,
        instruction_bytes: 4,
    };
    on.run_code(code, vmlab_machine::CodeFetch::Counted);
}

impl MpHat {
    /// A hat over `memory_bytes` of physical memory for `cpus` CPUs.
    pub fn new(p: &MpParams, memory_bytes: u64, cpus: usize) -> Result<Self, String> {
        let at = Layout::new(memory_bytes);
        let frames = (memory_bytes / PAGE_BYTES).checked_sub(at.first_frame).filter(|&f| f > 0).ok_or_else(|| {
            format!("mp: {memory_bytes} bytes of memory leave no frames above the kernel's {} KB", at.first_frame * 4)
        })?;
        Ok(Self {
            table: Srmmu::new(),
            memory: FramePool::new(PAGE_BYTES, at.first_frame, frames),
            free: [Vec::new(), Vec::new(), Vec::new()],
            spaces: BTreeMap::new(),
            frames: BTreeMap::new(),
            stash: vec![Vec::new(); cpus],
            emptied: vec![Vec::new(); cpus],
            paths: (
                p.path.hat_load.value as u64,
                p.path.hat_unload.value as u64,
                p.path.hat_chprot.value as u64,
                p.path.mapping_step.value as u64,
            ),
            page: PageSize::new(PAGE_BYTES).map_err(|e| e.to_string())?,
            at,
            pool_limit_frames: (memory_bytes as f64 * p.table_pool_fraction.value / PAGE_BYTES as f64).floor() as u64,
            pool_frames: 0,
            hand: None,
        })
    }

    /// Whether the pool can hand `cpu` blocks for `levels` without a
    /// steal: from its free lists (a level-2 and a level-3 block are the
    /// same 256 bytes) or by carving a frame within the limit. Level-1
    /// tables come with the context and are not limited.
    pub fn fits(&self, levels: &[usize]) -> bool {
        let wanted = levels.iter().filter(|l| LIMITED.contains(l)).count() as u64;
        let free = (self.free[1].len() + self.free[2].len()) as u64;
        let carvable = self.pool_limit_frames.saturating_sub(self.pool_frames) * (PAGE_BYTES / TABLE_BYTES[2]);
        wanted <= free + carvable
    }

    /// The level-3 table to steal for a load of `va` in `asid`: the next
    /// after the clock's hand, in (space, table) order over every space,
    /// other than the table the load itself needs. Returns the table's
    /// space, first address and the pages it maps; moves the hand.
    pub fn victim(&mut self, asid: Asid, va: VirtAddr) -> Option<(Asid, VirtAddr, u64)> {
        let own = (asid, va.0 / PAGE_BYTES / LEAF_PAGES);
        let mut tables: BTreeMap<(Asid, u64), u64> = BTreeMap::new();
        for &a in self.spaces.keys() {
            for (vpn, _) in self.table.mappings(a) {
                *tables.entry((a, vpn.0 / LEAF_PAGES)).or_default() += 1;
            }
        }
        tables.remove(&own);
        let next = match self.hand {
            Some(h) => tables.range((std::ops::Bound::Excluded(h), std::ops::Bound::Unbounded)).next(),
            None => None,
        }
        .or_else(|| tables.iter().next())
        .map(|(&k, &n)| (k, n))?;
        self.hand = Some(next.0);
        let ((a, t), n) = next;
        Some((a, VirtAddr(t * LEAF_PAGES * PAGE_BYTES), n))
    }

    /// The pool's frames for level-2 and level-3 tables: carved, and the
    /// limit.
    pub fn pool_frames(&self) -> (u64, u64) {
        (self.pool_frames, self.pool_limit_frames)
    }

    /// A data frame for the VM system (not a hat routine: the caller
    /// counts its own allocation).
    pub fn alloc_frame(&mut self) -> Result<Pfn, String> {
        self.memory.alloc().map_err(|e| format!("mp: out of memory: {e}"))
    }

    pub fn free_frame(&mut self, pfn: Pfn) -> Result<(), String> {
        self.memory.free(pfn).map_err(|e| e.to_string())
    }

    pub fn frames_in_use(&self) -> u64 {
        self.memory.in_use()
    }

    pub fn space(&self, asid: Asid) -> Option<&SpaceDescriptor> {
        self.spaces.get(&asid)
    }

    pub fn frame(&self, pfn: Pfn) -> Option<&PageFrame> {
        self.frames.get(&pfn)
    }

    pub fn table(&self) -> &Srmmu {
        &self.table
    }

    /// Adds `cpu`'s MMU descriptor to `asid`'s list (the space became
    /// active there). Returns whether it was new.
    pub fn join(&mut self, on: &mut OnCpu<'_>, asid: Asid, cpu: CpuId) -> bool {
        load(on, self.at.space(asid), 8);
        let s = self.spaces.entry(asid).or_default();
        if s.mmus.contains(&cpu) {
            return false;
        }
        s.mmus.push(cpu);
        store(on, self.at.mmu(asid), 16);
        true
    }

    /// The CPUs other than `me` where `asid`'s translations may be cached.
    pub fn targets(&self, asid: Asid, me: CpuId) -> Vec<CpuId> {
        self.spaces.get(&asid).map(|s| s.mmus.iter().copied().filter(|&c| c != me).collect()).unwrap_or_default()
    }

    /// Which table levels a load of `va` in `asid` needs blocks for,
    /// beyond those `cpu` has already taken.
    pub fn blocks_wanted(&self, cpu: CpuId, asid: Asid, va: VirtAddr) -> Vec<usize> {
        let have: Vec<usize> = self.stash[cpu.index()].iter().map(|b| b.0).collect();
        self.table.missing(asid, self.page.vpn(va)).into_iter().filter(|l| !have.contains(l)).collect()
    }

    /// Takes one block of each level in `levels` from the free resource
    /// pool for `cpu` (refilling a list from a fresh frame when empty).
    /// The caller has made sure the blocks fit (`fits`): a fixed pool
    /// cannot carve beyond its limit.
    pub fn reserve(&mut self, on: &mut OnCpu<'_>, cpu: CpuId, levels: &[usize]) -> Result<(), String> {
        for &l in levels {
            load(on, self.at.pool_head(l), 8);
            let sibling = 3 - l;
            if self.free[l].is_empty() && LIMITED.contains(&l) && !self.free[sibling].is_empty() {
                let b = self.free[sibling].pop().ok_or("mp: empty sibling list")?;
                self.free[l].push(b);
            }
            if self.free[l].is_empty() {
                if LIMITED.contains(&l) && self.pool_frames >= self.pool_limit_frames {
                    return Err(format!(
                        "mp: the table pool is at its limit of {} frames and a reserve did not first steal or wait",
                        self.pool_limit_frames
                    ));
                }
                let f = self.memory.alloc().map_err(|e| format!("mp: no memory for page tables: {e}"))?;
                if LIMITED.contains(&l) {
                    self.pool_frames += 1;
                }
                let n = PAGE_BYTES / TABLE_BYTES[l];
                self.free[l].extend((0..n).rev().map(|i| PhysAddr(self.page.frame_base(f).0 + i * TABLE_BYTES[l])));
            }
            let b = self.free[l].pop().ok_or("mp: empty pool after refill")?;
            store(on, self.at.pool_head(l), 8);
            // A block is zeroed before it goes into the tree.
            for off in (0..TABLE_BYTES[l]).step_by(4) {
                store(on, b.0 + off, 4);
            }
            self.stash[cpu.index()].push((l, b));
        }
        Ok(())
    }

    /// Interface 1: loads `va` of `asid` to `pfn` with `prot`, run on
    /// `cpu` (its stash holds the blocks `blocks_wanted` named). When `cpu`
    /// runs the space, the faulting access then walks the table into its TLB.
    /// Returns whether it lowered the rights of a translation already
    /// there (then other TLBs must be shot down).
    pub fn load(
        &mut self,
        on: &mut OnCpu<'_>,
        cpu: CpuId,
        asid: Asid,
        va: VirtAddr,
        pfn: Pfn,
        prot: Prot,
    ) -> Result<bool, String> {
        let vpn = self.page.vpn(va);
        let va = self.page.page_start(va);
        let mut lowered = false;
        run(on, self.paths.0);
        load(on, self.at.space(asid), 8);
        load(on, self.at.mmu(asid), 8);
        let need = self.table.missing(asid, vpn);
        let stash = &mut self.stash[cpu.index()];
        let mut fresh = Vec::with_capacity(need.len());
        for l in &need {
            let i =
                stash.iter().position(|b| b.0 == *l).ok_or_else(|| format!("mp: load without a level-{l} block"))?;
            fresh.push(stash.swap_remove(i).1);
        }
        if let Some(old) = self.table.lookup(asid, vpn) {
            if old != pfn {
                return Err(format!("mp: space {} page {va:#x} is loaded to frame {old:#x}; unload first", asid.0));
            }
            let was = self.prot_of(asid, va).unwrap_or(Prot::NONE);
            lowered = (was.write && !prot.write) || (was.read && !prot.read) || (was.exec && !prot.exec);
            self.set_prot(asid, va, pfn, prot);
        } else {
            self.table.insert(asid, vpn, pfn, &fresh).map_err(|e| e.to_string())?;
            let f = self.frames.entry(pfn).or_insert_with(|| PageFrame { pfn, ..PageFrame::default() });
            f.mappings.push(Mapping { asid, va, tag: asid, prot, cpu: cpu.index() });
            store(on, self.at.hme(asid, va), HME_BYTES);
        }
        self.touch_pte(on, asid, va, true);
        load(on, self.at.pfd(pfn), 8);
        store(on, self.at.pfd(pfn), 8);
        // The access that faulted retries through the TLB only when this
        // CPU runs the space (a scripted load may come from any CPU).
        let running = self.spaces.get(&asid).is_some_and(|s| s.mmus.contains(&cpu));
        if let (true, Some(tlb)) = (running, on.cpu().tlb_mut()) {
            let e = TlbEntry::new(asid, va, self.page.frame_base(pfn), self.page);
            tlb.insert(e, Slot::Normal).map_err(|e| e.to_string())?;
        }
        Ok(lowered)
    }

    /// The walk to `va`'s PTE, each entry read through the cache, and the
    /// PTE written when `write`.
    fn touch_pte(&self, on: &mut OnCpu<'_>, asid: Asid, va: VirtAddr, write: bool) {
        let mut refs = Vec::new();
        let _ = self.table.walk(asid, va, &mut refs);
        for r in &refs {
            if let PteAddr::Physical(pa) = r.at {
                load(on, pa.0, u64::from(r.bytes));
            }
        }
        if write {
            if let Some(PteAddr::Physical(pa)) = refs.last().map(|r| r.at) {
                store(on, pa.0, 4);
            }
        }
    }

    fn set_prot(&mut self, asid: Asid, va: VirtAddr, pfn: Pfn, prot: Prot) {
        if let Some(f) = self.frames.get_mut(&pfn) {
            for m in f.mappings.iter_mut().filter(|m| m.asid == asid && m.va == va) {
                m.prot = prot;
            }
        }
    }

    /// The frame `va` of `asid` is loaded to, if any.
    pub fn lookup(&self, asid: Asid, va: VirtAddr) -> Option<Pfn> {
        self.table.lookup(asid, self.page.vpn(va))
    }

    /// Unloads `va` of `asid` (the PTE and its mapping entry) on `cpu`;
    /// the table blocks it empties wait in `cpu`'s emptied list for
    /// `release_emptied`. The TLBs are the caller's (a shoot-down).
    /// Returns the frame it mapped.
    pub fn unload(&mut self, on: &mut OnCpu<'_>, cpu: CpuId, asid: Asid, va: VirtAddr) -> Option<Pfn> {
        let va = self.page.page_start(va);
        let pfn = self.lookup(asid, va)?;
        run(on, self.paths.1);
        self.touch_pte(on, asid, va, true);
        load(on, self.at.pfd(pfn), 8);
        if let Some(f) = self.frames.get_mut(&pfn) {
            if let Some(i) = f.mappings.iter().position(|m| m.asid == asid && m.va == va) {
                for m in &f.mappings[..=i] {
                    load(on, self.at.hme(m.asid, m.va), HME_BYTES);
                }
                run(on, self.paths.3 * (i as u64 + 1));
                f.mappings.remove(i);
            }
            store(on, self.at.pfd(pfn), 8);
            if f.mappings.is_empty() && !f.referenced && !f.modified {
                self.frames.remove(&pfn);
            }
        }
        if let Ok(emptied) = self.table.remove(asid, self.page.vpn(va)) {
            self.emptied[cpu.index()].extend(emptied);
        }
        Some(pfn)
    }

    /// Interface 4 for one page: sets the rights of `va` in `asid`.
    /// Returns whether a translation was there.
    pub fn change_prot(&mut self, on: &mut OnCpu<'_>, asid: Asid, va: VirtAddr, prot: Prot) -> bool {
        let va = self.page.page_start(va);
        let Some(pfn) = self.lookup(asid, va) else { return false };
        run(on, self.paths.2);
        self.touch_pte(on, asid, va, true);
        self.set_prot(asid, va, pfn, prot);
        true
    }

    /// Interface 2: every translation to `pfn`, as (space, page), to unload.
    pub fn mappings_of(&self, on: &mut OnCpu<'_>, pfn: Pfn) -> Vec<(Asid, VirtAddr)> {
        load(on, self.at.pfd(pfn), 8);
        let maps: Vec<(Asid, VirtAddr)> =
            self.frames.get(&pfn).map(|f| f.mappings.iter().map(|m| (m.asid, m.va)).collect()).unwrap_or_default();
        for (a, v) in &maps {
            load(on, self.at.hme(*a, *v), HME_BYTES);
        }
        run(on, self.paths.3 * maps.len() as u64);
        maps
    }

    /// Interface 5: reads and clears the referenced and modified bits of `pfn`.
    pub fn clear_refmod(&mut self, on: &mut OnCpu<'_>, pfn: Pfn) -> (bool, bool) {
        load(on, self.at.pfd(pfn), 8);
        match self.frames.get_mut(&pfn) {
            Some(f) => {
                let was = (f.referenced, f.modified);
                f.referenced = false;
                f.modified = false;
                store(on, self.at.pfd(pfn), 8);
                was
            }
            None => (false, false),
        }
    }

    /// Interface 5: an access `op` sets the referenced bit, a store the
    /// modified bit too (the SRMMU sets them in the PTE).
    pub fn set_refmod(&mut self, pfn: Pfn, op: DataRef) {
        if let Some(f) = self.frames.get_mut(&pfn) {
            f.referenced = true;
            f.modified |= op == DataRef::Store;
        }
    }

    /// Blocks `cpu`'s unloads emptied, taken out of its list.
    pub fn take_emptied(&mut self, cpu: CpuId) -> Vec<(usize, PhysAddr)> {
        std::mem::take(&mut self.emptied[cpu.index()])
    }

    /// Returns `blocks` to the free resource pool.
    pub fn release(&mut self, on: &mut OnCpu<'_>, blocks: &[(usize, PhysAddr)]) {
        for &(l, b) in blocks {
            load(on, self.at.pool_head(l), 8);
            store(on, b.0, 4);
            store(on, self.at.pool_head(l), 8);
            self.free[l].push(b);
        }
    }

    /// Drops `asid` (it must map nothing): its level-1 table joins `cpu`'s
    /// emptied blocks, its descriptor goes.
    pub fn destroy(&mut self, on: &mut OnCpu<'_>, cpu: CpuId, asid: Asid) {
        load(on, self.at.space(asid), 8);
        if let Some(top) = self.table.release(asid) {
            self.emptied[cpu.index()].push((0, top));
        }
        self.spaces.remove(&asid);
    }

    /// Bytes of table blocks free in the pool.
    pub fn pool_free_bytes(&self) -> u64 {
        (0..3).map(|l| self.free[l].len() as u64 * TABLE_BYTES[l]).sum()
    }

    /// Checks that every mapping list agrees with the page tables: each
    /// table mapping is on its frame's list with its page, and each list
    /// entry is in the table.
    pub fn check_lists(&self) -> Result<(), String> {
        let mut listed = 0usize;
        for f in self.frames.values() {
            for m in &f.mappings {
                listed += 1;
                if self.lookup(m.asid, m.va) != Some(f.pfn) {
                    return Err(format!(
                        "frame {:#x} lists space {} page {:#x}, which the table does not map to it",
                        f.pfn, m.asid.0, m.va
                    ));
                }
            }
        }
        let spaces: Vec<Asid> = self.spaces.keys().copied().collect();
        let mut mapped = 0usize;
        for a in spaces {
            for (vpn, pfn) in self.table.mappings(a) {
                mapped += 1;
                let ok = self
                    .frames
                    .get(&pfn)
                    .is_some_and(|f| f.mappings.iter().any(|m| m.asid == a && m.va == self.page.page_base(vpn)));
                if !ok {
                    return Err(format!(
                        "the table maps space {} page {:#x} to frame {:#x}, which does not list it",
                        a.0,
                        self.page.page_base(vpn),
                        pfn
                    ));
                }
            }
        }
        if listed != mapped {
            return Err(format!("{listed} mappings listed but {mapped} in the tables"));
        }
        Ok(())
    }

    /// The rights of `va` in `asid` as its frame's list has them.
    pub fn prot_of(&self, asid: Asid, va: VirtAddr) -> Option<Prot> {
        let pfn = self.lookup(asid, va)?;
        self.frames.get(&pfn)?.mappings.iter().find(|m| m.asid == asid && m.va == va).map(|m| m.prot)
    }
}
