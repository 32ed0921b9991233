// Hints where skill authors look: skill folders of other tools that are not
// read, `list`'s summary line and its pointer at `doctor`, broken skills named
// by `show` and `explain`, and name hints that never suggest a taken name.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { tempDirs, write } from './helpers'
import { cleanEnv, expectOneLineError, runCli, skillText } from './cli-helpers'

const temps = tempDirs('dsh-cli-hints-')
afterAll(() => temps.cleanup())

/** A project (with `.git`) and a home directory, both empty. */
function setup() {
  const base = temps.make()
  const project = path.join(base, 'project')
  const home = path.join(base, 'home')
  fs.mkdirSync(path.join(project, '.git'), { recursive: true })
  fs.mkdirSync(home)
  const env = cleanEnv(home)
  const run = (args: string[], extra: NodeJS.ProcessEnv = {}) => runCli(args, { cwd: project, env: { ...env, ...extra } })
  return { base, project, home, env, run }
}

describe('skill folders of other tools', () => {
  it('list and doctor name the .claude/skills and .codex/skills folders that are not read, and the flag that reads them', () => {
    const { project, home, run } = setup()
    write(path.join(home, '.claude', 'skills', 'mine', 'SKILL.md'), skillText('mine', 'From ~/.claude.'))
    write(path.join(home, '.claude', 'skills', 'other.md'), skillText('other', 'Also from ~/.claude.'))
    write(path.join(project, '.claude', 'skills', 'pr-text', 'SKILL.md'), skillText('pr-text', 'PR text.'))
    write(path.join(home, '.codex', 'skills', 'codex-one.md'), skillText('codex-one', 'From ~/.codex.'))

    const list = run(['list'])
    expect(list.code).toBe(0)
    expect(list.stdout).toBe('')
    expect(list.stderr.split('\n')).toEqual([
      'dsh-skills: no skills found',
      'dsh-skills: 0 loaded, 0 shadowed, 0 broken, 0 ignored; why: dsh-skills doctor',
      "dsh-skills: hint: .claude/skills holds 1 skill that is not read: add --compat claude (provider option compatRoots: ['claude'])",
      `dsh-skills: hint: ${path.join(home, '.claude', 'skills')} holds 2 skills that are not read: add --compat claude (provider option compatRoots: ['claude'])`,
      `dsh-skills: hint: ${path.join(home, '.codex', 'skills')} holds 1 skill that is not read: add --compat codex (provider option compatRoots: ['codex'])`,
      '',
    ])

    const doctor = run(['doctor'])
    expect(doctor.code).toBe(0)
    expect(doctor.stdout).toContain('\n0 loaded, 0 shadowed, 0 broken, 0 ignored\n')
    expect(doctor.stdout).toContain(`hint: ${path.join(home, '.claude', 'skills')} holds 2 skills that are not read: add --compat claude`)
    expect(doctor.stdout).toContain('hint: .claude/skills holds 1 skill that is not read: add --compat claude')
    expect(doctor.stdout).toContain(`hint: ${path.join(home, '.codex', 'skills')} holds 1 skill that is not read: add --compat codex`)
    const json = JSON.parse(run(['doctor', '--json']).stdout)
    expect(json.notRead).toEqual([
      { path: path.join(project, '.claude', 'skills'), source: 'project-claude', skills: 1, flag: '--compat claude', option: "compatRoots: ['claude']" },
      { path: path.join(home, '.claude', 'skills'), source: 'user-claude', skills: 2, flag: '--compat claude', option: "compatRoots: ['claude']" },
      { path: path.join(home, '.codex', 'skills'), source: 'user-codex', skills: 1, flag: '--compat codex', option: "compatRoots: ['codex']" },
    ])

    // Read: no hint for those any more; the codex folder is still named.
    const claude = run(['list', '--compat', 'claude'])
    expect(claude.stdout).toMatch(/^NAME +SOURCE/)
    expect(claude.stderr).toBe(
      'dsh-skills: 3 loaded, 0 shadowed, 0 broken, 0 ignored\n' +
        `dsh-skills: hint: ${path.join(home, '.codex', 'skills')} holds 1 skill that is not read: add --compat codex (provider option compatRoots: ['codex'])\n`,
    )
    expect(run(['list', '--compat', 'claude,codex']).stderr).toBe('dsh-skills: 4 loaded, 0 shadowed, 0 broken, 0 ignored\n')
    expect(run(['doctor', '--compat', 'claude,codex']).stdout).not.toContain('hint:')
    expect(run(['list', '--quiet']).stderr).toBe('')
  })

  it('follows $CODEX_HOME, and says nothing about folders without skills', () => {
    const { base, home, run } = setup()
    fs.mkdirSync(path.join(home, '.claude', 'skills'), { recursive: true })
    write(path.join(home, '.claude', 'skills', 'README.md'), '# notes\n')
    write(path.join(base, 'codex-home', 'skills', 'c.md'), skillText('c', 'Codex skill.'))
    const list = run(['list'], { CODEX_HOME: path.join(base, 'codex-home') })
    expect(list.stderr).toBe(
      'dsh-skills: no skills found\n' +
        'dsh-skills: 0 loaded, 0 shadowed, 0 broken, 0 ignored; why: dsh-skills doctor\n' +
        `dsh-skills: hint: ${path.join(base, 'codex-home', 'skills')} holds 1 skill that is not read: add --compat codex (provider option compatRoots: ['codex'])\n`,
    )
  })
})

describe('list ends with a summary line', () => {
  it('counts loaded, shadowed, broken and ignored files, and points at doctor only when something is broken or nothing is listed', () => {
    const { project, run } = setup()
    const skills = path.join(project, '.agents', 'skills')
    write(path.join(skills, 'good.md'), skillText('good', 'Good.'))
    write(path.join(skills, 'README.md'), '# not a skill\n')
    const clean = run(['list'])
    expect(clean.stdout).toMatch(/^NAME +SOURCE +PROVIDER +INVOCATION\ngood +project-agents +local +model, user\n$/)
    expect(clean.stderr).toBe('dsh-skills: 1 loaded, 0 shadowed, 0 broken, 1 ignored\n')
    write(path.join(project, '.dsh', 'skills', 'good.md'), skillText('good', 'Project copy.'))
    write(path.join(skills, 'half-done', 'SKILL.md'), '---\nname: half-done\n---\n')
    const broken = run(['list'])
    expect(broken.stderr).toBe('dsh-skills: 1 loaded, 1 shadowed, 1 broken, 1 ignored; why: dsh-skills doctor\n')
    // Everything switched off: the summary says so, and points at doctor.
    const off = run(['list', '--off', '*'])
    expect(off.stdout).toBe('')
    expect(off.stderr).toBe('dsh-skills: no skills found\ndsh-skills: 1 loaded (1 switched off), 1 shadowed, 1 broken, 1 ignored; why: dsh-skills doctor\n')
  })

  it('points at doctor when the skills sit one level too deep', () => {
    const { project, run } = setup()
    write(path.join(project, '.agents', 'skills', 'collection', 'pdf', 'SKILL.md'), skillText('pdf', 'PDFs.'))
    const list = run(['list'])
    expect(list.stdout).toBe('')
    expect(list.stderr).toBe('dsh-skills: no skills found\ndsh-skills: 0 loaded, 0 shadowed, 0 broken, 1 ignored; why: dsh-skills doctor\n')
    expect(run(['doctor']).stdout).toContain(
      'hint: 1 SKILL.md file below `collection/` is deeper than one level; only one level is scanned',
    )
  })
})

describe('override flags that match nothing', () => {
  it('are named with a warning, and a source no skill has gets a did-you-mean', () => {
    const { project, run } = setup()
    write(path.join(project, '.dsh', 'skills', 'deploy', 'SKILL.md'), skillText('deploy', 'Deploy.'))
    write(path.join(project, '.agents', 'skills', 'code-review.md'), skillText('code-review', 'Review.'))
    const typos = ['--off', 'project_dsh:deploy', '--user-only', 'nothing-*', '--model-only', 'deploys']
    for (const command of ['list', 'doctor']) {
      const result = run([command, ...typos, '--off', 'code-*', '--off', 'project-dsh:deploy'])
      const warnings = result.stderr.split('\n').filter((line) => line.startsWith('dsh-skills: warning: --'))
      expect(warnings, command).toEqual([
        'dsh-skills: warning: --off project_dsh:deploy: no skill has source "project_dsh"; did you mean project-dsh?',
        'dsh-skills: warning: --user-only nothing-*: it matches no skill',
        'dsh-skills: warning: --model-only deploys: it matches no skill',
      ])
    }
    // Quiet: none of them.
    expect(run(['list', '-q', ...typos]).stderr).toBe('')
  })
})

describe('fix hints for the parser limits and escaped names', () => {
  it('name the limit that refused the frontmatter, and suggest no name made of escapes', () => {
    const { project, run } = setup()
    const skills = path.join(project, '.agents', 'skills')
    write(path.join(skills, 'evil', 'SKILL.md'), '---\nname: "evil\\nname\\u202e"\ndescription: Evil.\n---\n')
    const anchors = ['a: &a [x, x, x, x, x, x, x, x, x, x]', ...Array.from({ length: 12 }, (_, i) => `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}]`)]
    write(path.join(skills, 'bomb.md'), `---\nname: bomb\ndescription: Bomb.\n${anchors.join('\n')}\n---\n`)
    write(path.join(skills, 'deep.md'), `---\nname: deep\ndescription: Deep.\nx: ${'['.repeat(200)}${']'.repeat(200)}\n---\n`)
    const doctor = run(['doctor'])
    expect(doctor.code).toBe(1)
    const after = (file: string) => doctor.stdout.slice(doctor.stdout.indexOf(file)).split('\n').slice(0, 4).join('\n')
    expect(after(path.join('evil', 'SKILL.md'))).toContain('fix: a name is lowercase letters and digits')
    expect(doctor.stdout).not.toMatch(/did you mean/)
    expect(after('bomb.md')).toMatch(/excessive alias count[^]*fix: use each YAML anchor/)
    expect(after('deep.md')).toMatch(/nest deeper than 128 levels[^]*fix: flatten the frontmatter/)
  })
})

describe('the commands a hint suggests', () => {
  it('repeat the flags that chose the roots, quoted for the shell', () => {
    const { base, run } = setup()
    const spaced = path.join(base, "it's here")
    fs.mkdirSync(path.join(spaced, '.git'), { recursive: true })
    write(path.join(spaced, '.agents', 'skills', 'broken.md'), '---\nname: broken\n---\n')
    const list = run(['list', '--cwd', spaced, '--nested-roots'])
    expect(list.stderr).toBe(`dsh-skills: no skills found\ndsh-skills: 0 loaded, 0 shadowed, 1 broken, 0 ignored; why: dsh-skills doctor --cwd '${path.join(base, "it'\\''s here")}' --nested-roots\n`)
    const show = run(['show', 'broken', '--cwd', spaced])
    expect(show.stderr.split('\n')[0]).toBe(`dsh-skills: skill "broken" is broken (all broken files: dsh-skills doctor --cwd '${path.join(base, "it'\\''s here")}')`)
  })
})

describe('show and explain on a broken skill', () => {
  it('say it is broken, where, why and the fix', () => {
    const { project, run } = setup()
    const skills = path.join(project, '.agents', 'skills')
    write(path.join(skills, 'feature-flags', 'SKILL.md'), '---\nname: feature-flags\ndescription: Flags.\ndisable-model-invocation: sometimes\n---\n')
    write(path.join(skills, 'translate.md'), '---\nname: translate\ndescription: Strings.\ndisableModelInvocation: true\n---\n')
    write(path.join(skills, 'Deploy_Prod', 'SKILL.md'), '---\nname: Deploy_Prod\ndescription: Deploy.\n---\n')
    write(path.join(skills, 'no-file', 'notes.md'), 'notes\n')
    const cases = [
      [
        'feature-flags',
        [
          `${path.join('.agents', 'skills', 'feature-flags', 'SKILL.md')} [project-agents] does not load`,
          'because frontmatter field `disable-model-invocation` must be a boolean, 1/0 or one of true/false/yes/no/on/off (got string "sometimes")',
          'fix: write `disable-model-invocation: true` or `disable-model-invocation: false`',
        ],
      ],
      [
        'translate',
        [
          `${path.join('.agents', 'skills', 'translate.md')} [project-agents] does not load`,
          'because frontmatter key `disableModelInvocation` is no longer supported (use `disable-model-invocation` / `user-invocable`)',
          'fix: rename `disableModelInvocation` to `disable-model-invocation` (same value)',
        ],
      ],
      [
        'deploy-prod',
        [
          `${path.join('.agents', 'skills', 'Deploy_Prod', 'SKILL.md')} [project-agents] does not load`,
          'because frontmatter field `name` must be kebab-case (lowercase letters, digits, single dashes), got "Deploy_Prod"',
          'did you mean `deploy-prod`?',
        ],
      ],
      ['no-file', [`${path.join('.agents', 'skills', 'no-file')}/ is not read as a skill: it has no SKILL.md`, 'fix: put the instructions in SKILL.md inside it']],
    ] as const
    for (const [name, lines] of cases) {
      for (const command of ['show', 'explain']) {
        const result = run([command, name])
        expect(result.code, `${command} ${name}`).toBe(1)
        expect(result.stdout).toBe('')
        expect(result.stderr, `${command} ${name}`).toBe(
          `dsh-skills: skill "${name}" is broken (all broken files: dsh-skills doctor)\n${lines.map((line) => `  ${line}\n`).join('')}`,
        )
      }
    }
    // An unknown name is still unknown, in one line.
    const unknown = run(['show', 'feature-flag'])
    expectOneLineError(unknown, 1)
    expect(unknown.stderr).toContain('unknown skill "feature-flag"')
    // Switched off is not broken.
    write(path.join(skills, 'fine.md'), skillText('fine', 'Fine.'))
    const off = run(['show', 'fine', '--off', 'fi*'])
    expectOneLineError(off, 1)
    expect(off.stderr).toBe('dsh-skills: skill "fine" is switched off by --off fi*\n')
  })

  it('name the broken copy when another copy loads in its place', () => {
    const { project, home, run } = setup()
    write(path.join(project, '.agents', 'skills', 'review', 'SKILL.md'), '---\nname: review\n---\nThe copy being edited.\n')
    write(path.join(home, '.agents', 'skills', 'review.md'), skillText('review', 'The user copy.', 'User body.'))
    const show = run(['show', 'review'])
    expect(show.code).toBe(0)
    expect(show.stdout).toContain('User body.')
    expect(show.stderr).toBe(
      'dsh-skills: note: a file meant to be "review" is broken, so another copy is shown:\n' +
        `  ${path.join('.agents', 'skills', 'review', 'SKILL.md')} [project-agents] does not load\n` +
        '  because frontmatter field `description` is required\n' +
        '  fix: add `description:` with one line on what the skill does and when to use it (the catalog shows the model only this)\n',
    )
    const explain = run(['explain', 'review'])
    expect(explain.code).toBe(0)
    expect(explain.stdout).toContain(
      '\nBroken, so not a candidate:\n' +
        `  ${path.join('.agents', 'skills', 'review', 'SKILL.md')} [project-agents] does not load\n` +
        '  because frontmatter field `description` is required\n',
    )
    expect(run(['show', 'review', '--quiet']).stderr).toBe('')
  })
})

describe('name hints', () => {
  it('never suggest a name another loaded skill has: they say whose it is', () => {
    const { project, run } = setup()
    const skills = path.join(project, '.agents', 'skills')
    write(path.join(skills, 'foo-bar', 'SKILL.md'), skillText('foo-bar', 'Taken.'))
    write(path.join(skills, 'Foo_Bar', 'SKILL.md'), '---\nname: Foo_Bar\ndescription: Collides.\n---\n')
    write(path.join(skills, 'Baz_Qux', 'SKILL.md'), '---\nname: Baz_Qux\ndescription: Free.\n---\n')
    write(path.join(skills, 'foo-bar.md'), '---\ndescription: No name, and its file name is taken.\n---\n')
    write(path.join(skills, 'nameless.md'), '---\ndescription: No name.\n---\n')
    const doctor = run(['doctor'])
    const taken = `not \`foo-bar\`: ${path.join('.agents', 'skills', 'foo-bar', 'SKILL.md')} has that name; choose a kebab-case name no other skill has`
    expect(doctor.stdout).toMatch(/Foo_Bar\/SKILL\.md\n.*\n {14}hint: (.*)\n/)
    expect(/Foo_Bar\/SKILL\.md\n.*\n {14}hint: (.*)\n/.exec(doctor.stdout)?.[1]).toBe(taken)
    expect(doctor.stdout).toMatch(/Baz_Qux\/SKILL\.md\n.*\n {14}hint: did you mean `baz-qux`\?\n/)
    expect(doctor.stdout).toMatch(/foo-bar\.md\n.*because frontmatter field `name` is required\n {14}hint: not `foo-bar`: /)
    expect(doctor.stdout).toMatch(/nameless\.md\n.*because frontmatter field `name` is required\n {14}fix: add a `name:` line, e.g. `nameless`\n/)
    const json = JSON.parse(run(['doctor', '--json']).stdout)
    const hints = json.files.flatMap((f: { hints: string[] }) => f.hints)
    expect(hints.filter((hint: string) => /`foo-bar`\?|e\.g\. `foo-bar`/.test(hint))).toEqual([])
  })
})
