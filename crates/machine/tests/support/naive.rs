//! A deliberately naive reference simulator, written apart from the engine
//! from the rules in docs/reference-semantics.md. Slow and plain: sets are
//! vectors of optional lines, recency is an explicit list, the 3C shadow is a
//! list scanned linearly. The property tests demand the engine agree with it
//! on every counter.

#![allow(dead_code, clippy::unwrap_used, clippy::panic, clippy::large_enum_variant)]

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;
use std::collections::{HashMap, HashSet};
use vmlab_cache::{
    Assoc, CacheConfig, CacheStats, IndexFn, Indexing, RefKind, Replacement, WriteMissPolicy, WritePolicy,
};
use vmlab_trace::{AccessKind, Event};

#[derive(Clone, Debug)]
struct Line {
    key: u64,
    asid: u32,
    vaddr: u64,
    paddr: u64,
    dirty: bool,
}

pub struct NaiveCache {
    pub name: String,
    cfg: CacheConfig,
    line: u64,
    nsets: u64,
    ways: usize,
    sets: Vec<Vec<Option<Line>>>,
    /// Way numbers, most recent first (LRU: by use; FIFO: by fill).
    order: Vec<Vec<usize>>,
    tree: Vec<Vec<bool>>,
    rng: Pcg64Mcg,
    classify: bool,
    fa: Vec<(u64, u32)>,
    seen: HashSet<(u64, u32)>,
    pub stats: CacheStats,
}

impl NaiveCache {
    pub fn new(name: &str, cfg: &CacheConfig, classify: bool) -> Self {
        let line = cfg.line.0;
        let lines = cfg.size.0 / line;
        let ways = match cfg.assoc {
            Assoc::Full => lines as usize,
            Assoc::Ways(w) => w as usize,
        };
        let nsets = lines / ways as u64;
        Self {
            name: name.into(),
            cfg: cfg.clone(),
            line,
            nsets,
            ways,
            sets: vec![vec![None; ways]; nsets as usize],
            order: vec![Vec::new(); nsets as usize],
            tree: vec![vec![false; ways.saturating_sub(1)]; nsets as usize],
            rng: Pcg64Mcg::seed_from_u64(cfg.seed),
            classify,
            fa: Vec::new(),
            seen: HashSet::new(),
            stats: CacheStats::default(),
        }
    }

    fn set_index(&self, vaddr: u64, paddr: u64, asid: u32) -> usize {
        let virt_index = matches!(self.cfg.indexing, Indexing::Vivt | Indexing::Vipt);
        let a = if virt_index { vaddr } else { paddr };
        let ln = a / self.line;
        let v = match self.cfg.index {
            IndexFn::BitSelect => ln,
            IndexFn::Xor => ln ^ (ln / self.nsets),
            IndexFn::SpaceHash => {
                let space = (asid as u64) % (1u64 << self.cfg.space_hash_bits);
                (a ^ (space << self.cfg.space_hash_at)) / self.line
            }
        };
        (v % self.nsets) as usize
    }

    fn key(&self, vaddr: u64, paddr: u64) -> u64 {
        if self.cfg.indexing == Indexing::Vivt {
            vaddr / self.line
        } else {
            paddr / self.line
        }
    }

    fn matches(&self, l: &Line, key: u64, asid: u32) -> bool {
        l.key == key && (!self.cfg.asid_tags || l.asid == asid)
    }

    fn tree_touch(&mut self, set: usize, way: usize) {
        // Walk from the root; at each node remember to go the other way next time.
        let (mut node, mut lo, mut span) = (0, 0, self.ways);
        while span > 1 {
            span /= 2;
            if way >= lo + span {
                self.tree[set][node] = false;
                lo += span;
                node = 2 * node + 2;
            } else {
                self.tree[set][node] = true;
                node = 2 * node + 1;
            }
        }
    }

    fn tree_victim(&self, set: usize) -> usize {
        let (mut node, mut lo, mut span) = (0, 0, self.ways);
        while span > 1 {
            span /= 2;
            if self.tree[set][node] {
                lo += span;
                node = 2 * node + 2;
            } else {
                node = 2 * node + 1;
            }
        }
        lo
    }

    fn use_way(&mut self, set: usize, way: usize, filled: bool) {
        match self.cfg.replacement {
            Replacement::Lru => {
                self.order[set].retain(|&w| w != way);
                self.order[set].insert(0, way);
            }
            Replacement::Fifo => {
                if filled {
                    self.order[set].retain(|&w| w != way);
                    self.order[set].insert(0, way);
                }
            }
            Replacement::TreePlru => self.tree_touch(set, way),
            Replacement::Random => {}
        }
    }

    fn fa_access(&mut self, key: (u64, u32), allocate: bool) -> bool {
        let capacity = (self.cfg.size.0 / self.line) as usize;
        if let Some(p) = self.fa.iter().position(|&k| k == key) {
            if !matches!(self.cfg.replacement, Replacement::Fifo) {
                let k = self.fa.remove(p);
                self.fa.insert(0, k);
            }
            return true;
        }
        if allocate {
            if self.fa.len() == capacity {
                self.fa.pop();
            }
            self.fa.insert(0, key);
        }
        false
    }

    /// Returns (fetch, write_through, dirty victim (vaddr, paddr, asid)).
    pub fn access(
        &mut self,
        vaddr: u64,
        paddr: u64,
        asid: u32,
        kind: RefKind,
        size: u64,
    ) -> (bool, bool, Option<(u64, u64, u32)>) {
        let set = self.set_index(vaddr, paddr, asid);
        let key = self.key(vaddr, paddr);
        let way = (0..self.ways).find(|&w| self.sets[set][w].as_ref().is_some_and(|l| self.matches(l, key, asid)));
        let write = kind == RefKind::Write;
        let allocate = !write || self.cfg.write_miss == WriteMissPolicy::WriteAllocate;
        let mut victim = None;
        let mut absorbed = false;
        if way.is_some() || allocate {
            let w = match way {
                Some(w) => {
                    self.use_way(set, w, false);
                    w
                }
                None => {
                    let w = match (0..self.ways).find(|&w| self.sets[set][w].is_none()) {
                        Some(w) => w,
                        None => match self.cfg.replacement {
                            Replacement::Lru | Replacement::Fifo => *self.order[set].last().unwrap(),
                            Replacement::TreePlru => self.tree_victim(set),
                            Replacement::Random => self.rng.gen_range(0..self.ways),
                        },
                    };
                    if let Some(old) = self.sets[set][w].take() {
                        if old.dirty {
                            victim = Some((old.vaddr, old.paddr, old.asid));
                        }
                    }
                    let mask = !(self.line - 1);
                    self.sets[set][w] =
                        Some(Line { key, asid, vaddr: vaddr & mask, paddr: paddr & mask, dirty: false });
                    self.use_way(set, w, true);
                    w
                }
            };
            if write && self.cfg.write == WritePolicy::WriteBack {
                self.sets[set][w].as_mut().unwrap().dirty = true;
                absorbed = true;
            }
        }
        let hit = way.is_some();
        let fetch = !hit && (!write || (allocate && size != self.line));
        let wt = write && !absorbed;
        let classify = self.classify;
        let fa_key = (key, if self.cfg.asid_tags { asid } else { 0 });
        let fa_hit = if classify { self.fa_access(fa_key, allocate) } else { false };
        let line = self.line;
        let st = self.stats.kind_mut(kind);
        st.accesses += 1;
        if !hit {
            st.misses += 1;
            if classify {
                if fa_hit {
                    st.conflict += 1;
                } else if self.seen.insert(fa_key) {
                    st.compulsory += 1;
                } else {
                    st.capacity += 1;
                }
            }
        }
        if fetch {
            self.stats.fetches += 1;
            self.stats.bytes_in += line;
        }
        if wt {
            self.stats.write_throughs += 1;
            self.stats.bytes_out += size;
        }
        if victim.is_some() {
            self.stats.writebacks += 1;
            self.stats.bytes_out += line;
        }
        (fetch, wt, victim)
    }

    /// Flush everything: returns dirty lines, counts empty/clean/dirty.
    pub fn flush_all(&mut self) -> Vec<(u64, u64, u32)> {
        let mut dirty = Vec::new();
        for set in 0..self.sets.len() {
            for w in 0..self.ways {
                match self.sets[set][w].take() {
                    None => self.stats.flushed.empty += 1,
                    Some(l) => {
                        let k = (l.key, if self.cfg.asid_tags { l.asid } else { 0 });
                        self.fa.retain(|&x| x != k);
                        if l.dirty {
                            self.stats.flushed.dirty += 1;
                            self.stats.writebacks += 1;
                            self.stats.bytes_out += self.line;
                            dirty.push((l.vaddr, l.paddr, l.asid));
                        } else {
                            self.stats.flushed.clean += 1;
                        }
                    }
                }
            }
            self.order[set].clear();
            self.tree[set].iter_mut().for_each(|b| *b = false);
        }
        dirty
    }
}

pub enum NaiveTier {
    Unified(NaiveCache),
    Split(NaiveCache, NaiveCache),
}

pub struct NaiveMachine {
    pub tiers: Vec<NaiveTier>,
    page: u64,
    frames: HashMap<(u32, u64), u64>,
    next_frame: u64,
    pub mem_reads: u64,
    pub mem_writes: u64,
    pub mem_bytes_read: u64,
    pub mem_bytes_written: u64,
}

impl NaiveMachine {
    pub fn new(tiers: Vec<NaiveTier>, page: u64) -> Self {
        Self {
            tiers,
            page,
            frames: HashMap::new(),
            next_frame: 0,
            mem_reads: 0,
            mem_writes: 0,
            mem_bytes_read: 0,
            mem_bytes_written: 0,
        }
    }

    fn cache(&mut self, t: usize, kind: RefKind) -> &mut NaiveCache {
        match &mut self.tiers[t] {
            NaiveTier::Unified(c) => c,
            NaiveTier::Split(i, d) => {
                if kind == RefKind::Ifetch {
                    i
                } else {
                    d
                }
            }
        }
    }

    fn translate(&mut self, asid: u32, va: u64) -> u64 {
        let next = &mut self.next_frame;
        let f = *self.frames.entry((asid, va / self.page)).or_insert_with(|| {
            *next += 1;
            *next - 1
        });
        f * self.page + va % self.page
    }

    pub fn share(&mut self, asid: u32, owner_va: u64, alias_asid: u32, alias_va: u64) {
        self.translate(asid, owner_va);
        let f = self.frames[&(asid, owner_va / self.page)];
        self.frames.insert((alias_asid, alias_va / self.page), f);
    }

    fn request(&mut self, t: usize, kind: RefKind, va: u64, pa: u64, asid: u32, size: u64) {
        if t == self.tiers.len() {
            if kind == RefKind::Write {
                self.mem_writes += 1;
                self.mem_bytes_written += size;
            } else {
                self.mem_reads += 1;
                self.mem_bytes_read += size;
            }
            return;
        }
        let line = self.cache(t, kind).line;
        let mut a = va;
        while a < va + size {
            let end = ((a / line) + 1) * line;
            let n = end.min(va + size) - a;
            let p = pa + (a - va);
            let (fetch, wt, victim) = self.cache(t, kind).access(a, p, asid, kind, n);
            if fetch {
                let k = if kind == RefKind::Ifetch { RefKind::Ifetch } else { RefKind::Read };
                self.request(t + 1, k, a / line * line, p / line * line, asid, line);
            }
            if wt {
                self.request(t + 1, RefKind::Write, a, p, asid, n);
            }
            if let Some((v, pp, s)) = victim {
                self.request(t + 1, RefKind::Write, v, pp, s, line);
            }
            a = end;
        }
    }

    fn top(&mut self, kind: RefKind, va: u64, size: u64, asid: u32) {
        let line = self.cache(0, kind).line;
        let mut a = va;
        while a < va + size {
            let end = ((a / line) + 1) * line;
            let n = end.min(va + size) - a;
            let p = self.translate(asid, a);
            self.request(0, kind, a, p, asid, n);
            a = end;
        }
    }

    pub fn event(&mut self, e: &Event) {
        match e {
            Event::Access(a) => {
                let size = u64::from(a.size.max(1));
                let (va, asid) = (a.addr.0, a.asid.0);
                match a.kind {
                    AccessKind::Ifetch => self.top(RefKind::Ifetch, va, size, asid),
                    AccessKind::Load => self.top(RefKind::Read, va, size, asid),
                    AccessKind::Store => self.top(RefKind::Write, va, size, asid),
                    AccessKind::Modify => {
                        self.top(RefKind::Read, va, size, asid);
                        self.top(RefKind::Write, va, size, asid);
                    }
                }
            }
            Event::ContextSwitch(_) | Event::Syscall(_) | Event::SyscallArg(_) => {}
            Event::FlushAll => {
                for t in 0..self.tiers.len() {
                    let mut out = Vec::new();
                    match &mut self.tiers[t] {
                        NaiveTier::Unified(c) => out.push((c.flush_all(), c.line)),
                        NaiveTier::Split(i, d) => {
                            out.push((i.flush_all(), i.line));
                            out.push((d.flush_all(), d.line));
                        }
                    }
                    for (lines, line) in out {
                        for (v, p, s) in lines {
                            self.request(t + 1, RefKind::Write, v, p, s, line);
                        }
                    }
                }
            }
        }
    }

    pub fn caches(&self) -> Vec<&NaiveCache> {
        let mut v = Vec::new();
        for t in &self.tiers {
            match t {
                NaiveTier::Unified(c) => v.push(c),
                NaiveTier::Split(i, d) => {
                    v.push(i);
                    v.push(d);
                }
            }
        }
        v
    }
}
