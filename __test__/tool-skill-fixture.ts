// A harness for the `skill` tool plugin tests: the harness's published
// packages (see harness-project.ts) with this package's entries or the
// release's own skill packages, minimal agents over real sessions, and step
// helpers that run the agents' `agent/pre-step` waterfall the way the agent
// loop does.
import fs from 'node:fs'
import path from 'node:path'
import { load } from './harness-project'

/* eslint-disable @typescript-eslint/no-explicit-any -- the harness's packages are loaded untyped */
export type Any = any

export interface Harness {
  Context: Any
  Session: Any
  SessionId: (id: string) => Any
  Inbox: Any
  agentEvents: Any
  createUserMessage: (input: object) => Any
  CallId: (id: string) => Any
  LlmAdapter: Any
  LlmRuntime: Any
  SessionStore: Any
  SystemPrompt: Any
  ToolRuntime: Any
  AgentRegistry: Any
  AgentLoop: Any
  defineContentToolFixture: Any
  createScope: Any
  InvariantRegistry: Any
  /** This package's entries. */
  ours: { registry: Any; filesystem: Any; toolSkill: Any; invariant: Any; catalog: Any }
  /** The release's packages. */
  release: { registry: Any; filesystem: Any; toolSkill: Any }
}

let loaded: Promise<Harness> | undefined

/** The harness's packages and both sets of skill packages, loaded once per test file. */
export function harness(): Promise<Harness> {
  loaded ??= (async () => {
    const [cordis, session, agent, llm, systemPrompt, tools, agentLoop, scope, invariants] = await Promise.all([
      load('@deepseek-ai/cordis'),
      load('@deepseek-ai/dsh-session'),
      load('@deepseek-ai/dsh-agent'),
      load('@deepseek-ai/dsh-llm'),
      load('@deepseek-ai/dsh-system-prompt'),
      load('@deepseek-ai/dsh-tools'),
      load('@deepseek-ai/dsh-agent-loop'),
      load('@deepseek-ai/dsh-scope'),
      load('@deepseek-ai/dsh-invariants'),
    ])
    const [registry, filesystem, toolSkill, invariant, catalog] = await Promise.all([
      load('@deepseek-ai/dsh-skill-native/harness'),
      load('@deepseek-ai/dsh-skill-native/harness/filesystem'),
      load('@deepseek-ai/dsh-skill-native/harness/tool-skill'),
      load('@deepseek-ai/dsh-skill-native/harness/tool-skill/invariant'),
      load('@deepseek-ai/dsh-skill-native'),
    ])
    const [releaseRegistry, releaseFilesystem, releaseToolSkill] = await Promise.all([
      load('@deepseek-ai/dsh-skill'),
      load('@deepseek-ai/dsh-skill-filesystem'),
      load('@deepseek-ai/dsh-tool-skill'),
    ])
    return {
      Context: cordis.Context,
      Session: session.Session,
      SessionId: session.SessionId,
      Inbox: agent.Inbox,
      agentEvents: agent.agentEvents,
      createUserMessage: llm.createUserMessage,
      CallId: llm.CallId,
      LlmAdapter: llm.LlmAdapter,
      LlmRuntime: llm.default,
      SessionStore: session.default,
      SystemPrompt: systemPrompt.default,
      ToolRuntime: tools.default,
      AgentRegistry: agent.default,
      AgentLoop: agentLoop.default,
      defineContentToolFixture: tools.defineContentToolFixture,
      createScope: scope.createScope,
      InvariantRegistry: invariants.default,
      ours: { registry: registry.default, filesystem, toolSkill, invariant, catalog },
      release: { registry: releaseRegistry.default, filesystem: releaseFilesystem, toolSkill: releaseToolSkill },
    }
  })()
  return loaded
}

/** Which skill packages a context mounts. */
export type Flavour = 'ours' | 'release'

/**
 * A context with the services a step needs and one flavour's registry,
 * filesystem plugin (isolated: only `roots`, watching off) and tool plugin.
 */
export async function mount(h: Harness, flavour: Flavour, options: { roots?: string[]; tool?: object; toolPlugin?: Any } = {}) {
  const ctx = new h.Context()
  await ctx.plugin(h.SystemPrompt)
  await ctx.plugin(h.ToolRuntime)
  await ctx.plugin(h.AgentRegistry)
  const set = h[flavour]
  await ctx.plugin(set.registry)
  await ctx.plugin(set.filesystem, { customSkillDirs: options.roots ?? [], includeDefaultRoots: false, watch: false })
  const fiber = await ctx.plugin(options.toolPlugin ?? set.toolSkill, options.tool ?? {})
  return { ctx, fiber }
}

/** A minimal agent over `session` (what the step listeners read: its session, and itself as scope key). */
export function agentOf(h: Harness, session: Any, id = 'agent'): Any {
  return {
    id: h.SessionId(id),
    options: {},
    session,
    inbox: new h.Inbox(session, { inserted: () => {}, discarded: () => {}, claimed: () => {} }),
    status: 'running',
    ctx: new h.Context(),
    send: () => {},
    followup: () => {},
    steer: () => {},
    inject: () => {
      throw new Error('the catalog is proposed at the step boundary, never injected')
    },
    cancel() {},
    runMaintenance: (task: (signal: AbortSignal) => unknown) => task(new AbortController().signal),
    whenIdle: () => Promise.resolve(),
  }
}

let sessions = 0

/** A session with its first user turn open, and an agent over it working in `cwd`. */
export function newAgent(h: Harness, cwd = '/workspace'): Any {
  const id = h.SessionId(`tool-skill-${++sessions}`)
  const session = h.Session.create(id, [], { version: 0, id, createdAt: 0, cwd })
  session.append('turn/start', { turn: 1 })
  session.append('user/message', h.createUserMessage({ content: [{ type: 'text', text: 'start' }], source: { kind: 'user' } }), {
    surfaceOp: 'append',
  })
  return agentOf(h, session, `agent-${sessions}`)
}

/** Runs the pre-step waterfall for `agent` with `messages` claimed; the decision. */
export async function propose(h: Harness, ctx: Any, agent: Any, messages: Any[] = []): Promise<Any> {
  return h
    .agentEvents(ctx, agent)
    .waterfall('agent/pre-step', { messages, turn: 1, step: 1, signal: new AbortController().signal }, () =>
      Promise.resolve({ kind: 'enter', messages }),
    )
}

/** One step: the waterfall, then what it entered appended to the session as the loop does. */
export async function step(h: Harness, ctx: Any, agent: Any, messages: Any[] = []): Promise<Any[]> {
  const decision = await propose(h, ctx, agent, messages)
  if (decision.kind !== 'enter') return []
  for (const message of decision.messages) agent.session.append('user/message', message, { surfaceOp: 'append' })
  return decision.messages
}

/** The catalog messages (`skill-catalog` sources) of a session, oldest first. */
export function catalogs(agent: Any): Any[] {
  return agent.session.events
    .filter((event: Any) => event.type === 'user/message' && event.data.source.kind === 'skill-catalog')
    .map((event: Any) => event.data)
}

/** The text of a message's text blocks. */
export function textOf(message: Any): string {
  return message.content.map((block: Any) => (block.type === 'text' ? block.text : '')).join('')
}

/** Writes a skill bundle `<root>/<name>/SKILL.md` (the description as a YAML double-quoted scalar, exactly). */
export function writeSkill(root: string, name: string, description: string, body = `Instructions of ${name}.`, extra = ''): void {
  const dir = path.join(root, name)
  fs.mkdirSync(dir, { recursive: true })
  fs.writeFileSync(path.join(dir, 'SKILL.md'), `---\nname: ${name}\ndescription: ${JSON.stringify(description)}\n${extra}---\n\n${body}\n`)
}

/** Tells the filesystem provider of `ctx` that a first-party tool wrote `file` (the harness's `fs/observed`). */
export function observed(ctx: Any, file: string): void {
  const version = fs.existsSync(file) ? { kind: 'present', version: String(fs.statSync(file).mtimeMs) } : { kind: 'absent' }
  ctx.emit('fs/observed', { targetKey: file, displayPath: file }, version, { name: 'write' })
}
