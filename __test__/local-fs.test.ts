import { afterAll, describe, expect, it } from 'vitest'
import fs from 'node:fs'
import fsp from 'node:fs/promises'
import path from 'node:path'
import { pkg, projectLayout, recorder, skillFile, tempDirs, write } from './helpers'
import type { SkillFileSystem, SkillFsEntry, SkillFsStat, SkillFsTarget, SkillProviderControl } from '../index'

const { SkillRegistry, LocalSkillProvider } = pkg
const kNative = Symbol.for('dsh-skill-native.native')

const temps = tempDirs('dsh-local-fs-')
const tempDir = temps.make
afterAll(temps.cleanup)
const skill = skillFile

type Op = 'resolve' | 'stat' | 'listDir' | 'readText'

interface Target extends SkillFsTarget {
  readonly real: string
}

class FsError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message)
  }
}

/**
 * A filesystem service over the real disk (node:fs/promises), counting calls
 * per method, recording paths and signals, with switchable faults per op and path.
 */
class FakeFs implements SkillFileSystem<Target> {
  readonly counts: Record<Op, number> = { resolve: 0, stat: 0, listDir: 0, readText: 0 }
  readonly paths: Record<Op, string[]> = { resolve: [], stat: [], listDir: [], readText: [] }
  readonly signals: Array<{ op: Op; path: string; signal: AbortSignal | undefined }> = []
  readonly #faults = new Map<string, string>()

  /**
   * Make `op` on `file` throw an error with `code` (`'hang'`: never settle;
   * for `stat`, `'undefined'`: resolve to `undefined`, `'directory'`/`'other'`:
   * report that type).
   */
  fail(op: Op, file: string, code: string): void {
    this.#faults.set(`${op}\0${file}`, code)
  }

  clear(): void {
    this.#faults.clear()
  }

  reset(): void {
    for (const op of Object.keys(this.counts) as Op[]) {
      this.counts[op] = 0
      this.paths[op] = []
    }
    this.signals.length = 0
  }

  #enter(op: Op, file: string, signal?: AbortSignal): Promise<never> | undefined {
    this.counts[op]++
    this.paths[op].push(file)
    if (op === 'stat' || op === 'readText') this.signals.push({ op, path: file, signal })
    const code = this.#faults.get(`${op}\0${file}`)
    if (code === undefined) return undefined
    if (code === 'hang') return new Promise<never>(() => {})
    return Promise.reject(new FsError(code, `${op} ${file}: injected ${code}`))
  }

  async resolve(file: string): Promise<Target> {
    const fault = this.#enter('resolve', file)
    if (fault) return fault
    return { displayPath: file, real: file }
  }

  async stat(target: Target, signal?: AbortSignal): Promise<SkillFsStat | undefined> {
    const override = this.#faults.get(`stat\0${target.real}`)
    if (override === 'undefined' || override === 'directory' || override === 'other') {
      this.counts.stat++
      this.paths.stat.push(target.real)
      this.signals.push({ op: 'stat', path: target.real, signal })
      return override === 'undefined' ? undefined : { type: override }
    }
    const fault = this.#enter('stat', target.real, signal)
    if (fault) return fault
    try {
      const s = await fsp.stat(target.real)
      return { type: s.isFile() ? 'file' : s.isDirectory() ? 'directory' : 'other' }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
      throw translate(error)
    }
  }

  async listDir(target: Target): Promise<SkillFsEntry<Target>[]> {
    const fault = this.#enter('listDir', target.real)
    if (fault) return fault
    try {
      const names = await fsp.readdir(target.real)
      return Promise.all(
        names.map(async (name) => {
          const real = path.join(target.real, name)
          const s = await fsp.stat(real).catch(() => undefined)
          const type = s?.isFile() ? 'file' : s?.isDirectory() ? 'directory' : 'other'
          return { name, type, target: { displayPath: real, real } } as const
        }),
      )
    } catch (error) {
      throw translate(error)
    }
  }

  async readText(target: Target, signal?: AbortSignal): Promise<string> {
    const fault = this.#enter('readText', target.real, signal)
    if (fault) return fault
    try {
      return await fsp.readFile(target.real, { encoding: 'utf8', signal })
    } catch (error) {
      throw translate(error)
    }
  }

  /** Whether any call touched `dir` or something below it. */
  touched(dir: string): boolean {
    return Object.values(this.paths).some((list) => list.some((p) => p === dir || p.startsWith(dir + path.sep)))
  }
}

function translate(error: unknown): unknown {
  const code = (error as NodeJS.ErrnoException).code
  if (code === 'ENOENT') return new FsError('FS_NOT_FOUND', String(error))
  if (code === 'ENOTDIR') return new FsError('FS_NOT_DIRECTORY', String(error))
  if (code === 'EISDIR') return new FsError('FS_NOT_TEXT', String(error))
  return error
}

function workspace() {
  const { root, project, cwd, home, custom, bundled } = projectLayout(tempDir())
  const userDsh = path.join(home, '.dsh', 'skills')
  write(path.join(project, '.dsh', 'skills', 'shared', 'SKILL.md'), skill('shared', 'project dsh'))
  write(path.join(project, '.agents', 'skills', 'agents.md'), skill('agents', 'project agents'))
  fs.mkdirSync(path.join(project, '.agents', 'skills', 'no-skill-here'), { recursive: true })
  write(path.join(custom, 'custom.md'), skill('custom', 'custom root'))
  write(path.join(userDsh, 'shared.md'), skill('shared', 'user dsh'))
  write(path.join(userDsh, 'user.md'), skill('user', 'user dsh'))
  write(path.join(userDsh, '.system', 'SKILL.md'), skill('system', 'reserved'))
  write(path.join(home, '.agents', 'skills', 'zz', 'SKILL.md'), skill('zz', 'user agents'))
  write(path.join(bundled, 'builtin', 'SKILL.md'), skill('builtin', 'bundled'))
  const config = {
    dshHome: path.join(home, '.dsh'),
    agentsHome: path.join(home, '.agents'),
    customSkillDirs: [custom],
    bundledSkillDir: bundled,
    watch: false,
  }
  return { root, project, cwd, home, custom, bundled, userDsh, config }
}

const EXPECTED = [
  ['shared', 'project-dsh'],
  ['agents', 'project-agents'],
  ['custom', 'custom'],
  ['shared', 'user-dsh'],
  ['user', 'user-dsh'],
  ['zz', 'user-agents'],
  ['builtin', 'bundled'],
]

function names(result: { candidates: ReadonlyArray<{ name: string; source: string }> }): string[][] {
  return result.candidates.map((c) => [c.name, c.source])
}

describe('local provider through a filesystem service', () => {
  it('lists through the service (probe, listing, reads) with the same result as the native path', async () => {
    const w = workspace()
    const service = new FakeFs()
    const log = recorder()
    const provider = new LocalSkillProvider({ ...w.config, fs: service, logger: log.logger })
    const native = new LocalSkillProvider({ ...w.config, logger: recorder().logger })
    const viaService = await provider.list({ cwd: w.cwd })
    expect(names(viaService)).toEqual(EXPECTED)
    expect(viaService).toEqual(await native.list({ cwd: w.cwd }))
    expect(viaService.complete).toBe(true)
    expect(service.counts.listDir).toBeGreaterThan(0)
    expect(service.counts.readText).toBeGreaterThan(0)
    // The .git probe walked up from cwd through resolve + stat.
    expect(service.paths.resolve).toEqual(expect.arrayContaining([path.join(w.cwd, '.git'), path.join(w.project, '.git')]))
    const probes = service.paths.stat.filter((p) => p.endsWith('.git'))
    expect(probes).toEqual([path.join(w.cwd, '.git'), path.join(w.project, 'src', '.git'), path.join(w.project, '.git')])
    // Every skill file was resolved and stat'ed before it was read.
    expect(service.paths.readText.length).toBeGreaterThan(0)
    for (const file of service.paths.readText) {
      expect(service.paths.resolve).toContain(file)
      expect(service.paths.stat).toContain(file)
    }
    // The reserved .system child and the bundled root are never read through the service.
    expect(service.touched(path.join(w.userDsh, '.system'))).toBe(false)
    expect(service.touched(w.bundled)).toBe(false)
    // A directory without SKILL.md is skipped silently, as natively.
    expect(log.warnings.filter((m) => m.includes('no-skill-here'))).toEqual([])
    // No cwd: no probe, no project roots.
    service.reset()
    expect(names(await provider.list())).toEqual(EXPECTED.slice(2))
    expect(service.paths.stat.filter((p) => p.endsWith('.git'))).toEqual([])
    // diagnose() goes through the service too.
    service.reset()
    const report = await provider.diagnose({ cwd: w.cwd })
    expect(report.projectRoot).toBe(w.project)
    expect(report.complete).toBe(true)
    expect(service.counts.listDir).toBeGreaterThan(0)
    expect(report).toEqual(await native.diagnose({ cwd: w.cwd }))
    await provider.dispose()
    await native.dispose()
  })

  it('serves one registration, and a disposed one cannot be registered again (as the native provider)', async () => {
    const w = workspace()
    const provider = new LocalSkillProvider({ ...w.config, fs: new FakeFs(), logger: recorder().logger })
    const registry = new SkillRegistry({ logger: recorder().logger })
    const other = new SkillRegistry({ logger: recorder().logger })
    const unregister = registry.registerProvider(() => provider)
    expect(() => other.registerProvider(() => provider)).toThrow('skill provider "local" is already registered')
    expect(() => registry.registerProvider(() => provider, { scope: {} })).toThrow('skill provider "local" is already registered')
    const winners = ['agents', 'builtin', 'custom', 'shared', 'user', 'zz']
    expect((await registry.list({ cwd: w.cwd })).map((s) => s.name)).toEqual(winners)
    // Unregistered (not disposed): it may be registered elsewhere.
    unregister()
    const again = other.registerProvider(() => provider)
    expect((await other.list({ cwd: w.cwd })).map((s) => s.name)).toEqual(winners)
    again()
    await provider.dispose()
    let control: SkillProviderControl | undefined
    expect(() => registry.registerProvider((c) => ((control = c), provider))).toThrow(
      'skill provider "local" was disposed and cannot be registered again (create a new provider)',
    )
    expect(control?.signal.aborted).toBe(true)
    expect(await registry.snapshot()).toEqual({ skills: [], complete: true })
    // Reads still work after disposal.
    expect(names(await provider.list({ cwd: w.cwd }))).toEqual(EXPECTED)
  })

  it('a failed .git probe means "not here": the walk continues upward; none found → cwd', async () => {
    const w = workspace()
    const service = new FakeFs()
    service.fail('resolve', path.join(w.cwd, '.git'), 'EIO')
    service.fail('stat', path.join(w.project, 'src', '.git'), 'EACCES')
    const provider = new LocalSkillProvider({ ...w.config, fs: service, logger: recorder().logger })
    const result = await provider.list({ cwd: w.cwd })
    expect(names(result)).toEqual(EXPECTED)
    expect(result.complete).toBe(true)
    // Every probe fails: the project root is cwd itself.
    service.fail('stat', path.join(w.project, '.git'), 'EIO')
    write(path.join(w.cwd, '.dsh', 'skills', 'local-here.md'), skill('local-here', 'cwd is the project'))
    const fallback = await provider.list({ cwd: w.cwd })
    expect(names(fallback)[0]).toEqual(['local-here', 'project-dsh'])
    expect(fallback.complete).toBe(true)
    await provider.dispose()
  })

  it('absence codes mean an empty root or a skill that is gone; the observation stays complete', async () => {
    const w = workspace()
    const service = new FakeFs()
    const log = recorder()
    const provider = new LocalSkillProvider({ ...w.config, fs: service, logger: log.logger })
    service.fail('listDir', w.userDsh, 'FS_NOT_FOUND')
    service.fail('resolve', w.custom, 'FS_NOT_DIRECTORY')
    service.fail('readText', path.join(w.home, '.agents', 'skills', 'zz', 'SKILL.md'), 'FS_NOT_FOUND')
    const result = await provider.list({ cwd: w.cwd })
    expect(names(result)).toEqual([
      ['shared', 'project-dsh'],
      ['agents', 'project-agents'],
      ['builtin', 'bundled'],
    ])
    expect(result.complete).toBe(true)
    expect(log.warnings).toEqual([])
    await provider.dispose()
  })

  it('FS_NOT_TEXT skips that skill with a warning and keeps its siblings', async () => {
    const w = workspace()
    const service = new FakeFs()
    const log = recorder()
    const provider = new LocalSkillProvider({ ...w.config, fs: service, logger: log.logger })
    const binary = path.join(w.userDsh, 'user.md')
    service.fail('readText', binary, 'FS_NOT_TEXT')
    const result = await provider.list({ cwd: w.cwd })
    expect(names(result)).toEqual(EXPECTED.filter(([n]) => n !== 'user'))
    expect(result.complete).toBe(true)
    expect(log.warnings.some((m) => m.includes(binary) && m.includes('not a text file'))).toBe(true)
    // get() of such a file: undefined with a warning.
    const candidate = (await new LocalSkillProvider({ ...w.config, logger: recorder().logger }).list()).candidates.find(
      (c) => c.name === 'user',
    )
    expect(candidate).toBeDefined()
    expect(await provider.get(candidate!)).toBeUndefined()
    expect(log.warnings.filter((m) => m.includes(binary))).toHaveLength(2)
    await provider.dispose()
  })

  it('any other error makes the observation incomplete; it recovers once the fault clears', async () => {
    const w = workspace()
    const service = new FakeFs()
    const log = recorder()
    const provider = new LocalSkillProvider({ ...w.config, fs: service, logger: log.logger })
    const faults: Array<[Op, string]> = [
      ['resolve', w.custom],
      ['listDir', w.userDsh],
      ['resolve', path.join(w.project, '.dsh', 'skills', 'shared', 'SKILL.md')],
      ['readText', path.join(w.project, '.agents', 'skills', 'agents.md')],
    ]
    for (const [op, file] of faults) {
      service.clear()
      service.fail(op, file, 'EIO')
      const result = await provider.list({ cwd: w.cwd })
      expect(result.complete, `${op} ${file}`).toBe(false)
      // Readable skills are still listed.
      expect(result.candidates.length).toBeGreaterThan(0)
      expect(names(result)).toContainEqual(['builtin', 'bundled'])
      expect(log.warnings.at(-1)).toContain('skill discovery is incomplete')
    }
    service.clear()
    const recovered = await provider.list({ cwd: w.cwd })
    expect(recovered.complete).toBe(true)
    expect(names(recovered)).toEqual(EXPECTED)
    await provider.dispose()
  })

  it('registers as a JS provider; incomplete snapshots are not cached, complete ones are', async () => {
    const w = workspace()
    const service = new FakeFs()
    const registry = new SkillRegistry({ logger: recorder().logger })
    const local = registry.registerLocalProvider({ ...w.config, fs: service })
    expect(local).toBeInstanceOf(LocalSkillProvider)
    expect((local as unknown as Record<symbol, unknown>)[kNative]).toBeUndefined()
    const plain = new LocalSkillProvider(w.config)
    expect((plain as unknown as Record<symbol, unknown>)[kNative]).toBeDefined()
    await plain.dispose()

    service.fail('listDir', w.userDsh, 'EIO')
    const broken = await registry.snapshot({ cwd: w.cwd })
    expect(broken.complete).toBe(false)
    expect(broken.skills.map((s) => s.name)).toEqual(['agents', 'builtin', 'custom', 'shared', 'zz'])
    const listings = service.counts.listDir
    expect((await registry.snapshot({ cwd: w.cwd })).complete).toBe(false)
    expect(service.counts.listDir).toBeGreaterThan(listings)

    service.clear()
    const healed = await registry.snapshot({ cwd: w.cwd })
    expect(healed.complete).toBe(true)
    expect(healed.skills.map((s) => s.name)).toEqual(['agents', 'builtin', 'custom', 'shared', 'user', 'zz'])
    const cached = service.counts.listDir
    expect((await registry.snapshot({ cwd: w.cwd })).complete).toBe(true)
    expect(service.counts.listDir).toBe(cached)

    // get() through the registry reads through the service, with the caller's signal.
    const controller = new AbortController()
    service.reset()
    const shared = await registry.get('shared', { cwd: w.cwd, signal: controller.signal })
    expect(shared?.content).toBe('Body of shared (project dsh).')
    expect(service.signals.map((s) => s.op)).toEqual(['stat', 'readText'])
    for (const s of service.signals) expect(s.signal).toBe(controller.signal)
    await local.dispose()
    expect(await registry.list({ cwd: w.cwd })).toEqual([])
  })

  it('get() forwards the signal to stat/readText, re-reads, and cannot hang an aborted caller', async () => {
    const w = workspace()
    const service = new FakeFs()
    const provider = new LocalSkillProvider({ ...w.config, fs: service, logger: recorder().logger })
    const listed = await provider.list({ cwd: w.cwd })
    const candidate = listed.candidates.find((c) => c.source === 'user-dsh' && c.name === 'user')!
    const file = path.join(w.userDsh, 'user.md')
    const controller = new AbortController()
    service.reset()
    write(file, skill('user', 'edited'))
    const loaded = await provider.get(candidate, { signal: controller.signal })
    expect(loaded).toMatchObject({ name: 'user', description: 'edited', source: 'user-dsh', provider: 'local', path: file })
    expect(loaded?.resourceBase).toEqual({ kind: 'directory', path: w.userDsh })
    expect(service.paths.resolve).toEqual([file])
    expect(service.signals).toEqual([
      { op: 'stat', path: file, signal: controller.signal },
      { op: 'readText', path: file, signal: controller.signal },
    ])
    // Deleted: undefined (stat says absent); a transient read error rejects.
    fs.rmSync(file)
    expect(await provider.get(candidate)).toBeUndefined()
    write(file, skill('user', 'back'))
    service.fail('readText', file, 'EIO')
    await expect(provider.get(candidate)).rejects.toThrow(/EIO/)
    service.clear()
    // A readText that never settles: aborting rejects with the reason.
    service.fail('readText', file, 'hang')
    const aborter = new AbortController()
    const pending = provider.get(candidate, { signal: aborter.signal })
    const reason = new Error('caller gave up')
    setTimeout(() => aborter.abort(reason), 10)
    await expect(pending).rejects.toBe(reason)
    // Same for list().
    const listAborter = new AbortController()
    const listing = provider.list({ cwd: w.cwd, signal: listAborter.signal })
    setTimeout(() => listAborter.abort(reason), 10)
    await expect(listing).rejects.toBe(reason)
    await provider.dispose()
  })

  it('observeHostMutation works the same with or without a service', async () => {
    const w = workspace()
    const service = new FakeFs()
    const viaService = new SkillRegistry({ logger: recorder().logger })
    const viaNative = new SkillRegistry({ logger: recorder().logger })
    const remote = viaService.registerLocalProvider({ ...w.config, fs: service, watch: true })
    const local = viaNative.registerLocalProvider({ ...w.config, watch: true })
    await viaService.snapshot({ cwd: w.cwd })
    await viaNative.snapshot({ cwd: w.cwd })
    let changes = 0
    viaService.onChange(() => void changes++)
    for (const file of [path.join(w.userDsh, 'user.md'), path.join(w.root, 'elsewhere.txt')]) {
      const expected = local.observeHostMutation(file)
      const before = changes
      expect(remote.observeHostMutation(file)).toBe(expected)
      // An invalidation is synchronous, as on the native path.
      expect(changes - before).toBe(expected ? 1 : 0)
    }
    expect(remote.observeHostMutation(path.join(w.root, 'elsewhere.txt'))).toBe(false)
    expect(() => remote.observeHostMutation(3 as unknown as string)).toThrow(TypeError)
    await remote.dispose()
    await local.dispose()
  })

  it('resolves and stats each skill file before listing it: the catalog only lists what get() loads', async () => {
    const w = workspace()
    const service = new FakeFs()
    const log = recorder()
    const provider = new LocalSkillProvider({ ...w.config, fs: service, logger: log.logger })
    const absent = path.join(w.userDsh, 'user.md')
    const directory = path.join(w.project, '.agents', 'skills', 'agents.md')
    const unresolved = path.join(w.home, '.agents', 'skills', 'zz', 'SKILL.md')
    // The text is readable, but the service says the file is not there / not a file.
    service.fail('stat', absent, 'undefined')
    service.fail('stat', directory, 'directory')
    service.fail('resolve', unresolved, 'ENOENT')
    const result = await provider.list({ cwd: w.cwd })
    expect(names(result)).toEqual(EXPECTED.filter(([n]) => !['user', 'agents', 'zz'].includes(n)))
    expect(result.complete).toBe(true)
    expect(service.paths.readText).not.toContain(absent)
    expect(service.paths.readText).not.toContain(directory)
    expect(log.warnings).toEqual([expect.stringMatching(/agents\.md skipped: is a directory/)])
    for (const candidate of result.candidates) {
      expect((await provider.get(candidate, { cwd: w.cwd }))?.name).toBe(candidate.name)
    }
    // A stat that fails otherwise makes the observation incomplete.
    service.clear()
    service.fail('stat', absent, 'EACCES')
    const failed = await provider.list({ cwd: w.cwd })
    expect(failed.complete).toBe(false)
    expect(names(failed)).toEqual(EXPECTED.filter(([n]) => n !== 'user'))
    await provider.dispose()
  })

  it('raw ENOENT and ENOTDIR mean absence: a missing root is an empty root and the catalog is cached', async () => {
    const w = workspace()
    // A service passing Node errors through unchanged.
    const raw = new FakeFs()
    raw.fail('listDir', w.userDsh, 'ENOENT')
    raw.fail('resolve', w.custom, 'ENOTDIR')
    raw.fail('readText', path.join(w.home, '.agents', 'skills', 'zz', 'SKILL.md'), 'ENOENT')
    const log = recorder()
    const registry = new SkillRegistry({ logger: log.logger })
    const local = registry.registerLocalProvider({ ...w.config, fs: raw })
    const snapshot = await registry.snapshot({ cwd: w.cwd })
    expect(snapshot.complete).toBe(true)
    expect(snapshot.skills.map((s) => s.name)).toEqual(['agents', 'builtin', 'shared'])
    expect(log.warnings).toEqual([])
    const listings = raw.counts.listDir
    expect((await registry.snapshot({ cwd: w.cwd })).complete).toBe(true)
    expect(raw.counts.listDir).toBe(listings)
    await local.dispose()
  })

  it('a file where a root should be is an empty root with the same warning as natively; below a file, no warning', async () => {
    const w = workspace()
    fs.rmSync(w.custom, { recursive: true, force: true })
    write(w.custom, 'not a directory\n')
    const below = path.join(w.custom, 'skills')
    const config = { ...w.config, customSkillDirs: [w.custom, below] }
    const viaService = recorder()
    const natively = recorder()
    const service = new FakeFs()
    const provider = new LocalSkillProvider({ ...config, fs: service, logger: viaService.logger })
    const native = new LocalSkillProvider({ ...config, logger: natively.logger })
    const listed = await provider.list({ cwd: w.cwd })
    expect(listed).toEqual(await native.list({ cwd: w.cwd }))
    expect(listed.complete).toBe(true)
    expect(natively.warnings.filter((m) => m.includes(w.custom))).toHaveLength(1)
    expect(viaService.warnings).toEqual(natively.warnings)
    expect(viaService.warnings[0]).toContain(`${w.custom} is a file, not a directory`)
    expect(service.paths.stat).toContain(w.custom)
    // The doctor reports agree too.
    expect(await provider.diagnose({ cwd: w.cwd })).toEqual(await native.diagnose({ cwd: w.cwd }))
    // A stat that fails tells nothing: the root stays an empty root, silently.
    const quiet = recorder()
    const failing = new FakeFs()
    failing.fail('stat', w.custom, 'EACCES')
    const other = new LocalSkillProvider({ ...config, fs: failing, logger: quiet.logger })
    expect((await other.list({ cwd: w.cwd })).complete).toBe(true)
    expect(quiet.warnings).toEqual([])
    await Promise.all([provider.dispose(), native.dispose(), other.dispose()])
  })

  it('get() refuses a path that is not a skill file of a configured root, without touching it', async () => {
    const w = workspace()
    const service = new FakeFs()
    const provider = new LocalSkillProvider({ ...w.config, fs: service, logger: recorder().logger })
    const secret = write(path.join(w.root, 'elsewhere', 'secret.md'), skill('secret', 'not a skill root'))
    const listed = (await provider.list()).candidates.find((c) => c.name === 'user')!
    for (const forged of [secret, path.join(w.userDsh, '..', '..', '..', 'elsewhere', 'secret.md'), path.join(w.userDsh, '.system', 'SKILL.md')]) {
      service.reset()
      await expect(provider.get({ ...listed, path: forged, locator: { path: forged } })).rejects.toThrow(
        /not a skill file of a configured skill root/,
      )
      expect(service.counts.readText).toBe(0)
    }
    // A project root is found through the service when the lookup names a cwd.
    const projectFile = path.join(w.project, '.agents', 'skills', 'agents.md')
    const fresh = new LocalSkillProvider({ ...w.config, fs: service, logger: recorder().logger })
    const candidate = { ...listed, path: projectFile, locator: { path: projectFile } }
    await expect(fresh.get(candidate)).rejects.toThrow(/not a skill file/)
    expect(await fresh.get(candidate, { cwd: w.cwd })).toMatchObject({ name: 'agents', source: 'project-agents' })
    await provider.dispose()
    await fresh.dispose()
  })

  it('nested, compatibility and named providers read through the service as natively', async () => {
    const w = workspace()
    // `w.cwd` is `<project>/src/deep`.
    const nested = path.join(w.project, 'src', '.agents', 'skills', 'shared.md')
    write(nested, skill('shared', 'nested in src'))
    write(path.join(w.project, '.claude', 'skills', 'claude.md'), skill('claude', 'project claude'))
    const config = { ...w.config, nestedRoots: true, compatRoots: ['claude' as const], providerName: 'mono' }
    const service = new FakeFs()
    const provider = new LocalSkillProvider({ ...config, fs: service, logger: recorder().logger })
    const native = new LocalSkillProvider({ ...config, logger: recorder().logger })
    const viaService = await provider.list({ cwd: w.cwd })
    expect(viaService).toEqual(await native.list({ cwd: w.cwd }))
    expect(viaService.candidates.slice(0, 2).map((c) => [c.name, c.source, c.rank, c.provider])).toEqual([
      ['shared', 'project-agents', 75, 'mono'],
      ['shared', 'project-dsh', 100, 'mono'],
    ])
    expect(names(viaService)).toContainEqual(['claude', 'project-claude'])
    expect(service.paths.listDir).toContain(path.join(w.project, 'src', '.agents', 'skills'))
    expect(await provider.diagnose({ cwd: w.cwd })).toEqual(await native.diagnose({ cwd: w.cwd }))
    // get() of a nested skill from a fresh provider finds the root through the lookup's cwd.
    const fresh = new LocalSkillProvider({ ...config, fs: service, logger: recorder().logger })
    const candidate = viaService.candidates[0]
    await expect(fresh.get(candidate)).rejects.toThrow(/not a skill file/)
    expect(await fresh.get(candidate, { cwd: w.cwd })).toMatchObject({ name: 'shared', source: 'project-agents', provider: 'mono' })
    // Without project roots nothing is probed for `.git`.
    const customOnly = new LocalSkillProvider({ customSkillDirs: [w.custom], includeDefaultRoots: false, fs: service, watch: false })
    service.reset()
    expect(names(await customOnly.list({ cwd: w.cwd }))).toEqual([['custom', 'custom']])
    expect(service.paths.stat.filter((p) => p.endsWith('.git'))).toEqual([])
    await Promise.all([provider.dispose(), native.dispose(), fresh.dispose(), customOnly.dispose()])
  })

  it('reads bytes that are not UTF-8 as the service does: U+FFFD for each bad sequence, on both paths', async () => {
    const w = workspace()
    const file = path.join(w.userDsh, 'latin.md')
    fs.writeFileSync(
      file,
      Buffer.concat([Buffer.from('---\nname: latin\ndescription: caf'), Buffer.from([0xe9, 0x20, 0xf0, 0x9f, 0x41]), Buffer.from('\n---\nBody \xff\n', 'latin1')]),
    )
    const service = new FakeFs()
    const viaService = new LocalSkillProvider({ ...w.config, fs: service, logger: recorder().logger })
    const native = new LocalSkillProvider({ ...w.config, logger: recorder().logger })
    const pick = async (p: InstanceType<typeof LocalSkillProvider>) => {
      const c = (await p.list()).candidates.find((x) => x.name === 'latin')!
      return [c.description, (await p.get(c))?.content]
    }
    const expected = ['caf\ufffd \ufffdA', 'Body \ufffd']
    expect(await pick(native)).toEqual(expected)
    expect(await pick(viaService)).toEqual(expected)
    await Promise.all([native.dispose(), viaService.dispose()])
  })

  it('disposing the provider releases calls waiting on a service that never answers, shortly after', async () => {
    const w = workspace()
    const service = new FakeFs()
    const provider = new LocalSkillProvider({ ...w.config, fs: service, logger: recorder().logger })
    const listed = (await provider.list()).candidates
    const candidate = listed.find((c) => c.name === 'user')!
    const other = listed.find((c) => c.name === 'zz')!
    service.fail('listDir', w.userDsh, 'hang')
    service.fail('readText', path.join(w.userDsh, 'user.md'), 'hang')
    const pending = [provider.list({ cwd: w.cwd }), provider.diagnose({ cwd: w.cwd }), provider.get(candidate)]
    for (const p of pending) p.catch(() => {})
    // A call pending on a part of the service that answers completes normally
    // across dispose.
    const answered = provider.get(other)
    const settled = pending.map(() => false)
    pending.forEach((p, i) => p.then(() => (settled[i] = true), () => (settled[i] = true)))
    const disposedAt = Date.now()
    await provider.dispose()
    expect((await answered)?.name).toBe('zz')
    // Still waiting right after dispose; released within the grace period.
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(settled).toEqual([false, false, false])
    for (const p of pending) await expect(p).rejects.toThrow('disposed while the filesystem service had not answered')
    expect(Date.now() - disposedAt).toBeLessThan(5000)
    // Later calls are served (the service answers again).
    service.clear()
    expect((await provider.list({ cwd: w.cwd })).candidates.map((c) => c.name)).toContain('user')
    expect((await provider.get(candidate))?.name).toBe('user')
  })

  it('rejects a service of the wrong shape', () => {
    expect(() => new LocalSkillProvider({ fs: {} as unknown as SkillFileSystem })).toThrow(/config\.fs\.resolve must be a function/)
    expect(() => new LocalSkillProvider({ fs: null as unknown as SkillFileSystem })).toThrow(TypeError)
  })
})
