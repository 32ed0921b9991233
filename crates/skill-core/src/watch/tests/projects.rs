//! The least-recently-observed project set and shared roots.

use super::*;

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

/// A project watched again after an eviction was not watched meanwhile: the
/// next `take_changes` names its roots, whoever took the eviction's own note
/// (a concurrent discovery may have taken it, and kept a listing made while
/// the project was being evicted).
#[cfg(target_os = "linux")]
#[test]
fn a_project_watched_again_names_its_roots() {
    use crate::local::Changes;
    let h = harness(WatchConfig {
        max_projects: NonZeroUsize::new(1).expect("nonzero"),
        ..fast_config()
    });
    let mk = |name: &str| {
        let p = h.base().join(name);
        fs::create_dir_all(p.join(".agents/skills")).expect("mkdir");
        (p.clone(), [RootSpec::plain(p.join(".agents/skills"))])
    };
    let (p1, r1) = mk("p1");
    let (p2, r2) = mk("p2");
    let names = |changes: Changes| match changes {
        Changes::Paths(paths) => paths,
        Changes::All => panic!("expected paths, got All"),
    };
    h.watcher.observe_project(&p1, &r1);
    let first = names(h.watcher.take_changes());
    assert!(first.contains(&r1[0].path), "newly watched: {first:?}");
    h.watcher.observe_project(&p2, &r2); // evicts p1
    let evicted = names(h.watcher.take_changes());
    assert!(evicted.contains(&r1[0].path), "evicted: {evicted:?}");
    // Changed while unwatched: no event can tell.
    write_skill_file(&r1[0].path.join("unseen.md"), "unseen");
    h.watcher.observe_project(&p1, &r1); // watched again, evicts p2
    let again = names(h.watcher.take_changes());
    assert!(again.contains(&r1[0].path), "watched again: {again:?}");
    // Observing a watched project again changes nothing kept.
    h.watcher.observe_project(&p1, &r1);
    let same = names(h.watcher.take_changes());
    assert!(!same.contains(&r1[0].path), "still watched: {same:?}");
}

/// Shared roots that become watched are named by the next `take_changes`.
#[cfg(target_os = "linux")]
#[test]
fn shared_roots_watched_from_now_on_are_named() {
    use crate::local::Changes;
    let h = harness(fast_config());
    let [a, b] = dirs(&h.base(), ["a", "b"]);
    let names = |changes: Changes| match changes {
        Changes::Paths(paths) => paths,
        Changes::All => panic!("expected paths, got All"),
    };
    h.watcher.observe(Some(&[RootSpec::plain(a.clone())]), None);
    assert!(names(h.watcher.take_changes()).contains(&a));
    h.watcher.observe(
        Some(&[RootSpec::plain(a.clone()), RootSpec::plain(b.clone())]),
        None,
    );
    let next = names(h.watcher.take_changes());
    assert!(next.contains(&b) && !next.contains(&a), "{next:?}");
}
