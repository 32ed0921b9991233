// How `dsh-skills` behaves as a command-line program: version and colour
// flags, warnings counted after the output, watch's exit code and change
// lines, doctor with the flags the other commands take, shell completions.
import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import { createRequire } from 'node:module'
import * as path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { tempDirs, write } from './helpers'
import { bin, cleanEnv, expectOneLineError, root, runCli, skillText, spawnWatch } from './cli-helpers'

const require = createRequire(import.meta.url)
const temps = tempDirs('dsh-cli-manners-')
afterAll(() => temps.cleanup())

let ws: string
let env: NodeJS.ProcessEnv
let roots: string[]
const run = (args: string[], extra: NodeJS.ProcessEnv = {}) => runCli(args, { cwd: ws, env: { ...env, ...extra } })
const ESC = '\u001b'

beforeAll(() => {
  // A copy of the example workspace, its own project root, with its own homes.
  ws = path.join(temps.make(), 'workspace')
  fs.cpSync(path.join(root, 'examples', 'workspace'), ws, { recursive: true, filter: (src) => path.basename(src) !== '.git' })
  fs.mkdirSync(path.join(ws, '.git'))
  env = cleanEnv(temps.make())
  roots = [
    '--dsh-home',
    path.join(ws, 'home', '.dsh'),
    '--agents-home',
    path.join(ws, 'home', '.agents'),
    '--skill-dir',
    path.join(ws, 'team-skills'),
    '--bundled-dir',
    path.join(ws, 'home', 'bundled-skills'),
  ]
})

describe('--color', () => {
  it('always, never and auto decide over FORCE_COLOR, NO_COLOR and whether stdout is a terminal', () => {
    expect(run(['doctor', ...roots, '--color', 'always']).stdout).toContain(`${ESC}[32mloaded`)
    expect(run(['doctor', ...roots, '--color', 'always'], { NO_COLOR: '1' }).stdout).toContain(`${ESC}[32mloaded`)
    expect(run(['doctor', ...roots, '--color', 'never'], { FORCE_COLOR: '1' }).stdout).not.toContain(ESC)
    expect(run(['doctor', ...roots, '--color', 'auto']).stdout).not.toContain(ESC)
    expect(run(['doctor', ...roots, '--color=auto'], { FORCE_COLOR: '1' }).stdout).toContain(`${ESC}[32mloaded`)
    // Every command takes it, help included.
    expect(run(['help', '--color', 'never']).code).toBe(0)
    const bad = run(['list', '--color', 'alway'])
    expectOneLineError(bad, 2)
    expect(bad.stderr).toContain('--color takes auto, always, never (got "alway"); did you mean always?')
  })
})

describe('warnings after the output', () => {
  it("counts the shadowed and broken skills in one line, with list's numbers and words; --verbose prints each; --quiet none", () => {
    const counted = run(['catalog', ...roots])
    expect(counted.code).toBe(0)
    expect(counted.stderr).toBe(`dsh-skills: warning: 2 shadowed, 4 broken (each one: --verbose; why: dsh-skills doctor ${roots.join(' ')})\n`)
    expect(run(['list', ...roots]).stderr).toContain('dsh-skills: 10 loaded, 2 shadowed, 4 broken, 1 ignored;')
    const verbose = run(['catalog', ...roots, '--verbose'])
    const lines = verbose.stderr.trimEnd().split('\n')
    expect(lines).toHaveLength(6)
    expect(lines.filter((line) => / skipped: /.test(line))).toHaveLength(4)
    expect(lines.filter((line) => / is shadowed by /.test(line))).toHaveLength(2)
    expect(verbose.stdout).toBe(counted.stdout)
    expect(run(['catalog', ...roots, '--quiet']).stderr).toBe('')
    expect(run(['explain', 'code-review', ...roots]).stderr).toBe(counted.stderr)
  })

  it('prints a warning of any other kind in full', () => {
    const { printWarnings } = require('../lib/cli/warnings.js')
    const printed: string[] = []
    const err = { warning: (message: string) => printed.push(message) }
    printWarnings(
      [
        'skill file /r/a.md skipped: frontmatter field `description` is required',
        'skill root /r was not listed; skill discovery is incomplete',
        'skill file /r/b.md skipped: missing frontmatter: the first line must be exactly `---`',
      ],
      err,
      // doctor's counts: b.md is no skill (no frontmatter), a.md is broken.
      { counts: { shadowed: 0, broken: 1 } },
    )
    expect(printed).toEqual(['skill root /r was not listed; skill discovery is incomplete', '1 broken (each one: --verbose; why: dsh-skills doctor)'])
  })
})

describe('doctor takes the flags the other commands take', () => {
  it('accepts -q, and shows what each override flag does to a loaded skill', () => {
    const plain = run(['doctor', ...roots])
    expect(run(['doctor', ...roots, '-q']).stdout).toBe(plain.stdout)
    const result = run(['doctor', ...roots, '--off', 'code-*', '--user-only', 'debugging'])
    expect(result.code).toBe(1) // the example's broken files
    expect(result.stdout).toMatch(/\n {4}loaded +code-review +code-review\/SKILL\.md\n {14}switched off by --off code-\*\n/)
    expect(result.stdout).toMatch(/\n {4}loaded +debugging +debugging\.md\n {14}user-only by --user-only debugging\n/)
    expect(result.stdout).toContain('10 loaded (1 switched off), 2 shadowed, 4 broken, 1 ignored')
    const json = JSON.parse(run(['doctor', ...roots, '--json', '--off', 'code-*']).stdout)
    const off = json.files.filter((f: { override?: unknown }) => f.override)
    expect(off.map((f: { name: string; override: { effect: string; flag: string } }) => [f.name, f.override.effect, f.override.flag])).toEqual([
      ['code-review', 'off', '--off code-*'],
      ['code-review', 'off', '--off code-*'],
    ])
  })
})

describe('watch', () => {
  it('says what changed (added, changed, removed, broken with why, body changed) without the catalog; --catalog adds it; exits 130 on SIGINT, 143 on SIGTERM', async () => {
    const project = temps.make()
    fs.mkdirSync(path.join(project, '.git'))
    const skills = path.join(project, '.agents', 'skills')
    write(path.join(skills, 'first.md'), skillText('first', 'First skill.'))
    write(path.join(skills, 'stays.md'), skillText('stays', 'Unchanged.'))
    const empty = temps.make()
    const replace = (file: string, text: string) => {
      write(`${file}.tmp`, text)
      fs.renameSync(`${file}.tmp`, file)
    }
    const watched = spawnWatch(project, ['--dsh-home', empty, '--agents-home', empty], env)
    const { out, until } = watched
    const replacements = () => out.stdout.split('# replacement catalog').slice(1)
    const digest = '[0-9a-f]{64}'
    try {
      await until(() => out.stdout.includes('# initial catalog'), 'the initial catalog')
      await until(() => out.stdout.includes('\n'), 'the end of the first line')
      expect(out.stdout).toMatch(new RegExp(`^# initial catalog, digest ${digest} \\(2 skills\\)\n$`))
      replace(path.join(skills, 'second.md'), skillText('second', 'Second skill.'))
      await until(() => replacements().length >= 1, 'a replacement')
      expect(replacements()[0]).toMatch(new RegExp(`^, digest ${digest} \\(3 skills\\)\n# added: second\n$`))
      replace(path.join(skills, 'first.md'), skillText('first', 'First, reworded.'))
      await until(() => replacements().length >= 2, 'a second replacement')
      expect(replacements()[1]).toMatch(new RegExp(`^, digest ${digest} \\(3 skills\\)\n# changed: first\n$`))
      fs.rmSync(path.join(skills, 'second.md'))
      await until(() => replacements().length >= 3, 'a third replacement')
      expect(replacements()[2]).toMatch(new RegExp(`^, digest ${digest} \\(2 skills\\)\n# removed: second\n$`))
      // Only the body changes: the catalog stays, the line says which skill.
      replace(path.join(skills, 'stays.md'), `${skillText('stays', 'Unchanged.')}More instructions.\n`)
      await until(() => out.stdout.endsWith('# body changed: stays\n'), 'the body change')
      expect(replacements()).toHaveLength(3)
      // A skill that breaks: which file, and why, in the same line.
      replace(path.join(skills, 'first.md'), '---\nname: first\ndescription: First.\ndisable-model-invocation: maybe\n---\nBody.\n')
      await until(() => replacements().length >= 4, 'the break')
      expect(replacements()[3]).toMatch(
        new RegExp(`^, digest ${digest} \\(1 skill\\)\n# broken: first: .*first\\.md: frontmatter field \`disable-model-invocation\` must be a boolean.*\n$`),
      )
      expect(out.stdout).not.toContain('<system-reminder>')
    } finally {
      watched.child.kill('SIGINT')
    }
    expect(await watched.exited).toBe(130)

    // --catalog: each new catalog in full too.
    const again = spawnWatch(project, ['--catalog', '--dsh-home', empty, '--agents-home', empty], env)
    try {
      await again.until(() => again.out.stdout.includes('</system-reminder>'), 'the initial catalog in full')
      expect(again.out.stdout).toMatch(new RegExp(`^# initial catalog, digest ${digest} \\(1 skill\\)\n<system-reminder>\n`))
      expect(again.out.stdout).toContain('- `stays`: Unchanged.')
    } finally {
      again.child.kill('SIGTERM')
    }
    expect(await again.exited).toBe(143)
  })
})

describe('watch warnings', () => {
  it('names a skill broken by a change, each time it breaks again, once (on stdout)', async () => {
    const project = temps.make()
    fs.mkdirSync(path.join(project, '.git'))
    const skills = path.join(project, '.agents', 'skills')
    write(path.join(skills, 'stays.md'), skillText('stays', 'Unchanged.'))
    const bundle = path.join(skills, 'bund', 'SKILL.md')
    write(bundle, skillText('bund', 'Bundle.'))
    const empty = temps.make()
    const replace = (text: string) => {
      write(`${bundle}.tmp`, text)
      fs.renameSync(`${bundle}.tmp`, bundle)
    }
    const broken = `---\nname: bund\ndescription: [broken\n---\nBody.\n`
    const watched = spawnWatch(project, ['--dsh-home', empty, '--agents-home', empty], env)
    const { out, until } = watched
    // Named on stdout, with its file and why; not warned about on stderr as well.
    const named = () => out.stdout.split('\n').filter((line) => line.startsWith(`# broken: bund: ${path.relative(project, bundle)}: `)).length
    try {
      await until(() => out.stdout.includes('# initial catalog'), 'the initial catalog')
      replace(broken)
      await until(() => named() === 1, 'the first break, named')
      replace(skillText('bund', 'Bundle, fixed.'))
      await until(() => /# added: bund/.test(out.stdout), 'the fixed skill')
      replace(broken)
      await until(() => named() === 2, 'the second break, named again')
    } finally {
      watched.child.kill('SIGINT')
    }
    expect(await watched.exited).toBe(130)
    expect(out.stderr).not.toMatch(/skill files? skipped \(each one/)
    expect(out.stderr).not.toContain(bundle)
  })
})

describe('dsh-skills completion', () => {
  const hasShell = (shell: string) => spawnSync(shell, ['-c', 'exit 0']).status === 0
  /** A `dsh-skills` on PATH (the completions call it for skill names). */
  let shim: string

  beforeAll(() => {
    shim = temps.make()
    write(path.join(shim, 'dsh-skills'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(bin)} "$@"\n`)
    fs.chmodSync(path.join(shim, 'dsh-skills'), 0o755)
  })

  /** What bash completes for the command line `words` (the last word is the one being completed). */
  function bashComplete(words: string[]) {
    const script = `eval "$(dsh-skills completion bash)"
COMP_WORDS=(${words.map((word) => `'${word}'`).join(' ')}); COMP_CWORD=${words.length - 1}; COMPREPLY=()
_dsh_skills
printf '%s\\n' "\${COMPREPLY[@]}"
complete -p dsh-skills`
    const result = spawnSync('bash', ['--norc', '-c', script], {
      cwd: ws,
      env: { ...env, PATH: `${shim}${path.delimiter}${env.PATH}` },
      encoding: 'utf8',
    })
    expect(result.stderr).toBe('')
    const lines = result.stdout.trimEnd().split('\n')
    expect(lines.pop()).toBe('complete -F _dsh_skills dsh-skills')
    return lines.filter(Boolean)
  }

  it.skipIf(!hasShell('bash'))('bash: commands, the options each command takes, option values, skill names', () => {
    expect(bashComplete(['dsh-skills', 'li'])).toEqual(['list'])
    expect(bashComplete(['dsh-skills', '--cwd', '.', 'do'])).toEqual(['doctor'])
    expect(bashComplete(['dsh-skills', 'completion', ''])).toEqual(['bash', 'zsh', 'fish'])
    expect(bashComplete(['dsh-skills', 'list', '--compat', ''])).toEqual(['claude', 'codex'])
    expect(bashComplete(['dsh-skills', 'list', '--color', 'n'])).toEqual(['never'])
    for (const command of ['list', 'catalog', 'show', 'explain', 'doctor', 'watch', 'completion']) {
      const offered = bashComplete(['dsh-skills', command, '--']).sort()
      const help = run(['help', command]).stdout
      // The command's own options, then the shared ones named in one line.
      const section = help.slice(help.indexOf('\nAlso ') >= 0 && !help.includes('\nOptions:') ? help.indexOf('\nAlso ') : help.indexOf('\nOptions:'), help.indexOf('\nExamples:'))
      const listed = [...new Set([...section.matchAll(/--[a-z-]+/g)].map((m) => m[0]))].sort()
      expect(offered, command).toEqual(listed)
    }
    expect(bashComplete(['dsh-skills', 'doctor', '--p'])).toEqual(['--provider-name', '--pin'])
    // Skill names come from `dsh-skills list` in the current directory.
    expect(bashComplete(['dsh-skills', 'show', 'rel'])).toEqual(['release-notes'])
  })

  it.skipIf(!hasShell('fish'))('fish: the same, through `complete -C`', () => {
    const complete = (line: string) => {
      const result = spawnSync('fish', ['--no-config', '-c', `dsh-skills completion fish | source; complete -C ${JSON.stringify(line)}`], {
        cwd: ws,
        env: { ...env, PATH: `${shim}${path.delimiter}${env.PATH}` },
        encoding: 'utf8',
      })
      expect(result.stderr).toBe('')
      return result.stdout.trimEnd().split('\n').map((row) => row.split('\t')[0])
    }
    expect(complete('dsh-skills li')).toEqual(['list'])
    expect(complete('dsh-skills doctor --p').sort()).toEqual(['--pin', '--provider-name'])
    expect(complete('dsh-skills list --p')).toEqual(['--provider-name'])
    expect(complete('dsh-skills list --color ')).toEqual(['always', 'auto', 'never'])
    expect(complete('dsh-skills show rel')).toEqual(['release-notes'])
  })

  it.skipIf(!hasShell('zsh'))('zsh: the script loads and registers its completion function', () => {
    const script = 'autoload -U compinit && compinit -u -D; eval "$(dsh-skills completion zsh)"; print -r -- ${_comps[dsh-skills]}'
    const result = spawnSync('zsh', ['-f', '-c', script], {
      cwd: ws,
      env: { ...env, PATH: `${shim}${path.delimiter}${env.PATH}` },
      encoding: 'utf8',
    })
    expect(result.stderr).toBe('')
    expect(result.stdout.trim()).toBe('_dsh_skills')
  })

  it('takes one shell name', () => {
    for (const [args, message] of [
      [['completion'], 'completion needs a shell: bash, zsh, fish'],
      [['completion', 'bsh'], 'completion takes bash, zsh, fish (got "bsh"); did you mean bash?'],
      [['completion', 'bash', 'zsh'], 'completion takes one shell name'],
    ] as const) {
      const result = run([...args])
      expectOneLineError(result, 2)
      expect(result.stderr).toContain(message)
    }
    for (const shell of ['bash', 'zsh', 'fish']) expect(run(['completion', shell]).stdout).toContain('dsh-skills')
  })
})
