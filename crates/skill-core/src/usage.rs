//! Which skills a registry actually loaded, per view, decaying over time:
//! what the `prefer: 'used'` budget priority puts right after the pins.
//!
//! Each load adds 1 to the skill's weight in its view (the cwd and the
//! scoped layers of the lookup); a weight halves every [`HALF_LIFE`] and is
//! forgotten below [`FORGET_BELOW`]. The order a catalog gives way in must
//! not change because a skill was loaded, or every load would change the
//! catalog the model sees and break its prompt cache: so a view's order is
//! **frozen** the first time it is asked for, and read again only when the
//! view's catalog changed for another reason (its skills or descriptions:
//! [`UsageBook::preferred`] takes a fingerprint of them).
//!
//! Bounded: at most [`MAX_VIEWS`] views (least recently used dropped) and
//! [`MAX_NAMES`] skills per view (the lightest dropped).

use foldhash::HashMap;
use lru::LruCache;
use std::num::NonZeroUsize;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long a load takes to count half as much.
pub const HALF_LIFE: Duration = Duration::from_secs(24 * 60 * 60);
/// A weight below this is forgotten (one load, four half-lives later).
pub const FORGET_BELOW: f64 = 1.0 / 16.0;
/// Most views remembered.
pub const MAX_VIEWS: usize = 128;
/// Most skills remembered per view.
pub const MAX_NAMES: usize = 256;

#[derive(Default)]
struct View {
    /// name → (weight, when it was last updated)
    weights: HashMap<String, (f64, Instant)>,
    /// The order handed out last, and the fingerprint of the catalog it was
    /// handed out for.
    frozen: Option<(u64, Arc<[String]>)>,
}

fn decayed(weight: f64, since: Instant, now: Instant) -> f64 {
    let elapsed = now.saturating_duration_since(since).as_secs_f64();
    weight * 0.5f64.powf(elapsed / HALF_LIFE.as_secs_f64())
}

/// The loads of one registry, per view (see the module docs).
pub struct UsageBook {
    views: Mutex<LruCache<String, View>>,
}

impl Default for UsageBook {
    fn default() -> Self {
        Self {
            views: Mutex::new(LruCache::new(
                NonZeroUsize::MIN.saturating_add(MAX_VIEWS - 1),
            )),
        }
    }
}

impl std::fmt::Debug for UsageBook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("UsageBook")
    }
}

impl UsageBook {
    fn views(&self) -> std::sync::MutexGuard<'_, LruCache<String, View>> {
        self.views.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// `name` was loaded in `view` at `now`. The orders already handed out
    /// stay as they are.
    pub fn record(&self, view: &str, name: &str, now: Instant) {
        let mut views = self.views();
        if !views.contains(view) {
            views.put(view.to_string(), View::default());
        }
        let Some(entry) = views.get_mut(view) else {
            return;
        };
        let weights = &mut entry.weights;
        let (weight, at) = weights.entry(name.to_string()).or_insert((0.0, now));
        *weight = decayed(*weight, *at, now) + 1.0;
        *at = now;
        if weights.len() > MAX_NAMES {
            let lightest = weights
                .iter()
                .map(|(n, &(w, at))| (decayed(w, at, now), n.clone()))
                .min_by(|a, b| a.0.total_cmp(&b.0).then_with(|| b.1.cmp(&a.1)));
            if let Some((_, n)) = lightest {
                weights.remove(&n);
            }
        }
    }

    /// The skills of `view` by weight (heaviest first, then by name), as
    /// frozen for the catalog whose fingerprint is `fingerprint`: the same
    /// order as last time while the fingerprint stays, read afresh (at
    /// `now`) when it changed.
    pub fn preferred(&self, view: &str, fingerprint: u64, now: Instant) -> Arc<[String]> {
        let mut views = self.views();
        if !views.contains(view) {
            // No load yet: the empty order is frozen too, so the first loads
            // wait for the next change like any other.
            views.put(view.to_string(), View::default());
        }
        let Some(entry) = views.get_mut(view) else {
            return Arc::from(Vec::new());
        };
        if let Some((frozen_for, order)) = &entry.frozen {
            if *frozen_for == fingerprint {
                return order.clone();
            }
        }
        entry
            .weights
            .retain(|_, (w, at)| decayed(*w, *at, now) >= FORGET_BELOW);
        let mut ranked: Vec<(f64, &String)> = entry
            .weights
            .iter()
            .map(|(n, &(w, at))| (decayed(w, at, now), n))
            .collect();
        ranked.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
        let order: Arc<[String]> = ranked.into_iter().map(|(_, n)| n.clone()).collect();
        entry.frozen = Some((fingerprint, order.clone()));
        order
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loads_count_per_view_decay_and_freeze_until_the_catalog_changes() {
        let book = UsageBook::default();
        let t0 = Instant::now();
        book.record("a", "deploy", t0);
        book.record("a", "review", t0);
        book.record("a", "review", t0);
        book.record("b", "lint", t0);
        assert_eq!(&*book.preferred("a", 1, t0), ["review", "deploy"]);
        assert_eq!(&*book.preferred("b", 1, t0), ["lint"]);
        // A view asked before any load keeps its empty order until its catalog changes.
        assert!(book.preferred("c", 1, t0).is_empty());
        book.record("c", "lint", t0);
        assert!(book.preferred("c", 1, t0).is_empty());
        assert_eq!(&*book.preferred("c", 2, t0), ["lint"]);
        // Loads after the order was handed out change nothing for the same catalog…
        book.record("a", "deploy", t0);
        book.record("a", "deploy", t0);
        book.record("a", "lint", t0);
        assert_eq!(&*book.preferred("a", 1, t0), ["review", "deploy"]);
        // …and are read when the catalog changed.
        assert_eq!(&*book.preferred("a", 2, t0), ["deploy", "review", "lint"]);
        // Old loads weigh less than new ones, and are forgotten in the end.
        let day = HALF_LIFE;
        book.record("a", "lint", t0 + day * 2);
        book.record("a", "lint", t0 + day * 2);
        assert_eq!(
            &*book.preferred("a", 3, t0 + day * 2),
            ["lint", "deploy", "review"]
        );
        assert_eq!(&*book.preferred("a", 4, t0 + day * 7), ["lint"]);
        assert!(book.preferred("a", 5, t0 + day * 20).is_empty());
    }

    #[test]
    fn bounded() {
        let book = UsageBook::default();
        let t0 = Instant::now();
        for i in 0..MAX_NAMES + 10 {
            book.record("a", &format!("s{i}"), t0 + Duration::from_secs(i as u64));
        }
        assert_eq!(
            book.preferred("a", 1, t0 + Duration::from_secs(1000)).len(),
            MAX_NAMES
        );
        for v in 0..MAX_VIEWS + 5 {
            book.record(&format!("v{v}"), "x", t0);
        }
        assert!(book.preferred("v0", 1, t0).is_empty());
        assert_eq!(
            book.preferred(&format!("v{}", MAX_VIEWS + 4), 1, t0).len(),
            1
        );
    }
}
