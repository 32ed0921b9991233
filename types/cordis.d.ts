// @deepseek-ai/dsh-skill-native/cordis — Cordis 4 drop-in plugins.
import type { Context, Service } from 'cordis'
import type Schema from 'schemastery'
import type {
  SkillCatalogSnapshot,
  SkillDefinition,
  SkillLookupOptions,
  SkillProvider,
  SkillRegistration,
  SkillSummary,
} from './skill'
import type {
  Config as RegistryConfig,
  SkillChangeListener,
  SkillExplanation,
  SkillOverrideRule,
  SkillProviderFactory,
  SkillRegistry,
} from './registry'
import type { LocalSkillProvider, LocalSkillProviderConfig } from './local'

declare module 'cordis' {
  interface Context {
    /** The skill provider registry (`SkillService`). */
    skills: SkillService
  }
  interface Events {
    /**
     * The skill catalog may have changed (provider or runtime registration,
     * disposal, invalidation). It carries no diff: consumers call
     * `ctx.skills.snapshot()` again with their own lookup options.
     */
    'skills/change'(): void
  }
}

/**
 * `ctx.skills`: the provider registry as a Cordis service (`ctx.plugin(SkillService)`).
 * Same methods as `SkillRegistry`; `registerProvider`, `registerLocalProvider`,
 * `register` and `onChange` are effects of the calling plugin, so disposing
 * that plugin undoes them (the returned disposer is the effect's own).
 * Changes are emitted as `skills/change`; warnings go to `ctx.logger.warn(message)`.
 */
export declare class SkillService extends Service<SkillService.Config> {
  /**
   * `{ collectCacheMaxEntries, providerTimeoutMs, overrides }`: positive
   * integers (default 128 and none) and override rules (default none).
   */
  static readonly Config: Schema<SkillService.Config, SkillService.Config>
  constructor(ctx: Context, config?: SkillService.Config)
  /** The wrapped registry (registrations made on it directly belong to no plugin). */
  readonly registry: SkillRegistry
  /**
   * Register a provider as an effect of the calling plugin: `factory(control)`
   * runs synchronously; the name `runtime` is reserved and names are unique.
   * @returns the effect's disposer (removes the provider, aborts `control.signal`).
   */
  registerProvider(factory: SkillProviderFactory): () => void
  /**
   * Create and register the native local provider (named `config.providerName`, default `'local'`) as an
   * effect of the calling plugin: disposing the plugin disposes the provider
   * and closes its watchers.
   */
  registerLocalProvider(config?: LocalSkillProviderConfig): LocalSkillProvider
  /**
   * Register a runtime skill as an effect of the calling plugin (rank 250;
   * a duplicate name is logged and ignored).
   * @returns the effect's disposer
   */
  register(skill: SkillRegistration): () => void
  /** Invalidate on behalf of an exact, still registered provider object (see `SkillRegistry`). */
  invalidateProvider(provider: SkillProvider): void
  /** `snapshot(options).skills`. */
  list(options?: SkillLookupOptions): Promise<SkillSummary[]>
  /** Sorted summaries plus whether discovery was complete. */
  snapshot(options?: SkillLookupOptions): Promise<SkillCatalogSnapshot>
  /** Load the winning skill's full definition; `undefined` for unknown or stale names. */
  get(name: string, options?: SkillLookupOptions): Promise<SkillDefinition | undefined>
  /** Who won `name` and why every other candidate lost; `undefined` when no provider lists it. */
  explain(name: string, options?: SkillLookupOptions): Promise<SkillExplanation | undefined>
  /**
   * Replace the override rules (the service's, for every plugin), invalidate
   * and emit one `skills/change`. Invalid rules throw and leave the rules in force.
   */
  setOverrides(rules: readonly SkillOverrideRule[]): void
  /**
   * Listen for catalog changes as an effect of the calling plugin (the
   * `skills/change` event is the usual way).
   * @returns the effect's disposer
   */
  onChange(listener: SkillChangeListener): () => void
}

export declare namespace SkillService {
  /** Skill registry configuration. */
  interface Config extends RegistryConfig {}
}

export declare namespace SkillLocal {
  /**
   * Every `LocalSkillProviderConfig` field except `logger` (the plugin logs to
   * `ctx.logger.warn`) and `fs` (the provider uses `ctx.get('fs')`).
   */
  type Config = Omit<LocalSkillProviderConfig, 'logger' | 'fs'>
}

/**
 * The native local provider as a plugin module (`ctx.plugin(SkillLocal, config)`):
 * registers `new LocalSkillProvider(ctx, control, config)` through
 * `ctx.skills.registerProvider` (it disposes itself, closing its watchers, when
 * the plugin is disposed), and listens to the harness event
 * `ctx.emit('fs/observed', target, version, actor)`: when `actor` is an object
 * whose `name` is `'write'` or `'edit'`, it calls
 * `provider.observeHostMutation(target.displayPath)`, watching or not; every
 * other event is ignored. Warnings go to `ctx.logger.warn(message)`.
 */
export declare const SkillLocal: {
  readonly name: 'skill-local'
  readonly inject: string[]
  readonly Config: Schema<SkillLocal.Config, SkillLocal.Config>
  apply(ctx: Context, config?: SkillLocal.Config): void
}

export default SkillService
