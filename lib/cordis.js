'use strict'
// @deepseek-ai/dsh-skill-native/cordis — the Cordis registry entry:
// `SkillService` (also exported as `SkillRegistry`, release 0.1.1-rc.2's
// name; the default export), `SkillLocal`, and the helpers the harness's
// `skill` tool imports with the registry. Only the Cordis entries need the
// optional peers; the plain entry point never loads them.
//
// Framework copy: the harness's `@deepseek-ai/cordis` (with
// `@deepseek-ai/schemastery`) when it is installed, npm `cordis` (with
// `schemastery`) otherwise; `DSH_SKILL_CORDIS` overrides the detection (see
// cordis/framework.js). The typings are those of npm `cordis`; the
// `…/harness` entry is the same, typed for `@deepseek-ai/cordis`.
//
// Both Cordis packages are ES modules: this CommonJS module loads them with
// `require()`, which Node supports without flags from 20.19 / 22.12 on. The
// ESM entry (`cordis.mjs`) re-exports this module so both entry points share
// one `SkillService` class.

const cordis = require('./cordis/index.js')

cordis.exportRegistryEntry(exports, cordis.auto())
