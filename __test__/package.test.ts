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
      'lib/cli/index.js',
      'types/cordis.d.ts',
      'bin/dsh-skills.js',
      'binding.js',
      'scripts/install.js',
      'package.json',
      'LICENSE',
    ]) {
      expect(files).toContain(file)
    }
    const manifest = JSON.parse(fs.readFileSync(path.join(project, 'node_modules', '@deepseek-ai', 'dsh-skill-native', 'package.json'), 'utf8'))
    expect(manifest.license).toBe('MIT')
    expect(manifest.repository).toMatchObject({ type: 'git', url: expect.stringMatching(/^git\+https:\/\//) })
    expect(files.some((file) => file.endsWith('.node'))).toBe(true)
    expect(files.some((file) => file.startsWith('__test__/') || file.startsWith('examples/'))).toBe(false)
    // Every guide the README links to travels with it.
    const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8')
    const guides = [...new Set([...readme.matchAll(/\]\((docs\/[\w-]+\.md)(?:#[^)]*)?\)/g)].map((m) => m[1]))]
    expect(guides.length).toBeGreaterThan(5)
    for (const guide of guides) expect(files).toContain(guide)
  })

  it('ships the Rust sources as a loadable cargo workspace (for platforms without a prebuilt addon)', () => {
    for (const file of [
      'Cargo.toml',
      'Cargo.lock',
      'crates/skill-core/src/lib.rs',
      'crates/skill-napi/src/lib.rs',
      'crates/skill-napi/build.rs',
      'crates/skill-embed/src/lib.rs',
      // The vendored, patched YAML parser the workspace builds with, with its licence and patch notes.
      'crates/saphyr-parser/Cargo.toml',
      'crates/saphyr-parser/src/lib.rs',
      'crates/saphyr-parser/LICENSE',
      'crates/saphyr-parser/PATCHES.md',
    ]) {
      expect(files).toContain(file)
    }
    const installed = path.join(project, 'node_modules', '@deepseek-ai', 'dsh-skill-native')
    const metadata = spawnSync('cargo', ['metadata', '--no-deps', '--offline', '--locked', '--format-version', '1'], {
      cwd: installed,
      encoding: 'utf8',
      timeout: 60_000,
    })
    expect(metadata.stderr).not.toMatch(/error/)
    expect(metadata.status).toBe(0)
    const members = JSON.parse(metadata.stdout).packages.map((p: { name: string }) => p.name).sort()
    expect(members).toEqual(['skill-core', 'skill-embed', 'skill-napi'])
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

  it('ships an addon without the test-only exports', () => {
    const script = `
      const dir = require('node:path').dirname(require.resolve('@deepseek-ai/dsh-skill-native/package.json'))
      const binding = require(dir + '/binding.js')
      console.log(typeof binding.isSkillName, Object.keys(binding).filter((key) => key.endsWith('ForTest')).join(',') || 'none')
    `
    const result = node(['-e', script])
    expect(result.stderr).toBe('')
    expect(result.stdout.trim()).toBe('function none')
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
    expect(result.stderr).toContain('cordis is not installed here: install the Cordis peers: npm install cordis schemastery')
  })

  it('says which framework package is missing for each Cordis entry', () => {
    for (const [entry, missing] of [
      ['cordis', 'cordis'],
      ['filesystem', 'cordis'],
      ['harness', '@deepseek-ai/cordis'],
      ['harness/filesystem', '@deepseek-ai/cordis'],
    ]) {
      const cjs = node(['-e', `require('@deepseek-ai/dsh-skill-native/${entry}')`])
      expect(cjs.code, entry).not.toBe(0)
      expect(cjs.stderr, entry).toContain(`Cannot find module '${missing}'`)
      const esm = node(['--input-type=module', '-e', `await import('@deepseek-ai/dsh-skill-native/${entry}')`])
      expect(esm.code, entry).not.toBe(0)
      expect(esm.stderr, entry).toContain(`Cannot find module '${missing}'`)
    }
  })

  it('runs dsh-skills from the installed bin', () => {
    const bin = path.join(project, 'node_modules', '.bin', process.platform === 'win32' ? 'dsh-skills.cmd' : 'dsh-skills')
    const help = spawnSync(bin, ['--help'], { cwd: project, env, encoding: 'utf8', timeout: 30_000 })
    expect(help.status).toBe(0)
    expect(help.stdout).toMatch(/^Usage: dsh-skills <command>/)
    // demo tours the repository's examples: not listed where it cannot run.
    expect(help.stdout).not.toContain('  demo')
    const demo = spawnSync(bin, ['demo'], { cwd: project, env, encoding: 'utf8', timeout: 30_000 })
    expect(demo.status).toBe(1)
    expect(demo.stderr).toBe('dsh-skills: the example workspace is part of the source repository only (examples/workspace)\n')
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

// The install step on a platform without a prebuilt addon, run on the installed
// tarball's own files. A stand-in `cargo` records how it was called and
// produces the library by copying the addon built for the tests, so the test
// checks the install step itself (progress line, temporary target directory,
// cleanup, messages) in a second instead of a multi-minute compile.
describe.skipIf(process.platform === 'win32')('install from source', () => {
  const FAKE_CARGO = `#!/usr/bin/env node
const fs = require('node:fs')
const path = require('node:path')
const args = process.argv.slice(2)
if (args[0] === '--version') { console.log('cargo 1.0.0 (stand-in)'); process.exit(0) }
const targetDir = args[args.indexOf('--target-dir') + 1]
fs.appendFileSync(process.env.FAKE_CARGO_LOG, JSON.stringify({ args, cwd: process.cwd() }) + '\\n')
fs.mkdirSync(path.join(targetDir, 'release', 'deps'), { recursive: true })
fs.writeFileSync(path.join(targetDir, 'release', 'deps', 'libbig.rlib'), Buffer.alloc(1 << 20))
if (process.env.FAKE_CARGO_FAIL) { console.error('error: could not compile'); process.exit(101) }
fs.copyFileSync(process.env.FAKE_CARGO_ADDON, path.join(targetDir, 'release', 'libskill_napi.so'))
`
  const PROGRESS = '@deepseek-ai/dsh-skill-native: building the native addon from source, this takes a few minutes\n'
  const BUILT = /^@deepseek-ai\/dsh-skill-native: built the native addon in (\d+ s|\d+ min \d+ s)\n$/
  let withCargo: string
  let withoutCargo: string
  let addon: string

  beforeAll(() => {
    addon = path.join(root, fs.readdirSync(root).find((file) => file.endsWith('.node'))!)
    const bin = path.join(base, 'fake-bin')
    fs.mkdirSync(bin)
    fs.writeFileSync(path.join(bin, 'cargo'), FAKE_CARGO, { mode: 0o755 })
    // PATH entries holding a real cargo are left out.
    const rest = (process.env.PATH ?? '')
      .split(path.delimiter)
      .filter((dir) => dir && !fs.existsSync(path.join(dir, 'cargo')))
    withoutCargo = [path.dirname(process.execPath), ...rest].join(path.delimiter)
    withCargo = [bin, withoutCargo].join(path.delimiter)
  })

  function withoutTargetDir(environment: NodeJS.ProcessEnv) {
    const copy = { ...environment }
    delete copy.CARGO_TARGET_DIR
    return copy
  }

  /** A copy of the installed package without its prebuilt addon, inside a node_modules directory. */
  function installedWithoutAddon(name: string) {
    const from = path.join(project, 'node_modules', '@deepseek-ai', 'dsh-skill-native')
    const to = path.join(base, name, 'node_modules', '@deepseek-ai', 'dsh-skill-native')
    fs.cpSync(from, to, { recursive: true, filter: (src) => !src.endsWith('.node') })
    return to
  }

  function install(pkg: string, extra: NodeJS.ProcessEnv) {
    const tmp = fs.mkdtempSync(path.join(base, 'tmp-'))
    const log = `${tmp}.log`
    const result = spawnSync(process.execPath, [path.join('scripts', 'install.js')], {
      cwd: pkg,
      // DSH_SKILL_NATIVE_TERMINAL: no lines on the terminal running the tests.
      env: { ...withoutTargetDir(env), TMPDIR: tmp, FAKE_CARGO_LOG: log, FAKE_CARGO_ADDON: addon, DSH_SKILL_NATIVE_TERMINAL: '', ...extra },
      encoding: 'utf8',
      timeout: 60_000,
    })
    const calls = fs.existsSync(log)
      ? fs.readFileSync(log, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { args: string[] })
      : []
    return { code: result.status, stdout: result.stdout, stderr: result.stderr, calls, tmp }
  }

  it('builds in a temporary target directory, removes it, and says so and how long it took', () => {
    const pkg = installedWithoutAddon('source-ok')
    const result = install(pkg, { PATH: withCargo })
    expect(result.stderr.startsWith(PROGRESS)).toBe(true)
    expect(result.stderr.slice(PROGRESS.length)).toMatch(BUILT)
    expect(result.code).toBe(0)
    expect(result.calls).toHaveLength(1)
    const { args } = result.calls[0]
    expect(args.slice(0, 2)).toEqual(['build', '--release'])
    expect(args).toContain('--locked')
    expect(args[args.indexOf('--manifest-path') + 1]).toBe(path.join(pkg, 'crates', 'skill-napi', 'Cargo.toml'))
    const targetDir = args[args.indexOf('--target-dir') + 1]
    expect(path.dirname(targetDir)).toBe(result.tmp)
    expect(fs.existsSync(targetDir)).toBe(false)
    expect(fs.readdirSync(result.tmp)).toEqual([])
    expect(fs.existsSync(path.join(pkg, 'target'))).toBe(false)
    expect(fs.readdirSync(pkg).filter((file) => file.endsWith('.node'))).toEqual([path.basename(addon)])
    const loaded = spawnSync(process.execPath, ['-e', `console.log(require(${JSON.stringify(pkg)}).isSkillName('ok'))`], {
      encoding: 'utf8',
      env,
    })
    expect(loaded.stdout.trim()).toBe('true')
    // Installed again: the addon loads, nothing is built.
    const again = install(pkg, { PATH: withCargo, FAKE_CARGO_LOG: path.join(base, 'again.log') })
    expect(again.code).toBe(0)
    expect(again.stderr).toBe('')
    expect(fs.existsSync(path.join(base, 'again.log'))).toBe(false)
  })

  it('removes the temporary target directory when the build fails', () => {
    const pkg = installedWithoutAddon('source-fails')
    const result = install(pkg, { PATH: withCargo, FAKE_CARGO_FAIL: '1' })
    expect(result.code).toBe(1)
    expect(result.stderr.startsWith(PROGRESS)).toBe(true)
    // What failed, after how long, and how to watch the next build (npm shows this output when a script fails).
    expect(result.stderr).toMatch(
      /\n@deepseek-ai\/dsh-skill-native: building the native addon from source failed after (\d+ s|\d+ min \d+ s) \(cargo exited with 101\); the compiler's messages are above\. To watch the build, run it again with npm's --foreground-scripts \(npm rebuild @deepseek-ai\/dsh-skill-native --foreground-scripts\)\.\n$/,
    )
    expect(result.calls).toHaveLength(1)
    expect(fs.readdirSync(result.tmp)).toEqual([])
    expect(fs.readdirSync(pkg).some((file) => file.endsWith('.node'))).toBe(false)
  })

  it('asks cargo for its progress unless npm hides the output (then only the errors, shown if the build fails)', () => {
    const pkg = installedWithoutAddon('source-quiet')
    const hidden = install(pkg, { PATH: withCargo, npm_lifecycle_event: 'install', FAKE_CARGO_FAIL: '1' })
    expect(hidden.calls[0].args).toContain('--quiet')
    const foreground = install(pkg, {
      PATH: withCargo,
      npm_lifecycle_event: 'install',
      npm_config_foreground_scripts: 'true',
      FAKE_CARGO_FAIL: '1',
    })
    expect(foreground.calls[0].args).not.toContain('--quiet')
    expect(install(pkg, { PATH: withCargo, FAKE_CARGO_FAIL: '1' }).calls[0].args).not.toContain('--quiet')
  })

  it('without cargo, fails with one message naming the prebuilt platforms and how to get a toolchain', () => {
    const pkg = installedWithoutAddon('no-cargo')
    const result = install(pkg, { PATH: withoutCargo })
    expect(result.code).toBe(1)
    expect(result.stdout).toBe('')
    const lines = result.stderr.trimEnd().split('\n')
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(/^@deepseek-ai\/dsh-skill-native: no prebuilt addon for linux-\w+-(gnu|musl) \(prebuilt: Linux x64 and arm64/)
    expect(lines[0]).toContain('macOS x64 and arm64, Windows x64')
    expect(lines[0]).toContain('https://rustup.rs')
    expect(lines[0]).toContain('npm rebuild @deepseek-ai/dsh-skill-native')
    expect(fs.readdirSync(result.tmp)).toEqual([])
  })
})
