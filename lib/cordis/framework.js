'use strict'
// Which copy of the Cordis framework the Cordis entries run on.
//
// The harness (release 0.1.1-rc.2) vendors a renamed fork of Cordis,
// `@deepseek-ai/cordis`, with its own `@deepseek-ai/schemastery`. A plugin
// must extend the very `Service` class of the harness's copy and hand it
// schemas of the matching schemastery, and a second framework copy in one
// process is never wanted. So:
//
// - `fork()`: `@deepseek-ai/cordis` + `@deepseek-ai/schemastery` (the
//   `…/harness` entries: explicit, and typed for that module);
// - `npm()`: `cordis` + `schemastery`;
// - `auto()` (the `…/cordis` and `…/filesystem` entries): the fork when
//   `@deepseek-ai/cordis` resolves from this package (it is installed in the
//   harness), npm `cordis` otherwise; `DSH_SKILL_CORDIS` set to `cordis` or
//   `@deepseek-ai/cordis` decides instead (`auto` or empty: detect).
//
// Each loader names its packages literally, so bundlers see both.

const FORK = '@deepseek-ai/cordis'
const NPM = 'cordis'
/** The environment variable that overrides the detection of the automatic entries. */
const ENV = 'DSH_SKILL_CORDIS'

/** The schemastery export: the function itself, or the default export of an ES module namespace. */
function schemaOf(module) {
  return typeof module === 'function' ? module : module.default
}

/** `@deepseek-ai/cordis` and `@deepseek-ai/schemastery`. */
function fork() {
  return { name: FORK, cordis: require('@deepseek-ai/cordis'), Schema: schemaOf(require('@deepseek-ai/schemastery')) }
}

/** npm `cordis` and `schemastery`. */
function npm() {
  return { name: NPM, cordis: require('cordis'), Schema: schemaOf(require('schemastery')) }
}

/**
 * Whether `@deepseek-ai/cordis` resolves from this package. A package that is
 * there but not loadable with `require` counts as there (loading it then says
 * why), so a harness's copy is never passed over for npm `cordis`.
 */
function forkInstalled() {
  try {
    require.resolve('@deepseek-ai/cordis')
    return true
  } catch (error) {
    return error === null || typeof error !== 'object' || error.code !== 'MODULE_NOT_FOUND'
  }
}

/**
 * The package `auto()` loads: `DSH_SKILL_CORDIS` when set to a package name,
 * else the fork when it is installed, else npm `cordis`.
 * @param {NodeJS.ProcessEnv} [env]
 * @returns {'cordis' | '@deepseek-ai/cordis'}
 */
function choose(env = process.env) {
  const forced = env[ENV]
  if (forced === NPM || forced === FORK) return forced
  if (forced !== undefined && forced !== '' && forced !== 'auto') {
    throw new Error(`${ENV} must be '${NPM}', '${FORK}' or 'auto' (got ${JSON.stringify(forced)})`)
  }
  return forkInstalled() ? FORK : NPM
}

/** The framework copy of the automatic entries (see `choose`). */
function auto() {
  return choose() === FORK ? fork() : npm()
}

module.exports = { ENV, FORK, NPM, auto, choose, fork, npm }
