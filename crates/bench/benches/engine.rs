//! Criterion benchmarks of the engine on a synthetic trace held in memory:
//! the simulation rate for the two target machines next to the rate of merely
//! walking the same events (the floor any simulator pays).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;
use vmlab_machine::Machine;
use vmlab_trace::Event;

const N: usize = 2_000_000;

fn machines() -> Vec<(&'static str, String)> {
    let big = concat!(env!("CARGO_MANIFEST_DIR"), "/../../bench/machines/l1-32k8-l2-1m16.toml");
    vec![("jm-base", "jm-base".to_string()), ("l1-32k8-l2-1m16", big.to_string())]
}

fn bench(c: &mut Criterion) {
    let events = vmlab_bench::synthetic(N, 42);
    let mut g = c.benchmark_group("engine");
    g.throughput(Throughput::Elements(N as u64));
    g.sample_size(10);
    g.bench_function("walk events (baseline)", |b| {
        b.iter(|| black_box(events.iter().filter(|e| matches!(e, Event::Access(a) if a.size > 4)).count()))
    });
    for (name, preset) in machines() {
        g.bench_function(format!("simulate {name}"), |b| {
            b.iter(|| {
                let mut m = Machine::from_preset(&preset, &[]).expect("preset");
                m.feed(&events, "synthetic", 0).expect("runs");
                black_box(m.result("synthetic").events.references())
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
