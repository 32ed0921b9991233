// The `skill` tool plugin at each agent step, inside the harness's own
// packages (scripts/harness-project.mjs installs them): the release's
// `dsh-tool-skill` and this package's `…/harness/tool-skill`, side by side in
// one run, at 100, 1,400 and 10,000 skills.
//
// - step, unchanged: the `agent/pre-step` waterfall of an agent whose
//   catalog is current (what every model step pays);
// - step after a change, plugin alone: one skill's description edited and
//   the registry's catalog taken again, then the waterfall and the append of
//   what it publishes (the plugin's own work on a change);
// - change, end to end: the edit told through `fs/observed`, then the step
//   (the provider's re-listing included; watching is off in every setup, so
//   the providers list the root again);
// - the catalog text one change appends, replace and delta.
//
// The 50-change session at 1,400 skills (the catalog text the requests
// carry) is a test: __test__/tool-skill-session.test.ts.
//
// Setups: `release` = the release's registry, filesystem provider and tool
// plugin (the TypeScript packages); `release tool on ours` = the release's
// tool plugin on this package's registry (the plugin alone); `ours` and
// `ours, delta` = this package's three plugins.
//
// Options: --quick (fewer samples), --sizes 100,1400 (a subset).
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { load } from '../scripts/harness-project.mjs'

const args = process.argv.slice(2)
const quick = args.includes('--quick')
const sizesArg = args.find((a) => a.startsWith('--sizes'))
const sizes = sizesArg ? sizesArg.split('=')[1].split(',').map(Number) : [100, 1400, 10000]

const [cordis, session, agentPkg, llm, systemPrompt, tools] = await Promise.all(
  ['@deepseek-ai/cordis', '@deepseek-ai/dsh-session', '@deepseek-ai/dsh-agent', '@deepseek-ai/dsh-llm', '@deepseek-ai/dsh-system-prompt', '@deepseek-ai/dsh-tools'].map(load),
)
const ours = {
  registry: (await load('@deepseek-ai/dsh-skill-native/harness')).default,
  filesystem: await load('@deepseek-ai/dsh-skill-native/harness/filesystem'),
  toolSkill: await load('@deepseek-ai/dsh-skill-native/harness/tool-skill'),
}
const release = {
  registry: (await load('@deepseek-ai/dsh-skill')).default,
  filesystem: await load('@deepseek-ai/dsh-skill-filesystem'),
  toolSkill: await load('@deepseek-ai/dsh-tool-skill'),
}
const SETUPS = {
  release: { registry: release.registry, filesystem: release.filesystem, tool: release.toolSkill, config: {} },
  'release tool on ours': { registry: ours.registry, filesystem: ours.filesystem, tool: release.toolSkill, config: {} },
  ours: { registry: ours.registry, filesystem: ours.filesystem, tool: ours.toolSkill, config: {} },
  'ours, delta': { registry: ours.registry, filesystem: ours.filesystem, tool: ours.toolSkill, config: { updates: 'delta' } },
}

const WORDS = ['build', 'deploy', 'review', 'data', 'charts', 'tests', 'docs', 'release', 'notes', 'logs', 'audit', 'pdf', 'slides', 'queries', 'cache']
function description(i, edit = 0) {
  let text = `Helps with task ${i}${edit ? ` (edit ${edit})` : ''}:`
  for (let k = 0; text.length < 120 + (i % 80); k++) text += ` ${WORDS[(i * 7 + k * 3 + edit) % WORDS.length]}`
  return text
}
function writeSkill(root, i, edit = 0) {
  const name = `skill-${String(i).padStart(5, '0')}`
  fs.mkdirSync(path.join(root, name), { recursive: true })
  const file = path.join(root, name, 'SKILL.md')
  fs.writeFileSync(file, `---\nname: ${name}\ndescription: ${JSON.stringify(description(i, edit))}\n---\nBody of ${name}.\n`)
  return file
}

let sessions = 0
function newAgent(cwd) {
  const id = session.SessionId(`bench-${++sessions}`)
  const s = session.Session.create(id, [], { version: 0, id, createdAt: 0, cwd })
  s.append('turn/start', { turn: 1 })
  s.append('user/message', llm.createUserMessage({ content: [{ type: 'text', text: 'go' }], source: { kind: 'user' } }), { surfaceOp: 'append' })
  return {
    id,
    options: {},
    session: s,
    inbox: new agentPkg.Inbox(s, { inserted: () => {}, discarded: () => {}, claimed: () => {} }),
    status: 'running',
    ctx: new cordis.Context(),
    send() {},
    followup() {},
    steer() {},
    inject() {
      throw new Error('not at a step boundary')
    },
    cancel() {},
    runMaintenance: (task) => task(new AbortController().signal),
    whenIdle: () => Promise.resolve(),
  }
}

async function mount(setup, root) {
  const ctx = new cordis.Context()
  await ctx.plugin(systemPrompt.default)
  await ctx.plugin(tools.default)
  await ctx.plugin(agentPkg.default)
  await ctx.plugin(setup.registry)
  await ctx.plugin(setup.filesystem, { customSkillDirs: [root], includeDefaultRoots: false, watch: false })
  await ctx.plugin(setup.tool, setup.config)
  return ctx
}

/** One step: the waterfall, and what it entered appended to the session. Returns the appended catalog text length. */
async function step(ctx, agent) {
  const decision = await agentPkg.agentEvents(ctx, agent).waterfall('agent/pre-step', { messages: [], turn: 1, step: 1, signal: new AbortController().signal }, () =>
    Promise.resolve({ kind: 'enter', messages: [] }),
  )
  let chars = 0
  for (const message of decision.messages) {
    agent.session.append('user/message', message, { surfaceOp: 'append' })
    if (message.source.kind === 'skill-catalog') chars += message.content.reduce((n, block) => n + (block.text?.length ?? 0), 0)
  }
  return chars
}

function observed(ctx, file) {
  ctx.emit('fs/observed', { targetKey: file, displayPath: file }, { kind: 'present', version: String(performance.now()) }, { name: 'write' })
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const ms = (x) => (x < 0.1 ? x.toFixed(4) : x < 10 ? x.toFixed(3) : x.toFixed(1))

async function measure(setupName, n, root) {
  const setup = SETUPS[setupName]
  const ctx = await mount(setup, root)
  const agent = newAgent(root)
  if ((await step(ctx, agent)) === 0) throw new Error(`${setupName}: no first catalog (are the skills valid?)`)
  await step(ctx, agent)
  const unchangedRuns = quick ? 20 : n >= 10000 ? 60 : 200
  const unchanged = []
  for (let i = 0; i < unchangedRuns; i++) {
    const t = performance.now()
    await step(ctx, agent)
    unchanged.push(performance.now() - t)
  }
  const changedRuns = quick ? 3 : n >= 10000 ? 8 : 20
  const changed = []
  const plugin = []
  const appended = []
  for (let i = 0; i < changedRuns; i++) {
    // End to end: the provider finds the edit, the plugin publishes it.
    let file = writeSkill(root, (i * 37) % n, 1000 + 2 * i + sessions)
    let t = performance.now()
    observed(ctx, file)
    appended.push(await step(ctx, agent))
    changed.push(performance.now() - t)
    // The plugin alone: the registry has the new catalog already.
    file = writeSkill(root, (i * 37 + 11) % n, 1001 + 2 * i + sessions)
    observed(ctx, file)
    await ctx.skills.snapshot({ cwd: root, scope: agent })
    t = performance.now()
    await step(ctx, agent)
    plugin.push(performance.now() - t)
  }
  await ctx.fiber?.dispose?.()
  return { unchanged: median(unchanged), changed: median(changed), plugin: median(plugin), appended: median(appended) }
}

console.log(`node ${process.version}, load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`)
console.log('\n| skills | setup | step, unchanged (ms) | step after a change, plugin alone (ms) | change, end to end (ms) | catalog text appended per change |')
console.log('|---|---|---|---|---|---|')
for (const n of sizes) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-bench-tool-'))
  for (let i = 0; i < n; i++) writeSkill(root, i)
  for (const name of Object.keys(SETUPS)) {
    const result = await measure(name, n, root)
    console.log(`| ${n.toLocaleString('en-US')} | ${name} | ${ms(result.unchanged)} | ${ms(result.plugin)} | ${ms(result.changed)} | ${result.appended.toLocaleString('en-US')} |`)
  }
  fs.rmSync(root, { recursive: true, force: true })
}
console.log(`\nload average after: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`)
