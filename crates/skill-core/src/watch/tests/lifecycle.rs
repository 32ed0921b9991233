//! Polling, closing, callbacks, failed watches and their retries, error messages.

use super::*;

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
