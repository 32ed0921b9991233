/** Origin bucket for a skill contribution. The value is prompt-visible metadata, not precedence by itself. */
export type SkillSource =
  | 'project-dsh'
  | 'project-agents'
  | 'runtime'
  | 'user-dsh'
  | 'user-agents'
  | 'custom'
  | 'bundled'
  | 'project-claude'
  | 'user-claude'
  | 'user-codex'
  | (string & {})

/** Invocation controls shared by skill discovery consumers. */
export interface SkillInvocationPolicy {
  /** Whether model-facing catalogs and loaders include this skill. */
  readonly modelInvocable: boolean
  /** Whether human-facing command catalogs and loaders include this skill. */
  readonly userInvocable: boolean
}

/** Optional provider-specific base used by loaded skill bodies to resolve relative resources. */
export type SkillResourceBase =
  | { readonly kind: 'directory'; readonly path: string }
  | { readonly kind: 'url'; readonly url: string }
  | { readonly kind: 'opaque'; readonly description: string }

/** Invocation-neutral skill metadata returned by `ctx.skills.list()`. */
export interface SkillSummary {
  /** Kebab-case identifier used to address the skill. */
  readonly name: string
  /** Short routing description shown by discovery consumers. */
  readonly description: string
  /** Optional extra routing guidance. */
  readonly whenToUse?: string
  /** Resolved model and user invocation controls. */
  readonly invocation: SkillInvocationPolicy
  /** Discovery source that produced this winning skill. */
  readonly source: SkillSource
  /** Provider that owns this skill body. */
  readonly provider: string
  /** Provider-specific base for relative resources. */
  readonly resourceBase?: SkillResourceBase
}

/** Provider catalog entry used by the registry to merge and later load skills. */
export interface SkillCandidate extends SkillSummary {
  /** Lower ranks win duplicate skill names before provider registration order is considered. */
  readonly rank: number
  /** Opaque provider-owned handle passed back to `provider.get()`. */
  readonly locator: unknown
  /** Absolute file path when the provider has one. */
  readonly path?: string
  /** Parsed optional metadata object from provider-specific skill frontmatter. */
  readonly metadata?: Readonly<Record<string, unknown>>
}

/** Complete parsed skill definition, including the body loaded by `ctx.skills.get()`. */
export interface SkillDefinition extends SkillSummary {
  /** Markdown instruction body after any provider-specific metadata removal. */
  readonly content: string
  /** Absolute file path when the skill came from disk. */
  readonly path?: string
  /** Parsed optional metadata object from frontmatter. */
  readonly metadata?: Readonly<Record<string, unknown>>
}

/** Runtime skill contribution accepted by `ctx.skills.register()`. */
export type SkillRegistration = Omit<SkillDefinition, 'invocation' | 'provider'> & {
  /** Invocation controls; omission permits both model and user surfaces. */
  readonly invocation?: SkillInvocationPolicy
  /** Provider label; omission uses the registry-owned runtime provider. */
  readonly provider?: string
}

/** Caller context used for cwd-sensitive and abortable provider work. */
export interface SkillLookupOptions {
  /** Workspace selector for the current lookup. */
  readonly cwd?: string | undefined
  /** Abort discovery or loading work for the current caller. */
  readonly signal?: AbortSignal | undefined
}

/**
 * An opaque scope key (an agent preset's, say), as `@deepseek-ai/dsh-scope`
 * hands them out: any object or function. Registrations filed under it land
 * in its layer; reads with it see the layers of its chain.
 */
export type SkillScopeKey = object

/** Lookup options of a registry read: `SkillLookupOptions` plus the caller's scope. */
export interface SkillViewOptions extends SkillLookupOptions {
  /**
   * The caller's scope: the view merges the layers of its chain, nearest
   * first, over the global layer (the nearest layer holding a name wins it).
   * Absent: the global layer alone.
   */
  readonly scope?: SkillScopeKey | undefined
}

/**
 * An embedding function of the host (an embedding API): the vectors of
 * `texts`, one `Float32Array` per text, all of one length; `id` names the
 * model (skill vectors are cached per id: change it when the model changes).
 */
export interface SkillEmbedFunction {
  (texts: string[], options: { signal?: AbortSignal }): Promise<ArrayLike<number>[]>
  readonly id: string
}

/**
 * What fuses meaning with words in `search()`: the package's local
 * all-MiniLM-L6-v2 (`'local'`: the model folder in
 * `$DSH_SKILL_EMBED_MODEL`; `{ model }`: that folder), or a host embedding
 * function (`SkillEmbedFunction`, or `{ id, embed }`). See docs/search.md.
 */
export type SkillEmbedder =
  | 'local'
  | { readonly model: string }
  | SkillEmbedFunction
  | { readonly id: string; embed(texts: string[], options: { signal?: AbortSignal }): Promise<ArrayLike<number>[]> }

/** Options of `search()`: the view, as for `snapshot()`, and how many results. */
export interface SkillSearchOptions extends SkillViewOptions {
  /** Most skills returned (a positive integer); default 10. */
  readonly limit?: number | undefined
  /** Fuse meaning with words with this embedder, in place of the registry's own `embedder`. */
  readonly embedder?: SkillEmbedder | undefined
}

/** What `prepareSearch()` returns. */
export interface SkillSearchPrepared {
  /** How many skill texts were embedded now (0 when every one was cached). */
  readonly embedded: number
  /** Whether an embedder is configured and usable (else search uses words alone). */
  readonly available: boolean
}

/** One search result: the skill's summary (as `snapshot()` hands it out) and its score. */
export type SkillSearchHit = SkillSummary & {
  /** Relevance, higher first (comparable within one result only). */
  score: number
}

/** What `search()` returns. */
export interface SkillSearchResults {
  /**
   * At most `limit` model-invocable skills of the view, best first: a skill
   * named exactly by the query first, then by score, ties by rank, then name.
   */
  readonly skills: SkillSearchHit[]
  /** How many model-invocable skills matched (before `limit`). */
  readonly total: number
  /** Whether discovery was complete (as `snapshot().complete`). */
  readonly complete: boolean
  /**
   * When nothing matched: the query with its unknown words replaced by the
   * closest words of the catalog, when there are any.
   */
  readonly suggestion?: string
}

/** One catalog observation plus whether discovery completed within a stable catalog revision. */
export interface SkillCatalogSnapshot {
  /** Sorted invocation-neutral summaries collected in this observation. */
  readonly skills: SkillSummary[]
  /** Whether every registered provider completed without a concurrent catalog revision. */
  readonly complete: boolean
}

/** Provider candidates plus whether the current discovery is authoritative. */
export interface SkillProviderObservation {
  /** Candidates available from the current provider discovery. */
  readonly candidates: readonly SkillCandidate[]
  /** Whether discovery completed and these candidates may be cached. */
  readonly complete: boolean
}

/** Provider interface for one source of skills, such as local directories or a remote registry. */
export interface SkillProvider {
  /** Unique provider name in the `ctx.skills` registry. */
  readonly name: string
  /**
   * List available skill candidates for the current lookup context. Provider
   * plugins register synchronously; remote initialization, authentication, and
   * discovery are awaited inside this method. Implementations should settle
   * promptly when `options.signal` aborts.
   * @param options - lookup options; `cwd` selects workspace-sensitive skills and `signal` cancels work.
   * @returns provider candidates as a complete-array shorthand, or an explicit
   *   observation when usable candidates came from incomplete discovery.
   */
  readonly list: (options: SkillLookupOptions) => Promise<readonly SkillCandidate[] | SkillProviderObservation>
  /**
   * Load a complete skill body for a previously listed candidate.
   * @param candidate - the winning candidate originally returned by this provider.
   * @param options - lookup options; `cwd` selects workspace-sensitive skills and `signal` cancels work.
   * @returns the full skill body, or `undefined` if it is no longer loadable.
   */
  readonly get: (candidate: SkillCandidate, options: SkillLookupOptions) => Promise<SkillDefinition | undefined>
}

/** Registration-scoped lifecycle and invalidation capability borrowed by one provider. */
export interface SkillProviderControl {
  /** Aborts if registration fails or when the exact provider registration is disposed. */
  readonly signal: AbortSignal
  /**
   * Invalidate completed catalogs and notify consumers only while the exact
   * registration remains active. The catalogs are dropped and consumers
   * notified once on every call, synchronously; calls made from inside the
   * provider's own `list()` while it runs are told of once, on the next turn
   * of the event loop (see `SkillRegistry.onChange`).
   */
  readonly invalidate: () => void
}
