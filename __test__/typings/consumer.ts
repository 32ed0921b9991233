// Compiled with `tsc --noEmit` by __test__/typings.test.ts: uses every public type.
import {
  SkillRegistry,
  isModelInvocable,
  isSkillName,
  isUserInvocable,
  type Config,
  type SkillCandidate,
  type SkillCatalogSnapshot,
  type SkillDefinition,
  type SkillInvocationPolicy,
  type SkillLookupOptions,
  type SkillProvider,
  type SkillProviderControl,
  type SkillProviderObservation,
  type SkillRegistration,
  type SkillRegistryConfig,
  type SkillResourceBase,
  type SkillSource,
  type SkillSummary,
  type SkillOverrideEffect,
  type SkillOverrideRule,
  type SkillExplainedCandidate,
  type SkillExplainedLoser,
  type SkillExplanation,
  DEFAULT_CATALOG_MAX_LENGTH,
  catalogContentDigest,
  catalogDigest,
  planCatalogStep,
  renderCatalog,
  renderCatalogEntries,
  renderCatalogMessage,
  renderCatalogUpdate,
  renderSkillContent,
  scanCatalogHistory,
  type CatalogHistory,
  type CatalogHistoryAccessors,
  type CatalogOptions,
  type CatalogReport,
  type CatalogSkill,
  type CatalogSnapshot,
  type CatalogStep,
  type CatalogStepInput,
  type RenderedCatalog,
  type SkillContentInput,
  type SkillContentResourceBase,
  type SourceCounts,
  structuredCatalog,
  structuredCatalogDigest,
  readSkillCatalogSource,
  renderStructuredCatalog,
  planStructuredCatalogStep,
  scanSkillGestures,
  collectSkillInvocations,
  type StructuredCatalog,
  type StructuredCatalogEntry,
  type SkillCatalogSource,
  type StructuredCatalogStep,
  type StructuredCatalogStepInput,
  type StructuredCatalogRenderOptions,
  type UserChatMessage,
  type UserTextBlock,
  type SkillInvocationLookup,
  type SkillGestureLookupOptions,
  type SkillInvocationInput,
  type SkillInvocation,
  LocalSkillProvider,
  type LocalCompatRoot,
  type LocalDiagnosis,
  type LocalSkillProviderConfig,
  type SkillFileSystem,
  type SkillFsTarget,
  type SkillFsStat,
  type SkillFsEntry,
} from '../../index.js'

const policy: SkillInvocationPolicy = { modelInvocable: true, userInvocable: false }
const source: SkillSource = 'project-dsh'
const custom: SkillSource = 'my-remote-source'
const bases: SkillResourceBase[] = [
  { kind: 'directory', path: '/skills/x' },
  { kind: 'url', url: 'https://example.invalid/skills/x/' },
  { kind: 'opaque', description: 'managed by the remote registry' },
]
const effect: SkillOverrideEffect = 'user-only'
const rules: readonly SkillOverrideRule[] = [
  { name: 'deploy-*', effect: 'off' },
  { name: 'deploy-staging', source: 'project-dsh', provider: 'local', effect },
]
const config: Config = { collectCacheMaxEntries: 16, overrides: rules }
const registryConfig: SkillRegistryConfig = { ...config, logger: { warn: (message: string) => void message } }

const candidate: SkillCandidate = {
  name: 'remote-skill',
  description: 'A remote skill',
  invocation: policy,
  source: custom,
  provider: 'remote',
  rank: 700,
  locator: { id: 42 },
  resourceBase: bases[1],
  metadata: { owner: 'team' },
}

const provider: SkillProvider = {
  name: 'remote',
  async list(options: SkillLookupOptions): Promise<SkillProviderObservation> {
    options.signal?.throwIfAborted()
    return { candidates: [candidate], complete: true }
  },
  async get(c: SkillCandidate): Promise<SkillDefinition | undefined> {
    return { ...c, content: 'body' }
  },
}

const registry = new SkillRegistry(registryConfig)
const dispose: () => void = registry.registerProvider((control: SkillProviderControl) => {
  control.signal.addEventListener('abort', () => undefined)
  control.invalidate()
  return provider
})
const registration: SkillRegistration = { name: 'runtime-skill', description: 'd', content: 'c', source }
const unregister: () => void = registry.register(registration)
const off: () => void = registry.onChange(async () => undefined)
registry.invalidateProvider(provider)

async function use(): Promise<void> {
  const snapshot: SkillCatalogSnapshot = await registry.snapshot({ cwd: '/w' })
  const summaries: SkillSummary[] = await registry.list()
  const loaded: SkillDefinition | undefined = await registry.get('remote-skill', { cwd: '/w' })
  const flags: boolean[] = summaries.map((s) => isModelInvocable(s) && isUserInvocable(s))
  const named: boolean = isSkillName(snapshot.skills[0]?.name)
  registry.setOverrides([{ provider: 'remote', effect: 'on' }])
  const explanation: SkillExplanation | undefined = await registry.explain('remote-skill', { cwd: '/w' })
  const winner: SkillExplainedCandidate | undefined = explanation?.winner
  const losers: readonly SkillExplainedLoser[] = explanation?.losers ?? []
  const why: Array<'rank' | 'order' | 'off' | 'scope' | 'same'> = losers.map((loser) => loser.reason)
  const ruleIndex: number | undefined = winner?.override?.rule
  void [loaded, flags, named, explanation?.complete, why, ruleIndex, winner?.path, winner?.resourceBase]
}

async function renderer(): Promise<void> {
  const snapshot: CatalogSnapshot = await registry.snapshot({ cwd: '/w' })
  const skills: readonly CatalogSkill[] = snapshot.skills
  const max: number = DEFAULT_CATALOG_MAX_LENGTH
  const rendered: RenderedCatalog = renderCatalog(skills, max)
  const entries: string = renderCatalogEntries(skills)
  const digest: string = catalogDigest(skills, 200)
  const message: string = renderCatalogMessage(skills)
  const update: string = renderCatalogUpdate(skills)
  const recovered: string | undefined = catalogContentDigest(message)
  interface Event { readonly text?: string; readonly hidden?: boolean }
  const accessors: CatalogHistoryAccessors<Event> = {
    catalogText: (event) => event.text,
    isVisible: (event) => !event.hidden,
  }
  const history: CatalogHistory = scanCatalogHistory<Event>([{ text: update }], accessors)
  const input: CatalogStepInput = { snapshot, ...history }
  const step: CatalogStep = planCatalogStep(input)
  const options: CatalogOptions = { maxLength: 200, budget: 8000, pinned: ['code-review'] }
  const report: CatalogReport = renderCatalog(skills, options).report
  const cut: boolean = report.full < report.total
  const budgeted: CatalogStep = planCatalogStep({ ...input, ...options })
  const stepReport: CatalogReport | undefined = budgeted.kind === 'none' ? undefined : budgeted.report
  void [cut, stepReport, renderCatalogEntries(skills, options), catalogDigest(skills, { budget: 100 })]
  const base: SkillContentResourceBase = bases[0]
  const loaded = await registry.get('remote-skill')
  const content: SkillContentInput | undefined = loaded && { ...loaded, resourceBase: base }
  const text: string | undefined = content && renderSkillContent(content)
  void [rendered, entries, digest, recovered, step, text]
}

async function local(): Promise<void> {
  const localConfig: LocalSkillProviderConfig = { dshHome: '/tmp/x', customSkillDirs: ['/tmp/y'], watch: false }
  const provider: LocalSkillProvider = registry.registerLocalProvider(localConfig)
  const standalone = new LocalSkillProvider(localConfig)
  const report: LocalDiagnosis = await standalone.diagnose({ cwd: '/w' })
  const changed: boolean = provider.observeHostMutation('/w/.agents/skills/x/SKILL.md')
  await provider.dispose()
  await standalone.dispose()
  void [report, changed]
  interface HostTarget extends SkillFsTarget {
    readonly uri: string
  }
  const service: SkillFileSystem<HostTarget> = {
    resolve: async (p: string): Promise<HostTarget> => ({ displayPath: p, uri: `file://${p}` }),
    stat: async (_t: HostTarget, _signal?: AbortSignal): Promise<SkillFsStat | undefined> => ({ type: 'file' }),
    listDir: async (t: HostTarget): Promise<SkillFsEntry<HostTarget>[]> => [{ name: 'a.md', type: 'file', target: t }],
    readText: async (t: HostTarget, _signal?: AbortSignal): Promise<string> => t.uri,
  }
  const remote = registry.registerLocalProvider({ fs: service, watch: false })
  await remote.dispose()
  const compat: LocalCompatRoot[] = ['claude', 'codex']
  const mono = registry.registerLocalProvider({ providerName: 'mono', nestedRoots: true, compatRoots: compat })
  const onlyClaude = new LocalSkillProvider({ includeDefaultRoots: false, compatRoots: ['claude'] })
  const name: string = mono.name
  // @ts-expect-error only the known compatibility roots
  void new LocalSkillProvider({ compatRoots: ['cursor'] })
  await mono.dispose()
  await onlyClaude.dispose()
  void name
}

async function structured(): Promise<void> {
  const snapshot: CatalogSnapshot = await registry.snapshot({ cwd: '/w' })
  const built: StructuredCatalog = structuredCatalog(snapshot.skills, { budget: 8000, pinned: ['deploy-*'] })
  const entries: readonly StructuredCatalogEntry[] = built.entries
  const perSource: SourceCounts | undefined = built.report.bySource['project-dsh']
  const digest: string = structuredCatalogDigest(entries)
  const read: SkillCatalogSource | undefined = readSkillCatalogSource({ kind: 'skill-catalog', form: 'catalog', entries })
  const renderOptions: StructuredCatalogRenderOptions = { update: true }
  const text: string = renderStructuredCatalog(entries, renderOptions)
  interface Message { readonly source?: unknown }
  const input: StructuredCatalogStepInput<Message> = { snapshot, history: [{ source: read }], pending: [], published: false }
  const step: StructuredCatalogStep = planStructuredCatalogStep(input)
  if (step.kind === 'initial' || step.kind === 'replacement') {
    const source: SkillCatalogSource = step.source
    const replaces: number | undefined = step.replaces
    void [source, replaces, step.text, step.digest, step.report.bySource]
  } else if (step.kind === 'withdraw') {
    const index: number = step.index
    void index
  }
  const names: string[] = scanSkillGestures('/deploy now')
  const block: UserTextBlock = { type: 'text', text: '/deploy' }
  const message: UserChatMessage = { role: 'user', content: [block] }
  const lookup: SkillInvocationLookup = registry
  const options: SkillGestureLookupOptions = { cwd: '/w' }
  const invocationInput: SkillInvocationInput = { skills: lookup, messages: [message], ...options }
  const invoked: SkillInvocation[] = await collectSkillInvocations(invocationInput)
  const kinds: 'skill-invocation'[] = invoked.map((i) => i.source.kind)
  const custom = await collectSkillInvocations<string>({ skills: registry, messages: ['/deploy'], textsOf: (m) => [m] })
  void [digest, text, names, kinds, custom, perSource]
}

void [use, local, renderer, structured, dispose, unregister, off]
