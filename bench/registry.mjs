// Registry benchmark, side by side in one run:
//
// 1. JS providers: the native registry (through the addon, the JS-provider
//    crossing included) against a plain-JS registry applying the same rules
//    (validation, rank merge, first-wins, name sort, LRU, fresh summaries per
//    lookup), and, when a built checkout of the previous version is given, the
//    same lookups through it ("before"). Cold = after an invalidation; warm =
//    a cache hit. Variants run interleaved, one call each per round, so
//    background load hits them alike; medians of wall time and of process CPU
//    time (user + system) per call are reported.
// 2. The native local provider registered in the registry, against plain
//    synchronous Node reads of the same files.
// 3. Scopes: nine providers (JS, then native local) filed in the global layer
//    and read without a scope, against the same nine filed three per layer
//    (global, a preset, an agent under the preset) and read through the
//    agent's three-deep chain, interleaved in one run (and the nine through
//    the baseline build, when given).
//
// 4. Scoped override rules: a registry without them against the baseline, a
//    read whose own scope carries an allow-list, and the native local
//    provider's cold discovery (which now fingerprints each file it parses).
//
//   node bench/registry.mjs [--baseline DIR] [--rounds N] [--local N] [--only js|scopes|scoped-rules]
//
// "native, 8 overrides" is the native registry with eight override rules
// (globs, source and provider filters; a few of them match), to show what
// the rules cost on a cold merge; every other native row has none.
//
// `--baseline DIR` is a built checkout whose `index.js` exports the previous
// `SkillRegistry` (for example `/work/baseline`); `BENCH_BASELINE` works too.
import { createRequire } from 'node:module'
import { performance } from 'node:perf_hooks'
import fs from 'node:fs'
import path from 'node:path'
import { generateHome, plainReads, stats } from './fixtures.mjs'

const require = createRequire(import.meta.url)
const { SkillRegistry } = require('../index.js')

function option(name, fallback) {
  const at = process.argv.indexOf(name)
  return at === -1 ? fallback : process.argv[at + 1]
}
const baselineDir = option('--baseline', process.env.BENCH_BASELINE)
const Before = baselineDir ? require(path.resolve(baselineDir, 'index.js')).SkillRegistry : undefined
const roundsOption = option('--rounds', undefined)
const localCount = Number(option('--local', 1000))
const only = option('--only', undefined)

const both = Object.freeze({ modelInvocable: true, userInvocable: true })

/** `n` candidates of provider `provider`; names `skill-<offset + i>`. */
function makeCandidates(n, provider, rank, offset = 0) {
  const out = []
  for (let i = 0; i < n; i++) {
    const k = offset + i
    out.push({
      name: `skill-${k.toString().padStart(6, '0')}`,
      description: `Skill number ${k}: ${'does a useful thing for the agent, '.repeat(5)}`.slice(0, 200),
      invocation: both,
      source: 'remote',
      provider,
      rank,
      locator: { k },
    })
  }
  return out
}

const NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/

/**
 * The same rules in plain JS, written as a TypeScript registry would be
 * (shadowed duplicates are logged, as the registry does).
 */
class PlainRegistry {
  #logger
  #providers = []
  #cache = new Map()
  #max = 128
  constructor(logger) {
    this.#logger = logger
  }
  register(provider) {
    this.#providers.push(provider)
    this.#cache.clear()
  }
  invalidate() {
    this.#cache.clear()
  }
  async snapshot(options = {}) {
    const key = options.cwd ?? ''
    let summaries = this.#cache.get(key)
    if (summaries) {
      this.#cache.delete(key)
      this.#cache.set(key, summaries)
    } else {
      summaries = await this.#collect(options)
      if (this.#cache.size >= this.#max) this.#cache.delete(this.#cache.keys().next().value)
      this.#cache.set(key, summaries)
    }
    // Fresh summaries per lookup; nested objects handed back as they are.
    return { skills: summaries.map((s) => ({ ...s })), complete: true }
  }
  async #collect(options) {
    const lists = await Promise.all(this.#providers.map((p) => p.list(options)))
    const entries = []
    lists.forEach((list, order) => {
      const provider = this.#providers[order]
      list.forEach((c, local) => {
        if (typeof c.name !== 'string' || !NAME.test(c.name)) throw new Error('name')
        if (typeof c.description !== 'string' || c.description === '') throw new Error('description')
        if (c.whenToUse !== undefined && typeof c.whenToUse !== 'string') throw new Error('whenToUse')
        const inv = c.invocation
        if (typeof inv !== 'object' || inv === null || typeof inv.modelInvocable !== 'boolean' || typeof inv.userInvocable !== 'boolean') {
          throw new Error('invocation')
        }
        if (typeof c.source !== 'string' || c.source === '') throw new Error('source')
        if (c.provider !== provider.name) throw new Error('provider')
        if (typeof c.rank !== 'number' || !Number.isFinite(c.rank)) throw new Error('rank')
        if (c.resourceBase !== undefined && (typeof c.resourceBase !== 'object' || c.resourceBase === null)) throw new Error('resourceBase')
        if (c.path !== undefined && typeof c.path !== 'string') throw new Error('path')
        if (c.metadata !== undefined && (typeof c.metadata !== 'object' || c.metadata === null)) throw new Error('metadata')
        entries.push({ c, order, local })
      })
    })
    entries.sort((a, b) => a.c.rank - b.c.rank || a.order - b.order || a.local - b.local)
    const seen = new Map()
    const skills = []
    for (const { c } of entries) {
      const first = seen.get(c.name)
      if (first !== undefined) {
        this.#logger.warn(
          `skill "${c.name}" from provider "${c.provider}" (source ${c.source}, rank ${c.rank}) is shadowed by provider "${first.provider}" (source ${first.source}, rank ${first.rank})`,
        )
        continue
      }
      seen.set(c.name, c)
      const summary = { name: c.name, description: c.description }
      if (c.whenToUse !== undefined) summary.whenToUse = c.whenToUse
      summary.invocation = c.invocation
      summary.source = c.source
      summary.provider = c.provider
      if (c.resourceBase !== undefined) summary.resourceBase = c.resourceBase
      skills.push(summary)
    }
    skills.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    return skills
  }
}

function providerOf(name, candidates) {
  return { name, list: async () => candidates, get: async (c) => ({ ...c, content: 'body' }) }
}

/** Override rules for the "native, 8 overrides" variant. */
const OVERRIDES = [
  { name: 'skill-00000*', effect: 'off' },
  { name: 'skill-000001', effect: 'on' },
  { name: '*-000500', effect: 'user-only' },
  { source: 'team', effect: 'off' },
  { provider: 'elsewhere', effect: 'model-only' },
  { name: 'deploy-*', source: 'remote', effect: 'off' },
  { name: 'skill-0009*9', effect: 'model-only' },
  { name: 'no-such-skill', provider: 'remote', effect: 'off' },
]

/** A registry of each kind holding `lists` (`[name, candidates]` pairs). */
function variantsFor(lists) {
  const out = []
  const registry = (Registry, label, config = {}) => {
    const controls = []
    const r = new Registry({ logger: { warn() {} }, ...config })
    for (const [name, candidates] of lists) r.registerProvider((c) => (controls.push(c), providerOf(name, candidates)))
    return { label, snapshot: (o) => r.snapshot(o), invalidate: () => controls[0].invalidate(), get: (n, o) => r.get(n, o) }
  }
  out.push(registry(SkillRegistry, 'native'))
  out.push(registry(SkillRegistry, 'native, 8 overrides', { overrides: OVERRIDES }))
  if (Before) out.push(registry(Before, 'before'))
  if (Before) out.push(registry(Before, 'before, 8 overrides', { overrides: OVERRIDES }))
  const plain = new PlainRegistry({ warn() {} })
  for (const [name, candidates] of lists) plain.register(providerOf(name, candidates))
  out.push({ label: 'plain JS', snapshot: (o) => plain.snapshot(o), invalidate: () => plain.invalidate() })
  return out
}

const cpuNow = () => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1000
}

/** Interleaved rounds of `op(variant)`; medians of wall and CPU ms per call. */
async function interleave(variants, rounds, op) {
  const wall = variants.map(() => [])
  const cpu = variants.map(() => [])
  for (let r = 0; r < rounds + 10; r++) {
    for (let v = 0; v < variants.length; v++) {
      const c0 = cpuNow()
      const t0 = performance.now()
      await op(variants[v])
      const t1 = performance.now()
      const c1 = cpuNow()
      if (r >= 10) {
        wall[v].push(t1 - t0)
        cpu[v].push(c1 - c0)
      }
    }
  }
  return variants.map((variant, v) => ({ label: variant.label, wall: stats(wall[v]).median, cpu: stats(cpu[v]).median }))
}

const ms = (x) => (x >= 1 ? x.toFixed(2) : x >= 0.1 ? x.toFixed(3) : x.toFixed(4))

async function scenario(title, lists, rounds) {
  const variants = variantsFor(lists)
  const cold = await interleave(variants, rounds, async (v) => {
    v.invalidate()
    await v.snapshot({ cwd: '/w' })
  })
  for (const v of variants) await v.snapshot({ cwd: '/w' })
  const warm = await interleave(variants, rounds * 4, (v) => v.snapshot({ cwd: '/w' }))
  const first = lists[0][1][1] ?? lists[0][1][0]
  const natives = variants.filter((v) => v.get)
  const get = await interleave(natives, rounds * 2, (v) => v.get(first.name, { cwd: '/w' }))
  const plainCold = cold.find((r) => r.label === 'plain JS')
  console.log(`\n### ${title}`)
  console.log('| variant | cold wall | cold CPU | cold vs plain JS (wall / CPU) | warm wall | warm CPU | get() wall |')
  console.log('|---|---:|---:|---:|---:|---:|---:|')
  for (let i = 0; i < variants.length; i++) {
    const c = cold[i]
    const w = warm[i]
    const g = get.find((x) => x.label === c.label)
    const ratio = c === plainCold ? '1.00× / 1.00×' : `${(c.wall / plainCold.wall).toFixed(2)}× / ${(c.cpu / plainCold.cpu).toFixed(2)}×`
    console.log(`| ${c.label} | ${ms(c.wall)} ms | ${ms(c.cpu)} ms | ${ratio} | ${ms(w.wall)} ms | ${ms(w.cpu)} ms | ${g ? `${ms(g.wall)} ms` : '–'} |`)
  }
}

if (only === undefined || only === 'js') {
  console.log(`## Registry with JS providers (median per call${Before ? `; "before" = ${baselineDir}` : ''})`)
  for (const n of [100, 1000, 10000]) {
    const rounds = Number(roundsOption ?? (n >= 10000 ? 40 : n >= 1000 ? 300 : 1000))
    await scenario(`one JS provider, ${n.toLocaleString('en')} candidates`, [['remote', makeCandidates(n, 'remote', 700)]], rounds)
  }
  {
    // Four providers of 1,000 candidates each, a quarter of each overlapping the
    // next one's names (shadowed duplicates), at different ranks.
    const lists = [0, 1, 2, 3].map((p) => [`remote-${p}`, makeCandidates(1000, `remote-${p}`, 700 + p * 10, p * 750)])
    await scenario('four JS providers, 1,000 candidates each (750 shadowed in total)', lists, Number(roundsOption ?? 150))
  }

}

// ---------------------------------------------------------------------------
// Scopes. Nine providers, `per` candidates each (a quarter of each provider's
// names shared with the next one): "flat" files them all in the global layer
// and reads without a scope (what a registry without scopes does); "3 layers"
// files three per layer (global, preset, agent under the preset) and reads
// with the agent's scope, so the view merges the three layers. A scope
// resolver is passed explicitly (a plain parent map). Cold = after
// invalidating a global provider (every view is collected again); warm = a
// cache hit.

/** A resolver over a parent map, as `@deepseek-ai/dsh-scope` would give. */
function resolverOf(parents) {
  return {
    scopeChainOf(key) {
      const chain = []
      for (let at = key; at !== undefined; at = parents.get(at)) chain.push(at)
      return chain
    },
  }
}

/**
 * `layout`: [global, preset, agent] lists of providers to register, each a
 * `(registry, scope) => invalidate()` function; the read scope is the agent.
 */
function scopedVariant(Registry, label, layout, scoped) {
  const preset = { name: 'preset' }
  const agent = { name: 'agent' }
  const registry = new Registry({ logger: { warn() {} }, ...(scoped ? { scopes: resolverOf(new Map([[agent, preset]])) } : {}) })
  const scopes = scoped ? [undefined, preset, agent] : [undefined, undefined, undefined]
  let invalidate
  layout.forEach((providers, layer) => {
    for (const register of providers) {
      const inv = register(registry, scopes[layer])
      invalidate ??= inv
    }
  })
  const options = scoped ? { cwd: '/w', scope: agent } : { cwd: '/w' }
  return { label, snapshot: () => registry.snapshot(options), invalidate }
}

/** Nine JS providers of `per` candidates: three per layer. */
function jsLayout(per) {
  const layer = (l) =>
    [0, 1, 2].map((i) => {
      const p = l * 3 + i
      const name = `remote-${p}`
      const candidates = makeCandidates(per, name, 700 + i, (p * per * 3) / 4)
      return (registry, scope) => {
        let control
        registry.registerProvider((c) => ((control = c), providerOf(name, candidates)), scope === undefined ? undefined : { scope })
        return () => control.invalidate()
      }
    })
  return [layer(0), layer(1), layer(2)]
}

/** Nine native local providers over `roots` (nine directories): three per layer. */
function localLayout(roots) {
  const layer = (l) =>
    [0, 1, 2].map((i) => {
      const p = l * 3 + i
      return (registry, scope) => {
        const local = registry.registerLocalProvider(
          { includeDefaultRoots: false, customSkillDirs: [roots[p]], providerName: `local-${p}`, watch: false },
          scope === undefined ? undefined : { scope },
        )
        return () => registry.invalidateProvider(local)
      }
    })
  return [layer(0), layer(1), layer(2)]
}

async function scopedScenario(title, layout, rounds) {
  const variants = [scopedVariant(SkillRegistry, 'flat: 9 providers, no scope', layout, false)]
  variants.push(scopedVariant(SkillRegistry, '3 layers x 3 providers, scope chain of 3', layout, true))
  if (Before) variants.push(scopedVariant(Before, 'before: 9 providers (no scopes)', layout, false))
  const cold = await interleave(variants, rounds, async (v) => {
    v.invalidate()
    await v.snapshot()
  })
  for (const v of variants) await v.snapshot()
  const warm = await interleave(variants, rounds * 4, (v) => v.snapshot())
  console.log(`\n### ${title}`)
  console.log('| variant | cold wall | cold CPU | cold vs flat (wall) | warm wall | warm CPU | warm vs flat (wall) |')
  console.log('|---|---:|---:|---:|---:|---:|---:|')
  for (let i = 0; i < variants.length; i++) {
    const c = cold[i]
    const w = warm[i]
    console.log(
      `| ${c.label} | ${ms(c.wall)} ms | ${ms(c.cpu)} ms | ${(c.wall / cold[0].wall).toFixed(2)}× | ${ms(w.wall)} ms | ${ms(w.cpu)} ms | ${(w.wall / warm[0].wall).toFixed(2)}× |`,
    )
  }
}

if (only === undefined || only === 'scopes') {
  console.log(`\n## Scopes: nine providers, flat or in three layers (median per call${Before ? `; "before" = ${baselineDir}` : ''})`)
  await scopedScenario('nine JS providers, 300 candidates each', jsLayout(300), Number(roundsOption ?? 150))
  const fixture = generateHome(900)
  const roots = []
  try {
    // Nine roots of 100 skills each.
    const files = fixture.roots.flatMap((root) => fs.readdirSync(root).map((entry) => path.join(root, entry)))
    files.sort()
    for (let p = 0; p < 9; p++) {
      const root = path.join(fixture.home, `root-${p}`)
      fs.mkdirSync(root)
      roots.push(root)
    }
    files.forEach((file, i) => fs.renameSync(file, path.join(roots[i % 9], path.basename(file))))
    await scopedScenario('nine native local providers, 100 skills each', localLayout(roots), Number(roundsOption ?? 60))
  } finally {
    fixture.cleanup()
  }
}

// ---------------------------------------------------------------------------
// Scoped override rules (per-agent skill visibility). Four JS providers of
// 1,000 candidates each, global layer. "no scoped rules" reads without a
// scope, as a registry without scopes does ("before": the same through the
// baseline build); "other scope has rules": an allow-list set on a scope the
// read does not use (nothing of it may reach this read); "scope with an
// allow-list": the read's own scope switches everything off but `skill-0001*`
// (110 skills), so each candidate is decided once per collection. And the
// native local provider cold (fresh provider: every file read and parsed,
// now with its fingerprint) against the baseline.

/** An allow-list: everything off, then `skill-0001*` back on. */
const ALLOW = [
  { name: '*', effect: 'off' },
  { name: 'skill-0001*', effect: 'on' },
]

function rulesVariant(Registry, label, lists, mode) {
  const agent = { name: 'agent' }
  const other = { name: 'other' }
  const scoped = mode !== 'none'
  const registry = new Registry({ logger: { warn() {} }, ...(scoped ? { scopes: resolverOf(new Map()) } : {}) })
  const controls = []
  for (const [name, candidates] of lists) registry.registerProvider((c) => (controls.push(c), providerOf(name, candidates)))
  if (mode === 'other') registry.setOverrides(ALLOW, { scope: other })
  if (mode === 'own') registry.setOverrides(ALLOW, { scope: agent })
  const options = mode === 'own' ? { cwd: '/w', scope: agent } : { cwd: '/w' }
  return { label, snapshot: () => registry.snapshot(options), invalidate: () => controls[0].invalidate() }
}

if (only === undefined || only === 'scoped-rules') {
  console.log(`\n## Scoped override rules (median per call${Before ? `; "before" = ${baselineDir}` : ''})`)
  const lists = [0, 1, 2, 3].map((p) => [`remote-${p}`, makeCandidates(1000, `remote-${p}`, 700 + p * 10, p * 750)])
  const variants = [rulesVariant(SkillRegistry, 'no scoped rules, no scope', lists, 'none')]
  variants.push(rulesVariant(SkillRegistry, 'another scope has an allow-list, no scope', lists, 'other'))
  variants.push(rulesVariant(SkillRegistry, "the read's scope has an allow-list", lists, 'own'))
  if (Before) variants.push(rulesVariant(Before, 'before: no scopes', lists, 'none'))
  const rounds = Number(roundsOption ?? 150)
  const cold = await interleave(variants, rounds, async (v) => {
    v.invalidate()
    await v.snapshot()
  })
  for (const v of variants) await v.snapshot()
  const warm = await interleave(variants, rounds * 4, (v) => v.snapshot())
  console.log('\n### four JS providers, 1,000 candidates each')
  console.log('| variant | cold wall | cold CPU | cold CPU vs first | warm wall | warm CPU |')
  console.log('|---|---:|---:|---:|---:|---:|')
  for (let i = 0; i < variants.length; i++) {
    const c = cold[i]
    const w = warm[i]
    console.log(`| ${c.label} | ${ms(c.wall)} ms | ${ms(c.cpu)} ms | ${(c.cpu / cold[0].cpu).toFixed(2)}× | ${ms(w.wall)} ms | ${ms(w.cpu)} ms |`)
  }
  if (Before) {
    const fixture = generateHome(localCount)
    try {
      const local = (Registry, label) => ({
        label,
        async snapshot() {
          const registry = new Registry({ logger: { warn() {} } })
          const provider = registry.registerLocalProvider(fixture.config)
          const snapshot = await registry.snapshot()
          if (snapshot.skills.length !== localCount) throw new Error(`expected ${localCount} skills`)
          await provider.dispose()
        },
      })
      const pair = [local(SkillRegistry, 'this build'), local(Before, 'before')]
      const timed = await interleave(pair, Number(roundsOption ?? 20), (v) => v.snapshot())
      console.log(`\n### native local provider, ${localCount} skills, cold snapshot() in a fresh registry`)
      console.log('| variant | wall | CPU |')
      console.log('|---|---:|---:|')
      for (const t of timed) console.log(`| ${t.label} | ${ms(t.wall)} ms | ${ms(t.cpu)} ms |`)
    } finally {
      fixture.cleanup()
    }
  }
}

// The native local provider registered in the registry: discovery, merge and
// cache without JS on the provider path. Cold = a fresh registry and provider.
// Last: it runs only this build, whose summary code has then seen native
// winners too (the "before" build's never does), which would tilt the
// side-by-side rows above if it ran before them.
if (only === undefined) {
  const n = localCount
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
    for (let r = 0; r < 2000; r++) {
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
