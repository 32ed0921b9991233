//! Work spread over a few worker threads, one CPU each.
//!
//! Discovery reads and parses a few thousand small files: work for every
//! core the process may use, for a few milliseconds. Where the threads run
//! decides how long it takes. The thread that asks is often one that slept
//! until then (a libuv pool thread, woken for the lookup), and a scheduler
//! may see it and a new helper thread as work worth packing onto one CPU:
//! the two then take turns there while another CPU idles, and the pass takes
//! twice as long (seen on a 2-CPU VM: each worker ran 60 % of the time it
//! existed, on the same CPU as the other).
//!
//! So the work runs on a pool of long-lived worker threads (rayon's), one
//! per CPU the process may use (at most 8), each pinned to a CPU of its own
//! on Linux; the thread that asks waits. Starting threads for each pass cost
//! more (two threads started and joined take ~0.2 ms on that VM, and a new
//! thread's first allocations are slow). Items are handed out one at a time,
//! so a worker whose CPU is busy with something else just takes fewer of
//! them. Nothing is pinned when the process may use a single CPU or the pin
//! fails (a sandbox that forbids it): the workers then run where the
//! scheduler puts them. Without the pool (its threads could not be started)
//! each pass starts its own threads, pinned the same way.

use crate::cancel::CancelToken;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock, PoisonError};

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

/// Items handled by one worker before another thread is worth using.
const ITEMS_PER_WORKER: usize = 16;

/// The worker threads, started on first use; `None` when they could not be.
fn pool() -> Option<&'static rayon_core::ThreadPool> {
    static POOL: OnceLock<Option<rayon_core::ThreadPool>> = OnceLock::new();
    POOL.get_or_init(|| {
        let cpus = placement::cpus_for(parallelism());
        rayon_core::ThreadPoolBuilder::new()
            .num_threads(parallelism())
            .thread_name(|i| format!("skill-worker-{i}"))
            .start_handler(move |i| {
                if let Some(&cpu) = cpus.get(i) {
                    placement::pin_to(cpu);
                }
            })
            .build()
            .map_err(|e| tracing::debug!(error = %e, "skill worker threads not started"))
            .ok()
    })
    .as_ref()
}

/// Where a map that needs more than one thread runs.
#[derive(Clone, Copy)]
enum Runner {
    /// On the pool's threads (started then if they were not; on threads
    /// started for it if they cannot be).
    Pool,
    /// On threads started for it (what happens without the pool; tests
    /// choose it).
    #[cfg(test)]
    Threads,
}

/// `f` over every item on up to [`parallelism`] threads (more only when there
/// is enough work). `None` for an item left unprocessed (cancelled, or a
/// worker that panicked on a bug). Items are handed out one at a time, so a
/// worker that could not start costs parallelism, never an item.
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
    map_on(Runner::Pool, items, cancel, per_worker, &stateless(f))
}

/// [`parallel_map`] where each worker carries a state of its own: `start`
/// makes it, `map` maps an item with it, `end` takes it when the worker has
/// no item left (not after a panic).
pub(crate) fn parallel_map_with<T: Sync, R: Send, S>(
    items: &[T],
    cancel: &CancelToken,
    start: impl Fn() -> S + Sync,
    map: impl Fn(&mut S, &T) -> R + Sync,
    end: impl Fn(S) + Sync,
) -> Vec<Option<R>> {
    let each = Each { start, map, end };
    map_on(Runner::Pool, items, cancel, ITEMS_PER_WORKER, &each)
}

/// What each worker does: see [`parallel_map_with`].
struct Each<A, M, E> {
    start: A,
    map: M,
    end: E,
}

/// Each worker maps with `f` alone.
fn stateless<T, R>(
    f: impl Fn(&T) -> R + Sync,
) -> Each<impl Fn() + Sync, impl Fn(&mut (), &T) -> R + Sync, impl Fn(()) + Sync> {
    Each {
        start: || (),
        map: move |_: &mut (), item: &T| f(item),
        end: |()| {},
    }
}

fn map_on<T: Sync, R: Send, S>(
    runner: Runner,
    items: &[T],
    cancel: &CancelToken,
    per_worker: usize,
    each: &Each<impl Fn() -> S + Sync, impl Fn(&mut S, &T) -> R + Sync, impl Fn(S) + Sync>,
) -> Vec<Option<R>> {
    let workers = parallelism()
        .min(items.len().div_ceil(per_worker.max(1)))
        .max(1);
    let next = AtomicUsize::new(0);
    let work = |out: &mut Vec<(usize, R)>| {
        let mut state = (each.start)();
        loop {
            if cancel.is_cancelled() {
                break;
            }
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(item) = items.get(i) else { break };
            out.push((i, (each.map)(&mut state, item)));
        }
        (each.end)(state);
    };
    let results = if workers <= 1 {
        let mut out = Vec::with_capacity(items.len());
        work(&mut out);
        vec![out]
    } else {
        match (runner, pool()) {
            (Runner::Pool, Some(pool)) => on_pool(pool, workers, &work),
            _ => on_threads(workers, &work),
        }
    };
    let mut outcomes: Vec<Option<R>> = Vec::new();
    outcomes.resize_with(items.len(), || None);
    for (i, o) in results.into_iter().flatten() {
        outcomes[i] = Some(o);
    }
    outcomes
}

/// `work` run by `workers` jobs on the pool; what each job that did not
/// panic produced.
fn on_pool<R: Send>(
    pool: &rayon_core::ThreadPool,
    workers: usize,
    work: &(impl Fn(&mut Vec<R>) + Sync),
) -> Vec<Vec<R>> {
    let done = Mutex::new(Vec::with_capacity(workers));
    pool.scope(|s| {
        for _ in 0..workers {
            s.spawn(|_| {
                let mut out = Vec::new();
                // A worker only panics on a bug; its items stay unprocessed.
                if std::panic::catch_unwind(AssertUnwindSafe(|| work(&mut out))).is_ok() {
                    done.lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .push(out);
                }
            });
        }
    });
    done.into_inner().unwrap_or_else(PoisonError::into_inner)
}

/// `work` run by `workers` threads started for it, each pinned to a CPU of
/// its own; this thread stands in for one that could not be started.
fn on_threads<R: Send>(workers: usize, work: &(impl Fn(&mut Vec<R>) + Sync)) -> Vec<Vec<R>> {
    let cpus = placement::cpus_for(workers);
    std::thread::scope(|s| {
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
    })
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
    use std::collections::{BTreeSet, HashMap};

    /// Both ways a map can run.
    fn runners() -> Vec<(&'static str, Runner)> {
        assert!(pool().is_some(), "the worker threads start");
        vec![("pool", Runner::Pool), ("threads", Runner::Threads)]
    }

    #[test]
    fn every_item_is_mapped_once_in_order() {
        for (name, runner) in runners() {
            let items: Vec<usize> = (0..1000).collect();
            let calls = AtomicUsize::new(0);
            let out = map_on(
                runner,
                &items,
                &CancelToken::new(),
                ITEMS_PER_WORKER,
                &stateless(|&i| {
                    calls.fetch_add(1, Ordering::Relaxed);
                    i * 2
                }),
            );
            assert_eq!(calls.into_inner(), items.len(), "{name}");
            let expected: Vec<_> = items.iter().map(|&i| Some(i * 2)).collect();
            assert_eq!(out, expected, "{name}");
        }
    }

    #[test]
    fn each_worker_ends_with_the_state_it_started_with() {
        for (name, runner) in runners() {
            let items: Vec<usize> = (0..500).collect();
            let ended = Mutex::new(Vec::new());
            let each = Each {
                start: Vec::new,
                map: |seen: &mut Vec<usize>, &i: &usize| {
                    seen.push(i);
                    i
                },
                end: |seen| ended.lock().expect("lock").push(seen),
            };
            let out = map_on(runner, &items, &CancelToken::new(), ITEMS_PER_WORKER, &each);
            assert!(out.iter().all(Option::is_some), "{name}");
            let mut all: Vec<usize> = ended.into_inner().expect("lock").concat();
            all.sort_unstable();
            assert_eq!(
                all, items,
                "{name}: every item went through one worker's state"
            );
        }
    }

    #[test]
    fn a_cancelled_map_leaves_items_unprocessed() {
        for (name, runner) in runners() {
            let items: Vec<usize> = (0..100).collect();
            let cancel = CancelToken::new();
            cancel.cancel();
            let out = map_on(
                runner,
                &items,
                &cancel,
                ITEMS_PER_WORKER,
                &stateless(|&i| i),
            );
            assert!(out.iter().all(Option::is_none), "{name}");
        }
    }

    #[test]
    fn a_worker_that_panics_leaves_its_items_unprocessed() {
        if parallelism() == 1 {
            eprintln!("skipped: one CPU, so the map runs on the calling thread");
            return;
        }
        for (name, runner) in runners() {
            let items: Vec<usize> = (0..200).collect();
            let out = map_on(
                runner,
                &items,
                &CancelToken::new(),
                ITEMS_PER_WORKER,
                &stateless(|&i| {
                    assert!(i != 7, "a bug in one item");
                    i
                }),
            );
            assert_eq!(out[7], None, "{name}");
            // The other worker's items are there.
            assert!(out.iter().flatten().count() > 0, "{name}");
        }
    }

    /// Each worker stays on a CPU of its own, whatever the scheduler would
    /// prefer: the point of the module.
    #[cfg(target_os = "linux")]
    #[test]
    fn workers_run_on_distinct_cpus_when_there_are_several() {
        let workers = parallelism();
        if placement::cpus_for(workers).is_empty() {
            eprintln!("skipped: this thread may use one CPU only");
            return;
        }
        for (name, runner) in runners() {
            // Other tests share the pool: a worker busy with their work may
            // leave all of this map's items to another, so a few tries.
            let mut most = 0;
            for _ in 0..5 {
                let items: Vec<usize> = (0..workers * ITEMS_PER_WORKER * 8).collect();
                let out = map_on(
                    runner,
                    &items,
                    &CancelToken::new(),
                    ITEMS_PER_WORKER,
                    &stateless(|_| {
                        // Enough work per item that every worker takes some, and
                        // that a scheduler packing them onto one CPU would show.
                        let until =
                            std::time::Instant::now() + std::time::Duration::from_micros(200);
                        while std::time::Instant::now() < until {
                            std::hint::spin_loop();
                        }
                        // SAFETY: no arguments.
                        (std::thread::current().id(), unsafe { libc::sched_getcpu() })
                    }),
                );
                let mut cpus_of: HashMap<_, BTreeSet<i32>> = HashMap::new();
                for (thread, cpu) in out.into_iter().flatten() {
                    cpus_of.entry(thread).or_default().insert(cpu);
                }
                let mut used: BTreeSet<i32> = BTreeSet::new();
                for cpus in cpus_of.values() {
                    assert_eq!(
                        cpus.len(),
                        1,
                        "{name}: a worker moved between CPUs: {cpus_of:?}"
                    );
                    used.extend(cpus);
                }
                assert_eq!(
                    used.len(),
                    cpus_of.len(),
                    "{name}: two workers shared a CPU: {cpus_of:?}"
                );
                most = most.max(cpus_of.len());
                if most == workers {
                    break;
                }
            }
            assert_eq!(most, workers, "{name}: never did every worker take items");
        }
    }
}
