'use strict'
// `dsh-skills explain NAME`: which copy of a skill won and why the others lost.

const { overrideFlag } = require('../args.js')
const { json, shown, invocationLabel } = require('../format.js')
const { skillNameArg, missingSkill, brokenDetails } = require('../names.js')

/** Where an explained candidate lives: its path, else its resource base. */
function candidatePlace(candidate) {
  if (candidate.path !== undefined) return shown(candidate.path)
  const base = candidate.resourceBase
  if (base && typeof base === 'object') {
    if (typeof base.path === 'string') return shown(base.path)
    if (typeof base.url === 'string') return base.url
    if (typeof base.description === 'string') return base.description
  }
  return '-'
}

const LOST_BECAUSE = {
  rank: 'lost: rank',
  order: 'lost: order',
  off: 'off',
  same: 'same',
}

async function run(session, args) {
  const { io, options } = session
  const name = await skillNameArg(session, args, 'explain')
  const explanation = await session.registry.explain(name, session.lookup())
  if (explanation === undefined) throw await missingSkill(session, name, `no provider lists a skill "${name}"`)
  if (options.json) {
    io.stdout.write(json(explanation))
  } else {
    const rule = (candidate) => (candidate.override ? options.overrides[candidate.override.rule] : undefined)
    const row = (candidate, outcome) => {
      const by = rule(candidate)
      return [
        by && candidate.override.effect !== 'on' ? `${outcome} (${overrideFlag(by)})` : outcome,
        candidate.provider,
        candidate.source,
        String(candidate.rank),
        invocationLabel(candidate.invocation),
        candidatePlace(candidate),
      ]
    }
    const rows = []
    if (explanation.winner) rows.push(row(explanation.winner, 'won'))
    for (const loser of explanation.losers) rows.push(row(loser, LOST_BECAUSE[loser.reason] ?? loser.reason))
    const count = rows.length === 1 ? '1 candidate' : `${rows.length} candidates`
    io.out.line(
      explanation.winner
        ? `${name}: ${count}; the ${explanation.winner.source} copy from provider ${explanation.winner.provider} wins`
        : `${name}: ${count}, all switched off: no skill of this name is listed`,
    )
    io.out.line('')
    io.out.table(['OUTCOME', 'PROVIDER', 'SOURCE', 'RANK', 'INVOCATION', 'WHERE'], rows)
    const reasons = new Set(explanation.losers.map((loser) => loser.reason))
    if (reasons.size > 0) io.out.line('')
    if (reasons.has('rank')) io.out.line('lost: rank   the winner has a lower rank')
    if (reasons.has('order')) {
      io.out.line('lost: order  same rank (several --skill-dir roots, or two entries of one root); the winner comes first')
    }
    if (reasons.has('off')) io.out.line('off          switched off by an override: it took no part')
    if (reasons.has('same')) io.out.line('same         the same skill as the winner (identical files): no conflict')
    // Broken files take no part either, but they are likely the copy being edited.
    const broken = await brokenDetails(session, name)
    if (broken.length) {
      io.out.line('')
      io.out.line('Broken, so not a candidate:')
      for (const line of broken) io.out.line(`  ${line}`)
    }
  }
  if (!explanation.complete) io.err.line('dsh-skills: discovery was incomplete: some candidates may be missing')
  return 0
}

module.exports = { run }
