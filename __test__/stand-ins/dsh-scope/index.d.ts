/** An opaque scope key. */
export interface ScopeKey {
  readonly label: string
}
export declare function createScope(label: string, parent?: ScopeKey): ScopeKey
export declare function relink(key: ScopeKey, parent: ScopeKey | undefined): void
export declare function scopeChainOf(key: object): readonly object[]
export declare function scopeOf(ctx: unknown): ScopeKey | undefined
export declare function withScope<C extends { extend(meta: object): C }>(ctx: C, key: ScopeKey): C
