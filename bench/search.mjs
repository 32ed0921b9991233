// Search benchmark: registry.search() on the 1,500-skill collection of
// bench/data/search-corpus.mjs, side by side with a plain JS filter over
// list() (every skill whose name or description holds the query's words, as
// a consumer without search would write it), variants interleaved round by
// round, median per call reported (wall time; the machine may be busy).
//
// - warm: the catalog and its index are cached (the usual case: one catalog,
//   many searches);
// - after a change: one runtime skill registered and disposed before each
//   call, so every call collects a new catalog and builds its index (search)
//   or its summaries (filter);
// - local: the same collection as files of a filesystem provider root
//   (`watch: false`); a change is observeHostMutation() of one skill file, so
//   every call re-reads what changed and builds a new catalog and index.
//
// node bench/search.mjs [--rounds N]
import fs from 'node:fs'
import { createRequire } from 'node:module'
import os from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { searchCorpus } from './data/search-corpus.mjs'

const require = createRequire(import.meta.url)
const { SkillRegistry, LocalSkillProvider } = require('../index.js')

const roundsAt = process.argv.indexOf('--rounds')
const ROUNDS = roundsAt === -1 ? 200 : Number(process.argv[roundsAt + 1])
const QUERIES = ['deploy to kubernetes', 'fill pdf forms', 'slow sql query indexes', 'release notes', 'cache expiry for redis']

/** The filter a consumer without search writes: every query word in the name or description. */
function plainFilter(skills, query) {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean)
  return skills.filter((s) => {
    if (!s.invocation.modelInvocable) return false
    const text = `${s.name} ${s.description}`.toLowerCase()
    return words.some((w) => text.includes(w))
  })
}

function median(samples) {
  const sorted = [...samples].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]
}

/** Runs the variants interleaved, `rounds` times each; median ms per call. */
async function sideBySide(title, variants, rounds = ROUNDS) {
  const samples = Object.fromEntries(Object.keys(variants).map((k) => [k, []]))
  for (let i = 0; i < Math.min(20, rounds); i++) for (const run of Object.values(variants)) await run(i)
  for (let i = 0; i < rounds; i++) {
    for (const [name, run] of Object.entries(variants)) {
      const start = performance.now()
      await run(i)
      samples[name].push(performance.now() - start)
    }
  }
  console.log(title)
  for (const [name, list] of Object.entries(samples)) console.log(`  ${name.padEnd(34)} ${median(list).toFixed(3)} ms`)
}

const corpus = searchCorpus(1500)
console.log(`${corpus.length} skills, load average ${os.loadavg().map((n) => n.toFixed(2)).join(' ')}, ${os.cpus().length} cores`)

const registry = new SkillRegistry({ logger: { warn() {} } })
for (const { name, description } of corpus) registry.register({ name, description, content: name })
await sideBySide('runtime skills, warm (catalog and index cached):', {
  'search()': (i) => registry.search(QUERIES[i % QUERIES.length]),
  'list() + JS filter': async (i) => plainFilter(await registry.list(), QUERIES[i % QUERIES.length]),
})

const change = () => registry.register({ name: 'zz-changing', description: 'A skill that comes and goes.', content: 'x' })()
await sideBySide('runtime skills, first call after a change (new catalog each call):', {
  'search()': async (i) => {
    change()
    return registry.search(QUERIES[i % QUERIES.length])
  },
  'list() + JS filter': async (i) => {
    change()
    return plainFilter(await registry.list(), QUERIES[i % QUERIES.length])
  },
  'snapshot() alone (the collection)': async () => {
    change()
    return registry.snapshot()
  },
})

const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-bench-search-')))
try {
  for (const { name, description } of corpus) {
    fs.writeFileSync(path.join(dir, `${name}.md`), `---\nname: ${name}\ndescription: ${JSON.stringify(description)}\n---\nBody of ${name}.\n`)
  }
  const provider = new LocalSkillProvider({ includeDefaultRoots: false, customSkillDirs: [dir], watch: false })
  const local = new SkillRegistry({ logger: { warn() {} } })
  local.registerProvider(() => provider)
  const touched = path.join(dir, `${corpus[0].name}.md`)
  const touch = () => provider.observeHostMutation(touched)
  await sideBySide('filesystem provider (1,500 files), warm:', {
    'search()': (i) => local.search(QUERIES[i % QUERIES.length]),
    'list() + JS filter': async (i) => plainFilter(await local.list(), QUERIES[i % QUERIES.length]),
  })
  await sideBySide(
    'filesystem provider, first call after observeHostMutation() of one file:',
    {
      'search()': async (i) => {
        touch()
        return local.search(QUERIES[i % QUERIES.length])
      },
      'list() + JS filter': async (i) => {
        touch()
        return plainFilter(await local.list(), QUERIES[i % QUERIES.length])
      },
      'snapshot() alone (the collection)': async () => {
        touch()
        return local.snapshot()
      },
    },
    Math.min(ROUNDS, 60),
  )
  await provider.dispose()
} finally {
  fs.rmSync(dir, { recursive: true, force: true })
}
console.log(`load average after: ${os.loadavg().map((n) => n.toFixed(2)).join(' ')}`)
