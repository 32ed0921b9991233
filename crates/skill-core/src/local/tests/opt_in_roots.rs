//! Opt-in roots: nested project roots, compatibility roots, a provider name
//! of its own and leaving the default roots out.

use super::*;
use crate::local::roots::nested_rank;
use crate::registry::Registry;
use std::time::{Duration, Instant};

/// `(path, source, rank)` of each root of a lookup from `cwd`.
fn listed_roots(provider: &LocalProvider, cwd: &Path) -> Vec<(PathBuf, &'static str, f64)> {
    provider
        .roots(Some(cwd))
        .1
        .into_iter()
        .map(|r| (r.path.clone(), r.source.as_str(), r.rank))
        .collect()
}

/// `(name, source, rank)` of every candidate, in discovery order.
fn ranked(d: &Discovery) -> Vec<(String, String, f64)> {
    d.observation
        .candidates
        .iter()
        .map(|c| (c.summary.name.clone(), c.summary.source.clone(), c.rank))
        .collect()
}

/// Owned `(name, source, rank)` triples for comparisons with [`ranked`].
fn triples(list: &[(&str, &str, f64)]) -> Vec<(String, String, f64)> {
    list.iter()
        .map(|(n, s, r)| (n.to_string(), s.to_string(), *r))
        .collect()
}

/// `<tmp>/project` holding `.git`.
fn git_project(env: &Env) -> PathBuf {
    let project = env.root().join("project");
    fs::create_dir_all(project.join(".git")).expect("git");
    project
}

fn nested(env: &Env) -> LocalOptions {
    LocalOptions {
        nested_roots: Some(true),
        watch: Some(false),
        ..env.options()
    }
}

/// A repository with `.git` and `packages/app/src` below it.
fn monorepo(env: &Env) -> (PathBuf, PathBuf) {
    let repo = env.root().join("repo");
    fs::create_dir_all(repo.join(".git")).expect("git");
    let src = repo.join("packages/app/src");
    fs::create_dir_all(&src).expect("mkdir");
    (repo, src)
}

#[test]
fn nested_ranks_halve_per_level_and_stay_above_zero() {
    assert_eq!(nested_rank(Source::ProjectDsh, 0), 100.0);
    assert_eq!(nested_rank(Source::ProjectAgents, 0), 200.0);
    assert_eq!(nested_rank(Source::ProjectDsh, 1), 50.0);
    assert_eq!(nested_rank(Source::ProjectAgents, 1), 75.0);
    assert_eq!(nested_rank(Source::ProjectDsh, 2), 25.0);
    assert_eq!(nested_rank(Source::ProjectAgents, 2), 37.5);
    // Nearest first at every depth: dsh(k) < agents(k) < dsh(k-1).
    for depth in 1..200 {
        let dsh = nested_rank(Source::ProjectDsh, depth);
        let agents = nested_rank(Source::ProjectAgents, depth);
        assert!(0.0 < dsh && dsh < agents, "{depth}");
        assert!(
            agents < nested_rank(Source::ProjectDsh, depth - 1),
            "{depth}"
        );
    }
    // Every project root outranks runtime skills.
    assert!(Source::ProjectClaude.rank() < crate::model::RUNTIME_RANK);
    assert_eq!(nested_rank(Source::Custom, 3), 300.0);
}

#[test]
fn nested_roots_run_from_cwd_up_to_the_project_nearest_first() {
    let env = Env::new();
    let (repo, src) = monorepo(&env);
    let app = repo.join("packages/app");
    let packages = repo.join("packages");
    // The same name at three levels: the package's own copy wins.
    flat(&repo.join(".dsh/skills"), "review.md", "review");
    flat(&app.join(".agents/skills"), "review.md", "review");
    bundle(&src.join(".dsh/skills"), "lint", "lint");
    flat(&packages.join(".dsh/skills"), "release.md", "release");
    flat(&repo.join(".agents/skills"), "repo-only.md", "repo-only");
    let provider = env.provider_with(nested(&env));
    let root = |dir: &Path, folder: &str| dir.join(folder).join("skills");
    let expected = vec![
        (root(&src, ".dsh"), "project-dsh", 12.5),
        (root(&src, ".agents"), "project-agents", 18.75),
        (root(&app, ".dsh"), "project-dsh", 25.0),
        (root(&app, ".agents"), "project-agents", 37.5),
        (root(&packages, ".dsh"), "project-dsh", 50.0),
        (root(&packages, ".agents"), "project-agents", 75.0),
        (root(&repo, ".dsh"), "project-dsh", 100.0),
        (root(&repo, ".agents"), "project-agents", 200.0),
        (env.user_dsh(), "user-dsh", 400.0),
        (env.user_agents(), "user-agents", 500.0),
    ];
    assert_eq!(listed_roots(&provider, &src), expected);
    let d = provider.discover(&ctx(Some(&src)));
    assert!(d.observation.complete, "{:?}", d.warnings);
    assert_eq!(
        ranked(&d),
        triples(&[
            ("lint", "project-dsh", 12.5),
            ("review", "project-agents", 37.5),
            ("release", "project-dsh", 50.0),
            ("review", "project-dsh", 100.0),
            ("repo-only", "project-agents", 200.0),
        ])
    );
    // diagnose() shows every nested root and who shadows whom.
    let diag = provider.diagnose(&ctx(Some(&src)));
    assert_eq!(diag.project_root, Some(path_string(&repo)));
    let roots: Vec<(String, &str, f64)> = diag
        .roots
        .iter()
        .map(|r| (r.path.clone(), r.source, r.rank))
        .collect();
    let want: Vec<(String, &str, f64)> = expected
        .iter()
        .map(|(p, s, r)| (path_string(p), *s, *r))
        .collect();
    assert_eq!(roots, want);
    let shadowed = diag
        .files
        .iter()
        .find(|f| f.outcome == "shadowed")
        .expect("shadowed");
    assert_eq!(
        shadowed.path,
        path_string(&repo.join(".dsh/skills/review.md"))
    );
    let winner = shadowed.shadowed_by.as_ref().expect("winner");
    assert_eq!((winner.source, winner.rank), ("project-agents", 37.5));

    // The same lookup without nested roots: the project root's two only.
    let plain = env.provider_with(LocalOptions {
        watch: Some(false),
        ..env.options()
    });
    assert_eq!(listed_roots(&plain, &src), expected[6..].to_vec());
    assert_eq!(
        ranked(&plain.discover(&ctx(Some(&src)))),
        triples(&[
            ("review", "project-dsh", 100.0),
            ("repo-only", "project-agents", 200.0),
        ])
    );
}

#[test]
fn nested_roots_of_a_cwd_at_the_project_root_or_with_dot_dot() {
    let env = Env::new();
    let (repo, _) = monorepo(&env);
    let provider = env.provider_with(nested(&env));
    let plain = env.provider_with(LocalOptions {
        watch: Some(false),
        ..env.options()
    });
    assert_eq!(listed_roots(&provider, &repo), listed_roots(&plain, &repo));
    // `..` is resolved before walking up: `packages/lib`, then `packages`.
    let lib = repo.join("packages/lib");
    fs::create_dir_all(&lib).expect("mkdir");
    let paths: Vec<PathBuf> = listed_roots(&provider, &repo.join("packages/app/../lib"))
        .into_iter()
        .map(|(p, _, _)| p)
        .take(5)
        .collect();
    assert_eq!(
        paths,
        [
            lib.join(".dsh/skills"),
            lib.join(".agents/skills"),
            repo.join("packages/.dsh/skills"),
            repo.join("packages/.agents/skills"),
            repo.join(".dsh/skills"),
        ]
    );
}

#[test]
fn nested_roots_of_recent_lookups_count_for_mutations_and_get() {
    let env = Env::new();
    let (repo, src) = monorepo(&env);
    let app = repo.join("packages/app");
    let other = repo.join("packages/other");
    fs::create_dir_all(&other).expect("mkdir");
    let file = flat(&app.join(".dsh/skills"), "app.md", "app");
    let provider = env.provider_with(LocalOptions {
        watch_max_projects: Some(1.0),
        ..nested(&env)
    });
    let counter = Arc::new(Counter::default());
    NativeProvider::attach(&provider, Some(counter.clone()));
    let fresh = app.join(".agents/skills/new.md");
    assert!(!provider.observe_host_mutation(&fresh), "not looked up yet");
    provider.discover(&ctx(Some(&src)));
    assert!(provider.observe_host_mutation(&fresh));
    assert!(provider.observe_host_mutation(&src.join(".dsh/skills/b/SKILL.md")));
    assert!(!provider.observe_host_mutation(&src.join("main.rs")));
    assert_eq!(counter.count(), 2);
    let d = provider.discover(&ctx(Some(&src)));
    let candidate = d.observation.candidates[0].clone();
    assert_eq!(candidate.path, Some(path_string(&file)));
    let loaded = provider
        .load(&candidate, None)
        .expect("load")
        .expect("found");
    assert_eq!(
        (loaded.summary.source.as_str(), loaded.content.as_str()),
        ("project-dsh", "# app\n\nBody of app.")
    );

    // One project at most (`watchMaxProjects: 1`): each lookup directory is
    // one entry, so a lookup from a sibling package forgets the first one's
    // nested roots (not the project root's own).
    provider.discover(&ctx(Some(&other)));
    assert!(!provider.could_affect(&fresh));
    assert!(provider.could_affect(&other.join(".dsh/skills/x.md")));
    assert!(provider.could_affect(&repo.join(".agents/skills/x.md")));
    assert!(
        provider.load(&candidate, None).is_err(),
        "no longer a known root"
    );
    // ... until a lookup from there again, or a load for that cwd.
    let again = provider
        .load(&candidate, Some(&src))
        .expect("load")
        .expect("found");
    assert_eq!(again.summary.name, "app");
}

#[test]
fn compat_roots_sit_between_their_neighbours() {
    let env = Env::new();
    let project = git_project(&env);
    let custom = env.root().join("custom");
    let bundled = env.root().join("bundled");
    let claude = env.home().join(".claude");
    let codex = env.root().join("codex-home");
    flat(&project.join(".dsh/skills"), "p-dsh.md", "p-dsh");
    flat(&project.join(".agents/skills"), "shared.md", "shared");
    bundle(&project.join(".claude/skills"), "shared", "shared");
    bundle(&project.join(".claude/skills"), "p-claude", "p-claude");
    flat(&custom, "c.md", "c");
    flat(&env.user_dsh(), "u-dsh.md", "u-dsh");
    flat(&env.user_agents(), "u-agents.md", "u-agents");
    bundle(&claude.join("skills"), "u-claude", "u-claude");
    bundle(&codex.join("skills"), "u-codex", "u-codex");
    // Codex keeps its own system skills one level deeper: not a skill here.
    bundle(
        &codex.join("skills/.system"),
        "codex-system",
        "codex-system",
    );
    flat(&bundled, "b.md", "b");
    let options = LocalOptions {
        compat_roots: Some(vec!["claude".into(), "codex".into()]),
        custom_skill_dirs: Some(vec![path_string(&custom)]),
        bundled_skill_dir: Some(path_string(&bundled)),
        watch: Some(false),
        ..env.options()
    };
    let config = options
        .resolve_with(&|key| match key {
            "HOME" => Some(path_string(&env.home())),
            "CODEX_HOME" => Some(path_string(&codex)),
            _ => None,
        })
        .expect("config");
    assert_eq!(config.claude_home, Some(claude.clone()));
    assert_eq!(config.codex_home, Some(codex.clone()));
    let provider = LocalProvider::new(config);
    let d = provider.discover(&ctx(Some(&project)));
    assert!(d.observation.complete, "{:?}", d.warnings);
    assert_eq!(
        ranked(&d),
        triples(&[
            ("p-dsh", "project-dsh", 100.0),
            ("shared", "project-agents", 200.0),
            ("p-claude", "project-claude", 225.0),
            ("shared", "project-claude", 225.0),
            ("c", "custom", 300.0),
            ("u-dsh", "user-dsh", 400.0),
            ("u-agents", "user-agents", 500.0),
            ("u-claude", "user-claude", 550.0),
            ("u-codex", "user-codex", 575.0),
            ("b", "bundled", 600.0),
        ])
    );
    let diag = provider.diagnose(&ctx(Some(&project)));
    let shadowed: Vec<&str> = diag
        .files
        .iter()
        .filter(|f| f.outcome == "shadowed")
        .map(|f| f.source)
        .collect();
    assert_eq!(shadowed, ["project-claude"]);
    // A compatibility skill loads like any other.
    let claude_skill = d
        .observation
        .candidates
        .iter()
        .find(|c| c.summary.name == "u-claude")
        .expect("u-claude");
    let loaded = provider
        .load(claude_skill, None)
        .expect("load")
        .expect("found");
    assert_eq!(loaded.summary.source, "user-claude");

    // `codex` alone; its home defaults to `~/.codex` without `CODEX_HOME`.
    let config = LocalOptions {
        compat_roots: Some(vec!["codex".into()]),
        ..env.options()
    }
    .resolve_with(&|key| (key == "HOME").then(|| "/home/u".to_string()))
    .expect("config");
    assert_eq!(config.claude_home, None);
    assert_eq!(config.codex_home, Some(PathBuf::from("/home/u/.codex")));
    let sources: Vec<&str> = roots::roots_for(&config, None)
        .iter()
        .map(|r| r.source.as_str())
        .collect();
    assert_eq!(sources, ["user-dsh", "user-agents", "user-codex"]);
}

#[test]
fn new_options_are_validated() {
    let env = Env::new();
    let err = |options: LocalOptions| {
        options
            .resolve_with(&|_| None)
            .expect_err("invalid")
            .to_string()
    };
    assert_eq!(
        err(LocalOptions {
            compat_roots: Some(vec!["claude".into(), "cursor".into()]),
            ..env.options()
        }),
        "compatRoots[1] must be \"claude\" or \"codex\" (got \"cursor\")"
    );
    for name in ["", "runtime"] {
        assert_eq!(
            err(LocalOptions {
                provider_name: Some(name.into()),
                ..env.options()
            }),
            format!(
                "providerName must be a non-empty string other than \"runtime\" (got {name:?})"
            )
        );
    }
    assert!(err(LocalOptions {
        include_default_roots: Some(false),
        nested_roots: Some(true),
        ..LocalOptions::default()
    })
    .starts_with("nestedRoots has no effect with includeDefaultRoots: false"));
    // `dshHome` and `agentsHome` are unused without the default roots, not
    // an error: no user root is scanned.
    let unused = LocalOptions {
        include_default_roots: Some(false),
        custom_skill_dirs: Some(vec!["/c".into()]),
        ..env.options()
    }
    .resolve_with(&|_| None)
    .expect("unused homes are not an error");
    assert_eq!((&unused.dsh_home, &unused.agents_home), (&None, &None));
    assert_eq!(
        super::roots::roots_for(&unused, None)
            .iter()
            .map(|r| r.source)
            .collect::<Vec<_>>(),
        [Source::Custom]
    );
    assert_eq!(
        err(LocalOptions {
            compat_roots: Some(vec!["claude".into()]),
            ..env.options()
        }),
        "cannot determine the home directory for the default compatRoots \"claude\" root; set it explicitly"
    );
    // Repeats are harmless; the defaults are the documented ones.
    let config = LocalOptions {
        compat_roots: Some(vec!["codex".into(), "codex".into()]),
        codex_home: Some("/c".into()),
        ..env.options()
    }
    .resolve_with(&|_| None)
    .expect("config");
    assert_eq!(config.codex_home, Some(PathBuf::from("/c")));
    let defaults = env.options().resolve_with(&|_| None).expect("config");
    assert_eq!(defaults.provider_name, "local");
    assert!(defaults.include_default_roots && !defaults.nested_roots);
    assert_eq!((defaults.claude_home, defaults.codex_home), (None, None));
}

#[test]
fn without_default_roots_only_custom_bundled_and_compat_roots_remain() {
    let env = Env::new();
    let project = git_project(&env);
    let custom = env.root().join("custom");
    let bundled = env.root().join("bundled");
    flat(&project.join(".dsh/skills"), "p.md", "p");
    flat(&project.join(".claude/skills"), "pc.md", "pc");
    flat(&custom, "c.md", "c");
    flat(&env.user_dsh(), "u.md", "u");
    flat(&bundled, "b.md", "b");
    let from_env = env.root().join("env-bundled");
    flat(&from_env, "e.md", "e");
    let home = path_string(&env.home());
    let vars = |key: &str| match key {
        "HOME" => Some(home.clone()),
        "DSH_BUNDLED_SKILL_DIR" => Some(path_string(&from_env)),
        _ => None,
    };
    let only = LocalOptions {
        include_default_roots: Some(false),
        custom_skill_dirs: Some(vec![path_string(&custom)]),
        watch: Some(false),
        ..LocalOptions::default()
    };
    // `$DSH_BUNDLED_SKILL_DIR` does not count: only an explicit bundled root.
    let provider = LocalProvider::new(only.resolve_with(&vars).expect("config"));
    assert_eq!(provider.project(Some(&project)), None, "nothing to probe");
    let d = provider.discover(&ctx(Some(&project)));
    assert_eq!(names(&d), pairs(&[("c", "custom")]));
    assert_eq!(provider.diagnose(&ctx(Some(&project))).project_root, None);
    let provider = LocalProvider::new(
        LocalOptions {
            bundled_skill_dir: Some(path_string(&bundled)),
            compat_roots: Some(vec!["claude".into()]),
            ..only
        }
        .resolve_with(&vars)
        .expect("config"),
    );
    let d = provider.discover(&ctx(Some(&project.join("src"))));
    assert_eq!(
        names(&d),
        pairs(&[("pc", "project-claude"), ("c", "custom"), ("b", "bundled")])
    );
}

#[test]
fn the_provider_name_is_on_every_candidate_and_definition() {
    let env = Env::new();
    let project = git_project(&env);
    let team = env.root().join("team");
    flat(&team, "shared.md", "shared");
    flat(&team, "team-only.md", "team-only");
    let mine = env.root().join("mine");
    flat(&mine, "shared.md", "shared");
    let local = Arc::new(env.provider_with(LocalOptions {
        custom_skill_dirs: Some(vec![path_string(&mine)]),
        watch: Some(false),
        ..env.options()
    }));
    let named = Arc::new(LocalProvider::new(
        LocalOptions {
            provider_name: Some("team".into()),
            include_default_roots: Some(false),
            custom_skill_dirs: Some(vec![path_string(&team)]),
            watch: Some(false),
            ..LocalOptions::default()
        }
        .resolve_with(&|_| None)
        .expect("config"),
    ));
    assert_eq!(NativeProvider::name(named.as_ref()), "team");
    let d = named.discover(&ctx(Some(&project)));
    assert!(d
        .observation
        .candidates
        .iter()
        .all(|c| c.summary.provider == "team"));
    let definition = named
        .load(&d.observation.candidates[0], None)
        .expect("load")
        .expect("found");
    assert_eq!(definition.summary.provider, "team");

    // Two local providers in one registry: each candidate keeps its name, and
    // equal ranks fall back to registration order.
    let registry = Registry::new(8).expect("registry");
    registry
        .register_provider(PROVIDER_NAME, Some(local.clone()))
        .expect("local");
    registry
        .register_provider("team", Some(named.clone()))
        .expect("team");
    assert!(
        registry.register_provider("team", Some(named)).is_err(),
        "names stay unique"
    );
    let (catalog, _) = registry.snapshot_native(&LookupContext::new(Some(project)));
    let got: Vec<(&str, &str)> = catalog
        .native_summaries()
        .map(|s| (s.name.as_str(), s.provider.as_str()))
        .collect();
    assert_eq!(got, [("shared", "local"), ("team-only", "team")]);
}

/// Wait (bounded) until `counter` exceeds `seen`.
fn wait_for_invalidation(counter: &Counter, seen: usize) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while counter.count() <= seen {
        assert!(Instant::now() < deadline, "no invalidation within 20 s");
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[cfg(target_os = "linux")]
#[test]
fn nested_roots_of_every_lookup_directory_stay_watched() {
    let env = Env::new();
    let (repo, _) = monorepo(&env);
    let a = repo.join("packages/a");
    let b = repo.join("packages/b");
    fs::create_dir_all(&a).expect("mkdir");
    fs::create_dir_all(&b).expect("mkdir");
    let provider = env.provider_with(LocalOptions {
        watch: Some(true),
        ..nested(&env)
    });
    assert!(crate::watch::LocalWatcher::install(&provider));
    let counter = Arc::new(Counter::default());
    NativeProvider::attach(&provider, Some(counter.clone()));
    assert!(provider.discover(&ctx(Some(&a))).observation.complete);
    assert!(provider.discover(&ctx(Some(&b))).observation.complete);
    // Both packages share a project root, but each keeps its nested roots
    // watched: a skill created in either is seen.
    for (dir, name) in [(&a, "in-a"), (&b, "in-b")] {
        let seen = counter.count();
        flat(&dir.join(".dsh/skills"), &format!("{name}.md"), name);
        wait_for_invalidation(&counter, seen);
        let d = provider.discover(&ctx(Some(dir)));
        assert_eq!(
            d.observation.candidates[0].summary.name,
            name,
            "{:?}",
            names(&d)
        );
        assert_eq!(d.observation.candidates[0].rank, 25.0);
    }
    provider.close();
}
