// Plain-JS oracles of the catalog rules, written from the documented rules
// (docs/catalog-budget.md, types/catalog.d.ts) the straightforward
// way: regex replaces, `.slice`, `JSON.stringify`, `createHash`.
import { createHash } from 'node:crypto'

export interface OracleSkill {
  readonly name: string
  readonly description: string
  readonly invocation: { readonly modelInvocable: boolean }
  readonly source?: string
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex')
}

/** A description normalised and cut as the catalog does, not escaped. */
export function oracleCut(description: string, max: number): string {
  const text = description.replace(/\s+/g, ' ').trim()
  return text.length > max ? text.slice(0, max - 3) + '...' : text
}

export function oracleEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
}

/** The model-invocable skills sorted by name (stable for equal names). */
export function modelEntries<S extends OracleSkill>(skills: readonly S[]): S[] {
  return skills
    .filter((s) => s.invocation.modelInvocable)
    .map((s, i) => [s, i] as const)
    .sort(([a, i], [b, j]) => (a.name < b.name ? -1 : a.name > b.name ? 1 : i - j))
    .map(([s]) => s)
}

/**
 * The documented last line of a budgeted catalog that left `n` skills out:
 * without a search tool, that the `skill` tool loads a skill only by its
 * exact name, which the list does not show; with one, how to find it.
 */
export function notice(n: number, searchTool?: string): string {
  if (searchTool !== undefined) {
    return n === 1
      ? `(1 more skill is available but not listed here; find it by what it does with the \`${searchTool}\` tool, then load it by its exact name with the \`skill\` tool.)`
      : `(${n} more skills are available but not listed here; find one by what it does with the \`${searchTool}\` tool, then load it by its exact name with the \`skill\` tool.)`
  }
  return n === 1
    ? '(1 more skill is available but not listed here; the `skill` tool loads it only by its exact name, which this list does not show.)'
    : `(${n} more skills are available but not listed here; the \`skill\` tool loads one only by its exact name, which this list does not show.)`
}

/** The rank a source label stands for in a plain array (documented order; unknown last). */
export const SOURCE_RANKS: Record<string, number> = {
  'project-dsh': 100,
  'project-agents': 200,
  'project-claude': 225,
  runtime: 250,
  custom: 300,
  'user-dsh': 400,
  'user-agents': 500,
  'user-claude': 550,
  'user-codex': 575,
  bundled: 600,
}

export function sourceRank(source: string | undefined): number {
  return source !== undefined && Object.hasOwn(SOURCE_RANKS, source) ? SOURCE_RANKS[source] : Infinity
}

/** `*` = any run of characters; everything else literal. */
function globRegExp(pattern: string): RegExp {
  return new RegExp(`^${pattern.split('*').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`)
}

/**
 * The budget rules taken literally (docs/catalog-budget.md): pins keep their
 * descriptions; the sources (groups: `groupOf`, the source label unless told
 * otherwise) share the rest by max-min fairness, the farther over-share
 * sources fitting first, each shortened (longest common length first), then
 * name-only (without a search tool, or when every name fits), then left out;
 * room for the last line at its longest is kept when something is left out;
 * then the pins give way. Every candidate block is rendered and measured with
 * `.length`.
 */
export function oracleBudgeted<S extends OracleSkill>(
  skills: readonly S[],
  max: number,
  budget: number,
  pinned: readonly string[],
  rankOf: (skill: S) => number = (s) => sourceRank(s.source),
  how: { groupOf?: (skill: S) => string; searchTool?: string } = {},
): string {
  const items = modelEntries(skills)
  const groupOf = how.groupOf ?? ((s: S) => s.source ?? '')
  type Shape = number | 'name' | 'out'
  const line = (i: number, shape: Shape): string | undefined => {
    const s = items[i]
    if (shape === 'out') return undefined
    if (shape === 'name') return `- \`${s.name}\``
    return `- \`${s.name}\`: ${oracleEscape(oracleCut(s.description, shape))}`
  }
  const render = (shapes: Shape[]) => {
    const lines = items.map((_, i) => line(i, shapes[i])).filter((l) => l !== undefined)
    const out = shapes.filter((shape) => shape === 'out').length
    if (out > 0) lines.push(notice(out, how.searchTool))
    return lines.join('\n')
  }
  const fits = (shapes: Shape[]) => render(shapes).length <= budget
  const cost = (group: number[], shapes: Shape[]) =>
    group.reduce((sum, i) => {
      const l = line(i, shapes[i])
      return l === undefined ? sum : sum + l.length + 1
    }, 0)
  const all: Shape[] = items.map(() => max)
  if (fits(all)) return render(all)
  const byRank = items.map((_, i) => i).sort((a, b) => rankOf(items[a]) - rankOf(items[b]) || a - b)
  const first: number[] = []
  for (const pin of pinned) {
    if (pin.includes('*')) {
      const glob = globRegExp(pin)
      for (const i of byRank) if (glob.test(items[i].name) && !first.includes(i)) first.push(i)
    } else {
      items.forEach((s, i) => s.name === pin && !first.includes(i) && first.push(i))
    }
  }
  // Sources: by group, nearest first (lowest rank, then group), in name order.
  const keys = new Map<string, number>()
  items.forEach((s, i) => {
    if (first.includes(i)) return
    const group = groupOf(s)
    keys.set(group, Math.min(keys.get(group) ?? Infinity, rankOf(s)))
  })
  const sources = [...keys]
    .sort(([a, ra], [b, rb]) => ra - rb || (a < b ? -1 : a > b ? 1 : 0))
    .map(([group]) => items.map((_, i) => i).filter((i) => !first.includes(i) && groupOf(items[i]) === group))
  const MIN_SHORTENED = 40
  const ladder = (named: boolean): Shape[] => (how.searchTool === undefined || named ? ['name', 'out'] : ['out'])
  const fit = (shapes: Shape[], group: number[], room: number) => {
    if (cost(group, shapes) <= room) return cost(group, shapes)
    for (let cap = max - 1; cap >= MIN_SHORTENED; cap--) {
      const trial = [...shapes]
      for (const i of group) trial[i] = cap
      if (cost(group, trial) <= room) {
        for (const i of group) shapes[i] = cap
        return cost(group, shapes)
      }
    }
    if (MIN_SHORTENED < max) for (const i of group) shapes[i] = MIN_SHORTENED
    const named = [...shapes]
    for (const i of group) named[i] = 'name'
    for (const step of ladder(cost(group, named) <= room)) {
      for (const i of [...group].reverse()) {
        if (cost(group, shapes) <= room) return cost(group, shapes)
        shapes[i] = step
      }
    }
    return cost(group, shapes)
  }
  const shared = (reserve: number): Shape[] => {
    const shapes = [...all]
    let left = budget + 1 - cost(first, shapes) - reserve
    if (left < 0) {
      for (const i of sources.flat()) shapes[i] = 'out'
      return shapes
    }
    const demands = sources.map((g) => cost(g, shapes))
    const order = sources.map((_, k) => k).sort((a, b) => demands[a] - demands[b] || a - b)
    const over: number[] = []
    order.forEach((k, n) => {
      if (over.length === 0 && demands[k] * (order.length - n) <= left) left -= demands[k]
      else over.push(k)
    })
    over.sort((a, b) => a - b)
    for (let n = over.length - 1; n >= 0; n--) left -= fit(shapes, sources[over[n]], Math.floor(left / (n + 1)))
    return shapes
  }
  let shapes = shared(0)
  if (shapes.includes('out')) shapes = shared(notice(sources.flat().length, how.searchTool).length + 1)
  if (fits(shapes)) return render(shapes)
  for (const i of sources.flat()) shapes[i] = 'out'
  for (let cap = max - 1; cap >= MIN_SHORTENED; cap--) {
    const trial = [...shapes]
    for (const i of first) trial[i] = cap
    if (fits(trial)) return render(trial)
  }
  if (MIN_SHORTENED < max) for (const i of first) shapes[i] = MIN_SHORTENED
  const named = [...shapes]
  for (const i of first) named[i] = 'name'
  for (const step of ladder(fits(named))) {
    for (const i of [...first].reverse()) {
      shapes[i] = step
      if (fits(shapes)) return render(shapes)
    }
  }
  return render(shapes)
}

/**
 * `String.prototype.toWellFormed`: lone surrogates become U+FFFD (catalog
 * text holds U+FFFD where a cut splits a surrogate pair; Node hashes a lone
 * surrogate as U+FFFD too).
 */
export function wellFormed(text: string): string {
  return text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd')
}
