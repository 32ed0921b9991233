// @deepseek-ai/dsh-skill-native/harness/search-tool — ESM entry: the plugin module
// (`import * as SkillSearchTool from '…/harness/search-tool'`, then
// `ctx.plugin(SkillSearchTool, config)`), the very objects of the CommonJS module.
import { createRequire } from 'node:module'

const cjs = createRequire(import.meta.url)('./lib/harness-search-tool.js')

export const name = cjs.name
export const inject = cjs.inject
export const Config = cjs.Config
export const apply = cjs.apply
export const toolName = cjs.toolName
export default cjs.default
