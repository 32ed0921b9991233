'use strict'
// One run's registry and local provider, configured from the command line.

const fs = require('node:fs')
const path = require('node:path')
const { UsageError, CliError, firstLine } = require('./errors.js')
const { OPTIONS } = require('./spec.js')
const { camel, overrideFlag } = require('./args.js')
const { printWarnings, needsCounts } = require('./warnings.js')

/** The package API, or a one-line failure when the addon does not load. */
function loadPackage() {
  try {
    return {
      api: require('../../index.js'),
      catalog: require('../catalog.js'),
    }
  } catch (error) {
    // The addon's own explanation (lib/addon.js) is printed in full.
    if (error && error.code === 'ERR_DSH_SKILL_NATIVE_ADDON') throw error
    throw new CliError(`cannot load @deepseek-ai/dsh-skill-native: ${firstLine(error)}`)
  }
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

/**
 * The local provider configuration from the command line.
 * @param {ReturnType<typeof import('./args.js').parseArgs>['options']} options
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

/** The directory options that name a skill root itself (not a home holding one). */
const ROOT_FLAGS = new Set(['skill-dir', 'bundled-dir'])

/**
 * Warnings for directory options that name nothing usable (`--cwd` is an
 * error instead). A root flag naming a file is left to the library, which
 * warns about a root that is not a directory in its own words.
 */
function checkDirOptions(options, warn) {
  for (const [name, spec] of Object.entries(OPTIONS)) {
    if (spec.dir !== 'warn') continue
    const value = options[camel(name)]
    for (const dir of name === 'skill-dir' ? options.skillDirs : value === undefined ? [] : [value]) {
      const problem = dirProblem(dir)
      if (problem === 'not a directory' && ROOT_FLAGS.has(name)) continue
      if (problem) warn(`--${name} ${dir}: ${problem}`)
    }
  }
}

/** The command-line flag of each local provider option. */
const FLAG_OF_CONFIG = {
  providerName: '--provider-name',
  customSkillDirs: '--skill-dir',
  dshHome: '--dsh-home',
  agentsHome: '--agents-home',
  bundledSkillDir: '--bundled-dir',
  nestedRoots: '--nested-roots',
  compatRoots: '--compat',
  includeDefaultRoots: '--no-default-roots',
}

/** A rejected provider option, told by its flag (`providerName must …` → `--provider-name: must …`). */
function configProblem(message) {
  const match = /^(\w+)(?:\[\d+\])? (.*)$/.exec(message)
  const flag = match ? FLAG_OF_CONFIG[match[1]] : undefined
  return flag ? `${flag}: ${match[2]}` : undefined
}

/** A rejected override rule, told by its flag (`overrides[1].name …` → `--off Foo: name …`). */
function overrideProblem(message, overrides) {
  const match = /^overrides\[(\d+)\]\.(.*)$/.exec(message)
  const rule = match ? overrides[Number(match[1])] : undefined
  return rule ? `${overrideFlag(rule)}: ${match[2]}` : message
}

/** The most root flags, and the longest command, a hint writes out in full; beyond, it names the flags briefly. */
const AGAIN_FLAGS = 6
const AGAIN_WIDTH = 300

class Session {
  /**
   * @param {ReturnType<typeof import('./args.js').parseArgs>['options']} options
   * @param {{ stdout: NodeJS.WritableStream, stderr: NodeJS.WritableStream, out: import('./term.js').Output, err: import('./term.js').Output }} io
   * @param {{ watch?: boolean, config?: object }} [mode]
   */
  constructor(options, io, mode = {}) {
    this.cwd = options.cwd !== undefined ? existingDir(options.cwd, '--cwd') : process.cwd()
    const { api, catalog } = loadPackage()
    this.api = api
    this.catalog = catalog
    this.io = io
    this.options = options
    /** The warnings the library logged, in order, each once per report (watch re-lists on every change). */
    this.warnings = []
    /** How many of them `reportWarnings` printed. */
    this.reported = 0
    /** Whether the roots come from the caller (`demo`), not from the command line and the home directory. */
    this.configured = mode.config !== undefined
    // A warning logged again before the next report, or again right after the
    // report that printed it (a problem that stayed), is not new; one that
    // went away for a report and came back is (`watch`: a skill broken again).
    this.logged = new Set()
    this.lastLogged = new Set()
    const logger = {
      warn: (message) => {
        if (this.logged.has(message)) return
        this.logged.add(message)
        if (!this.lastLogged.has(message)) this.warnings.push(message)
      },
    }
    if (!mode.config && !options.quiet) checkDirOptions(options, (message) => io.err.warning(message))
    const overrides = options.overrides ?? []
    try {
      const embedder = options.embed === undefined ? {} : { embedder: options.embed === 'local' ? 'local' : { model: options.embed } }
      this.registry = new api.SkillRegistry({ logger, ...(overrides.length ? { overrides } : {}), ...embedder })
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
      const problem = configProblem(firstLine(error))
      if (problem) throw new UsageError(problem)
      throw new CliError(`invalid skill roots: ${firstLine(error)}`)
    }
  }

  /**
   * Print the warnings logged since the last call on stderr (nothing with
   * `--quiet`): see `warnings.js`.
   * @param {string[]} [covered] kinds the command's own summary already counts
   * @param {{ verbose?: boolean, named?: Set<string>, diagnosis?: { files: { verdict: string }[] } }} [how]
   *   `verbose: true` prints every line, as `--verbose` does; `named`: skill files the command's output
   *   already named as broken (their warnings are left out); `diagnosis`: doctor's verdicts of this run,
   *   for the counts (else the provider is diagnosed when a count is printed)
   */
  async reportWarnings(covered, how = {}) {
    const named = [...(how.named ?? [])].map((file) => `skill file ${file} skipped: `)
    const fresh = this.warnings.slice(this.reported).filter((message) => !named.some((start) => message.startsWith(start)))
    this.reported = this.warnings.length
    this.lastLogged = this.logged
    this.logged = new Set()
    if (this.options.quiet || fresh.length === 0) return
    const verbose = this.options.verbose || how.verbose === true
    let counts
    if (!verbose && needsCounts(fresh, covered)) {
      // Required here: diagnosis.js reads the session, not the other way round.
      const { diagnose, countVerdicts } = require('./diagnosis.js')
      counts = countVerdicts((how.diagnosis ?? (await diagnose(this))).files)
    }
    printWarnings(fresh, this.io.err, { verbose, covered, doctor: this.again('doctor'), counts })
  }

  /**
   * `dsh-skills <command>` with the flags that chose the roots of this run, for
   * a hint to run it: written out when they are short, else named briefly
   * (`dsh-skills doctor with the same root flags (--cwd, 45 × --skill-dir)`).
   */
  again(command) {
    const full = ['dsh-skills', command, ...this.options.rootArgs].join(' ')
    const counts = new Map()
    let flags = 0
    for (const token of this.options.rootArgs) {
      const name = token.startsWith('--') ? token.slice(2) : undefined
      if (name === undefined || !Object.hasOwn(OPTIONS, name)) continue
      counts.set(token, (counts.get(token) ?? 0) + 1)
      flags++
    }
    if (flags <= AGAIN_FLAGS && full.length <= AGAIN_WIDTH) return full
    const named = [...counts].map(([flag, n]) => (n === 1 ? flag : `${n} × ${flag}`))
    return `dsh-skills ${command} with the same root flags (${named.join(', ')})`
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

module.exports = { Session, loadPackage, dirProblem, providerConfig }
