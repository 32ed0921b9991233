// Rounds: one round of concurrent churn, then quiet (convergence and the quiet
// checks); and the canonical sample of a checkpoint (the disk reset to the fixed
// layout, the same projects looked up, settle, GC, sample).
import { setTimeout as sleep } from 'node:timers/promises'

import { churnTask } from './churn.mjs'
import { CHURN_MS, CONVERGENCE_DEADLINE_MS, HANG_MS, PROJECTS } from './config.mjs'
import { converge, verifyQuiet } from './convergence.mjs'
import { projects, resetDisk } from './disk.mjs'
import { fail } from './failures.mjs'
import { sample, settleAndCollect, threadStats } from './resources.mjs'
import { convergence, now, state } from './state.mjs'
import { invalidationTask, localCycleTask, lookupTask, registrationTask } from './workload.mjs'

function withTimeout(promise, ms, what) {
  let timer
  return Promise.race([
    promise,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} did not settle within ${ms} ms`)), ms)
    }),
  ]).finally(() => clearTimeout(timer))
}

export async function runRound(world, { measured }) {
  const k = state.roundNo++
  const round = { focus: [projects[k % PROJECTS], projects[(k + 1) % PROJECTS]], tail: false }
  const ctl = { stopDisk: false, stopOthers: false, lastWriteAt: now() }
  state.phase = 'churn'
  world.flaky = true
  const disk = [churnTask(world, round, ctl), lookupTask(world, round, ctl, 1), lookupTask(world, round, ctl, 2)]
  const others = [registrationTask(world, round, ctl), invalidationTask(world, round, ctl), localCycleTask(round, ctl)]
  // Project switching for the first 60 %, then lookups stay in the focus projects
  // (exactly `watchMaxProjects` of them), so the watched set is theirs when churn stops.
  await sleep(CHURN_MS * 0.6)
  round.tail = true
  await sleep(CHURN_MS * 0.4)
  // Registrations, invalidation storms and cycled providers stop first; file churn
  // and lookups go on until the very end.
  ctl.stopOthers = true
  world.flaky = false
  await withTimeout(Promise.all(others), HANG_MS, 'registrations, invalidation storms and local provider cycles')
  ctl.stopDisk = true
  await withTimeout(disk[0], HANG_MS, 'file churn')
  const tLast = ctl.lastWriteAt
  const threadsAtStop = threadStats()
  state.phase = 'settling'
  const focusCwds = [...round.focus, undefined]
  const result = await converge(world, focusCwds, tLast, threadsAtStop)
  await withTimeout(Promise.all(disk), HANG_MS, 'lookups')
  if (!result.ok) {
    fail(
      `registry did not converge to the disk within ${CONVERGENCE_DEADLINE_MS} ms after churn stopped`,
      `round ${k}: ${result.diffs.slice(0, 4).join('; ')}`,
    )
  } else if (measured) convergence.push({ round: k, ...result })
  state.phase = 'quiet'
  await verifyQuiet(world, focusCwds)
  return result
}

/** Reset the disk to the fixed layout, look up the same projects, settle, GC, sample. */
export async function canonicalSample(world, label) {
  state.phase = 'settling'
  resetDisk()
  const tLast = now()
  const result = await converge(world, [projects[0], projects[1], undefined], tLast, threadStats())
  if (!result.ok) fail('registry did not converge after the disk reset', `${label}: ${result.diffs.slice(0, 4).join('; ')}`)
  state.phase = 'quiet'
  await settleAndCollect()
  return sample(label)
}
