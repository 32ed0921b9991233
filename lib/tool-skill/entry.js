'use strict'
// The `…/harness/tool-skill` entry's plugin, built once per framework copy
// and pair of harness packages (`@deepseek-ai/dsh-tools` for `defineTool`,
// `@deepseek-ai/dsh-llm` for `createUserMessage`), so that the ES module and
// CommonJS entries hand out the very same objects.

const framework = require('../cordis/framework.js')
const { createToolSkillPlugin } = require('./index.js')

const TOOLS = '@deepseek-ai/dsh-tools'
const LLM = '@deepseek-ai/dsh-llm'

/** `name` of a loaded module (CommonJS, or an ES module namespace and its default export). */
function member(loaded, name, from) {
  const value = loaded?.[name] ?? loaded?.default?.[name]
  if (typeof value !== 'function') throw new TypeError(`${from} does not export ${name}`)
  return value
}

/** tools module → llm module → plugin */
const built = new WeakMap()

/**
 * The plugin module (`name`, `inject`, `Config`, `apply`) on the harness's
 * framework copy, with the given harness packages.
 */
function pluginFor(tools, llm) {
  let byLlm = built.get(tools)
  if (byLlm === undefined) built.set(tools, (byLlm = new WeakMap()))
  let plugin = byLlm.get(llm)
  if (plugin === undefined) {
    plugin = createToolSkillPlugin(framework.fork(), {
      defineTool: member(tools, 'defineTool', TOOLS),
      createUserMessage: member(llm, 'createUserMessage', LLM),
    })
    byLlm.set(llm, plugin)
  }
  return plugin
}

/** `require(name)` of a harness package, or an error that says where this entry runs. */
function requireHarness(name, load) {
  try {
    return load()
  } catch (error) {
    const missing = error !== null && typeof error === 'object' && error.code === 'MODULE_NOT_FOUND' && String(error.message).includes(`'${name}'`)
    if (!missing) throw error
    const wrapped = new Error(
      `${name} is not installed here: @deepseek-ai/dsh-skill-native/harness/tool-skill is the harness's skill tool plugin and runs in a harness that has ${TOOLS} and ${LLM}`,
      { cause: error },
    )
    wrapped.code = error.code
    throw wrapped
  }
}

/** The plugin with the harness packages loaded by `require` (the CommonJS entry). */
function requiredPlugin() {
  const tools = requireHarness(TOOLS, () => require('@deepseek-ai/dsh-tools'))
  const llm = requireHarness(LLM, () => require('@deepseek-ai/dsh-llm'))
  return pluginFor(tools, llm)
}

/** The plugin module's exports onto `target` (CommonJS style). */
function exportToolSkillEntry(target, plugin) {
  Object.defineProperty(target, '__esModule', { value: true })
  target.name = plugin.name
  target.inject = plugin.inject
  target.Config = plugin.Config
  target.apply = plugin.apply
  target.default = plugin
}

/** The invariant companion (`…/harness/tool-skill/invariant`), as the release ships one beside its plugin. */
const PACKAGE_NAME = '@deepseek-ai/dsh-tool-skill'
const invariant = Object.freeze({
  name: 'tool-skill-invariant',
  inject: Object.freeze(['invariants']),
  /** Registers this plugin's (empty) invariant with `ctx.invariants` under the package name it stands in for. */
  apply: (ctx) => Promise.resolve(ctx.invariants.register(PACKAGE_NAME, () => {})),
})

module.exports = { pluginFor, requiredPlugin, exportToolSkillEntry, invariant }
