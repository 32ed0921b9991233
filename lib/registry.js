'use strict'
// The thin JS half of `SkillRegistry`: it owns what must keep JS identity
// (provider objects, candidate objects, options, listeners, AbortSignals) and
// hands Rust only what it needs to validate, merge, rank and cache.

const native = require('./native.js')
const { kAttach, kLogger, kNative, kOnDispose } = require('./symbols.js')
const { toError, abortError, throwIfAborted, raceSignal, describeError, resolveLogger, safeWarn, checkCwd } = require('./util.js')

const KIND_RUNTIME = 0
const KIND_EXTERNAL = 1
const KIND_NATIVE = 2
const DEFAULT_CACHE_ENTRIES = 128
const BOTH_SURFACES = Object.freeze({ modelInvocable: true, userInvocable: true })

// The fields the native side validates. Values cross the boundary as one JSON
// string per provider result, serialised with these keys only (nested objects
// included), so locators and metadata contents never leave JS.
const SUMMARY_KEYS = [
  'name',
  'description',
  'whenToUse',
  'invocation',
  'modelInvocable',
  'userInvocable',
  'source',
  'provider',
  'resourceBase',
  'kind',
  'path',
  'url',
  'metadata',
]
const LIST_KEYS = [...SUMMARY_KEYS, 'candidates', 'complete', 'rank']
const DEFINITION_KEYS = [...SUMMARY_KEYS, 'content']

/**
 * @param {unknown} value
 * @param {string[]} keys
 * @param {string} what
 */
function serialize(value, keys, what) {
  try {
    return JSON.stringify(value, keys) ?? 'null'
  } catch (error) {
    throw new TypeError(`${what} cannot be read: ${describeError(error)}`)
  }
}

/** Native provider handles registered in some registry (one registration each). */
const registeredHandles = new WeakSet()

/** Arrays returned by `snapshot()`/`list()` → `{ catalog, summaries }` they came from. */
const sourceOfSkills = new WeakMap()

/**
 * For a `skills` array returned by `snapshot()` or `list()`: the native catalog
 * it came from, and the summaries the registry handed out (its own array, never
 * handed out itself; the summaries are frozen), against which the catalog
 * renderer checks that the array and its summaries are unchanged before
 * rendering from the native catalog.
 * `undefined` for any other value.
 * @param {unknown} skills
 * @returns {{ catalog: object, summaries: readonly object[] } | undefined}
 */
function catalogSourceOf(skills) {
  return typeof skills === 'object' && skills !== null ? sourceOfSkills.get(skills) : undefined
}

/** @param {unknown} name */
function isSkillName(name) {
  return native.isSkillName(name)
}

/** @param {{ invocation: { modelInvocable: boolean } }} skill */
function isModelInvocable(skill) {
  return skill.invocation.modelInvocable === true
}

/** @param {{ invocation: { userInvocable: boolean } }} skill */
function isUserInvocable(skill) {
  return skill.invocation.userInvocable === true
}

function freezeSummary(summary) {
  Object.freeze(summary.invocation)
  if (summary.resourceBase) Object.freeze(summary.resourceBase)
  return Object.freeze(summary)
}

function checkProvider(provider) {
  if (typeof provider !== 'object' || provider === null) {
    throw new TypeError(`skill provider factory must return a provider object (got ${provider === null ? 'null' : typeof provider})`)
  }
  if (typeof provider.name !== 'string' || provider.name.length === 0) {
    throw new TypeError('skill provider "name" must be a non-empty string')
  }
  if (typeof provider.list !== 'function') {
    throw new TypeError(`skill provider "${provider.name}" must have a list(options) method`)
  }
  if (typeof provider.get !== 'function') {
    throw new TypeError(`skill provider "${provider.name}" must have a get(candidate, options) method`)
  }
}

class SkillRegistry {
  /** @type {InstanceType<typeof native.NativeRegistry>} */
  #native
  #logger
  /** slot → { provider, name, controller } */
  #providers = new Map()
  /** runtime id → definition */
  #runtime = new Map()
  /** cached catalog id → entry */
  #catalogs = new Map()
  /** @type {Set<() => unknown>} */
  #listeners = new Set()

  /**
   * @param {{ collectCacheMaxEntries?: number, logger?: { warn(message: string): void } }} [config]
   */
  constructor(config = {}) {
    if (typeof config !== 'object' || config === null) {
      throw new TypeError('SkillRegistry config must be an object')
    }
    const size = config.collectCacheMaxEntries ?? DEFAULT_CACHE_ENTRIES
    if (typeof size !== 'number') {
      throw new TypeError(`collectCacheMaxEntries must be a positive integer (got ${typeof size})`)
    }
    this.#logger = resolveLogger(config.logger)
    // The native side calls back only through a weak reference, so an unused
    // registry can be collected (and its native half with it).
    const self = new WeakRef(this)
    this.#native = new native.NativeRegistry(size, (kind, message) => {
      const registry = self.deref()
      if (registry) registry.#onNative(kind, message)
    })
  }

  #onNative(kind, message) {
    if (kind === 'change') this.#emit()
    else safeWarn(this.#logger, message)
  }

  #emit() {
    for (const listener of [...this.#listeners]) {
      try {
        const result = listener()
        if (result && typeof result.then === 'function') {
          result.then(undefined, (error) => {
            safeWarn(this.#logger, `skills change listener rejected: ${describeError(error)}`)
          })
        }
      } catch (error) {
        safeWarn(this.#logger, `skills change listener threw: ${describeError(error)}`)
      }
    }
  }

  /**
   * Listen for catalog changes (registrations, disposals, runtime skills,
   * invalidations). Listeners are called synchronously during the mutation;
   * errors and rejections are logged and contained.
   * @param {() => unknown} listener
   * @returns {() => void}
   */
  onChange(listener) {
    if (typeof listener !== 'function') throw new TypeError('onChange listener must be a function')
    const entry = () => listener()
    this.#listeners.add(entry)
    return () => {
      this.#listeners.delete(entry)
    }
  }

  /**
   * Register a provider. `factory(control)` is called synchronously.
   * @returns {() => void} disposer
   */
  registerProvider(factory) {
    if (typeof factory !== 'function') throw new TypeError('registerProvider expects a factory function')
    const controller = new AbortController()
    let slot = -1
    const invalidate = () => {
      const record = this.#providers.get(slot)
      if (record === undefined || record.controller !== controller) return
      if (this.#native.invalidate(slot)) this.#emit()
    }
    const control = Object.freeze({ signal: controller.signal, invalidate })
    let provider
    try {
      provider = factory(control)
      checkProvider(provider)
      const handle = provider[kNative]
      if (handle && registeredHandles.has(handle)) {
        throw new Error(`skill provider "${provider.name}" is already registered (a native provider serves one registration; create another)`)
      }
      slot = handle ? this.#native.registerNative(handle) : this.#native.registerExternal(provider.name)
      if (handle) registeredHandles.add(handle)
      this.#providers.set(slot, { provider, name: provider.name, controller, handle })
      // Only once registered: a failed attempt must not touch a live registration.
      provider[kAttach]?.(control)
    } catch (thrown) {
      const error = toError(thrown)
      if (slot !== -1) this.#unregister(slot)
      controller.abort(error)
      throw error
    }
    this.#emit()
    let disposed = false
    return () => {
      if (disposed) return
      disposed = true
      this.#unregister(slot)
      controller.abort()
      this.#emit()
    }
  }

  #unregister(slot) {
    const record = this.#providers.get(slot)
    this.#providers.delete(slot)
    if (record?.handle) registeredHandles.delete(record.handle)
    this.#native.unregister(slot)
  }

  /**
   * Create the native local filesystem provider and register it.
   * Its `dispose()` unregisters it and closes its watchers.
   */
  registerLocalProvider(config = {}) {
    const { LocalSkillProvider } = require('./local.js')
    const provider = new LocalSkillProvider({ logger: this.#logger, ...config })
    try {
      provider[kOnDispose] = this.registerProvider(() => provider)
    } catch (error) {
      provider.dispose().catch(() => {})
      throw error
    }
    return provider
  }

  /**
   * Register a runtime skill (rank 250, provider `runtime` unless given).
   * @returns {() => void} disposer (a no-op for a duplicate name)
   */
  register(skill) {
    const id = this.#native.registerRuntime(serialize(skill, DEFINITION_KEYS, 'runtime skill'))
    if (id === null || id === undefined) {
      safeWarn(this.#logger, `runtime skill "${skill.name}" is already registered; the duplicate is ignored`)
      return () => {}
    }
    const definition = Object.freeze({
      ...skill,
      invocation: skill.invocation ?? BOTH_SURFACES,
      provider: skill.provider ?? 'runtime',
      source: skill.source ?? 'runtime',
    })
    this.#runtime.set(id, definition)
    this.#emit()
    return () => {
      if (!this.#runtime.delete(id)) return
      this.#native.unregisterRuntime(id)
      this.#emit()
    }
  }

  /**
   * Invalidate completed catalogs on behalf of `provider` (the exact object its
   * factory returned) and notify listeners, while that registration is active;
   * anything else is ignored. Providers usually call `control.invalidate()`.
   * @param {unknown} provider
   */
  invalidateProvider(provider) {
    for (const [slot, record] of this.#providers) {
      if (record.provider !== provider) continue
      if (this.#native.invalidate(slot)) this.#emit()
      return
    }
  }

  /** @param {{ cwd?: string, signal?: AbortSignal }} [options] */
  async list(options) {
    return (await this.snapshot(options)).skills
  }

  /** @param {{ cwd?: string, signal?: AbortSignal }} [options] */
  async snapshot(options) {
    const entry = await this.#collect(options)
    const skills = entry.skills.slice()
    entry.source ??= Object.freeze({ catalog: entry.catalog, summaries: entry.skills })
    sourceOfSkills.set(skills, entry.source)
    return { skills, complete: entry.complete }
  }

  /**
   * Load the full definition of the winning skill `name`.
   * @param {string} name
   * @param {{ cwd?: string, signal?: AbortSignal }} [options]
   */
  async get(name, options) {
    const signal = options?.signal
    throwIfAborted(signal)
    if (!native.isSkillName(name)) return undefined
    const entry = await this.#collect(options)
    throwIfAborted(signal)
    const location = entry.catalog.locate(name)
    if (!location) return undefined
    const [kind, slot, index] = location
    if (kind === KIND_RUNTIME) return this.#runtime.get(index)
    const record = this.#providers.get(slot)
    if (record === undefined) return undefined
    let definition
    if (kind === KIND_NATIVE) {
      const loaded = await raceSignal(entry.catalog.loadNative(name, checkCwd(options?.cwd)), signal)
      if (loaded.warning !== undefined) safeWarn(record.provider[kLogger] ?? this.#logger, loaded.warning)
      definition = loaded.definition
    } else {
      const candidate = entry.results.get(slot)?.[index]
      const lookup = options ?? {}
      definition = await raceSignal(
        Promise.resolve()
          .then(() => record.provider.get(candidate, lookup))
          .catch((error) => {
            throw toError(error)
          }),
        signal,
      )
      if (definition === undefined) return undefined
      this.#native.validateDefinition(
        record.name,
        serialize(definition, DEFINITION_KEYS, `skill provider "${record.name}" definition`),
      )
    }
    if (definition === undefined) return undefined
    if (definition.name !== name) {
      if (this.#providers.get(slot) === record && this.#native.invalidate(slot)) this.#emit()
      return undefined
    }
    return definition
  }

  async #collect(options) {
    const signal = options?.signal
    throwIfAborted(signal)
    const cwd = checkCwd(options?.cwd)
    const cachedId = this.#native.cached(cwd)
    if (cachedId >= 0) {
      const hit = this.#catalogs.get(cachedId)
      if (hit) return hit
    }
    for (const id of this.#native.takeEvicted()) this.#catalogs.delete(id)
    const lookup = options ?? {}
    for (let attempt = 0; ; attempt++) {
      const collection = this.#native.collect(cwd, attempt)
      const external = collection.external
      const pending = external.map(({ slot }) => this.#listExternal(slot, lookup, signal))
      const nativeList = collection.hasNative ? collection.listNative() : Promise.resolve([])
      const [nativeWarnings, ...outcomes] = await raceSignal(Promise.all([nativeList, ...pending]), signal)
      for (const { slot, message } of nativeWarnings) {
        safeWarn(this.#providers.get(slot)?.provider[kLogger] ?? this.#logger, message)
      }
      const results = new Map()
      const values = []
      const failed = []
      const parts = []
      for (let i = 0; i < external.length; i++) {
        const outcome = outcomes[i]
        failed.push(!outcome.ok)
        values.push(outcome.ok ? outcome.value : undefined)
        parts.push(outcome.ok ? serialize(outcome.value, LIST_KEYS, `skill provider "${external[i].name}" list() result`) : 'null')
      }
      const catalog = collection.finish(`[${parts.join(',')}]`, failed)
      if (catalog === null || catalog === undefined) continue
      for (const warning of catalog.warnings) safeWarn(this.#logger, warning)
      for (let i = 0; i < external.length; i++) {
        const value = values[i]
        if (!failed[i]) results.set(external[i].slot, Array.isArray(value) ? value : value.candidates)
      }
      // Summaries are frozen; the array itself is private (callers get copies, and
      // slicing a frozen array is dozens of times slower).
      const skills = JSON.parse(catalog.summariesJson()).map(freezeSummary)
      const entry = { catalog, complete: catalog.complete, skills, results, source: undefined }
      if (entry.complete) this.#catalogs.set(catalog.id, entry)
      return entry
    }
  }

  #listExternal(slot, lookup, signal) {
    const record = this.#providers.get(slot)
    if (record === undefined) return Promise.resolve({ ok: false })
    return Promise.resolve()
      .then(() => record.provider.list(lookup))
      .then(
        (value) => ({ ok: true, value }),
        (error) => {
          if (signal && signal.aborted) throw abortError(signal)
          safeWarn(this.#logger, `skill provider "${record.name}" failed to list skills: ${describeError(error)}`)
          return { ok: false }
        },
      )
  }
}

module.exports = { SkillRegistry, isSkillName, isModelInvocable, isUserInvocable, catalogSourceOf }
