// Hot refresh through the public API: the local provider's watchers invalidate
// the registry, `onChange` fires, and the next snapshot shows the new state.
// Waits are bounded polls (see helpers.waitFor); nothing sleeps as an assertion.
import { spawnSync } from 'node:child_process'
import { Worker } from 'node:worker_threads'
import fs from 'node:fs'
import fsp from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { pkg, recorder, waitFor } from './helpers'

const { SkillRegistry, catalogDigest } = pkg

type Registry = InstanceType<typeof SkillRegistry>
type Provider = ReturnType<Registry['registerLocalProvider']>

const cleanups: Array<() => unknown> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

function tmp(): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-watch-')))
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }))
  return dir
}

function skillText(name: string, description = `${name} skill`, body = `Body of ${name}.`): string {
  return `---\nname: ${name}\ndescription: ${description}\n---\n\n${body}\n`
}

function writeBundle(root: string, name: string, description?: string, body?: string): string {
  const dir = path.join(root, name)
  fs.mkdirSync(dir, { recursive: true })
  fs.writeFileSync(path.join(dir, 'SKILL.md'), skillText(name, description, body))
  return dir
}

const IN_CREATE = 0x100

/**
 * inotify watches held by this process (Linux), from /proc/self/fdinfo: those
 * that see what a directory holds, or (`moves`) those of directories above a
 * root, watched only for their own move.
 */
function inotifyWatches(kind: 'whole' | 'moves' | 'all' = 'whole'): number {
  let count = 0
  for (const fd of fs.readdirSync('/proc/self/fdinfo')) {
    let text: string
    try {
      text = fs.readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8')
    } catch {
      continue
    }
    for (const line of text.split('\n')) {
      if (!line.startsWith('inotify wd:')) continue
      const mask = Number.parseInt(/\bmask:([0-9a-f]+)/.exec(line)?.[1] ?? '0', 16)
      const whole = (mask & IN_CREATE) !== 0
      if (kind === 'all' || whole === (kind === 'whole')) count++
    }
  }
  return count
}

interface Setup {
  base: string
  project: string
  agents: string
  registry: Registry
  provider: Provider
  changes(): number
  names(): Promise<string[]>
  warnings: string[]
}

function setup(config: Record<string, unknown> = {}): Setup {
  const base = tmp()
  const project = path.join(base, 'project')
  fs.mkdirSync(path.join(project, '.git'), { recursive: true })
  fs.mkdirSync(path.join(project, 'src'))
  const rec = recorder()
  const registry = new SkillRegistry({ logger: rec.logger })
  const provider = registry.registerLocalProvider({
    dshHome: path.join(base, 'home/.dsh'),
    agentsHome: path.join(base, 'home/.agents'),
    ...config,
  })
  cleanups.push(() => provider.dispose())
  let changes = 0
  registry.onChange(() => {
    changes++
  })
  const cwd = path.join(project, 'src')
  return {
    base,
    project,
    agents: path.join(project, '.agents/skills'),
    registry,
    provider,
    changes: () => changes,
    names: async () => (await registry.snapshot({ cwd })).skills.map((s) => s.name),
    warnings: rec.warnings,
  }
}

/** Run `op`, wait for `onChange`, then for a snapshot satisfying `check`. */
async function expectVisible(s: Setup, op: () => void, check: (names: string[]) => boolean): Promise<void> {
  const before = s.changes()
  op()
  await waitFor(() => s.changes() > before)
  await waitFor(async () => check(await s.names()))
}

// Linux: the tests rely on inotify (close-after-write, watch counts in /proc).
describe.skipIf(process.platform !== 'linux')('hot refresh', () => {
  it('shows added, renamed, edited and removed skills after onChange', async () => {
    const s = setup()
    expect(await s.names()).toEqual([])
    // The project has no .agents dir at all: created with mkdir -p.
    await expectVisible(s, () => writeBundle(s.agents, 'alpha'), (n) => n.includes('alpha'))
    await expectVisible(
      s,
      () => fs.writeFileSync(path.join(s.agents, 'beta.md'), skillText('beta')),
      (n) => n.includes('beta'),
    )
    await expectVisible(
      s,
      () => fs.renameSync(path.join(s.agents, 'alpha'), path.join(s.agents, 'gamma')),
      // The bundle dir name is not the skill name: still `alpha`, from gamma/.
      (n) => n.includes('alpha'),
    )
    const cwd = path.join(s.project, 'src')
    await expectVisible(
      s,
      () => fs.writeFileSync(path.join(s.agents, 'gamma/SKILL.md'), skillText('alpha', 'a new description')),
      () => true,
    )
    await waitFor(async () => {
      const skill = (await s.registry.snapshot({ cwd })).skills.find((x) => x.name === 'alpha')
      return skill?.description === 'a new description'
    })
    await expectVisible(s, () => fs.rmSync(path.join(s.agents, 'beta.md')), (n) => !n.includes('beta'))
    await expectVisible(
      s,
      () => fs.rmSync(path.join(s.agents, 'gamma'), { recursive: true }),
      (n) => !n.includes('alpha'),
    )
    // The whole root deleted, recreated, and a skill added again.
    await expectVisible(s, () => fs.rmSync(s.agents, { recursive: true }), () => true)
    await expectVisible(s, () => writeBundle(s.agents, 'again'), (n) => n.includes('again'))
    expect(s.warnings).toEqual([])
  })

  it('ignores files deeper in a bundle', async () => {
    const s = setup()
    const bundle = writeBundle(s.agents, 'tool')
    fs.mkdirSync(path.join(bundle, 'references'))
    fs.mkdirSync(path.join(bundle, 'scripts'))
    expect(await s.names()).toEqual(['tool'])
    const before = s.changes()
    fs.writeFileSync(path.join(bundle, 'references/x.md'), '# reference')
    fs.writeFileSync(path.join(bundle, 'scripts/run.sh'), 'echo run')
    // A later change that does publish: the deep edits came first and, had they
    // published, would show up as an extra notification.
    fs.writeFileSync(path.join(s.agents, 'sentinel.md'), skillText('sentinel'))
    // Lookups see the sentinel at once (read-your-writes); its notification
    // follows with its batch.
    await waitFor(async () => s.changes() > before && (await s.names()).includes('sentinel'))
    expect(s.changes()).toBe(before + 1)
  })

  it('a body-only edit may notify but leaves the catalog digest unchanged', async () => {
    const s = setup()
    writeBundle(s.agents, 'stable', 'A stable description.', 'First body.')
    const cwd = path.join(s.project, 'src')
    const digest = async (): Promise<string> => catalogDigest((await s.registry.snapshot({ cwd })).skills)
    const first = await digest()
    const before = s.changes()
    fs.writeFileSync(path.join(s.agents, 'stable/SKILL.md'), skillText('stable', 'A stable description.', 'A new body.'))
    await waitFor(() => s.changes() > before)
    expect(await digest()).toBe(first)
    await expectVisible(
      s,
      () => fs.writeFileSync(path.join(s.agents, 'stable/SKILL.md'), skillText('stable', 'Another description.')),
      () => true,
    )
    await waitFor(async () => (await digest()) !== first)
  })

  it('observeHostMutation invalidates synchronously for skill paths only', async () => {
    // A long stability window and a flat file still open for writing: the OS
    // watcher cannot have published it, only the host mutation can.
    const s = setup({ watchStabilityThresholdMs: 60_000 })
    fs.mkdirSync(s.agents, { recursive: true })
    expect(await s.names()).toEqual([])
    expect(s.provider.observeHostMutation(path.join(s.project, 'src/main.ts'))).toBe(false)
    expect(s.provider.observeHostMutation(path.join(s.agents, 'new/references/x.md'))).toBe(false)
    const file = path.join(s.agents, 'written.md')
    const fd = fs.openSync(file, 'w')
    try {
      fs.writeSync(fd, skillText('written'))
      const before = s.changes()
      expect(s.provider.observeHostMutation(file)).toBe(true)
      // Listeners heard about it during the call, exactly once, and the
      // catalog was invalidated before the call returned: the very next
      // snapshot shows the write.
      expect(s.changes()).toBe(before + 1)
      expect(await s.names()).toEqual(['written'])
      // No second notification from the native side: a native change hook
      // would be queued during the call and delivered on the next loop turns.
      for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve))
      expect(s.changes()).toBe(before + 1)
    } finally {
      fs.closeSync(fd)
    }
  })

  it('polling mode sees changes', async () => {
    const s = setup({ watchUsePolling: true, watchPollIntervalMs: 20, watchStabilityThresholdMs: 40 })
    expect(await s.names()).toEqual([])
    await expectVisible(s, () => writeBundle(s.agents, 'polled'), (n) => n.includes('polled'))
    await expectVisible(s, () => fs.rmSync(path.join(s.agents, 'polled'), { recursive: true }), (n) => n.length === 0)
  })

  it('re-watches an evicted project on its next lookup', async () => {
    const s = setup({ watchMaxProjects: 1 })
    const other = path.join(s.base, 'other')
    fs.mkdirSync(path.join(other, '.git'), { recursive: true })
    expect(await s.names()).toEqual([])
    await s.registry.snapshot({ cwd: other }) // evicts the first project
    expect(await s.names()).toEqual([]) // watched again
    await expectVisible(s, () => writeBundle(s.agents, 'back'), (n) => n.includes('back'))
  })

  it('a lookup that evicts a project invalidates its catalogs before it resolves, with one notification', async () => {
    // A long stability window and a flat file kept open for writing: the OS
    // watcher holds that write back, so only the eviction can make it visible.
    const s = setup({ watchMaxProjects: 1, watchStabilityThresholdMs: 60_000 })
    const other = path.join(s.base, 'other')
    fs.mkdirSync(path.join(other, '.git'), { recursive: true })
    fs.mkdirSync(s.agents, { recursive: true })
    expect(await s.names()).toEqual([])
    const fd = fs.openSync(path.join(s.agents, 'pending.md'), 'w')
    try {
      fs.writeSync(fd, skillText('pending'))
      const before = s.changes()
      await s.registry.snapshot({ cwd: other }) // evicts the first project
      // Its cached catalog is already gone: listed again, it shows the write.
      // (This lookup evicts `other` in turn.)
      expect(await s.names()).toEqual(['pending'])
      await waitFor(() => s.changes() >= before + 2)
      // One notification per eviction and none left for a later batch: the
      // next one is the sentinel's.
      fs.writeFileSync(path.join(s.agents, 'sentinel.md'), skillText('sentinel'))
      await waitFor(async () => s.changes() >= before + 3 && (await s.names()).includes('sentinel'))
      expect(s.changes()).toBe(before + 3)
    } finally {
      fs.closeSync(fd)
    }
  })

  it('follows symlinked roots and bundles', async () => {
    for (const follow of [true, false]) {
      const s = setup({ watchFollowSymlinks: follow })
      const store = path.join(s.base, 'store')
      const real = path.join(s.base, 'real-root')
      fs.mkdirSync(real)
      const target = writeBundle(store, 'linked')
      fs.mkdirSync(path.dirname(s.agents), { recursive: true })
      fs.symlinkSync(real, s.agents)
      expect(await s.names()).toEqual([])
      await expectVisible(s, () => fs.symlinkSync(target, path.join(real, 'linked')), (n) => n.includes('linked'))
      if (follow) {
        await expectVisible(
          s,
          () => fs.writeFileSync(path.join(target, 'SKILL.md'), skillText('renamed')),
          (n) => n.includes('renamed'),
        )
      }
      await expectVisible(s, () => fs.rmSync(path.join(real, 'linked')), (n) => n.length === 0)
    }
  })

  it('follows symlinked flat skills to their target files', async () => {
    for (const follow of [true, false]) {
      const s = setup({ watchFollowSymlinks: follow })
      const cwd = path.join(s.project, 'src')
      const store = path.join(s.base, 'store')
      fs.mkdirSync(store)
      fs.mkdirSync(s.agents, { recursive: true })
      const target = path.join(store, 'linked.md')
      const link = path.join(s.agents, 'linked.md')
      fs.writeFileSync(target, skillText('linked', 'first'))
      fs.symlinkSync(target, link)
      const described = async (name: string): Promise<string | undefined> =>
        (await s.registry.snapshot({ cwd })).skills.find((x) => x.name === name)?.description
      expect(await described('linked')).toBe('first')
      if (follow) {
        // Edited where it lives: the catalog follows, and agrees with get().
        await expectVisible(s, () => fs.writeFileSync(target, skillText('linked', 'second', 'New body.')), () => true)
        await waitFor(async () => (await described('linked')) === 'second')
        expect((await s.registry.get('linked', { cwd }))?.content).toBe('New body.')
        // No longer a valid skill, valid again, then gone.
        await expectVisible(s, () => fs.writeFileSync(target, 'no frontmatter'), (n) => !n.includes('linked'))
        await expectVisible(s, () => fs.writeFileSync(target, skillText('linked', 'third')), (n) => n.includes('linked'))
        await expectVisible(s, () => fs.rmSync(target), (n) => !n.includes('linked'))
      } else {
        // Only the link is watched: editing its target notifies nobody (the
        // sentinel's notification is the only one).
        const before = s.changes()
        fs.writeFileSync(target, skillText('linked', 'unseen'))
        fs.writeFileSync(path.join(s.agents, 'sentinel.md'), skillText('sentinel'))
        await waitFor(async () => s.changes() > before && (await s.names()).includes('sentinel'))
        expect(s.changes()).toBe(before + 1)
      }
      // Retargeting the link is seen either way.
      const other = path.join(store, 'other.md')
      fs.writeFileSync(other, skillText('retargeted'))
      await expectVisible(
        s,
        () => {
          fs.rmSync(link)
          fs.symlinkSync(other, link)
        },
        (n) => n.includes('retargeted') && !n.includes('linked'),
      )
      if (follow) {
        await expectVisible(s, () => fs.writeFileSync(other, skillText('retargeted', 'edited')), () => true)
        await waitFor(async () => (await described('retargeted')) === 'edited')
      }
      expect(s.warnings.filter((w) => !w.includes('linked.md'))).toEqual([])
    }
  })

  it('follows a skills folder whose parent was moved away and made again', async () => {
    const s = setup()
    const home = path.join(s.base, 'home/.agents')
    writeBundle(path.join(home, 'skills'), 'old')
    expect(await s.names()).toEqual(['old'])
    // Switching setups: the old folder set aside, a new one in its place.
    await expectVisible(
      s,
      () => {
        fs.renameSync(home, path.join(s.base, 'agents-aside'))
        writeBundle(path.join(home, 'skills'), 'old')
      },
      (n) => n.length === 1,
    )
    // What is edited now is the new folder: it is the one watched.
    await expectVisible(
      s,
      () => fs.writeFileSync(path.join(home, 'skills/old/SKILL.md'), skillText('renewed')),
      (n) => n.includes('renewed'),
    )
    await expectVisible(s, () => writeBundle(path.join(home, 'skills'), 'added'), (n) => n.includes('added'))
    expect(await s.names()).toEqual(['added', 'renewed'])
    expect(s.warnings).toEqual([])
  })

  it('dispose closes every watch and late events do nothing', async () => {
    const baseline = inotifyWatches('all')
    const wholeBaseline = inotifyWatches()
    const s = setup()
    writeBundle(s.agents, 'one')
    writeBundle(s.agents, 'two')
    expect(await s.names()).toEqual(['one', 'two'])
    // The project dir (followed for .dsh/skills), the root and its two bundles,
    // and the nearest existing ancestor of the user roots.
    expect(inotifyWatches() - wholeBaseline).toBe(5)
    // And each directory above those, for its own move.
    expect(inotifyWatches('moves')).toBeGreaterThan(0)
    const ours = inotifyWatches('all') - baseline

    // A second registry watching the same root serves as the witness.
    const witness = new SkillRegistry()
    const watching = witness.registerLocalProvider({
      dshHome: path.join(s.base, 'home/.dsh'),
      agentsHome: path.join(s.base, 'home/.agents'),
    })
    let witnessed = 0
    witness.onChange(() => {
      witnessed++
    })
    await witness.snapshot({ cwd: s.project })
    const withWitness = inotifyWatches('all')

    await s.provider.dispose()
    await s.provider.dispose() // idempotent
    expect(inotifyWatches('all')).toBe(withWitness - ours)
    const before = s.changes()
    writeBundle(s.agents, 'late')
    await waitFor(() => witnessed > 0)
    expect(s.changes()).toBe(before)
    await watching.dispose()
    expect(inotifyWatches('all')).toBe(baseline)
  })

  it('changes are seen when the provider reads through a filesystem service', async () => {
    // A host service over node:fs/promises: the roots are still watched on the host.
    interface Target {
      readonly displayPath: string
    }
    const coded = (error: unknown): unknown => {
      const code = (error as NodeJS.ErrnoException).code
      if (code === 'ENOENT') return Object.assign(new Error(String(error)), { code: 'FS_NOT_FOUND' })
      if (code === 'ENOTDIR') return Object.assign(new Error(String(error)), { code: 'FS_NOT_DIRECTORY' })
      return error
    }
    const kind = (st: fs.Stats | undefined): 'file' | 'directory' | 'other' =>
      st?.isFile() ? 'file' : st?.isDirectory() ? 'directory' : 'other'
    const service = {
      resolve: async (file: string): Promise<Target> => ({ displayPath: file }),
      stat: async (target: Target) => {
        const st = await fsp.stat(target.displayPath).catch((e: NodeJS.ErrnoException) => {
          if (e.code === 'ENOENT' || e.code === 'ENOTDIR') return undefined
          throw coded(e)
        })
        return st === undefined ? undefined : { type: kind(st) }
      },
      listDir: async (target: Target) => {
        const names = await fsp.readdir(target.displayPath).catch((e) => {
          throw coded(e)
        })
        return Promise.all(
          names.map(async (name) => {
            const full = path.join(target.displayPath, name)
            return { name, type: kind(await fsp.stat(full).catch(() => undefined)), target: { displayPath: full } }
          }),
        )
      },
      readText: async (target: Target) =>
        fsp.readFile(target.displayPath, 'utf8').catch((e) => {
          throw coded(e)
        }),
    }
    const s = setup({ fs: service })
    expect(await s.names()).toEqual([])
    await expectVisible(s, () => writeBundle(s.agents, 'served'), (n) => n.includes('served'))
    await expectVisible(s, () => fs.rmSync(path.join(s.agents, 'served'), { recursive: true }), (n) => n.length === 0)
    expect(s.warnings).toEqual([])
  })

  it('watch: false takes no OS watch; host mutations still invalidate', async () => {
    const baseline = inotifyWatches('all')
    const s = setup({ watch: false })
    writeBundle(s.agents, 'plain')
    expect(await s.names()).toEqual(['plain'])
    expect(inotifyWatches('all')).toBe(baseline)
    expect(s.provider.observeHostMutation(path.join(s.agents, 'x.md'))).toBe(true)
    expect(s.provider.observeHostMutation(path.join(s.agents, 'plain', 'references', 'x.md'))).toBe(false)
  })

  it('an idle watcher does not keep the process alive', () => {
    const base = tmp()
    const project = path.join(base, 'project')
    writeBundle(path.join(project, '.agents/skills'), 'idle')
    fs.mkdirSync(path.join(project, '.git'))
    const entry = path.resolve(__dirname, '../index.js')
    const script = `
      const { SkillRegistry } = require(${JSON.stringify(entry)})
      const registry = new SkillRegistry()
      registry.registerLocalProvider({ dshHome: ${JSON.stringify(path.join(base, 'h/.dsh'))}, agentsHome: ${JSON.stringify(path.join(base, 'h/.agents'))} })
      registry.onChange(() => {})
      registry.snapshot({ cwd: ${JSON.stringify(project)} }).then((s) => console.log(s.skills.map((x) => x.name).join(',')))
    `
    const result = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 20_000 })
    expect(result.error).toBeUndefined()
    expect(result.signal).toBeNull()
    expect(result.status).toBe(0)
    expect(result.stdout.trim()).toBe('idle')
  })

  it('works in a worker thread and survives its termination while watching', async () => {
    const base = tmp()
    const project = path.join(base, 'project')
    fs.mkdirSync(path.join(project, '.git'), { recursive: true })
    const entry = path.resolve(__dirname, '../index.js')
    const code = `
      const { parentPort, workerData } = require('node:worker_threads')
      const { SkillRegistry } = require(${JSON.stringify(entry)})
      const registry = new SkillRegistry()
      registry.registerLocalProvider({ dshHome: workerData.base + '/h/.dsh', agentsHome: workerData.base + '/h/.agents' })
      registry.onChange(() => parentPort.postMessage('change'))
      setInterval(() => {}, 1000)
      registry.snapshot({ cwd: workerData.project }).then(() => parentPort.postMessage('ready'))
    `
    for (let round = 0; round < 2; round++) {
      const worker = new Worker(code, { eval: true, workerData: { base, project } })
      const messages: string[] = []
      worker.on('message', (m: string) => messages.push(m))
      await waitFor(() => messages.includes('ready'))
      writeBundle(path.join(project, '.agents/skills'), `round-${round}`)
      await waitFor(() => messages.includes('change'))
      await worker.terminate()
      // Events after the worker's environment is gone are dropped.
      writeBundle(path.join(project, '.agents/skills'), `late-${round}`)
    }
  })
})
