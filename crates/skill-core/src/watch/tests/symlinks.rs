//! Symlinked roots, bundles and flat entries.

use super::*;

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
        // The directory holding the root's link is watched for it too.
        let expected = if follow {
            vec![base.clone(), root.clone(), root.join("linked")]
        } else {
            vec![base.clone(), root.clone()]
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
    // One kernel watch for the directory, one for the directory holding
    // the link (for the link itself).
    assert_eq!(
        os_watches_under(&base),
        2,
        "one kernel watch for the directory"
    );
    h.expect_change("file added", || write_skill_file(&real.join("a.md"), "a"));
    wait_until("reported under both paths", || {
        let triggers = h.triggers();
        triggers.contains(&real.join("a.md")) && triggers.contains(&link.join("a.md"))
    });
    // Dropping one path keeps the directory watched for the other.
    h.watcher.watch_shared(&[RootSpec::plain(&real)]);
    assert_eq!(h.watcher.watched_paths(), vec![real.clone()]);
    assert_eq!(os_watches_under(&base), 1, "the link's directory no longer");
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

/// `follow_symlinks` on: a root (or the nearest existing ancestor of a
/// missing one) is watched through its real path; off: a symlinked root is
/// watched on the link's own path and links below it are not followed.
/// Either way the engine knows (and reports events under) the configured
/// paths.
#[cfg(unix)]
#[test]
fn roots_are_watched_through_their_real_path_unless_links_are_not_followed() {
    use std::collections::HashMap;
    use std::os::unix::fs::symlink;
    for follow in [true, false] {
        let h = harness(WatchConfig {
            follow_symlinks: follow,
            ..fast_config()
        });
        let base = h.base();
        let [real, store, deep] = dirs(&base, ["real", "store", "deep"]);
        let root = base.join("root");
        symlink(&real, &root).expect("symlink root");
        write_bundle(&real, "plain");
        symlink(write_bundle(&store, "linked"), real.join("linked")).expect("symlink bundle");
        let alias = base.join("alias");
        symlink(&deep, &alias).expect("symlink ancestor");
        let missing = alias.join("x/skills");
        h.watcher
            .watch_shared(&[RootSpec::plain(&root), RootSpec::plain(&missing)]);
        let os: HashMap<PathBuf, PathBuf> = h.watcher.os_paths().into_iter().collect();
        let through = |path: &Path| os.get(path).cloned();
        let (want_root, want_alias) = if follow {
            (real.clone(), deep.clone())
        } else {
            (root.clone(), alias.clone())
        };
        assert_eq!(through(&root), Some(want_root.clone()), "follow {follow}");
        assert_eq!(through(&root.join("plain")), Some(want_root.join("plain")));
        assert_eq!(
            through(&root.join("linked")),
            follow.then(|| want_root.join("linked")),
            "a symlinked bundle is followed only with follow {follow}"
        );
        assert_eq!(through(&alias), Some(want_alias));
        // Diagnostics keep the configured paths.
        let watched = h.watcher.watched_paths();
        assert!(watched.contains(&root) && watched.contains(&alias));
        assert!(
            !watched.contains(&real) && !watched.contains(&deep),
            "{watched:?}"
        );
        // Events come under the configured paths.
        h.clear_triggers();
        h.expect_change("a bundle added through the real path", || {
            write_bundle(&real, "added");
        });
        assert!(h.triggers().contains(&root.join("added")));
        h.expect_change("SKILL.md of a plain bundle edited", || {
            write_skill_file(&real.join("plain/SKILL.md"), "plain");
        });
        h.expect_change("the missing root's next segment created", || {
            fs::create_dir_all(deep.join("x/skills")).expect("mkdir");
            write_bundle(&deep.join("x/skills"), "arrived");
        });
        wait_until("the missing root watched", || {
            h.watcher.watched_paths().contains(&missing)
        });
    }
}

/// notify's backends (polling here, FSEvents and ReadDirectoryChanges
/// elsewhere) watch the real path and report events under it: they come back
/// under the configured path.
#[cfg(unix)]
#[test]
fn polling_reports_a_symlinked_root_under_its_configured_path() {
    use std::os::unix::fs::symlink;
    let h = harness(WatchConfig {
        use_polling: true,
        poll_interval: Duration::from_millis(20),
        stability_threshold: Duration::from_millis(40),
        ..fast_config()
    });
    let [real] = dirs(&h.base(), ["real"]);
    let root = h.base().join("root");
    symlink(&real, &root).expect("symlink");
    h.watcher.watch_shared(&[RootSpec::plain(&root)]);
    // (and the directory holding the root's link, for the link)
    assert_eq!(
        h.watcher.os_paths(),
        [(h.base(), h.base()), (root.clone(), real.clone())]
    );
    h.clear_triggers();
    h.expect_change("a bundle added", || {
        write_bundle(&real, "added");
    });
    assert!(h.triggers().contains(&root.join("added")));
    wait_until("the bundle watched", || {
        h.watcher.watched_paths().contains(&root.join("added"))
    });
    h.expect_change("its SKILL.md edited", || {
        write_skill_file(&real.join("added/SKILL.md"), "edited");
    });
}
