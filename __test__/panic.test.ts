// The panic policy, proven on a build of the addon with the `test-hooks` cargo
// feature (its test-only exports panic on purpose). That feature never reaches
// the published addon, which the last test checks.
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import * as path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { testHooksAddonPath } from './helpers'

const require = createRequire(import.meta.url)
const root = path.resolve(__dirname, '..')

/** Path of the `test-hooks` build of the addon. */
let hooksAddon: string

beforeAll(() => {
  hooksAddon = testHooksAddonPath()
}, 600_000)

/** Run `script` in a fresh Node with the test-hooks addon loaded as `hooks`. */
function withHooks(script: string, env: NodeJS.ProcessEnv = {}) {
  const prelude = `const hooks = { exports: {} }; process.dlopen(hooks, ${JSON.stringify(hooksAddon)});`
  const result = spawnSync(process.execPath, ['-e', `${prelude}\n${script}`], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: 60_000,
  })
  return { code: result.status, stdout: result.stdout, stderr: result.stderr }
}

describe('panic policy', () => {
  it('turns Rust panics into JS errors, on and off the JS thread, without noise on stderr', () => {
    const script = `
      const { __panicForTest, __panicOffThreadForTest } = hooks.exports
      let onThread
      try { __panicForTest('boom') } catch (error) { onThread = error.message }
      __panicOffThreadForTest('off-thread boom').then(
        () => console.log(JSON.stringify({ onThread, offThread: 'resolved' })),
        (error) => console.log(JSON.stringify({ onThread, offThread: error.message })),
      )
    `
    // RUST_BACKTRACE=1 would make the default hook print a full backtrace.
    const result = withHooks(script, { RUST_BACKTRACE: '1' })
    expect(result.code).toBe(0)
    expect(JSON.parse(result.stdout)).toEqual({
      // napi's own `catch_unwind` passes the panic message through.
      onThread: 'boom',
      offThread: 'dsh-skill-native internal error: off-thread boom',
    })
    expect(result.stderr).toBe('')
  })

  it('keeps the process usable after a contained panic', () => {
    const result = withHooks(`
      try { hooks.exports.__panicForTest('first') } catch {}
      try { hooks.exports.__panicForTest('second') } catch (error) { console.log(error.message) }
      hooks.exports.__panicForTest('')
      console.log('alive')
    `)
    expect(result.stdout).toBe('second\nalive\n')
    expect(result.code).toBe(0)
  })

  it('the release addon has no test-only panic exports', () => {
    const binding = require('../binding.js') as Record<string, unknown>
    expect(typeof binding.catalogContentDigest).toBe('function')
    expect(binding.__panicForTest).toBeUndefined()
    expect(binding.__panicOffThreadForTest).toBeUndefined()
    expect(binding.__localeCompareForTest).toBeUndefined()
  })
})
