//! The OS watch layer behind a two-method trait: on Linux, inotify driven
//! directly (see `inotify.rs`); elsewhere a `notify` watcher (FSEvents,
//! ReadDirectoryChanges); everywhere, notify's polling fallback on request. All
//! of them report `notify` events and errors; their errors are mapped to
//! actionable messages here.

use super::WatchConfig;
use notify::{Config, ErrorKind, Event, PollWatcher, RecommendedWatcher, RecursiveMode, Watcher};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex, MutexGuard};

/// What the event thread receives.
pub(super) enum Msg {
    /// An event (or an error) from the OS watcher.
    Fs(notify::Result<Event>),
    /// Something changed outside the event thread (new deadlines, events
    /// queued by the backend): take queued events, recompute timers.
    Kick,
    /// Stop the event thread.
    Stop,
}

/// Adds and removes non-recursive watches on directories.
///
/// A directory is watched as `path` (what the engine knows it by, and the
/// path its events are reported under) through `os`, the path handed to the
/// OS (see the engine's `os_path`: a root's real path, say).
pub(super) trait Backend: Send {
    fn watch(&mut self, path: &Path, os: &Path) -> notify::Result<()>;
    fn unwatch(&mut self, path: &Path) -> notify::Result<()>;
    /// Watch only for `path` itself moving or going away (an ancestor of a
    /// root: the watches below it follow a move, see the engine's `above`
    /// role). Where the OS cannot watch that narrowly, nothing is watched:
    /// a whole-directory watch of `/home` would report every file there.
    fn watch_moves(&mut self, path: &Path, os: &Path) -> notify::Result<()> {
        let _ = (path, os);
        Ok(())
    }
    /// Watch every `(path, os)`; one result per pair, in order.
    fn watch_all(&mut self, paths: &[(&Path, &Path)]) -> Vec<notify::Result<()>> {
        paths
            .iter()
            .map(|(path, os)| self.watch(path, os))
            .collect()
    }
    /// Events the backend queued instead of sending them as [`Msg::Fs`],
    /// after reading, without blocking, what the OS holds right now (Linux
    /// inotify). Backends that send every event as a message return nothing.
    fn drain(&mut self) -> Vec<notify::Result<Event>> {
        Vec::new()
    }
    /// Stop watching every path: the backend is dropped right after. Once
    /// the drop returns, no OS watch is left.
    fn unwatch_all(&mut self, paths: &[&Path]) {
        for path in paths {
            let _ = self.unwatch(path);
        }
    }
}

/// Where each OS path's events go: the paths the engine watches it as.
type Routes = Arc<Mutex<HashMap<PathBuf, Vec<PathBuf>>>>;

fn routes(routes: &Routes) -> MutexGuard<'_, HashMap<PathBuf, Vec<PathBuf>>> {
    routes.lock().unwrap_or_else(|e| e.into_inner())
}

/// Report `event` under the paths the engine watches: an OS path, or an
/// entry of one, becomes the same under each path watched through it.
fn reroute(routes: &Routes, mut event: Event) -> Event {
    let table = self::routes(routes);
    if table.is_empty() {
        return event;
    }
    let mut paths = Vec::with_capacity(event.paths.len());
    for path in event.paths.drain(..) {
        if let Some(watched) = table.get(&path) {
            paths.extend(watched.iter().cloned());
        } else if let (Some(dir), Some(name)) = (path.parent(), path.file_name()) {
            match table.get(dir) {
                Some(watched) => paths.extend(watched.iter().map(|w| w.join(name))),
                None => paths.push(path),
            }
        } else {
            paths.push(path);
        }
    }
    event.paths = paths;
    event
}

struct Native<W: Watcher + Send> {
    watcher: W,
    /// OS path of each watched path (when they differ).
    os: HashMap<PathBuf, PathBuf>,
    routes: Routes,
}

impl<W: Watcher + Send> Backend for Native<W> {
    fn watch(&mut self, path: &Path, os: &Path) -> notify::Result<()> {
        self.watcher.watch(os, RecursiveMode::NonRecursive)?;
        if path != os {
            self.os.insert(path.to_path_buf(), os.to_path_buf());
            let mut routes = routes(&self.routes);
            let watched = routes.entry(os.to_path_buf()).or_default();
            if !watched.iter().any(|w| w == path) {
                watched.push(path.to_path_buf());
            }
        }
        Ok(())
    }
    fn unwatch(&mut self, path: &Path) -> notify::Result<()> {
        let Some(os) = self.os.remove(path) else {
            return self.watcher.unwatch(path);
        };
        let last = {
            let mut routes = routes(&self.routes);
            let watched = routes.entry(os.clone()).or_default();
            watched.retain(|w| w != path);
            let last = watched.is_empty();
            if last {
                routes.remove(&os);
            }
            last
        };
        if last {
            self.watcher.unwatch(&os)
        } else {
            Ok(())
        }
    }
}

/// Create the OS watcher; its events go to `tx`.
pub(super) fn create(config: &WatchConfig, tx: Sender<Msg>) -> notify::Result<Box<dyn Backend>> {
    #[cfg(target_os = "linux")]
    if !config.use_polling {
        return Ok(Box::new(super::inotify::Inotify::new(tx)?));
    }
    let routes: Routes = Arc::default();
    let handler = {
        let routes = Arc::clone(&routes);
        move |res: notify::Result<Event>| {
            // The receiver is gone only after close(): late events are dropped.
            let _ = tx.send(Msg::Fs(res.map(|event| reroute(&routes, event))));
        }
    };
    let base = Config::default().with_follow_symlinks(config.follow_symlinks);
    if config.use_polling {
        // notify's poller compares modification times in whole seconds; comparing
        // contents catches an edit within the same second as the previous one.
        let config = base
            .with_poll_interval(config.poll_interval)
            .with_compare_contents(true);
        Ok(Box::new(Native {
            watcher: PollWatcher::new(handler, config)?,
            os: HashMap::new(),
            routes,
        }))
    } else {
        Ok(Box::new(Native {
            watcher: RecommendedWatcher::new(handler, base)?,
            os: HashMap::new(),
            routes,
        }))
    }
}

#[cfg(target_os = "linux")]
const EMFILE: i32 = 24;
#[cfg(target_os = "linux")]
const ENOSPC: i32 = 28;

/// An actionable message for a watch that could not start. `path` is `None` when
/// the watcher itself could not be created.
pub(super) fn describe(err: &notify::Error, path: Option<&Path>) -> String {
    let what = match path {
        Some(path) => format!("cannot watch skill directory {}", path.display()),
        None => "cannot start the skill directory watcher".to_string(),
    };
    let tail = "skills still load, but discovery is reported incomplete until the watch starts (retried automatically)";
    match &err.kind {
        ErrorKind::MaxFilesWatch => format!(
            "{what}: the inotify watch limit is reached; raise fs.inotify.max_user_watches \
             (e.g. `sysctl fs.inotify.max_user_watches=524288`, see inotify(7)); {tail}"
        ),
        ErrorKind::Io(io) if io.kind() == std::io::ErrorKind::PermissionDenied => {
            format!("{what}: permission denied; {tail}")
        }
        #[cfg(target_os = "linux")]
        ErrorKind::Io(io) if io.raw_os_error() == Some(ENOSPC) => format!(
            "{what}: the inotify watch limit is reached; raise fs.inotify.max_user_watches \
             (e.g. `sysctl fs.inotify.max_user_watches=524288`, see inotify(7)); {tail}"
        ),
        #[cfg(target_os = "linux")]
        ErrorKind::Io(io) if io.raw_os_error() == Some(EMFILE) => format!(
            "{what}: too many inotify instances or open files; raise fs.inotify.max_user_instances \
             (see inotify(7)) or the open file limit (`ulimit -n`); {tail}"
        ),
        _ => format!("{what}: {err}; {tail}"),
    }
}

/// The warning for an entry directory that can never be watched under its
/// path (it cannot be named to the system): given once, not retried.
pub(super) fn describe_unwatchable(err: &notify::Error, path: &Path) -> String {
    let reason = match &err.kind {
        ErrorKind::Io(io) => io.to_string(),
        _ => err.to_string(),
    };
    format!(
        "skill directory {} is not watched: its path cannot be used ({reason}); \
         changes inside it are not seen (a rename of it is), the rest of its root is watched",
        path.display()
    )
}
