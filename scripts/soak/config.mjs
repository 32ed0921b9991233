// The soak's options (the command line) and fixed bounds, and the process set-up
// every module relies on: `gc` exposed, the package's environment variables unset.
import { parseArgs } from 'node:util'
import v8 from 'node:v8'
import vm from 'node:vm'

export const { values: args } = parseArgs({
  options: {
    minutes: { type: 'string' },
    smoke: { type: 'boolean', default: false },
    seed: { type: 'string', default: '1' },
    'churn-ms': { type: 'string' },
    'checkpoint-s': { type: 'string' },
    json: { type: 'string' },
    keep: { type: 'boolean', default: false },
    strict: { type: 'boolean', default: false },
  },
})
export const MINUTES = Number(args.minutes ?? (args.smoke ? 0.5 : 10))
export const DURATION_MS = MINUTES * 60_000
export const WARMUP_MS = Math.min(60_000, DURATION_MS * 0.1)
export const CHURN_MS = Number(args['churn-ms'] ?? 2_000)
export const CHECKPOINT_MS = Number(args['checkpoint-s'] ?? (args.smoke ? 5 : 30)) * 1000
export const SEED = Number(args.seed)
for (const [name, value] of [['minutes', MINUTES], ['churn-ms', CHURN_MS], ['checkpoint-s', CHECKPOINT_MS], ['seed', SEED]]) {
  if (!Number.isFinite(value) || value <= 0) {
    console.error(`soak: --${name} must be a positive number`)
    process.exit(2)
  }
}

/** The registry must match the disk within this long after the last write. */
export const CONVERGENCE_BOUND_MS = 100
/** Past this, the catalog is stale (a failure whatever the load). */
export const CONVERGENCE_DEADLINE_MS = 5_000
/** Work still running this long after it was told to stop is a hang. */
export const HANG_MS = 15_000
/** Quiet time before a resource sample (watcher threads exit, V8 settles). */
export const SETTLE_MS = 1_000
/** RSS / JS heap tolerances (see the header of index.mjs). */
export const RSS_TOLERANCE = 32 * 1024 * 1024
export const HEAP_TOLERANCE = 8 * 1024 * 1024

export const PROJECTS = 5
export const WATCH_MAX_PROJECTS = 2
export const NAME_POOL = 40
export const MAX_ENTRIES = 12

if (typeof globalThis.gc !== 'function') {
  v8.setFlagsFromString('--expose-gc')
  globalThis.gc = vm.runInNewContext('gc')
}
export const gc = globalThis.gc

for (const key of ['DSH_HOME', 'DSH_AGENTS_HOME', 'DSH_BUNDLED_SKILL_DIR']) delete process.env[key]
