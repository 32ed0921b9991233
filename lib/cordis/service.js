'use strict'
// `ctx.skills`: the provider registry as a Cordis service, built for one
// framework copy (its `Service` class and schemastery).

const { SkillRegistry } = require('../registry.js')
const { SERVICE_NAME, CHANGE_EVENT, createLogger, emitChange, overrideRuleSchema } = require('./util.js')

const kRegistry = Symbol('dsh-skill-native.cordis.registry')
const kLogger = Symbol('dsh-skill-native.cordis.logger')

/**
 * The scope a registration belongs to: `options.scope` when the caller names
 * one (`undefined` there means the global layer), else the scope of the
 * calling plugin's context, `registry.scopes.scopeOf(ctx)` (the resolver of
 * `@deepseek-ai/dsh-scope`, or the one in the service config). Without a
 * resolver that knows contexts everything is global.
 */
function scopeOfCall(registry, ctx, options) {
  // Given explicitly: the registry checks it (`null` is refused there, as in a plain registry).
  if (options !== null && typeof options === 'object' && 'scope' in options) return options.scope
  const scopes = registry.scopes
  const scope = scopes !== null && typeof scopes === 'object' && typeof scopes.scopeOf === 'function' ? scopes.scopeOf(ctx) : undefined
  return scope === null ? undefined : scope
}

/**
 * The registry's registration options for a call: its scope (see
 * `scopeOfCall`) and the `overrides` it carries for that scope's layer. A
 * plugin outside any scope has no layer of its own to restrict: its
 * `overrides` are left out with a warning (the service config's `overrides`
 * are the rules for every agent).
 * @returns {{ scope: object, overrides?: readonly object[] } | undefined}
 */
function registrationOptions(registry, ctx, options, logger) {
  const scope = scopeOfCall(registry, ctx, options)
  const overrides = options !== null && typeof options === 'object' ? options.overrides : undefined
  if (scope === undefined) {
    if (overrides !== undefined) {
      logger.warn('overrides given with a registration outside any scope are ignored: they restrict a scope\'s agents (the service config\'s overrides apply to every agent)')
    }
    return undefined
  }
  return overrides === undefined ? { scope } : { scope, overrides }
}

/**
 * Call `factory` with a control whose signal aborts with `failure` as soon as
 * the factory returns (or with the factory's own error, which then wins).
 */
function abandon(factory, failure) {
  const lifecycle = new AbortController()
  try {
    factory(Object.freeze({ signal: lifecycle.signal, invalidate() {} }))
  } catch (thrown) {
    lifecycle.abort(thrown)
    throw thrown
  }
  lifecycle.abort(failure)
}

/**
 * @param {{ cordis: { Service: typeof import('cordis').Service }, Schema: typeof import('schemastery') }} framework
 */
function createSkillService({ cordis: { Service }, Schema }) {
  const OverrideRule = overrideRuleSchema(Schema)

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
    // An object of functions, passed on as is (the registry checks it).
    scopes: Schema.any().description(
      'Scope resolver { scopeChainOf(key), scopeOf?(ctx) } for per-scope layers (default: @deepseek-ai/dsh-scope when installed, else every registration is global).',
    ),
    // A function or an object, passed on as is (the registry checks it).
    embedder: Schema.any().description(
      "Fuse meaning with words in search(): 'local', { model: folder }, or a function (texts, { signal }) => Promise<Float32Array[]> with a string id (default: words only).",
    ),
    embedderCacheDir: Schema.any().description('Folder of the cached skill vectors, or false for memory only (default: the user cache folder).'),
  })

  /**
   * `ctx.skills`: the provider registry as a Cordis service. It wraps a
   * `SkillRegistry`; registrations are effects of the calling plugin (disposing
   * that plugin unregisters them, and the disposer returned is the effect's
   * own) filed into the layer of that plugin's scope, catalog changes are
   * emitted as `skills/change` and warnings go to `ctx.logger.warn(message)`.
   */
  class SkillService extends Service {
    /**
     * @param {import('cordis').Context} ctx
     * @param {{ collectCacheMaxEntries?: number, providerTimeoutMs?: number, overrides?: readonly object[], scopes?: object, embedder?: unknown, embedderCacheDir?: string | false }} [config]
     */
    constructor(ctx, config = {}) {
      super(ctx, SERVICE_NAME)
      const logger = createLogger(ctx, SERVICE_NAME)
      const { collectCacheMaxEntries, providerTimeoutMs, overrides, scopes, embedder, embedderCacheDir } = config
      const options = { collectCacheMaxEntries, providerTimeoutMs, overrides, logger, embedder, embedderCacheDir }
      if (scopes !== undefined) options.scopes = scopes
      const registry = new SkillRegistry(options)
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
     * Register a provider as an effect of the calling plugin, in the layer of
     * its scope (or of `options.scope`).
     * @returns the effect's disposer
     */
    registerProvider(factory, options) {
      const registry = this[kRegistry]
      let handed = false
      const tracked = (control) => {
        handed = true
        return factory(control)
      }
      try {
        const scoped = registrationOptions(registry, this.ctx, options, this[kLogger])
        return this.ctx.effect(
          () => (scoped === undefined ? registry.registerProvider(tracked) : registry.registerProvider(tracked, scoped)),
          'ctx.skills.registerProvider()',
        )
      } catch (error) {
        // The scope or the effect failed before the registry called the
        // factory: as in the harness's registry, the factory still runs and
        // its signal aborts with the failure (a provider that set anything up
        // tears it down on that abort).
        if (!handed && typeof factory === 'function') abandon(factory, error)
        throw error
      }
    }

    /**
     * Create and register the native local provider as an effect of the calling
     * plugin, in the layer of its scope: disposing the plugin disposes the
     * provider (closing its watchers).
     */
    registerLocalProvider(config, options) {
      const registry = this[kRegistry]
      const scoped = registrationOptions(registry, this.ctx, options, this[kLogger])
      let provider
      this.ctx.effect(() => {
        provider =
          scoped === undefined ? registry.registerLocalProvider(config) : registry.registerLocalProvider(config, scoped)
        return () => provider.dispose()
      }, 'ctx.skills.registerLocalProvider()')
      return provider
    }

    /**
     * Register a runtime skill as an effect of the calling plugin, in the
     * layer of its scope.
     * @returns the effect's disposer
     */
    register(skill, options) {
      const registry = this[kRegistry]
      const scoped = registrationOptions(registry, this.ctx, options, this[kLogger])
      return this.ctx.effect(
        () => (scoped === undefined ? registry.register(skill) : registry.register(skill, scoped)),
        'ctx.skills.register()',
      )
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

    search(query, options) {
      return this[kRegistry].search(query, options)
    }

    prepareSearch(options) {
      return this[kRegistry].prepareSearch(options)
    }

    explain(name, options) {
      return this[kRegistry].explain(name, options)
    }

    /**
     * Replace override rules: without `options.scope` the service's own (for
     * every agent: they are the service's configuration), with it the rules
     * of that scope's layer (its agents and the scopes below it).
     */
    setOverrides(rules, options) {
      if (options === undefined) this[kRegistry].setOverrides(rules)
      else this[kRegistry].setOverrides(rules, options)
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
  return SkillService
}

module.exports = { createSkillService }
