//! The seed 000 experiments on the simulated HP 9000/834, as counters:
//! Table 1 (selective flush), Table 2 (copy), the unmap without flush,
//! the IPC designs of section 4.2 (Table 3) on a virtually addressed cache
//! and on a physically addressed one of the same speed, and the Mach pmap
//! page-initialisation cases of section 4.3. Times are counters times the
//! cost parameters (`cost.rs`); the S2 study fits those on Tables 1-2 and
//! the unmap and predicts the rest.

use std::collections::BTreeMap;

use serde::Serialize;
use vmlab_cache::{Indexing, LineState};
use vmlab_machine::MachineConfig;

use crate::cost::{CostModel, Counters, Routine};
use crate::cpu::{DataRef, Flush, Place, Span};
use crate::hat::Mapping;
use crate::oracle::Consistency;
use crate::policy::Policy;
use crate::primitives::flush_range;
use crate::prot::Prot;
use crate::vm::{self, Attach, ObjectKind, Os};
use vmlab_addr::layout::OS_KERNEL_SPACE;
use vmlab_addr::{Asid, CpuId, Pfn, PhysAddr, VirtAddr};
use vmlab_machine::Mechanism;

/// Which cache the machine has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CacheKind {
    /// The HP 9000/834 as it is: virtually indexed and tagged.
    Vac,
    /// The same machine with a physically indexed and tagged D-cache.
    Pac,
}

/// One measured region.
#[derive(Clone, Debug, Serialize)]
pub struct Measurement {
    /// `table1`, `table2`, `unmap`, `ipc`, `pseudo-fault`, `pmap`.
    pub group: String,
    /// e.g. `dirty`, `worst`, `ipc-move-lazy`, `case2`.
    pub variant: String,
    pub cache: CacheKind,
    /// Message or block size in bytes (0: null).
    pub bytes: u64,
    pub counters: Counters,
    /// The same counters per mechanism (`Mechanism::name`: "flush loop", "copy loop", ...);
    /// they sum to `counters`.
    pub components: BTreeMap<String, Counters>,
    /// Pages of the new page warm in the cache afterwards (pmap cases).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warm_lines: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page_lines: Option<u64>,
}

pub fn machine(kind: CacheKind) -> Result<MachineConfig, String> {
    let mut m = vmlab_machine::preset::load("hp9000-834", &[]).map_err(|e| e.to_string())?;
    if kind == CacheKind::Pac {
        for c in [m.l1i.as_mut(), m.l1d.as_mut()].into_iter().flatten() {
            c.indexing = Indexing::Pipt;
            c.asid_tags = false;
        }
        m.name = "hp9000-834-pac".into();
    }
    Ok(m)
}

fn os(kind: CacheKind, cost: &CostModel, policy: Policy) -> Result<Os, String> {
    let mut os = Os::new(&machine(kind)?, cost.clone(), policy, Consistency::Unchecked)?;
    // Chorus v3.3 flushes even pages it destroys (seed 000 footnote 7).
    os.hat_mut().purge_destroyed = false;
    Ok(os)
}

fn e(x: crate::vm::OsError) -> String {
    x.to_string()
}

/// What one measured region did: its counters, in total and per mechanism.
#[derive(Clone, Debug, Default)]
struct Region {
    counters: Counters,
    components: BTreeMap<String, Counters>,
}

impl std::ops::Add for Region {
    type Output = Region;
    fn add(mut self, o: Region) -> Region {
        self.counters += o.counters;
        for (k, v) in o.components {
            *self.components.entry(k).or_default() += v;
        }
        self
    }
}

fn measure(os: &mut Os, f: impl FnOnce(&mut Os) -> Result<(), String>) -> Result<Region, String> {
    let before = os.counters();
    let parts = os.components();
    f(os)?;
    let mut components = BTreeMap::new();
    for (k, v) in os.components() {
        let d = v - parts.get(&k).copied().unwrap_or_default();
        if d != Counters::default() {
            components.insert(k, d);
        }
    }
    Ok(Region { counters: os.counters() - before, components })
}

impl Measurement {
    fn new(group: &str, variant: &str, cache: CacheKind, bytes: u64, r: Region) -> Self {
        Measurement {
            group: group.into(),
            variant: variant.into(),
            cache,
            bytes,
            counters: r.counters,
            components: r.components,
            warm_lines: None,
            page_lines: None,
        }
    }
}

/// User writes (or reads) one word of every line, or every word.
fn touch(os: &mut Os, asid: Asid, va: u64, bytes: u64, op: DataRef, step: u64) -> Result<(), String> {
    let mut off = 0;
    while off < bytes {
        os.access(asid, VirtAddr(va + off), op, 4, "setup").map_err(e)?;
        off += step;
    }
    Ok(())
}

fn span(os: &mut Os, asid: Asid, va: u64) -> Result<Span, String> {
    let pfn = if asid == OS_KERNEL_SPACE {
        // Kernel buffers have translations but no VM pages.
        os.hat()
            .translation(OS_KERNEL_SPACE, VirtAddr(va), CpuId(0))
            .map(|t| t.0)
            .ok_or_else(|| format!("kernel address {va:#x} is not loaded"))?
    } else {
        os.frame_of(asid, VirtAddr(va)).map_err(e)?
    };
    Ok(os.hat().span(asid, VirtAddr(va), pfn))
}

/// One `pdcache()` call over a virtual block that may cross pages.
fn flush_block(os: &mut Os, asid: Asid, va: u64, bytes: u64, how: Flush) -> Result<(), String> {
    let line = os.cpu().line_bytes();
    let per = os.cost().path_of(Routine::FlushLinesPerIteration).max(1);
    let iter = os.cost().path_of(Routine::FlushLoopIteration);
    let lines = bytes.div_ceil(line);
    let mut spans = Vec::new();
    for i in 0..lines {
        spans.push(span(os, asid, va + i * line)?);
    }
    let cpu = os.cpu();
    let outer = cpu.enter(Mechanism::FlushLoop);
    cpu.count(|c| c.flush_calls += 1);
    cpu.instructions(lines.div_ceil(per) * iter);
    for s in spans {
        cpu.flush_line(s.at, how, "pdcache");
    }
    cpu.leave(outer);
    Ok(())
}

/// One copy-routine call between two virtual blocks (in any spaces).
fn copy_block(os: &mut Os, src: (Asid, u64), dst: (Asid, u64), bytes: u64) -> Result<(), String> {
    let line = os.cpu().line_bytes();
    let per_line = os.cost().path_of(Routine::CopyPerLine);
    let w = crate::oracle::WORD;
    let mut pairs = Vec::new();
    let mut off = 0;
    while off < bytes {
        pairs.push((span(os, src.0, src.1 + off)?, span(os, dst.0, dst.1 + off)?));
        off += w;
    }
    let cpu = os.cpu();
    let outer = cpu.enter(Mechanism::CopyLoop);
    cpu.count(|c| c.copy_calls += 1);
    cpu.instructions(bytes.div_ceil(line) * per_line);
    for (s, d) in pairs {
        cpu.reference(DataRef::Load, s, w, "copy");
        cpu.reference(DataRef::Store, d, w, "copy");
    }
    cpu.leave(outer);
    Ok(())
}

/// A copy between a user actor and the kernel: the recovery set-up of seed
/// 000 footnote 10 (`copy_recovery` instructions), then the copy routine.
fn user_kernel_copy(os: &mut Os, src: (Asid, u64), dst: (Asid, u64), bytes: u64) -> Result<(), String> {
    let n = os.cost().path_of(Routine::CopyRecovery);
    let cpu = os.cpu();
    let outer = cpu.enter(Mechanism::CopyRecovery);
    cpu.instructions(n);
    cpu.leave(outer);
    copy_block(os, src, dst, bytes)
}

const KB: u64 = 1024;
const BUF: u64 = 0x0010_0000;

/// Table 1: flush of a block of `bytes` whose lines are `state`
/// (`empty`, `clean`, `dirty`).
pub fn table1(cost: &CostModel, state: &str, bytes: u64) -> Result<Measurement, String> {
    let mut os = os(CacheKind::Vac, cost, Policy::PseudoAlias)?;
    let obj = os.object("block", ObjectKind::Anonymous, 8).map_err(e)?;
    os.map(
        Asid(1),
        vm::Region { start: VirtAddr(BUF), len: 16 * KB, object: obj, offset: 0, prot: Prot::RW, private: false },
    )
    .map_err(e)?;
    touch(&mut os, Asid(1), BUF, 16 * KB, DataRef::Store, 32)?;
    os.cpu().reset_cache();
    match state {
        "empty" => {}
        "clean" => touch(&mut os, Asid(1), BUF, bytes, DataRef::Load, 32)?,
        "dirty" => touch(&mut os, Asid(1), BUF, bytes, DataRef::Store, 32)?,
        s => return Err(format!("unknown cache state {s:?}")),
    }
    let c = measure(&mut os, |os| flush_block(os, Asid(1), BUF, bytes, Flush::WriteBack))?;
    Ok(Measurement::new("table1", state, CacheKind::Vac, bytes, c))
}

/// Table 2: copy of `bytes` between non-cache-aligned buffers, `best`
/// (both in the cache) or `worst` (both flushed, cache full of dirty lines).
pub fn table2(cost: &CostModel, case: &str, bytes: u64) -> Result<Measurement, String> {
    let mut os = os(CacheKind::Vac, cost, Policy::PseudoAlias)?;
    let src = 0x0020_0000;
    let dst = src + 0x1_0000 + 0x4000 + 0x800; // other sets than the source
    let big = 0x0040_0000;
    let o = os.object("src", ObjectKind::Anonymous, 8).map_err(e)?;
    os.map(
        Asid(1),
        vm::Region { start: VirtAddr(src), len: 16 * KB, object: o, offset: 0, prot: Prot::RW, private: false },
    )
    .map_err(e)?;
    let o = os.object("dst", ObjectKind::Anonymous, 8).map_err(e)?;
    os.map(
        Asid(1),
        vm::Region { start: VirtAddr(dst), len: 16 * KB, object: o, offset: 0, prot: Prot::RW, private: false },
    )
    .map_err(e)?;
    let o = os.object("big", ObjectKind::Anonymous, 128).map_err(e)?;
    os.map(
        Asid(1),
        vm::Region { start: VirtAddr(big), len: 256 * KB, object: o, offset: 0, prot: Prot::RW, private: false },
    )
    .map_err(e)?;
    touch(&mut os, Asid(1), src, 16 * KB, DataRef::Store, 32)?;
    touch(&mut os, Asid(1), dst, 16 * KB, DataRef::Store, 32)?;
    touch(&mut os, Asid(1), big, 256 * KB, DataRef::Store, 2 * KB)?;
    match case {
        "best" => copy_block(&mut os, (Asid(1), src), (Asid(1), dst), bytes)?,
        "worst" => {
            os.cpu().reset_cache();
            touch(&mut os, Asid(1), big, 256 * KB, DataRef::Store, 32)?;
        }
        s => return Err(format!("unknown copy case {s:?}")),
    }
    let c = measure(&mut os, |os| copy_block(os, (Asid(1), src), (Asid(1), dst), bytes))?;
    Ok(Measurement::new("table2", case, CacheKind::Vac, bytes, c))
}

/// The unmap of one 2 KB page without a cache flush (section 4.1).
pub fn unmap(cost: &CostModel) -> Result<Measurement, String> {
    let mut os = os(CacheKind::Vac, cost, Policy::None)?;
    let o = os.object("page", ObjectKind::Anonymous, 8).map_err(e)?;
    os.map(
        Asid(1),
        vm::Region { start: VirtAddr(BUF), len: 16 * KB, object: o, offset: 0, prot: Prot::RW, private: false },
    )
    .map_err(e)?;
    touch(&mut os, Asid(1), BUF, 16 * KB, DataRef::Store, 2 * KB)?;
    let c = measure(&mut os, |os| os.unmap(Asid(1), VirtAddr(BUF + 2 * KB), 2 * KB).map_err(e))?;
    Ok(Measurement::new("unmap", "no-flush", CacheKind::Vac, 2 * KB, c))
}

/// The IPC designs of seed 000 section 4.2.
pub const IPC_VARIANTS: [&str; 5] = ["ipc-copy", "ipc-move", "pure-copy", "ipc-move-eager", "mach-cow"];

const SEND: u64 = 0x0100_0000;
const RECV: u64 = 0x0200_4000; // not cache aligned with SEND
const KIPC: u64 = 0x7000_0000;
const KBUF: u64 = 0x7100_0000;

/// One-way `ipcSend` of `bytes` (0: null) with `variant` on `kind`: the
/// client writes every word of its buffer, sends; the server reads one word
/// per page (seed 000 Table 3 set-up). Three exchanges; the last is measured.
/// Returns the whole exchange and the receiver's read phase (its faults).
///
/// The steps are those of seed 000 section 4.2, each repeated for every page
/// before the next starts (footnote 5). Chorus takes its remapping paths
/// only for page-aligned, page-multiple messages; a message that is not a
/// whole number of pages (the 1 KB column) goes through the kernel message
/// buffer by two copies, whatever the variant.
pub fn ipc(cost: &CostModel, variant: &str, kind: CacheKind, bytes: u64) -> Result<(Measurement, Measurement), String> {
    if !IPC_VARIANTS.contains(&variant) {
        return Err(format!("unknown IPC variant {variant:?}; valid: {}", IPC_VARIANTS.join(", ")));
    }
    let mut os = os(kind, cost, Policy::PseudoAlias)?;
    let page = os.page_bytes();
    let pages = bytes.div_ceil(page);
    let so = os.object("send", ObjectKind::Anonymous, 8).map_err(e)?;
    os.map(
        Asid(1),
        vm::Region { start: VirtAddr(SEND), len: 8 * page, object: so, offset: 0, prot: Prot::RW, private: true },
    )
    .map_err(e)?;
    let ro = os.object("recv", ObjectKind::Anonymous, 8).map_err(e)?;
    os.map(
        Asid(2),
        vm::Region { start: VirtAddr(RECV), len: 8 * page, object: ro, offset: 0, prot: Prot::RW, private: true },
    )
    .map_err(e)?;
    touch(&mut os, Asid(2), RECV, 8 * page, DataRef::Store, 32)?;
    let by_copy = variant == "pure-copy" || !bytes.is_multiple_of(page);
    if by_copy {
        for i in 0..pages {
            let f = os.alloc_frame(VirtAddr(KBUF + i * page)).map_err(e)?;
            os.kernel_map(VirtAddr(KBUF + i * page), f).map_err(e)?;
        }
    }
    let mut last = (Region::default(), Region::default());
    for _round in 0..3 {
        touch(&mut os, Asid(1), SEND, bytes, DataRef::Store, 4)?;
        let total = measure(&mut os, |os| {
            let fixed = os.cost().path_of(Routine::IpcNull) + pages * os.cost().path_of(Routine::IpcPerPage);
            let cpu = os.cpu();
            let outer = cpu.enter(Mechanism::IpcPath);
            // ipcSend and ipcReceive: two system calls.
            cpu.count(|c| c.traps += 2);
            cpu.instructions(fixed);
            cpu.leave(outer);
            let at = |base: u64, i: u64| base + i * page;
            if by_copy {
                if bytes > 0 {
                    user_kernel_copy(os, (Asid(1), SEND), (OS_KERNEL_SPACE, KBUF), bytes)?;
                    user_kernel_copy(os, (OS_KERNEL_SPACE, KBUF), (Asid(2), RECV), bytes)?;
                }
                return Ok(());
            }
            match variant {
                "ipc-copy" => {
                    // Steps 2-3: a new physical page per message page, mapped
                    // in the kernel; step 4: the copy into it.
                    for i in 0..pages {
                        let f = os.alloc_frame(VirtAddr(at(KIPC, i))).map_err(e)?;
                        os.kernel_map(VirtAddr(at(KIPC, i)), f).map_err(e)?;
                    }
                    for i in 0..pages {
                        user_kernel_copy(os, (Asid(1), at(SEND, i)), (OS_KERNEL_SPACE, at(KIPC, i)), page)?;
                    }
                    // Step 5: the receiver's old page is unmapped and destroyed.
                    for i in 0..pages {
                        os.destroy_page(Asid(2), VirtAddr(at(RECV, i)));
                    }
                    // Step 6: the IPC buffer is unloaded from the kernel (flush).
                    let mut frames = Vec::new();
                    for i in 0..pages {
                        let f = os.hat().translation(OS_KERNEL_SPACE, VirtAddr(at(KIPC, i)), CpuId(0)).map(|t| t.0 .0);
                        os.kernel_unmap(VirtAddr(at(KIPC, i)));
                        frames.push(f.ok_or_else(|| format!("IPC buffer {:#x} lost its translation", at(KIPC, i)))?);
                    }
                    // Step 7: lazily mapped into the receiver.
                    for (i, f) in frames.into_iter().enumerate() {
                        os.attach(Asid(2), VirtAddr(at(RECV, i as u64)), Pfn(f), Attach::Lazy).map_err(e)?;
                    }
                }
                "ipc-move" | "ipc-move-eager" => {
                    // Step 2: unload the sender's pages (flush).
                    let mut frames = Vec::new();
                    for i in 0..pages {
                        frames.push(os.detach(Asid(1), VirtAddr(at(SEND, i))).map_err(e)?);
                    }
                    // Step 3: unmap and destroy the receiver's old pages.
                    for i in 0..pages {
                        os.destroy_page(Asid(2), VirtAddr(at(RECV, i)));
                    }
                    // Step 4: map into the receiver, lazily or eagerly.
                    for (i, f) in frames.into_iter().enumerate() {
                        os.attach(
                            Asid(2),
                            VirtAddr(at(RECV, i as u64)),
                            f,
                            if variant == "ipc-move-eager" { Attach::Eager } else { Attach::Lazy },
                        )
                        .map_err(e)?;
                    }
                }
                _ => {
                    for i in 0..pages {
                        os.share_cow(Asid(1), VirtAddr(at(SEND, i)), Asid(2), VirtAddr(at(RECV, i))).map_err(e)?;
                    }
                }
            }
            Ok(())
        })?;
        let read = measure(&mut os, |os| touch(os, Asid(2), RECV, pages * page, DataRef::Load, page))?;
        last = (total + read.clone(), read);
    }
    Ok((
        Measurement::new("ipc", variant, kind, bytes, last.0),
        Measurement::new("ipc-receive", variant, kind, bytes, last.1),
    ))
}

/// Mach pmap page initialisation for a copy-on-write fault (section 4.3):
/// case 1 on the physically addressed machine (copy warm -> cold), case 2
/// original Mach on the VAC (flush old, physical copy, flush both physical
/// pages, map), case 3 on the VAC (map the new page NO-ACCESS, copy
/// virtually). Reports cycles' counters and how many of the new page's lines
/// are left in the cache where the faulting process will look.
pub fn pmap(cost: &CostModel, case: u32) -> Result<Measurement, String> {
    let kind = if case == 1 { CacheKind::Pac } else { CacheKind::Vac };
    let mut os = os(kind, cost, Policy::None)?;
    let page = os.page_bytes();
    let a = 0x0030_0000;
    let o = os.object("cow", ObjectKind::Anonymous, 1).map_err(e)?;
    os.map(Asid(1), vm::Region { start: VirtAddr(a), len: page, object: o, offset: 0, prot: Prot::RW, private: false })
        .map_err(e)?;
    touch(&mut os, Asid(1), a, page, DataRef::Store, 32)?; // the original is warm (and dirty)
    let old = os.frame_of(Asid(1), VirtAddr(a)).map_err(e)?.0;
    let new = os.alloc_frame(VirtAddr(a)).map_err(e)?;
    let child = Asid(3);
    let ob = os.object("child", ObjectKind::Anonymous, 1).map_err(e)?;
    os.map(child, vm::Region { start: VirtAddr(a), len: page, object: ob, offset: 0, prot: Prot::RW, private: false })
        .map_err(e)?;
    let (old_pa, new_pa) = (old * page, new.0 * page);
    let c = measure(&mut os, |os| {
        let h = os.cost().path_of(Routine::FaultHandler);
        let outer = os.cpu().enter(Mechanism::FaultEntry);
        os.cpu().count(|c| c.traps += 1);
        os.cpu().instructions(h);
        os.cpu().leave(outer);
        match case {
            1 => {
                let w = os.window(new);
                os.kernel_map(w, new).map_err(e)?;
                copy_block(os, (Asid(1), a), (OS_KERNEL_SPACE, w.0), page)?;
            }
            2 => {
                let (cpu, cost, _) = os.parts();
                let old = Place { va: VirtAddr(a), pa: PhysAddr(old_pa), space: Asid(1) };
                flush_range(cpu, cost, old, page, Flush::WriteBack, "case 2: flush old");
                let (s, d) = (Place::physical(PhysAddr(old_pa)), Place::physical(PhysAddr(new_pa)));
                let (sc, dc) = (Span { at: s, cached: true }, Span { at: d, cached: true });
                crate::primitives::copy(cpu, cost, sc, dc, page, "case 2: physical copy");
                flush_range(cpu, cost, s, page, Flush::WriteBack, "case 2: flush old physical");
                flush_range(cpu, cost, d, page, Flush::WriteBack, "case 2: flush new physical");
            }
            3 => {
                let (cpu, cost, hat) = os.parts();
                let m = Mapping { asid: child, va: VirtAddr(a), tag: child, prot: Prot::NONE, cpu: 0 };
                hat.load(cpu, cost, m, new, DataRef::Load)?;
                let s = Span { at: Place { va: VirtAddr(a), pa: PhysAddr(old_pa), space: Asid(1) }, cached: true };
                let d = Span { at: Place { va: VirtAddr(a), pa: PhysAddr(new_pa), space: child }, cached: true };
                crate::primitives::copy(cpu, cost, s, d, page, "case 3: virtual copy");
            }
            n => return Err(format!("no pmap case {n}; cases are 1, 2, 3")),
        }
        if case != 3 {
            let (cpu, cost, hat) = os.parts();
            let m = Mapping { asid: child, va: VirtAddr(a), tag: child, prot: Prot::RW, cpu: 0 };
            hat.load(cpu, cost, m, new, DataRef::Load)?;
        }
        Ok(())
    })?;
    // Warm lines: the new frame's lines the child's accesses at `a` would hit.
    let line = os.cpu().line_bytes();
    let mut warm = 0;
    for i in 0..page / line {
        let at = Place { va: VirtAddr(a + i * line), pa: PhysAddr(new_pa + i * line), space: child };
        let probe = os.cpu().flush_line(at, Flush::Discard, "probe");
        if !matches!(probe, LineState::Empty) {
            warm += 1;
        }
    }
    let mut m = Measurement::new("pmap", &format!("case{case}"), kind, page, c);
    m.warm_lines = Some(warm);
    m.page_lines = Some(page / line);
    Ok(m)
}

/// Every S2 measurement.
pub fn all(cost: &CostModel) -> Result<Vec<Measurement>, String> {
    let mut out = Vec::new();
    for kb in [1, 2, 4, 8] {
        for s in ["empty", "clean", "dirty"] {
            out.push(table1(cost, s, kb * KB)?);
        }
        for c in ["best", "worst"] {
            out.push(table2(cost, c, kb * KB)?);
        }
    }
    out.push(unmap(cost)?);
    for kind in [CacheKind::Vac, CacheKind::Pac] {
        for v in IPC_VARIANTS {
            for bytes in [0, KB, 2 * KB, 4 * KB, 8 * KB, 16 * KB] {
                let (m, r) = ipc(cost, v, kind, bytes)?;
                out.push(m);
                out.push(r);
            }
        }
    }
    for case in 1..=3 {
        out.push(pmap(cost, case)?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cost() -> CostModel {
        CostModel::load("hp9000-834").expect("preset")
    }

    /// Hand-checked: a 1 KB block is 32 lines = 2 loop iterations of 17
    /// instructions, 32 cache ops, one call; dirty lines are all written back,
    /// empty and clean ones cost the same (seed 000 Table 1 rows 1-2 equal).
    #[test]
    fn table1_counts_by_mechanism() {
        let c = cost();
        let empty = table1(&c, "empty", 1024).expect("empty").counters;
        let clean = table1(&c, "clean", 1024).expect("clean").counters;
        let dirty = table1(&c, "dirty", 1024).expect("dirty").counters;
        assert_eq!((empty.instructions, empty.cache_ops, empty.flush_calls, empty.writebacks), (34, 32, 1, 0));
        assert_eq!(clean, empty);
        assert_eq!(dirty.writebacks, 32);
        assert_eq!(dirty.instructions, 34);
    }

    /// Best copy of 1 KB: 32 lines x 19 instructions, no misses; worst: every
    /// source and destination line misses and evicts a dirty line.
    #[test]
    fn table2_counts_by_mechanism() {
        let c = cost();
        let best = table2(&c, "best", 1024).expect("best").counters;
        assert_eq!((best.instructions, best.misses, best.writebacks, best.references), (32 * 19, 0, 0, 512));
        let worst = table2(&c, "worst", 1024).expect("worst").counters;
        assert_eq!((worst.misses, worst.writebacks), (64, 64));
    }

    #[test]
    fn pmap_case2_leaves_the_new_page_cold_and_cases_1_3_warm() {
        let c = cost();
        let lines = 2048 / 32;
        assert_eq!(pmap(&c, 1).expect("1").warm_lines, Some(lines));
        assert_eq!(pmap(&c, 2).expect("2").warm_lines, Some(0));
        assert_eq!(pmap(&c, 3).expect("3").warm_lines, Some(lines));
        let (c2, c3) = (pmap(&c, 2).expect("2").counters, pmap(&c, 3).expect("3").counters);
        assert!(c.cycles(&c2) > c.cycles(&c3));
    }

    /// The components partition each measurement's counters exactly.
    #[test]
    fn components_sum_to_the_counters() {
        let c = cost();
        for m in all(&c).expect("all") {
            let sum = m.components.values().fold(Counters::default(), |a, b| a + *b);
            assert_eq!(sum, m.counters, "{} {} {}", m.group, m.variant, m.bytes);
        }
    }

    /// Hand-checked: the unmap of one page is a PTE delete on a one-entry
    /// chain (30 + 4 instructions, one PTE read), one pdtlb and the hat's
    /// per-page bookkeeping (60); the frame stays with its memory object,
    /// so nothing is freed.
    #[test]
    fn unmap_breaks_down_by_mechanism() {
        let m = unmap(&cost()).expect("unmap");
        let got: Vec<(&str, u64, u64)> =
            m.components.iter().map(|(k, v)| (k.as_str(), v.instructions, v.pte_refs)).collect();
        assert_eq!(got, vec![("pte update", 34, 1), ("tlb purge", 1, 0), ("vm bookkeeping", 60, 0)]);
    }

    /// A 1 KB message is not a whole page: Chorus IPC-copy does not remap it
    /// but copies it in and out of the kernel buffer (seed 000 section 4.2),
    /// each copy with its recovery set-up; a 2 KB one takes the remap path
    /// (one copy, two flushes, one pseudo fault).
    #[test]
    fn ipc_copy_remaps_only_whole_pages() {
        let c = cost();
        let (one, _) = ipc(&c, "ipc-copy", CacheKind::Vac, 1024).expect("1 KB");
        assert_eq!((one.counters.copy_calls, one.counters.flush_calls, one.counters.traps), (2, 0, 2));
        assert_eq!(one.components["copy recovery"].instructions, 2 * c.path_of(Routine::CopyRecovery));
        let (two, recv) = ipc(&c, "ipc-copy", CacheKind::Vac, 2048).expect("2 KB");
        assert_eq!((two.counters.copy_calls, two.counters.flush_calls, two.counters.traps), (1, 2, 3));
        assert_eq!(recv.counters.traps, 1);
        // The receiver's read after the pseudo fault misses the TLB once:
        // the refill handler and one PTE read of a one-entry chain.
        let tlb = recv.components["tlb miss"];
        assert_eq!((tlb.instructions, tlb.pte_refs), (c.path_of(Routine::TlbMissHandler), 1));
    }
}
