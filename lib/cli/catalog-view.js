'use strict'
// The catalog as the commands show it: the layout options, the rendered
// message and report, the budget line, and catalog changes by skill name.

const { closest, didYouMean } = require('./args.js')

/** The catalog layout options given on the command line (`maxLength` alone without a budget). */
function layout(options) {
  if (options.budget === undefined) return options.maxLength
  return { maxLength: options.maxLength, budget: options.budget, pinned: options.pinned }
}

function renderCatalog(session, skills) {
  const { catalog, options } = session
  const visible = skills.filter((skill) => skill.invocation.modelInvocable)
  const { entries, digest, report } = catalog.renderCatalog(skills, layout(options))
  const message = visible.length ? catalog.renderCatalogMessage(skills, layout(options)) : null
  return { entries, digest, message, count: visible.length, report }
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

/** `--pin` names that are not model-invocable skills of the catalog (they have no effect). */
function warnUnknownPins(session, skills) {
  const { io, options } = session
  if (options.quiet || !options.pinned.length) return
  const names = skills.filter((skill) => skill.invocation.modelInvocable).map((skill) => skill.name)
  for (const name of new Set(options.pinned)) {
    if (!names.includes(name)) {
      io.err.line(`dsh-skills: warning: --pin ${name}: no model-invocable skill of that name${didYouMean(closest(name, names))}`)
    }
  }
}

/** Catalog entries by skill name (the model-visible line of each; a skill a budget left out has none). */
function entriesByName(session, skills) {
  const entries = new Map()
  for (const line of session.catalog.renderCatalogEntries(skills, layout(session.options)).split('\n')) {
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

module.exports = { layout, renderCatalog, budgetLine, warnUnknownPins, entriesByName, catalogChanges }
