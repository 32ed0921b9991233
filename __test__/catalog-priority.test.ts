// Budget shares: when a budget must cut, pins (names and globs) keep their
// descriptions, and the sources (the local provider's folders, else source
// labels) share the rest fairly, small sources whole; the report counts per
// source label.
import { afterAll, describe, expect, it, vi } from 'vitest'
import path from 'node:path'
import { createRequire } from 'node:module'
import { mulberry32, projectLayout, recorder, skillFile, tempDirs, write } from './helpers'
import { modelEntries, notice, oracleBudgeted, oracleCut, oracleEscape, sha256, sourceRank, wellFormed } from './catalog-oracle'
import type { CatalogReport } from '../types/catalog'

const require = createRequire(import.meta.url)
const catalog = require('../lib/catalog.js') as typeof import('../types/catalog')
const { SkillRegistry } = require('../lib/registry.js') as typeof import('../types/registry')
const native = require('../binding.js') as Record<string, (...args: unknown[]) => unknown> & {
  NativeCatalog: new (...args: never[]) => unknown
}

const temps = tempDirs('dsh-catalog-priority-')
afterAll(temps.cleanup)

interface Summary {
  name: string
  description: string
  invocation: { modelInvocable: boolean; userInvocable: boolean }
  source?: string
  provider?: string
}

const both = { modelInvocable: true, userInvocable: true }

function skill(name: string, description: string, source?: string, modelInvocable = true): Summary {
  const out: Summary = { name, description, invocation: { modelInvocable, userInvocable: true } }
  if (source !== undefined) out.source = source
  return out
}

/** Per-source counts straight from the entries: which names are listed how. */
function countsFrom(entries: string, skills: readonly Summary[], max = 500): CatalogReport['bySource'] {
  const lines = new Map<string, string>()
  for (const line of entries.split('\n')) {
    const m = /^- `([a-z0-9-]+)`(?:: (.*))?$/.exec(line)
    if (m) lines.set(m[1], m[2] ?? '\u0000name-only')
  }
  const out = new Map<string, { total: number; full: number; shortened: number; nameOnly: number; omitted: number }>()
  for (const s of modelEntries(skills)) {
    const key = s.source ?? ''
    if (!out.has(key)) out.set(key, { total: 0, full: 0, shortened: 0, nameOnly: 0, omitted: 0 })
    const c = out.get(key)!
    c.total++
    const shown = lines.get(s.name)
    const full = wellFormed(oracleEscape(oracleCut(s.description, max)))
    if (shown === undefined) c.omitted++
    else if (shown === '\u0000name-only') c.nameOnly++
    else if (shown === full) c.full++
    else c.shortened++
  }
  const record = {}
  for (const [key, value] of out) Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true })
  return record
}

function expectReportAddsUp(report: CatalogReport) {
  const sum = (field: 'total' | 'full' | 'shortened' | 'nameOnly' | 'omitted') =>
    Object.values(report.bySource).reduce((n, s) => n + s[field], 0)
  for (const field of ['total', 'full', 'shortened', 'nameOnly', 'omitted'] as const) expect(sum(field), field).toBe(report[field])
}

const LONG = 'Builds, tags and publishes a release of this project - runs the checks, writes the changelog and pushes the tag.'

describe('budget shares', () => {
  it('keeps the small sources whole and shares the rest between the big ones (registry array)', async () => {
    // The skill author's case, through the registry: the native local
    // provider (project and user roots), runtime skills and a JS provider.
    const { project, cwd, home } = projectLayout(temps.make())
    write(path.join(project, '.dsh', 'skills', 'zz-deploy', 'SKILL.md'), skillFile('zz-deploy', LONG))
    for (let i = 0; i < 40; i++) {
      const name = `a-user-${String(i).padStart(2, '0')}`
      const root = i % 2 === 0 ? path.join(home, '.agents', 'skills') : path.join(home, '.dsh', 'skills')
      write(path.join(root, `${name}.md`), skillFile(name, `${LONG} (${i})`))
    }
    const registry = new SkillRegistry({ logger: recorder().logger })
    registry.registerLocalProvider({ dshHome: path.join(home, '.dsh'), agentsHome: path.join(home, '.agents'), watch: false })
    registry.register({ name: 'm-runtime', description: LONG, content: 'x', source: 'runtime' })
    const remote = (name: string, rank: number) => ({
      name,
      description: LONG,
      invocation: both,
      source: 'remote',
      provider: 'remote',
      rank,
      locator: name,
    })
    registry.registerProvider(() => ({
      name: 'remote',
      list: async () => [remote('y-remote', 150), remote('b-far', 900)],
      get: async () => undefined,
    }))
    const { skills, complete } = await registry.snapshot({ cwd })
    expect(complete).toBe(true)
    const ranks: Record<string, number> = { 'zz-deploy': 100, 'y-remote': 150, 'm-runtime': 250, 'b-far': 900 }
    const rankOf = (s: Summary) => ranks[s.name] ?? sourceRank(s.source)
    const budget = 1500
    const spy = vi.spyOn(native, 'catalogRender')
    const { entries, digest, report } = catalog.renderCatalog(skills, { budget })
    expect(spy.mock.calls[0]?.[0]).toBeInstanceOf(native.NativeCatalog)
    spy.mockRestore()
    const expected = oracleBudgeted(skills as Summary[], 500, budget, [], rankOf)
    expect(entries).toBe(expected)
    expect(digest).toBe(sha256(expected))
    // The small sources whole: the project's own skill, the runtime skill, both remote ones.
    for (const name of ['zz-deploy', 'y-remote', 'm-runtime', 'b-far']) expect(entries).toContain(`- \`${name}\`: ${LONG}`)
    expect(report.bySource).toEqual(countsFrom(entries, skills as Summary[]))
    // Nearest source first (by the lowest rank among its skills).
    expect(Object.keys(report.bySource)).toEqual(['project-dsh', 'remote', 'runtime', 'user-dsh', 'user-agents'])
    expect(report.bySource['project-dsh']).toEqual({ total: 1, full: 1, shortened: 0, nameOnly: 0, omitted: 0 })
    expect(report.bySource.remote).toEqual({ total: 2, full: 2, shortened: 0, nameOnly: 0, omitted: 0 })
    // The two user roots share the rest equally (the nearer one gets what the other leaves).
    const [dsh, agents] = [report.bySource['user-dsh'], report.bySource['user-agents']]
    expect([dsh.total, agents.total]).toEqual([20, 20])
    expect(dsh.full + agents.full).toBe(0)
    expect(Math.abs(dsh.omitted - agents.omitted)).toBeLessThanOrEqual(1)
    expectReportAddsUp(report)
    // The old order (alphabetical head kept) for comparison: the same skills
    // without sources are one source.
    const anonymous = skills.map((s) => ({ name: s.name, description: s.description, invocation: s.invocation }))
    const alphabetical = catalog.renderCatalog(anonymous, { budget })
    expect(alphabetical.entries).not.toContain('- `zz-deploy`: ')
    const { total, full, shortened, nameOnly, omitted } = alphabetical.report
    expect(alphabetical.report.bySource).toEqual({ '': { total, full, shortened, nameOnly, omitted } })
  })

  it("a registry array shares by the local provider's folders; a copy of it by source label", async () => {
    const base = temps.make()
    const small = path.join(base, 'mine')
    const huge = path.join(base, 'dump')
    for (let i = 0; i < 3; i++) write(path.join(small, `mine-${i}`, 'SKILL.md'), skillFile(`mine-${i}`, LONG))
    for (let i = 0; i < 60; i++) write(path.join(huge, `app-${i}`, 'SKILL.md'), skillFile(`app-${i}`, `${LONG} (${i})`))
    const registry = new SkillRegistry({ logger: recorder().logger })
    registry.registerLocalProvider({ includeDefaultRoots: false, customSkillDirs: [huge, small], watch: false })
    const { skills } = await registry.snapshot()
    const budget = 2500
    const folderOf = (s: Summary) => (s.name.startsWith('mine-') ? small : huge)
    const fromRegistry = catalog.renderCatalog(skills, { budget })
    expect(fromRegistry.entries).toBe(oracleBudgeted(skills as Summary[], 500, budget, [], undefined, { groupOf: folderOf }))
    // Each custom folder is a source: the small one stays whole.
    for (let i = 0; i < 3; i++) expect(fromRegistry.entries).toContain(`- \`mine-${i}\`: ${LONG}`)
    // A plain array knows no folders: one `custom` source, given way in name order.
    const copy = [...skills]
    const plain = catalog.renderCatalog(copy, { budget })
    expect(plain.entries).toBe(oracleBudgeted(copy as Summary[], 500, budget, []))
    expect(plain.entries).not.toContain(`- \`mine-2\`: ${LONG}`)
    // The report counts per source label either way.
    expect(Object.keys(fromRegistry.report.bySource)).toEqual(['custom'])
    expect(plain.report.bySource.custom.total).toBe(fromRegistry.report.bySource.custom.total)
  })

  it('plain arrays share by source label, matching the oracle over a generated corpus, with and without a search tool', () => {
    const rand = mulberry32(0x50c0)
    const sources = ['project-dsh', 'project-agents', 'project-claude', 'runtime', 'custom', 'user-dsh', 'user-agents', 'user-codex', 'bundled', 'remote', undefined]
    const globs = ['*', 'a-*', '*-1*', 'b*x', 'z-*', 'no-*']
    const seen = { cutAcrossSources: 0, nearKept: 0, globs: 0 }
    for (let round = 0; round < 200; round++) {
      const count = Math.floor(rand() * 16)
      const skills: Summary[] = []
      for (let i = 0; i < count; i++) {
        const words = Math.floor(rand() * 25)
        let description = ''
        for (let j = 0; j < words; j++) description += ['word ', 'x & y ', '<tag> ', '😀', '  \n', 'é'][Math.floor(rand() * 6)]
        const name = `${['a', 'b', 'z'][Math.floor(rand() * 3)]}-${Math.floor(rand() * 20)}`
        // (Unique names: the per-source check reads the entries by name.)
        if (skills.some((s) => s.name === name)) continue
        skills.push(skill(name, description, sources[Math.floor(rand() * sources.length)], rand() > 0.1))
      }
      const max = [40, 60, 500][Math.floor(rand() * 3)]
      const full = catalog.renderCatalogEntries(skills, max).length
      const budget = 1 + Math.floor(rand() * (full + 10))
      const pinned = Array.from({ length: Math.floor(rand() * 3) }, () =>
        rand() < 0.5 ? globs[Math.floor(rand() * globs.length)] : skills[Math.floor(rand() * skills.length)]?.name ?? 'x',
      )
      const searchTool = rand() < 0.3 ? 'skill_search' : undefined
      const label = `round ${round}: budget ${budget} max ${max} pinned ${pinned} tool ${searchTool}`
      const expected = oracleBudgeted(skills, max, budget, pinned, undefined, { searchTool })
      const { entries, digest, report } = catalog.renderCatalog(skills, { maxLength: max, budget, pinned, searchTool })
      expect(entries, label).toBe(wellFormed(expected))
      expect(digest, label).toBe(sha256(expected))
      expect(report.bySource, label).toEqual(countsFrom(entries, skills, max))
      expectReportAddsUp(report)
      expect(catalog.catalogDigest(skills, { maxLength: max, budget, pinned, searchTool })).toBe(digest)
      const sourcesCut = Object.values(report.bySource).filter((s) => s.full < s.total).length
      seen.cutAcrossSources += Number(sourcesCut > 0 && sourcesCut < Object.keys(report.bySource).length)
      seen.nearKept += Number(report.bySource['project-dsh']?.full > 0 && report.full < report.total)
      seen.globs += Number(pinned.some((p) => p.includes('*')) && report.full < report.total)
    }
    for (const [what, n] of Object.entries(seen)) expect(n, what).toBeGreaterThan(10)
  })

  it('pins take globs, in pin order, and a glob that matches nothing is ignored', () => {
    const d = 'd'.repeat(80)
    const skills = ['deploy-a', 'deploy-b', 'lint', 'test', 'zz-deploy'].map((n) => skill(n, d, 'user-dsh'))
    const line = (n: string) => `- \`${n}\`: ${d}`
    const budget = 2 * line('deploy-a').length + '- `lint`\n- `test`\n- `zz-deploy`'.length + 2
    expect(catalog.renderCatalog(skills, { budget, pinned: ['deploy-*'] }).entries).toBe(
      `${line('deploy-a')}\n${line('deploy-b')}\n- \`lint\`\n- \`test\`\n- \`zz-deploy\``,
    )
    // The first pin first; a glob's matches keep the place of their first pin.
    const small = '- `zz-deploy`\n'.length + notice(4).length
    expect(catalog.renderCatalog(skills, { budget: small, pinned: ['zz-deploy', '*-*'] }).entries).toBe(`- \`zz-deploy\`\n${notice(4)}`)
    expect(catalog.renderCatalog(skills, { budget: small, pinned: ['*-*', 'zz-deploy'] }).entries).toBe(`- \`deploy-a\`\n${notice(4)}`)
    expect(catalog.renderCatalog(skills, { budget: 300, pinned: ['nothing-*', 'Not A Name'] })).toEqual(catalog.renderCatalog(skills, { budget: 300 }))
    // Without a budget, pins change nothing.
    expect(catalog.renderCatalog(skills, { pinned: ['*'] })).toEqual(catalog.renderCatalog(skills))
  })

  it('reports per source, nearest first, with odd labels and skills without a source', () => {
    const skills = [
      skill('a', 'x'.repeat(100), '__proto__'),
      skill('b', 'x'.repeat(100), 'bundled'),
      skill('c', 'x'.repeat(100)),
      skill('d', 'x'.repeat(100), 'project-agents'),
      skill('e', 'hidden', 'project-dsh', false),
    ]
    const { report } = catalog.renderCatalog(skills)
    expect(Object.keys(report.bySource)).toEqual(['project-agents', 'bundled', '', '__proto__'])
    expect(Object.getPrototypeOf(report.bySource)).toBe(Object.prototype)
    expect(report.bySource.__proto__).toEqual({ total: 1, full: 1, shortened: 0, nameOnly: 0, omitted: 0 })
    expectReportAddsUp(report)
    // Four sources of one skill each share the room equally: all four cut to
    // one length, none left out.
    const budget = 4 * 60
    const cut = catalog.renderCatalog(skills, { budget })
    expect(cut.entries).toBe(oracleBudgeted(skills, 500, budget, []))
    const lengths = cut.entries.split('\n').map((line) => line.length)
    expect(lengths).toHaveLength(4)
    expect(Math.max(...lengths) - Math.min(...lengths)).toBeLessThanOrEqual(1)
    // The unit left over goes to the nearest source (project-agents: `d`).
    expect(lengths[3]).toBe(Math.max(...lengths))
    expect(cut.report.bySource).toEqual(countsFrom(cut.entries, skills))
    expect(cut.report.shortened).toBe(4)
    expect(() => catalog.renderCatalog([{ ...skill('a', 'x'), source: 42 as never }])).toThrow(/skills\[0\]\.source must be a string when present/)
    // Runs of the same label, and of none, first or not.
    const runs = [skill('a', 'x'), skill('b', 'x'), skill('c', 'x', 'runtime'), skill('d', 'x', 'runtime'), skill('e', 'x'), skill('f', 'x', 'runtime')]
    expect(catalog.renderCatalog(runs).report.bySource).toEqual({
      runtime: { total: 3, full: 3, shortened: 0, nameOnly: 0, omitted: 0 },
      '': { total: 3, full: 3, shortened: 0, nameOnly: 0, omitted: 0 },
    })
    expect(catalog.renderCatalog(runs, { budget: 10 }).report.bySource.runtime.total).toBe(3)
  })

  it('planCatalogStep follows the same rules', () => {
    const skills = [
      ...Array.from({ length: 30 }, (_, i) => skill(`a-${String(i).padStart(2, '0')}`, LONG, 'user-agents')),
      skill('zz-deploy', LONG, 'project-dsh'),
    ]
    const options = { budget: 600, pinned: ['*-29'] }
    const rendered = catalog.renderCatalog(skills, options)
    expect(rendered.entries).toBe(oracleBudgeted(skills, 500, 600, options.pinned))
    expect(rendered.entries).toContain(`- \`zz-deploy\`: ${LONG}`)
    expect(rendered.entries).toContain(`- \`a-29\`: ${LONG}`)
    expect(rendered.report.bySource['user-agents'].full).toBe(1)
    const step = catalog.planCatalogStep({ snapshot: { skills, complete: true }, published: false, ...options })
    expect(step).toEqual({ kind: 'initial', text: catalog.renderCatalogMessage(skills, options), digest: rendered.digest, report: rendered.report })
  })

  it('re-labels a reused registry result when only the summaries\' sources changed', async () => {
    const registry = new SkillRegistry({ logger: recorder().logger })
    for (let i = 0; i < 5; i++) registry.register({ name: `rt-${i}`, description: 'x', content: 'x', source: 'runtime' })
    const { skills } = await registry.snapshot()
    expect(Object.keys(catalog.renderCatalog(skills).report.bySource)).toEqual(['runtime'])
    ;(skills[0] as Summary).source = 'relabelled'
    const { report } = catalog.renderCatalog(skills)
    expect(report.bySource).toEqual({
      runtime: { total: 4, full: 4, shortened: 0, nameOnly: 0, omitted: 0 },
      relabelled: { total: 1, full: 1, shortened: 0, nameOnly: 0, omitted: 0 },
    })
  })
})
