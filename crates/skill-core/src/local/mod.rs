//! The `local` provider: skill roots on disk, one-level discovery, YAML
//! frontmatter, and diagnostics.
//!
//! Roots, in rank order (lower wins): `<project>/.dsh/skills` (100,
//! `project-dsh`), `<project>/.agents/skills` (200, `project-agents`), each
//! custom directory (300, `custom`), `<dshHome>/skills` (400, `user-dsh`, its
//! `.system` child skipped), `<agentsHome>/skills` (500, `user-agents`) and the
//! bundled directory (600, `bundled`, only when configured). `<project>` is the
//! nearest ancestor of `cwd` holding `.git`, else `cwd`; no `cwd`, no project
//! roots. Opt-in roots (nested project roots, the `claude` and `codex`
//! compatibility roots) and their ranks are listed in [`roots`]; without them
//! nothing changes.
//!
//! A missing root is empty. An unexpected I/O failure makes the observation
//! incomplete (never cacheable) while readable skills stay listed. Files that
//! are not skills are skipped with a warning (once per distinct problem, until
//! it goes away); [`LocalProvider::diagnose`] explains every file considered.
//! Parsed files are cached by path and file stamp ([`cache`]); `get()` only
//! loads skill files of a configured root ([`confine`]).

pub mod cache;
mod collected;
mod config;
pub mod confine;
mod definitions;
mod discover;
pub mod fs;
mod live;
mod lookups;
pub mod order;
mod report;
pub mod roots;
pub mod service;
mod warn;
mod workers;

pub(crate) use config::make_absolute;
pub use config::{
    ConfigError, LocalConfig, LocalOptions, WatchConfig, DEFAULT_MAX_SKILL_FILE_BYTES,
    PROVIDER_NAME,
};
pub(crate) use discover::cannot_be_named;
pub use discover::{parse_skill_text, read_skill, FileOutcome, Layout, ReadOutcome, RootStatus};
pub use live::Changes;
pub use report::{Diagnosis, Discovery, FileReport, RootReport, WinnerRef};
pub use roots::{Project, RootSpec, Source};
pub(crate) use workers::parallel_map;

use crate::frontmatter::ParsedSkill;
use crate::model::{Candidate, Locator, Observation, ResourceBase, SkillDefinition, SkillSummary};
use crate::provider::{Invalidate, LookupContext, NativeProvider, ProviderError};
use cache::ParseCache;
use collected::Collected;
use confine::Placement;
use fs::{SkillFs, StdFs};
use live::Live;
use lookups::Lookups;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use warn::WarnOnce;

/// The seam a root watcher plugs into. The provider tells it, on every
/// discovery, which project and roots that lookup used.
///
/// Install one with [`LocalProvider::set_observer`] (typically when
/// [`WatchConfig::enabled`] is set). A watcher implementation splits `roots` by
/// [`Source::is_project`]: the others (custom, user, compatibility, bundled)
/// are the same for every lookup and are watched once; the project roots
/// belong to `project` (the lookup's [`Project::scope`]: its project root, or
/// with nested roots the lookup directory) and go into its bounded set of
/// projects. Roots whose source is [`Source::UserDsh`] ignore their `.system`
/// child. The invalidator passed to [`attach`](Self::attach) is the
/// registration's: call it when the catalog may have changed.
/// [`observed`](Self::observed) runs before the roots are read, so a change
/// made during the scan is seen.
pub trait RootObserver: Send + Sync {
    /// The lookup is about to scan `roots` (project roots included when
    /// `project` is set: the scope that keys them). Returns whether watching
    /// is healthy; `false` makes the observation incomplete.
    fn observed(&self, project: Option<&Path>, roots: &[RootSpec]) -> bool;

    /// Whether [`observed`](Self::observed) with these roots would cost
    /// nothing (no scan, no watch set up) and report healthy. Default: no.
    fn observing(&self, _project: Option<&Path>, _roots: &[RootSpec]) -> bool {
        false
    }

    /// Read-your-writes, before a lookup answers (cache hits included):
    /// apply every change the watcher can know of now and invalidate the
    /// registration (silently) if one was not covered yet.
    fn catch_up(&self) {}

    /// What may have changed in the watched roots since the last call, after
    /// applying every change the watcher can know of now (as
    /// [`catch_up`](Self::catch_up)). Called by a discovery after
    /// [`observed`](Self::observed) returned healthy and before the roots are
    /// read: the provider then reads again only what changed, and keeps the
    /// rest of its last listing (see `live.rs`). The default, [`Changes::All`],
    /// keeps nothing.
    fn take_changes(&self) -> Changes {
        Changes::All
    }

    /// Warnings raised since the last call (e.g. a watch that could not
    /// start); the next discovery reports them.
    fn take_warnings(&self) -> Vec<String> {
        Vec::new()
    }

    /// The provider's registration changed (`None` when unregistered).
    fn attach(&self, _invalidator: Option<Arc<dyn Invalidate>>) {}

    /// Stop watching for good.
    fn close(&self) {}
}

/// Why [`LocalProvider::load`] found nothing usable.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LoadError {
    /// The file exists but is no longer a valid skill.
    #[error("skill file {path} skipped: {reason}")]
    Invalid {
        /// Skill file.
        path: String,
        /// Why.
        reason: String,
    },
    /// Unexpected I/O failure.
    #[error("cannot load skill file {path}: {reason}")]
    Io {
        /// Skill file.
        path: String,
        /// Why.
        reason: String,
    },
    /// The candidate has no path.
    #[error("candidate \"{0}\" has no path")]
    NoPath(String),
    /// The path is not a skill file of a configured root.
    #[error(
        "refusing to load {0}: not a skill file of a configured skill root \
         (<root>/<name>.md or <root>/<dir>/SKILL.md)"
    )]
    Outside(String),
}

/// The native memory a [`LocalProvider`] holds, from [`LocalProvider::memory`]
/// (estimates: what the data structures hold, not what the allocator keeps).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MemoryUse {
    /// Files whose parse is cached.
    pub parse_cache_files: usize,
    /// Bytes the parse cache accounts for.
    pub parse_cache_bytes: usize,
    /// Scopes (roots) whose logged warnings are remembered.
    pub warned: usize,
    /// Everything: the provider, its configuration, the bounded record of
    /// recent lookups, the parse cache, the remembered warnings, and the
    /// listings and definitions kept for watched roots.
    pub total_bytes: usize,
}

/// The local filesystem skill provider.
pub struct LocalProvider {
    config: LocalConfig,
    fs: Arc<dyn SkillFs>,
    observer: RwLock<Option<Arc<dyn RootObserver>>>,
    invalidator: Mutex<Option<Arc<dyn Invalidate>>>,
    closed: AtomicBool,
    cache: ParseCache,
    lookups: Lookups,
    warned: WarnOnce,
    live: Live,
    /// Skill entries first-party writes touched since the last discovery
    /// (`None`: too many to keep, read everything again).
    mutated: Mutex<Option<Vec<PathBuf>>>,
    /// Keep the listings of watched roots between discoveries (see
    /// [`Self::keep_listings`]); on by default.
    keep: AtomicBool,
}

impl std::fmt::Debug for LocalProvider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalProvider")
            .field("config", &self.config)
            .field("closed", &self.is_closed())
            .finish_non_exhaustive()
    }
}

fn path_string(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

impl LocalProvider {
    /// A provider reading the process's filesystem.
    pub fn new(config: LocalConfig) -> Self {
        Self::with_fs(config, Arc::new(StdFs))
    }

    /// A provider reading through `fs`.
    pub fn with_fs(config: LocalConfig, fs: Arc<dyn SkillFs>) -> Self {
        let lookups = Lookups::new(config.watch.max_projects);
        // The shared roots and a few roots per watched project.
        let live = Live::new(
            config
                .watch
                .max_projects
                .saturating_mul(8)
                .saturating_add(64),
        );
        Self {
            config,
            fs,
            observer: RwLock::new(None),
            invalidator: Mutex::new(None),
            closed: AtomicBool::new(false),
            cache: ParseCache::default(),
            lookups,
            warned: WarnOnce::default(),
            live,
            mutated: Mutex::new(Some(Vec::new())),
            keep: AtomicBool::new(true),
        }
    }

    /// Keep each watched root's last listing and, after a change, read again
    /// only the entries the watcher reported (see `live.rs`), and hand out a
    /// definition loaded before while nothing noted leads to its file (see
    /// `definitions.rs`); on by default. Off, every discovery lists every
    /// root and every load reads its file (the results are the same: a
    /// randomized test and the soak compare them with a fresh provider's).
    /// Only a healthy watcher on Linux vouches for a kept listing.
    pub fn keep_listings(&self, on: bool) {
        self.keep.store(on, Ordering::Release);
        if !on {
            self.live.clear();
        }
    }

    /// The parse cache (statistics).
    pub fn parse_cache(&self) -> &ParseCache {
        &self.cache
    }

    /// The resolved configuration.
    pub fn config(&self) -> &LocalConfig {
        &self.config
    }

    /// The project root of `cwd` (`None` without a `cwd`).
    pub fn project_root(&self, cwd: Option<&Path>) -> Option<PathBuf> {
        cwd.map(|cwd| roots::project_root(self.fs.as_ref(), &roots::normalize(cwd)))
    }

    /// The project of a lookup from `cwd`: its project root and the scope
    /// of its project roots. `None` without a `cwd`, or
    /// when the configuration has no project roots (then no `.git` is probed).
    pub fn project(&self, cwd: Option<&Path>) -> Option<Project> {
        if !self.config.has_project_roots() {
            return None;
        }
        let cwd = roots::normalize(cwd?);
        let root = roots::project_root(self.fs.as_ref(), &cwd);
        Some(Project::new(&self.config, root, Some(&cwd)))
    }

    /// The project and the roots scanned for `cwd`, in rank order.
    pub fn roots(&self, cwd: Option<&Path>) -> (Option<Project>, Vec<RootSpec>) {
        let project = self.project(cwd);
        let roots = roots::roots_for(&self.config, project.as_ref());
        (project, roots)
    }

    /// Install (or remove) the root watcher. It is attached to the current
    /// registration, if any.
    pub fn set_observer(&self, observer: Option<Arc<dyn RootObserver>>) {
        let invalidator = self.invalidator();
        if let Some(o) = &observer {
            o.attach(invalidator);
        }
        let old = std::mem::replace(
            &mut *self
                .observer
                .write()
                .unwrap_or_else(PoisonError::into_inner),
            observer,
        );
        if let Some(old) = old {
            old.close();
        }
    }

    /// The installed root watcher.
    pub fn observer(&self) -> Option<Arc<dyn RootObserver>> {
        self.observer
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The invalidator of the current registration, if registered.
    pub fn invalidator(&self) -> Option<Arc<dyn Invalidate>> {
        self.invalidator
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// A first-party write or edit touched `path`: invalidate synchronously
    /// when it can change the catalog ([`could_affect`](Self::could_affect)),
    /// watching or not. Returns whether it invalidated (`false` when
    /// unregistered or closed).
    pub fn observe_host_mutation(&self, path: &Path) -> bool {
        self.host_mutation(path, true)
    }

    /// [`Self::observe_host_mutation`] without notifying the registry's
    /// listeners: for a caller that notifies them itself, synchronously.
    pub fn observe_host_mutation_silently(&self, path: &Path) -> bool {
        self.host_mutation(path, false)
    }

    fn host_mutation(&self, path: &Path, notify: bool) -> bool {
        if self.is_closed() || !self.could_affect(path) {
            return false;
        }
        // The watcher may not have seen it yet (a file still open for
        // writing): the next discovery reads it again all the same, and a
        // definition loaded from it is not handed out again.
        self.live.forget_definitions(vec![roots::normalize(path)]);
        {
            let mut mutated = self.mutated.lock().unwrap_or_else(PoisonError::into_inner);
            match mutated.as_mut() {
                Some(paths) if paths.len() < 4096 => paths.push(roots::normalize(path)),
                _ => *mutated = None,
            }
        }
        self.invalidator().is_some_and(|invalidator| {
            if notify {
                invalidator.invalidate()
            } else {
                invalidator.invalidate_silently()
            }
        })
    }

    /// Whether a first-party write at `path` could change a catalog of this
    /// provider: `path` is a skill entry (see [`roots::is_entry`]: a flat
    /// `<root>/<name>.md` or a bundle's `<root>/<dir>/SKILL.md`) of a
    /// configured root (custom, user, bundled, compatibility) or of a project
    /// root (nested ones included) a recent lookup used. Purely lexical.
    pub fn could_affect(&self, path: &Path) -> bool {
        let path = roots::normalize(path);
        self.known_roots()
            .iter()
            .any(|root| roots::is_entry(&roots::normalize(&root.path), root.skips_system(), &path))
    }

    /// The configured roots and the project roots of recent lookups.
    fn known_roots(&self) -> Vec<RootSpec> {
        let mut known = roots::roots_for(&self.config, None);
        if self.config.has_project_roots() {
            for project in self.lookups.projects() {
                known.extend(roots::project_roots(&self.config, &project));
            }
        }
        known
    }

    /// Where the skill file `path` sits among the configured roots, the
    /// project roots of recent lookups and those of `project`.
    pub fn confine(&self, path: &Path, project: Option<&Project>) -> Result<Placement, LoadError> {
        let normalized = roots::normalize(path);
        let mut known = self.known_roots();
        if let Some(project) = project {
            known.extend(roots::project_roots(&self.config, project));
        }
        confine::place(&known, &normalized).ok_or_else(|| LoadError::Outside(path_string(path)))
    }

    /// [`confine`](Self::confine) for a lookup from `cwd` whose project root
    /// is `root` (found through a filesystem service).
    pub fn confine_in(
        &self,
        path: &Path,
        root: Option<&Path>,
        cwd: Option<&Path>,
    ) -> Result<Placement, LoadError> {
        let project = root
            .filter(|_| self.config.has_project_roots())
            .map(|root| {
                Project::new(
                    &self.config,
                    make_absolute(root),
                    cwd.map(roots::normalize).as_deref(),
                )
            });
        self.confine(path, project.as_ref())
    }

    /// [`confine`](Self::confine), probing the project root of `cwd` only
    /// when the known roots do not hold `path`.
    fn confine_for(&self, path: &Path, cwd: Option<&Path>) -> Result<Placement, LoadError> {
        match self.confine(path, None) {
            Err(LoadError::Outside(_)) if cwd.is_some() => {
                let project = self.project(cwd);
                self.confine(path, project.as_ref())
            }
            result => result,
        }
    }

    /// Before a lookup for `cwd` consults the registry's catalog cache: the
    /// watcher catches up first (read-your-writes, see
    /// [`RootObserver::catch_up`]: every change it can know of now is applied
    /// and invalidates, whatever project it is in). Then, when the project
    /// root of `cwd` is no longer the one its last discovery used (a `.git`
    /// was created between `cwd` and it, or removed from it), invalidate. One
    /// `stat` per directory from `cwd` up to the project root.
    pub fn revalidate(&self, cwd: Option<&Path>) {
        if let Some(observer) = self.observer() {
            observer.catch_up();
        }
        let Some(cwd) = cwd else { return };
        let cwd = roots::normalize(cwd);
        let Some(known) = self.lookups.project_of(&cwd) else {
            return;
        };
        let now = roots::project_root(self.fs.as_ref(), &cwd);
        if now == known {
            return;
        }
        tracing::debug!(cwd = %cwd.display(), from = %known.display(), to = %now.display(), "project root moved");
        let project = Project::new(&self.config, now, Some(&cwd));
        self.lookups.record(Some(&cwd), &project);
        if let Some(invalidator) = self.invalidator() {
            invalidator.invalidate();
        }
    }

    /// Close the watcher and release what only a live, watched provider
    /// needs: the watcher itself, the parse cache and the record of warnings
    /// already logged. Discovery and loading keep working (unwatched); the
    /// parse cache fills again if they are used. Idempotent.
    pub fn close(&self) {
        if self.closed.swap(true, Ordering::AcqRel) {
            return;
        }
        let observer = self
            .observer
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(o) = observer {
            o.close();
        }
        self.cache.clear();
        self.warned.clear();
        self.live.clear();
    }

    /// The native memory this provider holds, estimated (see [`MemoryUse`]).
    pub fn memory(&self) -> MemoryUse {
        let (parse_cache_files, parse_cache_bytes) = self.cache.size();
        let (warned, warned_bytes) = self.warned.size();
        let (_, live_bytes) = self.live.size();
        let (_, definition_bytes) = self.live.definitions_size();
        let config = &self.config;
        let paths = [&config.dsh_home, &config.agents_home, &config.claude_home]
            .into_iter()
            .chain([&config.codex_home, &config.bundled_skill_dir])
            .flatten()
            .chain(&config.custom_skill_dirs)
            .map(|p| p.as_os_str().len() + 32)
            .sum::<usize>();
        MemoryUse {
            parse_cache_files,
            parse_cache_bytes,
            warned,
            total_bytes: std::mem::size_of::<Self>()
                + paths
                + config.provider_name.len()
                + self.lookups.size()
                + parse_cache_bytes
                + warned_bytes
                + live_bytes
                + definition_bytes,
        }
    }

    /// Whether [`close`](Self::close) was called.
    pub fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Acquire)
    }

    /// Tell the watcher which roots a lookup is about to read; returns whether
    /// watching is healthy. Watch before reading, so a change made during the
    /// scan is seen. Its project roots are keyed by the project's scope.
    fn observe_roots(&self, project: Option<&Project>, roots: &[RootSpec]) -> bool {
        // A root that cannot even be named is left out of discovery (see
        // `RootStatus::Unusable`): there is nothing to watch either.
        let usable: Vec<RootSpec>;
        let roots = if roots.iter().any(|r| roots::unnameable(&r.path)) {
            usable = roots
                .iter()
                .filter(|r| !roots::unnameable(&r.path))
                .cloned()
                .collect();
            &usable[..]
        } else {
            roots
        };
        match self.observer() {
            // Closed meanwhile (`close` marks the provider closed before it
            // closes the watcher): not watching is not a watching problem.
            Some(o) if !self.is_closed() => {
                o.observed(project.map(|p| p.scope.as_path()), roots) || self.is_closed()
            }
            _ => true,
        }
    }

    fn run_scan(&self, ctx: &LookupContext) -> (Option<PathBuf>, Collected, bool) {
        self.run_scan_within(ctx, None).unwrap_or_else(|| {
            let empty = Collected {
                roots: Vec::new(),
                files: Vec::new(),
                complete: false,
            };
            (None, empty, false)
        })
    }

    /// [`Self::run_scan`], or with a `budget`, only when it is cheap (see
    /// [`Self::discover_kept`]).
    fn run_scan_within(
        &self,
        ctx: &LookupContext,
        budget: Option<usize>,
    ) -> Option<(Option<PathBuf>, Collected, bool)> {
        let cwd = ctx.cwd.as_deref().map(roots::normalize);
        let (project, roots) = self.roots(cwd.as_deref());
        if budget.is_some() {
            let observer = self.observer()?;
            let scope = project.as_ref().map(|p| p.scope.as_path());
            if !self.vouching()
                || roots.iter().any(|r| roots::unnameable(&r.path))
                || !observer.observing(scope, &roots)
            {
                return None;
            }
        }
        if let Some(project) = &project {
            self.lookups.record(cwd.as_deref(), project);
        }
        let healthy = self.observe_roots(project.as_ref(), &roots);
        // Only a healthy watcher vouches for what it did not report.
        let changes = || {
            let mutated = self
                .mutated
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .replace(Vec::new());
            match (self.observer(), mutated) {
                (Some(o), mutated)
                    if healthy && !self.is_closed() && self.keep.load(Ordering::Acquire) =>
                {
                    match (o.take_changes(), mutated) {
                        (Changes::Paths(mut paths), Some(more)) => {
                            paths.extend(more);
                            Some(Changes::Paths(paths))
                        }
                        _ => Some(Changes::All),
                    }
                }
                _ => None,
            }
        };
        let collected = self.live.collect_within(
            self.fs.as_ref(),
            &self.config.provider_name,
            &roots,
            self.config.max_skill_file_bytes,
            &self.cache,
            &ctx.cancel,
            changes,
            budget,
        )?;
        Some((project.map(|p| p.root), collected, healthy))
    }

    /// Discover candidates for a lookup.
    pub fn discover(&self, ctx: &LookupContext) -> Discovery {
        let (_, scan, healthy) = self.run_scan(ctx);
        self.report(scan, healthy, ctx.cancel.is_cancelled())
    }

    /// [`Self::discover`] when it is cheap enough to run right here: the
    /// watcher watches this lookup's roots already and vouches for them,
    /// every root's listing is kept, and at most `budget` entries are to be
    /// read again (a few small reads and one `stat` per root). `None`
    /// otherwise, with nothing read: what the watcher reported meanwhile is
    /// noted for the next discovery.
    pub fn discover_kept(&self, ctx: &LookupContext, budget: usize) -> Option<Discovery> {
        let (_, scan, healthy) = self.run_scan_within(ctx, Some(budget))?;
        Some(self.report(scan, healthy, ctx.cancel.is_cancelled()))
    }

    /// Explain every root and file considered for a lookup.
    pub fn diagnose(&self, ctx: &LookupContext) -> Diagnosis {
        let (project, scan, healthy) = self.run_scan(ctx);
        self.explain(ctx.cwd.as_deref(), project.as_deref(), scan, healthy)
    }

    /// Re-read and re-parse the file behind a candidate this provider listed
    /// (a cached parse is used only for a file that provably did not change).
    /// Only skill files of a configured root, of a recent lookup's project or
    /// of `cwd`'s project load ([`LoadError::Outside`] otherwise). `Ok(None)`:
    /// the file is gone.
    pub fn load(
        &self,
        candidate: &Candidate,
        cwd: Option<&Path>,
    ) -> Result<Option<SkillDefinition>, LoadError> {
        let path = candidate
            .path
            .as_deref()
            .ok_or_else(|| LoadError::NoPath(candidate.summary.name.clone()))?;
        let placement = self.confine_for(Path::new(path), cwd)?;
        // Read after this number: kept only if nothing was noted meanwhile.
        let kept = self
            .vouching()
            .then(|| (self.live.definition_generation(), placement.clone()));
        let outcome = self.cache.load(
            self.fs.as_ref(),
            &placement.path,
            self.config.max_skill_file_bytes,
        );
        let loaded = definition(&self.config.provider_name, placement, outcome)?;
        if let (Some((generation, placement)), Some(d)) = (kept, &loaded) {
            if self.watched_in_place(&placement) {
                self.live.keep_definition(generation, &placement, d);
            }
        }
        Ok(loaded)
    }

    /// Whether the watcher sees every change of the skill file at
    /// `placement`: a plain file in a plain bundle directory (or directly in
    /// its root). A file reached through a link of its own (a linked flat
    /// skill with links not followed, a `SKILL.md` that is a link), or
    /// through a linked bundle directory, may change where nothing watched
    /// reports it.
    fn watched_in_place(&self, placement: &Placement) -> bool {
        let plain = |path: &Path, kind: fs::EntryKind| matches!(self.fs.entry_kind(path), Ok(Some(k)) if k == kind);
        plain(&placement.path, fs::EntryKind::File)
            && (placement.layout == discover::Layout::Flat
                || plain(&placement.base, fs::EntryKind::Dir))
    }

    /// The definition [`Self::load`] would return, when one it loaded before
    /// is still what the file holds: the watcher vouches for the file's root
    /// (its listing is kept) and has noted nothing leading to it since (see
    /// `definitions.rs`). No file is opened; `None` means "load it". The
    /// candidate is confined as for [`Self::load`].
    pub fn load_kept(
        &self,
        candidate: &Candidate,
        cwd: Option<&Path>,
    ) -> Option<Arc<SkillDefinition>> {
        if !self.vouching() {
            return None;
        }
        let path = candidate.path.as_deref()?;
        let placement = self.confine_for(Path::new(path), cwd).ok()?;
        let observer = self.observer()?;
        self.live.definition(&placement, || {
            self.vouching().then(|| observer.take_changes())
        })
    }

    /// Whether a watcher may vouch for what it did not report: installed,
    /// listings kept, provider open.
    fn vouching(&self) -> bool {
        !self.is_closed()
            && self.keep.load(Ordering::Acquire)
            && self
                .observer
                .read()
                .unwrap_or_else(PoisonError::into_inner)
                .is_some()
    }
}

/// The definition of a skill file at `placement` from a fresh read of it, for
/// the provider named `provider`.
fn definition(
    provider: &str,
    placement: Placement,
    outcome: ReadOutcome,
) -> Result<Option<SkillDefinition>, LoadError> {
    let path = path_string(&placement.path);
    let parsed = match outcome {
        ReadOutcome::Parsed(p) => p,
        ReadOutcome::Gone => return Ok(None),
        ReadOutcome::Invalid(reason) => return Err(LoadError::Invalid { path, reason }),
        ReadOutcome::Failed(reason) => return Err(LoadError::Io { path, reason }),
    };
    let (summary, body, metadata) = summarize(parsed, provider, placement.source, &placement.base);
    Ok(Some(SkillDefinition {
        summary,
        content: body,
        path: Some(path),
        metadata,
    }))
}

type Metadata = Option<serde_json::Map<String, serde_json::Value>>;

/// The summary of a skill file of the provider named `provider`, parsed in a
/// root of `source`, with resource base `base`, and the rest of the parse: its
/// body and metadata.
fn summarize(
    parsed: ParsedSkill,
    provider: &str,
    source: Source,
    base: &Path,
) -> (SkillSummary, String, Metadata) {
    let summary = SkillSummary {
        name: parsed.name,
        description: parsed.description,
        when_to_use: parsed.when_to_use,
        invocation: parsed.invocation,
        source: source.as_str().to_string(),
        provider: provider.to_string(),
        resource_base: Some(ResourceBase::Directory {
            path: path_string(base),
        }),
    };
    (summary, parsed.body, parsed.metadata)
}

pub(super) fn candidate(
    provider: &str,
    root: &RootSpec,
    path: &Path,
    base: &Path,
    parsed: ParsedSkill,
) -> Candidate {
    let fingerprint = parsed.fingerprint;
    let (summary, body, metadata) = summarize(parsed, provider, root.source, base);
    let lead = crate::model::lead_of(&body);
    Candidate {
        summary,
        rank: root.rank(),
        path: Some(path_string(path)),
        metadata,
        locator: Locator::None,
        fingerprint,
        lead: (!lead.is_empty()).then(|| lead.into()),
    }
}

impl NativeProvider for LocalProvider {
    fn name(&self) -> &str {
        &self.config.provider_name
    }

    fn list(&self, ctx: &LookupContext) -> (Observation, Vec<String>) {
        let d = self.discover(ctx);
        (d.observation, d.warnings)
    }

    fn list_kept(&self, ctx: &LookupContext) -> Option<(Observation, Vec<String>)> {
        // A handful of small reads: the lookup right after an editor saved
        // a skill, say.
        const BUDGET: usize = 4;
        let d = self.discover_kept(ctx, BUDGET)?;
        Some((d.observation, d.warnings))
    }

    fn get(
        &self,
        candidate: &Candidate,
        ctx: &LookupContext,
    ) -> Result<Option<SkillDefinition>, ProviderError> {
        let (result, warning) = self.get_explained(candidate, ctx);
        if let Some(warning) = warning {
            tracing::warn!("{warning}");
        }
        result
    }

    fn get_explained(
        &self,
        candidate: &Candidate,
        ctx: &LookupContext,
    ) -> (
        Result<Option<SkillDefinition>, ProviderError>,
        Option<String>,
    ) {
        match self.load(candidate, ctx.cwd.as_deref()) {
            Ok(d) => (Ok(d), None),
            Err(LoadError::Invalid { path, reason }) => (
                Ok(None),
                Some(format!("skill file {path} skipped: {reason}")),
            ),
            Err(e) => (Err(ProviderError(e.to_string())), None),
        }
    }

    fn get_kept(&self, candidate: &Candidate, ctx: &LookupContext) -> Option<Arc<SkillDefinition>> {
        self.load_kept(candidate, ctx.cwd.as_deref())
    }

    fn revalidate(&self, cwd: Option<&Path>) {
        LocalProvider::revalidate(self, cwd);
    }

    fn is_disposed(&self) -> bool {
        self.is_closed()
    }

    fn attach(&self, invalidator: Option<Arc<dyn Invalidate>>) {
        *self
            .invalidator
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = invalidator.clone();
        if let Some(o) = self.observer() {
            o.attach(invalidator);
        }
    }
}

#[cfg(test)]
mod tests;
