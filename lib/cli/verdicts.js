'use strict'
// How `dsh-skills doctor` reads the provider's diagnosis: which skipped entries
// are simply not skills (ignored) and which are broken skills, and the fix
// hints it can give. The library and `list` keep warning about every skipped
// skill file exactly as before; only the doctor's verdict differs. The rules
// are the library's: the hints only read the reasons it gives.

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

/** How to fix a broken skill file, by the reason the library gives (the name hints are separate). */
const FIXES = [
  [/^unterminated frontmatter/, () => 'end the frontmatter with a line that is exactly `---`'],
  [
    /^frontmatter field `description` (is required|must be a non-empty string)/,
    () => 'add `description:` with one line on what the skill does and when to use it (the catalog shows the model only this)',
  ],
  [
    /^frontmatter field `(disable-model-invocation|user-invocable)` must be a boolean/,
    (m) => `write \`${m[1]}: true\` or \`${m[1]}: false\``,
  ],
  [
    /^frontmatter key `(disableModelInvocation|userInvocable)` is no longer supported/,
    (m) => `rename \`${m[1]}\` to \`${kebabCase(m[1])}\` (same value)`,
  ],
  [
    /^frontmatter key `modelInvocable` is no longer supported/,
    () => 'replace `modelInvocable: false` with `disable-model-invocation: true` (or drop it: both are allowed by default)',
  ],
  // The parser's limits (reported as invalid YAML): a different fix than a typo.
  [/excessive alias count/, () => 'use each YAML anchor (`&name`) only a few times: write the repeated part out, or drop the aliases (`*name`)'],
  [/collections nest deeper than \d+ levels/, () => 'flatten the frontmatter: a skill needs `key: value` lines, not deeply nested lists or maps'],
  [/directives \(`%` lines\)/, () => 'drop the `%` directive lines: a skill frontmatter needs none'],
  [
    /^invalid YAML frontmatter/,
    () => 'fix the YAML at the line and column given; quote a value that holds `: ` or ` #`, or starts with a character YAML reserves (`[ { * & ! | > % @`)',
  ],
  [/^frontmatter must be a YAML mapping/, () => 'write the frontmatter as `key: value` lines'],
  [
    /^file is larger than maxSkillFileBytes/,
    () => 'keep the skill file short: move long material into files next to it (references/) that the instructions point to',
  ],
  [/^frontmatter expands to more than/, () => 'drop the YAML aliases (`*name`) that repeat large parts of the frontmatter'],
  [/^not a text file/, () => 'save the file as UTF-8 text'],
  [/^missing frontmatter/, () => 'start the file with a line `---`, then `name:` and `description:` lines, then a line `---`'],
]

/** The hint that fixes `reason`, if one is known. */
function fixFor(reason) {
  for (const [pattern, fix] of FIXES) {
    const match = pattern.exec(reason)
    if (match) return `fix: ${fix(match)}`
  }
  return undefined
}

/**
 * The name a root entry suggests for its skill: the folder of a bundle, the
 * file name of a flat file without `.md`.
 * @param {{ path: string, layout?: string }} file
 * @param {{ path: string } | undefined} root
 */
function entryName(file, root) {
  const file_ = String(file.path)
  const entry = root ? path.relative(root.path, file_).split(path.sep)[0] : path.basename(path.dirname(file_))
  return file.layout === 'flat' ? entry.replace(/\.md$/i, '') : entry
}

/**
 * A kebab-case name to suggest, unless another skill has it, or it was
 * suggested for another file already (following both would make the two
 * collide): then say whose it is instead.
 * @param {string} suggestion
 * @param {Map<string, string>} taken
 * @param {(name: string) => string} hint
 * @param {{ suggested: Map<string, string>, where: string }} [claim] the names suggested so far, each with its file; this file
 */
function nameHint(suggestion, taken, hint, claim) {
  const owner = taken.get(suggestion)
  if (owner !== undefined) return `not \`${suggestion}\`: ${owner} has that name; choose a kebab-case name no other skill has`
  const other = claim?.suggested.get(suggestion)
  if (other !== undefined && other !== claim.where) {
    return `not \`${suggestion}\`: it is the name suggested for ${other}; choose a kebab-case name no other skill has`
  }
  claim?.suggested.set(suggestion, claim.where)
  return hint(`\`${suggestion}\``)
}

/**
 * The doctor's verdict on one diagnosed file.
 * @param {{ path: string, outcome: string, reason?: string, layout?: string, name?: string, source?: string }} file
 * @param {{ path: string } | undefined} root the root the file was found in
 * @param {(name: string) => boolean} isSkillName
 * @param {Map<string, string>} [taken] names of the loaded skills, each with where it is (for display)
 * @param {{ suggested: Map<string, string>, where: string }} [claim] names already suggested to other broken files, and this file (for display)
 * @returns {{ verdict: 'loaded' | 'shadowed' | 'broken' | 'ignored', why?: string, hints: string[], hasSkillFile: boolean }}
 */
function classify(file, root, isSkillName, taken = new Map(), claim = undefined) {
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
    // A name the library had to escape (a control or invisible character) is
    // no misspelling: its escapes would make a nonsense suggestion.
    const suggestion = kebab[1].includes('\\') ? '' : kebabCase(kebab[1])
    if (suggestion && isSkillName(suggestion)) hints.push(nameHint(suggestion, taken, (name) => `did you mean ${name}?`, claim))
    else hints.push('fix: a name is lowercase letters and digits, words joined by single dashes (`pdf-tools`)')
  } else if (/^frontmatter field `name` (is required|must be a non-empty string)/.test(reason)) {
    const suggestion = kebabCase(entryName(file, root))
    if (suggestion && isSkillName(suggestion)) hints.push(nameHint(suggestion, taken, (name) => `fix: add a \`name:\` line, e.g. ${name}`, claim))
    else hints.push('fix: add a `name:` line with a kebab-case name (`pdf-tools`)')
  } else {
    const fix = fixFor(reason)
    if (fix) hints.push(fix)
  }
  return { verdict: 'broken', hints, hasSkillFile: true }
}

/**
 * How many SKILL.md files lie below `dir` (a root entry without its own
 * SKILL.md), i.e. deeper than the one level that is scanned. Skips `.git`,
 * `node_modules` and the folders that are `roots` of their own (their skills
 * are read through them), does not follow links below `dir`, stops after
 * 20,000 entries.
 * @param {string} dir
 * @param {{ path: string }[]} [roots]
 */
function deepSkillFiles(dir, roots = []) {
  const read = new Set(roots.map((root) => path.resolve(String(root.path))))
  if (read.has(path.resolve(dir))) return 0
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
      const child = path.join(current, entry.name)
      if (entry.isDirectory() && depth < 8 && entry.name !== '.git' && entry.name !== 'node_modules' && !read.has(child)) {
        stack.push([child, depth + 1])
      } else if (entry.isFile() && entry.name === 'SKILL.md' && depth > 0) {
        count++
      }
    }
  }
  return count
}

/** How many folders directly inside `dir` hold a SKILL.md (`dir/<folder>/SKILL.md`). */
function skillFolders(dir) {
  let entries
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true })
  } catch {
    return 0
  }
  return entries.filter((entry) => entry.isDirectory() && fs.existsSync(path.join(dir, entry.name, 'SKILL.md'))).length
}

module.exports = { classify, deepSkillFiles, skillFolders, kebabCase, entryName, NOT_KEBAB }
