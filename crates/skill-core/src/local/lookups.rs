//! What recent lookups used: their projects (first-party mutations under
//! their project roots invalidate, and `get()` may load from them), and the
//! project root each `cwd` resolved to (checked again at the start of every
//! lookup, before the catalog cache is consulted, so a `.git` created or
//! removed since is noticed).

use super::roots::Project;
use lru::LruCache;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

/// `cwd`s remembered at most.
const MAX_CWDS: usize = 4096;

/// Both tables are unbounded LRUs capped by hand: an LRU created with a
/// capacity allocates room for all of it at once (4,096 `cwd`s would cost
/// ~140 KB per provider before its first lookup); these grow with use.
struct State {
    /// Project root by scope (see [`Project::scope`]).
    projects: LruCache<PathBuf, PathBuf>,
    max_projects: usize,
    cwds: LruCache<PathBuf, PathBuf>,
}

/// `map[key] = value`, then drop the least recently used entries beyond `max`.
fn put_capped(map: &mut LruCache<PathBuf, PathBuf>, max: usize, key: PathBuf, value: PathBuf) {
    map.put(key, value);
    while map.len() > max {
        map.pop_lru();
    }
}

/// Bytes an LRU table of `len` path pairs holds: its buckets (one control
/// byte and one 16-byte slot each, at most 7/8 used), a list node per entry
/// and the paths themselves.
fn table_bytes(map: &LruCache<PathBuf, PathBuf>) -> usize {
    if map.is_empty() {
        return 0;
    }
    let buckets = (map.len().saturating_mul(8) / 7).next_power_of_two();
    let nodes = map.len() * (2 * std::mem::size_of::<PathBuf>() + 2 * std::mem::size_of::<usize>());
    let paths: usize = map
        .iter()
        .map(|(k, v)| k.as_os_str().len() + v.as_os_str().len())
        .sum();
    buckets * 17 + nodes + paths
}

/// Recent lookups of one provider (bounded).
pub(crate) struct Lookups {
    state: Mutex<State>,
}

impl Lookups {
    /// Remember at most `max_projects` projects (distinct scopes).
    pub(crate) fn new(max_projects: usize) -> Self {
        Self {
            state: Mutex::new(State {
                projects: LruCache::unbounded(),
                max_projects: max_projects.max(1),
                cwds: LruCache::unbounded(),
            }),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A lookup for `cwd` (absolute, when known) used `project`.
    pub(crate) fn record(&self, cwd: Option<&Path>, project: &Project) {
        let mut state = self.lock();
        let max_projects = state.max_projects;
        put_capped(
            &mut state.projects,
            max_projects,
            project.scope.clone(),
            project.root.clone(),
        );
        if let Some(cwd) = cwd {
            put_capped(
                &mut state.cwds,
                MAX_CWDS,
                cwd.to_path_buf(),
                project.root.clone(),
            );
        }
    }

    /// Bytes the two tables hold now (an estimate, for `memoryUse()`).
    pub(crate) fn size(&self) -> usize {
        let state = self.lock();
        table_bytes(&state.projects) + table_bytes(&state.cwds)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn project(n: usize) -> Project {
        Project {
            root: PathBuf::from(format!("/p{n}")),
            scope: PathBuf::from(format!("/p{n}")),
        }
    }

    #[test]
    fn keeps_the_most_recent_projects_and_cwds_within_their_bounds() {
        let lookups = Lookups::new(2);
        assert_eq!(
            lookups.size(),
            0,
            "nothing reserved before the first lookup"
        );
        for n in 0..3 {
            lookups.record(Some(Path::new(&format!("/p{n}/src"))), &project(n));
        }
        let roots: Vec<PathBuf> = lookups.projects().into_iter().map(|p| p.root).collect();
        assert_eq!(roots, [PathBuf::from("/p2"), PathBuf::from("/p1")]);
        // Using a project again makes it the most recent: the other one goes.
        lookups.record(None, &project(1));
        lookups.record(None, &project(3));
        let roots: Vec<PathBuf> = lookups.projects().into_iter().map(|p| p.root).collect();
        assert_eq!(roots, [PathBuf::from("/p3"), PathBuf::from("/p1")]);
        assert_eq!(
            lookups.project_of(Path::new("/p0/src")),
            Some(PathBuf::from("/p0"))
        );

        for n in 0..MAX_CWDS + 10 {
            lookups.record(Some(Path::new(&format!("/c/{n}"))), &project(1));
        }
        let state = lookups.lock();
        assert_eq!(state.cwds.len(), MAX_CWDS);
        assert!(state.cwds.peek(Path::new("/c/0")).is_none());
        assert!(state
            .cwds
            .peek(Path::new(&format!("/c/{}", MAX_CWDS + 9)))
            .is_some());
    }
}
