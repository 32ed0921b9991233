// `/name` gesture scan of one pasted user text: `scanSkillGestures(text)` on a
// text of T gesture tokens of which D are distinct (`/s0 /s1 … /s<D-1>`, then
// round again), 10,000 to 1,000,000 tokens, against a plain-JS scanner with the same rule (split on JS
// whitespace, a kebab-case name test, a Set for the repeats) and, with
// `--baseline DIR` (a built checkout, e.g. of the previous version), that
// build's scanner. Variants are interleaved round by round; the median wall
// time per call is reported, with the bound the scan is held to: 1,000,000
// tokens in at most 100 ms (shown for 1,000 and for 1,000,000 distinct names:
// the second also builds a million JS strings for the answer).
//
// "answer floor" is what building the answer alone costs in JS: splitting the
// names, joined by spaces, into an array of strings (a million distinct names
// are a million JS strings whatever computes them).
//
// The baseline is skipped past `--baseline-max N` distinct names (default 100,000):
// a scanner that is quadratic in the number of distinct names takes minutes
// there.
//
// Then `collectSkillInvocations` of one user message of 1,000,000 distinct
// `/name` tokens against a registry-like `skills` object of 1,000 invocable
// skills (named like every thousandth token, the last at the end of the text),
// next to the previous path (kept below: scan every name, then filter by the
// listing in JS), same bound.
//
// node bench/gestures.mjs [--baseline DIR] [--baseline-max N] [--rounds N]
import { createRequire } from 'node:module'
import path from 'node:path'
import { performance } from 'node:perf_hooks'

const require = createRequire(import.meta.url)
const { scanSkillGestures, collectSkillInvocations } = require('../lib/gestures.js')
const { renderSkillContent } = require('../lib/content.js')

const arg = (name, fallback) => {
  const at = process.argv.indexOf(name)
  return at === -1 ? fallback : process.argv[at + 1]
}
const baselineDir = arg('--baseline', undefined)
const baseline = baselineDir === undefined ? undefined : require(path.resolve(baselineDir, 'index.js'))
const baselineMax = Number(arg('--baseline-max', '100000'))
const rounds = Number(arg('--rounds', '7'))
const BOUND_MS = 100
const BOUND_AT = 1_000_000

const NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/
function plainScan(text) {
  const seen = new Set()
  for (const token of text.split(/\s/)) {
    if (token.length > 1 && token[0] === '/') {
      const name = token.slice(1)
      if (name.length <= 64 && NAME.test(name)) seen.add(name)
    }
  }
  return [...seen]
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]
}

console.log(`/name gesture scan, node ${process.version}${baseline ? `, baseline ${baselineDir}` : ''}`)
console.log(`median of ${rounds} rounds; ms per call; bound: ${BOUND_AT.toLocaleString('en-US')} tokens in ≤ ${BOUND_MS} ms`)
console.log(`  ${'tokens'.padEnd(10)} ${'distinct'.padStart(10)} ${'text'.padStart(9)} ${'native'.padStart(9)} ${'plain JS'.padStart(9)} ${'before'.padStart(10)} ${'answer floor'.padStart(13)}`)
let failed = false
for (const [tokens, n] of [
  [10_000, 10_000],
  [100_000, 100_000],
  [1_000_000, 1_000],
  [1_000_000, 1_000_000],
]) {
  const text = Array.from({ length: tokens }, (_, i) => '/s' + (i % n)).join(' ')
  const joined = Array.from({ length: n }, (_, i) => 's' + i).join(' ')
  const variants = { native: scanSkillGestures, plain: plainScan, floor: () => joined.split(' ') }
  if (baseline && n <= baselineMax && tokens <= 10 * baselineMax) variants.before = baseline.scanSkillGestures
  for (const [name, scan] of Object.entries(variants)) {
    if (name === 'floor') continue
    const got = scan(text)
    if (got.length !== n || got[n - 1] !== 's' + (n - 1)) throw new Error(`${name}: wrong result at ${n}`)
  }
  const times = Object.fromEntries(Object.keys(variants).map((k) => [k, []]))
  for (let r = 0; r < rounds; r++) {
    for (const [name, scan] of Object.entries(variants)) {
      const start = performance.now()
      scan(text)
      times[name].push(performance.now() - start)
    }
  }
  const fmt = (k) => (times[k] ? median(times[k]).toFixed(2) : '—')
  const mb = `${(text.length / 1e6).toFixed(2)} MB`
  console.log(`  ${tokens.toLocaleString('en-US').padEnd(10)} ${n.toLocaleString('en-US').padStart(10)} ${mb.padStart(9)} ${fmt('native').padStart(9)} ${fmt('plain').padStart(9)} ${fmt('before').padStart(10)} ${fmt('floor').padStart(13)}`)
  if (tokens === BOUND_AT && median(times.native) > BOUND_MS) failed = true
}

// The previous `collectSkillInvocations` (argument checks left out): every
// gesture name of every text, then the listing's invocable ones.
async function previousCollect({ skills, messages }) {
  const seen = new Set()
  for (const message of messages) {
    const found = []
    for (const name of scanSkillGestures(message.content)) found.push(name)
    for (const name of found) seen.add(name)
  }
  if (seen.size === 0) return []
  const listed = await skills.list({})
  const invocable = new Set()
  for (const summary of listed) if (summary?.invocation?.userInvocable === true) invocable.add(summary.name)
  const out = []
  for (const name of seen) {
    if (!invocable.has(name)) continue
    const definition = await skills.get(name, {})
    if (definition?.invocation?.userInvocable !== true) continue
    out.push({ name, text: renderSkillContent(definition), source: { kind: 'skill-invocation', name, form: 'instructions' } })
  }
  return out
}
{
  const tokens = 1_000_000
  const skillCount = 1_000
  const text = Array.from({ length: tokens }, (_, i) => '/s' + i).join(' ')
  const definitions = new Map()
  for (let i = 0; i < skillCount; i++) {
    const name = 's' + (tokens - 1 - i * (tokens / skillCount))
    definitions.set(name, { name, description: 'About ' + name, content: 'Steps of ' + name, provider: 'runtime', invocation: { userInvocable: true, modelInvocable: true } })
  }
  const summaries = [...definitions.values()].map(({ name, description, provider, invocation }) => ({ name, description, provider, invocation }))
  const skills = { list: async () => summaries, get: async (name) => definitions.get(name) }
  const messages = [{ role: 'user', content: text }]
  const variants = { after: () => collectSkillInvocations({ skills, messages }), before: () => previousCollect({ skills, messages }) }
  const a = await variants.after()
  const b = await variants.before()
  if (a.length !== skillCount || JSON.stringify(a) !== JSON.stringify(b)) throw new Error('collectSkillInvocations: results differ')
  const times = { after: [], before: [] }
  for (let r = 0; r < rounds; r++) {
    for (const [name, run] of Object.entries(variants)) {
      const start = performance.now()
      await run()
      times[name].push(performance.now() - start)
    }
  }
  console.log(`collectSkillInvocations, one message of ${tokens.toLocaleString('en-US')} distinct /name tokens (${(text.length / 1e6).toFixed(2)} MB), ${skillCount.toLocaleString('en-US')} invocable skills: ms per call`)
  console.log(`  ${'this build'.padStart(10)} ${'previous path'.padStart(14)}`)
  console.log(`  ${median(times.after).toFixed(2).padStart(10)} ${median(times.before).toFixed(2).padStart(14)}`)
  if (median(times.after) > BOUND_MS) failed = true
}
console.log(failed ? `bound NOT met: ${BOUND_AT.toLocaleString('en-US')} tokens took more than ${BOUND_MS} ms` : 'bound met')
