//! Registry merge cost: validating JS-provider candidates (packed records, the
//! way the binding receives them) and merging them, without override rules
//! and with eight (as in `bench/registry.mjs`).

use criterion::{criterion_group, criterion_main, Criterion};
use skill_core::model::host::{validate_listing, HostObservation, OwnedRecords};
use skill_core::overrides::Overrides;
use skill_core::registry::{Finish, ProviderOutcome, Registry};
use std::hint::black_box;

fn candidates(n: usize) -> serde_json::Value {
    let description = "d".repeat(200);
    serde_json::Value::Array(
        (0..n)
            .map(|i| {
                serde_json::json!({
                    "name": format!("skill-{i:05}"),
                    "description": description,
                    "invocation": { "modelInvocable": true, "userInvocable": true },
                    "source": "remote",
                    "provider": "remote",
                    "rank": 700,
                })
            })
            .collect(),
    )
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

criterion_group!(benches, bench);
criterion_main!(benches);
