'use strict'
// A stand-in for the harness's `@deepseek-ai/dsh-scope`, which is not on the
// public npm registry. Same two functions and rules (SPEC-HEAD §C):
//
// - `scopeOf(ctx)`: the scope key of a Cordis context, or `undefined` (the
//   global layer). A preset helper attaches a key to a forked context
//   (`withScope(ctx, key)`); plugins mounted on it, and their own contexts,
//   inherit it.
// - `scopeChainOf(key)`: `[key, parent, …]`, nearest first.
//
// Keys are opaque objects; a key's parent can be re-linked (`relink`), after
// which chains follow the new parent.

const kScope = Symbol.for('dsh-scope.stand-in.scope')

/** Parent of each key (absent: a root key). */
const parents = new WeakMap()

/**
 * A new scope key.
 * @param {string} label  for messages
 * @param {object} [parent]  the parent key
 */
function createScope(label, parent) {
  const key = Object.freeze({ label })
  if (parent !== undefined) relink(key, parent)
  return key
}

/** Set (or clear, with `undefined`) the parent of `key`; a cycle throws. */
function relink(key, parent) {
  for (let at = parent; at !== undefined; at = parents.get(at)) {
    if (at === key) throw new Error(`relinking scope ${key.label} under ${parent.label} would make a cycle`)
  }
  if (parent === undefined) parents.delete(key)
  else parents.set(key, parent)
}

/** `[key, parent, …]`, nearest first. */
function scopeChainOf(key) {
  const chain = []
  for (let at = key; at !== undefined; at = parents.get(at)) chain.push(at)
  return chain
}

/** The scope key of a context (inherited by the contexts derived from it), or `undefined`. */
function scopeOf(ctx) {
  if (ctx === null || (typeof ctx !== 'object' && typeof ctx !== 'function')) return undefined
  return ctx[kScope]
}

/** A context forked from `ctx` whose plugins belong to `key` (what a preset does). */
function withScope(ctx, key) {
  return ctx.extend({ [kScope]: key })
}

module.exports = { createScope, relink, scopeChainOf, scopeOf, withScope }
