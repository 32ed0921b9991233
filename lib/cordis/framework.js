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

/**
 * `load()` (a literal `require` of `name`), or, when `name` itself is not
 * installed, an error that says what to do instead (with Node's error as its
 * `cause` and `code`).
 */
function required(name, load, instead) {
  try {
    return load()
  } catch (error) {
    const missing = error !== null && typeof error === 'object' && error.code === 'MODULE_NOT_FOUND'
    if (!missing || !String(error.message).startsWith(`Cannot find module '${name}'`)) throw error
    const wrapped = new Error(`${name} is not installed here: ${instead} (Cannot find module '${name}')`, { cause: error })
    wrapped.code = error.code
    throw wrapped
  }
}

const FORK_INSTEAD =
  "the …/harness entries run on the harness's own framework copy; outside the harness, use @deepseek-ai/dsh-skill-native/cordis and …/filesystem, which run on npm cordis"
const NPM_INSTEAD = 'install the Cordis peers: npm install cordis schemastery'

/** `@deepseek-ai/cordis` and `@deepseek-ai/schemastery`. */
function fork() {
  return {
    name: FORK,
    cordis: required(FORK, () => require('@deepseek-ai/cordis'), FORK_INSTEAD),
    Schema: schemaOf(required('@deepseek-ai/schemastery', () => require('@deepseek-ai/schemastery'), FORK_INSTEAD)),
  }
}

/** npm `cordis` and `schemastery`. */
function npm() {
  return {
    name: NPM,
    cordis: required(NPM, () => require('cordis'), NPM_INSTEAD),
    Schema: schemaOf(required('schemastery', () => require('schemastery'), NPM_INSTEAD)),
  }
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
