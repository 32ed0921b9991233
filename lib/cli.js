'use strict'
// `dsh-skills`: inspect what the local skill provider sees from a directory —
// the skills, the model-facing catalog, one skill's tool result, why a file
// was loaded, shadowed or skipped — and follow catalog changes live.
// Plain Node; the only dependency is this package.

const fs = require('node:fs')
const path = require('node:path')

const PACKAGE_ROOT = path.resolve(__dirname, '..')
const EXAMPLE_WORKSPACE = path.join(PACKAGE_ROOT, 'examples', 'workspace')

const HELP = `Usage: dsh-skills <command> [options]

Inspect the skills an agent harness would discover from a directory, with the
native local provider of @deepseek-ai/dsh-skill-native.

Commands:
  list           skills that won their name: name, source, provider, invocation
  catalog        the exact model-facing catalog message and its sha256 digest
  show NAME      the \`skill\` tool result for NAME
  doctor         every file considered: loaded, shadowed (and by what) or
                 skipped (and why); exits 1 when something was skipped
  watch          print a replacement catalog each time the catalog changes,
                 until Ctrl-C
  demo           tour of examples/workspace (source checkout only): list,
                 catalog and doctor with the example's own project and user
                 roots; exits 0

Options:
  --cwd DIR              directory to look from (default: the current one); its
                         project root is the nearest ancestor holding .git
  --dsh-home DIR         user DSH home, skills in DIR/skills
                         (default: $DSH_HOME or ~/.dsh)
  --agents-home DIR      user agents home, skills in DIR/skills
                         (default: $DSH_AGENTS_HOME or ~/.agents)
  --skill-dir DIR        extra skill root (source "custom"); repeatable
  --bundled-dir DIR      skills shipped with the deployment
                         (default: $DSH_BUNDLED_SKILL_DIR when set)
  --max-length N         catalog description limit (default 500, minimum 3)
  --poll                 watch: poll instead of native filesystem events
  --json                 machine-readable output (list, catalog, show, doctor)
  -q, --quiet            do not print discovery warnings on stderr
  -h, --help             show this help
  -v, --version          show the package version

Relative paths are resolved against the current directory.
Exit codes: 0 success, 1 failure or doctor found skipped files, 2 usage error.
`

/** A mistake in the command line: one line on stderr, exit code 2. */
class UsageError extends Error {}
/** A failure to report as one line on stderr, exit code 1. */
class CliError extends Error {}

const VALUE_FLAGS = new Map([
  ['--cwd', 'cwd'],
  ['--dsh-home', 'dshHome'],
  ['--agents-home', 'agentsHome'],
  ['--skill-dir', 'skillDirs'],
  ['--bundled-dir', 'bundledDir'],
  ['--max-length', 'maxLength'],
])
const BOOLEAN_FLAGS = new Map([
  ['--json', 'json'],
  ['--poll', 'poll'],
  ['--quiet', 'quiet'],
  ['-q', 'quiet'],
  ['--help', 'help'],
  ['-h', 'help'],
  ['--version', 'version'],
  ['-v', 'version'],
])
const COMMANDS = new Set(['list', 'catalog', 'show', 'doctor', 'watch', 'demo', 'help'])

/**
 * @param {string[]} argv arguments after the program name
 */
function parseArgs(argv) {
  const options = { skillDirs: [], json: false, poll: false, quiet: false, help: false, version: false }
  const positionals = []
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1))
      break
    }
    if (!arg.startsWith('-') || arg === '-') {
      positionals.push(arg)
      continue
    }
    const eq = arg.indexOf('=')
    const flag = eq > 0 && arg.startsWith('--') ? arg.slice(0, eq) : arg
    if (BOOLEAN_FLAGS.has(flag)) {
      if (flag !== arg) throw new UsageError(`${flag} takes no value`)
      options[BOOLEAN_FLAGS.get(flag)] = true
      continue
    }
    const key = VALUE_FLAGS.get(flag)
    if (key === undefined) throw new UsageError(`unknown option ${flag}`)
    let value
    if (flag !== arg) value = arg.slice(eq + 1)
    else if (i + 1 < argv.length) value = argv[++i]
    if (value === undefined || value === '') throw new UsageError(`${flag} needs a value`)
    if (key === 'skillDirs') options.skillDirs.push(value)
    else options[key] = value
  }
  if (options.maxLength !== undefined) {
    const text = options.maxLength
    const n = Number(text)
    if (!/^\d+$/.test(text) || !Number.isSafeInteger(n) || n < 3) {
      throw new UsageError(`--max-length must be an integer >= 3 (got ${JSON.stringify(text)})`)
    }
    options.maxLength = n
  }
  const [command, ...args] = positionals
  if (command !== undefined && !COMMANDS.has(command)) {
    throw new UsageError(`unknown command "${command}"`)
  }
  return { command, args, options }
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

/** `dir` as an absolute path that must be an existing directory. */
function existingDir(dir, flag) {
  const absolute = path.resolve(dir)
  let stat
  try {
    stat = fs.statSync(absolute)
  } catch {
    throw new UsageError(`${flag}: no such directory: ${dir}`)
  }
  if (!stat.isDirectory()) throw new UsageError(`${flag}: not a directory: ${dir}`)
  return absolute
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

function table(rows, header) {
  const all = [header, ...rows]
  const widths = header.map((_, col) => Math.max(...all.map((row) => row[col].length)))
  return all
    .map((row) => row.map((cell, col) => (col === row.length - 1 ? cell : cell.padEnd(widths[col]))).join('  '))
    .join('\n')
}

function json(value) {
  return `${JSON.stringify(value, null, 2)}\n`
}

/**
 * The local provider configuration from the command line.
 * @param {ReturnType<typeof parseArgs>['options']} options
 */
function providerConfig(options, extra) {
  const config = { ...extra }
  if (options.dshHome !== undefined) config.dshHome = path.resolve(options.dshHome)
  if (options.agentsHome !== undefined) config.agentsHome = path.resolve(options.agentsHome)
  if (options.skillDirs.length) config.customSkillDirs = options.skillDirs.map((dir) => path.resolve(dir))
  if (options.bundledDir !== undefined) config.bundledSkillDir = path.resolve(options.bundledDir)
  return config
}

class Session {
  /**
   * @param {ReturnType<typeof parseArgs>['options']} options
   * @param {{ stdout: NodeJS.WritableStream, stderr: NodeJS.WritableStream }} io
   * @param {{ watch?: boolean, printWarnings?: boolean, config?: object }} [mode]
   */
  constructor(options, io, mode = {}) {
    this.cwd = options.cwd !== undefined ? existingDir(options.cwd, '--cwd') : process.cwd()
    const { api, catalog } = loadPackage()
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
        io.stderr.write(`dsh-skills: warning: ${message}\n`)
      },
    }
    this.registry = new api.SkillRegistry({ logger })
    try {
      this.provider = this.registry.registerLocalProvider({
        ...(mode.config ?? providerConfig(options, {})),
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

async function commandList(session) {
  const { io, options } = session
  const snapshot = await session.snapshot()
  if (options.json) {
    io.stdout.write(json(snapshot))
  } else if (snapshot.skills.length === 0) {
    io.stdout.write('No skills found.\n')
  } else {
    const rows = snapshot.skills.map((skill) => [
      skill.name,
      skill.source,
      skill.provider,
      invocationLabel(skill.invocation),
    ])
    io.stdout.write(`${table(rows, ['NAME', 'SOURCE', 'PROVIDER', 'INVOCATION'])}\n`)
  }
  if (!snapshot.complete) io.stderr.write('dsh-skills: discovery was incomplete: some skills may be missing\n')
  return 0
}

function renderCatalog(session, skills) {
  const { catalog, options } = session
  const maxLength = options.maxLength
  const visible = skills.filter((skill) => skill.invocation.modelInvocable)
  const entries = catalog.renderCatalogEntries(skills, maxLength)
  const digest = catalog.catalogDigest(skills, maxLength)
  const message = visible.length ? catalog.renderCatalogMessage(skills, maxLength) : null
  return { entries, digest, message, count: visible.length }
}

async function commandCatalog(session) {
  const { io, options } = session
  const snapshot = await session.snapshot()
  const rendered = renderCatalog(session, snapshot.skills)
  if (options.json) {
    io.stdout.write(
      json({ complete: snapshot.complete, message: rendered.message, entries: rendered.entries, digest: rendered.digest }),
    )
  } else if (rendered.message === null) {
    io.stderr.write('dsh-skills: no model-invocable skills: no catalog would be published\n')
  } else {
    io.stdout.write(`${rendered.message}\n\ndigest: ${rendered.digest}\n`)
  }
  if (!snapshot.complete) {
    io.stderr.write('dsh-skills: discovery was incomplete: a harness would keep its previous catalog\n')
  }
  return 0
}

async function commandShow(session, args) {
  const { io, options, catalog } = session
  const { api } = loadPackage()
  if (args.length !== 1) throw new UsageError(args.length ? 'show takes one skill name' : 'show needs a skill name')
  const name = args[0]
  if (!api.isSkillName(name)) {
    throw new UsageError(`invalid skill name "${name}" (names are kebab-case: lowercase letters, digits, "-")`)
  }
  const definition = await session.registry.get(name, session.lookup())
  if (definition === undefined) {
    const listed = (await session.registry.list(session.lookup())).some((skill) => skill.name === name)
    throw new CliError(
      listed ? `skill "${name}" is no longer available` : `unknown skill "${name}" (see: dsh-skills list)`,
    )
  }
  const text = catalog.renderSkillContent(definition)
  if (options.json) {
    io.stdout.write(json({ definition, toolResult: text }))
  } else {
    io.stdout.write(`${text}\n`)
  }
  if (!definition.invocation.modelInvocable) {
    io.stderr.write(`dsh-skills: note: model invocation is disabled for "${name}": the skill tool would refuse it\n`)
  }
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

async function diagnose(session) {
  return normalizeDiagnosis(await session.provider.diagnose(session.lookup()))
}

/**
 * The `.system` child of the user DSH root is reserved for the harness: the
 * provider reports it as skipped on purpose, so doctor shows it as `ignored`
 * and does not count it as a problem.
 */
function isReserved(file) {
  return file.outcome === 'skipped' && file.source === 'user-dsh' && path.basename(String(file.path)) === '.system'
}

function outcomeOf(file) {
  return isReserved(file) ? 'ignored' : String(file.outcome)
}

function countOutcomes(files) {
  const counts = { loaded: 0, shadowed: 0, skipped: 0, ignored: 0 }
  for (const file of files) {
    const outcome = outcomeOf(file)
    if (Object.hasOwn(counts, outcome)) counts[outcome]++
  }
  return counts
}

function summary(counts) {
  const ignored = counts.ignored ? `, ${counts.ignored} ignored` : ''
  return `${counts.loaded} loaded, ${counts.shadowed} shadowed, ${counts.skipped} skipped${ignored}`
}

function isInside(file, dir) {
  const relative = path.relative(dir, file)
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative)
}

function formatDoctor(session, diagnosis) {
  const lines = [`Looking from ${shown(session.cwd)}`]
  if (diagnosis.projectRoot) lines.push(`Project root: ${shown(diagnosis.projectRoot)}`)
  const nameWidth = Math.max(4, ...diagnosis.files.map((file) => (file.name ?? '').length))
  const fileLines = (file, root) => {
    const where = root ? path.relative(root.path, file.path) : `${shown(file.path)} [${file.source}]`
    const outcome = outcomeOf(file).padEnd(8)
    const name = (file.outcome === 'skipped' ? '' : (file.name ?? '')).padEnd(nameWidth)
    const out = [`    ${outcome}  ${name}  ${where}`]
    const indent = ' '.repeat(4 + 8 + 2)
    if (file.outcome === 'shadowed') {
      const winner = file.shadowedBy
      out.push(`${indent}by ${winner ? `${shown(winner.path)} [${winner.source}]` : file.reason || 'a higher-ranked skill'}`)
    } else if (file.outcome !== 'loaded') {
      out.push(`${indent}because ${file.reason ?? 'of an unknown problem'}`)
    }
    return out
  }
  const placed = new Set()
  for (const root of diagnosis.roots) {
    const status = root.reason ? `${root.status}: ${root.reason}` : root.status
    lines.push('', `${root.source} (rank ${root.rank})  ${shown(root.path)}${status && status !== 'scanned' ? `  [${status}]` : ''}`)
    const files = diagnosis.files.filter((file) => !placed.has(file) && isInside(file.path, root.path))
    if (files.length === 0) lines.push('    (no skill files)')
    for (const file of files) {
      placed.add(file)
      lines.push(...fileLines(file, root))
    }
  }
  const others = diagnosis.files.filter((file) => !placed.has(file))
  if (others.length) {
    lines.push('', diagnosis.roots.length ? 'Other files:' : 'Files:')
    for (const file of others) lines.push(...fileLines(file, undefined))
  }
  lines.push('', summary(countOutcomes(diagnosis.files)))
  if (!diagnosis.complete) lines.push('Discovery was incomplete: some roots could not be read.')
  return `${lines.join('\n')}\n`
}

async function commandDoctor(session) {
  const { io, options } = session
  const diagnosis = await diagnose(session)
  const counts = countOutcomes(diagnosis.files)
  if (options.json) io.stdout.write(json(diagnosis))
  else io.stdout.write(formatDoctor(session, diagnosis))
  return counts.skipped > 0 || !diagnosis.complete ? 1 : 0
}

async function commandWatch(session) {
  const { io, catalog } = session
  let published = false
  let visibleDigest
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
          maxLength: session.options.maxLength,
        })
        if (plan.kind !== 'initial' && plan.kind !== 'replacement') continue
        const { digest } = renderCatalog(session, snapshot.skills)
        const message =
          plan.kind === 'initial'
            ? catalog.renderCatalogMessage(snapshot.skills, session.options.maxLength)
            : catalog.renderCatalogUpdate(snapshot.skills, session.options.maxLength)
        io.stdout.write(`# ${plan.kind} catalog, digest ${digest}\n${message}\n\n`)
        published = true
        visibleDigest = digest
      } while (again && !stopped)
    } catch (error) {
      io.stderr.write(`dsh-skills: catalog refresh failed: ${firstLine(error)}\n`)
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
    io.stderr.write(`dsh-skills: watching skills for ${shown(session.cwd)} (Ctrl-C to stop)\n`)
    refresh().then(() => {
      if (!published && !stopped) io.stderr.write('dsh-skills: no model-invocable skills yet\n')
    })
  })
}

/** Make `dir` its own project root: an empty `.git` directory (git never tracks `.git`). */
function ensureProjectMarker(dir) {
  const marker = path.join(dir, '.git')
  if (!fs.existsSync(marker)) fs.mkdirSync(marker)
}

async function commandDemo(options, io) {
  for (const flag of ['cwd', 'dshHome', 'agentsHome', 'bundledDir']) {
    if (options[flag] !== undefined) throw new UsageError('demo takes no root options: it uses the example workspace')
  }
  if (options.skillDirs.length) throw new UsageError('demo takes no root options: it uses the example workspace')
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
    const rendered = renderCatalog(session, snapshot.skills)
    if (options.json) {
      io.stdout.write(json({ config, snapshot, catalog: rendered, diagnosis }))
      return 0
    }
    const section = (title) => io.stdout.write(`\n== ${title} ==\n\n`)
    io.stdout.write(
      `Example workspace: ${shown(EXAMPLE_WORKSPACE)}\n` +
        `User roots: ${shown(config.dshHome)}, ${shown(config.agentsHome)} (not your home directory)\n` +
        `Custom root: ${shown(config.customSkillDirs[0])}; bundled root: ${shown(config.bundledSkillDir)}\n`,
    )
    section('dsh-skills list')
    await commandList(session)
    section('dsh-skills catalog (what the model sees)')
    if (rendered.message !== null) io.stdout.write(`${rendered.message}\n\ndigest: ${rendered.digest}\n`)
    section('dsh-skills doctor')
    io.stdout.write(formatDoctor(session, diagnosis))
    const counts = countOutcomes(diagnosis.files)
    io.stdout.write(
      `\nThe ${counts.skipped} skipped files are deliberate: the example shows what doctor explains.\n` +
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
 * @param {{ stdout?: NodeJS.WritableStream, stderr?: NodeJS.WritableStream }} [streams]
 * @returns {Promise<number>} the exit code
 */
async function main(argv, streams = {}) {
  const io = { stdout: streams.stdout ?? process.stdout, stderr: streams.stderr ?? process.stderr }
  let session
  try {
    const { command, args, options } = parseArgs(argv)
    if (options.version) {
      io.stdout.write(`${require('../package.json').version}\n`)
      return 0
    }
    if (options.help || command === 'help') {
      io.stdout.write(HELP)
      return 0
    }
    if (command === undefined) {
      io.stderr.write(HELP)
      return 2
    }
    if (command !== 'show' && args.length) throw new UsageError(`${command} takes no arguments (got "${args[0]}")`)
    if (command === 'demo') return await commandDemo(options, io)
    const watch = command === 'watch'
    // doctor reports the warnings itself; show is about one skill.
    session = new Session(options, io, { watch, printWarnings: command !== 'doctor' && command !== 'show' })
    switch (command) {
      case 'list':
        return await commandList(session)
      case 'catalog':
        return await commandCatalog(session)
      case 'show':
        return await commandShow(session, args)
      case 'doctor':
        return await commandDoctor(session)
      case 'watch':
        return await commandWatch(session)
      default:
        throw new UsageError(`unknown command "${command}"`)
    }
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`dsh-skills: ${error.message} (see: dsh-skills --help)\n`)
      return 2
    }
    if (error instanceof CliError) {
      io.stderr.write(`dsh-skills: ${error.message}\n`)
      return 1
    }
    // Not a user mistake: keep the details available without flooding users.
    if (process.env.DSH_SKILLS_DEBUG) io.stderr.write(`${error && error.stack ? error.stack : error}\n`)
    io.stderr.write(`dsh-skills: ${firstLine(error)}\n`)
    return 1
  } finally {
    if (session) await session.dispose()
  }
}

module.exports = { main, parseArgs, HELP }
