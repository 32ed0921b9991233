'use strict'
// @deepseek-ai/dsh-skill-native/harness/tool-skill — the `skill` tool plugin
// module, a drop-in for the harness's `@deepseek-ai/dsh-tool-skill` (release
// 0.1.1-rc.2), on the harness's own framework copy (`@deepseek-ai/cordis`),
// with its `@deepseek-ai/dsh-tools` and `@deepseek-ai/dsh-llm`.

const entry = require('./tool-skill/entry.js')

entry.exportToolSkillEntry(exports, entry.requiredPlugin())
