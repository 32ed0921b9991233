#!/usr/bin/env node
'use strict'
// dsh-skills — see `dsh-skills --help` (implementation in lib/cli/).

// `dsh-skills list | head -1`: a closed pipe ends the output, not with a crash.
process.stdout.on('error', (error) => {
  if (error && error.code === 'EPIPE') process.exit(process.exitCode ?? 0)
  throw error
})

require('../lib/cli/index.js')
  .main(process.argv.slice(2))
  .then((code) => {
    process.exitCode = code
  })
