//! Read-your-writes: `catch_up` applies every completed change at once, with
//! no wait between the change and the call; a file still open for writing
//! keeps its hold; listeners keep their coalesced notifications.

use super::*;
use std::cell::Cell;
use std::fs::OpenOptions;

impl Harness {
    /// `catch_up`, with a silent invalidation that only counts.
    fn catch_up(&self) -> bool {
        let called = Cell::new(false);
        let returned = self.watcher.catch_up(&|| called.set(true));
        assert_eq!(returned, called.get());
        returned
    }

    /// Every change noted so far is covered by an invalidation.
    fn covered(&self) -> bool {
        self.watcher.inner.lock().all_covered()
    }

    /// `path` was classified as a catalog change.
    fn triggered(&self, path: &Path) -> bool {
        self.triggers().iter().any(|p| p == path)
    }
}

/// After `op` (a completed change of `path`), one `catch_up` with no wait
/// has classified it and covered it with an invalidation: its own, or the
/// event thread's publication that got there first.
fn caught_up(h: &Harness, path: &Path, op: impl FnOnce()) {
    h.clear_triggers();
    let before = h.count();
    op();
    let invalidated = h.catch_up();
    assert!(
        h.triggered(path),
        "{} not applied by the catch-up",
        path.display()
    );
    assert!(
        h.covered(),
        "{}: a change is left uncovered",
        path.display()
    );
    assert!(
        invalidated || h.count() > before,
        "{}: nobody invalidated",
        path.display()
    );
}

#[test]
fn completed_changes_are_applied_by_the_next_catch_up() {
    let h = harness(fast_config());
    let [root, other] = dirs(&h.base(), ["skills", "other"]);
    h.watcher
        .watch_shared(&[RootSpec::plain(&root), RootSpec::plain(&other)]);
    assert!(!h.catch_up(), "nothing pending");
    for round in 0..20 {
        let name = format!("b{round}");
        let bundle = root.join(&name);
        // A new bundle with its SKILL.md: the directory is the change; its
        // watch is in place before the catch-up returns.
        caught_up(&h, &bundle, || {
            write_bundle(&root, &name);
        });
        assert!(h.watcher.watched_paths().contains(&bundle));
        // An edit of that SKILL.md (written and closed).
        let skill = bundle.join("SKILL.md");
        caught_up(&h, &skill, || {
            fs::write(&skill, skill_text(&name, "edited")).expect("edit");
        });
        // A flat file created, then renamed into place.
        let flat = root.join(format!("f{round}.md"));
        caught_up(&h, &flat, || {
            let tmp = root.join(format!(".f{round}.tmp"));
            write_skill_file(&tmp, "flat");
            fs::rename(&tmp, &flat).expect("rename");
        });
        // Moved to another root, then removed.
        let moved = other.join(format!("f{round}.md"));
        caught_up(&h, &moved, || fs::rename(&flat, &moved).expect("move"));
        caught_up(&h, &moved, || fs::remove_file(&moved).expect("rm"));
        // The bundle directory renamed, then removed.
        let renamed = root.join(format!("r{round}"));
        caught_up(&h, &renamed, || fs::rename(&bundle, &renamed).expect("mv"));
        caught_up(&h, &renamed, || fs::remove_dir_all(&renamed).expect("rm"));
    }
}

#[test]
fn a_root_created_with_its_skills_is_applied_by_the_next_catch_up() {
    let h = harness(fast_config());
    let root = h.base().join("project/.agents/skills");
    h.watcher.watch_shared(&[RootSpec::plain(&root)]);
    assert!(!h.catch_up());
    fs::create_dir_all(&root).expect("mkdir -p");
    write_bundle(&root, "fresh");
    assert!(
        h.catch_up() || h.count() > 0,
        "the new root invalidates at once"
    );
    assert!(h.covered());
    assert!(h.watcher.watched_paths().contains(&root.join("fresh")));
}

#[test]
fn a_file_open_for_writing_keeps_its_hold_until_closed() {
    let h = harness(fast_config());
    let [root] = dirs(&h.base(), ["skills"]);
    let skill = write_bundle(&root, "held").join("SKILL.md");
    h.watcher.watch_shared(&[RootSpec::plain(&root)]);
    h.clear_triggers();
    let mut file = OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(&skill)
        .expect("open");
    file.write_all(skill_text("held", "being written").as_bytes())
        .expect("write");
    file.flush().expect("flush");
    assert!(!h.catch_up(), "not complete while open");
    assert!(!h.triggered(&skill));
    assert!(h.watcher.inner.lock().holds(&skill), "held");
    drop(file);
    assert!(h.catch_up() || h.count() > 0);
    assert!(h.triggered(&skill));
    assert!(h.covered());
}

#[test]
fn catching_up_keeps_notifications_coalesced() {
    let h = harness(fast_config());
    let [root] = dirs(&h.base(), ["skills"]);
    h.watcher.watch_shared(&[RootSpec::plain(&root)]);
    let start = Instant::now();
    let mut written = Vec::with_capacity(100);
    let mut invalidations = 0u64;
    for i in 0..100 {
        write_bundle(&root, &format!("skill-{i:03}"));
        written.push(Instant::now());
        if h.catch_up() {
            invalidations += 1;
        }
        assert!(h.covered());
    }
    h.settle(&root.join("sentinel.md"));
    let elapsed = start.elapsed();
    let calls = h.count();
    // The same bound as `burst_is_coalesced`: a lookup after every write
    // does not turn the batches into one notification per write.
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
        "100 skills over {elapsed:?} published in {calls} batches (bound {bound})"
    );
    let stats = h.watcher.stats();
    assert_eq!(stats.catch_ups, invalidations);
    assert_eq!(stats.publications, calls as u64);
    let (change, publication) = (
        stats.last_change.expect("noted"),
        stats.last_publication.expect("published"),
    );
    assert!(
        publication.monotonic_ns >= change.monotonic_ns,
        "the sentinel was published after it was noted"
    );
    eprintln!(
        "burst of 100 skills with a catch-up after each over {elapsed:?}: \
         {invalidations} silent invalidations, {calls} change notifications"
    );
}

/// `settle` waits for the sentinel's own publication even when an earlier
/// batch is published between its look at the count and the sentinel's write
/// (a pause there made `catching_up_keeps_notifications_coalesced` read the
/// stats before the sentinel was published, every time).
#[test]
fn settle_waits_for_the_sentinels_own_publication() {
    let h = harness(fast_config());
    let [root] = dirs(&h.base(), ["skills"]);
    h.watcher.watch_shared(&[RootSpec::plain(&root)]);
    for round in 0..3 {
        // A batch pending publication, then a pause longer than its window.
        write_bundle(&root, &format!("skill-{round}"));
        assert!(h.catch_up());
        h.settle_after(&root.join("sentinel.md"), COALESCE_MAX + STORM_QUIET);
        let stats = h.watcher.stats();
        let (change, publication) = (
            stats.last_change.expect("noted"),
            stats.last_publication.expect("published"),
        );
        assert!(
            publication.monotonic_ns >= change.monotonic_ns,
            "round {round}: settled with the last publication {} µs older than the sentinel's change",
            (change.monotonic_ns - publication.monotonic_ns) / 1000
        );
    }
}

#[test]
fn catch_up_after_close_does_nothing() {
    let h = harness(fast_config());
    let [root] = dirs(&h.base(), ["skills"]);
    h.watcher.watch_shared(&[RootSpec::plain(&root)]);
    h.watcher.close();
    write_bundle(&root, "late");
    assert!(!h.catch_up());
}

/// A batch whose every change a lookup already applied (and invalidated for)
/// is published through `on_notify`: listeners hear of it, caches are not
/// invalidated a second time. One that was not goes through `on_change`.
#[test]
fn a_batch_applied_by_a_lookup_is_published_without_a_second_invalidation() {
    let changes = Arc::new(AtomicUsize::new(0));
    let notes = Arc::new(AtomicUsize::new(0));
    let (c, n) = (Arc::clone(&changes), Arc::clone(&notes));
    let dir = tempfile::tempdir().expect("tempdir");
    let root = fs::canonicalize(dir.path())
        .expect("canonical")
        .join("skills");
    fs::create_dir(&root).expect("mkdir");
    let watcher = SkillWatcher::with_notify(
        fast_config(),
        Arc::new(move || {
            c.fetch_add(1, Ordering::SeqCst);
        }),
        Arc::new(move || {
            n.fetch_add(1, Ordering::SeqCst);
        }),
        Arc::new(|_| {}),
    );
    watcher.watch_shared(&[RootSpec::plain(&root)]);
    for round in 0..10 {
        let (changes_before, notes_before) =
            (changes.load(Ordering::SeqCst), notes.load(Ordering::SeqCst));
        write_bundle(&root, &format!("b{round}"));
        let caught = watcher.catch_up(&|| {});
        let total = || changes.load(Ordering::SeqCst) + notes.load(Ordering::SeqCst);
        wait_until("the batch published", || {
            total() > changes_before + notes_before
        });
        if caught {
            assert_eq!(
                notes.load(Ordering::SeqCst),
                notes_before + 1,
                "round {round}"
            );
            assert_eq!(
                changes.load(Ordering::SeqCst),
                changes_before,
                "round {round}"
            );
        } else {
            // The event thread published before the lookup caught up.
            assert_eq!(
                changes.load(Ordering::SeqCst),
                changes_before + 1,
                "round {round}"
            );
        }
    }
    let stats = watcher.stats();
    assert_eq!(
        stats.applied_publications as usize,
        notes.load(Ordering::SeqCst)
    );
    assert_eq!(
        stats.publications as usize,
        notes.load(Ordering::SeqCst) + changes.load(Ordering::SeqCst)
    );
    drop(watcher);
}
