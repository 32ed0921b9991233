// What a newcomer meets on a large corpus of collected skills: hints that
// name many root flags briefly, dot-directory collections, pairs of broken
// folders that would get the same did-you-mean, `show` of a broken folder
// name, help texts, and the demo's roots.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { tempDirs, write } from './helpers'
import { cleanEnv, root, runCli, skillText } from './cli-helpers'

const temps = tempDirs('dsh-cli-newcomer-')
afterAll(() => temps.cleanup())

/** A project (with `.git`) and an empty home. */
function setup() {
  const base = temps.make()
  const project = path.join(base, 'project')
  const home = path.join(base, 'home')
  fs.mkdirSync(path.join(project, '.git'), { recursive: true })
  fs.mkdirSync(home)
  const env = cleanEnv(home)
  const run = (args: string[]) => runCli(args, { cwd: project, env })
  return { base, project, home, env, run }
}

describe('hints with many roots', () => {
  it('name the root flags briefly instead of repeating each one', () => {
    const { base, run } = setup()
    const dirs = Array.from({ length: 45 }, (_, i) => path.join(base, 'collections', `c${i}`))
    for (const [i, dir] of dirs.entries()) write(path.join(dir, `s${i}`, 'SKILL.md'), skillText(`s${i}`, `Skill ${i}.`))
    write(path.join(dirs[0], 'Broken_One', 'SKILL.md'), skillText('Broken_One', 'Broken.'))
    const flags = dirs.flatMap((dir) => ['--skill-dir', dir])
    const list = run(['list', '--no-default-roots', ...flags])
    expect(list.code).toBe(0)
    expect(list.stderr).toBe(
      'dsh-skills: 45 loaded, 0 shadowed, 1 broken, 0 ignored; why: dsh-skills doctor with the same root flags (--no-default-roots, 45 × --skill-dir)\n',
    )
    const catalog = run(['catalog', '--no-default-roots', ...flags])
    expect(catalog.code).toBe(0)
    expect(catalog.stderr).toBe(
      'dsh-skills: warning: 1 broken (each one: --verbose; why: dsh-skills doctor with the same root flags (--no-default-roots, 45 × --skill-dir))\n',
    )
    // A few short flags are still written out, so the hint can be copied.
    const few = run(['list', '--no-default-roots', '--skill-dir', dirs[0]])
    expect(few.stderr).toContain(`why: dsh-skills doctor --no-default-roots --skill-dir ${dirs[0]}\n`)
  })
})

describe('collections under dot-directories', () => {
  it('doctor says the dot-directory holds skill folders and which flag reads them; following it loads them', () => {
    const { project, run } = setup()
    const skills = path.join(project, '.agents', 'skills')
    for (const name of ['alpha', 'beta']) write(path.join(skills, '.curated', name, 'SKILL.md'), skillText(name, `${name}.`))
    write(path.join(skills, '.experimental', 'deep', 'gamma', 'SKILL.md'), skillText('gamma', 'Gamma.'))
    fs.mkdirSync(path.join(skills, '.empty'))
    const doctor = run(['doctor'])
    expect(doctor.code).toBe(0)
    const curated = path.join(skills, '.curated')
    expect(doctor.stdout).toContain(
      '.curated/\n              not a skill: a dot-directory without SKILL.md\n' +
        `              hint: \`.curated/\` holds 2 skill folders; dot-directories are not read: to read them, add --skill-dir ${curated} (provider option customSkillDirs)\n`,
    )
    expect(doctor.stdout).toMatch(/\n {4}ignored +\.curated\/\n/)
    // Deeper than one level below a dot-directory: the depth hint.
    expect(doctor.stdout).toContain('hint: 1 SKILL.md file below `.experimental/` is deeper than one level')
    // An empty dot-directory gets no hint.
    expect(doctor.stdout).toMatch(/ignored +\.empty\/\n +not a skill: a dot-directory without SKILL\.md\n {4}\S/)
    const json = JSON.parse(run(['doctor', '--json']).stdout)
    const entry = json.files.find((file: { path: string }) => path.dirname(file.path) === curated)
    expect(entry.hints).toEqual([
      `\`.curated/\` holds 2 skill folders; dot-directories are not read: to read them, add --skill-dir ${curated} (provider option customSkillDirs)`,
    ])
    // list names it too, under its summary.
    const before = run(['list'])
    expect(before.stderr).toBe(
      'dsh-skills: no skills found\n' +
        'dsh-skills: 0 loaded, 0 shadowed, 0 broken, 3 ignored; why: dsh-skills doctor\n' +
        `dsh-skills: hint: \`.curated/\` holds 2 skill folders; dot-directories are not read: to read them, add --skill-dir ${curated} (provider option customSkillDirs)\n`,
    )
    const list = run(['list', '--skill-dir', curated])
    expect(list.stderr).not.toContain('hint:')
    expect(list.stdout.split('\n').slice(1, 3).map((row) => row.split(/\s+/)[0])).toEqual(['alpha', 'beta'])
  })
})

describe('did you mean', () => {
  it('suggests a kebab-case name to one file only: a second file that would get the same one is told so', () => {
    const { project, run } = setup()
    const skills = path.join(project, '.agents', 'skills')
    write(path.join(skills, 'capsule_crm-automation', 'SKILL.md'), skillText('capsule_crm-automation', 'Capsule CRM.'))
    write(path.join(skills, 'capsule-crm-automation', 'SKILL.md'), skillText('Capsule-CRM-Automation', 'Capsule CRM, again.'))
    write(path.join(skills, 'no-name', 'SKILL.md'), '---\ndescription: No name.\n---\nBody.\n')
    write(path.join(skills, 'No_Name', 'SKILL.md'), '---\ndescription: No name either.\n---\nBody.\n')
    const doctor = JSON.parse(run(['doctor', '--json']).stdout)
    const hints = (folder: string) => doctor.files.find((file: { path: string }) => path.basename(path.dirname(file.path)) === folder).hints
    // One of the two gets the suggestion, the other is told whose suggestion it is.
    const pair = ['capsule-crm-automation', 'capsule_crm-automation']
    const winner = pair.find((folder) => hints(folder)[0] === 'did you mean `capsule-crm-automation`?')
    expect(winner).toBeDefined()
    const other = pair.find((folder) => folder !== winner)!
    expect(hints(other)).toEqual([
      `not \`capsule-crm-automation\`: it is the name suggested for ${path.join('.agents', 'skills', winner!, 'SKILL.md')}; choose a kebab-case name no other skill has`,
    ])
    // Following the one suggestion makes no collision.
    const suggested = [...hints('capsule-crm-automation'), ...hints('capsule_crm-automation')]
      .map((hint: string) => /^did you mean `(.*)`\?$/.exec(hint)?.[1])
      .filter(Boolean)
    expect(suggested).toEqual(['capsule-crm-automation'])
    // The same for a missing name: the `name:` line suggested from the folder.
    const noName = [...hints('no-name'), ...hints('No_Name')]
    expect(noName.filter((hint: string) => hint.startsWith('fix: add a `name:` line, e.g. `no-name`'))).toHaveLength(1)
    expect(noName.filter((hint: string) => hint.startsWith('not `no-name`: it is the name suggested for '))).toHaveLength(1)
  })
})

describe('show with a folder name', () => {
  it('a broken folder: which file, why and the fix (exit 1), not a usage error', () => {
    const { project, run } = setup()
    const skills = path.join(project, '.agents', 'skills')
    write(path.join(skills, 'Deploy_Prod', 'SKILL.md'), skillText('Deploy_Prod', 'Deploy.'))
    const show = run(['show', 'Deploy_Prod'])
    expect(show.code).toBe(1)
    expect(show.stdout).toBe('')
    const file = path.join('.agents', 'skills', 'Deploy_Prod', 'SKILL.md')
    const lines = show.stderr.trimEnd().split('\n')
    expect(lines[0]).toBe('dsh-skills: "Deploy_Prod" is not a skill name, but the entry of that name is broken (all broken files: dsh-skills doctor)')
    expect(lines[1]).toBe(`  ${file} [project-agents] does not load`)
    expect(lines[2]).toMatch(/^ {2}because frontmatter field `name` must be kebab-case .*got "Deploy_Prod"$/)
    expect(lines[3]).toBe('  did you mean `deploy-prod`?')
    expect(lines).toHaveLength(4)
    expect(run(['explain', 'Deploy_Prod']).stderr).toContain(`  ${file} [project-agents] does not load\n`)
  })

  it('a folder whose skill loads under another name: points at that name', () => {
    const { project, run } = setup()
    write(path.join(project, '.agents', 'skills', 'Release_Notes', 'SKILL.md'), skillText('release-notes', 'Notes.'))
    const show = run(['show', 'Release_Notes'])
    expect(show.code).toBe(2)
    expect(show.stderr).toBe(
      'dsh-skills: "Release_Notes" is a folder name; its skill is named "release-notes": dsh-skills show release-notes (see: dsh-skills help show)\n',
    )
    expect(run(['show', 'Not_There']).stderr).toContain('invalid skill name "Not_There"')
  })
})

describe('a Codex skills folder', () => {
  it('.curated/ and .system/ get the same hint; a folder of only dot-directories gets one without --compat codex', () => {
    const { home, run } = setup()
    const codex = path.join(home, '.codex', 'skills')
    write(path.join(codex, '.system', 'sys-skill', 'SKILL.md'), skillText('sys-skill', 'A system skill.'))
    write(path.join(codex, '.curated', 'cur-skill', 'SKILL.md'), skillText('cur-skill', 'A curated skill.'))
    // The harness's own `.system` under ~/.dsh/skills stays reserved, without a hint.
    write(path.join(home, '.dsh', 'skills', '.system', 'own', 'SKILL.md'), skillText('own', 'The harness.'))
    const curated = path.join(codex, '.curated')
    const system = path.join(codex, '.system')
    const readBoth = `add --skill-dir ${curated} --skill-dir ${system} (provider option customSkillDirs: ['${curated}', '${system}'])`
    const list = run(['list'])
    expect(list.stderr).toContain(
      `dsh-skills: hint: ${codex} holds 2 skill folders in \`.curated/\` and \`.system/\`; dot-directories are not read: ${readBoth}\n`,
    )
    expect(run(['doctor']).stdout).toContain(`hint: ${codex} holds 2 skill folders in \`.curated/\` and \`.system/\`; dot-directories are not read: ${readBoth}\n`)
    const doctor = run(['doctor', '--compat', 'codex'])
    expect(doctor.stdout).not.toContain('deeper than one level')
    for (const [dir, folder] of [
      [curated, '.curated'],
      [system, '.system'],
    ]) {
      expect(doctor.stdout).toContain(
        `hint: \`${folder}/\` holds 1 skill folder; dot-directories are not read: to read it, add --skill-dir ${dir} (provider option customSkillDirs)\n`,
      )
    }
    expect(doctor.stdout).toMatch(/ignored +\.system\n +reserved for the harness\n\n/)
    // Following the hint reads them.
    const read = run(['list', '--skill-dir', curated, '--skill-dir', system])
    expect(read.stdout.split('\n').slice(1, 3).map((row) => row.split(/\s+/)[0])).toEqual(['cur-skill', 'sys-skill'])
    expect(read.stderr).not.toContain('hint:')
  })
})

describe('broken and shadowed skills', () => {
  it('list, catalog, search and explain give one count in one wording', () => {
    const { base, run } = setup()
    const near = path.join(base, 'near')
    const far = path.join(base, 'far')
    write(path.join(near, 'deploy', 'SKILL.md'), skillText('deploy', 'Deploy the service.'))
    write(path.join(far, 'deploy', 'SKILL.md'), skillText('deploy', 'Deploy, the far copy.'))
    write(path.join(far, 'deploy.md'), skillText('deploy', 'Deploy, a third copy.'))
    write(path.join(near, 'Bad_Name', 'SKILL.md'), skillText('Bad_Name', 'Broken.'))
    // No skill at all (the library warns about it; doctor calls it ignored, not broken).
    write(path.join(near, 'README.md'), '# Notes\n')
    const flags = ['--no-default-roots', '--skill-dir', near, '--skill-dir', far]
    const list = run(['list', ...flags])
    const summary = /^dsh-skills: 1 loaded, (\d+) shadowed, (\d+) broken, \d+ ignored; /m.exec(list.stderr)
    expect(summary, list.stderr).not.toBeNull()
    const [, shadowed, broken] = summary!
    expect([shadowed, broken]).toEqual(['2', '1'])
    const warning = `dsh-skills: warning: ${shadowed} shadowed, ${broken} broken (each one: --verbose; why: dsh-skills doctor ${flags.join(' ')})\n`
    expect(run(['catalog', ...flags]).stderr).toBe(warning)
    expect(run(['search', 'deploy', ...flags]).stderr).toBe(warning)
    expect(run(['explain', 'deploy', ...flags]).stderr).toBe(warning)
  })
})

describe('a budget over a big collection', () => {
  it("keeps the user's own skills whole before a huge folder gets names only", () => {
    const { base, home, run } = setup()
    const own = 'My own way of doing this, written for myself, with the when and the why in one sentence.'
    const mine: string[] = []
    for (const [root, count] of [
      [path.join(home, '.agents', 'skills'), 9],
      [path.join(home, '.dsh', 'skills'), 8],
      [path.join(home, '.claude', 'skills'), 8],
    ] as const) {
      for (let i = 0; i < count; i++) {
        const name = `${path.basename(path.dirname(root)).slice(1)}-own-${i}`
        mine.push(name)
        write(path.join(root, name, 'SKILL.md'), skillText(name, own))
      }
    }
    const dump = path.join(base, 'composio-skills')
    for (let i = 0; i < 740; i++) {
      const name = `app${String(i).padStart(3, '0')}-automation`
      write(path.join(dump, name, 'SKILL.md'), skillText(name, `Automate App ${i} tasks via the toolkit; always search tools first for current schemas.`))
    }
    const json = JSON.parse(run(['catalog', '--compat', 'claude', '--skill-dir', dump, '--budget', '24000', '--json', '-q']).stdout)
    expect(json.report.total).toBe(765)
    for (const name of mine) expect(json.entries).toContain(`- \`${name}\`: ${own}`)
    for (const source of ['user-dsh', 'user-agents', 'user-claude']) expect(json.report.bySource[source].omitted).toBe(0)
    expect(json.report.bySource.custom.full).toBeLessThan(740)
  })
})

describe('a root inside another root', () => {
  /** An outer root with one skill, and a folder inside it given as a root of its own (one broken skill, one good). */
  function nested() {
    const { base, run } = setup()
    const outer = path.join(base, 'composio')
    const inner = path.join(outer, 'composio-skills')
    write(path.join(outer, 'top', 'SKILL.md'), skillText('top', 'Top.'))
    write(path.join(inner, 'capsule_crm-automation', 'SKILL.md'), skillText('capsule_crm-automation', 'Capsule CRM.'))
    write(path.join(inner, 'good-one', 'SKILL.md'), skillText('good-one', 'Good.'))
    const both = ['--no-default-roots', '--skill-dir', outer, '--skill-dir', inner]
    return { run, outer, inner, both }
  }

  it('show finds a broken entry of the inner root by its folder name, and a skill of it by name', () => {
    const { run, inner, both } = nested()
    const show = run(['show', 'capsule_crm-automation', ...both])
    expect(show.code).toBe(1)
    const lines = show.stderr.trimEnd().split('\n')
    expect(lines[0]).toMatch(/^dsh-skills: "capsule_crm-automation" is not a skill name, but the entry of that name is broken /)
    expect(lines[1]).toBe(`  ${path.join(inner, 'capsule_crm-automation', 'SKILL.md')} [custom] does not load`)
    expect(lines.at(-1)).toBe('  did you mean `capsule-crm-automation`?')
    const good = run(['show', 'good-one', ...both])
    expect(good.code).toBe(0)
    expect(good.stdout).toContain('<skill_content name="good-one">')
  })

  it("doctor lists the inner root's entries under it, and gives no depth hint for the folder it reads", () => {
    const { run, outer, inner, both } = nested()
    const doctor = run(['doctor', ...both])
    expect(doctor.code).toBe(1)
    expect(doctor.stdout).not.toContain('deeper than one level')
    expect(doctor.stdout).toMatch(/ignored +composio-skills\/\n +not a skill: read as a skill root of its own\n/)
    const [, outerPart, innerPart] = doctor.stdout.split(/^custom \(rank 300\) +/m)
    expect(outerPart.startsWith(`${outer}\n`)).toBe(true)
    expect(outerPart).not.toContain('good-one')
    expect(innerPart.startsWith(`${inner}\n`)).toBe(true)
    expect(innerPart).toMatch(/broken +capsule_crm-automation\/SKILL\.md\n/)
    expect(innerPart).toMatch(/loaded +good-one +good-one\/SKILL\.md\n/)
    // The outer root alone: the folder is deeper than one level, and doctor says so.
    const alone = run(['doctor', '--no-default-roots', '--skill-dir', outer])
    expect(alone.stdout).toContain('hint: 2 SKILL.md files below `composio-skills/` are deeper than one level')
  })
})

describe('help texts', () => {
  it('lists every exit code, 143 (watch stopped by SIGTERM) included', () => {
    const { run } = setup()
    const help = run(['--help']).stdout.replace(/\s+/g, ' ')
    for (const code of ['0 success', '1 failure', '2 usage error', '130 watch stopped by Ctrl-C', '143 watch stopped by SIGTERM']) {
      expect(help).toContain(code)
    }
  })

  it("explain's help speaks of the roots the CLI reads, not of providers it cannot have", () => {
    const { run } = setup()
    const help = run(['help', 'explain']).stdout
    expect(help).not.toMatch(/runtime skill|JS provider|registration order/)
    expect(help).toContain('ranked by root')
    expect(help).toMatch(/\nExamples:\n {2}dsh-skills explain /)
  })

  it("explain's legend for a loss by order speaks of the roots too", () => {
    const { base, run } = setup()
    for (const dir of ['one', 'two']) write(path.join(base, dir, 'same', 'SKILL.md'), skillText('same', `From ${dir}.`))
    const explain = run(['explain', 'same', '--skill-dir', path.join(base, 'one'), '--skill-dir', path.join(base, 'two')])
    expect(explain.code).toBe(0)
    expect(explain.stdout).toMatch(/\nlost: order {2}.*\n/)
    expect(explain.stdout).toContain('lost: order  same rank (several --skill-dir roots, or two entries of one root); the winner comes first\n')
    expect(explain.stdout).not.toMatch(/runtime|registration/)
  })

  it('every command has two or three examples, and its help stays short', () => {
    const { run } = setup()
    for (const command of ['list', 'catalog', 'show', 'explain', 'doctor', 'watch', 'completion']) {
      const help = run(['help', command]).stdout
      const examples = help.slice(help.indexOf('\nExamples:\n')).trim().split('\n').slice(1)
      expect(examples.length, command).toBeGreaterThanOrEqual(2)
      expect(examples.length, command).toBeLessThanOrEqual(3)
      for (const example of examples) expect(example).toMatch(/^ {2}dsh-skills /)
      expect(help.split('\n').length, command).toBeLessThan(45)
    }
  })
})

describe.skipIf(!fs.existsSync(path.join(root, 'examples', 'workspace', '.agents')))('demo', () => {
  it('says which roots it read, and why --cwd alone shows fewer skills', () => {
    const { home, env } = setup()
    const demo = runCli(['demo'], { cwd: root, env })
    expect(demo.code).toBe(0)
    const ws = path.join('examples', 'workspace')
    expect(demo.stdout).toContain(
      "Roots read, nearest first (the example's own user, custom and bundled roots,\nnot your home directory):\n" +
        `  project-dsh     ${path.join(ws, '.dsh', 'skills')}\n` +
        `  project-agents  ${path.join(ws, '.agents', 'skills')}\n` +
        `  custom          ${path.join(ws, 'team-skills')}\n` +
        `  user-dsh        ${path.join(ws, 'home', '.dsh', 'skills')}\n` +
        `  user-agents     ${path.join(ws, 'home', '.agents', 'skills')}\n` +
        `  bundled         ${path.join(ws, 'home', 'bundled-skills')}\n`,
    )
    // The "Try" line, run as printed, lists what the demo listed.
    const tryLine = /\n {2}node (\S+) show release-notes (.*)\n/.exec(demo.stdout)
    expect(tryLine).not.toBeNull()
    const flags = tryLine![2].split(' ')
    const listed = demo.stdout.split('== dsh-skills list ==')[1].split('== dsh-skills catalog')[0]
    const demoNames = listed.trim().split('\n').slice(1).map((l) => l.split(/\s+/)[0])
    expect(demoNames).toHaveLength(10)
    const same = runCli(['list', ...flags], { cwd: root, env })
    expect(same.stdout.trim().split('\n').slice(1).map((l) => l.split(/\s+/)[0])).toEqual(demoNames)
    // --cwd alone: the project's roots with this (empty) home: fewer, as the demo says.
    expect(demo.stdout).toContain(`With --cwd ${ws} alone, only the project roots are the example's`)
    fs.rmSync(path.join(home, '.dsh'), { recursive: true, force: true })
    const alone = runCli(['list', '--cwd', ws], { cwd: root, env })
    const aloneNames = alone.stdout.trim().split('\n').slice(1).map((l) => l.split(/\s+/)[0])
    expect(aloneNames.length).toBeLessThan(demoNames.length)
    expect(aloneNames.every((name) => demoNames.includes(name))).toBe(true)
  })
})
