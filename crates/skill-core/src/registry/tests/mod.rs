//! Unit tests of the registry rules (layers: [`layers`]).

mod derived;
mod incremental;
mod layers;
mod rules;

use super::*;
use crate::model::host::{validate_listing, OwnedRecords};
use crate::model::host::{HostObservation, Span};
use crate::model::{Candidate, InvocationPolicy, Observation, RuntimeSkill, SkillSummary};
use crate::model::{Locator, SkillDefinition};
use crate::overrides::Effect;
use crate::overrides::Overrides;
use crate::provider::ProviderError;
use serde_json::json;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

fn summary(name: &str, provider: &str, source: &str) -> SkillSummary {
    SkillSummary {
        name: name.into(),
        description: format!("{name} from {provider}"),
        when_to_use: None,
        invocation: InvocationPolicy::default(),
        source: source.into(),
        provider: provider.into(),
        resource_base: None,
    }
}

fn runtime(name: &str) -> RuntimeSkill {
    RuntimeSkill::from(&summary(name, "runtime", "runtime"))
}

fn cand(name: &str, provider: &str, rank: f64) -> Candidate {
    Candidate {
        summary: summary(name, provider, "test"),
        rank,
        path: None,
        metadata: None,
        locator: Locator::None,
        fingerprint: None,
        lead: None,
    }
}

fn listed(cands: Vec<Candidate>) -> ProviderOutcome {
    ProviderOutcome::Listed(Observation {
        candidates: cands.into_iter().map(std::sync::Arc::new).collect(),
        complete: true,
    })
}

/// A JS provider's `list()` result, validated as the binding does it.
fn host(provider: &str, items: &[(&str, f64)], complete: bool) -> ProviderOutcome {
    let candidates: Vec<_> = items
        .iter()
        .map(|(name, rank)| {
            json!({
                "name": name,
                "description": format!("{name} from {provider}"),
                "invocation": {"modelInvocable": !name.starts_with("hidden"), "userInvocable": true},
                "source": "remote",
                "provider": provider,
                "rank": rank,
            })
        })
        .collect();
    let value = json!({ "candidates": candidates, "complete": complete });
    let (head, owned) = OwnedRecords::from_list_json(&value);
    let records = owned.records();
    let listing = validate_listing(provider, &head, &records).expect("valid listing");
    ProviderOutcome::Host(HostObservation {
        text: records.text.to_string(),
        strings: records.strings.to_vec(),
        listing,
    })
}

fn done(f: Finish) -> (Arc<Catalog>, Vec<String>) {
    match f {
        Finish::Done { catalog, warnings } => (catalog, warnings),
        Finish::Retry => panic!("unexpected retry"),
    }
}

fn names(catalog: &Catalog) -> Vec<&str> {
    catalog.names().collect()
}

#[test]
fn rejects_bad_settings() {
    assert!(Registry::new(0).is_err());
    assert_eq!(Registry::cache_size_from_f64(3.0), Ok(3));
    assert_eq!(Registry::provider_timeout_from_f64(250.0), Ok(250));
    assert_eq!(
        Registry::provider_timeout_from_f64(2_147_483_647.0),
        Ok(2_147_483_647)
    );
    for bad in [0.0, -1.0, 1.5, f64::NAN, f64::INFINITY] {
        assert!(Registry::cache_size_from_f64(bad).is_err(), "{bad}");
        assert!(Registry::provider_timeout_from_f64(bad).is_err(), "{bad}");
    }
    assert_eq!(
        Registry::provider_timeout_from_f64(2_147_483_648.0)
            .expect_err("too large")
            .to_string(),
        "providerTimeoutMs must be a positive integer of at most 2147483647 (got 2147483648)"
    );
    assert_eq!(
        Registry::cache_size_from_f64(f64::NAN)
            .expect_err("NaN")
            .to_string(),
        "collectCacheMaxEntries must be a positive integer (got NaN)"
    );
}

#[test]
fn provider_names() {
    let r = Registry::new(4).expect("registry");
    assert_eq!(
        r.register_provider("runtime", None),
        Err(RegistryError::ReservedName)
    );
    assert_eq!(r.register_provider("", None), Err(RegistryError::EmptyName));
    let a = r.register_provider("a", None).expect("a");
    assert_eq!(
        r.register_provider("a", None),
        Err(RegistryError::DuplicateName("a".into()))
    );
    assert!(r.unregister_provider(a));
    assert!(!r.unregister_provider(a));
    assert!(r.register_provider("a", None).is_ok());
}

#[test]
fn merge_by_rank_then_order_then_local() {
    let r = Registry::new(4).expect("registry");
    let a = r.register_provider("a", None).expect("a");
    let b = r.register_provider("b", None).expect("b");
    assert!(r.register_runtime(runtime("rt")).is_some());
    assert!(r.register_runtime(runtime("both")).is_some());
    let c = r.collect(Some("/w"), 0);
    let (cat, warnings) = done(c.finish(vec![
        host(
            "a",
            &[
                ("zeta", 500.0),
                ("dup", 300.0),
                ("dup", 300.0),
                ("both", 300.0),
            ],
            true,
        ),
        host("b", &[("dup", 300.0), ("rt", 100.0)], true),
    ]));
    assert_eq!(names(&cat), ["both", "dup", "rt", "zeta"]);
    let winners: Vec<String> = cat
        .entries()
        .iter()
        .map(|e| format!("{:?}", e.winner))
        .collect();
    // runtime 250 beats a's 300; same rank: provider order, then local
    // order; rank 100 from b beats runtime 250.
    assert!(winners[0].starts_with("Runtime("), "{winners:?}");
    assert_eq!(winners[1], format!("Host({a}, 1)"));
    assert_eq!(winners[2], format!("Host({b}, 1)"));
    assert_eq!(winners[3], format!("Host({a}, 0)"));
    assert_eq!(warnings.len(), 4, "{warnings:?}");
    assert!(
        warnings.contains(&"skill \"dup\" from provider \"b\" (source remote, rank 300) is shadowed by provider \"a\" (source remote, rank 300)".to_string()),
        "{warnings:?}"
    );
    assert!(cat.complete);
    assert_eq!(cat.position("rt"), Some(2));
    assert_eq!(cat.position("nope"), None);
}

#[test]
fn entries_carry_the_winning_rank() {
    let r = Registry::new(4).expect("registry");
    r.register_provider("js", None).expect("js");
    r.register_provider("fake", Some(Arc::new(Fake::default())))
        .expect("fake");
    assert!(r.register_runtime(runtime("rt")).is_some());
    let (cat, _) = done(r.collect(None, 0).finish(vec![
        host("js", &[("dup", 300.0), ("dup", 7.5), ("rt", 900.0)], true),
        listed(vec![cand("native", "fake", 42.0), cand("dup", "fake", 8.0)]),
    ]));
    let ranks: Vec<(&str, f64)> = cat
        .entries()
        .iter()
        .map(|e| (cat.name(e), e.rank))
        .collect();
    assert_eq!(ranks, [("dup", 7.5), ("native", 42.0), ("rt", 250.0)]);
    assert_eq!(cat.entries()[0].rank, 7.5);
}

#[test]
fn catalog_entries_for_rendering() {
    let r = Registry::new(4).expect("registry");
    r.register_provider("js", None).expect("js");
    let fake = Arc::new(Fake::default());
    r.register_provider("fake", Some(fake.clone()))
        .expect("fake");
    assert!(r.register_runtime(runtime("middle")).is_some());
    let (cat, _) = done(r.collect(None, 0).finish(vec![
        host("js", &[("hidden-one", 1.0), ("zulu", 1.0)], true),
        listed(vec![cand("alpha", "fake", 1.0)]),
    ]));
    assert_eq!(names(&cat), ["alpha", "hidden-one", "middle", "zulu"]);
    // The runtime and JS-provider descriptions stay with the host until it
    // supplies them.
    assert_eq!(cat.host_held(), 3);
    assert!(!cat.has_descriptions() && cat.model_entries().is_none());
    assert_eq!(cat.description(&cat.entries()[0]), Some("alpha from fake"));
    assert_eq!(cat.description(&cat.entries()[1]), None);
    let text = "hidden onemiddle from runtimezulu from js".to_string();
    let spans = |bounds: &[(u32, u32)]| -> Vec<Span> {
        bounds
            .iter()
            .map(|&(start, end)| Span { start, end })
            .collect()
    };
    assert!(cat
        .supply_descriptions(text.clone(), spans(&[(0, 10), (10, 29)]))
        .is_err());
    assert!(cat
        .supply_descriptions(text.clone(), spans(&[(0, 10), (10, 29), (29, 99)]))
        .is_err());
    cat.supply_descriptions(text, spans(&[(0, 10), (10, 29), (29, 41)]))
        .expect("fits");
    let model: Vec<(&str, &str)> = cat.model_entries().expect("complete").collect();
    assert_eq!(
        model,
        [
            ("alpha", "alpha from fake"),
            ("middle", "middle from runtime"),
            ("zulu", "zulu from js")
        ]
    );
    let native: Vec<&str> = cat.native_summaries().map(|s| s.name.as_str()).collect();
    assert_eq!(native, ["alpha"]);
    assert_eq!(cat.len(), 4);
}

#[test]
fn runtime_duplicates_are_refused() {
    let r = Registry::new(4).expect("registry");
    let first = r.register_runtime(runtime("x")).expect("first");
    assert!(r.register_runtime(runtime("x")).is_none());
    assert!(r.unregister_runtime(first));
    assert!(!r.unregister_runtime(first));
    assert!(r.register_runtime(runtime("x")).is_some());
}

#[test]
fn only_complete_catalogs_are_cached() {
    let r = Registry::new(2).expect("registry");
    r.register_provider("a", None).expect("a");
    let (cat, _) = done(
        r.collect(Some("/w"), 0)
            .finish(vec![ProviderOutcome::Failed]),
    );
    assert!(!cat.complete);
    assert!(r.cached(Some("/w")).is_none());
    let (cat, _) = done(
        r.collect(Some("/w"), 0)
            .finish(vec![host("a", &[("x", 1.0)], false)]),
    );
    assert!(!cat.complete);
    assert!(r.cached(Some("/w")).is_none());
    let (cat, _) = done(r.collect(Some("/w"), 0).finish(vec![host("a", &[], true)]));
    assert!(cat.complete);
    assert_eq!(r.cached(Some("/w")).map(|c| c.id), Some(cat.id));
    assert!(r.cached(None).is_none());
}

#[test]
fn cache_is_bounded_and_reports_evictions() {
    let r = Registry::new(2).expect("registry");
    let mut ids = Vec::new();
    for cwd in ["/a", "/b", "/c"] {
        let (cat, _) = done(r.collect(Some(cwd), 0).finish(vec![]));
        ids.push(cat.id);
    }
    assert!(r.cached(Some("/a")).is_none());
    assert!(r.cached(Some("/c")).is_some());
    assert_eq!(r.take_evicted(), vec![ids[0]]);
    assert!(r.take_evicted().is_empty());
    r.register_provider("p", None).expect("p");
    let mut evicted = r.take_evicted();
    evicted.sort_unstable();
    assert_eq!(evicted, vec![ids[1], ids[2]]);
    assert!(r.cached(Some("/b")).is_none());
}

#[test]
fn generation_change_retries_once_then_returns_incomplete() {
    let r = Registry::new(2).expect("registry");
    let slot = r.register_provider("a", None).expect("a");
    let first = r.collect(Some("/w"), 0);
    assert!(r.invalidate(slot));
    assert!(matches!(
        first.finish(vec![host("a", &[], true)]),
        Finish::Retry
    ));
    let second = r.collect(Some("/w"), 1);
    assert!(r.invalidate(slot));
    let (cat, _) = done(second.finish(vec![host("a", &[("x", 1.0)], true)]));
    assert!(!cat.complete);
    assert_eq!(cat.len(), 1);
    assert!(r.cached(Some("/w")).is_none());
}

#[test]
fn a_released_provider_is_retried_without_it_and_completes() {
    let r = Registry::new(2).expect("registry");
    let gone = r.register_provider("gone", None).expect("gone");
    let kept = r.register_provider("kept", None).expect("kept");
    let collection = r.collect(Some("/w"), 0);
    // Disposal changes the layer: the lookup stops waiting and is retried
    // on the registrations left.
    assert!(r.unregister_provider(gone));
    assert!(matches!(
        collection.finish(vec![
            ProviderOutcome::Released,
            host("kept", &[("k", 1.0)], true),
        ]),
        Finish::Retry
    ));
    let retry = r.collect(Some("/w"), 1);
    assert_eq!(retry.providers.len(), 1);
    let (cat, _) = done(retry.finish(vec![host("kept", &[("k", 1.0)], true)]));
    assert!(cat.complete);
    assert_eq!(names(&cat), ["k"]);
    assert_eq!(r.cached(Some("/w")).map(|c| c.id), Some(cat.id));

    // Released again during the retry: the retry-once rule ends it,
    // incomplete and uncached.
    let again = r.register_provider("again", None).expect("again");
    let retry = r.collect(Some("/w"), 1);
    assert!(r.unregister_provider(again));
    let (cat, _) = done(retry.finish(vec![
        host("kept", &[("k", 1.0)], true),
        ProviderOutcome::Released,
    ]));
    assert!(!cat.complete);
    assert_eq!(names(&cat), ["k"]);
    assert!(r.cached(Some("/w")).is_none());
    assert!(r.invalidate(kept));
}

#[test]
fn invalidate_is_inert_after_unregistering() {
    let r = Registry::new(2).expect("registry");
    let slot = r.register_provider("a", None).expect("a");
    let g = r.generation();
    assert!(r.unregister_provider(slot));
    let g2 = r.generation();
    assert!(g2 > g);
    assert!(!r.invalidate(slot));
    assert_eq!(r.generation(), g2);
}

fn overrides(value: serde_json::Value) -> Overrides {
    Overrides::from_json(&value).expect("valid rules")
}

fn winner_of(catalog: &Catalog, name: &str) -> String {
    let entry = &catalog.entries()[catalog.position(name).expect("listed")];
    format!("{:?}", entry.winner)
}

#[test]
fn overrides_apply_to_candidates_before_the_merge() {
    let r = Registry::new(4).expect("registry");
    let a = r.register_provider("a", None).expect("a");
    let b = r.register_provider("b", None).expect("b");
    assert!(r.register_runtime(runtime("rt")).is_some());
    let listings = || {
        vec![
            host(
                "a",
                &[("dup", 100.0), ("deploy-prod", 1.0), ("deploy-dev", 1.0)],
                true,
            ),
            host("b", &[("dup", 300.0), ("rt", 500.0), ("plain", 1.0)], true),
        ]
    };
    let (before, warnings) = done(r.collect(Some("/w"), 0).finish(listings()));
    assert_eq!(warnings.len(), 2);
    assert_eq!(winner_of(&before, "dup"), format!("Host({a}, 0)"));
    assert!(r.cached(Some("/w")).is_some());

    let generation = r.generation();
    r.set_overrides(overrides(json!([
        // Switched off: the lower-ranked copy of b wins.
        { "name": "dup", "provider": "a", "effect": "off" },
        { "name": "deploy-*", "effect": "off" },
        // `on` after `off`: the last matching rule decides.
        { "name": "deploy-dev", "effect": "on" },
        { "name": "rt", "source": "runtime", "effect": "user-only" },
        // A source filter that matches nothing here.
        { "name": "plain", "source": "project-dsh", "effect": "off" },
    ])));
    assert!(r.generation() > generation);
    assert!(
        r.cached(Some("/w")).is_none(),
        "completed catalogs are invalidated"
    );
    let (after, warnings) = done(r.collect(Some("/w"), 0).finish(listings()));
    assert_eq!(names(&after), ["deploy-dev", "dup", "plain", "rt"]);
    assert_eq!(winner_of(&after, "dup"), format!("Host({b}, 0)"));
    // Switched-off candidates are not shadowed duplicates.
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    let rt = &after.entries()[after.position("rt").expect("rt")];
    assert!(matches!(rt.winner, Winner::Runtime { .. }));
    assert_eq!(
        rt.invocation,
        InvocationPolicy {
            model_invocable: false,
            user_invocable: true
        }
    );
    assert_eq!(
        rt.applied.map(|a| (a.rule, a.effect)),
        Some((3, Effect::UserOnly))
    );
    let dev = &after.entries()[after.position("deploy-dev").expect("dev")];
    assert_eq!(
        dev.applied.map(|a| (a.rule, a.effect)),
        Some((2, Effect::On))
    );
    assert_eq!(dev.invocation, InvocationPolicy::default());
    assert_eq!(
        after.entries()[after.position("plain").expect("plain")].applied,
        None
    );

    // Back to no rules: the same merge as before.
    r.set_overrides(Overrides::default());
    let (again, _) = done(r.collect(Some("/w"), 0).finish(listings()));
    assert_eq!(names(&again), names(&before));
    assert!(again.entries().iter().all(|e| e.applied.is_none()));
}

#[test]
fn a_model_only_override_rewrites_a_native_winner() {
    let r = Registry::new(4).expect("registry");
    let fake = Arc::new(Fake::default());
    r.register_provider("fake", Some(fake)).expect("fake");
    r.set_overrides(overrides(
        json!([{ "provider": "fake", "effect": "model-only" }]),
    ));
    let (cat, _) = r.snapshot_native(&LookupContext::new(None));
    let model_only = InvocationPolicy {
        model_invocable: true,
        user_invocable: false,
    };
    assert_eq!(cat.entries()[0].invocation, model_only);
    let summaries: Vec<_> = cat.native_summaries().collect();
    assert_eq!(summaries[0].invocation, model_only);
}

#[test]
fn explain_lists_every_candidate_in_merge_order() {
    let r = Registry::new(4).expect("registry");
    let a = r.register_provider("a", None).expect("a");
    let fake = Arc::new(Fake::default());
    let native = r.register_provider("fake", Some(fake)).expect("fake");
    let b = r.register_provider("b", None).expect("b");
    let rt = r.register_runtime(runtime("dup")).expect("runtime");
    r.set_overrides(overrides(json!([
        { "name": "dup", "provider": "b", "source": "remote", "effect": "off" },
        { "name": "native", "effect": "user-only" },
    ])));
    let (cat, _) = done(r.collect(Some("/w"), 0).finish(vec![
        host(
            "a",
            &[("dup", 300.0), ("dup", 250.0), ("native", 5.0)],
            true,
        ),
        listed(vec![
            cand("native", "fake", 1.0),
            cand("dup", "fake", 250.0),
        ]),
        host("b", &[("dup", 100.0), ("other", 1.0)], true),
    ]));
    let rows = |name| -> Vec<String> {
        cat.explain(name)
            .iter()
            .map(|e| {
                let from = match e.from {
                    Contribution::Runtime { id } => format!("runtime {id}"),
                    Contribution::Host { slot, index } => format!("host {slot}/{index}"),
                    Contribution::Native { slot, candidate } => {
                        format!("native {slot} {}", candidate.summary.name)
                    }
                };
                let rule = e
                    .applied
                    .map_or(String::new(), |a| format!(" rule {} {}", a.rule, a.effect));
                format!(
                    "{} {from} {}/{} rank {} model {}{rule}",
                    e.outcome.as_str(),
                    e.provider,
                    e.source,
                    e.rank,
                    e.invocation.model_invocable
                )
            })
            .collect()
    };
    // b's rank 100 would have won, but it is switched off; the runtime
    // skill wins rank 250 by order over a's and the native provider's.
    assert_eq!(
        rows("dup"),
        [
            format!("won runtime {rt} runtime/runtime rank 250 model true"),
            format!("off host {b}/0 b/remote rank 100 model true rule 0 off"),
            format!("order host {a}/1 a/remote rank 250 model true"),
            format!("order native {native} dup fake/test rank 250 model true"),
            format!("rank host {a}/0 a/remote rank 300 model true"),
        ]
    );
    // A native winner, its invocation rewritten.
    assert_eq!(
        rows("native"),
        [
            format!("won native {native} native fake/test rank 1 model false rule 1 user-only"),
            format!("rank host {a}/2 a/remote rank 5 model false rule 1 user-only"),
        ]
    );
    assert_eq!(
        rows("other"),
        [format!("won host {b}/1 b/remote rank 1 model true")]
    );
    assert!(cat.explain("missing").is_empty());

    // Every candidate switched off: no winner, still explained.
    r.set_overrides(overrides(json!([{ "name": "other", "effect": "off" }])));
    let (cat, _) = done(r.collect(Some("/w"), 0).finish(vec![
        host("a", &[], true),
        listed(vec![]),
        host("b", &[("other", 1.0)], true),
    ]));
    assert!(cat.position("other").is_none());
    let explained = cat.explain("other");
    assert_eq!(explained.len(), 1);
    assert_eq!(explained[0].outcome, Outcome::Off);
}

#[derive(Default)]
struct Fake {
    invalidator: Mutex<Option<Arc<dyn Invalidate>>>,
    lists: AtomicUsize,
    disposed: std::sync::atomic::AtomicBool,
}

impl NativeProvider for Fake {
    fn name(&self) -> &str {
        "fake"
    }
    fn list(&self, _ctx: &LookupContext) -> (Observation, Vec<String>) {
        self.lists.fetch_add(1, Ordering::SeqCst);
        (
            Observation {
                candidates: vec![std::sync::Arc::new(cand("native", "fake", 1.0))],
                complete: true,
            },
            vec!["a warning".into()],
        )
    }
    fn get(
        &self,
        c: &Candidate,
        _ctx: &LookupContext,
    ) -> Result<Option<SkillDefinition>, ProviderError> {
        Ok(Some(SkillDefinition {
            summary: c.summary.clone(),
            content: "body".into(),
            path: None,
            metadata: None,
        }))
    }
    fn attach(&self, invalidator: Option<Arc<dyn Invalidate>>) {
        *self.invalidator.lock().expect("lock") = invalidator;
    }
    fn is_disposed(&self) -> bool {
        self.disposed.load(Ordering::SeqCst)
    }
}

#[test]
fn native_providers_are_attached_and_cached() {
    let r = Registry::new(2).expect("registry");
    let fake = Arc::new(Fake::default());
    let hook_calls = Arc::new(AtomicUsize::new(0));
    let h = hook_calls.clone();
    r.set_change_hook(Some(Box::new(move || {
        h.fetch_add(1, Ordering::SeqCst);
    })));
    let slot = r
        .register_provider("fake", Some(fake.clone()))
        .expect("fake");
    let ctx = LookupContext::new(None);
    let (cat, warnings) = r.snapshot_native(&ctx);
    assert_eq!(names(&cat), ["native"]);
    assert_eq!(warnings, vec!["a warning".to_string()]);
    let (again, _) = r.snapshot_native(&ctx);
    assert_eq!(again.id, cat.id);
    assert_eq!(fake.lists.load(Ordering::SeqCst), 1);

    let invalidator = fake
        .invalidator
        .lock()
        .expect("lock")
        .clone()
        .expect("attached");
    assert!(invalidator.invalidate());
    assert_eq!(hook_calls.load(Ordering::SeqCst), 1);
    let (third, _) = r.snapshot_native(&ctx);
    assert_ne!(third.id, cat.id);
    assert_eq!(fake.lists.load(Ordering::SeqCst), 2);

    assert!(r.unregister_provider(slot));
    assert!(fake.invalidator.lock().expect("lock").is_none());
    assert!(!invalidator.invalidate());
    assert_eq!(hook_calls.load(Ordering::SeqCst), 1);
}

#[test]
fn registry_is_dropped_when_unused() {
    let r = Registry::new(2).expect("registry");
    let fake = Arc::new(Fake::default());
    r.register_provider("fake", Some(fake.clone()))
        .expect("fake");
    let weak = Arc::downgrade(&r.shared);
    drop(r);
    assert!(
        weak.upgrade().is_none(),
        "the invalidator must not keep the registry alive"
    );
    let inv = fake
        .invalidator
        .lock()
        .expect("lock")
        .clone()
        .expect("attached");
    assert!(!inv.invalidate());
}
