// The harness's own published packages, with this checkout's package beside
// them, for the tests that run it inside a real agent loop: see
// scripts/harness-project.mjs (shared with the benchmarks).
// @ts-expect-error -- a plain ES module of the scripts, without typings
import { load as loadModule } from '../scripts/harness-project.mjs'

/** Import `specifier` as the harness project resolves it (installed on first use). */
export function load<T = Record<string, unknown>>(specifier: string): Promise<T> {
  return loadModule(specifier) as Promise<T>
}
