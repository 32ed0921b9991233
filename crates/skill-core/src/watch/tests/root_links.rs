//! Roots reached through symbolic links: the links are watched where they
//! are, and a link repointed, replaced, removed or made, or a directory on
//! the way moved, is a change of the root as a whole, watched again where
//! its path leads now.

use super::*;
use std::os::unix::fs::symlink;

/// The path the OS watches `path` through, if it is watched.
fn os_path_of(h: &Harness, path: &Path) -> Option<PathBuf> {
    h.watcher
        .os_paths()
        .into_iter()
        .find(|(p, _)| p == path)
        .map(|(_, os)| os)
}

/// `ln -sfn target link`: a new link beside it, renamed over it.
fn repoint(target: &Path, link: &Path) {
    let tmp = link.with_extension("tmp-link");
    symlink(target, &tmp).expect("symlink");
    fs::rename(&tmp, link).expect("rename over the link");
}

/// After a change, the root is watched through `real` again, edits there
/// are published, and edits in `old` (when given) are not.
fn follows(h: &Harness, root: &Path, real: &Path, old: Option<&Path>, what: &str) {
    wait_until(what, || os_path_of(h, root).as_deref() == Some(real));
    h.expect_change("an edit where the root leads now", || {
        write_skill_file(&real.join("edit.md"), "edit")
    });
    if let Some(old) = old {
        h.clear_triggers();
        write_skill_file(&old.join("unseen.md"), "unseen");
        // Events of one watcher are handled in order: once a later change
        // through the root is published, the edit in `old` was seen or not.
        h.settle(&root.join("sentinel.md"));
        let triggers = h.triggers();
        assert!(
            !triggers.contains(&root.join("unseen.md")),
            "{what}: {triggers:?}"
        );
    }
}

#[test]
fn a_root_link_repointed_replaced_removed_and_made_again() {
    for follow in [true, false] {
        let h = harness(WatchConfig {
            follow_symlinks: follow,
            ..fast_config()
        });
        let base = h.base();
        let [x, y] = dirs(&base, ["x", "y"]);
        let root = base.join("r");
        symlink(&x, &root).expect("symlink");
        h.watcher.watch_shared(&[RootSpec::plain(&root)]);
        assert!(h.watcher.healthy());
        assert_eq!(
            os_path_of(&h, &root).as_deref(),
            Some(x.as_path()).filter(|_| follow).or(Some(&root))
        );

        // `ln -sfn y r`.
        h.clear_triggers();
        h.expect_change("root link repointed", || repoint(&y, &root));
        if follow {
            follows(&h, &root, &y, Some(&x), "repointed");
        } else {
            h.expect_change("an edit where the root leads now", || {
                write_skill_file(&y.join("edit.md"), "edit")
            });
        }
        // The link replaced by a real directory (the old target moved in).
        h.expect_change("link replaced by a directory", || {
            fs::remove_file(&root).expect("unlink");
            fs::rename(&x, &root).expect("move the directory in");
        });
        h.expect_change("an edit in the directory now there", || {
            write_skill_file(&root.join("real.md"), "real")
        });
        // And back: the directory moved out, a link made in its place.
        h.expect_change("directory replaced by a link", || {
            fs::rename(&root, &x).expect("move out");
            symlink(&y, &root).expect("symlink");
        });
        if follow {
            follows(&h, &root, &y, Some(&x), "a link again");
        }
        // Removed, then made again.
        h.expect_change("link removed", || fs::remove_file(&root).expect("unlink"));
        h.expect_change("link made again", || symlink(&x, &root).expect("symlink"));
        if follow {
            follows(&h, &root, &x, Some(&y), "made again");
        }
        assert!(h.watcher.healthy(), "follow {follow}");
        assert!(h.warnings.lock().expect("lock").is_empty());
    }
}

#[test]
fn a_chain_of_links_and_a_link_above_the_root() {
    let h = harness(fast_config());
    let base = h.base();
    let [hops, d1, d2] = dirs(&base, ["hops", "d1", "d2"]);
    for d in [&d1, &d2] {
        fs::create_dir(d.join("skills")).expect("mkdir");
    }
    // home -> hops/middle -> d1; the root is home/skills.
    symlink(&d1, hops.join("middle")).expect("symlink");
    symlink("hops/middle", base.join("home")).expect("symlink");
    let root = base.join("home/skills");
    h.watcher.watch_shared(&[RootSpec::plain(&root)]);
    assert_eq!(os_path_of(&h, &root), Some(d1.join("skills")));
    // The middle of the chain repointed.
    h.expect_change("a link in the chain repointed", || {
        repoint(&d2, &hops.join("middle"))
    });
    follows(
        &h,
        &root,
        &d2.join("skills"),
        Some(&d1.join("skills")),
        "chain",
    );
    // The first link repointed straight at d1.
    h.expect_change("the first link repointed", || {
        repoint(&d1, &base.join("home"))
    });
    follows(
        &h,
        &root,
        &d1.join("skills"),
        Some(&d2.join("skills")),
        "first link",
    );
    // What the middle link leads to no longer matters.
    repoint(&d2, &hops.join("middle"));
    h.settle(&root.join("sentinel.md"));
    assert_eq!(os_path_of(&h, &root), Some(d1.join("skills")));
    assert!(h.watcher.healthy());
}

#[test]
fn a_root_link_whose_target_moves_away_and_back() {
    let h = harness(fast_config());
    let base = h.base();
    let [store] = dirs(&base, ["store"]);
    let x = store.join("x");
    fs::create_dir(&x).expect("mkdir");
    let root = base.join("r");
    symlink(&x, &root).expect("symlink");
    h.watcher.watch_shared(&[RootSpec::plain(&root)]);
    // The target moved away: the link dangles, the root is missing.
    h.expect_change("target moved away", || {
        fs::rename(&x, base.join("x-away")).expect("mv")
    });
    wait_until("no longer watched through the old target", || {
        os_path_of(&h, &root).is_none()
    });
    // Back where the link leads: seen, though nothing in the link's
    // directory or the root's ancestors changed.
    h.expect_change("target moved back", || {
        fs::rename(base.join("x-away"), &x).expect("mv back")
    });
    follows(&h, &root, &x, None, "target back");
    // A directory above the target moved: the link dangles again.
    h.expect_change("the target's parent moved", || {
        fs::rename(&store, base.join("store-away")).expect("mv")
    });
    wait_until("dropped", || os_path_of(&h, &root).is_none());
    h.expect_change("and back", || {
        fs::rename(base.join("store-away"), &store).expect("mv back")
    });
    follows(&h, &root, &x, None, "parent back");
    assert!(h.watcher.healthy());
}

#[test]
fn a_root_made_a_link_to_another_root_and_restored() {
    let h = harness(fast_config());
    let base = h.base();
    let [c1, a2] = dirs(&base, ["c1", "a2"]);
    write_bundle(&c1, "mine");
    write_bundle(&a2, "theirs");
    h.watcher
        .watch_shared(&[RootSpec::plain(&c1), RootSpec::plain(&a2)]);
    // c1 set aside, made a link to a2.
    h.expect_change("c1 made a link to a2", || {
        fs::rename(&c1, base.join("c1.bak")).expect("mv");
        symlink(&a2, &c1).expect("symlink");
    });
    wait_until("c1 watched through a2", || {
        os_path_of(&h, &c1).as_deref() == Some(a2.as_path())
    });
    wait_until("its bundles too", || {
        h.watcher.watched_paths().contains(&c1.join("theirs"))
    });
    // Restored: the link removed, the directory moved back.
    h.expect_change("c1 restored", || {
        fs::remove_file(&c1).expect("unlink");
        fs::rename(base.join("c1.bak"), &c1).expect("mv back");
    });
    wait_until("c1 watched as itself", || {
        os_path_of(&h, &c1).as_deref() == Some(c1.as_path())
            && h.watcher.watched_paths().contains(&c1.join("mine"))
    });
    h.expect_change("an edit in c1", || {
        write_skill_file(&c1.join("mine/SKILL.md"), "mine")
    });
    h.expect_change("an edit in a2", || {
        write_skill_file(&a2.join("theirs/SKILL.md"), "theirs")
    });
    assert!(h.watcher.healthy());
    assert!(h.warnings.lock().expect("lock").is_empty());
}

#[test]
fn a_root_link_repointed_during_a_lookup_leaves_it_healthy() {
    // A lookup catching up drained the events, then the root's link was
    // repointed (`ln -sfn`) before its rescan: the rescan lists the new
    // target while the root is still watched through the old one, so a
    // bundle only the new target has cannot be watched under the old path.
    // The lookup checks the links then and watches the root where it leads
    // now, instead of reporting watching unhealthy (and its discovery
    // incomplete) until the event thread handles the link's event.
    let h = harness(fast_config());
    let base = h.base();
    let [x, y] = dirs(&base, ["x", "y"]);
    write_bundle(&x, "a");
    write_bundle(&y, "a");
    let only_new = write_bundle(&y, "c");
    let root = base.join("r");
    symlink(&x, &root).expect("symlink");
    h.watcher.watch_shared(&[RootSpec::plain(&root)]);
    assert!(h.watcher.healthy());
    assert_eq!(os_path_of(&h, &root).as_deref(), Some(x.as_path()));
    {
        let mut state = h.watcher.inner.lock();
        state.mark_dirty(&root);
        let (to, link) = (y.clone(), root.clone());
        state.after_drain = Some(Box::new(move || repoint(&to, &link)));
    }
    h.watcher.catch_up(&|| {});
    // As the lookup left it: the event thread handles the link's event
    // right after (it drops the root's watches and watches them again).
    assert_eq!(h.watcher.inner.lock().caught_up_healthy, Some(true));
    assert!(h.warnings.lock().expect("lock").is_empty());
    wait_until("the root watched where its link leads now", || {
        os_path_of(&h, &root).as_deref() == Some(y.as_path())
            && os_path_of(&h, &root.join("c")).as_deref() == Some(only_new.as_path())
    });
    h.expect_change("an edit in the bundle only the new target has", || {
        write_skill_file(&only_new.join("SKILL.md"), "c2")
    });
}
