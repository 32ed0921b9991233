'use strict'
// Small presentation helpers shared by the commands.

const path = require('node:path')

/** Path for display: relative to the current directory when inside it. */
function shown(file) {
  if (typeof file !== 'string' || file.length === 0) return String(file)
  const relative = path.relative(process.cwd(), file)
  if (relative === '') return '.'
  if (relative.startsWith('..') || path.isAbsolute(relative)) return file
  return relative
}

function invocationLabel(invocation) {
  const surfaces = []
  if (invocation && invocation.modelInvocable) surfaces.push('model')
  if (invocation && invocation.userInvocable) surfaces.push('user')
  return surfaces.length ? surfaces.join(', ') : 'none'
}

function json(value) {
  return `${JSON.stringify(value, null, 2)}\n`
}

/** Whether `file` lies inside `dir` (not `dir` itself). */
function isInside(file, dir) {
  const relative = path.relative(dir, file)
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative)
}

/**
 * The root of `roots` a diagnosed entry was found through: the one its entry
 * sits directly in (`<root>/<folder>/SKILL.md`, `<root>/<file>.md`), so a
 * root inside another root keeps its own entries; else the deepest root that
 * holds the file; undefined when none does.
 * @template {{ path: string }} R
 * @param {{ path: string, layout?: string }} file
 * @param {R[]} roots
 * @returns {R | undefined}
 */
function rootOf(file, roots) {
  const filePath = String(file.path)
  const entryDir = file.layout === 'flat' ? path.dirname(filePath) : path.dirname(path.dirname(filePath))
  const direct = roots.find((root) => path.resolve(String(root.path)) === entryDir)
  if (direct) return direct
  let deepest
  for (const root of roots) {
    if (isInside(filePath, String(root.path)) && (deepest === undefined || String(root.path).length > String(deepest.path).length)) deepest = root
  }
  return deepest
}

/** The colour of each doctor verdict (and of each diagnosis outcome). */
const OUTCOME_STYLE = { loaded: 'green', shadowed: 'yellow', broken: 'red', skipped: 'red', ignored: 'dim' }

module.exports = { shown, invocationLabel, json, isInside, rootOf, OUTCOME_STYLE }
