'use strict'
// `ctx.skills`: the provider registry as a Cordis service, built for one
// framework copy (its `Service` class and schemastery).

const { SkillRegistry } = require('../registry.js')
const { SERVICE_NAME, CHANGE_EVENT, createLogger, emitChange } = require('./util.js')

const kRegistry = Symbol('dsh-skill-native.cordis.registry')

/**
 * The scope a registration belongs to: `options.scope` when the caller names
 * one (`undefined` there means the global layer), else the scope of the
 * calling plugin's context, `registry.scopes.scopeOf(ctx)` (the resolver of
 * `@deepseek-ai/dsh-scope`, or the one in the service config). Without a
 * resolver that knows contexts everything is global.
 * @returns {{ scope: object } | undefined} the registry's registration options
 */
function registrationScope(registry, ctx, options) {
  // Given explicitly: the registry checks it (`null` is refused there, as in a plain registry).
  if (options !== null && typeof options === 'object' && 'scope' in options) {
    return options.scope === undefined ? undefined : { scope: options.scope }
  }
  const scopes = registry.scopes
  const scope = scopes !== null && typeof scopes === 'object' && typeof scopes.scopeOf === 'function' ? scopes.scopeOf(ctx) : undefined
  return scope === undefined || scope === null ? undefined : { scope }
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
    // An object of functions, passed on as is (the registry checks it).
    scopes: Schema.any().description(
      'Scope resolver { scopeChainOf(key), scopeOf?(ctx) } for per-scope layers (default: @deepseek-ai/dsh-scope when installed, else every registration is global).',
    ),
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
     * @param {{ collectCacheMaxEntries?: number, providerTimeoutMs?: number, overrides?: readonly object[], scopes?: object }} [config]
     */
    constructor(ctx, config = {}) {
      super(ctx, SERVICE_NAME)
      const logger = createLogger(ctx, SERVICE_NAME)
      const { collectCacheMaxEntries, providerTimeoutMs, overrides, scopes } = config
      const options = { collectCacheMaxEntries, providerTimeoutMs, overrides, logger }
      if (scopes !== undefined) options.scopes = scopes
      const registry = new SkillRegistry(options)
      this[kRegistry] = registry
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
        const scoped = registrationScope(registry, this.ctx, options)
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
      const scoped = registrationScope(registry, this.ctx, options)
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
      const scoped = registrationScope(registry, this.ctx, options)
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
  return SkillService
}

module.exports = { createSkillService }
