// The rest of a round's concurrent workload: lookups (`snapshot`, `list`, `get`,
// aborted lookups) checked as they return, invalidation storms,
// register/dispose cycles of JS providers, runtime skills and listeners, and
// local providers (registered and standalone) created and disposed.
import path from 'node:path'
import { setImmediate as tick, setTimeout as sleep } from 'node:timers/promises'

import { churnRoot } from './churn.mjs'
import { localConfig, projects, randomName, scratch } from './disk.mjs'
import { fail, makeLogger } from './failures.mjs'
import { pick, rand, randInt } from './random.mjs'
import { counts, state } from './state.mjs'
import { candidate, definitionOf, LocalSkillProvider, SkillRegistry } from './world.mjs'

// ---------------------------------------------------------------------------
// Checks on every lookup result

const ALWAYS_PRESENT = ['rt-steady', ...Array.from({ length: 8 }, (_, i) => `js-steady-${i}`)]

function checkSnapshot(snapshot, where, longLived) {
  if (!snapshot || !Array.isArray(snapshot.skills) || typeof snapshot.complete !== 'boolean') {
    fail('malformed snapshot', `${where}: ${JSON.stringify(snapshot)?.slice(0, 200)}`)
    return
  }
  checkSkills(snapshot.skills, where)
  if (longLived && snapshot.complete) {
    const names = new Set(snapshot.skills.map((s) => s.name))
    const missing = ALWAYS_PRESENT.filter((n) => !names.has(n))
    if (missing.length > 0) fail('complete snapshot lost a long-lived skill', `${where}: missing ${missing.join(', ')}`)
  }
}

function checkSkills(skills, where) {
  for (let i = 0; i < skills.length; i++) {
    const s = skills[i]
    if (typeof s?.name !== 'string' || typeof s.description !== 'string' || typeof s.provider !== 'string') {
      fail('malformed summary', `${where}: ${JSON.stringify(s)}`)
      return
    }
    if (i > 0 && !(skills[i - 1].name < s.name)) {
      fail('summaries not sorted by unique name', `${where}: ${skills[i - 1].name} then ${s.name}`)
      return
    }
  }
}

const isAbort = (error, reason) => error === reason

/**
 * One lookup against `registry` (kind chosen at random), checked; never throws.
 * `longLived`: the registry holds the long-lived providers and runtime skills.
 */
async function lookup(registry, cwd, where, longLived = false) {
  const r = rand()
  const options = { cwd }
  let reason
  if (r > 0.9) {
    const controller = new AbortController()
    reason = new Error('soak: lookup aborted')
    options.signal = controller.signal
    if (rand() < 0.3) controller.abort(reason)
    else setTimeout(() => controller.abort(reason), randInt(0, 3))
  }
  try {
    if (r < 0.55 || r > 0.9) {
      counts.lookups++
      checkSnapshot(await registry.snapshot(options), where, longLived)
    } else if (r < 0.7) {
      counts.lookups++
      checkSkills(await registry.list(options), where)
    } else {
      counts.gets++
      const name = rand() < 0.8 ? randomName() : pick(ALWAYS_PRESENT)
      const definition = await registry.get(name, options)
      if (definition !== undefined && (definition.name !== name || typeof definition.content !== 'string')) {
        fail('get() returned another skill', `${where}: asked ${name}, got ${JSON.stringify(definition).slice(0, 200)}`)
      }
    }
  } catch (error) {
    if (reason !== undefined && isAbort(error, reason)) counts.abortedLookups++
    else fail('lookup rejected', `${where} (cwd ${cwd}): ${error?.stack ?? error}`)
  }
}

// ---------------------------------------------------------------------------
// Workload tasks (file churn: churn.mjs). Each runs until `ctl[name]` is set,
// then returns.

function pickCwd(round) {
  if (rand() < 0.1) return undefined
  const project = round.tail ? pick(round.focus) : pick(projects)
  return rand() < 0.3 ? path.join(project, 'sub') : project
}

export async function lookupTask(world, round, ctl, n) {
  while (!ctl.stopDisk) {
    await lookup(world.registry, pickCwd(round), `lookup task ${n}`, true)
    await tick()
  }
}

function randomMutationPath(round) {
  const root = churnRoot(round)
  const r = rand()
  if (r < 0.4) return path.join(root.path, `e${randInt(0, state.entrySeq)}`, 'SKILL.md')
  if (r < 0.7) return path.join(root.path, `f${randInt(0, state.entrySeq)}.md`)
  if (r < 0.8) return root.path
  if (r < 0.9) return path.join(root.path, `e${randInt(0, state.entrySeq)}`, 'references', 'x.md') // not a skill entry
  return path.join(scratch, `save-${randInt(0, state.entrySeq)}`) // outside every root
}

export async function invalidationTask(world, round, ctl) {
  while (!ctl.stopOthers) {
    const pending = []
    const burst = randInt(10, 200)
    for (let i = 0; i < burst; i++) {
      const r = rand()
      counts.invalidations++
      if (r < 0.3) world.steadyControl.invalidate()
      else if (r < 0.5) world.registry.invalidateProvider(world.steady)
      else {
        counts.invalidations--
        counts.hostMutations++
        const target = randomMutationPath(round)
        const hit = world.local.observeHostMutation(target)
        if (hit && (target.startsWith(scratch) || target.includes(`${path.sep}references${path.sep}`))) {
          fail('observeHostMutation invalidated for a path that is no skill entry', target)
        }
      }
      if (i % 10 === 0) pending.push(lookup(world.registry, pickCwd(round), 'invalidation storm', true))
    }
    await Promise.all(pending)
    await sleep(randInt(5, 40))
  }
}

/** Changes counted synchronously around `fn` (listeners run during the mutation). */
function changesDuring(fn) {
  const before = counts.changes
  fn()
  return counts.changes - before
}

export async function registrationTask(world, round, ctl) {
  const registry = world.registry
  while (!ctl.stopOthers) {
    const r = rand()
    if (r < 0.45) {
      // A short-lived JS provider: lookups and invalidations while registered,
      // disposed (sometimes while its list() is still pending).
      const k = ++state.providerSeq
      const slow = rand() < 0.3
      let control
      const provider = {
        name: `js-t${k}`,
        async list() {
          if (slow) await sleep(randInt(1, 15))
          else await tick()
          const out = [candidate(provider.name, `js-t${k}-a`, 650), candidate(provider.name, `js-t${k}-b`, 650)]
          if (rand() < 0.3) out.push(candidate(provider.name, randomName(), 50)) // outranks every root
          return rand() < 0.3 ? { candidates: out, complete: rand() < 0.5 } : out
        },
        async get(c) {
          await tick()
          return definitionOf(c)
        },
      }
      const dispose = registry.registerProvider((c) => {
        control = c
        return provider
      })
      counts.jsRegistrations++
      const pending = []
      for (let i = randInt(0, 4); i > 0; i--) pending.push(lookup(registry, pickCwd(round), 'js provider cycle', true))
      for (let i = randInt(0, 20); i > 0; i--) {
        counts.invalidations += 2
        control.invalidate()
        registry.invalidateProvider(provider)
      }
      if (rand() < 0.5) await sleep(randInt(0, 10))
      dispose()
      dispose()
      if (!control.signal.aborted) fail('control.signal not aborted by dispose', provider.name)
      const late = changesDuring(() => {
        control.invalidate()
        registry.invalidateProvider(provider)
      })
      if (late !== 0) fail('invalidation after dispose notified listeners', `${provider.name}: ${late} changes`)
      await Promise.all(pending)
    } else if (r < 0.75) {
      const name = `rt-${++state.providerSeq}`
      const dispose = registry.register({ name, description: `runtime ${name}`, content: 'c', source: 'runtime' })
      counts.runtimeRegistrations++
      if (rand() < 0.5) await lookup(registry, pickCwd(round), 'runtime cycle', true)
      dispose()
      dispose()
    } else if (r < 0.8) {
      // A duplicate runtime skill: warned, and its disposer does nothing.
      const skill = { name: 'rt-dup', description: 'duplicate runtime skill', content: 'c', source: 'runtime' }
      const first = registry.register(skill)
      counts.deliberateDuplicateRuntime++
      const second = registry.register(skill)
      counts.runtimeRegistrations += 2
      second()
      const names = (await registry.snapshot()).skills.map((s) => s.name)
      if (!names.includes('rt-dup')) fail("a duplicate's disposer removed the first registration", 'rt-dup')
      first()
      if ((await registry.snapshot()).skills.some((s) => s.name === 'rt-dup')) fail('disposed runtime skill still listed', 'rt-dup')
    } else {
      const offs = []
      for (let i = randInt(1, 5); i > 0; i--) offs.push(registry.onChange(() => {}))
      counts.listenerCycles++
      await tick()
      for (const off of offs) off()
    }
    await tick()
  }
}

/** Local providers with watching on, registered and standalone, created and disposed. */
export async function localCycleTask(round, ctl) {
  while (!ctl.stopOthers) {
    const r = rand()
    if (r < 0.5) {
      const registry = new SkillRegistry({ logger: makeLogger('cycled registry') })
      const provider = registry.registerLocalProvider({ ...localConfig, watchMaxProjects: 1 })
      counts.localProviderCycles++
      const pending = []
      for (let i = randInt(1, 4); i > 0; i--) pending.push(lookup(registry, pickCwd(round), 'cycled local provider'))
      if (rand() < 0.5) await Promise.all(pending) // otherwise disposed with lookups in flight
      await provider.dispose()
      await Promise.all(pending)
    } else {
      const provider = new LocalSkillProvider({ ...localConfig, watchMaxProjects: 1, logger: makeLogger('standalone') })
      counts.standaloneProviderCycles++
      const cwd = pickCwd(round)
      try {
        const { candidates, complete } = await provider.list({ cwd })
        if (!Array.isArray(candidates) || typeof complete !== 'boolean') fail('malformed local observation', cwd)
        if (candidates.length > 0) {
          counts.gets++
          const c = pick(candidates)
          const definition = await provider.get(c, { cwd })
          if (definition !== undefined && (typeof definition.name !== 'string' || typeof definition.content !== 'string')) {
            fail('malformed definition from a standalone local provider', JSON.stringify(definition).slice(0, 200))
          }
        }
        counts.hostMutations++
        provider.observeHostMutation(randomMutationPath(round))
        if (rand() < 0.3) {
          // The same provider registered by hand, then unregistered.
          const registry = new SkillRegistry({ logger: makeLogger('hand-registered') })
          const dispose = registry.registerProvider(() => provider)
          await lookup(registry, cwd, 'hand-registered local provider')
          dispose()
        }
      } catch (error) {
        fail('standalone local provider rejected', error?.stack ?? error)
      }
      await provider.dispose()
    }
    await tick()
  }
}
