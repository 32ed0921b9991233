// @deepseek-ai/dsh-skill-native/harness/tool-skill — ESM entry: the `skill`
// tool plugin module (`import * as toolSkill from '…/harness/tool-skill'`,
// then `ctx.plugin(toolSkill, config)`), the very objects of the CommonJS
// module when both load the same harness packages.
import { createRequire } from 'node:module'
import * as tools from '@deepseek-ai/dsh-tools'
import * as llm from '@deepseek-ai/dsh-llm'

const plugin = createRequire(import.meta.url)('./lib/tool-skill/entry.js').pluginFor(tools, llm)

export const name = plugin.name
export const inject = plugin.inject
export const Config = plugin.Config
export const apply = plugin.apply
export default plugin
