//! The provider registry behind `ctx.skills`: provider slots and runtime
//! skills filed in layers, the merge, a bounded cache of complete catalogs
//! and per-layer generations.
//!
//! The registry never calls a provider itself. A lookup is a [`Collection`]:
//! [`Registry::collect_in`] takes a plan (which providers of which layers, at
//! which generations), the host gathers every provider's [`ProviderOutcome`]
//! (native providers on its own threads, JS providers through the binding),
//! and [`Collection::finish`] validates, merges, decides about retrying and
//! caches. That keeps async and cancellation at the host's edge while all the
//! rules live here.
//!
//! **Layers.** Every registration is filed in a layer: the global layer, or
//! the layer of a scope ([`layers`]). A read's view is the layers of its
//! scope's chain, nearest first, then the global layer. The nearest layer
//! holding a name wins it outright; rank, registration order (runtime skills
//! first) and the provider's own order decide only among candidates of one
//! layer. Provider names are unique per layer, runtime skills first-wins per
//! layer. A change in a layer (a registration, a disposal, an invalidation)
//! gives that layer a new generation and drops only the cached catalogs that
//! merged it. Without a scope a read sees the global layer alone, exactly as
//! a registry without layers.
//!
//! [`Overrides`] apply to every candidate of every layer before the merge: a
//! candidate switched off takes no part in it (a farther layer's copy may then
//! win), and a winner's invocation policy may be rewritten. Each catalog keeps
//! what its merge considered, so [`Catalog::explain`] can say, for one name,
//! who won and why every other candidate lost, with the very rules and
//! candidates of that merge.

mod catalog;
mod collection;
mod derived;
mod explain;
mod incremental;
mod key;
pub mod layers;
mod merge;
mod state;
#[cfg(test)]
mod tests;
mod types;

pub use collection::{Collection, Finish};
pub use explain::{Contribution, Explained, Outcome};
pub use key::normalize_cwd;
pub use layers::{LayerId, Registered, Target, GLOBAL_LAYER};
pub use types::{
    Catalog, Entry, PlannedProvider, PlannedRuntime, ProviderOutcome, SupplyError, Winner,
};

use crate::model::js_number;
use crate::model::RuntimeSkill;
use crate::model::RUNTIME_PROVIDER;
use crate::overrides::Overrides;
use crate::provider::{Invalidate, LookupContext, NativeProvider};
use crate::scoped_rules::RuleChain;
use crate::usage::UsageBook;
use key::CacheKey;
use layers::{RuntimeSlot, Slot};
use state::State;
use std::num::NonZeroUsize;
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard, RwLock, Weak};

/// Slot id of the registry-owned runtime provider.
pub const RUNTIME_SLOT: u64 = 0;

/// Default bound of the catalog cache.
pub const DEFAULT_CACHE_ENTRIES: usize = 128;

/// Largest `providerTimeoutMs` (the longest delay a JS timer takes).
pub const MAX_PROVIDER_TIMEOUT_MS: u32 = i32::MAX as u32;

/// Misuse of the registry API.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RegistryError {
    /// `collectCacheMaxEntries` is not a positive integer.
    #[error("collectCacheMaxEntries must be a positive integer (got {0})")]
    InvalidCacheSize(String),
    /// `providerTimeoutMs` is not a positive integer of at most 2147483647.
    #[error("providerTimeoutMs must be a positive integer of at most 2147483647 (got {0})")]
    InvalidProviderTimeout(String),
    /// The provider name is the registry's own.
    #[error("skill provider name \"runtime\" is reserved by the registry")]
    ReservedName,
    /// The provider name is empty.
    #[error("skill provider name must be a non-empty string")]
    EmptyName,
    /// Another active provider of the global layer has this name.
    #[error("skill provider \"{0}\" is already registered in the global layer")]
    DuplicateName(String),
    /// Another active provider of a scope's layer has this name.
    #[error("skill provider \"{name}\" is already registered in the layer of scope {scope}")]
    DuplicateNameInScope {
        /// The provider name.
        name: String,
        /// How the host names the scope (`"reviewer"`, `#2`).
        scope: String,
    },
    /// The native provider was disposed: it would never refresh again.
    #[error(
        "skill provider \"{0}\" was disposed and cannot be registered again (create a new provider)"
    )]
    Disposed(String),
    /// The native provider object is registered already (in any layer): it
    /// holds one registration's invalidator, so a second one would never be
    /// invalidated by its watcher.
    #[error(
        "skill provider \"{0}\" is already registered (a provider object serves one registration at a time: unregister it first, or create another)"
    )]
    AlreadyRegistered(String),
}

type Hook = Box<dyn Fn() + Send + Sync>;

struct Shared {
    state: Mutex<State>,
    hook: RwLock<Option<Hook>>,
    usage: Arc<UsageBook>,
}

/// The registry. Cheap to clone; clones share state.
#[derive(Clone)]
pub struct Registry {
    shared: Arc<Shared>,
}

fn lock(shared: &Shared) -> MutexGuard<'_, State> {
    // A poisoned lock only means a panic happened while it was held; the state
    // itself stays consistent (every mutation is a single step), so keep going.
    shared.state.lock().unwrap_or_else(|e| e.into_inner())
}

impl Registry {
    /// Create a registry whose catalog cache holds at most `cache_entries`.
    pub fn new(cache_entries: usize) -> Result<Self, RegistryError> {
        let cap = NonZeroUsize::new(cache_entries)
            .ok_or_else(|| RegistryError::InvalidCacheSize(cache_entries.to_string()))?;
        Ok(Self {
            shared: Arc::new(Shared {
                state: Mutex::new(State::new(cap)),
                hook: RwLock::new(None),
                usage: Arc::default(),
            }),
        })
    }

    /// Validate a `collectCacheMaxEntries` value given as a JS number.
    pub fn cache_size_from_f64(value: f64) -> Result<usize, RegistryError> {
        positive_integer(value, u32::MAX)
            .map(|n| n as usize)
            .ok_or_else(|| RegistryError::InvalidCacheSize(js_number(value)))
    }

    /// Validate a `providerTimeoutMs` value given as a JS number (a positive
    /// integer of at most [`MAX_PROVIDER_TIMEOUT_MS`]).
    pub fn provider_timeout_from_f64(value: f64) -> Result<u32, RegistryError> {
        positive_integer(value, MAX_PROVIDER_TIMEOUT_MS)
            .ok_or_else(|| RegistryError::InvalidProviderTimeout(js_number(value)))
    }

    /// Set the function called after a native provider invalidated itself
    /// (typically from a watcher thread). Host-initiated mutations do not call it:
    /// the host notifies its own listeners synchronously.
    pub fn set_change_hook(&self, hook: Option<Hook>) {
        *self.shared.hook.write().unwrap_or_else(|e| e.into_inner()) = hook;
    }

    /// The skills this registry loaded, per view (see [`crate::usage`]):
    /// the host records each load with [`Catalog::record_use`] and reads
    /// the order with [`Catalog::preferred`].
    pub fn usage(&self) -> Arc<UsageBook> {
        self.shared.usage.clone()
    }

    /// Current catalog generation: bumped by every change of any layer.
    pub fn generation(&self) -> u64 {
        lock(&self.shared).epoch
    }

    /// The alive layers: the global layer, then the scoped layers in
    /// creation order.
    pub fn layers(&self) -> Vec<LayerId> {
        lock(&self.shared).layers().map(|l| l.id).collect()
    }

    /// The layer holding provider `slot` or runtime skill `id`, while it is
    /// registered.
    pub fn layer_of(&self, id: u64) -> Option<LayerId> {
        let state = lock(&self.shared);
        state.provider_layer(id).or_else(|| state.runtime_layer(id))
    }

    /// Replace the override rules; every completed catalog is invalidated.
    pub fn set_overrides(&self, overrides: Overrides) {
        let mut state = lock(&self.shared);
        state.overrides = Arc::new(overrides);
        state.touch_all();
    }

    /// The override rules in force.
    pub fn overrides(&self) -> Arc<Overrides> {
        lock(&self.shared).overrides.clone()
    }

    /// Replace the override rules of the layer `target` names: for a scope,
    /// its layer's own rules (the layer is created for rules alone), which
    /// apply to every read whose chain holds it, only the catalogs that
    /// merged it being invalidated; [`Target::Global`] is
    /// [`Registry::set_overrides`]. Returns the layer, or `None` when empty
    /// rules left a scope's layer with nothing (dropped, or never created).
    pub fn set_overrides_in(&self, target: Target<'_>, overrides: Overrides) -> Option<LayerId> {
        if target == Target::Global {
            self.set_overrides(overrides);
            return Some(GLOBAL_LAYER);
        }
        let mut state = lock(&self.shared);
        let existing = existing_layer(&state, target);
        if overrides.is_empty() && existing.is_none() {
            return None;
        }
        let layer = layer_to_file(&mut state, existing, target);
        if let Some(l) = state.layer_mut(layer) {
            l.overrides = Arc::new(overrides);
        }
        state.touch(layer);
        state.drop_if_empty(layer);
        state.layer(layer).map(|l| l.id)
    }

    /// The override rules of the layer `layer` (the registry's own for the
    /// global layer); `None` once the layer is gone.
    pub fn overrides_in(&self, layer: LayerId) -> Option<Arc<Overrides>> {
        let state = lock(&self.shared);
        if layer == GLOBAL_LAYER {
            return Some(state.overrides.clone());
        }
        state.layer(layer).map(|l| l.overrides.clone())
    }

    /// Register a provider by name in the global layer. Native providers are
    /// attached to an invalidator for this exact registration.
    pub fn register_provider(
        &self,
        name: &str,
        native: Option<Arc<dyn NativeProvider>>,
    ) -> Result<u64, RegistryError> {
        self.register_provider_in(Target::Global, name, native)
            .map(|r| r.id)
    }

    /// Register a provider by name in the layer `target` names. Names are
    /// unique per layer; a disposed native provider, or one registered here
    /// already (in any layer), is refused. Native providers are attached to
    /// an invalidator for this exact registration.
    pub fn register_provider_in(
        &self,
        target: Target<'_>,
        name: &str,
        native: Option<Arc<dyn NativeProvider>>,
    ) -> Result<Registered, RegistryError> {
        if name.is_empty() {
            return Err(RegistryError::EmptyName);
        }
        if name == RUNTIME_PROVIDER {
            return Err(RegistryError::ReservedName);
        }
        if native.as_ref().is_some_and(|n| n.is_disposed()) {
            return Err(RegistryError::Disposed(name.to_string()));
        }
        let registered = {
            let mut state = lock(&self.shared);
            if native.as_ref().is_some_and(|n| state.holds_native(n)) {
                return Err(RegistryError::AlreadyRegistered(name.to_string()));
            }
            let existing = existing_layer(&state, target);
            if let Some(id) = existing.filter(|&id| state.has_provider_named(id, name)) {
                let label = state.layer(id).and_then(|l| l.label.clone());
                return Err(match label {
                    None => RegistryError::DuplicateName(name.to_string()),
                    Some(scope) => RegistryError::DuplicateNameInScope {
                        name: name.to_string(),
                        scope,
                    },
                });
            }
            let layer = layer_to_file(&mut state, existing, target);
            let id = state.fresh_id();
            state.add_provider(
                layer,
                Slot {
                    id,
                    name: name.to_string(),
                    native: native.clone(),
                },
            );
            state.touch(layer);
            Registered { id, layer }
        };
        if let Some(provider) = native {
            provider.attach(Some(Arc::new(SlotInvalidator {
                shared: Arc::downgrade(&self.shared),
                slot: registered.id,
            })));
        }
        Ok(registered)
    }

    /// Remove a provider registration (a scoped layer left empty is dropped).
    /// Returns `false` if it was not active.
    pub fn unregister_provider(&self, slot: u64) -> bool {
        let removed = {
            let mut state = lock(&self.shared);
            let Some((layer, removed)) = state.remove_provider(slot) else {
                return false;
            };
            state.touch(layer);
            state.forget_previous();
            state.drop_if_empty(layer);
            removed
        };
        if let Some(native) = removed.native {
            native.attach(None);
        }
        true
    }

    /// Invalidate the completed catalogs that merged the layer of an active
    /// registration. Returns `false` (and does nothing) once that
    /// registration is gone.
    pub fn invalidate(&self, slot: u64) -> bool {
        invalidate_slot(&self.shared, slot)
    }

    /// Add a validated runtime skill to the global layer. Returns `None` when
    /// a runtime skill with the same name exists there (the caller logs and
    /// hands out a no-op disposer).
    pub fn register_runtime(&self, skill: RuntimeSkill) -> Option<u64> {
        self.register_runtime_in(Target::Global, skill)
            .map(|r| r.id)
    }

    /// Add a validated runtime skill to the layer `target` names. Returns
    /// `None` when a runtime skill with the same name exists in that layer.
    pub fn register_runtime_in(
        &self,
        target: Target<'_>,
        skill: RuntimeSkill,
    ) -> Option<Registered> {
        let mut state = lock(&self.shared);
        let existing = existing_layer(&state, target);
        if existing.is_some_and(|id| state.has_runtime_named(id, &skill.name)) {
            return None;
        }
        let layer = layer_to_file(&mut state, existing, target);
        let id = state.fresh_id();
        state.add_runtime(
            layer,
            RuntimeSlot {
                id,
                skill: Arc::new(skill),
            },
        );
        state.touch(layer);
        Some(Registered { id, layer })
    }

    /// Remove a runtime skill (a scoped layer left empty is dropped). Returns
    /// `false` if it was already removed.
    pub fn unregister_runtime(&self, id: u64) -> bool {
        let mut state = lock(&self.shared);
        let Some(layer) = state.remove_runtime(id) else {
            return false;
        };
        state.touch(layer);
        state.forget_previous();
        state.drop_if_empty(layer);
        true
    }

    /// The cached complete catalog of the global layer for `cwd`, if any.
    pub fn cached(&self, cwd: Option<&str>) -> Option<Arc<Catalog>> {
        self.cached_in(cwd, None)
    }

    /// The cached complete catalog for `cwd` and the view of `scope` (the
    /// scope chain's layer ids, nearest first; `None` for no scope), if any
    /// (marks it recently used). Native providers of the view may first find
    /// cached catalogs stale and invalidate ([`NativeProvider::revalidate`]);
    /// they are asked on a miss too, so a lookup never joins a collection that
    /// started before such a change.
    pub fn cached_in(&self, cwd: Option<&str>, scope: Option<&[LayerId]>) -> Option<Arc<Catalog>> {
        let (key, natives) = {
            let state = lock(&self.shared);
            let view = state.view(scope);
            let key = CacheKey::new(cwd, &view);
            let natives: Vec<Arc<dyn NativeProvider>> = view
                .links
                .iter()
                .filter_map(|link| state.layer(link.layer))
                .flat_map(|l| l.providers.values().filter_map(|p| p.native.clone()))
                .collect();
            (key, natives)
        };
        // Outside the lock: an invalidation takes it.
        for native in natives {
            native.revalidate(cwd.map(Path::new));
        }
        lock(&self.shared).cache.get(&key).cloned()
    }

    /// The key of a collection for `cwd` and the view of `scope`: lookups
    /// with equal keys see the same view (the normalised cwd, each layer at
    /// the same generation) and may share one collection.
    pub fn flight_key(&self, cwd: Option<&str>, scope: Option<&[LayerId]>) -> String {
        let state = lock(&self.shared);
        key::flight_key(cwd, &state.view(scope))
    }

    /// How many catalogs this registry built by patching the view's
    /// previous catalog rather than merging in full (for tests and benches).
    #[doc(hidden)]
    pub fn patched(&self) -> u64 {
        lock(&self.shared).patched
    }

    /// Ids of catalogs dropped from the cache since the last call.
    pub fn take_evicted(&self) -> Vec<u64> {
        std::mem::take(&mut lock(&self.shared).evicted)
    }

    /// Start collecting the global layer's catalog for `cwd`. `attempt` is 0
    /// for the first try and 1 for the retry after a change.
    pub fn collect(&self, cwd: Option<&str>, attempt: u32) -> Collection {
        self.collect_in(cwd, None, attempt)
    }

    /// Start collecting the catalog of `cwd` and the view of `scope` (see
    /// [`Registry::cached_in`]). `attempt` is 0 for the first try and 1 for
    /// the retry after a change.
    pub fn collect_in(
        &self,
        cwd: Option<&str>,
        scope: Option<&[LayerId]>,
        attempt: u32,
    ) -> Collection {
        let state = lock(&self.shared);
        let view = state.view(scope);
        let mut providers = Vec::new();
        let mut runtime = Vec::new();
        for (depth, link) in view.links.iter().enumerate() {
            let Some(layer) = state.layer(link.layer) else {
                continue;
            };
            let depth = u32::try_from(depth).unwrap_or(u32::MAX);
            providers.extend(layer.providers.values().map(|p| PlannedProvider {
                slot: p.id,
                name: p.name.clone(),
                native: p.native.clone(),
                layer: layer.id,
                depth,
            }));
            runtime.extend(layer.runtime.values().map(|r| PlannedRuntime {
                id: r.id,
                skill: r.skill.clone(),
                layer: layer.id,
                depth,
            }));
        }
        // The global rules, then each scoped layer's (nearest first here;
        // the chain reads them farthest first).
        let overrides = RuleChain::new(
            &state.overrides,
            view.links
                .iter()
                .filter(|link| link.layer != GLOBAL_LAYER)
                .filter_map(|link| state.layer(link.layer))
                .map(|l| (l.id, &l.overrides)),
        );
        Collection {
            registry: self.clone(),
            key: CacheKey::new(cwd, &view),
            attempt,
            generation: state.epoch,
            view,
            providers,
            runtime,
            overrides,
        }
    }

    /// Collect the global layer's catalog using native providers only
    /// (JS-free hosts, benches, tests). External slots are reported as failed.
    pub fn snapshot_native(&self, ctx: &LookupContext) -> (Arc<Catalog>, Vec<String>) {
        self.snapshot_native_in(ctx, None)
    }

    /// [`Registry::snapshot_native`] for the view of `scope`.
    pub fn snapshot_native_in(
        &self,
        ctx: &LookupContext,
        scope: Option<&[LayerId]>,
    ) -> (Arc<Catalog>, Vec<String>) {
        let cwd = ctx.cwd.as_ref().map(|p| p.to_string_lossy().into_owned());
        if let Some(hit) = self.cached_in(cwd.as_deref(), scope) {
            return (hit, Vec::new());
        }
        let mut warnings = Vec::new();
        let mut attempt = 0;
        loop {
            let collection = self.collect_in(cwd.as_deref(), scope, attempt);
            let outcomes = collection
                .providers
                .iter()
                .map(|p| match &p.native {
                    Some(native) => {
                        let (obs, w) = native.list(ctx);
                        warnings.extend(w);
                        ProviderOutcome::Listed(obs)
                    }
                    None => ProviderOutcome::Failed,
                })
                .collect();
            match collection.finish(outcomes) {
                Finish::Done {
                    catalog,
                    warnings: w,
                } => {
                    warnings.extend(w);
                    return (catalog, warnings);
                }
                // Only the first attempt is retried.
                Finish::Retry => attempt = 1,
            }
        }
    }
}

/// The alive layer `target` names (the global layer for [`Target::Global`]);
/// `None` when a scope has no layer yet, or its layer was dropped.
fn existing_layer(state: &State, target: Target<'_>) -> Option<LayerId> {
    match target {
        Target::Global => Some(GLOBAL_LAYER),
        Target::Scope { layer, .. } => {
            layer.filter(|&id| id != GLOBAL_LAYER && state.layer(id).is_some())
        }
    }
}

/// The layer a registration is filed into: the `existing` one of `target`
/// (see [`existing_layer`]), else a new layer for its scope.
fn layer_to_file(state: &mut State, existing: Option<LayerId>, target: Target<'_>) -> LayerId {
    match (existing, target) {
        (Some(id), _) => id,
        (None, Target::Scope { label, .. }) => state.create_layer(label),
        (None, Target::Global) => GLOBAL_LAYER,
    }
}

/// `value` when it is an integer in `1..=max`.
fn positive_integer(value: f64, max: u32) -> Option<u32> {
    (value.is_finite() && value >= 1.0 && value.fract() == 0.0 && value <= f64::from(max))
        .then_some(value as u32)
}

fn invalidate_slot(shared: &Shared, slot: u64) -> bool {
    let mut state = lock(shared);
    let Some(layer) = state.provider_layer(slot) else {
        return false;
    };
    state.touch(layer);
    true
}

struct SlotInvalidator {
    shared: Weak<Shared>,
    slot: u64,
}

impl SlotInvalidator {
    fn notify_listeners(shared: &Shared) {
        if let Some(hook) = shared
            .hook
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .as_ref()
        {
            hook();
        }
    }
}

impl Invalidate for SlotInvalidator {
    fn notify(&self) -> bool {
        let Some(shared) = self.shared.upgrade() else {
            return false;
        };
        if lock(&shared).provider_layer(self.slot).is_none() {
            return false;
        }
        Self::notify_listeners(&shared);
        true
    }

    fn invalidate_silently(&self) -> bool {
        self.shared
            .upgrade()
            .is_some_and(|shared| invalidate_slot(&shared, self.slot))
    }

    fn invalidate(&self) -> bool {
        let Some(shared) = self.shared.upgrade() else {
            return false;
        };
        if !invalidate_slot(&shared, self.slot) {
            return false;
        }
        Self::notify_listeners(&shared);
        true
    }
}
