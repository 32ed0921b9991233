// The search tool plugin (`…/search-tool`) in a Cordis harness, end to end,
// with the stand-in tools module (`stand-ins/@deepseek-ai/dsh-tools`): a
// budgeted catalog leaves skills out and its last line names the search
// tool; the model calls the tool, finds a skill the catalog left out, and
// loads it with the `skill` tool. Without the option, the catalog is as
// before. Child processes: the stand-in is found through NODE_PATH, as a
// harness would have the package installed.
import { spawnSync } from 'node:child_process'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { searchCorpus } from '../bench/data/search-corpus.mjs'
import { tempDirs, write } from './helpers'
import * as SkillSearchTool from '../search-tool.mjs'

const root = path.resolve(__dirname, '..')
const STAND_INS = path.join(__dirname, 'stand-ins')
const temps = tempDirs('dsh-search-tool-')
afterAll(() => temps.cleanup())

/** Run an ES module script from the package root; its last stdout line is JSON. */
function run(script: string, env: NodeJS.ProcessEnv = {}) {
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: root,
    env: { ...process.env, NODE_PATH: '', ...env },
    encoding: 'utf8',
    timeout: 60_000,
  })
  const last = result.stdout.trim().split('\n').pop() ?? ''
  return { code: result.status, stderr: result.stderr, out: last.startsWith('{') ? JSON.parse(last) : last }
}

/** The harness of the tests: the registry, a filesystem provider on `dir`, the tools stand-in, the search tool and a `skill` tool shaped like the release's. */
const HARNESS = `
  import { createRequire } from 'node:module'
  import { Context } from 'cordis'
  import SkillRegistry, { isModelInvocable, renderSkillContent } from '@deepseek-ai/dsh-skill-native/cordis'
  import * as SkillFileSystem from '@deepseek-ai/dsh-skill-native/filesystem'
  import * as SkillSearchTool from '@deepseek-ai/dsh-skill-native/search-tool'
  import { planCatalogStep } from '@deepseek-ai/dsh-skill-native'
  const { defineTool, ToolRegistry } = createRequire(import.meta.url)('@deepseek-ai/dsh-tools')
  const ctx = new Context()
  const tools = new ToolRegistry()
  ctx.provide('tools', tools)
  await ctx.plugin(SkillRegistry)
  await ctx.plugin(SkillFileSystem, { includeDefaultRoots: false, customSkillDirs: [process.env.SKILLS], watch: false })
  const skillTool = defineTool({
    name: 'skill',
    description: 'Load a skill of the catalog by its exact name.',
    parameters: { name: { type: 'string', required: true, description: 'The exact skill name.' } },
    output: {
      schema: { type: 'object', additionalProperties: false, properties: {
        name: { type: 'string', required: true }, provider: { type: 'string', required: true },
        resourceBase: { type: 'object' }, content: { type: 'string', required: true } } },
      render: (_args, value) => [{ type: 'text', text: renderSkillContent(value) }],
    },
    async execute(args, exec) {
      const lookup = { cwd: exec.agent?.session.header.cwd, signal: exec.signal, scope: exec.agent }
      const summary = (await ctx.skills.list(lookup)).find((skill) => skill.name === args.name)
      if (!summary || !isModelInvocable(summary)) throw new Error('no such skill: ' + args.name)
      const skill = await ctx.skills.get(args.name, lookup)
      return { name: skill.name, provider: skill.provider, ...(skill.resourceBase ? { resourceBase: { ...skill.resourceBase } } : {}), content: skill.content }
    },
    presentCall: (args) => ({ card: 'generic', title: 'Load skill ' + args.name, kind: 'read', rawInput: args.name }),
  })
  ctx.tools.register(skillTool)
  const agent = { session: { header: { cwd: process.env.PROJECT } } }
  const exec = { agent, signal: new AbortController().signal }
  const text = (result) => result.content.map((block) => block.text).join('')
`

describe('the search tool plugin', () => {
  it('is shaped like the harness tool plugins', () => {
    expect(SkillSearchTool.name).toBe('skill-search-tool')
    expect(SkillSearchTool.inject).toEqual(['tools', 'skills'])
    expect(SkillSearchTool.toolName).toBe('skill_search')
    expect(typeof SkillSearchTool.apply).toBe('function')
    expect(SkillSearchTool.Config({})).toEqual({ limit: 8, descriptionMaxLength: 200 })
    expect(SkillSearchTool.default.apply).toBe(SkillSearchTool.apply)
  })

  it('budgeted catalog → its last line → a tool call → a skill the catalog left out → loaded with the skill tool', () => {
    const skills = temps.make()
    const project = temps.make()
    const corpus = searchCorpus(400)
    for (const { name, description } of corpus) {
      write(path.join(skills, `${name}.md`), `---\nname: ${name}\ndescription: ${JSON.stringify(description)}\n---\nBody of ${name}.\n`)
    }
    const { code, stderr, out } = run(
      `${HARNESS}
      await ctx.plugin(SkillSearchTool, { limit: 5 })
      const out = {}
      out.schemas = tools.schemas().map((t) => [t.name, Object.entries(t.parameters).map(([key, p]) => key + (p.required ? '' : '?') + ': ' + p.type)])
      // A consumer's catalog step: budgeted, and naming the search tool when this agent sees it.
      const searchTool = ctx.tools.get(SkillSearchTool.toolName, agent) !== undefined ? SkillSearchTool.toolName : undefined
      const snapshot = await ctx.skills.snapshot({ cwd: process.env.PROJECT, scope: agent })
      const plan = planCatalogStep({ snapshot, published: false, budget: 1500, searchTool })
      const plain = planCatalogStep({ snapshot, published: false, budget: 1500 })
      out.report = plan.report
      out.lastLine = plan.text.split('\\n').filter((line) => line.startsWith('(')).pop()
      out.plainLastLine = plain.text.split('\\n').filter((line) => line.startsWith('(')).pop()
      out.listed = [...plan.text.matchAll(/^- \`([^\`]+)\`/gm)].map((m) => m[1])
      const found = await tools.call('skill_search', { query: 'get vendor names, dates and totals from scanned receipts' }, exec)
      out.view = found.view
      out.answer = text(found)
      out.few = text(await tools.call('skill_search', { query: 'deploy', limit: 2 }, exec))
      out.nothing = text(await tools.call('skill_search', { query: 'zebra husbandry' }, exec))
      try { await tools.call('skill_search', { query: '   ' }, exec) } catch (error) { out.empty = error.code + ': ' + error.message }
      out.loaded = text(await tools.call('skill', { name: 'invoice-extractor' }, exec))
      // The calling agent's view: a skill of its own layer only it finds.
      const other = { session: { header: { cwd: process.env.PROJECT } } }
      ctx.skills.register({ name: 'house-style', description: 'Our house style for invoices & receipts <draft>.', content: 'Style.' }, { scope: agent })
      out.mine = text(await tools.call('skill_search', { query: 'house style' }, exec))
      out.theirs = text(await tools.call('skill_search', { query: 'house style' }, { agent: other, signal: exec.signal }))
      console.log(JSON.stringify(out))
      process.exit(0)
      `,
      { NODE_PATH: STAND_INS, SKILLS: skills, PROJECT: project },
    )
    expect(stderr).toBe('')
    expect(code).toBe(0)
    expect(out.schemas).toEqual([
      ['skill', ['name: string']],
      ['skill_search', ['query: string', 'limit?: integer']],
    ])
    expect(out.report.total).toBe(400)
    expect(out.report.omitted).toBeGreaterThan(200)
    expect(out.lastLine).toBe(
      `(${out.report.omitted} more skills are available but not listed here; find one by what it does with the \`skill_search\` tool, then load it by its exact name with the \`skill\` tool.)`,
    )
    expect(out.plainLastLine).toMatch(
      /^\(\d+ more skills are available but not listed here; the `skill` tool loads one only by its exact name, which this list does not show\.\)$/,
    )
    expect(out.listed).not.toContain('invoice-extractor')
    expect(out.view).toEqual({ card: 'generic', title: 'Search skills: get vendor names, dates and totals from scanned receipts', kind: 'search', rawInput: 'get vendor names, dates and totals from scanned receipts' })
    const lines = out.answer.split('\n')
    expect(lines[0]).toMatch(/^5 of the \d+ skills matching "get vendor names, dates and totals from scanned receipts", best first:$/)
    expect(lines[1]).toBe('- `invoice-extractor`: Pull totals, dates, vendor names and line items out of scanned invoices and receipts.')
    expect(lines).toHaveLength(7)
    expect(lines[6]).toBe('Load the one that fits with the `skill` tool (pass its exact name) before acting on the task.')
    expect(out.few.split('\n').filter((line: string) => line.startsWith('- `'))).toHaveLength(2)
    expect(out.nothing).toMatch(/^No skill matches "zebra husbandry"\./)
    expect(out.empty).toBe('TOOL_FAILED: skill_search needs a query: a few words about the task')
    expect(out.loaded).toMatch(/^<skill_content name="invoice-extractor">\n<skill_resources>\n[^]*\n<\/skill_resources>\n\n<skill_instructions>\nBody of invoice-extractor\.\n<\/skill_instructions>\n<\/skill_content>$/)
    // The answer is plain text: `&` and `<` reach the model as written.
    expect(out.mine.split('\n')[1]).toBe('- `house-style`: Our house style for invoices & receipts <draft>.')
    expect(out.theirs).not.toContain('house-style')
  })

  it('says what is missing when @deepseek-ai/dsh-tools is not installed', () => {
    const skills = temps.make()
    const { code, out } = run(
      `
      import { Context } from 'cordis'
      import SkillRegistry from '@deepseek-ai/dsh-skill-native/cordis'
      import * as SkillSearchTool from '@deepseek-ai/dsh-skill-native/search-tool'
      const ctx = new Context()
      ctx.provide('tools', { register() { throw new Error('not reached') } })
      await ctx.plugin(SkillRegistry)
      let failure
      try { await ctx.plugin(SkillSearchTool) } catch (error) { failure = error.code + ': ' + error.message }
      console.log(JSON.stringify({ failure }))
      process.exit(0)
      `,
      { SKILLS: skills },
    )
    expect(code).toBe(0)
    expect(out.failure).toBe("ERR_DSH_TOOLS_MISSING: the skill search tool needs @deepseek-ai/dsh-tools (the harness's tool package, for defineTool): load this plugin in a harness that has it")
  })
})
