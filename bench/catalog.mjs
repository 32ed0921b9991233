// Catalog benchmark, three parts, each measured side by side in one run
// (variants interleaved round by round, median per call reported, so background
// load hits every variant alike; wall time and process CPU time, user + system,
// are both shown: on a shared, busy machine the CPU time is the steadier figure).
//
// 1. Render + digest of 1,000 and 10,000 summaries through the addon (boundary
//    crossing included) against a plain-JS oracle that applies the same rules
//    the way the TypeScript plugin does (regex replace + createHash).
// 2. Budgeted catalogs of 1,000 and 10,000 summaries (`{ budget }`), next to the
//    unbudgeted render.
// 3. Render + digest of the skills a registry `snapshot()` returned (1,000 and
//    10,000 runtime skills): from the registry's native catalog, repeated (the
//    memoised answer) and first time (a `maxLength` the memo has not seen: the
//    same output, rendered natively), against a packed copy of the same array
//    and, with `--baseline DIR` (a built checkout, e.g. of the previous
//    release), against that build's `renderCatalog`/`planCatalogStep` on its own
//    registry's snapshot.
// 4. Structured entries + digest (the `skill-catalog` source's pairs, hashed as
//    `JSON.stringify([name, description])` lines) of 1,000 and 10,000
//    summaries against a plain-JS implementation of the same rule, the digest
//    of recorded entries (a history's baseline), and a structured step planned
//    from a registry snapshot.
// 5. A budget shared by source: a registry snapshot with skills of several
//    sources and ranks, budgeted, against the same skills without sources
//    (one source). `--only rank` runs it.
//
// node bench/catalog.mjs [--baseline DIR] [--only oracle|budget|snapshot|structured|rank]
import { createHash } from 'node:crypto'
import { createRequire } from 'node:module'
import path from 'node:path'
import { performance } from 'node:perf_hooks'

const require = createRequire(import.meta.url)
const catalog = require('../lib/catalog.js')
const structured = require('../lib/catalog-structured.js')
const { SkillRegistry } = require('../lib/registry.js')

const baselineAt = process.argv.indexOf('--baseline')
const baselineDir = baselineAt === -1 ? undefined : process.argv[baselineAt + 1]
const baseline = baselineDir === undefined ? undefined : require(path.resolve(baselineDir, 'index.js'))
const onlyAt = process.argv.indexOf('--only')
const only = onlyAt === -1 ? undefined : process.argv[onlyAt + 1]
const part = (name) => only === undefined || only === name

function description(i) {
  return (
    `Use this skill to handle task number ${i} when the user asks about widgets,\n` +
    `  gadgets & <things>. It covers setup, configuration and troubleshooting steps for item ${i}.`
  )
}

function makeSkills(n) {
  const both = { modelInvocable: true, userInvocable: true }
  const userOnly = { modelInvocable: false, userInvocable: true }
  const out = []
  for (let i = 0; i < n; i++) {
    out.push({
      name: `skill-${i.toString().padStart(5, '0')}`,
      description: description(i),
      whenToUse: 'When the user mentions widgets.',
      invocation: i % 10 === 0 ? userOnly : both,
      source: 'project-agents',
      provider: 'local',
      resourceBase: { kind: 'directory', path: `/work/project/.agents/skills/skill-${i}` },
    })
  }
  return out
}

// --- plain JS oracle -------------------------------------------------------
function normalize(text, max) {
  let out = text.replace(/\s+/g, ' ').trim()
  if (out.length > max) out = out.slice(0, max - 3) + '...'
  return out.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
}
function jsEntries(skills, max = 500) {
  return skills
    .filter((s) => s.invocation.modelInvocable)
    .map((s) => `- \`${s.name}\`: ${normalize(s.description, max)}`)
    .join('\n')
}
function jsDigest(entries) {
  return createHash('sha256').update(entries).digest('hex')
}
function jsUpdate(entries) {
  return `<system-reminder>\nThe available skills have changed.\n<available_skills>\n${entries}\n</available_skills>\n</system-reminder>`
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]
}

/** Interleaved rounds of `batch` calls per variant; prints a table against `reference`. */
function measure(title, variants, { rounds, batch, reference }) {
  const names = Object.keys(variants)
  const wall = Object.fromEntries(names.map((k) => [k, []]))
  const cpu = Object.fromEntries(names.map((k) => [k, []]))
  for (const f of Object.values(variants)) for (let i = 0; i < batch * 3; i++) f()
  for (let r = 0; r < rounds; r++) {
    for (const [name, f] of Object.entries(variants)) {
      const cpuStart = process.cpuUsage()
      const start = performance.now()
      for (let i = 0; i < batch; i++) f()
      wall[name].push((performance.now() - start) / batch)
      const used = process.cpuUsage(cpuStart)
      cpu[name].push((used.user + used.system) / 1000 / batch)
    }
  }
  const refWall = median(wall[reference ?? names[0]])
  const refCpu = median(cpu[reference ?? names[0]])
  console.log(`\n${title} (median of ${rounds} rounds x ${batch} calls; ms per call)`)
  console.log(`  ${'variant'.padEnd(60)} ${'wall'.padStart(8)} ${'ratio'.padStart(7)} ${'cpu'.padStart(8)} ${'ratio'.padStart(7)}`)
  for (const name of names) {
    const w = median(wall[name])
    const c = median(cpu[name])
    console.log(
      `  ${name.padEnd(60)} ${w.toFixed(3).padStart(8)} ${`${(refWall / w).toFixed(2)}x`.padStart(7)} ${c.toFixed(3).padStart(8)} ${`${(refCpu / c).toFixed(2)}x`.padStart(7)}`,
    )
  }
}

// --- 1. against the plain JS oracle -------------------------------------------
function oracleRun(n, rounds, batch) {
  const skills = makeSkills(n)
  // Same answer from both sides before timing anything.
  if (catalog.catalogDigest(skills) !== jsDigest(jsEntries(skills))) throw new Error('digest mismatch')
  const step = { snapshot: { skills, complete: true }, published: true, visibleDigest: 'x' }
  const variants = {
    'js oracle: entries + createHash': () => jsDigest(jsEntries(skills)),
    'addon: renderCatalog (entries + digest, one call)': () => catalog.renderCatalog(skills),
    'addon: renderCatalogEntries + catalogDigest (two calls)': () => {
      catalog.renderCatalogEntries(skills)
      return catalog.catalogDigest(skills)
    },
    'addon: catalogDigest only': () => catalog.catalogDigest(skills),
    'js oracle: replacement message + digest': () => {
      const entries = jsEntries(skills)
      return [jsUpdate(entries), jsDigest(entries)]
    },
    'addon: planCatalogStep (replacement message + digest)': () => catalog.planCatalogStep(step),
  }
  if (baseline) {
    // The same plain arrays through the baseline build, interleaved with the
    // variants above (same answers first).
    const expected = catalog.renderCatalog(skills)
    const old = baseline.renderCatalog(skills)
    if (old.digest !== expected.digest || old.entries !== expected.entries || baseline.catalogDigest(skills) !== expected.digest) {
      throw new Error('baseline output mismatch')
    }
    Object.assign(variants, {
      'baseline: renderCatalog (entries + digest, one call)': () => baseline.renderCatalog(skills),
      'baseline: catalogDigest only': () => baseline.catalogDigest(skills),
      'baseline: planCatalogStep (replacement message + digest)': () => baseline.planCatalogStep(step),
    })
  }
  measure(`${n.toLocaleString('en-US')} summaries`, variants, { rounds, batch })
}

// --- 2. budgets ------------------------------------------------------------
function budgetRun(n, rounds, batch) {
  const skills = makeSkills(n)
  const full = catalog.renderCatalog(skills).report.chars
  const budgets = [Math.floor(full / 2), 30_000]
  const variants = { 'renderCatalog, no budget': () => catalog.renderCatalog(skills) }
  for (const budget of budgets) {
    const { report } = catalog.renderCatalog(skills, { budget })
    const shape = `${report.full} full, ${report.shortened} cut, ${report.nameOnly} names, ${report.omitted} left out`
    variants[`budget ${budget.toLocaleString('en-US')} (${shape})`] = () => catalog.renderCatalog(skills, { budget })
  }
  const { report } = catalog.renderCatalog(skills, { budget: budgets[0], pinned: ['skill-00001', 'skill-00002'] })
  variants[`budget ${budgets[0].toLocaleString('en-US')}, 2 pinned (${report.full} full)`] = () =>
    catalog.renderCatalog(skills, { budget: budgets[0], pinned: ['skill-00001', 'skill-00002'] })
  console.log(`\n${n.toLocaleString('en-US')} summaries, entries block ${full.toLocaleString('en-US')} characters without a budget`)
  measure(`${n.toLocaleString('en-US')} summaries with a budget`, variants, { rounds, batch })
}

// --- 3. what a registry snapshot returned -------------------------------------
async function registryOf(api, n) {
  const registry = new api.SkillRegistry({ logger: { warn() {} } })
  for (let i = 0; i < n; i++) {
    registry.register({
      name: `skill-${i.toString().padStart(5, '0')}`,
      description: description(i),
      content: 'body',
      source: 'runtime',
      invocation: { modelInvocable: i % 10 !== 0, userInvocable: true },
    })
  }
  return (await registry.snapshot()).skills
}

async function snapshotRun(n, rounds, batch) {
  const skills = await registryOf({ SkillRegistry }, n)
  // The "first time" variants use a registry of their own, so that their
  // never-seen arguments do not push the repeated ones out of the memo.
  const other = await registryOf({ SkillRegistry }, n)
  const copy = [...skills]
  const step = (s, extra) => ({ snapshot: { skills: s, complete: true }, published: true, visibleDigest: 'x', ...extra })
  const expected = catalog.renderCatalog(copy).digest
  if (catalog.renderCatalog(skills).digest !== expected) throw new Error('digest mismatch')
  // Each call of a "first time" variant uses a maxLength the memo has not seen
  // (longer than every description, so the output is the same).
  let fresh = 0
  const unseen = () => ({ maxLength: 1000 + (fresh++ % 100_000) })
  const variants = {}
  let reference
  if (baseline) {
    const old = await registryOf(baseline, n)
    if (baseline.renderCatalog(old).digest !== expected) throw new Error('baseline digest mismatch')
    reference = 'baseline: renderCatalog(snapshot.skills)'
    variants[reference] = () => baseline.renderCatalog(old)
    variants['baseline: planCatalogStep (replacement + digest)'] = () => baseline.planCatalogStep(step(old))
  }
  Object.assign(variants, {
    'renderCatalog(snapshot.skills), repeated': () => catalog.renderCatalog(skills),
    'renderCatalog(snapshot.skills), first time': () => catalog.renderCatalog(other, unseen()),
    'renderCatalog([...snapshot.skills]) (packed)': () => catalog.renderCatalog(copy),
    'planCatalogStep(snapshot), repeated': () => catalog.planCatalogStep(step(skills)),
    'planCatalogStep(snapshot), first time': () => catalog.planCatalogStep(step(other, unseen())),
    'planCatalogStep, same digest (the usual step), repeated': () =>
      catalog.planCatalogStep(step(skills, { visibleDigest: expected })),
  })
  measure(`${n.toLocaleString('en-US')} skills from a registry snapshot`, variants, { rounds, batch, reference })
}

// --- 4. structured entries -----------------------------------------------------
function jsStructured(skills, max = 500) {
  return skills
    .filter((s) => s.invocation.modelInvocable)
    .map((s) => {
      let description = s.description.replace(/\s+/g, ' ').trim()
      if (description.length > max) description = description.slice(0, max - 3) + '...'
      return { name: s.name, description }
    })
}
function jsStructuredDigest(entries) {
  return createHash('sha256')
    .update(entries.map((e) => JSON.stringify([e.name, e.description])).join('\n'))
    .digest('hex')
}

async function structuredRun(n, rounds, batch) {
  const skills = makeSkills(n)
  const expected = jsStructured(skills)
  const digest = jsStructuredDigest(expected)
  const got = structured.structuredCatalog(skills)
  if (got.digest !== digest || JSON.stringify(got.entries) !== JSON.stringify(expected)) throw new Error('structured mismatch')
  // Recorded copies (a session read back): a fresh one each call, whose digest
  // is computed, and the same one again (remembered while it holds the same strings).
  const json = JSON.stringify(got.entries)
  const recorded = JSON.parse(json)
  const copies = Array.from({ length: rounds * batch + batch * 3 }, () => JSON.parse(json))
  let next = 0
  const registered = await registryOf({ SkillRegistry }, n)
  const history = [{ source: { kind: 'skill-catalog', form: 'catalog', entries: recorded } }]
  const step = (s) => structured.planStructuredCatalogStep({ snapshot: { skills: s, complete: true }, history })
  if (step(registered).kind !== 'none') throw new Error('expected no change')
  measure(
    `${n.toLocaleString('en-US')} summaries, structured entries`,
    {
      'js: entries + JSON.stringify lines + createHash': () => jsStructuredDigest(jsStructured(skills)),
      'addon: structuredCatalog (entries + digest)': () => structured.structuredCatalog(skills),
      'js: digest of recorded entries': () => jsStructuredDigest(recorded),
      'addon: structuredCatalogDigest(recorded entries), first read': () =>
        structured.structuredCatalogDigest(copies[next++ % copies.length]),
      'addon: structuredCatalogDigest(recorded entries), read again': () => structured.structuredCatalogDigest(recorded),
      'addon: planStructuredCatalogStep, registry, same digest, repeated': () => step(registered),
      'addon: structuredCatalog(snapshot.skills), repeated': () => structured.structuredCatalog(registered),
    },
    { rounds, batch },
  )
}

// --- 5. budget shared by source ------------------------------------------------
async function rankRun(n, rounds, batch) {
  const registry = new SkillRegistry({ logger: { warn() {} } })
  const sources = ['user-dsh', 'user-agents', 'bundled']
  registry.registerProvider(() => ({
    name: 'roots',
    list: async () =>
      Array.from({ length: n }, (_, i) => ({
        name: `skill-${i.toString().padStart(5, '0')}`,
        description: description(i),
        invocation: { modelInvocable: true, userInvocable: true },
        source: i === n - 1 ? 'project-dsh' : sources[i % 3],
        provider: 'roots',
        rank: i === n - 1 ? 100 : 400 + 100 * (i % 3),
        locator: i,
      })),
    get: async () => undefined,
  }))
  const { skills } = await registry.snapshot()
  // Plain arrays of the same shape, without and with the sources.
  const plain = skills.map((s) => ({ name: s.name, description: s.description, invocation: s.invocation }))
  const labelled = skills.map((s) => ({ name: s.name, description: s.description, invocation: s.invocation, source: s.source }))
  const budget = 8000
  const { report } = catalog.renderCatalog(skills, { budget })
  console.log(`\n${n.toLocaleString('en-US')} skills of 4 sources, budget ${budget}: ${JSON.stringify(report.bySource)}`)
  let fresh = 0
  const unseen = () => ({ budget, maxLength: 1000 + (fresh++ % 100_000) })
  measure(
    `${n.toLocaleString('en-US')} skills, budget ${budget}`,
    {
      'one source (plain array without sources)': () => catalog.renderCatalog(plain, { budget }),
      'by source (plain array with sources)': () => catalog.renderCatalog(labelled, { budget }),
      'by source (registry snapshot, first time)': () => catalog.renderCatalog(skills, unseen()),
      'by source, 2 glob pins (registry snapshot, first time)': () =>
        catalog.renderCatalog(skills, { ...unseen(), pinned: ['skill-0001*', '*-00042'] }),
    },
    { rounds, batch },
  )
}

console.log(`catalog renderer, node ${process.version}${baseline ? `, baseline ${baselineDir}` : ''}`)
if (part('oracle')) {
  oracleRun(1_000, 30, 20)
  oracleRun(10_000, 15, 2)
}
if (part('budget')) {
  budgetRun(1_000, 30, 20)
  budgetRun(10_000, 15, 2)
}
if (part('snapshot')) {
  await snapshotRun(1_000, 30, 20)
  await snapshotRun(10_000, 15, 2)
}
if (part('structured')) {
  await structuredRun(1_000, 30, 20)
  await structuredRun(10_000, 15, 2)
}
if (part('rank')) {
  await rankRun(1_437, 30, 10)
  await rankRun(10_000, 15, 2)
}
