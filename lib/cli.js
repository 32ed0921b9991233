'use strict'
// `dsh-skills`: inspect what the local skill provider sees from a directory —
// the skills, the model-facing catalog, one skill's tool result, why a file
// was loaded, shadowed, skipped or ignored — and follow catalog changes live.
// Plain Node; the only dependency is this package.
//
// Commands and options are tables (COMMANDS, OPTIONS): adding a command or a
// flag is one entry there plus its handler.

const fs = require('node:fs')
const path = require('node:path')
const util = require('node:util')
const term = require('./cli-term.js')
const { classify, deepSkillFiles } = require('./cli-doctor.js')

const PACKAGE_ROOT = path.resolve(__dirname, '..')
const EXAMPLE_WORKSPACE = path.join(PACKAGE_ROOT, 'examples', 'workspace')

/** A mistake in the command line: one line on stderr, exit code 2. */
class UsageError extends Error {
  /** @param {string} message @param {string} [command] the command whose help to point at */
  constructor(message, command) {
    super(message)
    this.command = command
  }
}
/** A failure to report as one line on stderr, exit code 1. */
class CliError extends Error {}

/**
 * Every option. `key` is the property in the parsed options; `dir` marks a
 * directory option (`'error'`: must exist; `'warn'`: a warning when missing).
 */
const OPTIONS = {
  cwd: {
    type: 'string',
    value: 'DIR',
    dir: 'error',
    help: 'directory to look from (default: the current one); its project root is the nearest ancestor holding .git',
  },
  'dsh-home': {
    type: 'string',
    value: 'DIR',
    dir: 'warn',
    help: 'user DSH home, skills in DIR/skills (default: $DSH_HOME or ~/.dsh)',
  },
  'agents-home': {
    type: 'string',
    value: 'DIR',
    dir: 'warn',
    help: 'user agents home, skills in DIR/skills (default: $DSH_AGENTS_HOME or ~/.agents)',
  },
  'skill-dir': {
    type: 'string',
    value: 'DIR',
    multiple: true,
    key: 'skillDirs',
    dir: 'warn',
    help: 'extra skill root (source "custom"); repeatable',
  },
  'bundled-dir': {
    type: 'string',
    value: 'DIR',
    dir: 'warn',
    help: 'skills shipped with the deployment (default: $DSH_BUNDLED_SKILL_DIR when set)',
  },
  'nested-roots': {
    type: 'boolean',
    help: 'monorepos: also the .dsh/skills and .agents/skills of every directory from --cwd up to the project root, nearest first',
  },
  compat: {
    type: 'string',
    value: 'LIST',
    multiple: true,
    key: 'compat',
    help: 'compatibility roots, comma-separated: claude (<project>/.claude/skills and ~/.claude/skills), codex ($CODEX_HOME/skills or ~/.codex/skills); repeatable',
  },
  'provider-name': { type: 'string', value: 'NAME', help: 'name of the local provider (default: local)' },
  'no-default-roots': {
    type: 'boolean',
    help: 'scan only --skill-dir, --bundled-dir and --compat roots (not the project .dsh/.agents roots, the user roots or $DSH_BUNDLED_SKILL_DIR)',
  },
  'max-length': { type: 'string', value: 'N', help: 'catalog description limit (default 500, minimum 3)' },
  budget: {
    type: 'string',
    value: 'N',
    help: 'most characters the catalog entries may take: descriptions are shortened fairly, then shown by name only, then skills left out with a count (default: no budget)',
  },
  pin: {
    type: 'string',
    value: 'NAME',
    multiple: true,
    key: 'pinned',
    help: 'keep skill NAME\'s full description under --budget (first pinned has the highest priority); repeatable',
  },
  off: {
    type: 'string',
    value: '[SOURCE:]NAME',
    override: 'off',
    help:
      'switch skill NAME off (a glob with * matches several; SOURCE:NAME only the copy from that source, so a lower-ranked copy wins); repeatable, a later flag wins',
  },
  'user-only': {
    type: 'string',
    value: '[SOURCE:]NAME',
    override: 'user-only',
    help: 'only users may invoke NAME: left out of the model catalog; repeatable',
  },
  'model-only': {
    type: 'string',
    value: '[SOURCE:]NAME',
    override: 'model-only',
    help: 'only the model may invoke NAME; repeatable',
  },
  on: {
    type: 'string',
    value: '[SOURCE:]NAME',
    override: 'on',
    help: 'NAME as declared again, undoing an earlier --off, --user-only or --model-only; repeatable',
  },
  poll: { type: 'boolean', help: 'poll instead of native filesystem events' },
  json: { type: 'boolean', help: 'machine-readable output' },
  quiet: { type: 'boolean', short: 'q', help: 'do not print warnings on stderr' },
  help: { type: 'boolean', short: 'h', help: 'show help (for a command: dsh-skills help COMMAND)' },
  version: { type: 'boolean', short: 'v', help: 'show the package version' },
}

/** Options every command accepts. */
const GLOBAL = ['help', 'version']
/** The options that choose the skill roots. */
const ROOTS = [
  'cwd',
  'dsh-home',
  'agents-home',
  'skill-dir',
  'bundled-dir',
  'nested-roots',
  'compat',
  'provider-name',
  'no-default-roots',
]
/** What `--compat` accepts. */
const COMPAT_ROOTS = ['claude', 'codex']
/** The options that add override rules, in command-line order. */
const OVERRIDES = ['off', 'user-only', 'model-only', 'on']
/** The options that lay out the catalog. */
const LAYOUT = ['max-length', 'budget', 'pin']

const COMMANDS = {
  list: {
    summary: 'skills that won their name: name, source, provider, invocation',
    options: [...ROOTS, ...OVERRIDES, 'json', 'quiet'],
    json: 'the snapshot: { skills, complete }',
    run: commandList,
  },
  catalog: {
    summary: 'the exact model-facing catalog message and its sha256 digest',
    options: [...ROOTS, ...OVERRIDES, ...LAYOUT, 'json', 'quiet'],
    json: '{ complete, message, entries, digest } (and report with --budget), byte-exact',
    run: commandCatalog,
  },
  show: {
    args: 'NAME',
    summary: 'the `skill` tool result for NAME',
    options: [...ROOTS, ...OVERRIDES, 'json', 'quiet'],
    json: '{ definition, toolResult }',
    run: commandShow,
  },
  explain: {
    args: 'NAME',
    summary: 'which copy of skill NAME won and why each other one lost: a lower rank, the same rank but later in order, or switched off',
    details:
      'Every provider counts: local roots, runtime skills and JS providers. Lower\n' +
      'ranks win; at the same rank, runtime skills come first, then providers in\n' +
      "registration order, then each provider's own order. --off, --user-only,\n" +
      '--model-only and --on apply before the merge.',
    options: [...ROOTS, ...OVERRIDES, 'json', 'quiet'],
    json: '{ name, complete, winner, losers }',
    run: commandExplain,
  },
  doctor: {
    summary: 'every entry considered: loaded, shadowed (and by what), broken (why, with a fix hint) or ignored (not a skill); exits 1 when a skill is broken',
    details:
      'Ignored, not counted as problems: folders without SKILL.md (node_modules/, .git/, ...),\n' +
      'dot-directories, and flat .md files without frontmatter (README.md). Broken: a\n' +
      'SKILL.md, or a flat .md file with frontmatter, that does not load.\n' +
      'With --budget: a warning (not a failure) when the budget cuts the catalog.',
    options: [...ROOTS, ...LAYOUT, 'json'],
    json: 'the diagnosis, each file with its verdict and hints',
    run: commandDoctor,
  },
  watch: {
    summary: 'print a replacement catalog each time the catalog changes, until Ctrl-C',
    options: [...ROOTS, ...OVERRIDES, ...LAYOUT, 'poll', 'json', 'quiet'],
    json: 'one JSON object per line and catalog change: { kind, digest, added, removed, changed }',
    run: commandWatch,
  },
  demo: {
    summary: 'tour of examples/workspace (source checkout only): list, catalog and doctor with the example\'s own roots; exits 0',
    options: ['json'],
    json: '{ config, snapshot, catalog, diagnosis }',
    run: commandDemo,
  },
  help: {
    args: '[COMMAND]',
    summary: 'this help, or the help of one command',
    options: [],
  },
}

const PARSE_OPTIONS = Object.fromEntries(
  Object.entries(OPTIONS).map(([name, o]) => [
    name,
    { type: o.type, ...(o.short ? { short: o.short } : {}), ...(o.multiple || o.override ? { multiple: true } : {}) },
  ]),
)

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
    json: false,
    poll: false,
    quiet: false,
    help: false,
    version: false,
  }
  for (const token of tokens) {
    if (token.kind !== 'option') continue
    const flag = token.rawName
    const spec = OPTIONS[token.name]
    if (!spec || (token.rawName.startsWith('--') && spec.short === token.name)) {
      const known = Object.keys(OPTIONS).map((name) => `--${name}`)
      const hint = flag.startsWith('--') ? closest(flag, known) : undefined
      throw new UsageError(`unknown option ${flag}${didYouMean(hint)}`, command)
    }
    const long = `--${token.name}`
    if (!allowed.has(token.name)) throw new UsageError(`${command} does not take ${long}`, command)
    if (spec.type === 'boolean') {
      if (token.value !== undefined) throw new UsageError(`${long} takes no value`, command)
      options[camel(token.name)] = true
      continue
    }
    const value = token.value
    if (value === undefined || value === '' || (!token.inlineValue && value.startsWith('-'))) {
      throw new UsageError(`${long} needs a value (${spec.value})`, command)
    }
    if (spec.override) options.overrides.push(overrideRule(value, spec.override))
    else if (spec.multiple) options[spec.key].push(value)
    else options[camel(token.name)] = value
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
  if (options.pinned.length && options.budget === undefined) {
    throw new UsageError('--pin has no effect without --budget', command)
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
      return [`${spec.short ? `-${spec.short}, ` : ''}--${name}${spec.value ? ` ${spec.value}` : ''}`, spec.help]
    }),
  )
}

function commandLines() {
  return helpRows(Object.entries(COMMANDS).map(([name, c]) => [c.args ? `${name} ${c.args}` : name, c.summary]))
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
Exit codes: 0 success, 1 failure or doctor found a broken skill, 2 usage error.
`

/** The help of one command. */
function commandHelp(name) {
  const c = COMMANDS[name]
  const options = [...c.options, ...GLOBAL]
  return (
    `Usage: dsh-skills ${name}${c.args ? ` ${c.args}` : ''}${options.length ? ' [options]' : ''}\n\n` +
    `${helpRows([['', `${c.summary[0].toUpperCase()}${c.summary.slice(1)}.`]]).replace(/^ +/gm, '')}\n` +
    (c.details ? `\n${c.details}\n` : '') +
    (c.json ? `\nWith --json: ${c.json}.\n` : '') +
    `\nOptions:\n${optionLines(options)}\n`
  )
}

function loadPackage() {
  try {
    return {
      api: require('../index.js'),
      catalog: require('./catalog.js'),
    }
  } catch (error) {
    throw new CliError(`cannot load @deepseek-ai/dsh-skill-native: ${firstLine(error)}`)
  }
}

function firstLine(error) {
  const message = error instanceof Error ? error.message : String(error)
  return message.split('\n')[0]
}

/** `dir` as an absolute path; a usage error unless it is an existing directory. */
function existingDir(dir, flag) {
  const problem = dirProblem(dir)
  if (problem) throw new UsageError(`${flag}: ${problem}: ${dir}`)
  return path.resolve(dir)
}

/** Why `dir` is not an existing directory, or undefined when it is one. */
function dirProblem(dir) {
  let stat
  try {
    stat = fs.statSync(path.resolve(dir))
  } catch {
    return 'no such directory'
  }
  return stat.isDirectory() ? undefined : 'not a directory'
}

/** Path for display: relative to the current directory when inside it. */
function shown(file) {
  if (typeof file !== 'string' || file.length === 0) return String(file)
  const relative = path.relative(process.cwd(), file)
  if (relative === '') return '.'
  if (relative.startsWith('..') || path.isAbsolute(relative)) return file
  return relative
}

function invocationLabel(invocation) {
  const surfaces = []
  if (invocation && invocation.modelInvocable) surfaces.push('model')
  if (invocation && invocation.userInvocable) surfaces.push('user')
  return surfaces.length ? surfaces.join(', ') : 'none'
}

function json(value) {
  return `${JSON.stringify(value, null, 2)}\n`
}

/**
 * The local provider configuration from the command line.
 * @param {ReturnType<typeof parseArgs>['options']} options
 */
function providerConfig(options) {
  const config = {}
  if (options.dshHome !== undefined) config.dshHome = path.resolve(options.dshHome)
  if (options.agentsHome !== undefined) config.agentsHome = path.resolve(options.agentsHome)
  if (options.skillDirs.length) config.customSkillDirs = options.skillDirs.map((dir) => path.resolve(dir))
  if (options.bundledDir !== undefined) config.bundledSkillDir = path.resolve(options.bundledDir)
  if (options.nestedRoots) config.nestedRoots = true
  if (options.compat.length) config.compatRoots = options.compat
  if (options.providerName !== undefined) config.providerName = options.providerName
  if (options.noDefaultRoots) config.includeDefaultRoots = false
  return config
}

/** Warnings for directory options that name nothing usable (`--cwd` is an error instead). */
function checkDirOptions(options, warn) {
  for (const [name, spec] of Object.entries(OPTIONS)) {
    if (spec.dir !== 'warn') continue
    const value = options[camel(name)]
    for (const dir of name === 'skill-dir' ? options.skillDirs : value === undefined ? [] : [value]) {
      const problem = dirProblem(dir)
      if (problem) warn(`--${name} ${dir}: ${problem}`)
    }
  }
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

/** A rejected override rule, told by its flag (`overrides[1].name …` → `--off Foo: name …`). */
function overrideProblem(message, overrides) {
  const match = /^overrides\[(\d+)\]\.(.*)$/.exec(message)
  const rule = match ? overrides[Number(match[1])] : undefined
  return rule ? `${overrideFlag(rule)}: ${match[2]}` : message
}

class Session {
  /**
   * @param {ReturnType<typeof parseArgs>['options']} options
   * @param {{ stdout: NodeJS.WritableStream, stderr: NodeJS.WritableStream, out: term.Output, err: term.Output }} io
   * @param {{ watch?: boolean, printWarnings?: boolean, config?: object }} [mode]
   */
  constructor(options, io, mode = {}) {
    this.cwd = options.cwd !== undefined ? existingDir(options.cwd, '--cwd') : process.cwd()
    const { api, catalog } = loadPackage()
    this.api = api
    this.catalog = catalog
    this.io = io
    this.options = options
    this.warnings = []
    const printWarnings = mode.printWarnings !== false && !options.quiet
    // Each distinct warning is printed once (watch re-lists on every change).
    const printed = new Set()
    const logger = {
      warn: (message) => {
        this.warnings.push(message)
        if (!printWarnings || printed.has(message)) return
        printed.add(message)
        io.err.warning(message)
      },
    }
    if (!mode.config && !options.quiet) checkDirOptions(options, (message) => io.err.warning(message))
    const overrides = options.overrides ?? []
    try {
      this.registry = new api.SkillRegistry({ logger, ...(overrides.length ? { overrides } : {}) })
    } catch (error) {
      throw new UsageError(overrideProblem(firstLine(error), overrides))
    }
    try {
      this.provider = this.registry.registerLocalProvider({
        ...(mode.config ?? providerConfig(options)),
        watch: mode.watch === true,
        ...(mode.watch && options.poll ? { watchUsePolling: true } : {}),
        logger,
      })
    } catch (error) {
      throw new CliError(`invalid skill roots: ${firstLine(error)}`)
    }
  }

  lookup() {
    return { cwd: this.cwd }
  }

  snapshot() {
    return this.registry.snapshot(this.lookup())
  }

  dispose() {
    this.disposed ??= Promise.resolve()
      .then(() => this.provider.dispose())
      .catch(() => {})
    return this.disposed
  }
}

const OUTCOME_STYLE = { loaded: 'green', shadowed: 'yellow', broken: 'red', skipped: 'red', ignored: 'dim' }

async function commandList(session) {
  const { io, options } = session
  const snapshot = await session.snapshot()
  if (options.json) {
    io.stdout.write(json(snapshot))
  } else if (snapshot.skills.length === 0) {
    io.out.line('No skills found.')
  } else {
    const rows = snapshot.skills.map((skill) => [
      skill.name,
      skill.source,
      skill.provider,
      invocationLabel(skill.invocation),
    ])
    io.out.table(['NAME', 'SOURCE', 'PROVIDER', 'INVOCATION'], rows)
  }
  if (!snapshot.complete) io.err.line('dsh-skills: discovery was incomplete: some skills may be missing')
  return 0
}

/** The catalog layout options given on the command line (`maxLength` alone without a budget). */
function layout(options) {
  if (options.budget === undefined) return options.maxLength
  return { maxLength: options.maxLength, budget: options.budget, pinned: options.pinned }
}

function renderCatalog(session, skills) {
  const { catalog, options } = session
  const visible = skills.filter((skill) => skill.invocation.modelInvocable)
  const { entries, digest, report } = catalog.renderCatalog(skills, layout(options))
  const message = visible.length ? catalog.renderCatalogMessage(skills, layout(options)) : null
  return { entries, digest, message, count: visible.length, report }
}

/** One line about what a budget did to the catalog (`report` of `renderCatalog`). */
function budgetLine(budget, report) {
  const parts = [`${report.full} in full`]
  if (report.shortened) parts.push(`${report.shortened} shortened`)
  if (report.nameOnly) parts.push(`${report.nameOnly} by name only`)
  if (report.omitted) parts.push(`${report.omitted} left out`)
  const skills = report.total === 1 ? '1 skill' : `${report.total} skills`
  return `budget ${budget}: ${skills}, ${parts.join(', ')}; entries ${report.chars} characters`
}

/** `--pin` names that are not model-invocable skills of the catalog (they have no effect). */
function warnUnknownPins(session, skills) {
  const { io, options } = session
  if (options.quiet || !options.pinned.length) return
  const names = skills.filter((skill) => skill.invocation.modelInvocable).map((skill) => skill.name)
  for (const name of new Set(options.pinned)) {
    if (!names.includes(name)) {
      io.err.line(`dsh-skills: warning: --pin ${name}: no model-invocable skill of that name${didYouMean(closest(name, names))}`)
    }
  }
}

async function commandCatalog(session) {
  const { io, options } = session
  const snapshot = await session.snapshot()
  const rendered = renderCatalog(session, snapshot.skills)
  warnUnknownPins(session, snapshot.skills)
  const budgeted = options.budget !== undefined
  if (options.json) {
    const { message, entries, digest, report } = rendered
    io.stdout.write(json({ complete: snapshot.complete, message, entries, digest, ...(budgeted ? { report } : {}) }))
  } else if (rendered.message === null) {
    io.err.line('dsh-skills: no model-invocable skills: no catalog would be published')
  } else {
    io.out.text(`${rendered.message}\n\ndigest: ${rendered.digest}\n`)
    if (budgeted) io.out.line(budgetLine(options.budget, rendered.report))
  }
  if (!snapshot.complete) {
    io.err.line('dsh-skills: discovery was incomplete: a harness would keep its previous catalog')
  }
  return 0
}

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

async function commandShow(session, args) {
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

/** Where an explained candidate lives: its path, else its resource base. */
function candidatePlace(candidate) {
  if (candidate.path !== undefined) return shown(candidate.path)
  const base = candidate.resourceBase
  if (base && typeof base === 'object') {
    if (typeof base.path === 'string') return shown(base.path)
    if (typeof base.url === 'string') return base.url
    if (typeof base.description === 'string') return base.description
  }
  return '-'
}

const LOST_BECAUSE = {
  rank: 'lost: rank',
  order: 'lost: order',
  off: 'off',
}

async function commandExplain(session, args) {
  const { io, options } = session
  const name = skillNameArg(session, args, 'explain')
  const explanation = await session.registry.explain(name, session.lookup())
  if (explanation === undefined) {
    const names = await listedNames(session)
    throw new CliError(`no provider lists a skill "${name}"${didYouMean(closest(name, names))} (see: dsh-skills list)`)
  }
  if (options.json) {
    io.stdout.write(json(explanation))
  } else {
    const rule = (candidate) => (candidate.override ? options.overrides[candidate.override.rule] : undefined)
    const row = (candidate, outcome) => {
      const by = rule(candidate)
      return [
        by && candidate.override.effect !== 'on' ? `${outcome} (${overrideFlag(by)})` : outcome,
        candidate.provider,
        candidate.source,
        String(candidate.rank),
        invocationLabel(candidate.invocation),
        candidatePlace(candidate),
      ]
    }
    const rows = []
    if (explanation.winner) rows.push(row(explanation.winner, 'won'))
    for (const loser of explanation.losers) rows.push(row(loser, LOST_BECAUSE[loser.reason] ?? loser.reason))
    const count = rows.length === 1 ? '1 candidate' : `${rows.length} candidates`
    io.out.line(
      explanation.winner
        ? `${name}: ${count}; the ${explanation.winner.source} copy from provider ${explanation.winner.provider} wins`
        : `${name}: ${count}, all switched off: no skill of this name is listed`,
    )
    io.out.line('')
    io.out.table(['OUTCOME', 'PROVIDER', 'SOURCE', 'RANK', 'INVOCATION', 'WHERE'], rows)
    const reasons = new Set(explanation.losers.map((loser) => loser.reason))
    if (reasons.size > 0) io.out.line('')
    if (reasons.has('rank')) io.out.line('lost: rank   the winner has a lower rank')
    if (reasons.has('order')) {
      io.out.line('lost: order  same rank; the winner comes first (runtime, then providers in registration order)')
    }
    if (reasons.has('off')) io.out.line('off          switched off by an override: it took no part')
  }
  if (!explanation.complete) io.err.line('dsh-skills: discovery was incomplete: some candidates may be missing')
  return 0
}

/** The diagnosis as `{ projectRoot?, complete, roots, files, warnings }`. */
function normalizeDiagnosis(value) {
  if (Array.isArray(value)) return { complete: true, roots: [], files: value, warnings: [] }
  const diagnosis = value && typeof value === 'object' ? value : {}
  return {
    ...diagnosis,
    complete: diagnosis.complete !== false,
    roots: Array.isArray(diagnosis.roots) ? diagnosis.roots : [],
    files: Array.isArray(diagnosis.files) ? diagnosis.files : [],
    warnings: Array.isArray(diagnosis.warnings) ? diagnosis.warnings : [],
  }
}

/** The diagnosis with each file's doctor verdict (`loaded`, `shadowed`, `broken`, `ignored`) and hints. */
async function diagnose(session) {
  const diagnosis = normalizeDiagnosis(await session.provider.diagnose(session.lookup()))
  const rootOf = (file) => diagnosis.roots.find((root) => isInside(String(file.path), root.path))
  const files = diagnosis.files.map((file) => {
    const root = rootOf(file)
    return { ...file, ...classify(file, root, session.api.isSkillName) }
  })
  return { ...diagnosis, files }
}

function countVerdicts(files) {
  const counts = { loaded: 0, shadowed: 0, broken: 0, ignored: 0 }
  for (const file of files) if (Object.hasOwn(counts, file.verdict)) counts[file.verdict]++
  return counts
}

function summary(counts) {
  return `${counts.loaded} loaded, ${counts.shadowed} shadowed, ${counts.broken} broken, ${counts.ignored} ignored`
}

function isInside(file, dir) {
  const relative = path.relative(dir, file)
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative)
}

/** Where a file is shown: relative to its root (bundles by folder), else its path and source. */
function fileLabel(file, root) {
  if (!root) return `${shown(file.path)} [${file.source}]`
  const relative = path.relative(root.path, file.path)
  // A folder without SKILL.md is reported at `<dir>/SKILL.md`: show the folder.
  return file.verdict === 'ignored' && file.layout === 'bundle' && !file.hasSkillFile
    ? `${path.dirname(relative)}/`
    : relative
}

function formatDoctor(session, diagnosis, out) {
  out.line(`Looking from ${shown(session.cwd)}`)
  if (diagnosis.projectRoot) out.line(`Project root: ${shown(diagnosis.projectRoot)}`)
  const nameWidth = Math.min(32, Math.max(4, ...diagnosis.files.map((file) => (file.name ?? '').length)))
  const indent = ' '.repeat(4 + 8 + 2)
  const fileLines = (file, root) => {
    const verdict = file.verdict.padEnd(8)
    const name = file.verdict === 'loaded' || file.verdict === 'shadowed' ? (file.name ?? '') : ''
    out.fit([
      ['    ', null],
      [verdict, OUTCOME_STYLE[file.verdict]],
      ['  ', null],
      [term.fitCell(name, nameWidth).padEnd(nameWidth), null],
      ['  ', null],
      [fileLabel(file, root), null],
    ])
    if (file.verdict === 'shadowed') {
      const winner = file.shadowedBy
      out.line(`${indent}by ${winner ? `${shown(winner.path)} [${winner.source}]` : file.reason || 'a higher-ranked skill'}`)
    } else if (file.verdict === 'broken') {
      out.line(`${indent}because ${file.reason ?? 'of an unknown problem'}`)
    } else if (file.verdict === 'ignored') {
      out.line(`${indent}${file.why}`)
    }
    for (const hint of file.hints) out.styled(`${indent}hint: ${hint}`, 'cyan')
  }
  const placed = new Set()
  for (const root of diagnosis.roots) {
    const status = root.reason ? `${root.status}: ${root.reason}` : root.status
    out.line('')
    out.line(`${root.source} (rank ${root.rank})  ${shown(root.path)}${status && status !== 'scanned' ? `  [${status}]` : ''}`)
    const files = diagnosis.files.filter((file) => !placed.has(file) && isInside(file.path, root.path))
    if (files.length === 0) out.line('    (no skill files)')
    for (const file of files) {
      placed.add(file)
      fileLines(file, root)
    }
  }
  const others = diagnosis.files.filter((file) => !placed.has(file))
  if (others.length) {
    out.line('')
    out.line(diagnosis.roots.length ? 'Other files:' : 'Files:')
    for (const file of others) fileLines(file, undefined)
  }
  out.line('')
  out.line(summary(countVerdicts(diagnosis.files)))
  if (!diagnosis.complete) out.line('Discovery was incomplete: some roots could not be read.')
}

/** Adds the hint about skill folders nested deeper than the one level that is scanned. */
function addDepthHints(diagnosis) {
  for (const file of diagnosis.files) {
    if (file.verdict !== 'ignored' || file.layout !== 'bundle' || file.hasSkillFile) continue
    const dir = path.dirname(String(file.path))
    if (path.basename(dir).startsWith('.')) continue
    const count = deepSkillFiles(dir)
    if (count > 0) {
      const files = count === 1 ? '1 SKILL.md file' : `${count} SKILL.md files`
      file.hints.push(
        `${files} below \`${path.basename(dir)}/\` ${count === 1 ? 'is' : 'are'} deeper than one level; ` +
          'only one level is scanned (link or copy the skill folders up)',
      )
    }
  }
}

async function commandDoctor(session) {
  const { io, options } = session
  const diagnosis = await diagnose(session)
  addDepthHints(diagnosis)
  const counts = countVerdicts(diagnosis.files)
  let budget
  if (options.budget !== undefined) {
    const snapshot = await session.snapshot()
    warnUnknownPins(session, snapshot.skills)
    const { report } = renderCatalog(session, snapshot.skills)
    budget = { budget: options.budget, report, cuts: report.full < report.total }
  }
  if (options.json) {
    io.stdout.write(json(budget ? { ...diagnosis, budget } : diagnosis))
  } else {
    formatDoctor(session, diagnosis, io.out)
    if (budget?.cuts) {
      io.out.styled(`warning: the catalog does not fit the ${budgetLine(budget.budget, budget.report)}`, 'yellow')
    } else if (budget) {
      io.out.line(`The catalog fits the ${budgetLine(budget.budget, budget.report)}`)
    }
  }
  return counts.broken > 0 || !diagnosis.complete ? 1 : 0
}

/** Catalog entries by skill name (the model-visible line of each; a skill a budget left out has none). */
function entriesByName(session, skills) {
  const entries = new Map()
  for (const line of session.catalog.renderCatalogEntries(skills, layout(session.options)).split('\n')) {
    const name = /^- `([^`]+)`/.exec(line)?.[1]
    if (name !== undefined) entries.set(name, line)
  }
  return entries
}

/** Names added, removed and changed between two catalogs (`entriesByName` maps). */
function catalogChanges(before, after) {
  const added = [...after.keys()].filter((name) => !before.has(name))
  const removed = [...before.keys()].filter((name) => !after.has(name))
  const changed = [...after.keys()].filter((name) => before.has(name) && before.get(name) !== after.get(name))
  return { added, removed, changed }
}

async function commandWatch(session) {
  const { io, catalog, options } = session
  let published = false
  let visibleDigest
  let visibleEntries = new Map()
  let running = false
  let again = false
  let stopped = false

  const refresh = async () => {
    if (running) {
      again = true
      return
    }
    running = true
    try {
      do {
        again = false
        const snapshot = await session.snapshot()
        if (stopped) return
        const plan = catalog.planCatalogStep({
          snapshot,
          visibleDigest,
          published,
          ...(options.budget === undefined
            ? { maxLength: options.maxLength }
            : { maxLength: options.maxLength, budget: options.budget, pinned: options.pinned }),
        })
        if (plan.kind !== 'initial' && plan.kind !== 'replacement') continue
        const { digest } = renderCatalog(session, snapshot.skills)
        const entries = entriesByName(session, snapshot.skills)
        if (options.json) {
          const changes = catalogChanges(visibleEntries, entries)
          io.stdout.write(`${JSON.stringify({ kind: plan.kind, digest, ...changes })}\n`)
        } else {
          const message =
            plan.kind === 'initial'
              ? catalog.renderCatalogMessage(snapshot.skills, layout(options))
              : catalog.renderCatalogUpdate(snapshot.skills, layout(options))
          io.out.text(`# ${plan.kind} catalog, digest ${digest}\n${message}\n\n`)
        }
        published = true
        visibleDigest = digest
        visibleEntries = entries
      } while (again && !stopped)
    } catch (error) {
      io.err.line(`dsh-skills: catalog refresh failed: ${firstLine(error)}`)
    } finally {
      running = false
    }
  }

  return new Promise((resolve) => {
    // The native watchers do not keep Node alive on purpose: this timer does,
    // until Ctrl-C.
    const keepAlive = setInterval(() => {}, 1 << 30)
    const unsubscribe = session.registry.onChange(() => {
      refresh()
    })
    const stop = () => {
      if (stopped) return
      stopped = true
      process.off('SIGINT', stop)
      process.off('SIGTERM', stop)
      unsubscribe()
      clearInterval(keepAlive)
      session.dispose().then(() => resolve(0))
    }
    process.on('SIGINT', stop)
    process.on('SIGTERM', stop)
    if (!options.quiet) io.err.line(`dsh-skills: watching skills for ${shown(session.cwd)} (Ctrl-C to stop)`)
    refresh().then(() => {
      if (!published && !stopped && !options.quiet) io.err.line('dsh-skills: no model-invocable skills yet')
    })
  })
}

/** Make `dir` its own project root: an empty `.git` directory (git never tracks `.git`). */
function ensureProjectMarker(dir) {
  const marker = path.join(dir, '.git')
  if (!fs.existsSync(marker)) fs.mkdirSync(marker)
}

async function commandDemo(options, io) {
  if (!fs.existsSync(path.join(EXAMPLE_WORKSPACE, '.agents'))) {
    throw new CliError('the example workspace is part of the source repository only (examples/workspace)')
  }
  try {
    ensureProjectMarker(EXAMPLE_WORKSPACE)
  } catch (error) {
    throw new CliError(`cannot mark the example workspace as a project root: ${firstLine(error)}`)
  }
  const home = path.join(EXAMPLE_WORKSPACE, 'home')
  const config = {
    dshHome: path.join(home, '.dsh'),
    agentsHome: path.join(home, '.agents'),
    customSkillDirs: [path.join(EXAMPLE_WORKSPACE, 'team-skills')],
    bundledSkillDir: path.join(home, 'bundled-skills'),
  }
  const session = new Session({ ...options, cwd: EXAMPLE_WORKSPACE }, io, { printWarnings: false, config })
  try {
    const snapshot = await session.snapshot()
    const diagnosis = await diagnose(session)
    addDepthHints(diagnosis)
    const rendered = renderCatalog(session, snapshot.skills)
    if (options.json) {
      io.stdout.write(json({ config, snapshot, catalog: rendered, diagnosis }))
      return 0
    }
    const section = (title) => io.out.text(`\n== ${title} ==\n\n`)
    io.out.text(
      `Example workspace: ${shown(EXAMPLE_WORKSPACE)}\n` +
        `User roots: ${shown(config.dshHome)}, ${shown(config.agentsHome)} (not your home directory)\n` +
        `Custom root: ${shown(config.customSkillDirs[0])}; bundled root: ${shown(config.bundledSkillDir)}\n`,
    )
    section('dsh-skills list')
    await commandList(session)
    section('dsh-skills catalog (what the model sees)')
    if (rendered.message !== null) io.out.text(`${rendered.message}\n\ndigest: ${rendered.digest}\n`)
    section('dsh-skills doctor')
    formatDoctor(session, diagnosis, io.out)
    const counts = countVerdicts(diagnosis.files)
    io.out.text(
      `\nThe ${counts.broken} broken files are deliberate: the example shows what doctor explains.\n` +
        'Try: node bin/dsh-skills.js show release-notes --cwd examples/workspace\n',
    )
    return 0
  } finally {
    await session.dispose()
  }
}

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
    if (options.version) {
      stdout.write(`${require('../package.json').version}\n`)
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
      stderr.write(HELP)
      return 2
    }
    if (!COMMANDS[command].args && args.length) {
      throw new UsageError(`${command} takes no arguments (got "${args[0]}")`, command)
    }
    if (command === 'demo') return await commandDemo(options, io)
    // doctor reports the warnings itself; show is about one skill.
    session = new Session(options, io, {
      watch: command === 'watch',
      printWarnings: command !== 'doctor' && command !== 'show',
    })
    return await COMMANDS[command].run(session, args)
  } catch (error) {
    if (error instanceof UsageError) {
      const see = error.command ? `dsh-skills help ${error.command}` : 'dsh-skills --help'
      io.err.line(`dsh-skills: ${error.message} (see: ${see})`)
      return 2
    }
    if (error instanceof CliError) {
      io.err.line(`dsh-skills: ${error.message}`)
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
