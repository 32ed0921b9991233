//! Binding for `skill_core::registry`: the native half of `SkillRegistry`.
//!
//! JS keeps provider objects, candidate objects, options and listeners
//! (identity matters there) and builds the summaries it hands out from them;
//! Rust keeps slots, generations, the validation rules, the merge, the cache
//! and each catalog's winners (name, description, invocation). A lookup is a
//! [`NativeCollection`]: JS calls the JS providers and hands each result over
//! packed ([`crate::raw`]), [`NativeCollection::list_native`] calls native
//! providers on the libuv pool, and [`NativeCollection::finish`] merges.
//! Override rules arrive as each rule's keys with the JS type and text of
//! their values ([`NapiOverrideRule`]); the core validates them.
//!
//! Layers: JS maps its scope keys to layer ids. A registration names its
//! layer as `(layer, label)`: no label for the global layer; else the layer JS
//! last got for that scope (`-1` for none) and how errors name the scope. It
//! returns `[id, layer]`, the layer being a new one when the scope had none
//! (or its layer was dropped). A read names its scope's chain as the layer
//! ids of its keys, nearest first (`null` for no scope).

use crate::convert::{definition_to_js, resource_base_to_js};
use crate::local::NativeLocalProvider;
use crate::raw::{Packed, Texts};
use crate::util::{failure, guard, invalid_arg};
use napi::bindgen_prelude::*;
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi::ScopedTask;
use napi_derive::napi;
use skill_core::model::host::{
    validate_definition, validate_list_head, validate_listing, validate_registration,
    HostObservation, ListHead, Span, Tag,
};
use skill_core::model::{Observation, SkillDefinition, ValidationError};
use skill_core::overrides::{Effect, Overrides, RawField, RawRule};
use skill_core::provider::{LookupContext, NativeProvider};
use skill_core::registry::{
    Catalog, Collection, Contribution, Entry, Finish, LayerId, ProviderOutcome, Registered,
    Registry, Target, Winner,
};
use skill_core::usage::UsageBook;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

// `FnArgs` spreads the tuple into two JS arguments, `notify(kind, message)`.
type Notify = ThreadsafeFunction<
    FnArgs<(String, String)>,
    Unknown<'static>,
    FnArgs<(String, String)>,
    Status,
    false,
    true,
>;

fn slot_id(value: f64) -> u64 {
    if value.is_finite() && value >= 0.0 {
        value as u64
    } else {
        u64::MAX
    }
}

fn validation(e: ValidationError) -> Error {
    invalid_arg(e)
}

/// The layer a registration names (see the module docs).
fn target<'a>(layer: Option<f64>, label: Option<&'a str>) -> Target<'a> {
    match label {
        None => Target::Global,
        Some(label) => Target::Scope {
            layer: layer.filter(|l| *l >= 0.0).map(slot_id),
            label,
        },
    }
}

/// A scope's chain as layer ids (`None`: no scope).
fn chain(scope: Option<Vec<f64>>) -> Option<Vec<LayerId>> {
    scope.map(|ids| ids.into_iter().map(slot_id).collect())
}

fn registered(r: Registered) -> Vec<f64> {
    vec![r.id as f64, r.layer as f64]
}

/// One override rule as JS read it: the JS type of the item (a tag, see
/// `skill_core::model::host::Tag`) and, per own enumerable key, the type and
/// text of its value (the string, or `String(value)` for a number).
#[napi(object, object_to_js = false)]
pub struct NapiOverrideRule {
    /// Tag of the item.
    pub tag: u32,
    /// Its keys.
    pub keys: Vec<String>,
    /// Tag of each key's value.
    pub tags: Vec<u32>,
    /// Text of each key's value.
    pub texts: Vec<String>,
}

impl From<NapiOverrideRule> for RawRule {
    fn from(rule: NapiOverrideRule) -> Self {
        let tag = |t: u32| {
            u8::try_from(t)
                .ok()
                .and_then(Tag::from_u8)
                .unwrap_or(Tag::Undefined)
        };
        RawRule {
            value: tag(rule.tag),
            fields: rule
                .keys
                .into_iter()
                .zip(rule.tags)
                .zip(rule.texts)
                .map(|((key, t), text)| RawField {
                    key,
                    tag: tag(t),
                    text,
                })
                .collect(),
        }
    }
}

/// How a winner's invocation was rewritten by an override: 0 not, 1
/// `user-only`, 2 `model-only`.
fn rewrite_code(entry: &Entry) -> f64 {
    match entry.applied.map(|a| a.effect) {
        Some(Effect::UserOnly) => 1.0,
        Some(Effect::ModelOnly) => 2.0,
        _ => 0.0,
    }
}

/// The native half of `SkillRegistry`.
#[napi]
pub struct NativeRegistry {
    core: Registry,
}

#[napi]
impl NativeRegistry {
    /// Create the registry. Validates `collectCacheMaxEntries` and, when
    /// given, `providerTimeoutMs` (the JS layer runs the timers).
    /// `notify(kind, message)` is called on the JS thread for changes a native
    /// provider reports by itself (`kind === 'change'`) and for warnings raised
    /// off the JS thread (`kind === 'warn'`). The handle is weak: it never keeps
    /// the process alive.
    #[napi(constructor, catch_unwind)]
    pub fn new(
        cache_entries: f64,
        provider_timeout_ms: Option<f64>,
        notify: Option<Function<'_, FnArgs<(String, String)>, Unknown<'static>>>,
    ) -> Result<Self> {
        let size = Registry::cache_size_from_f64(cache_entries).map_err(invalid_arg)?;
        if let Some(timeout) = provider_timeout_ms {
            Registry::provider_timeout_from_f64(timeout).map_err(invalid_arg)?;
        }
        let core = Registry::new(size).map_err(invalid_arg)?;
        if let Some(notify) = notify {
            let tsfn: Notify = notify
                .build_threadsafe_function::<FnArgs<(String, String)>>()
                .callee_handled::<false>()
                .weak::<true>()
                .build()?;
            let tsfn = Arc::new(tsfn);
            core.set_change_hook(Some(Box::new(move || {
                tsfn.call(
                    ("change".to_string(), String::new()).into(),
                    ThreadsafeFunctionCallMode::NonBlocking,
                );
            })));
        }
        Ok(Self { core })
    }

    /// Register a JS provider by name in the layer `(layer, label)` names;
    /// returns `[slot, layer]`. Throws for a reserved or duplicate name.
    #[napi(catch_unwind)]
    pub fn register_external(
        &self,
        name: String,
        layer: Option<f64>,
        label: Option<String>,
    ) -> Result<Vec<f64>> {
        self.core
            .register_provider_in(target(layer, label.as_deref()), &name, None)
            .map(registered)
            .map_err(invalid_arg)
    }

    /// Register the native local provider (no JS on its hot path) in the
    /// layer `(layer, label)` names; returns `[slot, layer]`. Throws for a
    /// duplicate name or a disposed provider.
    #[napi(catch_unwind)]
    pub fn register_native(
        &self,
        provider: &NativeLocalProvider,
        layer: Option<f64>,
        label: Option<String>,
    ) -> Result<Vec<f64>> {
        self.register_native_provider(provider.core(), target(layer, label.as_deref()))
    }

    /// Register any native provider in `target`; returns `[slot, layer]`.
    pub fn register_native_provider(
        &self,
        provider: Arc<dyn NativeProvider>,
        target: Target<'_>,
    ) -> Result<Vec<f64>> {
        let name = provider.name().to_string();
        self.core
            .register_provider_in(target, &name, Some(provider))
            .map(registered)
            .map_err(invalid_arg)
    }

    /// Remove a provider registration; `false` if it was not active.
    #[napi(catch_unwind)]
    pub fn unregister(&self, slot: f64) -> bool {
        self.core.unregister_provider(slot_id(slot))
    }

    /// Invalidate on behalf of an active registration; `false` once it is gone.
    #[napi(catch_unwind)]
    pub fn invalidate(&self, slot: f64) -> bool {
        self.core.invalidate(slot_id(slot))
    }

    /// Current catalog generation (bumped by every mutation).
    #[napi(getter, catch_unwind)]
    pub fn generation(&self) -> f64 {
        self.core.generation() as f64
    }

    /// Validate and set the override rules (`tag`: the type of the
    /// `overrides` value; `rules`: its items when it is an array), then
    /// invalidate completed catalogs. Throws naming the rule and the key; the
    /// rules in force stay then.
    #[napi(catch_unwind)]
    pub fn set_overrides(&self, tag: u32, rules: Vec<NapiOverrideRule>) -> Result<()> {
        let value = u8::try_from(tag)
            .ok()
            .and_then(Tag::from_u8)
            .unwrap_or(Tag::Undefined);
        let rules: Vec<RawRule> = rules.into_iter().map(RawRule::from).collect();
        let overrides = Overrides::from_raw(value, &rules).map_err(invalid_arg)?;
        self.core.set_overrides(overrides);
        Ok(())
    }

    /// Validate and set the override rules of the layer `(layer, label)`
    /// names (a scope's; see [`NativeRegistry::set_overrides`] for `tag` and
    /// `rules`), creating the layer for rules alone. Invalidates the
    /// completed catalogs that merged that layer. Returns the layer's id, or
    /// -1 when empty rules left it with nothing (dropped, or never created).
    /// Throws naming the rule and the key; the layer's rules stay then.
    #[napi(catch_unwind)]
    pub fn set_scope_overrides(
        &self,
        tag: u32,
        rules: Vec<NapiOverrideRule>,
        layer: Option<f64>,
        label: String,
    ) -> Result<f64> {
        let value = u8::try_from(tag)
            .ok()
            .and_then(Tag::from_u8)
            .unwrap_or(Tag::Undefined);
        let rules: Vec<RawRule> = rules.into_iter().map(RawRule::from).collect();
        let overrides = Overrides::from_raw(value, &rules).map_err(invalid_arg)?;
        Ok(self
            .core
            .set_overrides_in(target(layer, Some(&label)), overrides)
            .map_or(-1.0, |id| id as f64))
    }

    /// Validate a runtime skill (one packed record) and add it to the layer
    /// `(layer, label)` names. Returns `[id, layer]`, or `null` when a
    /// runtime skill with that name exists in that layer. Throws on an
    /// invalid skill.
    #[napi(
        catch_unwind,
        ts_args_type = "skill: PackedRecords, layer?: number | undefined | null, label?: string | undefined | null"
    )]
    pub fn register_runtime(
        &self,
        skill: Packed<'_>,
        layer: Option<f64>,
        label: Option<String>,
    ) -> Result<Option<Vec<f64>>> {
        let decoded = skill.names.decode()?;
        let runtime = validate_registration(&one(skill.records(&decoded)?)?).map_err(validation)?;
        Ok(self
            .core
            .register_runtime_in(target(layer, label.as_deref()), runtime)
            .map(registered))
    }

    /// Remove a runtime skill; `false` if already removed.
    #[napi(catch_unwind)]
    pub fn unregister_runtime(&self, id: f64) -> bool {
        self.core.unregister_runtime(slot_id(id))
    }

    /// Ids of the catalogs dropped from the cache since the last call (or
    /// the last [`NativeCollection::finish`]): JS lets go of their entries.
    #[napi(catch_unwind)]
    pub fn take_evicted(&self) -> Vec<f64> {
        self.core
            .take_evicted()
            .into_iter()
            .map(|id| id as f64)
            .collect()
    }

    /// Id of the cached complete catalog for `cwd` and the chain `scope`
    /// (layer ids nearest first, `null` for no scope), or -1.
    #[napi(catch_unwind)]
    pub fn cached(&self, cwd: Option<String>, scope: Option<Vec<f64>>) -> f64 {
        self.core
            .cached_in(cwd.as_deref(), chain(scope).as_deref())
            .map(|c| c.id as f64)
            .unwrap_or(-1.0)
    }

    /// The key lookups of `cwd` and the chain `scope` share a collection by:
    /// equal keys, same view (normalised cwd, each layer's generation).
    #[napi(catch_unwind)]
    pub fn flight_key(&self, cwd: Option<String>, scope: Option<Vec<f64>>) -> String {
        self.core
            .flight_key(cwd.as_deref(), chain(scope).as_deref())
    }

    /// Start collecting the catalog of `cwd` and the chain `scope` (attempt
    /// 0, or 1 for the retry).
    #[napi(catch_unwind)]
    pub fn collect(
        &self,
        cwd: Option<String>,
        attempt: u32,
        scope: Option<Vec<f64>>,
    ) -> NativeCollection {
        let collection = self
            .core
            .collect_in(cwd.as_deref(), chain(scope).as_deref(), attempt);
        let slots = collection.providers.len();
        NativeCollection {
            cwd: cwd.map(PathBuf::from),
            natives: Arc::new(Mutex::new(vec![None; slots])),
            hosts: Mutex::new(vec![None; slots]),
            collection: Mutex::new(Some(collection)),
        }
    }

    /// Validate a definition (one packed record) returned by JS provider
    /// `provider`'s `get()`; returns its name. Throws naming the provider and
    /// the field.
    #[napi(
        catch_unwind,
        ts_args_type = "provider: string, definition: PackedRecords"
    )]
    pub fn validate_definition(&self, provider: String, definition: Packed<'_>) -> Result<String> {
        let decoded = definition.names.decode()?;
        validate_definition(&provider, &one(definition.records(&decoded)?)?).map_err(validation)
    }
}

/// The single record of a packed value.
fn one(
    records: skill_core::model::host::Records<'_>,
) -> Result<skill_core::model::host::Records<'_>> {
    if records.len() == 1 {
        Ok(records)
    } else {
        Err(invalid_arg("malformed packed records: expected one record"))
    }
}

type NativeResults = Arc<Mutex<Vec<Option<Observation>>>>;

/// One catalog collection in progress. JS knows which of its providers are
/// JS providers and which are native (it registered them), so it asks only for
/// what it needs: the native providers' discovery, and the merge.
#[napi]
pub struct NativeCollection {
    cwd: Option<PathBuf>,
    natives: NativeResults,
    /// Validated results of the JS providers, by position in the plan.
    hosts: Mutex<Vec<Option<HostObservation>>>,
    collection: Mutex<Option<Collection>>,
}

fn locked<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn tag(value: f64) -> Tag {
    Tag::from_u8(value as u8).unwrap_or(Tag::Undefined)
}

/// A `list()` result's head as JS packs it: `[tag of the result, tag of its
/// candidates, tag of its complete, and the three numbers behind them]`.
fn list_head(head: &[f64]) -> ListHead {
    let number = |i: usize| head.get(i).copied().unwrap_or(0.0);
    ListHead {
        value: tag(number(0)),
        candidates: tag(number(1)),
        complete: tag(number(2)),
        numbers: [number(3), number(4), number(5)],
    }
}

/// How a JS provider's `list()` ended (see [`NativeCollection::finish`]).
const LISTED: u8 = 0;
const RELEASED: u8 = 2;

/// What [`NativeCatalog::native_summaries_reusing`] hands back.
#[napi(object, object_from_js = false)]
pub struct NativeSummaries {
    /// For each native winner, in catalog order: its position among the
    /// native winners of the previous catalog when it is the very candidate
    /// that won there (same provider listing, nothing re-read), else -1.
    pub reuse: Float64Array,
    /// The summaries of the others (-1 in `reuse`), in catalog order, as one
    /// JSON array.
    pub json: String,
}

/// What [`NativeCollection::finish`] hands back.
#[napi(object, object_from_js = false)]
pub struct FinishedCollection {
    /// The merged catalog.
    pub catalog: NativeCatalog,
    /// Its id.
    pub id: f64,
    /// Whether it is complete (and cached).
    pub complete: bool,
    /// The winners (see [`NativeCatalog::winners`]).
    pub winners: Float64Array,
    /// `position, code` pairs for the winners whose invocation an override
    /// rewrote (code 1 `user-only`, 2 `model-only`); empty without overrides.
    pub rewritten: Vec<f64>,
    /// Shadowed-duplicate warnings produced by the merge.
    pub warnings: Vec<String>,
    /// Ids of catalogs dropped from the cache since the last collection.
    pub evicted: Vec<f64>,
}

impl NativeCollection {
    /// Position in the plan and name of the JS provider in `slot`.
    fn host_name(&self, slot: f64) -> Result<(usize, String)> {
        let collection = locked(&self.collection);
        let collection = collection
            .as_ref()
            .ok_or_else(|| failure("collection already finished"))?;
        collection
            .providers
            .iter()
            .position(|p| p.slot == slot_id(slot) && p.native.is_none())
            .and_then(|i| Some((i, collection.providers.get(i)?.name.clone())))
            .ok_or_else(|| invalid_arg("no such JS provider in this collection"))
    }
}

#[napi]
impl NativeCollection {
    /// The catalog generation this collection started at.
    #[napi(getter, catch_unwind)]
    pub fn generation(&self) -> f64 {
        locked(&self.collection)
            .as_ref()
            .map_or(-1.0, |c| c.generation() as f64)
    }

    /// Slots of the JS providers to call, in plan order (each layer's in
    /// registration order, the nearest layer first).
    #[napi(catch_unwind)]
    pub fn host_slots(&self) -> Vec<f64> {
        locked(&self.collection)
            .as_ref()
            .map_or_else(Vec::new, |c| {
                c.providers
                    .iter()
                    .filter(|p| p.native.is_none())
                    .map(|p| p.slot as f64)
                    .collect()
            })
    }

    /// Ids of the runtime skills of the plan (its view's alone).
    #[napi(catch_unwind)]
    pub fn runtime_ids(&self) -> Vec<f64> {
        locked(&self.collection)
            .as_ref()
            .map_or_else(Vec::new, |c| c.runtime_ids().map(|id| id as f64).collect())
    }

    /// Slots of the native providers of the plan.
    #[napi(catch_unwind)]
    pub fn native_slots(&self) -> Vec<f64> {
        locked(&self.collection)
            .as_ref()
            .map_or_else(Vec::new, |c| {
                c.providers
                    .iter()
                    .filter(|p| p.native.is_some())
                    .map(|p| p.slot as f64)
                    .collect()
            })
    }

    /// Whether the plan has native providers (see [`Self::list_native`]).
    #[napi(getter, catch_unwind)]
    pub fn has_native(&self) -> bool {
        locked(&self.collection)
            .as_ref()
            .is_some_and(|c| c.providers.iter().any(|p| p.native.is_some()))
    }

    /// Check the shape of what the JS provider in `slot` returned from
    /// `list()` before its candidates are read: `head` as in
    /// [`Self::add_listing`], `count` the length of its candidates array.
    /// Throws naming the provider and the problem (`complete` is checked
    /// before `candidates`; at most 1,000,000 candidates).
    #[napi(catch_unwind)]
    pub fn check_listing(&self, slot: f64, head: Vec<f64>, count: f64) -> Result<()> {
        let name = self.host_name(slot)?.1;
        let count = if count.is_finite() && count >= 0.0 {
            count as usize
        } else {
            usize::MAX
        };
        validate_list_head(&name, &list_head(&head), count)
            .map(|_| ())
            .map_err(validation)
    }

    /// Run every native provider's discovery on the libuv pool. Resolves to the
    /// warnings they produced; results stay here for [`Self::finish`].
    #[napi(catch_unwind)]
    pub fn list_native(&self) -> AsyncTask<ListNativeTask> {
        let providers = locked(&self.collection)
            .as_ref()
            .map(|c| {
                c.providers
                    .iter()
                    .enumerate()
                    .filter_map(|(i, p)| p.native.clone().map(|n| (i, p.slot, n)))
                    .collect()
            })
            .unwrap_or_default();
        AsyncTask::new(ListNativeTask {
            ctx: LookupContext::new(self.cwd.clone()),
            providers,
            results: self.natives.clone(),
        })
    }

    /// Validate what the JS provider in `slot` returned from `list()`: `head`
    /// is `[tag of the result, tag of its candidates, tag of its complete, and
    /// the three numbers behind them]`, `candidates` the packed candidates.
    /// Throws naming the provider and the field.
    #[napi(
        catch_unwind,
        ts_args_type = "slot: number, head: number[], candidates: PackedRecords"
    )]
    pub fn add_listing(&self, slot: f64, head: Vec<f64>, candidates: Packed<'_>) -> Result<()> {
        let (position, name) = self.host_name(slot)?;
        let head = list_head(&head);
        let decoded = candidates.names.decode()?;
        let listing =
            validate_listing(&name, &head, &candidates.records(&decoded)?).map_err(validation)?;
        let observation = HostObservation {
            text: decoded.text,
            strings: candidates.strings,
            listing,
        };
        if let Some(place) = locked(&self.hosts).get_mut(position) {
            *place = Some(observation);
        }
        Ok(())
    }

    /// Merge. `states` holds `slot, state` pairs saying how each JS provider's
    /// `list()` ended: 0 listed (see [`Self::add_listing`]), 1 failed or timed
    /// out, 2 released (its registration was disposed while the lookup
    /// waited); a JS provider not mentioned failed. Returns the catalog, or
    /// `null` when the generation moved and JS must retry.
    #[napi(catch_unwind)]
    pub fn finish(&self, states: Vec<f64>) -> Result<Option<FinishedCollection>> {
        let collection = locked(&self.collection)
            .take()
            .ok_or_else(|| failure("collection already finished"))?;
        let state_of = |slot: u64| {
            states
                .chunks_exact(2)
                .find(|pair| slot_id(pair[0]) == slot)
                .map_or(1, |pair| pair[1] as u8)
        };
        let mut natives = locked(&self.natives);
        let mut hosts = locked(&self.hosts);
        let mut outcomes = Vec::with_capacity(collection.providers.len());
        for (i, planned) in collection.providers.iter().enumerate() {
            let outcome = if planned.native.is_some() {
                match natives.get_mut(i).and_then(Option::take) {
                    Some(obs) => ProviderOutcome::Listed(obs),
                    None => ProviderOutcome::Failed,
                }
            } else {
                match (
                    state_of(planned.slot),
                    hosts.get_mut(i).and_then(Option::take),
                ) {
                    (LISTED, Some(obs)) => ProviderOutcome::Host(obs),
                    (RELEASED, _) => ProviderOutcome::Released,
                    _ => ProviderOutcome::Failed,
                }
            };
            outcomes.push(outcome);
        }
        drop((natives, hosts));
        let registry = collection.registry().clone();
        Ok(match collection.finish(outcomes) {
            Finish::Retry => None,
            Finish::Done { catalog, warnings } => {
                let catalog = NativeCatalog {
                    catalog,
                    usage: registry.usage(),
                };
                Some(FinishedCollection {
                    id: catalog.catalog.id as f64,
                    complete: catalog.catalog.complete,
                    winners: catalog.winners(),
                    rewritten: catalog.rewritten(),
                    warnings,
                    evicted: registry
                        .take_evicted()
                        .into_iter()
                        .map(|id| id as f64)
                        .collect(),
                    catalog,
                })
            }
        })
    }
}

/// Runs native providers' `list()` off the JS thread.
pub struct ListNativeTask {
    ctx: LookupContext,
    /// (position in the plan, slot id, provider)
    providers: Vec<(usize, u64, Arc<dyn NativeProvider>)>,
    results: NativeResults,
}

/// A warning from a native provider's discovery, with the provider's slot.
#[napi(object)]
pub struct NativeWarning {
    pub slot: f64,
    pub message: String,
}

impl Task for ListNativeTask {
    type Output = Vec<NativeWarning>;
    type JsValue = Vec<NativeWarning>;

    fn compute(&mut self) -> Result<Vec<NativeWarning>> {
        guard(|| {
            let mut warnings = Vec::new();
            for (index, slot, provider) in &self.providers {
                let (obs, w) = provider.list(&self.ctx);
                warnings.extend(w.into_iter().map(|message| NativeWarning {
                    slot: *slot as f64,
                    message,
                }));
                if let Some(result) = locked(&self.results).get_mut(*index) {
                    *result = Some(obs);
                }
            }
            Ok(warnings)
        })
    }

    fn resolve(&mut self, _env: Env, output: Vec<NativeWarning>) -> Result<Vec<NativeWarning>> {
        Ok(output)
    }
}

/// Where a catalog entry came from and how an override changed it:
/// `[kind, slot, index, rewrite]` with kind 0 = runtime (index = runtime id),
/// 1 = JS provider (index = position in its `list()` result), 2 = native
/// provider (index = position among the native winners), and rewrite 0 (none),
/// 1 (`user-only`) or 2 (`model-only`).
pub type Location = Vec<f64>;

/// One merged catalog (cached catalogs are shared by every lookup that hits).
/// It holds every winner's name, description and invocation in name order
/// (JS-provider winners included), so the catalog renderer can work from it.
#[napi]
pub struct NativeCatalog {
    catalog: Arc<Catalog>,
    /// The registry's usage book (loads are recorded in the catalog's view).
    usage: Arc<UsageBook>,
}

impl NativeCatalog {
    /// The winners in name order, four numbers each: `kind, slot, index` (see
    /// [`Location`]) and `1` when the skill is model-invocable (else `0`).
    fn winners(&self) -> Float64Array {
        let mut out = Vec::with_capacity(self.catalog.len() * 4);
        let mut natives = 0usize;
        for (position, entry) in self.catalog.entries().iter().enumerate() {
            if let Some(location) = self.location(position, natives) {
                out.extend(location);
                out.push(f64::from(u8::from(entry.invocation.model_invocable)));
            }
            natives += usize::from(matches!(entry.winner, Winner::Native { .. }));
        }
        Float64Array::new(out)
    }

    /// `position, code` pairs of the winners whose invocation an override
    /// rewrote (see [`rewrite_code`]).
    fn rewritten(&self) -> Vec<f64> {
        let mut out = Vec::new();
        for (position, entry) in self.catalog.entries().iter().enumerate() {
            let code = rewrite_code(entry);
            if code != 0.0 {
                out.extend([position as f64, code]);
            }
        }
        out
    }

    fn location(&self, position: usize, native_index: usize) -> Option<[f64; 3]> {
        Some(match &self.catalog.entries().get(position)?.winner {
            Winner::Runtime { id } => [0.0, 0.0, *id as f64],
            Winner::Host { slot, index } => [1.0, *slot as f64, f64::from(*index)],
            Winner::Native { slot, .. } => [2.0, *slot as f64, native_index as f64],
        })
    }
}

#[napi]
impl NativeCatalog {
    /// Unique catalog id.
    #[napi(getter, catch_unwind)]
    pub fn id(&self) -> f64 {
        self.catalog.id as f64
    }

    /// Whether the catalog is complete (and cached).
    #[napi(getter, catch_unwind)]
    pub fn complete(&self) -> bool {
        self.catalog.complete
    }

    /// Number of skills.
    #[napi(getter, catch_unwind)]
    pub fn length(&self) -> u32 {
        u32::try_from(self.catalog.len()).unwrap_or(u32::MAX)
    }

    /// Whether the descriptions of runtime and JS-provider winners are still
    /// to be supplied ([`NativeCatalog::supply_descriptions`]).
    #[napi(getter, catch_unwind)]
    pub fn needs_descriptions(&self) -> bool {
        !self.catalog.has_descriptions()
    }

    /// Supply the descriptions of the runtime and JS-provider winners, in
    /// catalog order (they stay in JS until a catalog is rendered from this
    /// one). The first supply stays.
    #[napi(catch_unwind, ts_args_type = "descriptions: PackedTexts")]
    pub fn supply_descriptions(&self, descriptions: Texts<'_>) -> Result<()> {
        let decoded = descriptions.decode()?;
        let spans = decoded
            .spans
            .chunks_exact(2)
            .map(|s| Span {
                start: s[0],
                end: s[1],
            })
            .collect();
        self.catalog
            .supply_descriptions(decoded.text, spans)
            .map_err(invalid_arg)
    }

    /// `[name, description]` of every model-invocable skill, in name order
    /// (what the catalog renderer reads), or `null` while descriptions are
    /// still to be supplied.
    #[napi(catch_unwind)]
    pub fn model_entries(&self) -> Option<Vec<(String, String)>> {
        self.catalog.model_entries().map(|entries| {
            entries
                .map(|(name, description)| (name.to_string(), description.to_string()))
                .collect()
        })
    }

    /// Summaries of the native winners, in catalog order, as one JSON array
    /// (`JSON.parse` in JS is far cheaper than building the objects property
    /// by property).
    #[napi(catch_unwind)]
    pub fn native_summaries_json(&self) -> Result<String> {
        let summaries: Vec<_> = self.catalog.native_summaries().collect();
        serde_json::to_string(&summaries).map_err(failure)
    }

    /// [`Self::native_summaries_json`] for what changed since `previous`
    /// (an earlier catalog, still alive: candidates are compared by
    /// identity): the native winners that are the same shared candidate as
    /// one of `previous` point at it, the others come as JSON. A lookup after
    /// a one-file change then converts one summary, not the whole catalog.
    #[napi(catch_unwind)]
    pub fn native_summaries_reusing(&self, previous: &NativeCatalog) -> Result<NativeSummaries> {
        fn natives(catalog: &Catalog) -> impl Iterator<Item = &Arc<skill_core::model::Candidate>> {
            catalog.entries().iter().filter_map(|e| match &e.winner {
                Winner::Native { candidate, .. } => Some(candidate),
                _ => None,
            })
        }
        let old: Vec<&Arc<skill_core::model::Candidate>> = natives(&previous.catalog).collect();
        let mut reuse = Vec::with_capacity(old.len());
        let mut fresh = Vec::new();
        // Both in name order: one walk, mostly comparing pointers.
        let mut j = 0;
        for candidate in natives(&self.catalog) {
            let same = |j: usize| old.get(j).is_some_and(|o| Arc::ptr_eq(o, candidate));
            if !same(j) {
                let name = candidate.summary.name.as_str();
                while j < old.len() && old[j].summary.name.as_str() < name {
                    j += 1;
                }
            }
            if same(j) {
                reuse.push(j as f64);
                j += 1;
            } else {
                reuse.push(-1.0);
                fresh.push(&candidate.summary);
            }
        }
        Ok(NativeSummaries {
            reuse: Float64Array::new(reuse),
            json: serde_json::to_string(&fresh).map_err(failure)?,
        })
    }

    /// `[kind, slot, index, rewrite]` of the winner for `name` (see
    /// [`Location`]), or `null`.
    #[napi(catch_unwind)]
    pub fn locate(&self, name: String) -> Option<Location> {
        let position = self.catalog.position(&name)?;
        let entries = self.catalog.entries();
        let natives = entries[..position]
            .iter()
            .filter(|e| matches!(e.winner, Winner::Native { .. }))
            .count();
        let mut location = Vec::from(self.location(position, natives)?);
        location.push(rewrite_code(&entries[position]));
        Some(location)
    }

    /// Every candidate the merge considered for `name`, in merge order, the
    /// winner first (`null` when no provider listed it): objects
    /// `{ kind, slot, index, provider, source, rank, modelInvocable,
    /// userInvocable, outcome, rule?, effect?, ruleLayer?, path?,
    /// resourceBase? }`, with
    /// `kind`, `slot` and `index` as in [`Location`] (for a native candidate,
    /// `index` is unused and `path` and `resourceBase` are its own) and
    /// `outcome` one of `'won'`, `'rank'`, `'order'`, `'off'`, `'scope'`,
    /// `'same'`; `ruleLayer` is the layer whose rule decided (0: the global
    /// rules).
    #[napi(catch_unwind, ts_return_type = "Array<Record<string, unknown>> | null")]
    pub fn explain<'e>(&self, env: &'e Env, name: String) -> Result<Option<Vec<Object<'e>>>> {
        let explained = self.catalog.explain(&name);
        if explained.is_empty() {
            return Ok(None);
        }
        explained
            .iter()
            .map(|e| {
                let mut obj = Object::new(env)?;
                let (kind, slot, index) = match e.from {
                    Contribution::Runtime { id } => (0.0, 0.0, id as f64),
                    Contribution::Host { slot, index } => (1.0, slot as f64, f64::from(index)),
                    Contribution::Native { slot, candidate } => {
                        if let Some(path) = &candidate.path {
                            obj.set("path", path.as_str())?;
                        }
                        if let Some(base) = &candidate.summary.resource_base {
                            obj.set("resourceBase", resource_base_to_js(env, base)?)?;
                        }
                        (2.0, slot as f64, 0.0)
                    }
                };
                obj.set("kind", kind)?;
                obj.set("slot", slot)?;
                obj.set("index", index)?;
                obj.set("provider", e.provider)?;
                obj.set("source", e.source)?;
                obj.set("rank", e.rank)?;
                obj.set("modelInvocable", e.invocation.model_invocable)?;
                obj.set("userInvocable", e.invocation.user_invocable)?;
                obj.set("outcome", e.outcome.as_str())?;
                if let Some(applied) = e.applied {
                    obj.set("rule", applied.rule)?;
                    obj.set("effect", applied.effect.as_str())?;
                    obj.set("ruleLayer", applied.layer as f64)?;
                }
                Ok(obj)
            })
            .collect::<Result<Vec<_>>>()
            .map(Some)
    }

    /// Load the definition of a native winner off the JS thread.
    #[napi(catch_unwind)]
    pub fn load_native(&self, name: String, cwd: Option<String>) -> AsyncTask<LoadNativeTask> {
        AsyncTask::new(LoadNativeTask {
            catalog: self.catalog.clone(),
            name,
            ctx: LookupContext::new(cwd.map(PathBuf::from)),
        })
    }
}

impl NativeCatalog {
    /// The merged catalog (the catalog renderer reads it in place).
    pub(crate) fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    /// The registry's usage book.
    pub(crate) fn usage(&self) -> &UsageBook {
        &self.usage
    }
}

/// Loads a native winner's definition.
pub struct LoadNativeTask {
    catalog: Arc<Catalog>,
    name: String,
    ctx: LookupContext,
}

impl<'task> ScopedTask<'task> for LoadNativeTask {
    type Output = (Option<SkillDefinition>, Option<String>);
    type JsValue = Object<'task>;

    fn compute(&mut self) -> Result<Self::Output> {
        guard(|| {
            let Some(position) = self.catalog.position(&self.name) else {
                return Ok((None, None));
            };
            let Some(entry) = self.catalog.entries().get(position) else {
                return Ok((None, None));
            };
            match &entry.winner {
                Winner::Native {
                    candidate,
                    provider,
                    ..
                } => {
                    let (result, warning) = provider.get_explained(candidate, &self.ctx);
                    let mut definition = result.map_err(failure)?;
                    // An override's invocation holds for the loaded skill too.
                    if let (Some(d), Some(applied)) = (definition.as_mut(), entry.applied) {
                        d.summary.invocation = applied.effect.apply(d.summary.invocation);
                    }
                    Ok((definition, warning))
                }
                _ => Ok((None, None)),
            }
        })
    }

    /// `{ definition?, warning? }`.
    fn resolve(&mut self, env: &'task Env, output: Self::Output) -> Result<Object<'task>> {
        let (definition, warning) = output;
        let mut obj = Object::new(env)?;
        if let Some(d) = definition {
            obj.set("definition", definition_to_js(env, &d)?)?;
        }
        if let Some(w) = warning {
            obj.set("warning", w)?;
        }
        Ok(obj)
    }
}

/// Whether `name` is a kebab-case skill name (`^[a-z0-9]+(?:-[a-z0-9]+)*$`);
/// `false` for anything that is not a string.
#[napi(catch_unwind)]
pub fn is_skill_name(name: Unknown<'_>) -> Result<bool> {
    Ok(match name.get_type()? {
        // SAFETY: checked to be a string.
        ValueType::String => skill_core::model::is_skill_name(&unsafe { name.cast::<String>()? }),
        _ => false,
    })
}
