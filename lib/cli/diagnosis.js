'use strict'
// The local provider's diagnosis as `doctor` (and `demo`) present it: each
// file with its verdict and hints, grouped by root.

const path = require('node:path')
const term = require('./term.js')
const { classify, deepSkillFiles, skillFolders, kebabCase, entryName, NOT_KEBAB } = require('./verdicts.js')
const { shown, rootOf, OUTCOME_STYLE } = require('./format.js')
const { unreadLine } = require('./hints.js')
const { shellWord } = require('./args.js')

/** The diagnosis as `{ projectRoot?, complete, roots, files, warnings }`. */
function normalizeDiagnosis(value) {
  if (Array.isArray(value)) return { complete: true, roots: [], files: value, warnings: [] }
  const diagnosis = value && typeof value === 'object' ? value : {}
  return {
    ...diagnosis,
    complete: diagnosis.complete !== false,
    roots: Array.isArray(diagnosis.roots) ? diagnosis.roots : [],
    files: Array.isArray(diagnosis.files) ? diagnosis.files : [],
    warnings: Array.isArray(diagnosis.warnings) ? diagnosis.warnings : [],
  }
}

/** The diagnosis with each file's doctor verdict (`loaded`, `shadowed`, `broken`, `ignored`) and hints. */
async function diagnose(session) {
  const diagnosis = normalizeDiagnosis(await session.provider.diagnose(session.lookup()))
  // The names loaded skills have, so that no hint suggests one of them.
  const taken = new Map()
  for (const file of diagnosis.files) {
    if (file.outcome === 'loaded' && typeof file.name === 'string' && !taken.has(file.name)) {
      taken.set(file.name, shown(String(file.path)))
    }
  }
  // The names suggested to broken files so far: one name is suggested to one file only.
  const suggested = new Map()
  const files = diagnosis.files.map((file) => {
    const root = rootOf(file, diagnosis.roots)
    return { ...file, ...classify(file, root, session.api.isSkillName, taken, { suggested, where: shown(String(file.path)) }) }
  })
  return { ...diagnosis, files }
}

/**
 * The files of a diagnosis that look meant to be skill `name` but do not
 * load: broken files whose folder or file name is `name` (or spells it in
 * another case), or whose refused name does; and a folder named `name`
 * without SKILL.md, or a flat `name.md` without frontmatter.
 * @param {Awaited<ReturnType<typeof diagnose>>} diagnosis
 * @param {string} name
 */
function brokenCopies(diagnosis, name) {
  return diagnosis.files.filter((file) => {
    const entry = entryName(file, rootOf(file, diagnosis.roots))
    if (file.verdict === 'ignored') return entry === name
    if (file.verdict !== 'broken') return false
    const refused = NOT_KEBAB.exec(String(file.reason ?? ''))?.[1]
    return entry === name || kebabCase(entry) === name || (refused !== undefined && kebabCase(refused) === name)
  })
}

/** What is wrong with a file `brokenCopies` found, as lines: where, why, the fixes. */
function brokenLines(file) {
  const where = shown(String(file.path))
  if (file.verdict === 'ignored') {
    return file.hasSkillFile
      ? [`${where} is not read as a skill: it has no frontmatter`, 'fix: start it with a line `---`, then `name:` and `description:` lines, then a line `---`']
      : [`${path.dirname(where)}/ is not read as a skill: it has no SKILL.md`, 'fix: put the instructions in SKILL.md inside it']
  }
  return [`${where} [${file.source}] does not load`, `because ${file.reason ?? 'of an unknown problem'}`, ...file.hints]
}

function countVerdicts(files) {
  const counts = { loaded: 0, shadowed: 0, broken: 0, ignored: 0 }
  for (const file of files) if (Object.hasOwn(counts, file.verdict)) counts[file.verdict]++
  return counts
}

/** `10 loaded, 2 shadowed, 4 broken, 1 ignored`, with `(3 switched off)` after the loaded count when overrides hid some. */
function summary(counts, off = 0) {
  const loaded = off ? `${counts.loaded} loaded (${off} switched off)` : `${counts.loaded} loaded`
  return `${loaded}, ${counts.shadowed} shadowed, ${counts.broken} broken, ${counts.ignored} ignored`
}

/** How many loaded skills are not in `skills` (the registry's listing): the ones overrides switched off. */
function switchedOff(diagnosis, skills) {
  const listed = new Set(skills.map((skill) => skill.name))
  const off = new Set()
  for (const file of diagnosis.files) if (file.verdict === 'loaded' && !listed.has(file.name)) off.add(file.name)
  return off.size
}

/** Where a file is shown: relative to its root (bundles by folder), else its path and source. */
function fileLabel(file, root) {
  if (!root) return `${shown(file.path)} [${file.source}]`
  const relative = path.relative(root.path, file.path)
  // A folder without SKILL.md is reported at `<dir>/SKILL.md`: show the folder.
  return file.verdict === 'ignored' && file.layout === 'bundle' && !file.hasSkillFile
    ? `${path.dirname(relative)}/`
    : relative
}

function formatDoctor(session, diagnosis, out) {
  out.line(`Looking from ${shown(session.cwd)}`)
  if (diagnosis.projectRoot) out.line(`Project root: ${shown(diagnosis.projectRoot)}`)
  const nameWidth = Math.min(32, Math.max(4, ...diagnosis.files.map((file) => (file.name ?? '').length)))
  const indent = ' '.repeat(4 + 8 + 2)
  const fileLines = (file, root) => {
    const verdict = file.verdict.padEnd(8)
    const name = file.verdict === 'loaded' || file.verdict === 'shadowed' ? (file.name ?? '') : ''
    out.fit([
      ['    ', null],
      [verdict, OUTCOME_STYLE[file.verdict]],
      ['  ', null],
      [term.fitCell(name, nameWidth).padEnd(nameWidth), null],
      ['  ', null],
      [fileLabel(file, root), null],
    ])
    if (file.verdict === 'shadowed') {
      const winner = file.shadowedBy
      const same = file.same === true ? ' (the same skill: identical files)' : file.same === false ? ' (the files differ)' : ''
      out.line(`${indent}by ${winner ? `${shown(winner.path)} [${winner.source}]` : file.reason || 'a higher-ranked skill'}${same}`)
    } else if (file.verdict === 'broken') {
      out.line(`${indent}because ${file.reason ?? 'of an unknown problem'}`)
    } else if (file.verdict === 'ignored') {
      out.line(`${indent}${file.why}`)
    }
    if (file.override) {
      const { effect, flag } = file.override
      out.styled(`${indent}${effect === 'off' ? 'switched off' : effect} by ${flag}`, 'yellow')
    }
    for (const hint of file.hints) out.styled(`${indent}${hint.startsWith('fix: ') ? hint : `hint: ${hint}`}`, 'cyan')
  }
  const placed = new Set()
  for (const root of diagnosis.roots) {
    const status = root.reason ? `${root.status}: ${root.reason}` : root.status
    out.line('')
    out.line(`${root.source} (rank ${root.rank})  ${shown(root.path)}${status && status !== 'scanned' ? `  [${status}]` : ''}`)
    const files = diagnosis.files.filter((file) => !placed.has(file) && rootOf(file, diagnosis.roots) === root)
    if (files.length === 0) out.line('    (no skill files)')
    for (const file of files) {
      placed.add(file)
      fileLines(file, root)
    }
  }
  const others = diagnosis.files.filter((file) => !placed.has(file))
  if (others.length) {
    out.line('')
    out.line(diagnosis.roots.length ? 'Other files:' : 'Files:')
    for (const file of others) fileLines(file, undefined)
  }
  out.line('')
  out.line(summary(countVerdicts(diagnosis.files), diagnosis.switchedOff))
  if (!diagnosis.complete) out.line('Discovery was incomplete: some roots could not be read.')
  for (const root of diagnosis.notRead ?? []) out.styled(`hint: ${unreadLine(root, shown)}`, 'cyan')
}

/**
 * Adds the hints about skill folders the one scanned level misses: nested
 * deeper than one level, or inside a dot-directory (never read: a collection
 * that keeps its skills in `.curated/` is a root of its own). A folder that
 * is a root of its own gets none: its skills are read through it.
 */
function addDepthHints(diagnosis) {
  for (const file of diagnosis.files) {
    if (file.verdict !== 'ignored' || file.layout !== 'bundle' || file.hasSkillFile) continue
    const dir = path.dirname(String(file.path))
    if (diagnosis.roots.some((root) => path.resolve(String(root.path)) === dir)) {
      file.why = 'not a skill: read as a skill root of its own'
      continue
    }
    const dot = dotDirHint(file, diagnosis.roots)
    if (dot) {
      file.hints.push(dot)
      continue
    }
    const count = deepSkillFiles(dir, diagnosis.roots)
    if (count > 0) {
      const files = count === 1 ? '1 SKILL.md file' : `${count} SKILL.md files`
      file.hints.push(
        `${files} below \`${path.basename(dir)}/\` ${count === 1 ? 'is' : 'are'} deeper than one level; ` +
          'only one level is scanned (link or copy the skill folders up)',
      )
    }
  }
}

/**
 * The hint for an ignored dot-directory of a root that holds skill folders
 * (`.curated/<skill>/SKILL.md`): dot-directories are never read, and the flag
 * that reads it as a root of its own. Undefined for any other file, and when
 * one of `roots` is that directory already.
 */
function dotDirHint(file, roots) {
  if (file.verdict !== 'ignored' || file.layout !== 'bundle' || file.hasSkillFile) return undefined
  const dir = path.dirname(String(file.path))
  const base = path.basename(dir)
  // `.git` holds no skills; `.system` of the user DSH root is the harness's own
  // (any other `.system`, such as Codex's system skills, is a dot-directory like `.curated`).
  if (!base.startsWith('.') || base === '.git' || (base === '.system' && file.source === 'user-dsh')) return undefined
  // Already read as a root of its own.
  if (roots.some((root) => path.resolve(String(root.path)) === dir)) return undefined
  const folders = skillFolders(dir)
  if (folders === 0) return undefined
  const what = folders === 1 ? '1 skill folder' : `${folders} skill folders`
  return (
    `\`${base}/\` holds ${what}; dot-directories are not read: to read ${folders === 1 ? 'it' : 'them'}, ` +
    `add --skill-dir ${shellWord(dir)} (provider option customSkillDirs)`
  )
}

module.exports = {
  diagnose,
  brokenCopies,
  brokenLines,
  countVerdicts,
  summary,
  switchedOff,
  formatDoctor,
  addDepthHints,
  dotDirHint,
}
