'use strict'
// Loading the native addon, and explaining a failure to load it.
//
// The generated napi-rs loader (binding.js) tries the addon file next to the
// package (a build from source, or a tarball packed from a checkout with its
// build), then the per-platform package (`npm/<platform>`, an optional
// dependency). When both fail it throws a generic message about an npm bug
// with optional dependencies. This module wraps it: on failure it throws an
// `AddonLoadError` that says which files it looked for, why they are missing
// when that can be known (no prebuilt package for this platform, and the
// install step that builds one did not run, failed or was skipped), and the
// commands that fix it. Its `cause` is what the loader tried (each file or
// package, and why it did not load), without the loader's own generic advice
// (an npm bug, remove package-lock.json), which is wrong here and says
// otherwise than ours.
//
// The install step (scripts/install.js) leaves a small record of what it did
// (`INSTALL_RECORD`) next to package.json: no record means npm never ran it.

const fs = require('node:fs')
const path = require('node:path')

const NAME = '@deepseek-ai/dsh-skill-native'
const CODE = 'ERR_DSH_SKILL_NATIVE_ADDON'
/** The install step's record of its last run, next to package.json. */
const INSTALL_RECORD = '.dsh-skill-native-install.json'
const root = path.resolve(__dirname, '..')
/** The platforms with a prebuilt addon, as people name them. */
const PREBUILT_PLATFORMS = 'Linux x64 and arm64 (glibc and musl), macOS x64 and arm64, Windows x64'

/** Whether this Linux runs on musl libc (the generated loader's first checks). */
function isMusl() {
  try {
    return fs.readFileSync('/usr/bin/ldd', 'utf8').includes('musl')
  } catch {
    try {
      return !process.report.getReport().header.glibcVersionRuntime
    } catch {
      return false
    }
  }
}

/**
 * The napi-rs platform name (`linux-x64-gnu`, `darwin-arm64`, `win32-x64-msvc`):
 * the suffix of the addon file and of the per-platform package.
 */
function platformArchAbi(platform = process.platform, arch = process.arch, musl = platform === 'linux' && isMusl()) {
  if (platform === 'linux') return `linux-${arch}-${musl ? 'musl' : 'gnu'}`
  if (platform === 'win32') return `win32-${arch}-msvc`
  return `${platform}-${arch}`
}

/** The platform name of a Rust target triple of `napi.targets`. */
function platformOfTarget(triple) {
  const [cpu, , os, abi] = triple.split('-')
  const arch = { x86_64: 'x64', aarch64: 'arm64', i686: 'ia32' }[cpu] ?? cpu
  if (os === 'linux') return `linux-${arch}-${abi}`
  if (os === 'windows') return `win32-${arch}-${abi}`
  if (os === 'darwin') return `darwin-${arch}`
  return `${os}-${arch}`
}

/** The manifest of this package (undefined when it cannot be read). */
function manifest(dir) {
  try {
    return JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'))
  } catch {
    return undefined
  }
}

/** What the install step recorded, or undefined when it never ran here (or the record is unreadable). */
function installRecord(dir) {
  try {
    const record = JSON.parse(fs.readFileSync(path.join(dir, INSTALL_RECORD), 'utf8'))
    return record && typeof record === 'object' && typeof record.step === 'string' ? record : undefined
  } catch {
    return undefined
  }
}

/** The directory of an installed package as `require` finds it from `dir`, or undefined. */
function resolvePackage(name, dir) {
  try {
    return path.dirname(require.resolve(`${name}/package.json`, { paths: [dir] }))
  } catch {
    return undefined
  }
}

/** A checkout of the repository (not an installed copy): no node_modules above it. */
function isCheckout(dir) {
  return !dir.split(path.sep).includes('node_modules')
}

/** The messages of the generated loader's error chain (its causes: each file or package it tried), outermost first. */
function loadMessages(error) {
  const messages = []
  for (let at = error && error.cause, depth = 0; at && depth < 32; at = at.cause, depth++) {
    messages.push(at instanceof Error ? at.message : String(at))
  }
  return messages
}

/** How the generated loader words the error it throws once every attempt failed. */
const GENERIC = 'Cannot find native binding.'

/**
 * What the loader tried, as the `cause` of our error: each attempt's own
 * error (the file or package it names, and why it did not load), in the
 * order tried, one numbered line each. Printed as it is (no stack: it is an
 * account, not a place in the code). The loader's own error when it is not
 * the generic one (a load that failed otherwise).
 */
function loaderAttempts(error) {
  if (!(error instanceof Error) || !error.message.startsWith(GENERIC) || !error.cause) return error
  const lines = loadMessages(error)
    .reverse()
    .map((message, i) => `  ${i + 1}. ${message.replace(/\n/g, '\n     ')}`)
  const attempts = new Error(`the addon loader tried, in order:\n${lines.join('\n')}`)
  attempts.name = 'AddonLoadAttempts'
  attempts.stack = `${attempts.name}: ${attempts.message}`
  return attempts
}

/** The error an addon failure becomes. */
class AddonLoadError extends Error {
  constructor(message, cause) {
    super(message)
    this.name = 'AddonLoadError'
    this.code = CODE
    this.cause = cause
  }
}

const FIX_APPROVE = `npm install-scripts approve ${NAME}`
const FIX_REBUILD = `npm rebuild ${NAME} --foreground-scripts`
const RUST = 'the build needs a Rust toolchain (https://rustup.rs) and takes a few minutes; --foreground-scripts shows its progress'

/**
 * Explain why the addon did not load.
 * @param {unknown} cause what the generated loader threw
 * @param {{ dir?: string, platform?: string, env?: NodeJS.ProcessEnv }} [where] the package directory and platform (tests)
 * @returns {AddonLoadError}
 */
function explainLoadFailure(cause, where = {}) {
  const dir = where.dir ?? root
  const env = where.env ?? process.env
  const platform = where.platform ?? platformArchAbi()
  const pkg = manifest(dir) ?? {}
  const file = path.join(dir, `dsh-skill-native.${platform}.node`)
  const platformPackage = `${NAME}-${platform}`
  const prebuilt = ((pkg.napi && pkg.napi.targets) || []).map(platformOfTarget).includes(platform)
  const listed = Object.hasOwn(pkg.optionalDependencies ?? {}, platformPackage)
  const installedPackage = resolvePackage(platformPackage, dir)
  const fileThere = fs.existsSync(file)
  const seen = loadMessages(cause)

  /** Why it failed, and the commands that fix it (in the consumer project when it is an installed copy). */
  let why
  let fix
  let note
  if (env.NAPI_RS_NATIVE_LIBRARY_PATH) {
    why = `NAPI_RS_NATIVE_LIBRARY_PATH names ${env.NAPI_RS_NATIVE_LIBRARY_PATH}, which does not load (${seen.at(-1) ?? 'no details'}).`
    fix = ['unset NAPI_RS_NATIVE_LIBRARY_PATH, or point it at an addon built for this platform']
  } else if (fileThere) {
    const own = seen.find((message) => message.includes(path.basename(file))) ?? seen[0] ?? 'no details'
    why = `${path.basename(file)} is there but does not load: it is damaged, or built for another platform or Node.js (${own}).`
    fix = isCheckout(dir) ? ['npm run build'] : [FIX_REBUILD]
    if (!isCheckout(dir)) note = `the rebuild replaces it with a build from source; ${RUST}`
  } else if (installedPackage) {
    const own = seen.find((message) => message.includes(platformPackage)) ?? seen[0] ?? 'no details'
    why = `${platformPackage} is installed (${installedPackage}) but does not load (${own}).`
    fix = [`npm install ${NAME}@${pkg.version ?? 'latest'} --force`]
    note = 'this installs the prebuilt package again'
  } else if (isCheckout(dir)) {
    why = 'this is a source checkout and the addon has not been built yet.'
    fix = ['npm run build']
    note = '`npm ci` builds it too'
  } else {
    const record = installRecord(dir)
    const missing = !prebuilt
      ? `there is no prebuilt package for ${platform} (prebuilt: ${PREBUILT_PLATFORMS})`
      : listed
        ? `npm did not install the optional dependency ${platformPackage} (--omit=optional, or a lockfile written on another platform)`
        : 'this copy of the package lists no prebuilt packages (a tarball packed from a clone)'
    fix = [FIX_REBUILD]
    note = RUST
    if (record === undefined) {
      why =
        `${missing}, and the install step that builds the addon did not run: npm skipped this ` +
        "package's install script (--ignore-scripts, ignore-scripts in an .npmrc, the package " +
        'denied in allowScripts, or install scripts not approved).'
      fix = [FIX_APPROVE, FIX_REBUILD]
    } else if (record.step === 'skipped') {
      why = `${missing}, and the install step was skipped (DSH_SKILL_NATIVE_SKIP_INSTALL=1).`
      note = `without DSH_SKILL_NATIVE_SKIP_INSTALL in the environment; ${RUST}`
    } else if (record.step === 'failed') {
      why = `${missing}, and the install step failed: ${record.message ?? 'no details recorded'}`
    } else if (record.step === 'started') {
      why = `${missing}, and the install step started but did not finish (it was interrupted).`
    } else {
      why = `${missing}; the install step provided the addon, but it is gone now.`
    }
  }
  const lines = [`${NAME}: the native addon for ${platform} could not be loaded.`]
  lines.push(`Looked for: ${file} (a local build)${prebuilt ? `, and the package ${platformPackage} (prebuilt)` : ''}.`)
  lines.push(`Why: ${why}`)
  lines.push(isCheckout(dir) ? 'Fix, in this checkout:' : 'Fix, in the project that depends on this package:')
  for (const line of fix) lines.push(`  ${line}`)
  if (note) lines.push(`(${note}.)`)
  return new AddonLoadError(lines.join('\n'), loaderAttempts(cause))
}

/** The addon's exports, or an `AddonLoadError`. */
function loadAddon() {
  try {
    return require('../binding.js')
  } catch (error) {
    throw explainLoadFailure(error)
  }
}

module.exports = {
  NAME,
  CODE,
  INSTALL_RECORD,
  PREBUILT_PLATFORMS,
  AddonLoadError,
  platformArchAbi,
  platformOfTarget,
  explainLoadFailure,
  loadAddon,
}
