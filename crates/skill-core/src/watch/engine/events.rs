//! Classifying OS events: what each one means for the wanted roots (rescan,
//! publish with the batch, or hold a file being written until it is closed).

use super::scan::{is_md, RootState, SYSTEM_DIR};
use super::{is_missing_error, is_symlink, Inner, Roles, State};
use crate::watch::backend;
use crate::watch::RootKind;
use notify::event::{AccessKind, AccessMode, CreateKind, EventKind, ModifyKind};
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::time::Instant;

const SKILL_FILE: &str = "SKILL.md";

/// How an OS event is interpreted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Change {
    /// Created; `Some(true)` known dir, `Some(false)` known file (or link).
    Created(Option<bool>),
    Removed,
    Renamed,
    /// Content or metadata written (maybe not finished).
    Written,
    /// Closed after writing.
    Closed,
}

pub(super) fn classify(kind: &EventKind) -> Option<Change> {
    Some(match kind {
        EventKind::Create(CreateKind::Folder) => Change::Created(Some(true)),
        EventKind::Create(CreateKind::File) => Change::Created(Some(false)),
        EventKind::Create(_) => Change::Created(None),
        EventKind::Remove(_) => Change::Removed,
        EventKind::Modify(ModifyKind::Name(_)) => Change::Renamed,
        EventKind::Modify(_) | EventKind::Any => Change::Written,
        EventKind::Access(AccessKind::Close(AccessMode::Write)) => Change::Closed,
        EventKind::Access(_) | EventKind::Other => return None,
    })
}

impl Inner {
    pub(super) fn on_event(&self, state: &mut State, event: notify::Result<notify::Event>) {
        if self.is_closed() {
            return;
        }
        let now = Instant::now();
        let event = match event {
            Ok(event) => {
                tracing::trace!(kind = ?event.kind, paths = ?event.paths, "watch event");
                event
            }
            Err(e) => {
                tracing::debug!(error = %e, paths = ?e.paths, "watch error event");
                if is_missing_error(&e) {
                    // A watched path vanished (polling reports it as an error):
                    // the rescan decides whether the catalog changed.
                    state.dirty_all = true;
                    state.activity(now);
                    return;
                }
                let path = e.paths.first().cloned();
                let message = backend::describe(&e, path.as_deref());
                if let Some(path) = path.filter(|p| state.watched.contains_key(p)) {
                    // The watch is in doubt: drop it and retry it (with backoff).
                    state.drop_watch(&path);
                    state.resync = true;
                    state.failed.insert(path, message.clone());
                }
                state.warnings.push(message);
                // Events may have been lost: rescan and publish.
                state.dirty_all = true;
                state.touch_all();
                state.changed();
                state.activity(now);
                return;
            }
        };
        if event.need_rescan() {
            tracing::debug!("event queue overflow: rescanning every root");
            state.dirty_all = true;
            state.touch_all();
            state.changed();
            state.activity(now);
            return;
        }
        let Some(change) = classify(&event.kind) else {
            return;
        };
        tracing::trace!(kind = ?event.kind, paths = ?event.paths, "event");
        for path in &event.paths {
            self.on_path(state, path, change, now);
        }
    }

    pub(super) fn on_path(&self, state: &mut State, path: &Path, change: Change, now: Instant) {
        // The watched directory itself went away or moved (or the link it
        // was watched through did: see `watch_gone`).
        if matches!(change, Change::Removed | Change::Renamed) && state.watched.contains_key(path) {
            Self::watch_gone(state, path, now);
        }
        let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
            return;
        };
        let Some(roles) = state.watched.get(parent).cloned() else {
            return;
        };
        if let Some(kind) = roles.root {
            if !(kind == RootKind::UserDsh && name == SYSTEM_DIR) {
                self.on_root_entry(state, parent, path, name, change, now);
            }
        }
        if roles.bundle && name == SKILL_FILE {
            match change {
                Change::Created(Some(true)) => {}
                Change::Created(_) => {
                    if is_symlink(path) {
                        state.publish(path, now);
                    } else {
                        state.hold(path, now + self.config.stability_threshold);
                    }
                }
                Change::Written => state.hold(path, now + self.config.stability_threshold),
                Change::Removed | Change::Renamed | Change::Closed => {
                    state.pending.remove(path);
                    state.publish(path, now);
                }
            }
        }
        if roles.targets.iter().any(|n| n == name) {
            self.on_link_target(state, parent, name, path, change, now);
        }
        if change != Change::Closed && roles.links.iter().any(|n| n == name) {
            self.on_root_link(state, parent, name, path, now);
        }
        if roles.next.iter().any(|n| n == name)
            && matches!(
                change,
                Change::Created(_) | Change::Removed | Change::Renamed
            )
        {
            // The next missing segment of some root appeared (or went away again).
            let followers: Vec<PathBuf> = state
                .roots
                .iter()
                .filter(|(_, root)| {
                    root.ancestor
                        .as_ref()
                        .is_some_and(|(a, n)| a == parent && n == name)
                })
                .map(|(p, _)| p.clone())
                .collect();
            state.dirty.extend(followers);
            #[cfg(test)]
            state.triggers.push(path.to_path_buf());
            state.activity(now);
        }
    }

    /// A link a root's path goes through (or where a dangling one leads:
    /// `dir`/`name`) was created, removed, replaced or renamed: its roots
    /// may be other directories now. They are rescanned as a whole, once
    /// the watches set through the link are dropped (see `drop_relinked`).
    fn on_root_link(&self, state: &mut State, dir: &Path, name: &OsStr, path: &Path, now: Instant) {
        let owners = roots_through(state, |root| &root.links, dir, name);
        for owner in &owners {
            state.touch(owner);
        }
        state.dirty.extend(owners);
        state.relink = true;
        state.publish(path, now);
    }

    /// The watched directory `dir` is gone from where it was watched. The
    /// watches of the directories below it go too: they were set through
    /// it, and follow it where it went (a moved directory keeps its inode,
    /// and its watches follow it), or stay on what a removed link led to;
    /// so a directory of the same name in its place is watched afresh
    /// instead of being taken for watched. (A bundle has none below it worth
    /// the search: a burst of bundles renamed in a large root stays cheap.)
    pub(super) fn watch_gone(state: &mut State, dir: &Path, now: Instant) {
        let Some(roles) = state.watched.get(dir).cloned() else {
            return;
        };
        state.drop_watch(dir);
        if !roles.bundle_only() {
            // Every watch below, gathered once (not again for each of them).
            let below: Vec<PathBuf> = state
                .watched
                .keys()
                .filter(|p| p.starts_with(dir))
                .cloned()
                .collect();
            for below in below {
                if let Some(roles) = state.watched.get(&below).cloned() {
                    state.drop_watch(&below);
                    Self::gone(state, &below, &roles, now);
                }
            }
        }
        Self::gone(state, dir, &roles, now);
    }

    /// What the loss of the watch of `dir`, wanted for `roles`, leaves to do.
    fn gone(state: &mut State, dir: &Path, roles: &Roles, now: Instant) {
        if roles.above || !roles.links.is_empty() {
            // Paths through it may lead elsewhere now.
            state.relink = true;
        }
        if !roles.entry_only() || !roles.targets.is_empty() {
            state.resync = true;
        }
        if roles.root.is_some() {
            state.dirty.insert(dir.to_path_buf());
        }
        if roles.bundle {
            if let (Some(parent), Some(name)) = (dir.parent(), dir.file_name()) {
                state.dirty_entry(parent, name);
            }
        }
        if !roles.next.is_empty() || !roles.targets.is_empty() || !roles.links.is_empty() {
            state.dirty_all = true;
        }
        state.publish(dir, now);
    }

    pub(super) fn on_root_entry(
        &self,
        state: &mut State,
        root: &Path,
        path: &Path,
        name: &OsStr,
        change: Change,
        now: Instant,
    ) {
        let md = is_md(name);
        match change {
            Change::Created(known) => {
                let (dir, link) = match std::fs::symlink_metadata(path) {
                    Ok(meta) => (meta.is_dir(), meta.file_type().is_symlink()),
                    // Gone again before this event was handled. A lookup may
                    // have listed it meanwhile (and its catalog be cached),
                    // and the root's last scan does not know it, so its
                    // removal would not publish: publish now when it could
                    // have been a skill (a directory, a `.md` file, or of
                    // unknown type).
                    Err(_) => {
                        if md || known != Some(false) {
                            state.dirty_entry(root, name);
                            state.publish(path, now);
                        }
                        return;
                    }
                };
                if dir || link || known == Some(true) {
                    state.dirty_entry(root, name);
                    state.publish(path, now);
                } else if md {
                    // Wait for the writer to close it.
                    state.hold(path, now + self.config.stability_threshold);
                }
            }
            Change::Removed | Change::Renamed => {
                let known = state
                    .roots
                    .get(root)
                    .is_some_and(|r| r.entries.contains(name));
                // Renamed: moved in (a directory or link there now), or moved
                // out. An entry moved out that the last scan does not know
                // may have been moved in since (and listed by a lookup) with
                // its arrival not handled yet: publish.
                let now_entry = change == Change::Renamed
                    && std::fs::symlink_metadata(path)
                        .map_or(true, |m| m.is_dir() || m.file_type().is_symlink());
                if md || known || now_entry {
                    state.pending.remove(path);
                    state.dirty_entry(root, name);
                    state.publish(path, now);
                }
            }
            Change::Written => {
                if md && std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
                    state.hold(path, now + self.config.stability_threshold);
                }
            }
            Change::Closed => {
                if md {
                    state.pending.remove(path);
                    state.publish(path, now);
                }
            }
        }
    }

    /// An event on what a symlinked flat entry leads to (a link on the way or
    /// the final file): treated like the flat file itself. A hop created,
    /// removed or renamed rescans the roots whose links go through it.
    pub(super) fn on_link_target(
        &self,
        state: &mut State,
        dir: &Path,
        name: &OsStr,
        path: &Path,
        change: Change,
        now: Instant,
    ) {
        let relink = matches!(
            change,
            Change::Created(_) | Change::Removed | Change::Renamed
        );
        let owners = roots_through(state, |root| &root.targets, dir, name);
        // The entry that leads here is not known by name: its roots are
        // listed again (see `changes.rs`).
        for owner in &owners {
            state.touch(owner);
        }
        if relink {
            state.dirty.extend(owners);
        }
        match change {
            Change::Created(_) if is_symlink(path) => state.publish(path, now),
            Change::Created(_) | Change::Written => {
                state.hold(path, now + self.config.stability_threshold)
            }
            Change::Removed | Change::Renamed | Change::Closed => {
                state.pending.remove(path);
                state.publish(path, now);
            }
        }
    }
}

/// The roots whose `hops` (their links, or their flat links' targets) hold
/// `dir`/`name`.
fn roots_through(
    state: &State,
    hops: impl Fn(&RootState) -> &[(PathBuf, OsString)],
    dir: &Path,
    name: &OsStr,
) -> Vec<PathBuf> {
    state
        .roots
        .iter()
        .filter(|(_, root)| hops(root).iter().any(|(d, n)| d == dir && n == name))
        .map(|(p, _)| p.clone())
        .collect()
}
