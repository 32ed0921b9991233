'use strict'
// A burst of concurrent lookups of a large catalog, in a child process with a
// small heap (see registry-hostile.test.ts): `PKG` the package, `ROOT` a
// skill root, `SKILLS` how many skills it holds, `CALLERS` how many lookups
// each burst makes. Prints `{ cold, warm, peakMB }` and exits 0 when every
// lookup of both bursts saw the whole catalog.
const { SkillRegistry } = require(process.env.PKG)

const skills = Number(process.env.SKILLS)
const callers = Number(process.env.CALLERS)
const registry = new SkillRegistry({ logger: { warn() {} } })
registry.registerLocalProvider({ customSkillDirs: [process.env.ROOT], includeDefaultRoots: false, watch: false })

let peak = 0
const sample = setInterval(() => {
  peak = Math.max(peak, process.memoryUsage().heapUsed)
}, 5)

/** `callers` concurrent snapshots; each caller reads its array and lets it go. */
async function burst() {
  const seen = await Promise.all(
    Array.from({ length: callers }, () =>
      registry.snapshot().then(({ skills: list, complete }) => {
        peak = Math.max(peak, process.memoryUsage().heapUsed)
        return complete && list.length === skills && list[0].name === 'skill-00000'
      }),
    ),
  )
  return seen.filter(Boolean).length
}

;(async () => {
  // Cold: every caller joins one collection; warm: every caller hits the cache.
  const cold = await burst()
  const warm = await burst()
  clearInterval(sample)
  console.log(JSON.stringify({ cold, warm, peakMB: Math.round(peak / 2 ** 20) }))
  process.exitCode = cold === callers && warm === callers ? 0 : 1
})().catch((error) => {
  console.error(error)
  process.exitCode = 2
})
