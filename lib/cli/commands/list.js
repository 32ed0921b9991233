'use strict'
// `dsh-skills list`: the skills that won their name.

const { json, invocationLabel } = require('../format.js')

async function run(session) {
  const { io, options } = session
  const snapshot = await session.snapshot()
  if (options.json) {
    io.stdout.write(json(snapshot))
  } else if (snapshot.skills.length === 0) {
    io.out.line('No skills found.')
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
  return 0
}

module.exports = { run }
