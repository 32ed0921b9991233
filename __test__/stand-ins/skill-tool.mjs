// A stand-in for the harness's `skill` tool package (release 0.1.1-rc.2),
// written from SPEC-HEAD: it imports every helper from the registry package
// it runs against — here the entry under test, the only import line the test
// rewrites (`…/harness` or `…/cordis`) — and does what the release's tool
// does with them: a model call validates the name, finds the summary in the
// calling agent's view, refuses a skill the model may not invoke, loads it
// again with the same view, checks the policy again and returns the result
// object, which the tool layer checks against the output schema
// (`INVALID_TOOL_OUTPUT`) before rendering it with `renderSkillContent`; a
// user's `/name` gestures load user-invocable skills as `skill-invocation`
// injections. Messages are our own.
import {
  escapeText,
  isModelInvocable,
  isSkillName,
  isUserInvocable,
  renderSkillContent,
} from '@deepseek-ai/dsh-skill-native/harness'

/** A tool failure with the harness's error code. */
export class ToolError extends Error {
  constructor(code, message) {
    super(message)
    this.code = code
  }
}

const RESOURCE_FIELDS = { directory: 'path', url: 'url', opaque: 'description' }

/** The output schema check of the tool layer: `{ name, provider, resourceBase?, content }`, nothing else. */
function checkOutput(value) {
  const allowed = new Set(['name', 'provider', 'resourceBase', 'content'])
  const fail = (why) => {
    throw new ToolError('INVALID_TOOL_OUTPUT', `the skill tool returned an invalid result: ${why}`)
  }
  for (const key of Object.keys(value)) if (!allowed.has(key)) fail(`unexpected field ${key}`)
  for (const key of ['name', 'provider', 'content']) if (typeof value[key] !== 'string') fail(`${key} is not a string`)
  const base = value.resourceBase
  if (base === undefined) return
  const field = RESOURCE_FIELDS[base?.kind]
  if (field === undefined) fail(`unknown resource base kind ${JSON.stringify(base?.kind)}`)
  if (Object.keys(base).length !== 2 || typeof base[field] !== 'string') fail(`resource base ${base.kind} needs ${field}`)
}

/** The view of the calling agent: its session's cwd, the call's signal, the agent as scope. */
function lookupOf(agent, signal) {
  return { cwd: agent?.cwd, signal, scope: agent?.scope }
}

/**
 * The `skill` tool bound to `skills` (`ctx.skills`). `call(args, agent)`
 * resolves to the rendered tool result, or rejects with the failure a model
 * would see.
 */
export function skillTool(skills) {
  async function execute(args, agent, signal) {
    if (!isSkillName(args.name)) throw new ToolError('TOOL_FAILED', `"${escapeText(String(args.name))}" is not a skill name`)
    const lookup = lookupOf(agent, signal)
    const summary = (await skills.list(lookup)).find((skill) => skill.name === args.name)
    if (summary === undefined) throw new ToolError('TOOL_FAILED', `no skill named ${args.name} is available`)
    if (!isModelInvocable(summary)) throw new ToolError('TOOL_FAILED', `${args.name} may not be loaded by the model`)
    const skill = await skills.get(args.name, lookup)
    if (skill === undefined) throw new ToolError('TOOL_FAILED', `no skill named ${args.name} is available`)
    if (!isModelInvocable(skill)) throw new ToolError('TOOL_FAILED', `${args.name} may not be loaded by the model`)
    return {
      name: skill.name,
      provider: skill.provider,
      ...(skill.resourceBase !== undefined ? { resourceBase: { ...skill.resourceBase } } : {}),
      content: skill.content,
    }
  }
  return {
    name: 'skill',
    async call(args, agent, signal = new AbortController().signal) {
      const value = await execute(args, agent, signal)
      checkOutput(value)
      return renderSkillContent(value)
    },
  }
}

const GESTURE = /(^|\s)\/([a-z0-9]+(?:-[a-z0-9]+)*)(?=\s|$)/g

/**
 * The `/name` injections for a step's user messages (`{ source: { kind },
 * content: [{ type, text }] }`): each user-invocable skill once, in
 * first-seen order, as `{ text, source }`.
 */
export async function invocations(skills, messages, agent, signal = new AbortController().signal) {
  const names = []
  for (const message of messages) {
    if (message.source.kind !== 'user') continue
    for (const block of message.content) {
      if (block.type !== 'text') continue
      for (const match of block.text.matchAll(GESTURE)) if (!names.includes(match[2])) names.push(match[2])
    }
  }
  const injected = []
  for (const name of names) {
    const skill = await skills.get(name, lookupOf(agent, signal))
    if (skill === undefined || !isUserInvocable(skill)) continue
    injected.push({ text: renderSkillContent(skill), source: { kind: 'skill-invocation', name, form: 'instructions' } })
  }
  return injected
}
