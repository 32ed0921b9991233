import { afterAll, describe, expect, it } from 'vitest'
import path from 'node:path'
import type { SkillCandidate, SkillOverrideRule, SkillProvider, SkillRegistration } from '../index'
import { pkg, projectLayout, recorder, skillFile, tempDirs, write } from './helpers'

const { SkillRegistry, renderCatalog } = pkg

const temps = tempDirs('dsh-overrides-')
afterAll(() => temps.cleanup())

const both = { modelInvocable: true, userInvocable: true }

function candidate(provider: string, name: string, rank: number, extra: Partial<SkillCandidate> = {}): SkillCandidate {
  return { name, description: `${name} via ${provider}`, invocation: both, source: 'remote', provider, rank, locator: name, ...extra }
}

interface Counted extends SkillProvider {
  lists: number
}

function provider(name: string, candidates: SkillCandidate[]): Counted {
  const p: Counted = {
    name,
    lists: 0,
    list: async () => {
      p.lists++
      return candidates
    },
    get: async (c) => ({ ...c, content: `body of ${c.name} from ${name}` }),
  }
  return p
}

/** A registry with two JS providers: `team` (rank 100) and `remote` (rank 700). */
function twoProviders(overrides?: readonly SkillOverrideRule[]) {
  const log = recorder()
  const registry = new SkillRegistry({ logger: log.logger, ...(overrides ? { overrides } : {}) })
  const team = provider('team', [
    candidate('team', 'review', 100, { source: 'team' }),
    candidate('team', 'deploy-prod', 100, { source: 'team' }),
    candidate('team', 'deploy-staging', 100, { source: 'team' }),
  ])
  const remote = provider('remote', [candidate('remote', 'review', 700), candidate('remote', 'lint', 700)])
  registry.registerProvider(() => team)
  registry.registerProvider(() => remote)
  return { registry, team, remote, log }
}

async function winners(registry: InstanceType<typeof SkillRegistry>) {
  const { skills } = await registry.snapshot({ cwd: '/w' })
  return Object.fromEntries(skills.map((s) => [s.name, `${s.provider}${s.invocation.modelInvocable ? '' : ' user-only'}${s.invocation.userInvocable ? '' : ' model-only'}`]))
}

describe('overrides', () => {
  it('switch a candidate off: a lower-ranked copy of the name wins', async () => {
    const { registry, log } = twoProviders([{ name: 'review', provider: 'team', effect: 'off' }])
    expect(await winners(registry)).toEqual({ 'deploy-prod': 'team', 'deploy-staging': 'team', lint: 'remote', review: 'remote' })
    // A switched-off candidate is not a shadowed duplicate.
    expect(log.warnings).toEqual([])
  })

  it('match names by glob, and the last matching rule wins: on after off restores', async () => {
    const { registry } = twoProviders([
      { name: 'deploy-*', effect: 'off' },
      { name: 'deploy-staging', effect: 'on' },
      { name: '*', source: 'remote', effect: 'off' },
    ])
    expect(await winners(registry)).toEqual({ 'deploy-staging': 'team', review: 'team' })
  })

  it('filter by source and provider; a rule without filters matches everything', async () => {
    const bySource = twoProviders([{ source: 'team', effect: 'off' }])
    expect(await winners(bySource.registry)).toEqual({ lint: 'remote', review: 'remote' })
    const byProvider = twoProviders([{ provider: 'remote', effect: 'user-only' }])
    expect(await winners(byProvider.registry)).toEqual({
      'deploy-prod': 'team',
      'deploy-staging': 'team',
      lint: 'remote user-only',
      review: 'team',
    })
    const noMatch = twoProviders([{ name: 'review', source: 'team', provider: 'remote', effect: 'off' }])
    expect((await winners(noMatch.registry)).review).toBe('team')
    const allowList = twoProviders([{ effect: 'off' }, { name: 'lint', effect: 'on' }])
    expect(await winners(allowList.registry)).toEqual({ lint: 'remote' })
  })

  it('rewrite the invocation policy with a new object; the catalog leaves user-only skills out', async () => {
    const { registry } = twoProviders([
      { name: 'lint', effect: 'user-only' },
      { name: 'deploy-*', effect: 'model-only' },
      { name: 'deploy-prod', effect: 'on' },
    ])
    const first = await registry.snapshot({ cwd: '/w' })
    const by = Object.fromEntries(first.skills.map((s) => [s.name, s]))
    expect(by.lint.invocation).toEqual({ modelInvocable: false, userInvocable: true })
    expect(by['deploy-staging'].invocation).toEqual({ modelInvocable: true, userInvocable: false })
    // Untouched skills keep the provider's own object; `on` undoes the rewrite.
    expect(by.review.invocation).toBe(both)
    expect(by['deploy-prod'].invocation).toBe(both)
    // The rewritten object is fresh per lookup.
    by.lint.invocation.modelInvocable = true
    const again = Object.fromEntries((await registry.list({ cwd: '/w' })).map((s) => [s.name, s]))
    expect(again.lint.invocation).toEqual({ modelInvocable: false, userInvocable: true })
    expect(again.lint.invocation).not.toBe(by.lint.invocation)
    const rendered = renderCatalog((await registry.snapshot({ cwd: '/w' })).skills)
    expect(rendered.entries.split('\n').map((line) => line.slice(3, line.indexOf('`', 3)))).toEqual([
      'deploy-prod',
      'deploy-staging',
      'review',
    ])
    // Loading a skill gives the same policy.
    expect((await registry.get('lint', { cwd: '/w' }))?.invocation).toEqual({ modelInvocable: false, userInvocable: true })
    expect((await registry.get('deploy-staging', { cwd: '/w' }))?.invocation).toEqual({ modelInvocable: true, userInvocable: false })
    expect((await registry.get('review', { cwd: '/w' }))?.invocation).toBe(both)
  })

  it('apply to runtime skills and to the native local provider, summaries and loaded skills alike', async () => {
    const w = projectLayout(temps.make())
    write(path.join(w.project, '.dsh', 'skills', 'notes', 'SKILL.md'), skillFile('notes', 'project notes'))
    write(path.join(w.home, '.dsh', 'skills', 'notes.md'), skillFile('notes', 'user notes'))
    write(path.join(w.home, '.dsh', 'skills', 'scratch.md'), skillFile('scratch', 'user scratch'))
    const registry = new SkillRegistry({
      logger: recorder().logger,
      overrides: [
        { name: 'notes', source: 'project-dsh', effect: 'off' },
        { name: 'scratch', provider: 'local', effect: 'user-only' },
        { name: 'inline', effect: 'model-only' },
      ],
    })
    const local = registry.registerLocalProvider({ dshHome: path.join(w.home, '.dsh'), agentsHome: path.join(w.home, '.agents'), watch: false })
    registry.register({ name: 'inline', description: 'Inline skill.', content: 'inline body' })
    const { skills } = await registry.snapshot({ cwd: w.cwd })
    const by = Object.fromEntries(skills.map((s) => [s.name, s]))
    expect(by.notes).toMatchObject({ source: 'user-dsh', description: 'user notes' })
    expect(by.scratch.invocation).toEqual({ modelInvocable: false, userInvocable: true })
    expect(by.inline.invocation).toEqual({ modelInvocable: true, userInvocable: false })
    const notes = await registry.get('notes', { cwd: w.cwd })
    expect(notes?.content).toBe('Body of notes (user notes).')
    expect((await registry.get('scratch', { cwd: w.cwd }))?.invocation).toEqual({ modelInvocable: false, userInvocable: true })
    expect((await registry.get('inline', { cwd: w.cwd }))?.invocation).toEqual({ modelInvocable: true, userInvocable: false })
    await local.dispose()
  })

  it('setOverrides replaces the rules, invalidates cached catalogs and notifies once', async () => {
    const { registry, team } = twoProviders()
    expect((await winners(registry)).review).toBe('team')
    expect(team.lists).toBe(1)
    await registry.snapshot({ cwd: '/w' })
    expect(team.lists).toBe(1)
    let changes = 0
    registry.onChange(() => void changes++)
    registry.setOverrides([{ name: 'review', provider: 'team', effect: 'off' }])
    expect(changes).toBe(1)
    expect((await winners(registry)).review).toBe('remote')
    expect(team.lists).toBe(2)
    registry.setOverrides([])
    expect(changes).toBe(2)
    expect((await winners(registry)).review).toBe('team')
  })

  it('reject invalid rules naming the rule and the key, keeping the rules in force', async () => {
    const bad: Array<[unknown, RegExp]> = [
      ['off', /^overrides must be an array of rules \(got string\)$/],
      [[null], /^overrides\[0\] must be an object/],
      [[{ name: 'review' }], /^overrides\[0\]\.effect must be 'off', 'user-only', 'model-only' or 'on' \(got undefined\)$/],
      [[{ name: 'a', effect: 'off' }, { name: 'a', effect: 'disable' }], /^overrides\[1\]\.effect .*\(got "disable"\)$/],
      [[{ name: 'Code Review', effect: 'off' }], /^overrides\[0\]\.name must be a kebab-case skill name, or a glob of one with \*/],
      [[{ source: 7, effect: 'off' }], /^overrides\[0\]\.source must be a non-empty string \(got number 7\)$/],
      [[{ provider: '', effect: 'off' }], /^overrides\[0\]\.provider must be a non-empty string \(got an empty string\)$/],
      [[{ nmae: 'a', effect: 'off' }], /^overrides\[0\]\.nmae is not a rule key/],
    ]
    for (const [rules, message] of bad) {
      expect(() => new SkillRegistry({ overrides: rules as SkillOverrideRule[] })).toThrow(message)
    }
    const { registry } = twoProviders([{ name: 'lint', effect: 'off' }])
    let changes = 0
    registry.onChange(() => void changes++)
    for (const [rules, message] of bad) expect(() => registry.setOverrides(rules as SkillOverrideRule[])).toThrow(message)
    const throwing = [
      Object.defineProperty({}, 'name', {
        enumerable: true,
        get() {
          throw new Error('no name')
        },
      }),
    ]
    expect(() => registry.setOverrides(throwing)).toThrow(/^overrides cannot be read: no name$/)
    expect(changes).toBe(0)
    expect((await winners(registry)).lint).toBeUndefined()
    // `undefined` fields are fields left out.
    registry.setOverrides([{ name: undefined, source: 'remote', effect: 'off' }])
    expect(await winners(registry)).toEqual({ 'deploy-prod': 'team', 'deploy-staging': 'team', review: 'team' })
  })

  it('change nothing when none are configured: same summaries, byte-identical catalogs', async () => {
    const w = projectLayout(temps.make())
    write(path.join(w.project, '.agents', 'skills', 'review', 'SKILL.md'), skillFile('review', 'Project review <rules> & more.'))
    write(path.join(w.home, '.dsh', 'skills', 'hidden.md'), '---\nname: hidden\ndescription: Not for the model.\ndisable-model-invocation: true\n---\nx\n')
    const base = { kind: 'url', url: 'https://skills.invalid/lint/' } as const
    const lists = [candidate('remote', 'lint', 700, { resourceBase: base }), candidate('remote', 'review', 700)]
    const runtime: SkillRegistration = { name: 'inline', description: 'Inline   skill\n text.', content: 'x' }
    const build = (config: { overrides?: SkillOverrideRule[] }) => {
      const registry = new SkillRegistry({ logger: recorder().logger, ...config })
      registry.registerLocalProvider({ dshHome: path.join(w.home, '.dsh'), agentsHome: path.join(w.home, '.agents'), watch: false })
      registry.registerProvider(() => provider('remote', lists))
      registry.register(runtime)
      return registry
    }
    const variants = [build({}), build({ overrides: [] }), build({ overrides: [{ name: 'no-such-*', effect: 'off' }, { provider: 'nobody', effect: 'user-only' }] })]
    const snapshots = await Promise.all(variants.map((r) => r.snapshot({ cwd: w.cwd })))
    for (const snapshot of snapshots) {
      expect(snapshot).toEqual(snapshots[0])
      const lint = snapshot.skills.find((s) => s.name === 'lint')
      expect(lint?.invocation).toBe(both)
      expect(lint?.resourceBase).toBe(base)
    }
    const rendered = snapshots.map((s) => renderCatalog(s.skills))
    expect(rendered[0].entries).toBe(
      '- `inline`: Inline skill text.\n- `lint`: lint via remote\n- `review`: Project review &lt;rules&gt; &amp; more.',
    )
    for (const r of rendered) {
      expect(r.entries).toBe(rendered[0].entries)
      expect(r.digest).toBe(rendered[0].digest)
    }
  })
})

describe('explain', () => {
  it('gives the winner and every candidate it beat, across runtime, JS and local providers', async () => {
    const w = projectLayout(temps.make())
    const projectFile = write(path.join(w.project, '.dsh', 'skills', 'review', 'SKILL.md'), skillFile('review', 'project'))
    const userFile = write(path.join(w.home, '.agents', 'skills', 'review.md'), skillFile('review', 'user agents'))
    const customFile = write(path.join(w.custom, 'review.md'), skillFile('review', 'custom'))
    const registry = new SkillRegistry({
      logger: recorder().logger,
      overrides: [{ name: 'review', source: 'project-dsh', effect: 'off' }, { name: 're*', provider: 'remote', effect: 'user-only' }],
    })
    registry.registerLocalProvider({ dshHome: path.join(w.home, '.dsh'), agentsHome: path.join(w.home, '.agents'), customSkillDirs: [w.custom], watch: false })
    const base = { kind: 'url', url: 'https://skills.invalid/review/' } as const
    const remote = provider('remote', [candidate('remote', 'review', 250, { path: '/remote/review.md', resourceBase: base })])
    registry.registerProvider(() => remote)
    registry.register({ name: 'review', description: 'Runtime review.', content: 'x', path: '/runtime/review.md' })
    const explanation = await registry.explain('review', { cwd: w.cwd })
    expect(explanation).toEqual({
      name: 'review',
      complete: true,
      winner: { provider: 'runtime', source: 'runtime', rank: 250, path: '/runtime/review.md', invocation: both },
      losers: [
        {
          provider: 'local',
          source: 'project-dsh',
          rank: 100,
          path: projectFile,
          resourceBase: { kind: 'directory', path: path.dirname(projectFile) },
          invocation: both,
          override: { rule: 0, effect: 'off' },
          reason: 'off',
        },
        {
          provider: 'remote',
          source: 'remote',
          rank: 250,
          path: '/remote/review.md',
          resourceBase: base,
          invocation: { modelInvocable: false, userInvocable: true },
          override: { rule: 1, effect: 'user-only' },
          reason: 'order',
        },
        { provider: 'local', source: 'custom', rank: 300, path: customFile, resourceBase: { kind: 'directory', path: w.custom }, invocation: both, reason: 'rank' },
        { provider: 'local', source: 'user-agents', rank: 500, path: userFile, resourceBase: { kind: 'directory', path: path.dirname(userFile) }, invocation: both, reason: 'rank' },
      ],
    })
    // The JS provider's own resourceBase object.
    expect(explanation?.losers[1].resourceBase).toBe(base)
    // The same catalog as snapshot(): explain lists nothing again.
    expect(remote.lists).toBe(1)
    const { skills } = await registry.snapshot({ cwd: w.cwd })
    expect(skills.find((s) => s.name === 'review')?.provider).toBe('runtime')
    expect(remote.lists).toBe(1)

    // A local winner; the one JS copy it beat by rank.
    registry.setOverrides([])
    const local = await registry.explain('review', { cwd: w.cwd })
    expect(local?.winner).toMatchObject({ provider: 'local', source: 'project-dsh', path: projectFile })
    expect(local?.losers.map((l) => `${l.source}:${l.reason}`)).toEqual(['runtime:rank', 'remote:rank', 'custom:rank', 'user-agents:rank'])
  })

  it('says "order" for the same rank and reports a name whose every candidate is off', async () => {
    const { registry } = twoProviders([{ name: 'lint', effect: 'off' }])
    registry.registerProvider(() => provider('late', [candidate('late', 'review', 100, { source: 'team' })]))
    const review = await registry.explain('review', { cwd: '/w' })
    expect(review?.winner?.provider).toBe('team')
    expect(review?.losers.map((l) => `${l.provider}:${l.reason}`)).toEqual(['late:order', 'remote:rank'])
    const lint = await registry.explain('lint', { cwd: '/w' })
    expect(lint).toEqual({
      name: 'lint',
      complete: true,
      winner: undefined,
      losers: [{ provider: 'remote', source: 'remote', rank: 700, invocation: both, override: { rule: 0, effect: 'off' }, reason: 'off' }],
    })
  })

  it('returns undefined for an unknown or invalid name, says when the lookup was incomplete, and honours the signal', async () => {
    const { registry } = twoProviders()
    expect(await registry.explain('nothing-here', { cwd: '/w' })).toBeUndefined()
    expect(await registry.explain('Not A Name')).toBeUndefined()
    registry.registerProvider(() => ({
      name: 'broken',
      list: async () => {
        throw new Error('offline')
      },
      get: async () => undefined,
    }))
    const explanation = await registry.explain('lint', { cwd: '/w' })
    expect(explanation?.complete).toBe(false)
    expect(explanation?.winner?.provider).toBe('remote')
    const controller = new AbortController()
    controller.abort(new Error('stop'))
    await expect(registry.explain('lint', { signal: controller.signal })).rejects.toThrow('stop')
  })
})
