// The package inside a harness of release 0.1.1-rc.2, as its author gets it:
// a project whose node_modules holds the harness's framework copy
// (`@deepseek-ai/cordis`, `@deepseek-ai/schemastery`; here npm aliases of
// npm `cordis` 4.0.0-rc.8, next to 4.0.0-rc.7 the fork was made from, installed in
// the dev tree under neutral names so the dev tree itself never resolves them;
// the fork itself, on npm since 4.0.1, is what typings-conditions.test.ts and
// `npm run test:swap` use), the scope package (our
// stand-in) and this package installed from its packed tarball. npm `cordis`
// and `schemastery` are there too, as packages that record being loaded and
// throw: the entries must run on the harness's copy and never load them.
// A second project has only npm `cordis`: the automatic entries run on it.
import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ENTRIES, runtimeProbe, typeProbe, type EntryName, type ExportList } from './export-lists'
import { copyPackage, pack, projectWith, root, userEnv } from './pack'

let base: string
let env: NodeJS.ProcessEnv
let harness: string
let plain: string
let files: string[]

/** A package that records its loading in `globalThis.loadedNpmFramework` and throws. */
function trap(project: string, name: string) {
  const dir = path.join(project, 'node_modules', name)
  fs.mkdirSync(dir, { recursive: true })
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name, version: '4.0.0-rc.10', main: 'index.js' }))
  fs.writeFileSync(
    path.join(dir, 'index.js'),
    `(globalThis.loadedNpmFramework ??= []).push(${JSON.stringify(name)})\nthrow new Error('npm ${name} was loaded')\n`,
  )
}

function writeSkill(file: string, name: string, description: string, body: string) {
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, `---\nname: ${name}\ndescription: ${description}\n---\n${body}\n`)
}

beforeAll(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-harness-')))
  const home = path.join(base, 'home')
  fs.mkdirSync(home)
  env = userEnv(home)
  const packed = pack(base, env)
  files = packed.files
  harness = projectWith(path.join(base, 'harness'), packed.tarball, env, { type: 'module' })
  const devModules = path.join(root, 'node_modules')
  copyPackage(harness, '@deepseek-ai/cordis', path.join(devModules, 'cordis-fork-stand-in'))
  copyPackage(harness, '@deepseek-ai/schemastery', path.join(devModules, 'schemastery-fork-stand-in'))
  copyPackage(harness, '@deepseek-ai/dsh-scope', path.join(__dirname, 'stand-ins', '@deepseek-ai', 'dsh-scope'))
  copyPackage(harness, '@deepseek-ai/dsh-tools', path.join(__dirname, 'stand-ins', '@deepseek-ai', 'dsh-tools'))
  copyPackage(harness, '@deepseek-ai/dsh-llm', path.join(__dirname, 'stand-ins', '@deepseek-ai', 'dsh-llm'))
  trap(harness, 'cordis')
  trap(harness, 'schemastery')
  // The same installed package, in a project on npm cordis.
  plain = path.join(base, 'plain')
  fs.mkdirSync(path.join(plain, 'node_modules', '@deepseek-ai'), { recursive: true })
  fs.writeFileSync(path.join(plain, 'package.json'), JSON.stringify({ name: 'plain', private: true, type: 'module' }))
  fs.cpSync(
    path.join(harness, 'node_modules', '@deepseek-ai', 'dsh-skill-native'),
    path.join(plain, 'node_modules', '@deepseek-ai', 'dsh-skill-native'),
    { recursive: true },
  )
  copyPackage(plain, 'cordis', path.join(devModules, 'cordis'))
  copyPackage(plain, 'schemastery', path.join(devModules, 'schemastery'))
  // Skills: one root for the host, one for a preset.
  writeSkill(path.join(base, 'skills', 'host', 'review', 'SKILL.md'), 'review', 'Review (host).', 'Host review.')
  writeSkill(path.join(base, 'skills', 'host', 'lint.md'), 'lint', 'Lint.', 'Lint it.')
  writeSkill(path.join(base, 'skills', 'preset', 'review.md'), 'review', 'Review (preset).', 'Preset review.')
  writeSkill(path.join(base, 'skills', 'preset', 'deploy.md'), 'deploy', 'Deploy.', 'Deploy it.')
}, 180_000)

afterAll(() => {
  if (base) fs.rmSync(base, { recursive: true, force: true })
})

/** Run `script` with node in `project` (ES module unless `commonjs`); its last stdout line is JSON. */
function run(project: string, script: string, options: { commonjs?: boolean; env?: NodeJS.ProcessEnv } = {}) {
  const file = path.join(project, options.commonjs ? 'script.cjs' : 'script.mjs')
  fs.writeFileSync(file, script)
  const result = spawnSync(process.execPath, [file], { cwd: project, env: { ...env, ...options.env }, encoding: 'utf8', timeout: 60_000 })
  const last = result.stdout.trim().split('\n').pop() ?? ''
  return { code: result.status, stderr: result.stderr, out: last.startsWith('{') ? JSON.parse(last) : last }
}

const skillsDir = (name: string) => JSON.stringify(path.join(base, 'skills', name))

/**
 * Type-check `consumer.ts` of `__test__/<consumer>/` (or the given source) in
 * `project` (strict, against what is installed there) with the repository's
 * TypeScript.
 */
function compiles(project: string, consumer: string | { source: string }) {
  fs.mkdirSync(project, { recursive: true })
  fs.writeFileSync(
    path.join(project, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'ESNext',
        moduleResolution: 'Bundler',
        strict: true,
        noEmit: true,
        skipLibCheck: false,
        typeRoots: [path.join(root, 'node_modules', '@types')],
        types: ['node'],
      },
      files: ['consumer.ts'],
    }),
  )
  if (typeof consumer === 'string') fs.copyFileSync(path.join(__dirname, consumer, 'consumer.ts'), path.join(project, 'consumer.ts'))
  else fs.writeFileSync(path.join(project, 'consumer.ts'), consumer.source)
  const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc')
  const result = spawnSync(process.execPath, [tsc, '-p', path.join(project, 'tsconfig.json')], { encoding: 'utf8', timeout: 170_000 })
  expect(result.stdout + result.stderr).toBe('')
  expect(result.status).toBe(0)
}

describe('inside a harness with @deepseek-ai/cordis', () => {
  it('ships the new entries', () => {
    for (const file of [
      'filesystem.mjs',
      'harness.mjs',
      'harness-filesystem.mjs',
      'harness-tool-skill.mjs',
      'harness-tool-skill-invariant.mjs',
      'lib/harness-tool-skill.js',
      'lib/harness-tool-skill-invariant.js',
      'lib/tool-skill/index.js',
      'types/harness-tool-skill.d.ts',
      'types/harness-tool-skill-invariant.d.ts',
      'search-tool.mjs',
      'harness-search-tool.mjs',
      'lib/search-tool.js',
      'lib/harness-search-tool.js',
      'lib/cordis/search-tool.js',
      'types/search-tool.d.ts',
      'types/harness-search-tool.d.ts',
      'lib/filesystem.js',
      'lib/harness.js',
      'lib/harness-filesystem.js',
      'lib/content.js',
      'lib/cordis/framework.js',
      'types/filesystem.d.ts',
      'types/harness.d.ts',
      'types/harness-filesystem.d.ts',
      'types/cordis-common.d.ts',
      'types/content.d.ts',
    ]) {
      expect(files).toContain(file)
    }
    expect(files.some((file) => file.startsWith('__test__/'))).toBe(false)
  })

  it('CommonJS: the automatic entries run on the harness copy and never load npm cordis', () => {
    const { code, stderr, out } = run(
      harness,
      `
      const { Context, Service } = require('@deepseek-ai/cordis')
      const entry = require('@deepseek-ai/dsh-skill-native/cordis')
      const SkillFileSystem = require('@deepseek-ai/dsh-skill-native/filesystem')
      ;(async () => {
        const ctx = new Context()
        await ctx.plugin(entry.SkillRegistry)
        await ctx.plugin(SkillFileSystem, { includeDefaultRoots: false, customSkillDirs: [${skillsDir('host')}], watch: false })
        const skills = (await ctx.skills.list()).map((s) => [s.name, s.provider])
        const review = await ctx.skills.get('review')
        console.log(JSON.stringify({
          framework: entry.framework,
          extendsFork: entry.SkillService.prototype instanceof Service,
          isService: ctx.skills instanceof entry.SkillRegistry,
          skills,
          content: entry.renderSkillContent(review),
          npmLoaded: globalThis.loadedNpmFramework ?? [],
          npmInCache: Object.keys(require.cache).filter((file) => /[\\\\/]node_modules[\\\\/](cordis|schemastery)[\\\\/]/.test(file)),
        }))
      })()
      `,
      { commonjs: true },
    )
    expect(stderr).toBe('')
    expect(code).toBe(0)
    expect(out).toEqual({
      framework: '@deepseek-ai/cordis',
      extendsFork: true,
      isService: true,
      skills: [
        ['lint', 'filesystem'],
        ['review', 'filesystem'],
      ],
      content: expect.stringContaining('</skill_resources>\n\n<skill_instructions>\nHost review.\n</skill_instructions>'),
      npmLoaded: [],
      npmInCache: [],
    })
  })

  it('ESM: the …/harness entries are the same objects, and a skill-tool consumer works on the fork', () => {
    const { code, stderr, out } = run(
      harness,
      `
      import { Context } from '@deepseek-ai/cordis'
      import SkillRegistry, * as registryEntry from '@deepseek-ai/dsh-skill-native/harness'
      import * as SkillFileSystem from '@deepseek-ai/dsh-skill-native/harness/filesystem'
      import * as autoEntry from '@deepseek-ai/dsh-skill-native/cordis'
      import * as autoFileSystem from '@deepseek-ai/dsh-skill-native/filesystem'
      const { BUNDLED_SKILL_RANK, escapeText, renderSkillContent, isUserInvocable } = registryEntry
      const ctx = new Context()
      await ctx.plugin(SkillRegistry)
      await ctx.plugin(SkillFileSystem, { includeDefaultRoots: false, customSkillDirs: [${skillsDir('host')}], watch: false })
      await ctx.plugin({
        name: 'badge-skills',
        inject: ['skills'],
        apply(ctx) {
          ctx.skills.registerProvider(() => ({
            name: 'badge',
            async list() {
              return [{ name: 'badge', description: 'Show <badges>.', invocation: { modelInvocable: false, userInvocable: true },
                source: 'bundled', provider: 'badge', rank: BUNDLED_SKILL_RANK, locator: 'badge' }]
            },
            async get(candidate) { return { ...candidate, content: 'Badges.' } },
          }))
        },
      })
      let changes = 0
      ctx.on('skills/change', () => void changes++)
      ctx.skills.register({ name: 'inline', description: 'Inline.', content: 'Inline.', source: 'runtime' })
      const menu = (await ctx.skills.list({ cwd: process.cwd() })).filter(isUserInvocable).map((s) => s.name)
      const badge = await ctx.skills.get('badge', { cwd: process.cwd(), signal: new AbortController().signal })
      console.log(JSON.stringify({
        same: [
          registryEntry.SkillRegistry === autoEntry.SkillRegistry,
          registryEntry.SkillLocal === autoEntry.SkillLocal,
          SkillFileSystem.apply === autoFileSystem.apply,
          SkillFileSystem.FileSystemSkillProvider === autoFileSystem.FileSystemSkillProvider,
        ],
        framework: registryEntry.framework,
        changes,
        menu,
        badge: renderSkillContent(badge),
        escaped: escapeText('<b> & </b>'),
        npmLoaded: globalThis.loadedNpmFramework ?? [],
      }))
      `,
    )
    expect(stderr).toBe('')
    expect(code).toBe(0)
    expect(out).toEqual({
      same: [true, true, true, true],
      framework: '@deepseek-ai/cordis',
      changes: 1,
      menu: ['badge', 'inline', 'lint', 'review'],
      badge: expect.stringMatching(/^<skill_content name="badge">\n<skill_resources>\n[^\n]*"?badge"?[^\n]*\n<\/skill_resources>\n\n<skill_instructions>\nBadges\.\n<\/skill_instructions>\n<\/skill_content>$/),
      escaped: '&lt;b&gt; &amp; &lt;/b&gt;',
      npmLoaded: [],
    })
  })

  // The service files the preset's registration into the preset's layer,
  // found through @deepseek-ai/dsh-scope (installed in this project, not configured).
  it('scopes: a preset mounts its own filesystem provider in its scope (dsh-scope found, not configured)', () => {
    const { code, stderr, out } = run(
      harness,
      `
      import { Context } from '@deepseek-ai/cordis'
      import SkillRegistry from '@deepseek-ai/dsh-skill-native/harness'
      import * as SkillFileSystem from '@deepseek-ai/dsh-skill-native/harness/filesystem'
      import scope from '@deepseek-ai/dsh-scope'
      const ctx = new Context()
      await ctx.plugin(SkillRegistry)
      await ctx.plugin(SkillFileSystem, { includeDefaultRoots: false, customSkillDirs: [${skillsDir('host')}], watch: false })
      const reviewer = scope.createScope({ name: 'reviewer' })
      const preset = await scope.assignScope(ctx.extend(), reviewer).plugin(SkillFileSystem, {
        includeDefaultRoots: false, customSkillDirs: [${skillsDir('preset')}], watch: false,
      })
      const view = async (options) => (await ctx.skills.list(options)).map((s) => s.name + ': ' + s.description)
      const out = { host: await view({}), preset: await view({ scope: reviewer }) }
      out.loaded = (await ctx.skills.get('review', { scope: reviewer }))?.content
      await preset.dispose()
      out.after = await view({ scope: reviewer })
      console.log(JSON.stringify(out))
      `,
    )
    expect(stderr).toBe('')
    expect(code).toBe(0)
    expect(out).toEqual({
      host: ['lint: Lint.', 'review: Review (host).'],
      preset: ['deploy: Deploy.', 'lint: Lint.', 'review: Review (preset).'],
      loaded: 'Preset review.',
      after: ['lint: Lint.', 'review: Review (host).'],
    })
  })

  // Per-agent visibility on the fork: a preset's plugin config carries an
  // allow-list for its scope's layer; what the preset's agent cannot see it
  // cannot load or invoke with /name, while the main agent can.
  it('scopes: a preset restricts its agents with overrides in its plugin config', () => {
    const { code, stderr, out } = run(
      harness,
      `
      import { Context } from '@deepseek-ai/cordis'
      import SkillRegistry from '@deepseek-ai/dsh-skill-native/harness'
      import * as SkillFileSystem from '@deepseek-ai/dsh-skill-native/harness/filesystem'
      import { collectSkillInvocations } from '@deepseek-ai/dsh-skill-native'
      import scope from '@deepseek-ai/dsh-scope'
      const ctx = new Context()
      await ctx.plugin(SkillRegistry)
      await ctx.plugin(SkillFileSystem, { includeDefaultRoots: false, customSkillDirs: [${skillsDir('host')}], watch: false })
      const reviewer = scope.createScope({ name: 'reviewer' })
      const preset = await scope.assignScope(ctx.extend(), reviewer).plugin(SkillFileSystem, {
        includeDefaultRoots: false, customSkillDirs: [${skillsDir('preset')}], watch: false,
        overrides: [{ name: '*', effect: 'off' }, { name: 'review', effect: 'on' }],
      })
      const names = async (options) => (await ctx.skills.list(options)).map((s) => s.name)
      const invoked = async (options) =>
        (await collectSkillInvocations({ skills: ctx.skills, messages: [{ role: 'user', content: '/lint /review' }], ...options })).map((i) => i.name)
      const why = await ctx.skills.explain('lint', { scope: reviewer })
      const out = {
        main: await names({}),
        reviewer: await names({ scope: reviewer }),
        lint: [(await ctx.skills.get('lint'))?.content, (await ctx.skills.get('lint', { scope: reviewer }))?.content ?? null],
        invoked: [await invoked({}), await invoked({ scope: reviewer })],
        explained: { reason: why.losers[0].reason, effect: why.losers[0].override.effect, byReviewer: why.losers[0].override.scope === reviewer },
      }
      await preset.dispose()
      out.after = await names({ scope: reviewer })
      console.log(JSON.stringify(out))
      `,
    )
    expect(stderr).toBe('')
    expect(code).toBe(0)
    expect(out).toEqual({
      main: ['lint', 'review'],
      reviewer: ['review'],
      lint: ['Lint it.', null],
      invoked: [
        ['lint', 'review'],
        ['review'],
      ],
      explained: { reason: 'off', effect: 'off', byReviewer: true },
      after: ['lint', 'review'],
    })
  })

  it('DSH_SKILL_CORDIS=cordis makes the automatic entries load npm cordis (here: the trap)', () => {
    const { code, stderr } = run(harness, `await import('@deepseek-ai/dsh-skill-native/cordis')`, {
      env: { DSH_SKILL_CORDIS: 'cordis' },
    })
    expect(code).not.toBe(0)
    expect(stderr).toContain('npm cordis was loaded')
    const pinned = run(harness, `const m = await import('@deepseek-ai/dsh-skill-native/harness'); console.log(JSON.stringify({ framework: m.framework }))`, {
      env: { DSH_SKILL_CORDIS: 'cordis' },
    })
    expect(pinned.stderr).toBe('')
    expect(pinned.out).toEqual({ framework: '@deepseek-ai/cordis' })
  })

  it('typings: a TypeScript harness on @deepseek-ai/cordis compiles against …/harness and …/harness/filesystem (strict)', { timeout: 180_000 }, () => {
    const project = path.join(harness, 'ts')
    compiles(project, 'harness-typings')
  })
})

describe('in a project on npm cordis (no fork installed)', () => {
  it('the automatic entries load npm cordis, from ESM and CommonJS', () => {
    const esm = run(
      plain,
      `
      import { Context } from 'cordis'
      import SkillRegistry, { framework } from '@deepseek-ai/dsh-skill-native/cordis'
      import * as SkillFileSystem from '@deepseek-ai/dsh-skill-native/filesystem'
      const ctx = new Context()
      await ctx.plugin(SkillRegistry)
      await ctx.plugin(SkillFileSystem, { includeDefaultRoots: false, customSkillDirs: [${skillsDir('preset')}], watch: false })
      console.log(JSON.stringify({ framework, skills: (await ctx.skills.list()).map((s) => s.provider + ':' + s.name) }))
      `,
    )
    expect(esm.stderr).toBe('')
    expect(esm.out).toEqual({ framework: 'cordis', skills: ['filesystem:deploy', 'filesystem:review'] })
    const cjs = run(
      plain,
      `
      const { framework, SkillRegistry } = require('@deepseek-ai/dsh-skill-native/cordis')
      const { Service } = require('cordis')
      const { name, FileSystemSkillProvider } = require('@deepseek-ai/dsh-skill-native/filesystem')
      console.log(JSON.stringify({ framework, name, extendsNpm: SkillRegistry.prototype instanceof Service, provider: new FileSystemSkillProvider({ watch: false }).name }))
      `,
      { commonjs: true },
    )
    expect(cjs.stderr).toBe('')
    expect(cjs.out).toEqual({ framework: 'cordis', name: 'skill-filesystem', extendsNpm: true, provider: 'filesystem' })
    const pinned = run(plain, `await import('@deepseek-ai/dsh-skill-native/harness/filesystem')`)
    expect(pinned.code).not.toBe(0)
    expect(pinned.stderr).toContain("Cannot find module '@deepseek-ai/cordis'")
  })

  it('typings: a TypeScript consumer of …/cordis and …/filesystem compiles against the installed package (strict)', { timeout: 180_000 }, () => {
    const project = path.join(plain, 'ts')
    compiles(project, 'release-typings')
  })
})

/**
 * Export parity: each entry, as installed from the packed tarball, exports
 * every name of the harness packages it stands in for (`export-lists.ts`),
 * with the same kind, from ESM and CommonJS, and its `.d.ts` declares them.
 */
describe('export parity with the harness packages', () => {
  /** The names of `list` an entry lacks or exports with another kind, per module system. */
  function mismatches(project: string, entry: EntryName, list: ExportList) {
    const { code, stderr, out } = run(project, runtimeProbe(entry, list))
    expect(stderr).toBe('')
    expect(code).toBe(0)
    const wrong: string[] = []
    for (const system of ['esm', 'cjs'] as const) {
      const found = out[system] as { kinds: Record<string, string>; same: boolean[]; configured: boolean[] }
      for (const [name, kind] of Object.entries(list.values)) {
        if (found.kinds[name] !== kind) wrong.push(`${system} ${name}: ${found.kinds[name] ?? 'missing'}, not ${kind}`)
      }
      found.same.forEach((ok, i) => ok || wrong.push(`${system} ${list.same?.[i]?.join(' !== ')}`))
      found.configured.forEach((ok, i) => ok || wrong.push(`${system} ${list.configured?.[i]}.Config is no schema`))
    }
    return wrong
  }

  const inHarness = Object.keys(ENTRIES) as EntryName[]
  it.each(inHarness)('%s, inside a harness on @deepseek-ai/cordis: every listed value, same kind, ESM and CommonJS', (entry) => {
    expect(mismatches(harness, entry, ENTRIES[entry])).toEqual([])
  })

  const onNpm: EntryName[] = ['@deepseek-ai/dsh-skill-native', '@deepseek-ai/dsh-skill-native/cordis', '@deepseek-ai/dsh-skill-native/filesystem']
  it.each(onNpm)('%s, in a project on npm cordis: every listed value, same kind, ESM and CommonJS', (entry) => {
    expect(mismatches(plain, entry, ENTRIES[entry])).toEqual([])
  })

  it('the typings of every entry declare every listed name with its kind, and the ctx.skills augmentation (strict)', { timeout: 180_000 }, () => {
    const check = (project: string, entries: EntryName[], framework: string) => {
      const dir = path.join(project, 'parity')
      fs.mkdirSync(dir, { recursive: true })
      entries.forEach((entry, i) => fs.writeFileSync(path.join(dir, `probe${i}.ts`), typeProbe(entry, ENTRIES[entry], framework)))
      compiles(dir, { source: entries.map((_, i) => `export * as probe${i} from './probe${i}'`).join('\n') + '\n' })
    }
    check(
      harness,
      [
        '@deepseek-ai/dsh-skill-native/harness',
        '@deepseek-ai/dsh-skill-native/harness/filesystem',
        '@deepseek-ai/dsh-skill-native/harness/tool-skill',
        '@deepseek-ai/dsh-skill-native/harness/tool-skill/invariant',
      ],
      '@deepseek-ai/cordis',
    )
    check(plain, onNpm, 'cordis')
  })
})

/**
 * A harness whose `skill` tool imports every helper from the entry under test
 * (`stand-ins/skill-tool.mjs`, its import line pointed at that entry): a model
 * creates a project skill and loads it, a user `/name`s it, and the tool's
 * refusals and boundaries hold — unknown, invalid and model-disabled names, a
 * policy that changes between listing and loading, a runtime skill whose
 * resource base the output schema refuses, the calling agent's layered view,
 * and a body-only edit.
 */
describe.each([
  ['@deepseek-ai/dsh-skill-native/harness', '@deepseek-ai/dsh-skill-native/harness/filesystem'],
  ['@deepseek-ai/dsh-skill-native/cordis', '@deepseek-ai/dsh-skill-native/filesystem'],
])('a skill tool importing from %s', (entry, fileSystemEntry) => {
  it('creates, lists, loads and /names a skill; refuses what the model may not load', () => {
    const tag = entry.endsWith('harness') ? 'harness' : 'cordis'
    const stand = fs.readFileSync(path.join(__dirname, 'stand-ins', 'skill-tool.mjs'), 'utf8')
    const rewritten = stand.replace("from '@deepseek-ai/dsh-skill-native/harness'", `from '${entry}'`)
    expect(rewritten).toContain(`from '${entry}'`)
    fs.writeFileSync(path.join(harness, `skill-tool-${tag}.mjs`), rewritten)
    const project = path.join(base, `tool-${tag}`, 'project')
    const home = path.join(base, `tool-${tag}`, 'home')
    const { code, stderr, out } = run(
      harness,
      `
      import * as fs from 'node:fs'
      import * as path from 'node:path'
      import { Context } from '@deepseek-ai/cordis'
      import SkillRegistry from '${entry}'
      import * as SkillFileSystem from '${fileSystemEntry}'
      import scope from '@deepseek-ai/dsh-scope'
      import { skillTool, invocations } from './skill-tool-${tag}.mjs'
      const project = ${JSON.stringify(project)}
      const write = (rel, text) => {
        const file = path.join(project, '.dsh', 'skills', rel)
        fs.mkdirSync(path.dirname(file), { recursive: true })
        fs.writeFileSync(file, text)
      }
      fs.mkdirSync(path.join(project, '.git'), { recursive: true })
      const ctx = new Context()
      await ctx.plugin(SkillRegistry)
      await ctx.plugin(SkillFileSystem, { dshHome: ${JSON.stringify(path.join(home, '.dsh'))}, agentsHome: ${JSON.stringify(path.join(home, '.agents'))}, watch: true })
      const agent = { cwd: project }
      const tool = skillTool(ctx.skills)
      const attempt = async (name, who = agent) => {
        try { return { text: await tool.call({ name }, who) } } catch (error) { return { code: error.code, message: error.message } }
      }
      const catalog = async (who = agent) =>
        (await ctx.skills.snapshot({ cwd: who.cwd, scope: who.scope })).skills.map((s) => [s.name, s.description])
      const user = (text) => [{ source: { kind: 'user' }, content: [{ type: 'text', text }] }]
      const out = { before: await catalog() }
      write('deploy/SKILL.md', '---\\nname: deploy\\ndescription: Ship the app.\\n---\\nDeploy steps.\\n')
      out.after = await catalog()
      out.loaded = await attempt('deploy')
      out.gestures = await invocations(ctx.skills, user('/deploy please, and /nope; /deploy again'), agent)
      out.unknown = await attempt('nope')
      out.invalid = await attempt('Not_A_Name')
      write('secret.md', '---\\nname: secret\\ndescription: Human only.\\ndisable-model-invocation: true\\n---\\nSecret.\\n')
      out.disabled = await attempt('secret')
      out.secretByUser = (await invocations(ctx.skills, user('/secret'), agent)).map((i) => i.source)
      ctx.skills.registerProvider(() => ({
        name: 'flaky',
        async list() {
          return [{ name: 'flip', description: 'Flips.', invocation: { modelInvocable: true, userInvocable: true },
            source: 'custom', provider: 'flaky', rank: 300, locator: 'flip' }]
        },
        async get(candidate) {
          return { ...candidate, invocation: { modelInvocable: false, userInvocable: true }, content: 'Flipped.' }
        },
      }))
      out.flip = await attempt('flip')
      ctx.skills.register({ name: 'remote', description: 'Remote.', content: 'Remote.', source: 'runtime', resourceBase: { kind: 'ftp', host: 'example' } })
      out.remoteBase = (await ctx.skills.get('remote', { cwd: project }))?.resourceBase
      out.remote = await attempt('remote')
      const reviewer = scope.createScope({ name: 'reviewer' })
      scope.assignScope(ctx.extend(), reviewer).skills.register({ name: 'deploy', description: 'Deploy for reviewers.', content: 'Reviewer deploy.', source: 'runtime' })
      out.reviewer = await attempt('deploy', { cwd: project, scope: reviewer })
      out.host = await attempt('deploy')
      const beforeEdit = await catalog()
      write('deploy/SKILL.md', '---\\nname: deploy\\ndescription: Ship the app.\\n---\\nNew deploy steps.\\n')
      out.sameCatalog = JSON.stringify(await catalog()) === JSON.stringify(beforeEdit)
      out.edited = await attempt('deploy')
      console.log(JSON.stringify(out))
      process.exit(0)
      `,
    )
    expect(stderr).toBe('')
    expect(code).toBe(0)
    const skillDir = path.join(project, '.dsh', 'skills', 'deploy')
    const content = (name: string, base: string, body: string) =>
      new RegExp(`^<skill_content name="${name}">\\n<skill_resources>\\n${base}[^]*\\n</skill_resources>\\n\\n<skill_instructions>\\n${body}\\n</skill_instructions>\\n</skill_content>$`)
    const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
    expect(out.before).toEqual([])
    expect(out.after).toEqual([['deploy', 'Ship the app.']])
    expect(out.loaded.text).toMatch(content('deploy', `[^\\n]*${escaped(skillDir)}`, 'Deploy steps\\.\\n?'))
    expect(out.gestures).toHaveLength(1)
    expect(out.gestures[0].source).toEqual({ kind: 'skill-invocation', name: 'deploy', form: 'instructions' })
    expect(out.gestures[0].text).toBe(out.loaded.text)
    expect(out.unknown.code).toBe('TOOL_FAILED')
    expect(out.unknown.message).toContain('nope')
    expect(out.invalid.code).toBe('TOOL_FAILED')
    expect(out.invalid.message).toContain('not a skill name')
    expect(out.disabled).toEqual({ code: 'TOOL_FAILED', message: 'secret may not be loaded by the model' })
    expect(out.secretByUser).toEqual([{ kind: 'skill-invocation', name: 'secret', form: 'instructions' }])
    expect(out.flip).toEqual({ code: 'TOOL_FAILED', message: 'flip may not be loaded by the model' })
    expect(out.remoteBase).toEqual({ kind: 'ftp', host: 'example' })
    expect(out.remote.code).toBe('INVALID_TOOL_OUTPUT')
    expect(out.reviewer.text).toMatch(content('deploy', '[^\\n]*runtime', 'Reviewer deploy\\.'))
    expect(out.host.text).toBe(out.loaded.text)
    expect(out.sameCatalog).toBe(true)
    expect(out.edited.text).toMatch(content('deploy', `[^\\n]*${escaped(skillDir)}`, 'New deploy steps\\.\\n?'))
  })
})

describe('the search tool on the fork', () => {
  it('…/harness/search-tool registers skill_search through ctx.tools and finds a skill in the agent\'s view', () => {
    const { code, stderr, out } = run(
      harness,
      `
      import { Context } from '@deepseek-ai/cordis'
      import SkillRegistry from '@deepseek-ai/dsh-skill-native/harness'
      import * as SkillSearchTool from '@deepseek-ai/dsh-skill-native/harness/search-tool'
      import tools from '@deepseek-ai/dsh-tools'
      const ctx = new Context()
      const registry = new tools.ToolRegistry()
      ctx.provide('tools', registry)
      await ctx.plugin(SkillRegistry)
      await ctx.plugin(SkillSearchTool)
      ctx.skills.register({ name: 'invoice-extractor', description: 'Pull totals out of scanned invoices.', content: 'x' })
      ctx.skills.register({ name: 'deploy', description: 'Ship the app.', content: 'x' })
      const agent = { session: { header: { cwd: process.cwd() } } }
      const result = await registry.call(SkillSearchTool.toolName, { query: 'totals of scanned invoices' }, { agent, signal: new AbortController().signal })
      console.log(JSON.stringify({ text: result.content[0].text }))
      process.exit(0)
      `,
    )
    expect(stderr).toBe('')
    expect(code).toBe(0)
    expect(out.text.split('\n').slice(0, 2)).toEqual([
      '1 skill matches "totals of scanned invoices", best first:',
      '- `invoice-extractor`: Pull totals out of scanned invoices.',
    ])
  })
})

describe('registry behaviour at release 0.1.1-rc.2, on the fork', () => {
  it('a factory whose registration fails after it ran sees its signal aborted with that failure; failing skills/change listeners are logged and the mutation stands', () => {
    const { code, stderr, out } = run(
      harness,
      `
      import { Context } from '@deepseek-ai/cordis'
      import SkillRegistry from '@deepseek-ai/dsh-skill-native/harness'
      const provider = (name) => ({ name, list: async () => [], get: async () => undefined })
      const attempt = (ctx, name) => {
        const seen = { calls: 0, tornDown: false }
        try {
          ctx.skills.registerProvider((control) => {
            seen.calls++
            seen.control = control
            control.signal.addEventListener('abort', () => { seen.tornDown = true })
            return provider(name)
          })
        } catch (error) {
          seen.thrown = error
        }
        return { calls: seen.calls, tornDown: seen.tornDown, aborted: seen.control?.signal.aborted,
          sameReason: seen.thrown !== undefined && seen.control?.signal.reason === seen.thrown, message: seen.thrown?.message }
      }
      // A scope resolver that fails: the registration fails after the factory ran.
      const broken = new Context()
      await broken.plugin(SkillRegistry, { scopes: { scopeOf() { throw new Error('scope unknown') }, scopeChainOf: (key) => [key] } })
      const out = { scopeFails: attempt(broken, 'remote') }
      // A duplicate name inside the registration effect.
      const ctx = new Context()
      const warnings = []
      ctx.logger.exporter({ export: (m) => m.type === 'warn' && warnings.push(String(m.args[0])) })
      await ctx.plugin(SkillRegistry)
      ctx.skills.registerProvider(() => provider('remote'))
      out.duplicate = attempt(ctx, 'remote')
      let calm = 0
      ctx.on('skills/change', () => { throw new Error('observer threw') })
      ctx.on('skills/change', async () => { throw new Error('observer rejected') })
      ctx.on('skills/change', () => { calm++ })
      ctx.skills.register({ name: 'inline', description: 'Inline.', content: 'Inline.', source: 'runtime' })
      await new Promise((resolve) => setTimeout(resolve, 20))
      out.listed = (await ctx.skills.list()).map((s) => s.name)
      out.calm = calm
      out.warnings = warnings
      console.log(JSON.stringify(out))
      `,
    )
    expect(stderr).toBe('')
    expect(code).toBe(0)
    expect(out.scopeFails).toEqual({ calls: 1, tornDown: true, aborted: true, sameReason: true, message: 'scope unknown' })
    expect(out.duplicate).toMatchObject({ calls: 1, tornDown: true, aborted: true, sameReason: true })
    expect(out.duplicate.message).toContain('remote')
    expect(out.listed).toEqual(['inline'])
    expect(out.calm).toBe(1)
    expect(out.warnings).toEqual([expect.stringContaining('observer threw'), expect.stringContaining('observer rejected')])
  })
})
