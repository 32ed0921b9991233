// The plain-JS listing of the disk (the reference the registry must converge to):
// the skill files parsed the way the fixtures write them, the catalog a lookup
// must return once quiet, and the differences between a snapshot and it.
import fs from 'node:fs'
import path from 'node:path'

import { projectOf, rootsFor } from './disk.mjs'

/** Parse a skill file the way the fixtures write it; `undefined` when not a skill. */
export function readSkill(file) {
  let text
  try {
    text = fs.readFileSync(file, 'utf8')
  } catch {
    return undefined
  }
  if (!text.startsWith('---\n')) return undefined
  const end = text.indexOf('\n---\n', 3)
  if (end === -1) return undefined
  const fields = {}
  for (const line of text.slice(4, end).split('\n')) {
    const colon = line.indexOf(': ')
    if (colon > 0) fields[line.slice(0, colon)] = line.slice(colon + 2)
  }
  if (!fields.name || !fields.description) return undefined
  return { name: fields.name, description: fields.description, content: text.slice(end + 5).trim() }
}

/** Candidates of one root in discovery order (entries in `localeCompare` order). */
function listRoot(root) {
  let entries
  try {
    entries = fs.readdirSync(root.path, { withFileTypes: true })
  } catch (error) {
    if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return []
    throw error
  }
  entries.sort((a, b) => a.name.localeCompare(b.name))
  const out = []
  for (const entry of entries) {
    if (root.source === 'user-dsh' && entry.name === '.system') continue
    const full = path.join(root.path, entry.name)
    let stat = entry
    if (entry.isSymbolicLink()) {
      try {
        stat = fs.statSync(full)
      } catch {
        continue
      }
    }
    let file
    let resourcePath
    if (stat.isDirectory()) {
      file = path.join(full, 'SKILL.md')
      resourcePath = full
    } else if (stat.isFile() && entry.name.endsWith('.md')) {
      file = full
      resourcePath = root.path
    } else continue
    const skill = readSkill(file)
    if (skill === undefined) continue
    out.push({
      ...skill,
      source: root.source,
      provider: 'local',
      rank: root.rank,
      invocation: { modelInvocable: true, userInvocable: true },
      resourceBase: { kind: 'directory', path: resourcePath },
    })
  }
  return out
}

/** What `snapshot({ cwd })` must return once quiet: disk + long-lived runtime and JS skills, merged. */
export function expectedCatalog(world, cwd) {
  const entries = []
  // Merge order: rank, then registration order (runtime first), then the provider's own order.
  world.runtimeSkills.forEach((skill, i) => entries.push({ ...skill, provider: 'runtime', rank: 250, order: 0, local: i }))
  rootsFor(projectOf(cwd))
    .flatMap(listRoot)
    .forEach((skill, i) => entries.push({ ...skill, order: 1, local: i }))
  world.steadyCandidates.forEach((c, i) => entries.push({ ...c, order: 2, local: i }))
  world.flakyCandidates.forEach((c, i) => entries.push({ ...c, order: 3, local: i }))
  entries.sort((a, b) => a.rank - b.rank || a.order - b.order || a.local - b.local)
  const seen = new Map()
  for (const entry of entries) if (!seen.has(entry.name)) seen.set(entry.name, entry)
  return [...seen.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
}

export const summaryKey = (s) =>
  JSON.stringify([
    s.name,
    s.description,
    s.source,
    s.provider,
    s.invocation?.modelInvocable,
    s.invocation?.userInvocable,
    s.whenToUse ?? null,
    s.resourceBase ?? null,
  ])

/** Differences between a snapshot and the expected catalog ([] when equal). */
export function diffCatalog(snapshot, expected) {
  const diffs = []
  if (!snapshot.complete) diffs.push('snapshot incomplete')
  const got = new Map(snapshot.skills.map((s) => [s.name, summaryKey(s)]))
  const want = new Map(expected.map((s) => [s.name, summaryKey(s)]))
  for (const [name, key] of want) {
    if (!got.has(name)) diffs.push(`missing ${key}`)
    else if (got.get(name) !== key) diffs.push(`stale ${got.get(name)} (disk: ${key})`)
  }
  for (const [name, key] of got) if (!want.has(name)) diffs.push(`extra ${key}`)
  return diffs
}
