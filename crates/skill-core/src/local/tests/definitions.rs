//! A watched provider hands out a definition it loaded before while its
//! watcher vouches that the file did not change (`definitions.rs`).

use super::*;
use crate::watch::LocalWatcher;

struct Setup {
    env: Env,
    root: PathBuf,
    provider: LocalProvider,
}

fn setup(watch: bool) -> Setup {
    let env = Env::new();
    let root = env.user_agents();
    bundle(&root, "alpha", "alpha");
    flat(&root, "beta.md", "beta");
    bundle(&root, "gamma", "gamma");
    let provider = env.provider_with(LocalOptions {
        watch: Some(watch),
        ..env.options()
    });
    if watch {
        assert!(LocalWatcher::install(&provider));
    }
    Setup {
        env,
        root,
        provider,
    }
}

impl Setup {
    fn candidate(&self, name: &str) -> Candidate {
        self.provider
            .discover(&ctx(None))
            .observation
            .candidates
            .iter()
            .find(|c| c.summary.name == name)
            .map(|c| (**c).clone())
            .expect("listed")
    }

    /// Files read (from disk, parsed or not) so far.
    fn reads(&self) -> u64 {
        let (hits, misses) = self.provider.parse_cache().stats();
        hits + misses
    }

    fn kept(&self, candidate: &Candidate) -> Option<SkillDefinition> {
        self.provider
            .load_kept(candidate, None)
            .map(|d| (*d).clone())
    }

    fn load(&self, candidate: &Candidate) -> Option<SkillDefinition> {
        self.provider.load(candidate, None).expect("loads")
    }
}

#[test]
fn a_definition_loaded_once_is_handed_out_again_without_a_read() {
    let s = setup(true);
    let alpha = s.candidate("alpha");
    assert_eq!(s.kept(&alpha), None, "nothing loaded yet");
    let loaded = s.load(&alpha).expect("a definition");
    let reads = s.reads();
    for _ in 0..3 {
        assert_eq!(s.kept(&alpha).as_ref(), Some(&loaded));
    }
    assert_eq!(s.reads(), reads, "no file read");
    // The others are not kept until loaded.
    assert_eq!(s.kept(&s.candidate("beta")), None);
    s.provider.close();
    assert_eq!(s.kept(&alpha), None, "closed: nothing vouches");
}

#[test]
fn a_change_that_leads_to_the_file_forgets_it_and_others_stay() {
    let s = setup(true);
    let (alpha, beta) = (s.candidate("alpha"), s.candidate("beta"));
    s.load(&alpha);
    s.load(&beta);
    // Read-your-writes: the write has completed, so the next look sees it.
    write(&s.root.join("alpha/SKILL.md"), &skill("alpha", "edited"));
    assert_eq!(s.kept(&alpha), None);
    assert!(
        s.kept(&beta).is_some(),
        "another file's change forgets only that file"
    );
    let edited = s.load(&alpha).expect("a definition");
    assert_eq!(edited.summary.description, "edited");
    assert_eq!(s.kept(&alpha), Some(edited));

    // The file removed, its bundle renamed, the root replaced.
    fs::remove_file(s.root.join("beta.md")).expect("rm");
    assert_eq!(s.kept(&beta), None);
    assert_eq!(s.load(&beta), None);
    let gamma = s.candidate("gamma");
    s.load(&gamma);
    s.load(&alpha);
    assert!(s.kept(&gamma).is_some());
    fs::rename(s.root.join("gamma"), s.root.join("moved")).expect("rename");
    bundle(&s.root, "gamma", "other");
    assert_eq!(s.kept(&gamma), None);
    s.candidate("alpha");
    s.load(&alpha);
    assert!(s.kept(&alpha).is_some());
    let aside = s.env.root().join("aside");
    fs::rename(&s.root, &aside).expect("rename");
    bundle(&s.root, "alpha", "alpha");
    assert_eq!(s.kept(&alpha), None, "the root replaced");
    s.provider.close();
}

#[test]
fn a_first_party_write_forgets_it_at_once() {
    let s = setup(true);
    let alpha = s.candidate("alpha");
    s.load(&alpha);
    assert!(s.kept(&alpha).is_some());
    // Not registered: nothing to invalidate, but the definition goes.
    s.provider
        .observe_host_mutation(&s.root.join("alpha/SKILL.md"));
    assert_eq!(s.kept(&alpha), None);
    s.provider.close();
}

#[test]
fn nothing_is_kept_unwatched_or_with_listings_off() {
    let s = setup(false);
    let alpha = s.candidate("alpha");
    s.load(&alpha);
    assert_eq!(s.kept(&alpha), None, "unwatched");

    let s = setup(true);
    s.provider.keep_listings(false);
    let alpha = s.candidate("alpha");
    s.load(&alpha);
    assert_eq!(s.kept(&alpha), None, "listings off");
    s.provider.keep_listings(true);
    s.candidate("alpha");
    s.load(&alpha);
    assert!(s.kept(&alpha).is_some());
    s.provider.close();
}

#[test]
fn confinement_is_checked_for_a_kept_definition_too() {
    let s = setup(true);
    let project = s.env.root().join("project");
    fs::create_dir_all(project.join(".git")).expect("mkdir");
    let local = bundle(&project.join(".agents/skills"), "local", "local");
    let cwd = Some(project.as_path());
    let found = s
        .provider
        .discover(&ctx(cwd))
        .observation
        .candidates
        .iter()
        .find(|c| c.summary.name == "local")
        .map(|c| (**c).clone())
        .expect("listed");
    assert_eq!(found.path.as_deref(), local.to_str());
    let loaded = s.provider.load(&found, cwd).expect("loads");
    assert_eq!(
        s.provider.load_kept(&found, cwd).map(|d| (*d).clone()),
        loaded
    );
    // Paths that are not a skill file of a root are refused by both, even
    // next to a kept one; so is a candidate without a path.
    let mut other = found.clone();
    for path in [
        s.env.root().join("x.md"),
        project.join(".agents/skills/local/notes.md"),
        project.join(".agents/skills/local/../../../x.md"),
    ] {
        other.path = Some(path_string(&path));
        assert!(matches!(
            s.provider.load(&other, cwd),
            Err(LoadError::Outside(_))
        ));
        assert!(s.provider.load_kept(&other, cwd).is_none());
    }
    other.path = None;
    assert!(s.provider.load_kept(&other, cwd).is_none());
    s.provider.close();
}

#[test]
fn a_large_file_is_not_kept() {
    let s = setup(true);
    let body = "x".repeat(300 << 10);
    write(
        &s.root.join("large.md"),
        &format!("---\nname: large\ndescription: d\n---\n{body}\n"),
    );
    let large = s.candidate("large");
    assert!(s.load(&large).is_some());
    assert_eq!(s.kept(&large), None);
    let (count, bytes) = s.provider.live.definitions_size();
    assert_eq!((count, bytes), (0, 0));
    let alpha = s.candidate("alpha");
    s.load(&alpha);
    assert_eq!(s.provider.live.definitions_size().0, 1);
    assert!(s.provider.memory().total_bytes > bytes);
    s.provider.close();
}

#[test]
fn a_burst_of_changes_forgets_everything() {
    let s = setup(true);
    let alpha = s.candidate("alpha");
    s.load(&alpha);
    assert!(s.kept(&alpha).is_some());
    // More paths noted at once than are worth matching one by one: even an
    // unrelated burst forgets what is kept (it is loaded again).
    let paths: Vec<PathBuf> = (0..70_000)
        .map(|i| s.root.join(format!("other-{i}.md")))
        .collect();
    s.provider.live.forget_definitions(paths);
    assert_eq!(s.kept(&alpha), None);
    s.candidate("alpha");
    s.load(&alpha);
    assert!(s.kept(&alpha).is_some());
    s.provider.close();
}

#[test]
fn a_file_reached_through_a_link_is_always_read() {
    let s = setup(true);
    let outside = s.env.root().join("outside");
    // A bundle whose SKILL.md is a link, a flat skill that is a link, and a
    // bundle directory that is a link: an edit of what they lead to may
    // not be reported, so each load reads the file.
    let target = outside.join("linked.md");
    write(&target, &skill("linked", "v1"));
    fs::create_dir_all(s.root.join("linked")).expect("mkdir");
    std::os::unix::fs::symlink(&target, s.root.join("linked/SKILL.md")).expect("link");
    let flat_target = outside.join("flat.md");
    write(&flat_target, &skill("flat-link", "v1"));
    std::os::unix::fs::symlink(&flat_target, s.root.join("flat-link.md")).expect("link");
    bundle(&outside, "dir", "dir-link");
    std::os::unix::fs::symlink(outside.join("dir"), s.root.join("dir-link")).expect("link");
    for name in ["linked", "flat-link", "dir-link"] {
        let c = s.candidate(name);
        assert!(s.load(&c).is_some(), "{name}");
        assert_eq!(s.kept(&c), None, "{name} is not kept");
    }
    // A plain one in the same root is.
    let alpha = s.candidate("alpha");
    s.load(&alpha);
    assert!(s.kept(&alpha).is_some());
    write(&target, &skill("linked", "v2"));
    let c = s.candidate("linked");
    assert_eq!(
        s.load(&c).map(|d| d.summary.description),
        Some("v2".to_string())
    );
    s.provider.close();
}
