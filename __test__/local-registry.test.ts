import { afterAll, describe, expect, it } from 'vitest'
import fs from 'node:fs'
import path from 'node:path'
import { pkg, projectLayout, recorder, skillFile, tempDirs, waitFor, write } from './helpers'

const { SkillRegistry, LocalSkillProvider } = pkg

const temps = tempDirs('dsh-local-registry-')
const tempDir = temps.make
afterAll(temps.cleanup)
const skill = skillFile

function workspace() {
  const { root, project, cwd, home, custom } = projectLayout(tempDir())
  return { root, project, cwd, home, custom, config: { dshHome: path.join(home, '.dsh'), agentsHome: path.join(home, '.agents'), customSkillDirs: [custom], watch: false } }
}

describe('native local provider inside the registry', () => {
  it('project skills outrank runtime skills, which outrank custom and user skills', async () => {
    const w = workspace()
    write(path.join(w.project, '.agents', 'skills', 'shared', 'SKILL.md'), skill('shared', 'project agents'))
    write(path.join(w.custom, 'runtime-wins.md'), skill('runtime-wins', 'custom root'))
    write(path.join(w.home, '.dsh', 'skills', 'user-only', 'SKILL.md'), skill('user-only', 'user dsh'))
    write(path.join(w.home, '.agents', 'skills', 'runtime-wins.md'), skill('runtime-wins', 'user agents'))
    const log = recorder()
    const registry = new SkillRegistry({ logger: log.logger })
    registry.register({ name: 'shared', description: 'runtime shared', content: 'rt', source: 'runtime' })
    registry.register({ name: 'runtime-wins', description: 'runtime', content: 'rt', source: 'runtime' })
    const local = registry.registerLocalProvider(w.config)
    expect(local).toBeInstanceOf(LocalSkillProvider)
    const snapshot = await registry.snapshot({ cwd: w.cwd })
    expect(snapshot.complete).toBe(true)
    const by = Object.fromEntries(snapshot.skills.map((s) => [s.name, s]))
    expect(Object.keys(by)).toEqual(['runtime-wins', 'shared', 'user-only'])
    expect(by.shared).toMatchObject({ provider: 'local', source: 'project-agents', description: 'project agents' })
    expect(by.shared.resourceBase).toEqual({ kind: 'directory', path: path.join(w.project, '.agents', 'skills', 'shared') })
    expect(by['runtime-wins']).toMatchObject({ provider: 'runtime', source: 'runtime' })
    expect(by['user-only']).toMatchObject({ provider: 'local', source: 'user-dsh' })
    expect(log.warnings.filter((m) => m.includes('shadowed'))).toHaveLength(3)
    const loaded = await registry.get('shared', { cwd: w.cwd })
    expect(loaded?.content).toBe('Body of shared (project agents).')
    expect(loaded?.path).toBe(path.join(w.project, '.agents', 'skills', 'shared', 'SKILL.md'))
    await local.dispose()
  })

  it('get() re-reads; a renamed skill returns undefined and invalidates; a deleted one returns undefined', async () => {
    const w = workspace()
    const file = path.join(w.project, '.dsh', 'skills', 'notes.md')
    write(file, skill('notes', 'first'))
    const registry = new SkillRegistry({ logger: recorder().logger })
    registry.registerLocalProvider(w.config)
    let changes = 0
    registry.onChange(() => void changes++)
    expect((await registry.list({ cwd: w.cwd })).map((s) => s.name)).toEqual(['notes'])
    write(file, skill('notes', 'second version'))
    expect((await registry.get('notes', { cwd: w.cwd }))?.description).toBe('second version')
    write(file, skill('renamed', 'moved'))
    expect(await registry.get('notes', { cwd: w.cwd })).toBeUndefined()
    expect(changes).toBe(1)
    expect((await registry.list({ cwd: w.cwd })).map((s) => s.name)).toEqual(['renamed'])
    fs.rmSync(file)
    expect(await registry.get('renamed', { cwd: w.cwd })).toBeUndefined()
  })

  it('get() of a skill whose file became invalid returns undefined and says why', async () => {
    const w = workspace()
    const file = path.join(w.project, '.dsh', 'skills', 'fragile.md')
    write(file, skill('fragile', 'ok'))
    const registryLog = recorder()
    const providerLog = recorder()
    const registry = new SkillRegistry({ logger: registryLog.logger })
    registry.registerLocalProvider({ ...w.config, logger: providerLog.logger })
    expect((await registry.list({ cwd: w.cwd })).map((s) => s.name)).toEqual(['fragile'])
    write(file, '---\nname: fragile\n---\nno description any more\n')
    expect(await registry.get('fragile', { cwd: w.cwd })).toBeUndefined()
    expect(providerLog.warnings.some((m) => m.includes('fragile.md') && m.includes('description'))).toBe(true)
    expect(registryLog.warnings).toEqual([])
  })

  it('caches complete native snapshots per cwd and re-lists after dispose of the provider', async () => {
    const w = workspace()
    write(path.join(w.project, '.dsh', 'skills', 'cached.md'), skill('cached', 'one'))
    const registry = new SkillRegistry({ logger: recorder().logger })
    const local = registry.registerLocalProvider(w.config)
    await registry.snapshot({ cwd: w.cwd })
    // Without a watcher the cached catalog stays until something invalidates it.
    write(path.join(w.project, '.dsh', 'skills', 'later.md'), skill('later', 'two'))
    expect((await registry.list({ cwd: w.cwd })).map((s) => s.name)).toEqual(['cached'])
    let changes = 0
    registry.onChange(() => void changes++)
    await local.dispose()
    expect(changes).toBe(1)
    expect(await registry.list({ cwd: w.cwd })).toEqual([])
    // The name is free again.
    const again = registry.registerLocalProvider(w.config)
    expect((await registry.list({ cwd: w.cwd })).map((s) => s.name)).toEqual(['cached', 'later'])
    expect(() => registry.registerLocalProvider(w.config)).toThrow(/already registered/)
    await again.dispose()
  })

  it("logs the native provider's discovery warnings through the provider's own logger", async () => {
    const w = workspace()
    write(path.join(w.project, '.dsh', 'skills', 'broken.md'), '---\nname: Not Kebab\ndescription: x\n---\n')
    write(path.join(w.project, '.dsh', 'skills', 'dup.md'), skill('dup', 'first'))
    write(path.join(w.project, '.agents', 'skills', 'dup.md'), skill('dup', 'second'))
    const registryLog = recorder()
    const providerLog = recorder()
    const registry = new SkillRegistry({ logger: registryLog.logger })
    registry.registerLocalProvider({ ...w.config, logger: providerLog.logger })
    expect((await registry.list({ cwd: w.cwd })).map((s) => s.name)).toEqual(['dup'])
    expect(providerLog.warnings.some((m) => m.includes('broken.md'))).toBe(true)
    expect(registryLog.warnings.some((m) => m.includes('broken.md'))).toBe(false)
    // Merge warnings (shadowed names) stay the registry's.
    expect(registryLog.warnings.some((m) => m.includes('"dup"') && m.includes('shadowed'))).toBe(true)
  })

  it('a native provider serves one registration; a failed second one leaves the first intact', async () => {
    const w = workspace()
    write(path.join(w.project, '.dsh', 'skills', 'one.md'), skill('one', 'first'))
    const registry = new SkillRegistry({ logger: recorder().logger })
    const local = registry.registerLocalProvider(w.config)
    const other = new SkillRegistry({ logger: recorder().logger })
    expect(() => other.registerProvider(() => local)).toThrow(/already registered/)
    expect(() => registry.registerProvider(() => local)).toThrow(/already registered/)
    expect((await registry.list({ cwd: w.cwd })).map((s) => s.name)).toEqual(['one'])
    let changes = 0
    registry.onChange(() => void changes++)
    // The live registration still invalidates and notifies (host mutation path).
    local.dispose()
    expect(changes).toBe(1)
    // Once disposed, its handle is free again (a closed provider still lists).
    const again = new LocalSkillProvider(w.config)
    other.registerProvider(() => again)
    expect((await other.list({ cwd: w.cwd })).map((s) => s.name)).toEqual(['one'])
    await again.dispose()
  })

  it('an empty cwd means no cwd, for the registry and the provider alike', async () => {
    const w = workspace()
    const registry = new SkillRegistry({ logger: recorder().logger })
    const local = registry.registerLocalProvider({ ...w.config, customSkillDirs: [] })
    write(path.join(w.home, '.dsh', 'skills', 'user.md'), skill('user', 'u'))
    const viaRegistry = (await registry.list({ cwd: '' })).map((s) => s.name)
    const viaProvider = (await local.list({ cwd: '' })) as { candidates: Array<{ name: string }> }
    expect(viaRegistry).toEqual(['user'])
    expect(viaProvider.candidates.map((c) => c.name)).toEqual(viaRegistry)
    await local.dispose()
  })

  it('an unexpected I/O error makes the snapshot incomplete but keeps readable skills loadable', async () => {
    const w = workspace()
    write(path.join(w.project, '.dsh', 'skills', 'readable.md'), skill('readable', 'fine'))
    // A custom root that is a symlink loop cannot be read (ELOOP), which is not "missing".
    const loop = path.join(w.root, 'loop')
    fs.symlinkSync(loop, loop)
    const registry = new SkillRegistry({ logger: recorder().logger })
    registry.registerLocalProvider({ ...w.config, customSkillDirs: [loop] })
    const snapshot = await registry.snapshot({ cwd: w.cwd })
    expect(snapshot.complete).toBe(false)
    expect(snapshot.skills.map((s) => s.name)).toEqual(['readable'])
    expect((await registry.get('readable', { cwd: w.cwd }))?.content).toContain('Body of readable')
  })

  it('notices a .git created or removed between cwd and the project root after the first lookup', async () => {
    const w = workspace()
    const inner = path.join(w.project, 'src')
    write(path.join(w.project, '.dsh', 'skills', 'outer.md'), skill('outer', 'project'))
    write(path.join(inner, '.dsh', 'skills', 'inner.md'), skill('inner', 'nested repository'))
    const registry = new SkillRegistry({ logger: recorder().logger })
    const local = registry.registerLocalProvider(w.config)
    let changes = 0
    registry.onChange(() => void changes++)
    const names = async () => (await registry.list({ cwd: w.cwd })).map((s) => s.name)
    expect(await names()).toEqual(['outer'])
    fs.mkdirSync(path.join(inner, '.git'))
    expect(await names()).toEqual(['inner'])
    fs.rmdirSync(path.join(inner, '.git'))
    expect(await names()).toEqual(['outer'])
    // The project's own .git goes away: cwd is the project now.
    fs.rmdirSync(path.join(w.project, '.git'))
    expect(await names()).toEqual([])
    // Each move is a catalog change for every consumer (notified from the native side).
    await waitFor(() => changes === 3)
    await local.dispose()
  })

  it('logs an unreadable root once per distinct problem, again after it went away and came back', async () => {
    const w = workspace()
    const loop = path.join(w.root, 'loop')
    fs.symlinkSync(loop, loop)
    const log = recorder()
    const registry = new SkillRegistry({ logger: log.logger })
    const local = registry.registerLocalProvider({ ...w.config, customSkillDirs: [loop], logger: log.logger })
    for (let i = 0; i < 4; i++) expect((await registry.snapshot({ cwd: w.cwd })).complete).toBe(false)
    expect(log.warnings.filter((m) => m.includes('cannot list skill root'))).toHaveLength(1)
    fs.unlinkSync(loop)
    fs.mkdirSync(loop)
    expect((await registry.snapshot({ cwd: w.cwd })).complete).toBe(true)
    fs.rmdirSync(loop)
    fs.symlinkSync(loop, loop)
    // A root itself is not a skill entry: a write there invalidates nothing.
    expect(local.observeHostMutation(loop)).toBe(false)
    registry.invalidateProvider(local)
    expect((await registry.snapshot({ cwd: w.cwd })).complete).toBe(false)
    expect(log.warnings.filter((m) => m.includes('cannot list skill root'))).toHaveLength(2)
    await local.dispose()
  })

  it('get(candidate) loads only skill files of a configured root', async () => {
    const w = workspace()
    write(path.join(w.custom, 'ok.md'), skill('ok', 'custom'))
    const secret = write(path.join(w.root, 'private', 'notes.md'), skill('notes', 'not a skill root'))
    const provider = new LocalSkillProvider({ ...w.config, logger: recorder().logger })
    const [candidate] = (await provider.list()).candidates
    for (const forged of [secret, path.join(w.custom, '..', 'private', 'notes.md'), path.join(w.custom, 'ok.md', '..', '..', 'private', 'notes.md')]) {
      await expect(provider.get({ ...candidate, path: forged, locator: { path: forged } })).rejects.toThrow(
        `refusing to load ${forged}: not a skill file of a configured skill root`,
      )
    }
    // `..` that stays inside the root is fine; project roots need the lookup's cwd.
    expect((await provider.get({ ...candidate, path: path.join(w.custom, 'x', '..', 'ok.md') }))?.name).toBe('ok')
    const projectFile = write(path.join(w.project, '.agents', 'skills', 'p.md'), skill('p', 'project'))
    await expect(provider.get({ ...candidate, path: projectFile })).rejects.toThrow(/not a skill file/)
    expect((await provider.get({ ...candidate, path: projectFile }, { cwd: w.cwd }))?.source).toBe('project-agents')
    await provider.dispose()
  })

  it("hands out every native summary's fields whole, across many chunks of text, before and after a change", async () => {
    const w = workspace()
    const texts = ['plain ASCII', 'accents: Première étape, naïve', 'astral: 🚀 𝄞 😀 at the end 🚀', 'CJK: 技能目录 と 説明', 'quotes " and \\ backslash']
    for (let i = 0; i < 300; i++) {
      const name = `skill-${String(i).padStart(3, '0')}`
      const description = `${texts[i % texts.length]} #${i} ${'x'.repeat(i % 7 === 0 ? 400 : 40)}`
      const lines = ['---', `name: ${name}`, `description: ${JSON.stringify(description)}`]
      if (i % 3 === 0) lines.push(`whenToUse: ${JSON.stringify(`when ${texts[(i + 2) % texts.length]}`)}`)
      if (i % 4 === 1) lines.push('disable-model-invocation: true')
      if (i % 5 === 2) lines.push('user-invocable: false')
      lines.push('---', '', `Body ${i}.`, '')
      const file = i % 2 === 0 ? path.join(w.custom, name, 'SKILL.md') : path.join(w.home, '.dsh', 'skills', `${name}.md`)
      write(file, lines.join('\n'))
    }
    const registry = new SkillRegistry({ logger: recorder().logger })
    const local = registry.registerLocalProvider(w.config)
    // The provider's own list() crosses another way (JSON): the oracle.
    const expected = async () => {
      const oracle = new LocalSkillProvider({ ...w.config, logger: recorder().logger })
      const { candidates } = await oracle.list({ cwd: w.cwd })
      await oracle.dispose()
      return candidates
        .map(({ name, description, whenToUse, invocation, source, provider, resourceBase }) =>
          whenToUse === undefined ? { name, description, invocation, source, provider, resourceBase } : { name, description, whenToUse, invocation, source, provider, resourceBase },
        )
        .sort((a, b) => (a.name < b.name ? -1 : 1))
    }
    const first = await registry.snapshot({ cwd: w.cwd })
    expect(first.skills).toHaveLength(300)
    expect(first.skills).toStrictEqual(await expected())
    expect(Object.keys(first.skills[0])).toEqual(['name', 'description', 'whenToUse', 'invocation', 'source', 'provider', 'resourceBase'])
    expect(Object.keys(first.skills[1])).toEqual(['name', 'description', 'invocation', 'source', 'provider', 'resourceBase'])
    // One changed skill crosses alone; the others are the previous catalog's.
    const changed = write(path.join(w.custom, 'skill-150', 'SKILL.md'), skill('skill-150', '"changed: ünïcödé 🚀"'))
    expect(local.observeHostMutation(changed)).toBe(true)
    const second = await registry.snapshot({ cwd: w.cwd })
    expect(second.skills.find((s) => s.name === 'skill-150')?.description).toBe('changed: ünïcödé 🚀')
    expect(second.skills).toStrictEqual(await expected())
    await local.dispose()
  })
})
