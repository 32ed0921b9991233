'use strict'
// The `local` skill provider: a thin JS shell over the native provider.
// Discovery and loading run in Rust on the libuv thread pool; this layer
// validates the configuration types, races the caller's AbortSignal, and logs
// warnings through the configured logger.

const binding = require('../binding.js')
const { kNative, kOnDispose } = require('./symbols.js')

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
  const logger = config.logger
  if (logger !== undefined && (logger === null || typeof logger.warn !== 'function')) {
    throw new TypeError('LocalSkillProvider config.logger must have a warn(message) method')
  }
  return out
}

function cwdOf(options) {
  const cwd = options?.cwd
  if (cwd === undefined || cwd === null) return undefined
  if (typeof cwd !== 'string') {
    throw new TypeError(`options.cwd must be a string (got ${describe(cwd)})`)
  }
  return cwd
}

/** Settle with `promise`, or reject with `signal.reason` as soon as it aborts. */
function race(promise, signal) {
  if (!signal) return promise
  if (signal.aborted) {
    promise.catch(() => {})
    return Promise.reject(signal.reason)
  }
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason)
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort)
        resolve(value)
      },
      (error) => {
        signal.removeEventListener('abort', onAbort)
        reject(error)
      },
    )
  })
}

/**
 * Local filesystem skill provider (`name === 'local'`). See `types/local.d.ts`.
 */
class LocalSkillProvider {
  #logger
  #disposed = null

  constructor(config) {
    const native = new binding.NativeLocalProvider(nativeConfig(config))
    this.#logger = config?.logger
    Object.defineProperty(this, kNative, { value: native })
  }

  /** Provider name in the registry. */
  get name() {
    return 'local'
  }

  #warn(message) {
    try {
      if (this.#logger) this.#logger.warn(message)
      else console.warn(message)
    } catch {
      // A failing logger must not break discovery.
    }
  }

  /** Discover candidates for `options.cwd`; resolves to `{ candidates, complete }`. */
  async list(options) {
    const signal = options?.signal
    signal?.throwIfAborted()
    const result = await race(this[kNative].list(cwdOf(options)), signal)
    for (const warning of result.warnings) this.#warn(warning)
    return { candidates: result.candidates, complete: result.complete }
  }

  /** Re-read the skill file behind `candidate`; `undefined` when gone or no longer valid. */
  async get(candidate, options) {
    const signal = options?.signal
    signal?.throwIfAborted()
    if (candidate === null || typeof candidate !== 'object') {
      throw new TypeError(`candidate must be an object (got ${describe(candidate)})`)
    }
    const result = await race(this[kNative].load(candidate, cwdOf(options)), signal)
    if (result.warning !== undefined) this.#warn(result.warning)
    return result.definition
  }

  /** Explain every root and file considered for `options.cwd` (what `doctor` prints). */
  async diagnose(options) {
    const signal = options?.signal
    signal?.throwIfAborted()
    return race(this[kNative].diagnose(cwdOf(options)), signal)
  }

  /** A first-party write or edit touched `path`; returns whether the catalog was invalidated. */
  observeHostMutation(path) {
    if (typeof path !== 'string') {
      throw new TypeError(`path must be a string (got ${describe(path)})`)
    }
    return this[kNative].observeHostMutation(path)
  }

  /** Unregister (when registered) and close the watchers. Idempotent. */
  dispose() {
    if (this.#disposed) return this.#disposed
    let error
    try {
      this[kOnDispose]?.()
    } catch (e) {
      error = e
    }
    this[kNative].close()
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
