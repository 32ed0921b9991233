'use strict'
// Packing: how JS objects reach the validation rules (all of them in Rust,
// `skill_core::model::host`, `skill_core::overrides`). Each object's fields are read once; Rust gets
// one type tag per field, the ranks, the names back to back, and the few
// repeated strings (source, provider, resourceBase.kind) interned.
// Descriptions, locators, metadata, paths and bodies never leave JS (the rules
// only need to know a description is a non-empty string).

const { describeError } = require('../util.js')

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
  /** Room for `capacity` records to start with (see `grow`). */
  constructor(capacity) {
    const { tags, ranks, lengths, refs } = columns(capacity)
    this.capacity = capacity
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
    this.names = new Array(capacity)
    this.descriptions = new Array(capacity)
  }

  /**
   * Room for `capacity` records (more than now): the columns move to larger
   * ones. Large lists start with room for `SCRATCH_RECORDS` and grow once
   * that many were read, so a list refused at one of its first items costs
   * nothing like its length.
   */
  grow(capacity) {
    const tags = new Uint8Array(capacity * FIELDS)
    tags.set(this.tags)
    const ranks = new Float64Array(capacity)
    ranks.set(this.ranks)
    const lengths = new Uint32Array(capacity)
    lengths.set(this.lengths)
    const refs = new Uint32Array(capacity * 3).fill(NO_REF)
    refs.set(this.refs)
    const names = new Array(capacity)
    const descriptions = new Array(capacity)
    for (let i = 0; i < this.capacity; i++) {
      names[i] = this.names[i]
      descriptions[i] = this.descriptions[i]
    }
    this.capacity = capacity
    this.tags = tags
    this.ranks = ranks
    this.lengths = lengths
    this.refs = refs
    this.names = names
    this.descriptions = descriptions
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

  /** Keep the first `n` records only (the rest were never read). */
  truncate(n) {
    this.tags = this.tags.subarray(0, n * FIELDS)
    this.ranks = this.ranks.subarray(0, n)
    this.lengths = this.lengths.subarray(0, n)
    this.refs = this.refs.subarray(0, n * 3)
    this.names.length = n
    this.descriptions.length = n
  }
}

/**
 * Packs `items` (candidates, or one definition or registration when
 * `withContent`) for the native rules, and keeps each item's name and
 * description as read. Written for the common case (every field of the
 * expected type) to take the short path. Packing stops after the first item
 * that is not an object (a hole of a sparse array included): the rules refuse
 * it, and nothing after it is read.
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
  const out = new Packer(Math.min(n, SCRATCH_RECORDS))
  scratchInUse = true
  let { tags, ranks, lengths, refs, names, descriptions, capacity } = out
  let text = ''
  // Most providers repeat one source and one provider name: remember the last.
  let lastSource
  let lastSourceRef = NO_REF
  let lastProvider
  let lastProviderRef = NO_REF
  for (let i = 0; i < n; i++) {
    if (i === capacity) {
      out.grow(n)
      ;({ tags, ranks, lengths, refs, names, descriptions, capacity } = out)
    }
    const item = items[i]
    const at = i * FIELDS
    if (!isPlainObject(item)) {
      // Not an object: the rules refuse the items here, and report the first
      // invalid one. Nothing after it is read.
      out.tag(at + F_VALUE, item)
      out.truncate(i + 1)
      break
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
 * A `list()` result packed for the native rules: its head (its tag, the tags
 * of its `candidates` and `complete`, and the numbers behind them, for
 * messages), its candidates, and the candidates packed. `check(head, count)`
 * sees the head and the number of candidates before any candidate is read
 * (it throws for a result of the wrong shape or size).
 * @param {unknown} value
 * @param {string} provider
 * @param {(head: number[], count: number) => void} check
 */
function packListing(value, provider, check) {
  let head
  let candidates
  let count
  try {
    ;({ head, candidates } = readListing(value))
    count = candidates.length
  } catch (error) {
    throw new TypeError(`skill provider "${provider}" list() result cannot be read: ${describeError(error)}`)
  }
  check(head, count)
  try {
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


module.exports = {
  packTexts,
  packRules,
  packListing,
  packOrThrow,
}
