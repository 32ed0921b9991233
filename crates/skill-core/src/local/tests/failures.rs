//! Unexpected I/O failures, special files and warnings.

use super::*;

/// Injects failures for chosen paths on top of the real filesystem.
struct Faulty {
    dirs: Vec<PathBuf>,
    files: Vec<PathBuf>,
}

impl SkillFs for Faulty {
    fn read_dir(&self, path: &Path) -> io::Result<Vec<DirEntry>> {
        if self.dirs.iter().any(|d| d == path) {
            return Err(io::Error::from(io::ErrorKind::PermissionDenied));
        }
        StdFs.read_dir(path)
    }
    fn metadata(&self, path: &Path) -> io::Result<FileMeta> {
        StdFs.metadata(path)
    }
    fn exists(&self, path: &Path) -> io::Result<bool> {
        StdFs.exists(path)
    }
    fn read_file(&self, path: &Path, cap: u64) -> io::Result<FileRead> {
        if self.files.iter().any(|f| f == path) {
            return Err(io::Error::from(io::ErrorKind::PermissionDenied));
        }
        StdFs.read_file(path, cap)
    }
}

#[test]
fn unexpected_io_errors_make_discovery_incomplete() {
    let env = Env::new();
    let locked_root = env.user_dsh();
    bundle(&locked_root, "hidden", "hidden");
    let unreadable = flat(&env.user_agents(), "locked.md", "locked");
    flat(&env.user_agents(), "open.md", "open");
    let config = env.options().resolve_with(&|_| None).expect("config");
    let provider = LocalProvider::with_fs(
        config,
        Arc::new(Faulty {
            dirs: vec![locked_root.clone()],
            files: vec![unreadable.clone()],
        }),
    );
    let d = provider.discover(&ctx(None));
    assert!(!d.observation.complete);
    assert_eq!(names(&d), pairs(&[("open", "user-agents")]));
    let joined = d.warnings.join("\n");
    assert!(
        joined.contains(&format!("cannot list skill root {}", locked_root.display())),
        "{joined}"
    );
    assert!(joined.contains("locked.md: cannot read"), "{joined}");
    // The readable skill stays loadable.
    let def = provider
        .load(&d.observation.candidates[0], None)
        .expect("load")
        .expect("present");
    assert_eq!(def.summary.name, "open");
    // Loading the unreadable one is an error, not "gone".
    let mut c = (*d.observation.candidates[0]).clone();
    c.path = Some(path_string(&unreadable));
    assert!(matches!(provider.load(&c, None), Err(LoadError::Io { .. })));
    assert!(NativeProvider::get(&provider, &c, &ctx(None)).is_err());
}

#[cfg(unix)]
#[test]
fn a_root_that_is_a_symlink_loop_is_an_error_not_missing() {
    use std::os::unix::fs::symlink;
    let env = Env::new();
    let looped = env.root().join("looped");
    symlink(&looped, &looped).expect("link");
    flat(&env.user_agents(), "ok.md", "ok");
    let provider = env.provider_with(LocalOptions {
        custom_skill_dirs: Some(vec![path_string(&looped)]),
        ..env.options()
    });
    let d = provider.discover(&ctx(None));
    assert!(!d.observation.complete, "{:?}", d.warnings);
    assert_eq!(names(&d), pairs(&[("ok", "user-agents")]));
    let diag = provider.diagnose(&ctx(None));
    assert_eq!(diag.roots[0].status, "error");
    assert!(!diag.complete);
}

#[cfg(unix)]
#[test]
fn a_unix_socket_is_a_special_file_not_a_failure() {
    use std::os::unix::net::UnixListener;
    let env = Env::new();
    let root = env.user_agents();
    fs::create_dir_all(root.join("sock")).expect("mkdir");
    let _bundle = UnixListener::bind(root.join("sock/SKILL.md")).expect("bind");
    let _flat = UnixListener::bind(root.join("flat.md")).expect("bind");
    std::os::unix::fs::symlink(root.join("flat.md"), root.join("link.md")).expect("link");
    flat(&root, "ok.md", "ok");
    let provider = env.provider();
    let d = provider.discover(&ctx(None));
    assert!(d.observation.complete, "{:?}", d.warnings);
    assert_eq!(names(&d), pairs(&[("ok", "user-agents")]));
    for entry in ["sock/SKILL.md", "flat.md", "link.md"] {
        assert!(
            d.warnings
                .iter()
                .any(|w| w.contains(entry) && w.contains("not a regular file")),
            "{entry}: {:?}",
            d.warnings
        );
    }
}

#[cfg(unix)]
#[test]
fn each_problem_is_warned_once_until_it_goes_away() {
    use std::os::unix::fs::symlink;
    let env = Env::new();
    let looped = env.root().join("looped");
    symlink(&looped, &looped).expect("link");
    let bad = env.user_agents().join("bad.md");
    write(&bad, "no frontmatter");
    let provider = env.provider_with(LocalOptions {
        custom_skill_dirs: Some(vec![path_string(&looped)]),
        ..env.options()
    });
    let first = provider.discover(&ctx(None));
    assert!(!first.observation.complete);
    assert_eq!(first.warnings.len(), 2, "{:?}", first.warnings);
    for _ in 0..3 {
        let again = provider.discover(&ctx(None));
        assert!(!again.observation.complete);
        assert!(again.warnings.is_empty(), "{:?}", again.warnings);
    }
    // Both problems go away...
    fs::remove_file(&looped).expect("rm");
    fs::create_dir(&looped).expect("mkdir");
    write(&bad, &skill("bad", "fixed"));
    let healed = provider.discover(&ctx(None));
    assert!(healed.observation.complete);
    assert!(healed.warnings.is_empty(), "{:?}", healed.warnings);
    // ...and come back: warned again.
    fs::remove_dir(&looped).expect("rmdir");
    symlink(&looped, &looped).expect("link");
    write(&bad, "still no frontmatter");
    let back = provider.discover(&ctx(None));
    assert_eq!(back.warnings.len(), 2, "{:?}", back.warnings);
    // diagnose() always explains everything.
    assert_eq!(provider.diagnose(&ctx(None)).warnings.len(), 2);
}

/// Fails reads of chosen files with an OS error: every time, or only the
/// first `transient` times.
struct FailingReads {
    files: Vec<PathBuf>,
    code: i32,
    transient: Option<std::sync::atomic::AtomicUsize>,
}

impl SkillFs for FailingReads {
    on_disk!();
    fn read_file(&self, path: &Path, cap: u64) -> io::Result<FileRead> {
        if self.files.iter().any(|f| f == path) {
            let fail = match &self.transient {
                None => true,
                Some(left) => left
                    .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
                    .is_ok(),
            };
            if fail {
                return Err(io::Error::from_raw_os_error(self.code));
            }
        }
        StdFs.read_file(path, cap)
    }
}

#[cfg(unix)]
#[test]
fn an_entry_failing_the_same_way_twice_is_skipped_once_not_incomplete_forever() {
    let env = Env::new();
    let broken = flat(&env.user_agents(), "broken.md", "broken");
    flat(&env.user_agents(), "open.md", "open");
    let config = env.options().resolve_with(&|_| None).expect("config");
    let provider = LocalProvider::with_fs(
        config.clone(),
        Arc::new(FailingReads {
            files: vec![broken.clone()],
            code: libc::EIO,
            transient: None,
        }),
    );
    let first = provider.discover(&ctx(None));
    assert!(first.observation.complete, "{:?}", first.warnings);
    assert_eq!(names(&first), pairs(&[("open", "user-agents")]));
    assert_eq!(first.warnings.len(), 1, "{:?}", first.warnings);
    assert!(
        first.warnings[0].contains("broken.md skipped: cannot read:")
            && first.warnings[0].contains("the same on a second attempt"),
        "{:?}",
        first.warnings
    );
    // Once: the next discoveries are complete and quiet.
    for _ in 0..3 {
        let again = provider.discover(&ctx(None));
        assert!(again.observation.complete);
        assert!(again.warnings.is_empty(), "{:?}", again.warnings);
    }
    let report = provider.diagnose(&ctx(None));
    assert!(report.complete);
    let file = report
        .files
        .iter()
        .find(|f| f.path.ends_with("broken.md"))
        .expect("reported");
    assert_eq!(file.outcome, "skipped");
    // get() of it: not loadable (with the reason), rather than an I/O error.
    let mut candidate = (*first.observation.candidates[0]).clone();
    candidate.path = Some(path_string(&broken));
    assert!(matches!(
        provider.load(&candidate, None),
        Err(LoadError::Invalid { .. })
    ));

    // A failure that does not repeat: loaded.
    let flaky = LocalProvider::with_fs(
        config.clone(),
        Arc::new(FailingReads {
            files: vec![broken.clone()],
            code: libc::EIO,
            transient: Some(std::sync::atomic::AtomicUsize::new(1)),
        }),
    );
    let d = flaky.discover(&ctx(None));
    assert!(d.observation.complete);
    assert_eq!(
        names(&d),
        pairs(&[("broken", "user-agents"), ("open", "user-agents")])
    );

    // A shortage of the system (out of file descriptors) stays a reason to
    // call discovery incomplete, as a permission problem does (above).
    let short = LocalProvider::with_fs(
        config,
        Arc::new(FailingReads {
            files: vec![broken],
            code: libc::EMFILE,
            transient: None,
        }),
    );
    let d = short.discover(&ctx(None));
    assert!(!d.observation.complete);
    assert!(
        d.warnings[0].contains("skill discovery is incomplete"),
        "{:?}",
        d.warnings
    );
}

#[cfg(target_os = "linux")]
#[test]
fn a_link_to_an_unreadable_special_file_is_skipped() {
    use std::os::unix::fs::symlink;
    let env = Env::new();
    fs::create_dir_all(env.user_agents()).expect("mkdir");
    // Opens, is a "regular" file of size 0, and every read fails with EIO.
    symlink("/proc/self/mem", env.user_agents().join("x.md")).expect("link");
    // A link whose target cannot be named (a component longer than NAME_MAX).
    symlink("a".repeat(300), env.user_agents().join("y.md")).expect("link");
    flat(&env.user_agents(), "open.md", "open");
    let provider = env.provider();
    let d = provider.discover(&ctx(None));
    assert!(d.observation.complete, "{:?}", d.warnings);
    assert_eq!(names(&d), pairs(&[("open", "user-agents")]));
    assert_eq!(d.warnings.len(), 2, "{:?}", d.warnings);
    assert!(provider.discover(&ctx(None)).warnings.is_empty());
}

#[cfg(unix)]
#[test]
fn a_root_that_cannot_be_named_is_reported_once_and_left_out() {
    let env = Env::new();
    flat(&env.user_agents(), "open.md", "open");
    // Longer than PATH_MAX (4096 on Linux, 1024 on macOS).
    let long = env.root().join(["d"; 2100].join("/"));
    let provider = env.provider_with(LocalOptions {
        custom_skill_dirs: Some(vec![path_string(&long), "/nul\0root".into()]),
        ..env.options()
    });
    // Watched: the watcher is not asked to watch what cannot be named (it
    // would stay unhealthy, and discovery incomplete, for good).
    assert!(crate::watch::LocalWatcher::install(&provider));
    let d = provider.discover(&ctx(None));
    assert!(d.observation.complete, "{:?}", d.warnings);
    assert_eq!(names(&d), pairs(&[("open", "user-agents")]));
    assert_eq!(d.warnings.len(), 2, "{:?}", d.warnings);
    assert!(
        d.warnings
            .iter()
            .all(|w| w.contains("cannot be used") && w.ends_with("it is left out")),
        "{:?}",
        d.warnings
    );
    assert!(provider.discover(&ctx(None)).warnings.is_empty());
    let report = provider.diagnose(&ctx(None));
    assert!(report.complete);
    assert_eq!(
        report
            .roots
            .iter()
            .filter(|r| r.status == "unusable")
            .count(),
        2
    );
}
