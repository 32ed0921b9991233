// @deepseek-ai/dsh-skill-native/harness/tool-skill — the `skill` tool plugin module,
// a drop-in for the harness's `@deepseek-ai/dsh-tool-skill` (release 0.1.1-rc.2), on
// the harness's framework copy, typed for `@deepseek-ai/cordis`.
import type { Context } from '@deepseek-ai/cordis'
import type Schema from '@deepseek-ai/schemastery'
// `ctx.skills` and `skills/change` on the Context.
import './harness'

import type { SkillCatalogSource, StructuredCatalogEntry } from './catalog'

/**
 * The durable source of a full catalog message (the first one, or a
 * replacement with `update: true`): exactly the entries it published, in
 * catalog order. The release's shape.
 */
export type { SkillCatalogSource }

/** One published catalog entry: the name and the description as the catalog shows it (not escaped). */
export type SkillCatalogEntry = StructuredCatalogEntry

/**
 * The durable source of a delta message (`updates: 'delta'`): what changed
 * since the catalog whose digest is `base`. It has no `entries`, so readers
 * of full catalogs (the release's plugin) pass it over.
 */
export interface SkillCatalogDeltaSource {
  readonly kind: 'skill-catalog'
  readonly form: 'catalog'
  readonly update: true
  readonly delta: {
    /** Digest of the catalog the changes apply to (sha256 hex of its entries as JSON `[name, description]` lines). */
    readonly base: string
    /** Digest of the catalog after them. */
    readonly digest: string
    /** Skills new to the catalog. */
    readonly added: readonly SkillCatalogEntry[]
    /** Skills whose entry changed, with the new entry. */
    readonly changed: readonly SkillCatalogEntry[]
    /** Names of the skills no longer in the catalog. */
    readonly removed: readonly string[]
  }
}

declare module '@deepseek-ai/dsh-llm' {
  interface MessageSourceMap {
    'skill-catalog': SkillCatalogSource | SkillCatalogDeltaSource
  }
}

/** The plugin's options; with every one at its default the catalog is the release's, byte for byte in entries and digests. */
export interface Config {
  /** Longest description in the catalog, in UTF-16 code units: integer >= 3, default 500. */
  catalogDescriptionMaxLength?: number
  /** `'replace'` (default): a full catalog after every change, as the release; `'delta'`: only what changed. */
  updates?: 'replace' | 'delta'
  /** Most UTF-16 code units the entries may take (positive integer; default: no budget). See docs/catalog-budget.md. */
  budget?: number
  /** Skill names, or globs with `*`, that keep their full description under a budget, highest priority first. */
  pinned?: string[]
  /** Under a budget, `'used'` puts the skills this view loaded right after the pins (default `'rank'`). */
  prefer?: 'rank' | 'used'
  /** The name of a search tool the agent has (`'skill_search'`): a budgeted catalog says to use it for the skills it leaves out. */
  searchTool?: string
  /** Warn once per agent and size class when a catalog without a budget is over this many characters (default 32000); `false`: never. */
  floodWarning?: number | false
}

/** The plugin name. */
export declare const name: 'tool-skill'
/** Services the plugin needs: the harness's `agents` and `tools`, and `skills`. */
export declare const inject: string[]
/** The config schema (schemastery) with its defaults. */
export declare const Config: Schema<Config, Config>
/**
 * Registers the model-facing `skill` tool (with `defineTool` of
 * `@deepseek-ai/dsh-tools`), injects the skills a user invokes with `/name`,
 * and publishes the session's skill catalog at each agent step, for agents
 * that resolve this very tool. Throws on invalid options.
 */
export declare function apply(ctx: Context, config?: Config): void

/** The plugin module as one object (`ctx.plugin(toolSkill, config)` with the default import). */
declare const ToolSkill: {
  readonly name: 'tool-skill'
  readonly inject: string[]
  readonly Config: Schema<Config, Config>
  apply(ctx: Context, config?: Config): void
}
export default ToolSkill
