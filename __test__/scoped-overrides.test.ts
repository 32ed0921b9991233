// Per-agent skill visibility: override rules per scope layer. Through the
// Cordis entries of both releases (`…/cordis` with `SkillLocal`, and the
// registry with the `…/filesystem` module), on npm `cordis`
// (harness-fork.test.ts runs the `…/harness` entries on the fork), and on the
// plain registry. A preset restricts what its agents see; what an agent
// cannot see it cannot list, load or invoke with `/name`; `explain` names the
// rule and the layer; same-skill duplicates are no conflict.
import * as fs from 'node:fs'
import { createRequire } from 'node:module'
import * as path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { Context, type Message } from 'cordis'
import SkillRegistry, { SkillLocal, escapeText, isModelInvocable, renderSkillContent } from '../cordis.mjs'
import * as SkillFileSystem from '../filesystem.mjs'
import { collectSkillInvocations, renderCatalog, SkillRegistry as PlainRegistry } from '../index.mjs'
import type { SkillExplanation } from '../index.js'
import { cleanEnv, runCli } from './cli-helpers'
import { tempDirs, write } from './helpers'

const require = createRequire(import.meta.url)
const scope = require('./stand-ins/@deepseek-ai/dsh-scope') as typeof import('./stand-ins/@deepseek-ai/dsh-scope')

/** What a preset does: a context of its own, forked from `ctx`, in `key`'s scope. */
const scoped = (ctx: Context, key: object) => scope.assignScope(ctx.extend(), key)

const temps = tempDirs('dsh-scoped-rules-')
afterEach(() => temps.cleanup())

function writeSkill(file: string, name: string, description: string, body: string) {
  write(file, `---\nname: ${name}\ndescription: ${description}\n---\n${body}\n`)
}

/** One root of host skills. */
function hostRoot() {
  const dir = path.join(temps.make(), 'host')
  writeSkill(path.join(dir, 'review-code', 'SKILL.md'), 'review-code', 'Review code.', 'Review the code.')
  writeSkill(path.join(dir, 'review-docs.md'), 'review-docs', 'Review docs.', 'Review the docs.')
  writeSkill(path.join(dir, 'deploy.md'), 'deploy', 'Deploy.', 'Deploy it.')
  writeSkill(path.join(dir, 'notes.md'), 'notes', 'Notes.', 'Take notes.')
  return { includeDefaultRoots: false, customSkillDirs: [dir], watch: false }
}

type Call = { cwd: string; signal: AbortSignal; scope?: object }

/** A `skill` tool in the harness's manner (see harness-dropin.test.ts). */
async function skillTool(ctx: Context, name: string, call: Call): Promise<string> {
  const { skills } = await ctx.skills.snapshot(call)
  const summary = skills.find((skill) => skill.name === name)
  if (summary === undefined) return `Unknown skill: ${escapeText(name)}`
  if (!isModelInvocable(summary)) return `The skill ${escapeText(name)} cannot be loaded by the model.`
  const definition = await ctx.skills.get(name, call)
  if (definition === undefined) return `The skill ${escapeText(name)} is no longer available.`
  if (!isModelInvocable(definition)) return `The skill ${escapeText(name)} cannot be loaded by the model.`
  return renderSkillContent(definition)
}

const call = (key?: object): Call => {
  const options: Call = { cwd: process.cwd(), signal: new AbortController().signal }
  if (key !== undefined) options.scope = key
  return options
}

async function names(ctx: Context, key?: object) {
  return (await ctx.skills.list(call(key))).map((s) => s.name)
}

async function gestures(ctx: Context, text: string, key?: object) {
  const invoked = await collectSkillInvocations({ skills: ctx.skills, messages: [{ role: 'user', content: text }], ...call(key) })
  return invoked.map((i) => i.name)
}

const RELEASES = [
  { release: 'earlier (…/cordis, SkillLocal)', plugin: SkillLocal, provider: 'local' },
  { release: 'current (SkillRegistry, …/filesystem)', plugin: SkillFileSystem, provider: 'filesystem' },
] as const

describe.each(RELEASES)('a preset restricts its agents through the Cordis entries: $release', ({ plugin, provider }) => {
  async function harness() {
    const ctx = new Context()
    const messages: Message[] = []
    ctx.logger.exporter({ export: (message) => messages.push(message) })
    await ctx.plugin(SkillRegistry, { scopes: scope })
    await ctx.plugin(plugin as never, hostRoot())
    const warnings = () => messages.filter((m) => m.type === 'warn').map((m) => String(m.args[0]))
    return { ctx, warnings }
  }

  it('the reviewer sees, loads and invokes only review-* skills; a subagent one skill; the main agent all', async () => {
    const { ctx, warnings } = await harness()
    let changes = 0
    ctx.on('skills/change', () => void changes++)
    const reviewer = scope.createScope({ name: 'reviewer' })
    const subagent = scope.createScope({ name: 'subagent', parent: reviewer })
    // The reviewer preset carries its allow-list in its plugin's config (a
    // provider of its own, with no roots), and marks review-docs user-only.
    const preset = await scoped(ctx, reviewer).plugin(plugin as never, {
      includeDefaultRoots: false,
      watch: false,
      overrides: [
        { name: '*', effect: 'off' },
        { name: 'review-*', effect: 'on' },
        { name: 'review-docs', effect: 'user-only' },
      ],
    })
    // The subagent's preset only restricts: rules without any registration.
    await scoped(ctx, subagent).plugin({
      inject: ['skills'],
      apply(ctx: Context) {
        ctx.skills.setOverrides([{ name: '*', effect: 'off' }, { name: 'review-code', effect: 'on' }], { scope: subagent })
      },
    })
    expect(changes).toBe(2)

    expect(await names(ctx)).toEqual(['deploy', 'notes', 'review-code', 'review-docs'])
    expect(await names(ctx, reviewer)).toEqual(['review-code', 'review-docs'])
    expect(await names(ctx, subagent)).toEqual(['review-code'])

    // What an agent cannot see, it cannot load…
    expect(await ctx.skills.get('deploy', call(reviewer))).toBeUndefined()
    expect(await ctx.skills.get('review-docs', call(subagent))).toBeUndefined()
    expect((await ctx.skills.get('deploy', call()))?.content).toBe('Deploy it.')
    expect(await skillTool(ctx, 'deploy', call(reviewer))).toBe('Unknown skill: deploy')
    expect(await skillTool(ctx, 'deploy', call())).toContain('Deploy it.')
    // …nor invoke with /name.
    expect(await gestures(ctx, '/deploy /review-code', reviewer)).toEqual(['review-code'])
    expect(await gestures(ctx, '/deploy /review-docs', subagent)).toEqual([])
    expect(await gestures(ctx, '/deploy /review-docs', undefined)).toEqual(['deploy', 'review-docs'])

    // user-only for the reviewer: not in its catalog, refused by its tool, fine as /name.
    const reviewerSkills = await ctx.skills.list(call(reviewer))
    expect(renderCatalog(reviewerSkills).entries).not.toContain('review-docs')
    expect(renderCatalog(await ctx.skills.list(call())).entries).toContain('review-docs')
    expect(await skillTool(ctx, 'review-docs', call(reviewer))).toBe('The skill review-docs cannot be loaded by the model.')
    expect(await skillTool(ctx, 'review-docs', call())).toContain('Review the docs.')
    expect((await ctx.skills.get('review-docs', call(reviewer)))?.invocation).toEqual({ modelInvocable: false, userInvocable: true })
    expect(await gestures(ctx, 'please /review-docs', reviewer)).toEqual(['review-docs'])

    // explain names the rule and the layer it came from.
    const deploy = (await ctx.skills.explain('deploy', call(reviewer))) as SkillExplanation
    expect(deploy.winner).toBeUndefined()
    expect(deploy.losers).toEqual([expect.objectContaining({ provider, reason: 'off', override: { rule: 0, effect: 'off', scope: reviewer } })])
    const code = (await ctx.skills.explain('review-code', call(subagent))) as SkillExplanation
    expect(code.winner?.override).toEqual({ rule: 1, effect: 'on', scope: subagent })
    const docs = (await ctx.skills.explain('review-docs', call(subagent))) as SkillExplanation
    expect(docs.losers[0]).toMatchObject({ reason: 'off', override: { rule: 0, effect: 'off', scope: subagent } })
    // The main agent's view has no rule.
    expect((await ctx.skills.explain('deploy', call()))?.winner?.override).toBeUndefined()

    // Disposing the reviewer preset removes its rules (the subagent keeps its own).
    await preset.dispose()
    expect(await names(ctx, reviewer)).toEqual(['deploy', 'notes', 'review-code', 'review-docs'])
    expect(await names(ctx, subagent)).toEqual(['review-code'])
    expect(warnings()).toEqual([])
  })

  it('a scope with no rules of its own follows its parent, and a re-link changes its rules on the next read', async () => {
    const { ctx } = await harness()
    const reviewer = scope.createScope({ name: 'reviewer' })
    const writer = scope.createScope({ name: 'writer' })
    const agent = scope.createScope({ name: 'agent', parent: reviewer })
    ctx.skills.setOverrides([{ name: '*', effect: 'off' }, { name: 'review-*', effect: 'on' }], { scope: reviewer })
    ctx.skills.setOverrides([{ name: 'review-*', effect: 'off' }], { scope: writer })
    expect(await names(ctx, agent)).toEqual(['review-code', 'review-docs'])
    scope.relink(agent, writer)
    expect(await names(ctx, agent)).toEqual(['deploy', 'notes'])
    scope.relink(agent, undefined)
    expect(await names(ctx, agent)).toEqual(['deploy', 'notes', 'review-code', 'review-docs'])
    // `[]` removes a scope's rules.
    ctx.skills.setOverrides([], { scope: reviewer })
    expect(await names(ctx, reviewer)).toEqual(['deploy', 'notes', 'review-code', 'review-docs'])
  })

  it("changing a scope's rules drops only the catalogs that merged its layer, and notifies once", async () => {
    const { ctx } = await harness()
    // A JS provider that counts its list() calls: a cache hit does not call it.
    const calls: string[] = []
    ctx.skills.registerProvider(() => ({
      name: 'counted',
      list: async (options: { scope?: { name?: string } }) => {
        calls.push(options.scope?.name ?? 'main')
        return []
      },
      get: async () => undefined,
    }))
    const reviewer = scope.createScope({ name: 'reviewer' })
    const writer = scope.createScope({ name: 'writer' })
    ctx.skills.setOverrides([{ name: 'deploy', effect: 'off' }], { scope: reviewer })
    ctx.skills.setOverrides([{ name: 'notes', effect: 'off' }], { scope: writer })
    // Different rules, different catalogs: each view is collected once.
    expect(await names(ctx)).toEqual(['deploy', 'notes', 'review-code', 'review-docs'])
    expect(await names(ctx, writer)).toEqual(['deploy', 'review-code', 'review-docs'])
    expect(await names(ctx, reviewer)).toEqual(['notes', 'review-code', 'review-docs'])
    for (const key of [undefined, writer, reviewer]) await names(ctx, key)
    expect(calls).toEqual(['main', 'writer', 'reviewer'])
    let changes = 0
    ctx.on('skills/change', () => void changes++)
    ctx.skills.setOverrides([{ name: 'deploy', effect: 'user-only' }], { scope: reviewer })
    expect(changes).toBe(1)
    for (const key of [undefined, writer, reviewer]) await names(ctx, key)
    expect(calls).toEqual(['main', 'writer', 'reviewer', 'reviewer'])
    expect((await ctx.skills.list(call(reviewer))).find((s) => s.name === 'deploy')?.invocation).toEqual({
      modelInvocable: false,
      userInvocable: true,
    })
    // The global rules drop every catalog.
    ctx.skills.setOverrides([{ name: 'notes', effect: 'model-only' }])
    expect(changes).toBe(2)
    for (const key of [undefined, writer, reviewer]) await names(ctx, key)
    expect(calls).toEqual(['main', 'writer', 'reviewer', 'reviewer', 'main', 'writer', 'reviewer'])
  })
})

describe('scoped rules on the plain registry', () => {
  function registry() {
    const warnings: string[] = []
    const r = new PlainRegistry({ scopes: scope, logger: { warn: (m) => warnings.push(m) } })
    return { r, warnings }
  }
  const skill = (name: string, description = `${name}.`) => ({ name, description, content: `${name} body.`, source: 'runtime' as const })

  it('the nearest layer decides; the global rules come first', async () => {
    const { r } = registry()
    const team = scope.createScope({ name: 'team' })
    const agent = scope.createScope({ name: 'agent', parent: team })
    for (const name of ['alpha', 'beta', 'gamma']) r.register(skill(name))
    r.setOverrides([{ name: 'gamma', effect: 'off' }])
    r.setOverrides([{ name: 'gamma', effect: 'on' }, { name: 'beta', effect: 'off' }], { scope: team })
    r.setOverrides([{ name: 'beta', effect: 'on' }, { name: 'alpha', effect: 'off' }], { scope: agent })
    const view = async (key?: object) => (await r.list(key ? { scope: key } : {})).map((s) => s.name)
    expect(await view()).toEqual(['alpha', 'beta'])
    expect(await view(team)).toEqual(['alpha', 'gamma'])
    expect(await view(agent)).toEqual(['beta', 'gamma'])
    const why = await r.explain('gamma', { scope: agent })
    expect(why?.winner?.override).toEqual({ rule: 0, effect: 'on', scope: team })
    expect((await r.explain('gamma'))?.losers[0]).toMatchObject({ reason: 'off', override: { rule: 0, effect: 'off' } })
    expect((await r.explain('gamma'))?.losers[0].override).not.toHaveProperty('scope')
  })

  it("a registration's overrides hold while it lasts; they need a scope; invalid rules register nothing", async () => {
    const { r } = registry()
    const agent = scope.createScope({ name: 'agent' })
    r.register(skill('alpha'))
    r.register(skill('beta'))
    const dispose = r.register(skill('own'), { scope: agent, overrides: [{ name: 'beta', effect: 'off' }] })
    expect((await r.list({ scope: agent })).map((s) => s.name)).toEqual(['alpha', 'own'])
    dispose()
    expect((await r.list({ scope: agent })).map((s) => s.name)).toEqual(['alpha', 'beta'])
    expect(() => r.register(skill('x'), { overrides: [{ name: 'beta', effect: 'off' }] } as never)).toThrow(
      /^register: options\.overrides are the rules of a scope's layer and need options\.scope/,
    )
    expect(() =>
      r.registerProvider(() => ({ name: 'p', list: async () => [], get: async () => undefined }), {
        scope: agent,
        overrides: [{ name: 'beta', effect: 'disable' }] as never,
      }),
    ).toThrow(/overrides\[0\]\.effect must be 'off', 'user-only', 'model-only' or 'on'/)
    expect(() => r.setOverrides([{ name: 'Bad_Name', effect: 'off' }], { scope: agent })).toThrow(/overrides\[0\]\.name must be/)
    expect(() => r.setOverrides([], { scope: 'agent' } as never)).toThrow(/^setOverrides: options\.scope must be a scope key/)
    // Nothing stayed registered or switched off.
    expect((await r.list({ scope: agent })).map((s) => s.name)).toEqual(['alpha', 'beta'])
    // The same provider name registers fine afterwards.
    r.registerProvider(() => ({ name: 'p', list: async () => [], get: async () => undefined }), { scope: agent })
  })

  it('a registry without scoped rules renders the same bytes as before', async () => {
    const { r } = registry()
    const plain = registry().r
    for (const target of [r, plain]) for (const name of ['alpha', 'beta']) target.register(skill(name))
    const other = scope.createScope({ name: 'other' })
    // Rules on a scope nobody reads with leave every other view alone.
    r.setOverrides([{ name: '*', effect: 'off' }], { scope: other })
    expect(renderCatalog(await r.list()).entries).toBe(renderCatalog(await plain.list()).entries)
    expect(renderCatalog(await r.list()).digest).toBe(renderCatalog(await plain.list()).digest)
    expect(await r.list({ scope: other })).toEqual([])
  })
})

describe('the same skill twice is no conflict', () => {
  function roots(same: boolean) {
    const base = temps.make()
    const agents = path.join(base, 'agents')
    const dsh = path.join(base, 'dsh')
    writeSkill(path.join(agents, 'review', 'SKILL.md'), 'review', 'Review.', 'Review it.')
    writeSkill(path.join(agents, 'review', 'references', 'guide.md'), 'guide', 'Guide.', 'A guide.')
    writeSkill(path.join(dsh, 'review', 'SKILL.md'), 'review', 'Review.', same ? 'Review it.' : 'Review it twice.')
    writeSkill(path.join(dsh, 'review', 'references', 'guide.md'), 'guide', 'Guide.', 'A guide.')
    return { includeDefaultRoots: false, customSkillDirs: [agents, dsh], watch: false }
  }

  it('byte-identical skill files: the loser is reported as "same" and no warning is logged', async () => {
    const warnings: string[] = []
    const r = new PlainRegistry({ logger: { warn: (m) => warnings.push(m) } })
    const provider = r.registerLocalProvider(roots(true))
    expect((await r.list()).map((s) => s.name)).toEqual(['review'])
    expect(warnings).toEqual([])
    const why = await r.explain('review')
    expect(why?.losers).toEqual([expect.objectContaining({ reason: 'same' })])
    // doctor says so too.
    const diagnosis = await provider.diagnose()
    const shadowed = diagnosis.files.find((f) => f.outcome === 'shadowed')
    expect(shadowed).toMatchObject({ same: true })
    expect(shadowed?.reason).toMatch(/the same skill: identical files/)
    await provider.dispose()
  })

  it('the CLI: doctor and explain say "same", and no shadowing warning is printed', () => {
    const base = temps.make()
    const home = path.join(base, 'home')
    const cwd = path.join(base, 'project')
    fs.mkdirSync(path.join(cwd, '.git'), { recursive: true })
    for (const root of ['.dsh', '.agents']) {
      writeSkill(path.join(home, root, 'skills', 'review', 'SKILL.md'), 'review', 'Review.', 'Review it.')
    }
    const env = cleanEnv(home)
    const doctor = runCli(['doctor'], { cwd, env })
    expect(doctor.code).toBe(0)
    expect(doctor.stdout).toMatch(/shadowed +review +review\/SKILL\.md\n +by .*\.dsh\/skills\/review\/SKILL\.md \[user-dsh\] \(the same skill: identical files\)\n/)
    const explain = runCli(['explain', 'review'], { cwd, env })
    expect(explain.code).toBe(0)
    expect(explain.stdout).toMatch(/^same +local +user-agents +500 /m)
    expect(explain.stderr).toBe('')
    // Another body: the usual warning, saying the files differ.
    writeSkill(path.join(home, '.agents', 'skills', 'review', 'SKILL.md'), 'review', 'Review.', 'Review it twice.')
    const differ = runCli(['explain', 'review', '--verbose'], { cwd, env })
    expect(differ.stderr).toMatch(/is shadowed by .*; the two skill files differ\n/)
    expect(runCli(['doctor'], { cwd, env }).stdout).toContain('[user-dsh] (the files differ)')
  })

  it('different content keeps the warning, which says the two differ', async () => {
    const warnings: string[] = []
    const r = new PlainRegistry({ logger: { warn: (m) => warnings.push(m) } })
    const provider = r.registerLocalProvider(roots(false))
    await r.list()
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatch(/is shadowed by .*; the two skill files differ/)
    expect((await r.explain('review'))?.losers).toEqual([expect.objectContaining({ reason: 'order' })])
    expect((await provider.diagnose()).files.find((f) => f.outcome === 'shadowed')).toMatchObject({ same: false })
    await provider.dispose()
  })
})
