//! Search index: building it for a catalog of 1,500 skills and of 100,000
//! (the 1,500 in variants with two made-up words each, so the dictionary
//! grows), and one search in each; prints each index's size.
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

/// `n` skills with descriptions of 12 to 20 words (beyond 1,500, variants
/// of the first 1,500 with two made-up words of their own).
fn corpus(n: usize) -> Vec<(String, String)> {
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let base: Vec<(String, String)> = (0..1500)
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
        .collect();
    const SYLLABLES: [&str; 16] = [
        "za", "rv", "ex", "to", "li", "mo", "qu", "an", "de", "ri", "ko", "pe", "su", "la", "mi",
        "no",
    ];
    let made_up = |mut seed: u64| {
        let mut w = String::new();
        while w.len() < 6 {
            w.push_str(SYLLABLES[(seed % 16) as usize]);
            seed = seed / 16 + 7;
        }
        w
    };
    (0..n)
        .map(|i| {
            let (name, description) = &base[i % base.len()];
            match i / base.len() {
                0 => (name.clone(), description.clone()),
                v => (
                    format!("{name}-v{v}"),
                    format!("{description} {} {}", made_up(next()), made_up(next())),
                ),
            }
        })
        .collect()
}

fn items(skills: &[(String, String)]) -> impl Iterator<Item = Item<'_>> {
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
}

fn bench(c: &mut Criterion) {
    for n in [1500, 100_000] {
        let skills = corpus(n);
        let index = Index::build(items(&skills));
        println!(
            "search/index {n}: {} terms, {:.1} MB",
            index.term_count(),
            index.heap_bytes() as f64 / 1_048_576.0
        );
        let mut group = c.benchmark_group(format!("search/{n}"));
        if n > 10_000 {
            group.sample_size(10);
        }
        group.bench_function("build", |b| {
            b.iter(|| black_box(Index::build(items(&skills))))
        });
        group.bench_function("query", |b| {
            b.iter(|| black_box(index.search(black_box("deploying to kubernetes production"), 10)))
        });
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
