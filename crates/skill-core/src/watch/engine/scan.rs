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
    pub(super) bundles: HashSet<PathBuf>,
    /// Where symlinked flat entries lead: each link on the way and the final
    /// file, as (directory, name). Empty unless links are followed.
    pub(super) targets: Vec<(PathBuf, OsString)>,
    /// Nearest existing ancestor and the next missing segment, when missing.
    pub(super) ancestor: Option<(PathBuf, OsString)>,
    /// The symbolic links the root's path goes through (the root itself, a
    /// directory above it, each link of a chain), and where a dangling one
    /// leads, as (directory, name): see [`root_links`].
    pub(super) links: Vec<(PathBuf, OsString)>,
    /// Where the root's links lead: its real path, when it has links and
    /// resolves to the end. (A directory above it moved also changes the
    /// root, and is watched for its own move.)
    pub(super) real: Option<PathBuf>,
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
        bundles: HashSet::new(),
        targets: Vec::new(),
        ancestor: None,
        error: None,
        links: Vec::new(),
        real: None,
    };
    (state.links, state.real) = root_links(path);
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
            state.bundles.insert(entry.path());
            state.entries.insert(name);
        } else if file_type.is_symlink() {
            if follow_symlinks {
                let path = entry.path();
                if std::fs::metadata(&path).is_ok_and(|m| m.is_dir()) {
                    state.bundles.insert(path);
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

/// The symbolic links met while resolving `path` (absolute), in order: each
/// as (the real path of the directory holding it, its name). A link whose
/// target is missing adds where resolution stopped in the target (the real
/// path of the last directory reached, the missing name): creating it there
/// repairs the link. Empty for a path without links. At most
/// [`MAX_LINK_HOPS`] links are followed (a loop ends there). With links,
/// also the real path `path` leads to, when it resolves to the end.
///
/// What the root is depends on each of them: a link repointed (`ln -sfn`,
/// a rename over it), replaced by a directory, removed or created, or a
/// dangling target created, changes the root as a whole, with no event in
/// the root's own watch (which follows the directory it was set on).
pub(super) fn root_links(path: &Path) -> (Vec<(PathBuf, OsString)>, Option<PathBuf>) {
    let mut links = Vec::new();
    let mut hops = 0;
    let mut resolved = PathBuf::new();
    // The components still to resolve, the next one last.
    let mut rest: Vec<OsString> = Vec::new();
    push_components(&mut rest, &mut resolved, path);
    // The components of `path` itself still on the stack (at its bottom):
    // the others come from links' targets.
    let mut own = rest.len();
    let mut complete = true;
    while let Some(name) = rest.pop() {
        let from_link = rest.len() >= own;
        if !from_link {
            own -= 1;
        }
        if name == ".." {
            resolved.pop();
            continue;
        }
        let next = resolved.join(&name);
        match std::fs::symlink_metadata(&next) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let hop = (resolved.clone(), name);
                if !links.contains(&hop) {
                    links.push(hop);
                }
                hops += 1;
                let Ok(target) = std::fs::read_link(&next) else {
                    complete = false;
                    break;
                };
                if hops >= MAX_LINK_HOPS {
                    complete = false;
                    break;
                }
                push_components(&mut rest, &mut resolved, &target);
            }
            Ok(meta) if meta.is_dir() || rest.is_empty() => resolved = next,
            // A file above the end, or nothing there: resolution stops.
            Ok(_) => {
                complete = false;
                break;
            }
            Err(_) => {
                // Missing where a link leads: created there, it repairs the
                // link. (A missing component of `path` itself is followed
                // as a missing root's next segment.)
                if from_link {
                    links.push((resolved.clone(), name));
                }
                complete = false;
                break;
            }
        }
    }
    let real = (complete && !links.is_empty()).then_some(resolved);
    (links, real)
}

/// Put the components of `path` on `rest` (a stack: the first one last),
/// and start `resolved` over at its root when it has one.
fn push_components(rest: &mut Vec<OsString>, resolved: &mut PathBuf, path: &Path) {
    use std::path::Component;
    let mut parts = Vec::new();
    for component in path.components() {
        match component {
            Component::Prefix(_) => *resolved = PathBuf::from(component.as_os_str()),
            Component::RootDir => resolved.push(component.as_os_str()),
            Component::CurDir => {}
            Component::ParentDir => parts.push(OsString::from("..")),
            Component::Normal(name) => parts.push(name.to_os_string()),
        }
    }
    rest.extend(parts.into_iter().rev());
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
