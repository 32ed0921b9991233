// A change costs what changed (Linux, inotify): a watched provider keeps each
// root's listing and reads again only the entries a change touched. After
// random change sequences (including projects evicted from the watched set and
// first-party writes reported with `observeHostMutation`), every snapshot must
// be exactly what a fresh, unwatched registry finds on the same disk. The
// second test changes what the roots themselves are (symbolic links
// repointed, replaced, chained, their targets moved; roots deleted and made
// again: scripts/root-moves.mjs) under several providers in scoped layers,
// and compares snapshot, explain() and digest in every scope.
import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { rootMove, rootStore } from '../scripts/root-moves.mjs'
import type { SkillScopeResolver } from '../index'
import { mulberry32, pkg, recorder, skillFile, tempDirs, write } from './helpers'

const { SkillRegistry, catalogDigest } = pkg
const require = createRequire(import.meta.url)
const scopes = require('./stand-ins/@deepseek-ai/dsh-scope') as typeof import('./stand-ins/@deepseek-ai/dsh-scope') & SkillScopeResolver
const temp = tempDirs('dsh-incr-')
afterAll(() => temp.cleanup())

const seed = Number(process.env.DSH_INCR_SEED ?? Date.now() % 1_000_000)
/** Steps of the root-moves test (a CI-sized default; the soak runs these moves for minutes). */
const rootSteps = Number(process.env.DSH_INCR_ROOT_STEPS ?? 60)

describe.skipIf(process.platform !== 'linux')('incremental discovery', () => {
  it(`matches a fresh registry after every change (seed ${seed}, DSH_INCR_SEED to replay)`, async () => {
    const base = temp.make()
    const rand = mulberry32(seed)
    const pick = <T>(items: T[]): T => items[Math.floor(rand() * items.length)]
    const projects = ['p1', 'p2', 'p3'].map((name) => {
      const dir = path.join(base, name)
      fs.mkdirSync(path.join(dir, '.git'), { recursive: true })
      return dir
    })
    const home = { dshHome: path.join(base, 'home/.dsh'), agentsHome: path.join(base, 'home/.agents') }
    const roots = [
      ...projects.flatMap((p) => [path.join(p, '.dsh/skills'), path.join(p, '.agents/skills')]),
      path.join(home.agentsHome, 'skills'),
    ]
    for (const root of roots) fs.mkdirSync(root, { recursive: true })
    const scratch = path.join(base, 'scratch')
    fs.mkdirSync(scratch)
    const rec = recorder()
    const live = new SkillRegistry({ logger: rec.logger })
    // Two watched projects of three: moving between projects evicts (never
    // the project of a lookup in flight: at most two run at once).
    const provider = live.registerLocalProvider({ ...home, watchMaxProjects: 2, logger: rec.logger })
    const names = ['alpha', 'beta', 'gamma', 'delta', 'eps']
    let serial = 0
    const log: string[] = []
    const change = (): void => {
      const root = pick(roots)
      const entry = pick(['a', 'b', 'c', 'd'])
      const flat = path.join(root, `${entry}.md`)
      const dir = path.join(root, entry)
      const text = () => skillFile(pick(names), `v${++serial} in ${path.relative(base, root)}`)
      const kind = Math.floor(rand() * 10)
      try {
        if (kind === 0) write(flat, text())
        else if (kind === 1) write(path.join(dir, 'SKILL.md'), text())
        else if (kind === 2) fs.rmSync(flat, { force: true })
        else if (kind === 3) fs.rmSync(dir, { recursive: true, force: true })
        else if (kind === 4) fs.renameSync(dir, path.join(pick(roots), pick(['a', 'b', 'c', 'd'])))
        else if (kind === 5) {
          const tmp = path.join(scratch, `t${serial}`)
          fs.writeFileSync(tmp, text())
          fs.renameSync(tmp, path.join(dir, 'SKILL.md'))
        } else if (kind === 6) {
          write(flat, text())
          provider.observeHostMutation(flat)
        } else if (kind === 7) write(flat, 'not a skill at all\n')
        else if (kind === 8) {
          // The root replaced: a new directory with an entry of the same name.
          fs.renameSync(root, path.join(scratch, `root${++serial}`))
          write(path.join(dir, 'SKILL.md'), text())
        } else {
          // The directory above the root moved away, the root made again.
          fs.renameSync(path.dirname(root), path.join(scratch, `parent${++serial}`))
          fs.mkdirSync(root, { recursive: true })
          if (rand() < 0.5) write(path.join(dir, 'SKILL.md'), text())
        }
      } catch {
        // A rename onto a non-empty directory, a missing source: no change.
      }
      log.push(`${kind} ${path.relative(base, kind === 0 || kind === 2 || kind === 6 || kind === 7 ? flat : dir)}`)
    }
    const shape = (snapshot: Awaited<ReturnType<InstanceType<typeof SkillRegistry>['snapshot']>>) =>
      JSON.stringify({ complete: snapshot.complete, skills: snapshot.skills })
    try {
      for (let step = 0; step < 80; step++) {
        for (let i = Math.floor(rand() * 3); i >= 0; i--) change()
        // Two lookups at once, each checked (their skills: one may report
        // the catalog incomplete when the other's catching up invalidated it
        // meanwhile), then one alone (everything).
        const cwds = [pick([...projects, path.join(projects[0], 'sub')]), pick(projects)]
        const fresh = new SkillRegistry({ logger: recorder().logger })
        const unwatched = fresh.registerLocalProvider({ ...home, watch: false })
        const where = (cwd: string) => `seed ${seed}, step ${step}, cwd ${path.relative(base, cwd)}:\n${log.join('\n')}`
        try {
          const got = await Promise.all(cwds.map((cwd) => live.snapshot({ cwd })))
          for (let i = 0; i < cwds.length; i++) {
            const want = await fresh.snapshot({ cwd: cwds[i] })
            expect(JSON.stringify(got[i].skills), where(cwds[i])).toBe(JSON.stringify(want.skills))
          }
          const alone = await live.snapshot({ cwd: cwds[1] })
          expect(shape(alone), where(cwds[1])).toBe(shape(await fresh.snapshot({ cwd: cwds[1] })))
        } finally {
          await unwatched.dispose()
        }
      }
    } finally {
      await provider.dispose()
    }
  }, 60_000)

  it(`matches a fresh registry in every scope while roots are links repointed, replaced and moved (seed ${seed}, DSH_INCR_SEED to replay)`, async () => {
    const base = temp.make()
    const rand = mulberry32(seed)
    const pick = <T>(items: T[]): T => items[Math.floor(rand() * items.length)]
    const names = ['alpha', 'beta', 'gamma', 'delta', 'eps', 'zeta']
    let serial = 0
    const text = (where: string) => skillFile(pick(names), `v${++serial} in ${where}`)
    const fill = (dir: string) => {
      for (let i = Math.floor(rand() * 3); i >= 0; i--) {
        if (rand() < 0.5) write(path.join(dir, `${pick(['a', 'b', 'c'])}.md`), text(path.basename(dir)))
        else write(path.join(dir, pick(['a', 'b', 'c']), 'SKILL.md'), text(path.basename(dir)))
      }
    }
    const projects = ['p1', 'p2'].map((name) => {
      const dir = path.join(base, name)
      fs.mkdirSync(path.join(dir, '.git'), { recursive: true })
      return dir
    })
    const home = { dshHome: path.join(base, 'home/.dsh'), agentsHome: path.join(base, 'home/.agents') }
    // Three local providers in two layers, and a JS provider and a runtime
    // skill in the scoped layers.
    const own = { local: [path.join(base, 'c1/skills')], team: [path.join(base, 't1/skills'), path.join(base, 't2/skills')], preset: [path.join(base, 'a1/skills'), path.join(base, 'a2/skills')] }
    const roots = [
      ...projects.flatMap((p) => [path.join(p, '.dsh/skills'), path.join(p, '.agents/skills')]),
      path.join(home.dshHome, 'skills'),
      path.join(home.agentsHome, 'skills'),
      ...own.local,
      ...own.team,
      ...own.preset,
    ]
    for (const root of roots) {
      fs.mkdirSync(root, { recursive: true })
      fill(root)
    }
    // The directories right above the roots may be moved and linked, not
    // the projects or home themselves.
    const parents = roots.map((root) => path.dirname(root)).filter((dir) => !projects.includes(dir))
    const place = rootStore(path.join(base, 'store'))
    const preset = scopes.createScope({ name: 'preset' })
    const agent = scopes.createScope({ name: 'agent', parent: preset })
    const remote = ['beta', 'delta', 'omega'].map((name, i) => ({
      name,
      description: `${name} from remote`,
      invocation: { modelInvocable: i !== 1, userInvocable: true },
      source: 'remote',
      provider: 'remote',
      rank: 150 + i * 200,
      locator: name,
    }))
    /** The same registrations in a registry: watching, or not. */
    const build = (watch: boolean) => {
      const registry = new SkillRegistry({ logger: recorder().logger, scopes })
      const providers = [
        registry.registerLocalProvider({ ...home, customSkillDirs: own.local, watch }),
        registry.registerLocalProvider({ providerName: 'team', includeDefaultRoots: false, customSkillDirs: own.team, watch }),
        registry.registerLocalProvider({ includeDefaultRoots: false, customSkillDirs: own.preset, watch }, { scope: preset }),
      ]
      registry.registerProvider(() => ({ name: 'remote', list: () => remote.map((c) => ({ ...c })), get: () => undefined }), { scope: preset })
      registry.register({ name: 'gamma', description: 'gamma at run time', content: 'Run.', source: 'runtime' }, { scope: agent })
      return { registry, providers }
    }
    const live = build(true)
    /** Which provider holds `root`, for its observeHostMutation. */
    const owner = (root: string) => live.providers[own.team.includes(root) ? 1 : own.preset.includes(root) ? 2 : 0]
    const log: string[] = []
    const entryChange = () => {
      const root = pick(roots)
      const entry = pick(['a', 'b', 'c'])
      const flat = path.join(root, `${entry}.md`)
      const where = path.relative(base, root)
      const kind = Math.floor(rand() * 6)
      try {
        if (kind === 0) write(flat, text(where))
        else if (kind === 1) write(path.join(root, entry, 'SKILL.md'), text(where))
        else if (kind === 2) fs.rmSync(rand() < 0.5 ? flat : path.join(root, entry), { recursive: true, force: true })
        else if (kind === 3) fs.renameSync(path.join(root, entry), path.join(pick(roots), pick(['a', 'b', 'c'])))
        else if (kind === 4) {
          write(flat, text(where))
          owner(root).observeHostMutation(flat)
        } else write(flat, 'not a skill\n')
      } catch {
        // A missing root or entry, a rename onto a non-empty directory: no change.
      }
      return `entry ${kind} ${path.relative(base, flat)}`
    }
    const views = [undefined, preset, agent]
    const label = (scope: object | undefined) => (scope === undefined ? 'global' : scope === preset ? 'preset' : 'agent')
    const json = (value: unknown) => JSON.stringify(value, (_, v) => (v === preset || v === agent ? label(v) : v))
    let rootMoves = 0
    try {
      for (let step = 0; step < rootSteps; step++) {
        for (let i = Math.floor(rand() * 3); i >= 0; i--) {
          let did: string | undefined
          if (rand() < 0.6) {
            did = rootMove(roots, place, rand, fill, parents)
            if (did !== undefined) rootMoves++
          } else did = entryChange()
          log.push(`${step}: ${did ?? '(no move)'}`.replaceAll(base, '~'))
        }
        // Where each root leads now (for a failure's message).
        const layout = roots
          .map((root) => {
            let real: string
            try {
              real = path.relative(base, fs.realpathSync(root))
            } catch (error) {
              real = `(${(error as NodeJS.ErrnoException).code})`
            }
            return `${path.relative(base, root)} = ${real}`
          })
          .join(', ')
        const fresh = build(false)
        try {
          for (const cwd of [projects[0], path.join(projects[1], 'sub')]) {
            for (const scope of views) {
              const where = `seed ${seed}, step ${step}, cwd ${path.relative(base, cwd)}, scope ${label(scope)}:\n${log.join('\n')}\nroots: ${layout}`
              const options = { cwd, scope }
              const [got, want] = [await live.registry.snapshot(options), await fresh.registry.snapshot(options)]
              expect(json(got), where).toBe(json(want))
              expect(catalogDigest(got.skills), where).toBe(catalogDigest(want.skills))
              for (const name of [...names, 'omega']) {
                expect(json(await live.registry.explain(name, options)), `${where}\nexplain ${name}`).toBe(json(await fresh.registry.explain(name, options)))
              }
            }
          }
        } finally {
          await Promise.all(fresh.providers.map((p) => p.dispose()))
        }
      }
      // The moves ran (most draws apply).
      expect(rootMoves).toBeGreaterThan(rootSteps / 3)
    } finally {
      await Promise.all(live.providers.map((p) => p.dispose()))
    }
  }, 120_000)
})
