// Search quality on need-style queries (bench/quality/queries.mjs: 60 needs
// stated the way users state them, 20 close to a skill's words, 25
// paraphrased, 15 indirect) over ten public skill collections (1,479
// model-visible skills). The collections are not committed (their licences
// differ): `node bench/quality/corpus.mjs` assembles them into the git-ignored
// bench/quality/.corpus, and this test runs only where that folder exists.
// The floors are the targets for word matching alone; the figures
// of every method side by side come from `node bench/search-quality.mjs`.
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { corpusRoots } from '../bench/quality/corpus.mjs'
import { QUERIES } from '../bench/quality/queries.mjs'
import { pkg } from './helpers'

const roots = corpusRoots()
const assembled = roots.length === 10 && roots.every((root) => fs.readdirSync(root).length > 1)

describe.skipIf(!assembled)('search on need-style queries over public collections', () => {
  it('finds a skill that serves the need among the first five for 80 % of them, and the close ones first', async () => {
    const { SkillRegistry, LocalSkillProvider } = pkg
    const provider = new LocalSkillProvider({ includeDefaultRoots: false, customSkillDirs: roots, watch: false, logger: { warn() {} } })
    const registry = new SkillRegistry({ logger: { warn() {} } })
    registry.registerProvider(() => provider)
    try {
      const at: Record<string, number[]> = { close: [], paraphrased: [], indirect: [] }
      for (const { class: cls, q, answers } of QUERIES) {
        const { skills } = await registry.search(q, { limit: 5 })
        at[cls].push(skills.findIndex((s) => answers.includes(s.name)))
      }
      const rate = (list: number[], cut: number) => list.filter((i) => i !== -1 && i < cut).length / list.length
      const all = Object.values(at).flat()
      console.log(
        `need-style search (${path.basename(path.dirname(roots[0]))}): top-5 ${Math.round(rate(all, 5) * 100)} %, ` +
          Object.entries(at)
            .map(([cls, list]) => `${cls} ${Math.round(rate(list, 1) * 100)}/${Math.round(rate(list, 5) * 100)} %`)
            .join(', '),
      )
      expect(rate(all, 5)).toBeGreaterThanOrEqual(0.8)
      // Queries close to a skill's words: no worse than before the repair
      // (every one in the top 5, 18 of 20 first).
      expect(rate(at.close, 5)).toBe(1)
      expect(rate(at.close, 1)).toBeGreaterThanOrEqual(0.9)
    } finally {
      await provider.dispose()
    }
  })
})
