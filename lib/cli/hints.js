'use strict'
// Hints about skills the current options leave unread: the skill folders of
// other tools (`.claude/skills`, `.codex/skills`), found by asking the library
// itself which compatibility roots exist and what they hold.

const path = require('node:path')
const { COMPAT_ROOTS } = require('./spec.js')
const { rootOf } = require('./format.js')
const { skillFolders } = require('./verdicts.js')
const { shellWord } = require('./args.js')

/**
 * A compatibility root not read: the skills it holds and the flag and option
 * that read them. `dotDirectories` (when it holds skills only there, as a
 * Codex folder of `.curated/` and `.system/` does) names the dot-directories
 * holding skill folders; `--compat` would not read those, `--skill-dir` does.
 * @typedef {{ path: string, source: string, skills: number, flag: string, option: string, dotDirectories?: string[] }} UnreadRoot
 */

/**
 * The dot-directories directly in a diagnosed root that hold skill folders
 * (`.git` aside), with how many each holds; none that `read` names (a root of
 * the run already).
 * @returns {{ name: string, path: string, skills: number }[]}
 */
function dotDirectories(diagnosis, root, read) {
  return diagnosis.files
    .filter((file) => file.layout === 'bundle' && file.reason === 'directory has no SKILL.md' && rootOf(file, diagnosis.roots) === root)
    .map((file) => path.dirname(String(file.path)))
    .filter((dir) => path.basename(dir).startsWith('.') && path.basename(dir) !== '.git' && !read.has(dir))
    .map((dir) => ({ name: path.basename(dir), path: dir, skills: skillFolders(dir) }))
    .filter((dir) => dir.skills > 0)
}

/**
 * The compatibility roots the run does not read that hold skills, each with
 * the flag and the provider option that would read it: `--compat` for the
 * skills directly in it, `--skill-dir` for each dot-directory when it holds
 * skills only there. A probe provider with only those roots
 * (`includeDefaultRoots: false`, no watching) diagnoses them, so where they are
 * (the project root, `~`, `$CODEX_HOME`) is the library's answer; a probe
 * that fails gives no hints.
 * @param {import('./session.js').Session} session
 * @param {{ path: string }[]} [roots] the roots the run reads (a dot-directory among them is read)
 * @returns {Promise<UnreadRoot[]>}
 */
async function unreadCompatRoots(session, roots = []) {
  const read = new Set(roots.map((root) => path.resolve(String(root.path))))
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
          (file) => rootOf(file, diagnosis.roots) === root && (file.outcome === 'loaded' || file.outcome === 'shadowed'),
        ).length
        if (skills > 0) return { path: root.path, source: root.source, skills, flag: `--compat ${name}`, option: `compatRoots: ['${name}']` }
        const dots = dotDirectories(diagnosis, root, read)
        return {
          path: root.path,
          source: root.source,
          skills: dots.reduce((sum, dir) => sum + dir.skills, 0),
          flag: dots.map((dir) => `--skill-dir ${shellWord(dir.path)}`).join(' '),
          option: `customSkillDirs: [${dots.map((dir) => `'${dir.path}'`).join(', ')}]`,
          dotDirectories: dots.map((dir) => `${dir.name}/`),
        }
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
  if (root.dotDirectories?.length) {
    const skills = root.skills === 1 ? '1 skill folder' : `${root.skills} skill folders`
    const where = root.dotDirectories.map((dir) => `\`${dir}\``).join(' and ')
    return `${shown(root.path)} holds ${skills} in ${where}; dot-directories are not read: add ${root.flag} (provider option ${root.option})`
  }
  const skills = root.skills === 1 ? '1 skill that is' : `${root.skills} skills that are`
  return `${shown(root.path)} holds ${skills} not read: add ${root.flag} (provider option ${root.option})`
}

module.exports = { unreadCompatRoots, unreadLine }
