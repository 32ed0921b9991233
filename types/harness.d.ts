// @deepseek-ai/dsh-skill-native/harness — Cordis 4 drop-in plugins on the harness's
// own framework copy, typed for `@deepseek-ai/cordis` (`…/cordis` is the same, typed for npm `cordis`).
import type { Context, Service } from '@deepseek-ai/cordis'
import type Schema from '@deepseek-ai/schemastery'
import type { SkillProviderPluginConfig, SkillServiceConfig, SkillServiceMethods } from './cordis-common'

declare module '@deepseek-ai/cordis' {
  interface Context {
    /** The skill provider registry (`SkillService`, also exported as `SkillRegistry`). */
    skills: SkillService
  }
  interface Events {
    /**
     * The skill catalog may have changed (provider or runtime registration,
     * disposal, invalidation, in any scope's layer). It carries no diff:
     * consumers call `ctx.skills.snapshot()` again with their own lookup options.
     */
    'skills/change'(): void
  }
}

/**
 * `ctx.skills`: the provider registry as a Cordis service (`ctx.plugin(SkillService)`).
 * Same methods as `SkillRegistry`; `registerProvider`, `registerLocalProvider`,
 * `register` and `onChange` are effects of the calling plugin, so disposing
 * that plugin undoes them (the returned disposer is the effect's own), and
 * registrations are filed into the layer of the calling plugin's scope.
 * Changes are emitted as `skills/change`; warnings go to `ctx.logger.warn(message)`.
 */
export declare class SkillService extends Service<SkillService.Config> {
  /**
   * `{ collectCacheMaxEntries, providerTimeoutMs, overrides, scopes }`: positive
   * integers (default 128 and none), override rules (default none) and a
   * scope resolver (default `@deepseek-ai/dsh-scope` when installed).
   */
  static readonly Config: Schema<SkillService.Config, SkillService.Config>
  constructor(ctx: Context, config?: SkillService.Config)
}
export interface SkillService extends SkillServiceMethods {}

export declare namespace SkillService {
  /** Skill registry configuration. */
  interface Config extends SkillServiceConfig {}
}

export declare namespace SkillLocal {
  /**
   * Every `LocalSkillProviderConfig` field except `logger` (the plugin logs to
   * `ctx.logger.warn`) and `fs` (the provider uses `ctx.get('fs')`).
   */
  type Config = SkillProviderPluginConfig
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

/** Release 0.1.1-rc.2's name of the service class (the main entry's `SkillRegistry` is the plain class). */
export { SkillService as SkillRegistry }
/** The framework copy this entry runs on (always `@deepseek-ai/cordis`). */
export declare const framework: '@deepseek-ai/cordis'
export { BUNDLED_SKILL_RANK, escapeText, renderSkillContent } from './content'
export type { SkillInvocationSource } from './content'
export { isSkillName, isModelInvocable, isUserInvocable } from './registry'
export type { SkillServiceConfig, SkillServiceMethods } from './cordis-common'
export type {
  SkillSource,
  SkillResourceBase,
  SkillInvocationPolicy,
  SkillSummary,
  SkillCandidate,
  SkillDefinition,
  SkillRegistration,
  SkillLookupOptions,
  SkillScopeKey,
  SkillViewOptions,
  SkillSearchOptions,
  SkillSearchPrepared,
  SkillEmbedder,
  SkillEmbedFunction,
  SkillSearchHit,
  SkillSearchResults,
  SkillCatalogSnapshot,
  SkillProviderObservation,
  SkillProvider,
  SkillProviderControl,
} from './skill'
/** The registry plugin's configuration (the service's `Config`). */
export type Config = SkillService.Config
export type { SkillOverrideRule, SkillOverridesOptions, SkillRegistrationOptions, SkillScopeResolver } from './registry'

export default SkillService
