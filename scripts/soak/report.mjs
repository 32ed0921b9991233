// The verdict and the report: the resource, convergence and warning checks,
// printed one PASS/FAIL line each after the run's figures; the JSON report.
import fs from 'node:fs'
import os from 'node:os'

import { args, CHECKPOINT_MS, CHURN_MS, CONVERGENCE_BOUND_MS, HEAP_TOLERANCE, MINUTES, RSS_TOLERANCE, SEED, WARMUP_MS } from './config.mjs'
import { KNOWN_PROBLEMS, WARNING_KINDS } from './failures.mjs'
import { convergence, counts, elapsed, failures, state, warningCounts } from './state.mjs'

export const fmtMb = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MB`
export const fmtMs = (ms) => (ms === undefined ? '-' : `${ms.toFixed(1)} ms`)
export const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]

/** Least-squares slope of `value` against operations done, over the canonical samples. */
function slope(samples, key) {
  const n = samples.length
  if (n < 3) return 0
  const mx = samples.reduce((a, s) => a + s.ops, 0) / n
  const my = samples.reduce((a, s) => a + s[key], 0) / n
  let num = 0
  let den = 0
  for (const s of samples) {
    num += (s.ops - mx) * (s[key] - my)
    den += (s.ops - mx) ** 2
  }
  return den === 0 ? 0 : num / den
}

// ---------------------------------------------------------------------------
// Verdict

/**
 * Checks, prints the report, writes the JSON one (`--json`); returns whether the
 * run passed. The arguments are what the entry measured: the load average at the
 * start, the canonical samples, the empty samples before and after, and the
 * error that ended the run early, if any.
 */
export function report({ loadAtStart, checkpoints, emptyBase, emptyEnd, aborted }) {
  const checks = []
  // `info`: reported, never a failure (memory in a smoke run: the allocator needs
  // minutes of the workload to settle, a smoke run's warm-up is seconds).
  const check = (ok, what, detail, info = false) => checks.push({ ok, what, detail, info })

  if (checkpoints.length >= 2 && emptyBase && emptyEnd) {
    const b = checkpoints[0]
    const last = checkpoints.at(-1)
    const span = last.ops - b.ops
    for (const [key, tolerance, label] of [
      ['rss', RSS_TOLERANCE, 'RSS'],
      ['heapUsed', HEAP_TOLERANCE, 'JS heap after GC'],
    ]) {
      const growth = last[key] - b[key]
      const projected = slope(checkpoints, key) * span
      check(
        !(growth > tolerance && projected > tolerance),
        `${label} returns to baseline`,
        `baseline ${fmtMb(b[key])}, end ${fmtMb(last[key])} (growth ${fmtMb(growth)}, trend ${fmtMb(projected)} over ${span} ops; ` +
          `fails only if both exceed ${fmtMb(tolerance)}); min ${fmtMb(Math.min(...checkpoints.map((s) => s[key])))}, max ${fmtMb(Math.max(...checkpoints.map((s) => s[key])))}` +
          (args.smoke ? '; informational in a smoke run' : ''),
        args.smoke,
      )
    }
    const drift = (key) => checkpoints.filter((s) => s[key] !== b[key]).map((s) => `${s.label}: ${s[key]}`)
    check(drift('fds').length === 0, 'open fds equal the baseline at every checkpoint', `baseline ${b.fds} ${JSON.stringify(b.fdTypes)}; end ${last.fds} ${JSON.stringify(last.fdTypes)}${drift('fds').length ? `; drift: ${drift('fds').join(', ')}` : ''}`)
    check(drift('watches').length === 0, 'inotify watches equal the baseline at every checkpoint', `baseline ${b.watches}, end ${last.watches}${drift('watches').length ? `; drift: ${drift('watches').join(', ')}` : ''}`)
    check(drift('watcherThreads').length === 0, 'watcher threads equal the baseline at every checkpoint', `baseline ${b.watcherThreads}, end ${last.watcherThreads}`)
    check(
      emptyEnd.fds === emptyBase.fds && emptyEnd.watches === 0 && emptyEnd.watcherThreads === 0,
      'everything disposed: fds back to the empty baseline, no inotify watch, no watcher thread',
      `fds ${emptyBase.fds} → ${emptyEnd.fds} ${JSON.stringify(emptyEnd.fdTypes)}, watches ${emptyBase.watches} → ${emptyEnd.watches}, ` +
        `watcher threads ${emptyBase.watcherThreads} → ${emptyEnd.watcherThreads}, rss ${fmtMb(emptyBase.rss)} → ${fmtMb(emptyEnd.rss)}`,
    )
  } else check(false, 'resource samples taken', `only ${checkpoints.length} checkpoints (run longer than ${((WARMUP_MS + CHECKPOINT_MS) / 1000).toFixed(0)} s)`)

  // Convergence: the bound is checked per round from the last write; a miss is
  // "explained by load" when, after subtracting the time the JS thread and the
  // watcher thread spent waiting for a CPU (run-queue wait, /proc schedstat), it is
  // within the bound.
  const times = convergence.map((c) => c.ms).sort((x, y) => x - y)
  const misses = convergence.filter((c) => c.ms > CONVERGENCE_BOUND_MS)
  // The lookups' critical path: the JS thread, then a pool thread listing (or,
  // before read-your-writes, the watcher thread publishing).
  const unexplained = misses.filter((c) => c.ms - c.waits.main - Math.max(c.waits.watcher, c.waits.pool) > CONVERGENCE_BOUND_MS)
  check(times.length > 0, 'convergence measured', `${times.length} rounds`)
  const unread = convergence.filter((c) => c.firstStale.length > 0)
  check(
    unread.length === 0,
    'read-your-writes: the first lookups after the last write match the disk',
    unread.length === 0 ? `${convergence.length} rounds` : unread.slice(0, 3).map((c) => `round ${c.round}: ${c.firstStale.slice(0, 2).join('; ')}`).join(' | '),
  )
  if (times.length > 0) {
    check(
      unexplained.length === 0,
      `registry matches the disk within ${CONVERGENCE_BOUND_MS} ms of the last write (CPU run-queue wait excluded)`,
      `n ${times.length}, p50 ${fmtMs(quantile(times, 0.5))}, p90 ${fmtMs(quantile(times, 0.9))}, max ${fmtMs(times.at(-1))}; ` +
        `${misses.length} over ${CONVERGENCE_BOUND_MS} ms, ${misses.length - unexplained.length} of them explained by run-queue wait`,
    )
  }

  for (const kind of WARNING_KINDS.filter((k) => k.deliberate)) {
    const logged = warningCounts.get(kind.kind) ?? 0
    const provoked = counts[kind.deliberate]
    check(logged === provoked, `each deliberate fault logged exactly once: ${kind.kind}`, `provoked ${provoked}, logged ${logged}`)
  }
  for (const name of ['unhandled rejection', 'uncaught exception', 'Node process warning', 'unexpected warning']) {
    check(!failures.has(name), `no ${name}`, `${failures.get(name)?.count ?? 0}`)
  }
  const otherFailures = [...failures].filter(([name]) => !['unhandled rejection', 'uncaught exception', 'Node process warning', 'unexpected warning'].includes(name))
  check(otherFailures.length === 0, 'no failed behaviour check (lookups, stale catalogs, disposal, hangs)', otherFailures.map(([n, f]) => `${n} ×${f.count}`).join('; ') || 'none')

  console.log(`\n=== soak report (${(elapsed() / 60_000).toFixed(1)} min, seed ${SEED}) ===`)
  console.log(`load average: start ${loadAtStart.map((l) => l.toFixed(1)).join(' ')}, end ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} (${os.cpus().length} cores)`)
  console.log(`rounds: ${state.roundNo} (${convergence.length} measured, churn ${CHURN_MS} ms each), checkpoints: ${checkpoints.length}`)
  console.log(`operations: ${Object.entries(counts).map(([k, v]) => `${k} ${v}`).join(', ')}`)
  console.log('warnings by kind:')
  for (const [kind, n] of [...warningCounts].sort((a, b) => b[1] - a[1])) console.log(`  ${String(n).padStart(8)}  ${kind}`)
  if (convergence.length > 0) {
    const first = convergence.map((c) => c.firstChange).filter((t) => t !== undefined).sort((x, y) => x - y)
    const scans = convergence.map((c) => c.scanMs).sort((x, y) => x - y)
    console.log(
      `convergence after the last write: p50 ${fmtMs(quantile(times, 0.5))}, p90 ${fmtMs(quantile(times, 0.9))}, max ${fmtMs(times.at(-1))} ` +
        `(first change notification p50 ${fmtMs(quantile(first, 0.5))}; plain-JS disk listing p50 ${fmtMs(quantile(scans, 0.5))}, included only when the first poll did not match)`,
    )
    for (const c of misses.slice(0, 10)) {
      console.log(
        `  miss: round ${c.round} ${fmtMs(c.ms)} (first change ${fmtMs(c.firstChange)}, last ${fmtMs(c.lastChange)}, ${c.polls} polls); ` +
          `run-queue wait: JS thread ${fmtMs(c.waits.main)}, watcher ${fmtMs(c.waits.watcher)}, pool/other ${fmtMs(c.waits.pool)}; JS thread busy ${fmtMs(c.waits.mainRun)}; load ${c.load.toFixed(1)}` +
          (c.watcher ? `; meanwhile the watcher published ${c.watcher.publications} (${c.watcher.applied} already applied), lookups caught up ${c.watcher.catchUps}` : ''),
      )
    }
  }
  if (checkpoints.length > 0) {
    console.log('canonical checkpoints: ops, RSS, JS heap used / total, external, fds, inotify watches, watcher threads, threads')
    for (const s of checkpoints) {
      console.log(
        `  ${s.label.padEnd(14)} ${String(s.ops).padStart(9)}  ${fmtMb(s.rss).padStart(9)}  ${fmtMb(s.heapUsed).padStart(8)} / ${fmtMb(s.heapTotal).padStart(8)}  ` +
          `${fmtMb(s.external).padStart(8)}  ${s.fds}  ${s.watches}  ${s.watcherThreads}  ${s.threads}`,
      )
    }
  }
  for (const [name, f] of failures) {
    console.log(`FAILURE ${name} ×${f.count}`)
    for (const s of f.samples) console.log(`    ${s.replace(/\n/g, '\n    ')}`)
  }
  console.log('')
  for (const c of checks) console.log(`${c.ok ? 'PASS' : c.info ? 'INFO' : 'FAIL'}  ${c.what}${c.detail ? ` — ${c.detail}` : ''}`)
  for (const problem of KNOWN_PROBLEMS) {
    const n = warningCounts.get(problem.kind) ?? 0
    const detail = `${n} warnings, ${counts.quietIncompleteLookups} incomplete first lookups while quiet`
    console.log(`${n === 0 ? 'PASS' : args.strict ? 'FAIL' : 'KNOWN'} ${problem.kind.replace(/^known problem: /, '')} — ${detail}${n > 0 && !args.strict ? ' (fails with --strict)' : ''}`)
  }
  const passed = checks.every((c) => c.ok || c.info) && aborted === undefined && !failures.size
  console.log(`\nRESULT: ${passed ? 'PASS' : 'FAIL'}`)

  if (args.json) {
    fs.writeFileSync(
      args.json,
      JSON.stringify(
        { minutes: MINUTES, seed: SEED, churnMs: CHURN_MS, loadAtStart, loadAtEnd: os.loadavg(), rounds: state.roundNo, counts, warnings: Object.fromEntries(warningCounts), convergence, checkpoints, emptyBase, emptyEnd, checks, failures: Object.fromEntries(failures), passed },
        null,
        2,
      ),
    )
  }
  return passed
}
