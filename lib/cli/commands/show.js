'use strict'
// `dsh-skills show NAME`: the `skill` tool result for one skill.

const { json } = require('../format.js')
const { skillNameArg, missingSkill, brokenDetails } = require('../names.js')

async function run(session, args) {
  const { io, options, catalog } = session
  const name = await skillNameArg(session, args, 'show')
  const definition = await session.registry.get(name, session.lookup())
  if (definition === undefined) throw await missingSkill(session, name, `unknown skill "${name}"`)
  const text = catalog.renderSkillContent(definition)
  if (options.json) {
    io.stdout.write(json({ definition, toolResult: text }))
  } else {
    io.out.text(`${text}\n`)
  }
  if (!definition.invocation.modelInvocable) {
    io.err.line(`dsh-skills: note: model invocation is disabled for "${name}": the skill tool would refuse it`)
  }
  // A broken copy is easy to miss when another copy loads in its place.
  const broken = options.quiet ? [] : await brokenDetails(session, name)
  if (broken.length) {
    io.err.line(`dsh-skills: note: a file meant to be "${name}" is broken, so another copy is shown:`)
    for (const line of broken) io.err.line(`  ${line}`)
  }
  return 0
}

module.exports = { run }
