//! Real-filesystem tests. Waits are bounded polls of a condition; negatives are
//! asserted after a later positive (a sentinel) has been processed, since events
//! of one OS watcher are handled in order.

use super::*;
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
        let before = self.count();
        write_skill_file(sentinel, "sentinel");
        wait_until("sentinel published", || {
            self.count() > before && self.triggers().iter().any(|p| p == sentinel)
        });
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
/// use other temp dirs, so parallel tests do not disturb the count.
fn os_watches_under(base: &Path) -> usize {
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
            if ino.is_some_and(|i| inos.contains(&i)) {
                count += 1;
            }
        }
    }
    count
}

fn fast_config() -> WatchConfig {
    WatchConfig::default()
}

#[test]
fn watcher_is_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<SkillWatcher>();
}

#[test]
fn watches_roots_and_bundles_only() {
    let h = harness(fast_config());
    let root = h.base().join("skills");
    fs::create_dir(&root).expect("mkdir");
    let a = write_bundle(&root, "alpha");
    write_skill_file(&root.join("flat.md"), "flat");
    fs::create_dir_all(a.join("references/deep")).expect("mkdir deep");
    h.watcher.watch_shared(&[RootSpec::plain(&root)]);
    assert!(h.watcher.healthy());
    // The root and its one bundle; not `references/` nor anything deeper.
    assert_eq!(h.watcher.watched_paths(), vec![root.clone(), a.clone()]);
    assert_eq!(os_watches_under(&h.base()), 2);
    assert_eq!(h.count(), 0, "watching publishes nothing");
}

#[test]
fn add_remove_rename_bundles_and_flat_files() {
    let h = harness(fast_config());
    let root = h.base().join("skills");
    fs::create_dir(&root).expect("mkdir");
    h.watcher.watch_shared(&[RootSpec::plain(&root)]);

    h.expect_change("bundle added", || {
        write_bundle(&root, "one");
    });
    wait_until("bundle watched", || {
        h.watcher.watched_paths().contains(&root.join("one"))
    });
    h.expect_change("bundle renamed", || {
        fs::rename(root.join("one"), root.join("two")).expect("rename");
    });
    wait_until("watch follows the rename", || {
        let paths = h.watcher.watched_paths();
        paths.contains(&root.join("two")) && !paths.contains(&root.join("one"))
    });
    h.expect_change("SKILL.md edited", || {
        fs::write(
            root.join("two/SKILL.md"),
            skill_text("two", "a new description"),
        )
        .expect("edit");
    });
    h.expect_change("SKILL.md removed", || {
        fs::remove_file(root.join("two/SKILL.md")).expect("rm");
    });
    h.expect_change("bundle removed", || {
        fs::remove_dir_all(root.join("two")).expect("rm -r");
    });
    wait_until("bundle unwatched", || {
        h.watcher.watched_paths() == vec![root.clone()]
    });
    h.expect_change("flat added", || write_skill_file(&root.join("f.md"), "f"));
    h.expect_change("flat renamed", || {
        fs::rename(root.join("f.md"), root.join("g.md")).expect("rename");
    });
    h.expect_change("flat edited", || write_skill_file(&root.join("g.md"), "g"));
    h.expect_change("flat removed", || {
        fs::remove_file(root.join("g.md")).expect("rm")
    });
    h.expect_change("atomic save", || {
        write_skill_file(&root.join(".tmp-save"), "h");
        fs::rename(root.join(".tmp-save"), root.join("h.md")).expect("rename");
    });
    assert!(h.warnings.lock().expect("lock").is_empty());
    assert_eq!(os_watches_under(&h.base()), 1);
}

#[test]
fn deeper_files_and_other_files_do_not_publish() {
    let h = harness(fast_config());
    let root = h.base().join("skills");
    fs::create_dir(&root).expect("mkdir");
    let bundle = write_bundle(&root, "tool");
    fs::create_dir_all(bundle.join("references")).expect("mkdir");
    fs::create_dir_all(bundle.join("scripts")).expect("mkdir");
    h.watcher.watch_shared(&[RootSpec::plain(&root)]);

    // Deep and non-skill edits: references/x.md, scripts/run.sh, a new dir and a
    // non-skill file directly in the bundle, a non-`.md` file in the root.
    fs::write(bundle.join("references/x.md"), "# ref").expect("write");
    fs::write(bundle.join("scripts/run.sh"), "echo hi").expect("write");
    fs::write(bundle.join("references/x.md"), "# ref 2").expect("write");
    fs::create_dir(bundle.join("assets")).expect("mkdir");
    fs::write(bundle.join("notes.txt"), "notes").expect("write");
    fs::write(root.join("README.txt"), "readme").expect("write");
    fs::remove_file(root.join("README.txt")).expect("rm");
    // Reading skills (what discovery does) is not a change either.
    let _ = fs::read_to_string(bundle.join("SKILL.md")).expect("read");
    let _ = fs::read_dir(&root).expect("readdir").count();

    let sentinel = root.join("sentinel.md");
    h.settle(&sentinel);
    let triggers = h.triggers();
    assert!(
        triggers.iter().all(|p| p == &sentinel),
        "only the sentinel published: {triggers:?}"
    );
    assert_eq!(h.count(), 1, "exactly one batch");
}

#[test]
fn user_dsh_root_ignores_system_dir() {
    let h = harness(fast_config());
    let root = h.base().join("dsh-skills");
    fs::create_dir_all(root.join(".system/builtin")).expect("mkdir");
    h.watcher.watch_shared(&[RootSpec::user_dsh(&root)]);
    assert_eq!(h.watcher.watched_paths(), vec![root.clone()]);
    write_bundle(&root.join(".system"), "other");
    fs::remove_dir_all(root.join(".system")).expect("rm");
    fs::create_dir(root.join(".system")).expect("mkdir");
    let sentinel = root.join("s.md");
    h.settle(&sentinel);
    assert!(
        h.triggers().iter().all(|p| p == &sentinel),
        "{:?}",
        h.triggers()
    );
    assert_eq!(h.count(), 1);
}

#[test]
fn chunked_write_is_published_at_close() {
    // A long stability window: the only way to publish the edit is its close.
    let h = harness(WatchConfig {
        stability_threshold: Duration::from_secs(60),
        ..fast_config()
    });
    let root = h.base().join("skills");
    fs::create_dir(&root).expect("mkdir");
    let bundle = write_bundle(&root, "big");
    h.watcher.watch_shared(&[RootSpec::plain(&root)]);
    let skill = bundle.join("SKILL.md");

    let mut file = fs::File::create(&skill).expect("open");
    file.write_all(b"---\nname: big\n").expect("chunk 1");
    file.flush().expect("flush");
    h.settle(&root.join("sentinel.md"));
    assert!(
        !h.triggers().contains(&skill),
        "half-written file not published"
    );
    assert_eq!(h.count(), 1);

    h.clear_triggers();
    let before = h.count();
    file.write_all(b"description: complete\n---\nBody\n")
        .expect("chunk 2");
    drop(file);
    wait_until("published at close", || {
        h.count() > before && h.triggers().contains(&skill)
    });
}

#[test]
fn write_without_close_is_published_after_quiet_window() {
    let h = harness(WatchConfig {
        stability_threshold: Duration::from_millis(50),
        ..fast_config()
    });
    let root = h.base().join("skills");
    fs::create_dir(&root).expect("mkdir");
    write_skill_file(&root.join("flat.md"), "flat");
    h.watcher.watch_shared(&[RootSpec::plain(&root)]);
    let mut file = fs::OpenOptions::new()
        .append(true)
        .open(root.join("flat.md"))
        .expect("open");
    // Still open: only the quiet window can publish it.
    h.expect_change("quiet window", || {
        file.write_all(b"more body\n").expect("write");
    });
    drop(file);
}

#[test]
fn missing_root_is_followed_one_segment_at_a_time() {
    let h = harness(fast_config());
    let project = h.base().join("project");
    fs::create_dir(&project).expect("mkdir");
    let dsh = project.join(".dsh/skills");
    let agents = project.join(".agents/skills");
    let roots = [RootSpec::plain(&dsh), RootSpec::plain(&agents)];
    h.watcher.observe_project(&project, &roots);
    // One watch on the project dir serves both missing roots.
    assert_eq!(h.watcher.watched_paths(), vec![project.clone()]);
    assert_eq!(os_watches_under(&h.base()), 1);
    assert!(h.watcher.healthy());

    h.expect_change("root created with mkdir -p", || {
        fs::create_dir_all(&agents).expect("mkdir -p");
    });
    wait_until("root watched", || {
        h.watcher.watched_paths() == vec![project.clone(), agents.clone()]
    });
    h.expect_change("skill added to the new root", || {
        write_bundle(&agents, "fresh");
    });

    h.expect_change("root deleted", || {
        fs::remove_dir_all(&agents).expect("rm -r");
    });
    wait_until("back to following the ancestor", || {
        h.watcher.watched_paths() == vec![project.clone(), project.join(".agents")]
    });
    h.expect_change("root recreated", || fs::create_dir(&agents).expect("mkdir"));
    h.expect_change("skill added again", || {
        write_skill_file(&agents.join("again.md"), "again");
    });

    // One segment at a time: `.dsh` first, then `.dsh/skills`.
    fs::create_dir(project.join(".dsh")).expect("mkdir");
    wait_until("ancestor advanced", || {
        h.watcher.watched_paths().contains(&project.join(".dsh"))
    });
    h.expect_change("second root created", || {
        fs::create_dir(&dsh).expect("mkdir")
    });
    wait_until("second root watched", || {
        h.watcher.watched_paths().contains(&dsh)
    });
}

#[test]
fn changes_right_after_a_scan_are_seen() {
    // The next missing segment of a followed root, created right after the
    // scan that found it missing (before any watch was added after that scan).
    let h = harness(fast_config());
    let base = h.base();
    let root = base.join("a/b/skills");
    let segment = base.join("a");
    h.watcher.inner.lock().after_scan = Some(Box::new(move || {
        fs::create_dir(&segment).expect("mkdir");
    }));
    h.watcher.watch_shared(&[RootSpec::plain(&root)]);
    h.expect_change("root created below the new segment", || {
        fs::create_dir_all(&root).expect("mkdir -p");
        write_skill_file(&root.join("x.md"), "x");
    });

    // A bundle created in an existing root right after its scan.
    let h = harness(fast_config());
    let root = h.base().join("skills");
    fs::create_dir(&root).expect("mkdir");
    let bundle = root.join("late");
    let made = bundle.clone();
    h.watcher.inner.lock().after_scan = Some(Box::new(move || {
        fs::create_dir(&made).expect("mkdir");
    }));
    h.watcher.watch_shared(&[RootSpec::plain(&root)]);
    wait_until("the late bundle is watched", || {
        h.watcher.watched_paths().contains(&bundle)
    });
    h.expect_change("its SKILL.md written", || {
        write_skill_file(&bundle.join("SKILL.md"), "late")
    });
}

#[test]
fn a_bundle_deleted_right_after_its_scan_leaves_the_lookup_healthy() {
    // The bundle's deletion is not handled yet when the lookup watches what the
    // scan found: the lookup rescans that root itself instead of reporting the
    // watching unhealthy (and its discovery incomplete) until the next batch.
    let h = harness(fast_config());
    let project = h.base().join("p");
    let root = project.join(".agents/skills");
    let bundle = write_bundle(&root, "x");
    let gone = bundle.clone();
    h.watcher.inner.lock().after_scan = Some(Box::new(move || {
        fs::remove_dir_all(&gone).expect("rm bundle");
    }));
    h.watcher
        .observe_project(&project, &[RootSpec::plain(&root)]);
    assert!(h.watcher.healthy());
    assert_eq!(h.watcher.watched_paths(), vec![root.clone()]);
    assert!(h.warnings.lock().expect("lock").is_empty());
    h.expect_change("a bundle created afterwards", || {
        write_bundle(&root, "y");
    });
}

#[test]
fn a_bundle_gone_before_its_arrival_is_handled_still_publishes() {
    // A lookup may list a bundle that comes and goes while the watcher is busy;
    // the root's last scan never knew it, so only its arrival can publish.
    let h = harness(fast_config());
    let root = h.base().join("skills");
    let outside = h.base().join("outside");
    fs::create_dir(&root).expect("mkdir");
    fs::create_dir(&outside).expect("mkdir");
    h.watcher.watch_shared(&[RootSpec::plain(&root)]);
    h.expect_change("created and removed while the watcher was busy", || {
        let _busy = h.watcher.inner.lock();
        write_bundle(&root, "brief");
        fs::remove_dir_all(root.join("brief")).expect("rm");
    });
    let moved = write_bundle(&outside, "visitor");
    h.expect_change("moved in and out again while the watcher was busy", || {
        let _busy = h.watcher.inner.lock();
        fs::rename(&moved, root.join("visitor")).expect("move in");
        fs::rename(root.join("visitor"), outside.join("gone")).expect("move out");
    });
}

#[test]
fn root_created_together_with_a_skill_is_seen() {
    let h = harness(fast_config());
    let project = h.base().join("p");
    fs::create_dir(&project).expect("mkdir");
    let agents = project.join(".agents/skills");
    h.watcher
        .observe_project(&project, &[RootSpec::plain(&agents)]);
    h.expect_change("mkdir -p and write at once", || {
        write_bundle(&agents, "quick");
    });
    wait_until("root and bundle watched", || {
        h.watcher.watched_paths() == vec![agents.clone(), agents.join("quick")]
    });
}

#[test]
fn burst_is_coalesced() {
    let h = harness(fast_config());
    let root = h.base().join("skills");
    fs::create_dir(&root).expect("mkdir");
    h.watcher.watch_shared(&[RootSpec::plain(&root)]);
    let start = Instant::now();
    let mut written = Vec::with_capacity(200);
    for i in 0..200 {
        write_bundle(&root, &format!("skill-{i:03}"));
        written.push(Instant::now());
    }
    wait_until("every bundle watched", || h.watcher.watch_count() == 201);
    h.settle(&root.join("sentinel.md"));
    let elapsed = start.elapsed();
    let calls = h.count();
    // A few quick batches, then storm batches of at most STORM_MAX each. A
    // loaded machine may stall the writer itself: a pause of STORM_QUIET ends a
    // storm batch early, and a pause of twice STORM_MAX ends the storm (a few
    // quick batches again). Never one batch per skill.
    let gaps = |at_least: Duration| {
        written
            .windows(2)
            .filter(|w| w[1] - w[0] >= at_least)
            .count()
    };
    let (pauses, breaks) = (gaps(STORM_QUIET), gaps(STORM_MAX * 2));
    let bound = 5 + (elapsed.as_millis() / STORM_MAX.as_millis()) as usize + pauses + 3 * breaks;
    assert!(
        calls <= bound,
        "200 skills over {elapsed:?} ({pauses} pauses, {breaks} breaks of the writer) \
         published in {calls} batches (bound {bound})"
    );
    assert_eq!(os_watches_under(&h.base()), 201);
    eprintln!(
        "burst of 200 skills over {elapsed:?} ({pauses} writer pauses): {calls} change notifications, 201 OS watches"
    );
}

#[test]
fn projects_live_in_an_lru() {
    let h = harness(WatchConfig {
        max_projects: NonZeroUsize::new(2).expect("nonzero"),
        ..fast_config()
    });
    let mk = |name: &str| {
        let p = h.base().join(name);
        fs::create_dir_all(p.join(".agents/skills")).expect("mkdir");
        (p.clone(), [RootSpec::plain(p.join(".agents/skills"))])
    };
    let (p1, r1) = mk("p1");
    let (p2, r2) = mk("p2");
    let (p3, r3) = mk("p3");
    h.watcher.observe_project(&p1, &r1);
    h.watcher.observe_project(&p2, &r2);
    h.watcher.observe_project(&p1, &r1); // p1 most recent
    assert_eq!(h.count(), 0);
    h.expect_change("eviction published", || {
        h.watcher.observe_project(&p3, &r3); // evicts p2
    });
    let watched = h.watcher.watched_paths();
    assert_eq!(watched, vec![r1[0].path.clone(), r3[0].path.clone()]);
    assert_eq!(os_watches_under(&h.base()), 2);
    assert!(!h.watcher.could_affect(&r2[0].path.join("x.md")));

    // The evicted project's changes are not seen...
    write_skill_file(&r2[0].path.join("unseen.md"), "unseen");
    h.settle(&r1[0].path.join("sentinel.md"));
    assert!(
        h.triggers().iter().all(|p| !p.starts_with(&p2)),
        "{:?}",
        h.triggers()
    );
    // ...until it is observed again (evicting p1, now the least recent).
    h.watcher.observe_project(&p2, &r2);
    assert_eq!(
        h.watcher.watched_paths(),
        vec![r2[0].path.clone(), r3[0].path.clone()]
    );
    h.expect_change("re-watched project", || {
        write_skill_file(&r2[0].path.join("seen.md"), "seen");
    });
}

#[test]
fn eviction_is_published_by_the_evicting_call() {
    // Declared first, dropped last: after the watcher.
    let dir = tempfile::tempdir().expect("tempdir");
    let base = fs::canonicalize(dir.path()).expect("canonical");
    let calls: Arc<Mutex<Vec<std::thread::ThreadId>>> = Arc::default();
    let record = Arc::clone(&calls);
    let watcher = SkillWatcher::new(
        WatchConfig {
            max_projects: NonZeroUsize::new(1).expect("nonzero"),
            ..fast_config()
        },
        Arc::new(move || {
            record
                .lock()
                .expect("lock")
                .push(std::thread::current().id())
        }),
        Arc::new(|_| {}),
    );
    let mk = |name: &str| {
        let p = base.join(name);
        fs::create_dir_all(p.join(".agents/skills")).expect("mkdir");
        (p.clone(), [RootSpec::plain(p.join(".agents/skills"))])
    };
    let (p1, r1) = mk("p1");
    let (p2, r2) = mk("p2");
    watcher.observe_project(&p1, &r1);
    assert!(calls.lock().expect("lock").is_empty());
    watcher.observe_project(&p2, &r2); // evicts p1
    let me = std::thread::current().id();
    assert_eq!(
        *calls.lock().expect("lock"),
        vec![me],
        "one publication, made by the evicting call before it returned"
    );
    // Nothing about the eviction is left for a later batch: the next
    // publication is the next change, alone, from the watcher's thread.
    write_skill_file(&r2[0].path.join("next.md"), "next");
    wait_until("next change published", || {
        calls.lock().expect("lock").len() > 1
    });
    let calls = calls.lock().expect("lock").clone();
    assert_eq!(calls.len(), 2, "{calls:?}");
    assert_ne!(calls[1], me);
}

#[test]
fn shared_roots_are_watched_once() {
    let h = harness(fast_config());
    let custom = h.base().join("custom");
    let user = h.base().join("user");
    fs::create_dir(&custom).expect("mkdir");
    write_bundle(&custom, "c");
    let shared = [RootSpec::plain(&custom), RootSpec::user_dsh(&user)];
    h.watcher.watch_shared(&shared);
    h.watcher.watch_shared(&shared);
    for i in 0..5 {
        let p = h.base().join(format!("proj{i}"));
        fs::create_dir(&p).expect("mkdir");
        // A project that also lists the custom root.
        h.watcher.observe_project(
            &p,
            &[
                RootSpec::plain(p.join(".agents/skills")),
                RootSpec::plain(&custom),
            ],
        );
    }
    // custom + its bundle + base (the followed ancestor of `user`) + 5 project dirs.
    assert_eq!(h.watcher.watch_count(), 8);
    assert_eq!(os_watches_under(&h.base()), 8);
    h.watcher.watch_shared(&[RootSpec::plain(&custom)]);
    assert_eq!(
        h.watcher.watch_count(),
        7,
        "user root dropped, base unwatched"
    );
    h.expect_change("shared root change", || {
        write_bundle(&custom, "d");
    });
}

#[test]
fn polling_mode_sees_changes() {
    let h = harness(WatchConfig {
        use_polling: true,
        poll_interval: Duration::from_millis(20),
        stability_threshold: Duration::from_millis(40),
        ..fast_config()
    });
    let project = h.base().join("proj");
    fs::create_dir(&project).expect("mkdir");
    let root = project.join(".agents/skills");
    h.watcher
        .observe_project(&project, &[RootSpec::plain(&root)]);
    assert_eq!(
        os_watches_under(&h.base()),
        0,
        "no inotify watch when polling"
    );
    assert_eq!(h.watcher.watched_paths(), vec![project.clone()]);
    h.expect_change("missing root created", || {
        fs::create_dir_all(&root).expect("mkdir -p");
    });
    wait_until("root polled", || h.watcher.watched_paths().contains(&root));
    h.expect_change("bundle added", || {
        write_bundle(&root, "polled");
    });
    wait_until("bundle polled", || {
        h.watcher.watched_paths().contains(&root.join("polled"))
    });
    h.expect_change("description changed within the same second", || {
        fs::write(
            root.join("polled/SKILL.md"),
            skill_text("polled", "changed"),
        )
        .expect("write");
    });
    h.expect_change("flat added", || write_skill_file(&root.join("f.md"), "f"));
    h.expect_change("flat removed", || {
        fs::remove_file(root.join("f.md")).expect("rm")
    });
    h.expect_change("root removed", || fs::remove_dir_all(&root).expect("rm -r"));
    wait_until("ancestor followed again", || {
        !h.watcher.watched_paths().contains(&root)
    });
}

#[test]
fn close_removes_every_watch_and_ignores_late_events() {
    let h = harness(fast_config());
    let root = h.base().join("skills");
    fs::create_dir(&root).expect("mkdir");
    for name in ["a", "b", "c"] {
        write_bundle(&root, name);
    }
    let project = h.base().join("proj");
    fs::create_dir(&project).expect("mkdir");
    h.watcher.watch_shared(&[RootSpec::plain(&root)]);
    h.watcher
        .observe_project(&project, &[RootSpec::plain(project.join(".agents/skills"))]);
    assert_eq!(os_watches_under(&h.base()), 5);

    // A second watcher on the same root serves as the sentinel afterwards.
    let other = Arc::new(AtomicUsize::new(0));
    let o = Arc::clone(&other);
    let witness = SkillWatcher::new(
        fast_config(),
        Arc::new(move || {
            o.fetch_add(1, Ordering::SeqCst);
        }),
        Arc::new(|_| {}),
    );
    witness.watch_shared(&[RootSpec::plain(&root)]);

    h.watcher.close();
    h.watcher.close(); // idempotent
    assert!(h.watcher.is_closed());
    assert!(!h.watcher.healthy());
    assert_eq!(h.watcher.watch_count(), 0);
    // Only the witness's 4 watches remain.
    assert_eq!(os_watches_under(&h.base()), 4);
    assert!(h.watcher.thread.lock().expect("lock").is_none());

    let before = h.count();
    write_bundle(&root, "late");
    wait_until("witness saw it", || other.load(Ordering::SeqCst) > 0);
    assert_eq!(h.count(), before, "no callback after close");
    // Calls after close do nothing.
    h.watcher.watch_shared(&[RootSpec::plain(&root)]);
    h.watcher.observe_project(&project, &[]);
    assert_eq!(h.watcher.watch_count(), 0);
    assert!(!h.watcher.could_affect(&root.join("x.md")));
    drop(witness);
    assert_eq!(os_watches_under(&h.base()), 0);
}

#[test]
fn dropping_the_watcher_releases_its_callbacks() {
    let token = Arc::new(());
    let t = Arc::clone(&token);
    let dir = tempfile::tempdir().expect("tempdir");
    let watcher = SkillWatcher::new(
        fast_config(),
        Arc::new(move || {
            let _ = &t;
        }),
        Arc::new(|_| {}),
    );
    watcher.watch_shared(&[RootSpec::plain(dir.path())]);
    assert_eq!(Arc::strong_count(&token), 2);
    drop(watcher);
    assert_eq!(Arc::strong_count(&token), 1, "thread and state released");
}

#[test]
fn close_from_inside_the_callback_does_not_deadlock() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = fs::canonicalize(dir.path()).expect("canonical");
    let slot: Arc<Mutex<Option<Arc<SkillWatcher>>>> = Arc::new(Mutex::new(None));
    let s = Arc::clone(&slot);
    let calls = Arc::new(AtomicUsize::new(0));
    let c = Arc::clone(&calls);
    let watcher = Arc::new(SkillWatcher::new(
        fast_config(),
        Arc::new(move || {
            c.fetch_add(1, Ordering::SeqCst);
            if let Some(w) = s.lock().expect("lock").take() {
                w.close();
            }
        }),
        Arc::new(|_| {}),
    ));
    *slot.lock().expect("lock") = Some(Arc::clone(&watcher));
    watcher.watch_shared(&[RootSpec::plain(&root)]);
    write_skill_file(&root.join("x.md"), "x");
    wait_until("closed by its own callback", || watcher.is_closed());
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    assert_eq!(watcher.watch_count(), 0);
}

#[test]
fn could_affect_table() {
    let h = harness(fast_config());
    let base = h.base();
    let project = base.join("proj");
    fs::create_dir(&project).expect("mkdir");
    let agents = project.join(".agents/skills");
    let user = base.join("home/.dsh/skills");
    h.watcher.watch_shared(&[RootSpec::user_dsh(&user)]);
    h.watcher
        .observe_project(&project, &[RootSpec::plain(&agents)]);
    let cases: &[(PathBuf, bool)] = &[
        (agents.clone(), true),
        (agents.join("new.md"), true),
        (agents.join("bundle"), true),
        (agents.join("bundle/SKILL.md"), true),
        (agents.join("bundle/references/x.md"), false),
        (agents.join("bundle/scripts/run.sh"), false),
        (agents.join("bundle/notes.md"), false),
        (agents.join("bundle/../other.md"), true),
        (agents.join("./flat.md"), true),
        (project.join("src/main.rs"), false),
        (project.join(".agents"), true),
        (project.clone(), true),
        (project.join(".agents/other"), false),
        (user.join("mine.md"), true),
        (user.join("tool/SKILL.md"), true),
        (user.join(".system"), false),
        (user.join(".system/SKILL.md"), false),
        (user.join(".system/x/SKILL.md"), false),
        (base.join("elsewhere/SKILL.md"), false),
        (base.join("home/.dsh/other.md"), false),
    ];
    for (path, expected) in cases {
        assert_eq!(
            h.watcher.could_affect(path),
            *expected,
            "could_affect({})",
            path.display()
        );
    }
}

#[test]
fn failed_watch_is_reported_and_retried() {
    let h = harness(fast_config());
    let root = h.base().join("skills");
    fs::create_dir(&root).expect("mkdir");
    write_bundle(&root, "a");
    h.watcher.inner.lock().faults.insert(root.clone(), || {
        notify::Error::new(notify::ErrorKind::MaxFilesWatch)
    });
    h.watcher.watch_shared(&[RootSpec::plain(&root)]);
    assert!(!h.watcher.healthy());
    assert_eq!(h.watcher.watched_paths(), vec![root.join("a")]);
    {
        let warnings = h.warnings.lock().expect("lock");
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(
            warnings[0].contains("fs.inotify.max_user_watches"),
            "{}",
            warnings[0]
        );
        assert!(warnings[0].contains(&root.display().to_string()));
    }
    // Retries keep failing quietly (one warning per failure streak).
    h.watcher.observe_project(&root, &[]);
    assert_eq!(h.warnings.lock().expect("lock").len(), 1);
    assert!(!h.watcher.healthy());

    // The limit is lifted: the timer retry recovers and publishes the transition.
    h.watcher.inner.lock().faults.clear();
    let before = h.count();
    wait_until("recovered by the retry timer", || {
        h.watcher.healthy() && h.count() > before
    });
    assert_eq!(
        h.watcher.watched_paths(),
        vec![root.clone(), root.join("a")]
    );
    h.expect_change("watching again", || {
        write_skill_file(&root.join("n.md"), "n")
    });
}

#[test]
fn failed_watch_is_retried_on_observe() {
    let h = harness(fast_config());
    let project = h.base().join("p");
    let root = project.join(".agents/skills");
    fs::create_dir_all(&root).expect("mkdir");
    h.watcher.inner.lock().faults.insert(root.clone(), || {
        notify::Error::io(std::io::Error::from(std::io::ErrorKind::PermissionDenied))
    });
    let roots = [RootSpec::plain(&root)];
    h.watcher.observe_project(&project, &roots);
    assert!(!h.watcher.healthy());
    assert!(h.warnings.lock().expect("lock")[0].contains("permission denied"));
    h.watcher.inner.lock().faults.clear();
    h.watcher.observe_project(&project, &roots);
    assert!(h.watcher.healthy());
    assert_eq!(h.watcher.watched_paths(), vec![root]);
}

#[test]
fn watcher_creation_failure_is_reported_and_retried() {
    let h = harness(fast_config());
    let root = h.base().join("skills");
    fs::create_dir(&root).expect("mkdir");
    h.watcher.inner.lock().fail_backend = true;
    h.watcher.watch_shared(&[RootSpec::plain(&root)]);
    assert!(!h.watcher.healthy());
    assert!(h.warnings.lock().expect("lock")[0].contains("max_user_instances"));
    h.watcher.inner.lock().fail_backend = false;
    wait_until("created on retry", || h.watcher.healthy());
    h.expect_change("events flow", || write_skill_file(&root.join("n.md"), "n"));
}

#[test]
fn error_messages_are_actionable() {
    let path = Path::new("/x/skills");
    let limit = backend::describe(
        &notify::Error::new(notify::ErrorKind::MaxFilesWatch),
        Some(path),
    );
    assert!(limit.contains("/x/skills") && limit.contains("fs.inotify.max_user_watches"));
    let enospc = backend::describe(
        &notify::Error::io(std::io::Error::from_raw_os_error(28)),
        Some(path),
    );
    assert!(enospc.contains("fs.inotify.max_user_watches"));
    let denied = backend::describe(
        &notify::Error::io(std::io::Error::from(std::io::ErrorKind::PermissionDenied)),
        Some(path),
    );
    assert!(denied.contains("permission denied"));
    let instances = backend::describe(
        &notify::Error::io(std::io::Error::from_raw_os_error(24)),
        None,
    );
    assert!(instances.contains("fs.inotify.max_user_instances"));
    let other = backend::describe(&notify::Error::generic("boom"), Some(path));
    assert!(other.contains("boom") && other.contains("incomplete"));
}

#[cfg(unix)]
#[test]
fn symlinked_roots_and_bundles() {
    use std::os::unix::fs::symlink;
    for follow in [true, false] {
        let h = harness(WatchConfig {
            follow_symlinks: follow,
            ..fast_config()
        });
        let base = h.base();
        let real_root = base.join("real-root");
        let store = base.join("store");
        fs::create_dir(&real_root).expect("mkdir");
        fs::create_dir(&store).expect("mkdir");
        let target = write_bundle(&store, "linked");
        let root = base.join("root-link");
        symlink(&real_root, &root).expect("symlink root");
        symlink(&target, real_root.join("linked")).expect("symlink bundle");
        h.watcher.watch_shared(&[RootSpec::plain(&root)]);
        let expected = if follow {
            vec![root.clone(), root.join("linked")]
        } else {
            vec![root.clone()]
        };
        assert_eq!(h.watcher.watched_paths(), expected, "follow={follow}");

        h.expect_change("skill added through a symlinked root", || {
            write_skill_file(&real_root.join("x.md"), "x");
        });
        if follow {
            h.expect_change("SKILL.md edited through a symlinked bundle", || {
                fs::write(target.join("SKILL.md"), skill_text("linked", "new")).expect("edit");
            });
        }
        h.expect_change("bundle link removed", || {
            fs::remove_file(real_root.join("linked")).expect("unlink");
        });
        h.expect_change("bundle link added", || {
            symlink(&target, real_root.join("again")).expect("symlink");
        });
        wait_until("link watched as configured", || {
            h.watcher.watched_paths().contains(&root.join("again")) == follow
        });
    }
}

#[cfg(unix)]
#[test]
fn one_directory_watched_under_two_paths() {
    use std::os::unix::fs::symlink;
    let h = harness(fast_config());
    let base = h.base();
    let real = base.join("real");
    let link = base.join("link");
    fs::create_dir(&real).expect("mkdir");
    symlink(&real, &link).expect("symlink");
    h.watcher
        .watch_shared(&[RootSpec::plain(&real), RootSpec::plain(&link)]);
    assert_eq!(os_watches_under(&base), 1, "one kernel watch");
    h.expect_change("file added", || write_skill_file(&real.join("a.md"), "a"));
    wait_until("reported under both paths", || {
        let triggers = h.triggers();
        triggers.contains(&real.join("a.md")) && triggers.contains(&link.join("a.md"))
    });
    // Dropping one path keeps the directory watched for the other.
    h.watcher.watch_shared(&[RootSpec::plain(&real)]);
    assert_eq!(h.watcher.watched_paths(), vec![real.clone()]);
    assert_eq!(os_watches_under(&base), 1);
    h.expect_change("still seen", || write_skill_file(&real.join("b.md"), "b"));
}

#[cfg(unix)]
#[test]
fn symlinked_flat_entries_follow_their_targets() {
    use std::os::unix::fs::symlink;
    let h = harness(fast_config());
    let base = h.base();
    let [root, store, other] = dirs(&base, ["skills", "store", "other"]);
    let target = store.join("shared.md");
    write_skill_file(&target, "shared");
    symlink(&target, root.join("shared.md")).expect("symlink");
    h.watcher.watch_shared(&[RootSpec::plain(&root)]);
    assert_eq!(h.watcher.watched_paths(), vec![root.clone(), store.clone()]);

    h.expect_change("target edited", || {
        fs::write(&target, skill_text("shared", "new")).expect("edit")
    });
    h.expect_change("target made invalid", || {
        fs::write(&target, "not a skill").expect("edit")
    });
    h.expect_change("target deleted", || fs::remove_file(&target).expect("rm"));
    h.expect_change("target recreated", || write_skill_file(&target, "shared"));
    h.expect_change("target replaced by a rename (atomic save)", || {
        let tmp = store.join(".shared.md.swp");
        write_skill_file(&tmp, "shared");
        fs::rename(&tmp, &target).expect("rename");
    });
    // Retarget the link (replace it atomically, as `ln -sfn` does).
    let next = other.join("next.md");
    write_skill_file(&next, "next");
    h.expect_change("link retargeted", || {
        symlink(&next, root.join(".tmp-link")).expect("symlink");
        fs::rename(root.join(".tmp-link"), root.join("shared.md")).expect("rename");
    });
    wait_until("the new target's directory is watched instead", || {
        h.watcher.watched_paths() == vec![other.clone(), root.clone()]
    });
    h.expect_change("new target edited", || {
        fs::write(&next, skill_text("next", "newer")).expect("edit")
    });
    // The old target no longer matters.
    h.clear_triggers();
    fs::write(&target, skill_text("shared", "unseen")).expect("edit");
    h.settle(&root.join("sentinel.md"));
    assert!(
        !h.triggers().contains(&target),
        "old target still published: {:?}",
        h.triggers()
    );
    assert_eq!(os_watches_under(&base), 2);
}

#[cfg(unix)]
#[test]
fn chained_flat_links_watch_every_hop() {
    use std::os::unix::fs::symlink;
    let h = harness(fast_config());
    let base = h.base();
    let [root, hop, store] = dirs(&base, ["skills", "hop", "store"]);
    let file = store.join("real.md");
    write_skill_file(&file, "chained");
    // Relative links, resolved from the directory that holds each link.
    symlink("../store/real.md", hop.join("middle.md")).expect("symlink");
    symlink("../hop/middle.md", root.join("chained.md")).expect("symlink");
    h.watcher.watch_shared(&[RootSpec::plain(&root)]);
    assert_eq!(
        h.watcher.watched_paths(),
        vec![hop.clone(), root.clone(), store.clone()]
    );
    h.expect_change("final file edited", || {
        fs::write(&file, skill_text("chained", "new")).expect("edit")
    });
    let elsewhere = base.join("elsewhere.md");
    write_skill_file(&elsewhere, "moved");
    h.expect_change("middle link retargeted", || {
        fs::remove_file(hop.join("middle.md")).expect("rm");
        symlink(&elsewhere, hop.join("middle.md")).expect("symlink");
    });
    wait_until("the chain is followed again", || {
        h.watcher.watched_paths() == vec![base.clone(), hop.clone(), root.clone()]
    });
    h.expect_change("new final file edited", || {
        fs::write(&elsewhere, skill_text("moved", "new")).expect("edit")
    });
}

#[cfg(unix)]
#[test]
fn unfollowed_flat_links_are_watched_as_links_only() {
    use std::os::unix::fs::symlink;
    let h = harness(WatchConfig {
        follow_symlinks: false,
        ..fast_config()
    });
    let [root, store] = dirs(&h.base(), ["skills", "store"]);
    let target = store.join("shared.md");
    write_skill_file(&target, "shared");
    symlink(&target, root.join("shared.md")).expect("symlink");
    h.watcher.watch_shared(&[RootSpec::plain(&root)]);
    assert_eq!(h.watcher.watched_paths(), vec![root.clone()]);
    // Editing the target is not seen...
    fs::write(&target, skill_text("shared", "new")).expect("edit");
    h.settle(&root.join("sentinel.md"));
    assert!(!h.triggers().contains(&target), "{:?}", h.triggers());
    // ...replacing the link is.
    let other = store.join("other.md");
    write_skill_file(&other, "other");
    h.expect_change("link retargeted", || {
        fs::remove_file(root.join("shared.md")).expect("rm");
        symlink(&other, root.join("shared.md")).expect("symlink");
    });
}

// ---- Through the local provider's observer seam --------------------------------

mod with_local_provider {
    use super::*;
    use crate::local::{LocalOptions, LocalProvider};
    use crate::provider::{Invalidate, LookupContext, NativeProvider};

    #[derive(Default)]
    struct Counter(AtomicUsize);

    impl Invalidate for Counter {
        fn invalidate(&self) -> bool {
            self.0.fetch_add(1, Ordering::SeqCst);
            true
        }
    }

    // The temporary directory drops last (see `Harness`).
    struct Env {
        base: PathBuf,
        project: PathBuf,
        provider: LocalProvider,
        watcher: Arc<LocalWatcher>,
        counter: Arc<Counter>,
        _dir: tempfile::TempDir,
    }

    fn env() -> Env {
        env_with(|_| {})
    }

    fn env_with(tune: impl FnOnce(&mut LocalOptions)) -> Env {
        let dir = tempfile::tempdir().expect("tempdir");
        let base = fs::canonicalize(dir.path()).expect("canonical");
        let project = base.join("project");
        fs::create_dir_all(project.join(".git")).expect("mkdir");
        fs::create_dir_all(project.join("src")).expect("mkdir");
        let custom = base.join("custom");
        fs::create_dir(&custom).expect("mkdir");
        write_bundle(&custom, "shared-one");
        let mut options = LocalOptions {
            dsh_home: Some(base.join("home/.dsh").display().to_string()),
            agents_home: Some(base.join("home/.agents").display().to_string()),
            custom_skill_dirs: Some(vec![custom.display().to_string()]),
            ..LocalOptions::default()
        };
        tune(&mut options);
        let provider = LocalProvider::new(options.resolve_with(&|_| None).expect("config"));
        let watcher = Arc::new(LocalWatcher::new(watch_config(&provider.config().watch)));
        provider.set_observer(Some(watcher.clone()));
        let counter = Arc::new(Counter::default());
        provider.attach(Some(counter.clone()));
        Env {
            _dir: dir,
            base,
            project,
            provider,
            watcher,
            counter,
        }
    }

    impl Env {
        fn list(&self) -> (Vec<String>, bool, Vec<String>) {
            let ctx = LookupContext::new(Some(self.project.join("src")));
            let (observation, warnings) = self.provider.list(&ctx);
            let mut names: Vec<String> = observation
                .candidates
                .iter()
                .map(|c| c.summary.name.clone())
                .collect();
            names.sort();
            (names, observation.complete, warnings)
        }

        fn invalidations(&self) -> usize {
            self.counter.0.load(Ordering::SeqCst)
        }
    }

    #[test]
    fn install_follows_the_watch_option() {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = dir.path().display().to_string();
        let on = LocalOptions {
            dsh_home: Some(home.clone()),
            agents_home: Some(home.clone()),
            ..LocalOptions::default()
        };
        let off = LocalOptions {
            watch: Some(false),
            ..on.clone()
        };
        let provider = LocalProvider::new(on.resolve_with(&|_| None).expect("config"));
        assert!(LocalWatcher::install(&provider));
        assert!(provider.observer().is_some());
        let provider = LocalProvider::new(off.resolve_with(&|_| None).expect("config"));
        assert!(!LocalWatcher::install(&provider));
        assert!(provider.observer().is_none());
    }

    #[test]
    fn listing_watches_the_lookup_roots() {
        let e = env();
        assert_eq!(
            e.watcher.watcher().watch_count(),
            0,
            "nothing before a lookup"
        );
        let (names, complete, warnings) = e.list();
        assert_eq!(names, vec!["shared-one"]);
        assert!(complete, "{warnings:?}");
        // custom + its bundle, the project dir (for both project roots), and the
        // nearest existing ancestor of both user roots (the temp dir).
        assert_eq!(
            e.watcher.watcher().watched_paths(),
            vec![
                e.base.clone(),
                e.base.join("custom"),
                e.base.join("custom/shared-one"),
                e.project.clone(),
            ]
        );
        assert_eq!(os_watches_under(&e.base), 4);
        // Listing again changes nothing.
        e.list();
        assert_eq!(e.watcher.watcher().watch_count(), 4);

        let before = e.invalidations();
        write_bundle(&e.project.join(".agents/skills"), "fresh");
        wait_until("invalidated", || e.invalidations() > before);
        wait_until("listed", || e.list().0.contains(&"fresh".to_string()));

        let before = e.invalidations();
        fs::create_dir_all(e.base.join("home/.dsh/skills")).expect("mkdir -p");
        write_skill_file(&e.base.join("home/.dsh/skills/mine.md"), "mine");
        wait_until("user root invalidated", || e.invalidations() > before);
        wait_until("listed", || e.list().0.contains(&"mine".to_string()));

        let before = e.invalidations();
        fs::remove_dir_all(e.base.join("custom/shared-one")).expect("rm");
        wait_until("removal invalidated", || e.invalidations() > before);
        wait_until("gone", || !e.list().0.contains(&"shared-one".to_string()));
    }

    #[test]
    fn a_lookup_that_evicts_a_project_invalidates_before_it_returns() {
        let e = env_with(|o| o.watch_max_projects = Some(1.0));
        let other = e.base.join("other");
        fs::create_dir_all(other.join(".git")).expect("mkdir");
        e.list();
        let before = e.invalidations();
        let (observation, _) = e.provider.list(&LookupContext::new(Some(other.clone())));
        assert!(observation.complete);
        assert_eq!(
            e.invalidations(),
            before + 1,
            "the evicted project's catalogs are invalidated inside the lookup, once"
        );
        // Listing the evicting project again evicts nothing.
        e.provider.list(&LookupContext::new(Some(other)));
        assert_eq!(e.invalidations(), before + 1);
    }

    #[test]
    fn host_mutation_invalidates_synchronously_when_relevant() {
        let e = env();
        e.list();
        let before = e.invalidations();
        let skill = e.project.join(".agents/skills/new/SKILL.md");
        assert!(e.provider.observe_host_mutation(&skill));
        assert_eq!(e.invalidations(), before + 1, "synchronous");
        assert!(e
            .provider
            .observe_host_mutation(&e.base.join("custom/flat.md")));
        assert!(!e
            .provider
            .observe_host_mutation(&e.project.join("src/main.rs")));
        assert!(!e
            .provider
            .observe_host_mutation(&e.base.join("custom/shared-one/references/x.md")));
        assert_eq!(e.invalidations(), before + 2);
    }

    #[test]
    fn unhealthy_watching_makes_discovery_incomplete_but_keeps_skills() {
        let e = env();
        let custom = e.base.join("custom");
        e.watcher
            .watcher()
            .inner
            .lock()
            .faults
            .insert(custom.clone(), || {
                notify::Error::new(notify::ErrorKind::MaxFilesWatch)
            });
        let (names, complete, warnings) = e.list();
        assert_eq!(names, vec!["shared-one"], "skills stay listed");
        assert!(!complete);
        assert!(
            warnings
                .iter()
                .any(|w| w.contains("fs.inotify.max_user_watches")),
            "{warnings:?}"
        );
        // The warning is reported once; discovery stays incomplete until the
        // watch starts.
        let (_, complete, warnings) = e.list();
        assert!(!complete);
        assert!(!warnings.iter().any(|w| w.contains("max_user_watches")));
        e.watcher.watcher().inner.lock().faults.clear();
        wait_until("complete again", || e.list().1);
    }

    #[test]
    fn close_stops_watching_and_discovery_goes_on() {
        let e = env();
        e.list();
        assert!(os_watches_under(&e.base) > 0);
        e.provider.close();
        assert_eq!(e.watcher.watcher().watch_count(), 0);
        assert_eq!(os_watches_under(&e.base), 0);
        assert!(!e
            .provider
            .observe_host_mutation(&e.base.join("custom/flat.md")));
        let (names, complete, _) = e.list();
        assert_eq!(names, vec!["shared-one"]);
        assert!(complete);
    }

    #[test]
    fn the_watcher_does_not_keep_the_registration_alive() {
        let e = env();
        e.list();
        let weak = Arc::downgrade(&e.counter);
        e.provider.attach(None);
        let Env { counter, .. } = e;
        drop(counter);
        assert!(weak.upgrade().is_none(), "only the registration holds it");
    }
}
