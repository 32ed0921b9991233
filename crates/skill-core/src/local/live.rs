//! Discovery that costs what changed.
//!
//! While a watcher vouches for a root (see [`RootObserver::take_changes`]),
//! its last listing is kept: the files considered, each with its outcome (a
//! parsed skill as its shared candidate). The next discovery takes the
//! changes the watcher noted since, reads again only the entries they touched
//! (a flat file, a bundle, an entry that appeared or went away), and hands out
//! everything else as it was. A root the watcher reports changed as a whole
//! (it appeared, vanished or moved, what a link in it leads to changed), a
//! root whose directory is not the one listed last time (replaced: another
//! device or inode), and any change the watcher cannot place (an overflowing
//! event queue, a watch that failed, a platform without precise events) list
//! again, through the same [`discover::scan`] as an unwatched discovery. An
//! entry that failed unexpectedly is read again every time, and a root that
//! failed is never kept. What the result holds is what a full discovery at
//! that moment would find.
//!
//! [`RootObserver::take_changes`]: super::RootObserver::take_changes

use super::cache::{KeepBatch, ParseCache};
use super::collected::{Collected, File, Outcome};
use super::confine::Placement;
use super::definitions::{root_of, Definitions};
use super::discover::{self, entry_item, Layout, RootStatus};
use super::fs::SkillFs;
use super::order::locale_compare;
use super::roots::{unnameable, RootSpec};
use super::workers::parallel_map_with;
use crate::cancel::CancelToken;
use crate::model::SkillDefinition;
use lru::LruCache;
use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

/// What may have changed in the watched roots since the last call of
/// [`RootObserver::take_changes`](super::RootObserver::take_changes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Changes {
    /// Anything: every root is listed again.
    All,
    /// Only what these paths lead to: a root itself, an entry of a root, or a
    /// file inside an entry (`<root>/<bundle>/SKILL.md`). Other paths are
    /// not in a kept root and change nothing kept.
    Paths(Vec<PathBuf>),
}

/// One entry of a kept root, by name.
#[derive(Debug)]
struct Entry {
    name: String,
    file: Arc<File>,
}

/// The last listing of one root.
#[derive(Debug)]
struct Listing {
    spec: RootSpec,
    /// The root directory listed (device and inode), when known.
    identity: Option<(u64, u64)>,
    status: RootStatus,
    /// Entries whose name is not UTF-8, in listing order (they come first).
    raw: Vec<Arc<File>>,
    /// The other entries, sorted by name.
    entries: Vec<Entry>,
    /// What it holds (an estimate, kept up to date).
    bytes: usize,
}

impl Listing {
    fn find(&self, name: &str) -> Result<usize, usize> {
        self.entries
            .binary_search_by(|e| match locale_compare(&e.name, name) {
                Ordering::Equal => e.name.as_str().cmp(name),
                other => other,
            })
    }

    fn measure(&mut self) {
        const LISTING: usize = 320;
        let files: usize = self
            .entries
            .iter()
            .map(entry_bytes)
            .chain(self.raw.iter().map(|f| file_bytes(f)))
            .sum();
        self.bytes = LISTING + files;
    }
}

fn entry_bytes(entry: &Entry) -> usize {
    entry.name.len() + file_bytes(&entry.file)
}

fn file_bytes(file: &File) -> usize {
    let mut bytes = 160 + file.path.as_os_str().len() + file.base.as_os_str().len();
    match &file.outcome {
        Outcome::Parsed(c) => {
            let s = &c.summary;
            bytes += 256
                + s.name.len()
                + s.description.len()
                + s.when_to_use.as_ref().map_or(0, String::len)
                + c.lead.as_ref().map_or(0, |l| l.len())
                + c.path.as_ref().map_or(0, String::len)
                + c.metadata.as_ref().map_or(0, |m| m.len() * 64)
        }
        Outcome::Skipped { reason, .. } | Outcome::Failed(reason) => bytes += reason.len(),
    }
    bytes
}

/// A kept root: its listing (absent while a discovery works on it, or
/// until the root is listed again) and what changed in it since.
///
/// Every name noted gets the next number of the slot (`noted`), and a
/// listing is as new as the last number noted when its discovery started
/// (`seen`): it shows every change noted up to then. Discoveries may run at
/// once: each takes the listing out (and reads again the names noted after
/// it), or lists the root itself when the listing is out. A listing is put
/// back only when no newer one was, and then the names it shows stop being
/// noted: whichever order concurrent discoveries end in, the kept listing
/// and the names still noted cover every change. A listing made before the
/// root changed as a whole (`epoch`) is never put back.
#[derive(Debug, Default)]
struct Slot {
    listing: Option<Listing>,
    /// What the newest listing put back shows (kept, or taken out since):
    /// every name noted up to this number.
    seen: u64,
    /// Names of entries to read again, each with the number it was last
    /// noted under.
    dirty: HashMap<String, u64>,
    /// The last number given to a name noted.
    noted: u64,
    /// Times the root changed as a whole.
    epoch: u64,
}

/// The kept listings of one provider.
pub(crate) struct Live {
    slots: Mutex<LruCache<PathBuf, Slot>>,
    max_roots: usize,
    /// Definitions loaded from kept roots (see `definitions.rs`); its lock
    /// is taken after `slots`' when both are.
    defs: Definitions,
}

/// The name of the entry of `root` that `path` is or is inside of.
fn entry_name<'a>(root: &Path, path: &'a Path) -> Option<Option<&'a str>> {
    let rest = path.strip_prefix(root).ok()?;
    let first = rest.components().next()?;
    Some(first.as_os_str().to_str())
}

impl Live {
    /// Listings of at most `max_roots` roots.
    pub(crate) fn new(max_roots: usize) -> Self {
        Self {
            slots: Mutex::new(LruCache::unbounded()),
            max_roots: max_roots.max(1),
            defs: Definitions::default(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, LruCache<PathBuf, Slot>> {
        self.slots.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Forget every listing and definition.
    pub(crate) fn clear(&self) {
        let mut slots = self.lock();
        *slots = LruCache::unbounded();
        self.defs.clear();
    }

    /// Note `changes` in the listings and the definitions kept.
    fn absorb(&self, slots: &mut LruCache<PathBuf, Slot>, changes: &Changes) {
        if matches!(changes, Changes::Paths(paths) if paths.is_empty()) {
            return;
        }
        Self::note(slots, changes);
        self.defs.forget(changes);
    }

    /// First-party writes at `paths` (not noted by the watcher yet): the
    /// definitions they may have changed are forgotten now. (The next
    /// discovery reads the entries again; see `LocalProvider::mutated`.)
    pub(crate) fn forget_definitions(&self, paths: Vec<PathBuf>) {
        let _slots = self.lock();
        self.defs.forget(&Changes::Paths(paths));
    }

    /// The definition loaded before from the skill file at `placement`, when
    /// its root's listing is kept and nothing noted since leads to it.
    /// `changes` takes what the watcher noted since its last call, as for
    /// [`Self::collect_within`] (`None`: nothing vouches, everything is
    /// forgotten).
    pub(crate) fn definition(
        &self,
        placement: &Placement,
        changes: impl FnOnce() -> Option<Changes>,
    ) -> Option<Arc<SkillDefinition>> {
        let mut slots = self.lock();
        let Some(changes) = changes() else {
            *slots = LruCache::unbounded();
            self.defs.clear();
            return None;
        };
        self.absorb(&mut slots, &changes);
        let vouched = slots
            .peek(root_of(placement))
            .is_some_and(|slot| slot.listing.is_some());
        if !vouched {
            return None;
        }
        self.defs.get(placement)
    }

    /// The number to pass to [`Self::keep_definition`] for a file read from
    /// now on.
    pub(crate) fn definition_generation(&self) -> u64 {
        self.defs.generation()
    }

    /// Keep `definition`, loaded from the file at `placement` read after
    /// [`Self::definition_generation`] returned `generation`: when nothing
    /// was noted since and its root's listing is kept.
    pub(crate) fn keep_definition(
        &self,
        generation: u64,
        placement: &Placement,
        definition: &SkillDefinition,
    ) {
        let slots = self.lock();
        let vouched = slots
            .peek(root_of(placement))
            .is_some_and(|slot| slot.listing.is_some());
        if vouched {
            self.defs.keep(generation, placement, definition);
        }
    }

    /// `(definitions, bytes)` kept.
    pub(crate) fn definitions_size(&self) -> (usize, usize) {
        self.defs.size()
    }

    /// `(roots, bytes)` kept (an estimate).
    pub(crate) fn size(&self) -> (usize, usize) {
        let slots = self.lock();
        let bytes = slots
            .iter()
            .map(|(path, slot)| {
                96 + path.as_os_str().len()
                    + slot.listing.as_ref().map_or(0, |l| l.bytes)
                    + slot.dirty.keys().map(|n| n.len() + 40).sum::<usize>()
            })
            .sum();
        (slots.len(), bytes)
    }

    /// Note what changed in the kept roots.
    fn note(slots: &mut LruCache<PathBuf, Slot>, changes: &Changes) {
        let paths = match changes {
            Changes::All => {
                for (_, slot) in slots.iter_mut() {
                    slot.listing = None;
                    slot.dirty.clear();
                    slot.epoch += 1;
                }
                return;
            }
            Changes::Paths(paths) => paths,
        };
        if paths.is_empty() {
            return;
        }
        for (root, slot) in slots.iter_mut() {
            for path in paths {
                match entry_name(root, path) {
                    Some(Some(name)) => {
                        slot.noted += 1;
                        slot.dirty.insert(name.to_string(), slot.noted);
                    }
                    // The root itself or one of its ancestors, or an entry
                    // whose name is not UTF-8: list it again.
                    Some(None) | None if root.starts_with(path) || path.starts_with(root) => {
                        slot.listing = None;
                        slot.dirty.clear();
                        slot.epoch += 1;
                    }
                    _ => {}
                }
            }
        }
    }

    /// Discover `roots` (in rank order) for the provider named `provider`.
    /// `changes` takes what the watcher noted since the last call, or `None`
    /// when nothing vouches for the kept listings (then every root is listed
    /// and nothing is kept). Without a `budget` it always returns a
    /// collection; with one, only when that is cheap: every root's listing
    /// is kept (for this root) and at most `budget` entries are to be read
    /// again. `None` (what changed noted, nothing taken, no file read)
    /// otherwise.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn collect_within(
        &self,
        fs: &dyn SkillFs,
        provider: &str,
        roots: &[RootSpec],
        cap: u64,
        cache: &ParseCache,
        cancel: &CancelToken,
        changes: impl FnOnce() -> Option<Changes>,
        budget: Option<usize>,
    ) -> Option<Collected> {
        // Take the kept listings out, with what changed in them. The changes
        // are taken from the watcher under the same lock: a discovery that
        // starts after a change was taken (and invalidated for) finds it
        // noted, or the listing out with whoever took it.
        let mut taken: Vec<Option<(Listing, HashSet<String>)>> = Vec::with_capacity(roots.len());
        // Per root: (epoch, the last number noted) when this discovery started.
        let mut epochs = Vec::with_capacity(roots.len());
        {
            let mut slots = self.lock();
            let Some(changes) = changes() else {
                *slots = LruCache::unbounded();
                self.defs.clear();
                drop(slots);
                if budget.is_some() {
                    return None;
                }
                let scan = discover::scan(fs, roots, cap, cache, cancel);
                return Some(Collected::of_scan(provider, scan));
            };
            self.absorb(&mut slots, &changes);
            if let Some(budget) = budget {
                let mut dirty = 0;
                for root in roots {
                    let slot = slots.peek(&root.path)?;
                    let listing = slot.listing.as_ref()?;
                    if listing.spec != *root {
                        return None;
                    }
                    dirty += slot.dirty.len() + usize::from(listing.spec.skips_system());
                }
                if dirty > budget {
                    return None;
                }
            }
            for root in roots {
                let slot = slots.get_or_insert_mut(root.path.clone(), Slot::default);
                epochs.push((slot.epoch, slot.noted));
                // The names stay noted until a listing showing them is put
                // back (this one may lose to a newer one).
                taken.push(
                    slot.listing
                        .take()
                        .map(|l| (l, slot.dirty.keys().cloned().collect())),
                );
            }
        }
        // Keep a listing only for the root it was made for, in the directory
        // it listed.
        let mut plans: Vec<Plan> = Vec::with_capacity(roots.len());
        for (root, kept) in roots.iter().zip(taken) {
            let identity = fs.identity(&root.path);
            let plan = match (kept, identity) {
                (Some((listing, dirty)), Ok(identity))
                    if listing.spec == *root
                        && listing.identity == identity
                        && !unnameable(&root.path) =>
                {
                    Plan::Keep(listing, dirty)
                }
                (_, identity) => {
                    tracing::trace!(root = %root.path.display(), "root listed again");
                    Plan::List(identity.ok().flatten())
                }
            };
            plans.push(plan);
        }
        // Read again what changed in the kept ones; a change that cannot be
        // applied entry by entry lists its root again.
        for (index, plan) in plans.iter_mut().enumerate() {
            if let Plan::Keep(listing, dirty) = plan {
                if !refresh(fs, provider, index, listing, dirty, cap, cache, cancel) {
                    *plan = Plan::List(listing.identity);
                }
            }
        }
        // List the others in one scan (its reads spread over a few threads).
        let listed: Vec<usize> = (0..roots.len())
            .filter(|&i| matches!(plans[i], Plan::List(_)))
            .collect();
        let specs: Vec<RootSpec> = listed.iter().map(|&i| roots[i].clone()).collect();
        let scan = (!specs.is_empty()).then(|| discover::scan(fs, &specs, cap, cache, cancel));
        let cancelled = cancel.is_cancelled();
        let mut fresh: Vec<Option<Listing>> = (0..roots.len()).map(|_| None).collect();
        if let Some(scan) = scan {
            let mut files: Vec<Vec<discover::FileScan>> =
                specs.iter().map(|_| Vec::new()).collect();
            for f in scan.files {
                files[f.root].push(f);
            }
            for (((spec, status), files), &index) in scan.roots.into_iter().zip(files).zip(&listed)
            {
                let Plan::List(identity) = plans[index] else {
                    continue;
                };
                fresh[index] = Some(listing_of(provider, spec, status, identity, files));
            }
        }
        // Assemble in rank order, and keep what may be kept.
        let mut statuses = Vec::with_capacity(roots.len());
        let mut files = Vec::new();
        let mut complete = !cancelled;
        let mut keep: Vec<Option<Listing>> = Vec::with_capacity(roots.len());
        for (index, plan) in plans.into_iter().enumerate() {
            let listing = match plan {
                Plan::Keep(listing, _) => Some(listing),
                Plan::List(_) => fresh[index].take(),
            };
            let Some(listing) = listing else {
                // Not listed (cancelled): nothing to show or keep.
                statuses.push((roots[index].clone(), RootStatus::Missing));
                complete = false;
                keep.push(None);
                continue;
            };
            if matches!(listing.status, RootStatus::Failed(_)) {
                complete = false;
            }
            for file in listing
                .raw
                .iter()
                .chain(listing.entries.iter().map(|e| &e.file))
            {
                if matches!(file.outcome, Outcome::Failed(_)) {
                    complete = false;
                }
                files.push((index, Arc::clone(file)));
            }
            statuses.push((listing.spec.clone(), listing.status.clone()));
            let keepable = !cancelled
                && matches!(
                    listing.status,
                    RootStatus::Scanned | RootStatus::Missing | RootStatus::NotDirectory(_)
                );
            keep.push(keepable.then_some(listing));
        }
        {
            let mut slots = self.lock();
            for ((root, listing), (epoch, seen)) in roots.iter().zip(keep).zip(epochs) {
                let Some(listing) = listing else { continue };
                // Evicted meanwhile (what changed in it since is unknown), or
                // changed as a whole: listed again next time.
                let Some(slot) = slots.get_mut(&root.path) else {
                    continue;
                };
                if slot.epoch != epoch {
                    continue;
                }
                // A listing of a discovery that started before the newest
                // one put back (kept, or taken out since) shows less: the
                // names it misses are no longer noted.
                if seen < slot.seen || (seen == slot.seen && slot.listing.is_some()) {
                    continue;
                }
                slot.listing = Some(listing);
                slot.seen = seen;
                slot.dirty.retain(|_, noted| *noted > seen);
            }
            while slots.len() > self.max_roots {
                slots.pop_lru();
            }
        }
        Some(Collected {
            roots: statuses,
            files,
            complete,
        })
    }
}

/// The reserved entry of the user DSH root.
const SYSTEM: &str = ".system";

enum Plan {
    /// A kept listing, and the names of its entries to read again.
    Keep(Listing, HashSet<String>),
    /// List the root (whose directory is this one, when known).
    List(Option<(u64, u64)>),
}

/// The name of the entry a scanned file is.
fn name_of(file: &discover::FileScan) -> Option<&str> {
    let entry = if file.layout == Some(Layout::Bundle) {
        &file.base
    } else {
        &file.path
    };
    entry.file_name()?.to_str()
}

/// The listing of one root from what a scan found in it.
fn listing_of(
    provider: &str,
    spec: RootSpec,
    status: RootStatus,
    identity: Option<(u64, u64)>,
    files: Vec<discover::FileScan>,
) -> Listing {
    let mut raw = Vec::new();
    let mut entries = Vec::with_capacity(files.len());
    for f in files {
        let name = name_of(&f).map(str::to_string);
        let file = Arc::new(File::new(
            provider, &spec, f.path, f.base, f.layout, f.outcome,
        ));
        match name {
            Some(name) => entries.push(Entry { name, file }),
            None => raw.push(file),
        }
    }
    let mut listing = Listing {
        spec,
        identity,
        status,
        raw,
        entries,
        bytes: 0,
    };
    listing.measure();
    listing
}

/// Read again the entries of a kept listing named in `dirty`, and those that
/// failed unexpectedly. Returns `false` when the root must be listed again
/// instead (an entry whose kind cannot be told, a root holding names that
/// are not UTF-8, a root that was not a directory).
#[allow(clippy::too_many_arguments)]
fn refresh(
    fs: &dyn SkillFs,
    provider: &str,
    index: usize,
    listing: &mut Listing,
    dirty: &mut HashSet<String>,
    cap: u64,
    cache: &ParseCache,
    cancel: &CancelToken,
) -> bool {
    for entry in &listing.entries {
        if matches!(entry.file.outcome, Outcome::Failed(_)) {
            dirty.insert(entry.name.clone());
        }
    }
    // The watcher ignores `.system` in the user DSH root (never a skill), but
    // a diagnosis lists it: one look each time.
    if listing.spec.skips_system() {
        dirty.insert(SYSTEM.to_string());
    }
    tracing::trace!(root = %listing.spec.path.display(), ?dirty, "kept listing read again");
    if dirty.is_empty() {
        return true;
    }
    if !listing.raw.is_empty() || listing.status != RootStatus::Scanned {
        return false;
    }
    let root = listing.spec.clone();
    let mut items = Vec::with_capacity(dirty.len());
    for name in dirty.drain() {
        let path = root.path.join(&name);
        let kind = match fs.entry_kind(&path) {
            Ok(kind) => kind,
            Err(_) => return false,
        };
        let item = kind.and_then(|kind| entry_item(fs, index, &root, &name, kind, path));
        items.push((name, item));
    }
    let outcomes = parallel_map_with(
        &items,
        cancel,
        KeepBatch::default,
        |batch, (_, item)| {
            item.as_ref()
                .map(|item| discover::process(fs, item, cap, cache, batch))
        },
        |mut batch| cache.keep_batch(&mut batch),
    );
    for ((name, item), outcome) in items.into_iter().zip(outcomes) {
        let at = listing.find(&name);
        let file = match (item, outcome) {
            (None, _) => None,
            (Some(item), Some(Some(outcome))) => Some(Arc::new(File::new(
                provider,
                &root,
                item.path,
                item.base,
                item.layout,
                outcome,
            ))),
            // Not processed (cancelled): the listing is not kept anyway.
            (Some(item), _) => Some(Arc::new(File {
                path: item.path,
                base: item.base,
                layout: item.layout,
                outcome: Outcome::Failed("not processed".into()),
            })),
        };
        match (at, file) {
            (Ok(at), Some(file)) => {
                let entry = &mut listing.entries[at];
                listing.bytes = listing.bytes - file_bytes(&entry.file) + file_bytes(&file);
                entry.file = file;
            }
            (Ok(at), None) => {
                let entry = listing.entries.remove(at);
                listing.bytes -= entry_bytes(&entry);
            }
            (Err(at), Some(file)) => {
                let entry = Entry { name, file };
                listing.bytes += entry_bytes(&entry);
                listing.entries.insert(at, entry);
            }
            (Err(_), None) => {}
        }
    }
    true
}
