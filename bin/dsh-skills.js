#!/usr/bin/env node
'use strict'
// dsh-skills — see `dsh-skills --help` (implementation in lib/cli.js).

require('../lib/cli.js')
  .main(process.argv.slice(2))
  .then((code) => {
    process.exitCode = code
  })
