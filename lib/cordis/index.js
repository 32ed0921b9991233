'use strict'
// The Cordis plugins, built once per framework copy (see framework.js), so
// every entry that runs on the same copy hands out the same classes and
// plugin objects.

const framework = require('./framework.js')
const { createSkillService } = require('./service.js')
const { createSkillLocal, createFileSystemPlugin } = require('./providers.js')
const { createSearchToolPlugin } = require('./search-tool.js')
const { isSkillName, isModelInvocable, isUserInvocable } = require('../registry.js')
const content = require('../content.js')

/** Built plugins by framework package name. */
const built = new Map()

/**
 * The Cordis exports for one framework copy: the registry entry's names
 * (both releases) and the filesystem plugin module.
 * @param {{ name: string, cordis: object, Schema: Function }} copy
 */
function pluginsFor(copy) {
  const cached = built.get(copy.name)
  if (cached !== undefined) return cached
  const SkillService = createSkillService(copy)
  const plugins = {
    framework: copy.name,
    SkillService,
    SkillLocal: createSkillLocal(copy),
    filesystem: createFileSystemPlugin(copy),
    searchTool: createSearchToolPlugin(copy),
    helpers: {
      BUNDLED_SKILL_RANK: content.BUNDLED_SKILL_RANK,
      escapeText: content.escapeText,
      renderSkillContent: content.renderSkillContent,
      isSkillName,
      isModelInvocable,
      isUserInvocable,
    },
  }
  built.set(copy.name, plugins)
  return plugins
}

/** The registry entry's exports (`…/cordis`, `…/harness`), CommonJS style, onto `target`. */
function exportRegistryEntry(target, plugins) {
  // `__esModule` lets transpiled `import SkillService from '…/cordis'` find the
  // default export when compiled to CommonJS.
  Object.defineProperty(target, '__esModule', { value: true })
  target.default = plugins.SkillService
  target.SkillService = plugins.SkillService
  // Release 0.1.1-rc.2 names the service class `SkillRegistry` (the main
  // entry's `SkillRegistry` is the plain class).
  target.SkillRegistry = plugins.SkillService
  target.SkillLocal = plugins.SkillLocal
  Object.assign(target, plugins.helpers)
  target.framework = plugins.framework
}

/** The filesystem plugin module's exports (`…/filesystem`, `…/harness/filesystem`) onto `target`. */
function exportFileSystemEntry(target, plugins) {
  const plugin = plugins.filesystem
  Object.defineProperty(target, '__esModule', { value: true })
  target.name = plugin.name
  target.inject = plugin.inject
  target.Config = plugin.Config
  target.apply = plugin.apply
  target.FileSystemSkillProvider = plugin.FileSystemSkillProvider
  target.default = plugin
}

/** The search tool plugin module's exports (`…/search-tool`, `…/harness/search-tool`) onto `target`. */
function exportSearchToolEntry(target, plugins) {
  const plugin = plugins.searchTool
  Object.defineProperty(target, '__esModule', { value: true })
  target.name = plugin.name
  target.inject = plugin.inject
  target.Config = plugin.Config
  target.apply = plugin.apply
  target.toolName = plugin.toolName
  target.default = plugin
}

module.exports = {
  auto: () => pluginsFor(framework.auto()),
  fork: () => pluginsFor(framework.fork()),
  exportRegistryEntry,
  exportFileSystemEntry,
  exportSearchToolEntry,
}
