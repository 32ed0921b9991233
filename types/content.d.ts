// What the harness's `skill` tool and `/name` invocations need besides the
// registry (release 0.1.1-rc.2 exports these from its registry package).
import type { SkillContentInput } from './catalog'

/** The rank of the `bundled` source (600): a provider of deployment-shipped skills ranks its candidates with it. */
export declare const BUNDLED_SKILL_RANK: 600

/** `text` with `&`, `<` and `>` escaped as `&amp;`, `&lt;`, `&gt;`, for text embedded in the skill markup. */
export declare function escapeText(text: string): string

/**
 * One `<skill_content name="…">` block for a loaded skill, used both as the
 * `skill` tool's result and for a user's `/name` invocation, in the layout of
 * harness release 0.1.1-rc.2: the opening tag with the escaped name, a
 * `<skill_resources>` block with the resource guidance, one blank line, then
 * `<skill_instructions>` with the body as is, and the closing tags. (The main
 * entry's `renderSkillContent` keeps the earlier layout, without the blank line.)
 */
export declare function renderSkillContent(definition: SkillContentInput): string

/**
 * The message source of a skill injected for a user's `/name` invocation
 * (the harness records it next to the message text).
 */
export interface SkillInvocationSource {
  readonly kind: 'skill-invocation'
  /** The skill's name. */
  readonly name: string
  /** What was injected: the skill's instructions. */
  readonly form: 'instructions'
}
