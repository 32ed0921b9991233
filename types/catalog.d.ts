import type { SkillResourceBase } from './skill'
// Model-facing skill catalog: entries, digest, messages, step planning, history
// scan and the `skill` tool result (implementation: `lib/catalog.js`).

/**
 * The summary fields the catalog reads. Every `SkillSummary` fits; only `name`,
 * `description`, `invocation.modelInvocable` and `source` are read, and only
 * the first three reach the text: paths, sources, providers and `whenToUse`
 * never appear in the catalog.
 */
export interface CatalogSkill {
  /** Kebab-case skill name (anything else throws). */
  readonly name: string
  /** Routing description; normalised, cut and escaped in the entry. */
  readonly description: string
  /** Only `modelInvocable` is read; model-disabled skills are left out. */
  readonly invocation: { readonly modelInvocable: boolean }
  /**
   * Source label (`project-dsh`, `runtime`, ...): names the skill's group in
   * {@link CatalogReport.bySource} and, for an array the registry did not
   * return, stands for its rank under a budget (see {@link CatalogOptions.budget}).
   * Absent: counted under `''`, ranked with the unknown labels.
   */
  readonly source?: string | undefined
}

/** A catalog observation (`ctx.skills.snapshot()`). */
export interface CatalogSnapshot {
  /** Summaries of the observation. */
  readonly skills: readonly CatalogSkill[]
  /** Whether discovery completed; an incomplete snapshot publishes nothing. */
  readonly complete: boolean
}

/**
 * How the catalog entries are laid out. Every option at its default gives the
 * catalog of the TypeScript plugin, byte for byte (same digest).
 */
export interface CatalogOptions {
  /** Description limit in UTF-16 code units; integer >= 3, default 500. */
  readonly maxLength?: number | undefined
  /**
   * Most UTF-16 code units (JS `.length`) the entries block may take (the
   * joined entry lines, without the message prose); a positive integer, default
   * none. When every entry fits, nothing changes. Otherwise, each step only when
   * the previous one cannot fit: unpinned descriptions are cut to one common
   * length, the largest that fits (descriptions no longer than it stay whole, so
   * the longest are cut first; `...` as usual; never below 40 units); then
   * unpinned entries become name-only (`` - `NAME` ``), lowest priority first;
   * then unpinned entries are left out, lowest priority first, and a last line
   * says how many skills are not listed and to load one by its exact name with
   * the `skill` tool.
   *
   * Priority decides who goes through these steps first: the skills come in
   * groups, pinned skills first (in `pinned` order), then the others by rank,
   * one group per rank, the lowest (nearest) first; the lowest-priority group
   * goes through the steps first, and a group's descriptions are only cut once
   * every group below it is left out (within a group, the end of the alphabet
   * gives way first; pinned skills, the last pinned first). Ranks: an array
   * the registry returned (`snapshot().skills`, `list()`) knows each winner's
   * rank; any other array ranks by `source` label: `project-dsh`,
   * `project-agents`, `project-claude`, `runtime`, `custom`, `user-dsh`,
   * `user-agents`, `user-claude`, `user-codex`, `bundled`, then any other
   * label (all of them one rank). Entries stay in name order. If not even the
   * last line fits, it is the whole block (the catalog never looks empty when
   * skills exist; `report.chars` then exceeds the budget).
   */
  readonly budget?: number | undefined
  /**
   * Skill names, or globs where `*` stands for any run of characters (the rule
   * of the registry's override names), that keep their full description under
   * a `budget`, highest priority first; the skills one glob matches come by
   * rank, then name. Pins that match nothing in the catalog (unknown,
   * model-disabled, not kebab-case) are ignored; without a `budget` the list
   * has no effect.
   */
  readonly pinned?: readonly string[] | undefined
}

/** How each model-invocable skill appears in the entries block. */
export interface CatalogReport {
  /** Model-invocable skills in the catalog: `full + shortened + nameOnly + omitted`. */
  readonly total: number
  /** Entries shown exactly as without a budget (`maxLength` still applies). */
  readonly full: number
  /** Entries whose description the budget cut shorter. */
  readonly shortened: number
  /** Entries shown by name only. */
  readonly nameOnly: number
  /** Skills left out (counted by the last line of the entries). */
  readonly omitted: number
  /** Length of the entries block in UTF-16 code units (`entries.length`). */
  readonly chars: number
  /**
   * The same counts per source label (a skill without `source` under `''`),
   * the nearest source first (by the lowest rank among its skills, then by
   * label). The record's own keys are exactly the labels.
   */
  readonly bySource: Readonly<Record<string, SourceCounts>>
}

/** How the model-invocable skills of one source appear in the entries block. */
export interface SourceCounts {
  /** Skills of this source: `full + shortened + nameOnly + omitted`. */
  readonly total: number
  /** Entries shown exactly as without a budget. */
  readonly full: number
  /** Entries whose description the budget cut shorter. */
  readonly shortened: number
  /** Entries shown by name only. */
  readonly nameOnly: number
  /** Skills left out. */
  readonly omitted: number
}

/** Joined entries, their digest and how each skill appears. */
export interface RenderedCatalog {
  /** `renderCatalogEntries(skills, options)`. */
  readonly entries: string
  /** `catalogDigest(skills, options)`. */
  readonly digest: string
  /** How each skill appears in `entries` (a budget cut something when `full < total`). */
  readonly report: CatalogReport
}

/** Input of {@link planCatalogStep}; the layout options shape the entries as in {@link renderCatalog}. */
export interface CatalogStepInput extends CatalogOptions {
  /** The model-visible snapshot for this step. */
  readonly snapshot: CatalogSnapshot
  /** Digest of the newest catalog message still visible to the model, if any. */
  readonly visibleDigest?: string | undefined
  /** Whether any catalog was ever published in the session (a visible one implies it). */
  readonly published: boolean
}

/** What to publish before the next model step. */
export type CatalogStep =
  | { readonly kind: 'none' }
  | {
      /** `initial` when nothing was published before, else `replacement` (the empty one is the tombstone). */
      readonly kind: 'initial' | 'replacement'
      /** Message text to inject as a persistent user message. */
      readonly text: string
      /** Digest of the entries in `text`. */
      readonly digest: string
      /** How each skill appears in the entries of `text`. */
      readonly report: CatalogReport
    }

/** Accessors {@link scanCatalogHistory} uses on each session event. */
export interface CatalogHistoryAccessors<E> {
  /**
   * The message text when `event` is a catalog message published by the caller;
   * `undefined` for every other event.
   */
  readonly catalogText: (event: E, index: number) => string | undefined
  /** Whether the model still sees `event` (tool visibility, compaction). */
  readonly isVisible: (event: E, index: number) => boolean
}

/** Result of {@link scanCatalogHistory}; spreads into {@link CatalogStepInput}. */
export interface CatalogHistory {
  /** Digest of the newest visible catalog; absent when none is visible. */
  readonly visibleDigest?: string
  /** Whether any recognisable catalog message exists in the history. */
  readonly published: boolean
}

/** Provider-specific base for resolving a loaded skill's relative resources. */
export type SkillContentResourceBase = SkillResourceBase

/** Input of {@link renderSkillContent}: the fields of a loaded `SkillDefinition` it uses. */
export interface SkillContentInput {
  /** Skill name (escaped for the attribute). */
  readonly name: string
  /** Provider that owns the skill (named in the hint when there is no resource base). */
  readonly provider: string
  /** Resource base; absent means resources are provider-managed. */
  readonly resourceBase?: SkillContentResourceBase | undefined
  /** Instruction body, included as is. */
  readonly content: string
}

/** Default description limit (`catalogDescriptionMaxLength`): 500. */
export declare const DEFAULT_CATALOG_MAX_LENGTH: 500

/**
 * Joined catalog entries of the model-invocable skills sorted by name:
 * `` - `NAME`: DESCRIPTION `` lines joined with `\n`. DESCRIPTION has every run of
 * JS whitespace collapsed to one space, is trimmed, cut to `maxLength` UTF-16 code
 * units (`...` replacing the last 3), then `& < >` are escaped. A `budget`
 * shortens, reduces or leaves out entries (see {@link CatalogOptions.budget}).
 *
 * `options` may be the `maxLength` number alone. An array the registry returned
 * (`snapshot().skills`, `list()`) whose summaries still hold the `name`,
 * `description` and `invocation.modelInvocable` it returned is rendered from the
 * registry's native catalog (nothing is copied across); any other array is read.
 *
 * Where a cut splits a surrogate pair, JavaScript would hold a lone high
 * surrogate; the returned string holds U+FFFD there (and for lone surrogates in
 * the input), which is exactly what `createHash().update()` hashes.
 * @throws TypeError/RangeError for malformed skills, names that are not kebab-case,
 *   `maxLength` that is not an integer >= 3, `budget` that is not a positive
 *   integer, or `pinned` that is not an array of strings.
 */
export declare function renderCatalogEntries(skills: readonly CatalogSkill[], options?: number | CatalogOptions): string

/** Lowercase hex SHA-256 of the UTF-8 of {@link renderCatalogEntries} (equal to Node's `createHash`). */
export declare function catalogDigest(skills: readonly CatalogSkill[], options?: number | CatalogOptions): string

/** {@link renderCatalogEntries}, {@link catalogDigest} and the {@link CatalogReport} in one native call. */
export declare function renderCatalog(skills: readonly CatalogSkill[], options?: number | CatalogOptions): RenderedCatalog

/**
 * Digest recovered from a stored catalog message: the text between
 * `<available_skills>\n` and `</available_skills>`, one trailing newline dropped.
 * `undefined` when the text holds no complete block.
 */
export declare function catalogContentDigest(messageText: string): string | undefined

/** The initial catalog message: a `<system-reminder>` holding the `<available_skills>` block. */
export declare function renderCatalogMessage(skills: readonly CatalogSkill[], options?: number | CatalogOptions): string

/** The replacement catalog message; with no model-invocable skills, the empty tombstone. */
export declare function renderCatalogUpdate(skills: readonly CatalogSkill[], options?: number | CatalogOptions): string

/**
 * Decides the catalog message for the next model step: incomplete → none; same
 * digest as `visibleDigest` → none; never published and nothing to list → none;
 * never published → initial; else replacement (changed, or hidden by compaction).
 */
export declare function planCatalogStep(input: CatalogStepInput): CatalogStep

/**
 * Walks `events` newest-first by index (not copied, stops at the first hit) and
 * returns the digest of the newest catalog message still visible, plus whether
 * any catalog was ever published. Only the visible catalog found is hashed.
 */
export declare function scanCatalogHistory<E>(
  events: ArrayLike<E>,
  accessors: CatalogHistoryAccessors<E>,
): CatalogHistory

/**
 * The `skill` tool result: `<skill_content name="...">`, `<skill_resources>` with
 * a hint for the resource base kind, and `<skill_instructions>` with the body.
 */
export declare function renderSkillContent(input: SkillContentInput): string
