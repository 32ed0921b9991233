'use strict'
// The two kinds of failure the CLI reports itself (anything else is reported
// by its first line, the stack only with DSH_SKILLS_DEBUG).

/** A mistake in the command line: one line on stderr, exit code 2. */
class UsageError extends Error {
  /** @param {string} message @param {string} [command] the command whose help to point at */
  constructor(message, command) {
    super(message)
    this.command = command
  }
}

/** A failure to report on stderr, exit code 1: one line, then indented details if any. */
class CliError extends Error {
  /** @param {string} message @param {string[]} [details] lines printed under the message */
  constructor(message, details = []) {
    super(message)
    this.details = details
  }
}

/** The first line of a thrown value's message. */
function firstLine(error) {
  const message = error instanceof Error ? error.message : String(error)
  return message.split('\n')[0]
}

module.exports = { UsageError, CliError, firstLine }
