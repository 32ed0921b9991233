'use strict'
// @deepseek-ai/dsh-skill-native — public entry (CommonJS). See index.d.ts.

const registry = require('./lib/registry.js')
const catalog = require('./lib/catalog.js')
const local = require('./lib/local.js')
const content = require('./lib/content.js')
const structured = require('./lib/catalog-structured.js')
const gestures = require('./lib/gestures.js')

exports.SkillRegistry = registry.SkillRegistry
exports.isSkillName = registry.isSkillName
exports.isModelInvocable = registry.isModelInvocable
exports.isUserInvocable = registry.isUserInvocable
exports.LocalSkillProvider = local.LocalSkillProvider

exports.DEFAULT_CATALOG_MAX_LENGTH = catalog.DEFAULT_CATALOG_MAX_LENGTH
exports.renderCatalogEntries = catalog.renderCatalogEntries
exports.catalogDigest = catalog.catalogDigest
exports.renderCatalog = catalog.renderCatalog
exports.catalogContentDigest = catalog.catalogContentDigest
exports.renderCatalogMessage = catalog.renderCatalogMessage
exports.renderCatalogUpdate = catalog.renderCatalogUpdate
exports.planCatalogStep = catalog.planCatalogStep
exports.scanCatalogHistory = catalog.scanCatalogHistory
exports.renderSkillContent = catalog.renderSkillContent
exports.catalogBudgetWarning = catalog.catalogBudgetWarning
exports.escapeText = content.escapeText
exports.BUNDLED_SKILL_RANK = content.BUNDLED_SKILL_RANK

exports.structuredCatalog = structured.structuredCatalog
exports.structuredCatalogDigest = structured.structuredCatalogDigest
exports.readSkillCatalogSource = structured.readSkillCatalogSource
exports.renderStructuredCatalog = structured.renderStructuredCatalog
exports.planStructuredCatalogStep = structured.planStructuredCatalogStep
exports.scanSkillGestures = gestures.scanSkillGestures
exports.collectSkillInvocations = gestures.collectSkillInvocations
