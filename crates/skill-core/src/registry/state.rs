//! The registry's state behind its lock: the layers with their registrations
//! and generations, the catalog cache, and the override rules.
//!
//! Everything a read or a registration touches is found by key, never by a
//! walk over every layer or registration: layers by id, each registration's
//! layer by its id, a layer's names in a set. So a scoped read costs the
//! layers of its own chain, however many other scopes hold registrations,
//! and a registration or a disposal costs its own layer.

use super::key::CacheKey;
use super::layers::{Layer, LayerId, Link, RuntimeSlot, Slot, View, GLOBAL_LAYER};
use super::types::Catalog;
use crate::overrides::Overrides;
use crate::provider::NativeProvider;
use lru::LruCache;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::num::NonZeroUsize;
use std::sync::Arc;

/// What a registration id names, and in which layer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Owner {
    Provider(LayerId),
    Runtime(LayerId),
}

/// The identity of a native provider object (its address, which stays while
/// the registry holds it).
fn native_key(native: &Arc<dyn NativeProvider>) -> usize {
    Arc::as_ptr(native).cast::<()>() as usize
}

pub(super) struct State {
    /// Bumped by every change; a changed layer takes its value as its
    /// generation, so generations never repeat.
    pub(super) epoch: u64,
    /// Last id handed out (slots, runtime skills, layers, catalogs).
    pub(super) next_id: u64,
    pub(super) global: Layer,
    /// Scoped layers by id (ids only grow: creation order).
    scoped: BTreeMap<LayerId, Layer>,
    /// Every live registration (provider slot or runtime skill) → its layer.
    owners: HashMap<u64, Owner>,
    /// The native provider objects registered (see [`native_key`]).
    natives: HashSet<usize>,
    /// Scoped layers created so far.
    pub(super) created: u64,
    pub(super) cache: LruCache<CacheKey, Arc<Catalog>>,
    /// The last catalog of each view dropped from the cache by a change,
    /// kept (for the [`PREVIOUS_VIEWS`] views changed last, at most as many as
    /// the cache holds) so the view's next collection can
    /// patch it instead of merging again (`incremental.rs`). Only catalogs
    /// that can be patched are kept, and none past a disposal.
    pub(super) previous: LruCache<CacheKey, Arc<Catalog>>,
    /// Ids of catalogs dropped from the cache, for the host.
    pub(super) evicted: Vec<u64>,
    /// How many catalogs were built by patching a previous one.
    pub(super) patched: u64,
    pub(super) overrides: Arc<Overrides>,
}

/// How many views keep their previous catalog for a patch (a change usually
/// concerns the few views in use; each kept catalog holds its entries).
const PREVIOUS_VIEWS: NonZeroUsize = match NonZeroUsize::new(8) {
    Some(n) => n,
    None => NonZeroUsize::MIN,
};

impl State {
    pub(super) fn new(cap: NonZeroUsize) -> Self {
        State {
            epoch: 0,
            next_id: 0,
            global: Layer::new(GLOBAL_LAYER, None, 0),
            scoped: BTreeMap::new(),
            owners: HashMap::new(),
            natives: HashSet::new(),
            created: 0,
            cache: LruCache::new(cap),
            previous: LruCache::new(cap.min(PREVIOUS_VIEWS)),
            evicted: Vec::new(),
            patched: 0,
            overrides: Arc::default(),
        }
    }

    pub(super) fn fresh_id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    pub(super) fn layer(&self, id: LayerId) -> Option<&Layer> {
        if id == GLOBAL_LAYER {
            Some(&self.global)
        } else {
            self.scoped.get(&id)
        }
    }

    pub(super) fn layer_mut(&mut self, id: LayerId) -> Option<&mut Layer> {
        if id == GLOBAL_LAYER {
            Some(&mut self.global)
        } else {
            self.scoped.get_mut(&id)
        }
    }

    pub(super) fn layers(&self) -> impl Iterator<Item = &Layer> + '_ {
        std::iter::once(&self.global).chain(self.scoped.values())
    }

    /// The layer holding provider `slot`.
    pub(super) fn provider_layer(&self, slot: u64) -> Option<LayerId> {
        match self.owners.get(&slot) {
            Some(Owner::Provider(layer)) => Some(*layer),
            _ => None,
        }
    }

    /// The layer holding runtime skill `id`.
    pub(super) fn runtime_layer(&self, id: u64) -> Option<LayerId> {
        match self.owners.get(&id) {
            Some(Owner::Runtime(layer)) => Some(*layer),
            _ => None,
        }
    }

    /// Whether the native provider object `native` is registered (in any layer).
    pub(super) fn holds_native(&self, native: &Arc<dyn NativeProvider>) -> bool {
        self.natives.contains(&native_key(native))
    }

    /// Whether layer `layer` has a provider named `name`.
    pub(super) fn has_provider_named(&self, layer: LayerId, name: &str) -> bool {
        self.layer(layer)
            .is_some_and(|l| l.provider_names.contains(name))
    }

    /// Whether layer `layer` has a runtime skill named `name`.
    pub(super) fn has_runtime_named(&self, layer: LayerId, name: &str) -> bool {
        self.layer(layer)
            .is_some_and(|l| l.runtime_names.contains(name))
    }

    /// File provider `slot` into the alive layer `layer` (its name checked
    /// unique there by the caller). Returns `false` when `layer` is gone.
    pub(super) fn add_provider(&mut self, layer: LayerId, slot: Slot) -> bool {
        let id = slot.id;
        let native = slot.native.as_ref().map(native_key);
        let Some(l) = self.layer_mut(layer) else {
            return false;
        };
        l.provider_names.insert(slot.name.clone());
        l.providers.insert(id, slot);
        self.owners.insert(id, Owner::Provider(layer));
        if let Some(native) = native {
            self.natives.insert(native);
        }
        true
    }

    /// Take provider `slot` out of its layer (the layer is not touched nor
    /// dropped here): the layer and the slot, while it was registered.
    pub(super) fn remove_provider(&mut self, slot: u64) -> Option<(LayerId, Slot)> {
        let layer = self.provider_layer(slot)?;
        self.owners.remove(&slot);
        let removed = self.layer_mut(layer).and_then(|l| {
            let removed = l.providers.remove(&slot)?;
            l.provider_names.remove(&removed.name);
            Some(removed)
        })?;
        if let Some(native) = &removed.native {
            self.natives.remove(&native_key(native));
        }
        Some((layer, removed))
    }

    /// File runtime skill `slot` into the alive layer `layer` (its name
    /// checked free there by the caller). Returns `false` when `layer` is gone.
    pub(super) fn add_runtime(&mut self, layer: LayerId, slot: RuntimeSlot) -> bool {
        let id = slot.id;
        let Some(l) = self.layer_mut(layer) else {
            return false;
        };
        l.runtime_names.insert(slot.skill.name.clone());
        l.runtime.insert(id, slot);
        self.owners.insert(id, Owner::Runtime(layer));
        true
    }

    /// Take runtime skill `id` out of its layer (the layer is not touched
    /// nor dropped here): its layer, while it was registered.
    pub(super) fn remove_runtime(&mut self, id: u64) -> Option<LayerId> {
        let layer = self.runtime_layer(id)?;
        self.owners.remove(&id);
        if let Some(l) = self.layer_mut(layer) {
            if let Some(removed) = l.runtime.remove(&id) {
                l.runtime_names.remove(&removed.skill.name);
            }
        }
        Some(layer)
    }

    /// A new, empty scoped layer.
    pub(super) fn create_layer(&mut self, label: &str) -> LayerId {
        let id = self.fresh_id();
        self.created += 1;
        let generation = self.epoch;
        self.scoped
            .insert(id, Layer::new(id, Some(label.to_string()), generation));
        id
    }

    /// Drop `layer` when it is a scoped layer left without registrations.
    pub(super) fn drop_if_empty(&mut self, layer: LayerId) {
        if self.scoped.get(&layer).is_some_and(Layer::is_droppable) {
            self.scoped.remove(&layer);
        }
    }

    /// `layer` changed: it takes a new generation, and every cached catalog
    /// that merged it is dropped (all of them for the global layer).
    pub(super) fn touch(&mut self, layer: LayerId) {
        self.epoch += 1;
        let epoch = self.epoch;
        if let Some(l) = self.layer_mut(layer) {
            l.generation = epoch;
        }
        if layer == GLOBAL_LAYER {
            self.evict_all();
            return;
        }
        let stale: Vec<CacheKey> = self
            .cache
            .iter()
            .filter(|(key, _)| key.chain.contains(&layer))
            .map(|(key, _)| key.clone())
            .collect();
        for key in stale {
            if let Some(catalog) = self.cache.pop(&key) {
                self.evicted.push(catalog.id);
                self.keep_previous(key, catalog);
            }
        }
    }

    /// Keep `catalog`, just dropped from the cache, as its view's previous
    /// catalog when it can be patched.
    fn keep_previous(&mut self, key: CacheKey, catalog: Arc<Catalog>) {
        if catalog.memo.is_some() {
            self.previous.push(key, catalog);
        }
    }

    /// Forget every previous catalog: a disposed registration's candidates
    /// go with its disposal, not with a later eviction.
    pub(super) fn forget_previous(&mut self) {
        self.previous.clear();
    }

    /// Every layer changed (the override rules did): every cached catalog is
    /// dropped.
    pub(super) fn touch_all(&mut self) {
        self.epoch += 1;
        let epoch = self.epoch;
        self.global.generation = epoch;
        for l in self.scoped.values_mut() {
            l.generation = epoch;
        }
        self.evict_all();
    }

    fn evict_all(&mut self) {
        while let Some((key, catalog)) = self.cache.pop_lru() {
            self.evicted.push(catalog.id);
            self.keep_previous(key, catalog);
        }
    }

    /// The view of a read: the alive layers of `scope` (layer ids nearest
    /// first; repeats, the global layer and dropped layers are skipped), then
    /// the global layer. `None`: no scope, the global layer alone.
    pub(super) fn view(&self, scope: Option<&[LayerId]>) -> View {
        let mut links = Vec::with_capacity(scope.map_or(0, <[_]>::len) + 1);
        for &id in scope.unwrap_or_default() {
            if id == GLOBAL_LAYER || links.iter().any(|l: &Link| l.layer == id) {
                continue;
            }
            if let Some(layer) = self.layer(id) {
                links.push(Link {
                    layer: id,
                    generation: layer.generation,
                });
            }
        }
        links.push(Link {
            layer: GLOBAL_LAYER,
            generation: self.global.generation,
        });
        View {
            links,
            scoped: scope.is_some(),
            created: self.created,
        }
    }

    /// Whether `view` is still what a read of the same scope would see: each
    /// of its layers alive at the same generation and, for a scoped read, no
    /// scoped layer created since.
    pub(super) fn is_current(&self, view: &View) -> bool {
        view.links.iter().all(|link| {
            self.layer(link.layer)
                .is_some_and(|l| l.generation == link.generation)
        }) && (!view.scoped || view.created == self.created)
    }
}
