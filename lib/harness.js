'use strict'
// @deepseek-ai/dsh-skill-native/harness — the `…/cordis` entry on the
// harness's own framework copy, always: `@deepseek-ai/cordis` and
// `@deepseek-ai/schemastery` (never npm `cordis`), typed for
// `@deepseek-ai/cordis`. Where `…/cordis` picks the same copy, both hand out
// the same classes.

const cordis = require('./cordis/index.js')

cordis.exportRegistryEntry(exports, cordis.fork())
