import type { SkillResourceBase, SkillViewOptions } from './skill'
import type { SkillInvocationSource } from './content'
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
   * none. When every entry fits, nothing changes. Otherwise the pinned skills
   * (then the `prefer: 'used'` ones) keep their full descriptions, and the
   * **sources** share the rest fairly: a source is the folder the skills were
   * found in (each root of the local provider, for an array the registry
   * returned), else the `source` label. A source whose entries in full take no
   * more than an equal share of what is left stays whole, smallest first; the
   * room it does not need goes to the others, which fit into equal shares (the
   * farthest first, what one leaves going to the nearer ones). Within its
   * share a source takes these steps, each only when the one before cannot
   * fit: its descriptions are cut to one common length, the largest that fits
   * (never below 40 units; `...` as usual); then its entries become name-only
   * (`` - `NAME` ``), the end of the alphabet first (without a `searchTool`,
   * or when that lists every skill of the source); then entries are left out,
   * the end of the alphabet first, and a last line says how many skills are
   * not listed (with a `searchTool`, how to find one; without, that the
   * `skill` tool loads a skill only by its exact name, which the list does not
   * show). Only when every source is left out do the skills of
   * `prefer: 'used'` take the same steps, and after them the pinned skills,
   * the last pinned first. Nearness (rank: an array the registry
   * returned knows each winner's; any other array ranks by `source` label,
   * `project-dsh` first, `bundled` and unknown labels last) orders the
   * sources. Entries stay in name order. If not even the last line fits, it
   * is the whole block (the catalog never looks empty when skills exist;
   * `report.chars` then exceeds the budget). See docs/catalog-budget.md.
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
  /**
   * The name of a search tool the harness mounts (e.g. `'skill_search'`,
   * the tool of `…/harness/search-tool`): when a `budget` leaves skills out,
   * the last line says how to find one with that tool before loading it with
   * the `skill` tool. 1 to 64 ASCII letters, digits, `_`, `-` or `.`.
   * Default none: the last line of a harness without a search tool; without a
   * `budget` it has no effect.
   */
  readonly searchTool?: string | undefined
  /**
   * `'used'`: right after the pinned skills come, as one group, the skills
   * the registry loaded (`get()`, so `skill` tool loads and `/name`
   * gestures) in the same view (cwd and scope), the most used first, each
   * load weighing half as much a day later. Only for an array the registry
   * returned (any other array has no usage: as `'rank'`). The order is read
   * once per view and kept until the view's skills or descriptions change:
   * loading a skill never changes the catalog by itself. Default `'rank'`
   * (pins, then rank); without a `budget` it has no effect.
   */
  readonly prefer?: 'rank' | 'used' | undefined
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
 * The warning to log when a budgeted catalog left skills out and names no
 * `searchTool`: the model never saw their names, so they are reachable only
 * through a search tool (the text names `…/harness/search-tool` and its tool
 * `skill_search`). Undefined when nothing was left out, or `options.searchTool`
 * is set. A plugin that renders a budgeted catalog logs it
 * (`ctx.logger.warn`); `dsh-skills catalog --budget` prints it on stderr.
 * @param report the catalog's report (`renderCatalog`, `planCatalogStep`)
 * @param options the catalog options the report was made with
 * @throws TypeError when `report` is not a catalog report
 */
export declare function catalogBudgetWarning(
  report: Pick<CatalogReport, 'total' | 'omitted'>,
  options?: Pick<CatalogOptions, 'searchTool'>,
): string | undefined

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

// ---------------------------------------------------------------------------
// Structured catalogs (implementation: `lib/catalog-structured.js`)
// ---------------------------------------------------------------------------

/**
 * One published catalog entry: a skill name and its description normalised
 * and cut exactly as in the text (whitespace runs collapsed, trimmed, cut to
 * `maxLength` UTF-16 code units with `...`), **not** XML-escaped. A cut that
 * splits a surrogate pair leaves the lone high surrogate, as JS `slice` does.
 * Under a budget: a shortened description as shown, `''` for a name-only entry.
 */
export interface StructuredCatalogEntry {
  readonly name: string
  readonly description: string
}

/**
 * The message source recorded next to a catalog message's text: the harness's
 * `skill-catalog` source. `update: true` marks a replacement (the tombstone
 * included); the initial catalog has no `update`.
 */
export interface SkillCatalogSource {
  readonly kind: 'skill-catalog'
  readonly form: 'catalog'
  readonly update?: true
  readonly entries: readonly StructuredCatalogEntry[]
}

/** Structured entries, their digest and how each skill appears. */
export interface StructuredCatalog {
  /** The published pairs, sorted by name (frozen). */
  readonly entries: readonly StructuredCatalogEntry[]
  /** {@link structuredCatalogDigest} of `entries`. */
  readonly digest: string
  /** As {@link renderCatalog} reports it. */
  readonly report: CatalogReport
}

/**
 * Input of {@link planStructuredCatalogStep}; the layout options shape the
 * entries as in {@link renderCatalog}.
 */
export interface StructuredCatalogStepInput<M = unknown> extends CatalogOptions {
  /** The model-visible snapshot for this step. */
  readonly snapshot: CatalogSnapshot
  /**
   * The messages the model sees, oldest first. The newest one whose source is
   * a readable `skill-catalog` source is the baseline; unreadable or foreign
   * sources are skipped.
   */
  readonly history: ArrayLike<M>
  /**
   * Messages already proposed in this step, oldest first: the newest readable
   * catalog source among them is deduplicated or replaced instead of adding a
   * second catalog.
   */
  readonly pending?: ArrayLike<M> | undefined
  /** The source record of a message (default: `message.source`); a throw counts as unreadable. */
  readonly sourceOf?: ((message: M, index: number) => unknown) | undefined
  /**
   * Whether a catalog was published before even when `history` holds none
   * (compacted away): the next one is then a replacement. Default `false`.
   */
  readonly published?: boolean | undefined
}

/** What to do before the next model step. */
export type StructuredCatalogStep =
  /** Nothing to add (the view is current, or the catalog this step queued is). */
  | { readonly kind: 'none' }
  /** Remove `pending[index]`, a queued catalog: the history is current again. */
  | { readonly kind: 'withdraw'; readonly index: number }
  | {
      /** `initial` when nothing was published before, else `replacement` (the empty one is the tombstone). */
      readonly kind: 'initial' | 'replacement'
      /** The published pairs (frozen; the same array as `source.entries`). */
      readonly entries: readonly StructuredCatalogEntry[]
      /** Digest of `entries`. */
      readonly digest: string
      /** Message text: what {@link planCatalogStep} gives for the same skills and options. */
      readonly text: string
      /** The message source to record with `text` (frozen: store it as is). */
      readonly source: SkillCatalogSource
      /** How each skill appears in the entries. */
      readonly report: CatalogReport
      /** Present when this message takes the place of the catalog queued at `pending[replaces]`. */
      readonly replaces?: number
    }

/** Options of {@link renderStructuredCatalog}. */
export interface StructuredCatalogRenderOptions {
  /** The replacement message (the tombstone when there are no entries) instead of the initial one. */
  readonly update?: boolean | undefined
  /** Description limit; integer >= 3, default 500. */
  readonly maxLength?: number | undefined
}

/**
 * Structured entries of the model-invocable skills (sorted by name, described
 * as in the text, not escaped), their digest and the report. Same options and
 * checks as {@link renderCatalog}; the entries of an array the registry
 * returned are read from the registry's native catalog unless a description is
 * not well-formed UTF-16.
 */
export declare function structuredCatalog(skills: readonly CatalogSkill[], options?: number | CatalogOptions): StructuredCatalog

/**
 * Digest of structured entries: lowercase hex SHA-256 of the UTF-8 of every
 * entry written as `JSON.stringify([name, description])`, joined with `\n`
 * (the empty list: the digest of `''`).
 * @throws TypeError when `entries` is not an array of `{ name: string, description: string }`.
 */
export declare function structuredCatalogDigest(entries: readonly StructuredCatalogEntry[]): string

/**
 * The readable `skill-catalog` source `value` holds, as a fresh frozen copy,
 * or `undefined` (another kind or form, entries that are not an array of
 * `{ name: string, description: string }`, fields that throw when read).
 */
export declare function readSkillCatalogSource(value: unknown): SkillCatalogSource | undefined

/**
 * The catalog message for structured entries: the text {@link renderCatalogMessage}
 * (or, with `update`, {@link renderCatalogUpdate}) gives for the same skills.
 * Descriptions are escaped here, never in the entries.
 */
export declare function renderStructuredCatalog(
  entries: readonly StructuredCatalogEntry[],
  options?: StructuredCatalogRenderOptions,
): string

/**
 * Decides the catalog before a model step from the structured sources of the
 * history: incomplete snapshot → none; the baseline (newest readable catalog
 * source in `history`) has the same digest → none (and a queued catalog is
 * withdrawn); nothing published and no skills → none; never published →
 * initial; otherwise → replacement. A catalog already queued in `pending` with
 * the same digest is kept (none); a different one is replaced (`replaces`).
 */
export declare function planStructuredCatalogStep<M = unknown>(input: StructuredCatalogStepInput<M>): StructuredCatalogStep

// ---------------------------------------------------------------------------
// `/name` gestures (implementation: `lib/gestures.js`)
// ---------------------------------------------------------------------------

/**
 * The skill names of the `/name` gestures in a user's text: a token `/name` at
 * the start of the text or after whitespace (JS `\s`), followed by whitespace
 * or the end, `name` a kebab-case skill name; not paths (`a/b`, `/usr/bin`),
 * fractions (`1/2`) or `/name.` with punctuation glued on. First occurrence
 * order, each name once.
 */
export declare function scanSkillGestures(text: string): string[]

/** A text block of a user message in the common chat shape. */
export interface UserTextBlock {
  readonly type: 'text'
  readonly text: string
}

/** The message shape {@link collectSkillInvocations} reads by default. */
export interface UserChatMessage {
  readonly role: string
  readonly content: string | readonly (UserTextBlock | { readonly type: string })[]
}

/** The registry calls {@link collectSkillInvocations} makes (`ctx.skills` fits). */
export interface SkillInvocationLookup {
  list(options: SkillGestureLookupOptions): Promise<readonly { readonly name: string; readonly invocation: { readonly userInvocable: boolean } }[]>
  get(name: string, options: SkillGestureLookupOptions): Promise<SkillContentInput | undefined>
}

/** Options passed on to `list()` and `get()` (only the ones given): the registry's view options. */
export type SkillGestureLookupOptions = SkillViewOptions

/** Input of {@link collectSkillInvocations}. */
export interface SkillInvocationInput<M = UserChatMessage> extends SkillGestureLookupOptions {
  /** The registry (`ctx.skills`). */
  readonly skills: SkillInvocationLookup
  /** The messages to scan, oldest first. */
  readonly messages: ArrayLike<M>
  /**
   * The text blocks of a user-sourced message (`undefined` or `[]` for any
   * other). Default: `content` (a string, or its `{ type: 'text' }` blocks) of
   * messages with `role: 'user'`. A message whose reading throws (here or in
   * a getter of the message) is skipped as unreadable.
   */
  readonly textsOf?: ((message: M, index: number) => readonly string[] | undefined) | undefined
}

/** A skill a user invoked, ready to inject. */
export interface SkillInvocation {
  readonly name: string
  /**
   * The loaded skill's content block in the layout of release 0.1.1-rc.2 (one
   * blank line before `<skill_instructions>`; the `renderSkillContent` of the
   * Cordis entries), not the main entry's earlier layout.
   */
  readonly text: string
  /** The message source to record with `text` (the harness's `SkillInvocationSource`). */
  readonly source: SkillInvocationSource
}

/**
 * The skills a user invoked with `/name` in `messages`: only the text blocks
 * of user-sourced messages are scanned (an unreadable one is skipped),
 * repeated gestures count once, names that are not user-invocable skills in
 * `list({ cwd, signal, scope })` stay prose, and each recognised skill is
 * loaded with `get(name, { cwd, signal, scope })` (skipped when it is gone by
 * then) and rendered with {@link renderSkillContent}. In gesture order.
 */
export declare function collectSkillInvocations<M = UserChatMessage>(input: SkillInvocationInput<M>): Promise<SkillInvocation[]>
