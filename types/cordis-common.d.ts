// The parts of the Cordis entries' typings that do not depend on the
// framework copy (npm `cordis` or the harness's `@deepseek-ai/cordis`).
import type {
  SkillCatalogSnapshot,
  SkillDefinition,
  SkillProvider,
  SkillProviderControl,
  SkillRegistration,
  SkillSummary,
  SkillSearchOptions,
  SkillSearchPrepared,
  SkillSearchResults,
  SkillViewOptions,
} from './skill'
import type {
  Config as RegistryConfig,
  SkillChangeListener,
  SkillExplanation,
  SkillOverrideRule,
  SkillOverridesOptions,
  SkillProviderFactory,
  SkillRegistrationOptions,
  SkillRegistry as PlainSkillRegistry,
  SkillScopeResolver,
} from './registry'
import type { LocalSkillProvider, LocalSkillProviderConfig, LocalSkillProviderContext } from './local'

/** The service config: the registry config plus an optional scope resolver. */
export interface SkillServiceConfig extends RegistryConfig {
  /**
   * The scope resolver (default: `@deepseek-ai/dsh-scope` when installed;
   * without it, or without its `scopeOf`, every registration through the
   * service is global unless it names its scope).
   */
  readonly scopes?: SkillScopeResolver
}

/** The methods of `ctx.skills` (the registry service), whichever framework copy it runs on. */
export interface SkillServiceMethods {
  /** The wrapped registry (registrations made on it directly belong to no plugin). */
  readonly registry: PlainSkillRegistry
  /**
   * Register a provider as an effect of the calling plugin, in the layer of
   * its scope (or of `options.scope`): `factory(control)` runs synchronously;
   * the name `runtime` is reserved and names are unique per layer.
   * @returns the effect's disposer (removes the provider, aborts `control.signal`).
   */
  registerProvider(factory: SkillProviderFactory, options?: SkillRegistrationOptions): () => void
  /**
   * Create and register the native local provider (named `config.providerName`, default `'local'`) as an
   * effect of the calling plugin, in the layer of its scope: disposing the
   * plugin disposes the provider and closes its watchers.
   */
  registerLocalProvider(config?: LocalSkillProviderConfig, options?: SkillRegistrationOptions): LocalSkillProvider
  /**
   * Register a runtime skill as an effect of the calling plugin, in the layer
   * of its scope (rank 250; a duplicate name in that layer is logged and ignored).
   * @returns the effect's disposer
   */
  register(skill: SkillRegistration, options?: SkillRegistrationOptions): () => void
  /** Invalidate on behalf of an exact, still registered provider object (see `SkillRegistry`). */
  invalidateProvider(provider: SkillProvider): void
  /** `snapshot(options).skills`. */
  list(options?: SkillViewOptions): Promise<SkillSummary[]>
  /** Sorted summaries of the view of `options.scope` plus whether discovery was complete. */
  snapshot(options?: SkillViewOptions): Promise<SkillCatalogSnapshot>
  /** Load the winning skill's full definition; `undefined` for unknown or stale names. */
  get(name: string, options?: SkillViewOptions): Promise<SkillDefinition | undefined>
  /** Who won `name` and why every other candidate lost; `undefined` when no provider lists it. */
  explain(name: string, options?: SkillViewOptions): Promise<SkillExplanation | undefined>
  /** The model-invocable skills of the view that `query` is about, best first (see `SkillRegistry.search`). */
  search(query: string, options?: SkillSearchOptions): Promise<SkillSearchResults>
  /** Embeds the view's skills that have no cached vector (see `SkillRegistry.prepareSearch`). */
  prepareSearch(options?: SkillViewOptions): Promise<SkillSearchPrepared>
  /**
   * Replace override rules and emit one `skills/change`: without
   * `options.scope` the service's own (for every agent), with it the rules
   * of that scope's layer (its agents and the scopes below it; the nearest
   * layer's matching rule decides). Invalid rules throw and leave the rules
   * in force.
   */
  setOverrides(rules: readonly SkillOverrideRule[], options?: SkillOverridesOptions): void
  /**
   * Listen for catalog changes as an effect of the calling plugin (the
   * `skills/change` event is the usual way).
   * @returns the effect's disposer
   */
  onChange(listener: SkillChangeListener): () => void
}

/**
 * The provider plugins' config: every `LocalSkillProviderConfig` field except
 * `logger` (the plugin logs to `ctx.logger.warn`) and `fs` (the provider uses
 * `ctx.get('fs')`).
 */
export type SkillProviderPluginConfig = Omit<LocalSkillProviderConfig, 'logger' | 'fs'> & {
  /**
   * Override rules for the layer of the plugin's scope (a preset's agents),
   * removed with the plugin; ignored with a warning outside any scope.
   */
  readonly overrides?: readonly SkillOverrideRule[]
}

/**
 * The local filesystem provider under release 0.1.1-rc.2's name: the same
 * class behaviour as `LocalSkillProvider`, with `providerName` defaulting to
 * `'filesystem'`.
 */
export declare class FileSystemSkillProvider extends LocalSkillProvider {
  /** On its own (`name` is `config.providerName`, default `'filesystem'`). */
  constructor(config?: LocalSkillProviderConfig)
  /** The plugin form, inside a provider factory: `registerProvider((control) => new FileSystemSkillProvider(ctx, control, config))`. */
  constructor(ctx: LocalSkillProviderContext, control: SkillProviderControl, config?: LocalSkillProviderConfig)
}
