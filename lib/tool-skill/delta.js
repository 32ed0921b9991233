'use strict'
// Catalog deltas as the `skill` tool plugin records them: the durable record
// of a delta message, and the conversions between it and the native deltas.
// What changed between two catalogs, and a recorded delta applied to a
// catalog, are the Rust core's (`skill_core::catalog::delta`), on entries
// kept natively (`NativeEntries`).
//
// A delta record is a message source
// `{ kind: 'skill-catalog', form: 'catalog', update: true, delta }` with
// `delta = { base, digest, added, changed, removed }`: `base` the digest of
// the catalog it applies to, `digest` the digest after it (both the
// structured digest: sha256 hex of the entries as JSON `[name, description]`
// lines), `added` and `changed` `{ name, description }` entries as the catalog
// publishes them, `removed` names. It has no `entries`, so a reader that
// knows only full catalogs (the release's plugin) skips it as unreadable.

const { internal: structured } = require('../catalog-structured.js')

const { packPairs, entriesOf } = structured

const HEX_DIGEST = /^[0-9a-f]{64}$/

/**
 * A native delta (`NativeEntries.diff`) as the record publishes it: `added`
 * and `changed` entries, `removed` names.
 */
function deltaOf(native) {
  return {
    added: entriesOf(native.added.units, native.added.lengths),
    changed: entriesOf(native.changed.units, native.changed.lengths),
    removed: Object.freeze(entriesOf(native.removed.units, native.removed.lengths).map((entry) => entry.name)),
  }
}

/** A recorded delta applied to `entries` (a `NativeEntries`): the entries after it, or `null` when it does not fit. */
function applyRecorded(entries, delta) {
  const pack = (pairs) => packPairs(pairs.map((pair) => pair.name), pairs.map((pair) => pair.description))
  const added = pack(delta.added)
  const changed = pack(delta.changed)
  const removed = packPairs(delta.removed, delta.removed.map(() => ''))
  return entries.apply(added.chunks, added.lengths, changed.chunks, changed.lengths, removed.chunks, removed.lengths)
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

/** The frozen message source of a delta (its lists as `deltaOf` makes them: frozen already). */
function deltaSource(delta) {
  return Object.freeze({
    kind: 'skill-catalog',
    form: 'catalog',
    update: true,
    delta: Object.freeze({
      base: delta.base,
      digest: delta.digest,
      added: delta.added,
      changed: delta.changed,
      removed: delta.removed,
    }),
  })
}

module.exports = { deltaOf, applyRecorded, readDeltaRecord, deltaSource }
