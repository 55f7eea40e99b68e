//! Page-table organisations: what each costs in memory for an address space.

use std::collections::BTreeSet;
use std::path::Path;

use pyo3::prelude::*;
use vmlab_mmu::pagetable::{TableKind, TableParams};
use vmlab_mmu::sparse::{memory_table, Layout, SpaceDescription, PAGE_BYTES};
use vmlab_trace::{Event, EventSource};

use crate::machine::{parse_format, to_json};
use crate::signals::{Checked, Checkpoint};
use crate::{guard, vmlab_error};

/// The organisation names (`mips`, `mach`, `puma`, ...).
#[pyfunction]
pub fn pagetable_kinds() -> Vec<&'static str> {
    TableKind::ALL.iter().map(|k| k.name()).collect()
}

#[derive(serde::Serialize)]
struct Description<'a> {
    name: &'a str,
    spaces: usize,
    regions: usize,
    pages: u64,
    /// True when pages above 2 GB were folded into the user space.
    folded: bool,
}

#[derive(serde::Serialize)]
struct Report<'a> {
    description: Description<'a>,
    phys_frames: u64,
    rows: Vec<vmlab_mmu::sparse::MemoryRow>,
}

/// The 4 KB pages a trace touches, as (address space, page).
fn trace_pages(
    source: &mut dyn EventSource,
) -> Result<BTreeSet<(vmlab_addr::Asid, vmlab_addr::Vpn)>, vmlab_trace::TraceError> {
    let mut pages = BTreeSet::new();
    let mut buf = Vec::new();
    while source.fill(&mut buf)? {
        for e in &buf {
            if let Event::Access(a) = e {
                let first = a.addr.0 / PAGE_BYTES;
                let last = a.addr.0.saturating_add(u64::from(a.size.max(1)) - 1) / PAGE_BYTES;
                for vpn in first..=last {
                    pages.insert((a.asid, vmlab_addr::Vpn(vpn)));
                }
            }
        }
    }
    Ok(pages)
}

/// Builds every organisation (or those in `kinds`) for an address space --
/// the `dense` or `sparse` preset, or the pages a trace touches -- and
/// returns the memory table as JSON. A trace's pages above 2 GB are folded
/// into the 2 GB user space unless `fold` is false (then the 32-bit
/// organisations report an error row instead).
#[pyfunction]
#[pyo3(signature = (space="dense", trace=None, format=None, phys_frames=65536, fold=true, kinds=None))]
pub fn pagetable_memory(
    py: Python<'_>,
    space: &str,
    trace: Option<&str>,
    format: Option<&str>,
    phys_frames: u64,
    fold: bool,
    kinds: Option<Vec<String>>,
) -> PyResult<String> {
    let format = parse_format(format)?;
    let kinds: Vec<TableKind> = match kinds {
        Some(names) => names.iter().map(|n| n.parse()).collect::<Result<_, _>>().map_err(vmlab_error)?,
        None => TableKind::ALL.to_vec(),
    };
    if phys_frames == 0 || phys_frames > 1 << 20 {
        return Err(vmlab_error(format!(
            "physical memory of {phys_frames} 4 KB frames: expected 1 to 1048576 (4 GB, what a 4-byte PTE addresses)"
        )));
    }
    let mut checkpoint = Checkpoint::new(None);
    let outcome = py.detach(|| {
        guard("pagetable_memory", || {
            let (desc, folded) = match trace {
                Some(path) => {
                    let p = Path::new(path);
                    let mut source = vmlab_trace::open(p, format).map_err(vmlab_error)?;
                    let mut checked = Checked { inner: &mut *source, checkpoint: &mut checkpoint, path: p };
                    let pages = trace_pages(&mut checked).map_err(vmlab_error)?;
                    let name = p.file_name().map_or_else(|| path.to_string(), |n| n.to_string_lossy().into_owned());
                    let d = SpaceDescription::from_pages(&name, pages);
                    let above = d.pages().any(|(_, v)| v.0 * PAGE_BYTES >= vmlab_addr::layout::USER_LIMIT.0);
                    if fold && above {
                        (d.fold_into_user_space().map_err(|e| vmlab_error(format!("{path}: {e}")))?, true)
                    } else {
                        (d, false)
                    }
                }
                None => (Layout::preset(space).and_then(|l| l.describe()).map_err(vmlab_error)?, false),
            };
            let params = TableParams { phys_frames, ..TableParams::default() };
            let rows = memory_table(&desc, &kinds, &params);
            let spaces = desc.regions.iter().map(|r| r.space).collect::<BTreeSet<_>>().len();
            to_json(&Report {
                description: Description {
                    name: &desc.name,
                    spaces,
                    regions: desc.regions.len(),
                    pages: desc.page_count(),
                    folded,
                },
                phys_frames,
                rows,
            })
        })
    });
    match checkpoint.take() {
        Some(e) => Err(e),
        None => outcome,
    }
}
