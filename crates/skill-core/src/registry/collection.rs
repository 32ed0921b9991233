//! One collection: the providers and runtime skills of a view's layers, as a
//! lookup consults them at one generation per layer, and how their outcomes
//! are merged, retried and cached.

use super::incremental;
use super::key::CacheKey;
use super::layers::{LayerId, View};
use super::merge::{self, build_catalog, merge, Decisions};
use super::types::{
    Catalog, Considered, Listing, PlannedProvider, PlannedRuntime, ProviderOutcome,
};
use super::{lock, Registry};
use crate::scoped_rules::RuleChain;
use std::sync::Arc;

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

/// How a collection's listings were merged.
enum Merged {
    /// The view's previous catalog, patched.
    Patched(incremental::Patched),
    /// In full: the merge, the override decisions and the listings'
    /// identities (for the next patch).
    Full(merge::Merged, Decisions, Option<Vec<Vec<usize>>>),
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
    /// The view's override rules: the global ones, then each scoped
    /// layer's, farthest first.
    pub(super) overrides: RuleChain,
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

    /// Ids of the runtime skills this collection merges (its view's, each
    /// layer's in registration order, the nearest layer first).
    pub fn runtime_ids(&self) -> impl Iterator<Item = u64> + '_ {
        self.runtime.iter().map(|r| r.id)
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
        let mut listings: Vec<Listing> = outcomes.into_iter().map(Listing::from).collect();
        // The view's previous catalog, if a change dropped one that can be
        // patched: then only the names whose candidates changed are merged
        // again.
        let previous = lock(&self.registry.shared)
            .previous
            .peek(&self.key)
            .cloned();
        let patched = previous.as_deref().and_then(|previous| {
            incremental::patch(
                previous,
                &self.runtime,
                &self.providers,
                &mut listings,
                &self.overrides,
            )
        });
        let merged = match patched {
            Some(patched) => Merged::Patched(patched),
            None => {
                let decisions =
                    Decisions::new(&self.runtime, &self.providers, &listings, &self.overrides);
                let merged = merge(&self.runtime, &self.providers, &listings, &decisions);
                let identities = merge::identities(&listings);
                Merged::Full(merged, decisions, identities)
            }
        };

        let mut state = lock(&self.registry.shared);
        // A released provider was disposed, which changed its layer; checked
        // on its own all the same, so a release never caches a catalog.
        let stable = !released && state.is_current(&self.view);
        if !stable && self.attempt == 0 {
            return Finish::Retry;
        }
        complete &= stable;
        let id = state.fresh_id();
        if matches!(merged, Merged::Patched(_)) {
            state.patched += 1;
        }
        drop(state);
        let considered = Considered {
            runtime: self.runtime,
            providers: self.providers,
            listings,
            overrides: self.overrides,
        };
        let chain = self.view.chain();
        let (mut built, warnings) = match merged {
            Merged::Patched(incremental::Patched {
                built,
                memo,
                warnings,
            }) => (
                built.into_catalog(id, self.generation, complete, chain, considered, memo),
                warnings,
            ),
            Merged::Full(merged, decisions, identities) => build_catalog(
                id,
                self.generation,
                complete,
                chain,
                considered,
                merged,
                &decisions,
                identities,
            ),
        };
        built.derived.view = self.key.usage_view();
        let catalog = Arc::new(built);
        if complete {
            let mut state = lock(&self.registry.shared);
            // Another change may have happened since the check above: only a
            // catalog of the current view is cached.
            if state.is_current(&self.view) {
                // Patched or not, the previous catalog is done with.
                state.previous.pop(&self.key);
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
