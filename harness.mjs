// @deepseek-ai/dsh-skill-native/harness — ESM entry: the very objects of the
// CommonJS module (one `SkillService` class whichever way it is loaded).
import { createRequire } from 'node:module'

const cjs = createRequire(import.meta.url)('./lib/harness.js')

export const SkillService = cjs.SkillService
export const SkillRegistry = cjs.SkillRegistry
export const SkillLocal = cjs.SkillLocal
export const BUNDLED_SKILL_RANK = cjs.BUNDLED_SKILL_RANK
export const escapeText = cjs.escapeText
export const renderSkillContent = cjs.renderSkillContent
export const isSkillName = cjs.isSkillName
export const isModelInvocable = cjs.isModelInvocable
export const isUserInvocable = cjs.isUserInvocable
export const framework = cjs.framework
export default SkillService
