'use strict'
// The command line: `util.parseArgs` tokens checked against the tables of
// `spec.js`, with a "did you mean" for misspelt commands and options.

const util = require('node:util')
const { UsageError } = require('./errors.js')
const { OPTIONS, GLOBAL, ROOTS, COMPAT_ROOTS, COMMANDS } = require('./spec.js')

/** The `util.parseArgs` name of an option's second short form (`-V`), and back. */
const ALIAS_PREFIX = 'alias:'
const PARSE_OPTIONS = Object.fromEntries(
  Object.entries(OPTIONS).flatMap(([name, o]) => [
    [
      name,
      { type: o.type, ...(o.short ? { short: o.short } : {}), ...(o.multiple || o.override ? { multiple: true } : {}) },
    ],
    ...(o.alias ? [[`${ALIAS_PREFIX}${name}`, { type: o.type, short: o.alias }]] : []),
  ]),
)

/** The option a token names (`-V` names `version`), or undefined for an unknown one. */
function optionOf(token) {
  const long = token.rawName.startsWith('--')
  if (token.name.startsWith(ALIAS_PREFIX)) return long ? undefined : token.name.slice(ALIAS_PREFIX.length)
  const spec = OPTIONS[token.name]
  // `--h` is not `-h`.
  if (!spec || (long && spec.short === token.name)) return undefined
  return token.name
}

/** Edit distance counting a swap of two neighbours as one edit, for "did you mean". */
function distance(a, b) {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array(b.length).fill(0)])
  for (let j = 1; j <= b.length; j++) d[0][j] = j
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1)
    }
  }
  return d[a.length][b.length]
}

/** The closest candidate to `word`, if close enough to be a likely typo. */
function closest(word, candidates) {
  let best
  let bestDistance = Infinity
  for (const candidate of candidates) {
    const d = candidate.startsWith(word) && word.length >= 2 ? 0.5 : distance(word, candidate)
    if (d < bestDistance) {
      best = candidate
      bestDistance = d
    }
  }
  return bestDistance <= Math.max(1, Math.floor(word.length / 3)) ? best : undefined
}

function didYouMean(suggestion) {
  return suggestion === undefined ? '' : `; did you mean ${suggestion}?`
}

/**
 * Parse the command line with `util.parseArgs` (tokens), then check each
 * option against the command: unknown options get a "did you mean", options
 * that do not apply to the command are errors.
 * @param {string[]} argv arguments after the program name
 */
function parseArgs(argv) {
  const { tokens } = util.parseArgs({
    args: argv,
    options: PARSE_OPTIONS,
    strict: false,
    allowPositionals: true,
    tokens: true,
  })
  const positionals = tokens.filter((t) => t.kind === 'positional').map((t) => t.value)
  const [command, ...args] = positionals
  if (command !== undefined && !Object.hasOwn(COMMANDS, command)) {
    throw new UsageError(`unknown command "${command}"${didYouMean(closest(command, Object.keys(COMMANDS)))}`)
  }
  const allowed = new Set([...GLOBAL, ...(command ? COMMANDS[command].options : Object.keys(OPTIONS))])
  const options = {
    skillDirs: [],
    compat: [],
    pinned: [],
    overrides: [],
    /** The root-choosing flags as given (`--cwd X`), for the commands a hint suggests. */
    rootArgs: [],
    json: false,
    poll: false,
    quiet: false,
    verbose: false,
    help: false,
    version: false,
  }
  for (const token of tokens) {
    if (token.kind !== 'option') continue
    const flag = token.rawName
    const name = optionOf(token)
    if (name === undefined) {
      const known = Object.keys(OPTIONS).map((option) => `--${option}`)
      const hint = flag.startsWith('--') ? closest(flag, known) : undefined
      throw new UsageError(`unknown option ${flag}${didYouMean(hint)}`, command)
    }
    const spec = OPTIONS[name]
    const long = `--${name}`
    if (!allowed.has(name)) throw new UsageError(`${command} does not take ${long}`, command)
    if (spec.type === 'boolean') {
      if (token.value !== undefined) throw new UsageError(`${long} takes no value`, command)
      options[camel(name)] = true
      if (ROOTS.includes(name)) options.rootArgs.push(long)
      continue
    }
    const value = token.value
    if (value === undefined || value === '' || (!token.inlineValue && value.startsWith('-'))) {
      throw new UsageError(`${long} needs a value (${spec.value})`, command)
    }
    if (spec.choices && !spec.choices.includes(value)) {
      throw new UsageError(
        `${long} takes ${spec.choices.join(', ')} (got ${JSON.stringify(value)})${didYouMean(closest(value, spec.choices))}`,
        command,
      )
    }
    if (ROOTS.includes(name)) options.rootArgs.push(long, shellWord(value))
    if (spec.override) options.overrides.push(overrideRule(value, spec.override))
    else if (spec.multiple) options[spec.key].push(value)
    else options[camel(name)] = value
  }
  if (options.maxLength !== undefined) {
    const text = options.maxLength
    const n = Number(text)
    if (!/^\d+$/.test(text) || !Number.isSafeInteger(n) || n < 3) {
      throw new UsageError(`--max-length must be an integer >= 3 (got ${JSON.stringify(text)})`, command)
    }
    options.maxLength = n
  }
  if (options.budget !== undefined) {
    const text = options.budget
    const n = Number(text)
    if (!/^\d+$/.test(text) || !Number.isSafeInteger(n) || n < 1) {
      throw new UsageError(`--budget must be a positive integer (got ${JSON.stringify(text)})`, command)
    }
    options.budget = n
  }
  if (options.limit !== undefined) {
    const text = options.limit
    const n = Number(text)
    if (!/^\d+$/.test(text) || !Number.isSafeInteger(n) || n < 1) {
      throw new UsageError(`--limit must be a positive integer (got ${JSON.stringify(text)})`, command)
    }
    options.limit = n
  }
  if (options.pinned.length && options.budget === undefined) {
    throw new UsageError('--pin has no effect without --budget', command)
  }
  if (options.searchTool !== undefined && options.budget === undefined) {
    throw new UsageError('--search-tool has no effect without --budget', command)
  }
  options.compat = compatRoots(options.compat, command)
  if (options.noDefaultRoots) {
    const shaping = ['nested-roots', 'dsh-home', 'agents-home'].find((name) => options[camel(name)] !== undefined)
    if (shaping) throw new UsageError(`--${shaping} has no effect with --no-default-roots`, command)
  }
  return { command, args, options }
}

/** The `--compat` values, split at commas; unknown names are usage errors. */
function compatRoots(values, command) {
  const names = values.flatMap((value) => value.split(',')).map((name) => name.trim())
  for (const name of names) {
    if (!COMPAT_ROOTS.includes(name)) {
      throw new UsageError(
        `--compat takes ${COMPAT_ROOTS.join(', ')} (got ${JSON.stringify(name)})${didYouMean(closest(name, COMPAT_ROOTS))}`,
        command,
      )
    }
  }
  return [...new Set(names)]
}

function camel(name) {
  return name.replace(/-(\w)/g, (_, c) => c.toUpperCase())
}

/** `value` as one shell word: as it is when plain, else single-quoted. */
function shellWord(value) {
  return /^[\w@%+=:,./~-]+$/.test(value) && !value.startsWith('~') ? value : `'${value.replaceAll("'", "'\\''")}'`
}

/** The rule of an override flag's value: `NAME`, or `SOURCE:NAME` (names hold no colon). */
function overrideRule(value, effect) {
  const colon = value.lastIndexOf(':')
  return colon === -1 ? { name: value, effect } : { name: value.slice(colon + 1), source: value.slice(0, colon), effect }
}

/** The command-line flag of an override rule. */
function overrideFlag(rule) {
  return `--${rule.effect} ${rule.source === undefined ? '' : `${rule.source}:`}${rule.name}`
}

module.exports = { parseArgs, closest, didYouMean, camel, overrideRule, overrideFlag, shellWord }
