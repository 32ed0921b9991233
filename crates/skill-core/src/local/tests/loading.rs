//! `get()` and `diagnose()`, and where skill files may be loaded from.

use super::*;

#[test]
fn get_rereads_every_time() {
    let env = Env::new();
    let path = flat(&env.user_agents(), "s.md", "s");
    let provider = env.provider();
    let d = provider.discover(&ctx(None));
    let c = d.observation.candidates[0].clone();
    let def = provider.load(&c, None).expect("ok").expect("present");
    assert_eq!(def.content, "# s\n\nBody of s.");
    assert_eq!(def.path.as_deref(), Some(path_string(&path).as_str()));
    assert_eq!(def.summary.source, "user-agents");
    assert_eq!(def.summary.resource_base, c.summary.resource_base);

    write(
        &path,
        "---\nname: s\ndescription: changed\nmetadata:\n  k: v\n---\nNew body\n",
    );
    let def = provider.load(&c, None).expect("ok").expect("present");
    assert_eq!(def.content, "New body");
    assert_eq!(def.summary.description, "changed");
    assert_eq!(def.metadata.expect("metadata")["k"], serde_json::json!("v"));

    // Renamed inside: the definition carries the new name (the registry
    // compares it with the candidate's).
    write(&path, &skill("renamed", "d"));
    let def = provider.load(&c, None).expect("ok").expect("present");
    assert_eq!(def.summary.name, "renamed");

    // Now invalid: not loadable (a warning for the host), `None` through the trait.
    write(&path, "no frontmatter");
    assert!(matches!(
        provider.load(&c, None),
        Err(LoadError::Invalid { .. })
    ));
    assert_eq!(NativeProvider::get(&provider, &c, &ctx(None)), Ok(None));

    fs::remove_file(&path).expect("rm");
    assert_eq!(provider.load(&c, None), Ok(None));
    assert_eq!(NativeProvider::get(&provider, &c, &ctx(None)), Ok(None));
}

#[test]
fn diagnose_explains_every_file() {
    let env = Env::new();
    let project = env.root().join("proj");
    fs::create_dir_all(project.join(".git")).expect("git");
    let winner = flat(&project.join(".dsh/skills"), "shared.md", "shared");
    let shadowed_across = bundle(&env.user_dsh(), "shared", "shared");
    let inside_a = flat(&env.user_agents(), "a.md", "twin");
    let inside_b = flat(&env.user_agents(), "b.md", "twin");
    write(&env.user_agents().join("bad.md"), "nope");
    fs::create_dir_all(env.user_agents().join("not-a-bundle")).expect("mkdir");
    bundle(&env.user_dsh(), ".system", "sys");
    let provider = env.provider();
    let diag = provider.diagnose(&ctx(Some(&project)));
    assert!(diag.complete);
    assert_eq!(
        diag.project_root.as_deref(),
        Some(path_string(&project).as_str())
    );
    let statuses: Vec<(&str, &str)> = diag.roots.iter().map(|r| (r.source, r.status)).collect();
    assert_eq!(
        statuses,
        [
            ("project-dsh", "scanned"),
            ("project-agents", "missing"),
            ("user-dsh", "scanned"),
            ("user-agents", "scanned"),
        ]
    );
    let find = |p: &Path| {
        diag.files
            .iter()
            .find(|f| f.path == path_string(p))
            .unwrap_or_else(|| panic!("no record for {}: {:#?}", p.display(), diag.files))
    };
    let w = find(&winner);
    assert_eq!(
        (w.outcome, w.source, w.rank, w.layout),
        ("loaded", "project-dsh", 100.0, Some("flat"))
    );
    let s = find(&shadowed_across);
    assert_eq!((s.outcome, s.layout), ("shadowed", Some("bundle")));
    let by = s.shadowed_by.as_ref().expect("winner");
    assert_eq!(
        (by.name.as_str(), by.source, by.path.as_str()),
        ("shared", "project-dsh", path_string(&winner).as_str())
    );
    assert!(s
        .reason
        .as_deref()
        .unwrap_or("")
        .contains("shadowed by \"shared\" from project-dsh"));
    assert_eq!(find(&inside_a).outcome, "loaded");
    let b = find(&inside_b);
    assert_eq!(b.outcome, "shadowed");
    assert_eq!(
        b.shadowed_by.as_ref().map(|w| w.path.clone()),
        Some(path_string(&inside_a))
    );
    let bad = find(&env.user_agents().join("bad.md"));
    assert_eq!(bad.outcome, "skipped");
    assert!(bad
        .reason
        .as_deref()
        .unwrap_or("")
        .contains("missing frontmatter"));
    let nb = find(&env.user_agents().join("not-a-bundle/SKILL.md"));
    assert_eq!(
        (nb.outcome, nb.reason.as_deref()),
        ("skipped", Some("directory has no SKILL.md"))
    );
    let sys = find(&env.user_dsh().join(".system"));
    assert_eq!(sys.outcome, "skipped");
    assert_eq!(diag.warnings.len(), 1, "{:?}", diag.warnings);
    // Serialises with camelCase keys for the host.
    let json = serde_json::to_value(&diag).expect("json");
    assert!(json["files"]
        .as_array()
        .expect("files")
        .iter()
        .any(|f| f.get("shadowedBy").is_some()));
    assert!(json.get("projectRoot").is_some());
}

#[cfg(unix)]
#[test]
fn get_loads_only_skill_files_of_a_configured_root() {
    use std::os::unix::fs::symlink;
    let env = Env::new();
    let project = env.root().join("project");
    fs::create_dir_all(project.join(".git")).expect("git");
    let outside = flat(&env.root().join("elsewhere"), "secret.md", "secret");
    let listed = flat(&env.user_agents(), "ok.md", "ok");
    let in_project = flat(&project.join(".dsh/skills"), "p.md", "p");
    // A symlinked bundle: discovery follows it, so loading does too.
    let target = env.root().join("shared-bundle");
    bundle(&target, "", "linked");
    symlink(&target, env.user_agents().join("linked")).expect("link");
    let provider = env.provider();
    let d = provider.discover(&ctx(None));
    let c = d
        .observation
        .candidates
        .iter()
        .find(|c| c.summary.name == "ok")
        .expect("ok")
        .clone();
    let forged = |path: &Path| Candidate {
        path: Some(path_string(path)),
        ..(*c).clone()
    };
    for refused in [
        outside.clone(),
        env.user_agents().join("../../elsewhere/secret.md"),
        env.user_agents().join("ok.md/../../../elsewhere/secret.md"),
        env.user_dsh().join(".system/SKILL.md"),
        env.user_agents().join("linked/nested/SKILL.md"),
    ] {
        let result = provider.load(&forged(&refused), None);
        assert!(
            matches!(&result, Err(LoadError::Outside(p)) if p == &path_string(&refused)),
            "{}: {result:?}",
            refused.display()
        );
        assert!(result
            .expect_err("refused")
            .to_string()
            .contains("not a skill file of a configured skill root"));
    }
    // `..` resolved lexically, inside a root: fine.
    let dotted = env.user_agents().join("linked/../ok.md");
    let def = provider
        .load(&forged(&dotted), None)
        .expect("ok")
        .expect("present");
    assert_eq!(def.path, Some(path_string(&listed)));
    let def = provider
        .load(&forged(&env.user_agents().join("linked/SKILL.md")), None)
        .expect("ok")
        .expect("present");
    assert_eq!(def.summary.name, "linked");
    // A project root: with the lookup's cwd (or once a lookup used it).
    assert!(matches!(
        provider.load(&forged(&in_project), None),
        Err(LoadError::Outside(_))
    ));
    let def = provider
        .load(&forged(&in_project), Some(&project.join("sub")))
        .expect("ok")
        .expect("present");
    assert_eq!(def.summary.source, "project-dsh");
    let fresh = env.provider();
    fresh.discover(&ctx(Some(&project)));
    assert!(fresh.load(&forged(&in_project), None).is_ok());
    // Through the registry's trait: an error, not "gone".
    assert!(NativeProvider::get(&provider, &forged(&outside), &ctx(None)).is_err());
}

#[test]
fn a_moved_project_root_invalidates_a_cached_catalog() {
    use crate::registry::Registry;
    let env = Env::new();
    let outer = env.root().join("outer");
    fs::create_dir_all(outer.join(".git")).expect("git");
    let inner = outer.join("inner");
    let cwd = inner.join("src");
    fs::create_dir_all(&cwd).expect("mkdir");
    flat(&outer.join(".dsh/skills"), "outer.md", "outer");
    flat(&inner.join(".dsh/skills"), "inner.md", "inner");
    let registry = Registry::new(8).expect("registry");
    let provider = Arc::new(env.provider_with(LocalOptions {
        watch: Some(false),
        ..env.options()
    }));
    registry
        .register_provider(PROVIDER_NAME, Some(provider.clone()))
        .expect("register");
    let lookup = LookupContext::new(Some(cwd.clone()));
    let key = path_string(&cwd);
    let skills = |registry: &Registry| {
        let (catalog, _) = registry.snapshot_native(&lookup);
        catalog.names().map(str::to_string).collect::<Vec<_>>()
    };
    assert_eq!(skills(&registry), ["outer"]);
    assert!(registry.cached(Some(&key)).is_some());
    // A `.git` appears between cwd and the project root.
    fs::create_dir(inner.join(".git")).expect("git");
    assert!(
        registry.cached(Some(&key)).is_none(),
        "noticed on the cache hit"
    );
    assert_eq!(skills(&registry), ["inner"]);
    assert!(registry.cached(Some(&key)).is_some());
    // It goes away again.
    fs::remove_dir(inner.join(".git")).expect("rm");
    assert!(registry.cached(Some(&key)).is_none());
    assert_eq!(skills(&registry), ["outer"]);
    // The project's own `.git` goes away: cwd becomes the project.
    fs::remove_dir(outer.join(".git")).expect("rm");
    assert!(registry.cached(Some(&key)).is_none());
    assert!(skills(&registry).is_empty());
    // Unchanged: the hit stands.
    assert!(registry.cached(Some(&key)).is_some());
}
