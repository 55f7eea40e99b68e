//! Traces drive the OS model: every data reference of an [`EventSource`]
//! becomes a user access of the simulated OS, so the page faults, the hat's
//! work, the TLB and the cache (with the consistency oracle on or off) all
//! follow from a real program's references.
//!
//! Model (documented in `docs/os.md`, "Traces through the OS model"):
//!
//! * each trace ASID met for the first time gets an address space (space
//!   ids 1, 2, ... in order of appearance; 0 is the kernel's) holding one
//!   shared anonymous region over the whole user space, so the first touch
//!   of a page is exactly one zero-fill fault and later touches fault never;
//! * loads are reads, stores writes, modifies one write (the load half hits
//!   the same line); instruction fetches are counted and skipped, because
//!   the OS model simulates the data side only (see `cpu.rs`);
//! * a reference crossing a page is split at the boundary;
//! * the model's user space ends at [`USER_LIMIT`] (the kernel window sits
//!   above). Higher trace addresses (an x86-64 stack) are folded to
//!   `va mod USER_LIMIT`, which keeps every cache index and page colour; a
//!   trace in which two touched pages fold onto one is refused, naming the
//!   event, since it would silently alias them;
//! * `FlushAll` markers write back and invalidate the data cache, uncounted.

use std::collections::BTreeMap;

use serde::Serialize;
use vmlab_machine::MachineConfig;
use vmlab_trace::{AccessKind, Event, EventSource};

use crate::cost::{CostModel, Counters};
use crate::cpu::DataRef;
use crate::oracle::Violation;
use crate::policy::Policy;
use crate::prot::Prot;
use crate::vm::{FaultCounts, ObjectKind, Os, Region};
use vmlab_addr::layout::USER_LIMIT;
use vmlab_addr::Asid;

/// Violations kept in full in an outcome; the rest are only counted.
pub const KEPT_VIOLATIONS: usize = 100;

#[derive(Clone, Debug, Serialize)]
pub struct TraceOutcome {
    pub machine: String,
    pub policy: String,
    pub events: u64,
    /// Data references simulated (after splitting at page boundaries).
    pub accesses: u64,
    pub ifetches_skipped: u64,
    pub flushes: u64,
    /// Trace ASID -> address space id, in order of appearance.
    pub spaces: BTreeMap<Asid, Asid>,
    /// Distinct pages touched whose address was folded below the user limit.
    pub folded_pages: u64,
    pub counters: Counters,
    pub faults: FaultCounts,
    pub violation_count: u64,
    /// The first [`KEPT_VIOLATIONS`] violations.
    pub violations: Vec<Violation>,
    pub oracle_checks: u64,
}

/// Runs `src` through an OS on `machine` with `cost` and `policy`;
/// `oracle` turns the consistency oracle on. Errors name the event.
pub fn run_trace(
    src: &mut dyn EventSource,
    machine: &MachineConfig,
    cost: CostModel,
    policy: Policy,
    oracle: bool,
) -> Result<TraceOutcome, String> {
    let mut os = Os::new(machine, cost, policy, oracle)?;
    let page = os.page_bytes();
    let mut out = TraceOutcome {
        machine: machine.name.clone(),
        policy: policy.name().to_string(),
        events: 0,
        accesses: 0,
        ifetches_skipped: 0,
        flushes: 0,
        spaces: BTreeMap::new(),
        folded_pages: 0,
        counters: Counters::default(),
        faults: FaultCounts::default(),
        violation_count: 0,
        violations: Vec::new(),
        oracle_checks: 0,
    };
    // (space, folded page) -> the unfolded page that owns it.
    let mut owner: BTreeMap<(Asid, u64), u64> = BTreeMap::new();
    let mut buf = Vec::new();
    while src.fill(&mut buf).map_err(|e| format!("trace: {e}"))? {
        for ev in &buf {
            let n = out.events;
            out.events += 1;
            let a = match ev {
                Event::Access(a) => a,
                Event::ContextSwitch(_) => {
                    os.cpu().context_switch();
                    continue;
                }
                Event::Syscall(_) | Event::SyscallArg(_) => continue,
                Event::FlushAll => {
                    os.cpu().reset_cache();
                    out.flushes += 1;
                    continue;
                }
            };
            if a.kind == AccessKind::Ifetch {
                out.ifetches_skipped += 1;
                continue;
            }
            let next = Asid(out.spaces.len() as u32 + 1);
            let space = *out.spaces.entry(a.asid).or_insert(next);
            if space == next {
                let obj = os
                    .object(&format!("trace asid {}", a.asid.0), ObjectKind::Anonymous, USER_LIMIT.0 / page)
                    .map_err(|e| format!("trace event {n}: {e}"))?;
                os.map(
                    space,
                    Region { start: 0, len: USER_LIMIT.0, object: obj, offset: 0, prot: Prot::RW, private: false },
                )
                .map_err(|e| format!("trace event {n}: {e}"))?;
            }
            let op =
                if matches!(a.kind, AccessKind::Store | AccessKind::Modify) { DataRef::Store } else { DataRef::Load };
            let (mut va, end) = (a.addr.0, a.addr.0.saturating_add(u64::from(a.size.max(1))));
            while va < end {
                let chunk = (page - va % page).min(end - va);
                let folded = va % USER_LIMIT.0;
                let fpage = folded - folded % page;
                let vpage = va - va % page;
                match owner.get(&(space, fpage)) {
                    Some(&o) if o != vpage => {
                        return Err(format!(
                            "trace event {n}: page {vpage:#x} of asid {} folds onto page {o:#x} below the {USER_LIMIT:#x} user limit of the OS model",
                            a.asid.0
                        ))
                    }
                    Some(_) => {}
                    None => {
                        owner.insert((space, fpage), vpage);
                        if vpage != fpage {
                            out.folded_pages += 1;
                        }
                    }
                }
                os.access(space, folded, op, chunk, "trace").map_err(|e| format!("trace event {n}: {e}"))?;
                out.accesses += 1;
                va += chunk;
            }
        }
    }
    out.counters = os.counters();
    out.faults = os.faults();
    out.violation_count = os.violations().len() as u64;
    out.violations = os.violations().iter().take(KEPT_VIOLATIONS).cloned().collect();
    out.oracle_checks = os.cpu().oracle_checks();
    Ok(out)
}
