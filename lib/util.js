'use strict'

const { isNativeError } = require('node:util').types

/** What a value that cannot be turned into a string is rendered as. */
const UNRENDERABLE = '[unrenderable thrown value]'

/**
 * Make a thrown or abort value total: an `Error` stays itself; anything else
 * becomes `new Error(String(value))`, or `new Error('[unrenderable thrown
 * value]')` when `String(value)` throws.
 * @param {unknown} value
 * @returns {Error}
 */
function toError(value) {
  if (value instanceof Error || isNativeError(value)) return /** @type {Error} */ (value)
  let message
  try {
    message = String(value)
  } catch {
    message = UNRENDERABLE
  }
  return new Error(message)
}

/**
 * The text of a thrown value for a warning: the message of `toError(value)`.
 * Never throws.
 * @param {unknown} value
 * @returns {string}
 */
function describeError(value) {
  try {
    const message = toError(value).message
    return typeof message === 'string' ? message : String(message)
  } catch {
    return UNRENDERABLE
  }
}

/**
 * The error an aborted lookup rejects with: `signal.reason` when it is an
 * `Error`, else an `Error` rendering it (see `toError`).
 * @param {AbortSignal} signal
 * @returns {Error}
 */
function abortError(signal) {
  return toError(signal.reason)
}

/**
 * @param {AbortSignal | undefined} signal
 */
function throwIfAborted(signal) {
  if (signal && signal.aborted) throw abortError(signal)
}

/**
 * Settle with `promise`, or reject with `abortError(signal)` as soon as the
 * signal aborts (a provider that never settles cannot hang an aborted caller).
 * @template T
 * @param {Promise<T>} promise
 * @param {AbortSignal | undefined} signal
 * @returns {Promise<T>}
 */
function raceSignal(promise, signal) {
  if (!signal) return promise
  if (signal.aborted) {
    promise.then(undefined, () => {})
    return Promise.reject(abortError(signal))
  }
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(abortError(signal))
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort)
        resolve(value)
      },
      (error) => {
        signal.removeEventListener('abort', onAbort)
        reject(error)
      },
    )
  })
}

/**
 * @typedef {{ warn(message: string): void }} Logger
 * @param {Logger | undefined} logger
 * @returns {Logger}
 */
function resolveLogger(logger) {
  if (logger === undefined) return { warn: (message) => console.warn(`[dsh-skill] ${message}`) }
  if (!logger || typeof logger.warn !== 'function') {
    throw new TypeError('logger must be an object with a warn(message) method')
  }
  return logger
}

/**
 * Call `logger.warn` without letting a throwing logger break the caller.
 * @param {Logger} logger
 * @param {string} message
 */
function safeWarn(logger, message) {
  try {
    logger.warn(message)
  } catch {
    // A broken logger must not break the registry.
  }
}

/**
 * Validate `options.cwd`; an empty string means "no cwd" everywhere.
 * @param {unknown} cwd
 * @returns {string | undefined}
 */
function checkCwd(cwd) {
  if (cwd !== undefined && typeof cwd !== 'string') {
    throw new TypeError(`options.cwd must be a string when present (got ${typeof cwd})`)
  }
  return cwd === '' ? undefined : cwd
}

module.exports = {
  toError,
  abortError,
  throwIfAborted,
  raceSignal,
  describeError,
  resolveLogger,
  safeWarn,
  checkCwd,
}
