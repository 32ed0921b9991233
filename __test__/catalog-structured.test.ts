// Structured catalogs (entries, JSON-lines digest, sources, planning) and
// `/name` gestures, against plain-JS oracles of the rules.
import { afterAll, describe, expect, it, vi } from 'vitest'
import { createRequire } from 'node:module'
import { mulberry32, recorder } from './helpers'
import { modelEntries, oracleCut, sha256, wellFormed } from './catalog-oracle'
import type { StructuredCatalogEntry, StructuredCatalogStep } from '../types/catalog'

const require = createRequire(import.meta.url)
const pkg = require('../index.js') as typeof import('../index')
const catalog = pkg
const currentLayout = require('../lib/content.js') as Pick<typeof import('../index'), 'renderSkillContent'>
const { SkillRegistry } = pkg
const native = require('../binding.js') as Record<string, (...args: unknown[]) => unknown> & {
  NativeCatalog: new (...args: never[]) => unknown
}

interface Summary {
  name: string
  description: string
  invocation: { modelInvocable: boolean; userInvocable: boolean }
  source?: string
}

function skill(name: string, description: string, modelInvocable = true, source = 'project-dsh'): Summary {
  return { name, description, invocation: { modelInvocable, userInvocable: true }, source }
}

// ---------------------------------------------------------------------------
// Oracle: the rule of SPEC-HEAD §D in plain JS.
// ---------------------------------------------------------------------------

function oracleStructured(skills: readonly Summary[], max = 500): StructuredCatalogEntry[] {
  return modelEntries(skills).map((s) => ({ name: s.name, description: oracleCut(s.description, max) }))
}

function oracleDigest(entries: readonly StructuredCatalogEntry[]): string {
  return sha256(entries.map((e) => JSON.stringify([e.name, e.description])).join('\n'))
}

/** The bench corpus (`bench/catalog.mjs`): ~170-character descriptions with a newline, an indent, `&` and `<...>`. */
function benchSkills(n: number): Summary[] {
  const out: Summary[] = []
  for (let i = 0; i < n; i++) {
    out.push({
      name: `skill-${i.toString().padStart(5, '0')}`,
      description:
        `Use this skill to handle task number ${i} when the user asks about widgets,\n` +
        `  gadgets & <things>. It covers setup, configuration and troubleshooting steps for item ${i}.`,
      invocation: { modelInvocable: i % 10 !== 0, userInvocable: true },
      source: 'project-agents',
    })
  }
  return out
}

const FRAGMENTS = [
  ' ', '\t', '\n', '\r\n', '\v', '\f', '\u00a0', '\u1680', '\u2000', '\u200a', '\u2028', '\u2029', '\u202f', '\u205f', '\u3000', '\ufeff',
  'a', 'word', 'Use this skill', '"quoted"', "'", '\\', '\\n', '/', '`', '&', '<', '>', '&amp;', '</available_skills>',
  '\u0000', '\u0001', '\u0007', '\b', '\u001b', '\u001f', '\u007f', '\u0080', '\u0085', '\u180e', '\u200b', '\u200e', '\u200f',
  'é', 'e\u0301', '中文', 'ß', '\u05e9\u05dc\u05d5\u05dd', '\u0645\u0631\u062d\u0628\u0627', '\u202e', '\ufffd',
  '😀', '👨‍👩‍👧', '𝄞', '🇺🇳', '\ud800', '\udc00', '\udbff\udfff',
]

function pick<T>(rand: () => number, items: readonly T[]): T {
  return items[Math.floor(rand() * items.length)]
}

function randomDescription(rand: () => number, max: number): string {
  if (rand() < 0.2) {
    // A non-BMP character right around the cut (max - 3 units).
    return 'x'.repeat(Math.max(0, max - 5 + Math.floor(rand() * 4))) + pick(rand, ['😀', '𝄞', '👨‍👩‍👧']) + 'y'.repeat(Math.floor(rand() * 6))
  }
  let s = ''
  const parts = Math.floor(rand() * (rand() < 0.2 ? 400 : 40))
  for (let i = 0; i < parts; i++) s += pick(rand, FRAGMENTS)
  return s
}

describe('structured entries and digest', () => {
  it('match the plain JS oracle on the 1,000-skill bench corpus (packed and from a registry)', async () => {
    const skills = benchSkills(1000)
    for (const max of [undefined, 3, 40, 100]) {
      const expected = oracleStructured(skills, max)
      const got = catalog.structuredCatalog(skills, max)
      expect(got.entries).toEqual(expected)
      expect(got.digest).toBe(oracleDigest(expected))
      expect(catalog.structuredCatalogDigest(got.entries)).toBe(got.digest)
      expect(got.report).toEqual(catalog.renderCatalog(skills, max).report)
    }
    const registry = new SkillRegistry({ logger: recorder().logger })
    for (const s of skills) registry.register({ ...s, content: 'body', source: 'runtime' })
    const snapshot = await registry.snapshot()
    const spy = vi.spyOn(native, 'structuredRender')
    const fromRegistry = catalog.structuredCatalog(snapshot.skills)
    expect(spy.mock.calls[0]?.[0]).toBeInstanceOf(native.NativeCatalog)
    spy.mockRestore()
    expect(fromRegistry.entries).toEqual(oracleStructured(skills))
    expect(fromRegistry.digest).toBe(oracleDigest(oracleStructured(skills)))
  })

  it('match the oracle over a generated corpus: unicode, control characters, quotes, cut points', () => {
    const rand = mulberry32(0x57c7)
    const seen = { splitPair: 0, loneInput: 0, control: 0, quotes: 0, cut: 0, empty: 0 }
    for (let round = 0; round < 600; round++) {
      const max = pick(rand, [3, 4, 5, 6, 7, 10, 40, 500])
      const count = rand() < 0.1 ? 0 : Math.floor(rand() * 12)
      const skills: Summary[] = []
      for (let i = 0; i < count; i++) {
        skills.push(skill(`${pick(rand, ['a', 'b', 'z'])}-${Math.floor(rand() * 50)}`, randomDescription(rand, max), rand() > 0.15))
      }
      if (rand() < 0.7) skills.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      const expected = oracleStructured(skills, max)
      const got = catalog.structuredCatalog(skills, max)
      const label = `round ${round}`
      expect(got.entries, label).toEqual(expected)
      expect(got.digest, label).toBe(oracleDigest(expected))
      // The text stays today's, and the entries render it again.
      const text = catalog.renderCatalogMessage(skills, max)
      expect(catalog.renderStructuredCatalog(got.entries, { maxLength: max }), label).toBe(text)
      expect(catalog.renderStructuredCatalog(got.entries, { update: true, maxLength: max }), label).toBe(catalog.renderCatalogUpdate(skills, max))
      const descriptions = expected.map((e) => e.description)
      seen.splitPair += Number(descriptions.some((d) => /[\ud800-\udbff]\.\.\.$/.test(d)))
      seen.loneInput += Number(descriptions.some((d) => wellFormed(d) !== d))
      seen.control += Number(descriptions.some((d) => /[\u0000-\u001f]/.test(d)))
      seen.quotes += Number(descriptions.some((d) => /["\\]/.test(d)))
      seen.cut += Number(descriptions.some((d) => d.endsWith('...')))
      seen.empty += Number(expected.length === 0)
    }
    for (const [what, n] of Object.entries(seen)) expect(n, what).toBeGreaterThan(20)
  })

  it('edge cases byte for byte', () => {
    const cases: Array<[string, number]> = [
      ['quote " backslash \\ slash / tab\tend', 500],
      ['\u0000\u0001\u001f\u007f\u0080 controls', 500],
      ['line\u2028separator\u2029paragraph', 500],
      ['RTL \u05e9\u05dc\u05d5\u05dd \u202eevil\u202c', 500],
      ['combining e\u0301 and 👨‍👩‍👧 family', 500],
      ['abc😀defgh', 7],
      ['ab😀defgh', 7],
      ['a😀', 3],
      ['a😀b', 3],
      ['lone \ud800 high and \udc00 low', 500],
      ['lone \ud800 high cut', 9],
      ['   ', 500],
      ['', 500],
    ]
    for (const [description, max] of cases) {
      const skills = [skill('a', description)]
      const expected = oracleStructured(skills, max)
      const got = catalog.structuredCatalog(skills, max)
      expect(got.entries, JSON.stringify(description)).toEqual(expected)
      expect(got.digest, JSON.stringify(description)).toBe(oracleDigest(expected))
    }
    expect(catalog.structuredCatalog([skill('a', 'abc😀defgh')], 7).entries[0].description).toBe('abc\ud83d...')
    const empty = catalog.structuredCatalog([])
    expect(empty.entries).toEqual([])
    expect(empty.digest).toBe(sha256(''))
    expect(catalog.structuredCatalogDigest([])).toBe(sha256(''))
    // Names in recorded entries need not be skill names to be hashed.
    // U+2028 and U+2029 are whitespace to the description rule, so only
    // recorded entries hold them; JSON.stringify leaves them unescaped.
    const odd = [
      { name: 'Not "a" name', description: '\ud83d' },
      { name: 'a', description: 'x\u2028y\u2029z \u0000 \\ "' },
    ]
    expect(catalog.structuredCatalogDigest(odd)).toBe(oracleDigest(odd))
  })

  it('keep lone surrogates of registry descriptions exact (packs instead of reading the native catalog)', async () => {
    const registry = new SkillRegistry({ logger: recorder().logger })
    registry.register({ name: 'lone', description: 'x \ud800 y', content: 'b', source: 'runtime' })
    registry.register({ name: 'fine', description: 'ok', content: 'b', source: 'runtime' })
    const { skills } = await registry.snapshot()
    const spy = vi.spyOn(native, 'structuredRender')
    const got = catalog.structuredCatalog(skills)
    expect(spy.mock.calls[0]?.[0]).toBeUndefined()
    spy.mockRestore()
    expect(got.digest).toBe(oracleDigest(oracleStructured(skills as Summary[])))
    // The text catalog of the same array still reads the native catalog.
    expect(catalog.renderCatalog(skills).digest).toBe(catalog.renderCatalog([...skills]).digest)
  })

  it('under a budget, entries are the pairs shown; pins and ranks apply', () => {
    const long = 'word '.repeat(30).trim()
    const skills = [
      ...Array.from({ length: 20 }, (_, i) => skill(`a-${String(i).padStart(2, '0')}`, long, true, 'bundled')),
      skill('zz-deploy', long, true, 'project-dsh'),
    ]
    for (const budget of [2000, 700, 250, 120]) {
      const options = { budget, pinned: ['a-0*'] }
      const got = catalog.structuredCatalog(skills, options)
      const text = catalog.renderCatalog(skills, options)
      expect(got.report).toEqual(text.report)
      const listed = text.entries.split('\n').filter((l) => l.startsWith('- `'))
      expect(got.entries.map((e) => (e.description === '' ? `- \`${e.name}\`` : `- \`${e.name}\`: ${e.description}`))).toEqual(listed)
      expect(got.digest).toBe(oracleDigest(got.entries))
    }
    // The project's one skill is a small source: it stays whole while the 20 others share the rest.
    const tight = catalog.structuredCatalog(skills, { budget: 400 })
    expect(tight.entries.find((e) => e.name === 'zz-deploy')).toEqual({ name: 'zz-deploy', description: long })
    expect(tight.report.bySource.bundled.full).toBe(0)
  })

  it('returns frozen entries and checks its input', () => {
    const got = catalog.structuredCatalog([skill('a', 'x')])
    expect(Object.isFrozen(got.entries)).toBe(true)
    expect(Object.isFrozen(got.entries[0])).toBe(true)
    expect(() => catalog.structuredCatalog([skill('Bad Name', 'x')])).toThrow(/kebab-case/)
    expect(() => catalog.structuredCatalog([skill('a', 'x')], 2)).toThrow(/maxLength must be an integer >= 3/)
    expect(() => catalog.structuredCatalog('nope' as never)).toThrow(/skills must be an array/)
    expect(() => catalog.structuredCatalogDigest([{ name: 'a' }] as never)).toThrow(/entries must be an array of/)
    expect(() => catalog.renderStructuredCatalog([{ name: 'a', description: 3 }] as never)).toThrow(/entries must be an array of/)
    expect(() => catalog.renderStructuredCatalog([], { update: 'yes' } as never)).toThrow(/update must be a boolean/)
  })
})

// ---------------------------------------------------------------------------
// Sources
// ---------------------------------------------------------------------------

describe('skill-catalog sources', () => {
  const entries = [{ name: 'a', description: 'x' }]

  it('reads well-shaped records as fresh frozen copies and skips everything else', () => {
    const read = catalog.readSkillCatalogSource({ kind: 'skill-catalog', form: 'catalog', update: true, entries, extra: 1 })
    expect(read).toEqual({ kind: 'skill-catalog', form: 'catalog', update: true, entries })
    expect(Object.isFrozen(read)).toBe(true)
    expect(read?.entries).not.toBe(entries)
    expect(catalog.readSkillCatalogSource({ kind: 'skill-catalog', form: 'catalog', entries: [] })).toEqual({
      kind: 'skill-catalog',
      form: 'catalog',
      entries: [],
    })
    const throwing = {
      kind: 'skill-catalog',
      form: 'catalog',
      get entries(): never {
        throw new Error('no')
      },
    }
    const proxy = new Proxy({}, { get: () => { throw new Error('trap') } })
    for (const bad of [
      undefined,
      null,
      'skill-catalog',
      42,
      { kind: 'skill-invocation', form: 'catalog', entries },
      { kind: 'skill-catalog', form: 'instructions', entries },
      { kind: 'skill-catalog', entries },
      { kind: 'skill-catalog', form: 'catalog' },
      { kind: 'skill-catalog', form: 'catalog', entries: 'a' },
      { kind: 'skill-catalog', form: 'catalog', entries: { 0: entries[0], length: 1 } },
      { kind: 'skill-catalog', form: 'catalog', entries: [null] },
      { kind: 'skill-catalog', form: 'catalog', entries: [['a', 'x']] },
      { kind: 'skill-catalog', form: 'catalog', entries: [{ name: 'a' }] },
      { kind: 'skill-catalog', form: 'catalog', entries: [{ name: 1, description: 'x' }] },
      { kind: 'skill-catalog', form: 'catalog', entries: [{ name: 'a', description: null }] },
      throwing,
      proxy,
    ]) {
      expect(catalog.readSkillCatalogSource(bad)).toBeUndefined()
    }
  })
})

// ---------------------------------------------------------------------------
// Planning
// ---------------------------------------------------------------------------

describe('planStructuredCatalogStep', () => {
  const a = [skill('a', 'first')]
  const b = [skill('a', 'first'), skill('b', 'second')]
  const complete = (skills: Summary[]) => ({ skills, complete: true })
  const sourceOfPlan = (step: StructuredCatalogStep) => {
    if (step.kind !== 'initial' && step.kind !== 'replacement') throw new Error(`no source: ${step.kind}`)
    return step.source
  }
  const initialA = catalog.planStructuredCatalogStep({ snapshot: complete(a), history: [] })
  const msgA = { source: sourceOfPlan(initialA) }

  it('follows the step rules against the newest readable catalog source', () => {
    expect(initialA.kind).toBe('initial')
    const plan = (skills: Summary[], history: unknown[], extra: object = {}) =>
      catalog.planStructuredCatalogStep({ snapshot: complete(skills), history, ...extra })
    expect(plan([], []).kind).toBe('none')
    expect(plan([skill('x', 'y', false)], []).kind).toBe('none')
    expect(catalog.planStructuredCatalogStep({ snapshot: { skills: b, complete: false }, history: [msgA] })).toEqual({ kind: 'none' })
    expect(plan(a, [msgA])).toEqual({ kind: 'none' })
    const changed = plan(b, [msgA])
    expect(changed.kind).toBe('replacement')
    expect(sourceOfPlan(changed).update).toBe(true)
    // Published before, but compacted out of the history.
    expect(plan(a, [], { published: true }).kind).toBe('replacement')
    // Every skill gone: the tombstone, once.
    const tombstone = plan([], [msgA])
    expect(tombstone.kind).toBe('replacement')
    expect(tombstone.kind !== 'none' && tombstone.kind !== 'withdraw' && tombstone.entries).toEqual([])
    expect(tombstone.kind !== 'none' && tombstone.kind !== 'withdraw' && tombstone.text).toBe(catalog.renderCatalogUpdate([]))
    expect(plan([], [msgA, { source: sourceOfPlan(tombstone) }])).toEqual({ kind: 'none' })
    // Newest readable wins; unreadable or foreign newer records are skipped.
    const skipped = [
      msgA,
      { source: { kind: 'skill-catalog', form: 'catalog', entries: 'broken' } },
      { source: { kind: 'skill-invocation', name: 'a', form: 'instructions' } },
      { role: 'user', content: 'hi' },
      null,
    ]
    expect(plan(a, skipped)).toEqual({ kind: 'none' })
    expect(plan(b, [{ source: sourceOfPlan(changed) }, msgA]).kind).toBe('replacement')
    expect(plan(a, [{ source: sourceOfPlan(changed) }, msgA])).toEqual({ kind: 'none' })
    // Records stored as copies (a session written and read back) still match.
    expect(plan(a, [JSON.parse(JSON.stringify(msgA))])).toEqual({ kind: 'none' })
    expect(plan(a, [structuredClone(msgA)])).toEqual({ kind: 'none' })
    // A copy read at every step: changed in place, it is read again.
    const copy = structuredClone(msgA) as { source: { entries: Array<{ name: string; description: string }> } }
    expect(plan(a, [copy])).toEqual({ kind: 'none' })
    expect(plan(a, [copy])).toEqual({ kind: 'none' })
    copy.source.entries[0].description = 'edited'
    expect(plan(a, [copy]).kind).toBe('replacement')
    copy.source.entries[0].description = 'first'
    expect(plan(a, [copy])).toEqual({ kind: 'none' })
    copy.source.entries.push({ name: 'b', description: 'second' })
    expect(plan(a, [copy]).kind).toBe('replacement')
    expect(plan(b, [copy])).toEqual({ kind: 'none' })
    // A custom accessor, and one that throws (unreadable).
    expect(plan(a, [{ meta: { src: msgA.source } }], { sourceOf: (m: { meta: { src: unknown } }) => m.meta.src })).toEqual({ kind: 'none' })
    expect(plan(a, [msgA, 'x'], { sourceOf: (m: unknown) => (typeof m === 'string' ? (() => { throw new Error('x') })() : (m as typeof msgA).source) })).toEqual({ kind: 'none' })
  })

  it('gives the text, digest and report of the text planner, and a source of the published entries', () => {
    const step = catalog.planStructuredCatalogStep({ snapshot: complete(b), history: [msgA] })
    const text = catalog.planCatalogStep({ snapshot: complete(b), published: true, visibleDigest: 'x' })
    if (step.kind !== 'replacement' || text.kind !== 'replacement') throw new Error('replacements expected')
    expect(step.text).toBe(text.text)
    expect(step.report).toEqual(text.report)
    expect(step.entries).toEqual(oracleStructured(b))
    expect(step.digest).toBe(oracleDigest(step.entries))
    expect(step.source).toEqual({ kind: 'skill-catalog', form: 'catalog', update: true, entries: step.entries })
    expect(step.source.entries).toBe(step.entries)
    expect(Object.isFrozen(step.source)).toBe(true)
    expect(catalog.renderStructuredCatalog(step.source.entries, { update: true })).toBe(step.text)
    expect('replaces' in step).toBe(false)
    // Budget and pins as in planCatalogStep.
    const options = { budget: 30, pinned: ['b'] }
    const cut = catalog.planStructuredCatalogStep({ snapshot: complete(b), history: [], ...options })
    const cutText = catalog.planCatalogStep({ snapshot: complete(b), published: false, ...options })
    if (cut.kind !== 'initial' || cutText.kind !== 'initial') throw new Error('initial expected')
    expect(cut.text).toBe(cutText.text)
    expect(cut.report).toEqual(cutText.report)
  })

  it('dedupes or replaces a catalog already queued in the same step, and withdraws a stale one', () => {
    const plan = (skills: Summary[], history: unknown[], pending: unknown[]) =>
      catalog.planStructuredCatalogStep({ snapshot: complete(skills), history, pending })
    // Nothing in the history yet: the first call queues the initial catalog...
    expect(plan(a, [], [])).toEqual(initialA)
    // ...a second call in the same step adds nothing.
    expect(plan(a, [], [{ role: 'user' }, msgA, { role: 'assistant' }])).toEqual({ kind: 'none' })
    // The skills changed between the two calls: replace the queued one.
    const replaced = plan(b, [], [{ role: 'user' }, msgA])
    expect(replaced.kind).toBe('initial')
    expect(replaced.kind === 'initial' && replaced.replaces).toBe(1)
    expect(replaced.kind === 'initial' && replaced.entries).toEqual(oracleStructured(b))
    // The history already shows this catalog: the queued one is stale.
    const queuedB = { source: sourceOfPlan(plan(b, [msgA], [])) }
    expect(plan(a, [msgA], [queuedB])).toEqual({ kind: 'withdraw', index: 0 })
    expect(plan(b, [msgA], [queuedB])).toEqual({ kind: 'none' })
    // Only the newest readable queued catalog counts.
    expect(plan(b, [msgA], [msgA, queuedB, { source: 'x' }])).toEqual({ kind: 'none' })
    expect(plan([], [], [msgA])).toEqual({ kind: 'withdraw', index: 0 })
    // An incomplete snapshot leaves the queued catalog alone.
    expect(catalog.planStructuredCatalogStep({ snapshot: { skills: b, complete: false }, history: [], pending: [msgA] })).toEqual({ kind: 'none' })
  })

  it('plans from a registry snapshot without rendering again, with the same answers as a copy', async () => {
    const registry = new SkillRegistry({ logger: recorder().logger })
    for (let i = 0; i < 30; i++) registry.register({ name: `s-${i}`, description: `Skill ${i} & more`, content: 'b', source: 'runtime' })
    const { skills } = await registry.snapshot()
    const first = catalog.planStructuredCatalogStep({ snapshot: complete(skills as Summary[]), history: [] })
    const copy = catalog.planStructuredCatalogStep({ snapshot: complete([...skills] as Summary[]), history: [] })
    expect(first).toEqual(copy)
    const history = [{ source: sourceOfPlan(first) }]
    const spy = vi.spyOn(native, 'structuredPlan')
    for (let i = 0; i < 3; i++) {
      expect(catalog.planStructuredCatalogStep({ snapshot: complete(skills as Summary[]), history })).toEqual({ kind: 'none' })
    }
    expect(spy.mock.calls.length).toBe(1)
    expect(spy.mock.calls[0]?.[0]).toBeInstanceOf(native.NativeCatalog)
    spy.mockRestore()
  })

  it('checks its input', () => {
    const ok = { snapshot: complete(a), history: [] }
    expect(() => catalog.planStructuredCatalogStep(null as never)).toThrow(/expected \{ snapshot, history/)
    expect(() => catalog.planStructuredCatalogStep({ ...ok, history: undefined } as never)).toThrow(/history must be an array/)
    expect(() => catalog.planStructuredCatalogStep({ ...ok, pending: 3 } as never)).toThrow(/pending must be an array/)
    expect(() => catalog.planStructuredCatalogStep({ ...ok, sourceOf: 'x' } as never)).toThrow(/sourceOf must be a function/)
    expect(() => catalog.planStructuredCatalogStep({ ...ok, published: 1 } as never)).toThrow(/published must be a boolean/)
    expect(() => catalog.planStructuredCatalogStep({ ...ok, budget: 0 })).toThrow(/budget must be a positive integer/)
    expect(() => catalog.planStructuredCatalogStep({ snapshot: { skills: a }, history: [] } as never)).toThrow(/complete must be a boolean/)
  })
})

// ---------------------------------------------------------------------------
// `/name` gestures
// ---------------------------------------------------------------------------

describe('/name gestures', () => {
  it('scan by the boundary rule', () => {
    expect(catalog.scanSkillGestures('/deploy')).toEqual(['deploy'])
    expect(catalog.scanSkillGestures('please /code-review then /deploy and /code-review again')).toEqual(['code-review', 'deploy'])
    expect(catalog.scanSkillGestures('line\n/deploy\u3000/lint\u2028')).toEqual(['deploy', 'lint'])
    for (const prose of ['a/b', 'see /usr/bin', '1/2', '/deploy.', '/deploy,', '(/deploy)', '//deploy', '/Deploy', '/de--ploy', '/', 'x /', '\u200b/deploy']) {
      expect(catalog.scanSkillGestures(prose), prose).toEqual([])
    }
    expect(() => catalog.scanSkillGestures(3 as never)).toThrow(/text must be a string/)
  })

  const temps: Array<() => void> = []
  afterAll(() => temps.forEach((f) => f()))

  async function registryWith() {
    const registry = new SkillRegistry({ logger: recorder().logger })
    registry.register({ name: 'deploy', description: 'Deploys', content: 'Deploy steps.', source: 'runtime' })
    registry.register({
      name: 'model-only',
      description: 'Only for the model',
      content: 'secret',
      source: 'runtime',
      invocation: { modelInvocable: true, userInvocable: false },
    })
    registry.register({ name: 'lint', description: 'Lints', content: 'Lint steps.', source: 'runtime' })
    return registry
  }

  it('load and render the user-invocable skills named in user text blocks', async () => {
    const registry = await registryWith()
    const messages = [
      { role: 'system', content: '/lint' },
      { role: 'assistant', content: [{ type: 'text', text: '/lint' }] },
      { role: 'user', content: 'run /deploy, then /deploy and /unknown and /model-only' },
      { role: 'user', content: [{ type: 'image', text: '/lint' }, { type: 'text', text: 'and /lint /deploy' }] },
    ]
    const calls: Array<[string, unknown]> = []
    const skills = {
      list: (options: object) => {
        calls.push(['list', options])
        return registry.list(options)
      },
      get: (name: string, options: object) => {
        calls.push([name, options])
        return registry.get(name, options)
      },
    }
    const signal = new AbortController().signal
    const scope = { preset: 'reviewer' }
    const invoked = await catalog.collectSkillInvocations({ skills, messages, cwd: '/w', signal, scope })
    // "/deploy," has punctuation glued on: only the later "/deploy" counts.
    expect(invoked.map((i) => i.name)).toEqual(['deploy', 'lint'])
    const deploy = await registry.get('deploy')
    expect(invoked[0]).toEqual({
      name: 'deploy',
      text: currentLayout.renderSkillContent(deploy!),
      source: { kind: 'skill-invocation', name: 'deploy', form: 'instructions' },
    })
    // The release that has `/name` invocations lays the block out with one
    // blank line before the instructions (the earlier entry's layout has none).
    expect(invoked[0].text).toMatch(/<\/skill_resources>\n\n<skill_instructions>/)
    expect(invoked[0].text).not.toBe(catalog.renderSkillContent(deploy!))
    expect(invoked[0].text).toContain('Deploy steps.')
    expect(calls.map(([what]) => what)).toEqual(['list', 'deploy', 'lint'])
    for (const [, options] of calls) expect(options).toEqual({ cwd: '/w', signal, scope })
  })

  it('skip vanished skills, call nothing without gestures, and take a custom reader', async () => {
    const registry = await registryWith()
    const skills = { list: vi.fn((o: object) => registry.list(o)), get: vi.fn(async () => undefined) }
    expect(await catalog.collectSkillInvocations({ skills, messages: [{ role: 'user', content: 'no gestures here' }] })).toEqual([])
    expect(skills.list).not.toHaveBeenCalled()
    expect(await catalog.collectSkillInvocations({ skills, messages: [{ role: 'user', content: '/deploy' }] })).toEqual([])
    expect(skills.get).toHaveBeenCalledWith('deploy', {})
    // Listed as user-invocable, but loaded as model-only (changed in between): prose.
    const changed = {
      list: (o: object) => registry.list(o),
      get: async (name: string, o: object) => {
        const definition = await registry.get(name, o)
        return definition && { ...definition, invocation: { modelInvocable: true, userInvocable: false } }
      },
    }
    expect(await catalog.collectSkillInvocations({ skills: changed, messages: [{ role: 'user', content: '/deploy' }] })).toEqual([])
    const custom = await catalog.collectSkillInvocations<{ from: string; text: string }>({
      skills: registry,
      messages: [
        { from: 'human', text: '/lint' },
        { from: 'tool', text: '/deploy' },
      ],
      textsOf: (m) => (m.from === 'human' ? [m.text] : undefined),
    })
    expect(custom.map((i) => i.name)).toEqual(['lint'])
    await expect(catalog.collectSkillInvocations({ skills: {} as never, messages: [] })).rejects.toThrow(/list\(options\) and get/)
  })
  it('skip a message whose reading throws, and keep the others', async () => {
    const registry = await registryWith()
    const throwing = {
      role: 'user',
      get content(): string {
        throw new Error('content getter')
      },
    }
    const proxy = new Proxy(
      {},
      {
        get() {
          throw new Error('proxy trap')
        },
      },
    )
    // The block list itself throws while it is read: the whole message is
    // unreadable, including the gesture read before the throw.
    const halfRead = {
      role: 'user',
      content: [
        { type: 'text', text: '/lint' },
        {
          type: 'text',
          get text(): string {
            throw new Error('block getter')
          },
        },
      ],
    }
    const messages = [throwing, proxy, halfRead, { role: 'user', content: '/deploy' }]
    const invoked = await catalog.collectSkillInvocations({ skills: registry, messages: messages as never })
    expect(invoked.map((i) => i.name)).toEqual(['deploy'])
    // A custom reader that throws for one message skips only that one.
    const custom = await catalog.collectSkillInvocations<{ text: string }>({
      skills: registry,
      messages: [{ text: '/lint' }, { text: '/deploy' }],
      textsOf: (m) => {
        if (m.text === '/lint') throw new Error('reader')
        return [m.text]
      },
    })
    expect(custom.map((i) => i.name)).toEqual(['deploy'])
  })

  it('scan a pasted text of many distinct gestures in one pass', async () => {
    // 100,000 distinct names, then all of them again in reverse: first
    // occurrence order, each once. (The scan was quadratic in the number of
    // distinct names: this text took about 13 s.)
    const count = 100_000
    const forward = Array.from({ length: count }, (_, i) => '/s' + i).join(' ')
    const backward = Array.from({ length: count }, (_, i) => '/s' + (count - 1 - i)).join('\n')
    const names = catalog.scanSkillGestures(forward + ' ' + backward)
    expect(names.length).toBe(count)
    expect(names[0]).toBe('s0')
    expect(names[count - 1]).toBe('s' + (count - 1))
    expect(names.every((name, i) => name === 's' + i)).toBe(true)
    // Across messages too: the repeats of later messages add nothing.
    const skills = { list: vi.fn(async () => []), get: vi.fn(async () => undefined) }
    const invoked = await catalog.collectSkillInvocations({
      skills,
      messages: [
        { role: 'user', content: forward },
        { role: 'user', content: backward },
      ],
    })
    expect(invoked).toEqual([])
    expect(skills.list).toHaveBeenCalledTimes(1)
    expect(skills.get).not.toHaveBeenCalled()
  })
})
