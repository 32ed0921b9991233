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

mod catalog;
mod collection;
mod summaries;
pub use catalog::{LoadNativeTask, NativeCatalog};
pub use collection::{
    FinishedCollection, ListNativeTask, Location, NativeCollection, NativeSummaries, NativeWarning,
};
pub use summaries::PackedSummaries;

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
