'use strict'
// `dsh-skills search QUERY`: the model-invocable skills a query is about, best
// first, with the ranking of the registry's search() (and of the search tool).

const { UsageError } = require('../errors.js')
const { json } = require('../format.js')
const { closest, didYouMean } = require('../args.js')

/** Descriptions in the table are cut to this many characters. */
const DESCRIPTION_WIDTH = 100

function cut(text) {
  const line = text.replace(/\s+/g, ' ').trim()
  return line.length <= DESCRIPTION_WIDTH ? line : `${line.slice(0, DESCRIPTION_WIDTH - 3)}...`
}

async function run(session, args) {
  const { io, options } = session
  const query = args.join(' ').trim()
  if (query === '') throw new UsageError('search needs a query (a few words about the task)', 'search')
  const limit = options.limit
  // Every skill gets its vector before the one search of this run (cached:
  // only a first run, or new skills, cost time).
  if (options.embed !== undefined) await session.registry.prepareSearch(session.lookup())
  const results = await session.registry.search(query, { ...session.lookup(), ...(limit === undefined ? {} : { limit }) })
  if (options.json) {
    io.stdout.write(json({ query, ...results }))
  } else if (results.skills.length > 0) {
    const rows = results.skills.map((skill) => [skill.name, skill.score.toFixed(2), skill.source, cut(skill.description)])
    io.out.table(['NAME', 'SCORE', 'SOURCE', 'DESCRIPTION'], rows)
  }
  if (!results.complete) io.err.line('dsh-skills: discovery was incomplete: some skills may be missing')
  if (results.total === 0) {
    if (!options.json) {
      const names = (await session.registry.list(session.lookup())).filter((s) => s.invocation.modelInvocable).map((s) => s.name)
      const hint = results.suggestion !== undefined ? didYouMean(JSON.stringify(results.suggestion)) : didYouMean(closest(query, names))
      io.err.line(`dsh-skills: no skill matches ${JSON.stringify(query)}${hint}`)
    }
    return 1
  }
  if (!options.json && !options.quiet && results.total > results.skills.length) {
    io.err.line(`dsh-skills: ${results.skills.length} of ${results.total} matching skills shown (--limit N for more)`)
  }
  return 0
}

module.exports = { run }
