// Per-lookup costs of the native local provider inside the registry:
// - warm snapshot() for cwds at several depths below their project root (each
//   cache hit re-checks the project root: one stat per directory from cwd up to
//   the root, so a .git created or removed in between is noticed);
// - snapshot() right after an invalidation (re-discovery; unchanged files come
//   from the parse cache);
// - get() (stat + cached parse when the file is unchanged).
// Each is measured with the default options and, for this build, with
// `nestedRoots: true` (the cwd 3 levels down then has 6 more roots, all missing).
// Usage: node bench/local-lookups.mjs [count]
// Set DSH_BASELINE=/path/to/another/checkout (built) to measure that build's
// addon in the same run, interleaved, for ratios.
import { createRequire } from 'node:module'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { generateHome, skillText, stats } from './fixtures.mjs'

const require = createRequire(import.meta.url)
const self = require('../index.js')
/** [label, package, extra local provider options] */
const builds = [
  ['this build', self, {}],
  ['nestedRoots', self, { nestedRoots: true }],
]
if (process.env.DSH_BASELINE) builds.push(['baseline', require(path.resolve(process.env.DSH_BASELINE, 'index.js')), {}])
// Alternate which build goes first in each round.
const order = (round, items) => (round % 2 === 0 ? items : [...items].reverse())

const count = Number(process.argv[2] ?? 1000)
const fixture = generateHome(count)
const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-bench-lookups-')))
const project = path.join(base, 'project')
fs.mkdirSync(path.join(project, '.git'), { recursive: true })
for (let i = 0; i < 10; i++) {
  const file = path.join(project, '.dsh', 'skills', `project-${i}.md`)
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, skillText(`project-${i}`))
}
const deep = path.join(project, 'packages', 'app', 'src')
const outside = path.join(base, 'no-git', 'a', 'b')
fs.mkdirSync(deep, { recursive: true })
fs.mkdirSync(outside, { recursive: true })
const cwds = [
  ['no cwd', undefined],
  ['cwd = project root', project],
  ['cwd 3 levels below the root', deep],
  [`cwd outside any repository (${outside.split(path.sep).length - 1} levels to /)`, outside],
]

function cleanup() {
  fixture.cleanup()
  fs.rmSync(base, { recursive: true, force: true })
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

async function main() {
  // The parse cache trusts a file only once its times are older than the
  // coarsest filesystem timestamp granularity (2 s).
  await sleep(2100)
  const setups = builds.map(([label, api, options]) => {
    const registry = new api.SkillRegistry({ logger: { warn() {} } })
    const local = registry.registerLocalProvider({ ...fixture.config, ...options })
    return { label, registry, local }
  })
  for (const { registry } of setups) for (const [, cwd] of cwds) await registry.snapshot({ cwd })

  const rounds = 30
  const batch = 500
  const warm = new Map()
  const cpu = new Map()
  for (let r = 0; r < rounds; r++) {
    for (const { label, registry } of order(r, setups)) {
      for (const [name, cwd] of cwds) {
        const c = process.cpuUsage()
        const t = performance.now()
        for (let i = 0; i < batch; i++) await registry.snapshot({ cwd })
        const spent = process.cpuUsage(c)
        const key = `${label}\0${name}`
        if (!warm.has(key)) warm.set(key, [])
        if (!cpu.has(key)) cpu.set(key, [])
        warm.get(key).push((performance.now() - t) / batch)
        cpu.get(key).push((spent.user + spent.system) / 1000 / batch)
      }
    }
  }

  const relist = new Map()
  const relistDeep = new Map()
  const gets = new Map()
  const push = (map, key, value) => {
    if (!map.has(key)) map.set(key, [])
    map.get(key).push(value)
  }
  for (let r = 0; r < 20; r++) {
    for (const { label, registry, local } of order(r, setups)) {
      registry.invalidateProvider(local)
      let t = performance.now()
      const snapshot = await registry.snapshot({})
      push(relist, label, performance.now() - t)
      if (snapshot.skills.length !== count) throw new Error(`expected ${count} skills, got ${snapshot.skills.length}`)
      registry.invalidateProvider(local)
      t = performance.now()
      const deepSnapshot = await registry.snapshot({ cwd: deep })
      push(relistDeep, label, performance.now() - t)
      if (deepSnapshot.skills.length !== count + 10) throw new Error(`expected ${count + 10} skills from ${deep}`)
      t = performance.now()
      for (let i = 0; i < 100; i++) {
        const d = await registry.get(`skill-${String((r * 100 + i) % count).padStart(5, '0')}`)
        if (!d) throw new Error('missing definition')
      }
      if (!gets.has(label)) gets.set(label, [])
      gets.get(label).push((performance.now() - t) / 100)
    }
  }

  console.log(`machine: ${os.cpus().length} x ${os.cpus()[0]?.model ?? 'unknown cpu'}, ${os.platform()} ${os.release()}, node ${process.version}`)
  console.log(`\n## Warm snapshot() with the native local provider (${count} user skills + 10 project skills; median of ${rounds} batches of ${batch})`)
  console.log(`| cwd | ${setups.map((s) => `${s.label} wall | ${s.label} cpu`).join(' | ')} |`)
  console.log(`|---|${setups.map(() => '---:|---:').join('|')}|`)
  const us = (samples) => `${(stats(samples).median * 1000).toFixed(2)} µs`
  for (const [name] of cwds) {
    const cells = setups.map(({ label }) => `${us(warm.get(`${label}\0${name}`))} | ${us(cpu.get(`${label}\0${name}`))}`)
    console.log(`| ${name} | ${cells.join(' | ')} |`)
  }
  console.log(`\n## After an invalidation (${count} skills, unchanged files), median of 20`)
  console.log(`| | ${setups.map((s) => s.label).join(' | ')} |`)
  console.log(`|---|${setups.map(() => '---:').join('|')}|`)
  console.log(`| snapshot() re-discovery, no cwd | ${setups.map(({ label }) => `${stats(relist.get(label)).median.toFixed(2)} ms`).join(' | ')} |`)
  console.log(`| snapshot() re-discovery, cwd 3 levels below the root | ${setups.map(({ label }) => `${stats(relistDeep.get(label)).median.toFixed(2)} ms`).join(' | ')} |`)
  console.log(`| get() | ${setups.map(({ label }) => `${(stats(gets.get(label)).median * 1000).toFixed(1)} µs`).join(' | ')} |`)
  for (const { local } of setups) await local.dispose()
}

main().then(cleanup, (e) => {
  cleanup()
  console.error(e)
  process.exit(1)
})
