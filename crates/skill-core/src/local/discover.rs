//! One discovery pass: list every root (one level; when two or more are
//! large, on a few threads), order entries, then read and parse the skill
//! files on a few worker threads.

use super::cache::{KeepBatch, ParseCache};
use super::fs::{is_gone, is_loop, EntryKind, FileRead, SkillFs};
use super::order::sort_by_name;
use super::roots::RootSpec;
use super::workers::{parallel_map_by, parallel_map_with};
use crate::cancel::CancelToken;
use crate::frontmatter::{self, ParsedSkill};
use std::path::{Path, PathBuf};

/// How a skill file sits in its root.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// `<root>/<dir>/SKILL.md`.
    Bundle,
    /// `<root>/<file>.md`.
    Flat,
}

impl Layout {
    /// `bundle` or `flat`.
    pub fn as_str(self) -> &'static str {
        match self {
            Layout::Bundle => "bundle",
            Layout::Flat => "flat",
        }
    }
}

/// What became of one root.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RootStatus {
    /// Listed.
    Scanned,
    /// Absent (or below something that is not a directory): an empty root.
    Missing,
    /// Something other than a directory stands at the root's path (a file,
    /// say): an empty root, as a missing one (discovery stays complete, and
    /// the watcher follows the path until a directory takes its place), but
    /// reported with a warning, since it is most likely a mistake. The text
    /// says what stands there.
    NotDirectory(&'static str),
    /// Listing failed unexpectedly; discovery is incomplete.
    Failed(String),
    /// The root's path cannot be used at all (too long for the platform, or
    /// holding a NUL byte): it is left out with a warning, and discovery of
    /// the other roots stays complete.
    Unusable(String),
}

/// What became of one skill file.
#[derive(Clone, Debug, PartialEq)]
pub enum FileOutcome {
    /// Parsed and valid. Discovery does not need the body: it may be empty
    /// (a parse taken from the cache keeps none).
    Parsed(ParsedSkill),
    /// Not a skill; `warn` tells whether the user should hear about it.
    Skipped {
        /// Human-readable reason.
        reason: String,
        /// Whether this is worth a warning (a directory without `SKILL.md` is not).
        warn: bool,
    },
    /// Unexpected I/O failure; discovery is incomplete.
    Failed(String),
}

/// One file (or entry) considered by a scan.
#[derive(Clone, Debug)]
pub struct FileScan {
    /// Index of the root in [`Scan::roots`].
    pub root: usize,
    /// The skill file (`…/SKILL.md` for bundles).
    pub path: PathBuf,
    /// Resource base: the bundle directory, or the root for flat files.
    pub base: PathBuf,
    /// Layout, when known (a broken link has none).
    pub layout: Option<Layout>,
    /// Result.
    pub outcome: FileOutcome,
}

/// The result of one pass.
#[derive(Clone, Debug)]
pub struct Scan {
    /// Roots in rank order with their status.
    pub roots: Vec<(RootSpec, RootStatus)>,
    /// Files in discovery order (root order, then entry order).
    pub files: Vec<FileScan>,
    /// Whether nothing unexpected happened (and the caller did not cancel).
    pub complete: bool,
}

/// The outcome of reading one skill file.
#[derive(Clone, Debug, PartialEq)]
pub enum ReadOutcome {
    /// Valid skill.
    Parsed(ParsedSkill),
    /// The file does not exist (any more).
    Gone,
    /// Present but not an acceptable skill file.
    Invalid(String),
    /// Unexpected I/O failure.
    Failed(String),
}

/// Read and parse one skill file, reading at most `cap + 1` bytes.
pub fn read_skill(fs: &dyn SkillFs, path: &Path, cap: u64) -> ReadOutcome {
    read_outcome(fs.read_file(path, cap), cap)
}

/// What the result of [`SkillFs::read_file`] means for a skill file.
pub(crate) fn read_outcome(read: std::io::Result<FileRead>, cap: u64) -> ReadOutcome {
    let bytes = match read {
        Ok(FileRead::Bytes(b)) => b,
        Ok(FileRead::NotRegular(kind)) => return not_regular(kind),
        Ok(FileRead::TooLarge(len)) => return ReadOutcome::Invalid(too_large(len, cap)),
        Err(e) if is_gone(&e) => return ReadOutcome::Gone,
        Err(e) if is_loop(&e) => return ReadOutcome::Invalid("symbolic link loop".into()),
        Err(e) if e.kind() == std::io::ErrorKind::InvalidInput => {
            return ReadOutcome::Invalid(format!("cannot read: {e}"))
        }
        Err(e) => return ReadOutcome::Failed(format!("cannot read: {e}")),
    };
    bytes_outcome(&bytes, cap)
}

/// What the bytes of a skill file mean (at most `cap` of them are valid).
pub(crate) fn bytes_outcome(bytes: &[u8], cap: u64) -> ReadOutcome {
    if bytes.len() as u64 > cap {
        return over_cap(cap);
    }
    text_outcome(&decode(bytes))
}

/// The outcome of a file of more than `cap` bytes.
pub(crate) fn over_cap(cap: u64) -> ReadOutcome {
    ReadOutcome::Invalid(format!(
        "file is larger than maxSkillFileBytes (more than {cap} bytes)"
    ))
}

/// The text of a skill file's bytes. Bytes that are not UTF-8 become U+FFFD,
/// one per maximal invalid sequence, as Node decodes `utf8` (the TypeScript
/// provider's reads and a host filesystem service's `readText`): both paths
/// read the same text. The size cap applies to the bytes, before this: a
/// replacement takes 3 bytes, so the text may be longer than the file.
pub(crate) fn decode(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(bytes)
}

/// Parse the text of a skill file that passed the size cap.
pub(crate) fn text_outcome(text: &str) -> ReadOutcome {
    if text.is_empty() {
        return ReadOutcome::Invalid("empty file".into());
    }
    match frontmatter::parse(text) {
        // The text is at hand: its fingerprint costs one pass over it, and
        // lets the registry tell a duplicate that is the same skill from one
        // that differs without reading either file again.
        Ok(mut p) => {
            p.fingerprint = Some(crate::same::fingerprint(text));
            ReadOutcome::Parsed(p)
        }
        Err(e) => ReadOutcome::Invalid(e.to_string()),
    }
}

/// The outcome for a path that is not a regular file (links followed).
pub fn not_regular(kind: EntryKind) -> ReadOutcome {
    ReadOutcome::Invalid(match kind {
        EntryKind::Dir => "is a directory, not a file".into(),
        _ => "not a regular file".into(),
    })
}

/// Parse the text of a skill file given as text (a filesystem service's
/// `readText`, whose bytes are not known): the size cap (in UTF-8 bytes of
/// the text), then the frontmatter.
pub fn parse_skill_text(text: &str, cap: u64) -> ReadOutcome {
    if !text.is_empty() && text.len() as u64 > cap {
        return ReadOutcome::Invalid(too_large(text.len() as u64, cap));
    }
    text_outcome(text)
}

fn too_large(len: u64, cap: u64) -> String {
    format!("file is larger than maxSkillFileBytes ({len} > {cap} bytes)")
}

/// One entry of a root planned for reading (or already decided).
#[derive(Clone, Debug)]
pub(crate) struct Item {
    pub(crate) root: usize,
    pub(crate) path: PathBuf,
    pub(crate) base: PathBuf,
    pub(crate) layout: Option<Layout>,
    pub(crate) decided: Option<FileOutcome>,
}

fn skipped(reason: impl Into<String>, warn: bool) -> Option<FileOutcome> {
    Some(FileOutcome::Skipped {
        reason: reason.into(),
        warn,
    })
}

/// Whether `path` could not even be named to the system: longer than the
/// platform allows, or holding a NUL byte. Retrying cannot help.
pub(crate) fn cannot_be_named(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::InvalidFilename | std::io::ErrorKind::InvalidInput
    )
}

/// Whether a failure to read may be a lasting property of the file rather
/// than of the moment: anything but a permission problem (which an owner
/// fixes, and which keeps discovery incomplete until then) or a shortage or
/// interruption of the system (out of file descriptors or memory, busy,
/// interrupted, timed out, a stale network handle).
pub(crate) fn may_persist(e: &std::io::Error) -> bool {
    use std::io::ErrorKind as K;
    if matches!(
        e.kind(),
        K::PermissionDenied
            | K::Interrupted
            | K::WouldBlock
            | K::TimedOut
            | K::OutOfMemory
            | K::ResourceBusy
            | K::StaleNetworkFileHandle
    ) {
        return false;
    }
    #[cfg(unix)]
    if let Some(code) = e.raw_os_error() {
        return ![
            libc::EMFILE,
            libc::ENFILE,
            libc::ENOMEM,
            libc::EAGAIN,
            libc::EINTR,
            libc::ETIMEDOUT,
            libc::EBUSY,
            libc::ENOLCK,
            libc::ENOBUFS,
        ]
        .contains(&code);
    }
    true
}

/// Whether two failures are the same failure.
pub(crate) fn same_failure(a: &std::io::Error, b: &std::io::Error) -> bool {
    a.kind() == b.kind() && a.raw_os_error() == b.raw_os_error()
}

/// The note added to a failure that repeated on a second attempt.
pub(crate) const REPEATED: &str = "the same on a second attempt";

/// The direct entries of a root, as one listing gives them: the entries whose
/// name is not UTF-8 (only those that could be skills: a `.md` name or
/// anything but a regular file), in listing order, then the others sorted by
/// name, each with its kind (links not followed) and path.
pub(crate) struct RootListing {
    pub(crate) raw: Vec<PathBuf>,
    pub(crate) named: Vec<(String, EntryKind, PathBuf)>,
}

/// What became of a root whose listing said "not a directory", once the
/// root's path turned out to be of `kind`: a file (or a special file) is
/// worth a warning; a directory after all (a race) is read as missing.
pub(crate) fn not_directory(kind: EntryKind) -> RootStatus {
    match kind {
        EntryKind::Dir => RootStatus::Missing,
        EntryKind::File => RootStatus::NotDirectory("a file"),
        _ => RootStatus::NotDirectory("a special file (a FIFO, socket or device)"),
    }
}

/// List one root (one level), or what became of it when it cannot be listed.
pub(crate) fn read_root(fs: &dyn SkillFs, root: &RootSpec) -> Result<RootListing, RootStatus> {
    let entries = match fs.read_dir(&root.path) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotADirectory => {
            // The root itself, or a directory above it, is not a directory:
            // only the first is worth a warning.
            return Err(match fs.metadata(&root.path) {
                Ok(meta) => not_directory(meta.kind),
                _ => RootStatus::Missing,
            });
        }
        Err(e) if is_gone(&e) => return Err(RootStatus::Missing),
        Err(e) if cannot_be_named(&e) => {
            return Err(RootStatus::Unusable(format!(
                "skill root {} cannot be used: {e}",
                root.path.display()
            )))
        }
        Err(e) => {
            return Err(RootStatus::Failed(format!(
                "cannot list skill root {}: {e}",
                root.path.display()
            )))
        }
    };
    let mut raw = Vec::new();
    let mut named = Vec::with_capacity(entries.len());
    for entry in entries {
        let path = root.path.join(&entry.name);
        match entry.name.into_string() {
            Ok(name) => named.push((name, entry.kind, path)),
            Err(name) => {
                let md = name.as_encoded_bytes().ends_with(b".md");
                if md || entry.kind != EntryKind::File {
                    raw.push(path);
                }
            }
        }
    }
    sort_by_name(&mut named, |(name, _, _)| name.as_str());
    Ok(RootListing { raw, named })
}

/// The item for an entry of `root` whose name is not UTF-8.
pub(crate) fn raw_item(index: usize, root: &RootSpec, path: PathBuf) -> Item {
    Item {
        root: index,
        path,
        base: root.path.clone(),
        layout: None,
        decided: skipped("file name is not valid UTF-8", true),
    }
}

/// List one root into `items`.
fn list_root(fs: &dyn SkillFs, index: usize, root: &RootSpec, items: &mut Vec<Item>) -> RootStatus {
    let listing = match read_root(fs, root) {
        Ok(listing) => listing,
        Err(status) => return status,
    };
    items.extend(
        listing
            .raw
            .into_iter()
            .map(|path| raw_item(index, root, path)),
    );
    for (name, kind, path) in listing.named {
        items.extend(entry_item(fs, index, root, &name, kind, path));
    }
    RootStatus::Scanned
}

/// The item for the entry `name` of `root` whose kind (links not followed) is
/// `kind`, if it can be a skill: reserved names, links followed (a broken
/// link or a loop is skipped), then [`classify`].
pub(crate) fn entry_item(
    fs: &dyn SkillFs,
    index: usize,
    root: &RootSpec,
    name: &str,
    kind: EntryKind,
    path: PathBuf,
) -> Option<Item> {
    if let Some(item) = reserved(index, root, name, &path) {
        return Some(item);
    }
    if kind != EntryKind::Symlink {
        return classify(index, root, name, kind, path);
    }
    let e = match fs.metadata(&path) {
        Ok(m) => return classify(index, root, name, m.kind, path),
        Err(e) => e,
    };
    let outcome = if is_gone(&e) {
        skipped("broken symbolic link", true)
    } else if is_loop(&e) {
        skipped("symbolic link loop", true)
    } else if cannot_be_named(&e) {
        skipped(format!("cannot follow symbolic link: {e}"), true)
    } else {
        match fs.metadata(&path) {
            Ok(m) => return classify(index, root, name, m.kind, path),
            // The same failure twice: skipped, not a reason to call every
            // discovery incomplete.
            Err(again) if may_persist(&e) && same_failure(&e, &again) => skipped(
                format!("cannot follow symbolic link: {again} ({REPEATED})"),
                true,
            ),
            Err(again) => Some(FileOutcome::Failed(format!(
                "cannot follow symbolic link: {again}"
            ))),
        }
    };
    Some(Item {
        root: index,
        path,
        base: root.path.clone(),
        layout: None,
        decided: outcome,
    })
}

/// The item for an entry skipped by name alone (`.system` under the user DSH
/// root), if any.
pub(crate) fn reserved(index: usize, root: &RootSpec, name: &str, path: &Path) -> Option<Item> {
    (root.skips_system() && name == ".system").then(|| Item {
        root: index,
        path: path.to_path_buf(),
        base: root.path.clone(),
        layout: None,
        decided: skipped(
            ".system under the user DSH root is reserved and not scanned",
            false,
        ),
    })
}

/// The item for one entry of `root` whose kind is known (links followed):
/// a directory is a bundle (its `SKILL.md`), a `.md` file a flat skill, a
/// `.md` that is neither is skipped; anything else is ignored.
pub(crate) fn classify(
    index: usize,
    root: &RootSpec,
    name: &str,
    kind: EntryKind,
    path: PathBuf,
) -> Option<Item> {
    let is_md = name.ends_with(".md");
    match kind {
        EntryKind::Dir => Some(Item {
            root: index,
            path: path.join("SKILL.md"),
            base: path,
            layout: Some(Layout::Bundle),
            decided: None,
        }),
        EntryKind::File if is_md => Some(Item {
            root: index,
            path,
            base: root.path.clone(),
            layout: Some(Layout::Flat),
            decided: None,
        }),
        EntryKind::Other | EntryKind::Symlink if is_md => Some(Item {
            root: index,
            path,
            base: root.path.clone(),
            layout: Some(Layout::Flat),
            decided: skipped("not a regular file", true),
        }),
        _ => None,
    }
}

/// What `item` is, its file read through `cache` (what is to be kept goes
/// into `batch`).
pub(crate) fn process(
    fs: &dyn SkillFs,
    item: &Item,
    cap: u64,
    cache: &ParseCache,
    batch: &mut KeepBatch,
) -> FileOutcome {
    if let Some(decided) = &item.decided {
        return decided.clone();
    }
    let read = cache.read_batched(fs, &item.path, cap, batch);
    // A bundle without its `SKILL.md` is no skill and says nothing, but one
    // whose `SKILL.md` is a link to nothing is a broken skill: warned about
    // as a broken flat link is (one more look, only when the file is gone).
    if matches!(read, ReadOutcome::Gone)
        && item.layout == Some(Layout::Bundle)
        && fs.exists(&item.path).unwrap_or(false)
    {
        return FileOutcome::Skipped {
            reason: "broken symbolic link".into(),
            warn: true,
        };
    }
    file_outcome(item.layout, read)
}

/// What a read means for discovery: a missing bundle `SKILL.md` is skipped
/// silently, as is a file that disappeared; an invalid file is skipped with a
/// warning; an unexpected failure makes the scan incomplete.
pub(crate) fn file_outcome(layout: Option<Layout>, read: ReadOutcome) -> FileOutcome {
    match read {
        ReadOutcome::Parsed(p) => FileOutcome::Parsed(p),
        ReadOutcome::Gone if layout == Some(Layout::Bundle) => FileOutcome::Skipped {
            reason: "directory has no SKILL.md".into(),
            warn: false,
        },
        ReadOutcome::Gone => FileOutcome::Skipped {
            reason: "file disappeared during discovery".into(),
            warn: false,
        },
        ReadOutcome::Invalid(reason) => FileOutcome::Skipped { reason, warn: true },
        ReadOutcome::Failed(reason) => FileOutcome::Failed(reason),
    }
}

/// A directory this large (its size as the filesystem reports it: on ext4,
/// a 4 KiB block per ~150 entries) takes long enough to list that two of
/// them are worth listing on two threads.
const LARGE_ROOT_BYTES: u64 = 8192;

/// How many of `roots` look large (see [`LARGE_ROOT_BYTES`]); one `stat`
/// each, stopping at two. A root that cannot be looked at is not large.
pub(crate) fn large_roots(fs: &dyn SkillFs, roots: &[RootSpec]) -> usize {
    roots
        .iter()
        .filter(|root| {
            fs.metadata(&root.path)
                .is_ok_and(|m| m.kind == EntryKind::Dir && m.len > LARGE_ROOT_BYTES)
        })
        .take(2)
        .count()
}

/// Scan `roots`, parsing through `cache`.
pub fn scan(
    fs: &dyn SkillFs,
    roots: &[RootSpec],
    cap: u64,
    cache: &ParseCache,
    cancel: &CancelToken,
) -> Scan {
    let started = std::time::Instant::now();
    let mut items = Vec::new();
    let mut statuses = Vec::with_capacity(roots.len());
    let mut complete = true;
    let indexed: Vec<(usize, &RootSpec)> = roots.iter().enumerate().collect();
    let list = |&(index, root): &(usize, &RootSpec)| {
        let mut items = Vec::new();
        let status = list_root(fs, index, root, &mut items);
        (status, items)
    };
    let listings: Vec<Option<(RootStatus, Vec<Item>)>> = if large_roots(fs, roots) >= 2 {
        parallel_map_by(&indexed, cancel, 1, list)
    } else {
        indexed.iter().map(|r| Some(list(r))).collect()
    };
    for (root, listing) in roots.iter().zip(listings) {
        let (status, listed) = listing.unwrap_or_else(|| {
            (
                RootStatus::Failed(format!("skill root {} was not listed", root.path.display())),
                Vec::new(),
            )
        });
        tracing::debug!(root = %root.path.display(), source = root.source.as_str(), ?status, entries = listed.len(), "skill root scanned");
        if matches!(status, RootStatus::Failed(_)) {
            complete = false;
        }
        items.extend(listed);
        statuses.push((root.clone(), status));
    }

    let outcomes = parallel_map_with(
        &items,
        cancel,
        KeepBatch::default,
        |batch, item| process(fs, item, cap, cache, batch),
        |mut batch| cache.keep_batch(&mut batch),
    );

    let cancelled = cancel.is_cancelled();
    let mut files = Vec::with_capacity(items.len());
    for (item, outcome) in items.into_iter().zip(outcomes) {
        let outcome = match outcome {
            Some(o) => o,
            None => {
                complete = false;
                if cancelled {
                    continue;
                }
                FileOutcome::Failed("not processed".into())
            }
        };
        match &outcome {
            FileOutcome::Skipped { reason, .. } => {
                tracing::debug!(path = %item.path.display(), %reason, "skill entry skipped");
            }
            FileOutcome::Failed(reason) => {
                tracing::debug!(path = %item.path.display(), %reason, "skill entry failed");
                complete = false;
            }
            FileOutcome::Parsed(_) => {}
        }
        files.push(FileScan {
            root: item.root,
            path: item.path,
            base: item.base,
            layout: item.layout,
            outcome,
        });
    }
    tracing::debug!(
        roots = statuses.len(),
        entries = files.len(),
        complete = complete && !cancelled,
        elapsed_ms = started.elapsed().as_secs_f64() * 1e3,
        "skill discovery finished"
    );
    Scan {
        roots: statuses,
        files,
        complete: complete && !cancelled,
    }
}
