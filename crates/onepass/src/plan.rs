//! Which configurations can share one pass, and why others cannot.
//!
//! A pass sweeps one cache, the *swept* level, over sizes and
//! associativities; everything else is one machine. It is exact when:
//!
//! | condition | why |
//! |---|---|
//! | the swept cache is in the last level | a level's misses depend on its size, so the stream below it would differ per configuration |
//! | every configuration is equal but for the swept cache's `size` and `assoc` (and names, descriptions, sources, its `seed`) | the levels above see the same references in every configuration; the page mapper hands out the same frames (page colours included) |
//! | the swept cache is LRU, or direct-mapped in every configuration | the stack (inclusion) property: see `stacks.rs` |
//! | it allocates on a write miss | a write miss that does not allocate leaves recency alone in some configurations and not in others |
//! | no 3C classification | the shadow of each capacity would need its own fully associative stack (not done) |
//!
//! The levels above the swept one may be anything (any policy, indexing,
//! tags); they are simulated once, with the engine's `Cache`.

use std::collections::HashMap;

use vmlab_addr::ByteSize;
use vmlab_cache::{Assoc, CacheConfig, Geometry, Replacement, WriteMissPolicy};
use vmlab_machine::config::LevelConfig;
use vmlab_machine::mapper::FrameAllocation;
use vmlab_machine::MachineConfig;

/// A group of configurations run together: one pass sweeping `swept`, or
/// (`swept` `None`) one configuration run alone.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Pass {
    pub swept: Option<String>,
    pub members: Vec<usize>,
}

/// The cache names of a configuration's last level.
fn last_level(config: &MachineConfig) -> Vec<String> {
    match config.levels().ok().and_then(|t| t.last().cloned()) {
        Some(LevelConfig::Unified { name, .. }) => vec![name],
        Some(LevelConfig::Split { i_name, d_name, .. }) => vec![i_name, d_name],
        None => Vec::new(),
    }
}

fn cache_mut<'a>(config: &'a mut MachineConfig, name: &str) -> Option<&'a mut CacheConfig> {
    match name {
        "l1" => config.l1.as_mut(),
        "l1i" => config.l1i.as_mut(),
        "l1d" => config.l1d.as_mut(),
        "l2" => config.l2.as_mut(),
        "l2i" => config.l2i.as_mut(),
        "l2d" => config.l2d.as_mut(),
        "l3" => config.l3.as_mut(),
        "l3i" => config.l3i.as_mut(),
        "l3d" => config.l3d.as_mut(),
        "l4" => config.l4.as_mut(),
        "l4i" => config.l4i.as_mut(),
        "l4d" => config.l4d.as_mut(),
        _ => None,
    }
}

/// Why `config` cannot be a configuration of a pass sweeping `swept`, or
/// `None` if it can (with others of equal `pass_key`).
pub fn refusal(config: &MachineConfig, swept: &str) -> Option<String> {
    if let Err(e) = config.levels() {
        return Some(e);
    }
    if !last_level(config).iter().any(|n| n == swept) {
        return Some(format!("[{swept}] is not in the last level (the levels below it would see other references)"));
    }
    let Some(c) = config.caches().into_iter().find(|(n, _)| *n == swept).map(|(_, c)| c.clone()) else {
        return Some(format!("there is no [{swept}]"));
    };
    let direct = Geometry::new(&c).is_ok_and(|g| g.ways == 1);
    if c.replacement != Replacement::Lru && !direct {
        return Some(format!("[{swept}] replacement is not LRU"));
    }
    if c.write_miss != WriteMissPolicy::WriteAllocate {
        return Some(format!("[{swept}] does not allocate on a write miss"));
    }
    if config.stats.classify_misses {
        return Some("misses are classified (3C)".into());
    }
    None
}

/// What must be equal between the configurations of one pass: the whole
/// machine with the swept cache's size and associativity (and the names
/// and sources that change no number) blanked, and the page colours the
/// mapper will use. `None` if `refusal` refuses it.
pub fn pass_key(config: &MachineConfig, swept: &str) -> Option<String> {
    if refusal(config, swept).is_some() {
        return None;
    }
    let colours = config.colours();
    let mut k = config.clone();
    k.name.clear();
    k.description.clear();
    k.source.clear();
    k.memory.source.clear();
    k.memory.colours = if k.memory.allocation == FrameAllocation::ColourPreserving { colours } else { 0 };
    for (name, _) in config.caches() {
        if let Some(c) = cache_mut(&mut k, name) {
            c.source.clear();
        }
    }
    let c = cache_mut(&mut k, swept)?;
    // A direct-mapped LRU level is every policy's; so is its seed.
    c.size = ByteSize(0);
    c.assoc = Assoc::Full;
    c.seed = 0;
    c.replacement = Replacement::Lru;
    serde_json::to_string(&k).ok()
}

/// Groups `configs` into passes: for the cache of the last level whose
/// grouping leaves the fewest runs, every group of two or more
/// configurations that `pass_key` puts together is one pass; the rest run
/// alone. Passes come in the order of their first member.
pub fn passes(configs: &[MachineConfig]) -> Vec<Pass> {
    let mut candidates: Vec<String> = Vec::new();
    for c in configs {
        for n in last_level(c) {
            if !candidates.contains(&n) {
                candidates.push(n);
            }
        }
    }
    let mut best: Option<Vec<Pass>> = None;
    for swept in &candidates {
        let mut groups: Vec<Vec<usize>> = Vec::new();
        let mut by_key: HashMap<String, usize> = HashMap::new();
        let mut alone = Vec::new();
        for (i, c) in configs.iter().enumerate() {
            match pass_key(c, swept) {
                Some(k) => {
                    let g = *by_key.entry(k).or_insert_with(|| {
                        groups.push(Vec::new());
                        groups.len() - 1
                    });
                    groups[g].push(i);
                }
                None => alone.push(i),
            }
        }
        let mut plan: Vec<Pass> = Vec::new();
        for g in groups {
            if g.len() >= 2 {
                plan.push(Pass { swept: Some(swept.clone()), members: g });
            } else {
                alone.extend(g);
            }
        }
        plan.extend(alone.into_iter().map(|i| Pass { swept: None, members: vec![i] }));
        plan.sort_by_key(|p| p.members[0]);
        if best.as_ref().is_none_or(|b| plan.len() < b.len()) {
            best = Some(plan);
        }
    }
    best.unwrap_or_else(|| (0..configs.len()).map(|i| Pass { swept: None, members: vec![i] }).collect())
}
