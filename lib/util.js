'use strict'

/**
 * @param {AbortSignal | undefined} signal
 */
function throwIfAborted(signal) {
  if (signal && signal.aborted) throw signal.reason
}

/**
 * Settle with `promise`, or reject with `signal.reason` as soon as the signal
 * aborts (a provider that never settles cannot hang an aborted caller).
 * @template T
 * @param {Promise<T>} promise
 * @param {AbortSignal | undefined} signal
 * @returns {Promise<T>}
 */
function raceSignal(promise, signal) {
  if (!signal) return promise
  if (signal.aborted) {
    promise.then(undefined, () => {})
    return Promise.reject(signal.reason)
  }
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason)
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

/** @param {unknown} error */
function describeError(error) {
  if (error instanceof Error) return error.message
  try {
    return String(error)
  } catch {
    return Object.prototype.toString.call(error)
  }
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

module.exports = { throwIfAborted, raceSignal, describeError, resolveLogger, safeWarn, checkCwd }
