'use strict'
// @deepseek-ai/dsh-skill-native/harness/filesystem — the `…/filesystem`
// plugin module on the harness's own framework copy, always
// (`@deepseek-ai/cordis`), typed for it.

const cordis = require('./cordis/index.js')

cordis.exportFileSystemEntry(exports, cordis.fork())
