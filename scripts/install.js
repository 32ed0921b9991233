#!/usr/bin/env node
// Install step: make sure a native addon for this platform is loadable.
// 1. a prebuilt `.node` next to the package (release tarball or local build), or
// 2. the per-platform package from `npm/` (installed as an optional dependency), or
// 3. build it from the bundled Rust sources with cargo (fresh clones, unsupported
//    platforms). Nothing is downloaded from anywhere but the package registries.
'use strict'

const { execFileSync } = require('node:child_process')
const fs = require('node:fs')
const path = require('node:path')

const root = path.resolve(__dirname, '..')

function loads() {
  try {
    require(path.join(root, 'binding.js'))
    return true
  } catch {
    return false
  }
}

function platformSuffix() {
  const { platform, arch } = process
  if (platform === 'linux') {
    let musl = false
    try {
      musl = !process.report.getReport().header.glibcVersionRuntime
    } catch {
      musl = false
    }
    return `linux-${arch}-${musl ? 'musl' : 'gnu'}`
  }
  if (platform === 'win32') return `win32-${arch}-msvc`
  return `${platform}-${arch}`
}

function libraryName() {
  if (process.platform === 'win32') return 'skill_napi.dll'
  if (process.platform === 'darwin') return 'libskill_napi.dylib'
  return 'libskill_napi.so'
}

function main() {
  if (process.env.DSH_SKILL_NATIVE_SKIP_INSTALL === '1') return
  if (loads()) return
  const manifest = path.join(root, 'crates', 'skill-napi', 'Cargo.toml')
  if (!fs.existsSync(manifest)) {
    console.error(
      '@deepseek-ai/dsh-skill-native: no prebuilt addon for ' +
        `${process.platform}-${process.arch} and no Rust sources to build one.`,
    )
    process.exit(1)
  }
  console.log('@deepseek-ai/dsh-skill-native: building the native addon with cargo (release)...')
  try {
    execFileSync('cargo', ['build', '--release', '--manifest-path', manifest, '-p', 'skill-napi'], {
      cwd: root,
      stdio: 'inherit',
    })
  } catch (error) {
    console.error(
      '@deepseek-ai/dsh-skill-native: building the addon failed. Install Rust (https://rustup.rs) ' +
        'and run `npm rebuild @deepseek-ai/dsh-skill-native`.',
    )
    console.error(String(error && error.message ? error.message : error))
    process.exit(1)
  }
  const targetDir = process.env.CARGO_TARGET_DIR
    ? path.resolve(root, process.env.CARGO_TARGET_DIR)
    : path.join(root, 'target')
  const built = path.join(targetDir, 'release', libraryName())
  const dest = path.join(root, `dsh-skill-native.${platformSuffix()}.node`)
  fs.copyFileSync(built, dest)
  if (!loads()) {
    console.error(`@deepseek-ai/dsh-skill-native: built ${dest} but it does not load.`)
    process.exit(1)
  }
}

main()
