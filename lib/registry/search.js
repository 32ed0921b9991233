'use strict'
// `search(query, options)`: the model-invocable skills of a lookup's view,
// ranked by the native index of its catalog (`skill_core::search`), each
// handed out as a fresh summary with its score. The index is built and
// searched on the libuv pool; an abort of the caller's signal rejects at
// once and makes the native search give up.

const native = require('../native.js')
const { raceSignal } = require('../util.js')
const { describe } = require('./scopes.js')
const { summaryAt, suppliedCatalog } = require('./summaries.js')

/** Results a search returns when `options.limit` is not given. */
const DEFAULT_SEARCH_LIMIT = 10
const MAX_LIMIT = 0xffffffff

function checkQuery(query) {
  if (typeof query !== 'string') throw new TypeError(`search: query must be a string (got ${describe(query)})`)
}

/** `options.limit`, checked (a positive integer), or the default. */
function searchLimit(options) {
  const limit = options?.limit
  if (limit === undefined) return DEFAULT_SEARCH_LIMIT
  const message = `search: options.limit must be a positive integer (got ${describe(limit)})`
  if (typeof limit !== 'number') throw new TypeError(message)
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError(message)
  return Math.min(limit, MAX_LIMIT)
}

/**
 * Runs `work(cancel)` (native work on the pool that polls `cancel`): an abort
 * of `signal` rejects at once and cancels the work.
 */
async function cancellable(signal, work) {
  if (signal === undefined) return work(undefined)
  const cancel = new native.SearchCancel()
  const onAbort = () => cancel.cancel()
  signal.addEventListener('abort', onAbort, { once: true })
  try {
    return await raceSignal(work(cancel), signal)
  } finally {
    signal.removeEventListener('abort', onAbort)
  }
}

/**
 * The search results of one catalog entry: `{ skills, total, complete }`,
 * and `suggestion` (the query with its unknown words corrected) when
 * nothing matched and a correction exists. With a `semantic` (the
 * registry's embedder), meaning is fused with words.
 */
async function searchEntry(entry, query, limit, signal, semantic) {
  const catalog = await raceSignal(suppliedCatalog(entry), signal)
  const found = await cancellable(signal, async (cancel) => {
    const fused = semantic === undefined ? [] : await semantic.forSearch(catalog, query, signal, cancel)
    return catalog.search(query, limit, cancel, ...fused)
  })
  const { hits, total, suggestion } = found
  const skills = []
  for (let i = 0; i < hits.length; i += 3) {
    const skill = summaryAt(entry, hits[i])
    skill.score = hits[i + 1]
    skills.push(skill)
  }
  const results = { skills, total, complete: entry.complete }
  if (total === 0 && suggestion !== null && suggestion !== undefined) results.suggestion = suggestion
  return results
}

/** Embeds every skill of an entry's catalog the embedder has no vector of. */
async function prepareEntry(entry, signal, semantic) {
  if (semantic === undefined) return { embedded: 0, available: false }
  const catalog = await raceSignal(suppliedCatalog(entry), signal)
  return cancellable(signal, (cancel) => semantic.prepare(catalog, signal, cancel))
}

module.exports = { DEFAULT_SEARCH_LIMIT, checkQuery, searchLimit, searchEntry, prepareEntry }
