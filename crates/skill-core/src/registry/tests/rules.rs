//! Override rules per scope layer: the nearest layer's matching rule decides,
//! an allow-list, rules without registrations, a re-link changing the rules on
//! the next read, exact caching per chain, and the same skill found twice.

use super::*;
use crate::same::fingerprint;
use crate::scoped_rules::Decided;

fn scope(label: &str) -> Target<'_> {
    Target::Scope { layer: None, label }
}

fn into(layer: LayerId, label: &str) -> Target<'_> {
    Target::Scope {
        layer: Some(layer),
        label,
    }
}

fn rules(value: serde_json::Value) -> Overrides {
    Overrides::from_json(&value).expect("valid rules")
}

/// The global provider `team` lists these names; collect the view of `chain`.
fn view(r: &Registry, chain: &[LayerId], listed: &[&str]) -> Arc<Catalog> {
    let items: Vec<(&str, f64)> = listed.iter().map(|n| (*n, 100.0)).collect();
    let collection = r.collect_in(Some("/w"), Some(chain), 0);
    let outcomes = collection
        .providers
        .iter()
        .map(|p| {
            if p.name == "team" {
                host("team", &items, true)
            } else {
                host(&p.name, &[], true)
            }
        })
        .collect();
    done(collection.finish(outcomes)).0
}

const NAMES: [&str; 5] = ["deploy", "lint", "notes", "review-code", "review-docs"];

#[test]
fn the_nearest_layer_with_a_matching_rule_decides() {
    let r = Registry::new(8).expect("registry");
    r.register_provider("team", None).expect("team");
    r.set_overrides(rules(json!([{ "name": "deploy", "effect": "off" }])));
    // Rules alone create a layer: no registration needed.
    let preset = r
        .set_overrides_in(
            scope("\"preset\""),
            rules(json!([
                { "name": "deploy", "effect": "on" },
                { "name": "lint", "effect": "off" },
                { "name": "notes", "effect": "user-only" },
            ])),
        )
        .expect("a layer for the preset's rules");
    let agent = r
        .set_overrides_in(
            scope("\"agent\""),
            rules(json!([{ "name": "lint", "effect": "on" }])),
        )
        .expect("a layer for the agent's rules");
    assert_ne!(preset, agent);
    assert_eq!(r.layers(), [GLOBAL_LAYER, preset, agent]);

    let global = view(&r, &[], &NAMES);
    assert_eq!(
        names(&global),
        ["lint", "notes", "review-code", "review-docs"]
    );
    let at_preset = view(&r, &[preset], &NAMES);
    assert_eq!(
        names(&at_preset),
        ["deploy", "notes", "review-code", "review-docs"]
    );
    let notes = &at_preset.entries()[at_preset.position("notes").expect("notes")];
    assert!(!notes.invocation.model_invocable && notes.invocation.user_invocable);
    let at_agent = view(&r, &[agent, preset], &NAMES);
    assert_eq!(names(&at_agent), NAMES);
    // explain() names the rule and its layer.
    let lint = at_agent.explain("lint");
    assert_eq!(lint[0].outcome, Outcome::Won);
    assert_eq!(
        lint[0].applied,
        Some(Decided {
            rule: 0,
            effect: Effect::On,
            layer: agent
        })
    );
    let deploy = at_agent.explain("deploy");
    assert_eq!(
        deploy[0].applied.map(|d| (d.layer, d.rule)),
        Some((preset, 0))
    );
    let off = at_preset.explain("lint");
    assert_eq!(off.len(), 1);
    assert_eq!(off[0].outcome, Outcome::Off);
    assert_eq!(off[0].applied.map(|d| (d.layer, d.rule)), Some((preset, 1)));
    // The global rules say so without a scope.
    assert_eq!(
        global.explain("deploy")[0].applied.map(|d| d.layer),
        Some(GLOBAL_LAYER)
    );
}

#[test]
fn an_allow_list_leaves_a_scope_only_the_names_it_lets_on() {
    let r = Registry::new(8).expect("registry");
    r.register_provider("team", None).expect("team");
    let reviewer = r
        .set_overrides_in(
            scope("\"reviewer\""),
            rules(json!([
                { "name": "*", "effect": "off" },
                { "name": "review-*", "effect": "on" },
            ])),
        )
        .expect("layer");
    // A preset's own runtime skill falls under its allow-list as well.
    r.register_runtime_in(into(reviewer, "\"reviewer\""), runtime("checklist"))
        .expect("runtime");
    let subagent = r
        .set_overrides_in(
            scope("\"subagent\""),
            rules(json!([
                { "name": "*", "effect": "off" },
                { "name": "review-code", "effect": "on" },
            ])),
        )
        .expect("layer");
    assert_eq!(
        names(&view(&r, &[reviewer], &NAMES)),
        ["review-code", "review-docs"]
    );
    assert_eq!(
        names(&view(&r, &[subagent, reviewer], &NAMES)),
        ["review-code"]
    );
    assert_eq!(names(&view(&r, &[], &NAMES)), NAMES);
}

#[test]
fn a_relink_changes_the_rules_on_the_next_read() {
    let r = Registry::new(8).expect("registry");
    r.register_provider("team", None).expect("team");
    let reviewer = r
        .set_overrides_in(
            scope("\"reviewer\""),
            rules(
                json!([{ "name": "*", "effect": "off" }, { "name": "review-*", "effect": "on" }]),
            ),
        )
        .expect("layer");
    let writer = r
        .set_overrides_in(
            scope("\"writer\""),
            rules(json!([{ "name": "review-*", "effect": "off" }])),
        )
        .expect("layer");
    // The agent has no layer of its own: its chain is its parents' layers.
    let under_reviewer = view(&r, &[reviewer], &NAMES);
    assert_eq!(names(&under_reviewer), ["review-code", "review-docs"]);
    // Cached for that chain…
    assert!(r.cached_in(Some("/w"), Some(&[reviewer])).is_some());
    // …and re-linked under the writer, the next read merges the writer's rules.
    assert!(r.cached_in(Some("/w"), Some(&[writer])).is_none());
    assert_eq!(
        names(&view(&r, &[writer], &NAMES)),
        ["deploy", "lint", "notes"]
    );
    // Both cached, one per chain.
    assert!(r.cached_in(Some("/w"), Some(&[reviewer])).is_some());
    assert!(r.cached_in(Some("/w"), Some(&[writer])).is_some());
}

#[test]
fn changing_a_layers_rules_drops_only_the_catalogs_that_merged_it() {
    let r = Registry::new(8).expect("registry");
    r.register_provider("team", None).expect("team");
    let a = r
        .set_overrides_in(
            scope("a"),
            rules(json!([{ "name": "deploy", "effect": "off" }])),
        )
        .expect("a");
    let b = r
        .set_overrides_in(
            scope("b"),
            rules(json!([{ "name": "lint", "effect": "off" }])),
        )
        .expect("b");
    let global = view(&r, &[], &NAMES);
    let at_a = view(&r, &[a], &NAMES);
    let at_b = view(&r, &[b], &NAMES);
    // Different rules never share a catalog.
    assert_ne!(names(&at_a), names(&at_b));
    assert!(at_a.id != at_b.id && at_a.id != global.id);
    r.take_evicted();
    let generation = r.generation();
    r.set_overrides_in(
        into(a, "a"),
        rules(json!([{ "name": "notes", "effect": "off" }])),
    );
    assert_eq!(r.generation(), generation + 1);
    assert_eq!(r.take_evicted(), [at_a.id]);
    assert_eq!(r.cached_in(Some("/w"), None).map(|c| c.id), Some(global.id));
    assert_eq!(
        r.cached_in(Some("/w"), Some(&[b])).map(|c| c.id),
        Some(at_b.id)
    );
    assert!(r.cached_in(Some("/w"), Some(&[a])).is_none());
    assert!(!names(&view(&r, &[a], &NAMES)).contains(&"notes"));
    // Empty rules drop a layer that holds nothing else; reads of its chain
    // see the global layer alone again.
    assert_eq!(r.set_overrides_in(into(b, "b"), Overrides::default()), None);
    assert_eq!(r.layers(), [GLOBAL_LAYER, a]);
    assert_eq!(names(&view(&r, &[b], &NAMES)), NAMES);
    assert_eq!(r.set_overrides_in(scope("c"), Overrides::default()), None);
    // A layer with registrations stays when its rules go.
    r.register_runtime_in(into(a, "a"), runtime("own"))
        .expect("own");
    assert_eq!(
        r.set_overrides_in(into(a, "a"), Overrides::default()),
        Some(a)
    );
    assert_eq!(r.overrides_in(a).map(|o| o.len()), Some(0));
    // The global rules drop every catalog.
    view(&r, &[a], &NAMES);
    view(&r, &[], &NAMES);
    r.take_evicted();
    r.set_overrides_in(
        Target::Global,
        rules(json!([{ "name": "lint", "effect": "off" }])),
    );
    assert_eq!(r.take_evicted().len(), 2);
}

#[test]
fn without_scoped_rules_nothing_changes() {
    // The same registrations and reads, with and without rules on a scope
    // the reads do not use: the same names, invocations and warnings.
    let plain = Registry::new(8).expect("registry");
    let ruled = Registry::new(8).expect("registry");
    for r in [&plain, &ruled] {
        r.register_provider("team", None).expect("team");
    }
    ruled.set_overrides_in(scope("elsewhere"), rules(json!([{ "effect": "off" }])));
    let read = |r: &Registry| {
        let c = r.collect_in(Some("/w"), None, 0);
        let (cat, warnings) = done(c.finish(vec![host(
            "team",
            &[("a", 1.0), ("b", 2.0), ("a", 3.0)],
            true,
        )]));
        let entries: Vec<_> = cat
            .entries()
            .iter()
            .map(|e| (cat.name(e).to_string(), e.invocation, e.applied))
            .collect();
        (entries, warnings)
    };
    assert_eq!(read(&plain), read(&ruled));
}

/// A native candidate read from `text` (the local provider's fingerprint).
fn file(name: &str, path: &str, text: &str, rank: f64) -> Candidate {
    Candidate {
        path: Some(path.into()),
        fingerprint: Some(fingerprint(text)),
        ..cand(name, "local", rank)
    }
}

#[test]
fn the_same_skill_twice_is_no_conflict() {
    let r = Registry::new(8).expect("registry");
    // A native provider (the outcomes below are handed over as its listing).
    r.register_provider("local", Some(Arc::new(Fake::default())))
        .expect("local");
    let collection = r.collect(Some("/w"), 0);
    let (cat, warnings) = done(collection.finish(vec![listed(vec![
        file(
            "review",
            "/agents/review.md",
            "---\nname: review\n---\nBody\n",
            300.0,
        ),
        file(
            "review",
            "/dsh/review.md",
            "---\nname: review\n---\nBody\n",
            300.0,
        ),
        file(
            "deploy",
            "/agents/deploy.md",
            "---\nname: deploy\n---\nOne\n",
            300.0,
        ),
        file(
            "deploy",
            "/dsh/deploy.md",
            "---\nname: deploy\n---\nTwo\n",
            400.0,
        ),
        // A candidate without a fingerprint cannot be compared.
        cand("deploy", "local", 500.0),
    ])]));
    assert_eq!(names(&cat), ["deploy", "review"]);
    // No warning for the same skill; the different one says they differ.
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(
        warnings[0].contains("rank 400") && warnings[0].ends_with("; the two skill files differ")
    );
    assert!(warnings[1].contains("rank 500") && warnings[1].ends_with("rank 300)"));
    let review = cat.explain("review");
    assert_eq!(
        review.iter().map(|e| e.outcome).collect::<Vec<_>>(),
        [Outcome::Won, Outcome::Same]
    );
    let deploy = cat.explain("deploy");
    assert_eq!(
        deploy.iter().map(|e| e.outcome).collect::<Vec<_>>(),
        [Outcome::Won, Outcome::Rank, Outcome::Rank]
    );
}
