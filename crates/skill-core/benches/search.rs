//! Search index: building it for a catalog of 1,500 skills, and one search.
//! `cargo bench -p skill-core --bench search`

use criterion::{criterion_group, criterion_main, Criterion};
use skill_core::search::{Index, Item};
use std::hint::black_box;

const WORDS: &[&str] = &[
    "deploy",
    "review",
    "kubernetes",
    "changes",
    "tests",
    "database",
    "schema",
    "migrations",
    "release",
    "notes",
    "services",
    "production",
    "rollout",
    "errors",
    "logging",
    "metrics",
    "dashboards",
    "alerts",
    "configuration",
    "documents",
    "spreadsheets",
    "formulas",
    "charts",
    "invoices",
    "totals",
    "scanned",
    "caching",
    "expensive",
    "results",
    "pipelines",
    "continuous",
    "integration",
    "containers",
    "images",
];

/// 1,500 skills with descriptions of 12 to 20 words.
fn corpus() -> Vec<(String, String)> {
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    (0..1500)
        .map(|i| {
            let n = 12 + (next() % 9) as usize;
            let words: Vec<&str> = (0..n)
                .map(|_| WORDS[(next() % WORDS.len() as u64) as usize])
                .collect();
            (
                format!("skill-{i:04}-{}", WORDS[i % WORDS.len()]),
                format!("{} and more, with care.", words.join(" ")),
            )
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let skills = corpus();
    let items = || {
        skills
            .iter()
            .enumerate()
            .map(|(i, (name, description))| Item {
                id: i as u32,
                name,
                description,
                extra: "",
                rank: 400.0,
            })
    };
    c.bench_function("search/build 1500", |b| {
        b.iter(|| black_box(Index::build(items())))
    });
    let index = Index::build(items());
    c.bench_function("search/query 1500", |b| {
        b.iter(|| black_box(index.search(black_box("deploying to kubernetes production"), 10)))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
