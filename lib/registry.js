'use strict'
// The thin JS half of `SkillRegistry`: it owns what must keep JS identity
// (provider objects, candidate objects, options, listeners, AbortSignals) and
// hands Rust only what it needs to validate, merge, rank and cache.

const native = require('./native.js')
const { kAttach, kLogger, kNative, kOnDispose } = require('./symbols.js')
const {
  toError,
  throwIfAborted,
  raceSignal,
  describeError,
  resolveLogger,
  safeWarn,
  checkCwd,
} = require('./util.js')

const KIND_RUNTIME = 0
const KIND_EXTERNAL = 1
const KIND_NATIVE = 2
const DEFAULT_CACHE_ENTRIES = 128

// ---------------------------------------------------------------------------
// Packing: how JS objects reach the validation rules (all of them in Rust,
// `skill_core::model::host`). Each object's fields are read once; Rust gets
// one type tag per field, the ranks, the names back to back, and the few
// repeated strings (source, provider, resourceBase.kind) interned.
// Descriptions, locators, metadata, paths and bodies never leave JS (the rules
// only need to know a description is a non-empty string).

// Field order and tags mirror `Field` and `Tag` in skill_core::model::host.
const FIELDS = 18
const F_VALUE = 0
const F_NAME = 1
const F_DESCRIPTION = 2
const F_WHEN_TO_USE = 3
const F_INVOCATION = 4
const F_MODEL = 5
const F_USER = 6
const F_SOURCE = 7
const F_PROVIDER = 8
const F_RANK = 9
const F_BASE = 10
const F_KIND = 11
const F_BASE_PATH = 12
const F_BASE_URL = 13
const F_BASE_DESCRIPTION = 14
const F_PATH = 15
const F_METADATA = 16
const F_CONTENT = 17

const T_UNDEFINED = 0
const T_NULL = 1
const T_FALSE = 2
const T_TRUE = 3
const T_NUMBER = 4
const T_EMPTY_STRING = 5
const T_STRING = 6
const T_OBJECT = 7
const T_ARRAY = 8
const T_FUNCTION = 9
const T_SYMBOL = 10
const T_BIGINT = 11

const NO_REF = 0xffffffff
// Text chunks close at this many UTF-16 units (V8 builds larger strings in
// its large-object space, which costs more than everything else here).
const CHUNK_UNITS = 16384

/** @param {unknown} value */
function tagOf(value) {
  switch (typeof value) {
    case 'string':
      return value.length === 0 ? T_EMPTY_STRING : T_STRING
    case 'object':
      return value === null ? T_NULL : Array.isArray(value) ? T_ARRAY : T_OBJECT
    case 'undefined':
      return T_UNDEFINED
    case 'boolean':
      return value ? T_TRUE : T_FALSE
    case 'number':
      return T_NUMBER
    case 'function':
      return T_FUNCTION
    case 'symbol':
      return T_SYMBOL
    default:
      return T_BIGINT
  }
}

/** @param {unknown} value */
function isPlainObject(value) {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * Packed records (see skill_core::model::host::Records): per item, one tag per
 * field, its rank, its name, and refs to its interned strings.
 */
// Column buffers reused from one packing to the next (the native side reads
// them synchronously and keeps nothing), so packing does not allocate and free
// external memory every time. Lists longer than this get their own.
const SCRATCH_RECORDS = 16384
const scratch = {
  tags: new Uint8Array(0),
  ranks: new Float64Array(0),
  lengths: new Uint32Array(0),
  refs: new Uint32Array(0),
}

let scratchInUse = false

/**
 * Zeroed columns for `n` records (`refs` filled with `NO_REF`): views of the
 * scratch buffers, unless `n` is large or a packing is already using them (a
 * getter of a packed object may itself register or load a skill).
 */
function columns(n) {
  if (n > SCRATCH_RECORDS || scratchInUse) {
    return {
      tags: new Uint8Array(n * FIELDS),
      ranks: new Float64Array(n),
      lengths: new Uint32Array(n),
      refs: new Uint32Array(n * 3).fill(NO_REF),
    }
  }
  if (scratch.ranks.length < n) {
    const size = Math.min(SCRATCH_RECORDS, Math.max(n, 2 * scratch.ranks.length, 64))
    scratch.tags = new Uint8Array(size * FIELDS)
    scratch.ranks = new Float64Array(size)
    scratch.lengths = new Uint32Array(size)
    scratch.refs = new Uint32Array(size * 3)
  }
  const tags = scratch.tags.subarray(0, n * FIELDS).fill(0)
  const lengths = scratch.lengths.subarray(0, n).fill(0)
  const refs = scratch.refs.subarray(0, n * 3).fill(NO_REF)
  return { tags, ranks: scratch.ranks.subarray(0, n), lengths, refs }
}

class Packer {
  constructor(n) {
    const { tags, ranks, lengths, refs } = columns(n)
    this.tags = tags
    this.ranks = ranks
    this.lengths = lengths
    this.refs = refs
    /** @type {string[]} */
    this.chunks = []
    /** @type {string[]} */
    this.strings = []
    /** Numbers found in fields other than `rank`: `slot, value` pairs. */
    this.numbers = []
    this.interned = new Map()
    /** Each item's name and description as read (what the native catalog holds). */
    this.names = new Array(n)
    this.descriptions = new Array(n)
  }

  /** Tag `value` at `slot` (any type). */
  tag(slot, value) {
    const tag = tagOf(value)
    this.tags[slot] = tag
    if (tag === T_NUMBER) this.numbers.push(slot, value)
    return tag
  }

  intern(value) {
    let ref = this.interned.get(value)
    if (ref === undefined) {
      ref = this.strings.length
      this.strings.push(value)
      this.interned.set(value, ref)
    }
    return ref
  }

  /**
   * Tag a field whose string content the rules read: strings are interned
   * and referenced at `ref`. Returns the reference of a non-empty string,
   * else `NO_REF`.
   */
  internedString(slot, ref, value) {
    const tag = this.tag(slot, value)
    if (tag !== T_STRING && tag !== T_EMPTY_STRING) return NO_REF
    const at = this.intern(value)
    this.refs[ref] = at
    return tag === T_STRING ? at : NO_REF
  }

  /** `resourceBase` and its fields. */
  base(at, i, resourceBase) {
    if (this.tag(at + F_BASE, resourceBase) !== T_OBJECT) return
    this.internedString(at + F_KIND, 3 * i + 2, resourceBase.kind)
    this.tag(at + F_BASE_PATH, resourceBase.path)
    this.tag(at + F_BASE_URL, resourceBase.url)
    this.tag(at + F_BASE_DESCRIPTION, resourceBase.description)
  }

  /** The packed records, `text` being the names not yet in a chunk. */
  finish(text) {
    if (text !== '') this.chunks.push(text)
    const { tags, ranks, lengths, refs, chunks, strings, numbers, names, descriptions } = this
    return { tags, ranks, lengths, refs, chunks, strings, numbers, names, descriptions }
  }
}

/**
 * Packs `items` (candidates, or one definition or registration when
 * `withContent`) for the native rules, and keeps each item's name and
 * description as read. Written for the common case (every field of the
 * expected type) to take the short path.
 * @param {readonly unknown[]} items
 * @param {boolean} withContent
 */
function pack(items, withContent) {
  const outer = !scratchInUse
  try {
    return packInto(items, withContent)
  } finally {
    if (outer) scratchInUse = false
  }
}

function packInto(items, withContent) {
  const n = items.length
  const out = new Packer(n)
  scratchInUse = true
  const { tags, ranks, lengths, refs, names, descriptions } = out
  let text = ''
  // Most providers repeat one source and one provider name: remember the last.
  let lastSource
  let lastSourceRef = NO_REF
  let lastProvider
  let lastProviderRef = NO_REF
  for (let i = 0; i < n; i++) {
    const item = items[i]
    const at = i * FIELDS
    if (!isPlainObject(item)) {
      out.tag(at + F_VALUE, item)
      continue
    }
    tags[at + F_VALUE] = T_OBJECT
    const name = item.name
    names[i] = name
    if (typeof name === 'string' && name.length > 0) {
      tags[at + F_NAME] = T_STRING
      text += name
      lengths[i] = name.length
      if (text.length >= CHUNK_UNITS) {
        out.chunks.push(text)
        text = ''
      }
    } else {
      out.tag(at + F_NAME, name)
    }
    const description = item.description
    descriptions[i] = description
    if (typeof description === 'string' && description.length > 0) tags[at + F_DESCRIPTION] = T_STRING
    else out.tag(at + F_DESCRIPTION, description)
    const whenToUse = item.whenToUse
    if (whenToUse !== undefined) out.tag(at + F_WHEN_TO_USE, whenToUse)
    const invocation = item.invocation
    if (isPlainObject(invocation)) {
      tags[at + F_INVOCATION] = T_OBJECT
      const model = invocation.modelInvocable
      if (model === true) tags[at + F_MODEL] = T_TRUE
      else if (model === false) tags[at + F_MODEL] = T_FALSE
      else out.tag(at + F_MODEL, model)
      const user = invocation.userInvocable
      if (user === true) tags[at + F_USER] = T_TRUE
      else if (user === false) tags[at + F_USER] = T_FALSE
      else out.tag(at + F_USER, user)
    } else {
      out.tag(at + F_INVOCATION, invocation)
    }
    const source = item.source
    if (source === lastSource && lastSourceRef !== NO_REF) {
      tags[at + F_SOURCE] = T_STRING
      refs[3 * i] = lastSourceRef
    } else {
      lastSource = source
      lastSourceRef = out.internedString(at + F_SOURCE, 3 * i, source)
    }
    const provider = item.provider
    if (provider === lastProvider && lastProviderRef !== NO_REF) {
      tags[at + F_PROVIDER] = T_STRING
      refs[3 * i + 1] = lastProviderRef
    } else {
      lastProvider = provider
      lastProviderRef = out.internedString(at + F_PROVIDER, 3 * i + 1, provider)
    }
    const rank = item.rank
    if (typeof rank === 'number') {
      tags[at + F_RANK] = T_NUMBER
      ranks[i] = rank
    } else {
      out.tag(at + F_RANK, rank)
    }
    const resourceBase = item.resourceBase
    if (resourceBase !== undefined) out.base(at, i, resourceBase)
    const path = item.path
    if (path !== undefined) out.tag(at + F_PATH, path)
    const metadata = item.metadata
    if (metadata !== undefined) out.tag(at + F_METADATA, metadata)
    if (withContent) out.tag(at + F_CONTENT, item.content)
  }
  return out.finish(text)
}

/**
 * Texts packed like names (see `PackedTexts` in the binding): a few strings
 * holding them back to back, and their UTF-16 lengths.
 * @param {string[]} texts
 */
function packTexts(texts) {
  const lengths = new Uint32Array(texts.length)
  const chunks = []
  let text = ''
  for (let i = 0; i < texts.length; i++) {
    const piece = texts[i]
    text += piece
    lengths[i] = piece.length
    if (text.length >= CHUNK_UNITS) {
      chunks.push(text)
      text = ''
    }
  }
  if (text !== '') chunks.push(text)
  return { chunks, lengths }
}

/** The summary fields of a runtime registration, read once, defaults applied. */
function runtimeTemplate(skill) {
  return {
    name: skill.name,
    description: skill.description,
    whenToUse: skill.whenToUse,
    invocation: skill.invocation,
    source: skill.source ?? 'runtime',
    provider: skill.provider ?? 'runtime',
    resourceBase: skill.resourceBase,
  }
}

// ---------------------------------------------------------------------------
// Summaries: fresh, plain, mutable objects per lookup, built from the
// winners' own objects: a JS provider's candidate or a runtime registration
// hands back its nested objects as they are (identity kept); a native
// winner's nested objects are fresh too.

/** A summary of a JS-provider candidate or a runtime registration. */
function copySummary(t) {
  const summary = { name: t.name, description: t.description }
  if (t.whenToUse !== undefined) summary.whenToUse = t.whenToUse
  summary.invocation = t.invocation ?? { modelInvocable: true, userInvocable: true }
  summary.source = t.source
  summary.provider = t.provider
  if (t.resourceBase !== undefined) summary.resourceBase = t.resourceBase
  return summary
}

/** A summary of a native winner, nested objects included. */
function copyNativeSummary(t) {
  const summary = { name: t.name, description: t.description }
  if (t.whenToUse !== undefined) summary.whenToUse = t.whenToUse
  const invocation = t.invocation
  summary.invocation = { modelInvocable: invocation.modelInvocable, userInvocable: invocation.userInvocable }
  summary.source = t.source
  summary.provider = t.provider
  const base = t.resourceBase
  if (base !== undefined) {
    if (base.kind === 'directory') summary.resourceBase = { kind: 'directory', path: base.path }
    else if (base.kind === 'url') summary.resourceBase = { kind: 'url', url: base.url }
    else summary.resourceBase = { kind: base.kind, description: base.description }
  }
  return summary
}

/** @param {CatalogEntry} entry */
function freshSummaries(entry) {
  const { sources, winners, rewritten } = entry
  const skills = []
  for (let i = 0; i < sources.length; i++) {
    skills.push(winners[4 * i] === KIND_NATIVE ? copyNativeSummary(sources[i]) : copySummary(sources[i]))
  }
  // Winners whose invocation an override rewrote get a new policy object.
  if (rewritten !== undefined) {
    for (let i = 0; i < rewritten.length; i += 2) skills[rewritten[i]].invocation = rewrittenPolicy(rewritten[i + 1])
  }
  return skills
}

// ---------------------------------------------------------------------------
// Overrides: the rules live in Rust (`skill_core::overrides`), validated
// there; JS reads each rule's own keys and hands over their types and texts.

const REWRITE_USER_ONLY = 1
const REWRITE_MODEL_ONLY = 2

/** A fresh invocation policy for a rewrite code (see `Location` in the binding). */
function rewrittenPolicy(code) {
  return code === REWRITE_USER_ONLY
    ? { modelInvocable: false, userInvocable: true }
    : { modelInvocable: true, userInvocable: false }
}

/**
 * The `overrides` value read for the native rules: its type tag and, per
 * item, its tag and each own enumerable key with its value's tag and text.
 * @param {unknown} value
 */
function packRules(value) {
  const tag = tagOf(value)
  const rules = []
  if (tag !== T_ARRAY) return { tag, rules }
  try {
    for (let i = 0; i < value.length; i++) {
      const rule = value[i]
      const ruleTag = tagOf(rule)
      const keys = ruleTag === T_OBJECT ? Object.keys(rule) : []
      const tags = []
      const texts = []
      for (const key of keys) {
        const field = rule[key]
        tags.push(tagOf(field))
        texts.push(typeof field === 'string' ? field : typeof field === 'number' ? String(field) : '')
      }
      rules.push({ tag: ruleTag, keys, tags, texts })
    }
  } catch (error) {
    throw new TypeError(`overrides cannot be read: ${describeError(error)}`)
  }
  return { tag, rules }
}

/**
 * One candidate of `explain()`: a fresh plain object; a JS provider's or a
 * runtime registration's `resourceBase` is its own object.
 * @param {Record<string, any>} row  one item of the native `explain()`
 * @param {CatalogEntry} entry
 */
function explained(row, entry) {
  let path
  let resourceBase
  if (row.kind === KIND_EXTERNAL) {
    const candidate = entry.hosts.get(row.slot)?.candidates[row.index]
    path = candidate?.path
    resourceBase = candidate?.resourceBase
  } else if (row.kind === KIND_RUNTIME) {
    const runtime = entry.runtime.get(row.index)
    path = runtime?.definition.path
    resourceBase = runtime?.template.resourceBase
  } else {
    path = row.path
    resourceBase = row.resourceBase
  }
  const out = { provider: row.provider, source: row.source, rank: row.rank }
  if (path !== undefined) out.path = path
  if (resourceBase !== undefined) out.resourceBase = resourceBase
  out.invocation = { modelInvocable: row.modelInvocable, userInvocable: row.userInvocable }
  if (row.rule !== undefined) out.override = { rule: row.rule, effect: row.effect }
  return out
}

/** Native provider handles registered in some registry (one registration each). */
const registeredHandles = new WeakSet()

/** Arrays returned by `snapshot()`/`list()` → the catalog entry they came from. */
const returnedArrays = new WeakMap()

/**
 * For a `skills` array returned by `snapshot()` or `list()`: the native catalog
 * it came from (every winner's name, description and invocation in name order,
 * ready to render), and `summaries`, what the registry put at each position:
 * frozen objects with the `name`, `description` and `invocation.modelInvocable`
 * the native catalog holds for it. The catalog renderer checks the array
 * against them before rendering from the native catalog (the array and its
 * summaries are the caller's to change). `undefined` for any other value.
 * @param {unknown} skills
 * @returns {{ catalog: object, summaries: readonly object[] } | undefined}
 */
function catalogSourceOf(skills) {
  if (typeof skills !== 'object' || skills === null) return undefined
  const entry = returnedArrays.get(skills)
  if (entry === undefined) return undefined
  return (entry.source ??= catalogSource(entry))
}

/**
 * The `catalogSourceOf` record of a catalog entry. The runtime and JS-provider
 * descriptions stayed in JS until now: the native catalog gets them here, as
 * they were read when the candidates were packed (or registered).
 * @param {CatalogEntry} entry
 */
function catalogSource(entry) {
  const { catalog, sources, winners, hosts } = entry
  const summaries = []
  const held = []
  for (let i = 0; i < sources.length; i++) {
    const kind = winners[4 * i]
    let name
    let description
    if (kind === KIND_EXTERNAL) {
      const host = hosts.get(winners[4 * i + 1])
      const index = winners[4 * i + 2]
      name = host.names[index]
      description = host.descriptions[index]
    } else {
      name = sources[i].name
      description = sources[i].description
    }
    if (kind !== KIND_NATIVE) held.push(description)
    const invocation = Object.freeze({ modelInvocable: winners[4 * i + 3] === 1 })
    summaries.push(Object.freeze({ name, description, invocation }))
  }
  if (catalog.needsDescriptions) catalog.supplyDescriptions(packTexts(held))
  return Object.freeze({ catalog, summaries: Object.freeze(summaries) })
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
  /** slot → { provider, name, controller, handle } */
  #providers = new Map()
  /** runtime id → { definition, template } */
  #runtime = new Map()
  /** cached catalog id → entry */
  #catalogs = new Map()
  /** cwd → the collection in flight for it */
  #flights = new Map()
  /** @type {Set<() => unknown>} */
  #listeners = new Set()

  /**
   * @param {{ collectCacheMaxEntries?: number, providerTimeoutMs?: number, overrides?: readonly object[], logger?: { warn(message: string): void } }} [config]
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
    const self = new WeakRef(this)
    this.#native = new native.NativeRegistry(size, timeout, (kind, message) => {
      const registry = self.deref()
      if (registry) registry.#onNative(kind, message)
    })
    this.#timeoutMs = timeout
    if (config.overrides !== undefined) this.#setOverrides(config.overrides)
  }

  #setOverrides(rules) {
    const { tag, rules: packed } = packRules(rules)
    this.#native.setOverrides(tag, packed)
  }

  /**
   * Replace the override rules (see the `overrides` option), invalidate
   * completed catalogs and notify listeners once. Invalid rules throw (naming
   * the rule and the key) and leave the rules in force as they were.
   * @param {readonly object[]} rules
   */
  setOverrides(rules) {
    this.#setOverrides(rules)
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
      this.#providers.set(slot, { provider, name: provider.name, controller, handle, waiters: new Set() })
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
    // Release every lookup still waiting on this provider.
    if (record !== undefined) {
      record.released = true
      for (const release of [...record.waiters]) release()
    }
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
    const id = this.#native.registerRuntime(packOrThrow([skill], true, 'runtime skill'))
    const template = runtimeTemplate(skill)
    if (id === null || id === undefined) {
      safeWarn(this.#logger, `runtime skill "${template.name}" is already registered; the duplicate is ignored`)
      return () => {}
    }
    // The definition as registered: later changes to `skill` itself do not
    // leak in; its nested objects are kept as they are.
    this.#runtime.set(id, { definition: { ...skill }, template })
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
    const skills = freshSummaries(entry)
    returnedArrays.set(skills, entry)
    return { skills, complete: entry.complete }
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
      return definition
    }
    const record = this.#providers.get(slot)
    if (record === undefined) return undefined
    if (kind === KIND_NATIVE) {
      const loaded = await raceSignal(entry.catalog.loadNative(name, checkCwd(options?.cwd)), signal)
      if (loaded.warning !== undefined) safeWarn(record.provider[kLogger] ?? this.#logger, loaded.warning)
      const definition = loaded.definition
      if (definition === undefined) return undefined
      if (definition.name !== name) return this.#stale(slot, record)
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
    const entry = await this.#catalogFor(name, options)
    if (entry === undefined) return undefined
    const rows = entry.catalog.explain(name)
    if (!rows) return undefined
    let winner
    const losers = []
    for (const row of rows) {
      if (row.outcome === 'won') winner = explained(row, entry)
      else losers.push({ ...explained(row, entry), reason: row.outcome })
    }
    return { name, complete: entry.complete, winner, losers }
  }

  /**
   * The catalog entry a lookup of skill `name` reads (the signal checked
   * before and after), or `undefined` when `name` is not a skill name.
   */
  async #catalogFor(name, options) {
    const signal = options?.signal
    throwIfAborted(signal)
    if (!native.isSkillName(name)) return undefined
    const entry = await this.#collect(options)
    throwIfAborted(signal)
    return entry
  }

  /** A loaded definition no longer has the catalog's name: re-discover. */
  #stale(slot, record) {
    if (this.#providers.get(slot) === record && this.#native.invalidate(slot)) this.#emit()
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
   * The catalog entry for a lookup: the cached complete catalog, or the result
   * of the collection in flight for the same cwd and generation (joined), or
   * of a new one. Concurrent identical lookups share one call per provider.
   */
  async #collect(options) {
    const signal = options?.signal
    throwIfAborted(signal)
    const cwd = checkCwd(options?.cwd)
    for (;;) {
      const cachedId = this.#native.cached(cwd)
      if (cachedId >= 0) {
        const hit = this.#catalogs.get(cachedId)
        if (hit) return hit
      }
      let flight = this.#flights.get(cwd)
      if (flight === undefined || flight.collection?.generation !== this.#native.generation) {
        flight = this.#fly(cwd, options ?? {})
      }
      const entry = await raceSignal(flight.promise, signal)
      if (entry !== ABANDONED) return entry
      // The flight's leader aborted while a provider was working with its
      // options: this caller starts (or joins) a fresh flight.
    }
  }

  /**
   * Start a collection for `cwd`, led by the lookup whose options are `lookup`
   * (providers receive that very object).
   */
  #fly(cwd, lookup) {
    const flight = {
      cwd,
      lookup,
      collection: undefined,
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
    this.#flights.set(cwd, flight)
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
        if (this.#flights.get(cwd) === flight) this.#flights.delete(cwd)
      })
    return flight
  }

  #abandon(flight) {
    if (flight.abandoned) return
    flight.abandoned = true
    if (this.#flights.get(flight.cwd) === flight) this.#flights.delete(flight.cwd)
    flight.resolve(ABANDONED)
  }

  async #run(flight) {
    const { cwd, lookup } = flight
    for (let attempt = 0; ; attempt++) {
      // What this collection sees: the providers (JS ones are called here,
      // native ones natively) and the runtime skills.
      const external = []
      let hasNative = false
      for (const [slot, record] of this.#providers) {
        if (record.handle) hasNative = true
        else external.push(slot)
      }
      const runtime = new Map(this.#runtime)
      const collection = this.#native.collect(cwd, attempt)
      flight.collection = collection
      if (external.length > 0 && lookup.signal?.aborted) {
        // A retry would hand providers an aborted signal.
        this.#abandon(flight)
        return ABANDONED
      }
      flight.pending = external.length
      const calls = external.map((slot) => this.#listExternal(slot, lookup, flight))
      const nativeList = hasNative ? collection.listNative() : NO_WARNINGS
      const [nativeWarnings, ...outcomes] = await Promise.all([nativeList, ...calls])
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
        const { head, candidates, packed } = packListing(outcome.value, outcome.name)
        collection.addListing(slot, head, packed)
        hosts.set(slot, { candidates, names: packed.names, descriptions: packed.descriptions })
      }
      const finished = collection.finish(states)
      if (finished === null || finished === undefined) continue
      for (const id of finished.evicted) this.#catalogs.delete(id)
      for (const warning of finished.warnings) safeWarn(this.#logger, warning)
      const entry = buildEntry(finished, hosts, runtime)
      if (entry.complete) this.#catalogs.set(finished.id, entry)
      return entry
    }
  }

  /** One JS provider's `list()` for a flight; resolves to its outcome. */
  #listExternal(slot, lookup, flight) {
    const record = this.#providers.get(slot)
    if (record === undefined) {
      flight.pending--
      return Promise.resolve(RELEASED_OUTCOME)
    }
    const call = Promise.resolve().then(() => record.provider.list(lookup))
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

/**
 * A `list()` result packed for the native rules: its head (its tag, the tags
 * of its `candidates` and `complete`, and the numbers behind them, for
 * messages), its candidates, and the candidates packed.
 */
function packListing(value, provider) {
  try {
    const { head, candidates } = readListing(value)
    return { head, candidates, packed: pack(candidates, false) }
  } catch (error) {
    throw new TypeError(`skill provider "${provider}" list() result cannot be read: ${describeError(error)}`)
  }
}

function readListing(value) {
  const valueTag = tagOf(value)
  let candidates = []
  let candidatesTag = T_UNDEFINED
  let completeTag = T_UNDEFINED
  let numbers = [0, 0, 0]
  if (valueTag === T_ARRAY) {
    candidates = value
  } else if (valueTag === T_OBJECT) {
    const listed = value.candidates
    const complete = value.complete
    candidatesTag = tagOf(listed)
    completeTag = tagOf(complete)
    if (candidatesTag === T_ARRAY) candidates = listed
    numbers = [0, candidatesTag === T_NUMBER ? listed : 0, completeTag === T_NUMBER ? complete : 0]
  } else if (valueTag === T_NUMBER) {
    numbers = [value, 0, 0]
  }
  return { head: [valueTag, candidatesTag, completeTag, ...numbers], candidates }
}

/** `pack()`, turning a throwing getter or proxy into an error naming `what`. */
function packOrThrow(items, withContent, what) {
  try {
    return pack(items, withContent)
  } catch (error) {
    throw new TypeError(`${what} cannot be read: ${describeError(error)}`)
  }
}

/**
 * @typedef {{
 *   catalog: InstanceType<typeof native.NativeCatalog>,
 *   complete: boolean,
 *   winners: Float64Array,
 *   sources: object[],
 *   hosts: Map<number, { candidates: unknown[], names: unknown[], descriptions: unknown[] }>,
 *   runtime: Map<number, { definition: object, template: object }>,
 *   rewritten: number[] | undefined,
 *   source?: { catalog: object, summaries: readonly object[] },
 * }} CatalogEntry
 */

/**
 * The JS side of a merged catalog: the native winners (`kind, slot, index,
 * modelInvocable` each, name order), the object each summary is built from
 * (a JS provider's candidate, a runtime registration, a native summary), the
 * winners an override rewrote (`position, code` pairs), and each JS
 * provider's listing and the runtime skills (for `get()` and `explain()`).
 * @returns {CatalogEntry}
 */
function buildEntry(finished, hosts, runtime) {
  const { catalog, winners } = finished
  const count = winners.length / 4
  const sources = new Array(count)
  let natives
  for (let i = 0; i < count; i++) {
    const kind = winners[4 * i]
    const index = winners[4 * i + 2]
    if (kind === KIND_EXTERNAL) {
      sources[i] = hosts.get(winners[4 * i + 1]).candidates[index]
    } else if (kind === KIND_RUNTIME) {
      sources[i] = runtime.get(index).template
    } else {
      natives ??= JSON.parse(catalog.nativeSummariesJson())
      sources[i] = natives[index]
    }
  }
  const rewritten = finished.rewritten.length > 0 ? finished.rewritten : undefined
  return { catalog, complete: finished.complete, winners, sources, hosts, runtime, rewritten, source: undefined }
}

/** A fresh copy of a runtime skill's definition, defaults applied. */
function runtimeDefinition({ definition }) {
  return {
    ...definition,
    invocation: definition.invocation ?? { modelInvocable: true, userInvocable: true },
    provider: definition.provider ?? 'runtime',
    source: definition.source ?? 'runtime',
  }
}

module.exports = { SkillRegistry, isSkillName, isModelInvocable, isUserInvocable, catalogSourceOf }
