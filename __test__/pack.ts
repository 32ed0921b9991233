// The package as a harness author installs it: `npm pack`, then install the
// tarball into a temporary project (offline: it has no dependencies to fetch),
// and packages copied into that project's node_modules the way npm lays them out.
import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'

export const root = path.resolve(__dirname, '..')
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'

/** The environment of a user's shell: none of the npm variables of a surrounding `npm test`. */
export function userEnv(home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [key, value] of Object.entries(process.env)) {
    if (/^npm_/i.test(key) || key === 'INIT_CWD' || key === 'DSH_SKILL_NATIVE_SKIP_INSTALL') continue
    if (key.startsWith('DSH_') || key.startsWith('VITEST') || key === 'NODE_OPTIONS') continue
    env[key] = value
  }
  env.HOME = home
  env.USERPROFILE = home
  env.npm_config_cache = path.join(os.homedir(), '.npm')
  env.npm_config_update_notifier = 'false'
  return env
}

/** Pack this package into `base`; returns the tarball's path and the packed file list. */
export function pack(base: string, env: NodeJS.ProcessEnv): { tarball: string; files: string[] } {
  const packed = JSON.parse(execFileSync(npm, ['pack', '--json', '--pack-destination', base], { cwd: root, env, encoding: 'utf8' }))
  return { tarball: path.join(base, packed[0].filename), files: packed[0].files.map((file: { path: string }) => file.path) }
}

/** A project at `dir` (its package.json written) with the tarball installed. */
export function projectWith(dir: string, tarball: string, env: NodeJS.ProcessEnv, manifest: object = {}): string {
  fs.mkdirSync(dir, { recursive: true })
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: path.basename(dir), private: true, ...manifest }))
  execFileSync(npm, ['install', tarball, '--no-audit', '--no-fund', '--offline'], { cwd: dir, env, encoding: 'utf8', stdio: 'pipe' })
  return dir
}

/** The directory of package `name` as Node finds it from `from` (its own node_modules first, then each parent's). */
export function packageDir(from: string, name: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', name)
    if (fs.existsSync(path.join(candidate, 'package.json'))) return fs.realpathSync(candidate)
    if (path.dirname(dir) === dir) throw new Error(`${name} is not installed above ${from}`)
  }
}

/**
 * Copy the installed package at `source` into `project/node_modules/<name>`
 * (an npm alias keeps the package's own manifest, as here), with every
 * dependency it does not nest itself.
 */
export function copyPackage(project: string, name: string, source: string): void {
  const target = path.join(project, 'node_modules', name)
  if (fs.existsSync(target)) return
  fs.cpSync(source, target, { recursive: true, dereference: true })
  const manifest = JSON.parse(fs.readFileSync(path.join(source, 'package.json'), 'utf8'))
  for (const dep of Object.keys(manifest.dependencies ?? {})) {
    const from = packageDir(source, dep)
    if (from.startsWith(source + path.sep)) continue
    copyPackage(project, dep, from)
  }
}
