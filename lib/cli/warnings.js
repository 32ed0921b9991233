'use strict'
// The library's warnings as the commands print them: after the output, each
// kind that comes by the dozen (skipped skill files, shadowed skills) as one
// count, every other warning in full; `--verbose` prints every line.

/**
 * The kinds counted instead of printed one by one, told by the wording the
 * library gives them (`doctor` has the details of each).
 */
const KINDS = [
  {
    kind: 'skipped',
    test: /^skill file .* skipped: /s,
    count: (n) => (n === 1 ? '1 skill file skipped' : `${n} skill files skipped`),
  },
  {
    kind: 'shadowed',
    test: /^skill ".*" from provider ".*" \(.*\) is shadowed by provider /s,
    count: (n) => (n === 1 ? '1 skill shadowed' : `${n} skills shadowed`),
  },
]

/** The kind of a warning (`skipped`, `shadowed`), or undefined for one printed in full. */
function kindOf(message) {
  return KINDS.find((kind) => kind.test.test(message))?.kind
}

/**
 * Print `messages` on `err`: every one with `verbose`; otherwise the counted
 * kinds as one line, except those in `covered` (a command that says the same
 * in its own summary), and the others in full.
 * @param {string[]} messages
 * @param {import('./term.js').Output} err
 * @param {{ verbose?: boolean, covered?: string[], doctor?: string }} [how] `doctor`: the command to suggest for the details
 */
function printWarnings(messages, err, how = {}) {
  if (how.verbose) {
    for (const message of messages) err.warning(message)
    return
  }
  const counts = new Map()
  for (const message of messages) {
    const kind = kindOf(message)
    if (kind === undefined) err.warning(message)
    else counts.set(kind, (counts.get(kind) ?? 0) + 1)
  }
  const parts = KINDS.filter(({ kind }) => counts.has(kind) && !how.covered?.includes(kind)).map(({ kind, count }) =>
    count(counts.get(kind)),
  )
  if (parts.length) err.warning(`${parts.join(', ')} (each one: --verbose; why: ${how.doctor ?? 'dsh-skills doctor'})`)
}

module.exports = { printWarnings, kindOf }
