//! Through the local provider's observer seam.

use super::*;
use crate::local::{LocalOptions, LocalProvider};
use crate::provider::{Invalidate, LookupContext, NativeProvider};

#[derive(Default)]
struct Counter(AtomicUsize);

impl Invalidate for Counter {
    fn invalidate(&self) -> bool {
        self.0.fetch_add(1, Ordering::SeqCst);
        true
    }
}

// The temporary directory drops last (see `Harness`).
struct Env {
    base: PathBuf,
    project: PathBuf,
    provider: LocalProvider,
    watcher: Arc<LocalWatcher>,
    counter: Arc<Counter>,
    _dir: tempfile::TempDir,
}

fn env() -> Env {
    env_with(|_| {})
}

fn env_with(tune: impl FnOnce(&mut LocalOptions)) -> Env {
    let dir = tempfile::tempdir().expect("tempdir");
    let base = fs::canonicalize(dir.path()).expect("canonical");
    let project = base.join("project");
    fs::create_dir_all(project.join(".git")).expect("mkdir");
    fs::create_dir_all(project.join("src")).expect("mkdir");
    let custom = base.join("custom");
    fs::create_dir(&custom).expect("mkdir");
    write_bundle(&custom, "shared-one");
    let mut options = LocalOptions {
        dsh_home: Some(base.join("home/.dsh").display().to_string()),
        agents_home: Some(base.join("home/.agents").display().to_string()),
        custom_skill_dirs: Some(vec![custom.display().to_string()]),
        ..LocalOptions::default()
    };
    tune(&mut options);
    let provider = LocalProvider::new(options.resolve_with(&|_| None).expect("config"));
    let watcher = Arc::new(LocalWatcher::new(watch_config(&provider.config().watch)));
    provider.set_observer(Some(watcher.clone()));
    let counter = Arc::new(Counter::default());
    provider.attach(Some(counter.clone()));
    Env {
        _dir: dir,
        base,
        project,
        provider,
        watcher,
        counter,
    }
}

impl Env {
    fn list(&self) -> (Vec<String>, bool, Vec<String>) {
        let ctx = LookupContext::new(Some(self.project.join("src")));
        let (observation, warnings) = self.provider.list(&ctx);
        let mut names: Vec<String> = observation
            .candidates
            .iter()
            .map(|c| c.summary.name.clone())
            .collect();
        names.sort();
        (names, observation.complete, warnings)
    }

    fn invalidations(&self) -> usize {
        self.counter.0.load(Ordering::SeqCst)
    }
}

#[test]
fn install_follows_the_watch_option() {
    let dir = tempfile::tempdir().expect("tempdir");
    let home = dir.path().display().to_string();
    let on = LocalOptions {
        dsh_home: Some(home.clone()),
        agents_home: Some(home.clone()),
        ..LocalOptions::default()
    };
    let off = LocalOptions {
        watch: Some(false),
        ..on.clone()
    };
    let provider = LocalProvider::new(on.resolve_with(&|_| None).expect("config"));
    assert!(LocalWatcher::install(&provider));
    assert!(provider.observer().is_some());
    let provider = LocalProvider::new(off.resolve_with(&|_| None).expect("config"));
    assert!(!LocalWatcher::install(&provider));
    assert!(provider.observer().is_none());
}

#[test]
fn listing_watches_the_lookup_roots() {
    let e = env();
    assert_eq!(
        e.watcher.watcher().watch_count(),
        0,
        "nothing before a lookup"
    );
    let (names, complete, warnings) = e.list();
    assert_eq!(names, vec!["shared-one"]);
    assert!(complete, "{warnings:?}");
    // custom + its bundle, the project dir (for both project roots), and the
    // nearest existing ancestor of both user roots (the temp dir).
    assert_eq!(
        e.watcher.watcher().watched_paths(),
        vec![
            e.base.clone(),
            e.base.join("custom"),
            e.base.join("custom/shared-one"),
            e.project.clone(),
        ]
    );
    assert_eq!(os_watches_under(&e.base), 4);
    // Listing again changes nothing.
    e.list();
    assert_eq!(e.watcher.watcher().watch_count(), 4);

    let before = e.invalidations();
    write_bundle(&e.project.join(".agents/skills"), "fresh");
    wait_until("invalidated", || e.invalidations() > before);
    wait_until("listed", || e.list().0.contains(&"fresh".to_string()));

    let before = e.invalidations();
    fs::create_dir_all(e.base.join("home/.dsh/skills")).expect("mkdir -p");
    write_skill_file(&e.base.join("home/.dsh/skills/mine.md"), "mine");
    wait_until("user root invalidated", || e.invalidations() > before);
    wait_until("listed", || e.list().0.contains(&"mine".to_string()));

    let before = e.invalidations();
    fs::remove_dir_all(e.base.join("custom/shared-one")).expect("rm");
    wait_until("removal invalidated", || e.invalidations() > before);
    wait_until("gone", || !e.list().0.contains(&"shared-one".to_string()));
}

#[test]
fn a_lookup_that_evicts_a_project_invalidates_before_it_returns() {
    let e = env_with(|o| o.watch_max_projects = Some(1.0));
    let other = e.base.join("other");
    fs::create_dir_all(other.join(".git")).expect("mkdir");
    e.list();
    let before = e.invalidations();
    let (observation, _) = e.provider.list(&LookupContext::new(Some(other.clone())));
    assert!(observation.complete);
    assert_eq!(
        e.invalidations(),
        before + 1,
        "the evicted project's catalogs are invalidated inside the lookup, once"
    );
    // Listing the evicting project again evicts nothing.
    e.provider.list(&LookupContext::new(Some(other)));
    assert_eq!(e.invalidations(), before + 1);
}

#[test]
fn host_mutation_invalidates_synchronously_when_relevant() {
    let e = env();
    e.list();
    let before = e.invalidations();
    let skill = e.project.join(".agents/skills/new/SKILL.md");
    assert!(e.provider.observe_host_mutation(&skill));
    assert_eq!(e.invalidations(), before + 1, "synchronous");
    assert!(e
        .provider
        .observe_host_mutation(&e.base.join("custom/flat.md")));
    assert!(!e
        .provider
        .observe_host_mutation(&e.project.join("src/main.rs")));
    assert!(!e
        .provider
        .observe_host_mutation(&e.base.join("custom/shared-one/references/x.md")));
    assert_eq!(e.invalidations(), before + 2);
}

#[test]
fn unhealthy_watching_makes_discovery_incomplete_but_keeps_skills() {
    let e = env();
    let custom = e.base.join("custom");
    e.watcher
        .watcher()
        .inner
        .lock()
        .faults
        .insert(custom.clone(), || {
            notify::Error::new(notify::ErrorKind::MaxFilesWatch)
        });
    let (names, complete, warnings) = e.list();
    assert_eq!(names, vec!["shared-one"], "skills stay listed");
    assert!(!complete);
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("fs.inotify.max_user_watches")),
        "{warnings:?}"
    );
    // The warning is reported once; discovery stays incomplete until the
    // watch starts.
    let (_, complete, warnings) = e.list();
    assert!(!complete);
    assert!(!warnings.iter().any(|w| w.contains("max_user_watches")));
    e.watcher.watcher().inner.lock().faults.clear();
    wait_until("complete again", || e.list().1);
}

#[test]
fn close_stops_watching_and_discovery_goes_on() {
    let e = env();
    e.list();
    assert!(os_watches_under(&e.base) > 0);
    e.provider.close();
    assert_eq!(e.watcher.watcher().watch_count(), 0);
    assert_eq!(os_watches_under(&e.base), 0);
    assert!(!e
        .provider
        .observe_host_mutation(&e.base.join("custom/flat.md")));
    let (names, complete, _) = e.list();
    assert_eq!(names, vec!["shared-one"]);
    assert!(complete);
}

#[test]
fn the_watcher_does_not_keep_the_registration_alive() {
    let e = env();
    e.list();
    let weak = Arc::downgrade(&e.counter);
    e.provider.attach(None);
    let Env { counter, .. } = e;
    drop(counter);
    assert!(weak.upgrade().is_none(), "only the registration holds it");
}

/// Read-your-writes through the registry: catalogs cached for a project, a
/// subdirectory and no cwd answer the disk right after each change, with no
/// wait in between, and a collection started before a change is not reused.
#[test]
fn lookups_through_the_registry_read_their_writes() {
    use crate::registry::Registry;
    let e = env();
    let registry = Registry::new(16).expect("registry");
    let options = LocalOptions {
        dsh_home: Some(e.base.join("home/.dsh").display().to_string()),
        agents_home: Some(e.base.join("home/.agents").display().to_string()),
        custom_skill_dirs: Some(vec![e.base.join("custom").display().to_string()]),
        ..LocalOptions::default()
    };
    let provider = Arc::new(LocalProvider::new(
        options.resolve_with(&|_| None).expect("config"),
    ));
    assert!(LocalWatcher::install(&provider));
    registry
        .register_provider("local", Some(provider.clone()))
        .expect("register");
    let root = e.project.join(".agents/skills");
    let custom = e.base.join("custom");
    let cwds = [Some(e.project.clone()), Some(e.project.join("src")), None];
    let catalog = |cwd: &Option<PathBuf>| {
        let (catalog, _) = registry.snapshot_native(&LookupContext::new(cwd.clone()));
        let mut skills: Vec<(String, String)> = catalog
            .entries()
            .iter()
            .map(|entry| {
                let name = catalog.name(entry).to_string();
                let description = catalog.description(entry).unwrap_or("").to_string();
                (name, description)
            })
            .collect();
        skills.sort();
        skills
    };
    let has = |cwd: &Option<PathBuf>, name: &str, description: &str| {
        catalog(cwd)
            .iter()
            .any(|(n, d)| n == name && d == description)
    };
    for cwd in &cwds {
        catalog(cwd);
    }
    fs::create_dir_all(&root).expect("mkdir -p");
    for round in 0..10 {
        // Cache every catalog, then change the disk and look up at once.
        for cwd in &cwds {
            catalog(cwd);
        }
        let name = format!("p-{round}");
        fs::create_dir(root.join(&name)).expect("mkdir");
        fs::write(root.join(&name).join("SKILL.md"), skill_text(&name, "new")).expect("write");
        fs::write(
            custom.join("shared-one/SKILL.md"),
            skill_text("shared-one", &format!("v{round}")),
        )
        .expect("edit");
        for cwd in &cwds[..2] {
            assert!(
                has(cwd, &name, "new"),
                "round {round}: {cwd:?} misses {name}"
            );
        }
        for cwd in &cwds {
            assert!(
                has(cwd, "shared-one", &format!("v{round}")),
                "round {round}: {cwd:?} has an old shared-one"
            );
        }
        for cwd in &cwds {
            catalog(cwd);
        }
        let flat = root.join(format!("{name}.md"));
        let tmp = e.base.join("staging.md");
        fs::write(&tmp, skill_text(&format!("flat-{round}"), "flat")).expect("write");
        fs::rename(&tmp, &flat).expect("rename into place");
        fs::remove_dir_all(root.join(&name)).expect("rm");
        for cwd in &cwds[..2] {
            assert!(
                has(cwd, &format!("flat-{round}"), "flat"),
                "round {round}: {cwd:?}"
            );
            assert!(
                !has(cwd, &name, "new"),
                "round {round}: {cwd:?} still has {name}"
            );
        }
        fs::remove_file(&flat).expect("rm");
    }
}
