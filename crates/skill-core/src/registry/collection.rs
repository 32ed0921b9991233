//! One collection: the providers and runtime skills of a view's layers, as a
//! lookup consults them at one generation per layer, and how their outcomes
//! are merged, retried and cached.

use super::catalog::Catalog;
use super::explain::Considered;
use super::key::CacheKey;
use super::layers::{LayerId, View};
use super::merge::{build_catalog, merge, Decisions};
use super::{lock, Registry};
use crate::model::host::HostObservation;
use crate::model::{Candidate, Observation, RuntimeSkill};
use crate::overrides::Overrides;
use crate::provider::NativeProvider;
use std::sync::Arc;

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
    /// it (the lookup stopped waiting). The disposal changed the view, so the
    /// lookup is retried once without the provider, as for any change; a
    /// release during the retry leaves the result incomplete.
    Released,
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
    /// Its layer.
    pub layer: LayerId,
    /// Depth of its layer in the view (0 = nearest).
    pub depth: u32,
}

/// One runtime skill to merge in a collection.
#[derive(Clone)]
pub struct PlannedRuntime {
    /// Runtime registration id.
    pub id: u64,
    /// The skill.
    pub skill: Arc<RuntimeSkill>,
    /// Its layer.
    pub layer: LayerId,
    /// Depth of its layer in the view (0 = nearest).
    pub depth: u32,
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

/// A catalog being collected for one view, at one generation per layer.
pub struct Collection {
    pub(super) registry: Registry,
    pub(super) key: CacheKey,
    pub(super) attempt: u32,
    pub(super) generation: u64,
    pub(super) view: View,
    /// Providers to consult: each layer's in registration order, the nearest
    /// layer first.
    pub providers: Vec<PlannedProvider>,
    pub(super) runtime: Vec<PlannedRuntime>,
    pub(super) overrides: Arc<Overrides>,
}

impl Collection {
    /// The registry's generation when this collection started.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// The layers merged, nearest first (the global layer last).
    pub fn layers(&self) -> Vec<LayerId> {
        self.view.links.iter().map(|l| l.layer).collect()
    }

    /// The registry this collection belongs to.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// Merge the outcomes (one per planned provider, same order): the nearest
    /// layer holding a name wins it; within one layer, rank, then provider
    /// order (runtime first), then the provider's own order, and the later
    /// candidates of that layer become warnings. Candidates an override
    /// switches off take no part. When a layer of the view changed meanwhile
    /// (or a provider was released), the first attempt asks for a retry and
    /// the second returns an incomplete catalog.
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
        // A released provider was disposed, which changed its layer; checked
        // on its own all the same, so a release never caches a catalog.
        let stable = !released && state.is_current(&self.view);
        if !stable && self.attempt == 0 {
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
            self.view.chain(),
            considered,
            &order,
            &decisions,
        ));
        if complete {
            let mut state = lock(&self.registry.shared);
            // Another change may have happened since the check above: only a
            // catalog of the current view is cached.
            if state.is_current(&self.view) {
                if let Some((_, old)) = state.cache.push(self.key, catalog.clone()) {
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
pub(super) enum Listing {
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
    pub(super) fn len(&self) -> usize {
        match self {
            Listing::None => 0,
            Listing::Native(candidates) => candidates.len(),
            Listing::Host(obs) => obs.listing.candidates.len(),
        }
    }
}
