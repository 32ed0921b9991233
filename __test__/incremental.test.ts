// A change costs what changed (Linux, inotify): a watched provider keeps each
// root's listing and reads again only the entries a change touched. After
// random change sequences (including projects evicted from the watched set and
// first-party writes reported with `observeHostMutation`), every snapshot must
// be exactly what a fresh, unwatched registry finds on the same disk.
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { mulberry32, pkg, recorder, skillFile, tempDirs, write } from './helpers'

const { SkillRegistry } = pkg
const temp = tempDirs('dsh-incr-')
afterAll(() => temp.cleanup())

const seed = Number(process.env.DSH_INCR_SEED ?? Date.now() % 1_000_000)

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
})
