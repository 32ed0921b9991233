//! Binding for `skill_core::registry`: the native half of `SkillRegistry`.
//!
//! JS keeps provider objects, candidate objects and listeners (identity matters
//! there); Rust keeps slots, generations, the merge and the cache. A lookup is a
//! [`NativeCollection`]: JS calls the JS providers, [`NativeCollection::list_native`]
//! calls native providers on the libuv pool, and [`NativeCollection::finish`]
//! validates and merges.

use crate::convert::definition_to_js;
use crate::local::NativeLocalProvider;
use crate::raw;
use crate::util::{failure, guard, invalid_arg};
use napi::bindgen_prelude::*;
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi::ScopedTask;
use napi_derive::napi;
use skill_core::model::{
    validate_definition, validate_list_result, validate_registration, Observation, SkillDefinition,
    ValidationError,
};
use skill_core::provider::{LookupContext, NativeProvider};
use skill_core::registry::{Catalog, Collection, Finish, ProviderOutcome, Registry, Winner};
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

/// The native half of `SkillRegistry`.
#[napi]
pub struct NativeRegistry {
    core: Registry,
}

/// A provider slot JS must call during a collection.
#[napi(object)]
pub struct ExternalSlot {
    /// Slot id.
    pub slot: f64,
    /// Provider name.
    pub name: String,
}

#[napi]
impl NativeRegistry {
    /// Create the registry. `notify(kind, message)` is called on the JS thread
    /// for changes a native provider reports by itself (`kind === 'change'`) and
    /// for warnings raised off the JS thread (`kind === 'warn'`). The handle is
    /// weak: it never keeps the process alive.
    #[napi(constructor, catch_unwind)]
    pub fn new(
        cache_entries: f64,
        notify: Option<Function<'_, FnArgs<(String, String)>, Unknown<'static>>>,
    ) -> Result<Self> {
        let size = Registry::cache_size_from_f64(cache_entries).map_err(invalid_arg)?;
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

    /// Register a JS provider by name; returns its slot id.
    #[napi(catch_unwind)]
    pub fn register_external(&self, name: String) -> Result<f64> {
        self.core
            .register_provider(&name, None)
            .map(|id| id as f64)
            .map_err(invalid_arg)
    }

    /// Register the native local provider (no JS on its hot path); returns its
    /// slot id.
    #[napi(catch_unwind)]
    pub fn register_native(&self, provider: &NativeLocalProvider) -> Result<f64> {
        self.register_native_provider(provider.core())
    }

    /// Register any native provider; returns its slot id.
    pub fn register_native_provider(&self, provider: Arc<dyn NativeProvider>) -> Result<f64> {
        let name = provider.name().to_string();
        self.core
            .register_provider(&name, Some(provider))
            .map(|id| id as f64)
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

    /// Validate a runtime skill and add it. Returns its id, or `null` when a
    /// runtime skill with that name exists. Throws on an invalid skill.
    #[napi(catch_unwind)]
    pub fn register_runtime(&self, skill_json: String) -> Result<Option<f64>> {
        let raw = raw::parse(&skill_json)?;
        let summary = validate_registration(&raw).map_err(validation)?;
        Ok(self.core.register_runtime(summary).map(|id| id as f64))
    }

    /// Remove a runtime skill; `false` if already removed.
    #[napi(catch_unwind)]
    pub fn unregister_runtime(&self, id: f64) -> bool {
        self.core.unregister_runtime(slot_id(id))
    }

    /// Id of the cached complete catalog for `cwd`, or -1.
    #[napi(catch_unwind)]
    pub fn cached(&self, cwd: Option<String>) -> f64 {
        self.core
            .cached(cwd.as_deref())
            .map(|c| c.id as f64)
            .unwrap_or(-1.0)
    }

    /// Ids of catalogs dropped from the cache since the last call.
    #[napi(catch_unwind)]
    pub fn take_evicted(&self) -> Vec<f64> {
        self.core
            .take_evicted()
            .into_iter()
            .map(|id| id as f64)
            .collect()
    }

    /// Start collecting a catalog (attempt 0, or 1 for the retry).
    #[napi(catch_unwind)]
    pub fn collect(&self, cwd: Option<String>, attempt: u32) -> NativeCollection {
        let collection = self.core.collect(cwd.as_deref(), attempt);
        let slots = collection.providers.len();
        NativeCollection {
            cwd: cwd.map(PathBuf::from),
            natives: Arc::new(Mutex::new(vec![None; slots])),
            collection: Mutex::new(Some(collection)),
        }
    }

    /// Validate a definition returned by JS provider `provider`'s `get()`;
    /// returns its name. Throws naming the provider and the field.
    #[napi(catch_unwind)]
    pub fn validate_definition(&self, provider: String, definition_json: String) -> Result<String> {
        let raw = raw::parse(&definition_json)?;
        validate_definition(&provider, &raw)
            .map(|s| s.name)
            .map_err(validation)
    }
}

type NativeResults = Arc<Mutex<Vec<Option<Observation>>>>;

/// One catalog collection in progress.
#[napi]
pub struct NativeCollection {
    cwd: Option<PathBuf>,
    natives: NativeResults,
    collection: Mutex<Option<Collection>>,
}

fn locked<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

#[napi]
impl NativeCollection {
    /// JS providers to call, in registration order.
    #[napi(getter, catch_unwind)]
    pub fn external(&self) -> Vec<ExternalSlot> {
        locked(&self.collection)
            .as_ref()
            .map(|c| {
                c.providers
                    .iter()
                    .filter(|p| p.native.is_none())
                    .map(|p| ExternalSlot {
                        slot: p.slot as f64,
                        name: p.name.clone(),
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Whether any native provider takes part.
    #[napi(getter, catch_unwind)]
    pub fn has_native(&self) -> bool {
        locked(&self.collection)
            .as_ref()
            .is_some_and(|c| c.providers.iter().any(|p| p.native.is_some()))
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

    /// Merge: `results_json` is a JSON array whose item `i` is what external
    /// provider `i` (in [`Self::external`] order) returned from `list()`
    /// (serialised with the registry's key list), ignored where `failed[i]`.
    /// Returns the catalog, or `null` when the generation moved and JS must retry.
    #[napi(catch_unwind)]
    pub fn finish(&self, results_json: String, failed: Vec<bool>) -> Result<Option<NativeCatalog>> {
        let collection = locked(&self.collection)
            .take()
            .ok_or_else(|| failure("collection already finished"))?;
        let mut results = match raw::parse(&results_json)? {
            skill_core::model::Raw::Array(items) => items.into_iter(),
            _ => return Err(failure("provider results must be a JSON array")),
        };
        let mut natives = locked(&self.natives);
        let mut outcomes = Vec::with_capacity(collection.providers.len());
        let mut external_index = 0usize;
        for (i, planned) in collection.providers.iter().enumerate() {
            if planned.native.is_some() {
                outcomes.push(match natives.get_mut(i).and_then(Option::take) {
                    Some(obs) => ProviderOutcome::Listed(obs),
                    None => ProviderOutcome::Failed,
                });
                continue;
            }
            let raw = results.next().unwrap_or_default();
            let index = external_index;
            external_index += 1;
            if failed.get(index).copied().unwrap_or(true) {
                outcomes.push(ProviderOutcome::Failed);
                continue;
            }
            outcomes.push(ProviderOutcome::Listed(
                validate_list_result(&planned.name, &raw).map_err(validation)?,
            ));
        }
        drop(natives);
        Ok(match collection.finish(outcomes) {
            Finish::Retry => None,
            Finish::Done { catalog, warnings } => Some(NativeCatalog { catalog, warnings }),
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

/// Where a catalog entry came from: `[kind, slot, index]` with kind 0 = runtime
/// (index = runtime id), 1 = JS provider (index = position in its `list()`
/// result), 2 = native provider.
pub type Location = Vec<f64>;

/// One merged catalog (cached catalogs are shared by every lookup that hits).
#[napi]
pub struct NativeCatalog {
    catalog: Arc<Catalog>,
    warnings: Vec<String>,
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

    /// Shadowed-duplicate warnings produced by the merge.
    #[napi(getter, catch_unwind)]
    pub fn warnings(&self) -> Vec<String> {
        self.warnings.clone()
    }

    /// Sorted summaries as a JSON array (one string crossing; `JSON.parse` in
    /// JS is far cheaper than building the objects property by property).
    #[napi(catch_unwind)]
    pub fn summaries_json(&self) -> Result<String> {
        serde_json::to_string(&self.catalog.skills).map_err(failure)
    }

    /// `[kind, slot, index]` of the winner for `name`, or `null`.
    #[napi(catch_unwind)]
    pub fn locate(&self, name: String) -> Option<Location> {
        let position = self.catalog.position(&name)?;
        Some(match self.catalog.winners.get(position)? {
            Winner::Runtime { id } => vec![0.0, 0.0, *id as f64],
            Winner::Provider {
                slot,
                candidate,
                native,
            } => match (native, &candidate.locator) {
                (Some(_), _) => vec![2.0, *slot as f64, position as f64],
                (None, skill_core::model::Locator::Index(i)) => vec![1.0, *slot as f64, *i as f64],
                (None, _) => vec![1.0, *slot as f64, -1.0],
            },
        })
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
            match self.catalog.winners.get(position) {
                Some(Winner::Provider {
                    candidate,
                    native: Some(native),
                    ..
                }) => {
                    let (result, warning) = native.get_explained(candidate, &self.ctx);
                    Ok((result.map_err(failure)?, warning))
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
