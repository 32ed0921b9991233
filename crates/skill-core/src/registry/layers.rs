//! Layers: where registrations are filed, and which of them a view merges.
//!
//! Every registration (a provider or a runtime skill) lives in one layer: the
//! global layer, or the layer of a scope (an agent preset, say). The host maps
//! its scope keys to layer ids; the registry keeps, per layer, its providers,
//! its runtime skills and its generation. A read names the layers of its
//! scope's chain, nearest first; its view is those layers plus the global
//! one, which is always the farthest. The merge ranks candidates inside one
//! layer only: a nearer layer wins a name outright
//! ([`super::merge`]).
//!
//! A scoped layer may also carry override rules ([`crate::scoped_rules`]):
//! they apply to every read whose chain holds the layer.
//!
//! A scoped layer is created by the first registration (or rules) filed into
//! it and dropped when its last registration goes and it has no rules left; a
//! dropped layer's id is never used again, so nothing cached for it can be
//! mistaken for a later layer.

use crate::model::RuntimeSkill;
use crate::overrides::Overrides;
use crate::provider::NativeProvider;
use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

/// Id of a registry layer.
pub type LayerId = u64;

/// The global layer: every view merges it, as its farthest layer.
pub const GLOBAL_LAYER: LayerId = 0;

/// Where a registration is filed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target<'a> {
    /// The global layer.
    Global,
    /// A scope's layer: `layer` when that layer is still alive, else a new
    /// layer (whose id is returned in [`Registered::layer`]). `label` names
    /// the scope in error messages (kept from the registration that created
    /// the layer).
    Scope {
        /// The layer the host last got for this scope, if any.
        layer: Option<LayerId>,
        /// How error messages name the scope (`"reviewer"`, `#2`).
        label: &'a str,
    },
}

/// A registration and the layer it was filed into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Registered {
    /// Slot id of a provider, or id of a runtime skill.
    pub id: u64,
    /// Its layer.
    pub layer: LayerId,
}

pub(super) struct Slot {
    pub(super) id: u64,
    pub(super) name: String,
    pub(super) native: Option<Arc<dyn NativeProvider>>,
}

pub(super) struct RuntimeSlot {
    pub(super) id: u64,
    pub(super) skill: Arc<RuntimeSkill>,
}

pub(super) struct Layer {
    pub(super) id: LayerId,
    /// How errors name the scope; `None` for the global layer.
    pub(super) label: Option<String>,
    /// Set from the registry's epoch at every change of this layer.
    pub(super) generation: u64,
    /// Providers by slot id: registration order, ids only growing.
    pub(super) providers: BTreeMap<u64, Slot>,
    /// The names of [`Layer::providers`] (unique per layer).
    pub(super) provider_names: HashSet<String>,
    /// Runtime skills by id: registration order, ids only growing.
    pub(super) runtime: BTreeMap<u64, RuntimeSlot>,
    /// The names of [`Layer::runtime`] (first wins per layer).
    pub(super) runtime_names: HashSet<String>,
    /// The layer's own override rules (none for the global layer, whose
    /// rules are the registry's).
    pub(super) overrides: Arc<Overrides>,
}

impl Layer {
    pub(super) fn new(id: LayerId, label: Option<String>, generation: u64) -> Self {
        Layer {
            id,
            label,
            generation,
            providers: BTreeMap::new(),
            provider_names: HashSet::new(),
            runtime: BTreeMap::new(),
            runtime_names: HashSet::new(),
            overrides: Arc::default(),
        }
    }

    /// A scoped layer without registrations or rules (the global layer never
    /// is).
    pub(super) fn is_droppable(&self) -> bool {
        self.id != GLOBAL_LAYER
            && self.providers.is_empty()
            && self.runtime.is_empty()
            && self.overrides.is_empty()
    }
}

/// One layer of a view, with the generation it had when the view was taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Link {
    pub(super) layer: LayerId,
    pub(super) generation: u64,
}

/// The layers a read merges: the alive layers of its scope's chain, nearest
/// first, then the global layer. A layer's depth is its position here.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct View {
    pub(super) links: Vec<Link>,
    /// Whether the read had a scope; then a layer created meanwhile (possibly
    /// for a key of its chain) makes a collection unstable.
    pub(super) scoped: bool,
    /// Scoped layers created so far, when the view was taken.
    pub(super) created: u64,
}

impl View {
    /// The scoped layers merged, nearest first: what a cached catalog is
    /// keyed by next to the cwd (the global layer is in every view).
    pub(super) fn chain(&self) -> Vec<LayerId> {
        self.links
            .iter()
            .map(|l| l.layer)
            .filter(|&l| l != GLOBAL_LAYER)
            .collect()
    }
}
