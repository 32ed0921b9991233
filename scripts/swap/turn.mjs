// One turn of a harness built from the harness's published packages, with a
// scripted model: it asks for the skill `release-notes` through the `skill`
// tool, then answers. Prints every request the model adapter received, as
// JSON (the abort signal left out). Run by scripts/swap/run.mjs in a project
// whose package.json chooses the skill packages (the TypeScript ones, or this
// package's through `overrides`); needs Node 22 (the harness calls
// Promise.withResolvers).
//
//   SWAP_PROJECT=<a directory holding .git and .dsh/skills> node turn.mjs
import { Context } from '@deepseek-ai/cordis'
import LlmRuntime, { LlmAdapter, createUserMessage, CallId } from '@deepseek-ai/dsh-llm'
import SessionStore, { SessionId } from '@deepseek-ai/dsh-session'
import SystemPrompt from '@deepseek-ai/dsh-system-prompt'
import ToolRuntime from '@deepseek-ai/dsh-tools'
import AgentRegistry from '@deepseek-ai/dsh-agent'
import AgentLoop from '@deepseek-ai/dsh-agent-loop'
import SkillRegistry from '@deepseek-ai/dsh-skill'
import * as SkillFileSystem from '@deepseek-ai/dsh-skill-filesystem'
import * as ToolSkill from '@deepseek-ai/dsh-tool-skill'

const project = process.env.SWAP_PROJECT
if (!project) throw new Error('SWAP_PROJECT is not set')

/** A text answer, streamed as one block. */
function text(answer) {
  return [
    { type: 'block-start', index: 0, blockType: 'text' },
    { type: 'text-delta', index: 0, text: answer },
    { type: 'block-end', index: 0, block: { type: 'text', text: answer } },
    { type: 'usage', usage: { inputTokens: 1, outputTokens: 1 } },
    { type: 'finish', reason: { kind: 'stop' } },
  ]
}

/** One tool call, its arguments streamed in two pieces. */
function call(id, name, args) {
  const json = JSON.stringify(args)
  const callId = CallId(id)
  return [
    { type: 'block-start', index: 0, blockType: 'tool-call' },
    { type: 'tool-call-delta', index: 0, id: callId, name, argumentsDelta: json.slice(0, 4) },
    { type: 'tool-call-delta', index: 0, id: callId, argumentsDelta: json.slice(4) },
    { type: 'block-end', index: 0, block: { type: 'tool-call', id: callId, name, arguments: json } },
    { type: 'usage', usage: { inputTokens: 1, outputTokens: 1 } },
    { type: 'finish', reason: { kind: 'tool-calls' } },
  ]
}

/** The model: answers from a script, one entry per request, and keeps each request. */
class ScriptedModel extends LlmAdapter {
  requests = []
  script = [call('call-1', 'skill', { name: 'release-notes' }), text('Release notes written.')]

  resolveModel(provider, model) {
    return Promise.resolve({ provider, id: model, name: model })
  }

  async *stream(options) {
    const { signal, ...request } = options
    this.requests.push(structuredClone(request))
    const next = this.script.shift()
    if (next === undefined) throw new Error('the scripted model has no more answers')
    for (const chunk of next) yield chunk
  }
}

const model = new ScriptedModel()
const ctx = new Context()
await ctx.plugin(LlmRuntime)
await ctx.plugin(SessionStore)
await ctx.plugin(SystemPrompt, { persona: '' })
await ctx.plugin(ToolRuntime)
await ctx.plugin(AgentRegistry)
await ctx.plugin(AgentLoop, { agents: [] })
await ctx.plugin(SkillRegistry)
await ctx.plugin(SkillFileSystem, { includeDefaultRoots: true, watch: false })
await ctx.plugin(ToolSkill)
ctx.llm.registerAdapter(['scripted'], model)

const agent = ctx.agentLoop.create(SessionId('swap-turn'), { provider: 'scripted', model: 'scripted' }, { cwd: project })
const idle = new Promise((resolve) => {
  const dispose = ctx.on('agent/status', ({ agent: subject, status }) => {
    if (subject === agent && status === 'idle') {
      dispose()
      resolve()
    }
  })
})
agent.followup(createUserMessage({ content: [{ type: 'text', text: 'Write the release notes for this version.' }], source: { kind: 'user' } }))
await idle
const errors = agent.session.events.filter((event) => /error/i.test(event.type)).map((event) => event.type)
console.log(JSON.stringify({ requests: model.requests, errors }))
process.exit(0)
