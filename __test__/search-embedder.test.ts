// The `embedder` option of the registry: meaning fused with words, skill
// vectors kept by model id and text hash (in memory and on disk), embedded
// only when a skill's text changed, and search by words alone (said once)
// when the embedder cannot be used. The JS-function form runs everywhere;
// the local model runs where DSH_SKILL_EMBED_MODEL names a model folder
// (scripts/embed-model.mjs makes one).
import fs from 'node:fs'
import path from 'node:path'
import { createRequire } from 'node:module'
import { afterAll, describe, expect, it } from 'vitest'
import { pkg, recorder, skillFile, tempDirs, waitFor, write } from './helpers'

const { SkillRegistry } = pkg
const native = createRequire(import.meta.url)('../lib/native.js')
const temps = tempDirs('dsh-embedder-')
afterAll(() => temps.cleanup())

// A toy embedding: one dimension per concept, each word of a concept adds to it.
const CONCEPTS = [
  ['resume', 'cv', 'curriculum', 'resumes'],
  ['pdf', 'document', 'documents'],
  ['deploy', 'ship', 'release', 'publish'],
  ['picture', 'image', 'images', 'drawing', 'photo'],
  ['money', 'bill', 'cost', 'costs', 'invoice'],
]

function toyVector(text: string): Float32Array {
  const v = new Float32Array(CONCEPTS.length + 1)
  v[CONCEPTS.length] = 0.05
  for (const word of text.toLowerCase().match(/[a-z]+/g) ?? []) {
    CONCEPTS.forEach((words, i) => {
      if (words.includes(word)) v[i] += 1
    })
  }
  const norm = Math.hypot(...v)
  return v.map((x) => x / norm)
}

/** A JS embedder that records every batch it is asked for. */
function toyEmbedder(id = 'toy@1') {
  const calls: string[][] = []
  const embed = async (texts: string[], options: { signal?: AbortSignal }) => {
    calls.push([...texts])
    expect(options).toBeTypeOf('object')
    return texts.map(toyVector)
  }
  embed.id = id
  return { embed, calls }
}

const SKILLS: [string, string][] = [
  ['tailored-resume', 'Analyze job descriptions and generate tailored resumes.'],
  ['pdf-tools', 'Merge, split and fill PDF documents.'],
  ['vercel-deploy', 'Ship the app to Vercel and give back the link.'],
  ['image-gen', 'Generate images from a text prompt.'],
  ['cloud-cost', 'Find where the cloud bill can be cut.'],
]

function registryWith(config: object, skills = SKILLS) {
  const log = recorder()
  const registry = new SkillRegistry({ logger: log.logger, ...config })
  const disposers = skills.map(([name, description]) => registry.register({ name, description, content: name }))
  return { registry, log, disposers }
}

describe('search with an embedder', () => {
  it('finds by meaning what shares no word, and embeds each skill text once', async () => {
    const { embed, calls } = toyEmbedder()
    const { registry, log } = registryWith({ embedder: embed, embedderCacheDir: false })
    // No shared word with "tailored-resume": found by meaning.
    const found = await registry.search('fix my CV', { limit: 3 })
    expect(found.skills[0].name).toBe('tailored-resume')
    expect(found.skills[0].score).toBeGreaterThan(0)
    // The first search embedded every skill (one batch), then the query.
    expect(calls.map((c) => c.length)).toEqual([5, 1])
    expect(calls[0]).toContain('tailored resume: Analyze job descriptions and generate tailored resumes.')
    // Words alone find nothing for it.
    const { registry: plain } = registryWith({})
    expect((await plain.search('fix my CV')).total).toBe(0)
    // Another query: only the query is embedded; the same query again: nothing.
    await registry.search('make a picture')
    await registry.search('make a picture')
    expect(calls.map((c) => c.length)).toEqual([5, 1, 1])
    // A changed skill: only its new text is embedded.
    registry.register({ name: 'money-saver', description: 'Cut what the monthly bill costs.', content: 'x' })
    expect((await registry.search('reduce the invoice', { limit: 2 })).skills.map((s) => s.name)).toContain('money-saver')
    expect(calls.slice(3)).toEqual([['money saver: Cut what the monthly bill costs.'], ['reduce the invoice']])
    // The exact name still comes first.
    expect((await registry.search('pdf-tools')).skills[0].name).toBe('pdf-tools')
    expect(log.warnings).toEqual([])
  })

  it('keeps vectors on disk by model id: a restart with an unchanged catalog embeds nothing', async () => {
    const dir = temps.make()
    const first = toyEmbedder('toy@disk')
    const a = registryWith({ embedder: first.embed, embedderCacheDir: dir })
    expect(await a.registry.prepareSearch()).toEqual({ embedded: 5, available: true })
    expect(fs.readdirSync(dir).filter((f) => f.endsWith('.vectors'))).toHaveLength(1)
    const again = toyEmbedder('toy@disk')
    const b = registryWith({ embedder: again.embed, embedderCacheDir: dir })
    expect(await b.registry.prepareSearch()).toEqual({ embedded: 0, available: true })
    expect((await b.registry.search('ship it')).skills[0].name).toBe('vercel-deploy')
    expect(again.calls).toEqual([['ship it']])
    // Another model id shares nothing.
    const other = toyEmbedder('toy@2')
    const c = registryWith({ embedder: other.embed, embedderCacheDir: dir })
    expect(await c.registry.prepareSearch()).toEqual({ embedded: 5, available: true })
  })

  it('a large backlog is embedded in the background; prepareSearch() waits for it', async () => {
    const { embed, calls } = toyEmbedder()
    const many: [string, string][] = Array.from({ length: 100 }, (_, i) => [`skill-${i}`, `Skill ${i} about documents.`])
    const { registry } = registryWith({ embedder: embed, embedderCacheDir: false }, many)
    const found = await registry.search('skill-7')
    expect(found.skills[0].name).toBe('skill-7')
    const prepared = await registry.prepareSearch()
    expect(prepared.available).toBe(true)
    // Every skill embedded exactly once, in batches of at most 64.
    const skillTexts = calls.flat().filter((t) => t.startsWith('skill '))
    expect(new Set(skillTexts).size).toBe(100)
    expect(skillTexts).toHaveLength(100)
    expect(Math.max(...calls.map((c) => c.length))).toBeLessThanOrEqual(64)
  })

  it('while the background embeds a catalog, its searches do not work out what it lacks again', async () => {
    // Count the catalog's look-ups of the texts the store lacks.
    const proto = native.NativeCatalog.prototype
    const original = proto.missingVectors
    let asked = 0
    proto.missingVectors = function (this: unknown, ...args: unknown[]) {
      asked += 1
      return original.apply(this, args)
    }
    try {
      // The first two batches of skills wait until released.
      const waiting: (() => void)[] = []
      const calls: string[][] = []
      let batches = 0
      const embed = Object.assign(
        async (texts: string[]) => {
          calls.push([...texts])
          if (texts.length > 1 && ++batches <= 2) await new Promise<void>((resolve) => waiting.push(resolve))
          return texts.map(toyVector)
        },
        { id: 'toy@slow' },
      )
      // 90 skills: a batch of 64, then one of 26 (few enough to be embedded
      // before a search answers, were they not the background's already).
      const many: [string, string][] = Array.from({ length: 90 }, (_, i) => [`skill-${i}`, `Skill ${i} about documents.`])
      const { registry, log } = registryWith({ embedder: embed, embedderCacheDir: false }, many)
      expect((await registry.search('skill-7')).skills[0].name).toBe('skill-7')
      expect(asked).toBe(1)
      await waitFor(() => waiting.length === 1)
      expect((await registry.search('documents')).total).toBe(90)
      waiting.shift()?.()
      await waitFor(() => waiting.length === 1)
      expect(calls.filter((c) => c.length > 1).map((c) => c.length)).toEqual([64, 26])
      expect((await registry.search('skill-8')).skills[0].name).toBe('skill-8')
      expect(asked).toBe(1)
      waiting.shift()?.()
      expect(await registry.prepareSearch()).toEqual({ embedded: 0, available: true })
      // Every skill embedded once.
      const skillTexts = calls.flat().filter((t) => t.startsWith('skill '))
      expect(skillTexts).toHaveLength(90)
      expect(new Set(skillTexts).size).toBe(90)
      // The job done, the next search looks once more (nothing is missing),
      // and then no more.
      const before = asked
      await registry.search('documents')
      await registry.search('skill-9')
      expect(asked).toBe(before + 1)
      expect(log.warnings).toEqual([])
    } finally {
      proto.missingVectors = original
    }
  })

  it('search goes on by words, and says so once, when the embedder fails or cannot be used', async () => {
    const failing = Object.assign(async () => {
      throw new Error('quota exceeded')
    }, { id: 'broken' })
    const broken = registryWith({ embedder: failing, embedderCacheDir: false })
    expect((await broken.registry.search('pdf')).skills[0].name).toBe('pdf-tools')
    expect((await broken.registry.search('vercel')).skills[0].name).toBe('vercel-deploy')
    expect(broken.log.warnings).toHaveLength(1)
    expect(broken.log.warnings[0]).toMatch(/quota exceeded.*words only/)
    const wrong = Object.assign(async (texts: string[]) => texts.slice(1).map(toyVector), { id: 'short' })
    const short = registryWith({ embedder: wrong, embedderCacheDir: false })
    expect((await short.registry.search('pdf')).skills[0].name).toBe('pdf-tools')
    expect(short.log.warnings[0]).toMatch(/returned 4 vectors for 5 texts/)
    // The local model without a model folder.
    const saved = process.env.DSH_SKILL_EMBED_MODEL
    delete process.env.DSH_SKILL_EMBED_MODEL
    try {
      const local = registryWith({ embedder: 'local', embedderCacheDir: false })
      expect((await local.registry.search('pdf')).skills[0].name).toBe('pdf-tools')
      await local.registry.search('vercel')
      expect(local.log.warnings).toHaveLength(1)
      expect(local.log.warnings[0]).toMatch(/no local model folder/)
      expect(await local.registry.prepareSearch()).toEqual({ embedded: 0, available: false })
      const missing = registryWith({ embedder: { model: path.join(temps.make(), 'nothing') }, embedderCacheDir: false })
      expect((await missing.registry.search('pdf')).skills[0].name).toBe('pdf-tools')
      expect(missing.log.warnings[0]).toMatch(/config\.json/)
    } finally {
      if (saved !== undefined) process.env.DSH_SKILL_EMBED_MODEL = saved
    }
  })

  it('an abort while the embedder works rejects at once, and the embedder sees the signal', async () => {
    let seen: AbortSignal | undefined
    const controller = new AbortController()
    // An embedder that answers only once the caller has given up (and is
    // then ignored): the abort comes while it works.
    const slow = Object.assign(
      (texts: string[], options: { signal?: AbortSignal }) => {
        seen = options.signal
        setImmediate(() => controller.abort(new Error('user left')))
        return new Promise<Float32Array[]>((resolve) => options.signal?.addEventListener('abort', () => resolve(texts.map(toyVector))))
      },
      { id: 'slow' },
    )
    const { registry, log } = registryWith({ embedder: slow, embedderCacheDir: false })
    await expect(registry.search('fix my CV', { signal: controller.signal })).rejects.toThrow('user left')
    expect(seen).toBe(controller.signal)
    expect(log.warnings).toEqual([])
  })

  it('checks the options; without them nothing changes', async () => {
    expect(() => new SkillRegistry({ embedder: 42 as never })).toThrow(TypeError)
    expect(() => new SkillRegistry({ embedder: async () => [] })).toThrow(/string id/)
    expect(() => new SkillRegistry({ embedder: { model: '' } })).toThrow(/model folder/)
    expect(() => new SkillRegistry({ embedderCacheDir: 7 as never })).toThrow(TypeError)
    const { registry } = registryWith({})
    expect(await registry.prepareSearch()).toEqual({ embedded: 0, available: false })
  })
})

const MODEL = process.env.DSH_SKILL_EMBED_MODEL
describe.skipIf(!MODEL)('search with the local model (DSH_SKILL_EMBED_MODEL)', () => {
  it('runs all-MiniLM-L6-v2 from the model folder and finds by meaning', async () => {
    const dir = temps.make()
    write(path.join(dir, 'resume.md'), skillFile('tailored-resume-generator', 'Analyzes job descriptions and generates tailored resumes.'))
    write(path.join(dir, 'posters.md'), skillFile('latex-posters', 'Create research posters in LaTeX for conferences.'))
    write(path.join(dir, 'pdf.md'), skillFile('pdf', 'Read, merge and fill PDF files.'))
    const log = recorder()
    const registry = new SkillRegistry({ logger: log.logger, embedder: 'local', embedderCacheDir: temps.make() })
    registry.registerLocalProvider({ includeDefaultRoots: false, customSkillDirs: [dir], watch: false })
    expect(await registry.prepareSearch()).toEqual({ embedded: 3, available: true })
    expect((await registry.search('rewrite my CV for this job ad', { limit: 1 })).skills[0].name).toBe('tailored-resume-generator')
    expect((await registry.search('something to hang on the wall at the conference', { limit: 1 })).skills[0].name).toBe('latex-posters')
    expect(log.warnings).toEqual([])
  })
})

describe('the embedder in the search tool and the CLI', () => {
  it("the search tool passes its own embedder to the service's search", async () => {
    const { searchToolDefinition } = await import('../lib/cordis/search-tool.js')
    const seen: object[] = []
    const skills = { search: async (_q: string, options: object) => (seen.push(options), { skills: [], total: 0, complete: true }) }
    const { embed } = toyEmbedder()
    await searchToolDefinition(skills, { embedder: embed }).execute({ query: 'cv' }, {})
    await searchToolDefinition(skills, {}).execute({ query: 'cv' }, {})
    expect(seen.map((o) => 'embedder' in o && (o as { embedder: unknown }).embedder === embed)).toEqual([true, false])
  })
})
