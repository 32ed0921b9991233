// The fixture world on disk: the soak's temporary directory, its projects and
// skill roots (project, custom, user, bundled), the skill files the fixtures
// write, and the one fixed layout every checkpoint resets the disk to.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

import { rootStore } from '../root-moves.mjs'
import { NAME_POOL, PROJECTS } from './config.mjs'
import { randInt } from './random.mjs'
import { rootMoves, state } from './state.mjs'

export const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-soak-')))
export const home = path.join(base, 'home')
export const store = path.join(base, 'store') // targets of symlinked bundles (not a root)
export const scratch = path.join(base, 'scratch') // atomic saves are written here first
const rootPlace = path.join(base, 'root-moves') // directories set aside and links of root moves
export const projects = Array.from({ length: PROJECTS }, (_, i) => path.join(base, `p${i}`))
export const SHARED_ROOTS = [
  { path: path.join(base, 'custom', 'skills'), source: 'custom', rank: 300 },
  { path: path.join(home, '.dsh', 'skills'), source: 'user-dsh', rank: 400 },
  { path: path.join(home, '.agents', 'skills'), source: 'user-agents', rank: 500 },
  { path: path.join(base, 'bundled', 'skills'), source: 'bundled', rank: 600 },
]
export const projectRoots = (project) => [
  { path: path.join(project, '.dsh', 'skills'), source: 'project-dsh', rank: 100 },
  { path: path.join(project, '.agents', 'skills'), source: 'project-agents', rank: 200 },
]
export const rootsFor = (project) => (project === undefined ? SHARED_ROOTS : [...projectRoots(project), ...SHARED_ROOTS])
export const ALL_ROOTS = [...projects.flatMap(projectRoots), ...SHARED_ROOTS]
export const localConfig = {
  dshHome: path.join(home, '.dsh'),
  agentsHome: path.join(home, '.agents'),
  customSkillDirs: [SHARED_ROOTS[0].path],
  bundledSkillDir: SHARED_ROOTS[3].path,
}
/** The project a cwd belongs to (cwds are projects or their `sub` dirs). */
export const projectOf = (cwd) => (cwd === undefined ? undefined : cwd.endsWith(`${path.sep}sub`) ? path.dirname(cwd) : cwd)

export function skillText(name) {
  const r = ++state.rev
  const filler = 'Follow the checklist, then report. '.repeat(randInt(0, 40))
  return `---\nname: ${name}\ndescription: Soak ${name} rev ${r}\n---\n\n# ${name}\n\nrev ${r}\n${filler}\n`
}
export const randomName = () => `s-${randInt(0, NAME_POOL - 1)}`

export function writeBundle(root, entry, name) {
  fs.mkdirSync(path.join(root, entry), { recursive: true })
  fs.writeFileSync(path.join(root, entry, 'SKILL.md'), skillText(name))
}

/** Remove every root and write one fixed layout (same entries, names and links every time). */
export function resetDisk() {
  for (const dir of [home, store, scratch, rootPlace, path.join(base, 'custom'), path.join(base, 'bundled')]) {
    fs.rmSync(dir, { recursive: true, force: true })
  }
  rootMoves.place = rootStore(rootPlace)
  for (const project of projects) {
    fs.rmSync(path.join(project, '.dsh'), { recursive: true, force: true })
    fs.rmSync(path.join(project, '.agents'), { recursive: true, force: true })
    fs.mkdirSync(path.join(project, '.git'), { recursive: true })
    fs.mkdirSync(path.join(project, 'sub'), { recursive: true })
  }
  fs.mkdirSync(store, { recursive: true })
  fs.mkdirSync(scratch, { recursive: true })
  ALL_ROOTS.forEach((root, r) => {
    fs.mkdirSync(root.path, { recursive: true })
    for (let i = 0; i < 4; i++) writeBundle(root.path, `b${i}`, `s-${(r * 7 + i * 3) % NAME_POOL}`)
    for (let i = 0; i < 2; i++) fs.writeFileSync(path.join(root.path, `f${i}.md`), skillText(`s-${(r * 5 + i * 11 + 1) % NAME_POOL}`))
    const target = path.join(store, `r${r}`) // churn's link targets are `t<n>`
    writeBundle(store, `r${r}`, `s-${(r * 3 + 2) % NAME_POOL}`)
    fs.symlinkSync(target, path.join(root.path, 'l0'))
  })
  writeBundle(SHARED_ROOTS[1].path, '.system', 'system-skill') // reserved: never listed
}
