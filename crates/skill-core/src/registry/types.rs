//! The types the registry's rooms share: a merged [`Catalog`] and its
//! entries, what a collection plans and what providers returned, and what the
//! merge considered. A leaf: it imports no other room of the registry, so
//! `catalog`, `collection`, `explain` and `merge` depend on it and not on
//! each other in a circle.

use super::layers::LayerId;
use crate::model::host::{HostObservation, Span};
use crate::model::{Candidate, InvocationPolicy, Observation, RuntimeSkill};
use crate::provider::NativeProvider;
use crate::scoped_rules::{Decided, RuleChain};
use std::sync::{Arc, OnceLock};

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
        /// The winning candidate (shared with the provider's listing).
        candidate: Arc<Candidate>,
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

/// Where a winner's description is: in its candidate (native winners,
/// [`Winner::Native`]), or held by the host (runtime and JS-provider winners,
/// whose objects stay in JS) until it supplies it
/// ([`Catalog::supply_descriptions`]).
#[derive(Clone, Copy, Debug)]
pub(super) enum Description {
    Native,
    /// Position among the host-held descriptions.
    Host(u32),
}

/// One winning skill of a [`Catalog`].
#[derive(Clone, Debug)]
pub struct Entry {
    pub(super) name: Span,
    pub(super) description: Description,
    /// Its invocation controls (as an override rewrote them, if one did).
    pub invocation: InvocationPolicy,
    /// The winning candidate's rank (lower wins; runtime skills have
    /// [`RUNTIME_RANK`](crate::model::RUNTIME_RANK)).
    pub rank: f64,
    /// Depth of the winning candidate's layer in the catalog's view (0 =
    /// nearest; the global layer is the deepest, and 0 without a scope). The
    /// layer itself: [`Catalog::layer_of`].
    pub depth: u32,
    /// Where it came from.
    pub winner: Winner,
    /// The override rule that decided about it, if one matched.
    pub applied: Option<Decided>,
}

/// Descriptions supplied by the host, in catalog order.
#[derive(Debug, Default)]
pub(super) struct Supplied {
    pub(super) text: String,
    pub(super) spans: Vec<Span>,
}

/// The host supplied descriptions that do not fit the catalog.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("supplied descriptions do not fit the catalog: {0}")]
pub struct SupplyError(pub(super) &'static str);

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
    /// The scoped layers merged, nearest first (empty for the global layer
    /// alone, which every catalog merges as its farthest layer).
    pub(super) chain: Vec<LayerId>,
    pub(super) text: String,
    pub(super) entries: Vec<Entry>,
    pub(super) host_held: u32,
    pub(super) supplied: OnceLock<Supplied>,
    /// Descriptions supplied so far in parts ([`Catalog::supply_part`]).
    pub(super) supplying: std::sync::Mutex<Supplied>,
    pub(super) considered: Considered,
    /// What is worked out from the catalog on demand and kept with it.
    pub(super) derived: Derived,
    /// What the next collection of the same view needs to patch this
    /// catalog instead of merging again (`None` when it cannot).
    pub(super) memo: Option<Memo>,
}

/// How a catalog's merge came out, kept so that the next collection of the
/// same view can redo only the names whose candidates changed
/// (`incremental.rs`). Kept for catalogs whose every listing is native.
#[derive(Debug, Default)]
pub(super) struct Memo {
    /// Per listing, the identity (address) of each candidate, in listing
    /// order: a provider that keeps its listing hands out the same
    /// candidates, so equal addresses mean unchanged candidates.
    pub(super) identities: Vec<Vec<usize>>,
    /// Where each entry's winner came from (one per entry, same order).
    pub(super) origins: Vec<Origin>,
    /// Every other candidate that took part in the merge, with the entry
    /// whose name it contended for; sorted by entry, in merge order.
    pub(super) losers: Vec<(u32, Origin)>,
    /// The duplicate warnings, with their entry; in merge order.
    pub(super) warnings: Vec<(u32, String)>,
}

/// What a [`Catalog`] works out on demand and keeps (so it is never stale
/// and goes with the catalog): its search index, the fingerprint of its
/// model-facing entries, and the key of its view in the registry's
/// [`UsageBook`](crate::usage::UsageBook).
#[derive(Debug, Default)]
pub(super) struct Derived {
    pub(super) index: OnceLock<crate::search::Index>,
    /// Held while the index is built (one build at a time).
    pub(super) building: std::sync::Mutex<()>,
    /// The vector-store keys of the indexed skills (see
    /// [`Catalog::vector_keys`]).
    pub(super) vector_keys: OnceLock<Vec<crate::search::vectors::Key>>,
    pub(super) fingerprint: OnceLock<u64>,
    /// The normalised cwd and scoped layers of the lookup that collected it.
    pub(super) view: String,
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

/// One provider's candidates, as the merge sees them.
pub(super) enum Listing {
    /// `list()` failed, or the registration was released.
    None,
    /// A native provider's candidates; a winner moves into its catalog entry
    /// (`None` here from then on).
    Native(Vec<Option<Arc<Candidate>>>),
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

/// What a catalog's merge considered besides the winners it kept: the
/// runtime skills, the providers, their listings and the override rules.
pub(super) struct Considered {
    pub(super) runtime: Vec<PlannedRuntime>,
    pub(super) providers: Vec<PlannedProvider>,
    /// One per planned provider, same order.
    pub(super) listings: Vec<Listing>,
    pub(super) overrides: RuleChain,
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

/// Where a contender comes from: the runtime list, or `(provider position,
/// position in its observation)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Origin {
    Runtime(u32),
    Provider(u32, u32),
}
