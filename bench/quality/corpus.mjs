#!/usr/bin/env node
// Assembles the evaluation corpus of the need-style search set: every
// `<dir>/SKILL.md` of each collection in collections.mjs, at its pinned
// commit, copied to bench/quality/.corpus/<owner>+<name>/<dir>/SKILL.md (one
// custom root per collection). Only SKILL.md files are copied (no scripts or
// references); within a collection the first path (in git's order) of a
// directory name wins.
//
// node bench/quality/corpus.mjs [--mirror DIR] [--force]
//
// Sources, for each collection: DIR/<owner>+<name>/repo (a bare git
// directory, as a local mirror lays them out) or DIR/<owner>+<name> (a
// clone) when --mirror is given; otherwise (or when it is missing there) a
// shallow fetch of the pinned commit from GitHub into bench/quality/.sources.
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { COLLECTIONS } from './collections.mjs'

const here = path.dirname(fileURLToPath(import.meta.url))
export const CORPUS_DIR = path.join(here, '.corpus')
const SOURCES_DIR = path.join(here, '.sources')

/** The roots of the assembled corpus, in collection order (missing ones left out). */
export function corpusRoots() {
  return COLLECTIONS.map(({ repo }) => path.join(CORPUS_DIR, repo.replace('/', '+'))).filter((dir) => fs.existsSync(dir))
}

function git(gitDir, args, options = {}) {
  return execFileSync('git', ['--git-dir', gitDir, ...args], { maxBuffer: 1 << 30, ...options })
}

/** A git directory holding `commit` of `repo`. */
function source(repo, commit, mirror) {
  const key = repo.replace('/', '+')
  if (mirror) {
    for (const dir of [path.join(mirror, key, 'repo'), path.join(mirror, key, '.git'), path.join(mirror, key)]) {
      if (!fs.existsSync(dir)) continue
      try {
        git(dir, ['cat-file', '-e', `${commit}^{commit}`], { stdio: 'ignore' })
        return dir
      } catch {
        // not there at that commit: try the next layout, then the network
      }
    }
  }
  const dir = path.join(SOURCES_DIR, `${key}.git`)
  if (!fs.existsSync(dir)) execFileSync('git', ['init', '--bare', '-q', dir])
  try {
    git(dir, ['cat-file', '-e', `${commit}^{commit}`], { stdio: 'ignore' })
  } catch {
    git(dir, ['fetch', '-q', '--depth', '1', `https://github.com/${repo}.git`, commit], { stdio: 'inherit' })
  }
  return dir
}

function assemble(mirror, force) {
  if (force) fs.rmSync(CORPUS_DIR, { recursive: true, force: true })
  let total = 0
  for (const { repo, commit } of COLLECTIONS) {
    const out = path.join(CORPUS_DIR, repo.replace('/', '+'))
    const stamp = path.join(out, '.commit')
    if (fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8') === commit) {
      const n = fs.readdirSync(out).filter((d) => !d.startsWith('.')).length
      console.log(`${repo}: ${n} skills (already assembled)`)
      total += n
      continue
    }
    const gitDir = source(repo, commit, mirror)
    fs.rmSync(out, { recursive: true, force: true })
    fs.mkdirSync(out, { recursive: true })
    const files = git(gitDir, ['ls-tree', '-r', '-z', commit])
      .toString('utf8')
      .split('\0')
      .filter(Boolean)
      .map((line) => {
        const [meta, file] = line.split('\t')
        const [mode, type, blob] = meta.split(' ')
        return { mode, type, blob, file }
      })
      .filter((f) => f.type === 'blob' && f.mode !== '120000' && /(^|\/)[^/]+\/SKILL\.md$/.test(f.file))
    const seen = new Set()
    for (const { blob, file } of files) {
      const dir = path.basename(path.dirname(file))
      if (seen.has(dir) || dir.startsWith('.')) continue
      seen.add(dir)
      fs.mkdirSync(path.join(out, dir))
      fs.writeFileSync(path.join(out, dir, 'SKILL.md'), git(gitDir, ['cat-file', 'blob', blob]))
    }
    fs.writeFileSync(stamp, commit)
    console.log(`${repo}: ${seen.size} skills`)
    total += seen.size
  }
  console.log(`${total} skill files in ${path.relative(process.cwd(), CORPUS_DIR) || '.'}`)
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const at = process.argv.indexOf('--mirror')
  assemble(at === -1 ? undefined : process.argv[at + 1], process.argv.includes('--force'))
}
