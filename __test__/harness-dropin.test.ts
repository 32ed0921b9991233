// Drop-in check for harness release 0.1.1-rc.2: the package used the way the
// harness's own skill suites use its packages — the registry plugin
// (`SkillRegistry`), the filesystem plugin module, and consumers written
// against the release's exports: a `skill`-tool-like loader, a badge-like
// provider ranked with BUNDLED_SKILL_RANK, `/name` invocations and the `/`
// menu. Here on npm `cordis` (harness-fork.test.ts runs the entries on the
// fork). The consumers below are our own small versions of what the harness
// does, written from SPEC-HEAD.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { Context, type Message } from 'cordis'
import SkillRegistry, {
  BUNDLED_SKILL_RANK,
  escapeText,
  isModelInvocable,
  isUserInvocable,
  renderSkillContent,
  type SkillInvocationSource,
} from '../cordis.mjs'
import * as SkillFileSystem from '../filesystem.mjs'
import { collectSkillInvocations } from '../index.mjs'
import type { SkillCandidate, SkillProviderControl } from '../index.js'
import { tempDirs, write } from './helpers'

const temps = tempDirs('dsh-dropin-')
afterEach(() => temps.cleanup())

function writeSkill(file: string, fields: Record<string, string>, body: string) {
  const front = Object.entries(fields)
    .map(([key, value]) => `${key}: ${value}`)
    .join('\n')
  write(file, `---\n${front}\n---\n${body}\n`)
}

/** A harness: root context, captured warnings, the registry and filesystem plugins. */
async function harness(config: Record<string, unknown>) {
  const ctx = new Context()
  const messages: Message[] = []
  ctx.logger.exporter({ export: (message) => messages.push(message) })
  await ctx.plugin(SkillRegistry)
  const fiber = await ctx.plugin(SkillFileSystem, { watch: false, ...config })
  const warnings = () => messages.filter((m) => m.type === 'warn').map((m) => String(m.args[0]))
  return { ctx, fiber, warnings }
}

/** A project with `.dsh/skills`, and an empty home. */
function workspace() {
  const base = temps.make()
  const project = path.join(base, 'project')
  fs.mkdirSync(path.join(project, '.git'), { recursive: true })
  const skills = path.join(project, '.dsh', 'skills')
  const config = { dshHome: path.join(base, 'home', '.dsh'), agentsHome: path.join(base, 'home', '.agents') }
  return { base, project, skills, config }
}

interface Call {
  cwd: string
  signal: AbortSignal
  scope?: object
}

/**
 * A `skill` tool in the harness's manner: a kebab-case name, found in the
 * invocation-neutral view, refused when the model may not invoke it, loaded
 * again for the caller's cwd and scope, checked again, rendered.
 */
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

/**
 * `/name` gestures of a user message: a `/name` token at the start of the
 * text or after whitespace, followed by whitespace or the end, in order,
 * each name once.
 */
function gestures(text: string): string[] {
  const names: string[] = []
  for (const match of text.matchAll(/(?<=^|\s)\/([a-z0-9]+(?:-[a-z0-9]+)*)(?=\s|$)/g)) {
    if (!names.includes(match[1])) names.push(match[1])
  }
  return names
}

/** The messages a user's text injects: one per recognised, user-invocable skill. */
async function invoke(ctx: Context, text: string, call: Call) {
  const injected: { text: string; source: SkillInvocationSource }[] = []
  const menu = new Set((await ctx.skills.list(call)).filter(isUserInvocable).map((skill) => skill.name))
  for (const name of gestures(text)) {
    if (!menu.has(name)) continue
    const definition = await ctx.skills.get(name, call)
    if (definition === undefined || !isUserInvocable(definition)) continue
    injected.push({ text: renderSkillContent(definition), source: { kind: 'skill-invocation', name, form: 'instructions' } })
  }
  return injected
}

describe('the registry plugin (SkillRegistry)', () => {
  it('merges providers, ranks, invalidates and emits skills/change', async () => {
    const { project, skills, config } = workspace()
    writeSkill(path.join(skills, 'review', 'SKILL.md'), { name: 'review', description: 'Review code.' }, 'Project review.')
    const { ctx } = await harness(config)
    let changes = 0
    ctx.on('skills/change', () => void changes++)
    let invalidate = () => {}
    let remote: SkillCandidate[] = []
    const fiber = await ctx.plugin({
      name: 'remote-skills',
      inject: ['skills'],
      apply(ctx: Context) {
        ctx.skills.registerProvider((control: SkillProviderControl) => {
          invalidate = control.invalidate
          return {
            name: 'remote',
            list: async () => remote,
            get: async (candidate) => ({ ...candidate, content: `Remote ${candidate.name}.` }),
          }
        })
      },
    })
    const candidate = (name: string, rank: number): SkillCandidate => ({
      name,
      description: `Remote ${name}.`,
      invocation: { modelInvocable: true, userInvocable: true },
      source: 'remote',
      provider: 'remote',
      rank,
      locator: name,
    })
    remote = [candidate('review', 50), candidate('triage', 700)]
    // Cached: the provider's change is seen after its invalidation.
    expect((await ctx.skills.list({ cwd: project })).map((s) => `${s.name}@${s.provider}`)).toEqual(['review@remote', 'triage@remote'])
    remote = [candidate('triage', 700)]
    expect((await ctx.skills.list({ cwd: project })).map((s) => s.provider)).toEqual(['remote', 'remote'])
    const before = changes
    invalidate()
    expect(changes).toBe(before + 1)
    const snapshot = await ctx.skills.snapshot({ cwd: project })
    expect(snapshot.complete).toBe(true)
    expect(snapshot.skills.map((s) => `${s.name}@${s.provider}`)).toEqual(['review@filesystem', 'triage@remote'])
    await fiber.dispose()
    expect((await ctx.skills.list({ cwd: project })).map((s) => s.name)).toEqual(['review'])
  })
})

describe('the filesystem plugin module', () => {
  it('lists the project, user and bundled roots as provider filesystem and reloads bodies', async () => {
    const { base, project, skills, config } = workspace()
    const bundled = path.join(base, 'bundled')
    writeSkill(path.join(skills, 'review.md'), { name: 'review', description: 'Review.' }, 'Version one.')
    writeSkill(path.join(bundled, 'onboarding', 'SKILL.md'), { name: 'onboarding', description: 'Onboard.' }, 'Welcome.')
    writeSkill(path.join(config.dshHome, 'skills', 'mine.md'), { name: 'mine', description: 'Mine.' }, 'Mine.')
    const { ctx, fiber } = await harness({ ...config, bundledSkillDir: bundled })
    const listed = await ctx.skills.list({ cwd: project })
    expect(listed.map((s) => [s.name, s.source, s.provider])).toEqual([
      ['mine', 'user-dsh', 'filesystem'],
      ['onboarding', 'bundled', 'filesystem'],
      ['review', 'project-dsh', 'filesystem'],
    ])
    expect(listed[1].resourceBase).toEqual({ kind: 'directory', path: path.join(bundled, 'onboarding') })
    writeSkill(path.join(skills, 'review.md'), { name: 'review', description: 'Review.' }, 'Version two.')
    // Bodies are never cached.
    expect((await ctx.skills.get('review', { cwd: project }))?.content).toBe('Version two.')
    await fiber.dispose()
    expect(await ctx.skills.list({ cwd: project })).toEqual([])
  })

  it("turns the write tool's fs/observed on a skill entry into a synchronous refresh", async () => {
    const { project, skills, config } = workspace()
    const { ctx } = await harness(config)
    expect(await ctx.skills.list({ cwd: project })).toEqual([])
    const file = path.join(skills, 'deploy.md')
    writeSkill(file, { name: 'deploy', description: 'Deploy.' }, 'Deploy.')
    let changes = 0
    ctx.on('skills/change', () => void changes++)
    ;(ctx as any).emit('fs/observed', { targetKey: file, displayPath: file }, { kind: 'present', version: 'v1' }, { name: 'write' })
    expect(changes).toBe(1)
    expect((await ctx.skills.list({ cwd: project })).map((s) => s.name)).toEqual(['deploy'])
    ;(ctx as any).emit('fs/observed', { targetKey: file, displayPath: file }, { kind: 'absent' }, { name: 'read' })
    expect(changes).toBe(1)
  })
})

describe('consumers of the release exports', () => {
  it('a skill tool loads with { cwd, signal, scope }, refuses what the model may not invoke, escapes what it echoes', async () => {
    const { project, skills, config } = workspace()
    writeSkill(path.join(skills, 'review', 'SKILL.md'), { name: 'review', description: 'Review.' }, 'Review <carefully> & well.')
    writeSkill(path.join(skills, 'release.md'), { name: 'release', description: 'Release.', 'disable-model-invocation': 'true' }, 'Ship.')
    const { ctx } = await harness(config)
    const call = { cwd: project, signal: new AbortController().signal, scope: undefined }
    const text = await skillTool(ctx, 'review', call)
    expect(text).toBe(
      [
        '<skill_content name="review">',
        '<skill_resources>',
        text.split('\n')[2],
        '</skill_resources>',
        '',
        '<skill_instructions>',
        'Review <carefully> & well.',
        '</skill_instructions>',
        '</skill_content>',
      ].join('\n'),
    )
    expect(text.split('\n')[2]).toContain(path.join(skills, 'review'))
    expect(await skillTool(ctx, 'release', call)).toBe('The skill release cannot be loaded by the model.')
    expect(await skillTool(ctx, 'a<b>', call)).toBe('Unknown skill: a&lt;b&gt;')
    const aborted = new AbortController()
    aborted.abort(new Error('step cancelled'))
    await expect(skillTool(ctx, 'review', { ...call, signal: aborted.signal })).rejects.toThrow('step cancelled')
  })

  it('a badge-like provider ranks with BUNDLED_SKILL_RANK: project and user skills win its names, the rest shows', async () => {
    const { project, skills, config } = workspace()
    writeSkill(path.join(skills, 'changelog.md'), { name: 'changelog', description: 'Project changelog.' }, 'Project.')
    const { ctx } = await harness(config)
    await ctx.plugin({
      name: 'badge-skills',
      inject: ['skills'],
      apply(ctx: Context) {
        ctx.skills.registerProvider(() => ({
          name: 'badge',
          list: async () =>
            ['changelog', 'badges'].map((name) => ({
              name,
              description: `Badge ${name}.`,
              invocation: { modelInvocable: true, userInvocable: true },
              source: 'bundled',
              provider: 'badge',
              rank: BUNDLED_SKILL_RANK,
              locator: name,
            })),
          get: async (candidate) => ({ ...candidate, content: `Badge ${candidate.name}.` }),
        }))
      },
    })
    const listed = await ctx.skills.list({ cwd: project })
    expect(listed.map((s) => `${s.name}@${s.provider}`)).toEqual(['badges@badge', 'changelog@filesystem'])
    const why = await ctx.skills.explain('changelog', { cwd: project })
    expect(why?.losers.map((l) => [l.provider, l.rank, l.reason])).toEqual([['badge', BUNDLED_SKILL_RANK, 'rank']])
  })

  it('/name invocations inject the skill content with a skill-invocation source; the / menu lists user-invocable skills', async () => {
    const { project, skills, config } = workspace()
    writeSkill(path.join(skills, 'review.md'), { name: 'review', description: 'Review.' }, 'Review it.')
    writeSkill(path.join(skills, 'deploy.md'), { name: 'deploy', description: 'Deploy.' }, 'Deploy it.')
    writeSkill(path.join(skills, 'internal.md'), { name: 'internal', description: 'Model only.', 'user-invocable': 'false' }, 'Hidden.')
    const { ctx } = await harness(config)
    const call = { cwd: project, signal: new AbortController().signal, scope: undefined }
    const menu = (await ctx.skills.list({ cwd: project, scope: undefined })).filter(isUserInvocable).map((s) => s.name)
    expect(menu).toEqual(['deploy', 'review'])
    const injected = await invoke(ctx, '/review please, then /deploy and /review again; not a/b, /usr/bin, 1/2, /deploy. or /internal or /unknown', call)
    expect(injected.map((m) => m.source)).toEqual([
      { kind: 'skill-invocation', name: 'review', form: 'instructions' },
      { kind: 'skill-invocation', name: 'deploy', form: 'instructions' },
    ])
    expect(injected[0].text).toBe(renderSkillContent((await ctx.skills.get('review', call))!))
    expect(injected[0].text).toContain('</skill_resources>\n\n<skill_instructions>\nReview it.\n</skill_instructions>')
    // The package's own helper does the same as this skill-tool stand-in.
    const text = '/review please, then /deploy and /review again; not a/b, /usr/bin, 1/2, /deploy. or /internal or /unknown'
    const collected = await collectSkillInvocations({ skills: ctx.skills, messages: [{ role: 'user', content: text }], ...call })
    expect(collected).toEqual(injected.map((m) => ({ name: m.source.name, text: m.text, source: m.source })))
  })
})
