//! Address-space descriptions, and what each page-table organisation costs
//! to map one.
//!
//! A description is a list of regions (text, data, heap, shared libraries,
//! thread stacks, mmap regions) per address space, every page of which is
//! mapped. Two presets show the contrast the issue asks for (experiments.md
//! S1, finding 4: "MACH is close to ULTRIX unless the address space is large
//! and sparse"):
//! * [`Layout::dense`]: one compact program, text + data + heap contiguous
//!   and one stack, as the 1990s benchmarks of seed 002 were;
//! * [`Layout::sparse`]: the same program with shared libraries, thread
//!   stacks (each at the top of its own 8 MB reservation, the rest a guard
//!   gap) and mmap regions spread over the 2 GB user space.
//!
//! [`SpaceDescription::from_pages`] describes a trace's touched pages
//! instead. [`memory_table`] builds every organisation for a description.
//! Linear and radix tables grow with how spread the pages are (a table page
//! per 4 MB or 2 MB region touched); the hashed tables are sized by
//! physical memory and grow only with the number of mapped pages.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};
use vmlab_addr::layout::USER_LIMIT;
use vmlab_addr::{Asid, Vpn};

use crate::frames::FramePool;
use crate::pagetable::{build, ChainStats, HashedInverted, HashedParams, PageTable, TableKind, TableParams};

pub const PAGE_BYTES: u64 = 4096;
// The user space every organisation maps is the 2 GB below
// `layout::USER_LIMIT` (seed 002: MIPS and SOFTVM users own the bottom 2 GB).

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RegionKind {
    Text,
    Data,
    Heap,
    SharedLibrary,
    Stack,
    Mmap,
    /// Pages a trace touched.
    Touched,
}

/// A run of mapped pages in one address space.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Region {
    pub space: Asid,
    pub kind: RegionKind,
    pub first_vpn: Vpn,
    pub pages: u64,
}

/// The parameters of a synthetic process layout. Sizes are in 4 KB pages.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Layout {
    pub name: String,
    /// Processes with this layout, spaces `0..processes` (nothing shared).
    pub processes: u32,
    pub text_pages: u64,
    pub data_pages: u64,
    pub heap_pages: u64,
    pub main_stack_pages: u64,
    /// Shared libraries: text + data pages each, `library_spacing` apart from
    /// `library_base` upwards.
    pub shared_libraries: u64,
    pub library_text_pages: u64,
    pub library_data_pages: u64,
    pub library_base: u64,
    pub library_spacing: u64,
    /// Thread stacks: `stack_pages` used at the top of each `stack_spacing`
    /// reservation (the rest is the guard gap), downwards from `stacks_top`.
    pub thread_stacks: u64,
    pub stack_pages: u64,
    pub stacks_top: u64,
    pub stack_spacing: u64,
    /// mmap regions of `mmap_pages` each, `mmap_spacing` apart from `mmap_base`.
    pub mmap_regions: u64,
    pub mmap_pages: u64,
    pub mmap_base: u64,
    pub mmap_spacing: u64,
}

const TEXT_BASE: u64 = 0x0040_0000; // the MIPS/ELF default text address

impl Layout {
    /// A compact program: 1 MB text, 256 KB data, 8.5 MB heap right after,
    /// 256 KB stack at the top of the user space.
    pub fn dense() -> Self {
        Self {
            name: "dense".into(),
            processes: 1,
            text_pages: 256,
            data_pages: 64,
            heap_pages: 2176,
            main_stack_pages: 64,
            shared_libraries: 0,
            library_text_pages: 0,
            library_data_pages: 0,
            library_base: 0,
            library_spacing: 0,
            thread_stacks: 0,
            stack_pages: 0,
            stacks_top: 0,
            stack_spacing: 0,
            mmap_regions: 0,
            mmap_pages: 0,
            mmap_base: 0,
            mmap_spacing: 0,
        }
    }

    /// The dense program plus 16 shared libraries (256 KB text + 32 KB data
    /// each, 32 MB apart from 1 GB), 16 thread stacks (128 KB used at the
    /// top of each 8 MB reservation, the glibc default, below 0x7F00_0000)
    /// and 16 mmap regions (64 KB each, 32 MB apart from 256 MB). About the
    /// same number of pages as the dense layout (2,560), spread over the 2 GB
    /// space (its heap is 1 MB, the rest went to libraries, stacks, mmaps).
    pub fn sparse() -> Self {
        Self {
            name: "sparse".into(),
            heap_pages: 256,
            shared_libraries: 16,
            library_text_pages: 64,
            library_data_pages: 8,
            library_base: 0x4000_0000,
            library_spacing: 32 << 20,
            thread_stacks: 16,
            stack_pages: 32,
            stacks_top: 0x7F00_0000,
            stack_spacing: 8 << 20,
            mmap_regions: 16,
            mmap_pages: 16,
            mmap_base: 0x1000_0000,
            mmap_spacing: 32 << 20,
            ..Self::dense()
        }
    }

    /// A preset by name (`dense`, `sparse`).
    pub fn preset(name: &str) -> Result<Self, String> {
        match name {
            "dense" => Ok(Self::dense()),
            "sparse" => Ok(Self::sparse()),
            _ => Err(format!("unknown address-space preset {name:?}; expected dense or sparse")),
        }
    }

    /// The regions of this layout, checked to lie in the user space and not
    /// to overlap.
    pub fn describe(&self) -> Result<SpaceDescription, String> {
        let page = |a: u64| a / PAGE_BYTES;
        let mut regions = Vec::new();
        for space in (0..self.processes).map(Asid) {
            let mut add = |kind, first_vpn, pages| {
                if pages > 0 {
                    regions.push(Region { space, kind, first_vpn: Vpn(first_vpn), pages });
                }
            };
            let text = page(TEXT_BASE);
            add(RegionKind::Text, text, self.text_pages);
            add(RegionKind::Data, text + self.text_pages, self.data_pages);
            add(RegionKind::Heap, text + self.text_pages + self.data_pages, self.heap_pages);
            add(RegionKind::Stack, page(USER_LIMIT.0) - self.main_stack_pages, self.main_stack_pages);
            for i in 0..self.shared_libraries {
                let base = page(self.library_base + i * self.library_spacing);
                add(RegionKind::SharedLibrary, base, self.library_text_pages);
                add(RegionKind::SharedLibrary, base + self.library_text_pages, self.library_data_pages);
            }
            for i in 0..self.thread_stacks {
                let top = page(self.stacks_top - i * self.stack_spacing);
                add(RegionKind::Stack, top - self.stack_pages, self.stack_pages);
            }
            for i in 0..self.mmap_regions {
                add(RegionKind::Mmap, page(self.mmap_base + i * self.mmap_spacing), self.mmap_pages);
            }
        }
        let d = SpaceDescription { name: self.name.clone(), regions };
        d.validate()?;
        Ok(d)
    }
}

/// The mapped pages of one or more address spaces, as regions.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SpaceDescription {
    pub name: String,
    pub regions: Vec<Region>,
}

impl SpaceDescription {
    /// Describes a set of touched pages (say, a trace's), one region per run
    /// of consecutive pages.
    pub fn from_pages(name: &str, pages: impl IntoIterator<Item = (Asid, Vpn)>) -> Self {
        let set: BTreeSet<(Asid, Vpn)> = pages.into_iter().collect();
        let mut regions: Vec<Region> = Vec::new();
        for (space, vpn) in set {
            match regions.last_mut() {
                Some(r) if r.space == space && r.first_vpn.0 + r.pages == vpn.0 => r.pages += 1,
                _ => regions.push(Region { space, kind: RegionKind::Touched, first_vpn: vpn, pages: 1 }),
            }
        }
        Self { name: name.into(), regions }
    }

    /// Every mapped (space, vpn), in region order.
    pub fn pages(&self) -> impl Iterator<Item = (Asid, Vpn)> + '_ {
        self.regions.iter().flat_map(|r| (r.first_vpn.0..r.first_vpn.0 + r.pages).map(move |v| (r.space, Vpn(v))))
    }

    pub fn page_count(&self) -> u64 {
        self.regions.iter().map(|r| r.pages).sum()
    }

    /// Every page below 2 GB, no page mapped twice.
    pub fn validate(&self) -> Result<(), String> {
        let mut seen = BTreeSet::new();
        for r in &self.regions {
            if (r.first_vpn.0 + r.pages) * PAGE_BYTES > USER_LIMIT.0 {
                return Err(format!(
                    "{}: {:?} region at {:#x} ({} pages) of space {} ends above the 2 GB user space",
                    self.name,
                    r.kind,
                    r.first_vpn.0 * PAGE_BYTES,
                    r.pages,
                    r.space
                ));
            }
            if !seen.insert((r.space, r.first_vpn)) {
                return Err(format!(
                    "{}: two regions start at page {:#x} of space {}",
                    self.name, r.first_vpn, r.space
                ));
            }
        }
        let n = self.pages().collect::<BTreeSet<_>>().len() as u64;
        if n != self.page_count() {
            return Err(format!("{}: regions overlap", self.name));
        }
        Ok(())
    }

    /// Moves pages above the 2 GB user space (a 64-bit program's libraries
    /// and stack) into it, so every organisation can map them.
    ///
    /// The space is cut into chunks, 256 MB (a segment) if that is enough,
    /// else 128 MB, 64 MB, ... down to 4 MB. Each chunk above 2 GB that holds
    /// pages takes, in address order, the lowest chunk below 2 GB no page
    /// uses; offsets within a chunk are kept. Pages below 2 GB stay put.
    /// Because no chunk is smaller than 4 MB -- what one page of a MIPS,
    /// MACH or PUMA user table or of an x86 2-level page table maps -- those
    /// tables need exactly the same number of pages after folding as a
    /// 64-bit space would need; only the placement of the chunks changes
    /// (which matters to the upper levels of x86-4level). An error when even
    /// 4 MB chunks do not fit.
    pub fn fold_into_user_space(&self) -> Result<Self, String> {
        const MIN_CHUNK_BITS: u32 = 22;
        const MAX_CHUNK_BITS: u32 = 28;
        let top_bits = USER_LIMIT.0.trailing_zeros();
        let spaces: BTreeSet<Asid> = self.regions.iter().map(|r| r.space).collect();
        let mut out = Vec::new();
        for space in spaces {
            let pages: Vec<u64> = self.pages().filter(|p| p.0 == space).map(|p| p.1 .0).collect();
            let mut folded = None;
            let mut chunks_needed = 0;
            for bits in (MIN_CHUNK_BITS..=MAX_CHUNK_BITS).rev() {
                let shift = bits - PAGE_BYTES.trailing_zeros();
                let below = 1u64 << (top_bits - bits);
                let used: BTreeSet<u64> = pages.iter().map(|v| v >> shift).collect();
                let high: Vec<u64> = used.iter().copied().filter(|&c| c >= below).collect();
                let free: Vec<u64> = (0..below).filter(|c| !used.contains(c)).collect();
                chunks_needed = high.len();
                if high.len() <= free.len() {
                    let moved: std::collections::BTreeMap<u64, u64> = high.into_iter().zip(free).collect();
                    folded = Some(
                        pages
                            .iter()
                            .map(|&v| moved.get(&(v >> shift)).map_or(v, |to| to << shift | (v & ((1 << shift) - 1))))
                            .collect::<Vec<u64>>(),
                    );
                    break;
                }
            }
            let folded = folded.ok_or_else(|| {
                format!(
                    "{}: space {space} uses {chunks_needed} 4 MB chunks above 2 GB, more than fit in the \
                     unused part of a 2 GB user space",
                    self.name
                )
            })?;
            out.extend(folded.into_iter().map(|v| (space, Vpn(v))));
        }
        Ok(Self::from_pages(&self.name, out))
    }
}

/// One organisation's cost for a description.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MemoryRow {
    pub table: TableKind,
    pub mapped_pages: u64,
    /// Whole frames the table occupies, in bytes.
    pub bytes: u64,
    /// Bytes of valid PTEs.
    pub useful_bytes: u64,
    /// `bytes / mapped_pages`.
    pub bytes_per_page: f64,
    pub parts: Vec<(String, u64)>,
    /// PA-RISC only: the hash chains.
    pub chains: Option<ChainStats>,
    /// Why the table could not map the description, if it could not.
    pub error: Option<String>,
}

/// Builds every organisation in `kinds` for `desc` on a machine of
/// `params.phys_frames` 4 KB frames. Data pages take frames from the same
/// pool as the table pages, in the order the description lists them.
pub fn memory_table(desc: &SpaceDescription, kinds: &[TableKind], params: &TableParams) -> Vec<MemoryRow> {
    kinds
        .iter()
        .map(|&kind| {
            let mapped_pages = desc.page_count();
            let mut row = MemoryRow {
                table: kind,
                mapped_pages,
                bytes: 0,
                useful_bytes: 0,
                bytes_per_page: 0.0,
                parts: Vec::new(),
                chains: None,
                error: None,
            };
            let mut pool = FramePool::new(PAGE_BYTES, 0, params.phys_frames);
            let fill = |t: &mut dyn PageTable, pool: &mut FramePool| -> Result<(), crate::TableError> {
                for (space, vpn) in desc.pages() {
                    let pfn = pool.alloc()?;
                    t.insert(space, vpn, pfn, pool)?;
                }
                Ok(())
            };
            let built = if kind == TableKind::Parisc {
                // Built directly (not boxed) to read its chain statistics.
                let hp = HashedParams {
                    phys_frames: params.phys_frames,
                    entries_per_frame: params.parisc_entries_per_frame,
                    entries: params.parisc_entries,
                };
                HashedInverted::new(&hp, &mut pool).and_then(|mut t| {
                    fill(&mut t, &mut pool)?;
                    row.chains = Some(t.chain_stats());
                    Ok(Box::new(t) as Box<dyn PageTable>)
                })
            } else {
                build(kind, params, &mut pool).and_then(|mut t| {
                    fill(&mut *t, &mut pool)?;
                    Ok(t)
                })
            };
            match built {
                Ok(t) => {
                    let m = t.memory();
                    row.bytes = m.bytes;
                    row.useful_bytes = m.useful_bytes;
                    row.bytes_per_page = if mapped_pages == 0 { 0.0 } else { m.bytes as f64 / mapped_pages as f64 };
                    row.parts = m.parts;
                }
                Err(e) => row.error = Some(e.to_string()),
            }
            row
        })
        .collect()
}
