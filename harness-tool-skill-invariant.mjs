// @deepseek-ai/dsh-skill-native/harness/tool-skill/invariant — ESM entry, the
// very objects of the CommonJS module.
import { createRequire } from 'node:module'

const cjs = createRequire(import.meta.url)('./lib/harness-tool-skill-invariant.js')

export const name = cjs.name
export const inject = cjs.inject
export const apply = cjs.apply
export default cjs.default
