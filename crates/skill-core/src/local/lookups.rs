//! What recent lookups used: their projects (first-party mutations under
//! their project roots invalidate, and `get()` may load from them), and the
//! project root each `cwd` resolved to (checked again on a catalog cache hit,
//! so a `.git` created or removed since is noticed).

use super::roots::Project;
use lru::LruCache;
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

/// `cwd`s remembered at most.
const MAX_CWDS: usize = 4096;

struct State {
    /// Project root by scope (see [`Project::scope`]).
    projects: LruCache<PathBuf, PathBuf>,
    cwds: LruCache<PathBuf, PathBuf>,
}

/// Recent lookups of one provider (bounded).
pub(crate) struct Lookups {
    state: Mutex<State>,
}

impl Lookups {
    /// Remember at most `max_projects` projects (distinct scopes).
    pub(crate) fn new(max_projects: usize) -> Self {
        let cap = |n: usize| NonZeroUsize::new(n).unwrap_or(NonZeroUsize::MIN);
        Self {
            state: Mutex::new(State {
                projects: LruCache::new(cap(max_projects)),
                cwds: LruCache::new(cap(MAX_CWDS)),
            }),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A lookup for `cwd` (absolute, when known) used `project`.
    pub(crate) fn record(&self, cwd: Option<&Path>, project: &Project) {
        let mut state = self.lock();
        state
            .projects
            .put(project.scope.clone(), project.root.clone());
        if let Some(cwd) = cwd {
            state.cwds.put(cwd.to_path_buf(), project.root.clone());
        }
    }

    /// The projects of recent lookups, most recent first.
    pub(crate) fn projects(&self) -> Vec<Project> {
        self.lock()
            .projects
            .iter()
            .map(|(scope, root)| Project {
                root: root.clone(),
                scope: scope.clone(),
            })
            .collect()
    }

    /// The project root the last lookup for `cwd` used, if remembered.
    pub(crate) fn project_of(&self, cwd: &Path) -> Option<PathBuf> {
        self.lock().cwds.peek(cwd).cloned()
    }
}
