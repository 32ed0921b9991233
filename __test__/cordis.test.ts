import { execFileSync, spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import { createRequire } from 'node:module'
import * as path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { Context, type Message } from 'cordis'
import SkillService, { SkillLocal } from '../cordis.mjs'
import type { SkillProviderControl } from '../index.js'
import { tempDirs, waitFor, write } from './helpers'

const require = createRequire(import.meta.url)
const root = path.resolve(__dirname, '..')

function harness() {
  const ctx = new Context()
  const messages: Message[] = []
  ctx.logger.exporter({ export: (message) => messages.push(message) })
  // Warnings are `ctx.logger.warn(message)`: one argument, the message.
  const warnings = (name?: string) =>
    messages.filter((m) => (name === undefined || m.name === name) && m.type === 'warn').map((m) => String(m.args[0]))
  return { ctx, messages, warnings }
}

function jsProvider(name: string, skills: string[] = []) {
  return {
    name,
    async list() {
      return skills.map((skill) => ({
        name: skill,
        description: `${skill} from ${name}`,
        invocation: { modelInvocable: true, userInvocable: true },
        source: 'custom',
        provider: name,
        rank: 300,
        locator: skill,
      }))
    },
    async get() {
      return undefined
    },
  }
}

const temps = tempDirs('dsh-cordis-')
afterEach(() => temps.cleanup())

function writeSkill(file: string, name: string, description: string) {
  write(file, `---\nname: ${name}\ndescription: ${description}\n---\nBody.\n`)
}

describe('optional peers', () => {
  it('loads the plain entry point without cordis or schemastery', () => {
    // Resolution of the optional peers fails in this child process, as in a
    // project that never installed them.
    const script = `
      const Module = require('node:module')
      const resolve = Module._resolveFilename
      Module._resolveFilename = function (request, ...rest) {
        if (request === 'cordis' || request === 'schemastery') {
          const error = new Error("Cannot find module '" + request + "'")
          error.code = 'MODULE_NOT_FOUND'
          throw error
        }
        return resolve.call(this, request, ...rest)
      }
      const api = require(${JSON.stringify(path.join(root, 'index.js'))})
      const loaded = Object.keys(require.cache).filter((file) => file.endsWith('cordis.js'))
      let cordisEntry
      try {
        require(${JSON.stringify(path.join(root, 'lib', 'cordis.js'))})
        cordisEntry = 'loaded'
      } catch (error) {
        cordisEntry = error.code
      }
      console.log(JSON.stringify({ registry: typeof api.SkillRegistry, loaded, cordisEntry }))
    `
    const out = JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }))
    expect(out).toEqual({ registry: 'function', loaded: [], cordisEntry: 'MODULE_NOT_FOUND' })
  })

  it('gives CommonJS and ESM callers the same classes', async () => {
    const cjs = require('../lib/cordis.js')
    expect(cjs.SkillService).toBe(SkillService)
    expect(cjs.SkillLocal).toBe(SkillLocal)
    expect(cjs.default).toBe(SkillService)
  })
})

describe('Cordis typings', () => {
  it('a harness using the plugins and the cordis augmentation compiles (strict)', { timeout: 180_000 }, () => {
    const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc')
    const project = path.join(__dirname, 'cordis-typings', 'tsconfig.json')
    const result = spawnSync(process.execPath, [tsc, '-p', project], { encoding: 'utf8', timeout: 170_000 })
    expect(result.stdout + result.stderr).toBe('')
    expect(result.status).toBe(0)
  })
})

describe('SkillService', () => {
  it('is a drop-in ctx.skills with the registry methods', async () => {
    const { ctx } = harness()
    await ctx.plugin(SkillService)
    const { SkillRegistry } = require('../index.js')
    const methods = Object.getOwnPropertyNames(SkillRegistry.prototype).filter((key) => key !== 'constructor')
    for (const method of methods) expect(typeof (ctx.skills as any)[method]).toBe('function')
    expect(ctx.skills.registry).toBeInstanceOf(SkillRegistry)
    ctx.skills.register({ name: 'hello', description: 'Say hello.', content: 'Hi.' })
    expect((await ctx.skills.list()).map((s) => s.name)).toEqual(['hello'])
    expect((await ctx.skills.snapshot()).complete).toBe(true)
    expect((await ctx.skills.get('hello'))?.content).toBe('Hi.')
  })

  it('validates collectCacheMaxEntries with its schema', async () => {
    expect(SkillService.Config({})).toEqual({ collectCacheMaxEntries: 128, overrides: [] })
    for (const bad of [0, -1, 1.5, 'many']) {
      const { ctx } = harness()
      await expect(ctx.plugin(SkillService, { collectCacheMaxEntries: bad as number })).rejects.toThrow(
        /collectCacheMaxEntries/,
      )
      expect(ctx.get('skills')).toBeUndefined()
    }
    const { ctx } = harness()
    await ctx.plugin(SkillService, { collectCacheMaxEntries: 1 })
    expect(ctx.skills).toBeDefined()
  })

  it('validates providerTimeoutMs with its schema and hands it to the registry', async () => {
    expect(SkillService.Config({}).providerTimeoutMs).toBeUndefined()
    for (const bad of [0, -1, 1.5, 2 ** 31, 'soon']) {
      const { ctx } = harness()
      await expect(ctx.plugin(SkillService, { providerTimeoutMs: bad as number })).rejects.toThrow(/providerTimeoutMs/)
    }
    const { ctx } = harness()
    await ctx.plugin(SkillService, { providerTimeoutMs: 20 })
    ctx.skills.registry.registerProvider(() => ({ name: 'hang', list: () => new Promise(() => {}), get: async () => undefined }))
    expect((await ctx.skills.snapshot()).complete).toBe(false)
  })

  it('takes override rules in its schema, explains, and replaces them with setOverrides', async () => {
    const rules = [{ name: 'deploy-*', effect: 'off' }, { name: 'notes', provider: 'second', effect: 'user-only' }]
    expect(SkillService.Config({ overrides: rules }).overrides).toEqual(rules)
    for (const [bad, message] of [
      [[{ name: 'x' }], /effect/],
      [[{ name: 'x', effect: 'disable' }], /effect/],
      [[{ name: 3, effect: 'off' }], /name/],
      [{ name: 'x', effect: 'off' }, /overrides/],
      // Past the schema, the registry's own rules: keys and kebab-case names.
      [[{ name: 'x', effect: 'off', sourec: 'y' }], /overrides\[0\]\.sourec is not a rule key/],
      [[{ name: 'Deploy', effect: 'off' }], /overrides\[0\]\.name must be a kebab-case skill name/],
    ] as const) {
      const { ctx } = harness()
      await expect(ctx.plugin(SkillService, { overrides: bad as never })).rejects.toThrow(message)
      expect(ctx.get('skills')).toBeUndefined()
    }
    const { ctx } = harness()
    await ctx.plugin(SkillService, { overrides: rules as never })
    ctx.skills.registerProvider(() => jsProvider('first', ['deploy-prod', 'notes']))
    ctx.skills.registerProvider(() => jsProvider('second', ['notes']))
    expect((await ctx.skills.list()).map((s) => s.name)).toEqual(['notes'])
    const explained = await ctx.skills.explain('notes')
    expect(explained?.winner?.provider).toBe('first')
    expect(explained?.losers).toEqual([
      expect.objectContaining({ provider: 'second', reason: 'order', override: { rule: 1, effect: 'user-only' } }),
    ])
    let changes = 0
    ctx.on('skills/change', () => void changes++)
    ctx.skills.setOverrides([{ name: 'notes', provider: 'first', effect: 'off' }])
    expect(changes).toBe(1)
    const skills = await ctx.skills.list()
    expect(skills.map((s) => `${s.name}:${s.provider}`)).toEqual(['deploy-prod:first', 'notes:second'])
  })

  it('ties registrations to the calling plugin and undoes them in reverse order', async () => {
    const { ctx } = harness()
    await ctx.plugin(SkillService)
    const aborted: string[] = []
    const fiber = await ctx.plugin({
      name: 'remote-skills',
      inject: ['skills'],
      apply(ctx: Context) {
        for (const name of ['first', 'second']) {
          ctx.skills.registerProvider(({ signal }: SkillProviderControl) => {
            signal.addEventListener('abort', () => aborted.push(name))
            return jsProvider(name, [`${name}-skill`])
          })
        }
        ctx.skills.register({ name: 'runtime-skill', description: 'Inline.', content: 'Inline.' })
      },
    })
    expect((await ctx.skills.list()).map((s) => s.name)).toEqual(['first-skill', 'runtime-skill', 'second-skill'])
    expect(fiber.getEffects().map((e) => e.label)).toEqual([
      'ctx.skills.registerProvider()',
      'ctx.skills.registerProvider()',
      'ctx.skills.register()',
    ])
    await fiber.dispose()
    expect(aborted).toEqual(['second', 'first'])
    expect(await ctx.skills.list()).toEqual([])
  })

  it('returns the effect disposer itself', async () => {
    const { ctx } = harness()
    await ctx.plugin(SkillService)
    let dispose: () => void = () => {}
    let signal: AbortSignal | undefined
    const fiber = await ctx.plugin({
      inject: ['skills'],
      apply(ctx: Context) {
        dispose = ctx.skills.registerProvider((control: SkillProviderControl) => {
          signal = control.signal
          return jsProvider('remote', ['remote-skill'])
        })
      },
    })
    expect(fiber.getEffects()).toHaveLength(1)
    dispose()
    expect(signal?.aborted).toBe(true)
    expect(fiber.getEffects()).toHaveLength(0)
    expect(await ctx.skills.list()).toEqual([])
    dispose()
    await fiber.dispose()
  })

  it('propagates a failing factory without leaving an effect behind', async () => {
    const { ctx } = harness()
    await ctx.plugin(SkillService)
    let signal: AbortSignal | undefined
    expect(() =>
      ctx.skills.registerProvider((control: SkillProviderControl) => {
        signal = control.signal
        throw new Error('no credentials')
      }),
    ).toThrow('no credentials')
    expect(signal?.aborted).toBe(true)
    expect(() => ctx.skills.registerProvider(() => jsProvider('runtime'))).toThrow(/runtime/)
    expect(ctx.fiber.getEffects().filter((e) => e.label.startsWith('ctx.skills'))).toEqual([])
  })

  it('emits skills/change for every catalog mutation', async () => {
    const { ctx } = harness()
    await ctx.plugin(SkillService)
    let changes = 0
    ctx.on('skills/change', () => {
      changes++
    })
    let invalidate = () => {}
    const fiber = await ctx.plugin({
      inject: ['skills'],
      apply(ctx: Context) {
        ctx.skills.registerProvider((control: SkillProviderControl) => {
          invalidate = control.invalidate
          return jsProvider('remote', ['remote-skill'])
        })
        ctx.skills.register({ name: 'inline', description: 'Inline.', content: 'Inline.' })
      },
    })
    expect(changes).toBe(2)
    await ctx.skills.list()
    invalidate()
    expect(changes).toBe(3)
    await fiber.dispose()
    expect(changes).toBe(5)
    invalidate()
    expect(changes).toBe(5)
  })

  it('contains throwing and rejecting listeners and logs them', async () => {
    const { ctx, warnings } = harness()
    await ctx.plugin(SkillService)
    const seen: string[] = []
    ctx.on('skills/change', () => {
      seen.push('a')
      throw new Error('listener a broke')
    })
    ctx.on('skills/change', async () => {
      seen.push('b')
      throw new Error('listener b rejected')
    })
    ctx.on('skills/change', () => {
      seen.push('c')
    })
    const dispose = ctx.skills.register({ name: 'inline', description: 'Inline.', content: 'Inline.' })
    expect(seen).toEqual(['a', 'b', 'c'])
    expect((await ctx.skills.list()).map((s) => s.name)).toEqual(['inline'])
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(warnings()).toEqual(
      expect.arrayContaining([
        expect.stringContaining('listener a broke'),
        expect.stringContaining('listener b rejected'),
      ]),
    )
    dispose()
    expect(seen).toEqual(['a', 'b', 'c', 'a', 'b', 'c'])
    expect(await ctx.skills.list()).toEqual([])
  })

  it('logs registry warnings with ctx.logger.warn(message)', async () => {
    const { ctx, warnings, messages } = harness()
    await ctx.plugin(SkillService)
    ctx.skills.register({ name: 'twice', description: 'One.', content: 'One.' })
    ctx.skills.register({ name: 'twice', description: 'Two.', content: 'Two.' })
    ctx.skills.registerProvider(() => ({
      name: 'flaky',
      list: async () => {
        throw new Error('registry unreachable (100% down)')
      },
      get: async () => undefined,
    }))
    const snapshot = await ctx.skills.snapshot()
    expect(snapshot.complete).toBe(false)
    expect(warnings()).toEqual([
      expect.stringContaining('"twice" is already registered'),
      expect.stringContaining('registry unreachable (100% down)'),
    ])
    // The call the TypeScript packages make: the message is the only argument.
    const calls = messages.filter((m) => m.type === 'warn').map((m) => m.args)
    expect(calls[1]).toEqual([expect.stringContaining('100% down')])
  })

  it('keeps two harness contexts apart', async () => {
    const a = harness()
    const b = harness()
    await a.ctx.plugin(SkillService)
    await b.ctx.plugin(SkillService, { collectCacheMaxEntries: 2 })
    let changesA = 0
    let changesB = 0
    a.ctx.on('skills/change', () => {
      changesA++
    })
    b.ctx.on('skills/change', () => {
      changesB++
    })
    a.ctx.skills.register({ name: 'only-in-a', description: 'A.', content: 'A.' })
    b.ctx.skills.register({ name: 'only-in-b', description: 'B.', content: 'B.' })
    b.ctx.skills.register({ name: 'only-in-b', description: 'Duplicate.', content: 'B.' })
    expect((await a.ctx.skills.list()).map((s) => s.name)).toEqual(['only-in-a'])
    expect((await b.ctx.skills.list()).map((s) => s.name)).toEqual(['only-in-b'])
    expect([changesA, changesB]).toEqual([1, 1])
    expect(a.warnings()).toEqual([])
    expect(b.warnings()).toHaveLength(1)
  })

  it('keeps isolated services in one context apart', async () => {
    const { ctx } = harness()
    await ctx.plugin(SkillService)
    const isolated = ctx.isolate('skills')
    await isolated.plugin(SkillService)
    let outer = 0
    let inner = 0
    ctx.on('skills/change', () => {
      outer++
    })
    await isolated.plugin({
      inject: ['skills'],
      apply(ctx: Context) {
        ctx.on('skills/change', () => {
          inner++
        })
        ctx.skills.register({ name: 'isolated-skill', description: 'Inner.', content: 'Inner.' })
      },
    })
    expect([outer, inner]).toEqual([0, 1])
    expect(await ctx.skills.list()).toEqual([])
    ctx.skills.register({ name: 'outer-skill', description: 'Outer.', content: 'Outer.' })
    expect([outer, inner]).toEqual([1, 1])
  })

  it('unloads dependent plugins with the service and starts fresh when reloaded', async () => {
    const { ctx } = harness()
    const service = await ctx.plugin(SkillService)
    let signal: AbortSignal | undefined
    const consumer = ctx.plugin({
      inject: ['skills'],
      apply(ctx: Context) {
        ctx.skills.registerProvider((control: SkillProviderControl) => {
          signal = control.signal
          return jsProvider('remote', ['remote-skill'])
        })
      },
    })
    await consumer
    expect(signal?.aborted).toBe(false)
    await service.dispose()
    await consumer
    expect(signal?.aborted).toBe(true)
    expect(ctx.get('skills')).toBeUndefined()
    await ctx.plugin(SkillService)
    await consumer
    // The consumer is applied again against the new registry.
    expect((await ctx.skills.list()).map((s) => s.name)).toEqual(['remote-skill'])
  })
})

/** Whether the local provider watches (it reports host mutations as invalidations). */

describe('SkillLocal', () => {
  function workspace() {
    const base = temps.make()
    const project = path.join(base, 'project')
    fs.mkdirSync(path.join(project, '.git'), { recursive: true })
    return {
      project,
      config: {
        dshHome: path.join(base, 'home', '.dsh'),
        agentsHome: path.join(base, 'home', '.agents'),
        watch: false,
      },
    }
  }

  it('validates every local provider option', () => {
    expect(SkillLocal.Config({})).toEqual({
      providerName: 'local',
      includeDefaultRoots: true,
      nestedRoots: false,
      compatRoots: [],
      customSkillDirs: [],
      watch: true,
      watchUsePolling: false,
      watchStabilityThresholdMs: 200,
      watchPollIntervalMs: 100,
      watchMaxProjects: 128,
      watchFollowSymlinks: true,
    })
    for (const bad of [
      { watchMaxProjects: 0 },
      { watchPollIntervalMs: 2.5 },
      { watchStabilityThresholdMs: -1 },
      { maxSkillFileBytes: 0 },
      { customSkillDirs: 'not-a-list' },
      { watch: 'yes' },
      { compatRoots: ['cursor'] },
      { compatRoots: 'claude' },
      { nestedRoots: 'yes' },
      { includeDefaultRoots: 0 },
      { providerName: 7 },
    ]) {
      expect(() => SkillLocal.Config(bad as never)).toThrow()
    }
  })

  it('registers the local provider for the plugin lifetime', async () => {
    const { ctx } = harness()
    const { project, config } = workspace()
    writeSkill(path.join(project, '.agents', 'skills', 'review', 'SKILL.md'), 'review', 'Review code.')
    await ctx.plugin(SkillService)
    const fiber = await ctx.plugin(SkillLocal, config)
    const skills = await ctx.skills.list({ cwd: project })
    expect(skills.map((s) => [s.name, s.source, s.provider])).toEqual([['review', 'project-agents', 'local']])
    expect((await ctx.skills.get('review', { cwd: project }))?.content).toBe('Body.')
    await fiber.dispose()
    expect(await ctx.skills.list({ cwd: project })).toEqual([])
  })

  it('two SkillLocal plugins with their own provider names and roots', async () => {
    const { ctx } = harness()
    const { project, config } = workspace()
    const pkg = path.join(project, 'packages', 'web')
    writeSkill(path.join(project, '.agents', 'skills', 'review', 'SKILL.md'), 'review', 'Review code.')
    writeSkill(path.join(pkg, '.dsh', 'skills', 'review', 'SKILL.md'), 'review', 'Review the web package.')
    writeSkill(path.join(project, '.claude', 'skills', 'pr-text', 'SKILL.md'), 'pr-text', 'Write a PR description.')
    await ctx.plugin(SkillService)
    await ctx.plugin(SkillLocal, { ...config, nestedRoots: true })
    await ctx.plugin(SkillLocal, { providerName: 'claude', includeDefaultRoots: false, compatRoots: ['claude'], watch: false })
    const skills = await ctx.skills.list({ cwd: pkg })
    expect(skills.map((s) => [s.name, s.source, s.provider, s.description])).toEqual([
      ['pr-text', 'project-claude', 'claude', 'Write a PR description.'],
      ['review', 'project-dsh', 'local', 'Review the web package.'],
    ])
  })

  it('registers new LocalSkillProvider(ctx, control, config) through ctx.skills and forwards fs/observed of write/edit', async () => {
    // A stand-in `skills` service (any ctx.skills with registerProvider) records the registration.
    const { ctx, warnings } = harness()
    const { project, config } = workspace()
    let provider: any
    let control: { signal: AbortSignal; invalidate(): void } | undefined
    const controller = new AbortController()
    let invalidations = 0
    ctx.provide('skills', {
      registerProvider(factory: (control: unknown) => unknown) {
        control = { signal: controller.signal, invalidate: () => void invalidations++ }
        provider = factory(control)
        return () => controller.abort()
      },
    })
    await ctx.plugin(SkillLocal, { ...config, customSkillDirs: [path.join(project, 'custom')] })
    expect(provider).toBeInstanceOf(require('../index.js').LocalSkillProvider)
    const observed: string[] = []
    const original = provider.observeHostMutation.bind(provider)
    provider.observeHostMutation = (target: string) => {
      observed.push(target)
      if (target.endsWith('throws.md')) throw new Error('cannot observe')
      return original(target)
    }
    const emit = (...args: unknown[]) => (ctx as any).emit('fs/observed', ...args)
    const custom = path.join(project, 'custom')
    const target = (file: string) => ({ targetKey: `key:${file}`, displayPath: file })
    emit(target(path.join(custom, 'a.md')), 'v1', { kind: 'tool', name: 'write' })
    emit(target(path.join(custom, 'b.md')), { kind: 'present', version: 'v2' }, { name: 'edit' })
    emit(target(path.join(custom, 'c.md')), { kind: 'absent' }, { name: 'edit', callId: 7 })
    emit(target(path.join(custom, 'read.md')), 'v', { kind: 'tool', name: 'read' })
    emit(target(path.join(custom, 'shell.md')), 'v', undefined)
    emit(target(path.join(custom, 'string-actor.md')), 'v', 'write')
    emit({ targetKey: 'k' }, 'v', { name: 'write' })
    emit(undefined, 'v', { name: 'write' })
    // The single-object payload is not an fs/observed event.
    emit({ actor: { kind: 'tool', name: 'write' }, target: target(path.join(custom, 'old-shape.md')) })
    expect(observed).toEqual([path.join(custom, 'a.md'), path.join(custom, 'b.md'), path.join(custom, 'c.md')])
    // Watching is on by default in the plugin's schema; the invalidations are synchronous anyway.
    expect(invalidations).toBe(3)
    emit(target(path.join(custom, 'throws.md')), 'v', { name: 'write' })
    expect(warnings('skill-local')).toEqual([expect.stringContaining('cannot observe')])
    // The registration goes away: the provider disposes itself (its watchers
    // close, reads are still served, nothing is left to invalidate).
    controller.abort()
    expect(await provider.list({})).toMatchObject({ complete: true })
    expect(original(path.join(custom, 'a.md'))).toBe(false)
  })

  for (const watch of [false, true]) {
    it(`turns write and edit observations into synchronous invalidations (watch: ${watch})`, async () => {
      const { ctx } = harness()
      const { project, config } = workspace()
      await ctx.plugin(SkillService)
      // Watching but slow to settle, or not watching: only the observation can
      // explain a change seen synchronously.
      await ctx.plugin(SkillLocal, { ...config, watch, watchStabilityThresholdMs: 60_000 })
      let changes = 0
      ctx.on('skills/change', () => {
        changes++
      })
      // With watching on, the OS watcher may also report these writes, but only
      // from a later turn of the event loop: count the changes emitted while the
      // (synchronous) emit runs.
      const emit = (...args: unknown[]) => {
        const before = changes
        ;(ctx as any).emit('fs/observed', ...args)
        return changes - before
      }
      expect(await ctx.skills.list({ cwd: project })).toEqual([])
      const file = path.join(project, '.dsh', 'skills', 'deploy.md')
      writeSkill(file, 'deploy', 'Deploy the service.')
      const target = { targetKey: file, displayPath: file }
      expect(emit(target, 'v1', { kind: 'tool', name: 'read' })).toBe(0)
      expect(emit(target, 'v1', undefined)).toBe(0)
      expect(emit({ actor: { kind: 'tool', name: 'write' }, target })).toBe(0)
      expect(emit(target, { kind: 'present', version: 'v1' }, { kind: 'tool', name: 'write' })).toBe(1)
      expect((await ctx.skills.list({ cwd: project })).map((s) => s.name)).toEqual(['deploy'])
      writeSkill(file, 'deploy', 'Deploy the service, carefully.')
      expect(emit(target, 'v2', { kind: 'tool', name: 'edit' })).toBe(1)
      expect((await ctx.skills.list({ cwd: project }))[0].description).toBe('Deploy the service, carefully.')
      // A bundle directory renamed by a tool: its new resourceBase on the next lookup.
      const bundle = path.join(project, '.dsh', 'skills', 'review')
      writeSkill(path.join(bundle, 'SKILL.md'), 'review', 'Review.')
      expect(emit({ targetKey: bundle, displayPath: path.join(bundle, 'SKILL.md') }, 'v', { name: 'write' })).toBe(1)
      expect((await ctx.skills.list({ cwd: project })).find((s) => s.name === 'review')?.resourceBase).toEqual({
        kind: 'directory',
        path: bundle,
      })
      const renamed = path.join(project, '.dsh', 'skills', 'code-review')
      fs.renameSync(bundle, renamed)
      // Only a skill entry counts (SPEC-HEAD §B): not the bundle directory,
      // the root, or a file inside a bundle.
      const root = path.join(project, '.dsh', 'skills')
      for (const displayPath of [renamed, root, path.join(renamed, 'references', 'notes.md')]) {
        expect(emit({ targetKey: displayPath, displayPath }, { kind: 'present', version: 'v' }, { name: 'edit' })).toBe(0)
      }
      const entry = path.join(renamed, 'SKILL.md')
      expect(emit({ targetKey: entry, displayPath: entry }, { kind: 'present', version: 'v' }, { name: 'edit' })).toBe(1)
      expect((await ctx.skills.list({ cwd: project })).find((s) => s.name === 'review')?.resourceBase).toEqual({
        kind: 'directory',
        path: renamed,
      })
      // Elsewhere in the project: nothing.
      expect(emit({ targetKey: 'x', displayPath: path.join(project, 'src', 'main.ts') }, 'v', { name: 'write' })).toBe(0)
    })
  }

  it('stops observing when disposed', async () => {
    const { ctx, warnings } = harness()
    const { project, config } = workspace()
    await ctx.plugin(SkillService)
    const fiber = await ctx.plugin(SkillLocal, config)
    await ctx.skills.list({ cwd: project })
    await fiber.dispose()
    let changes = 0
    ctx.on('skills/change', () => {
      changes++
    })
    const file = path.join(project, '.dsh', 'skills', 'late.md')
    writeSkill(file, 'late', 'Too late.')
    ;(ctx as any).emit('fs/observed', { targetKey: file, displayPath: file }, 'v', { kind: 'tool', name: 'write' })
    expect(changes).toBe(0)
    expect(warnings('skill-local')).toEqual([])
  })

  it('logs bad skill files through the Cordis logger', async () => {
    const { ctx, warnings } = harness()
    const { project, config } = workspace()
    const dir = path.join(project, '.agents', 'skills')
    fs.mkdirSync(dir, { recursive: true })
    fs.writeFileSync(path.join(dir, 'broken.md'), 'no frontmatter here\n')
    writeSkill(path.join(dir, 'fine.md'), 'fine', 'Fine.')
    await ctx.plugin(SkillService)
    await ctx.plugin(SkillLocal, config)
    expect((await ctx.skills.list({ cwd: project })).map((s) => s.name)).toEqual(['fine'])
    // Through ctx.logger.warn(message) of the plugin that owns the provider.
    expect(warnings('skill-local')).toEqual([expect.stringContaining('broken.md skipped')])
  })

  it('watches and refreshes the catalog until disposed', async () => {
    const { ctx } = harness()
    const { project, config } = workspace()
    await ctx.plugin(SkillService)
    const fiber = await ctx.plugin(SkillLocal, { ...config, watch: true, watchStabilityThresholdMs: 20 })
    expect(await ctx.skills.list({ cwd: project })).toEqual([])
    let changed = false
    ctx.on('skills/change', () => {
      changed = true
    })
    writeSkill(path.join(project, '.agents', 'skills', 'fresh', 'SKILL.md'), 'fresh', 'Fresh skill.')
    await waitFor(() => changed)
    expect((await ctx.skills.list({ cwd: project })).map((s) => s.name)).toEqual(['fresh'])
    await fiber.dispose()
  })
})
