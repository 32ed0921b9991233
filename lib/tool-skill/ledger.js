'use strict'
// What catalog an agent's model holds, read from its session history: the
// catalog messages of this plugin (full catalogs and deltas, told apart by
// their durable source) and whether the model still sees them.
//
// The baseline is the newest visible full catalog with every delta published
// after it, when each of those deltas is visible too and applies to the
// catalog before it (its `base` is that catalog's digest, and the entries it
// yields have its recorded `digest`). A hidden delta (compaction), or a chain
// that does not add up, leaves no baseline: the next catalog is a full one.
// With full catalogs only, this is the release's rule: the newest visible
// readable catalog, older ones when newer ones are hidden.
//
// Reading is incremental per agent: a step reads only the events appended
// since the step before, and records this plugin published in this process
// are recognised by message id without hashing their entries again.

const { internal: structured } = require('../catalog-structured.js')
const { applyRecorded, readDeltaRecord } = require('./delta.js')

const { readRecord, nativeEntries } = structured

/** Published messages remembered by id (per plugin instance, least recently published dropped first). */
const PRODUCED_MAX = 256

/** The model-facing length of a message: its text blocks' JS lengths. */
function textLength(message) {
  let length = 0
  const content = message?.content
  if (!Array.isArray(content)) return 0
  for (const block of content) if (block?.type === 'text' && typeof block.text === 'string') length += block.text.length
  return length
}

/**
 * One catalog record of a history: `full` (readable `entries`) or `delta`,
 * with what the baseline needs of it; `undefined` for anything else.
 */
function classify(source) {
  const full = readRecord(source)
  if (full !== undefined) return { kind: 'full', read: full }
  const delta = readDeltaRecord(source)
  if (delta !== undefined) return { kind: 'delta', delta }
  return undefined
}

/** The catalog record of a session event (a `user/message` with a `skill-catalog` source), or `undefined`. */
function recordOf(event) {
  try {
    if (event?.type !== 'user/message') return undefined
    const source = event.data?.source
    if (source?.kind !== 'skill-catalog') return undefined
    return classify(source)
  } catch {
    return undefined
  }
}

class Ledger {
  /** message id → `{ digest, entries, full }` of a catalog message this plugin built (`entries` a `NativeEntries`) */
  #produced = new Map()
  /** agent → its last reading (see `read`) */
  #agents = new WeakMap()
  /** full catalog sources → `{ digest, entries }` (events are frozen: identity is safe) */
  #fulls = new WeakMap()

  /**
   * Remember a catalog message this plugin is about to publish: `entries`
   * (a `NativeEntries`, the catalog after it) and their `digest`.
   */
  produced(message, { digest, entries, full }) {
    this.#produced.set(message.id, { digest, entries, full })
    if (this.#produced.size > PRODUCED_MAX) this.#produced.delete(this.#produced.keys().next().value)
  }

  /**
   * What `agent`'s model holds: `{ published, baseline? }`. `published`
   * when any readable catalog record is in the history; `baseline` =
   * `{ digest, entries?, fullChars, deltaChars }` when the model sees a
   * consistent catalog (`entries`, a `NativeEntries`, undefined when a
   * recorded full catalog is not in name order, so no delta can build on it).
   */
  read(agent) {
    const session = agent.session
    const events = session.events
    const generation = session.surface.replaceGeneration
    const kept = this.#agents.get(agent)
    if (kept !== undefined && kept.session === session && kept.generation === generation && events.length >= kept.length) {
      let fresh = false
      for (let i = kept.length; i < events.length; i++) {
        if (recordOf(events[i]) !== undefined) {
          fresh = true
          break
        }
      }
      kept.length = events.length
      if (!fresh) return kept.result
    }
    const result = this.#scan(events, session.surface.nodes)
    this.#agents.set(agent, { session, generation, length: events.length, result })
    return result
  }

  /** The reading of `read`, from the whole history. */
  #scan(events, nodes) {
    let visible
    const isVisible = (event) => (visible ??= new Set(nodes)).has(event.seq)
    let published = false
    const deltas = []
    for (let i = events.length - 1; i >= 0; i--) {
      const event = events[i]
      const record = recordOf(event)
      if (record === undefined) continue
      published = true
      if (record.kind === 'delta') {
        // The model misses a change: no consistent catalog to build on.
        if (!isVisible(event)) return { published }
        deltas.push({ event, delta: record.delta })
        continue
      }
      if (!isVisible(event)) {
        if (deltas.length > 0) return { published }
        continue
      }
      return { published, baseline: this.#baseline(event, record.read, deltas.reverse()) }
    }
    return { published }
  }

  /** The catalog of a visible full record and the deltas after it (oldest first), or `undefined` when they do not add up. */
  #baseline(event, read, deltas) {
    let state = this.#full(event, read)
    let unchecked = false
    let deltaChars = 0
    for (const { event: deltaEvent, delta } of deltas) {
      if (delta.base !== state.digest) return undefined
      const known = this.#produced.get(deltaEvent.data.id)
      if (known !== undefined && !known.full && known.digest === delta.digest) {
        state = { digest: known.digest, entries: known.entries }
        unchecked = false
      } else {
        if (state.entries === undefined) return undefined
        const entries = applyRecorded(state.entries, delta)
        if (entries === null) return undefined
        state = { digest: delta.digest, entries }
        unchecked = true
      }
      deltaChars += textLength(deltaEvent.data)
    }
    // One hash for the deltas read from the history: the entries they build must have the digest they record.
    if (unchecked && state.entries.digest !== state.digest) return undefined
    return { digest: state.digest, entries: state.entries, fullChars: textLength(event.data), deltaChars }
  }

  /** Digest and entries of a full catalog record (once per record; `entries` only when in name order). */
  #full(event, read) {
    const source = event.data.source
    let full = this.#fulls.get(source)
    if (full !== undefined) return full
    const known = this.#produced.get(event.data.id)
    if (known !== undefined && known.full && known.entries.count === read.names.length) {
      full = { digest: known.digest, entries: known.entries }
    } else {
      const entries = nativeEntries(read.names, read.descriptions)
      full = { digest: entries.digest, entries: entries.inNameOrder() ? entries : undefined }
    }
    this.#fulls.set(source, full)
    return full
  }
}

module.exports = { Ledger, classify, textLength }
