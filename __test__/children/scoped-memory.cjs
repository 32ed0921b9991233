'use strict'
// Scoped runtime skills and what cached catalogs keep of them, in a child
// process run with `--expose-gc` (see registry-hostile.test.ts): `PKG` the
// package, `SCOPES` how many scopes (one runtime skill each, of `CONTENT_KB`
// of content). Prints heap figures in bytes.
const { randomBytes } = require('node:crypto')
const { SkillRegistry } = require(process.env.PKG)

const scopes = Number(process.env.SCOPES)
const contentBytes = Number(process.env.CONTENT_KB) * 1024

function heap() {
  global.gc()
  global.gc()
  return process.memoryUsage().heapUsed
}

;(async () => {
  const registry = new SkillRegistry({ logger: { warn() {} } })
  const keys = Array.from({ length: scopes }, (_, i) => ({ name: `agent-${i}` }))
  const base = heap()
  const disposers = keys.map((scope, i) =>
    registry.register(
      // A flat content string of its own per skill (`repeat`/`padEnd` would share one).
      { name: `skill-${i}`, description: `Skill ${i}.`, content: randomBytes(contentBytes / 2).toString('hex'), source: 'test' },
      { scope },
    ),
  )
  const registered = heap()
  // Read every scope: the last 128 views stay cached.
  for (const scope of keys) {
    const { skills } = await registry.snapshot({ scope })
    if (skills.length !== 1) throw new Error(`expected one skill, got ${skills.length}`)
  }
  const read = heap()
  for (const dispose of disposers) dispose()
  const disposed = heap()
  console.log(JSON.stringify({ base, registered, read, disposed, alive: keys.length + disposers.length }))
})().catch((error) => {
  console.error(error)
  process.exitCode = 2
})
