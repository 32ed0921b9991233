//! Discovery, loading and diagnostics on real temporary directories.

use super::fs::{
    read_capped, DirEntry, FileMeta, FileRead, FileStamp, SkillFs, StampedRead, StdFs,
    TIMESTAMP_GRANULARITY,
};
use super::*;
use crate::cancel::CancelToken;
use crate::model::InvocationPolicy;
use std::fs;
use std::io;
use tempfile::TempDir;

/// The [`SkillFs`] methods a test fake takes from the real disk unchanged:
/// listing, metadata and existence.
macro_rules! on_disk {
    () => {
        fn read_dir(&self, path: &Path) -> io::Result<Vec<DirEntry>> {
            StdFs.read_dir(path)
        }
        fn metadata(&self, path: &Path) -> io::Result<FileMeta> {
            StdFs.metadata(path)
        }
        fn exists(&self, path: &Path) -> io::Result<bool> {
            StdFs.exists(path)
        }
    };
}

fn skill(name: &str, description: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\n---\n\n# {name}\n\nBody of {name}.\n")
}

fn write(path: &Path, text: &str) {
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).expect("mkdir");
    }
    fs::write(path, text).expect("write");
}

fn bundle(root: &Path, dir: &str, name: &str) -> PathBuf {
    let path = root.join(dir).join("SKILL.md");
    write(&path, &skill(name, &format!("{name} bundle")));
    path
}

fn flat(root: &Path, file: &str, name: &str) -> PathBuf {
    let path = root.join(file);
    write(&path, &skill(name, &format!("{name} flat")));
    path
}

struct Env {
    tmp: TempDir,
}

impl Env {
    fn new() -> Self {
        let tmp = TempDir::new().expect("tempdir");
        Env { tmp }
    }

    fn root(&self) -> PathBuf {
        fs::canonicalize(self.tmp.path()).expect("canonicalize")
    }

    fn home(&self) -> PathBuf {
        self.root().join("home")
    }

    fn user_dsh(&self) -> PathBuf {
        self.home().join(".dsh/skills")
    }

    fn user_agents(&self) -> PathBuf {
        self.home().join(".agents/skills")
    }

    fn options(&self) -> LocalOptions {
        LocalOptions {
            dsh_home: Some(path_string(&self.home().join(".dsh"))),
            agents_home: Some(path_string(&self.home().join(".agents"))),
            ..LocalOptions::default()
        }
    }

    fn provider(&self) -> LocalProvider {
        self.provider_with(self.options())
    }

    fn provider_with(&self, options: LocalOptions) -> LocalProvider {
        LocalProvider::new(options.resolve_with(&|_| None).expect("config"))
    }
}

fn ctx(cwd: Option<&Path>) -> LookupContext {
    LookupContext::new(cwd.map(Path::to_path_buf))
}

/// `(name, source)` of every candidate, in order (shared with the service tests).
pub(super) fn names(d: &Discovery) -> Vec<(String, String)> {
    d.observation
        .candidates
        .iter()
        .map(|c| (c.summary.name.clone(), c.summary.source.clone()))
        .collect()
}

/// Owned `(name, source)` pairs for comparisons.
pub(super) fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

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
    assert_eq!(d.warnings.len(), 4, "{joined}");
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
        pairs(&[("good", "user-agents"), ("hidden", "user-agents")])
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
        "latin1.md skipped: not UTF-8 text",
        "big.md skipped: file is larger than maxSkillFileBytes",
        "nofront.md skipped: missing frontmatter",
        "badname.md skipped: frontmatter field `name` must be kebab-case",
        "badinv.md skipped: frontmatter field `user-invocable` must be a boolean",
        "legacy.md skipped: frontmatter key `disableModelInvocation` is no longer supported",
    ] {
        assert!(joined.contains(needle), "missing {needle:?} in\n{joined}");
    }
    assert_eq!(d.warnings.len(), 7, "{joined}");
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
fn missing_roots_and_file_roots_are_empty() {
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
    assert!(d.warnings.is_empty(), "{:?}", d.warnings);
    let diag = provider.diagnose(&ctx(None));
    assert!(
        diag.roots.iter().all(|r| r.status == "missing"),
        "{:?}",
        diag.roots
    );
}

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

/// Counts invalidations.
#[derive(Default)]
struct Counter(std::sync::atomic::AtomicUsize);

impl Invalidate for Counter {
    fn invalidate(&self) -> bool {
        self.0.fetch_add(1, Ordering::SeqCst);
        true
    }
}

impl Counter {
    fn count(&self) -> usize {
        self.0.load(Ordering::SeqCst)
    }
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
        (agents.join("renamed-bundle"), true),
        (agents.join("bundle/SKILL.md"), true),
        (agents.join("bundle/../other.md"), true),
        (project.join(".dsh"), true),
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

/// A provider whose parse cache trusts any file time older than the read.
fn eager_cache(provider: &mut LocalProvider) {
    provider.cache = cache::ParseCache::new(64, 1 << 20, std::time::Duration::ZERO);
}

#[test]
fn an_unchanged_file_is_parsed_once() {
    let env = Env::new();
    let a = flat(&env.user_agents(), "a.md", "a");
    bundle(&env.user_dsh(), "b", "b");
    write(&env.user_agents().join("bad.md"), "no frontmatter");
    // File times come from the same clock and precede the reads below.
    let mut provider = env.provider();
    eager_cache(&mut provider);
    let first = provider.discover(&ctx(None));
    assert_eq!(provider.cache.stats(), (0, 3));
    // list, diagnose and get of unchanged files: no read, no parse.
    let again = provider.discover(&ctx(None));
    assert_eq!(again.observation, first.observation);
    provider.diagnose(&ctx(None));
    let c = first
        .observation
        .candidates
        .iter()
        .find(|c| c.summary.name == "a")
        .expect("a")
        .clone();
    let def = provider.load(&c, None).expect("load").expect("present");
    assert_eq!(def.content, "# a\n\nBody of a.");
    assert_eq!(provider.cache.stats(), (7, 3));
    // A changed file is read again (and only that one).
    write(&a, &skill("a", "a changed, longer"));
    let def = provider.load(&c, None).expect("load").expect("present");
    assert_eq!(def.summary.description, "a changed, longer");
    assert_eq!(provider.cache.stats(), (7, 4));
    assert_eq!(provider.cache.size().0, 3);
    // Deleted: gone, and forgotten.
    fs::remove_file(&a).expect("rm");
    assert_eq!(provider.load(&c, None), Ok(None));
    assert_eq!(provider.cache.size().0, 2);
}

#[test]
fn a_same_size_edit_right_after_a_read_is_seen() {
    let env = Env::new();
    let path = flat(&env.user_agents(), "s.md", "s");
    // Real granularity: a file written within it of a read is read again.
    let provider = env.provider();
    let c = provider.discover(&ctx(None)).observation.candidates[0].clone();
    for round in 0..20 {
        let body = format!("{round:02}");
        write(
            &path,
            &skill("s", "same size").replace("Body of s.", &format!("Body {body}.")),
        );
        let def = provider.load(&c, None).expect("load").expect("present");
        assert_eq!(def.content, format!("# s\n\nBody {body}."), "round {round}");
    }
}

#[test]
fn the_parse_cache_is_bounded() {
    let cache = cache::ParseCache::new(2, 1 << 20, std::time::Duration::ZERO);
    let env = Env::new();
    let files: Vec<PathBuf> = (0..4)
        .map(|i| flat(&env.user_agents(), &format!("s{i}.md"), &format!("s{i}")))
        .collect();
    for f in &files {
        assert!(matches!(
            cache.read(&StdFs, f, 1 << 20),
            ReadOutcome::Parsed(_)
        ));
    }
    assert_eq!(cache.size().0, 2);
    let small = cache::ParseCache::new(64, 600, std::time::Duration::ZERO);
    for f in &files {
        small.read(&StdFs, f, 1 << 20);
    }
    let (count, bytes) = small.size();
    assert!(bytes <= 600 && count >= 1, "{count} files, {bytes} bytes");
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
        ..c.clone()
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

/// The real disk with timestamps of a 1-second-granularity filesystem frozen
/// at one instant: every write within that second leaves the same stamp.
struct CoarseFs {
    second: i128,
}

impl SkillFs for CoarseFs {
    on_disk!();
    fn read_file(&self, path: &Path, cap: u64) -> io::Result<FileRead> {
        StdFs.read_file(path, cap)
    }
    fn read_file_unless(
        &self,
        path: &Path,
        cap: u64,
        known: &mut dyn FnMut(&FileStamp) -> bool,
    ) -> io::Result<StampedRead> {
        let read = StdFs.read_file(path, cap)?;
        let len = match &read {
            FileRead::Bytes(b) => b.len() as u64,
            _ => 0,
        };
        let stamp = FileStamp {
            dev: 1,
            ino: 1,
            len,
            mtime: self.second,
            ctime: self.second,
        };
        if known(&stamp) {
            return Ok(StampedRead::Known);
        }
        Ok(StampedRead::Read(read, Some(stamp)))
    }
}

#[test]
fn a_racy_stamp_is_never_trusted() {
    let env = Env::new();
    let path = flat(&env.user_agents(), "s.md", "s");
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock")
        .as_secs();
    let coarse = CoarseFs {
        second: i128::from(now) * 1_000_000_000,
    };
    let edit = |n: u32| write(&path, &skill("s", &format!("version {n}")));
    let description = |cache: &cache::ParseCache| match cache.read(&coarse, &path, 1 << 20) {
        ReadOutcome::Parsed(p) => p.description,
        other => panic!("{other:?}"),
    };
    let safe = cache::ParseCache::default();
    for n in 0..3 {
        edit(n);
        assert_eq!(description(&safe), format!("version {n}"));
    }
    // What the settle check prevents: a cache that trusts any stamp older
    // than the read returns the previous version of a same-size edit.
    let trusting = cache::ParseCache::new(8, 1 << 20, std::time::Duration::ZERO);
    edit(3);
    assert_eq!(description(&trusting), "version 3");
    edit(4);
    assert_eq!(description(&trusting), "version 3");
    // An old stamp is settled.
    let old = FileStamp {
        dev: 1,
        ino: 1,
        len: 1,
        mtime: coarse.second - 3_000_000_000,
        ctime: coarse.second - 3_000_000_000,
    };
    assert!(old.settled_before(std::time::SystemTime::now(), TIMESTAMP_GRANULARITY));
    let racy = FileStamp {
        ctime: coarse.second,
        ..old
    };
    assert!(!racy.settled_before(std::time::SystemTime::now(), TIMESTAMP_GRANULARITY));
}

mod opt_in_roots;
