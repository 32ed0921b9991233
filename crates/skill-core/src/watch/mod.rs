//! Hot refresh: watch skill roots and tell the owner when the catalog may have
//! changed.
//!
//! [`SkillWatcher`] watches only what can change the catalog:
//!
//! - each existing root, non-recursively (its direct entries: bundle dirs and flat
//!   `.md` files);
//! - each bundle dir directly in a root, non-recursively, for its `SKILL.md`.
//!   Files deeper in a bundle (`references/`, `scripts/`, assets) are never watched;
//!   other files directly in a bundle are watched by the OS but ignored;
//! - for a root that does not exist, its nearest existing ancestor,
//!   non-recursively, waiting for the next missing segment. The watch advances one
//!   segment at a time until the root exists; deleting the root goes back to
//!   ancestor following;
//! - for a symlinked flat `.md` entry (links followed), the directory of what it
//!   points to, non-recursively, for that file (and the directory of each further
//!   link on the way): editing, replacing, deleting or recreating the target is a
//!   change of the entry;
//! - for a root whose path goes through symbolic links, the directory holding
//!   each of those links, non-recursively, for the link's name (see below);
//! - on Linux (inotify), each directory above a root or a followed ancestor, up
//!   to the filesystem's root, for its own move or removal only (nothing in it
//!   is reported). A moved directory keeps its inode and the watches below it
//!   follow it without a word; its own move says they watch the wrong place, and
//!   every watch below it is dropped and set up again where the paths lead now
//!   (`mv ~/.agents ~/.agents.old && mkdir -p ~/.agents/skills` is seen). The
//!   same holds for a root moved away: its bundles' watches go with it.
//!
//! That is at most one OS watch per root, bundle dir, followed ancestor,
//! directory holding a flat link's target and directory holding a root's
//! link, shared by every root that needs it (a project dir followed for both
//! `.dsh/skills` and `.agents/skills` is watched once). Shared roots (custom,
//! user, bundled) are watched once however many projects use them; project
//! roots live in a least-recently-observed set of `max_projects` projects.
//!
//! Events are classified on one background thread and coalesced: a change is
//! published (one `on_change` call) once events have been quiet for
//! [`COALESCE_QUIET`], or at the latest [`COALESCE_MAX`] after the first event of a
//! batch. When publications follow each other closely (a long burst such as a
//! slow `git checkout`), wider windows apply ([`STORM_QUIET`], [`STORM_MAX`]) so a
//! burst costs a handful of notifications, not one per file. A file written in
//! place is published when the writer closes it (inotify's close-after-write), or
//! after `stability_threshold` without further writes where no close signal
//! exists (polling, other platforms). A new file also waits for its close;
//! deletions, renames and new directories are published after the coalescing
//! window. Atomic saves (write elsewhere, rename over) publish at the rename. A
//! project evicted from the least-recently-observed set is published at once, by
//! the lookup that evicted it.
//!
//! Read-your-writes: [`SkillWatcher::catch_up`] lets a lookup apply, before
//! it answers, every change the watcher can know of, instead of waiting for
//! the coalescing window. On Linux (inotify) it reads the kernel's pending
//! events itself (a close-after-write among them ends its file's hold),
//! so every change completed before the call is applied; a file still open
//! for writing keeps its hold. Listeners still get one coalesced publication
//! per batch (through `on_notify`, with no second invalidation, when lookups
//! already applied every change of it).
//!
//! Nothing is lost between a scan and its watches: a root (or the ancestor
//! followed for a missing one) is watched before it is listed, and a change is
//! published only once the watches it leads to are in place, so whatever changes
//! meanwhile is either in what the next discovery reads or reported later.
//!
//! The default mode uses the platform's native events and does no periodic work
//! at all when idle. On Linux that is inotify driven directly: a watch is one
//! system call on the caller's thread (a large batch is spread over a few
//! threads), and reading a watched file raises no event. `use_polling` switches
//! to notify's `PollWatcher` (for network filesystems without events): every poll
//! interval it lists each watched directory and re-reads the files directly in it.
//!
//! A watch that cannot start (inotify watch limit, permission denied) is reported
//! once through `on_warning` with an actionable message, makes [`SkillWatcher::healthy`]
//! return `false` (the owner reports discovery as incomplete), and is retried on the
//! next observation and on a timer with exponential backoff (250 ms up to 30 s).
//! Health transitions noticed on the background thread are published as changes.
//!
//! Symlinks: a root, or the nearest existing ancestor of a missing one, is
//! watched through its real path (its events are still reported, and the
//! watch listed, under the configured path: discovery and diagnostics keep
//! it). With `follow_symlinks` on, a symlinked bundle dir is watched through
//! its link too, and the target of a symlinked flat entry is watched where it
//! lives. With it off, a root that is itself a symlink is watched on the
//! link's own path, and links below it are not followed: only the links
//! themselves are watched, so adding, removing or retargeting one in the root
//! is seen; edits of a linked bundle's `SKILL.md` or of a flat link's target
//! file are not. [`SkillWatcher::os_paths`] shows which path the OS watches.
//!
//! A root's path may itself go through symbolic links (the root a link, a
//! directory above it one, a chain of links): each such link is watched in
//! the directory holding it, for its name (and a dangling one where its
//! target would be), and on Linux each directory above where the links lead
//! for its own move. A link created, removed, repointed or renamed over, or
//! such a directory moved, is a change of the root as a whole: every watch
//! set through a path that leads elsewhere now is dropped and set up again
//! where the configured path leads (`ln -sfn ~/skills-v2 ~/.agents/skills`
//! is seen).
//!
//! Known limits: with the native watchers of other platforms, renaming an
//! *ancestor* of an existing root (or of where its links lead) without
//! touching the root itself may go unseen (a watch there may follow the
//! moved directory); a bundle's
//! `SKILL.md` that is itself a symlink is watched as an entry of its bundle
//! (replacing the link is seen, editing the file it points to is not).
//! Two watched paths that are the same directory through symlinks share one OS
//! watch: on Linux its events are reported under each path, elsewhere under one
//! of them.

mod backend;
mod engine;
#[cfg(target_os = "linux")]
mod inotify;
mod observer;
mod stats;
// The tests exercise inotify semantics (close-after-write, watch counts read
// from /proc), so they run on Linux.
#[cfg(all(test, target_os = "linux"))]
mod tests;

pub use observer::{watch_config, LocalWatcher};
pub use stats::{Stamp, WatchStats};

use engine::Inner;
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// Quiet time after the last event of a batch before the batch is published.
pub const COALESCE_QUIET: Duration = Duration::from_millis(8);
/// Longest delay between the first event of a batch and its publication while
/// events keep arriving.
pub const COALESCE_MAX: Duration = Duration::from_millis(50);
/// During a storm (at least [`STORM_FLUSHES`] publications within [`STORM_SPAN`],
/// e.g. a slow `git checkout`), the quiet time used instead of [`COALESCE_QUIET`].
pub const STORM_QUIET: Duration = Duration::from_millis(50);
/// During a storm, the longest delay used instead of [`COALESCE_MAX`].
pub const STORM_MAX: Duration = Duration::from_millis(250);
/// Publications that, within [`STORM_SPAN`], make a storm.
pub const STORM_FLUSHES: usize = 3;
/// See [`STORM_FLUSHES`].
pub const STORM_SPAN: Duration = Duration::from_millis(200);

/// Watcher settings (the `watch*` options of the local provider).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WatchConfig {
    /// Poll instead of using OS events (`watchUsePolling`, default false).
    pub use_polling: bool,
    /// Quiet window after which a file modified without a close signal is
    /// published (`watchStabilityThresholdMs`, default 200 ms).
    pub stability_threshold: Duration,
    /// Poll interval in polling mode (`watchPollIntervalMs`, default 100 ms).
    pub poll_interval: Duration,
    /// Number of project roots watched at once (`watchMaxProjects`, default 128).
    pub max_projects: NonZeroUsize,
    /// Watch symlinked bundle dirs through their link (`watchFollowSymlinks`,
    /// default true).
    pub follow_symlinks: bool,
}

impl Default for WatchConfig {
    fn default() -> Self {
        Self {
            use_polling: false,
            stability_threshold: Duration::from_millis(200),
            poll_interval: Duration::from_millis(100),
            max_projects: NonZeroUsize::new(128).unwrap_or(NonZeroUsize::MIN),
            follow_symlinks: true,
        }
    }
}

/// How a root's direct entries are interpreted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RootKind {
    /// Every direct entry may be a skill.
    Plain,
    /// The user DSH root: its `.system` child is not a skill and is ignored.
    UserDsh,
}

/// A skill root to watch.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RootSpec {
    /// Absolute path of the root (it may not exist).
    pub path: PathBuf,
    /// How its entries are interpreted.
    pub kind: RootKind,
}

impl RootSpec {
    /// A plain root.
    pub fn plain(path: impl Into<PathBuf>) -> Self {
        Self {
            path: path.into(),
            kind: RootKind::Plain,
        }
    }

    /// The user DSH root (ignores `.system`).
    pub fn user_dsh(path: impl Into<PathBuf>) -> Self {
        Self {
            path: path.into(),
            kind: RootKind::UserDsh,
        }
    }
}

/// Called (from the watcher thread) when the catalog may have changed.
pub type ChangeCallback = Arc<dyn Fn() + Send + Sync>;
/// Called (from the calling or the watcher thread) with an actionable warning.
pub type WarningCallback = Arc<dyn Fn(String) + Send + Sync>;

/// Watches skill roots; see the module docs.
///
/// Dropping the watcher closes it. The watcher holds only its callbacks: give it
/// callbacks that do not own the watcher's owner (e.g. a registry invalidator,
/// which holds a weak reference), so no reference cycle keeps things alive.
pub struct SkillWatcher {
    inner: Arc<Inner>,
    thread: Mutex<Option<JoinHandle<()>>>,
}

impl SkillWatcher {
    /// Create a watcher. Nothing is watched (and no OS resource is taken) until
    /// [`watch_shared`](Self::watch_shared) or
    /// [`observe_project`](Self::observe_project) is called.
    pub fn new(
        config: WatchConfig,
        on_change: ChangeCallback,
        on_warning: WarningCallback,
    ) -> Self {
        Self::build(config, on_change, None, on_warning)
    }

    /// [`new`](Self::new), with `on_notify` called instead of `on_change`
    /// for a published batch whose every change lookups already applied
    /// through [`catch_up`](Self::catch_up) (and invalidated for): a
    /// notification for listeners that needs no second invalidation.
    pub fn with_notify(
        config: WatchConfig,
        on_change: ChangeCallback,
        on_notify: ChangeCallback,
        on_warning: WarningCallback,
    ) -> Self {
        Self::build(config, on_change, Some(on_notify), on_warning)
    }

    fn build(
        config: WatchConfig,
        on_change: ChangeCallback,
        on_notify: Option<ChangeCallback>,
        on_warning: WarningCallback,
    ) -> Self {
        let (tx, rx) = mpsc::channel();
        let inner = Arc::new(Inner::new(config, on_change, on_notify, on_warning, tx));
        let thread = engine::spawn(Arc::clone(&inner), rx);
        Self {
            inner,
            thread: Mutex::new(thread),
        }
    }

    /// Set the shared roots (custom, user, bundled). Idempotent: only the
    /// difference with the current set is watched or unwatched.
    pub fn watch_shared(&self, roots: &[RootSpec]) {
        self.inner.observe(Some(roots), None);
    }

    /// Note a lookup in `project_root` whose project roots are `roots`. Marks the
    /// project most recently observed; a new project starts being watched before
    /// this returns (so a discovery that follows sees every later change), evicting
    /// the least recently observed one beyond `max_projects`. An eviction is
    /// published at once, before this returns and on the calling thread (one
    /// `on_change` call, never batched): catalogs cached for the evicted project
    /// would not be refreshed any more, so its next lookup lists and watches it
    /// again. Cheap when the project is already watched. Retries failed watches.
    pub fn observe_project(&self, project_root: &Path, roots: &[RootSpec]) {
        self.inner.observe(None, Some((project_root, roots)));
    }

    /// [`watch_shared`](Self::watch_shared) (when `shared` is given) and
    /// [`observe_project`](Self::observe_project) (when `project` is given) in
    /// one pass over the wanted watches: what a lookup calls.
    pub fn observe(&self, shared: Option<&[RootSpec]>, project: Option<(&Path, &[RootSpec])>) {
        self.inner.observe(shared, project);
    }

    /// Whether [`Self::observe`] with these roots would change nothing (it
    /// is healthy and watches exactly these), so observing them costs no
    /// scan and no watch.
    pub fn observes(&self, shared: &[RootSpec], project: Option<(&Path, &[RootSpec])>) -> bool {
        self.inner.observes(shared, project)
    }

    /// Read-your-writes: apply every change the watcher can know of now,
    /// without waiting for the coalescing window, and call `invalidate` when
    /// one of them has not been covered by an invalidation yet (the batch is
    /// still published when its window ends, for listeners: through
    /// `on_notify` when given and every change of it was applied so).
    /// On Linux (inotify, not polling) that includes every event the kernel
    /// holds: every change completed before this call (an entry created,
    /// removed or renamed, a file closed after writing) is applied before it
    /// returns; a file still open for writing keeps its hold. Elsewhere, only
    /// the events already delivered to the watcher. Returns whether
    /// `invalidate` was called. With nothing pending it costs one lock and
    /// one non-blocking read; `invalidate` runs on the calling thread, outside
    /// the watcher's locks.
    pub fn catch_up(&self, invalidate: &dyn Fn()) -> bool {
        self.inner.catch_up(invalidate)
    }

    /// What changed in the watched roots since the last call, once every
    /// change the watcher can know of now is applied (as
    /// [`catch_up`](Self::catch_up), without invalidating): the paths where
    /// changes were noted, or [`Changes::All`](crate::local::Changes::All)
    /// when they cannot be placed (see the local provider's `live.rs`).
    pub fn take_changes(&self) -> crate::local::Changes {
        self.inner.take_changes()
    }

    /// `false` while a wanted watch failed to start or failed later (or the
    /// watcher is closed): discovery should then be reported incomplete.
    pub fn healthy(&self) -> bool {
        self.inner.healthy()
    }

    /// Whether the watcher's rule counts a change at `path` (tests): `path`
    /// is a watched root (existing or not) or one of its ancestors, a direct
    /// entry of a root (except `.system` in the user DSH root), or
    /// `<root>/<bundle>/SKILL.md`. Purely lexical, no I/O. (Which first-party
    /// writes invalidate is [`LocalProvider::could_affect`]'s narrower rule.)
    ///
    /// [`LocalProvider::could_affect`]: crate::local::LocalProvider::could_affect
    #[cfg(test)]
    pub(crate) fn could_affect(&self, path: &Path) -> bool {
        self.inner.could_affect(path)
    }

    /// Counts and moments of changes and invalidations (diagnostics).
    pub fn stats(&self) -> WatchStats {
        self.inner.stats()
    }

    /// Number of OS watches currently held.
    pub fn watch_count(&self) -> usize {
        self.inner.watched_paths().len()
    }

    /// The directories currently watched, sorted, each with the path the OS
    /// watches it through (a root's real path; see the module docs on
    /// symlinks). Diagnostics.
    pub fn os_paths(&self) -> Vec<(PathBuf, PathBuf)> {
        self.inner.os_paths()
    }

    /// The directories currently watched, sorted (for diagnostics).
    pub fn watched_paths(&self) -> Vec<PathBuf> {
        self.inner.watched_paths()
    }

    /// Stop watching: every OS watch is removed before this returns, the
    /// background thread stops, and no callback runs afterwards (a callback in
    /// flight on another thread is waited for). Idempotent; safe to call from a
    /// callback.
    pub fn close(&self) {
        if !self.inner.close() {
            return;
        }
        let handle = self.thread.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(handle) = handle {
            if handle.thread().id() != std::thread::current().id() {
                let _ = handle.join();
            }
        }
    }

    /// Whether [`close`](Self::close) was called.
    pub fn is_closed(&self) -> bool {
        self.inner.is_closed()
    }
}

impl Drop for SkillWatcher {
    fn drop(&mut self) {
        self.close();
    }
}

impl std::fmt::Debug for SkillWatcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SkillWatcher")
            .field("watches", &self.watch_count())
            .field("healthy", &self.healthy())
            .field("closed", &self.is_closed())
            .finish()
    }
}
