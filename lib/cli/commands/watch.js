'use strict'
// `dsh-skills watch`: a replacement catalog each time the catalog changes,
// headed by what changed; Ctrl-C ends it with the conventional 130.

const { firstLine } = require('../errors.js')
const { shown } = require('../format.js')
const { layout, entriesByName, catalogChanges } = require('../catalog-view.js')

/** Exit codes of a process ended by a signal: 128 + the signal's number. */
const SIGNAL_EXIT = { SIGINT: 130, SIGTERM: 143 }

/** The lines saying what a replacement catalog changed (`catalogChanges`). */
function changeLines({ added, removed, changed }) {
  return [
    ['added', added],
    ['removed', removed],
    ['changed', changed],
  ]
    .filter(([, names]) => names.length)
    .map(([what, names]) => `# ${what}: ${names.join(', ')}\n`)
    .join('')
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
        const shape = layout(options)
        const plan = catalog.planCatalogStep({
          snapshot,
          visibleDigest,
          published,
          ...(typeof shape === 'object' ? shape : { maxLength: shape }),
        })
        if (plan.kind !== 'initial' && plan.kind !== 'replacement') continue
        const { digest, text } = plan
        const entries = entriesByName(session, snapshot.skills)
        const changes = catalogChanges(visibleEntries, entries)
        if (options.json) {
          io.stdout.write(`${JSON.stringify({ kind: plan.kind, digest, ...changes })}\n`)
        } else {
          const changed = plan.kind === 'initial' ? '' : changeLines(changes)
          io.out.text(`# ${plan.kind} catalog, digest ${digest}\n${changed}${text}\n\n`)
        }
        published = true
        visibleDigest = digest
        visibleEntries = entries
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
