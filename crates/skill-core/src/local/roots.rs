//! Skill roots: which directories are scanned for a lookup, with their source
//! labels and ranks, and the project root of a `cwd`.

use super::fs::SkillFs;
use std::path::{Component, Path, PathBuf};

/// Where a root comes from. The label is the candidate's `source`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Source {
    /// `<project>/.dsh/skills`.
    ProjectDsh,
    /// `<project>/.agents/skills`.
    ProjectAgents,
    /// One of `customSkillDirs`.
    Custom,
    /// `<dshHome>/skills`.
    UserDsh,
    /// `<agentsHome>/skills`.
    UserAgents,
    /// `bundledSkillDir`.
    Bundled,
}

impl Source {
    /// The source label (`project-dsh`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Source::ProjectDsh => "project-dsh",
            Source::ProjectAgents => "project-agents",
            Source::Custom => "custom",
            Source::UserDsh => "user-dsh",
            Source::UserAgents => "user-agents",
            Source::Bundled => "bundled",
        }
    }

    /// The rank of skills from this source (lower wins).
    pub fn rank(self) -> f64 {
        match self {
            Source::ProjectDsh => 100.0,
            Source::ProjectAgents => 200.0,
            Source::Custom => 300.0,
            Source::UserDsh => 400.0,
            Source::UserAgents => 500.0,
            Source::Bundled => 600.0,
        }
    }

    /// Whether the root depends on the lookup's project.
    pub fn is_project(self) -> bool {
        matches!(self, Source::ProjectDsh | Source::ProjectAgents)
    }
}

/// One directory scanned for skills.
#[derive(Clone, Debug, PartialEq)]
pub struct RootSpec {
    /// Absolute root directory.
    pub path: PathBuf,
    /// Source label and rank.
    pub source: Source,
}

impl RootSpec {
    /// Rank of skills found in this root.
    pub fn rank(&self) -> f64 {
        self.source.rank()
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
/// This is the one rule behind first-party mutations
/// ([`LocalProvider::observe_host_mutation`](super::LocalProvider::observe_host_mutation))
/// and the watcher's relevance test.
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

/// The two roots of a project, in rank order.
pub fn project_roots(project: &Path) -> [RootSpec; 2] {
    [
        RootSpec {
            path: project.join(".dsh").join("skills"),
            source: Source::ProjectDsh,
        },
        RootSpec {
            path: project.join(".agents").join("skills"),
            source: Source::ProjectAgents,
        },
    ]
}

/// The roots of one lookup, in rank order.
pub fn roots_for(config: &super::LocalConfig, project_root: Option<&Path>) -> Vec<RootSpec> {
    let mut roots = Vec::with_capacity(5 + config.custom_skill_dirs.len());
    if let Some(project) = project_root {
        roots.extend(project_roots(project));
    }
    for dir in &config.custom_skill_dirs {
        roots.push(RootSpec {
            path: dir.clone(),
            source: Source::Custom,
        });
    }
    roots.push(RootSpec {
        path: config.dsh_home.join("skills"),
        source: Source::UserDsh,
    });
    roots.push(RootSpec {
        path: config.agents_home.join("skills"),
        source: Source::UserAgents,
    });
    if let Some(bundled) = &config.bundled_skill_dir {
        roots.push(RootSpec {
            path: bundled.clone(),
            source: Source::Bundled,
        });
    }
    roots
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn affects_only_catalog_paths() {
        let root = RootSpec {
            path: PathBuf::from("/h/.dsh/skills"),
            source: Source::UserDsh,
        };
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
        let custom = RootSpec {
            path: PathBuf::from("/c"),
            source: Source::Custom,
        };
        assert!(custom.affects(Path::new("/c/.system/SKILL.md")));
    }
}
