// Compiled with `tsc --noEmit` by __test__/cordis.test.ts: a Cordis harness
// using the drop-in plugins and the `declare module 'cordis'` augmentation.
import { Context } from 'cordis'
import SkillService, { SkillLocal } from '@deepseek-ai/dsh-skill-native/cordis'
import { LocalSkillProvider, type SkillProviderControl, type SkillRegistry, type SkillSummary } from '../../index.js'

export async function harness(): Promise<SkillSummary[]> {
  const ctx = new Context()
  await ctx.plugin(SkillService, { collectCacheMaxEntries: 16, overrides: [{ name: 'deploy-*', effect: 'off' }] })
  // @ts-expect-error effect is one of 'off', 'user-only', 'model-only', 'on'
  await ctx.plugin(SkillService, { overrides: [{ name: 'x', effect: 'disable' }] })
  await ctx.plugin(SkillService)
  await ctx.plugin(SkillLocal, { dshHome: '/home/user/.dsh' })
  await ctx.plugin(SkillLocal)
  // @ts-expect-error collectCacheMaxEntries is a number
  await ctx.plugin(SkillService, { collectCacheMaxEntries: 'many' })

  const off: () => boolean = ctx.on('skills/change', () => {})
  off()
  ctx.emit('skills/change')

  await ctx.plugin({
    name: 'remote-skills',
    inject: ['skills'],
    apply(ctx: Context) {
      const dispose: () => void = ctx.skills.registerProvider((control: SkillProviderControl) => ({
        name: 'remote',
        list: async () => (control.signal.aborted ? [] : []),
        get: async () => undefined,
      }))
      ctx.skills.register({ name: 'inline', description: 'Inline skill.', content: 'Body.', source: 'runtime' })
      ctx.skills.onChange(() => {})
      void dispose
    },
  })

  const registry: SkillRegistry = ctx.skills.registry
  void registry
  // The TypeScript packages' constructor, inside a provider factory.
  await ctx.plugin({
    name: 'local-skills',
    inject: ['skills'],
    apply(ctx: Context) {
      ctx.skills.registerProvider((control: SkillProviderControl) => new LocalSkillProvider(ctx, control, { watch: false }))
    },
  })
  const standalone = new LocalSkillProvider({ dshHome: '/home/user/.dsh' })
  void standalone.dispose()
  const snapshot = await ctx.skills.snapshot({ cwd: '/p' })
  const definition = await ctx.skills.get('inline', { cwd: '/p' })
  void definition?.content
  ctx.skills.setOverrides([{ source: 'user-agents', effect: 'user-only' }])
  ctx.skills.setOverrides([{ name: '*', effect: 'off' }], { scope: { name: 'reviewer' } })
  const explained = await ctx.skills.explain('inline', { cwd: '/p' })
  void explained?.losers.map((loser) => loser.reason)
  return snapshot.complete ? snapshot.skills : ctx.skills.list()
}
