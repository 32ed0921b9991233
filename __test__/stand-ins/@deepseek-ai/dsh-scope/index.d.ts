/** An opaque scope key. */
export type ScopeKey = object
/** The scope of a context (inherited from the context it was forked from), or `undefined` (the global layer). */
export declare function scopeOf(ctx: unknown): ScopeKey | undefined
/** `[key, parent, …]`, nearest first. */
export declare function scopeChainOf(key: ScopeKey): readonly ScopeKey[]
/** A new scope key, optionally named and under `parent`. */
export declare function createScope(options?: { name?: string; parent?: ScopeKey }): ScopeKey
/** Re-link `key` under `parent` (`undefined`: no parent); a loop is refused. */
export declare function relink(key: ScopeKey, parent: ScopeKey | undefined): void
/** Give `ctx` the scope `key`. */
export declare function assignScope<T extends object>(ctx: T, key: ScopeKey): T
