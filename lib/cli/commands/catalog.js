'use strict'
// `dsh-skills catalog`: the exact model-facing catalog message and its digest.

const { json } = require('../format.js')
const { renderCatalog, warnUnknownPins, budgetLine, bySourceLines, floodWarning, unreachableWarning } = require('../catalog-view.js')

async function run(session) {
  const { io, options } = session
  const snapshot = await session.snapshot()
  const rendered = renderCatalog(session, snapshot.skills)
  await warnUnknownPins(session, snapshot.skills)
  const budgeted = options.budget !== undefined
  if (options.json) {
    const { message, entries, digest, report } = rendered
    io.stdout.write(json({ complete: snapshot.complete, message, entries, digest, ...(budgeted ? { report } : {}) }))
  } else if (rendered.message === null) {
    io.err.line('dsh-skills: no model-invocable skills: no catalog would be published')
  } else {
    io.out.text(`${rendered.message}\n\ndigest: ${rendered.digest}\n`)
    if (budgeted) {
      io.out.line(budgetLine(options.budget, rendered.report))
      for (const line of bySourceLines(rendered.report)) io.out.line(line)
    }
  }
  if (!snapshot.complete) {
    io.err.line('dsh-skills: discovery was incomplete: a harness would keep its previous catalog')
  }
  const flood = budgeted ? undefined : floodWarning(rendered.report.chars)
  if (flood && !options.quiet) io.err.line(`dsh-skills: warning: ${flood}`)
  const unreachable = budgeted ? unreachableWarning(session, rendered.report) : undefined
  if (unreachable && !options.quiet) io.err.line(`dsh-skills: warning: ${unreachable}`)
  return 0
}

module.exports = { run }
