// The Cordis example of docs/per-agent-skills.md runs as written and prints
// what its comments say. It imports the package by name: it runs from a
// folder inside this package (`.tmp/`, ignored by git), where the name
// resolves to this checkout.
import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'

const root = path.resolve(__dirname, '..')
const guide = fs.readFileSync(path.join(root, 'docs', 'per-agent-skills.md'), 'utf8')
const start = guide.indexOf('\n## Cordis: a main agent, a reviewer, a subagent\n')
const next = guide.indexOf('\n## ', start + 1)
const section = guide.slice(start, next === -1 ? undefined : next)
const blocks = [...section.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1])

fs.mkdirSync(path.join(root, '.tmp'), { recursive: true })
const dir = fs.mkdtempSync(path.join(root, '.tmp', 'per-agent-'))
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

describe('docs/per-agent-skills.md: the Cordis example', () => {
  it('runs as written and prints what its comments say', () => {
    expect(start).toBeGreaterThan(0)
    expect(blocks).toHaveLength(1)
    const file = path.join(dir, 'example.mjs')
    fs.writeFileSync(file, blocks[0])
    const result = spawnSync(process.execPath, [file], { cwd: dir, encoding: 'utf8', timeout: 60_000 })
    expect(result.stderr).toBe('')
    expect(result.status).toBe(0)
    // Each console.log line's comment is what it prints.
    const claimed = [...blocks[0].matchAll(/^console\.log\(.*\)\s+\/\/ (.*)$/gm)].map((m) => m[1])
    expect(claimed).toHaveLength(6)
    expect(result.stdout.trim().split('\n')).toEqual(claimed)
  })
})
