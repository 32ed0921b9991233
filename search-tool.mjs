// @deepseek-ai/dsh-skill-native/search-tool — ESM entry: the plugin module
// (`import * as SkillSearchTool from '…/search-tool'`, then
// `ctx.plugin(SkillSearchTool, config)`), the very objects of the CommonJS module.
import { createRequire } from 'node:module'

const cjs = createRequire(import.meta.url)('./lib/search-tool.js')

export const name = cjs.name
export const inject = cjs.inject
export const Config = cjs.Config
export const apply = cjs.apply
export const toolName = cjs.toolName
export default cjs.default
