// Running `dsh-skills` in tests: as a child process (exit code, stdout,
// stderr) or in this process with streams that may pose as a terminal.
import { spawn, spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import * as path from 'node:path'
import { expect } from 'vitest'

const require = createRequire(import.meta.url)

export const root = path.resolve(__dirname, '..')
export const bin = path.join(root, 'bin', 'dsh-skills.js')

export interface Result {
  code: number | null
  stdout: string
  stderr: string
}

/** An environment without the variables that would change what the CLI reads or prints; HOME is `home`. */
export function cleanEnv(home: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, USERPROFILE: home }
  for (const key of [
    'DSH_HOME',
    'DSH_AGENTS_HOME',
    'DSH_BUNDLED_SKILL_DIR',
    'DSH_SKILLS_DEBUG',
    'DSH_SKILL_LOG',
    'FORCE_COLOR',
    'NO_COLOR',
    'CODEX_HOME',
  ]) {
    delete env[key]
  }
  return { ...env, ...extra }
}

/** `dsh-skills ...args` as a child process. */
export function runCli(args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Result {
  const result = spawnSync(process.execPath, [bin, ...args], {
    cwd: options.cwd,
    env: options.env,
    encoding: 'utf8',
    timeout: 60_000,
  })
  return { code: result.status, stdout: result.stdout, stderr: result.stderr }
}

/** A usage or runtime error: exit `code`, nothing on stdout, one `dsh-skills:` line on stderr, no stack. */
export function expectOneLineError(result: Result, code: number) {
  expect(result.code).toBe(code)
  expect(result.stdout).toBe('')
  const lines = result.stderr.trimEnd().split('\n')
  expect(lines).toHaveLength(1)
  expect(lines[0]).toMatch(/^dsh-skills: /)
  expect(result.stderr).not.toMatch(/\n\s+at /)
}

/** An in-memory stream, optionally posing as a terminal of `columns` columns. */
function stream(tty?: { columns: number }) {
  const chunks: string[] = []
  return {
    isTTY: tty !== undefined,
    columns: tty?.columns,
    write(chunk: string) {
      chunks.push(String(chunk))
      return true
    },
    text: () => chunks.join(''),
  }
}

/** `dsh-skills ...args` in this process (for output on a pretend terminal). */
export async function runInProcess(args: string[], env: NodeJS.ProcessEnv, tty?: { columns: number }): Promise<Result> {
  const { main } = require('../lib/cli/index.js') as {
    main(argv: string[], io: object): Promise<number>
  }
  const stdout = stream(tty)
  const stderr = stream(tty)
  const code = await main(args, { stdout, stderr, env: { ...env } })
  return { code, stdout: stdout.text(), stderr: stderr.text() }
}

/** `dsh-skills watch ...args` running in `cwd`, with its output and a bounded wait on it. */
export function spawnWatch(cwd: string, args: string[], env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, [bin, 'watch', ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
  const out = { stdout: '', stderr: '' }
  child.stdout.setEncoding('utf8').on('data', (chunk) => (out.stdout += chunk))
  child.stderr.setEncoding('utf8').on('data', (chunk) => (out.stderr += chunk))
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  const until = async (condition: () => boolean, what: string) => {
    const deadline = Date.now() + 20_000
    while (!condition()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\nstdout:\n${out.stdout}\nstderr:\n${out.stderr}`)
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }
  return { child, out, exited, until }
}

/** A skill file with frontmatter `name` and `description`. */
export function skillText(name: string, description: string, body = 'Body.') {
  return `---\nname: ${name}\ndescription: ${description}\n---\n${body}\n`
}
