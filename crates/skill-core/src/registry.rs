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

use crate::model::{Candidate, Observation, SkillSummary, RUNTIME_PROVIDER, RUNTIME_RANK};
use crate::provider::{Invalidate, LookupContext, NativeProvider};
use lru::LruCache;
use std::num::NonZeroUsize;
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard, RwLock, Weak};

/// Slot id of the registry-owned runtime provider.
pub const RUNTIME_SLOT: u64 = 0;

/// Default bound of the catalog cache.
pub const DEFAULT_CACHE_ENTRIES: usize = 128;

/// Misuse of the registry API.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RegistryError {
    /// `collectCacheMaxEntries` is not a positive integer.
    #[error("collectCacheMaxEntries must be a positive integer (got {0})")]
    InvalidCacheSize(String),
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

/// What one provider returned for a collection.
#[derive(Clone, Debug)]
pub enum ProviderOutcome {
    /// Validated candidates (complete or not).
    Listed(Observation),
    /// `list()` failed; the catalog becomes incomplete.
    Failed,
}

/// The candidate that won a name.
#[derive(Clone, Debug)]
pub enum Winner {
    /// A runtime skill, by registration id.
    Runtime {
        /// Runtime registration id.
        id: u64,
    },
    /// A provider candidate.
    Provider {
        /// Provider slot.
        slot: u64,
        /// The winning candidate (its locator points back into the host's list
        /// for JS providers).
        candidate: Box<Candidate>,
        /// The native provider, when the slot is native.
        native: Option<Arc<dyn NativeProvider>>,
    },
}

impl std::fmt::Debug for dyn NativeProvider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "NativeProvider({})", self.name())
    }
}

/// One merged catalog observation.
#[derive(Debug)]
pub struct Catalog {
    /// Unique id (never reused by this registry).
    pub id: u64,
    /// Generation the catalog was collected at.
    pub generation: u64,
    /// Whether every provider completed at a stable generation.
    pub complete: bool,
    /// Sorted, invocation-neutral summaries.
    pub skills: Vec<SkillSummary>,
    /// Winner behind each summary (same order as `skills`).
    pub winners: Vec<Winner>,
}

impl Catalog {
    /// Index of `name` in the sorted catalog.
    pub fn position(&self, name: &str) -> Option<usize> {
        self.skills
            .binary_search_by(|s| s.name.as_str().cmp(name))
            .ok()
    }
}

/// One provider to consult in a collection.
#[derive(Clone)]
pub struct PlannedProvider {
    /// Slot id.
    pub slot: u64,
    /// Provider name.
    pub name: String,
    /// The provider itself when it is native.
    pub native: Option<Arc<dyn NativeProvider>>,
}

struct Slot {
    id: u64,
    name: String,
    native: Option<Arc<dyn NativeProvider>>,
}

struct RuntimeSkill {
    id: u64,
    summary: SkillSummary,
}

struct State {
    generation: u64,
    next_id: u64,
    providers: Vec<Slot>,
    runtime: Vec<RuntimeSkill>,
    cache: LruCache<Option<String>, Arc<Catalog>>,
    evicted: Vec<u64>,
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
                }),
                hook: RwLock::new(None),
            }),
        })
    }

    /// Validate a `collectCacheMaxEntries` value given as a JS number.
    pub fn cache_size_from_f64(value: f64) -> Result<usize, RegistryError> {
        if value.is_finite() && value >= 1.0 && value.fract() == 0.0 && value <= u32::MAX as f64 {
            Ok(value as usize)
        } else {
            Err(RegistryError::InvalidCacheSize(format!("{value}")))
        }
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
    pub fn register_runtime(&self, summary: SkillSummary) -> Option<u64> {
        let mut state = lock(&self.shared);
        if state.runtime.iter().any(|r| r.summary.name == summary.name) {
            return None;
        }
        let id = state.fresh_id();
        state.runtime.push(RuntimeSkill { id, summary });
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
            .map(|r| (r.id, r.summary.clone()))
            .collect();
        Collection {
            registry: self.clone(),
            cwd: cwd.map(str::to_string),
            attempt,
            generation: state.generation,
            providers,
            runtime,
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

/// The result of [`Collection::finish`].
#[derive(Debug)]
pub enum Finish {
    /// The generation changed during the first attempt: collect again.
    Retry,
    /// The merged catalog plus duplicate-name warnings.
    Done {
        /// The catalog (cached when complete).
        catalog: Arc<Catalog>,
        /// One line per shadowed duplicate.
        warnings: Vec<String>,
    },
}

/// A catalog being collected at one generation.
pub struct Collection {
    registry: Registry,
    cwd: Option<String>,
    attempt: u32,
    generation: u64,
    /// Providers to consult, in registration order.
    pub providers: Vec<PlannedProvider>,
    runtime: Vec<(u64, SkillSummary)>,
}

impl Collection {
    /// The generation this collection started at.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Merge the outcomes (one per planned provider, same order).
    pub fn finish(self, outcomes: Vec<ProviderOutcome>) -> Finish {
        let mut complete = outcomes.len() == self.providers.len();
        // (rank, provider order, local order) → first wins.
        struct Entry<'a> {
            rank: f64,
            order: usize,
            local: usize,
            summary: &'a SkillSummary,
            winner: Winner,
        }
        let mut entries: Vec<Entry<'_>> = Vec::new();
        for (local, (id, summary)) in self.runtime.iter().enumerate() {
            entries.push(Entry {
                rank: RUNTIME_RANK,
                order: 0,
                local,
                summary,
                winner: Winner::Runtime { id: *id },
            });
        }
        for (order, (planned, outcome)) in self.providers.iter().zip(outcomes.iter()).enumerate() {
            match outcome {
                ProviderOutcome::Failed => complete = false,
                ProviderOutcome::Listed(obs) => {
                    complete &= obs.complete;
                    for (local, candidate) in obs.candidates.iter().enumerate() {
                        entries.push(Entry {
                            rank: candidate.rank,
                            order: order + 1,
                            local,
                            summary: &candidate.summary,
                            winner: Winner::Provider {
                                slot: planned.slot,
                                candidate: Box::new(candidate.clone()),
                                native: planned.native.clone(),
                            },
                        });
                    }
                }
            }
        }
        entries.sort_by(|a, b| {
            a.rank
                .total_cmp(&b.rank)
                .then(a.order.cmp(&b.order))
                .then(a.local.cmp(&b.local))
        });
        let mut warnings = Vec::new();
        let mut seen: std::collections::HashMap<&str, (&SkillSummary, f64)> =
            std::collections::HashMap::with_capacity(entries.len());
        let mut won: Vec<(SkillSummary, Winner)> = Vec::with_capacity(entries.len());
        for entry in entries {
            if let Some((first, rank)) = seen.get(entry.summary.name.as_str()) {
                warnings.push(format!(
                    "skill \"{}\" from provider \"{}\" (source {}, rank {}) is shadowed by provider \"{}\" (source {}, rank {})",
                    entry.summary.name,
                    entry.summary.provider,
                    entry.summary.source,
                    entry.rank,
                    first.provider,
                    first.source,
                    rank
                ));
                continue;
            }
            seen.insert(entry.summary.name.as_str(), (entry.summary, entry.rank));
            won.push((entry.summary.clone(), entry.winner));
        }
        won.sort_by(|a, b| a.0.name.cmp(&b.0.name));

        let mut state = lock(&self.registry.shared);
        let stable = state.generation == self.generation;
        if !stable && self.attempt == 0 {
            return Finish::Retry;
        }
        complete &= stable;
        let id = state.fresh_id();
        let (skills, winners) = won.into_iter().unzip();
        let catalog = Arc::new(Catalog {
            id,
            generation: self.generation,
            complete,
            skills,
            winners,
        });
        if complete {
            if let Some((_, old)) = state.cache.push(self.cwd.clone(), catalog.clone()) {
                if old.id != catalog.id {
                    state.evicted.push(old.id);
                }
            }
        }
        Finish::Done { catalog, warnings }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{InvocationPolicy, Locator, SkillDefinition};
    use crate::provider::ProviderError;
    use std::sync::atomic::{AtomicUsize, Ordering};

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

    fn cand(name: &str, provider: &str, rank: f64, index: u32) -> Candidate {
        Candidate {
            summary: summary(name, provider, "test"),
            rank,
            path: None,
            metadata: None,
            locator: Locator::Index(index),
        }
    }

    fn listed(cands: Vec<Candidate>) -> ProviderOutcome {
        ProviderOutcome::Listed(Observation {
            candidates: cands,
            complete: true,
        })
    }

    fn done(f: Finish) -> (Arc<Catalog>, Vec<String>) {
        match f {
            Finish::Done { catalog, warnings } => (catalog, warnings),
            Finish::Retry => panic!("unexpected retry"),
        }
    }

    #[test]
    fn rejects_bad_cache_sizes() {
        assert!(Registry::new(0).is_err());
        assert_eq!(Registry::cache_size_from_f64(3.0), Ok(3));
        for bad in [0.0, -1.0, 1.5, f64::NAN, f64::INFINITY] {
            assert!(Registry::cache_size_from_f64(bad).is_err(), "{bad}");
        }
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
        r.register_provider("a", None).expect("a");
        r.register_provider("b", None).expect("b");
        assert!(r
            .register_runtime(summary("rt", "runtime", "runtime"))
            .is_some());
        assert!(r
            .register_runtime(summary("both", "runtime", "runtime"))
            .is_some());
        let c = r.collect(Some("/w"), 0);
        let (cat, warnings) = done(c.finish(vec![
            listed(vec![
                cand("zeta", "a", 500.0, 0),
                cand("dup", "a", 300.0, 1),
                cand("dup", "a", 300.0, 2),
                cand("both", "a", 300.0, 3),
            ]),
            listed(vec![cand("dup", "b", 300.0, 0), cand("rt", "b", 100.0, 1)]),
        ]));
        let names: Vec<&str> = cat.skills.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["both", "dup", "rt", "zeta"]);
        // rank 100 from b beats runtime's 250; runtime's 250 beats a's 300.
        assert_eq!(cat.skills[2].provider, "b");
        assert_eq!(cat.skills[0].provider, "runtime");
        // same rank: provider order, then local order.
        match &cat.winners[1] {
            Winner::Provider { candidate, .. } => {
                assert_eq!(candidate.summary.provider, "a");
                assert_eq!(candidate.locator, Locator::Index(1));
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(warnings.len(), 4, "{warnings:?}");
        assert!(cat.complete);
        assert_eq!(cat.position("rt"), Some(2));
        assert_eq!(cat.position("nope"), None);
    }

    #[test]
    fn runtime_duplicates_are_refused() {
        let r = Registry::new(4).expect("registry");
        let first = r
            .register_runtime(summary("x", "runtime", "runtime"))
            .expect("first");
        assert!(r
            .register_runtime(summary("x", "runtime", "runtime"))
            .is_none());
        assert!(r.unregister_runtime(first));
        assert!(!r.unregister_runtime(first));
        assert!(r
            .register_runtime(summary("x", "runtime", "runtime"))
            .is_some());
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
                .finish(vec![ProviderOutcome::Listed(Observation {
                    candidates: vec![cand("x", "a", 1.0, 0)],
                    complete: false,
                })]),
        );
        assert!(!cat.complete);
        assert!(r.cached(Some("/w")).is_none());
        let (cat, _) = done(r.collect(Some("/w"), 0).finish(vec![listed(vec![])]));
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
        assert!(matches!(first.finish(vec![listed(vec![])]), Finish::Retry));
        let second = r.collect(Some("/w"), 1);
        assert!(r.invalidate(slot));
        let (cat, _) = done(second.finish(vec![listed(vec![cand("x", "a", 1.0, 0)])]));
        assert!(!cat.complete);
        assert_eq!(cat.skills.len(), 1);
        assert!(r.cached(Some("/w")).is_none());
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

    struct Fake {
        invalidator: Mutex<Option<Arc<dyn Invalidate>>>,
        lists: AtomicUsize,
    }

    impl NativeProvider for Fake {
        fn name(&self) -> &str {
            "fake"
        }
        fn list(&self, _ctx: &LookupContext) -> (Observation, Vec<String>) {
            self.lists.fetch_add(1, Ordering::SeqCst);
            (
                Observation {
                    candidates: vec![cand("native", "fake", 1.0, 0)],
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
    }

    #[test]
    fn native_providers_are_attached_and_cached() {
        let r = Registry::new(2).expect("registry");
        let fake = Arc::new(Fake {
            invalidator: Mutex::new(None),
            lists: AtomicUsize::new(0),
        });
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
        assert_eq!(cat.skills[0].name, "native");
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
        let fake = Arc::new(Fake {
            invalidator: Mutex::new(None),
            lists: AtomicUsize::new(0),
        });
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
}
