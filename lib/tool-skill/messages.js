'use strict'
// The model-facing text of the `skill` tool plugin's catalog messages (our
// own words): the first catalog, a full replacement (the empty one is the
// tombstone) and a delta. The entries block of a full catalog comes rendered
// (`` - `NAME`: DESCRIPTION `` lines, escaped, a budget's last line
// included); it sits between a line `<available_skills>` and a line
// `</available_skills>`, so the text digest of a stored message reads as
// ever.

/**
 * `&`, `<` and `>` escaped (the catalog's rule), in JS: a description cut
 * inside a surrogate pair keeps its lone surrogate, exactly as the entries
 * record it (a native round trip would make it U+FFFD).
 */
function escapeMarkup(text) {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
}

const LOAD =
  "Before acting on a task that names a skill, or that a skill's description clearly matches, load that skill with the `skill` tool (its exact name) and follow the instructions it returns; the list holds summaries only."
const DIRECT =
  'A user may also invoke a skill directly: its <skill_content> block then appears in the conversation. Follow that block as it is, without loading the same skill again.'

/** The `<available_skills>` block around rendered entries. */
function availableSkills(block) {
  return block === '' ? '<available_skills>\n</available_skills>' : `<available_skills>\n${block}\n</available_skills>`
}

/** The first catalog of a session. */
function initialText(block) {
  return [
    '<system-reminder>',
    'Skills are instructions for particular kinds of task. These skills are available in this session:',
    availableSkills(block),
    LOAD,
    DIRECT,
    '</system-reminder>',
  ].join('\n')
}

/**
 * A full replacement of every earlier catalog. `total` is the number of
 * skills the model may load (those the block leaves out under a budget
 * included), `listed` whether every one of them is in the block.
 */
function replacementText(block, total, listed) {
  if (total === 0) {
    return [
      '<system-reminder>',
      'No skills are available through the `skill` tool now. This replaces every earlier list of available skills: do not load a skill named in one.',
      availableSkills(''),
      'A <skill_content> block that a user invokes directly is still to be followed as it is.',
      '</system-reminder>',
    ].join('\n')
  }
  const scope = listed
    ? 'This list replaces every earlier list of available skills: a skill that is not in it is no longer available.'
    : 'This list replaces every earlier list of available skills.'
  return [
    '<system-reminder>',
    `The available skills have changed. ${scope}`,
    availableSkills(block),
    LOAD,
    DIRECT,
    '</system-reminder>',
  ].join('\n')
}

/** One entry line (a budget's name-only entry has an empty description). */
function line({ name, description }) {
  return description === '' ? `- \`${name}\`` : `- \`${name}\`: ${escapeMarkup(description)}`
}

/**
 * The entries block of structured entries, rendered here: for entries whose
 * descriptions are not well-formed UTF-16 (the native block holds U+FFFD
 * where they hold a lone surrogate). `tail` is the block's last line when a
 * budget left skills out.
 */
function entriesBlock(entries, tail) {
  const lines = entries.map(line)
  if (tail !== undefined) lines.push(tail)
  return lines.join('\n')
}

/** A delta: only what changed since the latest list. */
function deltaText({ added, changed, removed }) {
  const out = [
    '<system-reminder>',
    'The available skills have changed. Apply these changes to the latest list of available skills; every skill not named here stays as it was listed.',
  ]
  if (added.length > 0) out.push('<skills_added>', ...added.map(line), '</skills_added>')
  if (changed.length > 0) out.push('<skills_changed>', ...changed.map(line), '</skills_changed>')
  if (removed.length > 0) {
    out.push('<skills_removed>', ...removed.map((name) => `- \`${name}\``), '</skills_removed>')
    out.push('The removed skills are no longer available: do not load them.')
  }
  out.push('</system-reminder>')
  return out.join('\n')
}

module.exports = { initialText, replacementText, deltaText, entriesBlock }
