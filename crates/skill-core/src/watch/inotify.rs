//! Linux: the OS watch layer straight on inotify.
//!
//! notify's inotify watcher runs every `watch`/`unwatch` through its event-loop
//! thread (a channel send, a wake-up and a reply per path), and subscribes to
//! `IN_OPEN`, so every file discovery opens in a watched directory wakes two
//! threads. Here a watch is one `inotify_add_watch` call on the caller's thread,
//! the mask holds only what can change the catalog (no open, access or
//! close-without-write events), and the kernel's events become the same
//! `notify::Event`s the engine classifies on other platforms.
//!
//! Two readers share the descriptor: a reader thread that waits for it to
//! become readable, and a lookup catching up (read-your-writes), which reads
//! whatever the kernel holds without blocking ([`Backend::drain`]). Both read
//! under one lock and queue what they parsed before releasing it, and the
//! engine takes the queue under its state lock, so an event is never read by
//! one and missing for the other.
//!
//! One directory reached through several watched paths (a symlinked root and its
//! target, say) is one kernel watch: its events are reported under every path
//! that asked for it, and the kernel watch is removed with the last of them.

use super::backend::{Backend, Msg};
use crate::cancel::CancelToken;
use crate::local::parallel_map;
use notify::event::{
    AccessKind, AccessMode, CreateKind, DataChange, Event, EventKind, Flag, MetadataKind,
    ModifyKind, RemoveKind, RenameMode,
};
use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::ffi::{CString, OsStr};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;

/// Events that can change the catalog, on directories only.
const MASK: u32 = libc::IN_CREATE
    | libc::IN_DELETE
    | libc::IN_MODIFY
    | libc::IN_ATTRIB
    | libc::IN_CLOSE_WRITE
    | libc::IN_MOVED_FROM
    | libc::IN_MOVED_TO
    | libc::IN_DELETE_SELF
    | libc::IN_MOVE_SELF
    | libc::IN_ONLYDIR;

/// An ancestor of a root: only its own move or removal.
const MOVES: u32 = libc::IN_DELETE_SELF | libc::IN_MOVE_SELF | libc::IN_ONLYDIR;

/// Size of `struct inotify_event` without its name.
const HEADER: usize = 16;

/// Watch descriptors and the paths they were asked for.
#[derive(Default)]
struct Table {
    by_path: HashMap<PathBuf, i32>,
    by_wd: HashMap<i32, Vec<PathBuf>>,
}

impl Table {
    /// Forget `path`; returns its descriptor when no other path uses it.
    fn forget(&mut self, path: &Path) -> Option<i32> {
        let wd = self.by_path.remove(path)?;
        let paths = self.by_wd.get_mut(&wd)?;
        paths.retain(|p| p != path);
        if paths.is_empty() {
            self.by_wd.remove(&wd);
            Some(wd)
        } else {
            None
        }
    }
}

/// Events read from the kernel and not taken yet, and the read buffer.
///
/// Whoever reads the inotify descriptor (the reader thread, or a lookup
/// catching up through [`Backend::drain`]) holds this lock from the `read`
/// until the parsed events are queued here: an event is never "read but not
/// visible" to the other. Taking it never waits for more than one read and
/// parse (nobody holds it while blocking in `poll`).
struct Queue {
    buf: Vec<u8>,
    events: Vec<notify::Result<Event>>,
}

/// What the instance shares with its reader thread.
struct Shared {
    fd: OwnedFd,
    table: Mutex<Table>,
    queue: Mutex<Queue>,
}

/// The inotify instance, its descriptor table and its reader thread.
pub(super) struct Inotify {
    shared: Arc<Shared>,
    /// An eventfd the reader also polls: written once to stop it.
    stop: Arc<OwnedFd>,
    reader: Option<JoinHandle<()>>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

fn owned(fd: RawFd) -> io::Result<OwnedFd> {
    if fd < 0 {
        Err(io::Error::last_os_error())
    } else {
        // SAFETY: a descriptor just returned by the kernel, owned by nobody else.
        Ok(unsafe { OwnedFd::from_raw_fd(fd) })
    }
}

impl Inotify {
    /// Create the instance; its events go to `tx`.
    pub(super) fn new(tx: Sender<Msg>) -> notify::Result<Self> {
        // SAFETY: plain system calls without pointers.
        let fd = owned(unsafe { libc::inotify_init1(libc::IN_NONBLOCK | libc::IN_CLOEXEC) })
            .map_err(notify::Error::io)?;
        let stop = owned(unsafe { libc::eventfd(0, libc::EFD_NONBLOCK | libc::EFD_CLOEXEC) })
            .map_err(notify::Error::io)?;
        let shared = Arc::new(Shared {
            fd,
            table: Mutex::new(Table::default()),
            queue: Mutex::new(Queue {
                // Room for many events per read (each is 16 bytes plus a
                // padded name).
                buf: vec![0u8; 64 * 1024],
                events: Vec::new(),
            }),
        });
        let stop = Arc::new(stop);
        let reader = {
            let (shared, stop) = (Arc::clone(&shared), Arc::clone(&stop));
            std::thread::Builder::new()
                .name("skill-inotify".into())
                .spawn(move || read_loop(&shared, &stop, &tx))
                .map_err(notify::Error::io)?
        };
        Ok(Self {
            shared,
            stop,
            reader: Some(reader),
        })
    }
}

fn watch_error(e: io::Error, path: &Path) -> notify::Error {
    let error = if e.raw_os_error() == Some(libc::ENOSPC) {
        notify::Error::new(notify::ErrorKind::MaxFilesWatch)
    } else {
        notify::Error::io(e)
    };
    error.add_path(path.to_path_buf())
}

/// Add (or refresh) the kernel watch of one directory for `mask`; its
/// descriptor.
fn add_watch(fd: RawFd, path: &Path, mask: u32) -> notify::Result<i32> {
    let c_path = CString::new(path.as_os_str().as_bytes()).map_err(|_| {
        watch_error(
            io::Error::new(io::ErrorKind::InvalidInput, "path contains a NUL byte"),
            path,
        )
    })?;
    // SAFETY: a valid descriptor and a NUL-terminated path.
    let wd = unsafe { libc::inotify_add_watch(fd, c_path.as_ptr(), mask) };
    if wd < 0 {
        Err(watch_error(io::Error::last_os_error(), path))
    } else {
        Ok(wd)
    }
}

impl Inotify {
    /// Record that `path` is watched through `wd`.
    fn record(&self, table: &mut Table, path: &Path, wd: i32) {
        let old = match table.by_path.entry(path.to_path_buf()) {
            Entry::Occupied(entry) if *entry.get() == wd => return,
            Entry::Occupied(mut entry) => Some(entry.insert(wd)),
            Entry::Vacant(entry) => {
                entry.insert(wd);
                None
            }
        };
        // Watched before as another directory (replaced since): let that go.
        if let Some(old) = old {
            let paths = table.by_wd.entry(old).or_default();
            paths.retain(|p| p != path);
            if paths.is_empty() {
                table.by_wd.remove(&old);
                // SAFETY: plain system call; a stale descriptor only fails.
                unsafe { libc::inotify_rm_watch(self.shared.fd.as_raw_fd(), old) };
            }
        }
        table.by_wd.entry(wd).or_default().push(path.to_path_buf());
    }
}

impl Backend for Inotify {
    fn watch(&mut self, path: &Path, os: &Path) -> notify::Result<()> {
        // The table stays locked across the call, so an event for the new
        // descriptor cannot be read before its path is known.
        let mut table = lock(&self.shared.table);
        let wd = add_watch(self.shared.fd.as_raw_fd(), os, MASK)
            .map_err(|e| e.set_paths(vec![path.to_path_buf()]))?;
        self.record(&mut table, path, wd);
        Ok(())
    }

    /// Added to what the directory is watched for; then, unless another
    /// path watches the same directory, narrowed to its move alone (a
    /// directory watched whole until now, in one step: no moment without a
    /// watch).
    fn watch_moves(&mut self, path: &Path, os: &Path) -> notify::Result<()> {
        let mut table = lock(&self.shared.table);
        let fd = self.shared.fd.as_raw_fd();
        let wd = add_watch(fd, os, MOVES | libc::IN_MASK_ADD)
            .map_err(|e| e.set_paths(vec![path.to_path_buf()]))?;
        self.record(&mut table, path, wd);
        let alone = table
            .by_wd
            .get(&wd)
            .is_some_and(|paths| paths.iter().all(|p| p == path));
        if alone {
            match add_watch(fd, os, MOVES) {
                Ok(again) if again != wd => {
                    // Another directory there since the first call: not the
                    // one recorded (its move is reported by the first).
                    // SAFETY: plain system call on a descriptor just added.
                    unsafe { libc::inotify_rm_watch(fd, again) };
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// The kernel calls of a batch run on a few threads when it is large
    /// (path lookup is most of their cost and runs in parallel); the table
    /// stays locked throughout, as in [`Backend::watch`].
    fn watch_all(&mut self, paths: &[(&Path, &Path)]) -> Vec<notify::Result<()>> {
        let mut table = lock(&self.shared.table);
        table.by_path.reserve(paths.len());
        table.by_wd.reserve(paths.len());
        let fd = self.shared.fd.as_raw_fd();
        let wds = parallel_map(paths, &CancelToken::new(), |(path, os)| {
            add_watch(fd, os, MASK).map_err(|e| e.set_paths(vec![path.to_path_buf()]))
        });
        paths
            .iter()
            .zip(wds)
            .map(|((path, _), wd)| {
                // `None` only when a worker panicked on a bug.
                let wd = wd.unwrap_or_else(|| {
                    Err(notify::Error::generic("watch not added").add_path(path.to_path_buf()))
                })?;
                self.record(&mut table, path, wd);
                Ok(())
            })
            .collect()
    }

    /// Read what the kernel holds now (without blocking) and take it with
    /// whatever the reader thread queued and nobody took yet, in order.
    fn drain(&mut self) -> Vec<notify::Result<Event>> {
        let mut queue = lock(&self.shared.queue);
        read_available(&self.shared, &mut queue);
        std::mem::take(&mut queue.events)
    }

    /// Nothing to do path by path: dropping the instance closes its
    /// descriptor, which removes every watch at once (without an event per
    /// watch for the reader).
    fn unwatch_all(&mut self, _paths: &[&Path]) {}

    fn unwatch(&mut self, path: &Path) -> notify::Result<()> {
        let mut table = lock(&self.shared.table);
        if !table.by_path.contains_key(path) {
            return Err(notify::Error::watch_not_found().add_path(path.to_path_buf()));
        }
        if let Some(wd) = table.forget(path) {
            // SAFETY: plain system call. It fails harmlessly when the kernel
            // already dropped the watch (directory deleted).
            unsafe { libc::inotify_rm_watch(self.shared.fd.as_raw_fd(), wd) };
        }
        Ok(())
    }
}

impl Drop for Inotify {
    /// Stops the reader, then closes the inotify descriptor (its last owner),
    /// which removes every watch at once.
    fn drop(&mut self) {
        let one: u64 = 1;
        // SAFETY: writes 8 bytes from a live u64 to our eventfd.
        unsafe {
            libc::write(
                self.stop.as_raw_fd(),
                (&one as *const u64).cast(),
                std::mem::size_of::<u64>(),
            )
        };
        if let Some(reader) = self.reader.take() {
            let _ = reader.join();
        }
    }
}

/// Wait for the descriptor to become readable (or the stop signal); queue
/// what it holds and wake the event thread, until stopped.
fn read_loop(shared: &Shared, stop: &OwnedFd, tx: &Sender<Msg>) {
    loop {
        let mut fds = [
            libc::pollfd {
                fd: shared.fd.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            },
            libc::pollfd {
                fd: stop.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            },
        ];
        // SAFETY: two initialised pollfd structs.
        let ready = unsafe { libc::poll(fds.as_mut_ptr(), 2, -1) };
        if ready < 0 {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            let _ = tx.send(Msg::Fs(Err(notify::Error::io(e))));
            return;
        }
        if fds[1].revents != 0 {
            return;
        }
        let (queued, broken) = {
            let mut queue = lock(&shared.queue);
            let broken = !read_available(shared, &mut queue);
            (!queue.events.is_empty(), broken)
        };
        // A lookup may have drained the descriptor first: then there is
        // nothing to tell.
        if queued && tx.send(Msg::Kick).is_err() {
            return;
        }
        if broken {
            return;
        }
    }
}

/// Read every event the descriptor holds now, without blocking, into the
/// queue. Returns `false` when the descriptor failed (the error is queued).
fn read_available(shared: &Shared, queue: &mut Queue) -> bool {
    let Queue { buf, events } = queue;
    loop {
        // SAFETY: reads into our own buffer, at most its length.
        let n = unsafe { libc::read(shared.fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
        if n < 0 {
            let e = io::Error::last_os_error();
            match e.kind() {
                io::ErrorKind::Interrupted => continue,
                io::ErrorKind::WouldBlock => return true,
                _ => {
                    events.push(Err(notify::Error::io(e)));
                    return false;
                }
            }
        }
        let n = usize::try_from(n).unwrap_or(0);
        if n == 0 {
            return true;
        }
        events.extend(parse(&buf[..n], &shared.table).into_iter().map(Ok));
    }
}

fn u32_at(buf: &[u8], at: usize) -> u32 {
    let mut word = [0u8; 4];
    if let Some(bytes) = buf.get(at..at + 4) {
        word.copy_from_slice(bytes);
    }
    u32::from_ne_bytes(word)
}

/// Turn a buffer of `struct inotify_event`s into notify events.
fn parse(buf: &[u8], table: &Mutex<Table>) -> Vec<Event> {
    let mut events = Vec::new();
    let mut at = 0;
    while at + HEADER <= buf.len() {
        let wd = u32_at(buf, at) as i32;
        let mask = u32_at(buf, at + 4);
        let len = u32_at(buf, at + 12) as usize;
        let name_bytes = buf.get(at + HEADER..at + HEADER + len).unwrap_or(&[]);
        at += HEADER + len;
        let name_len = name_bytes
            .iter()
            .position(|&b| b == 0)
            .unwrap_or(name_bytes.len());
        let name = OsStr::from_bytes(&name_bytes[..name_len]);

        if mask & libc::IN_Q_OVERFLOW != 0 {
            events.push(Event::new(EventKind::Other).set_flag(Flag::Rescan));
            continue;
        }
        let bases = {
            let mut table = lock(table);
            if mask & libc::IN_IGNORED != 0 {
                // The kernel dropped the watch (directory deleted, or removed).
                if let Some(paths) = table.by_wd.remove(&wd) {
                    for path in paths {
                        if table.by_path.get(&path) == Some(&wd) {
                            table.by_path.remove(&path);
                        }
                    }
                }
                continue;
            }
            match table.by_wd.get(&wd) {
                Some(paths) => paths.clone(),
                None => continue,
            }
        };
        for base in bases {
            let path = if name.is_empty() {
                base
            } else {
                base.join(name)
            };
            kinds(mask, &mut |kind| {
                events.push(Event::new(kind).add_path(path.clone()))
            });
        }
    }
    events
}

/// The notify event kinds of one inotify mask, in the order notify reports them.
fn kinds(mask: u32, push: &mut dyn FnMut(EventKind)) {
    let dir = mask & libc::IN_ISDIR != 0;
    if mask & libc::IN_MOVED_FROM != 0 {
        push(EventKind::Modify(ModifyKind::Name(RenameMode::From)));
    } else if mask & libc::IN_MOVED_TO != 0 {
        push(EventKind::Modify(ModifyKind::Name(RenameMode::To)));
    }
    if mask & libc::IN_MOVE_SELF != 0 {
        push(EventKind::Modify(ModifyKind::Name(RenameMode::From)));
    }
    if mask & libc::IN_CREATE != 0 {
        push(EventKind::Create(if dir {
            CreateKind::Folder
        } else {
            CreateKind::File
        }));
    }
    if mask & libc::IN_DELETE != 0 {
        push(EventKind::Remove(if dir {
            RemoveKind::Folder
        } else {
            RemoveKind::File
        }));
    }
    if mask & (libc::IN_DELETE_SELF | libc::IN_UNMOUNT) != 0 {
        push(EventKind::Remove(RemoveKind::Folder));
    }
    if mask & libc::IN_MODIFY != 0 {
        push(EventKind::Modify(ModifyKind::Data(DataChange::Any)));
    }
    if mask & libc::IN_CLOSE_WRITE != 0 {
        push(EventKind::Access(AccessKind::Close(AccessMode::Write)));
    }
    if mask & libc::IN_ATTRIB != 0 {
        push(EventKind::Modify(ModifyKind::Metadata(MetadataKind::Any)));
    }
}
