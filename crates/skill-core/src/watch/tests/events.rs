//! Events and their classification: entries added, removed, renamed, written, missing roots, races with scans, coalescing.

use super::*;

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

/// The root at `root` and its bundle `one` are watched where they are now
/// (a write in the bundle publishes), and nothing under `aside`, where the
/// old ones went, is watched whole.
fn expect_watched_afresh(h: &Harness, root: &Path, aside: &Path) {
    wait_until("the new root and its bundle watched", || {
        let paths = h.watcher.watched_paths();
        paths.contains(&root.to_path_buf()) && paths.contains(&root.join("one"))
    });
    h.expect_change("SKILL.md written in the new bundle", || {
        write_skill_file(&root.join("one/SKILL.md"), "one");
    });
    assert_eq!(os_watches_under(aside), 0, "nothing moved away is watched");
}

/// A root moved away takes its bundles' watches with it (a moved directory
/// keeps its inode): a bundle of the same name in the directory put in its
/// place is watched afresh, and the moved-away copy no longer publishes.
#[test]
fn a_root_moved_away_takes_its_bundle_watches_with_it() {
    let h = harness(fast_config());
    let root = h.base().join("skills");
    fs::create_dir(&root).expect("mkdir");
    write_bundle(&root, "one");
    h.watcher.watch_shared(&[RootSpec::plain(&root)]);
    assert!(h.watcher.watched_paths().contains(&root.join("one")));

    let aside = h.base().join("aside");
    h.expect_change("root replaced", || {
        fs::rename(&root, &aside).expect("rename");
        fs::create_dir_all(root.join("one")).expect("mkdir");
    });
    expect_watched_afresh(&h, &root, &aside);
    h.clear_triggers();
    write_skill_file(&aside.join("one/SKILL.md"), "moved");
    let sentinel = root.join("sentinel.md");
    h.settle(&sentinel);
    let triggers = h.triggers();
    assert!(
        triggers.iter().all(|p| p == &sentinel),
        "only the sentinel published: {triggers:?}"
    );
}

/// The same when a directory above the root moves (nothing is reported for
/// the root's own watch then): each directory above a root is watched for
/// its own move.
#[test]
fn a_root_whose_parent_moved_away_is_watched_where_it_is_now() {
    let h = harness(fast_config());
    let parent = h.base().join("project");
    let root = parent.join("skills");
    fs::create_dir_all(&root).expect("mkdir");
    write_bundle(&root, "one");
    h.watcher.watch_shared(&[RootSpec::plain(&root)]);
    let kernel = os_watches_under(&h.base());
    // The project and the temporary directory, each for its own move only.
    assert_eq!(os_move_watches_under(&parent), 2);
    assert_eq!(
        h.watcher.watched_paths(),
        vec![root.clone(), root.join("one")]
    );

    let aside = h.base().join("aside");
    h.expect_change("parent moved away", || {
        fs::rename(&parent, &aside).expect("rename");
    });
    wait_until("the missing root followed from its ancestor", || {
        h.watcher.watched_paths() == vec![h.base()]
    });
    h.expect_change("root created again", || {
        fs::create_dir_all(root.join("one")).expect("mkdir");
    });
    expect_watched_afresh(&h, &root, &aside);
    assert_eq!(
        os_move_watches_under(&aside),
        1,
        "only the temporary directory"
    );
    assert_eq!(os_watches_under(&h.base()), kernel);
    assert!(h.warnings.lock().expect("lock").is_empty());
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
