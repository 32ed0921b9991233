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
    let mut c = d.observation.candidates[0].clone();
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
