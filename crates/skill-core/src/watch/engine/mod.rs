//! The watcher's state machine: wanted roots, their scans, the OS watch set, event
//! classification, coalescing, stability deadlines, retries, and the event thread.

mod batch;
mod changes;
mod events;
mod fresh;
mod scan;
mod sync;

use super::backend::{Backend, Msg};
use super::{
    ChangeCallback, RootKind, RootSpec, Stamp, WarningCallback, WatchConfig, WatchStats,
    STORM_FLUSHES,
};
use crate::local::roots::normalize;
use lru::LruCache;
use scan::{is_missing, RootState};
use std::collections::VecDeque;
use std::collections::{HashMap, HashSet};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::{JoinHandle, ThreadId};
use std::time::{Duration, Instant};

const RETRY_FIRST: Duration = Duration::from_millis(250);
const RETRY_MAX: Duration = Duration::from_secs(30);

/// What a watched directory is watched for (one directory can be several).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Roles {
    /// It is an existing root of this kind.
    root: Option<RootKind>,
    /// It is a bundle dir directly in an existing root.
    bundle: bool,
    /// It is the nearest existing ancestor of missing roots; these are the names
    /// of the next missing segments.
    next: Vec<OsString>,
    /// It holds what symlinked flat entries point to; these are the names.
    targets: Vec<OsString>,
    /// It holds symbolic links a root's path goes through (or where a
    /// dangling one leads); these are the names (see `scan::root_links`).
    links: Vec<OsString>,
    /// It is above a root or a followed ancestor (`/home/me` for
    /// `/home/me/.dsh/skills`). A moved directory keeps its inode and the
    /// watches below it follow it, with nothing reported for them: its own
    /// move is what tells that they watch the wrong place now.
    above: bool,
}

impl Roles {
    /// Wanted only for what it holds inside a root (a bundle dir, a
    /// directory of link targets), not as a root or a followed ancestor.
    fn entry_only(&self) -> bool {
        self.root.is_none() && self.next.is_empty() && self.links.is_empty()
    }

    /// A bundle dir and nothing else.
    fn bundle_only(&self) -> bool {
        self.bundle && self.entry_only() && self.targets.is_empty() && !self.above
    }

    /// Wanted only for its own move or removal (see [`Self::above`]).
    fn moves_only(&self) -> bool {
        self.above && self.entry_only() && !self.bundle && self.targets.is_empty()
    }

    fn merge_root(&mut self, kind: RootKind) {
        // A dir wanted as both kinds of root: every entry counts.
        self.root = Some(match (self.root, kind) {
            (Some(RootKind::Plain), _) | (_, RootKind::Plain) => RootKind::Plain,
            _ => RootKind::UserDsh,
        });
    }
}

pub(super) struct State {
    backend: Option<Box<dyn Backend>>,
    /// Set while the OS watcher could not be created (the message).
    backend_error: Option<String>,
    shared: Vec<RootSpec>,
    projects: LruCache<PathBuf, Vec<RootSpec>>,
    roots: HashMap<PathBuf, RootState>,
    /// Directories with a live OS watch and what they are watched for.
    watched: HashMap<PathBuf, Roles>,
    /// The path the OS watches a watched directory through, where it
    /// differs (see [`State::os_path`]).
    os: HashMap<PathBuf, PathBuf>,
    /// The real path each watched directory not inside a watched root (a
    /// root, a followed ancestor, a directory above, of link targets, of a
    /// root's links) had when it was watched: one whose path leads
    /// elsewhere now is watched again (see `sync.rs`, `drop_relinked`).
    real: HashMap<PathBuf, PathBuf>,
    /// Wanted directories whose watch failed, with the warning given.
    failed: HashMap<PathBuf, String>,
    /// Wanted entry directories (bundle dirs, directories of link targets)
    /// that can never be watched under their path: it cannot be named to
    /// the system (longer than it allows). Not retried, and not a reason to
    /// call watching unhealthy (see [`Inner::apply`]).
    unwatchable: HashSet<PathBuf>,
    /// Roots to rescan at the next flush.
    dirty: HashSet<PathBuf>,
    /// Entries of roots created, removed or renamed: only they are looked at
    /// again at the next flush (see `rescan_entries`), unless their root is
    /// rescanned as a whole.
    entry_dirty: HashMap<PathBuf, HashSet<OsString>>,
    /// The watch set must be brought in line with every root's scan (see
    /// [`Inner::apply`]); otherwise only the bundle directories below came or
    /// went.
    resync: bool,
    bundles_added: Vec<PathBuf>,
    bundles_removed: Vec<PathBuf>,
    dirty_all: bool,
    /// Where changes were noted since the provider last took them (see
    /// `changes.rs`).
    touched: HashSet<PathBuf>,
    /// A change was noted whose place is not known.
    touched_all: bool,
    /// A catalog change is waiting to be published.
    change: bool,
    /// Catalog changes noted so far (see [`State::changed`]).
    seq: u64,
    /// Diagnostics: counts and moments.
    stats: WatchStats,
    /// The last [`Self::seq`] an invalidation covered: a publication, or a
    /// lookup catching up (see `fresh.rs`). Below `seq`, catalogs cached
    /// before may be stale.
    applied: u64,
    /// A link a root's path goes through changed: watches set through a
    /// path that leads elsewhere now are dropped before the next rescan
    /// (see `sync.rs`, `drop_relinked`).
    relink: bool,
    /// Publish without waiting for the quiet window.
    urgent: bool,
    batch_start: Option<Instant>,
    last_event: Option<Instant>,
    /// Files written but not closed yet, with their publication deadline.
    pending: HashMap<PathBuf, Instant>,
    retry_at: Option<Instant>,
    backoff: Duration,
    /// Times of the last few publications (storm detection).
    recent: VecDeque<Instant>,
    /// The last batch was published with the storm windows.
    storm: bool,
    warnings: Vec<String>,
    #[cfg(test)]
    pub(super) triggers: Vec<PathBuf>,
    /// The change sequence number at which each trigger was last noted.
    #[cfg(test)]
    pub(super) noted_at: HashMap<PathBuf, u64>,
    /// The highest change sequence number a delivered publication covered.
    #[cfg(test)]
    pub(super) published_seq: u64,
    #[cfg(test)]
    pub(super) faults: HashMap<PathBuf, fn() -> notify::Error>,
    #[cfg(test)]
    pub(super) fail_backend: bool,
    /// Runs once, right after the next root scan (a change made "during" it).
    #[cfg(test)]
    pub(super) after_scan: Option<Box<dyn FnOnce() + Send>>,
    /// Runs once, right after the next drain of the backend's events by a
    /// lookup catching up (a change made after the drain, before the rescan).
    #[cfg(test)]
    pub(super) after_drain: Option<Box<dyn FnOnce() + Send>>,
    /// Whether watching was healthy as the last lookup that caught up left
    /// it (the event thread may change it right after).
    #[cfg(test)]
    pub(super) caught_up_healthy: Option<bool>,
}

pub(super) struct Inner {
    config: WatchConfig,
    on_change: ChangeCallback,
    /// Called instead of `on_change` for a batch whose every change lookups
    /// already applied (and invalidated for) while catching up: listeners
    /// still hear of it, caches need no second invalidation.
    on_notify: Option<ChangeCallback>,
    on_warning: WarningCallback,
    state: Mutex<State>,
    tx: Mutex<Option<Sender<Msg>>>,
    closed: AtomicBool,
    healthy: AtomicBool,
    /// Held while a callback runs, so close() can wait for one in flight.
    gate: Mutex<()>,
    /// The thread running a callback, if any (close() from inside a callback
    /// must not wait for itself).
    gate_owner: Mutex<Option<ThreadId>>,
}

pub(super) fn spawn(inner: Arc<Inner>, rx: Receiver<Msg>) -> Option<JoinHandle<()>> {
    let result = std::thread::Builder::new()
        .name("skill-watch".into())
        .spawn(move || run(&inner, &rx));
    match result {
        Ok(handle) => Some(handle),
        Err(e) => {
            tracing::warn!("cannot start the skill watcher thread: {e}");
            None
        }
    }
}

fn run(inner: &Inner, rx: &Receiver<Msg>) {
    tracing::debug!("skill watcher thread started");
    loop {
        let deadline = inner.lock().next_deadline();
        let msg = match deadline {
            None => rx.recv().map_err(|_| RecvTimeoutError::Disconnected),
            Some(at) => rx.recv_timeout(at.saturating_duration_since(Instant::now())),
        };
        match msg {
            Ok(Msg::Stop) | Err(RecvTimeoutError::Disconnected) => break,
            Ok(Msg::Fs(event)) => {
                let mut state = inner.lock();
                inner.on_event(&mut state, event);
                // Take everything already queued under one lock.
                loop {
                    match rx.try_recv() {
                        Ok(Msg::Fs(event)) => inner.on_event(&mut state, event),
                        Ok(Msg::Kick) => {}
                        Ok(Msg::Stop) => return,
                        Err(_) => break,
                    }
                }
                inner.take_queued(&mut state);
            }
            Ok(Msg::Kick) | Err(RecvTimeoutError::Timeout) => {
                inner.take_queued(&mut inner.lock());
            }
        }
        if inner.is_closed() {
            break;
        }
        inner.tick();
    }
    tracing::debug!("skill watcher thread stopped");
}

impl Inner {
    pub(super) fn new(
        config: WatchConfig,
        on_change: ChangeCallback,
        on_notify: Option<ChangeCallback>,
        on_warning: WarningCallback,
        tx: Sender<Msg>,
    ) -> Self {
        let projects = LruCache::new(config.max_projects);
        Self {
            config,
            on_change,
            on_notify,
            on_warning,
            state: Mutex::new(State {
                backend: None,
                backend_error: None,
                shared: Vec::new(),
                projects,
                roots: HashMap::new(),
                watched: HashMap::new(),
                os: HashMap::new(),
                real: HashMap::new(),
                failed: HashMap::new(),
                unwatchable: HashSet::new(),
                dirty: HashSet::new(),
                entry_dirty: HashMap::new(),
                resync: true,
                bundles_added: Vec::new(),
                bundles_removed: Vec::new(),
                dirty_all: false,
                touched: HashSet::new(),
                touched_all: false,
                change: false,
                seq: 0,
                applied: 0,
                stats: WatchStats::default(),
                relink: false,
                urgent: false,
                batch_start: None,
                last_event: None,
                pending: HashMap::new(),
                retry_at: None,
                backoff: RETRY_FIRST,
                recent: VecDeque::with_capacity(STORM_FLUSHES),
                storm: false,
                warnings: Vec::new(),
                #[cfg(test)]
                triggers: Vec::new(),
                #[cfg(test)]
                noted_at: HashMap::new(),
                #[cfg(test)]
                published_seq: 0,
                #[cfg(test)]
                faults: HashMap::new(),
                #[cfg(test)]
                fail_backend: false,
                #[cfg(test)]
                after_scan: None,
                #[cfg(test)]
                after_drain: None,
                #[cfg(test)]
                caught_up_healthy: None,
            }),
            tx: Mutex::new(Some(tx)),
            closed: AtomicBool::new(false),
            healthy: AtomicBool::new(true),
            gate: Mutex::new(()),
            gate_owner: Mutex::new(None),
        }
    }

    pub(super) fn lock(&self) -> MutexGuard<'_, State> {
        // Every mutation leaves the state consistent; a panic elsewhere while the
        // lock was held does not make it unusable.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(super) fn is_closed(&self) -> bool {
        self.closed.load(Ordering::SeqCst)
    }

    pub(super) fn healthy(&self) -> bool {
        !self.is_closed() && self.healthy.load(Ordering::SeqCst)
    }

    /// Whether [`Self::observe`] with these roots would change nothing: the
    /// watcher is healthy, the shared roots are these and the project is
    /// watched with these roots (so observing them costs no scan or watch).
    pub(super) fn observes(
        &self,
        shared: &[RootSpec],
        project: Option<(&Path, &[RootSpec])>,
    ) -> bool {
        if self.is_closed() || !self.healthy.load(Ordering::SeqCst) {
            return false;
        }
        let state = self.lock();
        same_roots(&state.shared, shared)
            && project.is_none_or(|(root, roots)| {
                state
                    .projects
                    .peek(&normalize(root))
                    .is_some_and(|have| same_roots(have, roots))
            })
    }

    fn kick(&self) {
        if let Some(tx) = self.tx.lock().unwrap_or_else(|e| e.into_inner()).as_ref() {
            let _ = tx.send(Msg::Kick);
        }
    }

    /// Set the shared roots (when given) and note a lookup in a project (when
    /// given), with one pass over the wanted watches. See
    /// [`SkillWatcher::observe`](super::SkillWatcher::observe).
    pub(super) fn observe(
        &self,
        shared: Option<&[RootSpec]>,
        project: Option<(&Path, &[RootSpec])>,
    ) {
        if self.is_closed() {
            return;
        }
        let shared: Option<Vec<RootSpec>> =
            shared.map(|roots| roots.iter().map(normalize_spec).collect());
        let project = project.map(|(root, roots)| (normalize(root), roots));
        let mut state = self.lock();
        // `close()` marks closed before it takes the lock: checking again under
        // the lock means no backend is created after it cleaned up.
        if self.is_closed() {
            return;
        }
        let healthy = self.healthy.load(Ordering::SeqCst);
        let mut sync = false;
        let mut retry = false;
        let mut evicted = None;
        if let Some(shared) = shared {
            if state.shared != shared || !healthy {
                // Roots watched from now on were not before.
                for root in &shared {
                    if !state.shared.iter().any(|have| have.path == root.path) {
                        state.touch(&root.path);
                    }
                }
                state.shared = shared;
                sync = true;
            }
        }
        if let Some((project_root, roots)) = project {
            let known = state
                .projects
                .get(&project_root)
                .is_some_and(|have| same_roots(have, roots));
            if !known {
                let roots: Vec<RootSpec> = roots.iter().map(normalize_spec).collect();
                // Not watched until now (new, evicted earlier, or its roots
                // changed): what a discovery kept of them is not vouched for.
                for root in &roots {
                    state.touch(&root.path);
                }
                evicted = match state.projects.push(project_root.clone(), roots) {
                    Some((old, roots)) if old != project_root => {
                        // Unwatched from now on: listed again when next used.
                        for root in &roots {
                            state.touch(&root.path);
                        }
                        Some(old)
                    }
                    _ => None,
                };
                tracing::debug!(project = %project_root.display(), "project watched");
                sync = true;
            } else if !healthy {
                retry = true;
            }
        }
        if retry {
            // Retry failed watches now rather than waiting for the timer.
            let unreadable: Vec<PathBuf> = state
                .roots
                .iter()
                .filter(|(_, r)| r.error.is_some())
                .map(|(p, _)| p.clone())
                .collect();
            state.dirty.extend(unreadable);
            // This may also consume roots the event thread marked dirty: keep
            // what their rescan found for the next publication.
            if self.rescan_dirty(&mut state) {
                state.changed();
                state.activity(Instant::now());
            }
        }
        let vanished = if sync {
            self.sync_roots(&mut state)
        } else if retry {
            self.apply(&mut state)
        } else {
            return;
        };
        self.settle_vanished(&mut state, vanished);
        self.finish_sync(state);
        if let Some(evicted) = evicted {
            tracing::debug!(project = %evicted.display(), "project evicted from the watched set");
            // Its cached catalogs would go stale unwatched: invalidate them now,
            // on the caller's thread and inside its lookup (not with a later
            // batch), so its next lookup lists (and watches) it again.
            self.fire();
        }
    }

    fn fire(&self) {
        let callback = Arc::clone(&self.on_change);
        self.call(|| callback(), "change");
    }

    /// Publish a batch whose changes every cached catalog already reflects.
    fn notify(&self) {
        let callback = Arc::clone(self.on_notify.as_ref().unwrap_or(&self.on_change));
        self.call(|| callback(), "change");
    }

    fn warn(&self, message: String) {
        tracing::warn!("{message}");
        let callback = Arc::clone(&self.on_warning);
        self.call(move || callback(message), "warning");
    }

    /// Run a callback unless closed, under the gate; a panic is contained.
    fn call(&self, f: impl FnOnce(), what: &str) {
        let me = std::thread::current().id();
        if *self.gate_owner.lock().unwrap_or_else(|e| e.into_inner()) == Some(me) {
            // A callback calling back into us: the gate is already ours.
            if !self.is_closed() {
                f();
            }
            return;
        }
        let _gate = self.gate.lock().unwrap_or_else(|e| e.into_inner());
        if self.is_closed() {
            return;
        }
        *self.gate_owner.lock().unwrap_or_else(|e| e.into_inner()) = Some(me);
        if std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).is_err() {
            tracing::warn!("skill {what} callback panicked");
        }
        *self.gate_owner.lock().unwrap_or_else(|e| e.into_inner()) = None;
    }

    #[cfg(test)]
    pub(super) fn could_affect(&self, path: &Path) -> bool {
        if self.is_closed() {
            return false;
        }
        let path = normalize(path);
        let state = self.lock();
        state
            .roots
            .iter()
            .any(|(root, r)| crate::local::roots::affects(root, r.kind == RootKind::UserDsh, &path))
    }

    /// Every watched directory with the path the OS watches it through.
    pub(super) fn os_paths(&self) -> Vec<(PathBuf, PathBuf)> {
        self.lock().os_paths()
    }

    pub(super) fn stats(&self) -> WatchStats {
        self.lock().stats.clone()
    }

    /// The directories watched for what they hold (not those watched only
    /// for their own move).
    pub(super) fn watched_paths(&self) -> Vec<PathBuf> {
        let mut paths: Vec<PathBuf> = self
            .lock()
            .watched
            .iter()
            .filter(|(_, roles)| !roles.moves_only())
            .map(|(path, _)| path.clone())
            .collect();
        paths.sort();
        paths
    }

    /// Mark closed and remove every OS watch. Returns `false` if already closed.
    pub(super) fn close(&self) -> bool {
        if self.closed.swap(true, Ordering::SeqCst) {
            return false;
        }
        let backend = {
            let mut state = self.lock();
            let mut backend = state.backend.take();
            if let Some(backend) = backend.as_mut() {
                let paths: Vec<&Path> = state.watched.keys().map(PathBuf::as_path).collect();
                backend.unwatch_all(&paths);
            }
            // Taken, not cleared: a closed watcher may stay reachable (a JS
            // provider object keeps it for diagnostics until it is collected)
            // and should not keep the tables' room.
            drop(std::mem::take(&mut state.watched));
            drop(std::mem::take(&mut state.os));
            drop(std::mem::take(&mut state.real));
            drop(std::mem::take(&mut state.roots));
            state.projects = LruCache::new(std::num::NonZeroUsize::MIN);
            drop(std::mem::take(&mut state.shared));
            drop(std::mem::take(&mut state.pending));
            drop(std::mem::take(&mut state.failed));
            drop(std::mem::take(&mut state.unwatchable));
            drop(std::mem::take(&mut state.touched));
            drop(std::mem::take(&mut state.entry_dirty));
            backend
        };
        // Dropping the OS watcher stops its own thread.
        drop(backend);
        self.healthy.store(false, Ordering::SeqCst);
        if let Some(tx) = self.tx.lock().unwrap_or_else(|e| e.into_inner()).take() {
            let _ = tx.send(Msg::Stop);
        }
        // Wait for a callback in flight, unless it is the caller.
        let me = std::thread::current().id();
        if *self.gate_owner.lock().unwrap_or_else(|e| e.into_inner()) != Some(me) {
            drop(self.gate.lock().unwrap_or_else(|e| e.into_inner()));
        }
        tracing::debug!("skill watcher closed");
        true
    }
}

fn normalize_spec(spec: &RootSpec) -> RootSpec {
    RootSpec {
        path: normalize(&spec.path),
        kind: spec.kind,
    }
}

/// Whether a watch failed because its path cannot be named to the system
/// (too long, or holding a NUL byte): retrying cannot help.
fn is_unnameable_error(e: &notify::Error) -> bool {
    match &e.kind {
        notify::ErrorKind::Io(io) => crate::local::cannot_be_named(io),
        _ => false,
    }
}

fn is_missing_error(e: &notify::Error) -> bool {
    match &e.kind {
        notify::ErrorKind::PathNotFound => true,
        notify::ErrorKind::Io(io) => is_missing(io),
        _ => false,
    }
}

fn is_symlink(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

impl State {
    fn activity(&mut self, now: Instant) {
        self.batch_start.get_or_insert(now);
        self.last_event = Some(now);
    }

    /// A catalog-affecting change at `path`: publish with the current batch.
    fn publish(&mut self, path: &Path, now: Instant) {
        #[cfg(test)]
        self.triggers.push(path.to_path_buf());
        self.touch(path);
        self.changed();
        #[cfg(test)]
        self.noted_at.insert(path.to_path_buf(), self.seq);
        self.activity(now);
    }

    /// The catalog may have changed: publish with the current batch, and
    /// until then, a lookup catching up invalidates.
    fn changed(&mut self) {
        self.change = true;
        self.seq += 1;
        self.stats.last_change = Some(Stamp::now());
    }

    /// A file being written: publish at its close or at `deadline`.
    fn hold(&mut self, path: &Path, deadline: Instant) {
        self.pending.insert(path.to_path_buf(), deadline);
    }

    /// Why watching is unhealthy, at debug level.
    fn log_unhealthy(&self) {
        tracing::debug!(
            failed = ?self.failed.keys().collect::<Vec<_>>(),
            unreadable = ?self.roots.iter().filter(|(_, r)| r.error.is_some()).map(|(p, _)| p).collect::<Vec<_>>(),
            backend = self.backend.is_some(),
            "skill root watching unhealthy"
        );
    }

    /// The roots whose last scan wants `dir` watched (as the root itself, one
    /// of its bundles, a symlink target's directory, or its nearest ancestor).
    fn owners(&self, dir: &Path) -> Vec<PathBuf> {
        self.roots
            .iter()
            .filter(|(path, root)| {
                path.as_path() == dir
                    || root.bundles.contains(dir)
                    || root.targets.iter().any(|(d, _)| d == dir)
                    || root.links.iter().any(|(d, _)| d == dir)
                    || root.ancestor.as_ref().is_some_and(|(a, _)| a == dir)
            })
            .map(|(path, _)| path.clone())
            .collect()
    }

    /// The entry `name` of the root at `root` was created, removed or renamed.
    fn dirty_entry(&mut self, root: &Path, name: &std::ffi::OsStr) {
        self.entry_dirty
            .entry(root.to_path_buf())
            .or_default()
            .insert(name.to_os_string());
    }

    fn drop_watch(&mut self, path: &Path) {
        if self.watched.remove(path).is_some() {
            self.forget_paths(path);
            if let Some(backend) = self.backend.as_mut() {
                let _ = backend.unwatch(path);
            }
            tracing::debug!(path = %path.display(), "watch dropped (directory gone or moved)");
        }
    }

    /// Watch `path` for its own move only, or `None` without a backend.
    fn try_watch_moves(&mut self, path: &Path, follow: bool) -> Option<notify::Result<()>> {
        self.backend.as_ref()?;
        let (os, real) = self.locate(path, follow);
        self.note_paths(path, &os, real);
        Some(self.backend.as_mut()?.watch_moves(path, &os))
    }

    /// Watch each new path (one result per path), or `None` without a backend.
    fn try_watch_all<T>(
        &mut self,
        new: &[(PathBuf, T)],
        follow: bool,
    ) -> Option<Vec<notify::Result<()>>> {
        // No backend (closed): nothing is watched, so nothing to remember.
        self.backend.as_ref()?;
        let located: Vec<(PathBuf, Option<PathBuf>)> = new
            .iter()
            .map(|(path, _)| self.locate(path, follow))
            .collect();
        let mut os = Vec::with_capacity(new.len());
        for ((path, _), (at, real)) in new.iter().zip(located) {
            self.note_paths(path, &at, real);
            os.push(at);
        }
        let backend = self.backend.as_mut()?;
        let paths: Vec<(&Path, &Path)> = new
            .iter()
            .zip(&os)
            .map(|((path, _), os)| (path.as_path(), os.as_path()))
            .collect();
        #[cfg(test)]
        if !self.faults.is_empty() {
            let faults = &self.faults;
            return Some(
                paths
                    .iter()
                    .map(|(path, os)| match faults.get(*path) {
                        Some(fault) => Err(fault().add_path(path.to_path_buf())),
                        None => backend.watch(path, os),
                    })
                    .collect(),
            );
        }
        Some(backend.watch_all(&paths))
    }

    /// Remember the OS path and the real path (see [`State::locate`]) of
    /// `path`, about to be watched.
    fn note_paths(&mut self, path: &Path, os: &Path, real: Option<PathBuf>) {
        if path != os {
            self.os.insert(path.to_path_buf(), os.to_path_buf());
        } else if !self.os.is_empty() {
            self.os.remove(path);
        }
        match real {
            Some(real) => {
                self.real.insert(path.to_path_buf(), real);
            }
            None if !self.real.is_empty() => {
                self.real.remove(path);
            }
            None => {}
        }
    }

    /// Forget the OS and real paths of `path`, no longer watched.
    fn forget_paths(&mut self, path: &Path) {
        self.os.remove(path);
        self.real.remove(path);
    }

    /// The path handed to the OS to watch the directory `path` (see
    /// [`Self::os_path`]) and, unless it is inside a watched root, its
    /// real path now (`path` itself when it has none).
    fn locate(&self, path: &Path, follow: bool) -> (PathBuf, Option<PathBuf>) {
        if self.in_watched_root(path) {
            return (self.os_path(path, follow), None);
        }
        let real = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        let os = if follow {
            real.clone()
        } else {
            self.os_path(path, follow)
        };
        (os, Some(real))
    }

    /// Whether `path` is an entry of a watched root (and not a root itself).
    fn in_watched_root(&self, path: &Path) -> bool {
        path.parent().is_some_and(|parent| {
            self.watched
                .get(parent)
                .is_some_and(|roles| roles.root.is_some())
        }) && !self.roots.contains_key(path)
    }

    /// The path handed to the OS to watch the directory `path`: in a
    /// watched root, the root's OS path and the entry's name (a symlinked
    /// bundle is watched through its link); else (a root, the
    /// nearest existing ancestor of a missing one) its real path, or with
    /// `follow` off, the real path of its parent and its own name (a
    /// symlinked root is watched on the link's own path).
    fn os_path(&self, path: &Path, follow: bool) -> PathBuf {
        let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
            return path.to_path_buf();
        };
        if self.in_watched_root(path) {
            return match self.os.get(parent) {
                Some(os) => os.join(name),
                None => path.to_path_buf(),
            };
        }
        let real = if follow {
            std::fs::canonicalize(path)
        } else {
            std::fs::canonicalize(parent).map(|parent| parent.join(name))
        };
        real.unwrap_or_else(|_| path.to_path_buf())
    }

    /// Every watched directory with the path the OS watches it through.
    fn os_paths(&self) -> Vec<(PathBuf, PathBuf)> {
        let mut paths: Vec<(PathBuf, PathBuf)> = self
            .watched
            .iter()
            .filter(|(_, roles)| !roles.moves_only())
            .map(|(path, _)| {
                let os = self.os.get(path).unwrap_or(path).clone();
                (path.clone(), os)
            })
            .collect();
        paths.sort();
        paths
    }

    fn note_backend_error(&mut self, message: String) {
        if self.backend_error.as_deref() != Some(message.as_str()) {
            self.warnings.push(message.clone());
        }
        self.backend_error = Some(message);
    }

    fn compute_healthy(&self) -> bool {
        let needs_backend = !self.roots.is_empty();
        (!needs_backend || self.backend.is_some())
            && self.failed.is_empty()
            && self.roots.values().all(|r| r.error.is_none())
    }
}

/// Whether `have` (as watched, normalized) are the roots `want`.
fn same_roots(have: &[RootSpec], want: &[RootSpec]) -> bool {
    have.len() == want.len()
        && have
            .iter()
            .zip(want)
            .all(|(a, b)| a.kind == b.kind && a.path == normalize(&b.path))
}
