'use strict'
// @deepseek-ai/dsh-skill-native/search-tool — the skill search tool as a
// Cordis plugin module, shaped like the harness's `skill` tool plugin:
// `name` (`skill-search-tool`), `inject` (`tools`, `skills`), `Config`,
// `apply(ctx, config)` and `toolName` (`skill_search`). Runs on the same
// framework copy as `…/cordis`; the tool is built with `defineTool` of
// `@deepseek-ai/dsh-tools` (loaded when the plugin is applied).

const cordis = require('./cordis/index.js')

cordis.exportSearchToolEntry(exports, cordis.auto())
