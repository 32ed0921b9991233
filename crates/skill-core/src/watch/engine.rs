//! The watcher's state machine: wanted roots, their scans, the OS watch set, event
//! classification, coalescing, stability deadlines, retries, and the event thread.

use super::backend::{self, Backend, Msg};
use super::{
    ChangeCallback, RootKind, RootSpec, WarningCallback, WatchConfig, COALESCE_MAX, COALESCE_QUIET,
    STORM_FLUSHES, STORM_MAX, STORM_QUIET, STORM_SPAN,
};
use crate::local::roots::{affects, normalize};
use lru::LruCache;
use notify::event::{AccessKind, AccessMode, CreateKind, EventKind, ModifyKind};
use std::collections::VecDeque;
use std::collections::{HashMap, HashSet};
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::{JoinHandle, ThreadId};
use std::time::{Duration, Instant};

const SKILL_FILE: &str = "SKILL.md";
const SYSTEM_DIR: &str = ".system";
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
}

impl Roles {
    fn merge_root(&mut self, kind: RootKind) {
        // A dir wanted as both kinds of root: every entry counts.
        self.root = Some(match (self.root, kind) {
            (Some(RootKind::Plain), _) | (_, RootKind::Plain) => RootKind::Plain,
            _ => RootKind::UserDsh,
        });
    }
}

/// What the last scan of one wanted root found.
#[derive(Debug)]
struct RootState {
    kind: RootKind,
    exists: bool,
    /// Names of the direct entries that can be skills (dirs, symlinks, `.md`).
    entries: HashSet<OsString>,
    /// Bundle dirs to watch.
    bundles: Vec<PathBuf>,
    /// Where symlinked flat entries lead: each link on the way and the final
    /// file, as (directory, name). Empty unless links are followed.
    targets: Vec<(PathBuf, OsString)>,
    /// Nearest existing ancestor and the next missing segment, when missing.
    ancestor: Option<(PathBuf, OsString)>,
    /// The root could not be inspected (not "missing").
    error: Option<String>,
}

fn is_md(name: &OsStr) -> bool {
    name.as_encoded_bytes().ends_with(b".md")
}

fn scan_root(path: &Path, kind: RootKind, follow_symlinks: bool) -> RootState {
    let mut state = RootState {
        kind,
        exists: false,
        entries: HashSet::new(),
        bundles: Vec::new(),
        targets: Vec::new(),
        ancestor: None,
        error: None,
    };
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_dir() => {}
        Ok(_) => {
            // A file where the root should be: wait for it to become a dir.
            state.ancestor = nearest_ancestor(path);
            return state;
        }
        Err(e) if is_missing(&e) => {
            state.ancestor = nearest_ancestor(path);
            return state;
        }
        Err(e) => {
            state.error = Some(format!("cannot inspect skill root {}: {e}", path.display()));
            return state;
        }
    }
    let dir = match std::fs::read_dir(path) {
        Ok(dir) => dir,
        // Removed between the two calls: missing, not broken.
        Err(e) if is_missing(&e) => {
            state.ancestor = nearest_ancestor(path);
            return state;
        }
        Err(e) => {
            state.exists = true;
            state.error = Some(format!("cannot list skill root {}: {e}", path.display()));
            return state;
        }
    };
    state.exists = true;
    for entry in dir {
        let Ok(entry) = entry else { continue };
        let name = entry.file_name();
        if kind == RootKind::UserDsh && name == SYSTEM_DIR {
            continue;
        }
        let Ok(file_type) = entry.file_type() else {
            continue;
        };
        if file_type.is_dir() {
            state.bundles.push(entry.path());
            state.entries.insert(name);
        } else if file_type.is_symlink() {
            if follow_symlinks {
                let path = entry.path();
                if std::fs::metadata(&path).is_ok_and(|m| m.is_dir()) {
                    state.bundles.push(path);
                } else if is_md(&name) {
                    state.targets.extend(link_targets(&path));
                }
            }
            state.entries.insert(name);
        } else if is_md(&name) {
            state.entries.insert(name);
        }
    }
    state
}

/// Links followed from one symlinked entry before giving up (as the kernel's
/// own limit for path resolution).
const MAX_LINK_HOPS: usize = 40;

/// What the symlink at `link` leads to, one `(directory, name)` per hop: each
/// intermediate link and the final file (which may be missing: a broken link
/// is repaired by creating it). Directories are canonical; a hop whose
/// directory does not exist ends the chain.
fn link_targets(link: &Path) -> Vec<(PathBuf, OsString)> {
    let mut hops = Vec::new();
    let mut current = link.to_path_buf();
    while hops.len() < MAX_LINK_HOPS {
        let Ok(target) = std::fs::read_link(&current) else {
            break;
        };
        let Some(dir) = current.parent() else {
            break;
        };
        let next = dir.join(target);
        let (Some(parent), Some(name)) = (next.parent(), next.file_name()) else {
            break;
        };
        let Ok(parent) = std::fs::canonicalize(parent) else {
            break;
        };
        current = parent.join(name);
        hops.push((parent, name.to_os_string()));
    }
    hops
}

fn is_missing(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
    )
}

/// The directory a scan of the root at `path` lists: the root itself when it is
/// a directory, else its nearest existing ancestor.
fn listed_dir(path: &Path) -> Option<PathBuf> {
    if std::fs::metadata(path).is_ok_and(|m| m.is_dir()) {
        Some(path.to_path_buf())
    } else {
        nearest_ancestor(path).map(|(dir, _)| dir)
    }
}

/// Nearest existing directory above `path`, and the name of the next segment.
fn nearest_ancestor(path: &Path) -> Option<(PathBuf, OsString)> {
    let mut child = path;
    while let Some(parent) = child.parent() {
        let name = child.file_name()?;
        if std::fs::metadata(parent).is_ok_and(|m| m.is_dir()) {
            return Some((parent.to_path_buf(), name.to_os_string()));
        }
        child = parent;
    }
    None
}

/// How an OS event is interpreted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Change {
    /// Created; `Some(true)` known dir, `Some(false)` known file (or link).
    Created(Option<bool>),
    Removed,
    Renamed,
    /// Content or metadata written (maybe not finished).
    Written,
    /// Closed after writing.
    Closed,
}

fn classify(kind: &EventKind) -> Option<Change> {
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

pub(super) struct State {
    backend: Option<Box<dyn Backend>>,
    /// Set while the OS watcher could not be created (the message).
    backend_error: Option<String>,
    shared: Vec<RootSpec>,
    projects: LruCache<PathBuf, Vec<RootSpec>>,
    roots: HashMap<PathBuf, RootState>,
    /// Directories with a live OS watch and what they are watched for.
    watched: HashMap<PathBuf, Roles>,
    /// Wanted directories whose watch failed, with the warning given.
    failed: HashMap<PathBuf, String>,
    /// Roots to rescan at the next flush.
    dirty: HashSet<PathBuf>,
    dirty_all: bool,
    /// A catalog change is waiting to be published.
    change: bool,
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
    #[cfg(test)]
    pub(super) faults: HashMap<PathBuf, fn() -> notify::Error>,
    #[cfg(test)]
    pub(super) fail_backend: bool,
    /// Runs once, right after the next root scan (a change made "during" it).
    #[cfg(test)]
    pub(super) after_scan: Option<Box<dyn FnOnce() + Send>>,
}

pub(super) struct Inner {
    config: WatchConfig,
    on_change: ChangeCallback,
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
            }
            Ok(Msg::Kick) | Err(RecvTimeoutError::Timeout) => {}
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
        on_warning: WarningCallback,
        tx: Sender<Msg>,
    ) -> Self {
        let projects = LruCache::new(config.max_projects);
        Self {
            config,
            on_change,
            on_warning,
            state: Mutex::new(State {
                backend: None,
                backend_error: None,
                shared: Vec::new(),
                projects,
                roots: HashMap::new(),
                watched: HashMap::new(),
                failed: HashMap::new(),
                dirty: HashSet::new(),
                dirty_all: false,
                change: false,
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
                faults: HashMap::new(),
                #[cfg(test)]
                fail_backend: false,
                #[cfg(test)]
                after_scan: None,
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
                state.shared = shared;
                sync = true;
            }
        }
        if let Some((project_root, roots)) = project {
            let known = state.projects.get(&project_root).is_some_and(|have| {
                have.len() == roots.len()
                    && have
                        .iter()
                        .zip(roots)
                        .all(|(a, b)| a.kind == b.kind && a.path == normalize(&b.path))
            });
            if !known {
                let roots: Vec<RootSpec> = roots.iter().map(normalize_spec).collect();
                evicted = match state.projects.push(project_root.clone(), roots) {
                    Some((old, _)) if old != project_root => Some(old),
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
                state.change = true;
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

    /// A directory deleted since its root's last scan (its event not handled
    /// yet) cannot be watched, and [`Self::apply`] marked the roots that wanted
    /// it dirty: rescan them now and apply again, so the watch set matches the
    /// disk before health is judged, instead of reporting watching unhealthy
    /// (and lookups incomplete) until the next batch. Bounded: a directory that
    /// keeps vanishing is left to the retry timer.
    fn settle_vanished(&self, state: &mut State, mut vanished: bool) {
        for _ in 0..3 {
            if !vanished {
                return;
            }
            if self.rescan_dirty(state) {
                state.change = true;
                state.activity(Instant::now());
            }
            vanished = self.apply(state);
        }
    }

    /// After a synchronous change of the wanted set: record health, emit warnings,
    /// make the thread pick up new deadlines.
    fn finish_sync(&self, mut state: MutexGuard<'_, State>) {
        let healthy = state.compute_healthy();
        if !healthy {
            state.log_unhealthy();
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
    fn sync_roots(&self, state: &mut State) -> bool {
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
    fn scan_watched(&self, state: &mut State, path: &Path, kind: RootKind) -> RootState {
        let mut attempts = 0;
        loop {
            let listed = listed_dir(path);
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
            // or its nearest ancestor changed): watch the new place and scan again.
            if now == listed.as_deref() || scanned.error.is_some() || attempts == 4 {
                return scanned;
            }
        }
    }

    /// Watch `dir` now (its roles are set by the next [`Self::apply`]).
    /// Failures are left to `apply`, which reports and retries them.
    fn prewatch(&self, state: &mut State, dir: &Path) {
        if state.watched.contains_key(dir) || state.failed.contains_key(dir) {
            return;
        }
        if state.backend.is_none() {
            self.create_backend(state);
        }
        let path = dir.to_path_buf();
        if let Some(Ok(())) = state
            .try_watch_all(&[(path.clone(), ())])
            .and_then(|mut results| results.pop())
        {
            state.watched.insert(path, Roles::default());
        }
    }

    /// Rescan the dirty roots. Returns whether a root appeared, vanished, or its
    /// entries differ from the last scan.
    fn rescan_dirty(&self, state: &mut State) -> bool {
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
        state.dirty_all = false;
        let mut changed = false;
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
            state.roots.insert(path, scanned);
        }
        changed
    }

    /// Bring the OS watches in line with what the roots' scans want. Returns
    /// whether a wanted directory had vanished since its root's scan (that root
    /// is marked dirty).
    fn apply(&self, state: &mut State) -> bool {
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
        }

        let stale: Vec<PathBuf> = state
            .watched
            .keys()
            .filter(|p| !wanted.contains_key(*p))
            .cloned()
            .collect();
        for path in stale {
            state.watched.remove(&path);
            if let Some(backend) = state.backend.as_mut() {
                // Already gone when the OS dropped it (deleted directory).
                let _ = backend.unwatch(&path);
            }
            tracing::debug!(path = %path.display(), "unwatched");
        }
        state.failed.retain(|p, _| wanted.contains_key(p));

        if state.backend.is_none() && !wanted.is_empty() {
            self.create_backend(state);
        }
        let mut missing = false;
        let mut vanished = false;
        let mut new = Vec::new();
        for (path, roles) in wanted {
            match state.watched.get_mut(&path) {
                Some(have) => *have = roles,
                None => new.push((path, roles)),
            }
        }
        let Some(results) = state.try_watch_all(&new) else {
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

    fn create_backend(&self, state: &mut State) {
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

    fn on_event(&self, state: &mut State, event: notify::Result<notify::Event>) {
        if self.is_closed() {
            return;
        }
        let now = Instant::now();
        let event = match event {
            Ok(event) => event,
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
                    state.failed.insert(path, message.clone());
                }
                state.warnings.push(message);
                // Events may have been lost: rescan and publish.
                state.dirty_all = true;
                state.change = true;
                state.activity(now);
                return;
            }
        };
        if event.need_rescan() {
            tracing::debug!("event queue overflow: rescanning every root");
            state.dirty_all = true;
            state.change = true;
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

    fn on_path(&self, state: &mut State, path: &Path, change: Change, now: Instant) {
        // The watched directory itself went away or moved.
        if matches!(change, Change::Removed | Change::Renamed) {
            if let Some(roles) = state.watched.get(path).cloned() {
                state.drop_watch(path);
                if roles.root.is_some() {
                    state.dirty.insert(path.to_path_buf());
                }
                if roles.bundle {
                    if let Some(parent) = path.parent() {
                        state.dirty.insert(parent.to_path_buf());
                    }
                }
                if !roles.next.is_empty() || !roles.targets.is_empty() {
                    state.dirty_all = true;
                }
                state.publish(path, now);
            }
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

    fn on_root_entry(
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
                            state.dirty.insert(root.to_path_buf());
                            state.publish(path, now);
                        }
                        return;
                    }
                };
                if dir || link || known == Some(true) {
                    state.dirty.insert(root.to_path_buf());
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
                    state.dirty.insert(root.to_path_buf());
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
    fn on_link_target(
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
        if relink {
            let owners: Vec<PathBuf> = state
                .roots
                .iter()
                .filter(|(_, root)| root.targets.iter().any(|(d, n)| d == dir && n == name))
                .map(|(p, _)| p.clone())
                .collect();
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

    /// Timers: stability deadlines, retries, and publishing a due batch.
    fn tick(&self) {
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
            state.change = true;
        }
        let vanished = self.apply(&mut state);
        self.settle_vanished(&mut state, vanished);
        let healthy = state.compute_healthy();
        if !healthy {
            state.log_unhealthy();
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
            drop(state);
            self.fire();
        }
    }

    fn fire(&self) {
        let callback = Arc::clone(&self.on_change);
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

    pub(super) fn could_affect(&self, path: &Path) -> bool {
        if self.is_closed() {
            return false;
        }
        let path = normalize(path);
        let state = self.lock();
        state
            .roots
            .iter()
            .any(|(root, r)| affects(root, r.kind == RootKind::UserDsh, &path))
    }

    pub(super) fn watched_paths(&self) -> Vec<PathBuf> {
        let mut paths: Vec<PathBuf> = self.lock().watched.keys().cloned().collect();
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
            state.watched.clear();
            state.roots.clear();
            state.projects.clear();
            state.shared.clear();
            state.pending.clear();
            state.failed.clear();
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
        let _ = path;
        self.change = true;
        self.activity(now);
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
                    || root.bundles.iter().any(|b| b == dir)
                    || root.targets.iter().any(|(d, _)| d == dir)
                    || root.ancestor.as_ref().is_some_and(|(a, _)| a == dir)
            })
            .map(|(path, _)| path.clone())
            .collect()
    }

    fn drop_watch(&mut self, path: &Path) {
        if self.watched.remove(path).is_some() {
            if let Some(backend) = self.backend.as_mut() {
                let _ = backend.unwatch(path);
            }
            tracing::debug!(path = %path.display(), "watch dropped (directory gone or moved)");
        }
    }

    /// Watch each new path (one result per path), or `None` without a backend.
    fn try_watch_all<T>(&mut self, new: &[(PathBuf, T)]) -> Option<Vec<notify::Result<()>>> {
        let backend = self.backend.as_mut()?;
        let paths: Vec<&Path> = new.iter().map(|(path, _)| path.as_path()).collect();
        #[cfg(test)]
        if !self.faults.is_empty() {
            let faults = &self.faults;
            return Some(
                paths
                    .iter()
                    .map(|path| match faults.get(*path) {
                        Some(fault) => Err(fault().add_path(path.to_path_buf())),
                        None => backend.watch(path),
                    })
                    .collect(),
            );
        }
        Some(backend.watch_all(&paths))
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

    fn rescan_needed(&self) -> bool {
        self.dirty_all || !self.dirty.is_empty()
    }

    fn flush_due(&self, now: Instant) -> bool {
        match self.flush_at() {
            Some(at) => at <= now,
            None => false,
        }
    }

    fn in_storm(&self) -> bool {
        let Some(start) = self.batch_start else {
            return false;
        };
        self.storm_at(start)
    }

    fn flush_at(&self) -> Option<Instant> {
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
    fn storm_at(&self, start: Instant) -> bool {
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

    fn next_deadline(&self) -> Option<Instant> {
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
