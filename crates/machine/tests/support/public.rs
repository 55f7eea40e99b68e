//! A replayer that drives a one-CPU `System` through the public access path
//! only (`OnCpu::request`, `flush_private`): no repeat line, no hit loop,
//! no fill chain. `Machine` must change exactly what this changes.

use vmlab_addr::{Asid, CpuId, VirtAddr};
use vmlab_cache::{CacheStats, RefKind};
use vmlab_machine::{Flush, MachineConfig, MemoryStats, PageMapper, Request, System};
use vmlab_trace::{AccessKind, Event};

pub struct PublicReplay {
    system: System,
    mapper: PageMapper,
}

impl PublicReplay {
    pub fn new(cfg: &MachineConfig) -> Self {
        let levels = cfg.levels().expect("valid machine");
        let system = System::new(1, &levels, &[], cfg.stats.miss_classes()).expect("valid levels");
        let page = cfg.memory.page_size;
        let frames = cfg.memory.size.0 / page.bytes();
        let mapper = PageMapper::new(page, frames, cfg.memory.allocation, cfg.colours(), cfg.memory.seed);
        Self { system, mapper }
    }

    /// Whether every hit of the top level implies a page already mapped in
    /// the address space that hit (a physical tag, or a virtual one with
    /// ASIDs). A VIVT top without ASID tags can hit another space's line
    /// at an address this space never mapped; `Machine` then maps nothing,
    /// while a caller of the public path translates before every request,
    /// so the frames (and any physically indexed level below) would differ
    /// for a reason that is the caller's, not the hierarchy's.
    pub fn comparable(&self) -> bool {
        let levels = self.system.cpu(CpuId(0)).levels();
        !levels.caches().iter().take(levels.caches_in(0)).any(|(_, c)| c.holds_unmapped_lines())
    }

    pub fn share(&mut self, owner_asid: u32, owner: u64, alias_asid: u32, alias: u64) {
        let page = self.mapper.page_size();
        self.mapper
            .share(Asid(owner_asid), page.vpn(VirtAddr(owner)), Asid(alias_asid), page.vpn(VirtAddr(alias)))
            .expect("frames");
    }

    pub fn event(&mut self, e: &Event) {
        match e {
            Event::Access(a) => {
                let kinds: &[RefKind] = match a.kind {
                    AccessKind::Ifetch => &[RefKind::Ifetch],
                    AccessKind::Load => &[RefKind::Read],
                    AccessKind::Store => &[RefKind::Write],
                    AccessKind::Modify => &[RefKind::Read, RefKind::Write],
                };
                let page = self.mapper.page_size().bytes();
                for &kind in kinds {
                    // A request lies within one page: split at page
                    // boundaries, each piece translated in address order.
                    let mut va = a.addr.0;
                    let end = va + u64::from(a.size.max(1));
                    while va < end {
                        let piece = ((va | (page - 1)) + 1).min(end) - va;
                        let pa = self.mapper.translate(a.asid, VirtAddr(va)).expect("frames");
                        self.system.on(CpuId(0)).request(Request::new(kind, VirtAddr(va), pa, a.asid, piece));
                        va += piece;
                    }
                }
            }
            Event::FlushAll => {
                self.system.on(CpuId(0)).flush_private(Flush::WriteBack);
            }
            Event::ContextSwitch(_) | Event::Syscall(_) | Event::SyscallArg(_) => {}
        }
    }

    pub fn stats(&self) -> Vec<(String, CacheStats)> {
        self.system.cpu(CpuId(0)).levels().caches().into_iter().map(|(n, c)| (n.to_string(), *c.stats())).collect()
    }

    pub fn memory(&self) -> MemoryStats {
        self.system.memory()
    }

    pub fn pages_mapped(&self) -> u64 {
        self.mapper.pages_mapped()
    }
}
