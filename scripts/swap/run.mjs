#!/usr/bin/env node
// `npm run test:swap`: the swap a harness project makes, proved with the
// harness's published packages (the registry is needed; not part of `npm test`).
//
// 1. A harness project installs the 0.1.0-rc.8 set of the harness packages
//    from npm (dsh-agent, dsh-agent-loop, dsh-tools, dsh-tool-skill,
//    dsh-skill, dsh-skill-filesystem; npm brings their peers) and runs one
//    turn (turn.mjs) with a scripted model that loads a skill through the
//    `skill` tool, under Node 22 (the harness calls Promise.withResolvers).
// 2. The same project, its package.json edited as docs/migrating.md says (the
//    harness names as npm aliases of this package's compatibility packages,
//    and one `overrides` block), `npm install`ed over its lockfile, runs the
//    same turn. Once with every name this package serves, and once with each
//    name alone (our registry with their filesystem provider, and theirs with
//    ours). `@deepseek-ai/dsh-tool-skill` is swapped only when this package
//    exports `./harness/tool-skill`.
// 3. Every request the model received must be the TypeScript packages' own,
//    byte for byte, apart from the message ids (random) and our wording inside
//    `<skill_resources>` (and, with the `skill` tool swapped, the prose around
//    the catalog entries and the tool's descriptions).
// 4. The lockfile pitfall of docs/migrating.md: in an npm workspace whose
//    package gets a harness name only as a peer, adding the overrides and
//    `npm install` can keep the TypeScript package (npm says "up to date");
//    the check the docs give sees it, and the fix they give
//    (`npm update <names>`) ends it.
//
// This package and its compatibility packages are packed from this clone (the
// addon must be built: `npm ci` or `npm run build`), so nothing of ours comes
// from the registry. Node 22: $SWAP_NODE, /tmp/node22/package/bin/node, or
// `node-<platform>-<arch>@22` fetched from npm into the temporary directory.
//
//   npm run test:swap              (add -- --keep to keep the temporary directory)
import { execFileSync, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'

const require = createRequire(import.meta.url)
const here = path.dirname(fileURLToPath(import.meta.url))
const root = path.resolve(here, '..', '..')
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'
const HARNESS_VERSION = '0.1.0-rc.8'
const HARNESS = ['dsh-agent', 'dsh-agent-loop', 'dsh-tools', 'dsh-tool-skill', 'dsh-skill', 'dsh-skill-filesystem'].map((name) => `@deepseek-ai/${name}`)
const NATIVE = '@deepseek-ai/dsh-skill-native'
const keep = process.argv.includes('--keep')

const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-swap-')))
const home = path.join(base, 'home')
fs.mkdirSync(home)
/** npm and node as a user runs them: no npm variables of a surrounding npm script, an empty home. */
const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key) && key !== 'INIT_CWD'))
Object.assign(env, { HOME: home, USERPROFILE: home, npm_config_cache: path.join(os.homedir(), '.npm'), npm_config_update_notifier: 'false' })
for (const key of ['DSH_HOME', 'DSH_AGENTS_HOME', 'DSH_BUNDLED_SKILL_DIR']) delete env[key]

function say(line) {
  console.log(`test:swap: ${line}`)
}

function fail(line) {
  console.error(`test:swap: FAILED: ${line}`)
  if (!keep) fs.rmSync(base, { recursive: true, force: true })
  else console.error(`test:swap: kept ${base}`)
  process.exit(1)
}

function npmIn(dir, args) {
  const result = spawnSync(npm, args, { cwd: dir, env, encoding: 'utf8', timeout: 600_000 })
  if (result.status !== 0) fail(`npm ${args.join(' ')} in ${dir}:\n${result.stdout}${result.stderr}`)
  return result.stdout
}

/** A Node 22 binary: $SWAP_NODE, the one in /tmp/node22, or fetched from npm. */
function node22() {
  for (const candidate of [process.env.SWAP_NODE, '/tmp/node22/package/bin/node']) {
    if (candidate && fs.existsSync(candidate)) return candidate
  }
  const name = `node-${process.platform}-${process.arch}@22`
  say(`fetching ${name} from npm`)
  const dir = path.join(base, 'node22')
  fs.mkdirSync(dir)
  const [packed] = JSON.parse(npmIn(dir, ['pack', name, '--json']))
  execFileSync('tar', ['xzf', path.join(dir, packed.filename), '-C', dir])
  const binary = path.join(dir, 'package', 'bin', process.platform === 'win32' ? 'node.exe' : 'node')
  if (!fs.existsSync(binary)) fail(`${name} has no bin/node`)
  return binary
}

/** The project the turn looks from: a .git marker and two skills (a bundle and a flat file). */
function workspace() {
  const project = path.join(base, 'project')
  fs.mkdirSync(path.join(project, '.git'), { recursive: true })
  const skills = path.join(project, '.dsh', 'skills')
  fs.mkdirSync(path.join(skills, 'release-notes', 'references'), { recursive: true })
  fs.writeFileSync(
    path.join(skills, 'release-notes', 'SKILL.md'),
    '---\nname: release-notes\ndescription: Write release notes from the changelog & <tags>, for users first.\n---\nRead CHANGELOG.md, then write the notes (see references/style.md).\n',
  )
  fs.writeFileSync(path.join(skills, 'release-notes', 'references', 'style.md'), 'Short lines.\n')
  fs.writeFileSync(path.join(skills, 'code-review.md'), '---\nname: code-review\ndescription: Review a change before it is merged.\n---\nReview it.\n')
  return project
}

/** Pack this package and its compatibility packages; which harness names it serves. */
function packOurs() {
  const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'))
  const packed = (dir) => path.join(base, JSON.parse(npmIn(dir, ['pack', '--json', '--pack-destination', base]))[0].filename)
  const main = packed(root)
  const { packages } = require(path.join(root, 'scripts', 'compat.js'))
  const compat = {}
  for (const pkg of packages(manifest)) {
    if (pkg.exported) compat[pkg.replaces] = { name: pkg.name, tarball: packed(path.join(root, pkg.dir)) }
    else say(`${pkg.replaces} stays TypeScript: this package does not export ${Object.values(pkg.entries).join(', ')}`)
  }
  return { main, compat }
}

/** package.json of a harness project on the TypeScript packages. */
function harnessManifest(name) {
  return { name, private: true, type: 'module', dependencies: Object.fromEntries(HARNESS.map((dep) => [dep, HARNESS_VERSION])) }
}

/**
 * The swap, as docs/migrating.md writes it: each swapped harness name becomes
 * an alias of its compatibility package (here a tarball; once published,
 * `npm:<name>@<version>`), and `overrides` points every use of the name at the
 * direct dependency (`$name`). This package itself the same way, as long as it
 * is installed from a tarball.
 */
function swapManifest(manifest, names, ours) {
  const out = structuredClone(manifest)
  out.overrides = {}
  for (const name of names) {
    out.dependencies[name] = `file:${ours.compat[name].tarball}`
    out.overrides[name] = `$${name}`
  }
  out.dependencies[NATIVE] = `file:${ours.main}`
  out.overrides[NATIVE] = `$${NATIVE}`
  return out
}

/** The check docs/migrating.md gives: the package each harness name resolves to, from `dir`. */
function resolvedNames(dir, names) {
  const script = `const { createRequire } = require('node:module')
const from = createRequire(require('node:path').join(process.cwd(), 'package.json'))
console.log(JSON.stringify(${JSON.stringify(names)}.map((name) => from(name + '/package.json').name)))`
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: dir, env, encoding: 'utf8' }))
}

/** Install a project and run one turn in it; the requests the model received. */
function turn(dir, node, project) {
  fs.copyFileSync(path.join(here, 'turn.mjs'), path.join(dir, 'turn.mjs'))
  const result = spawnSync(node, ['turn.mjs'], { cwd: dir, env: { ...env, SWAP_PROJECT: project }, encoding: 'utf8', timeout: 120_000 })
  if (result.status !== 0) fail(`the turn in ${path.basename(dir)} failed:\n${result.stdout}${result.stderr}`)
  const out = JSON.parse(result.stdout.trim().split('\n').pop())
  if (out.errors.length) fail(`the turn in ${path.basename(dir)} logged ${out.errors.join(', ')}`)
  if (out.requests.length !== 2) fail(`the turn in ${path.basename(dir)} made ${out.requests.length} model requests, not 2`)
  return out.requests
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/**
 * A request as JSON, message ids masked; with `ours`, the text that is our own
 * wording masked too: inside `<skill_resources>`, and with the `skill` tool
 * swapped (`ours.tool`), the prose around the catalog entries and the tool's
 * descriptions.
 */
function comparable(request, ours) {
  const copy = structuredClone(request)
  if (ours?.tool) {
    for (const tool of copy.tools ?? []) {
      if (tool.name !== 'skill') continue
      tool.description = '<our wording>'
      for (const property of Object.values(tool.parameters?.properties ?? {})) property.description = '<our wording>'
    }
  }
  return JSON.stringify(copy, (key, value) => {
    if (key === 'id' && typeof value === 'string' && UUID.test(value)) return '<id>'
    if (typeof value !== 'string' || !ours) return value
    let text = value.replace(/(<skill_resources>\n)[\s\S]*?(\n<\/skill_resources>)/g, '$1<our wording>$2')
    if (ours.tool) text = text.replace(/^(<system-reminder>\n)[\s\S]*?(<available_skills>\n[\s\S]*?<\/available_skills>\n)[\s\S]*?(<\/system-reminder>)$/, '$1<our wording>$2<our wording>$3')
    return text
  })
}

/** Where two JSON texts first differ, with some context. */
function firstDifference(a, b) {
  let i = 0
  while (i < a.length && a[i] === b[i]) i++
  return `theirs: …${a.slice(Math.max(0, i - 120), i + 200)}…\nours:   …${b.slice(Math.max(0, i - 120), i + 200)}…`
}

function compare(label, theirs, ours, swapped) {
  // With the `skill` tool swapped its prose is ours from the first request on;
  // without, the first request is theirs byte for byte.
  const tool = swapped.includes('@deepseek-ai/dsh-tool-skill')
  const first = [comparable(theirs[0], tool && { tool }), comparable(ours[0], tool && { tool })]
  if (first[0] !== first[1]) fail(`${label}: the first request differs${tool ? ' beyond our wording' : ''}\n${firstDifference(...first)}`)
  for (let i = 1; i < theirs.length; i++) {
    const [a, b] = [comparable(theirs[i], { tool }), comparable(ours[i], { tool })]
    if (a !== b) fail(`${label}: request ${i + 1} differs beyond our wording\n${firstDifference(a, b)}`)
  }
  const exact = theirs.every((request, i) => comparable(request) === comparable(ours[i]))
  const wording = tool ? 'the `skill` tool\'s and the catalog\'s prose and <skill_resources>' : '<skill_resources>'
  say(`${label}: the ${theirs.length} requests match (${exact ? 'byte for byte' : `our wording in ${wording} aside`})`)
}

// -- the run ------------------------------------------------------------------

const reachable = spawnSync(npm, ['view', `@deepseek-ai/dsh-skill@${HARNESS_VERSION}`, 'version'], { env, encoding: 'utf8', timeout: 60_000 })
if (reachable.status !== 0 || reachable.stdout.trim() !== HARNESS_VERSION) {
  fail(`the npm registry does not answer for @deepseek-ai/dsh-skill@${HARNESS_VERSION} (test:swap needs it):\n${reachable.stderr}`)
}
const node = node22()
const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim()
if (!/^v(2[2-9]|[3-9]\d)\./.test(version)) fail(`${node} is ${version}: the harness needs Node 22 or later`)
say(`Node ${version} (${node}), npm ${execFileSync(npm, ['--version'], { env, encoding: 'utf8' }).trim()}`)
const project = workspace()
const ours = packOurs()
const served = Object.keys(ours.compat)
if (!served.includes('@deepseek-ai/dsh-skill')) fail('no compatibility package for @deepseek-ai/dsh-skill')

// 1. The TypeScript packages.
const ts = path.join(base, 'typescript')
fs.mkdirSync(ts)
fs.writeFileSync(path.join(ts, 'package.json'), `${JSON.stringify(harnessManifest('harness'), null, 2)}\n`)
npmIn(ts, ['install', '--no-audit', '--no-fund'])
const theirs = turn(ts, node, project)
if (!JSON.stringify(theirs[1]).includes('<skill_instructions>')) fail('the TypeScript turn did not load the skill through the `skill` tool')
say(`the TypeScript packages: one turn, ${theirs.length} requests, the skill loaded through the \`skill\` tool`)

// 2. Swapped, over the project's lockfile: every served name, then each alone.
const variants = [served, ...(served.length > 1 ? served.map((name) => [name]) : [])]
for (const names of variants) {
  const label = `swapped ${names.map((name) => name.replace('@deepseek-ai/', '')).join(', ')}`
  const dir = path.join(base, `swapped-${variants.indexOf(names)}`)
  fs.mkdirSync(dir)
  fs.copyFileSync(path.join(ts, 'package-lock.json'), path.join(dir, 'package-lock.json'))
  fs.writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify(swapManifest(harnessManifest('harness'), names, ours), null, 2)}\n`)
  npmIn(dir, ['install', '--no-audit', '--no-fund'])
  const resolved = resolvedNames(dir, HARNESS.filter((name) => name.includes('skill')))
  const expected = HARNESS.filter((name) => name.includes('skill')).map((name) => (names.includes(name) ? ours.compat[name].name : name))
  if (JSON.stringify(resolved) !== JSON.stringify(expected)) fail(`${label}: the project resolves ${resolved.join(', ')}, not ${expected.join(', ')}`)
  compare(label, theirs, turn(dir, node, project), names)
}

// 4. The lockfile pitfall, in a workspace whose app gets `@deepseek-ai/dsh-skill`
// only as a peer of the other harness packages (not a direct dependency).
const ws = path.join(base, 'workspace')
const peer = ['@deepseek-ai/dsh-skill']
fs.mkdirSync(path.join(ws, 'app'), { recursive: true })
fs.writeFileSync(path.join(ws, 'package.json'), `${JSON.stringify({ name: 'workspace', private: true, workspaces: ['app'] }, null, 2)}\n`)
const app = harnessManifest('app')
for (const name of ['@deepseek-ai/dsh-skill', '@deepseek-ai/dsh-skill-filesystem']) delete app.dependencies[name]
fs.writeFileSync(path.join(ws, 'app', 'package.json'), `${JSON.stringify({ ...app, version: '1.0.0' }, null, 2)}\n`)
npmIn(ws, ['install', '--no-audit', '--no-fund'])
const wsManifest = JSON.parse(fs.readFileSync(path.join(ws, 'package.json'), 'utf8'))
wsManifest.overrides = { [peer[0]]: `file:${ours.compat[peer[0]].tarball}`, [NATIVE]: `file:${ours.main}` }
fs.writeFileSync(path.join(ws, 'package.json'), `${JSON.stringify(wsManifest, null, 2)}\n`)
npmIn(ws, ['install', '--no-audit', '--no-fund'])
const kept = resolvedNames(path.join(ws, 'app'), peer)[0] === peer[0]
say(
  kept
    ? `workspace: \`npm install\` after adding the overrides kept the TypeScript ${peer[0]} (the lockfile pitfall); the check sees it`
    : 'workspace: `npm install` after adding the overrides applied them (this npm no longer keeps the lockfile here)',
)
npmIn(ws, ['update', ...peer, '--no-audit', '--no-fund'])
const after = resolvedNames(path.join(ws, 'app'), peer)[0]
if (after !== ours.compat[peer[0]].name) fail(`workspace: after \`npm update ${peer[0]}\` the app resolves ${after}`)
say(`workspace: after \`npm update ${peer[0]}\` the app resolves ${after}`)

if (keep) say(`kept ${base}`)
else fs.rmSync(base, { recursive: true, force: true })
say('passed')
