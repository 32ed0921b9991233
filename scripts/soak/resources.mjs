// Process resources, read from /proc: inotify watches, open fds by type, threads
// (watcher threads told apart) and their CPU run-queue waits (schedstat); the
// resource sample the checkpoints compare, and the settle + GC before one.
import fs from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'

import { gc, SETTLE_MS } from './config.mjs'
import { now, state, totalOps } from './state.mjs'

function countInotifyWatches() {
  let watches = 0
  for (const fd of fs.readdirSync('/proc/self/fdinfo')) {
    try {
      for (const line of fs.readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8').split('\n')) {
        if (line.startsWith('inotify wd:')) watches++
      }
    } catch {
      // closed meanwhile (the directory listing's own fd, for one)
    }
  }
  return watches
}

function fdsByType() {
  const types = {}
  let total = 0
  for (const fd of fs.readdirSync('/proc/self/fd')) {
    let target
    try {
      target = fs.readlinkSync(`/proc/self/fd/${fd}`)
    } catch {
      continue // the listing's own fd
    }
    const type = target.startsWith('anon_inode:')
      ? target.slice(11).replace(/[[\]]/g, '')
      : target.startsWith('pipe:')
        ? 'pipe'
        : target.startsWith('socket:')
          ? 'socket'
          : 'file'
    types[type] = (types[type] ?? 0) + 1
    total++
  }
  return { total, types }
}

const isWatcherThread = (comm) => comm === 'skill-watch' || comm.startsWith('notify-rs')

/** Per thread: name, CPU run time and run-queue wait (ns, from schedstat). */
export function threadStats() {
  const out = new Map()
  for (const tid of fs.readdirSync('/proc/self/task')) {
    try {
      const comm = fs.readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim()
      const [run, wait] = fs.readFileSync(`/proc/self/task/${tid}/schedstat`, 'utf8').split(' ').map(Number)
      out.set(tid, { comm, run, wait })
    } catch {
      // thread gone meanwhile
    }
  }
  return out
}

/**
 * Between two `threadStats()` (ms): run-queue wait of the JS thread, of the
 * most-delayed watcher thread and of the most-delayed other thread (the libuv
 * pool, where a lookup's native listing runs, and V8's helpers: Node names
 * them all `node`, so they cannot be told apart), and the JS thread's own run
 * time.
 */
export function runQueueWaits(before, after) {
  const delta = (tid, key) => (after.get(tid)[key] - (before.get(tid)?.[key] ?? 0)) / 1e6
  const main = String(process.pid)
  let watcher = 0
  let pool = 0
  for (const [tid, t] of after) {
    if (isWatcherThread(t.comm)) watcher = Math.max(watcher, delta(tid, 'wait'))
    else if (tid !== main) pool = Math.max(pool, delta(tid, 'wait'))
  }
  return after.has(main) ? { main: delta(main, 'wait'), watcher, pool, mainRun: delta(main, 'run') } : { main: 0, watcher, pool, mainRun: 0 }
}

export function sample(label) {
  const memory = process.memoryUsage()
  const threads = [...threadStats().values()]
  const fds = fdsByType()
  return {
    label,
    atMs: Math.round(now() - state.startedAt),
    ops: totalOps(),
    rss: memory.rss,
    heapUsed: memory.heapUsed,
    heapTotal: memory.heapTotal,
    external: memory.external,
    fds: fds.total,
    fdTypes: fds.types,
    watches: countInotifyWatches(),
    threads: threads.length,
    watcherThreads: threads.filter((t) => isWatcherThread(t.comm)).length,
  }
}

export async function settleAndCollect() {
  await sleep(SETTLE_MS)
  gc()
  await sleep(50)
  gc()
}
