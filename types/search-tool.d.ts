// @deepseek-ai/dsh-skill-native/search-tool — the skill search tool as a
// Cordis plugin module (shaped like the harness's `skill` tool plugin), typed
// for npm `cordis` (`…/harness/search-tool` is the same, typed for `@deepseek-ai/cordis`).
import type { Context } from 'cordis'
import type Schema from 'schemastery'
// `ctx.skills` and `skills/change` on the Context.
import './cordis'
import type { SkillEmbedder } from './skill'

/** The plugin's options. */
export interface Config {
  /** Skills listed per search when the model does not say how many: 1 to 25, default 8. */
  limit?: number
  /** Description limit (UTF-16 code units) of each skill in an answer: integer >= 3, default 200. */
  descriptionMaxLength?: number
  /** Fuse meaning with words in this tool's searches (default: the skills service's own `embedder`). */
  embedder?: SkillEmbedder
}

/** The plugin name. */
export declare const name: 'skill-search-tool'
/** Services the plugin needs (`ctx.tools` of the harness, `ctx.skills`). */
export declare const inject: string[]
/** The config schema (schemastery) with its defaults. */
export declare const Config: Schema<Config, Config>
/** The name of the tool it registers: what a budgeted catalog's `searchTool` option names. */
export declare const toolName: 'skill_search'
/**
 * Registers the `skill_search` tool (parameters `query`, optional `limit`)
 * with `defineTool` of `@deepseek-ai/dsh-tools` through
 * `ctx.tools.register`. A call searches `ctx.skills` in the calling agent's
 * view (`{ cwd: exec.agent.session.header.cwd, signal: exec.signal, scope:
 * exec.agent }`) and answers with the names and cut descriptions of the best
 * matches. Rejects when `@deepseek-ai/dsh-tools` cannot be loaded.
 */
export declare function apply(ctx: Context, config?: Config): Promise<void>

/** The plugin module as one object (`ctx.plugin(SkillSearchTool, config)` with the default import). */
declare const SkillSearchTool: {
  readonly name: 'skill-search-tool'
  readonly inject: string[]
  readonly Config: Schema<Config, Config>
  readonly toolName: 'skill_search'
  apply(ctx: Context, config?: Config): Promise<void>
}
export default SkillSearchTool
