//! The machine-independent VM: memory objects, address spaces, `map`,
//! `unmap`, `protect`, `fork`, user accesses and the faults they take
//! (minor, zero-fill, copy-on-write, pseudo), over the hat layer and the
//! simulated CPU.
//!
//! Kernel code touches a frame's contents (zero-fill, file read, COW copy)
//! through a *kernel window*: a temporary kernel translation at
//! [`KERNEL_WINDOW`] (`vmlab_addr::layout`) + the frame's physical address, loaded and unloaded
//! through the hat like any other, as Chorus maps all physical memory into a
//! kernel segment (seed 000 footnote 6). The consistency policy therefore
//! sees kernel aliases exactly as it sees user ones.

use std::collections::BTreeMap;

use vmlab_addr::layout::{KERNEL_WINDOW, OS_KERNEL_SPACE, USER_LIMIT};
use vmlab_addr::{Asid, CpuId, PageSize, Pfn, VirtAddr};

use serde::Serialize;
use vmlab_machine::MachineConfig;
use vmlab_mmu::FramePool;

use crate::cost::{CostModel, Counters, Routine};
use crate::cpu::{Cpu, DataRef};
use crate::hat::{Hat, Mapping, UnloadReason};
use crate::oracle::{Consistency, Violation};
use crate::policy::Policy;
use crate::primitives::{copy, zero};
use crate::prot::Prot;
use vmlab_machine::Mechanism;

/// Cache space ids of global shared segments (`global-shared` policy):
/// object `o`'s shared segment is `GLOBAL_SPACE_BASE + o`.
pub const GLOBAL_SPACE_BASE: Asid = Asid(0x4000_0000);

/// Cache space ids of global text segments (`global-shared` policy): object
/// `o`'s read-only private text at its text address is
/// `GLOBAL_TEXT_SPACE_BASE + o`, unless that address is its shared
/// segment's too (`Os::tag_for` says why the two need their own ids).
pub const GLOBAL_TEXT_SPACE_BASE: Asid = Asid(0x6000_0000);

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum OsError {
    /// An access or operation on an address no region covers.
    Unmapped(String),
    /// A map over an existing region.
    Overlap(String),
    /// An access the region's protection forbids.
    Protection(String),
    /// The consistency policy refuses the mapping.
    Refused(String),
    /// Anything else malformed (alignment, unknown object, out of memory).
    Invalid(String),
}

impl std::fmt::Display for OsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OsError::Unmapped(m) => write!(f, "unmapped address: {m}"),
            OsError::Overlap(m) => write!(f, "overlapping map: {m}"),
            OsError::Protection(m) => write!(f, "protection violation: {m}"),
            OsError::Refused(m) => write!(f, "refused by the consistency policy: {m}"),
            OsError::Invalid(m) => write!(f, "{m}"),
        }
    }
}

impl std::error::Error for OsError {}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ObjectKind {
    Anonymous,
    File,
}

#[derive(Clone, Debug, Serialize)]
pub struct MemObject {
    pub name: String,
    pub kind: ObjectKind,
    pub pages: u64,
    /// Object page -> frame, for pages in memory.
    pub resident: BTreeMap<u64, Pfn>,
    /// Under `global-shared`: the one address every mapping uses.
    pub global_va: Option<VirtAddr>,
    /// Under `global-shared`: where its read-only private mappings (a
    /// shared library's text) are global, fixed by the first one.
    #[serde(skip_serializing)]
    pub text_va: Option<VirtAddr>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Region {
    pub start: VirtAddr,
    pub len: u64,
    pub object: usize,
    /// Byte offset into the object.
    pub offset: u64,
    pub prot: Prot,
    /// Copy-on-write (MAP_PRIVATE) rather than shared.
    pub private: bool,
}

/// A page the VM knows for an address space: its frame, whether it is
/// copy-on-write, and whether it was mapped lazily (its first access is a
/// pseudo page fault).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct VmPage {
    pub pfn: Pfn,
    pub cow: bool,
    pub lazy: bool,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct AddressSpace {
    pub asid: Asid,
    pub regions: BTreeMap<VirtAddr, Region>,
    pub pages: BTreeMap<VirtAddr, VmPage>,
}

/// When [`Os::attach`] loads the page's translation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Attach {
    /// Now.
    Eager,
    /// At the first access, which takes a pseudo page fault (lazy mapping).
    Lazy,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct FaultCounts {
    pub minor: u64,
    pub zero_fill: u64,
    pub file_read: u64,
    pub copy_on_write: u64,
    /// COW faults where the writer held the last reference (no copy).
    pub cow_reuse: u64,
    pub pseudo: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FaultKind {
    Minor,
    ZeroFill,
    FileRead,
    CopyOnWrite,
    Pseudo,
}

#[derive(Debug)]
pub struct Os {
    cost: CostModel,
    cpu: Cpu,
    mem: FramePool,
    hat: Hat,
    policy: Policy,
    page: PageSize,
    objects: Vec<MemObject>,
    names: BTreeMap<String, usize>,
    spaces: BTreeMap<Asid, AddressSpace>,
    faults: FaultCounts,
}

impl Os {
    /// An OS on `machine` with `policy`.
    pub fn new(
        machine: &MachineConfig,
        cost: CostModel,
        policy: Policy,
        consistency: Consistency,
    ) -> Result<Self, String> {
        let page = machine.memory.page_size.bytes();
        let frames = machine.memory.size.0 / page;
        if (frames + frames.max(64)) * page > KERNEL_WINDOW.0 {
            return Err(format!(
                "machine {}: {} bytes of memory do not fit below the kernel window at {KERNEL_WINDOW:#x}",
                machine.name, machine.memory.size.0
            ));
        }
        let mut cpu = Cpu::new(machine, consistency, policy.name())?;
        if let Some(t) = &cost.tlb {
            cpu.set_tlb(t.config(page))?;
        }
        let hat = Hat::new(policy, machine.memory.page_size, frames, cpu.top_data_config())?;
        Ok(Self {
            cost,
            cpu,
            mem: FramePool::new(page, 0, frames).with_colours(machine.colours()),
            hat,
            policy,
            page: machine.memory.page_size,
            objects: Vec::new(),
            names: BTreeMap::new(),
            spaces: BTreeMap::new(),
            faults: FaultCounts::default(),
        })
    }

    pub fn page_bytes(&self) -> u64 {
        self.page.bytes()
    }
    pub fn policy(&self) -> Policy {
        self.policy
    }
    pub fn cost(&self) -> &CostModel {
        &self.cost
    }
    pub fn cpu(&mut self) -> &mut Cpu {
        &mut self.cpu
    }
    pub fn hat(&self) -> &Hat {
        &self.hat
    }
    pub fn hat_mut(&mut self) -> &mut Hat {
        &mut self.hat
    }
    pub fn counters(&self) -> Counters {
        self.cpu.counters()
    }
    /// Counters per mechanism so far (they sum to [`Os::counters`]).
    pub fn components(&mut self) -> BTreeMap<String, Counters> {
        self.cpu.components()
    }
    pub fn faults(&self) -> FaultCounts {
        self.faults
    }
    pub fn violations(&self) -> &[Violation] {
        self.cpu.violations()
    }
    pub fn space(&self, asid: Asid) -> Option<&AddressSpace> {
        self.spaces.get(&asid)
    }
    pub fn frames_in_use(&self) -> u64 {
        self.mem.in_use()
    }

    /// The CPU, cost model and hat at once (for kernel routines in other
    /// modules).
    pub fn parts(&mut self) -> (&mut Cpu, &CostModel, &mut Hat) {
        (&mut self.cpu, &self.cost, &mut self.hat)
    }

    /// Creates a named memory object of `pages` pages.
    pub fn object(&mut self, name: &str, kind: ObjectKind, pages: u64) -> Result<usize, OsError> {
        if self.names.contains_key(name) {
            return Err(OsError::Invalid(format!("object {name:?} already exists")));
        }
        if pages == 0 {
            return Err(OsError::Invalid(format!("object {name:?} needs at least one page")));
        }
        let id = self.objects.len();
        self.objects.push(MemObject {
            name: name.into(),
            kind,
            pages,
            resident: BTreeMap::new(),
            global_va: None,
            text_va: None,
        });
        self.names.insert(name.into(), id);
        Ok(id)
    }

    pub fn object_id(&self, name: &str) -> Option<usize> {
        self.names.get(name).copied()
    }

    fn aligned(&self, what: &str, v: u64) -> Result<(), OsError> {
        if !v.is_multiple_of(self.page.bytes()) {
            return Err(OsError::Invalid(format!(
                "{what} {v:#x} is not a multiple of the {}-byte page",
                self.page.bytes()
            )));
        }
        Ok(())
    }

    fn region_of(&self, asid: Asid, va: u64) -> Option<&Region> {
        let s = self.spaces.get(&asid)?;
        let (_, r) = s.regions.range(..=VirtAddr(va)).next_back()?;
        (va < r.start.0 + r.len).then_some(r)
    }

    /// `map(as, obj, addr, len, offset, prot)` of seed 003 section 3.1:
    /// `region` says which part of which object goes where, with what
    /// rights, shared or copy-on-write (`private`).
    pub fn map(&mut self, asid: Asid, region: Region) -> Result<(), OsError> {
        let Region { start, len, object, offset, prot, private } = region;
        let addr = start.0;
        if asid == OS_KERNEL_SPACE {
            return Err(OsError::Invalid("address space 0 is the kernel's".into()));
        }
        self.aligned("address", addr)?;
        self.aligned("length", len)?;
        self.aligned("offset", offset)?;
        if len == 0 {
            return Err(OsError::Invalid("length must be positive".into()));
        }
        if addr.checked_add(len).is_none_or(|e| e > USER_LIMIT.0) {
            return Err(OsError::Invalid(format!("range {addr:#x}+{len:#x} goes past the user limit {USER_LIMIT:#x}")));
        }
        let obj = self.objects.get(object).ok_or_else(|| OsError::Invalid(format!("no object {object}")))?;
        if offset + len > obj.pages * self.page.bytes() {
            return Err(OsError::Invalid(format!(
                "offset {offset:#x} + length {len:#x} is beyond object {:?} ({} pages)",
                obj.name, obj.pages
            )));
        }
        if let Some(s) = self.spaces.get(&asid) {
            if let Some((_, r)) = s.regions.range(..VirtAddr(addr + len)).next_back() {
                if r.start.0 + r.len > addr {
                    return Err(OsError::Overlap(format!(
                        "{addr:#x}+{len:#x} overlaps the region at {:#x}+{:#x} in space {asid}",
                        r.start.0, r.len
                    )));
                }
            }
        }
        match self.policy {
            Policy::CacheAligned => self.check_aligned(asid, object, addr, len, offset)?,
            Policy::GlobalShared if !private => {
                // The segment's base is only ever compared and added back to
                // (replay.rs): an offset beyond the address wraps, as the
                // release build always did, instead of panicking in a debug
                // one.
                let global = VirtAddr(addr.wrapping_sub(offset));
                let o = &mut self.objects[object];
                match o.global_va {
                    Some(g) if g != global => {
                        return Err(OsError::Refused(format!(
                            "object {:?} is a global segment at {:#x}; map offset {offset:#x} at {:#x}",
                            o.name,
                            g,
                            g.0 + offset
                        )))
                    }
                    _ => o.global_va = Some(global),
                }
            }
            // Read-only private file mappings (shared libraries' text, which
            // HP-UX keeps in a global segment: seed 000 section 5) are global
            // where they sit at the object's text address, the first one
            // fixing it; elsewhere they are private pages like any other
            // (pseudo-aliased), never refused. Apart from `global_va`: a
            // program may map the same file shared and writable too.
            Policy::GlobalShared if !prot.write && self.objects[object].kind == ObjectKind::File => {
                // Text whose offset is beyond its address has no base below
                // it: never the global text (`tag_for` checks the same way).
                if let Some(base) = addr.checked_sub(offset) {
                    self.objects[object].text_va.get_or_insert(VirtAddr(base));
                }
            }
            _ => {}
        }
        let s = self.spaces.entry(asid).or_insert_with(|| AddressSpace { asid, ..AddressSpace::default() });
        s.regions.insert(start, region);
        Ok(())
    }

    /// `cache-aligned`: a new mapping of an object must put each object page
    /// in the same cache class as every other mapping of that page.
    fn check_aligned(&self, asid: Asid, object: usize, addr: u64, len: u64, offset: u64) -> Result<(), OsError> {
        let probe_pfn = Pfn(0);
        for (sid, s) in &self.spaces {
            for r in s.regions.values().filter(|r| r.object == object) {
                let o = offset.max(r.offset);
                if o >= (offset + len).min(r.offset + r.len) {
                    continue; // no object page in common
                }
                let mine = self.hat.class(VirtAddr(addr + (o - offset)), probe_pfn, asid);
                let theirs = self.hat.class(VirtAddr(r.start.0 + (o - r.offset)), probe_pfn, *sid);
                if mine != theirs {
                    return Err(OsError::Refused(format!(
                        "cache-aligned: {addr:#x} in space {asid} would not share cache lines with the mapping at {:#x} in space {sid}",
                        r.start.0
                    )));
                }
            }
        }
        Ok(())
    }

    /// The common start of `unmap` and `protect`: a page-aligned range that
    /// is wholly mapped, with its regions split at the range's ends.
    fn claim_range(&mut self, asid: Asid, addr: u64, len: u64) -> Result<(), OsError> {
        self.aligned("address", addr)?;
        self.aligned("length", len)?;
        self.covered(asid, addr, len)?;
        self.split(asid, addr, len);
        Ok(())
    }

    fn covered(&self, asid: Asid, addr: u64, len: u64) -> Result<(), OsError> {
        let mut p = addr;
        while p < addr + len {
            if self.region_of(asid, p).is_none() {
                return Err(OsError::Unmapped(format!("{p:#x} in space {asid} is not mapped")));
            }
            p += self.page.bytes();
        }
        Ok(())
    }

    /// Splits regions of `asid` so `addr` and `addr+len` are boundaries.
    fn split(&mut self, asid: Asid, addr: u64, len: u64) {
        let Some(s) = self.spaces.get_mut(&asid) else { return };
        for cut in [addr, addr + len] {
            let hit = s.regions.range(..VirtAddr(cut)).next_back().map(|(_, r)| r.clone());
            if let Some(r) = hit {
                if r.start.0 < cut && cut < r.start.0 + r.len {
                    let left = Region { len: cut - r.start.0, ..r.clone() };
                    let right = Region {
                        start: VirtAddr(cut),
                        len: r.start.0 + r.len - cut,
                        offset: r.offset + (cut - r.start.0),
                        ..r
                    };
                    s.regions.insert(left.start, left);
                    s.regions.insert(right.start, right);
                }
            }
        }
    }

    /// `unmap(as, addr, len)`.
    pub fn unmap(&mut self, asid: Asid, addr: VirtAddr, len: u64) -> Result<(), OsError> {
        let addr = addr.0;
        self.claim_range(asid, addr, len)?;
        let mut p = addr;
        while p < addr + len {
            self.drop_page(asid, p);
            if let Some(s) = self.spaces.get_mut(&asid) {
                if s.regions.get(&VirtAddr(p)).is_some_and(|r| r.start.0 + r.len <= addr + len) {
                    s.regions.remove(&VirtAddr(p));
                }
            }
            p += self.page.bytes();
        }
        Ok(())
    }

    /// Unmaps and destroys the page at `va` of `asid` (if any) while its
    /// region stays: the receiver's old buffer page of seed 000 section 4.2
    /// (IPC-copy step 5, IPC-move step 3).
    pub fn destroy_page(&mut self, asid: Asid, va: VirtAddr) {
        self.drop_page(asid, va.0 & !(self.page.bytes() - 1));
    }

    /// Forgets the VM page at `va` and its translation; frees the frame on
    /// the last reference.
    fn drop_page(&mut self, asid: Asid, va: u64) {
        let Some(vp) = self.spaces.get_mut(&asid).and_then(|s| s.pages.remove(&VirtAddr(va))) else { return };
        let last = self.mem.refs(vp.pfn) <= 1;
        self.hat.unload(
            &mut self.cpu,
            &self.cost,
            asid,
            VirtAddr(va),
            if last { UnloadReason::Destroy } else { UnloadReason::Unmap },
        );
        if self.mem.unshare(vp.pfn) {
            self.hat.unload_frame(&mut self.cpu, &self.cost, vp.pfn, UnloadReason::Destroy);
            self.free_frame(vp.pfn);
        }
    }

    /// Returns a frame to the free pool (`page_free` instructions).
    fn free_frame(&mut self, pfn: Pfn) {
        let outer = self.cpu.enter(Mechanism::VmBookkeeping);
        self.cpu.instructions(self.cost.path_of(Routine::PageFree));
        self.cpu.leave(outer);
        // The frame of a VM page came from `mem` and is freed once, after
        // its last reference went (`unshare`): an error is a vmlab bug.
        let freed = self.mem.free(pfn);
        debug_assert!(freed.is_ok(), "{freed:?}");
    }

    /// `change_protections(as, addr, len, prot)`. Taking rights away purges
    /// TLB entries; giving rights unloads the translation so the next access
    /// reloads it under the consistency policy.
    pub fn protect(&mut self, asid: Asid, addr: VirtAddr, len: u64, prot: Prot) -> Result<(), OsError> {
        let addr = addr.0;
        self.claim_range(asid, addr, len)?;
        let mut p = addr;
        while p < addr + len {
            if let Some(r) = self.spaces.get_mut(&asid).and_then(|s| s.regions.get_mut(&VirtAddr(p))) {
                r.prot = prot;
            }
            if let Some((pfn, loaded)) = self.hat.translation(asid, VirtAddr(p), CpuId(0)) {
                let cow = self.spaces.get(&asid).and_then(|s| s.pages.get(&VirtAddr(p))).is_some_and(|v| v.cow);
                let want = if cow { prot.without_write() } else { prot };
                if want.allows(loaded) && want != loaded {
                    self.hat.unload(&mut self.cpu, &self.cost, asid, VirtAddr(p), UnloadReason::Unmap);
                } else if want != loaded {
                    let _ = pfn;
                    self.hat.change_prot(&mut self.cpu, &self.cost, asid, VirtAddr(p), self.page.bytes(), &|_| want);
                }
            }
            p += self.page.bytes();
        }
        Ok(())
    }

    /// `fork`: a new address space `child` with the parent's regions;
    /// private pages become copy-on-write in both, shared ones stay shared.
    pub fn fork(&mut self, parent: Asid, child: Asid) -> Result<(), OsError> {
        if child == OS_KERNEL_SPACE || self.spaces.contains_key(&child) {
            return Err(OsError::Invalid(format!("space {child} exists or is the kernel's")));
        }
        let p =
            self.spaces.get(&parent).cloned().ok_or_else(|| OsError::Unmapped(format!("no address space {parent}")))?;
        let mut c = AddressSpace { asid: child, regions: p.regions.clone(), pages: BTreeMap::new() };
        for (&VirtAddr(va), vp) in &p.pages {
            let private = self.region_of(parent, va).is_some_and(|r| r.private);
            self.mem.share(vp.pfn);
            c.pages.insert(VirtAddr(va), VmPage { pfn: vp.pfn, cow: private, lazy: false });
            if private && !vp.cow {
                if let Some(pp) = self.spaces.get_mut(&parent).and_then(|s| s.pages.get_mut(&VirtAddr(va))) {
                    pp.cow = true;
                }
                if let Some((_, loaded)) = self.hat.translation(parent, VirtAddr(va), CpuId(0)) {
                    if loaded.write {
                        self.hat.change_prot(
                            &mut self.cpu,
                            &self.cost,
                            parent,
                            VirtAddr(va),
                            self.page.bytes(),
                            &|_| loaded.without_write(),
                        );
                    }
                }
            }
        }
        self.spaces.insert(child, c);
        Ok(())
    }

    /// A user read or write of `size` bytes (within one page) at `va`.
    pub fn access(&mut self, asid: Asid, va: VirtAddr, op: DataRef, size: u64, origin: &str) -> Result<(), OsError> {
        let va = va.0;
        let write = op == DataRef::Store;
        if size == 0 || (va % self.page.bytes()) + size > self.page.bytes() {
            return Err(OsError::Invalid(format!("access of {size} bytes at {va:#x} must lie within one page")));
        }
        let r = self
            .region_of(asid, va)
            .ok_or_else(|| OsError::Unmapped(format!("{va:#x} in space {asid} is not mapped")))?;
        let need = if write { Prot::RW } else { Prot::R };
        if !r.prot.allows(if write { Prot { read: false, write: true, exec: false } } else { Prot::R }) {
            return Err(OsError::Protection(format!(
                "{} of {va:#x} in space {asid}, which is mapped {}",
                if write { "write" } else { "read" },
                r.prot
            )));
        }
        let page = va & !(self.page.bytes() - 1);
        let mut tries = 0;
        let pfn = loop {
            if let Some((pfn, rights)) = self.hat.translation(asid, VirtAddr(page), CpuId(0)) {
                if rights.allows(if write { need } else { Prot::R }) || (!write && rights.read) {
                    break pfn;
                }
            }
            tries += 1;
            if tries > 3 {
                return Err(OsError::Invalid(format!(
                    "fault on {va:#x} in space {asid} did not resolve (a vmlab bug)"
                )));
            }
            self.fault(asid, page, write)?;
        };
        self.cpu.instructions(self.cost.path_of(Routine::UserAccess));
        if !self
            .cpu
            .tlb_translate(asid, VirtAddr(page), self.page.frame_base(pfn), self.page.bytes())
            .map_err(OsError::Invalid)?
        {
            self.hat.tlb_refill(&mut self.cpu, &self.cost, asid, VirtAddr(page));
        }
        let span = self.hat.span(asid, VirtAddr(va), pfn);
        self.cpu.reference(op, span, size, origin);
        self.hat.set_refmod(pfn, op);
        Ok(())
    }

    fn fault(&mut self, asid: Asid, page: u64, write: bool) -> Result<FaultKind, OsError> {
        let outer = self.cpu.enter(Mechanism::FaultEntry);
        let kind = self.fault_body(asid, page, write);
        self.cpu.leave(outer);
        kind
    }

    fn fault_body(&mut self, asid: Asid, page: u64, write: bool) -> Result<FaultKind, OsError> {
        let r = self.region_of(asid, page).cloned().ok_or_else(|| OsError::Unmapped(format!("{page:#x}")))?;
        let vp = self.spaces.get(&asid).and_then(|s| s.pages.get(&VirtAddr(page))).copied();
        let pseudo = self.hat.take_pseudo(asid, VirtAddr(page)) || vp.is_some_and(|v| v.lazy);
        let kind = match vp {
            None => {
                if r.private && write {
                    if self.objects[r.object].kind == ObjectKind::File || self.obj_page(&r, page).is_some() {
                        FaultKind::CopyOnWrite
                    } else {
                        FaultKind::ZeroFill
                    }
                } else if self.obj_page(&r, page).is_some() {
                    FaultKind::Minor
                } else if self.objects[r.object].kind == ObjectKind::File {
                    FaultKind::FileRead
                } else {
                    FaultKind::ZeroFill
                }
            }
            Some(v) if v.cow && write => FaultKind::CopyOnWrite,
            Some(_) if pseudo => FaultKind::Pseudo,
            Some(_) => FaultKind::Minor,
        };
        self.cpu.count(|c| c.traps += 1);
        let handler = if kind == FaultKind::Pseudo { Routine::PseudoFaultHandler } else { Routine::FaultHandler };
        self.cpu.instructions(self.cost.path_of(handler));
        match kind {
            FaultKind::Minor => self.faults.minor += 1,
            FaultKind::ZeroFill => self.faults.zero_fill += 1,
            FaultKind::FileRead => self.faults.file_read += 1,
            FaultKind::CopyOnWrite => self.faults.copy_on_write += 1,
            FaultKind::Pseudo => self.faults.pseudo += 1,
        }
        let vp = match vp {
            Some(v) if v.cow && write => {
                if self.mem.refs(v.pfn) <= 1 {
                    self.faults.cow_reuse += 1;
                    VmPage { cow: false, lazy: false, ..v }
                } else {
                    let new = self.alloc(page)?;
                    self.hat.unload(&mut self.cpu, &self.cost, asid, VirtAddr(page), UnloadReason::Unmap);
                    self.kernel_copy(v.pfn, new);
                    if self.mem.unshare(v.pfn) {
                        self.hat.unload_frame(&mut self.cpu, &self.cost, v.pfn, UnloadReason::Destroy);
                        self.free_frame(v.pfn);
                    }
                    VmPage { pfn: new, cow: false, lazy: false }
                }
            }
            Some(v) => VmPage { lazy: false, ..v },
            None => {
                let obj_pfn = if r.private && write && self.objects[r.object].kind == ObjectKind::Anonymous {
                    self.obj_page(&r, page)
                } else {
                    Some(self.obj_frame(&r, page)?)
                };
                if r.private && write {
                    let new = self.alloc(page)?;
                    match obj_pfn {
                        Some(src) => self.kernel_copy(src, new),
                        None => self.kernel_zero(new),
                    }
                    VmPage { pfn: new, cow: false, lazy: false }
                } else {
                    let pfn = obj_pfn.ok_or_else(|| OsError::Invalid("object page missing (a vmlab bug)".into()))?;
                    self.mem.share(pfn);
                    VmPage { pfn, cow: r.private, lazy: false }
                }
            }
        };
        if let Some(s) = self.spaces.get_mut(&asid) {
            s.pages.insert(VirtAddr(page), vp);
        }
        let rights = if vp.cow { r.prot.without_write() } else { r.prot };
        let tag = self.tag_for(asid, &r, page, vp.pfn);
        let cause = if write { DataRef::Store } else { DataRef::Load };
        self.hat
            .load(
                &mut self.cpu,
                &self.cost,
                Mapping { asid, va: VirtAddr(page), tag, prot: rights, cpu: 0 },
                vp.pfn,
                cause,
            )
            .map_err(OsError::Invalid)?;
        Ok(kind)
    }

    /// The tag of `page` of region `r` mapping frame `pfn`: under
    /// `global-shared`, the object's shared segment for a shared region
    /// while the page is the object's own frame, and its text segment for a
    /// private region of a file at the object's text address while the page
    /// is still the file's own frame (not yet copied on write).
    ///
    /// A global address space is what keeps homonyms away (seed 000
    /// section 2; the 834's tags carry the space id, not the frame), so a
    /// segment's space id must name one base address: `(id, va)` is then
    /// one object page, one frame. The text and shared segments of one
    /// object have bases of their own (`text_va`, `global_va`, each fixed by
    /// its first mapping), so they share the shared segment's id only where
    /// the two bases are one; under one id at two bases, object page 2 of
    /// the text and object page 0 of the shared segment sat at the same
    /// `(id, va)`, and a read through one hit the other frame's line (a
    /// stale read the consistency oracle found on the 834, kept as
    /// `global_shared_shared_and_private_alias_of_one_object_reads_fresh`).
    /// One frame under both ids is a synonym across two classes, which
    /// pseudo-aliasing resolves like any other.
    fn tag_for(&self, asid: Asid, r: &Region, page: u64, pfn: Pfn) -> Asid {
        if self.policy != Policy::GlobalShared {
            return asid;
        }
        let o = &self.objects[r.object];
        let object = r.object as u32;
        // A frame `attach` or `share_cow` put into a shared region is not the
        // object's page: under the segment's id it would be a homonym of the
        // object's frame wherever another space maps that page.
        let own_frame = self.obj_page(r, page) == Some(pfn);
        if !r.private {
            return if own_frame { Asid(GLOBAL_SPACE_BASE.0 + object) } else { asid };
        }
        let base = r.start.0.checked_sub(r.offset).map(VirtAddr);
        let text = o.kind == ObjectKind::File && base.is_some() && base == o.text_va && own_frame;
        if !text {
            asid
        } else if o.global_va == o.text_va {
            Asid(GLOBAL_SPACE_BASE.0 + object)
        } else {
            Asid(GLOBAL_TEXT_SPACE_BASE.0 + object)
        }
    }

    fn obj_index(&self, r: &Region, page: u64) -> u64 {
        (page - r.start.0 + r.offset) / self.page.bytes()
    }

    fn obj_page(&self, r: &Region, page: u64) -> Option<Pfn> {
        self.objects[r.object].resident.get(&self.obj_index(r, page)).copied()
    }

    /// The object's frame for `page`, brought in (zero-filled or read from
    /// the file) if needed. The object holds one reference.
    fn obj_frame(&mut self, r: &Region, page: u64) -> Result<Pfn, OsError> {
        if let Some(p) = self.obj_page(r, page) {
            return Ok(p);
        }
        let pfn = self.alloc(page)?;
        // A file page's contents come from the disk; the model charges the
        // kernel writing the page (a DMA would bypass the cache; see docs/os.md).
        self.kernel_zero(pfn);
        let idx = self.obj_index(r, page);
        self.objects[r.object].resident.insert(idx, pfn);
        Ok(pfn)
    }

    fn alloc(&mut self, va: u64) -> Result<Pfn, OsError> {
        let outer = self.cpu.enter(Mechanism::VmBookkeeping);
        self.cpu.instructions(self.cost.path_of(Routine::PageAlloc));
        self.cpu.leave(outer);
        let colour = (va / self.page.bytes()) % self.mem.colours();
        self.mem.alloc_coloured(Some(colour)).map_err(|e| OsError::Invalid(e.to_string()))
    }

    /// Kernel-window address of a frame.
    pub fn window(&self, pfn: Pfn) -> VirtAddr {
        VirtAddr(KERNEL_WINDOW.0 + self.page.frame_base(pfn).0)
    }

    fn load_window(&mut self, pfn: Pfn) -> Result<(), OsError> {
        self.kernel_map(self.window(pfn), pfn)
    }

    fn unload_window(&mut self, pfn: Pfn) {
        let va = self.window(pfn);
        self.hat.unload(&mut self.cpu, &self.cost, OS_KERNEL_SPACE, va, UnloadReason::Unmap);
    }

    fn kernel_zero(&mut self, pfn: Pfn) {
        if self.load_window(pfn).is_ok() {
            let span = self.hat.span(OS_KERNEL_SPACE, self.window(pfn), pfn);
            zero(&mut self.cpu, &self.cost, span, self.page.bytes(), "kernel zero-fill");
            self.unload_window(pfn);
        }
    }

    fn kernel_copy(&mut self, src: Pfn, dst: Pfn) {
        if self.load_window(src).is_ok() && self.load_window(dst).is_ok() {
            let s = self.hat.span(OS_KERNEL_SPACE, self.window(src), src);
            let d = self.hat.span(OS_KERNEL_SPACE, self.window(dst), dst);
            copy(&mut self.cpu, &self.cost, s, d, self.page.bytes(), "kernel copy-on-write copy");
        }
        self.unload_window(src);
        self.unload_window(dst);
    }

    /// Takes page `va` away from `asid` without freeing its frame (the
    /// sender side of a move): the translation is unloaded (with the
    /// policy's flush) and the frame returned with its reference.
    pub fn detach(&mut self, asid: Asid, va: VirtAddr) -> Result<Pfn, OsError> {
        let va = va.0;
        let vp = self
            .spaces
            .get_mut(&asid)
            .and_then(|s| s.pages.remove(&VirtAddr(va)))
            .ok_or_else(|| OsError::Unmapped(format!("{va:#x} in space {asid} has no page")))?;
        self.hat.unload(&mut self.cpu, &self.cost, asid, VirtAddr(va), UnloadReason::Unmap);
        Ok(vp.pfn)
    }

    /// Gives frame `pfn` (and its reference) to `asid` at `va`, replacing
    /// any page there (destroyed: flush, or purge when unshared).
    /// `how` says whether the translation is loaded now or at the first
    /// access (a pseudo page fault).
    pub fn attach(&mut self, asid: Asid, va: VirtAddr, pfn: Pfn, how: Attach) -> Result<(), OsError> {
        let va = va.0;
        let eager = how == Attach::Eager;
        let r =
            self.region_of(asid, va).cloned().ok_or_else(|| OsError::Unmapped(format!("{va:#x} in space {asid}")))?;
        self.drop_page(asid, va);
        if let Some(s) = self.spaces.get_mut(&asid) {
            s.pages.insert(VirtAddr(va), VmPage { pfn, cow: false, lazy: !eager });
        }
        if eager {
            let tag = self.tag_for(asid, &r, va, pfn);
            let m = Mapping { asid, va: VirtAddr(va), tag, prot: r.prot, cpu: 0 };
            self.hat.load(&mut self.cpu, &self.cost, m, pfn, DataRef::Load).map_err(OsError::Invalid)?;
        }
        Ok(())
    }

    /// Mach-style copy-on-write transfer: the page at `src_va` of `src`
    /// becomes copy-on-write in both spaces and appears lazily at `dst_va`
    /// of `dst` (replacing any page there).
    pub fn share_cow(&mut self, src: Asid, src_va: VirtAddr, dst: Asid, dst_va: VirtAddr) -> Result<(), OsError> {
        let (src_va, dst_va) = (src_va.0, dst_va.0);
        let vp = self
            .spaces
            .get_mut(&src)
            .and_then(|s| s.pages.get_mut(&VirtAddr(src_va)))
            .ok_or_else(|| OsError::Unmapped(format!("{src_va:#x} in space {src} has no page")))?;
        vp.cow = true;
        let pfn = vp.pfn;
        if let Some((_, loaded)) = self.hat.translation(src, VirtAddr(src_va), CpuId(0)) {
            if loaded.write {
                self.hat.change_prot(&mut self.cpu, &self.cost, src, VirtAddr(src_va), self.page.bytes(), &|_| {
                    loaded.without_write()
                });
            }
        }
        self.mem.share(pfn);
        self.drop_page(dst, dst_va);
        if let Some(s) = self.spaces.get_mut(&dst) {
            s.pages.insert(VirtAddr(dst_va), VmPage { pfn, cow: true, lazy: true });
        }
        Ok(())
    }

    /// A fresh frame for kernel use (an IPC buffer), with one reference.
    pub fn alloc_frame(&mut self, colour_of: VirtAddr) -> Result<Pfn, OsError> {
        self.alloc(colour_of.0)
    }

    /// Loads a kernel translation `va` -> `pfn` (an IPC buffer mapping).
    pub fn kernel_map(&mut self, va: VirtAddr, pfn: Pfn) -> Result<(), OsError> {
        let kernel = OS_KERNEL_SPACE;
        let m = Mapping { asid: kernel, va, tag: kernel, prot: Prot::RW, cpu: 0 };
        self.hat.load(&mut self.cpu, &self.cost, m, pfn, DataRef::Store).map(|_| ()).map_err(OsError::Invalid)
    }

    /// Unloads a kernel translation (with the policy's flush).
    pub fn kernel_unmap(&mut self, va: VirtAddr) {
        self.hat.unload(&mut self.cpu, &self.cost, OS_KERNEL_SPACE, va, UnloadReason::Unmap);
    }

    /// The frame behind a user page, faulting it in for reading if needed.
    pub fn frame_of(&mut self, asid: Asid, va: VirtAddr) -> Result<Pfn, OsError> {
        let page = va.0 & !(self.page.bytes() - 1);
        if let Some(v) = self.spaces.get(&asid).and_then(|s| s.pages.get(&VirtAddr(page))) {
            return Ok(v.pfn);
        }
        self.access(asid, VirtAddr(page), DataRef::Load, 4, "frame_of")?;
        self.spaces
            .get(&asid)
            .and_then(|s| s.pages.get(&VirtAddr(page)))
            .map(|v| v.pfn)
            .ok_or_else(|| OsError::Unmapped(format!("{va:#x} in space {asid}")))
    }
}
