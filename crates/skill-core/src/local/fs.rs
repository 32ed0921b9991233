//! The filesystem seen by the local provider.
//!
//! Discovery and loading only use [`SkillFs`], so another backend (a host
//! filesystem service, an in-memory fake) can replace [`StdFs`].

use std::ffi::OsString;
use std::io::{self, Read};
use std::path::Path;

/// What a path is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryKind {
    /// A regular file.
    File,
    /// A directory.
    Dir,
    /// A symbolic link (only reported by [`SkillFs::read_dir`], which does not
    /// follow links).
    Symlink,
    /// Anything else (FIFO, socket, device).
    Other,
}

/// One entry of a directory listing.
#[derive(Clone, Debug)]
pub struct DirEntry {
    /// File name (not a path).
    pub name: OsString,
    /// Kind of the entry itself (links not followed).
    pub kind: EntryKind,
}

/// Metadata of a path, links followed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileMeta {
    /// Kind of the target.
    pub kind: EntryKind,
    /// Size in bytes.
    pub len: u64,
}

/// The result of [`SkillFs::read_file`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FileRead {
    /// The file's bytes: at most `cap + 1` of them, so a result longer than
    /// `cap` means the file is too large.
    Bytes(Vec<u8>),
    /// The path (links followed) is not a regular file.
    NotRegular(EntryKind),
    /// The file is larger than `cap` (its size); nothing was read.
    TooLarge(u64),
}

/// What identifies one version of a file's content: device, inode, size,
/// modification and status-change times (nanoseconds where the platform has
/// them). Two reads with equal stamps saw the same content, provided the file
/// was not modified within the timestamps' granularity of the first read (see
/// [`FileStamp::settled_before`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FileStamp {
    /// Device id.
    pub dev: u64,
    /// Inode number.
    pub ino: u64,
    /// Size in bytes.
    pub len: u64,
    /// Modification time, nanoseconds since the epoch.
    pub mtime: i128,
    /// Status-change time (any content or metadata change; not settable by
    /// users), nanoseconds since the epoch.
    pub ctime: i128,
}

/// Filesystems record times at a granularity: within it, two writes can leave
/// the same timestamps. The coarsest in use are 1 s (ext3, HFS+) and 2 s (FAT).
pub const TIMESTAMP_GRANULARITY: std::time::Duration = std::time::Duration::from_secs(2);

impl FileStamp {
    /// The stamp of `meta` (of an open file). `None` where the platform does
    /// not expose inode and status-change time.
    #[cfg(unix)]
    pub fn of(meta: &std::fs::Metadata) -> Option<Self> {
        use std::os::unix::fs::MetadataExt;
        let nanos = |secs: i64, nsec: i64| i128::from(secs) * 1_000_000_000 + i128::from(nsec);
        Some(Self {
            dev: meta.dev(),
            ino: meta.ino(),
            len: meta.len(),
            mtime: nanos(meta.mtime(), meta.mtime_nsec()),
            ctime: nanos(meta.ctime(), meta.ctime_nsec()),
        })
    }

    /// See the Unix version: without an inode and a status-change time, no stamp.
    #[cfg(not(unix))]
    pub fn of(_meta: &std::fs::Metadata) -> Option<Self> {
        None
    }

    /// Whether the content read at `read_at` (or later) is the content every
    /// later stamp equal to this one stands for: the file's times are older
    /// than `read_at` by more than `granularity` (the filesystem's timestamp
    /// granularity, at most [`TIMESTAMP_GRANULARITY`]), so a modification after
    /// `read_at` must change them. A file written just before it was read is
    /// "racy" and must be read again next time.
    pub fn settled_before(
        &self,
        read_at: std::time::SystemTime,
        granularity: std::time::Duration,
    ) -> bool {
        let Ok(now) = read_at.duration_since(std::time::UNIX_EPOCH) else {
            return false;
        };
        let now = i128::try_from(now.as_nanos()).unwrap_or(i128::MAX);
        let granularity = i128::try_from(granularity.as_nanos()).unwrap_or(i128::MAX);
        self.mtime.max(self.ctime).saturating_add(granularity) < now
    }
}

/// The result of [`SkillFs::read_file_unless`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StampedRead {
    /// The caller recognised the file's stamp; nothing was read.
    Known,
    /// The file was read (or is not readable as a skill file), with the stamp
    /// of the open file when the platform has one.
    Read(FileRead, Option<FileStamp>),
}

/// Filesystem operations used by discovery. Implementations must be safe to
/// call from several threads at once.
pub trait SkillFs: Send + Sync {
    /// List a directory (one level, any order).
    fn read_dir(&self, path: &Path) -> io::Result<Vec<DirEntry>>;
    /// Metadata of `path`, following symbolic links.
    fn metadata(&self, path: &Path) -> io::Result<FileMeta>;
    /// Whether something (anything, even a broken link) exists at `path`.
    fn exists(&self, path: &Path) -> io::Result<bool>;
    /// Read a regular file (links followed) of at most `cap` bytes, never
    /// reading more than `cap + 1` bytes and never blocking on a FIFO.
    fn read_file(&self, path: &Path, cap: u64) -> io::Result<FileRead>;

    /// The kind of the entry at `path` itself (links not followed, as
    /// [`read_dir`](Self::read_dir) reports it), `None` when nothing is
    /// there. The default lists the parent directory.
    fn entry_kind(&self, path: &Path) -> io::Result<Option<EntryKind>> {
        let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
            return Ok(None);
        };
        match self.read_dir(parent) {
            Ok(entries) => Ok(entries.into_iter().find(|e| e.name == name).map(|e| e.kind)),
            Err(e) if is_gone(&e) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// What identifies the directory (or file) at `path`, links followed:
    /// its device and inode, where the platform has them (`None` otherwise,
    /// and when nothing is there). The default knows none.
    fn identity(&self, path: &Path) -> io::Result<Option<(u64, u64)>> {
        let _ = path;
        Ok(None)
    }

    /// [`read_file`](Self::read_file), except that the stamp of the opened
    /// regular file is first offered to `known`: when it returns `true`, the
    /// file is not read. The default reads without a stamp.
    fn read_file_unless(
        &self,
        path: &Path,
        cap: u64,
        known: &mut dyn FnMut(&FileStamp) -> bool,
    ) -> io::Result<StampedRead> {
        let _ = known;
        Ok(StampedRead::Read(self.read_file(path, cap)?, None))
    }
}

/// The process's own filesystem (`std::fs`).
#[derive(Clone, Copy, Debug, Default)]
pub struct StdFs;

fn kind_of(ft: std::fs::FileType) -> EntryKind {
    if ft.is_symlink() {
        EntryKind::Symlink
    } else if ft.is_dir() {
        EntryKind::Dir
    } else if ft.is_file() {
        EntryKind::File
    } else {
        EntryKind::Other
    }
}

impl SkillFs for StdFs {
    fn read_dir(&self, path: &Path) -> io::Result<Vec<DirEntry>> {
        let mut out = Vec::new();
        for entry in std::fs::read_dir(path)? {
            let entry = entry?;
            let kind = match entry.file_type() {
                Ok(ft) => kind_of(ft),
                Err(_) => match std::fs::symlink_metadata(entry.path()) {
                    Ok(m) => kind_of(m.file_type()),
                    // Vanished between the listing and the probe.
                    Err(e) if is_gone(&e) => continue,
                    // Anything else must not look like deletion.
                    Err(e) => return Err(e),
                },
            };
            out.push(DirEntry {
                name: entry.file_name(),
                kind,
            });
        }
        Ok(out)
    }

    fn entry_kind(&self, path: &Path) -> io::Result<Option<EntryKind>> {
        match std::fs::symlink_metadata(path) {
            Ok(m) => Ok(Some(kind_of(m.file_type()))),
            Err(e) if is_gone(&e) => Ok(None),
            Err(e) => Err(e),
        }
    }

    fn identity(&self, path: &Path) -> io::Result<Option<(u64, u64)>> {
        match std::fs::metadata(path) {
            #[cfg(unix)]
            Ok(m) => {
                use std::os::unix::fs::MetadataExt;
                Ok(Some((m.dev(), m.ino())))
            }
            #[cfg(not(unix))]
            Ok(_) => Ok(None),
            Err(e) if is_gone(&e) => Ok(None),
            Err(e) => Err(e),
        }
    }

    fn metadata(&self, path: &Path) -> io::Result<FileMeta> {
        let m = std::fs::metadata(path)?;
        Ok(FileMeta {
            kind: kind_of(m.file_type()),
            len: m.len(),
        })
    }

    fn exists(&self, path: &Path) -> io::Result<bool> {
        match std::fs::symlink_metadata(path) {
            Ok(_) => Ok(true),
            Err(e) if is_gone(&e) => Ok(false),
            Err(e) => Err(e),
        }
    }

    fn read_file(&self, path: &Path, cap: u64) -> io::Result<FileRead> {
        match self.read_file_unless(path, cap, &mut |_| false)? {
            StampedRead::Read(read, _) => Ok(read),
            // Nothing is known to the closure above.
            StampedRead::Known => Err(io::Error::other("file unexpectedly recognised")),
        }
    }

    fn read_file_unless(
        &self,
        path: &Path,
        cap: u64,
        known: &mut dyn FnMut(&FileStamp) -> bool,
    ) -> io::Result<StampedRead> {
        let file = match open_nonblocking(path) {
            Ok(file) => file,
            Err(e) => return not_openable(path, e),
        };
        // Checked on the open handle, so what is read is what was checked.
        let meta = file.metadata()?;
        if !meta.is_file() {
            return Ok(StampedRead::Read(
                FileRead::NotRegular(kind_of(meta.file_type())),
                None,
            ));
        }
        let stamp = FileStamp::of(&meta);
        if let Some(stamp) = &stamp {
            if known(stamp) {
                return Ok(StampedRead::Known);
            }
        }
        if meta.len() > cap {
            return Ok(StampedRead::Read(FileRead::TooLarge(meta.len()), stamp));
        }
        Ok(StampedRead::Read(
            read_capped(file, meta.len(), cap)?,
            stamp,
        ))
    }
}

/// A path that could not be opened for reading: a special file that refuses
/// to open (a unix socket gives `ENXIO`) is "not a regular file", like a FIFO;
/// anything else is the open error.
fn not_openable(path: &Path, error: io::Error) -> io::Result<StampedRead> {
    if is_gone(&error) || is_loop(&error) {
        return Err(error);
    }
    match std::fs::metadata(path) {
        Ok(meta) if !meta.is_file() => Ok(StampedRead::Read(
            FileRead::NotRegular(kind_of(meta.file_type())),
            None,
        )),
        _ => Err(error),
    }
}

/// Read at most `cap + 1` bytes of a file whose size was just seen to be `len`
/// (it may have changed since).
///
/// The first read asks for one byte more than `len`: when it returns exactly
/// `len` bytes the file ended there, and no second read is made to hit the end
/// of the file (four system calls per skill file with the open, the size check
/// and the close, as Node's `readFileSync`). A file that grew is read on up to
/// `cap + 1` bytes; one that shrank, or a short read, until the end.
pub(crate) fn read_capped(mut file: std::fs::File, len: u64, cap: u64) -> io::Result<FileRead> {
    let limit = usize::try_from(cap.saturating_add(1)).unwrap_or(usize::MAX);
    let len = usize::try_from(len).unwrap_or(usize::MAX);
    let mut buf = vec![0u8; len.saturating_add(1).min(limit)];
    let mut filled = 0;
    loop {
        if filled == buf.len() {
            if filled >= limit {
                break;
            }
            let grown = filled.saturating_mul(2).max(8192).min(limit);
            buf.resize(grown, 0);
        }
        match file.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
        if filled == len && filled < buf.len() {
            break;
        }
    }
    buf.truncate(filled);
    Ok(FileRead::Bytes(buf))
}

/// Open for reading without blocking: opening a FIFO with no writer would
/// otherwise wait forever. Reads of regular files are unaffected.
#[cfg(unix)]
fn open_nonblocking(path: &Path) -> io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
}

#[cfg(not(unix))]
fn open_nonblocking(path: &Path) -> io::Result<std::fs::File> {
    // Elsewhere, check the kind first: only regular files are opened.
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file",
        ));
    }
    std::fs::File::open(path)
}

/// ELOOP on this platform, when known.
#[cfg(any(target_os = "linux", target_os = "android"))]
const ELOOP: Option<i32> = Some(40);
#[cfg(any(target_os = "macos", target_os = "ios", target_os = "freebsd"))]
const ELOOP: Option<i32> = Some(62);
#[cfg(windows)]
const ELOOP: Option<i32> = Some(1921); // ERROR_CANT_RESOLVE_FILENAME
#[cfg(not(any(
    target_os = "linux",
    target_os = "android",
    target_os = "macos",
    target_os = "ios",
    target_os = "freebsd",
    windows
)))]
const ELOOP: Option<i32> = None;

/// The path does not exist (any more): not found, or a path component that is
/// not a directory.
pub fn is_gone(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
    )
}

/// Too many levels of symbolic links (a link loop).
pub fn is_loop(e: &io::Error) -> bool {
    ELOOP.is_some() && e.raw_os_error() == ELOOP
}
