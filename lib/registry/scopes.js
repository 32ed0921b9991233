'use strict'
// Scope keys: which layer a registration is filed in, and which layers a read
// merges. The layer rules live in Rust (`skill_core::registry::layers`); JS
// keeps what needs JS identity: the scope keys themselves (mapped to layer ids
// by the registry) and the resolver that gives a key's chain.

const { describeError } = require('../util.js')

/** The harness's scope package: an optional peer, loaded on first need. */
const SCOPE_PACKAGE = '@deepseek-ai/dsh-scope'

/** Most keys a scope chain may hold (a deeper chain is refused as garbage). */
const MAX_SCOPE_CHAIN = 256

/** The resolver without the scope package: a scope's chain is the scope alone. */
const SCOPE_ALONE = Object.freeze({
  scopeChainOf(key) {
    return [key]
  },
})

/** `undefined`: not tried yet; else what loading gave (the module, or `null` when absent). */
let scopePackage

/**
 * `@deepseek-ai/dsh-scope`, loaded once per process; `null` when it is not
 * installed. Any other failure to load it (a broken install, a dependency of
 * its own missing) is thrown: it is there, and silently treating every scope
 * as global would hide that.
 */
function loadScopePackage() {
  if (scopePackage !== undefined) return scopePackage
  try {
    scopePackage = checkResolver(require(SCOPE_PACKAGE), SCOPE_PACKAGE)
  } catch (error) {
    if (!isMissing(error)) throw error
    scopePackage = null
  }
  return scopePackage
}

/** Whether `error` says the scope package itself is not installed. */
function isMissing(error) {
  if (error === null || typeof error !== 'object' || error.code !== 'MODULE_NOT_FOUND') return false
  const first = String(error.message).split('\n', 1)[0]
  return first.includes(`'${SCOPE_PACKAGE}'`)
}

/** The resolver a registry uses without a `scopes` option. */
function defaultResolver() {
  return loadScopePackage() ?? SCOPE_ALONE
}

/**
 * `resolver` when it is one (`scopeChainOf` a function, `scopeOf` a function
 * when present), else a `TypeError` naming `what`.
 */
function checkResolver(resolver, what) {
  if ((typeof resolver !== 'object' && typeof resolver !== 'function') || resolver === null) {
    throw new TypeError(`${what} must be a scope resolver { scopeChainOf(key), scopeOf?(ctx) } (got ${describe(resolver)})`)
  }
  if (typeof resolver.scopeChainOf !== 'function') {
    throw new TypeError(`${what}.scopeChainOf must be a function (got ${describe(resolver.scopeChainOf)})`)
  }
  if (resolver.scopeOf !== undefined && typeof resolver.scopeOf !== 'function') {
    throw new TypeError(`${what}.scopeOf must be a function when present (got ${describe(resolver.scopeOf)})`)
  }
  return resolver
}

/** Whether `value` can be a scope key: an object or a function. */
function isScopeKey(value) {
  return (typeof value === 'object' && value !== null) || typeof value === 'function'
}

/**
 * The `scope` of an options argument: `undefined` (the global layer) or a
 * scope key; anything else is a `TypeError` naming `where`.
 * @param {unknown} options
 * @param {string} where  e.g. `registerProvider`
 */
function scopeOption(options, where) {
  if (options === undefined) return undefined
  if (typeof options !== 'object' || options === null) {
    throw new TypeError(`${where}: options must be an object when given (got ${describe(options)})`)
  }
  const scope = options.scope
  if (scope === undefined || isScopeKey(scope)) return scope
  throw new TypeError(`${where}: options.scope must be a scope key (an object) or undefined (got ${describe(scope)})`)
}

/**
 * The `overrides` of a registration's options: `undefined` when absent; the
 * rules of the layer of `scope` otherwise (checked when they are set), which
 * needs a scope: the registry's own rules are `setOverrides(rules)`.
 * @param {unknown} options  already checked by `scopeOption`
 * @param {object | undefined} scope
 * @param {string} where  e.g. `registerProvider`
 */
function overridesOption(options, scope, where) {
  const rules = options?.overrides
  if (rules === undefined) return undefined
  if (scope === undefined) {
    throw new TypeError(
      `${where}: options.overrides are the rules of a scope's layer and need options.scope (the registry's own rules: setOverrides(rules))`,
    )
  }
  return rules
}

/**
 * The chain of `key` as `resolver` gives it, checked: an array (not merely
 * array-like) of scope keys (objects or functions), `key` itself first, then
 * its parents nearest first, no key twice, at most `MAX_SCOPE_CHAIN` keys.
 * Anything else throws a `TypeError` saying what is wrong; a throwing
 * resolver's error is thrown as is. Nothing is changed before it returns.
 * @returns {object[]} a fresh array
 */
function chainOf(resolver, key) {
  const chain = resolver.scopeChainOf(key)
  const what = 'scopeChainOf(scope)'
  if (!Array.isArray(chain)) {
    throw new TypeError(`${what} must return an array of scope keys, the scope first (got ${describe(chain)})`)
  }
  let keys
  try {
    const length = chain.length
    if (length > MAX_SCOPE_CHAIN) {
      throw new TypeError(`${what} returned ${length} keys; a scope chain holds at most ${MAX_SCOPE_CHAIN}`)
    }
    keys = new Array(length)
    for (let i = 0; i < length; i++) keys[i] = chain[i]
  } catch (error) {
    if (error instanceof TypeError && error.message.startsWith(what)) throw error
    throw new TypeError(`${what} returned a chain that cannot be read: ${describeError(error)}`)
  }
  if (keys.length === 0 || keys[0] !== key) {
    throw new TypeError(`${what} must return the scope itself first (got ${keys.length === 0 ? 'an empty array' : describe(keys[0])})`)
  }
  for (let i = 1; i < keys.length; i++) {
    const k = keys[i]
    if (!isScopeKey(k)) {
      throw new TypeError(`${what}[${i}] must be a scope key (an object) (got ${describe(k)})`)
    }
    // Chains are short: a scan is cheaper than a set.
    if (keys.indexOf(k) < i) throw new TypeError(`${what}[${i}] repeats an earlier key: a scope chain cannot loop`)
  }
  return keys
}

/** How error messages name a scope key: its `name` or `id` string, quoted; `undefined` when it has none. */
function keyName(key) {
  for (const property of ['name', 'id']) {
    try {
      const value = key[property]
      if (typeof value === 'string' && value.length > 0) {
        return JSON.stringify(value.length > 80 ? `${value.slice(0, 79)}…` : value)
      }
    } catch {
      // A throwing getter: try the next property, then an ordinal.
    }
  }
  return undefined
}

/** How error messages name a value of the wrong kind. */
function describe(value) {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  switch (typeof value) {
    case 'string':
      return `string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 39)}…` : value)}`
    case 'number':
    case 'boolean':
    case 'bigint':
      return `${typeof value} ${String(value)}`
    case 'symbol':
      return 'a symbol'
    case 'undefined':
      return 'undefined'
    case 'function':
      return 'a function'
    default:
      return 'an object'
  }
}

module.exports = {
  defaultResolver,
  checkResolver,
  scopeOption,
  overridesOption,
  isScopeKey,
  chainOf,
  keyName,
  describe,
}
