//! Paths the watcher cannot watch for good, and roots that are not
//! directories: an entry whose path is longer than the system allows under a
//! root that is not, and a regular file where a root should be.

use super::*;
use crate::local::{LocalOptions, LocalProvider};
use crate::provider::{LookupContext, NativeProvider};
use std::process::Command;

/// A directory under `base` whose path is exactly `len` bytes long (made of
/// components of at most 200 bytes).
fn deep_dir(base: &Path, len: usize) -> PathBuf {
    let mut path = base.to_path_buf();
    while path.as_os_str().len() < len {
        let room = len - path.as_os_str().len() - 1;
        let name = "d".repeat(room.min(200));
        // Never leave a remainder too short for a separator and a name.
        let name = if room > 200 && room - 200 < 2 {
            "d".repeat(190)
        } else {
            name
        };
        path.push(name);
    }
    fs::create_dir_all(&path).expect("mkdir -p");
    assert_eq!(path.as_os_str().len(), len);
    path
}

/// Run `script` with `dir` as the working directory: entries of `dir` can
/// then be made even when their full path is too long to be named.
fn sh_in(dir: &Path, script: &str) {
    let status = Command::new("sh")
        .arg("-c")
        .arg(script)
        .current_dir(dir)
        .status()
        .expect("sh");
    assert!(status.success(), "{script}");
}

/// A provider of one custom root with its watcher at hand (for faults).
fn watched_provider(custom: &Path, base: &Path) -> (LocalProvider, Arc<LocalWatcher>) {
    let options = LocalOptions {
        dsh_home: Some(base.join("home/.dsh").display().to_string()),
        agents_home: Some(base.join("home/.agents").display().to_string()),
        custom_skill_dirs: Some(vec![custom.display().to_string()]),
        ..LocalOptions::default()
    };
    let provider = LocalProvider::new(options.resolve_with(&|_| None).expect("config"));
    let watcher = Arc::new(LocalWatcher::new(watch_config(&provider.config().watch)));
    provider.set_observer(Some(watcher.clone()));
    (provider, watcher)
}

fn list(provider: &LocalProvider) -> (Vec<String>, bool, Vec<String>) {
    let (observation, warnings) = provider.list(&LookupContext::new(None));
    let mut names: Vec<String> = observation
        .candidates
        .iter()
        .map(|c| c.summary.name.clone())
        .collect();
    names.sort();
    (names, observation.complete, warnings)
}

/// Wait until a listing shows a skill with `description`.
fn wait_for_description(provider: &LocalProvider, description: &str) {
    wait_until(description, || {
        provider
            .list(&LookupContext::new(None))
            .0
            .candidates
            .iter()
            .any(|c| c.summary.description == description)
    });
}

#[test]
fn an_entry_too_long_to_name_is_skipped_once_and_the_rest_of_its_root_is_watched() {
    let dir = tempfile::tempdir().expect("tempdir");
    let base = fs::canonicalize(dir.path()).expect("canonical");
    // A root of 4,090 bytes: `a.md` in it is 4,095 bytes long (the most a
    // path may be), `abcdefghij/SKILL.md` is far beyond.
    let root = deep_dir(&base, 4090);
    write_skill_file(&root.join("a.md"), "near");
    sh_in(
        &root,
        &format!(
            "mkdir abcdefghij && printf '%s' '{}' > abcdefghij/SKILL.md",
            skill_text("far", "too deep")
        ),
    );
    let (provider, _) = watched_provider(&root, &base);
    let (names, complete, warnings) = list(&provider);
    assert_eq!(names, vec!["near"]);
    assert!(complete, "{warnings:?}");
    let about_far: Vec<&String> = warnings
        .iter()
        .filter(|w| w.contains("abcdefghij"))
        .collect();
    assert_eq!(about_far.len(), 1, "{warnings:?}");
    assert!(
        !about_far[0].contains("retried"),
        "a path that cannot be named is not retried: {warnings:?}"
    );
    // Not a failure retried forever: later lookups stay complete and quiet.
    for _ in 0..3 {
        let (names, complete, warnings) = list(&provider);
        assert_eq!(names, vec!["near"]);
        assert!(complete, "{warnings:?}");
        assert!(warnings.is_empty(), "{warnings:?}");
    }
    // The rest of the root is watched: an edit of `a.md` and a new flat
    // skill are seen.
    fs::write(root.join("a.md"), skill_text("near", "edited")).expect("edit");
    wait_for_description(&provider, "edited");
    write_skill_file(&root.join("b.md"), "next");
    wait_until("the new skill is listed", || list(&provider).0.len() == 2);
    let (names, complete, warnings) = list(&provider);
    assert_eq!(names, vec!["near", "next"]);
    assert!(complete, "{warnings:?}");
    provider.close();
    // Too long for the temporary directory's removal by path.
    sh_in(&root, "rm -rf abcdefghij");
}

fn name_too_long() -> notify::Error {
    notify::Error::io(std::io::Error::from_raw_os_error(libc::ENAMETOOLONG))
}

/// A temporary directory and, in it, an empty custom root.
fn custom_root() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let base = fs::canonicalize(dir.path()).expect("canonical");
    let root = base.join("custom");
    fs::create_dir(&root).expect("mkdir");
    (dir, base, root)
}

/// Make the system refuse to watch `path` as too long to name.
fn refuse_by_name(watcher: &LocalWatcher, path: &Path) {
    let mut state = watcher.watcher().inner.lock();
    state.faults.insert(path.to_path_buf(), name_too_long);
}

#[test]
fn a_bundle_the_system_cannot_watch_by_name_is_warned_about_once_and_not_retried() {
    let (_dir, base, root) = custom_root();
    let bundle = write_bundle(&root, "deep");
    write_bundle(&root, "other");
    let (provider, watcher) = watched_provider(&root, &base);
    // The path the OS would watch is too long (a root reached through a
    // link into a deep tree, say), though the configured one is not.
    refuse_by_name(&watcher, &bundle);
    let (names, complete, warnings) = list(&provider);
    assert_eq!(names, vec!["deep", "other"]);
    assert!(complete, "{warnings:?}");
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains("is not watched") && warnings[0].contains("the rest of its root"),
        "{warnings:?}"
    );
    for _ in 0..3 {
        let (_, complete, warnings) = list(&provider);
        assert!(complete && warnings.is_empty(), "{warnings:?}");
    }
    assert!(watcher.watcher().healthy());
    assert!(!watcher.watcher().watched_paths().contains(&bundle));
    // The rest of the root is watched.
    fs::write(root.join("other/SKILL.md"), skill_text("other", "edited")).expect("edit");
    wait_for_description(&provider, "edited");
    provider.close();
}

#[test]
fn a_root_the_system_refuses_to_watch_stays_a_failure_that_is_retried() {
    let (_dir, base, root) = custom_root();
    write_bundle(&root, "one");
    let (provider, watcher) = watched_provider(&root, &base);
    refuse_by_name(&watcher, &root);
    let (names, complete, warnings) = list(&provider);
    assert_eq!(names, vec!["one"]);
    assert!(
        !complete,
        "a root that cannot be watched is not seen: {warnings:?}"
    );
    assert!(
        warnings.iter().any(|w| w.contains("retried automatically")),
        "{warnings:?}"
    );
    watcher.watcher().inner.lock().faults.clear();
    wait_until("complete once the watch starts", || list(&provider).1);
    provider.close();
}

#[derive(Default)]
struct Counter(AtomicUsize);

impl crate::provider::Invalidate for Counter {
    fn invalidate(&self) -> bool {
        self.0.fetch_add(1, Ordering::SeqCst);
        true
    }
}

#[test]
fn a_file_root_is_followed_until_it_is_a_directory_and_back() {
    let dir = tempfile::tempdir().expect("tempdir");
    let base = fs::canonicalize(dir.path()).expect("canonical");
    let root = base.join("custom");
    fs::write(&root, "not a folder").expect("write");
    let (provider, watcher) = watched_provider(&root, &base);
    let counter = Arc::new(Counter::default());
    provider.attach(Some(counter.clone()));
    let invalidations = || counter.0.load(Ordering::SeqCst);
    let (names, complete, warnings) = list(&provider);
    assert!(names.is_empty());
    assert!(complete, "a file as a root is an empty root: {warnings:?}");
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains("is a file, not a directory"),
        "{warnings:?}"
    );
    assert!(watcher.watcher().healthy());
    // Its parent is watched, for the root's name.
    assert!(watcher.watcher().watched_paths().contains(&base));
    assert!(list(&provider).2.is_empty(), "warned once");

    // The file becomes a directory holding a skill.
    let before = invalidations();
    fs::remove_file(&root).expect("rm");
    fs::create_dir(&root).expect("mkdir");
    write_bundle(&root, "one");
    wait_until("the new directory is seen", || invalidations() > before);
    let (names, complete, warnings) = list(&provider);
    assert_eq!(names, vec!["one"]);
    assert!(complete && warnings.is_empty(), "{warnings:?}");
    wait_until("the directory is watched", || {
        watcher.watcher().watched_paths().contains(&root)
    });

    // And back: a file again (warned about again), then a directory again.
    let before = invalidations();
    fs::remove_dir_all(&root).expect("rm -r");
    fs::write(&root, "a file again").expect("write");
    wait_until("the file is seen", || invalidations() > before);
    let (names, complete, warnings) = list(&provider);
    assert!(names.is_empty());
    assert!(complete, "{warnings:?}");
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    let before = invalidations();
    fs::remove_file(&root).expect("rm");
    fs::create_dir(&root).expect("mkdir");
    write_bundle(&root, "two");
    wait_until("the directory is seen again", || invalidations() > before);
    wait_until("listed", || list(&provider).0 == vec!["two".to_string()]);
    provider.close();
}
