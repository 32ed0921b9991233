// Failure and warning bookkeeping: `fail` (failures by check, with a few distinct
// samples each), the process-wide handlers that report into it, the warning
// kinds the soak expects (and those it provokes on purpose), the known problems,
// and the logger every registry and provider of the soak is given.
import { args } from './config.mjs'
import { base } from './disk.mjs'
import { clock, failures, state, warningCounts } from './state.mjs'

export function fail(check, detail) {
  let entry = failures.get(check)
  if (!entry) failures.set(check, (entry = { count: 0, samples: [], shapes: new Set() }))
  entry.count++
  const text = `[${clock()}] ${String(detail).slice(0, 600)}`
  const shape = String(detail).replaceAll(base, '<base>').replace(/\d+/g, 'N')
  if (entry.samples.length < 8 && !entry.shapes.has(shape)) {
    entry.shapes.add(shape)
    entry.samples.push(text)
  }
}

process.on('unhandledRejection', (reason) => fail('unhandled rejection', reason?.stack ?? reason))
process.on('uncaughtException', (error) => fail('uncaught exception', error?.stack ?? error))
process.on('warning', (warning) => fail('Node process warning', `${warning.name}: ${warning.message}`))

// Warning kinds. `when`: 'always' (any time), 'churn' (only while files are being
// written: a reader can open a file between its truncation and its write).
// `deliberate`: the soak provokes it and knows how many must be logged.
export const WARNING_KINDS = [
  {
    kind: 'duplicate name shadowed (fixtures share names on purpose)',
    re: /^skill "[^"]+" from provider "[^"]+" \(source [^)]+, rank [^)]+\) is shadowed by provider /,
    when: 'always',
  },
  {
    kind: 'file read while being written (churn only)',
    re: /^skill file .+ skipped: (empty file|missing frontmatter|unterminated frontmatter|invalid YAML frontmatter|frontmatter field)/,
    when: 'churn',
  },
  {
    // A symlinked bundle removed between the root listing and the link's stat is
    // reported as a broken link (the soak never leaves a broken link on disk).
    kind: 'link removed during discovery (reported as broken)',
    re: /^skill file .+ skipped: broken symbolic link$/,
    when: 'churn',
  },
  {
    kind: 'listener threw (deliberate)',
    re: /^skills change listener threw: soak: deliberate listener error$/,
    when: 'always',
    deliberate: 'deliberateListenerThrows',
  },
  {
    kind: 'listener rejected (deliberate)',
    re: /^skills change listener rejected: soak: deliberate listener rejection$/,
    when: 'always',
    deliberate: 'deliberateListenerRejections',
  },
  {
    kind: 'provider list() rejected (deliberate)',
    re: /^skill provider "js-flaky" failed to list skills: soak: deliberate list failure$/,
    when: 'always',
    deliberate: 'deliberateListRejections',
  },
  {
    kind: 'duplicate runtime skill (deliberate)',
    re: /^runtime skill "rt-dup" is already registered; the duplicate is ignored$/,
    when: 'always',
    deliberate: 'deliberateDuplicateRuntime',
  },
]
/**
 * Problems of the package the soak finds today. Counted and reported; failures only
 * with `--strict`.
 */
export const KNOWN_PROBLEMS = []

export function makeLogger(label) {
  return {
    warn(message) {
      const problem = KNOWN_PROBLEMS.find((k) => k.re.test(message))
      const known = problem ?? WARNING_KINDS.find((k) => k.re.test(message))
      const kind = known ? known.kind : 'unexpected'
      warningCounts.set(kind, (warningCounts.get(kind) ?? 0) + 1)
      if (!known) fail('unexpected warning', `[${label}] ${message}`)
      else if (problem && args.strict) fail(problem.kind, `[${label}] ${message}`)
      else if (known.when === 'churn' && state.phase === 'quiet') fail('churn-only warning while quiet', `[${label}] ${message}`)
    },
  }
}
