// `dsh-skills watch` says what changed by skill, whatever a budget did to the
// catalog: skills added, changed, removed and broken (a skill the budget
// leaves out included), a broken skill that never loaded, a root that
// appears after watch started; a broken skill is named once in text mode.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { tempDirs, write } from './helpers'
import { cleanEnv, runCli, skillText, spawnWatch } from './cli-helpers'

const temps = tempDirs('dsh-cli-watch-')
afterAll(() => temps.cleanup())

const digest = '[0-9a-f]{64}'

/** Replace a file atomically, so no watcher sees it half written. */
function replace(file: string, text: string) {
  write(`${file}.tmp`, text)
  fs.renameSync(`${file}.tmp`, file)
}

/** A project without skills of its own, an empty home, and a custom root of 30 skills with long descriptions. */
function corpus() {
  const base = temps.make()
  const project = path.join(base, 'project')
  fs.mkdirSync(path.join(project, '.git'), { recursive: true })
  const home = path.join(base, 'home')
  fs.mkdirSync(home)
  const team = path.join(base, 'team')
  const long = 'Does one careful thing for the team, described at length so that the budget has to cut it. '.repeat(3).trim()
  for (let i = 0; i < 30; i++) {
    const name = `skill-${String(i).padStart(2, '0')}`
    write(path.join(team, name, 'SKILL.md'), skillText(name, long))
  }
  write(path.join(team, 'zz-left-out', 'SKILL.md'), skillText('zz-left-out', long))
  const env = cleanEnv(home)
  const flags = ['--no-default-roots', '--skill-dir', team]
  return { project, team, env, flags }
}

/** The reports on stdout after the first, each a heading line (or none) and its lines. */
function reports(stdout: string) {
  return stdout.split(/^(?=# (?:initial|replacement) catalog)/m)
}

describe('watch --budget', () => {
  it('names what changed by skill, a skill the budget leaves out included; a broken skill once, on stdout', async () => {
    const { project, team, env, flags } = corpus()
    const budget = ['--budget', '250']
    const before = runCli(['catalog', ...flags, ...budget], { cwd: project, env })
    expect(before.code).toBe(0)
    // The budget leaves most skills out, zz-left-out among them.
    expect(before.stdout).toMatch(/more skills are available but not listed here/)
    expect(before.stdout).not.toContain('zz-left-out')
    const watched = spawnWatch(project, [...flags, ...budget], env)
    const { out, until } = watched
    const lines = () => out.stdout.split('\n')
    try {
      await until(() => /^# initial catalog.*\n$/.test(out.stdout), 'the initial catalog')
      expect(out.stdout).toMatch(new RegExp(`^# initial catalog, digest ${digest} \\(31 skills\\)\n$`))
      // A new skill (left out by the budget): added.
      write(path.join(team, 'zz-new-skill', 'SKILL.md'), skillText('zz-new-skill', 'A new one.'))
      await until(() => lines().includes('# added: zz-new-skill'), 'the added line')
      expect(reports(out.stdout).at(-1)).toMatch(new RegExp(`^# replacement catalog, digest ${digest} \\(32 skills\\)\n# added: zz-new-skill\n$`))
      // The description of a left-out skill: changed, not "body changed".
      const file = path.join(team, 'zz-left-out', 'SKILL.md')
      replace(file, skillText('zz-left-out', 'Reworded.'))
      await until(() => lines().includes('# changed: zz-left-out'), 'the changed line')
      expect(out.stdout).not.toContain('# body changed: zz-left-out')
      // Its body alone: body changed.
      replace(file, skillText('zz-left-out', 'Reworded.', 'A new body.'))
      await until(() => lines().includes('# body changed: zz-left-out'), 'the body change')
      // Broken: which file and why, on stdout; not warned about on stderr as well.
      const broken = path.join(team, 'skill-03', 'SKILL.md')
      replace(broken, '---\nname: skill-03\ndescription: [broken\n---\nBody.\n')
      await until(() => lines().some((line) => line.startsWith('# broken: skill-03: ')), 'the broken line')
      expect(lines().find((line) => line.startsWith('# broken: skill-03: '))).toContain(`${broken}: `)
      // Fixed: added again.
      replace(broken, skillText('skill-03', 'Fixed.'))
      await until(() => lines().filter((line) => line === '# added: skill-03').length === 1, 'the fix')
      // Removed.
      fs.rmSync(path.join(team, 'zz-new-skill'), { recursive: true })
      await until(() => lines().includes('# removed: zz-new-skill'), 'the removed line')
    } finally {
      watched.child.kill('SIGINT')
    }
    expect(await watched.exited).toBe(130)
    expect(out.stderr.split('\n').filter((line) => line.includes('skill-03'))).toEqual([])
  })

  it('a broken skill that never loaded: a # broken: line, and a JSON event with -q', async () => {
    const { project, team, env, flags } = corpus()
    const text = spawnWatch(project, [...flags, '--budget', '250'], env)
    const json = spawnWatch(project, [...flags, '--budget', '250', '--json', '-q'], env)
    const events = () => json.out.stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line))
    const file = path.join(team, 'Not_Kebab', 'SKILL.md')
    try {
      await text.until(() => text.out.stdout.includes('# initial catalog'), 'the initial catalog')
      await json.until(() => events().length === 1, 'the initial event')
      expect(events()[0]).toMatchObject({ kind: 'initial', broken: [] })
      write(file, skillText('Not_Kebab', 'Not a kebab-case name.'))
      await text.until(() => text.out.stdout.includes('# broken: '), 'the broken line')
      expect(text.out.stdout).toMatch(/\n# broken: Not_Kebab: .*Not_Kebab\/SKILL\.md: .*kebab-case.*\n$/)
      await json.until(() => events().length === 2, 'the broken event')
      expect(events()[1]).toEqual({
        kind: 'unchanged',
        digest: events()[0].digest,
        added: [],
        removed: [],
        changed: [],
        broken: [{ name: 'Not_Kebab', path: file, reason: expect.stringContaining('kebab-case') }],
        bodyChanged: [],
      })
    } finally {
      text.child.kill('SIGINT')
      json.child.kill('SIGINT')
    }
    expect(await text.exited).toBe(130)
    expect(await json.exited).toBe(130)
    expect(json.out.stderr).toBe('')
    // Named once in text mode: the stdout line, no warning on stderr.
    expect(text.out.stderr).not.toContain('Not_Kebab')
  })
})

describe('watch, a root that appears later', () => {
  it('reports its first skill as added under the initial catalog', async () => {
    const { project, env } = corpus()
    const later = path.join(project, '..', 'later')
    const watched = spawnWatch(project, ['--no-default-roots', '--skill-dir', later], env)
    const { out, until } = watched
    try {
      await until(() => out.stderr.includes('no model-invocable skills yet'), 'the empty start')
      write(path.join(later, 'first', 'SKILL.md'), skillText('first', 'The first skill.'))
      await until(() => out.stdout.endsWith('# added: first\n'), 'the first skill')
      expect(out.stdout).toMatch(new RegExp(`^# initial catalog, digest ${digest} \\(1 skill\\)\n# added: first\n$`))
    } finally {
      watched.child.kill('SIGINT')
    }
    expect(await watched.exited).toBe(130)
  })
})
