'use strict'
// Pieces shared by the Cordis plugins: the logger, the change event, the
// `fs/observed` rule.

const { describeError } = require('../util.js')

const SERVICE_NAME = 'skills'
const CHANGE_EVENT = 'skills/change'
const OBSERVED_EVENT = 'fs/observed'
/** First-party tools whose `fs/observed` events may change the catalog. */
const MUTATING_TOOLS = new Set(['write', 'edit'])

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

/**
 * Listen to `ctx.emit('fs/observed', target, version, actor)` and hand the
 * writes and edits of the first-party tools to `observe(displayPath)`.
 * `target` is an `FsTarget` `{ targetKey, displayPath }`; `version` a
 * freshness token (a single value, or `{ kind: 'present', version }` /
 * `{ kind: 'absent' }`; not used); `actor` an opaque object or undefined.
 * Which paths count is the provider's rule (`observeHostMutation`).
 */
function onObserved(ctx, logger, observe) {
  ctx.on(OBSERVED_EVENT, (target, version, actor) => {
    if (actor === null || typeof actor !== 'object' || !MUTATING_TOOLS.has(actor.name)) return
    if (target === null || typeof target !== 'object') return
    const displayPath = target.displayPath
    if (typeof displayPath !== 'string' || displayPath.length === 0) return
    try {
      observe(displayPath)
    } catch (error) {
      logger.warn(`cannot apply ${OBSERVED_EVENT} for ${displayPath}: ${describeError(error)}`)
    }
  })
}

/**
 * The schema of one override rule, for the service's and the provider
 * plugins' config.
 * @param {typeof import('schemastery')} Schema
 */
function overrideRuleSchema(Schema) {
  return Schema.object({
    name: Schema.string().description('Skill name, or a glob of one with * (for example "deploy-*"); default: every name.'),
    source: Schema.string().description('Only candidates of this source (for example "project-dsh"); default: every source.'),
    provider: Schema.string().description('Only candidates of this provider (for example "local"); default: every provider.'),
    effect: Schema.union(['off', 'user-only', 'model-only', 'on'])
      .required()
      .description('off: leave the candidate out (a lower-ranked copy may win); user-only / model-only: who may invoke it; on: as declared.'),
  })
}

module.exports = { SERVICE_NAME, CHANGE_EVENT, createLogger, emitChange, onObserved, overrideRuleSchema }
