// @deepseek-ai/dsh-skill-native — ESM entry: the same objects as the CommonJS entry.
import cjs from './index.js'

export const { SkillRegistry, isSkillName, isModelInvocable, isUserInvocable } = cjs
export default cjs
