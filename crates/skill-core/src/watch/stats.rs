//! What the watcher did and when, for diagnostics (the soak tells a late
//! invalidation from a lost one with it): counts, and the moments of the last
//! change noted and the last invalidations, on the monotonic clock Node's
//! `process.hrtime` reads and on the wall clock file times use.

/// A moment on two clocks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stamp {
    /// `CLOCK_MONOTONIC` in nanoseconds on Unix (the clock of Node's
    /// `process.hrtime.bigint()` and `performance.now()`); elsewhere,
    /// nanoseconds since the first stamp the process took.
    pub monotonic_ns: u64,
    /// Wall clock, nanoseconds since the Unix epoch (the clock of file times).
    pub realtime_ns: u64,
}

impl Stamp {
    /// Now, on both clocks.
    pub fn now() -> Self {
        let realtime_ns = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX));
        Self {
            monotonic_ns: monotonic_ns(),
            realtime_ns,
        }
    }
}

#[cfg(unix)]
fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: writes one timespec we own.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    let secs = u64::try_from(ts.tv_sec).unwrap_or(0);
    let nanos = u64::try_from(ts.tv_nsec).unwrap_or(0);
    secs.saturating_mul(1_000_000_000).saturating_add(nanos)
}

#[cfg(not(unix))]
fn monotonic_ns() -> u64 {
    use std::sync::OnceLock;
    use std::time::Instant;
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    let epoch = *EPOCH.get_or_init(Instant::now);
    u64::try_from(epoch.elapsed().as_nanos()).unwrap_or(u64::MAX)
}

/// Counts and moments; see the module docs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WatchStats {
    /// Batches published to `on_change` (listeners notified).
    pub publications: u64,
    /// Of [`Self::publications`], those whose every change lookups had
    /// already applied while catching up (listeners notified, caches not
    /// invalidated a second time).
    pub applied_publications: u64,
    /// Silent invalidations by lookups catching up (read-your-writes).
    pub catch_ups: u64,
    /// When a catalog change was last noted (an event classified, a rescan
    /// that found a difference).
    pub last_change: Option<Stamp>,
    /// When the last publication started (just before `on_change`).
    pub last_publication: Option<Stamp>,
    /// When the last silent invalidation by a lookup started.
    pub last_catch_up: Option<Stamp>,
}
