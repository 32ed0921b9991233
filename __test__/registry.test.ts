import { afterAll, describe, expect, it } from 'vitest'
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import os from 'node:os'
import path from 'node:path'
import type { SkillCandidate, SkillDefinition, SkillLookupOptions, SkillProvider, SkillProviderControl } from '../index'
import { pkg, recorder, skillFile, tempDirs, write } from './helpers'

const dirs = tempDirs('dsh-registry-')
afterAll(() => dirs.cleanup())

const require = createRequire(import.meta.url)

const { SkillRegistry, isSkillName, isModelInvocable, isUserInvocable } = pkg
const { catalogSourceOf } = require('../lib/registry.js') as {
  catalogSourceOf(skills: unknown):
    | { catalog: { modelEntries(): Array<[string, string]> | null }; summaries: ReadonlyArray<Record<string, unknown>> }
    | undefined
}

const both = { modelInvocable: true, userInvocable: true }

function candidate(provider: string, name: string, rank: number, extra: Record<string, unknown> = {}): SkillCandidate {
  return { name, description: `${name} via ${provider}`, invocation: both, source: 'test', provider, rank, locator: { provider, name }, ...extra }
}

function definition(c: SkillCandidate, content = `body of ${c.name}`): SkillDefinition {
  return { name: c.name, description: c.description, invocation: c.invocation, source: c.source, provider: c.provider, content }
}

interface FakeProvider extends SkillProvider {
  lists: SkillLookupOptions[]
  gets: Array<{ candidate: SkillCandidate; options: SkillLookupOptions }>
}

function fake(name: string, candidates: () => unknown, load?: (c: SkillCandidate) => unknown): FakeProvider {
  const provider: FakeProvider = {
    name,
    lists: [],
    gets: [],
    list: async (options) => {
      provider.lists.push(options)
      return candidates() as SkillCandidate[]
    },
    get: async (c, options) => {
      provider.gets.push({ candidate: c, options })
      return (load ? load(c) : definition(c)) as SkillDefinition | undefined
    },
  }
  return provider
}

describe('registry: names and ranking', () => {
  it('merges by rank, then registration order (runtime first), then provider order; sorts by name; logs duplicates', async () => {
    const log = recorder()
    const registry = new SkillRegistry({ logger: log.logger })
    registry.registerProvider(() => fake('a', () => [candidate('a', 'zeta', 500), candidate('a', 'dup', 300), candidate('a', 'dup', 300, { description: 'second dup' }), candidate('a', 'shared', 300)]))
    registry.registerProvider(() => fake('b', () => [candidate('b', 'dup', 300), candidate('b', 'project', 100), candidate('b', 'alpha', 600)]))
    registry.register({ name: 'project', description: 'runtime project', content: 'x', source: 'runtime' })
    registry.register({ name: 'shared', description: 'runtime shared', content: 'x', source: 'runtime' })

    const snapshot = await registry.snapshot({ cwd: '/w' })
    expect(snapshot.complete).toBe(true)
    expect(snapshot.skills.map((s) => s.name)).toEqual(['alpha', 'dup', 'project', 'shared', 'zeta'])
    const by = Object.fromEntries(snapshot.skills.map((s) => [s.name, s]))
    expect(by.dup.provider).toBe('a')
    expect(by.dup.description).toBe('dup via a')
    expect(by.project.provider).toBe('b') // rank 100 beats runtime 250
    expect(by.shared.provider).toBe('runtime') // runtime 250 beats 300
    expect(by.shared).toEqual({ name: 'shared', description: 'runtime shared', invocation: both, source: 'runtime', provider: 'runtime' })
    expect(log.warnings.filter((w) => w.includes('shadowed'))).toHaveLength(4)
    expect(log.warnings.some((w) => w.includes('"dup"') && w.includes('provider "b"'))).toBe(true)
    expect(await registry.list({ cwd: '/w' })).toEqual(snapshot.skills)
  })

  it('validates skill names and invocation helpers', () => {
    expect(isSkillName('code-review')).toBe(true)
    expect(isSkillName('a1-b2')).toBe(true)
    for (const bad of ['', 'Code', 'a--b', '-a', 'a-', 'a_b', 'é', 7, null, undefined]) expect(isSkillName(bad)).toBe(false)
    const skill = { invocation: { modelInvocable: false, userInvocable: true } }
    expect(isModelInvocable(skill)).toBe(false)
    expect(isUserInvocable(skill)).toBe(true)
  })

  it('reserves the runtime name and rejects duplicate or malformed providers, aborting their signal', () => {
    const registry = new SkillRegistry({ logger: recorder().logger })
    let control: SkillProviderControl | undefined
    expect(() => registry.registerProvider((c) => ((control = c), fake('runtime', () => [])))).toThrow(/reserved/)
    expect(control?.signal.aborted).toBe(true)
    registry.registerProvider(() => fake('p', () => []))
    let second: SkillProviderControl | undefined
    expect(() => registry.registerProvider((c) => ((second = c), fake('p', () => [])))).toThrow(/already registered/)
    expect(second?.signal.aborted).toBe(true)
    expect(second?.signal.reason).toBeInstanceOf(Error)
    const boom = new Error('factory failed')
    let third: SkillProviderControl | undefined
    expect(() =>
      registry.registerProvider((c) => {
        third = c
        throw boom
      }),
    ).toThrow(boom)
    expect(third?.signal.reason).toBe(boom)
    expect(() => registry.registerProvider((() => ({ name: 'x', list: 1 })) as never)).toThrow(/list\(options\)/)
    // A refused scope option fails the registration after the factory ran: its signal aborts too.
    let fourth: SkillProviderControl | undefined
    let refused: unknown
    try {
      registry.registerProvider((c) => ((fourth = c), fake('q', () => [])), { scope: null as never })
    } catch (error) {
      refused = error
    }
    expect(refused).toBeInstanceOf(Error)
    expect(fourth?.signal.reason).toBe(refused)
  })

  it('rejects invalid config', () => {
    for (const bad of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '3']) {
      expect(() => new SkillRegistry({ collectCacheMaxEntries: bad as number })).toThrow(/collectCacheMaxEntries/)
    }
    expect(() => new SkillRegistry({ logger: {} as never })).toThrow(/logger/)
  })
})

describe('registry: runtime skills', () => {
  it('applies defaults, validates, and ignores duplicates with a warning and a no-op disposer', async () => {
    const log = recorder()
    const registry = new SkillRegistry({ logger: log.logger })
    const dispose = registry.register({ name: 'rt', description: 'Runtime', content: 'runtime body', source: 'runtime' })
    const duplicate = registry.register({ name: 'rt', description: 'Other', content: 'other', source: 'runtime' })
    expect(log.warnings.some((w) => w.includes('"rt"') && w.includes('already registered'))).toBe(true)
    duplicate()
    const loaded = await registry.get('rt')
    expect(loaded).toMatchObject({ name: 'rt', content: 'runtime body', provider: 'runtime', invocation: both })
    dispose()
    dispose()
    expect(await registry.get('rt')).toBeUndefined()
    expect(await registry.list()).toEqual([])
    expect(() => registry.register({ name: 'Bad Name', description: 'x', content: 'y', source: 'runtime' })).toThrow(/"name"/)
    expect(() => registry.register({ name: 'ok', description: '', content: 'y', source: 'runtime' })).toThrow(/"description"/)
    expect(() => registry.register({ name: 'ok', description: 'd', content: 'y', source: 'runtime', invocation: { modelInvocable: 'yes' } as never })).toThrow(/invocation\.modelInvocable/)
  })
})

describe('registry: JS providers', () => {
  it('passes the exact options object to list() and the exact candidate object to get()', async () => {
    const locator = Symbol('opaque')
    const listed = [candidate('p', 'one', 1, { locator, metadata: { k: 1 } })]
    const provider = fake('p', () => listed)
    const registry = new SkillRegistry({ logger: recorder().logger })
    registry.registerProvider(() => provider)
    const options = { cwd: '/project' }
    await registry.snapshot(options)
    expect(provider.lists[0]).toBe(options)
    const getOptions = { cwd: '/project' }
    const loaded = await registry.get('one', getOptions)
    expect(loaded?.content).toBe('body of one')
    expect(provider.gets[0].candidate).toBe(listed[0])
    expect(provider.gets[0].candidate.locator).toBe(locator)
    expect(provider.gets[0].options).toBe(getOptions)
  })

  it('accepts sync functions returning promises and explicit observations', async () => {
    const registry = new SkillRegistry({ logger: recorder().logger })
    const c = candidate('sync', 'from-sync', 5)
    registry.registerProvider(() => ({
      name: 'sync',
      list: () => Promise.resolve({ candidates: [c], complete: false }),
      get: (cand) => Promise.resolve(definition(cand, 'sync body')),
    }))
    const snapshot = await registry.snapshot()
    expect(snapshot.complete).toBe(false)
    expect(snapshot.skills.map((s) => s.name)).toEqual(['from-sync'])
    expect((await registry.get('from-sync'))?.content).toBe('sync body')
  })

  it('logs a rejected list() and returns an incomplete snapshot with the other providers', async () => {
    const log = recorder()
    const registry = new SkillRegistry({ logger: log.logger })
    registry.registerProvider(() => fake('good', () => [candidate('good', 'fine', 1)]))
    registry.registerProvider(() => ({ name: 'bad', list: async () => Promise.reject(new Error('network down')), get: async () => undefined }))
    registry.registerProvider(() => ({ name: 'throws', list: () => { throw new Error('sync throw') }, get: async () => undefined }))
    const snapshot = await registry.snapshot()
    expect(snapshot.complete).toBe(false)
    expect(snapshot.skills.map((s) => s.name)).toEqual(['fine'])
    expect(log.warnings.some((w) => w.includes('"bad"') && w.includes('network down'))).toBe(true)
    expect(log.warnings.some((w) => w.includes('"throws"') && w.includes('sync throw'))).toBe(true)
  })

  it('throws for malformed results, naming the provider and the field', async () => {
    const cases: Array<[unknown, RegExp]> = [
      [42, /"m".*list\(\) result/],
      [null, /"m".*list\(\) result/],
      [{ candidates: 'x', complete: true }, /candidates/],
      [{ candidates: [], complete: 'yes' }, /complete/],
      [[null], /"m".*index 0/],
      [[candidate('m', 'ok', 1), { ...candidate('m', 'x', 1), name: 'Not Kebab' }], /index 1.*"name"/],
      [[{ ...candidate('m', 'x', 1), description: '' }], /"description"/],
      [[{ ...candidate('m', 'x', 1), description: 3 }], /"description"/],
      [[{ ...candidate('m', 'x', 1), whenToUse: 3 }], /"whenToUse"/],
      [[{ ...candidate('m', 'x', 1), source: '' }], /"source"/],
      [[{ ...candidate('m', 'x', 1), provider: 'other' }], /"provider"/],
      [[{ ...candidate('m', 'x', 1), rank: Number.POSITIVE_INFINITY }], /"rank" must be a finite number \(got number Infinity\)/],
      [[{ ...candidate('m', 'x', 1), rank: Number.NaN }], /"rank" must be a finite number \(got number NaN\)/],
      [[{ ...candidate('m', 'x', 1), name: 7 }], /index 0.*"name" must be a kebab-case string \(got number 7\)/],
      [[{ ...candidate('m', 'x', 1), description: () => 'text' }], /"description" must be a non-empty string \(got function\)/],
      [[{ ...candidate('m', 'x', 1), resourceBase: 'dir' }], /"resourceBase" must be an object when present/],
      [[{ ...candidate('m', 'x', 1), metadata: [1] }], /"metadata" must be an object when present \(got array\)/],
      [{ candidates: [], complete: 1 }, /"complete" must be a boolean \(got number 1\)/],
      [[{ ...candidate('m', 'x', 1), rank: '1' }], /"rank"/],
      [[{ ...candidate('m', 'x', 1), invocation: { modelInvocable: true } }], /invocation\.userInvocable/],
      [[{ ...candidate('m', 'x', 1), resourceBase: { kind: 'directory' } }], /resourceBase\.path/],
      [[{ ...candidate('m', 'x', 1), path: 5 }], /"path"/],
      [[{ ...candidate('m', 'x', 1), metadata: 'meta' }], /"metadata"/],
    ]
    for (const [result, pattern] of cases) {
      const registry = new SkillRegistry({ logger: recorder().logger })
      registry.registerProvider(() => fake('m', () => result))
      await expect(registry.snapshot(), JSON.stringify(result)).rejects.toThrow(pattern)
    }
    const trap = () => {
      throw 'trapped'
    }
    for (const result of [
      Object.defineProperty({ complete: true }, 'candidates', { get: trap }),
      [Object.defineProperty({ ...candidate('m', 'x', 1) }, 'name', { get: trap })],
    ]) {
      const registry = new SkillRegistry({ logger: recorder().logger })
      registry.registerProvider(() => fake('m', () => result))
      await expect(registry.snapshot()).rejects.toThrow(/skill provider "m" list\(\) result cannot be read: trapped/)
    }
  })

  it('validates loaded definitions and rejects stale names by invalidating the provider', async () => {
    let loadedName = 'stale'
    let version = 0
    const provider = fake(
      'p',
      () => [candidate('p', 'stale', 1, { description: `v${version}` })],
      (c) => ({ ...definition(c), name: loadedName }),
    )
    const registry = new SkillRegistry({ logger: recorder().logger })
    registry.registerProvider(() => provider)
    let changes = 0
    registry.onChange(() => void changes++)
    expect((await registry.get('stale'))?.name).toBe('stale')
    loadedName = 'renamed'
    version = 1
    expect(await registry.get('stale')).toBeUndefined()
    expect(changes).toBe(1)
    // The invalidation dropped the cached catalog: the provider is listed again.
    expect((await registry.snapshot()).skills[0].description).toBe('v1')
    expect(provider.lists).toHaveLength(2)

    const broken = new SkillRegistry({ logger: recorder().logger })
    broken.registerProvider(() => fake('q', () => [candidate('q', 'x', 1)], (c) => ({ ...definition(c), content: 5 })))
    await expect(broken.get('x')).rejects.toThrow(/"q".*definition.*"content"/)
    const gone = new SkillRegistry({ logger: recorder().logger })
    gone.registerProvider(() => fake('g', () => [candidate('g', 'x', 1)], () => undefined))
    expect(await gone.get('x')).toBeUndefined()
    expect(await gone.get('Not A Name')).toBeUndefined()
    expect(await gone.get('unknown')).toBeUndefined()
  })
})

describe('registry: control, cache and generations', () => {
  it('aborts the control signal on disposal and makes invalidate inert afterwards', async () => {
    const registry = new SkillRegistry({ logger: recorder().logger })
    let control!: SkillProviderControl
    const provider = fake('p', () => [candidate('p', 'x', 1)])
    const dispose = registry.registerProvider((c) => ((control = c), provider))
    let changes = 0
    registry.onChange(() => void changes++)
    await registry.snapshot()
    control.invalidate()
    expect(changes).toBe(1)
    await registry.snapshot()
    expect(provider.lists).toHaveLength(2)
    dispose()
    expect(control.signal.aborted).toBe(true)
    expect(changes).toBe(2)
    dispose()
    expect(changes).toBe(2)
    control.invalidate()
    expect(changes).toBe(2)
    expect(await registry.list()).toEqual([])
    // A new registration with the same name is a different registration.
    registry.registerProvider(() => fake('p', () => []))
    control.invalidate()
    expect(changes).toBe(3)
  })

  it('invalidateProvider affects only the exact, still registered provider object', async () => {
    const registry = new SkillRegistry({ logger: recorder().logger })
    const provider = fake('p', () => [candidate('p', 'x', 1)])
    const dispose = registry.registerProvider(() => provider)
    let changes = 0
    registry.onChange(() => void changes++)
    await registry.snapshot()
    registry.invalidateProvider({ ...provider })
    await registry.snapshot()
    expect([changes, provider.lists.length]).toEqual([0, 1])
    registry.invalidateProvider(provider)
    await registry.snapshot()
    expect([changes, provider.lists.length]).toEqual([1, 2])
    dispose()
    registry.invalidateProvider(provider)
    expect(changes).toBe(2)
  })

  it('caches complete snapshots per cwd in a bounded LRU and never caches incomplete ones', async () => {
    let complete = true
    const provider = fake('p', () => ({ candidates: [candidate('p', 'x', 1)], complete }))
    const registry = new SkillRegistry({ collectCacheMaxEntries: 2, logger: recorder().logger })
    registry.registerProvider(() => provider)
    await registry.snapshot({ cwd: '/a' })
    await registry.snapshot({ cwd: '/a' })
    expect(provider.lists).toHaveLength(1)
    await registry.snapshot({ cwd: '/b' })
    await registry.snapshot({ cwd: '/a' }) // touch /a: /b is now least recent
    await registry.snapshot({ cwd: '/c' }) // evicts /b
    expect(provider.lists).toHaveLength(3)
    await registry.snapshot({ cwd: '/a' })
    await registry.snapshot({ cwd: '/c' })
    expect(provider.lists).toHaveLength(3)
    await registry.snapshot({ cwd: '/b' })
    expect(provider.lists).toHaveLength(4)
    complete = false
    registry.register({ name: 'bump', description: 'invalidates', content: '', source: 'runtime' })
    expect((await registry.snapshot({ cwd: '/a' })).complete).toBe(false)
    expect((await registry.snapshot({ cwd: '/a' })).complete).toBe(false)
    expect(provider.lists).toHaveLength(6)
  })

  it('retries once when the catalog changes during discovery, then returns incomplete and uncached', async () => {
    let control!: SkillProviderControl
    let invalidations = 1
    const provider: SkillProvider = {
      name: 'p',
      list: async () => {
        await Promise.resolve()
        if (invalidations > 0) {
          invalidations--
          control.invalidate()
        }
        return [candidate('p', 'x', 1)]
      },
      get: async () => undefined,
    }
    const registry = new SkillRegistry({ logger: recorder().logger })
    registry.registerProvider((c) => ((control = c), provider))
    // One change during discovery: the retry is stable and complete.
    const first = await registry.snapshot()
    expect(first.complete).toBe(true)
    // Changes on both attempts: the latest result, incomplete and uncached.
    invalidations = 2
    control.invalidate()
    const second = await registry.snapshot()
    expect(second.complete).toBe(false)
    expect(second.skills.map((s) => s.name)).toEqual(['x'])
    expect((await registry.snapshot()).complete).toBe(true)
  })

  it('returns copies: mutating a returned array does not change the cache', async () => {
    const registry = new SkillRegistry({ logger: recorder().logger })
    registry.register({ name: 'x', description: 'd', content: '', source: 'runtime' })
    const first = await registry.list()
    first.pop()
    expect(await registry.list()).toHaveLength(1)
  })
})

describe('registry: abort signals', () => {
  it('rejects with the exact reason, before discovery and on a cache hit', async () => {
    const provider = fake('p', () => [candidate('p', 'x', 1)])
    const registry = new SkillRegistry({ logger: recorder().logger })
    registry.registerProvider(() => provider)
    await registry.snapshot()
    const reason = new Error('caller gave up')
    const controller = new AbortController()
    controller.abort(reason)
    await expect(registry.snapshot({ signal: controller.signal })).rejects.toBe(reason)
    await expect(registry.get('x', { signal: controller.signal })).rejects.toBe(reason)
    expect(provider.gets).toHaveLength(0)
  })

  it('rejects with an Error for any abort reason: the reason itself, or an Error rendering it', async () => {
    const provider = fake('p', () => [candidate('p', 'x', 1)])
    const registry = new SkillRegistry({ logger: recorder().logger })
    registry.registerProvider(() => provider)
    const unrenderable = Object.create(null) as object
    const cases: Array<[unknown, string]> = [
      ['plain string reason', 'plain string reason'],
      [42, '42'],
      [{ toString: () => 'custom reason' }, 'custom reason'],
      [unrenderable, '[unrenderable thrown value]'],
    ]
    for (const [reason, message] of cases) {
      // Before discovery, on a cache hit, and while discovery is pending.
      for (const warm of [false, true]) {
        if (warm) await registry.snapshot()
        else provider.lists.length = 0
        const controller = new AbortController()
        controller.abort(reason)
        const rejection = registry.list({ signal: controller.signal }).then(
          () => undefined,
          (error: unknown) => error,
        )
        const error = await rejection
        expect(error).toBeInstanceOf(Error)
        expect((error as Error).message).toBe(message)
        const loading = await registry.get('x', { signal: controller.signal }).then(
          () => undefined,
          (e: unknown) => e,
        )
        expect((loading as Error).message).toBe(message)
      }
      const never = new SkillRegistry({ logger: recorder().logger })
      never.registerProvider(() => ({ name: 'hang', list: () => new Promise<never>(() => {}), get: async () => undefined }))
      const controller = new AbortController()
      const pending = never.snapshot({ signal: controller.signal }).then(
        () => undefined,
        (e: unknown) => e,
      )
      controller.abort(reason)
      const error = await pending
      expect(error).toBeInstanceOf(Error)
      expect((error as Error).message).toBe(message)
    }
  })

  it('a provider that never settles cannot hang an aborted caller (list and get)', async () => {
    const never = new Promise<never>(() => {})
    const registry = new SkillRegistry({ logger: recorder().logger })
    registry.registerProvider(() => ({ name: 'hang', list: () => never, get: () => never }))
    const controller = new AbortController()
    const pending = registry.snapshot({ signal: controller.signal })
    const reason = new Error('timeout')
    setTimeout(() => controller.abort(reason), 10)
    await expect(pending).rejects.toBe(reason)

    const loads = new SkillRegistry({ logger: recorder().logger })
    loads.registerProvider(() => ({ name: 'slow', list: async () => [candidate('slow', 'x', 1)], get: () => never }))
    const getController = new AbortController()
    const loading = loads.get('x', { signal: getController.signal })
    setTimeout(() => getController.abort(reason), 10)
    await expect(loading).rejects.toBe(reason)
  })

  it('a list() rejection caused by the abort surfaces the abort reason', async () => {
    const registry = new SkillRegistry({ logger: recorder().logger })
    registry.registerProvider(() => ({
      name: 'aware',
      list: (options) =>
        new Promise((_, reject) => options.signal?.addEventListener('abort', () => reject(new Error('aborted inside')))),
      get: async () => undefined,
    }))
    const controller = new AbortController()
    const pending = registry.snapshot({ signal: controller.signal })
    const reason = new Error('stop')
    controller.abort(reason)
    await expect(pending).rejects.toBe(reason)
  })
})

describe('registry: change listeners', () => {
  it('fire synchronously for every mutation and contain throwing or rejecting listeners', async () => {
    const log = recorder()
    const registry = new SkillRegistry({ logger: log.logger })
    const seen: string[] = []
    registry.onChange(() => {
      throw new Error('listener exploded')
    })
    registry.onChange(() => Promise.reject(new Error('listener rejected')))
    const off = registry.onChange(() => void seen.push('change'))
    let control!: SkillProviderControl
    const disposeProvider = registry.registerProvider((c) => ((control = c), fake('p', () => [])))
    expect(seen).toEqual(['change'])
    control.invalidate()
    expect(seen).toHaveLength(2)
    const disposeSkill = registry.register({ name: 'x', description: 'd', content: '', source: 'runtime' })
    expect(seen).toHaveLength(3)
    disposeSkill()
    expect(seen).toHaveLength(4)
    disposeProvider()
    expect(seen).toHaveLength(5)
    off()
    registry.register({ name: 'y', description: 'd', content: '', source: 'runtime' })
    expect(seen).toHaveLength(5)
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(log.warnings.filter((w) => w.includes('listener exploded')).length).toBe(6)
    expect(log.warnings.filter((w) => w.includes('listener rejected')).length).toBe(6)
    // The mutations happened despite the listeners.
    expect((await registry.list()).map((s) => s.name)).toEqual(['y'])
  })
})

describe('native safety', () => {
  it('an unused registry holding JS callbacks does not keep Node alive', () => {
    const script = `
      const { SkillRegistry } = require(${JSON.stringify(path.resolve(__dirname, '..', 'index.js'))})
      const registry = new SkillRegistry({ logger: { warn() {} } })
      registry.registerProvider(() => ({ name: 'js', list: async () => [], get: async () => undefined }))
      registry.onChange(() => {})
      registry.snapshot().then((s) => console.log('listed', s.skills.length))
    `
    const result = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 20_000, env: { ...process.env, RUST_BACKTRACE: '0' } })
    expect(result.error).toBeUndefined()
    expect(result.status).toBe(0)
    expect(result.stdout).toContain('listed 0')
  })

  it('a registry nothing refers to any more is collected, with the local provider it registered', () => {
    // The native half holds a callback into the registry (a global handle): it
    // must not keep the registry, and so the native half itself, alive.
    const script = `
      const { SkillRegistry } = require(${JSON.stringify(path.resolve(__dirname, '..', 'index.js'))})
      const gone = new Set()
      const finalized = new FinalizationRegistry((what) => gone.add(what))
      async function cycle(i) {
        const registry = new SkillRegistry({ logger: { warn() {} }, scopes: { scopeChainOf: (key) => [key] } })
        const provider = registry.registerLocalProvider({ includeDefaultRoots: false, customSkillDirs: [${JSON.stringify(os.tmpdir())}] })
        registry.registerProvider(() => ({ name: 'js', list: async () => [], get: async () => undefined }), { scope: {} })
        registry.onChange(() => {})
        await registry.snapshot({ cwd: ${JSON.stringify(os.tmpdir())} })
        await provider.dispose()
        finalized.register(registry, 'registry ' + i)
        finalized.register(provider, 'provider ' + i)
      }
      ;(async () => {
        for (let i = 0; i < 20; i++) await cycle(i)
        for (let round = 0; round < 50 && gone.size < 40; round++) {
          await new Promise((resolve) => setTimeout(resolve, 10))
          globalThis.gc()
        }
        console.log('collected', gone.size)
      })()
    `
    const result = spawnSync(process.execPath, ['--expose-gc', '-e', script], { encoding: 'utf8', timeout: 60_000 })
    expect(result.stderr).toBe('')
    // Every one of them, give or take the last few a conservative scan may still see.
    const collected = Number(/collected (\d+)/.exec(result.stdout)?.[1])
    expect(collected).toBeGreaterThanOrEqual(36)
  })
})

describe('registry: thrown values are made total', () => {
  it('renders what providers and listeners throw, without throwing while rendering', async () => {
    const log = recorder()
    const registry = new SkillRegistry({ logger: log.logger })
    const thrown: unknown[] = [{ toString: () => 'custom failure' }, Object.create(null), 'plain failure', Symbol('sym')]
    thrown.forEach((value, i) => {
      registry.registerProvider(() => ({ name: `bad-${i}`, list: () => Promise.reject(value), get: async () => undefined }))
    })
    registry.onChange(() => {
      throw Object.create(null)
    })
    const snapshot = await registry.snapshot()
    expect(snapshot.complete).toBe(false)
    expect(log.warnings.some((w) => w.includes('"bad-0"') && w.endsWith('custom failure'))).toBe(true)
    expect(log.warnings.some((w) => w.includes('"bad-1"') && w.endsWith('[unrenderable thrown value]'))).toBe(true)
    expect(log.warnings.some((w) => w.includes('"bad-2"') && w.endsWith('plain failure'))).toBe(true)
    expect(log.warnings.some((w) => w.includes('"bad-3"') && w.endsWith('Symbol(sym)'))).toBe(true)
    expect(log.warnings.some((w) => w.includes('[object Object]'))).toBe(false)
    registry.register({ name: 'x', description: 'd', content: '', source: 'runtime' })
    expect(log.warnings.some((w) => w.includes('listener threw: [unrenderable thrown value]'))).toBe(true)
  })

  it('turns a non-Error thrown by a factory or a get() into an Error', async () => {
    const registry = new SkillRegistry({ logger: recorder().logger })
    let control: SkillProviderControl | undefined
    let caught: unknown
    try {
      registry.registerProvider((c) => {
        control = c
        throw 'factory failed'
      })
    } catch (error) {
      caught = error
    }
    expect(caught).toBeInstanceOf(Error)
    expect((caught as Error).message).toBe('factory failed')
    expect(control?.signal.reason).toBe(caught)
    registry.registerProvider(() => fake('p', () => [candidate('p', 'x', 1)], () => Promise.reject({ toString: () => 'load failed' })))
    const error = await registry.get('x').then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(Error)
    expect((error as Error).message).toBe('load failed')
  })
})

describe('registry: summaries', () => {
  it('are fresh, plain, mutable objects per lookup that keep the nested objects JS supplied', async () => {
    const invocation = { modelInvocable: true, userInvocable: false }
    const resourceBase = { kind: 'url' as const, url: 'https://example.test/skills/' }
    const metadata = { team: 'core' }
    const listed = [candidate('p', 'remote', 1, { invocation, resourceBase, whenToUse: 'when remote', metadata, path: '/x' })]
    const registry = new SkillRegistry({ logger: recorder().logger })
    registry.registerProvider(() => fake('p', () => listed))
    const runtimeInvocation = { modelInvocable: false, userInvocable: true }
    const runtimeBase = { kind: 'opaque' as const, description: 'built in' }
    const runtimeMetadata = { origin: 'test' }
    const registration = { name: 'local-one', description: 'Runtime', content: 'body', source: 'runtime', invocation: runtimeInvocation, resourceBase: runtimeBase, metadata: runtimeMetadata }
    registry.register(registration)
    registry.register({ name: 'plain-runtime', description: 'Defaults', content: 'body' })

    const first = await registry.list({ cwd: '/w' })
    const second = await registry.list({ cwd: '/w' })
    expect(first).not.toBe(second)
    const [a, b, c] = first
    expect(a).toEqual({ name: 'local-one', description: 'Runtime', invocation: runtimeInvocation, source: 'runtime', provider: 'runtime', resourceBase: runtimeBase })
    expect(Object.keys(c)).toEqual(['name', 'description', 'whenToUse', 'invocation', 'source', 'provider', 'resourceBase'])
    expect(b).toEqual({ name: 'plain-runtime', description: 'Defaults', invocation: { modelInvocable: true, userInvocable: true }, source: 'runtime', provider: 'runtime' })
    for (const summary of first) {
      expect(Object.isFrozen(summary)).toBe(false)
      expect(Object.getPrototypeOf(summary)).toBe(Object.prototype)
      expect(second.find((s) => s.name === summary.name)).not.toBe(summary)
    }
    // Nested objects supplied by a JS provider or a registration keep their identity.
    expect(c.invocation).toBe(invocation)
    expect(c.resourceBase).toBe(resourceBase)
    expect(a.invocation).toBe(runtimeInvocation)
    expect(a.resourceBase).toBe(runtimeBase)
    expect((await registry.get('local-one'))?.metadata).toBe(runtimeMetadata)
    expect((await registry.get('local-one'))?.invocation).toBe(runtimeInvocation)
    // A default invocation is fresh per lookup.
    expect(b.invocation).not.toBe(second[1].invocation)
    // Strict-mode code may annotate and change a summary; later lookups do not see it.
    const annotated = a as unknown as Record<string, unknown>
    annotated.seen = true
    annotated.description = 'changed'
    ;(b.invocation as { modelInvocable: boolean }).modelInvocable = false
    first.reverse()
    const third = await registry.list({ cwd: '/w' })
    expect(third.map((s) => s.name)).toEqual(['local-one', 'plain-runtime', 'remote'])
    expect(third[0]).not.toHaveProperty('seen')
    expect(third[0].description).toBe('Runtime')
    expect(third[1].invocation.modelInvocable).toBe(true)
    // Runtime definitions are fresh too.
    const loaded = await registry.get('local-one')
    expect(loaded).not.toBe(await registry.get('local-one'))
    expect(Object.isFrozen(loaded)).toBe(false)
  })

  it('of native winners have fresh nested objects too', async () => {
    const home = dirs.make()
    write(path.join(home, '.dsh', 'skills', 'bundle', 'SKILL.md'), skillFile('bundle', 'A bundle'))
    write(path.join(home, '.dsh', 'skills', 'flat.md'), skillFile('flat', 'A flat skill'))
    const registry = new SkillRegistry({ logger: recorder().logger })
    const local = registry.registerLocalProvider({ dshHome: path.join(home, '.dsh'), agentsHome: path.join(home, '.agents'), watch: false })
    try {
      const first = await registry.list()
      expect(first.map((s) => s.name)).toEqual(['bundle', 'flat'])
      expect(first[0].resourceBase).toEqual({ kind: 'directory', path: path.join(home, '.dsh', 'skills', 'bundle') })
      ;(first[0].invocation as { modelInvocable: boolean }).modelInvocable = false
      ;(first[0].resourceBase as { path: string }).path = '/elsewhere'
      ;(first[1] as { description: string }).description = 'changed'
      const second = await registry.list()
      expect(second[0].invocation).toEqual({ modelInvocable: true, userInvocable: true })
      expect(second[0].resourceBase).toEqual({ kind: 'directory', path: path.join(home, '.dsh', 'skills', 'bundle') })
      expect(second[1].description).toBe('A flat skill')
      expect(second[0].invocation).not.toBe(first[0].invocation)
      expect(Object.isFrozen(second[0])).toBe(false)
    } finally {
      await local.dispose()
    }
  })

  it('pass through a resourceBase of an unknown kind, from a provider or register()', async () => {
    const odd = { kind: 'ftp', host: 'files.example' }
    const registry = new SkillRegistry({ logger: recorder().logger })
    registry.registerProvider(() => fake('p', () => [candidate('p', 'odd', 1, { resourceBase: odd }), candidate('p', 'kindless', 1, { resourceBase: {} })], (c) => ({ ...definition(c), resourceBase: c.resourceBase })))
    const snapshot = await registry.snapshot()
    expect(snapshot.complete).toBe(true)
    expect(snapshot.skills.find((s) => s.name === 'odd')?.resourceBase).toBe(odd)
    expect((await registry.get('odd'))?.resourceBase).toBe(odd)
    // register() accepts it too (it used to refuse it); only the tool result
    // refuses an unknown kind.
    const oddRuntime = { kind: 'ftp', host: 'runtime.example' }
    registry.register({ name: 'rt', description: 'd', content: 'body', source: 'runtime', resourceBase: oddRuntime as never })
    expect((await registry.list()).find((s) => s.name === 'rt')?.resourceBase).toBe(oddRuntime)
    expect((await registry.get('rt'))?.resourceBase).toBe(oddRuntime)
    expect(() => registry.register({ name: 'rt-url', description: 'd', content: '', resourceBase: { kind: 'url' } as never })).toThrow(
      /"resourceBase\.url" must be a string/,
    )
    // A known kind still needs its field.
    const broken = new SkillRegistry({ logger: recorder().logger })
    broken.registerProvider(() => fake('q', () => [candidate('q', 'x', 1, { resourceBase: { kind: 'url' } })]))
    await expect(broken.snapshot()).rejects.toThrow(/"resourceBase\.url" must be a string/)
  })

  it('accept a description that is only whitespace', async () => {
    const registry = new SkillRegistry({ logger: recorder().logger })
    registry.registerProvider(() => fake('p', () => [candidate('p', 'blank', 1, { description: ' \n\t ' })]))
    registry.register({ name: 'blank-runtime', description: '   ', content: '', source: 'runtime' })
    const skills = await registry.list()
    expect(skills.map((s) => [s.name, s.description])).toEqual([
      ['blank', ' \n\t '],
      ['blank-runtime', '   '],
    ])
    expect(() => registry.register({ name: 'empty', description: '', content: '', source: 'runtime' })).toThrow(/"description"/)
  })

  it('survive a candidate getter that re-enters the registry while its list is read', async () => {
    const registry = new SkillRegistry({ logger: recorder().logger })
    const listed = [candidate('p', 'first', 1), candidate('p', 'second', 2), candidate('p', 'third', 3)]
    let reentered = false
    Object.defineProperty(listed[1], 'description', {
      enumerable: true,
      get() {
        if (!reentered) {
          reentered = true
          registry.register({ name: 'from-getter', description: 'registered while packing', content: '', source: 'runtime' })
        }
        return 'second via p'
      },
    })
    registry.registerProvider(() => fake('p', () => listed))
    const { skills } = await registry.snapshot()
    expect(reentered).toBe(true)
    expect(skills.map((s) => [s.name, s.description])).toEqual([
      ['first', 'first via p'],
      ['from-getter', 'registered while packing'],
      ['second', 'second via p'],
      ['third', 'third via p'],
    ])
  })

  it('stay linear for large provider results (30,000 candidates)', async () => {
    const many: SkillCandidate[] = []
    for (let i = 0; i < 30_000; i++) many.push(candidate('big', `skill-${i}`, i % 7, { description: `Skill ${i} \u00e9 \u{1F600}` }))
    const registry = new SkillRegistry({ logger: recorder().logger })
    registry.registerProvider(() => fake('big', () => many))
    const skills = await registry.list()
    expect(skills).toHaveLength(30_000)
    const names = skills.map((s) => s.name)
    expect(names).toEqual(many.map((c) => c.name).sort())
    many[20_000] = { ...many[20_000], name: 'Bad Name' }
    const broken = new SkillRegistry({ logger: recorder().logger })
    broken.registerProvider(() => fake('big', () => many))
    await expect(broken.snapshot()).rejects.toThrow(/"big".*index 20000.*"name"/)
  })
})

describe('registry: the native catalog behind a returned array', () => {
  it('holds every winner\'s name, description and invocation, and renders as the packed summaries do', async () => {
    const registry = new SkillRegistry({ logger: recorder().logger })
    const hidden = { modelInvocable: false, userInvocable: true }
    registry.registerProvider(() =>
      fake('p', () => [
        candidate('p', 'zeta', 1, { description: 'Zeta & <co>,\n  caf\u00e9 \u{1F600} lone \ud800 end' }),
        candidate('p', 'hidden', 1, { invocation: hidden }),
        candidate('p', 'alpha', 1),
      ]),
    )
    registry.register({ name: 'middle', description: 'From runtime', content: '', source: 'runtime' })
    const { skills } = await registry.snapshot()
    const source = catalogSourceOf(skills)
    expect(source).toBeDefined()
    expect(source!.summaries).toEqual([
      { name: 'alpha', description: 'alpha via p', invocation: { modelInvocable: true } },
      { name: 'hidden', description: 'hidden via p', invocation: { modelInvocable: false } },
      { name: 'middle', description: 'From runtime', invocation: { modelInvocable: true } },
      { name: 'zeta', description: 'Zeta & <co>,\n  caf\u00e9 \u{1F600} lone \ud800 end', invocation: { modelInvocable: true } },
    ])
    expect(Object.isFrozen(source!.summaries)).toBe(true)
    expect(source!.catalog.modelEntries()).toEqual([
      ['alpha', 'alpha via p'],
      ['middle', 'From runtime'],
      ['zeta', 'Zeta & <co>,\n  caf\u00e9 \u{1F600} lone \ufffd end'],
    ])
    // Every lookup's array comes from the same cached catalog.
    expect(catalogSourceOf(await registry.list())?.catalog).toBe(source!.catalog)
    expect(catalogSourceOf([...skills])).toBeUndefined()
    expect(catalogSourceOf(undefined)).toBeUndefined()
    // Rendering from the native catalog gives the bytes packing the same summaries gives.
    const copies = skills.map((s) => ({ ...s }))
    expect(pkg.renderCatalog(skills, { maxLength: 20 })).toEqual(pkg.renderCatalog(copies, { maxLength: 20 }))
    expect(pkg.renderCatalog(await registry.list())).toEqual(pkg.renderCatalog(copies))
  })

  it('keeps the values it was built from when a provider changes its candidates later', async () => {
    const listed = [candidate('p', 'alpha', 1)]
    const registry = new SkillRegistry({ logger: recorder().logger })
    registry.registerProvider(() => fake('p', () => listed))
    const first = await registry.list()
    ;(listed[0] as { description: string }).description = 'rewritten by the provider'
    const source = catalogSourceOf(first)
    expect(source!.summaries[0]).toMatchObject({ name: 'alpha', description: 'alpha via p' })
    expect(source!.catalog.modelEntries()).toEqual([['alpha', 'alpha via p']])
    // A later lookup reads the provider's object: the renderer sees the change
    // against the summaries the catalog was built from, and packs instead.
    const later = await registry.list()
    expect(later[0].description).toBe('rewritten by the provider')
    expect(pkg.renderCatalog(later).entries).toBe('- `alpha`: rewritten by the provider')
  })
})

describe('registry: lookups never hang on a provider that is gone or too slow', () => {
  const never = () => new Promise<never>(() => {})

  it('disposing a registration releases the lookups waiting on it: they collect again without it, complete', async () => {
    const registry = new SkillRegistry({ logger: recorder().logger })
    registry.registerProvider(() => fake('good', () => [candidate('good', 'fine', 1)]))
    let listed!: () => void
    const started = new Promise<void>((resolve) => (listed = resolve))
    const dispose = registry.registerProvider(() => ({
      name: 'hang',
      list: () => {
        listed()
        return never()
      },
      get: never,
    }))
    const pending = registry.snapshot({ cwd: '/w' })
    const joined = registry.list({ cwd: '/w' })
    await started
    dispose()
    // The lookup stops waiting, collects again on the registrations left, and
    // is complete (it used to end incomplete, without a retry).
    const snapshot = await pending
    expect(snapshot).toEqual({ skills: [expect.objectContaining({ name: 'fine' })], complete: true })
    expect((await joined).map((s) => s.name)).toEqual(['fine'])
    expect((await registry.snapshot({ cwd: '/w' })).complete).toBe(true)

    const loads = new SkillRegistry({ logger: recorder().logger })
    let loading!: () => void
    const getStarted = new Promise<void>((resolve) => (loading = resolve))
    const disposeLoads = loads.registerProvider(() => ({
      name: 'slow',
      list: async () => [candidate('slow', 'x', 1)],
      get: () => {
        loading()
        return never()
      },
    }))
    const definition = loads.get('x')
    await getStarted
    disposeLoads()
    expect(await definition).toBeUndefined()
  })

  it('providerTimeoutMs abandons a pending list() or get() with a warning', async () => {
    const log = recorder()
    const registry = new SkillRegistry({ providerTimeoutMs: 20, logger: log.logger })
    registry.registerProvider(() => fake('good', () => [candidate('good', 'fine', 1)]))
    let hang = true
    registry.registerProvider(() => ({
      name: 'slow',
      list: () => (hang ? never() : Promise.resolve([candidate('slow', 'late', 1)])),
      get: never,
    }))
    const snapshot = await registry.snapshot()
    expect(snapshot.complete).toBe(false)
    expect(snapshot.skills.map((s) => s.name)).toEqual(['fine'])
    expect(log.warnings.some((w) => w.includes('"slow"') && w.includes('20 ms'))).toBe(true)
    hang = false
    expect((await registry.snapshot()).complete).toBe(true)
    expect(await registry.get('late')).toBeUndefined()
    expect(log.warnings.some((w) => w.includes('"slow"') && w.includes('"late"') && w.includes('20 ms'))).toBe(true)
  })

  it('validates providerTimeoutMs like collectCacheMaxEntries', () => {
    for (const bad of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 31, '5', null]) {
      expect(() => new SkillRegistry({ providerTimeoutMs: bad as number })).toThrow(/providerTimeoutMs/)
    }
    expect(() => new SkillRegistry({ providerTimeoutMs: 2 ** 31 - 1, logger: recorder().logger })).not.toThrow()
  })
})

describe('registry: concurrent identical lookups share one provider call', () => {
  it('10,000 concurrent snapshots call list() once', async () => {
    const provider = fake('p', () => [candidate('p', 'x', 1), candidate('p', 'y', 2)])
    const registry = new SkillRegistry({ logger: recorder().logger })
    registry.registerProvider(() => provider)
    const options = { cwd: '/w' }
    const lookups = []
    for (let i = 0; i < 10_000; i++) lookups.push(registry.snapshot(i === 0 ? options : { cwd: '/w' }))
    lookups.push(registry.get('y', { cwd: '/w' }))
    const results = await Promise.all(lookups)
    expect(provider.lists).toHaveLength(1)
    expect(provider.lists[0]).toBe(options)
    const snapshots = results.slice(0, -1) as Array<{ skills: unknown[] }>
    expect(new Set(snapshots.map((s) => s.skills)).size).toBe(10_000)
    expect(snapshots[9_999]).toEqual(snapshots[0])
    expect(results.at(-1)).toMatchObject({ name: 'y', content: 'body of y' })
    // Another cwd is another lookup.
    await registry.snapshot({ cwd: '/other' })
    expect(provider.lists).toHaveLength(2)
  })

  it('a caller that aborts never degrades the result of the others', async () => {
    let calls = 0
    const gates: Array<() => void> = []
    const seen: SkillLookupOptions[] = []
    const provider: SkillProvider = {
      name: 'p',
      list: (options) => {
        calls++
        seen.push(options)
        return new Promise((resolve, reject) => {
          // Honours its signal the way a remote provider would.
          options.signal?.addEventListener('abort', () => reject(new Error('aborted by caller')))
          gates.push(() => resolve([candidate('p', 'x', 1)]))
        })
      },
      get: async () => undefined,
    }
    const log = recorder()
    const registry = new SkillRegistry({ logger: log.logger })
    registry.registerProvider(() => provider)

    // The first caller leads: the provider works with its options.
    const leader = new AbortController()
    const leading = registry.snapshot({ cwd: '/w', signal: leader.signal })
    const follower = new AbortController()
    const following = registry.snapshot({ cwd: '/w', signal: follower.signal })
    const plain = registry.snapshot({ cwd: '/w' })
    await Promise.resolve()
    await Promise.resolve()
    expect(calls).toBe(1)
    const reason = new Error('leader gave up')
    leader.abort(reason)
    await expect(leading).rejects.toBe(reason)
    // The others started a new call with one of their own options objects.
    while (calls < 2) await new Promise((resolve) => setImmediate(resolve))
    expect([following, plain].length).toBe(2)
    expect(seen[1]).not.toBe(seen[0])
    expect(seen[1].signal?.aborted ?? false).toBe(false)
    gates[1]()
    expect(await following).toEqual({ skills: [expect.objectContaining({ name: 'x' })], complete: true })
    expect((await plain).complete).toBe(true)
    expect(log.warnings.some((w) => w.includes('aborted by caller'))).toBe(false)

    // A follower aborting changes nothing for the leader.
    registry.invalidateProvider(provider)
    const second = new AbortController()
    const first = registry.snapshot({ cwd: '/w' })
    const quitting = registry.snapshot({ cwd: '/w', signal: second.signal })
    while (calls < 3) await new Promise((resolve) => setImmediate(resolve))
    second.abort('quit')
    await expect(quitting).rejects.toThrow('quit')
    gates[2]()
    expect((await first).complete).toBe(true)
    expect(calls).toBe(3)
  })
})

describe('registry: a disposed native provider cannot be registered again', () => {
  it('throws, aborts the control signal and leaves the registry as it was', async () => {
    const home = dirs.make()
    write(path.join(home, '.dsh', 'skills', 'one.md'), skillFile('one', 'One'))
    const config = { dshHome: path.join(home, '.dsh'), agentsHome: path.join(home, '.agents'), watch: false }
    const registry = new SkillRegistry({ logger: recorder().logger })
    const local = registry.registerLocalProvider(config)
    expect((await registry.list()).map((s) => s.name)).toEqual(['one'])
    await local.dispose()
    expect(await registry.list()).toEqual([])
    let control: SkillProviderControl | undefined
    let changes = 0
    registry.onChange(() => void changes++)
    expect(() => registry.registerProvider((c) => ((control = c), local))).toThrow(
      'skill provider "local" was disposed and cannot be registered again (create a new provider)',
    )
    expect(control?.signal.aborted).toBe(true)
    expect(changes).toBe(0)
    expect(await registry.snapshot()).toEqual({ skills: [], complete: true })
    // A provider created on its own and disposed before registering: refused too.
    const alone = new pkg.LocalSkillProvider(config)
    await alone.dispose()
    expect(() => registry.registerProvider(() => alone)).toThrow(/was disposed and cannot be registered again/)
    // A new provider over the same roots serves them.
    const fresh = registry.registerLocalProvider(config)
    expect((await registry.list()).map((s) => s.name)).toEqual(['one'])
    await fresh.dispose()
  })
})

describe('registry: malformed list() results are refused before they cost', () => {
  it('checks the shape first (complete before candidates, at most 1,000,000 candidates)', async () => {
    const cases: Array<[() => unknown, RegExp]> = [
      [() => new Array(10_000_000), /"m" returned an invalid list\(\) result: 10000000 candidates, more than the 1000000 one list\(\) result may hold$/],
      [() => ({ candidates: new Array(50_000_000) }), /"m" returned an invalid list\(\) result: "complete" must be a boolean \(got undefined\)$/],
      [() => ({ candidates: 'x' }), /"complete" must be a boolean \(got undefined\)$/],
      [() => ({ candidates: new Array(2_000_000), complete: true }), /"candidates" has 2000000 items, more than the 1000000 candidates one list\(\) result may hold$/],
      [() => new Array(500_000), /"m" returned an invalid candidate at index 0: must be an object \(got undefined\)$/],
    ]
    for (const [result, pattern] of cases) {
      const registry = new SkillRegistry({ logger: recorder().logger })
      registry.registerProvider(() => fake('m', result))
      await expect(registry.snapshot(), String(pattern)).rejects.toThrow(pattern)
    }
  })

  it('reports the first bad candidate and reads nothing after one that is not an object', async () => {
    const reads: number[] = []
    const items: unknown[] = [candidate('m', 'fine', 1), undefined, { ...candidate('m', 'x', 1), name: 'Bad Name' }, null]
    const watched = new Proxy(items, {
      get(target, key, receiver) {
        if (typeof key === 'string' && /^\d+$/.test(key)) reads.push(Number(key))
        return Reflect.get(target, key, receiver)
      },
    })
    const registry = new SkillRegistry({ logger: recorder().logger })
    registry.registerProvider(() => fake('m', () => watched))
    await expect(registry.snapshot()).rejects.toThrow(/"m" returned an invalid candidate at index 1: must be an object \(got undefined\)$/)
    expect(reads).toEqual([0, 1])

    const fields = new SkillRegistry({ logger: recorder().logger })
    fields.registerProvider(() =>
      fake('m', () => [candidate('m', 'fine', 1), { ...candidate('m', 'x', 1), name: 'Bad Name' }, { ...candidate('m', 'y', 1), rank: 'high' }]),
    )
    await expect(fields.snapshot()).rejects.toThrow(/"m" returned an invalid candidate at index 1: "name" must be a kebab-case skill name \(got "Bad Name"\)$/)
    // The registry stays usable: a later valid result is served.
    const fine = new SkillRegistry({ logger: recorder().logger })
    let bad = true
    fine.registerProvider(() => fake('m', () => (bad ? new Array(10) : [candidate('m', 'ok', 1)])))
    await expect(fine.snapshot()).rejects.toThrow(/index 0/)
    bad = false
    expect((await fine.list()).map((s) => s.name)).toEqual(['ok'])
  })
})

describe('registry: spellings of one cwd share one lookup', () => {
  it('/tmp, /tmp/, /tmp/. and /tmp/../tmp share one list() call and one cached catalog', async () => {
    const provider = fake('p', () => [candidate('p', 'x', 1)])
    const registry = new SkillRegistry({ logger: recorder().logger })
    registry.registerProvider(() => provider)
    const spellings = ['/tmp', '/tmp/', '/tmp/.', '/tmp/../tmp']
    const options = spellings.map((cwd) => ({ cwd }))
    const snapshots = await Promise.all(options.map((o) => registry.snapshot(o)))
    expect(provider.lists).toHaveLength(1)
    // The provider received the leading caller's options object, untouched.
    expect(provider.lists[0]).toBe(options[0])
    expect(provider.lists[0]).toEqual({ cwd: '/tmp' })
    expect(snapshots.every((s) => s.complete && s.skills[0].name === 'x')).toBe(true)
    for (const cwd of [...spellings, '/tmp/sub/..', '/tmp//']) await registry.snapshot({ cwd })
    expect(provider.lists).toHaveLength(1)
    // Another directory is another lookup.
    await registry.snapshot({ cwd: '/tmpx' })
    expect(provider.lists).toHaveLength(2)
    // A relative cwd is resolved against the process's working directory.
    await registry.snapshot({ cwd: process.cwd() })
    await registry.snapshot({ cwd: '.' })
    expect(provider.lists).toHaveLength(3)
    expect(provider.lists[2]).toEqual({ cwd: process.cwd() })
  })
})
