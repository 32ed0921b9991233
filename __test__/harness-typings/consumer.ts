// Compiled with `tsc --noEmit` by __test__/harness-fork.test.ts inside a
// temporary harness project whose node_modules holds `@deepseek-ai/cordis`,
// `@deepseek-ai/schemastery`, `@deepseek-ai/dsh-scope` (stand-in) and the
// packed package: a harness of release 0.1.1-rc.2 typed against the fork.
import { Context } from '@deepseek-ai/cordis'
import { assignScope, createScope } from '@deepseek-ai/dsh-scope'
import SkillRegistry, {
  BUNDLED_SKILL_RANK,
  SkillService,
  escapeText,
  framework,
  isModelInvocable,
  isUserInvocable,
  renderSkillContent,
  type SkillInvocationSource,
} from '@deepseek-ai/dsh-skill-native/harness'
import * as SkillFileSystem from '@deepseek-ai/dsh-skill-native/harness/filesystem'
import { FileSystemSkillProvider } from '@deepseek-ai/dsh-skill-native/harness/filesystem'
import type { SkillProviderControl, SkillSummary } from '@deepseek-ai/dsh-skill-native'

export async function harness(cwd: string): Promise<string[]> {
  const ctx = new Context()
  await ctx.plugin(SkillRegistry, { collectCacheMaxEntries: 16 })
  // @ts-expect-error collectCacheMaxEntries is a number
  await ctx.plugin(SkillRegistry, { collectCacheMaxEntries: 'many' })
  await ctx.plugin(SkillService)
  await ctx.plugin(SkillFileSystem, { customSkillDirs: ['/opt/skills'] })
  // @ts-expect-error providerName is a string
  await ctx.plugin(SkillFileSystem, { providerName: 7 })
  const fork: '@deepseek-ai/cordis' = framework
  void fork

  // An agent preset mounts its own filesystem provider in its scope.
  const reviewer = createScope({ name: 'reviewer' })
  const preset = assignScope(ctx.extend(), reviewer)
  await preset.plugin(SkillFileSystem, { customSkillDirs: ['/opt/reviewer-skills'], includeDefaultRoots: false })
  // …and restricts what its agents see.
  await preset.plugin(SkillFileSystem, { includeDefaultRoots: false, overrides: [{ name: '*', effect: 'off' }, { name: 'review-*', effect: 'on' }] })
  ctx.skills.setOverrides([{ name: '*', effect: 'off' }, { name: 'review-code', effect: 'on' }], { scope: reviewer })
  // @ts-expect-error an effect is one of four words
  await preset.plugin(SkillFileSystem, { overrides: [{ name: 'x', effect: 'hide' }] })

  const off: () => boolean = ctx.on('skills/change', () => {})
  off()
  await ctx.plugin({
    name: 'badge-skills',
    inject: ['skills'],
    apply(ctx: Context) {
      ctx.skills.registerProvider((control: SkillProviderControl) => new FileSystemSkillProvider(ctx, control, { watch: false }))
      ctx.skills.registerProvider(() => ({
        name: 'badge',
        list: async () => [
          {
            name: 'badge',
            description: 'Badge.',
            invocation: { modelInvocable: true, userInvocable: true },
            source: 'bundled',
            provider: 'badge',
            rank: BUNDLED_SKILL_RANK,
            locator: undefined,
          },
        ],
        get: async () => undefined,
      }))
    },
  })
  const menu: SkillSummary[] = (await ctx.skills.list({ cwd, scope: reviewer })).filter(isUserInvocable)
  const catalog = (await ctx.skills.snapshot({ cwd, scope: reviewer })).skills.filter(isModelInvocable)
  const skill = await ctx.skills.get('badge', { cwd, signal: new AbortController().signal, scope: reviewer })
  const source: SkillInvocationSource = { kind: 'skill-invocation', name: 'badge', form: 'instructions' }
  return [skill ? renderSkillContent(skill) : escapeText(source.name), ...menu.map((s) => s.name), ...catalog.map((s) => s.name)]
}
