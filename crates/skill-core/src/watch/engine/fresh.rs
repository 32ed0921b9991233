//! Read-your-writes: a lookup catches up with the disk before it answers.
//!
//! The event thread holds changes it has already received for a coalescing
//! window (and the kernel may hold events nobody has read yet), so that a
//! burst costs listeners a handful of notifications. A lookup cannot wait for
//! that: [`Inner::catch_up`] takes, on the lookup's thread and under the state
//! lock, whatever the OS backend can hand over without blocking (on Linux,
//! everything the kernel holds for the inotify instance), classifies it as the
//! event thread would, rescans the roots it made dirty (so the watches new
//! entries need are in place before anything is listed), and when a change
//! is noted that no invalidation has covered yet, invalidates (silently: the
//! event thread still publishes the batch to listeners when its window ends).
//!
//! A file written but not closed keeps its hold: it is not a completed change.

use super::Inner;
use crate::watch::Stamp;
use std::time::Instant;

impl Inner {
    /// Apply every change the watcher can know of now; call `invalidate`
    /// (outside the state lock) when one of them was not covered by an
    /// invalidation yet. Returns whether it was called. With nothing pending:
    /// one lock and one non-blocking read.
    pub(in crate::watch) fn catch_up(&self, invalidate: &dyn Fn()) -> bool {
        if self.is_closed() {
            return false;
        }
        let mut state = self.lock();
        if self.is_closed() {
            return false;
        }
        let (took, rescan) = self.apply_pending(&mut state);
        let target = state.seq;
        let stale = target > state.applied;
        if stale {
            state.stats.catch_ups += 1;
            state.stats.last_catch_up = Some(Stamp::now());
        }
        if took || rescan {
            #[cfg(test)]
            {
                state.caught_up_healthy = Some(state.compute_healthy());
            }
            // New deadlines for the event thread, health, warnings.
            self.finish_sync(state);
        } else {
            drop(state);
        }
        if stale {
            invalidate();
            self.covered(target);
        }
        stale
    }

    /// Classify the queued events and rescan what they left dirty, on the
    /// caller's thread (a lookup catching up). Returns whether events were
    /// taken and whether a rescan ran: either way the event thread's
    /// deadlines need a [`finish_sync`](Self::finish_sync).
    pub(super) fn apply_pending(&self, state: &mut super::State) -> (bool, bool) {
        let took = self.take_queued(state);
        #[cfg(test)]
        if let Some(hook) = state.after_drain.take() {
            hook();
        }
        let rescan = state.rescan_needed();
        if rescan {
            if self.rescan_dirty(state) {
                state.changed();
                state.activity(Instant::now());
            }
            let vanished = self.apply(state);
            self.settle_vanished(state, vanished);
        }
        (took, rescan)
    }

    /// Classify the events the backend queued (see `Backend::drain`).
    /// Returns whether there were any.
    pub(super) fn take_queued(&self, state: &mut super::State) -> bool {
        let Some(backend) = state.backend.as_mut() else {
            return false;
        };
        let events = backend.drain();
        if events.is_empty() {
            return false;
        }
        for event in events {
            self.on_event(state, event);
        }
        true
    }

    /// An invalidation covering every change noted up to `seq` returned.
    pub(super) fn covered(&self, seq: u64) {
        let mut state = self.lock();
        state.applied = state.applied.max(seq);
    }
}

#[cfg(test)]
impl super::State {
    /// Every change noted so far is covered by an invalidation.
    pub(in crate::watch) fn all_covered(&self) -> bool {
        self.applied == self.seq
    }

    /// The root at `path` is to be rescanned as a whole (as after an event
    /// that cannot be placed).
    pub(in crate::watch) fn mark_dirty(&mut self, path: &std::path::Path) {
        self.dirty.insert(path.to_path_buf());
    }

    /// `path` is held (written, not closed yet).
    pub(in crate::watch) fn holds(&self, path: &std::path::Path) -> bool {
        self.pending.contains_key(path)
    }
}
