//! Coalescing: when a batch of changes is due, storms, and the timers
//! (stability deadlines, retries) that the event thread waits for.

use super::{Inner, State, RETRY_FIRST, RETRY_MAX};
use crate::watch::Stamp;
use crate::watch::{
    COALESCE_MAX, COALESCE_QUIET, STORM_FLUSHES, STORM_MAX, STORM_QUIET, STORM_SPAN,
};
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::time::Instant;

impl Inner {
    /// Timers: stability deadlines, retries, and publishing a due batch.
    pub(super) fn tick(&self) {
        let now = Instant::now();
        let mut state = self.lock();
        if self.is_closed() {
            return;
        }
        let expired: Vec<PathBuf> = state
            .pending
            .iter()
            .filter(|(_, at)| **at <= now)
            .map(|(p, _)| p.clone())
            .collect();
        for path in expired {
            state.pending.remove(&path);
            tracing::debug!(path = %path.display(), "written file stable");
            state.publish(&path, now);
            state.urgent = true;
        }
        let was_healthy = self.healthy.load(Ordering::SeqCst);
        let mut retried = false;
        if state.retry_at.is_some_and(|at| at <= now) {
            state.retry_at = None;
            state.dirty_all = true;
            retried = true;
        }
        let due = retried || state.flush_due(now);
        if !due {
            return;
        }
        state.storm = state.in_storm();
        if state.rescan_needed() && self.rescan_dirty(&mut state) {
            state.changed();
        }
        let vanished = self.apply(&mut state);
        self.settle_vanished(&mut state, vanished);
        let healthy = state.compute_healthy();
        if !healthy {
            state.log_unhealthy();
            // Events may be lost meanwhile: nothing kept can be trusted.
            state.touch_all();
        }
        self.healthy.store(healthy, Ordering::SeqCst);
        if healthy {
            state.backoff = RETRY_FIRST;
            state.retry_at = None;
        } else if state.retry_at.is_none() {
            if retried {
                state.backoff = (state.backoff * 2).min(RETRY_MAX);
            }
            state.retry_at = Some(now + state.backoff);
        }
        // A health transition changes what discovery reports (complete or not).
        let fire = state.change || healthy != was_healthy;
        let covered = state.seq;
        // Lookups caught up with every change of this batch and invalidated
        // for it: what they cached since already shows it.
        let applied = healthy == was_healthy && state.applied >= covered;
        state.change = false;
        state.urgent = false;
        state.batch_start = None;
        state.last_event = None;
        if state.rescan_needed() {
            // `apply` found more to rescan (a directory vanished between the
            // scan and the watch): open a new batch so the next flush waits for
            // its window instead of being due at once, forever.
            state.activity(now);
        }
        let warnings = std::mem::take(&mut state.warnings);
        drop(state);
        for warning in warnings {
            self.warn(warning);
        }
        if fire {
            tracing::debug!("skill catalog change published");
            let mut state = self.lock();
            if state.recent.len() == STORM_FLUSHES {
                state.recent.pop_front();
            }
            state.recent.push_back(now);
            state.stats.publications += 1;
            if applied {
                state.stats.applied_publications += 1;
            }
            state.stats.last_publication = Some(Stamp::now());
            drop(state);
            if applied {
                self.notify();
            } else {
                self.fire();
            }
            self.covered(covered);
            #[cfg(test)]
            {
                let mut state = self.lock();
                state.published_seq = state.published_seq.max(covered);
            }
        }
    }
}

impl State {
    pub(super) fn rescan_needed(&self) -> bool {
        self.dirty_all || self.relink || !self.dirty.is_empty() || !self.entry_dirty.is_empty()
    }

    pub(super) fn flush_due(&self, now: Instant) -> bool {
        match self.flush_at() {
            Some(at) => at <= now,
            None => false,
        }
    }

    pub(super) fn in_storm(&self) -> bool {
        let Some(start) = self.batch_start else {
            return false;
        };
        self.storm_at(start)
    }

    pub(super) fn flush_at(&self) -> Option<Instant> {
        if !(self.change || self.rescan_needed()) {
            return None;
        }
        let (Some(start), Some(last)) = (self.batch_start, self.last_event) else {
            return Some(Instant::now());
        };
        if self.urgent {
            return Some(last);
        }
        let (quiet, max) = if self.storm_at(start) {
            (STORM_QUIET, STORM_MAX)
        } else {
            (COALESCE_QUIET, COALESCE_MAX)
        };
        Some((last + quiet).min(start + max))
    }

    /// Whether a batch starting at `start` belongs to a storm: a storm starts with
    /// STORM_FLUSHES publications within STORM_SPAN and lasts while each batch
    /// starts soon after the previous publication.
    pub(super) fn storm_at(&self, start: Instant) -> bool {
        self.recent.len() == STORM_FLUSHES
            && self.recent.back().is_some_and(|last_flush| {
                start.saturating_duration_since(*last_flush) < STORM_MAX * 2
            })
            && (self.storm
                || self
                    .recent
                    .front()
                    .is_some_and(|first| start.saturating_duration_since(*first) < STORM_SPAN))
    }

    pub(super) fn next_deadline(&self) -> Option<Instant> {
        [
            self.flush_at(),
            self.pending.values().min().copied(),
            self.retry_at,
        ]
        .into_iter()
        .flatten()
        .min()
    }
}
