//! Patching a view's previous catalog gives what a full merge gives: random
//! change sequences over three native providers (two in the global layer,
//! one in a scope), runtime skills in both layers and override rules, each
//! patched catalog compared with a fresh registry's full merge of the same
//! listings.

use super::*;
use crate::test_rng::Rng;
use std::sync::atomic::AtomicU64;

/// A native provider that is never asked: the test hands its listings to
/// the collections itself.
struct Quiet(&'static str);

impl NativeProvider for Quiet {
    fn name(&self) -> &str {
        self.0
    }
    fn list(&self, _ctx: &LookupContext) -> (Observation, Vec<String>) {
        (
            Observation {
                candidates: Vec::new(),
                complete: true,
            },
            Vec::new(),
        )
    }
    fn get(
        &self,
        _c: &Candidate,
        _ctx: &LookupContext,
    ) -> Result<Option<SkillDefinition>, ProviderError> {
        Ok(None)
    }
}

const PROVIDERS: [&str; 3] = ["zero", "one", "two"];
const NAMES: [&str; 9] = ["n0", "n1", "n2", "n3", "n4", "n5", "n6", "n7", "n8"];
const RANKS: [f64; 3] = [1.0, 5.0, 5.0];

/// A registry with the three providers (`two` in the scope `agent`), a
/// runtime skill in each layer and, with `rules`, override rules. Returns
/// the registry, the providers' slots and the scope's layer.
fn setup(rules: bool) -> (Registry, [u64; 3], LayerId) {
    let r = Registry::new(8).expect("registry");
    let zero = r
        .register_provider("zero", Some(Arc::new(Quiet("zero"))))
        .expect("zero");
    let one = r
        .register_provider("one", Some(Arc::new(Quiet("one"))))
        .expect("one");
    let two = r
        .register_provider_in(
            Target::Scope {
                layer: None,
                label: "\"agent\"",
            },
            "two",
            Some(Arc::new(Quiet("two"))),
        )
        .expect("two");
    r.register_runtime(runtime("n3")).expect("runtime");
    r.register_runtime_in(
        Target::Scope {
            layer: Some(two.layer),
            label: "\"agent\"",
        },
        runtime("n5"),
    )
    .expect("scoped runtime");
    if rules {
        r.set_overrides(overrides(json!([
            { "name": "n1", "effect": "off" },
            { "name": "n2", "effect": "user-only" },
            { "name": "n6", "provider": "one", "effect": "off" },
        ])));
    }
    (r, [zero, one, two.id], two.layer)
}

/// What a catalog says, registry ids aside.
fn describe(catalog: &Catalog) -> Vec<String> {
    catalog
        .entries()
        .iter()
        .map(|e| {
            let winner = match &e.winner {
                Winner::Runtime { .. } => "runtime".to_string(),
                Winner::Native { candidate, .. } => format!(
                    "{} {:?} {:?}",
                    candidate.summary.description,
                    candidate.summary.invocation,
                    candidate.fingerprint
                ),
                Winner::Host { .. } => "host".to_string(),
            };
            format!(
                "{} {:?} rank {} depth {} {winner} {:?}",
                catalog.name(e),
                e.invocation,
                e.rank,
                e.depth,
                e.applied.map(|a| a.effect)
            )
        })
        .collect()
}

/// Collect the view (`scope`: the scope's layer) with `lists` as the
/// providers' listings.
fn collect(
    r: &Registry,
    scope: Option<LayerId>,
    lists: &[Vec<Arc<Candidate>>; 3],
) -> (Arc<Catalog>, Vec<String>) {
    let layers = scope.map(|l| vec![l]);
    let c = r.collect_in(Some("/w"), layers.as_deref(), 0);
    let outcomes = c
        .providers
        .iter()
        .map(|p| {
            let at = PROVIDERS.iter().position(|n| *n == p.name).expect("known");
            ProviderOutcome::Listed(Observation {
                candidates: lists[at].clone(),
                complete: true,
            })
        })
        .collect();
    done(c.finish(outcomes))
}

#[test]
fn a_patched_catalog_is_the_full_merge() {
    let seed = std::env::var("DSH_PATCH_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x5eed_1234_u64);
    let counter = AtomicU64::new(0);
    let mut patched = 0;
    let mut steps = 0;
    for run in 0..24u64 {
        let mut rng = Rng(seed.wrapping_add(run.wrapping_mul(0x9e37_79b9)) | 1);
        let rules = run % 2 == 1;
        let (r, slots, layer) = setup(rules);
        let fresh = |rng: &mut Rng, provider: &str| {
            let n = counter.fetch_add(1, Ordering::Relaxed);
            let name = *rng.pick(&NAMES);
            let mut c = cand(name, provider, *rng.pick(&RANKS));
            c.summary.description = format!("{name} #{n}");
            // Equal fingerprints make some duplicates the same skill.
            c.fingerprint = match rng.below(3) {
                0 => None,
                k => Some(k as u128),
            };
            Arc::new(c)
        };
        let mut lists: [Vec<Arc<Candidate>>; 3] = Default::default();
        for (k, list) in lists.iter_mut().enumerate() {
            for _ in 0..rng.below(12) {
                list.push(fresh(&mut rng, PROVIDERS[k]));
            }
        }
        for step in 0..50 {
            // Change one or two providers' listings a little (now and then
            // a lot, or not at all), then invalidate them.
            let changed: Vec<usize> = (0..1 + rng.below(2)).map(|_| rng.below(3)).collect();
            for &k in &changed {
                let list = &mut lists[k];
                let ops = if rng.below(20) == 0 {
                    80
                } else {
                    1 + rng.below(3)
                };
                for _ in 0..ops {
                    match rng.below(5) {
                        0 if !list.is_empty() => {
                            let at = rng.below(list.len());
                            list.remove(at);
                        }
                        1 | 2 if !list.is_empty() => {
                            let at = rng.below(list.len());
                            list[at] = fresh(&mut rng, PROVIDERS[k]);
                        }
                        3 => {}
                        _ => {
                            let at = rng.below(list.len() + 1);
                            list.insert(at, fresh(&mut rng, PROVIDERS[k]));
                        }
                    }
                }
                if list.len() > 120 {
                    list.truncate(10);
                }
                assert!(r.invalidate(slots[k]));
            }
            for scope in [None, Some(layer)] {
                let (cat, warnings) = collect(&r, scope, &lists);
                let (base, _, base_layer) = setup(rules);
                let (full, full_warnings) = collect(&base, scope.map(|_| base_layer), &lists);
                let context = format!("seed {seed} run {run} step {step} scope {scope:?}");
                assert_eq!(describe(&cat), describe(&full), "{context}");
                assert_eq!(warnings, full_warnings, "{context}");
                assert_eq!(cat.host_held(), full.host_held(), "{context}");
                assert_eq!(cat.complete, full.complete, "{context}");
                for name in NAMES {
                    let rows = |c: &Catalog| -> Vec<String> {
                        c.explain(name)
                            .iter()
                            .map(|x| {
                                format!(
                                    "{:?} {} {} {} {} {:?}",
                                    x.outcome, x.provider, x.source, x.rank, x.depth, x.invocation
                                )
                            })
                            .collect()
                    };
                    assert_eq!(rows(&cat), rows(&full), "{context} explain {name}");
                }
                steps += 1;
            }
        }
        patched += r.patched();
    }
    // Most collections were patches (the rest: the first of each view, and
    // the changes past the patch budget).
    assert!(
        patched as usize * 10 > steps * 7,
        "{patched} of {steps} collections patched"
    );
}

#[test]
fn a_disposal_forgets_the_previous_catalogs() {
    let (r, slots, _) = setup(false);
    let lists: [Vec<Arc<Candidate>>; 3] = [
        vec![Arc::new(cand("n0", "zero", 1.0))],
        vec![Arc::new(cand("n1", "one", 1.0))],
        Vec::new(),
    ];
    collect(&r, None, &lists);
    assert!(r.invalidate(slots[0]));
    collect(&r, None, &lists);
    assert_eq!(r.patched(), 1);
    let held = Arc::downgrade(&lists[1][0]);
    assert!(r.invalidate(slots[0]));
    // `one` goes: the previous catalog (holding its candidate) goes with it.
    assert!(r.unregister_provider(slots[1]));
    drop(lists);
    assert!(
        held.upgrade().is_none(),
        "the disposed provider's candidate was kept"
    );
}

#[test]
fn two_identical_bundles_are_compared_again_after_any_change() {
    let dir = tempfile::tempdir().expect("tempdir");
    let bundle = |root: &str| {
        let skill = dir.path().join(root).join("n0");
        std::fs::create_dir_all(&skill).expect("mkdir");
        std::fs::write(skill.join("SKILL.md"), "same").expect("write");
        let mut c = cand("n0", "zero", 1.0);
        c.path = Some(skill.join("SKILL.md").to_string_lossy().into_owned());
        c.fingerprint = Some(7);
        Arc::new(c)
    };
    let (r, slots, _) = setup(false);
    let lists: [Vec<Arc<Candidate>>; 3] = [
        vec![bundle("a"), bundle("b")],
        vec![Arc::new(cand("n1", "one", 1.0))],
        Vec::new(),
    ];
    let (_, warnings) = collect(&r, None, &lists);
    assert!(warnings.is_empty(), "one skill in two places: {warnings:?}");
    // A resource appears in one bundle: the candidates stay the same.
    std::fs::write(dir.path().join("b/n0/extra.txt"), "more").expect("write");
    assert!(r.invalidate(slots[1]));
    let (_, warnings) = collect(&r, None, &lists);
    assert_eq!(r.patched(), 1);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].ends_with("; the two skill files differ"),
        "{warnings:?}"
    );
}
