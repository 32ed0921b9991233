// The names each entry of this package must export, in one place: the export
// lists of the harness packages it stands in for. A parity test holds every
// entry's runtime exports (names and kinds) and its `.d.ts` (names, kinds, the
// `ctx.skills` augmentation) against these lists, so a name missing from an
// entry fails CI instead of failing a harness at its first skill load.
//
// Release 0.1.1-rc.2 (SPEC-HEAD §A): `@deepseek-ai/dsh-skill` and
// `@deepseek-ai/dsh-skill-filesystem`. The earlier release (SPEC.md, the
// interfaces of seeds/004): `@deepseek-ai/dsh-skill` with its `SkillService`
// and `@deepseek-ai/dsh-skill-local` with `SkillLocal` / `LocalSkillProvider`.

/** How a value export must look at run time. */
export type ValueKind = 'class' | 'function' | 'number' | 'string' | 'string[]' | 'schema' | 'plugin'

/** One package's public names: values (with their kind) and types. */
export interface ExportList {
  /** Values by export name (`default` included where the package has one). */
  readonly values: Readonly<Record<string, ValueKind>>
  /** Type-only exports (interfaces and aliases). */
  readonly types: readonly string[]
  /** Exports that must be the very same object (`[a, b]`: `a === b`). */
  readonly same?: readonly (readonly [string, string])[]
  /** Classes whose static `Config` must be a Schemastery schema. */
  readonly configured?: readonly string[]
  /** Whether the entry augments the framework's `Context` with `skills` and `skills/change`. */
  readonly augments?: boolean
  /**
   * TypeScript statements (in a module that imports the entry as `entry` and
   * its listed types) that hold only when the typings accept what the
   * harness package's own signatures accept.
   */
  readonly signatures?: readonly string[]
}

/** The value and type names of `@deepseek-ai/dsh-skill` at release 0.1.1-rc.2. */
export const RELEASE_REGISTRY: ExportList = {
  values: {
    default: 'class',
    SkillRegistry: 'class',
    BUNDLED_SKILL_RANK: 'number',
    isSkillName: 'function',
    isModelInvocable: 'function',
    isUserInvocable: 'function',
    renderSkillContent: 'function',
    escapeText: 'function',
  },
  types: [
    'SkillSource',
    'SkillResourceBase',
    'SkillInvocationPolicy',
    'SkillSummary',
    'SkillCandidate',
    'SkillDefinition',
    'SkillRegistration',
    'SkillLookupOptions',
    'SkillViewOptions',
    'SkillInvocationSource',
    'SkillCatalogSnapshot',
    'SkillProviderObservation',
    'SkillProvider',
    'SkillProviderControl',
    'Config',
  ],
  same: [['default', 'SkillRegistry']],
  configured: ['SkillRegistry'],
  augments: true,
  signatures: [
    'export const isSkillNameSig: (name: string) => boolean = entry.isSkillName',
    "export const isModelInvocableSig: (skill: Pick<SkillSummary, 'invocation'>) => boolean = entry.isModelInvocable",
    "export const isUserInvocableSig: (skill: Pick<SkillSummary, 'invocation'>) => boolean = entry.isUserInvocable",
    "export const renderSig: (skill: Pick<SkillDefinition, 'name' | 'provider' | 'resourceBase' | 'content'>) => string = entry.renderSkillContent",
    'export const escapeSig: (value: string) => string = entry.escapeText',
    'export const provider: SkillProvider = {',
    "  name: 'remote',",
    '  list: async (options: SkillLookupOptions): Promise<readonly SkillCandidate[] | SkillProviderObservation> => (options.cwd === undefined ? [] : { candidates: [], complete: false }),',
    '  get: async (candidate: SkillCandidate, options: SkillLookupOptions): Promise<SkillDefinition | undefined> => (options.signal?.aborted ? undefined : { ...candidate, content: "" }),',
    '}',
    "export const registration: SkillRegistration = { name: 'inline', description: 'Inline.', content: '', source: 'runtime' }",
    "export const view: SkillViewOptions = { cwd: '/', signal: new AbortController().signal, scope: {} }",
    "export const invocation: SkillInvocationSource = { kind: 'skill-invocation', name: 'inline', form: 'instructions' }",
    'export const base: SkillResourceBase[] = [{ kind: "directory", path: "/" }, { kind: "url", url: "https://example.com/" }, { kind: "opaque", description: "remote" }]',
    'export async function uses(registry: InstanceType<typeof entry.SkillRegistry>, control: SkillProviderControl): Promise<void> {',
    '  const dispose: () => void = registry.registerProvider((c: SkillProviderControl) => (void c.signal, void c.invalidate, provider))',
    '  const snapshot: SkillCatalogSnapshot = await registry.snapshot(view)',
    '  const summaries: SkillSummary[] = await registry.list(view)',
    "  const definition: SkillDefinition | undefined = await registry.get('inline', view)",
    '  const policy: SkillInvocationPolicy | undefined = summaries[0]?.invocation',
    "  const source: SkillSource | undefined = definition?.source",
    '  void [dispose, snapshot, policy, source, control, registry.register(registration)]',
    '}',
    'export const config: Config = { collectCacheMaxEntries: 8 }',
  ],
}

/** `@deepseek-ai/dsh-skill-filesystem` at release 0.1.1-rc.2: a plugin module. */
export const RELEASE_FILESYSTEM: ExportList = {
  values: {
    name: 'string',
    inject: 'string[]',
    Config: 'schema',
    apply: 'function',
    FileSystemSkillProvider: 'class',
  },
  types: ['Config'],
}

/** `@deepseek-ai/dsh-tool-skill` at release 0.1.1-rc.2: a plugin module. */
export const RELEASE_TOOL_SKILL: ExportList = {
  values: {
    name: 'string',
    inject: 'string[]',
    Config: 'schema',
    apply: 'function',
  },
  types: ['Config', 'SkillCatalogSource'],
  signatures: [
    'export const config: Config = { catalogDescriptionMaxLength: 200 }',
    "export const source: SkillCatalogSource = { kind: 'skill-catalog', form: 'catalog', update: true, entries: [{ name: 'a-b', description: 'A.' }] }",
    'export const applySig: (ctx: Context, config?: Config) => void = entry.apply',
  ],
}

/** `@deepseek-ai/dsh-tool-skill/invariant` at release 0.1.1-rc.2: the invariant companion. */
export const RELEASE_TOOL_SKILL_INVARIANT: ExportList = {
  values: {
    name: 'string',
    inject: 'string[]',
    apply: 'function',
  },
  types: [],
  signatures: ['export const applySig: (ctx: Context) => Promise<() => void> = entry.apply'],
}

/** The earlier release's registry package (`SkillService`), as the `…/cordis` entry serves it. */
export const EARLIER_REGISTRY: ExportList = {
  values: {
    default: 'class',
    SkillService: 'class',
    isSkillName: 'function',
    isModelInvocable: 'function',
    isUserInvocable: 'function',
  },
  types: [
    'SkillSource',
    'SkillResourceBase',
    'SkillInvocationPolicy',
    'SkillSummary',
    'SkillCandidate',
    'SkillDefinition',
    'SkillRegistration',
    'SkillLookupOptions',
    'SkillCatalogSnapshot',
    'SkillProviderObservation',
    'SkillProvider',
    'SkillProviderControl',
    'Config',
  ],
  same: [['default', 'SkillService']],
  configured: ['SkillService'],
  augments: true,
}

/** The earlier release's local provider plugin (`SkillLocal`), served by `…/cordis` too. */
export const EARLIER_LOCAL_PLUGIN: ExportList = {
  values: { SkillLocal: 'plugin' },
  types: [],
}

/** The plain (framework-free) root entry: the earlier packages' classes and helpers. */
export const ROOT: ExportList = {
  values: {
    SkillRegistry: 'class',
    LocalSkillProvider: 'class',
    isSkillName: 'function',
    isModelInvocable: 'function',
    isUserInvocable: 'function',
    renderSkillContent: 'function',
    escapeText: 'function',
    BUNDLED_SKILL_RANK: 'number',
  },
  types: EARLIER_REGISTRY.types.concat(['SkillViewOptions', 'SkillInvocationSource']),
}

/** Two lists as one (an entry that serves both). */
export function union(...lists: ExportList[]): ExportList {
  return {
    values: Object.assign({}, ...lists.map((list) => list.values)),
    types: [...new Set(lists.flatMap((list) => list.types))],
    same: lists.flatMap((list) => list.same ?? []),
    configured: lists.flatMap((list) => list.configured ?? []),
    augments: lists.some((list) => list.augments === true),
    signatures: lists.flatMap((list) => list.signatures ?? []),
  }
}

/** Each entry of the package with the lists it must satisfy. */
export const ENTRIES = {
  '@deepseek-ai/dsh-skill-native': ROOT,
  '@deepseek-ai/dsh-skill-native/cordis': union(EARLIER_REGISTRY, EARLIER_LOCAL_PLUGIN, RELEASE_REGISTRY),
  '@deepseek-ai/dsh-skill-native/filesystem': RELEASE_FILESYSTEM,
  '@deepseek-ai/dsh-skill-native/harness': union(EARLIER_REGISTRY, EARLIER_LOCAL_PLUGIN, RELEASE_REGISTRY),
  '@deepseek-ai/dsh-skill-native/harness/filesystem': RELEASE_FILESYSTEM,
  '@deepseek-ai/dsh-skill-native/harness/tool-skill': RELEASE_TOOL_SKILL,
  '@deepseek-ai/dsh-skill-native/harness/tool-skill/invariant': RELEASE_TOOL_SKILL_INVARIANT,
} as const satisfies Record<string, ExportList>

export type EntryName = keyof typeof ENTRIES

/**
 * A script for `node` (ES module) that imports `entry` (ESM, and CommonJS
 * with `require`) and prints one JSON line: each export's kind, as
 * {@link ValueKind} names it, for both module systems, plus the identity and
 * schema checks of `list`.
 */
export function runtimeProbe(entry: string, list: ExportList): string {
  return `
import { createRequire } from 'node:module'
const kindOf = (value) => {
  if (typeof value === 'function') {
    if (typeof value.toJSON === 'function' && typeof value.type === 'string') return 'schema'
    return /^class[\\s{]/.test(Function.prototype.toString.call(value)) ? 'class' : 'function'
  }
  if (Array.isArray(value)) return value.every((v) => typeof v === 'string') ? 'string[]' : 'array'
  if (value !== null && typeof value === 'object') {
    return typeof value.apply === 'function' && typeof value.name === 'string' ? 'plugin' : 'object'
  }
  return typeof value
}
const describe = (mod) => {
  const kinds = {}
  for (const key of Object.keys(mod)) if (key !== '__esModule') kinds[key] = kindOf(mod[key])
  const same = ${JSON.stringify(list.same ?? [])}.map(([a, b]) => mod[a] !== undefined && mod[a] === mod[b])
  const configured = ${JSON.stringify(list.configured ?? [])}.map((name) => kindOf(mod[name]?.Config) === 'schema')
  return { kinds, same, configured }
}
const esm = await import(${JSON.stringify(entry)})
const cjs = createRequire(import.meta.url)(${JSON.stringify(entry)})
console.log(JSON.stringify({ esm: describe(esm), cjs: describe({ default: cjs.default ?? cjs, ...cjs }) }))
`
}

/**
 * A TypeScript module that imports every name of `list` from `entry` and
 * checks each value's kind (a class is constructible, a function callable, a
 * constant of its type) and, for a registry entry, that `framework`'s
 * `Context` has `skills` and the `skills/change` event.
 */
export function typeProbe(entry: string, list: ExportList, framework: string): string {
  const values = Object.entries(list.values).filter(([name]) => name !== 'default')
  const lines = [
    `import type { Context } from ${JSON.stringify(framework)}`,
    `import * as entry from ${JSON.stringify(entry)}`,
    `import type { ${list.types.join(', ')} } from ${JSON.stringify(entry)}`,
    `export type Types = [${list.types.join(', ')}]`,
  ]
  const check: Record<ValueKind, string> = {
    class: 'abstract new (...args: never[]) => unknown',
    function: '(...args: never[]) => unknown',
    number: 'number',
    string: 'string',
    'string[]': 'readonly string[]',
    schema: '(...args: never[]) => unknown',
    plugin: '{ readonly name: string, apply(...args: never[]): unknown }',
  }
  for (const [name, kind] of values) lines.push(`export const ${name}_: ${check[kind]} = entry.${name}`)
  if (list.values.default !== undefined) lines.push(`export const default_: ${check[list.values.default]} = entry.default`)
  for (const name of list.configured ?? []) {
    lines.push(`export const ${name}Config_: (...args: never[]) => unknown = entry.${name}.Config`)
  }
  if (list.augments) {
    lines.push(
      'export function augments(ctx: Context): void {',
      '  const skills: { snapshot(options?: object): Promise<{ complete: boolean }> } = ctx.skills',
      "  ctx.on('skills/change', () => {})",
      '  void skills',
      '}',
    )
  }
  lines.push(...(list.signatures ?? []))
  return lines.join('\n') + '\n'
}
