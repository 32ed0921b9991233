'use strict'
// `/name` gestures: a user invoking a skill by writing `/name` in a message.
// The boundary rule lives in the Rust core (`skill_core::catalog::gesture`);
// this module applies the rest of the rule to a message list and a registry.

const native = require('./native.js')
const { internal } = require('./catalog.js')
const { renderSkillContent } = require('./content.js')

const { describe } = internal

/** Whether a listed summary or loaded definition (from any `skills` object) may be invoked by the user. */
const invocableByUser = (skill) => skill?.invocation?.userInvocable === true

/**
 * The skill names of the `/name` gestures in `text`: a token `/name` at the
 * start of the text or after whitespace, followed by whitespace or the end,
 * `name` a kebab-case skill name; first occurrence order, each once.
 */
function scanSkillGestures(text) {
  if (typeof text !== 'string') {
    throw new TypeError(`scanSkillGestures: text must be a string (got ${describe(text)})`)
  }
  return scan(text)
}

/** `native.scanSkillGestures` answers with the names joined by single spaces. */
function scan(text) {
  const joined = native.scanSkillGestures(text)
  return joined === '' ? [] : joined.split(' ')
}

/**
 * The text blocks of a user message in the common chat shape
 * `{ role: 'user', content: string | Array<{ type: 'text', text: string } | …> }`;
 * nothing for any other message.
 */
function userTextBlocks(message) {
  if (message === null || typeof message !== 'object' || message.role !== 'user') return undefined
  const content = message.content
  if (typeof content === 'string') return [content]
  if (!Array.isArray(content)) return undefined
  const texts = []
  for (const block of content) {
    if (block !== null && typeof block === 'object' && block.type === 'text' && typeof block.text === 'string') texts.push(block.text)
  }
  return texts
}

/** The strings among one message's texts (others ignored), in order. */
function stringsOf(texts) {
  const strings = []
  if (texts === undefined || texts === null) return strings
  for (const text of texts) if (typeof text === 'string') strings.push(text)
  return strings
}

/**
 * The skills a user invoked with `/name` in `messages`, loaded and rendered:
 * only the text blocks `textsOf` gives (by default those of `role: 'user'`
 * messages) are scanned; repeated gestures count once; names that are not
 * skills, or skills that are not user-invocable in `skills.list({ cwd, signal,
 * scope })`, stay prose; a message whose reading throws (a getter, a proxy,
 * `textsOf` itself) is skipped; each recognised skill is loaded with
 * `skills.get(name, { cwd, signal, scope })` (one that is gone by then, or
 * no longer user-invocable, is skipped) and rendered with the current
 * release's `renderSkillContent` (`./content.js`: one blank line before
 * `<skill_instructions>`).
 * @returns {Promise<Array<{ name: string, text: string, source: { kind: 'skill-invocation', name: string, form: 'instructions' } }>>}
 */
async function collectSkillInvocations(input) {
  const fn = 'collectSkillInvocations'
  if (input === null || typeof input !== 'object') {
    throw new TypeError(`${fn}: expected { skills, messages, textsOf?, cwd?, signal?, scope? } (got ${describe(input)})`)
  }
  const { skills, messages, textsOf = userTextBlocks, cwd, signal, scope } = input
  if (skills === null || typeof skills !== 'object' || typeof skills.list !== 'function' || typeof skills.get !== 'function') {
    throw new TypeError(`${fn}: skills must have list(options) and get(name, options) (got ${describe(skills)})`)
  }
  if (messages === null || typeof messages !== 'object' || typeof messages.length !== 'number') {
    throw new TypeError(`${fn}: messages must be an array (got ${describe(messages)})`)
  }
  if (typeof textsOf !== 'function') {
    throw new TypeError(`${fn}: textsOf must be a function (got ${describe(textsOf)})`)
  }
  // A message whose reading throws (a getter, a proxy, a throwing `textsOf`)
  // is unreadable and skipped whole, as `planStructuredCatalogStep` skips one.
  // Each message is read once; its texts are kept for the scan below.
  const texts = []
  let gesture = false
  const count = messages.length
  for (let i = 0; i < count; i++) {
    let strings
    try {
      strings = stringsOf(textsOf(messages[i], i))
    } catch {
      continue
    }
    for (const text of strings) {
      texts.push(text)
      if (!gesture) gesture = native.hasSkillGesture(text)
    }
  }
  if (!gesture) return []
  const options = {}
  if (cwd !== undefined) options.cwd = cwd
  if (signal !== undefined) options.signal = signal
  if (scope !== undefined) options.scope = scope
  const listed = await skills.list(options)
  const invocable = []
  for (const summary of listed) {
    if (!invocableByUser(summary)) continue
    const name = summary.name
    if (typeof name === 'string') invocable.push(name)
  }
  // Only the gestures that name a user-invocable skill, first occurrence
  // order across the messages, each once: the names that cannot be skills are
  // never built (a pasted text of a million distinct `/name` tokens).
  const joined = invocable.length === 0 ? '' : native.scanSkillGesturesAmong(texts, invocable)
  const names = joined === '' ? [] : joined.split(' ')
  const out = []
  for (const name of names) {
    const definition = await skills.get(name, options)
    // Gone, or no longer user-invocable, since it was listed: prose after all.
    if (!invocableByUser(definition)) continue
    out.push({
      name,
      text: renderSkillContent(definition),
      source: { kind: 'skill-invocation', name, form: 'instructions' },
    })
  }
  return out
}

module.exports = { scanSkillGestures, collectSkillInvocations }
