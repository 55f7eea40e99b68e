//! What a prefix of a trace touches, as floors for a cache and TLB study:
//! distinct lines per side at several line sizes (and those whose first
//! touch is a read, which must be fetched whatever the caches), distinct
//! pages per side, the lines of a linear 4-byte-PTE table those pages use,
//! 4 MB regions, and the misses of fully associative LRU TLBs of several
//! sizes. No cache or TLB can miss less than these, so a study uses them
//! to say how much of a measured miss count is first touches.
//!
//! Sides: instruction fetches (I) and data accesses (loads, stores,
//! modifies: D). Address spaces are merged, as a lackey trace of one
//! process is. An access is split into every line and page it spans.

use std::collections::BTreeMap;

use rustc_hash::FxHashSet;
use serde::Serialize;

use crate::{AccessKind, Event, EventSource, TraceError, BLOCK};

/// What to count.
#[derive(Clone, Debug)]
pub struct FootprintSpec {
    /// Line sizes in bytes, powers of two of at least 4.
    pub line_sizes: Vec<u64>,
    /// Page size in bytes, a power of two.
    pub page_bytes: u64,
    /// Entries of each fully associative LRU TLB to count misses for.
    pub tlb_slots: Vec<usize>,
    /// Accesses to read (0 = all).
    pub max_accesses: u64,
}

impl FootprintSpec {
    fn check(&self) -> Result<(), String> {
        let pow2 = |n: u64| n > 0 && n.is_power_of_two();
        if self.line_sizes.is_empty() || self.line_sizes.iter().any(|&s| !pow2(s) || s < 4) || !pow2(self.page_bytes) {
            return Err(format!(
                "line sizes {:?} and page size {} must be powers of two, lines at least 4 bytes",
                self.line_sizes, self.page_bytes
            ));
        }
        if self.tlb_slots.contains(&0) {
            return Err(format!("TLB sizes {:?} must be at least one entry", self.tlb_slots));
        }
        Ok(())
    }
}

/// One count per side.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct PerSide {
    pub i: u64,
    pub d: u64,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Pages {
    pub i: u64,
    pub d: u64,
    pub all: u64,
}

/// The counts, keyed by line size or TLB size written as text (so the JSON
/// form is the S1 study's).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct PrefixFootprint {
    /// Accesses read.
    pub events: u64,
    pub instructions: u64,
    pub lines: BTreeMap<String, PerSide>,
    pub read_first_lines: BTreeMap<String, PerSide>,
    pub pte_lines: BTreeMap<String, u64>,
    pub pages: Pages,
    pub regions_4m: u64,
    pub lru_tlb_misses: BTreeMap<&'static str, BTreeMap<String, u64>>,
}

/// Distinct lines of one side at one line size.
#[derive(Default)]
struct LineSets {
    touched: FxHashSet<u64>,
    read_first: FxHashSet<u64>,
}

/// A fully associative LRU stack of pages, most recent first, kept only as
/// deep as the largest TLB: a page deeper than that misses every TLB.
struct LruPages {
    stack: Vec<u64>,
    depth: usize,
    /// Misses per TLB size (sorted ascending, as `sizes`).
    misses: Vec<u64>,
}

impl LruPages {
    fn touch(&mut self, page: u64, sizes: &[usize]) {
        let dist = match self.stack.iter().position(|&p| p == page) {
            Some(d) => {
                self.stack.remove(d);
                d
            }
            None => {
                if self.stack.len() >= self.depth {
                    self.stack.pop();
                }
                self.depth
            }
        };
        self.stack.insert(0, page);
        for (m, &n) in self.misses.iter_mut().zip(sizes) {
            if dist >= n {
                *m += 1;
            }
        }
    }
}

/// Counts `spec` over the source's first accesses. Markers are skipped.
pub fn footprint(source: &mut dyn EventSource, spec: &FootprintSpec) -> Result<PrefixFootprint, TraceError> {
    spec.check().map_err(|m| TraceError::new("footprint", crate::Location::File, m))?;
    let mut sizes = spec.line_sizes.clone();
    sizes.sort_unstable();
    sizes.dedup();
    let mut slots = spec.tlb_slots.clone();
    slots.sort_unstable();
    slots.dedup();
    let small = sizes[0].trailing_zeros();
    let shifts: Vec<u32> = sizes.iter().map(|s| s.trailing_zeros() - small).collect();
    let pshift = spec.page_bytes.trailing_zeros();
    let depth = slots.last().copied().unwrap_or(0);
    let mut smallest: [FxHashSet<u64>; 2] = Default::default();
    let mut sets: Vec<[LineSets; 2]> = sizes.iter().map(|_| Default::default()).collect();
    let mut pages: [FxHashSet<u64>; 2] = Default::default();
    let mut lru: [LruPages; 2] =
        std::array::from_fn(|_| LruPages { stack: Vec::with_capacity(depth + 1), depth, misses: vec![0; slots.len()] });
    let (mut events, mut instructions) = (0u64, 0u64);
    let mut buf = Vec::with_capacity(BLOCK);
    'read: while source.fill(&mut buf)? {
        for ev in &buf {
            let Event::Access(a) = ev else { continue };
            if spec.max_accesses != 0 && events >= spec.max_accesses {
                break 'read;
            }
            events += 1;
            let side = usize::from(a.kind != AccessKind::Ifetch);
            instructions += u64::from(side == 0);
            let first = a.addr.0;
            let last = first.saturating_add(u64::from(a.size.max(1)) - 1);
            for x in first >> small..=last >> small {
                if !smallest[side].insert(x) {
                    continue;
                }
                // A new smallest line: perhaps a new line of each size.
                for (s, &shift) in sets.iter_mut().zip(&shifts) {
                    let y = x >> shift;
                    if s[side].touched.insert(y) && a.kind != AccessKind::Store {
                        s[side].read_first.insert(y);
                    }
                }
            }
            let l = &mut lru[side];
            for p in first >> pshift..=last >> pshift {
                if l.stack.first() == Some(&p) {
                    continue;
                }
                pages[side].insert(p);
                l.touch(p, &slots);
            }
        }
    }
    let every: FxHashSet<u64> = pages[0].union(&pages[1]).copied().collect();
    let mut out = PrefixFootprint {
        events,
        instructions,
        pages: Pages { i: pages[0].len() as u64, d: pages[1].len() as u64, all: every.len() as u64 },
        regions_4m: every.iter().map(|p| p >> (22u32.saturating_sub(pshift))).collect::<FxHashSet<_>>().len() as u64,
        ..Default::default()
    };
    for (s, size) in sets.iter().zip(&sizes) {
        let key = size.to_string();
        out.lines.insert(key.clone(), PerSide { i: s[0].touched.len() as u64, d: s[1].touched.len() as u64 });
        out.read_first_lines
            .insert(key.clone(), PerSide { i: s[0].read_first.len() as u64, d: s[1].read_first.len() as u64 });
        // A linear table holds size/4 PTEs per line: pages p and q share a
        // PTE line iff p / (size/4) == q / (size/4).
        let per = (size / 4).trailing_zeros();
        out.pte_lines.insert(key, every.iter().map(|p| p >> per).collect::<FxHashSet<_>>().len() as u64);
    }
    for (k, side) in [(0, "i"), (1, "d")] {
        let m = slots.iter().zip(&lru[k].misses).map(|(n, &c)| (n.to_string(), c)).collect();
        out.lru_tlb_misses.insert(side, m);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Access;
    use vmlab_addr::VirtAddr;

    struct Events(Vec<Event>, bool);
    impl EventSource for Events {
        fn fill(&mut self, buf: &mut Vec<Event>) -> Result<bool, TraceError> {
            buf.clear();
            if self.1 {
                return Ok(false);
            }
            self.1 = true;
            buf.extend_from_slice(&self.0);
            Ok(!buf.is_empty())
        }
        fn progress(&self) -> (u64, Option<u64>) {
            (0, None)
        }
    }

    fn acc(kind: AccessKind, addr: u64, size: u32) -> Event {
        Event::Access(Access { kind, size, addr: VirtAddr(addr), asid: vmlab_addr::Asid(0) })
    }

    #[test]
    fn counts_by_hand() {
        // Store first to line 0x1000 (16 B lines: 0x100), then a load of it;
        // an ifetch straddling 0x2ffe..0x3001 (two 16 B lines, two pages);
        // a load in page 0x400 (a second 4 MB region).
        let evs = vec![
            acc(AccessKind::Store, 0x1000, 4),
            acc(AccessKind::Load, 0x1004, 4),
            acc(AccessKind::Ifetch, 0x2ffe, 4),
            acc(AccessKind::Load, 0x40_0000, 8),
        ];
        let spec = FootprintSpec { line_sizes: vec![16, 64], page_bytes: 4096, tlb_slots: vec![1, 2], max_accesses: 0 };
        let f = footprint(&mut Events(evs, false), &spec).expect("counts");
        assert_eq!((f.events, f.instructions), (4, 1));
        assert_eq!(f.lines["16"], PerSide { i: 2, d: 2 });
        assert_eq!(f.read_first_lines["16"], PerSide { i: 2, d: 1 });
        assert_eq!(f.lines["64"], PerSide { i: 2, d: 2 });
        assert_eq!(f.pages, Pages { i: 2, d: 2, all: 4 });
        assert_eq!(f.regions_4m, 2);
        // I: pages 2 then 3, two cold misses for both sizes. D: page 1 (cold),
        // page 1 again (top of stack, skipped), page 0x400 (cold).
        assert_eq!(f.lru_tlb_misses["i"], BTreeMap::from([("1".into(), 2), ("2".into(), 2)]));
        assert_eq!(f.lru_tlb_misses["d"], BTreeMap::from([("1".into(), 2), ("2".into(), 2)]));
        // PTE lines: 16 B holds 4 PTEs: pages 1, 2, 3 share line 0, page 0x400 is line 0x100.
        assert_eq!(f.pte_lines["16"], 2);
        let head = footprint(
            &mut Events(vec![acc(AccessKind::Load, 0, 4), acc(AccessKind::Load, 64, 4)], false),
            &FootprintSpec { max_accesses: 1, ..spec.clone() },
        )
        .expect("counts");
        assert_eq!(head.events, 1);
        let bad = FootprintSpec { line_sizes: vec![24], ..spec };
        assert!(footprint(&mut Events(vec![], false), &bad).is_err());
    }
}
