//! The proptest strategies for random cache levels that the hierarchy's
//! own property tests (flush_from.rs, request_missed.rs) draw from.

use proptest::prelude::*;
use vmlab_cache::{CacheConfig, Indexing, Replacement, WriteMissPolicy, WritePolicy};
use vmlab_machine::LevelConfig;

pub fn cache() -> impl Strategy<Value = CacheConfig> {
    (
        prop::sample::select(vec![8u64, 16, 32]),
        prop::sample::select(vec![1u64, 2, 4, 8]),
        prop::sample::select(vec![1u32, 2, 4]),
        prop::sample::select(vec![Indexing::Vivt, Indexing::Pipt]),
        any::<bool>(),
        any::<bool>(),
        prop::sample::select(vec![Replacement::Lru, Replacement::Fifo]),
    )
        .prop_map(|(line, sets, ways, indexing, wb, wa, replacement)| {
            let mut c = CacheConfig::simple(line * sets * u64::from(ways), line, ways);
            c.indexing = indexing;
            c.asid_tags = indexing == Indexing::Vivt;
            c.replacement = replacement;
            c.write = if wb { WritePolicy::WriteBack } else { WritePolicy::WriteThrough };
            c.write_miss = if wa { WriteMissPolicy::WriteAllocate } else { WriteMissPolicy::NoWriteAllocate };
            c
        })
}

pub fn level(n: usize) -> impl Strategy<Value = LevelConfig> {
    prop_oneof![
        cache().prop_map(move |c| LevelConfig::Unified { name: format!("l{n}"), cache: c }),
        (cache(), cache()).prop_map(move |(i, d)| LevelConfig::Split {
            i_name: format!("l{n}i"),
            i,
            d_name: format!("l{n}d"),
            d
        }),
    ]
}
