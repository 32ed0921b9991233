//! Registry merge cost: validating JS-provider candidates (packed records, the
//! way the binding receives them) and merging them.

use criterion::{criterion_group, criterion_main, Criterion};
use skill_core::model::host::{validate_listing, HostObservation, OwnedRecords};
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

fn bench(c: &mut Criterion) {
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
        let registry = Registry::new(8).expect("registry");
        let slot = registry.register_provider("remote", None).expect("slot");
        c.bench_function(&format!("merge {n}"), |b| {
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

criterion_group!(benches, bench);
criterion_main!(benches);
