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
//   the interval), with how much of it the JS thread ran, waited for a CPU
//   and collected garbage (bench/lag.mjs);
// - with --model DIR (a folder of scripts/embed-model.mjs), the 1,500 with
//   the local embedder: cold embedding, searches whose every query is new
//   (the need-style queries of bench/quality/queries.mjs, five phrasings
//   each), a restart with the vector cache.
//
// node bench/search-scale.mjs [--skills N] [--rounds N] [--model DIR]
import fs from 'node:fs'
import { createRequire } from 'node:module'
import os from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { searchCorpus } from './data/search-corpus.mjs'
import { describeStall, lagProbe } from './lag.mjs'

const require = createRequire(import.meta.url)
const { SkillRegistry } = require('../index.js')

const arg = (name, fallback) => {
  const at = process.argv.indexOf(name)
  return at === -1 ? fallback : Number(process.argv[at + 1])
}
const SIZES = [arg('--skills', 100_000), 1500]
const modelAt = process.argv.indexOf('--model')
const MODEL = modelAt === -1 ? undefined : process.argv[modelAt + 1]
const ROUNDS = arg('--rounds', 200)
const QUERIES = ['deploy to kubernetes', 'fill pdf forms', 'slow sql query indexes', 'release notes', 'cache expiry for redis', 'zarvex tolimo', 'review django changes', 'translate the docs']

/** Made-up words (letters only) from a seed. */
function word(seed) {
  const syllables = ['za', 'rv', 'ex', 'to', 'li', 'mo', 'qu', 'an', 'de', 'ri', 'ko', 'pe', 'su', 'la', 'mi', 'no']
  let w = ''
  for (let s = seed + 7; w.length < 6; s = Math.floor(s / 16)) w += syllables[s % 16]
  return w
}

function syntheticSkills(n) {
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

/** Runs `fn` under a lag probe: `{ ms, stall }` (stall: see lag.mjs). */
async function timed(fn) {
  const probe = lagProbe()
  await new Promise((resolve) => setTimeout(resolve, 5))
  const start = performance.now()
  await fn()
  const ms = performance.now() - start
  await new Promise((resolve) => setTimeout(resolve, 5))
  return { ms, stall: probe.stop() }
}

/**
 * The 1,500 skills with the local embedder: embedding them cold (a fresh
 * vector cache), searches whose every query is new (each embeds its
 * query), and a restart with that cache (embeds nothing).
 */
async function withEmbedder(skills) {
  const { QUERIES: NEEDS } = await import('./quality/queries.mjs')
  const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-bench-vectors-'))
  const embedded = () => {
    const registry = new SkillRegistry({ logger: { warn() {} }, embedder: { model: MODEL }, embedderCacheDir: cache })
    registry.registerProvider(() => ({ name: 'synthetic', list: () => skills, get: () => undefined }))
    return registry
  }
  try {
    const registry = embedded()
    let start = performance.now()
    const cold = await registry.prepareSearch()
    const coldSeconds = (performance.now() - start) / 1000
    await registry.search('warm up')
    const samples = []
    const probe = lagProbe()
    for (const prefix of ['', 'I need to ', 'help me ', 'how can I ', 'please ']) {
      for (const { q } of NEEDS) {
        start = performance.now()
        await registry.search(prefix + q, { limit: 10 })
        samples.push(performance.now() - start)
      }
    }
    const stall = probe.stop()
    start = performance.now()
    const warm = await embedded().prepareSearch()
    const warmSeconds = (performance.now() - start) / 1000
    console.log(`\n1,500 skills with the local embedder (${MODEL})`)
    console.log(`  ${'embedding every skill, cold'.padEnd(40)} ${cold.embedded} in ${coldSeconds.toFixed(1)} s`)
    console.log(`  ${'restart with that cache'.padEnd(40)} ${warm.embedded} embedded, ${warmSeconds.toFixed(2)} s`)
    console.log(`  ${`search, every query new (${samples.length}) p50 / p95`.padEnd(40)} ${f(pct(samples, 0.5)).padStart(7)} / ${f(pct(samples, 0.95))} ms   longest stall ${describeStall(stall)}`)
  } finally {
    fs.rmSync(cache, { recursive: true, force: true })
  }
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
  const firsts = []
  for (let i = 0; i < 5; i++) {
    control.invalidate()
    const collect = await timed(() => registry.snapshot())
    const rss = process.memoryUsage().rss
    const first = await timed(() => registry.search(QUERIES[i % QUERIES.length]))
    firsts.push({ collect, first, rss: process.memoryUsage().rss - rss })
  }
  // The median time of the five, and the longest stall of any of them.
  const summary = (key) => {
    const runs = firsts.map((r) => r[key])
    return { ms: [...runs].sort((a, b) => a.ms - b.ms)[2].ms, stall: runs.reduce((a, b) => (b.stall.stall > a.stall.stall ? b : a)).stall }
  }
  const rows = [
    ['collection after a change (snapshot)', summary('collect')],
    ['first search (index built)', summary('first')],
  ]
  const samples = []
  const probe = lagProbe()
  for (let i = 0; i < ROUNDS; i++) {
    const start = performance.now()
    await registry.search(QUERIES[i % QUERIES.length], { limit: 10 })
    samples.push(performance.now() - start)
  }
  const warmStall = probe.stop()
  console.log(`\n${size.toLocaleString('en')} skills`)
  for (const [label, { ms, stall }] of rows) console.log(`  ${label.padEnd(40)} ${f(ms).padStart(7)} ms   longest stall ${describeStall(stall)}`)
  console.log(`  ${'warm search p50 / p95'.padEnd(40)} ${f(pct(samples, 0.5)).padStart(7)} / ${f(pct(samples, 0.95))} ms   longest stall ${describeStall(warmStall)}`)
  console.log(`  ${'rss growth over the first search'.padEnd(40)} ${(firsts.map((r) => r.rss).sort((a, b) => a - b)[2] / 1048576).toFixed(1).padStart(7)} MB (median of 5; noisy)`)
}
if (MODEL) await withEmbedder(syntheticSkills(1500))
console.log(`\nload average after: ${os.loadavg().map((n) => n.toFixed(2)).join(' ')}`)
