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
 * The search results of one catalog entry: `{ skills, total, complete }`,
 * and `suggestion` (the query with its unknown words corrected) when
 * nothing matched and a correction exists.
 */
async function searchEntry(entry, query, limit, signal) {
  const catalog = await raceSignal(suppliedCatalog(entry), signal)
  let found
  if (signal === undefined) {
    found = await catalog.search(query, limit)
  } else {
    const cancel = new native.SearchCancel()
    const onAbort = () => cancel.cancel()
    signal.addEventListener('abort', onAbort, { once: true })
    try {
      found = await raceSignal(catalog.search(query, limit, cancel), signal)
    } finally {
      signal.removeEventListener('abort', onAbort)
    }
  }
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

module.exports = { DEFAULT_SEARCH_LIMIT, checkQuery, searchLimit, searchEntry }
