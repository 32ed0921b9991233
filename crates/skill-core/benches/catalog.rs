//! Render + digest of model-facing catalogs (1,000 and 10,000 summaries): from
//! `(name, description)` pairs, from registry summaries, and with a budget.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use skill_core::catalog::{digest_hex, Budget, Catalog, MessageKind, DEFAULT_MAX_LENGTH};
use skill_core::model::{InvocationPolicy, SkillSummary};
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

fn catalog(skills: &[(String, String)]) -> Catalog<'_> {
    Catalog::new(
        skills.iter().map(|(n, d)| (n.as_str(), d.as_str())),
        DEFAULT_MAX_LENGTH,
    )
    .expect("valid")
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
                    let entries = catalog(skills).entries();
                    black_box(digest_hex(&entries));
                    black_box(entries)
                })
            },
        );
        group.bench_with_input(BenchmarkId::new("message", n), &skills, |b, skills| {
            b.iter(|| black_box(catalog(skills).message(MessageKind::Replacement)))
        });
        let registry: Vec<SkillSummary> = skills
            .iter()
            .map(|(name, description)| SkillSummary {
                name: name.clone(),
                description: description.clone(),
                when_to_use: None,
                invocation: InvocationPolicy {
                    model_invocable: true,
                    user_invocable: true,
                },
                source: "runtime".into(),
                provider: "runtime".into(),
                resource_base: None,
            })
            .collect();
        group.bench_with_input(
            BenchmarkId::new("from_summaries+entries+digest", n),
            &registry,
            |b, registry| {
                b.iter(|| {
                    let catalog =
                        Catalog::from_summaries(registry, DEFAULT_MAX_LENGTH).expect("valid");
                    let entries = catalog.entries();
                    black_box(digest_hex(&entries))
                })
            },
        );
        let full = catalog(&skills).render().report.chars;
        for (label, chars) in [("budget_half", full / 2), ("budget_30000", 30_000)] {
            group.bench_with_input(BenchmarkId::new(label, n), &skills, |b, skills| {
                b.iter(|| {
                    let budget = Budget::new(chars, vec!["skill-00001".into()]).expect("budget");
                    let rendered = catalog(skills).with_budget(Some(budget)).render();
                    black_box(digest_hex(&rendered.text));
                    black_box(rendered)
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
