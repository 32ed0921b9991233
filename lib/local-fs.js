'use strict'
// The local provider's I/O through a host filesystem service (`fs`): the
// harness's `resolve` / `stat` / `listDir` / `readText`, so a remote or
// sandboxed workspace is never bypassed by reading the host disk.
//
// This module only performs the service calls, asynchronously; every rule runs
// natively: the directories probed for `.git`, the roots and their ranks,
// which entries are skills and in which order, parsing and the size cap, what
// an error code means, which paths `get()` may load, the merge, and the
// bundled root (read natively: it is trusted host content). No native thread
// ever waits on a JS promise.
//
// Every operation takes `stop`: the signals that end it (the caller's signal
// and, for a call still pending when the provider is disposed, its release
// shortly after). Once one aborts, no new service call starts.
// The caller's `signal` itself is what `stat` and `readText` receive.

const { abortError, describeError } = require('./util.js')

/** Service calls in flight at once during one discovery. */
const CONCURRENCY = 64

const METHODS = ['resolve', 'stat', 'listDir', 'readText']

/**
 * Check the shape of a file system service.
 * @param {unknown} fs
 */
function checkFileSystem(fs) {
  if (fs === null || typeof fs !== 'object') {
    throw new TypeError(`LocalSkillProvider config.fs must be an object (got ${fs === null ? 'null' : typeof fs})`)
  }
  for (const method of METHODS) {
    if (typeof fs[method] !== 'function') {
      throw new TypeError(`LocalSkillProvider config.fs.${method} must be a function`)
    }
  }
  return fs
}

/** `{ code, message }` of a service error (`code` only when it is a string). */
function errorOf(error) {
  const code = error !== null && typeof error === 'object' && typeof error.code === 'string' ? error.code : undefined
  return { code, message: describeError(error) }
}

/**
 * Throw the reason of the first aborted signal of `stop`, if any.
 * @param {ReadonlyArray<AbortSignal | undefined>} stop
 */
function throwIfStopped(stop) {
  for (const signal of stop) if (signal && signal.aborted) throw abortError(signal)
}

/** Run at most `limit` calls at once; start no new one once `stop` aborted. */
function limiter(limit, stop) {
  let active = 0
  const queue = []
  const next = () => {
    while (active < limit && queue.length > 0) {
      const { call, resolve, reject } = queue.shift()
      try {
        throwIfStopped(stop)
      } catch (reason) {
        reject(reason)
        continue
      }
      active++
      Promise.resolve()
        .then(call)
        .then(resolve, reject)
        .finally(() => {
          active--
          next()
        })
    }
  }
  return (call) =>
    new Promise((resolve, reject) => {
      queue.push({ call, resolve, reject })
      next()
    })
}

/**
 * The project root of `cwd` through the service: the nearest directory whose
 * `.git` resolves and stats to something. A failed probe means "not here".
 */
async function projectRoot(native, fs, cwd, signal, stop) {
  const probes = native.projectProbes(cwd)
  for (const { dir, git } of probes) {
    throwIfStopped(stop)
    try {
      const target = await fs.resolve(git)
      const stat = await fs.stat(target, signal)
      if (stat !== undefined && stat !== null) return dir
    } catch {
      // Not here: keep walking up.
    }
  }
  return probes.length > 0 ? probes[0].dir : cwd
}

/**
 * Resolve, stat, then read one skill file: what discovery and `get()` both do,
 * so the catalog lists exactly what `get()` can load. Resolves to the
 * native read record: `{ text }`, `{ absent }`, `{ kind }` or `{ code, message }`.
 */
async function readSkillFile(fs, file, signal) {
  try {
    const target = await fs.resolve(file)
    const stat = await fs.stat(target, signal)
    if (stat === undefined || stat === null) return { absent: true }
    if (typeof stat !== 'object') return { message: `stat(${file}) did not resolve to an object` }
    if (stat.type !== 'file') return { kind: typeof stat.type === 'string' ? stat.type : 'other' }
    const text = await fs.readText(target, signal)
    if (typeof text !== 'string') return { message: `readText(${file}) did not resolve to a string` }
    return { text }
  } catch (error) {
    return errorOf(error)
  }
}

/** List one root and read its skill files into `scan`. */
async function scanRoot(fs, scan, root, limit, signal, stop) {
  let target
  let entries
  try {
    target = await limit(() => fs.resolve(root.path))
    entries = await limit(() => fs.listDir(target))
    if (!Array.isArray(entries)) throw new TypeError(`listDir(${root.path}) did not resolve to an array`)
    for (const entry of entries) {
      if (entry === null || typeof entry !== 'object' || typeof entry.name !== 'string') {
        throw new TypeError(`listDir(${root.path}) returned an entry without a string name`)
      }
    }
  } catch (error) {
    throwIfStopped(stop)
    const { code, message } = errorOf(error)
    // "Not a directory": what stands there decides whether it is worth a warning.
    if (scan.rootFailed(root.index, code, message) && target !== undefined) {
      const type = await limit(() => fs.stat(target, signal)).then(
        (stat) => (stat !== null && typeof stat === 'object' && typeof stat.type === 'string' ? stat.type : undefined),
        () => undefined,
      )
      throwIfStopped(stop)
      scan.rootStat(root.index, type)
    }
    return
  }
  const names = entries.map((e) => e.name)
  const types = entries.map((e) => (typeof e.type === 'string' ? e.type : 'other'))
  const requests = scan.rootListed(root.index, names, types)
  await Promise.all(
    requests.map((request) =>
      limit(() => readSkillFile(fs, request.path, signal)).then((read) => scan.read(request.id, read)),
    ),
  )
}

/** Probe, list and read through the service; returns the native scan, ready to finish. */
async function collect(native, fs, cwd, signal, stop) {
  const project = cwd === undefined || cwd === '' ? undefined : await projectRoot(native, fs, cwd, signal, stop)
  const scan = native.beginServiceScan(project, cwd)
  const limit = limiter(CONCURRENCY, stop)
  await Promise.all(scan.roots().map((root) => scanRoot(fs, scan, root, limit, signal, stop)))
  throwIfStopped(stop)
  return scan
}

/** `list()` through the service: `{ candidates, complete, warnings }`. */
async function listThroughService(native, fs, cwd, signal, stop) {
  return (await collect(native, fs, cwd, signal, stop)).finish()
}

/** `diagnose()` through the service. */
async function diagnoseThroughService(native, fs, cwd, signal, stop) {
  return (await collect(native, fs, cwd, signal, stop)).finishDiagnosis(cwd)
}

/**
 * `get()` through the service: check that the candidate's file is a skill file
 * of a configured root (probing `cwd`'s project through the service only when
 * needed), then resolve, stat and read it (forwarding `signal`), parsed
 * natively. Resolves to `{ definition?, warning? }`.
 */
async function loadThroughService(native, fs, candidate, cwd, signal, stop) {
  const path = typeof candidate.path === 'string' ? candidate.path : candidate.locator?.path
  if (typeof path !== 'string') throw new TypeError('candidate.path must be a string (the skill file)')
  let project
  let file
  try {
    file = native.confine(candidate)
  } catch (error) {
    if (cwd === undefined) throw error
    project = await projectRoot(native, fs, cwd, signal, stop)
    file = native.confine(candidate, project, cwd)
  }
  throwIfStopped(stop)
  const read = await readSkillFile(fs, file, signal)
  if (read.code !== undefined || read.message !== undefined) throwIfStopped(stop)
  return native.loadFromService(file, project, cwd, read)
}

module.exports = { checkFileSystem, listThroughService, diagnoseThroughService, loadThroughService }
