//! The layer rules: nearest layer wins outright, rank only inside a layer,
//! names unique per layer, runtime skills per layer, the cache keyed by
//! chain, per-layer invalidation, empty layers dropped, stability per chain,
//! and `explain()` across layers.

use super::*;

fn scope(label: &str) -> Target<'_> {
    Target::Scope { layer: None, label }
}

fn into(layer: LayerId, label: &str) -> Target<'_> {
    Target::Scope {
        layer: Some(layer),
        label,
    }
}

/// Winner of `name` as `provider@layer`.
fn won_by(catalog: &Catalog, name: &str) -> String {
    let entry = &catalog.entries()[catalog.position(name).expect("listed")];
    let provider = match &entry.winner {
        Winner::Runtime { .. } => "runtime".to_string(),
        Winner::Host { slot, .. } | Winner::Native { slot, .. } => format!("slot {slot}"),
    };
    format!("{provider}@{}", catalog.layer_of(entry))
}

#[test]
fn the_nearest_layer_wins_a_name_outright_and_rank_decides_only_inside_a_layer() {
    let r = Registry::new(8).expect("registry");
    let global = r.register_provider("team", None).expect("global team");
    let preset = r
        .register_provider_in(scope("\"preset\""), "team", None)
        .expect("scoped team");
    let other = r
        .register_provider_in(into(preset.layer, "\"preset\""), "other", None)
        .expect("second provider of the preset");
    assert_eq!(other.layer, preset.layer);
    let agent = r
        .register_provider_in(scope("\"agent\""), "agent", None)
        .expect("agent");
    assert_ne!(agent.layer, preset.layer);

    let chain = [agent.layer, preset.layer];
    let collection = r.collect_in(Some("/w"), Some(&chain), 0);
    assert_eq!(
        collection.layers(),
        [agent.layer, preset.layer, GLOBAL_LAYER]
    );
    // Planned nearest layer first: agent, then the preset's two, then global.
    let planned: Vec<u64> = collection.providers.iter().map(|p| p.slot).collect();
    assert_eq!(planned, [agent.id, preset.id, other.id, global]);
    let (cat, warnings) = done(collection.finish(vec![
        host("agent", &[("mine", 900.0)], true),
        host(
            "team",
            &[("shared", 800.0), ("dup", 50.0), ("dup", 40.0)],
            true,
        ),
        host("other", &[("dup", 40.0), ("mine", 1.0)], true),
        host(
            "team",
            &[("shared", 1.0), ("dup", 1.0), ("global-only", 5.0)],
            true,
        ),
    ]));
    assert!(cat.complete);
    assert_eq!(cat.chain(), [agent.layer, preset.layer]);
    assert_eq!(names(&cat), ["dup", "global-only", "mine", "shared"]);
    // Nearest layer wins whatever the ranks of farther ones.
    assert_eq!(
        won_by(&cat, "mine"),
        format!("slot {}@{}", agent.id, agent.layer)
    );
    assert_eq!(
        won_by(&cat, "shared"),
        format!("slot {}@{}", preset.id, preset.layer)
    );
    // Inside the preset's layer: rank 40 beats 50, then registration order.
    let dup = &cat.entries()[cat.position("dup").expect("dup")];
    assert_eq!(
        format!("{:?}", dup.winner),
        format!("Host({}, 2)", preset.id)
    );
    assert_eq!((dup.rank, dup.depth), (40.0, 1));
    let global_only = &cat.entries()[cat.position("global-only").expect("global-only")];
    assert_eq!(
        (cat.layer_of(global_only), global_only.depth),
        (GLOBAL_LAYER, 2)
    );
    assert_eq!(cat.layer_at(0), agent.layer);
    // Shadowing inside a layer is warned about; a nearer layer taking a name
    // is not.
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(warnings.iter().all(|w| w.starts_with("skill \"dup\"")));

    // Without a scope: the global layer alone, as before.
    let (global_view, _) = done(r.collect(Some("/w"), 0).finish(vec![host(
        "team",
        &[("shared", 1.0), ("dup", 1.0), ("global-only", 5.0)],
        true,
    )]));
    assert_eq!(names(&global_view), ["dup", "global-only", "shared"]);
    assert!(global_view.chain().is_empty());
    assert!(global_view.entries().iter().all(|e| e.depth == 0));
}

#[test]
fn provider_names_are_unique_per_layer_and_errors_name_the_scope() {
    let r = Registry::new(4).expect("registry");
    r.register_provider("p", None).expect("global p");
    assert_eq!(
        r.register_provider("p", None),
        Err(RegistryError::DuplicateName("p".into()))
    );
    assert_eq!(
        RegistryError::DuplicateName("p".into()).to_string(),
        "skill provider \"p\" is already registered in the global layer"
    );
    let scoped = r
        .register_provider_in(scope("\"reviewer\""), "p", None)
        .expect("same name in a scope's layer");
    let err = r
        .register_provider_in(into(scoped.layer, "\"ignored\""), "p", None)
        .expect_err("duplicate inside the scope's layer");
    assert_eq!(
        err.to_string(),
        "skill provider \"p\" is already registered in the layer of scope \"reviewer\""
    );
    assert_eq!(
        r.register_provider_in(scope("#2"), "runtime", None),
        Err(RegistryError::ReservedName)
    );
    assert_eq!(
        r.register_provider_in(scope("#2"), "", None),
        Err(RegistryError::EmptyName)
    );
    // Refused registrations create no layer.
    assert_eq!(r.layers(), [GLOBAL_LAYER, scoped.layer]);
}

#[test]
fn a_native_provider_object_serves_one_registration() {
    let r = Registry::new(4).expect("registry");
    let fake = Arc::new(Fake::default());
    let first = r
        .register_provider_in(Target::Global, "fake", Some(fake.clone()))
        .expect("first");
    let generation = r.generation();
    // Under another name, in another layer: still the same object.
    for target in [Target::Global, scope("#1")] {
        assert_eq!(
            r.register_provider_in(target, "other", Some(fake.clone())),
            Err(RegistryError::AlreadyRegistered("other".into()))
        );
    }
    assert_eq!(r.generation(), generation);
    assert_eq!(r.layers(), [GLOBAL_LAYER]);
    // The first registration keeps its invalidator.
    let held = fake.invalidator.lock().expect("lock").clone();
    assert!(held.is_some_and(|i| i.invalidate()));
    assert!(r.unregister_provider(first.id));
    let again = r
        .register_provider_in(scope("#1"), "fake", Some(fake.clone()))
        .expect("free again once unregistered");
    assert!(r.unregister_provider(again.id));
}

#[test]
fn a_disposed_native_provider_is_refused() {
    let r = Registry::new(4).expect("registry");
    let fake = Arc::new(Fake::default());
    fake.disposed.store(true, Ordering::SeqCst);
    let generation = r.generation();
    assert_eq!(
        r.register_provider("fake", Some(fake.clone())),
        Err(RegistryError::Disposed("fake".into()))
    );
    assert_eq!(
        r.register_provider_in(scope("#1"), "fake", Some(fake.clone())),
        Err(RegistryError::Disposed("fake".into()))
    );
    assert!(RegistryError::Disposed("fake".into())
        .to_string()
        .contains("was disposed and cannot be registered again"));
    assert_eq!(r.generation(), generation);
    assert!(fake.invalidator.lock().expect("lock").is_none());
    assert_eq!(r.layers(), [GLOBAL_LAYER]);
}

#[test]
fn runtime_skills_are_first_wins_per_layer_and_a_scoped_one_shadows_a_global_one() {
    let r = Registry::new(4).expect("registry");
    let global = r.register_runtime(runtime("helper")).expect("global");
    assert!(r.register_runtime(runtime("helper")).is_none());
    let scoped = r
        .register_runtime_in(scope("#1"), runtime("helper"))
        .expect("same name in a scope's layer");
    assert!(r
        .register_runtime_in(into(scoped.layer, "#1"), runtime("helper"))
        .is_none());
    assert_eq!(r.layer_of(scoped.id), Some(scoped.layer));
    assert_eq!(r.layer_of(global), Some(GLOBAL_LAYER));
    r.register_provider("p", None).expect("p");

    // The scoped runtime skill wins over the global one and over a global
    // provider's better rank.
    let (cat, warnings) = done(
        r.collect_in(None, Some(&[scoped.layer]), 0)
            .finish(vec![host("p", &[("helper", 1.0)], true)]),
    );
    let entry = &cat.entries()[0];
    assert!(matches!(entry.winner, Winner::Runtime { id } if id == scoped.id));
    assert_eq!(cat.layer_of(entry), scoped.layer);
    assert!(warnings.is_empty(), "{warnings:?}");
    // In the global view, the provider's rank 1 beats the global runtime skill.
    let (cat, warnings) = done(r.collect(None, 0).finish(vec![host(
        "p",
        &[("helper", 1.0)],
        true,
    )]));
    assert!(matches!(cat.entries()[0].winner, Winner::Host { .. }));
    assert_eq!(warnings.len(), 1);
}

#[test]
fn catalogs_are_cached_per_cwd_and_chain() {
    let r = Registry::new(8).expect("registry");
    r.register_provider("g", None).expect("g");
    let a = r
        .register_provider_in(scope("\"a\""), "a", None)
        .expect("a");
    let b = r
        .register_provider_in(scope("\"b\""), "b", None)
        .expect("b");
    let collect = |chain: &[LayerId]| {
        let collection = r.collect_in(Some("/w"), Some(chain), 0);
        let outcomes = collection
            .providers
            .iter()
            .map(|p| host(&p.name, &[(p.name.as_str(), 1.0)], true))
            .collect();
        done(collection.finish(outcomes)).0
    };
    let global = done(
        r.collect(Some("/w"), 0)
            .finish(vec![host("g", &[("g", 1.0)], true)]),
    )
    .0;
    let ab = collect(&[a.layer, b.layer]);
    let ba = collect(&[b.layer, a.layer]);
    let only_a = collect(&[a.layer]);
    assert_eq!(names(&ab), ["a", "b", "g"]);
    let ids = [global.id, ab.id, ba.id, only_a.id];
    for (chain, id) in [
        (None, global.id),
        (Some(&[a.layer, b.layer][..]), ab.id),
        (Some(&[b.layer, a.layer][..]), ba.id),
        (Some(&[a.layer][..]), only_a.id),
    ] {
        assert_eq!(r.cached_in(Some("/w"), chain).map(|c| c.id), Some(id));
    }
    assert_eq!(
        ids.iter().collect::<std::collections::HashSet<_>>().len(),
        4
    );
    // A scope whose chain has no layer sees the global view, cached once.
    assert_eq!(
        r.cached_in(Some("/w"), Some(&[])).map(|c| c.id),
        Some(global.id)
    );
    // Repeats, the global layer and dropped or unknown ids do not change the key.
    assert_eq!(
        r.cached_in(Some("/w"), Some(&[a.layer, GLOBAL_LAYER, a.layer, 9999]))
            .map(|c| c.id),
        Some(only_a.id)
    );
    // The cwd is part of the key, in any spelling of one directory.
    assert!(r.cached_in(Some("/x"), Some(&[a.layer])).is_none());
    for spelling in ["/w/", "/w/.", "/w/../w", "//w"] {
        assert_eq!(
            r.cached_in(Some(spelling), Some(&[a.layer])).map(|c| c.id),
            Some(only_a.id),
            "{spelling}"
        );
    }
}

#[test]
fn invalidation_affects_only_the_catalogs_that_merged_the_layer() {
    let r = Registry::new(8).expect("registry");
    let g = r.register_provider("g", None).expect("g");
    let a = r
        .register_provider_in(scope("\"a\""), "a", None)
        .expect("a");
    let b = r
        .register_provider_in(scope("\"b\""), "b", None)
        .expect("b");
    let fill = |chain: Option<&[LayerId]>| {
        let collection = r.collect_in(None, chain, 0);
        let outcomes = collection
            .providers
            .iter()
            .map(|p| host(&p.name, &[], true))
            .collect();
        done(collection.finish(outcomes)).0.id
    };
    let views: [Option<&[LayerId]>; 4] = [
        None,
        Some(&[a.layer]),
        Some(&[b.layer]),
        Some(&[a.layer, b.layer]),
    ];
    let cached = |r: &Registry| -> Vec<bool> {
        views
            .iter()
            .map(|v| r.cached_in(None, *v).is_some())
            .collect()
    };
    for view in views {
        fill(view);
    }
    r.take_evicted();
    assert_eq!(cached(&r), [true; 4]);
    assert!(r.invalidate(a.id));
    assert_eq!(cached(&r), [true, false, true, false]);
    assert_eq!(r.take_evicted().len(), 2);
    for view in views {
        fill(view);
    }
    // A runtime skill added to b's layer.
    let rt = r
        .register_runtime_in(into(b.layer, "\"b\""), runtime("x"))
        .expect("runtime");
    assert_eq!(cached(&r), [true, true, false, false]);
    assert!(r.unregister_runtime(rt.id));
    for view in views {
        fill(view);
    }
    // The global layer is in every view.
    assert!(r.invalidate(g));
    assert_eq!(cached(&r), [false; 4]);
    for view in views {
        fill(view);
    }
    r.set_overrides(Overrides::default());
    assert_eq!(cached(&r), [false; 4]);
}

#[test]
fn a_layer_left_empty_is_dropped_and_its_id_never_used_again() {
    let r = Registry::new(4).expect("registry");
    let p = r.register_provider_in(scope("#1"), "p", None).expect("p");
    let q = r
        .register_provider_in(into(p.layer, "#1"), "q", None)
        .expect("q");
    let rt = r
        .register_runtime_in(into(p.layer, "#1"), runtime("x"))
        .expect("runtime");
    assert_eq!(r.layers(), [GLOBAL_LAYER, p.layer]);
    let done_catalog = done(
        r.collect_in(None, Some(&[p.layer]), 0)
            .finish(vec![host("p", &[], true), host("q", &[], true)]),
    )
    .0;
    assert!(done_catalog.complete);
    assert!(r.unregister_provider(p.id));
    assert!(r.unregister_runtime(rt.id));
    assert_eq!(r.layers(), [GLOBAL_LAYER, p.layer]);
    assert!(r.unregister_provider(q.id));
    assert_eq!(r.layers(), [GLOBAL_LAYER]);
    assert!(r.cached_in(None, Some(&[p.layer])).is_none());
    // The host still holds the dropped id for its scope: the next
    // registration gets a new layer.
    let again = r
        .register_runtime_in(into(p.layer, "#1"), runtime("x"))
        .expect("runtime again");
    assert_ne!(again.layer, p.layer);
    assert_eq!(r.layers(), [GLOBAL_LAYER, again.layer]);
    // A read naming the dropped id sees nothing of it.
    let collection = r.collect_in(None, Some(&[p.layer]), 0);
    assert_eq!(collection.layers(), [GLOBAL_LAYER]);
    // The global layer is never dropped.
    let g = r.register_provider("g", None).expect("g");
    assert!(r.unregister_provider(g));
    assert_eq!(r.layers(), [GLOBAL_LAYER, again.layer]);
}

#[test]
fn stability_and_retries_follow_the_layers_of_the_view() {
    let r = Registry::new(4).expect("registry");
    let a = r
        .register_provider_in(scope("\"a\""), "a", None)
        .expect("a");
    let b = r
        .register_provider_in(scope("\"b\""), "b", None)
        .expect("b");
    // A change in a layer outside the view leaves the collection stable.
    let collection = r.collect_in(Some("/w"), Some(&[a.layer]), 0);
    let flight = r.flight_key(Some("/w"), Some(&[a.layer]));
    assert!(r.invalidate(b.id));
    assert_eq!(r.flight_key(Some("/w"), Some(&[a.layer])), flight);
    let (cat, _) = done(collection.finish(vec![host("a", &[("x", 1.0)], true)]));
    assert!(cat.complete);
    // A change in a layer of the view: retry once, then incomplete.
    let collection = r.collect_in(Some("/w"), Some(&[a.layer]), 0);
    assert!(r.invalidate(a.id));
    assert_ne!(r.flight_key(Some("/w"), Some(&[a.layer])), flight);
    assert!(matches!(
        collection.finish(vec![host("a", &[], true)]),
        Finish::Retry
    ));
    let retry = r.collect_in(Some("/w"), Some(&[a.layer]), 1);
    assert!(r.invalidate(a.id));
    let (cat, _) = done(retry.finish(vec![host("a", &[("x", 1.0)], true)]));
    assert!(!cat.complete);
    assert!(r.cached_in(Some("/w"), Some(&[a.layer])).is_none());
    // A layer created meanwhile (maybe for a key of the scope's chain) makes
    // a scoped collection unstable, not a collection without scope.
    let scoped = r.collect_in(Some("/w"), Some(&[a.layer]), 0);
    let unscoped = r.collect(Some("/w"), 0);
    let key = r.flight_key(Some("/w"), Some(&[a.layer]));
    let unscoped_key = r.flight_key(Some("/w"), None);
    let c = r
        .register_runtime_in(scope("\"c\""), runtime("y"))
        .expect("new layer");
    assert_ne!(r.flight_key(Some("/w"), Some(&[a.layer])), key);
    assert_eq!(r.flight_key(Some("/w"), None), unscoped_key);
    assert!(matches!(
        scoped.finish(vec![host("a", &[], true)]),
        Finish::Retry
    ));
    assert!(done(unscoped.finish(vec![])).0.complete);
    // A layer of the view dropped meanwhile: unstable too.
    let collection = r.collect_in(Some("/w"), Some(&[c.layer, a.layer]), 0);
    assert!(r.unregister_runtime(c.id));
    assert!(matches!(
        collection.finish(vec![host("a", &[], true)]),
        Finish::Retry
    ));
}

#[test]
fn flight_keys_name_the_normalised_cwd_and_the_layers_at_their_generations() {
    let r = Registry::new(4).expect("registry");
    let a = r
        .register_provider_in(scope("\"a\""), "a", None)
        .expect("a");
    let key = |cwd: Option<&str>, scope: Option<&[LayerId]>| r.flight_key(cwd, scope);
    let base = key(Some("/tmp"), None);
    for spelling in ["/tmp/", "/tmp/.", "/tmp/../tmp"] {
        assert_eq!(key(Some(spelling), None), base, "{spelling}");
    }
    assert_ne!(key(None, None), base);
    assert_ne!(key(Some("/tmp"), Some(&[a.layer])), base);
    // A scope whose chain has no layer is still a scoped read.
    assert_ne!(key(Some("/tmp"), Some(&[])), base);
    let before = key(Some("/tmp"), Some(&[a.layer]));
    r.register_provider("g", None).expect("g");
    assert_ne!(key(Some("/tmp"), Some(&[a.layer])), before);
    assert_ne!(key(Some("/tmp"), None), base);
}

#[test]
fn explain_says_when_a_candidate_lost_to_a_nearer_layer() {
    let r = Registry::new(4).expect("registry");
    let global = r.register_provider("team", None).expect("global");
    let preset = r
        .register_provider_in(scope("\"preset\""), "team", None)
        .expect("preset");
    let rt = r
        .register_runtime_in(into(preset.layer, "\"preset\""), runtime("lint"))
        .expect("runtime");
    let listings = || {
        vec![
            host("team", &[("review", 500.0), ("review", 400.0)], true),
            host(
                "team",
                &[("review", 1.0), ("lint", 1.0), ("deploy", 1.0)],
                true,
            ),
        ]
    };
    let (cat, _) = done(
        r.collect_in(None, Some(&[preset.layer]), 0)
            .finish(listings()),
    );
    let rows = |cat: &Catalog, name: &str| -> Vec<String> {
        cat.explain(name)
            .iter()
            .map(|e| {
                format!(
                    "{} {}@{} rank {}",
                    e.outcome.as_str(),
                    e.provider,
                    e.depth,
                    e.rank
                )
            })
            .collect()
    };
    assert_eq!(
        rows(&cat, "review"),
        [
            "won team@0 rank 400",
            "rank team@0 rank 500",
            "scope team@1 rank 1",
        ]
    );
    assert_eq!(
        rows(&cat, "lint"),
        ["won runtime@0 rank 250", "scope team@1 rank 1"]
    );
    let lint = &cat.explain("lint")[0];
    assert!(matches!(lint.from, Contribution::Runtime { id } if id == rt.id));
    assert_eq!(lint.layer, preset.layer);
    assert_eq!(rows(&cat, "deploy"), ["won team@1 rank 1"]);

    // Switched off in the nearer layer: the farther copy wins.
    r.set_overrides(overrides(
        json!([{ "name": "lint", "source": "runtime", "effect": "off" }]),
    ));
    let (cat, _) = done(
        r.collect_in(None, Some(&[preset.layer]), 0)
            .finish(listings()),
    );
    assert_eq!(
        rows(&cat, "lint"),
        ["won team@1 rank 1", "off runtime@0 rank 250"]
    );
    let lint = &cat.entries()[cat.position("lint").expect("lint")];
    assert_eq!(format!("{:?}", lint.winner), format!("Host({global}, 1)"));
}
