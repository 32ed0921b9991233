//! The registry's state behind its lock: the layers with their registrations
//! and generations, the catalog cache, and the override rules.

use super::key::CacheKey;
use super::layers::{Layer, LayerId, Link, View, GLOBAL_LAYER};
use super::types::Catalog;
use crate::overrides::Overrides;
use lru::LruCache;
use std::num::NonZeroUsize;
use std::sync::Arc;

pub(super) struct State {
    /// Bumped by every change; a changed layer takes its value as its
    /// generation, so generations never repeat.
    pub(super) epoch: u64,
    /// Last id handed out (slots, runtime skills, layers, catalogs).
    pub(super) next_id: u64,
    pub(super) global: Layer,
    /// Scoped layers, in creation order.
    pub(super) scoped: Vec<Layer>,
    /// Scoped layers created so far.
    pub(super) created: u64,
    pub(super) cache: LruCache<CacheKey, Arc<Catalog>>,
    /// Ids of catalogs dropped from the cache, for the host.
    pub(super) evicted: Vec<u64>,
    pub(super) overrides: Arc<Overrides>,
}

impl State {
    pub(super) fn new(cap: NonZeroUsize) -> Self {
        State {
            epoch: 0,
            next_id: 0,
            global: Layer::new(GLOBAL_LAYER, None, 0),
            scoped: Vec::new(),
            created: 0,
            cache: LruCache::new(cap),
            evicted: Vec::new(),
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
            self.scoped.iter().find(|l| l.id == id)
        }
    }

    pub(super) fn layer_mut(&mut self, id: LayerId) -> Option<&mut Layer> {
        if id == GLOBAL_LAYER {
            Some(&mut self.global)
        } else {
            self.scoped.iter_mut().find(|l| l.id == id)
        }
    }

    pub(super) fn layers(&self) -> impl Iterator<Item = &Layer> + '_ {
        std::iter::once(&self.global).chain(self.scoped.iter())
    }

    /// The layer holding provider `slot`.
    pub(super) fn provider_layer(&self, slot: u64) -> Option<LayerId> {
        self.layers()
            .find(|l| l.providers.iter().any(|p| p.id == slot))
            .map(|l| l.id)
    }

    /// The layer holding runtime skill `id`.
    pub(super) fn runtime_layer(&self, id: u64) -> Option<LayerId> {
        self.layers()
            .find(|l| l.runtime.iter().any(|r| r.id == id))
            .map(|l| l.id)
    }

    /// A new, empty scoped layer.
    pub(super) fn create_layer(&mut self, label: &str) -> LayerId {
        let id = self.fresh_id();
        self.created += 1;
        let generation = self.epoch;
        self.scoped
            .push(Layer::new(id, Some(label.to_string()), generation));
        id
    }

    /// Drop `layer` when it is a scoped layer left without registrations.
    pub(super) fn drop_if_empty(&mut self, layer: LayerId) {
        self.scoped.retain(|l| l.id != layer || !l.is_droppable());
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
            }
        }
    }

    /// Every layer changed (the override rules did): every cached catalog is
    /// dropped.
    pub(super) fn touch_all(&mut self) {
        self.epoch += 1;
        let epoch = self.epoch;
        self.global.generation = epoch;
        for l in &mut self.scoped {
            l.generation = epoch;
        }
        self.evict_all();
    }

    fn evict_all(&mut self) {
        let ids: Vec<u64> = self.cache.iter().map(|(_, c)| c.id).collect();
        self.evicted.extend(ids);
        self.cache.clear();
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
