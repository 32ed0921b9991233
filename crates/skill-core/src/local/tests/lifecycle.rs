//! The observer seam, cancellation, host mutations and invalidation.

use super::*;

#[derive(Default)]
struct TestObserver {
    healthy: AtomicBool,
    seen: Mutex<Vec<(Option<PathBuf>, Vec<&'static str>)>>,
    attached: Mutex<Vec<bool>>,
    closed: AtomicBool,
}

impl RootObserver for TestObserver {
    fn observed(&self, project_root: Option<&Path>, roots: &[RootSpec]) -> bool {
        self.seen.lock().expect("lock").push((
            project_root.map(Path::to_path_buf),
            roots.iter().map(|r| r.source.as_str()).collect(),
        ));
        self.healthy.load(Ordering::Relaxed)
    }
    fn attach(&self, invalidator: Option<Arc<dyn Invalidate>>) {
        self.attached
            .lock()
            .expect("lock")
            .push(invalidator.is_some());
    }
    fn close(&self) {
        self.closed.store(true, Ordering::Relaxed);
    }
}

struct NoopInvalidate;
impl Invalidate for NoopInvalidate {
    fn invalidate(&self) -> bool {
        true
    }
}

#[test]
fn observer_seam() {
    let env = Env::new();
    flat(&env.user_agents(), "x.md", "x");
    let provider = env.provider();
    assert!(!provider.observe_host_mutation(Path::new("/anything")));
    let observer = Arc::new(TestObserver::default());
    observer.healthy.store(true, Ordering::Relaxed);
    provider.set_observer(Some(observer.clone()));
    let project = env.root().join("p");
    fs::create_dir_all(&project).expect("mkdir");
    assert!(provider.discover(&ctx(Some(&project))).observation.complete);
    observer.healthy.store(false, Ordering::Relaxed);
    let d = provider.discover(&ctx(None));
    assert!(!d.observation.complete);
    assert_eq!(
        d.observation.candidates.len(),
        1,
        "readable skills stay listed"
    );
    assert!(d
        .warnings
        .iter()
        .any(|w| w.contains("watching is not healthy")));
    {
        let seen = observer.seen.lock().expect("lock");
        assert_eq!(seen[0].0.as_deref(), Some(project.as_path()));
        assert_eq!(
            seen[0].1,
            ["project-dsh", "project-agents", "user-dsh", "user-agents"]
        );
        assert_eq!(seen[1].0, None);
    }
    NativeProvider::attach(&provider, Some(Arc::new(NoopInvalidate)));
    NativeProvider::attach(&provider, None);
    assert_eq!(
        *observer.attached.lock().expect("lock"),
        [false, true, false]
    );
    let relevant = env.user_agents().join("y.md");
    assert!(!provider.observe_host_mutation(&relevant), "unregistered");
    NativeProvider::attach(&provider, Some(Arc::new(NoopInvalidate)));
    assert!(provider.observe_host_mutation(&relevant));
    provider.close();
    assert!(observer.closed.load(Ordering::Relaxed));
    assert!(!provider.observe_host_mutation(&relevant));
    // Discovery keeps working after close, unwatched.
    assert!(provider.discover(&ctx(None)).observation.complete);
}

#[test]
fn close_releases_the_caches_and_reads_keep_working() {
    let env = Env::new();
    bundle(&env.user_dsh(), "a", "a");
    let b = flat(&env.user_agents(), "b.md", "b");
    write(&env.user_agents().join("bad.md"), "no frontmatter\n");
    let mut provider = env.provider();
    super::cache::eager_cache(&mut provider);
    let fresh = provider.memory();
    assert_eq!((fresh.parse_cache_files, fresh.warned), (0, 0));
    let d = provider.discover(&ctx(None));
    assert_eq!(names(&d), pairs(&[("a", "user-dsh"), ("b", "user-agents")]));
    assert_eq!(d.warnings.len(), 1, "{:?}", d.warnings);
    let used = provider.memory();
    assert_eq!(used.parse_cache_files, 3);
    assert!(used.warned > 0);
    assert!(used.total_bytes > fresh.total_bytes);

    provider.close();
    let closed = provider.memory();
    assert_eq!(
        (
            closed.parse_cache_files,
            closed.parse_cache_bytes,
            closed.warned
        ),
        (0, 0, 0)
    );
    assert_eq!(closed.total_bytes, fresh.total_bytes);
    provider.close();

    // Reads are served after close: discovery (the parse cache fills again)
    // and loading.
    let again = provider.discover(&ctx(None));
    assert_eq!(names(&again), names(&d));
    assert!(again.observation.complete);
    assert_eq!(provider.memory().parse_cache_files, 3);
    let mut candidate = (*again.observation.candidates[1]).clone();
    candidate.path = Some(path_string(&b));
    let loaded = provider
        .load(&candidate, None)
        .expect("load")
        .expect("present");
    assert_eq!(loaded.content, "# b\n\nBody of b.");
}

#[test]
fn cancelled_discovery_is_incomplete() {
    let env = Env::new();
    for i in 0..40 {
        flat(&env.user_agents(), &format!("s{i}.md"), &format!("s{i}"));
    }
    let provider = env.provider();
    let cancel = CancelToken::new();
    cancel.cancel();
    let d = provider.discover(&LookupContext { cwd: None, cancel });
    assert!(!d.observation.complete);
}

#[test]
fn host_mutations_invalidate_without_watching() {
    let env = Env::new();
    let project = env.root().join("project");
    fs::create_dir_all(project.join(".git")).expect("git");
    let custom = env.root().join("custom");
    let provider = env.provider_with(LocalOptions {
        custom_skill_dirs: Some(vec![path_string(&custom)]),
        watch: Some(false),
        ..env.options()
    });
    assert!(provider.observer().is_none());
    let counter = Arc::new(Counter::default());
    NativeProvider::attach(&provider, Some(counter.clone()));
    let agents = project.join(".agents/skills");
    // The project was never looked up: nothing of it is cached.
    assert!(!provider.observe_host_mutation(&agents.join("new.md")));
    assert!(provider.observe_host_mutation(&custom.join("new.md")));
    assert!(provider.observe_host_mutation(&env.user_dsh().join("b/SKILL.md")));
    assert_eq!(counter.count(), 2);
    provider.discover(&ctx(Some(&project.join("src"))));
    for (path, relevant) in [
        (agents.join("new.md"), true),
        (agents.join("bundle/SKILL.md"), true),
        (agents.join("bundle/../other.md"), true),
        // Only skill entries: not the root, its ancestors, a bundle
        // directory, other files of the root or files inside a bundle.
        (agents.clone(), false),
        (project.join(".dsh"), false),
        (project.clone(), false),
        (agents.join("renamed-bundle"), false),
        (agents.join("notes.txt"), false),
        (agents.join("bundle/references/x.md"), false),
        (project.join("src/main.rs"), false),
        (env.user_dsh().join(".system/SKILL.md"), false),
        (env.root().join("elsewhere.md"), false),
    ] {
        let before = counter.count();
        assert_eq!(
            provider.observe_host_mutation(&path),
            relevant,
            "{}",
            path.display()
        );
        assert_eq!(counter.count() - before, usize::from(relevant), "once");
    }
    assert!(provider.could_affect(&agents.join("x.md")));
    provider.close();
    assert!(!provider.observe_host_mutation(&agents.join("new.md")));
}

#[test]
fn a_renamed_bundle_shows_its_new_resource_base() {
    let env = Env::new();
    let provider = env.provider();
    bundle(&env.user_dsh(), "old", "moving");
    let d = provider.discover(&ctx(None));
    let base = |d: &Discovery| d.observation.candidates[0].summary.resource_base.clone();
    assert_eq!(
        base(&d),
        Some(ResourceBase::Directory {
            path: path_string(&env.user_dsh().join("old"))
        })
    );
    fs::rename(env.user_dsh().join("old"), env.user_dsh().join("new")).expect("rename");
    let d = provider.discover(&ctx(None));
    assert_eq!(
        base(&d),
        Some(ResourceBase::Directory {
            path: path_string(&env.user_dsh().join("new"))
        })
    );
    assert_eq!(
        d.observation.candidates[0].path,
        Some(path_string(&env.user_dsh().join("new/SKILL.md")))
    );
}
