//! Registry merge cost: validating JS-provider candidates (as `Raw` values parsed
//! from JSON, the way the binding receives them) and merging them.

use criterion::{criterion_group, criterion_main, Criterion};
use skill_core::model::{validate_list_result, Raw};
use skill_core::registry::{Finish, ProviderOutcome, Registry};
use std::hint::black_box;

fn candidates_json(n: usize) -> String {
    let mut out = String::from("[");
    for i in 0..n {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&format!(
            r#"{{"name":"skill-{i:05}","description":"{}","invocation":{{"modelInvocable":true,"userInvocable":true}},"source":"remote","provider":"remote","rank":700}}"#,
            "d".repeat(200)
        ));
    }
    out.push(']');
    out
}

fn bench(c: &mut Criterion) {
    for n in [100usize, 1000] {
        let json = candidates_json(n);
        c.bench_function(&format!("parse json {n}"), |b| {
            b.iter(|| black_box(serde_json::from_str::<Raw>(black_box(&json)).ok()))
        });
        let raw: Raw = serde_json::from_str(&json).expect("json");
        c.bench_function(&format!("validate {n}"), |b| {
            b.iter(|| black_box(validate_list_result("remote", black_box(&raw)).ok()))
        });
        let obs = validate_list_result("remote", &raw).expect("valid");
        let registry = Registry::new(8).expect("registry");
        let slot = registry.register_provider("remote", None).expect("slot");
        c.bench_function(&format!("merge {n}"), |b| {
            b.iter(|| {
                registry.invalidate(slot);
                let collection = registry.collect(Some("/w"), 0);
                match collection.finish(vec![ProviderOutcome::Listed(obs.clone())]) {
                    Finish::Done { catalog, .. } => black_box(catalog.skills.len()),
                    Finish::Retry => 0,
                }
            })
        });
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
