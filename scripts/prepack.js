#!/usr/bin/env node
// `npm pack` and `npm publish` run this first. A tarball packed from a clone
// carries the addon built on this machine (`dsh-skill-native.<platform>.node`,
// matched by `*.node` in `files`), or, in the release job, names the
// per-platform packages that carry it (`optionalDependencies`, written by
// `napi pre-publish`). With neither, the tarball has no addon: its installs
// would build one from source (minutes, and Rust is needed) or fail. So this
// refuses to pack, and says what to run; DSH_SKILL_NATIVE_PACK_WITHOUT_ADDON=1
// packs such a tarball anyway, with a warning that says what it lacks.
'use strict'

const fs = require('node:fs')
const path = require('node:path')

const root = path.resolve(__dirname, '..')
const NAME = '@deepseek-ai/dsh-skill-native'

/**
 * What the tarball would lack, or undefined when it carries an addon or
 * names the packages that do.
 * @param {string} dir the package directory
 */
function missingAddon(dir = root) {
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'))
  const platforms = Object.keys(manifest.optionalDependencies ?? {}).filter((name) => name.startsWith(`${NAME}-`))
  if (platforms.length > 0) return undefined
  const addons = fs.readdirSync(dir).filter((file) => /^dsh-skill-native\..+\.node$/.test(file))
  if (addons.length > 0) return undefined
  return 'no native addon: there is no dsh-skill-native.<platform>.node next to package.json and no per-platform package in optionalDependencies'
}

function main(env = process.env) {
  const missing = missingAddon()
  if (missing === undefined) return 0
  if (env.DSH_SKILL_NATIVE_PACK_WITHOUT_ADDON === '1') {
    console.error(
      `${NAME}: warning: this tarball has ${missing}; installing it builds the addon from source (Rust needed, minutes) or fails`,
    )
    return 0
  }
  console.error(
    `${NAME}: refusing to pack: the tarball would have ${missing}. ` +
      'Build the addon first (npm run build; npm ci does it), then pack again. ' +
      'To pack a tarball without it anyway (its installs build from source): DSH_SKILL_NATIVE_PACK_WITHOUT_ADDON=1 npm pack',
  )
  return 1
}

if (require.main === module) process.exitCode = main()

module.exports = { missingAddon }
