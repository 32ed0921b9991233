// A change costs what changed: lookups right after one file changed in a
// large watched catalog (the native local provider in a registry, default
// watcher settings, realistic skills: ~200-character description, metadata,
// ~2 KB body; the base catalog in the project's `.agents/skills`, bundles).
//
// - visible after adding a skill, notified: from writing a new bundle until
//   `onChange` fired and the next `snapshot()` lists it (as bench/watch.mjs
//   measures; the watcher's 8 ms coalescing window is part of it);
// - visible after adding a skill, looked up at once: from writing a new bundle
//   until a `snapshot()` made right after the write returns with it
//   (read-your-writes: the lookup catches up with the kernel's events);
// - edit one skill, look up again: the time of the `snapshot()` right after
//   one skill's description changed (the write itself not counted);
// - for scale, a warm `snapshot()` (cache hit) of the same catalog.
//
// At 1,000 and 5,000 skills; samples 250 ms apart (separate edits), medians
// and p95. With `--baseline DIR` (a built checkout of another version), every
// sample is taken with both builds, alternating, for ratios in one run.
//
// The notified case is bimodal at large sizes: a lookup after a change builds
// a fresh summary per skill (20,000 objects at 20,000 skills), and when V8's
// minor GC (scavenge) runs in the middle of that, it copies the summaries
// built so far. Each run also says how many notified samples had a minor GC
// (and how many a major one or a step of incremental marking)
// during their lookup, and their p50 with and without one.
//
// Usage: node bench/incremental.mjs [--quick] [--baseline DIR] [--counts 1000,5000]
// (quick: 5 samples per case; `--counts 1000,20000` for the large catalog).
// `npm run bench -- incremental` runs only this file.
import { createRequire } from 'node:module'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { constants, performance, PerformanceObserver } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { skillText, visibleLatency } from './fixtures.mjs'

const require = createRequire(import.meta.url)
const args = process.argv.slice(2)
const quick = args.includes('--quick')
const option = (name) => {
  const at = args.indexOf(name)
  return at === -1 ? undefined : args[at + 1]
}
const here = path.dirname(fileURLToPath(import.meta.url))
const builds = [{ label: 'this build', entry: path.join(here, '..', 'index.js') }]
if (option('--baseline') !== undefined) {
  builds.unshift({ label: 'baseline', entry: path.join(path.resolve(option('--baseline')), 'index.js') })
}
const COUNTS = (option('--counts') ?? '1000,5000').split(',').map(Number)
const SAMPLES = quick ? 5 : 20
const GAP_MS = 250

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

/** Minor GCs (scavenges) seen, as [start, end] on the performance clock; and the other kinds (major, incremental marking, weak callbacks). */
const scavenges = []
const otherGcs = []
function noteGcs(entries) {
  for (const entry of entries) {
    ;(entry.detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR ? scavenges : otherGcs).push([entry.startTime, entry.startTime + entry.duration])
  }
}
const gcObserver = new PerformanceObserver((list) => noteGcs(list.getEntries()))
gcObserver.observe({ entryTypes: ['gc'] })

function writeBundle(root, name, description) {
  const dir = path.join(root, name)
  fs.mkdirSync(dir, { recursive: true })
  fs.writeFileSync(path.join(dir, 'SKILL.md'), skillText(name, description))
}

function quantile(sorted, q) {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]
}

const fmt = (ms) => (ms < 1 ? `${ms.toFixed(3)} ms` : `${ms.toFixed(2)} ms`)

/** A base catalog of `count` bundles, shared by every build (each its own registry). */
function fixture(count) {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `dsh-incr-bench-${count}-`)))
  const project = path.join(base, 'project')
  const agents = path.join(project, '.agents/skills')
  fs.mkdirSync(path.join(project, '.git'), { recursive: true })
  for (let i = 0; i < count; i++) writeBundle(agents, `base-${String(i).padStart(5, '0')}`)
  return { base, project, agents }
}

async function open(build, fx) {
  const { SkillRegistry } = require(build.entry)
  const registry = new SkillRegistry({ logger: { warn: (m) => console.error(`warn: ${m}`) } })
  const provider = registry.registerLocalProvider({
    dshHome: path.join(fx.base, 'home/.dsh'),
    agentsHome: path.join(fx.base, 'home/.agents'),
  })
  return { registry, provider }
}

/** One line per catalog size: the notified samples with and without a minor GC. */
const gcNotes = []

async function main() {
  const rows = []
  for (const count of COUNTS) {
    const fx = fixture(count)
    // The parse cache trusts a file once its times are 2 s old.
    await sleep(2_100)
    const opened = []
    for (const build of builds) {
      const o = await open(build, fx)
      const first = await o.registry.snapshot({ cwd: fx.project })
      if (first.skills.length !== count) throw new Error(`expected ${count} skills, got ${first.skills.length}`)
      opened.push(o)
    }
    const cases = {
      'visible after adding a skill (notified)': [],
      'visible after adding a skill (looked up at once)': [],
      'edit one skill, look up again': [],
      'warm snapshot (cache hit)': [],
    }
    for (const list of Object.values(cases)) for (const _ of builds) list.push([])
    /** Per build: each notified sample as [start, end, ms], for the GCs in it. */
    const notified = builds.map(() => [])
    let n = 0
    for (let i = 0; i < SAMPLES; i++) {
      for (let b = 0; b < builds.length; b++) {
        const { registry } = opened[b]
        const cwd = fx.project
        const added = `added-${b}-${n++}`
        const from = performance.now()
        const took = await visibleLatency(
          registry,
          cwd,
          () => writeBundle(fx.agents, added),
          (skills) => skills.some((s) => s.name === added),
        )
        cases['visible after adding a skill (notified)'][b].push(took)
        notified[b].push([from, from + took, took])
        await sleep(GAP_MS)
        const now = `added-${b}-${n++}`
        const start = performance.now()
        writeBundle(fx.agents, now)
        const seen = await registry.snapshot({ cwd })
        cases['visible after adding a skill (looked up at once)'][b].push(performance.now() - start)
        if (!seen.skills.some((s) => s.name === now)) throw new Error('the lookup right after the write missed it')
        await sleep(GAP_MS)
        const description = `Changed ${b} ${i}.`
        fs.writeFileSync(path.join(fx.agents, 'base-00000/SKILL.md'), skillText('base-00000', description))
        const t = performance.now()
        const edited = await registry.snapshot({ cwd })
        cases['edit one skill, look up again'][b].push(performance.now() - t)
        if (!edited.skills.some((s) => s.description === description)) throw new Error('edit not visible')
        const w = performance.now()
        await registry.snapshot({ cwd })
        cases['warm snapshot (cache hit)'][b].push(performance.now() - w)
        await sleep(GAP_MS)
      }
    }
    for (const o of opened) await o.provider.dispose()
    fs.rmSync(fx.base, { recursive: true, force: true })
    // GCs not delivered to the observer yet.
    noteGcs(gcObserver.takeRecords())
    gcNotes.push(
      `${count.toLocaleString('en-US')} skills, notified: ` +
        builds
          .map((build, b) => {
            const [withGc, without, withOther] = [[], [], []]
            const overlaps = (gcs, start, end) => gcs.some(([s, e]) => s < end && e > start)
            for (const [start, end, ms] of notified[b]) {
              ;(overlaps(scavenges, start, end) ? withGc : without).push(ms)
              if (overlaps(otherGcs, start, end)) withOther.push(ms)
            }
            const p50 = (xs) => (xs.length === 0 ? '-' : fmt(quantile([...xs].sort((x, y) => x - y), 0.5)))
            return (
              `${build.label} ${withGc.length} of ${notified[b].length} samples with a minor GC (p50 ${p50(withGc)}; without: ${p50(without)}), ` +
              `${withOther.length} with a major GC or marking step (p50 ${p50(withOther)})`
            )
          })
          .join(', '),
    )
    for (const [label, per] of Object.entries(cases)) {
      rows.push({
        count,
        label,
        per: per.map((xs) => {
          const sorted = [...xs].sort((x, y) => x - y)
          return { p50: quantile(sorted, 0.5), p95: quantile(sorted, 0.95) }
        }),
      })
    }
  }
  console.log(`A change costs what changed (${SAMPLES} samples per case, ${GAP_MS} ms apart; load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')})\n`)
  console.log(`| skills | case | ${builds.map((b) => `${b.label} p50 | ${b.label} p95`).join(' | ')} |`)
  console.log(`|---:|---|${builds.map(() => '---:|---:').join('|')}|`)
  for (const r of rows) {
    console.log(`| ${r.count.toLocaleString('en-US')} | ${r.label} | ${r.per.map((x) => `${fmt(x.p50)} | ${fmt(x.p95)}`).join(' | ')} |`)
  }
  console.log('')
  for (const note of gcNotes) console.log(note)
  gcObserver.disconnect()
}

await main()
