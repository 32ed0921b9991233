'use strict'
// What the harness's `skill` tool and `/name` invocations need besides the
// registry (release 0.1.1-rc.2 exports these from its registry package): the
// skill content block in that release's layout, the escaping rule of the skill
// markup and the rank of bundled skills. The rules are the Rust core's
// (`skill_core::catalog::content`, `skill_core::local::Source`).

const native = require('./native.js')
const { renderSkillContentIn } = require('./catalog.js')

/** The rank of the `bundled` source (600): a provider of deployment-shipped skills ranks its candidates with it. */
const BUNDLED_SKILL_RANK = native.bundledSkillRankNative()

/**
 * `text` with `&`, `<` and `>` escaped as `&amp;`, `&lt;`, `&gt;`, for text
 * embedded in the skill markup (quotes are left as they are).
 * @param {string} text
 * @returns {string}
 */
function escapeText(text) {
  if (typeof text !== 'string') {
    throw new TypeError(`escapeText: text must be a string (got ${text === null ? 'null' : typeof text})`)
  }
  return native.escapeTextNative(text)
}

/**
 * One `<skill_content name="…">` block for a loaded skill (the `skill` tool's
 * result and a user's `/name` invocation), in the layout of release
 * 0.1.1-rc.2: one blank line between `</skill_resources>` and
 * `<skill_instructions>`.
 * @param {{ name: string, provider: string, resourceBase?: object, content: string }} definition
 * @returns {string}
 */
function renderSkillContent(definition) {
  return renderSkillContentIn(definition, true)
}

module.exports = { BUNDLED_SKILL_RANK, escapeText, renderSkillContent }
