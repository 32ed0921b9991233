// Runs every benchmark in this directory (`bench/*.mjs` except this file and the
// shared fixtures module) one after another, each in its own Node process so
// they do not share a heap or JIT.
import { spawnSync } from 'node:child_process'
import { readdirSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const dir = path.dirname(fileURLToPath(import.meta.url))
const self = path.basename(fileURLToPath(import.meta.url))
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.mjs') && f !== self && f !== 'fixtures.mjs')
  .sort()

let failed = false
for (const file of files) {
  console.log(`\n=== ${file} ===`)
  const result = spawnSync(process.execPath, [path.join(dir, file)], { stdio: 'inherit' })
  if (result.status !== 0) {
    console.error(`${file} failed (${result.signal ?? `exit code ${result.status}`})`)
    failed = true
  }
}
process.exitCode = failed ? 1 : 0
