// The seeded corpus and the oracle of the frontmatter differential test
// (`frontmatter-diff.test.ts`): generated skill frontmatters, random mutations
// of them, and what the TypeScript provider made of a file (`yaml.parse` with
// the rules of SPEC §3 on top).
import { parse as parseYaml } from 'yaml'

export class Gen {
  constructor(readonly next: () => number) {}
  below(n: number): number {
    return Math.floor(this.next() * n)
  }
  chance(percent: number): boolean {
    return this.next() * 100 < percent
  }
  pick<T>(items: readonly T[]): T {
    return items[this.below(items.length)]
  }
}

const PLAIN = [
  'Does things', 'Review code before merging.', 'a-b', 'team', 'é ü 字 😀', 'C#', 'http://x.y/z?q=1',
  'yes', 'no', 'on', 'off', 'y', 'n', 'true', 'True', 'TRUE', 'tRUE', 'false', 'FALSE', 'null', 'Null', '~',
  '0', '1', '-1', '+1', '007', '1.5', '1.', '.5', '-0', '0.0', '1e3', '1E-2', '.5e1', '12345678901234567890',
  '123456789012345678901234567890', '0x1F', '0xffffffffffffffffff', '0o17', '0o7777777777777777777777', '0b101',
  '.inf', '-.Inf', '+.INF', '.nan', '.NaN', '1_000', '1,000', '2001-12-14', '2001-12-14t21:59:43.10-05:00',
  '12:30:45', 'a:b', 'a :b', 'a#b', '-a', '?a', ':a', 'a \\ b', 'x]', 'x}', 'a, b', 'v1.2.3', "it's",
  'plain with  double  spaces', 'ends with dot.', '@x', '`x`', '%x', '!x', '|x', '>x',
]
const SPECIAL = ['\u2028', '\u2029', '\u0085', '\u00a0', '\u200b', '\u3000', '\t', '\ufeff']
const KEYS = [
  'name', 'description', 'whenToUse', 'metadata', 'disable-model-invocation', 'user-invocable', 'owner',
  'version', 'tags', 'x', 'a b', '1', '01', '1.0', 'true', 'null', '~', '<<', 'k-1', 'nested',
]
const FLAGS = [
  'true', 'false', 'True', 'FALSE', 'yes', 'No', 'ON', 'off', '1', '0', '"1"', "'0'", '1.0', '0.0', '-0', '0x1',
  '0o0', '"true"', "'Yes'", '"oFF"', '2', '"2"', 'y', 'null', '~', '', '[true]', '{a: 1}', '"  yes"', '.nan',
  '!!str true', '!!bool true', '!!int 1', '!!str 1', '!!float 0', '!!float 0.0',
]

function quoteSingle(g: Gen, s: string): string {
  const body = s.replace(/'/g, "''")
  return g.chance(10) ? `'${body.replace(/ /, '\n  ')}'` : `'${body}'`
}

function quoteDouble(g: Gen, s: string): string {
  let body = s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')
  const escapes = [
    '\\n', '\\t', '\\u00e9', '\\x41', '\\U0001F600', '\\"', '\\/', '\\ ', '\\N', '\\_', '\\L', '\\P', '\\0', '\\e',
    '\\a', '\\b', '\\v', '\\f', '\\r', '\\\n  ', '\n  ', '\n\n  ', SPECIAL[g.below(SPECIAL.length)],
  ]
  for (let i = g.below(3); i > 0; i--) body += g.pick(escapes) + g.pick(['', 'x', ' y'])
  return `"${body}"`
}

function scalar(g: Gen, indent: string): string {
  const w = g.chance(15) ? g.pick(PLAIN) + g.pick(SPECIAL) + g.pick(['', 'z']) : g.pick(PLAIN)
  switch (g.below(10)) {
    case 0:
    case 1:
      return quoteSingle(g, w)
    case 2:
    case 3:
      return quoteDouble(g, w)
    case 4:
      // A multi-line plain scalar.
      return g.chance(50) ? `${w}\n${indent}  continued line` : `${w}\n\n${indent}  after a blank line`
    default:
      return w
  }
}

function blockScalar(g: Gen, indent: string): string {
  const header = g.pick(['|', '|-', '|+', '>', '>-', '>+', '|', '>', '|-', '>-', '|2', '>-1', '| # c', '>  '])
  const ind = indent + ' '.repeat(1 + g.below(3))
  const lines = [header]
  if (g.chance(20)) lines.push('')
  for (let i = 1 + g.below(4); i > 0; i--) {
    const extra = g.chance(15) ? '  ' : ''
    lines.push(`${ind}${extra}${g.pick(PLAIN)}${g.chance(10) ? '  ' : ''}`)
    // (Lines of spaces only after an explicit indentation indicator are a
    // known difference.)
    if (g.chance(20)) lines.push(g.chance(50) || /\d/.test(header) ? '' : ind)
  }
  if (g.chance(20)) lines.push('')
  return lines.join('\n')
}

let anchorSerial = 0

/** A value after `key:` (starting with a space or a newline), at `indent`. */
function value(g: Gen, indent: string, depth: number, anchors: string[]): string {
  const inner = indent + ' '.repeat(1 + g.below(3))
  let props = ''
  if (g.chance(6)) {
    const a = `a${anchorSerial++}`
    anchors.push(a)
    props += `&${a} `
  }
  if (g.chance(6)) props += g.pick(['!!str ', '!!int ', '!!float ', '!!bool ', '!!null ', '!!map ', '!!seq ', '!x ', '! '])
  if (anchors.length > 0 && g.chance(5)) return ` *${g.pick(anchors)}`
  const kind = depth > 2 ? g.below(3) : g.below(8)
  switch (kind) {
    case 0:
    case 1:
      return ` ${props}${scalar(g, indent)}`
    case 2:
      return ` ${props}${blockScalar(g, indent)}`
    case 3: {
      const items = Array.from({ length: g.below(4) }, () => flowItem(g))
      return ` ${props}[${items.join(g.pick([', ', ',', ' , ']))}${g.chance(5) ? ',' : ''}]`
    }
    case 4: {
      const items = Array.from({ length: g.below(3) }, () => `${g.pick(KEYS)}: ${flowItem(g)}`)
      return ` ${props}{${items.join(', ')}}`
    }
    case 5: {
      const lines = Array.from({ length: 1 + g.below(3) }, () => `${inner}-${value(g, inner, depth + 1, anchors)}`)
      return `${props ? ' ' + props.trimEnd() : ''}\n${lines.join('\n')}`
    }
    case 6:
      return `${props ? ' ' + props.trimEnd() : ''}\n${mapping(g, inner, depth + 1, anchors)}`
    default:
      return props ? ` ${props.trimEnd()}` : ''
  }
}

function flowItem(g: Gen): string {
  switch (g.below(4)) {
    case 0:
      return `'${g.pick(PLAIN).replace(/'/g, "''")}'`
    case 1:
      return JSON.stringify(g.pick(PLAIN))
    default:
      return g.pick(['a', 'b c', '1', '0x10', 'true', '~', '-', 'é', '[x]', '{k: v}', 'k: v'])
  }
}

function mapping(g: Gen, indent: string, depth: number, anchors: string[]): string {
  const lines: string[] = []
  const used = new Set<string>()
  for (let i = 1 + g.below(4); i > 0; i--) {
    let key = g.pick(KEYS)
    if (used.has(key) && !g.chance(5)) continue
    used.add(key)
    if (g.chance(5)) key = g.pick([`"${key}"`, `'${key}'`, `!!str ${key}`])
    if (g.chance(1)) key = `? ${key}\n${indent}`
    if (g.chance(1)) key = g.pick(['? [a, b]\n' + indent, '? {a: 1}\n' + indent, '[a]', '&k key'])
    lines.push(`${indent}${key}:${value(g, indent, depth, anchors)}${g.chance(5) ? ' # note' : ''}`)
    if (g.chance(5)) lines.push(g.pick(['', `${indent}# comment`, '#c']))
  }
  return lines.join('\n')
}

/** The text between the `---` lines of one generated skill file. */
export function frontmatter(g: Gen, index: number): string {
  const anchors: string[] = []
  const lines: string[] = []
  if (g.chance(3)) lines.push(g.pick(['%YAML 1.2\n---', '--- ', '# leading comment', '']))
  const name = g.chance(85) ? `s-${index}` : g.pick(['', 'Bad Name', 'a--b', '"quoted-ok"', '123', '~', 'a1\u0085', 'x_y'])
  const description = g.chance(80) ? ` ${scalar(g, '')}` : value(g, '', 1, anchors)
  const fields: string[] = [`name: ${name}`, `description:${description}`]
  if (g.chance(30)) fields.push(`whenToUse:${value(g, '', 1, anchors)}`)
  if (g.chance(40)) fields.push(`metadata:\n${mapping(g, '  ', 1, anchors)}`)
  if (g.chance(10)) fields.push(`metadata:${value(g, '', 1, anchors)}`)
  if (g.chance(25)) fields.push(`disable-model-invocation: ${g.pick(FLAGS)}`)
  if (g.chance(25)) fields.push(`user-invocable: ${g.pick(FLAGS)}`)
  if (g.chance(2)) fields.push(`${g.pick(['disableModelInvocation', 'modelInvocable', 'userInvocable'])}: true`)
  if (g.chance(30)) fields.push(mapping(g, '', 1, anchors))
  // Shuffle a little: key order must not matter.
  for (let i = fields.length - 1; i > 0; i--) {
    if (g.chance(30)) {
      const j = g.below(i + 1)
      ;[fields[i], fields[j]] = [fields[j], fields[i]]
    }
  }
  lines.push(...fields)
  if (g.chance(5)) lines.push(g.pick(['...', '# trailing comment', '']))
  const crlf = g.chance(5)
  const text = lines.join('\n') + '\n'
  return crlf ? text.replace(/\n/g, '\r\n') : text
}

const NOISE = [
  ' ', '  ', '\t', '\n', '\r', '\r\n', ':', ': ', '-', '- ', '#', ' #', "'", '"', '|', '>', '[', ']', '{', '}', ',',
  '&a0 ', '*a0', '!!str ', '!', '%', '@', '`', '\\', '?', '\u0085', '\u2028', '\u2029', '...', 'a', '0', '\n  ',
]

export function mutate(g: Gen, text: string): string {
  let chars = Array.from(text)
  for (let n = 1 + g.below(3); n > 0; n--) {
    const at = g.below(chars.length + 1)
    switch (g.below(4)) {
      case 0:
        chars.splice(at, 0, ...Array.from(g.pick(NOISE)))
        break
      case 1:
        chars.splice(at, 1 + g.below(3))
        break
      case 2:
        chars.splice(at, 1, ...Array.from(g.pick(NOISE)))
        break
      default: {
        const lines = chars.join('').split('\n')
        const i = g.below(lines.length)
        lines.splice(i, 0, g.chance(50) ? lines[i] : ' ' + lines[i])
        chars = Array.from(lines.join('\n'))
      }
    }
  }
  return chars.join('')
}

// ---------------------------------------------------------------- oracle

export interface Expected {
  name: string
  description: string
  whenToUse?: string
  invocation: { modelInvocable: boolean; userInvocable: boolean }
  metadata?: unknown
}

const KEBAB = /^[a-z0-9]+(?:-[a-z0-9]+)*$/

/** Whether `v` holds itself (an alias inside the collection it names). */
export function cyclic(v: unknown, open = new Set<unknown>()): boolean {
  if (typeof v !== 'object' || v === null) return false
  if (open.has(v)) return true
  open.add(v)
  const found = Object.values(v).some((item) => cyclic(item, open))
  open.delete(v)
  return found
}

/** A file whose YAML holds a cyclic value: the JS package builds a cyclic
 * object, this package refuses the file (docs/frontmatter.md). */
export const CYCLIC = 'cyclic'

/**
 * Inputs on which this package and the JS package knowingly differ (each is
 * listed in docs/frontmatter.md with its reason); the differential test sets such
 * files aside and counts them.
 */
export const KNOWN_DIFFERENCES: readonly { readonly why: string; readonly test: (yaml: string) => boolean }[] = [
  {
    why: 'a block scalar with an explicit indentation indicator and lines of spaces',
    test: (y) => /[|>][-+]?[1-9][^]*\n +\r?\n/.test(y),
  },
  {
    why: 'an anchor or tag directly followed by a bracket, a brace or a quote',
    test: (y) => /(^|[\s[{,])[&!][^\s[\]{},]*[[{"']/.test(y),
  },
  {
    why: 'a flow collection as an implicit key',
    test: (y) => /[\]}] *:( |\r?$)/m.test(y),
  },
  { why: 'a tab in the indentation of a block line', test: (y) => /^ *\t/m.test(y) },
  {
    why: 'an explicit key (`? `) whose key is a collection or spans lines',
    test: (y) => /^[ -]*\?( |\r?$)/m.test(y),
  },
  {
    why: 'an escaped line break followed by an empty line in a double-quoted scalar',
    test: (y) => /\\\r?\n *\r?\n/.test(y),
  },
  { why: 'a carriage return not followed by a line feed before a `#`', test: (y) => /\r#/.test(y) },
  { why: 'a carriage return not followed by a line feed in a directive', test: (y) => /^%[^\n]*\r(?!\n)/m.test(y) },
  { why: 'a mapping value indicator at the start of a line (empty key)', test: (y) => /^ *:( |\r?$)/m.test(y) },
]

/**
 * Corners where the YAML scanner alone reads differently from the JS package
 * and the reader follows the JS package (docs/frontmatter.md): each is a file
 * of the differential corpus, compared like the generated ones. `{i}` is
 * replaced by a serial number, so that every corner has a name of its own.
 */
export const CORNERS: readonly string[] = [
  // A lone carriage return after an indicator separates, and is content.
  'name: c-{i}\ndescription:\r text\n',
  'name: c-{i}\ndescription:\rtext\nwhenToUse:\r\r x\n',
  'name: c-{i}\ndescription: d\nmetadata:\n  k:\r v\n  l:\n    -\r i\n    - j\n  f: {p:\r q}\n',
  'name: c-{i}\ndescription: d\nmetadata:\n  e:\r \n    - i\n',
  'name: c-{i}\ndescription: "k:\rv"\nwhenToUse: a-\rb\nmetadata:\n  lit: |\n    x:\ry\n',
  'name: c-{i}\ndescription: d\n...\r \n',
  // A lone carriage return first: the key is `\rname`.
  '\rname: c-{i}\ndescription: d\n',
  '\rx: 1\nname: c-{i}\ndescription: d\n',
  // A `...` line inside a multi-line flow collection.
  'name: c-{i}\ndescription: d\nx: [a\n...x\n  b]\n',
  'name: c-{i}\ndescription: d\nx: [\n  a\n..., ]\n',
  'name: c-{i}\ndescription: d\nx: [a,\n  ...\n  b]\n',
  // A flow collection continued at column 0 under a block mapping.
  'name: c-{i}\ndescription: d\nx: [a,\n"b"]\n',
  'name: c-{i}\ndescription: d\nx: [a,\n[b]]\n',
  'name: c-{i}\ndescription: d\nx: {a: 1,\n"b": 2}\n',
  'name: c-{i}\ndescription: d\nx: [a\nb]\n',
  'name: c-{i}\ndescription: d\nx: [c, "a\nb"]\n',
  'name: c-{i}\ndescription: d\nmetadata:\n  x: [\n  ]\n  y: {\n  "b": 1\n  }\n',
  'name: c-{i}\ndescription: d\nmetadata:\n  x: [a, [b,\n  ]]\n',
  // A quoted scalar after a dash continued at the dash's column.
  'name: c-{i}\ndescription: d\nx:\n- "a\nb"\n',
  `name: c-{i}\ndescription: d\nmetadata:\n  x:\n  - "a\n    b"\n  - - 'c\n    d'\n`,
]

/** SPEC §3 on top of `yaml.parse`: the skill, or `undefined` when skipped. */
export function oracle(fileText: string): Expected | undefined | typeof CYCLIC {
  const text = fileText.startsWith('\ufeff') ? fileText.slice(1) : fileText
  const lines = text.split('\n')
  const isDelimiter = (line: string) => line === '---' || line === '---\r'
  if (!isDelimiter(lines[0])) return undefined
  const end = lines.findIndex((line, i) => i > 0 && isDelimiter(line))
  if (end < 0) return undefined
  let data: unknown
  try {
    data = parseYaml(lines.slice(1, end).join('\n') + (end > 1 ? '\n' : ''), { logLevel: 'error' })
  } catch {
    return undefined
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return undefined
  if (cyclic(data)) return CYCLIC
  const d = data as Record<string, unknown>
  for (const legacy of ['disableModelInvocation', 'modelInvocable', 'userInvocable']) {
    if (Object.hasOwn(d, legacy)) return undefined
  }
  if (typeof d.name !== 'string' || !KEBAB.test(d.name)) return undefined
  // A description of only whitespace is kept as written (non-empty).
  if (typeof d.description !== 'string' || d.description === '') return undefined
  const flag = (key: string): boolean | undefined | 'bad' => {
    if (!Object.hasOwn(d, key)) return undefined
    const v = d[key]
    if (typeof v === 'boolean') return v
    if (v === 1 || v === '1') return true
    if (v === 0 || v === '0') return false
    if (typeof v === 'string') {
      const lower = v.toLowerCase()
      if (['true', 'yes', 'on'].includes(lower)) return true
      if (['false', 'no', 'off'].includes(lower)) return false
    }
    return 'bad'
  }
  const disable = flag('disable-model-invocation')
  const user = flag('user-invocable')
  if (disable === 'bad' || user === 'bad') return undefined
  const expected: Expected = {
    name: d.name,
    description: d.description,
    invocation: { modelInvocable: !(disable ?? false), userInvocable: user ?? true },
  }
  if (typeof d.whenToUse === 'string' && d.whenToUse.trim() !== '') expected.whenToUse = d.whenToUse
  const m = d.metadata
  if (typeof m === 'object' && m !== null && !Array.isArray(m)) expected.metadata = m
  return expected
}

/** Canonical text of a value: key order kept, -0 kept, non-finite numbers as
 * null (they have no JSON form on the way out of the addon, see docs/frontmatter.md). */
export function canon(v: unknown): string {
  if (typeof v === 'number') return Object.is(v, -0) ? '-0' : Number.isFinite(v) ? String(v) : 'null'
  if (Array.isArray(v)) return `[${v.map(canon).join(',')}]`
  if (typeof v === 'object' && v !== null) {
    return `{${Object.keys(v).map((k) => `${JSON.stringify(k)}:${canon((v as Record<string, unknown>)[k])}`).join(',')}}`
  }
  return v === undefined ? 'undefined' : JSON.stringify(v)
}

