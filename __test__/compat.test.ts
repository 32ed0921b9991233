// The compatibility packages (npm/compat/, written by scripts/compat.js): each
// stands in for one harness package name and re-exports one entry of this
// package. Packed like the platform packages and installed from their
// tarballs under the harness names (as an npm alias puts them), next to the
// packed main package, offline: the very objects of the entry they serve (ES
// module and CommonJS), the names the harness package exports, and typings
// that `tsc` accepts under nodenext (.mts, .cts) and bundler. Only the
// packages whose entries this package exports are checked (the `skill` tool
// entry, `…/harness/tool-skill`, comes with its own work). The swap through
// `overrides` with the published harness packages: `npm run test:swap`.
import { execFileSync, spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RELEASE_FILESYSTEM, RELEASE_REGISTRY, RELEASE_TOOL_SKILL, RELEASE_TOOL_SKILL_INVARIANT, typeProbe, type ExportList } from './export-lists'
import { copyPackage, pack, root, userEnv } from './pack'

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string; exports: Record<string, unknown> }
const compat = require('../scripts/compat.js') as {
  packages(manifest?: object): { replaces: string; name: string; dir: string; entries: Record<string, string>; exported: boolean }[]
}
const PACKAGES = compat.packages(manifest)
const served = PACKAGES.filter((pkg) => pkg.exported)
/** The export list of each harness package, where the parity lists have one. */
const LISTS: Record<string, ExportList> = {
  '@deepseek-ai/dsh-skill': RELEASE_REGISTRY,
  '@deepseek-ai/dsh-skill-filesystem': RELEASE_FILESYSTEM,
  '@deepseek-ai/dsh-tool-skill': RELEASE_TOOL_SKILL,
  '@deepseek-ai/dsh-tool-skill/invariant': RELEASE_TOOL_SKILL_INVARIANT,
}

let base: string
let project: string
let env: NodeJS.ProcessEnv

const target = (entry: string) => `@deepseek-ai/dsh-skill-native/${entry.slice(2)}`
const harnessImport = (replaces: string, subpath: string) => (subpath === '.' ? replaces : `${replaces}/${subpath.slice(2)}`)

beforeAll(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-compat-')))
  const home = path.join(base, 'home')
  fs.mkdirSync(home)
  env = userEnv(home)
  const main = pack(base, env).tarball
  const dependencies: Record<string, string> = { '@deepseek-ai/dsh-skill-native': `file:${main}` }
  for (const pkg of served) {
    const packed = JSON.parse(execFileSync(npm, ['pack', '--json', '--pack-destination', base], { cwd: path.join(root, pkg.dir), env, encoding: 'utf8' }))
    dependencies[pkg.replaces] = `file:${path.join(base, packed[0].filename)}`
  }
  project = path.join(base, 'harness')
  fs.mkdirSync(project)
  fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'harness', private: true, dependencies }))
  execFileSync(npm, ['install', '--no-audit', '--no-fund', '--offline'], { cwd: project, env, encoding: 'utf8', stdio: 'pipe' })
  const dev = path.join(root, 'node_modules')
  copyPackage(project, '@deepseek-ai/cordis', path.join(dev, 'harness-cordis'))
  copyPackage(project, '@deepseek-ai/schemastery', path.join(dev, 'harness-schemastery'))
  // The harness packages the `skill` tool entry loads and types against (our stand-ins).
  for (const name of ['dsh-scope', 'dsh-tools', 'dsh-llm']) copyPackage(project, `@deepseek-ai/${name}`, path.join(__dirname, 'stand-ins', '@deepseek-ai', name))
}, 180_000)

afterAll(() => {
  if (base) fs.rmSync(base, { recursive: true, force: true })
})

describe('the compatibility packages', () => {
  it('are generated from scripts/compat.js at the version of this package, one per harness package name', () => {
    const check = spawnSync(process.execPath, [path.join(root, 'scripts', 'compat.js'), '--check'], { cwd: root, encoding: 'utf8' })
    expect(check.stderr).toBe('')
    expect(check.status).toBe(0)
    expect(PACKAGES.map((pkg) => pkg.replaces)).toEqual(['@deepseek-ai/dsh-skill', '@deepseek-ai/dsh-skill-filesystem', '@deepseek-ai/dsh-tool-skill'])
    expect(served.map((pkg) => pkg.replaces)).toEqual(
      expect.arrayContaining(['@deepseek-ai/dsh-skill', '@deepseek-ai/dsh-skill-filesystem']),
    )
    for (const pkg of PACKAGES) {
      const own = JSON.parse(fs.readFileSync(path.join(root, pkg.dir, 'package.json'), 'utf8'))
      expect(own.name).toBe(pkg.name)
      expect(own.version).toBe(manifest.version)
      expect(own.dependencies).toEqual({ '@deepseek-ai/dsh-skill-native': manifest.version })
      expect(Object.keys(own.exports)).toEqual([...Object.keys(pkg.entries), './package.json'])
    }
    const tool = PACKAGES.find((pkg) => pkg.replaces === '@deepseek-ai/dsh-tool-skill')!
    expect(tool.entries).toEqual({ '.': './harness/tool-skill', './invariant': './harness/tool-skill/invariant' })
    expect(tool.exported).toBe(Object.hasOwn(manifest.exports, './harness/tool-skill'))
  })

  it.each(served.flatMap((pkg) => Object.entries(pkg.entries).map(([subpath, entry]) => [harnessImport(pkg.replaces, subpath), entry])))(
    '%s hands out the very objects of %s, from ES modules and CommonJS',
    (name, entry) => {
      const script = `
import { createRequire } from 'node:module'
const require = createRequire(import.meta.url)
const [ours, theirs] = [await import(${JSON.stringify(target(entry))}), await import(${JSON.stringify(name)})]
const [ourCjs, theirCjs] = [require(${JSON.stringify(target(entry))}), require(${JSON.stringify(name)})]
const same = (a, b) => Object.keys(a).length > 0 && Object.keys(a).join() === Object.keys(b).join() && Object.keys(a).every((key) => a[key] === b[key])
console.log(JSON.stringify({ esm: same(ours, theirs), cjs: ourCjs === theirCjs && same(ourCjs, theirCjs), names: Object.keys(theirs) }))
`
      fs.writeFileSync(path.join(project, 'same.mjs'), script)
      const result = spawnSync(process.execPath, ['same.mjs'], { cwd: project, env, encoding: 'utf8', timeout: 60_000 })
      expect(result.stderr).toBe('')
      const out = JSON.parse(result.stdout)
      expect(out).toMatchObject({ esm: true, cjs: true })
      const list = LISTS[name]
      if (list) for (const value of Object.keys(list.values)) expect(out.names, value).toContain(value)
    },
  )

  it('typings: the harness names type-check under nodenext (.mts, .cts) and bundler, with the lists of the harness packages', { timeout: 180_000 }, () => {
    const names = served.map((pkg) => pkg.replaces)
    const esm = [
      `import { Context } from '@deepseek-ai/cordis'`,
      ...names.map((name, k) => `import entry${k} from '${name}'\nimport * as names${k} from '${name}'`),
      'export async function main(ctx: Context): Promise<unknown[]> {',
      ...names.map((_, k) => `  await ctx.plugin(entry${k})\n  await ctx.plugin(names${k}.default)`),
      '  return [await ctx.skills.list()]',
      '}',
    ].join('\n')
    const cjs = [
      `import type { Context } from '@deepseek-ai/cordis'`,
      ...names.map((name, k) => `import entry${k} = require('${name}')`),
      'export async function main(ctx: Context): Promise<number> {',
      ...names.map((_, k) => `  await ctx.plugin(entry${k}.default)`),
      '  return (await ctx.skills.list()).length',
      '}',
    ].join('\n')
    fs.writeFileSync(path.join(project, 'esm.mts'), `${esm}\n`)
    fs.writeFileSync(path.join(project, 'cjs.cts'), `${cjs}\n`)
    fs.writeFileSync(path.join(project, 'bundled.ts'), `${esm}\n`)
    const probes: string[] = []
    for (const [name, list] of Object.entries(LISTS)) {
      if (!names.some((served) => name === served || name.startsWith(`${served}/`))) continue
      const file = `probe${probes.length}.mts`
      fs.writeFileSync(path.join(project, file), typeProbe(name, list, '@deepseek-ai/cordis'))
      probes.push(file)
    }
    const tsc = (config: object, files: string[]) => {
      const file = path.join(project, 'tsconfig.json')
      const compilerOptions = { target: 'ES2022', strict: true, noEmit: true, skipLibCheck: false, esModuleInterop: true, typeRoots: [path.join(root, 'node_modules', '@types')], types: ['node'], ...config }
      fs.writeFileSync(file, JSON.stringify({ compilerOptions, files }))
      const result = spawnSync(process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', file], { encoding: 'utf8', timeout: 170_000 })
      return result.stdout + result.stderr + (result.status === 0 ? '' : `exit ${result.status}`)
    }
    expect(tsc({ module: 'NodeNext', moduleResolution: 'NodeNext' }, ['esm.mts', 'cjs.cts', ...probes])).toBe('')
    expect(tsc({ module: 'ESNext', moduleResolution: 'Bundler' }, ['bundled.ts'])).toBe('')
  })
})
