// Terminal output never carries characters that rewrite, reorder or hide what
// is shown: controls, bidi controls, zero-width and other invisible format
// characters, line separators. Every command that prints to a terminal is run
// on skill files holding them; `--json` keeps the text as it is.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { tempDirs, write } from './helpers'
import { cleanEnv, runCli, runInProcess, spawnWatch } from './cli-helpers'

const temps = tempDirs('dsh-cli-term-')
afterAll(() => temps.cleanup())

/** Every character the terminal output must escape, by its code point. */
const HIDDEN = [
  0x202a, 0x202b, 0x202c, 0x202d, 0x202e, // bidi embeddings and overrides
  0x2066, 0x2067, 0x2068, 0x2069, // bidi isolates
  0x200e, 0x200f, 0x061c, // directional marks
  0x200b, 0x200c, 0x200d, 0x2060, 0x2061, 0x2062, 0x2063, 0x2064, 0xfeff, // zero-width
  0x00ad, // soft hyphen
  0x2028, 0x2029, 0x0085, // line and paragraph separators, next line
  0x3164, 0x115f, // Hangul fillers (render as nothing)
  0xe0041, // a tag character
]
const RAW = new RegExp(`[${HIDDEN.map((c) => String.fromCodePoint(c)).join('')}\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f]`, 'u')
/** How a character is shown: `\u202e`, `\u{e0041}`. */
const shown = (c: number) => (c > 0xffff ? `\\u{${c.toString(16)}}` : `\\u${c.toString(16).padStart(4, '0')}`)
/** A YAML double-quoted escape of a character. */
const yamlEscape = (c: number) => (c > 0xffff ? `\\U${c.toString(16).padStart(8, '0')}` : `\\u${c.toString(16).padStart(4, '0')}`)

let dir: string
let args: string[]
let env: NodeJS.ProcessEnv
/** The description: every hidden character between two letters (YAML escapes in the file). */
const description = HIDDEN.filter((c) => !/\s/u.test(String.fromCodePoint(c)))
  .map((c) => `a${String.fromCodePoint(c)}b`)
  .join(' ')
/** A file name that would print a forged doctor row if its line break reached the terminal. */
const forged = 'bad\n    loaded    forged      forged.md'
/** A bundle folder whose name reverses the text after it. */
const bidiFolder = 'tools\u202eexe.txt'

beforeAll(() => {
  dir = temps.make()
  const quoted = HIDDEN.filter((c) => !/\s/u.test(String.fromCodePoint(c)))
    .map((c) => `a${yamlEscape(c)}b`)
    .join(' ')
  const body = `Body: ${HIDDEN.map((c) => `<${String.fromCodePoint(c)}>`).join('')} emoji \u2764\ufe0f stays.`
  write(path.join(dir, 'skills', 'evil', 'SKILL.md'), `---\nname: evil\ndescription: "${quoted}"\n---\n${body}\n`)
  write(path.join(dir, 'skills', bidiFolder, 'SKILL.md'), '---\nname: bidi-tools\ndescription: Plain.\n---\nBody.\n')
  write(path.join(dir, 'skills', forged), '---\nname: Not_Kebab\ndescription: x\n---\n')
  fs.mkdirSync(path.join(dir, '.git'))
  const empty = temps.make()
  args = ['--skill-dir', path.join(dir, 'skills'), '--dsh-home', empty, '--agents-home', empty, '--cwd', dir]
  env = cleanEnv(empty)
})

describe('terminal output escapes characters that reorder or hide text', () => {
  it('reads the hostile description as written (the library keeps it; --json shows it raw)', () => {
    const result = runCli(['list', '--json', '--quiet', ...args], { cwd: dir, env })
    const evil = JSON.parse(result.stdout).skills.find((s: { name: string }) => s.name === 'evil')
    expect(evil.description).toBe(description)
  })

  for (const command of [
    // A provider name is printed in list's table.
    ['list', '--verbose', '--provider-name', 'loc\u202eal\u200b'],
    ['catalog', '--verbose'],
    ['show', 'evil'],
    ['explain', 'bidi-tools', '--verbose'],
    ['doctor'],
  ]) {
    it(`${command[0]}: nothing hidden reaches stdout or stderr`, async () => {
      for (const tty of [undefined, { columns: 300 }]) {
        const result = await runInProcess([...command, ...args], { NO_COLOR: '1' }, tty)
        expect(result.stdout, command[0]).not.toMatch(RAW)
        expect(result.stderr, command[0]).not.toMatch(RAW)
      }
    })
  }

  it('shows each character as a visible escape: catalog, show, explain', async () => {
    const catalog = (await runInProcess(['catalog', ...args], {})).stdout
    for (const c of HIDDEN.filter((c) => !/\s/u.test(String.fromCodePoint(c)))) {
      expect(catalog, shown(c)).toContain(`a${shown(c)}b`)
    }
    const show = (await runInProcess(['show', 'evil', ...args], {})).stdout
    for (const c of HIDDEN) expect(show, shown(c)).toContain(`<${shown(c)}>`)
    // Variation selectors only choose a glyph: they stay.
    expect(show).toContain('emoji \u2764\ufe0f stays.')
    const explain = (await runInProcess(['explain', 'bidi-tools', ...args], {})).stdout
    expect(explain).toContain(`tools\\u202eexe.txt${path.sep}SKILL.md`)
  })

  it('doctor: a line break in a file name cannot forge a row', async () => {
    const result = await runInProcess(['doctor', ...args], {})
    const rows = result.stdout.split('\n').filter((line) => /^ {4}(loaded|shadowed|broken|ignored) /.test(line))
    expect(rows).toHaveLength(3)
    expect(rows.filter((line) => line.includes('forged'))).toEqual([
      expect.stringMatching(/^ {4}broken +bad\\x0a {4}loaded {4}forged {6}forged\.md$/),
    ])
    expect(result.stdout).toContain('tools\\u202eexe.txt/SKILL.md')
    expect(result.stdout).toContain('2 loaded, 0 shadowed, 1 broken, 0 ignored')
    // The warnings name the file on one line too.
    const list = await runInProcess(['list', '--verbose', ...args], {})
    expect(list.stderr).toContain('bad\\x0a    loaded    forged      forged.md skipped')
    // JSON keeps the path as it is.
    const json = JSON.parse((await runInProcess(['doctor', '--json', ...args], {})).stdout)
    expect(json.files.map((f: { path: string }) => path.basename(f.path))).toContain(forged)
  })

  it('watch prints the catalog escaped', async () => {
    const { child, out, exited, until } = spawnWatch(dir, ['--catalog', ...args], env)
    try {
      await until(() => out.stdout.includes('</available_skills>'), 'the initial catalog')
    } finally {
      child.kill('SIGINT')
    }
    expect(await exited).toBe(130)
    expect(out.stdout).not.toMatch(RAW)
    expect(out.stderr).not.toMatch(RAW)
    expect(out.stdout).toContain(`a${shown(0x202e)}b`)
  })
})
