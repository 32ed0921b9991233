//! `/name` gesture scan of one pasted text: `scan_gestures` on texts of T
//! gesture tokens (`/s0 /s1 …`, space-separated) of which D are distinct
//! (1,000, or all), T = 10,000, 100,000 and 1,000,000; next to one hash set
//! for every size (`scan_gestures_tuned` with no partition bound: the scan
//! before the partitioned path) and `scan_gestures_joined` (what the Node
//! binding answers).
//! `cargo bench -p skill-core --bench gesture`

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use skill_core::catalog::gesture::{scan_gestures, scan_gestures_joined, scan_gestures_tuned};
use std::hint::black_box;
use std::time::Duration;

fn text(tokens: usize, distinct: usize) -> String {
    let mut text = String::new();
    for i in 0..tokens {
        if i > 0 {
            text.push(' ');
        }
        text.push_str("/s");
        text.push_str(&(i % distinct).to_string());
    }
    text
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("gesture_scan");
    group.sample_size(10);
    group.warm_up_time(Duration::from_secs(1));
    group.measurement_time(Duration::from_secs(4));
    for tokens in [10_000, 100_000, 1_000_000] {
        for distinct in [1_000, tokens] {
            let text = text(tokens, distinct);
            let id = format!("{tokens}x{distinct}");
            group.throughput(Throughput::Elements(tokens as u64));
            group.bench_with_input(BenchmarkId::new("scan", &id), &text, |b, text| {
                b.iter(|| scan_gestures(black_box(text)).len())
            });
            group.bench_with_input(BenchmarkId::new("one_hash_set", &id), &text, |b, text| {
                b.iter(|| scan_gestures_tuned(black_box(text), usize::MAX, 1).len())
            });
            group.bench_with_input(BenchmarkId::new("joined", &id), &text, |b, text| {
                b.iter(|| scan_gestures_joined(black_box(text)).len())
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
