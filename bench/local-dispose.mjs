// Memory of the register / snapshot / dispose cycle of the native local
// provider: a harness that reloads its skill plugin creates a provider,
// registers it, takes a snapshot and disposes it, again and again, on one
// registry. Each build runs in its own Node process; at checkpoints the script
// prints the process's resident set size, the JS heap in use and committed,
// and how many of the disposed provider objects V8 has not collected yet (a
// `FinalizationRegistry` counts them), without and with a forced `gc()` every
// 50 cycles. (`process.memoryUsage().external` does not include the memory
// native addons report with `napi_adjust_external_memory`, so it is not shown.)
//
// Usage: node --expose-gc bench/local-dispose.mjs [cycles] [skills]
// (defaults 4000 cycles, 200 skills; the figures in BENCHMARKS.md use 10 skills). Set DSH_BASELINE=/path/to/another/checkout
// (built) to run that build too, for a before/after table in one run.
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { generateHome } from './fixtures.mjs'

const self = fileURLToPath(import.meta.url)
const [, , cyclesArg, skillsArg, role, packageDir, home, gcEvery] = process.argv
const cycles = Number(cyclesArg ?? 4000)
const skills = Number(skillsArg ?? 200)

const mb = (bytes) => (bytes / 1e6).toFixed(1)

/** One build, one mode: run the cycles and print a JSON line per checkpoint. */
async function child() {
  const require = createRequire(import.meta.url)
  const { SkillRegistry } = require(path.resolve(packageDir, 'index.js'))
  const every = Number(gcEvery)
  const registry = new SkillRegistry({ logger: { warn() {} } })
  const config = { dshHome: path.join(home, '.dsh'), agentsHome: path.join(home, '.agents') }
  const checkpoints = new Set([0, cycles / 8, cycles / 4, cycles / 2, cycles].map(Math.round))
  let collected = 0
  const finalized = new FinalizationRegistry(() => void collected++)
  const report = (cycle) => {
    const m = process.memoryUsage()
    console.log(JSON.stringify({ cycle, rss: m.rss, heap: m.heapUsed, heapTotal: m.heapTotal, uncollected: cycle - collected }))
  }
  report(0)
  for (let i = 1; i <= cycles; i++) {
    const provider = registry.registerLocalProvider(config)
    finalized.register(provider, undefined)
    const snapshot = await registry.snapshot({})
    if (snapshot.skills.length !== skills) throw new Error(`expected ${skills} skills, got ${snapshot.skills.length}`)
    await provider.dispose()
    if (every > 0 && i % every === 0) globalThis.gc()
    if (checkpoints.has(i)) report(i)
  }
}

function parent() {
  const fixture = generateHome(skills)
  const builds = [['this build', path.resolve(path.dirname(self), '..')]]
  if (process.env.DSH_BASELINE) builds.push(['baseline', path.resolve(process.env.DSH_BASELINE)])
  console.log(`register + snapshot + dispose, ${cycles} cycles, ${skills} skills (watching on)`)
  console.log('build        gc        cycle      rss MB   heap MB  heap total MB  uncollected')
  try {
    for (const gc of [0, 50]) {
      for (const [label, dir] of builds) {
        const run = spawnSync(
          process.execPath,
          ['--expose-gc', self, String(cycles), String(skills), 'child', dir, fixture.home, String(gc)],
          { encoding: 'utf8' },
        )
        if (run.status !== 0) throw new Error(`${label}: ${run.stderr}`)
        for (const line of run.stdout.trim().split('\n')) {
          const point = JSON.parse(line)
          console.log(
            `${label.padEnd(12)} ${(gc ? `every ${gc}` : 'none').padEnd(9)} ${String(point.cycle).padStart(6)}` +
              `  ${mb(point.rss).padStart(8)}  ${mb(point.heap).padStart(8)}  ${mb(point.heapTotal).padStart(13)}  ${String(point.uncollected).padStart(11)}`,
          )
        }
      }
    }
  } finally {
    fixture.cleanup()
  }
}

if (role === 'child') await child()
else parent()
