// Per-scope registry layers through the Cordis service (SPEC-HEAD §C): every
// registration is filed into the layer of the registering plugin's scope
// (`scopeOf(ctx)`), reads take `scope`. The scope package is the stand-in of
// `@deepseek-ai/dsh-scope`, handed to the service in its config (the dev tree
// does not install it; harness-fork.test.ts finds it installed).
import { createRequire } from 'node:module'
import * as path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { Context } from 'cordis'
import SkillRegistry from '../cordis.mjs'
import * as SkillFileSystem from '../filesystem.mjs'
import { tempDirs, write } from './helpers'

const require = createRequire(import.meta.url)
const scope = require('./stand-ins/@deepseek-ai/dsh-scope') as typeof import('./stand-ins/@deepseek-ai/dsh-scope')

/** What a preset does: a context of its own, forked from `ctx`, in `key`'s scope. */
const scoped = (ctx: Context, key: object) => scope.assignScope(ctx.extend(), key)

const temps = tempDirs('dsh-scopes-')
afterEach(() => temps.cleanup())

function writeSkill(file: string, name: string, description: string, body: string) {
  write(file, `---\nname: ${name}\ndescription: ${description}\n---\n${body}\n`)
}

function roots() {
  const base = temps.make()
  const host = path.join(base, 'host')
  const preset = path.join(base, 'preset')
  writeSkill(path.join(host, 'review', 'SKILL.md'), 'review', 'Review (host).', 'Host review.')
  writeSkill(path.join(host, 'lint.md'), 'lint', 'Lint.', 'Lint it.')
  writeSkill(path.join(preset, 'review.md'), 'review', 'Review (preset).', 'Preset review.')
  writeSkill(path.join(preset, 'deploy.md'), 'deploy', 'Deploy (preset).', 'Preset deploy.')
  const config = (dir: string) => ({ includeDefaultRoots: false, customSkillDirs: [dir], watch: false })
  return { host: config(host), preset: config(preset) }
}

async function view(ctx: Context, options: { scope?: object } = {}) {
  return (await ctx.skills.list(options)).map((s) => `${s.name}: ${s.description}`)
}

describe('scoped presets through the Cordis service', () => {
  it('a preset mounting its own filesystem provider in its scope: isolated view, nearest layer wins, disposal drops the layer', async () => {
    const ctx = new Context()
    await ctx.plugin(SkillRegistry, { scopes: scope })
    expect(ctx.skills.registry.scopes).toBe(scope)
    const config = roots()
    await ctx.plugin(SkillFileSystem, config.host)
    // A host runtime skill outranks custom roots (250 < 300) in one layer…
    ctx.skills.register({ name: 'deploy', description: 'Deploy (host).', content: 'Host deploy.', source: 'runtime' })
    let changes = 0
    ctx.on('skills/change', () => void changes++)

    const reviewer = scope.createScope({ name: 'reviewer' })
    const writer = scope.createScope({ name: 'writer' })
    // …and the preset mounts a provider of the same name, `filesystem`, in its own layer.
    const preset = await scoped(ctx, reviewer).plugin(SkillFileSystem, config.preset)
    expect(changes).toBe(1)

    const host = ['deploy: Deploy (host).', 'lint: Lint.', 'review: Review (host).']
    expect(await view(ctx)).toEqual(host)
    expect(await view(ctx, { scope: writer })).toEqual(host)
    // The nearest layer wins a name outright (rank only decides within a layer).
    expect(await view(ctx, { scope: reviewer })).toEqual(['deploy: Deploy (preset).', 'lint: Lint.', 'review: Review (preset).'])
    const signal = new AbortController().signal
    expect((await ctx.skills.get('review', { scope: reviewer, signal }))?.content).toBe('Preset review.')
    expect((await ctx.skills.get('deploy', { scope: reviewer }))?.content).toBe('Preset deploy.')
    expect((await ctx.skills.get('review'))?.content).toBe('Host review.')
    expect((await ctx.skills.get('review', { scope: writer }))?.content).toBe('Host review.')
    expect((await ctx.skills.snapshot({ scope: reviewer })).complete).toBe(true)
    const why = await ctx.skills.explain('deploy', { scope: reviewer })
    expect(why?.winner).toMatchObject({ provider: 'filesystem', rank: 300, scope: reviewer })
    expect(why?.losers).toEqual([expect.objectContaining({ provider: 'runtime', rank: 250, reason: 'scope' })])

    // Disposing the preset's plugin drops its layer; mounting it again is fine.
    await preset.dispose()
    expect(changes).toBeGreaterThan(1)
    expect(await view(ctx, { scope: reviewer })).toEqual(host)
    const again = await scoped(ctx, reviewer).plugin(SkillFileSystem, config.preset)
    expect((await view(ctx, { scope: reviewer }))[2]).toBe('review: Review (preset).')
    await again.dispose()
  })

  it('files runtime skills by the calling plugin (or an explicit scope), and follows a re-linked parent', async () => {
    const ctx = new Context()
    await ctx.plugin(SkillRegistry, { scopes: scope })
    const team = scope.createScope({ name: 'team' })
    const agent = scope.createScope({ name: 'agent', parent: team })
    let refused: unknown
    const other = scope.createScope({ name: 'other' })
    await scoped(ctx, team).plugin({
      inject: ['skills'],
      apply(ctx: Context) {
        ctx.skills.register({ name: 'style', description: 'Team style.', content: 'Team.', source: 'runtime' })
      },
    })
    await scoped(ctx, agent).plugin({
      inject: ['skills'],
      apply(ctx: Context) {
        ctx.skills.register({ name: 'style', description: 'Agent style.', content: 'Agent.', source: 'runtime' })
        ctx.skills.register({ name: 'notes', description: 'Agent notes.', content: 'Notes.', source: 'runtime' })
        // An explicit scope wins over the caller's: `undefined` is the global layer.
        ctx.skills.register({ name: 'shared', description: 'Shared.', content: 'Shared.', source: 'runtime' }, { scope: undefined })
        // Anything but a scope key or `undefined` is refused, as by a plain registry.
        try {
          ctx.skills.register({ name: 'nil', description: 'Nil.', content: 'Nil.', source: 'runtime' }, { scope: null as never })
        } catch (error) {
          refused = error
        }
      },
    })
    await scoped(ctx, other).plugin({
      inject: ['skills'],
      apply(ctx: Context) {
        ctx.skills.register({ name: 'other', description: 'Other.', content: 'Other.', source: 'runtime' })
      },
    })
    expect(String(refused)).toMatch(/^TypeError: .*options\.scope must be a scope key/)
    expect(await view(ctx)).toEqual(['shared: Shared.'])
    expect(await view(ctx, { scope: team })).toEqual(['shared: Shared.', 'style: Team style.'])
    expect(await view(ctx, { scope: agent })).toEqual(['notes: Agent notes.', 'shared: Shared.', 'style: Agent style.'])
    // Re-linked under another parent, the agent's view follows the new chain.
    scope.relink(agent, other)
    expect(await view(ctx, { scope: agent })).toEqual(['notes: Agent notes.', 'other: Other.', 'shared: Shared.', 'style: Agent style.'])
  })

  it('the menu and the skill tool of a preset read with its scope', async () => {
    const ctx = new Context()
    await ctx.plugin(SkillRegistry, { scopes: scope })
    const config = roots()
    await ctx.plugin(SkillFileSystem, config.host)
    const reviewer = scope.createScope({ name: 'reviewer' })
    await scoped(ctx, reviewer).plugin(SkillFileSystem, config.preset)
    const { isUserInvocable, renderSkillContent } = await import('../cordis.mjs')
    const menu = (await ctx.skills.list({ cwd: process.cwd(), scope: reviewer })).filter(isUserInvocable).map((s) => s.name)
    expect(menu).toEqual(['deploy', 'lint', 'review'])
    const loaded = await ctx.skills.get('review', { cwd: process.cwd(), signal: new AbortController().signal, scope: reviewer })
    expect(loaded && renderSkillContent(loaded)).toContain('\n\n<skill_instructions>\nPreset review.\n')
  })
})
