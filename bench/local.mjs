// Local provider benchmark: cold list() of 1,000 generated skills against plain
// synchronous Node reads of the same files (same run), and get() latency.
// Usage: node bench/local.mjs [count]
import { createRequire } from 'node:module'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'

const require = createRequire(import.meta.url)
const { LocalSkillProvider } = require('../lib/local.js')

const count = Number(process.argv[2] ?? 1000)
const rounds = 30

function skillText(name) {
  const description =
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
    `---\nname: ${name}\ndescription: ${description}\nwhenToUse: When asked about ${name}\n` +
    `metadata:\n  owner: platform-team\n  version: 3\n  tags: [review, quality]\n---\n\n${body}`
  )
}

const home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-local-bench-')))
const roots = [path.join(home, '.dsh', 'skills'), path.join(home, '.agents', 'skills')]
for (let i = 0; i < count; i++) {
  const root = roots[i % 2]
  const name = `skill-${String(i).padStart(5, '0')}`
  const file = i % 4 < 2 ? path.join(root, name, 'SKILL.md') : path.join(root, `${name}.md`)
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, skillText(name))
}

/** The floor: list each root, read every skill file synchronously (no parsing). */
function plainReads() {
  let bytes = 0
  for (const root of roots) {
    for (const entry of fs.readdirSync(root, { withFileTypes: true })) {
      const file = entry.isDirectory() ? path.join(root, entry.name, 'SKILL.md') : path.join(root, entry.name)
      bytes += fs.readFileSync(file, 'utf8').length
    }
  }
  return bytes
}

function stats(samples) {
  const sorted = [...samples].sort((a, b) => a - b)
  const median = sorted[Math.floor(sorted.length / 2)]
  const mean = sorted.reduce((a, b) => a + b, 0) / sorted.length
  return { median, mean, min: sorted[0] }
}

const fmt = (ms) => `${ms.toFixed(3)} ms`
const config = { dshHome: path.join(home, '.dsh'), agentsHome: path.join(home, '.agents'), watch: false }

async function main() {
  // Warm the OS page cache and the JIT once for both sides.
  plainReads()
  await new LocalSkillProvider(config).list({})

  const plain = []
  const listed = []
  for (let r = 0; r < rounds; r++) {
    let t = performance.now()
    plainReads()
    plain.push(performance.now() - t)

    const provider = new LocalSkillProvider(config)
    t = performance.now()
    const { candidates } = await provider.list({})
    listed.push(performance.now() - t)
    if (candidates.length !== count) throw new Error(`expected ${count} candidates, got ${candidates.length}`)
  }

  const provider = new LocalSkillProvider(config)
  const { candidates } = await provider.list({})
  const gets = []
  for (let r = 0; r < 2000; r++) {
    const c = candidates[r % candidates.length]
    const t = performance.now()
    const d = await provider.get(c, {})
    gets.push(performance.now() - t)
    if (!d) throw new Error('missing definition')
  }

  const p = stats(plain)
  const l = stats(listed)
  const g = stats(gets)
  console.log(`machine: ${os.cpus().length} x ${os.cpus()[0]?.model ?? 'unknown cpu'}, ${os.platform()} ${os.release()}, node ${process.version}`)
  console.log(`skills: ${count} (half bundles, half flat; ~200-char descriptions, metadata, ~2 KB bodies)`)
  console.log(`plain sync Node reads (readdir + readFileSync): median ${fmt(p.median)}, min ${fmt(p.min)}`)
  console.log(`cold list() through the addon:                  median ${fmt(l.median)}, min ${fmt(l.min)}  (${(l.median / p.median).toFixed(2)}x the plain-read floor)`)
  console.log(`get() through the addon:                        median ${fmt(g.median)}, mean ${fmt(g.mean)}`)
  fs.rmSync(home, { recursive: true, force: true })
}

main().catch((e) => {
  fs.rmSync(home, { recursive: true, force: true })
  console.error(e)
  process.exit(1)
})
