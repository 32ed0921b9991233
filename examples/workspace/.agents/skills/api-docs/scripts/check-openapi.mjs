// Usage: node check-openapi.mjs <openapi.yaml>
// A tiny lint: every operation needs an operationId and a description.
import { readFileSync } from 'node:fs'

const file = process.argv[2]
if (!file) {
  console.error('usage: node check-openapi.mjs <openapi.yaml>')
  process.exit(2)
}
const lines = readFileSync(file, 'utf8').split('\n')
let problems = 0
lines.forEach((line, index) => {
  const match = /^ {4}(get|put|post|patch|delete):\s*$/.exec(line)
  if (!match) return
  const block = lines.slice(index + 1, index + 12).join('\n')
  for (const key of ['operationId', 'description']) {
    if (!block.includes(`${key}:`)) {
      console.log(`${file}:${index + 1}: ${match[1]} operation without ${key}`)
      problems++
    }
  }
})
process.exit(problems ? 1 : 0)
