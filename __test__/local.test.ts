import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createRequire } from 'node:module'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { LocalSkillProvider as LocalSkillProviderType, LocalSkillProviderConfig } from '../types/local'
import type { SkillCandidate } from '../types/skill'
import { loadTestHooks } from './helpers'

const require = createRequire(import.meta.url)
const { LocalSkillProvider } = require('../lib/local.js') as {
  LocalSkillProvider: new (config?: LocalSkillProviderConfig) => LocalSkillProviderType
}
const { kNative, kOnDispose } = require('../lib/symbols.js') as { kNative: symbol; kOnDispose: symbol }
const { SkillRegistry } = require('../index.js') as typeof import('../index')

const temps: string[] = []

function tempDir(): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-local-')))
  temps.push(dir)
  return dir
}

afterAll(() => {
  for (const dir of temps) fs.rmSync(dir, { recursive: true, force: true })
})

function write(file: string, text: string | Buffer): string {
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, text)
  return file
}

function skill(name: string, description = `${name} skill`, extra = ''): string {
  return `---\nname: ${name}\ndescription: ${description}\n${extra}---\n\n# ${name}\n\nBody of ${name}.\n`
}

function recorder() {
  const warnings: string[] = []
  return { warnings, logger: { warn: (message: string) => void warnings.push(message) } }
}

interface Layout {
  root: string
  home: string
  config: LocalSkillProviderConfig
}

function layout(extra: Partial<LocalSkillProviderConfig> = {}): Layout {
  const root = tempDir()
  const home = path.join(root, 'home')
  return {
    root,
    home,
    config: { dshHome: path.join(home, '.dsh'), agentsHome: path.join(home, '.agents'), watch: false, ...extra },
  }
}

describe('LocalSkillProvider construction', () => {
  it('is named local and validates its configuration', () => {
    const { config } = layout()
    const provider = new LocalSkillProvider(config)
    expect(provider.name).toBe('local')
    expect(typeof provider.list).toBe('function')

    expect(() => new LocalSkillProvider({ dshHome: 3 as unknown as string })).toThrow(TypeError)
    expect(() => new LocalSkillProvider({ watch: 'yes' as unknown as boolean })).toThrow(/watch must be a boolean/)
    expect(() => new LocalSkillProvider({ customSkillDirs: 'x' as unknown as string[] })).toThrow(/customSkillDirs/)
    expect(() => new LocalSkillProvider({ logger: {} as unknown as { warn(m: string): void } })).toThrow(/logger/)
    for (const field of ['watchStabilityThresholdMs', 'watchPollIntervalMs', 'watchMaxProjects', 'maxSkillFileBytes'] as const) {
      for (const value of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
        expect(() => new LocalSkillProvider({ ...config, [field]: value }), `${field}=${value}`).toThrow(
          new RegExp(`${field} must be a positive integer`),
        )
      }
      expect(() => new LocalSkillProvider({ ...config, [field]: '5' as unknown as number })).toThrow(TypeError)
      expect(() => new LocalSkillProvider({ ...config, [field]: 5 })).not.toThrow()
    }
    expect(() => new LocalSkillProvider({ dshHome: '' })).toThrow(/dshHome must be a non-empty path/)
  })
})

describe('LocalSkillProvider.list', () => {
  it('lists the six roots with their ranks, sources and candidate fields', async () => {
    const l = layout()
    const project = path.join(l.root, 'project')
    fs.mkdirSync(path.join(project, '.git'), { recursive: true })
    const cwd = path.join(project, 'packages', 'app')
    fs.mkdirSync(cwd, { recursive: true })
    const custom = path.join(l.root, 'custom')
    const bundled = path.join(l.root, 'bundled')
    write(
      path.join(project, '.dsh/skills/review/SKILL.md'),
      skill('review', 'Review code', 'whenToUse: When reviewing\nmetadata:\n  owner: team\n  tags: [a, b]\n'),
    )
    write(path.join(project, '.agents/skills/p-agents.md'), skill('p-agents'))
    write(path.join(custom, 'c.md'), skill('c'))
    write(path.join(l.home, '.dsh/skills/u-dsh/SKILL.md'), skill('u-dsh'))
    write(path.join(l.home, '.agents/skills/u-agents.md'), skill('u-agents', 'd', 'disable-model-invocation: yes\n'))
    write(path.join(bundled, 'b/SKILL.md'), skill('b'))
    const rec = recorder()
    const provider = new LocalSkillProvider({ ...l.config, customSkillDirs: [custom], bundledSkillDir: bundled, logger: rec.logger })

    const result = await provider.list({ cwd })
    expect(Array.isArray(result)).toBe(false)
    const { candidates, complete } = result
    expect(complete).toBe(true)
    expect(rec.warnings).toEqual([])
    expect(candidates.map((c) => [c.name, c.source, c.rank])).toEqual([
      ['review', 'project-dsh', 100],
      ['p-agents', 'project-agents', 200],
      ['c', 'custom', 300],
      ['u-dsh', 'user-dsh', 400],
      ['u-agents', 'user-agents', 500],
      ['b', 'bundled', 600],
    ])
    const dir = path.join(project, '.dsh/skills/review')
    expect(candidates[0]).toEqual({
      name: 'review',
      description: 'Review code',
      whenToUse: 'When reviewing',
      invocation: { modelInvocable: true, userInvocable: true },
      source: 'project-dsh',
      provider: 'local',
      resourceBase: { kind: 'directory', path: dir },
      rank: 100,
      locator: { path: path.join(dir, 'SKILL.md') },
      path: path.join(dir, 'SKILL.md'),
      metadata: { owner: 'team', tags: ['a', 'b'] },
    })
    expect(candidates[1].resourceBase).toEqual({ kind: 'directory', path: path.join(project, '.agents/skills') })
    expect('whenToUse' in candidates[1]).toBe(false)
    expect('metadata' in candidates[1]).toBe(false)
    expect(candidates[4].invocation).toEqual({ modelInvocable: false, userInvocable: true })

    // Without a cwd there are no project roots.
    const noCwd = (await provider.list({}))
    expect(noCwd.candidates.map((c) => c.source)).toEqual(['custom', 'user-dsh', 'user-agents', 'bundled'])
    await provider.dispose()
  })

  it('logs skipped files through the logger and keeps good siblings', async () => {
    const l = layout()
    const root = path.join(l.home, '.agents/skills')
    write(path.join(root, 'good.md'), skill('good'))
    write(path.join(root, 'bad.md'), '# no frontmatter\n')
    write(path.join(root, 'legacy.md'), skill('legacy', 'd', 'userInvocable: false\n'))
    write(path.join(root, 'binary.md'), Buffer.from([0x2d, 0x2d, 0x2d, 0x0a, 0xff, 0xfe, 0x0a]))
    write(path.join(root, 'empty.md'), '')
    fs.symlinkSync(path.join(root, 'nowhere'), path.join(root, 'dangling.md'))
    const rec = recorder()
    const provider = new LocalSkillProvider({ ...l.config, logger: rec.logger })
    const { candidates, complete } = (await provider.list({}))
    expect(complete).toBe(true)
    expect(candidates.map((c) => c.name)).toEqual(['good'])
    expect(rec.warnings).toHaveLength(5)
    expect(rec.warnings.join('\n')).toMatch(/bad\.md skipped: missing frontmatter/)
    expect(rec.warnings.join('\n')).toMatch(/legacy\.md skipped: frontmatter key `userInvocable`/)
    // Decoded as UTF-8 with U+FFFD for the bad bytes (as the fs-service path is): no closing line.
    expect(rec.warnings.join('\n')).toMatch(/binary\.md skipped: unterminated frontmatter/)
    expect(rec.warnings.join('\n')).toMatch(/empty\.md skipped: empty file/)
    expect(rec.warnings.join('\n')).toMatch(/dangling\.md skipped: broken symbolic link/)
  })

  it('reports an unreadable root as incomplete while listing readable skills', async () => {
    const l = layout()
    const looped = path.join(l.root, 'looped')
    fs.symlinkSync(looped, looped)
    write(path.join(l.home, '.agents/skills/ok.md'), skill('ok'))
    const rec = recorder()
    const provider = new LocalSkillProvider({ ...l.config, customSkillDirs: [looped], logger: rec.logger })
    const result = (await provider.list({}))
    expect(result.complete).toBe(false)
    expect(result.candidates.map((c) => c.name)).toEqual(['ok'])
    expect(rec.warnings.join('\n')).toMatch(/cannot list skill root .*looped.*incomplete/)
    // The readable skill stays loadable.
    expect((await provider.get(result.candidates[0], {}))?.content).toBe('# ok\n\nBody of ok.')
  })

  it('rejects with the abort reason', async () => {
    const { config } = layout()
    const provider = new LocalSkillProvider(config)
    const reason = new Error('stop')
    await expect(provider.list({ signal: AbortSignal.abort(reason) })).rejects.toBe(reason)
    const controller = new AbortController()
    const pending = provider.list({ signal: controller.signal })
    controller.abort(reason)
    await expect(pending).rejects.toBe(reason)
  })

  it('orders same-name skills inside one root as localeCompare does', async () => {
    const l = layout()
    const root = path.join(l.home, '.agents/skills')
    const entries = ['Dup.md', 'dup.md', 'dup-x.md', 'dup', 'DUP-y.md', '_dup.md', 'dup2.md', 'dup10.md']
    for (const entry of entries) {
      if (entry.endsWith('.md')) write(path.join(root, entry), skill('dup', entry))
      else write(path.join(root, entry, 'SKILL.md'), skill('dup', entry))
    }
    const provider = new LocalSkillProvider(l.config)
    const { candidates } = (await provider.list({}))
    expect(candidates.map((c) => c.description)).toEqual([...entries].sort((a, b) => a.localeCompare(b)))
  })
})

describe('entry order matches String.prototype.localeCompare', () => {
  let binding: { __localeCompareForTest(a: string, b: string): number }
  beforeAll(() => {
    binding = loadTestHooks()
  }, 600_000)
  const corpus = [
    'alpha', 'Alpha', 'ALPHA', 'alpha.md', 'Alpha.md', 'alpha-beta', 'alpha_beta', 'alpha beta', 'alphabet',
    'alpha1', 'alpha10', 'alpha2', 'alpha-2', 'alpha.2', 'a', 'A', 'b', 'B', 'z', 'Z', '0', '1', '10', '9',
    '_private', '-dash', '.hidden', '.system', '~tilde', '(paren)', '[bracket]', '{brace}', '@scope', '#hash',
    '$dollar', '%percent', '&amp', "'quote", '+plus', '=eq', ',comma', ';semi', '!bang', '?q',
    'review', 'review-code', 'review_code', 'reviewCode', 'Review-Code', 'code-review', 'code.review',
    'SKILL.md', 'skill.md', 'Skill.md', 'skills', 'readme.md', 'README.md', 'README', 'notes.txt',
    'café', 'cafe', 'Café', 'cafes', 'naïve', 'naive', 'résumé', 'resume', 'über', 'uber', 'Ünder',
    'mañana', 'manana', 'søren', 'soren', 'straße', 'strasse', 'æther', 'aether', 'ça', 'ca',
    'a-b-c', 'a-bc', 'ab-c', 'abc', 'a.b.c', 'a b c', 'x1-y2', 'x10-y1', 'x2-y10',
    'deploy-prod.md', 'deploy-staging.md', 'deploy.md', 'deploy', 'Deploy', 'deploy-v2', 'deploy_v2',
  ]

  it('agrees on every pair of a realistic corpus', () => {
    const mismatches: string[] = []
    for (const a of corpus) {
      for (const b of corpus) {
        const want = Math.sign(a.localeCompare(b))
        const got = binding.__localeCompareForTest(a, b)
        // ICU ties (want 0) are broken by code units natively; only strict orders must agree.
        if (want !== 0 && got !== want) mismatches.push(`${JSON.stringify(a)} vs ${JSON.stringify(b)}: node ${want}, native ${got}`)
      }
    }
    expect(mismatches).toEqual([])
  })

  it('sorts the corpus the same way', () => {
    const node = [...corpus].sort((a, b) => a.localeCompare(b))
    const native = [...corpus].sort((a, b) => binding.__localeCompareForTest(a, b))
    expect(native).toEqual(node)
  })
})

describe('LocalSkillProvider.get', () => {
  it('re-reads every time, returns undefined when deleted or invalid', async () => {
    const l = layout()
    const file = write(path.join(l.home, '.dsh/skills/edit/SKILL.md'), skill('edit'))
    const rec = recorder()
    const provider = new LocalSkillProvider({ ...l.config, logger: rec.logger })
    const { candidates } = (await provider.list({}))
    const candidate = candidates[0]
    const first = await provider.get(candidate, {})
    expect(first).toEqual({
      name: 'edit',
      description: 'edit skill',
      invocation: { modelInvocable: true, userInvocable: true },
      source: 'user-dsh',
      provider: 'local',
      resourceBase: { kind: 'directory', path: path.dirname(file) },
      content: '# edit\n\nBody of edit.',
      path: file,
    })

    write(file, skill('edit', 'changed', 'metadata:\n  v: 2\n').replace('Body of edit.', 'New body.'))
    const second = await provider.get(candidate, {})
    expect(second?.description).toBe('changed')
    expect(second?.content).toBe('# edit\n\nNew body.')
    expect(second?.metadata).toEqual({ v: 2 })

    write(file, skill('renamed'))
    expect((await provider.get(candidate, {}))?.name).toBe('renamed')

    write(file, 'not a skill')
    expect(await provider.get(candidate, {})).toBeUndefined()
    expect(rec.warnings.join('\n')).toMatch(/SKILL\.md skipped: missing frontmatter/)

    fs.rmSync(file)
    expect(await provider.get(candidate, {})).toBeUndefined()
  })

  it('honours the lookup signal', async () => {
    const l = layout()
    write(path.join(l.home, '.dsh/skills/s.md'), skill('s'))
    const provider = new LocalSkillProvider(l.config)
    const { candidates } = (await provider.list({}))
    const reason = new Error('aborted by caller')
    await expect(provider.get(candidates[0], { signal: AbortSignal.abort(reason) })).rejects.toBe(reason)
    const controller = new AbortController()
    const pending = provider.get(candidates[0], { signal: controller.signal })
    controller.abort(reason)
    await expect(pending).rejects.toBe(reason)
    // A signal that never aborts changes nothing.
    expect((await provider.get(candidates[0], { signal: new AbortController().signal }))?.name).toBe('s')
  })

  it('rejects a candidate without a path', async () => {
    const provider = new LocalSkillProvider(layout().config)
    await expect(provider.get({ name: 'x' } as unknown as SkillCandidate, {})).rejects.toThrow(/candidate\.path/)
  })
})

describe('LocalSkillProvider.diagnose', () => {
  it('explains every file: loaded, shadowed (across and inside roots), skipped', async () => {
    const l = layout()
    const project = path.join(l.root, 'proj')
    write(path.join(project, '.git'), 'gitdir: elsewhere\n')
    const winner = write(path.join(project, '.agents/skills/shared.md'), skill('shared'))
    const loser = write(path.join(l.home, '.dsh/skills/shared/SKILL.md'), skill('shared'))
    const twinA = write(path.join(l.home, '.agents/skills/a.md'), skill('twin'))
    const twinB = write(path.join(l.home, '.agents/skills/b.md'), skill('twin'))
    const bad = write(path.join(l.home, '.agents/skills/bad.md'), skill('Bad Name'))
    const provider = new LocalSkillProvider(l.config)
    const d = await provider.diagnose({ cwd: path.join(project, 'sub') })
    expect(d.complete).toBe(true)
    expect(d.projectRoot).toBe(project)
    expect(d.roots.map((r) => [r.source, r.rank, r.status])).toEqual([
      ['project-dsh', 100, 'missing'],
      ['project-agents', 200, 'scanned'],
      ['user-dsh', 400, 'scanned'],
      ['user-agents', 500, 'scanned'],
    ])
    const byPath = new Map(d.files.map((f) => [f.path, f]))
    expect(byPath.get(winner)).toMatchObject({ outcome: 'loaded', name: 'shared', source: 'project-agents', layout: 'flat' })
    expect(byPath.get(loser)).toMatchObject({
      outcome: 'shadowed',
      layout: 'bundle',
      shadowedBy: { name: 'shared', source: 'project-agents', rank: 200, path: winner },
    })
    expect(byPath.get(loser)?.reason).toMatch(/shadowed by "shared" from project-agents/)
    expect(byPath.get(twinA)?.outcome).toBe('loaded')
    expect(byPath.get(twinB)).toMatchObject({ outcome: 'shadowed', shadowedBy: { path: twinA } })
    expect(byPath.get(bad)?.outcome).toBe('skipped')
    expect(byPath.get(bad)?.reason).toMatch(/`name` must be kebab-case/)
    expect(d.warnings).toHaveLength(1)
  })
})

describe('defaults from the environment', () => {
  const saved: Record<string, string | undefined> = {}
  const keys = ['HOME', 'USERPROFILE', 'DSH_HOME', 'DSH_AGENTS_HOME', 'DSH_BUNDLED_SKILL_DIR']
  beforeEach(() => {
    for (const k of keys) saved[k] = process.env[k]
  })
  afterEach(() => {
    for (const k of keys) {
      if (saved[k] === undefined) delete process.env[k]
      else process.env[k] = saved[k]
    }
  })

  it('uses $DSH_HOME, $DSH_AGENTS_HOME and $DSH_BUNDLED_SKILL_DIR', async () => {
    const root = tempDir()
    process.env.DSH_HOME = path.join(root, 'dsh')
    process.env.DSH_AGENTS_HOME = path.join(root, 'agents')
    process.env.DSH_BUNDLED_SKILL_DIR = path.join(root, 'bundled')
    write(path.join(root, 'dsh/skills/one.md'), skill('one'))
    write(path.join(root, 'agents/skills/two.md'), skill('two'))
    write(path.join(root, 'bundled/three.md'), skill('three'))
    const provider = new LocalSkillProvider({ watch: false })
    const { candidates } = (await provider.list({}))
    expect(candidates.map((c) => [c.name, c.source])).toEqual([
      ['one', 'user-dsh'],
      ['two', 'user-agents'],
      ['three', 'bundled'],
    ])
    // Explicit configuration wins over the environment.
    const explicit = new LocalSkillProvider({ watch: false, dshHome: path.join(root, 'none'), bundledSkillDir: path.join(root, 'none') })
    const other = (await explicit.list({}))
    expect(other.candidates.map((c) => c.name)).toEqual(['two'])
  })

  it('reads process.env when the provider is created, also in a worker thread', async () => {
    const root = tempDir()
    const dirs = { DSH_HOME: path.join(root, 'w-dsh'), DSH_AGENTS_HOME: path.join(root, 'w-agents'), DSH_BUNDLED_SKILL_DIR: path.join(root, 'w-bundled') }
    // A worker's process.env is its own copy: the OS environment does not have these.
    const { Worker } = await import('node:worker_threads')
    const script = `
      const { parentPort } = require('node:worker_threads')
      const { LocalSkillProvider } = require(${JSON.stringify(path.join(__dirname, '..', 'lib', 'local.js'))})
      new LocalSkillProvider({ watch: false }).diagnose({}).then(
        (d) => parentPort.postMessage(d.roots.map((r) => [r.source, r.path])),
        (e) => parentPort.postMessage(String(e)),
      )
    `
    const worker = new Worker(script, { eval: true, env: { ...process.env, ...dirs } })
    const roots = await new Promise((resolve, reject) => {
      worker.once('message', resolve)
      worker.once('error', reject)
    })
    await worker.terminate()
    expect(roots).toEqual([
      ['user-dsh', path.join(dirs.DSH_HOME, 'skills')],
      ['user-agents', path.join(dirs.DSH_AGENTS_HOME, 'skills')],
      ['bundled', dirs.DSH_BUNDLED_SKILL_DIR],
    ])
    // An edit of process.env applies to providers created afterwards.
    process.env.DSH_HOME = path.join(root, 'edited')
    delete process.env.DSH_BUNDLED_SKILL_DIR
    const d = await new LocalSkillProvider({ watch: false }).diagnose({})
    expect(d.roots[0]).toMatchObject({ source: 'user-dsh', path: path.join(root, 'edited', 'skills') })
    expect(d.roots.map((r) => r.source)).not.toContain('bundled')
  })

  it('falls back to ~/.dsh and ~/.agents, and no bundled root', async () => {
    const home = tempDir()
    process.env.HOME = home
    process.env.USERPROFILE = home
    delete process.env.DSH_HOME
    delete process.env.DSH_AGENTS_HOME
    delete process.env.DSH_BUNDLED_SKILL_DIR
    const d = await new LocalSkillProvider({ watch: false }).diagnose({})
    expect(d.roots.map((r) => [r.source, r.path])).toEqual([
      ['user-dsh', path.join(home, '.dsh', 'skills')],
      ['user-agents', path.join(home, '.agents', 'skills')],
    ])
  })
})

describe('lifecycle', () => {
  it('observeHostMutation needs a registration to invalidate, and dispose is idempotent', async () => {
    const l = layout()
    write(path.join(l.home, '.dsh/skills/s.md'), skill('s'))
    const provider = new LocalSkillProvider(l.config)
    // Unregistered: there is no catalog to invalidate.
    expect(provider.observeHostMutation(path.join(l.home, '.dsh/skills/s.md'))).toBe(false)
    expect(() => provider.observeHostMutation(3 as unknown as string)).toThrow(TypeError)
    let calls = 0
    ;(provider as unknown as Record<symbol, () => void>)[kOnDispose] = () => void calls++
    const first = provider.dispose()
    const second = provider.dispose()
    expect(first).toBe(second)
    await first
    await provider.dispose()
    expect(calls).toBe(1)
    const native = (provider as unknown as Record<symbol, { closed: boolean }>)[kNative]
    expect(native.closed).toBe(true)
    // Disposing only closes the watchers: reads are still served.
    expect((await provider.list({})).candidates.map((c) => c.name)).toEqual(['s'])
    expect((await provider.diagnose({})).files.map((f) => f.outcome)).toEqual(['loaded'])
  })

  it('dispose never rejects: a failing unregistration is logged', async () => {
    const l = layout()
    const log = recorder()
    const provider = new LocalSkillProvider({ ...l.config, logger: log.logger })
    ;(provider as unknown as Record<symbol, () => void>)[kOnDispose] = () => {
      throw new Error('unregistration failed')
    }
    await expect(provider.dispose()).resolves.toBeUndefined()
    await expect(provider.dispose()).resolves.toBeUndefined()
    expect(log.warnings).toEqual([expect.stringContaining('unregistration failed')])
  })

  it('pending calls complete normally across dispose, and reads keep working after it', async () => {
    const l = layout({ watch: true })
    for (let i = 0; i < 50; i++) write(path.join(l.home, `.dsh/skills/s${i}.md`), skill(`s${i}`))
    const provider = new LocalSkillProvider(l.config)
    const candidate = (await provider.list({})).candidates[0]
    const pending = [provider.list({}), provider.get(candidate, {}), provider.diagnose({})] as const
    await provider.dispose()
    const [listed, loaded, diagnosis] = await Promise.all(pending)
    expect(listed.candidates).toHaveLength(50)
    expect(listed.complete).toBe(true)
    expect(loaded?.content).toBe('# s0\n\nBody of s0.')
    expect(diagnosis.files).toHaveLength(50)
    // Later calls are served too, unwatched, from a fresh read of the disk.
    write(path.join(l.home, '.dsh/skills/late.md'), skill('late'))
    const after = await provider.list({})
    expect(after.candidates.map((c) => c.name)).toContain('late')
    expect(after.complete).toBe(true)
    expect((await provider.get(candidate, {}))?.name).toBe('s0')
    await provider.dispose()
  })

  it('dispose releases the native caches and tells V8 what stays', async () => {
    const l = layout({ watch: true })
    for (let i = 0; i < 20; i++) write(path.join(l.home, `.agents/skills/s${i}/SKILL.md`), skill(`s${i}`))
    write(path.join(l.home, '.agents/skills/broken.md'), 'no frontmatter\n')
    const provider = new LocalSkillProvider({ ...l.config, logger: recorder().logger })
    type Memory = { parseCacheFiles: number; parseCacheBytes: number; warned: number; totalBytes: number; reportedBytes: number }
    const native = (provider as unknown as Record<symbol, { memoryUse(): Memory }>)[kNative]
    const fresh = native.memoryUse()
    // What the provider holds is reported as external memory from the start.
    expect(fresh.reportedBytes).toBe(fresh.totalBytes)
    expect(fresh.totalBytes).toBeGreaterThan(0)
    await provider.list({})
    const used = native.memoryUse()
    expect(used.warned).toBe(1)
    expect(used.totalBytes).toBeGreaterThan(fresh.totalBytes)
    expect(used.reportedBytes).toBe(used.totalBytes)
    await provider.dispose()
    const disposed = native.memoryUse()
    expect([disposed.parseCacheFiles, disposed.parseCacheBytes, disposed.warned]).toEqual([0, 0, 0])
    expect(disposed.totalBytes).toBe(fresh.totalBytes)
    expect(disposed.reportedBytes).toBe(disposed.totalBytes)
  })

  it('tells V8 what it holds after lookups through a registry too (the usual path)', async () => {
    const l = layout({ watch: false })
    for (let i = 0; i < 20; i++) write(path.join(l.home, `.agents/skills/s${i}/SKILL.md`), skill(`s${i}`))
    write(path.join(l.home, '.agents/skills/broken.md'), 'no frontmatter\n')
    const registry = new SkillRegistry({ logger: recorder().logger })
    const provider = registry.registerLocalProvider(l.config)
    type Memory = { warned: number; totalBytes: number; reportedBytes: number }
    const native = (provider as unknown as Record<symbol, { memoryUse(): Memory }>)[kNative]
    const fresh = native.memoryUse()
    expect(fresh.reportedBytes).toBe(fresh.totalBytes)
    // The lookup remembers its cwd's project and the warning it logged.
    await registry.snapshot({ cwd: l.root })
    const listed = native.memoryUse()
    expect(listed.warned).toBe(1)
    expect(listed.totalBytes).toBeGreaterThan(fresh.totalBytes)
    expect(listed.reportedBytes).toBe(listed.totalBytes)
    await provider.dispose()
  })
})

describe('the TypeScript constructor: new LocalSkillProvider(ctx, control, config)', () => {
  function control() {
    const controller = new AbortController()
    let invalidations = 0
    return {
      controller,
      control: { signal: controller.signal, invalidate: () => void invalidations++ },
      invalidations: () => invalidations,
    }
  }

  it('logs through ctx.logger.warn, invalidates through control.invalidate, and disposes when the signal aborts', async () => {
    const l = layout()
    const root = path.join(l.home, '.agents/skills')
    write(path.join(root, 'bad.md'), 'no frontmatter\n')
    write(path.join(root, 'good.md'), skill('good'))
    const logged: unknown[][] = []
    const ctx = { logger: { warn: (...args: unknown[]) => void logged.push(args) } }
    const c = control()
    const Provider = LocalSkillProvider as unknown as new (
      ctx: unknown,
      control: unknown,
      config: LocalSkillProviderConfig,
    ) => LocalSkillProviderType
    const provider = new Provider(ctx, c.control, l.config)
    expect(provider.name).toBe('local')
    expect((await provider.list({})).candidates.map((c) => c.name)).toEqual(['good'])
    // Exactly the call the TypeScript packages make: one argument, the message.
    expect(logged).toEqual([[expect.stringMatching(/bad\.md skipped: missing frontmatter/)]])
    // watch: false, and still a first-party write invalidates, once.
    expect(provider.observeHostMutation(path.join(root, 'new.md'))).toBe(true)
    expect(c.invalidations()).toBe(1)
    expect(provider.observeHostMutation(path.join(l.root, 'unrelated.md'))).toBe(false)
    expect(c.invalidations()).toBe(1)
    const native = (provider as unknown as Record<symbol, { closed: boolean }>)[kNative]
    expect(native.closed).toBe(false)
    c.controller.abort()
    expect(native.closed).toBe(true)
    // Disposed (the watchers closed), it still serves reads; there is no
    // registration left to invalidate.
    expect((await provider.list({})).candidates.map((c) => c.name)).toEqual(['good'])
    expect(provider.observeHostMutation(path.join(root, 'new.md'))).toBe(false)
    // An already aborted signal: disposed at once.
    const late = control()
    late.controller.abort()
    const gone = new Provider(ctx, late.control, l.config)
    expect((gone as unknown as Record<symbol, { closed: boolean }>)[kNative].closed).toBe(true)
  })

  it('uses the fs service of the context, unless config.fs is given', async () => {
    const l = layout()
    write(path.join(l.home, '.agents/skills/a.md'), skill('a'))
    const calls: string[] = []
    const fsService = {
      resolve: async (p: string) => ({ displayPath: p }),
      stat: async (t: { displayPath: string }) => {
        calls.push(t.displayPath)
        try {
          return { type: fs.statSync(t.displayPath).isFile() ? ('file' as const) : ('directory' as const) }
        } catch {
          return undefined
        }
      },
      listDir: async (t: { displayPath: string }) => {
        try {
          return fs.readdirSync(t.displayPath, { withFileTypes: true }).map((e) => ({
            name: e.name,
            type: e.isFile() ? ('file' as const) : ('directory' as const),
            target: { displayPath: path.join(t.displayPath, e.name) },
          }))
        } catch {
          throw Object.assign(new Error('missing'), { code: 'ENOENT' })
        }
      },
      readText: async (t: { displayPath: string }) => fs.readFileSync(t.displayPath, 'utf8'),
    }
    const ctx = { get: (name: string) => (name === 'fs' ? fsService : undefined), logger: { warn() {} } }
    const Provider = LocalSkillProvider as unknown as new (
      ctx: unknown,
      control: unknown,
      config: LocalSkillProviderConfig,
    ) => LocalSkillProviderType
    const viaService = new Provider(ctx, control().control, l.config)
    expect((await viaService.list({})).candidates.map((c) => c.name)).toEqual(['a'])
    expect(calls).toContain(path.join(l.home, '.agents/skills/a.md'))
    expect((viaService as unknown as Record<symbol, unknown>)[kNative]).toBeUndefined()
    const plain = new LocalSkillProvider(l.config)
    expect((plain as unknown as Record<symbol, unknown>)[kNative]).toBeDefined()
    await viaService.dispose()
    await plain.dispose()
  })
})
