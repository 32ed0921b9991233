//! The OS watch layer behind a two-method trait: on Linux, inotify driven
//! directly (see `inotify.rs`); elsewhere a `notify` watcher (FSEvents,
//! ReadDirectoryChanges); everywhere, notify's polling fallback on request. All
//! of them report `notify` events and errors; their errors are mapped to
//! actionable messages here.

use super::WatchConfig;
use notify::{Config, ErrorKind, Event, PollWatcher, RecommendedWatcher, RecursiveMode, Watcher};
use std::path::Path;
use std::sync::mpsc::Sender;

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
pub(super) trait Backend: Send {
    fn watch(&mut self, path: &Path) -> notify::Result<()>;
    fn unwatch(&mut self, path: &Path) -> notify::Result<()>;
    /// Watch every path; one result per path, in order.
    fn watch_all(&mut self, paths: &[&Path]) -> Vec<notify::Result<()>> {
        paths.iter().map(|path| self.watch(path)).collect()
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

struct Native<W: Watcher + Send>(W);

impl<W: Watcher + Send> Backend for Native<W> {
    fn watch(&mut self, path: &Path) -> notify::Result<()> {
        self.0.watch(path, RecursiveMode::NonRecursive)
    }
    fn unwatch(&mut self, path: &Path) -> notify::Result<()> {
        self.0.unwatch(path)
    }
}

/// Create the OS watcher; its events go to `tx`.
pub(super) fn create(config: &WatchConfig, tx: Sender<Msg>) -> notify::Result<Box<dyn Backend>> {
    #[cfg(target_os = "linux")]
    if !config.use_polling {
        return Ok(Box::new(super::inotify::Inotify::new(tx)?));
    }
    let handler = move |res: notify::Result<Event>| {
        // The receiver is gone only after close(): late events are dropped.
        let _ = tx.send(Msg::Fs(res));
    };
    let base = Config::default().with_follow_symlinks(config.follow_symlinks);
    if config.use_polling {
        // notify's poller compares modification times in whole seconds; comparing
        // contents catches an edit within the same second as the previous one.
        let config = base
            .with_poll_interval(config.poll_interval)
            .with_compare_contents(true);
        Ok(Box::new(Native(PollWatcher::new(handler, config)?)))
    } else {
        Ok(Box::new(Native(RecommendedWatcher::new(handler, base)?)))
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
