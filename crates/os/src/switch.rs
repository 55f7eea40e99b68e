//! Context switches on one CPU of a `System`, by named mechanism, as work on
//! the CPU's modelled caches and TLBs: what a switch costs follows from what
//! is resident when it happens (the direct cost: lines cleaned and
//! invalidated, TLB entries dropped) and from what the next process then
//! misses (the indirect cost). Study S5 (seed 001, after Wiggins, Tuch,
//! Uhlig and Heiser 2003).
//!
//! | mechanism | on a switch | when it flushes | source |
//! |---|---|---|---|
//! | `flush` | clean the D-cache by loading the flush area, invalidate both caches, flush both TLBs | every switch | seed 001, "ARM cache architecture", "ARM TLB" (Linux on the SA-1100) |
//! | `asid` | load the new address-space id; caches and TLBs are tagged with it | only when an ASID is taken from another process (recycling) | seed 001, "ASID recycling still requires cache flush" |
//! | `fass-linux` | set the PID register and the domain access-control register; one shared top-level table (CPD) | on a collision in the CPD, on recycling a domain used since the last flush; 3 domains reserved by the kernel | seed 001, "Fast address-space switching", "Linux implementation" |
//! | `fass-l4` | as `fass-linux`, 1 domain reserved | as `fass-linux` | seed 001, "L4 implementation" |
//! | `fass-linux-unshared` | as `fass-linux`, but a read-only shared region is linked privately into each process's relocated 32 MB (no TLB entry sharing) | as `fass-linux` | seed 001, "Shared TLB entries" (the fall-back of private linking) |
//!
//! Fast address-space switching, as modelled: an address below 32 MB is
//! relocated by the running process's PID slot before the caches and TLBs
//! see it (`vmlab_mmu::Pid`), so small spaces never overlap; every mapping
//! is entered in one shared top-level table (the CPD) under the domain of
//! its owner, a process or a shared region; a TLB entry carries that domain
//! and the domain access-control register lets the running process use
//! only its own, its shared regions' and the kernel's. A TLB miss or a
//! domain fault on a section the CPD gives to another domain is a
//! *collision*: the caches and TLB are flushed (lazily, only then) and the
//! section changes hands. When a process needs a domain and none is free,
//! one is taken from the process that ran least recently (*recycling*),
//! its CPD sections are invalidated, and the caches and TLB are flushed if
//! that domain was used since the last flush (L4's "clean domain" rule,
//! which covers Linux's "if the process had writable mappings"). A PID
//! slot reused by a new process is flushed by the same rule.
//!
//! The consistency oracle (crates/os/src/oracle.rs) watches the D-cache
//! and, as a second instance, the I-cache; a translation that the TLB
//! gives for a page other than the one the page table maps is a stale read
//! too (`Oracle::stale_translation`). `Skip` drops one required flush, so a
//! test can show the oracle catching it.
//!
//! Costs are charged in the CPU's ledger as the work happens (`Costs`):
//! instructions at a CPI, a line fill from memory, a dirty line written
//! back, a TLB refill's two page-table loads, a trap into the kernel.

use std::convert::Infallible;

use rustc_hash::{FxHashMap, FxHashSet};
use serde::{Deserialize, Serialize};
use vmlab_addr::layout::OS_KERNEL_SPACE;
use vmlab_addr::{Asid, CpuId, Domain, PageSize, PhysAddr, VirtAddr};
use vmlab_cache::{Cache, CacheConfig, CacheStats, Flush, FlushStats, LineRef, LineState, Outcome, RefKind};
use vmlab_machine::{Code, CodeFetch, LevelConfig, Mechanism, MissClasses, OnCpu, Reached, Request, System};
use vmlab_mmu::arm::{Access as DomainUse, PID_SLOTS, PID_SLOT_BYTES};
use vmlab_mmu::{Checked, DomainAccess, Pid, Slot, Switch, SwitchSite, Tlb, TlbConfig, TlbEntry};

use crate::oracle::{Access, Oracle, Violation};

/// A context-switch mechanism (the table above).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scheme {
    Flush,
    Asid,
    FassLinux,
    FassL4,
    FassLinuxUnshared,
}

impl Scheme {
    pub const ALL: [Scheme; 5] =
        [Scheme::Flush, Scheme::Asid, Scheme::FassLinux, Scheme::FassL4, Scheme::FassLinuxUnshared];

    pub fn name(self) -> &'static str {
        match self {
            Scheme::Flush => "flush",
            Scheme::Asid => "asid",
            Scheme::FassLinux => "fass-linux",
            Scheme::FassL4 => "fass-l4",
            Scheme::FassLinuxUnshared => "fass-linux-unshared",
        }
    }

    /// The mechanism called `name`; an unknown name lists the valid ones.
    pub fn from_name(name: &str) -> Result<Self, String> {
        Self::ALL.iter().copied().find(|s| s.name() == name).ok_or_else(|| {
            let names: Vec<&str> = Self::ALL.iter().map(|s| s.name()).collect();
            format!("unknown context-switch mechanism {name:?}: expected one of {}", names.join(", "))
        })
    }

    /// Whether caches and TLBs carry address-space tags.
    pub fn tagged(self) -> bool {
        self == Scheme::Asid
    }

    /// What a switch to another process does to the caches and TLBs
    /// (`vmlab_mmu::Switch`); the mechanism's own work (an ASID, a domain,
    /// a PID slot) follows in `Kernel::switch_to`. Fast switching keeps
    /// everything: PID relocation and domains keep the spaces apart in
    /// untagged caches and TLBs, and what they cannot (a collision, a
    /// recycled domain or slot) is flushed lazily, with `Everything`.
    pub fn on_switch(self) -> Switch {
        match self {
            Scheme::Flush => Switch::Everything,
            Scheme::Asid => Switch::Untagged,
            Scheme::FassLinux | Scheme::FassL4 | Scheme::FassLinuxUnshared => Switch::Keep,
        }
    }

    /// Domains the kernel keeps for itself (fast switching only).
    fn reserved_domains(self, p: &SwitchPreset) -> Option<u32> {
        match self {
            Scheme::FassLinux | Scheme::FassLinuxUnshared => Some(p.domains.reserved_linux),
            Scheme::FassL4 => Some(p.domains.reserved_l4),
            Scheme::Flush | Scheme::Asid => None,
        }
    }

    fn shares_read_only_regions(self) -> bool {
        self != Scheme::FassLinuxUnshared
    }
}

/// A required flush a test drops, to show that the oracle notices.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Skip {
    Nothing,
    /// Every cache flush the mechanism would do.
    CacheFlush,
    /// Every TLB flush the mechanism would do.
    TlbFlush,
}

fn param_u(p: &Sourced) -> u64 {
    p.value.max(0.0).round() as u64
}

/// A number with its source, as presets/switch/*.toml write it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sourced {
    pub value: f64,
    pub source: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Domains {
    pub count: u32,
    pub reserved_linux: u32,
    pub reserved_l4: u32,
    pub source: String,
}

/// Cycles of what the simulator counts (charged in the ledger).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Costs {
    pub cpi: Sourced,
    pub hit: Sourced,
    pub line_fill: Sourced,
    pub line_writeback: Sourced,
    /// A store that misses a read-allocate cache and goes to memory
    /// through the write buffer.
    pub store_through: Sourced,
    pub pte_load: Sourced,
    pub trap: Sourced,
}

/// Kernel path lengths, in instructions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Paths {
    pub syscall: Sourced,
    pub switch_to: Sourced,
    pub pipe_rw: Sourced,
    pub socket_rw: Sourced,
    pub fcntl_lock: Sourced,
    pub fork: Sourced,
    pub exec: Sourced,
    pub exit: Sourced,
    pub fault: Sourced,
    pub flush_area: Sourced,
}

/// A machine for S5: a machine preset (with overrides), its clock, its
/// TLBs, domains and PID slots, costs and kernel paths
/// (`presets/switch/<name>.toml`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SwitchPreset {
    pub name: String,
    pub description: String,
    pub source: String,
    pub machine: String,
    #[serde(default)]
    pub overrides: Vec<String>,
    pub clock_mhz: Sourced,
    /// Address-space id bits of the `asid` mechanism (a tagged variant of
    /// the machine, or the machine's own ASIDs/PCIDs).
    pub asid_bits: Sourced,
    /// Whether the machine can switch by PID relocation and domains.
    pub fass: bool,
    pub itlb: TlbConfig,
    pub dtlb: TlbConfig,
    /// A data cache beside the first-level D-cache that a page selects by
    /// an attribute of its page-table entry (the SA-1100's mini-cache).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minicache: Option<CacheConfig>,
    pub domains: Domains,
    pub cost: Costs,
    pub path: Paths,
}

pub const BUILTIN: [(&str, &str); 2] = [
    ("strongarm-sa1100", include_str!("../../../presets/switch/strongarm-sa1100.toml")),
    ("x86-64-pcid", include_str!("../../../presets/switch/x86-64-pcid.toml")),
];

impl SwitchPreset {
    /// A shipped preset by name, or a TOML file by path.
    pub fn load(name_or_path: &str) -> Result<Self, String> {
        let (origin, text) = match BUILTIN.iter().find(|(n, _)| *n == name_or_path) {
            Some((n, t)) => (format!("presets/switch/{n}.toml"), (*t).to_string()),
            None if name_or_path.ends_with(".toml") => (
                name_or_path.to_string(),
                std::fs::read_to_string(name_or_path).map_err(|e| format!("{name_or_path}: {e}"))?,
            ),
            None => {
                let names: Vec<&str> = BUILTIN.iter().map(|(n, _)| *n).collect();
                return Err(format!("unknown switch preset {name_or_path:?}: expected one of {}", names.join(", ")));
            }
        };
        toml::from_str(&text).map_err(|e| format!("{origin}: {e}"))
    }

    pub fn cycle_ns(&self) -> f64 {
        1000.0 / self.clock_mhz.value
    }
}

/// Where things live in every process (ARM Linux 2.4's layout: user below
/// 3 GB, the kernel's sections above).
pub const KERNEL_BASE: u64 = 0xc000_0000;
/// Kernel data: task structs, second-level page tables, pipe and socket
/// buffers (below 16 MB physical, where user frames start).
pub const TASKS: u64 = KERNEL_BASE + 0x40_0000;
pub const PAGE_TABLES: u64 = KERNEL_BASE + 0x80_0000;
pub const BUFFERS: u64 = KERNEL_BASE + 0xa0_0000;
/// The D-cache flush area Linux's SA-1100 clean loop reads (`FLUSH_BASE`).
pub const FLUSH_AREA: u64 = 0xe000_0000;
/// The mini-cache's flush area (`FLUSH_BASE_MINICACHE`): the section after
/// `FLUSH_AREA`, mapped to the mini-cache (Linux 2.4, mm-armv.c).
pub const FLUSH_AREA_MINICACHE: u64 = FLUSH_AREA + (1 << SECTION_SHIFT);
/// A read-only shared region linked privately (`fass-linux-unshared`) is
/// placed here, inside the relocated 32 MB.
const PRIVATE_LINK_BASE: u64 = 0x0100_0000;
/// The cache tag space of shared regions under `asid` (a global space).
const SHARED_SPACE: Asid = Asid(0);
/// Kernel text and data: the kernel domain (reserved), global mappings.
const KERNEL_DOMAIN: Domain = Domain(0);
const SECTION_SHIFT: u32 = 20;

/// A region several processes map at the same virtual address onto the same
/// frames (a shared library's text, a shared-memory segment).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Region {
    pub base: VirtAddr,
    pub pages: u64,
    pub writable: bool,
}

/// Which way a system call's copy goes (`Kernel::copy`): a write's data
/// into the kernel, a read's out to the user.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CopyDirection {
    UserToKernel,
    KernelToUser,
}

/// A process, as the switching kernel knows it.
#[derive(Clone, Debug, Default)]
struct Process {
    live: bool,
    /// Private pages: virtual page -> frame.
    pages: FxHashMap<u64, u64>,
    /// Shared regions it maps (indices into `Kernel::regions`).
    regions: Vec<usize>,
    /// Private pages whose page-table entry selects the mini-cache.
    minicache_pages: FxHashSet<u64>,
    asid: Option<Asid>,
    slot: Option<u32>,
    domain: Option<Domain>,
    last_ran: u64,
}

#[derive(Clone, Debug)]
struct SharedRegion {
    region: Region,
    frames: Vec<u64>,
    domain: Option<Domain>,
}

/// What the switching kernel counted (beside the ledger's tallies).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SwitchCounts {
    pub switches: u64,
    pub cache_flushes: u64,
    pub tlb_flushes: u64,
    /// Lines the flushes wrote back, and lines they invalidated.
    pub lines_written_back: u64,
    pub lines_invalidated: u64,
    pub tlb_entries_flushed: u64,
    pub collisions: u64,
    pub domain_faults: u64,
    pub domain_recycles: u64,
    pub asid_recycles: u64,
    pub cpd_fills: u64,
    pub tlb_misses: u64,
}

/// Which data cache a page's entry selects (the SA-1100's C and B bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum DataCache {
    Main,
    Mini,
}

/// The mini-cache and its own oracle (the D-cache's cannot see it).
#[derive(Debug)]
struct MiniCache {
    cfg: CacheConfig,
    cache: Cache,
    oracle: Oracle,
    line: u64,
    lines: u64,
}

/// Which TLB a reference goes through.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Side {
    Instruction,
    Data,
}

/// One CPU running processes under one context-switch mechanism.
#[derive(Debug)]
pub struct Kernel {
    scheme: Scheme,
    skip: Skip,
    preset: SwitchPreset,
    system: System,
    /// The D-TLB is the `Cpu`'s own; the SA-1100's second, instruction TLB
    /// lives here.
    itlb: Tlb,
    dcache: Oracle,
    icache: Oracle,
    minicache: Option<MiniCache>,
    line: u64,
    dcache_lines: u64,
    procs: Vec<Process>,
    running: Option<usize>,
    regions: Vec<SharedRegion>,
    next_frame: u64,
    /// The shared top-level table: section -> owning domain.
    cpd: FxHashMap<u64, Domain>,
    /// Per domain: its owner (a process or a region) and whether it was
    /// used since the last flush.
    domain_owner: Vec<Option<Owner>>,
    domain_used: Vec<bool>,
    slot_used: Vec<bool>,
    slot_owner: Vec<Option<usize>>,
    asid_owner: FxHashMap<u32, usize>,
    next_asid: u32,
    clock: u64,
    counts: SwitchCounts,
    cpi: u64,
    costs: [u64; 6],
    small: PageSize,
    section: PageSize,
    virtual_caches: bool,
    /// A private page's first touch is a page fault that zero-fills it
    /// (`set_demand_paging`); otherwise it appears silently.
    demand_paging: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Owner {
    Process(usize),
    Region(usize),
}

const HIT: usize = 0;
const FILL: usize = 1;
const WRITEBACK: usize = 2;
const PTE: usize = 3;
const TRAP: usize = 4;
const STORE: usize = 5;
const CPU: CpuId = CpuId(0);

impl Kernel {
    /// A one-CPU system of `preset`'s machine running `scheme`.
    pub fn new(preset: &SwitchPreset, scheme: Scheme, skip: Skip) -> Result<Self, String> {
        if scheme.reserved_domains(preset).is_some() && !preset.fass {
            return Err(format!(
                "{}: {} needs PID relocation and domains, which this machine lacks",
                preset.name,
                scheme.name()
            ));
        }
        let mut overrides = preset.overrides.clone();
        let machine = vmlab_machine::preset::load(&preset.machine, &overrides).map_err(|e| e.to_string())?;
        if scheme.tagged() {
            for (name, c) in machine.caches() {
                if c.indexing.index_is_virtual() {
                    overrides.push(format!("{name}.asid_tags=true"));
                }
            }
        }
        let machine = vmlab_machine::preset::load(&preset.machine, &overrides).map_err(|e| e.to_string())?;
        let levels = machine.levels()?;
        let (icfg, dcfg) = match levels.first() {
            Some(LevelConfig::Split { i, d, .. }) => (i.clone(), d.clone()),
            _ => return Err(format!("{}: S5 needs split first-level I- and D-caches", machine.name)),
        };
        if levels.len() > 1 {
            return Err(format!(
                "{}: S5's oracle watches one level of caches; this machine has {}",
                machine.name,
                levels.len()
            ));
        }
        let system = System::new(1, &levels, &[], MissClasses::Unsorted).map_err(|e| e.to_string())?;
        let tlb = |c: &TlbConfig| TlbConfig { asid_tags: scheme.tagged(), ..c.clone() };
        let minicache = match &preset.minicache {
            Some(c) => {
                let cfg = CacheConfig {
                    asid_tags: c.asid_tags || (scheme.tagged() && c.indexing.index_is_virtual()),
                    ..c.clone()
                };
                Some(MiniCache {
                    cache: Cache::new(cfg.clone(), MissClasses::Unsorted).map_err(|e| format!("minicache: {e}"))?,
                    oracle: Oracle::new(&cfg, scheme.name())?,
                    line: cfg.line.0,
                    lines: cfg.size.0 / cfg.line.0,
                    cfg,
                })
            }
            None => None,
        };
        let virtual_caches = icfg.indexing.index_is_virtual() || dcfg.indexing.index_is_virtual();
        let mut k = Self {
            scheme,
            skip,
            itlb: Tlb::new(tlb(&preset.itlb)).map_err(|e| format!("itlb: {e}"))?,
            dcache: Oracle::new(&dcfg, scheme.name())?,
            icache: Oracle::new(&icfg, scheme.name())?,
            minicache,
            line: dcfg.line.0,
            dcache_lines: dcfg.size.0 / dcfg.line.0,
            preset: preset.clone(),
            system,
            procs: Vec::new(),
            running: None,
            regions: Vec::new(),
            // Frames from 16 MB up: the kernel's image and the flush area
            // are mapped one to one below.
            next_frame: 0x100_0000 >> 12,
            cpd: FxHashMap::default(),
            domain_owner: vec![None; preset.domains.count as usize],
            domain_used: vec![false; preset.domains.count as usize],
            slot_used: vec![false; PID_SLOTS as usize],
            slot_owner: vec![None; PID_SLOTS as usize],
            asid_owner: FxHashMap::default(),
            next_asid: 1,
            clock: 0,
            counts: SwitchCounts::default(),
            cpi: param_u(&preset.cost.cpi).max(1),
            small: PageSize::new(4096).map_err(|e| e.to_string())?,
            section: PageSize::new(1 << SECTION_SHIFT).map_err(|e| e.to_string())?,
            virtual_caches,
            demand_paging: false,
            costs: [
                param_u(&preset.cost.hit),
                param_u(&preset.cost.line_fill),
                param_u(&preset.cost.line_writeback),
                param_u(&preset.cost.pte_load),
                param_u(&preset.cost.trap),
                param_u(&preset.cost.store_through),
            ],
        };
        k.system.cpu_mut(CPU).set_tlb(tlb(&preset.dtlb)).map_err(|e| format!("dtlb: {e}"))?;
        Ok(k)
    }

    /// Whether a private page's first touch faults: the trap, the kernel's
    /// entry and fault paths, and the zero-fill of a new frame
    /// (`clear_user_page`), as Linux does for an anonymous page. Real
    /// traces run with it on (`lmbench::run`); the hand-worked tests off.
    pub fn set_demand_paging(&mut self, on: bool) {
        self.demand_paging = on;
    }

    pub fn scheme(&self) -> Scheme {
        self.scheme
    }

    pub fn preset(&self) -> &SwitchPreset {
        &self.preset
    }

    pub fn system(&self) -> &System {
        &self.system
    }

    pub fn itlb(&self) -> &Tlb {
        &self.itlb
    }

    pub fn dtlb(&self) -> Option<&Tlb> {
        self.system.cpu(CPU).tlb()
    }

    pub fn counts(&self) -> SwitchCounts {
        self.counts
    }

    /// Every violation the oracles found, D-cache first, then the I-cache's
    /// and the mini-cache's.
    pub fn violations(&self) -> Vec<Violation> {
        let mini = self.minicache.iter().flat_map(|m| m.oracle.violations());
        self.dcache.violations().iter().chain(self.icache.violations()).chain(mini).cloned().collect()
    }

    /// The mini-cache's statistics, on a machine that has one.
    pub fn minicache_stats(&self) -> Option<CacheStats> {
        self.minicache.as_ref().map(|m| *m.cache.stats())
    }

    /// Process `p`'s private page at `va` is mapped with the page-table
    /// attribute that selects the mini-cache: its data references go there
    /// (fetches still go through the I-cache).
    pub fn map_minicache(&mut self, p: usize, va: VirtAddr) -> Result<(), String> {
        if self.minicache.is_none() {
            return Err(format!("{}: this machine has no mini-cache", self.preset.name));
        }
        let proc_ = self.procs.get_mut(p).filter(|x| x.live).ok_or_else(|| format!("no live process {p}"))?;
        proc_.minicache_pages.insert(va.0 >> 12);
        Ok(())
    }

    /// Cycles charged so far, over every mechanism.
    pub fn cycles(&self) -> u64 {
        self.system.cpu(CPU).ledger().total().cycles
    }

    /// Cycles charged to one mechanism of the ledger.
    pub fn cycles_of(&self, m: Mechanism) -> u64 {
        self.system.cpu(CPU).ledger().tally(m).cycles
    }

    pub fn running(&self) -> Option<usize> {
        self.running
    }

    /// The domain the process holds now (fast switching), if any.
    pub fn domain_of(&self, p: usize) -> Option<Domain> {
        self.procs.get(p).and_then(|x| x.domain)
    }

    /// The CPD's owner of the section holding modified address `mva`.
    pub fn cpd_owner(&self, mva: VirtAddr) -> Option<Domain> {
        self.cpd.get(&(mva.0 >> SECTION_SHIFT)).copied()
    }

    /// The modified virtual address process `p`'s `va` has in the caches
    /// and TLB under this mechanism.
    pub fn mva(&self, p: usize, va: VirtAddr) -> VirtAddr {
        let Some(proc_) = self.procs.get(p) else { return va };
        if let Some(r) = self.region_of(proc_, va) {
            let sr = &self.regions[r];
            if !sr.region.writable && !self.scheme.shares_read_only_regions() {
                let private = VirtAddr(PRIVATE_LINK_BASE + (va.0 - sr.region.base.0));
                return self.pid_of(proc_).relocate(private);
            }
            return va;
        }
        self.pid_of(proc_).relocate(va)
    }

    fn pid_of(&self, p: &Process) -> Pid {
        match (self.scheme.reserved_domains(&self.preset), p.slot) {
            (Some(_), Some(s)) => Pid::new(s).unwrap_or_default(),
            _ => Pid::default(),
        }
    }

    fn region_of(&self, p: &Process, va: VirtAddr) -> Option<usize> {
        p.regions.iter().copied().find(|&r| {
            let reg = &self.regions[r].region;
            va.0 >= reg.base.0 && va.0 < reg.base.0 + (reg.pages << 12)
        })
    }

    /// A new process (not yet running); returns its number.
    pub fn spawn(&mut self) -> usize {
        self.procs.push(Process { live: true, ..Process::default() });
        self.procs.len() - 1
    }

    /// A region shared by `sharers`, at the same address in each.
    pub fn share(&mut self, region: Region, sharers: &[usize]) -> Result<usize, String> {
        if region.base.0 < PID_SLOT_BYTES {
            return Err("a shared region lies above the relocated 32 MB (seed 001: mmap()-ed in the upper 2 GB)".into());
        }
        let frames = (0..region.pages).map(|_| self.frame()).collect();
        self.regions.push(SharedRegion { region, frames, domain: None });
        let r = self.regions.len() - 1;
        for &p in sharers {
            self.procs.get_mut(p).ok_or_else(|| format!("no process {p}"))?.regions.push(r);
        }
        Ok(r)
    }

    fn frame(&mut self) -> u64 {
        self.next_frame += 1;
        self.next_frame - 1
    }

    fn on(&mut self) -> OnCpu<'_> {
        self.system.on(CPU)
    }

    fn enter(&mut self, m: Mechanism) -> Mechanism {
        self.on().ledger().enter(m)
    }

    fn leave(&mut self, prev: Mechanism) {
        self.on().ledger().leave(prev);
    }

    fn charge(&mut self, cycles: u64) {
        self.on().ledger().charge(cycles);
    }

    /// Runs `instructions` of kernel code at `offset` into kernel text,
    /// fetched through the I-cache (flushed code is fetched again).
    pub fn kernel_code(&mut self, offset: u64, instructions: u64) {
        let code = Code {
            start: VirtAddr(KERNEL_BASE + offset),
            phys: PhysAddr(offset),
            space: OS_KERNEL_SPACE,
            instructions,
            instruction_bytes: 4,
        };
        // Kernel text is mapped by 1 MB sections: one I-TLB entry covers it.
        self.kernel_translate(Side::Instruction, code.start);
        let before = self.fills();
        self.on().run_code(code, CodeFetch::ThroughCache);
        let fills = self.fills() - before;
        let c = instructions * self.cpi + fills * self.costs[FILL];
        self.charge(c);
    }

    fn fills(&mut self) -> u64 {
        let t = self.system.cpu(CPU).ledger().total();
        (0..3).map(|k| t.served[k][vmlab_machine::MAX_LEVELS]).sum()
    }

    fn kernel_translate(&mut self, side: Side, va: VirtAddr) {
        let page = self.section;
        let tlb = match side {
            Side::Instruction => &mut self.itlb,
            Side::Data => match self.system.cpu_mut(CPU).tlb_mut() {
                Some(t) => t,
                None => return,
            },
        };
        if tlb.lookup(OS_KERNEL_SPACE, va).is_some() {
            return;
        }
        let e =
            TlbEntry::new(OS_KERNEL_SPACE, va, PhysAddr(va.0 - KERNEL_BASE), page).global().in_domain(KERNEL_DOMAIN);
        // The kernel's TLBs hold 1 MB sections (presets list the size).
        let _ = tlb.insert(e, Slot::Normal);
        self.counts.tlb_misses += 1;
        let c = 2 * self.costs[PTE];
        self.charge(c);
    }

    /// `n` instructions of the running process besides its references.
    pub fn user_instructions(&mut self, n: u64) {
        let c = n * self.cpi;
        self.charge(c);
    }

    /// A kernel data reference at kernel address `va` (global, unrelocated).
    pub fn kernel_data(&mut self, kind: RefKind, va: VirtAddr, size: u64) {
        self.kernel_translate(Side::Data, va);
        let pa = PhysAddr(va.0 - KERNEL_BASE);
        let via = if va.0 >> SECTION_SHIFT == FLUSH_AREA_MINICACHE >> SECTION_SHIFT {
            DataCache::Mini
        } else {
            DataCache::Main
        };
        self.cached(Request::new(kind, va, pa, OS_KERNEL_SPACE, size), pa, via, "kernel");
    }

    /// A user reference of the running process to `va`.
    pub fn user(&mut self, kind: RefKind, va: VirtAddr, size: u64) -> Result<(), String> {
        let p = self.running.ok_or("no process is running")?;
        if self.demand_paging
            && self.region_of(&self.procs[p], va).is_none()
            && !self.procs[p].pages.contains_key(&(va.0 >> 12))
        {
            self.page_fault(p, va);
        }
        let (pa, space, domain) = self.page_of(p, va);
        let mva = self.mva(p, va);
        let side = if kind == RefKind::Ifetch { Side::Instruction } else { Side::Data };
        let got = self.translate(side, p, mva, pa, space, domain);
        let via = if kind != RefKind::Ifetch && self.procs[p].minicache_pages.contains(&(va.0 >> 12)) {
            DataCache::Mini
        } else {
            DataCache::Main
        };
        self.cached(Request::new(kind, mva, got, space, size), pa, via, "user");
        Ok(())
    }

    /// Process `p`'s first touch of private page `va`: a new frame, cleared.
    fn page_fault(&mut self, p: usize, va: VirtAddr) {
        let prev = self.enter(Mechanism::FaultEntry);
        let t = self.costs[TRAP];
        self.charge(t);
        let entry = param_u(&self.preset.path.syscall);
        self.kernel_code(0, entry);
        let path = param_u(&self.preset.path.fault);
        self.kernel_code(0x2_c000, path);
        self.leave(prev);
        let f = self.frame();
        self.procs[p].pages.insert(va.0 >> 12, f);
        self.zero_frame(f);
    }

    /// The frame, cache tag space and domain of process `p`'s page at `va`
    /// (a private page is allocated on first touch).
    fn page_of(&mut self, p: usize, va: VirtAddr) -> (PhysAddr, Asid, Domain) {
        let off = va.0 & 0xfff;
        if let Some(r) = self.region_of(&self.procs[p], va) {
            let sr = &self.regions[r];
            let frame = sr.frames[((va.0 - sr.region.base.0) >> 12) as usize];
            let shared = sr.region.writable || self.scheme.shares_read_only_regions();
            let space = if shared { SHARED_SPACE } else { self.procs[p].asid.unwrap_or(Asid(0)) };
            let domain = if shared { sr.domain } else { self.procs[p].domain };
            return (PhysAddr((frame << 12) | off), self.tag_space(space), domain.unwrap_or(KERNEL_DOMAIN));
        }
        let vpn = va.0 >> 12;
        let frame = match self.procs[p].pages.get(&vpn) {
            Some(&f) => f,
            None => {
                let f = self.frame();
                self.procs[p].pages.insert(vpn, f);
                f
            }
        };
        let space = self.procs[p].asid.unwrap_or(Asid(0));
        (PhysAddr((frame << 12) | off), self.tag_space(space), self.procs[p].domain.unwrap_or(KERNEL_DOMAIN))
    }

    fn tag_space(&self, a: Asid) -> Asid {
        if self.scheme.tagged() {
            a
        } else {
            Asid(0)
        }
    }

    fn dacr(&self) -> DomainAccess {
        let Some(reserved) = self.scheme.reserved_domains(&self.preset) else {
            return DomainAccess::all_clients();
        };
        let mut d = DomainAccess::none();
        for k in 0..reserved {
            d = d.with(Domain(k), DomainUse::Client);
        }
        if let Some(p) = self.running.map(|p| &self.procs[p]) {
            if let Some(own) = p.domain {
                d = d.with(own, DomainUse::Client);
            }
            for &r in &p.regions {
                if let Some(rd) = self.regions[r].domain {
                    d = d.with(rd, DomainUse::Client);
                }
            }
        }
        d
    }

    /// The frame the TLB gives for `mva`, refilling (and, under fast
    /// switching, settling a collision) on a miss or domain fault.
    fn translate(
        &mut self,
        side: Side,
        p: usize,
        mva: VirtAddr,
        pa: PhysAddr,
        space: Asid,
        domain: Domain,
    ) -> PhysAddr {
        let dacr = self.dacr();
        let key = if self.scheme.tagged() { space } else { Asid(0) };
        let found = match side {
            Side::Instruction => self.itlb.lookup_checked(key, mva, dacr),
            Side::Data => match self.system.cpu_mut(CPU).tlb_mut() {
                Some(t) => t.lookup_checked(key, mva, dacr),
                None => return pa,
            },
        };
        match found {
            Checked::Hit(e) => return e.translate(mva),
            Checked::DomainFault(_) => {
                self.counts.domain_faults += 1;
                let t = self.costs[TRAP];
                self.charge(t);
            }
            Checked::Miss => {}
        }
        self.counts.tlb_misses += 1;
        let prev = self.enter(Mechanism::TlbMiss);
        if self.scheme.reserved_domains(&self.preset).is_some() {
            self.settle_section(mva, domain);
        }
        let c = 2 * self.costs[PTE];
        self.charge(c);
        let mut e = TlbEntry::new(key, mva, pa, self.small).in_domain(domain);
        if space == SHARED_SPACE && self.scheme.tagged() && self.region_of(&self.procs[p], VirtAddr(mva.0)).is_some() {
            e = e.global();
        }
        let tlb = match side {
            Side::Instruction => Some(&mut self.itlb),
            Side::Data => self.system.cpu_mut(CPU).tlb_mut(),
        };
        if let Some(t) = tlb {
            let _ = t.insert(e, Slot::Normal);
        }
        self.leave(prev);
        pa
    }

    /// The CPD entry of `mva`'s section for `domain`: filled if empty; a
    /// collision (another domain holds it) flushes first.
    fn settle_section(&mut self, mva: VirtAddr, domain: Domain) {
        let section = mva.0 >> SECTION_SHIFT;
        match self.cpd.get(&section) {
            Some(&d) if d == domain => {}
            Some(_) => {
                self.counts.collisions += 1;
                let t = self.costs[TRAP];
                self.charge(t);
                self.switch_spaces(Switch::Everything);
                self.cpd.insert(section, domain);
            }
            None => {
                self.counts.cpd_fills += 1;
                self.cpd.insert(section, domain);
            }
        }
        if let Some(u) = self.domain_used.get_mut(domain.0 as usize) {
            *u = true;
        }
    }

    /// One reference through the top-level cache, watched by the oracle:
    /// `r.paddr` is the frame the TLB gave, `meant` the one the page table
    /// maps.
    fn cached(&mut self, r: Request, meant: PhysAddr, via: DataCache, origin: &str) {
        let Request { kind, vaddr: va, paddr: got, space, size } = r;
        let access =
            Access { asid: space, vaddr: va, paddr: meant, write: kind == RefKind::Write, origin: origin.into() };
        if via == DataCache::Mini {
            self.minicached(kind, va, got, size, &access);
            return;
        }
        let oracle_side = if kind == RefKind::Ifetch { Side::Instruction } else { Side::Data };
        if got != meant {
            self.oracle(oracle_side).stale_translation(&access);
        }
        let mut off = 0;
        while off < size {
            let v = va.0 + off;
            let chunk = (self.line - (v & (self.line - 1))).min(size - off);
            let served = self.on().request(Request::new(kind, VirtAddr(v), PhysAddr(got.0 + off), space, chunk));
            // A store that misses a read-allocate cache goes to memory
            // through the write buffer.
            let c = match served.level {
                Reached::Memory if served.last.fetch => self.costs[FILL],
                Reached::Memory => self.costs[STORE],
                Reached::Level(_) => self.costs[HIT],
            } + if served.last.writeback.is_some() { self.costs[WRITEBACK] } else { 0 };
            self.charge(c);
            let r = LineRef { vaddr: VirtAddr(v), paddr: PhysAddr(got.0 + off), asid: space };
            let a = Access { vaddr: r.vaddr, paddr: r.paddr, ..access.clone() };
            self.watch(oracle_side, &r, chunk, &served.last, &a);
            off += chunk;
        }
    }

    /// `cached` for a page the mini-cache holds (`access` names the space
    /// and the frame the page table maps): the same split into lines, costs
    /// and oracle, on the mini-cache (a cache of its own beside the CPU's
    /// levels; the SA-1100 sends its misses to memory as the D-cache's).
    fn minicached(&mut self, kind: RefKind, va: VirtAddr, got: PhysAddr, size: u64, access: &Access) {
        let costs = self.costs;
        let Some(m) = self.minicache.as_mut() else { return };
        if got != access.paddr {
            m.oracle.stale_translation(access);
        }
        let mut cycles = 0;
        let mut off = 0;
        while off < size {
            let v = va.0 + off;
            let chunk = (m.line - (v & (m.line - 1))).min(size - off);
            let r = LineRef { vaddr: VirtAddr(v), paddr: PhysAddr(got.0 + off), asid: access.asid };
            let out = m.cache.access(r, kind, chunk);
            cycles += match (out.hit, out.fetch) {
                (true, _) => costs[HIT],
                (false, true) => costs[FILL],
                (false, false) => costs[STORE],
            } + if out.writeback.is_some() { costs[WRITEBACK] } else { 0 };
            let a = Access { vaddr: r.vaddr, paddr: r.paddr, ..access.clone() };
            if let Some(e) = out.writeback {
                m.oracle.write_back(&e, &a);
            }
            m.oracle.cached(&r, chunk, &out, &a);
            off += chunk;
        }
        self.charge(cycles);
    }

    fn oracle(&mut self, side: Side) -> &mut Oracle {
        match side {
            Side::Instruction => &mut self.icache,
            Side::Data => &mut self.dcache,
        }
    }

    fn watch(&mut self, side: Side, r: &LineRef, size: u64, out: &Outcome, a: &Access) {
        let o = self.oracle(side);
        if let Some(e) = out.writeback {
            o.write_back(&e, a);
        }
        o.cached(r, size, out, a);
    }

    /// Cleans the D-cache as Linux does on the SA-1100 (no clean-all
    /// instruction: it reads a flush area as large as the cache, so every
    /// line is replaced and a dirty one written back), then invalidates
    /// both caches.
    /// Physically indexed caches need no flush (their lines are named by
    /// frame), so on such a machine this does nothing.
    pub fn flush_caches(&mut self) {
        if self.skip == Skip::CacheFlush || !self.virtual_caches {
            return;
        }
        let prev = self.enter(Mechanism::FlushLoop);
        self.counts.cache_flushes += 1;
        let path = param_u(&self.preset.path.flush_area);
        self.kernel_code(0x8000, path);
        let dirty_before = self.resident(1).iter().filter(|e| e.dirty).count() as u64;
        for i in 0..self.dcache_lines {
            let va = VirtAddr(FLUSH_AREA + i * self.line);
            self.kernel_data(RefKind::Read, va, 4);
        }
        self.counts.lines_written_back += dirty_before;
        // Then as many lines of the mini-cache's own flush area as it holds
        // (Linux: "only 512 bytes").
        if let Some((line, lines, dirty)) = self
            .minicache
            .as_ref()
            .map(|m| (m.line, m.lines, m.cache.resident().iter().filter(|e| e.dirty).count() as u64))
        {
            for i in 0..lines {
                self.kernel_data(RefKind::Read, VirtAddr(FLUSH_AREA_MINICACHE + i * line), 4);
            }
            self.counts.lines_written_back += dirty;
        }
        let access = Access {
            asid: OS_KERNEL_SPACE,
            vaddr: VirtAddr(0),
            paddr: PhysAddr(0),
            write: false,
            origin: "cache flush".into(),
        };
        for (c, side) in [(0, Side::Instruction), (1, Side::Data)] {
            let resident = self.resident(c);
            self.counts.lines_invalidated += resident.len() as u64;
            for e in resident {
                let r = e.line_ref();
                if e.dirty {
                    self.oracle(side).write_back(&e, &access);
                } else {
                    self.oracle(side).dropped(&r);
                }
            }
        }
        // One mcr invalidates the mini-cache with the D-cache (the site's
        // flush below).
        if let Some(m) = self.minicache.as_mut() {
            let resident = m.cache.resident();
            self.counts.lines_invalidated += resident.len() as u64;
            for e in resident {
                if e.dirty {
                    m.oracle.write_back(&e, &access);
                } else {
                    m.oracle.dropped(&e.line_ref());
                }
            }
        }
        let Ok(flushed) = Switch::Everything.caches(self);
        let c = flushed.unwrap_or_default().dirty * self.costs[WRITEBACK] + 1;
        self.charge(c);
        self.leave(prev);
        for u in &mut self.domain_used {
            *u = false;
        }
        for u in &mut self.slot_used {
            *u = false;
        }
    }

    fn resident(&self, c: usize) -> Vec<vmlab_cache::Evicted> {
        self.system.cpu(CPU).levels().level_cache(0, c).map(|x| x.resident()).unwrap_or_default()
    }

    /// Flushes both TLBs (one cycle: seed 001, "ARM TLB", direct cost).
    pub fn flush_tlbs(&mut self) {
        self.purge_tlbs(Switch::Everything);
    }

    /// Purges from both TLBs what `rule` drops, as one TLB flush.
    fn purge_tlbs(&mut self, rule: Switch) {
        if self.skip == Skip::TlbFlush {
            return;
        }
        let prev = self.enter(Mechanism::TlbPurge);
        self.counts.tlb_flushes += 1;
        let n = rule.tlbs(self);
        self.counts.tlb_entries_flushed += n;
        self.charge(1);
        self.leave(prev);
    }

    /// Applies context-switch rule `rule` to the caches and TLBs: the
    /// caches, if it drops their lines, by this kernel's flush
    /// (`flush_caches`), then the TLBs, if it drops any entry.
    fn switch_spaces(&mut self, rule: Switch) {
        // The mini-cache too (the site's caches).
        if rule.flushes(SwitchSite::cache_configs(self)) {
            self.flush_caches();
        }
        let mut tlbs = std::iter::once(&self.itlb).chain(self.system.cpu(CPU).tlb());
        if tlbs.any(|t| !rule.keeps_entries(t.config())) {
            self.purge_tlbs(rule);
        }
    }

    /// Switches the CPU to process `to`: the scheduler's own path, then the
    /// mechanism's work.
    pub fn switch_to(&mut self, to: usize) -> Result<(), String> {
        if !self.procs.get(to).is_some_and(|p| p.live) {
            return Err(format!("no live process {to}"));
        }
        self.counts.switches += 1;
        self.clock += 1;
        let prev = self.enter(Mechanism::ContextSwitch);
        let path = param_u(&self.preset.path.switch_to);
        self.kernel_code(0x4000, path);
        // The task structs of both processes.
        self.kernel_data(RefKind::Read, VirtAddr(TASKS + (to as u64 % 64) * 0x2000), 32);
        if self.running.is_some_and(|r| r != to) {
            self.switch_spaces(self.scheme.on_switch());
        }
        match self.scheme {
            Scheme::Flush => {}
            Scheme::Asid => self.assign_asid(to),
            Scheme::FassLinux | Scheme::FassL4 | Scheme::FassLinuxUnshared => self.assign_fass(to),
        }
        self.procs[to].last_ran = self.clock;
        self.running = Some(to);
        self.leave(prev);
        Ok(())
    }

    fn assign_asid(&mut self, to: usize) {
        if self.procs[to].asid.is_some() {
            return;
        }
        let limit = 1u32 << param_u(&self.preset.asid_bits).min(16);
        let a = self.next_asid;
        self.next_asid = if a + 1 >= limit { 1 } else { a + 1 };
        if let Some(old) = self.asid_owner.insert(a, to) {
            // Seed 001: ASID recycling still requires a cache flush.
            self.procs[old].asid = None;
            self.counts.asid_recycles += 1;
            self.switch_spaces(Switch::Everything);
        }
        self.procs[to].asid = Some(Asid(a));
    }

    fn assign_fass(&mut self, to: usize) {
        if self.procs[to].slot.is_none() {
            self.assign_slot(to);
        }
        if self.procs[to].domain.is_none() {
            let d = self.take_domain(Owner::Process(to));
            self.procs[to].domain = Some(d);
        }
        let regions = self.procs[to].regions.clone();
        for r in regions {
            let shared = self.regions[r].region.writable || self.scheme.shares_read_only_regions();
            if shared && self.regions[r].domain.is_none() {
                let d = self.take_domain(Owner::Region(r));
                self.regions[r].domain = Some(d);
            }
        }
    }

    fn assign_slot(&mut self, to: usize) {
        // Slot 0 is unrelocated; slots 1..64 go to processes in turn.
        let free = (1..PID_SLOTS as usize).find(|&s| self.slot_owner[s].is_none());
        let s = match free {
            Some(s) => s,
            None => {
                let s = 1 + (to % (PID_SLOTS as usize - 1));
                if let Some(old) = self.slot_owner[s] {
                    self.procs[old].slot = None;
                }
                s
            }
        };
        if self.slot_used[s] {
            // A slot another process used since the last flush: its lines
            // and entries sit at the same modified addresses.
            self.switch_spaces(Switch::Everything);
        }
        self.slot_owner[s] = Some(to);
        self.slot_used[s] = true;
        self.procs[to].slot = Some(s as u32);
    }

    /// A free domain, or one recycled from the owner that ran least
    /// recently (never the running process's own, nor a region it maps).
    fn take_domain(&mut self, for_: Owner) -> Domain {
        let reserved = self.scheme.reserved_domains(&self.preset).unwrap_or(0) as usize;
        let count = self.domain_owner.len();
        if let Some(d) = (reserved..count).find(|&d| self.domain_owner[d].is_none()) {
            self.domain_owner[d] = Some(for_);
            if self.domain_used[d] {
                self.recycle_flush(d);
            }
            return Domain(d as u32);
        }
        let running = self.running;
        let age = |o: &Owner, k: &Self| match *o {
            Owner::Process(p) => k.procs[p].last_ran,
            Owner::Region(r) => {
                k.procs.iter().filter(|p| p.regions.contains(&r)).map(|p| p.last_ran).max().unwrap_or(0)
            }
        };
        let victim = (reserved..count)
            .filter(|&d| match self.domain_owner[d] {
                Some(Owner::Process(p)) => Some(p) != running && Owner::Process(p) != for_,
                Some(Owner::Region(r)) => !running.is_some_and(|p| self.procs[p].regions.contains(&r)),
                None => false,
            })
            .min_by_key(|&d| self.domain_owner[d].map(|o| age(&o, self)).unwrap_or(0))
            .unwrap_or(reserved);
        self.counts.domain_recycles += 1;
        match self.domain_owner[victim] {
            Some(Owner::Process(p)) => self.procs[p].domain = None,
            Some(Owner::Region(r)) => self.regions[r].domain = None,
            None => {}
        }
        self.cpd.retain(|_, d| d.0 as usize != victim);
        if self.domain_used[victim] {
            self.recycle_flush(victim);
        }
        self.domain_owner[victim] = Some(for_);
        Domain(victim as u32)
    }

    fn recycle_flush(&mut self, d: usize) {
        self.cpd.retain(|_, x| x.0 as usize != d);
        self.switch_spaces(Switch::Everything);
    }

    /// Process `p` exits: its address space is torn down (Linux's
    /// `flush_cache_mm` before the frames go back), its domain and slot
    /// freed.
    pub fn exit(&mut self, p: usize) -> Result<(), String> {
        if !self.procs.get(p).is_some_and(|x| x.live) {
            return Err(format!("no live process {p}"));
        }
        let path = param_u(&self.preset.path.exit);
        self.kernel_code(0x1_0000, path);
        let resident = self.procs[p].domain.is_some_and(|d| self.domain_used[d.0 as usize])
            || self.procs[p].slot.is_some_and(|s| self.slot_used[s as usize])
            || matches!(self.scheme, Scheme::Flush | Scheme::Asid);
        if resident {
            self.switch_spaces(Switch::Everything);
        }
        let proc_ = &mut self.procs[p];
        proc_.live = false;
        if let Some(d) = proc_.domain.take() {
            self.domain_owner[d.0 as usize] = None;
            self.cpd.retain(|_, x| *x != d);
        }
        if let Some(s) = proc_.slot.take() {
            self.slot_owner[s as usize] = None;
        }
        if let Some(a) = proc_.asid.take() {
            self.asid_owner.remove(&a.0);
        }
        if self.running == Some(p) {
            self.running = None;
        }
        Ok(())
    }

    /// Process `child` becomes a copy of `parent`'s private pages (the
    /// pages are copied eagerly by the kernel: Linux 2.4 on ARM copies page
    /// tables, and the child's first writes copy the pages; modelled as a
    /// copy of every page the parent touched, one line at a time) and of
    /// its shared regions.
    pub fn fork(&mut self, parent: usize) -> Result<usize, String> {
        if !self.procs.get(parent).is_some_and(|x| x.live) {
            return Err(format!("no live process {parent}"));
        }
        let path = param_u(&self.preset.path.fork);
        self.kernel_code(0xc000, path);
        let child = self.spawn();
        // ARM Linux's fork allocates the child's 16 KB first-level table:
        // the user entries cleared, the kernel's copied (pgd_alloc).
        let pgd = PAGE_TABLES + 0x10_0000 + (child as u64 % 16) * 0x4000;
        let mut off = 0;
        while off < 0x4000 {
            self.kernel_data(RefKind::Write, VirtAddr(pgd + off), self.line);
            off += self.line;
        }
        self.procs[child].regions = self.procs[parent].regions.clone();
        let mut vpns: Vec<u64> = self.procs[parent].pages.keys().copied().collect();
        vpns.sort_unstable();
        for vpn in vpns {
            // One PTE copied per page (a store into the child's table).
            self.kernel_data(
                RefKind::Write,
                VirtAddr(PAGE_TABLES + (child as u64 % 64) * 0x1000 + (vpn & 0x3ff) * 4),
                4,
            );
            let f = self.frame();
            self.procs[child].pages.insert(vpn, f);
        }
        Ok(child)
    }

    /// Process `p` executes a new image of `pages` pages: its old private
    /// pages are torn down as at exit (Linux's `flush_cache_mm`), the new
    /// ones zero-filled by the kernel through its own mapping of each frame
    /// and cleaned from the D-cache there (ARM Linux's `clear_user_page`:
    /// the kernel's copy is a synonym of the user's in a VIVT cache).
    pub fn exec(&mut self, p: usize, pages: u64) -> Result<(), String> {
        if !self.procs.get(p).is_some_and(|x| x.live) {
            return Err(format!("no live process {p}"));
        }
        let path = param_u(&self.preset.path.exec);
        self.kernel_code(0x1_4000, path);
        self.switch_spaces(Switch::Everything);
        if let Some(d) = self.procs[p].domain {
            self.cpd.retain(|_, x| *x != d);
        }
        self.procs[p].pages.clear();
        for i in 0..pages {
            let f = self.frame();
            // Text from 0x8000, as ARM Linux links programs.
            self.procs[p].pages.insert(8 + i, f);
            self.zero_frame(f);
        }
        Ok(())
    }

    /// The kernel clears frame `f` through its direct mapping, a line at a
    /// time, then cleans those lines so the user's mapping sees zeros.
    fn zero_frame(&mut self, f: u64) {
        let prev = self.enter(Mechanism::ZeroLoop);
        let base = KERNEL_BASE + (f << 12);
        let mut off = 0;
        while off < 4096 {
            self.kernel_data(RefKind::Write, VirtAddr(base + off), self.line);
            off += self.line;
        }
        let access = Access {
            asid: OS_KERNEL_SPACE,
            vaddr: VirtAddr(base),
            paddr: PhysAddr(f << 12),
            write: false,
            origin: "clear_user_page".into(),
        };
        let mut off = 0;
        while off < 4096 {
            let (va, pa) = (VirtAddr(base + off), PhysAddr((f << 12) + off));
            let state = self.on().flush_line(va, pa, OS_KERNEL_SPACE, Flush::WriteBack);
            let r = LineRef { vaddr: va, paddr: pa, asid: OS_KERNEL_SPACE };
            let c = match state {
                LineState::Dirty(e) => {
                    self.dcache.write_back(&e, &access);
                    self.costs[WRITEBACK] + 1
                }
                LineState::Clean => {
                    self.dcache.dropped(&r);
                    1
                }
                LineState::Empty => 1,
            };
            self.charge(c);
            off += self.line;
        }
        self.leave(prev);
    }

    /// A user-mode trap into the kernel and back (`path` instructions of
    /// the kernel's code at `offset`).
    pub fn syscall(&mut self, offset: u64, path: u64) {
        let prev = self.enter(Mechanism::FaultEntry);
        let t = self.costs[TRAP];
        self.charge(t);
        let entry = param_u(&self.preset.path.syscall);
        self.kernel_code(0, entry);
        self.leave(prev);
        let prev = self.enter(Mechanism::IpcPath);
        self.kernel_code(offset, path);
        self.leave(prev);
    }

    /// Copies `bytes` between the running process's `user` buffer and the
    /// kernel buffer at `kernel`, in `direction`, a word at a time.
    pub fn copy(
        &mut self,
        user: VirtAddr,
        kernel: VirtAddr,
        bytes: u64,
        direction: CopyDirection,
    ) -> Result<(), String> {
        let prev = self.enter(Mechanism::CopyLoop);
        let mut off = 0;
        while off < bytes {
            let n = 4.min(bytes - off);
            if direction == CopyDirection::UserToKernel {
                self.user(RefKind::Read, VirtAddr(user.0 + off), n)?;
                self.kernel_data(RefKind::Write, VirtAddr(kernel.0 + off), n);
            } else {
                self.kernel_data(RefKind::Read, VirtAddr(kernel.0 + off), n);
                self.user(RefKind::Write, VirtAddr(user.0 + off), n)?;
            }
            off += n;
        }
        let c = (bytes / 4) * 2 * self.cpi;
        self.charge(c);
        self.leave(prev);
        Ok(())
    }
}

/// The CPU's private levels and both TLBs (the D-TLB is the `Cpu`'s, the
/// I-TLB the kernel's), as a context switch acts on them.
impl SwitchSite for Kernel {
    type Error = Infallible;

    fn cache_configs(&self) -> Vec<&CacheConfig> {
        let mut configs = self.system.cpu(CPU).cache_configs();
        configs.extend(self.minicache.as_ref().map(|m| &m.cfg));
        configs
    }

    fn each_tlb(&mut self, f: &mut dyn FnMut(&mut Tlb)) {
        f(&mut self.itlb);
        if let Some(t) = self.system.cpu_mut(CPU).tlb_mut() {
            f(t);
        }
    }

    fn flush_caches(&mut self) -> Result<FlushStats, Infallible> {
        let mut flushed = self.on().flush_private(Flush::WriteBack);
        if let Some(m) = self.minicache.as_mut() {
            flushed += m.cache.flush_all(Flush::WriteBack).0;
        }
        Ok(flushed)
    }
}

/// Lines resident in `cache` (0: I, 1: D) of the kernel's CPU, as
/// (virtual address, dirty), sorted: what a hand-worked test checks.
pub fn lines(k: &Kernel, cache: usize) -> Vec<(VirtAddr, bool)> {
    let mut v: Vec<(VirtAddr, bool)> = k.resident(cache).into_iter().map(|e| (e.vaddr, e.dirty)).collect();
    v.sort_unstable();
    v
}

/// The same for the mini-cache (empty on a machine without one).
pub fn minicache_lines(k: &Kernel) -> Vec<(VirtAddr, bool)> {
    let resident = k.minicache.as_ref().map(|m| m.cache.resident()).unwrap_or_default();
    let mut v: Vec<(VirtAddr, bool)> = resident.into_iter().map(|e| (e.vaddr, e.dirty)).collect();
    v.sort_unstable();
    v
}
