// Read-your-writes (Linux, inotify): a lookup that starts after a change to a
// skill entry has completed (the file closed, the rename or removal returned)
// sees it, from any cwd, cached or not. There is deliberately no wait of any
// kind between the last write and the lookup that must see it.
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { pkg, recorder, skillFile, tempDirs, write } from './helpers'

const { SkillRegistry } = pkg
const kNative = Symbol.for('dsh-skill-native.native')

type Registry = InstanceType<typeof SkillRegistry>
type Provider = ReturnType<Registry['registerLocalProvider']>

interface WatchDiagnostics {
  watches: Array<{ path: string; os: string }>
  publications: number
  catchUps: number
}
const diagnostics = (provider: Provider): WatchDiagnostics =>
  (provider as unknown as Record<symbol, { watchDiagnostics(): WatchDiagnostics }>)[kNative].watchDiagnostics()

const temp = tempDirs('dsh-ryw-')
afterAll(() => temp.cleanup())
const disposers: Array<() => unknown> = []
afterEach(async () => {
  for (const dispose of disposers.splice(0).reverse()) await dispose()
})

// Seeded PRNG (mulberry32): the same choices on every run.
function prng(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

interface World {
  base: string
  registry: Registry
  provider: Provider
  changes(): number
  warnings: string[]
  /** `name → description` of a snapshot for `cwd`. */
  catalog(cwd: string | undefined): Promise<Map<string, string>>
}

function world(config: Record<string, unknown> | ((base: string) => Record<string, unknown>) = {}): World {
  const base = temp.make()
  if (typeof config === 'function') config = config(base)
  const rec = recorder()
  const registry = new SkillRegistry({ logger: rec.logger })
  const provider = registry.registerLocalProvider({
    dshHome: path.join(base, 'home/.dsh'),
    agentsHome: path.join(base, 'home/.agents'),
    logger: rec.logger,
    ...config,
  })
  disposers.push(() => provider.dispose())
  let changes = 0
  registry.onChange(() => {
    changes++
  })
  return {
    base,
    registry,
    provider,
    changes: () => changes,
    warnings: rec.warnings,
    async catalog(cwd) {
      const snapshot = await registry.snapshot({ cwd })
      expect(snapshot.complete).toBe(true)
      return new Map(snapshot.skills.map((s) => [s.name, s.description]))
    },
  }
}

function project(base: string, name: string): string {
  const dir = path.join(base, name)
  fs.mkdirSync(path.join(dir, '.git'), { recursive: true })
  fs.mkdirSync(path.join(dir, 'src/deep'), { recursive: true })
  return dir
}

/**
 * The skill entries of several roots, changed through the disk and mirrored in
 * a plain model: `entry path → [name, description]` per root. Every name is
 * unique, so the expected catalog is the union.
 */
class Disk {
  entries = new Map<string, Map<string, [string, string]>>()
  private serial = 0
  constructor(
    readonly roots: string[],
    private readonly scratch: string,
    private readonly rand: () => number,
  ) {
    for (const root of roots) this.entries.set(root, new Map())
  }

  private pick<T>(items: T[]): T {
    return items[Math.floor(this.rand() * items.length)]
  }

  expected(roots: string[]): Map<string, string> {
    const out = new Map<string, string>()
    for (const root of roots) for (const [name, description] of this.entries.get(root)!.values()) out.set(name, description)
    return out
  }

  /** One completed change of a random kind in a random root. */
  change(): string {
    const root = this.pick(this.roots)
    const entries = this.entries.get(root)!
    const existing = [...entries.keys()]
    const kind = existing.length < 2 ? 'add' : this.pick(['add', 'add', 'edit', 'atomic', 'rename', 'move', 'remove'])
    const n = ++this.serial
    const description = `v${n}`
    if (kind === 'add') {
      const name = `s${n}`
      if (this.rand() < 0.5) {
        write(path.join(root, name, 'SKILL.md'), skillFile(name, description))
        entries.set(path.join(root, name), [name, description])
      } else {
        write(path.join(root, `${name}.md`), skillFile(name, description))
        entries.set(path.join(root, `${name}.md`), [name, description])
      }
      return `add ${name}`
    }
    const entry = this.pick(existing)
    const [name] = entries.get(entry)!
    const file = entry.endsWith('.md') ? entry : path.join(entry, 'SKILL.md')
    switch (kind) {
      case 'edit':
        fs.writeFileSync(file, skillFile(name, description))
        entries.set(entry, [name, description])
        break
      case 'atomic': {
        // Written elsewhere, renamed over the skill file.
        const tmp = path.join(this.scratch, `tmp-${n}`)
        fs.writeFileSync(tmp, skillFile(name, description))
        fs.renameSync(tmp, file)
        entries.set(entry, [name, description])
        break
      }
      case 'rename': {
        const to = path.join(root, entry.endsWith('.md') ? `r${n}.md` : `r${n}`)
        fs.renameSync(entry, to)
        const value = entries.get(entry)!
        entries.delete(entry)
        entries.set(to, value)
        break
      }
      case 'move': {
        const other = this.pick(this.roots.filter((r) => r !== root))
        fs.mkdirSync(other, { recursive: true })
        const to = path.join(other, path.basename(entry))
        fs.renameSync(entry, to)
        const value = entries.get(entry)!
        entries.delete(entry)
        this.entries.get(other)!.set(to, value)
        break
      }
      case 'remove':
        fs.rmSync(entry, { recursive: true })
        entries.delete(entry)
        break
    }
    return `${kind} ${name}`
  }
}

function expectSame(got: Map<string, string>, want: Map<string, string>, where: string): void {
  const diff: string[] = []
  for (const [name, description] of want) if (got.get(name) !== description) diff.push(`${name}: ${got.get(name)} (disk: ${description})`)
  for (const name of got.keys()) if (!want.has(name)) diff.push(`${name}: listed, not on disk`)
  expect(diff, where).toEqual([])
}

describe.skipIf(process.platform !== 'linux')('read-your-writes', () => {
  it('bursts into several roots are seen at once from cached cwds, subdirectories and other projects', async () => {
    const w = world((base) => ({ customSkillDirs: [path.join(base, 'custom')] }))
    const custom = path.join(w.base, 'custom')
    fs.mkdirSync(custom)
    const a = project(w.base, 'a')
    const b = project(w.base, 'b')
    const user = path.join(w.base, 'home/.dsh/skills')
    const projectRoots = (p: string) => [path.join(p, '.dsh/skills'), path.join(p, '.agents/skills')]
    const scratch = path.join(w.base, 'scratch')
    fs.mkdirSync(scratch)
    const disk = new Disk([...projectRoots(a), ...projectRoots(b), custom, user], scratch, prng(7))
    const shared = [custom, user]
    const cwds: Array<[string | undefined, string[]]> = [
      [a, [...projectRoots(a), ...shared]],
      [path.join(a, 'src'), [...projectRoots(a), ...shared]],
      [path.join(a, 'src/deep'), [...projectRoots(a), ...shared]],
      [path.join(b, 'src'), [...projectRoots(b), ...shared]],
      [undefined, shared],
    ]
    const catalog = w.catalog
    for (let round = 0; round < 40; round++) {
      // Every cwd cached (b last, so the watcher's most recent project is
      // not a), then a burst of completed changes, then lookups at once.
      for (const [cwd] of cwds) await catalog(cwd)
      const burst = 1 + (round % 8)
      const ops: string[] = []
      for (let i = 0; i < burst; i++) ops.push(disk.change())
      // Each cwd's lookup starts right after the burst (or the previous
      // lookup): none may answer from before it.
      for (const [cwd, roots] of round % 2 === 0 ? cwds : [...cwds].reverse()) {
        expectSame(await catalog(cwd), disk.expected(roots), `round ${round} (${ops.join(', ')}), cwd ${cwd}`)
      }
    }
    expect(w.warnings).toEqual([])
  })

  it('a cwd never looked up before sees the writes too', async () => {
    const w = world()
    const p = project(w.base, 'p')
    const root = path.join(p, '.agents/skills')
    await w.catalog(p)
    for (let i = 0; i < 20; i++) {
      const fresh = path.join(p, 'src', `new-${i}`)
      fs.mkdirSync(fresh)
      write(path.join(root, `f${i}`, 'SKILL.md'), skillFile(`f${i}`, `v${i}`))
      // One lookup from the project (cached), then from a new cwd.
      expect((await w.catalog(p)).get(`f${i}`)).toBe(`v${i}`)
      fs.writeFileSync(path.join(root, `f${i}`, 'SKILL.md'), skillFile(`f${i}`, `w${i}`))
      expect((await w.catalog(fresh)).get(`f${i}`)).toBe(`w${i}`)
    }
  })

  it('a lookup does not join a collection that started before the write', async () => {
    const w = world()
    const p = project(w.base, 'p')
    const root = path.join(p, '.agents/skills')
    fs.mkdirSync(root, { recursive: true })
    const cwd = path.join(p, 'src')
    await w.catalog(cwd)
    for (let i = 0; i < 20; i++) {
      // Nothing cached: the first lookup starts a collection, the second
      // would join it.
      w.registry.invalidateProvider(w.provider)
      const first = w.registry.snapshot({ cwd })
      write(path.join(root, `j${i}/SKILL.md`), skillFile(`j${i}`, 'joined'))
      expect((await w.catalog(cwd)).get(`j${i}`)).toBe('joined')
      await first
    }
  })

  it('a file held open while it is written keeps the old summary until it is closed', async () => {
    // A long hold: the test must not depend on how fast the machine is.
    const w = world({ watchStabilityThresholdMs: 60_000 })
    const p = project(w.base, 'p')
    const cwd = path.join(p, 'src')
    const file = write(path.join(p, '.agents/skills/held/SKILL.md'), skillFile('held', 'before'))
    expect((await w.catalog(cwd)).get('held')).toBe('before')
    const fd = fs.openSync(file, 'r+')
    try {
      fs.ftruncateSync(fd, 0)
      fs.writeSync(fd, skillFile('held', 'after'), 0)
      expect((await w.catalog(cwd)).get('held'), 'still being written').toBe('before')
      expect((await w.catalog(path.join(p, 'src/deep'))).get('held'), 'no catalog cached for this cwd').toBe('after')
      expect((await w.catalog(cwd)).get('held'), 'still being written').toBe('before')
    } finally {
      fs.closeSync(fd)
    }
    expect((await w.catalog(cwd)).get('held'), 'closed').toBe('after')
  })

  it('a flat skill renamed into place is seen at once', async () => {
    const w = world()
    const p = project(w.base, 'p')
    const root = path.join(p, '.dsh/skills')
    fs.mkdirSync(root, { recursive: true })
    const cwd = path.join(p, 'src')
    expect(await w.catalog(cwd)).toEqual(new Map())
    for (let i = 0; i < 20; i++) {
      // Written under a name that is not a skill entry, then renamed into
      // place; then replaced the same way.
      const tmp = path.join(root, `.flat-${i}.tmp`)
      fs.writeFileSync(tmp, skillFile(`flat-${i}`, 'first'))
      fs.renameSync(tmp, path.join(root, `flat-${i}.md`))
      expect((await w.catalog(cwd)).get(`flat-${i}`)).toBe('first')
      fs.writeFileSync(tmp, skillFile(`flat-${i}`, 'second'))
      fs.renameSync(tmp, path.join(root, `flat-${i}.md`))
      expect((await w.catalog(cwd)).get(`flat-${i}`)).toBe('second')
    }
  })

  it('get() loads what the file holds now, through the registry and the provider', async () => {
    const w = world()
    const p = project(w.base, 'p')
    const root = path.join(p, '.agents/skills')
    const cwd = path.join(p, 'src')
    const rand = prng(7)
    const bodies = new Map<string, string>()
    const put = (name: string, body: string) => {
      bodies.set(name, body)
      write(path.join(root, name, 'SKILL.md'), `${skillFile(name, `${name} skill`)}\n${body}\n`)
    }
    for (const name of ['one', 'two', 'three']) put(name, `${name} v0`)
    await w.catalog(cwd)
    const { candidates } = await w.provider.list({ cwd })
    for (let i = 1; i <= 60; i++) {
      const name = ['one', 'two', 'three'][Math.floor(rand() * 3)]
      // Loaded (and so kept) twice in a row, then the file changes or not.
      for (let k = 0; k < 2; k++) {
        const loaded = await w.registry.get(name, { cwd })
        expect(loaded?.content.trim().split('\n').at(-1), `registry, round ${i}`).toBe(bodies.get(name))
        const direct = await w.provider.get(candidates.find((c) => c.name === name)!, { cwd })
        expect(direct?.content.trim().split('\n').at(-1), `provider, round ${i}`).toBe(bodies.get(name))
      }
      if (rand() < 0.6) put(name, `${name} v${i}`)
    }
    // A first-party write is seen before the watcher hears of it.
    put('one', 'one by the host')
    w.provider.observeHostMutation(path.join(root, 'one/SKILL.md'))
    expect((await w.registry.get('one', { cwd }))?.content).toContain('one by the host')
    expect(w.warnings).toEqual([])
  })

  it('keeps change notifications coalesced: a lookup after each write does not notify per write', async () => {
    const w = world()
    const p = project(w.base, 'p')
    const root = path.join(p, '.agents/skills')
    fs.mkdirSync(root, { recursive: true })
    const cwd = path.join(p, 'src')
    await w.catalog(cwd)
    const before = w.changes()
    const catchUps = diagnostics(w.provider).catchUps
    const writes = 60
    const times: number[] = []
    const start = performance.now()
    for (let i = 0; i < writes; i++) {
      write(path.join(root, `b${i}`, 'SKILL.md'), skillFile(`b${i}`, 'burst'))
      times.push(performance.now())
      expect((await w.catalog(cwd)).has(`b${i}`)).toBe(true)
    }
    // The burst's last batch: wait until it is published.
    const sentinel = path.join(root, 'sentinel.md')
    fs.writeFileSync(sentinel, skillFile('sentinel', 'last'))
    const published = w.changes()
    const deadline = Date.now() + 10_000
    while (diagnostics(w.provider).publications === 0 || w.changes() === published) {
      if (Date.now() > deadline) throw new Error('the burst was not published within 10 s')
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
    const elapsed = performance.now() - start
    const notified = w.changes() - before
    // The watcher's own bound (see `burst_is_coalesced`): a few quick batches,
    // then storm batches of at most 250 ms; a pause of the writer of 50 ms
    // ends a batch early, one of 500 ms ends the storm.
    const gaps = (ms: number) => times.slice(1).filter((t, i) => t - times[i] >= ms).length
    const bound = 5 + Math.floor(elapsed / 250) + gaps(50) + 3 * gaps(500)
    expect(notified, `${writes} writes over ${elapsed.toFixed(0)} ms`).toBeLessThanOrEqual(bound)
    expect(diagnostics(w.provider).catchUps - catchUps).toBeGreaterThan(0)
  })
})

describe.skipIf(process.platform !== 'linux')('watchFollowSymlinks and symlinked roots', () => {
  for (const follow of [true, false]) {
    it(`watchFollowSymlinks: ${follow}: a symlinked root is watched through ${follow ? 'its real path' : 'the link'}`, async () => {
      const w = world({ watchFollowSymlinks: follow })
      const p = project(w.base, 'p')
      const real = path.join(w.base, 'real-skills')
      fs.mkdirSync(real)
      fs.mkdirSync(path.join(p, '.agents'))
      const link = path.join(p, '.agents/skills')
      fs.symlinkSync(real, link)
      const store = path.join(w.base, 'store')
      write(path.join(store, 'linked/SKILL.md'), skillFile('linked', 'linked'))
      fs.symlinkSync(path.join(store, 'linked'), path.join(real, 'linked'))
      write(path.join(real, 'plain/SKILL.md'), skillFile('plain', 'one'))
      const cwd = path.join(p, 'src')
      const snapshot = await w.registry.snapshot({ cwd })
      // Discovery keeps the configured path.
      expect(snapshot.skills.map((s) => [s.name, s.resourceBase?.path])).toEqual([
        ['linked', path.join(link, 'linked')],
        ['plain', path.join(link, 'plain')],
      ])
      const watches = new Map(diagnostics(w.provider).watches.map((d) => [d.path, d.os]))
      expect(watches.get(link)).toBe(follow ? real : link)
      expect(watches.get(path.join(link, 'plain'))).toBe(path.join(follow ? real : link, 'plain'))
      expect(watches.has(path.join(link, 'linked'))).toBe(follow)
      // Changes in the linked root are seen at once either way.
      fs.writeFileSync(path.join(real, 'plain/SKILL.md'), skillFile('plain', 'two'))
      expect((await w.catalog(cwd)).get('plain')).toBe('two')
      write(path.join(real, 'added.md'), skillFile('added', 'new'))
      expect((await w.catalog(cwd)).get('added')).toBe('new')
      fs.rmSync(path.join(real, 'linked'))
      expect((await w.catalog(cwd)).has('linked')).toBe(false)
    })
  }
})
