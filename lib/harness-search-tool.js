'use strict'
// @deepseek-ai/dsh-skill-native/harness/search-tool — the `…/search-tool`
// plugin module on the harness's own framework copy, always
// (`@deepseek-ai/cordis`), typed for it.

const cordis = require('./cordis/index.js')

cordis.exportSearchToolEntry(exports, cordis.fork())
