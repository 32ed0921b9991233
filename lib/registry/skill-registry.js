'use strict'
// The thin JS half of `SkillRegistry`: it owns what must keep JS identity
// (provider objects, candidate objects, options, listeners, AbortSignals) and
// hands Rust only what it needs to validate, merge, rank and cache.

const native = require('../native.js')
const { kAttach, kCatalogView, kDisposed, kLogger, kNative, kOnDispose } = require('../symbols.js')
const {
  toError,
  throwIfAborted,
  raceSignal,
  describeError,
  resolveLogger,
  safeWarn,
  checkCwd,
} = require('../util.js')

const { packRules, packListing, packOrThrow } = require('./pack.js')
const { checkQuery, searchLimit, searchEntry, prepareEntry } = require('./search.js')
const { semanticOption } = require('./embedder.js')
const { Deliveries } = require('./deliveries.js')
const { checkResolver, defaultResolver, scopeOption, overridesOption, isScopeKey, chainOf, keyName, describe } = require('./scopes.js')
const {
  KIND_RUNTIME,
  KIND_NATIVE,
  runtimeTemplate,
  freshSummaries,
  rewrittenPolicy,
  explained,
  returnedArrays,
  catalogView,
  buildEntry,
  runtimeDefinition,
} = require('./summaries.js')

const DEFAULT_CACHE_ENTRIES = 128

/**
 * This package's providers registered in some registry, one registration each:
 * native handles, and the JS wrappers that take a registration's `control`
 * (`kAttach`, a `LocalSkillProvider` with a filesystem service).
 */
const registeredHandles = new WeakSet()

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

// ---------------------------------------------------------------------------
// Provider calls: how one `list()`/`get()` call ended.

const OK = 0
const FAILED = 1
const RELEASED = 2
const TIMED_OUT = 3
const RELEASED_OUTCOME = Object.freeze({ state: RELEASED })
const TIMED_OUT_OUTCOME = Object.freeze({ state: TIMED_OUT })

/** A lookup that stopped waiting on a flight whose leader aborted. */
const ABANDONED = Symbol('abandoned')

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
  /** @type {number | undefined} */
  #timeoutMs
  /** slot → { provider, name, controller, handle, owned, scope, waiters } */
  #providers = new Map()
  /** runtime id → { definition, template, scope } */
  #runtime = new Map()
  /** cached catalog id → entry */
  #catalogs = new Map()
  /** flight key (normalised cwd, layers and their generations) → the collection in flight */
  #flights = new Map()
  /**
   * cwd and layers of a view → the last entry built for it that had native
   * winners: the next one converts only the native summaries that changed
   * (see `nativeSources`). A few views; emptied when a provider goes.
   */
  #previous = new Map()
  /** @type {Set<() => unknown>} */
  #listeners = new Set()
  /** Hands out the summaries of a burst of lookups turn by turn (see `deliveries.js`). */
  #deliveries = new Deliveries()
  /** The `embedder` option's state (`undefined`: search by words alone). */
  #semantic
  #embedderCacheDir
  /** The states of embedders given to single searches, by value. */
  #semantics = { strings: new Map(), objects: new WeakMap() }
  /** The `scopes` option; `undefined` until the default is needed. */
  #scopes
  /** scope key → the id of its layer (maybe dropped since: the native side knows) */
  #layers = new WeakMap()
  /** scope key → its ordinal, for error messages when it has no name */
  #ordinals = new WeakMap()
  #nextOrdinal = 0
  /**
   * scope key → the registration whose `overrides` option set its layer's
   * rules (a token), while they are in force: its disposal removes them.
   */
  #ruleOwners = new WeakMap()

  /**
   * The callback the native half holds (a global handle): made outside the
   * constructor, whose closures share one context with `this`, so that it
   * retains only the weak reference.
   */
  static #nativeCallback(self) {
    return (kind, message) => {
      const registry = self.deref()
      if (registry) registry.#onNative(kind, message)
    }
  }

  /**
   * @param {{ collectCacheMaxEntries?: number, providerTimeoutMs?: number, overrides?: readonly object[], logger?: { warn(message: string): void }, scopes?: { scopeChainOf(key: object): readonly object[] }, embedder?: unknown, embedderCacheDir?: string | false }} [config]
   */
  constructor(config = {}) {
    if (typeof config !== 'object' || config === null) {
      throw new TypeError('SkillRegistry config must be an object')
    }
    const size = config.collectCacheMaxEntries ?? DEFAULT_CACHE_ENTRIES
    if (typeof size !== 'number') {
      throw new TypeError(`collectCacheMaxEntries must be a positive integer (got ${typeof size})`)
    }
    const timeout = config.providerTimeoutMs
    if (timeout !== undefined && typeof timeout !== 'number') {
      throw new TypeError(`providerTimeoutMs must be a positive integer of at most 2147483647 (got ${typeof timeout})`)
    }
    this.#logger = resolveLogger(config.logger)
    // The native side calls back only through a weak reference, so an unused
    // registry can be collected (and its native half with it).
    this.#native = new native.NativeRegistry(size, timeout, SkillRegistry.#nativeCallback(new WeakRef(this)))
    this.#timeoutMs = timeout
    if (config.scopes !== undefined) this.#scopes = checkResolver(config.scopes, 'scopes')
    // `registry.scopes`: the scope resolver in use, read-only: the `scopes`
    // option, else `@deepseek-ai/dsh-scope` when it can be loaded (loaded on
    // first need), else one that makes a scope's chain the scope alone. An
    // accessor of the instance, not of the prototype, whose members are the
    // registry's methods.
    Object.defineProperty(this, 'scopes', { get: () => this.#resolver(), enumerable: false, configurable: false })
    if (config.overrides !== undefined) this.#setOverrides(config.overrides)
    this.#semantic = semanticOption(config, this.#logger)
    this.#embedderCacheDir = config.embedderCacheDir
  }

  /** The state of an `embedder` given to one search (made once per value). */
  #semanticFor(embedder) {
    const key = typeof embedder === 'string' ? `string:${embedder}` : embedder
    const cache = typeof key === 'string' ? this.#semantics.strings : this.#semantics.objects
    let semantic = cache.get(key)
    if (semantic === undefined) {
      semantic = semanticOption({ embedder, embedderCacheDir: this.#embedderCacheDir }, this.#logger)
      cache.set(key, semantic)
    }
    return semantic
  }

  /** The scope resolver in use (see `scopes`, defined per instance in the constructor). */
  #resolver() {
    return (this.#scopes ??= defaultResolver())
  }

  /**
   * The native arguments naming the layer of `scope`: none for the global
   * layer; else the layer the scope last got (`-1` for none) and how errors
   * name it.
   */
  #layerArgs(scope) {
    if (scope === undefined) return []
    return [this.#layers.get(scope) ?? -1, this.#label(scope)]
  }

  /** How errors name `scope`: its `name` or `id` string, else `#n` by first use. */
  #label(scope) {
    const named = keyName(scope)
    if (named !== undefined) return named
    let ordinal = this.#ordinals.get(scope)
    if (ordinal === undefined) {
      ordinal = ++this.#nextOrdinal
      this.#ordinals.set(scope, ordinal)
    }
    return `#${ordinal}`
  }

  /**
   * What a read sees: `undefined` without `options.scope` (the global layer
   * alone), else the scope's chain of keys, resolved once for the whole call.
   */
  #viewOf(options) {
    const scope = options?.scope
    if (scope === undefined) return undefined
    if (!isScopeKey(scope)) {
      throw new TypeError(`options.scope must be a scope key (an object) or undefined (got ${describe(scope)})`)
    }
    return chainOf(this.#resolver(), scope)
  }

  /** The layer ids of a chain's keys, nearest first (`undefined` for no scope). */
  #layerIds(chain) {
    if (chain === undefined) return undefined
    const ids = []
    for (const key of chain) {
      const id = this.#layers.get(key)
      if (id !== undefined) ids.push(id)
    }
    return ids
  }

  #setOverrides(rules) {
    const { tag, rules: packed } = packRules(rules)
    this.#native.setOverrides(tag, packed)
    this.#forgetEvicted()
  }

  /**
   * Replace the rules of the layer of `scope` (creating the layer for rules
   * alone; empty rules drop a layer left with nothing). Invalid rules throw
   * and change nothing.
   */
  #setScopeOverrides(scope, rules) {
    const { tag, rules: packed } = packRules(rules)
    const layer = this.#native.setScopeOverrides(tag, packed, ...this.#layerArgs(scope))
    this.#forgetEvicted()
    if (layer >= 0) this.#layers.set(scope, layer)
    else this.#layers.delete(scope)
    this.#ruleOwners.delete(scope)
  }

  /**
   * A registration's `overrides` option: set them as the rules of its
   * scope's layer, owned by the registration until replaced.
   * @returns the owner token to hand `#releaseRules` when the registration goes
   */
  #ownRules(scope, rules) {
    this.#setScopeOverrides(scope, rules)
    const owner = {}
    this.#ruleOwners.set(scope, owner)
    return owner
  }

  /** A registration that set its layer's rules is gone: remove them, unless replaced since. */
  #releaseRules(scope, owner) {
    if (owner === undefined || this.#ruleOwners.get(scope) !== owner) return
    this.#setScopeOverrides(scope, [])
  }

  /**
   * Replace override rules, invalidate the completed catalogs they touch and
   * notify listeners once. Without `options.scope`, the registry's own rules
   * (see the `overrides` option): every catalog. With it, the rules of that
   * scope's layer, which apply to reads with that scope and every scope below
   * it on its chain (the nearest layer's matching rule decides): only the
   * catalogs that merged that layer. A scope needs no registration to carry
   * rules; they stay until replaced (`[]` removes them). Invalid rules throw
   * (naming the rule and the key) and leave the rules in force as they were.
   * @param {readonly object[]} rules
   * @param {{ scope?: object }} [options]
   */
  setOverrides(rules, options) {
    const scope = scopeOption(options, 'setOverrides')
    if (scope === undefined) this.#setOverrides(rules)
    else this.#setScopeOverrides(scope, rules)
    this.#emit()
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
   * invalidations). Listeners are called synchronously during the mutation
   * (a provider's invalidations from inside its own `list()` are coalesced:
   * see `#invalidate`);
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
   * Register a provider, in the layer of `options.scope` (the global layer
   * without one). `factory(control)` is called synchronously.
   * @returns {() => void} disposer
   */
  registerProvider(factory, options) {
    if (typeof factory !== 'function') throw new TypeError('registerProvider expects a factory function')
    const controller = new AbortController()
    let slot = -1
    let owner
    const invalidate = () => {
      const record = this.#providers.get(slot)
      if (record === undefined || record.controller !== controller) return
      this.#invalidate(slot, record)
    }
    const control = Object.freeze({ signal: controller.signal, invalidate })
    let provider
    let scope
    let rules
    try {
      provider = factory(control)
      // Checked once the factory ran, as every other registration failure:
      // the provider's signal then aborts with the reason.
      scope = scopeOption(options, 'registerProvider')
      rules = overridesOption(options, scope, 'registerProvider')
      checkProvider(provider)
      const handle = provider[kNative]
      const owned = handle ?? (typeof provider[kAttach] === 'function' ? provider : undefined)
      if (owned !== undefined && registeredHandles.has(owned)) {
        throw new Error(`skill provider "${provider.name}" is already registered (a provider object serves one registration at a time: unregister it first, or create another)`)
      }
      // The native half refuses a disposed handle itself; a JS wrapper says so here.
      if (handle === undefined && provider[kDisposed] === true) {
        throw new Error(`skill provider "${provider.name}" was disposed and cannot be registered again (create a new provider)`)
      }
      const layerArgs = this.#layerArgs(scope)
      const [registered, layer] = handle
        ? this.#native.registerNative(handle, ...layerArgs)
        : this.#native.registerExternal(provider.name, ...layerArgs)
      slot = registered
      if (scope !== undefined) this.#layers.set(scope, layer)
      if (owned !== undefined) registeredHandles.add(owned)
      this.#providers.set(slot, { provider, name: provider.name, controller, handle, owned, scope, waiters: new Set(), listing: 0, trailing: false })
      if (rules !== undefined) owner = this.#ownRules(scope, rules)
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
      this.#releaseRules(scope, owner)
      controller.abort()
      this.#emit()
    }
  }

  /**
   * Invalidate on behalf of the registration in `slot` (`record`, active):
   * its catalogs are dropped at once, and listeners are told once, right
   * away, as both harness releases do for every invalidation. Except from
   * inside one of its own listings (its `list()` called by a lookup and not
   * settled yet): those invalidations, however many, are told of once, on
   * the next turn of the event loop (a provider invalidating itself 10,000
   * times per `list()` costs one notification per turn, not 10,000, and no
   * listener runs inside its `list()`). Never more than one per call.
   */
  #invalidate(slot, record) {
    if (!this.#native.invalidate(slot)) return
    this.#forgetEvicted()
    if (record.listing === 0) {
      this.#emit()
      return
    }
    if (record.trailing) return
    record.trailing = true
    setImmediate(() => {
      record.trailing = false
      // Disposed meanwhile: the disposal notified by itself.
      if (this.#providers.get(slot) === record) this.#emit()
    })
  }

  /**
   * Let go of the entries of catalogs the native cache dropped (a change
   * made them stale): what they hold (the runtime registrations and JS
   * listings they merged) goes with them, not at the next lookup.
   */
  #forgetEvicted() {
    for (const id of this.#native.takeEvicted()) this.#catalogs.delete(id)
  }

  #unregister(slot) {
    const record = this.#providers.get(slot)
    this.#providers.delete(slot)
    if (record?.owned !== undefined) registeredHandles.delete(record.owned)
    this.#native.unregister(slot)
    // Kept entries hold catalogs, which hold their native providers.
    this.#previous.clear()
    this.#forgetEvicted()
    // Release every lookup still waiting on this provider.
    if (record !== undefined) {
      record.released = true
      for (const release of [...record.waiters]) release()
    }
  }

  /**
   * Create the native local filesystem provider and register it, in the
   * layer of `options.scope` (the global layer without one). Its `dispose()`
   * unregisters it and closes its watchers.
   */
  registerLocalProvider(config = {}, options) {
    scopeOption(options, 'registerLocalProvider')
    const { LocalSkillProvider } = require('../local.js')
    const provider = new LocalSkillProvider({ logger: this.#logger, ...config })
    try {
      provider[kOnDispose] = this.registerProvider(() => provider, options)
    } catch (error) {
      provider.dispose().catch(() => {})
      throw error
    }
    return provider
  }

  /**
   * Register a runtime skill (rank 250, provider `runtime` unless given), in
   * the layer of `options.scope` (the global layer without one).
   * @returns {() => void} disposer (a no-op for a name already registered in that layer)
   */
  register(skill, options) {
    const scope = scopeOption(options, 'register')
    const rules = overridesOption(options, scope, 'register')
    const layerArgs = this.#layerArgs(scope)
    const registered = this.#native.registerRuntime(packOrThrow([skill], true, 'runtime skill'), ...layerArgs)
    const template = runtimeTemplate(skill)
    if (registered === null || registered === undefined) {
      const where = scope === undefined ? '' : ` in the layer of scope ${layerArgs[1]}`
      safeWarn(this.#logger, `runtime skill "${template.name}" is already registered${where}; the duplicate is ignored`)
      return () => {}
    }
    const [id, layer] = registered
    if (scope !== undefined) this.#layers.set(scope, layer)
    let owner
    if (rules !== undefined) {
      try {
        owner = this.#ownRules(scope, rules)
      } catch (error) {
        this.#native.unregisterRuntime(id)
        throw error
      }
    }
    // The definition as registered: later changes to `skill` itself do not
    // leak in; its nested objects are kept as they are.
    this.#runtime.set(id, { definition: { ...skill }, template, scope })
    this.#emit()
    return () => {
      if (!this.#runtime.delete(id)) return
      this.#native.unregisterRuntime(id)
      this.#forgetEvicted()
      this.#releaseRules(scope, owner)
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
      this.#invalidate(slot, record)
      return
    }
  }

  /** @param {{ cwd?: string, signal?: AbortSignal, scope?: object }} [options] */
  async list(options) {
    return (await this.snapshot(options)).skills
  }

  /** @param {{ cwd?: string, signal?: AbortSignal, scope?: object }} [options] */
  async snapshot(options) {
    const entry = await this.#collect(options, this.#viewOf(options))
    const turn = this.#deliveries.admit(entry.sources.length)
    if (turn !== undefined) await turn
    const skills = freshSummaries(entry)
    returnedArrays.set(skills, entry)
    return { skills, complete: entry.complete }
  }

  /**
   * The caller's view as `snapshot()` sees it, without its summaries: `{
   * view, complete }`, `view` a token the catalog renderers (`renderCatalog`,
   * `structuredCatalog`, the step planners) take in place of `skills` and
   * read straight from the native catalog. For this package's own consumers
   * (the `skill` tool plugin plans every agent step from it).
   * @param {{ cwd?: string, signal?: AbortSignal, scope?: object }} [options]
   */
  async [kCatalogView](options) {
    const entry = await this.#collect(options, this.#viewOf(options))
    return { view: catalogView(entry), complete: entry.complete }
  }

  /**
   * The model-invocable skills of the caller's view that `query` is about,
   * best first (`options.limit`, default 10), from the same (possibly
   * cached) catalog `snapshot()` reads: `{ skills, total, complete,
   * suggestion? }`, each skill a fresh summary with its `score`.
   * @param {string} query
   * `options.embedder` (the forms of the constructor's option) fuses meaning
   * with words for this search, in place of the registry's own embedder.
   * @param {{ cwd?: string, signal?: AbortSignal, scope?: object, limit?: number, embedder?: unknown }} [options]
   */
  async search(query, options) {
    checkQuery(query)
    const limit = searchLimit(options)
    const semantic = options?.embedder === undefined ? this.#semantic : this.#semanticFor(options.embedder)
    const entry = await this.#collect(options, this.#viewOf(options))
    throwIfAborted(options?.signal)
    const turn = this.#deliveries.admit(Math.min(limit, entry.sources.length))
    if (turn !== undefined) await turn
    return searchEntry(entry, query, limit, options?.signal ?? undefined, semantic)
  }

  /**
   * With an `embedder`: embeds every skill of the caller's view that has
   * no vector yet, and resolves when done (`{ embedded, available }`);
   * search itself embeds only the few skills that changed and leaves a
   * large backlog to the background. Without one: `{ embedded: 0,
   * available: false }`.
   * @param {{ cwd?: string, signal?: AbortSignal, scope?: object }} [options]
   */
  async prepareSearch(options) {
    const entry = await this.#collect(options, this.#viewOf(options))
    throwIfAborted(options?.signal)
    return prepareEntry(entry, options?.signal ?? undefined, this.#semantic)
  }

  /**
   * Load the full definition of the winning skill `name`.
   * @param {string} name
   * @param {{ cwd?: string, signal?: AbortSignal }} [options]
   */
  async get(name, options) {
    const signal = options?.signal
    const entry = await this.#catalogFor(name, options)
    if (entry === undefined) return undefined
    const location = entry.catalog.locate(name)
    if (!location) return undefined
    const [kind, slot, index, rewrite] = location
    if (kind === KIND_RUNTIME) {
      const runtime = this.#runtime.get(index)
      if (runtime === undefined) return undefined
      const definition = runtimeDefinition(runtime)
      if (rewrite !== 0) definition.invocation = rewrittenPolicy(rewrite)
      entry.catalog.recordUse(name)
      return definition
    }
    const record = this.#providers.get(slot)
    if (record === undefined) return undefined
    if (kind === KIND_NATIVE) {
      const cwd = checkCwd(options?.cwd)
      // Loaded before and vouched for by its watcher: no file to read.
      const kept = entry.catalog.loadNativeKept(name, cwd)
      const loaded = kept ?? (await raceSignal(entry.catalog.loadNative(name, cwd), signal))
      if (kept === null) record.handle?.syncMemory()
      if (loaded.warning !== undefined) safeWarn(record.provider[kLogger] ?? this.#logger, loaded.warning)
      const definition = loaded.definition
      if (definition === undefined) return undefined
      if (definition.name !== name) return this.#stale(slot, record)
      entry.catalog.recordUse(name)
      return definition
    }
    const candidate = entry.hosts.get(slot)?.candidates[index]
    const lookup = options ?? {}
    const outcome = await raceSignal(
      this.#call(record, Promise.resolve().then(() => record.provider.get(candidate, lookup))),
      signal,
    )
    if (outcome.state === RELEASED) return undefined
    if (outcome.state === TIMED_OUT) {
      safeWarn(this.#logger, `skill provider "${record.name}" did not load "${name}" within ${this.#timeoutMs} ms; it is treated as unavailable`)
      return undefined
    }
    if (outcome.state === FAILED) throw toError(outcome.error)
    const definition = outcome.value
    if (definition === undefined) return undefined
    const loadedName = this.#native.validateDefinition(
      record.name,
      packOrThrow([definition], true, `skill provider "${record.name}" definition`),
    )
    if (loadedName !== name) return this.#stale(slot, record)
    entry.catalog.recordUse(name)
    // An override's invocation holds for the loaded skill too.
    return rewrite === 0 ? definition : { ...definition, invocation: rewrittenPolicy(rewrite) }
  }

  /**
   * Who won `name` and why every other candidate lost, from the same
   * (possibly cached) catalog `snapshot()` returns: `undefined` when no
   * provider lists the name (or it is not a skill name).
   * @param {string} name
   * @param {{ cwd?: string, signal?: AbortSignal }} [options]
   */
  async explain(name, options) {
    throwIfAborted(options?.signal)
    const chain = this.#viewOf(options)
    const entry = await this.#catalogFor(name, options, chain)
    if (entry === undefined) return undefined
    const rows = entry.catalog.explain(name)
    if (!rows) return undefined
    let winner
    const losers = []
    for (const row of rows) {
      const scope = this.#scopeOfRow(row, entry)
      const ruleScope = this.#scopeOfLayer(row.ruleLayer, chain)
      if (row.outcome === 'won') winner = explained(row, entry, scope, ruleScope)
      else losers.push({ ...explained(row, entry, scope, ruleScope), reason: row.outcome })
    }
    return { name, complete: entry.complete, winner, losers }
  }

  /** The key of `chain` whose layer is `layer` (`undefined` for the global layer, or none). */
  #scopeOfLayer(layer, chain) {
    if (layer === undefined || layer === 0 || chain === undefined) return undefined
    return chain.find((key) => this.#layers.get(key) === layer)
  }

  /** The scope key of the layer an `explain()` row's candidate came from (`undefined` for the global layer). */
  #scopeOfRow(row, entry) {
    if (row.kind === KIND_RUNTIME) return entry.runtime.get(row.index)?.scope
    return this.#providers.get(row.slot)?.scope
  }

  /**
   * The catalog entry a lookup of skill `name` reads (the signal checked
   * before and after), or `undefined` when `name` is not a skill name. The
   * scope's chain is resolved once, here: the load that follows uses this
   * very catalog.
   */
  async #catalogFor(name, options, chain) {
    const signal = options?.signal
    throwIfAborted(signal)
    const view = chain ?? this.#viewOf(options)
    if (!native.isSkillName(name)) return undefined
    const entry = await this.#collect(options, view)
    throwIfAborted(signal)
    return entry
  }

  /** A loaded definition no longer has the catalog's name: re-discover. */
  #stale(slot, record) {
    if (this.#providers.get(slot) === record) this.#invalidate(slot, record)
    return undefined
  }

  /**
   * Await `call` (a provider's `list()` or `get()`) until it settles, its
   * registration is disposed (released), or `providerTimeoutMs` passes.
   * Never rejects.
   */
  #call(record, call) {
    return new Promise((resolve) => {
      let timer
      let settled = false
      const done = (outcome) => {
        if (settled) return
        settled = true
        record.waiters.delete(release)
        if (timer !== undefined) clearTimeout(timer)
        resolve(outcome)
      }
      const release = () => done(RELEASED_OUTCOME)
      call.then(
        (value) => done({ state: OK, value }),
        (error) => done({ state: FAILED, error }),
      )
      if (record.released) return release()
      record.waiters.add(release)
      if (this.#timeoutMs !== undefined) {
        timer = setTimeout(() => done(TIMED_OUT_OUTCOME), this.#timeoutMs)
        timer.unref?.()
      }
    })
  }

  /**
   * The catalog entry for a lookup of the view `chain` (the scope's chain of
   * keys, `undefined` without a scope): the cached complete catalog, or the
   * result of the collection in flight for the same view (same normalised
   * cwd, same layers at the same generations: joined), or of a new one.
   * Concurrent identical lookups share one call per provider.
   */
  async #collect(options, chain) {
    const signal = options?.signal
    throwIfAborted(signal)
    const cwd = checkCwd(options?.cwd)
    for (;;) {
      const layers = this.#layerIds(chain)
      const cachedId = this.#native.cached(cwd, layers)
      if (cachedId >= 0) {
        const hit = this.#catalogs.get(cachedId)
        if (hit) return hit
      }
      const key = this.#native.flightKey(cwd, layers)
      const flight = this.#flights.get(key) ?? this.#fly(key, cwd, chain, options ?? {})
      const entry = await raceSignal(flight.promise, signal)
      if (entry !== ABANDONED) return entry
      // The flight's leader aborted while a provider was working with its
      // options: this caller starts (or joins) a fresh flight.
    }
  }

  /**
   * Start a collection for `cwd` and the view `chain`, known as `key`, led
   * by the lookup whose options are `lookup` (providers receive that very
   * object).
   */
  #fly(key, cwd, chain, lookup) {
    const flight = {
      key,
      cwd,
      chain,
      lookup,
      pending: 0,
      abandoned: false,
      promise: undefined,
      resolve: undefined,
      reject: undefined,
    }
    flight.promise = new Promise((resolve, reject) => {
      flight.resolve = resolve
      flight.reject = reject
    })
    this.#flights.set(key, flight)
    const signal = lookup.signal
    // One caller aborting must not degrade the others' result: if the leader
    // aborts while a JS provider is still working with its options, the
    // other callers stop waiting for this flight and start a new one.
    const onAbort = () => {
      if (flight.pending > 0) this.#abandon(flight)
    }
    signal?.addEventListener('abort', onAbort)
    this.#run(flight)
      .then(flight.resolve, flight.reject)
      .finally(() => {
        signal?.removeEventListener('abort', onAbort)
        if (this.#flights.get(key) === flight) this.#flights.delete(key)
      })
    return flight
  }

  #abandon(flight) {
    if (flight.abandoned) return
    flight.abandoned = true
    if (this.#flights.get(flight.key) === flight) this.#flights.delete(flight.key)
    flight.resolve(ABANDONED)
  }

  async #run(flight) {
    const { cwd, chain, lookup } = flight
    for (let attempt = 0; ; attempt++) {
      // What this collection sees: the providers of the view's layers (JS
      // ones are called here, native ones natively) and the runtime skills.
      // The layers are looked up again for a retry (one may have come or
      // gone), along the same chain.
      const collection = this.#native.collect(cwd, attempt, this.#layerIds(chain))
      const external = collection.hostSlots()
      const nativeSlots = collection.nativeSlots()
      const hasNative = nativeSlots.length > 0
      // The runtime registrations of this view alone (not every layer's).
      const runtime = new Map()
      for (const id of collection.runtimeIds()) runtime.set(id, this.#runtime.get(id))
      if (external.length > 0 && lookup.signal?.aborted) {
        // A retry would hand providers an aborted signal.
        this.#abandon(flight)
        return ABANDONED
      }
      flight.pending = external.length
      const calls = external.map((slot) => this.#listExternal(slot, lookup, flight))
      // Right here when the native provider's kept listings cover the
      // lookup (a few small reads at most), else on the libuv pool.
      const kept = hasNative ? collection.listNativeKept() : null
      const nativeList = kept !== null ? kept : hasNative ? collection.listNative() : NO_WARNINGS
      const [nativeWarnings, ...outcomes] = await Promise.all([nativeList, ...calls])
      if (hasNative) this.#syncNativeMemory(nativeSlots)
      if (flight.abandoned) return ABANDONED
      for (const { slot, message } of nativeWarnings) {
        safeWarn(this.#providers.get(slot)?.provider[kLogger] ?? this.#logger, message)
      }
      const states = []
      const hosts = new Map()
      for (let i = 0; i < external.length; i++) {
        const slot = external[i]
        const outcome = outcomes[i]
        states.push(slot, outcome.state)
        if (outcome.state !== OK) continue
        const check = (head, count) => collection.checkListing(slot, head, count)
        const { head, candidates, packed } = packListing(outcome.value, outcome.name, check)
        collection.addListing(slot, head, packed)
        hosts.set(slot, { candidates, names: packed.names, descriptions: packed.descriptions })
      }
      const finished = collection.finish(states)
      if (finished === null || finished === undefined) continue
      for (const id of finished.evicted) this.#catalogs.delete(id)
      for (const warning of finished.warnings) safeWarn(this.#logger, warning)
      const view = previousKey(cwd, this.#layerIds(chain))
      const entry = buildEntry(finished, hosts, runtime, this.#previous.get(view))
      if (entry.natives !== undefined) {
        this.#previous.delete(view)
        this.#previous.set(view, entry)
        if (this.#previous.size > PREVIOUS_VIEWS) this.#previous.delete(this.#previous.keys().next().value)
      }
      if (entry.complete) this.#catalogs.set(finished.id, entry)
      return entry
    }
  }

  /**
   * Tell V8 what the native providers hold now (external memory): their
   * caches grow when a lookup through this registry reads the disk.
   */
  #syncNativeMemory(slots) {
    for (const slot of slots) this.#providers.get(slot)?.handle?.syncMemory()
  }

  /** One JS provider's `list()` for a flight; resolves to its outcome. */
  #listExternal(slot, lookup, flight) {
    const record = this.#providers.get(slot)
    if (record === undefined) {
      flight.pending--
      return Promise.resolve(RELEASED_OUTCOME)
    }
    // While it runs (until its result settles), the provider's own
    // invalidations are coalesced (see `#invalidate`).
    const call = Promise.resolve()
      .then(() => {
        record.listing++
        return record.provider.list(lookup)
      })
      .finally(() => {
        record.listing--
      })
    return this.#call(record, call).then((outcome) => {
      flight.pending--
      if (outcome.state === OK) return { state: OK, value: outcome.value, name: record.name }
      if (flight.abandoned || lookup.signal?.aborted) return outcome
      if (outcome.state === FAILED) {
        safeWarn(this.#logger, `skill provider "${record.name}" failed to list skills: ${describeError(outcome.error)}`)
      } else if (outcome.state === TIMED_OUT) {
        safeWarn(
          this.#logger,
          `skill provider "${record.name}" did not list skills within ${this.#timeoutMs} ms; the lookup goes on without it (incomplete)`,
        )
      }
      return outcome
    })
  }
}

const NO_WARNINGS = Promise.resolve([])

/** Views whose last entry is kept for reuse (see `#previous`). */
const PREVIOUS_VIEWS = 8

/** The key of a view in `#previous`: its cwd and the layers of its chain. */
function previousKey(cwd, layers) {
  return layers === undefined ? `${cwd ?? ''}` : `${cwd ?? ''}\u0000${layers.join(',')}`
}

module.exports = { SkillRegistry, isSkillName, isModelInvocable, isUserInvocable }
