import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import { createRequire } from 'node:module'
import * as path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { tempDirs, write } from './helpers'
import { spawnWatch } from './cli-helpers'

const require = createRequire(import.meta.url)
const root = path.resolve(__dirname, '..')
const bin = path.join(root, 'bin', 'dsh-skills.js')
const example = path.join(root, 'examples', 'workspace')

const temps = tempDirs('dsh-cli-')
afterAll(() => temps.cleanup())

/** A home directory holding skills that must never show up. */
let fakeHome: string
/** A copy of the example workspace marked as its own project root. */
let ws: string
let roots: string[]

beforeAll(() => {
  fakeHome = temps.make()
  for (const dir of ['.dsh/skills', '.agents/skills']) {
    write(path.join(fakeHome, dir, 'home-leak.md'), '---\nname: home-leak\ndescription: Read from the real home directory.\n---\nLeak.\n')
  }
  ws = path.join(temps.make(), 'workspace')
  fs.cpSync(example, ws, { recursive: true, filter: (src) => path.basename(src) !== '.git' })
  fs.mkdirSync(path.join(ws, '.git'))
  roots = [
    '--dsh-home',
    path.join(ws, 'home', '.dsh'),
    '--agents-home',
    path.join(ws, 'home', '.agents'),
    '--skill-dir',
    path.join(ws, 'team-skills'),
    '--bundled-dir',
    path.join(ws, 'home', 'bundled-skills'),
  ]
})

function env() {
  const clean: NodeJS.ProcessEnv = { ...process.env, HOME: fakeHome, USERPROFILE: fakeHome }
  delete clean.DSH_HOME
  delete clean.DSH_AGENTS_HOME
  delete clean.DSH_BUNDLED_SKILL_DIR
  delete clean.DSH_SKILLS_DEBUG
  delete clean.DSH_SKILL_LOG
  delete clean.FORCE_COLOR
  delete clean.NO_COLOR
  return clean
}

function run(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) {
  const result = spawnSync(process.execPath, [bin, ...args], {
    cwd: options.cwd ?? ws,
    env: { ...env(), ...options.env },
    encoding: 'utf8',
    timeout: 30_000,
  })
  return { code: result.status, stdout: result.stdout, stderr: result.stderr }
}

function expectOneLineError(result: { code: number | null; stdout: string; stderr: string }, code: number) {
  expect(result.code).toBe(code)
  expect(result.stdout).toBe('')
  const lines = result.stderr.trimEnd().split('\n')
  expect(lines).toHaveLength(1)
  expect(lines[0]).toMatch(/^dsh-skills: /)
  expect(result.stderr).not.toMatch(/\n\s+at /)
}

const MODEL_SKILLS = [
  'api-docs',
  'code-review',
  'commit-message',
  'db-migrations',
  'debugging',
  'incident-report',
  'release-notes',
  'security-checklist',
  'skill-authoring',
]

describe('dsh-skills basics', () => {
  it('prints help and version', () => {
    const help = run(['--help'])
    expect(help.code).toBe(0)
    expect(help.stdout).toMatch(/^Usage: dsh-skills <command>/)
    for (const command of ['list', 'catalog', 'search QUERY', 'show NAME', 'doctor', 'watch', 'demo']) {
      expect(help.stdout).toContain(`  ${command}`)
    }
    expect(run(['help']).stdout).toBe(help.stdout)
    // Bare: the usage line and the commands on stderr, not the whole help.
    const bare = run([])
    expect(bare.code).toBe(2)
    expect(bare.stdout).toBe('')
    expect(bare.stderr).toMatch(/^Usage: dsh-skills <command> \[options\]\nCommands: list, catalog, search, show, explain, doctor, watch, demo, completion, help\n/)
    expect(bare.stderr).toContain('dsh-skills --help')
    expect(bare.stderr.trimEnd().split('\n').length).toBeLessThanOrEqual(3)
    for (const flag of ['--version', '-v', '-V']) {
      const version = run([flag])
      expect(version.code, flag).toBe(0)
      expect(version.stdout.trim(), flag).toBe(require('../package.json').version)
    }
    expectOneLineError(run(['--V']), 2)
  })

  it('reports user mistakes in one line without a stack trace', () => {
    expectOneLineError(run(['lsit']), 2)
    expectOneLineError(run(['list', '--bogus']), 2)
    expectOneLineError(run(['list', '--cwd']), 2)
    expectOneLineError(run(['list', '--json=yes']), 2)
    expectOneLineError(run(['list', 'extra']), 2)
    expectOneLineError(run(['list', '--cwd', path.join(ws, 'missing')]), 2)
    expectOneLineError(run(['list', '--cwd', path.join(ws, 'src', 'checkout.mjs')]), 2)
    expectOneLineError(run(['catalog', '--max-length', '2']), 2)
    expectOneLineError(run(['show']), 2)
    expectOneLineError(run(['show', 'Not_A_Name', ...roots]), 2)
    expectOneLineError(run(['show', 'no-such-skill', ...roots, '--quiet']), 1)
    expect(run(['show', 'no-such-skill', ...roots, '--quiet']).stderr).toContain('unknown skill "no-such-skill"')
  })
})

describe('dsh-skills on the example workspace', () => {
  it('lists the winning skills as a table', () => {
    const result = run(['list', ...roots])
    expect(result.code).toBe(0)
    const [header, ...rows] = result.stdout.trimEnd().split('\n')
    expect(header.split(/\s{2,}/)).toEqual(['NAME', 'SOURCE', 'PROVIDER', 'INVOCATION'])
    const table = Object.fromEntries(rows.map((row) => [row.split(/\s+/)[0], row.split(/\s{2,}/)]))
    expect(Object.keys(table)).toEqual([...MODEL_SKILLS, 'local-setup'].sort())
    expect(table['code-review']).toEqual(['code-review', 'project-dsh', 'local', 'model, user'])
    expect(table['incident-report'][1]).toBe('project-agents')
    expect(table['security-checklist'][1]).toBe('custom')
    expect(table['commit-message'][1]).toBe('user-dsh')
    expect(table['debugging'][1]).toBe('user-agents')
    expect(table['skill-authoring'][1]).toBe('bundled')
    expect(table['local-setup'][3]).toBe('user')
    expect(result.stdout).not.toContain('home-leak')
    // The broken files are counted on stderr (each one with --verbose), unless --quiet.
    // The pointer repeats the flags that chose the roots, so it looks at the same skills.
    expect(result.stderr).toContain(`dsh-skills: 10 loaded, 2 shadowed, 4 broken, 1 ignored; why: dsh-skills doctor ${roots.join(' ')}\n`)
    expect(result.stderr).not.toContain('perf-profile.md')
    expect(run(['list', ...roots, '--verbose']).stderr).toMatch(/warning: .*perf-profile\.md/)
    expect(run(['list', ...roots, '--quiet']).stderr).toBe('')
  })

  it('lists as JSON', () => {
    const result = run(['list', '--json', '--quiet', ...roots])
    expect(result.code).toBe(0)
    const snapshot = JSON.parse(result.stdout)
    expect(snapshot.complete).toBe(true)
    expect(snapshot.skills.map((s: { name: string }) => s.name)).toEqual([...MODEL_SKILLS, 'local-setup'].sort())
    const releaseNotes = snapshot.skills.find((s: { name: string }) => s.name === 'release-notes')
    expect(releaseNotes).toMatchObject({
      source: 'project-dsh',
      provider: 'local',
      invocation: { modelInvocable: true, userInvocable: true },
      resourceBase: { kind: 'directory', path: path.join(ws, '.dsh', 'skills', 'release-notes') },
    })
  })

  it('prints the exact catalog message and its digest', () => {
    const catalog = require('../lib/catalog.js')
    const snapshot = JSON.parse(run(['list', '--json', '--quiet', ...roots]).stdout)
    const text = run(['catalog', '--quiet', ...roots])
    expect(text.code).toBe(0)
    const message = catalog.renderCatalogMessage(snapshot.skills)
    const digest = catalog.catalogDigest(snapshot.skills)
    expect(text.stdout).toBe(`${message}\n\ndigest: ${digest}\n`)
    expect(catalog.catalogContentDigest(message)).toBe(digest)
    for (const name of MODEL_SKILLS) expect(message).toContain(`\`${name}\``)
    expect(message).not.toContain('local-setup')
    expect(message).not.toContain(ws)
    const json = JSON.parse(run(['catalog', '--json', '--quiet', ...roots]).stdout)
    expect(json).toEqual({ complete: true, message, entries: catalog.renderCatalogEntries(snapshot.skills), digest })
    const short = JSON.parse(run(['catalog', '--json', '--quiet', '--max-length', '20', ...roots]).stdout)
    expect(short.digest).toBe(catalog.catalogDigest(snapshot.skills, 20))
  })

  it('shows the skill tool result', () => {
    const catalog = require('../lib/catalog.js')
    const result = run(['show', 'release-notes', '--quiet', ...roots])
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('<skill_content name="release-notes">')
    expect(result.stdout).toContain('scripts/collect-changes.sh')
    const json = JSON.parse(run(['show', 'release-notes', '--json', '--quiet', ...roots]).stdout)
    expect(json.definition.path).toBe(path.join(ws, '.dsh', 'skills', 'release-notes', 'SKILL.md'))
    expect(json.toolResult).toBe(catalog.renderSkillContent(json.definition))
    expect(result.stdout).toBe(`${json.toolResult}\n`)
    const userOnly = run(['show', 'local-setup', '--quiet', ...roots])
    expect(userOnly.code).toBe(0)
    expect(userOnly.stderr).toContain('model invocation is disabled for "local-setup"')
  })

  it('explains every file with doctor and exits 1 when a skill is broken', () => {
    const result = run(['doctor', ...roots])
    expect(result.code).toBe(1)
    const out = result.stdout
    expect(out).toContain(`Project root: .`)
    for (const [file, reason] of [
      ['Deploy_Prod/SKILL.md', /name/i],
      ['perf-profile.md', /description/i],
      ['feature-flags/SKILL.md', /disable-model-invocation/],
      ['translate-strings.md', /disableModelInvocation/],
    ] as const) {
      const at = out.indexOf(file)
      expect(at, file).toBeGreaterThan(-1)
      const next = out.slice(at).split('\n')[1]
      expect(next).toMatch(/^\s+because /)
      expect(next).toMatch(reason)
    }
    expect(out).toMatch(/shadowed\s+code-review\s+code-review\/SKILL\.md\n\s+by \.dsh\/skills\/code-review\/SKILL\.md \[project-dsh\]/)
    expect(out).toMatch(/shadowed\s+incident-report\s+incident-report\.md\n\s+by \.agents\/skills\/incident-report\.md/)
    expect(out).not.toContain('harness-internals')
    expect(out).toMatch(/\n\s+ignored\s+\.system\n/)
    expect(out).toMatch(/Deploy_Prod\/SKILL\.md\n.*\n\s+hint: did you mean `deploy-prod`\?\n/)
    expect(out).toContain('10 loaded, 2 shadowed, 4 broken, 1 ignored')
    // Warnings are part of the report, not repeated on stderr.
    expect(result.stderr).toBe('')

    const json = run(['doctor', '--json', ...roots])
    expect(json.code).toBe(1)
    const diagnosis = JSON.parse(json.stdout)
    const outcomes = diagnosis.files.map((f: { outcome: string }) => f.outcome)
    // The provider reports the reserved `.system` directory as skipped too.
    expect(outcomes.filter((o: string) => o === 'skipped')).toHaveLength(5)
    expect(outcomes.filter((o: string) => o === 'shadowed')).toHaveLength(2)
    const shadowed = diagnosis.files.find((f: { path: string }) => f.path.endsWith(path.join('.agents', 'skills', 'code-review', 'SKILL.md')))
    expect(shadowed.shadowedBy).toMatchObject({ name: 'code-review', source: 'project-dsh' })
  })

  it('exits 0 from doctor when nothing is broken', () => {
    const clean = temps.make()
    fs.mkdirSync(path.join(clean, '.git'))
    fs.mkdirSync(path.join(clean, '.agents', 'skills', 'ok'), { recursive: true })
    fs.writeFileSync(path.join(clean, '.agents', 'skills', 'ok', 'SKILL.md'), '---\nname: ok\ndescription: Fine.\n---\nBody.\n')
    const empty = temps.make()
    const result = run(['doctor', '--dsh-home', empty, '--agents-home', empty], { cwd: clean })
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('1 loaded, 0 shadowed, 0 broken, 0 ignored')
  })

  it('runs the demo on the real example workspace and exits 0', () => {
    const result = run(['demo'], { cwd: root })
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('== dsh-skills list ==')
    expect(result.stdout).toContain('<available_skills>')
    expect(result.stdout).toContain('10 loaded, 2 shadowed, 4 broken, 1 ignored')
    expect(result.stdout).not.toContain('home-leak')
    expect(fs.statSync(path.join(example, '.git')).isDirectory()).toBe(true)
    expectOneLineError(run(['demo', '--cwd', ws]), 2)
  })
})

describe('dsh-skills watch', () => {
  it('prints a replacement catalog when the catalog changes, until SIGINT', async () => {
    const project = temps.make()
    fs.mkdirSync(path.join(project, '.git'))
    const skills = path.join(project, '.agents', 'skills')
    fs.mkdirSync(path.join(skills, 'first'), { recursive: true })
    fs.writeFileSync(path.join(skills, 'first', 'SKILL.md'), '---\nname: first\ndescription: First skill.\n---\nBody.\n')
    const empty = temps.make()
    const { child, out, exited, until } = spawnWatch(project, ['--catalog', '--dsh-home', empty, '--agents-home', empty], env())
    try {
      await until(() => out.stdout.includes('# initial catalog'), 'the initial catalog')
      await until(() => out.stdout.includes('`first`'), 'the catalog text (--catalog)')
      fs.writeFileSync(path.join(skills, 'second.md'), '---\nname: second\ndescription: Second skill.\n---\nBody.\n')
      await until(() => out.stdout.includes('# replacement catalog'), 'a replacement catalog')
      await until(() => /# replacement catalog[^]*`second`/.test(out.stdout), 'the new skill')
      const count = out.stdout.split('# replacement catalog').length
      fs.rmSync(path.join(skills, 'first'), { recursive: true })
      await until(() => out.stdout.split('# replacement catalog').length > count, 'the removal')
      expect(out.stdout.slice(out.stdout.lastIndexOf('# replacement catalog'))).not.toContain('`first`')
    } finally {
      child.kill('SIGINT')
    }
    // Stopped by Ctrl-C: 128 + SIGINT.
    expect(await exited).toBe(130)
  })
})

/** A skills folder as cloned collections look: skills next to things that are not skills. */
function collection() {
  const dir = temps.make()
  const skill = (rel: string, text: string) => write(path.join(dir, rel), text)
  skill('good/SKILL.md', '---\nname: good\ndescription: A good skill.\n---\nBody.\n')
  skill('README.md', '# My skill collection\n')
  skill('.git/HEAD', 'ref: refs/heads/main\n')
  skill('node_modules/left-pad/index.js', 'module.exports = 1\n')
  skill('.claude-plugin/plugin.json', '{}\n')
  skill('assets/logo.svg', '<svg/>\n')
  return dir
}

function doctorOf(dir: string, extra: string[] = []) {
  const empty = temps.make()
  return run(['doctor', '--skill-dir', dir, '--dsh-home', empty, '--agents-home', empty, '--cwd', empty, ...extra])
}

describe('dsh-skills doctor verdicts', () => {
  it('shows what is not a skill as ignored and exits 0', () => {
    const dir = collection()
    const result = doctorOf(dir)
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    for (const entry of ['README.md', '.git/', 'node_modules/', '.claude-plugin/', 'assets/']) {
      expect(result.stdout, entry).toMatch(new RegExp(`\\n\\s+ignored\\s+${entry.replace('.', '\\.')}\\n\\s+not a skill`))
    }
    expect(result.stdout).toContain('1 loaded, 0 shadowed, 0 broken, 5 ignored')
    const json = JSON.parse(doctorOf(dir, ['--json']).stdout)
    const verdicts = Object.fromEntries(
      json.files.map((f: { path: string; verdict: string }) => [path.relative(dir, f.path), f.verdict]),
    )
    expect(verdicts).toMatchObject({ 'good/SKILL.md': 'loaded', 'README.md': 'ignored', [path.join('.git', 'SKILL.md')]: 'ignored' })
    // The library and `list --verbose` keep warning about the skipped README.md, as before.
    const list = run(['list', '--verbose', '--skill-dir', dir, '--dsh-home', dir, '--agents-home', dir, '--cwd', dir])
    expect(list.code).toBe(0)
    expect(list.stderr).toContain(`warning: skill file ${path.join(dir, 'README.md')} skipped: missing frontmatter`)
  })

  it('exits 1 for a broken skill: frontmatter present but invalid', () => {
    const dir = collection()
    write(path.join(dir, 'half-done', 'SKILL.md'), '---\nname: half-done\n---\nNo description yet.\n')
    const result = doctorOf(dir)
    expect(result.code).toBe(1)
    expect(result.stdout).toMatch(/\n\s+broken\s+half-done\/SKILL\.md\n\s+because frontmatter field `description` is required\n/)
    expect(result.stdout).toContain('1 loaded, 0 shadowed, 1 broken, 5 ignored')
  })

  it('gives fix hints: a kebab-case name, skill folders too deep, a name that differs from its folder', () => {
    const dir = collection()
    write(path.join(dir, 'ahrefs', 'SKILL.md'), '---\nname: Ahrefs_Automation\ndescription: SEO reports.\n---\n')
    for (let i = 0; i < 17; i++) {
      write(path.join(dir, 'anthropic-skills', `group-${i % 3}`, `skill-${i}`, 'SKILL.md'), `---\nname: s${i}\ndescription: d\n---\n`)
    }
    write(path.join(dir, 'pdf-tools', 'SKILL.md'), '---\nname: pdf\ndescription: Work with PDFs.\n---\n')
    const result = doctorOf(dir)
    expect(result.code).toBe(1)
    expect(result.stdout).toMatch(/ahrefs\/SKILL\.md\n.*because frontmatter field `name` must be kebab-case.*\n\s+hint: did you mean `ahrefs-automation`\?\n/)
    expect(result.stdout).toMatch(
      /ignored\s+anthropic-skills\/\n.*\n\s+hint: 17 SKILL\.md files below `anthropic-skills\/` are deeper than one level; only one level is scanned \(link or copy the skill folders up\)\n/,
    )
    expect(result.stdout).toMatch(/loaded\s+pdf\s+pdf-tools\/SKILL\.md\n\s+hint: name `pdf` differs from its folder `pdf-tools\/`\n/)
    const json = JSON.parse(doctorOf(dir, ['--json']).stdout)
    const ahrefs = json.files.find((f: { path: string }) => f.path.endsWith(path.join('ahrefs', 'SKILL.md')))
    expect(ahrefs).toMatchObject({ verdict: 'broken', hints: ['did you mean `ahrefs-automation`?'] })
  })
})

describe('dsh-skills command line', () => {
  it('has help per command: dsh-skills help list and dsh-skills list --help', () => {
    const help = run(['help', 'list'])
    expect(help.code).toBe(0)
    expect(help.stdout).toMatch(/^Usage: dsh-skills list \[options\]\n/)
    expect(run(['list', '--help']).stdout).toBe(help.stdout)
    expect(run(['list', '-h']).stdout).toBe(help.stdout)
    // Its own options in full; the shared ones named in one line; examples.
    expect(help.stdout).toContain('\n  --json ')
    expect(help.stdout).not.toContain('--skill-dir DIR')
    expect(help.stdout.replace(/\n(?!\n)/g, ' ')).toMatch(
      /\n Also the root flags \(--cwd, --dsh-home, [^)]*--skill-dir[^)]*\), the override flags \(--off, [^)]*\), --color, --help, --version: see dsh-skills --help\.\n/,
    )
    expect(help.stdout.split('\n').every((line) => line.length <= 80)).toBe(true)
    expect(help.stdout).toMatch(/\nExamples:\n(  dsh-skills list.*\n){2,3}$/)
    expect(help.stdout).not.toContain('--poll')
    expect(run(['help', 'watch']).stdout).toContain('--poll')
    expect(run(['help', 'show']).stdout).toMatch(/^Usage: dsh-skills show NAME/)
    expectOneLineError(run(['help', 'lst']), 2)
  })

  it('suggests the command or option meant', () => {
    const command = run(['lsit'])
    expectOneLineError(command, 2)
    expect(command.stderr).toContain('unknown command "lsit"; did you mean list?')
    const option = run(['list', '--jsn'])
    expectOneLineError(option, 2)
    expect(option.stderr).toContain('unknown option --jsn; did you mean --json?')
    expect(run(['catalog', '--max-lenght', '9']).stderr).toContain('did you mean --max-length?')
    expect(run(['show', 'code-reveiw', ...roots, '--quiet']).stderr).toContain(
      `unknown skill "code-reveiw"; did you mean code-review? (see: dsh-skills list ${roots.join(' ')})`,
    )
  })

  it('rejects flags that do not apply to the command', () => {
    for (const [args, message] of [
      [['doctor', '--poll'], 'doctor does not take --poll (see: dsh-skills help doctor)'],
      [['list', '--poll'], 'list does not take --poll'],
      [['doctor', '--verbose'], 'doctor does not take --verbose'],
      [['demo', '--skill-dir', '.'], 'demo does not take --skill-dir'],
    ] as const) {
      const result = run([...args])
      expectOneLineError(result, 2)
      expect(result.stderr).toContain(message)
    }
  })

  it('takes the opt-in roots: --nested-roots, --compat, --provider-name, --no-default-roots', () => {
    const base = temps.make()
    const repo = path.join(base, 'repo')
    const web = path.join(repo, 'packages', 'web')
    const home = path.join(base, 'home')
    const skillText = (name: string, description: string) => `---\nname: ${name}\ndescription: ${description}\n---\nBody.\n`
    fs.mkdirSync(path.join(repo, '.git'), { recursive: true })
    write(path.join(repo, '.dsh/skills/review.md'), skillText('review', 'Repository review.'))
    write(path.join(web, '.agents/skills/review.md'), skillText('review', 'Web review.'))
    write(path.join(repo, '.claude/skills/pr-text/SKILL.md'), skillText('pr-text', 'PR text.'))
    write(path.join(home, '.claude/skills/mine.md'), skillText('mine', 'From ~/.claude.'))
    write(path.join(base, 'codex/skills/codex-one.md'), skillText('codex-one', 'From $CODEX_HOME.'))
    const options = { env: { HOME: home, USERPROFILE: home, CODEX_HOME: path.join(base, 'codex') } }
    const homes = ['--dsh-home', path.join(home, '.dsh'), '--agents-home', path.join(home, '.agents'), '--cwd', web]
    const listed = (args: string[]) => {
      const result = run(['list', '--json', '--quiet', ...args], options)
      expect(result.code, result.stderr).toBe(0)
      return JSON.parse(result.stdout).skills.map((s: { name: string; source: string; provider: string }) => [s.name, s.source, s.provider])
    }
    expect(listed(homes)).toEqual([['review', 'project-dsh', 'local']])
    expect(listed([...homes, '--nested-roots', '--compat', 'claude,codex', '--provider-name', 'mono'])).toEqual([
      ['codex-one', 'user-codex', 'mono'],
      ['mine', 'user-claude', 'mono'],
      ['pr-text', 'project-claude', 'mono'],
      ['review', 'project-agents', 'mono'],
    ])
    expect(listed(['--cwd', web, '--no-default-roots', '--compat', 'codex', '--compat', 'claude'])).toEqual([
      ['codex-one', 'user-codex', 'local'],
      ['mine', 'user-claude', 'local'],
      ['pr-text', 'project-claude', 'local'],
    ])
    const doctor = run(['doctor', ...homes, '--nested-roots', '--compat', 'claude'], options)
    expect(doctor.code, doctor.stderr).toBe(0)
    for (const line of [
      `project-agents (rank 37.5)  ${path.join(web, '.agents/skills')}`,
      `project-dsh (rank 50)  ${path.join(repo, 'packages/.dsh/skills')}  [missing]`,
      `project-claude (rank 225)  ${path.join(repo, '.claude/skills')}`,
      `user-claude (rank 550)  ${path.join(home, '.claude/skills')}`,
    ]) {
      expect(doctor.stdout).toContain(line)
    }
    expect(doctor.stdout).toMatch(/shadowed +review +review\.md\n +by .*packages\/web\/\.agents\/skills\/review\.md \[project-agents\]/)
    for (const [args, code, message] of [
      [['--compat', 'clade'], 2, '--compat takes claude, codex (got "clade"); did you mean claude?'],
      [['--no-default-roots', '--nested-roots'], 2, '--nested-roots has no effect with --no-default-roots'],
      [['--no-default-roots', '--dsh-home', home], 2, '--dsh-home has no effect with --no-default-roots'],
      [['--provider-name', 'runtime'], 2, '--provider-name: must be a non-empty string other than "runtime"'],
    ] as const) {
      const result = run(['list', '--cwd', web, ...args], options)
      expectOneLineError(result, code)
      expect(result.stderr).toContain(message)
    }
    const help = run(['--help']).stdout
    for (const flag of ['--nested-roots', '--compat LIST', '--provider-name NAME', '--no-default-roots']) expect(help).toContain(flag)
    const listHelp = run(['help', 'list']).stdout.replace(/\n/g, ' ')
    for (const flag of ['--nested-roots', '--compat', '--provider-name', '--no-default-roots']) expect(listHelp).toContain(flag)
  })

  it('warns about directory options that name no directory, and goes on', () => {
    const missing = path.join(ws, 'no-such-dir')
    const file = path.join(ws, 'src', 'checkout.mjs')
    const result = run(['list', ...roots, '--skill-dir', missing, '--bundled-dir', file, '--dsh-home', missing])
    expect(result.code).toBe(0)
    expect(result.stderr).toContain(`dsh-skills: warning: --skill-dir ${missing}: no such directory\n`)
    // A root flag naming a file: the library's own warning, once.
    expect(result.stderr).not.toContain(`--bundled-dir ${file}: not a directory`)
    expect(result.stderr.split(`skill root ${file} is a file, not a directory`)).toHaveLength(2)
    expect(result.stderr).toContain(`dsh-skills: warning: --dsh-home ${missing}: no such directory\n`)
    expect(result.stdout).toContain('code-review')
    expect(run(['list', ...roots, '--skill-dir', missing, '--quiet']).stderr).toBe('')
  })
})

describe('dsh-skills explain and overrides', () => {
  it('explains which copy of a skill won and why the others lost', () => {
    const result = run(['explain', 'code-review', '--quiet', ...roots])
    expect(result.code).toBe(0)
    const lines = result.stdout.trimEnd().split('\n')
    expect(lines[0]).toBe('code-review: 2 candidates; the project-dsh copy from provider local wins')
    expect(lines[2].split(/\s{2,}/)).toEqual(['OUTCOME', 'PROVIDER', 'SOURCE', 'RANK', 'INVOCATION', 'WHERE'])
    expect(lines[3].split(/\s{2,}/)).toEqual(['won', 'local', 'project-dsh', '100', 'model, user', '.dsh/skills/code-review/SKILL.md'])
    expect(lines[4].split(/\s{2,}/)).toEqual(['lost: rank', 'local', 'project-agents', '200', 'model, user', '.agents/skills/code-review/SKILL.md'])
    expect(lines.at(-1)).toBe('lost: rank   the winner has a lower rank')
    const json = JSON.parse(run(['explain', 'code-review', '--json', '--quiet', ...roots]).stdout)
    expect(json).toMatchObject({
      name: 'code-review',
      complete: true,
      winner: { provider: 'local', source: 'project-dsh', rank: 100, path: path.join(ws, '.dsh', 'skills', 'code-review', 'SKILL.md') },
      losers: [{ source: 'project-agents', rank: 200, reason: 'rank' }],
    })
    const unknown = run(['explain', 'code-reveiw', '--quiet', ...roots])
    expectOneLineError(unknown, 1)
    expect(unknown.stderr).toContain('no provider lists a skill "code-reveiw"; did you mean code-review?')
    expectOneLineError(run(['explain', 'Code', ...roots]), 2)
    expectOneLineError(run(['explain', ...roots]), 2)
  })

  it('applies --off, --user-only, --model-only and --on in command-line order', () => {
    const table = (args: string[]) => {
      const result = run(['list', '--quiet', ...roots, ...args])
      expect(result.code).toBe(0)
      const rows = result.stdout.trimEnd().split('\n').slice(1)
      return Object.fromEntries(rows.map((row) => [row.split(/\s+/)[0], row.split(/\s{2,}/).slice(1)]))
    }
    // One copy switched off: the lower-ranked copy wins; every copy: none.
    expect(table(['--off', 'project-dsh:code-review'])['code-review']).toEqual(['project-agents', 'local', 'model, user'])
    expect(table(['--off', 'code-review'])['code-review']).toBeUndefined()
    expect(table(['--off', 'user-dsh:code-review'])['code-review']).toEqual(['project-dsh', 'local', 'model, user'])
    const globbed = table(['--off', 'code-*', '--off', 'db-*'])
    expect(globbed['code-review']).toBeUndefined()
    expect(globbed['db-migrations']).toBeUndefined()
    expect(globbed['commit-message']).toEqual(['user-dsh', 'local', 'model, user'])
    // The last matching flag wins.
    expect(table(['--off', 'code-*', '--on', 'code-review'])['code-review']).toEqual(['project-dsh', 'local', 'model, user'])
    const rewritten = table(['--user-only', 'debugging', '--model-only', 'local-setup', '--user-only', 'release-*', '--on', 'release-notes'])
    expect(rewritten.debugging).toEqual(['user-agents', 'local', 'user'])
    expect(rewritten['local-setup']).toEqual(['project-agents', 'local', 'model'])
    expect(rewritten['release-notes']).toEqual(['project-dsh', 'local', 'model, user'])

    const explained = run(['explain', 'code-review', '--quiet', ...roots, '--off', 'code-*'])
    expect(explained.code).toBe(0)
    expect(explained.stdout).toContain('code-review: 2 candidates, all switched off: no skill of this name is listed')
    expect(explained.stdout).toMatch(/^off \(--off code-\*\)\s+local\s+project-dsh\s+100/m)
  })

  it('leaves user-only skills out of the catalog and rejects a bad override in one line', () => {
    const catalog = JSON.parse(run(['catalog', '--json', '--quiet', ...roots]).stdout)
    const userOnly = JSON.parse(run(['catalog', '--json', '--quiet', ...roots, '--user-only', 'debugging']).stdout)
    expect(catalog.entries).toContain('`debugging`')
    expect(userOnly.entries).not.toContain('`debugging`')
    expect(userOnly.entries).toBe(catalog.entries.split('\n').filter((line: string) => !line.includes('`debugging`')).join('\n'))
    expect(userOnly.digest).not.toBe(catalog.digest)
    const show = run(['show', 'debugging', '--quiet', ...roots, '--user-only', 'debugging'])
    expect(show.code).toBe(0)
    expect(show.stderr).toContain('model invocation is disabled for "debugging"')
    for (const [args, message] of [
      [['--off', 'Code_Review'], '--off Code_Review: name must be a kebab-case skill name, or a glob of one with * (got "Code_Review")'],
      [['--user-only', 'a?'], '--user-only a?: name must be'],
      [['--model-only', 'project-dsh:'], '--model-only project-dsh:: name must be a non-empty string (got an empty string)'],
      [['--off'], '--off needs a value ([SOURCE:]NAME)'],
    ] as const) {
      const result = run(['list', ...roots, ...args])
      expectOneLineError(result, 2)
      expect(result.stderr).toContain(message)
    }
    const doctor = run(['doctor', ...roots, '--off', 'Code_Review'])
    expectOneLineError(doctor, 2)
    expect(doctor.stderr).toContain('--off Code_Review: name must be')
  })
})

describe('dsh-skills catalog budget', () => {
  it('renders the budgeted catalog with --budget and --pin, prints its report, and doctor warns when the budget cuts', () => {
    const catalog = require('../lib/catalog.js')
    const snapshot = JSON.parse(run(['list', '--json', '--quiet', ...roots]).stdout)
    const options = { budget: 300, pinned: ['release-notes'] }
    const expected = catalog.renderCatalog(snapshot.skills, options)
    expect(expected.report.full).toBeLessThan(expected.report.total)

    const json = JSON.parse(run(['catalog', '--json', '--quiet', ...roots, '--budget', '300', '--pin', 'release-notes']).stdout)
    expect(json).toEqual({
      complete: true,
      message: catalog.renderCatalogMessage(snapshot.skills, options),
      entries: expected.entries,
      digest: expected.digest,
      report: expected.report,
    })
    expect(json.entries).toContain(snapshot.skills.find((s: { name: string }) => s.name === 'release-notes').description)

    const text = run(['catalog', '--quiet', ...roots, '--budget', '300', '--pin', 'release-notes'])
    expect(text.code).toBe(0)
    const { total, full } = expected.report
    expect(text.stdout).toContain(`${json.message}\n\ndigest: ${json.digest}\n`)
    // The budget line, then one line per source (nearest first) saying what it cut.
    const sources = Object.keys(expected.report.bySource)
    expect(sources.length).toBeGreaterThan(1)
    expect(text.stdout).toMatch(
      new RegExp(`\nbudget 300: ${total} skills, ${full} in full, .*; entries ${expected.report.chars} characters\n${sources.map((s) => `  ${s}: [^\n]+\n`).join('')}$`),
    )

    // Without --budget, nothing changes: no report, the default bytes.
    const plain = JSON.parse(run(['catalog', '--json', '--quiet', ...roots]).stdout)
    expect(plain).not.toHaveProperty('report')
    expect(plain.digest).toBe(catalog.catalogDigest(snapshot.skills))

    const doctor = run(['doctor', ...roots, '--budget', '300'])
    expect(doctor.code).toBe(1) // the example's broken files, not the budget
    expect(doctor.stdout).toMatch(/\nwarning: the catalog does not fit the budget 300: /)
    const fits = run(['doctor', ...roots, '--budget', '100000', '--json'])
    expect(JSON.parse(fits.stdout).budget).toMatchObject({ budget: 100000, cuts: false, report: { full: total, total } })

    const unknown = run(['catalog', '--quiet', ...roots, '--budget', '300', '--pin', 'release-note'])
    expect(unknown.code).toBe(0)
    const warned = run(['catalog', ...roots, '--budget', '300', '--pin', 'release-note'])
    expect(warned.stderr).toContain('--pin release-note: no model-invocable skill of that name; did you mean release-notes?')
    expect(unknown.stderr).toBe('')

    for (const [args, message] of [
      [['catalog', '--budget', '0'], '--budget must be a positive integer (got "0")'],
      [['catalog', '--budget', '1e3'], '--budget must be a positive integer (got "1e3")'],
      [['catalog', '--pin', 'release-notes'], '--pin has no effect without --budget'],
      [['list', '--budget', '300'], 'list does not take --budget'],
    ] as const) {
      const result = run([...args, ...roots])
      expectOneLineError(result, 2)
      expect(result.stderr).toContain(message)
    }
  })
})

/** An in-memory stream, optionally posing as a terminal of `columns` columns. */
function stream(tty?: { columns: number }) {
  const chunks: string[] = []
  return {
    isTTY: tty !== undefined,
    columns: tty?.columns,
    write(chunk: string) {
      chunks.push(String(chunk))
      return true
    },
    text: () => chunks.join(''),
  }
}

async function runInProcess(args: string[], env: NodeJS.ProcessEnv, tty?: { columns: number }) {
  const { main } = require('../lib/cli/index.js') as {
    main(argv: string[], io: object): Promise<number>
  }
  const stdout = stream(tty)
  const stderr = stream(tty)
  const code = await main(args, { stdout, stderr, env: { ...env } })
  return { code, stdout: stdout.text(), stderr: stderr.text() }
}

describe('dsh-skills on a terminal', () => {
  const ESC = '\u001b'

  it('colours verdicts only on a terminal, honouring NO_COLOR and FORCE_COLOR', async () => {
    const plain = await runInProcess(['doctor', ...roots, '--cwd', ws], {})
    expect(plain.stdout).not.toContain(ESC)
    const tty = await runInProcess(['doctor', ...roots, '--cwd', ws], {}, { columns: 200 })
    expect(tty.stdout).toContain(`${ESC}[32mloaded`)
    expect(tty.stdout).toContain(`${ESC}[33mshadowed`)
    expect(tty.stdout).toContain(`${ESC}[31mbroken`)
    const noColor = await runInProcess(['doctor', ...roots, '--cwd', ws], { NO_COLOR: '1' }, { columns: 200 })
    expect(noColor.stdout).not.toContain(ESC)
    const piped = run(['doctor', ...roots])
    expect(piped.stdout).not.toContain(ESC)
    const forcedColor = spawnSync(process.execPath, [bin, 'doctor', ...roots], {
      cwd: ws,
      env: { ...env(), FORCE_COLOR: '1' },
      encoding: 'utf8',
    })
    expect(forcedColor.stdout).toContain(`${ESC}[32mloaded`)
  })

  it('fits list and doctor lines to the terminal width with an ellipsis', async () => {
    const dir = temps.make()
    const long = `a-very-long-skill-name-${'x'.repeat(40)}` // 63 characters: a name may have 64
    write(path.join(dir, long, 'SKILL.md'), `---\nname: ${long}\ndescription: Long.\n---\n`)
    write(path.join(dir, 'short', 'SKILL.md'), '---\nname: short\ndescription: Short.\n---\n')
    const args = ['--skill-dir', dir, '--dsh-home', dir, '--agents-home', dir, '--cwd', dir]
    const narrow = await runInProcess(['list', ...args], { NO_COLOR: '1' }, { columns: 50 })
    const lines = narrow.stdout.trimEnd().split('\n')
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(50)
    expect(lines.find((line) => line.startsWith('a-very-long'))).toMatch(/^a-very-long-skill-\S*…  custom  local  +model, user$/)
    expect(lines.find((line) => line.startsWith('short'))).toMatch(/^short\s+custom\s+local\s+model, user$/)
    const doctor = await runInProcess(['doctor', ...args], { NO_COLOR: '1' }, { columns: 60 })
    const fileLines = doctor.stdout.split('\n').filter((line) => line.startsWith('    loaded'))
    expect(fileLines).toHaveLength(2)
    for (const line of fileLines) expect(line.length, line).toBeLessThanOrEqual(60)
    expect(fileLines.join('\n')).toContain('…')
    // Not a terminal: nothing is cut.
    const piped = await runInProcess(['list', ...args], {})
    expect(piped.stdout).toContain(long)
  })

  it('shows control characters from skill files as visible escapes; --json stays byte-exact', async () => {
    const catalogLib = require('../lib/catalog.js')
    const dir = temps.make()
    const hostile = `Clears the screen ${ESC}[2J${ESC}]0;pwned\u0007 and \u009b31m C1, \u0000\u007f done.`
    write(path.join(dir, 'evil', 'SKILL.md'), `---\nname: evil\ndescription: "${hostile.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}"\n---\nBody ${ESC}[31mred${ESC}[0m.\rX\n`)
    write(path.join(dir, `bad${ESC}[2Jname.md`), '---\nname: Bad\ndescription: x\n---\n')
    const args = ['--skill-dir', dir, '--dsh-home', dir, '--agents-home', dir, '--cwd', dir]
    const raw = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/
    for (const command of [['catalog'], ['show', 'evil'], ['doctor'], ['list']]) {
      const result = await runInProcess([...command, ...args], {})
      expect(result.stdout, command[0]).not.toMatch(raw)
      expect(result.stderr, command[0]).not.toMatch(raw)
    }
    const catalog = await runInProcess(['catalog', ...args], {})
    expect(catalog.stdout).toContain('Clears the screen \\x1b[2J\\x1b]0;pwned\\x07 and \\u009b31m C1, \\x00\\x7f done.')
    const show = await runInProcess(['show', 'evil', ...args], {})
    expect(show.stdout).toContain('Body \\x1b[31mred\\x1b[0m.\\x0dX')
    const doctor = await runInProcess(['doctor', ...args], {})
    expect(doctor.stdout).toContain('bad\\x1b[2Jname.md')
    const list = await runInProcess(['list', '--verbose', ...args], {})
    expect(list.stderr).toContain('bad\\x1b[2Jname.md skipped')
    // JSON: exactly the library's text.
    const json = JSON.parse((await runInProcess(['catalog', '--json', ...args], {})).stdout)
    const snapshot = JSON.parse((await runInProcess(['list', '--json', '--quiet', ...args], {})).stdout)
    expect(snapshot.skills[0].description).toBe(hostile)
    expect(json.message).toBe(catalogLib.renderCatalogMessage(snapshot.skills))
    expect(json.message).toContain(`${ESC}[2J`)
  })
})

describe('dsh-skills watch --json', () => {
  it('prints one JSON object per catalog change: digest and added, removed, changed names', async () => {
    const catalogLib = require('../lib/catalog.js')
    const project = temps.make()
    fs.mkdirSync(path.join(project, '.git'))
    const skills = path.join(project, '.agents', 'skills')
    write(path.join(skills, 'first', 'SKILL.md'), '---\nname: first\ndescription: First skill.\n---\nBody.\n')
    write(path.join(skills, 'stays.md'), '---\nname: stays\ndescription: Unchanged.\n---\nBody.\n')
    const empty = temps.make()
    const { child, out, exited, until } = spawnWatch(project, ['--json', '--dsh-home', empty, '--agents-home', empty], env())
    const events = () => out.stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line))
    const nth = async (n: number) => {
      await until(() => events().length >= n, `event ${n}`)
      return events()[n - 1]
    }
    const skill = (name: string, description: string) => ({
      name,
      description,
      invocation: { modelInvocable: true, userInvocable: true },
      source: 'project-agents',
      provider: 'local',
    })
    // Replace files atomically, so no watcher sees a half-written one.
    const replace = (file: string, text: string) => {
      write(`${file}.tmp`, text)
      fs.renameSync(`${file}.tmp`, file)
    }
    try {
      expect(await nth(1)).toEqual({
        kind: 'initial',
        digest: catalogLib.catalogDigest([skill('first', 'First skill.'), skill('stays', 'Unchanged.')]),
        added: ['first', 'stays'],
        removed: [],
        changed: [],
        broken: [],
        bodyChanged: [],
      })
      replace(path.join(skills, 'second.md'), '---\nname: second\ndescription: Second skill.\n---\nBody.\n')
      expect(await nth(2)).toMatchObject({ kind: 'replacement', added: ['second'], removed: [], changed: [] })
      replace(path.join(skills, 'first', 'SKILL.md'), '---\nname: first\ndescription: First, reworded.\n---\nBody.\n')
      expect(await nth(3)).toMatchObject({ kind: 'replacement', added: [], removed: [], changed: ['first'] })
      fs.rmSync(path.join(skills, 'second.md'))
      const last = await nth(4)
      expect(last).toEqual({
        kind: 'replacement',
        digest: catalogLib.catalogDigest([skill('first', 'First, reworded.'), skill('stays', 'Unchanged.')]),
        added: [],
        removed: ['second'],
        changed: [],
        broken: [],
        bodyChanged: [],
      })
      // The body alone: the catalog stays, the change is named.
      replace(path.join(skills, 'stays.md'), '---\nname: stays\ndescription: Unchanged.\n---\nA new body.\n')
      expect(await nth(5)).toEqual({ kind: 'unchanged', digest: last.digest, added: [], removed: [], changed: [], broken: [], bodyChanged: ['stays'] })
      // A skill that breaks: removed, with its file and why.
      replace(path.join(skills, 'first', 'SKILL.md'), '---\nname: first\ndescription: First.\nuser-invocable: sometimes\n---\nBody.\n')
      expect(await nth(6)).toMatchObject({
        kind: 'replacement',
        added: [],
        removed: ['first'],
        changed: [],
        broken: [{ name: 'first', path: path.join(skills, 'first', 'SKILL.md'), reason: expect.stringContaining('`user-invocable` must be a boolean') }],
        bodyChanged: [],
      })
    } finally {
      child.kill('SIGINT')
    }
    expect(await exited).toBe(130)
    for (const line of out.stdout.trimEnd().split('\n')) expect(line).toMatch(/^\{.*\}$/)
  })
})

describe('DSH_SKILL_LOG', () => {
  it('logs discovery at debug (roots, entries, skipped with reason, time), without ANSI codes when not a terminal', () => {
    const result = spawnSync(process.execPath, [bin, 'list', '--quiet', ...roots], {
      cwd: ws,
      env: { ...env(), DSH_SKILL_LOG: 'debug' },
      encoding: 'utf8',
      timeout: 30_000,
    })
    expect(result.status).toBe(0)
    expect(result.stderr).not.toContain('\u001b')
    expect(result.stderr).toMatch(/DEBUG skill_core::local::discover: skill root scanned root=\S+ source="project-dsh" status=Scanned entries=\d+/)
    expect(result.stderr).toMatch(/skill entry skipped path=\S+perf-profile\.md reason=frontmatter field `description` is required/)
    expect(result.stderr).toMatch(/skill discovery finished roots=\d+ entries=\d+ complete=true elapsed_ms=[\d.]+/)
  })
})
