//! Roots, ranks, the project root and configuration.

use super::*;

#[test]
fn six_roots_ranks_and_sources() {
    let env = Env::new();
    let project = env.root().join("project");
    fs::create_dir_all(project.join(".git")).expect("git");
    let cwd = project.join("src/deep");
    fs::create_dir_all(&cwd).expect("cwd");
    let custom_a = env.root().join("custom-a");
    let custom_b = env.root().join("custom-b");
    let bundled = env.root().join("bundled");
    bundle(&project.join(".dsh/skills"), "p-dsh", "p-dsh");
    flat(&project.join(".agents/skills"), "p-agents.md", "p-agents");
    flat(&custom_a, "c-a.md", "c-a");
    flat(&custom_b, "c-b.md", "c-b");
    bundle(&env.user_dsh(), "u-dsh", "u-dsh");
    flat(&env.user_agents(), "u-agents.md", "u-agents");
    bundle(&bundled, "b", "bundled-one");
    let provider = env.provider_with(LocalOptions {
        custom_skill_dirs: Some(vec![path_string(&custom_a), path_string(&custom_b)]),
        bundled_skill_dir: Some(path_string(&bundled)),
        ..env.options()
    });
    let d = provider.discover(&ctx(Some(&cwd)));
    assert!(d.observation.complete, "{:?}", d.warnings);
    assert!(d.warnings.is_empty(), "{:?}", d.warnings);
    assert_eq!(
        names(&d),
        pairs(&[
            ("p-dsh", "project-dsh"),
            ("p-agents", "project-agents"),
            ("c-a", "custom"),
            ("c-b", "custom"),
            ("u-dsh", "user-dsh"),
            ("u-agents", "user-agents"),
            ("bundled-one", "bundled"),
        ])
    );
    let ranks: Vec<f64> = d.observation.candidates.iter().map(|c| c.rank).collect();
    assert_eq!(ranks, [100.0, 200.0, 300.0, 300.0, 400.0, 500.0, 600.0]);
    // Project skills outrank runtime skills (250), which outrank the rest.
    assert!(ranks[1] < crate::model::RUNTIME_RANK && ranks[2] > crate::model::RUNTIME_RANK);

    let first = &d.observation.candidates[0];
    assert_eq!(first.summary.provider, "local");
    let dir = project.join(".dsh/skills/p-dsh");
    assert_eq!(
        first.path.as_deref(),
        Some(path_string(&dir.join("SKILL.md")).as_str())
    );
    assert_eq!(
        first.summary.resource_base,
        Some(ResourceBase::Directory {
            path: path_string(&dir)
        })
    );
    let second = &d.observation.candidates[1];
    assert_eq!(
        second.summary.resource_base,
        Some(ResourceBase::Directory {
            path: path_string(&project.join(".agents/skills"))
        })
    );

    // Without a cwd there are no project roots.
    let d = provider.discover(&ctx(None));
    assert_eq!(d.observation.candidates.len(), 5);
    assert!(d
        .observation
        .candidates
        .iter()
        .all(|c| !c.summary.source.starts_with("project")));
}

#[test]
fn project_root_detection() {
    let env = Env::new();
    let provider = env.provider();
    // `.git` as a file (worktrees) counts.
    let worktree = env.root().join("wt");
    write(&worktree.join(".git"), "gitdir: /elsewhere\n");
    let cwd = worktree.join("a/b");
    fs::create_dir_all(&cwd).expect("mkdir");
    assert_eq!(provider.project_root(Some(&cwd)), Some(worktree.clone()));
    // The nearest `.git` wins.
    let inner = worktree.join("a");
    fs::create_dir_all(inner.join(".git")).expect("mkdir");
    assert_eq!(provider.project_root(Some(&cwd)), Some(inner));
    // No `.git` anywhere up to `/`: cwd itself (the temp dir has none).
    let plain = env.root().join("plain/x");
    fs::create_dir_all(&plain).expect("mkdir");
    if !Path::new("/.git").exists() && !env.root().ancestors().any(|a| a.join(".git").exists()) {
        assert_eq!(provider.project_root(Some(&plain)), Some(plain.clone()));
        flat(&plain.join(".dsh/skills"), "here.md", "here");
        let d = provider.discover(&ctx(Some(&plain)));
        assert_eq!(names(&d), pairs(&[("here", "project-dsh")]));
    }
    assert_eq!(provider.project_root(None), None);
}

#[test]
fn env_defaults_and_overrides() {
    let vars = |pairs: &'static [(&'static str, &'static str)]| {
        move |key: &str| {
            pairs
                .iter()
                .find(|(k, _)| *k == key)
                .map(|(_, v)| v.to_string())
        }
    };
    let c = LocalOptions::default()
        .resolve_with(&vars(&[("HOME", "/home/u")]))
        .expect("config");
    assert_eq!(c.dsh_home, Some(PathBuf::from("/home/u/.dsh")));
    assert_eq!(c.agents_home, Some(PathBuf::from("/home/u/.agents")));
    assert_eq!(c.bundled_skill_dir, None);
    assert_eq!(c.max_skill_file_bytes, 1024 * 1024);
    assert_eq!(c.watch, WatchConfig::default());

    let c = LocalOptions::default()
        .resolve_with(&vars(&[
            ("HOME", "/home/u"),
            ("DSH_HOME", "/d"),
            ("DSH_AGENTS_HOME", "/a"),
            ("DSH_BUNDLED_SKILL_DIR", "/b"),
        ]))
        .expect("config");
    assert_eq!(c.dsh_home, Some(PathBuf::from("/d")));
    assert_eq!(c.agents_home, Some(PathBuf::from("/a")));
    assert_eq!(c.bundled_skill_dir, Some(PathBuf::from("/b")));

    // Empty variables count as unset; explicit options win over variables.
    let c = LocalOptions {
        agents_home: Some("/explicit".into()),
        bundled_skill_dir: Some("/bundled".into()),
        ..LocalOptions::default()
    }
    .resolve_with(&vars(&[
        ("HOME", "/home/u"),
        ("DSH_HOME", ""),
        ("DSH_AGENTS_HOME", "/a"),
        ("DSH_BUNDLED_SKILL_DIR", "/b"),
    ]))
    .expect("config");
    assert_eq!(c.dsh_home, Some(PathBuf::from("/home/u/.dsh")));
    assert_eq!(c.agents_home, Some(PathBuf::from("/explicit")));
    assert_eq!(c.bundled_skill_dir, Some(PathBuf::from("/bundled")));

    let e = LocalOptions {
        dsh_home: Some(String::new()),
        ..LocalOptions::default()
    }
    .resolve_with(&vars(&[("HOME", "/h")]))
    .expect_err("empty path");
    assert_eq!(e.to_string(), "dshHome must be a non-empty path");
}

#[test]
fn tunables_are_validated() {
    let env = |_: &str| Some("/h".to_string());
    for value in [0.0, -1.0, 1.5, f64::NAN, f64::INFINITY, 1e300] {
        for (field, options) in [
            (
                "watchStabilityThresholdMs",
                LocalOptions {
                    watch_stability_threshold_ms: Some(value),
                    ..LocalOptions::default()
                },
            ),
            (
                "watchPollIntervalMs",
                LocalOptions {
                    watch_poll_interval_ms: Some(value),
                    ..LocalOptions::default()
                },
            ),
            (
                "watchMaxProjects",
                LocalOptions {
                    watch_max_projects: Some(value),
                    ..LocalOptions::default()
                },
            ),
            (
                "maxSkillFileBytes",
                LocalOptions {
                    max_skill_file_bytes: Some(value),
                    ..LocalOptions::default()
                },
            ),
        ] {
            let e = options.resolve_with(&env).expect_err("invalid");
            let text = e.to_string();
            assert!(
                text.starts_with(&format!("{field} must be a positive integer (got ")),
                "{text}"
            );
        }
    }
    let c = LocalOptions {
        watch: Some(false),
        watch_use_polling: Some(true),
        watch_stability_threshold_ms: Some(1.0),
        watch_poll_interval_ms: Some(50.0),
        watch_max_projects: Some(2.0),
        watch_follow_symlinks: Some(false),
        max_skill_file_bytes: Some(10.0),
        ..LocalOptions::default()
    }
    .resolve_with(&env)
    .expect("valid");
    assert_eq!(
        c.watch,
        WatchConfig {
            enabled: false,
            use_polling: true,
            stability_threshold_ms: 1,
            poll_interval_ms: 50,
            max_projects: 2,
            follow_symlinks: false,
        }
    );
    assert_eq!(c.max_skill_file_bytes, 10);
}
