//! Render + digest of model-facing catalogs (1,000 and 10,000 summaries): from
//! `(name, description)` pairs, from registry summaries, with a budget, with a
//! budget by rank, shared between 45 folders, and structured (entries + JSON-lines digest, from UTF-8
//! text and from UTF-16 code units).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use skill_core::catalog::structured::{StructuredCatalog, StructuredSkill};
use skill_core::catalog::{digest_hex, Budget, Catalog, MessageKind, Origin, DEFAULT_MAX_LENGTH};
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

fn bench_ranked_and_structured(c: &mut Criterion) {
    let mut group = c.benchmark_group("catalog");
    for n in [1_000usize, 10_000] {
        let skills = summaries(n);
        let sources = ["user-dsh", "user-agents", "bundled"];
        group.bench_with_input(
            BenchmarkId::new("budget_8000_by_rank", n),
            &skills,
            |b, skills| {
                b.iter(|| {
                    let catalog = Catalog::with_origins(
                        skills.iter().enumerate().map(|(i, (n, d))| {
                            (n.as_str(), d.as_str(), Origin::of_source(sources[i % 3]))
                        }),
                        DEFAULT_MAX_LENGTH,
                    )
                    .expect("valid")
                    .with_budget(Some(Budget::new(8000, vec![]).expect("budget")));
                    black_box(catalog.render())
                })
            },
        );
        // Fair shares between folders: one folder of most skills, 44 small
        // ones (about 1 % each), the user roots the rest; with and without
        // a search tool.
        let folders: Vec<String> = (0..45).map(|k| format!("/skills/folder-{k:02}")).collect();
        let folder_of = |i: usize| {
            if i.is_multiple_of(2) {
                folders[0].as_str()
            } else {
                folders[1 + (i / 2) % 44].as_str()
            }
        };
        for (label, tool) in [
            ("budget_24000_folders", None),
            ("budget_24000_folders_search_tool", Some("skill_search")),
        ] {
            group.bench_with_input(BenchmarkId::new(label, n), &skills, |b, skills| {
                b.iter(|| {
                    let catalog = Catalog::with_origins(
                        skills.iter().enumerate().map(|(i, (n, d))| {
                            let origin = if i % 50 == 7 {
                                Origin::of_source("user-agents")
                            } else {
                                Origin::of_source("custom").in_folder(Some(folder_of(i)))
                            };
                            (n.as_str(), d.as_str(), origin)
                        }),
                        DEFAULT_MAX_LENGTH,
                    )
                    .expect("valid");
                    let budget = Budget::new(24_000, vec![])
                        .and_then(|b| b.with_search_tool(tool.map(str::to_string)))
                        .expect("budget");
                    black_box(catalog.with_budget(Some(budget)).render())
                })
            });
        }
        group.bench_with_input(
            BenchmarkId::new("structured_from_text", n),
            &skills,
            |b, skills| {
                b.iter(|| {
                    let catalog = StructuredCatalog::new(
                        skills
                            .iter()
                            .map(|(n, d)| StructuredSkill {
                                name: n,
                                description: d,
                                units: None,
                                origin: None,
                            })
                            .collect(),
                        DEFAULT_MAX_LENGTH,
                    )
                    .expect("valid");
                    black_box(catalog.render())
                })
            },
        );
        let units: Vec<Vec<u16>> = skills
            .iter()
            .map(|(_, d)| d.encode_utf16().collect())
            .collect();
        group.bench_with_input(
            BenchmarkId::new("structured_from_units", n),
            &skills,
            |b, skills| {
                b.iter(|| {
                    let catalog = StructuredCatalog::new(
                        skills
                            .iter()
                            .zip(&units)
                            .map(|((n, d), u)| StructuredSkill {
                                name: n,
                                description: d,
                                units: Some(u),
                                origin: None,
                            })
                            .collect(),
                        DEFAULT_MAX_LENGTH,
                    )
                    .expect("valid");
                    black_box(catalog.render())
                })
            },
        );
    }
    group.finish();
}

criterion_group!(benches, bench, bench_ranked_and_structured);
criterion_main!(benches);
