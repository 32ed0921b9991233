'use strict'
// `dsh-skills completion bash|zsh|fish`: a shell completion script, generated
// from the command and option tables (so it never lists a flag a command
// refuses). Skill names after `show` and `explain` come from `dsh-skills list`
// run from the current directory.

const { UsageError } = require('../errors.js')
const { closest, didYouMean } = require('../args.js')
const { OPTIONS, GLOBAL, COMMANDS, COMPAT_ROOTS } = require('../spec.js')

const SHELLS = ['bash', 'zsh', 'fish']

/** The commands a completion offers (`demo` only where it works). */
function commands() {
  return Object.entries(COMMANDS).filter(([, c]) => !c.hidden)
}

/** The options of `command` (every option when undefined), global ones included. */
function optionsOf(command) {
  return command === undefined ? Object.keys(OPTIONS) : [...COMMANDS[command].options, ...GLOBAL]
}

/** The fixed values an option takes, if any. */
function choicesOf(name) {
  if (name === 'compat') return COMPAT_ROOTS
  return OPTIONS[name].choices
}

/** The first clause of a help text: short enough for a completion menu. */
function brief(help) {
  return help.split(/[:;(]/)[0].trim()
}

/** `text` inside single quotes for a POSIX shell (bash, zsh). */
function quoted(text) {
  return `'${text.replace(/'/g, `'\\''`)}'`
}

/** The program's first table column (skill names) in a pipeline; no output when listing fails. */
const NAMES = 'list --quiet --color never 2>/dev/null | tail -n +2 | cut -d" " -f1'

function bash() {
  const valued = Object.keys(OPTIONS).filter((name) => OPTIONS[name].type === 'string')
  const cases = commands()
    .map(([name]) => `    ${name}) opts=${quoted(optionsOf(name).map((o) => `--${o}`).join(' '))} ;;`)
    .join('\n')
  const values = valued
    .map((name) => {
      const choices = choicesOf(name)
      if (choices) return `    --${name}) COMPREPLY=($(compgen -W ${quoted(choices.join(' '))} -- "$cur")); return ;;`
      if (OPTIONS[name].dir) return `    --${name}) COMPREPLY=($(compgen -d -- "$cur")); return ;;`
      return `    --${name}) return ;;`
    })
    .join('\n')
  return `# dsh-skills completion for bash. Load it with:
#   eval "$(dsh-skills completion bash)"     (in ~/.bashrc)
_dsh_skills() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}"
  local valued=${quoted(valued.map((o) => `--${o}`).join(' '))}
  local cmd="" i word
  for ((i = 1; i < COMP_CWORD; i++)); do
    word="\${COMP_WORDS[i]}"
    case "$word" in
      -*) ;;
      *) [[ " $valued " == *" \${COMP_WORDS[i-1]} "* ]] || { cmd="$word"; break; } ;;
    esac
  done
  case "$prev" in
${values}
  esac
  local opts
  case "$cmd" in
${cases}
    *) opts=${quoted(optionsOf(undefined).map((o) => `--${o}`).join(' '))} ;;
  esac
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$opts" -- "$cur"))
  elif [[ -z "$cmd" || "$cmd" == help ]]; then
    COMPREPLY=($(compgen -W ${quoted(commands().map(([name]) => name).join(' '))} -- "$cur"))
  elif [[ "$cmd" == completion ]]; then
    COMPREPLY=($(compgen -W ${quoted(SHELLS.join(' '))} -- "$cur"))
  elif [[ "$cmd" == show || "$cmd" == explain ]]; then
    COMPREPLY=($(compgen -W "$("\${COMP_WORDS[0]}" ${NAMES})" -- "$cur"))
  fi
}
complete -F _dsh_skills dsh-skills
`
}

/** `text` for a zsh `_arguments` description (inside `[...]`). */
function zshDescription(text) {
  return brief(text).replace(/([[\]:\\])/g, '\\$1')
}

/** One `_arguments` spec of an option. */
function zshSpec(name) {
  const spec = OPTIONS[name]
  const forms = [spec.short, spec.alias].filter(Boolean).map((short) => `-${short}`)
  const repeat = spec.multiple || spec.override ? '*' : ''
  const description = `[${zshDescription(spec.help)}]`
  let action = ''
  if (spec.type === 'string') {
    const choices = choicesOf(name)
    action = choices ? `:${spec.value}:(${choices.join(' ')})` : spec.dir ? `:${spec.value}:_directories` : `:${spec.value}: `
  }
  if (forms.length === 0) return quoted(`${repeat}--${name}${description}${action}`)
  const all = [...forms, `--${name}`]
  return `${quoted(`(${all.join(' ')})`)}{${all.join(',')}}${quoted(`${description}${action}`)}`
}

function zsh() {
  const described = commands()
    .map(([name, c]) => `    ${quoted(`${name}:${brief(c.summary).replace(/:/g, '\\:')}`)}`)
    .join('\n')
  const cases = commands()
    .map(([name]) => {
      const specs = optionsOf(name).map(zshSpec)
      if (name === 'show' || name === 'explain') specs.push(quoted('1:skill:_dsh_skills_names'))
      if (name === 'help') specs.push(quoted(`1:command:(${commands().map(([n]) => n).join(' ')})`))
      if (name === 'completion') specs.push(quoted(`1:shell:(${SHELLS.join(' ')})`))
      return `    ${name}) _arguments -s \\\n      ${specs.join(' \\\n      ')} ;;`
    })
    .join('\n')
  return `#compdef dsh-skills
# dsh-skills completion for zsh. Load it with:
#   eval "$(dsh-skills completion zsh)"      (in ~/.zshrc, after compinit)
# or save it as _dsh-skills in a directory of $fpath.
_dsh_skills_names() {
  local -a names
  names=(\${(f)"$(dsh-skills ${NAMES})"})
  _describe -t skills skill names
}
_dsh_skills() {
  local -a commands
  commands=(
${described}
  )
  local curcontext="$curcontext" state line
  _arguments -C '1:command:->command' '*::argument:->argument' && return
  case $state in
  command) _describe -t commands command commands ;;
  argument)
    case $line[1] in
${cases}
    esac ;;
  esac
}
if (( $+functions[compdef] )); then compdef _dsh_skills dsh-skills; fi
`
}

/** `text` inside single quotes for fish. */
function fishQuoted(text) {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`
}

function fish() {
  const names = commands().map(([name]) => name)
  const lines = [
    '# dsh-skills completion for fish. Load it with:',
    '#   dsh-skills completion fish > ~/.config/fish/completions/dsh-skills.fish',
    'complete -c dsh-skills -f',
  ]
  for (const [name, c] of commands()) {
    lines.push(`complete -c dsh-skills -n ${fishQuoted(`not __fish_seen_subcommand_from ${names.join(' ')}`)} -a ${name} -d ${fishQuoted(brief(c.summary))}`)
  }
  for (const name of Object.keys(OPTIONS)) {
    const spec = OPTIONS[name]
    const users = names.filter((command) => optionsOf(command).includes(name))
    const condition = GLOBAL.includes(name) ? '' : ` -n ${fishQuoted(`__fish_seen_subcommand_from ${users.join(' ')}`)}`
    const shorts = [spec.short, spec.alias].filter(Boolean).map((short) => ` -s ${short}`).join('')
    let value = ''
    if (spec.type === 'string') {
      const choices = choicesOf(name)
      value = choices ? ` -x -a ${fishQuoted(choices.join(' '))}` : spec.dir ? ` -x -a '(__fish_complete_directories)'` : ' -x'
    }
    lines.push(`complete -c dsh-skills${condition} -l ${name}${shorts}${value} -d ${fishQuoted(brief(spec.help))}`)
  }
  lines.push(`complete -c dsh-skills -n '__fish_seen_subcommand_from help' -a ${fishQuoted(names.join(' '))}`)
  lines.push(`complete -c dsh-skills -n '__fish_seen_subcommand_from completion' -a ${fishQuoted(SHELLS.join(' '))}`)
  lines.push(
    `complete -c dsh-skills -n '__fish_seen_subcommand_from show explain' -a ${fishQuoted(`(dsh-skills ${NAMES})`)}`,
  )
  return `${lines.join('\n')}\n`
}

const SCRIPTS = { bash, zsh, fish }

/**
 * @param {string[]} args
 * @param {{ stdout: NodeJS.WritableStream }} io
 */
function run(args, io) {
  if (args.length !== 1) {
    throw new UsageError(args.length ? 'completion takes one shell name' : `completion needs a shell: ${SHELLS.join(', ')}`, 'completion')
  }
  const [shell] = args
  if (!SHELLS.includes(shell)) {
    throw new UsageError(`completion takes ${SHELLS.join(', ')} (got ${JSON.stringify(shell)})${didYouMean(closest(shell, SHELLS))}`, 'completion')
  }
  io.stdout.write(SCRIPTS[shell]())
  return 0
}

module.exports = { run }
