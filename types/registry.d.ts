import type {
  SkillCatalogSnapshot,
  SkillDefinition,
  SkillInvocationPolicy,
  SkillLookupOptions,
  SkillProvider,
  SkillProviderControl,
  SkillRegistration,
  SkillSummary,
} from './skill'
import type { LocalSkillProvider, LocalSkillProviderConfig } from './local'

/** Where the registry sends warnings (shadowed duplicates, failed providers, bad skill files). */
export interface SkillLogger {
  warn(message: string): void
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
   * Create the native local filesystem provider (`name === 'local'`) and
   * register it. Its `dispose()` unregisters it and closes its watchers.
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
   * nested objects a JS provider or runtime registration supplied are its own.
   * Concurrent lookups for the same `cwd` share one call per provider. An
   * aborted `options.signal` rejects with an `Error` (`signal.reason` when it
   * is one).
   */
  snapshot(options?: SkillLookupOptions): Promise<SkillCatalogSnapshot>
  /** Load the winning skill's full definition (never cached); `undefined` for unknown or stale names. */
  get(name: string, options?: SkillLookupOptions): Promise<SkillDefinition | undefined>
  /** Listen for catalog changes; returns an unsubscribe function. */
  onChange(listener: SkillChangeListener): () => void
}

/** Whether `name` is a kebab-case skill name (`^[a-z0-9]+(?:-[a-z0-9]+)*$`). */
export declare function isSkillName(name: unknown): name is string
/** Whether model-facing catalogs and loaders include this skill. */
export declare function isModelInvocable(skill: { readonly invocation: SkillInvocationPolicy }): boolean
/** Whether human-facing command catalogs and loaders include this skill. */
export declare function isUserInvocable(skill: { readonly invocation: SkillInvocationPolicy }): boolean
