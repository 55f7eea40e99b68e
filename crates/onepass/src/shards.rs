//! A sampled one-pass sweep: SHARDS (Spatially Hashed Approximate Reuse
//! Distance Sampling; Waldspurger, Park, Garthwaite and Ahmad, FAST 2015),
//! fixed-rate, applied to the swept level of a pass.
//!
//! A line takes part iff `hash(line) mod P < T`, with P = 2^24 and
//! T = round(R P) for the rate R: every reference to a sampled line is
//! simulated, no reference to another one is, so the sampled lines keep
//! their whole reuse pattern, and about a fraction R of the lines (not of
//! the references) is kept. The reuse distances among sampled lines are
//! about R times the full ones, so each configuration is simulated as a
//! miniature of R times its lines (the paper's scaling, as its miniature
//! simulations of caches do): a cache of S sets of W ways becomes
//! round(S R) sets of W ways, or, when S R < 1, one set of round(S W R)
//! ways. The miniature's sets then each gather the sampled lines of about
//! 1/R of the full cache's sets, so a set-associative miniature is exact
//! only in expectation over sets that are loaded alike (its error is
//! measured, docs/performance.md). The line key hashed is the tag's line
//! (virtual or physical, with the address space when tags hold one).
//!
//! Counts are scaled as SHARDS-adj does: a count of the sample divided by
//! the effective rate T/P, so that a sample that caught more (or fewer)
//! references than R of them counts the difference as hits (the paper's
//! correction to the first histogram bucket). Accesses by kind, and the
//! write-throughs of a write-through level, are counted exactly (every
//! reference passes the level, sampled or not).
//!
//! Only bit-select indexing is sampled: a hashed index function (xor,
//! space-hash) needs a power-of-two set count the miniature may not have.

use vmlab_addr::{Asid, VirtAddr};
use vmlab_cache::{Assoc, CacheConfig, CacheStats, Geometry, IndexFn, LineRef, RefKind, WritePolicy};

use crate::stacks::{group_by, SweptLevel};

/// log2 of SHARDS's modulus P (the paper's 2^24).
const MODULUS_BITS: u32 = 24;

/// The sampling of a pass: the rate R and the hash's seed.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Sampling {
    pub rate: f64,
    #[serde(default)]
    pub seed: u64,
}

impl Sampling {
    /// T for this rate, or why the rate is not one.
    pub fn threshold(&self) -> Result<u64, String> {
        let p = (1u64 << MODULUS_BITS) as f64;
        if !(self.rate > 0.0 && self.rate <= 1.0) {
            return Err(format!("a sampling rate is in (0, 1], got {}", self.rate));
        }
        let t = (self.rate * p).round() as u64;
        if t == 0 {
            return Err(format!("a sampling rate of {} keeps no line (the smallest is 2^-{MODULUS_BITS})", self.rate));
        }
        Ok(t)
    }

    /// The rate actually applied, T / P.
    pub fn effective_rate(&self) -> Result<f64, String> {
        Ok(self.threshold()? as f64 / (1u64 << MODULUS_BITS) as f64)
    }
}

/// Why the cache `c` cannot be swept sampled, or `None`.
pub fn sample_refusal(c: &CacheConfig) -> Option<String> {
    (c.index != IndexFn::BitSelect).then(|| "a sampled sweep needs bit-select indexing".to_string())
}

/// `c` at `rate` of its lines (see the module's comment).
pub fn miniature(c: &CacheConfig, rate: f64) -> Result<CacheConfig, String> {
    let g = Geometry::new(c).map_err(|e| e.to_string())?;
    let scaled_sets = g.sets as f64 * rate;
    let (sets, ways) = if scaled_sets >= 1.0 {
        (scaled_sets.round() as u64, g.ways)
    } else {
        (1, ((g.sets * u64::from(g.ways)) as f64 * rate).round().max(1.0) as u32)
    };
    let mut m = c.clone();
    m.size = vmlab_addr::ByteSize(sets * u64::from(ways) * c.line.0);
    m.assoc = Assoc::Ways(ways);
    Ok(m)
}

/// The MurmurHash3 64-bit finalizer (Appleby): every input bit reaches
/// every output bit, so the low 24 bits of a line's hash are uniform even
/// for lines that differ only in high bits.
#[inline(always)]
fn fmix64(mut k: u64) -> u64 {
    k ^= k >> 33;
    k = k.wrapping_mul(0xff51_afd7_ed55_8ccd);
    k ^= k >> 33;
    k = k.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    k ^ (k >> 33)
}

/// Which references one group of configurations simulates.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Filter {
    /// Lines whose hash is below the threshold (SHARDS), into miniatures.
    Lines,
    /// Lines of the sampled sets of a cache of `sets` sets.
    Sets { sets: u64 },
}

/// Configurations simulated on one sample.
#[derive(Debug)]
struct Group {
    filter: Filter,
    /// The sets sampled (`Filter::Sets`), one flag per set.
    chosen: Vec<bool>,
    /// The fraction of lines (or sets) sampled: counts are divided by it.
    fraction: f64,
    level: SweptLevel,
    /// Whether the latest reference went to this group's sample (a repeat
    /// of it is then this sample's too).
    last_sampled: bool,
}

/// The swept level of a pass, sampled: a configuration of `S` sets with
/// `S R >= 1` is simulated on a hashed sample of its sets (each such set
/// exactly, every line of it); one with fewer sets on a hashed sample of
/// lines, as a miniature (SHARDS).
#[derive(Debug)]
pub struct SampledLevel {
    sampling: Sampling,
    threshold: u64,
    shift: u32,
    line: u64,
    tag_virtual: bool,
    tag_asid: bool,
    index_virtual: bool,
    configs: Vec<CacheConfig>,
    groups: Vec<Group>,
    /// Per configuration: (group, member).
    place: Vec<(usize, usize)>,
    accesses: [u64; 3],
    writes: u64,
    write_bytes: u64,
    write_back: bool,
    flushes: u64,
}

impl SampledLevel {
    pub fn new(configs: &[CacheConfig], sampling: Sampling) -> Result<Self, String> {
        let threshold = sampling.threshold()?;
        let rate = sampling.effective_rate()?;
        let first = configs.first().ok_or("a sampled sweep needs at least one configuration")?;
        if let Some(r) = configs.iter().find_map(sample_refusal) {
            return Err(r);
        }
        let below = |h: u64| h & ((1 << MODULUS_BITS) - 1) < threshold;
        // Per configuration: its filter, and itself as simulated.
        let plans = configs
            .iter()
            .map(|c| {
                let sets = Geometry::new(c).map_err(|e| e.to_string())?.sets;
                Ok(if sets as f64 * rate >= 1.0 {
                    (Filter::Sets { sets }, c.clone())
                } else {
                    (Filter::Lines, miniature(c, rate)?)
                })
            })
            .collect::<Result<Vec<_>, String>>()?;
        let mut groups = Vec::new();
        let mut place = vec![(0, 0); configs.len()];
        for (g, (filter, members)) in group_by(plans.iter().map(|(f, _)| *f)).into_iter().enumerate() {
            let simulated: Vec<CacheConfig> = members.iter().map(|&i| plans[i].1.clone()).collect();
            let (chosen, fraction) = match filter {
                Filter::Lines => (Vec::new(), rate),
                Filter::Sets { sets } => {
                    let hashes: Vec<u64> = (0..sets).map(|s| fmix64(s ^ sampling.seed)).collect();
                    let mut chosen: Vec<bool> = hashes.iter().map(|&h| below(h)).collect();
                    if !chosen.contains(&true) {
                        // A sample needs a set: the one of the smallest hash.
                        let least = (0..hashes.len()).min_by_key(|&s| hashes[s] & ((1 << MODULUS_BITS) - 1));
                        chosen[least.unwrap_or(0)] = true;
                    }
                    let n = chosen.iter().filter(|&&c| c).count();
                    (chosen, n as f64 / sets as f64)
                }
            };
            for (m, &i) in members.iter().enumerate() {
                place[i] = (g, m);
            }
            groups.push(Group { filter, chosen, fraction, level: SweptLevel::new(&simulated)?, last_sampled: false });
        }
        Ok(Self {
            sampling,
            threshold,
            shift: first.line.0.trailing_zeros(),
            line: first.line.0,
            tag_virtual: first.indexing.tag_is_virtual(),
            tag_asid: first.asid_tags,
            index_virtual: first.indexing.index_is_virtual(),
            configs: configs.to_vec(),
            groups,
            place,
            accesses: [0; 3],
            writes: 0,
            write_bytes: 0,
            write_back: first.write == WritePolicy::WriteBack,
            flushes: 0,
        })
    }

    pub fn sampling(&self) -> Sampling {
        self.sampling
    }

    #[inline(always)]
    pub fn count_repeats(&mut self, kind: RefKind, n: u64, size: u64) {
        self.accesses[kind as usize] += n;
        if kind == RefKind::Write {
            self.writes += n;
            self.write_bytes += n * size;
        }
        for g in &mut self.groups {
            if g.last_sampled {
                g.level.count_repeats(kind, n, size);
            }
        }
    }

    #[inline]
    pub fn access(&mut self, kind: RefKind, r: LineRef, size: u64) {
        let (va, pa, asid) = (r.vaddr.0, r.paddr.0, r.asid.0);
        self.accesses[kind as usize] += 1;
        if kind == RefKind::Write {
            self.writes += 1;
            self.write_bytes += size;
        }
        let tag_line = if self.tag_virtual { va >> self.shift } else { pa >> self.shift };
        let index_line = if self.index_virtual { va >> self.shift } else { pa >> self.shift };
        let space = if self.tag_asid { fmix64(u64::from(asid) + 1) } else { 0 };
        let line_sampled = fmix64(tag_line ^ space ^ self.sampling.seed) & ((1 << MODULUS_BITS) - 1) < self.threshold;
        for g in &mut self.groups {
            g.last_sampled = match g.filter {
                Filter::Lines => line_sampled,
                Filter::Sets { sets } => {
                    // Set counts are mostly powers of two: a mask, not a division.
                    let set = if sets.is_power_of_two() { index_line & (sets - 1) } else { index_line % sets };
                    g.chosen[set as usize]
                }
            };
            if g.last_sampled {
                g.level.access(kind, r, size);
            }
        }
    }

    pub fn flush(&mut self) {
        self.flushes += 1;
        for g in &mut self.groups {
            g.level.flush();
            g.last_sampled = false;
        }
    }

    /// `SweptLevel::settle` of every sample.
    pub fn settle(&mut self) {
        for g in &mut self.groups {
            g.level.settle();
        }
    }

    /// Configuration `i`'s counters, estimated from its sample's: each
    /// count divided by the fraction sampled.
    pub fn stats(&self, i: usize) -> CacheStats {
        let (g, j) = self.place[i];
        let group = &self.groups[g];
        let m = group.level.stats(j);
        let scale = |n: u64| (n as f64 / group.fraction).round() as u64;
        let mut st = CacheStats::default();
        for k in RefKind::ALL {
            let (own, mk) = (st.kind_mut(k), m.kind(k));
            own.accesses = self.accesses[k as usize];
            own.misses = scale(mk.misses).min(own.accesses);
        }
        let misses = st.ifetch.misses + st.read.misses + st.write.misses;
        st.fetches = scale(m.fetches).min(misses);
        st.bytes_in = st.fetches * self.line;
        let lines = Geometry::new(&self.configs[i]).map_or(0, |g| g.sets * u64::from(g.ways));
        st.flushed.dirty = scale(m.flushed.dirty);
        st.flushed.clean = scale(m.flushed.clean);
        st.flushed.empty = (self.flushes * lines).saturating_sub(st.flushed.dirty + st.flushed.clean);
        st.writebacks = scale(m.writebacks - m.flushed.dirty) + st.flushed.dirty;
        st.bytes_out = st.writebacks * self.line;
        if !self.write_back {
            st.write_throughs = self.writes;
            st.bytes_out += self.write_bytes;
        }
        st
    }

    pub fn config(&self, i: usize) -> &CacheConfig {
        &self.configs[i]
    }

    pub fn line_bytes(&self) -> u64 {
        self.line
    }
}

/// The swept level of a pass: exact, or sampled.
#[derive(Debug)]
pub enum Level {
    Exact(SweptLevel),
    Sampled(SampledLevel),
}

impl Level {
    pub fn new(configs: &[CacheConfig], sampling: Option<Sampling>) -> Result<Self, String> {
        Ok(match sampling {
            None => Level::Exact(SweptLevel::new(configs)?),
            Some(s) => Level::Sampled(SampledLevel::new(configs, s)?),
        })
    }

    pub fn sampling(&self) -> Option<Sampling> {
        match self {
            Level::Exact(_) => None,
            Level::Sampled(s) => Some(s.sampling()),
        }
    }

    /// Lines whose stamp the level holds (`SweptLevel::stamps_held`).
    pub fn stamps_held(&self) -> usize {
        match self {
            Level::Exact(l) => l.stamps_held(),
            Level::Sampled(l) => l.groups.iter().map(|g| g.level.stamps_held()).sum(),
        }
    }

    /// Look-ups that set refinement answered (`SweptLevel::refined`).
    pub fn refined(&self) -> u64 {
        match self {
            Level::Exact(l) => l.refined(),
            Level::Sampled(l) => l.groups.iter().map(|g| g.level.refined()).sum(),
        }
    }

    pub fn line_bytes(&self) -> u64 {
        match self {
            Level::Exact(l) => l.line_bytes(),
            Level::Sampled(l) => l.line_bytes(),
        }
    }

    /// See `SweptLevel::repeats`; a sampled level proves no repeat ahead
    /// of translation (its references all translate).
    #[inline(always)]
    pub fn repeats(&self, kind: RefKind, va: VirtAddr, asid: Asid) -> bool {
        match self {
            Level::Exact(l) => l.repeats(kind, va, asid),
            Level::Sampled(_) => false,
        }
    }

    #[inline(always)]
    pub fn count_repeats(&mut self, kind: RefKind, n: u64, size: u64) {
        match self {
            Level::Exact(l) => l.count_repeats(kind, n, size),
            Level::Sampled(l) => l.count_repeats(kind, n, size),
        }
    }

    #[inline]
    pub fn access(&mut self, kind: RefKind, r: LineRef, size: u64) {
        match self {
            Level::Exact(l) => l.access(kind, r, size),
            Level::Sampled(l) => l.access(kind, r, size),
        }
    }

    pub fn flush(&mut self) {
        match self {
            Level::Exact(l) => l.flush(),
            Level::Sampled(l) => l.flush(),
        }
    }

    /// Brings the write-backs up to date for `stats` (`SweptLevel::settle`).
    pub fn settle(&mut self) {
        match self {
            Level::Exact(l) => l.settle(),
            Level::Sampled(l) => l.settle(),
        }
    }

    pub fn stats(&self, i: usize) -> CacheStats {
        match self {
            Level::Exact(l) => l.stats(i),
            Level::Sampled(l) => l.stats(i),
        }
    }

    pub fn config(&self, i: usize) -> &CacheConfig {
        match self {
            Level::Exact(l) => l.config(i),
            Level::Sampled(l) => l.config(i),
        }
    }
}
