// `dsh-skills search QUERY`, and the flood warnings of catalog, list and
// doctor for an unbudgeted catalog over 32,000 characters.
import * as path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { cleanEnv, runInProcess } from './cli-helpers'
import { tempDirs, write } from './helpers'

const temps = tempDirs('dsh-cli-search-')
afterAll(() => temps.cleanup())

function collection(count: number, words = 30) {
  const home = temps.make()
  const dir = path.join(temps.make(), 'skills')
  for (let i = 0; i < count; i++) {
    const name = `tool-${String(i).padStart(4, '0')}`
    const description = `Handles job number ${i} ${'carefully and well '.repeat(words / 3)}`.trim()
    write(path.join(dir, `${name}.md`), `---\nname: ${name}\ndescription: ${JSON.stringify(description)}\n---\nBody.\n`)
  }
  write(path.join(dir, 'invoice-extractor.md'), '---\nname: invoice-extractor\ndescription: Pull totals and vendor names out of scanned invoices.\n---\nBody.\n')
  return { home, dir, env: cleanEnv(home), roots: ['--no-default-roots', '--skill-dir', dir] }
}

describe('dsh-skills search', () => {
  const small = collection(5)

  it('lists the best matches, with --limit and --json', async () => {
    const found = await runInProcess(['search', 'totals', 'of', 'scanned', 'invoices', ...small.roots], small.env)
    expect(found.code).toBe(0)
    const lines = found.stdout.trimEnd().split('\n')
    expect(lines[0]).toMatch(/^NAME\s+SCORE\s+SOURCE\s+DESCRIPTION$/)
    expect(lines[1]).toMatch(/^invoice-extractor\s+\d+\.\d\d\s+custom\s+Pull totals and vendor names out of scanned invoices\.$/)
    const limited = await runInProcess(['search', 'job', '--limit', '2', ...small.roots], small.env)
    expect(limited.stdout.trimEnd().split('\n')).toHaveLength(3)
    expect(limited.stderr).toContain('2 of 5 matching skills shown (--limit N for more)')
    const asJson = await runInProcess(['search', 'invoice-extractor', '--json', ...small.roots], small.env)
    const parsed = JSON.parse(asJson.stdout)
    expect(parsed.query).toBe('invoice-extractor')
    expect(parsed.skills[0]).toMatchObject({ name: 'invoice-extractor', source: 'custom' })
    expect(typeof parsed.skills[0].score).toBe('number')
    expect(parsed.complete).toBe(true)
  })

  it('--embed with no usable model searches by words and says so once', async () => {
    const found = await runInProcess(['search', 'scanned', 'invoices', '--embed', path.join(small.home, 'no-model'), ...small.roots], small.env)
    expect(found.code).toBe(0)
    expect(found.stdout.trimEnd().split('\n')[1]).toMatch(/^invoice-extractor\s/)
    expect(found.stderr.match(/embedder unavailable: cannot read .*config\.json.*words only/g)).toHaveLength(1)
  })

  it('says so when nothing matches, with a did-you-mean, and exits 1', async () => {
    const none = await runInProcess(['search', 'invoicez', 'totalz', 'scannedd', ...small.roots], small.env)
    expect(none.code).toBe(0)
    const nothing = await runInProcess(['search', 'zebra', ...small.roots], small.env)
    expect(nothing.code).toBe(1)
    expect(nothing.stdout).toBe('')
    expect(nothing.stderr).toBe('dsh-skills: no skill matches "zebra"\n')
    const corrected = await runInProcess(['search', 'vendorxyz', ...small.roots], small.env)
    expect(corrected.code).toBe(1)
    expect(corrected.stderr).toBe('dsh-skills: no skill matches "vendorxyz"; did you mean "vendor"?\n')
    const named = await runInProcess(['search', 'invoice-extractr', ...small.roots], small.env)
    expect(named.code).toBe(0)
    const empty = await runInProcess(['search', ...small.roots], small.env)
    expect(empty.code).toBe(2)
    expect(empty.stderr).toContain('search needs a query')
    const badLimit = await runInProcess(['search', 'x', '--limit', '0', ...small.roots], small.env)
    expect(badLimit.code).toBe(2)
    expect(badLimit.stderr).toContain('--limit must be a positive integer')
  })
})

describe('a catalog that floods the prompt is never silent', () => {
  const big = collection(400)
  const flood = /^dsh-skills: warning: the catalog is [\d,]+ characters \(about [\d,]+ tokens\), sent to the model in every session: give it a budget \(--budget 24000 here; the budget option of the catalog in a harness\) and mount the search tool \(@deepseek-ai\/dsh-skill-native\/harness\/search-tool\) so that the skills it leaves out stay reachable$/m

  it('catalog, list and doctor say how large it is and what to do', async () => {
    const catalog = await runInProcess(['catalog', ...big.roots], big.env)
    expect(catalog.code).toBe(0)
    expect(catalog.stderr).toMatch(flood)
    const chars = Number(/the catalog is ([\d,]+) characters/.exec(catalog.stderr)?.[1].replaceAll(',', ''))
    expect(chars).toBeGreaterThan(32000)
    const list = await runInProcess(['list', ...big.roots], big.env)
    expect(list.stderr).toMatch(flood)
    const doctor = await runInProcess(['doctor', ...big.roots], big.env)
    expect(doctor.stdout).toMatch(/^warning: the catalog is [\d,]+ characters/m)
    const doctorJson = JSON.parse((await runInProcess(['doctor', '--json', ...big.roots], big.env)).stdout)
    expect(doctorJson.catalog).toEqual({ chars, tokens: Math.round(chars / 4), large: true })
    // With a budget: the budget line instead; --quiet: nothing.
    const budgeted = await runInProcess(['catalog', '--budget', '3000', '--search-tool', 'skill_search', ...big.roots], big.env)
    expect(budgeted.stderr).not.toMatch(flood)
    expect(budgeted.stdout).toContain('find one by what it does with the `skill_search` tool')
    expect((await runInProcess(['catalog', '--quiet', ...big.roots], big.env)).stderr).toBe('')
  })

  it('a small catalog gets no warning', async () => {
    const small = collection(5)
    for (const command of ['catalog', 'list', 'doctor']) {
      const result = await runInProcess([command, ...small.roots], small.env)
      expect(result.stderr + result.stdout, command).not.toContain('sent to the model in every session')
    }
    const doctorJson = JSON.parse((await runInProcess(['doctor', '--json', ...small.roots], small.env)).stdout)
    expect(doctorJson.catalog.large).toBe(false)
    const noBudget = await runInProcess(['catalog', '--search-tool', 'skill_search', ...small.roots], small.env)
    expect(noBudget.code).toBe(2)
    expect(noBudget.stderr).toContain('--search-tool has no effect without --budget')
  })
})
