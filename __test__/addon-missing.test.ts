// A consumer project whose copy of the package has no loadable addon gets our
// explanation (which files, why, the commands that fix it; what the loader
// tried as `cause`) from `require`, `import` and the `dsh-skills` bin, and following
// the commands works. The package is packed without its addon (a platform
// with no prebuilt package) and installed with npm's --ignore-scripts, as
// npm leaves it when the install script does not run. A stand-in `cargo`
// (copying the addon built for the tests) makes the build of the fix take a
// second instead of minutes.
import { execFileSync, spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { pack, root, userEnv } from './pack'

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'
const NAME = '@deepseek-ai/dsh-skill-native'
const FAKE_CARGO = `#!/usr/bin/env node
const fs = require('node:fs')
const path = require('node:path')
const args = process.argv.slice(2)
if (args[0] === '--version') { console.log('cargo 1.0.0 (stand-in)'); process.exit(0) }
const targetDir = args[args.indexOf('--target-dir') + 1]
fs.mkdirSync(path.join(targetDir, 'release'), { recursive: true })
fs.copyFileSync(process.env.FAKE_CARGO_ADDON, path.join(targetDir, 'release', 'libskill_napi.so'))
`

let base: string
let env: NodeJS.ProcessEnv
let tarball: string
let addon: string
let platform: string

/** Pack the package, then the same tarball without its addon. */
beforeAll(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-addon-')))
  const home = path.join(base, 'home')
  fs.mkdirSync(home)
  env = userEnv(home)
  const addons = fs.readdirSync(root).filter((file) => file.endsWith('.node'))
  if (addons.length === 0) throw new Error('no native addon next to package.json: run `npm run build` first')
  addon = path.join(root, addons[0])
  platform = /^dsh-skill-native\.(.+)\.node$/.exec(addons[0])![1]
  const packed = pack(base, env)
  const unpacked = path.join(base, 'unpacked')
  fs.mkdirSync(unpacked)
  execFileSync('tar', ['xzf', packed.tarball, '-C', unpacked])
  for (const file of fs.readdirSync(path.join(unpacked, 'package'))) {
    if (file.endsWith('.node')) fs.rmSync(path.join(unpacked, 'package', file))
  }
  tarball = path.join(base, 'no-addon.tgz')
  execFileSync('tar', ['czf', tarball, '-C', unpacked, 'package'])
  const bin = path.join(base, 'fake-bin')
  fs.mkdirSync(bin)
  fs.writeFileSync(path.join(bin, 'cargo'), FAKE_CARGO, { mode: 0o755 })
}, 120_000)

afterAll(() => {
  if (base) fs.rmSync(base, { recursive: true, force: true })
})

/** A consumer project with the addon-less tarball installed by npm with `flags`. */
function consumer(name: string, flags: string[], extraEnv: NodeJS.ProcessEnv = {}) {
  const dir = path.join(base, name)
  fs.mkdirSync(dir)
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name, private: true }))
  execFileSync(npm, ['install', tarball, '--no-audit', '--no-fund', '--offline', ...flags], {
    cwd: dir,
    env: { ...env, ...extraEnv },
    encoding: 'utf8',
    stdio: 'pipe',
  })
  return { dir, pkg: path.join(dir, 'node_modules', '@deepseek-ai', 'dsh-skill-native') }
}

function run(dir: string, command: string, args: string[], extraEnv: NodeJS.ProcessEnv = {}) {
  const result = spawnSync(command, args, { cwd: dir, env: { ...env, ...extraEnv }, encoding: 'utf8', timeout: 60_000 })
  return { code: result.status, stdout: result.stdout, stderr: result.stderr }
}

/**
 * What `require`, `import` (of the main entry and of `…/cordis`) and
 * `dsh-skills list` say in `dir`: 'loaded', or the error `require` threw and
 * what an ESM program that imports the package prints as it ends.
 */
function load(dir: string) {
  const required = run(dir, process.execPath, [
    '-e',
    `try { require('${NAME}'); console.log('loaded') } catch (e) { console.log(JSON.stringify({ name: e.name, code: e.code, message: e.message, cause: e.cause && e.cause.message })); process.exitCode = 3 }`,
  ])
  const esm = (entry: string) => {
    fs.writeFileSync(path.join(dir, 'main.mjs'), `import * as entry from '${entry}'\nconsole.log(Object.keys(entry).length > 0 ? 'loaded' : 'empty')\n`)
    const result = run(dir, process.execPath, ['main.mjs'])
    return result.stdout.trim() === 'loaded' ? ('loaded' as const) : result
  }
  const imported = esm(NAME)
  const cordis = esm(`${NAME}/cordis`)
  const cli = run(dir, path.join(dir, 'node_modules', '.bin', 'dsh-skills'), ['list'])
  if (required.stdout.trim() === 'loaded') return { required: 'loaded' as const, imported, cordis, cli }
  expect(required.code, required.stderr).toBe(3)
  return { required: JSON.parse(required.stdout) as { name: string; code: string; message: string; cause?: string }, imported, cordis, cli }
}

/** An ESM program importing the package ends with exit code 1 and the same error, our message first. */
function expectImportSays(result: 'loaded' | { code: number | null; stdout: string; stderr: string }, message: string) {
  if (result === 'loaded') throw new Error('the package was imported without an addon')
  expect(result.code).toBe(1)
  expect(result.stdout).toBe('')
  expect(result.stderr).toContain(`\nAddonLoadError: ${message}\n`)
  // Below it, what the loader tried; never the loader's generic advice.
  expect(result.stderr.indexOf('AddonLoadError')).toBeLessThan(result.stderr.indexOf('the addon loader tried, in order:'))
  expect(result.stderr).not.toMatch(/npm has a bug|package-lock\.json|Cannot find native binding/)
}

/** The CLI prints the same explanation: the first line after `dsh-skills: `, the rest indented. */
function expectCliSays(cli: { code: number | null; stdout: string; stderr: string }, message: string) {
  expect(cli.code).toBe(1)
  expect(cli.stdout).toBe('')
  const [first, ...rest] = message.split('\n')
  expect(cli.stderr).toBe(`dsh-skills: ${first}\n${rest.map((line) => `  ${line}\n`).join('')}`)
}

describe.skipIf(process.platform === 'win32')('a consumer project without a loadable addon', () => {
  it('install script skipped (--ignore-scripts): says the build did not run and how to approve and rebuild; following it works', () => {
    const { dir, pkg } = consumer('skipped', ['--ignore-scripts'])
    expect(fs.readdirSync(pkg).some((file) => file.endsWith('.node'))).toBe(false)
    const { required, imported, cordis, cli } = load(dir)
    if (required === 'loaded') throw new Error('the package loaded without an addon')
    expect(required.name).toBe('AddonLoadError')
    expect(required.code).toBe('ERR_DSH_SKILL_NATIVE_ADDON')
    const lines = required.message.split('\n')
    expect(lines[0]).toBe(`${NAME}: the native addon for ${platform} could not be loaded.`)
    expect(lines[1]).toBe(
      `Looked for: ${path.join(pkg, `dsh-skill-native.${platform}.node`)} (a local build), and the package ${NAME}-${platform} (prebuilt).`,
    )
    expect(lines[2]).toMatch(/^Why: this copy of the package lists no prebuilt packages \(a tarball packed from a clone\), and the install step that builds the addon did not run: npm skipped this package's install script \(--ignore-scripts/)
    expect(lines.slice(3, 6)).toEqual([
      'Fix, in the project that depends on this package:',
      `  npm install-scripts approve ${NAME}`,
      `  npm rebuild ${NAME} --foreground-scripts`,
    ])
    expect(required.message).toContain('https://rustup.rs')
    // The cause is what the generated loader tried (each file or package,
    // and why), in order, without its generic advice (an npm bug, remove
    // package-lock.json), which is wrong here.
    expect(required.message).not.toContain('npm has a bug')
    const tried = required.cause!.split('\n')
    expect(tried[0]).toBe('the addon loader tried, in order:')
    expect(tried.find((line) => line.startsWith('  1. '))).toContain(`dsh-skill-native.${platform}.node`)
    expect(tried.find((line) => line.startsWith('  2. '))).toContain(`${NAME}-${platform}`)
    expect(required.cause).toContain('Cannot find module')
    expect(required.cause).not.toMatch(/npm has a bug|package-lock|Cannot find native binding/)
    expectImportSays(imported, required.message)
    expectImportSays(cordis, required.message)
    expectCliSays(cli, required.message)

    // The fix, as printed (the stand-in cargo does the compile).
    const fixEnv = { PATH: [path.join(base, 'fake-bin'), env.PATH].join(path.delimiter), FAKE_CARGO_ADDON: addon, DSH_SKILL_NATIVE_TERMINAL: '' }
    const results = lines.slice(4, 6).map((line) => {
      const [command, ...args] = line.trim().split(/\s+/)
      expect(command).toBe('npm')
      const result = run(dir, npm, args, fixEnv)
      expect(result.code, result.stderr).toBe(0)
      return result
    })
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).allowScripts).toBeDefined()
    // --foreground-scripts showed the build's first and last lines; approved,
    // npm no longer lists the package as not covered, and the line says nothing of it.
    expect(results[1].stderr).toContain(`${NAME}: building the native addon from source, this takes a few minutes\n`)
    expect(results[1].stderr).toMatch(/@deepseek-ai\/dsh-skill-native: built the native addon in \d+ s\n/)
    expect(results[1].stderr).not.toContain('not yet covered by allowScripts')
    expect(fs.readdirSync(pkg)).toContain(`dsh-skill-native.${platform}.node`)
    const after = load(dir)
    expect([after.required, after.imported]).toEqual(['loaded', 'loaded'])
    expect(after.cli.code).toBe(0)
    expect(after.cli.stderr).toMatch(/^dsh-skills: no skills found\ndsh-skills: 0 loaded/)
  })

  it('install step skipped on purpose (DSH_SKILL_NATIVE_SKIP_INSTALL=1): says so', () => {
    const { dir } = consumer('skip-env', [], { DSH_SKILL_NATIVE_SKIP_INSTALL: '1' })
    const { required, cli } = load(dir)
    if (required === 'loaded') throw new Error('the package loaded without an addon')
    expect(required.message).toContain('and the install step was skipped (DSH_SKILL_NATIVE_SKIP_INSTALL=1).')
    expect(required.message).toContain(`  npm rebuild ${NAME} --foreground-scripts\n`)
    expect(required.message).not.toContain('install-scripts approve')
    expectCliSays(cli, required.message)
  })

  it('a damaged or foreign addon file: names the file and what the system said, and how to rebuild it', () => {
    const { dir, pkg } = consumer('damaged', ['--ignore-scripts'])
    const file = path.join(pkg, `dsh-skill-native.${platform}.node`)
    const cases: [string, Buffer][] = [['not a library', Buffer.from('this is not a shared library\n'.repeat(100))]]
    const foreign = fs.readFileSync(addon)
    if (foreign.subarray(0, 4).toString('latin1') === '\x7fELF') {
      // The same library marked for another machine (x86-64 <-> AArch64), as a build for another platform is.
      foreign.writeUInt16LE(foreign.readUInt16LE(18) === 0xb7 ? 0x3e : 0xb7, 18)
      cases.push(['built for another machine', foreign])
    }
    for (const [what, bytes] of cases) {
      fs.writeFileSync(file, bytes)
      const { required, imported, cli } = load(dir)
      if (required === 'loaded') throw new Error(`an addon that is ${what} loaded`)
      const lines = required.message.split('\n')
      expect(lines[2], what).toMatch(
        new RegExp(`^Why: dsh-skill-native\\.${platform}\\.node is there but does not load: it is damaged, or built for another platform or Node\\.js \\(.*${path.basename(file).replace(/\./g, '\\.')}.*\\)\\.$`),
      )
      expect(lines.slice(3, 5)).toEqual(['Fix, in the project that depends on this package:', `  npm rebuild ${NAME} --foreground-scripts`])
      expectImportSays(imported, required.message)
      expectCliSays(cli, required.message)
    }
  })

  it('a prebuilt platform package that does not load: names it and how to install it again', () => {
    const { dir } = consumer('bad-prebuilt', ['--ignore-scripts'])
    const prebuilt = path.join(dir, 'node_modules', '@deepseek-ai', `dsh-skill-native-${platform}`)
    fs.mkdirSync(prebuilt, { recursive: true })
    fs.writeFileSync(path.join(prebuilt, 'package.json'), JSON.stringify({ name: `${NAME}-${platform}`, version: '0.1.0', main: 'addon.node' }))
    fs.writeFileSync(path.join(prebuilt, 'addon.node'), 'garbage')
    const { required, cli } = load(dir)
    if (required === 'loaded') throw new Error('a garbage prebuilt package loaded')
    expect(required.message).toContain(`Why: ${NAME}-${platform} is installed (${prebuilt}) but does not load (`)
    expect(required.message).toContain(`  npm install ${NAME}@0.1.0 --force\n`)
    expectCliSays(cli, required.message)
  })

  it('the install step leaves a record of what it did, and says on the terminal that it builds even when npm hides its output', () => {
    const { dir, pkg } = consumer('record', ['--ignore-scripts'])
    const record = () => JSON.parse(fs.readFileSync(path.join(pkg, '.dsh-skill-native-install.json'), 'utf8'))
    const terminal = path.join(base, 'terminal.txt')
    fs.writeFileSync(terminal, '')
    // As npm 11 runs it (output hidden: no --foreground-scripts).
    const result = run(pkg, process.execPath, [path.join('scripts', 'install.js')], {
      PATH: [path.join(base, 'fake-bin'), env.PATH].join(path.delimiter),
      FAKE_CARGO_ADDON: addon,
      npm_lifecycle_event: 'install',
      npm_config_user_agent: 'npm/11.19.1 node/v20.20.2 linux x64 workspaces/false',
      DSH_SKILL_NATIVE_TERMINAL: terminal,
    })
    expect(result.code, result.stderr).toBe(0)
    const shown = fs.readFileSync(terminal, 'utf8').split('\n')
    expect(shown[0]).toBe(`${NAME}: building the native addon from source, this takes a few minutes`)
    expect(shown[1]).toMatch(
      /^@deepseek-ai\/dsh-skill-native: built the native addon in \d+ s \(npm may still list this package as "not yet covered by allowScripts": that means not yet approved, the build did run\)$/,
    )
    expect(shown.slice(2)).toEqual([''])
    expect(result.stderr).toBe(`${shown.slice(0, 2).join('\n')}\n`)
    expect(record()).toMatchObject({ step: 'built', version: '0.1.0' })
    // Run again: the addon loads, nothing is built, nothing is said.
    fs.writeFileSync(terminal, '')
    const again = run(pkg, process.execPath, [path.join('scripts', 'install.js')], { npm_lifecycle_event: 'install', DSH_SKILL_NATIVE_TERMINAL: terminal })
    expect(again.code).toBe(0)
    expect(again.stderr).toBe('')
    expect(fs.readFileSync(terminal, 'utf8')).toBe('')
    expect(record()).toMatchObject({ step: 'ready' })
  })

  // npm 11 hides the output of install scripts; the two lines still reach the
  // terminal npm runs in (a pseudo-terminal from util-linux `script` here).
  it.skipIf(process.platform !== 'linux' || spawnSync('script', ['--version']).status !== 0)(
    'npm install on a terminal shows the first and last line of the build, although npm hides the script output',
    () => {
      const dir = path.join(base, 'terminal')
      fs.mkdirSync(dir)
      fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'terminal', private: true }))
      const result = run(dir, 'script', ['-qec', `${npm} install ${tarball} --no-audit --no-fund --offline`, '/dev/null'], {
        PATH: [path.join(base, 'fake-bin'), env.PATH].join(path.delimiter),
        FAKE_CARGO_ADDON: addon,
      })
      expect(result.code, result.stdout).toBe(0)
      const shown = result.stdout.replace(/\r/g, '')
      expect(shown).toContain(`\x1b[2K${NAME}: building the native addon from source, this takes a few minutes\n`)
      expect(shown).toMatch(/\x1b\[2K@deepseek-ai\/dsh-skill-native: built the native addon in \d+ s \(npm may still list this package as "not yet covered by allowScripts": that means not yet approved, the build did run\)\n/)
      expect(fs.readdirSync(path.join(dir, 'node_modules', '@deepseek-ai', 'dsh-skill-native'))).toContain(`dsh-skill-native.${platform}.node`)
    },
  )
})

describe('npm pack in a clone without the addon', () => {
  /** A clone's package files (package.json, the pack step, one entry), with `addon` next to them when given. */
  function clone(name: string, edit: (manifest: Record<string, unknown>) => void = () => {}, addon?: string) {
    const dir = path.join(base, name)
    fs.mkdirSync(path.join(dir, 'scripts'), { recursive: true })
    const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'))
    edit(manifest)
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify(manifest))
    fs.copyFileSync(path.join(root, 'scripts', 'prepack.js'), path.join(dir, 'scripts', 'prepack.js'))
    fs.copyFileSync(path.join(root, 'index.js'), path.join(dir, 'index.js'))
    if (addon) fs.writeFileSync(path.join(dir, addon), 'a stand-in addon')
    return dir
  }
  const packIn = (dir: string, extra: NodeJS.ProcessEnv = {}) => {
    const result = run(dir, npm, ['pack', '--dry-run', '--json'], extra)
    const files = result.code === 0 ? JSON.parse(result.stdout)[0].files.map((file: { path: string }) => file.path) : []
    return { ...result, files: files as string[] }
  }

  it('refuses, saying what the tarball would lack and what to run', () => {
    const result = packIn(clone('pack-unbuilt'))
    expect(result.code).not.toBe(0)
    expect(result.stderr).toContain(`${NAME}: refusing to pack: the tarball would have no native addon`)
    expect(result.stderr).toContain('Build the addon first (npm run build; npm ci does it), then pack again.')
  })

  it('packs with DSH_SKILL_NATIVE_PACK_WITHOUT_ADDON=1, warning that the tarball has no addon', () => {
    const result = packIn(clone('pack-forced'), { DSH_SKILL_NATIVE_PACK_WITHOUT_ADDON: '1' })
    expect(result.code, result.stderr).toBe(0)
    expect(result.stderr).toContain(`${NAME}: warning: this tarball has no native addon`)
    expect(result.files.some((file) => file.endsWith('.node'))).toBe(false)
  })

  it('packs without a word with the addon built, or with per-platform packages named (the release job)', () => {
    const built = packIn(clone('pack-built', undefined, `dsh-skill-native.${platform}.node`))
    expect(built.code, built.stderr).toBe(0)
    expect(built.stderr).not.toMatch(/refusing|warning/)
    expect(built.files).toContain(`dsh-skill-native.${platform}.node`)
    const release = packIn(clone('pack-release', (manifest) => (manifest.optionalDependencies = { [`${NAME}-${platform}`]: '0.1.0' })))
    expect(release.code, release.stderr).toBe(0)
    expect(release.stderr).not.toMatch(/refusing|warning/)
  })
})

describe("the install step's note on npm 11's allowScripts list", () => {
  const { allowScriptsNote } = require('../scripts/install.js') as {
    allowScriptsNote(how: { checkout: boolean }, env: NodeJS.ProcessEnv): boolean
  }
  const npm11 = { npm_lifecycle_event: 'install', npm_config_user_agent: 'npm/11.19.1 node/v20.20.2 linux x64 workspaces/false' }

  /** A project directory whose package.json is `manifest`. */
  function project(manifest: object) {
    const dir = fs.mkdtempSync(path.join(base, 'allow-'))
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify(manifest))
    return dir
  }

  it('is printed only when npm 11 will list the package: a project that has not approved it', () => {
    const note = (manifest: object, extra: NodeJS.ProcessEnv = {}) =>
      allowScriptsNote({ checkout: false }, { ...npm11, npm_config_local_prefix: project(manifest), ...extra })
    expect(note({ name: 'p', dependencies: { [NAME]: '^0.1.0' } })).toBe(true)
    expect(note({ name: 'p', allowScripts: { 'other-package': true } })).toBe(true)
    expect(note({ name: 'p', allowScripts: { [NAME]: false } })).toBe(true)
    // Approved: by name, by name and version, by the file: spec of a tarball, or for a global install.
    expect(note({ name: 'p', allowScripts: { [NAME]: true } })).toBe(false)
    expect(note({ name: 'p', allowScripts: { [`${NAME}@0.1.0`]: true } })).toBe(false)
    const dir = project({ name: 'p', dependencies: { [NAME]: 'file:../pkg.tgz' } })
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({
      name: 'p',
      dependencies: { [NAME]: 'file:../pkg.tgz' },
      allowScripts: { [`file:${path.resolve(dir, '..', 'pkg.tgz')}`]: true },
    }))
    expect(allowScriptsNote({ checkout: false }, { ...npm11, npm_config_local_prefix: dir })).toBe(false)
    expect(allowScriptsNote({ checkout: false }, { ...npm11, npm_config_allow_scripts: `other,${NAME}` })).toBe(false)
    // Not npm 11, not run by npm, or the clone's own build (`npm ci` in the clone): no note.
    expect(note({ name: 'p' }, { npm_config_user_agent: 'npm/10.9.2 node/v20.20.2 linux x64 workspaces/false' })).toBe(false)
    expect(allowScriptsNote({ checkout: false }, { npm_config_user_agent: npm11.npm_config_user_agent })).toBe(false)
    expect(allowScriptsNote({ checkout: true }, { ...npm11, npm_config_local_prefix: project({ name: 'p' }) })).toBe(false)
    expect(allowScriptsNote({ checkout: false }, { ...npm11, npm_config_local_prefix: root })).toBe(false)
    // A project whose package.json cannot be read: npm may list it, the note says "may".
    expect(allowScriptsNote({ checkout: false }, { ...npm11, npm_config_local_prefix: path.join(base, 'nowhere') })).toBe(true)
  })
})

describe('the explanation for other causes', () => {
  // Each case on the installed copy's own files, with what cannot be changed in
  // a running Node (the platform, the manifest) given to the explainer.
  const { explainLoadFailure } = require('../lib/addon.js') as {
    explainLoadFailure(cause: unknown, where: { dir: string; platform?: string; env?: NodeJS.ProcessEnv }): Error & { code: string; cause: unknown }
  }

  function installedCopy(manifest: (pkg: Record<string, unknown>) => void) {
    const dir = path.join(fs.mkdtempSync(path.join(base, 'copy-')), 'node_modules', '@deepseek-ai', 'dsh-skill-native')
    fs.mkdirSync(dir, { recursive: true })
    const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'))
    manifest(pkg)
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify(pkg))
    return dir
  }

  it('a platform without a prebuilt package: says so, and names the prebuilt platforms', () => {
    const dir = installedCopy(() => {})
    const cause = new Error('Cannot find native binding.')
    const error = explainLoadFailure(cause, { dir, platform: 'freebsd-x64', env: {} })
    expect(error.cause).toBe(cause)
    expect(error.message).toContain(`Looked for: ${path.join(dir, 'dsh-skill-native.freebsd-x64.node')} (a local build).\n`)
    expect(error.message).toContain('Why: there is no prebuilt package for freebsd-x64 (prebuilt: Linux x64 and arm64 (glibc and musl), macOS x64 and arm64, Windows x64), and the install step that builds the addon did not run')
  })

  it("keeps the loader's attempts in order as the cause, without its generic advice", () => {
    const dir = installedCopy(() => {})
    // As the generated loader builds it: one error per attempt, each the
    // cause of the next, under its generic message.
    const attempts = [
      new Error(`Cannot find module './dsh-skill-native.freebsd-x64.node'\nRequire stack:\n- ${dir}/binding.js`),
      new Error(`Cannot find module '${NAME}-freebsd-x64'`),
    ]
    const chain = attempts.reduce<Error | null>((previous, current) => Object.assign(new Error(current.message), { cause: previous }), null)
    const generic = Object.assign(
      new Error('Cannot find native binding. npm has a bug related to optional dependencies (https://github.com/npm/cli/issues/4828). Please try `npm i` again after removing both package-lock.json and node_modules directory.'),
      { cause: chain },
    )
    const error = explainLoadFailure(generic, { dir, platform: 'freebsd-x64', env: {} })
    const cause = error.cause as Error
    expect(cause.message).toBe(
      [
        'the addon loader tried, in order:',
        "  1. Cannot find module './dsh-skill-native.freebsd-x64.node'",
        '     Require stack:',
        `     - ${dir}/binding.js`,
        `  2. Cannot find module '${NAME}-freebsd-x64'`,
      ].join('\n'),
    )
    expect(cause.stack).toBe(`AddonLoadAttempts: ${cause.message}`)
    expect(require('node:util').inspect(error)).not.toMatch(/npm has a bug|package-lock/)
  })

  it('docs/install.md quotes the message as it is', () => {
    const guide = fs.readFileSync(path.join(root, 'docs', 'install.md'), 'utf8')
    const quoted = /\n```text\n(@deepseek-ai\/dsh-skill-native: the native addon [^]*?)\n```\n/.exec(guide)![1]
    const dir = /^Looked for: (.*)\/dsh-skill-native\.freebsd-x64\.node /m.exec(quoted)![1]
    expect(explainLoadFailure(new Error('x'), { dir, platform: 'freebsd-x64', env: {} }).message).toBe(quoted)
  })

  it('a published copy whose prebuilt package npm left out: names the optional dependency', () => {
    const dir = installedCopy((pkg) => {
      pkg.optionalDependencies = { [`${NAME}-linux-x64-gnu`]: '0.1.0' }
    })
    const error = explainLoadFailure(new Error('x'), { dir, platform: 'linux-x64-gnu', env: {} })
    expect(error.message).toContain(`Why: npm did not install the optional dependency ${NAME}-linux-x64-gnu (--omit=optional`)
  })

  it('an install step that failed or was interrupted: says which, from its record', () => {
    const dir = installedCopy(() => {})
    const write = (record: object) => fs.writeFileSync(path.join(dir, '.dsh-skill-native-install.json'), JSON.stringify(record))
    write({ step: 'failed', message: 'building the native addon from source failed after 3 s (cargo exited with 101)' })
    expect(explainLoadFailure(new Error('x'), { dir, platform: 'freebsd-x64', env: {} }).message).toContain(
      'and the install step failed: building the native addon from source failed after 3 s (cargo exited with 101)\n',
    )
    write({ step: 'started' })
    expect(explainLoadFailure(new Error('x'), { dir, platform: 'freebsd-x64', env: {} }).message).toContain(
      'and the install step started but did not finish (it was interrupted).',
    )
  })

  it('a source checkout: run the build', () => {
    const dir = fs.mkdtempSync(path.join(base, 'checkout-'))
    fs.copyFileSync(path.join(root, 'package.json'), path.join(dir, 'package.json'))
    const error = explainLoadFailure(new Error('x'), { dir, platform: 'linux-x64-gnu', env: {} })
    expect(error.message).toContain('Why: this is a source checkout and the addon has not been built yet.\nFix, in this checkout:\n  npm run build\n')
  })
})
