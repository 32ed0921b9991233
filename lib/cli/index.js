'use strict'
// `dsh-skills`: inspect what the local skill provider sees from a directory —
// the skills, the model-facing catalog, one skill's tool result, why a file
// was loaded, shadowed, skipped or ignored — and follow catalog changes live.
// Plain Node; the only dependency is this package.
//
// Commands and options are tables (`spec.js`): adding a command or a flag is
// one entry there plus its handler in `commands/`. The other modules:
//   args.js          the command line, "did you mean"
//   help.js          --help and the help of each command
//   session.js       the registry and local provider of one run
//   term.js          terminal output: escapes, colour, widths
//   format.js        presentation helpers the commands share
//   catalog-view.js  the catalog as the commands show it
//   diagnosis.js     doctor's report (verdicts.js: its verdicts and hints)
//   names.js         the skill name argument of show and explain

const term = require('./term.js')
const { UsageError, CliError, firstLine } = require('./errors.js')
const { OPTIONS, COMMANDS } = require('./spec.js')
const { parseArgs, closest, didYouMean } = require('./args.js')
const { HELP, USAGE, commandHelp } = require('./help.js')
const { Session } = require('./session.js')

/**
 * Run the CLI.
 * @param {string[]} argv arguments after the program name
 * @param {{ stdout?: NodeJS.WritableStream, stderr?: NodeJS.WritableStream, env?: NodeJS.ProcessEnv }} [streams]
 * @returns {Promise<number>} the exit code
 */
async function main(argv, streams = {}) {
  const stdout = streams.stdout ?? process.stdout
  const stderr = streams.stderr ?? process.stderr
  const env = streams.env ?? process.env
  const io = { stdout, stderr, out: term.output(stdout, env), err: term.output(stderr, env) }
  let session
  try {
    const { command, args, options } = parseArgs(argv)
    if (options.color !== undefined) {
      io.out = term.output(stdout, env, options.color)
      io.err = term.output(stderr, env, options.color)
    }
    if (options.version) {
      stdout.write(`${require('../../package.json').version}\n`)
      return 0
    }
    if (command === 'help') {
      const [topic, ...rest] = args
      if (rest.length) throw new UsageError('help takes one command name', 'help')
      if (topic !== undefined && !Object.hasOwn(COMMANDS, topic)) {
        throw new UsageError(`unknown command "${topic}"${didYouMean(closest(topic, Object.keys(COMMANDS)))}`)
      }
      stdout.write(topic === undefined ? HELP : commandHelp(topic))
      return 0
    }
    if (options.help) {
      stdout.write(command === undefined ? HELP : commandHelp(command))
      return 0
    }
    if (command === undefined) {
      stderr.write(USAGE)
      return 2
    }
    if (!COMMANDS[command].args && args.length) {
      throw new UsageError(`${command} takes no arguments (got "${args[0]}")`, command)
    }
    if (command === 'demo') return await COMMANDS.demo.run(options, io)
    if (command === 'completion') return COMMANDS.completion.run(args, io)
    session = new Session(options, io, { watch: command === 'watch' })
    const code = await COMMANDS[command].run(session, args)
    // doctor reports the warnings itself; show is about one skill.
    if (command !== 'doctor' && command !== 'show') await session.reportWarnings()
    return code
  } catch (error) {
    if (error instanceof UsageError) {
      const see = error.command ? `dsh-skills help ${error.command}` : 'dsh-skills --help'
      io.err.line(`dsh-skills: ${error.message} (see: ${see})`)
      return 2
    }
    if (error instanceof CliError) {
      io.err.line(`dsh-skills: ${error.message}`)
      for (const detail of error.details) io.err.line(`  ${detail}`)
      return 1
    }
    // The addon did not load: its message says why and what to run, in full.
    if (error && error.code === 'ERR_DSH_SKILL_NATIVE_ADDON') {
      const [first, ...rest] = String(error.message).split('\n')
      io.err.line(`dsh-skills: ${first}`)
      for (const line of rest) io.err.line(`  ${line}`)
      return 1
    }
    // Not a user mistake: keep the details available without flooding users.
    if (env.DSH_SKILLS_DEBUG) io.err.text(`${error && error.stack ? error.stack : error}\n`)
    io.err.line(`dsh-skills: ${firstLine(error)}`)
    return 1
  } finally {
    if (session) await session.dispose()
  }
}

module.exports = { main, parseArgs, HELP, COMMANDS, OPTIONS }
