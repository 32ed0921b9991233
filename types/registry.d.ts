import type {
  SkillCatalogSnapshot,
  SkillDefinition,
  SkillInvocationPolicy,
  SkillProvider,
  SkillProviderControl,
  SkillRegistration,
  SkillResourceBase,
  SkillScopeKey,
  SkillSource,
  SkillSummary,
  SkillSearchOptions,
  SkillSearchPrepared,
  SkillEmbedder,
  SkillSearchResults,
  SkillViewOptions,
} from './skill'
import type { LocalSkillProvider, LocalSkillProviderConfig } from './local'

/** Where the registry sends warnings (shadowed duplicates, failed providers, bad skill files). */
export interface SkillLogger {
  warn(message: string): void
}

/**
 * What an override rule does to the candidates it matches: `'off'` removes
 * them from the merge (a lower-ranked copy of the name may then win);
 * `'user-only'` makes them `{ modelInvocable: false, userInvocable: true }`,
 * `'model-only'` `{ modelInvocable: true, userInvocable: false }`; `'on'`
 * leaves them as declared (undoing an earlier matching rule).
 */
export type SkillOverrideEffect = 'off' | 'user-only' | 'model-only' | 'on'

/**
 * One override rule. A rule matches a candidate when every field it gives
 * matches (a rule with none matches every candidate); of the rules matching a
 * candidate, the last one decides. A read with a scope applies the global
 * rules, then the rules of each layer of its scope's chain, farthest first:
 * the nearest layer with a matching rule decides. An allow-list for a scope is
 * `[{ name: '*', effect: 'off' }, { name: 'code-review', effect: 'on' }]`.
 */
export interface SkillOverrideRule {
  /** Skill name, or a glob of one where `*` stands for any run of characters (`'deploy-*'`). */
  readonly name?: string
  /** Only candidates of this source (`'project-dsh'`, `'user-agents'`, `'runtime'`, ...). */
  readonly source?: SkillSource
  /** Only candidates of this provider (`'local'`, `'runtime'`, a JS provider's name). */
  readonly provider?: string
  /** What the rule does. */
  readonly effect: SkillOverrideEffect
}

/** A candidate as `explain()` reports it. */
export interface SkillExplainedCandidate {
  /** Its provider label. */
  readonly provider: string
  /** Its source label. */
  readonly source: SkillSource
  /** Its rank (lower wins). */
  readonly rank: number
  /** Its file, when the provider gave one. */
  readonly path?: string
  /** Its resource base, when it has one (a JS provider's or runtime registration's own object). */
  readonly resourceBase?: SkillResourceBase
  /** Its invocation controls after the overrides (as declared when none rewrites them, or it is switched off). */
  readonly invocation: SkillInvocationPolicy
  /**
   * The override rule that decided about it, if one matched: `rule` is its
   * index in its rules, `scope` the scope whose layer holds those rules
   * (absent for the registry's own rules).
   */
  readonly override?: { readonly rule: number; readonly effect: SkillOverrideEffect; readonly scope?: SkillScopeKey }
  /** The scope whose layer it came from; absent for the global layer. */
  readonly scope?: SkillScopeKey
}

/** A candidate that did not win its name, and why. */
export interface SkillExplainedLoser extends SkillExplainedCandidate {
  /**
   * `'rank'`: the winner has a lower rank; `'order'`: same rank, and the
   * winner comes first (runtime skills, then providers in registration
   * order, each in its own order); `'off'`: an override switched it off;
   * `'scope'`: the winner comes from a nearer layer of the reader's scope
   * chain, which wins the name whatever the ranks; `'same'`: it is the same
   * skill as the winner (byte-identical skill files read by this package's
   * filesystem provider; for bundles, the same resources by listing and
   * size), so it was never in conflict.
   */
  readonly reason: 'rank' | 'order' | 'off' | 'scope' | 'same'
}

/** Who won a skill name and why every other candidate of that name lost. */
export interface SkillExplanation {
  /** The skill name. */
  readonly name: string
  /** Whether every provider answered (as `snapshot().complete`): when not, candidates may be missing. */
  readonly complete: boolean
  /** The winner, as `snapshot()` lists it; `undefined` when overrides switched off every candidate. */
  readonly winner: SkillExplainedCandidate | undefined
  /** Every other candidate in merge order (rank, then order). */
  readonly losers: SkillExplainedLoser[]
}

/** Skill registry configuration. */
export interface Config {
  /** Maximum number of completed cwd/provider catalogs kept in memory (positive integer, default 128). */
  readonly collectCacheMaxEntries?: number
  /**
   * Abandon a JS provider's pending `list()` or `get()` after this many
   * milliseconds, with a warning: the lookup goes on without it as an
   * incomplete observation (a `get()` resolves to `undefined`). A positive
   * integer of at most 2147483647; default: none (wait as long as it takes).
   */
  readonly providerTimeoutMs?: number
  /**
   * Override rules applied to every candidate before the merge (last
   * matching rule wins). Default: none, which changes nothing. Invalid rules
   * throw, naming the rule and the key (`overrides[1].effect must be ...`).
   */
  readonly overrides?: readonly SkillOverrideRule[]
  /**
   * Fuse meaning with words in `search()` (default: words only, exactly as
   * without the option). Without a usable model search uses words alone
   * and says so once. See docs/search.md.
   */
  readonly embedder?: SkillEmbedder
  /**
   * Folder of the cached skill vectors (one file per model id), or `false`
   * for memory only. Default: `$DSH_SKILL_EMBED_CACHE`, else
   * `$XDG_CACHE_HOME/dsh-skill-native/vectors` (`~/.cache/…`).
   */
  readonly embedderCacheDir?: string | false
}

/**
 * Gives a scope key's chain, and (for the Cordis service) a context's scope:
 * what `@deepseek-ai/dsh-scope` exports.
 */
export interface SkillScopeResolver {
  /**
   * `[key, parent, …]`, nearest first. The registry accepts an array (not an
   * array-like) of objects or functions with `key` itself first, no key
   * twice and at most 256 keys; anything else makes the read throw a
   * `TypeError`. Called once per read.
   */
  scopeChainOf(key: SkillScopeKey): readonly SkillScopeKey[]
  /** The scope of a plugin context (`undefined`: the global layer). Only the Cordis service calls it. */
  scopeOf?(ctx: unknown): SkillScopeKey | undefined
}

/** Where `registerProvider`, `registerLocalProvider` and `register` file a registration. */
export interface SkillRegistrationOptions {
  /**
   * The layer of this scope (an object or function; anything else throws a
   * `TypeError`). Absent: the global layer.
   */
  readonly scope?: SkillScopeKey | undefined
  /**
   * Override rules for the layer of `scope` (needs `scope`: the registry's
   * own rules are `setOverrides(rules)`): they replace that layer's rules
   * while the registration lasts (its disposal removes them, unless they
   * were replaced since). Invalid rules throw and nothing is registered.
   */
  readonly overrides?: readonly SkillOverrideRule[]
}

/** Whose override rules `setOverrides` replaces. */
export interface SkillOverridesOptions {
  /** A scope's layer (an object or function). Absent: the registry's own rules. */
  readonly scope?: SkillScopeKey | undefined
}

/** `SkillRegistry` constructor options: the registry config plus a logger (default: `console.warn`) and a scope resolver. */
export interface SkillRegistryConfig extends Config {
  readonly logger?: SkillLogger
  /**
   * How a scope's chain is found. Default: `@deepseek-ai/dsh-scope` when it
   * can be loaded, else every scope's chain is the scope alone.
   */
  readonly scopes?: SkillScopeResolver
}

/** Factory called synchronously by `registerProvider`. */
export type SkillProviderFactory = (control: SkillProviderControl) => SkillProvider

/** Listener for catalog changes; may return a promise (rejections are logged). */
export type SkillChangeListener = () => void | Promise<void>

/**
 * The provider registry (`ctx.skills`): merges native and JS providers, ranks,
 * caches complete catalogs, invalidates and notifies. Logic lives in Rust.
 */
export declare class SkillRegistry {
  constructor(config?: SkillRegistryConfig)
  /**
   * The scope resolver in use: `config.scopes`, else `@deepseek-ai/dsh-scope`
   * when it can be loaded (on first need), else one whose chains are the
   * scope alone (and without `scopeOf`).
   */
  readonly scopes: SkillScopeResolver
  /**
   * Register a provider in the layer of `options.scope` (the global layer
   * without one): `factory(control)` runs synchronously. The name `runtime`
   * is reserved and names are unique per layer (the error of a duplicate
   * names the scope). A native provider that was disposed is refused. If the
   * factory throws or registration fails, `control.signal` aborts with that
   * error.
   * @returns a disposer that removes the provider, aborts `control.signal`,
   *   invalidates the catalogs that merged its layer and emits a change.
   *   Lookups still waiting on the provider stop waiting and collect again
   *   without it.
   */
  registerProvider(factory: SkillProviderFactory, options?: SkillRegistrationOptions): () => void
  /**
   * Create the native local filesystem provider (named `config.providerName`,
   * default `'local'`) and register it in the layer of `options.scope`. Its
   * `dispose()` unregisters it and closes its watchers.
   */
  registerLocalProvider(config?: LocalSkillProviderConfig, options?: SkillRegistrationOptions): LocalSkillProvider
  /**
   * Register a runtime skill (rank 250; provider `runtime` and both invocation
   * surfaces unless given) in the layer of `options.scope`. A name already
   * registered in that layer is logged and gets a no-op disposer.
   */
  register(skill: SkillRegistration, options?: SkillRegistrationOptions): () => void
  /**
   * Invalidate completed catalogs on behalf of `provider` (the exact object its
   * factory returned) and notify listeners, while that registration is active;
   * anything else is ignored. Providers usually call `control.invalidate()`.
   * Notifications of a burst are coalesced (see `onChange`).
   */
  invalidateProvider(provider: SkillProvider): void
  /** `snapshot(options).skills`. */
  list(options?: SkillViewOptions): Promise<SkillSummary[]>
  /**
   * Sorted summaries plus whether discovery was complete (only complete
   * snapshots are cached). Summaries are fresh mutable objects on every lookup;
   * nested objects a JS provider or runtime registration supplied are its own,
   * except the `invocation` of a skill a `user-only`/`model-only` override
   * rewrote (a new object per lookup).
   * Concurrent lookups for the same `cwd` (in any spelling of it) and the
   * same view share one call per provider. With `options.scope`, the view
   * merges the layers of the scope's chain over the global layer, the
   * nearest layer winning a name outright. An aborted `options.signal`
   * rejects with an `Error` (`signal.reason` when it is one).
   */
  snapshot(options?: SkillViewOptions): Promise<SkillCatalogSnapshot>
  /**
   * Load the winning skill's full definition (never cached); `undefined` for
   * unknown or stale names. When a `user-only`/`model-only` override applies,
   * the definition has the rewritten `invocation` (for a JS provider, on a
   * copy of the object its `get()` returned).
   */
  get(name: string, options?: SkillViewOptions): Promise<SkillDefinition | undefined>
  /**
   * Who won `name` and every candidate it beat or an override switched off,
   * across all providers, from the same (possibly cached) catalog as
   * `snapshot(options)`; `undefined` when no provider lists the name.
   */
  explain(name: string, options?: SkillViewOptions): Promise<SkillExplanation | undefined>
  /**
   * The model-invocable skills of the view of `options` that `query` (free
   * text) is about, from the same (possibly cached) catalog `snapshot()`
   * reads (layers, overrides and policy applied alike): a skill named
   * exactly by the query first, then by relevance of its name and
   * description (case and diacritics folded, light English stemming, word
   * prefixes, a typo tolerated), ties by rank, then name. Deterministic.
   * The index is built on the first search of a catalog and kept with it.
   * Throws a `TypeError` for a query that is not a string, a
   * `RangeError`/`TypeError` for a `limit` that is not a positive integer.
   */
  search(query: string, options?: SkillSearchOptions): Promise<SkillSearchResults>
  /**
   * With an `embedder`: embeds every skill of the view that has no cached
   * vector yet and resolves when done (search itself embeds only a few
   * changed skills and leaves a large backlog to the background).
   */
  prepareSearch(options?: SkillViewOptions): Promise<SkillSearchPrepared>
  /**
   * Replace override rules and notify listeners once: without
   * `options.scope` the registry's own rules (every completed catalog is
   * invalidated); with it the rules of that scope's layer, which apply to
   * reads with that scope and the scopes below it on its chain (only the
   * catalogs that merged that layer are invalidated). A scope needs no
   * registration to carry rules; they stay until replaced (`[]` removes
   * them). What a scope's rules switch off, `get()` with that scope does not
   * load. Invalid rules throw and leave the rules in force.
   */
  setOverrides(rules: readonly SkillOverrideRule[], options?: SkillOverridesOptions): void
  /**
   * Listen for catalog changes; returns an unsubscribe function. Listeners
   * are called synchronously during a mutation, once per mutation (every
   * `control.invalidate()` and `invalidateProvider` call included), except
   * that the invalidations a provider makes from inside its own `list()`
   * while it runs are coalesced: one notification on the next turn of the
   * event loop for all of them.
   */
  onChange(listener: SkillChangeListener): () => void
}

/** Whether `name` is a kebab-case skill name (`^[a-z0-9]+(?:-[a-z0-9]+)*$`) of at most 64 characters. */
export declare function isSkillName(name: unknown): name is string
/** Whether model-facing catalogs and loaders include this skill. */
export declare function isModelInvocable(skill: { readonly invocation: SkillInvocationPolicy }): boolean
/** Whether human-facing command catalogs and loaders include this skill. */
export declare function isUserInvocable(skill: { readonly invocation: SkillInvocationPolicy }): boolean
