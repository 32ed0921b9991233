'use strict'
// Summaries, `explain()` rows and the catalog entries JS keeps next to each
// native catalog: built from the winners' own objects.

const { packTexts } = require('./pack.js')

const KIND_RUNTIME = 0
const KIND_EXTERNAL = 1
const KIND_NATIVE = 2

/** The summary fields of a runtime registration, read once, defaults applied. */
function runtimeTemplate(skill) {
  return {
    name: skill.name,
    description: skill.description,
    whenToUse: skill.whenToUse,
    invocation: skill.invocation,
    source: skill.source ?? 'runtime',
    provider: skill.provider ?? 'runtime',
    resourceBase: skill.resourceBase,
  }
}

// ---------------------------------------------------------------------------
// Summaries: fresh, plain, mutable objects per lookup, built from the
// winners' own objects: a JS provider's candidate or a runtime registration
// hands back its nested objects as they are (identity kept); a native
// winner's nested objects are fresh too.

/** A summary of a JS-provider candidate or a runtime registration. */
function copySummary(t) {
  const summary = { name: t.name, description: t.description }
  if (t.whenToUse !== undefined) summary.whenToUse = t.whenToUse
  summary.invocation = t.invocation ?? { modelInvocable: true, userInvocable: true }
  summary.source = t.source
  summary.provider = t.provider
  if (t.resourceBase !== undefined) summary.resourceBase = t.resourceBase
  return summary
}

/**
 * A summary of a native winner (see `unpackNatives`), nested objects
 * included. Each shape is built by one literal: one object with its fields
 * in place (no property store grown field by field), the fewest bytes a
 * lookup of a large catalog allocates (20,000 of them per lookup at 20,000
 * skills).
 */
function copyNativeSummary(t) {
  const invocation = { modelInvocable: t.modelInvocable, userInvocable: t.userInvocable }
  const base = nativeBase(t)
  if (t.whenToUse === undefined) {
    return base === undefined
      ? { name: t.name, description: t.description, invocation, source: t.source, provider: t.provider }
      : { name: t.name, description: t.description, invocation, source: t.source, provider: t.provider, resourceBase: base }
  }
  return base === undefined
    ? { name: t.name, description: t.description, whenToUse: t.whenToUse, invocation, source: t.source, provider: t.provider }
    : { name: t.name, description: t.description, whenToUse: t.whenToUse, invocation, source: t.source, provider: t.provider, resourceBase: base }
}

/** A fresh `resourceBase` of a native winner, if it has one. */
function nativeBase(t) {
  switch (t.baseKind) {
    case BASE_DIRECTORY:
      return { kind: 'directory', path: t.base }
    case BASE_URL:
      return { kind: 'url', url: t.base }
    case BASE_OPAQUE:
      return { kind: 'opaque', description: t.base }
    default:
      return undefined
  }
}

// The packing of native summaries (`PackedSummaries` in the binding,
// crates/skill-napi/src/registry/summaries.rs): seven numbers per summary,
// a flags word and the UTF-16 lengths of its six texts, which lie back to
// back in the chunks.
const SLOTS = 7
const F_MODEL = 1
const F_USER = 2
const F_WHEN_TO_USE = 4
const F_NEW_CHUNK = 8
const BASE_SHIFT = 4
const BASE_DIRECTORY = 1
const BASE_URL = 2
const BASE_OPAQUE = 3

/**
 * The objects native summaries are copied from (one shape for all, flat:
 * `copyNativeSummary` builds the nested objects), from their packing.
 * @param {{ chunks: string[], lengths: Uint32Array }} packed
 */
function unpackNatives({ chunks, lengths }) {
  const count = lengths.length / SLOTS
  const out = new Array(count)
  let chunk = ''
  let next = 0
  let at = 0
  for (let i = 0, k = 0; i < count; i++, k += SLOTS) {
    const flags = lengths[k]
    if ((flags & F_NEW_CHUNK) !== 0) {
      chunk = chunks[next++]
      at = 0
    }
    const name = chunk.slice(at, (at += lengths[k + 1]))
    const description = chunk.slice(at, (at += lengths[k + 2]))
    const when = chunk.slice(at, (at += lengths[k + 3]))
    const source = chunk.slice(at, (at += lengths[k + 4]))
    const provider = chunk.slice(at, (at += lengths[k + 5]))
    const base = chunk.slice(at, (at += lengths[k + 6]))
    out[i] = {
      name,
      description,
      whenToUse: (flags & F_WHEN_TO_USE) !== 0 ? when : undefined,
      modelInvocable: (flags & F_MODEL) !== 0,
      userInvocable: (flags & F_USER) !== 0,
      source,
      provider,
      baseKind: flags >>> BASE_SHIFT,
      base,
    }
  }
  return out
}

/** @param {CatalogEntry} entry */
function freshSummaries(entry) {
  const { sources, winners, rewritten } = entry
  const skills = []
  for (let i = 0; i < sources.length; i++) {
    skills.push(winners[4 * i] === KIND_NATIVE ? copyNativeSummary(sources[i]) : copySummary(sources[i]))
  }
  // Winners whose invocation an override rewrote get a new policy object.
  if (rewritten !== undefined) {
    for (let i = 0; i < rewritten.length; i += 2) skills[rewritten[i]].invocation = rewrittenPolicy(rewritten[i + 1])
  }
  return skills
}


// ---------------------------------------------------------------------------
// Overrides: the rules live in Rust (`skill_core::overrides`), validated
// there; JS reads each rule's own keys and hands over their types and texts.

const REWRITE_USER_ONLY = 1
const REWRITE_MODEL_ONLY = 2

/** A fresh invocation policy for a rewrite code (see `Location` in the binding). */
function rewrittenPolicy(code) {
  return code === REWRITE_USER_ONLY
    ? { modelInvocable: false, userInvocable: true }
    : { modelInvocable: true, userInvocable: false }
}


/**
 * One candidate of `explain()`: a fresh plain object; a JS provider's or a
 * runtime registration's `resourceBase` is its own object.
 * @param {Record<string, any>} row  one item of the native `explain()`
 * @param {CatalogEntry} entry
 * @param {object | undefined} scope  the scope key of its layer (`undefined` for the global layer)
 * @param {object | undefined} ruleScope  the scope key of the layer whose rule decided about it (`undefined`: the global rules)
 */
function explained(row, entry, scope, ruleScope) {
  let path
  let resourceBase
  if (row.kind === KIND_EXTERNAL) {
    const candidate = entry.hosts.get(row.slot)?.candidates[row.index]
    path = candidate?.path
    resourceBase = candidate?.resourceBase
  } else if (row.kind === KIND_RUNTIME) {
    const runtime = entry.runtime.get(row.index)
    path = runtime?.definition.path
    resourceBase = runtime?.template.resourceBase
  } else {
    path = row.path
    resourceBase = row.resourceBase
  }
  const out = { provider: row.provider, source: row.source, rank: row.rank }
  if (path !== undefined) out.path = path
  if (resourceBase !== undefined) out.resourceBase = resourceBase
  out.invocation = { modelInvocable: row.modelInvocable, userInvocable: row.userInvocable }
  if (row.rule !== undefined) {
    out.override = ruleScope === undefined ? { rule: row.rule, effect: row.effect } : { rule: row.rule, effect: row.effect, scope: ruleScope }
  }
  if (scope !== undefined) out.scope = scope
  return out
}


/** Arrays returned by `snapshot()`/`list()` → the catalog entry they came from. */
const returnedArrays = new WeakMap()

/** Catalog view tokens (see `kCatalogView`) → the catalog entry they stand for. */
const viewEntries = new WeakMap()

/**
 * An opaque token for a catalog entry, handed to this package's own
 * consumers instead of summaries: the catalog renderers read it straight
 * from the native catalog (see `viewEntryOf`).
 * @param {CatalogEntry} entry
 */
function catalogView(entry) {
  let view = entry.view
  if (view === undefined) {
    view = Object.freeze({})
    viewEntries.set(view, entry)
    entry.view = view
  }
  return view
}

/** The catalog entry behind a view token, or `undefined` for any other value. */
function viewEntryOf(value) {
  return typeof value === 'object' && value !== null ? viewEntries.get(value) : undefined
}

/**
 * The labels (`source`) of an entry's model-invocable winners, in catalog
 * order, each handed to `add(label)` (a runtime registration or a JS
 * provider's candidate, as registered; a native summary's own).
 * @param {CatalogEntry} entry
 * @param {(label: unknown) => boolean} add
 */
function addModelLabels(entry, add) {
  const { sources, winners } = entry
  for (let i = 0; i < sources.length; i++) {
    if (winners[4 * i + 3] === 1 && !add(sources[i].source)) return false
  }
  return true
}

/**
 * For a `skills` array returned by `snapshot()` or `list()`: the native catalog
 * it came from (every winner's name, description and invocation in name order,
 * ready to render), and `summaries`, what the registry put at each position:
 * frozen objects with the `name`, `description` and `invocation.modelInvocable`
 * the native catalog holds for it. The catalog renderer checks the array
 * against them before rendering from the native catalog (the array and its
 * summaries are the caller's to change). `undefined` for any other value.
 * @param {unknown} skills
 * @returns {{ catalog: object, summaries: readonly object[] } | undefined}
 */
function catalogSourceOf(skills) {
  if (typeof skills !== 'object' || skills === null) return undefined
  const entry = returnedArrays.get(skills)
  if (entry === undefined) return undefined
  return (entry.source ??= catalogSource(entry))
}

/**
 * A fresh summary of the skill at `position` of a catalog entry (as
 * `freshSummaries` builds it), once the native catalog holds every
 * description (search reads them there).
 * @param {CatalogEntry} entry
 * @param {number} position
 */
function summaryAt(entry, position) {
  const { sources, winners, rewritten } = entry
  const summary = winners[4 * position] === KIND_NATIVE ? copyNativeSummary(sources[position]) : copySummary(sources[position])
  if (rewritten !== undefined) {
    // Position → rewrite code, made once per entry (a search may ask for many).
    entry.rewrites ??= rewriteCodes(rewritten)
    const code = entry.rewrites.get(position)
    if (code !== undefined) summary.invocation = rewrittenPolicy(code)
  }
  return summary
}

/** `position, code` pairs as a map (the last pair of a position decides). */
function rewriteCodes(rewritten) {
  const codes = new Map()
  for (let i = 0; i < rewritten.length; i += 2) codes.set(rewritten[i], rewritten[i + 1])
  return codes
}

/** The native catalog of an entry with every description supplied. */
function describedCatalog(entry) {
  supplyHeld(entry)
  return entry.catalog
}

/** Supplies the native catalog of an entry with the descriptions held in JS, unless it has them. */
function supplyHeld(entry) {
  if (entry.catalog.needsDescriptions) entry.catalog.supplyDescriptions(packTexts(heldDescriptions(entry, 0, entry.sources.length)))
}

/** Descriptions handed over per turn of the event loop by `suppliedCatalog`. */
const SUPPLY_SLICE = 1024

/**
 * The native catalog of an entry once it holds every description, handed
 * over `SUPPLY_SLICE` at a time, one slice per turn of the event loop (a
 * catalog of 100,000 JS-provider skills would otherwise hold the loop for
 * the whole copy). Concurrent callers share one hand-over.
 * @param {CatalogEntry} entry
 */
async function suppliedCatalog(entry) {
  const { catalog } = entry
  if (!catalog.needsDescriptions) return catalog
  if (entry.sources.length <= SUPPLY_SLICE) return describedCatalog(entry)
  // A hand-over that failed is not kept: the next caller tries again.
  entry.supplying ??= supplyInSlices(entry).finally(() => {
    entry.supplying = undefined
  })
  await entry.supplying
  return catalog
}

async function supplyInSlices(entry) {
  const { catalog, sources } = entry
  for (let start = 0; start < sources.length; start += SUPPLY_SLICE) {
    // A catalog rendered meanwhile supplied everything at once.
    if (!catalog.needsDescriptions) return
    catalog.supplyDescriptionsPart(packTexts(heldDescriptions(entry, start, Math.min(start + SUPPLY_SLICE, sources.length))))
    await new Promise((resolve) => setImmediate(resolve))
  }
}

/**
 * The descriptions of the winners from `start` to `end` that stayed in JS
 * (runtime skills and JS providers' candidates, as they were read when
 * packed or registered), in catalog order: what the native catalog is
 * supplied with.
 */
function heldDescriptions(entry, start, end) {
  const { sources, winners, hosts } = entry
  const held = []
  for (let i = start; i < end; i++) {
    const kind = winners[4 * i]
    if (kind === KIND_NATIVE) continue
    held.push(kind === KIND_EXTERNAL ? hosts.get(winners[4 * i + 1]).descriptions[winners[4 * i + 2]] : sources[i].description)
  }
  return held
}

/**
 * What the catalog renderers need of an entry read through a view (see
 * `catalogView`): its native catalog with every description supplied, its
 * number of winners, and whether the descriptions that stayed in JS are all
 * well-formed UTF-16 (`isWellFormed`; the native ones came from Rust and
 * are). No summary is built. Once per entry.
 * @param {CatalogEntry} entry
 * @param {(text: string) => boolean} isWellFormed
 */
function viewCatalog(entry, isWellFormed) {
  if (entry.viewed !== undefined) return entry.viewed
  const held = heldDescriptions(entry, 0, entry.sources.length)
  if (entry.catalog.needsDescriptions) entry.catalog.supplyDescriptions(packTexts(held))
  entry.viewed = { catalog: entry.catalog, count: entry.sources.length, wellFormed: held.every(isWellFormed) }
  return entry.viewed
}

/**
 * The `catalogSourceOf` record of a catalog entry. The runtime and JS-provider
 * descriptions stayed in JS until now: the native catalog gets them here, as
 * they were read when the candidates were packed (or registered).
 * @param {CatalogEntry} entry
 */
function catalogSource(entry) {
  const { catalog, sources, winners, hosts } = entry
  const summaries = []
  for (let i = 0; i < sources.length; i++) {
    const kind = winners[4 * i]
    let name
    let description
    if (kind === KIND_EXTERNAL) {
      const host = hosts.get(winners[4 * i + 1])
      const index = winners[4 * i + 2]
      name = host.names[index]
      description = host.descriptions[index]
    } else {
      name = sources[i].name
      description = sources[i].description
    }
    const invocation = Object.freeze({ modelInvocable: winners[4 * i + 3] === 1 })
    summaries.push(Object.freeze({ name, description, invocation }))
  }
  supplyHeld(entry)
  return Object.freeze({ catalog, summaries: Object.freeze(summaries) })
}


/**
 * @typedef {{
 *   catalog: InstanceType<typeof native.NativeCatalog>,
 *   complete: boolean,
 *   winners: Float64Array,
 *   sources: object[],
 *   hosts: Map<number, { candidates: unknown[], names: unknown[], descriptions: unknown[] }>,
 *   runtime: Map<number, { definition: object, template: object }>,
 *   rewritten: number[] | undefined,
 *   source?: { catalog: object, summaries: readonly object[] },
 *   natives: object[] | undefined,
 *   rewrites?: Map<number, number>,
 *   view?: object,
 *   viewed?: { catalog: object, count: number, wellFormed: boolean },
 *   supplying?: Promise<void>,
 * }} CatalogEntry
 */

/**
 * The JS side of a merged catalog: the native winners (`kind, slot, index,
 * modelInvocable` each, name order), the object each summary is built from
 * (a JS provider's candidate, a runtime registration, a native summary), the
 * winners an override rewrote (`position, code` pairs), and each JS
 * provider's listing and the runtime skills (for `get()` and `explain()`).
 * @returns {CatalogEntry}
 */
function buildEntry(finished, hosts, runtime, previous) {
  const { catalog, winners } = finished
  const count = winners.length / 4
  const sources = new Array(count)
  let natives
  for (let i = 0; i < count; i++) {
    const kind = winners[4 * i]
    const index = winners[4 * i + 2]
    if (kind === KIND_EXTERNAL) {
      sources[i] = hosts.get(winners[4 * i + 1]).candidates[index]
    } else if (kind === KIND_RUNTIME) {
      sources[i] = runtime.get(index).template
    } else {
      natives ??= nativeSources(catalog, previous)
      sources[i] = natives[index]
    }
  }
  const rewritten = finished.rewritten.length > 0 ? finished.rewritten : undefined
  return { catalog, complete: finished.complete, winners, sources, hosts, runtime, rewritten, source: undefined, rewrites: undefined, natives, view: undefined, viewed: undefined, supplying: undefined }
}

/**
 * The objects the native winners' summaries are built from, in catalog
 * order. Those that are the very candidate a previous entry of the same view
 * had (a provider that read nothing again for them) are that entry's
 * objects; only the others cross (packed). The objects are never handed out
 * (summaries are copies), so entries may share them.
 * @param {CatalogEntry | undefined} previous
 */
function nativeSources(catalog, previous) {
  if (previous?.natives === undefined) return unpackNatives(catalog.nativeSummaries())
  const { reuse, fresh: packed } = catalog.nativeSummariesReusing(previous.catalog)
  const fresh = unpackNatives(packed)
  const kept = previous.natives
  const out = new Array(reuse.length)
  let next = 0
  for (let i = 0; i < reuse.length; i++) out[i] = reuse[i] >= 0 ? kept[reuse[i]] : fresh[next++]
  return out
}

/** A fresh copy of a runtime skill's definition, defaults applied. */
function runtimeDefinition({ definition }) {
  return {
    ...definition,
    invocation: definition.invocation ?? { modelInvocable: true, userInvocable: true },
    provider: definition.provider ?? 'runtime',
    source: definition.source ?? 'runtime',
  }
}


module.exports = {
  KIND_RUNTIME,
  KIND_EXTERNAL,
  KIND_NATIVE,
  runtimeTemplate,
  freshSummaries,
  rewrittenPolicy,
  explained,
  returnedArrays,
  catalogSourceOf,
  catalogView,
  viewCatalog,
  viewEntryOf,
  addModelLabels,
  summaryAt,
  suppliedCatalog,
  buildEntry,
  runtimeDefinition,
}
