// Differential test of the frontmatter reader against the JS `yaml` package
// (what the TypeScript provider parsed with: YAML 1.2, core schema, default
// options of `parse`) with the rules of the local provider on top.
//
// A seeded corpus of generated frontmatters, plus mutated copies, is written to
// a temporary root and read end to end by `LocalSkillProvider`; every file must
// be accepted or skipped as the oracle says, with the same name, description,
// whenToUse, invocation and metadata. The differences docs/frontmatter.md lists are
// not generated here (they have their own tests).
import { afterAll, describe, expect, it } from 'vitest'
import { createRequire } from 'node:module'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { LocalSkillProvider as LocalSkillProviderType, LocalSkillProviderConfig } from '../types/local'
import type { SkillCandidate } from '../types/skill'
import { canon, CORNERS, CYCLIC, frontmatter, Gen, KNOWN_DIFFERENCES, mutate, oracle } from './yaml-corpus'
import { mulberry32 } from './helpers'

const require = createRequire(import.meta.url)
const { LocalSkillProvider } = require('../lib/local.js') as {
  LocalSkillProvider: new (config?: LocalSkillProviderConfig) => LocalSkillProviderType
}

const temps: string[] = []
afterAll(() => {
  for (const dir of temps) fs.rmSync(dir, { recursive: true, force: true })
}, 120_000)

describe('frontmatter against the JS yaml package', () => {
  it('accepts, skips and extracts like yaml.parse + SPEC §3 on a seeded corpus of 12,000 files', async () => {
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-yaml-diff-')))
    temps.push(root)
    const g = new Gen(mulberry32(20261201))
    const files: { file: string; text: string; yaml: string }[] = []
    const COUNT = 6000
    for (let i = 0; i < COUNT; i++) {
      const yaml = frontmatter(g, i)
      const body = `\n# Skill ${i}\n\nBody.\n`
      // The mutated file starts from another document, so that most names
      // stay unique and both files are compared field by field.
      const mutated = mutate(g, frontmatter(g, COUNT + i))
      for (const [prefix, y] of [['g', yaml], ['m', mutated]]) {
        files.push({ file: path.join(root, `${prefix}${String(i).padStart(5, '0')}.md`), text: `---\n${y}---\n${body}`, yaml: y })
      }
    }
    const corners = CORNERS.map((corner, i) => {
      const yaml = corner.replace('{i}', String(i))
      return { file: path.join(root, `c${String(i).padStart(5, '0')}.md`), text: `---\n${yaml}---\nBody.\n`, yaml }
    })
    files.push(...corners)
    for (const { file, text } of files) fs.writeFileSync(file, text)

    const warnings: string[] = []
    const provider = new LocalSkillProvider({
      dshHome: path.join(root, 'none'),
      agentsHome: path.join(root, 'none'),
      customSkillDirs: [root],
      watch: false,
      logger: { warn: (m: string) => void warnings.push(m) },
    })
    const diagnosis = await provider.diagnose({})
    const observation = await provider.list({})
    const candidates = new Map<string, SkillCandidate>()
    for (const c of observation.candidates) if (c.path) candidates.set(c.path, c)
    const records = new Map(diagnosis.files.map((f) => [f.path, f]))

    const differences: string[] = []
    let accepted = 0
    let compared = 0
    let cyclicFiles = 0
    const setAside: Record<string, number> = {}
    for (const { file, text, yaml } of files) {
      const known = KNOWN_DIFFERENCES.find((k) => k.test(yaml))
      if (known) {
        setAside[known.why] = (setAside[known.why] ?? 0) + 1
        continue
      }
      const expected = oracle(text)
      if (expected === CYCLIC) {
        cyclicFiles++
        continue
      }
      const record = records.get(file)
      const got = record && record.outcome !== 'skipped'
      if (expected) accepted++
      if (!record || Boolean(expected) !== got) {
        differences.push(
          `${path.basename(file)}: yaml ${expected ? 'accepts' : 'rejects'}, native ${got ? 'accepts' : `rejects (${record?.reason})`}\n${JSON.stringify(text)}`,
        )
        continue
      }
      if (!expected) continue
      if (record.name !== expected.name) {
        differences.push(`${path.basename(file)}: name ${JSON.stringify(record.name)} vs ${JSON.stringify(expected.name)}`)
        continue
      }
      const c = candidates.get(file)
      if (!c) continue // shadowed by an earlier file of the same name
      compared++
      const actual = {
        name: c.name,
        description: c.description,
        whenToUse: c.whenToUse,
        invocation: c.invocation,
        metadata: c.metadata,
      }
      const want = {
        name: expected.name,
        description: expected.description,
        whenToUse: expected.whenToUse,
        invocation: expected.invocation,
        metadata: expected.metadata,
      }
      if (canon(actual) !== canon(want)) {
        differences.push(`${path.basename(file)}: fields differ\n  native ${canon(actual)}\n  yaml   ${canon(want)}\n${JSON.stringify(text)}`)
      }
    }
    expect(differences.slice(0, 10)).toEqual([])
    expect(differences).toHaveLength(0)
    expect(files).toHaveLength(2 * COUNT + CORNERS.length)
    // No corner is set aside: each reads as the JS package reads it.
    expect(corners.filter(({ yaml }) => KNOWN_DIFFERENCES.some((k) => k.test(yaml)))).toEqual([])
    expect(cyclicFiles).toBeLessThan(20)
    // Files on which the two readers knowingly differ (docs/frontmatter.md) stay a small
    // part of the corpus; at least 10,000 files are compared.
    const aside = Object.values(setAside).reduce((a, b) => a + b, 0)
    expect(aside).toBeLessThan(files.length * 0.15)
    expect(files.length - aside - cyclicFiles).toBeGreaterThanOrEqual(10_000)
    // The corpus exercises both outcomes in earnest.
    expect(accepted).toBeGreaterThan(2000)
    expect(files.length - accepted).toBeGreaterThan(5000)
    expect(compared).toBeGreaterThan(2000)
  }, 120_000)

  it('reads the two corners that remain as docs/frontmatter.md says, and yaml.parse the other way', async () => {
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-yaml-left-')))
    temps.push(root)
    // A lone carriage return before `#`: content here, a comment yaml refuses.
    const hash = 'name: left-hash\ndescription: b\r#x\n'
    // A lone carriage return inside a directive line: refused here, read by yaml.
    const directive = '%YAML 1.2\r \n--- \nname: left-directive\ndescription: d\n'
    for (const [name, yaml] of [['hash', hash], ['directive', directive]]) {
      fs.writeFileSync(path.join(root, `${name}.md`), `---\n${yaml}---\nBody.\n`)
      // Each is one of the differences the corpus sets aside.
      expect(KNOWN_DIFFERENCES.some((k) => k.test(yaml))).toBe(true)
    }
    const provider = new LocalSkillProvider({
      dshHome: path.join(root, 'none'),
      agentsHome: path.join(root, 'none'),
      customSkillDirs: [root],
      watch: false,
      logger: { warn: () => {} },
    })
    const { candidates } = await provider.list({})
    expect(candidates.map((c) => [c.name, c.description])).toEqual([['left-hash', 'b\r#x']])
    expect(oracle(`---\n${hash}---\n`)).toBeUndefined()
    expect(oracle(`---\n${directive}---\n`)).toMatchObject({ name: 'left-directive', description: 'd' })
  })
})
