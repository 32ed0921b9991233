// Prebuilt addons: only linux-x64-gnu is built on this machine, so these tests
// check that the release pipeline's pieces agree for every target instead —
// `napi.targets`, the per-platform packages under `npm/`, the generated loader,
// the install step's platform names, the release workflow's build matrix, and
// the `optionalDependencies` that `napi pre-publish` writes at publish time.
import { execFileSync, spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import { createRequire } from 'node:module'
import * as path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { tempDirs } from './helpers'

const require = createRequire(import.meta.url)
const root = path.resolve(__dirname, '..')
const pkg = require('../package.json') as {
  name: string
  version: string
  engines: { node: string }
  optionalDependencies?: Record<string, string>
  napi: { binaryName: string; packageName: string; targets: string[] }
}
const install = require('../scripts/install.js') as {
  platformArchAbi(platform: string, arch: string, musl: boolean): string
}

const temps = tempDirs('dsh-layout-')
afterAll(() => temps.cleanup())

interface Target {
  triple: string
  /** napi-rs platform name: the `npm/` directory and file suffix. */
  abi: string
  os: string
  cpu: string
  libc?: 'glibc' | 'musl'
}

/** What a Rust target triple means to npm and Node, written out independently of napi-rs. */
function describeTriple(triple: string): Target {
  const [arch, , system, env] = triple.split('-')
  const cpu = { x86_64: 'x64', aarch64: 'arm64' }[arch]
  if (!cpu) throw new Error(`unknown arch in ${triple}`)
  if (system === 'linux') {
    const libc = env === 'musl' ? 'musl' : 'glibc'
    return { triple, abi: `linux-${cpu}-${env}`, os: 'linux', cpu, libc }
  }
  if (system === 'darwin') return { triple, abi: `darwin-${cpu}`, os: 'darwin', cpu }
  if (system === 'windows') return { triple, abi: `win32-${cpu}-${env}`, os: 'win32', cpu }
  throw new Error(`unknown system in ${triple}`)
}

const targets = pkg.napi.targets.map(describeTriple)

describe('entry points', () => {
  it('every exports target exists and is packed', () => {
    const manifest = require('../package.json') as {
      exports: Record<string, string | Record<string, Record<string, string>>>
      files: string[]
    }
    const packed = (file: string) =>
      manifest.files.some((pattern) => pattern === file || (pattern.endsWith('/') && file.startsWith(pattern)))
    const entries = Object.keys(manifest.exports)
    expect(entries).toEqual([
      '.',
      './cordis',
      './filesystem',
      './harness',
      './harness/filesystem',
      './harness/tool-skill',
      './harness/tool-skill/invariant',
      './search-tool',
      './harness/search-tool',
      './package.json',
    ])
    for (const [entry, target] of Object.entries(manifest.exports)) {
      // Each condition with its own typings (types/… .d.mts for import, .d.cts for require).
      const targets = typeof target === 'string' ? [target] : Object.values(target).flatMap((condition) => Object.values(condition))
      if (typeof target !== 'string') {
        expect(Object.keys(target), entry).toEqual(['import', 'require'])
        expect(Object.keys(target.import), entry).toEqual(['types', 'default'])
        expect(Object.keys(target.require), entry).toEqual(['types', 'default'])
        expect(target.import.types, entry).toMatch(/\.d\.mts$/)
        expect(target.require.types, entry).toMatch(/\.d\.cts$/)
      }
      for (const file of targets.map((t) => t.replace(/^\.\//, ''))) {
        expect(fs.existsSync(path.join(root, file)), `${entry}: ${file}`).toBe(true)
        if (file !== 'package.json') expect(packed(file), `${entry}: ${file} in files`).toBe(true)
      }
    }
  })
})

describe('prebuilt addon layout', () => {
  it('targets every platform the README promises, including Linux musl', () => {
    expect(pkg.napi.targets.sort()).toEqual(
      [
        'aarch64-apple-darwin',
        'aarch64-unknown-linux-gnu',
        'aarch64-unknown-linux-musl',
        'x86_64-apple-darwin',
        'x86_64-pc-windows-msvc',
        'x86_64-unknown-linux-gnu',
        'x86_64-unknown-linux-musl',
      ].sort(),
    )
  })

  it('has one npm/<platform> package per target, with the right os, cpu, libc, version and binary', () => {
    // (npm/compat/ holds the compatibility packages: compat.test.ts.)
    expect(fs.readdirSync(path.join(root, 'npm')).filter((dir) => dir !== 'compat').sort()).toEqual(targets.map((t) => t.abi).sort())
    for (const target of targets) {
      const manifest = JSON.parse(fs.readFileSync(path.join(root, 'npm', target.abi, 'package.json'), 'utf8'))
      const binary = `${pkg.napi.binaryName}.${target.abi}.node`
      expect(manifest, target.abi).toMatchObject({
        name: `${pkg.napi.packageName}-${target.abi}`,
        version: pkg.version,
        os: [target.os],
        cpu: [target.cpu],
        main: binary,
        files: [binary],
        engines: pkg.engines,
      })
      if (target.libc) expect(manifest.libc, target.abi).toEqual([target.libc])
      else expect(manifest.libc, target.abi).toBeUndefined()
    }
  })

  it('names the addon file the way the install step does on each platform', () => {
    for (const target of targets) {
      expect(install.platformArchAbi(target.os, target.cpu, target.libc === 'musl')).toBe(target.abi)
    }
  })

  it('loads each target from its own file first, then from its npm/<platform> package', () => {
    // The generated loader runs with process.platform, process.arch and the
    // libc family of each target; every require it tries is recorded and fails.
    const loader = path.join(root, 'binding.js')
    for (const target of targets) {
      const script = `
        const fs = require('node:fs')
        const Module = require('node:module')
        Object.defineProperty(process, 'platform', { value: ${JSON.stringify(target.os)} })
        Object.defineProperty(process, 'arch', { value: ${JSON.stringify(target.cpu)} })
        const musl = ${target.libc === 'musl'}
        const readFileSync = fs.readFileSync
        fs.readFileSync = (file, ...rest) => file === '/usr/bin/ldd' ? (musl ? 'musl libc' : 'GNU libc') : readFileSync(file, ...rest)
        const tried = []
        const load = Module._load
        Module._load = function (request, parent, ...rest) {
          if (parent && parent.filename === ${JSON.stringify(loader)} && request !== 'fs' && request !== 'child_process') {
            tried.push(request)
            throw Object.assign(new Error('not here'), { code: 'MODULE_NOT_FOUND' })
          }
          return load.call(this, request, parent, ...rest)
        }
        try { require(${JSON.stringify(loader)}) } catch {}
        console.log(JSON.stringify(tried))
      `
      const result = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', env: { ...process.env, NAPI_RS_NATIVE_LIBRARY_PATH: '' } })
      expect(result.status, result.stderr).toBe(0)
      const tried = JSON.parse(result.stdout) as string[]
      const file = `./${pkg.napi.binaryName}.${target.abi}.node`
      const npmPackage = `${pkg.napi.packageName}-${target.abi}`
      // (macOS tries a universal binary first.)
      const at = tried.indexOf(file)
      expect(at, `${target.abi}: ${tried.join(', ')}`).toBeGreaterThanOrEqual(0)
      expect(tried[at + 1], target.abi).toBe(npmPackage)
    }
  })

  it('builds every target in the release workflow and publishes with napi pre-publish', () => {
    const workflow = fs.readFileSync(path.join(root, '.github', 'workflows', 'release.yml'), 'utf8')
    const buildJob = workflow.slice(workflow.indexOf('\n  build:\n'), workflow.indexOf('\n  test-native:\n'))
    const built = [...buildJob.matchAll(/^\s+- target: (\S+)\n\s+host: /gm)].map((m) => m[1])
    expect(built.sort()).toEqual([...pkg.napi.targets].sort())
    expect(workflow).toContain('npm run build -- --target ${{ matrix.target }}')
    expect(workflow).toContain('npx napi artifacts')
    expect(workflow).toContain('npx napi pre-publish -t npm')
    // Then the compatibility packages (npm/compat/) whose entries are there.
    expect(workflow).toContain('node scripts/compat.js --publishable')
    expect(workflow).not.toMatch(/test-hooks\b[^\n]*--features|--features[^\n]*test-hooks/)
  })

  it('gets optionalDependencies on every platform package, at the same version, from napi pre-publish', () => {
    // The platform packages exist on the registry only once published, so the
    // committed package.json has no optionalDependencies (npm ci could not
    // resolve them); the publish job's `napi pre-publish` writes them. Run it
    // on a copy, without publishing anything.
    expect(pkg.optionalDependencies).toBeUndefined()
    const copy = temps.make()
    for (const file of ['package.json', 'binding.js', 'binding.d.ts', 'index.js', 'index.d.ts']) {
      fs.copyFileSync(path.join(root, file), path.join(copy, file))
    }
    fs.cpSync(path.join(root, 'npm'), path.join(copy, 'npm'), { recursive: true })
    for (const target of targets) {
      fs.writeFileSync(path.join(copy, 'npm', target.abi, `${pkg.napi.binaryName}.${target.abi}.node`), 'stand-in')
    }
    const git = (...args: string[]) => execFileSync('git', args, { cwd: copy, stdio: 'ignore' })
    git('init', '-q')
    git('add', '-A')
    git('-c', 'user.name=layout', '-c', 'user.email=layout@example.invalid', 'commit', '-qm', pkg.version)
    const napi = path.join(root, 'node_modules', '@napi-rs', 'cli', 'dist', 'cli.js')
    const result = spawnSync(process.execPath, [napi, 'pre-publish', '-t', 'npm', '--skip-optional-publish'], {
      cwd: copy,
      encoding: 'utf8',
      timeout: 120_000,
    })
    expect(result.status, result.stderr).toBe(0)
    const published = JSON.parse(fs.readFileSync(path.join(copy, 'package.json'), 'utf8'))
    expect(published.optionalDependencies).toEqual(
      Object.fromEntries(targets.map((t) => [`${pkg.napi.packageName}-${t.abi}`, pkg.version])),
    )
    for (const target of targets) {
      const manifest = JSON.parse(fs.readFileSync(path.join(copy, 'npm', target.abi, 'package.json'), 'utf8'))
      expect(manifest.version).toBe(pkg.version)
    }
  }, 180_000)
})
