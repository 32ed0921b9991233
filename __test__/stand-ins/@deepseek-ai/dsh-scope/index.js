'use strict'
// A stand-in for `@deepseek-ai/dsh-scope`, the harness's scope package (on
// npm since 0.1.0-rc.8; the tests run offline, and need `relink`). It follows
// the rules the registry relies
// on: a scope is an opaque object key; `scopeOf(ctx)` gives the scope of a
// context (`undefined` = the global layer); `scopeChainOf(key)` gives
// `[key, parent, …]`, nearest first; a key's parent can be re-linked (the
// harness's "recompose"), after which chains follow the new parent.

/** The scope a context was assigned; forked contexts inherit it through their prototype. */
const kScope = Symbol.for('dsh-scope.stand-in.scope')

/** key → parent key */
const parents = new WeakMap()

/** Any object or function is a key (those of `createScope` are frozen objects with an optional `name`). */
function checkKey(key, what) {
  if ((typeof key !== 'object' && typeof key !== 'function') || key === null) {
    throw new TypeError(`${what} must be a scope key (an object)`)
  }
}

/**
 * A new scope key, optionally named (the registry uses a `name` in error
 * messages) and under `parent`.
 * @param {{ name?: string, parent?: object }} [options]
 */
function createScope(options = {}) {
  const key = Object.freeze(options.name === undefined ? {} : { name: options.name })
  if (options.parent !== undefined) relink(key, options.parent)
  return key
}

/**
 * Re-link `key` under `parent` (`undefined`: no parent). A link that would
 * make a loop is refused.
 */
function relink(key, parent) {
  checkKey(key, 'key')
  if (parent === undefined) {
    parents.delete(key)
    return
  }
  checkKey(parent, 'parent')
  for (let at = parent; at !== undefined; at = parents.get(at)) {
    if (at === key) throw new Error('re-linking would make the scope chain loop')
  }
  parents.set(key, parent)
}

/** `[key, parent, …]`, nearest first. */
function scopeChainOf(key) {
  checkKey(key, 'key')
  const chain = []
  for (let at = key; at !== undefined; at = parents.get(at)) chain.push(at)
  return chain
}

/** The scope of `ctx` (inherited from the context it was forked from), or `undefined`. */
function scopeOf(ctx) {
  if ((typeof ctx !== 'object' && typeof ctx !== 'function') || ctx === null) return undefined
  return ctx[kScope]
}

/** Give `ctx` (and the contexts forked from it afterwards) the scope `key`. */
function assignScope(ctx, key) {
  checkKey(key, 'key')
  Object.defineProperty(ctx, kScope, { value: key, configurable: true, enumerable: false, writable: false })
  return ctx
}

module.exports = { scopeOf, scopeChainOf, createScope, relink, assignScope }
