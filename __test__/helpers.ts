import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)

/** The package entry under test (CommonJS build of the public API). */
export const pkg = require('../index.js') as typeof import('../index')

export interface Recorder {
  warnings: string[]
  logger: { warn(message: string): void }
}

export function recorder(): Recorder {
  const warnings: string[] = []
  return { warnings, logger: { warn: (message: string) => void warnings.push(message) } }
}

/** Poll `condition` every `interval` ms until it holds or `timeout` ms pass. */
export async function waitFor(condition: () => boolean | Promise<boolean>, timeout = 10_000, interval = 5): Promise<void> {
  const deadline = Date.now() + timeout
  for (;;) {
    if (await condition()) return
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeout} ms`)
    await new Promise((resolve) => setTimeout(resolve, interval))
  }
}
