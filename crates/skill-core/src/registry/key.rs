//! What identifies a view: the cwd, spelled one way, and the layers merged.
//!
//! `/tmp`, `/tmp/`, `/tmp/.` and `/tmp/../tmp` name one directory: they share
//! one cached catalog and one collection in flight. The cwd is normalised
//! lexically (made absolute against the process's working directory, `.` and
//! `..` resolved, the trailing separator dropped), never through the
//! filesystem: symbolic links are not followed, so no lookup touches the disk
//! for its key. Providers still receive the caller's own options.

use super::layers::View;
use std::fmt::Write as _;
use std::path::{Component, Path, PathBuf};

/// `cwd` normalised lexically: absolute (a relative path is joined to the
/// process's working directory), `.` and `..` resolved (`..` at the root
/// stays at the root), no trailing separator, links not followed.
pub fn normalize_cwd(cwd: &str) -> String {
    let path = Path::new(cwd);
    let joined;
    let path = if path.is_absolute() {
        path
    } else {
        match std::env::current_dir() {
            Ok(base) => {
                joined = base.join(path);
                joined.as_path()
            }
            // No working directory to resolve against: keep the relative
            // path (normalised all the same).
            Err(_) => path,
        }
    };
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => match out.components().next_back() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                // `..` at the root stays at the root.
                Some(Component::RootDir | Component::Prefix(_)) => {}
                // A relative path (no working directory to resolve it
                // against) that climbs above its start keeps its `..`.
                _ => out.push(".."),
            },
            other => out.push(other.as_os_str()),
        }
    }
    out.to_string_lossy().into_owned()
}

/// What a cached catalog is keyed by: the normalised cwd and the scoped
/// layers it merged, nearest first.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) struct CacheKey {
    pub(super) cwd: Option<String>,
    pub(super) chain: Vec<u64>,
}

impl CacheKey {
    pub(super) fn new(cwd: Option<&str>, view: &View) -> Self {
        CacheKey {
            cwd: cwd.map(normalize_cwd),
            chain: view.chain(),
        }
    }

    /// The key of this view in the registry's usage book: the scoped layers
    /// and the normalised cwd (not the generations: loads outlive changes).
    pub(super) fn usage_view(&self) -> String {
        let mut key = String::new();
        for layer in &self.chain {
            let _ = write!(key, "{layer},");
        }
        if let Some(cwd) = &self.cwd {
            key.push('|');
            key.push_str(cwd);
        }
        key
    }
}

/// The key of a collection in flight: the normalised cwd, every layer of the
/// view with its generation, and (for a scoped read) the count of scoped
/// layers created. Two lookups with equal keys see the same view.
pub(super) fn flight_key(cwd: Option<&str>, view: &View) -> String {
    let mut key = String::new();
    for link in &view.links {
        let _ = write!(key, "{}:{},", link.layer, link.generation);
    }
    if view.scoped {
        let _ = write!(key, "s{}", view.created);
    }
    if let Some(cwd) = cwd {
        key.push('|');
        key.push_str(&normalize_cwd(cwd));
    }
    key
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(unix)]
    fn spellings_of_one_directory_normalise_alike() {
        for spelling in ["/tmp", "/tmp/", "/tmp/.", "/tmp/../tmp", "/tmp//", "/./tmp"] {
            assert_eq!(normalize_cwd(spelling), "/tmp", "{spelling}");
        }
        assert_eq!(normalize_cwd("/"), "/");
        assert_eq!(normalize_cwd("/.."), "/");
        assert_eq!(normalize_cwd("/a/b/../../.."), "/");
        assert_eq!(normalize_cwd("/a/./b/../c/"), "/a/c");
        // Lexical: a `..` after a link is resolved as text, not through it.
        assert_eq!(normalize_cwd("/a/link/.."), "/a");
    }

    #[test]
    fn relative_paths_are_made_absolute_against_the_working_directory() {
        let here = std::env::current_dir().expect("cwd");
        let expected = normalize_cwd(&here.to_string_lossy());
        assert_eq!(normalize_cwd("."), expected);
        assert_eq!(normalize_cwd("./"), expected);
        let child = normalize_cwd("child/..");
        assert_eq!(child, expected);
        assert!(Path::new(&normalize_cwd("x")).is_absolute());
    }
}
