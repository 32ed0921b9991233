'use strict'
// The skill name argument of `show` and `explain`, and the listed names for a
// "did you mean".

const { UsageError } = require('./errors.js')

/** The one skill name `command` takes; a usage error unless it is one. */
function skillNameArg(session, args, command) {
  if (args.length !== 1) {
    throw new UsageError(args.length ? `${command} takes one skill name` : `${command} needs a skill name`, command)
  }
  const name = args[0]
  if (!session.api.isSkillName(name)) {
    throw new UsageError(`invalid skill name "${name}" (names are kebab-case: lowercase letters, digits, "-")`, command)
  }
  return name
}

/** The names of the skills listed (for "did you mean"). */
async function listedNames(session) {
  return (await session.registry.list(session.lookup())).map((skill) => skill.name)
}

module.exports = { skillNameArg, listedNames }
