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

/** The documented last line of a budgeted catalog that left `n` skills out. */
export function notice(n: number): string {
  return n === 1
    ? '(1 more skill is available but not listed here; load it by its exact name with the `skill` tool.)'
    : `(${n} more skills are available but not listed here; load one by its exact name with the \`skill\` tool.)`
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
 * The budget rules taken literally: groups (pinned, then one per rank, nearest
 * first), the lowest group first through shortening (longest common length
 * first), names only and omission, every candidate block rendered and measured
 * with `.length`.
 */
export function oracleBudgeted<S extends OracleSkill>(
  skills: readonly S[],
  max: number,
  budget: number,
  pinned: readonly string[],
  rankOf: (skill: S) => number = (s) => sourceRank(s.source),
): string {
  const items = modelEntries(skills)
  type Shape = number | 'name' | 'out'
  const render = (shapes: Shape[]) => {
    const lines: string[] = []
    let out = 0
    items.forEach((s, i) => {
      const shape = shapes[i]
      if (shape === 'out') out++
      else if (shape === 'name') lines.push(`- \`${s.name}\``)
      else lines.push(`- \`${s.name}\`: ${oracleEscape(oracleCut(s.description, shape))}`)
    })
    if (out > 0) lines.push(notice(out))
    return lines.join('\n')
  }
  const fits = (shapes: Shape[]) => render(shapes).length <= budget
  const shapes: Shape[] = items.map(() => max)
  if (fits(shapes)) return render(shapes)
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
  const groups: number[][] = []
  for (const i of byRank.filter((i) => !first.includes(i))) {
    const last = groups.at(-1)
    if (last !== undefined && rankOf(items[last[0]]) === rankOf(items[i])) last.push(i)
    else groups.push([i])
  }
  groups.reverse().push(first)
  const MIN_SHORTENED = 40
  const longest = Math.max(0, ...items.map((s) => s.description.replace(/\s+/g, ' ').trim().length))
  for (const group of groups) {
    for (let cap = Math.min(max - 1, longest); cap >= MIN_SHORTENED; cap--) {
      const trial = [...shapes]
      for (const i of group) trial[i] = cap
      if (fits(trial)) return render(trial)
    }
    if (MIN_SHORTENED < max) for (const i of group) shapes[i] = MIN_SHORTENED
    for (const i of [...group].reverse()) {
      shapes[i] = 'name'
      if (fits(shapes)) return render(shapes)
    }
    for (const i of [...group].reverse()) {
      shapes[i] = 'out'
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
