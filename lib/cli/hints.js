'use strict'
// Hints about skills the current options leave unread: the skill folders of
// other tools (`.claude/skills`, `.codex/skills`), found by asking the library
// itself which compatibility roots exist and what they hold.

const { COMPAT_ROOTS } = require('./spec.js')
const { isInside } = require('./format.js')

/**
 * @typedef {{ path: string, source: string, skills: number, flag: string, option: string }} UnreadRoot
 */

/**
 * The compatibility roots the run does not read that hold skills, each with
 * the flag and the provider option that would read it. A probe provider with
 * only those roots (`includeDefaultRoots: false`, no watching) diagnoses them,
 * so where they are (the project root, `~`, `$CODEX_HOME`) is the library's
 * answer; a probe that fails gives no hints.
 * @param {import('./session.js').Session} session
 * @returns {Promise<UnreadRoot[]>}
 */
async function unreadCompatRoots(session) {
  const missing = COMPAT_ROOTS.filter((name) => !session.options.compat?.includes(name))
  if (missing.length === 0) return []
  let probe
  try {
    probe = new session.api.LocalSkillProvider({
      includeDefaultRoots: false,
      compatRoots: missing,
      watch: false,
      logger: { warn() {} },
    })
    const diagnosis = await probe.diagnose(session.lookup())
    return diagnosis.roots
      .filter((root) => root.status === 'scanned')
      .map((root) => {
        const name = missing.find((compat) => root.source.endsWith(`-${compat}`)) ?? root.source
        const skills = diagnosis.files.filter(
          (file) => isInside(file.path, root.path) && (file.outcome === 'loaded' || file.outcome === 'shadowed'),
        ).length
        return { path: root.path, source: root.source, skills, flag: `--compat ${name}`, option: `compatRoots: ['${name}']` }
      })
      .filter((root) => root.skills > 0)
  } catch {
    return []
  } finally {
    await probe?.dispose().catch(() => {})
  }
}

/** The hint line of an unread root. */
function unreadLine(root, shown) {
  const skills = root.skills === 1 ? '1 skill that is' : `${root.skills} skills that are`
  return `${shown(root.path)} holds ${skills} not read: add ${root.flag} (provider option ${root.option})`
}

module.exports = { unreadCompatRoots, unreadLine }
