'use strict'
// `dsh-skills watch`: what changed each time the skills change (skills added,
// changed, removed, broken with why, body changed), the new catalog in full
// only with --catalog; Ctrl-C ends it with the conventional 130.
//
// What changed is told by skill, whatever a budget did to the catalog: each
// report is compared with the last one by every model-invocable skill's entry
// as it reads without a budget, every winning file and every broken file.

const fs = require('node:fs')
const { firstLine } = require('../errors.js')
const { shown, rootOf } = require('../format.js')
const { layout, entriesByName, catalogChanges, unreachableWarning } = require('../catalog-view.js')
const { diagnose, brokenCopies } = require('../diagnosis.js')
const { entryName } = require('../verdicts.js')

/** Exit codes of a process ended by a signal: 128 + the signal's number. */
const SIGNAL_EXIT = { SIGINT: 130, SIGTERM: 143 }

/**
 * The lines saying what changed: names added, changed (catalog entry),
 * removed; each broken skill with its file and why; names whose file changed
 * while their catalog entry did not.
 */
function changeLines({ added, removed, changed, broken, bodyChanged }) {
  const gone = new Set(broken.map((skill) => skill.name))
  const lines = [
    ['added', added],
    ['changed', changed],
    ['removed', removed.filter((name) => !gone.has(name))],
  ]
    .filter(([, names]) => names.length)
    .map(([what, names]) => `# ${what}: ${names.join(', ')}`)
  for (const skill of broken) lines.push(`# broken: ${skill.name}: ${shown(skill.path)}: ${skill.reason}`)
  if (bodyChanged.length) lines.push(`# body changed: ${bodyChanged.join(', ')}`)
  return lines
}

/** A file's identity and last change (device, inode, size, modification and status-change times), or undefined. */
function stampOf(file) {
  try {
    const stat = fs.statSync(file, { bigint: true })
    return `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`
  } catch {
    return undefined
  }
}

/** The winning file of each loaded skill name, with its stamp. */
function winnerFiles(diagnosis) {
  const files = new Map()
  for (const file of diagnosis.files) {
    if (file.verdict !== 'loaded' || typeof file.name !== 'string' || files.has(file.name)) continue
    files.set(file.name, { path: String(file.path), stamp: stampOf(String(file.path)) })
  }
  return files
}

/** Each broken file of a diagnosis by path: `{ name, path, reason }`, named after its folder or file. */
function brokenFiles(diagnosis) {
  const broken = new Map()
  for (const file of diagnosis.files) {
    if (file.verdict !== 'broken') continue
    const filePath = String(file.path)
    broken.set(filePath, { name: entryName(file, rootOf(file, diagnosis.roots)), path: filePath, reason: String(file.reason ?? 'of an unknown problem') })
  }
  return broken
}

/**
 * What changed from `before` to `now` (each `{ entries, files, broken }`):
 * skills added, removed and changed (entries without a budget), files that
 * broke (or broke for another reason; a removed skill's broken file under the
 * removed name), and winners whose file changed while their entry did not.
 */
function changesBetween(before, now, diagnosis) {
  const { added, removed, changed } = catalogChanges(before.entries, now.entries)
  const removedName = new Map()
  for (const name of removed) {
    for (const file of brokenCopies(diagnosis, name)) if (file.verdict === 'broken') removedName.set(String(file.path), name)
  }
  const broken = [...now.broken.values()]
    .filter((file) => before.broken.get(file.path)?.reason !== file.reason)
    .map((file) => ({ ...file, name: removedName.get(file.path) ?? file.name }))
  const bodyChanged = [...now.files]
    .filter(([name, file]) => {
      const was = before.files.get(name)
      return was !== undefined && was.path === file.path && was.stamp !== file.stamp && !changed.includes(name) && !added.includes(name)
    })
    .map(([name]) => name)
  return { added, removed, changed, broken, bodyChanged }
}

/** Whether `changes` names anything. */
function anyChange(changes) {
  return Object.values(changes).some((list) => list.length > 0)
}

async function run(session) {
  const { io, catalog, options } = session
  let published = false
  let visibleDigest
  /** What the last report stood on: entries without a budget, winning files, broken files (undefined before the first). */
  let known
  let running = false
  let again = false
  let stopped = false
  /** Whether the first refresh's warnings were reported (later ones come one change at a time). */
  let reported = false
  /** Whether the warning about skills a budget leaves out without a search tool was printed. */
  let warnedUnreachable = false

  const refresh = async () => {
    if (running) {
      again = true
      return
    }
    running = true
    /** Files named on stdout by a `# broken:` line in this refresh (text mode): not warned about again. */
    const named = new Set()
    /** The diagnosis of the last pass: the counts of the warnings. */
    let lastDiagnosis
    try {
      do {
        again = false
        const snapshot = await session.snapshot()
        if (stopped) return
        if (!snapshot.complete) continue
        const shape = layout(options)
        const plan = catalog.planCatalogStep({
          snapshot,
          visibleDigest,
          published,
          ...(typeof shape === 'object' ? shape : { maxLength: shape }),
        })
        const diagnosis = await diagnose(session)
        lastDiagnosis = diagnosis
        if (stopped) return
        const now = {
          entries: entriesByName(session, snapshot.skills, options.maxLength),
          files: winnerFiles(diagnosis),
          broken: brokenFiles(diagnosis),
        }
        const publishes = plan.kind === 'initial' || plan.kind === 'replacement'
        const first = known === undefined
        // The first report names what there is (added: every skill, and the
        // broken files); its text is the heading alone.
        const changes = changesBetween(first ? { entries: new Map(), files: new Map(), broken: new Map() } : known, now, diagnosis)
        known = now
        if (first ? !publishes : !publishes && !anyChange(changes)) continue
        const digest = publishes ? plan.digest : (visibleDigest ?? null)
        const kind = publishes ? plan.kind : 'unchanged'
        if (options.json) {
          io.stdout.write(`${JSON.stringify({ kind, digest, ...changes })}\n`)
        } else {
          const lines = []
          if (publishes) {
            const visible = snapshot.skills.filter((skill) => skill.invocation.modelInvocable).length
            lines.push(`# ${plan.kind} catalog, digest ${digest} (${visible === 1 ? '1 skill' : `${visible} skills`})`)
          }
          // One line each: a name or path cannot start a line of its own.
          if (!first) {
            lines.push(...changeLines(changes))
            for (const file of changes.broken) named.add(file.path)
          }
          // The whole report in one write: a reader never sees its header without its lines.
          io.out.lines(lines, publishes && options.catalog ? `${plan.text}\n\n` : '')
        }
        if (publishes) {
          published = true
          visibleDigest = plan.digest
          // Once a run: a budget that leaves skills out without a search tool.
          const unreachable = warnedUnreachable || options.quiet ? undefined : unreachableWarning(session, plan.report)
          if (unreachable) io.err.line(`dsh-skills: warning: ${unreachable}`)
          warnedUnreachable ||= unreachable !== undefined
        }
      } while (again && !stopped)
      // After the first catalog, what a change broke is named in full (once:
      // a file a `# broken:` line named is not warned about again).
      await session.reportWarnings(undefined, { verbose: reported, named, diagnosis: lastDiagnosis })
      reported = true
    } catch (error) {
      io.err.line(`dsh-skills: catalog refresh failed: ${firstLine(error)}`)
    } finally {
      running = false
    }
  }

  return new Promise((resolve) => {
    // The native watchers do not keep Node alive on purpose: this timer does,
    // until Ctrl-C.
    const keepAlive = setInterval(() => {}, 1 << 30)
    const unsubscribe = session.registry.onChange(() => {
      refresh()
    })
    const stop = (signal) => {
      if (stopped) return
      stopped = true
      process.off('SIGINT', stop)
      process.off('SIGTERM', stop)
      unsubscribe()
      clearInterval(keepAlive)
      session.dispose().then(() => resolve(SIGNAL_EXIT[signal] ?? 0))
    }
    process.on('SIGINT', stop)
    process.on('SIGTERM', stop)
    if (!options.quiet) io.err.line(`dsh-skills: watching skills for ${shown(session.cwd)} (Ctrl-C to stop)`)
    refresh().then(() => {
      if (!published && !stopped && !options.quiet) io.err.line('dsh-skills: no model-invocable skills yet')
    })
  })
}

module.exports = { run }
