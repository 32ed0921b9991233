'use strict'
// The local provider's I/O through a host filesystem service (`fs`): the
// harness's `resolve` / `stat` / `listDir` / `readText`, so a remote or
// sandboxed workspace is never bypassed by reading the host disk.
//
// This module only performs the service calls, asynchronously; every rule runs
// natively: the directories probed for `.git`, the roots and their ranks,
// which entries are skills and in which order, parsing and the size cap, what
// an error code means, the merge, and the bundled root (read natively: it is
// trusted host content). No native thread ever waits on a JS promise.

const { describeError } = require('./util.js')

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

/** Run at most `limit` calls at once; stop starting new ones once `signal` aborts. */
function limiter(limit, signal) {
  let active = 0
  const queue = []
  const next = () => {
    while (active < limit && queue.length > 0) {
      const { call, resolve, reject } = queue.shift()
      if (signal && signal.aborted) {
        reject(signal.reason)
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
async function projectRoot(native, fs, cwd, signal) {
  const probes = native.projectProbes(cwd)
  for (const { dir, git } of probes) {
    if (signal && signal.aborted) throw signal.reason
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

/** Read one skill file requested by the scan. */
async function readRequest(fs, request, entries, signal) {
  try {
    const listed = request.entry === undefined || request.entry === null ? undefined : entries[request.entry]
    const target = listed !== undefined && listed.target !== undefined ? listed.target : await fs.resolve(request.path)
    const text = await fs.readText(target, signal)
    if (typeof text !== 'string') {
      return { message: `readText(${request.path}) did not resolve to a string` }
    }
    return { text }
  } catch (error) {
    return errorOf(error)
  }
}

/** List one root and read its skill files into `scan`. */
async function scanRoot(fs, scan, root, limit, signal) {
  let entries
  try {
    const target = await limit(() => fs.resolve(root.path))
    entries = await limit(() => fs.listDir(target))
    if (!Array.isArray(entries)) throw new TypeError(`listDir(${root.path}) did not resolve to an array`)
    for (const entry of entries) {
      if (entry === null || typeof entry !== 'object' || typeof entry.name !== 'string') {
        throw new TypeError(`listDir(${root.path}) returned an entry without a string name`)
      }
    }
  } catch (error) {
    if (signal && signal.aborted) throw signal.reason
    const { code, message } = errorOf(error)
    scan.rootFailed(root.index, code, message)
    return
  }
  const names = entries.map((e) => e.name)
  const types = entries.map((e) => (typeof e.type === 'string' ? e.type : 'other'))
  const requests = scan.rootListed(root.index, names, types)
  await Promise.all(
    requests.map((request) =>
      limit(() => readRequest(fs, request, entries, signal)).then((read) => scan.read(request.id, read)),
    ),
  )
}

/** Probe, list and read through the service; returns the native scan, ready to finish. */
async function collect(native, fs, cwd, signal) {
  const project = cwd === undefined || cwd === '' ? undefined : await projectRoot(native, fs, cwd, signal)
  const scan = native.beginServiceScan(project)
  const limit = limiter(CONCURRENCY, signal)
  await Promise.all(scan.roots().map((root) => scanRoot(fs, scan, root, limit, signal)))
  if (signal && signal.aborted) throw signal.reason
  return scan
}

/** `list()` through the service: `{ candidates, complete, warnings }`. */
async function listThroughService(native, fs, cwd, signal) {
  return (await collect(native, fs, cwd, signal)).finish()
}

/** `diagnose()` through the service. */
async function diagnoseThroughService(native, fs, cwd, signal) {
  return (await collect(native, fs, cwd, signal)).finishDiagnosis(cwd)
}

/**
 * `get()` through the service: resolve, stat and read the candidate's file
 * (forwarding `signal`), parsed natively. Resolves to `{ definition?, warning? }`.
 */
async function loadThroughService(native, fs, candidate, signal) {
  const path = typeof candidate.path === 'string' ? candidate.path : candidate.locator?.path
  if (typeof path !== 'string') throw new TypeError('candidate.path must be a string (the skill file)')
  let read
  try {
    const target = await fs.resolve(path)
    const stat = await fs.stat(target, signal)
    if (stat === undefined || stat === null) return {}
    if (stat.type !== 'file') {
      read = { kind: typeof stat.type === 'string' ? stat.type : 'other' }
    } else {
      const text = await fs.readText(target, signal)
      read = typeof text === 'string' ? { text } : { message: `readText(${path}) did not resolve to a string` }
    }
  } catch (error) {
    if (signal && signal.aborted) throw signal.reason
    read = errorOf(error)
  }
  return native.loadFromService(candidate, read)
}

module.exports = { checkFileSystem, listThroughService, diagnoseThroughService, loadThroughService }
