// File churn under watch: one random file operation at a time on the roots
// (bundles and flat files created, edited in place and atomically, renamed,
// moved between roots, hidden, deleted; symlinked bundles; files deeper in
// bundles; roots and their parents removed; root-level moves, scripts/root-moves.mjs;
// bursts), some of them reported by `observeHostMutation`. `churnTask` runs
// until `ctl.stopDisk` is set, then returns (the other tasks: workload.mjs).
import fs from 'node:fs'
import path from 'node:path'
import { setImmediate as tick, setTimeout as sleep } from 'node:timers/promises'

import { rootMove } from '../root-moves.mjs'
import { MAX_ENTRIES } from './config.mjs'
import { ALL_ROOTS, base, home, projectRoots, projects, randomName, scratch, SHARED_ROOTS, skillText, store, writeBundle } from './disk.mjs'
import { readSkill } from './expected.mjs'
import { fail } from './failures.mjs'
import { pick, rand, randInt } from './random.mjs'
import { counts, now, rootMoves, state } from './state.mjs'

/** Roots the churn writes to: the round's focus projects and the shared roots most of the time. */
export function churnRoot(round) {
  if (rand() < 0.7) return pick([...round.focus.flatMap(projectRoots), ...SHARED_ROOTS])
  return pick(ALL_ROOTS)
}

function entriesOf(root) {
  try {
    return fs.readdirSync(root.path, { withFileTypes: true }).filter((e) => e.name !== '.system')
  } catch {
    return undefined // missing root
  }
}

/** The skill file behind an entry (bundle dir, symlinked bundle or flat file), if any. */
function skillFileOf(root, entry) {
  const full = path.join(root.path, entry.name)
  if (entry.isDirectory() || entry.isSymbolicLink()) return path.join(full, 'SKILL.md')
  return entry.name.endsWith('.md') ? full : undefined
}

function removeEntry(root, entry) {
  const full = path.join(root.path, entry.name)
  if (entry.isSymbolicLink()) {
    const target = fs.readlinkSync(full)
    fs.unlinkSync(full) // the link first: a link is never left broken
    fs.rmSync(target, { recursive: true, force: true })
  } else fs.rmSync(full, { recursive: true, force: true })
}

/** The directories right above roots, which root moves may move and link (not the projects or home). */
const ROOT_PARENTS = [...new Set(ALL_ROOTS.map((root) => path.dirname(root.path)))].filter((dir) => !projects.includes(dir) && dir !== home)

/** Remove the dangling links on the way to `dir` (inside the soak's base), so it can be made. */
function clearDanglingLinks(dir) {
  for (let at = dir; at.startsWith(base + path.sep); at = path.dirname(at)) {
    try {
      if (fs.lstatSync(at).isSymbolicLink() && !fs.existsSync(at)) fs.unlinkSync(at)
    } catch {
      // Nothing there.
    }
  }
}

/** One file operation; returns the path written (for `observeHostMutation`), if any. */
function churnOp(world, round) {
  const root = churnRoot(round)
  const entries = entriesOf(root)
  if (entries === undefined) {
    // Recreate a missing root, usually right away (it was removed by `remove
    // root`, or a root move left a link to nothing).
    clearDanglingLinks(root.path)
    fs.mkdirSync(root.path, { recursive: true })
    for (let i = randInt(0, 2); i > 0; i--) writeBundle(root.path, `e${++state.entrySeq}`, randomName())
    return root.path
  }
  const skills = entries.filter((e) => skillFileOf(root, e) !== undefined)
  const r = rand()
  if ((r < 0.2 && entries.length < MAX_ENTRIES) || skills.length === 0) {
    if (rand() < 0.6) {
      const entry = `e${++state.entrySeq}`
      if (rand() < 0.3) {
        // Atomic bundle creation: built in scratch, renamed in.
        writeBundle(scratch, entry, randomName())
        fs.renameSync(path.join(scratch, entry), path.join(root.path, entry))
      } else writeBundle(root.path, entry, randomName())
      return path.join(root.path, entry)
    }
    const file = path.join(root.path, `f${++state.entrySeq}.md`)
    fs.writeFileSync(file, skillText(randomName()))
    return file
  }
  if (r < 0.45) {
    // Edit in place; one time in five the skill changes its name.
    const file = skillFileOf(root, pick(skills))
    const current = readSkill(file)
    fs.writeFileSync(file, skillText(current === undefined || rand() < 0.2 ? randomName() : current.name))
    return file
  }
  if (r < 0.55) {
    // Atomic save: write in scratch, rename over.
    const file = skillFileOf(root, pick(skills))
    const tmp = path.join(scratch, `save-${++state.entrySeq}`)
    fs.writeFileSync(tmp, skillText(readSkill(file)?.name ?? randomName()))
    fs.renameSync(tmp, file)
    return file
  }
  if (r < 0.62) {
    // Rename an entry within its root (a flat file keeps its `.md`).
    const entry = pick(skills)
    const to = entry.name.endsWith('.md') && !entry.isDirectory() ? `f${++state.entrySeq}.md` : `e${++state.entrySeq}`
    fs.renameSync(path.join(root.path, entry.name), path.join(root.path, to))
    return path.join(root.path, to)
  }
  if (r < 0.67) {
    // Move an entry to another root (its source and rank change).
    const entry = pick(skills)
    const other = pick(ALL_ROOTS.filter((x) => x !== root))
    if (entriesOf(other) === undefined) return undefined
    const to = path.join(other.path, `${entry.isDirectory() || entry.isSymbolicLink() ? 'e' : 'f'}${++state.entrySeq}${entry.name.endsWith('.md') ? '.md' : ''}`)
    try {
      fs.renameSync(path.join(root.path, entry.name), to)
    } catch (error) {
      // Root moves can make a root a link into an entry of another root: the
      // entry cannot move into itself (EINVAL). Nothing changed.
      if (error.code === 'EINVAL') return undefined
      throw error
    }
    return to
  }
  if (r < 0.7) {
    // Hide a flat file (no longer `.md`) or bring a hidden one back.
    const hidden = entries.find((e) => e.name.endsWith('.md.off'))
    if (hidden) {
      const to = path.join(root.path, hidden.name.slice(0, -4))
      fs.renameSync(path.join(root.path, hidden.name), to)
      return to
    }
    const flat = skills.find((e) => e.isFile())
    if (!flat) return undefined
    fs.renameSync(path.join(root.path, flat.name), path.join(root.path, `${flat.name}.off`))
    return path.join(root.path, flat.name)
  }
  if (r < 0.8) {
    const entry = pick(entries)
    removeEntry(root, entry)
    return path.join(root.path, entry.name)
  }
  if (r < 0.84) {
    // A bundle dir without SKILL.md (not a skill), or its SKILL.md written later.
    const empty = entries.find((e) => e.isDirectory() && !fs.existsSync(path.join(root.path, e.name, 'SKILL.md')))
    if (empty) {
      fs.writeFileSync(path.join(root.path, empty.name, 'SKILL.md'), skillText(randomName()))
      return path.join(root.path, empty.name, 'SKILL.md')
    }
    const dir = path.join(root.path, `e${++state.entrySeq}`, 'references')
    fs.mkdirSync(dir, { recursive: true })
    fs.writeFileSync(path.join(dir, 'notes.md'), 'not a skill\n')
    return dir
  }
  if (r < 0.9) {
    // Files deeper in a bundle (never change the catalog).
    const bundle = entries.find((e) => e.isDirectory())
    if (!bundle) return undefined
    const dir = path.join(root.path, bundle.name, rand() < 0.5 ? 'references' : 'scripts')
    fs.mkdirSync(dir, { recursive: true })
    fs.writeFileSync(path.join(dir, `x${randInt(0, 3)}.md`), skillText(randomName()))
    return undefined
  }
  if (r < 0.94) {
    // A symlinked bundle (its target lives outside the roots).
    const target = path.join(store, `t${++state.entrySeq}`)
    writeBundle(store, path.basename(target), randomName())
    fs.symlinkSync(target, path.join(root.path, `l${state.entrySeq}`))
    return path.join(root.path, `l${state.entrySeq}`)
  }
  if (r < 0.955) {
    // Remove a root, or its parent (watching falls back to the nearest ancestor).
    const gone = rand() < 0.5 ? root.path : path.dirname(root.path)
    fs.rmSync(gone, { recursive: true, force: true })
    return gone
  }
  if (r < 0.975) {
    // What a root is changes: a link repointed or replaced, a target moved.
    counts.rootMoves++
    rootMove(
      ALL_ROOTS.map((x) => x.path),
      rootMoves.place,
      rand,
      (dir) => writeBundle(dir, `e${++state.entrySeq}`, randomName()),
      ROOT_PARENTS,
    )
    return undefined
  }
  // A burst (like a checkout): handled by the caller.
  return 'burst'
}

export async function churnTask(world, round, ctl) {
  while (!ctl.stopDisk) {
    let burst = 1
    for (let i = 0; i < burst; i++) {
      let written
      try {
        written = churnOp(world, round)
      } catch (error) {
        fail('file churn operation failed (soak script bug)', error?.stack ?? error)
      }
      counts.fsOps++
      ctl.lastWriteAt = now()
      if (written === 'burst') burst = randInt(10, 40)
      else if (written !== undefined && rand() < 0.3) {
        counts.hostMutations++
        world.local.observeHostMutation(written)
      }
    }
    if (rand() < 0.5) await tick()
    else await sleep(randInt(1, 4))
  }
}
