// The `skill` tool plugin (`…/harness/tool-skill`) on the harness's own
// published packages, side by side with the release's `dsh-tool-skill`:
// the same entries, sources and digests at every step of a session of
// changes; the tool, `/name` gestures and the step rules; the opt-in
// options (budget, delta updates, the flood warning).
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { tempDirs } from './helpers'
import {
  type Any,
  type Flavour,
  type Harness,
  agentOf,
  catalogs,
  harness,
  mount,
  newAgent,
  observed,
  propose,
  step,
  textOf,
  writeSkill,
} from './tool-skill-fixture'

const temps = tempDirs('dsh-tool-skill-')
afterAll(() => temps.cleanup())

let h: Harness
beforeAll(async () => {
  h = await harness()
}, 600_000)

/** The structured digest, computed here from its definition. */
function digestOf(entries: { name: string; description: string }[]): string {
  return createHash('sha256')
    .update(entries.map((entry) => JSON.stringify([entry.name, entry.description])).join('\n'))
    .digest('hex')
}

/** The lines between `<available_skills>` and `</available_skills>` of a catalog message. */
function block(message: Any): string {
  const text = textOf(message)
  const open = text.indexOf('<available_skills>\n')
  const close = text.indexOf('</available_skills>')
  return text.slice(open + '<available_skills>\n'.length, close)
}

/** What a step changed, per flavour: the catalog message it published (or none). */
async function stepBoth(sides: Record<Flavour, { ctx: Any; agent: Any }>) {
  const out: Partial<Record<Flavour, Any>> = {}
  for (const flavour of ['release', 'ours'] as const) {
    const { ctx, agent } = sides[flavour]
    const before = catalogs(agent).length
    await step(h, ctx, agent)
    const after = catalogs(agent)
    expect(after.length - before).toBeLessThanOrEqual(1)
    out[flavour] = after.length > before ? after.at(-1) : undefined
  }
  return out
}

describe('parity with the release plugin', () => {
  it('publishes the same entries, sources and digests through a session of changes', async () => {
    const root = temps.make()
    writeSkill(root, 'zeta-writer', 'Write   in\tthe\nzeta   style. '.repeat(6))
    writeSkill(root, 'alpha-tool', 'Use <tags> & "quotes" safely.')
    writeSkill(root, 'hidden-one', 'Only users invoke this.', 'Hidden.', 'disable-model-invocation: true\n')
    writeSkill(root, 'emoji-cut', `${'x'.repeat(46)}😀tail`)
    const tool = { catalogDescriptionMaxLength: 50 }
    const sides = {} as Record<Flavour, { ctx: Any; agent: Any }>
    for (const flavour of ['release', 'ours'] as const) {
      const { ctx } = await mount(h, flavour, { roots: [root], tool })
      sides[flavour] = { ctx, agent: newAgent(h) }
    }
    const changes: [string, () => string | undefined][] = [
      ['first catalog', () => undefined],
      ['a body-only edit', () => (writeSkill(root, 'alpha-tool', 'Use <tags> & "quotes" safely.', 'New body.'), path.join(root, 'alpha-tool', 'SKILL.md'))],
      ['an added skill', () => (writeSkill(root, 'mid-skill', 'In the middle.'), path.join(root, 'mid-skill', 'SKILL.md'))],
      ['a changed description', () => (writeSkill(root, 'alpha-tool', 'Now different.'), path.join(root, 'alpha-tool', 'SKILL.md'))],
      ['a removed skill', () => (fs.rmSync(path.join(root, 'zeta-writer'), { recursive: true }), path.join(root, 'zeta-writer', 'SKILL.md'))],
      [
        'every skill removed',
        () => {
          for (const name of ['alpha-tool', 'mid-skill', 'emoji-cut']) fs.rmSync(path.join(root, name), { recursive: true })
          return path.join(root, 'alpha-tool', 'SKILL.md')
        },
      ],
      ['a skill again', () => (writeSkill(root, 'back-again', 'Returned.'), path.join(root, 'back-again', 'SKILL.md'))],
    ]
    const published: string[] = []
    for (const [what, change] of changes) {
      const file = change()
      if (file !== undefined) for (const { ctx } of Object.values(sides)) observed(ctx, file)
      const { release, ours } = await stepBoth(sides)
      expect(ours === undefined, what).toBe(release === undefined)
      if (release === undefined) continue
      published.push(what)
      expect(ours.source, what).toEqual(release.source)
      expect(block(ours), what).toBe(block(release))
      expect(digestOf(ours.source.entries), what).toBe(digestOf(release.source.entries))
      expect(ours.role).toBe('user')
    }
    // A body-only edit publishes nothing; the tombstone has no entries.
    expect(published).toEqual(['first catalog', 'an added skill', 'a changed description', 'a removed skill', 'every skill removed', 'a skill again'])
    const tombstone = catalogs(sides.ours.agent)[4]
    expect(tombstone.source).toEqual({ kind: 'skill-catalog', form: 'catalog', update: true, entries: [] })
    expect(block(tombstone)).toBe('')
  })

  it('plans from any registry: the release registry with this plugin gives the release entries', async () => {
    const root = temps.make()
    writeSkill(root, 'one-skill', 'First.')
    writeSkill(root, 'two-skill', 'Second & last.')
    const release = await mount(h, 'release', { roots: [root] })
    const mixed = await mount(h, 'release', { roots: [root], toolPlugin: h.ours.toolSkill })
    const a = newAgent(h)
    const b = newAgent(h)
    await step(h, release.ctx, a)
    await step(h, mixed.ctx, b)
    expect(catalogs(b).map((m) => m.source)).toEqual(catalogs(a).map((m) => m.source))
  })
})

describe('the skill tool', () => {
  async function call(ctx: Any, name: unknown, agent?: Any) {
    return ctx.tools.execute({ signal: new AbortController().signal, callId: h.CallId(`c-${Math.random()}`), name: 'skill', arguments: { name }, agent })
  }

  it('loads a skill of the calling agent, refuses what the model may not load, and leaves with the plugin', async () => {
    const root = temps.make()
    writeSkill(root, 'project-skill', 'Project skill.', 'Project instructions.')
    writeSkill(root, 'user-only', 'For users.', 'Users only.', 'disable-model-invocation: true\n')
    const { ctx, fiber } = await mount(h, 'ours', { roots: [root] })
    ctx.skills.register({ name: 'rogue-base', description: 'Bad base.', source: 'runtime', resourceBase: { kind: 'future' }, content: 'x' })
    ctx.skills.register({ name: 'remote-one', description: 'Remote.', source: 'runtime', resourceBase: { kind: 'url', url: 'https://example.test/s' }, content: 'Remote body.' })
    expect(ctx.tools.schemas().map((tool: Any) => tool.name)).toEqual(['skill'])

    const loaded = await call(ctx, 'project-skill', newAgent(h))
    expect(loaded.isError).toBe(false)
    expect(loaded.value).toEqual({
      name: 'project-skill',
      provider: 'filesystem',
      resourceBase: { kind: 'directory', path: path.join(root, 'project-skill') },
      content: 'Project instructions.',
    })
    expect(loaded.content[0].text).toBe(h.ours.catalog.renderSkillContent(loaded.value).replace('</skill_resources>\n', '</skill_resources>\n\n'))
    expect((await call(ctx, 'remote-one')).content[0].text).toContain('https://example.test/s')

    const unknown = await call(ctx, 'not-there')
    const invalid = await call(ctx, 'Bad_Name')
    const userOnly = await call(ctx, 'user-only')
    const rogue = await call(ctx, 'rogue-base')
    expect([unknown, invalid, userOnly, rogue].map((result) => result.isError)).toEqual([true, true, true, true])
    expect(unknown.content[0].text).toContain('"not-there"')
    expect(invalid.content[0].text).toContain('not a skill name')
    expect(userOnly.content[0].text).toContain('"user-only"')
    expect(userOnly.content[0].text).not.toContain('Users only.')
    expect(rogue.error?.info?.code).toBe('INVALID_TOOL_OUTPUT')
    expect(ctx.tools.get('skill').presentCall({ name: 'x-y' })).toEqual({ card: 'generic', title: 'Load skill x-y', kind: 'read', rawInput: 'x-y' })

    const agent = newAgent(h)
    expect(await step(h, ctx, agent)).toHaveLength(1)
    await fiber.dispose()
    expect(ctx.tools.schemas()).toEqual([])
    expect(await step(h, ctx, newAgent(h))).toEqual([])
  })

  it('checks the model policy before loading and again on the loaded definition', async () => {
    const { ctx } = await mount(h, 'ours')
    const loads: string[] = []
    ctx.skills.registerProvider(() => ({
      name: 'probe',
      async list() {
        const base = { provider: 'probe', source: 'test', rank: 1 }
        return [
          { ...base, name: 'denied', description: 'Denied.', invocation: { modelInvocable: false, userInvocable: true }, locator: 1 },
          { ...base, name: 'flips', description: 'Flips.', invocation: { modelInvocable: true, userInvocable: true }, locator: 2 },
        ]
      },
      async get(candidate: Any) {
        loads.push(candidate.name)
        return { ...candidate, invocation: { modelInvocable: false, userInvocable: true }, content: 'Secret.' }
      },
    }))
    const denied = await call(ctx, 'denied')
    const flips = await call(ctx, 'flips')
    expect([denied.isError, flips.isError]).toEqual([true, true])
    expect(loads).toEqual(['flips'])
    expect(JSON.stringify([denied.content, flips.content])).not.toContain('Secret.')
  })

  it('sees the registry as the calling agent does', async () => {
    const { ctx } = await mount(h, 'ours')
    const agent = newAgent(h, '/workspace/scoped')
    let scope: Any
    await ctx.plugin(Object.assign((inner: Any) => void (scope = h.createScope(inner, agent)), { inject: ['tools'] }))
    scope.ctx.get('skills').register({ name: 'preset-only', description: 'Preset.', source: 'preset', content: 'Preset body.' })
    expect((await call(ctx, 'preset-only', agent)).isError).toBe(false)
    expect((await call(ctx, 'preset-only', newAgent(h))).isError).toBe(true)
    expect(textOf((await step(h, ctx, agent))[0])).toContain('preset-only')
    expect(await step(h, ctx, newAgent(h))).toEqual([])
    await scope.dispose()
  })
})

describe('/name gestures', () => {
  async function setup() {
    const root = temps.make()
    writeSkill(root, 'for-users', 'User invocable.', 'Say PINEAPPLE.', 'disable-model-invocation: true\n')
    writeSkill(root, 'ordinary', 'Ordinary.', 'Ordinary body.')
    writeSkill(root, 'model-only', 'Model only.', 'Model body.', 'user-invocable: false\n')
    const { ctx } = await mount(h, 'ours', { roots: [root] })
    return { ctx, root }
  }
  const said = (text: string, kind = 'user', content?: Any[]) =>
    h.createUserMessage({ content: content ?? [{ type: 'text', text }], source: kind === 'user' ? { kind: 'user' } : { kind: 'plugin', plugin: 'x' } })
  const invoked = (decision: Any) =>
    decision.messages.filter((m: Any) => m.source.kind === 'skill-invocation').map((m: Any) => m.source.name)

  it('injects user-invocable skills after the catalog, once each, from user text only', async () => {
    const { ctx } = await setup()
    const agent = newAgent(h)
    const decision = await propose(h, ctx, agent, [
      said('/for-users now and /ordinary then, again /for-users'),
      said('/ordinary', 'plugin'),
      said('', 'user', [{ type: 'reasoning', text: '/model-only' }, { type: 'text', text: 'a/b /usr/bin 1/2 /ordinary.' }]),
    ])
    expect(invoked(decision)).toEqual(['for-users', 'ordinary'])
    const kinds = decision.messages.map((m: Any) => m.source.kind)
    expect(kinds.indexOf('skill-catalog')).toBeLessThan(kinds.indexOf('skill-invocation'))
    const injected = decision.messages.find((m: Any) => m.source.name === 'for-users')
    expect(injected.source).toEqual({ kind: 'skill-invocation', name: 'for-users', form: 'instructions' })
    expect(textOf(injected)).toContain('Say PINEAPPLE.')
    expect(textOf(injected)).toContain('<skill_content name="for-users">')
  })

  it('leaves unknown and model-only names as prose, and passes a reject through', async () => {
    const { ctx, root } = await setup()
    const agent = newAgent(h)
    expect(invoked(await propose(h, ctx, agent, [said('/absent /model-only')]))).toEqual([])
    fs.rmSync(path.join(root, 'ordinary'), { recursive: true })
    observed(ctx, path.join(root, 'ordinary', 'SKILL.md'))
    expect(invoked(await propose(h, ctx, agent, [said('/ordinary')]))).toEqual([])
    const rejected = await h
      .agentEvents(ctx, agent)
      .waterfall('agent/pre-step', { messages: [said('/for-users')], turn: 1, step: 1, signal: new AbortController().signal }, () =>
        Promise.resolve({ kind: 'reject' }),
      )
    expect(rejected).toEqual({ kind: 'reject' })
  })
})

describe('catalog steps', () => {
  it('publishes nothing without skills, waits out an incomplete view, and forwards the step signal', async () => {
    const { ctx } = await mount(h, 'ours')
    const agent = newAgent(h)
    expect(await step(h, ctx, agent)).toEqual([])
    let failing = true
    let signal: AbortSignal | undefined
    let invalidate = () => {}
    ctx.skills.registerProvider((control: Any) => {
      invalidate = control.invalidate
      return {
        name: 'flaky',
        async list(options: Any) {
          signal = options.signal
          if (failing) throw new Error('down for now')
          return [{ name: 'came-back', description: 'Back.', provider: 'flaky', source: 'remote', rank: 150, locator: 0, invocation: { modelInvocable: true, userInvocable: true } }]
        },
        async get() {
          return undefined
        },
      }
    })
    const controller = new AbortController()
    await h.agentEvents(ctx, agent).waterfall('agent/pre-step', { messages: [], turn: 1, step: 2, signal: controller.signal }, () =>
      Promise.resolve({ kind: 'enter', messages: [] }),
    )
    expect(signal).toBe(controller.signal)
    expect(catalogs(agent)).toEqual([])
    failing = false
    invalidate()
    await step(h, ctx, agent)
    expect(catalogs(agent).map((m) => m.source.entries.map((e: Any) => e.name))).toEqual([['came-back']])
  })

  it('keeps, replaces or withdraws a catalog already proposed in the step', async () => {
    const { ctx } = await mount(h, 'ours')
    const agent = newAgent(h)
    const disposeFirst = ctx.skills.register({ name: 'first-one', description: 'First.', source: 'runtime', content: 'x' })
    await step(h, ctx, agent)
    const first = catalogs(agent)[0]
    // The history already has it: a proposed copy is withdrawn.
    expect(await propose(h, ctx, agent, [first])).toEqual({ kind: 'enter', messages: [] })
    ctx.skills.register({ name: 'second-one', description: 'Second.', source: 'runtime', content: 'x' })
    const other = h.createUserMessage({ content: [{ type: 'text', text: 'keep me' }], source: { kind: 'user' } })
    const replaced = await propose(h, ctx, agent, [other, first])
    expect(replaced.messages[0]).toBe(other)
    expect(replaced.messages).toHaveLength(2)
    expect(replaced.messages[1].source.entries.map((e: Any) => e.name)).toEqual(['first-one', 'second-one'])
    // A proposal that already matches the live view stays as it is.
    expect(await propose(h, ctx, agent, [replaced.messages[1]])).toEqual({ kind: 'enter', messages: [replaced.messages[1]] })
    disposeFirst()
  })

  it('skips unreadable records, resumes from recorded entries and re-establishes a catalog compaction hid', async () => {
    const { ctx } = await mount(h, 'ours')
    ctx.skills.register({ name: 'live-one', description: 'Live.', source: 'runtime', content: 'x' })
    const agent = newAgent(h)
    for (const source of [
      { kind: 'skill-catalog', form: 'catalog' },
      { kind: 'skill-catalog', form: 'catalog', entries: [{ name: 'x' }] },
      { kind: 'skill-catalog', form: 'catalog', delta: { base: 'nope' } },
    ]) {
      agent.session.append('user/message', h.createUserMessage({ content: [{ type: 'text', text: '?' }], source }), { surfaceOp: 'append' })
    }
    await step(h, ctx, agent)
    const readable = catalogs(agent).filter((m) => Array.isArray(m.source.entries) && m.source.entries.every((e: Any) => typeof e.description === 'string'))
    expect(readable).toHaveLength(1)
    expect(readable[0].source.update).toBeUndefined()

    // Resumed from its events: nothing new.
    const resumed = agentOf(h, h.Session.create(agent.session.id, [...agent.session.events], agent.session.header))
    await step(h, ctx, resumed)
    expect(catalogs(resumed)).toHaveLength(catalogs(agent).length)

    // Compaction replaces the catalog message: the next step publishes it again.
    const seq = agent.session.events.find((e: Any) => e.type === 'user/message' && e.data === readable[0]).seq
    agent.session.append('user/message', h.createUserMessage({ content: [{ type: 'text', text: 'summary' }], source: { kind: 'plugin', plugin: 'compact' } }), {
      surfaceOp: { op: 'replace', start: seq, end: seq },
      sourceEventSeqs: [seq],
    })
    await step(h, ctx, agent)
    const last = catalogs(agent).at(-1)
    expect(last.source).toEqual({ kind: 'skill-catalog', form: 'catalog', update: true, entries: [{ name: 'live-one', description: 'Live.' }] })
  })

  it('gives no catalog to an agent without this very tool', async () => {
    const { ctx } = await mount(h, 'ours')
    ctx.skills.register({ name: 'listed', description: 'Listed.', source: 'runtime', content: 'x' })
    const denied = newAgent(h)
    let scope: Any
    await ctx.plugin(Object.assign((inner: Any) => void (scope = h.createScope(inner, denied)), { inject: ['tools'] }))
    scope.ctx.tools.restrict({ deny: ['skill'] })
    expect(await step(h, ctx, denied)).toEqual([])
    const shadowed = newAgent(h)
    let shadow: Any
    await ctx.plugin(Object.assign((inner: Any) => void (shadow = h.createScope(inner, shadowed)), { inject: ['tools'] }))
    shadow.ctx.tools.register(h.defineContentToolFixture({ name: 'skill', description: 'Something else.', parameters: {}, execute: async () => [] }))
    expect(await step(h, ctx, shadowed)).toEqual([])
    expect(await step(h, ctx, newAgent(h))).toHaveLength(1)
    await scope.dispose()
    await shadow.dispose()
  })

  it('plans each step from the registry catalog, without snapshot() or list()', async () => {
    const root = temps.make()
    writeSkill(root, 'one-skill', 'One.')
    const { ctx } = await mount(h, 'ours', { roots: [root] })
    const registry = ctx.skills.registry
    const calls: string[] = []
    for (const method of ['snapshot', 'list']) {
      const original = registry[method].bind(registry)
      registry[method] = (...args: Any[]) => (calls.push(method), original(...args))
    }
    const agent = newAgent(h)
    await step(h, ctx, agent)
    writeSkill(root, 'two-skill', 'Two.')
    observed(ctx, path.join(root, 'two-skill', 'SKILL.md'))
    await step(h, ctx, agent)
    await step(h, ctx, agent)
    expect(catalogs(agent).map((m) => m.source.entries.length)).toEqual([1, 2])
    expect(calls).toEqual([])
  })

  it('checks its options when applied', async () => {
    for (const [config, option] of [
      [{ catalogDescriptionMaxLength: 2 }, 'catalogDescriptionMaxLength'],
      [{ updates: 'sometimes' }, 'updates'],
      [{ budget: 0 }, 'budget'],
      [{ pinned: 'x' }, 'pinned'],
      [{ floodWarning: -1 }, 'floodWarning'],
    ] as const) {
      const ctx = new h.Context()
      await ctx.plugin(h.ToolRuntime)
      await ctx.plugin(h.AgentRegistry)
      await ctx.plugin(h.ours.registry)
      expect(() => h.ours.toolSkill.apply(ctx, config)).toThrow(option)
    }
    expect(h.ours.toolSkill.Config({})).toMatchObject({ catalogDescriptionMaxLength: 500, updates: 'replace', floodWarning: 32000 })
  })
})

describe('delta updates', () => {
  const many = (root: string, n: number) => {
    for (let i = 0; i < n; i++) writeSkill(root, `skill-${String(i).padStart(4, '0')}`, `Does task number ${i} of the catalog, described at some length so the catalog has weight.`)
  }

  /** A mounted plugin in delta mode over `root`, an agent, and a step that follows a change of `file`. */
  async function deltaSession(root: string, tool: object = {}) {
    const { ctx } = await mount(h, 'ours', { roots: [root], tool: { updates: 'delta', ...tool } })
    const agent = newAgent(h)
    const change = async (file?: string) => {
      if (file !== undefined) observed(ctx, file)
      const before = catalogs(agent).length
      await step(h, ctx, agent)
      return catalogs(agent).slice(before)
    }
    return { ctx, agent, change }
  }

  /** The structured entries a fresh full render of `root` gives, and their digest. */
  async function fresh(root: string, tool: object = {}) {
    const { ctx } = await mount(h, 'ours', { roots: [root], tool })
    const agent = newAgent(h)
    await step(h, ctx, agent)
    const [catalog] = catalogs(agent)
    return catalog?.source.entries ?? []
  }

  it('publishes the first catalog in full, then only what changed, each record adding up to a fresh render', async () => {
    const root = temps.make()
    many(root, 40)
    const { ctx, agent, change } = await deltaSession(root)
    const [first] = await change()
    expect(first.source.entries).toEqual(await fresh(root))
    expect(first.source.update).toBeUndefined()

    writeSkill(root, 'added-one', 'A new <skill> & more.')
    const [added] = await change(path.join(root, 'added-one', 'SKILL.md'))
    expect(added.source.entries).toBeUndefined()
    expect(added.source.delta).toMatchObject({ added: [{ name: 'added-one', description: 'A new <skill> & more.' }], changed: [], removed: [] })
    expect(added.source.delta.base).toBe(digestOf(first.source.entries))
    expect(added.source.delta.digest).toBe(digestOf(await fresh(root)))
    expect(textOf(added)).toContain('- `added-one`: A new &lt;skill&gt; &amp; more.')
    expect(textOf(added)).not.toContain('skill-0001')
    expect(textOf(added).length).toBeLessThan(1000)

    writeSkill(root, 'skill-0003', 'Changed words.')
    fs.rmSync(path.join(root, 'skill-0007'), { recursive: true })
    observed(ctx, path.join(root, 'skill-0007', 'SKILL.md'))
    const [both] = await change(path.join(root, 'skill-0003', 'SKILL.md'))
    expect(both.source.delta).toMatchObject({ added: [], changed: [{ name: 'skill-0003', description: 'Changed words.' }], removed: ['skill-0007'] })
    expect(both.source.delta.base).toBe(added.source.delta.digest)
    expect(both.source.delta.digest).toBe(digestOf(await fresh(root)))
    expect(textOf(both)).toContain('skill-0007')

    // Unchanged: nothing; a resumed session rebuilds the same catalog and publishes nothing.
    expect(await change()).toEqual([])
    const resumed = agentOf(h, h.Session.create(agent.session.id, [...agent.session.events], agent.session.header))
    const { ctx: other } = await mount(h, 'ours', { roots: [root], tool: { updates: 'delta' } })
    await step(h, other, resumed)
    expect(catalogs(resumed)).toHaveLength(3)
    // The release plugin reads the delta records as not its own and republishes in full.
    const { ctx: release } = await mount(h, 'release', { roots: [root] })
    const back = agentOf(h, h.Session.create(agent.session.id, [...agent.session.events], agent.session.header))
    await step(h, release, back)
    expect(catalogs(back).at(-1).source).toEqual({ kind: 'skill-catalog', form: 'catalog', update: true, entries: await fresh(root) })
  })

  it('publishes a full catalog when a delta of the chain is hidden, or does not add up', async () => {
    const root = temps.make()
    many(root, 10)
    const { ctx, agent, change } = await deltaSession(root)
    await change()
    writeSkill(root, 'extra-one', 'Extra.')
    const [delta] = await change(path.join(root, 'extra-one', 'SKILL.md'))
    expect(delta.source.delta).toBeDefined()
    const seq = agent.session.events.find((e: Any) => e.data === delta).seq
    agent.session.append('user/message', h.createUserMessage({ content: [{ type: 'text', text: 'summary' }], source: { kind: 'plugin', plugin: 'compact' } }), {
      surfaceOp: { op: 'replace', start: seq, end: seq },
      sourceEventSeqs: [seq],
    })
    const [full] = await change()
    expect(full.source).toEqual({ kind: 'skill-catalog', form: 'catalog', update: true, entries: await fresh(root) })

    // A forged delta whose digest is not what its changes give.
    const forged = h.createUserMessage({
      content: [{ type: 'text', text: 'forged' }],
      source: { kind: 'skill-catalog', form: 'catalog', update: true, delta: { base: digestOf(full.source.entries), digest: 'f'.repeat(64), added: [], changed: [], removed: ['skill-0001'] } },
    })
    agent.session.append('user/message', forged, { surfaceOp: 'append' })
    const [again] = await change()
    expect(again.source.entries).toEqual(await fresh(root))
    void ctx
  })

  it('goes back to a full catalog once the deltas would outgrow one', async () => {
    const root = temps.make()
    many(root, 4)
    const { change } = await deltaSession(root)
    const [first] = await change()
    const kinds: string[] = []
    for (let i = 0; i < 12; i++) {
      writeSkill(root, `grown-${i}`, `Added later, number ${i}, with a description long enough to count for something.`)
      const [message] = await change(path.join(root, `grown-${i}`, 'SKILL.md'))
      kinds.push(message.source.delta ? 'delta' : 'full')
    }
    expect(kinds[0]).toBe('delta')
    expect(kinds).toContain('full')
    expect(textOf(first).length).toBeGreaterThan(0)
  })

  it('refuses a removed skill at once, in the tool and as a gesture', async () => {
    const root = temps.make()
    many(root, 3)
    const { ctx, agent, change } = await deltaSession(root)
    await change()
    fs.rmSync(path.join(root, 'skill-0001'), { recursive: true })
    observed(ctx, path.join(root, 'skill-0001', 'SKILL.md'))
    const result = await ctx.tools.execute({ signal: new AbortController().signal, callId: h.CallId('gone'), name: 'skill', arguments: { name: 'skill-0001' }, agent })
    expect(result.isError).toBe(true)
    const decision = await propose(h, ctx, agent, [h.createUserMessage({ content: [{ type: 'text', text: '/skill-0001' }], source: { kind: 'user' } })])
    expect(decision.messages.some((m: Any) => m.source.kind === 'skill-invocation')).toBe(false)
  })
})

describe('budget and warnings', () => {
  it('lays the published catalog out under a budget, with pins and the search tool line', async () => {
    const root = temps.make()
    for (let i = 0; i < 60; i++) writeSkill(root, `tool-${String(i).padStart(2, '0')}`, `Handles job ${i} - ${'words '.repeat(20)}`)
    const tool = { budget: 600, pinned: ['tool-59'], searchTool: 'skill_search' }
    const { ctx } = await mount(h, 'ours', { roots: [root], tool })
    const agent = newAgent(h)
    const [catalog] = await step(h, ctx, agent)
    const expected = h.ours.catalog.renderCatalog(await ctx.skills.list(), { maxLength: 500, ...tool })
    expect(block(catalog)).toBe(`${expected.entries}\n`)
    expect(expected.report.full).toBeLessThan(60)
    expect(block(catalog)).toContain('skill_search')
    expect(catalog.source.entries.find((e: Any) => e.name === 'tool-59').description).toMatch(/^Handles job 59/)
    expect(catalog.source.entries.length).toBeLessThan(60)
  })

  it('warns once per agent and size class about a large unbudgeted catalog', async () => {
    const root = temps.make()
    for (let i = 0; i < 50; i++) writeSkill(root, `big-${i}`, 'x'.repeat(400))
    const warnings: string[] = []
    const { ctx } = await mount(h, 'ours', { roots: [root], tool: { floodWarning: 5000 } })
    ctx.logger.exporter?.({ export: (message: Any) => message.type === 'warn' && warnings.push(String(message.args[0])) })
    const original = ctx.logger.warn?.bind(ctx.logger)
    ctx.logger.warn = (message: string) => {
      warnings.push(message)
      original?.(message)
    }
    const agent = newAgent(h)
    await step(h, ctx, agent)
    await step(h, ctx, agent)
    const told = [...new Set(warnings)]
    expect(told).toHaveLength(1)
    expect(told[0]).toContain('budget')
    expect(told[0]).toContain("updates: 'delta'")
    await step(h, ctx, newAgent(h))
    expect(new Set(warnings).size).toBe(1)
    expect(warnings.filter((w) => w === told[0]).length).toBeGreaterThanOrEqual(2)

    const quiet: string[] = []
    const budgeted = await mount(h, 'ours', { roots: [root], tool: { floodWarning: 5000, budget: 3000 } })
    budgeted.ctx.logger.warn = (message: string) => void quiet.push(message)
    await step(h, budgeted.ctx, newAgent(h))
    expect(quiet.filter((w) => w.includes('characters'))).toEqual([])
  })

  it('warns once per agent when a budget leaves skills out of reach (no searchTool), naming the search tool', async () => {
    const root = temps.make()
    for (let i = 0; i < 300; i++) writeSkill(root, `many-${i}`, `Handles job ${i} with care and a long explanation of when to use it.`)
    const told = async (tool: Record<string, unknown>) => {
      const warnings: string[] = []
      const { ctx } = await mount(h, 'ours', { roots: [root], tool })
      ctx.logger.warn = (message: string) => void warnings.push(message)
      const agent = newAgent(h)
      await step(h, ctx, agent)
      await step(h, ctx, agent)
      await step(h, ctx, newAgent(h))
      return warnings.filter((w) => w.startsWith('the catalog budget leaves out'))
    }
    const warnings = await told({ budget: 1000 })
    expect(warnings).toHaveLength(2)
    expect(warnings[0]).toMatch(/^the catalog budget leaves out \d+ of 300 skills: the model never sees their names, so they are reachable only through a search tool\. Mount @deepseek-ai\/dsh-skill-native\/harness\/search-tool \(tool `skill_search`\)/)
    expect(await told({ budget: 1000, searchTool: 'skill_search' })).toEqual([])
    expect(await told({})).toEqual([])
  })
})

describe('the invariant companion', () => {
  it('registers the package with ctx.invariants', async () => {
    const ctx = new h.Context()
    await ctx.plugin(h.InvariantRegistry)
    await ctx.plugin(h.ours.invariant)
    expect(h.ours.invariant.name).toBe('tool-skill-invariant')
    expect(h.ours.invariant.inject).toEqual(['invariants'])
    expect([...ctx.invariants.registrations]).toEqual(['@deepseek-ai/dsh-tool-skill'])
  })
})
