'use strict'
// The `skill` tool plugin (`…/harness/tool-skill`): a drop-in for the
// harness's `@deepseek-ai/dsh-tool-skill` (release 0.1.1-rc.2). It registers
// the `skill` tool, injects the skills a user invokes with `/name`, and
// publishes the session's skill catalog at each agent step: the first
// catalog, then a full replacement whenever it changes (the release's
// behaviour, byte for byte in entries and digests), or, with
// `updates: 'delta'`, only what changed. Opt-in options lay the catalog out
// under a budget (see docs/catalog-budget.md); with every option at its
// default the entries and digests are the release's.
//
// Each step plans from the registry's cached catalog when `ctx.skills` is
// this package's registry (no summaries built, the digest kept per
// catalog), and reads only the history appended since the step before.

const { kCatalogView } = require('../symbols.js')
const { internal: catalogInternal, renderCatalogEntries, catalogBudgetWarning } = require('../catalog.js')
const { internal: structuredInternal } = require('../catalog-structured.js')
const { collectSkillInvocations } = require('../gestures.js')
const { createLogger } = require('../cordis/util.js')
const { deltaOf, deltaSource } = require('./delta.js')
const { Ledger, classify } = require('./ledger.js')
const { initialText, replacementText, deltaText, entriesBlock } = require('./messages.js')
const { TOOL_NAME, skillToolDefinition } = require('./tool.js')

const { checkOptions, describe, isWellFormed } = catalogInternal
const { structuredNative, entriesOfNative, recordDigest } = structuredInternal

const PLUGIN_NAME = 'tool-skill'
const DEFAULT_MAX_LENGTH = 500
/** Past this many characters an unbudgeted catalog floods the prompt (the CLI warns at the same size). */
const DEFAULT_FLOOD_WARNING = 32000
const UPDATES = ['replace', 'delta']

/**
 * The plugin's settings from its config (checked again here: `apply` may be
 * called without the schema). Errors name the option.
 */
function settings(config) {
  if (config === null || typeof config !== 'object') throw new TypeError(`${PLUGIN_NAME}: config must be an object (got ${describe(config)})`)
  const maxLength = config.catalogDescriptionMaxLength ?? DEFAULT_MAX_LENGTH
  if (!Number.isInteger(maxLength) || maxLength < 3) {
    throw new RangeError(`${PLUGIN_NAME}: catalogDescriptionMaxLength must be an integer greater than or equal to 3 (got ${describe(maxLength)})`)
  }
  const updates = config.updates ?? 'replace'
  if (!UPDATES.includes(updates)) throw new RangeError(`${PLUGIN_NAME}: updates must be 'replace' or 'delta' (got ${describe(updates)})`)
  const flood = config.floodWarning ?? DEFAULT_FLOOD_WARNING
  if (flood !== false && (!Number.isInteger(flood) || flood < 1)) {
    throw new RangeError(`${PLUGIN_NAME}: floodWarning must be a positive integer (characters) or false (got ${describe(flood)})`)
  }
  const { budget, pinned, searchTool, prefer } = config
  const options = { maxLength, budget, pinned, searchTool, prefer }
  // Checked as the catalog renderers check them (a bad budget or pin throws here, not at a step).
  const checked = checkOptions(options, PLUGIN_NAME)
  return { layout: options, checked, updates, flood, budgeted: budget !== undefined }
}

/** Schema of the config, on the harness's schemastery. */
function configSchema(Schema) {
  return Schema.object({
    catalogDescriptionMaxLength: Schema.number()
      .default(DEFAULT_MAX_LENGTH)
      .description('Longest description in the catalog, in UTF-16 code units (integer >= 3); longer ones are cut with "...".'),
    updates: Schema.union(['replace', 'delta'])
      .default('replace')
      .description("How a changed catalog reaches the model: 'replace' (a full catalog each time, as the harness's plugin) or 'delta' (only what changed)."),
    budget: Schema.natural()
      .min(1)
      .description('Most characters (UTF-16 code units) the catalog entries may take; beyond it descriptions are shortened and skills listed by name or left out (see docs/catalog-budget.md). Default: no budget.'),
    pinned: Schema.array(String).description('Skill names (or globs) that keep their full description under a budget, highest priority first.'),
    prefer: Schema.union(['rank', 'used']).description("Under a budget, 'used' puts the skills this view loaded right after the pins (default 'rank')."),
    searchTool: Schema.string().description('Name of a search tool the agent has (e.g. skill_search): the catalog says to use it for skills a budget leaves out.'),
    floodWarning: Schema.union([Schema.natural().min(1), Schema.const(false)])
      .default(DEFAULT_FLOOD_WARNING)
      .description('Warn (once per agent and size class) when a catalog without a budget is over this many characters; false: never.'),
  })
}

/** The registry behind `skills` when it is this package's (it plans from its cached catalog), else `undefined`. */
function ownRegistry(skills) {
  if (skills === null || typeof skills !== 'object') return undefined
  if (typeof skills[kCatalogView] === 'function') return skills
  const registry = skills.registry
  if (registry !== null && typeof registry === 'object' && typeof registry[kCatalogView] === 'function') return registry
  return undefined
}

/** Text blocks of a claimed user message (`source.kind === 'user'`), for `/name` gestures. */
function userTexts(message) {
  if (message?.source?.kind !== 'user' || !Array.isArray(message.content)) return undefined
  const texts = []
  for (const block of message.content) if (block?.type === 'text' && typeof block.text === 'string') texts.push(block.text)
  return texts
}

/** Structured entries → whether every description is well-formed UTF-16, once per array. */
const wellFormedEntries = new WeakMap()
function wellFormed(entries) {
  let known = wellFormedEntries.get(entries)
  if (known === undefined) {
    known = entries.every((entry) => isWellFormed(entry.description))
    wellFormedEntries.set(entries, known)
  }
  return known
}

const NO_SKILLS = Object.freeze([])

/**
 * The plugin module for one framework copy and the harness's packages:
 * `name` (`tool-skill`), `inject`, `Config` and `apply`.
 * @param {{ Schema: Function }} copy  the framework copy (its schemastery)
 * @param {{ defineTool: Function, createUserMessage: Function }} harness  `@deepseek-ai/dsh-tools` and `@deepseek-ai/dsh-llm`
 */
function createToolSkillPlugin({ Schema }, { defineTool, createUserMessage }) {
  function apply(ctx, config = {}) {
    const { layout, checked, updates, flood, budgeted } = settings(config)
    const logger = createLogger(ctx, PLUGIN_NAME)
    const ledger = new Ledger()
    /** agent → the flood warning size classes told already */
    const warned = new WeakMap()
    /** The agents told that the budget leaves skills out of their reach */
    const unreachableTold = new WeakSet()

    const skillTool = defineTool(skillToolDefinition(() => ctx.skills))
    ctx.tools.register(skillTool)

    // `/name` gestures: registered before the catalog listener, so the
    // waterfall hands this one the catalog-bearing list to extend (the
    // invoked instructions come last, closest to the model's answer).
    ctx.on('agent/pre-step', async ({ agent, messages, signal }, next) => {
      const decision = await next()
      if (decision.kind === 'reject') return decision
      const invoked = await collectSkillInvocations({
        skills: ctx.skills,
        messages,
        textsOf: userTexts,
        cwd: agent.session.header.cwd,
        signal,
        scope: agent,
      })
      signal.throwIfAborted()
      if (invoked.length === 0) return decision
      const injections = invoked.map(({ text, source }) => createUserMessage({ content: [{ type: 'text', text }], source }))
      return { kind: 'enter', messages: [...decision.messages, ...injections] }
    })

    /** The catalog the agent would see now: `{ complete, view }` (`view` what the catalog renderers take). */
    async function currentCatalog(agent, signal) {
      // Only for an agent that resolves this very tool: a restriction or a
      // scoped tool of the same name takes the catalog away with the tool.
      if (ctx.tools.get(TOOL_NAME, agent) !== skillTool) return { complete: true, view: NO_SKILLS }
      const lookup = { cwd: agent.session.header.cwd, signal, scope: agent }
      const skills = ctx.skills
      const registry = ownRegistry(skills)
      if (registry !== undefined) return registry[kCatalogView](lookup)
      const snapshot = await skills.snapshot(lookup)
      return { complete: snapshot.complete, view: snapshot.skills }
    }

    /** Tells the logger, once per agent and size class, that an unbudgeted catalog is large. */
    function warnFlood(agent, report) {
      if (flood === false || budgeted || report.chars <= flood) return
      const sizeClass = Math.floor(Math.log2(report.chars / flood))
      let told = warned.get(agent)
      if (told === undefined) warned.set(agent, (told = new Set()))
      if (told.has(sizeClass)) return
      told.add(sizeClass)
      const n = (value) => value.toLocaleString('en-US')
      logger.warn(
        `the skill catalog of this agent is ${n(report.chars)} characters (about ${n(Math.round(report.chars / 4))} tokens, ${n(report.total)} skills), ` +
          (updates === 'delta' ? 'sent in full at the start of a session' : 'sent in full again after every change') +
          ": set the tool-skill option `budget` (24000 is a good start) to cap it, with `searchTool` naming a search tool so that the skills it leaves out stay reachable" +
          (updates === 'delta' ? '' : ", and `updates: 'delta'` to send only what changed"),
      )
    }

    /**
     * Tells the logger, once per agent, that a budget leaves skills out with
     * no `searchTool`: the model never sees their names (`catalogBudgetWarning`).
     */
    function warnUnreachable(agent, report) {
      if (!budgeted || unreachableTold.has(agent)) return
      const warning = catalogBudgetWarning(report, layout)
      if (warning === undefined) return
      unreachableTold.add(agent)
      logger.warn(warning)
    }

    /** The text of the full catalog for `current` (the first one when nothing was published). */
    function fullText(current, view, entries, published) {
      let block = renderCatalogEntries(view, layout)
      const { report } = current
      if (!wellFormed(entries)) {
        block = entriesBlock(entries, report.omitted > 0 ? block.slice(block.lastIndexOf('\n') + 1) : undefined)
      }
      return published ? replacementText(block, report.total, report.omitted === 0) : initialText(block)
    }

    /** The message that brings the model from `history`'s catalog to `current`. */
    function publish(current, view, history) {
      const { baseline, published } = history
      if (updates === 'delta' && baseline?.entries !== undefined) {
        // What changed, worked out on the native side: only the changes cross.
        const delta = deltaOf(baseline.entries.diff(current.native))
        const text = deltaText(delta)
        // A delta while the deltas since the last full catalog stay no longer than a full one
        // (measured without rendering it: its frame and its entries block, `report.chars` long).
        const { report } = current
        const full = replacementText('', report.total, report.omitted === 0).length + (report.chars > 0 ? report.chars + 1 : 0)
        if (baseline.deltaChars + text.length <= full) {
          const source = deltaSource({ base: baseline.digest, digest: current.digest, ...delta })
          return remember(createUserMessage({ content: [{ type: 'text', text }], source }), current, false)
        }
      }
      const entries = entriesOfNative(current.native)
      const text = fullText(current, view, entries, published)
      const source = published
        ? { kind: 'skill-catalog', form: 'catalog', update: true, entries }
        : { kind: 'skill-catalog', form: 'catalog', entries }
      return remember(createUserMessage({ content: [{ type: 'text', text }], source }), current, true)
    }

    /** `message`, remembered as this plugin's (its history reads it without hashing again). */
    function remember(message, current, full) {
      ledger.produced(message, { digest: current.digest, entries: current.native, full })
      return message
    }

    /**
     * The digest a proposed catalog message of this step leads to (a full
     * catalog's, or a delta's that applies to the model's catalog), or
     * `undefined` for a stale delta.
     */
    function proposedDigest(record, message, history) {
      if (record.kind === 'delta') return record.delta.base === history.baseline?.digest ? record.delta.digest : undefined
      return recordDigest(message.source, record.read)
    }

    // The catalog, after the tool (reverse teardown removes the guidance
    // first); the waterfall runs it after the gesture listener above.
    ctx.on('agent/pre-step', async ({ agent, signal }, next) => {
      const decision = await next()
      if (decision.kind === 'reject') return decision
      signal.throwIfAborted()
      const { complete, view } = await currentCatalog(agent, signal)
      signal.throwIfAborted()
      if (!complete) return decision
      const current = structuredNative(view, checked, PLUGIN_NAME)
      warnFlood(agent, current.report)
      warnUnreachable(agent, current.report)
      const history = ledger.read(agent)
      let existing
      for (const message of decision.messages) {
        if (message?.source?.kind !== 'skill-catalog') continue
        const record = classify(message.source)
        if (record !== undefined) {
          existing = { message, record }
          break
        }
      }
      const without = () =>
        existing === undefined ? decision : { kind: 'enter', messages: decision.messages.filter((m) => m.id !== existing.message.id) }
      if (history.baseline?.digest === current.digest) return without()
      if (existing !== undefined && proposedDigest(existing.record, existing.message, history) === current.digest) return decision
      if (!history.published && current.report.total === 0) return without()
      const catalog = publish(current, view, history)
      return {
        kind: 'enter',
        messages:
          existing === undefined
            ? [...decision.messages, catalog]
            : decision.messages.map((message) => (message.id === existing.message.id ? catalog : message)),
      }
    })
  }

  return { name: PLUGIN_NAME, inject: ['agents', 'tools', 'skills'], Config: configSchema(Schema), apply }
}

module.exports = { createToolSkillPlugin, PLUGIN_NAME }
