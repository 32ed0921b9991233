import { describe, expect, it } from 'vitest'
import { spawnSync } from 'node:child_process'
import path from 'node:path'

describe('public typings', () => {
  it('a consumer using every exported type compiles with tsc --noEmit (strict)', { timeout: 180_000 }, () => {
    const tsc = path.resolve(__dirname, '..', 'node_modules', 'typescript', 'bin', 'tsc')
    const result = spawnSync(process.execPath, [tsc, '-p', path.join(__dirname, 'typings', 'tsconfig.json')], {
      encoding: 'utf8',
      timeout: 170_000,
    })
    expect(result.stdout + result.stderr).toBe('')
    expect(result.status).toBe(0)
  })

  it('the public typings contain no `any`', async () => {
    const fs = await import('node:fs')
    const root = path.resolve(__dirname, '..')
    const files = ['index.d.ts', ...fs.readdirSync(path.join(root, 'types')).map((f) => path.join('types', f))]
    for (const file of files) {
      const text = fs.readFileSync(path.join(root, file), 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '')
      expect(text, file).not.toMatch(/\bany\b/)
    }
  })
})
