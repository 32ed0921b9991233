'use strict'
// Structured catalogs: the `{ name, description }` pairs a catalog message
// publishes, recorded in its message source
// `{ kind: 'skill-catalog', form: 'catalog', update?: true, entries }`, their
// digest, the message text rendered from them, and step planning against the
// newest readable catalog source of a history. Rules, digest and rendering
// live in the Rust core (`skill_core::catalog::structured`); this module reads
// records, packs, and builds the returned objects.

const native = require('./native.js')
const { internal: catalogInternal, renderCatalogMessage, renderCatalogUpdate } = require('./catalog.js')

const { describe, checkOptions, pack, renderThen, copyReport } = catalogInternal

const SOURCE_KIND = 'skill-catalog'
const SOURCE_FORM = 'catalog'

/** Frozen entry arrays and source records this module made → their digest. */
const knownDigests = new WeakMap()

/**
 * Entry arrays of records read before (a history holds the same records step
 * after step) → the names and descriptions read then and their digest. Reused
 * only while the array still holds the very same strings.
 */
const readDigests = new WeakMap()

/**
 * Frozen `{ name, description }` entries sliced out of a packed native result
 * (`units`: every name and description back to back; `lengths` in UTF-16
 * code units).
 */
function entriesOf(units, lengths) {
  const count = lengths.length / 2
  const entries = new Array(count)
  let at = 0
  for (let k = 0; k < count; k++) {
    const nameEnd = at + lengths[2 * k]
    const end = nameEnd + lengths[2 * k + 1]
    entries[k] = Object.freeze({ name: units.slice(at, nameEnd), description: units.slice(nameEnd, end) })
    at = end
  }
  return Object.freeze(entries)
}

/** The frozen entries of a native structured result, their digest remembered. */
function finishStructured(result) {
  const entries = entriesOf(result.units, result.lengths)
  knownDigests.set(entries, result.digest)
  return { entries, digest: result.digest, report: result.report }
}

/** The frozen message source for `entries` (a replacement when `update`). */
function sourceFor(entries, digest, update) {
  const source = Object.freeze(
    update ? { kind: SOURCE_KIND, form: SOURCE_FORM, update: true, entries } : { kind: SOURCE_KIND, form: SOURCE_FORM, entries },
  )
  knownDigests.set(source, digest)
  return source
}

/**
 * Structured entries of the model-invocable skills (sorted by name, each
 * description normalised and cut as in the text, not escaped), their digest
 * and the report. Options as for `renderCatalog`.
 */
function structuredCatalog(skills, options) {
  const fn = 'structuredCatalog'
  const { entries, digest, report } = renderThen('structuredRender', finishStructured, skills, checkOptions(options, fn), fn)
  return { entries, digest, report: copyReport(report) }
}

/**
 * Reads a message source: `{ kind: 'skill-catalog', form: 'catalog', update?,
 * entries }` with `entries` an array of `{ name: string, description: string }`.
 * Every field is read once; a record that is anything else, or whose reading
 * throws (a getter, a proxy), is unreadable.
 * @returns {{ entries: unknown[], names: string[], descriptions: string[], update: boolean } | undefined}
 */
function readRecord(value) {
  try {
    if (value === null || typeof value !== 'object') return undefined
    if (value.kind !== SOURCE_KIND || value.form !== SOURCE_FORM) return undefined
    const entries = value.entries
    if (!Array.isArray(entries)) return undefined
    const count = entries.length
    const names = new Array(count)
    const descriptions = new Array(count)
    for (let i = 0; i < count; i++) {
      const entry = entries[i]
      if (entry === null || typeof entry !== 'object') return undefined
      const name = entry.name
      const description = entry.description
      if (typeof name !== 'string' || typeof description !== 'string') return undefined
      names[i] = name
      descriptions[i] = description
    }
    return { entries, names, descriptions, update: value.update === true }
  } catch {
    return undefined
  }
}

/**
 * The readable skill catalog source `value` holds, as a fresh frozen record
 * `{ kind: 'skill-catalog', form: 'catalog', update?: true, entries }` (the
 * entries copied as `{ name, description }` objects), or `undefined` when it is
 * not one (another kind or form, entries that are not an array of
 * `{ name: string, description: string }`, fields that throw when read).
 */
function readSkillCatalogSource(value) {
  const read = readRecord(value)
  if (read === undefined) return undefined
  const entries = Object.freeze(read.names.map((name, i) => Object.freeze({ name, description: read.descriptions[i] })))
  return Object.freeze(
    read.update
      ? { kind: SOURCE_KIND, form: SOURCE_FORM, update: true, entries }
      : { kind: SOURCE_KIND, form: SOURCE_FORM, entries },
  )
}

/** Packs `{ name, description }` strings as the native side reads skills. */
function packPairs(names, descriptions) {
  const skills = new Array(names.length)
  const both = { modelInvocable: true }
  for (let i = 0; i < names.length; i++) skills[i] = { name: names[i], description: descriptions[i], invocation: both }
  return pack(skills, 'structuredCatalogDigest')
}

/** Digest of a record read by `readRecord` (remembered for records made here). */
function recordDigest(value, read) {
  const known = knownDigests.get(value) ?? knownDigests.get(read.entries)
  if (known !== undefined) return known
  const before = readDigests.get(read.entries)
  if (before !== undefined && sameStrings(before.names, read.names) && sameStrings(before.descriptions, read.descriptions)) {
    return before.digest
  }
  const digest = pairsDigest(read.names, read.descriptions)
  readDigests.set(read.entries, { names: read.names, descriptions: read.descriptions, digest })
  return digest
}

/** The structured digest of entries given as parallel name and description arrays. */
function pairsDigest(names, descriptions) {
  const { chunks, lengths } = packPairs(names, descriptions)
  return native.structuredDigest(chunks, lengths)
}

function sameStrings(a, b) {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

/**
 * Digest of structured entries: lowercase hex SHA-256 of the UTF-8 of every
 * entry written as `JSON.stringify([name, description])`, joined with `\n`.
 */
function structuredCatalogDigest(entries) {
  const read = readRecord({ kind: SOURCE_KIND, form: SOURCE_FORM, entries })
  if (read === undefined) {
    throw new TypeError(
      `structuredCatalogDigest: entries must be an array of { name: string, description: string } (got ${describe(entries)})`,
    )
  }
  return recordDigest(entries, read)
}

/**
 * The catalog message text for structured entries: exactly the message the
 * text renderer gives for the same skills (`renderCatalogMessage`, or
 * `renderCatalogUpdate` when `update`); descriptions are escaped here.
 */
function renderStructuredCatalog(entries, options) {
  const fn = 'renderStructuredCatalog'
  const read = readRecord({ kind: SOURCE_KIND, form: SOURCE_FORM, entries })
  if (read === undefined) {
    throw new TypeError(`${fn}: entries must be an array of { name: string, description: string } (got ${describe(entries)})`)
  }
  if (options !== undefined && (options === null || typeof options !== 'object' || Array.isArray(options))) {
    throw new TypeError(`${fn}: options must be an object { update?, maxLength? } (got ${describe(options)})`)
  }
  const update = options?.update
  if (update !== undefined && typeof update !== 'boolean') {
    throw new TypeError(`${fn}: options.update must be a boolean (got ${describe(update)})`)
  }
  const maxLength = checkOptions({ maxLength: options?.maxLength }, fn).max
  const skills = read.names.map((name, i) => ({ name, description: read.descriptions[i], invocation: { modelInvocable: true } }))
  return update ? renderCatalogUpdate(skills, maxLength) : renderCatalogMessage(skills, maxLength)
}

function checkList(value, what, fn) {
  if (value === null || typeof value !== 'object' || typeof value.length !== 'number') {
    throw new TypeError(`${fn}: ${what} must be an array (got ${describe(value)})`)
  }
}

const defaultSourceOf = (message) => (message !== null && typeof message === 'object' ? message.source : undefined)

/**
 * The newest readable catalog source of `list` (read newest first by index):
 * its position and digest, or `undefined`.
 */
function newestCatalog(list, sourceOf) {
  for (let i = list.length - 1; i >= 0; i--) {
    let value
    try {
      value = sourceOf(list[i], i)
    } catch {
      continue
    }
    const read = readRecord(value)
    if (read !== undefined) return { index: i, digest: recordDigest(value, read) }
  }
  return undefined
}

const NONE = Object.freeze({ kind: 'none' })

/**
 * Decides the catalog message before a model step, from the structured sources
 * recorded in the history (see `types/catalog.d.ts`, `planStructuredCatalogStep`).
 */
function planStructuredCatalogStep(input) {
  const fn = 'planStructuredCatalogStep'
  if (input === null || typeof input !== 'object') {
    throw new TypeError(
      `${fn}: expected { snapshot, history, pending?, sourceOf?, published?, maxLength?, budget?, pinned?, searchTool?, prefer? } (got ${describe(input)})`,
    )
  }
  const { snapshot, history, pending, sourceOf = defaultSourceOf, published = false, maxLength, budget, pinned, searchTool, prefer } = input
  const layout = checkOptions({ maxLength, budget, pinned, searchTool, prefer }, fn)
  if (snapshot === null || typeof snapshot !== 'object') {
    throw new TypeError(`${fn}: snapshot must be a { skills, complete } object (got ${describe(snapshot)})`)
  }
  if (typeof snapshot.complete !== 'boolean') {
    throw new TypeError(`${fn}: snapshot.complete must be a boolean (got ${describe(snapshot.complete)})`)
  }
  checkList(history, 'history', fn)
  if (pending !== undefined) checkList(pending, 'pending', fn)
  if (typeof sourceOf !== 'function') {
    throw new TypeError(`${fn}: sourceOf must be a function (got ${describe(sourceOf)})`)
  }
  if (typeof published !== 'boolean') {
    throw new TypeError(`${fn}: published must be a boolean (got ${describe(published)})`)
  }
  if (!snapshot.complete) return NONE
  const baseline = newestCatalog(history, sourceOf)
  const queued = pending === undefined ? undefined : newestCatalog(pending, sourceOf)
  const step = renderThen(
    'structuredPlan',
    finishStep,
    snapshot.skills,
    layout,
    fn,
    baseline?.digest,
    published,
    queued?.index,
    queued?.digest,
  )
  if (step.kind === 'none') return NONE
  if (step.kind === 'withdraw') return { kind: 'withdraw', index: step.index }
  const out = { kind: step.kind, entries: step.entries, digest: step.digest, text: step.text, source: step.source, report: copyReport(step.report) }
  if (step.replaces !== undefined) out.replaces = step.replaces
  return out
}

/** A native step with its entries and source built (once per native call). */
function finishStep(step) {
  if (step.kind === 'none' || step.kind === 'withdraw') return { kind: step.kind, index: step.index ?? undefined }
  const { entries, digest, report } = finishStructured(step.structured)
  return {
    kind: step.kind,
    entries,
    digest,
    text: step.text,
    source: sourceFor(entries, digest, step.kind === 'replacement'),
    report,
    replaces: step.replaces ?? undefined,
  }
}

/** Native entries → their entries as frozen JS objects (sliced once, when asked for). */
const slicedEntries = new WeakMap()

/**
 * The structured catalog of `skills` (or a registry catalog view) with its
 * entries kept on the native side: `{ native, digest, report }`, `native` a
 * `NativeEntries`. The JS entries are sliced only when asked for
 * (`entriesOfNative`). Memoised for an unchanged registry catalog, as
 * `structuredCatalog` is. `layout` is checked already (`checkOptions`).
 */
function structuredNative(skills, layout, fn) {
  return renderThen('structuredNative', finishNative, skills, layout, fn)
}

function finishNative(result) {
  return { native: result.entries, digest: result.digest, report: result.report }
}

/** The frozen `{ name, description }` entries of a `NativeEntries` (sliced once per object). */
function entriesOfNative(entries) {
  let sliced = slicedEntries.get(entries)
  if (sliced === undefined) {
    const { units, lengths } = entries.packed()
    sliced = entriesOf(units, lengths)
    knownDigests.set(sliced, entries.digest)
    slicedEntries.set(entries, sliced)
  }
  return sliced
}

/** `NativeEntries` of parallel name and description arrays, in the order given. */
function nativeEntries(names, descriptions) {
  const { chunks, lengths } = packPairs(names, descriptions)
  return native.NativeEntries.fromPacked(chunks, lengths)
}

/** Shared with the `skill` tool plugin (`lib/tool-skill/`); not part of the public API. */
const internal = Object.freeze({ readRecord, recordDigest, packPairs, entriesOf, structuredNative, entriesOfNative, nativeEntries })

module.exports = {
  internal,
  structuredCatalog,
  structuredCatalogDigest,
  readSkillCatalogSource,
  renderStructuredCatalog,
  planStructuredCatalogStep,
}
