// Root-level moves for randomized tests (__test__/incremental.test.ts) and
// the soak (scripts/soak/): what dotfile managers, `stow`, Nix
// home-manager and "current version" links do to a skills folder. Each move
// changes what a configured root *is*, not what is in it:
//
// - a root made a symbolic link (its directory set aside in the store), or a
//   link repointed the way `ln -sfn` does it (a new link beside it, renamed
//   over it), at a directory in the store, at another root (possibly of
//   another provider), or at a link of the store (a chain of links);
// - a link replaced by a directory (one set aside before, moved back, or a
//   new one) and back;
// - a link's target moved away (the link dangles) and back;
// - a link of a chain repointed;
// - the directory above a root made a link (and restored);
// - a root deleted, and made again.
//
// The moves decide from what is on disk (no state of their own), so the
// caller may mix them with its own changes. A move that would make a loop of
// links is not made (the link it would have replaced is removed instead). `rand` is the caller's seeded PRNG (values in [0, 1));
// `fill(dir)` writes a few entries into a directory a move made.
import fs from 'node:fs'
import path from 'node:path'

/** Whether `p` is a symbolic link. */
function isLink(p) {
  try {
    return fs.lstatSync(p).isSymbolicLink()
  } catch {
    return false
  }
}

/** Whether `p` is a directory (links followed). */
function isDir(p) {
  try {
    return fs.statSync(p).isDirectory()
  } catch {
    return false
  }
}

/** Whether anything (a dangling link included) is at `p`. */
function exists(p) {
  try {
    fs.lstatSync(p)
    return true
  } catch {
    return false
  }
}

/**
 * Whether resolving `p` passes through `link` (component by component, links
 * followed; a path that ends nowhere does not). A link made at `link` that
 * leads to `p` would then close a loop, so the move does not make it: a
 * loop that exists even for a moment is rightly reported by the provider
 * ("symbolic link loop"), and the soak allows no such warning.
 */
function passesThrough(p, link, hops = 0) {
  if (hops > 40) return true
  const parts = path.resolve(p).split(path.sep).filter(Boolean)
  let at = path.parse(path.resolve(p)).root
  for (let i = 0; i < parts.length; i++) {
    at = path.join(at, parts[i])
    if (at === link) return true
    let stat
    try {
      stat = fs.lstatSync(at)
    } catch {
      return false
    }
    if (stat.isSymbolicLink()) {
      const next = path.resolve(path.dirname(at), fs.readlinkSync(at))
      return passesThrough(path.join(next, ...parts.slice(i + 1)), link, hops + 1)
    }
  }
  return false
}

/**
 * The place for root moves: `store/dirs` holds directories set aside or
 * made to be linked at, `store/links` the middle links of chains.
 */
export function rootStore(store) {
  const dirs = path.join(store, 'dirs')
  const links = path.join(store, 'links')
  fs.mkdirSync(dirs, { recursive: true })
  fs.mkdirSync(links, { recursive: true })
  return { dirs, links, serial: 0 }
}

/**
 * Make one random root-level move among `roots` (configured root paths);
 * returns what it did, for a replay log, or `undefined` when the move drawn
 * did not apply. Only the directories in `parents` (above roots) may be
 * moved and linked.
 */
export function rootMove(roots, place, rand, fill, parents = []) {
  try {
    return move(roots, place, rand, fill, parents)
  } catch (error) {
    // The layout drawn did not allow it (a dangling link above, a rename
    // onto a directory): whatever it did so far is the change.
    return `a move failed: ${error.code ?? error.message}`
  }
}

function move(roots, place, rand, fill, parents) {
  const pick = (items) => items[Math.floor(rand() * items.length)]
  const fresh = (kind) => path.join(kind === 'link' ? place.links : place.dirs, `${kind}${++place.serial}`)
  const storeDirs = () =>
    fs
      .readdirSync(place.dirs)
      .map((name) => path.join(place.dirs, name))
      .filter(isDir)
  const chainLinks = () =>
    fs
      .readdirSync(place.links)
      .map((name) => path.join(place.links, name))
      .filter(isLink)
  /** Somewhere a link may lead: a store directory (often a new one), another root, a chain link. */
  const target = (root) => {
    const r = rand()
    const dirs = storeDirs()
    if (r < 0.3 || dirs.length === 0) {
      const dir = fresh('dir')
      fs.mkdirSync(dir)
      fill(dir)
      return dir
    }
    if (r < 0.55) return pick(dirs)
    if (r < 0.8) return pick(roots.filter((other) => other !== root))
    const chains = chainLinks()
    if (chains.length > 0 && rand() < 0.6) return pick(chains)
    // A new chain: link -> (a store directory or another root).
    const link = fresh('link')
    fs.symlinkSync(rand() < 0.5 ? pick(dirs) : pick(roots.filter((other) => other !== root)), link)
    return link
  }
  /** `ln -sfn to link`; not made where it would close a loop of links (what was at `link` is removed then). */
  const repoint = (to, link) => {
    if (passesThrough(to, link)) {
      fs.rmSync(link, { force: true })
      return `${link} -> ${to} would make a loop: ${link} removed instead`
    }
    const tmp = `${link}.tmp-link`
    fs.rmSync(tmp, { force: true })
    fs.symlinkSync(to, tmp)
    fs.renameSync(tmp, link)
    return `${link} -> ${to}`
  }
  const root = pick(roots)
  const kind = Math.floor(rand() * 7)
  if (kind === 0) {
    // A root made a link, or its link repointed (`ln -sfn`).
    if (isDir(root) && !isLink(root)) {
      const aside = fresh('dir')
      fs.renameSync(root, aside)
      return `set aside ${root} as ${aside}; ${repoint(target(root), root)}`
    }
    fs.mkdirSync(path.dirname(root), { recursive: true })
    return `repoint ${repoint(target(root), root)}`
  }
  if (kind === 1) {
    // A link replaced by a directory: one set aside (moved back) or a new one.
    if (!isLink(root)) return undefined
    fs.unlinkSync(root)
    const dirs = storeDirs()
    if (dirs.length > 0 && rand() < 0.6) {
      const back = pick(dirs)
      // Links elsewhere may lead to it: they dangle now.
      fs.renameSync(back, root)
      return `link ${root} replaced by ${back}, moved in`
    }
    fs.mkdirSync(root)
    fill(root)
    return `link ${root} replaced by a new directory`
  }
  if (kind === 2) {
    // A link's target moved away, or back.
    if (!isLink(root)) return undefined
    const to = path.resolve(path.dirname(root), fs.readlinkSync(root))
    if (exists(to) && to.startsWith(place.dirs + path.sep)) {
      fs.renameSync(to, `${to}-moved`)
      return `target ${to} of ${root} moved away`
    }
    if (!exists(to) && exists(`${to}-moved`)) {
      fs.renameSync(`${to}-moved`, to)
      return `target ${to} of ${root} moved back`
    }
    return undefined
  }
  if (kind === 3) {
    // A link in the middle of a chain repointed.
    const chains = chainLinks()
    if (chains.length === 0) return undefined
    const link = pick(chains)
    const dirs = storeDirs()
    const to = dirs.length > 0 && rand() < 0.6 ? pick(dirs) : pick(roots)
    return `chain ${repoint(to, link)}`
  }
  if (kind === 4) {
    // The directory above a root made a link to where it was moved, or
    // the link taken away and the directory moved back.
    const parent = path.dirname(root)
    if (isLink(parent)) {
      const to = path.resolve(path.dirname(parent), fs.readlinkSync(parent))
      fs.unlinkSync(parent)
      if (isDir(to)) {
        fs.renameSync(to, parent)
        return `parent ${parent} restored from ${to}`
      }
      fs.mkdirSync(parent)
      return `parent ${parent} made a directory again`
    }
    if (!parents.includes(parent) || !isDir(parent)) return undefined
    const aside = fresh('dir')
    fs.renameSync(parent, aside)
    fs.symlinkSync(aside, parent)
    return `parent ${parent} moved to ${aside} and linked`
  }
  if (kind === 5) {
    // Deleted (a link: only the link), or made again.
    if (exists(root)) {
      fs.rmSync(root, { recursive: true, force: true })
      return `deleted ${root}`
    }
    fs.mkdirSync(root, { recursive: true })
    fill(root)
    return `made ${root} again`
  }
  // The root as a link to another root, straight.
  fs.mkdirSync(path.dirname(root), { recursive: true })
  const other = pick(roots.filter((r) => r !== root))
  if (isDir(root) && !isLink(root)) {
    const aside = fresh('dir')
    fs.renameSync(root, aside)
    return `set aside ${root} as ${aside}; ${repoint(other, root)}`
  }
  return `repoint ${repoint(other, root)}`
}
