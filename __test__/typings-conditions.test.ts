// Every entry's typings as each module system reads them. The package has no
// `"type": "module"`, so a lone `.d.ts` per entry reads as CommonJS: an ES
// module under `module: nodenext` doing `import SkillRegistry from
// '…/harness'` got the whole module and `ctx.plugin(SkillRegistry)` failed
// (TS2345). Each entry now has a `.d.mts` (import) and a `.d.cts` (require),
// generated from its `.d.ts` by scripts/typings.js. This compiles, against the
// packed package in a temporary project, consumers of every entry in
// package.json `exports` (so a new entry is checked as soon as it is listed):
// an `.mts` and a `.cts` file under `nodenext` (each alone and both in one
// program) and the same code under `bundler`. The framework is the harness's
// own copy (`@deepseek-ai/cordis` 4.0.4, whose typings resolve under
// nodenext), also installed as `cordis` for the entries typed for npm `cordis`
// (npm `cordis` 4.0.0-rc.10's own typings do not resolve under nodenext).
import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { copyPackage, pack, projectWith, root, userEnv } from './pack'

const NAME = '@deepseek-ai/dsh-skill-native'
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { exports: Record<string, unknown> }
/** The entries (`.`, `./harness`, …), as package.json lists them. */
const SUBPATHS = Object.keys(manifest.exports).filter((subpath) => subpath !== './package.json')

let base: string
let project: string
/** Per entry: whether its default export is a Cordis plugin (a class or an object with `apply`). */
let plugins: Record<string, boolean>

const specifier = (subpath: string) => (subpath === '.' ? NAME : `${NAME}/${subpath.slice(2)}`)

beforeAll(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-typings-')))
  const home = path.join(base, 'home')
  fs.mkdirSync(home)
  const env = userEnv(home)
  const packed = pack(base, env)
  project = projectWith(path.join(base, 'project'), packed.tarball, env)
  const dev = path.join(root, 'node_modules')
  for (const framework of ['@deepseek-ai/cordis', 'cordis']) copyPackage(project, framework, path.join(dev, 'harness-cordis'))
  for (const schema of ['@deepseek-ai/schemastery', 'schemastery']) copyPackage(project, schema, path.join(dev, 'harness-schemastery'))
  // The harness packages the `skill` tool entry loads and types against (our stand-ins).
  for (const name of ['dsh-scope', 'dsh-tools', 'dsh-llm']) copyPackage(project, `@deepseek-ai/${name}`, path.join(__dirname, 'stand-ins', '@deepseek-ai', name))
  // Which entries default-export a plugin, as Node loads them.
  const probe = spawnSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `const out = {}
for (const subpath of ${JSON.stringify(SUBPATHS)}) {
  const { default: value } = await import(subpath === '.' ? '${NAME}' : '${NAME}/' + subpath.slice(2))
  // Every entry has a default export (its .d.mts declares one; the compatibility packages re-export it).
  if (value === undefined) throw new Error(subpath + ' has no default export')
  out[subpath] = typeof value === 'function' || typeof value?.apply === 'function'
}
console.log(JSON.stringify(out))`,
    ],
    { cwd: project, env, encoding: 'utf8', timeout: 60_000 },
  )
  expect(probe.stderr).toBe('')
  plugins = JSON.parse(probe.stdout)
}, 180_000)

afterAll(() => {
  if (base) fs.rmSync(base, { recursive: true, force: true })
})

/** The consumer code: each entry's default and namespace, every plugin default passed to `ctx.plugin`. */
function consumer(kind: 'esm' | 'cjs'): string {
  const lines = [`import { Context } from '@deepseek-ai/cordis'`]
  SUBPATHS.forEach((subpath, k) => {
    if (kind === 'esm') lines.push(`import entry${k} from '${specifier(subpath)}'`, `import * as names${k} from '${specifier(subpath)}'`)
    else lines.push(`import entry${k} = require('${specifier(subpath)}')`)
  })
  lines.push('export async function main(ctx: Context): Promise<unknown[]> {', '  const out: unknown[] = []')
  SUBPATHS.forEach((subpath, k) => {
    // CommonJS: the default export is `exports.default`.
    const value = kind === 'esm' ? `entry${k}` : `entry${k}.default`
    if (plugins[subpath]) lines.push(`  await ctx.plugin(${value})`)
    if (kind === 'esm') lines.push(`  out.push(names${k})`)
  })
  // The main entry's default is the whole module; the registry's default is the service class.
  const main = SUBPATHS.indexOf('.')
  const harness = SUBPATHS.indexOf('./harness')
  if (kind === 'esm') {
    lines.push(`  out.push(entry${main}.renderCatalogEntries([], 500), new entry${main}.SkillRegistry())`)
    lines.push(`  const registry: entry${harness} = ctx.skills`, `  out.push(await registry.list({ cwd: '/' }))`)
  } else {
    lines.push(`  out.push(entry${main}.renderCatalogEntries([], 500), new entry${main}.SkillRegistry())`)
    lines.push(`  const registry: InstanceType<typeof entry${harness}.default> = ctx.skills`, `  out.push(await registry.list({ cwd: '/' }))`)
  }
  lines.push('  return out', '}', '')
  return lines.join('\n')
}

/** Type-check `files` in the project with `options` (strict, against what is installed there). */
function tsc(name: string, options: Record<string, unknown>, files: string[]) {
  const config = path.join(project, `tsconfig.${name}.json`)
  fs.writeFileSync(
    config,
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        strict: true,
        noEmit: true,
        skipLibCheck: false,
        typeRoots: [path.join(root, 'node_modules', '@types')],
        types: ['node'],
        ...options,
      },
      files,
    }),
  )
  const result = spawnSync(process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', config], {
    encoding: 'utf8',
    timeout: 170_000,
  })
  return { code: result.status, output: result.stdout + result.stderr }
}

describe('typings per module system', () => {
  it('every entry ships a .d.mts for import and a .d.cts for require, made from its .d.ts', () => {
    const installed = path.join(project, 'node_modules', '@deepseek-ai', 'dsh-skill-native')
    const generator = require('../scripts/typings.js') as { entries(exports: unknown): { source: string; mts: string; cts: string }[] }
    const entries = generator.entries(manifest.exports)
    expect(entries.map((entry) => entry.mts)).toContain(path.join('types', 'harness.d.mts'))
    expect(entries).toHaveLength(SUBPATHS.length)
    for (const entry of entries) {
      for (const file of [entry.source, entry.mts, entry.cts]) expect(fs.existsSync(path.join(installed, file)), file).toBe(true)
    }
    expect(plugins['./harness']).toBe(true)
    expect(plugins['.']).toBe(false)
  })

  it('an ES module under nodenext gets each default export as the .mjs entry has it', { timeout: 180_000 }, () => {
    fs.writeFileSync(path.join(project, 'esm.mts'), consumer('esm'))
    const result = tsc('esm', { module: 'NodeNext', moduleResolution: 'NodeNext' }, ['esm.mts'])
    expect(result.output).toBe('')
    expect(result.code).toBe(0)
  })

  it('a CommonJS module under nodenext gets exports.default; with the ES module in one program, one set of declarations', { timeout: 180_000 }, () => {
    fs.writeFileSync(path.join(project, 'cjs.cts'), consumer('cjs'))
    fs.writeFileSync(path.join(project, 'esm.mts'), consumer('esm'))
    for (const files of [['cjs.cts'], ['esm.mts', 'cjs.cts']]) {
      const result = tsc('cjs', { module: 'NodeNext', moduleResolution: 'NodeNext', esModuleInterop: true }, files)
      expect(result.output, files.join(' ')).toBe('')
      expect(result.code).toBe(0)
    }
  })

  it('the same ES module code under bundler resolution', { timeout: 180_000 }, () => {
    fs.writeFileSync(path.join(project, 'bundled.ts'), consumer('esm'))
    const result = tsc('bundler', { module: 'ESNext', moduleResolution: 'Bundler' }, ['bundled.ts'])
    expect(result.output).toBe('')
    expect(result.code).toBe(0)
  })

  it('the wrappers are the ones scripts/typings.js makes (none stale)', () => {
    const result = spawnSync(process.execPath, [path.join(root, 'scripts', 'typings.js'), '--check'], { cwd: root, encoding: 'utf8' })
    expect(result.stderr).toBe('')
    expect(result.status).toBe(0)
  })
})
