import { describe, expect, it } from 'vitest'
import { spawnSync } from 'node:child_process'
import path from 'node:path'
import type { SkillCandidate, SkillDefinition, SkillLookupOptions, SkillProvider, SkillProviderControl } from '../index'
import { pkg, recorder } from './helpers'

const { SkillRegistry, isSkillName, isModelInvocable, isUserInvocable } = pkg

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
      [[{ ...candidate("m", "x", 1), rank: Number.POSITIVE_INFINITY }], /"rank".*non-finite/],
      [[{ ...candidate('m', 'x', 1), rank: '1' }], /"rank"/],
      [[{ ...candidate('m', 'x', 1), invocation: { modelInvocable: true } }], /invocation\.userInvocable/],
      [[{ ...candidate('m', 'x', 1), resourceBase: { kind: 'directory' } }], /resourceBase\.path/],
      [[{ ...candidate('m', 'x', 1), resourceBase: { kind: 'ftp' } }], /resourceBase\.kind/],
      [[{ ...candidate('m', 'x', 1), path: 5 }], /"path"/],
      [[{ ...candidate('m', 'x', 1), metadata: 'meta' }], /"metadata"/],
    ]
    for (const [result, pattern] of cases) {
      const registry = new SkillRegistry({ logger: recorder().logger })
      registry.registerProvider(() => fake('m', () => result))
      await expect(registry.snapshot(), JSON.stringify(result)).rejects.toThrow(pattern)
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
    expect(Object.isFrozen((await registry.list())[0])).toBe(true)
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
