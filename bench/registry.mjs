// Registry benchmark: the native registry (through the addon, JS provider
// crossing included) against a plain-JS registry that applies the same rules
// (validate, rank merge, first-wins, sort, cache), side by side in one run.
import { createRequire } from 'node:module'
import { performance } from 'node:perf_hooks'
import { generateHome, plainReads, stats } from './fixtures.mjs'

const require = createRequire(import.meta.url)
const { SkillRegistry } = require('../index.js')

const both = Object.freeze({ modelInvocable: true, userInvocable: true })

function makeCandidates(n, provider) {
  const out = []
  for (let i = 0; i < n; i++) {
    out.push({
      name: `skill-${i.toString().padStart(5, '0')}`,
      description: `Skill number ${i}: ${'does a useful thing for the agent, '.repeat(5)}`.slice(0, 200),
      invocation: both,
      source: 'remote',
      provider,
      rank: 700,
      locator: { i },
    })
  }
  return out
}

/** The same rules in plain JS, written as a TypeScript registry would be. */
class PlainRegistry {
  #providers = []
  #cache = new Map()
  #max = 128
  register(provider) {
    this.#providers.push(provider)
    this.#cache.clear()
  }
  invalidate() {
    this.#cache.clear()
  }
  async snapshot(options = {}) {
    const key = options.cwd ?? ''
    const hit = this.#cache.get(key)
    if (hit) {
      this.#cache.delete(key)
      this.#cache.set(key, hit)
      return { skills: hit.slice(), complete: true }
    }
    const lists = await Promise.all(this.#providers.map((p) => p.list(options)))
    const entries = []
    lists.forEach((list, order) => {
      const provider = this.#providers[order]
      list.forEach((c, local) => {
        if (typeof c.name !== 'string' || !/^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(c.name)) throw new Error('name')
        if (typeof c.description !== 'string' || c.description.trim() === '') throw new Error('description')
        if (typeof c.invocation?.modelInvocable !== 'boolean' || typeof c.invocation?.userInvocable !== 'boolean') throw new Error('invocation')
        if (typeof c.source !== 'string' || c.source === '') throw new Error('source')
        if (c.provider !== provider.name) throw new Error('provider')
        if (typeof c.rank !== 'number' || !Number.isFinite(c.rank)) throw new Error('rank')
        entries.push({ c, order, local })
      })
    })
    entries.sort((a, b) => a.c.rank - b.c.rank || a.order - b.order || a.local - b.local)
    const seen = new Set()
    const skills = []
    for (const { c } of entries) {
      if (seen.has(c.name)) continue
      seen.add(c.name)
      skills.push(Object.freeze({ name: c.name, description: c.description, invocation: c.invocation, source: c.source, provider: c.provider }))
    }
    skills.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    if (this.#cache.size >= this.#max) this.#cache.delete(this.#cache.keys().next().value)
    this.#cache.set(key, skills)
    return { skills: skills.slice(), complete: true }
  }
}

async function time(label, iterations, fn) {
  for (let i = 0; i < Math.min(20, iterations); i++) await fn()
  const samples = []
  for (let i = 0; i < iterations; i++) {
    const start = performance.now()
    await fn()
    samples.push(performance.now() - start)
  }
  samples.sort((a, b) => a - b)
  const median = samples[Math.floor(samples.length / 2)]
  return { label, median }
}

const rows = []
for (const n of [100, 1000]) {
  const candidates = makeCandidates(n, 'remote')
  const provider = { name: 'remote', list: async () => candidates, get: async (c) => ({ ...c, content: 'body' }) }

  let control
  const native = new SkillRegistry({ logger: { warn() {} } })
  native.registerProvider((c) => ((control = c), provider))
  const plain = new PlainRegistry()
  plain.register(provider)

  const iterations = n >= 1000 ? 200 : 1000
  const coldNative = await time('native', iterations, async () => {
    control.invalidate()
    await native.snapshot({ cwd: '/w' })
  })
  const coldPlain = await time('plain', iterations, async () => {
    plain.invalidate()
    await plain.snapshot({ cwd: '/w' })
  })
  await native.snapshot({ cwd: '/w' })
  await plain.snapshot({ cwd: '/w' })
  const warmNative = await time('native', 5000, () => native.snapshot({ cwd: '/w' }))
  const warmPlain = await time('plain', 5000, () => plain.snapshot({ cwd: '/w' }))
  const getNative = await time('native', 5000, () => native.get('skill-00001', { cwd: '/w' }))
  rows.push({ n, coldNative, coldPlain, warmNative, warmPlain, getNative })
}

const ms = (x) => `${x.median.toFixed(3)} ms`
console.log('## Registry with a JS provider (median per call)')
console.log('| candidates | cold snapshot native | cold snapshot plain JS | ratio | warm snapshot native | warm plain JS | get() native |')
console.log('|---|---|---|---|---|---|---|')
for (const r of rows) {
  console.log(
    `| ${r.n} | ${ms(r.coldNative)} | ${ms(r.coldPlain)} | ${(r.coldPlain.median / r.coldNative.median).toFixed(2)}× | ${ms(r.warmNative)} | ${ms(r.warmPlain)} | ${ms(r.getNative)} |`,
  )
}

// The native local provider registered in the registry: discovery, merge and
// cache without JS on the provider path. Cold = a fresh registry and provider.
{
  const n = Number(process.argv[2] ?? 1000)
  const fixture = generateHome(n)
  try {
    plainReads(fixture.roots)
    const plain = []
    const cold = []
    for (let r = 0; r < 20; r++) {
      let t = performance.now()
      plainReads(fixture.roots)
      plain.push(performance.now() - t)
      const registry = new SkillRegistry({ logger: { warn() {} } })
      const local = registry.registerLocalProvider(fixture.config)
      t = performance.now()
      const snapshot = await registry.snapshot()
      cold.push(performance.now() - t)
      if (snapshot.skills.length !== n) throw new Error(`expected ${n} skills, got ${snapshot.skills.length}`)
      await local.dispose()
    }
    const registry = new SkillRegistry({ logger: { warn() {} } })
    registry.registerLocalProvider(fixture.config)
    await registry.snapshot()
    const warm = []
    for (let r = 0; r < 5000; r++) {
      const t = performance.now()
      await registry.snapshot()
      warm.push(performance.now() - t)
    }
    const gets = []
    for (let r = 0; r < 2000; r++) {
      const t = performance.now()
      const d = await registry.get(`skill-${String(r % n).padStart(5, '0')}`)
      gets.push(performance.now() - t)
      if (!d) throw new Error('missing definition')
    }
    const p = stats(plain)
    const c = stats(cold)
    console.log('')
    console.log(`## Registry with the native local provider (${n} skills on disk, median per call)`)
    console.log('| plain sync Node reads (floor) | cold snapshot() | ratio to floor | warm snapshot() | get() |')
    console.log('|---|---|---|---|---|')
    console.log(
      `| ${p.median.toFixed(3)} ms | ${c.median.toFixed(3)} ms | ${(c.median / p.median).toFixed(2)}× | ${stats(warm).median.toFixed(4)} ms | ${stats(gets).median.toFixed(4)} ms |`,
    )
  } finally {
    fixture.cleanup()
  }
}
