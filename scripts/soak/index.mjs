// Soak test: hours of harness life compressed into minutes, through the public API.
//
// Each round runs, concurrently for `--churn-ms`:
// - file churn under watch: bundles and flat files created, edited in place and
//   atomically, renamed, moved between roots, hidden, deleted; symlinked bundles;
//   files deeper in bundles; roots (and their parents) removed and recreated;
//   roots that are symbolic links repointed (`ln -sfn`), replaced by
//   directories and back, made links to other roots, chained, their targets
//   and the directories above them moved (scripts/root-moves.mjs);
//   bursts of back-to-back writes; some writes reported by `observeHostMutation`;
// - lookups (`snapshot`, `list`, `get`, aborted lookups) switching between more
//   projects than `watchMaxProjects`;
// - register/dispose cycles: JS providers (some slow, disposed while listing),
//   runtime skills (duplicates included), `onChange` listeners, local providers
//   with watching on (registered and standalone);
// - invalidation storms: `control.invalidate()`, `invalidateProvider` and
//   `observeHostMutation` bursts with lookups in flight.
// Then everything stops and the script measures how long after the last write the
// registry's snapshots match a plain-JS listing of the disk (bound: 100 ms; with
// read-your-writes the first lookups after the last write must already match),
// and checks every other project (at once), a few `get()`s and the warnings
// logged while quiet. A stale catalog is diagnosed with the watcher's own
// stamps (taken in Rust where changes are noted and invalidations happen) and a
// wait without invalidating, which tells a late invalidation from a lost one.
//
// Resource baselines: a warm-up (10 % of the run, at most 60 s) runs the same
// workload, then everything is disposed and the "empty" baseline is sampled (fds,
// inotify watches, watcher threads, RSS). A fresh set of long-lived objects is
// created and lives until the end. Every `--checkpoint-s` seconds the disk is reset
// to one fixed layout, the same projects are looked up, and after a settle + GC the
// "canonical" sample is taken: fds, inotify watches and watcher threads must equal
// the first canonical sample exactly; RSS and the JS heap may move by allocator
// noise, and fail only when the end is above the baseline by more than a tolerance
// *and* the trend over all checkpoints (least squares against operations done)
// projects growth above that tolerance. At the end everything is disposed and the
// empty sample must match the empty baseline.
//
// Known problems (`KNOWN_PROBLEMS` in failures.mjs) are counted and reported but
// do not fail the run unless `--strict` is given; remove an entry once its problem
// is fixed.
//
// Usage: node --expose-gc scripts/soak/index.mjs [--minutes N] [--smoke] [--seed N]
//        [--churn-ms N] [--checkpoint-s N] [--json FILE] [--keep] [--strict]
// (`npm run soak -- --smoke` for a 30 s check.) Exits 1 when a check fails.
//
// The rooms of this folder, each by its job (imports go one way, no cycles):
// - config.mjs       options (the command line), bounds and fixed sizes;
// - random.mjs       the seeded generator every random choice goes through;
// - state.mjs        the mutable state every module shares (counters, failures,
//                    warnings by kind, phase, sequence numbers, the run's clock);
// - failures.mjs     `fail`, the process handlers, expected warning kinds, the
//                    known problems, the loggers;
// - disk.mjs         the fixture world on disk: roots, skill files, the fixed layout;
// - expected.mjs     the plain-JS listing of the disk and the expected catalog;
// - resources.mjs    /proc probes: fds, inotify watches, threads, run-queue waits;
// - world.mjs        the long-lived registry, providers, runtime skills, listeners;
// - churn.mjs        file churn under watch;
// - workload.mjs     lookups, invalidation storms, register/dispose cycles;
// - convergence.mjs  convergence after churn, staleness diagnosis, quiet checks;
// - rounds.mjs       a round, and a checkpoint's canonical sample;
// - report.mjs       the verdict, the printed and the JSON report;
// - index.mjs        this entry: warm-up, baselines, the measured rounds, checkpoints.
import fs from 'node:fs'
import os from 'node:os'

import { args, CHECKPOINT_MS, CHURN_MS, DURATION_MS, MINUTES, SEED, SETTLE_MS, WARMUP_MS } from './config.mjs'
import { base, resetDisk } from './disk.mjs'
import { fail } from './failures.mjs'
import { fmtMb, fmtMs, quantile, report } from './report.mjs'
import { sample, settleAndCollect } from './resources.mjs'
import { canonicalSample, runRound } from './rounds.mjs'
import { clock, convergence, elapsed, failures, now, state, totalOps } from './state.mjs'
import { createWorld } from './world.mjs'

state.startedAt = now()
const loadAtStart = os.loadavg()
console.log(
  `soak: ${MINUTES} min (warm-up ${(WARMUP_MS / 1000).toFixed(0)} s), churn ${CHURN_MS} ms per round, ` +
    `checkpoint every ${CHECKPOINT_MS / 1000} s, seed ${SEED}, ${os.cpus().length} cores, ` +
    `load average ${loadAtStart.map((l) => l.toFixed(1)).join(' ')}; files in ${base}`,
)

const checkpoints = []
let emptyBase
let emptyEnd
let aborted
try {
  resetDisk()
  // Warm-up: the same workload with throwaway long-lived objects.
  let world = createWorld()
  while (elapsed() < WARMUP_MS) await runRound(world, { measured: false })
  await world.dispose()
  world = undefined
  state.phase = 'quiet'
  await settleAndCollect()
  emptyBase = sample('empty baseline')
  console.log(`[${clock()}] warm-up done (${state.roundNo} rounds); empty baseline: fds ${emptyBase.fds}, watches ${emptyBase.watches}, rss ${fmtMb(emptyBase.rss)}`)

  world = createWorld()
  checkpoints.push(await canonicalSample(world, 'baseline'))
  let nextCheckpoint = elapsed() + CHECKPOINT_MS
  const reserve = CHURN_MS + 3 * SETTLE_MS
  while (elapsed() + reserve < DURATION_MS) {
    await runRound(world, { measured: true })
    if (elapsed() >= nextCheckpoint || elapsed() + reserve >= DURATION_MS) {
      const s = await canonicalSample(world, `checkpoint ${checkpoints.length}`)
      checkpoints.push(s)
      nextCheckpoint = elapsed() + CHECKPOINT_MS
      const b = checkpoints[0]
      const times = convergence.map((c) => c.ms).sort((x, y) => x - y)
      console.log(
        `[${clock()}] round ${state.roundNo}: ops ${totalOps()} · convergence p50 ${fmtMs(quantile(times, 0.5))} max ${fmtMs(times.at(-1))} · ` +
          `rss ${fmtMb(s.rss)} (base ${fmtMb(b.rss)}) · heap ${fmtMb(s.heapUsed)} (${fmtMb(b.heapUsed)}) · ` +
          `fds ${s.fds} (${b.fds}) · watches ${s.watches} (${b.watches}) · load ${os.loadavg()[0].toFixed(1)} · failures ${[...failures.values()].reduce((n, f) => n + f.count, 0)}`,
      )
    }
  }
  await world.dispose()
  world = undefined
  state.phase = 'quiet'
  await settleAndCollect()
  emptyEnd = sample('empty end')
} catch (error) {
  aborted = error
  fail('soak aborted', error?.stack ?? error)
}

const passed = report({ loadAtStart, checkpoints, emptyBase, emptyEnd, aborted })
if (!args.keep) fs.rmSync(base, { recursive: true, force: true })
process.exit(passed ? 0 : 1)
