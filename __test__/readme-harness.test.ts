// The code blocks of docs/scopes.md's "In a Cordis harness" section run as written.
// They import the package by name: each runs from a folder inside this
// package (`.tmp/`, ignored by git), where the name resolves to this checkout.
import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'

const root = path.resolve(__dirname, '..')
const guide = fs.readFileSync(path.join(root, 'docs', 'scopes.md'), 'utf8')
const start = guide.indexOf('\n## In a Cordis harness\n')
const next = guide.indexOf('\n## ', start + 1)
const section = guide.slice(start, next === -1 ? undefined : next)
const blocks = [...section.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1])

fs.mkdirSync(path.join(root, '.tmp'), { recursive: true })
const dir = fs.mkdtempSync(path.join(root, '.tmp', 'readme-'))
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

function run(code: string, index: number) {
  const file = path.join(dir, `block-${index}.mjs`)
  fs.writeFileSync(file, code)
  return spawnSync(process.execPath, [file], { cwd: dir, encoding: 'utf8', timeout: 60_000 })
}

describe('docs/scopes.md: in a Cordis harness', () => {
  it('has its examples', () => {
    expect(start).toBeGreaterThan(0)
    expect(blocks).toHaveLength(1)
  })

  it('the scoped preset example runs as written and prints the views it describes', () => {
    const result = run(blocks[0], 0)
    expect(result.stderr).toBe('')
    expect(result.status).toBe(0)
    const host = "[ 'lint: Run the linters.', 'review: Review the change.' ]"
    expect(result.stdout.trim().split('\n')).toEqual([
      host,
      "[ 'lint: Run the linters.', 'review: Review the change for security.' ]",
      host,
    ])
  })
})
