// Hot refresh benchmark (default watcher settings).
//
// 1. Visible latency: from a filesystem change until `onChange` has fired and the
//    next `snapshot()` shows the change. 20 samples per scenario (add, description
//    change, delete, missing-root creation) with base catalogs of 100 and 1,000
//    skills. Samples are 250 ms apart, like separate edits (closer changes are
//    coalesced into wider batches on purpose).
// 2. Idle cost with 128 watched projects (roots missing, then present with 5
//    skills each): CPU over 10 s, RSS growth, inotify watch count.
//
// Usage: node bench/watch.mjs [--quick]   (quick: 5 samples, 2 s idle)
import { createRequire } from 'node:module'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'

const require = createRequire(import.meta.url)
const { SkillRegistry } = require('../index.js')

const quick = process.argv.includes('--quick')
const SAMPLES = quick ? 5 : 20
const IDLE_MS = quick ? 2_000 : 10_000
const GAP_MS = 250
const PROJECTS = 128

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

function tmp(label) {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `dsh-watch-bench-${label}-`)))
}

function skillText(name, description = `Use ${name} when the task needs it.`) {
  return `---\nname: ${name}\ndescription: ${description}\n---\n\n# ${name}\n\nFollow the steps.\n`
}

function writeBundle(root, name, description) {
  const dir = path.join(root, name)
  fs.mkdirSync(dir, { recursive: true })
  fs.writeFileSync(path.join(dir, 'SKILL.md'), skillText(name, description))
}

function inotifyWatches() {
  if (process.platform !== 'linux') return NaN
  let count = 0
  for (const fd of fs.readdirSync('/proc/self/fdinfo')) {
    try {
      const text = fs.readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8')
      for (const line of text.split('\n')) if (line.startsWith('inotify wd:')) count++
    } catch {
      // fd closed meanwhile
    }
  }
  return count
}

function quantile(sorted, q) {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]
}

function fmt(ms) {
  return `${ms.toFixed(1)} ms`
}

/** A registry + local provider whose project root holds `count` skills. */
async function catalog(count) {
  const base = tmp(`c${count}`)
  const project = path.join(base, 'project')
  const agents = path.join(project, '.agents/skills')
  fs.mkdirSync(path.join(project, '.git'), { recursive: true })
  for (let i = 0; i < count; i++) writeBundle(agents, `base-${String(i).padStart(4, '0')}`)
  // Missing-root scenario: the base catalog lives in a custom root, each sample
  // uses a fresh project without any .agents dir.
  const custom = path.join(base, 'custom')
  for (let i = 0; i < count; i++) writeBundle(custom, `custom-${String(i).padStart(4, '0')}`)
  const registry = new SkillRegistry({ logger: { warn: (m) => console.error(`warn: ${m}`) } })
  const provider = registry.registerLocalProvider({
    dshHome: path.join(base, 'home/.dsh'),
    agentsHome: path.join(base, 'home/.agents'),
  })
  const withCustom = new SkillRegistry({ logger: { warn: (m) => console.error(`warn: ${m}`) } })
  const customProvider = withCustom.registerLocalProvider({
    dshHome: path.join(base, 'home/.dsh'),
    agentsHome: path.join(base, 'home/.agents'),
    customSkillDirs: [custom],
  })
  return {
    base,
    project,
    agents,
    registry,
    withCustom,
    async dispose() {
      await provider.dispose()
      await customProvider.dispose()
      fs.rmSync(base, { recursive: true, force: true })
    },
  }
}

/** Time `op` until onChange fired and `visible(snapshot)` holds. */
async function visibleLatency(registry, cwd, op, visible) {
  let fired = 0
  let wake = () => {}
  const off = registry.onChange(() => {
    fired++
    wake()
  })
  try {
    const start = performance.now()
    op()
    const deadline = start + 10_000
    let seen = 0
    for (;;) {
      if (fired === seen) {
        await new Promise((resolve) => {
          wake = resolve
          setTimeout(resolve, 50)
        })
        if (performance.now() > deadline) throw new Error('change not visible within 10 s')
        if (fired === seen) continue
      }
      seen = fired
      const snapshot = await registry.snapshot({ cwd })
      if (snapshot.complete && visible(snapshot.skills)) return performance.now() - start
    }
  } finally {
    off()
  }
}

async function latencies(count) {
  const c = await catalog(count)
  const cwd = c.project
  const initial = await c.registry.snapshot({ cwd })
  if (initial.skills.length !== count) throw new Error(`expected ${count} skills, got ${initial.skills.length}`)
  const results = {}
  const run = async (label, sample) => {
    const times = []
    for (let i = 0; i < SAMPLES; i++) {
      times.push(await sample(i))
      await sleep(GAP_MS)
    }
    times.sort((a, b) => a - b)
    results[label] = { p50: quantile(times, 0.5), p95: quantile(times, 0.95) }
  }
  await run('add', (i) =>
    visibleLatency(
      c.registry,
      cwd,
      () => writeBundle(c.agents, `added-${i}`),
      (skills) => skills.some((s) => s.name === `added-${i}`),
    ),
  )
  await run('description change', (i) =>
    visibleLatency(
      c.registry,
      cwd,
      () => fs.writeFileSync(path.join(c.agents, 'base-0000/SKILL.md'), skillText('base-0000', `Changed ${i}.`)),
      (skills) => skills.some((s) => s.name === 'base-0000' && s.description === `Changed ${i}.`),
    ),
  )
  await run('delete', (i) =>
    visibleLatency(
      c.registry,
      cwd,
      () => fs.rmSync(path.join(c.agents, `added-${i}`), { recursive: true }),
      (skills) => !skills.some((s) => s.name === `added-${i}`),
    ),
  )
  await run('missing-root creation', async (i) => {
    const project = path.join(c.base, `fresh-${i}`)
    fs.mkdirSync(path.join(project, '.git'), { recursive: true })
    const before = await c.withCustom.snapshot({ cwd: project })
    if (before.skills.length !== count) throw new Error('custom catalog missing')
    return visibleLatency(
      c.withCustom,
      project,
      () => writeBundle(path.join(project, '.agents/skills'), `fresh-${i}`),
      (skills) => skills.some((s) => s.name === `fresh-${i}`),
    )
  })
  await c.dispose()
  return results
}

async function idle(present) {
  const base = tmp(present ? 'present' : 'missing')
  const projects = []
  for (let i = 0; i < PROJECTS; i++) {
    const project = path.join(base, `p${i}`)
    fs.mkdirSync(path.join(project, '.git'), { recursive: true })
    if (present) for (let k = 0; k < 5; k++) writeBundle(path.join(project, '.agents/skills'), `s${i}-${k}`)
    projects.push(project)
  }
  globalThis.gc?.()
  await sleep(200)
  const watchesBefore = inotifyWatches()
  const rssBefore = process.memoryUsage().rss
  const registry = new SkillRegistry()
  const provider = registry.registerLocalProvider({
    dshHome: path.join(base, 'home/.dsh'),
    agentsHome: path.join(base, 'home/.agents'),
  })
  for (const project of projects) await registry.snapshot({ cwd: project })
  globalThis.gc?.()
  await sleep(500)
  const cpuStart = process.cpuUsage()
  const wallStart = performance.now()
  await sleep(IDLE_MS)
  const cpu = process.cpuUsage(cpuStart)
  const seconds = (performance.now() - wallStart) / 1000
  const result = {
    cpuMsPerSecond: (cpu.user + cpu.system) / 1000 / seconds,
    rssGrowthMb: (process.memoryUsage().rss - rssBefore) / (1024 * 1024),
    watches: inotifyWatches() - watchesBefore,
  }
  await provider.dispose()
  result.watchesAfterDispose = inotifyWatches() - watchesBefore
  fs.rmSync(base, { recursive: true, force: true })
  return result
}

const rows = []
for (const count of [100, 1000]) {
  const results = await latencies(count)
  for (const [scenario, r] of Object.entries(results)) rows.push({ count, scenario, ...r })
}
console.log(`Visible latency (${SAMPLES} samples, ${GAP_MS} ms apart; default settings)\n`)
console.log('| base catalog | scenario | p50 | p95 |')
console.log('|---:|---|---:|---:|')
for (const r of rows) console.log(`| ${r.count} | ${r.scenario} | ${fmt(r.p50)} | ${fmt(r.p95)} |`)

const missing = await idle(false)
const present = await idle(true)
console.log(`\nIdle, ${PROJECTS} watched projects (${IDLE_MS / 1000} s)\n`)
console.log('| roots | idle CPU | RSS growth | inotify watches | after dispose |')
console.log('|---|---:|---:|---:|---:|')
for (const [label, r] of [
  ['missing', missing],
  ['present, 5 skills each', present],
]) {
  console.log(
    `| ${label} | ${r.cpuMsPerSecond.toFixed(3)} ms/s | ${r.rssGrowthMb.toFixed(1)} MB | ${r.watches} | ${r.watchesAfterDispose} |`,
  )
}
