// The long-lived objects ("world"): a registry with the local provider (watching,
// `watchMaxProjects` below the number of projects), steady and flaky JS
// providers, runtime skills and change listeners.
import { createRequire } from 'node:module'
import { setImmediate as tick } from 'node:timers/promises'

import { WATCH_MAX_PROJECTS } from './config.mjs'
import { localConfig } from './disk.mjs'
import { makeLogger } from './failures.mjs'
import { rand } from './random.mjs'
import { counts, now } from './state.mjs'

const require = createRequire(import.meta.url)
export const { SkillRegistry, LocalSkillProvider } = require('../../index.js')

export function candidate(provider, name, rank, extra = {}) {
  return {
    name,
    description: `${name} from ${provider}`,
    invocation: { modelInvocable: true, userInvocable: true },
    source: 'remote',
    provider,
    rank,
    locator: { provider, name },
    resourceBase: { kind: 'url', url: `https://skills.example/${name}` },
    ...extra,
  }
}

export function definitionOf(c) {
  return {
    name: c.name,
    description: c.description,
    invocation: c.invocation,
    source: c.source,
    provider: c.provider,
    resourceBase: c.resourceBase,
    content: `body of ${c.name}`,
  }
}

export function createWorld() {
  const registry = new SkillRegistry({ logger: makeLogger('registry') })
  const local = registry.registerLocalProvider({ ...localConfig, watchMaxProjects: WATCH_MAX_PROJECTS })
  const world = {
    registry,
    local,
    flaky: true,
    steadyCandidates: [
      ...Array.from({ length: 8 }, (_, i) => candidate('js-steady', `js-steady-${i}`, 700)),
      candidate('js-steady', 'js-steady-hidden', 700, { invocation: { modelInvocable: false, userInvocable: true } }),
      candidate('js-steady', 's-1', 700), // a disk name: wins only while no root has `s-1`
    ],
    flakyCandidates: Array.from({ length: 4 }, (_, i) => candidate('js-flaky', `js-flaky-${i}`, 800)),
    runtimeSkills: [
      { name: 'rt-steady', description: 'a steady runtime skill', content: 'runtime body', source: 'runtime' },
      { name: 's-2', description: 'runtime s-2 outranks custom, user and bundled roots', content: 'runtime s-2', source: 'runtime' },
    ].map((s) => ({ ...s, invocation: { modelInvocable: true, userInvocable: true } })),
    disposers: [],
    changeTimes: [], // when listeners were notified (for the convergence report)
  }
  world.steady = {
    name: 'js-steady',
    async list() {
      await tick()
      return world.steadyCandidates
    },
    async get(c) {
      await tick()
      return definitionOf(c)
    },
  }
  world.disposers.push(
    registry.registerProvider((control) => {
      world.steadyControl = control
      return world.steady
    }),
  )
  world.disposers.push(
    registry.registerProvider(() => ({
      name: 'js-flaky',
      async list(options) {
        await tick()
        if (world.flaky && rand() < 0.15) {
          // Logged by the registry unless the caller's lookup was aborted meanwhile.
          if (!options.signal?.aborted) counts.deliberateListRejections++
          throw new Error('soak: deliberate list failure')
        }
        return { candidates: world.flakyCandidates, complete: true }
      },
      async get(c) {
        return definitionOf(c)
      },
    })),
  )
  for (const skill of world.runtimeSkills) world.disposers.push(registry.register(skill))
  let calls = 0
  world.disposers.push(
    registry.onChange(() => {
      counts.changes++
      world.changeTimes.push(now())
      if (world.changeTimes.length > 512) world.changeTimes.splice(0, 256)
      world.wake?.()
    }),
    registry.onChange(() => {
      if (++calls % 97 === 0) {
        counts.deliberateListenerThrows++
        throw new Error('soak: deliberate listener error')
      }
    }),
    registry.onChange(async () => {
      if (calls % 89 === 0) {
        counts.deliberateListenerRejections++
        throw new Error('soak: deliberate listener rejection')
      }
    }),
  )
  world.dispose = async () => {
    for (const dispose of world.disposers.reverse()) dispose()
    await local.dispose()
  }
  return world
}
