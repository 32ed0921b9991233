// Runs every benchmark in this directory (`bench/*.mjs` except this file and the
// shared modules: fixtures, the lag probe) one after another, each in its own Node process so
// they do not share a heap or JIT. Names given as arguments run only those
// files (`npm run bench -- incremental watch`); options (`--quick`, ...) go
// to each file run.
import { spawnSync } from 'node:child_process'
import { readdirSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const dir = path.dirname(fileURLToPath(import.meta.url))
const self = path.basename(fileURLToPath(import.meta.url))
/** Modules the benchmarks import, not benchmarks. */
const SHARED = ['fixtures.mjs', 'lag.mjs']
const all = readdirSync(dir)
  .filter((f) => f.endsWith('.mjs') && f !== self && !SHARED.includes(f))
  .map((f) => f.replace(/\.mjs$/, ''))
  .sort()
// Arguments naming a benchmark select it; the others are passed on.
const args = process.argv.slice(2)
const only = args.filter((a) => all.includes(a.replace(/\.mjs$/, ''))).map((a) => a.replace(/\.mjs$/, ''))
const options = args.filter((a) => !all.includes(a.replace(/\.mjs$/, '')))
const files = all.filter((name) => only.length === 0 || only.includes(name)).map((name) => `${name}.mjs`)

let failed = false
for (const file of files) {
  console.log(`\n=== ${file} ===`)
  const result = spawnSync(process.execPath, [path.join(dir, file), ...options], { stdio: 'inherit' })
  if (result.status !== 0) {
    console.error(`${file} failed (${result.signal ?? `exit code ${result.status}`})`)
    failed = true
  }
}
process.exitCode = failed ? 1 : 0
