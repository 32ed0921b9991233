// The registry under hostile load: bursts of concurrent lookups of a large
// catalog, many scopes, invalidation storms. Memory is measured in child
// processes (a small heap, or `--expose-gc`); nothing here is timed.
import { afterAll, describe, expect, it } from 'vitest'
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import type { SkillProviderControl } from '../index'
import { pkg, recorder, tempDirs } from './helpers'

const dirs = tempDirs('dsh-hostile-reg-')
afterAll(() => dirs.cleanup())

const { SkillRegistry } = pkg
const PKG = path.join(__dirname, '..', 'index.js')
const both = { modelInvocable: true, userInvocable: true }

/** Run `script` (in `__test__/children`) in a child Node with `flags`; its stdout parsed. */
function child(script: string, flags: string[], env: Record<string, string>) {
  const run = spawnSync(process.execPath, [...flags, path.join(__dirname, 'children', script)], {
    env: { ...process.env, PKG, ...env },
    encoding: 'utf8',
    timeout: 240_000,
  })
  const line = run.stdout.trim().split('\n').pop() ?? ''
  return { status: run.status, signal: run.signal, stderr: run.stderr.slice(-2000), result: line.startsWith('{') ? JSON.parse(line) : undefined }
}

/** A root of `count` flat skills `skill-00000.md` … */
function root(count: number): string {
  const dir = dirs.make()
  for (let i = 0; i < count; i++) {
    const name = `skill-${String(i).padStart(5, '0')}`
    fs.writeFileSync(path.join(dir, `${name}.md`), `---\nname: ${name}\ndescription: Skill number ${i}, for the burst test.\n---\nBody ${i}.\n`)
  }
  return dir
}

const turn = () => new Promise((resolve) => setImmediate(resolve))

describe('registry: a burst of concurrent lookups', () => {
  it('answers 300 concurrent snapshots of a 10,000-skill root within a 128 MB heap, cold and cached', () => {
    // Every caller has fresh summaries of its own; built all at once they
    // were 300 copies (~600 MB) before any caller ran.
    const run = child('burst.cjs', ['--max-old-space-size=128'], { ROOT: root(10_000), SKILLS: '10000', CALLERS: '300' })
    expect({ status: run.status, signal: run.signal, result: run.result }, run.stderr).toEqual({
      status: 0,
      signal: null,
      result: { cold: 300, warm: 300, peakMB: expect.any(Number) },
    })
  }, 180_000)

  it('still gives every caller of a burst its own fresh summaries, in the order the lookups came', async () => {
    const registry = new SkillRegistry({ logger: recorder().logger })
    // 120 skills × 600 callers: more than one turn's budget of summaries.
    for (let i = 0; i < 120; i++) {
      registry.register({ name: `s-${i}`, description: `S ${i}.`, content: 'x', source: 'test', invocation: both })
    }
    const order: number[] = []
    const results = await Promise.all(
      Array.from({ length: 600 }, (_, i) =>
        registry.snapshot().then((snapshot) => {
          order.push(i)
          return snapshot
        }),
      ),
    )
    expect(order).toEqual(Array.from({ length: 600 }, (_, i) => i))
    const arrays = new Set(results.map((r) => r.skills))
    const summaries = new Set(results.flatMap((r) => r.skills))
    expect([arrays.size, summaries.size]).toEqual([600, 600 * 120])
    results[0].skills[0].description = 'changed'
    results[0].skills.pop()
    expect(results[1].skills).toHaveLength(120)
    expect(results[1].skills[0].description).toBe('S 0.')
    // The nested objects a runtime registration supplied keep their identity.
    expect(results[599].skills[0].invocation).toBe(both)
    expect((await registry.list())[0].description).toBe('S 0.')
  })
})

describe('registry: many scopes', () => {
  it('keeps no copy of every registration per cached catalog, and lets a disposed one go with its disposal', () => {
    const run = child('scoped-memory.cjs', ['--expose-gc'], { SCOPES: '1000', CONTENT_KB: '20' })
    expect(run.status, run.stderr).toBe(0)
    const { base, registered, read, disposed } = run.result
    // Reading every scope caches 128 views: each holds its own chain's
    // registrations (one), not a map of all 1,000 (≈5 KB a registration).
    expect((read - registered) / 1000).toBeLessThan(1024)
    // The 1,000 skills held 20,480,000 bytes of content (one-byte strings):
    // registered, the heap holds at least that (a sanity check of the
    // measurement); disposed, none of it stays with the catalogs cached
    // while they were registered.
    expect(registered - base).toBeGreaterThan(1000 * 20 * 1024)
    expect(disposed - base).toBeLessThan(4 * 1024 * 1024)
  })
})

describe('registry: control.invalidate() storms', () => {
  it('coalesces the invalidations a provider makes inside its own list(): one notification per turn, none inside list(), none lost', async () => {
    const registry = new SkillRegistry({ logger: recorder().logger })
    let control!: SkillProviderControl
    let storm = 10_000
    let listing = false
    let heardWhileListing = 0
    registry.registerProvider((c) => {
      control = c
      return {
        name: 'stormy',
        list: () => {
          listing = true
          for (let i = 0; i < storm; i++) control.invalidate()
          listing = false
          return [{ name: 'x', description: 'X.', invocation: both, source: 'test', provider: 'stormy', rank: 1, locator: 'x' }]
        },
        get: () => undefined,
      }
    })
    let changes = 0
    registry.onChange(() => {
      changes++
      if (listing) heardWhileListing++
    })
    // 10,000 invalidations inside one list() (and as many in its retry).
    const first = await registry.snapshot()
    expect(first.skills.map((s) => s.name)).toEqual(['x'])
    for (let i = 0; i < 3; i++) await turn()
    expect(changes).toBeGreaterThanOrEqual(1)
    expect(changes).toBeLessThanOrEqual(2)
    expect(heardWhileListing).toBe(0)
    storm = 0
    // Quiet again: every invalidation notifies at once, once, as both
    // harness releases do.
    const settled = changes
    control.invalidate()
    expect(changes).toBe(settled + 1)
    control.invalidate()
    control.invalidate()
    expect(changes).toBe(settled + 3)
    await turn()
    await turn()
    expect(changes).toBe(settled + 3)
    // The catalog was dropped at once all the same.
    expect((await registry.snapshot()).complete).toBe(true)
  })

  it('coalesces those made while an async list() is pending, per turn; a disposal meanwhile notifies by itself', async () => {
    const registry = new SkillRegistry({ logger: recorder().logger })
    let control!: SkillProviderControl
    let release!: () => void
    let pending!: Promise<void>
    const dispose = registry.registerProvider((c) => {
      control = c
      return {
        name: 'slow',
        list: async () => {
          await pending
          return []
        },
        get: () => undefined,
      }
    })
    let changes = 0
    registry.onChange(() => void changes++)
    pending = new Promise((resolve) => (release = resolve))
    const lookup = registry.snapshot()
    await turn()
    // Listing: a storm is one notification on the next turn.
    for (let i = 0; i < 10_000; i++) control.invalidate()
    expect(changes).toBe(0)
    await turn()
    expect(changes).toBe(1)
    for (let i = 0; i < 5; i++) control.invalidate()
    dispose()
    expect(changes).toBe(2)
    await turn()
    await turn()
    expect(changes).toBe(2)
    release()
    await lookup
    expect(changes).toBe(2)
  })

  it('outside a listing, invalidateProvider notifies once per call, synchronously, and nothing after', async () => {
    const registry = new SkillRegistry({ logger: recorder().logger })
    const provider = { name: 'p', list: () => [], get: () => undefined }
    const dispose = registry.registerProvider(() => provider)
    let changes = 0
    registry.onChange(() => void changes++)
    for (let i = 0; i < 10_000; i++) registry.invalidateProvider(provider)
    expect(changes).toBe(10_000)
    await turn()
    expect(changes).toBe(10_000)
    dispose()
    expect(changes).toBe(10_001)
    // Disposed: its control and invalidateProvider are no-ops.
    registry.invalidateProvider(provider)
    await turn()
    expect(changes).toBe(10_001)
  })
})
