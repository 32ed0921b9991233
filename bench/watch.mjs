// Hot refresh benchmark (default watcher settings).
//
// 1. Visible latency: from a filesystem change until `onChange` has fired and the
//    next `snapshot()` shows the change. 20 samples per scenario (add, description
//    change, delete, missing-root creation) with base catalogs of 100 and 1,000
//    skills. Samples are 250 ms apart, like separate edits (closer changes are
//    coalesced into wider batches on purpose).
// 2. Idle cost with 128 watched projects (roots missing, then present with 5
//    skills each): CPU over 10 s, RSS growth, inotify watch count. Each idle
//    measurement runs in a fresh Node process (RSS is not muddied by part 1),
//    next to a control run with `watch: false`; the CPU of the watcher's own
//    threads is read from /proc/self/task.
//
// 3. Bursts: N completed writes (new bundles) back to back, with no lookup
//    in between and with a `snapshot()` right after each write: the
//    `onChange` notifications the burst costs (counted until 1 s of quiet),
//    and how many of the lookups missed the write just before them
//    (read-your-writes).
//
// With `--baseline DIR` (a built checkout of the package), every measurement is
// also made with that build, interleaved sample by sample (latency, bursts) or
// in its own processes (idle), for before/after comparisons in one run.
//
// Usage: node bench/watch.mjs [--quick] [--baseline DIR] [--bursts-only]
// (quick: 5 samples, 2 s idle, 3 burst rounds)
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { visibleLatency } from './fixtures.mjs'

const require = createRequire(import.meta.url)

const quick = process.argv.includes('--quick')
const burstsOnly = process.argv.includes('--bursts-only')
const baselineAt = process.argv.indexOf('--baseline')
const here = path.dirname(fileURLToPath(import.meta.url))
const builds = [{ label: 'this build', entry: path.join(here, '..', 'index.js') }]
if (baselineAt !== -1) {
  builds.unshift({ label: 'baseline', entry: path.join(path.resolve(process.argv[baselineAt + 1]), 'index.js') })
}
const SAMPLES = quick ? 5 : 20
const IDLE_MS = quick ? 2_000 : 10_000
const SETTLE_MS = quick ? 500 : 5_000
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

/** CPU time (ms) of the watcher's threads (`skill-watch`, and `skill-inotify` or notify's loop),
 * from the scheduler's nanosecond run-time counters. */
function watcherThreadsMs() {
  if (process.platform !== 'linux') return NaN
  let ns = 0
  for (const tid of fs.readdirSync('/proc/self/task')) {
    try {
      const comm = fs.readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim()
      if (comm !== 'skill-watch' && comm !== 'skill-inotify' && !comm.startsWith('notify-rs')) continue
      ns += Number(fs.readFileSync(`/proc/self/task/${tid}/schedstat`, 'utf8').split(' ')[0])
    } catch {
      // thread gone meanwhile
    }
  }
  return ns / 1e6
}

function quantile(sorted, q) {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]
}

function fmt(ms) {
  return `${ms.toFixed(1)} ms`
}

/** A registry + local provider whose project root holds `count` skills. */
async function catalog(count, { SkillRegistry }) {
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

/** Latency percentiles per scenario, for every build (samples interleaved). */
async function latencies(count) {
  const catalogs = []
  for (const build of builds) {
    const c = await catalog(count, require(build.entry))
    const initial = await c.registry.snapshot({ cwd: c.project })
    if (initial.skills.length !== count) throw new Error(`expected ${count} skills, got ${initial.skills.length}`)
    catalogs.push(c)
  }
  const results = builds.map(() => ({}))
  const run = async (label, sample) => {
    const times = builds.map(() => [])
    for (let i = 0; i < SAMPLES; i++) {
      for (let b = 0; b < builds.length; b++) {
        times[b].push(await sample(catalogs[b], i))
        await sleep(GAP_MS)
      }
    }
    for (let b = 0; b < builds.length; b++) {
      const sorted = times[b].sort((x, y) => x - y)
      results[b][label] = { p50: quantile(sorted, 0.5), p95: quantile(sorted, 0.95) }
    }
  }
  await run('add', (c, i) =>
    visibleLatency(
      c.registry,
      c.project,
      () => writeBundle(c.agents, `added-${i}`),
      (skills) => skills.some((s) => s.name === `added-${i}`),
    ),
  )
  await run('description change', (c, i) =>
    visibleLatency(
      c.registry,
      c.project,
      () => fs.writeFileSync(path.join(c.agents, 'base-0000/SKILL.md'), skillText('base-0000', `Changed ${i}.`)),
      (skills) => skills.some((s) => s.name === 'base-0000' && s.description === `Changed ${i}.`),
    ),
  )
  await run('delete', (c, i) =>
    visibleLatency(
      c.registry,
      c.project,
      () => fs.rmSync(path.join(c.agents, `added-${i}`), { recursive: true }),
      (skills) => !skills.some((s) => s.name === `added-${i}`),
    ),
  )
  await run('missing-root creation', async (c, i) => {
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
  for (const c of catalogs) await c.dispose()
  return results
}

async function idle(present, { SkillRegistry }) {
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
    watch: process.env.BENCH_WATCH !== '0',
  })
  for (const project of projects) await registry.snapshot({ cwd: project })
  // Let V8 finish its post-burst work (memory reducer GCs) before measuring.
  globalThis.gc?.()
  await sleep(SETTLE_MS)
  const cpuStart = process.cpuUsage()
  const threadsStart = watcherThreadsMs()
  const wallStart = performance.now()
  await sleep(IDLE_MS)
  const cpu = process.cpuUsage(cpuStart)
  const threads = watcherThreadsMs() - threadsStart
  const seconds = (performance.now() - wallStart) / 1000
  const result = {
    cpuMsPerSecond: (cpu.user + cpu.system) / 1000 / seconds,
    watcherMsPerSecond: threads / seconds,
    rssGrowthMb: (process.memoryUsage().rss - rssBefore) / (1024 * 1024),
    watches: inotifyWatches() - watchesBefore,
  }
  await provider.dispose()
  result.watchesAfterDispose = inotifyWatches() - watchesBefore
  fs.rmSync(base, { recursive: true, force: true })
  return result
}

const idleMode = process.argv.indexOf('--idle')
if (idleMode !== -1) {
  // Child process: one idle measurement, printed as JSON.
  const entry = process.argv[process.argv.indexOf('--entry') + 1]
  console.log(JSON.stringify(await idle(process.argv[idleMode + 1] === 'present', require(entry))))
  process.exit(0)
}

function idleInChild(entry, kind, watch = true) {
  // --expose-gc: collect the listing garbage first, so V8's own post-burst GC
  // work does not land in the idle window.
  const args = ['--expose-gc', fileURLToPath(import.meta.url), '--idle', kind, '--entry', entry, ...(quick ? ['--quick'] : [])]
  const env = { ...process.env, BENCH_WATCH: watch ? '1' : '0' }
  const result = spawnSync(process.execPath, args, { encoding: 'utf8', timeout: 120_000, env })
  if (result.status !== 0) throw new Error(`idle ${kind} failed: ${result.stderr}`)
  return JSON.parse(result.stdout.trim().split('\n').pop())
}

/**
 * One burst of `n` new bundles in a watched project root, with (`lookups`) or
 * without a snapshot after each write. Returns the notifications counted
 * until 1 s of quiet, and the lookups that did not show the write before them.
 */
async function burst({ SkillRegistry }, n, lookups) {
  const base = tmp('burst')
  const project = path.join(base, 'project')
  const agents = path.join(project, '.agents/skills')
  fs.mkdirSync(path.join(project, '.git'), { recursive: true })
  fs.mkdirSync(agents, { recursive: true })
  writeBundle(agents, 'existing')
  const registry = new SkillRegistry({ logger: { warn: (m) => console.error(`warn: ${m}`) } })
  const provider = registry.registerLocalProvider({
    dshHome: path.join(base, 'home/.dsh'),
    agentsHome: path.join(base, 'home/.agents'),
  })
  await registry.snapshot({ cwd: project })
  let notified = 0
  let last = performance.now()
  registry.onChange(() => {
    notified++
    last = performance.now()
  })
  let missed = 0
  const start = performance.now()
  for (let i = 0; i < n; i++) {
    writeBundle(agents, `burst-${i}`)
    if (lookups) {
      const snapshot = await registry.snapshot({ cwd: project })
      if (!snapshot.skills.some((s) => s.name === `burst-${i}`)) missed++
    }
  }
  const burstMs = performance.now() - start
  last = Math.max(last, performance.now())
  while (performance.now() - last < 1_000) await sleep(50)
  await provider.dispose()
  fs.rmSync(base, { recursive: true, force: true })
  return { notified, missed, burstMs }
}

async function bursts() {
  const ROUNDS = quick ? 3 : 10
  const rows = []
  for (const n of [20, 200]) {
    for (const lookups of [false, true]) {
      const per = builds.map(() => ({ notified: [], missed: [], burstMs: [] }))
      for (let round = 0; round < ROUNDS; round++) {
        for (let b = 0; b < builds.length; b++) {
          const r = await burst(require(builds[b].entry), n, lookups)
          for (const key of Object.keys(r)) per[b][key].push(r[key])
          await sleep(GAP_MS)
        }
      }
      rows.push({ n, lookups, per })
    }
  }
  const med = (xs) => quantile([...xs].sort((x, y) => x - y), 0.5)
  console.log(`\nBursts of new bundles (${ROUNDS} rounds each; medians, [min–max])\n`)
  console.log(
    `| writes | lookups | ${builds.map((b) => `${b.label}: notifications | ${b.label}: lookups missing the write before them | ${b.label}: burst time`).join(' | ')} |`,
  )
  console.log(`|---:|---|${builds.map(() => '---:|---:|---:').join('|')}|`)
  for (const r of rows) {
    const cells = r.per.map(
      (p) =>
        `${med(p.notified)} [${Math.min(...p.notified)}–${Math.max(...p.notified)}] | ` +
        `${r.lookups ? `${med(p.missed)} of ${r.n} [${Math.min(...p.missed)}–${Math.max(...p.missed)}]` : '-'} | ${fmt(med(p.burstMs))}`,
    )
    console.log(`| ${r.n} | ${r.lookups ? 'after each write' : 'none'} | ${cells.join(' | ')} |`)
  }
}

if (burstsOnly) {
  await bursts()
  process.exit(0)
}

const rows = []
for (const count of [100, 1000]) {
  const results = await latencies(count)
  for (const scenario of Object.keys(results[0])) rows.push({ count, scenario, per: results.map((r) => r[scenario]) })
}
console.log(`Visible latency (${SAMPLES} samples, ${GAP_MS} ms apart; default settings)\n`)
console.log(`| base catalog | scenario | ${builds.map((b) => `${b.label} p50 | ${b.label} p95`).join(' | ')} |`)
console.log(`|---:|---|${builds.map(() => '---:|---:').join('|')}|`)
for (const r of rows) {
  console.log(`| ${r.count} | ${r.scenario} | ${r.per.map((x) => `${fmt(x.p50)} | ${fmt(x.p95)}`).join(' | ')} |`)
}

const idleRows = []
for (const build of builds) {
  const tag = builds.length > 1 ? `${build.label}: ` : ''
  idleRows.push([`${tag}missing`, idleInChild(build.entry, 'missing'), idleInChild(build.entry, 'missing', false)])
  idleRows.push([
    `${tag}present, 5 skills each`,
    idleInChild(build.entry, 'present'),
    idleInChild(build.entry, 'present', false),
  ])
}
console.log(`\nIdle, ${PROJECTS} watched projects (${IDLE_MS / 1000} s, each in a fresh process)\n`)
console.log(
  '| roots | process CPU | same, watch: false | watcher threads CPU | RSS growth | same, watch: false | inotify watches | after dispose |',
)
console.log('|---|---:|---:|---:|---:|---:|---:|---:|')
for (const [label, r, control] of idleRows) {
  console.log(
    `| ${label} | ${r.cpuMsPerSecond.toFixed(2)} ms/s | ${control.cpuMsPerSecond.toFixed(2)} ms/s | ` +
      `${r.watcherMsPerSecond.toFixed(4)} ms/s | ${r.rssGrowthMb.toFixed(1)} MB | ${control.rssGrowthMb.toFixed(1)} MB | ` +
      `${r.watches} | ${r.watchesAfterDispose} |`,
  )
}

await bursts()
