// @deepseek-ai/dsh-skill-native/harness/filesystem — the filesystem provider as a
// Cordis plugin module (release 0.1.1-rc.2's `skill-filesystem`) on the harness's
// framework copy, typed for `@deepseek-ai/cordis` (`…/filesystem` is the same, typed for npm `cordis`).
import type { Context } from '@deepseek-ai/cordis'
import type Schema from '@deepseek-ai/schemastery'
import type { FileSystemSkillProvider, SkillProviderPluginConfig } from './cordis-common'
// `ctx.skills` and `skills/change` on the Context.
import './harness'

/** Every provider option except `logger` and `fs` (`providerName` defaults to `'filesystem'`). */
export type Config = SkillProviderPluginConfig

/** The plugin name. */
export declare const name: 'skill-filesystem'
/** Services the plugin needs. */
export declare const inject: string[]
/** The config schema (schemastery): the provider options with their defaults. */
export declare const Config: Schema<Config, Config>
/**
 * Registers `new FileSystemSkillProvider(ctx, control, config)` through
 * `ctx.skills.registerProvider` (in the layer of `ctx`'s scope; it disposes
 * itself, closing its watchers, when the plugin is disposed) and turns
 * `fs/observed` writes and edits of skill entries into synchronous invalidations.
 */
export declare function apply(ctx: Context, config?: Config): void
export { FileSystemSkillProvider } from './cordis-common'

/** The plugin module as one object (`ctx.plugin(SkillFileSystem, config)` with the default import). */
declare const SkillFileSystem: {
  readonly name: 'skill-filesystem'
  readonly inject: string[]
  readonly Config: Schema<Config, Config>
  apply(ctx: Context, config?: Config): void
  readonly FileSystemSkillProvider: typeof FileSystemSkillProvider
}
export default SkillFileSystem
