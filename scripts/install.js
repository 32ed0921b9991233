#!/usr/bin/env node
// Install step: make sure a native addon for this platform is loadable.
// 1. a prebuilt addon: the per-platform package from `npm/` (an optional
//    dependency) or a `.node` file next to the package (a tarball packed from a
//    checkout): nothing to do;
// 2. a development checkout (`npm ci` in a clone): the same `napi build` as
//    `npm run build`, into `target/`, so the build in `npm test` is a no-op;
// 3. otherwise build from the bundled Rust sources with cargo, in a temporary
//    target directory that is deleted afterwards.
// Nothing is downloaded from anywhere but the package registries.
//
// npm (7 and later) hides what an install script prints unless it fails or
// runs with --foreground-scripts. So a build says how long it took, and a
// failure says what failed, after how long, and how to watch the next try;
// with --foreground-scripts (or run by hand) cargo shows its progress.
'use strict'

const { spawnSync } = require('node:child_process')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')

const root = path.resolve(__dirname, '..')
const NAME = '@deepseek-ai/dsh-skill-native'

const { PREBUILT_PLATFORMS, INSTALL_RECORD, platformArchAbi } = require('../lib/addon.js')

function loads() {
  try {
    require(path.join(root, 'binding.js'))
    return true
  } catch {
    return false
  }
}

function libraryName(platform = process.platform) {
  if (platform === 'win32') return 'skill_napi.dll'
  if (platform === 'darwin') return 'libskill_napi.dylib'
  return 'libskill_napi.so'
}

/**
 * Record what this run did, next to package.json (`started`, `ready`,
 * `built`, `failed` with its message, `skipped`), so that a failure to load
 * the addon later can say why (lib/addon.js): no record means npm never ran
 * this script. Best effort: a read-only package directory keeps no record.
 */
function record(step, message) {
  try {
    const entry = { step, version: require(path.join(root, 'package.json')).version, at: new Date().toISOString() }
    if (message !== undefined) entry.message = message
    fs.writeFileSync(path.join(root, INSTALL_RECORD), `${JSON.stringify(entry)}\n`)
  } catch {
    // nothing to record into
  }
}

/**
 * Print one line on stderr and, when npm hides this script's output, on the
 * terminal npm runs in too (POSIX only; without a terminal, as in CI, npm
 * shows the stderr line only if the script fails). DSH_SKILL_NATIVE_TERMINAL
 * names another device or file for it (empty: none).
 */
function notice(line, env = process.env) {
  console.error(line)
  const terminal = env.DSH_SKILL_NATIVE_TERMINAL ?? (process.platform === 'win32' ? '' : '/dev/tty')
  if (!outputHidden(env) || !terminal) return
  let tty
  try {
    tty = fs.openSync(terminal, 'a')
    // On a terminal, start on a clean line (npm draws a progress spinner there).
    fs.writeSync(tty, `${require('node:tty').isatty(tty) ? '\r\x1b[2K' : ''}${line}\n`)
  } catch {
    // no terminal
  } finally {
    if (tty !== undefined) fs.closeSync(tty)
  }
}

/** The major version of the npm running this script, from its user agent (`npm/11.19.1 node/…`). */
function npmMajor(env = process.env) {
  const match = /^npm\/(\d+)\./.exec(env.npm_config_user_agent ?? '')
  return match ? Number(match[1]) : undefined
}

/** A failure reported as one message. */
class InstallError extends Error {}

function fail(message) {
  throw new InstallError(message)
}

/** A clone of the repository (not an installed dependency), with the napi CLI of its devDependencies. */
function napiCliOfCheckout() {
  if (root.split(path.sep).includes('node_modules')) return undefined
  const cli = path.join(root, 'node_modules', '@napi-rs', 'cli', 'dist', 'cli.js')
  return fs.existsSync(cli) ? cli : undefined
}

function run(command, args, env = process.env) {
  const result = spawnSync(command, args, { cwd: root, env, stdio: 'inherit' })
  if (result.error) return result.error.message
  if (result.status !== 0) return `${path.basename(command)} exited with ${result.status ?? result.signal}`
  return undefined
}

/** Whether npm hides this script's output (an npm install without --foreground-scripts). */
function outputHidden(env = process.env) {
  return env.npm_lifecycle_event !== undefined && env.npm_config_foreground_scripts !== 'true'
}

/** The time since `start` (a `Date.now()`), for people: `48 s`, `4 min 18 s`. */
function took(start, now = Date.now()) {
  const seconds = Math.round((now - start) / 1000)
  return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`
}

/** How to see the next build as it runs. */
const WATCH_HINT = `to watch the build, run it again with npm's --foreground-scripts (npm rebuild ${NAME} --foreground-scripts)`

/**
 * Whether the project npm installs into approved this package's install script
 * in its `allowScripts` (`npm install-scripts approve`): an entry by name
 * (`name`, `name@range`), or by the spec its dependency is written with
 * (`file:` tarballs are approved by absolute path), set to true; or the
 * `allow-scripts` config (global installs, npx) naming it. Undefined when it
 * cannot tell (no project known, its package.json unreadable).
 */
function approvedScripts(env = process.env) {
  const allowed = String(env.npm_config_allow_scripts ?? '').split(',').map((name) => name.trim())
  if (allowed.includes(NAME) || allowed.some((name) => name.startsWith(`${NAME}@`))) return true
  const prefix = env.npm_config_local_prefix
  if (!prefix) return undefined
  let manifest
  try {
    manifest = JSON.parse(fs.readFileSync(path.join(prefix, 'package.json'), 'utf8'))
  } catch {
    return undefined
  }
  const allowScripts = manifest && typeof manifest.allowScripts === 'object' && manifest.allowScripts ? manifest.allowScripts : {}
  const keys = new Set([NAME])
  for (const field of ['dependencies', 'devDependencies', 'optionalDependencies']) {
    const spec = manifest[field]?.[NAME]
    if (typeof spec !== 'string') continue
    keys.add(spec)
    if (spec.startsWith('file:')) keys.add(`file:${path.resolve(prefix, spec.slice('file:'.length))}`)
  }
  return Object.entries(allowScripts).some(([key, value]) => value === true && (keys.has(key) || key.startsWith(`${NAME}@`)))
}

/**
 * Whether npm 11 will end this install with "install scripts not yet covered
 * by allowScripts" for this package although it ran the script: npm 11 or
 * later runs it for a project (not the clone's own `npm ci`, whose scripts
 * are the project's own) that has not approved it.
 * @param {{ checkout: boolean }} how
 */
function allowScriptsNote(how, env = process.env) {
  if (how.checkout || (npmMajor(env) ?? 0) < 11 || env.npm_lifecycle_event === undefined) return false
  if (env.npm_config_local_prefix && path.resolve(env.npm_config_local_prefix) === root) return false
  return approvedScripts(env) !== true
}

/**
 * Run one build step: a line before it (shown when npm shows script output),
 * and after it either how long it took or, on failure, what failed, after how
 * long and how to watch the next try.
 * @param {{ checkout: boolean }} how `checkout`: the clone's own build
 */
function build(what, command, args, how) {
  const start = Date.now()
  notice(`${NAME}: building the native addon ${what}, this takes a few minutes`)
  const error = run(command, args)
  if (error) {
    fail(
      `building the native addon ${what} failed after ${took(start)} (${error}); ` +
        `the compiler's messages are above. ${WATCH_HINT[0].toUpperCase()}${WATCH_HINT.slice(1)}.`,
    )
  }
  // npm 11 ends an install with "install scripts not yet covered by allowScripts"
  // for a package whose script it did run: say that the build happened.
  notice(
    `${NAME}: built the native addon in ${took(start)}` +
      (allowScriptsNote(how)
        ? ` (npm may still list this package as "not yet covered by allowScripts": that means not yet approved, the build did run)`
        : ''),
  )
}

/** Development checkout: exactly `npm run build` (one build path, one target directory). */
function buildCheckout(cli) {
  const script = require(path.join(root, 'package.json')).scripts.build
  const [program, ...args] = script.split(/\s+/)
  if (program !== 'napi') fail(`unexpected build script: ${script}`)
  build('(npm run build)', process.execPath, [cli, ...args], { checkout: true })
}

function hasCargo() {
  const probe = spawnSync('cargo', ['--version'], { stdio: 'ignore' })
  return !probe.error && probe.status === 0
}

/** Installed dependency without a prebuilt addon: cargo, in a temporary target directory. */
function buildFromSource() {
  const manifest = path.join(root, 'crates', 'skill-napi', 'Cargo.toml')
  const platform = platformArchAbi()
  const noPrebuilt = `no prebuilt addon for ${platform} (prebuilt: ${PREBUILT_PLATFORMS})`
  if (!fs.existsSync(manifest)) fail(`${noPrebuilt}, and no Rust sources to build one.`)
  if (!hasCargo()) {
    fail(
      `${noPrebuilt}, and building it from source needs a Rust toolchain: ` +
        'install one from https://rustup.rs (or your system packages: rustc and cargo), ' +
        `then run \`npm rebuild ${NAME}\`.`,
    )
  }
  // A target directory chosen by the user is theirs to keep; ours is removed.
  const own = !process.env.CARGO_TARGET_DIR
  const targetDir = own
    ? fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-skill-native-build-'))
    : path.resolve(root, process.env.CARGO_TARGET_DIR)
  try {
    build('from source', 'cargo', [
      'build',
      '--release',
      '--locked',
      // Hidden output is shown only when the build fails: then the errors alone.
      ...(outputHidden() ? ['--quiet'] : []),
      '--manifest-path',
      manifest,
      '-p',
      'skill-napi',
      '--target-dir',
      targetDir,
    ], { checkout: false })
    fs.copyFileSync(path.join(targetDir, 'release', libraryName()), path.join(root, `dsh-skill-native.${platform}.node`))
  } finally {
    if (own) fs.rmSync(targetDir, { recursive: true, force: true })
  }
}

function main() {
  if (process.env.DSH_SKILL_NATIVE_SKIP_INSTALL === '1') return record('skipped')
  if (loads()) return record('ready')
  record('started')
  const cli = napiCliOfCheckout()
  if (cli) buildCheckout(cli)
  else buildFromSource()
  if (!loads()) fail(`built the addon for ${platformArchAbi()} but it does not load.`)
  record('built')
}

if (require.main === module) {
  try {
    main()
  } catch (error) {
    if (!(error instanceof InstallError)) {
      record('failed', String(error && error.message))
      throw error
    }
    record('failed', error.message)
    notice(`${NAME}: ${error.message}`)
    process.exitCode = 1
  }
}

module.exports = { platformArchAbi, libraryName, outputHidden, took, allowScriptsNote, PREBUILT_PLATFORMS }
