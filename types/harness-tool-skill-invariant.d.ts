// @deepseek-ai/dsh-skill-native/harness/tool-skill/invariant — the invariant companion
// of the `skill` tool plugin, as `@deepseek-ai/dsh-tool-skill/invariant`.
import type { Context } from '@deepseek-ai/cordis'

/** The companion plugin's name. */
export declare const name: 'tool-skill-invariant'
/** Services it needs (`invariants`). */
export declare const inject: string[]
/** Registers the package `@deepseek-ai/dsh-tool-skill` with `ctx.invariants` (no runtime check); resolves to its disposer. */
export declare const apply: (ctx: Context) => Promise<() => void>

/** The companion as one object. */
declare const ToolSkillInvariant: {
  readonly name: 'tool-skill-invariant'
  readonly inject: string[]
  apply(ctx: Context): Promise<() => void>
}
export default ToolSkillInvariant
