import { afterAll, afterEach, describe, expect, it } from 'vitest'
import fs from 'node:fs'
import path from 'node:path'
import { pkg, recorder, skillFile, tempDirs, waitFor, write } from './helpers'
import type { LocalSkillProviderConfig } from '../index'

// Opt-in roots of the local provider: nested project roots (monorepos), the
// claude and codex compatibility roots, a provider name of its own, and
// leaving the default roots out. With every option at its default nothing
// changes.

const { SkillRegistry, LocalSkillProvider, renderCatalog } = pkg

const temps = tempDirs('dsh-roots-')
afterAll(temps.cleanup)

/** Restores `process.env` keys changed by a test. */
const envBackup = new Map<string, string | undefined>()
function setEnv(key: string, value: string | undefined): void {
  if (!envBackup.has(key)) envBackup.set(key, process.env[key])
  if (value === undefined) delete process.env[key]
  else process.env[key] = value
}
afterEach(() => {
  for (const [key, value] of envBackup) {
    if (value === undefined) delete process.env[key]
    else process.env[key] = value
  }
  envBackup.clear()
})

/**
 * A monorepo (`repo/.git`, `repo/packages/app/src`) with skills at every
 * level, in the compatibility folders too, and a home with user, Claude and
 * Codex skills. The home is the process's `HOME` while the test runs.
 */
function monorepo() {
  const root = temps.make()
  const repo = path.join(root, 'repo')
  const app = path.join(repo, 'packages', 'app')
  const src = path.join(app, 'src')
  const home = path.join(root, 'home')
  fs.mkdirSync(path.join(repo, '.git'), { recursive: true })
  fs.mkdirSync(src, { recursive: true })
  write(path.join(repo, '.dsh/skills/review/SKILL.md'), skillFile('review', 'Repository review rules'))
  write(path.join(repo, '.agents/skills/deploy.md'), skillFile('deploy', 'Deploy the repository'))
  write(path.join(app, '.agents/skills/review.md'), skillFile('review', 'App review rules'))
  write(path.join(src, '.dsh/skills/lint/SKILL.md'), skillFile('lint', 'Lint the sources'))
  write(path.join(repo, '.claude/skills/pr-text/SKILL.md'), skillFile('pr-text', 'Write a PR description'))
  write(path.join(repo, '.claude/skills/deploy/SKILL.md'), skillFile('deploy', 'Claude deploy'))
  write(path.join(home, '.dsh/skills/notes.md'), skillFile('notes', 'Personal notes'))
  write(path.join(home, '.claude/skills/claude-only/SKILL.md'), skillFile('claude-only', 'From ~/.claude'))
  write(path.join(home, '.codex/skills/codex-only/SKILL.md'), skillFile('codex-only', 'From ~/.codex'))
  setEnv('HOME', home)
  setEnv('USERPROFILE', home)
  for (const key of ['DSH_HOME', 'DSH_AGENTS_HOME', 'DSH_BUNDLED_SKILL_DIR', 'CODEX_HOME']) setEnv(key, undefined)
  return { root, repo, app, src, home }
}

type Row = [string, string, number]
const rows = (candidates: ReadonlyArray<{ name: string; source: string; rank: number }>): Row[] =>
  candidates.map((c) => [c.name, c.source, c.rank])

function provider(config: LocalSkillProviderConfig = {}) {
  return new LocalSkillProvider({ watch: false, ...config })
}

describe('default options', () => {
  it('give byte-identical catalogs: nested and compatibility folders are not read', async () => {
    const m = monorepo()
    const snapshot = async (config: LocalSkillProviderConfig) => {
      const registry = new SkillRegistry({ logger: recorder().logger })
      const local = registry.registerLocalProvider({ watch: false, ...config })
      try {
        const result = await registry.snapshot({ cwd: m.src })
        const diagnosis = await local.diagnose({ cwd: m.src })
        return { result, diagnosis, rendered: renderCatalog(result.skills) }
      } finally {
        await local.dispose()
      }
    }
    const implicit = await snapshot({})
    const explicit = await snapshot({ nestedRoots: false, compatRoots: [], includeDefaultRoots: true, providerName: 'local' })
    expect(JSON.stringify(explicit.result)).toBe(JSON.stringify(implicit.result))
    expect(explicit.rendered).toEqual(implicit.rendered)
    expect(implicit.result.skills.map((s) => [s.name, s.source, s.provider])).toEqual([
      ['deploy', 'project-agents', 'local'],
      ['notes', 'user-dsh', 'local'],
      ['review', 'project-dsh', 'local'],
    ])
    expect(implicit.diagnosis.roots.map((r) => [r.source, r.rank, r.path])).toEqual([
      ['project-dsh', 100, path.join(m.repo, '.dsh/skills')],
      ['project-agents', 200, path.join(m.repo, '.agents/skills')],
      ['user-dsh', 400, path.join(m.home, '.dsh/skills')],
      ['user-agents', 500, path.join(m.home, '.agents/skills')],
    ])
    // The same bytes as a tree without any of the opt-in folders.
    for (const dir of [path.join(m.app, '.agents'), path.join(m.src, '.dsh'), path.join(m.repo, '.claude')]) {
      fs.rmSync(dir, { recursive: true })
    }
    fs.rmSync(path.join(m.home, '.claude'), { recursive: true })
    fs.rmSync(path.join(m.home, '.codex'), { recursive: true })
    const bare = await snapshot({})
    expect(JSON.stringify(bare.result)).toBe(JSON.stringify(implicit.result))
    expect(bare.rendered.digest).toBe(implicit.rendered.digest)
  })
})

describe('nestedRoots', () => {
  it('adds .dsh/skills and .agents/skills from cwd up to the project root, nearest first', async () => {
    const m = monorepo()
    const local = provider({ nestedRoots: true })
    const { candidates, complete } = await local.list({ cwd: m.src })
    expect(complete).toBe(true)
    expect(rows(candidates)).toEqual([
      ['lint', 'project-dsh', 12.5],
      ['review', 'project-agents', 37.5],
      ['review', 'project-dsh', 100],
      ['deploy', 'project-agents', 200],
      ['notes', 'user-dsh', 400],
    ])
    const diagnosis = await local.diagnose({ cwd: m.src })
    expect(diagnosis.projectRoot).toBe(m.repo)
    expect(diagnosis.roots.slice(0, 8).map((r) => [path.relative(m.repo, r.path), r.source, r.rank, r.status])).toEqual([
      ['packages/app/src/.dsh/skills', 'project-dsh', 12.5, 'scanned'],
      ['packages/app/src/.agents/skills', 'project-agents', 18.75, 'missing'],
      ['packages/app/.dsh/skills', 'project-dsh', 25, 'missing'],
      ['packages/app/.agents/skills', 'project-agents', 37.5, 'scanned'],
      ['packages/.dsh/skills', 'project-dsh', 50, 'missing'],
      ['packages/.agents/skills', 'project-agents', 75, 'missing'],
      ['.dsh/skills', 'project-dsh', 100, 'scanned'],
      ['.agents/skills', 'project-agents', 200, 'scanned'],
    ])
    const shadowed = diagnosis.files.find((f) => f.outcome === 'shadowed')
    expect(shadowed?.path).toBe(path.join(m.repo, '.dsh/skills/review/SKILL.md'))
    expect(shadowed?.shadowedBy).toMatchObject({ source: 'project-agents', rank: 37.5 })
  })

  it('lets a package outrank the repository in the registry, and runtime skills (250) lose to both', async () => {
    const m = monorepo()
    const registry = new SkillRegistry({ logger: recorder().logger })
    const local = registry.registerLocalProvider({ nestedRoots: true, watch: false })
    registry.register({ name: 'lint', description: 'runtime lint', content: 'runtime', source: 'runtime' })
    registry.register({ name: 'extra', description: 'runtime only', content: 'runtime', source: 'runtime' })
    const { skills } = await registry.snapshot({ cwd: m.src })
    expect(skills.map((s) => [s.name, s.description, s.source])).toEqual([
      ['deploy', 'Deploy the repository', 'project-agents'],
      ['extra', 'runtime only', 'runtime'],
      ['lint', 'Lint the sources', 'project-dsh'],
      ['notes', 'Personal notes', 'user-dsh'],
      ['review', 'App review rules', 'project-agents'],
    ])
    const review = await registry.get('review', { cwd: m.src })
    expect(review?.content).toBe('Body of review (App review rules).')
    expect(review?.path).toBe(path.join(m.app, '.agents/skills/review.md'))
    // From the repository root the package's roots are not in the lookup.
    const top = await registry.snapshot({ cwd: m.repo })
    expect(top.skills.find((s) => s.name === 'review')?.description).toBe('Repository review rules')
    expect(top.skills.find((s) => s.name === 'lint')?.source).toBe('runtime')
    await local.dispose()
  })

  it('first-party writes under a nested root invalidate once looked up, watching or not', async () => {
    const m = monorepo()
    const registry = new SkillRegistry({ logger: recorder().logger })
    const local = registry.registerLocalProvider({ nestedRoots: true, watch: false })
    let changes = 0
    registry.onChange(() => void changes++)
    const nestedFile = path.join(m.app, '.dsh/skills/fresh.md')
    expect(local.observeHostMutation(nestedFile)).toBe(false)
    await registry.snapshot({ cwd: m.src })
    write(nestedFile, skillFile('fresh', 'Written by a tool'))
    expect(local.observeHostMutation(nestedFile)).toBe(true)
    expect(changes).toBe(1)
    expect(local.observeHostMutation(path.join(m.src, 'index.ts'))).toBe(false)
    expect((await registry.list({ cwd: m.src })).map((s) => s.name)).toContain('fresh')
    await local.dispose()
  })

  it('is watched like the project roots: a skill created in a package shows up', async () => {
    const m = monorepo()
    const other = path.join(m.repo, 'packages', 'other')
    fs.mkdirSync(other, { recursive: true })
    const registry = new SkillRegistry({ logger: recorder().logger })
    const local = registry.registerLocalProvider({ nestedRoots: true })
    let changes = 0
    registry.onChange(() => void changes++)
    expect((await registry.snapshot({ cwd: m.src })).complete).toBe(true)
    expect((await registry.snapshot({ cwd: other })).complete).toBe(true)
    // Both lookup directories stay watched, not only the last one.
    for (const [dir, name] of [
      [m.app, 'app-new'],
      [other, 'other-new'],
    ] as const) {
      const before = changes
      write(path.join(dir, '.agents/skills', `${name}.md`), skillFile(name, 'Created later'))
      await waitFor(() => changes > before, 20_000)
      const cwd = dir === m.app ? m.src : other
      await waitFor(async () => (await registry.list({ cwd })).some((s) => s.name === name), 20_000)
    }
    await local.dispose()
  })
})

describe('compatRoots', () => {
  it("'claude' and 'codex' add their roots between their neighbours", async () => {
    const m = monorepo()
    const codexHome = path.join(m.root, 'codex-home')
    write(path.join(codexHome, 'skills/from-env.md'), skillFile('from-env', 'From $CODEX_HOME'))
    const both = provider({ compatRoots: ['claude', 'codex'] })
    expect(rows((await both.list({ cwd: m.repo })).candidates)).toEqual([
      ['review', 'project-dsh', 100],
      ['deploy', 'project-agents', 200],
      ['deploy', 'project-claude', 225],
      ['pr-text', 'project-claude', 225],
      ['notes', 'user-dsh', 400],
      ['claude-only', 'user-claude', 550],
      ['codex-only', 'user-codex', 575],
    ])
    const definition = await both.get(
      (await both.list({ cwd: m.repo })).candidates.find((c) => c.name === 'claude-only')!,
      { cwd: m.repo },
    )
    expect(definition).toMatchObject({ name: 'claude-only', source: 'user-claude', content: 'Body of claude-only (From ~/.claude).' })
    // `$CODEX_HOME` wins over `~/.codex`, read when the provider is created.
    setEnv('CODEX_HOME', codexHome)
    const codex = provider({ compatRoots: ['codex'] })
    setEnv('CODEX_HOME', undefined)
    expect(rows((await codex.list({ cwd: m.repo })).candidates).slice(-1)).toEqual([['from-env', 'user-codex', 575]])
    const roots = (await codex.diagnose({ cwd: m.repo })).roots.map((r) => r.source)
    expect(roots).toEqual(['project-dsh', 'project-agents', 'user-dsh', 'user-agents', 'user-codex'])
  })

  it('rejects anything but an array of known names, clearly', () => {
    const bad = (compatRoots: unknown) => () => new LocalSkillProvider({ compatRoots: compatRoots as LocalSkillProviderConfig['compatRoots'] })
    expect(bad('claude')).toThrow(new TypeError('LocalSkillProvider config.compatRoots must be an array of strings (got string)'))
    expect(bad([1])).toThrow(TypeError)
    expect(bad(['claude', 'cursor'])).toThrow('compatRoots[1] must be "claude" or "codex" (got "cursor")')
    expect(bad(['Claude'])).toThrow('compatRoots[0] must be "claude" or "codex" (got "Claude")')
  })
})

describe('providerName and includeDefaultRoots', () => {
  it('two local providers with their own names serve one registry', async () => {
    const m = monorepo()
    const team = path.join(m.root, 'team')
    write(path.join(team, 'deploy.md'), skillFile('deploy', 'Team deploy'))
    write(path.join(team, 'team-only.md'), skillFile('team-only', 'Only the team has it'))
    setEnv('DSH_BUNDLED_SKILL_DIR', path.join(m.root, 'never-read'))
    const registry = new SkillRegistry({ logger: recorder().logger })
    const local = registry.registerLocalProvider({ watch: false })
    const claude = registry.registerLocalProvider({
      providerName: 'claude',
      includeDefaultRoots: false,
      compatRoots: ['claude'],
      watch: false,
    })
    const teamProvider = registry.registerLocalProvider({ providerName: 'team', includeDefaultRoots: false, customSkillDirs: [team] })
    expect([local.name, claude.name, teamProvider.name]).toEqual(['local', 'claude', 'team'])
    const { skills, complete } = await registry.snapshot({ cwd: m.repo })
    expect(complete).toBe(true)
    expect(skills.map((s) => [s.name, s.source, s.provider])).toEqual([
      ['claude-only', 'user-claude', 'claude'],
      ['deploy', 'project-agents', 'local'],
      ['notes', 'user-dsh', 'local'],
      ['pr-text', 'project-claude', 'claude'],
      ['review', 'project-dsh', 'local'],
      ['team-only', 'custom', 'team'],
    ])
    expect(await registry.get('team-only', { cwd: m.repo })).toMatchObject({ provider: 'team', source: 'custom' })
    expect(await registry.get('pr-text', { cwd: m.repo })).toMatchObject({ provider: 'claude', source: 'project-claude' })
    // Without the default roots: no user roots, no `$DSH_BUNDLED_SKILL_DIR`.
    expect((await teamProvider.diagnose({ cwd: m.repo })).roots.map((r) => r.source)).toEqual(['custom'])
    expect((await teamProvider.diagnose({ cwd: m.repo })).projectRoot).toBeUndefined()
    // Names stay unique; a provider object serves one registration.
    expect(() => registry.registerLocalProvider({ providerName: 'team', includeDefaultRoots: false })).toThrow(/team/)
    expect(() => registry.registerProvider(() => teamProvider)).toThrow(/already registered/)
    await Promise.all([local.dispose(), claude.dispose(), teamProvider.dispose()])
  })

  it('are validated with clear errors', () => {
    const make = (config: Record<string, unknown>) => () => new LocalSkillProvider(config as LocalSkillProviderConfig)
    expect(make({ providerName: 7 })).toThrow(new TypeError('LocalSkillProvider config.providerName must be a string (got number)'))
    expect(make({ providerName: '' })).toThrow('providerName must be a non-empty string other than "runtime" (got "")')
    expect(make({ providerName: 'runtime' })).toThrow('providerName must be a non-empty string other than "runtime"')
    expect(make({ includeDefaultRoots: 'no' })).toThrow(/config\.includeDefaultRoots must be a boolean/)
    expect(make({ nestedRoots: 1 })).toThrow(/config\.nestedRoots must be a boolean/)
    expect(make({ includeDefaultRoots: false, nestedRoots: true })).toThrow(
      'nestedRoots has no effect with includeDefaultRoots: false',
    )
    // Without the default roots, dshHome and agentsHome are unused, not an error.
    expect(make({ includeDefaultRoots: false, dshHome: '/x', agentsHome: '/y' })().name).toBe('local')
    expect(make({ includeDefaultRoots: false, dshHome: 7 })).toThrow(/config\.dshHome must be a string/)
    expect(make({ includeDefaultRoots: false })().name).toBe('local')
  })
})
