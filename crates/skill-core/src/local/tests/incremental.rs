//! A watched provider reads again only what changed (`live.rs`): after any
//! sequence of changes, its discovery and diagnosis are those of a fresh
//! provider reading everything.

use super::*;
use crate::watch::LocalWatcher;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::test_rng::Rng;

const ENTRIES: [&str; 6] = ["a", "b", "c", "d", "Ea", "zz-9"];
const NAMES: [&str; 4] = ["alpha", "beta", "gamma", "delta"];

struct World {
    env: Env,
    project: PathBuf,
    custom: PathBuf,
    outside: PathBuf,
    roots: Vec<PathBuf>,
    counter: AtomicU64,
}

impl World {
    fn new() -> Self {
        let env = Env::new();
        let project = env.root().join("project");
        fs::create_dir_all(project.join(".git")).expect("mkdir");
        let custom = env.root().join("custom");
        let outside = env.root().join("outside");
        fs::create_dir_all(&outside).expect("mkdir");
        let roots = vec![
            env.user_dsh(),
            env.user_agents(),
            custom.clone(),
            project.join(".dsh/skills"),
            project.join(".agents/skills"),
        ];
        for root in &roots {
            fs::create_dir_all(root).expect("mkdir");
        }
        Self {
            env,
            project,
            custom,
            outside,
            roots,
            counter: AtomicU64::new(0),
        }
    }

    fn options(&self, watch: bool) -> LocalOptions {
        LocalOptions {
            custom_skill_dirs: Some(vec![path_string(&self.custom)]),
            watch: Some(watch),
            ..self.env.options()
        }
    }

    fn text(&self, rng: &mut Rng) -> String {
        let n = self.counter.fetch_add(1, Ordering::Relaxed);
        let name = rng.pick(&NAMES);
        match rng.below(10) {
            0 => String::new(),
            1 => "no frontmatter at all\n".into(),
            2 => format!("---\nname: Not A Name\ndescription: d{n}\n---\nBody\n"),
            3 => format!("---\nname: {name}\n---\nno description\n"),
            _ => skill(name, &format!("{name} version {n}")),
        }
    }

    /// One random change; returns what it did.
    fn change(&self, rng: &mut Rng) -> String {
        let root = rng.pick(&self.roots).clone();
        let entry = *rng.pick(&ENTRIES);
        let flat = root.join(format!("{entry}.md"));
        let dir = root.join(entry);
        match rng.below(15) {
            0 | 1 => {
                let text = self.text(rng);
                write(&flat, &text);
                format!("write {}", flat.display())
            }
            2 | 3 => {
                let text = self.text(rng);
                write(&dir.join("SKILL.md"), &text);
                format!("write {}/SKILL.md", dir.display())
            }
            4 => {
                let _ = fs::remove_file(&flat);
                format!("remove {}", flat.display())
            }
            5 => {
                let _ = fs::remove_dir_all(&dir);
                format!("remove dir {}", dir.display())
            }
            6 => {
                let _ = fs::remove_file(dir.join("SKILL.md"));
                format!("remove {}/SKILL.md", dir.display())
            }
            7 => {
                let to = rng.pick(&self.roots).join(rng.pick(&ENTRIES));
                let moved = fs::rename(&dir, &to).is_ok();
                format!("rename {} -> {} ({moved})", dir.display(), to.display())
            }
            8 => {
                let _ = fs::create_dir_all(&dir);
                format!("mkdir {}", dir.display())
            }
            9 => {
                write(&root.join(format!("{entry}.txt")), "not a skill");
                write(
                    &self.env.user_dsh().join(".system/SKILL.md"),
                    &self.text(rng),
                );
                format!("write non-skill files in {}", root.display())
            }
            10 => {
                let _ = fs::remove_dir_all(&root);
                format!("remove root {}", root.display())
            }
            11 => {
                // The root replaced: moved away, another directory in its place.
                let n = self.counter.fetch_add(1, Ordering::Relaxed);
                let aside = self.outside.join(format!("old-{n}"));
                let _ = fs::rename(&root, &aside);
                let _ = fs::create_dir_all(&root);
                let text = self.text(rng);
                write(&root.join(format!("{entry}.md")), &text);
                format!("replace root {}", root.display())
            }
            12 => {
                // A flat entry that is a link to a file outside every root.
                let target = self.outside.join(format!("{entry}.md"));
                let text = self.text(rng);
                write(&target, &text);
                if fs::symlink_metadata(&flat).is_err() && dir.exists() {
                    return format!("edit link target {}", target.display());
                }
                let _ = fs::remove_file(&flat);
                let linked = std::os::unix::fs::symlink(&target, &flat).is_ok();
                format!("link {} -> {} ({linked})", flat.display(), target.display())
            }
            13 if root != self.custom => {
                // The directory above the root moved away, the root made again
                // (nothing is reported for the root's own watch).
                let n = self.counter.fetch_add(1, Ordering::Relaxed);
                let parent = root.parent().expect("a parent").to_path_buf();
                let aside = self.outside.join(format!("parent-{n}"));
                let _ = fs::rename(&parent, &aside);
                if rng.below(2) == 0 {
                    let text = self.text(rng);
                    write(&dir.join("SKILL.md"), &text);
                }
                format!("move away {}", parent.display())
            }
            _ => {
                // Several writes of one file in a row.
                for _ in 0..3 {
                    let text = self.text(rng);
                    write(&flat, &text);
                }
                format!("rewrite {} thrice", flat.display())
            }
        }
    }
}

fn seed() -> u64 {
    std::env::var("SKILL_LIVE_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| d.as_nanos() as u64)
                | 1
        })
}

fn run(seed: u64, steps: usize) {
    let world = World::new();
    let live = world.env.provider_with(world.options(true));
    live.keep_listings(true);
    assert!(LocalWatcher::install(&live));
    let lookup = ctx(Some(&world.project));
    let mut rng = Rng(seed);
    let mut log: Vec<String> = Vec::new();
    let mut handed_out = 0;
    let mut in_place = 0;
    for step in 0..steps {
        for _ in 0..=rng.below(3) {
            log.push(world.change(&mut rng));
        }
        // A lookup now and then reads what changed in between; a discovery
        // and a diagnosis both read through the kept listings.
        if rng.below(4) == 0 && step + 1 < steps {
            continue;
        }
        let fresh = world.env.provider_with(world.options(false));
        let context = || {
            format!(
                "seed {seed} (SKILL_LIVE_SEED={seed} to replay), step {step}, changes:\n  {}",
                log.join("\n  ")
            )
        };
        // Half the time the discovery is tried in place first (it declines
        // when more than a few entries changed).
        let got = match rng.below(2) {
            0 => live.discover_kept(&lookup, 4).map_or_else(
                || live.discover(&lookup),
                |d| {
                    in_place += 1;
                    d
                },
            ),
            _ => live.discover(&lookup),
        };
        let want = fresh.discover(&lookup);
        assert_eq!(got.observation, want.observation, "{}", context());
        let got = live.diagnose(&lookup);
        let want = fresh.diagnose(&lookup);
        assert_eq!(got, want, "{}", context());
        // A definition handed out without a read is what a fresh read gives;
        // some are loaded (and kept) for the next steps.
        let cwd = Some(world.project.as_path());
        for candidate in &fresh.discover(&lookup).observation.candidates {
            let want = fresh.load(candidate, cwd);
            if let Some(kept) = live.load_kept(candidate, cwd) {
                assert_eq!(Ok(Some((*kept).clone())), want, "kept: {}", context());
                handed_out += 1;
            }
            if rng.below(2) == 0 {
                assert_eq!(live.load(candidate, cwd), want, "{}", context());
            }
        }
        log.push(format!("(step {step} checked)"));
    }
    assert!(
        handed_out > 0,
        "some definitions were handed out without a read"
    );
    assert!(in_place > 0, "some discoveries ran in place");
    live.close();
}

#[test]
fn a_watched_discovery_reads_what_changed_and_finds_what_a_fresh_one_finds() {
    let first = seed();
    for n in 0..3 {
        run(first.wrapping_add(n * 0x9E37_79B9), 120);
    }
}

/// Files read (from disk or the parse cache) so far.
fn reads(provider: &LocalProvider) -> u64 {
    let (hits, misses) = provider.parse_cache().stats();
    hits + misses
}

#[test]
fn a_change_costs_the_entries_it_touched() {
    let world = World::new();
    let root = world.env.user_agents();
    for i in 0..50 {
        flat(&root, &format!("s{i:02}.md"), &format!("s{i:02}"));
        bundle(&root, &format!("b{i:02}"), &format!("b{i:02}"));
    }
    let live = world.env.provider_with(world.options(true));
    live.keep_listings(true);
    assert!(LocalWatcher::install(&live));
    let lookup = ctx(None);
    assert_eq!(live.discover(&lookup).observation.candidates.len(), 100);
    let before = reads(&live);
    let unchanged = live.discover(&lookup);
    assert_eq!(reads(&live), before, "nothing changed: nothing read");

    write(&root.join("s07.md"), &skill("s07", "edited"));
    bundle(&root, "new", "new");
    let d = live.discover(&lookup);
    assert_eq!(
        reads(&live) - before,
        2,
        "the edited file and the new bundle"
    );
    assert_eq!(d.observation.candidates.len(), 101);
    // What did not change is handed out as it was, not copied.
    let kept = |name: &str, d: &Discovery| {
        d.observation
            .candidates
            .iter()
            .find(|c| c.summary.name == name)
            .cloned()
            .expect("listed")
    };
    assert!(Arc::ptr_eq(&kept("b30", &d), &kept("b30", &unchanged)));
    assert_eq!(kept("s07", &d).summary.description, "edited");

    // Unwatched, every discovery after a change reads every file.
    let unwatched = world.env.provider_with(world.options(false));
    unwatched.discover(&lookup);
    let before = reads(&unwatched);
    write(&root.join("s08.md"), &skill("s08", "edited"));
    unwatched.discover(&lookup);
    assert_eq!(reads(&unwatched) - before, 101);
    live.close();
}

/// A root moved away takes the watches of its bundles with it: a bundle of
/// the same name in the directory that replaces it is watched afresh.
#[test]
fn a_bundle_in_a_replaced_root_is_watched_again() {
    let world = World::new();
    let root = world.project.join(".dsh/skills");
    bundle(&root, "a", "alpha");
    let live = world.env.provider_with(world.options(true));
    live.keep_listings(true);
    assert!(LocalWatcher::install(&live));
    let lookup = ctx(Some(&world.project));
    let check = |what: &str| {
        let fresh = world.env.provider_with(world.options(false));
        assert_eq!(
            live.discover(&lookup).observation,
            fresh.discover(&lookup).observation,
            "{what}"
        );
    };
    check("at the start");
    fs::rename(&root, world.outside.join("old")).expect("rename");
    fs::create_dir_all(root.join("a")).expect("mkdir");
    check("after the root was replaced");
    write(&root.join("a/SKILL.md"), &skill("gamma", "in the new root"));
    check("after a skill was written in the new bundle");
    // And the old bundle's events are no longer taken for the new one's.
    write(
        &world.outside.join("old/a/SKILL.md"),
        &skill("beta", "moved away"),
    );
    check("after the moved-away bundle was edited");
    live.close();
}

/// A discovery in place (`discover_kept`) runs only when it is cheap, and
/// finds what a discovery finds; declining reads nothing and loses nothing.
#[test]
fn a_discovery_in_place_runs_only_when_cheap() {
    let world = World::new();
    let root = world.env.user_agents();
    for i in 0..20 {
        bundle(&root, &format!("b{i:02}"), &format!("b{i:02}"));
    }
    let lookup = ctx(Some(&world.project));
    let unwatched = world.env.provider_with(world.options(false));
    assert!(
        unwatched.discover_kept(&lookup, 4).is_none(),
        "nothing vouches"
    );
    let live = world.env.provider_with(world.options(true));
    assert!(LocalWatcher::install(&live));
    assert!(
        live.discover_kept(&lookup, 4).is_none(),
        "nothing watched or kept yet"
    );
    let first = live.discover(&lookup);
    let kept = live.discover_kept(&lookup, 4).expect("cheap now");
    assert_eq!(kept.observation, first.observation);

    // A few changes are read in place; more than the budget decline, and
    // the next discovery still reads every one of them.
    write(&root.join("b00/SKILL.md"), &skill("b00", "edited"));
    let d = live.discover_kept(&lookup, 4).expect("one change");
    let fresh = world.env.provider_with(world.options(false));
    assert_eq!(d.observation, fresh.discover(&lookup).observation);
    for i in 0..6 {
        let name = format!("b{i:02}");
        write(&root.join(&name).join("SKILL.md"), &skill(&name, "again"));
    }
    let before = reads(&live);
    assert!(live.discover_kept(&lookup, 4).is_none(), "six changes");
    assert_eq!(reads(&live), before, "declining reads nothing");
    let d = live.discover(&lookup);
    assert_eq!(d.observation, fresh.discover(&lookup).observation);
    assert_eq!(reads(&live) - before, 6);

    // Another project is not watched yet: declined (watching it costs scans).
    let other = world.env.root().join("other");
    fs::create_dir_all(other.join(".git")).expect("mkdir");
    assert!(live.discover_kept(&ctx(Some(&other)), 4).is_none());
    live.keep_listings(false);
    assert!(live.discover_kept(&lookup, 4).is_none(), "listings off");
    live.close();
}
