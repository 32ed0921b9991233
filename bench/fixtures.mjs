// Shared benchmark fixtures: generated skill trees on disk.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'

/** A realistic skill file: ~200-character description, whenToUse, metadata, ~2 KB body. */
export function skillText(name, description) {
  const text =
    description ??
    `Use ${name} when the task involves reviewing, refactoring or documenting code in this ` +
      'repository; it explains the conventions, the checks to run before committing and how ' +
      'to report findings.'
  let body = `# ${name}\n\n`
  while (body.length < 2048) {
    body +=
      'Follow the project conventions. Run the formatter and the linter, then the tests. ' +
      'Keep commits small and explain why in the message.\n\n'
  }
  return (
    `---\nname: ${name}\ndescription: ${text}\nwhenToUse: When asked about ${name}\n` +
    `metadata:\n  owner: platform-team\n  version: 3\n  tags: [review, quality]\n---\n\n${body}`
  )
}

/**
 * Write `count` skills under a fresh temporary home, alternating the user DSH and
 * user agents roots, half bundles and half flat files.
 * @returns {{ home: string, roots: string[], config: object, cleanup(): void }}
 */
export function generateHome(count) {
  const home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-bench-')))
  const roots = [path.join(home, '.dsh', 'skills'), path.join(home, '.agents', 'skills')]
  for (let i = 0; i < count; i++) {
    const root = roots[i % 2]
    const name = `skill-${String(i).padStart(5, '0')}`
    const file = i % 4 < 2 ? path.join(root, name, 'SKILL.md') : path.join(root, `${name}.md`)
    fs.mkdirSync(path.dirname(file), { recursive: true })
    fs.writeFileSync(file, skillText(name))
  }
  return {
    home,
    roots,
    config: { dshHome: path.join(home, '.dsh'), agentsHome: path.join(home, '.agents'), watch: false },
    cleanup: () => fs.rmSync(home, { recursive: true, force: true }),
  }
}

/** The floor: list each root and read every skill file synchronously (no parsing). */
export function plainReads(roots) {
  let bytes = 0
  for (const root of roots) {
    for (const entry of fs.readdirSync(root, { withFileTypes: true })) {
      const file = entry.isDirectory() ? path.join(root, entry.name, 'SKILL.md') : path.join(root, entry.name)
      bytes += fs.readFileSync(file, 'utf8').length
    }
  }
  return bytes
}

/** Median/min/mean of samples in ms. */
export function stats(samples) {
  const sorted = [...samples].sort((a, b) => a - b)
  return {
    median: sorted[Math.floor(sorted.length / 2)],
    min: sorted[0],
    mean: sorted.reduce((a, b) => a + b, 0) / sorted.length,
  }
}

/** Time `op` until onChange fired and `visible(snapshot)` holds. */
export async function visibleLatency(registry, cwd, op, visible) {
  let fired = 0
  let wake = () => {}
  const off = registry.onChange(() => {
    fired++
    wake()
  })
  try {
    const start = performance.now()
    op()
    const deadline = start + 10_000
    let seen = 0
    for (;;) {
      if (fired === seen) {
        await new Promise((resolve) => {
          wake = resolve
          setTimeout(resolve, 50)
        })
        if (performance.now() > deadline) throw new Error('change not visible within 10 s')
        if (fired === seen) continue
      }
      seen = fired
      const snapshot = await registry.snapshot({ cwd })
      if (snapshot.complete && visible(snapshot.skills)) return performance.now() - start
    }
  } finally {
    off()
  }
}

