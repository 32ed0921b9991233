'use strict'
// The `local` skill provider: a thin JS shell over the native provider.
// Discovery and loading run in Rust on the libuv thread pool; this layer
// validates the configuration types, fills in the defaults that come from the
// environment, races the caller's AbortSignal, and logs warnings through the
// configured logger. With a host filesystem service
// (`config.fs`, or the `fs` service of the Cordis context), the I/O goes
// through the service instead (see local-fs.js) and the provider registers as
// a JS provider.

const os = require('node:os')
const path = require('node:path')
const binding = require('./native.js')
const { kAttach, kDisposed, kLogger, kNative, kOnDispose } = require('./symbols.js')
const fsSeam = require('./local-fs.js')
const { checkCwd, describeError, raceSignal, resolveLogger, safeWarn, throwIfAborted } = require('./util.js')

const STRING_FIELDS = ['providerName', 'dshHome', 'agentsHome', 'bundledSkillDir']
const BOOLEAN_FIELDS = ['includeDefaultRoots', 'nestedRoots', 'watch', 'watchUsePolling', 'watchFollowSymlinks']
const NUMBER_FIELDS = [
  'maxSkillFileBytes',
  'watchStabilityThresholdMs',
  'watchPollIntervalMs',
  'watchMaxProjects',
]

/**
 * How long a call still waiting on the filesystem service when the provider is
 * disposed may keep waiting; then it is released with an error, so disposal
 * never leaves a caller waiting forever on a service that never answers.
 */
const SERVICE_GRACE_MS = 1000

/** The message of the error such a call rejects with. */
const RELEASED = 'the local skill provider was disposed while the filesystem service had not answered'

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
  const compat = config.compatRoots
  if (compat !== undefined) {
    if (!Array.isArray(compat) || compat.some((c) => typeof c !== 'string')) {
      throw new TypeError(`LocalSkillProvider config.compatRoots must be an array of strings (got ${describe(compat)})`)
    }
    // Which names are known is checked natively (`compatRoots[1] must be ...`).
    out.compatRoots = [...compat]
  }
  return out
}

/**
 * Fill in the defaults that come from the environment, as the provider is
 * created: `$DSH_HOME` (else `<home>/.dsh`), `$DSH_AGENTS_HOME` (else
 * `<home>/.agents`) and `$DSH_BUNDLED_SKILL_DIR` (none of them without the
 * default roots), and for the compatibility roots `<home>/.claude` and
 * `$CODEX_HOME` (else `<home>/.codex`), read from `process.env` (which, in a
 * worker thread or after an edit, differs from the OS environment), and the
 * home directory from `os.homedir()`. Empty variables count as unset. A home
 * that cannot be determined is left out: the native side then asks for the
 * option to be set.
 */
function withEnvironmentDefaults(options) {
  const env = (key) => {
    const value = process.env[key]
    return typeof value === 'string' && value !== '' ? value : undefined
  }
  let home
  const inHome = (dir) => {
    if (home === undefined) {
      try {
        home = os.homedir()
      } catch {
        home = ''
      }
    }
    return home === '' ? undefined : path.join(home, dir)
  }
  const out = { ...options }
  if (out.includeDefaultRoots !== false) {
    out.dshHome ??= env('DSH_HOME') ?? inHome('.dsh')
    out.agentsHome ??= env('DSH_AGENTS_HOME') ?? inHome('.agents')
    out.bundledSkillDir ??= env('DSH_BUNDLED_SKILL_DIR')
  }
  if (out.compatRoots?.includes('claude')) out.claudeHome = inHome('.claude')
  if (out.compatRoots?.includes('codex')) out.codexHome = env('CODEX_HOME') ?? inHome('.codex')
  for (const key of ['dshHome', 'agentsHome', 'bundledSkillDir', 'claudeHome', 'codexHome']) {
    if (out[key] === undefined) delete out[key]
  }
  return out
}

/** Whether `value` looks like a `SkillProviderControl` (`{ signal, invalidate }`). */
function isControl(value) {
  return (
    value !== null &&
    typeof value === 'object' &&
    typeof value.invalidate === 'function' &&
    value.signal !== null &&
    typeof value.signal === 'object' &&
    typeof value.signal.addEventListener === 'function'
  )
}

/** `ctx.logger.warn(message)` of a Cordis context, when it has one. */
function contextLogger(ctx) {
  let logger
  try {
    logger = ctx.logger
  } catch {
    return undefined
  }
  if ((typeof logger !== 'function' && typeof logger !== 'object') || logger === null) return undefined
  if (typeof logger.warn !== 'function') return undefined
  return { warn: (message) => ctx.logger.warn(message) }
}

/** The `fs` service of a Cordis context, when one is loaded. */
function contextFileSystem(ctx) {
  try {
    const fs = typeof ctx.get === 'function' ? ctx.get('fs') : ctx.fs
    return fs === null ? undefined : fs
  } catch {
    return undefined
  }
}

/**
 * Local filesystem skill provider (`name` is `config.providerName`, default
 * `'local'`). See `types/local.d.ts`.
 */
class LocalSkillProvider {
  #logger
  #disposed = null
  #native
  /** `config.providerName`, validated natively. */
  #name
  /** The host filesystem service, when given. */
  #fs
  /** `control.invalidate` of the current registration. */
  #invalidate
  /** One controller per call waiting on the filesystem service (see `#service`). */
  #waiting = new Set()

  /**
   * `new LocalSkillProvider(config)`, or the plugin form
   * `new LocalSkillProvider(ctx, control, config)`.
   */
  constructor(...args) {
    const [ctx, control, config] = args.length >= 2 && isControl(args[1]) ? args : [undefined, undefined, args[0]]
    if (ctx !== undefined && (ctx === null || (typeof ctx !== 'object' && typeof ctx !== 'function'))) {
      throw new TypeError(`LocalSkillProvider context must be an object (got ${describe(ctx)})`)
    }
    const options = withEnvironmentDefaults(nativeConfig(config))
    const given = config?.fs !== undefined ? config.fs : ctx === undefined ? undefined : contextFileSystem(ctx)
    const fs = given === undefined ? undefined : fsSeam.checkFileSystem(given)
    this.#logger = resolveLogger(config?.logger ?? (ctx === undefined ? undefined : contextLogger(ctx)))
    this.#native = new binding.NativeLocalProvider(options)
    this.#name = this.#native.name
    this.#fs = fs
    // Without a service, the registry drives the native provider directly (no
    // JS on its path); with one, `list`/`get` are JS and it registers as such.
    if (fs === undefined) Object.defineProperty(this, kNative, { value: this.#native })
    if (control !== undefined) this.#bind(control)
  }

  /**
   * Take `control` for this provider's registration: changes go through
   * `control.invalidate` (a native registration in this package's registry
   * replaces the watcher's route with its own), and the provider disposes
   * itself when `control.signal` aborts.
   */
  #bind(control) {
    this.#invalidate = control.invalidate
    this.#native.attachInvalidator(() => control.invalidate())
    if (control.signal.aborted) {
      this.dispose().catch(() => {})
      return
    }
    control.signal.addEventListener('abort', () => this.dispose().catch(() => {}), { once: true })
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

  /** Whether `dispose()` was called (the registry refuses to register a disposed provider). */
  get [kDisposed]() {
    return this.#disposed !== null
  }

  /** The logger for this provider's warnings (the registry uses it for native discovery). */
  get [kLogger]() {
    return this.#logger
  }

  /** Provider name in the registry (`config.providerName`, default `'local'`). */
  get name() {
    return this.#name
  }

  /**
   * Run `work(stop)` for a call through the filesystem service: `stop` (the
   * caller's signal and this call's release) ends it. A call still waiting on
   * the service when the provider is disposed is released `SERVICE_GRACE_MS`
   * later (see `dispose`); calls made afterwards are not.
   */
  #service(signal, work) {
    const release = new AbortController()
    this.#waiting.add(release)
    const done = () => this.#waiting.delete(release)
    const promise = raceSignal(raceSignal(work([signal, release.signal]), signal), release.signal)
    promise.then(done, done)
    return promise
  }

  /** Discover candidates for `options.cwd`; resolves to `{ candidates, complete }`. */
  async list(options) {
    const signal = options?.signal
    throwIfAborted(signal)
    const cwd = checkCwd(options?.cwd)
    const result = await (this.#fs === undefined
      ? raceSignal(this.#native.list(cwd), signal)
      : this.#service(signal, (stop) => fsSeam.listThroughService(this.#native, this.#fs, cwd, signal, stop)))
    for (const warning of result.warnings) safeWarn(this.#logger, warning)
    return { candidates: result.candidates, complete: result.complete }
  }

  /**
   * Re-read the skill file behind `candidate`; `undefined` when gone or no
   * longer valid. Only skill files of a configured root load.
   */
  async get(candidate, options) {
    const signal = options?.signal
    throwIfAborted(signal)
    if (candidate === null || typeof candidate !== 'object') {
      throw new TypeError(`candidate must be an object (got ${describe(candidate)})`)
    }
    const cwd = checkCwd(options?.cwd)
    if (this.#fs === undefined) {
      // Loaded before and vouched for by the watcher: no file to read.
      const kept = this.#native.loadKept(candidate, cwd)
      if (kept !== null) return kept
    }
    const result = await (this.#fs === undefined
      ? raceSignal(this.#native.load(candidate, cwd), signal)
      : this.#service(signal, (stop) => fsSeam.loadThroughService(this.#native, this.#fs, candidate, cwd, signal, stop)))
    if (result.warning !== undefined) safeWarn(this.#logger, result.warning)
    return result.definition
  }

  /** Explain every root and file considered for `options.cwd` (what `doctor` prints). */
  async diagnose(options) {
    const signal = options?.signal
    throwIfAborted(signal)
    const cwd = checkCwd(options?.cwd)
    return this.#fs === undefined
      ? raceSignal(this.#native.diagnose(cwd), signal)
      : this.#service(signal, (stop) => fsSeam.diagnoseThroughService(this.#native, this.#fs, cwd, signal, stop))
  }

  /**
   * A first-party write or edit touched `path`: when it could be a skill entry
   * of a configured root or of a recently looked-up project, invalidate now
   * (watching or not) and notify once. Returns whether it invalidated.
   */
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

  /**
   * Unregister (when registered) and close the watchers, releasing the native
   * state only watching needs. `list`, `get` and `diagnose` keep working
   * afterwards (unwatched); calls pending at disposal complete normally, and
   * one still waiting on the filesystem service `SERVICE_GRACE_MS` later is
   * released with an error. Idempotent; never rejects.
   */
  dispose() {
    if (this.#disposed) return this.#disposed
    try {
      if (this[kOnDispose]) this[kOnDispose]()
      // Still registered (through `registerProvider` directly): drop the cached
      // catalogs, which the closed watcher can no longer keep fresh.
      else this.#invalidate?.()
    } catch (error) {
      safeWarn(this.#logger, `disposing the local skill provider: ${describeError(error)}`)
    }
    this.#invalidate = undefined
    this.#native.attachInvalidator(null)
    this.#native.close()
    if (this.#waiting.size > 0) {
      const waiting = [...this.#waiting]
      const timer = setTimeout(() => {
        for (const release of waiting) release.abort(new Error(RELEASED))
      }, SERVICE_GRACE_MS)
      // Nothing to wait for once the process has nothing else to do.
      timer.unref?.()
    }
    this.#disposed = Promise.resolve()
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

module.exports = { LocalSkillProvider, isControl }
