//! The provider registry behind `ctx.skills`: provider slots, runtime skills,
//! rank merge, a bounded cache of complete catalogs and catalog generations.
//!
//! The registry never calls a provider itself. A lookup is a [`Collection`]:
//! [`Registry::collect`] takes a plan (which providers, at which generation),
//! the host gathers every provider's [`ProviderOutcome`] (native providers are
//! called by [`Collection::list_native`], JS providers by the binding), and
//! [`Collection::finish`] validates, merges, decides about retrying and caches.
//! That keeps async and cancellation at the host's edge while all the rules
//! live here.
//!
//! [`Overrides`] apply to every candidate before the merge: a candidate
//! switched off takes no part in it, and a winner's invocation policy may be
//! rewritten. Each catalog keeps what its merge considered, so
//! [`Catalog::explain`] can say, for one name, who won and why every other
//! candidate lost, with the very rules and candidates of that merge.

mod catalog;
mod collection;
mod explain;
mod merge;
#[cfg(test)]
mod tests;

pub use catalog::{Catalog, Entry, SupplyError, Winner};
pub use collection::{Collection, Finish, PlannedProvider, ProviderOutcome};
pub use explain::{Contribution, Explained, Outcome};

use crate::model::js_number;
use crate::model::RuntimeSkill;
use crate::model::RUNTIME_PROVIDER;
use crate::overrides::Overrides;
use crate::provider::{Invalidate, LookupContext, NativeProvider};
use lru::LruCache;
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
    /// Another active provider has this name.
    #[error("skill provider \"{0}\" is already registered")]
    DuplicateName(String),
}

struct Slot {
    id: u64,
    name: String,
    native: Option<Arc<dyn NativeProvider>>,
}

struct RuntimeSlot {
    id: u64,
    skill: Arc<RuntimeSkill>,
}

struct State {
    generation: u64,
    next_id: u64,
    providers: Vec<Slot>,
    runtime: Vec<RuntimeSlot>,
    cache: LruCache<Option<String>, Arc<Catalog>>,
    evicted: Vec<u64>,
    overrides: Arc<Overrides>,
}

impl State {
    fn bump(&mut self) {
        self.generation += 1;
        let ids: Vec<u64> = self.cache.iter().map(|(_, c)| c.id).collect();
        self.evicted.extend(ids);
        self.cache.clear();
    }

    fn fresh_id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }
}

type Hook = Box<dyn Fn() + Send + Sync>;

struct Shared {
    state: Mutex<State>,
    hook: RwLock<Option<Hook>>,
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
                state: Mutex::new(State {
                    generation: 0,
                    next_id: 0,
                    providers: Vec::new(),
                    runtime: Vec::new(),
                    cache: LruCache::new(cap),
                    evicted: Vec::new(),
                    overrides: Arc::default(),
                }),
                hook: RwLock::new(None),
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

    /// Current catalog generation (bumped by every mutation).
    pub fn generation(&self) -> u64 {
        lock(&self.shared).generation
    }

    /// Replace the override rules; completed catalogs are invalidated.
    pub fn set_overrides(&self, overrides: Overrides) {
        let mut state = lock(&self.shared);
        state.overrides = Arc::new(overrides);
        state.bump();
    }

    /// The override rules in force.
    pub fn overrides(&self) -> Arc<Overrides> {
        lock(&self.shared).overrides.clone()
    }

    /// Register a provider by name. Native providers are attached to an
    /// invalidator for this exact registration.
    pub fn register_provider(
        &self,
        name: &str,
        native: Option<Arc<dyn NativeProvider>>,
    ) -> Result<u64, RegistryError> {
        let id = {
            let mut state = lock(&self.shared);
            if name.is_empty() {
                return Err(RegistryError::EmptyName);
            }
            if name == RUNTIME_PROVIDER {
                return Err(RegistryError::ReservedName);
            }
            if state.providers.iter().any(|p| p.name == name) {
                return Err(RegistryError::DuplicateName(name.to_string()));
            }
            let id = state.fresh_id();
            state.providers.push(Slot {
                id,
                name: name.to_string(),
                native: native.clone(),
            });
            state.bump();
            id
        };
        if let Some(provider) = native {
            provider.attach(Some(Arc::new(SlotInvalidator {
                shared: Arc::downgrade(&self.shared),
                slot: id,
            })));
        }
        Ok(id)
    }

    /// Remove a provider registration. Returns `false` if it was not active.
    pub fn unregister_provider(&self, slot: u64) -> bool {
        let removed = {
            let mut state = lock(&self.shared);
            let Some(pos) = state.providers.iter().position(|p| p.id == slot) else {
                return false;
            };
            let removed = state.providers.remove(pos);
            state.bump();
            removed
        };
        if let Some(native) = removed.native {
            native.attach(None);
        }
        true
    }

    /// Invalidate completed catalogs on behalf of an active registration.
    /// Returns `false` (and does nothing) once that registration is gone.
    pub fn invalidate(&self, slot: u64) -> bool {
        invalidate_slot(&self.shared, slot)
    }

    /// Add a validated runtime skill. Returns `None` when a runtime skill with the
    /// same name exists (the caller logs and hands out a no-op disposer).
    pub fn register_runtime(&self, skill: RuntimeSkill) -> Option<u64> {
        let mut state = lock(&self.shared);
        if state.runtime.iter().any(|r| r.skill.name == skill.name) {
            return None;
        }
        let id = state.fresh_id();
        state.runtime.push(RuntimeSlot {
            id,
            skill: Arc::new(skill),
        });
        state.bump();
        Some(id)
    }

    /// Remove a runtime skill. Returns `false` if it was already removed.
    pub fn unregister_runtime(&self, id: u64) -> bool {
        let mut state = lock(&self.shared);
        let Some(pos) = state.runtime.iter().position(|r| r.id == id) else {
            return false;
        };
        state.runtime.remove(pos);
        state.bump();
        true
    }

    /// The cached complete catalog for `cwd`, if any (marks it recently used).
    /// Native providers may first find it stale and invalidate
    /// ([`NativeProvider::revalidate`]).
    pub fn cached(&self, cwd: Option<&str>) -> Option<Arc<Catalog>> {
        let key = cwd.map(str::to_string);
        let natives: Vec<Arc<dyn NativeProvider>> = {
            let state = lock(&self.shared);
            if !state.cache.contains(&key) {
                return None;
            }
            state
                .providers
                .iter()
                .filter_map(|p| p.native.clone())
                .collect()
        };
        // Outside the lock: an invalidation takes it.
        for native in natives {
            native.revalidate(cwd.map(Path::new));
        }
        lock(&self.shared).cache.get(&key).cloned()
    }

    /// Ids of catalogs dropped from the cache since the last call.
    pub fn take_evicted(&self) -> Vec<u64> {
        std::mem::take(&mut lock(&self.shared).evicted)
    }

    /// Start collecting a catalog for `cwd`. `attempt` is 0 for the first try
    /// and 1 for the retry after a generation change.
    pub fn collect(&self, cwd: Option<&str>, attempt: u32) -> Collection {
        let state = lock(&self.shared);
        let providers = state
            .providers
            .iter()
            .map(|p| PlannedProvider {
                slot: p.id,
                name: p.name.clone(),
                native: p.native.clone(),
            })
            .collect();
        let runtime = state
            .runtime
            .iter()
            .map(|r| (r.id, r.skill.clone()))
            .collect();
        Collection {
            registry: self.clone(),
            cwd: cwd.map(str::to_string),
            attempt,
            generation: state.generation,
            providers,
            runtime,
            overrides: state.overrides.clone(),
        }
    }

    /// Collect a catalog using native providers only (JS-free hosts, benches,
    /// tests). External slots are reported as failed.
    pub fn snapshot_native(&self, ctx: &LookupContext) -> (Arc<Catalog>, Vec<String>) {
        let cwd = ctx.cwd.as_ref().map(|p| p.to_string_lossy().into_owned());
        if let Some(hit) = self.cached(cwd.as_deref()) {
            return (hit, Vec::new());
        }
        let mut warnings = Vec::new();
        for attempt in 0..2 {
            let collection = self.collect(cwd.as_deref(), attempt);
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
            if let Finish::Done {
                catalog,
                warnings: w,
            } = collection.finish(outcomes)
            {
                warnings.extend(w);
                return (catalog, warnings);
            }
        }
        unreachable!("the second attempt always finishes")
    }
}

/// `value` when it is an integer in `1..=max`.
fn positive_integer(value: f64, max: u32) -> Option<u32> {
    (value.is_finite() && value >= 1.0 && value.fract() == 0.0 && value <= f64::from(max))
        .then_some(value as u32)
}

fn invalidate_slot(shared: &Shared, slot: u64) -> bool {
    let mut state = lock(shared);
    if !state.providers.iter().any(|p| p.id == slot) {
        return false;
    }
    state.bump();
    true
}

struct SlotInvalidator {
    shared: Weak<Shared>,
    slot: u64,
}

impl Invalidate for SlotInvalidator {
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
        if let Some(hook) = shared
            .hook
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .as_ref()
        {
            hook();
        }
        true
    }
}
