'use strict'
// `dsh-skills watch`: what changed each time the skills change (skills added,
// changed, removed, broken with why, body changed), the new catalog in full
// only with --catalog; Ctrl-C ends it with the conventional 130.

const fs = require('node:fs')
const { firstLine } = require('../errors.js')
const { shown } = require('../format.js')
const { layout, entriesByName, catalogChanges } = require('../catalog-view.js')
const { diagnose, brokenCopies } = require('../diagnosis.js')

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

async function run(session) {
  const { io, catalog, options } = session
  let published = false
  let visibleDigest
  let visibleEntries = new Map()
  let running = false
  let again = false
  let stopped = false
  /** Whether the first refresh's warnings were reported (later ones come one change at a time). */
  let reported = false

  /** The winning files of the last report, with their stamps (for body-only changes). */
  let visibleFiles = new Map()

  const refresh = async () => {
    if (running) {
      again = true
      return
    }
    running = true
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
        if (stopped) return
        const files = winnerFiles(diagnosis)
        const entries = entriesByName(session, snapshot.skills)
        const publishes = plan.kind === 'initial' || plan.kind === 'replacement'
        const { added, removed, changed } = publishes ? catalogChanges(visibleEntries, entries) : { added: [], removed: [], changed: [] }
        // A removed skill whose file no longer loads: which file, and why.
        const broken = removed.flatMap((name) =>
          brokenCopies(diagnosis, name)
            .filter((file) => file.verdict === 'broken')
            .map((file) => ({ name, path: String(file.path), reason: String(file.reason ?? 'of an unknown problem') })),
        )
        // A file that changed while its catalog entry did not: the body (or fields the catalog does not show).
        const bodyChanged = published
          ? [...files]
              .filter(([name, file]) => {
                const before = visibleFiles.get(name)
                return before !== undefined && before.path === file.path && before.stamp !== file.stamp && !changed.includes(name) && !added.includes(name)
              })
              .map(([name]) => name)
          : []
        visibleFiles = files
        if (!publishes && bodyChanged.length === 0) continue
        const digest = publishes ? plan.digest : visibleDigest
        const kind = publishes ? plan.kind : 'unchanged'
        const changes = { added, removed, changed, broken, bodyChanged }
        if (options.json) {
          io.stdout.write(`${JSON.stringify({ kind, digest, ...changes })}\n`)
        } else {
          const lines = []
          if (publishes) {
            const visible = snapshot.skills.filter((skill) => skill.invocation.modelInvocable).length
            lines.push(`# ${plan.kind} catalog, digest ${digest} (${visible === 1 ? '1 skill' : `${visible} skills`})`)
          }
          // One line each: a name or path cannot start a line of its own.
          if (plan.kind !== 'initial') lines.push(...changeLines(changes))
          // The whole report in one write: a reader never sees its header without its lines.
          io.out.lines(lines, publishes && options.catalog ? `${plan.text}\n\n` : '')
        }
        if (publishes) {
          published = true
          visibleDigest = plan.digest
          visibleEntries = entries
        }
      } while (again && !stopped)
      // After the first catalog, what a change broke is named in full.
      session.reportWarnings(undefined, { verbose: reported })
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
