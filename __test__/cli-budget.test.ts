// `dsh-skills catalog --budget` on a large catalog: pins by name or glob, the
// per-source report lines, and what the budget keeps in full (a project
// skill) while it cuts skills of far roots (the user roots).
import * as fs from 'node:fs'
import { createRequire } from 'node:module'
import * as path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { tempDirs, write } from './helpers'
import { cleanEnv, runCli, skillText } from './cli-helpers'

const require = createRequire(import.meta.url)
const temps = tempDirs('dsh-cli-budget-')
afterAll(() => temps.cleanup())

const USER_SKILLS = 320
const projectDescription = `Project release steps, ${'check the changelog, tag, publish, announce; '.repeat(4)}`.trim()

let project: string
let env: NodeJS.ProcessEnv
let args: string[]
const run = (extra: string[]) => runCli(['catalog', ...args, ...extra], { cwd: project, env })

beforeAll(() => {
  const base = temps.make()
  project = path.join(base, 'project')
  const home = path.join(base, 'home')
  fs.mkdirSync(path.join(project, '.git'), { recursive: true })
  // The project's own skill sorts last: by name alone, a budget would cut it first.
  write(path.join(project, '.dsh', 'skills', 'zz-release', 'SKILL.md'), skillText('zz-release', projectDescription))
  for (let i = 0; i < USER_SKILLS; i++) {
    const name = `u-${String(i).padStart(3, '0')}`
    write(path.join(home, '.agents', 'skills', `${name}.md`), skillText(name, `User skill ${i} ${'does one small thing well; '.repeat(3)}`.trim()))
  }
  fs.mkdirSync(path.join(home, '.dsh'))
  env = cleanEnv(home)
  args = ['--quiet', '--agents-home', path.join(home, '.agents'), '--dsh-home', path.join(home, '.dsh')]
})

describe('--pin takes names and globs', () => {
  it('a glob is passed on; one that matches nothing, or is not a glob of names, is a warning, not a failure', () => {
    for (const pin of ['u-01*', 'zz-*', '*-release']) {
      // (With the search tool named: no warning about skills left out.)
      const result = runCli(['catalog', ...args.slice(1), '--budget', '4000', '--search-tool', 'skill_search', '--pin', pin], { cwd: project, env })
      expect(result.code, pin).toBe(0)
      expect(result.stderr, pin).toBe('')
    }
    const none = runCli(['catalog', ...args.slice(1), '--budget', '4000', '--search-tool', 'skill_search', '--pin', 'nothing-*'], { cwd: project, env })
    expect(none.code).toBe(0)
    expect(none.stderr).toBe('dsh-skills: warning: --pin nothing-*: the glob matches no model-invocable skill\n')
    const bad = runCli(['catalog', ...args.slice(1), '--budget', '4000', '--search-tool', 'skill_search', '--pin', 'Zz_*'], { cwd: project, env })
    expect(bad.code).toBe(0)
    expect(bad.stderr).toBe('dsh-skills: warning: --pin Zz_*: not a skill name or a glob of one (kebab-case, with *)\n')
    const name = runCli(['catalog', ...args.slice(1), '--budget', '4000', '--search-tool', 'skill_search', '--pin', 'zz-releas'], { cwd: project, env })
    expect(name.stderr).toBe('dsh-skills: warning: --pin zz-releas: no model-invocable skill of that name; did you mean zz-release?\n')
    // Quiet: no warnings.
    expect(run(['--budget', '4000', '--pin', 'nothing-*']).stderr).toBe('')
  })
})

describe('skills a budget leaves out', () => {
  it('without a search tool: the last line says the list does not show them, and stderr says only a search tool reaches them', () => {
    const loud = ['catalog', ...args.slice(1), '--budget', '1000']
    const result = runCli(loud, { cwd: project, env })
    expect(result.code).toBe(0)
    const json = JSON.parse(runCli([...loud, '--json'], { cwd: project, env }).stdout)
    const omitted = json.report.omitted
    expect(omitted).toBeGreaterThan(100)
    expect(json.entries.split('\n').at(-1)).toBe(
      `(${omitted} more skills are available but not listed here; the \`skill\` tool loads one only by its exact name, which this list does not show.)`,
    )
    expect(result.stderr).toBe(
      `dsh-skills: warning: the catalog budget leaves out ${omitted} of ${USER_SKILLS + 1} skills: the model never sees their names, so they are ` +
        "reachable only through a search tool. Mount @deepseek-ai/dsh-skill-native/harness/search-tool (tool `skill_search`) and pass searchTool: 'skill_search' " +
        'to the catalog (here: --search-tool skill_search)\n',
    )
    // Named: the last line says how to find them, and there is nothing to warn about.
    const searched = runCli([...loud, '--search-tool', 'skill_search'], { cwd: project, env })
    expect(searched.stderr).toBe('')
    expect(searched.stdout).toContain('with the `skill_search` tool, then load it by its exact name')
    // doctor says it in its report; --quiet silences catalog.
    expect(runCli(['doctor', ...args.slice(1), '--budget', '1000'], { cwd: project, env }).stdout).toContain(
      `warning: the catalog budget leaves out ${omitted} of ${USER_SKILLS + 1} skills`,
    )
    expect(run(['--budget', '1000']).stderr).toBe('')
  })

  it('the library gives the same warning to log, for plugins', () => {
    const { catalogBudgetWarning } = require('../index.js') as typeof import('../index')
    const { toolName } = require('../lib/search-tool.js') as { toolName: string }
    expect(toolName).toBe('skill_search')
    expect(catalogBudgetWarning({ total: 10, omitted: 0 })).toBeUndefined()
    expect(catalogBudgetWarning({ total: 10, omitted: 3 }, { searchTool: 'skill_search' })).toBeUndefined()
    expect(catalogBudgetWarning({ total: 10, omitted: 1 })).toBe(
      "the catalog budget leaves out 1 of 10 skills: the model never sees its name, so it is reachable only through a search tool. Mount @deepseek-ai/dsh-skill-native/harness/search-tool (tool `skill_search`) and pass searchTool: 'skill_search' to the catalog",
    )
    expect(() => catalogBudgetWarning(null as never)).toThrow(TypeError)
  })
})

describe('the per-source lines', () => {
  it('print how each source fared, under the budget line', () => {
    const { bySourceLines } = require('../lib/cli/catalog-view.js')
    expect(
      bySourceLines({
        total: 321,
        bySource: {
          'project-dsh': { total: 1, full: 1, shortened: 0, nameOnly: 0, omitted: 0 },
          'user-agents': { total: 320, full: 0, shortened: 12, nameOnly: 200, omitted: 108 },
        },
      }),
    ).toEqual(['  project-dsh: 1 skill, 1 in full', '  user-agents: 320 skills, 0 in full, 12 shortened, 200 by name only, 108 left out'])
    expect(bySourceLines({ total: 0, bySource: {} })).toEqual([])
  })
})

describe(`a budget on ${USER_SKILLS + 1} skills`, () => {
  it('renders the registry catalog the library renders, with the budget line', () => {
    const json = JSON.parse(run(['--json', '--budget', '6000']).stdout)
    expect(json.report.total).toBe(USER_SKILLS + 1)
    expect(json.report.full).toBeLessThan(json.report.total)
    expect(json.entries.length).toBeLessThanOrEqual(6000)
    const text = run(['--budget', '6000'])
    expect(text.code).toBe(0)
    expect(text.stdout).toContain(`\nbudget 6000: ${USER_SKILLS + 1} skills, ${json.report.full} in full`)
  })

  it('keeps the project skill (a small source) in full while it cuts the big user root', () => {
    const json = JSON.parse(run(['--json', '--budget', '6000']).stdout)
    expect(json.entries).toContain(`- \`zz-release\`: ${projectDescription}`)
    expect(json.report.bySource['project-dsh']).toEqual({ total: 1, full: 1, shortened: 0, nameOnly: 0, omitted: 0 })
    const user = json.report.bySource['user-agents']
    expect(user.total).toBe(USER_SKILLS)
    expect(user.full).toBeLessThan(USER_SKILLS)
    expect(user.shortened + user.nameOnly + user.omitted).toBeGreaterThan(0)
    const text = run(['--budget', '6000']).stdout
    expect(text).toContain('\n  project-dsh: 1 skill, 1 in full\n')
    expect(text).toMatch(new RegExp(`\\n  user-agents: ${USER_SKILLS} skills, ${user.full} in full, .*\\n$`))
  })

  it('a glob pin keeps the skills it matches in full before the project skill', () => {
    const json = JSON.parse(run(['--json', '--budget', '6000', '--pin', 'u-00*']).stdout)
    for (let i = 0; i < 10; i++) {
      expect(json.entries).toContain(`- \`u-00${i}\`: User skill ${i} does one small thing well; does one small thing well; does one small thing well;`)
    }
    expect(json.entries).not.toContain(`- \`u-300\`: User skill 300 does one small thing well; does one small thing well; does one small thing well;`)
  })
})
