// @deepseek-ai/dsh-skill-native — ESM entry: the same objects as the CommonJS entry.
import cjs from './index.js'

export const {
  SkillRegistry,
  isSkillName,
  isModelInvocable,
  isUserInvocable,
  LocalSkillProvider,
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
  catalogBudgetWarning,
  escapeText,
  BUNDLED_SKILL_RANK,
  structuredCatalog,
  structuredCatalogDigest,
  readSkillCatalogSource,
  renderStructuredCatalog,
  planStructuredCatalogStep,
  scanSkillGestures,
  collectSkillInvocations,
} = cjs
export default cjs
