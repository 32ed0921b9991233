'use strict'
// `dsh-skills show NAME`: the `skill` tool result for one skill.

const { CliError } = require('../errors.js')
const { closest, didYouMean } = require('../args.js')
const { json } = require('../format.js')
const { skillNameArg, listedNames } = require('../names.js')

async function run(session, args) {
  const { io, options, catalog } = session
  const name = skillNameArg(session, args, 'show')
  const definition = await session.registry.get(name, session.lookup())
  if (definition === undefined) {
    const names = await listedNames(session)
    throw new CliError(
      names.includes(name)
        ? `skill "${name}" is no longer available`
        : `unknown skill "${name}"${didYouMean(closest(name, names))} (see: dsh-skills list)`,
    )
  }
  const text = catalog.renderSkillContent(definition)
  if (options.json) {
    io.stdout.write(json({ definition, toolResult: text }))
  } else {
    io.out.text(`${text}\n`)
  }
  if (!definition.invocation.modelInvocable) {
    io.err.line(`dsh-skills: note: model invocation is disabled for "${name}": the skill tool would refuse it`)
  }
  return 0
}

module.exports = { run }
