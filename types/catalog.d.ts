import type { SkillResourceBase } from './skill'
// Model-facing skill catalog: entries, digest, messages, step planning, history
// scan and the `skill` tool result (implementation: `lib/catalog.js`).

/**
 * The summary fields the catalog reads. Every `SkillSummary` fits; only `name`,
 * `description` and `invocation.modelInvocable` are read, so paths, sources,
 * providers and `whenToUse` never reach the catalog.
 */
export interface CatalogSkill {
  /** Kebab-case skill name (anything else throws). */
  readonly name: string
  /** Routing description; normalised, cut and escaped in the entry. */
  readonly description: string
  /** Only `modelInvocable` is read; model-disabled skills are left out. */
  readonly invocation: { readonly modelInvocable: boolean }
}

/** A catalog observation (`ctx.skills.snapshot()`). */
export interface CatalogSnapshot {
  /** Summaries of the observation. */
  readonly skills: readonly CatalogSkill[]
  /** Whether discovery completed; an incomplete snapshot publishes nothing. */
  readonly complete: boolean
}

/** Joined entries and their digest. */
export interface RenderedCatalog {
  /** `renderCatalogEntries(skills, maxLength)`. */
  readonly entries: string
  /** `catalogDigest(skills, maxLength)`. */
  readonly digest: string
}

/** Input of {@link planCatalogStep}. */
export interface CatalogStepInput {
  /** The model-visible snapshot for this step. */
  readonly snapshot: CatalogSnapshot
  /** Digest of the newest catalog message still visible to the model, if any. */
  readonly visibleDigest?: string | undefined
  /** Whether any catalog was ever published in the session (a visible one implies it). */
  readonly published: boolean
  /** Description limit in UTF-16 code units; integer >= 3, default 500. */
  readonly maxLength?: number | undefined
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
 * units (`...` replacing the last 3), then `& < >` are escaped.
 *
 * Where a cut splits a surrogate pair, JavaScript would hold a lone high
 * surrogate; the returned string holds U+FFFD there (and for lone surrogates in
 * the input), which is exactly what `createHash().update()` hashes.
 * @throws TypeError/RangeError for malformed skills, names that are not kebab-case,
 *   or `maxLength` that is not an integer >= 3.
 */
export declare function renderCatalogEntries(skills: readonly CatalogSkill[], maxLength?: number): string

/** Lowercase hex SHA-256 of the UTF-8 of {@link renderCatalogEntries} (equal to Node's `createHash`). */
export declare function catalogDigest(skills: readonly CatalogSkill[], maxLength?: number): string

/** {@link renderCatalogEntries} and {@link catalogDigest} in one native call. */
export declare function renderCatalog(skills: readonly CatalogSkill[], maxLength?: number): RenderedCatalog

/**
 * Digest recovered from a stored catalog message: the text between
 * `<available_skills>\n` and `</available_skills>`, one trailing newline dropped.
 * `undefined` when the text holds no complete block.
 */
export declare function catalogContentDigest(messageText: string): string | undefined

/** The initial catalog message: a `<system-reminder>` holding the `<available_skills>` block. */
export declare function renderCatalogMessage(skills: readonly CatalogSkill[], maxLength?: number): string

/** The replacement catalog message; with no model-invocable skills, the empty tombstone. */
export declare function renderCatalogUpdate(skills: readonly CatalogSkill[], maxLength?: number): string

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
