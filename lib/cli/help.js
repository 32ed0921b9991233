'use strict'
// `dsh-skills --help` and the help of each command, built from the tables of
// `spec.js`.

const { OPTIONS, GLOBAL, COMMANDS, ROOTS, OVERRIDES } = require('./spec.js')

/** Two-column help rows, the second column wrapped to 80 columns. */
function helpRows(rows) {
  const width = Math.max(...rows.map(([left]) => left.length)) + 2
  const room = Math.max(30, 80 - 2 - width)
  return rows
    .map(([left, right]) => {
      const lines = ['']
      for (const word of right.split(' ')) {
        const last = lines.length - 1
        if (lines[last] && lines[last].length + 1 + word.length > room) lines.push(word)
        else lines[last] = lines[last] ? `${lines[last]} ${word}` : word
      }
      return lines.map((line, i) => `  ${(i === 0 ? left : '').padEnd(width)}${line}`).join('\n')
    })
    .join('\n')
}

function optionLines(names) {
  return helpRows(
    names.map((name) => {
      const spec = OPTIONS[name]
      const shorts = [spec.short, spec.alias].filter(Boolean).map((short) => `-${short}, `).join('')
      return [`${shorts}--${name}${spec.value ? ` ${spec.value}` : ''}`, spec.help]
    }),
  )
}

/** The commands the help lists (`demo` only in a source checkout). */
function listedCommands() {
  return Object.entries(COMMANDS).filter(([, c]) => !c.hidden)
}

function commandLines() {
  return helpRows(listedCommands().map(([name, c]) => [c.args ? `${name} ${c.args}` : name, c.summary]))
}

const HELP = `Usage: dsh-skills <command> [options]

Inspect the skills an agent harness would discover from a directory, with the
native local provider of @deepseek-ai/dsh-skill-native.

Commands:
${commandLines()}

Options (each command takes the ones its help lists):
${optionLines(Object.keys(OPTIONS))}

Run \`dsh-skills help COMMAND\` (or \`dsh-skills COMMAND --help\`) for one command.
Relative paths are resolved against the current directory.
Exit codes: 0 success, 1 failure or doctor found a broken skill, 2 usage error,
130 watch stopped by Ctrl-C (SIGINT), 143 watch stopped by SIGTERM.
`

/** What a bare `dsh-skills` prints (on stderr, exit code 2): the usage line and the commands. */
const USAGE = `Usage: dsh-skills <command> [options]
Commands: ${listedCommands()
  .map(([name]) => name)
  .join(', ')}
Run \`dsh-skills --help\` for what each command does and its options.
`

/** `text` wrapped to 80 columns. */
function wrap(text) {
  const lines = ['']
  for (const word of text.split(' ')) {
    const last = lines.length - 1
    if (lines[last] && lines[last].length + 1 + word.length > 80) lines.push(word)
    else lines[last] = lines[last] ? `${lines[last]} ${word}` : word
  }
  return lines.join('\n')
}

/** The shared option groups a command takes, as one line each names them. */
const SHARED = [
  ['root', ROOTS],
  ['override', OVERRIDES],
]

/**
 * The help of one command: its own options in full, one line naming the
 * shared ones it takes (the root and override flags, described once in
 * `dsh-skills --help`), and two or three examples.
 */
function commandHelp(name) {
  const c = COMMANDS[name]
  const all = [...c.options, ...GLOBAL]
  const shared = new Set([...SHARED.flatMap(([, names]) => names), ...GLOBAL])
  const own = all.filter((option) => !shared.has(option))
  const groups = SHARED.filter(([, names]) => names.some((option) => c.options.includes(option))).map(
    ([what, names]) => `the ${what} flags (${names.filter((option) => c.options.includes(option)).map((option) => `--${option}`).join(', ')})`,
  )
  groups.push(GLOBAL.map((option) => `--${option}`).join(', '))
  const sharedLine = `\n${wrap(`Also ${groups.join(', ')}: see dsh-skills --help.`)}\n`
  return (
    `Usage: dsh-skills ${name}${c.args ? ` ${c.args}` : ''}${all.length ? ' [options]' : ''}\n\n` +
    `${helpRows([['', `${c.summary[0].toUpperCase()}${c.summary.slice(1)}.`]]).replace(/^ +/gm, '')}\n` +
    (c.details ? `\n${c.details}\n` : '') +
    (c.json ? `\nWith --json: ${c.json}.\n` : '') +
    (own.length ? `\nOptions:\n${optionLines(own)}\n` : '') +
    sharedLine +
    (c.examples?.length ? `\nExamples:\n${c.examples.map((example) => `  ${example}`).join('\n')}\n` : '')
  )
}

module.exports = { HELP, USAGE, commandHelp, helpRows }
