'use strict'
// How `dsh-skills doctor` reads the provider's diagnosis: which skipped entries
// are simply not skills (ignored) and which are broken skills, and the fix
// hints it can give. The library and `list` keep warning about every skipped
// skill file exactly as before; only the doctor's verdict differs.

const fs = require('node:fs')
const path = require('node:path')

/** Reason the provider gives for a bundle folder without SKILL.md. */
const NO_SKILL_FILE = 'directory has no SKILL.md'
/** Reason the provider gives for a file whose first line is not `---`. */
const NO_FRONTMATTER = /^missing frontmatter/
const NOT_KEBAB = /must be kebab-case.*got "(.*)"$/

/** A likely kebab-case spelling of `name` (`Ahrefs_Automation` → `ahrefs-automation`). */
function kebabCase(name) {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
}

/**
 * The doctor's verdict on one diagnosed file.
 * @param {{ path: string, outcome: string, reason?: string, layout?: string, name?: string, source?: string }} file
 * @param {{ path: string } | undefined} root the root the file was found in
 * @param {(name: string) => boolean} isSkillName
 * @returns {{ verdict: 'loaded' | 'shadowed' | 'broken' | 'ignored', why?: string, hints: string[], hasSkillFile: boolean }}
 */
function classify(file, root, isSkillName) {
  const hints = []
  const file_ = String(file.path)
  const entry = root ? path.relative(root.path, file_).split(path.sep)[0] : path.basename(path.dirname(file_))
  if (file.outcome === 'loaded' || file.outcome === 'shadowed') {
    const bundle = file.layout === 'bundle'
    const own = bundle ? path.basename(path.dirname(file_)) : path.basename(file_).replace(/\.md$/i, '')
    if (file.name && own !== file.name) {
      hints.push(`name \`${file.name}\` differs from its ${bundle ? 'folder' : 'file name'} \`${bundle ? `${own}/` : `${own}.md`}\``)
    }
    return { verdict: file.outcome, hints, hasSkillFile: true }
  }
  const reason = String(file.reason ?? '')
  if (reason === NO_SKILL_FILE) {
    const dot = entry.startsWith('.')
    return { verdict: 'ignored', why: dot ? 'not a skill: a dot-directory without SKILL.md' : 'not a skill: no SKILL.md in this folder', hints, hasSkillFile: false }
  }
  if (entry.startsWith('.')) {
    const reserved = file.source === 'user-dsh' && entry === '.system'
    return { verdict: 'ignored', why: reserved ? 'reserved for the harness' : 'not a skill: a dot-directory', hints, hasSkillFile: true }
  }
  if (file.layout === 'flat' && NO_FRONTMATTER.test(reason)) {
    return { verdict: 'ignored', why: 'not a skill: no frontmatter', hints, hasSkillFile: true }
  }
  const kebab = NOT_KEBAB.exec(reason)
  if (kebab) {
    const suggestion = kebabCase(kebab[1])
    if (suggestion && isSkillName(suggestion)) hints.push(`did you mean \`${suggestion}\`?`)
  }
  return { verdict: 'broken', hints, hasSkillFile: true }
}

/**
 * How many SKILL.md files lie below `dir` (a root entry without its own
 * SKILL.md), i.e. deeper than the one level that is scanned. Skips `.git` and
 * `node_modules`, does not follow links below `dir`, stops after 20,000 entries.
 */
function deepSkillFiles(dir) {
  let count = 0
  let budget = 20_000
  const stack = [[dir, 0]]
  while (stack.length && budget > 0) {
    const [current, depth] = stack.pop()
    let entries
    try {
      entries = fs.readdirSync(current, { withFileTypes: true })
    } catch {
      continue
    }
    for (const entry of entries) {
      if (--budget <= 0) break
      if (entry.isDirectory() && depth < 8 && entry.name !== '.git' && entry.name !== 'node_modules') {
        stack.push([path.join(current, entry.name), depth + 1])
      } else if (entry.isFile() && entry.name === 'SKILL.md' && depth > 0) {
        count++
      }
    }
  }
  return count
}

module.exports = { classify, deepSkillFiles, kebabCase }
