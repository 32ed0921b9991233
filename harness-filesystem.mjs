// @deepseek-ai/dsh-skill-native/harness/filesystem — ESM entry: the plugin module
// (`import * as SkillFileSystem from '…/harness/filesystem'`, then
// `ctx.plugin(SkillFileSystem, config)`), the very objects of the CommonJS module.
import { createRequire } from 'node:module'

const cjs = createRequire(import.meta.url)('./lib/harness-filesystem.js')

export const name = cjs.name
export const inject = cjs.inject
export const Config = cjs.Config
export const apply = cjs.apply
export const FileSystemSkillProvider = cjs.FileSystemSkillProvider
export default cjs.default
