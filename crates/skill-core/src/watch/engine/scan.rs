//! Scanning one wanted root: its skill entries, the bundle dirs and link
//! targets to watch, or the nearest existing ancestor of a missing root.

use super::RootKind;
use std::collections::HashSet;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

pub(super) const SYSTEM_DIR: &str = ".system";

/// What the last scan of one wanted root found.
#[derive(Debug)]
pub(super) struct RootState {
    pub(super) kind: RootKind,
    pub(super) exists: bool,
    /// Names of the direct entries that can be skills (dirs, symlinks, `.md`).
    pub(super) entries: HashSet<OsString>,
    /// Bundle dirs to watch.
    pub(super) bundles: Vec<PathBuf>,
    /// Where symlinked flat entries lead: each link on the way and the final
    /// file, as (directory, name). Empty unless links are followed.
    pub(super) targets: Vec<(PathBuf, OsString)>,
    /// Nearest existing ancestor and the next missing segment, when missing.
    pub(super) ancestor: Option<(PathBuf, OsString)>,
    /// The root could not be inspected (not "missing").
    pub(super) error: Option<String>,
}

pub(super) fn is_md(name: &OsStr) -> bool {
    name.as_encoded_bytes().ends_with(b".md")
}

pub(super) fn scan_root(path: &Path, kind: RootKind, follow_symlinks: bool) -> RootState {
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
pub(super) fn link_targets(link: &Path) -> Vec<(PathBuf, OsString)> {
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

pub(super) fn is_missing(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
    )
}

/// The directory a scan of the root at `path` lists: the root itself when it is
/// a directory, else its nearest existing ancestor.
pub(super) fn listed_dir(path: &Path) -> Option<PathBuf> {
    if std::fs::metadata(path).is_ok_and(|m| m.is_dir()) {
        Some(path.to_path_buf())
    } else {
        nearest_ancestor(path).map(|(dir, _)| dir)
    }
}

/// Nearest existing directory above `path`, and the name of the next segment.
pub(super) fn nearest_ancestor(path: &Path) -> Option<(PathBuf, OsString)> {
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
