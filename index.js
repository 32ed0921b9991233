'use strict'
// @deepseek-ai/dsh-skill-native — public entry (CommonJS). See index.d.ts.

const registry = require('./lib/registry.js')

exports.SkillRegistry = registry.SkillRegistry
exports.isSkillName = registry.isSkillName
exports.isModelInvocable = registry.isModelInvocable
exports.isUserInvocable = registry.isUserInvocable
