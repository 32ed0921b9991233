'use strict'
// `dsh-skills doctor`: every entry considered, with its verdict and hints.

const { json } = require('../format.js')
const { diagnose, countVerdicts, formatDoctor, addDepthHints } = require('../diagnosis.js')
const { renderCatalog, warnUnknownPins, budgetLine } = require('../catalog-view.js')

async function run(session) {
  const { io, options } = session
  const diagnosis = await diagnose(session)
  addDepthHints(diagnosis)
  const counts = countVerdicts(diagnosis.files)
  let budget
  if (options.budget !== undefined) {
    const snapshot = await session.snapshot()
    warnUnknownPins(session, snapshot.skills)
    const { report } = renderCatalog(session, snapshot.skills)
    budget = { budget: options.budget, report, cuts: report.full < report.total }
  }
  if (options.json) {
    io.stdout.write(json(budget ? { ...diagnosis, budget } : diagnosis))
  } else {
    formatDoctor(session, diagnosis, io.out)
    if (budget?.cuts) {
      io.out.styled(`warning: the catalog does not fit the ${budgetLine(budget.budget, budget.report)}`, 'yellow')
    } else if (budget) {
      io.out.line(`The catalog fits the ${budgetLine(budget.budget, budget.report)}`)
    }
  }
  return counts.broken > 0 || !diagnosis.complete ? 1 : 0
}

module.exports = { run }
