'use strict'
// @deepseek-ai/dsh-skill-native/harness/tool-skill/invariant — the invariant
// companion of the `skill` tool plugin, as `@deepseek-ai/dsh-tool-skill/invariant`.

const { invariant } = require('./tool-skill/entry.js')

Object.defineProperty(exports, '__esModule', { value: true })
exports.name = invariant.name
exports.inject = invariant.inject
exports.apply = invariant.apply
exports.default = invariant
