//! Work spread over a few short-lived threads, one CPU each.
//!
//! Discovery reads and parses a few thousand small files: work for every
//! core the process may use, for a few milliseconds. Where the threads run
//! decides how long it takes. The thread that asks is often one that slept
//! until then (a libuv pool thread, woken for the lookup), and a scheduler
//! sees two new, mostly idle threads as work worth packing onto one CPU: the
//! two then take turns there while another CPU idles, and the pass takes
//! twice as long (seen on a 2-CPU VM: each worker ran 60 % of the time it
//! existed, on the same CPU as the other). So on Linux each worker is pinned
//! to a CPU of its own among those the thread may use, for its short life;
//! the thread that asked only waits. Items are handed out one at a time, so
//! a worker whose CPU is busy with something else just takes fewer of them.
//!
//! Nothing else is pinned, and nothing is when the process may use a single
//! CPU or the pin fails (a sandbox that forbids it): the workers then run
//! where the scheduler puts them.

use crate::cancel::CancelToken;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

/// Threads used at most (the CPUs the process may use, at most 8).
pub(crate) fn parallelism() -> usize {
    static CORES: OnceLock<usize> = OnceLock::new();
    *CORES.get_or_init(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
            .min(8)
    })
}

/// Items handled by one worker before another thread is worth spawning.
const ITEMS_PER_WORKER: usize = 16;

/// `f` over every item on up to [`parallelism`] threads (more only when there
/// is enough work). `None` for an item left unprocessed (cancelled, or a
/// worker that panicked on a bug). Items are handed out one at a time, so a
/// worker the OS could not start costs parallelism, never an item.
pub(crate) fn parallel_map<T: Sync, R: Send>(
    items: &[T],
    cancel: &CancelToken,
    f: impl Fn(&T) -> R + Sync,
) -> Vec<Option<R>> {
    parallel_map_by(items, cancel, ITEMS_PER_WORKER, f)
}

/// [`parallel_map`] with another thread for each `per_worker` items.
pub(crate) fn parallel_map_by<T: Sync, R: Send>(
    items: &[T],
    cancel: &CancelToken,
    per_worker: usize,
    f: impl Fn(&T) -> R + Sync,
) -> Vec<Option<R>> {
    let workers = parallelism()
        .min(items.len().div_ceil(per_worker.max(1)))
        .max(1);
    let mut outcomes: Vec<Option<R>> = Vec::new();
    outcomes.resize_with(items.len(), || None);
    let next = AtomicUsize::new(0);
    let work = |out: &mut Vec<(usize, R)>| loop {
        if cancel.is_cancelled() {
            break;
        }
        let i = next.fetch_add(1, Ordering::Relaxed);
        let Some(item) = items.get(i) else { break };
        out.push((i, f(item)));
    };
    let mut results: Vec<Vec<(usize, R)>> = Vec::new();
    if workers <= 1 {
        let mut out = Vec::with_capacity(items.len());
        work(&mut out);
        results.push(out);
    } else {
        let cpus = placement::cpus_for(workers);
        results = std::thread::scope(|s| {
            let handles: Vec<_> = (0..workers)
                .filter_map(|k| {
                    let cpu = cpus.get(k).copied();
                    std::thread::Builder::new()
                        .spawn_scoped(s, move || {
                            if let Some(cpu) = cpu {
                                placement::pin_to(cpu);
                            }
                            let mut out = Vec::new();
                            work(&mut out);
                            out
                        })
                        .ok()
                })
                .collect();
            let mut all = Vec::with_capacity(workers + 1);
            if handles.len() < workers {
                // A worker could not be started: this thread stands in.
                let mut mine = Vec::new();
                work(&mut mine);
                all.push(mine);
            }
            for h in handles {
                // A worker only panics on a bug; its items stay unprocessed.
                if let Ok(out) = h.join() {
                    all.push(out);
                }
            }
            all
        });
    }
    for (i, o) in results.into_iter().flatten() {
        outcomes[i] = Some(o);
    }
    outcomes
}

#[cfg(target_os = "linux")]
mod placement {
    /// A CPU for each of `workers` threads, starting with the one this
    /// thread runs on (its caches are warm): distinct CPUs among those this
    /// thread may use. Empty when there are fewer of those than workers.
    pub(super) fn cpus_for(workers: usize) -> Vec<usize> {
        // SAFETY: `cpu_set_t` is plain data; all zeros is the empty set.
        let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        // SAFETY: `set` is a valid, writable `cpu_set_t` of the size given.
        let got =
            unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) };
        if got != 0 {
            return Vec::new();
        }
        let allowed: Vec<usize> = (0..libc::CPU_SETSIZE as usize)
            // SAFETY: `cpu` is below `CPU_SETSIZE`, within `set`.
            .filter(|&cpu| unsafe { libc::CPU_ISSET(cpu, &set) })
            .collect();
        if allowed.len() < workers.max(2) {
            return Vec::new();
        }
        // SAFETY: no arguments; returns -1 on failure.
        let here = unsafe { libc::sched_getcpu() };
        let start = usize::try_from(here)
            .ok()
            .and_then(|here| allowed.iter().position(|&cpu| cpu == here))
            .unwrap_or(0);
        allowed
            .iter()
            .cycle()
            .skip(start)
            .take(workers)
            .copied()
            .collect()
    }

    /// Pin the calling thread to `cpu`, if the system lets it.
    pub(super) fn pin_to(cpu: usize) {
        // SAFETY: as above; `cpu` came from `cpus_for`, below `CPU_SETSIZE`.
        unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            libc::CPU_SET(cpu, &mut set);
            // A failure leaves the thread where the scheduler puts it.
            let _ = libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set);
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod placement {
    pub(super) fn cpus_for(_workers: usize) -> Vec<usize> {
        Vec::new()
    }

    pub(super) fn pin_to(_cpu: usize) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_item_is_mapped_once_in_order() {
        let items: Vec<usize> = (0..1000).collect();
        let out = parallel_map(&items, &CancelToken::new(), |&i| i * 2);
        assert_eq!(out.len(), items.len());
        for (i, o) in out.into_iter().enumerate() {
            assert_eq!(o, Some(i * 2));
        }
    }

    #[test]
    fn a_cancelled_map_leaves_items_unprocessed() {
        let items: Vec<usize> = (0..100).collect();
        let cancel = CancelToken::new();
        cancel.cancel();
        let out = parallel_map(&items, &cancel, |&i| i);
        assert!(out.iter().all(Option::is_none));
    }

    #[test]
    fn a_worker_that_panics_leaves_its_items_unprocessed() {
        if parallelism() == 1 {
            eprintln!("skipped: one CPU, so the map runs on the calling thread");
            return;
        }
        let items: Vec<usize> = (0..200).collect();
        let out = parallel_map(&items, &CancelToken::new(), |&i| {
            assert!(i != 7, "a bug in one item");
            i
        });
        assert_eq!(out[7], None);
        // The other worker's items are there.
        assert!(out.iter().flatten().count() > 0);
    }

    /// Each worker stays on a CPU of its own, whatever the scheduler would
    /// prefer: the point of the module.
    #[cfg(target_os = "linux")]
    #[test]
    fn workers_run_on_distinct_cpus_when_there_are_several() {
        use std::collections::{BTreeSet, HashMap};
        let workers = parallelism();
        if placement::cpus_for(workers).is_empty() {
            eprintln!("skipped: this thread may use one CPU only");
            return;
        }
        let items: Vec<usize> = (0..workers * ITEMS_PER_WORKER * 8).collect();
        let out = parallel_map(&items, &CancelToken::new(), |_| {
            // Enough work per item that every worker takes some, and
            // that a scheduler packing them onto one CPU would show.
            let until = std::time::Instant::now() + std::time::Duration::from_micros(200);
            while std::time::Instant::now() < until {
                std::hint::spin_loop();
            }
            // SAFETY: no arguments.
            (std::thread::current().id(), unsafe { libc::sched_getcpu() })
        });
        let mut cpus_of: HashMap<_, BTreeSet<i32>> = HashMap::new();
        for (thread, cpu) in out.into_iter().flatten() {
            cpus_of.entry(thread).or_default().insert(cpu);
        }
        assert_eq!(
            cpus_of.len(),
            workers,
            "every worker took items: {cpus_of:?}"
        );
        let mut used: BTreeSet<i32> = BTreeSet::new();
        for cpus in cpus_of.values() {
            assert_eq!(cpus.len(), 1, "a worker moved between CPUs: {cpus_of:?}");
            used.extend(cpus);
        }
        assert_eq!(used.len(), workers, "two workers shared a CPU: {cpus_of:?}");
    }
}
