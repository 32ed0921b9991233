import { spawn, spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import { createRequire } from 'node:module'
import * as path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { tempDirs, write } from './helpers'

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
  return clean
}

function run(args: string[], options: { cwd?: string } = {}) {
  const result = spawnSync(process.execPath, [bin, ...args], {
    cwd: options.cwd ?? ws,
    env: env(),
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
    for (const command of ['list', 'catalog', 'show NAME', 'doctor', 'watch', 'demo']) {
      expect(help.stdout).toContain(`  ${command}`)
    }
    expect(run(['help']).stdout).toBe(help.stdout)
    const bare = run([])
    expect(bare.code).toBe(2)
    expect(bare.stderr).toBe(help.stdout)
    const version = run(['--version'])
    expect(version.stdout.trim()).toBe(require('../package.json').version)
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
    // The broken files are reported as warnings on stderr, unless --quiet.
    expect(result.stderr).toMatch(/warning: .*perf-profile\.md/)
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

/** Whether the local provider watches (it reports host mutations as invalidations). */

describe('dsh-skills watch', () => {
  it('prints a replacement catalog when the catalog changes, until SIGINT', async () => {
    const project = temps.make()
    fs.mkdirSync(path.join(project, '.git'))
    const skills = path.join(project, '.agents', 'skills')
    fs.mkdirSync(path.join(skills, 'first'), { recursive: true })
    fs.writeFileSync(path.join(skills, 'first', 'SKILL.md'), '---\nname: first\ndescription: First skill.\n---\nBody.\n')
    const empty = temps.make()
    const child = spawn(process.execPath, [bin, 'watch', '--dsh-home', empty, '--agents-home', empty], {
      cwd: project,
      env: env(),
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk) => (stdout += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk))
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
    const until = async (condition: () => boolean, what: string) => {
      const deadline = Date.now() + 15_000
      while (!condition()) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\nstdout:\n${stdout}\nstderr:\n${stderr}`)
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
    }
    try {
      await until(() => stdout.includes('# initial catalog'), 'the initial catalog')
      expect(stdout).toContain('`first`')
      fs.writeFileSync(path.join(skills, 'second.md'), '---\nname: second\ndescription: Second skill.\n---\nBody.\n')
      await until(() => stdout.includes('# replacement catalog'), 'a replacement catalog')
      await until(() => /# replacement catalog[^]*`second`/.test(stdout), 'the new skill')
      const count = stdout.split('# replacement catalog').length
      fs.rmSync(path.join(skills, 'first'), { recursive: true })
      await until(() => stdout.split('# replacement catalog').length > count, 'the removal')
      expect(stdout.slice(stdout.lastIndexOf('# replacement catalog'))).not.toContain('`first`')
    } finally {
      child.kill('SIGINT')
    }
    expect(await exited).toBe(0)
  })
})
