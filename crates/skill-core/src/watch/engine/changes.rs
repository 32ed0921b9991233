//! Where the catalog changed: the paths behind every change noted, for the
//! local provider to read again only those (see `local/live.rs`).
//!
//! Every publication notes its path (an entry of a root, a bundle's
//! `SKILL.md`, a root, what a flat link leads to); a root rescan notes the
//! entries that appeared or went away, or the root as a whole when it
//! appeared, vanished or its links lead elsewhere; a project evicted from the
//! watched set notes its roots (unwatched, they are listed again when next
//! used). Files being written (held until closed) are read again by every
//! discovery until then, as a full discovery would. What cannot be placed (an overflowing event queue, an error event,
//! watching that is or was unhealthy) makes the next [`Inner::take_changes`]
//! answer [`Changes::All`]. So does every backend but Linux inotify: polling
//! compares listings and times, and other platforms report events under the
//! paths the OS resolved, so their paths are not trusted to place a change.

use super::scan::RootState;
use super::{Inner, State};
use crate::local::Changes;
use std::path::{Path, PathBuf};

/// Paths noted at most before the next take answers [`Changes::All`].
const MAX_TOUCHED: usize = 4096;

impl State {
    /// A change at `path`.
    pub(super) fn touch(&mut self, path: &Path) {
        if self.touched_all {
            return;
        }
        if self.touched.len() >= MAX_TOUCHED {
            self.touch_all();
            return;
        }
        tracing::trace!(path = %path.display(), "change noted for discovery");
        self.touched.insert(path.to_path_buf());
    }

    /// A change whose place is not known.
    pub(super) fn touch_all(&mut self) {
        self.touched_all = true;
        self.touched.clear();
    }

    /// What a rescan of the root at `path` found changed since `old`.
    pub(super) fn touch_rescan(&mut self, path: &Path, old: &RootState, new: &RootState) {
        if old.exists != new.exists || old.targets != new.targets || old.error != new.error {
            self.touch(path);
            return;
        }
        let names: Vec<PathBuf> = old
            .entries
            .symmetric_difference(&new.entries)
            .map(|name| path.join(name))
            .collect();
        for name in names {
            self.touch(&name);
        }
    }
}

impl Inner {
    /// Apply every change the watcher can know of now (as
    /// [`catch_up`](Self::catch_up) does, without invalidating: the caller
    /// is the discovery that reads them), then take what changed since the
    /// last call. [`Changes::All`] when the changes cannot be placed.
    pub(in crate::watch) fn take_changes(&self) -> Changes {
        if self.is_closed() || !cfg!(target_os = "linux") || self.config.use_polling {
            return Changes::All;
        }
        let mut state = self.lock();
        if self.is_closed() {
            return Changes::All;
        }
        let (took, rescan) = self.apply_pending(&mut state);
        if !state.compute_healthy() {
            state.touch_all();
        }
        let changes = if state.touched_all {
            Changes::All
        } else {
            // A file still being written is not a completed change, but a
            // discovery reads the disk as it is: read again each time until
            // it is published.
            let mut paths: Vec<PathBuf> = state.touched.drain().collect();
            paths.extend(state.pending.keys().cloned());
            Changes::Paths(paths)
        };
        tracing::trace!(?changes, "changes taken by a discovery");
        state.touched_all = false;
        state.touched.clear();
        if took || rescan {
            self.finish_sync(state);
        }
        changes
    }
}
