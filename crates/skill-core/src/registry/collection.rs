//! One collection: the providers and runtime skills a lookup consults at one
//! generation, and how their outcomes are merged, retried and cached.

use super::catalog::Catalog;
use super::explain::Considered;
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
    /// it. The lookup completes without it, as an incomplete observation, and
    /// is not retried (it was released so as not to wait any longer).
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
    pub(super) registry: Registry,
    pub(super) cwd: Option<String>,
    pub(super) attempt: u32,
    pub(super) generation: u64,
    /// Providers to consult, in registration order.
    pub providers: Vec<PlannedProvider>,
    pub(super) runtime: Vec<(u64, Arc<RuntimeSkill>)>,
    pub(super) overrides: Arc<Overrides>,
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
