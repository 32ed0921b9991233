// The examples of the README and of the guides in docs/, run as written. Each
// checked block follows a marker `<!-- readme-test: NAME [ARG] -->` (each name
// once across README.md and docs/*.md): the example skill is written where the
// guide puts it and loaded by `dsh-skills`, the refused one is diagnosed, and
// the Cordis snippets run in a child process of their own.
import { spawn } from 'node:child_process'
import * as fs from 'node:fs'
import { createRequire } from 'node:module'
import * as path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { tempDirs, write } from './helpers'
import { cleanEnv, root, runCli, skillText } from './cli-helpers'

const require = createRequire(import.meta.url)
const temps = tempDirs('dsh-readme-')
afterAll(() => temps.cleanup())

const README = fs.readFileSync(path.join(root, 'README.md'), 'utf8')
/** README.md and every guide in docs/, by their path from the package root. */
const documents = new Map<string, string>([
  ['README.md', README],
  ...fs
    .readdirSync(path.join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name): [string, string] => [`docs/${name}`, fs.readFileSync(path.join(root, 'docs', name), 'utf8')]),
])

/** The fenced block right after the marker `<!-- readme-test: name … -->`: its info string, text and the marker's argument. */
function block(name: string) {
  const marker = new RegExp(`<!-- readme-test: ${name}(?: ([^ ]+))? -->\\n`, 'g')
  const found = [...documents].flatMap(([file, text]) => [...text.matchAll(marker)].map((match) => ({ file, text, match })))
  if (found.length !== 1) throw new Error(`README.md, docs/: expected one marker "readme-test: ${name}", found ${found.length}`)
  const { file, text, match } = found[0]
  const after = text.slice(match.index! + match[0].length)
  const fence = /^```(\w*)\n([^]*?)\n```\n/.exec(after)
  if (!fence) throw new Error(`${file}: no fenced block right after the marker "readme-test: ${name}"`)
  return { file, info: fence[1], text: `${fence[2]}\n`, arg: match[1], after: after.slice(fence[0].length) }
}

/** A project (with `.git`) and an empty home. */
function project() {
  const base = temps.make()
  const dir = path.join(base, 'project')
  const home = path.join(base, 'home')
  fs.mkdirSync(path.join(dir, '.git'), { recursive: true })
  fs.mkdirSync(home)
  return { dir, home, env: cleanEnv(home) }
}

describe('docs/writing-skills.md: Writing a skill', () => {
  it('the example skill loads as the guide says: list output, fields, instructions', () => {
    const example = block('skill-example')
    expect(example.file).toBe('docs/writing-skills.md')
    expect(example.info).toBe('markdown')
    expect(example.arg).toMatch(/^\.agents\/skills\/[a-z0-9-]+\/SKILL\.md$/)
    const { dir, env } = project()
    write(path.join(dir, example.arg!), example.text)

    const list = runCli(['list'], { cwd: dir, env })
    expect(list.code).toBe(0)
    expect(list.stdout).toBe(block('skill-example-list').text)
    expect(list.stderr).toBe('dsh-skills: 1 loaded, 0 shadowed, 0 broken, 0 ignored\n')

    const claimed = JSON.parse(block('skill-example-definition').text)
    const shown = runCli(['show', claimed.name, '--json'], { cwd: dir, env })
    expect(shown.code).toBe(0)
    const { definition, toolResult } = JSON.parse(shown.stdout)
    expect(definition).toMatchObject(claimed)
    // The instructions: everything after the closing `---` line, trimmed.
    const body = example.text.split('\n---\n').slice(1).join('\n---\n').trim()
    expect(definition.content).toBe(body)
    expect(definition.resourceBase).toEqual({ kind: 'directory', path: path.dirname(path.join(dir, example.arg!)) })
    expect(toolResult).toContain(body)
    // A clean bill of health.
    const doctor = runCli(['doctor'], { cwd: dir, env })
    expect(doctor.code).toBe(0)
    expect(doctor.stdout).toContain('1 loaded, 0 shadowed, 0 broken, 0 ignored')
  })

  it('the refused example is refused with the reason and the fix the guide quotes', () => {
    const refused = block('skill-refused')
    const { dir, env } = project()
    const name = /^name: (.*)$/m.exec(refused.text)![1]
    write(path.join(dir, '.agents', 'skills', `${name}.md`), refused.text)
    write(path.join(dir, '.agents', 'skills', 'fine.md'), skillText('fine', 'A sibling that still loads.'))
    const doctor = runCli(['doctor'], { cwd: dir, env })
    expect(doctor.code).toBe(1)
    expect(doctor.stdout).toMatch(new RegExp(`\\n {4}broken +${name}\\.md\\n`))
    expect(doctor.stdout).toContain('1 loaded, 0 shadowed, 1 broken, 0 ignored')
    // The paragraph after the block quotes doctor's words in ``double backticks``.
    const paragraph = refused.after.trimStart().split('\n\n')[0]
    const quoted = [...paragraph.matchAll(/``(.+?)``/gs)].map((m) => m[1].replace(/\s*\n\s*/g, ' '))
    expect(quoted.length).toBeGreaterThanOrEqual(2)
    for (const text of quoted) expect(doctor.stdout).toContain(text)
    const show = runCli(['show', name], { cwd: dir, env })
    expect(show.code).toBe(1)
    for (const text of quoted) expect(show.stderr).toContain(text)
  })
})

describe('README: Use as a Cordis drop-in', () => {
  it('the install line names this package and its peer dependencies', () => {
    const install = block('cordis-install')
    const words = install.text.trim().split(/\s+/)
    expect(words.slice(0, 2)).toEqual(['npm', 'install'])
    const pkg = require('../package.json')
    expect(words[2]).toBe(pkg.name)
    const peers = words.slice(3)
    expect(peers.length).toBeGreaterThan(0)
    for (const peer of peers) expect(Object.keys(pkg.peerDependencies)).toContain(peer)
    // The Cordis entry needs each of them (they are what `Cannot find module` names).
    expect(peers).toContain('cordis')
  })

  /** A project whose node_modules holds this package and its peers, as `npm install` leaves them (links here). */
  function consumer() {
    const { dir, home, env } = project()
    const modules = path.join(dir, 'node_modules')
    fs.mkdirSync(path.join(modules, '@deepseek-ai'), { recursive: true })
    fs.symlinkSync(root, path.join(modules, '@deepseek-ai', 'dsh-skill-native'), 'dir')
    // The peers the README's install line names (the other optional peers
    // belong to the harness's own framework copy and are not installed here).
    const peers = block('cordis-install').text.trim().split(/\s+/).slice(3)
    for (const peer of peers) {
      const resolved = path.dirname(require.resolve(`${peer}/package.json`))
      fs.mkdirSync(path.dirname(path.join(modules, peer)), { recursive: true })
      fs.symlinkSync(resolved, path.join(modules, peer), 'dir')
    }
    write(path.join(dir, '.agents', 'skills', 'local-one.md'), skillText('local-one', 'A project skill.'))
    return { dir, home, env }
  }

  function start(dir: string, env: NodeJS.ProcessEnv, script: string) {
    write(path.join(dir, 'main.mjs'), script)
    const child = spawn(process.execPath, ['main.mjs'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] })
    const out = { stdout: '', stderr: '' }
    child.stdout.setEncoding('utf8').on('data', (chunk) => (out.stdout += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk) => (out.stderr += chunk))
    let exit: number | null | undefined
    const exited = new Promise<number | null>((resolve) =>
      child.on('exit', (code) => {
        exit = code
        resolve(code)
      }),
    )
    const until = async (condition: () => boolean, what: string) => {
      const deadline = Date.now() + 20_000
      while (!condition()) {
        if (exit !== undefined) throw new Error(`exited (${exit}) before ${what}\nstdout:\n${out.stdout}\nstderr:\n${out.stderr}`)
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\nstdout:\n${out.stdout}\nstderr:\n${out.stderr}`)
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
    }
    return { child, out, exited, until, running: () => exit === undefined }
  }

  it('the snippet, run as written, lists the skills; alone it ends at once, because the watchers do not keep Node alive', async () => {
    const { dir, env } = consumer()
    const run = start(dir, env, block('cordis-example').text)
    expect(await run.exited).toBe(0)
    expect(run.out.stderr).toBe('')
    // The project's skill file is among the names it printed.
    expect(run.out.stdout.trim().split('\n').at(-1)).toMatch(/\blocal-one\b/)
  })

  it("the current release's snippet loads the registry and the filesystem plugin and lists the project's skills", async () => {
    const { dir, env } = consumer()
    const current = block('cordis-current')
    expect(current.file).toBe('README.md')
    const run = start(dir, env, current.text)
    expect(await run.exited).toBe(0)
    expect(run.out.stderr).toBe('')
    expect(run.out.stdout).toBe('local-one\n')
  })

  it('with the keep-alive lines it stays, sees a new skill file, and ends on Ctrl-C', async () => {
    const { dir, env } = consumer()
    const run = start(dir, env, `${block('cordis-example').text}\n${block('cordis-keep-alive').text}`)
    try {
      await run.until(() => /\blocal-one\b/.test(run.out.stdout), 'the first listing')
      write(path.join(dir, '.agents', 'skills', 'added-later.md'), skillText('added-later', 'Written while it runs.'))
      await run.until(() => /\badded-later\b/.test(run.out.stdout), 'the listing after the change')
      expect(run.running()).toBe(true)
    } finally {
      run.child.kill('SIGINT')
    }
    expect(await run.exited).toBe(0)
    expect(run.out.stderr).toBe('')
  })
})

beforeAll(() => {
  // The README and the guide name the sections these blocks belong to.
  for (const heading of ['## Writing a skill', '## Use as a Cordis drop-in', '### Both harness releases', '## The `dsh-skills` CLI']) {
    expect(README).toContain(`\n${heading}\n`)
  }
  expect(documents.get('docs/writing-skills.md')).toMatch(/^# Writing a skill\n/)
})
