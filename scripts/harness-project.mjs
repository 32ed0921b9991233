// The harness's own published packages (the 0.1.0-rc.8 set, which installs
// together: agent, agent loop, LLM runtime, sessions, tools, the skill
// packages and their framework copy) in `__test__/harness-project/`,
// installed from the registry on first use (its lockfile pins every
// version; later runs reuse the install), with this checkout's package
// copied beside them. The tests and benchmarks that run this package inside
// a real agent loop load both from there, so one framework copy serves the
// harness and this package, as in a harness project.
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
export const projectDir = path.join(root, '__test__', 'harness-project')
const modules = path.join(projectDir, 'node_modules')
const OURS = '@deepseek-ai/dsh-skill-native'
const ours = path.join(modules, ...OURS.split('/'))
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'

/** What of this checkout a harness project gets (the published files that run). */
const PACKAGE_FILES = ['package.json', 'index.js', 'index.mjs', 'binding.js', 'lib']

const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)

/** `fn()` while holding a lock directory next to the project (test files run two at a time). */
function locked(fn) {
  const lock = path.join(projectDir, '.install-lock')
  const deadline = Date.now() + 600_000
  for (;;) {
    try {
      fs.mkdirSync(lock)
      break
    } catch (error) {
      if (error.code !== 'EEXIST') throw error
      // A lock older than the longest install is left over from a killed run.
      try {
        if (Date.now() - fs.statSync(lock).mtimeMs > 600_000) fs.rmSync(lock, { recursive: true, force: true })
      } catch {
        // Released meanwhile.
      }
      if (Date.now() > deadline) throw new Error('harness project: the install lock was not released')
      sleep(100)
    }
  }
  try {
    return fn()
  } finally {
    fs.rmSync(lock, { recursive: true, force: true })
  }
}

/** The environment for npm: the caller's, without the settings of a surrounding `npm test`. */
function npmEnv() {
  const env = {}
  for (const [key, value] of Object.entries(process.env)) {
    if (/^npm_/i.test(key) || key === 'INIT_CWD' || key === 'NODE_OPTIONS' || key.startsWith('VITEST')) continue
    env[key] = value
  }
  env.npm_config_update_notifier = 'false'
  return env
}

/** Install the harness packages (when the lockfile changed since the last install). */
function install() {
  const lockfile = path.join(projectDir, 'package-lock.json')
  const installed = path.join(modules, '.package-lock.json')
  if (fs.existsSync(installed) && fs.statSync(installed).mtimeMs >= fs.statSync(lockfile).mtimeMs) return
  execFileSync(npm, ['ci', '--no-audit', '--no-fund', '--prefer-offline', '--ignore-scripts'], {
    cwd: projectDir,
    env: npmEnv(),
    stdio: 'pipe',
    timeout: 600_000,
  })
}

/** Newest modification time under `file` (a file or a directory). */
function newest(file) {
  const stat = fs.statSync(file)
  if (!stat.isDirectory()) return stat.mtimeMs
  let time = stat.mtimeMs
  for (const name of fs.readdirSync(file)) time = Math.max(time, newest(path.join(file, name)))
  return time
}

/** Copy this checkout's package into the project (when it changed since the last copy). */
function copyOurs() {
  const names = fs.readdirSync(root)
  const files = [...PACKAGE_FILES, ...names.filter((name) => name.endsWith('.mjs') || name.endsWith('.node'))]
  const stamp = String(Math.max(...files.map((name) => newest(path.join(root, name)))))
  const marker = path.join(ours, '.copied-from-checkout')
  if (fs.existsSync(marker) && fs.readFileSync(marker, 'utf8') === stamp) return
  fs.rmSync(ours, { recursive: true, force: true })
  for (const name of files) fs.cpSync(path.join(root, name), path.join(ours, name), { recursive: true })
  fs.writeFileSync(marker, stamp)
}

let prepared

/** Install the harness packages and copy this package beside them (once per process). */
export function prepareHarnessProject() {
  prepared ??= locked(() => {
    install()
    copyOurs()
    return true
  })
}

/** The harness's packages call Promise.withResolvers (Node 22); this package runs on Node 20 too. */
function polyfill() {
  if (typeof Promise.withResolvers === 'function') return
  Object.defineProperty(Promise, 'withResolvers', {
    configurable: true,
    writable: true,
    value() {
      let resolve
      let reject
      const promise = new Promise((yes, no) => {
        resolve = yes
        reject = no
      })
      return { promise, resolve, reject }
    },
  })
}

const projectRequire = createRequire(path.join(projectDir, 'package.json'))

/**
 * The file an `import` of `specifier` loads in the project: this package's
 * entries by their `import` condition, the harness's packages (ES modules
 * with a `default` condition) as Node resolves them.
 */
function resolve(specifier) {
  if (specifier === OURS || specifier.startsWith(`${OURS}/`)) {
    const manifest = JSON.parse(fs.readFileSync(path.join(ours, 'package.json'), 'utf8'))
    // `{ import: { types, default } }` (each condition with its own typings).
    const condition = manifest.exports[`.${specifier.slice(OURS.length)}`]?.import
    const target = typeof condition === 'object' && condition !== null ? condition.default : condition
    if (typeof target !== 'string') throw new Error(`${specifier} is not an entry of this package`)
    return path.join(ours, target)
  }
  return projectRequire.resolve(specifier)
}

/** Import `specifier` as the harness project resolves it (its `node_modules`). */
export async function load(specifier) {
  polyfill()
  prepareHarnessProject()
  return import(pathToFileURL(resolve(specifier)).href)
}
