'use strict'
// The catalog as the commands show it: the layout options, the rendered
// message and report, the budget line, and catalog changes by skill name.

const { UsageError } = require('./errors.js')
const { closest, didYouMean, overrideFlag } = require('./args.js')

/** The catalog layout options given on the command line (`maxLength` alone without a budget). */
function layout(options) {
  if (options.budget === undefined) return options.maxLength
  return { maxLength: options.maxLength, budget: options.budget, pinned: options.pinned, searchTool: options.searchTool }
}

/** Past this many characters an unbudgeted catalog floods every session's prompt: the commands say so. */
const LARGE_CATALOG = 32000

/** About how many tokens `chars` characters of catalog take (four characters a token). */
function approxTokens(chars) {
  return Math.round(chars / 4)
}

/**
 * The warning for an unbudgeted catalog of `chars` characters, when it is
 * large (undefined otherwise): its size, and what keeps a big collection
 * small and every skill reachable.
 */
function floodWarning(chars) {
  if (chars <= LARGE_CATALOG) return undefined
  const n = (value) => value.toLocaleString('en-US')
  return (
    `the catalog is ${n(chars)} characters (about ${n(approxTokens(chars))} tokens), sent to the model in every session: ` +
    'give it a budget (--budget 24000 here; the budget option of the catalog in a harness) and mount the search tool ' +
    '(@deepseek-ai/dsh-skill-native/harness/search-tool) so that the skills it leaves out stay reachable'
  )
}

/** Prints `floodWarning` for the unbudgeted catalog of `skills` on stderr (nothing with --quiet, or when it is small). */
function warnFlood(session, skills) {
  if (session.options.quiet) return
  const { report } = session.catalog.renderCatalog(skills, session.options.maxLength)
  const warning = floodWarning(report.chars)
  if (warning) session.io.err.line(`dsh-skills: warning: ${warning}`)
}

/**
 * The catalog of `skills` (the array the registry returned, passed on as it
 * is: the library knows its ranks) with the command line's layout.
 */
function renderCatalog(session, skills) {
  const { catalog, options } = session
  const visible = skills.filter((skill) => skill.invocation.modelInvocable)
  try {
    const { entries, digest, report } = catalog.renderCatalog(skills, layout(options))
    const message = visible.length ? catalog.renderCatalogMessage(skills, layout(options)) : null
    return { entries, digest, message, count: visible.length, report }
  } catch (error) {
    // A pin the library refuses is a mistake on the command line.
    const pin = /\bpinned\[(\d+)\] (.*)$/.exec(error instanceof Error ? error.message : '')
    if (pin && options.pinned[Number(pin[1])] !== undefined) {
      throw new UsageError(`--pin ${options.pinned[Number(pin[1])]}: ${pin[2]}`)
    }
    throw error
  }
}

/**
 * The warning for a budget that left skills out without `--search-tool`
 * (the library's `catalogBudgetWarning`, with the flag that names the tool
 * here), or undefined.
 */
function unreachableWarning(session, report) {
  const warning = session.catalog.catalogBudgetWarning(report, { searchTool: session.options.searchTool })
  return warning && `${warning} (here: --search-tool ${session.catalog.SEARCH_TOOL})`
}

/** One line about what a budget did to the catalog (`report` of `renderCatalog`). */
function budgetLine(budget, report) {
  const parts = [`${report.full} in full`]
  if (report.shortened) parts.push(`${report.shortened} shortened`)
  if (report.nameOnly) parts.push(`${report.nameOnly} by name only`)
  if (report.omitted) parts.push(`${report.omitted} left out`)
  const skills = report.total === 1 ? '1 skill' : `${report.total} skills`
  return `budget ${budget}: ${skills}, ${parts.join(', ')}; entries ${report.chars} characters`
}

/**
 * The lines under the budget line, one per source (`report.bySource`): how
 * each source's skills fared.
 * @param {{ bySource: Record<string, { total: number, full: number, shortened: number, nameOnly: number, omitted: number }> }} report
 */
function bySourceLines(report) {
  return Object.entries(report.bySource).map(([source, counts]) => {
    const parts = [`${counts.full} in full`]
    if (counts.shortened) parts.push(`${counts.shortened} shortened`)
    if (counts.nameOnly) parts.push(`${counts.nameOnly} by name only`)
    if (counts.omitted) parts.push(`${counts.omitted} left out`)
    return `  ${source}: ${counts.total === 1 ? '1 skill' : `${counts.total} skills`}, ${parts.join(', ')}`
  })
}

/**
 * Which of `names` the glob `pattern` matches, as the library matches a glob
 * of skill names (`*`: any run of characters): a throwaway registry with the
 * glob as an override rule lists the names it does not switch off. Undefined
 * when the library refuses the pattern.
 * @param {string} pattern
 * @param {string[]} names
 */
async function globMatches(session, pattern, names) {
  let probe
  try {
    probe = new session.api.SkillRegistry({ overrides: [{ name: pattern, effect: 'off' }], logger: { warn() {} } })
  } catch {
    return undefined
  }
  const invocation = { modelInvocable: true, userInvocable: true }
  probe.registerProvider(() => ({
    name: 'pins',
    list: () => names.map((name) => ({ name, description: '-', invocation, source: 'pin', provider: 'pins', rank: 0 })),
    get: async () => undefined,
  }))
  const kept = new Set((await probe.list()).map((skill) => skill.name))
  return names.filter((name) => !kept.has(name))
}

/**
 * Warns about `--pin` values that pin nothing: a name that is not a
 * model-invocable skill of the catalog, or a glob (`--pin 'zz-*'`) that
 * matches none.
 */
async function warnUnknownPins(session, skills) {
  const { io, options } = session
  if (options.quiet || !options.pinned.length) return
  const names = skills.filter((skill) => skill.invocation.modelInvocable).map((skill) => skill.name)
  for (const pin of new Set(options.pinned)) {
    if (pin.includes('*')) {
      const matched = await globMatches(session, pin, names)
      if (matched === undefined) {
        io.err.line(`dsh-skills: warning: --pin ${pin}: not a skill name or a glob of one (kebab-case, with *)`)
      } else if (matched.length === 0) {
        io.err.line(`dsh-skills: warning: --pin ${pin}: the glob matches no model-invocable skill`)
      }
    } else if (!names.includes(pin)) {
      io.err.line(`dsh-skills: warning: --pin ${pin}: no model-invocable skill of that name${didYouMean(closest(pin, names))}`)
    }
  }
}

/**
 * Warns about override flags (`--off`, `--user-only`, `--model-only`) that
 * match no skill file that loads (winner or shadowed) in `files` (the
 * provider's diagnosis): a typo in a script would otherwise do nothing
 * silently. A source no skill has gets a did-you-mean.
 * @param {{ outcome: string, name?: string, source?: string }[]} files
 */
async function warnUnmatchedOverrides(session, files) {
  const { io, options } = session
  if (options.quiet || !options.overrides.length) return
  const loads = files.filter((file) => (file.outcome === 'loaded' || file.outcome === 'shadowed') && file.name !== undefined)
  const sources = [...new Set(loads.map((file) => file.source))]
  for (const rule of options.overrides) {
    const pool = loads.filter((file) => rule.source === undefined || file.source === rule.source).map((file) => file.name)
    const matched = !rule.name.includes('*') ? pool.filter((name) => name === rule.name) : await globMatches(session, rule.name, pool)
    if (matched === undefined || matched.length > 0) continue
    const flag = overrideFlag(rule)
    const unknownSource = rule.source !== undefined && !sources.includes(rule.source)
    const hint = unknownSource ? `: no skill has source "${rule.source}"${didYouMean(closest(rule.source, sources))}` : ': it matches no skill'
    io.err.line(`dsh-skills: warning: ${flag}${hint}`)
  }
}

/**
 * Catalog entries by skill name, laid out as `shape` says (the model-visible
 * line of each; under a budget, a skill left out has none).
 * @param {number | object} shape `renderCatalogEntries` options (`layout(options)`, or `maxLength` alone: every skill's entry as without a budget)
 */
function entriesByName(session, skills, shape) {
  const entries = new Map()
  for (const line of session.catalog.renderCatalogEntries(skills, shape).split('\n')) {
    const name = /^- `([^`]+)`/.exec(line)?.[1]
    if (name !== undefined) entries.set(name, line)
  }
  return entries
}

/** Names added, removed and changed between two catalogs (`entriesByName` maps). */
function catalogChanges(before, after) {
  const added = [...after.keys()].filter((name) => !before.has(name))
  const removed = [...before.keys()].filter((name) => !after.has(name))
  const changed = [...after.keys()].filter((name) => before.has(name) && before.get(name) !== after.get(name))
  return { added, removed, changed }
}

module.exports = {
  warnUnmatchedOverrides,
  layout,
  LARGE_CATALOG,
  approxTokens,
  floodWarning,
  warnFlood,
  renderCatalog,
  budgetLine,
  bySourceLines,
  unreachableWarning,
  warnUnknownPins,
  entriesByName,
  catalogChanges,
}
