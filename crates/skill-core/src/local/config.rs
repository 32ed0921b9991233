//! The local provider's configuration: the options as the host passes them,
//! their validation, and the defaults resolved from the environment.

use std::path::{Path, PathBuf};

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
    /// An option that only shapes the default roots (`nestedRoots`), with
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

pub(crate) fn make_absolute(path: &Path) -> PathBuf {
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
            // `dshHome` and `agentsHome` only place the user roots: without
            // the default roots they are unused (several isolated providers
            // can share one configuration shape). `nestedRoots` would add
            // project roots that are not scanned: a contradiction.
            if nested_roots {
                return Err(ConfigError::WithoutDefaultRoots("nestedRoots"));
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
