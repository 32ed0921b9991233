'use strict'
// `dsh-skills list`: the skills that won their name, then (on stderr) one line
// counting what discovery found and hints about skill folders not read.

const { json, shown, invocationLabel } = require('../format.js')
const { diagnose, countVerdicts, summary, switchedOff, dotDirHint } = require('../diagnosis.js')
const { unreadCompatRoots, unreadLine } = require('../hints.js')
const { warnUnmatchedOverrides, warnFlood } = require('../catalog-view.js')

async function run(session) {
  const { io, options } = session
  const snapshot = await session.snapshot()
  if (options.json) {
    io.stdout.write(json(snapshot))
  } else if (snapshot.skills.length === 0) {
    if (!options.quiet) io.err.line('dsh-skills: no skills found')
  } else {
    const rows = snapshot.skills.map((skill) => [
      skill.name,
      skill.source,
      skill.provider,
      invocationLabel(skill.invocation),
    ])
    io.out.table(['NAME', 'SOURCE', 'PROVIDER', 'INVOCATION'], rows)
  }
  if (!snapshot.complete) io.err.line('dsh-skills: discovery was incomplete: some skills may be missing')
  if (options.quiet) return 0
  // The summary counts skipped and shadowed files: the warnings need not.
  await session.reportWarnings(['skipped', 'shadowed'])
  const diagnosis = await diagnose(session)
  await warnUnmatchedOverrides(session, diagnosis.files)
  const counts = countVerdicts(diagnosis.files)
  const pointer = counts.broken > 0 || snapshot.skills.length === 0 ? `; why: ${session.again('doctor')}` : ''
  io.err.line(`dsh-skills: ${summary(counts, switchedOff(diagnosis, snapshot.skills))}${pointer}`)
  warnFlood(session, snapshot.skills)
  // demo's roots are its own: the hints would be about the home directory.
  const unread = session.configured ? [] : await unreadCompatRoots(session, diagnosis.roots)
  for (const root of unread) io.err.line(`dsh-skills: hint: ${unreadLine(root, shown)}`)
  // Collections that keep their skills in dot-directories (`.curated/`): the flag that reads them.
  for (const file of diagnosis.files) {
    const hint = dotDirHint(file, diagnosis.roots)
    if (hint) io.err.line(`dsh-skills: hint: ${hint}`)
  }
  return 0
}

module.exports = { run }
