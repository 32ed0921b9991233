// @deepseek-ai/dsh-skill-native/cordis — ESM entry: the very objects of the
// CommonJS module (one `SkillService` class whichever way it is loaded).
import { createRequire } from 'node:module'

const cjs = createRequire(import.meta.url)('./lib/cordis.js')

export const SkillService = cjs.SkillService
export const SkillLocal = cjs.SkillLocal
export default SkillService
