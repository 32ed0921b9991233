'use strict'
// @deepseek-ai/dsh-skill-native/filesystem — the filesystem provider as a
// Cordis plugin module, shaped like release 0.1.1-rc.2's
// `@deepseek-ai/dsh-skill-filesystem`: `name` (`skill-filesystem`), `inject`,
// `Config` (provider `filesystem` by default), `apply(ctx, config)` and
// `FileSystemSkillProvider`. Runs on the same framework copy as `…/cordis`.

const cordis = require('./cordis/index.js')

cordis.exportFileSystemEntry(exports, cordis.auto())
