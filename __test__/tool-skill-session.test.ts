// A real agent loop (the harness's published agent, loop, LLM runtime and
// sessions, with a scripted model) over 1,400 skills and 50 changes to them,
// once with `updates: 'delta'` and once as the release does (`replace`):
// every request's earlier messages are byte for byte the previous request's
// (a provider's prompt cache holds), every change is in what the model reads
// at its next request, the delta session sends a small fraction of the
// catalog text, and a session resumed from its events rebuilds the same
// catalog and publishes nothing.
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mulberry32, tempDirs } from './helpers'
import { type Any, type Harness, agentOf, catalogs, harness, observed, step, textOf } from './tool-skill-fixture'

const temps = tempDirs('dsh-tool-session-')
afterAll(() => temps.cleanup())

let h: Harness
beforeAll(async () => {
  h = await harness()
}, 600_000)

const SKILLS = 1400
const CHANGES = 50

const WORDS = ['build', 'deploy', 'review', 'data', 'charts', 'tests', 'docs', 'release', 'notes', 'logs', 'audit', 'pdf', 'slides', 'A&B', 'queries', 'cache']

/** A description of 120 to 200 characters (some with `&`, escaped in the text). */
function description(random: () => number, tag: string): string {
  let text = `Helps with ${tag}:`
  const length = 120 + Math.floor(random() * 80)
  while (text.length < length) text += ` ${WORDS[Math.floor(random() * WORDS.length)]}`
  return text
}

function writeSkill(root: string, name: string, text: string, body = `Body of ${name}.`) {
  fs.mkdirSync(path.join(root, name), { recursive: true })
  fs.writeFileSync(path.join(root, name, 'SKILL.md'), `---\nname: ${name}\ndescription: ${JSON.stringify(text)}\n---\n${body}\n`)
}

/** A model that answers every request with a short text, keeping each request's messages as JSON. */
function scriptedModel() {
  const requests: string[][] = []
  class Scripted extends h.LlmAdapter {
    resolveModel(provider: string, model: string) {
      return Promise.resolve({ provider, id: model, name: model })
    }
    async *stream(options: Any) {
      requests.push(options.messages.map((message: Any) => JSON.stringify(message)))
      const text = 'done'
      yield { type: 'block-start', index: 0, blockType: 'text' }
      yield { type: 'text-delta', index: 0, text }
      yield { type: 'block-end', index: 0, block: { type: 'text', text } }
      yield { type: 'usage', usage: { inputTokens: 1, outputTokens: 1 } }
      yield { type: 'finish', reason: { kind: 'stop' } }
    }
  }
  return { adapter: new Scripted(), requests }
}

/** A harness app: the loop, this package's skill plugins over `root`, and an agent with a scripted model. */
async function app(root: string, updates: 'delta' | 'replace') {
  const ctx = new h.Context()
  await ctx.plugin(h.LlmRuntime)
  await ctx.plugin(h.SessionStore)
  await ctx.plugin(h.SystemPrompt)
  await ctx.plugin(h.ToolRuntime)
  await ctx.plugin(h.AgentRegistry)
  await ctx.plugin(h.AgentLoop, { agents: [] })
  await ctx.plugin(h.ours.registry)
  await ctx.plugin(h.ours.filesystem, { customSkillDirs: [root], includeDefaultRoots: false, watch: false })
  await ctx.plugin(h.ours.toolSkill, { updates })
  const model = scriptedModel()
  ctx.llm.registerAdapter(['mock'], model.adapter)
  const agent = ctx.agentLoop.create(h.SessionId(`session-${updates}`), { provider: 'mock', model: 'mock' })
  return { ctx, agent, requests: model.requests }
}

/** Send `text` to `agent` and wait until its turn is over. */
function turn(ctx: Any, agent: Any, text: string): Promise<void> {
  return new Promise((resolve) => {
    const dispose = ctx.on('agent/status', ({ agent: subject, status }: Any) => {
      if (subject === agent && status === 'idle') {
        dispose()
        resolve()
      }
    })
    agent.followup(h.createUserMessage({ content: [{ type: 'text', text }], source: { kind: 'user' } }))
  })
}

const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
const LINE = /^- `([a-z0-9-]+)`(?:: (.*))?$/

/** Lines of `text` between `open` and `close` tags, as name → description (as escaped in the text). */
function section(text: string, open: string, close: string): Map<string, string> | undefined {
  const at = text.indexOf(`${open}\n`)
  if (at === -1) return undefined
  const end = text.indexOf(close, at)
  const out = new Map<string, string>()
  for (const line of text.slice(at + open.length + 1, end).split('\n')) {
    const match = LINE.exec(line)
    if (match) out.set(match[1], match[2] ?? '')
  }
  return out
}

/**
 * The catalog the model reads in a request: the last full list, with every
 * later change applied, read from the message text alone (what the model sees).
 */
function modelCatalog(request: string[]): Map<string, string> {
  let catalog = new Map<string, string>()
  for (const json of request) {
    const message = JSON.parse(json)
    if (message.role !== 'user') continue
    const text = textOf(message)
    const full = section(text, '<available_skills>', '</available_skills>')
    if (full !== undefined) {
      catalog = full
      continue
    }
    for (const [name, value] of section(text, '<skills_added>', '</skills_added>') ?? []) catalog.set(name, value)
    for (const [name, value] of section(text, '<skills_changed>', '</skills_changed>') ?? []) catalog.set(name, value)
    for (const name of section(text, '<skills_removed>', '</skills_removed>')?.keys() ?? []) catalog.delete(name)
  }
  return catalog
}

/** The catalog text a request carries (its catalog messages). */
function catalogChars(request: string[]): number {
  let chars = 0
  for (const json of request) {
    const message = JSON.parse(json)
    if (message.source?.kind === 'skill-catalog') chars += textOf(message).length
  }
  return chars
}

describe('a session of 50 changes at 1,400 skills in a real agent loop', () => {
  it('keeps every request prefix, shows every change, sends a small fraction of the text and resumes', async () => {
    const random = mulberry32(0x5eed)
    const root = temps.make()
    const truth = new Map<string, string>()
    for (let i = 0; i < SKILLS; i++) {
      const name = `skill-${String(i).padStart(4, '0')}`
      const text = description(random, name)
      writeSkill(root, name, text)
      truth.set(name, text)
    }
    const delta = await app(root, 'delta')
    const replace = await app(root, 'replace')
    const sessions = [delta, replace]
    for (const { ctx, agent } of sessions) await turn(ctx, agent, 'hello')
    let added = 0
    for (let k = 1; k <= CHANGES; k++) {
      const names = [...truth.keys()]
      const roll = random()
      let file: string
      if (roll < 0.3) {
        const name = `new-skill-${added++}`
        truth.set(name, description(random, name))
        writeSkill(root, name, truth.get(name)!)
        file = path.join(root, name, 'SKILL.md')
      } else if (roll < 0.6) {
        const name = names[Math.floor(random() * names.length)]
        truth.set(name, description(random, `${name} (edited ${k})`))
        writeSkill(root, name, truth.get(name)!)
        file = path.join(root, name, 'SKILL.md')
      } else if (roll < 0.9) {
        const name = names[Math.floor(random() * names.length)]
        truth.delete(name)
        fs.rmSync(path.join(root, name), { recursive: true })
        file = path.join(root, name, 'SKILL.md')
      } else {
        // A body-only edit: nothing for the catalog.
        const name = names[Math.floor(random() * names.length)]
        writeSkill(root, name, truth.get(name)!, `New body ${k}.`)
        file = path.join(root, name, 'SKILL.md')
      }
      for (const { ctx, agent } of sessions) {
        observed(ctx, file)
        await turn(ctx, agent, `turn ${k}`)
      }
      const expected = new Map([...truth].sort(([a], [b]) => (a < b ? -1 : 1)).map(([name, text]) => [name, escape(text)]))
      for (const { requests } of sessions) {
        const [previous, latest] = requests.slice(-2)
        expect(latest.length).toBeGreaterThan(previous.length)
        // Byte for byte, every message the previous request had.
        expect(latest.slice(0, previous.length)).toEqual(previous)
        expect(modelCatalog(latest), `change ${k}`).toEqual(expected)
      }
    }
    const sent = sessions.map(({ requests }) => catalogChars(requests.at(-1)!))
    const [deltaChars, replaceChars] = sent
    expect(replaceChars).toBeGreaterThan(CHANGES * 150_000)
    expect(deltaChars / replaceChars).toBeLessThan(0.05)
    const deltas = catalogs(delta.agent).filter((m) => m.source.delta !== undefined)
    expect(deltas.length).toBeGreaterThan(CHANGES * 0.7)
    for (const message of deltas) expect(textOf(message).length).toBeLessThan(1000)

    // Resumed from its events in a new app: the same catalog, nothing published.
    const resumedApp = await app(root, 'delta')
    const events = [...delta.agent.session.events]
    const resumed = agentOf(h, h.Session.create(delta.agent.session.id, events, delta.agent.session.header))
    await step(h, resumedApp.ctx, resumed)
    expect(catalogs(resumed)).toHaveLength(catalogs(delta.agent).length)
    const derived = resumed.session.deriveMessages().map((message: Any) => JSON.stringify(message))
    expect(modelCatalog(derived).size).toBe(truth.size)
  }, 300_000)
})
