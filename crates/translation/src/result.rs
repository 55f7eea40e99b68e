//! What a translating run reports: VMCPI by component, Table 1's event
//! fractions, Table 5's L2 misses per 1,000 instructions, TLB and handler
//! counts, page-table memory, and every cache's statistics.

use serde::{Deserialize, Serialize};
use vmlab_cache::CacheStats;
use vmlab_machine::{MemoryStats, Reached};
use vmlab_mmu::{NamedTlbStats, TableMemory, TlbStats};

use crate::memsys::L1;

/// What the TLB did for a user reference: Table 1's two columns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TlbLookup {
    Hit,
    Miss,
}

impl TlbLookup {
    /// The lookup a simulator's `tlb_miss` flag records.
    #[inline(always)]
    pub fn of_miss(tlb_miss: bool) -> Self {
        if tlb_miss {
            TlbLookup::Miss
        } else {
            TlbLookup::Hit
        }
    }
}

/// User references of one side (I or D) by where they were served and
/// whether the TLB missed: Table 1's six events.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SideEvents {
    pub l1_hit_tlb_hit: u64,
    pub l1_hit_tlb_miss: u64,
    pub l2_hit_tlb_hit: u64,
    pub l2_hit_tlb_miss: u64,
    pub l2_miss_tlb_hit: u64,
    pub l2_miss_tlb_miss: u64,
}

impl SideEvents {
    pub fn count(&mut self, level: Reached, tlb: TlbLookup) {
        let c = match (level, tlb) {
            (L1, TlbLookup::Hit) => &mut self.l1_hit_tlb_hit,
            (L1, TlbLookup::Miss) => &mut self.l1_hit_tlb_miss,
            (Reached::Memory, TlbLookup::Hit) => &mut self.l2_miss_tlb_hit,
            (Reached::Memory, TlbLookup::Miss) => &mut self.l2_miss_tlb_miss,
            // A translating machine has two levels: below L1 is its L2.
            (Reached::Level(_), TlbLookup::Hit) => &mut self.l2_hit_tlb_hit,
            (Reached::Level(_), TlbLookup::Miss) => &mut self.l2_hit_tlb_miss,
        };
        *c += 1;
    }

    pub fn total(&self) -> u64 {
        self.l1_hit_tlb_hit
            + self.l1_hit_tlb_miss
            + self.l2_hit_tlb_hit
            + self.l2_hit_tlb_miss
            + self.l2_miss_tlb_hit
            + self.l2_miss_tlb_miss
    }

    /// User references that missed L2 (Table 5's numerator).
    pub fn l2_misses(&self) -> u64 {
        self.l2_miss_tlb_hit + self.l2_miss_tlb_miss
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VmcpiRow {
    pub component: String,
    pub events: u64,
    pub cycles: u64,
    pub frequency: f64,
    pub vmcpi: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NamedCache {
    pub name: String,
    pub stats: CacheStats,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct VmResult {
    pub config: String,
    pub scheme: String,
    pub trace: String,
    pub user_instructions: u64,
    /// Trace events by kind: ifetch, load, store, modify.
    pub accesses: [u64; 4],
    pub vmcpi: f64,
    pub vm_cycles: u64,
    pub components: Vec<VmcpiRow>,
    /// Table 1: user references (L1-line pieces) per event, I-side and D-side.
    pub i_side: SideEvents,
    pub d_side: SideEvents,
    pub has_tlb: bool,
    /// Table 5: user L2 misses per 1,000 user instructions.
    pub l2i_misses_per_kinstr: f64,
    pub l2d_misses_per_kinstr: f64,
    /// The main TLB of each side (a unified TLB's for both).
    pub itlb: Option<TlbStats>,
    pub dtlb: Option<TlbStats>,
    /// Every TLB of the set, micro-TLBs included.
    pub tlbs: Vec<NamedTlbStats>,
    /// Handler executions: user, kernel, root, MACH root.
    pub handler_runs: [u64; 4],
    pub handler_fetches: u64,
    pub pte_loads: u64,
    pub admin_loads: u64,
    /// Hardware walks (INTEL, SPUR).
    pub walker_refills: u64,
    /// SOFTVM/SPUR translations of lines other than the demand line
    /// (write-backs, section 5.5).
    pub writeback_translations: u64,
    pub context_switches: u64,
    pub flushes: u64,
    /// Section 5.6: protection changes made, their sweep cycles, and those
    /// cycles per user instruction (kept apart from the Table 2 VMCPI).
    pub protection_changes: u64,
    pub protection_cycles: u64,
    pub protection_cpi: f64,
    pub page_table: Option<TableMemory>,
    pub page_table_kind: Option<String>,
    pub folded_regions: u64,
    pub caches: Vec<NamedCache>,
    pub memory: MemoryStats,
}
