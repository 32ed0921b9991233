//! Real-filesystem tests. Waits are bounded polls of a condition; negatives are
//! asserted after a later positive (a sentinel) has been processed, since events
//! of one OS watcher are handled in order.

use super::*;

mod events;
mod fresh;
mod lifecycle;
mod local_provider;
mod odd_paths;
mod projects;
mod root_links;
mod symlinks;
use std::collections::HashSet;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const WAIT: Duration = Duration::from_secs(10);

// Fields drop in order: the watcher goes before its temporary directory (a
// watcher outliving it would follow the deleted roots up to the shared temp
// dir, which other tests count watches next to).
struct Harness {
    watcher: SkillWatcher,
    changes: Arc<AtomicUsize>,
    warnings: Arc<Mutex<Vec<String>>>,
    dir: tempfile::TempDir,
}

fn harness(config: WatchConfig) -> Harness {
    let dir = tempfile::tempdir().expect("tempdir");
    let changes = Arc::new(AtomicUsize::new(0));
    let warnings = Arc::new(Mutex::new(Vec::new()));
    let c = Arc::clone(&changes);
    let w = Arc::clone(&warnings);
    let watcher = SkillWatcher::new(
        config,
        Arc::new(move || {
            c.fetch_add(1, Ordering::SeqCst);
        }),
        Arc::new(move |m| w.lock().expect("lock").push(m)),
    );
    Harness {
        dir,
        watcher,
        changes,
        warnings,
    }
}

impl Harness {
    /// The temp dir, canonical (notify reports paths as watched).
    fn base(&self) -> PathBuf {
        fs::canonicalize(self.dir.path()).expect("canonical tempdir")
    }

    fn count(&self) -> usize {
        self.changes.load(Ordering::SeqCst)
    }

    /// Run `op`, then wait until at least one more change was published.
    fn expect_change(&self, what: &str, op: impl FnOnce()) {
        let before = self.count();
        op();
        wait_until(what, || self.count() > before);
    }

    fn triggers(&self) -> Vec<PathBuf> {
        self.watcher.inner.lock().triggers.clone()
    }

    fn clear_triggers(&self) {
        self.watcher.inner.lock().triggers.clear();
    }

    /// Write `sentinel` (a flat skill) and wait until its publication, so every
    /// event before it has been handled.
    fn settle(&self, sentinel: &Path) {
        self.settle_after(sentinel, Duration::ZERO);
    }

    /// [`Self::settle`], with `pause` between looking and writing (a test
    /// thread preempted there). It waits for the publication that covers the
    /// sentinel's own change, not just any publication after the call: an
    /// earlier batch published during the pause, with the sentinel noted but
    /// not yet published, does not count.
    fn settle_after(&self, sentinel: &Path, pause: Duration) {
        let before = self.count();
        // A sentinel used before: wait for this write's note, not the last one.
        self.watcher.inner.lock().noted_at.remove(sentinel);
        std::thread::sleep(pause);
        write_skill_file(sentinel, "sentinel");
        wait_until("sentinel published", || {
            let state = self.watcher.inner.lock();
            state
                .noted_at
                .get(sentinel)
                .is_some_and(|&seq| state.published_seq >= seq)
        });
        assert!(
            self.count() > before,
            "the sentinel's publication was delivered"
        );
    }
}

fn wait_until(what: &str, mut cond: impl FnMut() -> bool) {
    let start = Instant::now();
    while !cond() {
        assert!(start.elapsed() < WAIT, "timed out waiting for: {what}");
        std::thread::sleep(Duration::from_millis(2));
    }
}

fn skill_text(name: &str, description: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\n---\nBody of {name}.\n")
}

fn write_skill_file(path: &Path, name: &str) {
    fs::write(path, skill_text(name, "a skill")).expect("write skill");
}

/// Create directories `names` under `base`; their paths.
fn dirs<const N: usize>(base: &Path, names: [&str; N]) -> [PathBuf; N] {
    names.map(|name| {
        let dir = base.join(name);
        fs::create_dir(&dir).expect("mkdir");
        dir
    })
}

fn write_bundle(root: &Path, name: &str) -> PathBuf {
    let dir = root.join(name);
    fs::create_dir_all(&dir).expect("mkdir bundle");
    write_skill_file(&dir.join("SKILL.md"), name);
    dir
}

/// inotify watches held by this process on directories under `base` (and on
/// `base` itself and its parent), counted from `/proc/self/fdinfo`. Other tests
/// use other temp dirs, so parallel tests do not disturb the count. Watches
/// of a directory above a root for its own move only are not counted (see
/// [`os_move_watches_under`]).
fn os_watches_under(base: &Path) -> usize {
    os_watches_where(base, |mask| mask & libc::IN_CREATE != 0)
}

/// The watches of directories under `base` (and on `base` and its parent)
/// for their own move only.
fn os_move_watches_under(base: &Path) -> usize {
    os_watches_where(base, |mask| {
        mask & libc::IN_CREATE == 0 && mask & libc::IN_MOVE_SELF != 0
    })
}

fn os_watches_where(base: &Path, wanted: impl Fn(u32) -> bool) -> usize {
    use std::os::unix::fs::MetadataExt;
    let mut inodes = HashSet::new();
    let mut stack = vec![base.to_path_buf()];
    if let Some(parent) = base.parent() {
        if let Ok(meta) = fs::metadata(parent) {
            inodes.insert((meta.dev(), meta.ino()));
        }
    }
    while let Some(dir) = stack.pop() {
        let Ok(meta) = fs::metadata(&dir) else {
            continue;
        };
        inodes.insert((meta.dev(), meta.ino()));
        let is_link = fs::symlink_metadata(&dir).is_ok_and(|m| m.file_type().is_symlink());
        if is_link || !meta.is_dir() {
            continue;
        }
        if let Ok(entries) = fs::read_dir(&dir) {
            for entry in entries.flatten() {
                stack.push(entry.path());
            }
        }
    }
    let inos: HashSet<u64> = inodes.iter().map(|(_, ino)| *ino).collect();
    let mut count = 0;
    for fd in fs::read_dir("/proc/self/fdinfo").expect("fdinfo").flatten() {
        let Ok(text) = fs::read_to_string(fd.path()) else {
            continue;
        };
        for line in text.lines().filter(|l| l.starts_with("inotify wd:")) {
            let ino = line
                .split_whitespace()
                .find_map(|f| f.strip_prefix("ino:"))
                .and_then(|hex| u64::from_str_radix(hex, 16).ok());
            let mask = line
                .split_whitespace()
                .find_map(|f| f.strip_prefix("mask:"))
                .and_then(|hex| u32::from_str_radix(hex, 16).ok())
                .unwrap_or(0);
            if ino.is_some_and(|i| inos.contains(&i)) && wanted(mask) {
                count += 1;
            }
        }
    }
    count
}

fn fast_config() -> WatchConfig {
    WatchConfig::default()
}
