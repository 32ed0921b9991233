// What refusing a malformed JS-provider `list()` result costs: wall time and
// peak memory until the lookup rejects, each case in a fresh Node process
// (peak RSS is per process), for this build and, side by side, for a built
// checkout of the previous version.
//
//   node bench/registry-malformed.mjs [--baseline DIR] [--runs N]
//
// `--baseline DIR` (or `BENCH_BASELINE`) is a built checkout whose
// `index.js` exports the previous `SkillRegistry`.
import { spawnSync } from 'node:child_process'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const here = fileURLToPath(import.meta.url)

/** The malformed results: each builds its value in the provider's `list()`. */
const CASES = {
  'sparse Array(1e7)': 'new Array(10_000_000)',
  '{ candidates: Array(5e7) } without complete': '({ candidates: new Array(50_000_000) })',
  'sparse Array(5e5)': 'new Array(500_000)',
  '999,999 valid candidates, then one null': 'many(999_999, true)',
}

if (process.argv[2] === '--child') {
  // One measurement: `--child DIR CASE`.
  const [dir, label] = process.argv.slice(3)
  const { createRequire } = await import('node:module')
  const require = createRequire(here)
  const { SkillRegistry } = require(path.resolve(dir, 'index.js'))
  const both = { modelInvocable: true, userInvocable: true }
  const many = (n, badLast) => {
    const out = []
    for (let i = 0; i < n; i++) {
      out.push({ name: `s-${i}`, description: 'd', invocation: both, source: 'remote', provider: 'm', rank: 1, locator: i })
    }
    if (badLast) out.push(null)
    return out
  }
  const value = new Function('many', `return ${CASES[label]}`)(many)
  const registry = new SkillRegistry({ logger: { warn() {} } })
  registry.registerProvider(() => ({ name: 'm', list: async () => value, get: async () => undefined }))
  // The value is built before measuring: what is measured is the registry's
  // work until it refuses the value.
  const before = process.memoryUsage().rss
  const t0 = performance.now()
  let message = 'resolved'
  try {
    await registry.snapshot()
  } catch (error) {
    message = error.message
  }
  const ms = performance.now() - t0
  const peak = process.resourceUsage().maxRSS * 1024
  console.log(JSON.stringify({ ms, peakMB: (peak - before) / 2 ** 20, message }))
  process.exit(0)
}

function option(name, fallback) {
  const at = process.argv.indexOf(name)
  return at === -1 ? fallback : process.argv[at + 1]
}
const baseline = option('--baseline', process.env.BENCH_BASELINE)
const runs = Number(option('--runs', 3))
const builds = [['this build', path.resolve(path.dirname(here), '..')]]
if (baseline) builds.push(['before', path.resolve(baseline)])

function measure(dir, label) {
  const samples = []
  let message
  for (let r = 0; r < runs; r++) {
    const child = spawnSync(process.execPath, [here, '--child', dir, label], { encoding: 'utf8', timeout: 300_000 })
    if (child.status !== 0) throw new Error(`${label} in ${dir} failed: ${child.stderr}`)
    const result = JSON.parse(child.stdout)
    samples.push(result)
    message = result.message
  }
  const median = (key) => samples.map((s) => s[key]).sort((a, b) => a - b)[Math.floor(samples.length / 2)]
  return { ms: median('ms'), peakMB: median('peakMB'), message }
}

console.log(`## Refusing malformed list() results (median of ${runs} fresh processes; the registry's time from the lookup to the refusal, and how far the process's peak RSS grew past its size before the lookup)`)
console.log(`| result | ${builds.map(([b]) => `${b}: time | ${b}: peak RSS`).join(' | ')} | error (this build) |`)
console.log(`|---|${builds.map(() => '---:|---:').join('|')}|---|`)
for (const label of Object.keys(CASES)) {
  const cells = []
  let message
  for (const [, dir] of builds) {
    const m = measure(dir, label)
    cells.push(`${m.ms.toFixed(1)} ms`, `${Math.max(0, m.peakMB).toFixed(0)} MB`)
    message ??= m.message
  }
  console.log(`| ${label} | ${cells.join(' | ')} | ${message.replace(/\|/g, '\\|')} |`)
}
