// The soak's mutable state, shared by every module (a leaf: it imports no other
// module of the soak): counters, failures and warnings by kind, the phase, the
// sequence numbers of names written, the measured rounds, and the run's clock.
import { performance } from 'node:perf_hooks'

export const now = () => performance.now()

/** Scalars the modules read and update (an object, so that importers can assign them). */
export const state = {
  phase: 'churn', // 'churn' | 'settling' | 'quiet'
  /** Revision written into every skill file (`skillText`). */
  rev: 0,
  /** Sequence of entry names the churn makes (`e<n>`, `f<n>.md`, `l<n>`, ...). */
  entrySeq: 0,
  /** Sequence of short-lived JS providers and runtime skills. */
  providerSeq: 0,
  roundNo: 0,
  /** When the run started (set by the entry, right before its first line of output). */
  startedAt: undefined,
}

// ---------------------------------------------------------------------------
// Bookkeeping: counters, failures, warnings by kind

export const counts = {
  fsOps: 0,
  lookups: 0,
  gets: 0,
  abortedLookups: 0,
  jsRegistrations: 0,
  runtimeRegistrations: 0,
  listenerCycles: 0,
  localProviderCycles: 0,
  standaloneProviderCycles: 0,
  invalidations: 0,
  hostMutations: 0,
  rootMoves: 0,
  changes: 0,
  deliberateListenerThrows: 0,
  deliberateListenerRejections: 0,
  deliberateListRejections: 0,
  deliberateDuplicateRuntime: 0,
  quietIncompleteLookups: 0,
}
export const totalOps = () =>
  counts.fsOps +
  counts.lookups +
  counts.gets +
  counts.jsRegistrations +
  counts.runtimeRegistrations +
  counts.listenerCycles +
  counts.localProviderCycles +
  counts.standaloneProviderCycles +
  counts.invalidations +
  counts.hostMutations

/** Failures by check, with a few distinct samples each (paths and numbers folded when comparing). */
export const failures = new Map()
/** Warnings logged, by kind (failures.mjs: `makeLogger`). */
export const warningCounts = new Map()

/** Root-level moves (scripts/root-moves.mjs): where they keep what they set aside. */
export const rootMoves = { place: undefined }

export const convergence = [] // measured-phase samples

export const elapsed = () => now() - state.startedAt
export const clock = () => {
  const s = Math.round(elapsed() / 1000)
  return `${String(Math.floor(s / 60)).padStart(2)}:${String(s % 60).padStart(2, '0')}`
}
