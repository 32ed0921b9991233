//! A bounded cache of parsed skill files, keyed by path and [`FileStamp`].
//!
//! Discovery, diagnosis and `get()` all go through it: an unchanged file is
//! parsed once however many lookups, invalidations and loads follow, and a
//! changed one is read again. A cached parse is only used when the open file's
//! stamp (device, inode, size, modification and status-change times) equals
//! the stamp it was read under, and only stamps that had settled before the
//! read are kept (see [`FileStamp::settled_before`]): a file written in the
//! same instant it was read is read again next time, so `get()` always returns
//! the current body.
//!
//! Only outcomes that follow from the bytes alone are kept (a parsed skill, or
//! the reason a file is not one); absence and I/O failures are never cached.

use super::discover::{read_outcome, ReadOutcome};
use super::fs::{FileStamp, SkillFs, StampedRead, TIMESTAMP_GRANULARITY};
use lru::LruCache;
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, SystemTime};

/// Files kept at most.
pub const MAX_ENTRIES: usize = 8192;
/// Bytes of skill files (as read) kept at most.
pub const MAX_BYTES: usize = 64 * 1024 * 1024;
/// Bookkeeping counted per entry on top of the file's bytes.
const ENTRY_OVERHEAD: usize = 256;

struct Entry {
    stamp: FileStamp,
    outcome: ReadOutcome,
    weight: usize,
}

struct State {
    entries: LruCache<PathBuf, Entry>,
    bytes: usize,
}

/// Parsed skill files by path and stamp; see the module docs.
pub struct ParseCache {
    state: Mutex<State>,
    max_bytes: usize,
    granularity: Duration,
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

impl ParseCache {
    /// A cache of at most `max_entries` files and `max_bytes` bytes, trusting
    /// file times older than `granularity` at the time of the read (see
    /// [`FileStamp::settled_before`]).
    pub fn new(max_entries: usize, max_bytes: usize, granularity: Duration) -> Self {
        Self {
            state: Mutex::new(State {
                entries: LruCache::new(NonZeroUsize::new(max_entries).unwrap_or(NonZeroUsize::MIN)),
                bytes: 0,
            }),
            max_bytes,
            granularity,
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Read and parse the skill file at `path` (at most `cap` bytes), unless
    /// the cache holds the outcome for the file as it is now.
    pub fn read(&self, fs: &dyn SkillFs, path: &Path, cap: u64) -> ReadOutcome {
        // Taken before the file is opened: the content read is at least as
        // new as this instant.
        let read_at = SystemTime::now();
        let mut hit = None;
        let result = fs.read_file_unless(path, cap, &mut |stamp| {
            hit = self.lookup(path, stamp);
            hit.is_some()
        });
        match result {
            Ok(StampedRead::Known) => match hit {
                Some(outcome) => {
                    self.hits.fetch_add(1, Ordering::Relaxed);
                    outcome
                }
                // Only a misbehaving filesystem gets here: read it plainly.
                None => read_outcome(fs.read_file(path, cap), cap),
            },
            Ok(StampedRead::Read(read, stamp)) => {
                self.misses.fetch_add(1, Ordering::Relaxed);
                let weight = match &read {
                    super::fs::FileRead::Bytes(bytes) => bytes.len(),
                    _ => 0,
                } + ENTRY_OVERHEAD;
                let outcome = read_outcome(Ok(read), cap);
                if let Some(stamp) = stamp {
                    if stamp.settled_before(read_at, self.granularity) {
                        self.insert(path, stamp, &outcome, weight);
                    } else {
                        self.forget(path);
                    }
                }
                outcome
            }
            Err(e) => {
                self.misses.fetch_add(1, Ordering::Relaxed);
                self.forget(path);
                read_outcome(Err(e), cap)
            }
        }
    }

    fn lookup(&self, path: &Path, stamp: &FileStamp) -> Option<ReadOutcome> {
        let mut state = self.lock();
        match state.entries.get(path) {
            Some(entry) if entry.stamp == *stamp => Some(entry.outcome.clone()),
            _ => None,
        }
    }

    fn insert(&self, path: &Path, stamp: FileStamp, outcome: &ReadOutcome, weight: usize) {
        if !matches!(outcome, ReadOutcome::Parsed(_) | ReadOutcome::Invalid(_)) {
            self.forget(path);
            return;
        }
        if weight > self.max_bytes {
            self.forget(path);
            return;
        }
        let mut state = self.lock();
        let entry = Entry {
            stamp,
            outcome: outcome.clone(),
            weight,
        };
        if let Some((_, old)) = state.entries.push(path.to_path_buf(), entry) {
            state.bytes -= old.weight;
        }
        state.bytes += weight;
        while state.bytes > self.max_bytes {
            match state.entries.pop_lru() {
                Some((_, old)) => state.bytes -= old.weight,
                None => break,
            }
        }
    }

    fn forget(&self, path: &Path) {
        let mut state = self.lock();
        if let Some(old) = state.entries.pop(path) {
            state.bytes -= old.weight;
        }
    }

    /// `(hits, misses)` so far.
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
}
