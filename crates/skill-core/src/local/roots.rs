//! Skill roots: which directories are scanned for a lookup, with their source
//! labels and ranks, and the project root of a `cwd`.
//!
//! Ranks (lower wins), in discovery order:
//!
//! | source | root | rank |
//! |---|---|---|
//! | `project-dsh` | `<dir>/.dsh/skills`, `<dir>` k levels below the project root (`nestedRoots`) | 100 / 2^k |
//! | `project-agents` | `<dir>/.agents/skills`, likewise | 150 / 2^k |
//! | `project-dsh` | `<project>/.dsh/skills` | 100 |
//! | `project-agents` | `<project>/.agents/skills` | 200 |
//! | `project-claude` | `<project>/.claude/skills` (`compatRoots: ['claude']`) | 225 |
//! | (runtime skills of the registry) | | 250 |
//! | `custom` | each of `customSkillDirs` | 300 |
//! | `user-dsh` | `<dshHome>/skills` | 400 |
//! | `user-agents` | `<agentsHome>/skills` | 500 |
//! | `user-claude` | `~/.claude/skills` (`compatRoots: ['claude']`) | 550 |
//! | `user-codex` | `$CODEX_HOME/skills` or `~/.codex/skills` (`compatRoots: ['codex']`) | 575 |
//! | `bundled` | `bundledSkillDir` | 600 |
//!
//! Nested roots are nearest first: the directory of the lookup before its
//! parent, each directory's `.dsh/skills` before its `.agents/skills`, all of
//! them before the project root's own. Their ranks halve at each level, so
//! they all stay between 0 and 100: every project root (nested or not) still
//! outranks the registry's runtime skills (250), as the project root's own
//! always did, and custom, user and bundled roots keep losing to them.

use super::fs::SkillFs;
use super::LocalConfig;
use std::path::{Component, Path, PathBuf};

/// Where a root comes from. The label is the candidate's `source`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Source {
    /// `<project>/.dsh/skills` (and, with nested roots, the same folder of
    /// each directory from the lookup's `cwd` up to the project root).
    ProjectDsh,
    /// `<project>/.agents/skills` (nested likewise).
    ProjectAgents,
    /// `<project>/.claude/skills` (compatibility root `claude`).
    ProjectClaude,
    /// One of `customSkillDirs`.
    Custom,
    /// `<dshHome>/skills`.
    UserDsh,
    /// `<agentsHome>/skills`.
    UserAgents,
    /// `~/.claude/skills` (compatibility root `claude`).
    UserClaude,
    /// `$CODEX_HOME/skills` or `~/.codex/skills` (compatibility root `codex`).
    UserCodex,
    /// `bundledSkillDir`.
    Bundled,
}

impl Source {
    /// The source label (`project-dsh`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Source::ProjectDsh => "project-dsh",
            Source::ProjectAgents => "project-agents",
            Source::ProjectClaude => "project-claude",
            Source::Custom => "custom",
            Source::UserDsh => "user-dsh",
            Source::UserAgents => "user-agents",
            Source::UserClaude => "user-claude",
            Source::UserCodex => "user-codex",
            Source::Bundled => "bundled",
        }
    }

    /// The rank of skills from this source (lower wins); for a nested
    /// project root see [`nested_rank`].
    pub fn rank(self) -> f64 {
        match self {
            Source::ProjectDsh => 100.0,
            Source::ProjectAgents => 200.0,
            Source::ProjectClaude => 225.0,
            Source::Custom => 300.0,
            Source::UserDsh => 400.0,
            Source::UserAgents => 500.0,
            Source::UserClaude => 550.0,
            Source::UserCodex => 575.0,
            Source::Bundled => 600.0,
        }
    }

    /// Whether the root depends on the lookup's project.
    pub fn is_project(self) -> bool {
        matches!(
            self,
            Source::ProjectDsh | Source::ProjectAgents | Source::ProjectClaude
        )
    }
}

/// The rank of a `.dsh/skills` ([`Source::ProjectDsh`]) or `.agents/skills`
/// ([`Source::ProjectAgents`]) root in a directory `depth` levels below the
/// project root: 100 / 2^depth and 150 / 2^depth (50 and 75 one level down,
/// 25 and 37.5 two levels down, ...), so a nearer directory's roots outrank
/// a farther one's and every nested root outranks the project root's own
/// (`depth` 0: the usual rank of `source`).
pub fn nested_rank(source: Source, depth: usize) -> f64 {
    let top = match source {
        _ if depth == 0 => return source.rank(),
        Source::ProjectDsh => 100.0,
        Source::ProjectAgents => 150.0,
        other => return other.rank(),
    };
    top / 2f64.powi(i32::try_from(depth).unwrap_or(i32::MAX))
}

/// One directory scanned for skills.
#[derive(Clone, Debug, PartialEq)]
pub struct RootSpec {
    /// Absolute root directory.
    pub path: PathBuf,
    /// Source label.
    pub source: Source,
    /// Rank of skills found in this root.
    pub rank: f64,
}

impl RootSpec {
    /// A root of `source` at `path`, with the source's rank.
    pub fn new(path: PathBuf, source: Source) -> Self {
        let rank = source.rank();
        Self { path, source, rank }
    }

    /// Rank of skills found in this root.
    pub fn rank(&self) -> f64 {
        self.rank
    }

    /// Whether the `.system` child is skipped (only under the user DSH root).
    pub fn skips_system(&self) -> bool {
        self.source == Source::UserDsh
    }

    /// Whether a change at `path` can change this root's catalog (see
    /// [`affects`]).
    pub fn affects(&self, path: &Path) -> bool {
        affects(&self.path, self.skips_system(), path)
    }
}

/// Whether a change at `path` can change the catalog of the root at `root`:
/// the root itself or one of its ancestors, a direct child (bundle or flat
/// file), or a bundle's `SKILL.md`. Deeper files (bundle resources) never do,
/// nor does `.system` when `skips_system` (the user DSH root). Both paths are
/// compared as given: normalise them first (see [`normalize`]). No I/O.
///
/// This is the watcher's relevance test (a directory renamed, created or
/// deleted counts). First-party writes use the narrower [`is_entry`].
pub fn affects(root: &Path, skips_system: bool, path: &Path) -> bool {
    if root.starts_with(path) {
        return true;
    }
    let Ok(rest) = path.strip_prefix(root) else {
        return false;
    };
    let mut parts = rest.components();
    let Some(first) = parts.next() else {
        return true;
    };
    if skips_system && first.as_os_str() == ".system" {
        return false;
    }
    match (parts.next(), parts.next()) {
        (None, _) => true,
        (Some(second), None) => second.as_os_str() == "SKILL.md",
        _ => false,
    }
}

/// Whether `path` is a skill entry of the root at `root`: a flat skill
/// `<root>/<name>.md` or a bundle's `<root>/<dir>/SKILL.md` (not under
/// `.system` when `skips_system`, the user DSH root). The root itself, its
/// ancestors, other files of the root and files deeper in a bundle are not.
/// Both paths are compared as given: normalise them first (see
/// [`normalize`]). No I/O.
///
/// This is the rule for first-party writes and edits
/// ([`LocalProvider::observe_host_mutation`](super::LocalProvider::observe_host_mutation)):
/// a write tool writes files, and only these files are skills.
pub fn is_entry(root: &Path, skips_system: bool, path: &Path) -> bool {
    let Ok(rest) = path.strip_prefix(root) else {
        return false;
    };
    let mut parts = rest.components().map(|c| c.as_os_str());
    match (parts.next(), parts.next(), parts.next()) {
        (Some(name), None, _) => name.as_encoded_bytes().ends_with(b".md"),
        (Some(dir), Some(file), None) => file == "SKILL.md" && !(skips_system && dir == ".system"),
        _ => false,
    }
}

/// Whether `path` cannot be named to the operating system at all: it holds a
/// NUL byte, is longer than the platform's path limit, or has a component
/// longer than 255 bytes (the file name limit of every common filesystem).
/// Purely lexical; discovery finds the same from the error of listing it.
pub fn unnameable(path: &Path) -> bool {
    #[cfg(unix)]
    const PATH_MAX: usize = libc::PATH_MAX as usize;
    #[cfg(not(unix))]
    const PATH_MAX: usize = 32_767;
    let bytes = path.as_os_str().as_encoded_bytes();
    bytes.contains(&0)
        || bytes.len() >= PATH_MAX
        || path.components().any(|c| c.as_os_str().len() > 255)
}

/// `path` made absolute (against the process's working directory) with `.`
/// and `..` resolved lexically, without touching the filesystem.
pub fn normalize(path: &Path) -> PathBuf {
    let absolute = super::make_absolute(path);
    let mut out = PathBuf::new();
    for component in absolute.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// The nearest ancestor of `cwd` (itself included) that holds a `.git` entry
/// (directory or file, as in worktrees), else `cwd`.
pub fn project_root(fs: &dyn SkillFs, cwd: &Path) -> PathBuf {
    for dir in cwd.ancestors() {
        // A probe failure is treated like "no .git here": the search goes on.
        if fs.exists(&dir.join(".git")).unwrap_or(false) {
            return dir.to_path_buf();
        }
    }
    cwd.to_path_buf()
}

/// The project of one lookup: its project root and the directory its project
/// roots start from.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Project {
    /// The project root (nearest ancestor of `cwd` holding `.git`, else `cwd`).
    pub root: PathBuf,
    /// The nearest directory whose project roots are scanned: with nested
    /// roots, `cwd` itself (`.` and `..` resolved lexically) when it lies
    /// below the project root; otherwise the project root. Lookups with the
    /// same scope scan the same project roots (it keys them in the bounded
    /// set of watched and recently used projects).
    pub scope: PathBuf,
}

impl Project {
    /// The project of a lookup from `cwd` whose project root is `root`.
    pub fn new(config: &LocalConfig, root: PathBuf, cwd: Option<&Path>) -> Self {
        let scope = match cwd {
            Some(cwd) if config.nested_roots => {
                let (cwd, top) = (normalize(cwd), normalize(&root));
                (cwd != top && cwd.starts_with(&top)).then_some(cwd)
            }
            _ => None,
        };
        Self {
            scope: scope.unwrap_or_else(|| root.clone()),
            root,
        }
    }
}

/// The project roots of `project`, in rank order: with nested roots,
/// `.dsh/skills` and `.agents/skills` of each directory from its scope up to
/// (not including) the project root, nearest first; then the project root's
/// `.dsh/skills` and `.agents/skills` (unless the default roots are left
/// out), then its `.claude/skills` (compatibility root `claude`).
pub fn project_roots(config: &LocalConfig, project: &Project) -> Vec<RootSpec> {
    let mut roots = Vec::new();
    let root = &project.root;
    if config.include_default_roots {
        if project.scope != *root {
            let top = normalize(root);
            let depth = project
                .scope
                .strip_prefix(&top)
                .map_or(0, |rest| rest.components().count());
            for (level, dir) in project.scope.ancestors().take(depth).enumerate() {
                for (folder, source) in [
                    (".dsh", Source::ProjectDsh),
                    (".agents", Source::ProjectAgents),
                ] {
                    roots.push(RootSpec {
                        path: dir.join(folder).join("skills"),
                        source,
                        rank: nested_rank(source, depth - level),
                    });
                }
            }
        }
        roots.push(RootSpec::new(
            root.join(".dsh").join("skills"),
            Source::ProjectDsh,
        ));
        roots.push(RootSpec::new(
            root.join(".agents").join("skills"),
            Source::ProjectAgents,
        ));
    }
    if config.claude_home.is_some() {
        roots.push(RootSpec::new(
            root.join(".claude").join("skills"),
            Source::ProjectClaude,
        ));
    }
    roots
}

/// The roots of one lookup, in rank order: the [`project_roots`] of its
/// project (when it has one), then the configured roots.
pub fn roots_for(config: &LocalConfig, project: Option<&Project>) -> Vec<RootSpec> {
    let mut roots = Vec::with_capacity(7 + config.custom_skill_dirs.len());
    if let Some(project) = project {
        roots.extend(project_roots(config, project));
    }
    for dir in &config.custom_skill_dirs {
        roots.push(RootSpec::new(dir.clone(), Source::Custom));
    }
    let homes = [
        (&config.dsh_home, Source::UserDsh),
        (&config.agents_home, Source::UserAgents),
        (&config.claude_home, Source::UserClaude),
        (&config.codex_home, Source::UserCodex),
    ];
    for (home, source) in homes {
        if let Some(home) = home {
            roots.push(RootSpec::new(home.join("skills"), source));
        }
    }
    if let Some(bundled) = &config.bundled_skill_dir {
        roots.push(RootSpec::new(bundled.clone(), Source::Bundled));
    }
    roots
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn affects_only_catalog_paths() {
        let root = RootSpec::new(PathBuf::from("/h/.dsh/skills"), Source::UserDsh);
        for yes in [
            "/h/.dsh/skills",
            "/h/.dsh",
            "/h",
            "/h/.dsh/skills/a.md",
            "/h/.dsh/skills/bundle",
            "/h/.dsh/skills/bundle/SKILL.md",
        ] {
            assert!(root.affects(Path::new(yes)), "{yes}");
        }
        for no in [
            "/h/.dsh/skills/bundle/ref.md",
            "/h/.dsh/skills/bundle/scripts/x.sh",
            "/h/.dsh/skills/.system",
            "/h/.dsh/skills/.system/SKILL.md",
            "/h/other",
            "/h/.dsh/skillsx/a.md",
        ] {
            assert!(!root.affects(Path::new(no)), "{no}");
        }
        let custom = RootSpec::new(PathBuf::from("/c"), Source::Custom);
        assert!(custom.affects(Path::new("/c/.system/SKILL.md")));
    }

    #[test]
    fn unnameable_paths() {
        assert!(!unnameable(Path::new("/h/.dsh/skills")));
        assert!(unnameable(Path::new("/h/nul\0root")));
        assert!(unnameable(&Path::new("/h").join("n".repeat(256))));
        assert!(!unnameable(&Path::new("/h").join("n".repeat(255))));
        assert!(unnameable(&PathBuf::from(["d"; 2100].join("/"))));
    }

    #[test]
    fn entries_are_flat_md_files_and_bundle_skill_files() {
        let root = RootSpec::new(PathBuf::from("/h/.dsh/skills"), Source::UserDsh);
        for yes in [
            "/h/.dsh/skills/a.md",
            "/h/.dsh/skills/.system.md",
            "/h/.dsh/skills/bundle/SKILL.md",
        ] {
            assert!(
                is_entry(&root.path, root.skips_system(), Path::new(yes)),
                "{yes}"
            );
        }
        for no in [
            "/h/.dsh/skills",
            "/h/.dsh",
            "/h",
            "/",
            "/h/.dsh/skills/bundle",
            "/h/.dsh/skills/notes.txt",
            "/h/.dsh/skills/a.MD",
            "/h/.dsh/skills/bundle/ref.md",
            "/h/.dsh/skills/bundle/skill.md",
            "/h/.dsh/skills/bundle/scripts/SKILL.md",
            "/h/.dsh/skills/.system",
            "/h/.dsh/skills/.system/SKILL.md",
            "/h/.dsh/skillsx/a.md",
            "/h/other.md",
        ] {
            assert!(
                !is_entry(&root.path, root.skips_system(), Path::new(no)),
                "{no}"
            );
        }
        let custom = RootSpec::new(PathBuf::from("/c"), Source::Custom);
        assert!(is_entry(
            &custom.path,
            custom.skips_system(),
            Path::new("/c/.system/SKILL.md")
        ));
    }
}
