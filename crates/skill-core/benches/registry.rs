//! Registry merge cost: validating JS-provider candidates (packed records, the
//! way the binding receives them) and merging them, without override rules
//! and with eight (as in `bench/registry.mjs`); and the layered merge: the
//! same nine providers in the global layer alone, or three per layer over a
//! three-deep view (two scopes and the global layer).

use criterion::{criterion_group, criterion_main, Criterion};
use skill_core::model::host::{validate_listing, HostObservation, OwnedRecords};
use skill_core::overrides::Overrides;
use skill_core::registry::{Finish, ProviderOutcome, Registry, Target};
use std::hint::black_box;

fn candidates(n: usize) -> serde_json::Value {
    candidates_of("remote", n, 0)
}

/// `n` candidates of `provider`, named `skill-<offset + i>`.
fn candidates_of(provider: &str, n: usize, offset: usize) -> serde_json::Value {
    let description = "d".repeat(200);
    serde_json::Value::Array(
        (offset..offset + n)
            .map(|i| {
                serde_json::json!({
                    "name": format!("skill-{i:05}"),
                    "description": description,
                    "invocation": { "modelInvocable": true, "userInvocable": true },
                    "source": "remote",
                    "provider": provider,
                    "rank": 700,
                })
            })
            .collect(),
    )
}

fn observation(provider: &str, n: usize, offset: usize) -> HostObservation {
    let (head, owned) = OwnedRecords::from_list_json(&candidates_of(provider, n, offset));
    let records = owned.records();
    HostObservation {
        text: records.text.to_string(),
        strings: records.strings.to_vec(),
        listing: validate_listing(provider, &head, &records).expect("valid"),
    }
}

/// Nine providers of `n` candidates each (a quarter of each overlapping the
/// next one's names), filed in the global layer alone ("flat") or three per
/// layer, read through a three-deep view ("3 layers").
fn layered(c: &mut Criterion) {
    let mut group = c.benchmark_group("layered merge");
    for n in [100usize, 1000] {
        let names: Vec<String> = (0..9).map(|p| format!("p{p}")).collect();
        let observations: Vec<HostObservation> = names
            .iter()
            .enumerate()
            .map(|(p, name)| observation(name, n, p * n * 3 / 4))
            .collect();
        for layers in [false, true] {
            let registry = Registry::new(8).expect("registry");
            let mut scopes = Vec::new();
            let mut first = 0;
            for (p, name) in names.iter().enumerate() {
                let target = match (layers, p / 3) {
                    (true, 1) => Target::Scope {
                        layer: scopes.first().copied(),
                        label: "\"preset\"",
                    },
                    (true, 2) => Target::Scope {
                        layer: scopes.get(1).copied(),
                        label: "\"agent\"",
                    },
                    _ => Target::Global,
                };
                let registered = registry
                    .register_provider_in(target, name, None)
                    .expect("slot");
                if p == 0 {
                    first = registered.id;
                }
                if layers && p % 3 == 0 && p > 0 {
                    scopes.push(registered.layer);
                }
            }
            // Nearest first: the agent's layer, then the preset's.
            scopes.reverse();
            let scope = layers.then_some(scopes.as_slice());
            let label = if layers { "3 layers" } else { "flat" };
            group.bench_function(format!("{label}, 9 x {n}"), |b| {
                b.iter(|| {
                    registry.invalidate(first);
                    let collection = registry.collect_in(Some("/w"), scope, 0);
                    // The plan lists providers nearest layer first: hand each
                    // its own observation.
                    let outcomes = collection
                        .providers
                        .iter()
                        .map(|planned| {
                            let at = names.iter().position(|n| *n == planned.name).unwrap_or(0);
                            ProviderOutcome::Host(observations[at].clone())
                        })
                        .collect();
                    match collection.finish(outcomes) {
                        Finish::Done { catalog, .. } => black_box(catalog.len()),
                        Finish::Retry => 0,
                    }
                })
            });
        }
    }
    group.finish();
}

/// The rules of `bench/registry.mjs`: globs, source and provider filters; a
/// few of them match.
fn eight() -> Overrides {
    Overrides::from_json(&serde_json::json!([
        { "name": "skill-0000*", "effect": "off" },
        { "name": "skill-00001", "effect": "on" },
        { "name": "*-00500", "effect": "user-only" },
        { "source": "team", "effect": "off" },
        { "provider": "elsewhere", "effect": "model-only" },
        { "name": "deploy-*", "source": "remote", "effect": "off" },
        { "name": "skill-009*9", "effect": "model-only" },
        { "name": "no-such-skill", "provider": "remote", "effect": "off" },
    ]))
    .expect("valid rules")
}

fn bench(c: &mut Criterion) {
    let rules = eight();
    let names: Vec<String> = (0..1000).map(|i| format!("skill-{i:05}")).collect();
    c.bench_function("decide 1000", |b| {
        b.iter(|| {
            names
                .iter()
                .filter(|n| rules.decide(n, "remote", "remote").is_some())
                .count()
        })
    });
    for n in [100usize, 1000, 10_000] {
        let (head, owned) = OwnedRecords::from_list_json(&candidates(n));
        let records = owned.records();
        c.bench_function(&format!("validate {n}"), |b| {
            b.iter(|| black_box(validate_listing("remote", &head, black_box(&records)).ok()))
        });
        let observation = HostObservation {
            text: records.text.to_string(),
            strings: records.strings.to_vec(),
            listing: validate_listing("remote", &head, &records).expect("valid"),
        };
        for (label, overrides) in [("", Overrides::default()), (" with 8 overrides", eight())] {
            let registry = Registry::new(8).expect("registry");
            registry.set_overrides(overrides);
            let slot = registry.register_provider("remote", None).expect("slot");
            c.bench_function(&format!("merge {n}{label}"), |b| {
                b.iter(|| {
                    registry.invalidate(slot);
                    let collection = registry.collect(Some("/w"), 0);
                    match collection.finish(vec![ProviderOutcome::Host(observation.clone())]) {
                        Finish::Done { catalog, .. } => black_box(catalog.len()),
                        Finish::Retry => 0,
                    }
                })
            });
        }
    }
}

criterion_group!(benches, bench, layered);
criterion_main!(benches);
