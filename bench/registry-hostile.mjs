// The registry under hostile load, each case in a child Node process of its
// own (so one that runs out of heap is reported, not fatal), this build and,
// with `--baseline DIR` (a built checkout of the previous version; or
// `BENCH_BASELINE`), that build, side by side in one run:
//
// 1. burst: N concurrent `snapshot()` calls of a 10,000-skill local root
//    (cold: every caller joins one collection; each caller reads its array
//    and lets it go): wall time, and the peak of `heapUsed` sampled every
//    5 ms and at every answer, under the default heap limit (garbage not yet
//    collected included), then 10,000 callers again in a 64 MB heap.
// 2. scopes: N scopes holding one runtime skill each, registered, then every
//    scope read once (`snapshot({ scope })`): total time, and heap per
//    registration once the reads are done (what cached catalogs add to
//    what the registrations hold).
// 3. first read: N scopes holding one runtime skill each, then the first
//    read of 20 of them (not cached yet): the median.
//
//   node bench/registry-hostile.mjs [--baseline DIR] [--only burst|scopes|first]
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'

const self = fileURLToPath(import.meta.url)
const here = path.resolve(path.dirname(self), '..')

function option(name, fallback) {
  const at = process.argv.indexOf(name)
  return at === -1 ? fallback : process.argv[at + 1]
}

// ---------------------------------------------------------------------------
// Child: one case, one build; prints one JSON line.

async function burst(SkillRegistry, root, skills, callers) {
  const registry = new SkillRegistry({ logger: { warn() {} } })
  registry.registerLocalProvider({ customSkillDirs: [root], includeDefaultRoots: false, watch: false })
  let peak = process.memoryUsage().heapUsed
  const sample = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().heapUsed)
  }, 5)
  const start = performance.now()
  const seen = await Promise.all(
    Array.from({ length: callers }, () =>
      registry.snapshot().then(({ skills: list }) => {
        peak = Math.max(peak, process.memoryUsage().heapUsed)
        return list.length
      }),
    ),
  )
  const ms = performance.now() - start
  clearInterval(sample)
  if (seen.some((n) => n !== skills)) throw new Error('a caller missed skills')
  return { ms, peakMB: peak / 2 ** 20 }
}

function heap() {
  global.gc()
  global.gc()
  return process.memoryUsage().heapUsed
}

function skill(i) {
  return { name: `skill-${i}`, description: `Skill ${i}.`, content: `Body ${i}.`, source: 'bench' }
}

async function scopes(SkillRegistry, count) {
  const registry = new SkillRegistry({ logger: { warn() {} } })
  const keys = Array.from({ length: count }, (_, i) => ({ name: `agent-${i}` }))
  const base = heap()
  const start = performance.now()
  const disposers = keys.map((scope, i) => registry.register(skill(i), { scope }))
  const registered = performance.now()
  for (const scope of keys) {
    if ((await registry.snapshot({ scope })).skills.length !== 1) throw new Error('expected one skill')
  }
  const end = performance.now()
  const perRegistration = (heap() - base) / count
  if (disposers.length !== count) throw new Error('lost a disposer')
  return { registerMs: registered - start, readMs: end - registered, totalMs: end - start, bytesPerRegistration: perRegistration }
}

async function first(SkillRegistry, count) {
  const registry = new SkillRegistry({ logger: { warn() {} } })
  const keys = Array.from({ length: count }, (_, i) => ({ name: `agent-${i}` }))
  keys.forEach((scope, i) => registry.register(skill(i), { scope }))
  const times = []
  for (let k = 0; k < 20; k++) {
    const scope = keys[Math.floor(((k + 0.5) * count) / 20)]
    const start = performance.now()
    await registry.snapshot({ scope })
    times.push(performance.now() - start)
  }
  times.sort((a, b) => a - b)
  return { medianMs: (times[9] + times[10]) / 2 }
}

async function runChild() {
  const [, , , kind, build, ...args] = process.argv
  const { SkillRegistry } = createRequire(import.meta.url)(path.join(build, 'index.js'))
  let result
  if (kind === 'burst') result = await burst(SkillRegistry, args[0], Number(args[1]), Number(args[2]))
  else if (kind === 'scopes') result = await scopes(SkillRegistry, Number(args[0]))
  else result = await first(SkillRegistry, Number(args[0]))
  console.log(JSON.stringify(result))
}

// ---------------------------------------------------------------------------
// Parent: the cases, the builds side by side.

function child(flags, kind, build, ...args) {
  const run = spawnSync(process.execPath, [...flags, self, '--child', kind, build, ...args.map(String)], {
    encoding: 'utf8',
    maxBuffer: 1 << 24,
  })
  const line = run.stdout.trim().split('\n').pop() ?? ''
  if (run.status === 0 && line.startsWith('{')) return JSON.parse(line)
  const oom = /heap out of memory|Allocation failed/.test(run.stderr)
  return { failed: oom ? 'aborted: V8 heap out of memory' : `failed (${run.signal ?? `exit ${run.status}`}): ${run.stderr.trim().split('\n').pop()}` }
}

function makeRoot(count) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-bench-hostile-'))
  for (let i = 0; i < count; i++) {
    const name = `skill-${String(i).padStart(5, '0')}`
    fs.writeFileSync(path.join(dir, `${name}.md`), `---\nname: ${name}\ndescription: Skill number ${i}, for the burst bench.\n---\nBody ${i}.\n`)
  }
  return dir
}

const fixed = (n, digits = 1) => n.toFixed(digits)
function show(label, result, format) {
  console.log(`  ${label.padEnd(34)} ${result.failed ?? format(result)}`)
}

async function runParent() {
  const baselineDir = option('--baseline', process.env.BENCH_BASELINE)
  const only = option('--only', undefined)
  const builds = [...(baselineDir ? [['before', path.resolve(baselineDir)]] : []), ['after', here]]
  console.log(`load average: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`)

  if (only === undefined || only === 'burst') {
    console.log('\nburst: concurrent snapshot() calls of a 10,000-skill root (cold), default heap limit')
    const root = makeRoot(10_000)
    try {
      for (const callers of [300, 10_000]) {
        for (const [name, dir] of builds) {
          show(`${name}, ${callers} callers`, child([], 'burst', dir, root, 10_000, callers), (r) => `${fixed(r.ms, 0)} ms, peak heap ${fixed(r.peakMB, 0)} MB`)
        }
      }
      // The same burst in a 64 MB heap: what the callers hold at once, garbage aside.
      for (const [name, dir] of builds) {
        show(`${name}, 10000 callers, 64 MB heap`, child(['--max-old-space-size=64'], 'burst', dir, root, 10_000, 10_000), (r) => `${fixed(r.ms, 0)} ms, peak heap ${fixed(r.peakMB, 0)} MB`)
      }
    } finally {
      fs.rmSync(root, { recursive: true, force: true })
    }
  }
  if (only === undefined || only === 'scopes') {
    console.log('\nscopes: N scopes, one runtime skill each: register all, then read every scope once')
    for (const count of [1_000, 20_000]) {
      for (const [name, dir] of builds) {
        show(`${name}, ${count} scopes`, child(['--expose-gc'], 'scopes', dir, count), (r) =>
          `total ${fixed(r.totalMs / 1000, 2)} s (register ${fixed(r.registerMs, 0)} ms, read ${fixed(r.readMs, 0)} ms), ${fixed(r.bytesPerRegistration / 1024, 2)} KB heap per registration`)
      }
    }
  }
  if (only === undefined || only === 'first') {
    console.log('\nfirst read of one scope (not cached), N scopes holding one runtime skill each: median of 20')
    for (const count of [1_000, 10_000, 40_000]) {
      for (const [name, dir] of builds) {
        show(`${name}, ${count} scopes`, child([], 'first', dir, count), (r) => `${fixed(r.medianMs, 3)} ms`)
      }
    }
  }
  console.log(`\nload average: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`)
}

if (process.argv[2] === '--child') await runChild()
else await runParent()
