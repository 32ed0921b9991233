//! Discovery, loading and diagnostics on real temporary directories.

use super::fs::{
    read_capped, DirEntry, FileMeta, FileRead, FileStamp, SkillFs, StampedRead, StdFs,
    TIMESTAMP_GRANULARITY,
};
use super::*;
use crate::cancel::CancelToken;
use crate::model::InvocationPolicy;
use std::fs;
use std::io;
use tempfile::TempDir;

/// The [`SkillFs`] methods a test fake takes from the real disk unchanged:
/// listing, metadata and existence.
macro_rules! on_disk {
    () => {
        fn read_dir(&self, path: &Path) -> io::Result<Vec<DirEntry>> {
            StdFs.read_dir(path)
        }
        fn metadata(&self, path: &Path) -> io::Result<FileMeta> {
            StdFs.metadata(path)
        }
        fn exists(&self, path: &Path) -> io::Result<bool> {
            StdFs.exists(path)
        }
    };
}

fn skill(name: &str, description: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\n---\n\n# {name}\n\nBody of {name}.\n")
}

fn write(path: &Path, text: &str) {
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).expect("mkdir");
    }
    fs::write(path, text).expect("write");
}

fn bundle(root: &Path, dir: &str, name: &str) -> PathBuf {
    let path = root.join(dir).join("SKILL.md");
    write(&path, &skill(name, &format!("{name} bundle")));
    path
}

fn flat(root: &Path, file: &str, name: &str) -> PathBuf {
    let path = root.join(file);
    write(&path, &skill(name, &format!("{name} flat")));
    path
}

struct Env {
    tmp: TempDir,
}

impl Env {
    fn new() -> Self {
        let tmp = TempDir::new().expect("tempdir");
        Env { tmp }
    }

    fn root(&self) -> PathBuf {
        fs::canonicalize(self.tmp.path()).expect("canonicalize")
    }

    fn home(&self) -> PathBuf {
        self.root().join("home")
    }

    fn user_dsh(&self) -> PathBuf {
        self.home().join(".dsh/skills")
    }

    fn user_agents(&self) -> PathBuf {
        self.home().join(".agents/skills")
    }

    fn options(&self) -> LocalOptions {
        LocalOptions {
            dsh_home: Some(path_string(&self.home().join(".dsh"))),
            agents_home: Some(path_string(&self.home().join(".agents"))),
            ..LocalOptions::default()
        }
    }

    fn provider(&self) -> LocalProvider {
        self.provider_with(self.options())
    }

    fn provider_with(&self, options: LocalOptions) -> LocalProvider {
        LocalProvider::new(options.resolve_with(&|_| None).expect("config"))
    }
}

fn ctx(cwd: Option<&Path>) -> LookupContext {
    LookupContext::new(cwd.map(Path::to_path_buf))
}

/// `(name, source)` of every candidate, in order (shared with the service tests).
pub(super) fn names(d: &Discovery) -> Vec<(String, String)> {
    d.observation
        .candidates
        .iter()
        .map(|c| (c.summary.name.clone(), c.summary.source.clone()))
        .collect()
}

/// Owned `(name, source)` pairs for comparisons.
pub(super) fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

/// Counts invalidations.
#[derive(Default)]
struct Counter(std::sync::atomic::AtomicUsize);

impl Invalidate for Counter {
    fn invalidate(&self) -> bool {
        self.0.fetch_add(1, Ordering::SeqCst);
        true
    }
}

impl Counter {
    fn count(&self) -> usize {
        self.0.load(Ordering::SeqCst)
    }
}

mod cache;
mod config;
#[cfg(target_os = "linux")]
mod definitions;
mod discovery;
mod failures;
#[cfg(target_os = "linux")]
mod incremental;
mod lifecycle;
mod live_order;
mod loading;
mod opt_in_roots;
