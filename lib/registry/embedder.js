'use strict'
// The `embedder` option of the registry: meaning fused with words in
// `search()` (skill_core::search::fuse). Two forms:
//
// - a function `(texts, { signal }) => Promise<Float32Array[]>` with a
//   string `id` (or `{ id, embed }`): the host's embedding API;
// - `'local'` or `{ model: DIR }`: the package's own all-MiniLM-L6-v2,
//   run in Rust on the libuv pool, from a model folder (`model`, else
//   $DSH_SKILL_EMBED_MODEL; scripts/embed-model.mjs makes one).
//
// Skill vectors are kept per model id and text hash in memory and on disk
// (`embedderCacheDir`, else $DSH_SKILL_EMBED_CACHE, else the user cache
// folder; `false`: memory only), so a restart with an unchanged catalog
// embeds nothing. A search embeds the few skills that changed before it
// answers; a catalog with many new skills is embedded in the background
// (one job at a time) while searches answer with the vectors already there
// and words for the rest (`prepareSearch()` waits for all of them).
// Without a usable model, search uses words alone and says so once.

const os = require('node:os')
const path = require('node:path')
const native = require('../native.js')
const { describe } = require('./scopes.js')
const { safeWarn, toError } = require('../util.js')

/** Skills embedded before a search answers; more go to the background. */
const INLINE_MAX = 32
/** Texts handed to an embedder at once. */
const BATCH = 64
/** Query vectors remembered per registry. */
const QUERY_MEMORY = 64

function defaultCacheDir() {
  if (process.env.DSH_SKILL_EMBED_CACHE) return process.env.DSH_SKILL_EMBED_CACHE
  const base = process.env.XDG_CACHE_HOME || (process.platform === 'win32' ? process.env.LOCALAPPDATA : undefined) || path.join(os.homedir(), '.cache')
  return path.join(base, 'dsh-skill-native', 'vectors')
}

/**
 * The checked `embedder` and `embedderCacheDir` options: `undefined` when
 * there is no embedder (search as without the option), else a `Semantic`.
 */
function semanticOption(config, logger) {
  const option = config.embedder
  const cacheOption = config.embedderCacheDir
  if (cacheOption !== undefined && cacheOption !== false && typeof cacheOption !== 'string') {
    throw new TypeError(`embedderCacheDir must be a folder path or false (got ${describe(cacheOption)})`)
  }
  if (option === undefined) return undefined
  const cacheDir = cacheOption === false ? null : (cacheOption ?? defaultCacheDir())
  if (option === 'local') return new Semantic({ local: process.env.DSH_SKILL_EMBED_MODEL ?? null }, cacheDir, logger)
  if (typeof option === 'object' && option !== null && 'model' in option) {
    if (typeof option.model !== 'string' || option.model === '') throw new TypeError(`embedder.model must be a model folder path (got ${describe(option.model)})`)
    return new Semantic({ local: option.model }, cacheDir, logger)
  }
  const embed = typeof option === 'function' ? option : option?.embed
  const id = option?.id
  if (typeof embed !== 'function' || typeof id !== 'string' || id === '') {
    throw new TypeError(
      `embedder must be 'local', { model: folder }, or a function (texts, { signal }) => Promise<Float32Array[]> with a string id (got ${describe(option)})`,
    )
  }
  return new Semantic({ id, embed: typeof option === 'function' ? option : (texts, options) => option.embed(texts, options) }, cacheDir, logger)
}

/** The vectors a JS embedder returned for `count` texts, checked. */
function checkedVectors(value, count, dimensions) {
  if (!Array.isArray(value) || value.length !== count) {
    throw new TypeError(`the embedder returned ${Array.isArray(value) ? `${value.length} vectors` : describe(value)} for ${count} texts`)
  }
  return value.map((v) => {
    const vector = v instanceof Float32Array ? v : Array.isArray(v) || ArrayBuffer.isView(v) ? Float32Array.from(v) : undefined
    if (vector === undefined || vector.length === 0 || (dimensions !== undefined && vector.length !== dimensions)) {
      throw new TypeError(`the embedder returned a vector that is not a Float32Array of ${dimensions ?? 'the same'} numbers`)
    }
    return vector
  })
}

class Semantic {
  #source
  #cacheDir
  #logger
  #ready
  #warned = false
  #background
  /** The catalog the background job embeds the missing skills of. */
  #backgroundCatalog
  #queries = new Map()
  #dimensions
  /** Catalogs whose every skill has its vector (nothing to check again). */
  #complete = new WeakSet()

  constructor(source, cacheDir, logger) {
    this.#source = source
    this.#cacheDir = cacheDir
    this.#logger = logger
  }

  /** Warns once (the first failure says it; search goes on with words). */
  #warnOnce(message) {
    if (this.#warned) return
    this.#warned = true
    safeWarn(this.#logger, `${message}; skill search uses words only`)
  }

  /** `{ vectors, embed(texts, signal, cancel) }`, or `undefined` when no model can be used. */
  ready() {
    return (this.#ready ??= this.#load().catch((error) => {
      this.#warnOnce(`skill search embedder unavailable: ${toError(error).message}`)
      return undefined
    }))
  }

  async #load() {
    const source = this.#source
    if ('embed' in source) {
      return { vectors: new native.NativeVectors(source.id, this.#cacheDir), embed: (texts, signal) => this.#callHost(texts, signal) }
    }
    if (source.local === null) {
      throw new Error('no local model folder (set DSH_SKILL_EMBED_MODEL or embedder: { model }; `node scripts/embed-model.mjs` makes one)')
    }
    const model = await native.loadLocalEmbedder(source.local)
    const vectors = new native.NativeVectors(model.id, this.#cacheDir)
    return { vectors, embed: (texts, _signal, cancel) => model.embed(texts, cancel) }
  }

  async #callHost(texts, signal) {
    const options = signal === undefined ? {} : { signal }
    const vectors = checkedVectors(await this.#source.embed(texts, options), texts.length, this.#dimensions)
    this.#dimensions ??= vectors[0]?.length
    return vectors
  }

  /** Reports a disk failure of the vector store once. */
  #checkDisk(state) {
    const error = state.vectors.diskError()
    if (error !== null && error !== undefined) safeWarn(this.#logger, error)
  }

  /** Embeds every text of `missing` into the store, `BATCH` at a time. */
  async #embedMissing(state, missing, signal, cancel) {
    const { texts, keys } = missing
    for (let i = 0; i < texts.length; i += BATCH) {
      const part = texts.slice(i, i + BATCH)
      const vectors = await state.embed(part, signal, cancel)
      state.vectors.add(keys.subarray(i * 16, (i + part.length) * 16), vectors)
    }
    this.#checkDisk(state)
    return texts.length
  }

  /** Embeds what the catalog's skills lack, all of it, before resolving. */
  async prepare(catalog, signal, cancel) {
    const state = await this.ready()
    if (state === undefined) return { embedded: 0, available: false }
    await this.#background
    const missing = await catalog.missingVectors(state.vectors)
    return { embedded: await this.#embedMissing(state, missing, signal, cancel), available: true }
  }

  /**
   * What `catalog.search` needs to fuse meaning with words: `[vectors,
   * queryVector]`, or `[]` (words only) when no model can be used or the
   * embedder failed (said once).
   */
  async forSearch(catalog, query, signal, cancel) {
    const state = await this.ready()
    if (state === undefined) return []
    try {
      // While the background job embeds this catalog's backlog, what it
      // lacks is that job's: nothing to work out (and send over) again.
      const embedding = this.#background !== undefined && this.#backgroundCatalog === catalog
      if (!embedding && !this.#complete.has(catalog)) {
        const missing = await catalog.missingVectors(state.vectors)
        if (missing.texts.length === 0) this.#complete.add(catalog)
        if (missing.texts.length > 0 && missing.texts.length <= INLINE_MAX) {
          await this.#embedMissing(state, missing, signal, cancel)
          this.#complete.add(catalog)
        } else if (missing.texts.length > 0 && this.#background === undefined) {
          this.#backgroundCatalog = catalog
          this.#background = this.#embedMissing(state, missing, undefined, undefined)
            .catch((error) => this.#warnOnce(`skill vectors could not be computed: ${toError(error).message}`))
            .finally(() => {
              this.#background = undefined
              this.#backgroundCatalog = undefined
            })
        }
      }
      let vector = this.#queries.get(query)
      if (vector === undefined) {
        ;[vector] = await state.embed([query], signal, cancel)
        if (this.#queries.size >= QUERY_MEMORY) this.#queries.delete(this.#queries.keys().next().value)
        this.#queries.set(query, vector)
      }
      return [state.vectors, vector]
    } catch (error) {
      if (signal?.aborted) throw error
      this.#warnOnce(`skill search embedder failed: ${toError(error).message}`)
      return []
    }
  }
}

module.exports = { semanticOption, Semantic }
