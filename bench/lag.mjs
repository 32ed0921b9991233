// An event-loop lag probe that says what each stall was. A 1 ms interval
// timer notes when it runs; a stall is the gap between two runs less the
// interval. For the longest one it reports, on the one clock of
// performance.now():
//
// - `running`: how long the JS thread ran on a CPU during the gap, and
//   `waiting`: how long it was ready to run but waited for a CPU (Linux:
//   /proc/self/schedstat, the main thread's run and run-queue times; null
//   elsewhere). A stall that is mostly `waiting` is the machine's load, not
//   work on the JS thread;
// - `gc`: how much of it garbage collections took (ms, from a
//   PerformanceObserver of 'gc' entries). The incremental marking steps of
//   a major collection, which V8 runs on the JS thread as it allocates, are
//   not among them: they count as `running` (`node --trace-gc` shows them).
import fs from 'node:fs'
import { constants, performance, PerformanceObserver } from 'node:perf_hooks'

const GC_KINDS = {
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak callbacks',
}

/** The main thread's [time on a CPU, time waiting for one] in ms, or null. */
function schedstat() {
  try {
    const [run, wait] = fs.readFileSync('/proc/self/schedstat', 'utf8').split(' ').map(Number)
    return [run / 1e6, wait / 1e6]
  } catch {
    return null
  }
}

const overlap = (a0, a1, b0, b1) => Math.max(0, Math.min(a1, b1) - Math.max(a0, b0))

/**
 * Starts a probe; `stop()` gives `{ stall, at, running, waiting, gc,
 * gcKinds }` for the longest stall (ms; `at` is its start on the
 * performance.now() clock; `gcKinds`: major, minor, … of the collections).
 */
export function lagProbe() {
  const gcs = []
  const note = (entries) => {
    for (const e of entries) gcs.push([e.startTime, e.startTime + e.duration, GC_KINDS[e.detail?.kind] ?? 'other'])
  }
  const observer = new PerformanceObserver((list) => note(list.getEntries()))
  observer.observe({ entryTypes: ['gc'] })
  let last = performance.now()
  let lastSched = schedstat()
  let worst = { stall: 0, at: last, from: last, to: last, before: lastSched, after: lastSched }
  const tick = () => {
    const now = performance.now()
    const sched = schedstat()
    if (now - last - 1 > worst.stall) worst = { stall: now - last - 1, at: last, from: last, to: now, before: lastSched, after: sched }
    last = now
    lastSched = sched
  }
  const timer = setInterval(tick, 1)
  return {
    stop() {
      clearInterval(timer)
      tick()
      // Collections not delivered to the observer yet count too.
      note(observer.takeRecords())
      observer.disconnect()
      const { stall, at, from, to, before, after } = worst
      const during = gcs.filter(([a, b]) => overlap(a, b, from, to) > 0)
      const gc = during.reduce((sum, [a, b]) => sum + overlap(a, b, from, to), 0)
      const gcKinds = [...new Set(during.map(([, , kind]) => kind))]
      const sched = before && after ? { running: after[0] - before[0], waiting: after[1] - before[1] } : { running: null, waiting: null }
      return { stall, at, ...sched, gc, gcKinds }
    },
  }
}

/** One line about a probe's result: `12.3 ms (JS thread on a CPU 0.4, waiting for one 11.8, GC 0.0)`. */
export function describeStall({ stall, running, waiting, gc, gcKinds }) {
  const f = (x) => (x === null ? '?' : x.toFixed(1))
  const kinds = gcKinds.length > 0 ? ` ${gcKinds.join('+')}` : ''
  return `${stall.toFixed(stall < 10 ? 2 : 1)} ms (JS thread on a CPU ${f(running)}, waiting for one ${f(waiting)}, GC ${f(gc)}${kinds})`
}
