#!/usr/bin/env node
// Search at scale: a JS provider of N synthetic skills (default 100,000: the
// 1,500 of bench/data/search-corpus.mjs, each in N/1,500 variants with two
// made-up words of its own, so the dictionary grows as a real one would),
// and a 1,500-skill catalog for the small case. For each size:
//
// - the collection after a change (`snapshot()`), for reference;
// - the first `search()` of that catalog (its index is built then);
// - warm searches: p50 / p95 over 200 queries;
// - the longest event-loop stall during each step, from a timer-lag probe
//   (a 1 ms interval; the stall is the longest gap between two ticks, less
//   the interval).
//
// node bench/search-scale.mjs [--skills N] [--rounds N]
import { createRequire } from 'node:module'
import os from 'node:os'
import { performance } from 'node:perf_hooks'
import { searchCorpus } from './data/search-corpus.mjs'

const require = createRequire(import.meta.url)
const { SkillRegistry } = require('../index.js')

const arg = (name, fallback) => {
  const at = process.argv.indexOf(name)
  return at === -1 ? fallback : Number(process.argv[at + 1])
}
const SIZES = [arg('--skills', 100_000), 1500]
const ROUNDS = arg('--rounds', 200)
const QUERIES = ['deploy to kubernetes', 'fill pdf forms', 'slow sql query indexes', 'release notes', 'cache expiry for redis', 'zarvex tolimo', 'review django changes', 'translate the docs']

/** Made-up words (letters only) from a seed. */
function word(seed) {
  const syllables = ['za', 'rv', 'ex', 'to', 'li', 'mo', 'qu', 'an', 'de', 'ri', 'ko', 'pe', 'su', 'la', 'mi', 'no']
  let w = ''
  for (let s = seed + 7; w.length < 6; s = Math.floor(s / 16)) w += syllables[s % 16]
  return w
}

export function syntheticSkills(n) {
  const base = searchCorpus(1500)
  const skills = []
  for (let i = 0; i < n; i++) {
    const b = base[i % base.length]
    const v = Math.floor(i / base.length)
    skills.push({
      name: v === 0 ? b.name : `${b.name}-v${v}`,
      description: v === 0 ? b.description : `${b.description} ${word(i * 31 + 1)} ${word(i * 17 + 5)}`,
      invocation: { modelInvocable: true, userInvocable: true },
      source: 'custom',
      provider: 'synthetic',
      rank: 300,
    })
  }
  return skills
}

/** Starts a timer-lag probe; `stop()` gives the longest stall (ms). */
function probe() {
  let last = performance.now()
  let worst = 0
  const timer = setInterval(() => {
    const now = performance.now()
    worst = Math.max(worst, now - last - 1)
    last = now
  }, 1)
  return () => {
    clearInterval(timer)
    return Math.max(worst, performance.now() - last - 1)
  }
}

/** Runs `fn` under a lag probe: `{ ms, stall }`. */
async function timed(fn) {
  const stop = probe()
  await new Promise((resolve) => setTimeout(resolve, 5))
  const start = performance.now()
  await fn()
  const ms = performance.now() - start
  await new Promise((resolve) => setTimeout(resolve, 5))
  return { ms, stall: stop() }
}

const pct = (list, p) => [...list].sort((a, b) => a - b)[Math.min(list.length - 1, Math.floor(list.length * p))]
const f = (x) => x.toFixed(x < 10 ? 2 : 0)

console.log(`load average ${os.loadavg().map((n) => n.toFixed(2)).join(' ')}, ${os.cpus().length} cores, node ${process.version}`)
for (const size of SIZES) {
  const skills = syntheticSkills(size)
  let control
  const registry = new SkillRegistry({ logger: { warn() {} } })
  registry.registerProvider((c) => {
    control = c
    return { name: 'synthetic', list: () => skills, get: () => undefined }
  })
  await registry.snapshot()
  await registry.search('warm up')
  const rows = []
  const firsts = []
  for (let i = 0; i < 5; i++) {
    control.invalidate()
    const collect = await timed(() => registry.snapshot())
    const rss = process.memoryUsage().rss
    const first = await timed(() => registry.search(QUERIES[i % QUERIES.length]))
    firsts.push({ collect, first, rss: process.memoryUsage().rss - rss })
  }
  const best = (key) => firsts.map((r) => r[key]).sort((a, b) => a.ms - b.ms)[2]
  rows.push(['collection after a change (snapshot)', best('collect')])
  rows.push(['first search (index built)', best('first')])
  const samples = []
  const stop = probe()
  for (let i = 0; i < ROUNDS; i++) {
    const start = performance.now()
    await registry.search(QUERIES[i % QUERIES.length], { limit: 10 })
    samples.push(performance.now() - start)
  }
  const warmStall = stop()
  console.log(`\n${size.toLocaleString('en')} skills`)
  for (const [label, { ms, stall }] of rows) console.log(`  ${label.padEnd(40)} ${f(ms).padStart(7)} ms   longest stall ${f(stall)} ms`)
  console.log(`  ${'warm search p50 / p95'.padEnd(40)} ${f(pct(samples, 0.5)).padStart(7)} / ${f(pct(samples, 0.95))} ms   longest stall ${f(warmStall)} ms`)
  console.log(`  ${'rss growth over the first search'.padEnd(40)} ${(firsts.map((r) => r.rss).sort((a, b) => a - b)[2] / 1048576).toFixed(1).padStart(7)} MB (median of 5; noisy)`)
}
console.log(`\nload average after: ${os.loadavg().map((n) => n.toFixed(2)).join(' ')}`)
