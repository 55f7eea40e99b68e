//! Trace statistics: counts, bytes, footprint and address range.
//!
//! Footprints count distinct (asid, 64-byte line) pairs: the same virtual
//! address in two address spaces is two pieces of memory. An access that
//! straddles a line boundary touches every line it covers. Page counts are
//! derived from the line sets (a 4 KB page is touched iff one of its lines
//! is), so only two sets are maintained while scanning.

use std::collections::BTreeMap;
use std::fmt;

use serde::Serialize;
use vmlab_addr::{Asid, NumberSet};

use crate::{AccessKind, Event, EventSource, TraceError, BLOCK};

pub const LINE_BYTES: u64 = 64;
pub const PAGE_BYTES: u64 = 4096;
const LINE_SHIFT: u32 = LINE_BYTES.trailing_zeros();
const LINES_PER_PAGE_SHIFT: u32 = PAGE_BYTES.trailing_zeros() - LINE_SHIFT;
const REGION_4M_SHIFT: u32 = 22 - PAGE_BYTES.trailing_zeros();
const REGION_1G_SHIFT: u32 = 30 - PAGE_BYTES.trailing_zeros();

/// One number per access kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct KindCounts {
    pub ifetch: u64,
    pub load: u64,
    pub store: u64,
    pub modify: u64,
}

impl KindCounts {
    pub fn get(&self, k: AccessKind) -> u64 {
        match k {
            AccessKind::Ifetch => self.ifetch,
            AccessKind::Load => self.load,
            AccessKind::Store => self.store,
            AccessKind::Modify => self.modify,
        }
    }
    fn slot(&mut self, k: AccessKind) -> &mut u64 {
        match k {
            AccessKind::Ifetch => &mut self.ifetch,
            AccessKind::Load => &mut self.load,
            AccessKind::Store => &mut self.store,
            AccessKind::Modify => &mut self.modify,
        }
    }
    pub fn total(&self) -> u64 {
        self.ifetch + self.load + self.store + self.modify
    }
}

/// Distinct units touched by instruction fetches, by data accesses
/// (load/store/modify), and by either.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Footprint {
    pub instr: u64,
    pub data: u64,
    pub total: u64,
}

/// Lowest byte and highest byte (inclusive) any access touched.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct AddrRange {
    pub min: u64,
    pub max: u64,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct TraceInfo {
    /// The file's encoding, when its format has versions (`.vmt`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub encoding: Option<String>,
    /// All events, markers included.
    pub events: u64,
    pub accesses: u64,
    /// Accesses per kind.
    pub by_kind: KindCounts,
    /// Bytes referenced per kind.
    pub bytes_by_kind: KindCounts,
    /// Bytes referenced by all accesses (a modify counts its bytes once).
    pub bytes_referenced: u64,
    pub context_switches: u64,
    pub flushes: u64,
    /// System-call markers (one per call; its argument events are not counted).
    pub syscalls: u64,
    /// System calls by name (`syscall::display_name`: `syscall_N` for a
    /// number without a name).
    pub syscalls_by_name: BTreeMap<String, u64>,
    /// Accesses per asid.
    pub by_asid: BTreeMap<Asid, u64>,
    /// Distinct 64-byte lines touched.
    pub lines_64b: Footprint,
    /// Distinct 4 KB pages touched.
    pub pages_4k: Footprint,
    /// Distinct 4 MB-aligned regions touched (one page of 4-byte PTEs maps
    /// 4 MB, so this is how many user page-table pages a linear table needs).
    pub regions_4m: Footprint,
    /// Distinct 1 GB-aligned regions touched: how scattered the space is.
    pub regions_1g: Footprint,
    pub addr_range: Option<AddrRange>,
}

/// Scans `source` to its end.
pub fn info(source: &mut dyn EventSource) -> Result<TraceInfo, TraceError> {
    let mut s = Scan::default();
    let mut buf = Vec::with_capacity(BLOCK);
    while source.fill(&mut buf)? {
        s.add(&buf);
    }
    let mut info = s.finish();
    info.encoding = source.encoding();
    Ok(info)
}

#[derive(Default)]
struct Scan {
    info: TraceInfo,
    lines: [NumberSet; 2],
    /// A block's new lines per side, added to `lines` sorted (`insert_all`).
    pending: [Vec<(Asid, u64)>; 2],
    /// Last line inserted per set: consecutive accesses mostly hit the same
    /// line, and skipping the hash insert for them is most of the speed.
    last: [Option<(Asid, u64)>; 2],
    asid: Option<(Asid, u64)>,
    min: u64,
    max: u64,
}

impl Scan {
    fn add(&mut self, events: &[Event]) {
        self.info.events += events.len() as u64;
        for e in events {
            let a = match e {
                Event::Access(a) => a,
                Event::ContextSwitch(_) => {
                    self.info.context_switches += 1;
                    continue;
                }
                Event::FlushAll => {
                    self.info.flushes += 1;
                    continue;
                }
                Event::Syscall(s) => {
                    self.info.syscalls += 1;
                    *self
                        .info
                        .syscalls_by_name
                        .entry(crate::syscall::display_name(s.number).into_owned())
                        .or_default() += 1;
                    continue;
                }
                Event::SyscallArg(_) => continue,
            };
            let asid = a.asid;
            match &mut self.asid {
                Some((cur, n)) if *cur == asid => *n += 1,
                slot => {
                    if let Some((cur, n)) = *slot {
                        *self.info.by_asid.entry(cur).or_default() += n;
                    }
                    *slot = Some((asid, 1));
                }
            }
            let size = u64::from(a.size.max(1));
            *self.info.by_kind.slot(a.kind) += 1;
            *self.info.bytes_by_kind.slot(a.kind) += size;
            let first = a.addr.0;
            let last = first.saturating_add(size - 1);
            if self.info.accesses == 0 {
                self.min = first;
                self.max = last;
            } else {
                self.min = self.min.min(first);
                self.max = self.max.max(last);
            }
            self.info.accesses += 1;
            let which = usize::from(a.kind != AccessKind::Ifetch);
            for line in (first >> LINE_SHIFT)..=(last >> LINE_SHIFT) {
                let key = (asid, line);
                if self.last[which] != Some(key) {
                    self.pending[which].push(key);
                    self.last[which] = Some(key);
                }
            }
        }
        for (set, new) in self.lines.iter_mut().zip(&mut self.pending) {
            set.insert_all(new);
        }
    }

    fn finish(mut self) -> TraceInfo {
        if let Some((cur, n)) = self.asid {
            *self.info.by_asid.entry(cur).or_default() += n;
        }
        let [i, d] = &self.lines;
        let footprint =
            |i: &NumberSet, d: &NumberSet| Footprint { instr: i.len(), data: d.len(), total: i.union_len(d) };
        self.info.lines_64b = footprint(i, d);
        let (pi, pd) = (i.coarsened(LINES_PER_PAGE_SHIFT), d.coarsened(LINES_PER_PAGE_SHIFT));
        self.info.pages_4k = footprint(&pi, &pd);
        // Coarser units from the page sets (4 MB = 2^10 pages, 1 GB = 2^18).
        let coarse = |shift: u32| footprint(&pi.coarsened(shift), &pd.coarsened(shift));
        self.info.regions_4m = coarse(REGION_4M_SHIFT);
        self.info.regions_1g = coarse(REGION_1G_SHIFT);
        self.info.bytes_referenced = self.info.bytes_by_kind.total();
        if self.info.accesses > 0 {
            self.info.addr_range = Some(AddrRange { min: self.min, max: self.max });
        }
        self.info
    }
}

/// `1234567` as `1,234,567`.
fn grouped(n: u64) -> String {
    let s = n.to_string();
    let groups: Vec<&str> = s.as_bytes().rchunks(3).rev().map(|g| std::str::from_utf8(g).unwrap_or("?")).collect();
    groups.join(",")
}

fn pct(part: u64, whole: u64) -> String {
    if whole == 0 {
        return "-".to_string();
    }
    format!("{:.1}%", 100.0 * part as f64 / whole as f64)
}

impl fmt::Display for TraceInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let i = self;
        if let Some(e) = &i.encoding {
            writeln!(f, "{:<20} {e}", "encoding")?;
        }
        writeln!(f, "{:<20} {:>16}", "events", grouped(i.events))?;
        writeln!(f, "{:<20} {:>16}", "  context switches", grouped(i.context_switches))?;
        writeln!(f, "{:<20} {:>16}", "  flushes", grouped(i.flushes))?;
        if i.syscalls > 0 {
            writeln!(f, "{:<20} {:>16}", "  system calls", grouped(i.syscalls))?;
            let mut by_count: Vec<_> = i.syscalls_by_name.iter().collect();
            by_count.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
            for (name, n) in by_count {
                writeln!(f, "{:<20} {:>16}", format!("    {name}"), grouped(*n))?;
            }
        }
        writeln!(f, "{:<20} {:>16} {:>8} {:>18}", "  accesses", grouped(i.accesses), "share", "bytes")?;
        for k in AccessKind::ALL {
            writeln!(
                f,
                "{:<20} {:>16} {:>8} {:>18}",
                format!("    {}", k.name()),
                grouped(i.by_kind.get(k)),
                pct(i.by_kind.get(k), i.accesses),
                grouped(i.bytes_by_kind.get(k))
            )?;
        }
        writeln!(f, "{:<20} {:>16}", "bytes referenced", grouped(i.bytes_referenced))?;
        match i.addr_range {
            Some(r) => writeln!(f, "{:<20} {:#018x} .. {:#018x}", "address range", r.min, r.max)?,
            None => writeln!(f, "{:<20} {:>16}", "address range", "-")?,
        }
        writeln!(f, "{:<20} {:>16} {:>16}", "footprint", "64 B lines", "4 KB pages")?;
        for (name, l, p) in [
            ("  instruction", i.lines_64b.instr, i.pages_4k.instr),
            ("  data", i.lines_64b.data, i.pages_4k.data),
            ("  total", i.lines_64b.total, i.pages_4k.total),
        ] {
            writeln!(f, "{:<20} {:>16} {:>16}", name, grouped(l), grouped(p))?;
        }
        writeln!(f, "{:<20} {:>16} {:>16}", "distinct regions", "4 MB", "1 GB")?;
        for (name, m, g) in [
            ("  instruction", i.regions_4m.instr, i.regions_1g.instr),
            ("  data", i.regions_4m.data, i.regions_1g.data),
            ("  total", i.regions_4m.total, i.regions_1g.total),
        ] {
            writeln!(f, "{:<20} {:>16} {:>16}", name, grouped(m), grouped(g))?;
        }
        writeln!(f, "{:<20} {:>16} {:>8}", "asid", "accesses", "share")?;
        for (asid, n) in &i.by_asid {
            writeln!(f, "{:<20} {:>16} {:>8}", format!("  {asid}"), grouped(*n), pct(*n, i.accesses))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vmt::VmtReader;
    use crate::{VmtHeader, VmtWriter};
    use vmlab_addr::{Asid, VirtAddr};

    #[test]
    fn counts_system_calls_by_name() {
        use crate::syscall::Call;
        let call = |number, args: Vec<u64>| Call { number, asid: vmlab_addr::Asid(2), ret: 1, args };
        let mut events = vec![Event::access(AccessKind::Load, VirtAddr(0x1000), 4, Asid(0))];
        for c in
            [call(0, vec![3, 0x1000, 1]), call(1, vec![4, 0x1000, 1]), call(0, vec![3, 0x1000, 1]), call(999, vec![])]
        {
            events.extend(c.events());
        }
        let mut w = VmtWriter::new(Vec::new(), VmtHeader::default()).expect("header");
        w.write_all(&events).expect("write");
        let bytes = w.finish().expect("finish");
        let i = info(&mut VmtReader::new(&bytes[..], "mem").expect("open")).expect("info");
        assert_eq!((i.events, i.accesses, i.syscalls), (1 + 4 + 4 + 4 + 1, 1, 4));
        let by_name: Vec<(&str, u64)> = i.syscalls_by_name.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        assert_eq!(by_name, [("read", 2), ("syscall_999", 1), ("write", 1)]);
        let table = i.to_string();
        let rows: Vec<Vec<&str>> = table
            .lines()
            .skip_while(|l| !l.contains("system calls"))
            .take(4)
            .map(|l| l.split_whitespace().collect())
            .collect();
        assert_eq!(
            rows,
            [vec!["system", "calls", "4"], vec!["read", "2"], vec!["syscall_999", "1"], vec!["write", "1"]]
        );
    }

    #[test]
    fn counts_footprint_and_range() {
        let events = vec![
            Event::access(AccessKind::Ifetch, VirtAddr(0x1000), 4, Asid(0)),
            Event::access(AccessKind::Ifetch, VirtAddr(0x1004), 4, Asid(0)),
            // straddles lines 0x1000>>6=0x40 and 0x41
            Event::access(AccessKind::Load, VirtAddr(0x103e), 4, Asid(0)),
            Event::access(AccessKind::Store, VirtAddr(0x2000), 8, Asid(0)),
            Event::ContextSwitch(vmlab_addr::Asid(1)),
            Event::access(AccessKind::Modify, VirtAddr(0x1000), 8, Asid(1)),
            Event::FlushAll,
        ];
        let mut w = VmtWriter::new(Vec::new(), VmtHeader::default()).expect("header");
        w.write_all(&events).expect("write");
        let bytes = w.finish().expect("finish");
        let mut r = VmtReader::new(&bytes[..], "mem").expect("open");
        let i = info(&mut r).expect("info");
        assert_eq!(i.events, 7);
        assert_eq!(i.accesses, 5);
        assert_eq!(i.by_kind, KindCounts { ifetch: 2, load: 1, store: 1, modify: 1 });
        assert_eq!(i.bytes_by_kind, KindCounts { ifetch: 8, load: 4, store: 8, modify: 8 });
        assert_eq!(i.bytes_referenced, 28);
        assert_eq!((i.context_switches, i.flushes), (1, 1));
        assert_eq!(i.by_asid, BTreeMap::from([(Asid(0), 4), (Asid(1), 1)]));
        // instr: (0,0x40); data: (0,0x40),(0,0x41),(0,0x80),(1,0x40)
        assert_eq!(i.lines_64b, Footprint { instr: 1, data: 4, total: 4 });
        // pages: instr (0,1); data (0,1),(0,2),(1,1)
        assert_eq!(i.pages_4k, Footprint { instr: 1, data: 3, total: 3 });
        // Everything is in the first 4 MB of each asid: (0,0) and (1,0).
        assert_eq!(i.regions_4m, Footprint { instr: 1, data: 2, total: 2 });
        assert_eq!(i.regions_1g, Footprint { instr: 1, data: 2, total: 2 });
        assert_eq!(i.addr_range, Some(AddrRange { min: 0x1000, max: 0x2007 }));
        let table = i.to_string();
        let row = table.lines().find(|l| l.trim_start().starts_with("ifetch")).unwrap_or_default();
        assert_eq!(row.split_whitespace().collect::<Vec<_>>(), ["ifetch", "2", "40.0%", "8"], "{table}");
        // The encoding first (wider than a count), then columns that line
        // up: every count ends in the same column.
        assert_eq!(table.lines().next(), Some("encoding             vmt-bb-v1 (.vmt version 2)"), "{table}");
        let widths: Vec<usize> = table.lines().skip(1).take(3).map(|l| l.len()).collect();
        assert_eq!(widths, [37, 37, 37], "{table}");
        assert!(table.contains("0x0000000000001000 .. 0x0000000000002007"), "{table}");
        let json = serde_json::to_value(&i).expect("json");
        assert_eq!(json["lines_64b"]["data"], 4);
        assert_eq!(json["by_asid"]["1"], 1);
        assert_eq!(json["regions_4m"]["total"], 2);
    }

    #[test]
    fn distinct_regions_count_4mb_and_1gb_units() {
        let events = vec![
            Event::access(AccessKind::Ifetch, VirtAddr(0x40_0000), 4, Asid(0)), // 4 MB region 1, 1 GB region 0
            Event::access(AccessKind::Load, VirtAddr(0x3f_fffe), 4, Asid(0)),   // straddles regions 0 and 1
            Event::access(AccessKind::Store, VirtAddr(0x4000_0000), 8, Asid(0)), // 4 MB 256, 1 GB 1
            Event::access(AccessKind::Store, VirtAddr(0x4010_0000), 8, Asid(0)), // same 4 MB and 1 GB region
            Event::access(AccessKind::Load, VirtAddr(0x7fff_ffff_f000), 8, Asid(0)), // the top of user space
        ];
        let mut w = VmtWriter::new(Vec::new(), VmtHeader::default()).expect("header");
        w.write_all(&events).expect("write");
        let bytes = w.finish().expect("finish");
        let i = info(&mut VmtReader::new(&bytes[..], "mem").expect("open")).expect("info");
        // data 4 MB regions: 0, 1, 256, 0x1fffff; instr: 1; union: 4.
        assert_eq!(i.regions_4m, Footprint { instr: 1, data: 4, total: 4 });
        // data 1 GB regions: 0, 1, 0x1ffff; instr: 0.
        assert_eq!(i.regions_1g, Footprint { instr: 1, data: 3, total: 3 });
        assert!(i.to_string().contains("distinct regions"), "{i}");
    }
}
