//! Bringing the OS watch set in line with the wanted roots: scans before
//! watches, the watch diff, vanished directories, the OS watcher's creation.

use super::scan::{listed_dir, root_links, scan_root, RootState};
use super::{is_missing_error, is_unnameable_error, Inner, Roles, State};
use crate::local::roots::unnameable;
use crate::watch::backend;
use crate::watch::RootKind;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::MutexGuard;
use std::time::Instant;

impl Inner {
    /// A directory deleted since its root's last scan (its event not handled
    /// yet) cannot be watched, and [`Self::apply`] marked the roots that wanted
    /// it dirty: rescan them now and apply again, so the watch set matches the
    /// disk before health is judged, instead of reporting watching unhealthy
    /// (and lookups incomplete) until the next batch. Bounded: a directory that
    /// keeps vanishing is left to the retry timer.
    ///
    /// A directory may also only seem to have vanished: a link its root's
    /// path goes through was repointed after the events were taken (a lookup
    /// catching up while a shell runs `ln -sfn`), so the rescan lists the new
    /// target while the root is still watched through the old one, where the
    /// new entries are not. The links are checked first (see
    /// [`Self::drop_relinked`]), as when the link's own event is handled.
    pub(super) fn settle_vanished(&self, state: &mut State, mut vanished: bool) {
        for _ in 0..3 {
            if !vanished {
                return;
            }
            state.relink = true;
            if self.rescan_dirty(state) {
                state.changed();
                state.activity(Instant::now());
            }
            vanished = self.apply(state);
        }
    }

    /// After a synchronous change of the wanted set: record health, emit warnings,
    /// make the thread pick up new deadlines.
    pub(super) fn finish_sync(&self, mut state: MutexGuard<'_, State>) {
        let healthy = state.compute_healthy();
        if !healthy {
            state.log_unhealthy();
            // Events may be lost meanwhile: nothing kept can be trusted.
            state.touch_all();
        }
        self.healthy.store(healthy, Ordering::SeqCst);
        if !healthy && state.retry_at.is_none() {
            state.retry_at = Some(Instant::now() + state.backoff);
        }
        let warnings = std::mem::take(&mut state.warnings);
        drop(state);
        for warning in warnings {
            self.warn(warning);
        }
        self.kick();
    }

    /// Recompute the wanted roots from the shared roots and the watched projects,
    /// scan new ones, forget old ones, and apply the watch diff. Returns what
    /// [`Self::apply`] returns.
    pub(super) fn sync_roots(&self, state: &mut State) -> bool {
        let mut wanted: HashMap<PathBuf, RootKind> = HashMap::new();
        let specs = state
            .shared
            .iter()
            .chain(state.projects.iter().flat_map(|(_, roots)| roots.iter()));
        for spec in specs {
            wanted
                .entry(spec.path.clone())
                .and_modify(|kind| {
                    if spec.kind == RootKind::Plain {
                        *kind = RootKind::Plain;
                    }
                })
                .or_insert(spec.kind);
        }
        state.roots.retain(|path, _| wanted.contains_key(path));
        state.resync = true;
        for (path, kind) in wanted {
            let rescan = state.roots.get(&path).is_none_or(|root| root.kind != kind);
            if rescan {
                let scanned = self.scan_watched(state, &path, kind);
                state.roots.insert(path, scanned);
            }
        }
        self.apply(state)
    }

    /// Scan a root once the directory that scan lists is watched (the root
    /// itself, or the nearest existing ancestor of a missing root): a change
    /// made there after the listing (a bundle created, the next missing segment
    /// created) is then reported by that watch. Watching only after the scan
    /// would lose a change made in between.
    pub(super) fn scan_watched(&self, state: &mut State, path: &Path, kind: RootKind) -> RootState {
        let mut attempts = 0;
        loop {
            let listed = listed_dir(path);
            // The directories of the links its path goes through too: a
            // link changed after the scan resolved it is then reported.
            let (links, _) = root_links(path);
            for (dir, _) in &links {
                self.prewatch(state, dir);
            }
            if let Some(dir) = &listed {
                self.prewatch(state, dir);
            }
            let scanned = scan_root(path, kind, self.config.follow_symlinks);
            #[cfg(test)]
            if let Some(hook) = state.after_scan.take() {
                hook();
            }
            let now = if scanned.exists {
                Some(path)
            } else {
                scanned.ancestor.as_ref().map(|(dir, _)| dir.as_path())
            };
            attempts += 1;
            // The layout moved between the two (the root appeared, vanished,
            // its nearest ancestor or its links changed): watch the new place
            // and scan again.
            let same = now == listed.as_deref() && scanned.links == links;
            if same || scanned.error.is_some() || attempts == 4 {
                return scanned;
            }
        }
    }

    /// Watch `dir` now (its roles are set by the next [`Self::apply`]).
    /// Failures are left to `apply`, which reports and retries them.
    pub(super) fn prewatch(&self, state: &mut State, dir: &Path) {
        // A directory watched only for its own move reports nothing of what
        // happens in it: watched whole now, like one not watched at all.
        let whole = state
            .watched
            .get(dir)
            .is_some_and(|roles| !roles.moves_only());
        if whole || state.failed.contains_key(dir) {
            return;
        }
        if state.backend.is_none() {
            self.create_backend(state);
        }
        // The directories above first, for their own move: one moved after
        // this is reported, and one moved before leaves `dir` watched where
        // its path leads now.
        for above in dir.ancestors().skip(1) {
            if above.parent().is_none() || state.watched.contains_key(above) {
                break;
            }
            if let Some(Ok(())) = state.try_watch_moves(above, self.config.follow_symlinks) {
                let roles = Roles {
                    above: true,
                    ..Roles::default()
                };
                state.watched.insert(above.to_path_buf(), roles);
            }
        }
        let path = dir.to_path_buf();
        if let Some(Ok(())) = state
            .try_watch_all(&[(path.clone(), ())], self.config.follow_symlinks)
            .and_then(|mut results| results.pop())
        {
            state.watched.insert(path, Roles::default());
        }
    }

    /// A link a root's path goes through changed, or a directory above one
    /// moved: drop every watch set through a path that leads elsewhere now
    /// (its real path differs from the one it had when it was watched),
    /// with the watches below it. Each is watched again where its path
    /// leads, as after a move (its roots are rescanned).
    fn drop_relinked(&self, state: &mut State) {
        let stale: Vec<PathBuf> = state
            .real
            .iter()
            .filter(|(path, was)| {
                let now = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
                now != **was
            })
            .map(|(path, _)| path.clone())
            .collect();
        if stale.is_empty() {
            return;
        }
        tracing::debug!(?stale, "watched through a link that leads elsewhere now");
        let now = Instant::now();
        for dir in stale {
            Self::watch_gone(state, &dir, now);
        }
        state.resync = true;
    }

    /// Rescan the dirty roots. Returns whether a root appeared, vanished, or its
    /// entries differ from the last scan.
    pub(super) fn rescan_dirty(&self, state: &mut State) -> bool {
        if std::mem::take(&mut state.relink) {
            self.drop_relinked(state);
        }
        let paths: Vec<PathBuf> = if state.dirty_all {
            state.roots.keys().cloned().collect()
        } else {
            state
                .dirty
                .iter()
                .filter(|p| state.roots.contains_key(*p))
                .cloned()
                .collect()
        };
        state.dirty.clear();
        let entries = std::mem::take(&mut state.entry_dirty);
        let all = std::mem::replace(&mut state.dirty_all, false);
        let mut changed = false;
        let mut paths = paths;
        if !all {
            // Entries created, removed or renamed in a root: only they are
            // looked at again, unless the root needs a whole rescan.
            for (root, names) in entries {
                if paths.contains(&root) || !state.roots.contains_key(&root) {
                    continue;
                }
                match self.rescan_entries(state, &root, names) {
                    Some(found) => changed |= found,
                    None => paths.push(root),
                }
            }
        }
        if !paths.is_empty() {
            state.resync = true;
        }
        for path in paths {
            let Some(kind) = state.roots.get(&path).map(|old| old.kind) else {
                continue;
            };
            let scanned = self.scan_watched(state, &path, kind);
            let Some(old) = state.roots.get(&path) else {
                continue;
            };
            if scanned.exists != old.exists
                || scanned.entries != old.entries
                || scanned.targets != old.targets
            {
                changed = true;
            }
            if let Some(old) = state.roots.remove(&path) {
                state.touch_rescan(&path, &old, &scanned);
            }
            state.roots.insert(path, scanned);
        }
        changed
    }

    /// Look again at the entries `names` of the root at `root` (created,
    /// removed or renamed there), as [`scan_root`] would see them, noting
    /// bundle directories that came or went for [`Self::apply`]. Returns
    /// whether the root's entries changed, or `None` when the root needs a
    /// whole rescan (it is missing or was unreadable, an entry cannot be
    /// inspected, or a flat link is involved: its targets are followed).
    fn rescan_entries(
        &self,
        state: &mut State,
        root: &Path,
        names: std::collections::HashSet<std::ffi::OsString>,
    ) -> Option<bool> {
        let follow = self.config.follow_symlinks;
        let r = state.roots.get(root)?;
        if !r.exists || r.error.is_some() || !r.targets.is_empty() {
            return None;
        }
        let kind = r.kind;
        let mut changed = false;
        for name in names {
            if kind == RootKind::UserDsh && name == super::scan::SYSTEM_DIR {
                continue;
            }
            let path = root.join(&name);
            let (entry, bundle) = match std::fs::symlink_metadata(&path) {
                Err(e) if super::scan::is_missing(&e) => (false, false),
                Err(_) => return None,
                Ok(m) if m.is_dir() => (true, true),
                Ok(m) if m.file_type().is_symlink() => {
                    if !follow {
                        (true, false)
                    } else if std::fs::metadata(&path).is_ok_and(|m| m.is_dir()) {
                        (true, true)
                    } else if super::scan::is_md(&name) {
                        return None;
                    } else {
                        (true, false)
                    }
                }
                Ok(_) => (super::scan::is_md(&name), false),
            };
            let r = state.roots.get_mut(root)?;
            let was_entry = r.entries.contains(&name);
            let had = r.bundles.contains(&path);
            if entry != was_entry || bundle != had {
                changed = true;
            }
            if entry {
                r.entries.insert(name);
            } else {
                r.entries.remove(&name);
            }
            match (bundle, had) {
                (true, false) => {
                    r.bundles.insert(path.clone());
                    state.bundles_added.push(path.clone());
                }
                (false, true) => {
                    r.bundles.remove(&path);
                    state.bundles_removed.push(path.clone());
                }
                // Still a bundle, but its watch went with the directory
                // that stood here before.
                (true, true) if !state.watched.contains_key(&path) => {
                    state.bundles_added.push(path.clone());
                }
                _ => {}
            }
            if entry != was_entry {
                state.touch(&path);
            }
        }
        Some(changed)
    }

    /// Bring the OS watches in line with what the roots' scans want. Returns
    /// whether a wanted directory had vanished since its root's scan (that root
    /// is marked dirty).
    ///
    /// Failures are of two kinds. A directory wanted only for what it holds
    /// (a bundle dir, a directory of link targets) whose path cannot be named
    /// to the system (longer than it allows) can never be watched under that
    /// path: it is left unwatched for good, with one warning when the system
    /// refused it (none when its path is too long on its face: discovery
    /// reports the entry it belongs to), and watching stays healthy; a rename
    /// of it is still seen by its root's watch. Every other failure (the watch
    /// limit, permissions, a root or followed ancestor that cannot be
    /// watched) may pass: it is warned about once, retried with backoff, and
    /// keeps watching unhealthy (lookups incomplete) until the watch starts.
    pub(super) fn apply(&self, state: &mut State) -> bool {
        if !state.resync && state.failed.is_empty() && state.backend.is_some() {
            return self.apply_bundles(state);
        }
        state.resync = false;
        state.bundles_added.clear();
        state.bundles_removed.clear();
        let size = state
            .roots
            .values()
            .map(|root| 1 + root.bundles.len() + root.targets.len())
            .sum();
        let mut wanted: HashMap<PathBuf, Roles> = HashMap::with_capacity(size);
        for (path, root) in &state.roots {
            if root.exists {
                wanted
                    .entry(path.clone())
                    .or_default()
                    .merge_root(root.kind);
                for bundle in &root.bundles {
                    wanted.entry(bundle.clone()).or_default().bundle = true;
                }
                for (dir, name) in &root.targets {
                    let roles = wanted.entry(dir.clone()).or_default();
                    if !roles.targets.contains(name) {
                        roles.targets.push(name.clone());
                    }
                }
            } else if let Some((ancestor, next)) = &root.ancestor {
                let roles = wanted.entry(ancestor.clone()).or_default();
                if !roles.next.contains(next) {
                    roles.next.push(next.clone());
                }
            }
            for (dir, name) in &root.links {
                let roles = wanted.entry(dir.clone()).or_default();
                if !roles.links.contains(name) {
                    roles.links.push(name.clone());
                }
            }
        }

        // Above every root, followed ancestor and directory of a root's
        // links (and above where a root's links lead), each directory up to
        // the filesystem's root (which cannot move) is watched for its own
        // move.
        let mut tops: Vec<PathBuf> = wanted
            .iter()
            .filter(|(_, roles)| !roles.entry_only())
            .map(|(path, _)| path.clone())
            .collect();
        tops.extend(state.roots.values().filter_map(|root| root.real.clone()));
        for top in tops {
            for dir in top.ancestors().skip(1) {
                if dir.parent().is_none() {
                    break;
                }
                let roles = wanted.entry(dir.to_path_buf()).or_default();
                if roles.above {
                    break;
                }
                roles.above = true;
            }
        }

        let stale: Vec<PathBuf> = state
            .watched
            .keys()
            .filter(|p| !wanted.contains_key(*p))
            .cloned()
            .collect();
        for path in stale {
            state.watched.remove(&path);
            state.forget_paths(&path);
            if let Some(backend) = state.backend.as_mut() {
                // Already gone when the OS dropped it (deleted directory).
                let _ = backend.unwatch(&path);
            }
            tracing::debug!(path = %path.display(), "unwatched");
        }
        state.failed.retain(|p, _| wanted.contains_key(p));
        state.unwatchable.retain(|p| wanted.contains_key(p));

        if state.backend.is_none() && !wanted.is_empty() {
            self.create_backend(state);
        }
        let mut new = Vec::new();
        for (path, roles) in wanted {
            match state.watched.get_mut(&path) {
                // Watched for its own move until now: watched whole from now
                // on; or the other way round (a missing root's ancestor, once
                // the root is there): the whole watch goes, so that what
                // happens in `/home/me` is not reported any more.
                Some(have) if have.moves_only() != roles.moves_only() => {
                    new.push((path, roles));
                }
                Some(have) => *have = roles,
                None if state.unwatchable.contains(&path) => {}
                None if roles.entry_only() && unnameable(&path) => {
                    tracing::debug!(path = %path.display(), "path cannot be named: not watched");
                    state.unwatchable.insert(path);
                }
                None => new.push((path, roles)),
            }
        }
        self.watch_new(state, new)
    }

    /// [`Self::apply`] when only bundle directories came or went since the
    /// last one (entry-level rescans, see `rescan_entries`): watch the new
    /// ones, unwatch the old ones, without going over every root.
    fn apply_bundles(&self, state: &mut State) -> bool {
        let added = std::mem::take(&mut state.bundles_added);
        let removed = std::mem::take(&mut state.bundles_removed);
        for path in removed {
            if added.contains(&path) {
                continue;
            }
            let Some(roles) = state.watched.get_mut(&path) else {
                state.unwatchable.remove(&path);
                continue;
            };
            roles.bundle = false;
            // Unwatched when it is wanted for nothing else (a root's link
            // in it included).
            if *roles == Roles::default() {
                state.watched.remove(&path);
                state.forget_paths(&path);
                if let Some(backend) = state.backend.as_mut() {
                    let _ = backend.unwatch(&path);
                }
                tracing::debug!(path = %path.display(), "unwatched");
            }
        }
        let mut new = Vec::new();
        for path in added {
            match state.watched.get_mut(&path) {
                Some(have) => have.bundle = true,
                None if state.unwatchable.contains(&path) => {}
                None if unnameable(&path) => {
                    tracing::debug!(path = %path.display(), "path cannot be named: not watched");
                    state.unwatchable.insert(path);
                }
                None => new.push((
                    path,
                    Roles {
                        bundle: true,
                        ..Roles::default()
                    },
                )),
            }
        }
        self.watch_new(state, new)
    }

    /// Watch each of `new` (a directory and what it is wanted for); returns
    /// whether one had vanished (its roots are marked dirty).
    fn watch_new(&self, state: &mut State, new: Vec<(PathBuf, Roles)>) -> bool {
        // Watches for a move only are a help, not a duty: one that cannot be
        // set (a directory one may pass through but not list, say) leaves
        // watching healthy, and is tried again at the next whole apply. One
        // that is gone since the scan moved or went away with what is below
        // it: the watches there may follow it, so they go as after its move
        // (their roots are rescanned).
        let mut vanished = false;
        let (moves, new): (Vec<_>, Vec<_>) =
            new.into_iter().partition(|(_, roles)| roles.moves_only());
        for (path, roles) in moves {
            match state.try_watch_moves(&path, self.config.follow_symlinks) {
                Some(Ok(())) => {
                    tracing::trace!(path = %path.display(), "watched for its own move");
                    state.watched.insert(path, roles);
                }
                Some(Err(e)) => {
                    tracing::debug!(path = %path.display(), error = %e, "not watched for its own move");
                    if is_missing_error(&e) {
                        let below: Vec<PathBuf> = state
                            .watched
                            .keys()
                            .filter(|p| p.starts_with(&path))
                            .cloned()
                            .collect();
                        vanished |= !below.is_empty();
                        for dir in below {
                            Self::watch_gone(state, &dir, Instant::now());
                        }
                    }
                }
                None => {}
            }
        }
        if new.is_empty() {
            return vanished;
        }
        let mut missing = false;
        let Some(results) = state.try_watch_all(&new, self.config.follow_symlinks) else {
            return false;
        };
        state.watched.reserve(new.len());
        for ((path, roles), result) in new.into_iter().zip(results) {
            match result {
                Ok(()) => {
                    tracing::debug!(path = %path.display(), ?roles, "watched");
                    if !state.failed.is_empty() && state.failed.remove(&path).is_some() {
                        tracing::info!(path = %path.display(), "skill directory watch recovered");
                    }
                    state.watched.insert(path, roles);
                }
                Err(e) if is_missing_error(&e) => {
                    // Vanished since the scan: rescan soon (its parent may not
                    // report it). Until then it counts as failed, so a path that
                    // keeps vanishing is retried with backoff, not in a loop.
                    tracing::debug!(path = %path.display(), "vanished before it could be watched");
                    let owners = state.owners(&path);
                    state.dirty.extend(owners);
                    vanished = true;
                    if state.failed.insert(path, String::new()).is_none() {
                        missing = true;
                    }
                }
                Err(e) if roles.entry_only() && is_unnameable_error(&e) => {
                    state.failed.remove(&path);
                    state
                        .warnings
                        .push(backend::describe_unwatchable(&e, &path));
                    state.unwatchable.insert(path);
                }
                Err(e) => {
                    if !state.failed.contains_key(&path) {
                        let message = backend::describe(&e, Some(&path));
                        state.warnings.push(message.clone());
                        state.failed.insert(path, message);
                    }
                }
            }
        }
        if missing {
            state.activity(Instant::now());
        }
        vanished
    }

    pub(super) fn create_backend(&self, state: &mut State) {
        let Some(tx) = self.tx.lock().unwrap_or_else(|e| e.into_inner()).clone() else {
            return;
        };
        #[cfg(test)]
        if state.fail_backend {
            let e = notify::Error::io(std::io::Error::from_raw_os_error(24));
            state.note_backend_error(backend::describe(&e, None));
            return;
        }
        match backend::create(&self.config, tx) {
            Ok(created) => {
                tracing::debug!(polling = self.config.use_polling, "OS watcher created");
                state.backend = Some(created);
                state.backend_error = None;
            }
            Err(e) => state.note_backend_error(backend::describe(&e, None)),
        }
    }
}
