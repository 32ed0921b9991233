// search(query, options) on the registry and the Cordis service, and the
// catalog options that go with it (`searchTool`, `prefer: 'used'`), whose
// defaults leave every byte and digest as it was.
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { Context } from 'cordis'
import SkillService from '../cordis.mjs'
import { pkg, recorder, skillFile, tempDirs, write } from './helpers'
import { oracleBudgeted } from './catalog-oracle'

const { SkillRegistry, LocalSkillProvider, renderCatalog, planCatalogStep, planStructuredCatalogStep } = pkg
const temps = tempDirs('dsh-search-')
afterAll(() => temps.cleanup())

const both = { modelInvocable: true, userInvocable: true }

function registryWith(skills: [string, string][], config = {}) {
  const registry = new SkillRegistry({ logger: recorder().logger, ...config })
  for (const [name, description] of skills) registry.register({ name, description, content: `${name} body` })
  return registry
}

const SKILLS: [string, string][] = [
  ['k8s-deploy', 'Deploy a service to a Kubernetes cluster and wait for the rollout.'],
  ['code-review', 'Review a pull request: correctness, tests, naming and style.'],
  ['release-notes', 'Write release notes from the commits since the last tag.'],
  ['pdf-forms', 'Fill in PDF forms and extract the values of their fields.'],
  ['db-migrate', 'Create and apply database schema migrations safely.'],
]

describe('search()', () => {
  it('ranks the model-invocable skills of the view; results are summaries plus a score', async () => {
    const registry = registryWith(SKILLS)
    registry.register({ name: 'secret-deploy', description: 'Deploy secrets.', content: 'x', invocation: { modelInvocable: false, userInvocable: true } })
    const results = await registry.search('deploying to kubernetes')
    expect(results.total).toBe(1)
    expect(results.complete).toBe(true)
    const [hit] = results.skills
    const { score, ...summary } = hit
    expect(score).toBeGreaterThan(0)
    expect(summary).toEqual((await registry.list()).find((s) => s.name === 'k8s-deploy'))
    // Model-disabled skills are never found, not even by name.
    const byName = await registry.search('secret-deploy', { limit: 100 })
    expect(byName.skills.map((s) => s.name)).toEqual(['k8s-deploy'])
    expect(byName.skills[0].name).not.toBe('secret-deploy')
    // The exact name first, in any spelling.
    expect((await registry.search('Code Review')).skills[0].name).toBe('code-review')
    // Fresh objects on every search.
    const again = await registry.search('deploying to kubernetes')
    expect(again).toEqual(results)
    expect(again.skills[0]).not.toBe(results.skills[0])
  })

  it('applies overrides and policy exactly as the catalog does, for native, runtime and JS providers alike', async () => {
    const dir = temps.make()
    write(path.join(dir, 'lint-fix.md'), skillFile('lint-fix', 'Run the linters and fix what they report.'))
    write(path.join(dir, 'pdf-forms.md'), skillFile('pdf-forms', 'A local copy about PDF forms.'))
    const registry = registryWith(SKILLS, { overrides: [{ name: 'db-*', effect: 'user-only' }] })
    registry.registerLocalProvider({ includeDefaultRoots: false, customSkillDirs: [dir], watch: false })
    registry.registerProvider(() => ({
      name: 'remote',
      list: async () => [
        { name: 'invoice-ocr', description: 'Read scanned invoices and pull out totals.', invocation: both, source: 'remote', provider: 'remote', rank: 700, locator: 1 },
      ],
      get: async () => undefined,
    }))
    const names = async (query: string) => (await registry.search(query)).skills.map((s) => s.name)
    expect(await names('linters')).toEqual(['lint-fix'])
    expect(await names('scanned invoice totals')).toEqual(['invoice-ocr'])
    expect(await names('schema migrations')).toEqual([])
    // The runtime skill (rank 250) won the name over the custom root (300): its description is the one searched.
    expect(await names('local copy')).toEqual([])
    expect((await names('pdf fields'))[0]).toBe('pdf-forms')
    const modelFacing = (await registry.list()).filter((s) => s.invocation.modelInvocable).map((s) => s.name)
    expect((await registry.search('a', { limit: 100 })).skills.every((s) => modelFacing.includes(s.name))).toBe(true)
  })

  it('reads your writes: a change is searched at once, the index never stale', async () => {
    const dir = temps.make()
    const provider = new LocalSkillProvider({ includeDefaultRoots: false, customSkillDirs: [dir], watch: false })
    const registry = new SkillRegistry({ logger: recorder().logger })
    registry.registerProvider(() => provider)
    expect((await registry.search('scanned')).total).toBe(0)
    const file = write(path.join(dir, 'invoice-ocr.md'), skillFile('invoice-ocr', 'Read scanned invoices.'))
    provider.observeHostMutation(file)
    expect((await registry.search('scanned')).skills.map((s) => s.name)).toEqual(['invoice-ocr'])
    expect((await registry.search('receipts')).total).toBe(0)
    write(file, skillFile('invoice-ocr', 'Read scanned receipts.'))
    provider.observeHostMutation(file)
    expect((await registry.search('receipts')).total).toBe(1)
    const dispose = registry.register({ name: 'receipt-sorter', description: 'Sort receipts by month.', content: 'x' })
    expect((await registry.search('receipts')).total).toBe(2)
    dispose()
    expect((await registry.search('receipts')).total).toBe(1)
    await provider.dispose()
  })

  it("finds a local skill by its whenToUse and the opening of its body, below one whose description says it", async () => {
    const dir = temps.make()
    write(path.join(dir, 'tidy', 'SKILL.md'), '---\nname: tidy\ndescription: Keep folders in order.\nwhenToUse: When the downloads folder is a mess.\n---\n\n# Tidy\n\nSorts receipts and invoices into folders by month.\n')
    write(path.join(dir, 'receipts.md'), skillFile('receipts', 'Sort receipts for the tax return.'))
    write(path.join(dir, 'long.md'), `---\nname: long\ndescription: Something else.\n---\n\n${'filler '.repeat(200)}zebra\n`)
    const registry = new SkillRegistry({ logger: recorder().logger })
    registry.registerLocalProvider({ includeDefaultRoots: false, customSkillDirs: [dir], watch: false })
    expect((await registry.search('downloads mess')).skills.map((s) => s.name)).toEqual(['tidy'])
    expect((await registry.search('receipts')).skills.map((s) => s.name)).toEqual(['receipts', 'tidy'])
    // Only the opening of a body is indexed.
    expect((await registry.search('zebra')).total).toBe(0)
    // Runtime skills: name and description only.
    registry.register({ name: 'runtime-one', description: 'A runtime skill.', whenToUse: 'When pelicans fly.', content: 'pelicans' })
    expect((await registry.search('pelicans')).total).toBe(0)
  })

  it('searches the view of options.scope', async () => {
    const registry = registryWith(SKILLS)
    const reviewer = { name: 'reviewer' }
    registry.register({ name: 'style-guide', description: 'The house style for prose.', content: 'x' }, { scope: reviewer })
    expect((await registry.search('house style prose')).skills.map((s) => s.name)).toEqual(['code-review'])
    expect((await registry.search('house style prose', { scope: reviewer })).skills.map((s) => s.name)).toEqual(['style-guide', 'code-review'])
  })

  it('limit, total, suggestions, validation and abort', async () => {
    const registry = registryWith(SKILLS)
    const all = await registry.search('the', { limit: 100 })
    const two = await registry.search('the', { limit: 2 })
    expect(two.total).toBe(all.total)
    expect(two.skills).toEqual(all.skills.slice(0, 2))
    const none = await registry.search('databse migrashuns')
    expect(none.skills.length === 0 || none.skills[0].name === 'db-migrate').toBe(true)
    const unknown = await registry.search('spreadsheets')
    expect(unknown).toEqual({ skills: [], total: 0, complete: true })
    const typo = await registry.search('relese notez')
    expect(typo.skills[0]?.name).toBe('release-notes')
    expect((await registry.search('migrashuns')).suggestion).toBe('migrations')
    await expect(registry.search(42 as never)).rejects.toThrow(TypeError)
    await expect(registry.search('x', { limit: 0 })).rejects.toThrow(RangeError)
    await expect(registry.search('x', { limit: 1.5 })).rejects.toThrow('options.limit must be a positive integer')
    await expect(registry.search('x', { limit: '3' as never })).rejects.toThrow(TypeError)
    const controller = new AbortController()
    controller.abort(new Error('stop'))
    await expect(registry.search('x', { signal: controller.signal })).rejects.toThrow('stop')
  })

  it('an abort that arrives while the index is built rejects at once; the next search builds it again', async () => {
    const skills = Array.from({ length: 30_000 }, (_, i) => ({
      name: `skill-${i}`,
      description: `Skill number ${i} about topic ${i % 97} and theme ${i % 89}.`,
      invocation: both,
      source: 'custom',
      provider: 'many',
      rank: 300,
    }))
    const registry = new SkillRegistry({ logger: recorder().logger })
    registry.registerProvider(() => ({ name: 'many', list: () => skills, get: () => undefined }))
    await registry.snapshot()
    const controller = new AbortController()
    const pending = registry.search('topic 7', { signal: controller.signal })
    setImmediate(() => controller.abort(new Error('stopped mid-search')))
    await expect(pending).rejects.toThrow('stopped mid-search')
    const again = await registry.search('skill-29999')
    expect(again.skills[0].name).toBe('skill-29999')
    expect(again.total).toBeGreaterThan(0)
  })

  it('is on the Cordis service', async () => {
    const ctx = new Context()
    await ctx.plugin(SkillService)
    ctx.skills.register({ name: 'k8s-deploy', description: 'Deploy to Kubernetes.', content: 'x' })
    expect((await ctx.skills.search('kubernetes')).skills.map((s) => s.name)).toEqual(['k8s-deploy'])
  })
})

/** The catalog of the digest pins: 120 skills of five sources, some model-disabled. */
function pinnedSkills() {
  const sources = ['project-dsh', 'user-dsh', 'bundled', 'runtime', 'custom']
  return Array.from({ length: 120 }, (_, i) => ({
    name: `skill-${String(i).padStart(3, '0')}`,
    description: `Does task ${i} ${'with care '.repeat(i % 13)}and reports <what> & why.`,
    invocation: { modelInvocable: i % 17 !== 0, userInvocable: true },
    source: sources[i % 5],
    provider: 'p',
  }))
}

describe('catalog options searchTool and prefer', () => {
  // The catalog without a budget (and with one it fits), as computed by the
  // release before any catalog option existed; under a cut, the documented
  // rules taken literally (catalog-oracle.ts).
  const UNBUDGETED = '8e4804eed16d82d14d149b17815f31b547cd29679504ac8ef6766153f8028773'
  const BUDGETS = ['none', '300', '2000', '6000', '12000', '100000']

  it.each(BUDGETS)('budget %s: the same bytes and digest with the options absent or at their defaults', (budget) => {
    const skills = pinnedSkills()
    const pinned = ['skill-007', 'skill-1*']
    const base = budget === 'none' ? {} : { budget: Number(budget), pinned }
    const plain = renderCatalog(skills, base)
    const expected = budget === 'none' ? undefined : oracleBudgeted(skills, 500, Number(budget), pinned)
    if (expected === undefined || Number(budget) >= 100000) expect(plain.digest).toBe(UNBUDGETED)
    if (expected !== undefined) expect(plain.entries).toBe(expected)
    const omitted = plain.report.omitted
    expect(omitted > 0).toBe(budget === '300' || budget === '2000')
    for (const extra of [{ searchTool: undefined, prefer: undefined }, { prefer: 'rank' as const }, { prefer: 'used' as const }]) {
      expect(renderCatalog(skills, { ...base, ...extra })).toEqual(plain)
    }
    // A search tool changes the last line only, and only when skills are left out.
    const searched = renderCatalog(skills, { ...base, searchTool: 'skill_search' })
    if (omitted === 0) {
      expect(searched).toEqual(plain)
    } else {
      // Its line is longer: the layout makes room for it within the budget.
      const withTool = searched.entries.split('\n')
      expect(withTool.slice(0, -1).every((line) => line.startsWith('- `'))).toBe(true)
      expect(searched.report.omitted).toBeGreaterThanOrEqual(omitted)
      expect(withTool.at(-1)).toMatch(/^\(\d+ more skills? (is|are) available but not listed here; find (one|it) by what it does with the `skill_search` tool, then load it by its exact name with the `skill` tool\.\)$/)
      expect(searched.report.chars).toBeLessThanOrEqual(Number(budget))
      expect(searched.digest).not.toBe(plain.digest)
    }
  })

  it('searchTool and prefer are checked', () => {
    const skills = pinnedSkills()
    expect(() => renderCatalog(skills, { budget: 100, searchTool: 'a b' })).toThrow(RangeError)
    expect(() => renderCatalog(skills, { budget: 100, searchTool: 7 as never })).toThrow(TypeError)
    expect(() => renderCatalog(skills, { budget: 100, prefer: 'often' as never })).toThrow("prefer must be 'rank' or 'used'")
    expect(() => planCatalogStep({ snapshot: { skills, complete: true }, published: false, budget: 100, searchTool: '`x`' })).toThrow('searchTool must be a tool name')
    // Without a budget they change nothing.
    expect(renderCatalog(skills, { searchTool: 'skill_search', prefer: 'used' })).toEqual(renderCatalog(skills))
    const structured = planStructuredCatalogStep({ snapshot: { skills, complete: true }, history: [], budget: 1000, searchTool: 'skill_search' })
    expect(structured.kind).toBe('initial')
    if (structured.kind === 'initial') expect(structured.text).toContain('with the `skill_search` tool, then load it')
    expect(structured.kind === 'initial' && structured.report.omitted).toBeGreaterThan(0)
  })

  it("prefer: 'used' keeps loaded skills in view, and loading never changes the catalog by itself", async () => {
    const registry = new SkillRegistry({ logger: recorder().logger })
    for (let i = 0; i < 60; i++) {
      registry.register({ name: `skill-${String(i).padStart(2, '0')}`, description: `Skill ${i} does one thing and explains it at some length here.`, content: `body ${i}` })
    }
    const options = { budget: 700, prefer: 'used' as const }
    const plan = async (visibleDigest?: string) =>
      planCatalogStep({ snapshot: await registry.snapshot(), visibleDigest, published: visibleDigest !== undefined, ...options })
    const first = await plan()
    expect(first.kind).toBe('initial')
    if (first.kind === 'none') return
    const line = (text: string, name: string) => text.split('\n').find((l) => l.startsWith(`- \`${name}\``))
    // The end of the alphabet gives way first: skill-59 is left out.
    expect(line(first.text, 'skill-59')).toBeUndefined()
    await registry.get('skill-59')
    await registry.get('skill-59')
    await registry.get('skill-58')
    // Loading alone: the same catalog, nothing to publish.
    expect((await plan(first.digest)).kind).toBe('none')
    expect(renderCatalog((await registry.snapshot()).skills, options).digest).toBe(first.digest)
    // A change for another reason: the loaded skills come right after the pins.
    registry.register({ name: 'zz-new', description: 'Something new.', content: 'x' })
    const next = await plan(first.digest)
    expect(next.kind).toBe('replacement')
    if (next.kind === 'none') return
    expect(line(next.text, 'skill-59')).toMatch(/^- `skill-59`: Skill 59/)
    expect(line(next.text, 'skill-58')).toMatch(/^- `skill-58`: Skill 58/)
    // By rank, the same catalog leaves them out.
    const byRank = renderCatalog((await registry.snapshot()).skills, { budget: 700 })
    expect(line(byRank.entries, 'skill-59')).toBeUndefined()
    // Another view has no usage; a plain array has none either.
    expect(renderCatalog((await registry.snapshot({ cwd: temps.make() })).skills, options).entries).toBe(
      renderCatalog((await registry.snapshot({ cwd: temps.make() })).skills, { budget: 700 }).entries,
    )
    const copy = (await registry.snapshot()).skills.map((s) => ({ ...s }))
    expect(renderCatalog(copy, options)).toEqual(renderCatalog(copy, { budget: 700 }))
  })
})
