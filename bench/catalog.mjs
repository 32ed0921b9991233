// Catalog benchmark: render + digest of 1,000 and 10,000 summaries through the
// addon (boundary crossing included) against a plain-JS oracle that applies the
// same rules the way the TypeScript plugin does (regex replace + createHash),
// side by side in one run. Variants are interleaved round by round and the
// median per call is reported, so background load hits every variant alike.
// Both wall time and process CPU time (user + system, `process.cpuUsage`) are
// shown: on a shared, busy machine the CPU time is the steadier figure.
import { createHash } from 'node:crypto'
import { createRequire } from 'node:module'
import { performance } from 'node:perf_hooks'

const require = createRequire(import.meta.url)
const catalog = require('../lib/catalog.js')

function makeSkills(n) {
  const both = { modelInvocable: true, userInvocable: true }
  const userOnly = { modelInvocable: false, userInvocable: true }
  const out = []
  for (let i = 0; i < n; i++) {
    out.push({
      name: `skill-${i.toString().padStart(5, '0')}`,
      description:
        `Use this skill to handle task number ${i} when the user asks about widgets,\n` +
        `  gadgets & <things>. It covers setup, configuration and troubleshooting steps for item ${i}.`,
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
function normalize(description, max) {
  let text = description.replace(/\s+/g, ' ').trim()
  if (text.length > max) text = text.slice(0, max - 3) + '...'
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
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

const variants = {
  'js oracle: entries + createHash': (s) => {
    const entries = jsEntries(s)
    return jsDigest(entries)
  },
  'addon: renderCatalog (entries + digest, one call)': (s) => catalog.renderCatalog(s),
  'addon: renderCatalogEntries + catalogDigest (two calls)': (s) => {
    catalog.renderCatalogEntries(s)
    return catalog.catalogDigest(s)
  },
  'addon: catalogDigest only': (s) => catalog.catalogDigest(s),
  'js oracle: replacement message + digest': (s) => {
    const entries = jsEntries(s)
    return [jsUpdate(entries), jsDigest(entries)]
  },
  'addon: planCatalogStep (replacement message + digest)': (s) =>
    catalog.planCatalogStep({ snapshot: { skills: s, complete: true }, published: true, visibleDigest: 'x' }),
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]
}

function run(n, rounds, batch) {
  const skills = makeSkills(n)
  // Same answer from both sides before timing anything.
  if (catalog.catalogDigest(skills) !== jsDigest(jsEntries(skills))) throw new Error('digest mismatch')
  const wall = Object.fromEntries(Object.keys(variants).map((k) => [k, []]))
  const cpu = Object.fromEntries(Object.keys(variants).map((k) => [k, []]))
  for (const f of Object.values(variants)) for (let i = 0; i < batch * 3; i++) f(skills)
  for (let r = 0; r < rounds; r++) {
    for (const [name, f] of Object.entries(variants)) {
      const cpuStart = process.cpuUsage()
      const start = performance.now()
      for (let i = 0; i < batch; i++) f(skills)
      wall[name].push((performance.now() - start) / batch)
      const used = process.cpuUsage(cpuStart)
      cpu[name].push((used.user + used.system) / 1000 / batch)
    }
  }
  const oracleWall = median(wall['js oracle: entries + createHash'])
  const oracleCpu = median(cpu['js oracle: entries + createHash'])
  console.log(`\n${n.toLocaleString('en-US')} summaries (median of ${rounds} rounds x ${batch} calls; ms per call)`)
  console.log(`  ${'variant'.padEnd(56)} ${'wall'.padStart(8)} ${'ratio'.padStart(7)} ${'cpu'.padStart(8)} ${'ratio'.padStart(7)}`)
  for (const name of Object.keys(variants)) {
    const w = median(wall[name])
    const c = median(cpu[name])
    console.log(
      `  ${name.padEnd(56)} ${w.toFixed(3).padStart(8)} ${`${(oracleWall / w).toFixed(2)}x`.padStart(7)} ${c.toFixed(3).padStart(8)} ${`${(oracleCpu / c).toFixed(2)}x`.padStart(7)}`,
    )
  }
}

console.log(`catalog renderer, node ${process.version}`)
run(1_000, 30, 20)
run(10_000, 15, 2)
