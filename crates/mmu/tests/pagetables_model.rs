//! Every organisation against a HashMap model on random insert/remove
//! sequences: lookup agrees, every mapped page's walk ends (through every
//! tier, reading the simulated memory with `pte_at`) at its frame, memory
//! adds up, and the frame pool holds exactly the table's frames.

#![allow(clippy::unwrap_used)] // a test failing on an unexpected error is the point

use std::collections::HashMap;

use proptest::prelude::*;
use vmlab_addr::{Asid, Pfn, PhysAddr, VirtAddr, Vpn};
use vmlab_mmu::pagetable::{build, TableKind, TableParams};
use vmlab_mmu::{FramePool, PageTable, PteAddr, PteRef, TableError};

const PAGE: u64 = 4096;

/// The physical address a reference reads: itself if physical, else the
/// frame the next tier's walk ends at plus the page offset.
fn physical(t: &dyn PageTable, space: u32, r: PteRef, depth: u32) -> Result<PhysAddr, String> {
    let va = match r.at {
        PteAddr::Physical(pa) => return Ok(pa),
        PteAddr::Mapped(va) => va,
    };
    if depth > 4 {
        return Err("more than 4 tiers".into());
    }
    let mut up = Vec::new();
    t.walk(Asid(space), va, &mut up).map_err(|e| format!("walk of PTE address {va:#x}: {e}"))?;
    let [up] = up[..] else { return Err(format!("tier walk of {va:#x} gave {} references", up.len())) };
    let pa = physical(t, space, up, depth + 1)?;
    let frame = t.pte_at(pa).ok_or_else(|| format!("invalid upper PTE at {pa:#x}"))?;
    Ok(PhysAddr(frame.0 * PAGE + va.0 % PAGE))
}

/// The frame a walk of `va` ends at.
fn walk_to_frame(t: &dyn PageTable, kind: TableKind, space: u32, va: u64) -> Result<Pfn, String> {
    let mut refs = Vec::new();
    t.walk(Asid(space), VirtAddr(va), &mut refs).map_err(|e| e.to_string())?;
    if matches!(kind, TableKind::X86TwoLevel | TableKind::X86FourLevel) {
        // Top-down: each entry names the page the next reference is in.
        for w in refs.windows(2) {
            let (PteAddr::Physical(a), PteAddr::Physical(b)) = (w[0].at, w[1].at) else {
                return Err("an x86 walk reads physical entries only".into());
            };
            if t.pte_at(a) != Some(Pfn(b.0 / PAGE)) {
                return Err(format!("entry at {a:#x} does not point at {b:#x}"));
            }
        }
    }
    let last = *refs.last().ok_or("empty walk")?;
    let pa = physical(t, space, last, 0)?;
    t.pte_at(pa).ok_or_else(|| format!("invalid PTE at {pa:#x}"))
}

#[derive(Clone, Debug)]
enum Op {
    Insert(u32, u64),
    Remove(u32, u64),
}

/// Pages clustered in a few regions of the 2 GB user space (so table pages
/// fill and empty) plus scattered ones.
fn vpn() -> impl Strategy<Value = u64> {
    prop_oneof![
        (0u64..48).prop_map(|v| 0x400 + v),
        (0u64..48).prop_map(|v| 0x7FFFF - v),
        (0u64..16).prop_map(|v| 0x30000 + v * 1024),
        0u64..(1 << 19),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (0u32..3, vpn()).prop_map(|(s, v)| Op::Insert(s, v)),
        2 => (0u32..3, vpn()).prop_map(|(s, v)| Op::Remove(s, v)),
    ]
}

fn kind() -> impl Strategy<Value = TableKind> {
    proptest::sample::select(TableKind::ALL.to_vec())
}

proptest! {
    #[test]
    fn every_organisation_agrees_with_a_hashmap(kind in kind(), ops in prop::collection::vec(op(), 1..150)) {
        // Small hashed tables so chains and full PTEG pairs happen.
        let params = TableParams { phys_frames: 4096, parisc_entries: Some(32), powerpc_ptegs: Some(8), ..TableParams::default() };
        let mut pool = FramePool::new(PAGE, 0x10, 4096);
        let mut t = build(kind, &params, &mut pool).unwrap();
        let mut model: HashMap<(u32, u64), u64> = HashMap::new();
        let mut next_pfn = 0x8000u64;
        for op in ops {
            match op {
                Op::Insert(s, v) => {
                    next_pfn += 1;
                    match t.insert(Asid(s), Vpn(v), Pfn(next_pfn), &mut pool) {
                        Ok(()) => { model.insert((s, v), next_pfn); }
                        Err(TableError::Full { .. }) if kind == TableKind::Powerpc => {}
                        Err(e) => prop_assert!(false, "{kind}: insert ({s}, {v:#x}): {e}"),
                    }
                }
                Op::Remove(s, v) => {
                    let r = t.remove(Asid(s), Vpn(v), &mut pool);
                    match model.remove(&(s, v)) {
                        Some(_) => prop_assert!(r.is_ok(), "{kind}: remove ({s}, {v:#x}): {r:?}"),
                        None => prop_assert_eq!(r, Err(TableError::NotMapped { space: Asid(s), vpn: Vpn(v) })),
                    }
                }
            }
            for (&(s, v), &pfn) in &model {
                prop_assert_eq!(t.lookup(Asid(s), Vpn(v)), Some(Pfn(pfn)));
                let reached = walk_to_frame(&*t, kind, s, v * PAGE + 0x123);
                prop_assert_eq!(reached, Ok(Pfn(pfn)), "{} walk of ({}, {:#x})", kind, s, v);
            }
            let m = t.memory();
            prop_assert_eq!(m.bytes, m.parts.iter().map(|p| p.1).sum::<u64>());
            prop_assert!(m.useful_bytes <= m.bytes);
            prop_assert_eq!(m.bytes, pool.in_use() * PAGE, "{} holds exactly its frames", kind);
        }
        // Unmapped pages are not found.
        for s in 0..3 {
            for v in [0u64, 0x3FF, 0x40000] {
                prop_assert_eq!(t.lookup(Asid(s), Vpn(v)), model.get(&(s, v)).copied().map(Pfn));
            }
        }
        // Removing everything returns every on-demand table page.
        let keys: Vec<(u32, u64)> = model.keys().copied().collect();
        for (s, v) in keys {
            t.remove(Asid(s), Vpn(v), &mut pool).unwrap();
        }
        let m = t.memory();
        prop_assert_eq!(m.useful_bytes, 0);
        let fixed = m.parts.iter().filter(|p| p.0.contains("root") || p.0.contains("hash table") || p.0 == "hashed page table" || p.0.contains("directories") || p.0 == "PML4s").map(|p| p.1).sum::<u64>();
        prop_assert_eq!(m.bytes, fixed, "{} keeps only roots / fixed tables: {:?}", kind, m.parts);
    }
}

#[test]
fn names_round_trip_and_unknown_names_list_the_valid_ones() {
    for k in TableKind::ALL {
        assert_eq!(k.name().parse::<TableKind>(), Ok(k));
        assert_eq!(serde_json::to_string(&k).unwrap(), format!("\"{}\"", k.name()));
    }
    let e = "sparc".parse::<TableKind>().unwrap_err().to_string();
    assert!(e.contains("sparc") && e.contains("x86-4level") && e.contains("powerpc"), "{e}");
}
