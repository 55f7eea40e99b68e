//! Counters of one cache level. Integers only; serialised whole, never copied
//! field by field.

use serde::{Deserialize, Serialize};

/// The kind of a request as one cache level sees it. Fills caused by a write
/// miss arrive below as `Read`; dirty write-backs arrive as `Write`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RefKind {
    Ifetch = 0,
    Read = 1,
    Write = 2,
}

impl RefKind {
    pub const ALL: [RefKind; 3] = [RefKind::Ifetch, RefKind::Read, RefKind::Write];
    pub fn name(self) -> &'static str {
        match self {
            RefKind::Ifetch => "ifetch",
            RefKind::Read => "read",
            RefKind::Write => "write",
        }
    }
}

/// A data reference: a load or a store (a store dirties a write-back line
/// it hits). `Load` is 0 and `Store` 1, so converting a decoded store bit
/// costs nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum DataRef {
    Load = 0,
    Store = 1,
}

impl DataRef {
    /// The data reference a decoded trace word's store bit names.
    #[inline(always)]
    pub fn of_store_bit(store: bool) -> Self {
        if store {
            DataRef::Store
        } else {
            DataRef::Load
        }
    }
    /// Whether the reference writes the line.
    #[inline(always)]
    pub fn stores(self) -> bool {
        self == DataRef::Store
    }
}

/// Counts for one request kind at one level. `compulsory + capacity + conflict
/// == misses` when miss classification is on, all three zero when it is off.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct KindStats {
    pub accesses: u64,
    pub misses: u64,
    pub compulsory: u64,
    pub capacity: u64,
    pub conflict: u64,
}

impl KindStats {
    pub fn hits(&self) -> u64 {
        self.accesses - self.misses
    }
}

/// How many lines a flush or purge found in each state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlushStats {
    pub empty: u64,
    pub clean: u64,
    pub dirty: u64,
}

impl std::ops::AddAssign for FlushStats {
    fn add_assign(&mut self, o: Self) {
        self.empty += o.empty;
        self.clean += o.clean;
        self.dirty += o.dirty;
    }
}

/// Whether a miss brought its line in from the level below: a write of a
/// whole line, or one the level does not allocate, fetches nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fetch {
    Line,
    Nothing,
}

impl Fetch {
    #[inline(always)]
    pub fn when(fetched: bool) -> Self {
        if fetched {
            Fetch::Line
        } else {
            Fetch::Nothing
        }
    }
}

/// Whether a miss's victim was dirty, and so written back to the level below.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Writeback {
    Victim,
    Nothing,
}

impl Writeback {
    #[inline(always)]
    pub fn when(written: bool) -> Self {
        if written {
            Writeback::Victim
        } else {
            Writeback::Nothing
        }
    }
}

/// What a one-way level's borrowed view (`VirtualDirect::fill_deferred`,
/// `VirtualDirectBelow::access`) counts while it is lent, by `RefKind`:
/// kept in the view, next to its other fields, and added to the level's
/// `CacheStats` by the view's `settle`, so a miss costs two or three
/// increments instead of six updates through the stats' pointer
/// (accesses, misses, fetches and bytes each; bytes are lines times size).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct ViewCounts {
    pub(crate) hits: [u64; 3],
    pub(crate) misses: [u64; 3],
    pub(crate) fetches: u64,
    pub(crate) writebacks: u64,
}

impl ViewCounts {
    /// A miss of `kind`, as `CacheStats::count_miss` counts it.
    #[inline(always)]
    pub(crate) fn count_miss(&mut self, kind: RefKind, fetch: Fetch, writeback: Writeback) {
        self.misses[kind as usize] += 1;
        // Branches, not adds of the flags: LLVM paired those adds into a
        // vector add of a constant and a flag (six instructions); the
        // flags are known on the caller's paths.
        if fetch == Fetch::Line {
            self.fetches += 1;
        }
        if writeback == Writeback::Victim {
            self.writebacks += 1;
        }
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CacheStats {
    pub ifetch: KindStats,
    pub read: KindStats,
    pub write: KindStats,
    /// Line fills requested from the next level.
    pub fetches: u64,
    /// Dirty lines written back to the next level (by replacement or flush).
    pub writebacks: u64,
    /// Writes passed through to the next level (write-through, or a
    /// no-write-allocate write miss).
    pub write_throughs: u64,
    /// Bytes brought in from the next level.
    pub bytes_in: u64,
    /// Bytes sent to the next level.
    pub bytes_out: u64,
    /// Lines found by flushes (write back + invalidate).
    pub flushed: FlushStats,
    /// Lines found by purges (invalidate, no write-back).
    pub purged: FlushStats,
}

impl CacheStats {
    /// A miss of `kind` that allocated or not: its access and miss, the
    /// line fetched from below and the dirty victim written back, each a
    /// whole `line` of bytes.
    #[inline(always)]
    pub fn count_miss(&mut self, kind: RefKind, line: u64, fetch: Fetch, writeback: Writeback) {
        let ks = self.kind_mut(kind);
        ks.accesses += 1;
        ks.misses += 1;
        if fetch == Fetch::Line {
            self.fetches += 1;
            self.bytes_in += line;
        }
        if writeback == Writeback::Victim {
            self.writebacks += 1;
            self.bytes_out += line;
        }
    }

    /// Adds what a borrowed view of the level counted (`ViewCounts`), its
    /// lines `line` bytes, and clears it.
    pub(crate) fn settle(&mut self, c: &mut ViewCounts, line: u64) {
        for k in RefKind::ALL {
            let (hits, misses) = (c.hits[k as usize], c.misses[k as usize]);
            let ks = self.kind_mut(k);
            ks.accesses += hits + misses;
            ks.misses += misses;
        }
        self.fetches += c.fetches;
        self.bytes_in += c.fetches * line;
        self.writebacks += c.writebacks;
        self.bytes_out += c.writebacks * line;
        *c = ViewCounts::default();
    }

    pub fn kind(&self, k: RefKind) -> &KindStats {
        match k {
            RefKind::Ifetch => &self.ifetch,
            RefKind::Read => &self.read,
            RefKind::Write => &self.write,
        }
    }
    pub fn kind_mut(&mut self, k: RefKind) -> &mut KindStats {
        match k {
            RefKind::Ifetch => &mut self.ifetch,
            RefKind::Read => &mut self.read,
            RefKind::Write => &mut self.write,
        }
    }
    pub fn accesses(&self) -> u64 {
        RefKind::ALL.iter().map(|&k| self.kind(k).accesses).sum()
    }
    pub fn misses(&self) -> u64 {
        RefKind::ALL.iter().map(|&k| self.kind(k).misses).sum()
    }
}
