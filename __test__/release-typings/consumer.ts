// Compiled with `tsc --noEmit` by __test__/harness-fork.test.ts against the
// packed package, in a project on npm `cordis`: a harness on npm `cordis`
// using release 0.1.1-rc.2's names from the Cordis entries.
import { Context } from 'cordis'
import SkillRegistry, {
  BUNDLED_SKILL_RANK,
  SkillService,
  escapeText,
  framework,
  isModelInvocable,
  isUserInvocable,
  renderSkillContent,
  type SkillInvocationSource,
  type SkillViewOptions,
} from '@deepseek-ai/dsh-skill-native/cordis'
import * as SkillFileSystem from '@deepseek-ai/dsh-skill-native/filesystem'
import SkillFileSystemPlugin, { FileSystemSkillProvider, type Config as FileSystemConfig } from '@deepseek-ai/dsh-skill-native/filesystem'
import type { SkillCandidate, SkillProviderControl, SkillSummary } from '@deepseek-ai/dsh-skill-native'

export async function harness(scope: object): Promise<string[]> {
  const ctx = new Context()
  await ctx.plugin(SkillRegistry, { collectCacheMaxEntries: 8 })
  await ctx.plugin(SkillService)
  await ctx.plugin(SkillRegistry, { scopes: { scopeChainOf: (key: object) => [key], scopeOf: () => undefined } })
  // @ts-expect-error scopes needs scopeChainOf
  await ctx.plugin(SkillRegistry, { scopes: { scopeOf: () => undefined } })
  await ctx.plugin(SkillFileSystem, { customSkillDirs: ['/opt/skills'], includeDefaultRoots: false })
  await ctx.plugin(SkillFileSystemPlugin, { providerName: 'team' })
  // @ts-expect-error watch is a boolean
  await ctx.plugin(SkillFileSystem, { watch: 'yes' })
  const config: FileSystemConfig = SkillFileSystem.Config({ watch: false })
  void config
  const which: 'cordis' | '@deepseek-ai/cordis' = framework
  void which

  await ctx.plugin({
    name: 'badge-skills',
    inject: ['skills'],
    apply(ctx: Context) {
      ctx.skills.registerProvider((control: SkillProviderControl) => ({
        name: 'badge',
        list: async () => {
          const candidate: SkillCandidate = {
            name: 'badge',
            description: 'A badge.',
            invocation: { modelInvocable: true, userInvocable: true },
            source: 'bundled',
            provider: 'badge',
            rank: BUNDLED_SKILL_RANK,
            locator: control.signal,
          }
          return [candidate]
        },
        get: async (candidate) => ({ ...candidate, content: 'Badge.' }),
      }))
      ctx.skills.register({ name: 'inline', description: 'Inline.', content: 'Body.', source: 'runtime' }, { scope })
      ctx.skills.registerProvider(
        (control: SkillProviderControl) => new FileSystemSkillProvider(ctx, control, { includeDefaultRoots: false }),
        { scope: undefined },
      )
    },
  })

  const options: SkillViewOptions = { cwd: '/p', scope }
  const menu: SkillSummary[] = (await ctx.skills.list(options)).filter(isUserInvocable)
  const catalog = (await ctx.skills.snapshot({ cwd: '/p', signal: new AbortController().signal, scope })).skills.filter(isModelInvocable)
  const loaded = await ctx.skills.get('badge', { cwd: '/p', scope })
  const source: SkillInvocationSource = { kind: 'skill-invocation', name: 'badge', form: 'instructions' }
  // @ts-expect-error form is 'instructions'
  const wrong: SkillInvocationSource = { kind: 'skill-invocation', name: 'badge', form: 'catalog' }
  void wrong
  const text = loaded === undefined ? escapeText(`unknown skill ${source.name}`) : renderSkillContent(loaded)
  const standalone = new FileSystemSkillProvider({ watch: false })
  void standalone.dispose()
  return [text, ...menu.map((s) => s.name), ...catalog.map((s) => s.name)]
}
