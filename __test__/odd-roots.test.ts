import { afterAll, describe, expect, it } from 'vitest'
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { pkg, recorder, skillFile, tempDirs, waitFor, write } from './helpers'
import { cleanEnv, runCli } from './cli-helpers'

// Paths a watching local provider cannot use as they are: an entry longer
// than the system allows under a root that is not, and a file where a root
// should be. Lookups stay complete, each is warned about once.

const { SkillRegistry, LocalSkillProvider } = pkg

const temps = tempDirs('dsh-odd-')
afterAll(temps.cleanup)

/** A directory under `base` whose path is exactly `length` bytes long. */
function deepDir(base: string, length: number): string {
  let dir = base
  while (dir.length < length) {
    const room = length - dir.length - 1
    // Leave no remainder too short for a separator and a name.
    const size = room > 200 && room - 200 < 2 ? 190 : Math.min(room, 200)
    dir = path.join(dir, 'd'.repeat(size))
  }
  fs.mkdirSync(dir, { recursive: true })
  expect(Buffer.byteLength(dir)).toBe(length)
  return dir
}

function isolated(root: string, customSkillDirs: string[], logger: { warn(message: string): void }) {
  return new LocalSkillProvider({
    dshHome: path.join(root, 'home/.dsh'),
    agentsHome: path.join(root, 'home/.agents'),
    customSkillDirs,
    watch: true,
    logger,
  })
}

describe('an entry whose path is longer than the system allows', () => {
  it('is skipped once, and snapshots of a watching provider stay complete', async () => {
    const root = temps.make()
    // `a.md` is 4,095 bytes long (the most a path may be); the bundle
    // `abcdefghij/SKILL.md` cannot be named at all.
    const skills = deepDir(root, 4090)
    write(path.join(skills, 'a.md'), skillFile('near', 'A skill at the limit'))
    execFileSync('sh', ['-c', `mkdir abcdefghij && printf '%s' "$SKILL" > abcdefghij/SKILL.md`], {
      cwd: skills,
      env: { ...process.env, SKILL: skillFile('far', 'Too deep to name') },
    })
    const rec = recorder()
    const provider = isolated(root, [skills], rec.logger)
    const registry = new SkillRegistry()
    registry.registerProvider(() => provider)
    try {
      const first = await registry.snapshot({})
      expect(first.complete).toBe(true)
      expect(first.skills.map((s) => s.name)).toEqual(['near'])
      const aboutFar = rec.warnings.filter((w) => w.includes('abcdefghij'))
      expect(aboutFar).toHaveLength(1)
      expect(aboutFar[0]).not.toMatch(/retried/)
      // A new skill in the same root is seen (the root is watched), and the
      // listing stays complete without a word more about the long entry.
      write(path.join(skills, 'b.md'), skillFile('next', 'Another one'))
      await waitFor(async () => (await registry.snapshot({})).skills.length === 2)
      const again = await registry.snapshot({})
      expect(again.complete).toBe(true)
      expect(rec.warnings.filter((w) => w.includes('abcdefghij'))).toHaveLength(1)
      expect(rec.warnings.some((w) => /not healthy|incomplete/.test(w))).toBe(false)
    } finally {
      await provider.dispose()
      // Too long for a recursive removal by path.
      execFileSync('sh', ['-c', 'rm -rf abcdefghij'], { cwd: skills })
    }
  })
})

describe('a root that is a regular file', () => {
  it('is an empty root with one clear warning, and is followed until it is a directory', async () => {
    const root = temps.make()
    const custom = write(path.join(root, 'custom'), 'not a folder')
    const rec = recorder()
    const provider = isolated(root, [custom], rec.logger)
    const registry = new SkillRegistry()
    const changes: number[] = []
    registry.onChange(() => void changes.push(Date.now()))
    registry.registerProvider(() => provider)
    try {
      const first = await registry.snapshot({})
      expect(first).toEqual({ skills: [], complete: true })
      expect(rec.warnings).toEqual([
        expect.stringContaining(`skill root ${custom} is a file, not a directory: it is read as an empty root`),
      ])
      await registry.snapshot({})
      expect(rec.warnings).toHaveLength(1)
      const diagnosis = await provider.diagnose({})
      expect(diagnosis.complete).toBe(true)
      expect(diagnosis.roots.find((r) => r.path === custom)).toMatchObject({
        status: 'missing',
        reason: 'a file, not a directory (read as an empty root)',
      })

      const before = changes.length
      fs.rmSync(custom)
      write(path.join(custom, 'one/SKILL.md'), skillFile('one', 'Now a folder'))
      await waitFor(() => changes.length > before)
      const now = await registry.snapshot({})
      expect(now.complete).toBe(true)
      expect(now.skills.map((s) => s.name)).toEqual(['one'])
    } finally {
      await provider.dispose()
    }
  })

  it('is shown by doctor with its reason, and warned about once by list', () => {
    const root = temps.make()
    const home = path.join(root, 'home')
    fs.mkdirSync(home)
    const file = write(path.join(root, 'SKILL.md'), skillFile('mine', 'A skill file named as a root'))
    const options = { cwd: root, env: cleanEnv(home) }
    const doctor = runCli(['doctor', '--skill-dir', file, '--cwd', root], options)
    expect(doctor.stdout).toContain(`[missing: a file, not a directory (read as an empty root)]`)
    const list = runCli(['list', '--skill-dir', file, '--cwd', root], options)
    expect(list.stderr.split(`skill root ${file} is a file, not a directory`)).toHaveLength(2)
    expect(list.stderr).not.toContain(`--skill-dir ${file}: not a directory`)
  })
})
