#!/usr/bin/env node
// Fails when the committed napi-generated loader or typings (binding.js,
// binding.d.ts) differ from what the last `npm run build` generated.
'use strict'

const { spawnSync } = require('node:child_process')
const path = require('node:path')

const root = path.resolve(__dirname, '..')
const inRepo = spawnSync('git', ['rev-parse', '--is-inside-work-tree'], { cwd: root, encoding: 'utf8' })
if (inRepo.status !== 0) {
  console.log('check-generated: not a git checkout, skipped')
  process.exit(0)
}
const diff = spawnSync('git', ['diff', '--exit-code', '--', 'binding.js', 'binding.d.ts'], {
  cwd: root,
  stdio: 'inherit',
})
if (diff.status !== 0) {
  console.error('check-generated: binding.js / binding.d.ts drifted from the Rust sources; commit the regenerated files.')
  process.exit(1)
}
console.log('check-generated: binding.js and binding.d.ts match the Rust sources')
