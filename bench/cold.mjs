// Cold `snapshot()` of the native local provider, watch on and watch off, at
// several catalog sizes, against plain synchronous Node reads of the same files
// and (when given) a baseline build of the addon, all interleaved in one run.
//
// Each timed round is a fresh registry with a freshly registered local provider
// (nothing cached, no watch held): the time is one `await registry.snapshot({ cwd })`
// for a project whose user roots hold the generated skills. The provider is
// disposed after each round (not timed). Variants run in a rotating order inside
// each round so machine noise spreads evenly.
//
// Besides wall time, each variant's process CPU time (all threads, from
// `process.cpuUsage`) is reported: a busy machine distorts it much less.
//
// Memory per skill: in a fresh Node process per (build, size, watch), the RSS
// growth from before the registry exists to after one snapshot (garbage
// collected, registry and watchers still alive), divided by the skill count.
//
// Usage: node bench/cold.mjs [--baseline DIR] [--sizes 1000,5000,10000,20000] [--rounds N] [--no-memory]
//   DIR is a built checkout of the package (its index.js is loaded).
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { generateHome, plainReads, stats } from './fixtures.mjs'

const require = createRequire(import.meta.url)
const here = path.dirname(fileURLToPath(import.meta.url))

function option(name, fallback) {
  const i = process.argv.indexOf(name)
  return i === -1 ? fallback : process.argv[i + 1]
}

const baselineDir = option('--baseline', process.env.BENCH_BASELINE)
const sizes = option('--sizes', '1000,5000,10000,20000').split(',').map(Number)
const roundsOption = option('--rounds', undefined)
const memory = !process.argv.includes('--no-memory')

/** Rounds per size: enough samples for a median without taking all day at 20,000. */
function roundsFor(count) {
  if (roundsOption !== undefined) return Number(roundsOption)
  if (count <= 1000) return 21
  if (count <= 5000) return 11
  if (count <= 10000) return 7
  return 5
}

/** A project next to the generated home (empty project roots, a `.git` marker). */
function projectOf(fixture) {
  const project = path.join(fixture.home, 'project')
  fs.mkdirSync(path.join(project, '.git'), { recursive: true })
  return project
}

/** `[wall ms, cpu ms]` of `f()`. */
async function measure(f) {
  const cpu = process.cpuUsage()
  const start = performance.now()
  await f()
  const wall = performance.now() - start
  const used = process.cpuUsage(cpu)
  return [wall, (used.user + used.system) / 1000]
}

async function coldSnapshot(pkg, config, cwd, count) {
  const registry = new pkg.SkillRegistry({ logger: { warn: (m) => console.error(`warn: ${m}`) } })
  const provider = registry.registerLocalProvider(config)
  let snapshot
  const elapsed = await measure(async () => {
    snapshot = await registry.snapshot({ cwd })
  })
  if (snapshot.skills.length !== count || !snapshot.complete) {
    throw new Error(`expected ${count} skills (complete), got ${snapshot.skills.length} (complete: ${snapshot.complete})`)
  }
  await provider.dispose()
  // Let work a build leaves behind after dispose (a watcher thread removing its
  // watches) finish before the next variant's measurement starts.
  await new Promise((resolve) => setTimeout(resolve, Math.max(50, count / 20)))
  return elapsed
}

// ---- Memory child -------------------------------------------------------------

if (process.argv.includes('--memory-child')) {
  const entry = option('--entry')
  const count = Number(option('--count'))
  const watch = option('--watch') === '1'
  const pkg = require(entry)
  const fixture = generateHome(count)
  const cwd = projectOf(fixture)
  plainReads(fixture.roots) // page cache
  globalThis.gc()
  await new Promise((resolve) => setTimeout(resolve, 100))
  globalThis.gc()
  const before = process.memoryUsage().rss
  const registry = new pkg.SkillRegistry({ logger: { warn: () => {} } })
  const provider = registry.registerLocalProvider({ ...fixture.config, watch })
  const snapshot = await registry.snapshot({ cwd })
  if (snapshot.skills.length !== count) throw new Error('wrong count')
  globalThis.gc()
  await new Promise((resolve) => setTimeout(resolve, 100))
  globalThis.gc()
  const after = process.memoryUsage().rss
  console.log(JSON.stringify({ bytesPerSkill: (after - before) / count }))
  await provider.dispose()
  fixture.cleanup()
  process.exit(0)
}

function memoryPerSkill(entry, count, watch) {
  const args = [
    '--expose-gc',
    fileURLToPath(import.meta.url),
    '--memory-child',
    '--entry',
    entry,
    '--count',
    String(count),
    '--watch',
    watch ? '1' : '0',
  ]
  const result = spawnSync(process.execPath, args, { encoding: 'utf8', timeout: 600_000 })
  if (result.status !== 0) throw new Error(`memory child failed: ${result.stderr}`)
  return JSON.parse(result.stdout.trim().split('\n').pop()).bytesPerSkill
}

// ---- Timing -------------------------------------------------------------------

const builds = [{ label: 'this build', entry: path.join(here, '..', 'index.js') }]
if (baselineDir) builds.unshift({ label: 'baseline', entry: path.join(path.resolve(baselineDir), 'index.js') })
for (const build of builds) build.pkg = require(build.entry)

const fmt = (ms) => `${ms.toFixed(1)} ms`
console.log(
  `machine: ${os.cpus().length} x ${os.cpus()[0]?.model ?? 'unknown cpu'}, ${os.platform()} ${os.release()}, ` +
    `node ${process.version}, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`,
)
console.log('skills: half bundles, half flat, in the user roots; ~200-char descriptions, metadata, ~2 KB bodies\n')

const rows = []
for (const count of sizes) {
  const fixture = generateHome(count)
  try {
    const cwd = projectOf(fixture)
    const variants = [{ label: 'plain reads', run: () => measure(() => plainReads(fixture.roots)) }]
    for (const build of builds) {
      for (const watch of [false, true]) {
        variants.push({
          label: `${build.label}, watch ${watch ? 'on' : 'off'}`,
          build: build.label,
          watch,
          run: () => coldSnapshot(build.pkg, { ...fixture.config, watch }, cwd, count),
        })
      }
    }
    // Warm the page cache and the JIT once per variant.
    for (const v of variants) await v.run()
    const samples = variants.map(() => [])
    const rounds = roundsFor(count)
    for (let r = 0; r < rounds; r++) {
      for (let k = 0; k < variants.length; k++) {
        const i = (k + r) % variants.length
        samples[i].push(await variants[i].run())
      }
    }
    const medians = Object.fromEntries(variants.map((v, i) => [v.label, stats(samples[i].map((x) => x[0])).median]))
    const cpu = Object.fromEntries(variants.map((v, i) => [v.label, stats(samples[i].map((x) => x[1])).median]))
    rows.push({ count, medians, cpu, rounds })
    console.log(
      `${count} skills (${rounds} rounds): ` +
        variants.map((v) => `${v.label} ${fmt(medians[v.label])} (cpu ${fmt(cpu[v.label])})`).join(', '),
    )
  } finally {
    fixture.cleanup()
  }
}

for (const [title, key] of [
  ['wall', 'medians'],
  ['CPU (all threads)', 'cpu'],
]) {
  console.log(`\nCold snapshot() medians, ${title} (ms); ratios: watch on / watch off, and watch off / plain reads\n`)
  const header = ['skills', 'plain reads']
  for (const b of builds) header.push(`${b.label} off`, `${b.label} on`, `${b.label} on/off`, `${b.label} off/plain`)
  console.log(`| ${header.join(' | ')} |`)
  console.log(`|${header.map(() => '---:').join('|')}|`)
  for (const row of rows) {
    const m = row[key]
    const cells = [row.count.toLocaleString('en-US'), m['plain reads'].toFixed(1)]
    for (const b of builds) {
      const off = m[`${b.label}, watch off`]
      const on = m[`${b.label}, watch on`]
      cells.push(off.toFixed(1), on.toFixed(1), `${(on / off).toFixed(2)}×`, `${(off / m['plain reads']).toFixed(2)}×`)
    }
    console.log(`| ${cells.join(' | ')} |`)
  }
}

if (rows.length > 1) {
  console.log('\nSlope (µs per skill between consecutive sizes)\n')
  for (const b of builds) {
    for (const watch of ['off', 'on']) {
      const key = `${b.label}, watch ${watch}`
      const slopes = []
      for (let i = 1; i < rows.length; i++) {
        const d = (rows[i].medians[key] - rows[i - 1].medians[key]) / (rows[i].count - rows[i - 1].count)
        slopes.push(`${rows[i - 1].count}→${rows[i].count}: ${(d * 1000).toFixed(1)}`)
      }
      console.log(`${key}: ${slopes.join(', ')}`)
    }
  }
}

if (memory) {
  console.log('\nRetained memory per skill after one snapshot (RSS growth / skills, fresh process each)\n')
  const head = ['skills']
  for (const b of builds) head.push(`${b.label} off`, `${b.label} on`)
  console.log(`| ${head.join(' | ')} |`)
  console.log(`|${head.map(() => '---:').join('|')}|`)
  for (const count of sizes) {
    const cells = [count.toLocaleString('en-US')]
    for (const b of builds) {
      for (const watch of [false, true]) cells.push(`${(memoryPerSkill(b.entry, count, watch) / 1024).toFixed(2)} KB`)
    }
    console.log(`| ${cells.join(' | ')} |`)
  }
}
