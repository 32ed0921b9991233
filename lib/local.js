'use strict'
// The `local` skill provider: a thin JS shell over the native provider.
// Discovery and loading run in Rust on the libuv thread pool; this layer
// validates the configuration types, races the caller's AbortSignal, and logs
// warnings through the configured logger. With a host filesystem service
// (`config.fs`), the I/O goes through the service instead (see local-fs.js) and
// the provider registers as a JS provider.

const binding = require('./native.js')
const { kAttach, kLogger, kNative, kOnDispose } = require('./symbols.js')
const fsSeam = require('./local-fs.js')
const { checkCwd, raceSignal, resolveLogger, safeWarn, throwIfAborted } = require('./util.js')

const STRING_FIELDS = ['dshHome', 'agentsHome', 'bundledSkillDir']
const BOOLEAN_FIELDS = ['watch', 'watchUsePolling', 'watchFollowSymlinks']
const NUMBER_FIELDS = [
  'maxSkillFileBytes',
  'watchStabilityThresholdMs',
  'watchPollIntervalMs',
  'watchMaxProjects',
]

function describe(value) {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  return typeof value
}

/** Validate field types and copy the fields the native provider reads. */
function nativeConfig(config) {
  if (config === undefined || config === null) return {}
  if (typeof config !== 'object') {
    throw new TypeError(`LocalSkillProvider config must be an object (got ${describe(config)})`)
  }
  const out = {}
  for (const key of STRING_FIELDS) {
    const value = config[key]
    if (value === undefined) continue
    if (typeof value !== 'string') {
      throw new TypeError(`LocalSkillProvider config.${key} must be a string (got ${describe(value)})`)
    }
    out[key] = value
  }
  for (const key of BOOLEAN_FIELDS) {
    const value = config[key]
    if (value === undefined) continue
    if (typeof value !== 'boolean') {
      throw new TypeError(`LocalSkillProvider config.${key} must be a boolean (got ${describe(value)})`)
    }
    out[key] = value
  }
  for (const key of NUMBER_FIELDS) {
    const value = config[key]
    if (value === undefined) continue
    if (typeof value !== 'number') {
      throw new TypeError(`LocalSkillProvider config.${key} must be a positive integer (got ${describe(value)})`)
    }
    // Range and integrality are checked natively (same message for NaN, 0, 1.5, ...).
    out[key] = value
  }
  const dirs = config.customSkillDirs
  if (dirs !== undefined) {
    if (!Array.isArray(dirs) || dirs.some((d) => typeof d !== 'string')) {
      throw new TypeError('LocalSkillProvider config.customSkillDirs must be an array of strings')
    }
    out.customSkillDirs = [...dirs]
  }
  return out
}

/**
 * Local filesystem skill provider (`name === 'local'`). See `types/local.d.ts`.
 */
class LocalSkillProvider {
  #logger
  #disposed = null
  #native
  /** The host filesystem service, when given. */
  #fs
  /** `control.invalidate` of the current registration. */
  #invalidate

  constructor(config) {
    const options = nativeConfig(config)
    const fs = config?.fs === undefined ? undefined : fsSeam.checkFileSystem(config.fs)
    this.#logger = resolveLogger(config?.logger)
    this.#native = new binding.NativeLocalProvider(options)
    this.#fs = fs
    // Without a service, the registry drives the native provider directly (no
    // JS on its path); with one, `list`/`get` are JS and it registers as such.
    if (fs === undefined) Object.defineProperty(this, kNative, { value: this.#native })
  }

  /** Called by the registry on a JS registration: route watcher invalidations to it. */
  [kAttach](control) {
    this.#invalidate = control.invalidate
    // Registered natively, the registry attaches the native invalidator itself.
    if (this.#fs !== undefined) this.#native.attachInvalidator(() => control.invalidate())
    control.signal.addEventListener(
      'abort',
      () => {
        if (this.#invalidate !== control.invalidate) return
        this.#invalidate = undefined
        if (this.#fs !== undefined) this.#native.attachInvalidator(null)
      },
      { once: true },
    )
  }

  /** The logger for this provider's warnings (the registry uses it for native discovery). */
  get [kLogger]() {
    return this.#logger
  }

  /** Provider name in the registry. */
  get name() {
    return 'local'
  }

  /** Discover candidates for `options.cwd`; resolves to `{ candidates, complete }`. */
  async list(options) {
    const signal = options?.signal
    throwIfAborted(signal)
    const cwd = checkCwd(options?.cwd)
    const result = await raceSignal(
      this.#fs === undefined ? this.#native.list(cwd) : fsSeam.listThroughService(this.#native, this.#fs, cwd, signal),
      signal,
    )
    for (const warning of result.warnings) safeWarn(this.#logger, warning)
    return { candidates: result.candidates, complete: result.complete }
  }

  /** Re-read the skill file behind `candidate`; `undefined` when gone or no longer valid. */
  async get(candidate, options) {
    const signal = options?.signal
    throwIfAborted(signal)
    if (candidate === null || typeof candidate !== 'object') {
      throw new TypeError(`candidate must be an object (got ${describe(candidate)})`)
    }
    const cwd = checkCwd(options?.cwd)
    const result = await raceSignal(
      this.#fs === undefined
        ? this.#native.load(candidate, cwd)
        : fsSeam.loadThroughService(this.#native, this.#fs, candidate, signal),
      signal,
    )
    if (result.warning !== undefined) safeWarn(this.#logger, result.warning)
    return result.definition
  }

  /** Explain every root and file considered for `options.cwd` (what `doctor` prints). */
  async diagnose(options) {
    const signal = options?.signal
    throwIfAborted(signal)
    const cwd = checkCwd(options?.cwd)
    return raceSignal(
      this.#fs === undefined
        ? this.#native.diagnose(cwd)
        : fsSeam.diagnoseThroughService(this.#native, this.#fs, cwd, signal),
      signal,
    )
  }

  /** A first-party write or edit touched `path`; returns whether the catalog was invalidated. */
  observeHostMutation(path) {
    if (typeof path !== 'string') {
      throw new TypeError(`path must be a string (got ${describe(path)})`)
    }
    // The native side drops the cached catalogs without notifying; the
    // registration's control notifies the listeners synchronously, now.
    const hit = this.#native.observeHostMutation(path)
    if (hit) this.#invalidate?.()
    return hit
  }

  /** Unregister (when registered) and close the watchers. Idempotent. */
  dispose() {
    if (this.#disposed) return this.#disposed
    let error
    try {
      if (this[kOnDispose]) this[kOnDispose]()
      // Still registered (through `registerProvider` directly): drop the cached
      // catalogs, which the closed watcher can no longer keep fresh.
      else this.#invalidate?.()
    } catch (e) {
      error = e
    }
    this.#native.close()
    this.#disposed = error === undefined ? Promise.resolve() : Promise.reject(error)
    return this.#disposed
  }
}

if (typeof Symbol.asyncDispose === 'symbol') {
  Object.defineProperty(LocalSkillProvider.prototype, Symbol.asyncDispose, {
    value: function asyncDispose() {
      return this.dispose()
    },
    configurable: true,
    writable: true,
  })
}

module.exports = { LocalSkillProvider }
