// After churn: how long until the registry's snapshots match the plain-JS
// listing of the disk, where a stale catalog comes from (the watcher's own
// stamps, a wait without invalidating), and the quiet-phase checks of the other
// cwds and of `get()`.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'

import { CONVERGENCE_DEADLINE_MS } from './config.mjs'
import { projects } from './disk.mjs'
import { diffCatalog, expectedCatalog, summaryKey } from './expected.mjs'
import { fail } from './failures.mjs'
import { pick } from './random.mjs'
import { runQueueWaits, threadStats } from './resources.mjs'
import { counts, now } from './state.mjs'

/**
 * Poll `snapshot()` for each cwd until all match the plain-JS listing of the disk.
 * Times are from `tLast` (the end of the last write).
 */
export async function converge(world, cwds, tLast, threadsAtStop) {
  // The disk is listed after the first poll, so that its cost is not counted when
  // the registry was already right.
  let expected
  let scanMs
  let wake
  world.wake = () => wake?.()
  let polls = 0
  let diffs = []
  let firstStale = []
  const statsAtStop = watchStats(world)
  // What the watcher did meanwhile: publications (and of them, those whose
  // changes lookups had already applied: no invalidation), catch-ups.
  const watcherWork = () => {
    const now = watchStats(world)
    if (!now || !statsAtStop) return undefined
    return {
      publications: now.publications - statsAtStop.publications,
      applied: now.appliedPublications - statsAtStop.appliedPublications,
      catchUps: now.catchUps - statsAtStop.catchUps,
    }
  }
  try {
    for (;;) {
      polls++
      const snapshots = await Promise.all(cwds.map((cwd) => world.registry.snapshot({ cwd })))
      const t = now() - tLast
      if (expected === undefined) {
        const scanStart = now()
        expected = cwds.map((cwd) => expectedCatalog(world, cwd))
        scanMs = now() - scanStart
      }
      const after = world.changeTimes.filter((c) => c > tLast)
      const firstChange = after.length > 0 ? after[0] - tLast : undefined
      const lastChange = after.length > 0 ? after.at(-1) - tLast : undefined
      diffs = snapshots.flatMap((s, i) => diffCatalog(s, expected[i]).map((d) => `${cwds[i] ?? '(no cwd)'}: ${d}`))
      // Read-your-writes: the first lookups start after the last write, so
      // they must show it (an incomplete snapshot is not a stale one).
      if (polls === 1) firstStale = diffs.filter((d) => !d.endsWith(': snapshot incomplete'))
      if (diffs.length === 0) {
        const waits = runQueueWaits(threadsAtStop, threadStats())
        return { ok: true, ms: t, scanMs, polls, firstChange, lastChange, waits, load: os.loadavg()[0], firstStale, watcher: watcherWork() }
      }
      if (t > CONVERGENCE_DEADLINE_MS) return { ok: false, ms: t, scanMs, polls, firstChange, lastChange, diffs, firstStale }
      await new Promise((resolve) => {
        wake = resolve
        setTimeout(resolve, 1)
      })
      wake = undefined
    }
  } finally {
    world.wake = undefined
  }
}

const kNative = Symbol.for('dsh-skill-native.native')
/** CLOCK_MONOTONIC in ms: the clock of the watcher's own stamps. */
const monotonicMs = () => Number(process.hrtime.bigint()) / 1e6
/** The local provider's watch diagnostics (stamped in Rust where things happen), if any. */
function watchStats(world) {
  try {
    return world.local[kNative]?.watchDiagnostics() ?? undefined
  } catch {
    return undefined
  }
}
/** Wait without invalidating anything: longer than any hold of a completed change (storm window, stability threshold). */
const LATE_WAIT_MS = 600

/**
 * Where a stale catalog comes from, appended to the failure:
 * - the newest change on disk behind the differing skills, on the wall clock
 *   file times use, against the watcher's own stamps on the same clock (when it
 *   last noted a change, last published, last caught up for a lookup): a file
 *   changed after the last change noted was never seen by the watcher; noted
 *   but after the last invalidation, noted and not applied;
 * - the local provider listed directly (no registry cache);
 * - the same lookup again;
 * - the same lookup after waiting LATE_WAIT_MS without invalidating anything:
 *   matching then means a late invalidation (a hold or a coalescing window),
 *   still stale means a lost one;
 * - the lookup after invalidating the local provider.
 */
async function staleness(world, cwd, expected, lookupStart) {
  const localOnly = (skills) => skills.filter((s) => s.provider === 'local')
  const wantLocal = localOnly(expected)
  const summarize = (diffs) => (diffs.length === 0 ? 'matches' : `differs (${diffs.length})`)
  try {
    const stats = watchStats(world)
    const snap = await world.registry.snapshot({ cwd })
    const got = new Map(snap.skills.map((s) => [s.name, s]))
    const times = []
    for (const want of wantLocal) {
      const have = got.get(want.name)
      if (have && summaryKey(have) === summaryKey(want)) continue
      for (const base of [want.resourceBase?.path, have?.resourceBase?.path]) {
        if (typeof base !== 'string') continue
        for (const p of [base, path.join(base, 'SKILL.md'), path.dirname(base)]) {
          try {
            const st = fs.statSync(p, { bigint: true })
            times.push(Number(st.ctimeNs > st.mtimeNs ? st.ctimeNs : st.mtimeNs) / 1e6)
          } catch {}
        }
      }
    }
    let timing = ''
    if (stats) {
      const newest = times.length > 0 ? Math.max(...times) : undefined
      const rel = (stamp) => (stamp && newest !== undefined ? `${(newest - stamp.realtimeMs).toFixed(1)} ms` : 'n/a')
      const since = (stamp) => (stamp ? `${(lookupStart - stamp.monotonicMs).toFixed(1)} ms` : 'n/a')
      timing =
        `newest file change vs the watcher's last change noted ${rel(stats.lastChange)}, last publication ${rel(stats.lastPublication)}, ` +
        `last catch-up ${rel(stats.lastCatchUp)} (wall clock, positive = file later); the stale lookup started ${since(stats.lastCatchUp)} after the last catch-up ` +
        `and ${since(stats.lastPublication)} after the last publication (monotonic); publications ${stats.publications}, catch-ups ${stats.catchUps}; `
    }
    const direct = await world.local.list({ cwd })
    const listed = new Map()
    for (const c of direct.candidates) if (!listed.has(c.name)) listed.set(c.name, c)
    const directDiffs = wantLocal.filter((s) => listed.get(s.name)?.description !== s.description)
    const again = diffCatalog(snap, expected)
    await sleep(LATE_WAIT_MS)
    const late = diffCatalog(await world.registry.snapshot({ cwd }), expected)
    world.registry.invalidateProvider(world.local)
    const after = diffCatalog(await world.registry.snapshot({ cwd }), expected)
    return (
      ` [${timing}direct local list: ${summarize(directDiffs)}; same lookup again: ${summarize(again)}; ` +
      `after ${LATE_WAIT_MS} ms without invalidating: ${summarize(late)}${late.length === 0 ? ' (late)' : ' (lost)'}; ` +
      `after invalidating the local provider: ${summarize(after)}]`
    )
  } catch (error) {
    return ` [diagnosis failed: ${error?.message ?? error}]`
  }
}

/**
 * The quiet-phase checks after convergence: every other cwd (the focus projects'
 * `sub` dirs, cached during churn, and the unwatched projects), and `get()`.
 */
export async function verifyQuiet(world, focusCwds) {
  for (const project of projects) {
    for (const cwd of [project, path.join(project, 'sub')]) {
      if (focusCwds.includes(cwd)) continue
      // Cached while watched, or listed afresh: the contents must match at once.
      // Incomplete is retried (see KNOWN_PROBLEMS) until the deadline.
      const expected = expectedCatalog(world, cwd)
      const start = now()
      for (let attempt = 0; ; attempt++) {
        const lookupStart = monotonicMs()
        const diffs = diffCatalog(await world.registry.snapshot({ cwd }), expected)
        const stale = diffs.filter((d) => d !== 'snapshot incomplete')
        if (stale.length > 0) {
          fail('stale catalog while quiet (cwd not polled for convergence)', `${cwd}: ${stale.slice(0, 3).join('; ')}${await staleness(world, cwd, expected, lookupStart)}`)
          break
        }
        if (diffs.length === 0) break
        if (attempt === 0) counts.quietIncompleteLookups++
        if (now() - start > CONVERGENCE_DEADLINE_MS) {
          fail('lookup stays incomplete when quiet', cwd)
          break
        }
        await sleep(5)
      }
    }
  }
  for (const cwd of [projects[0], undefined]) {
    const expected = expectedCatalog(world, cwd)
    for (let i = 0; i < 4 && expected.length > 0; i++) {
      const want = pick(expected)
      const got = await world.registry.get(want.name, { cwd })
      const content = want.content ?? `body of ${want.name}`
      if (!got || got.description !== want.description || got.content !== content) {
        fail('get() does not match the disk when quiet', `${want.name} (cwd ${cwd}): ${JSON.stringify(got)?.slice(0, 200)}`)
      }
    }
  }
}
