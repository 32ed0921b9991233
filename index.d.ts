// @deepseek-ai/dsh-skill-native — public typings.
export type {
  SkillSource,
  SkillResourceBase,
  SkillInvocationPolicy,
  SkillSummary,
  SkillCandidate,
  SkillDefinition,
  SkillRegistration,
  SkillLookupOptions,
  SkillCatalogSnapshot,
  SkillProviderObservation,
  SkillProvider,
  SkillProviderControl,
} from './types/skill'
export type {
  Config,
  SkillRegistryConfig,
  SkillLogger,
  SkillProviderFactory,
  SkillChangeListener,
  SkillOverrideEffect,
  SkillOverrideRule,
  SkillExplainedCandidate,
  SkillExplainedLoser,
  SkillExplanation,
} from './types/registry'
export { SkillRegistry, isSkillName, isModelInvocable, isUserInvocable } from './types/registry'
export type {
  CatalogSkill,
  CatalogSnapshot,
  CatalogOptions,
  CatalogReport,
  SourceCounts,
  RenderedCatalog,
  CatalogStepInput,
  CatalogStep,
  CatalogHistoryAccessors,
  CatalogHistory,
  SkillContentResourceBase,
  SkillContentInput,
} from './types/catalog'
export {
  DEFAULT_CATALOG_MAX_LENGTH,
  renderCatalogEntries,
  catalogDigest,
  renderCatalog,
  catalogContentDigest,
  renderCatalogMessage,
  renderCatalogUpdate,
  planCatalogStep,
  scanCatalogHistory,
  renderSkillContent,
} from './types/catalog'
export type {
  LocalCompatRoot,
  LocalSkillProviderConfig,
  LocalSkillProviderContext,
  LocalRootDiagnosis,
  LocalShadowingWinner,
  LocalFileDiagnosis,
  LocalDiagnosis,
  SkillFileSystem,
  SkillFsTarget,
  SkillFsStat,
  SkillFsEntry,
} from './types/local'
export { LocalSkillProvider } from './types/local'
