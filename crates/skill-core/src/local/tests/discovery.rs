//! Discovery on disk: layouts, links, bad files, caps, order, special files.

use super::*;

#[test]
fn layouts_one_level_only() {
    let env = Env::new();
    let root = env.user_agents();
    bundle(&root, "bundled-skill", "bundled-skill");
    flat(&root, "flat-skill.md", "flat-skill");
    write(&root.join("notes.txt"), &skill("txt-skill", "not markdown"));
    write(&root.join("README"), "hello");
    // Deeper files are not discovered.
    bundle(&root.join("group"), "nested", "nested");
    write(
        &root.join("bundled-skill/references/more.md"),
        &skill("ref", "resource"),
    );
    // A directory without SKILL.md is not a skill (and not worth a warning).
    fs::create_dir_all(root.join("empty-dir")).expect("mkdir");
    let d = env.provider().discover(&ctx(None));
    assert!(d.warnings.is_empty(), "{:?}", d.warnings);
    assert_eq!(
        names(&d),
        pairs(&[
            ("bundled-skill", "user-agents"),
            ("flat-skill", "user-agents")
        ])
    );
}

#[test]
fn system_dir_is_skipped_under_user_dsh_only() {
    let env = Env::new();
    bundle(&env.user_dsh(), ".system", "system-skill");
    bundle(&env.user_dsh(), "mine", "mine");
    let custom = env.root().join("custom");
    bundle(&custom, ".system", "custom-system");
    bundle(&env.user_agents(), ".system", "agents-system");
    let provider = env.provider_with(LocalOptions {
        custom_skill_dirs: Some(vec![path_string(&custom)]),
        ..env.options()
    });
    let d = provider.discover(&ctx(None));
    assert_eq!(
        names(&d),
        pairs(&[
            ("custom-system", "custom"),
            ("mine", "user-dsh"),
            ("agents-system", "user-agents"),
        ])
    );
    assert!(d.warnings.is_empty(), "{:?}", d.warnings);
}

#[cfg(unix)]
#[test]
fn symlinks_followed_broken_and_loops_skipped() {
    use std::os::unix::fs::symlink;
    let env = Env::new();
    let root = env.user_agents();
    fs::create_dir_all(&root).expect("mkdir");
    let elsewhere = env.root().join("elsewhere");
    bundle(&elsewhere, "real-bundle", "linked-bundle");
    flat(&elsewhere, "real.md", "linked-flat");
    symlink(elsewhere.join("real-bundle"), root.join("b-link")).expect("link");
    symlink(elsewhere.join("real.md"), root.join("f-link.md")).expect("link");
    symlink(root.join("missing-target"), root.join("broken.md")).expect("link");
    symlink(root.join("loop-b"), root.join("loop-a")).expect("link");
    symlink(root.join("loop-a"), root.join("loop-b")).expect("link");
    // A bundle whose SKILL.md is a link to itself.
    fs::create_dir_all(root.join("self")).expect("mkdir");
    symlink(root.join("self/SKILL.md"), root.join("self/SKILL.md")).expect("link");
    // A bundle whose SKILL.md is a link to nothing (warned about, as a
    // broken flat link is), and one without a SKILL.md (no skill, nothing said).
    fs::create_dir_all(root.join("dangling")).expect("mkdir");
    symlink(
        elsewhere.join("gone/SKILL.md"),
        root.join("dangling/SKILL.md"),
    )
    .expect("link");
    fs::create_dir_all(root.join("empty")).expect("mkdir");
    flat(&root, "ok.md", "ok");

    let d = env.provider().discover(&ctx(None));
    assert!(d.observation.complete, "{:?}", d.warnings);
    assert_eq!(
        names(&d),
        pairs(&[
            ("linked-bundle", "user-agents"),
            ("linked-flat", "user-agents"),
            ("ok", "user-agents"),
        ])
    );
    let c = &d.observation.candidates[0];
    assert_eq!(
        c.summary.resource_base,
        Some(ResourceBase::Directory {
            path: path_string(&root.join("b-link"))
        })
    );
    let joined = d.warnings.join("\n");
    assert!(
        joined.contains("broken.md skipped: broken symbolic link"),
        "{joined}"
    );
    assert!(
        joined.contains("loop-a skipped: symbolic link loop"),
        "{joined}"
    );
    assert!(
        joined.contains("loop-b skipped: symbolic link loop"),
        "{joined}"
    );
    assert!(
        joined.contains("self/SKILL.md skipped: symbolic link loop"),
        "{joined}"
    );
    assert!(
        joined.contains("dangling/SKILL.md skipped: broken symbolic link"),
        "{joined}"
    );
    assert!(!joined.contains("empty"), "{joined}");
    assert_eq!(d.warnings.len(), 5, "{joined}");
}

#[test]
fn bad_files_are_skipped_and_siblings_load() {
    let env = Env::new();
    let root = env.user_agents();
    flat(&root, "good.md", "good");
    write(&root.join("empty.md"), "");
    fs::create_dir_all(&root).expect("mkdir");
    fs::write(
        root.join("latin1.md"),
        b"---\nname: latin\ndescription: caf\xe9\n---\n",
    )
    .expect("write");
    write(
        &root.join("big.md"),
        &format!("{}{}", skill("big", "big"), "x".repeat(300)),
    );
    write(&root.join("nofront.md"), "# Just markdown\n");
    write(&root.join("badname.md"), &skill("Bad_Name", "d"));
    write(
        &root.join("badinv.md"),
        "---\nname: badinv\ndescription: d\nuser-invocable: maybe\n---\n",
    );
    write(
        &root.join("legacy.md"),
        "---\nname: legacy\ndescription: d\ndisableModelInvocation: true\n---\n",
    );
    write(
        &root.join("hidden.md"),
        "---\nname: hidden\ndescription: d\ndisable-model-invocation: yes\nuser-invocable: off\n---\n",
    );
    let provider = env.provider_with(LocalOptions {
        max_skill_file_bytes: Some(200.0),
        ..env.options()
    });
    let d = provider.discover(&ctx(None));
    assert!(d.observation.complete, "{:?}", d.warnings);
    assert_eq!(
        names(&d),
        pairs(&[
            ("good", "user-agents"),
            ("hidden", "user-agents"),
            ("latin", "user-agents")
        ])
    );
    // Bytes that are not UTF-8 are decoded as the JS `fs` service path and the
    // TypeScript provider decoded them: each bad sequence becomes U+FFFD.
    assert_eq!(
        d.observation.candidates[2].summary.description,
        "caf\u{fffd}"
    );
    assert_eq!(
        d.observation.candidates[1].summary.invocation,
        InvocationPolicy {
            model_invocable: false,
            user_invocable: false
        }
    );
    let joined = d.warnings.join("\n");
    for needle in [
        "empty.md skipped: empty file",
        "big.md skipped: file is larger than maxSkillFileBytes",
        "nofront.md skipped: missing frontmatter",
        "badname.md skipped: frontmatter field `name` must be kebab-case",
        "badinv.md skipped: frontmatter field `user-invocable` must be a boolean",
        "legacy.md skipped: frontmatter key `disableModelInvocation` is no longer supported",
    ] {
        assert!(joined.contains(needle), "missing {needle:?} in\n{joined}");
    }
    assert_eq!(d.warnings.len(), 6, "{joined}");
}

#[test]
fn the_size_cap_counts_the_file_bytes_not_the_decoded_text() {
    let env = Env::new();
    let root = env.user_agents();
    fs::create_dir_all(&root).expect("mkdir");
    // 100 bytes that are not UTF-8 become 100 U+FFFD (300 bytes of text):
    // a file under the cap stays under it.
    let mut bytes = b"---\nname: latin\ndescription: d\n---\n".to_vec();
    bytes.extend(std::iter::repeat_n(0xe9, 100));
    fs::write(root.join("latin.md"), &bytes).expect("write");
    let mut over = bytes.clone();
    over.extend(std::iter::repeat_n(b'x', 200 - bytes.len() + 1));
    fs::write(root.join("over.md"), &over).expect("write");
    let provider = env.provider_with(LocalOptions {
        max_skill_file_bytes: Some(200.0),
        ..env.options()
    });
    assert!(bytes.len() <= 200);
    for round in 0..2 {
        let d = provider.discover(&ctx(None));
        assert_eq!(
            names(&d),
            pairs(&[("latin", "user-agents")]),
            "round {round}"
        );
        let joined = d.warnings.join("\n");
        if round == 0 {
            assert!(
                joined.contains("over.md skipped: file is larger than maxSkillFileBytes"),
                "{joined}"
            );
        }
        let c = d.observation.candidates[0].clone();
        let def = provider.load(&c, None).expect("load").expect("present");
        assert_eq!(def.content, "\u{fffd}".repeat(100));
    }
}

#[test]
fn capped_reads_return_the_file_whatever_size_was_seen() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("f.md");
    let text: Vec<u8> = (0..20_000u32).map(|i| b'a' + (i % 26) as u8).collect();
    fs::write(&path, &text).expect("write");
    let read =
        |seen: u64, cap: u64| match read_capped(fs::File::open(&path).expect("open"), seen, cap) {
            Ok(FileRead::Bytes(b)) => b,
            other => panic!("{other:?}"),
        };
    // The size seen, a smaller one (it grew since), a larger one (it shrank),
    // and nothing known at all.
    for seen in [20_000, 1, 19_999, 20_001, 1_000_000, 0] {
        assert_eq!(read(seen, 1 << 20), text, "seen {seen}");
    }
    // Never more than cap + 1 bytes, whatever was seen.
    for seen in [0, 10, 20_000] {
        assert_eq!(read(seen, 100), &text[..101], "seen {seen}");
    }
    let empty = dir.path().join("empty.md");
    fs::write(&empty, "").expect("write");
    let read = read_capped(fs::File::open(&empty).expect("open"), 0, 100).expect("read");
    assert_eq!(read, FileRead::Bytes(Vec::new()));
}

#[test]
fn oversized_files_are_never_read_past_the_cap() {
    /// Reports a small size at open time, as if the file grew afterwards.
    struct Growing {
        reads: Mutex<Vec<(u64, usize)>>,
    }
    impl SkillFs for Growing {
        on_disk!();
        fn read_file(&self, path: &Path, cap: u64) -> io::Result<FileRead> {
            let read = read_capped(fs::File::open(path)?, 10, cap)?;
            if let FileRead::Bytes(b) = &read {
                self.reads.lock().expect("lock").push((cap, b.len()));
            }
            Ok(read)
        }
    }
    let env = Env::new();
    write(
        &env.user_agents().join("grows.md"),
        &skill("grows", &"d".repeat(5000)),
    );
    let fs = Arc::new(Growing {
        reads: Mutex::new(Vec::new()),
    });
    let config = LocalOptions {
        max_skill_file_bytes: Some(100.0),
        ..env.options()
    }
    .resolve_with(&|_| None)
    .expect("config");
    let provider = LocalProvider::with_fs(config, fs.clone());
    let d = provider.discover(&ctx(None));
    assert!(d.observation.candidates.is_empty());
    assert!(
        d.warnings[0].contains("larger than maxSkillFileBytes (more than 100 bytes)"),
        "{:?}",
        d.warnings
    );
    // At most cap + 1 bytes were read.
    assert_eq!(*fs.reads.lock().expect("lock"), vec![(100, 101)]);

    // Through the real filesystem the size check happens before reading.
    let provider = LocalProvider::new(
        LocalOptions {
            max_skill_file_bytes: Some(100.0),
            ..env.options()
        }
        .resolve_with(&|_| None)
        .expect("config"),
    );
    let d = provider.discover(&ctx(None));
    assert!(
        d.warnings[0].contains("larger than maxSkillFileBytes ("),
        "{:?}",
        d.warnings
    );
    assert!(d.warnings[0].contains(" > 100 bytes)"), "{:?}", d.warnings);
}

#[test]
fn order_inside_a_root_decides_same_name_winner() {
    let env = Env::new();
    let root = env.user_agents();
    // localeCompare order: "dup" < "dup.md" < "Dup.md" < "dup-x" is wrong —
    // "-" sorts before "." so: "dup", "dup-x.md", "dup.md", "Dup.md".
    bundle(&root, "dup", "dup");
    write(&root.join("dup.md"), &skill("dup", "flat lower"));
    write(&root.join("Dup.md"), &skill("dup", "flat upper"));
    write(&root.join("dup-x.md"), &skill("dup", "dashed"));
    let d = env.provider().discover(&ctx(None));
    let descriptions: Vec<&str> = d
        .observation
        .candidates
        .iter()
        .map(|c| c.summary.description.as_str())
        .collect();
    assert_eq!(
        descriptions,
        ["dup bundle", "dashed", "flat lower", "flat upper"]
    );
}

#[test]
fn many_skills_in_parallel_keep_their_order() {
    let env = Env::new();
    let root = env.user_agents();
    let mut expected = Vec::new();
    for i in 0..300 {
        let name = format!("skill-{i:04}");
        if i % 2 == 0 {
            bundle(&root, &name, &name);
        } else {
            flat(&root, &format!("{name}.md"), &name);
        }
        expected.push((name, "user-agents".to_string()));
    }
    let d = env.provider().discover(&ctx(None));
    assert!(d.observation.complete);
    assert_eq!(names(&d), expected);
}

#[cfg(unix)]
#[test]
fn fifo_skill_files_do_not_block() {
    let env = Env::new();
    let root = env.user_agents();
    fs::create_dir_all(root.join("pipe-bundle")).expect("mkdir");
    let made = std::process::Command::new("mkfifo")
        .arg(root.join("pipe.md"))
        .arg(root.join("pipe-bundle/SKILL.md"))
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    if !made {
        eprintln!("mkfifo unavailable; skipping");
        return;
    }
    flat(&root, "ok.md", "ok");
    let d = env.provider().discover(&ctx(None));
    assert_eq!(names(&d), pairs(&[("ok", "user-agents")]));
    let joined = d.warnings.join("\n");
    assert!(
        joined.contains("pipe.md skipped: not a regular file"),
        "{joined}"
    );
    assert!(
        joined.contains("pipe-bundle/SKILL.md skipped: not a regular file"),
        "{joined}"
    );
}

#[test]
fn missing_roots_and_file_roots_are_empty_and_a_file_root_is_warned_about_once() {
    let env = Env::new();
    let file_root = env.root().join("file-root");
    write(&file_root, "not a directory");
    let under_file = file_root.join("skills");
    let provider = env.provider_with(LocalOptions {
        custom_skill_dirs: Some(vec![
            path_string(&env.root().join("nope")),
            path_string(&file_root),
            path_string(&under_file),
        ]),
        ..env.options()
    });
    let d = provider.discover(&ctx(Some(&env.root().join("no-such-cwd"))));
    assert!(d.observation.complete, "{:?}", d.warnings);
    assert!(d.observation.candidates.is_empty());
    // Only the root that is itself a file is worth a warning (not the
    // absent one, nor the one below the file).
    assert_eq!(d.warnings.len(), 1, "{:?}", d.warnings);
    assert!(
        d.warnings[0].contains(&format!(
            "{} is a file, not a directory",
            file_root.display()
        )),
        "{:?}",
        d.warnings
    );
    let again = provider.discover(&ctx(Some(&env.root().join("no-such-cwd"))));
    assert!(again.warnings.is_empty(), "{:?}", again.warnings);
    let diag = provider.diagnose(&ctx(None));
    assert!(diag.complete);
    assert!(
        diag.roots.iter().all(|r| r.status == "missing"),
        "{:?}",
        diag.roots
    );
    let reasons: Vec<(&str, Option<&str>)> = diag
        .roots
        .iter()
        .filter(|r| r.source == "custom")
        .map(|r| (r.path.as_str(), r.reason.as_deref()))
        .collect();
    let file_root = path_string(&file_root);
    let under_file = path_string(&under_file);
    let nope = path_string(&env.root().join("nope"));
    assert_eq!(
        reasons,
        vec![
            (nope.as_str(), None),
            (
                file_root.as_str(),
                Some("a file, not a directory (read as an empty root)")
            ),
            (under_file.as_str(), None),
        ]
    );
    assert_eq!(diag.warnings.len(), 1, "{:?}", diag.warnings);
}

#[cfg(unix)]
#[test]
fn a_lookup_cwd_is_resolved_lexically_as_the_registry_keys_it() {
    // `<a>/link/..` names `<a>` (as Node's `path.resolve` and the registry's
    // cache key read it), not the parent of the link's target.
    let env = Env::new();
    let a = env.root().join("a");
    let elsewhere = env.root().join("elsewhere");
    for (project, name) in [(&a, "from-a"), (&elsewhere, "from-elsewhere")] {
        fs::create_dir_all(project.join(".git")).expect("mkdir");
        flat(&project.join(".dsh/skills"), &format!("{name}.md"), name);
    }
    fs::create_dir_all(elsewhere.join("deep")).expect("mkdir");
    std::os::unix::fs::symlink(elsewhere.join("deep"), a.join("link")).expect("symlink");
    let provider = env.provider();
    let via_link = a.join("link").join("..");
    for cwd in [&a, &via_link] {
        assert_eq!(provider.project_root(Some(cwd)), Some(a.clone()), "{cwd:?}");
        let d = provider.discover(&ctx(Some(cwd)));
        assert_eq!(names(&d), pairs(&[("from-a", "project-dsh")]), "{cwd:?}");
    }
}

#[test]
fn two_large_roots_are_listed_on_two_threads_in_the_same_order() {
    let env = Env::new();
    let (dsh, agents) = (env.user_dsh(), env.user_agents());
    // Enough entries that both directories look large (see `large_roots`);
    // written in reverse so the listing's order is not the writing order.
    let mut expected = Vec::new();
    for (root, source) in [(&dsh, "user-dsh"), (&agents, "user-agents")] {
        let mut here = Vec::new();
        for i in (0..400).rev() {
            let name = format!("{}-skill-{i:03}", &source[5..]);
            if i % 2 == 0 {
                bundle(root, &name, &name);
            } else {
                flat(root, &format!("{name}.md"), &name);
            }
            here.push(name);
        }
        here.sort();
        expected.extend(here.into_iter().map(|n| (n, source.to_string())));
    }
    let provider = env.provider();
    let (_, roots) = provider.roots(None);
    assert_eq!(
        crate::local::discover::large_roots(&crate::local::fs::StdFs, &roots),
        2,
        "both roots must look large for this test to list them in parallel"
    );
    for _ in 0..3 {
        let d = env.provider().discover(&ctx(None));
        assert!(d.observation.complete);
        assert!(d.warnings.is_empty(), "{:?}", d.warnings);
        assert_eq!(names(&d), expected);
    }
}
