//! Scope resolution on arbitrary sequences of registrations, disposals and
//! scoped reads, held to a simple model: per scope, the layer it has (a new
//! one, never reused, once its last registration went), its runtime skills
//! and providers; a read's winner of a name is the runtime skill of the
//! nearest layer of its chain holding that name (the global layer last).
//! Checked on every step: duplicates refused per layer, each registration's
//! layer, the alive layers, every read's names, winners and their layers, and
//! its completeness (JS providers are reported failed here, so a view with
//! one is incomplete, never cached).
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use skill_core::model::{InvocationPolicy, RuntimeSkill};
use skill_core::provider::LookupContext;
use skill_core::registry::{LayerId, Registry, RegistryError, Target, Winner, GLOBAL_LAYER};
use std::collections::BTreeMap;

/// Scopes 1..=SCOPES (0 is the global layer).
const SCOPES: u8 = 6;
/// Skill and provider names come from a small set, so they collide.
const NAMES: u8 = 5;

#[derive(Arbitrary, Debug)]
enum Op {
    Runtime { scope: u8, name: u8 },
    Provider { scope: u8, name: u8 },
    DisposeRuntime { pick: u8 },
    DisposeProvider { pick: u8 },
    Read { chain: Vec<u8>, twice: bool },
}

#[derive(Default)]
struct Scope {
    /// The layer the host last got for this scope (maybe dropped since).
    layer: Option<LayerId>,
    /// Runtime skills, in registration order: (id, name).
    runtime: Vec<(u64, String)>,
    /// Providers: (slot, name).
    providers: Vec<(u64, String)>,
}

impl Scope {
    fn is_empty(&self) -> bool {
        self.runtime.is_empty() && self.providers.is_empty()
    }
}

struct Model {
    /// Index 0: the global layer.
    scopes: Vec<Scope>,
    /// Every runtime id ever handed out, live or not: (scope, id).
    runtime_ids: Vec<(usize, u64)>,
    provider_ids: Vec<(usize, u64)>,
}

fn scope_of(byte: u8) -> usize {
    usize::from(byte % (SCOPES + 1))
}

fn name_of(byte: u8) -> String {
    format!("skill-{}", byte % NAMES)
}

fn label(scope: usize) -> String {
    format!("#{scope}")
}

fn skill(name: &str) -> RuntimeSkill {
    RuntimeSkill {
        name: name.to_string(),
        invocation: InvocationPolicy {
            model_invocable: true,
            user_invocable: true,
        },
        source: "fuzz".to_string(),
        provider: "runtime".to_string(),
    }
}

impl Model {
    /// The layer the model expects `scope` to have now (`None`: none alive).
    fn alive_layer(&self, scope: usize) -> Option<LayerId> {
        if scope == 0 {
            return Some(GLOBAL_LAYER);
        }
        let s = &self.scopes[scope];
        if s.is_empty() {
            None
        } else {
            s.layer
        }
    }

    /// What the host hands the registry for a registration in `scope`.
    fn target<'a>(&self, scope: usize, label: &'a str) -> Target<'a> {
        if scope == 0 {
            Target::Global
        } else {
            Target::Scope {
                layer: self.scopes[scope].layer,
                label,
            }
        }
    }

    /// A scope that got `layer` back from a registration: the same as before
    /// while it had registrations, else a new layer above every earlier id.
    fn filed(&mut self, scope: usize, layer: LayerId, newest: &mut LayerId) {
        if scope == 0 {
            assert_eq!(layer, GLOBAL_LAYER);
            return;
        }
        match self.alive_layer(scope) {
            Some(existing) => assert_eq!(layer, existing, "a scope keeps its alive layer"),
            None => {
                assert!(layer > *newest, "a new layer gets a new id");
                *newest = layer;
            }
        }
        self.scopes[scope].layer = Some(layer);
    }
}

fuzz_target!(|ops: Vec<Op>| {
    let registry = Registry::new(4).expect("registry");
    let mut model = Model {
        scopes: (0..=SCOPES).map(|_| Scope::default()).collect(),
        runtime_ids: Vec::new(),
        provider_ids: Vec::new(),
    };
    // The newest id seen (layers, slots and runtime ids share one counter).
    let mut newest: u64 = 0;
    let ctx = LookupContext::new(None);
    for op in ops.into_iter().take(200) {
        match op {
            Op::Runtime { scope, name } => {
                let (scope, name) = (scope_of(scope), name_of(name));
                let label = label(scope);
                let taken = model.scopes[scope].runtime.iter().any(|(_, n)| *n == name);
                let got = registry.register_runtime_in(model.target(scope, &label), skill(&name));
                assert_eq!(
                    got.is_none(),
                    taken,
                    "runtime skills are first-wins per layer"
                );
                if let Some(r) = got {
                    model.filed(scope, r.layer, &mut newest);
                    newest = newest.max(r.id);
                    model.scopes[scope].runtime.push((r.id, name));
                    model.runtime_ids.push((scope, r.id));
                }
            }
            Op::Provider { scope, name } => {
                let (scope, name) = (scope_of(scope), format!("p{}", name % NAMES));
                let label = label(scope);
                let taken = model.scopes[scope]
                    .providers
                    .iter()
                    .any(|(_, n)| *n == name);
                match registry.register_provider_in(model.target(scope, &label), &name, None) {
                    Ok(r) => {
                        assert!(!taken, "provider names are unique per layer");
                        model.filed(scope, r.layer, &mut newest);
                        newest = newest.max(r.id);
                        model.scopes[scope].providers.push((r.id, name));
                        model.provider_ids.push((scope, r.id));
                    }
                    Err(RegistryError::DuplicateName(n)) => {
                        assert!(taken && scope == 0 && n == name);
                    }
                    Err(RegistryError::DuplicateNameInScope { name: n, scope: s }) => {
                        assert!(taken && scope != 0 && n == name && s == label);
                    }
                    Err(other) => panic!("unexpected {other:?}"),
                }
            }
            Op::DisposeRuntime { pick } => {
                let Some(&(scope, id)) = model
                    .runtime_ids
                    .get(usize::from(pick) % model.runtime_ids.len().max(1))
                else {
                    continue;
                };
                let live = model.scopes[scope]
                    .runtime
                    .iter()
                    .position(|(i, _)| *i == id);
                assert_eq!(registry.unregister_runtime(id), live.is_some());
                if let Some(at) = live {
                    model.scopes[scope].runtime.remove(at);
                }
                assert_eq!(registry.layer_of(id), None);
            }
            Op::DisposeProvider { pick } => {
                let Some(&(scope, id)) = model
                    .provider_ids
                    .get(usize::from(pick) % model.provider_ids.len().max(1))
                else {
                    continue;
                };
                let live = model.scopes[scope]
                    .providers
                    .iter()
                    .position(|(i, _)| *i == id);
                assert_eq!(registry.invalidate(id), live.is_some());
                assert_eq!(registry.unregister_provider(id), live.is_some());
                if let Some(at) = live {
                    model.scopes[scope].providers.remove(at);
                }
                assert_eq!(registry.layer_of(id), None);
            }
            Op::Read { chain, twice } => {
                // The host's chain: each key's last layer, if it ever had one.
                let keys: Vec<usize> = chain
                    .iter()
                    .take(8)
                    .map(|&b| 1 + usize::from(b % SCOPES))
                    .collect();
                let ids: Vec<LayerId> =
                    keys.iter().filter_map(|&k| model.scopes[k].layer).collect();
                // The model's view: the alive layers of the chain's keys, nearest first, each once, then global.
                let mut view: Vec<usize> = Vec::new();
                for &k in &keys {
                    if model.alive_layer(k).is_some() && !view.contains(&k) {
                        view.push(k);
                    }
                }
                view.push(0);
                let mut expected: BTreeMap<String, (u64, LayerId)> = BTreeMap::new();
                for &s in &view {
                    let layer = model.alive_layer(s).expect("alive");
                    for (id, name) in &model.scopes[s].runtime {
                        expected.entry(name.clone()).or_insert((*id, layer));
                    }
                }
                let complete = view.iter().all(|&s| model.scopes[s].providers.is_empty());
                for _ in 0..(1 + usize::from(twice)) {
                    let (catalog, _) = registry.snapshot_native_in(&ctx, Some(&ids));
                    assert_eq!(catalog.complete, complete);
                    let got: BTreeMap<String, (u64, LayerId)> = catalog
                        .entries()
                        .iter()
                        .map(|e| {
                            let id = match e.winner {
                                Winner::Runtime { id } => id,
                                ref other => panic!("only runtime skills win here: {other:?}"),
                            };
                            (catalog.name(e).to_string(), (id, catalog.layer_of(e)))
                        })
                        .collect();
                    assert_eq!(got, expected, "view {view:?}");
                    let chain: Vec<LayerId> = view
                        .iter()
                        .filter(|&&s| s != 0)
                        .filter_map(|&s| model.alive_layer(s))
                        .collect();
                    assert_eq!(catalog.chain(), chain.as_slice());
                }
            }
        }
        // The alive layers: the global one, then each scope's with registrations, in creation order.
        let mut alive: Vec<LayerId> = (1..=usize::from(SCOPES))
            .filter_map(|s| model.alive_layer(s))
            .collect();
        alive.sort_unstable();
        alive.insert(0, GLOBAL_LAYER);
        assert_eq!(registry.layers(), alive);
        for (scope, s) in model.scopes.iter().enumerate() {
            let layer = model.alive_layer(scope);
            for (id, _) in s.runtime.iter().chain(&s.providers) {
                assert_eq!(registry.layer_of(*id), layer);
            }
        }
    }
});
