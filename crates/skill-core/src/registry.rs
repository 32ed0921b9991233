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

use crate::model::host::{HostObservation, Span};
use crate::model::{js_number, RUNTIME_PROVIDER, RUNTIME_RANK};
use crate::model::{Candidate, InvocationPolicy, Observation, RuntimeSkill, SkillSummary};
use crate::overrides::{Applied, Effect, Overrides};
use crate::provider::{Invalidate, LookupContext, NativeProvider};
use lru::LruCache;
use std::num::NonZeroUsize;
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, RwLock, Weak};

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

/// What one provider returned for a collection.
#[derive(Clone, Debug)]
pub enum ProviderOutcome {
    /// A native provider's observation (complete or not).
    Listed(Observation),
    /// A host (JS) provider's validated observation (complete or not).
    Host(HostObservation),
    /// `list()` failed or was abandoned after the provider timeout; the
    /// catalog becomes incomplete.
    Failed,
    /// The provider's registration was disposed while the lookup waited on
    /// it. The lookup completes without it, as an incomplete observation, and
    /// is not retried (it was released so as not to wait any longer).
    Released,
}

/// The candidate that won a name.
#[derive(Clone)]
pub enum Winner {
    /// A runtime skill, by registration id.
    Runtime {
        /// Runtime registration id.
        id: u64,
    },
    /// A host (JS) provider's candidate: the host keeps the object.
    Host {
        /// Provider slot.
        slot: u64,
        /// Position of the candidate in the provider's `list()` result.
        index: u32,
    },
    /// A native provider's candidate.
    Native {
        /// Provider slot.
        slot: u64,
        /// The provider (loads the body).
        provider: Arc<dyn NativeProvider>,
        /// The winning candidate.
        candidate: Box<Candidate>,
    },
}

impl std::fmt::Debug for Winner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Winner::Runtime { id } => write!(f, "Runtime({id})"),
            Winner::Host { slot, index } => write!(f, "Host({slot}, {index})"),
            Winner::Native {
                slot,
                provider,
                candidate,
            } => write!(
                f,
                "Native({slot}, {}, {})",
                provider.name(),
                candidate.summary.name
            ),
        }
    }
}

/// Where a winner's description is: in the catalog's own text (native
/// winners), or held by the host (runtime and JS-provider winners, whose
/// objects stay in JS) until it supplies it ([`Catalog::supply_descriptions`]).
#[derive(Clone, Copy, Debug)]
enum Description {
    Text(Span),
    /// Position among the host-held descriptions.
    Host(u32),
}

/// One winning skill of a [`Catalog`].
#[derive(Clone, Debug)]
pub struct Entry {
    name: Span,
    description: Description,
    /// Its invocation controls (as an override rewrote them, if one did).
    pub invocation: InvocationPolicy,
    /// Where it came from.
    pub winner: Winner,
    /// The override rule that decided about it, if one matched.
    pub applied: Option<Applied>,
}

/// Descriptions supplied by the host, in catalog order.
#[derive(Debug)]
struct Supplied {
    text: String,
    spans: Vec<Span>,
}

/// The host supplied descriptions that do not fit the catalog.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("supplied descriptions do not fit the catalog: {0}")]
pub struct SupplyError(&'static str);

/// One merged catalog observation: the winners sorted by name, with the name,
/// description and invocation of each (what catalog rendering needs), and
/// where each came from.
#[derive(Debug)]
pub struct Catalog {
    /// Unique id (never reused by this registry).
    pub id: u64,
    /// Generation the catalog was collected at.
    pub generation: u64,
    /// Whether every provider completed at a stable generation.
    pub complete: bool,
    text: String,
    entries: Vec<Entry>,
    host_held: u32,
    supplied: OnceLock<Supplied>,
    considered: Considered,
}

impl Catalog {
    /// Number of skills.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the catalog has no skill.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The winners, sorted by name.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The skills' names, sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> + '_ {
        self.entries.iter().map(|e| e.name.of(&self.text))
    }

    /// Name of `entry` (one of [`Catalog::entries`]).
    pub fn name<'a>(&'a self, entry: &Entry) -> &'a str {
        entry.name.of(&self.text)
    }

    /// Description of `entry` (one of [`Catalog::entries`]); `None` for a
    /// host-held description not supplied yet.
    pub fn description<'a>(&'a self, entry: &Entry) -> Option<&'a str> {
        match entry.description {
            Description::Text(span) => Some(span.of(&self.text)),
            Description::Host(i) => {
                let supplied = self.supplied.get()?;
                supplied.spans.get(i as usize).map(|s| s.of(&supplied.text))
            }
        }
    }

    /// How many descriptions the host holds (runtime and JS-provider winners).
    pub fn host_held(&self) -> usize {
        self.host_held as usize
    }

    /// Whether every description is known (none host-held, or supplied).
    pub fn has_descriptions(&self) -> bool {
        self.host_held == 0 || self.supplied.get().is_some()
    }

    /// Supply the host-held descriptions, in catalog order: `text` and one
    /// byte range in it per host-held entry. The first supply stays.
    pub fn supply_descriptions(&self, text: String, spans: Vec<Span>) -> Result<(), SupplyError> {
        if spans.len() != self.host_held() {
            return Err(SupplyError("wrong count"));
        }
        if spans.iter().any(|s| {
            s.start > s.end
                || !text.is_char_boundary(s.start as usize)
                || !text.is_char_boundary(s.end as usize)
        }) {
            return Err(SupplyError("span outside the text"));
        }
        let _ = self.supplied.set(Supplied { text, spans });
        Ok(())
    }

    /// `(name, description)` of the model-invocable skills, sorted by name:
    /// the input of [`crate::catalog::Catalog::new`]. `None` until every
    /// description is known ([`Catalog::has_descriptions`]).
    pub fn model_entries(&self) -> Option<impl Iterator<Item = (&str, &str)> + '_> {
        self.has_descriptions().then(|| {
            self.entries
                .iter()
                .filter(|e| e.invocation.model_invocable)
                .map(|e| (self.name(e), self.description(e).unwrap_or_default()))
        })
    }

    /// Summaries of the native winners, in catalog order (the host builds the
    /// other summaries from its own objects).
    pub fn native_summaries(&self) -> impl Iterator<Item = &SkillSummary> + '_ {
        self.entries.iter().filter_map(|e| match &e.winner {
            Winner::Native { candidate, .. } => Some(&candidate.summary),
            _ => None,
        })
    }

    /// Index of `name` in the sorted catalog.
    pub fn position(&self, name: &str) -> Option<usize> {
        self.entries
            .binary_search_by(|e| e.name.of(&self.text).cmp(name))
            .ok()
    }

    /// Every candidate this catalog's merge considered for `name`, in merge
    /// order: the winner first (when there is one), then each other
    /// candidate with why it lost. Empty when no provider listed the name.
    pub fn explain(&self, name: &str) -> Vec<Explained<'_>> {
        let c = &self.considered;
        let winner = self.position(name).and_then(|i| self.entries.get(i));
        let mut out = Vec::new();
        // The winner's place among the candidates (a native winner moved out
        // of its listing into the entry).
        let mut winner_origin = None;
        if let Some(entry) = winner {
            let explained = match &entry.winner {
                Winner::Runtime { id } => {
                    winner_origin = c
                        .runtime
                        .iter()
                        .position(|(r, _)| r == id)
                        .map(|i| Origin::Runtime(index(i)));
                    winner_origin.and_then(|o| c.explained(o, Outcome::Won))
                }
                Winner::Host { slot, index: local } => {
                    winner_origin = c
                        .providers
                        .iter()
                        .position(|p| p.slot == *slot)
                        .map(|p| Origin::Provider(index(p), *local));
                    winner_origin.and_then(|o| c.explained(o, Outcome::Won))
                }
                Winner::Native {
                    slot, candidate, ..
                } => Some(Explained {
                    from: Contribution::Native {
                        slot: *slot,
                        candidate,
                    },
                    provider: &candidate.summary.provider,
                    source: &candidate.summary.source,
                    rank: candidate.rank,
                    invocation: entry.invocation,
                    applied: entry.applied,
                    outcome: Outcome::Won,
                }),
            };
            out.extend(explained);
        }
        let mut others = Vec::new();
        for_each_contender(&c.runtime, &c.listings, |x| {
            if x.name == name && Some(x.origin) != winner_origin {
                others.push(x);
            }
        });
        sort_contenders(&mut others);
        let winner_rank = out.first().map(|w| w.rank);
        for x in others {
            // Lost to the winner, unless an override switched it off first.
            let lost = match winner_rank {
                Some(rank) if rank.total_cmp(&x.rank).is_lt() => Outcome::Rank,
                _ => Outcome::Order,
            };
            out.extend(c.explained(x.origin, lost));
        }
        out
    }
}

/// Why an explained candidate did or did not win its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// It won.
    Won,
    /// The winner has a lower rank.
    Rank,
    /// Same rank as the winner, which comes first in merge order (runtime
    /// skills, then providers in registration order, each in its own order).
    Order,
    /// An override switched it off: it took no part in the merge.
    Off,
}

impl Outcome {
    /// `'won'`, `'rank'`, `'order'` or `'off'`.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Won => "won",
            Outcome::Rank => "rank",
            Outcome::Order => "order",
            Outcome::Off => "off",
        }
    }
}

/// Where an explained candidate comes from.
#[derive(Clone, Copy, Debug)]
pub enum Contribution<'a> {
    /// A runtime skill, by registration id.
    Runtime {
        /// Runtime registration id.
        id: u64,
    },
    /// A JS provider's candidate (the host keeps the object).
    Host {
        /// Provider slot.
        slot: u64,
        /// Position of the candidate in the provider's `list()` result.
        index: u32,
    },
    /// A native provider's candidate.
    Native {
        /// Provider slot.
        slot: u64,
        /// The candidate.
        candidate: &'a Candidate,
    },
}

/// One candidate of [`Catalog::explain`].
#[derive(Clone, Copy, Debug)]
pub struct Explained<'a> {
    /// Where it comes from.
    pub from: Contribution<'a>,
    /// Its provider label.
    pub provider: &'a str,
    /// Its source label.
    pub source: &'a str,
    /// Its rank.
    pub rank: f64,
    /// Its invocation controls after the overrides (as declared when none
    /// rewrites them, or when it is switched off).
    pub invocation: InvocationPolicy,
    /// The override rule that decided about it, if one matched.
    pub applied: Option<Applied>,
    /// Whether it won, or why not.
    pub outcome: Outcome,
}

/// What a catalog's merge considered besides the winners it kept: the
/// runtime skills, the providers, their listings and the override rules.
struct Considered {
    runtime: Vec<(u64, Arc<RuntimeSkill>)>,
    providers: Vec<PlannedProvider>,
    /// One per planned provider, same order.
    listings: Vec<Listing>,
    overrides: Arc<Overrides>,
}

impl std::fmt::Debug for Considered {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Considered")
            .field("runtime", &self.runtime.len())
            .field("providers", &self.providers.len())
            .field("overrides", &self.overrides.len())
            .finish()
    }
}

impl Considered {
    /// The candidate at `origin` explained; `lost` is its outcome unless an
    /// override switched it off.
    fn explained(&self, origin: Origin, lost: Outcome) -> Option<Explained<'_>> {
        let labels = labels(origin, &self.runtime, &self.providers, &self.listings)?;
        let (from, rank, declared) = match origin {
            Origin::Runtime(i) => {
                let (id, skill) = self.runtime.get(i as usize)?;
                (
                    Contribution::Runtime { id: *id },
                    RUNTIME_RANK,
                    skill.invocation,
                )
            }
            Origin::Provider(p, local) => {
                let slot = self.providers.get(p as usize)?.slot;
                match self.listings.get(p as usize)? {
                    Listing::Host(obs) => {
                        let c = obs.listing.candidates.get(local as usize)?;
                        (
                            Contribution::Host { slot, index: local },
                            c.rank,
                            c.invocation,
                        )
                    }
                    Listing::Native(candidates) => {
                        let candidate = candidates.get(local as usize)?.as_ref()?;
                        (
                            Contribution::Native { slot, candidate },
                            candidate.rank,
                            candidate.summary.invocation,
                        )
                    }
                    Listing::None => return None,
                }
            }
        };
        let applied = self
            .overrides
            .decide(labels.name, labels.source, labels.provider);
        let off = applied.is_some_and(|a| a.effect == Effect::Off);
        Some(Explained {
            from,
            provider: labels.provider,
            source: labels.source,
            rank,
            invocation: applied.map_or(declared, |a| a.effect.apply(declared)),
            applied,
            outcome: if off { Outcome::Off } else { lost },
        })
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
    /// Native providers may first find cached catalogs stale and invalidate
    /// ([`NativeProvider::revalidate`]); they are asked on a miss too, so a
    /// lookup never joins a collection that started before such a change.
    pub fn cached(&self, cwd: Option<&str>) -> Option<Arc<Catalog>> {
        let key = cwd.map(str::to_string);
        let natives: Vec<Arc<dyn NativeProvider>> = {
            let state = lock(&self.shared);
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
        if !lock(&shared).providers.iter().any(|p| p.id == self.slot) {
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
    runtime: Vec<(u64, Arc<RuntimeSkill>)>,
    overrides: Arc<Overrides>,
}

impl Collection {
    /// The generation this collection started at.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// The registry this collection belongs to.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// Merge the outcomes (one per planned provider, same order): rank, then
    /// provider order (runtime first), then the provider's own order; the
    /// first of a name wins, later ones become warnings. Candidates an
    /// override switches off take no part.
    pub fn finish(self, outcomes: Vec<ProviderOutcome>) -> Finish {
        let mut complete = outcomes.len() == self.providers.len();
        let mut released = false;
        for outcome in &outcomes {
            match outcome {
                ProviderOutcome::Listed(obs) => complete &= obs.complete,
                ProviderOutcome::Host(obs) => complete &= obs.listing.complete,
                ProviderOutcome::Failed => complete = false,
                ProviderOutcome::Released => {
                    complete = false;
                    released = true;
                }
            }
        }
        let listings: Vec<Listing> = outcomes.into_iter().map(Listing::from).collect();
        let decisions = Decisions::new(&self.runtime, &self.providers, &listings, &self.overrides);
        let (order, warnings) = merge(&self.runtime, &self.providers, &listings, &decisions);

        let mut state = lock(&self.registry.shared);
        let stable = state.generation == self.generation;
        if !stable && self.attempt == 0 && !released {
            return Finish::Retry;
        }
        complete &= stable;
        let id = state.fresh_id();
        drop(state);
        let considered = Considered {
            runtime: self.runtime,
            providers: self.providers,
            listings,
            overrides: self.overrides,
        };
        let catalog = Arc::new(build_catalog(
            id,
            self.generation,
            complete,
            considered,
            &order,
            &decisions,
        ));
        if complete {
            let mut state = lock(&self.registry.shared);
            // Another mutation may have happened since the check above: only a
            // catalog of the current generation is cached.
            if state.generation == self.generation {
                if let Some((_, old)) = state.cache.push(self.cwd.clone(), catalog.clone()) {
                    if old.id != catalog.id {
                        state.evicted.push(old.id);
                    }
                }
            }
        }
        Finish::Done { catalog, warnings }
    }
}

/// One provider's candidates, as the merge sees them.
enum Listing {
    /// `list()` failed, or the registration was released.
    None,
    /// A native provider's candidates; a winner moves into its catalog entry
    /// (`None` here from then on).
    Native(Vec<Option<Candidate>>),
    /// A JS provider's validated listing.
    Host(HostObservation),
}

impl From<ProviderOutcome> for Listing {
    fn from(outcome: ProviderOutcome) -> Self {
        match outcome {
            ProviderOutcome::Listed(obs) => {
                Listing::Native(obs.candidates.into_iter().map(Some).collect())
            }
            ProviderOutcome::Host(obs) => Listing::Host(obs),
            ProviderOutcome::Failed | ProviderOutcome::Released => Listing::None,
        }
    }
}

impl Listing {
    fn len(&self) -> usize {
        match self {
            Listing::None => 0,
            Listing::Native(candidates) => candidates.len(),
            Listing::Host(obs) => obs.listing.candidates.len(),
        }
    }
}

/// Where a contender comes from: the runtime list, or `(provider position,
/// position in its observation)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Origin {
    Runtime(u32),
    Provider(u32, u32),
}

/// A contender for a name, as the merge sorts it.
#[derive(Clone, Copy)]
struct Contender<'a> {
    name: &'a str,
    rank: f64,
    origin: Origin,
}

/// Call `push` with every candidate, in precedence order for equal ranks:
/// runtime skills, then providers in registration order, each in its own
/// order.
fn for_each_contender<'a>(
    runtime: &'a [(u64, Arc<RuntimeSkill>)],
    listings: &'a [Listing],
    mut push: impl FnMut(Contender<'a>),
) {
    for (i, (_, skill)) in runtime.iter().enumerate() {
        push(Contender {
            name: &skill.name,
            rank: RUNTIME_RANK,
            origin: Origin::Runtime(index(i)),
        });
    }
    for (p, listing) in listings.iter().enumerate() {
        let p = index(p);
        match listing {
            Listing::Native(candidates) => {
                for (local, c) in candidates.iter().enumerate() {
                    if let Some(c) = c {
                        push(Contender {
                            name: &c.summary.name,
                            rank: c.rank,
                            origin: Origin::Provider(p, index(local)),
                        });
                    }
                }
            }
            Listing::Host(obs) => {
                for (local, c) in obs.listing.candidates.iter().enumerate() {
                    push(Contender {
                        name: c.name.of(&obs.text),
                        rank: c.rank,
                        origin: Origin::Provider(p, index(local)),
                    });
                }
            }
            Listing::None => {}
        }
    }
}

/// The merge order: by name, then rank. The sort is stable, so contenders
/// pushed in precedence order ([`for_each_contender`]) keep it within a rank:
/// each name's winner comes first in its group, and the winners in name
/// order. Providers usually list in name order, and the stable sort merges
/// such runs instead of sorting from scratch.
fn sort_contenders(contenders: &mut [Contender<'_>]) {
    contenders.sort_by(|a, b| a.name.cmp(b.name).then(a.rank.total_cmp(&b.rank)));
}

/// The override rule deciding about each candidate, computed once per
/// collection (nothing without rules).
struct Decisions {
    /// Where each listing's candidates start in `applied` (runtime skills
    /// come first).
    offsets: Vec<usize>,
    applied: Vec<Option<Applied>>,
}

impl Decisions {
    fn new(
        runtime: &[(u64, Arc<RuntimeSkill>)],
        providers: &[PlannedProvider],
        listings: &[Listing],
        overrides: &Overrides,
    ) -> Self {
        if overrides.is_empty() {
            return Decisions {
                offsets: Vec::new(),
                applied: Vec::new(),
            };
        }
        let mut offsets = Vec::with_capacity(listings.len());
        let mut total = runtime.len();
        for listing in listings {
            offsets.push(total);
            total += listing.len();
        }
        let mut applied = vec![None; total];
        for_each_contender(runtime, listings, |c| {
            if let (Some(at), Some(l)) = (
                Self::at(&offsets, c.origin),
                labels(c.origin, runtime, providers, listings),
            ) {
                if let Some(slot) = applied.get_mut(at) {
                    *slot = overrides.decide(l.name, l.source, l.provider);
                }
            }
        });
        Decisions { offsets, applied }
    }

    fn at(offsets: &[usize], origin: Origin) -> Option<usize> {
        match origin {
            Origin::Runtime(i) => Some(i as usize),
            Origin::Provider(p, local) => offsets.get(p as usize).map(|o| o + local as usize),
        }
    }

    fn is_empty(&self) -> bool {
        self.applied.is_empty()
    }

    /// The rule deciding about the candidate at `origin`, if one matches.
    fn get(&self, origin: Origin) -> Option<Applied> {
        Self::at(&self.offsets, origin)
            .and_then(|at| self.applied.get(at).copied())
            .flatten()
    }

    /// Whether the candidate at `origin` takes part in the merge.
    fn keeps(&self, origin: Origin) -> bool {
        self.get(origin).is_none_or(|a| a.effect != Effect::Off)
    }
}

/// Name, provider label and source of a candidate.
struct Labels<'a> {
    name: &'a str,
    provider: &'a str,
    source: &'a str,
}

fn labels<'a>(
    origin: Origin,
    runtime: &'a [(u64, Arc<RuntimeSkill>)],
    providers: &'a [PlannedProvider],
    listings: &'a [Listing],
) -> Option<Labels<'a>> {
    let at = |i: u32| i as usize;
    match origin {
        Origin::Runtime(i) => runtime.get(at(i)).map(|(_, s)| Labels {
            name: &s.name,
            provider: &s.provider,
            source: &s.source,
        }),
        Origin::Provider(p, local) => match listings.get(at(p))? {
            Listing::Native(candidates) => {
                let c = candidates.get(at(local))?.as_ref()?;
                Some(Labels {
                    name: &c.summary.name,
                    provider: &c.summary.provider,
                    source: &c.summary.source,
                })
            }
            Listing::Host(obs) => {
                let c = obs.listing.candidates.get(at(local))?;
                Some(Labels {
                    name: c.name.of(&obs.text),
                    provider: &providers.get(at(p))?.name,
                    source: obs.source(c),
                })
            }
            Listing::None => None,
        },
    }
}

fn index(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(u32::MAX)
}

/// The winners' origins sorted by name, and one warning per shadowed
/// duplicate. Candidates an override switched off take no part.
fn merge(
    runtime: &[(u64, Arc<RuntimeSkill>)],
    providers: &[PlannedProvider],
    listings: &[Listing],
    decisions: &Decisions,
) -> (Vec<Origin>, Vec<String>) {
    let total = runtime.len() + listings.iter().map(Listing::len).sum::<usize>();
    let mut contenders: Vec<Contender<'_>> = Vec::with_capacity(total);
    for_each_contender(runtime, listings, |c| contenders.push(c));
    if !decisions.is_empty() {
        contenders.retain(|c| decisions.keeps(c.origin));
    }
    sort_contenders(&mut contenders);
    let mut warnings = Vec::new();
    let mut won: Vec<Origin> = Vec::with_capacity(contenders.len());
    let mut first: Option<&Contender<'_>> = None;
    for c in &contenders {
        match first {
            Some(f) if f.name == c.name => {
                let label = |origin| {
                    labels(origin, runtime, providers, listings)
                        .map_or(("", ""), |l| (l.provider, l.source))
                };
                let (provider, source) = label(c.origin);
                let (first_provider, first_source) = label(f.origin);
                warnings.push(format!(
                    "skill \"{}\" from provider \"{provider}\" (source {source}, rank {}) is shadowed by provider \"{first_provider}\" (source {first_source}, rank {})",
                    c.name, c.rank, f.rank
                ));
            }
            _ => {
                first = Some(c);
                won.push(c.origin);
            }
        }
    }
    (won, warnings)
}

fn build_catalog(
    id: u64,
    generation: u64,
    complete: bool,
    mut considered: Considered,
    order: &[Origin],
    decisions: &Decisions,
) -> Catalog {
    let mut text = String::new();
    let mut entries = Vec::with_capacity(order.len());
    let mut host_held = 0u32;
    let span = |text: &mut String, s: &str| {
        let start = u32::try_from(text.len()).unwrap_or(u32::MAX);
        text.push_str(s);
        Span {
            start,
            end: u32::try_from(text.len()).unwrap_or(u32::MAX),
        }
    };
    let mut held = || {
        host_held += 1;
        Description::Host(host_held - 1)
    };
    let Considered {
        runtime,
        providers,
        listings,
        ..
    } = &mut considered;
    for origin in order {
        // The rule deciding about this winner (never `off`: those did not
        // take part), and the invocation it leaves.
        let applied = decisions.get(*origin);
        let invocation =
            |declared: InvocationPolicy| applied.map_or(declared, |a| a.effect.apply(declared));
        let entry = match *origin {
            Origin::Runtime(i) => {
                let Some((id, skill)) = runtime.get(i as usize) else {
                    continue;
                };
                Entry {
                    name: span(&mut text, &skill.name),
                    description: held(),
                    invocation: invocation(skill.invocation),
                    winner: Winner::Runtime { id: *id },
                    applied,
                }
            }
            Origin::Provider(p, local) => {
                let (p, local) = (p as usize, local as usize);
                let Some(planned) = providers.get(p) else {
                    continue;
                };
                match listings.get_mut(p) {
                    Some(Listing::Host(obs)) => {
                        let Some(c) = obs.listing.candidates.get(local) else {
                            continue;
                        };
                        Entry {
                            name: span(&mut text, c.name.of(&obs.text)),
                            description: held(),
                            invocation: invocation(c.invocation),
                            winner: Winner::Host {
                                slot: planned.slot,
                                index: u32::try_from(local).unwrap_or(u32::MAX),
                            },
                            applied,
                        }
                    }
                    // Native candidates move into their winner entries.
                    Some(Listing::Native(candidates)) => {
                        let (Some(mut candidate), Some(provider)) = (
                            candidates.get_mut(local).and_then(Option::take),
                            planned.native.clone(),
                        ) else {
                            continue;
                        };
                        candidate.summary.invocation = invocation(candidate.summary.invocation);
                        Entry {
                            name: span(&mut text, &candidate.summary.name),
                            description: Description::Text(span(
                                &mut text,
                                &candidate.summary.description,
                            )),
                            invocation: candidate.summary.invocation,
                            winner: Winner::Native {
                                slot: planned.slot,
                                provider,
                                candidate: Box::new(candidate),
                            },
                            applied,
                        }
                    }
                    Some(Listing::None) | None => continue,
                }
            }
        };
        entries.push(entry);
    }
    Catalog {
        id,
        generation,
        complete,
        text,
        entries,
        host_held,
        supplied: OnceLock::new(),
        considered,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::host::{validate_listing, OwnedRecords};
    use crate::model::{Locator, SkillDefinition};
    use crate::overrides::Overrides;
    use crate::provider::ProviderError;
    use serde_json::json;
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

    fn runtime(name: &str) -> RuntimeSkill {
        RuntimeSkill::from(&summary(name, "runtime", "runtime"))
    }

    fn cand(name: &str, provider: &str, rank: f64) -> Candidate {
        Candidate {
            summary: summary(name, provider, "test"),
            rank,
            path: None,
            metadata: None,
            locator: Locator::None,
        }
    }

    fn listed(cands: Vec<Candidate>) -> ProviderOutcome {
        ProviderOutcome::Listed(Observation {
            candidates: cands,
            complete: true,
        })
    }

    /// A JS provider's `list()` result, validated as the binding does it.
    fn host(provider: &str, items: &[(&str, f64)], complete: bool) -> ProviderOutcome {
        let candidates: Vec<_> = items
            .iter()
            .map(|(name, rank)| {
                json!({
                    "name": name,
                    "description": format!("{name} from {provider}"),
                    "invocation": {"modelInvocable": !name.starts_with("hidden"), "userInvocable": true},
                    "source": "remote",
                    "provider": provider,
                    "rank": rank,
                })
            })
            .collect();
        let value = json!({ "candidates": candidates, "complete": complete });
        let (head, owned) = OwnedRecords::from_list_json(&value);
        let records = owned.records();
        let listing = validate_listing(provider, &head, &records).expect("valid listing");
        ProviderOutcome::Host(HostObservation {
            text: records.text.to_string(),
            strings: records.strings.to_vec(),
            listing,
        })
    }

    fn done(f: Finish) -> (Arc<Catalog>, Vec<String>) {
        match f {
            Finish::Done { catalog, warnings } => (catalog, warnings),
            Finish::Retry => panic!("unexpected retry"),
        }
    }

    fn names(catalog: &Catalog) -> Vec<&str> {
        catalog.names().collect()
    }

    #[test]
    fn rejects_bad_settings() {
        assert!(Registry::new(0).is_err());
        assert_eq!(Registry::cache_size_from_f64(3.0), Ok(3));
        assert_eq!(Registry::provider_timeout_from_f64(250.0), Ok(250));
        assert_eq!(
            Registry::provider_timeout_from_f64(2_147_483_647.0),
            Ok(2_147_483_647)
        );
        for bad in [0.0, -1.0, 1.5, f64::NAN, f64::INFINITY] {
            assert!(Registry::cache_size_from_f64(bad).is_err(), "{bad}");
            assert!(Registry::provider_timeout_from_f64(bad).is_err(), "{bad}");
        }
        assert_eq!(
            Registry::provider_timeout_from_f64(2_147_483_648.0)
                .expect_err("too large")
                .to_string(),
            "providerTimeoutMs must be a positive integer of at most 2147483647 (got 2147483648)"
        );
        assert_eq!(
            Registry::cache_size_from_f64(f64::NAN)
                .expect_err("NaN")
                .to_string(),
            "collectCacheMaxEntries must be a positive integer (got NaN)"
        );
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
        let a = r.register_provider("a", None).expect("a");
        let b = r.register_provider("b", None).expect("b");
        assert!(r.register_runtime(runtime("rt")).is_some());
        assert!(r.register_runtime(runtime("both")).is_some());
        let c = r.collect(Some("/w"), 0);
        let (cat, warnings) = done(c.finish(vec![
            host(
                "a",
                &[
                    ("zeta", 500.0),
                    ("dup", 300.0),
                    ("dup", 300.0),
                    ("both", 300.0),
                ],
                true,
            ),
            host("b", &[("dup", 300.0), ("rt", 100.0)], true),
        ]));
        assert_eq!(names(&cat), ["both", "dup", "rt", "zeta"]);
        let winners: Vec<String> = cat
            .entries()
            .iter()
            .map(|e| format!("{:?}", e.winner))
            .collect();
        // runtime 250 beats a's 300; same rank: provider order, then local
        // order; rank 100 from b beats runtime 250.
        assert!(winners[0].starts_with("Runtime("), "{winners:?}");
        assert_eq!(winners[1], format!("Host({a}, 1)"));
        assert_eq!(winners[2], format!("Host({b}, 1)"));
        assert_eq!(winners[3], format!("Host({a}, 0)"));
        assert_eq!(warnings.len(), 4, "{warnings:?}");
        assert!(
            warnings.contains(&"skill \"dup\" from provider \"b\" (source remote, rank 300) is shadowed by provider \"a\" (source remote, rank 300)".to_string()),
            "{warnings:?}"
        );
        assert!(cat.complete);
        assert_eq!(cat.position("rt"), Some(2));
        assert_eq!(cat.position("nope"), None);
    }

    #[test]
    fn catalog_entries_for_rendering() {
        let r = Registry::new(4).expect("registry");
        r.register_provider("js", None).expect("js");
        let fake = Arc::new(Fake::default());
        r.register_provider("fake", Some(fake.clone()))
            .expect("fake");
        assert!(r.register_runtime(runtime("middle")).is_some());
        let (cat, _) = done(r.collect(None, 0).finish(vec![
            host("js", &[("hidden-one", 1.0), ("zulu", 1.0)], true),
            listed(vec![cand("alpha", "fake", 1.0)]),
        ]));
        assert_eq!(names(&cat), ["alpha", "hidden-one", "middle", "zulu"]);
        // The runtime and JS-provider descriptions stay with the host until it
        // supplies them.
        assert_eq!(cat.host_held(), 3);
        assert!(!cat.has_descriptions() && cat.model_entries().is_none());
        assert_eq!(cat.description(&cat.entries()[0]), Some("alpha from fake"));
        assert_eq!(cat.description(&cat.entries()[1]), None);
        let text = "hidden onemiddle from runtimezulu from js".to_string();
        let spans = |bounds: &[(u32, u32)]| -> Vec<Span> {
            bounds
                .iter()
                .map(|&(start, end)| Span { start, end })
                .collect()
        };
        assert!(cat
            .supply_descriptions(text.clone(), spans(&[(0, 10), (10, 29)]))
            .is_err());
        assert!(cat
            .supply_descriptions(text.clone(), spans(&[(0, 10), (10, 29), (29, 99)]))
            .is_err());
        cat.supply_descriptions(text, spans(&[(0, 10), (10, 29), (29, 41)]))
            .expect("fits");
        let model: Vec<(&str, &str)> = cat.model_entries().expect("complete").collect();
        assert_eq!(
            model,
            [
                ("alpha", "alpha from fake"),
                ("middle", "middle from runtime"),
                ("zulu", "zulu from js")
            ]
        );
        let native: Vec<&str> = cat.native_summaries().map(|s| s.name.as_str()).collect();
        assert_eq!(native, ["alpha"]);
        assert_eq!(cat.len(), 4);
    }

    #[test]
    fn runtime_duplicates_are_refused() {
        let r = Registry::new(4).expect("registry");
        let first = r.register_runtime(runtime("x")).expect("first");
        assert!(r.register_runtime(runtime("x")).is_none());
        assert!(r.unregister_runtime(first));
        assert!(!r.unregister_runtime(first));
        assert!(r.register_runtime(runtime("x")).is_some());
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
                .finish(vec![host("a", &[("x", 1.0)], false)]),
        );
        assert!(!cat.complete);
        assert!(r.cached(Some("/w")).is_none());
        let (cat, _) = done(r.collect(Some("/w"), 0).finish(vec![host("a", &[], true)]));
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
        assert!(matches!(
            first.finish(vec![host("a", &[], true)]),
            Finish::Retry
        ));
        let second = r.collect(Some("/w"), 1);
        assert!(r.invalidate(slot));
        let (cat, _) = done(second.finish(vec![host("a", &[("x", 1.0)], true)]));
        assert!(!cat.complete);
        assert_eq!(cat.len(), 1);
        assert!(r.cached(Some("/w")).is_none());
    }

    #[test]
    fn a_released_provider_ends_the_lookup_incomplete_without_a_retry() {
        let r = Registry::new(2).expect("registry");
        let gone = r.register_provider("gone", None).expect("gone");
        r.register_provider("kept", None).expect("kept");
        let collection = r.collect(Some("/w"), 0);
        // Disposal bumps the generation; the lookup is released, not retried.
        assert!(r.unregister_provider(gone));
        let (cat, _) = done(collection.finish(vec![
            ProviderOutcome::Released,
            host("kept", &[("k", 1.0)], true),
        ]));
        assert!(!cat.complete);
        assert_eq!(names(&cat), ["k"]);
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

    fn overrides(value: serde_json::Value) -> Overrides {
        Overrides::from_json(&value).expect("valid rules")
    }

    fn winner_of(catalog: &Catalog, name: &str) -> String {
        let entry = &catalog.entries()[catalog.position(name).expect("listed")];
        format!("{:?}", entry.winner)
    }

    #[test]
    fn overrides_apply_to_candidates_before_the_merge() {
        let r = Registry::new(4).expect("registry");
        let a = r.register_provider("a", None).expect("a");
        let b = r.register_provider("b", None).expect("b");
        assert!(r.register_runtime(runtime("rt")).is_some());
        let listings = || {
            vec![
                host(
                    "a",
                    &[("dup", 100.0), ("deploy-prod", 1.0), ("deploy-dev", 1.0)],
                    true,
                ),
                host("b", &[("dup", 300.0), ("rt", 500.0), ("plain", 1.0)], true),
            ]
        };
        let (before, warnings) = done(r.collect(Some("/w"), 0).finish(listings()));
        assert_eq!(warnings.len(), 2);
        assert_eq!(winner_of(&before, "dup"), format!("Host({a}, 0)"));
        assert!(r.cached(Some("/w")).is_some());

        let generation = r.generation();
        r.set_overrides(overrides(json!([
            // Switched off: the lower-ranked copy of b wins.
            { "name": "dup", "provider": "a", "effect": "off" },
            { "name": "deploy-*", "effect": "off" },
            // `on` after `off`: the last matching rule decides.
            { "name": "deploy-dev", "effect": "on" },
            { "name": "rt", "source": "runtime", "effect": "user-only" },
            // A source filter that matches nothing here.
            { "name": "plain", "source": "project-dsh", "effect": "off" },
        ])));
        assert!(r.generation() > generation);
        assert!(
            r.cached(Some("/w")).is_none(),
            "completed catalogs are invalidated"
        );
        let (after, warnings) = done(r.collect(Some("/w"), 0).finish(listings()));
        assert_eq!(names(&after), ["deploy-dev", "dup", "plain", "rt"]);
        assert_eq!(winner_of(&after, "dup"), format!("Host({b}, 0)"));
        // Switched-off candidates are not shadowed duplicates.
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        let rt = &after.entries()[after.position("rt").expect("rt")];
        assert!(matches!(rt.winner, Winner::Runtime { .. }));
        assert_eq!(
            rt.invocation,
            InvocationPolicy {
                model_invocable: false,
                user_invocable: true
            }
        );
        assert_eq!(
            rt.applied.map(|a| (a.rule, a.effect)),
            Some((3, Effect::UserOnly))
        );
        let dev = &after.entries()[after.position("deploy-dev").expect("dev")];
        assert_eq!(
            dev.applied.map(|a| (a.rule, a.effect)),
            Some((2, Effect::On))
        );
        assert_eq!(dev.invocation, InvocationPolicy::default());
        assert_eq!(
            after.entries()[after.position("plain").expect("plain")].applied,
            None
        );

        // Back to no rules: the same merge as before.
        r.set_overrides(Overrides::default());
        let (again, _) = done(r.collect(Some("/w"), 0).finish(listings()));
        assert_eq!(names(&again), names(&before));
        assert!(again.entries().iter().all(|e| e.applied.is_none()));
    }

    #[test]
    fn a_model_only_override_rewrites_a_native_winner() {
        let r = Registry::new(4).expect("registry");
        let fake = Arc::new(Fake::default());
        r.register_provider("fake", Some(fake)).expect("fake");
        r.set_overrides(overrides(
            json!([{ "provider": "fake", "effect": "model-only" }]),
        ));
        let (cat, _) = r.snapshot_native(&LookupContext::new(None));
        let model_only = InvocationPolicy {
            model_invocable: true,
            user_invocable: false,
        };
        assert_eq!(cat.entries()[0].invocation, model_only);
        let summaries: Vec<_> = cat.native_summaries().collect();
        assert_eq!(summaries[0].invocation, model_only);
    }

    #[test]
    fn explain_lists_every_candidate_in_merge_order() {
        let r = Registry::new(4).expect("registry");
        let a = r.register_provider("a", None).expect("a");
        let fake = Arc::new(Fake::default());
        let native = r.register_provider("fake", Some(fake)).expect("fake");
        let b = r.register_provider("b", None).expect("b");
        let rt = r.register_runtime(runtime("dup")).expect("runtime");
        r.set_overrides(overrides(json!([
            { "name": "dup", "provider": "b", "source": "remote", "effect": "off" },
            { "name": "native", "effect": "user-only" },
        ])));
        let (cat, _) = done(r.collect(Some("/w"), 0).finish(vec![
            host(
                "a",
                &[("dup", 300.0), ("dup", 250.0), ("native", 5.0)],
                true,
            ),
            listed(vec![
                cand("native", "fake", 1.0),
                cand("dup", "fake", 250.0),
            ]),
            host("b", &[("dup", 100.0), ("other", 1.0)], true),
        ]));
        let rows = |name| -> Vec<String> {
            cat.explain(name)
                .iter()
                .map(|e| {
                    let from = match e.from {
                        Contribution::Runtime { id } => format!("runtime {id}"),
                        Contribution::Host { slot, index } => format!("host {slot}/{index}"),
                        Contribution::Native { slot, candidate } => {
                            format!("native {slot} {}", candidate.summary.name)
                        }
                    };
                    let rule = e
                        .applied
                        .map_or(String::new(), |a| format!(" rule {} {}", a.rule, a.effect));
                    format!(
                        "{} {from} {}/{} rank {} model {}{rule}",
                        e.outcome.as_str(),
                        e.provider,
                        e.source,
                        e.rank,
                        e.invocation.model_invocable
                    )
                })
                .collect()
        };
        // b's rank 100 would have won, but it is switched off; the runtime
        // skill wins rank 250 by order over a's and the native provider's.
        assert_eq!(
            rows("dup"),
            [
                format!("won runtime {rt} runtime/runtime rank 250 model true"),
                format!("off host {b}/0 b/remote rank 100 model true rule 0 off"),
                format!("order host {a}/1 a/remote rank 250 model true"),
                format!("order native {native} dup fake/test rank 250 model true"),
                format!("rank host {a}/0 a/remote rank 300 model true"),
            ]
        );
        // A native winner, its invocation rewritten.
        assert_eq!(
            rows("native"),
            [
                format!("won native {native} native fake/test rank 1 model false rule 1 user-only"),
                format!("rank host {a}/2 a/remote rank 5 model false rule 1 user-only"),
            ]
        );
        assert_eq!(
            rows("other"),
            [format!("won host {b}/1 b/remote rank 1 model true")]
        );
        assert!(cat.explain("missing").is_empty());

        // Every candidate switched off: no winner, still explained.
        r.set_overrides(overrides(json!([{ "name": "other", "effect": "off" }])));
        let (cat, _) = done(r.collect(Some("/w"), 0).finish(vec![
            host("a", &[], true),
            listed(vec![]),
            host("b", &[("other", 1.0)], true),
        ]));
        assert!(cat.position("other").is_none());
        let explained = cat.explain("other");
        assert_eq!(explained.len(), 1);
        assert_eq!(explained[0].outcome, Outcome::Off);
    }

    #[derive(Default)]
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
                    candidates: vec![cand("native", "fake", 1.0)],
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
        let fake = Arc::new(Fake::default());
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
        assert_eq!(names(&cat), ["native"]);
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
        let fake = Arc::new(Fake::default());
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
