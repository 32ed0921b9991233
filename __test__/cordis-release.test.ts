// The Cordis entries as harness release 0.1.1-rc.2 uses them, on npm `cordis`
// (the dev tree has no `@deepseek-ai/cordis`; harness-fork.test.ts runs them
// on the fork): the registry entry's new names and helpers, the filesystem
// plugin module, `FileSystemSkillProvider`, and how the framework copy is chosen.
import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import { createRequire } from 'node:module'
import * as path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { Context, type Message } from 'cordis'
import * as cordisEntry from '../cordis.mjs'
import SkillRegistry, { SkillLocal, SkillService, renderSkillContent } from '../cordis.mjs'
import * as SkillFileSystem from '../filesystem.mjs'
import type { SkillProviderControl } from '../index.js'
import { tempDirs, write } from './helpers'

const require = createRequire(import.meta.url)
const root = path.resolve(__dirname, '..')
const main = require('../index.js') as typeof import('../index')

const temps = tempDirs('dsh-release-')
afterEach(() => temps.cleanup())

function harness() {
  const ctx = new Context()
  const messages: Message[] = []
  ctx.logger.exporter({ export: (message) => messages.push(message) })
  const warnings = (name?: string) =>
    messages.filter((m) => (name === undefined || m.name === name) && m.type === 'warn').map((m) => String(m.args[0]))
  return { ctx, warnings }
}

function writeSkill(file: string, name: string, description: string, body = 'Body.') {
  write(file, `---\nname: ${name}\ndescription: ${description}\n---\n${body}\n`)
}

/** A node child process; `env` is added to this process's environment. */
function node(script: string, env: NodeJS.ProcessEnv = {}, type: 'commonjs' | 'module' = 'commonjs') {
  const args = type === 'module' ? ['--input-type=module', '-e', script] : ['-e', script]
  const result = spawnSync(process.execPath, args, { cwd: root, env: { ...process.env, ...env }, encoding: 'utf8', timeout: 60_000 })
  return { code: result.status, stdout: result.stdout, stderr: result.stderr }
}

describe('the registry entry (…/cordis)', () => {
  it('exports the service as SkillRegistry (default and named) as well as SkillService', () => {
    expect(SkillRegistry).toBe(SkillService)
    expect(cordisEntry.SkillRegistry).toBe(SkillService)
    expect(cordisEntry.default).toBe(SkillService)
    const cjs = require('../lib/cordis.js')
    expect(cjs.SkillRegistry).toBe(SkillService)
    expect(cjs.default).toBe(SkillService)
    expect(cordisEntry.framework).toBe('cordis')
    // The main entry's SkillRegistry stays the plain class.
    expect(main.SkillRegistry).not.toBe(SkillService)
    expect(new main.SkillRegistry()).toBeInstanceOf(main.SkillRegistry)
  })

  it('is constructed (ctx, config) and serves ctx.skills', async () => {
    const { ctx } = harness()
    await ctx.plugin(SkillRegistry, { collectCacheMaxEntries: 4 })
    expect(ctx.skills).toBeInstanceOf(SkillRegistry)
    ctx.skills.register({ name: 'hello', description: 'Say hello.', content: 'Hi.' })
    expect((await ctx.skills.list()).map((s) => s.name)).toEqual(['hello'])
  })

  it('exports the helpers of the release: BUNDLED_SKILL_RANK, escapeText, isModelInvocable, isUserInvocable', async () => {
    expect(cordisEntry.BUNDLED_SKILL_RANK).toBe(600)
    expect(main.BUNDLED_SKILL_RANK).toBe(600)
    // The rank the local provider gives the bundled root.
    const bundled = temps.make()
    writeSkill(path.join(bundled, 'shipped.md'), 'shipped', 'Shipped with the deployment.')
    const provider = new main.LocalSkillProvider({ includeDefaultRoots: false, bundledSkillDir: bundled, watch: false })
    const listed = await provider.list({})
    await provider.dispose()
    const candidates = Array.isArray(listed) ? listed : listed.candidates
    expect(candidates.map((c) => [c.name, c.source, c.rank])).toEqual([['shipped', 'bundled', cordisEntry.BUNDLED_SKILL_RANK]])

    expect(cordisEntry.escapeText('a & b <c> "d" \'e\' &amp;')).toBe('a &amp; b &lt;c&gt; "d" \'e\' &amp;amp;')
    expect(cordisEntry.escapeText('')).toBe('')
    expect(cordisEntry.escapeText('plain é 😀')).toBe('plain é 😀')
    expect(main.escapeText).toBe(cordisEntry.escapeText)
    expect(() => cordisEntry.escapeText(3 as never)).toThrow(/escapeText: text must be a string/)
    // The same rule as the catalog's descriptions.
    const entries = main.renderCatalogEntries([
      { name: 'x', description: 'a & b <c>', invocation: { modelInvocable: true, userInvocable: true } },
    ])
    expect(entries).toBe(`- \`x\`: ${cordisEntry.escapeText('a & b <c>')}`)

    expect(cordisEntry.isModelInvocable).toBe(main.isModelInvocable)
    expect(cordisEntry.isUserInvocable).toBe(main.isUserInvocable)
  })

  it("renders the skill content block in the release's layout; the main entry keeps the earlier one", () => {
    const bases = [
      undefined,
      { kind: 'directory', path: '/skills/a&b' },
      { kind: 'url', url: 'https://skills.example/<x>/' },
      { kind: 'opaque', description: 'kept by the vault' },
    ] as const
    for (const resourceBase of bases) {
      for (const content of ['Do it.', 'Do it.\n', '', 'one\n\ntwo\n']) {
        const definition = { name: 'a"b', provider: 'vault', resourceBase, content }
        const earlier = main.renderSkillContent(definition)
        const current = renderSkillContent(definition)
        expect(earlier).toContain('</skill_resources>\n<skill_instructions>\n')
        expect(current).toBe(earlier.replace('</skill_resources>\n<skill_instructions>\n', '</skill_resources>\n\n<skill_instructions>\n'))
        expect(current.startsWith('<skill_content name="a&quot;b">\n<skill_resources>\n')).toBe(true)
        expect(current.endsWith(`<skill_instructions>\n${content}${content.endsWith('\n') ? '' : '\n'}</skill_instructions>\n</skill_content>`)).toBe(true)
      }
    }
    expect(renderSkillContent({ name: 'n', provider: 'p', resourceBase: { kind: 'directory', path: '/d' }, content: 'B' })).toContain('/d')
    expect(() => renderSkillContent({ name: 'n', provider: 'p', content: 3 } as never)).toThrow(/renderSkillContent: content must be a string/)
  })
})

describe('the filesystem plugin module (…/filesystem)', () => {
  it('is shaped like the release module: name, inject, Config, apply, FileSystemSkillProvider', () => {
    expect(SkillFileSystem.name).toBe('skill-filesystem')
    expect(SkillFileSystem.inject).toEqual(['skills'])
    expect(typeof SkillFileSystem.apply).toBe('function')
    const cjs = require('../lib/filesystem.js')
    for (const key of ['name', 'inject', 'Config', 'apply', 'FileSystemSkillProvider'] as const) {
      expect(cjs[key]).toBe(SkillFileSystem[key])
      expect(SkillFileSystem.default[key]).toBe(SkillFileSystem[key])
    }
  })

  it("takes the local plugin's options, with providerName defaulting to filesystem", () => {
    expect(SkillFileSystem.Config({})).toEqual({ ...SkillLocal.Config({}), providerName: 'filesystem' })
    expect(SkillLocal.Config({}).providerName).toBe('local')
    expect(SkillFileSystem.Config({ providerName: 'team', watch: false }).providerName).toBe('team')
    for (const bad of [{ watchMaxProjects: 0 }, { compatRoots: ['cursor'] }, { providerName: 7 }, { watch: 'yes' }]) {
      expect(() => SkillFileSystem.Config(bad as never)).toThrow()
    }
  })

  it('registers a filesystem provider for the plugin lifetime, beside SkillLocal', async () => {
    const { ctx } = harness()
    const base = temps.make()
    writeSkill(path.join(base, 'team', 'review', 'SKILL.md'), 'review', 'Review code.')
    writeSkill(path.join(base, 'mine', 'notes.md'), 'notes', 'Take notes.')
    await ctx.plugin(SkillRegistry)
    const fiber = await ctx.plugin(SkillFileSystem, { includeDefaultRoots: false, customSkillDirs: [path.join(base, 'team')], watch: false })
    await ctx.plugin(SkillLocal, { includeDefaultRoots: false, customSkillDirs: [path.join(base, 'mine')], watch: false })
    const skills = await ctx.skills.list()
    expect(skills.map((s) => [s.name, s.provider])).toEqual([
      ['notes', 'local'],
      ['review', 'filesystem'],
    ])
    expect((await ctx.skills.get('review'))?.content).toBe('Body.')
    await fiber.dispose()
    expect((await ctx.skills.list()).map((s) => s.name)).toEqual(['notes'])
  })

  it('registers new FileSystemSkillProvider(ctx, control, config) and forwards fs/observed of write/edit', async () => {
    const { ctx, warnings } = harness()
    const base = temps.make()
    const custom = path.join(base, 'custom')
    let provider: any
    const controller = new AbortController()
    let invalidations = 0
    ctx.provide('skills', {
      registerProvider(factory: (control: SkillProviderControl) => unknown) {
        provider = factory({ signal: controller.signal, invalidate: () => void invalidations++ })
        return () => controller.abort()
      },
    })
    await ctx.plugin(SkillFileSystem, { includeDefaultRoots: false, customSkillDirs: [custom], watch: false })
    expect(provider).toBeInstanceOf(SkillFileSystem.FileSystemSkillProvider)
    expect(provider.name).toBe('filesystem')
    const observed: string[] = []
    const original = provider.observeHostMutation.bind(provider)
    provider.observeHostMutation = (target: string) => {
      observed.push(target)
      if (target.endsWith('throws.md')) throw new Error('cannot observe')
      return original(target)
    }
    const emit = (...args: unknown[]) => (ctx as any).emit('fs/observed', ...args)
    const target = (file: string) => ({ targetKey: `key:${file}`, displayPath: file })
    emit(target(path.join(custom, 'a.md')), 'v1', { name: 'write' })
    emit(target(path.join(custom, 'b.md')), { kind: 'present', version: 'v2' }, { name: 'edit' })
    emit(target(path.join(custom, 'c.md')), { kind: 'absent' }, { name: 'edit' })
    emit(target(path.join(custom, 'read.md')), 'v', { name: 'read' })
    emit(target(path.join(custom, 'shell.md')), 'v', undefined)
    emit({ targetKey: 'k' }, 'v', { name: 'write' })
    expect(observed).toEqual([path.join(custom, 'a.md'), path.join(custom, 'b.md'), path.join(custom, 'c.md')])
    expect(invalidations).toBe(3)
    emit(target(path.join(custom, 'throws.md')), 'v', { name: 'write' })
    expect(warnings('skill-filesystem')).toEqual([expect.stringContaining('cannot observe')])
  })

  for (const watch of [false, true]) {
    it(`tells listeners of every first-party write or edit of a skill entry at once, one skills/change each (watch: ${watch})`, async () => {
      // Both harness releases notify once per invalidation, synchronously:
      // two observations in one turn are two changes before it ends.
      const { ctx } = harness()
      const home = temps.make()
      const root = path.join(home, '.agents', 'skills')
      await ctx.plugin(SkillRegistry)
      await ctx.plugin(SkillFileSystem, {
        dshHome: path.join(home, '.dsh'),
        agentsHome: path.join(home, '.agents'),
        watch,
        watchStabilityThresholdMs: 60_000,
      })
      expect(await ctx.skills.list()).toEqual([])
      let changes = 0
      ctx.on('skills/change', () => void changes++)
      const file = path.join(root, 'noted', 'SKILL.md')
      writeSkill(file, 'noted', 'Noted.')
      const observe = (displayPath: string, actor?: object) =>
        (ctx as any).emit('fs/observed', { targetKey: displayPath, displayPath }, { kind: 'present', version: 'v' }, actor)
      const before = changes
      observe(file, { name: 'write' })
      expect(changes - before).toBe(1)
      // Not a write or edit, or not a skill entry: nothing.
      observe(file)
      observe(file, { name: 'read' })
      observe(root, { name: 'write' })
      observe(path.join(root, 'noted', 'references', 'x.md'), { name: 'write' })
      observe(path.join(home, 'elsewhere.md'), { name: 'edit' })
      expect(changes - before).toBe(1)
      observe(file, { name: 'edit' })
      observe(path.join(root, 'flat.md'), { name: 'write' })
      expect(changes - before).toBe(3)
      expect((await ctx.skills.list()).map((s) => s.name)).toEqual(['noted'])
    })
  }

  it('without scopes, a second filesystem provider of the same name (one layer: the global one) is refused', async () => {
    // Without scopes every registration is global: one name per layer.
    const { ctx } = harness()
    await ctx.plugin(SkillRegistry)
    await ctx.plugin(SkillFileSystem, { includeDefaultRoots: false, watch: false })
    const second = ctx.plugin(SkillFileSystem, { includeDefaultRoots: false, watch: false })
    await expect(second).rejects.toThrow(/filesystem/)
  })
})

describe('FileSystemSkillProvider', () => {
  it('is a LocalSkillProvider named filesystem unless configured, in both constructor forms', async () => {
    const { FileSystemSkillProvider } = SkillFileSystem
    const dir = temps.make()
    writeSkill(path.join(dir, 'one.md'), 'one', 'One.')
    const alone = new FileSystemSkillProvider({ includeDefaultRoots: false, customSkillDirs: [dir], watch: false })
    expect(alone).toBeInstanceOf(main.LocalSkillProvider)
    expect(alone.name).toBe('filesystem')
    const listed = await alone.list({})
    const candidates = Array.isArray(listed) ? listed : listed.candidates
    expect(candidates.map((c) => [c.name, c.provider])).toEqual([['one', 'filesystem']])
    await alone.dispose()
    expect(new FileSystemSkillProvider({ providerName: 'team', includeDefaultRoots: false, watch: false }).name).toBe('team')
    const bare = new FileSystemSkillProvider()
    expect(bare.name).toBe('filesystem')
    await bare.dispose()

    const registry = new main.SkillRegistry()
    const ctx = { logger: { warn() {} } }
    let inside: InstanceType<typeof FileSystemSkillProvider> | undefined
    const dispose = registry.registerProvider((control) => {
      inside = new FileSystemSkillProvider(ctx, control, { includeDefaultRoots: false, customSkillDirs: [dir], watch: false })
      return inside
    })
    expect(inside?.name).toBe('filesystem')
    expect((await registry.list()).map((s) => [s.name, s.provider])).toEqual([['one', 'filesystem']])
    dispose()
    const noConfig = registry.registerProvider((control) => new FileSystemSkillProvider(ctx, control))
    noConfig()
    // LocalSkillProvider keeps its own default.
    expect(new main.LocalSkillProvider({ includeDefaultRoots: false, watch: false }).name).toBe('local')
    // What the base class refuses, this one refuses too.
    expect(() => new FileSystemSkillProvider('nope' as never)).toThrow(TypeError)
  })
})

describe('the framework copy', () => {
  it('the …/harness entries require @deepseek-ai/cordis and never fall back to npm cordis', () => {
    for (const entry of ['harness.js', 'harness-filesystem.js']) {
      const script = `
        let code
        try { require(${JSON.stringify(path.join(root, 'lib', entry))}) } catch (error) { code = error.code + ': ' + error.message.split('\\n')[0] }
        const npmCordis = Object.keys(require.cache).filter((file) => file.includes('/node_modules/cordis/'))
        console.log(JSON.stringify({ code, npmCordis }))
      `
      const result = node(script)
      expect(result.stderr).toBe('')
      expect(JSON.parse(result.stdout)).toEqual({
        code:
          "MODULE_NOT_FOUND: @deepseek-ai/cordis is not installed here: the …/harness entries run on the harness's own framework copy; outside the harness, use @deepseek-ai/dsh-skill-native/cordis and …/filesystem, which run on npm cordis (Cannot find module '@deepseek-ai/cordis')",
        npmCordis: [],
      })
    }
  })

  it('DSH_SKILL_CORDIS picks the copy of the automatic entries, and a wrong value says which are allowed', () => {
    const entry = JSON.stringify(path.join(root, 'lib', 'cordis.js'))
    const picked = (value: string) => node(`console.log(require(${entry}).framework)`, { DSH_SKILL_CORDIS: value })
    for (const value of ['cordis', 'auto', '']) {
      const result = picked(value)
      expect(result.stderr).toBe('')
      expect(result.stdout.trim()).toBe('cordis')
    }
    const forced = picked('@deepseek-ai/cordis')
    expect(forced.code).not.toBe(0)
    expect(forced.stderr).toContain("Cannot find module '@deepseek-ai/cordis'")
    const wrong = picked('koishi')
    expect(wrong.code).not.toBe(0)
    expect(wrong.stderr).toContain(`DSH_SKILL_CORDIS must be 'cordis', '@deepseek-ai/cordis' or 'auto' (got "koishi")`)
  })

  it('the dev tree cannot resolve the fork (the fork is tested in a harness project of its own)', () => {
    expect(() => require.resolve('@deepseek-ai/cordis')).toThrow()
    expect(fs.existsSync(path.join(root, 'node_modules', 'cordis-fork-stand-in', 'package.json'))).toBe(true)
  })

  it('ESM and CommonJS callers of each Cordis entry get the same objects', () => {
    const script = `
      import { createRequire } from 'node:module'
      const require = createRequire(${JSON.stringify(path.join(root, 'package.json'))})
      const same = []
      for (const [esm, cjs] of [['./cordis.mjs', './lib/cordis.js'], ['./filesystem.mjs', './lib/filesystem.js']]) {
        const a = await import(${JSON.stringify(root)} + '/' + esm)
        const b = require(cjs)
        for (const key of Object.keys(a)) same.push(a[key] === b[key])
      }
      console.log(JSON.stringify(same.every(Boolean)))
    `
    const result = node(script, {}, 'module')
    expect(result.stderr).toBe('')
    expect(result.stdout.trim()).toBe('true')
  })
})

// The consumer in release-typings/ is compiled against the packed package by
// harness-fork.test.ts (a project on npm cordis).
describe('typings of the release names', () => {
  it('the …/harness typings are the …/cordis typings for @deepseek-ai/cordis', () => {
    const read = (file: string) => fs.readFileSync(path.join(root, 'types', file), 'utf8')
    const body = (text: string) => text.split('\n').filter((line) => !line.startsWith('//')).join('\n')
    const toFork = (text: string) =>
      text
        .replace("framework: 'cordis' | '@deepseek-ai/cordis'", "framework: '@deepseek-ai/cordis'")
        .replaceAll("'cordis'", "'@deepseek-ai/cordis'")
        .replaceAll("'schemastery'", "'@deepseek-ai/schemastery'")
        .replace("import './cordis'", "import './harness'")
        .replace('(`@deepseek-ai/cordis` when the harness has it)', '(always `@deepseek-ai/cordis`)')
    expect(body(read('harness.d.ts'))).toBe(toFork(body(read('cordis.d.ts'))))
    expect(body(read('harness-filesystem.d.ts'))).toBe(toFork(body(read('filesystem.d.ts'))))
  })
})
