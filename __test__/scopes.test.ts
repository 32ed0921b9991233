import { afterAll, describe, expect, it } from 'vitest'
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import fs from 'node:fs'
import path from 'node:path'
import type { SkillCandidate, SkillDefinition, SkillLookupOptions, SkillProvider, SkillProviderControl, SkillScopeResolver } from '../index'
import { pkg, recorder, skillFile, tempDirs, write } from './helpers'

const dirs = tempDirs('dsh-scopes-')
afterAll(() => dirs.cleanup())

const require = createRequire(import.meta.url)
const { SkillRegistry } = pkg

/** The stand-in for `@deepseek-ai/dsh-scope` (the tests run offline; the real package is on npm). */
const STAND_INS = path.join(__dirname, 'stand-ins')
const scopes = require('./stand-ins/@deepseek-ai/dsh-scope') as typeof import('./stand-ins/@deepseek-ai/dsh-scope')
const { createScope, relink, scopeChainOf, scopeOf, assignScope } = scopes

const both = { modelInvocable: true, userInvocable: true }

function candidate(provider: string, name: string, rank: number, description = `${name} via ${provider}`): SkillCandidate {
  return { name, description, invocation: both, source: 'test', provider, rank, locator: name }
}

interface FakeProvider extends SkillProvider {
  lists: SkillLookupOptions[]
  loads: string[]
}

function fake(name: string, listed: () => SkillCandidate[]): FakeProvider {
  const provider: FakeProvider = {
    name,
    lists: [],
    loads: [],
    list: async (options) => {
      provider.lists.push(options)
      return listed()
    },
    get: async (c) => {
      provider.loads.push(c.name)
      return { ...c, content: `body of ${c.name} from ${name}` } as SkillDefinition
    },
  }
  return provider
}

function registry(extra: Record<string, unknown> = {}) {
  const log = recorder()
  return { log, skills: new SkillRegistry({ logger: log.logger, scopes, ...extra }) }
}

const names = (skills: ReadonlyArray<{ name: string }>) => skills.map((s) => s.name)
const by = <T extends { name: string }>(skills: readonly T[], name: string) => skills.find((s) => s.name === name)

describe('scopes: layers per scope key', () => {
  it('the nearest layer wins a name outright; rank decides only inside a layer; no scope = the global layer', async () => {
    const { skills, log } = registry()
    const preset = createScope({ name: 'reviewer' })
    const agent = createScope({ name: 'agent-1', parent: preset })
    skills.registerProvider(() => fake('team', () => [candidate('team', 'shared', 1), candidate('team', 'global-only', 1)]))
    skills.registerProvider(() => fake('team', () => [candidate('team', 'shared', 900), candidate('team', 'dup', 50), candidate('team', 'dup', 40)]), { scope: preset })
    skills.registerProvider(() => fake('mine', () => [candidate('mine', 'dup', 999)]), { scope: agent })

    const view = await skills.snapshot({ cwd: '/w', scope: agent })
    expect(view.complete).toBe(true)
    expect(names(view.skills)).toEqual(['dup', 'global-only', 'shared'])
    // The agent's own layer wins `dup` over the preset's better ranks; the
    // preset's `shared` (rank 900) wins over the global rank 1.
    expect(by(view.skills, 'dup')).toMatchObject({ provider: 'mine', description: 'dup via mine' })
    expect(by(view.skills, 'shared')).toMatchObject({ provider: 'team', description: 'shared via team' })
    expect((await skills.get('shared', { cwd: '/w', scope: agent }))?.content).toBe('body of shared from team')

    const presetView = await skills.snapshot({ cwd: '/w', scope: preset })
    expect(names(presetView.skills)).toEqual(['dup', 'global-only', 'shared'])
    // Inside the preset's layer, rank 40 beats 50.
    expect(by(presetView.skills, 'dup')?.description).toBe('dup via team')
    // A shadowed duplicate inside a layer is warned about; a nearer layer
    // taking a name is not.
    expect(log.warnings.filter((w) => w.includes('shadowed'))).toHaveLength(1)
    expect(log.warnings.some((w) => w.includes('"dup"') && w.includes('rank 50'))).toBe(true)

    // Without a scope: the global layer alone, as a registry without scopes.
    const global = await skills.snapshot({ cwd: '/w' })
    expect(names(global.skills)).toEqual(['global-only', 'shared'])
    expect(by(global.skills, 'shared')?.provider).toBe('team')
    expect(await skills.get('dup', { cwd: '/w' })).toBeUndefined()
  })

  it('loads the winner of the scope\'s view, resolving the chain once per call', async () => {
    const calls: object[] = []
    const counting: SkillScopeResolver = {
      scopeChainOf(key) {
        calls.push(key)
        return scopeChainOf(key)
      },
    }
    const { skills } = registry({ scopes: counting })
    const preset = createScope({ name: 'p' })
    const global = fake('g', () => [candidate('g', 'x', 1)])
    const scoped = fake('s', () => [candidate('s', 'x', 500)])
    skills.registerProvider(() => global)
    skills.registerProvider(() => scoped, { scope: preset })
    expect(calls).toHaveLength(0)
    expect((await skills.get('x', { scope: preset }))?.content).toBe('body of x from s')
    expect(calls).toEqual([preset])
    expect(scoped.loads).toEqual(['x'])
    await skills.list({ scope: preset })
    await skills.explain('x', { scope: preset })
    expect(calls).toHaveLength(3)
    expect((await skills.get('x'))?.content).toBe('body of x from g')
    expect(calls).toHaveLength(3)
  })

  it('provider names are unique per layer, and a duplicate\'s error names the scope', () => {
    const { skills } = registry()
    const reviewer = createScope({ name: 'reviewer' })
    const unnamed = createScope()
    const other = createScope()
    skills.registerProvider(() => fake('p', () => []))
    skills.registerProvider(() => fake('p', () => []), { scope: reviewer })
    skills.registerProvider(() => fake('p', () => []), { scope: unnamed })
    expect(() => skills.registerProvider(() => fake('p', () => []))).toThrow('skill provider "p" is already registered in the global layer')
    let control: SkillProviderControl | undefined
    expect(() => skills.registerProvider((c) => ((control = c), fake('p', () => [])), { scope: reviewer })).toThrow(
      'skill provider "p" is already registered in the layer of scope "reviewer"',
    )
    expect(control?.signal.aborted).toBe(true)
    // A key without a name or id string is named by its order of first use.
    skills.registerProvider(() => fake('q', () => []), { scope: other })
    expect(() => skills.registerProvider(() => fake('q', () => []), { scope: other })).toThrow(/in the layer of scope #\d+$/)
    expect(() => skills.registerProvider(() => fake('p', () => []), { scope: unnamed })).toThrow(/in the layer of scope #1$/)
    expect(() => skills.registerProvider(() => fake('runtime', () => []), { scope: reviewer })).toThrow(/reserved/)
    const withId = { id: 'preset-7' }
    skills.register({ name: 'x', description: 'd', content: '' }, { scope: withId })
    skills.registerProvider(() => fake('p', () => []), { scope: withId })
    expect(() => skills.registerProvider(() => fake('p', () => []), { scope: withId })).toThrow(/in the layer of scope "preset-7"$/)
  })

  it('runtime skills are first-wins per layer; a scoped one shadows a global one in that scope\'s view', async () => {
    const { skills, log } = registry()
    const preset = createScope({ name: 'preset' })
    skills.register({ name: 'helper', description: 'global helper', content: 'global body' })
    const scoped = skills.register({ name: 'helper', description: 'preset helper', content: 'preset body' }, { scope: preset })
    const duplicate = skills.register({ name: 'helper', description: 'again', content: '' }, { scope: preset })
    expect(log.warnings).toEqual(['runtime skill "helper" is already registered in the layer of scope "preset"; the duplicate is ignored'])
    duplicate()
    expect((await skills.list({ scope: preset }))[0].description).toBe('preset helper')
    expect((await skills.get('helper', { scope: preset }))?.content).toBe('preset body')
    expect((await skills.list())[0].description).toBe('global helper')
    scoped()
    expect((await skills.list({ scope: preset }))[0].description).toBe('global helper')
  })

  it('a re-linked parent changes the view on the next read', async () => {
    const { skills } = registry()
    const a = createScope({ name: 'a' })
    const b = createScope({ name: 'b' })
    const agent = createScope({ name: 'agent', parent: a })
    const fromA = fake('pa', () => [candidate('pa', 'tool', 1)])
    const fromB = fake('pb', () => [candidate('pb', 'tool', 1)])
    skills.registerProvider(() => fromA, { scope: a })
    skills.registerProvider(() => fromB, { scope: b })
    expect(by(await skills.list({ scope: agent }), 'tool')?.provider).toBe('pa')
    expect(by(await skills.list({ scope: agent }), 'tool')?.provider).toBe('pa')
    expect(fromA.lists).toHaveLength(1)
    relink(agent, b)
    expect(by(await skills.list({ scope: agent }), 'tool')?.provider).toBe('pb')
    relink(agent, a)
    // Back on the first chain: its cached catalog is still good.
    expect(by(await skills.list({ scope: agent }), 'tool')?.provider).toBe('pa')
    expect(fromA.lists).toHaveLength(1)
    expect(fromB.lists).toHaveLength(1)
  })

  it('invalidating a provider refreshes only the views that merged its layer', async () => {
    const { skills } = registry()
    const a = createScope({ name: 'a' })
    const b = createScope({ name: 'b' })
    const global = fake('g', () => [candidate('g', 'base', 1)])
    const inA = fake('pa', () => [candidate('pa', 'one', 1)])
    const inB = fake('pb', () => [candidate('pb', 'two', 1)])
    let controlA!: SkillProviderControl
    let controlGlobal!: SkillProviderControl
    skills.registerProvider((c) => ((controlGlobal = c), global))
    skills.registerProvider((c) => ((controlA = c), inA), { scope: a })
    skills.registerProvider(() => inB, { scope: b })
    const read = async () => {
      await skills.snapshot()
      await skills.snapshot({ scope: a })
      await skills.snapshot({ scope: b })
    }
    await read()
    await read()
    expect([global.lists.length, inA.lists.length, inB.lists.length]).toEqual([3, 1, 1])
    controlA.invalidate()
    await read()
    // Only the view of `a` was collected again (which lists the global provider too).
    expect([global.lists.length, inA.lists.length, inB.lists.length]).toEqual([4, 2, 1])
    controlGlobal.invalidate()
    await read()
    expect([global.lists.length, inA.lists.length, inB.lists.length]).toEqual([7, 3, 2])
  })

  it('a scope whose chain has no registrations reads the global catalog, cached once', async () => {
    const { skills } = registry()
    const provider = fake('g', () => [candidate('g', 'x', 1)])
    skills.registerProvider(() => provider)
    const nobody = createScope({ name: 'nobody' })
    const child = createScope({ name: 'child', parent: nobody })
    const global = await skills.snapshot({ cwd: '/w' })
    const scoped = await skills.snapshot({ cwd: '/w', scope: child })
    expect(scoped).toEqual(global)
    expect(provider.lists).toHaveLength(1)
  })

  it('a layer left empty is dropped; the scope can register again later', async () => {
    const { skills } = registry()
    const preset = createScope({ name: 'preset' })
    skills.registerProvider(() => fake('g', () => [candidate('g', 'x', 1)]))
    const disposeProvider = skills.registerProvider(() => fake('s', () => [candidate('s', 'x', 900)]), { scope: preset })
    const disposeSkill = skills.register({ name: 'y', description: 'scoped', content: '' }, { scope: preset })
    expect(by(await skills.list({ scope: preset }), 'x')?.provider).toBe('s')
    disposeProvider()
    disposeSkill()
    expect(await skills.snapshot({ scope: preset })).toEqual(await skills.snapshot())
    // Registering again under the same key works (a new layer), and the name
    // is free again in it.
    skills.registerProvider(() => fake('s', () => [candidate('s', 'x', 900)]), { scope: preset })
    expect(by(await skills.list({ scope: preset }), 'x')?.provider).toBe('s')
    expect(by(await skills.list(), 'x')?.provider).toBe('g')
  })

  it('listeners hear about changes in any layer', () => {
    const { skills } = registry()
    const preset = createScope()
    let changes = 0
    skills.onChange(() => void changes++)
    let control!: SkillProviderControl
    const dispose = skills.registerProvider((c) => ((control = c), fake('s', () => [])), { scope: preset })
    const off = skills.register({ name: 'x', description: 'd', content: '' }, { scope: preset })
    control.invalidate()
    off()
    dispose()
    expect(changes).toBe(5)
  })

  it('explain() says which candidates lost to a nearer layer, and from which scope each came', async () => {
    const { skills } = registry()
    const preset = createScope({ name: 'preset' })
    skills.registerProvider(() => fake('g', () => [candidate('g', 'review', 1)]))
    skills.registerProvider(() => fake('s', () => [candidate('s', 'review', 700), candidate('s', 'review', 600)]), { scope: preset })
    skills.register({ name: 'review', description: 'runtime', content: '' }, { scope: preset })
    const why = await skills.explain('review', { scope: preset })
    expect(why?.winner).toMatchObject({ provider: 'runtime', rank: 250, scope: preset })
    expect(why?.losers.map((l) => [l.provider, l.rank, l.reason, l.scope])).toEqual([
      ['s', 600, 'rank', preset],
      ['s', 700, 'rank', preset],
      ['g', 1, 'scope', undefined],
    ])
    expect(why?.losers[2]).not.toHaveProperty('scope')
    // Without the scope: the global winner, nothing of the preset.
    const global = await skills.explain('review')
    expect(global?.winner).toMatchObject({ provider: 'g' })
    expect(global?.winner).not.toHaveProperty('scope')
    expect(global?.losers).toEqual([])
  })

  it('overrides apply to every layer; a copy switched off lets a farther layer win', async () => {
    const { skills } = registry()
    const preset = createScope({ name: 'preset' })
    skills.registerProvider(() => fake('g', () => [candidate('g', 'deploy', 1)]))
    skills.registerProvider(() => fake('s', () => [candidate('s', 'deploy', 1)]), { scope: preset })
    expect(by(await skills.list({ scope: preset }), 'deploy')?.provider).toBe('s')
    skills.setOverrides([{ name: 'deploy', provider: 's', effect: 'off' }])
    expect(by(await skills.list({ scope: preset }), 'deploy')?.provider).toBe('g')
    const why = await skills.explain('deploy', { scope: preset })
    expect(why?.winner?.scope).toBeUndefined()
    expect(why?.losers.map((l) => l.reason)).toEqual(['off'])
  })

  it('the native local provider can be registered in a scope', async () => {
    const home = dirs.make()
    write(path.join(home, 'preset', 'review.md'), skillFile('review', 'The preset review'))
    write(path.join(home, 'global', 'review.md'), skillFile('review', 'The global review'))
    const { skills } = registry()
    const preset = createScope({ name: 'preset' })
    const local = { includeDefaultRoots: false, watch: false }
    const globalProvider = skills.registerLocalProvider({ ...local, customSkillDirs: [path.join(home, 'global')] })
    const presetProvider = skills.registerLocalProvider({ ...local, customSkillDirs: [path.join(home, 'preset')] }, { scope: preset })
    try {
      expect((await skills.list({ scope: preset }))[0].description).toBe('The preset review')
      expect((await skills.list())[0].description).toBe('The global review')
      expect((await skills.get('review', { scope: preset }))?.content).toContain('The preset review')
      await presetProvider.dispose()
      expect((await skills.list({ scope: preset }))[0].description).toBe('The global review')
    } finally {
      await globalProvider.dispose()
    }
  })

  it('concurrent reads of one view share one list() call; other views do not', async () => {
    const { skills } = registry()
    const a = createScope({ name: 'a' })
    const b = createScope({ name: 'b' })
    const global = fake('g', () => [candidate('g', 'x', 1)])
    skills.registerProvider(() => global)
    skills.registerProvider(() => fake('pa', () => []), { scope: a })
    skills.registerProvider(() => fake('pb', () => []), { scope: b })
    const reads = []
    for (let i = 0; i < 100; i++) reads.push(skills.snapshot({ cwd: '/w', scope: a }), skills.snapshot({ cwd: '/w/', scope: b }))
    await Promise.all(reads)
    expect(global.lists).toHaveLength(2)
  })
})

describe('scopes: bad scopes and chains', () => {
  it('a scope that is not an object throws a TypeError naming it', async () => {
    const { skills } = registry()
    for (const bad of ['preset', 7, null, true]) {
      expect(() => skills.registerProvider(() => fake('p', () => []), { scope: bad as never })).toThrow(TypeError)
      expect(() => skills.register({ name: 'x', description: 'd', content: '' }, { scope: bad as never })).toThrow(TypeError)
      expect(() => skills.registerLocalProvider({ watch: false }, { scope: bad as never })).toThrow(TypeError)
      await expect(skills.snapshot({ scope: bad as never })).rejects.toThrow(TypeError)
      await expect(skills.get('x', { scope: bad as never })).rejects.toThrow(TypeError)
    }
    expect(() => skills.registerProvider(() => fake('p', () => []), { scope: 'preset' as never })).toThrow(
      'registerProvider: options.scope must be a scope key (an object) or undefined (got string "preset")',
    )
    expect(() => skills.register({ name: 'x', description: 'd', content: '' }, 'preset' as never)).toThrow(
      'register: options must be an object when given (got string "preset")',
    )
    await expect(skills.list({ scope: 7 as never })).rejects.toThrow('options.scope must be a scope key (an object) or undefined (got number 7)')
    // Nothing was registered by the refused calls.
    expect(await skills.snapshot()).toEqual({ skills: [], complete: true })
    // A function is a scope key too.
    const fn = function preset() {}
    skills.register({ name: 'x', description: 'd', content: '' }, { scope: fn })
    expect(names(await skills.list({ scope: fn }))).toEqual(['x'])
  })

  it('a garbage chain throws a clear error and changes nothing', async () => {
    const key = createScope({ name: 'k' })
    const other = createScope({ name: 'o' })
    const cases: Array<[(k: object) => unknown, RegExp]> = [
      [() => 'chain', /scopeChainOf\(scope\) must return an array of scope keys, the scope first \(got string "chain"\)/],
      [() => ({ length: 1, 0: key }), /must return an array of scope keys/],
      [() => [], /must return the scope itself first \(got an empty array\)/],
      [() => [other, key], /must return the scope itself first \(got an object\)/],
      [(k) => [k, 'parent'], /scopeChainOf\(scope\)\[1\] must be a scope key \(an object\) \(got string "parent"\)/],
      [(k) => [k, other, k], /scopeChainOf\(scope\)\[2\] repeats an earlier key/],
      [(k) => [k, ...Array.from({ length: 300 }, () => ({}))], /returned 301 keys; a scope chain holds at most 256/],
      [
        (k) =>
          new Proxy([k], {
            get(target, p, r) {
              if (p === '0') throw new Error('trapped')
              return Reflect.get(target, p, r)
            },
          }),
        /returned a chain that cannot be read: trapped/,
      ],
      [
        () => {
          throw new Error('resolver failed')
        },
        /^resolver failed$/,
      ],
    ]
    for (const [chain, pattern] of cases) {
      const { skills } = registry({ scopes: { scopeChainOf: chain } })
      const provider = fake('p', () => [candidate('p', 'x', 1)])
      skills.registerProvider(() => provider, { scope: key })
      await expect(skills.snapshot({ scope: key }), String(pattern)).rejects.toThrow(pattern)
      await expect(skills.get('x', { scope: key })).rejects.toThrow(pattern)
      expect(provider.lists).toHaveLength(0)
      // The registry is intact: reads without a scope work.
      expect(await skills.snapshot()).toEqual({ skills: [], complete: true })
    }
  })

  it('a bad resolver is refused at construction; registry.scopes is the resolver in use', () => {
    expect(() => new SkillRegistry({ scopes: {} as never })).toThrow('scopes.scopeChainOf must be a function (got undefined)')
    expect(() => new SkillRegistry({ scopes: 'x' as never })).toThrow(/scopes must be a scope resolver/)
    expect(() => new SkillRegistry({ scopes: { scopeChainOf: () => [], scopeOf: 1 } as never })).toThrow(/scopes.scopeOf must be a function when present/)
    const { skills } = registry()
    expect(skills.scopes).toBe(scopes)
    expect(() => {
      ;(skills as { scopes: unknown }).scopes = {}
    }).toThrow(TypeError)
    expect(skills.scopes).toBe(scopes)
    // What the Cordis service does with it: the scope of a plugin context.
    const preset = createScope({ name: 'preset' })
    const ctx = assignScope({}, preset)
    expect(skills.scopes.scopeOf?.(Object.create(ctx))).toBe(preset)
    expect(scopeOf({})).toBeUndefined()
  })
})

describe('scopes: @deepseek-ai/dsh-scope is loaded when the registry can require it', () => {
  const entry = path.resolve(__dirname, '..', 'index.js')
  const run = (script: string, env: Record<string, string> = {}) => {
    const result = spawnSync(process.execPath, ['-e', script], {
      encoding: 'utf8',
      timeout: 20_000,
      env: { ...process.env, NODE_PATH: '', ...env },
    })
    expect(result.stderr).toBe('')
    expect(result.status).toBe(0)
    return JSON.parse(result.stdout)
  }
  // Makes `@deepseek-ai/dsh-scope` not found (whether or not a copy is installed).
  const hideScopePackage = `
    const Module = require('node:module')
    const resolve = Module._resolveFilename
    Module._resolveFilename = function (request, ...rest) {
      if (request === '@deepseek-ai/dsh-scope') {
        const error = new Error("Cannot find module '@deepseek-ai/dsh-scope'")
        error.code = 'MODULE_NOT_FOUND'
        throw error
      }
      return resolve.call(this, request, ...rest)
    }
  `
  const scenario = `
    const { SkillRegistry } = require(${JSON.stringify(entry)})
    const skills = new SkillRegistry({ logger: { warn() {} } })
    const parent = { name: 'parent' }
    const child = { name: 'child' }
    skills.register({ name: 'from-parent', description: 'd', content: '' }, { scope: parent })
    skills.register({ name: 'from-child', description: 'd', content: '' }, { scope: child })
    skills.list({ scope: child }).then((list) => {
      console.log(JSON.stringify({
        scopeOf: typeof skills.scopes.scopeOf,
        chain: skills.scopes.scopeChainOf(child).length,
        names: list.map((s) => s.name),
      }))
    })
  `

  it('from NODE_PATH: chains come from the package', () => {
    const script = `
      const { SkillRegistry } = require(${JSON.stringify(entry)})
      const scope = require('@deepseek-ai/dsh-scope')
      const skills = new SkillRegistry({ logger: { warn() {} } })
      const parent = scope.createScope({ name: 'parent' })
      const child = scope.createScope({ name: 'child', parent })
      skills.register({ name: 'from-parent', description: 'd', content: '' }, { scope: parent })
      skills.register({ name: 'from-child', description: 'd', content: '' }, { scope: child })
      skills.list({ scope: child }).then((list) => {
        console.log(JSON.stringify({ same: skills.scopes === scope, names: list.map((s) => s.name) }))
      })
    `
    expect(run(script, { NODE_PATH: STAND_INS })).toEqual({ same: true, names: ['from-child', 'from-parent'] })
  })

  it('absent: every scope\'s chain is the scope alone', () => {
    expect(run(hideScopePackage + scenario)).toEqual({ scopeOf: 'undefined', chain: 1, names: ['from-child'] })
  })

  it('present but broken: the failure is thrown, not taken for absence', () => {
    const broken = dirs.make()
    const index = write(path.join(broken, 'dsh-scope', 'index.js'), "require('some-missing-dependency-of-dsh-scope')\n")
    // Resolves the package to the broken copy, whatever is installed.
    const script = `
      const Module = require('node:module')
      const resolve = Module._resolveFilename
      Module._resolveFilename = function (request, ...rest) {
        if (request === '@deepseek-ai/dsh-scope') return ${JSON.stringify(index)}
        return resolve.call(this, request, ...rest)
      }
      const { SkillRegistry } = require(${JSON.stringify(entry)})
      const skills = new SkillRegistry({ logger: { warn() {} } })
      skills.list({ scope: {} }).then(
        () => console.log(JSON.stringify({ rejected: false })),
        (error) => console.log(JSON.stringify({ rejected: true, code: error.code, message: error.message.split('\\n')[0] })),
      )
    `
    expect(run(script)).toEqual({
      rejected: true,
      code: 'MODULE_NOT_FOUND',
      message: "Cannot find module 'some-missing-dependency-of-dsh-scope'",
    })
    expect(fs.existsSync(index)).toBe(true)
  })

  it('is loaded only when a scope is used', () => {
    const script = `
      const Module = require('node:module')
      const load = Module._load
      let loaded = false
      Module._load = function (request, ...rest) {
        if (request === '@deepseek-ai/dsh-scope') loaded = true
        return load.call(this, request, ...rest)
      }
      const { SkillRegistry } = require(${JSON.stringify(entry)})
      const skills = new SkillRegistry({ logger: { warn() {} } })
      skills.register({ name: 'x', description: 'd', content: '' }, { scope: {} })
      skills.list().then(() => {
        const before = loaded
        return skills.list({ scope: {} }).then(() => console.log(JSON.stringify({ before, after: loaded })))
      })
    `
    expect(run(script, { NODE_PATH: STAND_INS })).toEqual({ before: false, after: true })
  })
})
