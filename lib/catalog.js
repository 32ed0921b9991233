'use strict'
// Model-facing skill catalog: entries, digest, messages, step planning, history
// scan and the `skill` tool result. Rules and rendering live in the Rust core
// (`skill_core::catalog`); this module checks arguments and either hands over
// the registry's own native catalog (for an unchanged array the registry
// returned) or packs summaries so they cross into native code as a few strings
// and one Uint32Array.

const native = require('./native.js')
const { catalogSourceOf, viewCatalog, viewEntryOf, addModelLabels, freshSummaries } = require('./registry.js')

/** Default description limit (`catalogDescriptionMaxLength`). */
const DEFAULT_MAX_LENGTH = 500
const OPEN_TAG = '<available_skills>\n'
const CLOSE_TAG = '</available_skills>'
// Largest limit the native side takes; no JS string is that long, so larger
// limits behave the same (nothing is cut).
const MAX_LIMIT = 0xffffffff

function describe(value) {
  if (value === null) return 'null'
  if (typeof value === 'string') return JSON.stringify(value)
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') {
    return `${typeof value} ${String(value)}`
  }
  if (Array.isArray(value)) return 'an array'
  return typeof value
}

function checkMaxLength(maxLength, fn) {
  if (maxLength === undefined) return DEFAULT_MAX_LENGTH
  if (typeof maxLength !== 'number') {
    throw new TypeError(`${fn}: maxLength must be an integer >= 3 (got ${describe(maxLength)})`)
  }
  if (!Number.isInteger(maxLength) || maxLength < 3) {
    throw new RangeError(`${fn}: maxLength must be an integer >= 3 (got ${describe(maxLength)})`)
  }
  return maxLength > MAX_LIMIT ? MAX_LIMIT : maxLength
}

function checkBudget(budget, fn) {
  if (budget === undefined) return undefined
  if (typeof budget !== 'number') {
    throw new TypeError(`${fn}: budget must be a positive integer (got ${describe(budget)})`)
  }
  if (!Number.isInteger(budget) || budget < 1) {
    throw new RangeError(`${fn}: budget must be a positive integer (got ${describe(budget)})`)
  }
  return budget > MAX_LIMIT ? MAX_LIMIT : budget
}

function checkPinned(pinned, fn) {
  if (pinned === undefined) return undefined
  if (!Array.isArray(pinned)) {
    throw new TypeError(`${fn}: pinned must be an array of skill names (got ${describe(pinned)})`)
  }
  for (let i = 0; i < pinned.length; i++) {
    if (typeof pinned[i] !== 'string') {
      throw new TypeError(`${fn}: pinned[${i}] must be a skill name string (got ${describe(pinned[i])})`)
    }
  }
  return pinned
}

// A tool name as the last line of a budgeted block writes it (between backticks).
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,64}$/

function checkSearchTool(searchTool, fn) {
  if (searchTool === undefined) return undefined
  const message = `${fn}: searchTool must be a tool name of 1 to 64 letters, digits, '_', '-' or '.' (got ${describe(searchTool)})`
  if (typeof searchTool !== 'string') throw new TypeError(message)
  if (!TOOL_NAME.test(searchTool)) throw new RangeError(message)
  return searchTool
}

function checkPrefer(prefer, fn) {
  if (prefer === undefined || prefer === 'rank' || prefer === 'used') return prefer
  const message = `${fn}: prefer must be 'rank' or 'used' (got ${describe(prefer)})`
  throw typeof prefer === 'string' ? new RangeError(message) : new TypeError(message)
}

/**
 * The layout options of a catalog: `{ maxLength?, budget?, pinned?,
 * searchTool?, prefer? }`, or a number (the `maxLength`, as earlier releases
 * took it). Without a budget, only `maxLength` counts (the others are
 * checked all the same).
 * @returns {{ max: number, budget: number | undefined, pinned: string[] | undefined, searchTool: string | undefined, preferUsed: boolean | undefined }}
 */
function checkOptions(options, fn) {
  if (options === undefined || typeof options === 'number') {
    return { max: checkMaxLength(options, fn), budget: undefined, pinned: undefined, searchTool: undefined, preferUsed: undefined }
  }
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new TypeError(
      `${fn}: maxLength must be an integer >= 3, or options an object { maxLength?, budget?, pinned?, searchTool?, prefer? } (got ${describe(options)})`,
    )
  }
  const max = checkMaxLength(options.maxLength, fn)
  const budget = checkBudget(options.budget, fn)
  const pinned = checkPinned(options.pinned, fn)
  const searchTool = checkSearchTool(options.searchTool, fn)
  const prefer = checkPrefer(options.prefer, fn)
  if (budget === undefined) return { max, budget, pinned: undefined, searchTool: undefined, preferUsed: undefined }
  return { max, budget, pinned, searchTool, preferUsed: prefer === 'used' ? true : undefined }
}

// Pack chunks close at this many UTF-16 units: small enough for V8 to build them
// in its regular heap (a single string of a large catalog goes to large-object
// space, which is several times slower than everything else here).
const CHUNK_UNITS = 16384

/**
 * Source labels of the model-invocable skills, interned: `sources` the
 * distinct labels in order of first appearance, `origins` one index into them
 * per skill. A summary without `source` counts under `''`.
 */
const NO_LABEL = Symbol('no label yet')

class SourceLabels {
  constructor(count) {
    this.sources = []
    this.origins = new Uint32Array(count)
    this.count = 0
    this.index = new Map()
    // The value added last and its index (neighbours mostly share a label).
    this.last = NO_LABEL
    this.lastAt = 0
  }

  /** Adds the label of the next skill; false when it is not a string (or absent). */
  add(value) {
    if (value === this.last) {
      this.origins[this.count++] = this.lastAt
      return true
    }
    let source = value
    if (source === undefined) source = ''
    else if (typeof source !== 'string') return false
    let at = this.index.get(source)
    if (at === undefined) {
      at = this.sources.length
      this.sources.push(source)
      this.index.set(source, at)
    }
    this.last = value
    this.lastAt = at
    this.origins[this.count++] = at
    return true
  }

  /** The layout fields for the native renderer. */
  layout() {
    const origins = this.count === this.origins.length ? this.origins : this.origins.subarray(0, this.count)
    return { sources: this.sources, origins }
  }

  /** Whether `other` holds the same label for every skill. */
  equals(other) {
    if (this.count !== other.count || this.sources.length !== other.sources.length) return false
    for (let i = 0; i < this.sources.length; i++) if (this.sources[i] !== other.sources[i]) return false
    for (let i = 0; i < this.count; i++) if (this.origins[i] !== other.origins[i]) return false
    return true
  }
}

/**
 * Packs the model-invocable summaries: names and descriptions back to back in a
 * few strings (`chunks`; a pair never spans two), and their JS lengths (UTF-16
 * code units) pairwise in a Uint32Array. Only `name`, `description` and
 * `invocation.modelInvocable` are read, and `source` when `labels` (a
 * `SourceLabels`) is given.
 */
function pack(skills, fn, labels) {
  if (!Array.isArray(skills)) {
    throw new TypeError(`${fn}: skills must be an array of skill summaries (got ${describe(skills)})`)
  }
  const count = skills.length
  const lengths = new Uint32Array(count * 2)
  const chunks = []
  let text = ''
  let k = 0
  for (let i = 0; i < count; i++) {
    const skill = skills[i]
    if (skill === null || typeof skill !== 'object') {
      throw new TypeError(`${fn}: skills[${i}] must be a skill summary object (got ${describe(skill)})`)
    }
    const invocation = skill.invocation
    if (invocation === null || typeof invocation !== 'object') {
      throw new TypeError(
        `${fn}: skills[${i}].invocation must be an object { modelInvocable, userInvocable } (got ${describe(invocation)})`,
      )
    }
    if (!invocation.modelInvocable) continue
    const name = skill.name
    const description = skill.description
    if (typeof name !== 'string') {
      throw new TypeError(`${fn}: skills[${i}].name must be a string (got ${describe(name)})`)
    }
    if (typeof description !== 'string') {
      throw new TypeError(`${fn}: skills[${i}].description must be a string (got ${describe(description)})`)
    }
    if (labels !== undefined && !labels.add(skill.source)) {
      throw new TypeError(`${fn}: skills[${i}].source must be a string when present (got ${describe(skill.source)})`)
    }
    text += name
    text += description
    lengths[k++] = name.length
    lengths[k++] = description.length
    if (text.length >= CHUNK_UNITS) {
      chunks.push(text)
      text = ''
    }
  }
  if (text !== '') chunks.push(text)
  return { chunks, lengths: k === lengths.length ? lengths : lengths.subarray(0, k) }
}

/**
 * The registry's native catalog behind `skills`, when `skills` is an array the
 * registry returned and it still holds, position by position, the same
 * `name`, `description` and `invocation.modelInvocable` the registry put there
 * (the fields the catalog reads, read the way `pack` reads them). Anything
 * else (another array, a summary replaced, mutated, added or removed) gives
 * `undefined`, and the summaries are packed instead. With `labels`, the
 * `source` of each model-invocable summary is added to it on the way (a
 * source that is not a string also gives `undefined`: packing reports it).
 */
function registryCatalog(skills, labels, exact) {
  const source = catalogSourceOf(skills)
  if (source === undefined) return undefined
  if (exact && !wellFormedSource(source)) return undefined
  const expected = source.summaries
  const count = expected.length
  if (skills.length !== count) return undefined
  for (let i = 0; i < count; i++) {
    const skill = skills[i]
    if (skill === null || typeof skill !== 'object') return undefined
    const invocation = skill.invocation
    if (invocation === null || typeof invocation !== 'object') return undefined
    const want = expected[i]
    const modelInvocable = invocation.modelInvocable
    if (modelInvocable !== want.invocation.modelInvocable) return undefined
    if (!modelInvocable) continue
    if (skill.name !== want.name || skill.description !== want.description) return undefined
    if (labels !== undefined && !labels.add(skill.source)) return undefined
  }
  return source.catalog
}

const isWellFormed =
  typeof String.prototype.isWellFormed === 'function'
    ? (text) => text.isWellFormed()
    : (text) => !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text)

/** Registry catalog records → whether every description is well-formed UTF-16. */
const wellFormedSources = new WeakMap()

/**
 * Whether every description of a registry catalog record is well-formed
 * UTF-16. The native catalog holds descriptions as UTF-8, where a lone
 * surrogate became U+FFFD: the operations that must see the exact JS string
 * (structured entries, hashed with `JSON.stringify`) pack the summaries instead.
 */
function wellFormedSource(source) {
  let known = wellFormedSources.get(source)
  if (known === undefined) {
    known = source.summaries.every((s) => isWellFormed(s.description))
    wellFormedSources.set(source, known)
  }
  return known
}

const NO_CHUNKS = Object.freeze([])
const NO_LENGTHS = new Uint32Array(0)

// Results rendered from registry catalogs, by catalog handle and then by
// operation and arguments (both least recently used first). A registry catalog
// never changes, so the same arguments give the same result: a consumer
// planning every model step from an unchanged snapshot gets the answer without
// rendering again. Bounded, and only for arrays that passed `registryCatalog`.
const MEMO_CATALOGS = 8
const MEMO_RESULTS = 8
const memo = new Map()

function memoized(handle, key, compute) {
  let results = memo.get(handle)
  if (results === undefined) {
    results = new Map()
    if (memo.size >= MEMO_CATALOGS) memo.delete(memo.keys().next().value)
  } else {
    memo.delete(handle)
  }
  memo.set(handle, results)
  let result
  if (results.has(key)) {
    result = results.get(key)
    results.delete(key)
  } else {
    result = compute()
    if (results.size >= MEMO_RESULTS) results.delete(results.keys().next().value)
  }
  results.set(key, result)
  return result
}

// Operations whose result holds a report (counted per source).
const REPORTING = new Set(['catalogRender', 'catalogPlan', 'structuredRender', 'structuredPlan', 'structuredNative'])
// Operations that read descriptions as exact JS strings (UTF-16).
const EXACT = new Set(['structuredRender', 'structuredPlan', 'structuredNative'])
const same = (value) => value

/**
 * Calls the native renderer `op` with the layout options, on the registry's
 * catalog when `skills` is an unchanged array the registry returned (memoised),
 * else on the packed summaries. `extra` are the operation's own arguments.
 * The skills' sources go along when a budget shares its room by source or
 * the result reports per source. Objects in the result may be shared: callers copy them.
 */
function render(op, skills, layout, fn, ...extra) {
  return renderThen(op, same, skills, layout, fn, ...extra)
}

/**
 * `render`, then `finish` applied to the native result (once per native call:
 * a reused result is the finished one, so it must not be changed by callers).
 */
function renderThen(op, finish, skills, layout, fn, ...extra) {
  const entry = viewEntryOf(skills)
  if (entry !== undefined) return renderView(op, finish, entry, layout, fn, extra)
  const count = Array.isArray(skills) ? skills.length : 0
  const labels = REPORTING.has(op) || layout.budget !== undefined ? new SourceLabels(count) : undefined
  const registry = registryCatalog(skills, labels, EXACT.has(op))
  if (registry === undefined) {
    const fresh = labels === undefined ? undefined : new SourceLabels(count)
    const { chunks, lengths } = pack(skills, fn, fresh)
    const withSources = fresh === undefined ? layout : { ...layout, ...fresh.layout() }
    return finish(native[op](undefined, chunks, lengths, withSources, ...extra))
  }
  const key = JSON.stringify([op, layout.max, layout.budget, layout.pinned, layout.searchTool, layout.preferUsed, ...extra])
  const withSources = labels === undefined ? layout : { ...layout, ...labels.layout() }
  // The registry decides ranks; the labels only name the report's sources,
  // read from the array each time: a result is reused for the same labels.
  const kept = memoized(registry, key, () => ({
    labels,
    result: finish(native[op](registry, NO_CHUNKS, NO_LENGTHS, withSources, ...extra)),
  }))
  if (labels !== undefined && !labels.equals(kept.labels)) {
    kept.labels = labels
    kept.result = finish(native[op](registry, NO_CHUNKS, NO_LENGTHS, withSources, ...extra))
  }
  return kept.result
}

/** Catalog entries behind view tokens → the labels of their model-invocable skills (see `renderView`). */
const viewLabels = new WeakMap()

/**
 * `renderThen` for a catalog view token the registry handed out (see
 * `kCatalogView`): straight from the registry's native catalog, memoised
 * like an unchanged returned array, without summaries to check. The labels
 * of the entry's winners are read once per entry. Descriptions that are not
 * well-formed UTF-16, and labels that are not strings, send the view's
 * summaries the usual way instead.
 */
function renderView(op, finish, entry, layout, fn, extra) {
  const { catalog, count, wellFormed } = viewCatalog(entry, isWellFormed)
  const fallback = () => renderThen(op, finish, freshSummaries(entry), layout, fn, ...extra)
  if (EXACT.has(op) && !wellFormed) return fallback()
  let labels
  if (REPORTING.has(op) || layout.budget !== undefined) {
    labels = viewLabels.get(entry)
    if (labels === undefined) {
      labels = new SourceLabels(count)
      if (!addModelLabels(entry, (label) => labels.add(label))) return fallback()
      viewLabels.set(entry, labels)
    }
  }
  const key = JSON.stringify([op, layout.max, layout.budget, layout.pinned, layout.searchTool, layout.preferUsed, ...extra])
  const withSources = labels === undefined ? layout : { ...layout, ...labels.layout() }
  const compute = () => finish(native[op](catalog, NO_CHUNKS, NO_LENGTHS, withSources, ...extra))
  const kept = memoized(catalog, key, () => ({ labels, result: compute() }))
  // A result kept for a returned array of the same catalog whose labels were changed since.
  if (labels !== undefined && kept.labels !== labels && !labels.equals(kept.labels)) {
    kept.labels = labels
    kept.result = compute()
  }
  return kept.result
}

/** A fresh copy of a native report, its per-source counts as a record. */
function copyReport(report) {
  const bySource = {}
  for (const { source, total, full, shortened, nameOnly, omitted } of report.bySource) {
    // Defined, not assigned: a label such as `__proto__` stays a plain key.
    Object.defineProperty(bySource, source, {
      value: { total, full, shortened, nameOnly, omitted },
      enumerable: true,
      writable: true,
      configurable: true,
    })
  }
  const { total, full, shortened, nameOnly, omitted, chars } = report
  return { total, full, shortened, nameOnly, omitted, chars, bySource }
}

/**
 * Joined catalog entries (`` - `NAME`: DESCRIPTION `` lines) of the
 * model-invocable summaries, sorted by name.
 */
function renderCatalogEntries(skills, options) {
  const fn = 'renderCatalogEntries'
  return render('catalogEntries', skills, checkOptions(options, fn), fn)
}

/** Lowercase hex SHA-256 of the UTF-8 of `renderCatalogEntries(skills, options)`. */
function catalogDigest(skills, options) {
  const fn = 'catalogDigest'
  return render('catalogDigest', skills, checkOptions(options, fn), fn)
}

/** Entries, their digest and the report in one native call. */
function renderCatalog(skills, options) {
  const fn = 'renderCatalog'
  const { entries, digest, report } = render('catalogRender', skills, checkOptions(options, fn), fn)
  return { entries, digest, report: copyReport(report) }
}

/**
 * Digest of the catalog held by a stored catalog message (the text between
 * `<available_skills>\n` and `</available_skills>`, one trailing newline
 * dropped), or `undefined` when the text holds no catalog.
 */
function catalogContentDigest(messageText) {
  if (typeof messageText !== 'string') {
    throw new TypeError(`catalogContentDigest: messageText must be a string (got ${describe(messageText)})`)
  }
  return native.catalogContentDigest(messageText) ?? undefined
}

/** The initial catalog message (a `<system-reminder>` holding the entries). */
function renderCatalogMessage(skills, options) {
  const fn = 'renderCatalogMessage'
  return render('catalogMessage', skills, checkOptions(options, fn), fn, false)
}

/**
 * The replacement catalog message: replaces every earlier catalog; with no
 * model-invocable skills it is the empty tombstone.
 */
function renderCatalogUpdate(skills, options) {
  const fn = 'renderCatalogUpdate'
  return render('catalogMessage', skills, checkOptions(options, fn), fn, true)
}

/** The search tool of `…/harness/search-tool` (its `toolName`). */
const { SEARCH_TOOL_NAME: SEARCH_TOOL } = require('./cordis/search-tool.js')

/**
 * The warning for a budgeted catalog that left skills out while the model has
 * no search tool: it never sees their names, so only a search tool reaches
 * them. Undefined when nothing is left out, or `searchTool` names one.
 * @param {{ total: number, omitted: number }} report the report of the catalog (`renderCatalog`, `planCatalogStep`)
 * @param {{ searchTool?: string }} [options] the catalog's options
 */
function catalogBudgetWarning(report, options = {}) {
  const fn = 'catalogBudgetWarning'
  if (report === null || typeof report !== 'object' || !Number.isInteger(report.omitted) || !Number.isInteger(report.total)) {
    throw new TypeError(`${fn}: report must be a catalog report { total, omitted, ... } (got ${describe(report)})`)
  }
  if (report.omitted === 0 || (options !== null && typeof options === 'object' && typeof options.searchTool === 'string')) return undefined
  const n = (value) => value.toLocaleString('en-US')
  const [names, them] = report.omitted === 1 ? ['its name', 'it is'] : ['their names', 'they are']
  return (
    `the catalog budget leaves out ${n(report.omitted)} of ${n(report.total)} skills: the model never sees ${names}, so ` +
    `${them} reachable only through a search tool. Mount @deepseek-ai/dsh-skill-native/harness/search-tool ` +
    `(tool \`${SEARCH_TOOL}\`) and pass searchTool: '${SEARCH_TOOL}' to the catalog`
  )
}

const NONE = Object.freeze({ kind: 'none' })

/**
 * Decides what to publish before a model step.
 * - incomplete snapshot → `{ kind: 'none' }` (keep the last complete view);
 * - digest equals `visibleDigest` → none;
 * - nothing published and no model-invocable skills → none;
 * - never published → `initial`; otherwise (changed, or hidden by compaction so
 *   no visible digest) → `replacement`, the empty tombstone included.
 * A `visibleDigest` implies `published`. `maxLength`, `budget`, `pinned`,
 * `searchTool` and `prefer` shape the entries as in `renderCatalog`.
 */
function planCatalogStep(input) {
  if (input === null || typeof input !== 'object') {
    throw new TypeError(
      `planCatalogStep: expected { snapshot, visibleDigest?, published, maxLength?, budget?, pinned?, searchTool?, prefer? } (got ${describe(input)})`,
    )
  }
  const { snapshot, visibleDigest, published, maxLength, budget, pinned, searchTool, prefer } = input
  const layout = checkOptions({ maxLength, budget, pinned, searchTool, prefer }, 'planCatalogStep')
  if (snapshot === null || typeof snapshot !== 'object') {
    throw new TypeError(`planCatalogStep: snapshot must be a { skills, complete } object (got ${describe(snapshot)})`)
  }
  if (typeof snapshot.complete !== 'boolean') {
    throw new TypeError(`planCatalogStep: snapshot.complete must be a boolean (got ${describe(snapshot.complete)})`)
  }
  if (visibleDigest !== undefined && typeof visibleDigest !== 'string') {
    throw new TypeError(`planCatalogStep: visibleDigest must be a string when present (got ${describe(visibleDigest)})`)
  }
  if (typeof published !== 'boolean') {
    throw new TypeError(`planCatalogStep: published must be a boolean (got ${describe(published)})`)
  }
  if (!snapshot.complete) return NONE
  const step = render('catalogPlan', snapshot.skills, layout, 'planCatalogStep', visibleDigest, published)
  if (step === null || step === undefined) return NONE
  return { kind: step.kind, text: step.text, digest: step.digest, report: copyReport(step.report) }
}

function hasCatalogBlock(text) {
  const open = text.indexOf(OPEN_TAG)
  return open !== -1 && text.indexOf(CLOSE_TAG, open + OPEN_TAG.length) !== -1
}

/**
 * Walks session events newest-first (by index, from `events.length - 1` down;
 * the array is not copied) to find the newest catalog message still visible to
 * the model.
 *
 * `options.catalogText(event, index)` returns the message text when the event is
 * a catalog message published by the caller (anything else: `undefined`), and
 * `options.isVisible(event, index)` whether the model still sees it (tool
 * visibility, compaction). A text counts as a catalog only when it holds a
 * complete `<available_skills>` block; only the visible one found is hashed.
 *
 * @returns `{ visibleDigest, published: true }` for the newest visible catalog,
 *   else `{ published }` (whether any recognisable catalog exists at all).
 */
function scanCatalogHistory(events, options) {
  if (events === null || typeof events !== 'object' || typeof events.length !== 'number') {
    throw new TypeError(`scanCatalogHistory: events must be an array of session events (got ${describe(events)})`)
  }
  if (options === null || typeof options !== 'object') {
    throw new TypeError(`scanCatalogHistory: expected options { catalogText, isVisible } (got ${describe(options)})`)
  }
  const { catalogText, isVisible } = options
  if (typeof catalogText !== 'function' || typeof isVisible !== 'function') {
    throw new TypeError('scanCatalogHistory: options.catalogText and options.isVisible must be functions')
  }
  let published = false
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]
    const text = catalogText(event, i)
    if (typeof text !== 'string' || !hasCatalogBlock(text)) continue
    published = true
    if (isVisible(event, i)) {
      return { visibleDigest: native.catalogContentDigest(text), published: true }
    }
  }
  return { published }
}

const RESOURCE_FIELD = { directory: 'path', url: 'url', opaque: 'description' }

/**
 * The `skill` tool result: `<skill_content name="...">` with a
 * `<skill_resources>` hint for the `resourceBase` kind (none: provider-managed)
 * and the body in `<skill_instructions>`.
 */
function renderSkillContent(input) {
  return renderSkillContentIn(input, false)
}

/**
 * `renderSkillContent` in the layout of the harness release it serves:
 * `spaced` puts one blank line between `</skill_resources>` and
 * `<skill_instructions>` (release 0.1.1-rc.2; see lib/content.js).
 */
function renderSkillContentIn(input, spaced) {
  if (input === null || typeof input !== 'object') {
    throw new TypeError(`renderSkillContent: expected { name, provider, resourceBase?, content } (got ${describe(input)})`)
  }
  const { name, provider, resourceBase, content } = input
  for (const [field, value] of [
    ['name', name],
    ['provider', provider],
    ['content', content],
  ]) {
    if (typeof value !== 'string') {
      throw new TypeError(`renderSkillContent: ${field} must be a string (got ${describe(value)})`)
    }
  }
  let base
  if (resourceBase !== undefined && resourceBase !== null) {
    if (typeof resourceBase !== 'object') {
      throw new TypeError(`renderSkillContent: resourceBase must be an object when present (got ${describe(resourceBase)})`)
    }
    const kind = resourceBase.kind
    const field = typeof kind === 'string' && Object.hasOwn(RESOURCE_FIELD, kind) ? RESOURCE_FIELD[kind] : undefined
    if (field === undefined) {
      throw new TypeError(`renderSkillContent: resourceBase.kind must be 'directory', 'url' or 'opaque' (got ${describe(kind)})`)
    }
    const value = resourceBase[field]
    if (typeof value !== 'string') {
      throw new TypeError(`renderSkillContent: resourceBase.${field} must be a string for kind '${kind}' (got ${describe(value)})`)
    }
    base = { kind, [field]: value }
  }
  return native.renderSkillContentNative(name, provider, base, content, spaced)
}

/**
 * Shared with the structured catalog (`lib/catalog-structured.js`); not part
 * of the public API.
 */
const internal = Object.freeze({ describe, checkOptions, pack, renderThen, copyReport, isWellFormed })

module.exports = {
  internal,
  DEFAULT_CATALOG_MAX_LENGTH: DEFAULT_MAX_LENGTH,
  renderCatalogEntries,
  catalogDigest,
  renderCatalog,
  catalogContentDigest,
  renderCatalogMessage,
  renderCatalogUpdate,
  planCatalogStep,
  scanCatalogHistory,
  renderSkillContent,
  renderSkillContentIn,
  catalogBudgetWarning,
  SEARCH_TOOL,
}
