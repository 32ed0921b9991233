// `collectSkillInvocations` scans only for the user-invocable skills of the
// listing (a filtered native scan); the implementation it replaced, which
// scanned every name and filtered in JS, is kept here as the reference.
import { describe, expect, it } from 'vitest'
import { createRequire } from 'node:module'
import { mulberry32 } from './helpers'

const require = createRequire(import.meta.url)
const pkg = require('../index.js') as typeof import('../index')
const { renderSkillContent } = require('../lib/content.js') as Pick<typeof import('../index'), 'renderSkillContent'>

type Skills = { list: (o: object) => unknown; get: (name: string, o: object) => unknown }
type Input = { skills: Skills; messages: unknown[]; textsOf?: (m: never, i: number) => unknown }

const invocableByUser = (skill: any) => skill?.invocation?.userInvocable === true
function userTextBlocks(message: any) {
  if (message === null || typeof message !== 'object' || message.role !== 'user') return undefined
  const content = message.content
  if (typeof content === 'string') return [content]
  if (!Array.isArray(content)) return undefined
  const texts: string[] = []
  for (const block of content) {
    if (block !== null && typeof block === 'object' && block.type === 'text' && typeof block.text === 'string') texts.push(block.text)
  }
  return texts
}

/** The previous implementation (argument checks left out). */
async function reference({ skills, messages, textsOf = userTextBlocks as never }: Input) {
  const seen = new Set<string>()
  for (let i = 0; i < messages.length; i++) {
    let found: string[]
    try {
      const texts = (textsOf as (m: unknown, i: number) => any)(messages[i], i)
      found = []
      if (texts !== undefined && texts !== null) {
        for (const text of texts) {
          if (typeof text !== 'string') continue
          for (const name of pkg.scanSkillGestures(text)) found.push(name)
        }
      }
    } catch {
      continue
    }
    for (const name of found) seen.add(name)
  }
  if (seen.size === 0) return []
  const options = {}
  const listed = (await skills.list(options)) as any[]
  const invocable = new Set()
  for (const summary of listed) if (invocableByUser(summary)) invocable.add(summary.name)
  const out = []
  for (const name of seen) {
    if (!invocable.has(name)) continue
    const definition = await skills.get(name, options)
    if (!invocableByUser(definition)) continue
    out.push({ name, text: renderSkillContent(definition as never), source: { kind: 'skill-invocation', name, form: 'instructions' } })
  }
  return out
}

function recording(listed: unknown[], gone: Set<string> = new Set()) {
  const calls: string[] = []
  const skills: Skills = {
    list: () => {
      calls.push('list')
      return listed
    },
    get: (name: string) => {
      calls.push('get ' + name)
      if (gone.has(name)) return undefined
      return { name, description: 'About ' + name, content: 'Steps of ' + name, provider: 'runtime', invocation: { userInvocable: true, modelInvocable: true } }
    },
  }
  return { skills, calls }
}

async function both(listed: unknown[], messages: unknown[], textsOf?: Input['textsOf'], gone?: Set<string>) {
  const a = recording(listed, gone)
  const b = recording(listed, gone)
  const got = await pkg.collectSkillInvocations({ skills: a.skills as never, messages: messages as never, ...(textsOf ? { textsOf: textsOf as never } : {}) })
  const expected = await reference({ skills: b.skills, messages, textsOf })
  return { got, expected, calls: a.calls, expectedCalls: b.calls }
}

const summary = (name: unknown, userInvocable: unknown = true) => ({ name, invocation: { userInvocable } })

describe('collectSkillInvocations, filtered scan', () => {
  it('agrees with the previous implementation on random messages and listings', async () => {
    const random = mulberry32(29)
    const pick = <T,>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]
    const NAMES = ['a', 'b', 'ab', 'a-b', 'deploy', 'lint', 'A', 'a b', '', 'x/y']
    const PIECES = ['/', ' ', '\n', '\u3000', '\u00a0', 'x', '.', 'é', ...NAMES.map((n) => '/' + n)]
    const text = () => Array.from({ length: Math.floor(random() * 8) }, () => pick(PIECES)).join('')
    for (let round = 0; round < 2000; round++) {
      const messages = Array.from({ length: Math.floor(random() * 5) }, () => {
        const r = random()
        if (r < 0.4) return { role: 'user', content: text() }
        if (r < 0.7) return { role: 'user', content: Array.from({ length: Math.floor(random() * 3) }, () => (random() < 0.8 ? { type: 'text', text: text() } : { type: 'image', text: text() })) }
        if (r < 0.8) return { role: 'assistant', content: text() }
        if (r < 0.9) {
          return {
            role: 'user',
            get content(): string {
              throw new Error('unreadable')
            },
          }
        }
        return { role: 'user', content: [{ type: 'text', text: text() }, 3, null] }
      })
      const listed = NAMES.filter(() => random() < 0.5).map((n) => summary(random() < 0.1 ? 7 : n, random() < 0.8))
      if (random() < 0.2) listed.push(summary(pick(NAMES)))
      const gone = new Set(NAMES.filter(() => random() < 0.1))
      const { got, expected, calls, expectedCalls } = await both(listed, messages, undefined, gone)
      expect(got).toEqual(expected)
      expect(calls).toEqual(expectedCalls)
    }
  })

  it('edge cases: no gesture, nothing invocable, odd listed names, custom readers', async () => {
    for (const [listed, messages] of [
      [[summary('deploy')], []],
      [[summary('deploy')], [{ role: 'user', content: 'no gesture /Deploy a/b' }]],
      [[], [{ role: 'user', content: '/deploy' }]],
      [[summary('deploy', false)], [{ role: 'user', content: '/deploy' }]],
      [[summary('deploy now'), summary('now')], [{ role: 'user', content: '/deploy /now' }]],
      [[summary('deploy'), summary(42), summary(null), null, summary('deploy')], [{ role: 'user', content: '/deploy /42' }]],
      [[summary('b'), summary('a')], [{ role: 'user', content: 'x' }, { role: 'user', content: ['/a', '/b'] }, { role: 'user', content: [{ type: 'text', text: '/b' }, { type: 'text', text: '/a' }] }]],
      [[summary('a')], [{ role: 'user', content: [{ type: 'text', text: 'x' }] }, { role: 'user', content: [{ type: 'text', text: '/a' }] }]],
    ] as Array<[unknown[], unknown[]]>) {
      const { got, expected, calls, expectedCalls } = await both(listed, messages)
      expect(got).toEqual(expected)
      expect(calls).toEqual(expectedCalls)
    }
    // A gesture at the end of one text and the start of the next stay two.
    const custom = (m: { texts: unknown }) => m.texts
    const { got, expected } = await both([summary('a'), summary('b')], [{ texts: ['x /a', '/b y', 'z/a'] }, { texts: 'not iterable' as never }, { texts: [5, '/b'] }], custom as never)
    expect(got.map((i) => i.name)).toEqual(['a', 'b'])
    expect(got).toEqual(expected)
  })

  it('reads each message exactly once, and skips one whose reading throws', async () => {
    const reads: number[] = []
    const { skills } = recording([summary('a'), summary('b')])
    const invoked = await pkg.collectSkillInvocations({
      skills: skills as never,
      messages: [{ t: '/a' }, { t: 'boom' }, { t: '/b' }] as never,
      textsOf: ((m: { t: string }, i: number) => {
        reads.push(i)
        if (m.t === 'boom') throw new Error('reader')
        return [m.t]
      }) as never,
    })
    expect(invoked.map((i) => i.name)).toEqual(['a', 'b'])
    expect(reads).toEqual([0, 1, 2])
  })

  it('finds only the invocable names among a million distinct gestures', async () => {
    const count = 1_000_000
    const text = Array.from({ length: count }, (_, i) => '/s' + i).join(' ')
    const listed = Array.from({ length: 1000 }, (_, i) => summary('s' + (count - 1 - i * 1000)))
    const { got, expected } = await both(listed, [{ role: 'user', content: text }])
    expect(got.length).toBe(1000)
    expect(got[0].name).toBe('s999')
    expect(got).toEqual(expected)
  })
})
