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
} from './types/registry'
export { SkillRegistry, isSkillName, isModelInvocable, isUserInvocable } from './types/registry'
