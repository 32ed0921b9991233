'use strict'
// `dsh-skills doctor`: every entry considered, with its verdict and hints.

const { json } = require('../format.js')
const { overrideFlag } = require('../args.js')
const { diagnose, countVerdicts, switchedOff, formatDoctor, addDepthHints } = require('../diagnosis.js')
const {
  renderCatalog,
  warnUnknownPins,
  warnUnmatchedOverrides,
  budgetLine,
  bySourceLines,
  floodWarning,
  approxTokens,
  LARGE_CATALOG,
  unreachableWarning,
} = require('../catalog-view.js')
const { unreadCompatRoots } = require('../hints.js')

/**
 * Marks each loaded or shadowed file that an override flag rewrote or switched
 * off with `override: { rule, effect, flag }`, from the registry's own
 * `explain()` of its name (only when override flags are given).
 */
async function addOverrides(session, diagnosis) {
  const { overrides } = session.options
  const names = new Set(diagnosis.files.filter((file) => file.name !== undefined).map((file) => file.name))
  for (const name of names) {
    const explanation = await session.registry.explain(name, session.lookup())
    if (!explanation) continue
    for (const candidate of [explanation.winner, ...explanation.losers]) {
      const override = candidate?.override
      if (!override || override.effect === 'on' || candidate.path === undefined) continue
      const file = diagnosis.files.find((f) => f.path === candidate.path)
      if (file) file.override = { ...override, flag: overrideFlag(overrides[override.rule]) }
    }
  }
}

async function run(session) {
  const { io, options } = session
  const diagnosis = await diagnose(session)
  addDepthHints(diagnosis)
  const counts = countVerdicts(diagnosis.files)
  let snapshot
  if (options.overrides.length) {
    snapshot = await session.snapshot()
    await addOverrides(session, diagnosis)
    await warnUnmatchedOverrides(session, diagnosis.files)
    diagnosis.switchedOff = switchedOff(diagnosis, snapshot.skills)
  }
  diagnosis.notRead = await unreadCompatRoots(session, diagnosis.roots)
  let budget
  if (options.budget !== undefined) {
    snapshot ??= await session.snapshot()
    await warnUnknownPins(session, snapshot.skills)
    const { report } = renderCatalog(session, snapshot.skills)
    budget = { budget: options.budget, report, cuts: report.full < report.total }
  }
  // The size of the catalog without a budget: a large one floods every session.
  snapshot ??= await session.snapshot()
  const chars = session.catalog.renderCatalog(snapshot.skills, options.maxLength).report.chars
  const catalogSize = { chars, tokens: approxTokens(chars), large: chars > LARGE_CATALOG }
  const flood = budget ? undefined : floodWarning(chars)
  if (options.json) {
    io.stdout.write(json(budget ? { ...diagnosis, catalog: catalogSize, budget } : { ...diagnosis, catalog: catalogSize }))
  } else {
    formatDoctor(session, diagnosis, io.out)
    if (flood) io.out.styled(`warning: ${flood}`, 'yellow')
    if (budget?.cuts) {
      io.out.styled(`warning: the catalog does not fit the ${budgetLine(budget.budget, budget.report)}`, 'yellow')
      for (const line of bySourceLines(budget.report)) io.out.line(line)
      const unreachable = unreachableWarning(session, budget.report)
      if (unreachable) io.out.styled(`warning: ${unreachable}`, 'yellow')
    } else if (budget) {
      io.out.line(`The catalog fits the ${budgetLine(budget.budget, budget.report)}`)
    }
  }
  return counts.broken > 0 || !diagnosis.complete ? 1 : 0
}

module.exports = { run }
