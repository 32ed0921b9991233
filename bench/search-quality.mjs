#!/usr/bin/env node
// Search quality on need-style queries (bench/quality/queries.mjs) over
// public skill collections (bench/quality/corpus.mjs assembles them into
// bench/quality/.corpus; run it first). One run ranks every query by:
//
// - `search()`: the registry's own search (word matching alone);
// - `BM25 name+description`: plain BM25 (k1 1.2, b 0.75) over the lowercased
//   [a-z0-9] words of each skill's name and description, no stemming, no
//   stop words: the textbook baseline;
// - `MiniLM alone` and `search() + MiniLM` when an embedder is available
//   (`--model DIR` or $DSH_SKILL_EMBED_MODEL: a folder made by
//   scripts/embed-model.mjs).
//
// It reports the share of queries whose acceptable answers include the
// first, one of the first three, one of the first five results, per class.
//
// node bench/search-quality.mjs [--misses] [--json] [--model DIR]
import fs from 'node:fs'
import { createRequire } from 'node:module'
import os from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { corpusRoots } from './quality/corpus.mjs'
import { QUERIES } from './quality/queries.mjs'

const require = createRequire(import.meta.url)
const { SkillRegistry, LocalSkillProvider } = require('../index.js')
const native = require('../lib/native.js')

const args = process.argv.slice(2)
const showMisses = args.includes('--misses')
const asJson = args.includes('--json')
const modelAt = args.indexOf('--model')
const MODEL = modelAt === -1 ? process.env.DSH_SKILL_EMBED_MODEL : args[modelAt + 1]
const CLASSES = ['close', 'paraphrased', 'indirect']
const CUTS = [1, 3, 5]

/** The registry over the assembled corpus, each collection a custom root. */
async function corpusRegistry(options = {}) {
  const roots = corpusRoots()
  if (roots.length === 0) throw new Error('no corpus: run `node bench/quality/corpus.mjs` first')
  const provider = new LocalSkillProvider({ includeDefaultRoots: false, customSkillDirs: roots, watch: false, logger: { warn() {} } })
  const registry = new SkillRegistry({ logger: { warn() {} }, ...options })
  registry.registerProvider(() => provider)
  const { skills } = await registry.snapshot()
  return { registry, provider, skills: skills.filter((s) => s.invocation.modelInvocable) }
}

/** Plain BM25 over name and description words (the textbook baseline). */
function plainBm25(skills) {
  const tokens = (text) => text.toLowerCase().match(/[a-z0-9]+/g) ?? []
  const docs = skills.map((s) => tokens(`${s.name.replaceAll('-', ' ')} ${s.description}`))
  const avg = docs.reduce((n, d) => n + d.length, 0) / docs.length
  const df = new Map()
  for (const d of docs) for (const t of new Set(d)) df.set(t, (df.get(t) ?? 0) + 1)
  const tfs = docs.map((d) => {
    const m = new Map()
    for (const t of d) m.set(t, (m.get(t) ?? 0) + 1)
    return m
  })
  return (query) => {
    const terms = [...new Set(tokens(query))]
    const scored = []
    for (let i = 0; i < docs.length; i++) {
      let score = 0
      for (const t of terms) {
        const tf = tfs[i].get(t)
        if (!tf) continue
        const idf = Math.log(1 + (docs.length - df.get(t) + 0.5) / (df.get(t) + 0.5))
        score += (idf * tf * 2.2) / (tf + 1.2 * (0.25 + (0.75 * docs[i].length) / avg))
      }
      if (score > 0) scored.push([score, skills[i].name])
    }
    scored.sort((a, b) => b[0] - a[0] || (a[1] < b[1] ? -1 : 1))
    return scored.slice(0, 5).map(([, name]) => name)
  }
}

/** Hit rates of `rank` (query → names, best first) over the query set. */
async function evaluate(rank) {
  const rows = []
  for (const { class: cls, q, answers } of QUERIES) {
    const names = await rank(q)
    const at = names.findIndex((n) => answers.includes(n))
    rows.push({ cls, q, answers, names, at })
  }
  const rate = (list, cut) => list.filter((r) => r.at !== -1 && r.at < cut).length / Math.max(list.length, 1)
  const table = {}
  for (const cls of [...CLASSES, 'all']) {
    const list = cls === 'all' ? rows : rows.filter((r) => r.cls === cls)
    table[cls] = Object.fromEntries(CUTS.map((c) => [`top${c}`, rate(list, c)]))
  }
  return { table, rows }
}

function pct(x) {
  return `${Math.round(x * 100)}`.padStart(3) + ' %'
}

function printTable(results) {
  const head = ['method'.padEnd(26), ...[...CLASSES, 'all'].map((c) => c.padEnd(20))].join('')
  console.log(head)
  console.log(''.padEnd(26) + [...CLASSES, 'all'].map(() => 'top1  top3  top5    ').join(''))
  for (const [method, { table }] of Object.entries(results)) {
    const cells = [...CLASSES, 'all'].map((c) => CUTS.map((k) => pct(table[c][`top${k}`]).padEnd(6)).join('') + '  ')
    console.log(method.padEnd(26) + cells.join(''))
  }
}

/** The text of a skill the embedder sees (as skill_core::search::vectors::skill_text). */
const skillText = (s) => `${s.name.replaceAll('-', ' ')}: ${s.description.trim()}`

const dot = (a, b) => {
  let sum = 0
  for (let i = 0; i < a.length; i++) sum += a[i] * b[i]
  return sum
}

const pct95 = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length * 0.95)]

/**
 * MiniLM alone and fused with words: every skill embedded once (the cold
 * embedding, timed), then a registry whose embedder is a JS function
 * serving those vectors, and one with the local embedder and a disk cache
 * (cold, then a restart: embeds nothing).
 */
async function semanticMethods(skills, results, timings) {
  const model = await native.loadLocalEmbedder(MODEL)
  const texts = skills.map(skillText)
  let start = performance.now()
  const vectors = await model.embed(texts)
  timings.cold = { skills: texts.length, seconds: (performance.now() - start) / 1000 }
  const memo = new Map(texts.map((t, i) => [t, vectors[i]]))
  results['MiniLM alone'] = await evaluate(async (q) => {
    const [qv] = await model.embed([q])
    return skills
      .map((s, i) => [dot(vectors[i], qv), s.name])
      .sort((a, b) => b[0] - a[0])
      .slice(0, 5)
      .map(([, name]) => name)
  })
  const served = async (list) => Promise.all(list.map(async (t) => memo.get(t) ?? (await model.embed([t]))[0]))
  served.id = model.id
  const fused = await corpusRegistry({ embedder: served, embedderCacheDir: false })
  await fused.registry.prepareSearch()
  results['search() + MiniLM (fused)'] = await evaluate(async (q) => (await fused.registry.search(q, { limit: 5 })).skills.map((s) => s.name))
  await fused.provider.dispose()
  // The local embedder end to end: a cold cache, then a restart.
  const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-vectors-'))
  try {
    const local = await corpusRegistry({ embedder: { model: MODEL }, embedderCacheDir: cache })
    start = performance.now()
    const cold = await local.registry.prepareSearch()
    timings.local = { embedded: cold.embedded, seconds: (performance.now() - start) / 1000 }
    const samples = []
    for (const { q } of QUERIES) {
      start = performance.now()
      await local.registry.search(q, { limit: 5 })
      samples.push(performance.now() - start)
    }
    timings.queryP95 = pct95(samples)
    await local.provider.dispose()
    const again = await corpusRegistry({ embedder: { model: MODEL }, embedderCacheDir: cache })
    start = performance.now()
    const warm = await again.registry.prepareSearch()
    timings.warm = { embedded: warm.embedded, seconds: (performance.now() - start) / 1000 }
    await again.provider.dispose()
  } finally {
    fs.rmSync(cache, { recursive: true, force: true })
  }
}

async function main() {
  const load = os.loadavg().map((n) => n.toFixed(2)).join(' ')
  const { registry, provider, skills } = await corpusRegistry()
  const results = {}
  const timings = {}
  results['search()'] = await evaluate(async (q) => (await registry.search(q, { limit: 5 })).skills.map((s) => s.name))
  results['BM25 name+description'] = await evaluate(plainBm25(skills))
  await provider.dispose()
  if (MODEL) await semanticMethods(skills, results, timings)
  if (asJson) {
    console.log(JSON.stringify({ skills: skills.length, queries: QUERIES.length, load, timings, results: Object.fromEntries(Object.entries(results).map(([k, v]) => [k, v.table])) }))
    return
  }
  console.log(`${skills.length} model-visible skills, ${QUERIES.length} queries (${CLASSES.map((c) => `${QUERIES.filter((q) => q.class === c).length} ${c}`).join(', ')}); load average ${load}`)
  printTable(results)
  if (!MODEL) console.log('(no model folder: --model DIR or DSH_SKILL_EMBED_MODEL for MiniLM alone and fused; scripts/embed-model.mjs makes one)')
  if (timings.cold) {
    console.log(`\nembedding ${timings.cold.skills} skills cold: ${timings.cold.seconds.toFixed(1)} s (${os.cpus().length} cores)`)
    console.log(`local embedder, cold cache: ${timings.local.embedded} embedded in ${timings.local.seconds.toFixed(1)} s; restart: ${timings.warm.embedded} embedded in ${timings.warm.seconds.toFixed(2)} s`)
    console.log(`search() with the local embedder, each query new: p95 ${timings.queryP95.toFixed(1)} ms`)
    console.log(`load average after: ${os.loadavg().map((n) => n.toFixed(2)).join(' ')}`)
  }
  if (showMisses) {
    for (const [method, { rows }] of Object.entries(results)) {
      console.log(`\nmisses of ${method} (not in the top 5):`)
      for (const r of rows) if (r.at === -1) console.log(`  [${r.cls}] ${r.q}\n      want ${r.answers.join(', ')}\n      got  ${r.names.join(', ')}`)
    }
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  // The corpus is fetched, not committed: without it (a fresh clone, `npm run
  // bench`) there is nothing to measure, which is not a failure.
  if (corpusRoots().length === 0) console.log('search-quality: skipped, no corpus (run `node bench/quality/corpus.mjs` first)')
  else await main()
}
