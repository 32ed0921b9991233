import type {
  SkillCandidate,
  SkillDefinition,
  SkillLookupOptions,
  SkillProviderControl,
  SkillProviderObservation,
  SkillSource,
} from './skill'

/**
 * A path resolved by a {@link SkillFileSystem}: opaque to the provider, passed
 * back unchanged to `stat`, `listDir` and `readText`.
 */
export interface SkillFsTarget {
  /** Human-readable path. */
  readonly displayPath: string
}

/** What `stat` found (links followed). */
export interface SkillFsStat {
  readonly type: 'file' | 'directory' | 'other'
  /** Opaque freshness token (not used by the provider). */
  readonly version?: unknown
  /** Size in bytes, when known. */
  readonly size?: number
}

/** One entry of a `listDir` result (links followed). */
export interface SkillFsEntry<Target extends SkillFsTarget = SkillFsTarget> {
  /** File name (not a path). */
  readonly name: string
  readonly type: 'file' | 'directory' | 'other'
  /** The entry, ready for `readText` / `stat`. */
  readonly target: Target
}

/**
 * The subset of the harness's filesystem service the `local` provider reads
 * through (a remote or sandboxed workspace). Every skill file is `resolve`d
 * and `stat`ed before it is read, in discovery as in `get()`: `undefined` from
 * `stat` means absent, a type other than `file` is skipped. Errors carry a
 * string `code`: `FS_NOT_FOUND`, `FS_NOT_DIRECTORY` and the raw Node codes
 * `ENOENT`, `ENOTDIR` mean absence (an empty root, a skill that is gone);
 * `FS_NOT_TEXT` means not a text file (that skill is skipped with a warning);
 * any other failure makes the observation incomplete.
 */
export interface SkillFileSystem<Target extends SkillFsTarget = SkillFsTarget> {
  /** Resolve a path to a target. */
  resolve(path: string): Promise<Target>
  /** What `target` is; `undefined` when absent. */
  stat(target: Target, signal?: AbortSignal): Promise<SkillFsStat | undefined>
  /** The entries of a directory (one level). */
  listDir(target: Target): Promise<ReadonlyArray<SkillFsEntry<Target>>>
  /** The text of a file. */
  readText(target: Target, signal?: AbortSignal): Promise<string>
}

/**
 * A compatibility root set: `'claude'` adds `<project>/.claude/skills` (rank
 * 225, source `project-claude`) and `<os.homedir()>/.claude/skills` (550,
 * `user-claude`); `'codex'` adds `$CODEX_HOME/skills`, else
 * `<os.homedir()>/.codex/skills` (575, `user-codex`).
 */
export type LocalCompatRoot = 'claude' | 'codex'

/** Configuration of the `local` skill provider. Every field is optional. */
export interface LocalSkillProviderConfig {
  /**
   * The provider's name in the registry and every candidate's `provider`
   * (default `'local'`; not empty, not `'runtime'`). Several local providers
   * can serve one registry under different names.
   */
  readonly providerName?: string
  /**
   * Scan the default roots (default `true`): the project's `.dsh/skills` and
   * `.agents/skills` and the user roots (`dshHome`, `agentsHome`), and the
   * bundled root from `$DSH_BUNDLED_SKILL_DIR`. With `false` only
   * `customSkillDirs`, an explicit `bundledSkillDir` and `compatRoots` are
   * scanned; `dshHome` and `agentsHome` are then unused (not an error), and
   * `nestedRoots` is rejected as a contradiction.
   */
  readonly includeDefaultRoots?: boolean
  /**
   * Monorepos (default `false`): besides the project root's, the `.dsh/skills`
   * and `.agents/skills` of every directory from `cwd` up to the project root
   * are project roots (sources `project-dsh` / `project-agents`), nearest
   * first: `k` levels below the project root they rank `100 / 2^k` and
   * `150 / 2^k` (50 and 75, then 25 and 37.5, ...), so a package's skills
   * outrank the repository's and every project root outranks runtime skills (250).
   */
  readonly nestedRoots?: boolean
  /**
   * Compatibility roots to scan too (default none), with the same frontmatter
   * rules; see {@link LocalCompatRoot}. Homes are read from `os.homedir()` and
   * `process.env.CODEX_HOME` when the provider is created.
   */
  readonly compatRoots?: readonly LocalCompatRoot[]
  /**
   * DSH home; its `skills` child is the `user-dsh` root (rank 400). Default
   * `process.env.DSH_HOME`, else `<os.homedir()>/.dsh`, read when the provider is created.
   */
  readonly dshHome?: string
  /**
   * Agents home; its `skills` child is the `user-agents` root (rank 500). Default
   * `process.env.DSH_AGENTS_HOME`, else `<os.homedir()>/.agents`, read when the provider is created.
   */
  readonly agentsHome?: string
  /** Extra skill roots (rank 300, source `custom`), in order. */
  readonly customSkillDirs?: readonly string[]
  /** Bundled skill root (rank 600, source `bundled`). Default `process.env.DSH_BUNDLED_SKILL_DIR`, else none. */
  readonly bundledSkillDir?: string
  /** Skill files larger than this many bytes are skipped with a warning (positive integer, default 1 MiB). */
  readonly maxSkillFileBytes?: number
  /** Watch skill roots and invalidate the catalog on changes (default `true`). */
  readonly watch?: boolean
  /** Poll instead of using native filesystem events (default `false`). */
  readonly watchUsePolling?: boolean
  /** Quiet period before a written file counts, in ms (positive integer, default 200). */
  readonly watchStabilityThresholdMs?: number
  /** Polling interval in ms (positive integer, default 100). */
  readonly watchPollIntervalMs?: number
  /** Project roots watched at once, least recently observed evicted first (positive integer, default 128). */
  readonly watchMaxProjects?: number
  /** Follow symbolic links when watching (default `true`). */
  readonly watchFollowSymlinks?: boolean
  /**
   * Receives one line per skipped skill file or discovery failure, once per
   * distinct problem (default: `ctx.logger.warn` in the plugin form, else `console.warn`).
   */
  readonly logger?: { warn(message: string): void }
  /**
   * The host's filesystem service (default: `ctx.get('fs')` in the plugin form).
   * When given, the `.git` probe, root listings and skill reads (`list`, `get`,
   * `diagnose`) go through it instead of the host disk; the bundled root is
   * still read natively, and watchers keep watching host paths. Without it,
   * discovery runs natively with no JS calls.
   */
  readonly fs?: SkillFileSystem
}

/**
 * What the plugin form `new LocalSkillProvider(ctx, control, config)` uses of
 * the Cordis context: `ctx.logger.warn(message)` for warnings and
 * `ctx.get('fs')` for the harness filesystem service.
 */
export interface LocalSkillProviderContext {
  readonly logger?: { warn(message: string): void }
  get?(name: string): unknown
}

/** One root considered by `diagnose()`. */
export interface LocalRootDiagnosis {
  /** Root directory. */
  readonly path: string
  /** Source label of skills found there. */
  readonly source: SkillSource
  /** Rank of skills found there (lower wins). */
  readonly rank: number
  /**
   * `scanned`, `missing` (an empty root: absent, or a file where a directory
   * should be), `error` (discovery incomplete) or `unusable` (the path cannot
   * be used at all: too long, or a NUL byte; the root is left out and
   * discovery stays complete).
   */
  readonly status: 'scanned' | 'missing' | 'error' | 'unusable'
  /**
   * Why listing failed (statuses `error` and `unusable`), or what stands at
   * a `missing` root's path when it is not a directory.
   */
  readonly reason?: string
}

/** The skill that won a name, as named in a `shadowed` record. */
export interface LocalShadowingWinner {
  /** Skill name. */
  readonly name: string
  /** Source of the winner. */
  readonly source: SkillSource
  /** Rank of the winner. */
  readonly rank: number
  /** Skill file of the winner. */
  readonly path: string
}

/** One file (or root entry) considered by `diagnose()`. */
export interface LocalFileDiagnosis {
  /** Skill file (`<bundle>/SKILL.md` for bundles) or the skipped entry. */
  readonly path: string
  /** Source label of its root. */
  readonly source: SkillSource
  /** Rank of its root. */
  readonly rank: number
  /** Layout, when known (a broken link has none). */
  readonly layout?: 'bundle' | 'flat'
  /** Parsed skill name, when the file parsed. */
  readonly name?: string
  /**
   * `loaded`: this file provides the skill; `shadowed`: an earlier file of this
   * provider has the same name (see `shadowedBy`); `skipped`: not a usable skill
   * (see `reason`).
   */
  readonly outcome: 'loaded' | 'shadowed' | 'skipped'
  /** Human-readable explanation (set for `shadowed` and `skipped`). */
  readonly reason?: string
  /** The winner of the name (outcome `shadowed`). Another provider may still outrank it in the registry. */
  readonly shadowedBy?: LocalShadowingWinner
  /**
   * Outcome `shadowed`: `true` when this file is the same skill as its winner
   * (byte-identical skill files; for bundles, the same resources by listing and
   * size, not read), `false` when the two differ.
   */
  readonly same?: boolean
}

/** Everything the local provider considered for one lookup (what a `doctor` command prints). */
export interface LocalDiagnosis {
  /** The lookup's `cwd`, if any. */
  readonly cwd?: string
  /**
   * Project root derived from `cwd` (nearest ancestor holding `.git`, else `cwd`);
   * absent without a `cwd` or when the configuration has no project roots.
   */
  readonly projectRoot?: string
  /** Whether discovery was authoritative. */
  readonly complete: boolean
  /** Roots in rank order. */
  readonly roots: readonly LocalRootDiagnosis[]
  /** Files in discovery order. */
  readonly files: readonly LocalFileDiagnosis[]
  /** The warnings `list()` would log. */
  readonly warnings: readonly string[]
}

/**
 * The `local` skill provider: project (nested ones too, with `nestedRoots`),
 * custom, user, compatibility and bundled skill roots on disk. Discovery and loading run natively off the JS thread.
 */
export declare class LocalSkillProvider {
  /**
   * A standalone provider (register it with `registry.registerProvider(() => provider)`,
   * or use `registry.registerLocalProvider(config)`).
   * @throws TypeError for a field of the wrong type; Error for a non-positive-integer
   *   tunable, an empty path, an unknown `compatRoots` entry, an empty or reserved
   *   `providerName`, or `nestedRoots` with `includeDefaultRoots: false`.
   */
  constructor(config?: LocalSkillProviderConfig)
  /**
   * The TypeScript packages' form, inside a provider factory:
   * `ctx.skills.registerProvider((control) => new LocalSkillProvider(ctx, control, config))`.
   * Changes go through `control.invalidate`, warnings through `ctx.logger.warn`,
   * I/O through `ctx.get('fs')` when loaded, and the provider disposes itself
   * when `control.signal` aborts.
   */
  constructor(ctx: LocalSkillProviderContext, control: SkillProviderControl, config?: LocalSkillProviderConfig)
  /** `config.providerName`, default `'local'`. */
  readonly name: string
  /**
   * Discover candidates for `options.cwd` (no project roots without one). Skipped files
   * are logged; an unexpected I/O failure yields `complete: false` with the readable
   * skills still listed. Rejects with `options.signal.reason` when aborted.
   */
  list(options?: SkillLookupOptions): Promise<SkillProviderObservation>
  /**
   * Re-read and re-parse the file behind a candidate this provider listed (a
   * cached parse is used only when the file provably did not change).
   * Resolves to `undefined` when the file is gone or no longer a valid skill;
   * rejects on unexpected I/O failures, for a path that is not a skill file of
   * a configured root (`<root>/<name>.md` or `<root>/<dir>/SKILL.md`, `..`
   * resolved; project roots of `options.cwd` or of a recent lookup), and with
   * `options.signal.reason` when aborted.
   */
  get(candidate: SkillCandidate, options?: SkillLookupOptions): Promise<SkillDefinition | undefined>
  /** One record per root and per file considered for `options.cwd`. */
  diagnose(options?: SkillLookupOptions): Promise<LocalDiagnosis>
  /**
   * A first-party write or edit touched `path`: when it is a skill entry
   * (`<root>/<name>.md` or `<root>/<dir>/SKILL.md`) of a configured root or of
   * a project root a recent lookup used, the catalog is invalidated
   * synchronously and listeners are notified once, watching or not. A root,
   * its ancestors, other files of a root, files inside a bundle and `.system`
   * under the user DSH root invalidate nothing. Returns whether it
   * invalidated (`false` when not registered).
   */
  observeHostMutation(path: string): boolean
  /**
   * Unregister from the registry (when registered) and close the watchers.
   * `list`/`get`/`diagnose` keep working afterwards, unwatched; calls pending
   * at disposal complete normally, except that one still waiting on the
   * filesystem service (`config.fs`) a second later is released with an
   * error. Idempotent; never rejects.
   */
  dispose(): Promise<void>
}
