'use strict'
// The registry modules: `skill-registry.js` (the `SkillRegistry` class, the
// thin JS half of the native registry), `pack.js` (how JS objects reach the
// native rules) and `summaries.js` (what lookups hand out).

const { SkillRegistry, isSkillName, isModelInvocable, isUserInvocable } = require('./skill-registry.js')
const { catalogSourceOf, viewCatalog, viewEntryOf, addModelLabels, freshSummaries } = require('./summaries.js')

module.exports = { SkillRegistry, isSkillName, isModelInvocable, isUserInvocable, catalogSourceOf, viewCatalog, viewEntryOf, addModelLabels, freshSummaries }
