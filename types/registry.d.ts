import type {
  SkillCatalogSnapshot,
  SkillDefinition,
  SkillInvocationPolicy,
  SkillLookupOptions,
  SkillProvider,
  SkillProviderControl,
  SkillRegistration,
  SkillResourceBase,
  SkillSource,
  SkillSummary,
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
 * candidate, the last one decides.
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
  /** The override rule that decided about it (`rule`: its index in the rules), if one matched. */
  readonly override?: { readonly rule: number; readonly effect: SkillOverrideEffect }
}

/** A candidate that did not win its name, and why. */
export interface SkillExplainedLoser extends SkillExplainedCandidate {
  /**
   * `'rank'`: the winner has a lower rank; `'order'`: same rank, and the
   * winner comes first (runtime skills, then providers in registration
   * order, each in its own order); `'off'`: an override switched it off.
   */
  readonly reason: 'rank' | 'order' | 'off'
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
}

/** `SkillRegistry` constructor options: the registry config plus a logger (default: `console.warn`). */
export interface SkillRegistryConfig extends Config {
  readonly logger?: SkillLogger
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
   * Register a provider: `factory(control)` runs synchronously. The name
   * `runtime` is reserved and names are unique. If the factory throws or
   * registration fails, `control.signal` aborts with that error.
   * @returns a disposer that removes the provider, aborts `control.signal`,
   *   invalidates caches and emits a change. Lookups still waiting on the
   *   provider are released: they complete without it, as incomplete
   *   observations.
   */
  registerProvider(factory: SkillProviderFactory): () => void
  /**
   * Create the native local filesystem provider (named `config.providerName`,
   * default `'local'`) and register it. Its `dispose()` unregisters it and closes its watchers.
   */
  registerLocalProvider(config?: LocalSkillProviderConfig): LocalSkillProvider
  /**
   * Register a runtime skill (rank 250; provider `runtime` and both invocation
   * surfaces unless given). A duplicate name is logged and gets a no-op disposer.
   */
  register(skill: SkillRegistration): () => void
  /**
   * Invalidate completed catalogs on behalf of `provider` (the exact object its
   * factory returned) and notify listeners, while that registration is active;
   * anything else is ignored. Providers usually call `control.invalidate()`.
   */
  invalidateProvider(provider: SkillProvider): void
  /** `snapshot(options).skills`. */
  list(options?: SkillLookupOptions): Promise<SkillSummary[]>
  /**
   * Sorted summaries plus whether discovery was complete (only complete
   * snapshots are cached). Summaries are fresh mutable objects on every lookup;
   * nested objects a JS provider or runtime registration supplied are its own,
   * except the `invocation` of a skill a `user-only`/`model-only` override
   * rewrote (a new object per lookup).
   * Concurrent lookups for the same `cwd` share one call per provider. An
   * aborted `options.signal` rejects with an `Error` (`signal.reason` when it
   * is one).
   */
  snapshot(options?: SkillLookupOptions): Promise<SkillCatalogSnapshot>
  /**
   * Load the winning skill's full definition (never cached); `undefined` for
   * unknown or stale names. When a `user-only`/`model-only` override applies,
   * the definition has the rewritten `invocation` (for a JS provider, on a
   * copy of the object its `get()` returned).
   */
  get(name: string, options?: SkillLookupOptions): Promise<SkillDefinition | undefined>
  /**
   * Who won `name` and every candidate it beat or an override switched off,
   * across all providers, from the same (possibly cached) catalog as
   * `snapshot(options)`; `undefined` when no provider lists the name.
   */
  explain(name: string, options?: SkillLookupOptions): Promise<SkillExplanation | undefined>
  /**
   * Replace the override rules, invalidate completed catalogs and notify
   * listeners once. Invalid rules throw and leave the rules in force.
   */
  setOverrides(rules: readonly SkillOverrideRule[]): void
  /** Listen for catalog changes; returns an unsubscribe function. */
  onChange(listener: SkillChangeListener): () => void
}

/** Whether `name` is a kebab-case skill name (`^[a-z0-9]+(?:-[a-z0-9]+)*$`). */
export declare function isSkillName(name: unknown): name is string
/** Whether model-facing catalogs and loaders include this skill. */
export declare function isModelInvocable(skill: { readonly invocation: SkillInvocationPolicy }): boolean
/** Whether human-facing command catalogs and loaders include this skill. */
export declare function isUserInvocable(skill: { readonly invocation: SkillInvocationPolicy }): boolean
