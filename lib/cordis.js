'use strict'
// Cordis 4 drop-in plugins: `SkillService` (`ctx.skills`) and `SkillLocal`
// (the native local provider as a plugin). Only this module needs the optional
// peers `cordis` and `schemastery`; the plain entry point never loads it.
//
// `cordis` is published as ES modules only: this CommonJS module loads it with
// `require()`, which Node supports without flags from 20.19 / 22.12 on. The
// ESM entry (`cordis.mjs`) re-exports this module so both entry points share
// one `SkillService` class.

const { Service } = require('cordis')
const Schema = require('schemastery')
const { SkillRegistry } = require('./registry.js')
const { LocalSkillProvider } = require('./local.js')
const { describeError } = require('./util.js')

const SERVICE_NAME = 'skills'
const CHANGE_EVENT = 'skills/change'
const OBSERVED_EVENT = 'fs/observed'
/** First-party tools whose `fs/observed` events may change the catalog. */
const MUTATING_TOOLS = new Set(['write', 'edit'])

const kRegistry = Symbol('dsh-skill-native.cordis.registry')
const kLogger = Symbol('dsh-skill-native.cordis.logger')

/**
 * A `{ warn(message) }` logger calling `ctx.logger.warn(message)`, the call
 * the TypeScript packages make (so a harness that routes or captures that
 * logger sees the message as is). Without a usable logger service it falls
 * back to `console.warn`; a throwing logger never breaks the caller.
 * @param {import('cordis').Context} ctx
 * @param {string} name  the prefix of the console fallback
 */
function createLogger(ctx, name) {
  return {
    warn(message) {
      try {
        const logger = ctx.logger
        if (logger !== null && logger !== undefined && typeof logger.warn === 'function') {
          logger.warn(message)
          return
        }
      } catch {
        // Fall through to the console.
      }
      console.warn(`[${name}] ${message}`)
    },
  }
}

/**
 * Emit `skills/change` to every listener that sees this service, calling each
 * listener synchronously but containing its failure: one throwing or
 * rejecting listener is logged and neither stops the others nor the registry
 * mutation that caused the event.
 */
function emitChange(ctx, service, logger) {
  let task
  try {
    // `parallel` calls every listener synchronously (each inside its own async
    // wrapper) and settles them all; the service as `this` argument applies the
    // service's isolation filter (`ctx.isolate('skills')`).
    task = ctx.parallel(service, CHANGE_EVENT)
  } catch (error) {
    logger.warn(`${CHANGE_EVENT} listener failed: ${describeError(error)}`)
    return
  }
  task.catch((error) => {
    const errors = error instanceof AggregateError ? error.errors : [error]
    for (const reason of errors) logger.warn(`${CHANGE_EVENT} listener failed: ${describeError(reason)}`)
  })
}

const OverrideRule = Schema.object({
  name: Schema.string().description('Skill name, or a glob of one with * (for example "deploy-*"); default: every name.'),
  source: Schema.string().description('Only candidates of this source (for example "project-dsh"); default: every source.'),
  provider: Schema.string().description('Only candidates of this provider (for example "local"); default: every provider.'),
  effect: Schema.union(['off', 'user-only', 'model-only', 'on'])
    .required()
    .description('off: leave the candidate out (a lower-ranked copy may win); user-only / model-only: who may invoke it; on: as declared.'),
})

const ServiceConfig = Schema.object({
  collectCacheMaxEntries: Schema.natural()
    .min(1)
    .default(128)
    .description('Maximum number of completed cwd/provider catalogs kept in memory.'),
  providerTimeoutMs: Schema.natural()
    .min(1)
    .max(2147483647)
    .description("Abandon a JS provider's pending list()/get() after this many milliseconds (default: wait)."),
  overrides: Schema.array(OverrideRule).description(
    'Rules applied to every skill candidate before the merge; the last matching rule wins (default: none).',
  ),
})

/**
 * `ctx.skills`: the provider registry as a Cordis service. It wraps a
 * `SkillRegistry`; registrations are effects of the calling plugin (disposing
 * that plugin unregisters them, and the disposer returned is the effect's
 * own), catalog changes are emitted as `skills/change` and warnings go to
 * `ctx.logger.warn(message)`.
 */
class SkillService extends Service {
  /**
   * @param {import('cordis').Context} ctx
   * @param {{ collectCacheMaxEntries?: number, providerTimeoutMs?: number, overrides?: readonly object[] }} [config]
   */
  constructor(ctx, config = {}) {
    super(ctx, SERVICE_NAME)
    const logger = createLogger(ctx, SERVICE_NAME)
    const { collectCacheMaxEntries, providerTimeoutMs, overrides } = config
    const registry = new SkillRegistry({ collectCacheMaxEntries, providerTimeoutMs, overrides, logger })
    this[kRegistry] = registry
    this[kLogger] = logger
    const service = this
    ctx.effect(() => registry.onChange(() => emitChange(ctx, service, logger)), `${CHANGE_EVENT} bridge`)
  }

  // Methods reach the registry through a symbol property: Cordis calls them on
  // a proxy whose `ctx` is the calling plugin's context, and private fields are
  // not readable through a proxy.

  /** The wrapped registry (its registrations are not tied to any plugin). */
  get registry() {
    return this[kRegistry]
  }

  /**
   * Register a provider as an effect of the calling plugin.
   * @returns the effect's disposer
   */
  registerProvider(factory) {
    const registry = this[kRegistry]
    return this.ctx.effect(() => registry.registerProvider(factory), 'ctx.skills.registerProvider()')
  }

  /**
   * Create and register the native local provider as an effect of the calling
   * plugin: disposing the plugin disposes the provider (closing its watchers).
   */
  registerLocalProvider(config) {
    const registry = this[kRegistry]
    let provider
    this.ctx.effect(() => {
      provider = registry.registerLocalProvider(config)
      return () => provider.dispose()
    }, 'ctx.skills.registerLocalProvider()')
    return provider
  }

  /**
   * Register a runtime skill as an effect of the calling plugin.
   * @returns the effect's disposer
   */
  register(skill) {
    const registry = this[kRegistry]
    return this.ctx.effect(() => registry.register(skill), 'ctx.skills.register()')
  }

  invalidateProvider(provider) {
    this[kRegistry].invalidateProvider(provider)
  }

  list(options) {
    return this[kRegistry].list(options)
  }

  snapshot(options) {
    return this[kRegistry].snapshot(options)
  }

  get(name, options) {
    return this[kRegistry].get(name, options)
  }

  explain(name, options) {
    return this[kRegistry].explain(name, options)
  }

  /** Replace the override rules (for every plugin: they are the service's configuration). */
  setOverrides(rules) {
    this[kRegistry].setOverrides(rules)
  }

  /**
   * Listen for catalog changes as an effect of the calling plugin (plugins
   * usually prefer `ctx.on('skills/change', listener)`).
   * @returns the effect's disposer
   */
  onChange(listener) {
    const registry = this[kRegistry]
    return this.ctx.effect(() => registry.onChange(listener), 'ctx.skills.onChange()')
  }
}

SkillService.Config = ServiceConfig

const LocalConfig = Schema.object({
  providerName: Schema.string()
    .default('local')
    .description('Provider name in ctx.skills and on every candidate (several local providers need different names).'),
  includeDefaultRoots: Schema.boolean()
    .default(true)
    .description(
      'Scan the project .dsh/.agents roots and the user roots; when off only customSkillDirs, an explicit bundledSkillDir and compatRoots.',
    ),
  nestedRoots: Schema.boolean()
    .default(false)
    .description('Monorepos: the .dsh/skills and .agents/skills of every directory from cwd up to the project root, nearest first.'),
  compatRoots: Schema.array(Schema.union(['claude', 'codex']))
    .default([])
    .description('Compatibility roots: "claude" (<project>/.claude/skills and ~/.claude/skills), "codex" ($CODEX_HOME/skills or ~/.codex/skills).'),
  dshHome: Schema.string().description('User DSH home; skills are read from <dshHome>/skills (default: $DSH_HOME or ~/.dsh).'),
  agentsHome: Schema.string().description(
    'User agents home; skills are read from <agentsHome>/skills (default: $DSH_AGENTS_HOME or ~/.agents).',
  ),
  customSkillDirs: Schema.array(Schema.string())
    .default([])
    .description('Extra skill roots, rank 300 (source "custom"), in this order.'),
  bundledSkillDir: Schema.string().description(
    'Skills shipped with the deployment, rank 600 (default: $DSH_BUNDLED_SKILL_DIR when set, else none).',
  ),
  maxSkillFileBytes: Schema.natural().min(1).description('Largest skill file read (default 1 MiB); bigger files are skipped.'),
  watch: Schema.boolean().default(true).description('Watch the roots and refresh the catalog when skills change.'),
  watchUsePolling: Schema.boolean().default(false).description('Poll instead of native filesystem events.'),
  watchStabilityThresholdMs: Schema.natural()
    .min(1)
    .default(200)
    .description('How long a changed skill file must stay unchanged before it counts.'),
  watchPollIntervalMs: Schema.natural().min(1).default(100).description('Polling interval.'),
  watchMaxProjects: Schema.natural()
    .min(1)
    .default(128)
    .description('Projects watched at once (least recently observed are evicted).'),
  watchFollowSymlinks: Schema.boolean().default(true).description('Follow symlinked skill roots and entries.'),
})

/**
 * The native local provider as a plugin: registers
 * `new LocalSkillProvider(ctx, control, config)` through `ctx.skills` (it
 * disposes itself, closing its watchers, when the registration goes), and
 * turns `fs/observed` events of the first-party `write` and `edit` tools into
 * synchronous invalidations.
 */
const SkillLocal = {
  name: 'skill-local',
  inject: [SERVICE_NAME],
  Config: LocalConfig,
  /**
   * @param {import('cordis').Context} ctx
   * @param {Record<string, unknown>} [config]
   */
  apply(ctx, config = {}) {
    const logger = createLogger(ctx, 'skill-local')
    const options = {}
    for (const [key, value] of Object.entries(config)) {
      if (value !== undefined && value !== null) options[key] = value
    }
    let provider
    ctx.skills.registerProvider((control) => {
      provider = new LocalSkillProvider(ctx, control, options)
      return provider
    })
    // `ctx.emit('fs/observed', target, version, actor)`: `target` is an
    // `FsTarget` `{ targetKey, displayPath }`, `version` an opaque freshness
    // token (unused), `actor` an opaque object or undefined.
    ctx.on(OBSERVED_EVENT, (target, version, actor) => {
      if (actor === null || typeof actor !== 'object' || !MUTATING_TOOLS.has(actor.name)) return
      if (target === null || typeof target !== 'object') return
      const displayPath = target.displayPath
      if (typeof displayPath !== 'string' || displayPath.length === 0) return
      try {
        provider?.observeHostMutation(displayPath)
      } catch (error) {
        logger.warn(`cannot apply ${OBSERVED_EVENT} for ${displayPath}: ${describeError(error)}`)
      }
    })
  },
}

// `__esModule` lets transpiled `import SkillService from '…/cordis'` find the
// default export when compiled to CommonJS.
Object.defineProperty(exports, '__esModule', { value: true })
exports.default = SkillService
exports.SkillService = SkillService
exports.SkillLocal = SkillLocal
