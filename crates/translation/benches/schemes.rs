//! Criterion benchmarks of the translating simulator on a synthetic trace
//! held in memory: ULTRIX and SOFTVM beside NOTLB and the foundation engine
//! on the same caches (jacob-mudge: 8K/8K, 512K/512K, 16 B lines), so the
//! cost of translation reads off one report. Both engines read packed
//! words, as a run from a file does (`Machine::feed_packed`,
//! `VmSim::feed_packed`: their fast loops). The real-trace figures (issue
//! 3's "at least half the no-translation rate") come from
//! `bench/translation.sh`.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use std::hint::black_box;
use vmlab_machine::Machine;
use vmlab_translation::{load, VmSim};

const N: usize = 1_000_000;

fn bench(c: &mut Criterion) {
    let events = vmlab_bench::synthetic(N, 42);
    let mut packed = vmlab_trace::PackedBlock::new();
    packed.pack(&events);
    let mut g = c.benchmark_group("translation");
    g.throughput(Throughput::Elements(N as u64));
    g.sample_size(10);
    g.bench_function("foundation jm-base (no translation)", |b| {
        b.iter_batched(
            || Machine::from_preset("jm-base", &[]).expect("preset"),
            |mut m| {
                m.feed_packed(&packed, "synthetic", 0).expect("runs");
                black_box(m.result("synthetic").events.references())
            },
            BatchSize::LargeInput,
        )
    });
    for scheme in ["notlb", "ultrix", "softvm"] {
        let cfg = load("jacob-mudge", &[format!("scheme={scheme}")]).expect("preset");
        g.bench_function(scheme, |b| {
            // Building the simulator (its caches and tables) is setup, not timed.
            b.iter_batched(
                || VmSim::new(cfg.clone()).expect("builds"),
                |mut sim| {
                    sim.feed_packed(&packed, packed.len()).expect("runs");
                    black_box(sim.result("synthetic").vmcpi)
                },
                BatchSize::LargeInput,
            )
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
