//! Render + digest of model-facing catalogs (1,000 and 10,000 summaries).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use skill_core::catalog::{digest_hex, Catalog, MessageKind, DEFAULT_MAX_LENGTH};
use std::hint::black_box;

fn summaries(n: usize) -> Vec<(String, String)> {
    (0..n)
        .map(|i| {
            (
                format!("skill-{i:05}"),
                format!(
                    "Use this skill to handle task number {i} when the user asks about widgets,\n  \
                     gadgets & <things>. It covers setup, configuration and troubleshooting steps \
                     for item {i}."
                ),
            )
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("catalog");
    for n in [1_000usize, 10_000] {
        let skills = summaries(n);
        group.bench_with_input(
            BenchmarkId::new("entries+digest", n),
            &skills,
            |b, skills| {
                b.iter(|| {
                    let catalog = Catalog::new(
                        skills.iter().map(|(n, d)| (n.as_str(), d.as_str())),
                        DEFAULT_MAX_LENGTH,
                    )
                    .expect("valid");
                    let entries = catalog.entries();
                    black_box(digest_hex(&entries));
                    black_box(entries)
                })
            },
        );
        group.bench_with_input(BenchmarkId::new("message", n), &skills, |b, skills| {
            b.iter(|| {
                let catalog = Catalog::new(
                    skills.iter().map(|(n, d)| (n.as_str(), d.as_str())),
                    DEFAULT_MAX_LENGTH,
                )
                .expect("valid");
                black_box(catalog.message(MessageKind::Replacement))
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
