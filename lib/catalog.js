'use strict'
// Model-facing skill catalog: entries, digest, messages, step planning, history
// scan and the `skill` tool result. Rules and rendering live in the Rust core
// (`skill_core::catalog`); this module checks arguments and packs summaries so
// they cross into native code as one string and one Uint32Array.

const native = require('../binding.js')

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

// Pack chunks close at this many UTF-16 units: small enough for V8 to build them
// in its regular heap (a single string of a large catalog goes to large-object
// space, which is several times slower than everything else here).
const CHUNK_UNITS = 16384

/**
 * Packs the model-invocable summaries: names and descriptions back to back in a
 * few strings (`chunks`; a pair never spans two), and their JS lengths (UTF-16
 * code units) pairwise in a Uint32Array. Only `name`, `description` and
 * `invocation.modelInvocable` are read.
 */
function pack(skills, fn) {
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
 * Joined catalog entries (`` - `NAME`: DESCRIPTION `` lines) of the
 * model-invocable summaries, sorted by name.
 */
function renderCatalogEntries(skills, maxLength) {
  const max = checkMaxLength(maxLength, 'renderCatalogEntries')
  const { chunks, lengths } = pack(skills, 'renderCatalogEntries')
  return native.catalogEntriesPacked(chunks, lengths, max)
}

/** Lowercase hex SHA-256 of the UTF-8 of `renderCatalogEntries(skills, maxLength)`. */
function catalogDigest(skills, maxLength) {
  const max = checkMaxLength(maxLength, 'catalogDigest')
  const { chunks, lengths } = pack(skills, 'catalogDigest')
  return native.catalogDigestPacked(chunks, lengths, max)
}

/** Entries and their digest in one native call. */
function renderCatalog(skills, maxLength) {
  const max = checkMaxLength(maxLength, 'renderCatalog')
  const { chunks, lengths } = pack(skills, 'renderCatalog')
  return native.catalogRenderPacked(chunks, lengths, max)
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
function renderCatalogMessage(skills, maxLength) {
  const max = checkMaxLength(maxLength, 'renderCatalogMessage')
  const { chunks, lengths } = pack(skills, 'renderCatalogMessage')
  return native.catalogMessagePacked(chunks, lengths, max, false)
}

/**
 * The replacement catalog message: replaces every earlier catalog; with no
 * model-invocable skills it is the empty tombstone.
 */
function renderCatalogUpdate(skills, maxLength) {
  const max = checkMaxLength(maxLength, 'renderCatalogUpdate')
  const { chunks, lengths } = pack(skills, 'renderCatalogUpdate')
  return native.catalogMessagePacked(chunks, lengths, max, true)
}

const NONE = Object.freeze({ kind: 'none' })

/**
 * Decides what to publish before a model step.
 * - incomplete snapshot → `{ kind: 'none' }` (keep the last complete view);
 * - digest equals `visibleDigest` → none;
 * - nothing published and no model-invocable skills → none;
 * - never published → `initial`; otherwise (changed, or hidden by compaction so
 *   no visible digest) → `replacement`, the empty tombstone included.
 * A `visibleDigest` implies `published`.
 */
function planCatalogStep(input) {
  if (input === null || typeof input !== 'object') {
    throw new TypeError(`planCatalogStep: expected { snapshot, visibleDigest?, published, maxLength? } (got ${describe(input)})`)
  }
  const { snapshot, visibleDigest, published, maxLength } = input
  const max = checkMaxLength(maxLength, 'planCatalogStep')
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
  const { chunks, lengths } = pack(snapshot.skills, 'planCatalogStep')
  return native.catalogPlanPacked(chunks, lengths, max, visibleDigest, published) ?? NONE
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
  return native.renderSkillContentNative(name, provider, base, content)
}

module.exports = {
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
}
