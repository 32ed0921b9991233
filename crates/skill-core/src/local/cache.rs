//! A bounded cache of parsed skill files, keyed by path and [`FileStamp`].
//!
//! Discovery, diagnosis and `get()` all go through it: an unchanged file is
//! parsed once however many lookups, invalidations and loads follow, and a
//! changed one is parsed again. A cached parse is only used when the open
//! file's stamp (device, inode, size, modification and status-change times)
//! equals the stamp it was read under, and only stamps that had settled before
//! the read are kept (see [`FileStamp::settled_before`]): a file written in the
//! same instant it was read is parsed again next time.
//!
//! Discovery needs no body: for an unchanged file it neither reads nor parses.
//! `get()` always reads the file (so it returns the current body) and reuses
//! the cached parse of its frontmatter, taking the body from the bytes just
//! read. Bodies are not kept, so the cache stays small.
//!
//! Only outcomes that follow from the bytes alone are kept (a parsed skill, or
//! the reason a file is not one); absence and I/O failures never are.

use super::discover::{
    decode, may_persist, over_cap, read_outcome, same_failure, text_outcome, ReadOutcome, REPEATED,
};
use super::fs::{FileRead, FileStamp, SkillFs, StampedRead, TIMESTAMP_GRANULARITY};
use crate::frontmatter::ParsedSkill;
use lru::LruCache;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, SystemTime};

/// Files kept at most.
pub const MAX_ENTRIES: usize = 32_768;
/// Bytes kept at most (frontmatter fields and reasons, not bodies).
pub const MAX_BYTES: usize = 32 * 1024 * 1024;
/// Bookkeeping counted per entry on top of its strings.
const ENTRY_OVERHEAD: usize = 256;

/// What a file's bytes mean, as kept.
#[derive(Clone)]
enum Kept {
    /// A valid skill: its fields without the body, and where the body sits
    /// in the file's bytes.
    Parsed {
        skill: Arc<ParsedSkill>,
        body: Range<usize>,
    },
    /// Not a skill, and why.
    Invalid(String),
}

struct Entry {
    stamp: FileStamp,
    kept: Kept,
    weight: usize,
}

/// What one of several reading threads is to keep (see
/// [`ParseCache::read_batched`]).
#[derive(Default)]
pub struct KeepBatch(Vec<(PathBuf, Entry)>);

impl KeepBatch {
    /// Entries gathered before they go into the cache.
    const SIZE: usize = 32;
}

struct State {
    entries: LruCache<PathBuf, Entry, foldhash::fast::RandomState>,
    bytes: usize,
}

/// Parsed skill files by path and stamp; see the module docs.
pub struct ParseCache {
    state: Mutex<State>,
    max_entries: usize,
    max_bytes: usize,
    granularity: Duration,
    /// Entries held, as of the last change under the lock: a cold scan
    /// (nothing held) looks nothing up without taking it.
    held: AtomicUsize,
    hits: AtomicU64,
    misses: AtomicU64,
}

impl std::fmt::Debug for ParseCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (hits, misses) = self.stats();
        f.debug_struct("ParseCache")
            .field("hits", &hits)
            .field("misses", &misses)
            .finish_non_exhaustive()
    }
}

impl Default for ParseCache {
    fn default() -> Self {
        Self::new(MAX_ENTRIES, MAX_BYTES, TIMESTAMP_GRANULARITY)
    }
}

/// A parse without its body, but for the body's opening
/// ([`crate::model::lead_of`], which search indexes).
fn without_body(skill: &ParsedSkill) -> ParsedSkill {
    ParsedSkill {
        name: skill.name.clone(),
        description: skill.description.clone(),
        when_to_use: skill.when_to_use.clone(),
        invocation: skill.invocation,
        metadata: skill.metadata.clone(),
        body: crate::model::lead_of(&skill.body).to_string(),
        fingerprint: skill.fingerprint,
    }
}

/// Roughly the memory a JSON value holds.
fn value_weight(value: &serde_json::Value) -> usize {
    const NODE: usize = 32;
    NODE + match value {
        serde_json::Value::String(s) => s.len(),
        serde_json::Value::Array(items) => items.iter().map(value_weight).sum(),
        serde_json::Value::Object(map) => map.iter().map(|(k, v)| k.len() + value_weight(v)).sum(),
        _ => 0,
    }
}

/// Trailing whitespace after a body considered at most.
const MAX_TRAILING: usize = 4096;

/// Where `body` (the trimmed text after the frontmatter) sits in `bytes`: it
/// ends where the trailing whitespace starts. Any range whose bytes equal the
/// body serves, so this only compares bytes.
fn body_range(bytes: &[u8], body: &str) -> Option<Range<usize>> {
    let body = body.as_bytes();
    let lowest = bytes.len().saturating_sub(MAX_TRAILING).max(body.len());
    (lowest..=bytes.len())
        .rev()
        .find(|&end| bytes[..end].ends_with(body))
        .map(|end| end - body.len()..end)
}

/// What a failure to open or read a skill file means. A failure that may be
/// a lasting property of the file (see [`may_persist`]: not a permission
/// problem, not a shortage of the system) is tried once more, and the same
/// failure again makes the file "not an acceptable skill file" (skipped with
/// a warning, like a directory named `SKILL.md`) rather than an unexpected
/// failure that would keep every discovery incomplete and uncached. Nothing
/// of it is kept: the next read tries again.
fn read_failure(fs: &dyn SkillFs, path: &Path, cap: u64, error: std::io::Error) -> ReadOutcome {
    let outcome = read_outcome(Err(clone_error(&error)), cap);
    if !matches!(outcome, ReadOutcome::Failed(_)) || !may_persist(&error) {
        return outcome;
    }
    match fs.read_file(path, cap) {
        Err(again) if same_failure(&error, &again) => {
            ReadOutcome::Invalid(format!("cannot read: {again} ({REPEATED})"))
        }
        again => read_outcome(again, cap),
    }
}

/// An error with the same kind, code and message.
fn clone_error(e: &std::io::Error) -> std::io::Error {
    match e.raw_os_error() {
        Some(code) => std::io::Error::from_raw_os_error(code),
        None => std::io::Error::new(e.kind(), e.to_string()),
    }
}

impl ParseCache {
    /// A cache of at most `max_entries` files and `max_bytes` bytes, trusting
    /// file times older than `granularity` at the time of the read (see
    /// [`FileStamp::settled_before`]).
    pub fn new(max_entries: usize, max_bytes: usize, granularity: Duration) -> Self {
        Self {
            // Unbounded by the LRU itself (which would allocate room for every
            // entry up front): `keep` enforces both bounds.
            state: Mutex::new(State {
                entries: LruCache::unbounded_with_hasher(Default::default()),
                bytes: 0,
            }),
            max_entries: max_entries.max(1),
            max_bytes,
            granularity,
            held: AtomicUsize::new(0),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The skill file at `path` (at most `cap` bytes) for discovery: an
    /// unchanged file is neither read nor parsed, and only the opening of
    /// its body is kept ([`crate::model::lead_of`]).
    pub fn read(&self, fs: &dyn SkillFs, path: &Path, cap: u64) -> ReadOutcome {
        self.fetch(fs, path, cap, false, None)
    }

    /// [`Self::read`] for one of several threads reading at once: what is to
    /// be kept goes into `batch`, and into the cache a few dozen at a time
    /// (see [`Self::keep_batch`]). Threads that took the lock for every file
    /// waited on each other (a cold scan of 5,000 files took 12 ms longer on
    /// two CPUs than without the inserts).
    pub fn read_batched(
        &self,
        fs: &dyn SkillFs,
        path: &Path,
        cap: u64,
        batch: &mut KeepBatch,
    ) -> ReadOutcome {
        let outcome = self.fetch(fs, path, cap, false, Some(batch));
        if batch.0.len() >= KeepBatch::SIZE {
            self.keep_batch(batch);
        }
        outcome
    }

    /// Keep what `batch` holds, under one lock, and empty it.
    pub fn keep_batch(&self, batch: &mut KeepBatch) {
        if batch.0.is_empty() {
            return;
        }
        let mut state = self.lock();
        for (path, entry) in batch.0.drain(..) {
            self.insert(&mut state, path, entry);
        }
    }

    /// The skill file at `path` with its body, for `get()`: always read, its
    /// frontmatter parse reused when the file is unchanged.
    pub fn load(&self, fs: &dyn SkillFs, path: &Path, cap: u64) -> ReadOutcome {
        self.fetch(fs, path, cap, true, None)
    }

    /// Read (or reuse) the file at `path`; what is to be kept goes into
    /// `batch` when there is one, else into the cache at once.
    fn fetch(
        &self,
        fs: &dyn SkillFs,
        path: &Path,
        cap: u64,
        body: bool,
        batch: Option<&mut KeepBatch>,
    ) -> ReadOutcome {
        // Taken before the file is opened: the content read is at least as
        // new as this instant.
        let read_at = SystemTime::now();
        let mut hit = None;
        let result = fs.read_file_unless(path, cap, &mut |stamp| {
            hit = self.lookup(path, stamp);
            // Without the body, a known file need not be read at all.
            hit.is_some() && !body
        });
        let (read, stamp) = match result {
            Ok(StampedRead::Known) => match hit {
                Some(kept) => {
                    self.hits.fetch_add(1, Ordering::Relaxed);
                    return match kept {
                        Kept::Parsed { skill, .. } => ReadOutcome::Parsed(without_body(&skill)),
                        Kept::Invalid(reason) => ReadOutcome::Invalid(reason),
                    };
                }
                // Only a misbehaving filesystem gets here: read it plainly.
                None => return read_outcome(fs.read_file(path, cap), cap),
            },
            Ok(StampedRead::Read(read, stamp)) => (read, stamp),
            Err(e) => {
                self.misses.fetch_add(1, Ordering::Relaxed);
                self.forget(path);
                return read_failure(fs, path, cap, e);
            }
        };
        let FileRead::Bytes(bytes) = read else {
            self.misses.fetch_add(1, Ordering::Relaxed);
            return read_outcome(Ok(read), cap);
        };
        // The cap applies to the file's bytes, before decoding.
        if bytes.len() as u64 > cap {
            self.misses.fetch_add(1, Ordering::Relaxed);
            self.forget(path);
            return over_cap(cap);
        }
        // The text as it is parsed (bytes that are not UTF-8 replaced), so
        // that the body's place is found in it.
        let text = match String::from_utf8(bytes) {
            Ok(text) => text,
            Err(invalid) => decode(invalid.as_bytes()).into_owned(),
        };
        // The file as read is the file the stamp stands for: reuse the parse.
        match hit {
            Some(Kept::Parsed { skill, body: range }) => {
                if let Some(body) = text.get(range) {
                    self.hits.fetch_add(1, Ordering::Relaxed);
                    let mut parsed = without_body(&skill);
                    parsed.body = body.to_string();
                    return ReadOutcome::Parsed(parsed);
                }
            }
            Some(Kept::Invalid(reason)) => {
                self.hits.fetch_add(1, Ordering::Relaxed);
                return ReadOutcome::Invalid(reason);
            }
            None => {}
        }
        self.misses.fetch_add(1, Ordering::Relaxed);
        let mut outcome = text_outcome(&text);
        match stamp {
            Some(stamp) if stamp.settled_before(read_at, self.granularity) => {
                match (self.entry(path, stamp, text.as_bytes(), &outcome), batch) {
                    (Some(entry), Some(batch)) => batch.0.push((path.to_path_buf(), entry)),
                    (Some(entry), None) => {
                        let mut state = self.lock();
                        self.insert(&mut state, path.to_path_buf(), entry);
                    }
                    (None, _) => self.forget(path),
                }
            }
            Some(_) => self.forget(path),
            None => {}
        }
        // Discovery holds every file's parse until the scan ends: with only
        // the body's opening it holds a few hundred bytes per file instead
        // of the whole text, and its worker threads' heaps stay small.
        if let (false, ReadOutcome::Parsed(parsed)) = (body, &mut outcome) {
            let lead = crate::model::lead_of(&parsed.body).len();
            parsed.body.truncate(lead);
            parsed.body.shrink_to_fit();
        }
        outcome
    }

    fn lookup(&self, path: &Path, stamp: &FileStamp) -> Option<Kept> {
        // An entry kept meanwhile by another thread is missed: the file is
        // read, as it would have been a moment earlier.
        if self.held.load(Ordering::Acquire) == 0 {
            return None;
        }
        let mut state = self.lock();
        match state.entries.get(path) {
            Some(entry) if entry.stamp == *stamp => Some(entry.kept.clone()),
            _ => None,
        }
    }

    /// The entry to keep for a file read under `stamp` whose bytes gave
    /// `outcome`; `None` when nothing about it may be kept.
    fn entry(
        &self,
        path: &Path,
        stamp: FileStamp,
        bytes: &[u8],
        outcome: &ReadOutcome,
    ) -> Option<Entry> {
        let kept = match outcome {
            ReadOutcome::Parsed(skill) => Kept::Parsed {
                body: body_range(bytes, &skill.body)?,
                skill: Arc::new(without_body(skill)),
            },
            ReadOutcome::Invalid(reason) => Kept::Invalid(reason.clone()),
            _ => return None,
        };
        let weight = ENTRY_OVERHEAD
            + path.as_os_str().len()
            + match &kept {
                Kept::Parsed { skill, .. } => {
                    skill.name.len()
                        + skill.description.len()
                        + skill.body.len()
                        + skill.when_to_use.as_ref().map_or(0, String::len)
                        + skill.metadata.as_ref().map_or(0, |m| {
                            m.iter().map(|(k, v)| k.len() + value_weight(v)).sum()
                        })
                }
                Kept::Invalid(reason) => reason.len(),
            };
        (weight <= self.max_bytes).then_some(Entry {
            stamp,
            kept,
            weight,
        })
    }

    /// Keep `entry` for `path` in `state`, within both bounds.
    fn insert(&self, state: &mut State, path: PathBuf, entry: Entry) {
        let weight = entry.weight;
        if let Some((_, old)) = state.entries.push(path, entry) {
            state.bytes -= old.weight;
        }
        state.bytes += weight;
        while state.bytes > self.max_bytes || state.entries.len() > self.max_entries {
            match state.entries.pop_lru() {
                Some((_, old)) => state.bytes -= old.weight,
                None => break,
            }
        }
        self.held.store(state.entries.len(), Ordering::Release);
    }

    fn forget(&self, path: &Path) {
        if self.held.load(Ordering::Acquire) == 0 {
            return;
        }
        let mut state = self.lock();
        if let Some(old) = state.entries.pop(path) {
            state.bytes -= old.weight;
        }
        self.held.store(state.entries.len(), Ordering::Release);
    }

    /// `(hits, misses)` so far: files whose parse was reused, and files parsed
    /// (or found absent or unreadable).
    pub fn stats(&self) -> (u64, u64) {
        (
            self.hits.load(Ordering::Relaxed),
            self.misses.load(Ordering::Relaxed),
        )
    }

    /// `(files, bytes)` held.
    pub fn size(&self) -> (usize, usize) {
        let state = self.lock();
        (state.entries.len(), state.bytes)
    }

    /// Drop every kept parse and release the memory holding them (the cache
    /// fills again as files are read).
    pub fn clear(&self) {
        let mut state = self.lock();
        state.entries = LruCache::unbounded_with_hasher(Default::default());
        state.bytes = 0;
        self.held.store(0, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::super::discover::bytes_outcome;
    use super::*;

    #[test]
    fn the_body_is_found_in_the_bytes() {
        for text in [
            "---\nname: a\ndescription: d\n---\n\nBody\n",
            "---\r\nname: a\r\ndescription: d\r\n---\r\n  Body\r\n\r\n  \t\n",
            "---\nname: a\ndescription: d\n---\nBody ends here\u{3000}\u{a0}\n",
            "---\nname: a\ndescription: Body\n---\n",
            "---\nname: a\ndescription: d\n---\nBody\n---\nBody",
        ] {
            let ReadOutcome::Parsed(parsed) = bytes_outcome(text.as_bytes(), 1 << 20) else {
                panic!("{text:?} does not parse");
            };
            let range = body_range(text.as_bytes(), &parsed.body).expect("found");
            assert_eq!(&text[range], parsed.body, "{text:?}");
        }
        assert_eq!(body_range(b"abc", "x"), None);
    }

    #[test]
    fn discovery_reads_keep_only_the_opening_of_the_body() {
        let dir = tempfile::TempDir::new().expect("tempdir");
        let path = dir.path().join("a.md");
        let body = format!("Body é{}", "x".repeat(crate::model::LEAD_BYTES));
        std::fs::write(
            &path,
            format!("---\nname: a\ndescription: d\n---\n\n{body}\n"),
        )
        .expect("write");
        let fs = super::super::fs::StdFs;
        // Not trusted (granularity): every read parses the file again.
        let cache = ParseCache::new(16, 1 << 20, Duration::from_secs(3600));
        let ReadOutcome::Parsed(listed) = cache.read(&fs, &path, 1 << 20) else {
            panic!("not parsed");
        };
        assert_eq!(listed.name, "a");
        assert_eq!(listed.body, body[..crate::model::LEAD_BYTES]);
        assert!(listed.fingerprint.is_some());
        let ReadOutcome::Parsed(loaded) = cache.load(&fs, &path, 1 << 20) else {
            panic!("not parsed");
        };
        assert_eq!(loaded.body, body);
        assert_eq!(without_body(&loaded), listed);
        // Trusted: the kept parse still finds the body for `load`.
        let cache = ParseCache::new(16, 1 << 20, Duration::ZERO);
        cache.read(&fs, &path, 1 << 20);
        let ReadOutcome::Parsed(loaded) = cache.load(&fs, &path, 1 << 20) else {
            panic!("not parsed");
        };
        assert_eq!(loaded.body, body);
        assert_eq!(cache.stats().0, 1);
    }

    #[test]
    fn a_batch_is_kept_when_it_is_full_or_handed_over() {
        let dir = tempfile::TempDir::new().expect("tempdir");
        let fs = super::super::fs::StdFs;
        let cache = ParseCache::new(1024, 1 << 20, Duration::ZERO);
        let paths: Vec<_> = (0..KeepBatch::SIZE + 3)
            .map(|i| {
                let path = dir.path().join(format!("s{i}.md"));
                std::fs::write(
                    &path,
                    format!("---\nname: s{i}\ndescription: d\n---\nBody\n"),
                )
                .expect("write");
                path
            })
            .collect();
        let mut batch = KeepBatch::default();
        for path in &paths[..KeepBatch::SIZE - 1] {
            assert!(matches!(
                cache.read_batched(&fs, path, 1 << 20, &mut batch),
                ReadOutcome::Parsed(_)
            ));
        }
        assert_eq!(cache.size().0, 0, "not kept before the batch is full");
        for path in &paths[KeepBatch::SIZE - 1..] {
            cache.read_batched(&fs, path, 1 << 20, &mut batch);
        }
        assert_eq!(cache.size().0, KeepBatch::SIZE, "kept when full");
        cache.keep_batch(&mut batch);
        assert_eq!(
            cache.size().0,
            paths.len(),
            "the rest kept when handed over"
        );
        // Every file is now a hit: neither read nor parsed again.
        let hits = cache.stats().0;
        for path in &paths {
            let ReadOutcome::Parsed(p) = cache.read(&fs, path, 1 << 20) else {
                panic!("not parsed");
            };
            assert_eq!(p.body, "Body", "only the opening of the body is kept");
        }
        assert_eq!(cache.stats().0 - hits, paths.len() as u64);
    }

    #[test]
    fn clear_drops_every_entry() {
        let dir = tempfile::TempDir::new().expect("tempdir");
        let path = dir.path().join("a.md");
        std::fs::write(&path, "---\nname: a\ndescription: d\n---\nBody\n").expect("write");
        let cache = ParseCache::new(16, 1 << 20, Duration::ZERO);
        assert!(matches!(
            cache.read(&super::super::fs::StdFs, &path, 1 << 20),
            ReadOutcome::Parsed(_)
        ));
        assert_eq!(cache.size().0, 1);
        assert!(cache.size().1 > 0);
        cache.clear();
        assert_eq!(cache.size(), (0, 0));
        // Filled again lazily.
        cache.read(&super::super::fs::StdFs, &path, 1 << 20);
        assert_eq!(cache.size().0, 1);
    }
}
