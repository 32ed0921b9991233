'use strict'
// Catalog deltas: what changed between two published catalogs (structured
// entries, name order), the durable record of a delta message, and applying
// recorded deltas to rebuild the catalog a model holds.
//
// A delta record is a message source
// `{ kind: 'skill-catalog', form: 'catalog', update: true, delta }` with
// `delta = { base, digest, added, changed, removed }`: `base` the digest of
// the catalog it applies to, `digest` the digest after it (both the
// structured digest: sha256 hex of the entries as JSON `[name, description]`
// lines), `added` and `changed` `{ name, description }` entries as the catalog
// publishes them, `removed` names. It has no `entries`, so a reader that
// knows only full catalogs (the release's plugin) skips it as unreadable.

const HEX_DIGEST = /^[0-9a-f]{64}$/

/** Entries as two parallel arrays, names strictly increasing (the catalog's order). */
class Entries {
  /**
   * @param {string[]} names
   * @param {string[]} descriptions
   */
  constructor(names, descriptions) {
    this.names = names
    this.descriptions = descriptions
  }

  get length() {
    return this.names.length
  }

  /** Entries from `{ name, description }` objects when their names are strictly increasing, else `undefined`. */
  static sorted(names, descriptions) {
    for (let i = 1; i < names.length; i++) if (!(names[i - 1] < names[i])) return undefined
    return new Entries(names, descriptions)
  }
}

/**
 * What changed from `before` to `after` (both `Entries`): names only in
 * `after` (added), names in both whose description differs (changed), names
 * only in `before` (removed). One merge pass over both.
 * @returns {{ added: { name: string, description: string }[], changed: { name: string, description: string }[], removed: string[] }}
 */
function diffEntries(before, after) {
  const added = []
  const changed = []
  const removed = []
  const a = before.names
  const b = after.names
  let i = 0
  let j = 0
  while (i < a.length || j < b.length) {
    if (j >= b.length || (i < a.length && a[i] < b[j])) {
      removed.push(a[i++])
    } else if (i >= a.length || b[j] < a[i]) {
      added.push({ name: b[j], description: after.descriptions[j] })
      j++
    } else {
      if (before.descriptions[i] !== after.descriptions[j]) changed.push({ name: b[j], description: after.descriptions[j] })
      i++
      j++
    }
  }
  return { added, changed, removed }
}

/**
 * `entries` with `delta` applied, or `undefined` when the delta does not fit
 * them (adds a name that is there, changes or removes one that is not, or
 * names one twice).
 * @param {Entries} entries
 * @param {{ added: { name: string, description: string }[], changed: { name: string, description: string }[], removed: string[] }} delta
 * @returns {Entries | undefined}
 */
function applyDelta(entries, delta) {
  const edits = new Map()
  for (const { name, description } of delta.added) {
    if (edits.has(name)) return undefined
    edits.set(name, { op: 'add', description })
  }
  for (const { name, description } of delta.changed) {
    if (edits.has(name)) return undefined
    edits.set(name, { op: 'change', description })
  }
  for (const name of delta.removed) {
    if (edits.has(name)) return undefined
    edits.set(name, { op: 'remove' })
  }
  const names = []
  const descriptions = []
  let matched = 0
  for (let i = 0; i < entries.names.length; i++) {
    const name = entries.names[i]
    const edit = edits.get(name)
    if (edit === undefined) {
      names.push(name)
      descriptions.push(entries.descriptions[i])
      continue
    }
    if (edit.op === 'add') return undefined
    matched++
    if (edit.op === 'change') {
      names.push(name)
      descriptions.push(edit.description)
    }
  }
  if (matched !== delta.changed.length + delta.removed.length) return undefined
  if (delta.added.length === 0) return new Entries(names, descriptions)
  const added = delta.added.slice().sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0))
  const mergedNames = []
  const mergedDescriptions = []
  let k = 0
  for (let i = 0; i <= names.length; i++) {
    while (k < added.length && (i === names.length || added[k].name < names[i])) {
      mergedNames.push(added[k].name)
      mergedDescriptions.push(added[k].description)
      k++
    }
    if (i < names.length) {
      mergedNames.push(names[i])
      mergedDescriptions.push(descriptions[i])
    }
  }
  return new Entries(mergedNames, mergedDescriptions)
}

/** `{ name, description }` objects of `value` (a recorded array), or `undefined` when any is not one. */
function readPairs(value) {
  if (!Array.isArray(value)) return undefined
  const pairs = new Array(value.length)
  for (let i = 0; i < value.length; i++) {
    const entry = value[i]
    if (entry === null || typeof entry !== 'object') return undefined
    const { name, description } = entry
    if (typeof name !== 'string' || name === '' || typeof description !== 'string') return undefined
    pairs[i] = { name, description }
  }
  return pairs
}

/**
 * The delta a message source records, read once (copied), or `undefined`
 * when `source` is not a readable delta record. Reading never throws: a
 * record from a resumed or forked history may be anything.
 */
function readDeltaRecord(source) {
  try {
    if (source === null || typeof source !== 'object') return undefined
    if (source.kind !== 'skill-catalog' || source.form !== 'catalog') return undefined
    const delta = source.delta
    if (delta === null || typeof delta !== 'object' || source.entries !== undefined) return undefined
    const { base, digest } = delta
    if (typeof base !== 'string' || !HEX_DIGEST.test(base) || typeof digest !== 'string' || !HEX_DIGEST.test(digest)) return undefined
    const added = readPairs(delta.added)
    const changed = readPairs(delta.changed)
    const removedValue = delta.removed
    if (added === undefined || changed === undefined || !Array.isArray(removedValue)) return undefined
    const removed = new Array(removedValue.length)
    for (let i = 0; i < removedValue.length; i++) {
      const name = removedValue[i]
      if (typeof name !== 'string' || name === '') return undefined
      removed[i] = name
    }
    return { base, digest, added, changed, removed }
  } catch {
    return undefined
  }
}

/** The frozen message source of a delta. */
function deltaSource(delta) {
  const freeze = (pairs) => Object.freeze(pairs.map((pair) => Object.freeze({ name: pair.name, description: pair.description })))
  return Object.freeze({
    kind: 'skill-catalog',
    form: 'catalog',
    update: true,
    delta: Object.freeze({
      base: delta.base,
      digest: delta.digest,
      added: freeze(delta.added),
      changed: freeze(delta.changed),
      removed: Object.freeze(delta.removed.slice()),
    }),
  })
}

module.exports = { Entries, diffEntries, applyDelta, readDeltaRecord, deltaSource }
