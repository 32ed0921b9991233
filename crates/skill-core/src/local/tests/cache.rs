//! The parse cache through the provider.

use super::*;

/// A provider whose parse cache trusts any file time older than the read.
pub(super) fn eager_cache(provider: &mut LocalProvider) {
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
