// The package as a newcomer gets it: `npm pack`, install the tarball into an
// empty project, then use it from ESM, CommonJS and the `dsh-skills` bin.
import { execFileSync, spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const root = path.resolve(__dirname, '..')
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'

/** The environment of a user's shell: none of the npm variables of a surrounding `npm test`. */
function userEnv(home: string) {
  const env: NodeJS.ProcessEnv = {}
  for (const [key, value] of Object.entries(process.env)) {
    if (/^npm_/i.test(key) || key === 'INIT_CWD' || key === 'DSH_SKILL_NATIVE_SKIP_INSTALL') continue
    if (key.startsWith('DSH_') || key.startsWith('VITEST') || key === 'NODE_OPTIONS') continue
    env[key] = value
  }
  env.HOME = home
  env.USERPROFILE = home
  // Reuse the machine's npm cache: the tarball has no dependencies to fetch.
  env.npm_config_cache = path.join(os.homedir(), '.npm')
  env.npm_config_update_notifier = 'false'
  return env
}

let base: string
let project: string
let env: NodeJS.ProcessEnv
let files: string[]

beforeAll(() => {
  const addons = fs.readdirSync(root).filter((file) => file.endsWith('.node'))
  if (addons.length === 0) throw new Error('no native addon next to package.json: run `npm run build` first')
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-pack-')))
  const home = path.join(base, 'home')
  fs.mkdirSync(home)
  env = userEnv(home)
  const packed = JSON.parse(
    execFileSync(npm, ['pack', '--json', '--pack-destination', base], { cwd: root, env, encoding: 'utf8' }),
  )
  files = packed[0].files.map((file: { path: string }) => file.path)
  const tarball = path.join(base, packed[0].filename)
  project = path.join(base, 'consumer')
  fs.mkdirSync(project)
  fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true }))
  execFileSync(npm, ['install', tarball, '--no-audit', '--no-fund', '--offline'], {
    cwd: project,
    env,
    encoding: 'utf8',
    stdio: 'pipe',
  })
}, 120_000)

afterAll(() => {
  if (base) fs.rmSync(base, { recursive: true, force: true })
})

function node(args: string[]) {
  const result = spawnSync(process.execPath, args, { cwd: project, env, encoding: 'utf8', timeout: 30_000 })
  return { code: result.status, stdout: result.stdout, stderr: result.stderr }
}

describe('the packed package', () => {
  it('ships the entry points, typings, bin and addon, and not the tests or examples', () => {
    for (const file of [
      'index.js',
      'index.mjs',
      'index.d.ts',
      'cordis.mjs',
      'lib/cordis.js',
      'lib/cli.js',
      'types/cordis.d.ts',
      'bin/dsh-skills.js',
      'binding.js',
      'scripts/install.js',
      'package.json',
    ]) {
      expect(files).toContain(file)
    }
    expect(files.some((file) => file.endsWith('.node'))).toBe(true)
    expect(files.some((file) => file.startsWith('__test__/') || file.startsWith('examples/'))).toBe(false)
  })

  it('ships the Rust sources as a loadable cargo workspace (for platforms without a prebuilt addon)', () => {
    for (const file of ['Cargo.toml', 'Cargo.lock', 'crates/skill-core/src/lib.rs', 'crates/skill-napi/src/lib.rs', 'crates/skill-napi/build.rs']) {
      expect(files).toContain(file)
    }
    const installed = path.join(project, 'node_modules', '@deepseek-ai', 'dsh-skill-native')
    const metadata = spawnSync('cargo', ['metadata', '--no-deps', '--offline', '--format-version', '1'], {
      cwd: installed,
      encoding: 'utf8',
      timeout: 60_000,
    })
    expect(metadata.stderr).not.toMatch(/error/)
    expect(metadata.status).toBe(0)
    const members = JSON.parse(metadata.stdout).packages.map((p: { name: string }) => p.name).sort()
    expect(members).toEqual(['skill-core', 'skill-napi'])
  })

  it('installs without the optional peers', () => {
    const installed = path.join(project, 'node_modules')
    expect(fs.existsSync(path.join(installed, '@deepseek-ai', 'dsh-skill-native', 'package.json'))).toBe(true)
    expect(fs.existsSync(path.join(installed, 'cordis'))).toBe(false)
  })

  it('imports from ESM', () => {
    const script = `
      import { SkillRegistry, isSkillName } from '@deepseek-ai/dsh-skill-native'
      const registry = new SkillRegistry()
      registry.register({ name: 'hello', description: 'Say hello.', content: 'Hi.' })
      const skills = await registry.list()
      console.log(JSON.stringify([isSkillName('hello'), skills.map((s) => s.name)]))
    `
    const result = node(['--input-type=module', '-e', script])
    expect(result.stderr).toBe('')
    expect(JSON.parse(result.stdout)).toEqual([true, ['hello']])
  })

  it('requires from CommonJS', () => {
    const script = `
      const { SkillRegistry } = require('@deepseek-ai/dsh-skill-native')
      const registry = new SkillRegistry()
      registry.register({ name: 'hello', description: 'Say hello.', content: 'Hi.' })
      registry.get('hello').then((skill) => console.log(skill.content))
    `
    const result = node(['-e', script])
    expect(result.stderr).toBe('')
    expect(result.stdout.trim()).toBe('Hi.')
  })

  it('says what is missing when the Cordis entry is used without cordis', () => {
    const result = node(['-e', "require('@deepseek-ai/dsh-skill-native/cordis')"])
    expect(result.code).not.toBe(0)
    expect(result.stderr).toContain("Cannot find module 'cordis'")
  })

  it('runs dsh-skills from the installed bin', () => {
    const bin = path.join(project, 'node_modules', '.bin', process.platform === 'win32' ? 'dsh-skills.cmd' : 'dsh-skills')
    const help = spawnSync(bin, ['--help'], { cwd: project, env, encoding: 'utf8', timeout: 30_000 })
    expect(help.status).toBe(0)
    expect(help.stdout).toMatch(/^Usage: dsh-skills <command>/)
    const skills = path.join(project, '.agents', 'skills')
    fs.mkdirSync(path.join(project, '.git'))
    fs.mkdirSync(skills, { recursive: true })
    fs.writeFileSync(path.join(skills, 'greet.md'), '---\nname: greet\ndescription: Greet the user.\n---\nSay hi.\n')
    const catalog = spawnSync(bin, ['catalog'], { cwd: project, env, encoding: 'utf8', timeout: 30_000 })
    expect(catalog.stderr).toBe('')
    expect(catalog.status).toBe(0)
    expect(catalog.stdout).toContain('- `greet`: Greet the user.')
  })
})
