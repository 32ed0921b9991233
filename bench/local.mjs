// Local provider benchmark: cold list() of 1,000 generated skills against plain
// synchronous Node reads of the same files (same run), the same list() through a
// node:fs/promises-backed filesystem service (config.fs), and get() latency
// (watching off, and on: the default, where a loaded definition is kept).
// With `--baseline DIR` (a built checkout of the package), the cold list() and
// get() of that build are measured too, interleaved in the same rounds.
// Usage: node bench/local.mjs [count] [--baseline DIR]
import { createRequire } from 'node:module'
import fsp from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { generateHome, plainReads as plainReadsOf, stats } from './fixtures.mjs'

const require = createRequire(import.meta.url)
const { LocalSkillProvider } = require('../lib/local.js')
const baselineAt = process.argv.indexOf('--baseline')
const Baseline =
  baselineAt === -1
    ? undefined
    : require(path.join(path.resolve(process.argv[baselineAt + 1]), 'lib/local.js')).LocalSkillProvider

const count = Number(process.argv[2] ?? 1000) || 1000
const rounds = 30

const fixture = generateHome(count)
const { roots, config } = fixture
const plainReads = () => plainReadsOf(roots)

/** The floor of the service path: the same reads through node:fs/promises, 64 at a time. */
async function promiseReads() {
  const files = []
  for (const root of roots) {
    for (const entry of await fsp.readdir(root, { withFileTypes: true })) {
      files.push(entry.isDirectory() ? path.join(root, entry.name, 'SKILL.md') : path.join(root, entry.name))
    }
  }
  let bytes = 0
  for (let i = 0; i < files.length; i += 64) {
    const texts = await Promise.all(files.slice(i, i + 64).map((f) => fsp.readFile(f, 'utf8')))
    for (const t of texts) bytes += t.length
  }
  return bytes
}

/** 2,000 get() calls of this build and (when given) the baseline, alternating; their times. */
async function timeGets(config, warm) {
  const providers = [new LocalSkillProvider(config), ...(Baseline ? [new Baseline(config)] : [])]
  const listed = await Promise.all(providers.map(async (p) => (await p.list({})).candidates))
  if (warm) for (let i = 0; i < providers.length; i++) for (const c of listed[i]) await providers[i].get(c, {})
  const times = providers.map(() => [])
  for (let r = 0; r < 2000; r++) {
    for (let i = 0; i < providers.length; i++) {
      const t = performance.now()
      const d = await providers[i].get(listed[i][r % listed[i].length], {})
      times[i].push(performance.now() - t)
      if (!d) throw new Error(`${i === 0 ? 'this build' : 'baseline'}: missing definition`)
    }
  }
  for (const p of providers) await p.dispose()
  return [times[0], times[1] ?? []]
}

/** A filesystem service over node:fs/promises/** A filesystem service over node:fs/promises (what a harness `fs` seam would do locally). */
function notFound(error) {
  if (error && (error.code === 'ENOENT' || error.code === 'ENOTDIR')) {
    error.code = error.code === 'ENOENT' ? 'FS_NOT_FOUND' : 'FS_NOT_DIRECTORY'
  }
  return error
}
const service = {
  async resolve(p) {
    return { displayPath: p }
  },
  async stat(t) {
    try {
      const s = await fsp.stat(t.displayPath)
      return { type: s.isFile() ? 'file' : s.isDirectory() ? 'directory' : 'other' }
    } catch (error) {
      if (error.code === 'ENOENT') return undefined
      throw notFound(error)
    }
  },
  async listDir(t) {
    try {
      const entries = await fsp.readdir(t.displayPath, { withFileTypes: true })
      return entries.map((e) => {
        const p = path.join(t.displayPath, e.name)
        return { name: e.name, type: e.isFile() ? 'file' : e.isDirectory() ? 'directory' : 'other', target: { displayPath: p } }
      })
    } catch (error) {
      throw notFound(error)
    }
  },
  async readText(t, signal) {
    try {
      return await fsp.readFile(t.displayPath, { encoding: 'utf8', signal })
    } catch (error) {
      throw notFound(error)
    }
  },
}

const fmt = (ms) => `${ms.toFixed(3)} ms`

async function main() {
  // Warm the OS page cache and the JIT once for both sides.
  plainReads()
  await new LocalSkillProvider(config).list({})
  await new LocalSkillProvider({ ...config, fs: service }).list({})

  const plain = []
  const listed = []
  const baselineListed = []
  const viaService = []
  const promised = []
  for (let r = 0; r < rounds; r++) {
    let t = performance.now()
    plainReads()
    plain.push(performance.now() - t)

    const provider = new LocalSkillProvider(config)
    t = performance.now()
    const { candidates } = await provider.list({})
    listed.push(performance.now() - t)
    if (candidates.length !== count) throw new Error(`expected ${count} candidates, got ${candidates.length}`)

    if (Baseline) {
      const before = new Baseline(config)
      t = performance.now()
      const { candidates: theirs } = await before.list({})
      baselineListed.push(performance.now() - t)
      if (theirs.length !== count) throw new Error('baseline: wrong count')
    }

    t = performance.now()
    await promiseReads()
    promised.push(performance.now() - t)

    const serviced = new LocalSkillProvider({ ...config, fs: service })
    t = performance.now()
    const result = await serviced.list({})
    viaService.push(performance.now() - t)
    if (result.candidates.length !== count) throw new Error(`expected ${count} candidates through the service`)
  }

  // get() of this build and (when given) of the baseline, alternating:
  // watching off (every call reads), then on (the default: a definition
  // loaded once is handed out again while the watcher vouches for its file;
  // each skill is loaded once before the timed calls).
  const [gets, baselineGets] = await timeGets(config, false)
  const [watchedGets, baselineWatchedGets] = await timeGets({ ...config, watch: true }, true)

  const servicedProvider = new LocalSkillProvider({ ...config, fs: service })
  const { candidates } = await servicedProvider.list({})
  const servicedGets = []
  for (let r = 0; r < 2000; r++) {
    const c = candidates[r % candidates.length]
    const t = performance.now()
    const d = await servicedProvider.get(c, {})
    servicedGets.push(performance.now() - t)
    if (!d) throw new Error('missing definition through the service')
  }

  const p = stats(plain)
  const l = stats(listed)
  const g = stats(gets)
  const s = stats(viaService)
  const pr = stats(promised)
  console.log(`machine: ${os.cpus().length} x ${os.cpus()[0]?.model ?? 'unknown cpu'}, ${os.platform()} ${os.release()}, node ${process.version}`)
  console.log(`skills: ${count} (half bundles, half flat; ~200-char descriptions, metadata, ~2 KB bodies)`)
  console.log(`plain sync Node reads (readdir + readFileSync): median ${fmt(p.median)}, min ${fmt(p.min)}`)
  console.log(`cold list() through the addon:                  median ${fmt(l.median)}, min ${fmt(l.min)}  (${(l.median / p.median).toFixed(2)}x the plain-read floor)`)
  console.log(`plain fs/promises reads (64 at a time):         median ${fmt(pr.median)}, min ${fmt(pr.min)}`)
  console.log(`cold list() through an fs/promises service:     median ${fmt(s.median)}, min ${fmt(s.min)}  (${(s.median / l.median).toFixed(2)}x the native list())`)
  console.log(`get() through the addon:                        median ${fmt(g.median)}, mean ${fmt(g.mean)}`)
  const wg = stats(watchedGets)
  console.log(`get() through the addon, watched:               median ${fmt(wg.median)}, mean ${fmt(wg.mean)}`)
  if (Baseline) {
    const bl = stats(baselineListed)
    const bg = stats(baselineGets)
    const bwg = stats(baselineWatchedGets)
    console.log(`baseline build, cold list():                    median ${fmt(bl.median)}, min ${fmt(bl.min)}  (${(bl.median / p.median).toFixed(2)}x the plain-read floor)`)
    console.log(`baseline build, get():                          median ${fmt(bg.median)}, mean ${fmt(bg.mean)}`)
    console.log(`baseline build, get(), watched:                 median ${fmt(bwg.median)}, mean ${fmt(bwg.mean)}`)
  }
  const sg = stats(servicedGets)
  console.log(`get() through the fs/promises service:          median ${fmt(sg.median)}, mean ${fmt(sg.mean)}`)
  fixture.cleanup()
}

main().catch((e) => {
  fixture.cleanup()
  console.error(e)
  process.exit(1)
})
