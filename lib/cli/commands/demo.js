'use strict'
// `dsh-skills demo`: the tour of examples/workspace (source checkout only).

const fs = require('node:fs')
const path = require('node:path')
const { CliError, firstLine } = require('../errors.js')
const { Session } = require('../session.js')
const { json, shown } = require('../format.js')
const { renderCatalog } = require('../catalog-view.js')
const { diagnose, countVerdicts, formatDoctor, addDepthHints } = require('../diagnosis.js')
const { EXAMPLE_WORKSPACE } = require('../spec.js')
const list = require('./list.js')
const { shellWord } = require('../args.js')

/** Make `dir` its own project root: an empty `.git` directory (git never tracks `.git`). */
function ensureProjectMarker(dir) {
  const marker = path.join(dir, '.git')
  if (!fs.existsSync(marker)) fs.mkdirSync(marker)
}

async function run(options, io) {
  if (!fs.existsSync(path.join(EXAMPLE_WORKSPACE, '.agents'))) {
    throw new CliError('the example workspace is part of the source repository only (examples/workspace)')
  }
  try {
    ensureProjectMarker(EXAMPLE_WORKSPACE)
  } catch (error) {
    throw new CliError(`cannot mark the example workspace as a project root: ${firstLine(error)}`)
  }
  const home = path.join(EXAMPLE_WORKSPACE, 'home')
  const config = {
    dshHome: path.join(home, '.dsh'),
    agentsHome: path.join(home, '.agents'),
    customSkillDirs: [path.join(EXAMPLE_WORKSPACE, 'team-skills')],
    bundledSkillDir: path.join(home, 'bundled-skills'),
  }
  // The same roots as flags, relative to where the command runs: for the hints and the "Try" lines.
  const flags = [
    ['--cwd', EXAMPLE_WORKSPACE],
    ['--dsh-home', config.dshHome],
    ['--agents-home', config.agentsHome],
    ['--skill-dir', config.customSkillDirs[0]],
    ['--bundled-dir', config.bundledSkillDir],
  ].flatMap(([flag, dir]) => [flag, shellWord(shown(dir))])
  const session = new Session({ ...options, cwd: EXAMPLE_WORKSPACE, rootArgs: flags }, io, { config })
  try {
    const snapshot = await session.snapshot()
    const diagnosis = await diagnose(session)
    addDepthHints(diagnosis)
    const rendered = renderCatalog(session, snapshot.skills)
    if (options.json) {
      io.stdout.write(json({ config, snapshot, catalog: rendered, diagnosis }))
      return 0
    }
    const section = (title) => io.out.text(`\n== ${title} ==\n\n`)
    const width = Math.max(...diagnosis.roots.map((root) => root.source.length))
    io.out.text(
      `Example workspace: ${shown(EXAMPLE_WORKSPACE)}\n` +
        "Roots read, nearest first (the example's own user, custom and bundled roots,\nnot your home directory):\n" +
        diagnosis.roots.map((root) => `  ${root.source.padEnd(width)}  ${shown(root.path)}\n`).join(''),
    )
    section('dsh-skills list')
    await list.run(session)
    section('dsh-skills catalog (what the model sees)')
    if (rendered.message !== null) io.out.text(`${rendered.message}\n\ndigest: ${rendered.digest}\n`)
    section('dsh-skills doctor')
    formatDoctor(session, diagnosis, io.out)
    const counts = countVerdicts(diagnosis.files)
    const cli = shellWord(shown(path.join(__dirname, '..', '..', '..', 'bin', 'dsh-skills.js')))
    io.out.text(
      `\nThe ${counts.broken} broken files are deliberate: the example shows what doctor explains.\n` +
        'Try it with the same roots:\n' +
        `  node ${cli} show release-notes ${flags.join(' ')}\n` +
        `With --cwd ${flags[1]} alone, only the project roots are the example's: the user roots\n` +
        'are your own (~/.dsh/skills, ~/.agents/skills) and there is no custom or bundled root,\n' +
        "so the example's team-skills/ and home/ skills are not listed.\n",
    )
    return 0
  } finally {
    await session.dispose()
  }
}

module.exports = { run }
