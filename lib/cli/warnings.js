'use strict'
// The library's warnings as the commands print them: after the output, each
// kind that comes by the dozen (skipped skill files, shadowed skills) as one
// count, every other warning in full; `--verbose` prints every line.

/**
 * The kinds counted instead of printed one by one, told by the wording the
 * library gives them (`doctor` has the details of each), in the order and
 * words of `list`'s summary: how many skills are shadowed, how many broken.
 * The numbers are doctor's (`counts`): a file that is no skill at all (a
 * `README.md` without frontmatter) is warned about by the library but is
 * not broken, and a skill shadowed twice is one shadowed file per copy.
 */
const KINDS = [
  {
    kind: 'shadowed',
    test: /^skill ".*" from provider ".*" \(.*\) is shadowed by provider /s,
    count: (counts) => counts.shadowed,
    words: (n) => `${n} shadowed`,
  },
  {
    kind: 'skipped',
    test: /^skill file .* skipped: /s,
    count: (counts) => counts.broken,
    words: (n) => `${n} broken`,
  },
]

/** The kind of a warning (`skipped`, `shadowed`), or undefined for one printed in full. */
function kindOf(message) {
  return KINDS.find((kind) => kind.test.test(message))?.kind
}

/**
 * Print `messages` on `err`: every one with `verbose`; otherwise the others
 * in full, and the counted kinds, except those in `covered` (a command that
 * says the same in its own summary), as one line with doctor's `counts`
 * (`12 shadowed, 4 broken (each one: --verbose; why: dsh-skills doctor)`).
 * @param {string[]} messages
 * @param {import('./term.js').Output} err
 * @param {{ verbose?: boolean, covered?: string[], doctor?: string, counts?: { shadowed: number, broken: number } }} [how]
 *   `doctor`: the command to suggest for the details; `counts`: doctor's verdict counts (needed when a counted kind is there)
 */
function printWarnings(messages, err, how = {}) {
  if (how.verbose) {
    for (const message of messages) err.warning(message)
    return
  }
  const present = new Set()
  for (const message of messages) {
    const kind = kindOf(message)
    if (kind === undefined) err.warning(message)
    else present.add(kind)
  }
  const parts = KINDS.filter(({ kind }) => present.has(kind) && !how.covered?.includes(kind))
    .map(({ count, words }) => [count(how.counts ?? { shadowed: 0, broken: 0 }), words])
    .filter(([n]) => n > 0)
    .map(([n, words]) => words(n))
  if (parts.length) err.warning(`${parts.join(', ')} (each one: --verbose; why: ${how.doctor ?? 'dsh-skills doctor'})`)
}

/** Whether `messages` hold a kind `printWarnings` counts (and `covered` does not cover). */
function needsCounts(messages, covered = []) {
  return messages.some((message) => {
    const kind = kindOf(message)
    return kind !== undefined && !covered.includes(kind)
  })
}

module.exports = { printWarnings, kindOf, needsCounts }
