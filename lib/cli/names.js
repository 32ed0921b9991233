'use strict'
// The skill name argument of `show` and `explain`, and what to say when no
// copy of that skill loads: a "did you mean", the override that switched it
// off, or the broken file that was meant to be it.

const { UsageError, CliError } = require('./errors.js')
const { closest, didYouMean, overrideFlag } = require('./args.js')
const { diagnose, brokenCopies, brokenLines } = require('./diagnosis.js')
const { entryName } = require('./verdicts.js')
const { rootOf } = require('./format.js')

/**
 * The one skill name `command` takes; a usage error unless it is one. A
 * folder or file name that is no skill name (`Deploy_Prod`) is looked up
 * among the entries: a broken one is reported with its file, why and the
 * fix; one that loads under a skill name points at that name.
 */
async function skillNameArg(session, args, command) {
  if (args.length !== 1) {
    throw new UsageError(args.length ? `${command} takes one skill name` : `${command} needs a skill name`, command)
  }
  const name = args[0]
  if (!session.api.isSkillName(name)) {
    const diagnosis = await diagnose(session)
    const broken = brokenCopies(diagnosis, name)
    if (broken.length) {
      throw new CliError(
        `"${name}" is not a skill name, but the entry of that name is broken (all broken files: ${session.again('doctor')})`,
        broken.flatMap((file) => brokenLines(file)),
      )
    }
    const loads = diagnosis.files.find(
      (file) => (file.verdict === 'loaded' || file.verdict === 'shadowed') && typeof file.name === 'string' && entryOf(diagnosis, file) === name,
    )
    if (loads) {
      throw new UsageError(`"${name}" is a ${loads.layout === 'flat' ? 'file' : 'folder'} name; its skill is named "${loads.name}": dsh-skills ${command} ${loads.name}`, command)
    }
    throw new UsageError(`invalid skill name "${name}" (names are kebab-case: lowercase letters, digits, "-", at most 64 characters)`, command)
  }
  return name
}

/** The folder (bundle) or file name without `.md` (flat) of a diagnosed file, in its root. */
function entryOf(diagnosis, file) {
  return entryName(file, rootOf(file, diagnosis.roots))
}

/** The names of the skills listed (for "did you mean"). */
async function listedNames(session) {
  return (await session.registry.list(session.lookup())).map((skill) => skill.name)
}

/** The broken files meant to be skill `name`, with what is wrong with each, as lines. */
async function brokenDetails(session, name) {
  const copies = brokenCopies(await diagnose(session), name)
  return copies.flatMap((file) => brokenLines(file))
}

/**
 * The error for a skill `name` of which no copy loads: broken (where, why,
 * the fix), switched off (by which flag), or unknown (with a "did you mean").
 * @param {string} unknown how to say that no provider lists it
 */
async function missingSkill(session, name, unknown) {
  const details = await brokenDetails(session, name)
  if (details.length) return new CliError(`skill "${name}" is broken (all broken files: ${session.again('doctor')})`, details)
  const explanation = await session.registry.explain(name, session.lookup())
  if (explanation && !explanation.winner) {
    const rules = [...new Set([...explanation.losers].map((loser) => loser.override?.rule).filter((rule) => rule !== undefined))]
    const flags = rules.map((rule) => session.options.overrides[rule]).filter(Boolean).map(overrideFlag)
    return new CliError(`skill "${name}" is switched off${flags.length ? ` by ${flags.join(', ')}` : ''}`)
  }
  const names = await listedNames(session)
  if (names.includes(name)) return new CliError(`skill "${name}" is no longer available`)
  return new CliError(`${unknown}${didYouMean(closest(name, names))} (see: ${session.again('list')})`)
}

module.exports = { skillNameArg, listedNames, brokenDetails, missingSkill }
