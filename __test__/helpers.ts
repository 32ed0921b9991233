import { execFileSync } from 'node:child_process'
import { createRequire } from 'node:module'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

const require = createRequire(import.meta.url)

/** The package entry under test (CommonJS build of the public API). */
export const pkg = require('../index.js') as typeof import('../index')

export interface Recorder {
  warnings: string[]
  logger: { warn(message: string): void }
}

export function recorder(): Recorder {
  const warnings: string[] = []
  return { warnings, logger: { warn: (message: string) => void warnings.push(message) } }
}

/** Poll `condition` every `interval` ms until it holds or `timeout` ms pass. */
export async function waitFor(condition: () => boolean | Promise<boolean>, timeout = 10_000, interval = 5): Promise<void> {
  const deadline = Date.now() + timeout
  for (;;) {
    if (await condition()) return
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeout} ms`)
    await new Promise((resolve) => setTimeout(resolve, interval))
  }
}

/**
 * Temporary directories for one test file: `make()` creates one (realpath'd),
 * `cleanup()` (register it with `afterAll`) removes them all.
 */
export function tempDirs(prefix: string): { make(): string; cleanup(): void } {
  const dirs: string[] = []
  return {
    make() {
      const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)))
      dirs.push(dir)
      return dir
    },
    cleanup() {
      for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** Write `text` to `file`, creating parent directories. */
export function write(file: string, text: string | Buffer): string {
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, text)
  return file
}

/** A valid skill file whose body names its description. */
export function skillFile(name: string, description: string): string {
  return `---\nname: ${name}\ndescription: ${description}\n---\n\nBody of ${name} (${description}).\n`
}

/**
 * A git project under `root` (with a `.git` directory), a working directory two
 * levels inside it, and the paths of a home, a custom root and a bundled root
 * next to it (not created).
 */
export function projectLayout(root: string) {
  const project = path.join(root, 'project')
  fs.mkdirSync(path.join(project, '.git'), { recursive: true })
  const cwd = path.join(project, 'src', 'deep')
  fs.mkdirSync(cwd, { recursive: true })
  return {
    root,
    project,
    cwd,
    home: path.join(root, 'home'),
    custom: path.join(root, 'custom'),
    bundled: path.join(root, 'bundled'),
  }
}

let hooksAddonPath: string | undefined

/**
 * Path of a debug build of the addon with the `test-hooks` cargo feature (its
 * test-only exports never ship in the release addon). Built once per test
 * process; it reuses what `cargo test` compiled.
 */
export function testHooksAddonPath(): string {
  if (hooksAddonPath !== undefined) return hooksAddonPath
  const root = path.resolve(__dirname, '..')
  const out = execFileSync(
    'cargo',
    ['build', '-p', 'skill-napi', '--features', 'test-hooks', '--message-format', 'json-render-diagnostics'],
    { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 << 20 },
  )
  for (const line of out.split('\n')) {
    if (!line.startsWith('{')) continue
    const message = JSON.parse(line)
    if (message.reason !== 'compiler-artifact' || message.target?.name !== 'skill_napi') continue
    const library = (message.filenames as string[]).find((file) => /\.(so|dylib|dll)$/.test(file))
    if (library) hooksAddonPath = library
  }
  if (hooksAddonPath === undefined) throw new Error('cargo built no skill_napi dynamic library')
  return hooksAddonPath
}

/** The exports of the `test-hooks` build, loaded into this process. */
export function loadTestHooks<T>(): T {
  const module = { exports: {} as T }
  process.dlopen(module, testHooksAddonPath())
  return module.exports
}

/** mulberry32: a small seeded PRNG, good enough for test data; values in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
