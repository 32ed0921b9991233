// Compiled with `tsc --noEmit` by __test__/typings.test.ts: the scope types.
import {
  SkillRegistry,
  type SkillExplanation,
  type SkillOverridesOptions,
  type SkillRegistrationOptions,
  type SkillScopeKey,
  type SkillScopeResolver,
  type SkillSummary,
  type SkillViewOptions,
} from '../../index.js'

const parents = new WeakMap<object, object>()
const resolver: SkillScopeResolver = {
  scopeChainOf(key: SkillScopeKey): readonly SkillScopeKey[] {
    const chain: SkillScopeKey[] = []
    for (let at: object | undefined = key; at !== undefined; at = parents.get(at)) chain.push(at)
    return chain
  },
  scopeOf: (ctx: unknown) => (typeof ctx === 'object' && ctx !== null ? parents.get(ctx) : undefined),
}
const preset: SkillScopeKey = { name: 'preset' }
const agent: SkillScopeKey = () => {}
parents.set(agent, preset)

const registry = new SkillRegistry({ scopes: resolver })
const inUse: SkillScopeResolver = registry.scopes
const where: SkillRegistrationOptions = { scope: preset }
const dispose: () => void = registry.registerProvider(
  () => ({ name: 'p', list: async () => [], get: async () => undefined }),
  where,
)
registry.register({ name: 'x', description: 'd', content: '', source: 'runtime' }, { scope: agent })
registry.register({ name: 'y', description: 'd', content: '', source: 'runtime' }, { scope: undefined })
registry.registerLocalProvider({ watch: false }, { scope: preset })
const view: SkillViewOptions = { cwd: '/w', scope: agent, signal: new AbortController().signal }
async function read(): Promise<void> {
  const skills: SkillSummary[] = await registry.list(view)
  const snapshot = await registry.snapshot({ scope: agent })
  const why: SkillExplanation | undefined = await registry.explain('x', view)
  const reason: 'rank' | 'order' | 'off' | 'scope' | 'same' | undefined = why?.losers[0]?.reason
  const ruleScope: SkillScopeKey | undefined = why?.winner?.override?.scope
  const from: SkillScopeKey | undefined = why?.winner?.scope
  await registry.get('x', { scope: preset })
  void [skills, snapshot, reason, ruleScope, from, inUse.scopeOf?.({})]
}
// Per-agent rules: a scope's layer, by setOverrides or with a registration.
const forAgent: SkillOverridesOptions = { scope: agent }
registry.setOverrides([{ name: '*', effect: 'off' }, { name: 'x', effect: 'on' }], forAgent)
registry.register({ name: 'w', description: 'd', content: '', source: 'runtime' }, { scope: preset, overrides: [{ name: 'y', effect: 'off' }] })
// @ts-expect-error a scope is an object
registry.register({ name: 'z', description: 'd', content: '', source: 'runtime' }, { scope: 'preset' })
void [dispose, read]
