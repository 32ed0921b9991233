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
pub mod confine;
mod discover;
pub mod fs;
mod lookups;
pub mod order;
pub mod roots;
pub mod service;
mod warn;

pub(crate) use discover::parallel_map;
pub use discover::{parse_skill_text, read_skill, FileOutcome, Layout, ReadOutcome, RootStatus};
pub use roots::{Project, RootSpec, Source};

use crate::frontmatter::ParsedSkill;
use crate::model::{Candidate, Locator, Observation, ResourceBase, SkillDefinition, SkillSummary};
use crate::provider::{Invalidate, LookupContext, NativeProvider, ProviderError};
use cache::ParseCache;
use confine::Placement;
use discover::Scan;
use fs::{SkillFs, StdFs};
use lookups::Lookups;
use serde::Serialize;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use warn::{Scope, WarnOnce};

/// Default provider name (and candidate `provider` field).
pub const PROVIDER_NAME: &str = "local";
/// The provider name the registry keeps for its runtime skills.
const RESERVED_PROVIDER_NAME: &str = "runtime";
/// Default `maxSkillFileBytes` (1 MiB).
pub const DEFAULT_MAX_SKILL_FILE_BYTES: u64 = 1024 * 1024;

/// Watcher tunables. Validated here; used by the watcher.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WatchConfig {
    /// Watch roots at all (`watch`, default true).
    pub enabled: bool,
    /// Poll instead of native events (`watchUsePolling`, default false).
    pub use_polling: bool,
    /// Quiet period before a written file counts (`watchStabilityThresholdMs`, 200).
    pub stability_threshold_ms: u64,
    /// Polling interval (`watchPollIntervalMs`, 100).
    pub poll_interval_ms: u64,
    /// Project watchers kept (`watchMaxProjects`, 128).
    pub max_projects: usize,
    /// Follow symbolic links (`watchFollowSymlinks`, default true).
    pub follow_symlinks: bool,
}

impl Default for WatchConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            use_polling: false,
            stability_threshold_ms: 200,
            poll_interval_ms: 100,
            max_projects: 128,
            follow_symlinks: true,
        }
    }
}

/// Resolved configuration of a [`LocalProvider`].
#[derive(Clone, Debug, PartialEq)]
pub struct LocalConfig {
    /// Provider name (`providerName`, default `local`): the registry's name
    /// for the provider and every candidate's `provider` field.
    pub provider_name: String,
    /// Scan the default roots (`includeDefaultRoots`, default true): the
    /// project's `.dsh/skills` and `.agents/skills` and the user roots.
    pub include_default_roots: bool,
    /// `nestedRoots` (default false): the project roots of every directory
    /// from `cwd` up to the project root.
    pub nested_roots: bool,
    /// `dshHome` (its `skills` child is the `user-dsh` root); `None` without
    /// the default roots.
    pub dsh_home: Option<PathBuf>,
    /// `agentsHome` (its `skills` child is the `user-agents` root); `None`
    /// without the default roots.
    pub agents_home: Option<PathBuf>,
    /// The Claude home when `compatRoots` has `claude` (its `skills` child is
    /// the `user-claude` root; the project's `.claude/skills` is scanned too).
    pub claude_home: Option<PathBuf>,
    /// The Codex home when `compatRoots` has `codex` (its `skills` child is
    /// the `user-codex` root).
    pub codex_home: Option<PathBuf>,
    /// `customSkillDirs`, in order.
    pub custom_skill_dirs: Vec<PathBuf>,
    /// `bundledSkillDir`, when configured.
    pub bundled_skill_dir: Option<PathBuf>,
    /// Larger skill files are skipped (`maxSkillFileBytes`).
    pub max_skill_file_bytes: u64,
    /// Watcher tunables.
    pub watch: WatchConfig,
}

/// Configuration as the host passes it (every field optional; numbers as JS
/// numbers so they can be validated).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LocalOptions {
    /// `providerName`; default `local`.
    pub provider_name: Option<String>,
    /// `includeDefaultRoots`; default true.
    pub include_default_roots: Option<bool>,
    /// `nestedRoots`; default false.
    pub nested_roots: Option<bool>,
    /// `compatRoots` (`claude`, `codex`); default none.
    pub compat_roots: Option<Vec<String>>,
    /// The Claude home for `compatRoots: ['claude']`; default `~/.claude`.
    pub claude_home: Option<String>,
    /// The Codex home for `compatRoots: ['codex']`; default `$CODEX_HOME`,
    /// else `~/.codex`.
    pub codex_home: Option<String>,
    /// `dshHome`; default `$DSH_HOME`, else `~/.dsh`.
    pub dsh_home: Option<String>,
    /// `agentsHome`; default `$DSH_AGENTS_HOME`, else `~/.agents`.
    pub agents_home: Option<String>,
    /// `customSkillDirs`; default none.
    pub custom_skill_dirs: Option<Vec<String>>,
    /// `bundledSkillDir`; default `$DSH_BUNDLED_SKILL_DIR`, else none.
    pub bundled_skill_dir: Option<String>,
    /// `maxSkillFileBytes`; default 1 MiB.
    pub max_skill_file_bytes: Option<f64>,
    /// `watch`.
    pub watch: Option<bool>,
    /// `watchUsePolling`.
    pub watch_use_polling: Option<bool>,
    /// `watchStabilityThresholdMs`.
    pub watch_stability_threshold_ms: Option<f64>,
    /// `watchPollIntervalMs`.
    pub watch_poll_interval_ms: Option<f64>,
    /// `watchMaxProjects`.
    pub watch_max_projects: Option<f64>,
    /// `watchFollowSymlinks`.
    pub watch_follow_symlinks: Option<bool>,
}

/// Invalid configuration.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// A numeric option is not a positive integer.
    #[error("{field} must be a positive integer (got {value})")]
    NotPositiveInteger {
        /// Option name.
        field: &'static str,
        /// The value as given.
        value: String,
    },
    /// A path option is an empty string.
    #[error("{0} must be a non-empty path")]
    EmptyPath(&'static str),
    /// No home directory to derive a default from.
    #[error("cannot determine the home directory for the default {0}; set it explicitly")]
    NoHome(&'static str),
    /// `providerName` is empty or reserved.
    #[error("providerName must be a non-empty string other than \"runtime\" (got {0:?})")]
    ProviderName(String),
    /// A `compatRoots` entry is not a known compatibility root.
    #[error("compatRoots[{index}] must be \"claude\" or \"codex\" (got {value:?})")]
    UnknownCompatRoot {
        /// Position in the array.
        index: usize,
        /// The value as given.
        value: String,
    },
    /// An option that only shapes the default roots, with
    /// `includeDefaultRoots: false`.
    #[error(
        "{0} has no effect with includeDefaultRoots: false (only customSkillDirs, \
         bundledSkillDir and compatRoots are scanned then); remove one of them"
    )]
    WithoutDefaultRoots(&'static str),
}

fn positive_integer(
    field: &'static str,
    value: Option<f64>,
    default: u64,
) -> Result<u64, ConfigError> {
    match value {
        None => Ok(default),
        Some(v)
            if v.is_finite() && v >= 1.0 && v.fract() == 0.0 && v <= 9_007_199_254_740_991.0 =>
        {
            Ok(v as u64)
        }
        Some(v) => Err(ConfigError::NotPositiveInteger {
            field,
            value: if v.is_nan() {
                "NaN".into()
            } else if v.is_infinite() {
                if v > 0.0 { "Infinity" } else { "-Infinity" }.into()
            } else {
                format!("{v}")
            },
        }),
    }
}

fn absolute(path: &str, field: &'static str) -> Result<PathBuf, ConfigError> {
    if path.is_empty() {
        return Err(ConfigError::EmptyPath(field));
    }
    Ok(make_absolute(Path::new(path)))
}

fn make_absolute(path: &Path) -> PathBuf {
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
    }
}

impl LocalConfig {
    /// Whether lookups have project roots (the default ones, or the
    /// `claude` compatibility root): only then is `cwd`'s project root looked up.
    pub fn has_project_roots(&self) -> bool {
        self.include_default_roots || self.claude_home.is_some()
    }
}

impl LocalOptions {
    /// Resolve defaults from the process environment (the home directory
    /// falls back to the platform's notion of it).
    pub fn resolve(&self) -> Result<LocalConfig, ConfigError> {
        self.resolve_with(&|key| {
            let value = std::env::var(key).ok().filter(|v| !v.is_empty());
            match key {
                "HOME" => value.or_else(|| {
                    std::env::home_dir().map(|home| home.to_string_lossy().into_owned())
                }),
                _ => value,
            }
        })
    }

    /// Resolve defaults from `env` only (`DSH_HOME`, `DSH_AGENTS_HOME`,
    /// `DSH_BUNDLED_SKILL_DIR`, `CODEX_HOME`, `HOME`/`USERPROFILE`; empty
    /// variables count as unset). `|_| None` resolves from the options alone,
    /// which must then name every home the configuration uses.
    pub fn resolve_with(
        &self,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<LocalConfig, ConfigError> {
        let var = |key: &str| env(key).filter(|v| !v.is_empty());
        let home = || {
            var("HOME")
                .or_else(|| var("USERPROFILE"))
                .map(PathBuf::from)
        };
        let provider_name = match &self.provider_name {
            None => PROVIDER_NAME.to_string(),
            Some(name) if name.is_empty() || name == RESERVED_PROVIDER_NAME => {
                return Err(ConfigError::ProviderName(name.clone()))
            }
            Some(name) => name.clone(),
        };
        let include_default_roots = self.include_default_roots.unwrap_or(true);
        let nested_roots = self.nested_roots.unwrap_or(false);
        let (dsh_home, agents_home) = if include_default_roots {
            let dsh_home = match (&self.dsh_home, var("DSH_HOME")) {
                (Some(p), _) => absolute(p, "dshHome")?,
                (None, Some(p)) => make_absolute(Path::new(&p)),
                (None, None) => home().ok_or(ConfigError::NoHome("dshHome"))?.join(".dsh"),
            };
            let agents_home = match (&self.agents_home, var("DSH_AGENTS_HOME")) {
                (Some(p), _) => absolute(p, "agentsHome")?,
                (None, Some(p)) => make_absolute(Path::new(&p)),
                (None, None) => home()
                    .ok_or(ConfigError::NoHome("agentsHome"))?
                    .join(".agents"),
            };
            (Some(dsh_home), Some(agents_home))
        } else {
            let shaping = [
                ("nestedRoots", nested_roots),
                ("dshHome", self.dsh_home.is_some()),
                ("agentsHome", self.agents_home.is_some()),
            ];
            if let Some((field, _)) = shaping.into_iter().find(|(_, set)| *set) {
                return Err(ConfigError::WithoutDefaultRoots(field));
            }
            (None, None)
        };
        let (mut claude, mut codex) = (false, false);
        for (index, value) in self.compat_roots.iter().flatten().enumerate() {
            match value.as_str() {
                "claude" => claude = true,
                "codex" => codex = true,
                _ => {
                    return Err(ConfigError::UnknownCompatRoot {
                        index,
                        value: value.clone(),
                    })
                }
            }
        }
        let claude_home = match (claude, &self.claude_home) {
            (false, _) => None,
            (true, Some(p)) => Some(absolute(p, "claudeHome")?),
            (true, None) => Some(
                home()
                    .ok_or(ConfigError::NoHome("compatRoots \"claude\" root"))?
                    .join(".claude"),
            ),
        };
        let codex_home = match (codex, &self.codex_home, var("CODEX_HOME")) {
            (false, _, _) => None,
            (true, Some(p), _) => Some(absolute(p, "codexHome")?),
            (true, None, Some(p)) => Some(make_absolute(Path::new(&p))),
            (true, None, None) => Some(
                home()
                    .ok_or(ConfigError::NoHome("compatRoots \"codex\" root"))?
                    .join(".codex"),
            ),
        };
        let custom_skill_dirs = self
            .custom_skill_dirs
            .iter()
            .flatten()
            .map(|p| absolute(p, "customSkillDirs"))
            .collect::<Result<_, _>>()?;
        let bundled_skill_dir = match (&self.bundled_skill_dir, var("DSH_BUNDLED_SKILL_DIR")) {
            (Some(p), _) => Some(absolute(p, "bundledSkillDir")?),
            // Without the default roots, only an explicit bundled root counts.
            (None, Some(p)) if include_default_roots => Some(make_absolute(Path::new(&p))),
            (None, _) => None,
        };
        let defaults = WatchConfig::default();
        Ok(LocalConfig {
            provider_name,
            include_default_roots,
            nested_roots,
            dsh_home,
            agents_home,
            claude_home,
            codex_home,
            custom_skill_dirs,
            bundled_skill_dir,
            max_skill_file_bytes: positive_integer(
                "maxSkillFileBytes",
                self.max_skill_file_bytes,
                DEFAULT_MAX_SKILL_FILE_BYTES,
            )?,
            watch: WatchConfig {
                enabled: self.watch.unwrap_or(defaults.enabled),
                use_polling: self.watch_use_polling.unwrap_or(defaults.use_polling),
                stability_threshold_ms: positive_integer(
                    "watchStabilityThresholdMs",
                    self.watch_stability_threshold_ms,
                    defaults.stability_threshold_ms,
                )?,
                poll_interval_ms: positive_integer(
                    "watchPollIntervalMs",
                    self.watch_poll_interval_ms,
                    defaults.poll_interval_ms,
                )?,
                max_projects: usize::try_from(positive_integer(
                    "watchMaxProjects",
                    self.watch_max_projects,
                    defaults.max_projects as u64,
                )?)
                .unwrap_or(usize::MAX),
                follow_symlinks: self
                    .watch_follow_symlinks
                    .unwrap_or(defaults.follow_symlinks),
            },
        })
    }
}

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

    /// Read-your-writes, before a lookup answers (cache hits included):
    /// apply every change the watcher can know of now and invalidate the
    /// registration (silently) if one was not covered yet.
    fn catch_up(&self) {}

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

/// Result of [`LocalProvider::discover`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Discovery {
    /// Candidates in discovery order (same-name candidates included: the first
    /// one wins).
    pub observation: Observation,
    /// One line per skipped file or unexpected failure.
    pub warnings: Vec<String>,
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

/// One root in a [`Diagnosis`].
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RootReport {
    /// Root directory.
    pub path: String,
    /// Source label.
    pub source: &'static str,
    /// Rank.
    pub rank: f64,
    /// `scanned`, `missing` or `error`.
    pub status: &'static str,
    /// Why listing failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// The candidate that won a name.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WinnerRef {
    /// Skill name.
    pub name: String,
    /// Source of the winner.
    pub source: &'static str,
    /// Rank of the winner.
    pub rank: f64,
    /// Skill file of the winner.
    pub path: String,
}

/// One file considered by discovery, with what became of it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FileReport {
    /// Skill file (`…/SKILL.md` for bundles) or the entry that was skipped.
    pub path: String,
    /// Source label of its root.
    pub source: &'static str,
    /// Rank of its root.
    pub rank: f64,
    /// `bundle` or `flat`, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub layout: Option<&'static str>,
    /// Parsed skill name, when the file parsed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `loaded`, `shadowed` or `skipped`.
    pub outcome: &'static str,
    /// Human-readable explanation (always set unless loaded).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The winner of the name, for shadowed files.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shadowed_by: Option<WinnerRef>,
}

/// What `doctor` prints: every root and every file considered for one lookup.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Diagnosis {
    /// The lookup's `cwd`, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// The project root derived from `cwd`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub project_root: Option<String>,
    /// Whether discovery was authoritative.
    pub complete: bool,
    /// Roots in rank order.
    pub roots: Vec<RootReport>,
    /// Files in discovery order.
    pub files: Vec<FileReport>,
    /// The warnings `list()` would log.
    pub warnings: Vec<String>,
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
        Self {
            config,
            fs,
            observer: RwLock::new(None),
            invalidator: Mutex::new(None),
            closed: AtomicBool::new(false),
            cache: ParseCache::default(),
            lookups,
            warned: WarnOnce::default(),
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
        cwd.map(|cwd| roots::project_root(self.fs.as_ref(), &make_absolute(cwd)))
    }

    /// The project of a lookup from `cwd`: its project root and the scope
    /// of its project roots. `None` without a `cwd`, or
    /// when the configuration has no project roots (then no `.git` is probed).
    pub fn project(&self, cwd: Option<&Path>) -> Option<Project> {
        if !self.config.has_project_roots() {
            return None;
        }
        let cwd = make_absolute(cwd?);
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
        self.invalidator().is_some_and(|invalidator| {
            if notify {
                invalidator.invalidate()
            } else {
                invalidator.invalidate_silently()
            }
        })
    }

    /// Whether a change at `path` could change a catalog of this provider:
    /// it could be a skill entry (see [`roots::affects`]) of a configured root
    /// (custom, user, bundled, compatibility) or of a project root (nested
    /// ones included) a recent lookup used. Purely lexical.
    pub fn could_affect(&self, path: &Path) -> bool {
        let path = roots::normalize(path);
        self.known_roots()
            .iter()
            .any(|root| roots::affects(&roots::normalize(&root.path), root.skips_system(), &path))
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
                    cwd.map(make_absolute).as_deref(),
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
        let cwd = make_absolute(cwd);
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

    /// Close the watcher. Discovery and loading keep working (unwatched).
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
    }

    /// Whether [`close`](Self::close) was called.
    pub fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Acquire)
    }

    /// Tell the watcher which roots a lookup is about to read; returns whether
    /// watching is healthy. Watch before reading, so a change made during the
    /// scan is seen. Its project roots are keyed by the project's scope.
    fn observe_roots(&self, project: Option<&Project>, roots: &[RootSpec]) -> bool {
        match self.observer() {
            // Closed meanwhile (`close` marks the provider closed before it
            // closes the watcher): not watching is not a watching problem.
            Some(o) if !self.is_closed() => {
                o.observed(project.map(|p| p.scope.as_path()), roots) || self.is_closed()
            }
            _ => true,
        }
    }

    fn run_scan(&self, ctx: &LookupContext) -> (Option<PathBuf>, Scan, bool) {
        let cwd = ctx.cwd.as_deref().map(make_absolute);
        let (project, roots) = self.roots(cwd.as_deref());
        if let Some(project) = &project {
            self.lookups.record(cwd.as_deref(), project);
        }
        let healthy = self.observe_roots(project.as_ref(), &roots);
        let scan = discover::scan(
            self.fs.as_ref(),
            &roots,
            self.config.max_skill_file_bytes,
            &self.cache,
            &ctx.cancel,
        );
        (project.map(|p| p.root), scan, healthy)
    }

    /// Discover candidates for a lookup.
    pub fn discover(&self, ctx: &LookupContext) -> Discovery {
        let (_, scan, healthy) = self.run_scan(ctx);
        self.report(scan, healthy, ctx.cancel.is_cancelled())
    }

    /// The discovery of a finished scan. Warnings already logged for the same
    /// problem are left out (see `warn.rs`).
    fn report(&self, scan: Scan, healthy: bool, cancelled: bool) -> Discovery {
        let mut warnings: Vec<(Scope, String)> = Vec::new();
        let mut candidates = Vec::with_capacity(scan.files.len());
        let scope = |root: usize| Scope::Root(scan.roots[root].0.path.clone());
        for (index, (_, status)) in scan.roots.iter().enumerate() {
            if let RootStatus::Failed(reason) = status {
                warnings.push((
                    scope(index),
                    format!("{reason}; skill discovery is incomplete"),
                ));
            }
        }
        for file in &scan.files {
            match &file.outcome {
                FileOutcome::Skipped { reason, warn: true } => warnings.push((
                    scope(file.root),
                    format!("skill file {} skipped: {reason}", file.path.display()),
                )),
                FileOutcome::Failed(reason) => warnings.push((
                    scope(file.root),
                    format!(
                        "skill file {}: {reason}; skill discovery is incomplete",
                        file.path.display()
                    ),
                )),
                _ => {}
            }
        }
        if !healthy {
            warnings.push((
                Scope::Watch,
                "skill root watching is not healthy; skill discovery is incomplete".into(),
            ));
        }
        let mut observed: Vec<Scope> = (0..scan.roots.len()).map(scope).collect();
        observed.push(Scope::Watch);
        let mut warnings = self.warned.filter(&observed, warnings, !cancelled);
        if let Some(o) = self.observer() {
            // The watcher reports each of its problems once by itself.
            warnings.extend(o.take_warnings());
        }
        for file in scan.files {
            if let FileOutcome::Parsed(parsed) = file.outcome {
                let root = &scan.roots[file.root].0;
                candidates.push(candidate(
                    &self.config.provider_name,
                    root,
                    &file.path,
                    &file.base,
                    parsed,
                ));
            }
        }
        Discovery {
            observation: Observation {
                candidates,
                complete: scan.complete && healthy,
            },
            warnings,
        }
    }

    /// Explain every root and file considered for a lookup.
    pub fn diagnose(&self, ctx: &LookupContext) -> Diagnosis {
        let (project, scan, healthy) = self.run_scan(ctx);
        self.explain(ctx.cwd.as_deref(), project.as_deref(), scan, healthy)
    }

    /// The diagnosis of a finished scan.
    fn explain(
        &self,
        cwd: Option<&Path>,
        project: Option<&Path>,
        scan: Scan,
        healthy: bool,
    ) -> Diagnosis {
        let mut warnings = Vec::new();
        let roots = scan
            .roots
            .iter()
            .map(|(spec, status)| {
                let (status, reason) = match status {
                    RootStatus::Scanned => ("scanned", None),
                    RootStatus::Missing => ("missing", None),
                    RootStatus::Failed(r) => {
                        warnings.push(format!("{r}; skill discovery is incomplete"));
                        ("error", Some(r.clone()))
                    }
                };
                RootReport {
                    path: path_string(&spec.path),
                    source: spec.source.as_str(),
                    rank: spec.rank(),
                    status,
                    reason,
                }
            })
            .collect();
        let mut winners: HashMap<String, WinnerRef> = HashMap::new();
        let mut files = Vec::with_capacity(scan.files.len());
        for file in scan.files {
            let spec = &scan.roots[file.root].0;
            let path = path_string(&file.path);
            let mut report = FileReport {
                path: path.clone(),
                source: spec.source.as_str(),
                rank: spec.rank(),
                layout: file.layout.map(Layout::as_str),
                name: None,
                outcome: "skipped",
                reason: None,
                shadowed_by: None,
            };
            match file.outcome {
                FileOutcome::Parsed(parsed) => {
                    if let Some(winner) = winners.get(&parsed.name) {
                        report.outcome = "shadowed";
                        report.reason = Some(format!(
                            "shadowed by \"{}\" from {} (rank {}) at {}",
                            winner.name, winner.source, winner.rank, winner.path
                        ));
                        report.shadowed_by = Some(winner.clone());
                    } else {
                        report.outcome = "loaded";
                        winners.insert(
                            parsed.name.clone(),
                            WinnerRef {
                                name: parsed.name.clone(),
                                source: spec.source.as_str(),
                                rank: spec.rank(),
                                path,
                            },
                        );
                    }
                    report.name = Some(parsed.name);
                }
                FileOutcome::Skipped { reason, warn } => {
                    if warn {
                        warnings.push(format!("skill file {} skipped: {reason}", report.path));
                    }
                    report.reason = Some(reason);
                }
                FileOutcome::Failed(reason) => {
                    warnings.push(format!(
                        "skill file {}: {reason}; skill discovery is incomplete",
                        report.path
                    ));
                    report.reason = Some(format!("{reason} (skill discovery is incomplete)"));
                }
            }
            files.push(report);
        }
        if !healthy {
            warnings
                .push("skill root watching is not healthy; skill discovery is incomplete".into());
        }
        Diagnosis {
            cwd: cwd.map(path_string),
            project_root: project.map(path_string),
            complete: scan.complete && healthy,
            roots,
            files,
            warnings,
        }
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
        let outcome = self.cache.load(
            self.fs.as_ref(),
            &placement.path,
            self.config.max_skill_file_bytes,
        );
        definition(&self.config.provider_name, placement, outcome)
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

fn candidate(
    provider: &str,
    root: &RootSpec,
    path: &Path,
    base: &Path,
    parsed: ParsedSkill,
) -> Candidate {
    let (summary, _, metadata) = summarize(parsed, provider, root.source, base);
    Candidate {
        summary,
        rank: root.rank(),
        path: Some(path_string(path)),
        metadata,
        locator: Locator::None,
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

    fn revalidate(&self, cwd: Option<&Path>) {
        LocalProvider::revalidate(self, cwd);
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
